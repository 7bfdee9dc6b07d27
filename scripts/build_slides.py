"""The core path as static reveal.js slides: notebooks/NN_*.ipynb → build/slides/NN_*.slides.html.

nbconvert's reveal.js exporter (``jupyter nbconvert --to slides``) renders each chapter's committed
outputs (nothing is re-executed). The deck is the core path: ``scripts/build_notebooks.py`` writes
``metadata.slideshow.slide_type`` on every cell from its ``core`` tag, and the other cells are
skipped. Offline by construction: the template (``slides/template/msgmodel_slides.html.j2``) loads reveal.js
from ``build/slides/reveal.js/``, copied from the npm package that ``slides/package-lock.json`` pins
(``make slides`` runs ``npm ci`` first), and drops nbconvert's jQuery, RequireJS, MathJax, Mermaid
and widget-manager tags, which would come from a CDN. Widgets show their static HTML fallback.

Fitted to a 1280×800 screen (``fit_to_screen``, on the deck's copy of the notebook; the committed
notebook and its prose are untouched): a code cell longer than ``FOLD_LINES`` lines, one that
only imports, or one whose input the notebook hides (a ``hide-input`` tag or JupyterLab's
``source_hidden``, the cells the careful reading clock counts no lines for) shows collapsed
(``<details>``, one click away); a long markdown cell is cut into
subslides at its ``###`` headings and, failing those, between paragraphs; an output taller than
the screen scrolls in its own box. ``scripts/measure_slides.py`` measures every slide's height.

    python scripts/build_slides.py          # every chapter, English and Chinese
    python scripts/build_slides.py 01 04    # some chapters (by number prefix)
    python scripts/build_slides.py --lang zh    # the Chinese decks only (en, zh, both: default both)

The Chinese decks, ``build/slides/zh/NN_*.slides.html``, are the Chinese chapters
(``notebooks/zh/``, committed with their outputs like the English) through the same steps, with
their own copy of reveal.js beside them and the few words the deck adds itself (``LABELS``) in Chinese.

Open ``build/slides/NN_*.slides.html`` in a browser (from disk): arrow keys move, ``s`` opens the
speaker notes, ``f`` full screen.
"""

from __future__ import annotations

import argparse
import copy
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import nbformat
from build_notebooks import CODE_LINES
from build_notebooks import wrapped_lines as screen_lines  # one measure of prose on a slide, both decks
from nbconvert import SlidesExporter
from traitlets.config import Config

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
OUT = ROOT / "build" / "slides"
TEMPLATE = ROOT / "slides" / "template" / "msgmodel_slides.html.j2"
REVEAL_PACKAGE = ROOT / "slides" / "node_modules" / "reveal.js"
REVEAL_DIR = "reveal.js"  # next to the slides, as the template's reveal_url_prefix
REVEAL_FILES = ("dist", "plugin/notes", "LICENSE")
FOLD_LINES = CODE_LINES  # a code cell longer than this shows collapsed (in the live deck it starts a subslide)
MD_LINES = 24  # screen lines of markdown on one slide before the rest of the cell goes to a subslide
SLIDE_PX = 720  # estimated content height of one slide (the deck is 800 px tall) before a cell starts a subslide
OUTPUT_PX = 560  # an output taller than this scrolls in its own box (the template's max-height)
OUTPUT_WIDTH = 110  # characters per line of a text output
HTML_ROWS = re.compile(r"<(?:tr|li|br|p|h[1-6]|pre)\b|class=\"mm-msg", re.I)
HEADING = re.compile(r"\s*#{1,6} ")
SETUP_LINE = re.compile(r"(?:import |from \S+ import |#|$)")


def exporter(lang: str = "en") -> SlidesExporter:
    """nbconvert's reveal.js exporter, set up for local reveal.js and tall slides that scroll."""
    c = Config()
    c.SlidesExporter.language_code = "zh" if lang == "zh" else "en"  # <html lang>: the browser picks CJK faces
    c.SlidesExporter.reveal_url_prefix = REVEAL_DIR
    c.SlidesExporter.reveal_theme = "white"
    c.SlidesExporter.reveal_transition = "none"
    c.SlidesExporter.reveal_scroll = True
    c.SlidesExporter.reveal_number = "c/t"
    c.SlidesExporter.reveal_width = "1280"
    c.SlidesExporter.reveal_height = "800"
    c.SlidesExporter.extra_template_paths = [str(TEMPLATE.parent)]
    ex = SlidesExporter(config=c)
    ex.template_file = TEMPLATE.name  # after construction: the reveal template's conf.json resets it
    return ex


