"""Claude Code session transcripts (``~/.claude/projects/<project>/<session>.jsonl``) as Messages-API history.

This module owns reading that third-party format (observed in Claude Code 1.0.98 to
2.1.59; see ``docs/claude-code-transcripts.md`` in the project notes) and turning it into
the list of ``Message``\\ s the model was actually sent. Content blocks go through
``msgmodel.core.message.blocks_from_api``, so nothing kept is altered: thinking signatures stay
byte for byte and block kinds this package does not model stay ``OpaqueBlock``\\ s.

``import_claude_code(path_or_bytes, scope="context" | "all") -> ClaudeCodeSession``

How the API view is rebuilt
    * One block per line: assistant lines that share ``message.id`` are merged back into
      one assistant message, and consecutive ``tool_result`` user lines (parallel results)
      into one user message. In 2.1.x a result line may sit *between* two assistant lines
      of the same ``message.id`` (tools run while the response still streams); the
      assistant lines are still merged, and the results follow the merged message, in
      file order. Every other user line stays a message of its own (a prompt, an
      ``isMeta`` line, an interrupt): consecutive user turns are valid, the API merges
      them, and keeping them apart keeps each line's content exactly as written.
    * The main chain is found through ``parentUuid``: the leaf is the last user/assistant
      line that is not a sidechain, and the chain is walked back to its root. A single
      parent walk misses parallel branches (each result line points at the one assistant
      line holding its ``tool_use``), so assistant lines sharing a chain line's
      ``message.id``, and result lines hanging off those, are added back (what Claude
      Code's own loader does). Lines on other branches (a rewind, an edited prompt) are
      skipped as ``off_chain``. If the chain cannot be followed (a line without ``uuid``,
      a parent that is not in the file, a cycle) the importer falls back to file order and
      says so in ``.chain``.
    * ``scope="context"`` is what the model saw last: the chain stops at the last
      ``compact_boundary`` on it, so the messages start with the compaction summary (the
      ``isCompactSummary`` user line) and go on from there. ``scope="all"`` is the whole
      main chain, following each boundary's ``logicalParentUuid`` back into the
      pre-compaction history (summaries included, where they were inserted). That view
      is a record, not necessarily a valid request: a parallel ``tool_use`` stranded by
      a compaction keeps no result, and ``protocol.validate`` says so.

What is kept, what is skipped (every non-blank line is one or the other)
    * Kept: main-chain user and assistant lines, including ``isMeta`` user lines (the
      ``<local-command-caveat>`` and expanded slash-command prompts are sent to the model as
      user content, so they are part of what it saw), interrupts (``[Request interrupted
      by user]``), the compaction summary, and results with ``content: ""``.
    * Skipped, each with ``file:line``, the line type and a reason (``.skipped``):
      synthetic assistant messages (``model: "<synthetic>"``, e.g. "No response
      requested." or ``API Error: 500 …``; Claude Code wrote them, the model never said
      them, and replaying them would put words in its mouth; the user turns around one
      are then simply consecutive), lines marked
      ``isApiErrorMessage``, sidechains (``isSidechain: true``, 1.0.x subagents),
      ``progress`` lines (hook, bash and ``agent_progress`` subagent traffic, which is never
      main-chain conversation), ``system`` lines (``compact_boundary`` is counted in
      ``.compactions``), ``summary`` (1.0.x session titles, see ``.title``),
      ``file-history-snapshot`` and ``queue-operation`` lines, types this module does not
      know, off-chain and pre-compaction lines, duplicated uuids, and lines that are not
      JSON (a torn last line of a file copied mid-write included) or whose message does
      not decode. A bad line never stops the import.
    * Not part of the API message, so not imported: ``toolUseResult`` (the tool's
      structured output), usage, ``requestId`` and the other envelope fields.

A file that ends mid-turn ends with an assistant ``tool_use`` that has no result; it is
kept as it is (``msgmodel.core.protocol.validate`` reports it, nothing here repairs it).

``is_claude_code_session(path_or_first_lines) -> bool`` sniffs the format for the CLI.
``sample_session_path()`` is a small shipped session (a coding task in Claude Code 2.1.x,
compacted once, copied mid-turn) for the notebooks.
Errors: ``ClaudeCodeError`` (a ``ValueError``) names the file and why it is not a Claude
Code session at all (empty, not JSON lines, a msgmodel session, ...).
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final, Literal, NamedTuple, TypeAlias

import msgspec

from msgmodel.core.files import open_regular, read_regular_file
from msgmodel.core.message import (
    ContentBlock,
    DecodeError,
    Message,
    assistant_msg,
    assistant_text,
    blocks_from_api,
    blocks_of,
    is_plain_text,
    is_tool_result_message,
    text_of,
    user_msg,
    user_text,
)

__all__ = [
    "ClaudeCodeError",
    "ClaudeCodeSession",
    "Scope",
    "Skipped",
    "import_claude_code",
    "is_claude_code_session",
    "sample_session_path",
]

Scope: TypeAlias = Literal["context", "all"]
Chain: TypeAlias = Literal["parent_uuid", "file_order"]

_BOM: Final = b"\xef\xbb\xbf"
_SNIFF_BYTES: Final = 256 * 1024
_SNIFF_LINES: Final = 20
_SYNTHETIC_MODEL: Final = "<synthetic>"
_METADATA_TYPES: Final = frozenset({"summary", "file-history-snapshot", "queue-operation"})
_CONVERSATION_TYPES: Final = frozenset({"user", "assistant"})


class ClaudeCodeError(ValueError):
    """A file that is not a Claude Code session at all; ``str(err)`` names the file and why."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: not a Claude Code session: {reason}")


