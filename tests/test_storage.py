"""Tests for msgmodel.core.storage: JSONL sessions, lossless, crash-safe, with damage reported by file:line."""

from __future__ import annotations

import itertools
import json
import os
import random
import signal
import stat
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies_msg import messages as any_message

from msgmodel.core import storage
from msgmodel.core.message import (
    Message,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    assistant_msg,
    from_api,
    to_api,
    tool_result_block,
    tool_result_msg,
    user_text,
)
from msgmodel.core.storage import LineProblem, LoadResult, StorageError
from msgmodel.course.synth import synth_session

SESSION = synth_session(40, seed=5)
sessions = st.lists(any_message(), max_size=8)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "session.jsonl"


def _lines(p: Path) -> list[bytes]:
    return p.read_bytes().split(b"\n")


# ---------------------------------------------------------------------------------------
# The format and the round trip
# ---------------------------------------------------------------------------------------


def test_save_then_load_gives_the_same_messages(path: Path) -> None:
    storage.save(path, SESSION)
    result = storage.load(path)
    assert result.ok
    assert result.messages == SESSION
    assert result.line_numbers == tuple(range(1, len(SESSION) + 1))


def test_each_line_is_one_message_in_the_api_shape(path: Path) -> None:
    storage.save(path, SESSION)
    lines = _lines(path)
    assert lines[-1] == b""  # every line ends in "\n"
    assert [json.loads(line) for line in lines[:-1]] == to_api(SESSION)


def test_thinking_signatures_and_opaque_blocks_survive_exactly(path: Path) -> None:
    signature = "EqQBCkYIBxgCKkD+/=\u00e9\u2028\x85 tail "
    opaque = OpaqueBlock({"type": "redacted_thinking", "data": "ZW5jcnlwdGVk", "z": [1, 2.5, None]})
    image = OpaqueBlock({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}})
    msgs = [
        user_text("line one\nline two\r\nU+2028:\u2028 U+0085:\x85 NUL:\x00"),
        assistant_msg(
            [
                ThinkingBlock("hmm", signature=signature),
                opaque,
                TextBlock("cached", extra={"cache_control": {"type": "ephemeral"}}),
                ToolUseBlock("toolu_1", "Read", {"path": "a.py", "n": 2**63}),
            ]
        ),
        tool_result_msg([tool_result_block("toolu_1", [TextBlock("ok"), image], is_error=True)]),
    ]
    storage.save(path, msgs)
    assert len(_lines(path)) == len(msgs) + 1  # no separator inside strings split a line
    loaded = storage.load(path).messages
    assert loaded == msgs
    thought = loaded[1].content[0]
    assert isinstance(thought, ThinkingBlock)
    assert thought.signature == signature


def _no_fsync() -> Any:
    """Durability is the kill tests' subject; the content properties skip the (slow) fsyncs."""
    return mock.patch.object(os, "fsync", lambda fd: None)


@settings(max_examples=30)
@given(sessions)
def test_round_trip_of_arbitrary_sessions(msgs: list[Message]) -> None:
    with tempfile.TemporaryDirectory() as d, _no_fsync():
        p = Path(d) / "s.jsonl"
        storage.save(p, msgs)
        result = storage.load(p)
        assert result.ok
        assert result.messages == msgs


@settings(max_examples=25)
@given(sessions, st.lists(st.integers(min_value=0, max_value=8), max_size=5))
def test_append_in_chunks_equals_save_all(msgs: list[Message], cuts: list[int]) -> None:
    bounds = sorted({0, len(msgs), *(c for c in cuts if c <= len(msgs))})
    with tempfile.TemporaryDirectory() as d, _no_fsync():
        whole, chunked = Path(d) / "whole.jsonl", Path(d) / "chunked.jsonl"
        storage.save(whole, msgs)
        for lo, hi in itertools.pairwise(bounds):
            storage.append(chunked, msgs[lo:hi])
        if msgs:
            assert chunked.read_bytes() == whole.read_bytes()
        assert storage.load(chunked if msgs else whole).messages == msgs


def test_save_of_nothing_writes_an_empty_file(path: Path) -> None:
    storage.save(path, SESSION)
    storage.save(path, [])
    assert path.read_bytes() == b""
    assert storage.load(path) == LoadResult(str(path), [], ())


