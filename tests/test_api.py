"""The local Messages API in-process: the handler, the deterministic models, and the official SDK on top.

Everything goes through ``anthropic.Anthropic`` wired to ``msgmodel.api.server.local_client`` (a
mock transport, no socket) unless a test is about the bare handler.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

import anthropic
import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies_conv import broken_conversations, valid_conversations

from msgmodel.api.demo_tools import DEMO_FILES, demo_registry
from msgmodel.api.scripted import RuleModel, ScriptedModel
from msgmodel.api.server import (
    BASE_URL,
    LocalAPI,
    Response,
    async_local_client,
    client,
    handle_messages,
    is_local,
    local_client,
)
from msgmodel.core.message import (
    ContentBlock,
    Message,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    assistant_msg,
    blocks_from_api,
    is_tool_result_message,
    text_of,
    to_api,
    tool_result_block,
    tool_result_msg,
    tool_uses_of,
    transcript_of,
    user_text,
)
from msgmodel.core.protocol import validate_request
from msgmodel.core.tools import run_tool, tools_param

MODEL = "claude-haiku-4-5"
TOOLS: Any = tools_param(demo_registry())  # typed Any: the SDK's TypedDict params would reject plain dicts
ORPHAN_ID = "toolu_01Orphan"
ORPHAN_TEXT = (
    "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01Orphan. "
    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
)
MUST_DEFINE_TOOLS = "Requests which include `tool_use` or `tool_result` blocks must define tools."


def wire(history: Sequence[Message]) -> Any:
    """``to_api``, typed ``Any`` for the SDK's TypedDict parameters."""
    return to_api(history)


def body_of(**request: Any) -> bytes:
    return msgspec.json.encode({"model": MODEL, "max_tokens": 256, **request})


def error_text(err: anthropic.APIStatusError) -> str:
    """The API's own error text: the notebook idiom."""
    assert isinstance(err.body, dict)
    message = err.body["error"]["message"]
    assert isinstance(message, str)
    return message


def ask(c: anthropic.Anthropic, history: Sequence[Message], **kwargs: Any) -> anthropic.types.Message:
    resp: anthropic.types.Message = c.messages.create(model=MODEL, max_tokens=256, messages=wire(history), **kwargs)
    return resp


# ---------------------------------------------------------------------------------------
# Through the official SDK
# ---------------------------------------------------------------------------------------


def test_a_tool_using_exchange_returns_the_expected_blocks_and_stop_reasons() -> None:
    c = local_client()
    history = [user_text("Please read src/app.py")]
    first = ask(c, history, tools=TOOLS)
    assert first.id == "msg_local_000001"
    assert (first.type, first.role, first.model, first.stop_sequence) == ("message", "assistant", MODEL, None)
    assert first.stop_reason == "tool_use"
    blocks = blocks_from_api(first.content)
    assert [b.type for b in blocks] == ["text", "tool_use"]
    call = blocks[1]
    assert isinstance(call, ToolUseBlock)
    assert (call.name, call.input) == ("read_file", {"path": "src/app.py"})
    assert call.id.startswith("toolu_")
    assert first.usage.input_tokens > 0 and first.usage.output_tokens > 0

    history += [assistant_msg(blocks), tool_result_msg([run_tool(demo_registry(), call)])]
    second = ask(c, history, tools=TOOLS)
    assert second.id == "msg_local_000002"
    assert second.stop_reason == "end_turn"
    answer = text_of(assistant_msg(blocks_from_api(second.content)))
    assert "read_file" in answer and "src/app.py" in answer
    assert DEMO_FILES["src/app.py"].splitlines()[0] in answer


def test_an_orphan_tool_result_raises_bad_request_with_the_verbatim_api_text() -> None:
    history = [
        tool_result_msg([tool_result_block(ORPHAN_ID, "def fetch(url): ...")]),
        assistant_msg([TextBlock("The file defines fetch.")]),
        user_text("Now add a timeout."),
    ]
    with pytest.raises(anthropic.BadRequestError) as info:
        ask(local_client(), history, tools=TOOLS)
    err = info.value
    assert err.status_code == 400
    assert error_text(err) == ORPHAN_TEXT
    assert err.api_message == ORPHAN_TEXT
    assert isinstance(err.body, dict) and err.body["error"]["type"] == "invalid_request_error"
    assert err.body["type"] == "error"
    assert err.request_id is not None and err.request_id.startswith("req_")
    assert err.body["request_id"] == err.request_id
    assert str(err).startswith("Error code: 400 - ")
    assert ORPHAN_TEXT in str(err)


