"""Deterministic stand-ins for a language model, for the local Messages API.

This module owns *what the local API answers*: given a request (a ``POST /v1/messages`` body,
validated and read once into a ``msgmodel.api.parsed.ParsedRequest``), a model returns the
assistant's content blocks. ``msgmodel.api.server`` turns those blocks into the API's Message JSON or its event
stream; nothing here knows about HTTP.

``Model``
    The protocol: ``respond(request) -> Sequence[ContentBlock]``. Any object with that
    method plugs into ``msgmodel.api.server.local_client(model)``. ``request`` is a
    ``ParsedRequest``: typed fields, and a read-only mapping over the JSON body (so a model that
    reads ``request["messages"]`` works as it did when it received the body itself).

``SequenceModel(turns)``
    Plays a script in *call order*: the first request gets turn 0, the second turn 1, and so
    on, whatever the history holds (as pytest-httpx and respx serve responses). This is the
    one for testing an agent: a summarizer sharing the client, compaction or a resumed
    session take the next turn, never an earlier one. It keeps the requests it was asked
    (``requests``), tells how many turns are left (``remaining``) and checks that all were
    used (``assert_all_used()``). A request past the end is a 500 ``api_error`` (not retried)
    naming the call.

``ScriptedModel(turns)``
    Plays a fixed script by *history*: turn ``i`` answers a request whose history holds ``i``
    assistant messages, so re-running a notebook cell replays the same answer (the model
    keeps no state). The chapters use it. An agent's test should not: after compaction
    the count goes down and an earlier turn is replayed, and a summarizer's request (no
    assistant message) gets turn 0.

A turn (``msgmodel.api.turns``) is a string (one text block), a list of blocks, an
``ErrorTurn`` (an API error status, which the SDK raises and may retry), a ``TimeoutTurn``, a
``StopTurn`` (blocks with a stop reason such as ``max_tokens`` or ``refusal``), or a callable
of the request returning any of these. ``tool_call(name, **input)`` is a tool call whose id the
local API generates.

``RuleModel()``
    A tiny rule-based agent over the demo tools (``read_file``, ``list_dir``, ``grep``,
    ``calculator``; their schemas live in ``msgmodel.api.demo_tools``). It only calls tools the
    request's ``tools`` list defines, filling arguments by the names in each tool's
    ``input_schema``. It answers in text after a tool result, or when no tool fits. Asked
    to *summarize* without tools (in the last user message or the system prompt), it
    writes a summary from the conversation's text alone: the tool calls and results it
    can read there, and how many steps it sees only as placeholders such as
    ``(tool call)``, so a summary built from a flattened transcript visibly knows less
    than one built from ``transcript_of``. With ``thinking`` enabled
    in the request it opens every answer with a signed thinking block.

All three honour the request's ``tool_choice`` (``auto``, ``any``, ``tool``, ``none``,
``disable_parallel_tool_use``) and JSON output format (``output_config.format``) through
``msgmodel.api.constraints.constrain``: a forced tool is called with an input built from its
``input_schema``, and JSON output is one document valid against the schema.

``ScriptedModel`` and ``RuleModel`` are deterministic: the same request gives the same blocks,
byte for byte; ``SequenceModel`` is, for the same sequence of requests. Tool-use ids derive from a
hash of the request's messages.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol, runtime_checkable

import msgspec

from msgmodel.api.constraints import constrain
from msgmodel.api.parsed import ParsedRequest, as_parsed, signature_for, tool_use_id_for
from msgmodel.api.turns import Reply, Turn, check_turn, play
from msgmodel.core.message import (
    ContentBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    is_tool_result_message,
    message_to_text,
    result_text,
    text_of,
    tool_results_of,
    tool_uses_of,
)

__all__ = [
    "Model",
    "RuleModel",
    "ScriptExhaustedError",
    "ScriptedModel",
    "SequenceModel",
    "Turn",
    "request_messages",
    "signature_for",
    "tool_use_id_for",
]


@runtime_checkable
class Model(Protocol):
    """What the local API asks for an answer: the assistant's blocks for one request.

    ``request`` is the accepted request, read once (``msgmodel.api.parsed.ParsedRequest``): typed
    fields (``messages`` as ``Message`` values, ``tools``, ``tool_choice``, ``system``, ...) and,
    as a read-only mapping, the JSON body itself (``request["messages"]``; ``request.body``).
    """

    def respond(self, request: ParsedRequest) -> Sequence[ContentBlock]: ...


class ScriptExhaustedError(LookupError):
    """A scripted model was asked for a turn its script does not have."""


class ScriptNotUsedError(AssertionError):
    """``SequenceModel.assert_all_used()``: some scripted turns were never asked for."""


def request_messages(request: ParsedRequest | Mapping[str, Any]) -> list[Message]:
    """The request's conversation as ``Message``s (``ParsedRequest.messages``; ``DecodeError`` if not one)."""
    return list(as_parsed(request).messages)