def test_append_of_nothing_does_not_touch_the_file(path: Path) -> None:
    storage.append(path, [])
    assert not path.exists()


def test_append_creates_the_file(path: Path) -> None:
    storage.append(path, SESSION[:3])
    assert storage.load(path).messages == SESSION[:3]


def test_accepts_pathlike_and_str(path: Path) -> None:
    storage.save(str(path), SESSION[:2])
    storage.append(path, SESSION[2:4])
    assert storage.load(str(path)).messages == SESSION[:4]


def test_save_keeps_the_permission_bits_of_an_existing_file(path: Path) -> None:
    storage.save(path, SESSION[:2])
    path.chmod(0o640)
    storage.save(path, SESSION[:3])
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert storage.load(path).messages == SESSION[:3]


def test_save_leaves_no_temporary_file(path: Path) -> None:
    storage.save(path, SESSION)
    storage.save(path, SESSION[:5])
    assert sorted(p.name for p in path.parent.iterdir()) == ["session.jsonl"]


# ---------------------------------------------------------------------------------------
# Reading what others (or crashes) wrote
# ---------------------------------------------------------------------------------------


def _write(path: Path, data: bytes) -> None:
    path.write_bytes(data)


def _line(m: Message) -> bytes:
    return json.dumps(to_api([m])[0]).encode()


def test_empty_file_loads_no_messages_and_no_problems(path: Path) -> None:
    _write(path, b"")
    assert storage.load(path) == LoadResult(str(path), [], ())


def test_byte_order_mark_is_ignored(path: Path) -> None:
    _write(path, b"\xef\xbb\xbf" + b"".join(_line(m) + b"\n" for m in SESSION[:3]))
    result = storage.load(path)
    assert result.ok and result.messages == SESSION[:3]


def test_crlf_line_ends_are_read(path: Path) -> None:
    _write(path, b"".join(_line(m) + b"\r\n" for m in SESSION[:3]))
    result = storage.load(path)
    assert result.ok and result.messages == SESSION[:3]


def test_blank_lines_are_ignored_and_line_numbers_stay_true(path: Path) -> None:
    _write(path, b"\n" + _line(SESSION[0]) + b"\n  \n\n" + _line(SESSION[1]) + b"\n")
    result = storage.load(path)
    assert result.ok
    assert result.messages == SESSION[:2]
    assert result.line_numbers == (2, 5)


def test_torn_last_line_is_reported_and_the_prefix_loads(path: Path) -> None:
    whole = _line(SESSION[3])
    _write(path, b"".join(_line(m) + b"\n" for m in SESSION[:3]) + whole[: len(whole) // 2])
    result = storage.load(path)
    assert result.messages == SESSION[:3]
    assert result.torn is not None
    assert result.problems == (result.torn,)
    assert (result.torn.file, result.torn.line) == (str(path), 4)
    assert str(result.torn).startswith(f"{path}:4: torn last line")
    # strict mode does not raise for it: a torn tail is what a crash leaves, not damage
    assert storage.load(path, strict=True).messages == SESSION[:3]


def test_complete_last_line_without_newline_loads(path: Path) -> None:
    _write(path, _line(SESSION[0]) + b"\n" + _line(SESSION[1]))
    result = storage.load(path)
    assert result.ok and result.messages == SESSION[:2]


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (b"{not json", "$: expected one JSON object per line"),
        (b'{"role": "user"}', "$.content: missing required field `content`"),
        (b'{"role": "tool", "content": "x"}', "$.role: expected 'user', 'assistant' or 'system', got 'tool'"),
        (b'[{"role": "user", "content": "x"}]', "$: expected a message object, got an array"),
        (b'{"role":"user","content":"a"},{"role":"user","content":"b"}', "expected one JSON object per line"),
        (b'{"role":"user","content":[{"type":"text"}]}', "$.content[0].text: missing required field `text`"),
        (b"\xff\xfe", "$: expected one JSON object per line"),
        (b"[" * 100_000 + b"]" * 100_000, "$: expected JSON nested less deeply"),
    ],
)
def test_bad_line_is_reported_with_file_line_and_reason(path: Path, bad: bytes, reason: str) -> None:
    _write(path, _line(SESSION[0]) + b"\n" + bad + b"\n" + _line(SESSION[1]) + b"\n")
    result = storage.load(path)
    assert result.messages == SESSION[:2]
    assert result.line_numbers == (1, 3)
    assert len(result.problems) == 1
    problem = result.problems[0]
    assert (problem.file, problem.line, problem.torn) == (str(path), 2, False)
    assert reason in problem.reason
    assert result.torn is None
    with pytest.raises(StorageError) as info:
        storage.load(path, strict=True)
    assert (info.value.path, info.value.line) == (str(path), 2)
    assert str(info.value).startswith(f"{path}:2: ")
    assert reason in str(info.value)


