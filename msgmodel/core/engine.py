"""The agent loop (the original step-31 tutorial's ``QueryEngine``), built only from constructors and readers.

This module owns one conversation with a model that may call tools:

    send the history (``to_api``) → append ``assistant_msg(blocks_from_api(resp.content))``
    → run each ``tool_uses_of(reply)`` through the registry (``run_tool``)
    → append ``tool_result_msg([...])`` → repeat until the reply calls no tool
    (or ``max_turns`` model calls), compacting the history (``msgmodel.core.compact.compact``)
    whenever it outgrows its budget.

Nothing here writes a block by hand or walks ``.content``: shapes are ``message.py``'s.

Three ways to drive a turn, one implementation
    =========================== ====================================================
    ``engine.events(prompt)``   a plain iterator of events (the core);
    ``engine.run(prompt)``      the same events as an async generator (``async for ev in ...``,
                                the original tutorial's step-32 preview); each step runs in a worker
                                thread, so a blocking client does not block the event loop;
    ``engine.run_sync(prompt)`` runs the turn to its end and returns a ``TurnResult`` (for
                                notebooks, where an event loop is already running).
    =========================== ====================================================

    ``Callbacks`` (step 30's "set of callbacks", here a frozen struct of optional callables) are called
    with each event as it is delivered, whichever way the turn is driven.

The events, and their law
    ``TurnStarted`` (the user's prompt message), ``AssistantMessage`` (a reply),
    ``ToolCalled`` / ``ToolResulted`` (one per ``tool_use``), ``Compacted`` (the whole new
    history), ``TurnEnded`` (why, and the final text). For every turn run to its end::

        fold_events(events, history_before) == engine.history

    so without compaction ``fold_events(events)`` is exactly the messages the turn
    appended; ``ToolResulted`` events that follow one reply fold into one
    ``tool_result_msg``.

Interruption keeps the history valid: when a turn is abandoned between a reply and the
end of its tool round (the consumer stops iterating, or a tool is interrupted), every
unanswered ``tool_use`` is answered with an ``is_error`` result saying so, so the next
request cannot fail on a dangling ``tool_use``.

The client is anything with ``.messages.create(model=..., max_tokens=..., messages=...,
tools=...)`` returning an object with ``.content`` (and ``.stop_reason``): the official
``anthropic.Anthropic`` or ``msgmodel.api.local_client()``. API errors (e.g.
``anthropic.BadRequestError``) propagate unchanged. ``tools`` is a ``ToolRegistry``
(``msgmodel.core.tools``; none by default; ``msgmodel.api.demo_registry()`` is the demo set).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias, assert_never

from msgmodel.core.compact import MessagesClient, compact_with_provenance, summarizer_from_client
from msgmodel.core.message import (
    Message,
    ToolResultBlock,
    ToolUseBlock,
    assistant_msg,
    blocks_from_api,
    text_of,
    to_api,
    to_json,
    tool_result_block,
    tool_result_msg,
    tool_uses_of,
    user_text,
)
from msgmodel.core.tools import ToolRegistry, run_tool, tools_param

__all__ = [
    "DEFAULT_MODEL",
    "AssistantMessage",
    "Callbacks",
    "Compacted",
    "EngineConfig",
    "Event",
    "MessagesClient",
    "QueryEngine",
    "ToolCalled",
    "ToolResulted",
    "TurnEnded",
    "TurnResult",
    "TurnStarted",
    "fold_events",
    "notify",
]

DEFAULT_MODEL: Final = "claude-sonnet-4-6"
INTERRUPTED: Final = "interrupted: the turn was abandoned before this tool ran"


@dataclass(frozen=True)
class EngineConfig:
    """The knobs of the loop.

    ``max_turns`` bounds the model calls of one prompt. The history is compacted before a
    model call when it holds more than ``compact_at_messages`` messages or its JSON is
    longer than ``compact_at_chars`` (``None`` turns a budget off); ``keep_recent`` is
    passed to ``compact``.
    """

    model: str = DEFAULT_MODEL
    max_tokens: int = 1024
    max_turns: int = 16
    system: str | None = None
    compact_at_messages: int | None = 40
    compact_at_chars: int | None = None
    keep_recent: int = 8

    def __post_init__(self) -> None:
        if self.max_turns < 1:
            raise ValueError(f"EngineConfig.max_turns must be at least 1, got {self.max_turns}")
        if self.keep_recent < 1:
            raise ValueError(f"EngineConfig.keep_recent must be at least 1, got {self.keep_recent}")
        if self.compact_at_messages is not None and self.compact_at_messages <= self.keep_recent:
            raise ValueError(
                f"EngineConfig.compact_at_messages ({self.compact_at_messages}) must exceed "
                f"keep_recent ({self.keep_recent}), or compaction could never shrink the history"
            )


# ---------------------------------------------------------------------------------------
# Events
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnStarted:
    """A turn began: ``message`` (the user's prompt) was appended to the history."""

    turn: int
    message: Message


@dataclass(frozen=True)
class AssistantMessage:
    """The model replied; ``message`` was appended. ``call`` counts the model calls of the turn from 0."""

    turn: int
    call: int
    message: Message
    stop_reason: str | None = None


@dataclass(frozen=True)
class ToolCalled:
    """A ``tool_use`` of the last reply is about to run."""

    turn: int
    call: ToolUseBlock


@dataclass(frozen=True)
class ToolResulted:
    """A tool ran. The results following one reply are appended together as one ``tool_result_msg``."""

    turn: int
    result: ToolResultBlock


@dataclass(frozen=True)
class Compacted:
    """The history was compacted from ``before`` to ``after`` messages; ``messages`` is the new history."""

    turn: int
    before: int
    after: int
    messages: tuple[Message, ...]


@dataclass(frozen=True)
class TurnEnded:
    """The turn is over: the model answered without tools (``end_turn``) or ``max_turns`` ran out."""

    turn: int
    reason: Literal["end_turn", "max_turns"]
    text: str
    model_calls: int


Event: TypeAlias = TurnStarted | AssistantMessage | ToolCalled | ToolResulted | Compacted | TurnEnded
"""Everything a turn reports, in order."""


def fold_events(events: Iterable[Event], history: Iterable[Message] = ()) -> list[Message]:
    """The history the events describe, starting from ``history``.

    ``TurnStarted`` and ``AssistantMessage`` append their message, the ``ToolResulted``
    events after a reply append one ``tool_result_msg`` of their results, ``Compacted``
    replaces everything so far with its messages. See the module docstring for the law.
    """
    out = list(history)
    pending: list[ToolResultBlock] = []
    for ev in events:
        if isinstance(ev, ToolResulted):
            pending.append(ev.result)
            continue
        if isinstance(ev, ToolCalled):
            continue
        if pending:
            out.append(tool_result_msg(pending))
            pending = []
        match ev:
            case TurnStarted() | AssistantMessage():
                out.append(ev.message)
            case Compacted():
                out = list(ev.messages)
            case TurnEnded():
                pass
            case _:
                assert_never(ev)
    if pending:
        out.append(tool_result_msg(pending))
    return out


# ---------------------------------------------------------------------------------------
# Callbacks
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Callbacks:
    """Optional listeners, one per event kind (the step-30 design). Each gets the event."""

    on_turn_start: Callable[[TurnStarted], None] | None = None
    on_assistant: Callable[[AssistantMessage], None] | None = None
    on_tool_call: Callable[[ToolCalled], None] | None = None
    on_tool_result: Callable[[ToolResulted], None] | None = None
    on_compact: Callable[[Compacted], None] | None = None
    on_turn_end: Callable[[TurnEnded], None] | None = None


def notify(callbacks: Callbacks, event: Event) -> None:
    """Call the listener of ``event``'s kind, if there is one."""
    match event:
        case TurnStarted():
            if callbacks.on_turn_start is not None:
                callbacks.on_turn_start(event)
        case AssistantMessage():
            if callbacks.on_assistant is not None:
                callbacks.on_assistant(event)
        case ToolCalled():
            if callbacks.on_tool_call is not None:
                callbacks.on_tool_call(event)
        case ToolResulted():
            if callbacks.on_tool_result is not None:
                callbacks.on_tool_result(event)
        case Compacted():
            if callbacks.on_compact is not None:
                callbacks.on_compact(event)
        case TurnEnded():
            if callbacks.on_turn_end is not None:
                callbacks.on_turn_end(event)
        case _:
            assert_never(event)


@dataclass(frozen=True)
class TurnResult:
    """What ``run_sync`` returns: the turn's events, how it ended and its final text."""

    events: tuple[Event, ...]

    @property
    def ended(self) -> TurnEnded:
        last = self.events[-1]
        if not isinstance(last, TurnEnded):
            raise ValueError("the turn did not end")
        return last

    @property
    def text(self) -> str:
        """The final reply's text (empty when ``max_turns`` ran out)."""
        return self.ended.text

    @property
    def tool_calls(self) -> list[ToolUseBlock]:
        return [ev.call for ev in self.events if isinstance(ev, ToolCalled)]


# ---------------------------------------------------------------------------------------
# The engine
# ---------------------------------------------------------------------------------------

Summarizer: TypeAlias = Callable[[str], str]


@dataclass
class _Counters:
    turns: int = 0
    model_calls: int = 0
    compactions: int = 0


class QueryEngine:
    """One conversation with a tool-using model. See the module docstring.

    ``summarize`` is handed to ``compact``: a function of the transcript text; by default
    ``compact.summarizer_from_client(client, model=config.model)`` asks the same model.
    ``history`` seeds the conversation (e.g. one loaded from storage).
    """

    def __init__(
        self,
        client: MessagesClient,
        *,
        tools: ToolRegistry | None = None,
        config: EngineConfig | None = None,
        callbacks: Callbacks | None = None,
        summarize: Summarizer | None = None,
        history: Iterable[Message] = (),
    ) -> None:
        self.client = client
        self.tools = ToolRegistry(()) if tools is None else tools
        self.config = EngineConfig() if config is None else config
        self.callbacks = Callbacks() if callbacks is None else callbacks
        self.summarize = summarize
        self._history: list[Message] = list(history)
        self._counters = _Counters()

    @property
    def history(self) -> tuple[Message, ...]:
        """The conversation so far (a snapshot)."""
        return tuple(self._history)

    @property
    def turns(self) -> int:
        """How many prompts were started."""
        return self._counters.turns

    @property
    def model_calls(self) -> int:
        return self._counters.model_calls

    @property
    def compactions(self) -> int:
        return self._counters.compactions

    # -- the three drivers ------------------------------------------------------------

    def events(self, prompt: str) -> Iterator[Event]:
        """Run one turn, yielding its events (and calling the callbacks) as they happen."""
        steps = self._steps(prompt)
        try:
            for ev in steps:
                notify(self.callbacks, ev)
                yield ev
        finally:
            steps.close()  # answers any tool call left open (see _run_tools)

    async def run(self, prompt: str) -> AsyncIterator[Event]:
        """Run one turn as an async event stream; blocking work runs in a worker thread."""
        steps = self._steps(prompt)
        try:
            while (ev := await asyncio.to_thread(_next_or_none, steps)) is not None:
                notify(self.callbacks, ev)
                yield ev
        finally:
            # Closing answers any tool call left open (see _run_tools). ValueError: cancelled
            # while a worker thread is still inside the step; it closes when collected.
            with contextlib.suppress(ValueError):
                steps.close()

    def run_sync(self, prompt: str) -> TurnResult:
        """Run one turn to its end and return its events."""
        return TurnResult(tuple(self.events(prompt)))

    # -- the loop -----------------------------------------------------------------------

    def _steps(self, prompt: str) -> Generator[Event, None, None]:
        turn = self._counters.turns
        self._counters.turns += 1
        message = user_text(prompt)
        self._history.append(message)
        yield TurnStarted(turn, message)
        for call in range(self.config.max_turns):
            compacted = self._maybe_compact(turn)
            if compacted is not None:
                yield compacted
            reply, stop_reason = self._ask()
            self._history.append(reply)
            yield AssistantMessage(turn, call, reply, stop_reason)
            uses = tool_uses_of(reply)
            if not uses:
                yield TurnEnded(turn, "end_turn", text_of(reply), call + 1)
                return
            yield from self._run_tools(turn, uses)
        yield TurnEnded(turn, "max_turns", "", self.config.max_turns)

    def _run_tools(self, turn: int, uses: Sequence[ToolUseBlock]) -> Generator[Event, None, None]:
        results: list[ToolResultBlock] = []
        try:
            for use in uses:
                yield ToolCalled(turn, use)
                result = run_tool(self.tools, use)
                results.append(result)
                yield ToolResulted(turn, result)
        finally:
            # Always answer every call, even when the turn is abandoned half-way: a
            # tool_use without its tool_result would make the next request a 400.
            answered = {r.tool_use_id for r in results}
            results.extend(tool_result_block(u.id, INTERRUPTED, is_error=True) for u in uses if u.id not in answered)
            self._history.append(tool_result_msg(results))

    def _ask(self) -> tuple[Message, str | None]:
        cfg = self.config
        request: dict[str, Any] = {"model": cfg.model, "max_tokens": cfg.max_tokens, "messages": to_api(self._history)}
        if len(self.tools):
            request["tools"] = tools_param(self.tools)
        if cfg.system is not None:
            request["system"] = cfg.system
        self._counters.model_calls += 1
        response = self.client.messages.create(**request)
        stop_reason = getattr(response, "stop_reason", None)
        return assistant_msg(blocks_from_api(response.content, path="response.content")), (
            stop_reason if isinstance(stop_reason, str) else None
        )

    def _over_budget(self) -> bool:
        cfg = self.config
        if cfg.compact_at_messages is not None and len(self._history) > cfg.compact_at_messages:
            return True
        return cfg.compact_at_chars is not None and len(to_json(self._history)) > cfg.compact_at_chars

    def _maybe_compact(self, turn: int) -> Compacted | None:
        if not self._over_budget():
            return None
        before = len(self._history)
        summarize = self.summarize or summarizer_from_client(self.client, model=self.config.model)
        # With provenance, not compact(): a history that cannot be cut yet is not worth a warning
        # on every turn; it stays as it is until a later turn gives a cut.
        new = list(
            compact_with_provenance(self._history, keep_recent=self.config.keep_recent, summarize=summarize).messages
        )
        if new == self._history:
            return None
        self._history = list(new)
        self._counters.compactions += 1
        return Compacted(turn, before, len(new), tuple(new))


def _next_or_none(steps: Generator[Event, None, None]) -> Event | None:
    return next(steps, None)