# ---------------------------------------------------------------------------------------
# ScriptedModel
# ---------------------------------------------------------------------------------------


def _check_turns(turns: Sequence[Turn], owner: str) -> tuple[Turn, ...]:
    if isinstance(turns, (str, bytes)) or not isinstance(turns, Sequence):
        raise TypeError(f"{owner}: turns must be a list of turns, got {type(turns).__name__}")
    return tuple(check_turn(turn, f"{owner} turn {i}") for i, turn in enumerate(turns))


@dataclass(frozen=True)
class ScriptedModel:
    """Answers with scripted turns: turn ``i`` for a history holding ``i`` assistant messages."""

    turns: Sequence[Turn]

    def __post_init__(self) -> None:
        object.__setattr__(self, "turns", _check_turns(self.turns, "ScriptedModel"))

    def respond(self, request: ParsedRequest | Mapping[str, Any]) -> Reply:
        """The turn for ``request`` (a body is parsed first), after its ``tool_choice`` and output format."""
        req = as_parsed(request)
        index = sum(1 for m in req.messages if m.role == "assistant")
        if index >= len(self.turns):
            raise ScriptExhaustedError(
                f"the script has {len(self.turns)} turn(s); this request's history holds {index} assistant "
                f"message(s), so it asks for turn {index}"
            )
        reply = play(self.turns[index], req, f"ScriptedModel turn {index}")
        return Reply(constrain(list(reply), req), reply.stop_reason)


class SequenceModel:
    """Answers with scripted turns in call order: the ``n``-th request gets turn ``n``; see the module docstring.

    ``requests`` holds every request it was asked (those the local API accepted; a refused one
    never reaches a model), in order, including the one past the end of the script. Safe to
    share between threads: each request takes the next turn under a lock.
    """

    def __init__(self, turns: Sequence[Turn] = ()) -> None:
        self.turns: tuple[Turn, ...] = _check_turns(turns, "SequenceModel")
        self.requests: list[ParsedRequest] = []
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"SequenceModel({len(self.turns)} turn(s), {len(self.requests)} used)"

    @property
    def used(self) -> int:
        """How many turns have been asked for (requests past the end included)."""
        return len(self.requests)

    @property
    def remaining(self) -> int:
        """How many turns are left."""
        return max(0, len(self.turns) - len(self.requests))

    def respond(self, request: ParsedRequest | Mapping[str, Any]) -> Reply:
        """The next turn's answer to ``request`` (a body is parsed first), after its ``tool_choice`` and format."""
        req = as_parsed(request)
        with self._lock:
            index = len(self.requests)
            self.requests.append(req)
        if index >= len(self.turns):
            raise ScriptExhaustedError(
                f"the script has {len(self.turns)} turn(s) and this is request {index + 1}: "
                f"add a turn, or find out why the agent calls once more ({len(req.messages)} message(s) sent)"
            )
        reply = play(self.turns[index], req, f"SequenceModel turn {index}")
        return Reply(constrain(list(reply), req), reply.stop_reason)

    def assert_all_used(self) -> None:
        """``ScriptNotUsedError`` (an ``AssertionError``) unless every turn was asked for."""
        if self.remaining:
            left = ", ".join(f"{i}: {_describe_turn(self.turns[i])}" for i in range(self.used, len(self.turns)))
            raise ScriptNotUsedError(
                f"{self.remaining} of {len(self.turns)} scripted turn(s) never asked for (the agent made "
                f"{self.used} request(s)): {left}"
            )


