"""The exercise checker: every key answer passes, every starter is a blank, hints come in steps, a crash is a hint.

The reference solutions are the answer key of docs/teacher-guide.md (``tests/guide.py`` runs its
blocks); the package holds none, and ``reveal`` reads the key from the checkout, from
``MSGMODEL_KEY``, or says it is off (``MSGMODEL_REVEAL=off``) or not installed.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, TypedDict

import pytest
from guide import answer_key, chapter_exercises, key_answer

from msgmodel.course.exercises import (
    Exercise,
    Verdict,
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
        exercise(Exercise(id="99.1", task="other", checker=_is_even_checker))
    assert exercise(EX) is EX  # the same registration again is harmless


_KEY_99 = "def is_even(n):\n    return n % 2 == 0\n"


def _key_file(tmp_path: Path) -> Path:
    key = tmp_path / "teacher-guide.md"
    key.write_text(f"# Key\n\n<!-- key: 99.1 -->\n```python\n{_KEY_99}```\n", encoding="utf-8")
    return key


def test_reveal_shows_the_key_block_only_when_confirmed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MSGMODEL_KEY", str(_key_file(tmp_path)))
    monkeypatch.delenv("MSGMODEL_REVEAL", raising=False)
    assert reveal("99.1", confirm=True) == _KEY_99
    hidden = reveal("99.1")
    assert "n % 2" not in hidden and "reveal('99.1', confirm=True)" in hidden
    assert repr(hidden) == str(hidden)  # shown in a notebook as text, not as a quoted string


def test_reveal_in_a_class_says_it_is_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A class's Hub sets MSGMODEL_REVEAL=off: no solution, even with a key at hand, and hint says so too."""
    monkeypatch.setenv("MSGMODEL_KEY", str(_key_file(tmp_path)))
    monkeypatch.setenv("MSGMODEL_REVEAL", "off")
    for shown in (reveal("99.1", confirm=True), reveal("99.1"), hint("99.1", 3)):
        assert "reveal is off in this class" in shown and "n % 2 == 0" not in shown
    assert "confirm=True" not in hint("99.1", 3)


def test_reveal_without_a_key_says_where_the_key_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A class image or a plain pip install has no key: reveal names the guide instead of a solution."""
    monkeypatch.setenv("MSGMODEL_KEY", str(tmp_path / "absent.md"))
    monkeypatch.delenv("MSGMODEL_REVEAL", raising=False)
    shown = reveal("99.1", confirm=True)
    assert "no answer key is installed" in shown and "docs/teacher-guide.md" in shown and "MSGMODEL_KEY" in shown
    other = tmp_path / "other.md"
    other.write_text("<!-- key: 01.1 -->\n```python\nx = 1\n```\n", encoding="utf-8")
    monkeypatch.setenv("MSGMODEL_KEY", str(other))
    assert reveal("99.1", confirm=True).startswith(f"exercise 99.1: {other} has no key block for it.")


def test_no_exercise_carries_a_solution() -> None:
    """The registry holds checkers, starters and hints: no field that could hand a student the answer."""
    fields = ("id", "task", "checker", "starter", "hints", "goal")
    assert [f for f in Exercise.__dataclass_fields__ if f not in fields] == []


def test_hints_come_in_steps_and_end_in_a_pointer_to_reveal() -> None:
    assert hint("99.1") == "hint 1 of 2 for exercise 99.1: what does n % 2 give? More: hint('99.1', 2)."
    assert hint("99.1", 2) == "hint 2 of 2 for exercise 99.1: use the % operator Last hint; then reveal('99.1')."
    assert "seen them all" in hint("99.1", 3) and "confirm=True" in hint("99.1", 3)
    assert hint("99.1", 0).startswith("hint levels are 1 to 2")


@pytest.mark.parametrize("ex", chapter_exercises(), ids=lambda e: e.id)
def test_every_chapter_exercise_is_consistent(ex: Exercise) -> None:
    assert check(ex.id, key_answer(ex.id)).passed, f"the key's answer to {ex.id} fails its checker"
    assert is_placeholder(ex.starter), f"the starter of {ex.id} is code, not a blank"
    assert repr(check(ex.id, ex.starter)) == f"· exercise {ex.id}: not attempted yet. Task: {ex.task}"
    for wrong in _wrong_answers(ex):
        verdict = check(ex.id, wrong)
        assert not verdict.passed, f"{ex.id}: the wrong answer {wrong!r} passes"
        assert repr(verdict).startswith(f"✗ exercise {ex.id}: not yet. "), repr(verdict)
        assert len(verdict.hint) > 20, f"{ex.id}: a wrong answer gets a real hint, got {verdict.hint!r}"


def _solution_lines(ex_id: str) -> list[str]:
    """The lines of a key block that would give it away (its code past the imports and the signature)."""
    body = [line.strip() for line in answer_key()[ex_id].splitlines()]
    lines = [s for s in body if not s.startswith(("from ", "import ", "def ", "class ", "#", '"""'))]
    return [s for s in lines if len(s) > 25] or [s for s in lines if len(s) > 3]


