"""Exercises of chapter 07 (trade-offs and what comes next).

07.1  Consolidate now, wait, or is it premature? A verdict for each of ``SCENARIOS``:
      ``{"a": "now" | "wait" | "premature", ...}``.
07.2  ``fold(events)``: the messages a list of ``msgmodel.core.engine`` events describes (the
      step-32 fold law), written without calling ``fold_events``.
07.3  ``from_openai(messages)``: a session in OpenAI's Chat Completions shape brought into the
      model with the constructors only (the checker compares the messages, validates the history
      and scans the source for a message or block built by hand).

The checkers explain every wrong verdict, name the event list a fold got wrong (with what
it returned and what the engine's history holds), and say which message an import got wrong
and why. ``SCENARIOS`` and ``OPENAI_SESSION`` are imported by the notebook to show them.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

from msgmodel.core.engine import (
    AssistantMessage,
    Compacted,
    Event,
    ToolCalled,
    ToolResulted,
    TurnEnded,
    TurnStarted,
    fold_events,
)
from msgmodel.core.message import (
    Message,
    TextBlock,
    ToolUseBlock,
    assistant_msg,
    assistant_text,
    blocks_of,
    tool_result_block,
    tool_result_msg,
    tool_results_of,
    tool_uses_of,
    user_text,
)
from msgmodel.core.protocol import validate
from msgmodel.course.exercises import Exercise, exercise, learner_source
from msgmodel.course.exercises.closed import closed
from msgmodel.course.i18n import N_, _
from msgmodel.course.knowledge import scan_source

__all__ = ["OPENAI_SESSION", "SCENARIOS"]


# ---------------------------------------------------------------------------------------
# 07.1 consolidate now, wait, or premature?
# ---------------------------------------------------------------------------------------

VERDICTS: Final = ("now", "wait", "premature")

SCENARIOS: Final[dict[str, str]] = {
    "a": (
        "Three modules decide whether a reply means 'the model wants a tool', each with its own "
        "`stop_reason` check. Two were updated for `pause_turn`; the third was not, and last week it "
        "ended a turn halfway through a long server-side search."
    ),
    "b": (
        "You only call Anthropic's API. A teammate proposes a provider-neutral `Part` base class, with "
        "adapters for two other providers, 'so that switching later is cheap'."
    ),
    "c": (
        "The CLI and the notebook display both show a tool call to people: one as `grep(pattern='x')`, "
        'the other as `grep {"pattern": "x"}`. Nobody has been confused, and neither text is ever '
        "sent to a model or an API."
    ),
    "d": (
        "Users paste screenshots, so sessions hold `image` blocks. message.py keeps them as `OpaqueBlock`s "
        "and they round-trip byte for byte. A colleague wants a full `ImageBlock` struct 'to be complete'. "
        "No code reads an image's fields."
    ),
    "e": (
        "Two tools build their `tool_result` dicts by hand. One wrote `toolUseId`, and production got a 400 "
        "two requests later."
    ),
}


def _check_verdicts(answer: Any) -> str | None:
    if not isinstance(answer, dict):
        return N_('Give a dict such as {"a": "now", "b": "wait", ...}, one verdict per scenario.')
    missing = sorted(set(SCENARIOS) - set(answer))
    if missing:
        return _("Give a verdict for every scenario; missing: {0}.").format(", ".join(missing))
    extra = sorted(str(k) for k in set(answer) - set(SCENARIOS))
    if extra:
        return _("Unknown scenario keys: {0} (the scenarios are a to e).").format(", ".join(extra))
    for key in sorted(SCENARIOS):
        value = answer[key]
        if value not in VERDICTS:
            return _("({0}): {1!r} is not a verdict; use one of {2}.").format(
                key, value, ", ".join(repr(v) for v in VERDICTS)
            )
    answers = closed("07.1")
    wrong = [key for key in sorted(SCENARIOS) if not answers.is_right(key, answer[key])]
    if wrong:
        key = wrong[0]
        more = _(" ({0} more to reconsider.)").format(len(wrong) - 1) if len(wrong) > 1 else ""
        return _("({0}) is not {1!r}. {2}{3}").format(key, answer[key], answers.feedback(key, answer[key]) or "", more)
    return None


# ---------------------------------------------------------------------------------------
# 07.2 a fold over events
# ---------------------------------------------------------------------------------------


def _fold_starter(events: Iterable[Event]) -> list[Message]: ...  # type: ignore[empty-body]  # your code here


def _call(n: int, name: str, **args: Any) -> ToolUseBlock:
    return ToolUseBlock(id=f"toolu_07{n}", name=name, input=args)


def _round(turn: int, call: int, uses: Sequence[ToolUseBlock], outputs: Sequence[str]) -> list[Event]:
    reply = assistant_msg([TextBlock("Let me look."), *uses])
    events: list[Event] = [AssistantMessage(turn, call, reply, "tool_use")]
    for use, out in zip(uses, outputs, strict=True):
        failed = out.startswith("error")
        events += [ToolCalled(turn, use), ToolResulted(turn, tool_result_block(use.id, out, is_error=failed))]
    return events


def _answer(turn: int, call: int, text: str) -> list[Event]:
    return [
        AssistantMessage(turn, call, assistant_msg([TextBlock(text)]), "end_turn"),
        TurnEnded(turn, "end_turn", text, call + 1),
    ]


def _fold_cases() -> list[tuple[str, list[Event]]]:
    q1, q2 = user_text("What is in setup.cfg?"), user_text("And in src/app.py and src/db.py?")
    read_cfg = _call(1, "read_file", path="setup.cfg")
    read_app, read_db = _call(2, "read_file", path="src/app.py"), _call(3, "read_file", path="src/db.py")
    grep = _call(4, "grep", pattern="retries", path="src/")
    summary = user_text("Summary of the earlier conversation: setup.cfg pins pytest.")
    return [
        ("a turn without tools", [TurnStarted(0, q1), *_answer(0, 0, "I can answer that directly.")]),
        (
            "one tool call",
            [TurnStarted(0, q1), *_round(0, 0, [read_cfg], ["[metadata]\nname = shop"]), *_answer(0, 1, "A name.")],
        ),
        (
            "one reply with two parallel tool calls",
            [
                TurnStarted(0, q2),
                *_round(0, 0, [read_app, read_db], ["import db", "error: no such file"]),
                *_answer(0, 1, "One file is missing."),
            ],
        ),
        (
            "two tool rounds in one turn",
            [
                TurnStarted(0, q2),
                *_round(0, 0, [read_app], ["import db"]),
                *_round(0, 1, [grep], ["src/app.py:3: retries = 3"]),
                *_answer(0, 2, "Three retries."),
            ],
        ),
        (
            "two turns",
            [
                TurnStarted(0, q1),
                *_round(0, 0, [read_cfg], ["[metadata]"]),
                *_answer(0, 1, "Metadata."),
                TurnStarted(1, q2),
                *_answer(1, 0, "Already read."),
            ],
        ),
        (
            "a compaction in the middle of a turn",
            [
                TurnStarted(0, q1),
                *_round(0, 0, [read_cfg], ["[metadata]"]),
                *_answer(0, 1, "Metadata."),
                TurnStarted(1, q2),
                Compacted(1, 5, 2, (summary, q2)),
                *_answer(1, 0, "From the summary: it pins pytest."),
            ],
        ),
        (
            "a stream that stops right after a tool result",
            [TurnStarted(0, q2), *_round(0, 0, [read_app, read_db], ["import db", "import sqlite3"])],
        ),
    ]


def _brief(m: Message) -> str:
    kinds = []
    for b in blocks_of(m):
        if b.type == "tool_result":
            kinds.append(f"tool_result→{b.tool_use_id}")
        elif b.type == "tool_use":
            kinds.append(f"tool_use {b.id}")
        else:
            kinds.append(b.type)
    return f"{m.role}[{', '.join(kinds)}]"


def _show(messages: Sequence[Message]) -> str:
    return "[" + ", ".join(_brief(m) for m in messages) + "]"


def _check_fold(answer: Any) -> str | None:
    if not callable(answer):
        return N_("Pass the function itself: check('07.2', fold).")
    if answer is fold_events or "fold_events" in getattr(getattr(answer, "__code__", None), "co_names", ()):
        return N_("Write the fold yourself, without calling msgmodel.core.engine.fold_events (it is the answer key).")
    for label, events in _fold_cases():
        want = fold_events(events)
        got = answer(list(events))
        if not isinstance(got, list) or not all(isinstance(m, Message) for m in got):
            return _("fold must return a list of Message; for {0} it returned {1}.").format(label, type(got).__name__)
        if got != want:
            hint = ""
            if label == "one reply with two parallel tool calls":
                hint = (
                    " The results of one reply travel together: the engine appends ONE tool_result_msg "
                    "holding both, after the last ToolResulted of that reply."
                )
            elif label.startswith("a compaction"):
                hint = " A Compacted event replaces the whole history so far with its .messages."
            elif label.startswith("a stream that stops"):
                hint = " Results still pending when the events run out must be appended too."
            return _("For {0}, fold returned {1}, but the engine's history is {2}.{3}").format(
                label, _show(got), _show(want), hint
            )
    return None


# ---------------------------------------------------------------------------------------
# 07.3 a second format enters through the constructors
# ---------------------------------------------------------------------------------------


def _from_openai_starter(messages: list[dict[str, Any]]) -> list[Message]: ...  # type: ignore[empty-body]  # your code here


def _oa_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _oa_tool(call_id: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


OPENAI_SESSION: Final[list[dict[str, Any]]] = [
    {"role": "user", "content": "How many retries does the client make?"},
    {
        "role": "assistant",
        "content": "Let me look.",
        "tool_calls": [
            _oa_call("call_1", "grep", '{"pattern": "retries", "path": "src/"}'),
            _oa_call("call_2", "read_file", '{"path": "src/settings.py"}'),
        ],
    },
    _oa_tool("call_1", "src/config.py:5: retries = 3"),
    _oa_tool("call_2", "no such file: src/settings.py"),
    {"role": "assistant", "content": "Three."},
]
"""A session in OpenAI's Chat Completions shape (ours), shown by exercise 07.3."""


