"""Step 29 exhibit: compaction by slicing, its orphan ``tool_result``, and the step-29 local fix.

``compact`` keeps the last ``keep`` messages (``history[-keep:]``) and puts a summary of
the rest in front. In this protocol tool results travel inside *user* messages, so the
slice can start on a user message full of ``tool_result`` blocks whose ``tool_use`` was
just cut away. The API (and the local one, ``msgmodel.api.server``) answers 400::

    messages.N.content.M: unexpected `tool_use_id` found in `tool_result` blocks: <id>.
    Each `tool_result` block must have a corresponding `tool_use` block in the previous message.

It works for weeks: whether the slice lands on an orphan depends on ``keep`` and on how
many messages the last tool rounds happened to take.

``compact_fixed`` is the fix as step 29 wrote it: compaction's own private
``_is_clean_user_start`` (copy #1 of that knowledge; the authority is now
``msgmodel.core.message.is_clean_user_start``), moving the cut forward to the next user
message that holds no ``tool_result``. Both summarize with ``summary30.transcript``,
which carries the step-30 bug.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgmodel.course.legacy.summary30 import transcript

SUMMARY_PREFIX = "Summary of the earlier conversation:\n"


def compact(
    history: list[dict[str, Any]],
    keep: int,
    summarize: Callable[[str], str],
    render: Callable[[list[dict[str, Any]]], str] = transcript,
) -> list[dict[str, Any]]:
    """Summarize all but the last ``keep`` messages. May start the kept part on an orphan result."""
    if len(history) <= keep:
        return history
    head, tail = history[:-keep], history[-keep:]
    summary = summarize(render(head))
    return [{"role": "user", "content": SUMMARY_PREFIX + summary}, *tail]


# --- the step-29 local fix ------------------------------------------------------------


def _is_clean_user_start(m: dict[str, Any]) -> bool:
    return m["role"] == "user" and not any(
        b.get("type") == "tool_result" for b in (m["content"] if isinstance(m["content"], list) else [])
    )


def compact_fixed(
    history: list[dict[str, Any]],
    keep: int,
    summarize: Callable[[str], str],
    render: Callable[[list[dict[str, Any]]], str] = transcript,
) -> list[dict[str, Any]]:
    """Like ``compact``, but the kept part starts at a user message that answers no tool call."""
    if len(history) <= keep:
        return history
    start = len(history) - keep
    while start < len(history) and not _is_clean_user_start(history[start]):
        start += 1
    summary = summarize(render(history[:start]))
    return [{"role": "user", "content": SUMMARY_PREFIX + summary}, *history[start:]]
