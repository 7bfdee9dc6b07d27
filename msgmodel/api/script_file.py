"""The script file of ``python -m msgmodel serve --script FILE``: scripted turns as JSON or TOML.

A script is the turns a ``SequenceModel`` plays, one per request, in call order, for an agent
tested as a separate process (``ANTHROPIC_BASE_URL`` pointed at ``serve``). ``.toml`` files are
read as TOML, anything else as JSON. The document is an object::

    {
      "strict_models": false,                       optional; false answers any model id
      "turns": [
        "Hello!",                                   a string: one text block
        {"text": "Adding.", "tool_calls": [{"name": "add", "input": {"a": 2, "b": 3}}]},
        {"content": [{"type": "text", "text": "..."}], "stop_reason": "max_tokens"},
        {"stop_reason": "refusal"},                 no content: an empty answer that stops so
        {"error": 429},                             an API error by status (type and text follow from it)
        {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded"}},
        {"timeout": 5}                              no answer; the connection is closed after 5 s
      ]
    }

In TOML, the same with ``turns = ["Hello!", ...]`` or one ``[[turns]]`` table per turn.

A turn object holds answer keys (``text``, ``tool_calls``, ``content``: the API's content blocks,
where a ``tool_use`` block may leave out its ``id``; ``stop_reason``) or exactly one of ``error``
and ``timeout``. A tool call's ``id`` is generated when it is answered (``msgmodel.api.turns.tool_call``).
Anything else is a ``ScriptFileError`` naming the file and the place (``turns[2].error.status``):
``serve`` reports it and exits 2 before listening.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, cast

from msgmodel.api.scripted import SequenceModel
from msgmodel.api.turns import (
    AUTO_ID,
    STOP_REASONS,
    ErrorTurn,
    ScriptedStopReason,
    StopTurn,
    TimeoutTurn,
    Turn,
)
from msgmodel.core.message import ContentBlock, DecodeError, TextBlock, ToolUseBlock, blocks_from_api

__all__ = ["Script", "ScriptFileError", "load_script", "read_script"]

_TOP_KEYS: Final = frozenset({"turns", "strict_models"})
_ANSWER_KEYS: Final = frozenset({"text", "tool_calls", "content", "stop_reason"})
_CALL_KEYS: Final = frozenset({"name", "input", "id"})
_ERROR_KEYS: Final = frozenset({"status", "type", "message", "retry_after"})


class ScriptFileError(ValueError):
    """A script file that cannot be read as a script; the message names the file and the place."""


@dataclass(frozen=True)
class Script:
    """A script file read: its turns and whether unknown model ids are refused."""

    turns: tuple[Turn, ...]
    strict_models: bool = True

    def model(self) -> SequenceModel:
        """A fresh call-ordered model playing these turns."""
        return SequenceModel(self.turns)


def load_script(path: str | Path) -> Script:
    """The script in the file at ``path`` (TOML for ``.toml``, JSON otherwise)."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise ScriptFileError(f"{p}: cannot read the script: {e.strerror or e}") from None
    return read_script(raw, source=str(p), toml=p.suffix.lower() == ".toml")


def read_script(data: bytes | str, *, source: str = "<script>", toml: bool = False) -> Script:
    """The script in ``data`` (a JSON, or with ``toml=True`` TOML, document); ``source`` names it in errors."""
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    try:
        doc: object = tomllib.loads(text) if toml else json.loads(text)
    except (ValueError, RecursionError) as e:  # JSONDecodeError and TOMLDecodeError are ValueErrors
        kind = "TOML" if toml else "JSON"
        raise ScriptFileError(f"{source}: not {kind}: {e}") from None
    return _script(doc, source)


def _fail(source: str, where: str, why: str) -> ScriptFileError:
    return ScriptFileError(f"{source}: {where}: {why}")


def _script(doc: object, source: str) -> Script:
    if not isinstance(doc, Mapping):
        raise _fail(source, "$", f"expected an object with `turns`, got {type(doc).__name__}")
    unknown = sorted(set(doc) - _TOP_KEYS)
    if unknown:
        raise _fail(source, unknown[0], f"unknown key (a script has {', '.join(sorted(_TOP_KEYS))})")
    turns = doc.get("turns")
    if not isinstance(turns, list):
        raise _fail(source, "turns", "expected a list of turns")
    strict = doc.get("strict_models", True)
    if not isinstance(strict, bool):
        raise _fail(source, "strict_models", f"expected true or false, got {strict!r}")
    return Script(tuple(_turn(t, source, f"turns[{i}]") for i, t in enumerate(turns)), strict)


