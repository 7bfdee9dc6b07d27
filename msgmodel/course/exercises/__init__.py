"""Auto-checked exercises for the notebook series.

This package owns the checking of a learner's answers. Each chapter has a module
(``ch01``, ``ch02``, ...) that registers its exercises with ``exercise``; a notebook
calls ``check("01.1", answer)`` and sees either a pass or a helpful hint, never a
traceback. Help comes in steps the learner asks for: ``hint("01.1")`` gives a nudge,
``hint("01.1", 2)`` points at the API to use, and ``reveal("01.1")`` only says how to confirm;
``reveal("01.1", confirm=True)`` shows the reference solution. The reference solutions are not in
this package: they are the answer key of the teacher's guide, which ``reveal`` reads from the
checkout in self-study and which a class keeps from its students (``key`` says how). The test
suite checks that each key block passes its checker, each starter is a placeholder ("not
attempted yet") and a wrong answer gets a hint.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from msgmodel.course.exercises.key import KEY_ENV, key_path, load_key, reveal_is_off
from msgmodel.course.i18n import N_, _, join

__all__ = [
    "Exercise",
    "Help",
    "Verdict",
    "all_exercises",
    "check",
    "exercise",
    "get",
    "hint",
    "is_placeholder",
    "reveal",
]

Checker = Callable[[Any], "str | None"]
"""Returns ``None`` when the answer is right, otherwise a hint saying what is wrong."""


@dataclass(frozen=True)
class Exercise:
    """One exercise: its id (``"01.1"``), its task, its checker, its starter, its hints.

    No reference solution: that is in the answer key (``msgmodel.course.exercises.key``).
    ``starter`` is what the notebook hands out: always a placeholder (``None``, ``...`` or a
    function whose body is ``...``), so a committed notebook shows "not attempted yet".
    ``hints`` are graded: the first a nudge, the next ones closer (the last names the API to use);
    none gives the answer away. ``goal`` is the learning goal, one sentence saying what the exercise
    teaches about the series' thesis; the chapter's exercise cell and the teacher's guide state it
    word for word (``tests/test_exercise_goals.py``).
    """

    id: str
    task: str
    checker: Checker
    starter: object = None
    hints: tuple[str, ...] = ()
    goal: str = ""


@dataclass(frozen=True)
class Verdict:
    """The result of ``check``: shown in a notebook as one line (✓ or ✗ with a hint)."""

    exercise_id: str
    passed: bool
    hint: str

    def __repr__(self) -> str:
        if self.passed:
            return join(_("✓ exercise {id}: correct.").format(id=self.exercise_id), self.hint)
        if self.hint.startswith(_("not attempted yet")):
            return join(_("· exercise {id}:").format(id=self.exercise_id), self.hint)
        return join(_("✗ exercise {id}: not yet.").format(id=self.exercise_id), self.hint)

    def __bool__(self) -> bool:
        return self.passed


_REGISTRY: Final[dict[str, Exercise]] = {}
_CHAPTERS: Final = ("ch00", "ch01", "ch02", "ch03", "ch04", "ch05", "ch06", "ch07")


def exercise(ex: Exercise) -> Exercise:
    """Register an exercise (each chapter module calls this at import)."""
    if ex.id in _REGISTRY and _REGISTRY[ex.id] != ex:
        raise ValueError(f"exercise {ex.id} is registered twice")
    _REGISTRY[ex.id] = ex
    return ex


def _load_chapter(chapter: str) -> None:
    """Import a chapter's exercise module (which registers its exercises); absent is fine."""
    try:
        importlib.import_module(f"msgmodel.course.exercises.{chapter}")
    except ModuleNotFoundError as e:
        if e.name != f"msgmodel.course.exercises.{chapter}":
            raise


def _load(exercise_id: str) -> None:
    chapter = f"ch{exercise_id.split('.')[0]}"
    if chapter in _CHAPTERS:
        _load_chapter(chapter)


def get(exercise_id: str) -> Exercise:
    """The exercise with this id (``KeyError`` with the known ids if there is none)."""
    _load(exercise_id)
    try:
        return _REGISTRY[exercise_id]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY)) or "none loaded"
        raise KeyError(f"no exercise {exercise_id!r} (known: {known})") from None


def all_exercises() -> list[Exercise]:
    """Every exercise of every chapter, in id order."""
    for chapter in _CHAPTERS:
        _load_chapter(chapter)
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def learner_source(fn: object) -> tuple[str, ast.Module] | None:
    """The source of a learner's function or class, dedented, and its parse; ``None`` when it cannot be read
    (defined where ``inspect`` finds no source, or not Python)."""
    try:
        source = textwrap.dedent(inspect.getsource(fn))  # type: ignore[arg-type]
        return source, ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return None


