"""Unit tests of ``msgmodel.core.message``: constructors, readers, text rendering, codec and its errors.

Property tests of the codec live in ``test_message_properties.py``; this file pins concrete
behaviour with hand-picked examples, the golden transcript and the mypy narrowing promise.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import pickle
import textwrap
from pathlib import Path
from typing import Any

import msgspec
import pytest

from msgmodel.core.message import (
    ARGS_LIMIT,
    RESULT_LIMIT,
    ContentBlock,
    DecodeError,
    Message,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    assistant_msg,
    block_from_api,
    block_to_text,
    blocks_from_api,
    blocks_of,
    from_api,
    from_json,
    is_clean_user_start,
    is_tool_result_message,
    message_to_text,
    server_tool_link,
    text_of,
    to_api,
    to_json,
    tool_result_block,
    tool_result_msg,
    tool_results_of,
    tool_uses_of,
    transcript_of,
    user_text,
)

GOLDEN = Path(__file__).parent / "golden"
REPO = Path(__file__).resolve().parent.parent

IMAGE = OpaqueBlock({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}})
REDACTED = OpaqueBlock({"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"})


def call(i: int, name: str = "read_file", **args: Any) -> ToolUseBlock:
    return ToolUseBlock(id=f"toolu_{i:02d}", name=name, input=args or {"path": "a.py"})


# ---------------------------------------------------------------------------------------
# Constructors
# ---------------------------------------------------------------------------------------


def test_user_text_is_a_user_turn_with_string_content() -> None:
    m = user_text("hello")
    assert m == Message(role="user", content="hello")
    assert isinstance(m.content, str)


def test_assistant_msg_copies_its_blocks_into_a_list() -> None:
    blocks = (TextBlock("a"), call(1))
    m = assistant_msg(blocks)
    assert m.role == "assistant"
    assert m.content == [TextBlock("a"), call(1)]
    assert isinstance(m.content, list)
    # a generator works too, and an empty iterable gives an empty (prefill-style) turn
    assert assistant_msg(b for b in blocks) == m
    assert assistant_msg([]).content == []


def test_tool_result_msg_is_a_user_turn_of_results() -> None:
    r1 = tool_result_block("toolu_01", "ok")
    r2 = tool_result_block("toolu_02", "boom", is_error=True)
    m = tool_result_msg(iter([r1, r2]))
    assert m == Message(role="user", content=[r1, r2])


def test_tool_result_msg_refuses_an_empty_list() -> None:
    with pytest.raises(ValueError, match="at least one tool_result"):
        tool_result_msg([])
    with pytest.raises(ValueError, match="at least one tool_result"):
        tool_result_msg(iter(()))


def test_tool_result_block_string_and_block_content() -> None:
    assert tool_result_block("t1", "out") == ToolResultBlock(tool_use_id="t1", content="out", is_error=False)
    failed = tool_result_block("t1", "no such file", is_error=True)
    assert failed.is_error is True
    blocks = (TextBlock("x"), IMAGE)
    r = tool_result_block("t1", blocks)
    assert r.content == [TextBlock("x"), IMAGE]
    assert isinstance(r.content, list)  # a tuple is copied into a list, the shape msgspec encodes


def test_blocks_are_frozen() -> None:
    b = TextBlock("a")
    with pytest.raises(AttributeError):
        b.text = "b"  # type: ignore[misc,unused-ignore]  # mypy does not see the blocks' frozen=True
    m = user_text("x")
    with pytest.raises(AttributeError):
        m.role = "assistant"  # type: ignore[misc]


# ---------------------------------------------------------------------------------------
# Readers
# ---------------------------------------------------------------------------------------


def test_blocks_of_string_empty_string_and_list() -> None:
    assert blocks_of(user_text("hi")) == [TextBlock("hi")]
    assert blocks_of(user_text("")) == []
    blocks: list[ContentBlock] = [ThinkingBlock("hm", "sig"), TextBlock("a"), call(1)]
    assert blocks_of(assistant_msg(blocks)) == blocks


def test_text_of_joins_text_blocks_only() -> None:
    assert text_of(user_text("plain")) == "plain"
    m = assistant_msg([ThinkingBlock("secret"), TextBlock("Hello, "), call(1), IMAGE, TextBlock("world")])
    assert text_of(m) == "Hello, world"
    assert text_of(tool_result_msg([tool_result_block("toolu_01", "result text")])) == ""


def test_tool_uses_of_and_tool_results_of_keep_order() -> None:
    m = assistant_msg([TextBlock("x"), call(2), OpaqueBlock({"type": "server_tool_use", "id": "s"}), call(1)])
    assert [b.id for b in tool_uses_of(m)] == ["toolu_02", "toolu_01"]
    assert tool_uses_of(user_text("toolu")) == []
    r = tool_result_msg([tool_result_block("b", "1"), tool_result_block("a", "2")])
    assert [b.tool_use_id for b in tool_results_of(r)] == ["b", "a"]
    assert tool_results_of(user_text("x")) == []
    assert tool_results_of(m) == []


def test_server_tool_link_reads_every_server_pair_kind() -> None:
    from msgmodel.core import _known_blocks

    for kind in _known_blocks.SERVER_TOOL_USE_TAGS:
        assert server_tool_link(OpaqueBlock({"type": kind, "id": "s1", "name": "n", "input": {}})) == ("use", "s1")
    for kind in _known_blocks.SERVER_TOOL_RESULT_TAGS:
        assert server_tool_link(OpaqueBlock({"type": kind, "tool_use_id": "s1", "content": []})) == ("result", "s1")
    # Client tool blocks, other kinds, and server blocks without a string id link nothing.
    assert server_tool_link(call(1)) is None
    assert server_tool_link(tool_result_block("toolu_01", "x")) is None
    assert server_tool_link(IMAGE) is None
    assert server_tool_link(OpaqueBlock({"type": "server_tool_use", "id": 7})) is None
    assert server_tool_link(OpaqueBlock({"type": "web_search_tool_result"})) is None


def test_is_tool_result_message() -> None:
    assert is_tool_result_message(tool_result_msg([tool_result_block("a", "1")]))
    mixed = Message(role="user", content=[TextBlock("see below"), tool_result_block("a", "1")])
    assert is_tool_result_message(mixed)
    assert not is_tool_result_message(user_text("a"))
    assert not is_tool_result_message(Message(role="user", content=[TextBlock("a"), IMAGE]))
    assert not is_tool_result_message(assistant_msg([call(1)]))


@pytest.mark.parametrize(
    ("m", "clean"),
    [
        (None, False),
        (user_text("start here"), True),
        (Message(role="user", content=[TextBlock("hi"), IMAGE]), True),
        (Message(role="user", content=[]), True),
        (tool_result_msg([tool_result_block("toolu_01", "orphan")]), False),
        (Message(role="user", content=[TextBlock("note"), tool_result_block("t", "x")]), False),
        (assistant_msg([TextBlock("hi")]), False),
        (Message(role="assistant", content="hi"), False),
    ],
    ids=[
        "none",
        "user-text",
        "user-blocks",
        "user-empty",
        "user-results",
        "user-text-then-result",
        "assistant",
        "assistant-str",
    ],
)
def test_is_clean_user_start(m: Message | None, clean: bool) -> None:
    assert is_clean_user_start(m) is clean


# ---------------------------------------------------------------------------------------
# block_to_text, message_to_text, transcript_of
# ---------------------------------------------------------------------------------------


def test_block_to_text_text_and_thinking() -> None:
    assert block_to_text(TextBlock("as is\nwith newline")) == "as is\nwith newline"
    assert block_to_text(ThinkingBlock("the model's scratch space", "sig")) == ""


def test_block_to_text_tool_call_shows_name_and_compact_json_args() -> None:
    b = ToolUseBlock(id="t", name="grep", input={"pattern": 'é"x', "n": 3, "flags": [True, None]})
    assert block_to_text(b) == '[call grep({"pattern":"é\\"x","n":3,"flags":[true,null]})]'
    assert block_to_text(ToolUseBlock(id="t", name="now", input={})) == "[call now({})]"


def _args_of_json_length(n: int) -> dict[str, str]:
    args = {"k": "x" * (n - len('{"k":""}'))}
    assert len(json.dumps(args, separators=(",", ":"))) == n
    return args


def test_block_to_text_cuts_args_after_exactly_200_characters() -> None:
    assert ARGS_LIMIT == 200
    at_limit = _args_of_json_length(200)
    assert block_to_text(ToolUseBlock(id="t", name="f", input=at_limit)) == '[call f({"k":"' + "x" * 192 + '"})]'
    over = _args_of_json_length(201)
    text = block_to_text(ToolUseBlock(id="t", name="f", input=over))
    assert text == '[call f({"k":"' + "x" * 193 + '"…)]'
    inner = text.removeprefix("[call f(").removesuffix(")]")
    assert len(inner) == 201 and inner.endswith("…")


def test_block_to_text_result_ok_failed_and_cut_at_500() -> None:
    assert RESULT_LIMIT == 500
    assert block_to_text(tool_result_block("t", "fine")) == "[result: fine]"
    assert block_to_text(tool_result_block("t", "exit 1", is_error=True)) == "[result (failed): exit 1]"
    assert block_to_text(tool_result_block("t", "")) == "[result: ]"
    assert block_to_text(tool_result_block("t", "y" * 500)) == "[result: " + "y" * 500 + "]"
    assert block_to_text(tool_result_block("t", "y" * 501)) == "[result: " + "y" * 500 + "…]"
    failed_long = block_to_text(tool_result_block("t", "z" * 600, is_error=True))
    assert failed_long == "[result (failed): " + "z" * 500 + "…]"


def test_block_to_text_result_with_block_list() -> None:
    r = tool_result_block("t", [TextBlock("first"), IMAGE, ThinkingBlock("dropped"), TextBlock("last")])
    assert block_to_text(r) == "[result: first [image] last]"
    long = tool_result_block("t", [TextBlock("a" * 300), TextBlock("b" * 300)])
    assert block_to_text(long) == "[result: " + "a" * 300 + " " + "b" * 199 + "…]"
    assert block_to_text(tool_result_block("t", [])) == "[result: ]"


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        ({"type": "image", "source": {"type": "url", "url": "https://x/y.png"}}, "[image]"),
        ({"type": "document", "source": {"type": "text", "data": "…"}, "title": "Spec v2"}, "[document: Spec v2]"),
        ({"type": "document", "source": {"type": "text", "data": "…"}}, "[document]"),
        ({"type": "document", "title": ""}, "[document]"),
        ({"type": "document", "title": 7}, "[document]"),
        ({"type": "redacted_thinking", "data": "abc"}, ""),
        (
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "msgspec"}},
            '[server call web_search({"query":"msgspec"})]',
        ),
        ({"type": "mcp_tool_use", "id": "m", "name": "fetch", "input": {}}, "[server call fetch({})]"),
        ({"type": "server_tool_use", "id": "s"}, "[server call ?({})]"),
        (
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
            "[server result: web_search_tool_result]",
        ),
        ({"type": "mcp_tool_result", "tool_use_id": "m"}, "[server result: mcp_tool_result]"),
        ({"type": "compaction", "content": "summary"}, "[compaction]"),
        ({"type": "something_new"}, "[something_new]"),
    ],
    ids=lambda v: v if isinstance(v, str) else v["type"],
)
def test_block_to_text_opaque_kinds(raw: dict[str, Any], text: str) -> None:
    assert block_to_text(OpaqueBlock(raw)) == text


def test_block_to_text_server_call_args_are_cut_like_tool_calls() -> None:
    raw = {"type": "server_tool_use", "id": "s", "name": "web_search", "input": _args_of_json_length(260)}
    assert block_to_text(OpaqueBlock(raw)) == '[server call web_search({"k":"' + "x" * 194 + "…)]"


def test_message_to_text() -> None:
    assert message_to_text(user_text("just text\n")) == "just text\n"
    m = assistant_msg([ThinkingBlock("hidden"), TextBlock("Let me look."), REDACTED, call(1, path="x.py")])
    assert message_to_text(m) == 'Let me look.\n[call read_file({"path":"x.py"})]'
    assert message_to_text(assistant_msg([ThinkingBlock("only thinking")])) == ""
    assert message_to_text(Message(role="user", content=[])) == ""


def test_transcript_labels_roles_and_skips_empty_messages() -> None:
    msgs = [
        user_text("Fix it."),
        assistant_msg([ThinkingBlock("hm")]),
        assistant_msg([TextBlock("Reading."), call(1)]),
        tool_result_msg([tool_result_block("toolu_01", "no such file", is_error=True)]),
        user_text(""),
        Message(role="assistant", content="Done."),
    ]
    assert transcript_of(msgs) == (
        "User: Fix it.\n\n"
        'Assistant: Reading.\n[call read_file({"path":"a.py"})]\n\n'
        "User: [result (failed): no such file]\n\n"
        "Assistant: Done."
    )
    assert transcript_of([]) == ""
    assert transcript_of(iter([user_text("gen")])) == "User: gen"


# ---------------------------------------------------------------------------------------
# Golden transcript
# ---------------------------------------------------------------------------------------


def golden_conversation() -> list[Message]:
    """A realistic coding-agent session: thinking, parallel calls, a failure, long I/O, an image."""
    long_patch = "\n".join(f"-    retries = {i}\n+    retries = {i + 1}" for i in range(12))
    long_log = "\n".join(
        f"tests/test_client.py::test_retry_{i:02d} {'PASSED' if i % 7 else 'FAILED'}" for i in range(30)
    )
    return [
        user_text("The HTTP client gives up after the first timeout. Make it retry, and add a test."),
        assistant_msg(
            [
                ThinkingBlock(
                    "The retry loop probably resets its counter. Read the client first.",
                    signature="EqQBCkgIARABGAIiQGx0c2lnbmF0dXJl",
                ),
                TextBlock("I'll read the client and its tests first."),
                ToolUseBlock(id="toolu_01", name="read_file", input={"path": "src/client.py"}),
                ToolUseBlock(id="toolu_02", name="read_file", input={"path": "tests/test_client.py"}),
            ]
        ),
        tool_result_msg(
            [
                tool_result_block("toolu_01", "def get(url):\n    retries = 0\n    while retries < 3:\n        ..."),
                tool_result_block("toolu_02", "No such file or directory: tests/test_client.py", is_error=True),
            ]
        ),
        assistant_msg(
            [
                TextBlock("There is no test file yet. The counter is reset inside the loop; I'll patch it."),
                ToolUseBlock(id="toolu_03", name="apply_patch", input={"path": "src/client.py", "patch": long_patch}),
            ]
        ),
        tool_result_msg([tool_result_block("toolu_03", [TextBlock("Patched 1 file."), TextBlock("12 hunks.")])]),
        assistant_msg([REDACTED, ToolUseBlock(id="toolu_04", name="bash", input={"command": "pytest -q"})]),
        tool_result_msg([tool_result_block("toolu_04", long_log, is_error=True)]),
        Message(role="user", content=[TextBlock("Here is what I see in the dashboard:"), IMAGE]),
        assistant_msg(
            [
                OpaqueBlock(
                    {
                        "type": "server_tool_use",
                        "id": "srvtoolu_01",
                        "name": "web_search",
                        "input": {"query": "httpx retry transport backoff"},
                    }
                ),
                OpaqueBlock({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []}),
                TextBlock("The dashboard shows test_retry_00 failing; the backoff must start at 1 s, not 0."),
            ]
        ),
        user_text("Good. Summarize what you changed."),
        assistant_msg([ThinkingBlock("Short answer.", signature="c2ln"), TextBlock("Retries now count up to 3.")]),
    ]


def test_golden_transcript() -> None:
    """``transcript_of`` of a realistic session equals tests/golden/transcript.txt.

    To accept an intended change, run with ``MSGMODEL_REGEN_GOLDEN=1`` and review the diff.
    """
    path = GOLDEN / "transcript.txt"
    actual = transcript_of(golden_conversation()) + "\n"
    if os.environ.get("MSGMODEL_REGEN_GOLDEN"):
        path.write_text(actual, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                fromfile="tests/golden/transcript.txt",
                tofile="transcript_of(golden_conversation())",
            )
        )
        pytest.fail(f"transcript differs from the golden file (MSGMODEL_REGEN_GOLDEN=1 to accept):\n{diff}")


def test_golden_conversation_survives_the_codec() -> None:
    msgs = golden_conversation()
    assert from_json(to_json(msgs)) == msgs
    assert from_api(to_api(msgs)) == msgs


# ---------------------------------------------------------------------------------------
# OpaqueBlock
# ---------------------------------------------------------------------------------------


def test_opaque_block_kind_raw_equality_and_repr() -> None:
    a = OpaqueBlock({"type": "image", "source": {"type": "url", "url": "u"}})
    b = OpaqueBlock({"type": "image", "source": {"type": "url", "url": "u"}})
    c = OpaqueBlock({"type": "image", "source": {"type": "url", "url": "v"}})
    assert a.type == "opaque"
    assert a.kind == "image"
    assert a == b and hash(a) == hash(b)
    assert a != c
    assert a != {"type": "image", "source": {"type": "url", "url": "u"}}  # not equal to its raw dict
    assert a != TextBlock("image")
    assert len({a, b, c}) == 2
    assert repr(a) == "OpaqueBlock({'type': 'image', 'source': {'type': 'url', 'url': 'u'}})"


def test_opaque_block_is_immutable() -> None:
    a = OpaqueBlock({"type": "image"})
    with pytest.raises(AttributeError, match="immutable"):
        a.raw = {"type": "document"}  # type: ignore[misc,unused-ignore]
    with pytest.raises(AttributeError, match="immutable"):
        a.other = 1  # type: ignore[attr-defined,unused-ignore]
    assert a.kind == "image"


def test_opaque_block_refuses_delattr() -> None:
    a = OpaqueBlock({"type": "image"})
    with pytest.raises(AttributeError, match="immutable"):
        del a.raw


def test_opaque_block_hash_agrees_with_eq_whatever_the_key_order() -> None:
    a = OpaqueBlock({"type": "image", "source": {"a": 1, "b": 2}})
    b = OpaqueBlock({"source": {"b": 2, "a": 1}, "type": "image"})
    assert a == b
    assert hash(a) == hash(b)


def test_messages_with_opaque_blocks_copy_and_pickle() -> None:
    m = assistant_msg([TextBlock("see"), IMAGE])
    assert copy.deepcopy(m) == m
    assert copy.copy(IMAGE) == IMAGE
    assert pickle.loads(pickle.dumps(m)) == m


@pytest.mark.parametrize("raw", [{}, {"type": 3}, {"kind": "image"}, ["image"], "image"])
def test_opaque_block_needs_an_object_with_a_string_type(raw: Any) -> None:
    with pytest.raises(TypeError, match="string 'type'"):
        OpaqueBlock(raw)


# ---------------------------------------------------------------------------------------
# Codec: JSON and API dicts
# ---------------------------------------------------------------------------------------


def _compact(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def test_to_json_writes_the_api_shape_and_omits_defaults() -> None:
    msgs = [
        user_text("hi"),
        assistant_msg([ThinkingBlock("t"), ThinkingBlock("s", "sig"), call(1)]),
        tool_result_msg([tool_result_block("toolu_01", ""), tool_result_block("toolu_02", [], is_error=True)]),
    ]
    assert json.loads(to_json(msgs)) == [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "t"},
                {"type": "thinking", "thinking": "s", "signature": "sig"},
                {"type": "tool_use", "id": "toolu_01", "name": "read_file", "input": {"path": "a.py"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01"},
                {"type": "tool_result", "tool_use_id": "toolu_02", "content": [], "is_error": True},
            ],
        },
    ]
    assert to_json([]) == b"[]"


def test_from_json_accepts_str_and_bytes_and_fills_defaults() -> None:
    doc = '[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t"},{"type":"thinking","thinking":"x"}]}]'
    expected = [Message(role="user", content=[tool_result_block("t", ""), ThinkingBlock("x")])]
    assert from_json(doc) == expected
    assert from_json(doc.encode()) == expected
    explicit = '[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"","is_error":false}]}]'
    assert from_json(explicit) == [Message(role="user", content=[tool_result_block("t", "")])]
    assert from_json('[{"role":"assistant","content":[{"type":"thinking","thinking":"x","signature":null}]}]') == [
        assistant_msg([ThinkingBlock("x")])
    ]


@pytest.mark.parametrize(
    "wire",
    [
        # Unknown kinds, written back exactly, key order included.
        {"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "image", "source": {"x": 1}}]},
        {"role": "assistant", "content": [{"type": "redacted_thinking", "data": "EmwKAhgBEgy3"}]},
        # Extras on every known kind, after the core fields (where to_json writes them).
        {"role": "user", "content": [{"type": "text", "text": "big doc", "cache_control": {"type": "ephemeral"}}]},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "text",
                    "text": "cited",
                    "citations": [{"type": "char_location", "cited_text": "x", "start_char_index": 0}],
                },
                {"type": "thinking", "thinking": "t", "signature": "c2ln", "cache_control": {"type": "ephemeral"}},
                {"type": "tool_use", "id": "t1", "name": "f", "input": {}, "caller": {"type": "direct"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "content": [{"type": "text", "text": "r", "cache_control": {"type": "ephemeral"}}],
                    "is_error": True,
                    "cache_control": {"type": "ephemeral", "ttl": "1h"},
                }
            ],
        },
    ],
    ids=["image", "redacted-thinking", "cache-control", "citations-and-more", "nested-extra"],
)
def test_canonical_wire_json_round_trips_byte_for_byte(wire: dict[str, Any]) -> None:
    data = _compact([wire])
    msgs = from_json(data)
    assert to_json(msgs) == data
    assert to_api(msgs) == [wire]
    assert from_api([wire]) == msgs


def test_extras_are_kept_in_extra_and_written_back_flat() -> None:
    data = _compact(
        [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}},
                    {"type": "tool_result", "tool_use_id": "t", "content": "r", "cache_control": {"type": "ephemeral"}},
                ],
            }
        ]
    )
    [m] = from_json(data)
    assert isinstance(m.content, list)
    text, result = m.content
    assert text == TextBlock("a", extra={"cache_control": {"type": "ephemeral"}})
    assert result == ToolResultBlock(tool_use_id="t", content="r", extra={"cache_control": {"type": "ephemeral"}})
    out = json.loads(to_json([m]))
    assert out[0]["content"][0] == {"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}}
    assert "extra" not in out[0]["content"][0] and b"__msgmodel_extra__" not in to_json([m])


def test_extras_in_a_nested_tool_result_are_written_flat() -> None:
    inner = ToolResultBlock(tool_use_id="b", content=[TextBlock("a", extra={"cache_control": {"type": "ephemeral"}})])
    msgs = [Message(role="user", content=[tool_result_block("a", [inner])])]
    assert b"__msgmodel_extra__" not in to_json(msgs)
    assert json.loads(to_json(msgs)) == to_api(msgs)


def test_signatures_come_back_byte_for_byte() -> None:
    sig = 'EqQBCkgIARAB/+==\u00e9\u4e2d\U0001f600\\"\n'
    [m] = from_json(to_json([assistant_msg([ThinkingBlock("t", sig)])]))
    assert isinstance(m.content, list)
    [b] = m.content
    assert isinstance(b, ThinkingBlock)
    assert b.signature == sig and b.signature.encode() == sig.encode()
    # JSON escapes in the input decode to the same string the API meant.
    [m2] = from_json(b'[{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":"a\\u00e9\\/b"}]}]')
    assert isinstance(m2.content, list) and m2.content[0] == ThinkingBlock("", "aé/b")


def test_to_api_gives_plain_dicts_the_sdk_accepts() -> None:
    msgs = [user_text("hi"), assistant_msg([TextBlock("a"), IMAGE]), tool_result_msg([tool_result_block("t", "x")])]
    api = to_api(msgs)
    assert api == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "text", "text": "a"}, dict(IMAGE.raw)]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "x"}]},
    ]
    assert json.loads(json.dumps(api)) == api
    assert to_api(iter(msgs)) == api


def test_from_api_accepts_tuples_and_passes_messages_and_blocks_through() -> None:
    m = assistant_msg([TextBlock("x")])
    assert from_api((m, {"role": "user", "content": ("hi", {"type": "text", "text": "y"})[1:]})) == [
        m,
        Message(role="user", content=[TextBlock("y")]),
    ]
    b = call(3)
    assert block_from_api(b) is b
    assert from_api([{"role": "assistant", "content": [b, IMAGE]}]) == [assistant_msg([b, IMAGE])]
    kept = Message(role="user", content=[ToolResultBlock("t1", [TextBlock("r", extra={"citations": []})], extra=_CC)])
    assert from_api([kept])[0] is kept  # a valid built struct, extras included, is still passed through as is


_CC: Any = {"cache_control": {"type": "ephemeral"}}


def _retyped_opaque() -> OpaqueBlock:
    b = OpaqueBlock({"type": "image"})
    b.raw["type"] = "text"  # type: ignore[index]  # the held dict is mutable
    return b


@pytest.mark.parametrize(
    ("built", "path"),
    [  # each passed from_api unchecked, then reached the wire as something its readers never saw
        (Message(role="user", content=[ToolResultBlock("t1", "", extra={"content": "boom"})]), "$[0].content[0]"),
        (Message(role="user", content=[ToolResultBlock("t1", "ok", extra={"is_error": True})]), "$[0].content[0]"),
        (Message(role="assistant", content=[msgspec.structs.replace(TextBlock("a"), text=5)]), "$[0].content[0].text"),
        (Message(role="tool", content="x"), "$[0].role"),  # type: ignore[arg-type]
        (Message(role="user", content=[1]), "$[0].content[0]"),  # type: ignore[list-item]
        (Message(role="user", content=None), "$[0].content"),  # type: ignore[arg-type]
        (Message(role="user", content=[_retyped_opaque()]), "$[0].content[0]"),
    ],
)
def test_from_api_refuses_a_built_struct_that_smuggles_what_a_dict_could_not(built: Message, path: str) -> None:
    with pytest.raises(DecodeError) as err:
        from_api([built])
    assert err.value.path.startswith(path)


def test_block_from_api_and_blocks_from_api_on_dicts() -> None:
    assert block_from_api({"type": "text", "text": "x"}) == TextBlock("x")
    assert block_from_api({"type": "image", "source": {}}) == OpaqueBlock({"type": "image", "source": {}})
    assert blocks_from_api(
        [{"type": "thinking", "thinking": "a", "signature": "s"}, {"type": "text", "text": "b"}]
    ) == [
        ThinkingBlock("a", "s"),
        TextBlock("b"),
    ]
    assert blocks_from_api([]) == []


def test_from_api_copies_opaque_raw_so_later_edits_to_the_input_do_not_leak_in() -> None:
    raw = {"type": "image", "source": {"x": 1}}
    [m] = from_api([{"role": "user", "content": [raw]}])
    raw["type"] = "document"
    assert isinstance(m.content, list) and m.content[0] == OpaqueBlock({"type": "image", "source": {"x": 1}})


# ---------------------------------------------------------------------------------------
# Codec: SDK response objects (pydantic models of the anthropic SDK)
# ---------------------------------------------------------------------------------------


def test_blocks_from_api_reads_sdk_response_blocks() -> None:
    types = pytest.importorskip("anthropic.types")
    sdk_blocks = [
        types.ThinkingBlock(type="thinking", thinking="Let me check.", signature="EqQBCkgIARAB+/="),
        types.TextBlock(type="text", text="Reading the file."),
        types.ToolUseBlock(type="tool_use", id="toolu_01", name="read_file", input={"path": "a.py"}),
    ]
    assert blocks_from_api(sdk_blocks) == [
        ThinkingBlock("Let me check.", "EqQBCkgIARAB+/="),
        TextBlock("Reading the file."),
        ToolUseBlock(id="toolu_01", name="read_file", input={"path": "a.py"}),
    ]
    # exclude_none: the SDK's `citations=None` / `caller=None` do not become extras
    assert all(b.type != "opaque" and b.extra is None for b in blocks_from_api(sdk_blocks))


def test_sdk_blocks_with_extras_and_unknown_kinds() -> None:
    types = pytest.importorskip("anthropic.types")
    cited = types.TextBlock(
        type="text",
        text="It says so.",
        citations=[
            types.CitationCharLocation(
                type="char_location",
                cited_text="so",
                document_index=0,
                document_title=None,
                start_char_index=0,
                end_char_index=2,
                file_id=None,
            )
        ],
    )
    redacted = types.RedactedThinkingBlock(type="redacted_thinking", data="EmwKAhgB")
    call_with_caller = types.ToolUseBlock(
        type="tool_use", id="toolu_02", name="f", input={}, caller=types.DirectCaller(type="direct")
    )
    text, opaque, tool = blocks_from_api([cited, redacted, call_with_caller], path="resp.content")
    assert isinstance(text, TextBlock) and text.extra is not None
    assert text.extra["citations"][0]["cited_text"] == "so"
    assert opaque == OpaqueBlock({"type": "redacted_thinking", "data": "EmwKAhgB"})
    assert tool == ToolUseBlock(id="toolu_02", name="f", input={}, extra={"caller": {"type": "direct"}})
    msgs = [assistant_msg([text, opaque, tool])]
    assert from_json(to_json(msgs)) == msgs


def test_from_api_with_sdk_blocks_as_message_content() -> None:
    types = pytest.importorskip("anthropic.types")
    content = [
        types.TextBlock(type="text", text="Running it."),
        types.ToolUseBlock(type="tool_use", id="toolu_01", name="bash", input={"command": "ls"}),
    ]
    history = [{"role": "user", "content": "list files"}, {"role": "assistant", "content": content}]
    assert from_api(history) == [
        user_text("list files"),
        assistant_msg([TextBlock("Running it."), ToolUseBlock(id="toolu_01", name="bash", input={"command": "ls"})]),
    ]


def test_from_api_on_a_whole_sdk_response_names_its_first_foreign_field() -> None:
    types = pytest.importorskip("anthropic.types")
    resp = types.Message(
        id="msg_01",
        type="message",
        role="assistant",
        model="claude-haiku-4-5",
        content=[types.TextBlock(type="text", text="hi")],
        stop_reason="end_turn",
        stop_sequence=None,
        usage=types.Usage(input_tokens=1, output_tokens=1),
    )
    with pytest.raises(DecodeError) as info:
        from_api([resp])
    assert info.value.path == "$[0].id"
    # what works: the response's blocks
    assert assistant_msg(blocks_from_api(resp.content)) == assistant_msg([TextBlock("hi")])


# ---------------------------------------------------------------------------------------
# DecodeError: paths and messages
# ---------------------------------------------------------------------------------------


def _msg(*blocks: Any, role: str = "user") -> dict[str, Any]:
    return {"role": role, "content": list(blocks)}


_OK_USER = {"role": "user", "content": "fine"}
_OK_ASSISTANT = {"role": "assistant", "content": [{"type": "text", "text": "fine"}]}
_PAD = [_OK_USER, _OK_ASSISTANT, _OK_USER]  # puts the bad message at index 3
_ROLES = "expected 'user', 'assistant' or 'system'"

DECODE_CASES: list[tuple[str, Any, str, str]] = [
    # (id, document, path, expected)
    ("object", {"messages": []}, "$", "expected an array of messages, got an object"),
    ("string", "hello", "$", "expected an array of messages, got a string"),
    ("null", None, "$", "expected an array of messages, got null"),
    ("number", 3, "$", "expected an array of messages, got a number"),
    ("msg-number", [1], "$[0]", "expected a message object, got a number"),
    ("msg-array", [_OK_USER, []], "$[1]", "expected a message object, got an array"),
    ("msg-bool", [True], "$[0]", "expected a message object, got a boolean"),
    ("role-missing", [{"content": "x"}], "$[0].role", "missing required field `role`"),
    ("role-tool", [*_PAD, {"role": "tool", "content": "x"}], "$[3].role", f"{_ROLES}, got 'tool'"),
    ("role-number", [{"role": 1, "content": "x"}], "$[0].role", f"{_ROLES}, got 1"),
    ("role-null", [{"role": None, "content": "x"}], "$[0].role", f"{_ROLES}, got None"),
    ("content-missing", [{"role": "user"}], "$[0].content", "missing required field `content`"),
    (
        "content-number",
        [{"role": "user", "content": 5}],
        "$[0].content",
        "expected a string or an array of blocks, got a number",
    ),
    (
        "content-object",
        [{"role": "user", "content": {"type": "text", "text": "x"}}],
        "$[0].content",
        "expected a string or an array of blocks, got an object",
    ),
    (
        "content-null",
        [{"role": "assistant", "content": None}],
        "$[0].content",
        "expected a string or an array of blocks, got null",
    ),
    (
        "unknown-message-key",
        [{"role": "user", "content": "x", "name": "bob"}],
        "$[0].name",
        "unexpected field (a message has only `role` and `content`)",
    ),
    (
        "unknown-key-before-role",
        [{"id": "msg_1", "role": "system", "content": "x"}],
        "$[0].id",
        "unexpected field (a message has only `role` and `content`)",
    ),
    ("block-number", [_msg(5)], "$[0].content[0]", "expected a content block object, got a number"),
    (
        "block-string",
        [_msg({"type": "text", "text": "a"}, "b")],
        "$[0].content[1]",
        "expected a content block object, got a string",
    ),
    ("type-missing", [_msg({"text": "a"})], "$[0].content[0].type", "missing required field `type` of a content block"),
    ("type-number", [_msg({"type": 1})], "$[0].content[0].type", "expected a string, got a number"),
    ("type-null", [_msg({"type": None})], "$[0].content[0].type", "expected a string, got null"),
    (
        "text-missing",
        [_msg({"type": "text"})],
        "$[0].content[0].text",
        "missing required field `text` of a `text` block",
    ),
    ("text-number", [_msg({"type": "text", "text": 1})], "$[0].content[0].text", "expected a string, got a number"),
    ("text-null", [_msg({"type": "text", "text": None})], "$[0].content[0].text", "expected a string, got null"),
    ("text-array", [_msg({"type": "text", "text": ["a"]})], "$[0].content[0].text", "expected a string, got an array"),
    (
        "thinking-missing",
        [_msg({"type": "thinking", "signature": "s"}, role="assistant")],
        "$[0].content[0].thinking",
        "missing required field `thinking` of a `thinking` block",
    ),
    (
        "thinking-bool",
        [_msg({"type": "thinking", "thinking": True}, role="assistant")],
        "$[0].content[0].thinking",
        "expected a string, got a boolean",
    ),
    (
        "signature-number",
        [_msg({"type": "thinking", "thinking": "t", "signature": 7}, role="assistant")],
        "$[0].content[0].signature",
        "expected a string, got a number",
    ),
    (
        "signature-object",
        [*_PAD, _msg({"type": "text", "text": "a"}, {"type": "thinking", "thinking": "t", "signature": {}})],
        "$[3].content[1].signature",
        "expected a string, got an object",
    ),
    (
        "tool-use-id-missing",
        [_msg({"type": "tool_use", "name": "f", "input": {}}, role="assistant")],
        "$[0].content[0].id",
        "missing required field `id` of a `tool_use` block",
    ),
    (
        "tool-use-id-number",
        [_msg({"type": "tool_use", "id": 1, "name": "f", "input": {}}, role="assistant")],
        "$[0].content[0].id",
        "expected a string, got a number",
    ),
    (
        "tool-use-name-missing",
        [_msg({"type": "tool_use", "id": "t", "input": {}}, role="assistant")],
        "$[0].content[0].name",
        "missing required field `name` of a `tool_use` block",
    ),
    (
        "tool-use-name-null",
        [_msg({"type": "tool_use", "id": "t", "name": None, "input": {}}, role="assistant")],
        "$[0].content[0].name",
        "expected a string, got null",
    ),
    (
        "tool-use-input-missing",
        [_msg({"type": "tool_use", "id": "t", "name": "f"}, role="assistant")],
        "$[0].content[0].input",
        "missing required field `input` of a `tool_use` block",
    ),
    (
        "tool-use-input-array",
        [_msg({"type": "tool_use", "id": "t", "name": "f", "input": []}, role="assistant")],
        "$[0].content[0].input",
        "expected an object, got an array",
    ),
    (
        "tool-use-input-string",
        [_msg({"type": "tool_use", "id": "t", "name": "f", "input": '{"a":1}'}, role="assistant")],
        "$[0].content[0].input",
        "expected an object, got a string",
    ),
    (
        "tool-result-id-missing",
        [_msg({"type": "tool_result", "content": "x"})],
        "$[0].content[0].tool_use_id",
        "missing required field `tool_use_id` of a `tool_result` block",
    ),
    (
        "tool-result-id-number",
        [*_PAD, _msg({"type": "tool_result", "tool_use_id": 42})],
        "$[3].content[0].tool_use_id",
        "expected a string, got a number",
    ),
    (
        "tool-result-is-error-string",
        [_msg({"type": "tool_result", "tool_use_id": "t", "is_error": "yes"})],
        "$[0].content[0].is_error",
        "expected a boolean, got a string",
    ),
    (
        "tool-result-is-error-number",
        [_msg({"type": "tool_result", "tool_use_id": "t", "is_error": 1})],
        "$[0].content[0].is_error",
        "expected a boolean, got a number",
    ),
    (
        "tool-result-is-error-null",
        [_msg({"type": "tool_result", "tool_use_id": "t", "is_error": None})],
        "$[0].content[0].is_error",
        "expected a boolean, got null",
    ),
    (
        "tool-result-content-number",
        [_msg({"type": "tool_result", "tool_use_id": "t", "content": 3})],
        "$[0].content[0].content",
        "expected a string or an array of blocks, got a number",
    ),
    (
        "tool-result-content-object",
        [_msg({"type": "tool_result", "tool_use_id": "t", "content": {"type": "text", "text": "x"}})],
        "$[0].content[0].content",
        "expected a string or an array of blocks, got an object",
    ),
    (
        "tool-result-content-null",
        [_msg({"type": "tool_result", "tool_use_id": "t", "content": None})],
        "$[0].content[0].content",
        "expected a string or an array of blocks, got null",
    ),
    (
        "tool-result-nested-block-number",
        [_msg({"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": "a"}, 5]})],
        "$[0].content[0].content[1]",
        "expected a content block object, got a number",
    ),
    (
        "tool-result-nested-text-missing",
        [
            *_PAD,
            _msg(
                {"type": "text", "text": "x"},
                {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text"}]},
            ),
        ],
        "$[3].content[1].content[0].text",
        "missing required field `text` of a `text` block",
    ),
    (
        "tool-result-nested-type-missing",
        [_msg({"type": "tool_result", "tool_use_id": "t", "content": [{"text": "a"}]})],
        "$[0].content[0].content[0].type",
        "missing required field `type` of a content block",
    ),
    (
        "first-error-wins",
        [_msg({"type": "text", "text": 1}, {"type": "text"}), {"role": "system", "content": "x"}],
        "$[0].content[0].text",
        "expected a string, got a number",
    ),
]


@pytest.mark.parametrize(("doc", "path", "expected"), [c[1:] for c in DECODE_CASES], ids=[c[0] for c in DECODE_CASES])
def test_decode_errors_name_path_and_expectation(doc: Any, path: str, expected: str) -> None:
    for via_json in (True, False):
        with pytest.raises(DecodeError) as info:
            from_json(json.dumps(doc)) if via_json else from_api(doc)
        err = info.value
        assert err.path == path
        assert err.expected == expected
        assert str(err) == f"{path}: {expected}"
        assert err.source is None
        assert isinstance(err, ValueError)


@pytest.mark.parametrize(
    ("data", "detail"),
    [
        (b"", "Input data was truncated"),
        (b"   ", "Input data was truncated"),
        (b"[", "Input data was truncated"),
        (b'[{"role":"user","content":"x",}]', "JSON is malformed"),
        (b"[{'role':'user'}]", "JSON is malformed"),
        (b'[{"role":"user","content":"x"}] trailing', "JSON is malformed"),
        (b'[{"role":"user","content":"\xff"}]', "Invalid UTF-8"),
        (b"\xff\xfe[\x00]\x00", "JSON is malformed"),
        (b"[NaN]", "JSON is malformed"),
        (
            b'[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{"x":1e999}}]}]',
            "out of range",
        ),
    ],
    ids=[
        "empty",
        "blank",
        "truncated",
        "trailing-comma",
        "single-quotes",
        "trailing-text",
        "non-utf8",
        "utf16",
        "nan",
        "huge-float",
    ],
)
def test_invalid_json_is_a_decode_error_at_the_root(data: bytes, detail: str) -> None:
    with pytest.raises(DecodeError) as info:
        from_json(data)
    assert info.value.path == "$"
    assert info.value.expected.startswith("expected valid JSON (")
    assert detail in info.value.expected


def test_decode_error_source_is_prefixed() -> None:
    with pytest.raises(DecodeError) as info:
        from_json(b'[{"role":"tool","content":"x"}]', source="session.json")
    assert info.value.source == "session.json"
    assert str(info.value) == f"session.json: $[0].role: {_ROLES}, got 'tool'"
    with pytest.raises(DecodeError, match=r"^bad\.json: \$: expected valid JSON"):
        from_json(b"{", source="bad.json")
    with pytest.raises(DecodeError, match=r"^api: \$\[0\]\.content: missing"):
        from_api([{"role": "user"}], source="api")


def test_decode_errors_of_block_readers_use_the_given_path() -> None:
    with pytest.raises(DecodeError) as info:
        block_from_api(5, path="resp.content[2]")
    assert (info.value.path, info.value.expected) == (
        "resp.content[2]",
        "expected a content block object, got a number",
    )
    with pytest.raises(DecodeError) as info:
        blocks_from_api([{"type": "text", "text": "ok"}, {"type": "tool_use", "id": "t", "name": "f"}], path="resp")
    assert info.value.path == "resp[1].input"
    with pytest.raises(DecodeError) as info:
        from_api([{"role": "user", "content": [object()]}])
    assert (info.value.path, info.value.expected) == ("$[0].content[0]", "expected a content block object, got object")


def test_from_json_str_with_lone_surrogate_is_a_decode_error() -> None:
    with pytest.raises(DecodeError):
        from_json('[{"role":"user","content":"\ud800"}]')


def test_from_json_deeply_nested_input_is_a_decode_error() -> None:
    with pytest.raises(DecodeError):
        from_json(b"[" * 5000 + b"]" * 5000)


def test_lone_surrogate_escape_in_bytes_is_a_decode_error() -> None:
    with pytest.raises(DecodeError) as info:
        from_json(b'[{"role":"user","content":"\\ud800"}]')
    assert info.value.path == "$"


# ---------------------------------------------------------------------------------------
# Type checking: ``b.type`` narrowing and exhaustive ``match`` under mypy --strict
# ---------------------------------------------------------------------------------------

_MYPY_SNIPPET = """
from typing import assert_never

