"""The local API's answer under ``max_tokens`` and ``stop_sequences``, its usage, and its Models endpoints.

All in-process, through the official SDK on ``local_client`` (or the bare handler).
"""

from __future__ import annotations

from typing import Any

import anthropic
import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from msgmodel.api import limits
from msgmodel.api.demo_tools import demo_registry
from msgmodel.api.request import known_models
from msgmodel.api.scripted import ScriptedModel
from msgmodel.api.server import handle_messages, local_client
from msgmodel.core.message import TextBlock, ThinkingBlock, ToolUseBlock
from msgmodel.core.tools import tools_param

MODEL = "claude-haiku-4-5"
TOOLS: Any = tools_param(demo_registry())
HELLO: Any = [{"role": "user", "content": "hello there"}]
LONG = "The quick brown fox jumps over the lazy dog. " * 8 + "Ünïcödé ✓ done. END of story."
SCRIPT = ScriptedModel([[ThinkingBlock("thinking about it", signature="sig"), TextBlock(LONG)]])


def create(c: anthropic.Anthropic, **kwargs: Any) -> anthropic.types.Message:
    request: dict[str, Any] = {"model": MODEL, "max_tokens": 1000, "messages": HELLO, **kwargs}
    resp: anthropic.types.Message = c.messages.create(**request)
    return resp


def streamed(c: anthropic.Anthropic, **kwargs: Any) -> anthropic.types.Message:
    request: dict[str, Any] = {"model": MODEL, "max_tokens": 1000, "messages": HELLO, **kwargs}
    with c.messages.stream(**request) as s:
        final: anthropic.types.Message = s.get_final_message()
    return final


def dumped(m: anthropic.types.Message) -> list[dict[str, Any]]:
    """The content as plain dicts (the stream helper's ``Parsed*`` blocks carry ``parsed_output``)."""
    return [{k: v for k, v in b.model_dump().items() if k != "parsed_output"} for b in m.content]


# ---------------------------------------------------------------------------------------
# Usage
# ---------------------------------------------------------------------------------------


def test_usage_has_every_field_the_sdk_types_document() -> None:
    usage = create(local_client(), tools=TOOLS).usage
    assert usage.input_tokens > 0 and usage.output_tokens > 0
    assert usage.cache_creation_input_tokens == 0 and usage.cache_read_input_tokens == 0
    assert usage.cache_creation is not None and usage.cache_creation.ephemeral_5m_input_tokens == 0
    assert usage.server_tool_use is not None and usage.server_tool_use.web_search_requests == 0
    assert usage.service_tier == "standard"


@pytest.mark.parametrize("with_tools", [False, True])
def test_input_tokens_equal_count_tokens_streaming_or_not(with_tools: bool) -> None:
    c = local_client()
    extra: dict[str, Any] = {"tools": TOOLS} if with_tools else {}
    counted = c.messages.count_tokens(model=MODEL, messages=HELLO, system="be brief", **extra).input_tokens
    assert create(c, system="be brief", **extra).usage.input_tokens == counted
    assert streamed(c, system="be brief", **extra).usage.input_tokens == counted


def test_the_streamed_message_has_the_non_streaming_usage_and_delta_usage_is_cumulative() -> None:
    c = local_client()
    assert streamed(c, tools=TOOLS).usage == create(c, tools=TOOLS).usage
    events = list(c.messages.create(model=MODEL, max_tokens=1000, messages=HELLO, stream=True))
    start = next(e for e in events if e.type == "message_start")
    delta = next(e for e in events if e.type == "message_delta")
    assert delta.usage.input_tokens == start.message.usage.input_tokens > 0
    assert delta.usage.output_tokens > 0 and delta.usage.cache_read_input_tokens == 0


def test_output_tokens_count_the_delivered_text_at_four_bytes_a_token() -> None:
    m = create(local_client(ScriptedModel(["abcdefghi"])))
    assert m.usage.output_tokens == 3  # 9 bytes -> ceil(9 / 4)


# ---------------------------------------------------------------------------------------
# max_tokens and stop_sequences
# ---------------------------------------------------------------------------------------


def test_max_tokens_zero_delivers_nothing_and_says_max_tokens() -> None:
    m = create(local_client(SCRIPT), max_tokens=0)
    assert m.content == [] and m.stop_reason == "max_tokens" and m.usage.output_tokens == 0


