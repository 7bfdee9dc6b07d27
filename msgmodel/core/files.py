"""How core opens the files it reads and writes: regular files only, and an inter-process lock.

Regular files only
    ``open_regular`` opens without blocking (``O_NONBLOCK``, so a FIFO cannot stall the open)
    and refuses anything that is not a regular file: a directory (``IsADirectoryError``), a
    device such as ``/dev/zero`` or a FIFO or socket (``NotRegularFileError``). Reading
    ``/dev/zero`` would never end; reading a FIFO could block forever. ``read_regular_file``
    reads a whole file that way.

The lock
    ``locked(path, exclusive=...)`` holds ``fcntl.flock`` on the file itself. A writer that
    replaces the file (``os.replace`` in ``storage.save``) locks the new file (``open_locked``)
    *before* the rename and hands it over with ``Lock.adopt``; whoever was waiting on the old file
    finds, once it gets the lock, that the path now names another file, and locks that one instead.
    So the lock follows the path across replacements and no lock file is left beside it.

    It is re-entrant for its holder only: the code that took it, what it calls and what inherits
    its ``contextvars`` context (tasks it starts, ``asyncio.to_thread``, not ``run_in_executor``),
    whose calls run one at a time. Other threads and processes wait. Another asyncio task (or
    context) on the holder's thread cannot wait, as that would stall its event loop and the
    holder with it: ``locked`` raises ``HeldInThisThreadError`` for it at once.

    A forked child holds none of its parent's locks, whichever thread took them: each descriptor
    a lock is (or is about to be) taken through is registered as it is opened, under a guard a
    fork waits for, and the child closes them all. (``flock`` and open-file-description locks
    belong to the open file, which a fork shares: closing the child's copies is the only way.)

    ``flock`` is advisory: it orders the programs that take it, not an editor or ``echo >>``.
    Where the file system has no ``flock`` (some FUSE mounts answer ``ENOLCK`` or
    ``EOPNOTSUPP``), ``locked`` proceeds without a lock rather than fail.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from contextvars import ContextVar

__all__ = [
    "HeldInThisThreadError",
    "Lock",
    "NotRegularFileError",
    "discard",
    "locked",
    "open_locked",
    "open_regular",
    "read_regular_file",
]


class NotRegularFileError(OSError):
    """The path names a device, FIFO or socket, which core refuses to read or write."""


def _kind(mode: int) -> str:
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def open_regular(path: str, flags: int, mode: int = 0o666) -> int:
    """``os.open`` that never blocks on a FIFO and refuses anything but a regular file."""
    fd = os.open(path, flags | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory, not a file", path)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFileError(errno.EINVAL, f"is {_kind(st.st_mode)}, not a regular file; refusing it", path)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular_file(path: str | os.PathLike[str], limit: int = -1) -> bytes:
    """A regular file's content, its first ``limit`` bytes if given (``OSError`` otherwise, see ``open_regular``)."""
    with os.fdopen(open_regular(os.fspath(path), os.O_RDONLY), "rb") as f:
        return f.read(limit)


def _identity(file: int | str) -> tuple[int, int] | None:
    """The device and inode of an open file, or of the file a path names (``None``: there is none)."""
    try:
        st = os.stat(file)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino


def _flock(fd: int, operation: int) -> None:
    """``flock``, or nothing where the file system has none."""
    try:
        fcntl.flock(fd, operation)
    except OSError as e:
        if e.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL):
            raise


class HeldInThisThreadError(OSError):
    """Another task (or context) on this thread holds the file's lock: waiting for it would never end."""


_guard = threading.Lock()  # held while a lock's descriptor is opened or closed; a fork waits for it
_descriptors: dict[int, Lock | None] = {}  # every descriptor a lock is or will be held through, and its Lock
_mine: ContextVar[tuple[Lock, ...]] = ContextVar("msgmodel_files_locks", default=())  # the holder's locks