class Skipped(msgspec.Struct, frozen=True):
    """One transcript line that did not become (part of) a message, and why.

    ``code`` is stable and meant for programs (``"progress"``, ``"synthetic"``,
    ``"off_chain"``, ``"before_compaction"``, ``"not_json"``, ``"torn"``, ``"bad_message"``, ...);
    ``reason`` is for people.
    """

    file: str
    line: int
    line_type: str
    """The line's ``type`` (``system/<subtype>``, ``progress/<data.type>``), or ``"?"`` if unknown."""
    code: str
    reason: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.line_type}: {self.reason}"


class ClaudeCodeSession(msgspec.Struct, frozen=True):
    """An imported Claude Code session: the API view (``messages``), what was skipped, and metadata."""

    path: str
    scope: Scope
    messages: list[Message]
    """The Messages-API history (see the module docstring for what ``scope`` selects)."""
    message_lines: tuple[tuple[int, ...], ...]
    """The file lines each message was rebuilt from, parallel to ``messages``."""
    skipped: tuple[Skipped, ...]
    session_id: str | None
    versions: tuple[str, ...]
    """Claude Code versions that wrote the file, in order of first appearance."""
    models: tuple[str, ...]
    """Models that wrote the assistant lines (sidechains and synthetic messages excluded), in order of first use."""
    compactions: int
    """Number of ``compact_boundary`` lines in the file."""
    title: str | None
    """The last 1.0.x ``summary`` line (a session title), if any."""
    chain: Chain
    """``"parent_uuid"`` if the main chain was followed through ``parentUuid``, else ``"file_order"``."""
    line_count: int

    @property
    def version(self) -> str | None:
        """The last Claude Code version that wrote to the file."""
        return self.versions[-1] if self.versions else None


class _Line(NamedTuple):
    no: int
    obj: dict[str, Any]
    kind: str
    label: str


# ---------------------------------------------------------------------------------------
# Recognising the format
# ---------------------------------------------------------------------------------------


def _is_cc_line(obj: object) -> bool:
    """Whether a decoded JSON value is a line of a Claude Code transcript."""
    if not isinstance(obj, Mapping):
        return False
    kind = obj.get("type")
    if not isinstance(kind, str):
        return False
    if kind == "summary":
        return "leafUuid" in obj and "summary" in obj
    if kind == "file-history-snapshot":
        return "snapshot" in obj
    if kind == "queue-operation":
        return "operation" in obj
    has_chain = "uuid" in obj and "parentUuid" in obj
    if kind in _CONVERSATION_TYPES:
        return isinstance(obj.get("message"), Mapping) and (has_chain or isinstance(obj.get("sessionId"), str))
    # system, progress and types newer than the notes: the envelope gives them away.
    return has_chain and isinstance(obj.get("sessionId"), str)


def _decode(raw: bytes) -> object:
    try:
        return msgspec.json.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return None