def _openai_cases() -> list[tuple[str, list[dict[str, Any]], list[Message]]]:
    """Each case: a label, a session in OpenAI's shape, and the messages it must become."""
    grep = ToolUseBlock(id="call_1", name="grep", input={"pattern": "retries", "path": "src/"})
    read = ToolUseBlock(id="call_2", name="read_file", input={"path": "src/settings.py"})
    return [
        (
            "plain chat",
            [OPENAI_SESSION[0], {"role": "assistant", "content": "Three."}],
            [
                user_text("How many retries does the client make?"),
                assistant_text("Three."),
            ],
        ),
        (
            "OPENAI_SESSION (text, then two parallel calls, their two tool messages, an answer)",
            OPENAI_SESSION,
            [
                user_text("How many retries does the client make?"),
                assistant_msg([TextBlock("Let me look."), grep, read]),
                tool_result_msg(
                    [
                        tool_result_block("call_1", "src/config.py:5: retries = 3"),
                        tool_result_block("call_2", "no such file: src/settings.py"),
                    ]
                ),
                assistant_text("Three."),
            ],
        ),
        (
            "a call with no text (content None) and no arguments ('{}'), then a second round",
            [
                {"role": "user", "content": "List the files, then read one."},
                {"role": "assistant", "content": None, "tool_calls": [_oa_call("call_7", "ls", "{}")]},
                _oa_tool("call_7", "a.py b.py"),
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [_oa_call("call_8", "read_file", '{"path": "a.py"}')],
                },
                _oa_tool("call_8", "x = 1"),
                {"role": "assistant", "content": "a.py sets x."},
            ],
            [
                user_text("List the files, then read one."),
                assistant_msg([ToolUseBlock(id="call_7", name="ls", input={})]),
                tool_result_msg([tool_result_block("call_7", "a.py b.py")]),
                assistant_msg([ToolUseBlock(id="call_8", name="read_file", input={"path": "a.py"})]),
                tool_result_msg([tool_result_block("call_8", "x = 1")]),
                assistant_text("a.py sets x."),
            ],
        ),
        ("an empty session", [], []),
    ]


