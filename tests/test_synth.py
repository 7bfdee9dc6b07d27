"""The synthetic sessions that benchmarks, tests and notebooks share."""

from __future__ import annotations

import pytest

from msgmodel import blocks_of, to_json, tool_uses_of
from msgmodel.core.protocol import validate
from msgmodel.course.synth import agent_session, synth_session


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 17, 200, 1_000])
@pytest.mark.parametrize("seed", [0, 1, 7])
def test_sessions_have_the_size_asked_and_are_valid_histories(n: int, seed: int) -> None:
    session = synth_session(n, seed=seed)
    assert len(session) == n
    assert validate(session, as_history=True) == []
    assert not (session[-1].role == "assistant" and tool_uses_of(session[-1]))


def test_the_same_seed_gives_the_same_bytes() -> None:
    assert to_json(synth_session(300, seed=3)) == to_json(synth_session(300, seed=3))
    assert to_json(synth_session(300, seed=3)) != to_json(synth_session(300, seed=4))


def test_sessions_carry_every_shape_real_traffic_has() -> None:
    session = synth_session(2_000, seed=0)
    kinds = {b.type for m in session if not isinstance(m.content, str) for b in m.content}
    assert kinds == {"text", "thinking", "tool_use", "tool_result"}
    assert any(len(tool_uses_of(m)) > 1 for m in session), "parallel tool calls"
    results = [b for m in session if not isinstance(m.content, str) for b in m.content if b.type == "tool_result"]
    assert any(b.is_error for b in results)
    assert any(not isinstance(b.content, str) for b in results)
    assert any(isinstance(b.content, str) and len(b.content) > 1_000 for b in results)


def test_a_session_needs_a_message() -> None:
    with pytest.raises(ValueError):
        synth_session(0)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 200])
def test_agent_sessions_are_rounds_of_one_call_and_its_result(n: int) -> None:
    session = agent_session(n, seed=2)
    assert len(session) == n
    assert validate(session, as_history=True) == []
    calls = [c for m in session for c in tool_uses_of(m)]
    assert len(calls) == (n - 1) // 2 and len({c.id for c in calls}) == len(calls)
    for m in session[1 : 1 + len(calls) * 2 : 2]:
        assert [b.type for b in blocks_of(m)] == ["thinking", "text", "tool_use"]
    assert to_json(agent_session(n, seed=2)) == to_json(session)
