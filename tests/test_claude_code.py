"""Tests for msgmodel.core.claude_code: Claude Code transcripts to the Messages-API view.

The transcripts are built to the documented format (docs/claude-code-transcripts.md) by
``tests/fixtures/claude_code/build.py``; each edge case the notes list has a named test here.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from fixtures.claude_code import build
from fixtures.claude_code.build import LAST, Transcript, text, thinking, tool_result
from hypothesis import given, settings
from hypothesis import strategies as st

from msgmodel.core import storage
from msgmodel.core.claude_code import (
    ClaudeCodeError,
    ClaudeCodeSession,
    Scope,
    Skipped,
    import_claude_code,
    is_claude_code_session,
    sample_session_path,
)
from msgmodel.core.message import (
    Message,
    OpaqueBlock,
    ThinkingBlock,
    ToolResultBlock,
    blocks_of,
    from_api,
    text_of,
    to_api,
    tool_results_of,
    tool_uses_of,
    user_text,
)
from msgmodel.core.protocol import validate
from msgmodel.course.synth import synth_session

FIXTURES = Path(__file__).parent / "fixtures" / "claude_code"
V1_0 = FIXTURES / "v1_0_session.jsonl"
V2_1_CLEAN = FIXTURES / "v2_1_clean_session.jsonl"
SAMPLE = build.SAMPLE
SCOPES: tuple[Scope, ...] = ("context", "all")


def _write(tmp_path: Path, t: Transcript, name: str = "session.jsonl") -> Path:
    return t.write(tmp_path / name)


def _kinds(m: Message) -> tuple[str, Any]:
    """A message's shape: its role and its blocks' wire kinds (or "str")."""
    if isinstance(m.content, str):
        return (m.role, "str")
    return (m.role, [b.kind if isinstance(b, OpaqueBlock) else b.type for b in blocks_of(m)])


def _shape(s: ClaudeCodeSession) -> list[tuple[str, Any]]:
    return [_kinds(m) for m in s.messages]


def _codes(s: ClaudeCodeSession) -> dict[int, str]:
    return {k.line: k.code for k in s.skipped}


def _assistant(*blocks: dict[str, Any]) -> Message:
    return from_api([{"role": "assistant", "content": list(blocks)}])[0]


def _user(*blocks: dict[str, Any]) -> Message:
    return from_api([{"role": "user", "content": list(blocks)}])[0]


def _thinking(s: ClaudeCodeSession) -> str | None:
    """The session's ``thinking`` request option, as far as the history shows it."""
    used = any(isinstance(b, ThinkingBlock) for m in s.messages for b in blocks_of(m))
    return "enabled" if used else None


def _valid(s: ClaudeCodeSession) -> list[str]:
    """The protocol rules the imported history breaks, checked with the session's own request options."""
    return [v.rule for v in validate(s.messages, model=s.models[-1], thinking=_thinking(s))]


# ---------------------------------------------------------------------------------------
# One block per line: merging
# ---------------------------------------------------------------------------------------


