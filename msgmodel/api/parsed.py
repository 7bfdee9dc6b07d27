"""A Messages API request read once: the typed value every part of the local API works from.

This module owns the step from an accepted request body (a JSON object that
``msgmodel.api.request.validate_body`` passed) to ``ParsedRequest``, and the ids the local API
derives from a request. Nothing else in ``msgmodel.api`` reads the raw body's fields.

``parse_request(body) -> ParsedRequest``
    Reads the fields the local API acts on: ``model``, ``messages`` (as ``Message`` values, the
    in-conversation ``system`` turns of Claude Opus 4.8 left out: they are instructions), the
    ``system`` prompt's text, ``tools`` (``ToolSpec``: name, type, ``input_schema``),
    ``tool_choice`` (``ToolChoice``), the JSON output schema (``output_config.format``, or the
    older beta's top-level ``output_format``), ``max_tokens``, ``stop_sequences``, ``stream`` and
    ``thinking``. It reads leniently (a field of the wrong type reads as absent), so code that
    builds a request by hand, as the tests do, gets the same value the server would. It raises
    only ``DecodeError`` (with the JSON path), for ``messages`` that are not a conversation.
``ParsedRequest``
    Frozen. It is also a read-only ``Mapping`` over the body as the client sent it
    (``request["messages"]``, ``request.get("tools")``), so a model written against the body a
    ``respond(request)`` received before still reads the same keys; ``request.body`` is the body
    itself. ``tool_use_id(index)`` and ``signature(thinking)`` derive ids from it.
``as_parsed(request)``
    A ``ParsedRequest`` as it is, a body parsed.
``tool_use_id_for(request, index)`` / ``signature_for(thinking, request)``
    A deterministic ``tool_use`` id (``toolu_local_`` + 20 hex digits of a hash of the request's
    messages and ``index``) and a stand-in thinking signature (base64 of a hash), so a replayed
    conversation gets the same ids and the ids of one conversation differ turn by turn.
"""

from __future__ import annotations

import base64
import functools
import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import msgspec

from msgmodel.core.message import DecodeError, Message, block_to_text, blocks_from_api, from_api, tool_uses_of

__all__ = [
    "ParsedRequest",
    "ThinkingMode",
    "ToolChoice",
    "ToolSpec",
    "as_parsed",
    "output_schema_of",
    "parse_request",
    "signature_for",
    "tool_choice_of",
    "tool_use_id_for",
    "tools_of",
]

ThinkingMode = Literal["enabled", "adaptive", "disabled"]
_THINKING_MODES: Final = ("enabled", "adaptive", "disabled")


@dataclass(frozen=True)
class ToolChoice:
    """A request's ``tool_choice``: its kind, the forced tool's name, and whether parallel calls are off."""

    kind: Literal["auto", "any", "tool", "none"] = "auto"
    name: str | None = None
    disable_parallel_tool_use: bool = False

    @property
    def forced(self) -> bool:
        """Whether the answer must call a tool (``any`` or ``tool``)."""
        return self.kind in ("any", "tool")


@dataclass(frozen=True)
class ToolSpec:
    """One entry of ``tools``: its name, its ``type`` (None or ``custom`` for a tool the client runs and
    describes with an ``input_schema``; ``bash_20250124``, ``web_search_20250305``, ... for one Anthropic
    defines) and its ``input_schema`` (None when it has none)."""

    name: str
    type: str | None = None
    input_schema: Mapping[str, Any] | None = None

    @property
    def is_custom(self) -> bool:
        """Whether the client defined this tool with its own ``input_schema``."""
        return self.type in (None, "custom")


def tool_choice_of(body: Mapping[str, Any]) -> ToolChoice:
    """The body's ``tool_choice``; ``auto`` when absent or not an object."""
    raw = body.get("tool_choice")
    if not isinstance(raw, Mapping):
        return ToolChoice()
    kind = raw.get("type")
    parallel_off = raw.get("disable_parallel_tool_use") is True
    if kind == "tool":
        name = raw.get("name")
        return ToolChoice("tool", name if isinstance(name, str) else None, parallel_off)
    if kind in ("any", "none"):
        return ToolChoice(kind, None, parallel_off)
    return ToolChoice("auto", None, parallel_off)


