"""Exercises of chapter 06 (interview follow-ups): read the model, predict the API, edit a history safely.

06.1  ``pairs_of(messages)``: every ``tool_use``, in order, paired with the ``tool_result``
      that names its id, or ``None`` (read with the readers; server tool blocks are opaque).
06.2  Predict the API's answer (200 or 400) for each history of ``prediction_cases()``
      (thinking, redacted thinking, server tools): a dict ``{"A": 200 | 400, ...}``.
06.3  ``rename_in_text(messages, old, new)``: a new history with ``old`` replaced by ``new``
      in text blocks and string content, every other block (thinking above all) untouched,
      and the input left as it was.

``QUIZ`` holds the chapter's self-check questions and ``DRILL`` its interview questions with model
answers and key points, as plain data (the notebook shows them with ``msgmodel.course.widgets.Quiz``
and ``InterviewDrill``; this module does not import ipywidgets).

Each checker judges behaviour on several histories, including the tricky ones (string content,
parallel calls answered out of order, a dangling call, an ``OpaqueBlock``, a text block carrying
``extra``, a signed thinking block), and names the case an answer got wrong.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from msgmodel.core.message import (
    Message,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    assistant_msg,
    blocks_of,
    is_plain_text,
    text_of,
    to_json,
    tool_result_block,
    tool_result_msg,
    tool_results_of,
    tool_uses_of,
    user_msg,
    user_text,
)
from msgmodel.core.protocol import validate
from msgmodel.course.exercises import Exercise, exercise
from msgmodel.course.i18n import N_, _

__all__ = ["DRILL", "QUIZ", "DrillItem", "QuizItem", "prediction_cases"]


# ---------------------------------------------------------------------------------------
# The self-check quiz (data only)
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuizItem:
    """One multiple-choice question: ``answer`` is the text of the right option.

    The fields are those of ``msgmodel.course.widgets.Question``: ``explain`` is shown for the right
    answer, ``hints`` maps a wrong option to a hint.
    """

    prompt: str
    options: tuple[str, ...]
    answer: str
    explain: str
    hints: Mapping[str, str] = field(default_factory=dict)


QUIZ: Final[tuple[QuizItem, ...]] = (
    QuizItem(
        prompt=N_('What does blocks_of(user_text("")) return?'),
        options=(N_('[TextBlock("")]'), N_("[]"), N_("it raises ValueError")),
        answer=N_("[]"),
        explain=N_("An empty string holds no block; a non-empty one becomes one TextBlock."),
        hints={N_('[TextBlock("")]'): N_("The API rejects empty text blocks; would a reader invent one?")},
    ),
    QuizItem(
        prompt=N_(
            "Thinking is enabled. You drop the thinking block from the assistant message that opened "
            "the current tool loop and send the history. The API answers…"
        ),
        options=(
            N_("200: thinking blocks are optional"),
            N_("400: Invalid `signature` in `thinking` block"),
            N_("400: Expected `thinking` or `redacted_thinking`, but found `text`. …"),
        ),
        answer=N_("400: Expected `thinking` or `redacted_thinking`, but found `text`. …"),
        explain=N_("The thinking_required rule: that message must start with its thinking block (I2)."),
        hints={
            N_("200: thinking blocks are optional"): N_("Not while thinking is enabled and a tool loop is open (I2)."),
            N_("400: Invalid `signature` in `thinking` block"): N_("No signature was sent at all; what is missing?"),
        },
    ),
    QuizItem(
        prompt=N_(
            "Block → Text, ToolUse is a class hierarchy. A match with one case per subclass and "
            "case _: assert_never(b) fails under mypy. Why?"
        ),
        options=(
            N_("The base class is open: mypy cannot rule out another subclass"),
            N_("mypy does not understand match"),
            N_("assert_never works only with enums"),
        ),
        answer=N_("The base class is open: mypy cannot rule out another subclass"),
        explain=N_("Only a closed union (Text | ToolUse) leaves Never after the last case (I3)."),
        hints={N_("mypy does not understand match"): N_("It narrows the union version of the same match fine (I3).")},
    ),
    QuizItem(
        prompt=N_(
            "A trimmed history begins with a user message holding only tool_result blocks. A port of "
            'LangChain\'s start_on="human" (keep from the first role == "user" message)…'
        ),
        options=(
            N_("keeps it, and the API answers 400"),
            N_("skips it, because tool results are not human"),
            N_("repairs it"),
        ),
        answer=N_("keeps it, and the API answers 400"),
        explain=N_(
            "In Anthropic's shape tool results travel inside user messages; only is_clean_user_start tells them apart."
        ),
        hints={
            N_("skips it, because tool results are not human"): N_(
                "That holds for LangChain's ToolMessage, "
                "not for Anthropic's shape: what is the role of a tool_result message?"
            )
        },
    ),
    QuizItem(
        prompt=N_("msgmodel.core.compact.repair meets a tool_result whose tool_use was cut away. It…"),
        options=(
            N_("raises ProtocolError"),
            N_("drops it silently, as pydantic-ai's _clean_message_history does"),
            N_("drops it and returns a RepairNote of kind dropped_orphan_result"),
        ),
        answer=N_("drops it and returns a RepairNote of kind dropped_orphan_result"),
        explain=N_("Repair is opt-in and reports every change; nothing calls it implicitly."),
        hints={
            N_("drops it silently, as pydantic-ai's _clean_message_history does"): N_("Look at what repair returns.")
        },
    ),
    QuizItem(
        prompt=N_('A saved session has "toolUseId" where "tool_use_id" belongs. msgmodel reports it…'),
        options=(
            N_("when compaction first reads that result"),
            N_("in from_json, as a DecodeError naming the JSON path of the missing tool_use_id"),
            N_("only through the API's 400"),
        ),
        answer=N_("in from_json, as a DecodeError naming the JSON path of the missing tool_use_id"),
        explain=N_("Shapes are validated once, at the boundary; past it every block is well-formed."),
        hints={N_("when compaction first reads that result"): N_("Could a ToolResultBlock without an id even exist?")},
    ),
    QuizItem(
        prompt=N_(
            'The API starts sending a block kind "video" tomorrow. Today\'s msgmodel, loading such a transcript…'
        ),
        options=(
            N_("fails with a DecodeError"),
            N_("keeps the block as an OpaqueBlock and writes it back unchanged"),
            N_("drops the block and warns"),
        ),
        answer=N_("keeps the block as an OpaqueBlock and writes it back unchanged"),
        explain=N_("Unknown kinds are kept, byte for byte; match stays exhaustive over five cases."),
        hints={N_("fails with a DecodeError"): N_("Try from_json on an image block: what comes back?")},
    ),
)
"""The chapter's self-check questions (shown with ``msgmodel.course.widgets.Quiz``)."""