def is_claude_code_session(path_or_first_lines: str | os.PathLike[str] | bytes | Iterable[str | bytes]) -> bool:
    """Whether a file looks like a Claude Code session transcript.

    Accepts a path (``str`` or ``PathLike``; its first 256 KiB are read), the first bytes
    of a file (``bytes``), or an iterable of its first lines. True if one of the first 20
    non-blank lines is a Claude Code line; an unreadable file is not a session (False).
    """
    source = path_or_first_lines
    if isinstance(source, (str, os.PathLike)):
        try:
            with os.fdopen(open_regular(os.fspath(source), os.O_RDONLY), "rb") as f:
                head = f.read(_SNIFF_BYTES)
        except OSError:
            return False
        lines: Iterable[str | bytes] = head.split(b"\n")
    elif isinstance(source, bytes):
        lines = source.split(b"\n")
    else:
        lines = source
    seen = 0
    for line in lines:
        raw = line.encode() if isinstance(line, str) else line
        if raw.startswith(_BOM):
            raw = raw[len(_BOM) :]
        if not raw.strip():
            continue
        if _is_cc_line(_decode(raw)):
            return True
        seen += 1
        if seen >= _SNIFF_LINES:
            break
    return False


def _why_not(first: object) -> str:
    if isinstance(first, list):
        return "the first line is a JSON array (a list of messages? read it with msgmodel.from_json)"
    if isinstance(first, Mapping):
        if "role" in first and "content" in first:
            return (
                "the first line is a Messages-API message, not a transcript line "
                "(a msgmodel session? read it with msgmodel.core.storage.load)"
            )
        kind = first.get("type")
        if isinstance(kind, str):
            return f"no line has the Claude Code envelope (the first line has type {kind!r})"
        return "no line has the Claude Code envelope (the first line is a JSON object without a string `type`)"
    if first is None:
        return "the first line is not JSON"
    return f"the first line is a JSON {type(first).__name__}, not an object"


# ---------------------------------------------------------------------------------------
# Reading lines
# ---------------------------------------------------------------------------------------


def _label(obj: Mapping[str, Any], kind: str) -> str:
    if kind == "system":
        sub = obj.get("subtype")
        return f"system/{sub}" if isinstance(sub, str) else kind
    if kind == "progress":
        data = obj.get("data")
        sub = data.get("type") if isinstance(data, Mapping) else None
        return f"progress/{sub}" if isinstance(sub, str) else kind
    return kind


def _parse(name: str, data: bytes) -> tuple[list[_Line], list[Skipped], int, object]:
    """Decode every line; returns the records, the lines that are not records, the line count, line 1."""
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    raws = data.split(b"\n")
    torn_candidate = raws[-1].strip() != b""  # the file ends mid-line
    if not torn_candidate:
        raws.pop()
    records: list[_Line] = []
    skipped: list[Skipped] = []
    first: object = None
    first_seen = False
    for i, raw in enumerate(raws):
        no = i + 1
        if not raw.strip():
            continue
        try:
            obj = msgspec.json.decode(raw)
        except RecursionError:
            skipped.append(Skipped(name, no, "?", "too_deep", "JSON nested too deeply to read"))
            continue
        except msgspec.DecodeError as e:
            if not first_seen:
                first_seen = True
            if torn_candidate and no == len(raws):
                skipped.append(
                    Skipped(name, no, "?", "torn", f"torn last line: the file ends mid-line ({len(raw)} bytes; {e})")
                )
            else:
                skipped.append(Skipped(name, no, "?", "not_json", f"not JSON ({e})"))
            continue
        if not first_seen:
            first, first_seen = obj, True
        if not isinstance(obj, dict):
            skipped.append(Skipped(name, no, "?", "not_object", "a JSON value that is not an object"))
            continue
        kind = obj.get("type")
        if not isinstance(kind, str):
            skipped.append(Skipped(name, no, "?", "not_object", "a JSON object without a string `type`"))
            continue
        records.append(_Line(no, obj, kind, _label(obj, kind)))
    return records, skipped, len(raws), first


# ---------------------------------------------------------------------------------------
# The main chain
# ---------------------------------------------------------------------------------------


def _is_boundary(r: _Line) -> bool:
    return r.kind == "system" and r.obj.get("subtype") == "compact_boundary"


def _message_id(r: _Line) -> str | None:
    msg = r.obj.get("message")
    mid = msg.get("id") if isinstance(msg, Mapping) else None
    return mid if isinstance(mid, str) and mid else None


