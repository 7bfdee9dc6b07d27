"""Regression tests for the storage defects of issue 11 (1-7): each one failed before its fix.

Concurrency and the seeded fuzz run live in ``test_storage_concurrency.py`` and ``test_storage_fuzz.py``.
"""

from __future__ import annotations

import datetime
import enum
import json
import math
import os
import re
import signal
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from msgmodel.core import cli, storage
from msgmodel.core.claude_code import ClaudeCodeError, import_claude_code
from msgmodel.core.message import Message, TextBlock, ToolUseBlock, assistant_msg, to_api, to_json, user_text
from msgmodel.core.storage import StorageError
from msgmodel.course.synth import synth_session

SESSION = synth_session(12, seed=3)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "session.jsonl"


def _line(m: Message) -> bytes:
    return json.dumps(to_api([m])[0]).encode()


# ---------------------------------------------------------------------------------------
# 1. Only bytes that are not complete JSON are torn; repair refuses what is not JSONL
# ---------------------------------------------------------------------------------------

COMPLETE_NOT_A_MESSAGE = b'{"role":"user","content":"a"}\n{"role":"tool","content":"complete line"}'


def test_a_complete_last_line_that_is_not_a_message_is_damage_not_torn(path: Path) -> None:
    path.write_bytes(COMPLETE_NOT_A_MESSAGE)
    result = storage.load(path)
    assert result.messages == [user_text("a")]
    (problem,) = result.problems
    assert (problem.line, problem.torn) == (2, False)
    assert "$.role" in problem.reason
    with pytest.raises(StorageError) as info:
        storage.load(path, strict=True)
    assert info.value.line == 2


def test_repair_never_cuts_a_complete_last_line(path: Path) -> None:
    path.write_bytes(COMPLETE_NOT_A_MESSAGE)
    assert storage.repair(path) is None
    assert path.read_bytes() == COMPLETE_NOT_A_MESSAGE


def _pretty_array(msgs: list[Message]) -> bytes:
    return json.dumps(to_api(msgs), indent=2).encode()


def _pretty_request(msgs: list[Message]) -> bytes:
    return json.dumps({"model": "m", "max_tokens": 5, "messages": to_api(msgs)}, indent=2).encode()


@pytest.mark.parametrize(
    "make",
    [lambda ms: to_json(ms), lambda ms: to_json(ms)[:-7], _pretty_array, _pretty_request],
    ids=["to_json", "to_json-cut", "pretty-array", "pretty-request"],
)
def test_repair_refuses_a_file_that_is_not_jsonl_and_leaves_it_whole(
    path: Path, make: Callable[[list[Message]], bytes]
) -> None:
    data = make(SESSION[:4])
    path.write_bytes(data)
    with pytest.raises(StorageError, match="not a JSONL session file"):
        storage.repair(path)
    assert path.read_bytes() == data


def test_append_after_a_json_array_refuses_and_names_it(path: Path) -> None:
    data = to_json(SESSION[:3])
    path.write_bytes(data)
    with pytest.raises(StorageError, match="not an object"):
        storage.append(path, SESSION[3:4])
    assert path.read_bytes() == data


# ---------------------------------------------------------------------------------------
# 4. Each line is one message: the fast path never merges lines
# ---------------------------------------------------------------------------------------

# Line 1 holds two messages, lines 2-3 hold one message split in two: joined with commas
# they make three messages, as many as there are lines.
NOT_ONE_PER_LINE = [
    b'{"role":"user","content":"a"},{"role":"user","content":"b"}',
    b'{"role":"user"',
    b'"content":"c"}',
]


def test_strict_load_refuses_lines_that_are_not_one_message_each(path: Path) -> None:
    path.write_bytes(b"\n".join(NOT_ONE_PER_LINE) + b"\n")
    with pytest.raises(StorageError) as info:
        storage.load(path, strict=True)
    assert info.value.line == 1
    result = storage.load(path)
    assert result.messages == []
    assert [(p.line, p.torn) for p in result.problems] == [(1, False), (2, False), (3, False)]


def test_lines_that_are_not_one_message_each_amid_good_lines(path: Path) -> None:
    good = [_line(m) for m in SESSION[:4]]
    path.write_bytes(b"\n".join(good[:2] + NOT_ONE_PER_LINE + good[2:]) + b"\n")
    result = storage.load(path)
    assert result.messages == SESSION[:4]
    assert result.line_numbers == (1, 2, 6, 7)
    assert [p.line for p in result.problems] == [3, 4, 5]


