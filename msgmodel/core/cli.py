"""The command line: ``python -m msgmodel <command> ...`` (also installed as ``msgmodel``).

This module owns argument parsing, the table of subcommands, and the ``check`` command:
reading conversation files, telling their format from their content, and printing what
``msgmodel.core.protocol`` finds, one line per violation plus a plain-words hint.

``check FILE...``
    Each FILE (``-`` reads standard input) may be a directory, which stands for the session files
    under it: every ``*.jsonl`` and ``*.json`` file, recursively, in name order, hidden files and
    directories (``.git``, ``.venv``, a ``save`` in flight) left out and symbolic links to
    directories not followed; a directory with none is reported as such and is not an error.
    A file may be

    * a Messages API request body: a JSON object with ``messages`` (checked with
      ``protocol.validate_request``, which reads ``model``, ``tools`` and ``thinking`` from it);
    * a JSON array of messages (checked with ``protocol.validate``);
    * JSONL: one message object per line (blank lines skipped); a violation is then reported
      at ``FILE:LINE`` of the message it concerns. The first line may be a session header
      (``msgmodel.core.storage.SessionHeader``): its ``model`` and ``tools`` are the request
      options the session is checked with (the command line's ``--model``/``--no-tools`` win);
    * an empty file (a session with no messages yet): ``ok (0 messages)``, not an error;
    * a Claude Code session: lines that are not messages are counted in the ``ok`` note; a line
      that cannot be read (not JSON, torn, too deep, a message that does not decode) is
      reported at ``FILE:LINE`` as unreadable, as in plain JSONL.

    The format is told by content, never by the file name. ``--model``, ``--thinking`` and
    ``--no-tools`` set the request options for arrays and JSONL; for a request body they
    replace the body's own ``model`` / ``thinking.type`` / ``tools``.

    Output: ``FILE: <the API's error text>`` and an indented ``hint:`` line per violation,
    or ``FILE: ok (N messages)``. Violations are listed in the order the API checks its rules
    (``protocol.validate``'s order), not in line order: the first one is the 400 the live API would
    answer with, and fixing it first is what gets the request through. ``--json`` prints one JSON
    array instead, an object per problem: ``file`` (the file's name, as given or found in a
    directory), ``line`` (the 1-based line in JSONL, also for a line that cannot be read; else
    null), ``rule``, ``path``, ``message``
    (the text after the path), ``error`` (the API's full error text) and ``hint``. A file that
    cannot be read (missing, over ``MAX_INPUT_BYTES`` or memory, not UTF-8, not JSON, nested deeper than the reader can
    follow) is the user's problem, and is reported as such on stderr in one line (and in the
    ``--json`` array with rule ``unreadable_input``); ``internal error`` is kept for bugs in
    msgmodel. An escaped lone surrogate (``"\\ud800"``) makes a file (or a JSONL line) not JSON,
    as the API and the local server refuse it (400 ``Invalid JSON``), although Python's ``json``
    would read it. A file name that is not UTF-8 is printed with ``\\udcXX`` escapes, so the
    output is always UTF-8 and ``--json`` always one valid array.

    Exit status: 0 every file clean, 1 some file breaks a rule, 2 some file could not be read
    or checked (the worst over all files wins).

Adding a subcommand
    Write ``_configure_<name>(parser)`` and ``_run_<name>(args) -> int`` and add one entry
    to ``SUBCOMMANDS`` (see the comment there). Import heavy modules inside ``_run_<name>``:
    ``import msgmodel.core.cli`` must stay light (it never imports ``anthropic``).

Adding an input format to ``check``
    Write a ``detect(probe) -> bool`` and a ``load(probe) -> Document`` and add them to
    ``INPUT_FORMATS`` (see the comment there; order matters: the first match wins).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from msgmodel.core.files import read_regular_file

if TYPE_CHECKING:
    from msgmodel.core.protocol import Violation

__all__ = [
    "INPUT_FORMATS",
    "SUBCOMMANDS",
    "Document",
    "InputError",
    "InputFormat",
    "Probe",
    "Subcommand",
    "build_parser",
    "load_input",
    "main",
]

EXIT_OK: Final = 0
EXIT_VIOLATIONS: Final = 1
EXIT_UNREADABLE: Final = 2

STDIN_NAME: Final = "<stdin>"
MAX_INPUT_BYTES: Final = 256 << 20
"""The most ``check`` reads of one file or of standard input (256 MiB): more is refused, unread."""


class InputError(Exception):
    """A file ``check`` cannot read as conversation data: ``file``, the ``line`` at fault (or ``None``), and why.

    ``where`` is ``file`` or ``file:line``, as it is printed.
    """

    def __init__(self, file: str, reason: str, *, line: int | None = None) -> None:
        self.file = file
        self.line = line
        self.reason = reason
        super().__init__(f"{self.where}: {reason}")

    @property
    def where(self) -> str:
        return self.file if self.line is None else f"{self.file}:{self.line}"


# ---------------------------------------------------------------------------------------
# Input formats
# ---------------------------------------------------------------------------------------


class _NotJSON(NamedTuple):
    """Why a text is not one JSON document (``json``'s message, with line and column)."""

    reason: str


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not valid JSON")


_TOO_DEEP: Final = "JSON nested too deeply to check (deeper than Python's recursion limit)"
_SURROGATE_ESCAPE: Final = re.compile(r"\\u[dD][89a-fA-F]")
LONE_SURROGATE: Final = "a \\u escape encodes a lone surrogate, which is not Unicode; the API answers 400 Invalid JSON"


def _parse_json(text: str) -> object:
    """Strict JSON, as the API reads it; too deep a document is a ``ValueError``.

    ``NaN``/``Infinity`` and escaped lone surrogates (``"\\ud800"``) are refused: Python's
    ``json`` accepts both, the API's parser (and the local server's, and ``storage``'s) refuses
    them with 400 ``Invalid JSON``. A lone surrogate is found by encoding the parsed value, only
    when the text holds a surrogate escape at all."""
    try:
        value = json.loads(text, parse_constant=_reject_constant)
        if _SURROGATE_ESCAPE.search(text):
            json.dumps(value, ensure_ascii=False).encode()
    except RecursionError:
        raise ValueError(_TOO_DEEP) from None
    except UnicodeEncodeError:
        raise ValueError(LONE_SURROGATE) from None
    return value


def _line_json_error(e: ValueError) -> str:
    """Why one line is not JSON; the column only (the line is named beside the file).

    Some of ``json``'s messages end in "at" ("Unterminated string starting at"): the column follows them directly.
    """
    if not isinstance(e, json.JSONDecodeError):
        return str(e)
    return f"{e.msg} column {e.colno}" if e.msg.endswith(" at") else f"{e.msg} at column {e.colno}"


_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _escape_surrogates(text: str) -> str:
    """``text`` with each lone surrogate written as ``\\udXXX``, so that it can be encoded as UTF-8.

    JSON may escape lone surrogates (``"\\ud800"``) and Python decodes them into strings
    no UTF-8 stream can hold; file names that are not UTF-8 arrive the same way. In JSON
    output the escape is the JSON escape of the same character, so the text round-trips.
    """
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


def _say(text: object, *, err: bool = False) -> None:
    """Print one line of the report (stderr if ``err``), lone surrogates escaped."""
    print(_escape_surrogates(str(text)), file=sys.stderr if err else sys.stdout)


@dataclass
class Probe:
    """A file's text, with the parses format detectors share (each computed at most once)."""

    name: str
    text: str

    @cached_property
    def document(self) -> object:
        """The whole text as one JSON value, or a ``_NotJSON`` saying why it is not."""
        try:
            return _parse_json(self.text)
        except ValueError as e:  # json.JSONDecodeError, and the NaN/Infinity refusal
            return _NotJSON(str(e))

    @cached_property
    def lines(self) -> list[tuple[int, str]]:
        """The non-blank lines with their 1-based numbers, split on ``\\n`` only.

        (``str.splitlines`` would also split on U+2028 and friends, which JSON strings may hold.)
        """
        return [(no, line) for no, line in enumerate(self.text.split("\n"), start=1) if line.strip()]

    @cached_property
    def first_line(self) -> object:
        """The first non-blank line as JSON, or ``_NotJSON``."""
        if not self.lines:
            return _NotJSON("no lines")
        try:
            return _parse_json(self.lines[0][1])
        except ValueError as e:
            return _NotJSON(str(e))


@dataclass(frozen=True)
class Document:
    """What one input holds, ready for ``msgmodel.core.protocol``.

    ``request`` is a whole request body (then ``messages`` is its ``messages`` value), else
    ``None``; ``messages`` is raw JSON-like data or a list of ``Message``; ``lines[i]`` is the
    1-based line of message ``i`` when the input has one message per line.
    """

    format: str
    messages: object
    request: dict[str, Any] | None = None
    lines: tuple[int, ...] | None = None
    model: str | None = None
    """The model the conversation was held with, when the file says (a Claude Code session, a session header)."""
    tools_defined: bool | None = None
    """Whether the conversation's requests define tools, when the file says (a session header's ``tools``)."""
    thinking: str | None = None
    """The thinking mode the conversation used, when the file shows it."""
    note: str = ""
    """Said after ``ok``: what the loader left out, for instance."""
    damaged: tuple[InputError, ...] = ()
    """Lines left out because they could not be read (``file:line`` and why): reported, never ``ok``."""

    @property
    def message_count(self) -> int:
        return len(self.messages) if isinstance(self.messages, list) else 0


class InputFormat(NamedTuple):
    """One input format of ``check``: a content sniffer and a loader."""

    name: str
    detect: Callable[[Probe], bool]
    load: Callable[[Probe], Document]


def _detect_request(p: Probe) -> bool:
    doc = p.document
    return isinstance(doc, dict) and "messages" in doc


def _load_request(p: Probe) -> Document:
    body = p.document
    assert isinstance(body, dict)
    return Document("request", body.get("messages"), request=body)


def _detect_message_array(p: Probe) -> bool:
    return isinstance(p.document, list)


def _load_message_array(p: Probe) -> Document:
    return Document("messages", p.document)


def _looks_like_message(value: object) -> bool:
    return isinstance(value, dict) and ("role" in value or "content" in value)


TORN_HINT: Final = (
    "; it is the last line and has no line end: a torn tail (a crash in the middle of an append), "
    "which msgmodel.core.storage.repair(path) cuts off"
)
"""Added to an unreadable last JSONL line without its ``\\n``: ``storage.load`` reads the file, reports the
tail as torn, and ``storage.repair`` cuts it (it was never acknowledged). ``check`` still exits 2: the file
as it stands is not a conversation to commit."""


def _is_header(value: object) -> bool:
    from msgmodel.core.storage import HEADER_KEY

    return isinstance(value, dict) and HEADER_KEY in value


def _detect_message_jsonl(p: Probe) -> bool:
    # One line (or one pretty-printed object) is a one-message JSONL file; several lines
    # make the whole text invalid as one JSON document, so look at the first line.
    if _looks_like_message(p.document) or _is_header(p.document):
        return True
    first = p.first_line
    return isinstance(p.document, _NotJSON) and len(p.lines) > 1 and (_looks_like_message(first) or _is_header(first))


def _load_message_jsonl(p: Probe) -> Document:
    if isinstance(p.document, dict) and not _is_header(p.document):
        return Document("jsonl", [p.document], lines=(p.lines[0][0],))
    messages: list[object] = []
    numbers: list[int] = []
    for no, line in p.lines:
        try:
            messages.append(_parse_json(line))
        except ValueError as e:
            why = f"line is not JSON ({_line_json_error(e)})"
            if no == p.lines[-1][0] and not p.text.endswith("\n"):  # what a write cut short leaves
                why += TORN_HINT
            raise InputError(p.name, why, line=no) from None
        numbers.append(no)
    if not messages or not _is_header(messages[0]):
        return Document("jsonl", messages, lines=tuple(numbers))
    from msgmodel.core.message import DecodeError
    from msgmodel.core.storage import header_from_json

    try:
        header = header_from_json(messages[0])
    except DecodeError as e:
        raise InputError(p.name, f"session header: {e.path}: {e.expected}", line=numbers[0]) from None
    tools = None if header.tools is None else bool(header.tools)
    note = "a session with a header" + (f" (model {header.model})" if header.model else "")
    return Document("jsonl", messages[1:], lines=tuple(numbers[1:]), model=header.model, tools_defined=tools, note=note)


# The formats ``check`` understands, tried in order; the first whose ``detect`` is true loads
# the input. To add one, write ``_detect_<fmt>(probe)`` / ``_load_<fmt>(probe)`` and insert an
# ``InputFormat`` here. Claude Code session files (JSONL whose lines carry ``type``,
# ``uuid``, ``message``, ... rather than ``role``/``content``) go *before* "jsonl"; their
# loader returns ``Document("claude-code", messages, lines=...)`` with ``Message`` objects
# built by ``msgmodel.core.storage`` / ``msgmodel.core.claude_code`` (``validate`` accepts them).
def _detect_claude_code(p: Probe) -> bool:
    from msgmodel.core.claude_code import is_claude_code_session

    return is_claude_code_session([line for _, line in p.lines[:20]])


def _load_claude_code(p: Probe) -> Document:
    from msgmodel.core.claude_code import ClaudeCodeError, import_claude_code
    from msgmodel.core.message import blocks_of

    try:
        s = import_claude_code(p.text.encode(), name=p.name)
    except ClaudeCodeError as e:
        raise InputError(p.name, str(e)) from None
    lines = tuple(ls[0] if ls else 0 for ls in s.message_lines)
    has_thinking = any(b.type == "thinking" for m in s.messages for b in blocks_of(m))
    kinds = sorted({k.line_type for k in s.skipped})
    damaged = tuple(
        InputError(k.file, f"line left out: {k.reason}", line=k.line) for k in s.skipped if k.code in _DAMAGE
    )
    note = f"a Claude Code session; {len(s.skipped)} lines left out ({', '.join(kinds)})" if s.skipped else ""
    return Document(
        "claude-code",
        s.messages,
        lines=lines,
        model=s.models[-1] if s.models else None,
        thinking="enabled" if has_thinking else None,
        note=note or "a Claude Code session",
        damaged=damaged,
    )


_DAMAGE: Final = frozenset({"too_deep", "not_json", "torn", "not_object", "bad_message"})  # unreadable lines


INPUT_FORMATS: list[InputFormat] = [
    InputFormat("request", _detect_request, _load_request),
    InputFormat("messages", _detect_message_array, _load_message_array),
    InputFormat("claude-code", _detect_claude_code, _load_claude_code),
    InputFormat("jsonl", _detect_message_jsonl, _load_message_jsonl),
]

_WHAT_WE_READ: Final = (
    "expected a Messages API request body (a JSON object with `messages`), "
    "a JSON array of messages, or JSONL with one message object per line"
)


def _read_text(name: str) -> str:
    shown = _display_name(name)
    try:
        limit = MAX_INPUT_BYTES + 1  # one byte more tells "too large" without reading the rest
        data = sys.stdin.buffer.read(limit) if name == "-" else read_regular_file(name, limit)  # refuses FIFOs
    except FileNotFoundError:
        raise InputError(shown, "no such file") from None
    except IsADirectoryError:
        raise InputError(shown, "is a directory, not a file") from None
    except PermissionError:
        raise InputError(shown, "permission denied") from None
    except OSError as e:
        raise InputError(shown, f"cannot read ({e.strerror or e})") from None
    if len(data) > MAX_INPUT_BYTES:
        raise InputError(shown, f"too large to check (over {MAX_INPUT_BYTES >> 20} MiB; check reads no more)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(shown, f"not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start})") from None
    return text.removeprefix("\ufeff")


