"""Sessions on disk: one ``Message`` per line of a JSONL file, written so a crash loses nothing acknowledged.

This module owns msgmodel's own session files. Each line is one message in the API's JSON
shape (exactly what ``msgmodel.core.message``'s codec writes for it), ending in ``\\n``. Reading
is lossless: thinking signatures, unknown block kinds and extra fields come back exactly.

The session header
    The first line may be a ``SessionHeader`` instead: what the conversation is held with (the
    ``model``, the ``system`` prompt, the ``tools`` definitions, a ``session_id``, and the
    application's own ``metadata``), written as ``{"msgmodel_session": 1, ...}``.
    ``save(path, messages, header=...)`` writes it, ``load(path).header`` reads it back equal
    (``None`` for a file without one: every older file loads as before). Keys it does not know
    (from a newer writer) are kept in ``extra`` and written back. It is only valid as the first
    line: anywhere else such a line is damage. To start a session, ``save(path, [], header=...)``,
    then ``append`` as usual (``append`` never writes a header).

Writing
    ``save(path, messages)`` replaces the file atomically: it writes a temporary file in the
    same directory, flushes and fsyncs it, ``os.replace``\\ s it over ``path`` and fsyncs the
    directory. After a crash the file is either the old complete version or the new one
    (a stray ``.<name>.<random>.tmp`` may be left beside it; it is never read; for a name
    near the 255-byte limit the ``<name>`` part is shortened).

    ``append(path, messages)`` opens the file with ``O_APPEND``, writes whole lines in one
    call and fsyncs before it returns. A message is *acknowledged* once ``append`` returns:
    it survives any later crash. A crash inside ``append`` can leave a *torn* last line
    (the file ends in the middle of a line). ``append`` reads only the file's last line.

    Both write through a symbolic link to its target (the link stays a link) and both refuse
    a read-only file (one without any write permission bit, even for root, or one this
    process may not write). Both raise ``StorageError`` for a message JSON cannot hold: a
    lone surrogate, NaN or infinity (refused, never written as ``null``), nesting too deep
    to encode, or a value JSON would give back changed (bytes, a set, a tuple, an int key, a date,
    an ``Enum``: msgspec writes them as text, arrays or string keys; an ``IntEnum``/``StrEnum`` is an
    int/str, saved as one), naming its path. What ``load`` returns equals what was written. Passing something
    that is not a ``Message`` is a ``TypeError``.

Reading
    ``load(path)`` returns a ``LoadResult``: the messages, and one ``LineProblem`` per line
    it could not use, each naming ``file:line`` and why. It reads the file in 1 MiB blocks
    and decodes a block's lines together only after checking that each line is exactly one
    JSON value, so a line is one message or a problem, never half of one (a message split
    over two lines, or two on one line, is damage); memory is the messages plus a block.
    A bad line is reported and skipped, and ``load(path, strict=True)`` raises
    ``StorageError`` naming its ``file:line`` instead.
    Blank lines are ignored, a UTF-8 byte-order mark at the start is ignored, and ``\\r\\n``
    line ends are read like ``\\n`` (JSON allows the ``\\r``). Lines are split on ``\\n``
    only, so U+2028, U+0085 and friends inside strings are just text. A file too large for
    memory is a ``StorageError``. Only regular files are read or written: a directory, a
    device such as ``/dev/zero``, a FIFO or a socket is refused with ``StorageError``.

Torn last lines
    A last line without its ``\\n`` is *torn* only if its bytes are not complete JSON: that is what an interrupted
    write leaves. A complete message that merely lacks its ``\\n`` (a hand edit) loads, and ``append`` adds the
    newline first (after any complete JSON object: one that is not a message stays what it was, damage). A complete
    JSON value that is not a message is damage like any other bad line (``strict`` raises for it); after one that is
    not even an object (a JSON array) ``append`` refuses to write. ``load`` reports a torn tail (``result.torn``) and
    never raises for it, even with ``strict``: everything before it is exactly the acknowledged prefix. ``append``
    refuses to write after a torn tail (it would bury the fragment mid-file); ``repair(path)`` cuts it off (it was
    never acknowledged) and says what it cut. ``repair`` refuses a file that is not JSONL (a JSON array,
    pretty-printed JSON) instead of cutting; if the first line is damaged, the cut is kept in ``<path>.torn`` (one
    line per cut).

Several processes
    ``append``, ``save`` and ``repair`` hold an exclusive ``flock`` on the file while they
    work and ``load`` a shared one (``msgmodel.core.files`` owns the lock; it follows the
    path across ``save``'s rename). So on one machine, on a local file system, any number
    of processes and threads may append, save, repair and load the same file at once: no
    acknowledged message is lost, no in-flight write is taken for a torn line, no call
    fails because of another. ``save`` replaces the whole file, so a ``load`` → change →
    ``save`` cycle drops what others appended in between unless it holds the lock across
    the cycle: ``with storage.lock(path): ... load ... save ...`` (re-entrant for its holder; see ``lock``).
    Not covered: network file systems (NFS, SMB: ``flock`` may be emulated or missing and
    ``O_APPEND`` is not atomic there), several machines sharing one file, and programs that
    write the file without this lock (an editor, ``echo >>``). A reader that takes no lock
    (``cat``, ``tail -f``) is safe but may see an append in flight as a torn last line.
    The lock is held only while a call works (or for a ``lock`` block): a process that
    stops inside a ``lock`` block stalls the file's other users until it exits.

One exception type: ``StorageError`` (a ``ValueError``), always naming the file and, for a
bad line, ``file:line``.
"""