# ---------------------------------------------------------------------------------------
# 06.1 pairs_of
# ---------------------------------------------------------------------------------------

Pair = tuple[ToolUseBlock, ToolResultBlock | None]


def _pairs_starter(messages: Any) -> Any: ...  # your code here


_IMAGE: Final = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
_REDACTED: Final = {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va"}
_SERVER_CALL: Final = {
    "type": "server_tool_use",
    "id": "srvtoolu_01",
    "name": "web_search",
    "input": {"query": "msgspec"},
}
_SERVER_RESULT: Final = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []}


def _read(call_id: str, path: str) -> ToolUseBlock:
    return ToolUseBlock(id=call_id, name="read_file", input={"path": path})


_Ids = list[tuple[str, str | None]]


def _pairs_cases() -> list[tuple[str, list[Message], _Ids]]:
    """Each case: a label, a history, and the pairs ``pairs_of`` must return, as (call id, result id or None)."""
    return [
        (
            "a string prompt, one call, its result",
            [
                user_text("Read a.py"),
                assistant_msg([_read("toolu_01", "a.py")]),
                tool_result_msg([tool_result_block("toolu_01", "x = 1")]),
            ],
            [("toolu_01", "toolu_01")],
        ),
        (
            "two parallel calls answered in the other order (b.py first)",
            [
                user_text("Read a.py and b.py"),
                assistant_msg([TextBlock("Reading both."), _read("toolu_01A", "a.py"), _read("toolu_01B", "b.py")]),
                tool_result_msg([tool_result_block("toolu_01B", "y = 2"), tool_result_block("toolu_01A", "x = 1")]),
            ],
            [("toolu_01A", "toolu_01A"), ("toolu_01B", "toolu_01B")],
        ),
        (
            "a history that ends on an unanswered call",
            [
                user_text("Read a.py, then c.py"),
                assistant_msg([_read("toolu_01", "a.py")]),
                tool_result_msg([tool_result_block("toolu_01", "x = 1")]),
                assistant_msg([_read("toolu_02", "c.py")]),
            ],
            [("toolu_01", "toolu_01"), ("toolu_02", None)],
        ),
        (
            "a cut history that starts on a result whose call is gone",
            [
                tool_result_msg([tool_result_block("toolu_00", "old output")]),
                assistant_msg([TextBlock("Now b.py."), _read("toolu_01", "b.py")]),
                tool_result_msg([tool_result_block("toolu_01", "y = 2", is_error=True)]),
            ],
            [("toolu_01", "toolu_01")],
        ),
        (
            "a server tool (server_tool_use + web_search_tool_result) beside a client tool",
            [
                user_text("Search, then read a.py"),
                assistant_msg([OpaqueBlock(_SERVER_CALL), OpaqueBlock(_SERVER_RESULT), _read("toolu_01", "a.py")]),
                tool_result_msg([tool_result_block("toolu_01", "x = 1")]),
            ],
            [("toolu_01", "toolu_01")],
        ),
        ("an empty history", [], []),
    ]


