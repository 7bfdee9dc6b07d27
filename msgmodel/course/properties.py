"""Hypothesis strategies for the chapters' live properties: agent-shaped histories, built with the constructors.

This module owns the generator chapter 05 states its compaction property over, so the chapter shows
the property and not the generator. ``agent_histories()`` draws episodes: a prompt, zero to three
tool rounds (one or two parallel calls, sometimes opened by a signed thinking block, some results
failed), maybe a final text answer; the history ends with a user message, as a request does. Every
history it draws is valid (``validate(h) == []``). Each ``draw`` is a choice Hypothesis makes, so a
failure replays and shrinks to smaller choices. The suite's own, richer generator (which also stores
turns one block per message, as Claude Code does) is ``tests/strategies_conv.py``.

``check_on_histories(prop, impl)`` runs ``prop(impl, history)`` on ``examples`` histories drawn
derandomized (the same draws every run, no example database, no deadline) and says ``passes on N
histories`` (N: how many it drew) or ``FAILS:`` with the assertion's message for the smallest failing
history Hypothesis shrank to.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from hypothesis import given, settings
from hypothesis import strategies as st

from msgmodel.core.message import (
    Message,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    assistant_msg,
    tool_result_block,
    tool_result_msg,
    user_text,
)

__all__ = ["agent_histories", "check_on_histories"]

T = TypeVar("T")


@st.composite
def agent_histories(draw: st.DrawFn) -> list[Message]:
    """A valid agent history: one to four episodes of a prompt, tool rounds and maybe an answer."""
    h: list[Message] = []
    n = 0
    for episode in range(draw(st.integers(1, 4))):
        h.append(user_text(f"Task {episode}"))
        for _ in range(draw(st.integers(0, 3))):
            ids = [f"toolu_{n + i:02d}" for i in range(draw(st.integers(1, 2)))]
            n += len(ids)
            thinking = [ThinkingBlock("Plan the call.", signature="c2ln")] if draw(st.booleans()) else []
            h.append(assistant_msg([*thinking, *(ToolUseBlock(i, "grep", {"pattern": "x"}) for i in ids)]))
            h.append(tool_result_msg([tool_result_block(i, "hit", is_error=draw(st.booleans())) for i in ids]))
        if draw(st.booleans()):
            h.append(assistant_msg([TextBlock(f"Done with task {episode}.")]))
    return h if h[-1].role == "user" else [*h, user_text("Next task.")]


def check_on_histories(prop: Callable[[T, list[Message]], object], impl: T, *, examples: int = 100) -> str:
    """``prop(impl, h)`` on ``examples`` derandomized ``agent_histories()``: ``passes on N histories`` or ``FAILS:``."""
    drawn = 0

    @settings(max_examples=examples, derandomize=True, database=None, deadline=None)
    @given(agent_histories())
    def run(h: list[Message]) -> None:
        nonlocal drawn
        drawn += 1
        prop(impl, h)

    try:
        run()
    except AssertionError as err:
        return f"FAILS: {err}"
    return f"passes on {drawn} histories"
