"""Step 30 exhibit: what the compaction summarizer reads, the bug and the step-30 local fix.

The bug (``transcript``, the renderer ``compact29`` used): text blocks come out as text
and *every other block* as ``(tool call)``. A session that read three files, ran a
command and hit a failure reaches the summarizer as a row of identical placeholders, so
the summary cannot say what was read, run or failed, and the agent forgets it.

The step-30 fix (``transcript_fixed``) gives compaction its own private ``_block_to_text``
(copy #2 of "how to render a block"; the real one is ``msgmodel.core.message.block_to_text``).
It is a reasonable piece of code and it fixes what was reported. It also drifts from the
authority in ways no review would flag: a failed result is rendered like a successful one
(no failure marker), a result whose content is a list of blocks renders empty, and the
cuts carry no ellipsis, so the summarizer cannot tell a cut from an end.
"""

from __future__ import annotations

import json
from typing import Any


def _message_text(m: dict[str, Any]) -> str:
    content = m["content"]
    if isinstance(content, str):
        return content
    parts = []
    for b in content:
        if b.get("type") == "text":
            parts.append(b["text"])
        else:
            parts.append("(tool call)")
    return " ".join(parts)


def transcript(history: list[dict[str, Any]]) -> str:
    """The step-29/30 summarizer input: ``role: text``, each non-text block as ``(tool call)``."""
    return "\n".join(f"{m['role']}: {_message_text(m)}" for m in history)


# --- the step-30 local fix ------------------------------------------------------------


def _block_to_text(b: dict[str, Any]) -> str:
    t = b.get("type")
    if t == "text":
        return str(b.get("text", ""))
    if t == "tool_use":
        args = json.dumps(b.get("input", {}))
        return f"[call {b.get('name')}({args[:200]})]"
    if t == "tool_result":
        content = b.get("content")
        raw = content if isinstance(content, str) else ""
        return f"[result: {raw[:500]}]"
    return ""  # thinking etc.: not needed for a summary


def transcript_fixed(history: list[dict[str, Any]]) -> str:
    """The step-30 summarizer input: tool calls and results rendered by compaction's own ``_block_to_text``."""
    lines = []
    for m in history:
        content = m["content"]
        text = content if isinstance(content, str) else "\n".join(t for t in (_block_to_text(b) for b in content) if t)
        if text:
            lines.append(f"{m['role'].capitalize()}: {text}")
    return "\n\n".join(lines)