def _blocks_of_pairs(history: Sequence[Message], ids: _Ids) -> list[Pair]:
    """The expected pairs of a case as blocks: each (call id, result id) looked up in the history."""
    calls = {c.id: c for m in history for c in tool_uses_of(m)}
    results = {r.tool_use_id: r for m in history for r in tool_results_of(m)}
    return [(calls[c], None if r is None else results[r]) for c, r in ids]


def _show_pairs(pairs: Sequence[Any]) -> str:
    def one(b: Any) -> str:
        if b is None:
            return "None"
        return getattr(b, "id", None) or f"result for {getattr(b, 'tool_use_id', b)!s}"

    return "[" + ", ".join(f"({one(p[0])}, {one(p[1])})" if len(p) == 2 else repr(p) for p in pairs) + "]"


def _check_pairs(fn: Any) -> str | None:
    if not callable(fn):
        return N_("give a function pairs_of(messages) -> list of (tool_use, tool_result or None).")
    for label, history, ids in _pairs_cases():
        expected = _blocks_of_pairs(history, ids)
        try:
            got = fn(list(history))
        except AttributeError as e:
            if "'str' object" in str(e):
                return _(
                    "on {0} it raised AttributeError ({1}): `content` may be a plain string, and iterating a string "
                    "gives characters. Read blocks with the readers (blocks_of and its kin)."
                ).format(label, e)
            return _("on {0} it raised AttributeError: {1}.").format(label, e)
        try:
            got = [tuple(p) for p in got]
        except TypeError:
            return _("on {0} it returned {1!r}; return a list of (call, result) pairs.").format(label, got)
        if got == expected:
            continue
        shown, want = _show_pairs(got), _show_pairs(expected)
        if any(not isinstance(p[0], ToolUseBlock) for p in got if len(p) == 2):
            return _("on {0} it returned {1}, expected {2}: only tool_use blocks are calls.").format(label, shown, want)
        if len(got) < len(expected):
            return _(
                "on {0} it returned {1}, expected {2}: every call gets a pair, even one nobody answered (its result "
                "is None)."
            ).format(label, shown, want)
        return _(
            "on {0} it returned {1}, expected {2}: pair a call with the result that names its id, not with the "
            "result at the same position."
        ).format(label, shown, want)
    return None


