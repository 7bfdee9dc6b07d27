"""Deterministic synthetic agent sessions, shaped like real coding-agent traffic.

This module owns the made-up conversations that benchmarks, tests and notebooks share:
user prompts as strings, assistant turns with thinking (signed), text and parallel
tool calls, tool results as strings or block lists, failures, and the occasional long
tool output. Everything is built with the constructors of ``msgmodel.core.message`` and is a
valid stored history: ``msgmodel.core.protocol.validate(s, as_history=True) == []``. The same
``seed`` gives the same session, byte for byte.
"""

from __future__ import annotations

import base64
import random
from typing import Final

from msgmodel.core.message import (
    ContentBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    assistant_msg,
    tool_result_block,
    tool_result_msg,
    tool_uses_of,
    user_text,
)

__all__ = ["agent_session", "synth_session"]

_FILES: Final = ("src/app.py", "src/db.py", "tests/test_app.py", "README.md", "setup.cfg", "src/util/io.py")
_PROMPTS: Final = (
    "Why does the test suite fail on CI but not locally?",
    "Add retry logic to the HTTP client and cover it with a test.",
    "Rename the config loader and update every caller.",
    "Find where the session token is logged and remove it.",
    "The migration is slow; profile it and suggest a fix.",
)
_WORDS: Final = [
    "the",
    "function",
    "returns",
    "early",
    "when",
    "the",
    "cache",
    "is",
    "cold",
    "so",
    "the",
    "caller",
    "sees",
    "an",
    "empty",
    "list",
    "and",
    "the",
    "retry",
    "never",
    "happens",
    "because",
    "the",
    "flag",
    "is",
    "reset",
    "before",
    "the",
    "loop",
]


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choices(_WORDS, k=n)).capitalize() + "."


def _tool_call(rng: random.Random, tool_id: str) -> ToolUseBlock:
    kind = rng.randrange(4)
    if kind == 0:
        return ToolUseBlock(id=tool_id, name="read_file", input={"path": rng.choice(_FILES)})
    if kind == 1:
        return ToolUseBlock(id=tool_id, name="grep", input={"pattern": rng.choice(_WORDS), "path": "src"})
    if kind == 2:
        return ToolUseBlock(id=tool_id, name="bash", input={"command": f"pytest -q -k {rng.choice(_WORDS)}"})
    return ToolUseBlock(
        id=tool_id, name="edit_file", input={"path": rng.choice(_FILES), "old": rng.choice(_WORDS), "new": "x"}
    )


def _tool_result(rng: random.Random, call: ToolUseBlock, long_outputs: bool) -> ToolResultBlock:
    roll = rng.random()
    if roll < 0.08:
        return tool_result_block(call.id, f"error: {_sentence(rng, 6)}", is_error=True)
    if roll < 0.11 and long_outputs:  # a long tool output
        lines = [f"{i:4d}  {_sentence(rng, 9)}" for i in range(rng.randrange(20, 80))]
        return tool_result_block(call.id, "\n".join(lines))
    if roll < 0.30:
        return tool_result_block(call.id, [TextBlock(_sentence(rng, 12)), TextBlock(_sentence(rng, 5))])
    return tool_result_block(call.id, _sentence(rng, rng.randrange(6, 30)))


def synth_session(n_messages: int, *, seed: int = 0, thinking: bool = True, long_outputs: bool = True) -> list[Message]:
    """A valid agent session of exactly ``n_messages`` messages (``n_messages >= 1``).

    Episodes of: a user prompt, then assistant turns with parallel tool calls, each
    answered by one user message of results, then a final assistant answer. The last
    message is an assistant answer or a user prompt, never a dangling tool call.
    ``long_outputs=False`` leaves out the long tool outputs (a denser session: more blocks
    per byte).
    """
    if n_messages < 1:
        raise ValueError("a session needs at least one message")
    rng = random.Random(seed)
    out: list[Message] = []
    next_id = 0

    def sign() -> str:
        return base64.b64encode(rng.randbytes(48)).decode()

    while len(out) < n_messages:
        out.append(user_text(rng.choice(_PROMPTS) + " " + _sentence(rng, rng.randrange(3, 12))))
        for _ in range(rng.randrange(1, 6)):
            if len(out) + 2 > n_messages - 1:
                break
            blocks: list[ContentBlock] = []
            if thinking and rng.random() < 0.5:
                blocks.append(ThinkingBlock(thinking=_sentence(rng, rng.randrange(8, 25)), signature=sign()))
            if rng.random() < 0.6:
                blocks.append(TextBlock(_sentence(rng, rng.randrange(4, 14))))
            calls = []
            for _ in range(1 if rng.random() < 0.7 else rng.randrange(2, 4)):
                calls.append(_tool_call(rng, f"toolu_{seed:02d}{next_id:08d}"))
                next_id += 1
            out.append(assistant_msg([*blocks, *calls]))
            out.append(tool_result_msg([_tool_result(rng, c, long_outputs) for c in calls]))
        if len(out) < n_messages:
            out.append(assistant_msg([TextBlock(_sentence(rng, rng.randrange(10, 40)))]))
    return out[:n_messages] if _ends_cleanly(out[:n_messages]) else _trim(out, n_messages)


def _ends_cleanly(msgs: list[Message]) -> bool:
    last = msgs[-1]
    return not (last.role == "assistant" and tool_uses_of(last))


def _trim(msgs: list[Message], n: int) -> list[Message]:
    # The cut fell right after a tool call: end on a plain answer instead.
    cut = msgs[: n - 1]
    cut.append(assistant_msg([TextBlock("Stopping here.")]))
    return cut


def agent_session(n_messages: int, *, seed: int = 0) -> list[Message]:
    """An agent's session of exactly ``n_messages`` messages: one prompt, then rounds of one call each.

    Each round is an assistant message with signed thinking, text and one tool call (a new id
    every round), then the user message with its result; an even ``n_messages`` ends on a plain
    answer. The blocks are drawn as ``synth_session`` draws them (without long tool outputs).
    This is the shape ``bench/`` calls "agent": more blocks per message, and nothing repeats
    but the tool names.
    """
    if n_messages < 1:
        raise ValueError("a session needs at least one message")
    rng = random.Random(seed)
    out = [user_text(rng.choice(_PROMPTS))]
    while len(out) + 2 <= n_messages:
        signature = base64.b64encode(rng.randbytes(48)).decode()
        thinking = ThinkingBlock(thinking=_sentence(rng, rng.randrange(8, 25)), signature=signature)
        call = _tool_call(rng, f"toolu_{seed:02d}{len(out):08d}")
        out.append(assistant_msg([thinking, TextBlock(_sentence(rng, rng.randrange(4, 14))), call]))
        out.append(tool_result_msg([_tool_result(rng, call, long_outputs=False)]))
    if len(out) < n_messages:
        out.append(assistant_msg([TextBlock(_sentence(rng, rng.randrange(10, 40)))]))
    return out
