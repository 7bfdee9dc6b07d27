"""Write the student copies of the chapters: ``build/student/NN_*.ipynb``, blank, to be run in class.

    python scripts/build_student.py              # every chapter -> build/student/
    python scripts/build_student.py --out DIR    # somewhere else

Both editions: the English chapters go to ``build/student/``, the Chinese ones (``notebooks/zh/``) to
``build/student/zh/``, with the note on top in Chinese (``--edition en`` or ``zh`` for one of them).

A student copy is the committed ``notebooks/NN_*.ipynb`` with:

* **every code cell's outputs cleared** (and its execution count). The exercise cells (the cells
  that call ``check("NN.k", ...)``, the "predict" exercises among them) keep only their starter
  code, the placeholders the committed chapters already carry. The other cells lose their outputs
  too, on purpose: nearly every output in the series is the answer to a question the chapter asks
  a line earlier ("what does the API answer?", "which value of keep breaks?"), so "predict before
  you run" is only real when the output is not already on the page. The widgets' static
  fallbacks are cleared as well: the self-check quiz and the interview drill of chapter 06 carry
  their right options and model answers in that fallback. The markdown (tables included) stays.
  A student copy is made to be run (``Run All`` takes under 10 s a chapter), not read on GitHub:
  the committed chapters, with outputs, remain the reading copy.
* the notebook's widget state removed (it holds the same quiz and drill answers);
* one note on top saying what the copy is, and links to ``../docs`` and ``../bench`` rewritten
  to ``../../docs`` and ``../../bench`` (the copies live two folders down).

No solution text is in a student copy: the reference solutions live only in the answer key of
``docs/teacher-guide.md`` (``msgmodel.course.exercises.key``; ``tests/test_student_copies.py``
checks it). This module also reads that answer key (``answer_key``) and pastes it into a copy's
exercise cells (``with_solutions``), which is how the tests run every copy with the key's
solutions and how ``scripts/nbgrader_course.py`` writes the teacher's source assignments.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from msgmodel.course.exercises.key import parse_key  # noqa: E402

NOTEBOOKS = ROOT / "notebooks"
OUT = ROOT / "build" / "student"
GUIDE = ROOT / "docs" / "teacher-guide.md"

CHECK_CALL = re.compile(r'^check\("(?P<id>\d\d\.\d)",\s*(?P<name>[A-Za-z_]\w*)\)\s*$', re.M)
NOTE = (
    "**Student copy.** The outputs are cleared: before you run a cell, say what it will print, then run it. "
    'Each exercise cell shows "not attempted yet" until you replace its placeholder; `hint("NN.k")` gives a '
    'nudge, `hint("NN.k", 2)` a closer one. The chapter with its outputs is '
    "[notebooks/{name}]({up}/notebooks/{name})."
)
NOTE_ZH = (
    "**学生副本。** 输出已清空：运行一个 cell 之前，先说出它会打印什么，再运行。每个练习 cell 在你替换占位符之前"
    '都显示“尚未作答”；`hint("NN.k")` 给一点提示，`hint("NN.k", 2)` 给更近一步的提示。带输出的本章在 '
    "[notebooks/zh/{name}]({up}/notebooks/zh/{name})。"
)


def exercise_cells(nb: nbformat.NotebookNode) -> dict[str, tuple[int, str]]:
    """The exercise cells of a chapter: exercise id -> (cell index, the name the cell checks)."""
    found: dict[str, tuple[int, str]] = {}
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for m in CHECK_CALL.finditer(cell.source):
            if m["id"] in found:
                raise ValueError(f"exercise {m['id']} is checked in two cells ({found[m['id']][0]} and {i})")
            found[m["id"]] = (i, m["name"])
    return found


def student_copy(nb: nbformat.NotebookNode, name: str, up: str = "../..", *, zh: bool = False) -> nbformat.NotebookNode:
    """The blank copy of one chapter (``name`` is its file name, for the note on top).

    ``up`` is the way from the copy's folder to the folder holding ``docs/``, ``bench/`` and the
    chapters with their outputs in ``notebooks/``: ``../..`` from ``build/student/``, ``..`` in a
    class's home, where the copies sit one folder below those (``classroom/prepare_home.py``).
    ``zh``: a Chinese chapter (``notebooks/zh/``), whose note is in Chinese and points there.
    """
    copy = nbformat.from_dict(nb)
    copy.metadata.pop("widgets", None)
    for cell in copy.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
            cell.metadata.pop("execution", None)
        elif cell.cell_type == "markdown":
            cell.source = re.sub(r"\]\((?:\.\./)+(docs|bench)/", rf"]({up}/\1/", cell.source)
    note = nbformat.v4.new_markdown_cell((NOTE_ZH if zh else NOTE).format(name=name, up=up))
    note.metadata["tags"] = ["student-copy"]
    note["id"] = f"{name[:2]}-student"
    copy.cells.insert(0, note)
    return copy


def answer_key(text: str) -> dict[str, str]:
    """The answer key of the teacher's guide: exercise id -> the code of its key block.

    A key block is a ```` ```python ```` fence right after a line ``<!-- key: NN.k -->``
    (``msgmodel.course.exercises.key.parse_key``; ``AnswerKeyError`` if an id has two blocks).
    """
    return parse_key(text, GUIDE.name)


def starter_lines(source: str, name: str) -> tuple[int, int]:
    """Where the starter that defines ``name`` sits in an exercise cell: its lines ``[first, end)``, from 0.

    The starter is the top-level ``def``/``class``/assignment of ``name``; ``ValueError`` if there is none.
    """
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            defines = node.name == name
        else:
            targets = node.targets if isinstance(node, ast.Assign) else []
            defines = any(isinstance(t, ast.Name) and t.id == name for t in targets)
        if defines:
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            return first - 1, node.end_lineno or node.lineno
    raise ValueError(f"no top-level definition of {name!r} in the exercise cell:\n{source}")


def paste(source: str, name: str, solution: str) -> str:
    """An exercise cell's source with the starter that defines ``name`` replaced by ``solution``.

    The rest of the cell (imports, the lines that print the question, the ``check`` call) stays as it is.
    """
    first, end = starter_lines(source, name)
    lines = source.splitlines()
    return "\n".join([*lines[:first], solution.rstrip("\n"), *lines[end:]])


def with_solutions(nb: nbformat.NotebookNode, key: dict[str, str]) -> nbformat.NotebookNode:
    """A copy of ``nb`` whose exercise cells hold the key's solutions (``KeyError`` if one is missing)."""
    out = nbformat.from_dict(nb)
    for ex_id, (i, name) in exercise_cells(out).items():
        out.cells[i].source = paste(out.cells[i].source, name, key[ex_id])
    return out


def chapters(zh: bool = False) -> list[Path]:
    """The committed chapters, in order (``zh``: the Chinese edition's, ``notebooks/zh/``)."""
    return sorted((NOTEBOOKS / "zh" if zh else NOTEBOOKS).glob("[0-9][0-9]_*.ipynb"))


def build(out: Path, up: str = "../..", *, zh: bool = False) -> list[Path]:
    """Write every chapter's student copy into ``out`` (links ``up`` as ``student_copy`` says); the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in chapters(zh):
        copy = student_copy(nbformat.read(path, as_version=4), path.name, up, zh=zh)
        target = out / path.name
        nbformat.write(copy, target)
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=OUT, help=f"where to write the copies (default: {OUT})")
    ap.add_argument("--edition", choices=("en", "zh", "both"), default="both", help="which edition (default: both)")
    args = ap.parse_args(argv)
    ok = True
    for zh in (False, True):
        if args.edition == ("en" if zh else "zh"):
            continue
        out = args.out / "zh" if zh else args.out
        written = build(out, "../../.." if zh else "../..", zh=zh)
        exercises = sum(len(exercise_cells(nbformat.read(p, as_version=4))) for p in written)
        print(f"{len(written)} student copies, {exercises} exercises, in {out}")
        ok = ok and bool(written)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