exercise(
    Exercise(
        id="06.1",
        task=N_("pairs_of(messages): every tool_use, in order, paired with the tool_result naming its id (or None)."),
        checker=_check_pairs,
        starter=_pairs_starter,
        hints=(
            N_(
                "Content can be a string; a call may be answered out of order, in a later message, or never; server "
                "tool "
                "blocks are not tool_use."
            ),
            N_(
                "tool_uses_of(m) and tool_results_of(m) (msgmodel.core.message) read any message safely; index the "
                "results by .tool_use_id, then walk the calls in order."
            ),
        ),
    )
)


# ---------------------------------------------------------------------------------------
# 06.2 Predict the API's answer
# ---------------------------------------------------------------------------------------


def prediction_cases() -> dict[str, tuple[list[Message], str | None]]:
    """The histories of 06.2: label -> (messages, the request's ``thinking`` type or ``None``).

    Thinking, redacted thinking and server tools; every request defines tools; a fresh copy
    each call.
    """
    thought = ThinkingBlock("The user wants a.py.", signature="c2lnLTE=")
    ask, answer = user_text("Read a.py"), tool_result_msg([tool_result_block("toolu_01", "x = 1")])
    search, thanks = user_text("Search the web for msgspec."), user_text("Thanks.")
    call, result = OpaqueBlock(_SERVER_CALL), OpaqueBlock(_SERVER_RESULT)
    return {
        "A": ([ask, assistant_msg([OpaqueBlock(_REDACTED), _read("toolu_01", "a.py")]), answer], "enabled"),
        "B": ([ask, assistant_msg([_read("toolu_01", "a.py")]), answer], "enabled"),
        "C": ([ask, assistant_msg([thought, TextBlock("It sets x.")]), thanks], None),
        "D": ([ask, assistant_msg([TextBlock("Reading it."), thought, _read("toolu_01", "a.py")]), answer], "enabled"),
        "E": ([search, assistant_msg([call, result, TextBlock("Found it.")]), thanks], None),
        "F": ([search, assistant_msg([result, TextBlock("Found it.")]), thanks], None),
    }


_WHY_ACCEPTED: Final[dict[str, str]] = {
    "A": "redacted_thinking counts as thinking: the turn that opened the tool loop starts with it.",
    "C": "with thinking off, thinking blocks in earlier turns are fine; only a final (prefill) "
    "assistant message may not hold thinking.",
    "E": "a server tool's call and result sit in the same assistant message, call first: a complete pair.",
}


_NOTE_ON_400: Final[dict[str, str]] = {
    "F": " (api-rules.md records this text for `advisor_tool_result`; that every server tool result needs its "
    "server_tool_use first is msgmodel's reading of the same rule.)",
}


def _api_answer(messages: Sequence[Message], thinking: str | None) -> tuple[int, str]:
    violations = validate(messages, thinking=thinking)
    return (400, str(violations[0])) if violations else (200, "")


def _as_status(value: object) -> int | None:
    text = str(value).strip()
    return int(text) if text in ("200", "400") else None


def _check_predictions(answer: Any) -> str | None:
    if not isinstance(answer, Mapping):
        return N_('give a dict such as {"A": 200, "B": 400, ...}.')
    cases = prediction_cases()
    missing = [label for label in cases if _as_status(answer.get(label)) is None]
    if missing:
        return _("{0}: still without an answer (200 or 400).").format(", ".join(missing))
    wrong = []
    for label, (messages, thinking) in cases.items():
        status, text = _api_answer(messages, thinking)
        if _as_status(answer[label]) != status:
            wrong.append((label, status, text))
    if not wrong:
        return None
    label, status, text = wrong[0]
    right = len(cases) - len(wrong)
    if status == 400:
        return _("{0} of {1} right. {2} gets a 400; the API says: {3}{4}").format(
            right, len(cases), label, text, _NOTE_ON_400.get(label, "")
        )
    return _("{0} of {1} right. {2} gets a 200: {3}").format(right, len(cases), label, _WHY_ACCEPTED[label])