def output_schema_of(body: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The JSON schema the answer's text must follow, or None.

    ``output_config.format`` (``{"type": "json_schema", "schema": {...}}``) is how SDK 2.14
    sends structured output; the older beta sent the same object as top-level ``output_format``.
    """
    for holder, key in ((body.get("output_config"), "format"), (body, "output_format")):
        fmt = holder.get(key) if isinstance(holder, Mapping) else None
        if isinstance(fmt, Mapping) and fmt.get("type") == "json_schema" and isinstance(fmt.get("schema"), Mapping):
            schema: Mapping[str, Any] = fmt["schema"]
            return schema
    return None


def tools_of(body: Mapping[str, Any]) -> tuple[ToolSpec, ...]:
    """The body's named tools, in order (an entry without a string ``name``, such as a toolset, is left out)."""
    tools = body.get("tools")
    found: list[ToolSpec] = []
    for tool in tools if isinstance(tools, list) else []:
        if isinstance(tool, Mapping) and isinstance(tool.get("name"), str):
            kind, schema = tool.get("type"), tool.get("input_schema")
            found.append(
                ToolSpec(
                    tool["name"],
                    kind if isinstance(kind, str) else None,
                    schema if isinstance(schema, Mapping) else None,
                )
            )
    return tuple(found)


def _system_text(body: Mapping[str, Any]) -> str:
    """The ``system`` prompt as text (a string, or text blocks); empty when absent or unreadable."""
    system = body.get("system")
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        try:
            return "\n".join(block_to_text(b) for b in blocks_from_api(system, path="$.system"))
        except DecodeError:
            return ""
    return ""


def _conversation(body: Mapping[str, Any]) -> tuple[Message, ...]:
    raw = body.get("messages")
    if not isinstance(raw, list):
        raise DecodeError("$.messages", "expected an array of messages")
    # Mid-conversation `system` turns (Claude Opus 4.8) are instructions, not conversation.
    return tuple(from_api([m for m in raw if not (isinstance(m, Mapping) and m.get("role") == "system")]))


@dataclass(frozen=True, eq=False)
class ParsedRequest(Mapping[str, Any]):
    """An accepted request, read once (see the module docstring); a read-only mapping over ``body``."""

    body: Mapping[str, Any]
    """The JSON body as the client sent it."""
    model: str
    messages: tuple[Message, ...]
    """The conversation, without in-conversation ``system`` turns."""
    system: str
    """The ``system`` prompt's text."""
    tools: tuple[ToolSpec, ...]
    tool_choice: ToolChoice
    output_schema: Mapping[str, Any] | None
    """The schema of the JSON output format, when the request asks for JSON output."""
    max_tokens: int | None
    stop_sequences: tuple[str, ...]
    stream: bool
    thinking: ThinkingMode | None
    _tools_by_name: Mapping[str, ToolSpec] = field(repr=False, compare=False)

    # -- the mapping over the body ------------------------------------------------------------

    def __getitem__(self, key: str) -> Any:
        return self.body[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.body)

    def __len__(self) -> int:
        return len(self.body)

    # -- readings -----------------------------------------------------------------------------

    def tool(self, name: str) -> ToolSpec | None:
        """The tool named ``name`` (the first, if the body repeats a name), or None."""
        return self._tools_by_name.get(name)

    @property
    def thinking_on(self) -> bool:
        """Whether the request turns extended thinking on (``enabled`` or ``adaptive``)."""
        return self.thinking in ("enabled", "adaptive")

    @functools.cached_property
    def called_tools(self) -> frozenset[str]:
        """The names of the tools the conversation's assistant turns called."""
        return frozenset(call.name for m in self.messages for call in tool_uses_of(m))

    @functools.cached_property
    def _messages_json(self) -> bytes:
        return msgspec.json.encode(self.body.get("messages"))

    def tool_use_id(self, index: int) -> str:
        """The deterministic id of the ``index``-th call answering this request (``tool_use_id_for``)."""
        return _tool_use_id(self._messages_json, index)

    def signature(self, thinking: str) -> str:
        """A deterministic stand-in for the API's signature of a thinking block (``signature_for``)."""
        return _signature(thinking, self._messages_json)


def _digest(*parts: bytes) -> bytes:
    h = hashlib.sha256()
    for part in parts:
        h.update(part)
        h.update(b"\x00")
    return h.digest()


def _tool_use_id(messages_json: bytes, index: int) -> str:
    return "toolu_local_" + _digest(messages_json, msgspec.json.encode(index)).hex()[:20]


def _signature(thinking: str, messages_json: bytes) -> str:
    parts = (msgspec.json.encode("signature"), msgspec.json.encode(thinking), messages_json)
    return base64.b64encode(_digest(*parts)).decode()


def parse_request(body: Mapping[str, Any]) -> ParsedRequest:
    """``body`` read once into a ``ParsedRequest`` (``DecodeError`` when ``messages`` is not a conversation)."""
    tools = tools_of(body)
    by_name: dict[str, ToolSpec] = {}
    for tool in tools:
        by_name.setdefault(tool.name, tool)
    model, max_tokens, stops = body.get("model"), body.get("max_tokens"), body.get("stop_sequences")
    thinking = body.get("thinking")
    mode = thinking.get("type") if isinstance(thinking, Mapping) else None
    return ParsedRequest(
        body=body,
        model=model if isinstance(model, str) else "",
        messages=_conversation(body),
        system=_system_text(body),
        tools=tools,
        tool_choice=tool_choice_of(body),
        output_schema=output_schema_of(body),
        max_tokens=max_tokens if isinstance(max_tokens, int) and not isinstance(max_tokens, bool) else None,
        stop_sequences=tuple(s for s in stops if isinstance(s, str)) if isinstance(stops, list) else (),
        stream=body.get("stream") is True,
        thinking=mode if mode in _THINKING_MODES else None,
        _tools_by_name=by_name,
    )


def as_parsed(request: ParsedRequest | Mapping[str, Any]) -> ParsedRequest:
    """``request`` itself when it is a ``ParsedRequest``, else the body parsed (``parse_request``)."""
    return request if isinstance(request, ParsedRequest) else parse_request(request)


def _messages_json_of(request: ParsedRequest | Mapping[str, Any]) -> bytes:
    if isinstance(request, ParsedRequest):
        return request._messages_json
    return msgspec.json.encode(request.get("messages"))


def tool_use_id_for(request: ParsedRequest | Mapping[str, Any], index: int) -> str:
    """A deterministic ``tool_use`` id for the ``index``-th call answering ``request``.

    It hashes the request's messages, so the ids of one conversation differ turn by turn
    (the API wants them unique across the conversation) and a replay gives the same ids.
    """
    return _tool_use_id(_messages_json_of(request), index)


def signature_for(thinking: str, request: ParsedRequest | Mapping[str, Any]) -> str:
    """A deterministic stand-in for the API's thinking signature (base64, like the real one)."""
    return _signature(thinking, _messages_json_of(request))