def _result_ids(r: _Line) -> list[str]:
    """The ``tool_use_id``\\ s a user line answers (read from the raw line, before decoding)."""
    msg = r.obj.get("message")
    content = msg.get("content") if isinstance(msg, Mapping) else None
    if r.kind != "user" or not isinstance(content, list):
        return []
    return [
        b["tool_use_id"]
        for b in content
        if isinstance(b, Mapping) and b.get("type") == "tool_result" and isinstance(b.get("tool_use_id"), str)
    ]


class _Walk(NamedTuple):
    lines: list[_Line]
    stop: _Line | None  # the compact_boundary where a "context" walk stopped


def _line_no(r: _Line) -> int:
    return r.no


def _walk(leaf: _Line, by_uuid: Mapping[str, _Line], conv: list[_Line], scope: Scope) -> _Walk | None:
    """Follow ``parentUuid`` from the leaf to the root; None if the chain cannot be followed.

    ``conv`` is the conversation lines in file order. Linear in the chain's length: each
    line is visited once, and a boundary without a logical link is resolved by a binary search.
    """
    chain: list[_Line] = []
    seen: set[int] = set()
    node: _Line | None = leaf
    while node is not None:
        if node.no in seen:
            return None  # a cycle
        seen.add(node.no)
        chain.append(node)
        if _is_boundary(node):
            if scope == "context":
                return _Walk(chain, node)
            logical = node.obj.get("logicalParentUuid")
            nxt = by_uuid.get(logical) if isinstance(logical, str) else None
            if nxt is None:  # no logical link: the pre-compaction leaf is the last conversation line before it
                # ``conv`` is in file order: a binary search keeps a file of many boundaries linear.
                at = bisect.bisect_left(conv, node.no, key=_line_no)
                nxt = conv[at - 1] if at else None
            node = nxt
            continue
        parent = node.obj.get("parentUuid")
        if parent is None:
            break
        if not isinstance(parent, str) or parent not in by_uuid:
            return None  # a parent that is not in the file
        node = by_uuid[parent]
    return _Walk(chain, None)


def _recover_parallel(chain_nos: set[int], region: list[_Line]) -> set[int]:
    """Add the parallel branches a single-parent walk misses (same ``message.id``, their results)."""
    included = set(chain_nos)
    ids = {mid for r in region if r.no in included and r.kind == "assistant" and (mid := _message_id(r))}
    for r in region:
        if r.kind == "assistant" and r.no not in included and _message_id(r) in ids:
            included.add(r.no)
    assistants = {r.obj.get("uuid") for r in region if r.no in included and r.kind == "assistant"}
    answered = {tid for r in region if r.no in included for tid in _result_ids(r)}
    for r in region:
        tids = _result_ids(r)
        if r.no in included or not tids:
            continue
        anchors = (r.obj.get("parentUuid"), r.obj.get("sourceToolAssistantUUID"))
        if any(isinstance(a, str) and a in assistants for a in anchors) and not answered.intersection(tids):
            included.add(r.no)
            answered.update(tids)
    return included


# ---------------------------------------------------------------------------------------
# Lines to messages
# ---------------------------------------------------------------------------------------


def _line_message(name: str, r: _Line) -> Message | Skipped:
    msg = r.obj.get("message")
    if not isinstance(msg, Mapping):
        return Skipped(name, r.no, r.label, "bad_message", "no `message` object")
    role = msg.get("role", r.kind)
    if role != r.kind:
        return Skipped(name, r.no, r.label, "bad_message", f"message.role is {role!r} on a {r.kind!r} line")
    content = msg.get("content")
    if isinstance(content, str):
        return user_text(content) if r.kind == "user" else assistant_text(content)
    if not isinstance(content, list):
        return Skipped(name, r.no, r.label, "bad_message", "message.content: expected a string or an array of blocks")
    try:
        blocks = blocks_from_api(content, path="message.content")
    except DecodeError as e:
        return Skipped(name, r.no, r.label, "bad_message", f"{e.path}: {e.expected}")
    except RecursionError:
        return Skipped(name, r.no, r.label, "bad_message", "message.content: nested too deeply")
    return assistant_msg(blocks) if r.kind == "assistant" else user_msg(blocks)


def _excerpt(m: Message) -> str:
    text = text_of(m)
    return repr(text if len(text) <= 60 else text[:60] + "…")