def _display_name(name: str) -> str:
    return STDIN_NAME if name == "-" else name


def load_input(name: str) -> Document:
    """Read ``name`` (``-``: standard input) and load it in the first format that detects it.

    Raises ``InputError`` when the file cannot be read, is not UTF-8, is not JSON or JSONL, or is
    JSON of no known shape. An empty file (blank lines only, too) is a session with no messages yet.
    """
    text = _read_text(name)
    shown = _display_name(name)
    if not text.strip():
        return Document("empty", [], lines=(), note="an empty session")
    probe = Probe(shown, text)
    for fmt in INPUT_FORMATS:
        if fmt.detect(probe):
            return fmt.load(probe)
    doc = probe.document
    if not isinstance(doc, _NotJSON):
        raise InputError(shown, f"{_WHAT_WE_READ}; got {_describe_json(doc, '`messages`')}")
    first = probe.first_line
    if len(probe.lines) > 1 and not isinstance(first, _NotJSON):
        described = _describe_json(first, "`role`")
        raise InputError(shown, f"{_WHAT_WE_READ}; got JSONL whose first line is {described}", line=probe.lines[0][0])
    raise InputError(shown, doc.reason if doc.reason == _TOO_DEEP else f"not JSON ({doc.reason})")


def _describe_json(doc: object, missing: str) -> str:
    if isinstance(doc, dict):
        return f"an object without {missing}" + _keys_hint(doc)
    if isinstance(doc, list):
        return "a JSON array"
    if isinstance(doc, str):
        return "a JSON string"
    if isinstance(doc, bool) or doc is None:
        return f"JSON {json.dumps(doc)}"
    return "a JSON number"


