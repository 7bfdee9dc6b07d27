"""A decoded session shares its repeated strings (issue 11, P4: memory ≤ 0.5× the same data as dicts).

``from_json`` makes a result's ``tool_use_id`` the very string of its call's ``id``, and equal tool
names one string ("Shared strings" in ``msgmodel/core/message.py``). Values never change: only
which equal object holds them. Before the change a 10 000-message session took 0.549× (long
outputs) and 0.531× (dense) the memory of its dicts; the goal is ≤ 0.5×.
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
    OpaqueBlock,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    assistant_msg,
    assistant_text,
    from_api,
    from_json,
    to_api,
    to_json,
    tool_result_block,
    tool_results_of,
    tool_uses_of,
    user_msg,
    user_text,
)
from msgmodel.core.protocol import validate
from msgmodel.course.synth import synth_session


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


@pytest.mark.parametrize("long_outputs", [True, False], ids=["long-outputs", "dense"])
def test_a_loaded_session_costs_at_most_half_its_dicts(long_outputs: bool) -> None:
    data = to_json(synth_session(10_000, seed=3, long_outputs=long_outputs))
    ours = _traced(lambda: from_json(data))
    dicts = _traced(lambda: json.loads(data))
    assert ours <= 0.5 * dicts, f"{ours / dicts:.3f}× the dicts"


def _pairs(session: list[Message]) -> list[tuple[ToolUseBlock, ToolResultBlock]]:
    pairs = []
    for before, after in itertools.pairwise(session):
        calls = {c.id: c for c in tool_uses_of(before)} if before.role == "assistant" else {}
        pairs += [(calls[r.tool_use_id], r) for r in tool_results_of(after) if r.tool_use_id in calls]
    return pairs


@pytest.mark.parametrize("walking", [False, True], ids=["fast", "walking"])
def test_each_result_holds_its_calls_id_and_each_name_is_one_string(walking: bool) -> None:
    session = synth_session(400, seed=5)
    data = to_json(session)
    if walking:  # an unknown kind sends the document through the walking decoder
        data = data[:-1] + b',{"role":"user","content":[{"type":"image","source":{}}]}]'
    decoded = from_json(data)
    assert decoded[: len(session)] == session
    pairs = _pairs(decoded)
    assert len(pairs) > 100
    assert all(r.tool_use_id is c.id for c, r in pairs)
    names: dict[str, str] = {}
    for m in decoded:
        for c in tool_uses_of(m):
            assert names.setdefault(c.name, c.name) is c.name
    assert len(names) < 20 < sum(len(tool_uses_of(m)) for m in decoded)


def test_sharing_changes_no_value_and_no_byte() -> None:
    call = ToolUseBlock(id="toolu_1", name="grep", input={"q": "x"})
    twin = ToolUseBlock(id="toolu_2", name="grep", input={}, extra={"cache_control": {"type": "ephemeral"}})
    result = tool_result_block("toolu_1", [TextBlock("hit")], is_error=True)
    stray = tool_result_block("toolu_9", "no call of this id in the message before")
    session = [
        user_text("q"),
        assistant_msg([call, twin]),
        user_msg([result, tool_result_block("toolu_2", "ok"), stray, OpaqueBlock({"type": "image", "x": 1})]),
        assistant_msg([ToolUseBlock(id="toolu_1", name="grep", input={})]),  # an id used again, later
    ]
    data = to_json(session)
    decoded = from_json(data)
    assert decoded == session and to_json(decoded) == data and to_api(decoded) == to_api(session)
    assert [str(v) for v in validate(decoded)] == [str(v) for v in validate(session)]
    second = decoded[2].content
    assert isinstance(second, list) and isinstance(second[2], ToolResultBlock)
    assert second[2].tool_use_id == "toolu_9"  # no call to share with: its own string, unchanged


@pytest.mark.parametrize("between", [assistant_text("later"), assistant_msg([])], ids=["string", "no blocks"])
def test_a_result_shares_only_with_the_assistant_message_just_before_it(between: Message) -> None:
    # The API wants a result's call in the previous message; an assistant turn in between ends that.
    session = [user_text("q"), assistant_msg([ToolUseBlock(id="t1", name="n", input={})]), between]
    decoded = from_json(to_json([*session, user_msg([tool_result_block("t1", "ok")])]))
    call, result = tool_uses_of(decoded[1])[0], tool_results_of(decoded[3])[0]
    assert result.tool_use_id == call.id and result.tool_use_id is not call.id


@settings(max_examples=150, deadline=None)
@given(st.lists(messages(), max_size=8), valid_conversations(thinking=True))
def test_any_conversation_decodes_to_equal_values_sharing_its_pairs(
    blocks: list[Message], conversation: list[dict[str, Any]]
) -> None:
    for session in (blocks, from_api(conversation)):  # any blocks at all; conversations whose results answer calls
        decoded = from_json(to_json(session))
        assert decoded == session and from_api(to_api(session)) == session
        pairs = _pairs(decoded)
        assert all(r.tool_use_id is c.id for c, r in pairs)
        event("has tool pairs" if pairs else "no tool pairs")  # `--hypothesis-show-statistics` counts them


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
