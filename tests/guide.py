"""Shared by the classroom-kit tests: the two scripts, imported as modules, and the guide's answer key."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from msgmodel.course.exercises import Exercise, all_exercises

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "teacher-guide.md"


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` as a module (the scripts are not a package)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def guide_text() -> str:
    """The teacher's guide, as committed."""
    return GUIDE.read_text(encoding="utf-8")


def answer_key() -> dict[str, str]:
    """The guide's key blocks: exercise id -> code."""
    key: dict[str, str] = load_script("build_student").answer_key(guide_text())
    return key


def chapter_exercises() -> list[Exercise]:
    """The exercises of the chapters (not the ones other tests register, such as 99.1)."""
    return [ex for ex in all_exercises() if ex.checker.__module__.startswith("msgmodel.course.exercises.ch")]