def test_tool_blocks_without_tools_raise_the_must_define_tools_error() -> None:
    call = ToolUseBlock(id="toolu_01A", name="read_file", input={"path": "README.md"})
    history = [
        user_text("What does the README say?"),
        assistant_msg([call]),
        tool_result_msg([tool_result_block("toolu_01A", "# fetcher")]),
        user_text("Summarize the conversation so far."),
    ]
    with pytest.raises(anthropic.BadRequestError) as info:
        ask(local_client(), history)
    assert error_text(info.value) == MUST_DEFINE_TOOLS
    assert ask(local_client(), history, tools=TOOLS).stop_reason == "end_turn"  # the same history with tools is fine


def test_basic_field_errors_reach_the_sdk_pydantic_style() -> None:
    c = local_client()
    with pytest.raises(anthropic.BadRequestError) as info:
        c.messages.create(model=MODEL, max_tokens=-1, messages=[{"role": "user", "content": "hi"}])
    assert error_text(info.value) == "max_tokens: Input should be greater than or equal to 0"


def test_a_validating_stream_raises_before_any_event() -> None:
    history = [tool_result_msg([tool_result_block(ORPHAN_ID, "x")]), user_text("go on")]
    with (
        pytest.raises(anthropic.BadRequestError) as info,
        local_client().messages.stream(model=MODEL, max_tokens=64, messages=wire(history), tools=TOOLS) as s,
    ):
        s.get_final_message()
    assert error_text(info.value) == ORPHAN_TEXT


def test_the_async_client_gets_the_same_answers() -> None:
    history = [user_text("What is (3 + 4) * 2?")]

    async def run() -> tuple[anthropic.types.Message, str]:
        c = async_local_client()
        resp = await c.messages.create(model=MODEL, max_tokens=64, messages=wire(history), tools=TOOLS)
        try:
            await c.messages.create(
                model=MODEL,
                max_tokens=64,
                messages=wire([tool_result_msg([tool_result_block(ORPHAN_ID, "x")])]),
                tools=TOOLS,
            )
        except anthropic.BadRequestError as err:
            return resp, error_text(err)
        raise AssertionError("the orphan was accepted")

    resp, text = asyncio.run(run())
    assert resp.model_dump() == ask(local_client(), history, tools=TOOLS).model_dump()
    assert text.startswith("messages.0.content.0: unexpected `tool_use_id`")


def test_count_tokens_answers_for_a_valid_request_and_refuses_an_invalid_one() -> None:
    c = local_client()
    counted = c.messages.count_tokens(model=MODEL, messages=[{"role": "user", "content": "hello there"}])
    assert counted.input_tokens > 0
    with pytest.raises(anthropic.BadRequestError) as info:
        c.messages.count_tokens(
            model=MODEL, messages=wire([tool_result_msg([tool_result_block(ORPHAN_ID, "x")])]), tools=TOOLS
        )
    assert error_text(info.value).startswith("messages.0.content.0: unexpected")


def test_a_failing_model_is_a_500_api_error_with_its_text() -> None:
    c = local_client(ScriptedModel(["only turn"]))
    history = [user_text("a"), assistant_msg([TextBlock("b")]), user_text("c")]
    with pytest.raises(anthropic.InternalServerError) as info:
        ask(c, history)
    assert info.value.status_code == 500
    assert isinstance(info.value.body, dict) and info.value.body["error"]["type"] == "api_error"
    assert "ScriptExhaustedError" in error_text(info.value) and "turn 1" in error_text(info.value)


def test_a_model_block_that_is_not_json_is_a_500_not_a_crash() -> None:
    model = ScriptedModel([[ToolUseBlock(id="toolu_01X", name="grep", input={"pattern": object()})]])
    r = handle_messages(body_of(messages=wire([user_text("go")]), tools=TOOLS), model=model)
    assert r.status == 500
    assert r.json()["error"]["type"] == "api_error"
    assert r.json()["error"]["message"].startswith("local model failed: TypeError")


