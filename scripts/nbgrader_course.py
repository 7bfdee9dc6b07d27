"""Write the nbgrader course of the series: one source assignment per chapter, its exercises autograded.

    python scripts/nbgrader_course.py --out COURSE_DIR [--course-id msgmodel] [--exchange /srv/nbgrader/exchange]

Writes ``COURSE_DIR/nbgrader_config.py`` (with ``owned_collect.py``, the collector that takes
only a student's own submissions) and ``COURSE_DIR/source/NN_name/NN_name.ipynb`` for every
chapter. The teacher then works in ``COURSE_DIR`` with nbgrader's own commands
(``generate_assignment``, ``release_assignment``, ``collect``, ``autograde``,
``generate_feedback``, ``release_feedback``; the README's "A class on one server").

A source assignment is the chapter's student copy (``scripts/build_student.py``: outputs
cleared, links for a class home) in which, for every exercise of the chapter in the exercise
registry (``msgmodel.course.exercises.all_exercises``):

* the exercise cell is an nbgrader *autograded answer* cell (``answer_NN_k``): its starter stays
  as handed out, and the answer key's solution (``docs/teacher-guide.md``) follows it between
  ``### BEGIN SOLUTION`` and ``### END SOLUTION``, which ``generate_assignment`` removes, so the
  released cell is the student copy's cell again;
* a locked *autograder test* cell follows it (``test_NN_k``): the exercise's own checker, run
  again by ``autograde`` — ``check("NN.k", name).passed`` or no points. Points per exercise:
  ``CODE_POINTS`` when the answer is code (a function or a class: its starter is one),
  ``CLOSED_POINTS`` for a prediction or a choice.

The exercises come from the registry, cross-checked with the chapter's ``check(...)`` cells and
the answer key: an exercise added, removed or reworked in ``msgmodel.course.exercises`` changes
the course on the next run, and a mismatch is an error naming the chapter and the id. A checker
runs in the grading kernel, so the grading side needs only the installed package; the solutions
in ``source/`` stay in the teacher's course directory.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import build_student  # noqa: E402

from msgmodel.course.exercises import Exercise, all_exercises  # noqa: E402

CODE_POINTS = 2
CLOSED_POINTS = 1
CLASS_UP = ".."
"""Released notebooks sit one folder below the server's root, beside ``docs/`` and ``notebooks/``."""

CONFIG = """\
# nbgrader configuration of the msgmodel course (written by scripts/nbgrader_course.py).
import os
import sys

c = get_config()  # noqa: F821
c.CourseDirectory.course_id = {course_id!r}
c.Exchange.root = {exchange!r}
# collect takes only the submissions a student made themselves (owned_collect.py says why)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
c.ExchangeFactory.collect = "owned_collect.OwnedCollect"
# The exercise cells keep their starter; the solution between the markers goes, nothing replaces it.
c.ClearSolutions.code_stub = {{"python": ""}}
# A chapter runs in under 10 s; one cell gets a minute on a loaded server.
c.ExecutePreprocessor.timeout = 60
"""


class CourseError(ValueError):
    """The chapters, the registry and the answer key disagree (the message names the chapter and the id)."""


def points(ex: Exercise) -> int:
    """``CODE_POINTS`` when the answer is code (the starter is a function or a class), else ``CLOSED_POINTS``."""
    return CODE_POINTS if callable(ex.starter) else CLOSED_POINTS


def grade_id(kind: str, exercise_id: str) -> str:
    """The nbgrader cell id of an exercise's answer or test cell: ``answer_01_1``, ``test_01_1``."""
    return f"{kind}_{exercise_id.replace('.', '_')}"


def _meta(kind: str, exercise_id: str, **extra: object) -> dict[str, object]:
    return {
        "grade_id": grade_id(kind, exercise_id),
        "schema_version": 3,
        "solution": kind == "answer",
        "grade": kind == "test",
        "locked": kind == "test",
        "task": False,
        **extra,
    }


def with_solution(source: str, name: str, solution: str) -> str:
    """The exercise cell's source with the key's solution after the starter that defines ``name``.

    The solution sits between nbgrader's solution markers, in place of the blank line after the
    starter when there is one, so that ``generate_assignment`` gives back the student copy's cell.
    """
    marked = f"### BEGIN SOLUTION\n{solution.rstrip()}\n### END SOLUTION"
    lines = source.splitlines()
    _, end = build_student.starter_lines(source, name)
    after = lines[end:]
    if after and not after[0].strip():
        after = after[1:]
    return "\n".join([*lines[:end], marked, *after])


