"""Tools for an agent loop: what runs between model calls, and how a ``tool_use`` becomes a ``tool_result``.

This module owns

* ``Tool`` (a name, a description, the JSON schema of its input, a function) and
  ``ToolRegistry``, an immutable mapping of name to ``Tool``;
* ``run_tool(registry, call)``: one ``ToolUseBlock`` in, one ``ToolResultBlock`` out, built
  with ``tool_result_block``. A tool that raises gives an ``is_error`` result whose text
  says what went wrong; ``run_tool`` itself never raises for a bad call;
* ``tools_param(registry)``: the ``tools=`` list of the Messages API.

The demo tool set the chapters and the local API use (an in-memory project, a calculator)
lives in ``msgmodel.api.demo_tools``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

from msgmodel.core.message import ToolResultBlock, ToolUseBlock, tool_result_block

__all__ = ["Tool", "ToolError", "ToolRegistry", "input_problem", "run_tool", "tools_param"]


class ToolError(Exception):
    """A tool could not do what was asked. ``str(err)`` is what the model reads in the ``is_error`` result."""


# ---------------------------------------------------------------------------------------
# Tools and the registry
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tool:
    """One tool: what the model is told (``name``, ``description``, ``input_schema``) and what runs.

    ``run`` is called with the ``tool_use`` input as keyword arguments and returns the
    result text; it raises (``ToolError`` preferably) when it cannot.
    """

    name: str
    description: str
    input_schema: Mapping[str, Any]
    run: Callable[..., str]


class ToolRegistry(Mapping[str, Tool]):
    """An immutable mapping of tool name to ``Tool``, in the order given."""

    __slots__ = ("_tools",)
    _tools: Mapping[str, Tool]

    def __init__(self, tools: Iterable[Tool]) -> None:
        by_name: dict[str, Tool] = {}
        for t in tools:
            if t.name in by_name:
                raise ValueError(f"two tools named `{t.name}`")
            by_name[t.name] = t
        object.__setattr__(self, "_tools", MappingProxyType(by_name))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("ToolRegistry is immutable")

    def __getitem__(self, name: str) -> Tool:
        return self._tools[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._tools)

    def __len__(self) -> int:
        return len(self._tools)

    def __hash__(self) -> int:
        return hash(tuple(self._tools))

    def __repr__(self) -> str:
        return f"ToolRegistry({list(self._tools)})"


_JSON_TYPES: Final[Mapping[str, tuple[type, ...]]] = MappingProxyType(
    {
        "string": (str,),
        "integer": (int,),
        "number": (int, float),
        "boolean": (bool,),
        "object": (dict,),
        "array": (list,),
        "null": (type(None),),
    }
)


def input_problem(schema: Mapping[str, Any], args: Mapping[str, Any]) -> str | None:
    """What is wrong with ``args`` as input for a tool with this (flat) JSON ``schema``, or ``None``.

    A shallow check: required arguments, unexpected ones (with ``additionalProperties:
    false``), each argument's declared ``type`` (one name or a list; ``true`` is not a
    number) and ``enum``. Tolerates a malformed schema (it checks what it can read), since
    the local API applies it to schemas that arrive in requests.
    """
    raw_properties = schema.get("properties")
    properties: Mapping[str, Any] = raw_properties if isinstance(raw_properties, Mapping) else {}
    required = schema.get("required")
    for name in required if isinstance(required, list) else []:
        if name not in args:
            return f"missing required argument `{name}`"
    for name, value in args.items():
        spec = properties.get(name)
        if not isinstance(spec, Mapping):
            if schema.get("additionalProperties", True) is False:
                known = ", ".join(f"`{p}`" for p in properties) or "none"
                return f"unexpected argument `{name}` (arguments: {known})"
            continue
        declared = spec.get("type")
        names = [n for n in (declared if isinstance(declared, list) else [declared]) if isinstance(n, str)]
        expected = tuple(t for n in names for t in _JSON_TYPES.get(n, ()))
        wrong_bool = isinstance(value, bool) and "boolean" not in names
        if expected and (not isinstance(value, expected) or wrong_bool):
            return f"argument `{name}` must be of type {' or '.join(names)}"
        if isinstance(spec.get("enum"), list) and value not in spec["enum"]:
            return f"argument `{name}` must be one of {spec['enum']!r}"
    return None


def _check_input(tool: Tool, args: Mapping[str, Any]) -> None:
    """Refuse input that does not fit the tool's schema, saying which argument and why."""
    problem = input_problem(tool.input_schema, args)
    if problem is not None:
        raise ToolError(f"{tool.name}: {problem}")


def run_tool(registry: Mapping[str, Tool], call: ToolUseBlock) -> ToolResultBlock:
    """Run one tool call and answer it. Never raises for a bad call: failures become ``is_error`` results.

    An unknown tool, input that does not fit the schema, or an exception from the tool
    gives ``tool_result_block(call.id, <what went wrong>, is_error=True)``.
    """
    tool = registry.get(call.name)
    if tool is None:
        known = ", ".join(registry) or "none"
        return tool_result_block(call.id, f"unknown tool `{call.name}` (tools: {known})", is_error=True)
    try:
        _check_input(tool, call.input)
        output: object = tool.run(**call.input)
    except ToolError as e:
        return tool_result_block(call.id, str(e), is_error=True)
    except Exception as e:  # a tool's bug is the model's failed call, not the loop's crash
        return tool_result_block(call.id, f"{call.name} failed: {type(e).__name__}: {e}", is_error=True)
    if not isinstance(output, str):
        return tool_result_block(call.id, f"{call.name} returned {type(output).__name__}, not text", is_error=True)
    return tool_result_block(call.id, output)


def tools_param(registry: Mapping[str, Tool]) -> list[dict[str, Any]]:
    """The Messages API ``tools=`` list: name, description and input schema of each tool (fresh copies)."""
    return [
        {"name": t.name, "description": t.description, "input_schema": copy.deepcopy(dict(t.input_schema))}
        for t in registry.values()
    ]