ZH_DIR = "zh"  # the Chinese chapters (notebooks/zh/) and their decks (build/slides/zh/)
LABELS = {
    "en": {
        "hidden": "code, {n} lines, hidden in the notebook (click to show)",
        "long": "code, {n} lines (click to show)",
        "setup": "setup: imports, {n} lines (click to show)",
    },
    "zh": {
        "hidden": "代码，{n} 行，在 notebook 中隐藏（点击展开）",
        "long": "代码，{n} 行（点击展开）",
        "setup": "准备：导入，{n} 行（点击展开）",
    },
}
"""What the deck itself writes on a folded code cell, by language."""


def fold_label(source: str, metadata: dict[str, Any] | None = None, lang: str = "en") -> str | None:
    """The summary a code cell shows collapsed, or None to show the code: hidden, long and setup-only cells."""
    meta = metadata or {}
    lines = source.splitlines()
    words = LABELS[lang]
    if "hide-input" in meta.get("tags", ()) or meta.get("jupyter", {}).get("source_hidden"):
        return words["hidden"].format(n=len(lines))
    if len(lines) > FOLD_LINES:
        return words["long"].format(n=len(lines))
    if lines and all(SETUP_LINE.match(line.strip()) for line in lines):
        return words["setup"].format(n=len(lines))
    return None


def markdown_blocks(source: str) -> list[str]:
    """``source`` cut between paragraphs (blank lines), never inside a fenced code block."""
    blocks: list[str] = []
    current: list[str] = []
    fenced = False
    for line in source.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not line.strip() and not fenced:
            if current:
                blocks.append("\n".join(current))
                current = []
            continue
        current.append(line)
    if current:
        blocks.append("\n".join(current))
    return blocks


def markdown_pages(source: str) -> list[str]:
    """``source`` as the text of consecutive slides. A ``###`` (or deeper) heading starts a page, as it
    starts a subslide at the top of a cell, unless the page so far holds only headings ("## How" stays
    with its first section); a page that would run over ``MD_LINES`` screen lines ends at a paragraph."""
    pages: list[list[str]] = [[]]
    for block in markdown_blocks(source):
        page = pages[-1]
        used = sum(screen_lines(b) + 1 for b in page)
        prose = any(not HEADING.match(b) for b in page)
        if page and ((re.match(r"#{3,6} ", block) and prose) or used + screen_lines(block) > MD_LINES):
            pages.append([])
        pages[-1].append(block)
    return ["\n\n".join(p) for p in pages]