exercise(
    Exercise(
        id="06.2",
        task=N_("Predict the API's answer (200 or 400) for each history of prediction_cases(): {'A': 200 | 400, ...}."),
        checker=_check_predictions,
        starter=None,
        hints=(
            N_(
                "For each history, ask which rule it could break: with thinking enabled, the assistant turn that opens "
                "the current tool loop must start with thinking; server tool calls need no tool_result."
            ),
            N_(
                "The rules are thinking_required (docs/api-rules.md section 1.4) and the server-tool recordings of "
                "section 4; validate(messages, thinking=...) checks a guess once you have made it."
            ),
        ),
    )
)

# ---------------------------------------------------------------------------------------
# 06.3 rename_in_text
# ---------------------------------------------------------------------------------------


def _rename_starter(messages: Any, old: Any, new: Any) -> Any: ...  # your code here


_SIGNED: Final = ThinkingBlock("acme's deploy script reads DEPLOY_ENV; check it first.", signature="RXhhbXBsZVNpZw==")


def _rename_history() -> list[Message]:
    return [
        user_text("Deploy acme to staging."),
        assistant_msg(
            [
                _SIGNED,
                TextBlock("Deploying acme now."),
                ToolUseBlock(id="toolu_01A", name="deploy", input={"repo": "acme", "env": "staging"}),
            ]
        ),
        tool_result_msg([tool_result_block("toolu_01A", "acme deployed to staging")]),
        user_msg([TextBlock("Thanks! Tell the acme team.", extra={"cache_control": {"type": "ephemeral"}})]),
        user_text(""),
    ]


def _renamed_history() -> list[Message]:
    """``_rename_history()`` with "acme" renamed "Acme Corp" where the task says: text blocks and string content."""
    return [
        user_text("Deploy Acme Corp to staging."),
        assistant_msg(
            [
                _SIGNED,
                TextBlock("Deploying Acme Corp now."),
                ToolUseBlock(id="toolu_01A", name="deploy", input={"repo": "acme", "env": "staging"}),
            ]
        ),
        tool_result_msg([tool_result_block("toolu_01A", "acme deployed to staging")]),
        user_msg([TextBlock("Thanks! Tell the Acme Corp team.", extra={"cache_control": {"type": "ephemeral"}})]),
        user_text(""),
    ]


