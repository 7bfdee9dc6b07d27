"""What a request's decoding constraints make of a model's answer: ``tool_choice`` and ``output_config.format``.

The live API enforces these while it decodes, whatever the model would rather say; the local API
does the same to any model's blocks, after the model answered. This module owns that step:

``tool_choice_of(request) -> ToolChoice``
    The request's ``tool_choice`` read into a frozen value (``auto`` when absent).
``output_schema_of(request) -> dict | None``
    The JSON schema of ``output_config.format`` (type ``json_schema``), or of the older beta
    ``output_format`` field, when the request asks for JSON output.
``constrain(blocks, request) -> list[ContentBlock]``
    The answer as the constraints allow it, idempotent:

    * ``none``: no ``tool_use`` block survives (a text is left when nothing else is);
    * ``any`` / ``tool``: the answer is tool calls only (the API prefills the turn, so no text
      comes before the call), each to an allowed tool with an ``input`` that fits the tool's
      ``input_schema``; a model that called none gets one call to the forced tool (for ``any``,
      the first tool the conversation has not called yet) whose input is built from the schema
      by ``msgmodel.api.schema_instance``;
    * ``disable_parallel_tool_use``: at most one ``tool_use`` block (exactly one when forced);
    * a JSON output format: an answer without tool calls is one text block holding one JSON
      document valid against the schema: the model's own text when it already is a JSON
      document, a generated instance otherwise.

The request is expected to have passed validation (a forced tool the request does not define is
refused there); here it raises ``ValueError`` naming the tool. What counts as a call that "fits"
its schema is the shallow check ``run_tool`` makes (``msgmodel.core.tools.input_problem``:
required keys, no undeclared key under ``additionalProperties: false``, each value's JSON type
and ``enum``): a model's call that fails it is replaced by a generated one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import msgspec

from msgmodel.api.schema_instance import instance_of
from msgmodel.core.message import ContentBlock, TextBlock, ToolUseBlock, tool_uses_of
from msgmodel.core.tools import input_problem

__all__ = ["NO_TOOL_TEXT", "ToolChoice", "constrain", "fits", "forced_call", "output_schema_of", "tool_choice_of"]

NO_TOOL_TEXT = "I answer without calling a tool, as tool_choice is none."
"""The text left when ``tool_choice: none`` removed every block of an answer (our wording)."""


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


def tool_choice_of(request: Mapping[str, Any]) -> ToolChoice:
    """The request's ``tool_choice``; ``auto`` when absent or not an object."""
    raw = request.get("tool_choice")
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


def output_schema_of(request: Mapping[str, Any]) -> dict[str, Any] | None:
    """The JSON schema the answer's text must follow, or None.

    ``output_config.format`` (``{"type": "json_schema", "schema": {...}}``) is how SDK 2.14
    sends structured output; the older beta sent the same object as top-level ``output_format``.
    """
    for holder, key in ((request.get("output_config"), "format"), (request, "output_format")):
        fmt = holder.get(key) if isinstance(holder, Mapping) else None
        if isinstance(fmt, Mapping) and fmt.get("type") == "json_schema" and isinstance(fmt.get("schema"), dict):
            return dict(fmt["schema"])
    return None


def _tool_schemas(request: Mapping[str, Any]) -> dict[str, Mapping[str, Any] | None]:
    """The request's tools by name: name -> ``input_schema`` (None for a server tool without one)."""
    found: dict[str, Mapping[str, Any] | None] = {}
    tools = request.get("tools")
    for tool in tools if isinstance(tools, list) else []:
        if isinstance(tool, Mapping) and isinstance(tool.get("name"), str):
            schema = tool.get("input_schema")
            found.setdefault(tool["name"], schema if isinstance(schema, Mapping) else None)
    return found


def forced_call(request: Mapping[str, Any], name: str, index: int = 0) -> ToolUseBlock:
    """A call to tool ``name`` of ``request`` with an input built from its ``input_schema``."""
    from msgmodel.api.scripted import tool_use_id_for  # here: scripted's models import this module

    schemas = _tool_schemas(request)
    if name not in schemas:
        raise ValueError(f"tool_choice names the tool {name!r}, which the request's tools do not define")
    schema = schemas[name]
    value = instance_of(dict(schema)) if schema is not None else {}
    if not isinstance(value, dict):  # an input is always an object; a schema that says otherwise gets {}
        value = {}
    return ToolUseBlock(id=tool_use_id_for(request, index), name=name, input=value)


def fits(value: object, schema: Mapping[str, Any] | None) -> bool:
    """Whether a tool ``input`` passes the shallow check ``run_tool`` makes (``core.tools.input_problem``)."""
    return isinstance(value, dict) and (schema is None or input_problem(schema, value) is None)


def _any_tool(request: Mapping[str, Any]) -> str:
    """The tool ``any`` calls when the model called none: the first the conversation has not called yet.

    So an agent that offers its function tools and an output tool (pydantic-ai's tool output mode)
    reaches the output tool after the function tools ran, instead of calling the first tool forever.
    Tools with an ``input_schema`` come first; with every tool called already, the first one.
    """
    schemas = _tool_schemas(request)
    if not schemas:
        raise ValueError("tool_choice asks for a tool call, but the request defines no tools")
    called = _called_tools(request)
    ordered = sorted(schemas, key=lambda n: schemas[n] is None)  # stable: request order within each group
    return next((n for n in ordered if n not in called), ordered[0])


def _called_tools(request: Mapping[str, Any]) -> set[str]:
    """The names of the tools the request's assistant turns called."""
    from msgmodel.api.scripted import request_messages  # here: scripted's models import this module

    return {call.name for m in request_messages(request) for call in tool_uses_of(m)}


def _is_json_document(text: str) -> bool:
    try:
        msgspec.json.decode(text.strip())
    except msgspec.DecodeError:
        return False
    return bool(text.strip())


def constrain(blocks: Sequence[ContentBlock], request: Mapping[str, Any]) -> list[ContentBlock]:
    """The answer ``blocks`` as the request's ``tool_choice`` and output format allow it."""
    choice = tool_choice_of(request)
    out = list(blocks)
    if choice.kind == "none":
        out = [b for b in out if b.type != "tool_use"]
    elif choice.forced:
        schemas = _tool_schemas(request)
        allowed = {choice.name} if choice.kind == "tool" and choice.name is not None else set(schemas)
        calls = [
            b for b in out if b.type == "tool_use" and b.name in allowed and fits(b.input, schemas.get(b.name, None))
        ]
        if not calls:
            name = choice.name if choice.kind == "tool" and choice.name is not None else _any_tool(request)
            calls = [forced_call(request, name)]
        others = [b for b in out if b.type not in ("tool_use", "text")]
        out = [*others, *calls]
    if choice.disable_parallel_tool_use:
        first = next((i for i, b in enumerate(out) if b.type == "tool_use"), None)
        out = [b for i, b in enumerate(out) if b.type != "tool_use" or i == first]
    schema = output_schema_of(request)
    if schema is not None and not any(b.type == "tool_use" for b in out):
        text = "".join(b.text for b in out if b.type == "text")
        document = text.strip() if _is_json_document(text) else msgspec.json.encode(instance_of(schema)).decode()
        out = [*(b for b in out if b.type != "text"), TextBlock(document)]
    if choice.kind == "none" and not any(b.type in ("text", "tool_use") for b in out):
        out.append(TextBlock(NO_TOOL_TEXT))
    return out