# ---------------------------------------------------------------------------------------
# 5. Hostile files: devices and FIFOs refused, reading in bounded blocks, MemoryError named
# ---------------------------------------------------------------------------------------


@pytest.fixture
def alarm() -> Iterator[None]:
    """Fail (instead of hanging the run) if a call blocks for 20 s, as reading a FIFO once did."""

    def expired(signum: int, frame: object) -> None:
        raise TimeoutError("blocked on a non-regular file")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def _special(kind: str, tmp_path: Path) -> Path:
    if kind == "fifo":
        fifo = tmp_path / "fifo.jsonl"
        os.mkfifo(fifo)
        return fifo
    return Path("/dev/zero")


OPERATIONS: dict[str, Callable[[Path], object]] = {
    "load": storage.load,
    "append": lambda p: storage.append(p, SESSION[:1]),
    "save": lambda p: storage.save(p, SESSION[:1]),
    "repair": storage.repair,
}


# ``save`` is never pointed at /dev/zero: a save that regressed to replacing what it is given
# would, run as root, replace the machine's /dev/zero with a regular file (main's save did).
@pytest.mark.skipif(not os.path.exists("/dev/zero") or not hasattr(os, "mkfifo"), reason="needs /dev/zero and FIFOs")
@pytest.mark.parametrize(
    ("kind", "operation"),
    [("fifo", op) for op in sorted(OPERATIONS)] + [("dev-zero", op) for op in ("append", "load", "repair")],
)
def test_storage_refuses_devices_and_fifos(tmp_path: Path, kind: str, operation: str, alarm: None) -> None:
    target = _special(kind, tmp_path)
    with pytest.raises(StorageError, match="not a regular file") as info:
        OPERATIONS[operation](target)
    assert info.value.path == str(target)
    assert stat.S_ISCHR(target.stat().st_mode) or stat.S_ISFIFO(target.stat().st_mode)  # left as it was


@pytest.mark.skipif(not os.path.exists("/dev/zero") or not hasattr(os, "mkfifo"), reason="needs /dev/zero and FIFOs")
@pytest.mark.parametrize("kind", ["dev-zero", "fifo"])
def test_import_and_check_refuse_devices_and_fifos(
    tmp_path: Path, kind: str, alarm: None, capsys: pytest.CaptureFixture[str]
) -> None:
    target = _special(kind, tmp_path)
    with pytest.raises(ClaudeCodeError, match="not a regular file"):
        import_claude_code(target)
    assert cli.main(["check", str(target)]) != 0
    out, err = capsys.readouterr()
    assert "not a regular file" in out + err
    assert "internal error" not in out + err


