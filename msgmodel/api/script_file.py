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

A turn object holds answer fields (``text``, ``tool_calls``, ``content``: the API's content blocks,
``stop_reason``) or exactly one of ``error`` and ``timeout``. A tool call of ``tool_calls`` may leave
out its ``id``: it is generated when the call is answered (``msgmodel.api.turns.tool_call``); a
``tool_use`` block in ``content`` is the API's and carries its own. The document is read once into
typed structs (``msgspec``); anything else is a ``ScriptFileError`` naming the file and the place
(``$.turns[2].error.status``): ``serve`` reports it and exits 2 before listening.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import msgspec

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


class ScriptFileError(ValueError):
    """A script file that cannot be read as a script; the message names the file and the place."""


class _Call(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: str
    input: dict[str, Any] = {}
    id: str = AUTO_ID


class _Error(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    status: int
    type: str | None = None
    message: str | None = None
    retry_after: float | None = 0.001


class _TurnSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    text: str | None = None
    tool_calls: list[_Call] | None = None
    blocks: list[Any] | None = msgspec.field(default=None, name="content")  # the API's blocks, as given
    stop_reason: str | None = None
    error: int | _Error | None = None
    timeout: bool | float | None = None


class _Document(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    turns: list[str | _TurnSpec]
    strict_models: bool = True


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
    try:
        document = msgspec.convert(doc, _Document)
    except msgspec.ValidationError as e:
        raise ScriptFileError(f"{source}: {e}") from None
    turns = tuple(_turn(t, source, f"$.turns[{i}]") for i, t in enumerate(document.turns))
    return Script(turns, document.strict_models)


def _fail(source: str, where: str, why: str) -> ScriptFileError:
    return ScriptFileError(f"{source}: {why} - at `{where}`")


def _turn(spec: str | _TurnSpec, source: str, where: str) -> Turn:
    if isinstance(spec, str):
        return spec
    answer = (spec.text, spec.tool_calls, spec.blocks, spec.stop_reason)
    if spec.error is not None or spec.timeout is not None:
        if (spec.error is not None and spec.timeout is not None) or any(v is not None for v in answer):
            raise _fail(source, where, "`error` and `timeout` stand alone in a turn")
        return _error(spec.error, source, f"{where}.error") if spec.error is not None else _timeout(spec, source, where)
    if all(v is None for v in answer):
        raise _fail(source, where, "an empty turn (give text, tool_calls, content, stop_reason, error or timeout)")
    blocks: list[ContentBlock] = []
    if spec.text is not None:
        blocks.append(TextBlock(spec.text))
    if spec.blocks is not None:
        try:
            blocks.extend(blocks_from_api(spec.blocks, path=f"{where}.content"))
        except DecodeError as e:
            raise ScriptFileError(f"{source}: {e}") from None
    for call in spec.tool_calls or []:
        blocks.append(ToolUseBlock(id=call.id, name=call.name, input=call.input))
    for i, call in enumerate(spec.tool_calls or []):
        if not call.name:
            raise _fail(source, f"{where}.tool_calls[{i}].name", "expected the tool's name")
    if spec.stop_reason is None:
        return tuple(blocks)
    if spec.stop_reason not in STOP_REASONS:
        why = f"expected one of {', '.join(STOP_REASONS)}, got {spec.stop_reason!r}"
        raise _fail(source, f"{where}.stop_reason", why)
    return StopTurn(blocks, cast(ScriptedStopReason, spec.stop_reason))


def _error(spec: int | _Error, source: str, where: str) -> ErrorTurn:
    error = _Error(status=spec) if isinstance(spec, int) else spec
    if not 400 <= error.status <= 599:
        raise _fail(source, f"{where}.status", f"expected an HTTP error status 400..599, got {error.status}")
    if error.retry_after is not None and not error.retry_after >= 0:
        raise _fail(source, f"{where}.retry_after", f"expected seconds >= 0 or null, got {error.retry_after}")
    return ErrorTurn(error.status, error.type, error.message, error.retry_after)


def _timeout(spec: _TurnSpec, source: str, where: str) -> TimeoutTurn:
    seconds = spec.timeout
    if seconds is True:
        return TimeoutTurn()
    if seconds is False or seconds is None or not seconds >= 0:
        raise _fail(source, f"{where}.timeout", f"expected seconds >= 0 (or true: 30), got {seconds!r}")
    return TimeoutTurn(float(seconds))
