"""Hypothesis strategies for whole conversations: valid agent histories, and broken ones.

``valid_conversations()``
    Histories the API accepts (``msgmodel.core.protocol.validate`` returns ``[]``), built with
    ``msgmodel.core.message``'s constructors: one or more *episodes*, each a user prompt (a
    string or a list of text blocks), then a tool loop of assistant turns (optional signed
    thinking first, optional text, one to three parallel ``tool_use`` blocks) each answered
    by one user message of results (string or block-list content, some ``is_error``,
    sometimes followed by text in the same message), then maybe a final assistant answer.
    An episode that ends without an answer is followed by the next prompt (two user
    messages in a row, which the API merges). Sometimes an assistant turn is stored the
    way Claude Code stores it, one message per block (``a:[thinking] a:[text] a:[call A]
    a:[call B]``), which the API merges back into one turn.

    With ``system=True`` a mid-conversation system message (``system_text``) sometimes follows a user
    message that an assistant message follows, or ends the history (the newest models take both).

    With ``server_tools=True`` some assistant turns also hold server-side tool blocks (a
    ``server_tool_use`` for web search, web fetch or code execution, or an ``mcp_tool_use``),
    placed before the client calls. Each call's result (``web_search_tool_result``,
    ``mcp_tool_result``, ...) comes right after it in the same message, or is held back
    and given in a later assistant turn, with user turns in between (the API only wants
    the call *earlier in the conversation*), or never comes (a server call needs no result).

    The history is *request-ready*: it ends with a user message (a prompt, or results
    the model has yet to read), because ``validate`` describes today's models, which
    reject a final assistant message (prefill); that is also the moment an agent
    compacts, right before it calls the model. Every text is non-empty and has no
    surrounding whitespace; tool-use ids are unique across the conversation.

``broken_conversations()``
    A valid conversation with one to four *mutations* of the kinds real bugs make
    (``MUTATIONS``): a cut at a random point (keeping the tail, as step 29's slicing did,
    or the head), a dropped message, a dropped block, parallel results split over two user
    messages, a duplicated message (next to itself or elsewhere), a duplicated block (a
    result recorded twice, a call replayed), two neighbours swapped, a message moved, the
    blocks of a user message shuffled (text before results). Never empty. The mutations
    applied are recorded with ``hypothesis.note``.
"""

from __future__ import annotations

import base64
import itertools
from collections.abc import Callable
from typing import Any, Final

from hypothesis import note
from hypothesis import strategies as st

from msgmodel.core.message import (
    ContentBlock,
    Message,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    assistant_msg,
    blocks_of,
    system_text,
    tool_result_block,
    user_text,
)

__all__ = [
    "MUTATIONS",
    "broken_conversations",
    "mutate",
    "valid_conversations",
]

_Draw = Callable[[st.SearchStrategy[Any]], Any]

# Hypothesis draws the *structure* (episodes, rounds, parallel calls, thinking, content
# shapes, errors, storage split); the payloads come from fixed pools in turn, so a history
# costs a few dozen draws and thousands of them fit in the test budget. The pools exercise
# escaping and non-ASCII; the codec's own strategies (strategies_msg.py) fuzz text itself.
_TEXTS: Final = (
    "Why does CI fail?",
    'He said "retry" \\ then stopped.',
    "naïve café — 中文 😀",
    "line one\nline two",
    "<tag attr='1'>&amp;</tag>",
    '{"json": [1, 2.5, null]}',
    "tab\tinside",
    "0",
)
_TOOLS: Final = ("read_file", "grep", "bash", "edit_file", "list_dir")
_SERVER_TOOLS: Final[tuple[tuple[str, str, str, Any], ...]] = (
    ("server_tool_use", "web_search", "web_search_tool_result", []),
    (
        "server_tool_use",
        "web_fetch",
        "web_fetch_tool_result",
        {"type": "web_fetch_tool_error", "error_code": "url_not_accessible"},
    ),
    (
        "server_tool_use",
        "code_execution",
        "code_execution_tool_result",
        {"type": "code_execution_result", "stdout": "4", "stderr": "", "return_code": 0, "content": []},
    ),
    ("mcp_tool_use", "search_docs", "mcp_tool_result", "no match"),
)