def _spy_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every ``os.read``/``os.pread`` the storage module makes."""
    sizes: list[int] = []
    for name in ("read", "pread"):
        real = getattr(os, name)

        def spy(*args: Any, _real: Any = real) -> Any:
            data = _real(*args)
            sizes.append(len(data))
            return data

        monkeypatch.setattr(os, name, spy)
    return sizes


def test_append_never_reads_a_huge_last_line_into_memory_at_once(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # One 3 MiB line without a newline (a JSON array, as to_json writes it): append used to read
    # it whole and decode it into objects (~3x the file) only to refuse it.
    big = [user_text("x" * 1000)] * 3000
    data = to_json(big)
    path.write_bytes(data)
    sizes = _spy_reads(monkeypatch)
    with pytest.raises(StorageError, match="not an object"):
        storage.append(path, SESSION[:1])
    monkeypatch.undo()
    assert max(sizes, default=0) <= 1 << 20
    assert path.read_bytes() == data


def test_load_reads_in_bounded_blocks(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    storage.save(path, [user_text("y" * 1000)] * 3000)  # 3 MiB
    size = path.stat().st_size
    sizes = _spy_reads(monkeypatch)
    result = storage.load(path)
    monkeypatch.undo()
    assert len(result.messages) == 3000
    assert sum(sizes) == size and max(sizes) <= 1 << 20


def test_load_out_of_memory_is_a_storage_error(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    storage.save(path, SESSION)

    def exhausted(*args: object, **kwargs: object) -> list[Message]:
        raise MemoryError

    monkeypatch.setattr(storage, "from_json", exhausted)
    with pytest.raises(StorageError, match="too large to load into memory") as info:
        storage.load(path)
    assert info.value.path == str(path)


# ---------------------------------------------------------------------------------------
# 6. Long file names
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["s" * 232 + ".jsonl", "s" * 244 + ".jsonl", "s" * 249 + ".jsonl", "é" * 127 + "x"])
def test_save_works_for_names_up_to_the_name_limit(tmp_path: Path, name: str) -> None:
    assert 238 <= len(os.fsencode(name)) <= 255
    target = tmp_path / name
    storage.save(target, SESSION[:3])
    storage.save(target, SESSION[:5])
    storage.append(target, SESSION[5:6])
    assert storage.load(target).messages == SESSION[:6]
    assert [p.name for p in tmp_path.iterdir()] == [name]  # no temporary file left


# ---------------------------------------------------------------------------------------
# 7. Only StorageError; symlinks and read-only files treated alike by save and append
# ---------------------------------------------------------------------------------------


class _Colour(enum.Enum):
    RED = "red"


class _Level(enum.IntEnum):
    HIGH = 3


def _tool_use(value: object) -> Message:
    return assistant_msg([ToolUseBlock("toolu_1", "calc", {"x": value})])


def _deep(depth: int) -> object:
    value: object = 0
    for _ in range(depth):
        value = {"a": value}
    return value


UNWRITABLE = {
    "nan": _tool_use(math.nan),
    "inf": _tool_use(math.inf),
    "-inf": _tool_use([1.0, -math.inf]),
    "nested-nan": _tool_use(_deep(50) | {"b": [math.nan]}),  # type: ignore[operator]
    "deep": _tool_use(_deep(200_000)),
    "complex": _tool_use(complex(1, 2)),
    "object": _tool_use(object()),
}


@pytest.mark.parametrize("write", ["save", "append"])
@pytest.mark.parametrize("bad", sorted(UNWRITABLE))
def test_values_json_cannot_hold_are_a_storage_error(path: Path, write: str, bad: str) -> None:
    storage.save(path, SESSION[:2])
    before = path.read_bytes()
    with pytest.raises(StorageError, match=r"messages\[1\] cannot be written as JSON"):
        getattr(storage, write)(path, [SESSION[2], UNWRITABLE[bad]])
    assert path.read_bytes() == before


COERCED: dict[str, tuple[Any, str]] = {  # each was written changed before: load gave back another value
    "bytes": ({"b": b"\x00\x01"}, "b"),  # as base64 text
    "set": ({"s": {1, 2}}, "s"),  # as an array
    "tuple": ({"t": [0, (1, 2)]}, "t[1]"),  # as an array
    "int-key": ({"d": {1: "x"}}, "d"),  # as the key "1"
    "date": ({"d": datetime.date(2024, 1, 1)}, "d"),  # as text
    "enum": ({"e": _Colour.RED}, "e"),  # as its value, "red"
}


@pytest.mark.parametrize("write", ["save", "append"])
@pytest.mark.parametrize("bad", sorted(COERCED))
def test_values_json_would_give_back_changed_are_refused_with_their_path(path: Path, write: str, bad: str) -> None:
    storage.save(path, SESSION[:2])
    before = path.read_bytes()
    value, where = COERCED[bad]
    with pytest.raises(StorageError, match=rf"messages\[1\]\.content\[0\]\.input\.x\.{re.escape(where)} cannot"):
        getattr(storage, write)(path, [SESSION[2], _tool_use(value)])
    assert path.read_bytes() == before
    extra = assistant_msg([TextBlock("x", extra={"meta": value})])
    with pytest.raises(StorageError, match=rf"messages\[0\]\.content\[0\]\.meta\.{re.escape(where)} cannot"):
        getattr(storage, write)(path, [extra])
    assert path.read_bytes() == before


def test_an_int_or_str_enum_is_saved_as_the_int_or_str_it_is(path: Path) -> None:
    # As the module says: an IntEnum/StrEnum is an int/str, so it is saved as one and reads back equal.
    storage.save(path, [_tool_use({"level": _Level.HIGH})])
    (back,) = storage.load(path, strict=True).messages
    assert to_api([back])[0]["content"][0]["input"] == {"x": {"level": 3}}
    assert type(to_api([back])[0]["content"][0]["input"]["x"]["level"]) is int


@pytest.mark.parametrize("write", ["save", "append"])
def test_save_and_append_write_through_a_symlink(tmp_path: Path, write: str) -> None:
    target, link = tmp_path / "real.jsonl", tmp_path / "link.jsonl"
    storage.save(target, SESSION[:2])
    link.symlink_to(target.name)
    getattr(storage, write)(link, SESSION[2:4])
    assert link.is_symlink() and os.readlink(link) == target.name
    expected = SESSION[2:4] if write == "save" else SESSION[:4]
    assert storage.load(target).messages == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.jsonl", "real.jsonl"]


@pytest.mark.parametrize("write", ["save", "append"])
def test_save_and_append_write_through_a_dangling_symlink(tmp_path: Path, write: str) -> None:
    target, link = tmp_path / "real.jsonl", tmp_path / "link.jsonl"
    link.symlink_to(target.name)
    getattr(storage, write)(link, SESSION[:2])
    assert link.is_symlink() and storage.load(target).messages == SESSION[:2]


@pytest.mark.parametrize("write", ["save", "append"])
def test_save_and_append_refuse_a_read_only_file(path: Path, write: str) -> None:
    storage.save(path, SESSION[:2])
    before = path.read_bytes()
    path.chmod(0o444)
    try:
        with pytest.raises(StorageError, match="read-only"):
            getattr(storage, write)(path, SESSION[2:4])
        assert path.read_bytes() == before
        assert stat.S_IMODE(path.stat().st_mode) == 0o444
    finally:
        path.chmod(0o644)


# ---------------------------------------------------------------------------------------
# Found by the second adversarial run
# ---------------------------------------------------------------------------------------


def test_a_tail_too_deep_to_judge_is_neither_cut_nor_appended_after(tmp_path: Path) -> None:
    # _is_complete_json took a RecursionError for "complete": from deep in a call stack, a torn deep
    # tail was appended after (buried mid-file) and repair cut nothing.
    import sys

    p = tmp_path / "deep.jsonl"
    storage.append(p, [user_text("a")])
    with p.open("ab") as f:
        f.write(b'{"role":"user","content":' + b"[" * 5000)  # torn, and deeper than the recursion limit
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:

        def deep(n: int) -> None:
            if n:
                deep(n - 1)
                return
            with pytest.raises(StorageError, match="nested too deeply to tell"):
                storage.append(p, [user_text("b")])
            with pytest.raises(StorageError, match="nested too deeply to tell"):
                storage.repair(p)

        deep(600)
    finally:
        sys.setrecursionlimit(limit)
    assert storage.load(p).messages == [user_text("a")]


def test_load_strips_only_jsons_whitespace(tmp_path: Path) -> None:
    p = tmp_path / "ff.jsonl"
    p.write_bytes(b'\x0c{"role":"user","content":"a"}\x0b\n{"role":"assistant","content":"b"}\n')
    with pytest.raises(StorageError, match=":1:"):
        storage.load(p, strict=True)


@pytest.mark.parametrize(
    "bad",
    [
        Message(role="tool", content="x"),  # type: ignore[arg-type]
        Message(role="user", content=[1]),  # type: ignore[list-item]
    ],
)
def test_save_and_append_refuse_a_mistyped_message_with_storage_error(tmp_path: Path, bad: Message) -> None:
    for write in (storage.save, storage.append):
        with pytest.raises(StorageError, match=r"messages\[0\]"):
            write(tmp_path / "s.jsonl", [bad])
    assert not (tmp_path / "s.jsonl").exists()


def test_a_nul_in_the_path_is_a_storage_error(tmp_path: Path) -> None:
    bad = str(tmp_path / "a\x00b.jsonl")
    for call in (storage.load, storage.repair, lambda p: storage.save(p, []), lambda p: storage.append(p, [])):
        with pytest.raises(StorageError, match="NUL"):
            call(bad)
    with pytest.raises(StorageError, match="NUL"), storage.lock(bad):
        pass


@pytest.mark.parametrize("extra", [{"text": "y"}, {"type": "image"}, {}])
def test_a_block_whose_extra_would_be_dropped_is_a_storage_error_not_a_stop_iteration(path: Path, extra: Any) -> None:
    # Before, an extra repeating a core key (dropped from the wire form) or an empty extra (read back
    # as None) differed only in the struct, so the walk down the wire forms found no difference and
    # save raised a bare StopIteration.
    with pytest.raises(StorageError, match=r"messages\[0\]"):
        storage.save(path, [assistant_msg([TextBlock("x", extra=extra)])])
    assert not path.exists()
