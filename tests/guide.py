"""Shared by the classroom-kit tests: the teacher's guide and its answer key, the chapters' exercises.

The answer key is the ``<!-- key: NN.k -->`` blocks of docs/teacher-guide.md (the package holds no
solution: ``msgmodel.course.exercises.key``). ``key_answer`` runs a key block the way a student's
exercise cell would and returns the object the cell hands to ``check``.
"""

from __future__ import annotations

import functools
from pathlib import Path

import build_student
import nbformat

from msgmodel.course.exercises import Exercise, all_exercises, check, hint, reveal
from msgmodel.course.exercises.key import parse_key

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "teacher-guide.md"


def guide_text() -> str:
    """The teacher's guide, as committed."""
    return GUIDE.read_text(encoding="utf-8")


def answer_key() -> dict[str, str]:
    """The guide's key blocks: exercise id -> code."""
    return parse_key(guide_text(), GUIDE.name)


def chapter_exercises() -> list[Exercise]:
    """The exercises of the chapters (not the ones other tests register, such as 99.1)."""
    return [ex for ex in all_exercises() if ex.checker.__module__.startswith("msgmodel.course.exercises.ch")]


@functools.cache
def checked_names() -> dict[str, str]:
    """Exercise id -> the name its cell passes to ``check``, from the committed chapters."""
    names = {}
    for path in build_student.chapters():
        for ex_id, (_, name) in build_student.exercise_cells(nbformat.read(path, as_version=4)).items():
            names[ex_id] = name
    return names


def key_answer(ex_id: str) -> object:
    """The answer the key block of ``ex_id`` defines, run in a fresh namespace as an exercise cell runs.

    The namespace holds only what the chapter's exercise cell imports (``check``, ``hint``,
    ``reveal``); ``AssertionError`` if the block does not define the name the cell checks.
    """
    namespace: dict[str, object] = {"check": check, "hint": hint, "reveal": reveal}
    code = compile(answer_key()[ex_id], f"{GUIDE.name} key {ex_id}", "exec", dont_inherit=True)  # no __future__
    exec(code, namespace)
    name = checked_names()[ex_id]
    assert name in namespace, f"the key block of {ex_id} must define {name!r}, the name its exercise cell checks"
    return namespace[name]
