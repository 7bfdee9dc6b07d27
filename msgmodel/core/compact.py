"""Compaction of a long history, and the explicit repair of a broken one.

This module owns two operations on a whole conversation:

``compact(messages, *, summarize, keep_recent=None, max_tokens=None, ...) -> list[Message]``
    Keeps a recent *window* of the history verbatim and replaces everything before it
    with one summary message. The window is asked for in messages (``keep_recent``), in
    tokens (``max_tokens``, counted by ``estimate_tokens`` or the ``count_tokens`` given), or
    both. ``compact_with_provenance`` returns the same history as a ``Compaction`` that also
    records, as data, which messages the summary replaced and whether the request was met;
    ``plan_compaction`` computes the cut without summarizing anything. ``clear_tool_results``
    (also ``compact(..., clear_results=N)``) shortens old tool results instead of dropping turns.

``repair(messages) -> (messages, notes)``
    Makes a broken history acceptable to the API again and reports every change it made
    as a ``RepairNote``. It is never applied implicitly (``compact`` does not call it).
    (``msgmodel.core.storage.repair(path)`` is another operation on another thing: it cuts a
    torn last line off a session file.)

The window (the step-29 fix, and where the library goes past it)
    The window is the *shortest suffix of at least ``keep_recent`` messages that starts at
    a clean cut*. A cut before index ``i`` is clean when ``messages[i]`` is a clean user
    start (``is_clean_user_start``: a user turn that answers no tool call), or when
    ``i == len(messages)`` (the empty window, chosen only for ``keep_recent == 0``). This is
    the rule the chapters teach, and ``clean_only=True`` keeps to it alone.

    One long tool loop after one prompt (a coding agent's usual history) has no clean user
    start after its first message. So when no clean user start serves, the window may open
    on an *assistant turn* instead (a *turn cut*): before ``messages[i]`` when it is an
    assistant message that starts a turn (``messages[i - 1]`` is not an assistant message: the
    API merges consecutive ones), no result in the window answers a call before the cut, and
    ``messages[i]`` begins with the same kind of block as the turn that opened the tool loop it
    cuts into (with thinking enabled, the API wants the turn that opens a pending loop to begin
    with its signed thinking; a window opening like the original opener keeps that true, and
    compaction still needs no word for thinking). After the summary (a user message) such a
    window is a valid history: every pair in it is whole, and the latest pair (the results the
    model is about to read) is always kept.

    Why this can never orphan anything: in a valid history every ``tool_result`` sits in
    the user message right after the assistant message holding its ``tool_use``. A clean
    user start holds no results, so no result in the window points before the cut; and
    the message before a clean user start is not an assistant turn waiting for results
    (its results would have to be in the clean start). Thinking lives inside the
    assistant message whose ``tool_use`` it precedes, and a cut falls only *between*
    messages, so thinking never loses its tool call and a signed turn is never split or
    merged.

    Server tools pair differently: a server result (``web_search_tool_result``,
    ``mcp_tool_result``, ...) needs its ``server_tool_use``/``mcp_tool_use`` anywhere
    *earlier* in the conversation, possibly with user turns in between. So a cut is clean
    only if, in addition, no server result in the window answers a server call before the
    cut (``server_tool_link`` reads the ids; one backward pass computes, for every
    position, the earliest call the rest of the history still needs; client calls count too).
    Mid-conversation system messages are never cut before and go with the part they fall in.
    Hence: if ``validate(h) == []`` then ``validate(compact(h, ...)) == []``;
    ``tests/test_compact_properties.py`` checks this for every ``keep_recent`` of every
    generated history, and for token budgets.

    Edge cases, exactly:

    * ``keep_recent == 0``: the window is empty and everything is summarized.
    * ``keep_recent >= len(messages)``: nothing is summarized; the history comes back
      unchanged (``summarize`` is not called).
    * no clean cut in ``messages[1 : len(messages) - keep_recent + 1]``: the latest turn cut
      there, the shortest window of that kind.
    * no cut at all there (a server call whose result comes much later, or no turn that begins
      like its loop's opener): nothing is summarized, the history comes back unchanged, and
      the compaction says so: ``Compaction.shortfall`` (reason ``"no_cut"``); ``compact`` warns
      with a ``CompactionWarning``; ``strict=True`` raises ``CompactionBudgetError``.

A token budget
    ``max_tokens`` asks for the *longest* window that counts at most that many tokens (the
    summary comes on top of it: keep room for ``SUMMARY_MAX_TOKENS``), with at least
    ``keep_recent`` messages (1 when not given): a history within the budget is left alone;
    else the longest window at a clean user start within the budget, else the longest at a turn
    cut within it, else (nothing fits) the smallest window a cut leaves, which keeps the latest
    pair, with ``shortfall`` reason ``"over_budget"`` (warned, or raised with ``strict=True``).
    Tokens are counted by ``count_tokens`` (a function of a list of messages; a model's own
    count, say), by default ``estimate_tokens`` (4 bytes of JSON a token, the local API's
    convention); it is called on O(log n) windows, as a later cut's window is part of an earlier
    one's. ``clear_results=N`` first shortens all tool results but the ``N`` latest to
    ``CLEARED_RESULT`` (``clear_tool_results``: oldest first, only as many as the budget needs,
    tools in ``exclude_tools`` spared), as the API's context editing (``clear_tool_uses``) and
    Claude Code do; turns are cut only if that is not enough, and the summary reads the original
    results.

The summary (the step-30 fix)
    The replaced prefix is rendered with ``transcript_of`` (tool calls as
    ``[call name(args)]``, results as ``[result: ...]`` / ``[result (failed): ...]``),
    and that text goes to ``summarize``. The summary comes back as one user text message,
    ``SUMMARY_FRAMING`` followed by the summary, placed right before the window. The
    window starts with a user message too; the API merges consecutive user messages
    (api-rules.md, "role_alternation"), so no assistant turn is invented to separate them.

    ``summarize`` is either a function ``str -> str`` or a model client (an object with
    ``.messages.create``, such as ``anthropic.Anthropic()``); a client is asked through
    ``summarizer_from_client`` with ``SUMMARY_INSTRUCTIONS`` as the system prompt and the
    transcript as the one user message. The request defines no tools and carries no tool
    blocks (the transcript is flat text), so the API's ``tools_required`` rule is never hit.

Provenance is data, not text
    ``Compaction.replaced`` is the half-open range of input indices the summary stands
    for, ``kept_from`` where the verbatim window begins. Nothing is inferred later from
    the framing text, which anyone could type.

The repair, exactly
    ``repair`` reads the history as the API does: consecutive assistant messages form one
    turn (the API merges them; Claude Code stores one message per block), and the user
    messages after a turn are its answer. It changes only what it must:

    * an empty message (``""`` or ``[]``) is dropped (``dropped_empty_message``);
    * a message holding tool blocks that repeats the one kept just before it is a replay
      and is dropped (``dropped_duplicate_message``);
    * a ``tool_use`` whose id an earlier ``tool_use`` already has is dropped from its
      assistant message (``dropped_duplicate_tool_use``); the other blocks, thinking
      above all, stay untouched and in order;
    * when a message of an assistant turn has content after a call made earlier in the
      turn (``a:[call A] a:[text]``, or a second signed message ``a:[thinking, call B]``),
      the API would find call A unanswered: a results message is put between the two
      (``split_assistant_turn``), holding A's result moved up from the user turn after
      them, or an interrupted result;
    * in the user messages after a turn: results for its calls found in a later message
      are moved up to the first (``merged_split_results``); results not at the front are
      moved to the front (``moved_results_first``); results for ids the turn did not call
      are dropped (``dropped_orphan_result``), and a second result for the same id too
      (``dropped_duplicate_result``); a call with no result at all is answered with
      ``tool_result_block(id, INTERRUPTED_RESULT, is_error=True)``
      (``answered_dangling_call``), also a call in the final message, which is what a
      crash between a call and its result leaves behind;
    * a server result (``web_search_tool_result``, ``mcp_tool_result``, ...) with no
      ``server_tool_use``/``mcp_tool_use`` of its id earlier in the history is dropped
      (``dropped_orphan_server_result``): nothing can answer for a call that was cut away;
    * a message left empty by the above is dropped (``dropped_empty_message``).

    Results are never moved down past an assistant message, assistant messages are never
    merged or reordered, and thinking blocks are never edited, moved or dropped, so every
    signature stays valid. A history ``validate`` accepts comes back unchanged with no
    notes; ``repair`` of a repaired history makes no further change.

    What ``repair`` does not do: it never adds a user message, so a history ending in an
    assistant message still ends so (whether the API accepts that final message, a
    prefill, depends on the model; the next prompt ends it). Out of scope, reported by
    ``validate`` and left alone: tool blocks in the wrong role, text after a ``tool_use``
    inside one assistant message, thinking not first in its message, empty or
    whitespace-only text blocks, malformed ids or fields.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final, Literal, Protocol, TypeAlias, cast

import msgspec

from msgmodel.core.message import (
    ContentBlock,
    DecodeError,
    Message,
    ToolResultBlock,
    assistant_msg,
    blocks_from_api,
    blocks_of,
    is_clean_user_start,
    is_plain_text,
    server_tool_link,
    text_of,
    to_api,
    to_json,
    tool_result_block,
    tool_result_msg,
    tool_results_of,
    tool_uses_of,
    transcript_of,
    user_msg,
    user_text,
)

__all__ = [
    "BYTES_PER_TOKEN",
    "CLEARED_RESULT",
    "INTERRUPTED_RESULT",
    "SUMMARY_FRAMING",
    "SUMMARY_INSTRUCTIONS",
    "SUMMARY_MAX_TOKENS",
    "SUMMARY_MODEL",
    "ClearedResults",
    "Compaction",
    "CompactionBudgetError",
    "CompactionError",
    "CompactionPlan",
    "CompactionWarning",
    "CountTokens",
    "CutKind",
    "MessagesClient",
    "RepairKind",
    "RepairNote",
    "Shortfall",
    "Summarizer",
    "clear_tool_results",
    "compact",
    "compact_with_provenance",
    "estimate_tokens",
    "plan_compaction",
    "repair",
    "summarize_transcript",
    "summarizer_from_client",
    "summary_message",
]

SUMMARY_FRAMING: Final = (
    "This session continues an earlier conversation. The earlier part was replaced by this summary:"
)
"""The first line of the summary message, before the summary text."""

SUMMARY_MODEL: Final = "claude-haiku-4-5"
"""The model a client summarizer asks unless told otherwise."""

SUMMARY_MAX_TOKENS: Final = 2048
"""The longest summary a client summarizer asks for, in tokens."""

SUMMARY_INSTRUCTIONS: Final = (
    "You summarize the earlier part of a conversation between a user and an AI coding agent, "
    "so that the agent can continue the work with only your summary and the recent messages. "
    "In the transcript, [call name(args)] is a tool call the agent made, [result: ...] its output "
    "and [result (failed): ...] a call that failed. Keep: the user's goals and constraints, which "
    "files were read or changed and how, which commands ran and what they showed, every failure and "
    "its cause, decisions made, and what is still open. Be concise and concrete; do not invent facts."
)
"""The system prompt a client summarizer sends along with the transcript."""

INTERRUPTED_RESULT: Final = "interrupted: no result was recorded for this tool call"
"""The text of the error result ``repair`` gives a tool call that was never answered."""

_EMPTY_TRANSCRIPT_SUMMARY: Final = "(The earlier part of the conversation held no text.)"


class CompactionError(ValueError):
    """A compaction that cannot be carried out: a bad ``keep_recent``, or a summarizer that gives no usable summary."""


# ---------------------------------------------------------------------------------------
# The summarizer
# ---------------------------------------------------------------------------------------


class _MessagesResource(Protocol):
    def create(self, *args: Any, **kwargs: Any) -> Any: ...


class MessagesClient(Protocol):
    """Anything with ``.messages.create(...)`` returning a response with ``.content``: an ``anthropic.Anthropic``."""

    @property
    def messages(self) -> _MessagesResource: ...


Summarizer: TypeAlias = Callable[[str], str] | MessagesClient
"""A function from transcript to summary, or a model client to ask for one."""


def summarizer_from_client(
    client: MessagesClient,
    *,
    model: str = SUMMARY_MODEL,
    max_tokens: int = SUMMARY_MAX_TOKENS,
    instructions: str = SUMMARY_INSTRUCTIONS,
) -> Callable[[str], str]:
    """A summarizer that asks ``client`` (an ``anthropic.Anthropic``, say) for the summary.

    One request: ``system=instructions``, one user message holding the transcript, no
    tools. The summary is the text of the response's content blocks.
    """

    def summarize(transcript: str) -> str:
        request = [user_text(transcript if transcript.strip() else _EMPTY_TRANSCRIPT_SUMMARY)]
        response = client.messages.create(
            model=model, max_tokens=max_tokens, system=instructions, messages=to_api(request)
        )
        content = getattr(response, "content", None)
        if not isinstance(content, (list, tuple)):
            raise CompactionError(
                f"the summarizer's response has no list of content blocks (got {type(response).__name__})"
            )
        try:
            blocks = blocks_from_api(content, path="response.content")
        except DecodeError as e:
            raise CompactionError(f"the summarizer's response is not a list of content blocks: {e}") from e
        except RecursionError:
            raise CompactionError("the summarizer's response.content is nested too deeply to read") from None
        return text_of(assistant_msg(blocks))

    return summarize


def summarize_transcript(transcript: str, summarize: Summarizer) -> str:
    """Run ``summarize`` on ``transcript``: call it if it is a function, ask it if it is a client."""
    resource = getattr(summarize, "messages", None)
    if resource is not None and callable(getattr(resource, "create", None)):
        return summarizer_from_client(cast(MessagesClient, summarize))(transcript)
    if callable(summarize):
        result = summarize(transcript)
        if not isinstance(result, str):
            raise CompactionError(f"the summarizer returned {type(result).__name__}, expected a string")
        return result
    raise TypeError(
        f"summarize must be a function str -> str or a client with .messages.create, got {type(summarize).__name__}"
    )


def summary_message(summary: str) -> Message:
    """The user message that stands for the replaced part: ``SUMMARY_FRAMING``, a blank line, the summary."""
    return user_text(f"{SUMMARY_FRAMING}\n\n{summary}")


# ---------------------------------------------------------------------------------------
# Compaction
# ---------------------------------------------------------------------------------------


CutKind: TypeAlias = Literal["none", "clean", "turn", "empty"]
"""Where a plan cuts: nowhere, before a clean user start, before an assistant turn, or after the last message."""

CountTokens: TypeAlias = Callable[[Sequence[Message]], int]
"""A token counter: the tokens of a list of messages sent as a request's ``messages``."""