from msgmodel.core.message import (
    ContentBlock, OpaqueBlock, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock,
)


def good_narrowing(b: ContentBlock) -> str:
    if b.type == "text":
        return b.text
    if b.type == "tool_use":
        return b.name + str(b.input)
    if b.type == "tool_result":
        return b.tool_use_id
    if b.type == "thinking":
        return b.signature or ""
    return b.kind


def good_match(b: ContentBlock) -> str:
    match b:
        case TextBlock():
            return b.text
        case ThinkingBlock():
            return b.thinking
        case ToolUseBlock():
            return b.name
        case ToolResultBlock():
            return b.tool_use_id
        case OpaqueBlock():
            return b.kind
        case _:
            assert_never(b)


def bad_narrowing(b: ContentBlock) -> None:
    if b.type == "text":
        print(b.name)  # E: attr-defined


def bad_narrowing_other_branch(b: ContentBlock) -> None:
    if b.type == "opaque":
        print(b.text)  # E: attr-defined
    elif b.type == "tool_result":
        print(b.input)  # E: attr-defined


def bad_unnarrowed(b: ContentBlock) -> None:
    print(b.text)  # E: union-attr


def bad_match_missing_opaque(b: ContentBlock) -> str:
    match b:
        case TextBlock():
            return b.text
        case ThinkingBlock():
            return b.thinking
        case ToolUseBlock():
            return b.name
        case ToolResultBlock():
            return b.tool_use_id
        case _:
            assert_never(b)  # E: arg-type