class _Group:
    """An assistant message being merged by ``message.id``, or a user message of merged results."""

    __slots__ = ("blocks", "lines", "mid", "role")

    def __init__(self, role: Literal["user", "assistant"], mid: str | None, blocks: list[ContentBlock], no: int):
        self.role = role
        self.mid = mid
        self.blocks = blocks
        self.lines = [no]

    def message(self) -> Message:
        return assistant_msg(self.blocks) if self.role == "assistant" else user_msg(self.blocks)


def _assemble(lines: list[tuple[_Line, Message]]) -> tuple[list[Message], list[tuple[int, ...]]]:
    """Merge one-block lines back into API messages (see the module docstring)."""
    out: list[tuple[Message, tuple[int, ...]]] = []
    asst: _Group | None = None
    results: _Group | None = None

    def flush() -> None:
        nonlocal asst, results
        for g in (asst, results):
            if g is not None:
                out.append((g.message(), tuple(g.lines)))
        asst = results = None

    for r, m in lines:
        if m.role == "assistant" and not is_plain_text(m):
            mid = _message_id(r)
            if asst is not None and mid is not None and asst.mid == mid:
                asst.blocks.extend(blocks_of(m))  # interleaved results (2.1.x) stay after the merged message
                asst.lines.append(r.no)
                continue
            flush()
            asst = _Group("assistant", mid, list(blocks_of(m)), r.no)
        elif m.role == "user" and is_tool_result_message(m):
            if results is None:
                results = _Group("user", None, list(blocks_of(m)), r.no)
            else:
                results.blocks.extend(blocks_of(m))
                results.lines.append(r.no)
        else:
            flush()
            out.append((m, (r.no,)))
    flush()
    return [m for m, _ in out], [nos for _, nos in out]


# ---------------------------------------------------------------------------------------
# The importer
# ---------------------------------------------------------------------------------------


def _distinct(values: Iterable[object]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v for v in values if isinstance(v, str) and v))


def _skip_reason(r: _Line) -> tuple[str, str]:
    """Why a line that is not a user/assistant line is skipped: (code, reason)."""
    kind = r.kind
    if kind == "system":
        if _is_boundary(r):
            meta = r.obj.get("compactMetadata")
            detail = ""
            if isinstance(meta, Mapping):
                detail = f" (trigger {meta.get('trigger')!s}, {meta.get('preTokens')!s} tokens before)"
            return "compact_boundary", f"compaction boundary{detail}: the context after it starts anew"
        return "system", "a system line (status, timing, hooks, local commands): not sent to the model"
    if kind == "progress":
        if r.label == "progress/agent_progress":
            return "progress", "subagent traffic (agent_progress): never a main-chain message"
        return "progress", "a progress line: tool and hook progress, not a message"
    if kind == "summary":
        return "metadata", "a session title (1.0.x summary line), not a message"
    if kind in _METADATA_TYPES:
        return "metadata", f"{kind} bookkeeping, not a message"
    return "unknown_type", f"a line type this importer does not know ({kind!r}); not a message"


