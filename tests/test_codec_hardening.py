"""Regression tests of issue 11's codec and validator defects (8 to 11), each failing before its fix.

8. The struct field name ``__msgmodel_extra__`` was read as data by the fast decoder.
9. ``from_json`` accepted ``tool_result`` nesting the readers could not handle (RecursionError).
10. ``validate`` raised on mistyped ``Message`` objects.
11. The validator accepted lax booleans that the codec refuses.
"""

from __future__ import annotations

import gc
import json
import threading
from collections.abc import Callable
from typing import Any

import pytest

from msgmodel.core.compact import compact
from msgmodel.core.message import (
    MAX_NESTING,
    DecodeError,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    assistant_msg,
    assistant_text,
    block_to_text,
    from_api,
    from_json,
    message_html,
    result_text,
    to_api,
    to_json,
    tool_result_block,
    transcript_of,
    user_msg,
    user_text,
)
from msgmodel.core.protocol import validate, validate_request

RESERVED = "__msgmodel_extra__"


def _doc(*blocks: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"role": "user", "content": list(blocks)}]


# ---- 8: the internal field name is data like any other key ----------------------------------

_KINDS_WITH_RESERVED_KEY = [
    {"type": "text", "text": "a", RESERVED: {"x": 1}},
    {"type": "thinking", "thinking": "t", "signature": "s", RESERVED: [1, 2]},
    {"type": "tool_use", "id": "t1", "name": "n", "input": {}, RESERVED: None},
    {"type": "tool_result", "tool_use_id": "t1", RESERVED: {"content": "boom", "is_error": True}},
    {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "a", RESERVED: "v"}]},
]


@pytest.mark.parametrize("block", _KINDS_WITH_RESERVED_KEY, ids=lambda b: b["type"])
def test_a_block_spelling_the_internal_field_name_round_trips_verbatim(block: dict[str, Any]) -> None:
    doc = _doc(block)
    assert json.loads(to_json(from_json(json.dumps(doc)))) == doc
    assert to_api(from_api(doc)) == doc
    assert from_json(json.dumps(doc)) == from_api(doc)


def test_a_tool_result_cannot_smuggle_content_past_the_readers() -> None:
    doc = _doc({"type": "tool_result", "tool_use_id": "t", RESERVED: {"content": "boom", "is_error": True}})
    [m] = from_json(json.dumps(doc))
    [b] = m.content
    assert isinstance(b, ToolResultBlock)
    assert (result_text(b), b.is_error) == ("", False)
    wire = to_api([m])[0]["content"][0]
    assert "content" not in wire and "is_error" not in wire  # what the readers see is what is written
    assert wire[RESERVED] == {"content": "boom", "is_error": True}


def test_the_same_block_decodes_the_same_beside_an_unknown_kind() -> None:
    block = {"type": "tool_result", "tool_use_id": "t", RESERVED: {"content": "boom"}}
    [alone] = from_json(json.dumps(_doc(block)))
    [beside] = from_json(json.dumps(_doc(block, {"type": "image", "source": {}})))
    assert isinstance(alone.content, list) and isinstance(beside.content, list)
    assert alone.content[0] == beside.content[0]


# ---- 9: nesting the readers cannot handle is refused at decode, naming the path ---------------


def _nested(depth: int, *, opaque: bool = False) -> list[dict[str, Any]]:
    content: Any = "x"
    for _ in range(depth):
        content = [{"type": "tool_result", "tool_use_id": "t", "content": content}]
    if opaque:  # forces the walking decoder
        content = [*content, {"type": "image", "source": {}}]
    return [{"role": "user", "content": content}]


def _nested_json(depth: int, *, opaque: bool = False) -> str:
    """``json.dumps(_nested(depth))`` without the stdlib encoder's recursion."""
    head = '{"type": "tool_result", "tool_use_id": "t", "content": ['
    tail = ', {"type": "image", "source": {}}' if opaque else ""
    inner = head * (depth - 1) + head[:-1] + '"x"' + "}]" * (depth - 1) + "}"
    return '[{"role": "user", "content": [' + inner + tail + "]}]"


def _deepest_path(depth: int) -> str:
    return "$[0].content[0]" + ".content[0]" * (depth - 1)


@pytest.mark.parametrize("opaque", [False, True], ids=["fast", "walking"])
def test_nesting_up_to_the_limit_decodes_and_every_reader_handles_it(opaque: bool) -> None:
    doc = _nested(MAX_NESTING, opaque=opaque)
    msgs = from_json(json.dumps(doc))
    assert msgs == from_api(doc)
    assert transcript_of(msgs).startswith("User: [result: [result: ")
    assert isinstance(msgs[0].content, list)
    assert block_to_text(msgs[0].content[0]).endswith("x" + "]" * MAX_NESTING)
    assert message_html(msgs[0]).startswith("<div")
    assert to_api(from_json(to_json(msgs))) == doc
    assert isinstance(validate(msgs), list)
    seen: list[str] = []
    call = assistant_msg([ToolUseBlock(id="t", name="n", input={})])
    history = [user_text("first"), call, *msgs, assistant_text("b"), user_text("last")]
    compact(history, keep_recent=1, summarize=lambda t: seen.append(t) or "summary")
    assert "User: [result: [result: " in seen[0]


