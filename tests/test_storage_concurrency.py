"""Several processes on one session file: appenders, a repair loop, a locked load -> save loop and a reader.

Issue 11 (defects 2 and 3): a concurrent ``repair`` cut other processes' in-flight appends,
appenders failed spuriously with "torn line", and a ``load -> save`` loop dropped what was
appended in between. Here nothing acknowledged may be lost and no call may fail. Issue 20
(items 6 and 7): a child forked by one thread while another held the lock kept it, and a
second coroutine on the holder's event loop appended straight through it.
"""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from msgmodel.core import files, storage
from msgmodel.core.message import Message, text_of, user_text
from msgmodel.core.storage import StorageError

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


def _started_by_another_thread(process: Any) -> Any:
    """``process.start()`` in a new thread: the fork happens there, not in the thread that holds the lock."""
    starter = threading.Thread(target=process.start)
    starter.start()
    starter.join()
    return process


def _seconds_to_append(path: str, limit: float) -> float:
    """How long an append from a thread of this process waits for the lock (``limit`` if it is still waiting)."""
    done = threading.Event()
    started = time.monotonic()
    threading.Thread(target=lambda: (storage.append(path, [user_text("later")]), done.set()), daemon=True).start()
    return time.monotonic() - started if done.wait(limit) else limit


def test_a_child_forked_by_another_thread_holds_none_of_the_lock(tmp_path: Path) -> None:
    # Issue 20, item 6: only the forking thread's locks were closed in the child. A child forked by one
    # thread while another held storage.lock kept the flock (others waited until it exited: 6.0 s), and
    # a child appending to the file deadlocked on its own inherited copy.
    path = str(tmp_path / "forked.jsonl")
    storage.save(path, [user_text("old")])
    ctx = mp.get_context("fork")
    stop = ctx.Event()
    children = []
    try:
        with storage.lock(path):
            children.append(_started_by_another_thread(ctx.Process(target=stop.wait, args=(60,))))
            appender = _started_by_another_thread(ctx.Process(target=storage.append, args=(path, [user_text("child")])))
            children.append(appender)
            appender.join(timeout=0.5)
            assert appender.is_alive()  # it waits for the lock
            storage.save(path, [user_text("parent")])
        appender.join(timeout=10)
        assert appender.exitcode == 0, "the child deadlocked on its inherited copy of the lock"
        waited = _seconds_to_append(path, 5.0)
        assert waited < 2.0, f"an append waited {waited:.1f} s for a lock only the sleeping child still held"
    finally:
        stop.set()
        for child in children:
            child.join(timeout=5)
            child.kill()
    assert [text_of(m) for m in storage.load(path).messages] == ["parent", "child", "later"]


def test_a_child_forked_while_a_thread_waits_for_the_lock_holds_none_of_it(tmp_path: Path) -> None:
    # The waiting thread has opened the file and waits in flock: a child forked then shares that open
    # file, and would hold the lock as soon as the waiter gets it, unless it closed its copy too.
    path = str(tmp_path / "waiting.jsonl")
    storage.save(path, [user_text("old")])
    ctx = mp.get_context("fork")
    stop = ctx.Event()
    sleeper = None
    try:
        with storage.lock(path):
            waiter = threading.Thread(target=storage.append, args=(path, [user_text("waiter")]))
            waiter.start()
            time.sleep(0.2)  # the waiter is in flock now
            sleeper = _started_by_another_thread(ctx.Process(target=stop.wait, args=(60,)))
        waiter.join(timeout=10)
        waited = _seconds_to_append(path, 5.0)
        assert waited < 2.0, f"an append waited {waited:.1f} s for a lock only the sleeping child still held"
    finally:
        stop.set()
        if sleeper is not None:
            sleeper.join(timeout=5)
            sleeper.kill()
    assert [text_of(m) for m in storage.load(path).messages] == ["old", "waiter", "later"]