def test_a_claude_code_transcript_gets_a_pointer_to_the_importer(path: Path) -> None:
    cc = {
        "type": "user",
        "uuid": "u1",
        "parentUuid": None,
        "sessionId": "s",
        "message": {"role": "user", "content": "hi"},
    }
    _write(path, json.dumps(cc).encode() + b"\n")
    (problem,) = storage.load(path).problems
    assert "import_claude_code" in problem.reason


def test_missing_file_raises_storage_error(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="no such file") as info:
        storage.load(tmp_path / "nope.jsonl")
    assert info.value.line is None


def test_directory_raises_storage_error(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="directory"):
        storage.load(tmp_path)


def test_non_messages_are_refused_before_writing(path: Path) -> None:
    with pytest.raises(TypeError, match=r"messages\[1\] is a dict"):
        storage.save(path, [SESSION[0], {"role": "user", "content": "x"}])  # type: ignore[list-item]
    assert not path.exists()


def test_unencodable_text_is_a_storage_error(path: Path) -> None:
    storage.save(path, SESSION[:2])
    with pytest.raises(StorageError, match=r"messages\[0\] cannot be written"):
        storage.save(path, [user_text("lone surrogate \ud800")])
    assert storage.load(path).messages == SESSION[:2]  # the old file is intact


# ---------------------------------------------------------------------------------------
# Appending after a torn line, and repair
# ---------------------------------------------------------------------------------------


def _torn(path: Path, n: int = 3) -> bytes:
    storage.save(path, SESSION[:n])
    fragment = _line(SESSION[n])[:20]
    with open(path, "ab") as f:
        f.write(fragment)
    return fragment


def test_append_refuses_to_write_after_a_torn_line(path: Path) -> None:
    _torn(path)
    before = path.read_bytes()
    with pytest.raises(StorageError, match="torn line") as info:
        storage.append(path, SESSION[3:5])
    assert (info.value.path, info.value.line) == (str(path), 4)
    assert "repair" in str(info.value)
    assert path.read_bytes() == before


def test_repair_cuts_only_the_torn_line_then_append_works(path: Path) -> None:
    fragment = _torn(path)
    cut = storage.repair(path)
    assert cut == LineProblem(str(path), 4, f"cut a torn last line of {len(fragment)} bytes", torn=True)
    assert storage.load(path).ok
    storage.append(path, SESSION[3:6])
    result = storage.load(path)
    assert result.ok and result.messages == SESSION[:6]


def test_repair_leaves_a_sound_file_alone(path: Path) -> None:
    storage.save(path, SESSION[:3])
    before = path.read_bytes()
    assert storage.repair(path) is None
    assert path.read_bytes() == before


def test_repair_keeps_a_complete_last_line_that_lacks_its_newline(path: Path) -> None:
    _write(path, _line(SESSION[0]) + b"\n" + _line(SESSION[1]))
    assert storage.repair(path) is None
    assert storage.load(path).messages == SESSION[:2]


def test_repair_leaves_damage_in_the_middle_alone(path: Path) -> None:
    _write(path, _line(SESSION[0]) + b"\n{oops\n" + _line(SESSION[1]) + b"\n")
    before = path.read_bytes()
    assert storage.repair(path) is None
    assert path.read_bytes() == before


def test_append_after_a_complete_line_without_newline_adds_one(path: Path) -> None:
    _write(path, _line(SESSION[0]) + b"\n" + _line(SESSION[1]))
    storage.append(path, SESSION[2:4])
    result = storage.load(path)
    assert result.ok and result.messages == SESSION[:4]
    assert path.read_bytes().endswith(b"\n")


