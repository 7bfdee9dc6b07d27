"""Hypothesis strategies for the message model: blocks, messages, message lists and raw JSON.

Everything here builds values through ``msgmodel.core.message``'s own types and constructors;
the only hand-written dicts are the payloads of ``OpaqueBlock``s (kinds the model does not
interpret, which is the point) and the arbitrary JSON used to attack the decoder.

The generated values stay inside what the codec promises to round-trip:

* ``extra`` is ``None`` or a non-empty dict whose keys are not core fields of the kind (the
  decoder normalizes ``{}`` to ``None`` and splits core keys off);
* an ``OpaqueBlock``'s kind is never one of the four known kinds (those decode as structs);
* floats are finite (JSON has no NaN or infinity).
"""

from __future__ import annotations

import base64
import string
from typing import Any

from hypothesis import strategies as st

from msgmodel.core.message import (
    ContentBlock,
    Message,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    assistant_msg,
    tool_result_block,
    user_text,
)

__all__ = [
    "any_blocks",
    "extras",
    "json_values",
    "known_blocks",
    "message_lists",
    "messages",
    "opaque_blocks",
    "signatures",
    "text_blocks",
    "thinking_blocks",
    "tool_result_blocks",
    "tool_use_blocks",
]

KNOWN_KINDS = frozenset({"text", "thinking", "tool_use", "tool_result"})
# Every core wire key of any kind, plus the struct's internal field name: an extra never uses them.
_RESERVED_KEYS = frozenset(
    {"type", "text", "thinking", "signature", "id", "name", "input", "tool_use_id", "content", "is_error"}
    | {"__msgmodel_extra__"}
)

# Text that exercises escaping and non-ASCII: quotes, backslashes, control characters,
# combining marks, CJK, astral-plane emoji (surrogates are excluded: they are not UTF-8).
texts = st.text(max_size=40)
short_texts = st.text(max_size=12)
ids = st.text(alphabet=string.ascii_letters + string.digits + "_-", min_size=1, max_size=24)

json_scalars: st.SearchStrategy[Any] = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | short_texts
)
json_values: st.SearchStrategy[Any] = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(short_texts, inner, max_size=4),
    max_leaves=8,
)
"""Any JSON value (as Python data)."""

json_objects: st.SearchStrategy[dict[str, Any]] = st.dictionaries(short_texts, json_values, max_size=4)

_extra_keys = st.sampled_from(["cache_control", "citations", "caller", "x_custom"]) | short_texts.filter(
    lambda k: k not in _RESERVED_KEYS
)
_extra_values = st.one_of(
    st.just({"type": "ephemeral"}),
    st.just({"type": "ephemeral", "ttl": "1h"}),
    st.lists(st.fixed_dictionaries({"type": st.just("char_location"), "cited_text": short_texts}), max_size=2),
    json_values,
)
extras: st.SearchStrategy[dict[str, Any] | None] = st.none() | st.dictionaries(
    _extra_keys, _extra_values, min_size=1, max_size=3
)
"""The ``extra`` of a known block: ``None`` or further API fields such as ``cache_control``."""

signatures: st.SearchStrategy[str | None] = st.one_of(
    st.none(),
    st.binary(min_size=1, max_size=96).map(lambda b: base64.b64encode(b).decode()),
    st.text(max_size=40),  # any string, non-ASCII included: it must come back byte for byte
)

text_blocks = st.builds(TextBlock, text=texts, extra=extras)
thinking_blocks = st.builds(ThinkingBlock, thinking=texts, signature=signatures, extra=extras)
tool_use_blocks = st.builds(ToolUseBlock, id=ids, name=ids, input=json_objects, extra=extras)

_opaque_kinds = st.sampled_from(
    [
        "image",
        "document",
        "redacted_thinking",
        "server_tool_use",
        "web_search_tool_result",
        "mcp_tool_use",
        "compaction",
        "search_result",
    ]
) | st.text(min_size=1, max_size=12).filter(lambda k: k not in KNOWN_KINDS)


@st.composite
def opaque_blocks(draw: st.DrawFn) -> OpaqueBlock:
    """A block of a kind the model does not interpret, with an arbitrary JSON payload."""
    kind = draw(_opaque_kinds)
    payload = draw(st.dictionaries(short_texts.filter(lambda k: k != "type"), json_values, max_size=4))
    # The wire ``type`` first, as the API writes it; the payload in any order after it.
    return OpaqueBlock({"type": kind, **payload})


# What may stand inside a tool_result's content list (the API allows text and images there).
_result_content_blocks: st.SearchStrategy[ContentBlock] = st.one_of(text_blocks, opaque_blocks())


@st.composite
def tool_result_blocks(draw: st.DrawFn) -> ToolResultBlock:
    """A tool result whose content is a string or a list of blocks, failed or not, with extras."""
    content: str | list[ContentBlock] = draw(texts | st.lists(_result_content_blocks, max_size=3))
    extra = draw(extras)
    block = tool_result_block(draw(ids), content, is_error=draw(st.booleans()))
    if extra is None:
        return block
    return ToolResultBlock(tool_use_id=block.tool_use_id, content=block.content, is_error=block.is_error, extra=extra)


known_blocks: st.SearchStrategy[ContentBlock] = st.one_of(
    text_blocks, thinking_blocks, tool_use_blocks, tool_result_blocks()
)
any_blocks: st.SearchStrategy[ContentBlock] = st.one_of(known_blocks, opaque_blocks())
"""Any block of the five kinds."""


@st.composite
def messages(draw: st.DrawFn) -> Message:
    """A message of any role (user, assistant, now and then system), with string content or a list of any blocks.

    Roles and block placement are deliberately not protocol-valid (a tool_use in a user turn,
    say): the codec must carry whatever the model can hold; validity is protocol.py's job.
    """
    role = draw(st.sampled_from(["user", "assistant", "user", "assistant", "system"]))
    if draw(st.booleans()):
        text = draw(texts)
        if role == "user" and draw(st.booleans()):
            return user_text(text)
        return Message(role=role, content=text)
    blocks = draw(st.lists(any_blocks, max_size=4))
    if role == "assistant" and draw(st.booleans()):
        return assistant_msg(blocks)
    return Message(role=role, content=blocks)


message_lists: st.SearchStrategy[list[Message]] = st.lists(messages(), max_size=4)
"""A list of messages as ``from_json``/``to_json`` see it."""