from __future__ import annotations

import contextlib
import errno
import math
import mmap
import os
import re
import secrets
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Final, Literal

import msgspec

from msgmodel.core import files
from msgmodel.core.message import (
    ContentBlock,
    DecodeError,
    Message,
    block_to_api,
    blocks_from_api,
    from_api,
    from_json,
    to_api,
    to_json,
)

__all__ = [
    "HEADER_KEY",
    "LineProblem",
    "LoadResult",
    "SessionHeader",
    "StorageError",
    "append",
    "header_from_json",
    "load",
    "lock",
    "repair",
    "save",
]

_BOM: Final = b"\xef\xbb\xbf"
_READ_BLOCK: Final = 1 << 20


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


HEADER_KEY: Final = "msgmodel_session"
"""The key that marks a session header line; its value is the header format's version, 1."""


class SessionHeader(msgspec.Struct, frozen=True, kw_only=True):
    """The optional first line of a session file: what the conversation is held with.

    ``model`` and ``tools`` (the request's tool definitions, as the API takes them) are what
    ``msgmodel check`` validates the session with; ``system`` is the top-level system prompt
    (a string or text blocks, read with the model's codec); ``session_id`` and ``metadata`` are
    the application's. ``extra`` keeps keys a newer writer added, written back unchanged.
    """

    session_id: str | None = None
    model: str | None = None
    system: str | list[ContentBlock] | None = None
    tools: list[dict[str, Any]] | None = None
    metadata: dict[str, Any] | None = None
    extra: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The header line as a JSON object (``HEADER_KEY`` first, then the fields that are set)."""
        out: dict[str, Any] = {HEADER_KEY: 1}
        for key in ("session_id", "model", "system", "tools", "metadata"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value if key != "system" or isinstance(value, str) else [block_to_api(b) for b in value]
        out.update((k, v) for k, v in (self.extra or {}).items() if k not in out)
        return out


def header_from_json(obj: object) -> SessionHeader:
    """A ``SessionHeader`` from its JSON object; ``DecodeError`` naming the field that is wrong."""
    if not isinstance(obj, dict) or HEADER_KEY not in obj:
        raise DecodeError("$", f"expected a session header object with `{HEADER_KEY}`")
    version = obj[HEADER_KEY]
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise DecodeError(
            f"$.{HEADER_KEY}", f"expected the header format's version, a whole number >= 1, got {version!r}"
        )
    fields: dict[str, Any] = {}
    for key, kind, check in _HEADER_FIELDS:
        value = obj.get(key)
        if value is not None and not check(value):
            raise DecodeError(f"$.{key}", f"expected {kind}, got {type(value).__name__}")
        fields[key] = value
    if isinstance(fields["system"], list):
        fields["system"] = blocks_from_api(fields["system"], path="$.system")
    extra = {k: v for k, v in obj.items() if k != HEADER_KEY and k not in fields}
    return SessionHeader(**fields, extra=extra or None)


_HEADER_FIELDS: Final[tuple[tuple[str, str, Any], ...]] = (
    ("session_id", "a string", lambda v: isinstance(v, str)),
    ("model", "a string", lambda v: isinstance(v, str)),
    ("system", "a string or an array of text blocks", lambda v: isinstance(v, (str, list))),
    (
        "tools",
        "an array of tool definitions (objects)",
        lambda v: isinstance(v, list) and all(isinstance(t, dict) for t in v),
    ),
    ("metadata", "an object", lambda v: isinstance(v, dict)),
)
_HEADER_MARK: Final = f'"{HEADER_KEY}"'.encode()


class LoadResult(msgspec.Struct, frozen=True):
    """What ``load`` read: the session header (if the file has one), the messages, the line each came from,
    and the lines it could not use."""

    path: str
    messages: list[Message]
    line_numbers: tuple[int, ...]
    """The 1-based file line of each message, parallel to ``messages``."""
    problems: tuple[LineProblem, ...] = ()
    header: SessionHeader | None = None
    """The file's session header, ``None`` when its first line is a message (or it has no line)."""

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


