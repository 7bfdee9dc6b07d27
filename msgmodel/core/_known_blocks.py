"""Every content-block kind the Messages API knows, as the installed ``anthropic`` SDK types it.

GENERATED from anthropic==2.14.0 (the GA and beta request params, plus the response
models the SDK also accepts as input) by ``derive_known_blocks`` in ``tests/test_protocol.py``.
Do not edit by hand; regenerate with

    .venv/bin/python tests/test_protocol.py > msgmodel/core/_known_blocks.py

``test_known_blocks_match_installed_sdk`` re-derives every table and fails when one drifts.
A static table rather than ``import anthropic`` at run time: the SDK takes ~1.5 s to import.

``BLOCK_FIELDS`` / ``TOOL_RESULT_CONTENT_FIELDS`` / ``MESSAGE_FIELDS`` map a tag (or a role) to
``(required, allowed)`` field names: *required* = required by every request param of that tag
(``type`` left out); *allowed* = every field any param or response model of that tag has.
"""

from typing import Final

SDK_VERSION: Final = "2.14.0"

MESSAGE_BLOCK_TAGS: Final[tuple[str, ...]] = (
    "advisor_tool_result",
    "bash_code_execution_tool_result",
    "code_execution_tool_result",
    "compaction",
    "container_upload",
    "document",
    "fallback",
    "image",
    "mcp_tool_listing",
    "mcp_tool_result",
    "mcp_tool_use",
    "redacted_thinking",
    "search_result",
    "server_tool_use",
    "text",
    "text_editor_code_execution_tool_result",
    "thinking",
    "tool_addition",
    "tool_removal",
    "tool_result",
    "tool_search_tool_result",
    "tool_use",
    "web_fetch_tool_result",
    "web_search_tool_result",
)

TOOL_RESULT_CONTENT_TAGS: Final[tuple[str, ...]] = (
    "browser_state",
    "document",
    "image",
    "search_result",
    "text",
    "tool_reference",
)

SYSTEM_MESSAGE_BLOCK_TAGS: Final[tuple[str, ...]] = (
    "text",
    "tool_addition",
    "tool_removal",
)

SERVER_TOOL_USE_TAGS: Final[tuple[str, ...]] = (
    "mcp_tool_use",
    "server_tool_use",
)

SERVER_TOOL_RESULT_TAGS: Final[tuple[str, ...]] = (
    "advisor_tool_result",
    "bash_code_execution_tool_result",
    "code_execution_tool_result",
    "mcp_tool_result",
    "text_editor_code_execution_tool_result",
    "tool_search_tool_result",
    "web_fetch_tool_result",
    "web_search_tool_result",
)

BLOCK_FIELDS: Final[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "advisor_tool_result": (
        ("content", "tool_use_id"),
        ("cache_control", "content", "tool_use_id", "type"),
    ),
    "bash_code_execution_tool_result": (
        ("content", "tool_use_id"),
        ("cache_control", "content", "tool_use_id", "type"),
    ),
    "code_execution_tool_result": (
        ("content", "tool_use_id"),
        ("cache_control", "content", "tool_use_id", "type"),
    ),
    "compaction": (
        (),
        ("cache_control", "content", "encrypted_content", "signature", "tool_changes", "type"),
    ),
    "container_upload": (
        ("file_id",),
        ("cache_control", "file_id", "type"),
    ),
    "document": (
        ("source",),
        ("cache_control", "citations", "context", "source", "title", "type"),
    ),
    "fallback": (
        ("from", "to"),
        ("from", "to", "trigger", "type"),
    ),
    "image": (
        ("source",),
        ("cache_control", "source", "transformations", "type"),
    ),
    "mcp_tool_listing": (
        ("mcp_server_name", "tools"),
        ("mcp_server_name", "tools", "type"),
    ),
    "mcp_tool_result": (
        ("tool_use_id",),
        ("cache_control", "content", "is_error", "tool_use_id", "type"),
    ),
    "mcp_tool_use": (
        ("id", "input", "name", "server_name"),
        ("cache_control", "id", "input", "name", "server_name", "type"),
    ),
    "redacted_thinking": (
        ("data",),
        ("data", "type"),
    ),
    "search_result": (
        ("content", "source", "title"),
        ("cache_control", "citations", "content", "source", "title", "type"),
    ),
    "server_tool_use": (
        ("id", "input", "name"),
        ("cache_control", "caller", "id", "input", "name", "type"),
    ),
    "text": (
        ("text",),
        ("cache_control", "citations", "text", "type"),
    ),
    "text_editor_code_execution_tool_result": (
        ("content", "tool_use_id"),
        ("cache_control", "content", "tool_use_id", "type"),
    ),
    "thinking": (
        ("signature", "thinking"),
        ("signature", "thinking", "type"),
    ),
    "tool_addition": (
        ("tool",),
        ("cache_control", "tool", "type"),
    ),
    "tool_removal": (
        ("tool",),
        ("cache_control", "tool", "type"),
    ),
    "tool_result": (
        ("tool_use_id",),
        ("cache_control", "content", "is_error", "tool_use_id", "toolset_name", "type"),
    ),
    "tool_search_tool_result": (
        ("content", "tool_use_id"),
        ("cache_control", "content", "tool_use_id", "type"),
    ),
    "tool_use": (
        ("id", "input", "name"),
        ("cache_control", "caller", "id", "input", "name", "toolset_name", "type"),
    ),
    "web_fetch_tool_result": (
        ("content", "tool_use_id"),
        ("cache_control", "caller", "content", "tool_use_id", "type"),
    ),
    "web_search_tool_result": (
        ("content", "tool_use_id"),
        ("cache_control", "caller", "content", "tool_use_id", "type"),
    ),
}

TOOL_RESULT_CONTENT_FIELDS: Final[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "browser_state": (
        ("tabs",),
        ("cache_control", "state_changes", "tabs", "type"),
    ),
    "document": (
        ("source",),
        ("cache_control", "citations", "context", "source", "title", "type"),
    ),
    "image": (
        ("source",),
        ("cache_control", "source", "transformations", "type"),
    ),
    "search_result": (
        ("content", "source", "title"),
        ("cache_control", "citations", "content", "source", "title", "type"),
    ),
    "text": (
        ("text",),
        ("cache_control", "citations", "text", "type"),
    ),
    "tool_reference": (
        ("tool_name",),
        ("cache_control", "tool_name", "type"),
    ),
}

MESSAGE_FIELDS: Final[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "assistant": (
        ("content", "role"),
        ("content", "role"),
    ),
    "system": (
        ("role",),
        ("clear_at", "content", "output_config", "role"),
    ),
    "user": (
        ("content", "role"),
        ("content", "role"),
    ),
}
