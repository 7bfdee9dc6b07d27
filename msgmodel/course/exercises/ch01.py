"""Exercises of chapter 01 (the orphan tool_result): find a clean start, predict the 400, pick a safe keep.

01.1  ``first_clean_start(history)``: the index of the first message a window may start at
      (a user message that answers no tool call), or ``None``.
01.2  Predict what the API answers when a slicing compactor sends ``[summary, *history[-7:]]``
      for ``exercise_history()`` (one letter of ``CHOICES``).
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
    TextBlock,
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

__all__ = ["CHOICES", "EXERCISE_KEEP", "exercise_history"]

Wire = list[dict[str, Any]]


def _wire(messages: Sequence[Message]) -> Wire:
    """``to_api(messages)`` as the plain dicts the exercises hand around (``to_api`` is typed as the SDK's params)."""
    return cast(Wire, to_api(messages))


_SUMMARY: Final = "Summary of the earlier conversation:\n(the summary)"
_ORPHAN: Final = (
    "{path}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. "
    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
)
_DANGLING: Final = (
    "messages.0: `tool_use` ids were found without `tool_result` blocks immediately after: {ids}. "
    "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
)


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
    """The 13-message history of exercise 01.2 as wire dicts (a fresh copy each call)."""
    return _wire(_history())


EXERCISE_KEEP: Final = 7
"""Exercise 01.2 sends ``[summary, *exercise_history()[-EXERCISE_KEEP:]]``."""

CHOICES: Final[dict[str, str]] = {
    "A": "200: the API accepts the request.",
    "B": "400: " + _ORPHAN.format(path="messages.6.content.0", id="toolu_01B"),
    "C": "400: " + _ORPHAN.format(path="messages.1.content.0", id="toolu_01B"),
    "D": "400: " + _ORPHAN.format(path="messages.1.content.1", id="toolu_01C"),
    "E": "400: " + _DANGLING.format(ids="toolu_01B, toolu_01C"),
}
"""The answers offered in exercise 01.2, one letter each."""

_WHY_NOT: Final[dict[str, str]] = {
    "A": "the slice starts on message 6, a *user* message, but one that holds only tool_result blocks; "
    "their tool_use (message 5) went into the summary, so the API refuses the request.",
    "B": "the index counts the messages of the request you send, not of your history: "
    "the summary is messages.0, so history[6] is messages.1.",
    "D": "the API names the first offending block it finds; which block of message 6 comes first?",
    "E": "that is the mirror-image error (a tool_use left without its result). Here the tool_use is the "
    "message that was cut away; what is left is its result.",
}


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
# 01.2 predict the API's answer
# ---------------------------------------------------------------------------------------


def _right_choice() -> str:
    violations = validate(_sliced(exercise_history(), EXERCISE_KEEP))
    answer = "200: the API accepts the request." if not violations else f"400: {violations[0]}"
    return next(letter for letter, text in CHOICES.items() if text == answer)


def _check_prediction(answer: Any) -> str | None:
    if not isinstance(answer, str) or answer.strip().upper() not in CHOICES:
        return _('answer with one letter among {0} (a string such as "A"), got {1!r}.').format(
            ", ".join(CHOICES), answer
        )
    letter = answer.strip().upper()
    right = _right_choice()
    if letter == right:
        return None
    return _("{0} is not what the API says: {1}").format(letter, _WHY_NOT.get(letter, "compare it with the validator."))


exercise(
    Exercise(
        id="01.2",
        task=N_("predict the API's answer to [summary, *exercise_history()[-7:]]: one letter of CHOICES"),
        checker=_check_prediction,
        starter=None,
        hints=(
            N_(
                "Write out the 7 messages the slice keeps, put the summary in front, and number the request's messages "
                "from 0."
            ),
            N_(
                "Ask what the first kept message holds and whether the message it answers is still in the request. The "
                "API's path messages.N.content.M counts in the request you send, and names the first block it cannot "
                "pair (the rule orphan_tool_result of msgmodel.core.protocol, docs/api-rules.md section 1.1)."
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
                what = "a user message holding tool_result blocks" if start.role == "user" else "this message"
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
