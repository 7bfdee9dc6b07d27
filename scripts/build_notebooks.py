"""Build the notebook series: sources in notebooks/src/*.py (jupytext percent) → executed .ipynb.

For every chapter, in order: read the source, add the generated navigation cells
(previous · contents · next) at the top and the bottom, execute it top to bottom in a
fresh kernel, and write ``notebooks/NN_name.ipynb`` with its outputs, ready to commit and
to be compared by ``pytest --nbval``. A chapter that takes longer than its budget fails
the build.

    python scripts/build_notebooks.py            # every chapter
    python scripts/build_notebooks.py 01 03      # some chapters (by number prefix)
    python scripts/build_notebooks.py --check    # no execution: are the .ipynb up to date?
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SOURCES = NOTEBOOKS / "src"
BUDGET_S = 10.0
NAV_MARK = "<!--NAVIGATION-->"
CONTENTS = "00_start_here.ipynb"


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
    return nb


def source_view(nb: nbformat.NotebookNode) -> list[tuple[str, str, tuple[str, ...]]]:
    """What must agree between a built notebook and its source: cell kinds, text, tags."""
    return [(c.cell_type, c.source, tuple(c.metadata.get("tags", ()))) for c in nb.cells]


def execute(nb: nbformat.NotebookNode) -> float:
    env_before = os.environ.get("PYTHONHASHSEED")
    os.environ["PYTHONHASHSEED"] = "0"
    try:
        client = NotebookClient(
            nb,
            timeout=60,
            kernel_name="python3",
            record_timing=False,  # no wall-clock timestamps in the committed notebooks
            resources={"metadata": {"path": str(NOTEBOOKS)}},
        )
        start = time.perf_counter()
        client.execute()
        return time.perf_counter() - start
    finally:
        if env_before is None:
            os.environ.pop("PYTHONHASHSEED", None)
        else:
            os.environ["PYTHONHASHSEED"] = env_before


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("only", nargs="*", help="chapter number prefixes to build (default: all)")
    ap.add_argument("--check", action="store_true", help="verify the .ipynb files match their sources")
    args = ap.parse_args(argv)
    chs = chapters()
    stale = []
    total = 0.0
    for i, ch in enumerate(chs):
        if args.only and not any(ch.stem.startswith(p) for p in args.only):
            continue
        nb = assemble(chs, i)
        target = NOTEBOOKS / ch.ipynb
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
    if args.check:
        if stale:
            print("out of date (run `make notebooks`): " + ", ".join(stale), file=sys.stderr)
            return 1
        print(f"{len(chs)} notebooks match their sources")
        return 0
    print(f"total: {total:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