# TODO(message.py): candidate codec function (one message to/from its JSON object). msgspec encodes a
# one-element list as "[" + item + "]", byte for byte, so the slice is exactly the codec's encoding of
# the message (fast path, extras and opaque blocks included); decoding wraps the line back in an array.
def _encode_line(m: Message) -> bytes:
    return to_json([m])[1:-1]


def _non_finite(value: object) -> float | None:
    """The first NaN or infinity anywhere in plain JSON-like data (iteratively: any depth), else None."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, float) and not math.isfinite(v):
            return v
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
    return None


def _encode_lines(name: str, given: Iterable[Message]) -> bytes:
    messages = list(given)
    parts: list[bytes] = []
    for i, m in enumerate(messages):
        if not isinstance(m, Message):
            raise TypeError(
                f"messages[{i}] is a {type(m).__name__}, not a Message (convert API dicts with msgmodel.from_api)"
            )
        if m.role not in ("user", "assistant", "system"):
            raise StorageError(
                name, None, f"messages[{i}] has role {m.role!r}; a message is 'user', 'assistant' or 'system'"
            )
        try:
            line = _encode_line(m)
            # msgspec writes NaN and infinity as null; only a line holding a null can hide one.
            bad = _non_finite(to_api([m])) if b"null" in line else None
        except RecursionError:
            raise StorageError(name, None, f"messages[{i}] cannot be written as JSON (nested too deeply)") from None
        except Exception as e:  # a hand-built Message holding what no block is (msgspec checks no types)
            raise StorageError(
                name, None, f"messages[{i}] cannot be written as JSON ({type(e).__name__}: {e})"
            ) from None
        if bad is not None:
            raise StorageError(
                name, None, f"messages[{i}] cannot be written as JSON (it holds {bad}, which JSON cannot represent)"
            )
        parts.append(line)
        parts.append(b"\n")
    _refuse_coerced(name, parts, messages)
    return b"".join(parts)


def _encode_header(name: str, header: SessionHeader) -> bytes:
    """The header line; ``TypeError`` for what is not a header, ``StorageError`` for one JSON cannot hold as it is."""
    if not isinstance(header, SessionHeader):
        raise TypeError(f"header is a {type(header).__name__}, not a SessionHeader")
    wire = header.to_json()
    try:
        line = _HEADER_ENCODER.encode(wire)
        back = header_from_json(msgspec.json.decode(line))
    except (TypeError, ValueError, RecursionError) as e:  # msgspec's EncodeError is a ValueError, so is DecodeError
        raise StorageError(
            name, None, f"the session header cannot be written as JSON ({type(e).__name__}: {e})"
        ) from None
    if back != header or _non_finite(wire) is not None:
        raise StorageError(
            name, None, "the session header cannot be written as JSON as it is (it would read back changed)"
        )
    return line + b"\n"


_HEADER_ENCODER: Final = msgspec.json.Encoder()


def _refuse_coerced(name: str, parts: list[bytes], wanted: list[Message]) -> None:
    """``StorageError`` naming the JSON path of the first value the lines would read back changed.

    msgspec writes bytes as base64, a set or tuple as an array, an int key as a string, a date or an
    enum as text: load would return another value. One decode of the lines, compared, finds it."""
    try:
        back = from_json(b"[" + b",".join(parts[0::2]) + b"]") if wanted else []
    except DecodeError as e:  # a hand-built Message whose JSON is not a message (msgspec checks no types)
        raise StorageError(name, None, f"messages{e.path[1:]} cannot be written as JSON ({e.expected})") from None
    if back == wanted:
        return
    i = next(k for k, (a, b) in enumerate(zip(back, wanted, strict=True)) if a != b)
    here: Any = to_api([wanted[i]])[0]
    there: Any = to_api([back[i]])[0]
    path = f"messages[{i}]"
    while here != there and type(here) is type(there) and isinstance(here, (dict, list)):  # to the 1st difference
        if (here.keys() != there.keys()) if isinstance(here, dict) else (len(here) != len(there)):
            break
        k = next(k for k in (here if isinstance(here, dict) else range(len(here))) if here[k] != there[k])
        here, there, path = here[k], there[k], f"{path}.{k}" if isinstance(here, dict) else f"{path}[{k}]"
    kind = f"keys {sorted(map(repr, here))[:3]}" if isinstance(here, dict) else f"a {type(here).__name__} value"
    raise StorageError(name, None, f"{path} cannot be written as JSON as it is ({kind}: it would read back changed)")


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


def _is_complete_json(data: bytes | memoryview) -> bool | None:
    """Whether ``data`` is one whole JSON value (checked without building it); ``None``: nested too deeply to tell."""
    try:
        msgspec.json.decode(data, type=msgspec.Raw)
    except msgspec.DecodeError:
        return False
    except RecursionError:
        return None
    return True


def _reason(err: DecodeError, line: bytes) -> str:
    if _HEADER_MARK in line:
        return "a session header is only valid as the first line of a session file"
    reason = f"{err.path}: {err.expected}"
    # A line of another format gets a pointer to the right reader.
    from msgmodel.core.claude_code import is_claude_code_session

    if is_claude_code_session([line]):
        reason += " (this is a Claude Code transcript line: read it with msgmodel.core.claude_code.import_claude_code)"
    elif line.lstrip().startswith(b"[") and _is_complete_json(line) is True:
        reason += " (a JSON array, as to_json writes? read it with msgmodel.from_json)"
    return reason


_TailKind = Literal["blank", "object", "json", "torn", "deep"]
_NON_BLANK: Final = re.compile(rb"[^ \t\r\n]")


def _tail_kind(tail: bytes | memoryview, at_start: bool) -> _TailKind:
    """What an unterminated last line is: blank, a complete JSON object, other complete JSON, or a torn fragment."""
    if at_start and bytes(tail[: len(_BOM)]) == _BOM:
        tail = tail[len(_BOM) :]
    first = _NON_BLANK.search(tail)
    if first is None:
        return "blank"
    complete = _is_complete_json(tail)
    if complete is None:
        return "deep"  # neither torn nor whole as far as anyone can tell: never cut, never appended after
    if not complete:
        return "torn"
    return "object" if tail[first.start()] == ord("{") else "json"


def _os_error(name: str, e: OSError, doing: str) -> StorageError:
    if isinstance(e, FileNotFoundError) and doing in ("read", "repair"):
        return StorageError(name, None, "no such file")
    if isinstance(e, IsADirectoryError):
        return StorageError(name, None, "is a directory, not a session file")
    if isinstance(e, files.NotRegularFileError):
        return StorageError(name, None, e.strerror or str(e))
    return StorageError(name, None, f"cannot {doing}: {e.strerror or e}")


def _file_name(path: str | os.PathLike[str]) -> str:
    """The path as a string; ``StorageError`` for one no file can have (a NUL byte)."""
    name = os.fspath(path)
    if "\x00" in name:
        raise StorageError(name.replace("\x00", "\\x00"), None, "a file name cannot hold a NUL byte")
    return name


@contextlib.contextmanager
def lock(path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold the session file's inter-process lock for a ``load`` → change → ``save`` (or ``append``) cycle.

    Inside the ``with`` block the holder's ``load``, ``save``, ``append`` and ``repair`` of the file go
    ahead, one at a time (the holder: this code, what it calls, and the asyncio tasks and ``to_thread``
    calls it starts inside the block, which inherit its context); other threads and processes wait
    for the block to end, so nothing they append is dropped by the ``save``. Holding it across an
    ``await`` keeps it from the other tasks of the event loop, which cannot wait on the loop's own
    thread: their calls on the file raise ``StorageError`` at once (to wait, they run the call in a
    thread: ``await asyncio.to_thread(storage.append, ...)``). Creates an empty file if there is none.
    """
    name = _file_name(path)
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(files.locked(name, exclusive=True, create=True, block=True))
        except OSError as e:
            raise _os_error(name, e, "lock") from e
        yield