BYTES_PER_TOKEN: Final = 4
"""``estimate_tokens``'s convention: one token per 4 bytes of JSON (the local API's, ``msgmodel.api.limits``)."""

CLEARED_RESULT: Final = "[tool result cleared to save context]"
"""What ``clear_tool_results`` puts in place of an old tool result's output (our wording)."""


def estimate_tokens(messages: Sequence[Message]) -> int:
    """The tokens ``messages`` cost as a request's ``messages``, estimated: their JSON's UTF-8 bytes / 4, rounded up.

    The local API's convention (its ``count_tokens`` counts the same JSON the same way); the live
    API's tokenizer is not public. To budget with a model's own count, pass ``count_tokens=`` to
    ``compact``, for instance ``lambda ms: client.messages.count_tokens(model=..., messages=to_api(ms)).input_tokens``.
    """
    return math.ceil(len(to_json(list(messages))) / BYTES_PER_TOKEN)


class Shortfall(msgspec.Struct, frozen=True, kw_only=True):
    """Why a compaction could not give what was asked: ``compact`` warns with it, ``strict=True`` raises it.

    ``reason`` is ``"no_cut"`` (no cut keeps ``keep_recent`` messages without splitting a tool pair,
    so nothing was summarized) or ``"over_budget"`` (the smallest window a cut leaves is still over
    ``max_tokens``: it is kept anyway, with the latest tool pair). ``window_tokens`` is what the kept
    window counts (``None`` without a budget).
    """

    reason: Literal["no_cut", "over_budget"]
    text: str
    window_tokens: int | None = None
    max_tokens: int | None = None

    def __str__(self) -> str:
        return self.text