@pytest.mark.parametrize("ex", chapter_exercises(), ids=lambda e: e.id)
def test_every_exercise_has_graded_hints_and_a_confirmed_reveal(ex: Exercise) -> None:
    assert len(ex.hints) >= 2, f"{ex.id} needs at least two hints (a nudge, then a pointer to the API)"
    assert len(set(ex.hints)) == len(ex.hints) and all(len(h) > 40 for h in ex.hints)
    pointers = ("msgmodel.", "msgspec.", "typing.", "docs/", "decision diagram")
    assert any(p in " ".join(ex.hints[1:]) for p in pointers), f"{ex.id}: a later hint names the API to use"
    shown = [hint(ex.id, level) for level in range(1, len(ex.hints) + 2)] + [reveal(ex.id)]
    lines = _solution_lines(ex.id)
    assert lines, f"{ex.id}: no line of its key block to look for"
    for line in lines:
        for text in shown:
            assert line not in text, f"{ex.id}: {text!r} gives away {line!r}"
    assert f"reveal({ex.id!r}, confirm=True)" in reveal(ex.id)
    assert reveal(ex.id, confirm=True) == answer_key()[ex.id]  # self-study: the checkout's key


def test_no_key_line_is_in_the_package() -> None:
    """No exercise module carries a line of a key block: the solutions left the package (issue 22)."""
    sources = {m: inspect.getsource(inspect.getmodule(ex.checker)) for ex in chapter_exercises() if (m := ex.id[:2])}
    for ex in chapter_exercises():
        for line in _solution_lines(ex.id):
            # A short line is a fragment a hint may name (`type: Literal["tool_result"]`) or data a closed
            # question's checker must hold (`rejected = {0, 2}`); a long one is the solution's code.
            if len(line) >= 40:
                assert line not in sources[ex.id[:2]], f"ch{ex.id[:2]}.py holds a line of {ex.id}'s key: {line}"


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


def _preview_by_hand(history: Any) -> Any:  # the right previews, but the copy is still there (.content, a kind test)
    from msgmodel.core.message import blocks_of, is_clean_user_start, text_of, tool_results_of

    prompts = [m for m in history if is_clean_user_start(m)]
    answers = [m for m in history if m.role == "assistant"]
    first = prompts[0].content if prompts and isinstance(prompts[0].content, str) else ""
    return {
        "asked": first or (text_of(prompts[0]) if prompts else ""),
        "calls": sum(1 for m in history for b in blocks_of(m) if b.type == "tool_use"),
        "failed": sum(1 for m in history for r in tool_results_of(m) if r.is_error),
        "last_answer": text_of(answers[-1]) if answers else "",
    }


def _preview_by_role(history: Any) -> Any:  # the legacy's "first user message": a result message is no prompt
    from msgmodel.core.message import text_of, tool_results_of, tool_uses_of

    users = [m for m in history if m.role == "user"]
    answers = [m for m in history if m.role == "assistant"]
    return {
        "asked": text_of(users[0]) if users else "",
        "calls": sum(len(tool_uses_of(m)) for m in history),
        "failed": sum(1 for m in history for r in tool_results_of(m) if r.is_error),
        "last_answer": text_of(answers[-1]) if answers else "",
    }


