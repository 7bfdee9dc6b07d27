"""The core route through the series: which sections of each chapter, and how many minutes.

This module owns the measure of the core path. A chapter's core cells are the cells tagged
``core``. The route is measured on the built notebooks, ``notebooks/NN_*.ipynb``, with their
committed outputs, because a careful reader reads the outputs too. Two reading models, the two
of ``tools/series_stats.py``, over core cells only:

* **careful** (the one the route shows, ``ChapterRoute.minutes``): 200 words of markdown a
  minute, plus 20 non-blank lines of code a minute, plus 250 words of output a minute (stream
  text, and the ``text/markdown`` or else ``text/plain`` of a rich output). A code cell whose
  input is hidden (``metadata.jupyter.source_hidden``, or a ``hide-input`` tag) counts no lines.
  A learner who read the core path start to finish took about as long as this model says.
* **quick** (``ChapterRoute.quick_minutes``): 200 words of markdown a minute plus half a minute
  per non-empty code cell. It undercounts long code cells and long outputs.

A chapter's core sections are the ``##`` headings under which its core cells sit.
``read_cells`` reads a chapter's jupytext source (``notebooks/src/NN_*.py``), for the tests that
compare it with the built notebook.

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
from typing import Any, Final

from msgmodel.course.i18n import _

__all__ = [
    "ChapterRoute",
    "Route",
    "SourceCell",
    "chapter_route",
    "code_lines",
    "core_route",
    "find_notebooks",
    "find_sources",
    "input_hidden",
    "output_text",
    "read_cells",
]

WORDS_PER_MINUTE: Final = 200  # markdown, both models
MINUTES_PER_CODE_CELL: Final = 0.5  # the quick model
CODE_LINES_PER_MINUTE: Final = 20  # the careful model: non-blank lines of visible code
OUTPUT_WORDS_PER_MINUTE: Final = 250  # the careful model: words of output
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
    """One chapter on the core route: its number, title, core sections, and what its core cells hold.

    ``words`` of markdown, ``code_cells`` (non-empty), ``code_lines`` (non-blank, visible input
    only) and ``output_words``, all over core cells.
    """

    chapter: str
    title: str
    sections: tuple[str, ...]
    words: int
    code_cells: int
    code_lines: int = 0
    output_words: int = 0

    @property
    def minutes(self) -> float:
        """Core reading time by the careful model: words/200 + code lines/20 + output words/250, to one decimal."""
        return round(
            self.words / WORDS_PER_MINUTE
            + self.code_lines / CODE_LINES_PER_MINUTE
            + self.output_words / OUTPUT_WORDS_PER_MINUTE,
            1,
        )

    @property
    def quick_minutes(self) -> float:
        """Core reading time by the quick model: words/200 + ½ minute per code cell, to one decimal."""
        return round(self.words / WORDS_PER_MINUTE + self.code_cells * MINUTES_PER_CODE_CELL, 1)


def _text(source: object) -> str:
    return "".join(source) if isinstance(source, list) else str(source or "")


def output_text(output: dict[str, Any]) -> str:
    """The words a reader reads in one output: a stream's text, else its ``text/markdown`` or ``text/plain``."""
    if "text" in output:
        return _text(output["text"])
    data = output.get("data") or {}
    return _text(data.get("text/markdown") or data.get("text/plain") or "")


def input_hidden(cell: dict[str, Any]) -> bool:
    """Whether a code cell's input is hidden (JupyterLab's collapsed input, or the ``hide-input`` tag)."""
    meta = cell.get("metadata") or {}
    return bool((meta.get("jupyter") or {}).get("source_hidden")) or "hide-input" in meta.get("tags", ())


def code_lines(cell: dict[str, Any]) -> int:
    """The non-blank lines a reader reads in a code cell (none when its input is hidden)."""
    return 0 if input_hidden(cell) else sum(1 for line in _text(cell.get("source")).splitlines() if line.strip())


def _words(text: str) -> int:
    return len(re.findall(r"\S+", text))


def chapter_route(nb: dict[str, Any], stem: str) -> ChapterRoute:
    """The core route through one built notebook (its JSON as a dict); ``stem`` is its file name without suffix."""
    title, section = stem, ""
    sections: list[str] = []
    words = cells = lines = out = 0
    for c in nb.get("cells", []):
        source = _text(c.get("source"))
        tags = (c.get("metadata") or {}).get("tags", ())
        headed: list[str] = []  # every section this cell opens, not only its last
        if c.get("cell_type") == "markdown":
            for line in source.splitlines():
                if line.startswith("# ") and title == stem:
                    title = re.sub(r"^\d\d\s*·\s*", "", line[2:].strip())  # "00 · Start here" -> "Start here"
                elif line.startswith("## "):
                    section = line[3:].strip()
                    headed.append(section)
        if "core" not in tags:
            continue
        if c.get("cell_type") == "markdown":
            words += _words(source)
        elif c.get("cell_type") == "code" and source.strip():
            cells += 1
            lines += code_lines(c)
            out += sum(_words(output_text(o)) for o in c.get("outputs", []))
        else:
            continue
        for name in headed or [section]:
            if name and name not in sections:
                sections.append(name)
    return ChapterRoute(stem[:2], title, tuple(sections), words, cells, lines, out)


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


