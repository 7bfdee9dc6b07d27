"""Compaction of a long history, and the explicit repair of a broken one.

This module owns two operations on a whole conversation:

``compact(messages, *, keep_recent, summarize) -> list[Message]``
    Keeps a recent *window* of the history verbatim and replaces everything before it
    with one summary message. ``compact_with_provenance`` returns the same history as a
    ``Compaction`` that also records, as data, which messages the summary replaced;
    ``plan_compaction`` computes the cut without summarizing anything.

``repair(messages) -> (messages, notes)``
    Makes a broken history acceptable to the API again and reports every change it made
    as a ``RepairNote``. It is never applied implicitly (``compact`` does not call it).
    (``msgmodel.core.storage.repair(path)`` is another operation on another thing: it cuts a
    torn last line off a session file.)

The window (the step-29 fix)
    The window is the *shortest suffix of at least ``keep_recent`` messages that starts at
    a clean cut*. A cut before index ``i`` is clean when ``messages[i]`` is a clean user
    start (``is_clean_user_start``: a user turn that answers no tool call), or when
    ``i == len(messages)`` (the empty window, chosen only for ``keep_recent == 0``).

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
    position, the earliest call the rest of the history still needs).
    Hence: if ``validate(h) == []`` then ``validate(compact(h, ...)) == []``;
    ``tests/test_compact_properties.py`` checks this for every ``keep_recent`` of every
    generated history.

    Edge cases, exactly:

    * ``keep_recent == 0``: the window is empty and everything is summarized.
    * ``keep_recent >= len(messages)``: nothing is summarized; the history comes back
      unchanged (``summarize`` is not called).
    * no clean cut in ``messages[1 : len(messages) - keep_recent + 1]`` (one long
      tool loop since the first prompt, or a server call whose result comes much later):
      no cut can keep ``keep_recent`` messages without splitting a tool pair, so nothing
      is summarized and the history comes back unchanged. ``Compaction.summarized`` is
      then ``False``; a caller that must shrink the history can ask again with a smaller
      ``keep_recent`` (``0`` always cuts).

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

from collections.abc import Callable, Sequence
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
    tool_result_block,
    tool_result_msg,
    tool_results_of,
    tool_uses_of,
    transcript_of,
    user_msg,
    user_text,
)

__all__ = [
    "INTERRUPTED_RESULT",
    "SUMMARY_FRAMING",
    "SUMMARY_INSTRUCTIONS",
    "SUMMARY_MAX_TOKENS",
    "SUMMARY_MODEL",
    "Compaction",
    "CompactionError",
    "CompactionPlan",
    "MessagesClient",
    "RepairKind",
    "RepairNote",
    "Summarizer",
    "compact",
    "compact_with_provenance",
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


class CompactionPlan(msgspec.Struct, frozen=True, kw_only=True):
    """Where a compaction cuts: ``messages[:kept_from]`` is summarized, ``messages[kept_from:]`` kept.

    ``kept_from == 0`` means nothing is summarized; ``kept_from == total`` means the
    window is empty (``keep_recent == 0``).
    """

    kept_from: int
    total: int
    keep_recent: int

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
    input unchanged when nothing was summarized. ``replaced`` is the half-open range
    ``(start, stop)`` of input indices the summary stands for (``(0, 0)`` if none);
    ``kept_from`` is the input index of the window's first message (``original_len``
    for an empty window). ``transcript`` is exactly what the summarizer read.
    """

    messages: tuple[Message, ...]
    summary: str
    replaced: tuple[int, int]
    kept_from: int
    original_len: int
    keep_recent: int
    transcript: str

    @property
    def summarized(self) -> bool:
        """Whether a summary replaced anything."""
        return self.replaced[1] > self.replaced[0]

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