class _Payloads:
    """Ids, texts, signatures and tool inputs for one conversation, deterministic and never repeating ids."""

    def __init__(self) -> None:
        self._n = itertools.count()

    def text(self) -> str:
        n = next(self._n)
        return f"{_TEXTS[n % len(_TEXTS)]} #{n}"

    def signature(self) -> str:
        return base64.b64encode(f"sig:{next(self._n)}".encode() * 3).decode()

    def call(self) -> ToolUseBlock:
        n = next(self._n)
        tool_input: dict[str, Any] = {"path": f"src/m{n}.py"} if n % 3 else {"command": self.text(), "n": n}
        return ToolUseBlock(id=f"toolu_{n:04d}", name=_TOOLS[n % len(_TOOLS)], input=tool_input)

    def server_pair(self) -> tuple[OpaqueBlock, OpaqueBlock]:
        """A server-side tool call and its result, of one of the kinds the API lists."""
        n = next(self._n)
        kind, name, result_kind, content = _SERVER_TOOLS[n % len(_SERVER_TOOLS)]
        use: dict[str, Any] = {"type": kind, "id": f"srvtoolu_{n:04d}", "name": name, "input": {"query": self.text()}}
        if kind == "mcp_tool_use":
            use["server_name"] = "docs"
        result = {"type": result_kind, "tool_use_id": use["id"], "content": content}
        return OpaqueBlock(use), OpaqueBlock(result)

    def content(self, shape: int) -> str | list[ContentBlock]:
        """Shape 0: a string; 1: one text block; 2: two text blocks."""
        if shape == 0:
            return self.text()
        return [TextBlock(self.text()) for _ in range(shape)]


def _prompt(draw: _Draw, p: _Payloads) -> Message:
    content = p.content(draw(st.integers(0, 2)))
    return user_text(content) if isinstance(content, str) else Message(role="user", content=content)


def _assistant_turn(
    draw: _Draw, p: _Payloads, calls: list[ToolUseBlock], server: list[ContentBlock] | None = None
) -> list[Message]:
    """One assistant turn: maybe signed thinking, maybe text (always text if no call), server blocks, the calls.

    Usually one message; sometimes one message per block (Claude Code's storage).
    """
    flags = draw(st.integers(0, 3))
    blocks: list[ContentBlock] = []
    if flags & 1:
        blocks.append(ThinkingBlock(thinking=p.text(), signature=p.signature()))
    if flags & 2 or not calls:
        blocks.append(TextBlock(p.text()))
    blocks.extend(server or [])
    blocks.extend(calls)
    if len(blocks) > 1 and draw(st.integers(0, 4)) == 0:
        return [assistant_msg([b]) for b in blocks]
    return [assistant_msg(blocks)]


def _results(draw: _Draw, p: _Payloads, calls: list[ToolUseBlock]) -> Message:
    results: list[ContentBlock] = []
    for c in calls:
        kind = draw(st.integers(0, 7))  # content shape from the low bits; 6 and 7 are failures
        results.append(tool_result_block(c.id, p.content(kind % 3), is_error=kind >= 6))
    if draw(st.integers(0, 4)) == 0:  # text after the results in the same user message
        return Message(role="user", content=[*results, TextBlock(p.text())])
    return Message(role="user", content=results)


def _server_blocks(draw: _Draw, p: _Payloads, held: list[ContentBlock]) -> list[ContentBlock]:
    """Server blocks for one assistant turn: maybe the results held back so far, then maybe a new call.

    A new call is answered in place, held back (its result goes into ``held``), or never answered.
    """
    blocks: list[ContentBlock] = []
    if held and draw(st.booleans()):
        blocks.extend(held)
        held.clear()
    how = draw(st.integers(0, 4))  # 0, 1: no new call; 2: answered in place; 3: held back; 4: unanswered
    if how >= 2:
        use, result = p.server_pair()
        blocks.append(use)
        if how == 2:
            blocks.append(result)
        elif how == 3:
            held.append(result)
    return blocks


@st.composite
def valid_conversations(
    draw: _Draw, *, max_episodes: int = 5, max_rounds: int = 4, server_tools: bool = False, system: bool = False
) -> list[Message]:
    """A history the API accepts; see the module docstring for its shape."""
    p = _Payloads()
    out: list[Message] = []
    held: list[ContentBlock] = []  # server results not given yet

    def server() -> list[ContentBlock] | None:
        return _server_blocks(draw, p, held) if server_tools else None

    for _ in range(draw(st.integers(1, max_episodes))):
        out.append(_prompt(draw, p))
        for _ in range(draw(st.integers(0, max_rounds))):
            calls = [p.call() for _ in range(draw(st.integers(1, 3)))]
            out.extend(_assistant_turn(draw, p, calls, server()))
            out.append(_results(draw, p, calls))
        if draw(st.integers(0, 3)) > 0:
            out.extend(_assistant_turn(draw, p, [], server()))
    if out[-1].role == "assistant":
        out.append(_prompt(draw, p))
    return _with_system_messages(draw, p, out) if system else out


def _with_system_messages(draw: _Draw, p: _Payloads, h: list[Message]) -> list[Message]:
    """``h`` with a system message after some user messages that an assistant message (or nothing) follows."""
    out: list[Message] = []
    for i, m in enumerate(h):
        out.append(m)
        after = h[i + 1].role if i + 1 < len(h) else None
        if m.role == "user" and after in ("assistant", None) and draw(st.integers(0, 3)) == 0:
            out.append(system_text(p.text()))
    return out