class CompactionWarning(UserWarning):
    """``compact`` could not reach what was asked (see ``Shortfall``); it returns the best history it could."""


class CompactionBudgetError(CompactionError):
    """Raised with ``strict=True`` when a compaction falls short; ``compaction`` is the best it could do."""

    def __init__(self, compaction: Compaction) -> None:
        self.compaction = compaction
        super().__init__(str(compaction.shortfall))


class CompactionPlan(msgspec.Struct, frozen=True, kw_only=True):
    """Where a compaction cuts: ``messages[:kept_from]`` is summarized, ``messages[kept_from:]`` kept.

    ``kept_from == 0`` means nothing is summarized; ``kept_from == total`` means the
    window is empty (``keep_recent == 0``). ``cut`` says which kind of cut it is;
    ``window_tokens`` what the window counts when a budget was given; ``shortfall`` why the
    plan could not give what was asked, if it could not.
    """

    kept_from: int
    total: int
    keep_recent: int | None
    max_tokens: int | None = None
    cut: CutKind = "none"
    window_tokens: int | None = None
    shortfall: Shortfall | None = None

    @property
    def replaced(self) -> range:
        """The input indices the summary replaces."""
        return range(0, self.kept_from)

    @property
    def window(self) -> range:
        """The input indices kept verbatim."""
        return range(self.kept_from, self.total)

    @property
    def summarizes(self) -> bool:
        """Whether anything is summarized at all."""
        return self.kept_from > 0


