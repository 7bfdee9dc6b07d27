"""End to end, through the official ``anthropic`` SDK and the local Messages API (``msgmodel.api.server``).

The step-29/30 exhibits (``msgmodel.course.legacy``) hit the local API's 400s (worded as the live API's public
captures) for the bugs the original step-31 tutorial names; the rebuilt engine (``msgmodel.core.engine``) runs the
same kind of session for dozens of tool-using turns with compaction and is never refused.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any

import anthropic
import pytest

from msgmodel.api.demo_tools import demo_registry
from msgmodel.api.server import local_client
from msgmodel.core.engine import (
    AssistantMessage,
    Compacted,
    EngineConfig,
    Event,
    QueryEngine,
    ToolResulted,
    fold_events,
)
from msgmodel.core.message import Message, text_of, tool_uses_of, user_text
from msgmodel.core.protocol import validate
from msgmodel.core.tools import tools_param
from msgmodel.course.legacy.compact29 import compact_fixed
from msgmodel.course.legacy.engine import QueryEngine as LegacyEngine

REGISTRY = demo_registry()
PREFILL_MODEL = "claude-haiku-4-5"  # a model that accepts a final assistant message

# Prompts the local rule model answers with a tool call; two of them make the tool fail.
PROMPTS = [
    "Read src/app.py",
    "What is (3 + 4) * 2 ** 3?",
    "Search for 'retries' in src/",
    "List the files in tests/",
    "Read src/missing.py",
    "Read README.md and setup.cfg",
    "What is 1/0?",
    "Where is 'APP_TIMEOUT' used? grep for it",
    "Please read tests/test_app.py",
    "Compute 2 ** 10 - 24",
]
HAPPY_PROMPTS = [p for p in PROMPTS if "missing" not in p and "1/0" not in p]

ORPHAN_400 = re.compile(
    r"messages\.\d+\.content\.\d+: unexpected `tool_use_id` found in `tool_result` blocks: toolu_\w+\. "
    r"Each `tool_result` block must have a corresponding `tool_use` block in the previous message\."
)


def legacy_engine(**kwargs: Any) -> LegacyEngine:
    return LegacyEngine(
        local_client(), {name: tool.run for name, tool in REGISTRY.items()}, tools_param(REGISTRY), **kwargs
    )


def api_message(err: anthropic.BadRequestError) -> str:
    body = err.body
    assert isinstance(body, dict)
    message = body["error"]["message"]
    assert isinstance(message, str)
    return message


def assert_valid(history: Sequence[Message]) -> None:
    assert validate(list(history), model=PREFILL_MODEL) == []
    assert validate([*history, user_text("next prompt")]) == []


# ---------------------------------------------------------------------------------------
# The exhibits get their 400s
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("keep", [3, 7])
def test_slicing_compaction_gets_the_verbatim_orphan_400(keep: int) -> None:
    engine = legacy_engine(keep=keep)
    submitted = 0
    with pytest.raises(anthropic.BadRequestError) as caught:
        for prompt in HAPPY_PROMPTS * 3:
            submitted += 1
            engine.submit(prompt)
    err = caught.value
    assert err.status_code == 400
    message = api_message(err)
    assert ORPHAN_400.fullmatch(message), message
    assert err.api_message == message
    # the request that was refused is the compacted history; the validator words it the same
    assert str(validate(engine.messages)[0]) == message
    print(f"\nlegacy slicing, keep={keep}: 400 on prompt {submitted}: {message}")


@pytest.mark.parametrize("keep", [2, 4, 6, 8])
def test_slicing_works_for_weeks_on_other_values_of_keep(keep: int) -> None:
    """Why the bug ships: with this prompt rhythm, an even ``keep`` never lands on a result."""
    engine = legacy_engine(keep=keep)
    for prompt in HAPPY_PROMPTS * 2:
        engine.submit(prompt)


@pytest.mark.parametrize("keep", range(2, 9))
def test_the_step_29_local_fix_survives_the_same_runs(keep: int) -> None:
    engine = legacy_engine(keep=keep, compact=compact_fixed)
    for prompt in HAPPY_PROMPTS * 2:
        engine.submit(prompt)
    assert validate(engine.messages, model=PREFILL_MODEL) == []


def test_a_failing_tool_hits_the_field_name_slip() -> None:
    results: list[dict[str, Any]] = []
    engine = legacy_engine(compact=compact_fixed, on_tool_result=results.append)
    engine.submit("Read src/app.py")  # the happy path works
    with pytest.raises(anthropic.BadRequestError) as caught:
        engine.submit("Read src/missing.py")
    message = api_message(caught.value)
    assert "toolUseId" in results[-1]
    index = len(engine.messages) - 1
    assert message == str(validate(engine.messages)[0])
    assert message in {
        f"messages.{index}.content.0.tool_result.tool_use_id: Field required",
        f"messages.{index}.content.0.tool_result.toolUseId: Extra inputs are not permitted",
    }
    rendered = {str(v) for v in validate(engine.messages)}
    assert f"messages.{index}.content.0.tool_result.tool_use_id: Field required" in rendered
    print(f"\nlegacy failing tool: 400: {message}")


def test_the_step_30_summary_knows_only_placeholders() -> None:
    engine = legacy_engine(keep=6)
    for prompt in HAPPY_PROMPTS[:5]:
        engine.submit(prompt)
    summary = engine.messages[0]["content"]
    assert isinstance(summary, str)
    assert re.search(r"\d+ step\(s\) appear only as placeholders like \(tool call\)", summary), summary


# ---------------------------------------------------------------------------------------
# The rebuilt engine never gets one
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("keep_recent", [3, 4, 7])  # 3 and 7 are the values that break slicing
def test_the_rebuilt_engine_runs_fifty_tool_turns_with_compaction_and_no_400(keep_recent: int) -> None:
    compactions: list[Compacted] = []
    engine = QueryEngine(
        local_client(), tools=demo_registry(), config=EngineConfig(compact_at_messages=12, keep_recent=keep_recent)
    )
    tool_turns = error_results = refused = 0
    for prompt in PROMPTS * 6:
        before = engine.history
        try:
            events = engine.run_sync(prompt).events
        except anthropic.BadRequestError:  # counted, so a regression reports a number, not just a trace
            refused += 1
            continue
        assert fold_events(events, before) == list(engine.history)
        assert_valid(engine.history)
        tool_turns += sum(1 for e in events if isinstance(e, AssistantMessage) and tool_uses_of(e.message))
        error_results += sum(1 for e in events if isinstance(e, ToolResulted) and e.result.is_error)
        compactions += [e for e in events if isinstance(e, Compacted)]
    print(
        f"\nrebuilt engine, keep_recent={keep_recent}: {engine.turns} prompts, {engine.model_calls} model calls, "
        f"{tool_turns} tool-using turns, {error_results} failed tool results, {len(compactions)} compactions, "
        f"{refused} 400s"
    )
    assert refused == 0
    assert tool_turns >= 50
    assert error_results >= 10
    assert len(compactions) >= 10
    assert engine.compactions == len(compactions)
    # summaries built from transcript_of name the calls and the failures
    summaries = [text_of(c.messages[0]) for c in compactions]
    assert all("Tool calls I can see" in s for s in summaries)
    assert any("failed: read_file: no such file" in s or "failed: calculator" in s for s in summaries)


def test_the_async_stream_through_the_sdk_folds_to_the_history() -> None:
    engine = QueryEngine(
        local_client(), tools=demo_registry(), config=EngineConfig(compact_at_messages=8, keep_recent=3)
    )

    async def session() -> list[list[Event]]:
        turns = []
        for prompt in PROMPTS[:5]:
            turns.append([ev async for ev in engine.run(prompt)])
        return turns

    history: list[Message] = []
    for events in asyncio.run(session()):
        history = fold_events(events, history)
    assert history == list(engine.history)
    assert engine.compactions >= 1
    assert_valid(engine.history)
