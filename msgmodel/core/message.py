"""The one authoritative model of a chat message: its blocks, how to build them, how to read them.

This module owns the shape of Messages-API conversation data. Everything else in
``msgmodel`` imports the types, constructors and readers defined here; nothing else
writes ``{"type": ...}`` by hand, calls ``Message(...)`` or walks ``message.content`` on its
own (``tests/test_layout.py`` scans the package for it: the raw-dict wire checks of
``protocol.py`` and the ``course.legacy`` exhibit are the documented exceptions).

The model
    Four content blocks form a tagged union on the wire field ``type``:

    ========================  =====================================================
    ``TextBlock``             ``{"type": "text", "text": ...}``
    ``ThinkingBlock``         ``{"type": "thinking", "thinking": ..., "signature": ...}``
    ``ToolUseBlock``          ``{"type": "tool_use", "id": ..., "name": ..., "input": {...}}``
    ``ToolResultBlock``       ``{"type": "tool_result", "tool_use_id": ..., "content": ..., "is_error": ...}``
    ========================  =====================================================

    Real conversations carry more kinds (``image``, ``document``, ``redacted_thinking``,
    ``server_tool_use``, ``web_search_tool_result``, ...). They are kept, never dropped,
    as an ``OpaqueBlock`` that holds the original JSON object and writes it back
    unchanged. ``ContentBlock`` is the union of the five.

    A ``Message`` is ``(role, content)`` where ``role`` is ``"user"``, ``"assistant"`` or
    ``"system"`` and ``content`` is either a plain string or a list of blocks, exactly as the
    API accepts it. A ``system`` message is a mid-conversation instruction (the SDK's
    ``SystemMessageParam``, text only), which the API takes on some models and refuses on
    others: the codec carries it on any model, as it carries a prefill; whether a request may
    hold one is ``protocol.validate``'s question (``model=``).

    Every class carries a class-level ``type`` Literal, so ``if b.type == "text":``
    narrows under mypy the way ``switch (b.type)`` narrows in TypeScript, and
    ``match b: case TextBlock(): ...`` plus ``typing.assert_never`` is exhaustive.

    Fields the API defines beyond the core ones (``cache_control``, ``citations``,
    ``caller``, ...) are kept in ``extra`` and written back flat, so a round trip
    through this module loses nothing: every key comes back with its value, a key that
    happens to spell the structs' internal field name included. The one normalisation is
    that a core field holding its default (``is_error: false``, a result's ``content: ""``,
    ``signature: null``) is written by omission.

Constructors (seven; the only way the package builds messages: ``CONSTRUCTORS``)
    ``user_text``, ``user_msg``, ``assistant_text``, ``assistant_msg``, ``tool_result_msg``,
    ``tool_result_block``, ``system_text``. Each checks its arguments: a value that is not what
    it takes (an SDK block object, an API dict, tool output that is data) is a TypeError
    naming the constructor, the argument and the index, at the call.

Readers (fourteen; the only way the package reads them: ``READERS``)
    ``is_plain_text``, ``blocks_of``, ``text_of``, ``tool_uses_of``, ``tool_results_of``,
    ``is_tool_result_message``, ``is_clean_user_start``, ``server_tool_link``, ``block_to_text``,
    ``result_text``, ``message_to_text``, ``transcript_of``, and the HTML card of a notebook,
    ``message_html`` and ``block_html``.

Codec
    ``from_json`` / ``to_json`` (bytes, the API's JSON shape) and ``from_api`` /
    ``to_api`` (plain dicts the official ``anthropic`` SDK accepts as ``messages=``).
    Bad input raises ``DecodeError`` naming the JSON path and what was expected, also for
    ``tool_result`` blocks nested deeper than ``MAX_NESTING``. ``from_json`` decodes with the cycle
    collector paused (see ``_collector_paused``).
"""

from __future__ import annotations

import gc
import html as _html
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Final, Literal, TypeAlias, assert_never, cast

import msgspec

from msgmodel.core import _known_blocks as _kb

if TYPE_CHECKING:  # the SDK is an optional dependency: its types only, for `to_api`'s return type
    from anthropic.types import MessageParam

__all__ = [
    "ARGS_LIMIT",
    "CONSTRUCTORS",
    "MAX_NESTING",
    "PAIR_COLORS",
    "READERS",
    "RESULT_LIMIT",
    "ContentBlock",
    "DecodeError",
    "Message",
    "OpaqueBlock",
    "Role",
    "TextBlock",
    "ThinkingBlock",
    "ToolResultBlock",
    "ToolUseBlock",
    "api_value",
    "assistant_msg",
    "assistant_text",
    "block_from_api",
    "block_html",
    "block_to_api",
    "block_to_text",
    "blocks_from_api",
    "blocks_of",
    "from_api",
    "from_json",
    "is_clean_user_start",
    "is_plain_text",
    "is_tool_result_message",
    "message_html",
    "message_to_text",
    "result_text",
    "server_tool_link",
    "system_text",
    "text_of",
    "to_api",
    "to_json",
    "tool_result_block",
    "tool_result_msg",
    "tool_results_of",
    "tool_uses_of",
    "transcript_of",
    "user_msg",
    "user_text",
]

Role: TypeAlias = Literal["user", "assistant", "system"]

CONSTRUCTORS: Final = (
    "user_text",
    "user_msg",
    "assistant_text",
    "assistant_msg",
    "tool_result_msg",
    "tool_result_block",
    "system_text",
)
"""The names of the functions that build messages and blocks (the docstring lists the same)."""
READERS: Final = (
    "is_plain_text",
    "blocks_of",
    "text_of",
    "tool_uses_of",
    "tool_results_of",
    "is_tool_result_message",
    "is_clean_user_start",
    "server_tool_link",
    "block_to_text",
    "result_text",
    "message_to_text",
    "transcript_of",
    "message_html",
    "block_html",
)
"""The names of the functions that read messages and blocks (the docstring lists the same)."""