# ---------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------


def _lines(fd: int) -> Iterator[tuple[bytes, bool]]:
    """The file's lines, read in blocks: each without its ``\\n``, and whether it had one."""
    pending: list[bytes] = []
    while block := os.read(fd, _READ_BLOCK):
        parts = block.split(b"\n")
        if len(parts) == 1:
            pending.append(block)
            continue
        pending.append(parts[0])
        yield b"".join(pending), True
        for part in parts[1:-1]:
            yield part, True
        pending = [parts[-1]] if parts[-1] else []
    if pending:
        yield b"".join(pending), False


_RAW_DECODER: Final = msgspec.json.Decoder(list[msgspec.Raw])
_JSON_SPACE: Final = b" \t\r\n"


def _decode_batch(lines: list[bytes]) -> list[Message] | None:
    """Fast path: the (non-blank) lines decoded as one array, or None unless each line is exactly one message.

    Joined with commas, lines that are not one JSON value each could merge (a message split
    over two lines beside two objects on one line). So the array is first read as raw
    spans: if every span is exactly as long as its stripped line, span ``i`` *is* line ``i``.
    """
    stripped = [line.strip(_JSON_SPACE) for line in lines]  # JSON's whitespace only (not \x0b or \x0c)
    joined = b"[" + b",".join(stripped) + b"]"
    try:
        if list(map(len, _RAW_DECODER.decode(joined))) != list(map(len, stripped)):
            return None
        messages = from_json(joined)
    except (msgspec.DecodeError, RecursionError, DecodeError):
        return None
    return messages if len(messages) == len(lines) else None


