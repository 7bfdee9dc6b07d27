"""Exercises of chapter 00 (start here): reading a tool exchange, predicting the API, answering tool calls.

00.1  ``outcomes(history)``: for every ``tool_use`` id, has it been answered, and did it fail?
00.2  Predict the API's answer (200 or 400) for six small requests (``PREDICT_CASES``).
00.3  ``answer_calls(reply, run)``: build the user message that answers an assistant's tool calls.

The conversations used by the checkers are built here with the constructors of
``msgmodel.core.message``; ``PREDICT_CASES`` is imported by the notebook to show them. Each
checker compares with expected values written out per case (or, for 00.2, derived from
``msgmodel.core.protocol.validate``); the reference solutions are in the answer key, not here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, assert_never

from msgmodel.core.message import (
    Message,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    assistant_msg,
    blocks_of,
    result_text,
    tool_result_block,
    tool_result_msg,
    tool_results_of,
    user_msg,
    user_text,
)
from msgmodel.core.protocol import validate
from msgmodel.course.exercises import Exercise, exercise
from msgmodel.course.i18n import N_, _

__all__ = ["PREDICT_CASES", "PREDICT_MODEL"]

PREDICT_MODEL: Final = "claude-sonnet-4-6"
"""The model the requests of exercise 00.2 name (the answer depends on the model only for prefill)."""


def _line(m: Message) -> str:
    """One message on one line, with the ids that link calls and results (for hints)."""
    parts = []
    for b in blocks_of(m):
        match b:
            case TextBlock():
                parts.append(repr(b.text if len(b.text) <= 40 else b.text[:40] + "…"))
            case ToolUseBlock():
                parts.append(f"tool_use {b.id} {b.name}")
            case ToolResultBlock():
                parts.append(f"tool_result→{b.tool_use_id}{' (is_error)' if b.is_error else ''}")
            case ThinkingBlock():
                parts.append("thinking")
            case OpaqueBlock():
                parts.append(b.kind)
            case _:
                assert_never(b)
    return f"{m.role}: [{', '.join(parts)}]"


def _render(history: Sequence[Message]) -> str:
    return "\n".join(f"    {i}  {_line(m)}" for i, m in enumerate(history))


# ---------------------------------------------------------------------------------------
# 00.1 outcomes
# ---------------------------------------------------------------------------------------


def _read(path: str, call_id: str) -> ToolUseBlock:
    return ToolUseBlock(id=call_id, name="read_file", input={"path": path})


_OUTCOME_CASES: Final[list[tuple[str, list[Message], dict[str, str]]]] = [
    (
        "one call, answered",
        [
            user_text("What is in setup.cfg?"),
            assistant_msg([TextBlock("Let me read it."), _read("setup.cfg", "toolu_01A")]),
            tool_result_msg([tool_result_block("toolu_01A", "[metadata]\nname = fetcher")]),
            assistant_msg([TextBlock("It names the package fetcher.")]),
        ],
        {"toolu_01A": "ok"},
    ),
    (
        "no tool calls at all",
        [user_text("Hello"), assistant_msg([TextBlock("Hi! How can I help?")]), user_text("Just saying hi.")],
        {},
    ),
    (
        "two parallel calls, results in the other order, one failed",
        [
            user_text("Read setup.cfg and main.py"),
            assistant_msg([_read("setup.cfg", "toolu_02A"), _read("main.py", "toolu_02B")]),
            tool_result_msg(
                [
                    tool_result_block("toolu_02B", "read_file: no such file: `main.py`", is_error=True),
                    tool_result_block("toolu_02A", "[metadata]\nname = fetcher"),
                ]
            ),
        ],
        {"toolu_02A": "ok", "toolu_02B": "failed"},
    ),
    (
        "two rounds calling the same tool; the last call not answered yet",
        [
            user_text("Read README.md, then setup.cfg"),
            assistant_msg([_read("README.md", "toolu_03A")]),
            tool_result_msg([tool_result_block("toolu_03A", "# fetcher")]),
            assistant_msg([TextBlock("Now the second file."), _read("setup.cfg", "toolu_03B")]),
        ],
        {"toolu_03A": "ok", "toolu_03B": "pending"},
    ),
]
"""Each case: a label, a history, and what ``outcomes(history)`` must return for it."""


def _outcomes_starter(history: list[Message]) -> None: ...  # your code here (the notebook's placeholder)


def _check_outcomes(answer: Any) -> str | None:
    if not callable(answer):
        return N_("Pass the function itself: check('00.1', outcomes).")
    for label, history, expected in _OUTCOME_CASES:
        got = answer(list(history))
        if not isinstance(got, Mapping):
            return _(
                "outcomes(...) returned {0!r} for the history below ({1}); expected a dict such as {2!r}.\n{3}"
            ).format(got, label, expected, _render(history))
        got = dict(got)
        if got == expected:
            continue
        missing = sorted(set(expected) - set(got))
        extra = sorted(set(got) - set(expected))
        wrong = sorted(k for k in set(expected) & set(got) if got[k] != expected[k])
        why = []
        if missing:
            why.append(f"ids missing: {', '.join(missing)}")
        if extra:
            why.append(f"keys that are not tool_use ids of this history: {', '.join(map(repr, extra))}")
        for k in wrong:
            why.append(f"{k} is {expected[k]!r}, you said {got[k]!r}")
        tip = ""
        if extra and all(isinstance(k, str) and not k.startswith("toolu_") for k in extra):
            tip = " Key the dict by the call's `id` (a tool may be called twice), not by its name."
        elif any(expected[k] == "pending" for k in wrong + missing):
            tip = " A call with no tool_result anywhere after it is 'pending'."
        elif wrong:
            tip = " Pair a result with its call by `tool_use_id`, not by position: results may come in any order."
        return _("case '{0}': {1}.{2}\n{3}").format(label, "; ".join(why), tip, _render(history))
    return None


exercise(
    Exercise(
        id="00.1",
        task=N_("outcomes(history) -> {tool_use id: 'ok' | 'failed' | 'pending'}, using the readers"),
        checker=_check_outcomes,
        starter=_outcomes_starter,
        hints=(
            N_(
                "Walk the history once, in order: a call is pending until a later message answers its id; the answer "
                "then"
                " says whether it failed."
            ),
            N_(
                "Read with msgmodel.core.message.tool_uses_of(m) (each call's .id) and tool_results_of(m) (each "
                "result's "
                ".tool_use_id and .is_error)."
            ),
        ),
    )
)


# ---------------------------------------------------------------------------------------
# 00.2 predict the API's answer
# ---------------------------------------------------------------------------------------

_Q: Final = user_text("What is in setup.cfg?")
_CALL: Final = assistant_msg([TextBlock("Let me read it."), _read("setup.cfg", "toolu_01A")])
_RESULT: Final = tool_result_msg([tool_result_block("toolu_01A", "[metadata]\nname = fetcher")])
_ANSWER: Final = assistant_msg([TextBlock("It describes the package fetcher, version 0.3.1.")])
_FOLLOW_UP: Final = user_text("Which Python version does it need?")

PREDICT_CASES: Final[dict[str, list[Message]]] = {
    # the agent loop's second request: the call and its answer
    "A": [_Q, _CALL, _RESULT],
    # a "keep the last three messages" window (the step-29 bug)
    "B": [_RESULT, _ANSWER, _FOLLOW_UP],
    # the user typed instead of letting the tool run
    "C": [_Q, _CALL, user_text("Never mind, skip that.")],
    # two user messages in a row
    "D": [_Q, user_text("Please also tell me the version.")],
    # text before the result, in the same user message
    "E": [_Q, _CALL, user_msg([TextBlock("Here you go:"), *tool_results_of(_RESULT)])],
    # text after the result, in the same user message
    "F": [_Q, _CALL, user_msg([*tool_results_of(_RESULT), TextBlock("Keep it short.")])],
}
"""Six requests (model ``PREDICT_MODEL``, tools defined): will the API answer 200 or 400?"""

_WHY_ACCEPTED: Final[dict[str, str]] = {
    "A": "a tool_use answered by a tool_result in the very next (user) message is exactly the protocol",
    "D": "consecutive messages of one role are merged into one turn (the 2024 'roles must alternate' error is gone)",
    "F": "the results come first in the message; text after them is allowed",
}


def _api_status(case: list[Message]) -> tuple[int, str]:
    violations = validate(case, model=PREDICT_MODEL)
    return (400, str(violations[0])) if violations else (200, "")


_PREDICTIONS: Final = {k: _api_status(v)[0] for k, v in PREDICT_CASES.items()}
"""What the API answers each case, as the validator reads the rules (the checker's side of 00.2)."""
_STARTER_PREDICTIONS: Final[dict[str, Any]] = {}  # the notebook's placeholder: nothing predicted yet


def _check_predictions(answer: Any) -> str | None:
    if not isinstance(answer, Mapping):
        return _("Answer with a dict of case letter to status, like {{'A': 200, 'B': 400, ...}}; got {0!r}.").format(
            answer
        )
    open_cases = [k for k in PREDICT_CASES if answer.get(k) in (None, ...)]
    if open_cases:
        return _("Fill in every case with 200 or 400; still open: {0}.").format(", ".join(open_cases))
    bad = [k for k in PREDICT_CASES if answer[k] not in (200, 400)]
    if bad:
        return _("Each answer is the number 200 or 400; case {0} is {1!r}.").format(bad[0], answer[bad[0]])
    unknown = sorted(str(k) for k in answer if k not in PREDICT_CASES)
    if unknown:
        return _("There are only cases {0}; remove {1}.").format(", ".join(PREDICT_CASES), ", ".join(unknown))
    wrong = [k for k in PREDICT_CASES if answer[k] != _PREDICTIONS[k]]
    if not wrong:
        return None
    lines = [f"{len(wrong)} of {len(PREDICT_CASES)} predictions are off."]
    for k in wrong:
        status, text = _api_status(PREDICT_CASES[k])
        if status == 400:
            lines.append(f"  {k}: you said 200, the API answers 400:\n      {text}")
        else:
            lines.append(f"  {k}: you said 400, the API answers 200: {_WHY_ACCEPTED.get(k, 'no rule is broken')}.")
    return "\n".join(lines)


exercise(
    Exercise(
        id="00.2",
        task=N_("predict 200 or 400 for each request of PREDICT_CASES"),
        checker=_check_predictions,
        starter=_STARTER_PREDICTIONS,
        hints=(
            N_(
                "For each request, look for a tool_use whose tool_result is not in the very next message, and for a "
                "tool_result whose tool_use is not in the message right before it."
            ),
            N_(
                "The two orphan rules of the chapter (a result without its call, a call without its result) decide "
                "every "
                "case; msgmodel.core.protocol.validate checks a guess once you have made it (an empty list means 200)."
            ),
        ),
    )
)


# ---------------------------------------------------------------------------------------
# 00.3 answer the tool calls
# ---------------------------------------------------------------------------------------

Runner = Callable[[str, dict[str, Any]], str]


def _answer_calls_starter(reply: Message, run: Runner) -> None: ...  # your code here (the notebook's placeholder)


_FILES: Final = {"setup.cfg": "[metadata]\nname = fetcher", "README.md": "# fetcher"}


def _fake_run(name: str, args: dict[str, Any]) -> str:
    """A tiny tool runner for the checker: read_file over two files; anything else fails."""
    if name != "read_file":
        raise ValueError(f"unknown tool `{name}`")
    path = args.get("path")
    if path not in _FILES:
        raise FileNotFoundError(f"no such file: `{path}`")
    return _FILES[path]


_CFG: Final = _FILES["setup.cfg"]
_README: Final = _FILES["README.md"]

_ANSWER_CASES: Final[list[tuple[str, Message, list[ToolResultBlock] | None]]] = [
    ("one call", assistant_msg([_read("setup.cfg", "toolu_11A")]), [tool_result_block("toolu_11A", _CFG)]),
    (
        "text, then a call",
        assistant_msg([TextBlock("Let me look."), _read("README.md", "toolu_12A")]),
        [tool_result_block("toolu_12A", _README)],
    ),
    (
        "two parallel calls",
        assistant_msg([_read("setup.cfg", "toolu_13A"), _read("README.md", "toolu_13B")]),
        [tool_result_block("toolu_13A", _CFG), tool_result_block("toolu_13B", _README)],
    ),
    (
        "a call whose tool raises",
        assistant_msg([_read("setup.cfg", "toolu_14A"), _read("main.py", "toolu_14B")]),
        [
            tool_result_block("toolu_14A", _CFG),
            tool_result_block("toolu_14B", "no such file: `main.py`", is_error=True),
        ],
    ),
    ("no call at all", assistant_msg([TextBlock("setup.cfg names the package fetcher.")]), None),
]
"""Each case: a label, the assistant's reply, and the results the answer must hold, in order (``None``: no answer)."""


def _block_summary(b: object) -> str:
    if isinstance(b, ToolResultBlock):
        return f"tool_result→{b.tool_use_id} content={result_text(b)!r} is_error={b.is_error}"
    return repr(b)


def _check_answer_calls(answer: Any) -> str | None:
    if not callable(answer):
        return N_("Pass the function itself: check('00.3', answer_calls).")
    question = user_text("Tell me about this project.")
    for label, reply, expected in _ANSWER_CASES:
        shown = f"\n  the reply: {_line(reply)}"
        try:
            got = answer(reply, _fake_run)
        except Exception as e:
            return _(
                "case '{0}': the tool raised {1}({2!r}) and your function let it escape. A failed tool is a result "
                "the model should read, not a crash of the loop: catch it and answer with tool_result_block(call.id, "
                "str(err), is_error=True).{3}"
            ).format(label, type(e).__name__, str(e), shown)
        if expected is None:
            if got is not None:
                return _("case '{0}': the reply asks for no tool, so return None; you returned {1!r}.{2}").format(
                    label, got, shown
                )
            continue
        if isinstance(got, Mapping):
            return _(
                "case '{0}': you returned a dict. Build a Message with the constructors: "
                "tool_result_msg([tool_result_block(call.id, text), ...]); no hand-written dicts.{1}"
            ).format(label, shown)
        if not isinstance(got, Message):
            return _("case '{0}': expected a Message (from tool_result_msg), got {1!r}.{2}").format(label, got, shown)
        if got.role != "user":
            return _("case '{0}': tool results travel in a *user* message; yours has role {1!r}.{2}").format(
                label, got.role, shown
            )
        problems = validate([question, reply, got], model=PREDICT_MODEL)
        if problems:
            return _("case '{0}': the API would answer 400:\n    {1}{2}\n  yours: {3}").format(
                label, problems[0], shown, _line(got)
            )
        want = expected
        have = tool_results_of(got)
        if len(have) != len(blocks_of(got)):
            return _("case '{0}': put only tool_result blocks in the answer; yours: {1}{2}").format(
                label, _line(got), shown
            )
        if [r.tool_use_id for r in have] != [r.tool_use_id for r in want]:
            return _("case '{0}': answer the calls in the order they were made; expected ids {1}, got {2}.{3}").format(
                label, [r.tool_use_id for r in want], [r.tool_use_id for r in have], shown
            )
        for w, h in zip(want, have, strict=True):
            if w.is_error and not h.is_error:
                return _(
                    "case '{0}': the tool raised for {1}, so its result needs is_error=True (and the error text, "
                    "here {2!r}); yours: {3}.{4}"
                ).format(label, w.tool_use_id, result_text(w), _block_summary(h), shown)
            if w.is_error and result_text(w) not in result_text(h):
                return _(
                    "case '{0}': a failed result should carry the error text {1!r} so the model can read what went "
                    "wrong; yours: {2}.{3}"
                ).format(label, result_text(w), _block_summary(h), shown)
            if not w.is_error and (h.is_error or result_text(h) != result_text(w)):
                return _("case '{0}': expected {1}, got {2}.{3}").format(
                    label, _block_summary(w), _block_summary(h), shown
                )
    return None


exercise(
    Exercise(
        id="00.3",
        task=N_("answer_calls(reply, run) -> the user message answering every tool_use of reply, or None"),
        checker=_check_answer_calls,
        starter=_answer_calls_starter,
        hints=(
            N_(
                "Every tool_use of the reply gets an answer, in the order of the calls, all in ONE user message; a "
                "tool "
                "that raises still gets an answer, marked as an error."
            ),
            N_(
                "tool_uses_of(reply) gives the calls; build each answer with tool_result_block(call.id, output, "
                "is_error=...) and the message with tool_result_msg(blocks) (msgmodel.core.message)."
            ),
        ),
    )
)