def is_placeholder(answer: object) -> bool:
    """Whether ``answer`` is still the blank the notebook hands out, not an attempt.

    ``None``, ``...``, an empty string or collection, and a function or class whose body is
    only ``...`` or ``pass`` (a docstring and comments allowed). A placeholder gets a neutral
    "not attempted yet" instead of a hint, so a committed notebook does not give the answer
    away to someone reading it on GitHub.
    """
    if answer is None or answer is Ellipsis:
        return True
    if isinstance(answer, (str, bytes, list, tuple, set, frozenset, dict)) and not answer:
        return True
    if inspect.isfunction(answer) or inspect.isclass(answer):
        read = learner_source(answer)
        if read is None:
            # A class defined in a notebook cell has no source to read: judge it by what it
            # declares (no annotations and no attributes of its own means nothing written).
            if inspect.isclass(answer):
                own = {k for k in vars(answer) if not (k.startswith("__") and k.endswith("__"))}
                return not own and not getattr(answer, "__annotations__", None)
            return False
        tree = read[1]
        node = tree.body[0] if tree.body else None
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return False
        # Only a docstring, `...`, `pass` or other bare constants: nothing written yet.
        return all(
            isinstance(st, ast.Pass) or (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))
            for st in node.body
        )
    return False


def check(exercise_id: str, answer: object) -> Verdict:
    """Check a learner's answer. Never raises: a crash in the answer becomes a hint."""
    ex = get(exercise_id)
    if is_placeholder(answer):
        return Verdict(exercise_id, False, _("not attempted yet") + _(". Task: ") + _(ex.task))
    try:
        problem = ex.checker(answer)
    except Exception as e:  # the learner's code raised inside the checker
        frame = traceback.extract_tb(e.__traceback__)[-1]
        where = (
            _(" (line {line} of {name})").format(line=frame.lineno, name=frame.name) if frame.name != "<module>" else ""
        )
        raised = _("your answer raised {error}: {message}{where}.")
        return Verdict(exercise_id, False, raised.format(error=type(e).__name__, message=e, where=where))
    if problem is None:
        return Verdict(exercise_id, True, "")
    return Verdict(exercise_id, False, _(problem))


class Help(str):
    """A hint or a revealed solution: a ``str`` that a notebook shows as plain text, no quotes."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)


def hint(exercise_id: str, level: int = 1) -> Help:
    """Hint number ``level`` (1 = a nudge, higher = closer to the answer) for an exercise.

    Past the last hint, says so and how to see the solution; never shows the solution itself.
    """
    ex = get(exercise_id)
    n = len(ex.hints)
    q = repr(exercise_id)
    if not isinstance(level, int) or isinstance(level, bool) or level < 1:
        return Help(_("hint levels are 1 to {n}: try hint({q}) first.").format(n=n, q=q))
    if level > n:
        seen = _("exercise {id} has {n} hints and you have seen them all.").format(id=exercise_id, n=n)
        if reveal_is_off():
            return Help(join(seen, _(_OFF)))
        return Help(join(seen, _("To see the reference solution: reveal({q}, confirm=True).").format(q=q)))
    if level < n:
        more = _(" More: hint({q}, {next}).").format(q=q, next=level + 1)
    else:
        more = _(" Last hint; then reveal({q}).").format(q=q)
    head = _("hint {level} of {n} for exercise {id}:").format(level=level, n=n, id=exercise_id)
    return Help(join(head, _(ex.hints[level - 1])) + more)


_OFF: Final = N_(
    "reveal is off in this class: your teacher keeps the reference solutions for now. "
    "Ask them, or read the checker's message again: check() says what is still wrong."
)


def reveal(exercise_id: str, confirm: bool = False) -> Help:
    """The reference solution (the exercise's block of the answer key), but only with ``confirm=True``.

    Without it, how to confirm. In a class with reveal off (``MSGMODEL_REVEAL=off``), says so; where
    no key is installed (a class image, a plain ``pip install``), says where the key is.
    """
    get(exercise_id)  # an unknown id is a KeyError naming the known ones, as for check and hint
    q = repr(exercise_id)
    if reveal_is_off():
        return Help(join(_("exercise {id}:").format(id=exercise_id), _(_OFF)))
    if confirm is not True:
        return Help(
            _(
                "exercise {id}: the solution stays hidden until you confirm. "
                "Try the hints first: hint({q}) then hint({q}, 2). "
                "To see it anyway: reveal({q}, confirm=True)."
            ).format(id=exercise_id, q=q)
        )
    path = key_path()
    solution = load_key(path).get(exercise_id)
    if solution is None:
        if path:
            where = _("{path} has no key block for it").format(path=path)
        else:
            where = _("no answer key is installed with this copy of msgmodel")
        return Help(
            _(
                "exercise {id}: {where}. The key is the <!-- key: NN.k --> blocks of docs/teacher-guide.md "
                "in the repository; set {env} to that file to use it here."
            ).format(id=exercise_id, where=where, env=KEY_ENV)
        )
    return Help(solution)
