"""The core path as static reveal.js slides: notebooks/NN_*.ipynb → build/slides/NN_*.slides.html.

nbconvert's reveal.js exporter (``jupyter nbconvert --to slides``) renders each chapter's committed
outputs (nothing is re-executed). The deck is the core path: ``scripts/build_notebooks.py`` writes
``metadata.slideshow.slide_type`` on every cell from its ``core`` tag, and the other cells are
skipped. Offline by construction: the template (``slides/template/msgmodel_slides.html.j2``) loads reveal.js
from ``build/slides/reveal.js/``, copied from the npm package that ``slides/package-lock.json`` pins
(``make slides`` runs ``npm ci`` first), and drops nbconvert's jQuery, RequireJS, MathJax, Mermaid
and widget-manager tags, which would come from a CDN. Widgets show their static HTML fallback.

    python scripts/build_slides.py          # every chapter
    python scripts/build_slides.py 01 04    # some chapters (by number prefix)

Open ``build/slides/NN_*.slides.html`` in a browser (from disk): arrow keys move, ``s`` opens the
speaker notes, ``f`` full screen.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

import nbformat
from nbconvert import SlidesExporter
from traitlets.config import Config

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
OUT = ROOT / "build" / "slides"
TEMPLATE = ROOT / "slides" / "template" / "msgmodel_slides.html.j2"
REVEAL_PACKAGE = ROOT / "slides" / "node_modules" / "reveal.js"
REVEAL_DIR = "reveal.js"  # next to the slides, as the template's reveal_url_prefix
REVEAL_FILES = ("dist", "plugin/notes", "LICENSE")


def exporter() -> SlidesExporter:
    """nbconvert's reveal.js exporter, set up for local reveal.js and tall slides that scroll."""
    c = Config()
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


def build(only: list[str] | None = None, out: Path = OUT) -> dict[str, int]:
    """Write the decks into ``out``; returns the slide count of each deck written, by file name."""
    out.mkdir(parents=True, exist_ok=True)
    copy_reveal(out)
    ex = exporter()
    counts: dict[str, int] = {}
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        if only and not any(path.stem.startswith(p) for p in only):
            continue
        nb = nbformat.read(path, as_version=4)
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
    args = ap.parse_args(argv)
    counts = build(args.only)
    for name, n in counts.items():
        print(f"build/slides/{name}: {n} slides")
    if not counts:
        print("no chapter matched", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