def plan_compaction(messages: Sequence[Message], *, keep_recent: int) -> CompactionPlan:
    """Choose the cut: the shortest suffix of ≥ ``keep_recent`` messages that starts at a clean cut.

    See the module docstring for the rule and its edge cases. Pure: nothing is summarized.
    """
    _check_keep_recent(keep_recent)
    total = len(messages)
    kept_from = 0
    if keep_recent == 0:
        kept_from = total
    elif keep_recent < total:
        needed = _server_calls_needed(messages)
        for i in range(total - keep_recent, 0, -1):
            if is_clean_user_start(messages[i]) and needed[i] >= i:
                kept_from = i
                break
    return CompactionPlan(kept_from=kept_from, total=total, keep_recent=keep_recent)


def _check_keep_recent(keep_recent: object) -> None:
    """``keep_recent`` must be a whole number >= 0 (a ``bool`` or a float such as ``2.0`` or NaN is refused)."""
    if isinstance(keep_recent, bool) or not isinstance(keep_recent, int):
        raise CompactionError(
            f"keep_recent must be a whole number of messages (an int >= 0), got {keep_recent!r} "
            f"of type {type(keep_recent).__name__}"
        )
    if keep_recent < 0:
        raise CompactionError(f"keep_recent must be >= 0, got {keep_recent}")


def _server_calls_needed(messages: Sequence[Message]) -> list[int]:
    """``needed[i]``: the index of the earliest message holding a server tool call that a server
    result in ``messages[i:]`` answers (``len(messages)`` if none does).

    A cut before ``i`` keeps every server pair whole exactly when ``needed[i] >= i``. A
    result answers the latest call of its id before it, as the API reads it; a result
    whose call comes nowhere before it is already an orphan and constrains nothing.
    """
    n = len(messages)
    needed = [n] * (n + 1)
    latest_call: dict[str, int] = {}
    for k, m in enumerate(messages):
        for b in blocks_of(m):
            link = server_tool_link(b)
            if link is None:
                continue
            side, sid = link
            if side == "use":
                latest_call[sid] = k
            elif (at := latest_call.get(sid)) is not None and at < needed[k]:
                needed[k] = at
    for k in range(n - 1, -1, -1):
        needed[k] = min(needed[k], needed[k + 1])
    return needed


def compact_with_provenance(messages: Sequence[Message], *, keep_recent: int, summarize: Summarizer) -> Compaction:
    """Summarize all but a recent window that starts at a clean user start; say what was replaced.

    ``summarize`` is called once, on ``transcript_of(messages[:kept_from])``, and only if
    something is to be summarized and that transcript has any text (a prefix of, say,
    only redacted thinking is replaced by a fixed note instead). Raises
    ``CompactionError`` if ``keep_recent < 0`` or the summary is empty.
    """
    plan = plan_compaction(messages, keep_recent=keep_recent)
    if not plan.summarizes:
        return Compaction(
            messages=tuple(messages),
            summary="",
            replaced=(0, 0),
            kept_from=0,
            original_len=plan.total,
            keep_recent=keep_recent,
            transcript="",
        )
    transcript = transcript_of(messages[: plan.kept_from])
    summary = summarize_transcript(transcript, summarize) if transcript.strip() else _EMPTY_TRANSCRIPT_SUMMARY
    if not summary.strip():
        raise CompactionError(
            f"the summarizer returned an empty summary for messages 0..{plan.kept_from - 1}; "
            "refusing to replace them with nothing"
        )
    return Compaction(
        messages=(summary_message(summary), *messages[plan.kept_from :]),
        summary=summary,
        replaced=(0, plan.kept_from),
        kept_from=plan.kept_from,
        original_len=plan.total,
        keep_recent=keep_recent,
        transcript=transcript,
    )


def compact(messages: Sequence[Message], *, keep_recent: int, summarize: Summarizer) -> list[Message]:
    """``[summary, *window]``: the history with all but a recent, cleanly cut window summarized.

    The window is the shortest suffix of at least ``keep_recent`` messages starting at a
    clean user start (so no tool pair is split); see the module docstring for the exact
    rule. A valid history stays valid. For the provenance, use ``compact_with_provenance``.
    """
    return list(compact_with_provenance(messages, keep_recent=keep_recent, summarize=summarize).messages)


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
