"""What a decoded session shares, and what it costs in memory (issue 11, P4; issue 20, item 9).

The goal: a session decoded by ``from_json`` takes at most 0.55× the memory of the same JSON as
dicts (``json.loads``), on each shape ``bench/`` measures. Until issue 20, ``from_json`` ran a pass
after the decode that made each result's ``tool_use_id`` its call's very ``id`` string and equal tool
names one string (0.50×/0.48× instead of 0.55×/0.53× on 10⁵ messages, for a goal of 0.5×); it cost
1.0-2.2× the bare decode and was dropped. What is still shared is shared by msgspec during the
decode, at no cost: the keys of ``input`` dicts (its cache of short keys) and, on the fast path,
the two role strings. Ids and tool names are equal strings, each its own object. A session built
live shares its pairs anyway: ``tool_result_block(call.id, ...)`` passes the call's own string.
"""

from __future__ import annotations

import gc
import itertools
import json
import threading
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from strategies import valid_conversations
from strategies_msg import messages

from msgmodel.core.message import (
    Message,
    ToolResultBlock,
    ToolUseBlock,
    from_api,
    from_json,
    to_api,
    to_json,
    tool_results_of,
    tool_uses_of,
)
from msgmodel.course.synth import agent_session, synth_session

SHAPES: dict[str, Callable[[int], list[Message]]] = {
    "long-outputs": lambda n: synth_session(n, seed=3),
    "dense": lambda n: synth_session(n, seed=3, long_outputs=False),
    "agent": lambda n: agent_session(n, seed=3),
}


def _traced(fn: Callable[[], object]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        out = fn()
        size, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del out
    return size


@pytest.mark.parametrize("shape", SHAPES)
def test_a_loaded_session_costs_at_most_055_of_its_dicts(shape: str) -> None:
    data = to_json(SHAPES[shape](10_000))
    ours = _traced(lambda: from_json(data))
    dicts = _traced(lambda: json.loads(data))
    assert ours <= 0.55 * dicts, f"{ours / dicts:.3f}× the dicts"


def _pairs(session: list[Message]) -> list[tuple[ToolUseBlock, ToolResultBlock]]:
    pairs = []
    for before, after in itertools.pairwise(session):
        calls = {c.id: c for c in tool_uses_of(before)} if before.role == "assistant" else {}
        pairs += [(calls[r.tool_use_id], r) for r in tool_results_of(after) if r.tool_use_id in calls]
    return pairs


@pytest.mark.parametrize("walking", [False, True], ids=["fast", "walking"])
def test_what_a_decoded_session_shares(walking: bool) -> None:
    session = synth_session(400, seed=5)
    data = to_json(session)
    if walking:  # an unknown kind sends the document through the walking decoder
        data = data[:-1] + b',{"role":"user","content":[{"type":"image","source":{}}]}]'
    decoded = from_json(data)
    assert decoded[: len(session)] == session
    keys = [k for m in decoded for c in tool_uses_of(m) for k in c.input]
    assert len({id(k) for k in keys}) == len(set(keys)) < 10 < len(keys)  # input keys: one string each
    if not walking:
        assert len({id(m.role) for m in decoded}) == 2
    pairs = _pairs(decoded)
    assert len(pairs) > 100
    assert all(r.tool_use_id == c.id for c, r in pairs)  # equal; no pass makes them one object


@settings(max_examples=150, deadline=None)
@given(st.lists(messages(), max_size=8), valid_conversations(thinking=True))
def test_any_conversation_decodes_to_equal_values(blocks: list[Message], conversation: list[dict[str, Any]]) -> None:
    for session in (blocks, from_api(conversation)):  # any blocks at all; conversations whose results answer calls
        data = to_json(session)
        decoded = from_json(data)
        assert decoded == session and to_json(decoded) == data and to_api(decoded) == to_api(session)
        event("has tool pairs" if _pairs(decoded) else "no tool pairs")  # `--hypothesis-show-statistics` counts them


def test_threads_decoding_at_once_get_their_own_values() -> None:
    sessions = [synth_session(300, seed=s) for s in range(4)]
    blobs = [to_json(s) for s in sessions]
    got: dict[int, list[list[Message]]] = {i: [] for i in range(4)}

    def decode(i: int) -> None:
        for _ in range(5):
            got[i].append(from_json(blobs[i]))

    threads = [threading.Thread(target=decode, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, session in enumerate(sessions):
        assert len(got[i]) == 5 and all(d == session for d in got[i])
