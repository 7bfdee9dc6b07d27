"""The official SDK's default tool runner (server-held threads by default) against ``serve``."""

from __future__ import annotations

import asyncio
from typing import Any

import anthropic
import pytest
from _demo import DUMMY_KEY, MODEL, read_demo_file
from anthropic import beta_async_tool, beta_tool

QUESTION = "Compare setup.cfg and README.md please."


@beta_tool
def read_file(path: str) -> str:
    """Read a file of the demo project.

    Args:
        path: the file's path
    """
    return read_demo_file(path)


@beta_async_tool
async def aread_file(path: str) -> str:
    """Read a file of the demo project.

    Args:
        path: the file's path
    """
    return read_demo_file(path)


aread_file.name = "read_file"


def kwargs() -> dict[str, Any]:
    return {"model": MODEL, "max_tokens": 512, "messages": [{"role": "user", "content": QUESTION}]}


def check(messages: list[Any]) -> None:
    assert [m.stop_reason for m in messages] == ["tool_use", "end_turn"]
    answer = messages[-1].content[-1].text
    assert "setup.cfg" in answer and "README.md" in answer


@pytest.mark.parametrize("stream", [False, True])
def test_tool_runner_sync(base_url: str, stream: bool) -> None:
    c = anthropic.Anthropic(base_url=base_url, api_key=DUMMY_KEY, max_retries=0)
    runner = c.beta.messages.tool_runner(tools=[read_file], stream=stream, **kwargs())
    check([s.get_final_message() for s in runner] if stream else list(runner))


@pytest.mark.parametrize("stream", [False, True])
def test_tool_runner_async(base_url: str, stream: bool) -> None:
    async def go() -> list[Any]:
        c = anthropic.AsyncAnthropic(base_url=base_url, api_key=DUMMY_KEY, max_retries=0)
        runner = c.beta.messages.tool_runner(tools=[aread_file], stream=stream, **kwargs())
        if stream:
            return [await s.get_final_message() async for s in runner]
        return [m async for m in runner]

    check(asyncio.run(go()))


def test_tool_runner_until_done(base_url: str) -> None:
    c = anthropic.Anthropic(base_url=base_url, api_key=DUMMY_KEY, max_retries=0)
    final = c.beta.messages.tool_runner(tools=[read_file], **kwargs()).until_done()
    assert final.stop_reason == "end_turn"
