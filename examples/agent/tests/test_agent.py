"""The tool loop, tested offline with msgmodel's pytest plugin: the `msgmodel_api` fixture needs no conftest."""

from __future__ import annotations

from pathlib import Path

import anthropic
import pytest
from myagent import AgentError, run, step

import msgmodel as mm
from msgmodel.api.testing import ErrorTurn, LocalKit, StopTurn, tool_call


def test_the_agent_calls_a_tool_and_answers(msgmodel_api: LocalKit, tmp_path: Path) -> None:
    msgmodel_api.script(tool_call("add", a=2, b=3), "2 + 3 = 5.")
    history = run(msgmodel_api.client, "What is 2 + 3?", root=tmp_path)
    assert mm.text_of(history[-1]) == "2 + 3 = 5."
    result = mm.tool_results_of(history[2])[0]
    assert (mm.result_text(result), result.is_error) == ("5", False)
    first, second = msgmodel_api.requests
    assert first.body["tools"][0]["name"] == "read_file"  # what the agent sent, as the API got it
    assert second.messages == history[:3]  # the tool result went back with the call's own id


def test_two_tools_in_one_turn_and_a_failing_one(msgmodel_api: LocalKit, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("remember the milk\n")
    msgmodel_api.script(
        [tool_call("read_file", path="notes.txt"), tool_call("read_file", path="../etc/passwd")],
        "The notes say: remember the milk.",
    )
    history = run(msgmodel_api.client, "Read notes.txt", root=tmp_path)
    ok, refused = mm.tool_results_of(history[2])
    assert mm.result_text(ok) == "remember the milk\n" and not ok.is_error
    assert refused.is_error and "outside the project" in mm.result_text(refused)


def test_a_rate_limit_is_retried_by_the_sdk(msgmodel_api: LocalKit, tmp_path: Path) -> None:
    msgmodel_api.script(ErrorTurn(429), ErrorTurn(529), "Done.")
    history = run(msgmodel_api.make_client(max_retries=3), "hi", root=tmp_path)
    assert mm.text_of(history[-1]) == "Done."
    assert [r.status for r in msgmodel_api.requests] == [429, 529, 200]


def test_without_retries_the_agent_sees_the_sdks_exception(msgmodel_api: LocalKit, tmp_path: Path) -> None:
    msgmodel_api.script(ErrorTurn(429))
    with pytest.raises(anthropic.RateLimitError):
        run(msgmodel_api.client, "hi", root=tmp_path)


@pytest.mark.parametrize(("reason", "why"), [("refusal", "refused"), ("max_tokens", "cut at max_tokens")])
def test_a_stop_the_agent_cannot_continue_from(msgmodel_api: LocalKit, reason: str, why: str) -> None:
    msgmodel_api.script(StopTurn("", reason))  # type: ignore[arg-type]
    with pytest.raises(AgentError, match=why):
        step(msgmodel_api.client, [mm.user_text("hi")])


def test_a_broken_history_is_refused_before_it_is_sent(msgmodel_api: LocalKit) -> None:
    call = mm.assistant_msg([mm.ToolUseBlock(id="toolu_1", name="add", input={"a": 1, "b": 2})])
    with pytest.raises(mm.ProtocolError, match="tool_use` ids were found without `tool_result` blocks"):
        step(msgmodel_api.client, [mm.user_text("add"), call, mm.user_text("never mind")])
    assert msgmodel_api.requests == []  # nothing reached the API