def test_source(ex: Exercise, name: str) -> str:
    """The autograder test cell of an exercise: its checker, run again; no points unless it passes."""
    n = points(ex)
    return (
        f"# Autograder test of exercise {ex.id} ({n} point{'s' if n > 1 else ''}): the checker of the cell above, "
        "run again when the work is graded.\n"
        "from msgmodel.course.exercises import check as _check\n\n"
        f'_verdict = _check("{ex.id}", {name})\n'
        "assert _verdict.passed, repr(_verdict)"
    )


def source_assignment(chapter: Path, exercises: list[Exercise], key: dict[str, str]) -> nbformat.NotebookNode:
    """The source notebook of one chapter: its student copy, each exercise answered by the key and tested."""
    nb = build_student.student_copy(nbformat.read(chapter, as_version=4), chapter.name, CLASS_UP)
    cells = build_student.exercise_cells(nb)
    wanted = {ex.id for ex in exercises}
    if set(cells) != wanted:
        raise CourseError(
            f"{chapter.name}: its check(...) cells are for {sorted(cells)}, the registry has {sorted(wanted)}"
        )
    missing = sorted(wanted - set(key))
    if missing:
        raise CourseError(f"{chapter.name}: exercise {missing[0]} has no block in the answer key")
    out = []
    by_index = {i: (ex, cells[ex.id][1]) for ex in exercises for i in [cells[ex.id][0]]}
    for i, cell in enumerate(nb.cells):
        if i not in by_index:
            out.append(cell)
            continue
        ex, name = by_index[i]
        cell.source = with_solution(cell.source, name, key[ex.id])
        cell.metadata["nbgrader"] = _meta("answer", ex.id)
        test = nbformat.v4.new_code_cell(test_source(ex, name))
        test.metadata["nbgrader"] = _meta("test", ex.id, points=points(ex))
        test["id"] = grade_id("test", ex.id).replace("_", "-")
        out += [cell, test]
    nb.cells = out
    return nb


def assignments() -> dict[str, list[Exercise]]:
    """Chapter file stem (the assignment's name) -> its exercises in the registry, in id order."""
    chapters = {p.name[:2]: p.stem for p in build_student.chapters()}
    out: dict[str, list[Exercise]] = {stem: [] for stem in chapters.values()}
    for ex in all_exercises():
        if not ex.checker.__module__.startswith("msgmodel.course.exercises.ch"):
            continue  # not a chapter's (a test's own exercise)
        stem = chapters.get(ex.id[:2])
        if stem is None:
            raise CourseError(f"exercise {ex.id} belongs to no chapter of notebooks/")
        out[stem].append(ex)
    return out


def write_course(out: Path, course_id: str, exchange: str) -> list[Path]:
    """Write the course into ``out``; the source notebooks written."""
    key = build_student.answer_key(build_student.GUIDE.read_text(encoding="utf-8"))
    out.mkdir(parents=True, exist_ok=True)
    (out / "nbgrader_config.py").write_text(CONFIG.format(course_id=course_id, exchange=exchange), encoding="utf-8")
    shutil.copy2(ROOT / "classroom" / "owned_collect.py", out / "owned_collect.py")
    written = []
    for stem, exercises in assignments().items():
        nb = source_assignment(build_student.NOTEBOOKS / f"{stem}.ipynb", exercises, key)
        target = out / "source" / stem / f"{stem}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, target)
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True, help="the course directory (nbgrader's course root)")
    ap.add_argument("--course-id", default="msgmodel", help="the nbgrader course id (default: msgmodel)")
    ap.add_argument("--exchange", default="/srv/nbgrader/exchange", help="nbgrader's exchange directory")
    args = ap.parse_args(argv)
    try:
        written = write_course(args.out, args.course_id, args.exchange)
    except CourseError as e:
        print(f"nbgrader_course: {e}", file=sys.stderr)
        return 1
    total = sum(points(ex) for exs in assignments().values() for ex in exs)
    n = sum(len(exs) for exs in assignments().values())
    print(f"{len(written)} source assignments, {n} exercises, {total} points, in {args.out / 'source'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
