"""The local API honours ``tool_choice``, JSON output (``output_config.format``) and answers ``thread``.

In-process through the official SDK (``local_client`` / ``async_local_client``), plus the SDK's
default tool runner over HTTP (``make_server`` on 127.0.0.1, one short-lived server).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any, Literal

import anthropic
import jsonschema
import msgspec
import pydantic
import pytest
from anthropic import beta_async_tool, beta_tool
from hypothesis import given, settings
from hypothesis import strategies as st
from serving import serving

from msgmodel.api.constraints import NO_TOOL_TEXT, constrain, fits, tool_choice_of
from msgmodel.api.demo_tools import DEMO_FILES
from msgmodel.api.scripted import RuleModel, ScriptedModel
from msgmodel.api.server import (
    THREAD_UNSUPPORTED,
    LocalServer,
    async_local_client,
    handle_messages,
    local_client,
)
from msgmodel.core.message import TextBlock, ToolUseBlock

MODEL = "claude-haiku-4-5"

WEATHER: Any = {
    "name": "get_weather",
    "description": "The weather in a city.",
    "input_schema": {
        "type": "object",
        "properties": {
            "city": {"type": "string", "minLength": 2},
            "unit": {"enum": ["celsius", "fahrenheit"]},
            "days": {"type": "integer", "minimum": 1, "maximum": 7},
            "when": {"type": "string", "format": "date"},
            "stops": {"type": "array", "items": {"$ref": "#/$defs/Stop"}, "minItems": 2},
        },
        "required": ["city", "unit", "days", "when", "stops"],
        "$defs": {"Stop": {"type": "object", "properties": {"lat": {"type": "number"}}, "required": ["lat"]}},
        "additionalProperties": False,
    },
}
READ_FILE: Any = {
    "name": "read_file",
    "description": "Read a file.",
    "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
}
TOOLS: Any = [READ_FILE, WEATHER]
TWO_FILES = "Compare setup.cfg and README.md please."


def ask(text: str, *, model: Any = None, **kwargs: Any) -> anthropic.types.Message:
    c = local_client(model)
    return c.messages.create(model=MODEL, max_tokens=256, messages=[{"role": "user", "content": text}], **kwargs)


def assert_validates(value: Any, schema: Any) -> None:
    jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER).validate(
        value
    )


# -- tool_choice ---------------------------------------------------------------------------------


def test_auto_is_the_default_behaviour() -> None:
    auto = ask(TWO_FILES, tools=TOOLS, tool_choice={"type": "auto"})
    plain = ask(TWO_FILES, tools=TOOLS)
    assert auto.model_dump() == plain.model_dump()
    assert [b.type for b in auto.content] == ["text", "tool_use", "tool_use"]


@pytest.mark.parametrize("model", [RuleModel(), ScriptedModel(["Just text, no tool."])])
def test_a_forced_tool_is_called_with_an_input_valid_against_its_schema(model: Any) -> None:
    r = ask("hello", model=model, tools=TOOLS, tool_choice={"type": "tool", "name": "get_weather"})
    assert r.stop_reason == "tool_use"
    assert [b.type for b in r.content] == ["tool_use"]  # prefilled: no text before the call
    call = r.content[0]
    assert call.type == "tool_use" and call.name == "get_weather"
    assert_validates(call.input, WEATHER["input_schema"])


def test_a_forced_tool_keeps_the_models_own_fitting_calls() -> None:
    r = ask(TWO_FILES, tools=TOOLS, tool_choice={"type": "tool", "name": "read_file"})
    assert [(b.type, getattr(b, "input", None)) for b in r.content] == [
        ("tool_use", {"path": "setup.cfg"}),
        ("tool_use", {"path": "README.md"}),
    ]


@pytest.mark.parametrize("model", [RuleModel(), ScriptedModel(["prose"])])
def test_any_calls_a_tool(model: Any) -> None:
    r = ask("hello there", model=model, tools=TOOLS, tool_choice={"type": "any"})
    assert r.stop_reason == "tool_use"
    calls = [b for b in r.content if b.type == "tool_use"]
    assert calls and all(b.type == "tool_use" for b in r.content)
    assert calls[0].name == "read_file"
    assert_validates(calls[0].input, READ_FILE["input_schema"])


@pytest.mark.parametrize(
    "model",
    [
        RuleModel(),
        ScriptedModel([[TextBlock("on it"), ToolUseBlock(id="toolu_1", name="read_file", input={"path": "x"})]]),
    ],
)
def test_none_never_calls_a_tool(model: Any) -> None:
    r = ask(TWO_FILES, model=model, tools=TOOLS, tool_choice={"type": "none"})
    assert r.stop_reason == "end_turn"
    assert [b.type for b in r.content] == ["text"]


def test_none_leaves_a_text_when_the_answer_was_only_calls() -> None:
    model = ScriptedModel([[ToolUseBlock(id="toolu_1", name="read_file", input={"path": "x"})]])
    r = ask("go", model=model, tools=TOOLS, tool_choice={"type": "none"})
    assert [(b.type, getattr(b, "text", None)) for b in r.content] == [("text", NO_TOOL_TEXT)]


@pytest.mark.parametrize("kind", ["auto", "any"])
def test_disable_parallel_tool_use_leaves_one_call(kind: str) -> None:
    choice: Any = {"type": kind, "disable_parallel_tool_use": True}
    r = ask(TWO_FILES, tools=TOOLS, tool_choice=choice)
    calls = [b for b in r.content if b.type == "tool_use"]
    assert len(calls) == 1 and r.stop_reason == "tool_use"
    parallel = ask(TWO_FILES, tools=TOOLS, tool_choice={"type": kind})
    assert len([b for b in parallel.content if b.type == "tool_use"]) == 2


def test_a_model_call_that_does_not_fit_the_schema_is_replaced() -> None:
    bad = ToolUseBlock(id="toolu_1", name="get_weather", input={"city": 3})
    r = ask("go", model=ScriptedModel([[bad]]), tools=TOOLS, tool_choice={"type": "tool", "name": "get_weather"})
    call = r.content[0]
    assert call.type == "tool_use" and call.input != {"city": 3}
    assert_validates(call.input, WEATHER["input_schema"])


def test_a_forced_tool_the_request_does_not_define_is_an_error_not_a_silent_answer() -> None:
    body = msgspec.json.encode(
        {
            "model": MODEL,
            "max_tokens": 10,
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [READ_FILE],
            "tool_choice": {"type": "tool", "name": "nope"},
        }
    )
    r = handle_messages(body)
    assert r.status in (400, 500)  # 400 once the request validator checks tool_choice; never a 200
    assert "nope" in r.json()["error"]["message"]


def test_tool_choice_of_reads_every_form() -> None:
    assert tool_choice_of({}).kind == "auto"
    assert tool_choice_of({"tool_choice": {"type": "none"}}).kind == "none"
    forced = tool_choice_of({"tool_choice": {"type": "tool", "name": "x", "disable_parallel_tool_use": True}})
    assert (forced.kind, forced.name, forced.disable_parallel_tool_use, forced.forced) == ("tool", "x", True, True)


def test_streaming_a_forced_call_rebuilds_the_same_message() -> None:
    c = local_client()
    kwargs: Any = {
        "model": MODEL,
        "max_tokens": 256,
        "messages": [{"role": "user", "content": "hi"}],
        "tools": TOOLS,
        "tool_choice": {"type": "tool", "name": "get_weather"},
    }
    with c.messages.stream(**kwargs) as s:
        streamed = s.get_final_message()
    whole = c.messages.create(**kwargs)
    assert streamed.model_dump(exclude={"id"}) == whole.model_dump(exclude={"id"})
    assert streamed.content[0].type == "tool_use" and streamed.stop_reason == "tool_use"


_simple_types = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer", "minimum": 3},
        {"type": "boolean"},
        {"enum": ["a", "b"]},
        {"type": "number"},
    ]
)


@settings(max_examples=60)
@given(st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), _simple_types, min_size=1), st.data())
def test_constrain_is_idempotent_and_a_forced_call_always_fits(properties: dict[str, Any], data: st.DataObject) -> None:
    required = data.draw(st.lists(st.sampled_from(sorted(properties)), unique=True))
    schema = {"type": "object", "properties": properties, "required": required}
    request = {
        "messages": [{"role": "user", "content": "x"}],
        "tools": [{"name": "t", "input_schema": schema}],
        "tool_choice": {"type": "tool", "name": "t"},
    }
    once = constrain([TextBlock("prose")], request)
    assert constrain(once, request) == once
    (call,) = once
    assert call.type == "tool_use" and fits(call.input, schema)
    assert_validates(call.input, schema)


# -- JSON output ---------------------------------------------------------------------------------


class Weather(pydantic.BaseModel):
    city: str
    temperature_c: float
    conditions: Literal["sunny", "cloudy", "rain"]
    tags: list[str]


def test_output_config_json_schema_text_is_one_valid_document() -> None:
    schema = Weather.model_json_schema()
    fmt: Any = {"format": {"type": "json_schema", "schema": schema}}
    r = ask("What's the weather in Paris?", output_config=fmt)
    assert r.stop_reason == "end_turn"
    (block,) = r.content
    assert block.type == "text"
    assert_validates(msgspec.json.decode(block.text), schema)


def test_the_sdk_parse_helper_gets_a_parsed_object() -> None:
    parsed = local_client().messages.parse(
        model=MODEL, max_tokens=256, output_format=Weather, messages=[{"role": "user", "content": "Paris?"}]
    )
    assert isinstance(parsed.parsed_output, Weather)


def test_the_older_beta_output_format_field_is_honoured_too() -> None:
    schema = Weather.model_json_schema()
    body = msgspec.json.encode(
        {
            "model": MODEL,
            "max_tokens": 1024,  # the JSON text must fit: max_tokens cuts it like any text
            "messages": [{"role": "user", "content": "hi"}],
            "output_format": {"type": "json_schema", "schema": schema},
        }
    )
    r = handle_messages(body)
    assert r.status == 200, r.json()
    assert_validates(msgspec.json.decode(r.json()["content"][0]["text"]), schema)


def test_a_scripted_json_text_is_kept() -> None:
    mine = '{"city": "Oslo", "temperature_c": -3.5, "conditions": "cloudy", "tags": ["cold"]}'
    fmt: Any = {"format": {"type": "json_schema", "schema": Weather.model_json_schema()}}
    r = ask("Oslo?", model=ScriptedModel([mine]), output_config=fmt)
    assert r.content[0].type == "text" and r.content[0].text == mine


def test_json_output_leaves_tool_calls_alone() -> None:
    fmt: Any = {"format": {"type": "json_schema", "schema": Weather.model_json_schema()}}
    r = ask(TWO_FILES, tools=TOOLS, output_config=fmt)
    assert r.stop_reason == "tool_use"


# -- thread ----------------------------------------------------------------------------------------


def test_a_thread_gets_the_error_code_the_sdk_recovers_from() -> None:
    body = msgspec.json.encode(
        {
            "model": MODEL,
            "max_tokens": 10,
            "messages": [{"role": "user", "content": "hi"}],
            "thread": {"type": "create"},
        }
    )
    r = handle_messages(body)
    assert r.status == 400
    error = r.json()["error"]
    assert error == {
        "type": "invalid_request_error",
        "message": THREAD_UNSUPPORTED,
        "details": {"error_code": "thread_unsupported_request"},
    }
    with pytest.raises(anthropic.BadRequestError) as info:
        local_client().beta.messages.create(
            model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "hi"}], thread={"type": "create"}
        )
    assert info.value.error_code == "thread_unsupported_request"


@beta_tool
def read_file(path: str) -> str:
    """Read a file of the demo project.

    Args:
        path: the file's path
    """
    return DEMO_FILES.get(path, f"no such file: {path}")


@beta_async_tool
async def aread_file(path: str) -> str:
    """Read a file of the demo project.

    Args:
        path: the file's path
    """
    return DEMO_FILES.get(path, f"no such file: {path}")


aread_file.name = "read_file"


def _runner_kwargs() -> dict[str, Any]:
    return {"model": MODEL, "max_tokens": 512, "messages": [{"role": "user", "content": TWO_FILES}]}


def _check_rounds(messages: list[Any]) -> None:
    assert [m.stop_reason for m in messages] == ["tool_use", "end_turn"]
    assert "setup.cfg" in messages[-1].content[-1].text and "README.md" in messages[-1].content[-1].text


@pytest.mark.parametrize("stream", [False, True])
def test_the_sdk_tool_runner_completes_in_process(stream: bool) -> None:
    runner = local_client().beta.messages.tool_runner(tools=[read_file], stream=stream, **_runner_kwargs())
    messages = [s.get_final_message() for s in runner] if stream else list(runner)
    _check_rounds(messages)


@pytest.mark.parametrize("stream", [False, True])
def test_the_async_sdk_tool_runner_completes_in_process(stream: bool) -> None:
    async def go() -> list[Any]:
        runner = async_local_client().beta.messages.tool_runner(tools=[aread_file], stream=stream, **_runner_kwargs())
        if stream:
            return [await s.get_final_message() async for s in runner]
        return [m async for m in runner]

    _check_rounds(asyncio.run(go()))


@pytest.fixture
def server() -> Iterator[LocalServer]:
    yield from serving()


def test_the_sdk_tool_runner_completes_over_http_sync_async_and_streaming(server: LocalServer) -> None:
    c = anthropic.Anthropic(base_url=server.url, api_key="x", max_retries=0)
    _check_rounds(list(c.beta.messages.tool_runner(tools=[read_file], **_runner_kwargs())))
    _check_rounds(
        [s.get_final_message() for s in c.beta.messages.tool_runner(tools=[read_file], stream=True, **_runner_kwargs())]
    )

    async def go() -> list[Any]:
        ac = anthropic.AsyncAnthropic(base_url=server.url, api_key="x", max_retries=0)
        return [m async for m in ac.beta.messages.tool_runner(tools=[aread_file], **_runner_kwargs())]

    _check_rounds(asyncio.run(go()))


def test_any_after_a_tool_round_calls_a_tool_not_called_yet() -> None:
    """pydantic-ai's tool output mode: function tools plus an output tool, under ``any``."""
    final: Any = {"name": "final_result", "input_schema": Weather.model_json_schema()}
    c = local_client()
    first = c.messages.create(
        model=MODEL,
        max_tokens=256,
        tools=[READ_FILE, final],
        tool_choice={"type": "any"},
        messages=[{"role": "user", "content": "Read setup.cfg, then tell me the weather."}],
    )
    assert [(b.type, getattr(b, "name", None)) for b in first.content] == [("tool_use", "read_file")]
    call = first.content[0]
    assert call.type == "tool_use"
    second = c.messages.create(
        model=MODEL,
        max_tokens=256,
        tools=[READ_FILE, final],
        tool_choice={"type": "any"},
        messages=[
            {"role": "user", "content": "Read setup.cfg, then tell me the weather."},
            {"role": "assistant", "content": [call.model_dump(exclude_none=True)]},  # type: ignore[list-item]
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "x"}]},
        ],
    )
    (answer,) = second.content
    assert answer.type == "tool_use" and answer.name == "final_result"
    Weather.model_validate(answer.input)


def test_a_forced_schema_the_generator_cannot_serve_is_a_400_naming_the_path() -> None:
    coded: Any = {
        "name": "book",
        "input_schema": {
            "type": "object",
            "properties": {"code": {"type": "string", "pattern": "^(?=b)a$"}},  # a look-ahead no string passes
            "required": ["code"],
        },
    }
    body = msgspec.json.encode(
        {
            "model": MODEL,
            "max_tokens": 10,
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [coded],
            "tool_choice": {"type": "any"},
        }
    )
    r = handle_messages(body)
    assert r.status == 400 and r.json()["error"]["type"] == "invalid_request_error"
    assert "cannot build a value for this schema: $.properties.code.pattern" in r.json()["error"]["message"]
