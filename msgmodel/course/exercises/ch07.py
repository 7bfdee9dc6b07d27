"""Exercises of chapter 07 (trade-offs and what comes next).

07.1  Consolidate now, wait, or is it premature? A verdict for each of ``SCENARIOS``:
      ``{"a": "now" | "wait" | "premature", ...}``.
07.2  ``fold(events)``: the messages a list of ``msgmodel.core.engine`` events describes (the
      step-32 fold law), written without calling ``fold_events``.
07.3  Predict which lines of the small Claude Code transcript ``CC_LINES`` the importer
      skips: the line numbers, as a list or set of ints.

The checkers explain every wrong verdict, name the event list a fold got wrong (with what
it returned and what the engine's history holds), and give the importer's reason for each
line predicted wrongly. ``SCENARIOS`` and ``CC_LINES`` are imported by the notebook to show them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

import msgspec

from msgmodel.core.claude_code import import_claude_code
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
    blocks_of,
    tool_result_block,
    user_text,
)
from msgmodel.course.exercises import Exercise, exercise
from msgmodel.course.exercises.closed import closed
from msgmodel.course.i18n import N_, _

__all__ = ["CC_LINES", "SCENARIOS"]


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
        more = f" ({len(wrong) - 1} more to reconsider.)" if len(wrong) > 1 else ""
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
# 07.3 which Claude Code lines are skipped?
# ---------------------------------------------------------------------------------------

_SESSION: Final = "s07"


def _conv(kind: str, uuid: str, parent: str | None, message: dict[str, Any]) -> dict[str, Any]:
    return {"type": kind, "uuid": uuid, "parentUuid": parent, "message": message}


def _cc_lines() -> bytes:
    model = "claude-sonnet-4-6"
    records: list[dict[str, Any]] = [
        {"type": "file-history-snapshot", "messageId": "u1", "snapshot": {}, "isSnapshotUpdate": False},
        _conv("user", "u1", None, {"role": "user", "content": "Why does test_totals fail?"}),
        _conv(
            "assistant",
            "a1",
            "u1",
            {"id": "msg_01A", "model": model, "role": "assistant", "content": [{"type": "text", "text": "Run it."}]},
        ),
        _conv(
            "assistant",
            "a2",
            "a1",
            {
                "id": "msg_01A",
                "model": model,
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": {"command": "pytest"}}],
            },
        ),
        {
            "type": "progress",
            "uuid": "p1",
            "parentUuid": "a2",
            "sessionId": _SESSION,
            "data": {"type": "bash_progress"},
        },
        _conv(
            "user",
            "u2",
            "a2",
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "1 failed"}]},
        ),
        {"type": "system", "subtype": "turn_duration", "uuid": "s1", "parentUuid": "u2", "sessionId": _SESSION},
        _conv(
            "assistant",
            "a3",
            "u2",
            {
                "id": "c4b1f7a2-5d0e-4f4e-9d8e-3b1a2c3d4e5f",
                "model": "<synthetic>",
                "role": "assistant",
                "content": [{"type": "text", "text": "No response requested."}],
            },
        ),
        _conv("user", "u3", "a3", {"role": "user", "content": "continue"}),
        _conv(
            "assistant",
            "a4",
            "u3",
            {
                "id": "msg_01B",
                "model": model,
                "role": "assistant",
                "content": [{"type": "text", "text": "The total rounds each line."}],
            },
        ),
        _conv("user", "u4", "a4", {"role": "user", "content": "Fix it in cart.py"}),
        _conv("user", "u5", "a4", {"role": "user", "content": "Fix it in totals.py"}),
    ]
    lines = [msgspec.json.encode(r) for r in records]
    lines.append(b'{"type":"assistant","uuid":"a5","parentUuid":"u5","message":{"id":"msg_01C","con')
    return b"\n".join(lines)


CC_LINES: Final[bytes] = _cc_lines()
"""A small Claude Code transcript (2.1.x style) for 07.3: 13 lines, the last one torn."""


def _check_skipped(answer: Any) -> str | None:
    if isinstance(answer, (str, bytes)) or not isinstance(answer, Iterable):
        return N_("Give the skipped line numbers as a list or set of ints, e.g. [1, 5].")
    try:
        predicted = {int(n) for n in answer}
    except (TypeError, ValueError):
        return N_("Give the skipped line numbers as ints, e.g. [1, 5].")
    session = import_claude_code(CC_LINES, name="session.jsonl")
    reasons = {s.line: s.reason for s in session.skipped}
    kept = {no for nos in session.message_lines for no in nos}
    out_of_range = sorted(n for n in predicted if n not in reasons and n not in kept)
    if out_of_range:
        return _("The transcript has lines 1 to {0}; {1} are not among them.").format(session.line_count, out_of_range)
    missed = sorted(set(reasons) - predicted)
    if missed:
        n = missed[0]
        more = f" ({len(missed) - 1} more skipped line(s) missing from your answer.)" if len(missed) > 1 else ""
        return _("Line {0} is skipped too: {1}.{2}").format(n, reasons[n], more)
    wrongly = sorted(predicted - set(reasons))
    if wrongly:
        n = wrongly[0]
        which = next(i for i, nos in enumerate(session.message_lines) if n in nos)
        m = session.messages[which]
        return _(
            "Line {0} is kept: it is part of message {1} ({2}) of the API view. The importer skips only what the "
            "model never saw as main-chain conversation."
        ).format(n, which, m.role)
    return None


# ---------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------


exercise(
    Exercise(
        id="07.1",
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
        task=N_("Which lines of CC_LINES does import_claude_code skip? A list or set of line numbers."),
        checker=_check_skipped,
        starter=[],
        hints=(
            N_(
                'Read each line\'s "type" and ask whether it is a message of the conversation at all, and whether it '
                "is on"
                " the chain that leads to the last message."
            ),
            N_(
                "msgmodel.core.claude_code.import_claude_code returns the skipped lines, each with a reason; its "
                "module "
                "docstring lists what it skips and why."
            ),
        ),
    )
)
