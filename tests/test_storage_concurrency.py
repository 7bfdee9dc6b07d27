"""Several processes on one session file: appenders, a repair loop, a locked load -> save loop and a reader.

Issue 11 (defects 2 and 3): a concurrent ``repair`` cut other processes' in-flight appends,
appenders failed spuriously with "torn line", and a ``load -> save`` loop dropped what was
appended in between. Here nothing acknowledged may be lost and no call may fail.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from msgmodel.core import storage
from msgmodel.core.message import Message, text_of, user_text

WRITERS = 4
PER_WRITER = 24
PADDING = user_text("p" * 100_000)  # big writes stay in flight long enough for a racing reader to see them

pytestmark = pytest.mark.skipif(sys.platform == "win32" or not hasattr(os, "fork"), reason="needs fork and flock")


def _text(w: int, i: int) -> str:
    return f"w{w}-{i}"


def _writer(path: str, w: int, results: Any) -> None:
    acked = 0
    try:
        i = 0
        while i < PER_WRITER:
            k = min(1 + (i + w) % 3, PER_WRITER - i)
            storage.append(path, [user_text(_text(w, i + j)) for j in range(k)] + [PADDING])
            i += k
            acked = i
        results.put(("acked", w, acked))
    except BaseException as e:
        results.put(("error", w, f"writer {w} after {acked} acked: {e!r}"))


def _repairer(path: str, stop: Any, results: Any) -> None:
    rounds = 0
    try:
        while not stop.is_set():
            cut = storage.repair(path)
            if cut is not None:
                results.put(("error", -1, f"repair cut {cut} from a file no one crashed on"))
            rounds += 1
        results.put(("rounds", -1, rounds))
    except BaseException as e:
        results.put(("error", -1, f"repair: {e!r}"))


def _rewriter(path: str, stop: Any, results: Any) -> None:
    rounds = 0
    try:
        while not stop.is_set():
            with storage.lock(path):
                loaded = storage.load(path, strict=True)
                if not loaded.ok:
                    results.put(("error", -2, f"load under the lock saw {loaded.problems}"))
                storage.save(path, loaded.messages)
            rounds += 1
        results.put(("rounds", -2, rounds))
    except BaseException as e:
        results.put(("error", -2, f"load -> save: {e!r}"))


def _reader(path: str, stop: Any, results: Any) -> None:
    rounds = 0
    try:
        while not stop.is_set():
            loaded = storage.load(path, strict=True)
            if not loaded.ok:
                results.put(("error", -3, f"a concurrent load saw {loaded.problems}"))
            rounds += 1
        results.put(("rounds", -3, rounds))
    except BaseException as e:
        results.put(("error", -3, f"load: {e!r}"))


def _by_writer(messages: list[Message]) -> dict[int, list[int]]:
    seen: dict[int, list[int]] = {w: [] for w in range(WRITERS)}
    for m in messages:
        if m == PADDING:
            continue
        w, i = text_of(m)[1:].split("-")
        seen[int(w)].append(int(i))
    return seen


def test_appenders_repair_and_locked_load_save_lose_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.jsonl")
    storage.save(path, [user_text("start")])
    ctx = mp.get_context("fork")
    results = ctx.Queue()
    stop = ctx.Event()
    loops = [ctx.Process(target=f, args=(path, stop, results)) for f in (_repairer, _rewriter, _reader)]
    writers = [ctx.Process(target=_writer, args=(path, w, results)) for w in range(WRITERS)]
    for p in loops + writers:
        p.start()
    for p in writers:
        p.join(timeout=60)
    stop.set()
    for p in loops:
        p.join(timeout=30)
    for p in loops + writers:
        assert not p.is_alive(), "a process hung"
        assert p.exitcode == 0
    events = [results.get(timeout=5) for _ in range(WRITERS + len(loops))]
    errors = [text for kind, _, text in events if kind == "error"]
    assert errors == []
    acked = {w: n for kind, w, n in events if kind == "acked"}
    assert acked == dict.fromkeys(range(WRITERS), PER_WRITER)

    final = storage.load(path, strict=True)
    assert final.ok
    assert text_of(final.messages[0]) == "start"
    # every acknowledged message is there exactly once, each writer's in the order it wrote them
    assert _by_writer(final.messages[1:]) == {w: list(range(PER_WRITER)) for w in range(WRITERS)}
    rounds = {w: n for kind, w, n in events if kind == "rounds"}
    assert all(n > 0 for n in rounds.values()), rounds  # each loop really ran beside the writers


def test_a_child_forked_inside_the_lock_waits_for_it(tmp_path: Path) -> None:
    # The child inherits the parent's lock descriptors; it must not take them for its own lock.
    path = str(tmp_path / "forked.jsonl")
    storage.save(path, [user_text("old")])
    ctx = mp.get_context("fork")
    with storage.lock(path):
        child = ctx.Process(target=storage.append, args=(path, [user_text("child")]))
        child.start()
        child.join(timeout=0.5)  # an append that does not wait for the lock is done by now
        storage.save(path, [user_text("parent")])  # and would be dropped by this save
    child.join(timeout=30)
    assert child.exitcode == 0
    assert [text_of(m) for m in storage.load(path).messages] == ["parent", "child"]
