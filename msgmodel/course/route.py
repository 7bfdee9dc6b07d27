"""The core route through the series: which sections of each chapter, and how many minutes.

This module owns the measure of the core path. A chapter's core cells are the cells tagged
``core`` in its jupytext source (``notebooks/src/NN_*.py``: ``# %% [markdown] tags=["core"]`` or
``# %% tags=["core"]``). Reading time is estimated as ``tools/series_stats.py`` estimates it on the
built notebooks: 200 words of markdown a minute plus half a minute per non-empty code cell, core
cells only. A chapter's core sections are the ``##`` headings under which its core cells sit.

``core_route()`` returns a ``Route``: an HTML table in Jupyter, aligned text elsewhere, and
``markdown()``, the table the README shows between ``<!-- core-route -->`` and
``<!-- /core-route -->`` (``scripts/core_route.py --write-readme`` writes it).
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = ["ChapterRoute", "Route", "SourceCell", "core_route", "find_sources", "read_cells"]

WORDS_PER_MINUTE: Final = 200
MINUTES_PER_CODE_CELL: Final = 0.5
_MARKER: Final = re.compile(r"^# %%(?P<rest>.*)$")
_TAGS: Final = re.compile(r"tags=(\[[^\]]*\])")


@dataclass(frozen=True)
class SourceCell:
    """One cell of a jupytext percent source: its type, its text (markdown without ``# ``), its tags."""

    cell_type: str
    source: str
    tags: tuple[str, ...]


def _markdown_line(line: str) -> str:
    if line.startswith("# "):
        return line[2:]
    return line[1:] if line.startswith("#") else line


def _cell(kind: str, tags: tuple[str, ...], lines: list[str]) -> SourceCell:
    body = [_markdown_line(x) for x in lines] if kind == "markdown" else lines
    return SourceCell(kind, "\n".join(body).strip("\n"), tags)


def read_cells(text: str) -> list[SourceCell]:
    """The cells of a jupytext percent source (the YAML header before the first ``# %%`` is skipped)."""
    cells: list[SourceCell] = []
    kind: str | None = None
    tags: tuple[str, ...] = ()
    lines: list[str] = []
    for line in text.splitlines():
        m = _MARKER.match(line)
        if m is None:
            lines.append(line)
            continue
        if kind is not None:
            cells.append(_cell(kind, tags, lines))
        rest = m["rest"]
        kind = "markdown" if "[markdown]" in rest or "[md]" in rest else "code"
        found = _TAGS.search(rest)
        tags = tuple(str(t) for t in json.loads(found[1])) if found else ()
        lines = []
    if kind is not None:
        cells.append(_cell(kind, tags, lines))
    return cells


@dataclass(frozen=True)
class ChapterRoute:
    """One chapter on the core route: its number, title, core sections, words, code cells, minutes."""

    chapter: str
    title: str
    sections: tuple[str, ...]
    words: int
    code_cells: int

    @property
    def minutes(self) -> float:
        """Core reading time: words/200 + ½ minute per code cell, to one decimal."""
        return round(self.words / WORDS_PER_MINUTE + self.code_cells * MINUTES_PER_CODE_CELL, 1)


def _chapter_route(path: Path) -> ChapterRoute:
    cells = read_cells(path.read_text(encoding="utf-8"))
    title, section = path.stem, ""
    sections: list[str] = []
    words = code = 0
    for c in cells:
        headed: list[str] = []  # every section this cell opens, not only its last
        if c.cell_type == "markdown":
            for line in c.source.splitlines():
                if line.startswith("# ") and title == path.stem:
                    title = re.sub(r"^\d\d\s*·\s*", "", line[2:].strip())  # "00 · Start here" -> "Start here"
                elif line.startswith("## "):
                    section = line[3:].strip()
                    headed.append(section)
        if "core" not in c.tags:
            continue
        if c.cell_type == "markdown":
            words += len(re.findall(r"\S+", c.source))
        elif c.source.strip():
            code += 1
        else:
            continue
        for name in headed or [section]:
            if name and name not in sections:
                sections.append(name)
    return ChapterRoute(path.stem[:2], title, tuple(sections), words, code)


def find_sources(start: Path | None = None) -> Path:
    """The repository's ``notebooks/src``: next to the package, else from the working directory.

    Works from the repository root, from ``notebooks/`` (where a notebook's kernel starts) and
    from an editable install. ``FileNotFoundError`` names the places it looked.
    """
    here = Path(__file__).resolve().parents[2]
    cwd = (start or Path.cwd()).resolve()
    candidates = [here / "notebooks" / "src", cwd / "notebooks" / "src", cwd / "src", cwd.parent / "notebooks" / "src"]
    for c in candidates:
        if c.is_dir() and any(c.glob("[0-9][0-9]_*.py")):
            return c
    raise FileNotFoundError(
        "no notebooks/src with chapter sources (NN_*.py) in: " + ", ".join(str(c) for c in candidates)
    )


class Route:
    """The core route: one row per chapter, and the total."""

    def __init__(self, chapters: list[ChapterRoute]) -> None:
        self.chapters = chapters

    @property
    def total(self) -> float:
        """The core path's minutes, all chapters."""
        return round(sum(c.minutes for c in self.chapters), 1)

    def _sections(self, c: ChapterRoute) -> str:
        return " · ".join(c.sections) or "(no core cells yet)"

    def __repr__(self) -> str:
        width = max([len(f"{c.chapter} {c.title}") for c in self.chapters] + [7])
        lines = [f"{'chapter':<{width}}  {'min':>5}  core sections"]
        for c in self.chapters:
            lines.append(f"{c.chapter + ' ' + c.title:<{width}}  {c.minutes:>5}  {self._sections(c)}")
        lines.append(f"{'total':<{width}}  {self.total:>5}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{html.escape(c.chapter)}</td><td>{html.escape(c.title)}</td>"
            f"<td>{html.escape(self._sections(c))}</td><td style='text-align:right'>{c.minutes}</td></tr>"
            for c in self.chapters
        )
        return (
            '<table class="mm-route"><tr><th>#</th><th>chapter</th><th style="text-align:left">core sections</th>'
            f"<th>min</th></tr>{rows}<tr><td></td><td><b>total</b></td><td></td>"
            f"<td style='text-align:right'><b>{self.total}</b></td></tr></table>"
        )

    def markdown(self) -> str:
        """The route as a Markdown table (what the README shows)."""
        lines = ["| # | chapter | core sections | min |", "|---|---|---|---:|"]
        for c in self.chapters:
            lines.append(f"| {c.chapter} | {c.title} | {self._sections(c)} | {c.minutes} |")
        lines.append(f"| | **total** | | **{self.total}** |")
        return "\n".join(lines)


def core_route(src: Path | None = None) -> Route:
    """The 90-minute route: per chapter, its core sections and minutes, from ``notebooks/src/*.py``."""
    folder = src if src is not None else find_sources()
    return Route([_chapter_route(p) for p in sorted(folder.glob("[0-9][0-9]_*.py"))])