def _check_rename(fn: Any) -> str | None:
    if not callable(fn):
        return N_("give a function rename_in_text(messages, old, new) -> list[Message].")
    history = _rename_history()
    before = to_json(history)
    expected = _renamed_history()
    try:
        got = fn(history, "acme", "Acme Corp")
    except AttributeError as e:
        if "immutable" in str(e):
            return _(
                "it raised AttributeError ({0}): blocks are frozen. Build a changed copy with "
                "msgspec.structs.replace(b, text=...) and return new messages."
            ).format(e)
        return _("it raised AttributeError: {0}.").format(e)
    if to_json(history) != before:
        return N_(
            "it changed the history it was given (frozen is shallow: `m.content` is a list you can still "
            "assign into). Build new lists and new messages instead."
        )
    if not isinstance(got, list) or not all(isinstance(m, Message) for m in got):
        return _("return a list of Message, got {0}.").format(type(got).__name__)
    if len(got) != len(expected):
        return _("it returned {0} messages for a history of {1}; keep every message.").format(len(got), len(expected))
    for i, (g, want) in enumerate(zip(got, expected, strict=True)):
        if g == want:
            continue
        if is_plain_text(want):
            return _("message {0}: string content {1!r} should become {2!r}, got {3!r}.").format(
                i, text_of(history[i]), text_of(want), text_of(g) if is_plain_text(g) else blocks_of(g)
            )
        g_blocks, e_blocks = blocks_of(g), blocks_of(want)
        if len(g_blocks) != len(e_blocks):
            return _("message {0}: it has {1} blocks, expected {2}; keep every block.").format(
                i, len(g_blocks), len(e_blocks)
            )
        for gb, eb in zip(g_blocks, e_blocks, strict=True):
            if gb == eb:
                continue
            if eb.type == "thinking":
                return _(
                    "message {0}: the thinking block changed. A signed thinking block must go back byte for byte "
                    "(the API answers `Invalid signature in thinking block`); leave it alone."
                ).format(i)
            if eb.type == "text" and gb.type == "text" and gb.text == eb.text:
                return _(
                    "message {0}: the text block lost its extra fields ({1}). msgspec.structs.replace(b, text=...) "
                    "keeps every other field."
                ).format(i, eb.extra)
            if eb.type == "tool_use":
                return _("message {0}: the tool_use changed; tool inputs are not text blocks, leave them.").format(i)
            if eb.type == "tool_result":
                return _(
                    "message {0}: the tool_result changed; the task renames text blocks and string content only."
                ).format(i)
            return _("message {0}: got {1!r}, expected {2!r}.").format(i, gb, eb)
    # A case where nothing matches must come back equal too.
    try:
        same = fn(history, "no such name", "x")
    except Exception as e:
        return _("with a name that does not occur it raised {0}: {1}.").format(type(e).__name__, e)
    if same != history:
        return N_("with a name that does not occur, the history should come back equal to the input.")
    return None


exercise(
    Exercise(
        id="06.3",
        task=N_(
            "rename_in_text(messages, old, new): a new history, old -> new in text blocks and string content only."
        ),
        checker=_check_rename,
        starter=_rename_starter,
        hints=(
            N_(
                "Blocks and messages are frozen: build new ones instead of changing them, and leave every block that "
                "is "
                "not text as it is (a thinking block's signature must stay valid)."
            ),
            N_(
                "msgspec.structs.replace(b, text=...) makes a changed copy of a block, msgspec.structs.replace(m, "
                "content=...) of a message; keep string content a string."
            ),
        ),
    )
)


# ---------------------------------------------------------------------------------------
# The interview drill (data only): write an answer, then compare it with the model answer
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DrillItem:
    """One interview question: the model answer (a few sentences) and the key points it must make.

    Shown with ``msgmodel.course.widgets.InterviewDrill``: the learner writes first, then sees
    ``answer`` and ticks the ``points`` their own answer made.
    """

    question: str
    answer: str
    points: tuple[str, ...]