# ---------------------------------------------------------------------------------------
# Streaming
# ---------------------------------------------------------------------------------------

_SCRIPTED_BLOCKS: list[ContentBlock] = [
    ThinkingBlock(thinking="Let me think about this for a while. " * 5),  # unsigned: the API signs it
    OpaqueBlock({"type": "redacted_thinking", "data": "EuoBCoYBGAIi…opaque"}),
    TextBlock("Ünïcödé ✓ and a long line " * 4),
    ToolUseBlock(id="toolu_01S", name="grep", input={"pattern": "def (\\w+)\\(", "path": ".", "n": [1, 2.5, None]}),
    ToolUseBlock(id="toolu_01T", name="list_dir", input={}),
]

STREAM_CASES: dict[str, tuple[Any, dict[str, Any]]] = {
    "plain text": (None, {"messages": wire([user_text("hello")])}),
    "tool calls": (None, {"messages": wire([user_text("read src/app.py and README.md")]), "tools": TOOLS}),
    "thinking + tools": (
        None,
        {
            "messages": wire([user_text("grep for 'retries' in src/")]),
            "tools": TOOLS,
            "thinking": {"type": "enabled", "budget_tokens": 1024},
        },
    ),
    "scripted kinds": (ScriptedModel([_SCRIPTED_BLOCKS]), {"messages": wire([user_text("go")]), "tools": TOOLS}),
    "empty text": (ScriptedModel([[TextBlock("")]]), {"messages": wire([user_text("go")])}),
}


@pytest.mark.parametrize("case", list(STREAM_CASES))
def test_streaming_rebuilds_exactly_the_non_streaming_message(case: str) -> None:
    model, request = STREAM_CASES[case]
    created = local_client(model).messages.create(model=MODEL, max_tokens=256, **request)
    with local_client(model).messages.stream(model=MODEL, max_tokens=256, **request) as s:
        final = s.get_final_message()
    assert final.id == created.id == "msg_local_000001"  # each client numbers its own messages
    assert blocks_from_api(final.content) == blocks_from_api(created.content)
    assert final.model_dump() == created.model_dump()
    assert (final.stop_reason, final.usage) == (created.stop_reason, created.usage)


def test_the_event_stream_uses_the_api_event_and_delta_kinds() -> None:
    body = body_of(messages=wire([user_text("go")]), tools=TOOLS, stream=True)
    r = handle_messages(body, model=ScriptedModel([_SCRIPTED_BLOCKS]))
    assert r.status == 200
    assert (r.header("content-type") or "").startswith("text/event-stream")
    events = [msgspec.json.decode(line[6:]) for line in r.body.decode().splitlines() if line.startswith("data: ")]
    names = [line[7:] for line in r.body.decode().splitlines() if line.startswith("event: ")]
    assert names == [e["type"] for e in events]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    assert events[0]["message"]["stop_reason"] is None and events[0]["message"]["content"] == []
    deltas = {e["delta"]["type"] for e in events if e["type"] == "content_block_delta"}
    assert deltas == {"thinking_delta", "signature_delta", "text_delta", "input_json_delta"}
    assert events[-2]["delta"]["stop_reason"] == "tool_use"
    starts = [e["index"] for e in events if e["type"] == "content_block_start"]
    stops = [e["index"] for e in events if e["type"] == "content_block_stop"]
    assert starts == stops == list(range(len(_SCRIPTED_BLOCKS)))


# ---------------------------------------------------------------------------------------
# The handler alone: agreement with the validator, field checks, determinism
# ---------------------------------------------------------------------------------------


