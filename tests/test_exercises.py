"""The exercise checker: every reference passes, every starter fails, a learner's crash is a hint."""

from __future__ import annotations

import pytest

from msgmodel.course.exercises import Exercise, Verdict, all_exercises, check, exercise, get, is_placeholder, reveal


def _is_even_checker(answer: object) -> str | None:
    if not callable(answer):
        return "give a function"
    for n, want in [(0, True), (1, False), (6, True), (-3, False)]:
        if answer(n) is not want:
            return f"is_even({n}) should be {want}"
    return None


def _reference(n: int) -> bool:
    return n % 2 == 0


EX = exercise(Exercise(id="99.1", task="write is_even(n)", checker=_is_even_checker, reference=_reference))


def test_a_right_answer_passes_and_a_wrong_one_gets_a_concrete_hint() -> None:
    assert check("99.1", _reference) == Verdict("99.1", True, "")
    verdict = check("99.1", lambda n: True)
    assert not verdict.passed and verdict.hint == "is_even(1) should be False"
    assert repr(verdict) == "✗ exercise 99.1: not yet. is_even(1) should be False"
    assert repr(check("99.1", _reference)) == "✓ exercise 99.1: correct."


def _stub(n: int) -> bool:
    """Is n even?"""
    ...  # your code here


def _pass_stub(n: int) -> bool:  # type: ignore[empty-body]
    pass


def test_a_placeholder_is_not_attempted_and_gives_nothing_away() -> None:
    for placeholder in (None, ..., "", set(), [], _stub, _pass_stub):
        verdict = check("99.1", placeholder)
        assert not verdict.passed
        assert verdict.hint == "not attempted yet. Task: write is_even(n)"
        assert repr(verdict) == "· exercise 99.1: not attempted yet. Task: write is_even(n)"

    class Empty:
        """Fields go here."""

    class Started:
        x: int

    assert is_placeholder(Empty) and not is_placeholder(Started)
    assert not is_placeholder(lambda n: True)
    assert not is_placeholder(_reference)


def test_a_crash_in_the_answer_becomes_a_hint_not_a_traceback() -> None:
    def broken(n: int) -> bool:
        return {}[n]  # type: ignore[no-any-return]

    verdict = check("99.1", broken)
    assert not verdict.passed
    line = broken.__code__.co_firstlineno + 1
    assert verdict.hint == f"your answer raised KeyError: 0 (line {line} of broken)."


def test_unknown_ids_and_double_registration_are_refused() -> None:
    with pytest.raises(KeyError, match=r"no exercise '42\.9'"):
        get("42.9")
    with pytest.raises(ValueError, match="registered twice"):
        exercise(Exercise(id="99.1", task="other", checker=_is_even_checker, reference=None))
    assert exercise(EX) is EX  # the same registration again is harmless


def test_reveal_shows_the_reference_source() -> None:
    assert reveal("99.1").startswith("def _reference(n: int) -> bool:")


@pytest.mark.parametrize("ex", [e for e in all_exercises() if not e.id.startswith("99.")], ids=lambda e: e.id)
def test_every_chapter_exercise_is_consistent(ex: Exercise) -> None:
    assert check(ex.id, ex.reference).passed, f"the reference of {ex.id} fails its own checker"
    starter = check(ex.id, ex.starter)
    assert not starter.passed, f"the starter of {ex.id} passes"
    assert starter.hint, "a failing answer gets a hint"
    if not is_placeholder(ex.starter):
        assert not starter.hint.startswith("not attempted"), "an attempt gets a real hint"
