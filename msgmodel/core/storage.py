"""Sessions on disk: one ``Message`` per line of a JSONL file, written so a crash loses nothing acknowledged.

This module owns msgmodel's own session files. Each line is one message in the API's JSON
shape (exactly what ``msgmodel.core.message``'s codec writes for it), ending in ``\\n``. Reading
is lossless: thinking signatures, unknown block kinds and extra fields come back exactly.

Writing
    ``save(path, messages)`` replaces the file atomically: it writes a temporary file in the
    same directory, flushes and fsyncs it, ``os.replace``\\ s it over ``path`` and fsyncs the
    directory. After a crash the file is either the old complete version or the new one
    (a stray ``.<name>.<random>.tmp`` may be left beside it; it is never read).

    ``append(path, messages)`` opens the file with ``O_APPEND``, writes whole lines in one
    call and fsyncs before it returns. A message is *acknowledged* once ``append`` returns:
    it survives any later crash. A crash inside ``append`` can leave a *torn* last line
    (the file ends in the middle of a line).

Reading
    ``load(path)`` returns a ``LoadResult``: the messages, and one ``LineProblem`` per line
    it could not use, each naming ``file:line`` and why. A torn last line is reported
    (``result.torn``) and everything before it loads: that is exactly the acknowledged
    prefix. A bad line anywhere else is damage, not a crash artefact: it is reported and
    skipped, and ``load(path, strict=True)`` raises ``StorageError`` naming its ``file:line``
    instead. Blank lines are ignored, a UTF-8 byte-order mark at the start is ignored, and
    ``\\r\\n`` line ends are read like ``\\n`` (JSON allows the ``\\r``). Lines are split on
    ``\\n`` only, so U+2028, U+0085 and friends inside strings are just text.

A torn last line and ``append``
    ``append`` refuses to write after a torn last line (``StorageError`` naming the line):
    appending would bury the fragment mid-file, where every later load would report it as
    damage. ``repair(path)`` cuts the fragment off explicitly (it was never acknowledged,
    so nothing acknowledged is lost) and says what it cut. If the last line is a complete
    message that merely lacks its ``\\n`` (a hand edit), ``append`` adds the newline first:
    that loses nothing.

One exception type: ``StorageError`` (a ``ValueError``), always naming the file and, for a
bad line, ``file:line``.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterable, Sequence
from typing import Final

import msgspec

from msgmodel.core.message import DecodeError, Message, from_api, from_json, to_json

__all__ = ["LineProblem", "LoadResult", "StorageError", "append", "load", "repair", "save"]

_BOM: Final = b"\xef\xbb\xbf"
_TAIL_BLOCK: Final = 64 * 1024


class StorageError(ValueError):
    """A session file that cannot be read or written as asked.

    ``path`` is the file, ``line`` the 1-based line number when one line is at fault
    (else ``None``), ``reason`` what is wrong. ``str(err)`` is ``file:line: reason``.
    """

    def __init__(self, path: str, line: int | None, reason: str) -> None:
        self.path = path
        self.line = line
        self.reason = reason
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {reason}")


class LineProblem(msgspec.Struct, frozen=True):
    """One line ``load`` could not turn into a message: where, why, and whether it is a torn tail."""

    file: str
    line: int
    reason: str
    torn: bool = False
    """True for the last line of a file that ends mid-line (an interrupted write)."""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.reason}"


class LoadResult(msgspec.Struct, frozen=True):
    """What ``load`` read: the messages, the line each came from, and the lines it could not use."""

    path: str
    messages: list[Message]
    line_numbers: tuple[int, ...]
    """The 1-based file line of each message, parallel to ``messages``."""
    problems: tuple[LineProblem, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether every line loaded (no damage, no torn tail)."""
        return not self.problems

    @property
    def torn(self) -> LineProblem | None:
        """The torn last line, if the file ends mid-line."""
        last = self.problems[-1] if self.problems else None
        return last if last is not None and last.torn else None


# ---------------------------------------------------------------------------------------
# One message per line
# ---------------------------------------------------------------------------------------


# TODO(message.py): candidate codec function (one message to/from its JSON object).
# msgspec encodes a one-element list as "[" + item + "]", byte for byte, so the slice is
# exactly the codec's encoding of the message (the fast path, extras and opaque blocks
# included); decoding wraps the line back into a one-element array.
def _encode_line(m: Message) -> bytes:
    return to_json([m])[1:-1]


def _encode_lines(name: str, messages: Iterable[Message]) -> bytes:
    parts: list[bytes] = []
    for i, m in enumerate(messages):
        if not isinstance(m, Message):
            raise TypeError(
                f"messages[{i}] is a {type(m).__name__}, not a Message (convert API dicts with msgmodel.from_api)"
            )
        try:
            parts.append(_encode_line(m))
        except (UnicodeEncodeError, msgspec.EncodeError, TypeError, ValueError) as e:
            raise StorageError(name, None, f"messages[{i}] cannot be written as JSON ({e})") from e
        parts.append(b"\n")
    return b"".join(parts)