def _built_by_hand(fn: Callable[..., Any]) -> str | None:
    """Where the learner's function builds a message or a block without a constructor (``None``: nowhere)."""
    read = learner_source(fn)
    if read is None:
        return None
    source, tree = read
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Message":
            return _("line {0} calls Message(...) by hand").format(node.lineno)
    literals = [s for s in scan_source(source) if s.kind in ("block-literal", "message-literal")]
    if literals:
        return _("line {0} writes a {1} as a dict").format(literals[0].line, literals[0].kind.split("-")[0])
    return None


def _check_from_openai(fn: Any) -> str | None:
    if not callable(fn):
        return _("give the function itself (from_openai), not {0!r}.").format(fn)
    for label, session, expected in _openai_cases():
        got = fn(copy.deepcopy(session))
        if not isinstance(got, list) or not all(isinstance(m, Message) for m in got):
            return _("return a list of Message (built with the constructors); got {0!r} for {1}.").format(got, label)
        if got == expected:
            continue
        why = ""
        results = [m for m in got if tool_results_of(m)]
        if len(results) > len([m for m in expected if tool_results_of(m)]):
            why = _(
                " The results of one turn travel in ONE user message: one tool_result_msg for a run of tool messages."
            )
        elif any(isinstance(u.input, str) for m in got for u in tool_uses_of(m)):
            why = _(" `arguments` is a JSON string; a tool_use's input is the decoded object (json.loads).")
        elif any(isinstance(b, TextBlock) and not b.text for m in got for b in blocks_of(m)):
            why = _(" An assistant message with content None (or '') has no text block, only its calls.")
        return _("for {0}, got:\n{1}\nexpected:\n{2}{3}").format(label, _show(got), _show(expected), why)
    problems = [str(v) for v in validate(fn(copy.deepcopy(OPENAI_SESSION)), as_history=True)]
    if problems:
        return _("the messages are right but the history is not valid: {0}").format(problems[0])
    by_hand = _built_by_hand(fn)
    if by_hand:
        return _(
            "the messages are right, but {0}. At the boundary, build with the constructors (user_text, "
            "assistant_msg, tool_result_msg, tool_result_block, ...): they are the one place that knows the shape."
        ).format(by_hand)
    return None