def _describe_turn(turn: Turn) -> str:
    if isinstance(turn, str):
        return repr(turn if len(turn) <= 40 else turn[:40] + "…")
    if callable(turn):
        return f"a function ({getattr(turn, '__name__', type(turn).__name__)})"
    if isinstance(turn, tuple):
        return "[" + ", ".join(b.type for b in turn) + "]"
    return type(turn).__name__


# ---------------------------------------------------------------------------------------
# RuleModel
# ---------------------------------------------------------------------------------------

_PATH_RE: Final = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.[A-Za-z][\w]{0,7})(?![\w/])")
_DIR_RE: Final = re.compile(r"(?<![\w/.-])((?:\.{1,2}|[\w-]+)(?:/[\w.-]+)*/)(?![\w])")
_QUOTED_RE: Final = re.compile(r"[\"'`“‘]([^\"'`”’]+)[\"'`”’]")
_TRIGGER_END_RE: Final = re.compile(r"\b(?:grep|search|look|find|where)\Z", re.IGNORECASE)
_WORD_RE: Final = re.compile(r"\w+")
_EXPR_RE: Final = re.compile(r"[-(]*\d+(?:\.\d+)?\)*(?:\s*(?:\*\*|//|[-+*/%])\s*[-(]*\d+(?:\.\d+)?\)*)+")
_SUMMARY_RE: Final = re.compile(r"\bsummar(?:y|ize|ise|izing|ising)\b", re.IGNORECASE)
_LIST_RE: Final = re.compile(r"\b(?:list|ls|director(?:y|ies)|folders?|files in)\b", re.IGNORECASE)
_CALL_HEAD_RE: Final = re.compile(r"\[call ([\w.-]+)\(")
_RESULT_HEAD_RE: Final = re.compile(r"\[result( \(failed\))?: ")
_RESULT_END_RE: Final = re.compile(r"\](?=\s|\Z)")
_PLACEHOLDER_RE: Final = re.compile(r"\((?:tool call|tool result|tool use|tool_use|tool_result)\)", re.IGNORECASE)
_TASK_RE: Final = re.compile(r"^User: (?!\[result)(.+)$", re.MULTILINE | re.IGNORECASE)

_MAX_PARALLEL: Final = 4
_SCAN_CHARS: Final = 2048
"""The rules that pick a tool read at most this many characters of the user's text: the
regular expressions for paths and expressions backtrack, so what they scan is bounded."""
_CUT: Final = 80


def _cut(s: str, limit: int = _CUT) -> str:
    s = " ".join(s.split())
    return s[:limit] + "…" if len(s) > limit else s


def _tool_schemas(req: ParsedRequest) -> dict[str, Mapping[str, Any]]:
    """The request's tools by name: name -> input schema (``{}`` when absent)."""
    return {t.name: t.input_schema if t.input_schema is not None else {} for t in req.tools}


def _arguments(schema: Mapping[str, Any], wanted: Sequence[tuple[Sequence[str], object]]) -> dict[str, Any]:
    """Fill a tool's input from ``wanted`` (candidate property names, value), by its schema.

    Each value goes to the first candidate name the schema declares; when it declares
    none of them, to the first declared property not taken yet; with no properties at all,
    to the first candidate name.
    """
    properties = schema.get("properties")
    declared = list(properties) if isinstance(properties, Mapping) else []
    args: dict[str, Any] = {}
    for names, value in wanted:
        key = next((n for n in names if n in declared and n not in args), None)
        if key is None:
            key = next((n for n in declared if n not in args), None) if declared else names[0]
        if key is not None and key not in args:
            args[key] = value
    return args


def _last_user_text(messages: Sequence[Message]) -> str:
    for m in reversed(messages):
        if m.role == "user":
            return text_of(m)
    return ""