# ---------------------------------------------------------------------------------------
# Mutations
# ---------------------------------------------------------------------------------------


def _cut_head(draw: _Draw, h: list[Message]) -> list[Message]:
    return h[draw(st.integers(1, len(h) - 1)) :]


def _cut_tail(draw: _Draw, h: list[Message]) -> list[Message]:
    return h[: draw(st.integers(1, len(h) - 1))]


def _drop_message(draw: _Draw, h: list[Message]) -> list[Message]:
    i = draw(st.integers(0, len(h) - 1))
    return h[:i] + h[i + 1 :]


def _drop_block(draw: _Draw, h: list[Message]) -> list[Message]:
    candidates = [i for i, m in enumerate(h) if not isinstance(m.content, str) and m.content]
    if not candidates:
        return h
    i = draw(st.sampled_from(candidates))
    content = list(blocks_of(h[i]))
    del content[draw(st.integers(0, len(content) - 1))]
    return [*h[:i], Message(role=h[i].role, content=content), *h[i + 1 :]]


def _split_results(draw: _Draw, h: list[Message]) -> list[Message]:
    def results(m: Message) -> int:
        return 0 if isinstance(m.content, str) else sum(b.type == "tool_result" for b in m.content)

    candidates = [i for i, m in enumerate(h) if m.role == "user" and results(m) >= 2]
    if not candidates:
        return h
    i = draw(st.sampled_from(candidates))
    content = list(blocks_of(h[i]))
    p = draw(st.integers(1, results(h[i]) - 1))
    return [*h[:i], Message(role="user", content=content[:p]), Message(role="user", content=content[p:]), *h[i + 1 :]]


def _duplicate(draw: _Draw, h: list[Message]) -> list[Message]:
    i = draw(st.integers(0, len(h) - 1))
    j = i + 1 if draw(st.booleans()) else draw(st.integers(0, len(h)))
    return [*h[:j], h[i], *h[j:]]


def _duplicate_block(draw: _Draw, h: list[Message]) -> list[Message]:
    candidates = [i for i, m in enumerate(h) if not isinstance(m.content, str) and m.content]
    if not candidates:
        return h
    i = draw(st.sampled_from(candidates))
    content = list(blocks_of(h[i]))
    j = draw(st.integers(0, len(content) - 1))
    content.insert(j + 1, content[j])
    return [*h[:i], Message(role=h[i].role, content=content), *h[i + 1 :]]


def _swap(draw: _Draw, h: list[Message]) -> list[Message]:
    i = draw(st.integers(0, len(h) - 2))
    return [*h[:i], h[i + 1], h[i], *h[i + 2 :]]


def _move(draw: _Draw, h: list[Message]) -> list[Message]:
    i = draw(st.integers(0, len(h) - 1))
    rest = h[:i] + h[i + 1 :]
    j = draw(st.integers(0, len(rest)))
    return [*rest[:j], h[i], *rest[j:]]


def _shuffle_user_blocks(draw: _Draw, h: list[Message]) -> list[Message]:
    candidates = [i for i, m in enumerate(h) if m.role == "user" and not isinstance(m.content, str)]
    if not candidates:
        return h
    i = draw(st.sampled_from(candidates))
    content = draw(st.permutations(blocks_of(h[i])))
    return [*h[:i], Message(role="user", content=content), *h[i + 1 :]]


MUTATIONS: Final[dict[str, Callable[[_Draw, list[Message]], list[Message]]]] = {
    "cut_head": _cut_head,
    "cut_tail": _cut_tail,
    "drop_message": _drop_message,
    "drop_block": _drop_block,
    "split_results": _split_results,
    "duplicate": _duplicate,
    "duplicate_block": _duplicate_block,
    "swap": _swap,
    "move": _move,
    "shuffle_user_blocks": _shuffle_user_blocks,
}
"""The ways ``broken_conversations`` damages a valid history, by name."""

_NEED_TWO: Final = frozenset({"cut_head", "cut_tail", "drop_message", "swap"})


def mutate(draw: _Draw, h: list[Message], kind: str) -> list[Message]:
    """``h`` damaged by the mutation named ``kind`` (unchanged if it does not apply)."""
    if kind in _NEED_TWO and len(h) < 2:
        return h
    return MUTATIONS[kind](draw, h)


@st.composite
def broken_conversations(draw: _Draw, *, max_mutations: int = 4, server_tools: bool = False) -> list[Message]:
    """A valid conversation damaged by one to ``max_mutations`` mutations (never empty)."""
    h: list[Message] = draw(valid_conversations(server_tools=server_tools))
    applied = []
    for _ in range(draw(st.integers(1, max_mutations))):
        kind = draw(st.sampled_from(sorted(MUTATIONS)))
        h = mutate(draw, h, kind)
        applied.append(kind)
    note(f"mutations: {applied}")
    return h