def test_append_to_a_file_holding_only_a_bom(path: Path) -> None:
    _write(path, b"\xef\xbb\xbf")
    storage.append(path, SESSION[:2])
    assert storage.load(path).messages == SESSION[:2]


def test_repair_of_a_missing_file_raises(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="no such file"):
        storage.repair(tmp_path / "nope.jsonl")


# ---------------------------------------------------------------------------------------
# Failures while writing (injected)
# ---------------------------------------------------------------------------------------


def test_a_write_that_fails_half_way_leaves_a_torn_line_that_load_reports(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    storage.save(path, SESSION[:3])
    real_write = os.write

    def half_then_fail(fd: int, data: Any) -> int:
        real_write(fd, bytes(data)[: len(data) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "write", half_then_fail)
    with pytest.raises(StorageError, match="No space left on device"):
        storage.append(path, SESSION[3:6])
    monkeypatch.undo()
    result = storage.load(path)
    assert result.torn is not None
    assert result.messages[:3] == SESSION[:3]
    assert result.messages == SESSION[: len(result.messages)]  # a prefix: nothing reordered or garbled
    assert storage.repair(path) is not None
    storage.append(path, SESSION[len(result.messages) : 8])
    assert storage.load(path).messages == SESSION[:8]


@pytest.mark.parametrize("failing", ["fsync", "replace"])
def test_a_save_that_fails_keeps_the_old_file_and_no_temp(
    path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    storage.save(path, SESSION[:3])

    def fail(*args: object) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, failing, fail)
    with pytest.raises(StorageError, match="Input/output error"):
        storage.save(path, SESSION)
    monkeypatch.undo()
    assert storage.load(path).messages == SESSION[:3]
    assert sorted(p.name for p in path.parent.iterdir()) == ["session.jsonl"]


def _record_calls(monkeypatch: pytest.MonkeyPatch, names: list[str]) -> list[str]:
    calls: list[str] = []
    for name in names:
        real = getattr(os, name)

        def spy(*args: Any, _name: str = name, _real: Any = real) -> Any:
            target = args[0] if _name in ("replace", "open") else None
            label = _name if target is None else f"{_name}({Path(target).name})"
            calls.append(label)
            return _real(*args)

        monkeypatch.setattr(os, name, spy)
    return calls


def test_save_fsyncs_the_file_before_the_rename_and_the_directory_after(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A SIGKILL cannot show a missing fsync (the page cache survives the process), so the
    # order of the durability steps is checked directly.
    storage.save(path, SESSION[:2])
    calls = _record_calls(monkeypatch, ["open", "write", "fsync", "replace"])
    storage.save(path, SESSION)
    assert [c.split("(")[0] for c in calls] == ["open", "open", "write", "fsync", "replace", "open", "fsync"]
    assert calls[0] == "open(session.jsonl)"  # the file itself, to hold its lock
    assert calls[1].startswith("open(.session.jsonl.") and calls[1].endswith(".tmp)")
    assert calls[5] == f"open({path.parent.name})"  # the directory, for the rename


def test_append_writes_once_and_fsyncs_before_returning(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    storage.save(path, SESSION[:2])
    calls = _record_calls(monkeypatch, ["write", "fsync"])
    storage.append(path, SESSION[2:9])
    assert calls == ["write", "fsync"]  # seven messages, one write: whole lines or (after a crash) a torn tail


# ---------------------------------------------------------------------------------------
# Killing a writer (SIGKILL at seeded random moments)
# ---------------------------------------------------------------------------------------

STREAM = synth_session(400, seed=11)
needs_fork = pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "win32", reason="needs fork and SIGKILL")


def _expected(n: int) -> list[Message]:
    return [STREAM[i % len(STREAM)] for i in range(n)]


def _run_child(body: Callable[[int], None], delay: float) -> list[tuple[str, int]]:
    """Fork a writer, let it run ``delay`` seconds, SIGKILL it; return the (event, count) lines it reported.

    A fork is used instead of starting a new interpreter so each run costs milliseconds, not the
    ~0.15 s of interpreter start-up: that buys many more kills within the time budget.
    """
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the writer
        os.close(r)
        code = 0
        try:
            os.write(w, b"ready 0\n")
            body(w)
        except BaseException as e:
            os.write(w, f"error {e!r}\n".encode())
            code = 1
        finally:
            os._exit(code)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        assert f.readline() == b"ready 0\n"
        time.sleep(delay)
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        rest = f.read().decode()
    assert "error" not in rest, rest
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    return [(event, int(count)) for event, count in (line.split() for line in rest.splitlines())]


def _acked_and_pending(events: list[tuple[str, int]], start: int) -> tuple[int, int]:
    done = [n for e, n in events if e == "done"]
    begun = [n for e, n in events if e == "begin"]
    acked = done[-1] if done else start
    pending = begun[-1] if begun else acked
    return acked, max(acked, pending)


@needs_fork
def test_kill_during_append_keeps_every_acknowledged_message(path: Path) -> None:
    rng = random.Random(20240611)
    n, torn, kills = 0, 0, 40
    for iteration in range(kills):
        if iteration % 20 == 0:  # a fresh file now and then keeps the reloads small
            path.unlink(missing_ok=True)
            n = 0
        seed = rng.randrange(1 << 30)

        def writer(w: int, start: int = n, seed: int = seed) -> None:
            chunks = random.Random(seed)
            i = start
            while True:
                k = chunks.randrange(1, 60)
                os.write(w, f"begin {i + k}\n".encode())
                storage.append(path, [STREAM[(i + j) % len(STREAM)] for j in range(k)])
                i += k
                os.write(w, f"done {i}\n".encode())  # only after append (and its fsync) returned

        events = _run_child(writer, rng.uniform(0.0, 0.03))
        acked, pending = _acked_and_pending(events, n)
        if not path.exists():  # killed before its first append created the file
            assert acked == 0
            continue
        result = storage.load(path)
        got = len(result.messages)
        assert acked <= got <= pending, (iteration, acked, got, pending)
        assert result.messages == _expected(got), iteration
        assert all(p.torn for p in result.problems), result.problems
        if result.torn is not None:
            torn += 1
            assert storage.repair(path) is not None
        n = got
    assert n > 0
    print(f"append kills: {kills}, torn tails seen: {torn}")


@needs_fork
def test_kill_during_save_leaves_the_old_or_the_new_file(path: Path) -> None:
    rng = random.Random(77)
    storage.save(path, STREAM[:5])
    n, leftovers, kills = 5, 0, 25
    for iteration in range(kills):
        seed = rng.randrange(1 << 30)

        def writer(w: int, seed: int = seed) -> None:
            sizes = random.Random(seed)
            while True:
                k = sizes.randrange(1, len(STREAM) + 1)
                os.write(w, f"begin {k}\n".encode())
                storage.save(path, STREAM[:k])
                os.write(w, f"done {k}\n".encode())

        events = _run_child(writer, rng.uniform(0.0, 0.03))
        done = [k for e, k in events if e == "done"]
        begun = [k for e, k in events if e == "begin"]
        acked = done[-1] if done else n
        allowed = {acked}
        if begun and (not done or len(begun) > len(done)):
            allowed.add(begun[-1])
        result = storage.load(path)
        assert result.ok, (iteration, result.problems)
        assert len(result.messages) in allowed, (iteration, allowed, len(result.messages))
        assert result.messages == STREAM[: len(result.messages)]
        for stray in path.parent.glob(".session.jsonl.*.tmp"):
            leftovers += 1
            stray.unlink()
        n = len(result.messages)
    print(f"save kills: {kills}, stray temp files left by kills: {leftovers}")


def test_problems_read_as_file_line_reason(path: Path) -> None:
    _write(path, _line(SESSION[0]) + b"\n{oops\n")
    result = storage.load(path)
    assert not result.ok
    assert result.torn is None
    (problem,) = result.problems
    assert str(problem).startswith(f"{path}:2: $: expected one JSON object per line (")


def test_from_api_dicts_can_be_saved_after_conversion(path: Path) -> None:
    raw = [{"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}]
    storage.save(path, from_api(raw))
    assert json.loads(path.read_text()) == raw[0]