def output_px(output: nbformat.NotebookNode) -> int:
    """A rough height of one output on a slide, at most ``OUTPUT_PX`` (taller ones scroll in their box)."""
    if output.get("output_type") == "stream":
        px = 20 * sum(max(1, -(-len(line) // OUTPUT_WIDTH)) for line in str(output.get("text", "")).splitlines())
    elif output.get("output_type") == "error":
        px = 20 * len(output.get("traceback", []))
    else:
        data = output.get("data", {})
        if "text/html" in data:
            px = 20 * len(HTML_ROWS.findall(str(data["text/html"]))) + 40
        else:
            px = 20 * len(str(data.get("text/plain", "")).splitlines())
    return min(OUTPUT_PX, px) + 16


def cell_px(cell: nbformat.NotebookNode) -> int:
    """A rough height of ``cell`` on a slide, as ``fit_to_screen`` left it."""
    if cell.cell_type == "markdown":
        return 25 * screen_lines(cell.source) + 28 * len(re.findall(r"^#+ ", cell.source, re.M)) + 16
    code = 40 if cell.metadata.get("slide_fold") else 22 * len(cell.source.splitlines()) + 30
    return code + sum(output_px(o) for o in cell.get("outputs", []))


def fit_to_screen(nb: nbformat.NotebookNode, lang: str = "en") -> nbformat.NotebookNode:
    """The deck's copy of ``nb``: long markdown cells cut into subslides, long or setup-only code marked to fold."""
    nb = copy.deepcopy(nb)
    cells = []
    for cell in nb.cells:
        kind = cell.metadata.get("slideshow", {}).get("slide_type", "-")
        if kind == "skip":
            cells.append(cell)
        elif cell.cell_type == "code":
            label = fold_label(cell.source, cell.metadata, lang)
            if label:
                cell.metadata["slide_fold"] = label
            cells.append(cell)
        elif cell.cell_type == "markdown":
            for n, page in enumerate(markdown_pages(cell.source)):
                piece = copy.deepcopy(cell)
                piece.source = page
                if n:
                    piece["id"] = f"{cell.get('id', 'cell')}-{n}"
                    piece.metadata["slideshow"] = {"slide_type": "subslide"}
                    piece.metadata["slide_keep"] = True
                cells.append(piece)
        else:
            cells.append(cell)
    used = 0  # estimated height of the slide so far
    for cell in cells:
        kind = cell.metadata.get("slideshow", {}).get("slide_type", "-")
        if kind == "skip":
            continue
        px = cell_px(cell)
        if kind == "subslide" and cell.metadata.pop("slide_keep", None) is None and not HEADING.match(cell.source):
            kind = "-"  # a break by line count (build_notebooks): on the deck, the estimated height decides
            cell.metadata["slideshow"] = {"slide_type": kind}
        if kind in ("-", "fragment") and used and used + px > SLIDE_PX:
            cell.metadata["slideshow"] = {"slide_type": "subslide"}
            used = 0
        used = px if kind in ("slide", "subslide") else used + px
    nb.cells = cells
    return nb


def slide_count(nb: nbformat.NotebookNode) -> int:
    """Slides in the deck: cells that start a slide or a subslide."""
    return sum(c.metadata.get("slideshow", {}).get("slide_type") in ("slide", "subslide") for c in nb.cells)


REMOTE_TAG = re.compile(r"<(?:script|link|iframe|img)\b[^>]*\b(?:src|href)\s*=\s*[\"']?\s*(?:https?:)?//[^>]*>", re.I)
REMOTE_IMPORT = re.compile(r"(?:@import\s+(?:url\()?|import\s[^;]*?from\s+|import\()\s*[\"']?(?:https?:)?//[^\"')\s]+")


def remote_resources(page: str) -> list[str]:
    """Every script, stylesheet, import or frame of ``page`` that would be fetched over http(s)."""
    return REMOTE_TAG.findall(page) + REMOTE_IMPORT.findall(page)


def copy_reveal(out: Path) -> None:
    if not (REVEAL_PACKAGE / "dist" / "reveal.js").is_file():
        raise SystemExit(f"{REVEAL_PACKAGE} is missing: run `make slides` (it runs `npm ci` in slides/)")
    target = out / REVEAL_DIR
    shutil.rmtree(target, ignore_errors=True)
    for rel in REVEAL_FILES:
        src = REVEAL_PACKAGE / rel
        if src.is_dir():
            shutil.copytree(src, target / rel)
        else:
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target / rel)


def build(only: list[str] | None = None, out: Path = OUT, lang: str = "en") -> dict[str, int]:
    """Write the decks into ``out``; returns the slide count of each deck written, by file name.

    ``lang="zh"``: the Chinese chapters' decks (``notebooks/zh/``), into ``out/zh``.
    """
    notebooks = NOTEBOOKS / ZH_DIR if lang == "zh" else NOTEBOOKS
    out = out / ZH_DIR if lang == "zh" else out
    out.mkdir(parents=True, exist_ok=True)
    copy_reveal(out)
    ex = exporter(lang)
    counts: dict[str, int] = {}
    for path in sorted(notebooks.glob("[0-9][0-9]_*.ipynb")):
        if only and not any(path.stem.startswith(p) for p in only):
            continue
        nb = fit_to_screen(nbformat.read(path, as_version=4), lang)
        page, _ = ex.from_notebook_node(nb, resources={"metadata": {"name": path.stem}})
        remote = remote_resources(page)
        if remote:
            raise SystemExit(f"{path.name}: the slides would load from the network: {remote[:3]}")
        target = out / f"{path.stem}.slides.html"
        target.write_text(page, encoding="utf-8")
        counts[target.name] = slide_count(nb)
    return counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("only", nargs="*", help="chapter number prefixes (default: all)")
    ap.add_argument("--lang", choices=("en", "zh", "both"), default="both", help="which decks (default: both)")
    args = ap.parse_args(argv)
    counts: dict[str, int] = {}
    for lang in ("en", "zh"):
        if args.lang in (lang, "both"):
            started = time.monotonic()
            built = build(args.only, lang=lang)
            where = "build/slides/zh" if lang == "zh" else "build/slides"
            for name, n in built.items():
                print(f"{where}/{name}: {n} slides")
            print(f"{where}: {len(built)} decks in {time.monotonic() - started:.1f} s")
            counts.update({f"{lang}/{name}": n for name, n in built.items()})
    if not counts:
        print("no chapter matched", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