def bad_match_missing_text(b: ContentBlock) -> str:
    match b:
        case ThinkingBlock() | ToolUseBlock() | ToolResultBlock() | OpaqueBlock():
            return ""
        case _:
            assert_never(b)  # E: arg-type
"""


def test_mypy_narrows_on_type_and_match_is_exhaustive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One ``mypy --strict`` run: the good functions pass, each ``# E:`` line errors with that code."""
    api = pytest.importorskip("mypy.api")
    monkeypatch.setenv("MYPYPATH", str(REPO))  # msgmodel's source, whatever the working directory
    snippet = tmp_path / "narrowing.py"
    source = textwrap.dedent(_MYPY_SNIPPET)
    snippet.write_text(source, encoding="utf-8")
    expected = {
        (lineno, line.split("# E:")[1].strip())
        for lineno, line in enumerate(source.splitlines(), start=1)
        if "# E:" in line
    }
    stdout, stderr, _status = api.run(
        [
            "--strict",
            "--warn-unreachable",
            "--show-error-codes",
            "--no-error-summary",
            "--hide-error-context",
            "--no-pretty",
            "--config-file",
            str(REPO / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path / ".mypy_cache"),  # cold: ~1 s, and the repo cache stays untouched
            str(snippet),
        ]
    )
    errors = set()
    for line in stdout.splitlines():
        # /tmp/.../narrowing.py:40: error: "TextBlock" has no attribute "name"  [attr-defined]
        where, _, rest = line.partition(": error: ")
        assert rest, f"unexpected mypy output: {line!r}\n{stderr}"
        file, _, lineno = where.rpartition(":")
        assert Path(file).name == snippet.name, line  # mypy shows the path relative to the cwd when it can
        errors.add((int(lineno), rest.rsplit("[", 1)[1].rstrip("]")))
    assert errors == expected, stdout + stderr
    assert '"TextBlock" has no attribute "name"' in stdout
    assert 'Argument 1 to "assert_never" has incompatible type "OpaqueBlock"' in stdout


def test_opaque_block_refuses_a_known_kind() -> None:
    with pytest.raises(ValueError, match="not opaque"):
        OpaqueBlock({"type": "text", "text": "hi"})


def test_extras_never_override_core_fields() -> None:
    block = TextBlock("real", extra={"text": "forged", "cache_control": {"type": "ephemeral"}})
    out = to_api([Message(role="user", content=[block])])
    assert out[0]["content"][0] == {"type": "text", "text": "real", "cache_control": {"type": "ephemeral"}}


def test_decode_error_survives_pickling() -> None:
    import pickle

    err = DecodeError("$[0].role", "expected 'user' or 'assistant'", source="a.json")
    back = pickle.loads(pickle.dumps(err))
    assert (back.path, back.expected, back.source, str(back)) == (err.path, err.expected, err.source, str(err))


def test_result_text_is_the_output_without_its_label() -> None:
    from msgmodel import result_text

    assert result_text(tool_result_block("t", "line 1\nline 2")) == "line 1\nline 2"
    listed = tool_result_block("t", [TextBlock("a"), OpaqueBlock({"type": "image", "source": {}}), TextBlock("b")])
    assert result_text(listed) == "a [image] b"
    assert block_to_text(listed) == "[result: a [image] b]"
