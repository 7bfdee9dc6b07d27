"""A seeded, bounded fuzz run of storage on damaged files (issue 11): nothing but StorageError, no line lost.

Each round builds a session file from good lines, damaged lines (garbage, JSON that is not
a message, a message split over two lines, two messages on one line), blank and CRLF lines
and a byte-order mark, then ends it the way crashes and hands leave files: cut at a random
byte (a kill during a write), garbage appended, or a complete message without its newline.
Then ``load``, ``load(strict=True)``, ``repair`` and ``append`` must raise nothing but
``StorageError`` and must never drop, change or reorder a complete message line.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

from msgmodel.core import storage
from msgmodel.core.message import Message, to_api, user_text
from msgmodel.core.storage import StorageError
from msgmodel.course.synth import synth_session

SEED = 20261201
BUDGET_S = 10.0  # stop early on a slow machine; the rounds run are the same prefix of one seeded sequence
ROUNDS = 400

POOL = [*synth_session(80, seed=SEED), user_text("U+2028:\u2028 NUL:\x00 \u00e9 \U0001f600"), user_text("")]


def _line(m: Message, rng: random.Random) -> bytes:
    separators = (", ", ": ") if rng.random() < 0.3 else (",", ":")
    return json.dumps(to_api([m])[0], ensure_ascii=rng.random() < 0.5, separators=separators).encode()


def _garbage(rng: random.Random) -> bytes:
    junk = bytes(rng.choice(b'{}[]",:0123456789aeflnrstu \t\r\\\xff\xc3') for _ in range(rng.randrange(1, 40)))
    return junk if junk.strip() else b"x" + junk


def _merging(rng: random.Random) -> list[bytes]:
    """Three lines that joined with commas make three messages: two on one line, then one split over two."""
    a, b, c = (json.dumps(to_api([rng.choice(POOL)])[0]).encode() for _ in range(3))
    cut = c.index(b",") + 1
    return [a + b"," + b, c[:cut], c[cut:]]


def _damage(rng: random.Random) -> list[bytes]:
    """One to three lines that are not one message each."""
    a = json.dumps(to_api([rng.choice(POOL)])[0]).encode()
    choice = rng.randrange(5)
    if choice == 0:
        return [_garbage(rng)]
    if choice == 1:
        return [b'{"role":"tool","content":"x"}']
    if choice == 2:
        return _merging(rng)
    if choice == 3:
        cut = a.index(b",") + 1
        return [a[:cut], a[cut:]]  # one message split over two lines
    return [b"[" + a + b"]"]


def _build(rng: random.Random) -> tuple[bytes, dict[int, Message], set[int]]:
    """A file, its complete message lines (line number -> message) and its damaged lines, before any tail."""
    out: list[bytes] = [b"\xef\xbb\xbf"] if rng.random() < 0.1 else []
    good: dict[int, Message] = {}
    bad: set[int] = set()
    n = 0
    only_merging = rng.random() < 0.2  # the one damage a fast path that joins lines could miss
    count = rng.randrange(0, 25)
    merge_at = rng.randrange(count + 1)
    for i in range(count + 1):
        r = rng.random()
        if only_merging and i == merge_at:
            lines, damaged = _merging(rng), True
        elif only_merging or r < 0.7:
            if i == count:
                break
            m = rng.choice(POOL)
            lines, damaged = [_line(m, rng)], False
            good[n + 1] = m
        elif r < 0.85:
            lines, damaged = _damage(rng), True
        else:
            lines, damaged = [b"" if rng.random() < 0.5 else b"  \t"], False
        for line in lines:
            n += 1
            if damaged:
                bad.add(n)
            out.append(line + (b"\r\n" if rng.random() < 0.1 and not only_merging else b"\n"))
    return b"".join(out), good, bad


def _tail(
    rng: random.Random, data: bytes, good: dict[int, Message], bad: set[int]
) -> tuple[bytes, dict[int, Message], set[int], str]:
    how = rng.randrange(5)
    if how == 0:
        return data, good, bad, "clean"
    if how == 1:  # a kill in the middle of an append: a strict prefix of a message line
        whole = json.dumps(to_api([rng.choice(POOL)])[0]).encode()
        return data + whole[: rng.randrange(1, len(whole))], good, bad, "torn"
    lines = data.count(b"\n")
    if how == 2:  # a complete message without its newline
        m = rng.choice(POOL)
        return data + json.dumps(to_api([m])[0]).encode(), {**good, lines + 1: m}, bad, "complete"
    if how == 3:  # complete JSON that is not a message, without its newline: damage, never torn
        array = json.dumps(to_api(POOL[:2])).encode()  # as to_json writes a session
        tail = rng.choice([b'{"role":"tool","content":"complete line"}', array])
        return data + tail, good, bad | {lines + 1}, "json"
    # cut anywhere (a kill during a bigger write), or garbage appended
    if rng.random() < 0.5 and data:
        cut = rng.randrange(len(data))
        kept = data[:cut].count(b"\n")
        return data[:cut], {k: v for k, v in good.items() if k <= kept}, {k for k in bad if k <= kept}, "cut"
    return data + _garbage(rng), good, bad, "garbage"


def _check_round(path: Path, rng: random.Random) -> None:
    data, good, bad, how = _tail(rng, *_build(rng))
    path.write_bytes(data)

    result = storage.load(path)
    loaded = dict(zip(result.line_numbers, result.messages, strict=True))
    assert {n: loaded.get(n) for n in good} == good, how  # every complete message line, unchanged
    assert list(result.line_numbers) == sorted(result.line_numbers)
    assert bad <= {p.line for p in result.problems if not p.torn}, how  # every damaged line is reported
    assert all(not p.torn for p in result.problems[:-1])
    if how == "torn":
        assert result.torn is not None
    if how in ("complete", "json"):
        assert result.torn is None
    damaged = any(not p.torn for p in result.problems)
    try:
        strict = storage.load(path, strict=True)
    except StorageError as e:
        assert damaged and e.line == next(p.line for p in result.problems if not p.torn)
    else:
        assert not damaged and strict == result

    last_newline = data.rfind(b"\n") + 1
    try:
        cut = storage.repair(path)
    except StorageError:
        assert path.read_bytes() == data  # refused: untouched
    else:
        after = path.read_bytes()
        assert (cut is None) == (after == data)
        if cut is not None:
            assert after == data[:last_newline] and result.torn is not None
        assert {n: m for n, m in zip(*_numbered(path), strict=True) if n in good} == good

    before = path.read_bytes()
    extra = rng.choice(POOL)
    try:
        storage.append(path, [extra])
    except StorageError:
        assert path.read_bytes() == before
    else:
        numbers, messages = _numbered(path)
        again = dict(zip(numbers, messages, strict=True))
        assert {n: again.get(n) for n in good} == good
        assert messages[-1] == extra


def _numbered(path: Path) -> tuple[tuple[int, ...], list[Message]]:
    result = storage.load(path)
    return result.line_numbers, result.messages


def test_storage_fuzz_never_raises_anything_but_storage_error_and_never_drops_a_line(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    path = tmp_path / "fuzz.jsonl"
    deadline = time.monotonic() + BUDGET_S
    rounds = 0
    while rounds < ROUNDS and time.monotonic() < deadline:
        seed = rng.randrange(1 << 32)
        try:
            _check_round(path, random.Random(seed))
        except AssertionError as e:
            raise AssertionError(f"round {rounds} (seed {seed}): {e}") from e
        rounds += 1
    assert rounds >= 20