@dataclass(frozen=True)
class RuleModel:
    """A deterministic little agent over the demo tools; see the module docstring."""

    def respond(self, request: ParsedRequest | Mapping[str, Any]) -> Sequence[ContentBlock]:
        """The rule agent's answer to ``request`` (a body is parsed first)."""
        req = as_parsed(request)
        blocks = constrain(self._answer(req), req)
        if req.thinking_on:
            thought = self._thought(req.messages, blocks)
            return [ThinkingBlock(thinking=thought, signature=req.signature(thought)), *blocks]
        return blocks

    def _answer(self, req: ParsedRequest) -> list[ContentBlock]:
        messages, tools = req.messages, _tool_schemas(req)
        last = messages[-1] if messages else None
        if last is not None and last.role == "user" and is_tool_result_message(last):
            return [TextBlock(_report_results(messages))]
        text = _last_user_text(messages)
        if not tools and (_SUMMARY_RE.search(text) or _SUMMARY_RE.search(req.system)):
            return [TextBlock(_summarize(messages))]
        if last is not None and last.role == "user" and req.tool_choice.kind != "none":
            calls = _plan_calls(text, tools)
            if calls:
                intro = TextBlock(f"I'll use {', '.join(sorted({name for name, _ in calls}))} to answer that.")
                uses = [ToolUseBlock(id=req.tool_use_id(i), name=n, input=a) for i, (n, a) in enumerate(calls)]
                return [intro, *uses]
        return [TextBlock(_plain_answer(text, tools))]

    def _thought(self, messages: Sequence[Message], blocks: Sequence[ContentBlock]) -> str:
        calls = sorted({b.name for b in blocks if b.type == "tool_use"})
        if calls:
            return f"The request needs {', '.join(calls)}; I will call it and read what comes back."
        if messages and is_tool_result_message(messages[-1]):
            return "The tool results are in; I will report what they say."
        return "No tool is needed here; I will answer directly."


def _search_for(text: str) -> str | None:
    r"""What follows ``for`` in "find/search/grep/look/where ... for X" (the words between plain words).

    The linear form of ``\b(?:grep|search|look|find|where)\b(?:\s+\w+)*?\s+for\s+(\S+)``: one
    pass over the whitespace-separated tokens, armed by a token ending in a trigger word,
    disarmed by a token that is not a plain word.
    """
    tokens = text.split()
    armed = False
    for i, token in enumerate(tokens):
        if armed and token.lower() == "for" and i + 1 < len(tokens):
            return tokens[i + 1]
        armed = armed and _WORD_RE.fullmatch(token) is not None
        if _TRIGGER_END_RE.search(token):
            armed = True
    return None


