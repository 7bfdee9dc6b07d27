"""What a request's decoding constraints make of a model's answer: ``tool_choice`` and ``output_config.format``.

The live API enforces these while it decodes, whatever the model would rather say; the local API
does the same to any model's blocks, after the model answered. This module owns that step; the
request's ``tool_choice`` and output schema are read by ``msgmodel.api.parsed`` (``ToolChoice``,
``tool_choice_of`` and ``output_schema_of`` are re-exported here for the code that imported them
from this module):

``constrain(blocks, request) -> list[ContentBlock]``
    The answer as the constraints allow it, idempotent:

    * ``none``: no ``tool_use`` block survives (a text is left when nothing else is);
    * ``any`` / ``tool``: the answer is tool calls only (the API prefills the turn, so no text
      comes before the call), each to an allowed tool with an ``input`` that fits the tool's
      ``input_schema``; a model that called none gets one call to the forced tool (for ``any``,
      the first tool the conversation has not called yet) whose input is built from the schema
      by ``msgmodel.api.schema_instance``, or for a tool Anthropic defines (``bash``,
      ``web_search``, ...) takes its documented shape (``msgmodel.api.anthropic_tools``; a tool the
      API runs gives a ``server_tool_use`` and its result, a model's own such call is kept);
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
from typing import Any

import msgspec

from msgmodel.api.anthropic_tools import forced_anthropic_call, server_call_name, server_call_names
from msgmodel.api.parsed import ParsedRequest, ToolChoice, as_parsed, output_schema_of, tool_choice_of
from msgmodel.api.schema_instance import instance_of
from msgmodel.core.message import ContentBlock, TextBlock, ToolUseBlock
from msgmodel.core.tools import input_problem

__all__ = ["NO_TOOL_TEXT", "ToolChoice", "constrain", "fits", "forced_call", "output_schema_of", "tool_choice_of"]

NO_TOOL_TEXT = "I answer without calling a tool, as tool_choice is none."
"""The text left when ``tool_choice: none`` removed every block of an answer (our wording)."""


def forced_call(request: ParsedRequest | Mapping[str, Any], name: str, index: int = 0) -> list[ContentBlock]:
    """A call to tool ``name`` of ``request``: a ``tool_use`` whose input is built from the tool's
    ``input_schema``, or for a tool Anthropic defines the call its documented shape gives
    (``msgmodel.api.anthropic_tools``: a ``server_tool_use`` and its result for one the API runs)."""
    req = as_parsed(request)
    tool = req.tool(name)
    if tool is None:
        raise ValueError(f"tool_choice names the tool {name!r}, which the request's tools do not define")
    defined = forced_anthropic_call(req, tool, index)
    if defined is not None:
        return defined
    value = instance_of(tool.input_schema) if tool.input_schema is not None else {}
    if not isinstance(value, dict):  # an input is always an object; a schema that says otherwise gets {}
        value = {}
    return [ToolUseBlock(id=req.tool_use_id(index), name=name, input=value)]


def fits(value: object, schema: Mapping[str, Any] | None) -> bool:
    """Whether a tool ``input`` passes the shallow check ``run_tool`` makes (``core.tools.input_problem``)."""
    return isinstance(value, dict) and (schema is None or input_problem(schema, value) is None)


def _any_tool(req: ParsedRequest) -> str:
    """The tool ``any`` calls when the model called none: the first the conversation has not called yet.

    So an agent that offers its function tools and an output tool (pydantic-ai's tool output mode)
    reaches the output tool after the function tools ran, instead of calling the first tool forever.
    Tools with an ``input_schema`` come first; with every tool called already, the first one.
    """
    names = list(dict.fromkeys(t.name for t in req.tools))
    if not names:
        raise ValueError("tool_choice asks for a tool call, but the request defines no tools")
    ordered = sorted(names, key=lambda n: _schema(req, n) is None)  # stable: request order within each group
    return next((n for n in ordered if n not in req.called_tools), ordered[0])


def _schema(req: ParsedRequest, name: str) -> Mapping[str, Any] | None:
    tool = req.tool(name)
    return tool.input_schema if tool is not None else None


def _is_json_document(text: str) -> bool:
    try:
        msgspec.json.decode(text.strip())
    except msgspec.DecodeError:
        return False
    return bool(text.strip())


def constrain(blocks: Sequence[ContentBlock], request: ParsedRequest | Mapping[str, Any]) -> list[ContentBlock]:
    """The answer ``blocks`` as the request's ``tool_choice`` and output format allow it."""
    req = as_parsed(request)
    choice = req.tool_choice
    out = list(blocks)
    if choice.kind == "none":
        out = [b for b in out if b.type != "tool_use"]
    elif choice.forced:
        allowed = {choice.name} if choice.kind == "tool" and choice.name is not None else {t.name for t in req.tools}
        calls: list[ContentBlock] = [
            b for b in out if b.type == "tool_use" and b.name in allowed and fits(b.input, _schema(req, b.name))
        ]
        server_names = frozenset(n for t in req.tools if t.name in allowed for n in server_call_names(t))
        if not calls and not any(server_call_name(b) in server_names for b in out):
            name = choice.name if choice.kind == "tool" and choice.name is not None else _any_tool(req)
            calls = forced_call(req, name)
        others = [b for b in out if b.type not in ("tool_use", "text")]
        out = [*others, *calls]
    if choice.disable_parallel_tool_use:
        first = next((i for i, b in enumerate(out) if b.type == "tool_use"), None)
        out = [b for i, b in enumerate(out) if b.type != "tool_use" or i == first]
    schema = req.output_schema
    if schema is not None and not any(b.type == "tool_use" for b in out):
        text = "".join(b.text for b in out if b.type == "text")
        document = text.strip() if _is_json_document(text) else msgspec.json.encode(instance_of(schema)).decode()
        out = [*(b for b in out if b.type != "text"), TextBlock(document)]
    if choice.kind == "none" and not any(b.type in ("text", "tool_use") for b in out):
        out.append(TextBlock(NO_TOOL_TEXT))
    return out
