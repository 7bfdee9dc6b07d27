"""The exercise checker: every reference passes, every starter is a blank, hints come in steps, a crash is a hint."""

from __future__ import annotations

import inspect
from typing import Any, TypedDict

import pytest

from msgmodel.course.exercises import (
    Exercise,
    Verdict,
    all_exercises,
    check,
    exercise,
    get,
    hint,
    is_placeholder,
    reveal,
)


def _is_even_checker(answer: object) -> str | None:
    if not callable(answer):
        return "give a function"
    for n, want in [(0, True), (1, False), (6, True), (-3, False)]:
        if answer(n) is not want:
            return f"is_even({n}) should be {want}"
    return None


def _reference(n: int) -> bool:
    return n % 2 == 0


EX = exercise(
    Exercise(
        id="99.1",
        task="write is_even(n)",
        checker=_is_even_checker,
        reference=_reference,
        hints=("what does n % 2 give?", "use the % operator"),
    )
)


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


def test_reveal_shows_the_reference_source_only_when_confirmed() -> None:
    assert reveal("99.1", confirm=True).startswith("def _reference(n: int) -> bool:")
    hidden = reveal("99.1")
    assert "n % 2" not in hidden and "reveal('99.1', confirm=True)" in hidden
    assert repr(hidden) == str(hidden)  # shown in a notebook as text, not as a quoted string


def test_hints_come_in_steps_and_end_in_a_pointer_to_reveal() -> None:
    assert hint("99.1") == "hint 1 of 2 for exercise 99.1: what does n % 2 give? More: hint('99.1', 2)."
    assert hint("99.1", 2) == "hint 2 of 2 for exercise 99.1: use the % operator Last hint; then reveal('99.1')."
    assert "seen them all" in hint("99.1", 3) and "confirm=True" in hint("99.1", 3)
    assert hint("99.1", 0).startswith("hint levels are 1 to 2")


@pytest.mark.parametrize("ex", [e for e in all_exercises() if not e.id.startswith("99.")], ids=lambda e: e.id)
def test_every_chapter_exercise_is_consistent(ex: Exercise) -> None:
    assert check(ex.id, ex.reference).passed, f"the reference of {ex.id} fails its own checker"
    assert is_placeholder(ex.starter), f"the starter of {ex.id} is code, not a blank"
    assert repr(check(ex.id, ex.starter)) == f"· exercise {ex.id}: not attempted yet. Task: {ex.task}"
    for wrong in _wrong_answers(ex):
        verdict = check(ex.id, wrong)
        assert not verdict.passed, f"{ex.id}: the wrong answer {wrong!r} passes"
        assert repr(verdict).startswith(f"✗ exercise {ex.id}: not yet. "), repr(verdict)
        assert len(verdict.hint) > 20, f"{ex.id}: a wrong answer gets a real hint, got {verdict.hint!r}"


def _solution_lines(ex: Exercise) -> list[str]:
    """The lines of a reference that would give it away (its code, or the answer's repr)."""
    ref = ex.reference
    if callable(ref):
        source = inspect.getsource(ref)
        body = [line.strip() for line in source.splitlines()[1:]]
        return [line for line in body if len(line) > 25 and not line.startswith(('"""', "#"))]
    return [repr(ref)] if len(repr(ref)) > 3 else []


@pytest.mark.parametrize("ex", [e for e in all_exercises() if not e.id.startswith("99.")], ids=lambda e: e.id)
def test_every_exercise_has_graded_hints_and_a_confirmed_reveal(ex: Exercise) -> None:
    assert len(ex.hints) >= 2, f"{ex.id} needs at least two hints (a nudge, then a pointer to the API)"
    assert len(set(ex.hints)) == len(ex.hints) and all(len(h) > 40 for h in ex.hints)
    pointers = ("msgmodel.", "msgspec.", "typing.", "docs/", "decision diagram")
    assert any(p in " ".join(ex.hints[1:]) for p in pointers), f"{ex.id}: a later hint names the API to use"
    shown = [hint(ex.id, level) for level in range(1, len(ex.hints) + 2)] + [reveal(ex.id)]
    for line in _solution_lines(ex):
        for text in shown:
            assert line not in text, f"{ex.id}: {text!r} gives away {line!r}"
    assert f"reveal({ex.id!r}, confirm=True)" in reveal(ex.id)
    assert reveal(ex.id, confirm=True) == (
        inspect.getsource(ex.reference) if callable(ex.reference) else repr(ex.reference)
    )


def test_the_three_unclear_specs_say_what_they_mean() -> None:
    assert "as_history=True" in get("01.3").task and "stored history" in get("01.3").task
    assert "Compacted" in get("07.2").task and ".messages" in get("07.2").task
    assert all(part in get("04.3").task for part in ("JSONPath", "$", "[i]", ".name", "counted from 0"))


class _SlipResult(TypedDict):
    type: str
    toolUseId: str


def _returns_none(*args: Any, **kwargs: Any) -> None:
    return None


def _render_placeholders(b: dict[str, Any]) -> str:  # the first try step 30 made
    return str(b["text"]) if b.get("type") == "text" else "(tool call)"


def _pairs_by_position(messages: Any) -> Any:  # zips calls and results: wrong when answered out of order
    from msgmodel.core.message import tool_results_of, tool_uses_of

    calls = [c for m in messages for c in tool_uses_of(m)]
    return list(zip(calls, [r for m in messages for r in tool_results_of(m)], strict=False))


def _trust_keep(history: Any, keep: int) -> int:  # step 29's trust in the caller's keep
    return keep


def _wrong_answers(ex: Exercise) -> list[object]:
    """Answers that must get a ✗ with a hint: built from the reference, so they follow the exercises."""
    ref = ex.reference
    first_tries: dict[str, list[object]] = {
        "01.3": [_trust_keep],
        "02.1": [_render_placeholders],
        "06.1": [_pairs_by_position],
    }
    wrong: list[object] = list(first_tries.get(ex.id, []))
    if isinstance(ref, type):
        wrong.append(_SlipResult)
    elif callable(ref):
        wrong.append(_returns_none)
    elif isinstance(ref, str):
        wrong.append("A" if ref != "A" else "B")
    elif isinstance(ref, dict):
        key = sorted(ref)[0]
        others = sorted({str(v) for v in ref.values()} - {str(ref[key])}) or ["?"]
        other: object = type(ref[key])(others[0]) if isinstance(ref[key], int) else others[0]
        wrong.append({**ref, key: other})
    elif isinstance(ref, (set, list)):
        items = sorted(ref)
        wrong.append(type(ref)(items[:-1]) if len(items) > 1 else type(ref)([*items, items[0]]))
    assert wrong, f"no wrong answer for {ex.id}"
    return wrong
