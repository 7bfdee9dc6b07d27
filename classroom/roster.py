"""The class roster: who may log in to the class's JupyterHub, who teaches, and whether ``reveal`` is on.

A TOML file the teacher writes (``/etc/msgmodel-class/roster.toml`` by default)::

    course = "msgmodel"                  # the nbgrader course id
    teachers = ["teacher"]               # JupyterHub admins; own the course directory, run nbgrader
    students = ["student01", "student02"]
    reveal = false                       # reveal("NN.k", confirm=True) for students (see the README)

Every name is a Unix login of this server (``classroom/accounts.py`` creates them). The Hub lets
in exactly these names (``allowed_users``), the teachers as admins; ``accounts.py`` and the tests
read the same file. ``RosterError`` names the file and the field at fault.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

LOGIN = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")
"""A portable Unix login name (what ``useradd`` accepts without ``--badname``)."""

COURSE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class RosterError(ValueError):
    """The roster cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class Roster:
    """A parsed roster. ``students`` and ``teachers`` are disjoint, each name once."""

    course: str
    teachers: tuple[str, ...]
    students: tuple[str, ...]
    reveal: bool

    @property
    def everyone(self) -> tuple[str, ...]:
        """Teachers first, then students: every name the Hub lets in."""
        return (*self.teachers, *self.students)


def _names(data: dict[str, object], field: str, where: str) -> tuple[str, ...]:
    value = data.get(field)
    if not isinstance(value, list) or not value:
        raise RosterError(f"{where}: {field} must be a non-empty list of login names, got {value!r}")
    for i, name in enumerate(value):
        if not isinstance(name, str) or not LOGIN.match(name):
            raise RosterError(
                f"{where}: {field}[{i}]: {name!r} is not a login name (lower case letters, digits, _ and -, "
                "starting with a letter or _, at most 32 characters)"
            )
    return tuple(value)


def parse_roster(text: str, where: str = "roster") -> Roster:
    """The roster in ``text`` (TOML); ``where`` names it in errors."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise RosterError(f"{where}: {e}") from None
    unknown = sorted(set(data) - {"course", "teachers", "students", "reveal"})
    if unknown:
        raise RosterError(f"{where}: unknown field {unknown[0]!r} (the fields: course, teachers, students, reveal)")
    course = data.get("course", "msgmodel")
    if not isinstance(course, str) or not COURSE_ID.match(course):
        raise RosterError(f"{where}: course must be letters, digits, _ or - (an nbgrader course id), got {course!r}")
    teachers = _names(data, "teachers", where)
    students = _names(data, "students", where)
    for field, names in (("teachers", teachers), ("students", students)):
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise RosterError(f"{where}: {field}: {twice[0]!r} is listed twice")
    both = sorted(set(teachers) & set(students))
    if both:
        raise RosterError(f"{where}: {both[0]!r} is both a teacher and a student")
    reveal = data.get("reveal", False)
    if not isinstance(reveal, bool):
        raise RosterError(f"{where}: reveal must be true or false, got {reveal!r}")
    return Roster(course=course, teachers=teachers, students=students, reveal=reveal)


def read_roster(path: Path) -> Roster:
    """The roster file at ``path``."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise RosterError(f"{path}: cannot read the roster: {e.strerror}") from None
    return parse_roster(text, str(path))


def roster_for_root(path: Path, tool: str, why: str) -> Roster:
    """The roster at ``path`` for a tool that runs as root; ``SystemExit`` (no traceback) if not root or unreadable."""
    if os.geteuid() != 0:
        raise SystemExit(f"{tool} runs as root (sudo): {why}")
    try:
        return read_roster(path)
    except RosterError as e:
        raise SystemExit(str(e)) from None


def roster_text(roster: Roster) -> str:
    """``roster`` written as the TOML file it was (or could have been) read from."""

    def names(ns: tuple[str, ...]) -> str:
        return "[" + ", ".join(f'"{n}"' for n in ns) + "]"

    return (
        "# Who may log in to the class's JupyterHub (Unix accounts of this server) and who teaches.\n"
        f'course = "{roster.course}"\n'
        f"teachers = {names(roster.teachers)}\n"
        f"students = {names(roster.students)}\n"
        f"reveal = {'true' if roster.reveal else 'false'}\n"
    )