def _plan_calls(text: str, tools: Mapping[str, Mapping[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """Which demo tools to call for the user's ``text`` (its first ``_SCAN_CHARS``), among the ``tools`` defined."""
    text = text[:_SCAN_CHARS]
    lowered = text.lower()
    if "grep" in tools:
        quoted = _QUOTED_RE.search(text)
        search_for = _search_for(text)
        pattern = quoted.group(1) if quoted else (search_for.strip(".,;:!?") if search_for else None)
        if pattern and ("grep" in lowered or "search" in lowered or "find" in lowered or "where" in lowered):
            where = _DIR_RE.search(text)
            path = where.group(1) if where else "."
            return [("grep", _arguments(tools["grep"], [(("pattern", "regex", "query"), pattern), (("path",), path)]))]
    if "calculator" in tools:
        expr = _EXPR_RE.search(text)
        if expr:
            schema = tools["calculator"]
            return [("calculator", _arguments(schema, [(("expression", "expr", "input"), expr.group(0).strip())]))]
    if "read_file" in tools:
        paths = list(dict.fromkeys(m.group(1) for m in _PATH_RE.finditer(text)))[:_MAX_PARALLEL]
        if paths:
            schema = tools["read_file"]
            return [("read_file", _arguments(schema, [(("path", "file", "filename", "file_path"), p)])) for p in paths]
    if "list_dir" in tools and _LIST_RE.search(text):
        where = _DIR_RE.search(text)
        path = where.group(1) if where else "."
        return [("list_dir", _arguments(tools["list_dir"], [(("path", "dir", "directory"), path)]))]
    return []


def _report_results(messages: Sequence[Message]) -> str:
    """The answer after a tool round: one line per result, paired with its call."""
    last = messages[-1]
    previous = messages[-2] if len(messages) >= 2 else None
    calls = {u.id: u for u in tool_uses_of(previous)} if previous is not None else {}
    lines = []
    for r in tool_results_of(last):
        use = calls.get(r.tool_use_id)
        # Named as `name(args)`, not in the `[call ...]` form of block_to_text: this answer goes
        # back into the conversation, and a summary must not count a report as another call.
        what = f"{use.name}({_cut(msgspec.json.encode(use.input).decode())})" if use is not None else r.tool_use_id
        text = result_text(r)
        first = text.strip().splitlines()[0] if text.strip() else "(empty)"
        n_lines = len(text.splitlines())
        if r.is_error:
            lines.append(f"- {what} failed: {_cut(first)}")
        else:
            lines.append(f"- {what} returned {n_lines} line(s); the first is: {_cut(first)}")
    head = "Here is what the tools returned:" if lines else "There were no tool results to read."
    return "\n".join([head, *lines])


def _plain_answer(text: str, tools: Mapping[str, Mapping[str, Any]]) -> str:
    said = _cut(text) if text.strip() else "(nothing)"
    if tools:
        return f"You said: {said}. None of my tools ({', '.join(sorted(tools))}) fits that, so I answer directly."
    return f"You said: {said}. I have no tools in this request, so I answer directly."


def _find_spans(
    text: str, head: re.Pattern[str], end_at: Callable[[int], tuple[int, int] | None]
) -> list[tuple[str, str]]:
    """``findall`` of ``head`` + lazy body + end, in one pass: (the head's group, the body) per match.

    ``end_at(i)`` is the span of the first end at or after ``i``. Once no end follows a head,
    none follows a later one, so the scan stops: linear where the lazy ``(.*?)`` was quadratic.
    """
    found: list[tuple[str, str]] = []
    at = 0
    while (m := head.search(text, at)) is not None:
        end = end_at(m.end())
        if end is None:
            break
        found.append((m.group(1) or "", text[m.end() : end[0]]))
        at = end[1]
    return found


def _summarize(messages: Sequence[Message]) -> str:
    """A summary from the conversation's text alone: what a summarizer can know is what it reads.

    The ``system`` prompt is instructions, not conversation, and is not summarized.
    """
    text = "\n\n".join(message_to_text(m) for m in messages)
    calls = _find_spans(text, _CALL_HEAD_RE, lambda at: (i, i + 2) if (i := text.find(")]", at)) >= 0 else None)
    results = _find_spans(
        text, _RESULT_HEAD_RE, lambda at: m.span() if (m := _RESULT_END_RE.search(text, at)) else None
    )
    placeholders = len(_PLACEHOLDER_RE.findall(text))
    lines = ["Summary of the conversation so far (built only from the text I was given):"]
    task = _TASK_RE.search(text)
    if task:
        lines.append(f"- Task: {_cut(task.group(1))}")
    if calls:
        lines.append(f"- Tool calls I can see: {len(calls)}")
        for i, (name, args) in enumerate(calls):
            outcome = "result not shown"
            if i < len(results):
                failed, body = results[i]
                outcome = ("failed: " if failed else "returned: ") + _cut(body, 60)
            lines.append(f"  {i + 1}. {name} {_cut(args, 60)} → {outcome}")
    if placeholders:
        lines.append(
            f"- {placeholders} step(s) appear only as placeholders like (tool call): which tool ran, "
            "with what input, and what it returned is not in the transcript, so I cannot say."
        )
    if not calls and not placeholders:
        lines.append("- No tool activity is visible in the transcript.")
    return "\n".join(lines)