class _Reader:
    """What ``load`` has read so far: messages with their line numbers, and the problems."""

    def __init__(self, name: str, strict: bool) -> None:
        self.name, self.strict = name, strict
        self.messages: list[Message] = []
        self.line_numbers: list[int] = []
        self.problems: list[LineProblem] = []
        self.header: SessionHeader | None = None
        self.first = True

    def add(self, batch: list[tuple[int, bytes]]) -> None:
        if self.first and batch:
            self.first = False
            n, line = batch[0]
            if _HEADER_MARK in line and self.is_header(n, line):
                batch = batch[1:]
        fast = _decode_batch([line for _, line in batch]) if batch else None
        if fast is not None:
            self.messages.extend(fast)
            self.line_numbers.extend(n for n, _ in batch)
            return
        for n, line in batch:
            try:
                self.messages.append(_decode_line(line))
            except DecodeError as e:
                self.problem(n, _reason(e, line))
            else:
                self.line_numbers.append(n)

    def is_header(self, n: int, line: bytes) -> bool:
        """Whether the first line is a session header: kept in ``self.header``, or reported if it is a bad one."""
        try:
            obj = msgspec.json.decode(line)
        except (msgspec.DecodeError, RecursionError):
            return False
        if not isinstance(obj, dict) or HEADER_KEY not in obj:
            return False
        try:
            self.header = header_from_json(obj)
        except DecodeError as e:
            self.problem(n, f"session header: {e.path}: {e.expected}")
        return True

    def problem(self, n: int, reason: str) -> None:
        if self.strict:
            raise StorageError(self.name, n, reason)
        self.problems.append(LineProblem(self.name, n, reason))

    def add_tail(self, n: int, line: bytes) -> None:
        """The last line, which has no ``\\n``: a message, damage, or (if not complete JSON) torn."""
        if _is_complete_json(line) is not False:  # whole, or too deep to tell: never called torn
            self.add([(n, line)])
            return
        reason = f"torn last line: {len(line)} bytes without a final newline (an interrupted write); "
        self.problems.append(LineProblem(self.name, n, reason + "the lines before it loaded", torn=True))


