"""Shared by the classroom-kit tests: the teacher's guide and its answer key, the chapters' exercises."""

from __future__ import annotations

from pathlib import Path

import build_student

from msgmodel.course.exercises import Exercise, all_exercises

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "teacher-guide.md"


def guide_text() -> str:
    """The teacher's guide, as committed."""
    return GUIDE.read_text(encoding="utf-8")


def answer_key() -> dict[str, str]:
    """The guide's key blocks: exercise id -> code."""
    key: dict[str, str] = build_student.answer_key(guide_text())
    return key


def chapter_exercises() -> list[Exercise]:
    """The exercises of the chapters (not the ones other tests register, such as 99.1)."""
    return [ex for ex in all_exercises() if ex.checker.__module__.startswith("msgmodel.course.exercises.ch")]