def _in_a_thread(main: Callable[[], Any], limit: float = 30.0) -> None:
    """``asyncio.run(main())`` in a thread, failing (not hanging the run) if its event loop stalls."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(main())
        except BaseException as e:
            errors.append(e)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(limit)
    if t.is_alive():
        for fd, lock in list(files._descriptors.items()):  # free threads stuck in flock, so the run can end
            files.discard(fd, lock)
        pytest.fail("the event loop stalled")
    if errors:
        raise errors[0]


def test_another_coroutine_cannot_append_through_a_lock_held_across_an_await(tmp_path: Path) -> None:
    # Issue 20, item 7: the lock was re-entrant per thread, so on one event loop a second coroutine's
    # append went straight through while the first held the lock across an await, returned as saved,
    # and the first one's save then erased it.
    path = str(tmp_path / "tasks.jsonl")
    storage.save(path, [user_text("start")])
    acked: list[str] = []
    refused: list[StorageError] = []

    async def rewriter() -> None:
        with storage.lock(path):
            loaded = storage.load(path).messages
            await asyncio.sleep(0.1)  # the other coroutine runs here
            storage.save(path, [*loaded, user_text("rewritten")])

    async def appender() -> None:
        await asyncio.sleep(0.02)
        try:
            storage.append(path, [user_text("appended")])
        except StorageError as e:
            refused.append(e)
        else:
            acked.append("appended")

    async def main() -> None:
        await asyncio.gather(rewriter(), appender())

    _in_a_thread(main)
    texts = [text_of(m) for m in storage.load(path).messages]
    assert set(acked) <= set(texts), f"an acknowledged append was lost: {texts}"
    assert texts == ["start", "rewritten"]
    (error,) = refused
    assert error.path == path and "another task" in error.reason and "asyncio.to_thread" in error.reason


def test_a_coroutine_waits_for_the_lock_through_to_thread_and_the_holders_own_tasks_go_through(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / "tasks.jsonl")
    storage.save(path, [user_text("start")])

    async def rewriter() -> None:
        with storage.lock(path):
            await asyncio.sleep(0.1)  # the waiter starts waiting here

            async def task() -> None:
                storage.append(path, [user_text("task")])

            # the holder's own calls: a task it starts and a thread it hands its context to (to_thread)
            await asyncio.create_task(task())
            await asyncio.to_thread(storage.append, path, [user_text("thread")])
            storage.save(path, [*storage.load(path).messages, user_text("rewritten")])

    async def waiter() -> None:
        await asyncio.sleep(0.02)
        await asyncio.to_thread(storage.append, path, [user_text("waited")])  # waits in its own thread

    async def main() -> None:
        await asyncio.gather(rewriter(), waiter())

    _in_a_thread(main)
    assert [text_of(m) for m in storage.load(path).messages] == ["start", "task", "thread", "rewritten", "waited"]


@pytest.fixture
def renamed(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Set when a save has renamed its new file over the path; the save then stays 0.2 s before handing
    the lock over to the new file, as on a slow file system."""
    rename, event = os.replace, threading.Event()

    def slow_rename(src: str, dst: str) -> None:
        rename(src, dst)
        event.set()
        time.sleep(0.2)

    monkeypatch.setattr(os, "replace", slow_rename)
    return event


def test_the_holders_calls_from_several_threads_run_one_at_a_time(tmp_path: Path, renamed: threading.Event) -> None:
    # Threads the holder hands its context to (asyncio.to_thread) are the holder too. An append in
    # one of them while a save in another was between its rename and the lock's hand-over took the
    # new file for someone else's and waited for it forever.
    path = str(tmp_path / "threads.jsonl")
    storage.save(path, [user_text("start")])
    renamed.clear()  # that save was not the one to watch

    async def holder() -> None:
        with storage.lock(path):
            save = asyncio.ensure_future(asyncio.to_thread(storage.save, path, [user_text("saved")]))
            await asyncio.to_thread(renamed.wait, 5)
            await asyncio.to_thread(storage.append, path, [user_text("appended")])
            await save
            more = [asyncio.to_thread(storage.save, path, [user_text(f"v{i}")] * 9) for i in range(4)]
            await asyncio.gather(*more, *(asyncio.to_thread(storage.load, path) for _ in range(4)))

    _in_a_thread(holder, limit=20)
    assert files._descriptors == {}  # every lock's descriptor closed, none lost in a race
    assert _seconds_to_append(path, 5.0) < 2.0
    texts = [text_of(m) for m in storage.load(path).messages]
    assert len(texts) == 10 and len(set(texts[:9])) == 1 and texts[9] == "later"  # the last save, whole


def test_a_child_forked_while_a_thread_of_the_holder_saves_waits_like_anyone(
    tmp_path: Path, renamed: threading.Event
) -> None:
    # The child inherits the holder's context, but none of its locks, nor the turn a thread of the
    # holder (which the child does not have) was taking when the fork happened.
    path = str(tmp_path / "turn.jsonl")
    storage.save(path, [user_text("start")])
    renamed.clear()  # that save was not the one to watch
    child = mp.get_context("fork").Process(target=storage.append, args=(path, [user_text("child")]))

    async def holder() -> None:
        with storage.lock(path):
            save = asyncio.ensure_future(asyncio.to_thread(storage.save, path, [user_text("saved")]))
            await asyncio.to_thread(renamed.wait, 5)
            child.start()  # forked while the save holds its turn
            await save

    _in_a_thread(holder, limit=20)
    child.join(timeout=10)
    try:
        assert child.exitcode == 0, "the child waited for a turn no thread of its own could give back"
    finally:
        child.kill()
    assert [text_of(m) for m in storage.load(path).messages] == ["saved", "child"]