def _keys_hint(doc: dict[str, Any]) -> str:
    keys = list(doc)[:4]
    if not keys:
        return ""
    more = ", ..." if len(doc) > 4 else ""
    return " (keys: " + ", ".join(json.dumps(k) for k in keys) + more + ")"


# ---------------------------------------------------------------------------------------
# check
# ---------------------------------------------------------------------------------------

_MESSAGE_INDEX: Final = re.compile(r"^messages\.(\d+)(?:\.|$)")


@dataclass(frozen=True)
class _Finding:
    """One line of ``check``'s report: a violation, or a file that could not be read."""

    file: str
    rule: str
    path: str
    message: str
    error: str
    hint: str
    line: int | None = None

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.line is not None else self.file

    def as_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "rule": self.rule,
            "path": self.path,
            "message": self.message,
            "error": self.error,
            "hint": self.hint,
        }


@dataclass
class _Report:
    findings: list[_Finding] = field(default_factory=list)
    status: int = EXIT_OK

    def worsen(self, status: int) -> None:
        self.status = max(self.status, status)


def _line_of(v: Violation, doc: Document) -> int | None:
    if doc.lines is None:
        return None
    m = _MESSAGE_INDEX.match(v.at or v.path)
    if m is None:
        return None
    index = int(m.group(1))
    return doc.lines[index] if index < len(doc.lines) else None