def test_user_and_assistant_lines_become_the_api_view(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Why is the build red?")
    t.response(text("Let me check."), stop_reason="end_turn")
    s = import_claude_code(_write(tmp_path, t))
    assert s.messages == [user_text("Why is the build red?"), _assistant(text("Let me check."))]
    assert s.message_lines == ((1,), (2,))
    assert s.skipped == ()
    assert s.chain == "parent_uuid"


def test_assistant_lines_of_one_response_merge_by_message_id(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Read everything.")
    calls = [t.tool_use("Read", {"file_path": f"/src/f{i}.py"}) for i in range(6)]
    sig = t.signature()
    lines = t.response(thinking("Six files.", sig), text("Reading all six."), *calls)  # 8 lines, one message.id
    for call, holder in zip(calls, lines[2:], strict=True):
        t.result(call, f"contents of {call['input']['file_path']}", of=holder)
    s = import_claude_code(_write(tmp_path, t))
    assert s.messages == [
        user_text("Read everything."),
        _assistant(thinking("Six files.", sig), text("Reading all six."), *calls),
        _user(*(tool_result(c["id"], f"contents of {c['input']['file_path']}") for c in calls)),
    ]
    assert s.message_lines == ((1,), tuple(range(2, 10)), tuple(range(10, 16)))
    assert _valid(s) == []


def test_parallel_results_on_consecutive_user_lines_merge_into_one_message(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Compare the two configs.")
    a, b = t.tool_use("Read", {"file_path": "/a.toml"}), t.tool_use("Read", {"file_path": "/b.toml"})
    la, lb = t.response(a, b)
    t.result(a, "x = 1", of=la)
    t.result(b, "x = 2", of=lb)
    t.response(text("They differ in x."), stop_reason="end_turn")
    s = import_claude_code(_write(tmp_path, t))
    assert _shape(s) == [
        ("user", "str"),
        ("assistant", ["tool_use", "tool_use"]),
        ("user", ["tool_result", "tool_result"]),
        ("assistant", ["text"]),
    ]
    assert [r.tool_use_id for r in tool_results_of(s.messages[2])] == [a["id"], b["id"]]
    assert _valid(s) == []


def test_results_interleaved_between_lines_of_one_response(tmp_path: Path) -> None:
    # 2.1.x: tools run while the response streams, so a result line sits between two
    # assistant lines that share message.id.
    t = Transcript(version="2.1.59")
    t.user("Check both.")
    a, b = t.tool_use("Bash", {"command": "ls"}), t.tool_use("Bash", {"command": "pwd"})
    msg, req = t.msg_id(), t.request_id()
    la = t.assistant(a, msg_id=msg, request_id=req)
    t.result(a, "README.md", of=la)
    lb = t.assistant(b, msg_id=msg, request_id=req, stop_reason="tool_use")
    t.result(b, "/home/dev", of=lb)
    s = import_claude_code(_write(tmp_path, t))
    assert s.messages[1:] == [
        _assistant(a, b),
        _user(tool_result(a["id"], "README.md"), tool_result(b["id"], "/home/dev")),
    ]
    assert s.message_lines == ((1,), (2, 4), (3, 5))
    assert _valid(s) == []


def test_parallel_branches_missed_by_the_parent_walk_are_recovered(tmp_path: Path) -> None:
    # Each 2.1.x result line's parentUuid is the assistant line holding its tool_use, so the
    # uuid graph of a parallel call is a DAG: walking parents back from the leaf passes
    # through only one of the results. The other must still be imported.
    t = Transcript(version="2.1.59")
    t.user("Two greps.")
    a, b = t.tool_use("Grep", {"pattern": "foo"}), t.tool_use("Grep", {"pattern": "bar"})
    la, lb = t.response(a, b)
    ra = t.result(a, "foo.py:1", of=la)
    rb = t.result(b, "bar.py:2", of=lb)
    t.response(text("Found both."), stop_reason="end_turn")
    path = _write(tmp_path, t)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[3]["uuid"] == ra and lines[3]["parentUuid"] == la == lines[3]["sourceToolAssistantUUID"]
    assert lines[4]["uuid"] == rb and lines[4]["parentUuid"] == lb
    assert lines[5]["parentUuid"] == rb  # the walk from the leaf: rb -> lb -> la -> prompt; ra is off it
    s = import_claude_code(path)
    assert s.chain == "parent_uuid"
    assert [r.tool_use_id for r in tool_results_of(s.messages[2])] == [a["id"], b["id"]]
    assert s.skipped == ()


def test_two_responses_in_a_row_stay_two_messages(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Hi")
    t.response(text("One."), stop_reason="end_turn")
    t.response(text("Two."), stop_reason="end_turn")
    s = import_claude_code(_write(tmp_path, t))
    assert [text_of(m) for m in s.messages] == ["Hi", "One.", "Two."]


# ---------------------------------------------------------------------------------------
# Line types that are not messages
# ---------------------------------------------------------------------------------------


def test_progress_lines_are_skipped_and_never_parents(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Run it.")
    bash = t.tool_use("Bash", {"command": "make"})
    holder = t.response(bash)[-1]
    kinds = ["hook_progress", "bash_progress", "waiting_for_task", "agent_progress"]
    for i, kind in enumerate(kinds):
        t.progress({"type": kind}, tool_use_id=f"p{i}", parent=holder, parent_tool_use_id=bash["id"])
    t.result(bash, "ok", of=holder)
    s = import_claude_code(_write(tmp_path, t))
    assert _shape(s) == [("user", "str"), ("assistant", ["tool_use"]), ("user", ["tool_result"])]
    progress = [k for k in s.skipped if k.code == "progress"]
    assert [(k.line, k.line_type) for k in progress] == [(3 + i, f"progress/{kind}") for i, kind in enumerate(kinds)]


def test_agent_progress_subagent_traffic_is_not_main_chain(tmp_path: Path) -> None:
    t = Transcript(version="2.1.59")
    t.user("Find the offers code.")
    task = t.tool_use("Task", {"description": "find", "prompt": "Where is the offers code?"})
    holder = t.response(task)[-1]
    for role, content in [("user", "SUBAGENT PROMPT"), ("assistant", [text("SUBAGENT ANSWER")])]:
        sub = {"type": role, "message": {"role": role, "content": content}, "uuid": t.new_uuid(), "timestamp": "x"}
        t.progress(
            {"type": "agent_progress", "message": sub, "agentId": "a1b2c3d", "normalizedMessages": []},
            tool_use_id="agent_msg_1",
            parent=holder,
            parent_tool_use_id=task["id"],
        )
    t.result(task, [text("In src/offers.py.")], of=holder, tool_use_result={"agentId": "a1b2c3d", "totalTokens": 9})
    s = import_claude_code(_write(tmp_path, t))
    assert "SUBAGENT" not in json.dumps(to_api(s.messages))
    assert len(s.messages) == 3
    assert [k.reason for k in s.skipped] == ["subagent traffic (agent_progress): never a main-chain message"] * 2


def test_sidechain_lines_are_skipped(tmp_path: Path) -> None:
    s = import_claude_code(V1_0)
    sidechain = [k for k in s.skipped if k.code == "sidechain"]
    assert [k.line for k in sidechain] == [5, 6, 7, 8]
    assert "Find the upload retry loop." not in [text_of(m) for m in s.messages]
    assert s.chain == "parent_uuid"


def test_system_lines_are_skipped_with_their_subtype(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Hi")
    t.response(text("Hello."), stop_reason="end_turn")
    t.system("stop_hook_summary", hookCount=1, hookInfos=[], hookErrors=[], preventedContinuation=False)
    t.system("turn_duration", durationMs=3000)
    t.system("local_command", content="<command-name>/cost</command-name>", level="info")
    t.user("Bye")
    s = import_claude_code(_write(tmp_path, t))
    assert [text_of(m) for m in s.messages] == ["Hi", "Hello.", "Bye"]
    assert [(k.line, k.line_type, k.code) for k in s.skipped] == [
        (3, "system/stop_hook_summary", "system"),
        (4, "system/turn_duration", "system"),
        (5, "system/local_command", "system"),
    ]
    assert s.chain == "parent_uuid"  # the chain runs through the system lines


def test_summary_lines_are_titles_not_compaction_markers() -> None:
    s = import_claude_code(V1_0)
    assert s.title == "Fix flaky upload retry test"
    assert s.compactions == 0
    assert _codes(s)[1] == "metadata"
    assert s.messages == import_claude_code(V1_0, scope="all").messages  # nothing was compacted


def test_file_history_snapshot_and_queue_operation_lines_are_skipped(tmp_path: Path) -> None:
    t = Transcript()
    t.snapshot(t.new_uuid())
    t.user("Hi")
    t.queue("enqueue", "and the docs")
    t.queue("dequeue")
    t.response(text("Hello."), stop_reason="end_turn")
    s = import_claude_code(_write(tmp_path, t))
    assert [text_of(m) for m in s.messages] == ["Hi", "Hello."]
    assert [(k.line, k.line_type) for k in s.skipped] == [
        (1, "file-history-snapshot"),
        (3, "queue-operation"),
        (4, "queue-operation"),
    ]
    assert s.chain == "parent_uuid"  # lines without uuid do not break the chain


def test_unknown_line_types_are_skipped(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Hi")
    t.add({"type": "last-prompt", "lastPrompt": "Hi", "leafUuid": t.last, "sessionId": t.session_id})
    t.add({"type": "ai-title", "aiTitle": "Greeting", "sessionId": t.session_id})
    s = import_claude_code(_write(tmp_path, t))
    assert s.messages == [user_text("Hi")]
    assert [(k.line, k.line_type, k.code) for k in s.skipped] == [
        (2, "last-prompt", "unknown_type"),
        (3, "ai-title", "unknown_type"),
    ]


# ---------------------------------------------------------------------------------------
# Fields of conversation lines
# ---------------------------------------------------------------------------------------


def test_tool_use_result_is_not_part_of_the_api_message(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Run both.")
    ok, bad = t.tool_use("Bash", {"command": "true"}), t.tool_use("Bash", {"command": "false"})
    lo, lb = t.response(ok, bad)
    t.result(ok, "", of=lo, tool_use_result={"stdout": "", "stderr": "", "interrupted": False, "isImage": False})
    t.result(bad, "Exit code 1", of=lb, is_error=True, tool_use_result="Error: Exit code 1")
    s = import_claude_code(_write(tmp_path, t))
    assert s.messages[2] == _user(tool_result(ok["id"], ""), tool_result(bad["id"], "Exit code 1", is_error=True))
    assert "toolUseResult" not in json.dumps(to_api(s.messages))


def test_envelope_and_message_fields_beyond_role_and_content_are_not_imported(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Plan it.", permissionMode="plan", todos=[{"content": "x", "status": "pending"}], sourceToolUseID="t")
    t.response(text("Planned."), stop_reason="end_turn")
    path = _write(tmp_path, t)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    lines[1]["message"].update(container={"id": "c1"}, context_management={"applied_edits": []})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    s = import_claude_code(path)
    assert to_api(s.messages) == [
        {"role": "user", "content": "Plan it."},
        {"role": "assistant", "content": [text("Planned.")]},
    ]


def test_a_byte_order_mark_and_crlf_line_ends_are_tolerated(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Hi")
    t.response(text("Hello."), stop_reason="end_turn")
    path = tmp_path / "crlf.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + t.dumps().replace("\n", "\r\n").encode())
    s = import_claude_code(path)
    assert [text_of(m) for m in s.messages] == ["Hi", "Hello."]
    assert s.skipped == ()
    assert is_claude_code_session(path)


def test_is_meta_lines_are_kept_as_user_content(tmp_path: Path) -> None:
    # The caveat and expanded slash-command prompts were sent to the model: they are kept.
    caveat = "<local-command-caveat>Caveat: The messages below were generated by the user ...</local-command-caveat>"
    t = Transcript()
    t.user(caveat, isMeta=True)
    t.user("<command-name>/review</command-name>")
    t.user([text("Review the diff on this branch. Focus on error handling.")], isMeta=True)
    t.response(text("Reviewing."), stop_reason="end_turn")
    s = import_claude_code(_write(tmp_path, t))
    assert s.messages[0] == user_text(caveat)
    assert s.messages[2] == _user(text("Review the diff on this branch. Focus on error handling."))
    assert s.skipped == ()


def test_compaction_context_starts_at_the_summary(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Old question")
    t.response(text("Old answer."), stop_reason="end_turn")
    t.compact("1. The user asked an old question.")
    t.user("New question")
    path = _write(tmp_path, t)
    s = import_claude_code(path)
    assert s.compactions == 1
    first = s.messages[0]
    assert isinstance(first.content, str)
    assert first.content.startswith(
        "This session is being continued from a previous conversation that ran out of context."
    )
    assert [text_of(m) for m in s.messages[1:]] == ["New question"]
    assert _codes(s) == {1: "before_compaction", 2: "before_compaction", 3: "compact_boundary"}
    assert str(s.skipped[0]) == f"{path}:1: user: before the compaction boundary at line 3 (scope='all' has it)"
    assert "trigger auto, 155395 tokens before" in s.skipped[2].reason
    # the file was not rewritten: the old lines are still there, and scope="all" reads them
    assert [text_of(m) for m in import_claude_code(path, scope="all").messages][:2] == ["Old question", "Old answer."]


def test_a_file_ending_right_after_a_boundary_has_an_empty_context(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Q1")
    t.response(text("A1."), stop_reason="end_turn")
    t.compact("summary")
    t.lines.pop()  # copied before the summary line was written
    path = _write(tmp_path, t)
    s = import_claude_code(path)
    assert s.messages == []
    assert _codes(s) == {1: "before_compaction", 2: "before_compaction", 3: "compact_boundary"}
    assert [text_of(m) for m in import_claude_code(path, scope="all").messages] == ["Q1", "A1."]


def test_scope_all_follows_logical_parents_across_compactions(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Q1")
    t.response(text("A1."), stop_reason="end_turn")
    t.compact("summary one")
    t.user("Q2")
    t.response(text("A2."), stop_reason="end_turn")
    t.compact("summary two")
    t.user("Q3")
    path = _write(tmp_path, t)
    context = import_claude_code(path)
    whole = import_claude_code(path, scope="all")
    assert context.compactions == whole.compactions == 2
    assert [text_of(m) for m in context.messages] == [build.SUMMARY_OPENING + "summary two", "Q3"]
    assert [text_of(m) for m in whole.messages] == [
        "Q1",
        "A1.",
        build.SUMMARY_OPENING + "summary one",
        "Q2",
        "A2.",
        build.SUMMARY_OPENING + "summary two",
        "Q3",
    ]
    assert whole.chain == "parent_uuid"
    assert {k.code for k in whole.skipped} == {"compact_boundary"}


def test_boundary_without_logical_parent_continues_from_the_line_before_it(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Q1")
    t.response(text("A1."), stop_reason="end_turn")
    t.compact("summary")
    t.user("Q2")
    path = _write(tmp_path, t)
    lines = path.read_text().splitlines()
    boundary = json.loads(lines[2])
    del boundary["logicalParentUuid"]
    lines[2] = json.dumps(boundary)
    path.write_text("\n".join(lines) + "\n")
    whole = import_claude_code(path, scope="all")
    assert [text_of(m) for m in whole.messages] == ["Q1", "A1.", build.SUMMARY_OPENING + "summary", "Q2"]
    assert whole.chain == "parent_uuid"


def _boundary_chain(k: int) -> bytes:
    """``k`` compaction boundaries without ``logicalParentUuid``, each followed by a prompt hanging off it."""
    t = Transcript()
    for i in range(k):
        t.user(f"Q{i}")
        t.system("compact_boundary")  # no logicalParentUuid; its parentUuid is the prompt
    t.user("last")
    return t.dumps().encode()


def _lines_run_in_importer(data: bytes) -> int:
    """How many lines of ``msgmodel/core/claude_code.py`` run while importing ``data`` with ``scope="all"``.

    A count of operations, not a time: the same on a quiet and on a loaded machine.
    """
    import sys

    from msgmodel.core import claude_code

    count = 0

    def local(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return local

    def calls(frame: Any, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename == claude_code.__file__ else None

    sys.settrace(calls)
    try:
        s = import_claude_code(data, scope="all")
    finally:
        sys.settrace(None)
    assert len(s.messages) == data.count(b'"type":"user"') and s.chain == "parent_uuid"
    return count


def test_scope_all_is_linear_in_the_number_of_compaction_boundaries() -> None:
    # Defect 14: each boundary without a logical link scanned every line before it, so a
    # file of many boundaries took quadratic time (a 1.8 MiB one, 19 s). Doubling the
    # boundaries must about double the work, not quadruple it.
    small = _lines_run_in_importer(_boundary_chain(150))
    large = _lines_run_in_importer(_boundary_chain(300))
    assert large / small < 2.2, (small, large)


# ---------------------------------------------------------------------------------------
# The edge cases of the notes
# ---------------------------------------------------------------------------------------


def test_file_ending_mid_turn_keeps_the_dangling_tool_use(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Write the test.")
    write = t.tool_use("Write", {"file_path": "/t.py", "content": "def test(): ..."})
    holder = t.response(text("Writing it."), write)[-1]
    t.progress({"type": "hook_progress"}, tool_use_id="h", parent=holder, parent_tool_use_id=write["id"])
    s = import_claude_code(_write(tmp_path, t))
    assert s.messages[-1] == _assistant(text("Writing it."), write)
    (violation,) = validate(s.messages, model=s.models[-1], thinking=_thinking(s))
    assert violation.rule == "dangling_tool_use"
    assert violation.path == "messages.1"
    assert write["id"] in violation.message


def test_tool_use_stranded_by_compaction(tmp_path: Path) -> None:
    # A parallel tool_use (TaskUpdate, 2.1.53) can be left without a result at the boundary.
    t = Transcript(version="2.1.53")
    t.user("Track the work.")
    done, update = t.tool_use("Bash", {"command": "make"}), t.tool_use("TaskUpdate", {"id": "1", "status": "done"})
    l_done, _ = t.response(done, update)
    t.result(done, "ok", of=l_done)
    t.compact("The user asked to track the work; make succeeded.")
    t.user("Next step?")
    path = _write(tmp_path, t)
    whole = import_claude_code(path, scope="all")
    violations = validate(whole.messages, model=whole.models[-1], thinking=_thinking(whole))
    assert [v.rule for v in violations] == ["dangling_tool_use"]
    assert update["id"] in violations[0].message and done["id"] not in violations[0].message
    context = import_claude_code(path)
    assert _valid(context) == []


def test_interrupt_after_a_tool_result(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Run the slow suite.")
    slow = t.tool_use("Bash", {"command": "pytest --runslow"})
    holder = t.response(slow)[-1]
    t.result(slow, "[Request interrupted by user for tool use]", of=holder, is_error=True)
    t.user([text("[Request interrupted by user]")])
    t.user("Skip the slow ones.")
    s = import_claude_code(_write(tmp_path, t))
    assert _shape(s) == [
        ("user", "str"),
        ("assistant", ["tool_use"]),
        ("user", ["tool_result"]),
        ("user", ["text"]),
        ("user", "str"),
    ]
    assert s.messages[3] == _user(text("[Request interrupted by user]"))
    assert _valid(s) == []


def test_synthetic_assistant_messages_are_skipped(tmp_path: Path) -> None:
    t = Transcript()
    t.user("ok")
    t.synthetic("No response requested.")
    t.user("continue")
    t.response(text("Continuing."), stop_reason="end_turn")
    path = _write(tmp_path, t)
    s = import_claude_code(path)
    assert [text_of(m) for m in s.messages] == ["ok", "continue", "Continuing."]
    (skipped,) = s.skipped
    assert (skipped.line, skipped.line_type, skipped.code) == (2, "assistant", "synthetic")
    assert str(skipped) == (
        f"{path}:2: assistant: a synthetic assistant message (written by Claude Code, not the model): "
        "'No response requested.'"
    )
    assert s.models == (build.MODEL,)
    assert _valid(s) == []


def test_api_error_messages_are_skipped(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Go.")
    t.synthetic('API Error: 500 {"type":"error","error":{"type":"api_error"}}', api_error=True)
    t.user("retry")
    s = import_claude_code(_write(tmp_path, t))
    assert s.messages == [user_text("Go."), user_text("retry")]
    assert [(k.line, k.code) for k in s.skipped] == [(2, "api_error")]
    assert s.models == ()


def test_tool_result_with_empty_content_is_kept(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Make the folder.")
    mk = t.tool_use("Bash", {"command": "mkdir -p out"})
    t.result(mk, "", of=t.response(mk)[-1])
    s = import_claude_code(_write(tmp_path, t))
    (result,) = tool_results_of(s.messages[2])
    assert result == ToolResultBlock(tool_use_id=mk["id"], content="")
    assert _valid(s) == []


def test_list_content_user_text_is_kept_as_a_list(tmp_path: Path) -> None:
    t = Transcript()
    t.user([text("A prompt written as a block list.")])
    s = import_claude_code(_write(tmp_path, t))
    assert s.messages == [_user(text("A prompt written as a block list."))]
    assert not isinstance(s.messages[0].content, str)


def test_ansi_escapes_in_local_command_output_are_kept_verbatim(tmp_path: Path) -> None:
    out = "<local-command-stdout>Total cost: \x1b[1m$0.42\x1b[22m\n\x1b[2mUsage: 12k in\x1b[0m</local-command-stdout>"
    t = Transcript()
    t.user(out)
    s = import_claude_code(_write(tmp_path, t))
    assert s.messages == [user_text(out)]


def test_pasted_banner_with_box_drawing_and_nbsp_is_kept_verbatim(tmp_path: Path) -> None:
    banner = (
        "╭───────────────────────────╮\n"
        "│ ✻ Welcome to Claude Code! │\n"
        "│\u00a0\u00a0 /help for help        │\n"
        "╰───────────────────────────╯"
    )
    t = Transcript()
    t.user(banner + "\nwhy does it show this?")
    s = import_claude_code(_write(tmp_path, t))
    assert text_of(s.messages[0]) == banner + "\nwhy does it show this?"


def test_thinking_signatures_and_unknown_blocks_are_kept_exactly(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Search the web, then look at the screenshot.")
    sig = "EqQBCkYIBxgCKkDx+/9Zz==\u00e9"
    redacted = {"type": "redacted_thinking", "data": "RW5jcnlwdGVkIHRoaW5raW5n"}
    server = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "decimal"}}
    found = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": [{"type": "x", "url": "u"}]}
    cached = {"type": "text", "text": "Done.", "cache_control": {"type": "ephemeral"}}
    shot = t.tool_use("Screenshot", {})
    lines = t.response(thinking("hm", sig), redacted, server, found, cached, shot)
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
    t.result(shot, [image], of=lines[-1])
    s = import_claude_code(_write(tmp_path, t))
    assert to_api(s.messages)[1]["content"] == [thinking("hm", sig), redacted, server, found, cached, shot]
    assert to_api(s.messages)[2]["content"] == [tool_result(shot["id"], [image])]
    first = blocks_of(s.messages[1])[0]
    assert isinstance(first, ThinkingBlock) and first.signature == sig
    assert [_kinds(m) for m in s.messages][1] == (
        "assistant",
        ["thinking", "redacted_thinking", "server_tool_use", "web_search_tool_result", "text", "tool_use"],
    )
    # and they survive our own storage byte for byte
    saved = tmp_path / "saved.jsonl"
    storage.save(saved, s.messages)
    assert storage.load(saved).messages == s.messages


# ---------------------------------------------------------------------------------------
# Bad lines and bad files
# ---------------------------------------------------------------------------------------


def test_a_line_that_is_not_json_is_skipped_with_file_line(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Hi")
    t.raw('{"type":"assistant", oops')
    t.response(text("Hello."), stop_reason="end_turn")
    path = _write(tmp_path, t)
    s = import_claude_code(path)
    assert [text_of(m) for m in s.messages] == ["Hi", "Hello."]
    (bad,) = s.skipped
    assert (bad.file, bad.line, bad.line_type, bad.code) == (str(path), 2, "?", "not_json")
    assert str(bad).startswith(f"{path}:2: ?: not JSON (")


def test_a_torn_last_line_is_reported(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Hi")
    path = _write(tmp_path, t)
    with open(path, "a", encoding="utf-8") as f:
        f.write('{"parentUuid":"x","isSidechain":false,"type":"assis')
    s = import_claude_code(path)
    assert s.messages == [user_text("Hi")]
    assert [(k.line, k.code) for k in s.skipped] == [(2, "torn")]
    assert "the file ends mid-line" in s.skipped[0].reason


def test_a_message_that_does_not_decode_is_skipped_with_its_path(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Hi")
    msg, req = t.msg_id(), t.request_id()
    t.assistant({"type": "tool_use", "name": "Read", "input": {}}, msg_id=msg, request_id=req)
    for message in ({"role": "user"}, {"role": "assistant", "content": ""}):
        uid = t.new_uuid()
        t.add({**t.envelope(t.last), "type": "user", "uuid": uid, "message": message})
        t.last = uid
    s = import_claude_code(_write(tmp_path, t))
    assert s.messages == [user_text("Hi")]
    assert [(k.line, k.code, k.reason) for k in s.skipped] == [
        (2, "bad_message", "message.content[0].id: missing required field `id` of a `tool_use` block"),
        (3, "bad_message", "message.content: expected a string or an array of blocks"),
        (4, "bad_message", "message.role is 'assistant' on a 'user' line"),
    ]


def test_absurdly_deep_lines_are_skipped_not_crashed_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    t = Transcript()
    t.user("Hi")
    t.raw("[" * 100_000 + "]" * 100_000)
    t.user([text("deep")])
    path = _write(tmp_path, t)

    def too_deep(*args: object, **kwargs: object) -> None:
        raise RecursionError("maximum recursion depth exceeded")

    # Content nested just below msgspec's limit overflows the block walker's stack instead.
    monkeypatch.setattr("msgmodel.core.claude_code.blocks_from_api", too_deep)
    s = import_claude_code(path)
    assert s.messages == [user_text("Hi")]
    assert [(k.line, k.code, k.reason) for k in s.skipped] == [
        (2, "too_deep", "JSON nested too deeply to read"),
        (3, "bad_message", "message.content: nested too deeply"),
    ]


def test_json_lines_that_are_not_transcript_lines_are_skipped(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Hi")
    t.raw("[1, 2]")
    t.raw('{"no": "type"}')
    s = import_claude_code(_write(tmp_path, t))
    assert [(k.line, k.code) for k in s.skipped] == [(2, "not_object"), (3, "not_object")]


def test_a_repeated_uuid_is_skipped(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Hi")
    t.response(text("Hello."), stop_reason="end_turn")
    t.raw(t.lines[1])
    s = import_claude_code(_write(tmp_path, t))
    assert [text_of(m) for m in s.messages] == ["Hi", "Hello."]
    assert [(k.line, k.code) for k in s.skipped] == [(3, "duplicate_uuid")]
    assert "already read at line 2" in s.skipped[0].reason


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"", "the file is empty"),
        (b"\n\n", "the file is empty"),
        (b'{"role": "user", "content": "hi"}\n', "a msgmodel session? read it with msgmodel.core.storage.load"),
        (b'[{"role": "user", "content": "hi"}]\n', "JSON array"),
        (b"hello world\n", "the first line is not JSON"),
        (b'{"type": "message", "role": "assistant", "content": []}\n', "a msgmodel session?"),
        (b'{"type": "event", "x": 1}\n', "no line has the Claude Code envelope (the first line has type 'event')"),
        (b'{\n  "type": "user"\n}\n', "the first line is not JSON"),
        (b"42\n", "the first line is a JSON int, not an object"),
    ],
)
def test_a_file_that_is_not_a_claude_code_session_raises(tmp_path: Path, content: bytes, why: str) -> None:
    path = tmp_path / "other.jsonl"
    path.write_bytes(content)
    with pytest.raises(ClaudeCodeError) as info:
        import_claude_code(path)
    assert str(info.value).startswith(f"{path}: not a Claude Code session: ")
    assert why in str(info.value)
    assert info.value.path == str(path)


def test_a_msgmodel_session_is_refused_with_a_pointer_to_storage(tmp_path: Path) -> None:
    path = tmp_path / "ours.jsonl"
    storage.save(path, synth_session(6, seed=2))
    with pytest.raises(ClaudeCodeError, match=r"msgmodel\.core\.storage\.load"):
        import_claude_code(path)


def test_content_can_be_given_as_bytes() -> None:
    from_bytes = import_claude_code(SAMPLE.read_bytes(), name="-")
    from_path = import_claude_code(SAMPLE)
    assert from_bytes.messages == from_path.messages
    assert from_bytes.path == "-" and all(k.file == "-" for k in from_bytes.skipped)
    assert import_claude_code(V1_0.read_bytes()).path == "<bytes>"
    with pytest.raises(ClaudeCodeError, match=r"^<stdin>: not a Claude Code session: the file is empty"):
        import_claude_code(b"", name="<stdin>")


def test_a_missing_file_raises_claude_code_error(tmp_path: Path) -> None:
    with pytest.raises(ClaudeCodeError, match="cannot read it"):
        import_claude_code(tmp_path / "nope.jsonl")


def test_an_unknown_scope_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="scope must be"):
        import_claude_code(V1_0, scope="everything")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------
# Finding the main chain
# ---------------------------------------------------------------------------------------


def test_a_rewound_branch_is_skipped_as_off_chain(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Start")
    started = t.response(text("Started."), stop_reason="end_turn")[-1]
    t.user("Do it the slow way")
    t.response(text("Slowly..."), stop_reason="end_turn")
    t.last = started  # the user rewinds to just after "Started." and asks again
    t.user("Do it the fast way")
    t.response(text("Quickly."), stop_reason="end_turn")
    s = import_claude_code(_write(tmp_path, t))
    assert [text_of(m) for m in s.messages] == ["Start", "Started.", "Do it the fast way", "Quickly."]
    assert _codes(s) == {3: "off_chain", 4: "off_chain"}
    assert s.skipped[0].reason == "not on the main chain (a branch left by a rewind or an edited prompt)"


def test_a_parent_missing_from_the_file_falls_back_to_file_order(tmp_path: Path) -> None:
    t = Transcript()
    t.user("Hi")
    t.response(text("Hello."), stop_reason="end_turn")
    t.user("Again", parent="00000000-0000-4000-8000-000000000000")
    s = import_claude_code(_write(tmp_path, t))
    assert s.chain == "file_order"
    assert [text_of(m) for m in s.messages] == ["Hi", "Hello.", "Again"]


def test_a_parent_cycle_falls_back_to_file_order(tmp_path: Path) -> None:
    t = Transcript()
    a = t.user("One")
    b = t.user("Two")
    lines = [json.loads(line) for line in t.lines]
    lines[0]["parentUuid"] = b
    t.lines = [json.dumps(obj) for obj in lines]
    s = import_claude_code(_write(tmp_path, t))
    assert a == lines[0]["uuid"]
    assert s.chain == "file_order"
    assert [text_of(m) for m in s.messages] == ["One", "Two"]


def test_lines_without_uuids_are_read_in_file_order(tmp_path: Path) -> None:
    lines = [
        {"type": "user", "sessionId": "s", "message": {"role": "user", "content": "Hi"}},
        {"type": "assistant", "sessionId": "s", "message": {"id": "m1", "role": "assistant", "content": [text("Yo")]}},
        {"type": "system", "subtype": "compact_boundary", "sessionId": "s", "uuid": "b", "parentUuid": None},
        {"type": "user", "sessionId": "s", "message": {"role": "user", "content": "After"}},
    ]
    path = tmp_path / "old.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    s = import_claude_code(path)
    assert s.chain == "file_order"
    assert [text_of(m) for m in s.messages] == ["After"]
    assert [text_of(m) for m in import_claude_code(path, scope="all").messages] == ["Hi", "Yo", "After"]


@pytest.mark.parametrize("path", [V1_0, V2_1_CLEAN, SAMPLE], ids=lambda p: p.name)
@pytest.mark.parametrize("scope", SCOPES)
def test_every_line_is_either_kept_or_skipped(path: Path, scope: Scope) -> None:
    s = import_claude_code(path, scope=scope)
    kept = [n for lines in s.message_lines for n in lines]
    skipped = [k.line for k in s.skipped]
    nonblank = [i + 1 for i, line in enumerate(path.read_text(encoding="utf-8").split("\n")) if line.strip()]
    assert sorted(kept + skipped) == nonblank
    assert s.line_count == len(nonblank)


# ---------------------------------------------------------------------------------------
# Whole sessions: the committed fixtures and the shipped sample
# ---------------------------------------------------------------------------------------


def test_a_clean_session_validates() -> None:
    s = import_claude_code(V2_1_CLEAN)
    assert _shape(s) == [
        ("user", "str"),
        ("assistant", ["thinking", "tool_use", "tool_use"]),
        ("user", ["tool_result", "tool_result"]),
        ("assistant", ["thinking", "text"]),
    ]
    assert validate(s.messages, model=s.models[-1], thinking=_thinking(s)) == []
    assert validate([*s.messages, user_text("Thanks!")]) == []  # and it can go on, on today's defaults


def test_the_1_0_session() -> None:
    s = import_claude_code(V1_0)
    assert (s.versions, s.version, s.compactions, s.chain) == (("1.0.98",), "1.0.98", 0, "parent_uuid")
    assert _shape(s) == [
        ("user", "str"),
        ("assistant", ["text", "tool_use"]),
        ("user", ["tool_result"]),
        ("assistant", ["tool_use", "tool_use"]),
        ("user", ["tool_result", "tool_result"]),
        ("assistant", ["text"]),
        ("user", "str"),
        ("user", "str"),
        ("user", "str"),
        ("assistant", ["thinking", "text"]),
        ("user", "str"),
    ]
    assert {k.line: k.code for k in s.skipped if k.code in ("synthetic", "api_error")} == {
        16: "synthetic",
        18: "api_error",
    }
    assert _valid(s) == []


def test_the_shipped_sample_context() -> None:
    assert sample_session_path() == SAMPLE
    s = import_claude_code(sample_session_path())
    assert 30 <= s.line_count <= 80
    assert s.compactions == 1
    assert s.models == (build.MODEL,)
    assert s.session_id is not None and s.version == "2.1.42"
    assert text_of(s.messages[0]).startswith(build.SUMMARY_OPENING)
    assert tool_uses_of(s.messages[-1])  # it ends mid-turn
    codes = {k.code for k in s.skipped}
    assert {"before_compaction", "compact_boundary", "progress", "api_error", "metadata"} <= codes
    # only the dangling tool_use at the very end breaks the protocol
    (violation,) = validate(s.messages, model=s.models[-1], thinking=_thinking(s))
    assert violation.rule == "dangling_tool_use"
    assert tool_uses_of(s.messages[-1])[0].id in violation.message


def test_the_shipped_sample_whole_chain() -> None:
    s = import_claude_code(SAMPLE, scope="all")
    assert text_of(s.messages[0]).startswith("<local-command-caveat>")
    failing = [r for m in s.messages for r in tool_results_of(m) if r.is_error]
    assert len(failing) == 2  # the failing pytest run and the interrupted slow suite
    summaries = [m for m in s.messages if text_of(m).startswith(build.SUMMARY_OPENING)]
    assert len(summaries) == 1
    assert [v.rule for v in validate(s.messages, model=s.models[-1], thinking=_thinking(s))] == ["dangling_tool_use"]


def test_committed_fixtures_are_current() -> None:
    for path, make in build.FIXTURES.items():
        assert path.read_text(encoding="utf-8") == make().dumps(), f"rerun {build.__file__}"


# ---------------------------------------------------------------------------------------
# Sniffing and round trips
# ---------------------------------------------------------------------------------------


def test_is_claude_code_session_on_paths_bytes_and_lines(tmp_path: Path) -> None:
    ours = tmp_path / "ours.jsonl"
    storage.save(ours, synth_session(4, seed=1))
    assert is_claude_code_session(SAMPLE)
    assert is_claude_code_session(str(V1_0))
    assert not is_claude_code_session(ours)
    assert not is_claude_code_session(tmp_path / "missing.jsonl")
    assert is_claude_code_session(V2_1_CLEAN.read_bytes())
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    assert is_claude_code_session(lines[:3])
    assert is_claude_code_session([line.encode() for line in lines[1:2]])
    assert not is_claude_code_session(ours.read_text().splitlines())
    assert not is_claude_code_session(["", "not json", "[]"])
    assert is_claude_code_session(['{"type":"summary","summary":"t","leafUuid":"u"}'])


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=1, max_value=60), st.integers(min_value=0, max_value=10_000))
def test_round_trip_through_the_transcript_format(n: int, seed: int) -> None:
    msgs = synth_session(n, seed=seed)
    transcript = build.from_messages(msgs, seed=seed)
    with tempfile.TemporaryDirectory() as d:
        path = transcript.write(Path(d) / "s.jsonl")
        for scope in SCOPES:
            s = import_claude_code(path, scope=scope)
            assert s.messages == msgs
            assert {k.code for k in s.skipped} <= {"progress", "metadata", "system"}


def test_skipped_items_are_frozen() -> None:
    item = Skipped("f", 1, "user", "off_chain", "why")
    with pytest.raises(AttributeError):
        item.line = 2  # type: ignore[misc]
    s = import_claude_code(V1_0)
    with pytest.raises(AttributeError):
        s.messages = []  # type: ignore[misc]


def test_parent_default_is_the_previous_conversation_line() -> None:
    t = Transcript()
    u = t.user("a")
    t.progress({"type": "hook_progress"}, tool_use_id="h", parent=u, parent_tool_use_id="x")
    t.user("b", parent=LAST)
    assert json.loads(t.lines[2])["parentUuid"] == u