@settings(max_examples=40)
@given(st.one_of(valid_conversations(max_episodes=3, max_rounds=3), broken_conversations()), st.booleans())
def test_the_handler_refuses_exactly_what_the_validator_refuses(history: list[Message], stream: bool) -> None:
    request = {"model": MODEL, "max_tokens": 256, "messages": wire(history), "tools": TOOLS}
    violations = validate_request(request)
    r = handle_messages(msgspec.json.encode({**request, "stream": stream}))
    if violations:
        assert r.status == 400
        assert r.json()["error"] == {"type": "invalid_request_error", "message": str(violations[0])}
    else:
        assert r.status == 200, r.body[:500]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            b'{"model": "m", "max_tokens": 5, "messages": [',
            "Invalid JSON: EOF while parsing a list at line 1 column 45",
        ),
        (b"", "Invalid JSON: EOF while parsing a value at line 1 column 0"),
        (b"[1, 2]", "Input should be a valid dictionary"),
        (b'{"model": "m", "messages": []}', "max_tokens: Field required"),
        (b'{"model": "m", "max_tokens": "5", "messages": []}', "max_tokens: Input should be a valid integer"),
        (b'{"model": "m", "max_tokens": true, "messages": []}', "max_tokens: Input should be a valid integer"),
        (b'{"model": "m", "max_tokens": -1, "messages": []}', "max_tokens: Input should be greater than or equal to 0"),
        (b'{"max_tokens": -1}', "max_tokens: Input should be greater than or equal to 0"),
        (b'{"model": "m", "max_tokens": 5}', "messages: Field required"),
        (b'{"model": "m", "max_tokens": 5, "messages": {}}', "messages: Input should be a valid list"),
        (b'{"max_tokens": 5, "messages": []}', "model: Field required"),
        (b'{"model": 7, "max_tokens": 5, "messages": []}', "model: Input should be a valid string"),
        (
            b'{"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}], "stream": "maybe"}',
            "stream: Input should be a valid boolean",
        ),
    ],
)
def test_malformed_requests_get_the_api_error_shape(body: bytes, message: str) -> None:
    r = handle_messages(body)
    assert r.status == 400
    assert r.header("content-type") == "application/json"
    payload = r.json()
    assert payload == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": message},
        "request_id": r.header("request-id"),
    }


def test_headers_when_given_must_carry_the_api_version() -> None:
    body = body_of(messages=wire([user_text("hi")]))
    r = handle_messages(body, {"content-type": "application/json"})
    assert (r.status, r.json()["error"]["message"]) == (400, "anthropic-version: header is required")
    assert handle_messages(body, {"Anthropic-Version": "2023-06-01"}).status == 200


def test_answers_and_request_ids_are_deterministic() -> None:
    good = body_of(messages=wire([user_text("read setup.cfg")]), tools=TOOLS)
    assert handle_messages(good, seq=7) == handle_messages(good, seq=7)
    assert handle_messages(good, seq=7).json()["id"] == "msg_local_000007"
    bad = body_of(messages=wire([tool_result_msg([tool_result_block(ORPHAN_ID, "x")])]), tools=TOOLS)
    first, again = handle_messages(bad), handle_messages(bad)
    assert first == again and first.status == 400
    other = handle_messages(bad.replace(b"Orphan", b"Orphan2"))
    assert other.header("request-id") != first.header("request-id")
    assert first.json()["request_id"] == first.header("request-id")


def test_local_api_routes_paths_methods_and_sizes() -> None:
    api = LocalAPI(max_body_bytes=1000)
    ok = body_of(messages=wire([user_text("hi")]))
    assert api.handle("POST", "/v1/messages", None, ok).json()["id"] == "msg_local_000001"
    assert api.handle("POST", "/v1/messages?beta=true", None, ok).json()["id"] == "msg_local_000002"
    missing = api.handle("POST", "/v1/complete", None, ok)
    assert (missing.status, missing.json()["error"]["type"]) == (404, "not_found_error")
    wrong = api.handle("GET", "/v1/messages", None, b"")
    assert (wrong.status, wrong.header("allow")) == (405, "POST")
    big = api.handle("POST", "/v1/messages", None, b" " * 1001)
    assert big.status == 413
    assert big.json()["error"] == {
        "type": "request_too_large",
        "message": "Request exceeds the maximum allowed number of bytes.",
    }


def test_a_non_api_error_is_never_a_python_traceback() -> None:
    """Whatever the body, the answer is a status and a JSON error, not an exception."""
    for body in (b"\xff\xfe", b"null", b'{"model": "m", "max_tokens": 1, "messages": [null]}', b"{" * 10_000):
        r = handle_messages(body)
        assert isinstance(r, Response) and r.status == 400
        assert r.json()["type"] == "error"


