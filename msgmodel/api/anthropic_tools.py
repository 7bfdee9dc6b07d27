"""The tools Anthropic defines (bash, the text editor, web search, ...): a plausible forced call of each.

A tool the client defines carries an ``input_schema``, and a call forced by ``tool_choice`` gets an
input built from it (``msgmodel.api.schema_instance``). A tool Anthropic defines carries a ``type``
instead (``bash_20250124``, ``text_editor_20250728``, ``web_search_20250305``, ...; the pinned SDK's
``ToolUnionParam`` and its beta twin list them) and its input has a documented shape. This module
owns those shapes, keyed by the type without its date:

* tools the client runs, answered with a ``tool_use`` block: ``bash`` (``{"command": "ls -la"}``),
  ``text_editor`` (``{"command": "view", "path": "README.md"}``), ``memory`` (``{"command":
  "view", "path": "/memories"}``), ``computer`` (``{"action": "screenshot"}``);
* tools the API runs itself, answered with a ``server_tool_use`` block and the block of its result:
  ``web_search`` (``{"query": ...}``, the last user text), ``web_fetch`` (``{"url": ...}``, the first
  URL of the last user text), ``code_execution`` (``{"code": ...}`` for ``code_execution_20250522``;
  the later versions call their ``bash_code_execution`` sub-tool with ``{"command": ...}``),
  ``tool_search_tool_regex`` / ``tool_search_tool_bm25`` (``{"query": ...}``) and ``advisor``
  (``{}``: the advisor reads the conversation, not an input). The local API runs none of them, so
  the result is the error each result type documents for that case, ``error_code: "unavailable"``
  (the live API would carry the search results, the page, the output...).

``forced_anthropic_call(request, tool, index) -> list[ContentBlock] | None``
    The call's blocks for a tool Anthropic defines; None for any other tool (a type this table does
    not know, a client tool).
``server_call_names(tool)`` / ``server_call_name(block)``
    The names a ``server_tool_use`` block calling ``tool`` carries (``code_execution``'s sub-tools
    too); the name a given ``server_tool_use`` block carries.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from msgmodel.api.parsed import ParsedRequest, ToolSpec
from msgmodel.core.message import ContentBlock, OpaqueBlock, ToolUseBlock, block_from_api, server_tool_link, text_of

__all__ = ["forced_anthropic_call", "server_call_name", "server_call_names", "tool_family"]

_DATED: Final = re.compile(r"_\d{8}$")
_URL: Final = re.compile(r"https?://[^\s\"'<>)\]]+")
_QUERY_CHARS: Final = 200


@dataclass(frozen=True)
class _Server:
    """A tool the API runs: the name its ``server_tool_use`` carries, and the type of its result block."""

    name: str | None
    result: str


_CLIENT_INPUTS: Final[Mapping[str, Mapping[str, Any]]] = {
    "bash": {"command": "ls -la"},
    "text_editor": {"command": "view", "path": "README.md"},
    "memory": {"command": "view", "path": "/memories"},
    "computer": {"action": "screenshot"},
}
_SERVER: Final[Mapping[str, _Server]] = {
    "web_search": _Server(None, "web_search_tool_result"),
    "web_fetch": _Server(None, "web_fetch_tool_result"),
    "code_execution": _Server("bash_code_execution", "bash_code_execution_tool_result"),
    "tool_search_tool_regex": _Server(None, "tool_search_tool_result"),
    "tool_search_tool_bm25": _Server(None, "tool_search_tool_result"),
    "advisor": _Server(None, "advisor_tool_result"),
}


def tool_family(tool: ToolSpec) -> str | None:
    """The family of a tool Anthropic defines (``bash_20250124`` -> ``bash``), or None for a client's own tool."""
    if tool.is_custom or tool.type is None:
        return None
    family = _DATED.sub("", tool.type)
    return family if family in _CLIENT_INPUTS or family in _SERVER else None


def server_call_names(tool: ToolSpec) -> frozenset[str]:
    """The names a ``server_tool_use`` calling ``tool`` may carry (none for a tool the API does not run)."""
    family = tool_family(tool)
    if family not in _SERVER:
        return frozenset()
    if family == "code_execution":
        return frozenset({tool.name, "bash_code_execution", "text_editor_code_execution"})
    return frozenset({tool.name})


def server_call_name(b: ContentBlock) -> str | None:
    """The tool name a ``server_tool_use`` block calls (None for any other block)."""
    link = server_tool_link(b)
    if link is None or link[0] != "use" or not isinstance(b, OpaqueBlock):
        return None
    name = b.raw.get("name")
    return name if isinstance(name, str) else None


def _last_user_text(request: ParsedRequest) -> str:
    user = next((m for m in reversed(request.messages) if m.role == "user"), None)
    return " ".join(text_of(user).split()) if user is not None else ""


def _server_input(family: str, tool: ToolSpec, request: ParsedRequest) -> dict[str, Any]:
    said = _last_user_text(request)
    match family:
        case "web_search" | "tool_search_tool_bm25":
            return {"query": said[:_QUERY_CHARS] or "local API"}
        case "tool_search_tool_regex":
            words = re.findall(r"\w+", said)
            return {"query": "|".join(dict.fromkeys(w.lower() for w in words[:5])) or ".*"}
        case "web_fetch":
            found = _URL.search(said)
            return {"url": found.group(0) if found else "https://example.com/"}
        case "code_execution" if tool.type == "code_execution_20250522":
            return {"code": "print('hello from the local API')"}
        case "code_execution":
            return {"command": "ls -la"}
        case _:
            return {}


def forced_anthropic_call(request: ParsedRequest, tool: ToolSpec, index: int) -> list[ContentBlock] | None:
    """The blocks of a forced call to ``tool`` when Anthropic defines it (see the module docstring), else None."""
    family = tool_family(tool)
    if family is None:
        return None
    if family in _CLIENT_INPUTS:
        return [ToolUseBlock(id=request.tool_use_id(index), name=tool.name, input=dict(_CLIENT_INPUTS[family]))]
    server = _SERVER[family]
    call_id = "srv" + request.tool_use_id(index)  # srvtoolu_local_..., as the API's srvtoolu_ ids
    name = server.name if server.name is not None and tool.type != "code_execution_20250522" else tool.name
    result = "code_execution_tool_result" if tool.type == "code_execution_20250522" else server.result
    use = {"type": "server_tool_use", "id": call_id, "name": name, "input": _server_input(family, tool, request)}
    answer = {
        "type": result,
        "tool_use_id": call_id,
        "content": {"type": f"{result}_error", "error_code": "unavailable"},
    }
    return [block_from_api(use), block_from_api(answer)]