DRILL: Final[tuple[DrillItem, ...]] = (
    DrillItem(
        question=N_("Why is a message's content a str | list of blocks, and not always a list of blocks?"),
        answer=N_(
            "Both shapes are on the wire and in real transcripts. Keeping the given one makes a load and save "
            "round trip byte for byte; the string case is one branch, written once in blocks_of."
        ),
        points=(
            N_("the API accepts both shapes, and real sessions hold both"),
            N_("keeping the given shape makes a load/save round trip byte for byte"),
            N_("the string branch lives in one reader (blocks_of), not in every caller"),
        ),
    ),
    DrillItem(
        question=N_("Why define ThinkingBlock before any feature uses thinking?"),
        answer=N_(
            "The model describes every block the API can send, not only what today's features read. Thinking "
            "blocks are signed and must come back unchanged, so storage, compaction and the engine carry them "
            "without looking inside."
        ),
        points=(
            N_("the model describes what the API sends, not what features read today"),
            N_("thinking blocks are signed: losing or editing them gets a 400"),
            N_("storage, compaction and the engine carry the block without looking inside"),
            N_("the later thinking feature needs no change to message.py"),
        ),
    ),
    DrillItem(
        question=N_("Tagged union or class hierarchy for content blocks?"),
        answer=N_(
            "The real choice is a closed union or an open base class. Blocks are data: a closed union serializes "
            "its tag with no registry, and mypy narrows on the tag and proves a match exhaustive with "
            "assert_never; an open hierarchy can do neither."
        ),
        points=(
            N_("closed union vs open base class is the real question"),
            N_("the tag is a field the serializer writes and reads: no registry"),
            N_("mypy narrows on the Literal tag and proves match + assert_never exhaustive"),
            N_("use an open hierarchy for behaviour, a closed union for shapes"),
        ),
    ),
    DrillItem(
        question=N_("What does it cost to add a block kind?"),
        answer=N_(
            "One class added to the union, in message.py. mypy then lists every match ending in assert_never that"
            " must handle it; readers that filter by type keep working, and OpaqueBlock carries the kind until "
            "then."
        ),
        points=(
            N_("one class and one union member, in message.py"),
            N_("mypy points at every exhaustive match that must change"),
            N_("readers that filter by type need no change"),
            N_("OpaqueBlock carries the kind before anyone models it"),
        ),
    ),
    DrillItem(
        question=N_("Why are the blocks frozen?"),
        answer=N_(
            "Blocks are values shared by many histories: a compacted copy, a saved session, a retry. Frozen turns"
            " an in-place edit, which would change all of them and break a signed thinking block, into an error "
            "at the line that tries. The limit: frozen is shallow, so an input dict or a content list stays "
            "mutable (and a block holding one cannot be hashed)."
        ),
        points=(
            N_("blocks are shared between histories"),
            N_("in-place edits would silently change every history (and break signatures)"),
            N_("a changed copy is made with msgspec.structs.replace"),
            N_("frozen is shallow: lists and dicts inside are still mutable"),
        ),
    ),
    DrillItem(
        question=N_("Where does validation belong?"),
        answer=N_(
            "At the boundary, once: from_json and from_api check the shape and raise a DecodeError naming the "
            "JSON path; past that, nothing re-checks it. The API's protocol rules are a separate layer, validate,"
            " run before sending or after loading."
        ),
        points=(
            N_("shape is checked once, at decode (DecodeError with the JSON path)"),
            N_("inside, code trusts typed values: no re-validation everywhere"),
            N_("protocol rules (pairing, order, thinking) are a separate layer: validate"),
        ),
    ),
    DrillItem(
        question=N_('Why not LangChain\'s start_on="human" to pick where a trimmed window starts?'),
        answer=N_(
            "In LangChain a tool result is its own ToolMessage, so the first human message is a safe start. In "
            "Anthropic's shape results travel inside user messages, so the first user message can be an orphan "
            "result: a 400. The right test is is_clean_user_start, walking back from the cut."
        ),
        points=(
            N_("tool results travel inside user messages in Anthropic's shape"),
            N_("'first user message' can be an orphan tool_result: a 400"),
            N_("the right test is is_clean_user_start"),
            N_("walk back from the cut so the window keeps at least keep messages"),
        ),
    ),
    DrillItem(
        question=N_("Why does the validator use the API's exact wording?"),
        answer=N_(
            "The error text is what an engineer searches for: with the API's words byte for byte, a local "
            "failure, a production failure and the public bug reports read the same. The validator adds a rule "
            "id, a location and a hint; its fidelity is checked against public captures of the live API."
        ),
        points=(
            N_("one search finds the local error, the production error and the bug reports"),
            N_("the validator adds a rule id, a location and a hint"),
            N_("fidelity is shown against public live captures, not the local API"),
        ),
    ),
    DrillItem(
        question=N_("Repair a broken history, or reject it?"),
        answer=N_(
            "Reject by default; repair only on request, with a report. repair is opt-in, returns one RepairNote "
            "per change and never edits thinking blocks. A silent repair keeps requests going but hides the bug "
            "that broke the history."
        ),
        points=(
            N_("reject by default"),
            N_("repair is opt-in and reports every change (RepairNote)"),
            N_("thinking blocks are never edited"),
            N_("silent repair hides the bug that caused the damage"),
        ),
    ),
    DrillItem(
        question=N_('How do you test an invariant like "a clean start is always a valid start"?'),
        answer=N_(
            "With a property test: generate many valid histories, cut each at every place, and assert the "
            "invariant, with a fixed seed and a bounded example count. Then show it can fail: with the naive "
            "condition Hypothesis finds and shrinks a counterexample."
        ),
        points=(
            N_("generate many valid histories and cut each at every place"),
            N_("a fixed seed and a bounded example count"),
            N_("check the test can fail (the naive condition gives a counterexample)"),
            N_("Hypothesis shrinks the failure to a tiny case"),
        ),
    ),
    DrillItem(
        question=N_("What happens to a block kind the model does not know?"),
        answer=N_(
            "It is kept, neither dropped nor rejected: an OpaqueBlock holds the original JSON and writes it back "
            "byte for byte. Its kind is b.kind, and match stays exhaustive over five classes."
        ),
        points=(
            N_("kept as an OpaqueBlock, neither dropped nor rejected"),
            N_("written back byte for byte"),
            N_("match stays exhaustive; the wire kind is b.kind"),
        ),
    ),
    DrillItem(
        question=N_("Why do the structs carry an extra field?"),
        answer=N_(
            "The API keeps adding optional fields to known kinds (cache_control, citations). Dropping them breaks"
            " features such as prompt caching, rejecting them breaks on the next release; extra keeps them "
            "verbatim while the core fields stay typed."
        ),
        points=(
            N_("the API adds optional fields to known kinds over time"),
            N_("dropping them breaks features (prompt caching); rejecting them breaks on release"),
            N_("extra keeps them verbatim while core fields stay typed"),
        ),
    ),
    DrillItem(
        question=N_("Why msgspec, and not pydantic or plain dataclasses?"),
        answer=N_(
            "Any of them can express a tagged union. msgspec's tag is part of the class, one call decodes JSON "
            "bytes into the union and encodes it back, and it is one small dependency. A measured preference, not"
            " a law."
        ),
        points=(
            N_("all of them can express a tagged union"),
            N_("msgspec: the tag is part of the class; one-call decode and encode"),
            N_("no adapter layer, one small dependency"),
            N_("a measured preference, not a law"),
        ),
    ),
    DrillItem(
        question=N_("Why not let the API compact the history for you?"),
        answer=N_(
            "Server-side compaction is a fine answer. Its costs: one provider's beta, a summary you do not "
            "choose, an encrypted part you cannot read, and histories you load or send elsewhere still need a "
            "client-side answer. A compaction block round-trips as an OpaqueBlock."
        ),
        points=(
            N_("using them is a fine answer"),
            N_("one provider's beta; you do not choose what the summary keeps"),
            N_("part of the result is encrypted: a block your code cannot read"),
            N_("loaded or replayed histories still need a client-side answer"),
            N_("a compaction block round-trips as an OpaqueBlock"),
        ),
    ),
    DrillItem(
        question=N_("Messages or tokens: what should a compaction budget count?"),
        answer=N_(
            "Tokens: the window and the bill are in tokens, and one tool result holding a file can outweigh forty"
            " turns. A message count is a cheap proxy; the history's JSON length is a local stand-in, and "
            "count_tokens is exact at the price of a request."
        ),
        points=(
            N_("the window and the bill are in tokens"),
            N_("a message count is a cheap proxy that fails on large tool results"),
            N_("a local stand-in (JSON length) costs no request"),
            N_("count_tokens is exact but costs a round trip"),
        ),
    ),
)
"""The chapter's interview questions with model answers and key points (``InterviewDrill(DRILL)``)."""