class Compaction(msgspec.Struct, frozen=True, kw_only=True):
    """The result of a compaction, with its provenance as data.

    ``messages`` is the new history: ``[summary_message(summary), *window]``, or the
    input (its old tool results shortened, if asked) when nothing was summarized. ``replaced``
    is the half-open range ``(start, stop)`` of input indices the summary stands for (``(0, 0)``
    if none); ``kept_from`` is the input index of the window's first message (``original_len``
    for an empty window). ``transcript`` is exactly what the summarizer read. ``cut``,
    ``window_tokens`` and ``shortfall`` are the plan's; ``cleared`` the ``tool_use`` ids whose
    results in the kept messages were shortened to ``CLEARED_RESULT``. ``reached`` is
    ``shortfall is None``.
    """

    messages: tuple[Message, ...]
    summary: str
    replaced: tuple[int, int]
    kept_from: int
    original_len: int
    keep_recent: int | None
    transcript: str
    max_tokens: int | None = None
    cut: CutKind = "none"
    window_tokens: int | None = None
    cleared: tuple[str, ...] = ()
    shortfall: Shortfall | None = None

    @property
    def summarized(self) -> bool:
        """Whether a summary replaced anything."""
        return self.replaced[1] > self.replaced[0]

    @property
    def reached(self) -> bool:
        """Whether the compaction gave what was asked (no ``shortfall``)."""
        return self.shortfall is None

    @property
    def summary_index(self) -> int | None:
        """The index of the summary message in ``messages``, or ``None`` when there is none."""
        return 0 if self.summarized else None

    def origin_of(self, index: int) -> int | range:
        """Where ``messages[index]`` came from: its input index, or the range the summary replaced."""
        if not 0 <= index < len(self.messages):
            raise IndexError(f"no message {index} in a compacted history of {len(self.messages)}")
        if self.summarized:
            return range(*self.replaced) if index == 0 else self.kept_from + index - 1
        return index


def plan_compaction(
    messages: Sequence[Message],
    *,
    keep_recent: int | None = None,
    max_tokens: int | None = None,
    count_tokens: CountTokens | None = None,
    clean_only: bool = False,
) -> CompactionPlan:
    """Choose the cut (see "The window" in the module docstring). Pure: nothing is summarized.

    ``keep_recent``: the window holds at least this many messages (the shortest such window).
    ``max_tokens``: the window counts at most this many tokens (``count_tokens``, by default
    ``estimate_tokens``; the longest such window), and at least ``keep_recent`` messages (default 1).
    At least one of the two must be given. ``clean_only``: cut before clean user starts only.
    """
    _check_budget(keep_recent, max_tokens)
    total = len(messages)
    plan = functools.partial(CompactionPlan, total=total, keep_recent=keep_recent, max_tokens=max_tokens)
    if max_tokens is None:
        assert keep_recent is not None  # _check_budget
        if keep_recent == 0:
            return plan(kept_from=total, cut="empty")
        if keep_recent >= total:
            return plan(kept_from=0)
        clean, turn = _cuts(messages, total - keep_recent, clean_only)
        tiers: tuple[tuple[CutKind, list[int]], ...] = (("clean", clean), ("turn", turn))
        for kind, cuts in tiers:
            if cuts:
                return plan(kept_from=cuts[-1], cut=kind)
        where = "no clean user start" if clean_only else "no clean user start, no assistant turn that can open it"
        why = (
            f"no cut keeps {keep_recent} recent message(s) of {total} without splitting a tool pair ({where}); "
            "nothing was summarized (keep_recent=0 summarizes everything)"
        )
        return plan(kept_from=0, shortfall=Shortfall(reason="no_cut", text=why))
    count = count_tokens or estimate_tokens
    floor = 1 if keep_recent is None else keep_recent
    whole = _count(count, messages)
    if whole <= max_tokens or floor >= total:
        shortfall = None
        if whole > max_tokens:
            shortfall = Shortfall(
                reason="over_budget",
                text=f"the history counts {whole} tokens, over max_tokens={max_tokens}, "
                f"but keep_recent={floor} keeps all {total} messages",
                window_tokens=whole,
                max_tokens=max_tokens,
            )
        return plan(kept_from=0, window_tokens=whole, shortfall=shortfall)
    clean, turn = _cuts(messages, total - floor, clean_only)
    budget_tiers: list[tuple[CutKind, list[int]]] = [("clean", clean), ("turn", turn)]
    if floor == 0:
        budget_tiers.append(("empty", [total]))
    for kind, cuts in budget_tiers:
        found = _first_within(cuts, lambda i: _count(count, messages[i:]) <= max_tokens)
        if found is not None:
            return plan(kept_from=found, cut=kind, window_tokens=_count(count, messages[found:]))
    smallest = max(((i, kind) for kind, cuts in budget_tiers for i in cuts), default=None)
    if smallest is None:
        text = (
            f"the history counts {whole} tokens, over max_tokens={max_tokens}, and no cut keeps "
            f"{floor} recent message(s) without splitting a tool pair; nothing was summarized"
        )
        return plan(kept_from=0, window_tokens=whole, shortfall=Shortfall(reason="no_cut", text=text))
    at, kind = smallest
    tokens = _count(count, messages[at:])
    text = (
        f"the smallest window a cut leaves (messages {at}..{total - 1}, the latest tool pair kept) counts "
        f"{tokens} tokens, over max_tokens={max_tokens}"
    )
    shortfall = Shortfall(reason="over_budget", text=text, window_tokens=tokens, max_tokens=max_tokens)
    return plan(kept_from=at, cut=kind, window_tokens=tokens, shortfall=shortfall)


