"""Exercises of chapter 06 (interview follow-ups): read the model, know its edge, edit a history safely.

06.1  ``pairs_of(messages)``: every ``tool_use``, in order, paired with the ``tool_result``
      that names its id, or ``None`` (read with the readers; server tool blocks are opaque).
06.2  What survives the boundary? For each document of ``BOUNDARY_CASES``, does ``from_json``
      keep it (a lossless round trip) or refuse it (``DecodeError``)? The codec itself decides.
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

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from msgmodel.core.message import (
    DecodeError,
    Message,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    assistant_msg,
    blocks_of,
    from_json,
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
from msgmodel.course.exercises import Exercise, exercise
from msgmodel.course.i18n import N_, _

__all__ = ["BOUNDARY_CASES", "DRILL", "QUIZ", "VERDICTS_06_2", "DrillItem", "QuizItem"]


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
        goal=N_(
            "Answer a classic interview task with the readers: pairing by id, whatever order and shape the history has."
        ),
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
# 06.2 What survives the boundary?
# ---------------------------------------------------------------------------------------

BOUNDARY_CASES: Final[dict[str, str]] = {
    "A": '[{"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", '
    '"data": "iVBORw0KGgo="}}, {"type": "text", "text": "What is this?"}]}]',
    "B": '[{"role": "assistant", "content": [{"type": "citation_card", "title": "RFC 9110", "url": "https://x"}]}]',
    "C": '[{"role": "user", "content": [{"type": "tool_result", "toolUseId": "toolu_01A", "content": "3"}]}]',
    "D": '[{"role": "user", "content": [{"type": "text", "text": "Long prompt.", '
    '"cache_control": {"type": "ephemeral"}}]}]',
    "E": '[{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": "boom", '
    '"is_eror": true}]}]',
    "F": '[{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01A", "name": "grep"}]}]',
    "G": '[{"role": "assistant", "content": [{"type": "thinking", "thinking": "Hmm.", "signature": 42}]}]',
}
"""The documents of 06.2: one or two blocks each, as a session file would hold them (ours)."""

VERDICTS_06_2: Final = ("kept", "refused")

_WHY_06_2: Final[dict[tuple[str, str], str]] = {
    ("A", "kept"): N_(
        "an image is a kind the model does not interpret: it becomes an OpaqueBlock and is written back as it came."
    ),
    ("B", "kept"): N_(
        "a kind nobody has heard of is still a JSON object with a string type: an OpaqueBlock keeps it, so the day "
        "the API adds a kind, nothing is lost."
    ),
    ("D", "kept"): N_(
        "cache_control is a field the model does not interpret on a known kind: it is kept in the block's extra and "
        "written back flat."
    ),
    ("E", "kept"): N_(
        "is_eror is not a required field, only an unknown one: it lands in extra like cache_control. Decoding is "
        "lossless, so a typo survives it; protocol.validate is what refuses it before a request."
    ),
}


def _at_the_boundary(document: str) -> tuple[str, str]:
    """What the codec does with ``document``: ("kept", "") when it round-trips, else ("refused", the error)."""
    try:
        messages = from_json(document, source="session.json")
    except DecodeError as e:
        return "refused", str(e)
    back = json.loads(to_json(messages))
    return ("kept", "") if back == json.loads(document) else ("changed", json.dumps(back))


def _check_boundary(answer: Any) -> str | None:
    if not isinstance(answer, Mapping):
        return N_('give a dict such as {"A": "kept", "B": "refused", ...}.')
    missing = [label for label in BOUNDARY_CASES if answer.get(label) not in VERDICTS_06_2]
    if missing:
        return _('{0}: still without a verdict ("kept" or "refused").').format(", ".join(missing))
    wrong = []
    for label, document in BOUNDARY_CASES.items():
        verdict, detail = _at_the_boundary(document)
        if answer[label] != verdict:
            wrong.append((label, verdict, detail))
    if not wrong:
        return None
    label, verdict, detail = wrong[0]
    right = len(BOUNDARY_CASES) - len(wrong)
    if verdict == "refused":
        return _(
            "{0} of {1} right. {2} is refused, at the boundary, with the path of what is missing or wrong: {3}. "
            "A field the model needs cannot be guessed, so nothing inside ever sees it."
        ).format(right, len(BOUNDARY_CASES), label, detail)
    why = _WHY_06_2.get((label, verdict))
    return _("{0} of {1} right. {2} is kept: {3}").format(
        right, len(BOUNDARY_CASES), label, detail if why is None else _(why)
    )


exercise(
    Exercise(
        id="06.2",
        task=N_(
            "For each document of BOUNDARY_CASES, does from_json keep it (a lossless round trip) or refuse it? "
            "{'A': 'kept' | 'refused', ...}"
        ),
        goal=N_(
            "Know what the one model does at its edge: keep every kind and field it does not interpret, refuse "
            "what it cannot read with a path, so the code inside never sees a half-valid block."
        ),
        checker=_check_boundary,
        starter=None,
        hints=(
            N_(
                "Sort the fields of each block into three: the ones its kind requires, the ones the model does not "
                "interpret, and the kinds it does not interpret at all. Only one of the three can stop decoding."
            ),
            N_(
                "msgmodel.core.message.from_json keeps unknown kinds as OpaqueBlock and unknown fields in .extra, "
                "and raises DecodeError for a missing or mistyped required field. Try one: "
                "from_json(BOUNDARY_CASES['A'])."
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
        goal=N_(
            "Change a history without breaking what the model keeps for you: frozen blocks, signed thinking, extra."
        ),
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
    """One interview question and its model answer, written as the key points it must make.

    The model answer is the key points read in order (``answer``), so a reader of a static page can
    score their own answer against them. Shown with ``msgmodel.course.widgets.InterviewDrill``: the
    learner writes first, then sees the answer and ticks the ``points`` their own answer made.
    """

    question: str
    points: tuple[str, ...]
    shown_in: str = ""  # where a point no core cell shows is shown (an optional cell), or ""

    @property
    def answer(self) -> str:
        """The model answer: the key points, in order, as one paragraph (English; the widget translates each)."""
        return " ".join(self.points)


DRILL: Final[tuple[DrillItem, ...]] = (
    DrillItem(
        question=N_("Why is a message's content a str | list of blocks, and not always a list of blocks?"),
        points=(
            N_("Both shapes are on the wire."),
            N_("Keeping the given one round-trips byte for byte."),
            N_("blocks_of reads the string, once."),
        ),
    ),
    DrillItem(
        question=N_("Why define ThinkingBlock before any feature uses thinking?"),
        points=(
            N_("The model describes what the API sends."),
            N_(
                "Dropped from a tool loop's opening turn: a captured 400. Edited: refused, per public bug "
                "reports; no local check sees a signature."
            ),
            N_("Storage, compaction and the engine carry it unopened."),
            N_("Turning thinking on later leaves message.py unchanged."),
        ),
    ),
    DrillItem(
        question=N_("Tagged union or class hierarchy for content blocks?"),
        points=(
            N_("The choice: closed union or open base class."),
            N_("The tag is a field: no registry."),
            N_("mypy narrows on Literal tags and proves assert_never exhaustive."),
            N_("Hierarchies suit behaviour; shapes want a closed union."),
        ),
    ),
    DrillItem(
        question=N_("What does it cost to add a block kind?"),
        points=(
            N_("message.py gains a class, a union member, codec table entries; a paired kind, a protocol.py rule."),
            N_("mypy names every match ending in assert_never: six, in three files."),
            N_("Readers that filter by type need nothing."),
            N_("Until then, OpaqueBlock carries the kind."),
        ),
    ),
    DrillItem(
        question=N_("Why are the blocks frozen?"),
        points=(
            N_("Histories share block objects."),
            N_("Frozen makes an edit that would change them all an error."),
            N_("A change is a copy: msgspec.structs.replace."),
            N_("Frozen is shallow: a dict inside stays mutable, and its block cannot be hashed."),
        ),
    ),
    DrillItem(
        question=N_("Where does validation belong?"),
        points=(
            N_("Shape is checked once, at decode: a DecodeError with the JSON path."),
            N_("Inside, code trusts typed values."),
            N_("Protocol rules are a separate layer: validate."),
        ),
    ),
    DrillItem(
        question=N_('Why not LangChain\'s start_on="human" to pick where a trimmed window starts?'),
        points=(
            N_("Anthropic's shape puts tool results inside user messages."),
            N_("So a first user message can be an orphan: a 400."),
            N_("The right test is is_clean_user_start."),
            N_("Walk back from the cut, keeping at least keep messages."),
        ),
    ),
    DrillItem(
        question=N_("Why does the validator use the API's exact wording?"),
        points=(
            N_("One search finds the local error, the production one and the bug reports."),
            N_("It adds a rule id, a path, a hint."),
            N_("Fidelity is checked against public live captures."),
        ),
    ),
    DrillItem(
        question=N_("Repair a broken history, or reject it?"),
        points=(
            N_("Reject by default."),
            N_("repair is opt-in and reports each change (RepairNote)."),
            N_("It never edits a thinking block."),
            N_("Silent repair hides the bug that broke the history."),
        ),
        shown_in=N_("optional cells: chapter 05, section 7, and I9 below"),
    ),
    DrillItem(
        question=N_('How do you test an invariant like "a clean start is always a valid start"?'),
        points=(
            N_("Generate valid histories and cut each at every place."),
            N_("Fix the seed; bound the example count."),
            N_("Show it can fail: the naive condition gets a counterexample."),
            N_("Hypothesis shrinks that to a tiny case."),
        ),
    ),
    DrillItem(
        question=N_("What happens to a block kind the model does not know?"),
        points=(
            N_("It is kept as an OpaqueBlock, neither dropped nor rejected."),
            N_("It is written back byte for byte."),
            N_("match stays exhaustive; b.kind names the kind."),
        ),
    ),
    DrillItem(
        question=N_("Why do the structs carry an extra field?"),
        points=(
            N_("The API keeps adding optional fields to known kinds."),
            N_("Dropping them breaks prompt caching; rejecting them, the next release."),
            N_("extra keeps them verbatim; core fields stay typed."),
        ),
    ),
    DrillItem(
        question=N_("Why msgspec, and not pydantic or plain dataclasses?"),
        points=(
            N_("pydantic or dataclasses could express the union too."),
            N_("msgspec: the tag is in the class, one call decodes or encodes."),
            N_("No adapter layer; one small dependency."),
            N_("A measured preference, not a law."),
        ),
    ),
    DrillItem(
        question=N_("Why not let the API compact the history for you?"),
        points=(
            N_("Using it is a fine answer."),
            N_("One provider's beta; you do not choose the summary."),
            N_("Part is encrypted, unreadable to your code."),
            N_("Histories loaded or sent elsewhere still need a client-side answer."),
            N_("Its compaction block round-trips as an OpaqueBlock."),
        ),
        shown_in=N_("the optional cell I14 below; sources: docs/anchors.md"),
    ),
    DrillItem(
        question=N_("Messages or tokens: what should a compaction budget count?"),
        points=(
            N_("Tokens: the window and the bill are in tokens."),
            N_("A message count is cheap but misses one huge tool result."),
            N_("JSON length: a free local stand-in."),
            N_("count_tokens: exact, for a round trip."),
        ),
        shown_in=N_("the optional cell I15 below"),
    ),
)
"""The chapter's interview questions with model answers and key points (``InterviewDrill(DRILL)``)."""