@pytest.mark.parametrize("depth", [MAX_NESTING + 1, 200])
@pytest.mark.parametrize("opaque", [False, True], ids=["fast", "walking"])
def test_deeper_nesting_is_a_decode_error_naming_the_block(depth: int, opaque: bool) -> None:
    doc = _nested(depth, opaque=opaque)
    assert _nested_json(3, opaque=opaque) == json.dumps(_nested(3, opaque=opaque))
    with pytest.raises(DecodeError) as err:
        from_json(_nested_json(depth, opaque=opaque))
    assert err.value.path == _deepest_path(MAX_NESTING + 1)
    assert f"at most {MAX_NESTING} deep" in err.value.expected
    with pytest.raises(DecodeError) as err:
        from_api(doc)
    assert err.value.path == _deepest_path(MAX_NESTING + 1)


@pytest.mark.parametrize("opaque", [False, True], ids=["fast", "walking"])
def test_nesting_deeper_than_msgspec_parses_here_is_a_decode_error_too(opaque: bool) -> None:
    with pytest.raises(DecodeError) as err:
        from_json(_nested_json(495, opaque=opaque))
    assert err.value.path in ("$", _deepest_path(MAX_NESTING + 1))


def test_the_constructor_refuses_what_the_decoders_refuse() -> None:
    b: ToolResultBlock = tool_result_block("t", "x")
    for _ in range(MAX_NESTING - 1):
        b = tool_result_block("t", [b])
    with pytest.raises(ValueError, match="at most"):
        tool_result_block("t", [b])
    # hand-built structs beyond the limit are refused when passed through from_api
    deep = Message(role="user", content=[ToolResultBlock(tool_use_id="t", content=[b])])
    with pytest.raises(DecodeError) as err:
        from_api([deep])
    assert err.value.path == _deepest_path(MAX_NESTING + 1)


# ---- 10: validate never raises, mistyped Messages included -----------------------------------

_MISTYPED: list[tuple[Message, str]] = [
    (Message(role="user", content=[1]), "messages.0.content.0: Input should be a valid dictionary"),
    (Message(role="user", content=None), "messages.0.content: Input should be a valid list"),
    (Message(role="user", content=5), "messages.0.content: Input should be a valid list"),
    (
        Message(role="user", content=[TextBlock(text=5)]),
        "messages.0.content.0.text.text: Input should be a valid string",
    ),
    (Message(role="user", content=[TextBlock("a", extra=5)]), "messages.0.content.0: Input should be a valid dict"),
    (Message(role="tool", content="x"), "messages.0.role: Input should be"),
]


@pytest.mark.parametrize(("message", "first"), _MISTYPED, ids=range(len(_MISTYPED)))
def test_validate_reports_a_mistyped_message_instead_of_raising(message: Message, first: str) -> None:
    for messages in ([message], [message, {"role": "assistant", "content": "ok"}]):
        violations = validate(messages)
        assert violations and str(violations[0]).startswith(first)
    body = {"model": "claude-sonnet-4-5", "max_tokens": 1, "messages": [message]}
    assert str(validate_request(body)[0]).startswith(first)


# ---- 11: one answer on booleans: the codec's, the SDK types' and the live API's --------------


@pytest.mark.parametrize("value", ["true", "false", 1, 0, 1.0, "yes", None, [], {}])
def test_a_tool_result_flag_that_is_not_a_boolean_is_refused_by_both(value: object) -> None:
    doc = [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "n", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "is_error": value}]},
    ]
    with pytest.raises(DecodeError):
        from_api(doc)
    texts = [str(v) for v in validate(doc)]
    assert texts == ["messages.1.content.0.tool_result.is_error: Input should be a valid boolean"]


@pytest.mark.parametrize("value", ["true", "false", 1, 0, "on", 1.0])
def test_a_stream_flag_that_is_not_a_boolean_is_refused(value: object) -> None:
    body = {"model": "claude-sonnet-4-5", "max_tokens": 1, "messages": [{"role": "user", "content": "hi"}]}
    assert validate_request({**body, "stream": True}) == validate_request({**body, "stream": False}) == []
    assert [str(v) for v in validate_request({**body, "stream": value})] == ["stream: Input should be a valid boolean"]


# ---- the codec near its limit: the collector is paused during a decode, and restored ----------


def _session(n: int) -> bytes:
    call = assistant_msg([ToolUseBlock(id="t", name="n", input={"path": ["a", "b"]})])
    answer = user_msg([tool_result_block("t", [TextBlock("out")]), TextBlock("next")])
    return to_json([user_text("q"), *[m for _ in range(n) for m in (call, answer)]])


def _collections_during(fn: Callable[[], object]) -> list[int]:
    seen: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(note)
    try:
        fn()
    finally:
        gc.callbacks.remove(note)
    return seen


@pytest.mark.parametrize("walking", [False, True], ids=["fast", "walking"])
def test_the_collector_does_not_run_during_a_decode(walking: bool) -> None:
    data = _session(5_000)
    if walking:  # an unknown kind sends the document through the walking decoder
        data = data[:-1] + b',{"role":"user","content":[{"type":"image","source":{}}]}]'
    assert gc.isenabled()
    gc.collect()
    # 10 000 tracked lists and dicts: with the collector on, several young passes would run
    assert len(_collections_during(lambda: from_json(data))) <= 1  # the one that may follow the pause
    assert gc.isenabled()


def test_the_collector_is_restored_after_an_error_and_left_off_if_it_was() -> None:
    with pytest.raises(DecodeError):
        from_json(b'[{"role": "user", "content": [')
    assert gc.isenabled()
    gc.disable()
    try:
        from_json(_session(10))
        with pytest.raises(DecodeError):
            from_json(b"[1]")
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_concurrent_decodes_leave_the_collector_on() -> None:
    data = _session(2_000)
    errors: list[BaseException] = []

    def decode() -> None:
        try:
            for _ in range(5):
                from_json(data)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=decode) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and gc.isenabled()
