"""pydantic-ai (``pydantic-ai-slim[anthropic]``) against ``serve``: structured output, tool loops, usage."""

from __future__ import annotations

import asyncio

import pytest
from _demo import DUMMY_KEY, MODEL, Weather, read_demo_file
from pydantic_ai import Agent, NativeOutput, ToolOutput
from pydantic_ai.messages import ToolReturnPart
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.providers.anthropic import AnthropicProvider


@pytest.fixture
def model(base_url: str) -> AnthropicModel:
    return AnthropicModel(MODEL, provider=AnthropicProvider(base_url=base_url, api_key=DUMMY_KEY))


def test_structured_output_in_tool_mode(model: AnthropicModel) -> None:
    result = Agent(model, output_type=ToolOutput(Weather)).run_sync("What's the weather in Paris?")
    assert isinstance(result.output, Weather)


def test_structured_output_in_native_json_schema_mode(model: AnthropicModel) -> None:
    result = Agent(model, output_type=NativeOutput(Weather)).run_sync("What's the weather in Paris?")
    assert isinstance(result.output, Weather)


def test_a_function_tool_then_the_output_tool(model: AnthropicModel) -> None:
    agent = Agent(model, output_type=Weather)

    @agent.tool_plain
    def read_file(path: str) -> str:
        """Read a file of the demo project."""
        return read_demo_file(path)

    result = agent.run_sync("Read setup.cfg, then tell me the weather.")
    assert isinstance(result.output, Weather)
    returns = [p for m in result.all_messages() for p in m.parts if isinstance(p, ToolReturnPart)]
    assert any(p.tool_name == "read_file" and "[metadata]" in str(p.content) for p in returns)


def test_a_tool_loop_replayed_across_runs(model: AnthropicModel) -> None:
    agent = Agent(model)

    @agent.tool_plain
    def read_file(path: str) -> str:
        """Read a file of the demo project."""
        return read_demo_file(path)

    first = agent.run_sync("What is in setup.cfg?")
    second = agent.run_sync("And what is in README.md?", message_history=first.all_messages())
    assert "setup.cfg" in first.output and "README.md" in second.output
    returns = [p.tool_name for m in second.all_messages() for p in m.parts if isinstance(p, ToolReturnPart)]
    assert returns == ["read_file", "read_file"]  # the first run's pair was replayed and accepted


def test_streamed_usage_counts_input_tokens(model: AnthropicModel) -> None:
    async def go() -> tuple[int, int]:
        async with Agent(model).run_stream("Say hello.") as run:
            await run.get_output()
            usage = run.usage
        return usage.input_tokens, usage.output_tokens

    input_tokens, output_tokens = asyncio.run(go())
    assert input_tokens > 0 and output_tokens > 0