ARGS_LIMIT: Final = 200
"""``block_to_text`` cuts a tool call's JSON arguments after this many characters."""
RESULT_LIMIT: Final = 500
"""``block_to_text`` cuts a tool result's text after this many characters."""
ELLIPSIS: Final = "…"

MAX_NESTING: Final = 32
"""How deep ``tool_result`` blocks may nest inside one another's ``content`` (a result in a
message is at depth 1). The decoders and ``tool_result_block`` refuse deeper data, so every
reader (``result_text``, ``transcript_of``, ``compact``, ``to_json``, ...) handles whatever they
accept. The live API allows no ``tool_result`` inside a ``tool_result`` at all (depth 1); the
limit of 32 is ours."""

# The name of the catch-all field inside the structs. It is never written to JSON under this
# name (``to_json``/``to_api`` spread its keys back into the block). At runtime the field is
# annotated with a type no JSON value satisfies (``_NEVER_DECODED``), so the fast decoder never
# reads a key of this name as the field: a block spelling it fails the fast path and the walking
# decoder keeps the key as ordinary data, in ``extra``, written back verbatim. msgspec does not
# type-check ``__init__``, so the constructors and the walking decoder still store a dict there.
_EXTRA_WIRE_NAME: Final = "__msgmodel_extra__"
_NEVER_DECODED: TypeAlias = Annotated[int, msgspec.Meta(ge=1, le=0)]