@settings(max_examples=60, deadline=None)
@given(max_tokens=st.integers(0, 120))
def test_max_tokens_cuts_the_answer_to_a_prefix_that_fits(max_tokens: int) -> None:
    c = local_client(SCRIPT)
    full = create(c)
    cut = create(c, max_tokens=max_tokens)
    assert cut.usage.output_tokens <= max_tokens
    full_text = [getattr(b, "text", None) or getattr(b, "thinking", "") for b in full.content]
    cut_text = [getattr(b, "text", None) or getattr(b, "thinking", "") for b in cut.content]
    assert len(cut_text) <= len(full_text)
    assert all(full_text[i].startswith(t) and t for i, t in enumerate(cut_text))
    assert cut.stop_reason == ("end_turn" if cut_text == full_text else "max_tokens")
    assert dumped(streamed(c, max_tokens=max_tokens)) == dumped(cut)


def test_a_tool_use_that_does_not_fit_is_dropped_whole() -> None:
    use = ToolUseBlock(id="toolu_1", name="calculator", input={"expression": "1 + 2 * 3"})
    c = local_client(ScriptedModel([[TextBlock("Let me compute."), use]]))
    assert create(c, tools=TOOLS).stop_reason == "tool_use"
    m = create(c, tools=TOOLS, max_tokens=5)
    assert [b.type for b in m.content] == ["text"] and m.stop_reason == "max_tokens"


def test_a_stop_sequence_cuts_the_text_and_is_reported() -> None:
    c = local_client(SCRIPT)
    m = create(c, stop_sequences=["nothing-like-this", "END", "fox"])
    assert m.stop_reason == "stop_sequence" and m.stop_sequence == "fox"
    text = [b for b in m.content if b.type == "text"]
    assert len(text) == 1 and text[0].text == "The quick brown "
    assert streamed(c, stop_sequences=["END", "fox"]).stop_sequence == "fox"
    assert create(c, stop_sequences=["absent"]).stop_reason == "end_turn"


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_any_stop_sequence_taken_from_the_text_cuts_right_before_its_first_match(data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(LONG) - 1))
    stop = LONG[start : start + data.draw(st.integers(1, 6))]
    c = local_client(SCRIPT)
    m = create(c, stop_sequences=[stop])
    assert m.stop_reason == "stop_sequence" and m.stop_sequence == stop
    kept = LONG[: LONG.find(stop)]
    assert [b.text for b in m.content if b.type == "text"] == ([kept] if kept else [])
    assert dumped(streamed(c, stop_sequences=[stop])) == dumped(m)


def test_a_stop_sequence_past_max_tokens_is_not_reached() -> None:
    m = create(local_client(SCRIPT), stop_sequences=["END"], max_tokens=10)
    assert m.stop_reason == "max_tokens" and m.stop_sequence is None


def test_a_stop_sequence_at_the_start_delivers_no_empty_block() -> None:
    m = create(local_client(ScriptedModel(["STOP here"])), stop_sequences=["STOP"])
    assert m.content == [] and m.stop_reason == "stop_sequence"


def test_tokens_of_counts_utf8_bytes() -> None:
    assert [limits.tokens_of(s) for s in ("", "a", "abcd", "abcde", "é" * 2, "✓")] == [0, 1, 1, 2, 1, 1]


# ---------------------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------------------


def test_an_unknown_model_is_a_404_not_found_error_in_the_api_shape() -> None:
    with pytest.raises(anthropic.NotFoundError) as info:
        create(local_client(), model="claude-nope-1")
    assert isinstance(info.value.body, dict)
    assert info.value.body["error"] == {"type": "not_found_error", "message": "model: claude-nope-1"}
    r = handle_messages(msgspec.json.encode({"model": "x", "max_tokens": 5, "messages": HELLO}))
    assert r.status == 404 and r.json()["error"]["type"] == "not_found_error"


def test_models_list_pages_through_every_known_model() -> None:
    c = local_client()
    assert [m.id for m in c.models.list()] == list(known_models())
    page = c.models.list(limit=3)
    assert [m.id for m in page.data] == list(known_models()[:3]) and page.has_more
    nxt = c.models.list(limit=3, after_id=page.data[-1].id)
    assert [m.id for m in nxt.data] == list(known_models()[3:6])
    back = c.models.list(limit=2, before_id=nxt.data[0].id)
    assert [m.id for m in back.data] == list(known_models()[1:3])


def test_models_retrieve_gives_a_model_info_or_a_404() -> None:
    c = local_client()
    info = c.models.retrieve("claude-opus-4-5-20251101")
    assert (info.id, info.type, info.display_name) == ("claude-opus-4-5-20251101", "model", "Claude Opus 4.5")
    assert info.created_at.date().isoformat() == "2025-11-01"
    with pytest.raises(anthropic.NotFoundError):
        c.models.retrieve("gpt-4o")


def test_a_bad_page_size_is_a_400() -> None:
    with pytest.raises(anthropic.BadRequestError):
        local_client().models.list(limit=0)
