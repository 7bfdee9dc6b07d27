"""The rebuilt agent loop: its events, their fold law, callbacks, compaction, interruption.

A fake client stands in for the model here (a flat script of decisions: answer in text, or
call these tools); ``tests/test_end_to_end.py`` drives the same engine through the official
SDK and the local API.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from msgmodel.api.demo_tools import demo_registry
from msgmodel.core.engine import (
    INTERRUPTED,
    AssistantMessage,
    Callbacks,
    Compacted,
    EngineConfig,
    Event,
    QueryEngine,
    ToolCalled,
    ToolResulted,
    TurnEnded,
    TurnStarted,
    fold_events,
)
from msgmodel.core.message import (
    Message,
    from_api,
    text_of,
    to_json,
    tool_result_msg,
    tool_results_of,
    tool_uses_of,
    user_text,
)
from msgmodel.core.protocol import validate

# The calls a scripted reply may make: (tool, input, fails?)
CALLS: list[tuple[str, dict[str, Any], bool]] = [
    ("read_file", {"path": "src/app.py"}, False),
    ("read_file", {"path": "src/missing.py"}, True),
    ("calculator", {"expression": "6 * 7"}, False),
    ("calculator", {"expression": "x + 1"}, True),
    ("list_dir", {"path": "."}, False),
    ("grep", {"pattern": "("}, True),
    ("no_such_tool", {}, True),
]

Decision = list[int] | None  # None: answer in text; else: call CALLS[i] for each i


@dataclass
class FakeClient:
    """``.messages.create(**request)`` playing a flat script of decisions, then text forever."""

    decisions: list[Decision]
    requests: list[dict[str, Any]] = field(default_factory=list)
    next_id: int = 0

    @property
    def messages(self) -> FakeClient:
        return self

    def create(self, **request: Any) -> SimpleNamespace:
        self.requests.append(request)
        if "tools" not in request:  # a summarizer call
            return SimpleNamespace(content=[{"type": "text", "text": "a summary"}], stop_reason="end_turn")
        decision = self.decisions.pop(0) if self.decisions else None
        if decision is None:
            return SimpleNamespace(
                content=[{"type": "text", "text": f"answer {len(self.requests)}"}], stop_reason="end_turn"
            )
        blocks: list[dict[str, Any]] = [{"type": "text", "text": "Let me look."}]
        for i in decision:
            name, args, _ = CALLS[i]
            blocks.append({"type": "tool_use", "id": f"toolu_{self.next_id:04d}", "name": name, "input": dict(args)})
            self.next_id += 1
        return SimpleNamespace(content=blocks, stop_reason="tool_use")


PREFILL_MODEL = "claude-haiku-4-5"  # a model that accepts a final assistant message


def assert_valid(history: Sequence[Message]) -> None:
    """The history is a conversation the API accepts: as it stands (for a model that allows a
    final assistant message) and as the start of the next request (for today's models)."""
    assert validate(list(history), model=PREFILL_MODEL) == []
    assert validate([*history, user_text("next prompt")]) == []


def summarize(transcript: str) -> str:
    return f"summary of {len(transcript)} characters"


def engine_for(decisions: Sequence[Decision], config: EngineConfig | None = None, **kwargs: Any) -> QueryEngine:
    kwargs.setdefault("tools", demo_registry())
    return QueryEngine(FakeClient(list(decisions)), config=config, summarize=summarize, **kwargs)


def check_turn_grammar(events: Sequence[Event], max_turns: int) -> None:
    """The shape of one turn's events, independent of the fold."""
    assert isinstance(events[0], TurnStarted)
    assert isinstance(events[-1], TurnEnded)
    assert sum(isinstance(e, (TurnStarted, TurnEnded)) for e in events) == 2
    replies = [e for e in events if isinstance(e, AssistantMessage)]
    assert [r.call for r in replies] == list(range(len(replies)))
    end = events[-1]
    assert end.model_calls == len(replies)
    if end.reason == "end_turn":
        assert not tool_uses_of(replies[-1].message)
        assert end.text == text_of(replies[-1].message)
    else:
        assert len(replies) == max_turns
        assert tool_uses_of(replies[-1].message)
    # after each reply: its tool_use blocks, each called then answered, in order
    for k, ev in enumerate(events):
        if isinstance(ev, AssistantMessage):
            uses = tool_uses_of(ev.message)
            tail = [e for e in events[k + 1 :] if not isinstance(e, Compacted)][: 2 * len(uses)]
            assert [e.call for e in tail[0::2] if isinstance(e, ToolCalled)] == uses
            assert [e.result.tool_use_id for e in tail[1::2] if isinstance(e, ToolResulted)] == [u.id for u in uses]


# ---------------------------------------------------------------------------------------
# The fold law, as a property
# ---------------------------------------------------------------------------------------

decisions_st = st.lists(
    st.one_of(st.none(), st.lists(st.integers(0, len(CALLS) - 1), min_size=1, max_size=3)), max_size=14
)


@st.composite
def configs(draw: st.DrawFn) -> EngineConfig:
    keep = draw(st.integers(1, 4))
    at = draw(st.one_of(st.none(), st.integers(keep + 1, keep + 6)))
    chars = draw(st.one_of(st.none(), st.integers(200, 3000)))
    return EngineConfig(
        max_turns=draw(st.integers(1, 5)), keep_recent=keep, compact_at_messages=at, compact_at_chars=chars
    )


@settings(max_examples=120)
@given(decisions_st, configs(), st.integers(1, 4))
def test_folding_a_turns_events_gives_back_its_history(
    decisions: list[Decision], config: EngineConfig, n_prompts: int
) -> None:
    engine = engine_for(decisions, config)
    for i in range(n_prompts):
        before = engine.history
        events = list(engine.events(f"prompt {i}"))
        after = engine.history
        check_turn_grammar(events, config.max_turns)
        # The law: the events describe exactly the history the turn produced.
        assert fold_events(events, before) == list(after)
        if not any(isinstance(e, Compacted) for e in events):
            assert after[: len(before)] == before
            assert fold_events(events) == list(after[len(before) :])
        assert_valid(after)
        event("compacted" if any(isinstance(e, Compacted) for e in events) else "not compacted")
        event(f"ended: {events[-1].reason}" if isinstance(events[-1], TurnEnded) else "?")
    client = engine.client
    assert isinstance(client, FakeClient)
    for request in client.requests:  # every request the engine sent was one the API accepts
        assert validate(request["messages"], tools_defined="tools" in request) == []


def test_fold_of_a_plain_tool_turn() -> None:
    engine = engine_for([[0, 2], None])
    events = list(engine.events("read the app and multiply"))
    kinds = [type(e).__name__ for e in events]
    assert kinds == [
        "TurnStarted",
        "AssistantMessage",
        "ToolCalled",
        "ToolResulted",
        "ToolCalled",
        "ToolResulted",
        "AssistantMessage",
        "TurnEnded",
    ]
    messages = fold_events(events)
    assert [m.role for m in messages] == ["user", "assistant", "user", "assistant"]
    assert messages[0] == user_text("read the app and multiply")
    results = tool_results_of(messages[2])
    assert [r.content for r in results][1] == "42"
    assert messages == list(engine.history)


def test_fold_notices_a_lost_event() -> None:
    """The law is not a tautology: drop one event and the fold no longer matches."""
    engine = engine_for([[0, 2], None])
    events = list(engine.events("go"))
    for k in range(len(events)):
        if isinstance(events[k], (AssistantMessage, ToolResulted, TurnStarted)):
            assert fold_events(events[:k] + events[k + 1 :]) != list(engine.history)


def test_compaction_event_carries_the_new_history() -> None:
    config = EngineConfig(compact_at_messages=5, keep_recent=2)
    engine = engine_for([[0], None, [2], None, [4], None], config)
    seen: list[Compacted] = []
    for i in range(3):
        before = engine.history
        events = list(engine.events(f"prompt {i}"))
        seen += [e for e in events if isinstance(e, Compacted)]
        assert fold_events(events, before) == list(engine.history)
    assert seen
    assert engine.compactions == len(seen)
    first = seen[0]
    assert first.before > first.after == len(first.messages)
    assert "summary of" in text_of(first.messages[0])
    assert_valid(engine.history)


def test_character_budget_triggers_compaction() -> None:
    config = EngineConfig(compact_at_messages=None, compact_at_chars=1500, keep_recent=2)
    engine = engine_for([[0], None] * 4, config)
    sizes = []
    for i in range(4):
        engine.run_sync(f"prompt {i}")
        sizes.append(len(to_json(list(engine.history))))
    assert engine.compactions >= 1
    # each compaction ran once the history's JSON passed the budget, and left a valid history behind
    assert validate([*engine.history, user_text("next")]) == []
    assert min(sizes) < 1500


def test_default_summarizer_asks_the_client_without_tools() -> None:
    config = EngineConfig(compact_at_messages=5, keep_recent=2, model="claude-test-1")
    client = FakeClient([[0], None, [2], None])
    engine = QueryEngine(client, tools=demo_registry(), config=config)
    for i in range(2):
        engine.run_sync(f"prompt {i}")
    summary_calls = [r for r in client.requests if "tools" not in r]
    assert summary_calls
    assert {r["model"] for r in summary_calls} == {"claude-test-1"}
    assert engine.history[0].content.endswith("a summary")  # type: ignore[union-attr]


# ---------------------------------------------------------------------------------------
# max_turns, errors, interruption
# ---------------------------------------------------------------------------------------


def test_max_turns_ends_the_turn_and_leaves_a_valid_history() -> None:
    engine = engine_for([[0]] * 10, EngineConfig(max_turns=3, compact_at_messages=None))
    result = engine.run_sync("loop forever")
    assert result.ended.reason == "max_turns"
    assert result.ended.model_calls == 3
    assert result.text == ""
    assert len(result.tool_calls) == 3
    assert_valid(engine.history)
    engine.run_sync("and now?")  # the next prompt follows the last tool results
    assert_valid(engine.history)


def test_max_turns_one_still_answers_every_call() -> None:
    engine = engine_for([[0, 1]], EngineConfig(max_turns=1, compact_at_messages=None))
    engine.run_sync("one call only")
    last = engine.history[-1]
    assert [r.is_error for r in tool_results_of(last)] == [False, True]


class Unavailable(Exception):
    pass


def test_api_errors_propagate_and_the_history_stays_valid() -> None:
    class Failing:
        @property
        def messages(self) -> Failing:
            return self

        def create(self, **request: Any) -> Any:
            raise Unavailable("overloaded")

    engine = QueryEngine(Failing(), tools=demo_registry())
    with pytest.raises(Unavailable):
        engine.run_sync("hello")
    assert engine.history == (user_text("hello"),)
    assert_valid(engine.history)


def test_a_bad_response_names_its_path() -> None:
    class Broken:
        @property
        def messages(self) -> Broken:
            return self

        def create(self, **request: Any) -> Any:
            return SimpleNamespace(content=[{"type": "tool_use", "name": "x", "input": {}}])

    with pytest.raises(ValueError, match=r"response\.content\[0\]\.id: missing required field `id`"):
        QueryEngine(Broken(), tools=demo_registry()).run_sync("hello")


def test_abandoning_a_turn_mid_tool_round_answers_the_open_calls() -> None:
    engine = engine_for([[0, 2, 4], None])
    events = engine.events("three calls")
    for ev in events:
        if isinstance(ev, ToolCalled):
            break  # the consumer walks away before the first tool ran
    events.close()  # type: ignore[attr-defined]
    last = engine.history[-1]
    results = tool_results_of(last)
    assert len(results) == 3
    assert all(r.is_error and r.content == INTERRUPTED for r in results)
    assert_valid(engine.history)
    assert engine.run_sync("go on").ended.reason == "end_turn"
    assert_valid(engine.history)


def test_abandoning_an_async_turn_answers_the_open_calls() -> None:
    engine = engine_for([[0, 2], None])

    async def walk_away() -> None:
        stream = engine.run("two calls")
        async for ev in stream:
            if isinstance(ev, ToolResulted):
                break
        await stream.aclose()  # type: ignore[attr-defined]

    asyncio.run(walk_away())
    results = tool_results_of(engine.history[-1])
    assert [r.is_error for r in results] == [False, True]
    assert results[1].content == INTERRUPTED
    assert_valid(engine.history)


# ---------------------------------------------------------------------------------------
# The three drivers and the callbacks
# ---------------------------------------------------------------------------------------

SCRIPT: list[Decision] = [[0, 1], [2], None, [3, 5, 6], None]


def test_async_stream_sync_iterator_and_run_sync_agree() -> None:
    sync_events = list(engine_for(SCRIPT).events("a"))

    async def collect() -> list[Event]:
        return [ev async for ev in engine_for(SCRIPT).run("a")]

    async_events = asyncio.run(collect())
    result = engine_for(SCRIPT).run_sync("a")
    assert async_events == sync_events == list(result.events)


def test_run_sync_works_inside_a_running_event_loop() -> None:
    async def notebook_cell() -> str:
        return engine_for(SCRIPT).run_sync("a").text

    assert asyncio.run(notebook_cell()).startswith("answer")


def test_callbacks_see_every_event_in_order() -> None:
    seen: list[Event] = []
    callbacks = Callbacks(
        on_turn_start=seen.append,
        on_assistant=seen.append,
        on_tool_call=seen.append,
        on_tool_result=seen.append,
        on_compact=seen.append,
        on_turn_end=seen.append,
    )
    config = EngineConfig(compact_at_messages=3, keep_recent=2)
    engine = engine_for(SCRIPT, config, callbacks=callbacks)
    events = [*engine.run_sync("a").events, *engine.run_sync("b").events]
    assert seen == events
    assert any(isinstance(e, Compacted) for e in events)

    seen.clear()

    async def collect() -> list[Event]:
        return [ev async for ev in engine_for(SCRIPT, callbacks=callbacks).run("a")]

    assert seen == asyncio.run(collect())


def test_only_the_given_callbacks_are_called() -> None:
    replies: list[AssistantMessage] = []
    engine = engine_for(SCRIPT, callbacks=Callbacks(on_assistant=replies.append))
    result = engine.run_sync("a")
    assert replies == [e for e in result.events if isinstance(e, AssistantMessage)]


def test_history_seeds_the_conversation_and_is_a_snapshot() -> None:
    seed: list[Message] = from_api([{"role": "user", "content": "earlier"}, {"role": "assistant", "content": "ok"}])
    engine = engine_for([None], history=seed)
    snapshot = engine.history
    engine.run_sync("now")
    assert snapshot == tuple(seed)
    assert engine.history[:2] == tuple(seed)
    assert engine.turns == 1
    assert engine.model_calls == 1


def test_requests_carry_model_tools_and_system() -> None:
    client = FakeClient([None])
    QueryEngine(
        client, tools=demo_registry(), config=EngineConfig(model="m-1", system="be brief", max_tokens=99)
    ).run_sync("hi")
    (request,) = client.requests
    assert request["model"] == "m-1"
    assert request["system"] == "be brief"
    assert request["max_tokens"] == 99
    assert [t["name"] for t in request["tools"]] == list(demo_registry())
    assert request["messages"] == [{"role": "user", "content": "hi"}]


def test_a_result_message_folds_from_its_results() -> None:
    """``ToolResulted`` events after one reply are one message, not one each."""
    engine = engine_for([[0, 2, 4], None])
    events = list(engine.events("x"))
    results = [e.result for e in events if isinstance(e, ToolResulted)]
    assert fold_events(events)[2] == tool_result_msg(results)


@pytest.mark.parametrize(
    ("kwargs", "complaint"),
    [
        ({"max_turns": 0}, "max_turns must be at least 1"),
        ({"keep_recent": 0}, "keep_recent must be at least 1"),
        ({"compact_at_messages": 4, "keep_recent": 4}, "must exceed keep_recent"),
    ],
)
def test_config_refuses_impossible_settings(kwargs: dict[str, Any], complaint: str) -> None:
    with pytest.raises(ValueError, match=complaint):
        EngineConfig(**kwargs)


def test_importing_the_engine_does_not_import_the_sdk() -> None:
    code = "import sys, msgmodel.core.engine; sys.exit('anthropic' in sys.modules or 'httpx2' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