def discard(fd: int, lock: Lock | None = None) -> None:
    """Close a lock's descriptor (``lock``'s, or one not yet held by a ``Lock``, as ``open_locked`` returns)."""
    with _guard:
        if fd in _descriptors and _descriptors[fd] is lock:  # not a copy a forked child has closed already
            del _descriptors[fd]
            os.close(fd)


def _forget_after_fork() -> None:
    """A forked child holds none of its parent's locks: it closes its copies and waits like anyone else."""
    for fd in _descriptors:
        os.close(fd)
    _descriptors.clear()
    _guard.release()


os.register_at_fork(before=_guard.acquire, after_in_parent=_guard.release, after_in_child=_forget_after_fork)


def open_locked(path: str, flags: int, *, exclusive: bool) -> int:
    """Open ``path`` and lock it; retry until the locked file is still the one the path names.

    A new file (``O_CREAT | O_EXCL``) is locked before anyone can see it: for ``Lock.adopt``, or ``discard``."""
    while True:
        with _guard:
            fd = open_regular(path, flags)
            _descriptors[fd] = None
        try:
            _flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            if _identity(path) == _identity(fd):
                return fd
        except BaseException:
            discard(fd)
            raise
        discard(fd)  # replaced or removed while we waited: lock what the path names now


class Lock:
    """A ``flock`` held on one file: the descriptor that holds it, the file's identity, the thread that took it."""

    def __init__(self, fd: int, exclusive: bool) -> None:
        self.fd, self.exclusive, self.key, self.thread = fd, exclusive, _identity(fd), threading.get_ident()
        self.turn = threading.RLock()  # taken by each of the holder's calls: one at a time, from any thread
        _descriptors[fd] = self

    def adopt(self, fd: int) -> None:
        """Hold the lock through ``fd`` instead: a new file (see ``open_locked``) just renamed over the path.

        The old file's lock is released; its waiters see that the path has moved on and lock the new one.
        """
        old = self.fd
        _descriptors[fd] = self  # before self.fd moves: at no moment does the lock look released
        self.fd, self.key = fd, _identity(fd)
        discard(old, self)


@contextmanager
def locked(path: str, *, exclusive: bool, create: bool = False, block: bool = False) -> Iterator[Lock]:
    """Hold ``flock`` on the file ``path`` names (shared or exclusive) for the ``with`` block.

    ``create`` makes an empty file if there is none. Re-entrant for its holder (see the module
    docstring), whose calls run one at a time (its threads too) unless ``block`` says the ``with``
    block is the caller's own, which may ``await``. Raises ``OSError`` (``FileNotFoundError``,
    ``IsADirectoryError``, ``NotRegularFileError``, ``HeldInThisThreadError``, ...).
    """
    with ExitStack() as turns:
        for x in _mine.get():  # no call of the holder sees another's save between its rename and adopt
            if _descriptors.get(x.fd) is x:  # still held (a forked child holds none, nor their turns)
                turns.enter_context(x.turn)
        key = _identity(path)
        mine = next((x for x in _mine.get() if x.key == key and _descriptors.get(x.fd) is x), None)
        if mine is not None and (mine.exclusive or not exclusive):
            if block:
                turns.close()
            yield mine
            return
    if any(x and x.key == key and x.thread == threading.get_ident() for x in list(_descriptors.values())):
        raise HeldInThisThreadError(
            errno.EDEADLK,
            "its lock is held by another task on this thread (a storage.lock block held across an await?), which "
            "waiting here would stall for good; to wait for it, run this call in a thread (asyncio.to_thread)",
            path,
        )
    lock = Lock(open_locked(path, os.O_RDONLY | (os.O_CREAT if create else 0), exclusive=exclusive), exclusive)
    _mine.set((*_mine.get(), lock))
    try:
        yield lock
    finally:
        _mine.set(tuple(x for x in _mine.get() if x is not lock))
        discard(lock.fd, lock)
