"""Exercises of chapter 01 (the orphan tool_result): find a clean start, decide where a cut is clean, pick a safe keep.

01.1  ``first_clean_start(history)``: the index of the first message a window may start at
      (a user message that answers no tool call), or ``None``.
01.2  Where may the cut fall? The set of every ``i`` for which ``[summary, *cut_history()[i:]]``
      is valid as a stored history (the answer comes from ``validate`` itself).
01.3  ``smallest_safe_keep(history, keep)``: the smallest ``k >= keep`` such that the slice
      ``history[-k:]`` behind a summary is valid as a stored history
      (``validate([summary, *history[-k:]], as_history=True) == []``).

Histories are plain wire dicts (what ``msgmodel.course.legacy`` works on), built here with the
constructors of ``msgmodel.core.message`` and ``to_api``. Every checker judges an answer by
behaviour, against expected values written out per case or against ``msgmodel.core.protocol.validate``;
the reference solutions are in the answer key, not here. The slicing compactor of
``msgmodel.course.legacy.compact29`` is not imported (nothing outside ``legacy`` may): its one line,
``[summary, *history[-keep:]]``, is ``_sliced`` below.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, Final, cast

from msgmodel.core.message import (
    Message,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    assistant_msg,
    blocks_of,
    from_api,
    to_api,
    tool_result_block,
    tool_result_msg,
    user_msg,
    user_text,
)
from msgmodel.core.protocol import validate
from msgmodel.course.exercises import Exercise, exercise
from msgmodel.course.i18n import N_, _
from msgmodel.course.synth import synth_session

__all__ = ["cut_history", "cut_outline", "exercise_history"]

Wire = list[dict[str, Any]]


def _wire(messages: Sequence[Message]) -> Wire:
    """``to_api(messages)`` as the plain dicts the exercises hand around (``to_api`` is typed as the SDK's params)."""
    return cast(Wire, to_api(messages))


_SUMMARY: Final = "Summary of the earlier conversation:\n(the summary)"


def _read(call_id: str, path: str) -> ToolUseBlock:
    return ToolUseBlock(id=call_id, name="read_file", input={"path": path})


def _history() -> list[Message]:
    return [
        user_text("Why do the tests fail?"),
        assistant_msg([TextBlock("Let me read the client."), _read("toolu_01A", "src/app.py")]),
        tool_result_msg([tool_result_block("toolu_01A", "def fetch(url, retries=0): ...")]),
        assistant_msg([TextBlock("fetch() never retries: `retries` defaults to 0.")]),
        user_text("Check README.md and setup.cfg too."),
        assistant_msg([_read("toolu_01B", "README.md"), _read("toolu_01C", "setup.cfg")]),
        tool_result_msg(
            [
                tool_result_block("toolu_01B", "# fetcher\nSet APP_TIMEOUT to change the timeout."),
                tool_result_block("toolu_01C", "[tool:pytest]\naddopts = -x"),
            ]
        ),
        assistant_msg([TextBlock("The README documents APP_TIMEOUT; pytest stops at the first failure.")]),
        user_text("Where is APP_TIMEOUT read?"),
        assistant_msg([ToolUseBlock(id="toolu_01D", name="grep", input={"pattern": "APP_TIMEOUT", "path": "src/"})]),
        tool_result_msg([tool_result_block("toolu_01D", "src/app.py:3: TIMEOUT = os.environ['APP_TIMEOUT']")]),
        assistant_msg([TextBlock("In src/app.py, line 3.")]),
        user_text("So what should I change first?"),
    ]


def exercise_history() -> Wire:
    """The 13-message history of exercise 01.3 as wire dicts (a fresh copy each call)."""
    return _wire(_history())


def _sliced(history: Sequence[dict[str, Any]], keep: int) -> Wire:
    """What ``legacy.compact29.compact`` sends: a summary, then ``history[-keep:]``."""
    if len(history) <= keep:
        return list(history)
    return [*_wire([user_text(_SUMMARY)]), *history[-keep:]]


def _accepted(history: Sequence[dict[str, Any]], keep: int) -> bool:
    return validate(_sliced(history, keep), as_history=True) == []


def _line(m: Message) -> str:
    parts = []
    for b in blocks_of(m):
        if b.type == "text":
            parts.append(repr(b.text if len(b.text) <= 30 else b.text[:30] + "…"))
        elif b.type == "tool_use":
            parts.append(f"tool_use {b.id}")
        elif b.type == "tool_result":
            parts.append(f"tool_result→{b.tool_use_id}")
        elif b.type == "opaque":
            parts.append(b.kind)
        else:
            parts.append(b.type)
    return f"{m.role}: [{', '.join(parts)}]"


def _render(history: Wire) -> str:
    return "\n".join(f"  {i:>4}  {_line(m)}" for i, m in enumerate(from_api(history)))


# ---------------------------------------------------------------------------------------
# 01.1 first_clean_start
# ---------------------------------------------------------------------------------------


def _first_clean_start_starter(history: list[dict[str, Any]]) -> int | None: ...  # your code here


def _user_blocks(*blocks: Any) -> Message:
    return user_msg(blocks)


_CLEAN_CASES: Final[list[tuple[str, Wire, int | None]]] = [
    ("an assistant turn, then a prompt", _wire(_history()[3:5]), 1),
    ("the whole exercise history (it opens with a prompt)", _wire(_history()), 0),
    (
        "the history from message 6 on (a tool_result message, then an assistant turn, then a prompt)",
        _wire(_history()[6:]),
        2,
    ),
    ("a history that starts on an assistant turn", _wire(_history()[3:]), 1),
    (
        "a user message whose content is a *list* holding a text block (it is a clean start)",
        _wire([_history()[3], _user_blocks(TextBlock("Look at this traceback, please."))]),
        1,
    ),
    (
        "a user message that holds a tool_result and then text (the API accepts it; it is still an answer)",
        _wire(
            [
                _history()[9],
                _user_blocks(tool_result_block("toolu_01D", "src/app.py:3: ..."), TextBlock("And hurry.")),
                _history()[11],
                _history()[12],
            ]
        ),
        3,
    ),
    ("one long tool loop with no prompt in it", _wire(_history()[9:12]), None),
    ("an empty history", [], None),
]


def _check_first_clean_start(fn: Any) -> str | None:
    for label, history, expected in _CLEAN_CASES:
        got = fn(copy.deepcopy(history))
        if got != expected:
            shown = _render(history) or "    (no messages)"
            return _("for {0}, expected {1!r}, got {2!r}. The history:\n{3}").format(label, expected, got, shown)
    return None


exercise(
    Exercise(
        id="01.1",
        goal=N_("Write by hand, on wire dicts, the rule step 29's compaction got wrong: the copy every layer needs."),
        task=N_("first_clean_start(history): index of the first user message that answers no tool call, else None"),
        checker=_check_first_clean_start,
        starter=_first_clean_start_starter,
        hints=(
            N_(
                "A user message holds either a prompt or the answers to tool calls, and only a prompt may open a "
                "window. "
                "Content is a string or a list of blocks."
            ),
            N_(
                'On wire dicts: a user message none of whose blocks (when content is a list) has type "tool_result". '
                "With"
                " the model: from_api(history) and msgmodel.core.message.is_clean_user_start(m)."
            ),
        ),
    )
)


# ---------------------------------------------------------------------------------------
# 01.2 where may the cut fall?
# ---------------------------------------------------------------------------------------


def _cut_history() -> list[Message]:
    """The history of exercise 01.2: parallel calls, a result with text after it, server tools, string content."""
    web = OpaqueBlock({"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "x"}})
    found = OpaqueBlock({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []})
    return [
        user_text("Why do the tests fail?"),
        assistant_msg(
            [
                ThinkingBlock("Read both.", signature="c2ln"),
                _read("toolu_01A", "src/app.py"),
                _read("toolu_01B", "setup.cfg"),
            ]
        ),
        tool_result_msg(
            [
                tool_result_block("toolu_01A", "def fetch(url, retries=0): ..."),
                tool_result_block("toolu_01B", "no such file", is_error=True),
            ]
        ),
        assistant_msg([TextBlock("fetch() never retries. Let me grep."), _grep("toolu_01C", "retries")]),
        user_msg([tool_result_block("toolu_01C", "src/app.py:1: retries=0"), TextBlock("Also check the docs.")]),
        assistant_msg([web, found, TextBlock("The docs say retries default to 3.")]),
        user_msg([TextBlock("Fix it, then.")]),
        assistant_msg([TextBlock("Editing."), ToolUseBlock(id="toolu_01D", name="edit", input={"path": "src/app.py"})]),
        tool_result_msg([tool_result_block("toolu_01D", "ok")]),
        assistant_msg([TextBlock("Done: retries now default to 3.")]),
        user_text("Thanks. Run the tests?"),
    ]


def _grep(call_id: str, pattern: str) -> ToolUseBlock:
    return ToolUseBlock(id=call_id, name="grep", input={"pattern": pattern})


def cut_history() -> Wire:
    """The 11-message history of exercise 01.2 as wire dicts (a fresh copy each call)."""
    return _wire(_cut_history())


def cut_outline() -> str:
    """Exercise 01.2's history, one line per message with every block (the order inside a message included)."""
    return _render(cut_history())


def _clean_cuts() -> set[int]:
    """The answer, from the validator: every ``i`` whose ``[summary, *history[i:]]`` is a valid stored history."""
    history = cut_history()
    return {i for i in range(len(history)) if validate(_summary_then(history[i:]), as_history=True) == []}


def _summary_then(kept: Sequence[dict[str, Any]]) -> Wire:
    return [*_wire([user_text(_SUMMARY)]), *kept]


def _check_clean_cuts(answer: Any) -> str | None:
    history = cut_history()
    if not isinstance(answer, (set, frozenset, list, tuple)) or not all(
        isinstance(i, int) and not isinstance(i, bool) for i in answer
    ):
        return _("give a set of message indices such as {{2, 4}}, got {0!r}.").format(answer)
    got, right = set(answer), _clean_cuts()
    if out := sorted(i for i in got if not 0 <= i < len(history)):
        return _("the history has messages 0 to {0}; {1} is not one of them.").format(len(history) - 1, out)
    if got == right:
        return None
    messages = from_api(history)
    wrong_in = sorted(got - right)
    if wrong_in:
        i = wrong_in[0]
        said = str(validate(_summary_then(history[i:]), as_history=True)[0])
        tail = (
            _(
                " It is a user message, and it starts with tool results: the role is not enough (step 29's copy "
                "asked only the role). Text after the results does not make it a prompt."
            )
            if messages[i].role == "user"
            else ""
        )
        return _("a cut before message {0} is not clean: the API would say {1}.{2}").format(i, said.rstrip("."), tail)
    i = sorted(right - got)[0]
    m = messages[i]
    if m.role == "assistant":
        why = _(
            "the summary in front is a user message, and an assistant turn may follow it: a cut breaks the request "
            "only when it separates a result from its call. Server tool blocks travel together in one message."
        )
    else:
        why = _("it is a prompt (text only, a string or a list of text blocks), so nothing before it is needed.")
    return _("you left out message {0}, a clean cut: {1}").format(i, why)


exercise(
    Exercise(
        id="01.2",
        task=N_("clean_cuts: the set of every i for which [summary, *cut_history()[i:]] is a valid stored history"),
        goal=N_(
            "Decide where a compactor may cut from the message at the cut alone: the one piece of knowledge "
            "step 29's copy got wrong, which the model owns as a reader."
        ),
        checker=_check_clean_cuts,
        starter=set(),
        hints=(
            N_(
                "A cut is broken by what it separates: a tool_result whose tool_use stayed behind, in the summary. "
                "Look at each message's first blocks, not only its role."
            ),
            N_(
                "With the model: msgmodel.core.message.is_clean_user_start(m) answers it for a user message; an "
                "assistant message after a user summary is always a valid start. Check one cut with "
                "msgmodel.core.protocol.validate([summary, *history[i:]], as_history=True)."
            ),
        ),
    )
)


# ---------------------------------------------------------------------------------------
# 01.3 smallest_safe_keep
# ---------------------------------------------------------------------------------------


def _smallest_safe_keep_starter(history: list[dict[str, Any]], keep: int) -> int: ...  # type: ignore[empty-body]  # your code here


def _safe_keep_cases() -> list[tuple[str, Wire]]:
    cases = [("the exercise history", exercise_history())]
    cases += [(f"synth_session(24, seed={s})", _wire(synth_session(24, seed=s))) for s in range(4)]
    return cases


def _check_smallest_safe_keep(fn: Any) -> str | None:
    for label, history in _safe_keep_cases():
        for keep in range(1, len(history) + 2):
            expected = next(k for k in range(keep, len(history) + 2) if _accepted(history, k))
            got = fn(copy.deepcopy(history), keep)
            if got == expected:
                continue
            if not isinstance(got, int) or isinstance(got, bool):
                return _("for {0} and keep={1}, return an int (the new keep), got {2!r}.").format(label, keep, got)
            if got < keep:
                return _(
                    "for {0} and keep={1}, you returned {2}: keep fewer messages than asked only if you must; here "
                    "moving the cut back (a larger k) is always possible."
                ).format(label, keep, got)
            if not _accepted(history, got):
                start = from_api(history)[-got]
                what = _("a user message holding tool_result blocks") if start.role == "user" else _("this message")
                return _(
                    "for {0} and keep={1}, you returned {2}, but history[-{3}:] starts on {4}, so the API answers: {5}"
                ).format(label, keep, got, got, what, validate(_sliced(history, got), as_history=True)[0])
            return _(
                "for {0} and keep={1}, you returned {2}, which is safe, but {3} is safe too and keeps fewer "
                "messages: return the smallest."
            ).format(label, keep, got, expected)
    return None


exercise(
    Exercise(
        id="01.3",
        goal=N_("Fix a cut with the rule and the validator rather than by trusting the caller: move the cut backward."),
        task=(
            N_(
                "smallest_safe_keep(history, keep): the smallest k >= keep such that [summary, *history[-k:]] is "
                "valid as"
                " a stored history, i.e. msgmodel.core.protocol.validate([summary, *history[-k:]], as_history=True) "
                "== []"
                " (as_history: a final assistant message ends a turn, it is not a prefill); when k reaches "
                "len(history) "
                "nothing is cut and k is returned"
            )
        ),
        checker=_check_smallest_safe_keep,
        starter=_smallest_safe_keep_starter,
        hints=(
            N_(
                "Keeping more messages moves the cut back. Which first message makes a window unsafe? Look at "
                "history[-k]."
            ),
            N_(
                "A window is unsafe when history[-k] is a user message holding tool_result blocks "
                "(msgmodel.core.message.is_tool_result_message after from_api); grow k until it is not, never past "
                "len(history). validate([summary, *history[-k:]], as_history=True) from msgmodel.core.protocol "
                "checks one"
                " k."
            ),
        ),
    )
)
