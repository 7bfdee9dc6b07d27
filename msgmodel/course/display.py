"""Static HTML for conversations: readable in JupyterLab, in nbconvert HTML and on GitHub.

This module owns how a *conversation* looks when no widget runs: ``show(messages)`` wraps
a list so it renders as numbered cards with the cards' style sheet. One message's card
(``message_html``, ``block_html``, what ``Message._repr_html_`` returns) is the model's
own (``msgmodel.core.message``), re-exported here; every piece of text goes through
``html.escape``.

Tool pairs: ``tool_pairs(messages)`` numbers every tool id in order of first appearance;
given those numbers (``conversation_html(..., link_tools=True)``), a ``tool_use`` and the
``tool_result`` that answers it carry the same coloured ``#n`` badge, so a pair can be
followed by eye and an orphan result stands out as a badge nobody else has. The widgets
of ``msgmodel.course.widgets`` render through these functions too.

``outline(messages, marks)`` is the plain-text view the chapters draw a history with: one line
per message (its tool calls, the calls it answers, or the start of its text), and a ✂ line
before each marked index, to show where a cut fell. ``event_line(ev)`` is one engine event
(``msgmodel.core.engine``) as one line.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Container, Iterable, Mapping, Sequence
from typing import Final, assert_never

from msgmodel.core.engine import (
    AssistantMessage,
    Compacted,
    Event,
    ToolCalled,
    ToolResulted,
    TurnEnded,
    TurnStarted,
)
from msgmodel.core.message import (
    PAIR_COLORS,
    Message,
    block_html,
    block_to_text,
    blocks_of,
    message_html,
    message_to_text,
    text_of,
    tool_results_of,
    tool_uses_of,
)
from msgmodel.course.i18n import _, ngettext

__all__ = [
    "Conversation",
    "Outline",
    "block_html",
    "conversation_html",
    "event_line",
    "message_html",
    "outline",
    "show",
    "tool_pairs",
]


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
    ".mm-pair{display:inline-block;border-radius:8px;padding:0 5px;margin-right:4px;color:#fff;"
    "font-family:system-ui,sans-serif;font-weight:700;font-style:normal}"
    ".mm-gap{color:#888;font-style:italic;margin:2px 8px}"
    + "".join(
        f".mm-p{i}{{background:{c}}}.mm-chip.mm-pk{i}{{border-left:5px solid {c}}}" for i, c in enumerate(PAIR_COLORS)
    )
    + "</style>"
)

# Added only where tool badges or hidden messages are used (the widgets), so that the plain
# cards of ``show`` stay byte-identical to the committed notebook outputs.
_LINK_STYLE: Final = "<style>span.mm-bad{display:inline-block;max-width:100%;border-radius:4px}</style>"


def tool_pairs(messages: Iterable[Message]) -> dict[str, int]:
    """Number every tool id (``tool_use`` ids and ``tool_result`` references) 1, 2, ... by first appearance."""
    pairs: dict[str, int] = {}
    for m in messages:
        for use in tool_uses_of(m):
            pairs.setdefault(use.id, len(pairs) + 1)
        for result in tool_results_of(m):
            pairs.setdefault(result.tool_use_id, len(pairs) + 1)
    return pairs


def conversation_html(
    messages: Iterable[Message],
    *,
    problems: Mapping[int, Mapping[int | None, Sequence[str]]] | None = None,
    link_tools: bool = False,
    only: Container[int] | None = None,
) -> str:
    """A list of messages as numbered cards, with optional per-block problems.

    ``link_tools`` gives each tool pair a numbered, coloured badge (``tool_pairs``).
    ``only`` shows just the messages with these indices (numbered as in the whole list);
    each run of hidden messages becomes one "… n messages not shown …" line.
    """
    messages = list(messages)
    problems = problems or {}
    pairs = tool_pairs(messages) if link_tools else None
    parts: list[str] = []
    hidden = 0
    for i, m in enumerate(messages):
        if only is not None and i not in only:
            hidden += 1
            continue
        if hidden:
            parts.append(_gap(hidden))
            hidden = 0
        parts.append(message_html(m, index=i, problems=problems.get(i), pairs=pairs))
    if hidden:
        parts.append(_gap(hidden))
    style = _STYLE + _LINK_STYLE if link_tools or only is not None else _STYLE
    return f'{style}<div class="mm-conv">{"".join(parts)}</div>'


def _gap(n: int) -> str:
    hidden = ngettext("… {n} message not shown …", "… {n} messages not shown …", n).format(n=n)
    return f'<div class="mm-gap">{hidden}</div>'


class Conversation:
    """A list of messages that renders as cards in a notebook (``show(messages)``)."""

    __slots__ = ("messages",)

    def __init__(self, messages: Iterable[Message]) -> None:
        self.messages = list(messages)

    def _repr_html_(self) -> str:
        return conversation_html(self.messages)

    def __repr__(self) -> str:
        lines = [_("Conversation of {n} messages").format(n=len(self.messages))]
        for i, m in enumerate(self.messages):
            text = message_to_text(m).replace("\n", " ")
            lines.append(f"  {i:>3} {m.role:<9} {text if len(text) <= 90 else text[:90] + '…'}")
        return "\n".join(lines)


def show(messages: Iterable[Message]) -> Conversation:
    """Wrap messages so a notebook shows them as cards (and as text where HTML is not shown)."""
    return Conversation(messages)


class Outline(str):
    """A history drawn one line per message (``outline``): a ``str`` that displays as itself."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)


def outline(messages: Iterable[Message], marks: Mapping[int, str] | None = None, *, since: int = 0) -> Outline:
    """One line per message: its index, role, and its tool calls, the calls it answers, or its text.

    ``marks`` maps an index to a label: a ``✂ ─── label`` line is drawn before that message.
    ``since``: draw only the messages from that index on (one line says how many came before).
    """
    lines = ["  " + ngettext("… {n} earlier message", "… {n} earlier messages", since).format(n=since)] if since else []
    for i, m in enumerate(messages):
        if i < since:
            continue
        if marks and i in marks:
            lines.append(f"✂ ─── {marks[i]}")
        if calls := tool_uses_of(m):
            what = "tool_use      " + ", ".join(f"{c.name} {c.id}" for c in calls)
        elif answers := tool_results_of(m):
            what = "tool_result → " + ", ".join(r.tool_use_id for r in answers)
        else:
            what = "text          " + repr(text_of(m).replace("\n", " ")[:48])
        lines.append(f"{i:>3}  {m.role:<9}  {what}")
    return Outline("\n".join(lines))


def event_line(ev: Event) -> str:
    """One engine event as one line: its class, then what it carries."""
    match ev:
        case TurnStarted(message=m):
            return f"TurnStarted       user: {text_of(m)!r}"
        case AssistantMessage(message=m, stop_reason=reason):
            return f"AssistantMessage  {[b.type for b in blocks_of(m)]}, stop_reason={reason!r}"
        case ToolCalled(call=call):
            return f"ToolCalled        {call.name}({json.dumps(call.input)})"
        case ToolResulted(result=r):
            return f"ToolResulted      {textwrap.shorten(block_to_text(r), 70, placeholder=' …')}"
        case Compacted(before=before, after=after):
            return f"Compacted         {before} → {after} messages"
        case TurnEnded(reason=reason, model_calls=calls):
            return f"TurnEnded         {reason} after {calls} model calls"
        case _:
            assert_never(ev)