def _openai_one_by_one(messages: Any) -> Any:  # one result turn per tool message
    import json

    from msgmodel.core.message import (
        TextBlock,
        ToolUseBlock,
        assistant_msg,
        assistant_text,
        tool_result_block,
        tool_result_msg,
        user_text,
    )

    out = []
    for m in messages:
        if m["role"] == "tool":
            out.append(tool_result_msg([tool_result_block(m["tool_call_id"], m["content"])]))
        elif m["role"] == "user":
            out.append(user_text(m["content"]))
        elif m.get("tool_calls"):
            text = [TextBlock(m["content"])] if m.get("content") else []
            calls = [
                ToolUseBlock(id=c["id"], name=c["function"]["name"], input=json.loads(c["function"]["arguments"]))
                for c in m["tool_calls"]
            ]
            out.append(assistant_msg([*text, *calls]))
        else:
            out.append(assistant_text(m["content"]))
    return out


def _openai_by_hand(messages: Any) -> Any:  # right messages, built around the constructors
    from msgmodel.core.message import Message

    def plain(m: Any) -> Any:
        return Message(role=m["role"], content=m["content"])

    if any(m["role"] == "tool" or m.get("tool_calls") for m in messages):
        return [*_reference_from_openai(messages)[:-1], plain(messages[-1])]
    return [plain(m) for m in messages]


def _reference_from_openai(messages: Any) -> Any:
    from guide import key_answer

    ref = key_answer("07.3")
    assert callable(ref)
    return ref(messages)


def _wrong_answers(ex: Exercise) -> list[object]:
    """Answers that must get a ✗ with a hint: built from the key's answer, so they follow the exercises."""
    ref = key_answer(ex.id)
    first_tries: dict[str, list[object]] = {
        "01.3": [_trust_keep],
        "02.1": [_render_placeholders],
        "06.1": [_pairs_by_position],
        "05.3": [_preview_by_hand, _preview_by_role],
        "07.3": [_openai_one_by_one, _openai_by_hand],
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


def test_each_unfaithful_renderer_loses_a_fact_on_the_case_its_hint_shows() -> None:
    """05.2's checker names, per wrong renderer, the case it shows a student: the key's property must fail there."""
    from msgmodel.course.exercises import ch05

    faithful = key_answer("05.2")
    assert callable(faithful)
    cases = dict(ch05._PROPERTY_CASES)
    for label, _what, render, case in ch05._WRONG:
        assert faithful(list(cases[case]), render) is False, f"{label} is faithful on {case!r}"


def test_sealed_closed_answers_judge_as_the_plain_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """A class image carries the closed questions' answers sealed: same verdicts and feedback, no answer readable."""
    import json

    from msgmodel.course.exercises import closed as closed_mod

    plain = json.loads(closed_mod.PLAIN.read_text(encoding="utf-8"))
    sealed = closed_mod.sealed_form(plain)
    text = json.dumps(sealed)
    for ex_id, items in plain.items():
        for item, entry in items.items():
            for value in entry["right"]:
                assert json.dumps(value) not in text or len(value) < 4, f"{ex_id} {item}: {value!r} is readable"
            for feedback in entry.get("feedback", {}).values():
                assert feedback[:30] not in text
    verdicts = {}
    for mode in ("plain", "sealed"):
        data = (plain, False) if mode == "plain" else (sealed, True)
        monkeypatch.setattr(closed_mod, "_load", lambda data=data: data)
        verdicts[mode] = {}
        for ex_id in plain:
            ex = get(ex_id)
            assert check(ex_id, key_answer(ex_id)).passed, f"{mode}: the key fails {ex_id}"
            verdicts[mode][ex_id] = [repr(check(ex_id, wrong)) for wrong in _wrong_answers(ex)]
    assert verdicts["plain"] == verdicts["sealed"]
    assert closed_mod.unseal(closed_mod.seal("why", "07.1", "a", "wait"), "07.1", "a", "now") is None
