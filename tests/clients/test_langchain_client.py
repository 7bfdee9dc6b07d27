"""LangChain (``langchain-anthropic``) against ``serve``: structured output, tool loops, usage, trimming."""

from __future__ import annotations

import anthropic
import pytest
from _demo import DUMMY_KEY, MODEL, ORPHAN_WORDS, Weather, read_demo_file
from langchain_anthropic import ChatAnthropic
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, ToolMessage, trim_messages
from langchain_core.tools import tool


@tool
def read_file(path: str) -> str:
    """Read a file of the demo project."""
    return read_demo_file(path)


@pytest.fixture
def llm(base_url: str) -> ChatAnthropic:
    return ChatAnthropic(model_name=MODEL, base_url=base_url, api_key=DUMMY_KEY, max_retries=0, timeout=60)


@pytest.mark.parametrize("method", ["function_calling", "json_schema"])
def test_with_structured_output(llm: ChatAnthropic, method: str) -> None:
    answer = llm.with_structured_output(Weather, method=method).invoke("What's the weather in Paris?")
    assert isinstance(answer, Weather)


def run_tools(llm: ChatAnthropic, history: list[BaseMessage]) -> list[BaseMessage]:
    """One agent turn: call the model, run the tools it asks for, until it answers in text."""
    bound = llm.bind_tools([read_file])
    for _ in range(5):
        reply = bound.invoke(history)
        history = [*history, reply]
        assert isinstance(reply, AIMessage)
        if not reply.tool_calls:
            return history
        history += [ToolMessage(read_file.invoke(call["args"]), tool_call_id=call["id"]) for call in reply.tool_calls]
    raise AssertionError("the tool loop did not end")


def conversation(llm: ChatAnthropic) -> list[BaseMessage]:
    history = run_tools(llm, [HumanMessage("What is in setup.cfg?")])
    return run_tools(llm, [*history, HumanMessage("And what is in README.md?")])


def test_a_tool_loop_replayed_across_runs(llm: ChatAnthropic) -> None:
    history = conversation(llm)
    tool_messages = [m for m in history if isinstance(m, ToolMessage)]
    assert len(tool_messages) == 2
    assert "README.md" in str(history[-1].content)


def test_streamed_usage_reports_input_tokens(llm: ChatAnthropic) -> None:
    chunks = list(llm.stream("Say hello."))
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    assert isinstance(total, AIMessageChunk) and total.usage_metadata is not None
    assert total.usage_metadata["output_tokens"] > 0
    assert total.usage_metadata["input_tokens"] > 0


def test_trim_messages_last_orphans_a_tool_result_and_the_server_refuses_it(llm: ChatAnthropic) -> None:
    history = conversation(llm)
    assert len(history) == 8  # two rounds of: question, tool call, tool result, answer
    # keep the last 6 messages: the cut falls between the first round's tool_use and its tool_result
    trimmed = trim_messages(history, strategy="last", max_tokens=6, token_counter=len)
    assert isinstance(trimmed[0], ToolMessage)  # LangChain's own helper made the orphan
    with pytest.raises(anthropic.BadRequestError) as info:
        llm.bind_tools([read_file]).invoke([*trimmed, HumanMessage("Go on.")])
    message = info.value.body["error"]["message"]  # type: ignore[index]
    assert message.startswith("messages.0.content.0: " + ORPHAN_WORDS)
    assert "Each `tool_result` block must have a corresponding `tool_use` block in the previous message." in message
