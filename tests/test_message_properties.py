"""Property tests of the message codec: round trips, byte stability, and errors only as ``DecodeError``."""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from strategies_msg import any_blocks, json_values, message_lists, messages, signatures

from msgmodel.core.message import (
    ContentBlock,
    DecodeError,
    Message,
    ThinkingBlock,
    assistant_msg,
    block_to_text,
    from_api,
    from_json,
    to_api,
    to_json,
    transcript_of,
)

FAST = settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow], deadline=None)


def _signatures_of(blocks: list[ContentBlock]) -> list[str | None]:
    return [b.signature for b in blocks if b.type == "thinking"]


@FAST
@given(message_lists)
def test_json_round_trip(msgs: list[Message]) -> None:
    assert from_json(to_json(msgs)) == msgs


@FAST
@given(message_lists)
def test_api_round_trip(msgs: list[Message]) -> None:
    assert from_api(to_api(msgs)) == msgs


@FAST
@given(message_lists)
def test_to_json_is_byte_stable(msgs: list[Message]) -> None:
    once = to_json(msgs)
    assert to_json(from_json(once)) == once


@FAST
@given(message_lists)
def test_to_api_is_plain_json_equal_to_to_json(msgs: list[Message]) -> None:
    api = to_api(msgs)
    assert json.loads(json.dumps(api)) == api  # JSON-serializable with the standard library
    assert api == json.loads(to_json(msgs))
    # and the two encoders (struct fast path and dict path) write the same bytes
    assert msgspec.json.encode(api) == to_json(msgs)


@FAST
@given(message_lists)
def test_fast_decoder_and_walking_decoder_agree(msgs: list[Message]) -> None:
    data = to_json(msgs)
    assert from_json(data) == from_api(json.loads(data))


@FAST
@given(st.lists(st.tuples(st.text(max_size=20), signatures), min_size=1, max_size=4))
def test_thinking_signatures_survive_byte_for_byte(pairs: list[tuple[str, str | None]]) -> None:
    msgs = [assistant_msg([ThinkingBlock(thinking=t, signature=s) for t, s in pairs])]
    [back] = from_json(to_json(msgs))
    assert isinstance(back.content, list)
    got = _signatures_of(back.content)
    assert got == [s for _, s in pairs]
    assert [s.encode() if s is not None else None for s in got] == [
        s.encode() if s is not None else None for _, s in pairs
    ]
    [via_api] = from_api(to_api(msgs))
    assert isinstance(via_api.content, list) and _signatures_of(via_api.content) == got


@FAST
@given(message_lists)
def test_readers_never_fail_on_what_the_codec_holds(msgs: list[Message]) -> None:
    text = transcript_of(msgs)
    assert isinstance(text, str)
    for m in msgs:
        if not isinstance(m.content, str):
            for b in m.content:
                block_to_text(b)


# ---------------------------------------------------------------------------------------
# Only DecodeError, and a path that points into the input
# ---------------------------------------------------------------------------------------


def _resolve(doc: Any, err: DecodeError) -> None:
    """``err.path`` points into ``doc``: every step exists, and its last key is absent iff it is reported missing.

    Paths look like ``$[3].content[0].tool_use_id``: indices, then at most one key after the last one.
    (The key of an "unexpected field" is the input's own key, so it may hold any character.)
    """
    path = err.path
    assert path.startswith("$"), path
    if err.expected.startswith("unexpected field"):
        # The one error whose path ends in an input key, written unquoted (it may hold `.` or `]`).
        m = re.match(r"\$\[(\d+)\]\.", path)
        assert m is not None and isinstance(doc, list), path
        message = doc[int(m.group(1))]
        key = path[m.end() :]
        assert isinstance(message, dict) and key in message and key not in ("role", "content"), path
        return
    cut = path.rfind("]") + 1 or 1
    head, tail = path[1:cut], path[cut:]
    node = doc
    for step in re.findall(r"\[(\d+)\]|\.(content)", head):
        index, key = step
        if index:
            assert isinstance(node, list) and int(index) < len(node), path
            node = node[int(index)]
        else:
            assert isinstance(node, dict) and key in node, path
            node = node[key]
    assert re.fullmatch(r"(\[\d+\]|\.content)*", head), path
    if tail:
        assert tail.startswith("."), path
        key = tail[1:]
        assert isinstance(node, dict), path
        assert (key not in node) == err.expected.startswith("missing required field"), (path, err.expected)


@FAST
@given(st.binary(max_size=200))
@example(b"\xff")
@example(b"")
@example(b'[{"role":"user","content":"\xc3"}]')
def test_from_json_raises_only_decode_error_on_bytes(data: bytes) -> None:
    try:
        from_json(data)
    except DecodeError as e:
        assert e.path == "$"  # bytes that are not JSON fail at the root


@FAST
@given(json_values)
def test_from_json_raises_only_decode_error_on_any_json(value: Any) -> None:
    data = json.dumps(value)
    try:
        result = from_json(data)
    except DecodeError as e:
        _resolve(value, e)
    else:
        assert isinstance(result, list) and all(isinstance(m, Message) for m in result)


def _places(node: Any) -> list[tuple[Any, Any]]:
    """Every (container, key-or-index) in a JSON document."""
    out: list[tuple[Any, Any]] = []
    children = enumerate(node) if isinstance(node, list) else node.items() if isinstance(node, dict) else ()
    for key, child in children:
        out.append((node, key))
        out.extend(_places(child))
    return out


@st.composite
def _mutated(draw: st.DrawFn, doc: Any) -> Any:
    """A copy of ``doc`` with one node anywhere replaced by an arbitrary JSON value, or one key dropped."""
    copy = json.loads(json.dumps(doc))
    places = _places(copy)
    if not places:
        return copy
    parent, key = draw(st.sampled_from(places))
    if isinstance(parent, dict) and draw(st.booleans()):
        del parent[key]
    else:
        parent[key] = draw(json_values | st.sampled_from(["user", "assistant", "system", "text", "tool_result"]))
    return copy


@FAST
@given(st.data(), st.lists(messages(), min_size=1, max_size=4))
def test_from_json_on_mutated_messages_raises_only_decode_error(data: st.DataObject, msgs: list[Message]) -> None:
    doc = data.draw(_mutated(to_api(msgs)))
    try:
        result = from_json(json.dumps(doc))
    except DecodeError as e:
        _resolve(doc, e)
    else:
        assert from_api(doc) == result  # the fast and walking decoders agree on what decodes
        assert from_json(to_json(result)) == result


@FAST
@given(any_blocks)
def test_every_block_round_trips_alone(b: ContentBlock) -> None:
    msgs = [Message(role="assistant", content=[b])]
    assert from_json(to_json(msgs)) == msgs


@pytest.mark.parametrize("seed", range(3))
def test_synthetic_sessions_round_trip(seed: int) -> None:
    from msgmodel.course.synth import synth_session

    msgs = synth_session(120, seed=seed)
    data = to_json(msgs)
    assert from_json(data) == msgs
    assert to_json(from_json(data)) == data
    assert from_api(to_api(msgs)) == msgs