def _count(count: CountTokens, messages: Sequence[Message]) -> int:
    n = count(messages)
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise CompactionError(f"count_tokens must return a whole number >= 0, got {n!r}")
    return n


def _first_within(cuts: list[int], fits: Callable[[int], bool]) -> int | None:
    """The smallest cut whose window fits, by bisection: a later cut's window is a suffix of an earlier one's."""
    lo, hi = 0, len(cuts)
    while lo < hi:
        mid = (lo + hi) // 2
        if fits(cuts[mid]):
            hi = mid
        else:
            lo = mid + 1
    return cuts[lo] if lo < len(cuts) else None


def _check_budget(keep_recent: object, max_tokens: object) -> None:
    """``keep_recent`` a whole number >= 0, ``max_tokens`` one >= 1, at least one given (bools and floats refused)."""
    if keep_recent is None and max_tokens is None:
        raise CompactionError("give keep_recent (messages to keep), max_tokens (a token budget for them), or both")
    for name, value, least in (("keep_recent", keep_recent, 0), ("max_tokens", max_tokens, 1)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            unit = "messages" if name == "keep_recent" else "tokens"
            raise CompactionError(
                f"{name} must be a whole number of {unit} (an int >= {least}), got {value!r} "
                f"of type {type(value).__name__}"
            )
        if value < least:
            raise CompactionError(f"{name} must be >= {least}, got {value}")


def _cuts(messages: Sequence[Message], last: int, clean_only: bool) -> tuple[list[int], list[int]]:
    """The clean cuts and the turn cuts in ``1..last``, ascending (see "The window")."""
    needed = _calls_needed(messages)
    clean: list[int] = []
    turn: list[int] = []
    opener: str | None = None  # how the turn that opened the current tool loop begins
    for i in range(min(last, len(messages) - 1) + 1):
        m = messages[i]
        if is_clean_user_start(m):
            opener = None
        elif m.role == "assistant" and opener is None:
            opener = _first_kind(m)
        if i == 0 or needed[i] < i:
            continue
        if is_clean_user_start(m):
            clean.append(i)
        elif (
            not clean_only
            and m.role == "assistant"
            and messages[i - 1].role != "assistant"
            and _first_kind(m) == opener
        ):
            turn.append(i)
    return clean, turn


def _first_kind(m: Message) -> str:
    """The kind of a message's first block (an opaque block's own kind), ``""`` for none."""
    blocks = blocks_of(m)
    first = blocks[0] if blocks else None
    if first is None:
        return ""
    return first.kind if first.type == "opaque" else first.type


def _calls_needed(messages: Sequence[Message]) -> list[int]:
    """``needed[i]``: the index of the earliest message holding a tool call (client or server) that a
    result in ``messages[i:]`` answers (``len(messages)`` if none does).

    A cut before ``i`` keeps every tool pair whole exactly when ``needed[i] >= i``. A result
    answers the latest call of its id before it, as the API reads it; a result whose call
    comes nowhere before it is already an orphan and constrains nothing.
    """
    n = len(messages)
    needed = [n] * (n + 1)
    latest_call: dict[str, int] = {}
    latest_server_call: dict[str, int] = {}
    for k, m in enumerate(messages):
        for u in tool_uses_of(m):
            latest_call[u.id] = k
        for r in tool_results_of(m):
            if (at := latest_call.get(r.tool_use_id)) is not None and at < needed[k]:
                needed[k] = at
        for b in blocks_of(m):
            link = server_tool_link(b)
            if link is None:
                continue
            side, sid = link
            if side == "use":
                latest_server_call[sid] = k
            elif (at := latest_server_call.get(sid)) is not None and at < needed[k]:
                needed[k] = at
    for k in range(n - 1, -1, -1):
        needed[k] = min(needed[k], needed[k + 1])
    return needed


class ClearedResults(msgspec.Struct, frozen=True, kw_only=True):
    """What ``clear_tool_results`` returns: the messages, and the ``tool_use`` ids whose results it shortened."""

    messages: tuple[Message, ...]
    cleared: tuple[str, ...]


def clear_tool_results(
    messages: Sequence[Message],
    *,
    keep: int = 3,
    exclude_tools: Iterable[str] = (),
    max_tokens: int | None = None,
    count_tokens: CountTokens | None = None,
) -> ClearedResults:
    """Shorten old tool results to ``CLEARED_RESULT`` instead of dropping turns, oldest first.

    What the API's context editing (``clear_tool_uses_20250919``) and Claude Code do on the
    client's side: every turn stays, each call keeps its id and its result block (``is_error`` and
    extra fields too), only the output of an old result is replaced by a short note, so the history
    stays valid and the model still sees what it called. The ``keep`` latest results are never
    shortened, nor those of a tool named in ``exclude_tools``, nor one the note would not shorten
    (an output shorter than it, or one already cleared). With ``max_tokens``
    only as many results are shortened, oldest first, as bring the history within it (all of them
    when none is enough); without it, all but the ``keep`` latest. Tool inputs are left as they
    are (editing an assistant message is what this avoids).
    """
    _check_budget(keep, max_tokens)
    excluded = frozenset(exclude_tools)
    names = {u.id: u.name for m in messages for u in tool_uses_of(m)}
    found: list[tuple[int, ToolResultBlock]] = []
    for i, m in enumerate(messages):
        if m.role != "user":
            continue
        for r in tool_results_of(m):
            found.append((i, r))
    latest = found[len(found) - keep :] if keep else []
    keep_ids = {id(r) for _, r in latest}
    candidates = [
        (i, r) for i, r in found if id(r) not in keep_ids and names.get(r.tool_use_id) not in excluded and _shortens(r)
    ]

    def cleared(k: int) -> list[Message]:
        chosen = {id(r): r for _, r in candidates[:k]}
        at = {i for i, _ in candidates[:k]}
        return [
            user_msg([_cleared(chosen.get(id(b)), b) for b in blocks_of(m)]) if i in at else m
            for i, m in enumerate(messages)
        ]

    k = len(candidates)
    if max_tokens is not None:
        count = count_tokens or estimate_tokens
        k = _first_within(list(range(len(candidates) + 1)), lambda j: _count(count, cleared(j)) <= max_tokens) or k
        if _count(count, cleared(0)) <= max_tokens:
            k = 0
    return ClearedResults(messages=tuple(cleared(k)), cleared=tuple(r.tool_use_id for _, r in candidates[:k]))


def _shortens(result: ToolResultBlock) -> bool:
    """Whether ``CLEARED_RESULT`` in place of the result's output makes its JSON shorter (not for a short output)."""
    return len(to_json([user_msg([result])])) > len(to_json([user_msg([_cleared(result, result)])]))


def _cleared(result: ToolResultBlock | None, block: ContentBlock) -> ContentBlock:
    """``block``, or when it is the chosen ``result``, that result with its output shortened (id, flag, extras kept)."""
    return block if result is None else msgspec.structs.replace(result, content=CLEARED_RESULT)


def compact_with_provenance(
    messages: Sequence[Message],
    *,
    summarize: Summarizer,
    keep_recent: int | None = None,
    max_tokens: int | None = None,
    count_tokens: CountTokens | None = None,
    clear_results: int | None = None,
    exclude_tools: Iterable[str] = (),
    clean_only: bool = False,
    strict: bool = False,
    transcript: Callable[[Sequence[Message]], str] = transcript_of,
) -> Compaction:
    """Summarize all but a recent window that starts at a clean cut; say what was replaced and what fell short.

    ``keep_recent`` / ``max_tokens`` / ``count_tokens`` / ``clean_only``: see ``plan_compaction``.
    ``clear_results=N``: first shorten every tool result but the ``N`` latest (``clear_tool_results``,
    ``exclude_tools`` spared), only as many as bring the history within ``max_tokens`` when one is
    given; if that is enough nothing is summarized. The summary always reads the original messages.
    ``summarize`` is called once, on ``transcript(messages[:kept_from])`` (``transcript_of`` by default;
    ``functools.partial(transcript_of, result_limit=N)`` lets it read longer results), and only if something
    is to be summarized and that transcript has any text (a prefix of, say, only redacted thinking
    is replaced by a fixed note instead).

    When the plan falls short (``Compaction.shortfall``), the best history it could make is
    returned; with ``strict=True`` a ``CompactionBudgetError`` carrying it is raised instead.
    Raises ``CompactionError`` for a bad ``keep_recent``/``max_tokens`` or an empty summary.
    """
    working: Sequence[Message] = messages
    cleared: tuple[str, ...] = ()
    if clear_results is not None:
        done = clear_tool_results(
            messages, keep=clear_results, exclude_tools=exclude_tools, max_tokens=max_tokens, count_tokens=count_tokens
        )
        working, cleared = done.messages, done.cleared
    plan = plan_compaction(
        working, keep_recent=keep_recent, max_tokens=max_tokens, count_tokens=count_tokens, clean_only=clean_only
    )
    same = functools.partial(
        Compaction,
        original_len=plan.total,
        keep_recent=keep_recent,
        max_tokens=max_tokens,
        cut=plan.cut,
        window_tokens=plan.window_tokens,
        shortfall=plan.shortfall,
    )
    if not plan.summarizes:
        result = same(messages=tuple(working), summary="", replaced=(0, 0), kept_from=0, transcript="", cleared=cleared)
    else:
        text = transcript(messages[: plan.kept_from])
        summary = summarize_transcript(text, summarize) if text.strip() else _EMPTY_TRANSCRIPT_SUMMARY
        if not summary.strip():
            raise CompactionError(
                f"the summarizer returned an empty summary for messages 0..{plan.kept_from - 1}; "
                "refusing to replace them with nothing"
            )
        window = working[plan.kept_from :]
        in_window = {r.tool_use_id for m in window for r in tool_results_of(m)}
        result = same(
            messages=(summary_message(summary), *window),
            summary=summary,
            replaced=(0, plan.kept_from),
            kept_from=plan.kept_from,
            transcript=text,
            cleared=tuple(t for t in cleared if t in in_window),
        )
    if strict and result.shortfall is not None:
        raise CompactionBudgetError(result)
    return result


def compact(
    messages: Sequence[Message],
    *,
    summarize: Summarizer,
    keep_recent: int | None = None,
    max_tokens: int | None = None,
    count_tokens: CountTokens | None = None,
    clear_results: int | None = None,
    exclude_tools: Iterable[str] = (),
    clean_only: bool = False,
    strict: bool = False,
    transcript: Callable[[Sequence[Message]], str] = transcript_of,
) -> list[Message]:
    """``[summary, *window]``: the history with all but a recent, cleanly cut window summarized.

    The window starts at a clean user start when one serves, else before an assistant turn whose
    tool pairs all lie inside it (see the module docstring), so a valid history stays valid. The
    arguments are ``compact_with_provenance``'s. When it falls short of ``keep_recent`` or
    ``max_tokens`` it returns the best history it could and warns with a ``CompactionWarning``
    (``warnings.simplefilter("error", CompactionWarning)`` makes that an error; ``strict=True``
    raises ``CompactionBudgetError``). For the provenance, use ``compact_with_provenance``.
    """
    result = compact_with_provenance(
        messages,
        summarize=summarize,
        keep_recent=keep_recent,
        max_tokens=max_tokens,
        count_tokens=count_tokens,
        clear_results=clear_results,
        exclude_tools=exclude_tools,
        clean_only=clean_only,
        strict=strict,
        transcript=transcript,
    )
    if result.shortfall is not None:
        warnings.warn(str(result.shortfall), CompactionWarning, stacklevel=2)
    return list(result.messages)


# ---------------------------------------------------------------------------------------
# Repair
# ---------------------------------------------------------------------------------------

RepairKind: TypeAlias = Literal[
    "dropped_empty_message",
    "dropped_duplicate_message",
    "dropped_duplicate_tool_use",
    "dropped_orphan_result",
    "dropped_duplicate_result",
    "merged_split_results",
    "moved_results_first",
    "split_assistant_turn",
    "answered_dangling_call",
    "dropped_orphan_server_result",
]
"""The stable names of the changes ``repair`` can make."""


class RepairNote(msgspec.Struct, frozen=True, kw_only=True):
    """One change ``repair`` made.

    ``kind`` is stable (see ``RepairKind``); ``index`` is the index in the *input* of the
    message concerned (for an inserted answer, the assistant message holding the calls it
    answers); ``ids`` the tool-use ids involved; ``text`` says it for a person.
    """

    kind: RepairKind
    index: int
    ids: tuple[str, ...] = ()
    text: str = ""

    def __str__(self) -> str:
        return self.text


_Item: TypeAlias = tuple[int, Message]


def _has_tool_blocks(m: Message) -> bool:
    # TODO(message.py): candidate reader (`has_tool_blocks`)
    return bool(tool_uses_of(m)) or bool(tool_results_of(m))


def _ids(ids: Sequence[str]) -> str:
    return ", ".join(ids)


def _subturns(group: list[_Item]) -> list[list[_Item]]:
    """Split consecutive assistant messages where the API's merged turn would have content after a call.

    The API merges consecutive assistant messages into one turn, whose tool calls must all
    be in its trailing run of ``tool_use`` blocks. A message with any other block that
    follows a message with a call starts a new sub-turn; the calls before it are answered
    between the two.
    """
    subs: list[list[_Item]] = []
    current: list[_Item] = []
    has_call = False
    for item in group:
        blocks = blocks_of(item[1])
        if has_call and any(b.type != "tool_use" for b in blocks):
            subs.append(current)
            current, has_call = [], False
        current.append(item)
        has_call = has_call or any(b.type == "tool_use" for b in blocks)
    if current:
        subs.append(current)
    return subs


class _Repairer:
    """The state of one left-to-right pass; see ``repair``."""

    def __init__(self) -> None:
        self.notes: list[RepairNote] = []
        self.seen_use_ids: set[str] = set()
        self.seen_server_ids: set[str] = set()

    def note(self, kind: RepairKind, index: int, ids: Sequence[str], text: str) -> None:
        self.notes.append(RepairNote(kind=kind, index=index, ids=tuple(ids), text=text))

    def without_orphan_server_results(self, index: int, m: Message) -> Message:
        """The message without server results whose server call is nowhere before them (a message may be left empty).

        Reads and records the server calls too, in conversation order, as ``validate`` does.
        """
        if m.role == "system":  # server blocks never belong here: validate reports them, repair leaves them
            return m
        blocks = blocks_of(m)
        kept: list[ContentBlock] = []
        dropped: list[str] = []
        for b in blocks:
            link = server_tool_link(b)
            if link is not None:
                side, sid = link
                if side == "use":
                    self.seen_server_ids.add(sid)
                elif sid not in self.seen_server_ids:
                    dropped.append(sid)
                    continue
            kept.append(b)
        if not dropped:
            return m
        self.note(
            "dropped_orphan_server_result",
            index,
            dropped,
            f"message {index}: dropped the server result(s) for {_ids(dropped)}: "
            "no server tool call with that id precedes them",
        )
        return assistant_msg(kept) if m.role == "assistant" else user_msg(kept)

    def without_duplicate_calls(self, index: int, m: Message) -> Message | None:
        """The assistant message without calls whose id was used before (``None`` if nothing is left)."""
        if is_plain_text(m):
            return m
        kept: list[ContentBlock] = []
        dropped: list[str] = []
        for b in blocks_of(m):
            if b.type == "tool_use":
                if b.id in self.seen_use_ids:
                    dropped.append(b.id)
                    continue
                self.seen_use_ids.add(b.id)
            kept.append(b)
        if not dropped:
            return m
        self.note(
            "dropped_duplicate_tool_use",
            index,
            dropped,
            f"message {index}: dropped tool call(s) {_ids(dropped)}, whose id an earlier tool call already has",
        )
        if not kept:
            self.note("dropped_empty_message", index, dropped, f"message {index}: dropped, it held only those calls")
            return None
        return assistant_msg(kept)

    def interrupted(self, missing: list[str], where: dict[str, int]) -> list[ToolResultBlock]:
        """Error results for calls nobody answered, one note per assistant message holding them."""
        by_message: dict[int, list[str]] = {}
        for tid in missing:
            by_message.setdefault(where[tid], []).append(tid)
        for index, ids in by_message.items():
            self.note(
                "answered_dangling_call",
                index,
                ids,
                f"message {index}: tool call(s) {_ids(ids)} had no result; "
                f"answered with an error result {INTERRUPTED_RESULT!r}",
            )
        return [tool_result_block(tid, INTERRUPTED_RESULT, is_error=True) for tid in missing]

    def turn(self, group: list[_Item], run: list[_Item]) -> list[Message]:
        """One assistant turn (consecutive assistant messages, maybe none) and the user messages after it."""
        subs = _subturns([(i, m2) for i, m in group if (m2 := self.without_duplicate_calls(i, m)) is not None])
        last = len(subs) - 1
        owner: dict[str, int] = {}  # tool-use id -> sub-turn
        where: dict[str, int] = {}  # tool-use id -> input index of its assistant message
        for s, sub in enumerate(subs):
            for i, m in sub:
                for u in tool_uses_of(m):
                    owner[u.id] = s
                    where[u.id] = i

        answered: set[str] = set()
        in_place: list[ToolResultBlock] = []  # results of the last sub-turn already in the first user message
        moved: list[list[ToolResultBlock]] = [[] for _ in subs]  # results to move to a sub-turn's answer
        rest: list[tuple[int, Message, list[ContentBlock], bool]] = []  # (index, original, kept, changed)
        for pos, (index, m) in enumerate(run):
            if is_plain_text(m) or m.role == "system":  # a system message answers nothing: kept as it is
                rest.append((index, m, [], False))
                continue
            kept: list[ContentBlock] = []
            changed = False
            for b in blocks_of(m):
                if b.type != "tool_result":
                    kept.append(b)
                    continue
                tid = b.tool_use_id
                sub_turn = owner.get(tid)
                if sub_turn is None:
                    changed = True
                    why = (
                        "no tool call with that id precedes it"
                        if tid not in self.seen_use_ids
                        else ("its call belongs to an earlier turn")
                    )
                    self.note(
                        "dropped_orphan_result", index, [tid], f"message {index}: dropped the result for {tid}: {why}"
                    )
                elif tid in answered:
                    changed = True
                    self.note(
                        "dropped_duplicate_result", index, [tid], f"message {index}: dropped a second result for {tid}"
                    )
                else:
                    answered.add(tid)
                    if sub_turn == last and pos == 0:
                        in_place.append(b)
                        kept.append(b)
                    else:
                        changed = True
                        moved[sub_turn].append(b)
            rest.append((index, m, kept, changed))

        out: list[Message] = []
        first_used = False
        for s, sub in enumerate(subs):
            out.extend(m for _, m in sub)
            ids = [u.id for _, m in sub for u in tool_uses_of(m)]
            if not ids:
                continue
            missing = [tid for tid in ids if tid not in answered]
            if s < last:
                after, nxt = sub[-1][0], subs[s + 1][0][0]
                self.note(
                    "split_assistant_turn",
                    after,
                    ids,
                    f"message {after}: the API reads messages {sub[0][0]}..{subs[-1][-1][0]} as one assistant turn, "
                    f"and message {nxt} has content after the call(s) {_ids(ids)}; "
                    f"their results now sit between messages {after} and {nxt}",
                )
                out.append(tool_result_msg([*moved[s], *self.interrupted(missing, where)]))
                continue
            interrupted = self.interrupted(missing, where)
            moved_up = moved[s]
            if in_place:
                # The first user message already answers: put every result at its front.
                index, m, kept, changed = rest[0]
                others = [b for b in kept if b.type != "tool_result"]
                results_first = all(b.type == "tool_result" for b in kept[: len(in_place)])
                if not results_first:
                    self.note(
                        "moved_results_first",
                        index,
                        [r.tool_use_id for r in in_place],
                        f"message {index}: moved the tool results before the other content",
                    )
                if moved_up:
                    self.note(
                        "merged_split_results",
                        index,
                        [r.tool_use_id for r in moved_up],
                        f"message {index}: moved the result(s) for {_ids([r.tool_use_id for r in moved_up])} "
                        "here from a later user message, next to the other results of the same turn",
                    )
                if changed or moved_up or interrupted or not results_first:
                    out.append(user_msg([*in_place, *moved_up, *interrupted, *others]))
                else:
                    out.append(m)
                first_used = True
            else:
                # Nothing answers at the front: a new results message goes right after the calls.
                if moved_up:
                    self.note(
                        "moved_results_first",
                        rest[0][0],
                        [r.tool_use_id for r in moved_up],
                        f"message {rest[0][0]}: the result(s) for {_ids([r.tool_use_id for r in moved_up])} "
                        "came after other user content; moved them into a results message right after the calls",
                    )
                out.append(tool_result_msg([*moved_up, *interrupted]))
        for pos, (index, m, kept, changed) in enumerate(rest):
            if pos == 0 and first_used:
                continue
            if not changed:
                out.append(m)
            elif kept:
                out.append(user_msg(kept) if m.role == "user" else assistant_msg(kept))
            else:
                self.note("dropped_empty_message", index, [], f"message {index}: dropped, nothing was left in it")
        return out


def repair(messages: Sequence[Message]) -> tuple[list[Message], list[RepairNote]]:
    """Make a broken history acceptable to the API again and report every change.

    A *history* (a list of messages): not to be confused with ``msgmodel.core.storage.repair(path)``,
    which cuts the torn last line off a session *file* and never looks at tool pairing.

    Returns the repaired history and one ``RepairNote`` per change, in order. A valid
    history comes back equal, with no notes; repairing twice changes nothing more.
    Thinking blocks are never touched and assistant messages never merged. See the module
    docstring for the exact list of repairs and what is out of scope.
    """
    r = _Repairer()
    items: list[_Item] = []
    for i, m in enumerate(messages):
        if not blocks_of(m):
            r.note("dropped_empty_message", i, [], f"message {i}: dropped, its content is empty")
            continue
        m = r.without_orphan_server_results(i, m)
        if not blocks_of(m):
            r.note("dropped_empty_message", i, [], f"message {i}: dropped, nothing was left in it")
            continue
        if items and _has_tool_blocks(m) and items[-1][1] == m:
            ids = [u.id for u in tool_uses_of(m)] or [t.tool_use_id for t in tool_results_of(m)]
            r.note(
                "dropped_duplicate_message", i, ids, f"message {i}: dropped, it repeats message {items[-1][0]} exactly"
            )
            continue
        items.append((i, m))

    out: list[Message] = []
    k = 0
    while k < len(items):
        j = k
        while j < len(items) and items[j][1].role == "assistant":
            j += 1
        end = j
        while end < len(items) and items[end][1].role != "assistant":  # user and system messages
            end += 1
        out.extend(r.turn(items[k:j], items[j:end]))
        k = end
    return out, r.notes