def _decode_line(line: bytes) -> Message:
    """One line as a message; ``DecodeError`` with a path relative to the line (``$.content[0]``)."""
    try:
        messages = from_json(b"[" + line + b"]")
    except DecodeError:
        pass  # diagnose below, against the line itself, so the error text is about the line
    else:
        if len(messages) == 1:
            return messages[0]
    try:
        value = msgspec.json.decode(line)
    except msgspec.DecodeError as e:
        raise DecodeError("$", f"expected one JSON object per line ({e})") from None
    except RecursionError:
        raise DecodeError("$", "expected JSON nested less deeply") from None
    try:
        return from_api([value])[0]
    except DecodeError as e:
        path = "$" + e.path[len("$[0]") :] if e.path.startswith("$[0]") else e.path
        raise DecodeError(path, e.expected) from None


def _reason(err: DecodeError, line: bytes) -> str:
    reason = f"{err.path}: {err.expected}"
    # A line of another tool's format gets a pointer to the right reader.
    from msgmodel.core.claude_code import is_claude_code_session

    if is_claude_code_session([line]):
        reason += " (this is a Claude Code transcript line: read it with msgmodel.core.claude_code.import_claude_code)"
    return reason


# ---------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise StorageError(path, None, "no such file") from None
    except IsADirectoryError:
        raise StorageError(path, None, "is a directory, not a session file") from None
    except OSError as e:
        raise StorageError(path, None, f"cannot read: {e.strerror or e}") from e


def load(path: str | os.PathLike[str], *, strict: bool = False) -> LoadResult:
    """Read a session file written by ``save``/``append``.

    Returns every message that decodes, with a ``LineProblem`` for each line that does
    not. A torn last line is reported (``result.torn``) and the lines before it load. With
    ``strict=True`` a bad line other than a torn tail raises ``StorageError`` naming
    ``file:line``; a torn tail never raises (it is what a crash during ``append`` leaves).
    A missing or unreadable file raises ``StorageError``.
    """
    name = os.fspath(path)
    data = _read(name)
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    cut = data.rfind(b"\n") + 1
    body, tail = data[:cut], data[cut:]  # tail: b"" unless the file ends mid-line
    count = body.count(b"\n")

    messages: list[Message] | None = None
    line_numbers: list[int] = []
    if count:
        # Fast path: a clean file (no blank lines) decodes as one array, one message per line.
        # A blank line makes ",," (invalid JSON) and two objects on one line make the count
        # differ, so both fall through to the line-by-line path.
        try:
            decoded = from_json(b"[" + body[:-1].replace(b"\n", b",") + b"]")
        except DecodeError:
            decoded = None
        if decoded is not None and len(decoded) == count:
            messages, line_numbers = decoded, list(range(1, count + 1))
    problems: list[LineProblem] = []
    lines = body.split(b"\n")[:-1] if messages is None else []
    numbered = [(i + 1, line) for i, line in enumerate(lines) if line.strip()]
    if messages is None and numbered and len(numbered) != count:
        # Blank lines: the fast path on the others.
        try:
            decoded = from_json(b"[" + b",".join(line for _, line in numbered) + b"]")
        except DecodeError:
            decoded = None
        if decoded is not None and len(decoded) == len(numbered):
            messages, line_numbers = decoded, [n for n, _ in numbered]
    if messages is None:
        messages, line_numbers = [], []
        for n, line in numbered:
            try:
                messages.append(_decode_line(line))
            except DecodeError as e:
                problem = LineProblem(name, n, _reason(e, line))
                if strict:
                    raise StorageError(name, n, problem.reason) from None
                problems.append(problem)
                continue
            line_numbers.append(n)

    if tail.strip():
        n = count + 1
        try:
            messages.append(_decode_line(tail))
            line_numbers.append(n)
        except DecodeError:
            problems.append(
                LineProblem(
                    name,
                    n,
                    f"torn last line: {len(tail)} bytes without a final newline (an interrupted write); "
                    "the lines before it loaded",
                    torn=True,
                )
            )
    return LoadResult(name, messages, tuple(line_numbers), tuple(problems))