def import_claude_code(
    path: str | os.PathLike[str] | bytes, *, scope: Scope = "context", name: str | None = None
) -> ClaudeCodeSession:
    """Read a Claude Code session file as Messages-API history (see the module docstring).

    ``path`` is the file, or its content as ``bytes`` (stdin, say; ``name`` is then what
    ``file:line`` reports, ``"<bytes>"`` by default). ``scope="context"``: what the model
    saw after the last compaction (the summary and what follows). ``scope="all"``: the
    whole main chain. Bad lines are reported in ``.skipped``, never raised; a file that
    is not a Claude Code session at all raises ``ClaudeCodeError``.
    """
    if scope not in ("context", "all"):
        raise ValueError(f"scope must be 'context' or 'all', not {scope!r}")
    if isinstance(path, bytes):
        data, name = path, name or "<bytes>"
    else:
        name = name or os.fspath(path)
        try:
            data = read_regular_file(path)  # a device or FIFO (``/dev/zero``) is refused, not read forever
        except OSError as e:
            raise ClaudeCodeError(name, f"cannot read it ({e.strerror or e})") from e
    records, skipped, line_count, first = _parse(name, data)
    if not data.strip(_BOM + b" \t\r\n"):
        raise ClaudeCodeError(name, "the file is empty")
    if not any(_is_cc_line(r.obj) for r in records):
        raise ClaudeCodeError(name, _why_not(first))

    by_uuid: dict[str, _Line] = {}
    conv: list[_Line] = []
    boundaries: list[_Line] = []
    title: str | None = None

    def skip(r: _Line, code: str, reason: str) -> None:
        skipped.append(Skipped(name, r.no, r.label, code, reason))

    for r in records:
        uuid = r.obj.get("uuid")
        if isinstance(uuid, str):
            if uuid in by_uuid:
                skip(r, "duplicate_uuid", f"uuid {uuid} was already read at line {by_uuid[uuid].no}")
                continue
            by_uuid[uuid] = r
        if r.kind in _CONVERSATION_TYPES:
            if r.obj.get("isSidechain") is True:
                skip(r, "sidechain", "a sidechain line (isSidechain: a subagent's conversation, not the main chain)")
            else:
                conv.append(r)
            continue
        if _is_boundary(r):
            boundaries.append(r)
        if r.kind == "summary" and isinstance(r.obj.get("summary"), str):
            title = r.obj["summary"]
        skip(r, *_skip_reason(r))

    # The main chain: parentUuid from the leaf, or file order if that cannot be followed.
    leaf = conv[-1] if conv else None
    walk: _Walk | None = None
    if leaf is not None and all(isinstance(r.obj.get("uuid"), str) for r in conv):
        walk = _walk(leaf, by_uuid, conv, scope)
    chain: Chain = "parent_uuid" if walk is not None else "file_order"
    stop: _Line | None
    if scope == "context" and leaf is not None and boundaries and boundaries[-1].no > leaf.no:
        # Compacted after the last message, and nothing written since: the context is empty so far.
        stop, included = boundaries[-1], set()
    elif walk is not None:
        stop = walk.stop
        region = [r for r in conv if stop is None or r.no > stop.no]
        included = _recover_parallel({r.no for r in walk.lines}, region)
    else:
        stop = boundaries[-1] if scope == "context" and boundaries else None
        included = {r.no for r in conv if stop is None or r.no > stop.no}

    kept: list[tuple[_Line, Message]] = []
    for r in conv:
        if r.no not in included:
            if stop is not None and r.no < stop.no:
                skip(r, "before_compaction", f"before the compaction boundary at line {stop.no} (scope='all' has it)")
            else:
                skip(r, "off_chain", "not on the main chain (a branch left by a rewind or an edited prompt)")
            continue
        m = _line_message(name, r)
        if isinstance(m, Skipped):
            skipped.append(m)
            continue
        if r.kind == "assistant":
            if r.obj.get("isApiErrorMessage") is True:
                skip(r, "api_error", f"an API error Claude Code recorded as an assistant message: {_excerpt(m)}")
                continue
            msg = r.obj["message"]
            if msg.get("model") == _SYNTHETIC_MODEL:
                skip(
                    r,
                    "synthetic",
                    f"a synthetic assistant message (written by Claude Code, not the model): {_excerpt(m)}",
                )
                continue
        kept.append((r, m))

    messages, message_lines = _assemble(kept)
    models = _distinct(
        r.obj["message"].get("model")
        for r in conv
        if r.kind == "assistant"
        and isinstance(r.obj.get("message"), Mapping)
        and r.obj["message"].get("model") != _SYNTHETIC_MODEL
    )
    session_id = leaf.obj.get("sessionId") if leaf is not None else None
    if not isinstance(session_id, str):
        session_id = next((s for r in records if isinstance(s := r.obj.get("sessionId"), str)), None)
    skipped.sort(key=lambda s: s.line)
    return ClaudeCodeSession(
        path=name,
        scope=scope,
        messages=messages,
        message_lines=tuple(message_lines),
        skipped=tuple(skipped),
        session_id=session_id,
        versions=_distinct(r.obj.get("version") for r in records),
        models=models,
        compactions=len(boundaries),
        title=title,
        chain=chain,
        line_count=line_count,
    )


def sample_session_path() -> Path:
    """The shipped sample session (``msgmodel/data/sample_claude_code_session.jsonl``).

    A coding task built to the documented format Claude Code 2.1.x writes (not a recorded
    session): reads, a failing Bash run, parallel calls with interleaved results, hook, bash
    and subagent progress lines, a local command, one auto compaction, an interrupt, a
    synthetic API-error message, and a file that ends mid-turn (its last ``tool_use`` has no
    result yet).
    """
    return Path(__file__).resolve().parent.parent / "data" / "sample_claude_code_session.jsonl"