def _load(name: str, fd: int, strict: bool) -> LoadResult:
    reader = _Reader(name, strict)
    batch: list[tuple[int, bytes]] = []
    size = 0
    for n, (line, ended) in enumerate(_lines(fd), 1):
        if n == 1 and line.startswith(_BOM):
            line = line[len(_BOM) :]
        if not line.strip():
            continue
        if not ended:
            reader.add(batch)
            batch = []
            reader.add_tail(n, line)
            break
        batch.append((n, line))
        size += len(line)
        if size >= _READ_BLOCK:
            reader.add(batch)
            batch, size = [], 0
    reader.add(batch)
    return LoadResult(name, reader.messages, tuple(reader.line_numbers), tuple(reader.problems), reader.header)


def load(path: str | os.PathLike[str], *, strict: bool = False) -> LoadResult:
    """Read a session file written by ``save``/``append``.

    Returns every message that decodes, with a ``LineProblem`` for each line that does
    not. A torn last line is reported (``result.torn``) and the lines before it load. With
    ``strict=True`` a bad line other than a torn tail raises ``StorageError`` naming
    ``file:line``; a torn tail never raises (it is what a crash during ``append`` leaves).
    A missing, unreadable or non-regular file, or one too large for memory, raises ``StorageError``.
    """
    name = _file_name(path)
    try:
        with files.locked(name, exclusive=False), _opened(name, os.O_RDONLY) as fd:
            return _load(name, fd, strict)
    except OSError as e:
        raise _os_error(name, e, "read") from e
    except MemoryError:
        size = ""
        with contextlib.suppress(OSError):
            size = f" ({os.stat(name).st_size} bytes)"
        raise StorageError(name, None, f"too large to load into memory{size}") from None


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


def _refuse_read_only(fd: int, name: str) -> None:
    """``PermissionError`` for a file without any write bit (even for root) or one this process may not write."""
    if not os.fstat(fd).st_mode & 0o222 or not os.access(name, os.W_OK):
        raise PermissionError(errno.EACCES, "the file is read-only; refusing to write it", name)


def _temp_path(target: str) -> str:
    """``.<name>.<random>.tmp`` beside ``target``, ``<name>`` shortened to keep within the directory's name limit."""
    directory, base = os.path.split(target)
    suffix = f".{secrets.token_hex(6)}.tmp"
    try:
        limit = os.pathconf(directory or ".", "PC_NAME_MAX")
    except (OSError, ValueError):
        limit = 255
    stem = os.fsencode(base)[: max(1, limit - 1 - len(suffix))]
    return os.path.join(directory, "." + os.fsdecode(stem) + suffix)