# ---------------------------------------------------------------------------------------
# The models
# ---------------------------------------------------------------------------------------


def respond(model: Any, history: Sequence[Message], **request: Any) -> list[ContentBlock]:
    return list(model.respond({"model": MODEL, "max_tokens": 100, "messages": wire(history), **request}))


def test_scripted_model_plays_turn_i_for_i_assistant_messages() -> None:
    model = ScriptedModel(["first", [TextBlock("second")], lambda req: [TextBlock(f"third of {len(req['messages'])}")]])
    h0 = [user_text("a")]
    h1 = [*h0, assistant_msg([TextBlock("x")]), user_text("b")]
    h2 = [*h1, assistant_msg([TextBlock("y")]), user_text("c")]
    assert respond(model, h0) == [TextBlock("first")]
    assert respond(model, h0) == [TextBlock("first")]  # no hidden state: a replay gives the same turn
    assert respond(model, h1) == [TextBlock("second")]
    assert respond(model, h2) == [TextBlock("third of 5")]


def test_scripted_model_refuses_a_turn_that_is_not_blocks_and_is_immutable() -> None:
    with pytest.raises(TypeError, match=r"turn 1: expected a string, a content block or a list.*blocks_from_api"):
        ScriptedModel(["ok", [{"type": "text", "text": "a hand-written dict"}]])  # type: ignore[list-item]
    turn = [TextBlock("a")]
    model = ScriptedModel([turn])
    turn.append(TextBlock("b"))  # the script keeps its own copy
    assert respond(model, [user_text("x")]) == [TextBlock("a")]
    assert hash(model) == hash(ScriptedModel([[TextBlock("a")]]))


TOOL_PROMPTS = [
    "Please read src/app.py",
    "Read README.md and setup.cfg",
    "What is (3 + 4) * 2 ** 3?",
    "grep for 'load_config' in src/",
    "Where is retries used? search for retries",
    "List the files in tests/",
    "Hello!",
]


@settings(max_examples=60)
@given(st.sets(st.sampled_from(["read_file", "list_dir", "grep", "calculator"])), st.sampled_from(TOOL_PROMPTS))
def test_rule_model_calls_only_tools_the_request_defines(names: set[str], prompt: str) -> None:
    tools = [t for t in TOOLS if t["name"] in names]
    blocks = respond(RuleModel(), [user_text(prompt)], **({"tools": tools} if tools else {}))
    calls = tool_uses_of(assistant_msg(blocks))
    assert {c.name for c in calls} <= names
    assert len({c.id for c in calls}) == len(calls)
    for c in calls:
        schema = next(t["input_schema"] for t in tools if t["name"] == c.name)
        assert set(schema["required"]) <= set(c.input) <= set(schema["properties"])
    if not calls:
        assert [b.type for b in blocks] == ["text"]


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("Please read src/app.py", [("read_file", {"path": "src/app.py"})]),
        ("Read README.md and setup.cfg", [("read_file", {"path": "README.md"}), ("read_file", {"path": "setup.cfg"})]),
        ("What is (3 + 4) * 2 ** 3?", [("calculator", {"expression": "(3 + 4) * 2 ** 3"})]),
        ("grep for 'load_config' in src/", [("grep", {"pattern": "load_config", "path": "src/"})]),
        ("List the files in tests/", [("list_dir", {"path": "tests/"})]),
        ("Hello!", []),
    ],
)
def test_rule_model_picks_the_demo_tool_and_its_arguments(prompt: str, expected: list[tuple[str, Any]]) -> None:
    calls = tool_uses_of(assistant_msg(respond(RuleModel(), [user_text(prompt)], tools=TOOLS)))
    assert [(c.name, c.input) for c in calls] == expected


def test_rule_model_runs_a_whole_tool_loop_that_stays_valid_with_thinking() -> None:
    c = local_client()
    registry = demo_registry()
    history = [user_text("Read src/config.py and README.md")]
    thinking = {"type": "enabled", "budget_tokens": 1024}
    for _ in range(3):
        resp = ask(c, history, tools=TOOLS, thinking=thinking)
        blocks = blocks_from_api(resp.content)
        assert isinstance(blocks[0], ThinkingBlock) and blocks[0].signature
        history.append(assistant_msg(blocks))
        calls = tool_uses_of(history[-1])
        if not calls:
            break
        history.append(tool_result_msg([run_tool(registry, call) for call in calls]))
    assert resp.stop_reason == "end_turn"
    assert len(history) == 4
    history.append(user_text("Now what is 6 * 7?"))
    assert ask(c, history, tools=TOOLS, thinking=thinking).stop_reason == "tool_use"