# ---------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------


exercise(
    Exercise(
        id="07.1",
        goal=N_(
            "Decide when to consolidate: copies that already disagree and cost something, not a second use imagined."
        ),
        task=N_("For each scenario of SCENARIOS, say 'now', 'wait' or 'premature': {'a': ..., ..., 'e': ...}."),
        checker=_check_verdicts,
        starter=None,
        hints=(
            N_(
                "For each scenario, count the copies of the knowledge that exist today and ask whether they already "
                "disagree, or whether the second use is only imagined."
            ),
            N_(
                "Weigh what the chapter's decision diagram asks: is the knowledge already written in more than one "
                "place, "
                "and has a difference between the copies cost something real (a 400, a stalled turn)? A guess about a "
                "future second use is not a copy."
            ),
        ),
    )
)

exercise(
    Exercise(
        id="07.2",
        goal=N_("Rebuild the history from events with the constructors: the engine's fold law, written once by you."),
        task=(
            N_(
                "fold(events): the list of Message that a list of msgmodel.core.engine events describes, from an empty "
                "history, without calling fold_events. A Compacted event's .messages (a tuple of Message, built by the "
                "engine's compaction) is the whole history after compaction: it replaces everything folded so far"
            )
        ),
        checker=_check_fold,
        starter=_fold_starter,
        hints=(
            N_(
                "Replay the events from an empty history: which events add a message, which add nothing, and which one "
                "replaces the whole history?"
            ),
            N_(
                "TurnStarted and AssistantMessage carry .message; ToolResulted carries .result, and the results of one "
                "reply travel in ONE tool_result_msg; Compacted.messages (msgmodel.core.engine) is the whole history "
                "after compaction."
            ),
        ),
    )
)

exercise(
    Exercise(
        id="07.3",
        task=N_(
            "from_openai(messages): a session in OpenAI's Chat Completions shape (user, assistant with tool_calls, "
            "tool) as a list of Message, built with the constructors only; a run of tool messages is ONE result turn"
        ),
        goal=N_(
            "Bring a second format in at the boundary, once, through the constructors: the rest of the code "
            "never learns that format exists."
        ),
        checker=_check_from_openai,
        starter=_from_openai_starter,
        hints=(
            N_(
                "Walk the session once. A user message and a plain assistant message are one constructor each; an "
                "assistant message with tool_calls becomes text (if any) and calls; tool messages in a row are "
                "answers to one turn."
            ),
            N_(
                "msgmodel.core.message: user_text, assistant_text, assistant_msg([TextBlock, ToolUseBlock(id=, "
                "name=, input=json.loads(arguments))]), tool_result_msg([tool_result_block(tool_call_id, content), "
                "...])."
            ),
        ),
    )
)
