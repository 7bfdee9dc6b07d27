"""How core opens the files it reads and writes: regular files only, and an inter-process lock.

Regular files only
    ``open_regular`` opens without blocking (``O_NONBLOCK``, so a FIFO cannot stall the open)
    and refuses anything that is not a regular file: a directory (``IsADirectoryError``), a
    device such as ``/dev/zero`` or a FIFO or socket (``NotRegularFileError``). Reading
    ``/dev/zero`` would never end; reading a FIFO could block forever. ``read_regular_file``
    reads a whole file that way.

The lock
    ``locked(path, exclusive=...)`` holds ``fcntl.flock`` on the file itself. A writer that
    replaces the file (``os.replace`` in ``storage.save``) locks the new file *before* the
    rename and hands it over with ``Lock.adopt``; whoever was waiting on the old file finds,
    once it gets the lock, that the path now names another file, and locks that one instead.
    So the lock follows the path across replacements and no lock file is left beside it.

    Within one thread the lock is re-entrant: a ``locked`` call on a file the thread already
    holds returns the held lock (this is what lets a caller hold it across ``load`` and
    ``save``). Other threads and other processes wait; so does a child forked while the
    parent holds it (the child closes its copies of the parent's lock descriptors).

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
from contextlib import contextmanager

__all__ = ["Lock", "NotRegularFileError", "lock_new_file", "locked", "open_regular", "read_regular_file"]


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


def read_regular_file(path: str | os.PathLike[str]) -> bytes:
    """The whole content of a regular file (``OSError`` otherwise, see ``open_regular``)."""
    with os.fdopen(open_regular(os.fspath(path), os.O_RDONLY), "rb") as f:
        return f.read()


def _identity(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


def _flock(fd: int, operation: int) -> None:
    """``flock``, or nothing where the file system has none."""
    try:
        fcntl.flock(fd, operation)
    except OSError as e:
        if e.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL):
            raise


def lock_new_file(fd: int) -> None:
    """Lock a file nobody else can have open yet (a fresh temporary file), before it is renamed into place."""
    _flock(fd, fcntl.LOCK_EX)


class Lock:
    """A ``flock`` this thread holds on one file: the descriptor that holds it and the file's identity."""

    def __init__(self, fd: int, exclusive: bool) -> None:
        self.fd = fd
        self.exclusive = exclusive
        self.key = _identity(os.fstat(fd))

    def adopt(self, fd: int) -> None:
        """Hold the lock through ``fd`` instead: a new file (see ``lock_new_file``) just renamed over the path.

        The old file's lock is released; its waiters see that the path has moved on and lock the new one.
        """
        held = _held()
        held.pop(self.key, None)
        old, self.fd, self.key = self.fd, fd, _identity(os.fstat(fd))
        held[self.key] = self
        os.close(old)


_local = threading.local()


def _held() -> dict[tuple[int, int], Lock]:
    held: dict[tuple[int, int], Lock] | None = getattr(_local, "held", None)
    if held is None:
        held = _local.held = {}
    return held


def _forget_after_fork() -> None:
    """A forked child holds none of its parent's locks: it closes its copies and waits like anyone else."""
    for lock in _held().values():
        os.close(lock.fd)
    _held().clear()


os.register_at_fork(after_in_child=_forget_after_fork)


def _open_locked(path: str, exclusive: bool, create: bool) -> int:
    """Open ``path`` and lock it; retry until the locked file is still the one the path names."""
    flags = os.O_RDONLY | (os.O_CREAT if create else 0)
    while True:
        fd = open_regular(path, flags)
        try:
            _flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            try:
                now = _identity(os.stat(path))
            except FileNotFoundError:
                now = None
            if now == _identity(os.fstat(fd)):
                return fd
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # replaced or removed while we waited: lock what the path names now


@contextmanager
def locked(path: str, *, exclusive: bool, create: bool = False) -> Iterator[Lock]:
    """Hold ``flock`` on the file ``path`` names (shared or exclusive) for the ``with`` block.

    ``create`` makes an empty file if there is none. Re-entrant within a thread. Raises
    ``OSError`` (``FileNotFoundError``, ``IsADirectoryError``, ``NotRegularFileError``, ...).
    """
    held = _held()
    try:
        mine = held.get(_identity(os.stat(path)))
    except FileNotFoundError:
        mine = None
    if mine is not None and (mine.exclusive or not exclusive):
        yield mine
        return
    lock = Lock(_open_locked(path, exclusive, create), exclusive)
    held[lock.key] = lock
    try:
        yield lock
    finally:
        held.pop(lock.key, None)
        os.close(lock.fd)