def _turn(value: object, source: str, where: str) -> Turn:
    if isinstance(value, str):
        return value
    if not isinstance(value, Mapping):
        raise _fail(source, where, f"expected a string or an object, got {type(value).__name__}")
    keys = set(value)
    if "error" in keys or "timeout" in keys:
        if len(keys) != 1:
            raise _fail(source, where, f"`error` and `timeout` stand alone in a turn; found {', '.join(sorted(keys))}")
        return _error(value["error"], source, f"{where}.error") if "error" in keys else _timeout(value, source, where)
    unknown = sorted(keys - _ANSWER_KEYS)
    if unknown:
        allowed = ", ".join(sorted(_ANSWER_KEYS | {"error", "timeout"}))
        raise _fail(source, f"{where}.{unknown[0]}", f"unknown key (a turn has {allowed})")
    if not keys:
        raise _fail(source, where, "an empty turn (give text, tool_calls, content or stop_reason)")
    blocks: list[ContentBlock] = []
    if "text" in value:
        if not isinstance(value["text"], str):
            raise _fail(source, f"{where}.text", "expected a string")
        blocks.append(TextBlock(value["text"]))
    if "content" in value:
        blocks.extend(_content(value["content"], source, f"{where}.content"))
    if "tool_calls" in value:
        calls = value["tool_calls"]
        if not isinstance(calls, list):
            raise _fail(source, f"{where}.tool_calls", "expected a list of {name, input} objects")
        blocks.extend(_call(c, source, f"{where}.tool_calls[{i}]") for i, c in enumerate(calls))
    reason = value.get("stop_reason")
    if reason is None:
        return tuple(blocks)
    if reason not in STOP_REASONS:
        raise _fail(source, f"{where}.stop_reason", f"expected one of {', '.join(STOP_REASONS)}, got {reason!r}")
    return StopTurn(blocks, cast(ScriptedStopReason, reason))


def _content(value: object, source: str, where: str) -> list[ContentBlock]:
    if not isinstance(value, list):
        raise _fail(source, where, "expected a list of content blocks")
    filled = [
        {**b, "id": AUTO_ID} if isinstance(b, Mapping) and b.get("type") == "tool_use" and "id" not in b else b
        for b in value
    ]
    try:
        return blocks_from_api(filled, path=where)
    except DecodeError as e:
        raise ScriptFileError(f"{source}: {e}") from None


def _call(value: object, source: str, where: str) -> ToolUseBlock:
    if not isinstance(value, Mapping):
        raise _fail(source, where, "expected an object {name, input}")
    unknown = sorted(set(value) - _CALL_KEYS)
    if unknown:
        raise _fail(source, f"{where}.{unknown[0]}", "unknown key (a tool call has name, input and an optional id)")
    name, args, call_id = value.get("name"), value.get("input", {}), value.get("id", AUTO_ID)
    if not isinstance(name, str) or not name:
        raise _fail(source, f"{where}.name", "expected the tool's name")
    if not isinstance(args, Mapping):
        raise _fail(source, f"{where}.input", "expected an object of the tool's arguments")
    if not isinstance(call_id, str):
        raise _fail(source, f"{where}.id", "expected a string")
    return ToolUseBlock(id=call_id, name=name, input=dict(args))


def _error(value: object, source: str, where: str) -> ErrorTurn:
    spec: Mapping[str, Any]
    if isinstance(value, int) and not isinstance(value, bool):
        spec = {"status": value}
    elif isinstance(value, Mapping):
        spec = value
    else:
        raise _fail(source, where, "expected a status (429) or an object {status, type, message, retry_after}")
    unknown = sorted(set(spec) - _ERROR_KEYS)
    if unknown:
        raise _fail(source, f"{where}.{unknown[0]}", f"unknown key (an error has {', '.join(sorted(_ERROR_KEYS))})")
    status = spec.get("status")
    if not isinstance(status, int) or isinstance(status, bool) or not 400 <= status <= 599:
        raise _fail(source, f"{where}.status", f"expected an HTTP error status 400..599, got {status!r}")
    for key in ("type", "message"):
        if key in spec and not isinstance(spec[key], str):
            raise _fail(source, f"{where}.{key}", "expected a string")
    retry = spec.get("retry_after", 0.001)
    if retry is not None and (isinstance(retry, bool) or not isinstance(retry, (int, float)) or retry < 0):
        raise _fail(source, f"{where}.retry_after", f"expected seconds >= 0 or null, got {retry!r}")
    return ErrorTurn(status, spec.get("type"), spec.get("message"), None if retry is None else float(retry))


def _timeout(value: Mapping[str, Any], source: str, where: str) -> TimeoutTurn:
    seconds = value["timeout"]
    if seconds is True:
        return TimeoutTurn()
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds >= 0:
        raise _fail(source, f"{where}.timeout", f"expected seconds >= 0 (or true: 30), got {seconds!r}")
    return TimeoutTurn(float(seconds))