def _with_options(body: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """The request body with the options given on the command line put in (request fields only)."""
    if args.model is None and args.thinking is None and not args.no_tools:
        return body
    body = dict(body)
    if args.model is not None:
        body["model"] = args.model
    if args.thinking is not None:
        old = body.get("thinking")
        body["thinking"] = {**(old if isinstance(old, dict) else {}), "type": args.thinking}
    if args.no_tools:
        body.pop("tools", None)
    return body


def _violations(doc: Document, args: argparse.Namespace) -> list[Violation]:
    from msgmodel.core.protocol import validate, validate_request

    if doc.request is not None:
        return validate_request(_with_options(doc.request, args))
    if doc.format == "empty" or (doc.format == "jsonl" and not doc.lines):
        return []  # a session with no messages yet (an empty file, or a header alone)
    # A list of messages is a stored conversation: a final assistant message ends a turn
    # rather than prefilling one, unless --as-request says the list goes out as it is.
    return validate(
        doc.messages,
        model=args.model or doc.model,
        tools_defined=not args.no_tools and doc.tools_defined is not False,
        thinking=args.thinking or doc.thinking,
        as_history=not args.as_request,
    )


def _check_one(name: str, args: argparse.Namespace, report: _Report) -> None:
    shown = _display_name(name)
    try:
        doc = load_input(name)
        violations = _violations(doc, args)
    except InputError as e:
        _unreadable(report, e)
        return
    except RecursionError:  # the input, not msgmodel: data nested deeper than a reader can follow
        _unreadable(report, InputError(shown, "nested too deeply to check (deeper than Python's recursion limit)"))
        return
    except MemoryError:
        _unreadable(report, InputError(shown, "too large to check in the memory this process may use"))
        return
    except Exception as e:  # a bug in msgmodel: one line, and carry on with the other files
        reason = f"internal error while checking: {type(e).__name__}: {e}"
        report.findings.append(_Finding(shown, "internal_error", "", reason, reason, ""))
        report.worsen(EXIT_UNREADABLE)
        _say(f"{shown}: {reason}", err=True)
        return
    for damage in doc.damaged:  # a line that could not be read is the input's problem, as in plain JSONL
        _unreadable(report, damage)
    if not violations:
        if not args.json and not doc.damaged:
            n = doc.message_count
            note = f"; {doc.note}" if doc.note else ""
            _say(f"{shown}: ok ({n} message{'' if n == 1 else 's'}{note})")
        return
    report.worsen(EXIT_VIOLATIONS)
    for v in violations:
        finding = _Finding(shown, v.rule, v.path, v.message, str(v), v.hint, line=_line_of(v, doc))
        report.findings.append(finding)
        if not args.json:
            _say(f"{finding.where}: {finding.error}")
            if finding.hint:
                _say(f"  hint: {finding.hint}")


def _unreadable(report: _Report, e: InputError) -> None:
    """A file that is the user's problem (unreadable, not JSON, too deep): named as such, never "internal"."""
    report.findings.append(_Finding(e.file, "unreadable_input", "", e.reason, e.reason, "", line=e.line))
    report.worsen(EXIT_UNREADABLE)
    _say(e, err=True)


def _configure_check(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="a request body, a JSON array of messages, JSONL of messages (a session file), a Claude Code "
        "session, or a directory of session files (*.jsonl, *.json); - = stdin",
    )
    parser.add_argument(
        "--model",
        help="the model the messages go to (decides prefill and mid-conversation system messages); "
        "default: the newest model; replaces a request body's own `model`",
    )
    parser.add_argument(
        "--thinking",
        choices=("enabled", "disabled", "adaptive"),
        help="the request's thinking mode; replaces a request body's `thinking.type`",
    )
    parser.add_argument(
        "--no-tools",
        action="store_true",
        help="the request defines no tools (tool blocks in the history are then an error); "
        "drops a request body's `tools`",
    )
    parser.add_argument(
        "--as-request",
        action="store_true",
        help="check a list of messages exactly as a request would send it (a final assistant message is "
        "then a prefill); by default a list is a stored conversation that the next user turn continues",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON array of problems instead of text")


SESSION_SUFFIXES: Final = (".jsonl", ".json")
"""What ``check`` reads in a directory."""


def _session_files(directory: str) -> list[str]:
    """The session files under ``directory`` (see the module docstring), in name order."""
    found: list[str] = []
    for root, dirs, files in os.walk(directory, onerror=None, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found += [
            os.path.join(root, f) for f in sorted(files) if not f.startswith(".") and f.endswith(SESSION_SUFFIXES)
        ]
    return found


def _run_check(args: argparse.Namespace) -> int:
    report = _Report()
    for given in args.files:
        if given == "-" or not os.path.isdir(given):
            _check_one(given, args, report)
            continue
        files = _session_files(given)
        if not files and not args.json:
            _say(f"{given}: no session files ({', '.join('*' + s for s in SESSION_SUFFIXES)}) in this directory")
        for name in files:
            _check_one(name, args, report)
    if args.json:
        # Built whole, then written: the output is one JSON array or nothing, never half of one.
        text = json.dumps([f.as_json() for f in report.findings], ensure_ascii=False, indent=2)
        sys.stdout.write(_escape_surrogates(text) + "\n")
    return report.status


# ---------------------------------------------------------------------------------------
# Subcommands and main
# ---------------------------------------------------------------------------------------


class Subcommand(NamedTuple):
    """One ``python -m msgmodel <name>`` command: help text, its arguments, and what it does."""

    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


# The registration point. A new command is one entry, e.g.
#     "check": Subcommand("check conversation files ...", _configure_check, _run_check),
# with the heavy imports inside ``_run_<name>``. Commands of another layer (``serve``, the
# local Messages API) are added by the entry point, ``msgmodel.__main__``, through
# ``main(argv, commands=...)``: the core never imports the layers built on it.
SUBCOMMANDS: dict[str, Subcommand] = {
    "check": Subcommand("check conversation files against the Messages API's rules", _configure_check, _run_check),
}


def build_parser(commands: Mapping[str, Subcommand] | None = None) -> argparse.ArgumentParser:
    """The ``msgmodel`` argument parser, one sub-parser per command (``SUBCOMMANDS`` by default)."""
    from msgmodel.core import __version__

    parser = argparse.ArgumentParser(prog="python -m msgmodel", description="Tools for Messages-API conversation data.")
    parser.add_argument("--version", action="version", version=f"msgmodel {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, cmd in (SUBCOMMANDS if commands is None else commands).items():
        cmd.configure(sub.add_parser(name, help=cmd.help, description=cmd.help))
    return parser


def main(argv: list[str] | None = None, *, commands: Mapping[str, Subcommand] | None = None) -> int:
    """Run one command; returns the exit status (2 for usage errors and unexpected failures).

    ``commands`` is the table of commands (``SUBCOMMANDS``, the core's, by default).
    """
    table = SUBCOMMANDS if commands is None else commands
    parser = build_parser(table)
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help (0) or a usage error (2); argparse has printed why
        return e.code if isinstance(e.code, int) else EXIT_UNREADABLE
    if args.command is None:
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: error: a command is required ({', '.join(table)})", file=sys.stderr)
        return EXIT_UNREADABLE
    command: str = args.command
    try:
        return table[command].run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `... | head`: the reader went away; stop quietly
        _silence_stdout()
        return EXIT_UNREADABLE
    except Exception as e:  # never a traceback: one line naming the failure
        _say(f"{parser.prog} {command}: internal error: {type(e).__name__}: {e}", err=True)
        return EXIT_UNREADABLE


def _silence_stdout() -> None:
    # Python flushes stdout at exit; with the pipe closed that flush would print a traceback.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