def test_summaries_know_only_what_the_transcript_says() -> None:
    registry = demo_registry()
    call = ToolUseBlock(id="toolu_01R", name="read_file", input={"path": "src/config.py"})
    session = [
        user_text("Why is APP_RETRIES ignored?"),
        assistant_msg([TextBlock("Let me look."), call]),
        tool_result_msg([run_tool(registry, call)]),
        assistant_msg([TextBlock("load_config never converts APP_RETRIES to int.")]),
    ]
    # The step-30 bug: every message holding tool blocks flattened to a placeholder.
    flattened = "\n".join(
        f"{m.role}: {'(tool call)' if tool_uses_of(m) or is_tool_result_message(m) else text_of(m)}" for m in session
    )
    c = local_client()
    instructions = "Summarize the conversation below for the agent."

    def summary(transcript: str) -> str:
        resp = c.messages.create(
            model=MODEL, max_tokens=512, system=instructions, messages=wire([user_text(transcript)])
        )
        return text_of(assistant_msg(blocks_from_api(resp.content)))

    blind, informed = summary(flattened), summary(transcript_of(session))
    assert "read_file" not in blind and "src/config.py" not in blind
    assert "2 step(s) appear only as placeholders like (tool call)" in blind
    assert "Tool calls I can see: 1" in informed
    assert 'read_file {"path":"src/config.py"}' in informed
    assert "Configuration, read from the environment" in informed  # the first line of what was read
    assert "Task: Why is APP_RETRIES ignored?" in informed
    # The same ask in the last user message, no system prompt, works too.
    resp = ask(c, [user_text(transcript_of(session) + "\n\nPlease summarize this.")])
    assert "Tool calls I can see: 1" in text_of(assistant_msg(blocks_from_api(resp.content)))


# ---------------------------------------------------------------------------------------
# client(): local unless the live API is asked for explicitly; the key never shown
# ---------------------------------------------------------------------------------------

SECRET = "sk-ant-api03-SENTINEL-never-show-me-0123456789"


def test_client_is_local_without_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("MSGMODEL_OFFLINE", raising=False)
    monkeypatch.delenv("MSGMODEL_LIVE", raising=False)
    c = client()
    assert is_local(c) and str(c.base_url).rstrip("/") == BASE_URL
    assert ask(c, [user_text("hi")]).stop_reason == "end_turn"


def test_client_stays_local_with_a_key_in_the_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    """Review m8: a key in a developer's shell alone once switched client() to the paid live API."""
    monkeypatch.delenv("MSGMODEL_OFFLINE", raising=False)
    monkeypatch.delenv("MSGMODEL_LIVE", raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    assert is_local(client())
    monkeypatch.setenv("MSGMODEL_LIVE", "0")
    assert is_local(client())


def test_client_reaches_the_live_api_only_when_asked_and_never_shows_the_key(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv("MSGMODEL_OFFLINE", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    monkeypatch.setenv("MSGMODEL_LIVE", "1")
    caplog.set_level("DEBUG")
    c = client()
    assert not is_local(c)
    assert "api.anthropic.com" in str(c.base_url)
    assert SECRET not in repr(c) and SECRET not in str(c)
    assert is_local(client(local=True))
    monkeypatch.delenv("MSGMODEL_LIVE")
    assert not is_local(client(local=False))
    monkeypatch.setenv("MSGMODEL_LIVE", "1")
    monkeypatch.setenv("MSGMODEL_OFFLINE", "1")
    assert is_local(client())
    out, err = capsys.readouterr()
    assert SECRET not in out + err + caplog.text


def test_importing_the_api_module_stays_light() -> None:
    code = "import sys, msgmodel.api.server; print(sorted({'anthropic', 'httpx2'} & set(sys.modules)))"
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.strip() == "[]"
