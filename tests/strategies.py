"""Hypothesis strategies for Messages-API conversations (raw wire dicts), shared by the test suites.

``valid_conversations()`` draws conversations the live API accepts under ``validate``'s defaults
(``model=None``, ``tools_defined=True``, ``thinking=None``): they end with a user message, every
``tool_use`` is answered at the start of the next user message, ids are unique and well formed.
With ``thinking=True`` every assistant message opens with a thinking block, so they are also valid
with ``thinking="enabled"``.

``json_values()`` draws any JSON value; ``mutated_conversations()`` draws almost-valid ones with
random fields replaced, deleted or retyped.
"""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import strategies as st

__all__ = ["json_values", "mutated_conversations", "valid_conversations"]

Json = Any

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)


def json_values(max_leaves: int = 30) -> st.SearchStrategy[Json]:
    """Any JSON value (None, bools, numbers, strings, lists, objects), nested."""
    return st.recursive(
        _SCALARS,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=max_leaves,
    )


# Text the API accepts anywhere: non-empty, not whitespace-only, no trailing whitespace problem
# (conversations never end with an assistant message).
_words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz .,!?é漢", min_size=1, max_size=30).filter(
    lambda s: not s.isspace()
)
_id_prefix = st.sampled_from(["toolu_", "call_", "auto_load_", "x-", ""])


def _text_block(draw: st.DrawFn) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": draw(_words)}
    if draw(st.integers(0, 9)) == 0:
        block["cache_control"] = {"type": "ephemeral"}
    return block


def _user_content(draw: st.DrawFn) -> str | list[dict[str, Any]]:
    if draw(st.booleans()):
        return draw(_words)
    blocks = [_text_block(draw) for _ in range(draw(st.integers(1, 3)))]
    if draw(st.integers(0, 5)) == 0:
        blocks.insert(0, {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}})
    return blocks


def _thinking_block(draw: st.DrawFn) -> dict[str, Any]:
    if draw(st.integers(0, 4)) == 0:
        return {"type": "redacted_thinking", "data": "EmwKAhgBEgy" + draw(st.sampled_from(["a", "Zx+/", "09"]))}
    signature = "Eq" + draw(st.sampled_from(["QB", "x/+=", "9"]))
    return {"type": "thinking", "thinking": draw(_words), "signature": signature}


def _result_block(draw: st.DrawFn, tool_use_id: str) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id}
    kind = draw(st.integers(0, 4))
    if kind == 1:
        block["content"] = draw(_words)
    elif kind == 2:
        block["content"] = [_text_block(draw) for _ in range(draw(st.integers(1, 2)))]
    elif kind == 3:
        block["content"] = ""  # Q4: accepted
    elif kind == 4:
        block["content"] = [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}}]
    if draw(st.booleans()):
        block["is_error"] = draw(st.booleans())
    return block


@st.composite
def _conversation(draw: st.DrawFn, thinking: bool) -> list[dict[str, Any]]:
    counter = itertools.count()  # ids unique within the conversation, deterministic per example
    messages: list[dict[str, Any]] = [{"role": "user", "content": _user_content(draw)}]
    for _ in range(draw(st.integers(0, 5))):
        # ---- assistant turn ----
        blocks: list[dict[str, Any]] = []
        if thinking or draw(st.booleans()):
            blocks.append(_thinking_block(draw))
        if draw(st.booleans()):
            blocks.append(_text_block(draw))
        ids = [f"{draw(_id_prefix)}{next(counter)}" for _ in range(draw(st.integers(0, 4)))]
        uses = [{"type": "tool_use", "id": i, "name": "tool", "input": {"n": k}} for k, i in enumerate(ids)]
        if not blocks and not uses:
            blocks.append(_text_block(draw))
        if uses and blocks and not thinking and draw(st.integers(0, 3)) == 0:
            # a:[thinking?, text] a:[tool_use...] is merged into one turn by the API (recorded 200)
            messages.append({"role": "assistant", "content": blocks})
            messages.append({"role": "assistant", "content": uses})
        else:
            messages.append({"role": "assistant", "content": blocks + uses})
        # ---- user turn ----
        if uses:
            order = draw(st.permutations(ids))  # Q3: any order
            content: list[dict[str, Any]] = [_result_block(draw, i) for i in order]
            if draw(st.integers(0, 3)) == 0:
                content.append(_text_block(draw))  # text after the results is accepted
            messages.append({"role": "user", "content": content})
            if draw(st.integers(0, 4)) == 0:
                messages.append({"role": "user", "content": _user_content(draw)})  # merged, accepted
        else:
            messages.append({"role": "user", "content": _user_content(draw)})
    return messages


def valid_conversations(thinking: bool = False) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Conversations the live API accepts (see the module docstring)."""
    return _conversation(thinking)


@st.composite
def _mutated(draw: st.DrawFn) -> Json:
    conversation: Json = draw(valid_conversations())
    for _ in range(draw(st.integers(1, 4))):
        target = draw(st.integers(0, len(conversation) - 1))
        message = conversation[target]
        action = draw(st.integers(0, 5))
        replacement = draw(json_values(max_leaves=6))
        content = message.get("content") if isinstance(message, dict) else None
        if action == 0:
            conversation[target] = replacement
        elif action == 1 and isinstance(message, dict):
            message[draw(st.sampled_from(["role", "content", "extra"]))] = replacement
        elif action == 2 and isinstance(message, dict) and message:
            message.pop(draw(st.sampled_from(sorted(message))))
        elif action == 3 and isinstance(content, list) and content:
            k = draw(st.integers(0, len(content) - 1))
            block = content[k]
            if isinstance(block, dict) and block and draw(st.booleans()):
                block[draw(st.sampled_from([*sorted(block), "type", "id", "tool_use_id", "content"]))] = replacement
            else:
                content[k] = replacement
        elif action == 4 and isinstance(content, list) and content:
            del content[draw(st.integers(0, len(content) - 1))]
        elif action == 5:
            del conversation[target]
            if not conversation:
                return conversation
    return conversation


def mutated_conversations() -> st.SearchStrategy[Json]:
    """Almost-valid conversations: fields and blocks replaced by random JSON, deleted or retyped."""
    return _mutated()