class DecodeError(ValueError):
    """Input that is not a list of Messages-API messages.

    ``path`` is a JSON path into the input (``$[3].content[0].tool_use_id``) and
    ``expected`` says what should have been there. ``str(err)`` says both.
    """

    def __init__(self, path: str, expected: str, *, source: str | None = None) -> None:
        self.path = path
        self.expected = expected
        self.source = source
        where = f"{source}: " if source else ""
        super().__init__(f"{where}{path}: {expected}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_decode_error, (self.path, self.expected, self.source))


def _rebuild_decode_error(path: str, expected: str, source: str | None) -> DecodeError:
    return DecodeError(path, expected, source=source)


# ---------------------------------------------------------------------------------------
# The blocks
# ---------------------------------------------------------------------------------------

# ``frozen=True`` is written in each class header (not here) so that type checkers see it.
_STRUCT_OPTS: Final[dict[str, Any]] = {
    "tag_field": "type",
    "forbid_unknown_fields": True,
    "omit_defaults": True,
    # Blocks are trees decoded from JSON and never part of a reference cycle, so the
    # cycle collector need not track them: decoding a large session then spends its
    # time decoding instead of in collector passes over millions of young objects.
    "gc": False,
}


class TextBlock(msgspec.Struct, frozen=True, tag="text", **_STRUCT_OPTS):
    """Plain text, from a person or from the model: ``{"type": "text", "text": ...}``."""

    text: str
    if TYPE_CHECKING:
        extra: dict[str, Any] | None = msgspec.field(default=None, name=_EXTRA_WIRE_NAME)
    else:  # never read from JSON under its internal name; see _EXTRA_WIRE_NAME
        extra: _NEVER_DECODED = msgspec.field(default=None, name=_EXTRA_WIRE_NAME)
    """Further API fields of this block (``cache_control``, ``citations``), kept verbatim."""

    type: ClassVar[Literal["text"]] = "text"


class ThinkingBlock(msgspec.Struct, frozen=True, tag="thinking", **_STRUCT_OPTS):
    """The model's extended thinking. ``signature`` must go back to the API byte for byte.

    Defined before any feature uses it (step 33 of the original tutorial), so that a conversation
    holding thinking survives storage, compaction and replay without changes here.
    """

    thinking: str
    signature: str | None = None
    if TYPE_CHECKING:
        extra: dict[str, Any] | None = msgspec.field(default=None, name=_EXTRA_WIRE_NAME)
    else:  # never read from JSON under its internal name; see _EXTRA_WIRE_NAME
        extra: _NEVER_DECODED = msgspec.field(default=None, name=_EXTRA_WIRE_NAME)

    type: ClassVar[Literal["thinking"]] = "thinking"


class ToolUseBlock(msgspec.Struct, frozen=True, tag="tool_use", **_STRUCT_OPTS):
    """The model asks the client to run tool ``name`` with ``input``; ``id`` links the result."""

    id: str
    name: str
    input: dict[str, Any]
    if TYPE_CHECKING:
        extra: dict[str, Any] | None = msgspec.field(default=None, name=_EXTRA_WIRE_NAME)
    else:  # never read from JSON under its internal name; see _EXTRA_WIRE_NAME
        extra: _NEVER_DECODED = msgspec.field(default=None, name=_EXTRA_WIRE_NAME)

    type: ClassVar[Literal["tool_use"]] = "tool_use"


class ToolResultBlock(msgspec.Struct, frozen=True, tag="tool_result", **_STRUCT_OPTS):
    """The client's answer to one ``tool_use``. It travels inside a *user* message.

    ``content`` is a string or a list of blocks (text, images, ... as the API allows);
    ``is_error`` marks a failed run, which the model should see as a failure.
    """

    tool_use_id: str
    if TYPE_CHECKING:
        content: str | list[ContentBlock] = ""
    else:  # what msgspec decodes on the fast path: no result in a result; see "The runtime annotations"
        content: str | list[_LeafBlock] = ""
    is_error: bool = False
    if TYPE_CHECKING:
        extra: dict[str, Any] | None = msgspec.field(default=None, name=_EXTRA_WIRE_NAME)
    else:  # never read from JSON under its internal name; see _EXTRA_WIRE_NAME
        extra: _NEVER_DECODED = msgspec.field(default=None, name=_EXTRA_WIRE_NAME)

    type: ClassVar[Literal["tool_result"]] = "tool_result"


_KNOWN_KINDS: Final = frozenset({"text", "thinking", "tool_use", "tool_result"})


class OpaqueBlock:
    """A block of a kind this model does not interpret, kept exactly as it came.

    ``kind`` is its wire ``type`` (``"image"``, ``"redacted_thinking"``,
    ``"server_tool_use"``, ...); ``raw`` is the original JSON object, written back
    unchanged by ``to_json``/``to_api``. Its own ``type`` is ``"opaque"`` so that
    ``b.type`` narrowing and ``match`` stay exhaustive over five cases: ``type`` is the
    tag of the union on every block class, and ``kind`` is data this class keeps.
    """

    __slots__ = ("raw",)
    __match_args__ = ("raw",)

    type: ClassVar[Literal["opaque"]] = "opaque"
    raw: Mapping[str, Any]

    def __init__(self, raw: Mapping[str, Any]) -> None:
        kind = raw.get("type") if isinstance(raw, Mapping) else None
        if not isinstance(kind, str):
            raise TypeError("an OpaqueBlock needs a JSON object with a string 'type'")
        if kind in _KNOWN_KINDS:
            raise ValueError(f"a {kind!r} block is not opaque: build it with its own struct")
        object.__setattr__(self, "raw", raw)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("OpaqueBlock is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("OpaqueBlock is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (OpaqueBlock, (self.raw,))

    @property
    def kind(self) -> str:
        """The block's wire ``type``."""
        kind: str = self.raw["type"]
        return kind

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OpaqueBlock) and self.raw == other.raw

    def __hash__(self) -> int:
        # Consistent with __eq__ (dict equality ignores key order and 1 == 1.0).
        return hash(("opaque", self.kind))

    def __repr__(self) -> str:
        return f"OpaqueBlock({dict(self.raw)!r})"


# The runtime annotations. msgspec cannot put a class of its own (OpaqueBlock) in a union
# beside tagged structs, so at runtime the content fields are annotated with the four
# known kinds only: the fast decoder then accepts exactly those, and anything else falls
# back to the walking decoder below. Type checkers see the full union. Encoding is
# unaffected: msgspec encodes list items by their runtime class (OpaqueBlock through
# ``_enc_hook``). A result's content is annotated with the three other known kinds: a
# ``tool_result`` inside a ``tool_result`` (which the live API refuses) takes the walking
# decoder, which bounds the nesting (``MAX_NESTING``) and names the path of a block too deep, so
# the fast path needs no check of its own.
ContentBlock: TypeAlias = TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock | OpaqueBlock
"""Any block that may stand in ``Message.content``."""

_KnownBlock: TypeAlias = TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock
_LeafBlock: TypeAlias = TextBlock | ThinkingBlock | ToolUseBlock
_KNOWN_TYPES: Final[dict[str, type[_KnownBlock]]] = {
    "text": TextBlock,
    "thinking": ThinkingBlock,
    "tool_use": ToolUseBlock,
    "tool_result": ToolResultBlock,
}


class Message(msgspec.Struct, frozen=True, forbid_unknown_fields=True, gc=False):
    """One turn of a conversation: ``role`` and ``content`` (a string or a list of blocks)."""

    role: Role
    if TYPE_CHECKING:
        content: str | list[ContentBlock]
    else:  # what msgspec decodes on the fast path; see "The runtime annotations" below
        content: str | list[_KnownBlock]

    def _repr_html_(self) -> str:
        return message_html(self)


# ---------------------------------------------------------------------------------------
# Constructors
# ---------------------------------------------------------------------------------------


def user_text(s: str) -> Message:
    """A user turn holding plain text (what a person typed, or a compaction summary)."""
    return Message(role="user", content=_text_arg("user_text", s, "user_msg"))


def user_msg(blocks: Iterable[ContentBlock]) -> Message:
    """A user turn holding any blocks: tool results followed by text, an image, a document, ...

    ``tool_result_msg`` is the usual way to answer tool calls; this one is for a user turn
    that carries more than results (a repaired turn, an imported transcript line).
    """
    return Message(role="user", content=_blocks_arg("user_msg", blocks, "user_text"))


def assistant_text(s: str) -> Message:
    """An assistant turn holding plain text (a prefill, or an imported transcript line)."""
    return Message(role="assistant", content=_text_arg("assistant_text", s, "assistant_msg"))


def assistant_msg(blocks: Iterable[ContentBlock]) -> Message:
    """An assistant turn holding the model's blocks exactly as it produced them.

    The SDK's ``response.content`` holds the SDK's own block objects: convert them first,
    ``assistant_msg(blocks_from_api(response.content))``.
    """
    return Message(role="assistant", content=_blocks_arg("assistant_msg", blocks, "assistant_text"))


def tool_result_msg(blocks: Iterable[ToolResultBlock]) -> Message:
    """The user turn that answers an assistant's tool calls.

    In the Anthropic protocol tool results travel in a *user* message, one block per
    ``tool_use`` of the previous assistant turn, and before any other content.
    """
    content = _blocks_arg("tool_result_msg", blocks, None, only=ToolResultBlock)
    if not content:
        raise ValueError("tool_result_msg needs at least one tool_result block")
    return Message(role="user", content=content)


def system_text(s: str) -> Message:
    """A mid-conversation system message: an instruction placed in ``messages`` (the SDK's ``SystemMessageParam``).

    The first system prompt goes in the request's top-level ``system``; the API takes one in
    ``messages`` only on some models, after a user turn (``protocol.validate(..., model=...)`` says).
    """
    return Message(role="system", content=_text_arg("system_text", s, "from_api"))


def tool_result_block(
    tool_use_id: str, content: str | Sequence[ContentBlock], is_error: bool = False
) -> ToolResultBlock:
    """The answer to the ``tool_use`` whose ``id`` is ``tool_use_id``.

    ``content`` is the tool's output as text, or a list of blocks (text, an image, ...). A tool
    whose output is data (a dict, a list of values, a number) is refused with ``TypeError``
    rather than guessed at: encode it yourself, ``json.dumps(output)``, as the model reads
    tool output as text. API-shaped block dicts go through ``blocks_from_api`` first.
    Raises ``ValueError`` when ``content`` holds results nested so deeply that this one would
    lie deeper than ``MAX_NESTING``.
    """
    if not isinstance(tool_use_id, str):
        raise TypeError(f"tool_result_block: `tool_use_id` must be a string, got {_type_name(tool_use_id)}")
    if not isinstance(is_error, bool):
        raise TypeError(f"tool_result_block: `is_error` must be a bool, got {_type_name(is_error)}")
    body: str | list[ContentBlock]
    if isinstance(content, str):
        body = content
    elif isinstance(content, (Mapping, bytes, bytearray)) or not isinstance(content, Iterable):
        raise TypeError(
            f"tool_result_block: `content` must be a string or a list of blocks, got {_type_name(content)}; "
            "tool output is text: pass json.dumps(output) for data"
            + ("" if not isinstance(content, Mapping) else ", or blocks_from_api([...]) for an API block dict")
        )
    else:
        body = _blocks_arg("tool_result_block", content, None, arg="content")
    if not isinstance(body, str) and _too_deep(body, "$", 2) is not None:
        raise ValueError(f"tool_result blocks may nest at most {MAX_NESTING} deep")
    return ToolResultBlock(tool_use_id=tool_use_id, content=body, is_error=is_error)


_BLOCK_CLASSES: Final = (TextBlock, ThinkingBlock, ToolUseBlock, ToolResultBlock, OpaqueBlock)
_FROM_API: Final = "convert API dicts and SDK block objects with msgmodel.blocks_from_api(...)"


def _type_name(value: object) -> str:
    """A value's type for an error text: builtins by name, other classes by module too (``anthropic.types...``)."""
    t = type(value)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _text_arg(fn: str, s: object, blocks_fn: str) -> str:
    """``s`` if it is a string; else a ``TypeError`` that says which constructor takes blocks."""
    if isinstance(s, str):
        return s
    hint = f"for blocks use {blocks_fn}(...)" if not isinstance(s, (bytes, bytearray)) else "decode the bytes first"
    if isinstance(s, Iterable) and not isinstance(s, (bytes, bytearray, Mapping)):
        hint += f" ({_FROM_API})"
    raise TypeError(f"{fn}: `s` must be a string, got {_type_name(s)}; {hint}")


def _blocks_arg(
    fn: str, blocks: object, text_fn: str | None, *, arg: str = "blocks", only: type[ToolResultBlock] | None = None
) -> list[ContentBlock]:
    """``blocks`` as a list, each checked to be one of the model's block classes (or ``only``).

    A ``TypeError`` names the constructor, the argument and the index of the first wrong item,
    and says how to get a block from what was given: an SDK object or an API dict through
    ``blocks_from_api``, a string through the text constructor.
    """
    if isinstance(blocks, (str, bytes, bytearray, Mapping)) or not isinstance(blocks, Iterable):
        hint = f"; for plain text use {text_fn}(...)" if text_fn and isinstance(blocks, str) else f"; {_FROM_API}"
        raise TypeError(f"{fn}: `{arg}` must be an iterable of blocks, got {_type_name(blocks)}{hint}")
    items: list[ContentBlock] = list(blocks)
    allowed = _BLOCK_CLASSES if only is None else only
    for i, b in enumerate(items):
        if isinstance(b, allowed):
            continue
        if only is not None and isinstance(b, _BLOCK_CLASSES):
            hint = "build the answer to a tool call with tool_result_block(tool_use_id, output)"
        elif isinstance(b, str):
            hint = "a string is not a block: wrap it as TextBlock(text)"
        elif isinstance(b, Mapping) or hasattr(b, "model_dump"):
            hint = _FROM_API
        else:
            hint = "tool output is text: pass json.dumps(output)" if arg == "content" else _FROM_API
        want = "a ToolResultBlock" if only is not None else "a msgmodel content block"
        raise TypeError(f"{fn}: {arg}[{i}] is {_type_name(b)}, not {want}; {hint}")
    return items


def _too_deep(items: Iterable[object], path: str, depth: int) -> str | None:
    """The JSON path of the first ``tool_result`` nested deeper than ``MAX_NESTING``, or ``None``.

    ``items`` lie at ``path``, and a ``tool_result`` among them at nesting ``depth``. Iterative,
    and it stops at the first result too deep, so hostile input costs no more than the limit.
    """
    stack: list[tuple[Iterable[object], str, int]] = [(items, path, depth)]
    while stack:
        items, path, depth = stack.pop()
        for k, c in enumerate(items):
            if isinstance(c, ToolResultBlock):
                if depth > MAX_NESTING:
                    return f"{path}[{k}]"
                if isinstance(c.content, list):
                    stack.append((c.content, f"{path}[{k}].content", depth + 1))
    return None


_TOO_DEEP: Final = f"expected tool_result blocks nested at most {MAX_NESTING} deep"


# ---------------------------------------------------------------------------------------
# Readers
# ---------------------------------------------------------------------------------------


def is_plain_text(m: Message) -> bool:
    """Whether the message's content is a plain string rather than a list of blocks."""
    return isinstance(m.content, str)


def blocks_of(m: Message) -> list[ContentBlock]:
    """The message's content as blocks: a string becomes one ``TextBlock`` (none if empty)."""
    content = m.content
    if isinstance(content, str):
        return [TextBlock(content)] if content else []
    return content


def text_of(m: Message) -> str:
    """The message's text: its string content, or its text blocks joined as the API streams them."""
    content = m.content
    if isinstance(content, str):
        return content
    return "".join(b.text for b in content if b.type == "text")


def tool_uses_of(m: Message) -> list[ToolUseBlock]:
    """The ``tool_use`` blocks of a message, in order (empty for string content)."""
    content = m.content
    if isinstance(content, str):
        return []
    return [b for b in content if b.type == "tool_use"]


def tool_results_of(m: Message) -> list[ToolResultBlock]:
    """The ``tool_result`` blocks of a message, in order (empty for string content)."""
    content = m.content
    if isinstance(content, str):
        return []
    return [b for b in content if b.type == "tool_result"]


def is_tool_result_message(m: Message) -> bool:
    """Whether the message carries at least one ``tool_result`` block."""
    content = m.content
    return not isinstance(content, str) and any(b.type == "tool_result" for b in content)


def is_clean_user_start(m: Message | None) -> bool:
    """Whether a history may begin at ``m``: a user turn that answers no tool call.

    This is the step-29 question. In this protocol tool results live *inside* user
    messages, so "starts on a user message" is not enough: a user message full of
    ``tool_result`` blocks whose ``tool_use`` was cut away is an orphan, and the API
    answers 400.
    """
    return m is not None and m.role == "user" and not is_tool_result_message(m)


_SERVER_USE_KINDS: Final = frozenset(_kb.SERVER_TOOL_USE_TAGS)
_SERVER_RESULT_KINDS: Final = frozenset(_kb.SERVER_TOOL_RESULT_TAGS)


def server_tool_link(b: ContentBlock) -> tuple[Literal["use", "result"], str] | None:
    """How a server-side tool block links to its partner: ``("use", id)`` or ``("result", tool_use_id)``.

    Server tools (web search, web fetch, code execution, MCP, ...) run on the API's side:
    the call is a ``server_tool_use`` or ``mcp_tool_use`` block and its answer one of the
    ``*_tool_result`` kinds the API lists (``web_search_tool_result``, ``mcp_tool_result``,
    ...; see ``_known_blocks.SERVER_TOOL_RESULT_TAGS``), both kept as ``OpaqueBlock``. The
    API wants a server result's call *earlier in the conversation*. ``None`` for every other
    block, and for a server block whose id is not a string.
    """
    if not isinstance(b, OpaqueBlock):
        return None
    kind = b.kind
    if kind in _SERVER_USE_KINDS:
        sid = b.raw.get("id")
        return ("use", sid) if isinstance(sid, str) else None
    if kind in _SERVER_RESULT_KINDS:
        sid = b.raw.get("tool_use_id")
        return ("result", sid) if isinstance(sid, str) else None
    return None


def _cut(s: str, limit: int) -> str:
    return s[:limit] + ELLIPSIS if len(s) > limit else s


def _json_text(value: object) -> str:
    return msgspec.json.encode(value).decode()


def result_text(b: ToolResultBlock) -> str:
    """A tool result's output as text, without the ``[result: …]`` label of ``block_to_text``.

    String content as itself; block content rendered block by block, joined by spaces.
    """
    content = b.content
    if isinstance(content, str):
        return content
    return " ".join(t for t in (block_to_text(c) for c in content) if t)


def _opaque_to_text(b: OpaqueBlock, args_limit: int = ARGS_LIMIT) -> str:
    kind = b.kind
    raw = b.raw
    if kind == "redacted_thinking":
        return ""
    if kind in ("server_tool_use", "mcp_tool_use"):
        name = raw.get("name", "?")
        return f"[server call {name}({_cut(_json_text(raw.get('input', {})), args_limit)})]"
    if kind.endswith("_tool_result"):
        return f"[server result: {kind}]"
    if kind == "image":
        return "[image]"
    if kind == "document":
        title = raw.get("title")
        return f"[document: {title}]" if isinstance(title, str) and title else "[document]"
    return f"[{kind}]"


def block_to_text(b: ContentBlock, *, args_limit: int = ARGS_LIMIT, result_limit: int = RESULT_LIMIT) -> str:
    """One block as a summarizer should read it.

    Text as itself; a tool call as ``[call name(args)]`` (args JSON cut at ``args_limit``
    characters, 200); a result as ``[result: ...]`` or ``[result (failed): ...]`` (cut at
    ``result_limit``, 500); thinking as nothing (it is the model's scratch space, not the
    conversation); other kinds as a short label such as ``[image]``. An ellipsis marks every cut.
    """
    match b:
        case TextBlock():
            return b.text
        case ToolUseBlock():
            return f"[call {b.name}({_cut(_json_text(b.input), args_limit)})]"
        case ToolResultBlock():
            label = "result (failed)" if b.is_error else "result"
            return f"[{label}: {_cut(result_text(b), result_limit)}]"
        case ThinkingBlock():
            return ""
        case OpaqueBlock():
            return _opaque_to_text(b, args_limit)
        case _:
            assert_never(b)


def message_to_text(m: Message, *, args_limit: int = ARGS_LIMIT, result_limit: int = RESULT_LIMIT) -> str:
    """The message as text: each block through ``block_to_text`` (with these limits), one per line, empties dropped."""
    content = m.content
    if isinstance(content, str):
        return content
    texts = (block_to_text(b, args_limit=args_limit, result_limit=result_limit) for b in content)
    return "\n".join(t for t in texts if t)


_ROLE_LABELS: Final[dict[str, str]] = {"user": "User", "assistant": "Assistant", "system": "System"}


def transcript_of(
    messages: Iterable[Message], *, args_limit: int = ARGS_LIMIT, result_limit: int = RESULT_LIMIT
) -> str:
    """A role-labelled transcript a summarizer can read, tool calls and failures included.

    One paragraph per message that has any text, ``User: ...`` / ``Assistant: ...``,
    separated by a blank line. A call's arguments are cut at ``args_limit`` characters and a
    result at ``result_limit`` (``ARGS_LIMIT`` 200, ``RESULT_LIMIT`` 500): a summarizer with
    room to read more can be given more, ``functools.partial(transcript_of, result_limit=4000)``
    as ``compact(..., transcript=...)``.
    """
    parts = []
    for m in messages:
        text = message_to_text(m, args_limit=args_limit, result_limit=result_limit)
        if text:
            parts.append(f"{_ROLE_LABELS[m.role]}: {text}")
    return "\n\n".join(parts)


# ---------------------------------------------------------------------------------------
# HTML: how one message looks in a notebook (``Message._repr_html_``)
# ---------------------------------------------------------------------------------------

_PREVIEW: Final = 160
PAIR_COLORS: Final = ("#1f77b4", "#e67e00", "#9467bd", "#0f9fb0", "#8c564b", "#d6409f", "#7a8f00", "#2f6f4f")
"""The colours of the tool-pair badges (cycled; the number on a badge stays unique); styled by
``msgmodel.course.display``."""


def _chip(kind: str, label: str, body: str, *, title: str = "", pair: int | None = None) -> str:
    t = f' title="{_html.escape(title)}"' if title else ""
    inner = f"<b>{_html.escape(label)}</b> {_html.escape(_cut(body, _PREVIEW))}</span>"
    if pair is None:
        return f'<span class="mm-chip mm-{kind}"{t}>{inner}'
    k = (pair - 1) % len(PAIR_COLORS)
    badge = f'<span class="mm-pair mm-p{k}" title="tool pair #{pair}">#{pair}</span>'
    return f'<span class="mm-chip mm-{kind} mm-pk{k}"{t}>{badge}{inner}'


def block_html(b: ContentBlock, *, pairs: Mapping[str, int] | None = None) -> str:
    """One block as a labelled chip (text, thinking, tool_use, tool_result, opaque).

    With ``pairs`` (from ``tool_pairs``), tool blocks carry their pair's ``#n`` badge.
    """
    pairs = pairs or {}
    match b:
        case TextBlock():
            return _chip("text", "text", b.text)
        case ThinkingBlock():
            sig = "signed" if b.signature else "unsigned"
            return _chip("thinking", f"thinking ({sig})", b.thinking)
        case ToolUseBlock():
            args = _json_text(b.input)
            return _chip("tool_use", f"tool_use {b.id}", f"{b.name}({args})", pair=pairs.get(b.id))
        case ToolResultBlock():
            kind = "failed" if b.is_error else "tool_result"
            label = f"tool_result{' (failed)' if b.is_error else ''} → {b.tool_use_id}"
            return _chip(kind, label, result_text(b), pair=pairs.get(b.tool_use_id))
        case OpaqueBlock():
            return _chip("opaque", f"opaque: {b.kind}", "", title=_json_text(b.raw)[:400])
        case _:
            assert_never(b)


def message_html(
    m: Message,
    *,
    index: int | None = None,
    problems: Mapping[int | None, Sequence[str]] | None = None,
    pairs: Mapping[str, int] | None = None,
) -> str:
    """One message as a card: its role, then its blocks as chips.

    ``problems`` maps a block index (or ``None`` for the whole message) to error texts
    that are shown in red beside that block. ``pairs``: see ``block_html``.
    """
    problems = problems or {}
    chips = []
    for i, b in enumerate(blocks_of(m)):
        chip = block_html(b, pairs=pairs)
        if errs := problems.get(i, ()):
            chip = f'<span class="mm-bad">{chip}</span>' + "".join(
                f'<span class="mm-err">{_html.escape(e)}</span>' for e in errs
            )
        chips.append(chip)
    if not chips:
        chips.append('<span class="mm-chip mm-text"><i>(empty)</i></span>')
    whole = "".join(f'<span class="mm-err">{_html.escape(e)}</span>' for e in problems.get(None, ()))
    idx = f'<span class="mm-idx">{index}</span>' if index is not None else ""
    bad = " mm-bad" if whole else ""
    return (
        f'<div class="mm-msg mm-{m.role}{bad}">{idx}<span class="mm-role">{m.role}</span>{"".join(chips)}{whole}</div>'
    )


# ---------------------------------------------------------------------------------------
# Codec
# ---------------------------------------------------------------------------------------

# The fast path: msgspec decodes straight into the structs. It accepts only the four
# known kinds with their core fields; anything else (an unknown kind, an extra field,
# a malformed value) falls back to ``_convert_messages``, which walks the data, keeps
# unknown kinds as OpaqueBlocks and reports errors with their full JSON path.
_FAST_DECODER: Final = msgspec.json.Decoder(list[Message])
_ANY_DECODER: Final = msgspec.json.Decoder()


def _enc_hook(obj: object) -> object:
    if isinstance(obj, OpaqueBlock):
        return obj.raw
    raise NotImplementedError(f"cannot encode {type(obj).__name__}")


_ENCODER: Final = msgspec.json.Encoder(enc_hook=_enc_hook)


# The cycle collector during a decode. A decoder builds trees (each new object is referenced only by
# its parent, so none is in a cycle), but the lists and dicts it makes are tracked, and a large
# session would trigger many collector passes over them (bench/RESULTS.md; the structs are
# ``gc=False``). So ``from_json`` decodes, on both paths, with the collector paused: restored even
# when the decode raises, left disabled for a caller that had disabled it, one pause shared by
# concurrent decodes (counted under a lock; it ends with the last). It pauses nothing else: other
# threads' cyclic garbage waits for the first allocation after the decode, whose collection also
# makes one young pass over the decoded objects (``bench/gc_options.py`` counts it). Code toggling
# the collector in another thread during a decode may see its change undone when the decode ends.
_PAUSE_LOCK: Final = threading.Lock()
_pause = {"depth": 0, "resume": False}


@contextmanager
def _collector_paused() -> Iterator[None]:
    with _PAUSE_LOCK:
        if _pause["depth"] == 0:
            _pause["resume"] = gc.isenabled()
            gc.disable()
        _pause["depth"] += 1
    try:
        yield
    finally:
        with _PAUSE_LOCK:
            _pause["depth"] -= 1
            if _pause["depth"] == 0 and _pause["resume"]:
                gc.enable()


# No pass after the decode shares equal strings (a result's ``tool_use_id`` and its call's ``id``, tool names):
# it cost 1.0-2.2x the decode for 0.05x the dicts' memory (issue 20; bench/RESULTS.md, "The decoder's limit").
def from_json(data: bytes | str, *, source: str | None = None) -> list[Message]:
    """Decode a JSON array of Messages-API messages.

    Raises ``DecodeError`` naming the JSON path and what was expected. ``source``
    (a file name, say) is prefixed to the error text.
    """
    if isinstance(data, str):
        try:
            data = data.encode()
        except UnicodeEncodeError as e:  # a lone surrogate cannot be UTF-8
            raise DecodeError("$", f"expected valid Unicode text ({e.reason} at {e.start})", source=source) from None
    try:
        with _collector_paused():  # the walk too: it builds trees from plain JSON data
            try:
                return _FAST_DECODER.decode(data)  # no result holds a result here (see "The runtime annotations")
            except msgspec.ValidationError:
                pass  # not entirely in the fast shape: walk it
            return _convert_messages(_ANY_DECODER.decode(data), "$", source)
    except msgspec.DecodeError as e:
        raise DecodeError("$", f"expected valid JSON ({e})", source=source) from None
    except RecursionError:
        raise DecodeError("$", "expected JSON nested less deeply", source=source) from None


def from_api(messages: object, *, source: str | None = None) -> list[Message]:
    """Convert what one would pass as ``messages=`` to the SDK into ``Message`` values.

    Accepts plain dicts and lists; SDK response objects (pydantic models such as
    ``resp.content`` blocks) are read through their ``model_dump``.
    """
    try:
        return _convert_messages(messages, "$", source)
    except RecursionError:
        raise DecodeError("$", "expected data nested less deeply", source=source) from None


def block_from_api(block: object, *, path: str = "$") -> ContentBlock:
    """One content block from its API form (a dict or an SDK model)."""
    return _convert_block(block, path, None, 1)


def blocks_from_api(blocks: Iterable[object], *, path: str = "$") -> list[ContentBlock]:
    """Content blocks from their API form, e.g. ``response.content`` of the SDK."""
    return [_convert_block(b, f"{path}[{i}]", None, 1) for i, b in enumerate(blocks)]


_JSON_KINDS: Final = ((bool, "a boolean"), ((int, float), "a number"), (str, "a string"), ((list, tuple), "an array"))


def _describe(value: object) -> str:
    """What a value is, in JSON's words (``bool`` is tested before ``int``, which it subclasses)."""
    if value is None:
        return "null"
    kinds = (*_JSON_KINDS, (Mapping, "an object"))
    return next((name for t, name in kinds if isinstance(value, t)), type(value).__name__)


def api_value(value: object) -> object:
    """An SDK object (a pydantic model such as a block of ``response.content``) as the plain JSON data
    the API reads, ``model_dump(mode="json", exclude_none=True)``; any other value unchanged.

    The one reading of SDK objects: ``from_api`` and ``protocol.validate`` both use it, at the same
    places (the message list, a message, its content, a block, a call's input, a result's content).
    """
    dump = getattr(value, "model_dump", None)
    if dump is not None and not isinstance(value, (Mapping, list, str)):
        return dump(mode="json", exclude_none=True)
    return value


_plain: Final = api_value


def _convert_messages(data: object, path: str, source: str | None) -> list[Message]:
    data = _plain(data)
    if not isinstance(data, (list, tuple)):
        raise DecodeError(path, f"expected an array of messages, got {_describe(data)}", source=source)
    return [_convert_message(m, f"{path}[{i}]", source) for i, m in enumerate(data)]


_ROLES: Final = ("user", "assistant", "system")
_EXPECTED_ROLE: Final = "expected 'user', 'assistant' or 'system'"


def _convert_message(obj: object, path: str, source: str | None) -> Message:
    obj = _plain(obj)
    if isinstance(obj, Message):  # built elsewhere: checked as its wire form would be, then passed through
        held = obj.content
        if obj.role not in _ROLES:
            raise DecodeError(f"{path}.role", f"{_EXPECTED_ROLE}, got {obj.role!r}", source=source)
        if not isinstance(held, (str, list)):
            raise DecodeError(f"{path}.content", f"expected a string or a list, got {_describe(held)}", source=source)
        deep = None if isinstance(held, str) else _too_deep(held, f"{path}.content", 1)
        if deep is not None:
            raise DecodeError(deep, _TOO_DEEP, source=source)
        for i, b in enumerate(() if isinstance(held, str) else held):
            _convert_block(b, f"{path}.content[{i}]", source, 1)
        return obj
    if not isinstance(obj, Mapping):
        raise DecodeError(path, f"expected a message object, got {_describe(obj)}", source=source)
    for key in obj:
        if key not in ("role", "content"):
            raise DecodeError(
                f"{path}.{key}", "unexpected field (a message has only `role` and `content`)", source=source
            )
    role = obj.get("role")
    if role not in _ROLES:
        if "role" not in obj:
            raise DecodeError(f"{path}.role", "missing required field `role`", source=source)
        raise DecodeError(f"{path}.role", f"{_EXPECTED_ROLE}, got {role!r}", source=source)
    if "content" not in obj:
        raise DecodeError(f"{path}.content", "missing required field `content`", source=source)
    content = _plain(obj["content"])
    if isinstance(content, str):
        return Message(role=role, content=content)
    if not isinstance(content, (list, tuple)):
        raise DecodeError(
            f"{path}.content", f"expected a string or an array of blocks, got {_describe(content)}", source=source
        )
    blocks = [_convert_block(b, f"{path}.content[{i}]", source, 1) for i, b in enumerate(content)]
    return Message(role=role, content=blocks)


# The core wire fields of each known kind; any other key of such a block goes to `extra`.
_CORE_FIELDS: Final[dict[str, frozenset[str]]] = {
    "text": frozenset({"type", "text"}),
    "thinking": frozenset({"type", "thinking", "signature"}),
    "tool_use": frozenset({"type", "id", "name", "input"}),
    "tool_result": frozenset({"type", "tool_use_id", "content", "is_error"}),
}


def _field(obj: Mapping[str, Any], key: str, path: str, source: str | None, kind: str) -> Any:
    if key not in obj:
        raise DecodeError(f"{path}.{key}", f"missing required field `{key}` of a `{kind}` block", source=source)
    return obj[key]


def _string(obj: Mapping[str, Any], key: str, path: str, source: str | None, kind: str) -> str:
    value = _field(obj, key, path, source, kind)
    if not isinstance(value, str):
        raise DecodeError(f"{path}.{key}", f"expected a string, got {_describe(value)}", source=source)
    return value


def _convert_block(obj: object, path: str, source: str | None, depth: int) -> ContentBlock:
    """One block at ``path``; ``depth`` is how deep a ``tool_result`` here would nest.

    A block struct is passed through (the same object) only if its wire form reads back as an
    equal struct: msgspec does not check field types when a struct is built, and ``extra`` can hold
    a core key (a ``content`` beside an empty result), so without this check a built struct could
    carry what a decoded dict never can."""
    if isinstance(obj, (TextBlock, ThinkingBlock, ToolUseBlock, ToolResultBlock, OpaqueBlock)):
        if (
            isinstance(obj, ToolResultBlock)
            and isinstance(obj.content, list)
            and _too_deep(obj.content, path, depth + 1) is not None
        ):
            raise DecodeError(path, _TOO_DEEP, source=source)
        try:
            wire: object = block_to_api(obj)
        except (TypeError, AttributeError, AssertionError):  # a field of the wrong type
            wire = None
        if wire is None or _convert_block(wire, path, source, depth) != obj:
            raise DecodeError(path, "expected a block whose wire form reads back as the same block", source=source)
        return obj
    obj = _plain(obj)
    if not isinstance(obj, Mapping):
        raise DecodeError(path, f"expected a content block object, got {_describe(obj)}", source=source)
    kind = obj.get("type")
    if not isinstance(kind, str):
        if "type" not in obj:
            raise DecodeError(f"{path}.type", "missing required field `type` of a content block", source=source)
        raise DecodeError(f"{path}.type", f"expected a string, got {_describe(kind)}", source=source)
    core = _CORE_FIELDS.get(kind)
    if core is None:
        return OpaqueBlock(dict(obj))
    extra = {k: v for k, v in obj.items() if k not in core} or None
    if kind == "text":
        return TextBlock(text=_string(obj, "text", path, source, kind), extra=extra)
    if kind == "thinking":
        signature = obj.get("signature")
        if signature is not None and not isinstance(signature, str):
            raise DecodeError(f"{path}.signature", f"expected a string, got {_describe(signature)}", source=source)
        return ThinkingBlock(thinking=_string(obj, "thinking", path, source, kind), signature=signature, extra=extra)
    if kind == "tool_use":
        block_id = _string(obj, "id", path, source, kind)
        name = _string(obj, "name", path, source, kind)
        tool_input = _plain(_field(obj, "input", path, source, kind))
        if not isinstance(tool_input, Mapping):
            raise DecodeError(f"{path}.input", f"expected an object, got {_describe(tool_input)}", source=source)
        return ToolUseBlock(id=block_id, name=name, input=dict(tool_input), extra=extra)
    # tool_result
    if depth > MAX_NESTING:
        raise DecodeError(path, _TOO_DEEP, source=source)
    tool_use_id = _string(obj, "tool_use_id", path, source, kind)
    is_error = obj.get("is_error", False)
    if not isinstance(is_error, bool):
        raise DecodeError(f"{path}.is_error", f"expected a boolean, got {_describe(is_error)}", source=source)
    raw_content = _plain(obj.get("content", ""))
    result_content: str | list[ContentBlock]
    if isinstance(raw_content, str):
        result_content = raw_content
    elif isinstance(raw_content, (list, tuple)):
        result_content = [
            _convert_block(b, f"{path}.content[{i}]", source, depth + 1) for i, b in enumerate(raw_content)
        ]
    else:
        raise DecodeError(
            f"{path}.content", f"expected a string or an array of blocks, got {_describe(raw_content)}", source=source
        )
    return ToolResultBlock(tool_use_id=tool_use_id, content=result_content, is_error=is_error, extra=extra)


def _blocks_have_extra(blocks: list[ContentBlock]) -> bool:
    for b in blocks:
        if b.type == "opaque":
            continue
        if b.extra is not None:
            return True
        if b.type == "tool_result" and not isinstance(b.content, str) and _blocks_have_extra(b.content):
            return True
    return False


def _has_extra(messages: Sequence[Message]) -> bool:
    return any(not isinstance(m.content, str) and _blocks_have_extra(m.content) for m in messages)


def block_to_api(b: ContentBlock) -> dict[str, Any]:
    """One block in its wire shape (a plain dict); ``block_from_api(block_to_api(b)) == b``."""
    match b:
        case TextBlock():
            d: dict[str, Any] = {"type": "text", "text": b.text}
        case ThinkingBlock():
            d = {"type": "thinking", "thinking": b.thinking}
            if b.signature is not None:
                d["signature"] = b.signature
        case ToolUseBlock():
            d = {"type": "tool_use", "id": b.id, "name": b.name, "input": b.input}
        case ToolResultBlock():
            d = {"type": "tool_result", "tool_use_id": b.tool_use_id}
            if b.content != "":
                d["content"] = b.content if isinstance(b.content, str) else [block_to_api(c) for c in b.content]
            if b.is_error:
                d["is_error"] = True
        case OpaqueBlock():
            return dict(b.raw)
        case _:
            assert_never(b)
    if b.extra:
        # Extras never override the core fields written above.
        d.update((k, v) for k, v in b.extra.items() if k not in d)
    return d


def to_api(messages: Iterable[Message]) -> list[MessageParam]:
    """Plain dicts in the wire shape, ready for the SDK's ``messages=``.

    Typed as the SDK's ``list[MessageParam]`` (a ``TypedDict``; only for type checkers, the SDK is
    not imported), so ``client.messages.create(messages=to_api(h), ...)`` needs no cast under
    ``mypy --strict``; at run time each item is a plain ``dict``. ``from_api(to_api(x)) == x``; the
    other way, ``to_api(from_api(d))`` is ``d`` up to the codec's normalisation (see the module
    docstring). Opaque blocks are written back as they came.
    """
    return cast("list[MessageParam]", _wire_messages(messages))


def _wire_messages(messages: Iterable[Message]) -> list[dict[str, Any]]:
    return [
        {"role": m.role, "content": m.content if isinstance(m.content, str) else [block_to_api(b) for b in m.content]}
        for m in messages
    ]


def to_json(messages: Sequence[Message]) -> bytes:
    """The messages as a JSON array in the API's shape (UTF-8 bytes)."""
    if _has_extra(messages):
        return _ENCODER.encode(_wire_messages(messages))
    return _ENCODER.encode(messages)
