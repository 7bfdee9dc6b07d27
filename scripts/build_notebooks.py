"""Build the notebook series: sources in notebooks/src/*.py (jupytext percent) → executed .ipynb.

For every chapter, in order: read the source, add the generated navigation cells
(previous · contents · next) at the top and the bottom, execute it top to bottom in a
fresh kernel, and write ``notebooks/NN_name.ipynb`` with its outputs, ready to commit and
to be compared by ``pytest --nbval``. A chapter that takes longer than its budget fails
the build.

    python scripts/build_notebooks.py            # every chapter
    python scripts/build_notebooks.py 01 03      # some chapters (by number prefix)
    python scripts/build_notebooks.py --check    # no execution: are the .ipynb up to date?
    python scripts/build_notebooks.py --slides   # no execution: rewrite only the slide metadata
    python scripts/build_notebooks.py --edition zh 02   # only the Chinese edition (en, zh, both: default both)

The Chinese edition, ``notebooks/zh/NN_name.ipynb``, is built after the English from the same source
and the chapter's catalog (``scripts/translations.py`` says how), executed from ``notebooks/zh/``
under the same budget, its outputs committed like the English ones.

Chapter 00 prints the core route, measured on the built notebooks (``core_route()``: minutes by
the careful reading model, outputs included). After a build, if the route it printed is no longer
the measure of the notebooks just written, chapter 00 is executed again (``rebuild_route``), so the
table it commits is the one of the committed notebooks (and nbval, re-running it, prints the same).

Slides: every cell gets ``metadata.slideshow.slide_type`` (read by JupyterLab's RISE and by
nbconvert's reveal.js exporter), derived from the ``core`` tag, so the core path is the slide deck.
See ``slide_types``.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

import nbformat
import translations  # scripts/translations.py: the Chinese edition of a chapter
from chapters import (  # noqa: F401  (re-exported: the tests and scripts read them from here)
    BUDGET_S,
    CODE_LINES,
    CONTENTS,
    CORE_TAG,
    NAV_MARK,
    NOTEBOOKS,
    PROSE_WIDTH,
    ROOT,
    SLIDE_LINES,
    SOURCES,
    Chapter,
    add_slide_metadata,
    assemble,
    chapter_title,
    chapters,
    nav_cell,
    nav_line,
    read_source,
    screen_lines,
    slide_types,
    wrapped_lines,
)
from nbclient import NotebookClient


def source_view(nb: nbformat.NotebookNode) -> list[tuple[str, str, tuple[str, ...], str | None]]:
    """What must agree between a built notebook and its source: cell kinds, text, tags, slide types."""
    return [
        (c.cell_type, c.source, tuple(c.metadata.get("tags", ())), c.metadata.get("slideshow", {}).get("slide_type"))
        for c in nb.cells
    ]


def restamp_slides(built: nbformat.NotebookNode, fresh: nbformat.NotebookNode) -> bool:
    """Copy the slide metadata of ``fresh`` onto ``built`` (same cells, outputs kept); False if the cells differ."""
    if [v[:3] for v in source_view(built)] != [v[:3] for v in source_view(fresh)]:
        return False
    for old, new in zip(built.cells, fresh.cells, strict=True):
        old.metadata["slideshow"] = new.metadata["slideshow"]
    built.metadata["rise"] = fresh.metadata["rise"]
    return True


def execute(nb: nbformat.NotebookNode, where: Path = NOTEBOOKS) -> float:
    env_before = os.environ.get("PYTHONHASHSEED")
    os.environ["PYTHONHASHSEED"] = "0"
    try:
        client = NotebookClient(
            nb,
            timeout=60,
            kernel_name="python3",
            record_timing=False,  # no wall-clock timestamps in the committed notebooks
            resources={"metadata": {"path": str(where)}},
        )
        start = time.perf_counter()
        client.execute()
        return time.perf_counter() - start
    finally:
        if env_before is None:
            os.environ.pop("PYTHONHASHSEED", None)
        else:
            os.environ["PYTHONHASHSEED"] = env_before


ROUTE_CALL = re.compile(r"^core_route\(\)\s*$", re.M)


def printed_route(nb: nbformat.NotebookNode) -> str | None:
    """The route chapter 00 printed: the ``text/plain`` of the cell that ends with ``core_route()``."""
    for cell in nb.cells:
        if cell.cell_type == "code" and ROUTE_CALL.search(cell.source):
            for out in cell.get("outputs", []):
                if "data" in out and "text/plain" in out["data"]:
                    return str(out["data"]["text/plain"])
    return None


def rebuild_route(chs: list[Chapter], tries: int = 3) -> int:
    """Re-execute chapter 00 until the route it prints is the measure of the built notebooks; 0 when it is."""
    from msgmodel.course.route import core_route  # the package this build runs against

    i = next((n for n, ch in enumerate(chs) if ch.ipynb == CONTENTS), None)
    if i is None:
        return 0
    target = NOTEBOOKS / CONTENTS
    for _ in range(tries):
        shown = printed_route(nbformat.read(target, as_version=4)) if target.exists() else None
        if shown is None or shown == repr(core_route(NOTEBOOKS)):
            return 0
        nb = assemble(chs, i)
        seconds = execute(nb)
        nbformat.write(nb, target)
        print(f"{CONTENTS}: executed again in {seconds:.1f} s (its core route was stale)")
    print(f"{CONTENTS}: the core route it prints does not settle", file=sys.stderr)
    return 1


def chinese(ch: Chapter) -> nbformat.NotebookNode:
    """Chapter ``ch`` in Chinese, unexecuted (``translations.translated_notebook``: English code, catalog prose)."""

    return translations.translated_notebook(ch.stem)


def build_chinese(chs: list[Chapter], only: list[str], *, check: bool) -> int:
    """Build (or with ``check``, compare) ``notebooks/zh/NN_*.ipynb``: 0 when all went well.

    Executed from ``notebooks/zh/`` like the English from ``notebooks/``, under the same budget.
    A cell whose catalog entry is missing or fuzzy is built in English under a marker; the
    tests (``tests/test_zh_edition.py``) refuse such a chapter.
    """
    target_dir = NOTEBOOKS / "zh"
    target_dir.mkdir(exist_ok=True)
    stale, total = [], 0.0
    for ch in chs:
        if only and not any(ch.stem.startswith(p) for p in only):
            continue
        nb, target = chinese(ch), target_dir / ch.ipynb
        if check:
            if not target.exists() or source_view(nbformat.read(target, as_version=4)) != source_view(nb):
                stale.append(f"zh/{ch.ipynb}")
            continue
        seconds = execute(nb, target_dir)
        total += seconds
        nbformat.write(nb, target)
        print(f"zh/{ch.ipynb}: executed in {seconds:.1f} s")
        if seconds > BUDGET_S:
            print(f"zh/{ch.ipynb}: over the {BUDGET_S:.0f} s budget", file=sys.stderr)
            return 1
    if check and stale:
        print("out of date (run `make notebooks`): " + ", ".join(stale), file=sys.stderr)
        return 1
    if not check:
        print(f"total (zh): {total:.1f} s")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("only", nargs="*", help="chapter number prefixes to build (default: all)")
    ap.add_argument("--check", action="store_true", help="verify the .ipynb files match their sources")
    ap.add_argument("--slides", action="store_true", help="rewrite only the slide metadata (no execution)")
    ap.add_argument(
        "--edition", choices=("en", "zh", "both"), default="both", help="English, Chinese (notebooks/zh/) or both"
    )
    args = ap.parse_args(argv)
    chs = chapters()
    english = 0 if args.edition == "zh" else build_english(chs, args)
    if english or args.edition == "en" or args.slides:
        return english
    return build_chinese(chs, args.only, check=args.check)


def build_english(chs: list[Chapter], args: argparse.Namespace) -> int:
    """The English chapters, ``notebooks/NN_*.ipynb`` (``main``'s options): 0 when all went well."""
    stale = []
    total = 0.0
    for i, ch in enumerate(chs):
        if args.only and not any(ch.stem.startswith(p) for p in args.only):
            continue
        nb = assemble(chs, i)
        target = NOTEBOOKS / ch.ipynb
        if args.slides:
            built = nbformat.read(target, as_version=4) if target.exists() else None
            if built is None or not restamp_slides(built, nb):
                stale.append(ch.ipynb)
                continue
            nbformat.write(built, target)
            print(f"{ch.ipynb}: slide metadata written")
            continue
        if args.check:
            if not target.exists() or source_view(nbformat.read(target, as_version=4)) != source_view(nb):
                stale.append(ch.ipynb)
            continue
        seconds = execute(nb)
        total += seconds
        nbformat.write(nb, target)
        print(f"{ch.ipynb}: executed in {seconds:.1f} s")
        if seconds > BUDGET_S:
            print(f"{ch.ipynb}: over the {BUDGET_S:.0f} s budget", file=sys.stderr)
            return 1
    if args.slides:
        if stale:
            print("cells differ from their sources, rebuild them first: " + ", ".join(stale), file=sys.stderr)
            return 1
        return 0
    if args.check:
        if stale:
            print("out of date (run `make notebooks`): " + ", ".join(stale), file=sys.stderr)
            return 1
        print(f"{len(chs)} notebooks match their sources")
        return 0
    print(f"total: {total:.1f} s")
    return rebuild_route(chs)


if __name__ == "__main__":
    sys.exit(main())
