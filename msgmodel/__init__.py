"""msgmodel: one authoritative content model for LLM agent chat messages.

``import msgmodel`` gives the model (``msgmodel.core.message``): the blocks, ``Message``, the
constructors, the readers and the codec. The validator (``msgmodel.core.protocol``) and the
heavier layers (compaction, the local API, the engine, storage, widgets) are imported
from their own modules; the ``anthropic`` SDK and ipywidgets are imported only where a
client or a widget is made.
"""

from msgmodel.core.message import (
    ARGS_LIMIT,
    RESULT_LIMIT,
    ContentBlock,
    DecodeError,
    Message,
    OpaqueBlock,
    Role,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    assistant_msg,
    block_from_api,
    block_to_api,
    block_to_text,
    blocks_from_api,
    blocks_of,
    from_api,
    from_json,
    is_clean_user_start,
    is_tool_result_message,
    message_to_text,
    result_text,
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

__version__ = "0.1.0"

__all__ = [
    "ARGS_LIMIT",
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
    "__version__",
    "assistant_msg",
    "block_from_api",
    "block_to_api",
    "block_to_text",
    "blocks_from_api",
    "blocks_of",
    "from_api",
    "from_json",
    "is_clean_user_start",
    "is_tool_result_message",
    "message_to_text",
    "result_text",
    "text_of",
    "to_api",
    "to_json",
    "tool_result_block",
    "tool_result_msg",
    "tool_results_of",
    "tool_uses_of",
    "transcript_of",
    "user_text",
]