def find_notebooks(start: Path | None = None) -> Path:
    """The repository's ``notebooks/`` with the built chapters (``NN_*.ipynb``): next to the package, else near the cwd.

    ``FileNotFoundError`` names the places it looked.
    """
    here = Path(__file__).resolve().parents[2]
    cwd = (start or Path.cwd()).resolve()
    candidates = [here / "notebooks", cwd / "notebooks", cwd, cwd.parent / "notebooks"]
    for c in candidates:
        if c.is_dir() and any(c.glob("[0-9][0-9]_*.ipynb")):
            return c
    raise FileNotFoundError(
        "no notebooks/ with built chapters (NN_*.ipynb) in: " + ", ".join(str(c) for c in candidates)
    )


class Route:
    """The core route: one row per chapter, and the total (careful minutes)."""

    def __init__(self, chapters: list[ChapterRoute]) -> None:
        self.chapters = chapters

    @property
    def total(self) -> float:
        """The core path's minutes by the careful model, all chapters."""
        return round(sum(c.minutes for c in self.chapters), 1)

    @property
    def quick_total(self) -> float:
        """The core path's minutes by the quick model, all chapters."""
        return round(sum(c.quick_minutes for c in self.chapters), 1)

    @property
    def code_lines(self) -> int:
        """The lines of code a reader reads on the core path."""
        return sum(c.code_lines for c in self.chapters)

    def _sections(self, c: ChapterRoute) -> str:
        return " · ".join(c.sections) or "(no core cells yet)"

    def __repr__(self) -> str:
        width = max([len(f"{c.chapter} {c.title}") for c in self.chapters] + [7])
        lines = [f"{_('chapter'):<{width}}  {_('min'):>5}"]
        for c in self.chapters:
            lines.append(f"{c.chapter + ' ' + c.title:<{width}}  {c.minutes:>5}")
        lines.append(f"{_('total'):<{width}}  {self.total:>5}")
        lines.append(model_note())
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{html.escape(c.chapter)}</td><td>{html.escape(c.title)}</td>"
            f"<td>{html.escape(self._sections(c))}</td><td style='text-align:right'>{c.minutes}</td></tr>"
            for c in self.chapters
        )
        return (
            f'<table class="mm-route"><tr><th>#</th><th>{_("chapter")}</th>'
            f'<th style="text-align:left">{_("core sections")}</th>'
            f"<th>{_('min')}</th></tr>{rows}<tr><td></td><td><b>{_('total')}</b></td><td></td>"
            f"<td style='text-align:right'><b>{self.total}</b></td></tr>"
            f'<caption style="caption-side:bottom;text-align:left">{html.escape(model_note())}</caption></table>'
        )

    def markdown(self) -> str:
        """The route as a Markdown table (what the README shows)."""
        lines = ["| # | chapter | core sections | min |", "|---|---|---|---:|"]
        for c in self.chapters:
            lines.append(f"| {c.chapter} | {c.title} | {self._sections(c)} | {c.minutes} |")
        lines.append(f"| | **total** | | **{self.total}** |")
        return "\n".join(lines)


MODEL_NOTE: Final = (
    f"min: a careful reading, core cells only: prose {WORDS_PER_MINUTE} words, code {CODE_LINES_PER_MINUTE} lines "
    f"and output {OUTPUT_WORDS_PER_MINUTE} words a minute"
)


def model_note() -> str:
    """``MODEL_NOTE`` in the language in use (``msgmodel.course.i18n``)."""
    return _(
        "min: a careful reading, core cells only: prose {prose} words, code {code} lines "
        "and output {out} words a minute"
    ).format(prose=WORDS_PER_MINUTE, code=CODE_LINES_PER_MINUTE, out=OUTPUT_WORDS_PER_MINUTE)


def core_route(notebooks: Path | None = None) -> Route:
    """The 90-minute route: per chapter, its core sections and careful minutes, from ``notebooks/NN_*.ipynb``."""
    folder = notebooks if notebooks is not None else find_notebooks()
    paths = sorted(folder.glob("[0-9][0-9]_*.ipynb"))
    return Route([chapter_route(json.loads(p.read_text(encoding="utf-8")), p.stem) for p in paths])
