"""Static HTML for messages: readable in JupyterLab, in nbconvert HTML and on GitHub.

This module owns how a message *looks* when no widget runs. ``Message._repr_html_``
calls ``message_html``; ``show(messages)`` wraps a list so it renders as cards. Every
piece of text goes through ``html.escape``; blocks are read through the readers and
``match`` of ``msgmodel.message``.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from typing import Final, assert_never

import msgspec

from msgmodel.message import (
    ContentBlock,
    Message,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    blocks_of,
    message_to_text,
)

__all__ = ["Conversation", "block_html", "conversation_html", "message_html", "show"]

_PREVIEW: Final = 160

_STYLE: Final = (
    "<style>"
    ".mm-conv{font-family:system-ui,sans-serif;font-size:13px;max-width:900px}"
    ".mm-msg{border:1px solid #ccc;border-radius:6px;margin:4px 0;padding:4px 8px}"
    ".mm-user{background:#f3f7ff}.mm-assistant{background:#f7f7f3}"
    ".mm-role{font-weight:600;margin-right:6px}.mm-idx{color:#888;margin-right:4px}"
    ".mm-chip{display:inline-block;border-radius:4px;padding:1px 6px;margin:2px;"
    "font-family:monospace;white-space:pre-wrap;word-break:break-word}"
    ".mm-text{background:#fff;border:1px solid #ddd}"
    ".mm-thinking{background:#eee;color:#666;font-style:italic}"
    ".mm-tool_use{background:#fff3d6;border:1px solid #e0b040}"
    ".mm-tool_result{background:#e4f6e4;border:1px solid #5a5}"
    ".mm-failed{background:#fde2e2;border:1px solid #c44}"
    ".mm-opaque{background:#eef;border:1px dashed #88a}"
    ".mm-bad{outline:2px solid #d00}.mm-err{color:#b00;font-size:12px;display:block}"
    "</style>"
)


def _short(s: str, limit: int = _PREVIEW) -> str:
    return s if len(s) <= limit else s[:limit] + "…"


def _chip(kind: str, label: str, body: str, *, title: str = "") -> str:
    t = f' title="{html.escape(title)}"' if title else ""
    return f'<span class="mm-chip mm-{kind}"{t}><b>{html.escape(label)}</b> {html.escape(_short(body))}</span>'


def block_html(b: ContentBlock) -> str:
    """One block as a labelled chip (text, thinking, tool_use, tool_result, opaque)."""
    match b:
        case TextBlock():
            return _chip("text", "text", b.text)
        case ThinkingBlock():
            sig = "signed" if b.signature else "unsigned"
            return _chip("thinking", f"thinking ({sig})", b.thinking)
        case ToolUseBlock():
            args = msgspec.json.encode(b.input).decode()
            return _chip("tool_use", f"tool_use {b.id}", f"{b.name}({args})")
        case ToolResultBlock():
            kind = "failed" if b.is_error else "tool_result"
            label = f"tool_result{' (failed)' if b.is_error else ''} → {b.tool_use_id}"
            body = (
                b.content
                if isinstance(b.content, str)
                else " ".join(message_to_text(Message(role="user", content=[c])) for c in b.content)
            )
            return _chip(kind, label, body)
        case OpaqueBlock():
            return _chip("opaque", f"opaque: {b.kind}", "", title=msgspec.json.encode(b.raw).decode()[:400])
        case _:
            assert_never(b)


def message_html(
    m: Message, *, index: int | None = None, problems: Mapping[int | None, Sequence[str]] | None = None
) -> str:
    """One message as a card: its role, then its blocks as chips.

    ``problems`` maps a block index (or ``None`` for the whole message) to error texts
    that are shown in red beside that block.
    """
    problems = problems or {}
    chips = []
    for i, b in enumerate(blocks_of(m)):
        chip = block_html(b)
        errs = problems.get(i, ())
        if errs:
            chip = f'<span class="mm-bad">{chip}</span>' + "".join(
                f'<span class="mm-err">{html.escape(e)}</span>' for e in errs
            )
        chips.append(chip)
    if not chips:
        chips.append('<span class="mm-chip mm-text"><i>(empty)</i></span>')
    whole = "".join(f'<span class="mm-err">{html.escape(e)}</span>' for e in problems.get(None, ()))
    idx = f'<span class="mm-idx">{index}</span>' if index is not None else ""
    bad = " mm-bad" if whole else ""
    return (
        f'<div class="mm-msg mm-{m.role}{bad}">{idx}<span class="mm-role">{m.role}</span>{"".join(chips)}{whole}</div>'
    )


def conversation_html(
    messages: Iterable[Message], *, problems: Mapping[int, Mapping[int | None, Sequence[str]]] | None = None
) -> str:
    """A list of messages as numbered cards, with optional per-block problems."""
    problems = problems or {}
    cards = "".join(message_html(m, index=i, problems=problems.get(i)) for i, m in enumerate(messages))
    return f'{_STYLE}<div class="mm-conv">{cards}</div>'


class Conversation:
    """A list of messages that renders as cards in a notebook (``show(messages)``)."""

    __slots__ = ("messages",)

    def __init__(self, messages: Iterable[Message]) -> None:
        self.messages = list(messages)

    def _repr_html_(self) -> str:
        return conversation_html(self.messages)

    def __repr__(self) -> str:
        lines = [f"Conversation of {len(self.messages)} messages"]
        for i, m in enumerate(self.messages):
            text = message_to_text(m).replace("\n", " ")
            lines.append(f"  {i:>3} {m.role:<9} {_short(text, 90)}")
        return "\n".join(lines)


def show(messages: Iterable[Message]) -> Conversation:
    """Wrap messages so a notebook shows them as cards (and as text where HTML is not shown)."""
    return Conversation(messages)