def _replace(target: str, data: bytes, held: files.Lock) -> None:
    """Write ``data`` to a temporary file and rename it over ``target``, keeping ``held`` on the new file."""
    mode = os.fstat(held.fd).st_mode & 0o7777
    tmp = _temp_path(target)
    fd = files.open_locked(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, exclusive=True)  # locked before it is seen
    try:
        _write_all(fd, data)
        os.fchmod(fd, mode)
        os.fsync(fd)
        os.replace(tmp, target)
    except BaseException:
        files.discard(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    held.adopt(fd)


def save(path: str | os.PathLike[str], messages: Sequence[Message], *, header: SessionHeader | None = None) -> None:
    """Write ``messages`` as the whole session file, atomically and durably, after ``header`` if given.

    Temp file in the same directory, flush + fsync, ``os.replace`` over ``path``, fsync the
    directory. A crash at any moment leaves either the old file or the new one, complete.
    An existing file keeps its permission bits; a symbolic link is written through to its
    target; a read-only file is refused. Holds the file's lock (see the module docstring).
    """
    name = _file_name(path)
    data = _encode_lines(name, messages)
    if header is not None:
        data = _encode_header(name, header) + data
    target = os.path.realpath(name)
    existed = os.path.lexists(target)
    try:
        with files.locked(target, exclusive=True, create=True) as held:
            try:
                _refuse_read_only(held.fd, target)
                _replace(target, data, held)
            except BaseException:
                if not existed and os.fstat(held.fd).st_size == 0:
                    with contextlib.suppress(OSError):
                        os.unlink(target)  # the empty file the lock created: a failed save leaves no file
                raise
    except OSError as e:
        raise _os_error(name, e, "save") from e
    _fsync_dir(os.path.dirname(target))


def _count_lines(fd: int, upto: int) -> int:
    count, offset = 0, 0
    while offset < upto:
        block = os.pread(fd, min(_READ_BLOCK, upto - offset), offset)
        if not block:
            break
        count += block.count(b"\n")
        offset += len(block)
    return count


@contextlib.contextmanager
def _mapped(fd: int) -> Iterator[tuple[mmap.mmap | None, memoryview]]:
    """The file mapped read-only (no copy in memory; ``None`` and an empty view for an empty file)."""
    size = os.fstat(fd).st_size
    if size == 0:
        yield None, memoryview(b"")
        return
    with mmap.mmap(fd, size, access=mmap.ACCESS_READ) as mm, memoryview(mm) as view:
        yield mm, view


def _unterminated_tail(mm: mmap.mmap | None, view: memoryview) -> tuple[int, _TailKind]:
    """Where the last line starts and what it is (``blank`` if the file ends in ``\\n``). Reads only that line."""
    if mm is None or view[-1] == ord("\n"):
        return len(view), "blank"
    start = mm.rfind(b"\n") + 1
    with view[start:] as tail:
        return start, _tail_kind(tail, start == 0)


def _ends_in_newline(fd: int) -> bool:
    """Whether the file is empty or ends in ``\\n`` (the common case, answered without mapping the file)."""
    size = os.fstat(fd).st_size
    return size == 0 or os.pread(fd, 1, size - 1) == b"\n"


@contextlib.contextmanager
def _opened(name: str, flags: int, mode: int = 0o666) -> Iterator[int]:
    """``files.open_regular`` for the ``with`` block."""
    fd = files.open_regular(name, flags, mode)
    try:
        yield fd
    finally:
        os.close(fd)


def append(path: str | os.PathLike[str], messages: Iterable[Message]) -> None:
    """Append ``messages`` to the session file (created if missing), durably.

    Whole lines in one ``O_APPEND`` write, then fsync; once this returns the messages
    survive a crash. Raises ``StorageError`` if the file ends in a torn line (see
    ``repair``) or in complete JSON that is not an object; a complete last line that
    lacks its newline gets one first. Reads only the last line, through a read-only
    mapping (no copy). Holds the file's lock (see the module docstring).
    """
    name = _file_name(path)
    data = _encode_lines(name, messages)
    if not data:
        return
    existed = os.path.lexists(name)
    try:
        with files.locked(name, exclusive=True, create=True), _opened(name, os.O_RDWR | os.O_APPEND) as fd:
            _refuse_read_only(fd, name)
            start, size = 0, 0
            kind: _TailKind = "blank"
            if not _ends_in_newline(fd):
                with _mapped(fd) as (mm, view):
                    start, kind = _unterminated_tail(mm, view)
                    size = len(view)
            if kind in ("torn", "json", "deep"):
                raise StorageError(name, _count_lines(fd, start) + 1, _refusal(kind, size - start))
            if kind == "object":
                data = b"\n" + data
            _write_all(fd, data)
            os.fsync(fd)
    except OSError as e:
        raise _os_error(name, e, "append to it") from e
    if not existed:
        _fsync_dir(os.path.dirname(os.path.abspath(name)))


def _refusal(kind: _TailKind, size: int) -> str:
    if kind == "deep":
        return (
            f"the file ends with {size} bytes without a newline, nested too deeply to tell whether they are a "
            "whole message or a torn write; refusing to append after them (and repair leaves them alone)"
        )
    if kind == "torn":
        return (
            f"the file ends with a torn line ({size} bytes without a newline, from an interrupted write); "
            "refusing to append after it. Call msgmodel.core.storage.repair(path) to cut it off "
            "(it was never acknowledged), then append again; if repair refuses the file (its first line is "
            "damaged), save(path, load(path).messages) rewrites it with every line that loads"
        )
    return (
        f"the file ends with {size} bytes of JSON that is not an object and has no newline "
        "(not a msgmodel session file? a JSON array as to_json writes?); refusing to append after it"
    )


def _refuse_non_jsonl(name: str, mm: mmap.mmap | None, view: memoryview) -> bool:
    """``StorageError`` unless the first non-blank line is a JSON object (or, unterminated, starts as one).

    True for a JSONL file whose first line is damaged: it starts as an object, the next non-blank
    line is a whole object, and the file is not one JSON value (pretty-printed JSON)."""
    start, n, damaged = (len(_BOM) if bytes(view[: len(_BOM)]) == _BOM else 0), 1, 0  # damaged: its line
    while mm is not None and start < len(view):
        end = mm.find(b"\n", start)
        with view[start : len(view) if end < 0 else end] as line:
            first = _NON_BLANK.search(line)
            if first is not None:
                is_object = line[first.start()] == ord("{")
                if is_object and ((end < 0 and not damaged) or (end >= 0 and _is_complete_json(line) is not False)):
                    return damaged > 0
                if not (is_object and not damaged and end >= 0 and _is_complete_json(view) is False):
                    raise StorageError(
                        name,
                        damaged or n,
                        "not a JSONL session file: this first line is not one JSON object (a JSON array as to_json "
                        "writes? pretty-printed JSON?); repair only cuts the torn last line of a JSONL file, so it "
                        "leaves this file alone",
                    )
                damaged = n
        if end < 0:
            return damaged > 0
        start, n = end + 1, n + 1
    return damaged > 0


def repair(path: str | os.PathLike[str]) -> LineProblem | None:
    """Cut a torn last line off the file, durably; return what was cut (``None`` if nothing was torn).

    A *file*: not to be confused with ``msgmodel.core.compact.repair(messages)``, which fixes the
    tool pairing of a *history* (orphan results, dangling calls) and never touches a file.

    Only an unterminated last line that is not complete JSON is cut: it is what a crash
    during ``append`` leaves and was never acknowledged. Damage elsewhere is left alone
    (``load`` reports it); nothing else is changed. A file that is not JSONL (its first
    line is not a JSON object) is refused with ``StorageError``; if it is damaged but the next is whole
    (``_refuse_non_jsonl``), the cut bytes are first appended to ``<path>.torn``: nothing is lost. Holds its lock.
    """
    name = _file_name(path)
    try:
        with files.locked(name, exclusive=True), _opened(name, os.O_RDWR) as fd:
            _refuse_read_only(fd, name)
            with _mapped(fd) as (mm, view):
                damaged = _refuse_non_jsonl(name, mm, view)
                start, kind = _unterminated_tail(mm, view)
                size, cut = len(view), bytes(view[start:]) if damaged else b""
            if kind == "deep":
                raise StorageError(name, _count_lines(fd, start) + 1, _refusal(kind, size - start))
            if kind != "torn":
                return None
            line = _count_lines(fd, start) + 1
            if cut:
                with _opened(f"{name}.torn", os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600) as out:
                    _write_all(out, cut + b"\n")  # one line per cut: two repairs stay apart
                    os.fsync(out)
            os.ftruncate(fd, start)
            os.fsync(fd)
    except OSError as e:
        raise _os_error(name, e, "repair") from e
    kept = f"; kept in {name}.torn" if cut else ""
    return LineProblem(name, line, f"cut a torn last line of {size - start} bytes{kept}", torn=True)