# ---------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _fsync_dir(directory: str) -> None:
    """Make a rename or a new file in ``directory`` durable (POSIX; a no-op where dirs cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse fsync on a directory; the rename is then as durable as they allow
    finally:
        os.close(fd)


def save(path: str | os.PathLike[str], messages: Sequence[Message]) -> None:
    """Write ``messages`` as the whole session file, atomically and durably.

    Temp file in the same directory, flush + fsync, ``os.replace`` over ``path``, fsync the
    directory. A crash at any moment leaves either the old file or the new one, complete.
    An existing file keeps its permission bits.
    """
    name = os.fspath(path)
    data = _encode_lines(name, messages)
    directory = os.path.dirname(os.path.abspath(name))
    tmp = os.path.join(directory, f".{os.path.basename(name)}.{secrets.token_hex(6)}.tmp")
    try:
        mode = os.stat(name).st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    except OSError as e:
        raise StorageError(name, None, f"cannot write: {e.strerror or e}") from e
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as e:
        raise StorageError(name, None, f"cannot write a temporary file in {directory}: {e.strerror or e}") from e
    try:
        try:
            _write_all(fd, data)
            if mode is not None:
                os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, name)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError):
            raise StorageError(name, None, f"cannot write: {e.strerror or e}") from e
        raise
    _fsync_dir(directory)


def _last_line_start(fd: int, size: int) -> int:
    """Offset just after the last ``\\n`` in the file (0 if there is none)."""
    end = size
    while end > 0:
        start = max(0, end - _TAIL_BLOCK)
        block = os.pread(fd, end - start, start)
        cut = block.rfind(b"\n")
        if cut >= 0:
            return start + cut + 1
        end = start
    return 0


def _count_lines(fd: int, upto: int) -> int:
    count, offset = 0, 0
    while offset < upto:
        block = os.pread(fd, min(1 << 20, upto - offset), offset)
        if not block:
            break
        count += block.count(b"\n")
        offset += len(block)
    return count


def _torn_tail(fd: int, name: str) -> tuple[int, int, bytes] | None:
    """If the file does not end in ``\\n``: (line number, start offset, bytes) of its last line."""
    size = os.fstat(fd).st_size
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return None
    start = _last_line_start(fd, size)
    tail = os.pread(fd, size - start, start)
    return _count_lines(fd, start) + 1, start, tail


def _tail_is_message(tail: bytes, at_start: bool) -> bool | None:
    """None if the tail is blank, True if it is one complete message, False if it is a fragment."""
    body = tail[len(_BOM) :] if at_start and tail.startswith(_BOM) else tail
    if not body.strip():
        return None
    try:
        _decode_line(body)
    except DecodeError:
        return False
    return True


def append(path: str | os.PathLike[str], messages: Iterable[Message]) -> None:
    """Append ``messages`` to the session file (created if missing), durably.

    Whole lines in one ``O_APPEND`` write, then fsync; once this returns the messages
    survive a crash. Raises ``StorageError`` if the file ends in a torn line (see
    ``repair``); a complete last line that lacks its newline gets one first.
    """
    name = os.fspath(path)
    data = _encode_lines(name, messages)
    if not data:
        return
    existed = os.path.exists(name)
    try:
        fd = os.open(name, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o666)
    except OSError as e:
        raise StorageError(name, None, f"cannot open for appending: {e.strerror or e}") from e
    try:
        tail = _torn_tail(fd, name)
        if tail is not None:
            line, start, fragment = tail
            complete = _tail_is_message(fragment, start == 0)
            if complete is False:
                raise StorageError(
                    name,
                    line,
                    f"the file ends with a torn line ({len(fragment)} bytes without a newline, from an "
                    "interrupted write); refusing to append after it. Call msgmodel.core.storage.repair(path) to "
                    "cut it off (it was never acknowledged), then append again",
                )
            if complete is True:
                data = b"\n" + data
        _write_all(fd, data)
        os.fsync(fd)
    except OSError as e:
        raise StorageError(name, None, f"cannot append: {e.strerror or e}") from e
    finally:
        os.close(fd)
    if not existed:
        _fsync_dir(os.path.dirname(os.path.abspath(name)))


def repair(path: str | os.PathLike[str]) -> LineProblem | None:
    """Cut a torn last line off the file, durably; return what was cut (``None`` if nothing was torn).

    Only an unterminated last line that is not a complete message is cut: it is what a crash
    during ``append`` leaves and was never acknowledged. Damage elsewhere is left alone
    (``load`` reports it); nothing else is changed.
    """
    name = os.fspath(path)
    try:
        fd = os.open(name, os.O_RDWR)
    except FileNotFoundError:
        raise StorageError(name, None, "no such file") from None
    except OSError as e:
        raise StorageError(name, None, f"cannot open for repair: {e.strerror or e}") from e
    try:
        tail = _torn_tail(fd, name)
        if tail is None:
            return None
        line, start, fragment = tail
        if _tail_is_message(fragment, start == 0) is not False:
            return None
        os.ftruncate(fd, start)
        os.fsync(fd)
    except OSError as e:
        raise StorageError(name, None, f"cannot repair: {e.strerror or e}") from e
    finally:
        os.close(fd)
    return LineProblem(name, line, f"cut a torn last line of {len(fragment)} bytes", torn=True)
