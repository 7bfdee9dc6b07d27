"""The chapters as the build assembles them: their sources in notebooks/src/*.py (jupytext percent), their
order and titles, the navigation cells, stable cell ids and the slide metadata derived from the ``core`` tag.

Unexecuted: ``scripts/build_notebooks.py`` executes and writes them, ``scripts/translations.py`` turns them into
the Chinese edition; both import this module, and neither imports the other (they did, in a circle).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import jupytext
import nbformat

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SOURCES = NOTEBOOKS / "src"
BUDGET_S = 10.0
NAV_MARK = "<!--NAVIGATION-->"
CONTENTS = "00_start_here.ipynb"
CORE_TAG = "core"
SLIDE_LINES = 24  # screen lines on one slide before the next core cell without a heading starts a subslide
CODE_LINES = 15  # a longer code cell starts a subslide of its own
PROSE_WIDTH = 100  # characters of markdown per screen line on a slide


@dataclass(frozen=True)
class Chapter:
    stem: str
    title: str

    @property
    def ipynb(self) -> str:
        return f"{self.stem}.ipynb"


def read_source(path: Path) -> nbformat.NotebookNode:
    return jupytext.read(path, fmt="py:percent")


def chapter_title(nb: nbformat.NotebookNode, stem: str) -> str:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            m = re.search(r"^# (.+)$", cell.source, re.M)
            if m:
                return m.group(1).strip()
    raise SystemExit(f"{stem}: the first markdown cell needs a '# Title' heading")


def chapters() -> list[Chapter]:
    out = []
    for path in sorted(SOURCES.glob("[0-9][0-9]_*.py")):
        out.append(Chapter(path.stem, chapter_title(read_source(path), path.stem)))
    return out


def nav_line(chs: list[Chapter], i: int) -> str:
    parts = []
    if i > 0:
        parts.append(f"← [{chs[i - 1].title}]({chs[i - 1].ipynb})")
    parts.append(f"[Contents]({CONTENTS}#Chapter-map)")
    if i + 1 < len(chs):
        parts.append(f"[{chs[i + 1].title}]({chs[i + 1].ipynb}) →")
    return f"{NAV_MARK}\n" + " · ".join(parts)


def nav_cell(text: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_markdown_cell(text)
    cell.metadata["tags"] = ["navigation"]
    cell.pop("id", None)
    return cell


def wrapped_lines(text: str) -> int:
    """The lines markdown ``text`` takes on a slide (either deck), long lines wrapped at ``PROSE_WIDTH``."""
    return sum(max(1, -(-len(line) // PROSE_WIDTH)) for line in text.splitlines())


def screen_lines(cell: nbformat.NotebookNode) -> int:
    """The lines ``cell``'s source takes on a slide: code line for line, markdown wrapped (``wrapped_lines``)."""
    return wrapped_lines(cell.source) if cell.cell_type == "markdown" else len(cell.source.splitlines())


def slide_types(cells: list[nbformat.NotebookNode]) -> list[str]:
    """The slide type of each cell: the core path is the deck, everything else is skipped.

    A core markdown cell whose first line is a ``#`` or ``##`` heading starts a slide, one with a
    deeper heading a subslide (reveal.js: down, not right). Other core cells continue the slide
    (``"-"``), unless the slide would then hold more than ``SLIDE_LINES`` screen lines (a markdown
    line wraps every ``PROSE_WIDTH`` characters), or the cell is code longer than ``CODE_LINES``
    lines: then they start a subslide. The first core cell always starts a slide. Cells without
    the ``core`` tag (navigation, side tracks, exercises) are ``"skip"``.
    """
    out: list[str] = []
    lines: int | None = None  # screen lines on the current slide; None before the first slide
    for cell in cells:
        size = screen_lines(cell)
        if CORE_TAG not in cell.metadata.get("tags", ()):
            out.append("skip")
            continue
        heading = re.match(r"(#{1,6}) ", cell.source.lstrip()) if cell.cell_type == "markdown" else None
        if lines is None or (heading and len(heading.group(1)) <= 2):
            kind = "slide"
        elif heading or lines + size > SLIDE_LINES or (cell.cell_type == "code" and size > CODE_LINES):
            kind = "subslide"
        else:
            kind = "-"
        lines = size if kind != "-" else (lines or 0) + size
        out.append(kind)
    return out


def add_slide_metadata(nb: nbformat.NotebookNode) -> None:
    """Write ``metadata.slideshow.slide_type`` on every cell, and RISE's deck options on the notebook."""
    for cell, kind in zip(nb.cells, slide_types(nb.cells), strict=True):
        cell.metadata["slideshow"] = {"slide_type": kind}
    # RISE: tall slides scroll instead of being cut; no chalkboard or overlay that needs network
    nb.metadata["rise"] = {"scroll": True, "enable_chalkboard": False, "transition": "none"}


def assemble(chs: list[Chapter], i: int) -> nbformat.NotebookNode:
    """The chapter's notebook, unexecuted: source cells between two navigation cells."""
    nb = read_source(SOURCES / f"{chs[i].stem}.py")
    line = nav_line(chs, i)
    nb.cells = [nav_cell(line), *nb.cells, nav_cell(line)]
    for n, cell in enumerate(nb.cells):
        cell["id"] = f"{chs[i].stem[:2]}-{n:03d}"  # stable ids: diffs stay small
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    nb.nbformat, nb.nbformat_minor = 4, 5
    add_slide_metadata(nb)
    return nb
