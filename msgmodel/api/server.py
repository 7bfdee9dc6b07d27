"""A local Anthropic Messages API that validates like the live one, and the clients that use it.

This module owns the *wire* side of the local API: how a ``POST /v1/messages`` request
is accepted or refused, and what the answer looks like (the Message JSON, or its
server-sent events when ``stream`` is true). What the model says comes from a pluggable
deterministic ``msgmodel.api.scripted.Model`` (``RuleModel`` by default); which request bodies are legal
is decided by ``msgmodel.api.request.validate_body`` (every field; the ``messages`` rules are
``msgmodel.core.protocol``'s); how much of the answer is delivered and what usage it reports,
by ``msgmodel.api.limits``; the Models endpoints are ``msgmodel.api.models``.

The pieces
    ``handle_messages(body, headers=None, *, model=None, seq=1) -> Response``
        The pure handler: JSON bytes in, ``Response(status, headers, body)`` out.
    ``LocalAPI(model)``
        Routes ``(method, path, headers, body)`` to ``POST /v1/messages``,
        ``POST /v1/messages/count_tokens``, ``GET /v1/models`` and ``GET /v1/models/{id}``, and
        numbers the answered messages (``msg_local_000001``, ...; refused requests take no number). Both transports
        below share it.
    ``local_client(model=None, *, strict_models=True, **kwargs)`` / ``async_local_client(...)``
        The official ``anthropic`` SDK client wired to a fresh ``LocalAPI`` in-process
        through ``httpx2.MockTransport``: no socket, no key, ``max_retries=0``.
        ``sdk_client(api, on_exchange=...)`` wires one to a given ``LocalAPI`` and reports every
        exchange (the testing kit's request log, ``msgmodel.api.testing``).
    ``client(*, model=None, local=None)``
        The local API, always, unless the live (paid) API is asked for explicitly: ``local=False``
        or ``MSGMODEL_LIVE=1`` in the environment (``MSGMODEL_OFFLINE=1`` wins over it). A key in
        the environment alone never switches it. The key is read by the SDK only; this module
        never prints, logs or stores it. ``is_local(c)`` tells which one a client is.
    ``make_server(port=0, ...)`` / ``serve(port, ...)``
        The same handler over HTTP, on loopback only. ``configure_serve`` / ``run_serve``
        are the ``python -m msgmodel serve --port N [--script FILE] [--any-model]`` subcommand
        for ``msgmodel.core.cli``; ``serve`` prints its base URL alone on standard output.

Errors, exactly as the live API shapes them
    A refused request is HTTP 400 with
    ``{"type": "error", "error": {"type": "invalid_request_error", "message": ...},
    "request_id": "req_local_..."}``. The SDK raises ``anthropic.BadRequestError``. Its
    ``str(err)`` is ``Error code: 400 - {...python repr of the body...}``; the API's own
    text, verbatim, is ``err.body["error"]["message"]`` (also ``err.api_message`` in SDK
    2.14+)::

        try:
            c.messages.create(model=..., max_tokens=..., messages=to_api(history))
        except anthropic.BadRequestError as err:
            print(err.body["error"]["message"])
            # messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: ...

    The request id is a hash of the request, so a notebook's output is stable.

    What is checked, in order (first failure wins):

    * ``thread`` (message threads, which this server does not keep): a body carrying one gets
      400 with ``error.details.error_code`` ``thread_unsupported_request``, the code SDK 2.14's
      tool runner recovers from by resending the full history without ``thread`` (the message
      text is ours);
    * headers (only when given): ``anthropic-version: header is required``;
    * the body is JSON: ``Invalid JSON: <detail>`` (pydantic's wording, which the API's
      request models use; the detail is pydantic-core's when it is installed);
      (a body nested deeper than the decoder's limit included:
      ``Invalid JSON: recursion limit exceeded at line 1 column N``);
    * ``msgmodel.api.request.validate_body``: the first violation's text, verbatim: every field
      of the SDK's ``MessageCreateParams`` (types, ranges, unknown keys, tools, ``tool_choice``,
      ``thinking`` ...), the ``messages`` rules of ``msgmodel.core.protocol``, then the model:
      an id the SDK does not list is 404 ``not_found_error`` ``model: <id>`` (unless
      ``strict_models=False``: then any id is answered).

    The accepted body is then read once into a ``msgmodel.api.parsed.ParsedRequest``, which the
    model, the constraints and the limits all work from. A forced tool's ``input_schema`` or the
    JSON output schema that has no value, or that ``msgmodel.api.schema_instance`` cannot serve
    within its bounds, is a 400 ``invalid_request_error`` ``the local API cannot build a value for
    this schema: <path in the schema>: ...`` (our wording).

    A model may also answer with an error of its choosing (a scripted ``ErrorTurn``: 429
    ``rate_limit_error``, 529 ``overloaded_error``, 401 ...; see ``msgmodel.api.turns``), leave
    the request unanswered (``TimeoutTurn``) or pick the stop reason (``StopTurn``).

    Other statuses: 404 ``not_found_error`` for an unknown path, 405 for a wrong method,
    413 ``request_too_large`` over 32 MiB (``Request exceeds the maximum allowed number of
    bytes.``), 500 ``api_error`` when the plugged model raises (its text included), 504
    ``timeout_error`` when a request's work outlasts its time budget (10 s by default; the text
    is ours, see ``msgmodel.api.budget``), with ``x-should-retry: false``. The budget covers the
    whole answer: building a schema's value, the model's answer, and encoding it.

The answer
    ``id`` ``msg_local_NNNNNN``, ``type`` ``message``, ``role`` ``assistant``, the
    request's ``model``, the model's blocks after the request's ``tool_choice`` and JSON output
    format were applied to them (``msgmodel.api.constraints.constrain``, as the live API
    constrains its decoding), serialized by ``msgmodel.core.message.to_api`` and cut by
    ``max_tokens`` and ``stop_sequences``, ``stop_reason`` (``end_turn``, ``tool_use``,
    ``max_tokens`` or ``stop_sequence``; a model's ``Reply`` may choose another, ``refusal`` say),
    ``stop_sequence``, and ``usage`` in the SDK's shape
    (one token = 4 bytes of UTF-8; ``input_tokens`` equals ``count_tokens``'s): see
    ``msgmodel.api.limits``. A thinking block the model left unsigned gets a deterministic
    signature, as the API signs every thinking block it returns.

    With ``stream: true`` the same message arrives as the API's events: ``message_start``,
    ``ping``, per block ``content_block_start`` / ``content_block_delta`` (``text_delta``,
    ``input_json_delta``, ``thinking_delta``, ``signature_delta``) / ``content_block_stop``,
    then ``message_delta`` (stop reason, cumulative usage) and ``message_stop``. The SDK's
    ``client.messages.stream(...).get_final_message()`` rebuilds exactly the blocks of the
    non-streaming answer.

Over HTTP (``LocalServer``)
    Loopback only. A request (its request line, headers and body) must arrive whole within
    ``socket_timeout`` seconds (30) of the moment the server starts waiting for it, a trickle a
    byte at a time included: a connection idle or slower than that is closed; a body shorter
    than its ``Content-Length`` is a 400. At most ``max_connections`` (64) are served at once:
    one more waits up to ``overload_wait`` (1 s) for a free slot, then gets the API's 529
    ``overloaded_error`` (which the SDK retries), never a reset. It waits in a queue, without a
    thread of its own and never in the accept loop (``msgmodel.api.admission``), so a burst past
    the cap delays no other client. A client that disconnects early
    is not logged as an error; ``Content-Length`` must be one header of ASCII digits (``1_0``,
    ``+5`` or two headers are a 400 ``Invalid Content-Length``).

``import msgmodel.api.server`` does not import ``anthropic`` (~1 s) or ``httpx2``; the functions
that make a client do.
"""

from __future__ import annotations

import argparse
import errno
import hashlib
import io
import ipaddress
import os
import re
import socket
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias, assert_never
from urllib.parse import unquote

import msgspec

from msgmodel.api import budget, limits, models
from msgmodel.api.admission import Admission
from msgmodel.api.constraints import constrain
from msgmodel.api.parsed import ParsedRequest, parse_request
from msgmodel.api.request import validate_body
from msgmodel.api.schema_instance import SchemaError
from msgmodel.api.scripted import Model, RuleModel, ScriptExhaustedError
from msgmodel.api.turns import ErrorAnswer, ErrorTurn, Reply, TimeoutAnswer
from msgmodel.core.message import (
    ContentBlock,
    DecodeError,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    block_to_api,
)

if TYPE_CHECKING:
    import anthropic
    import httpx2

__all__ = [
    "BASE_URL",
    "DEFAULT_PORT",
    "LOCAL_API_KEY",
    "MAX_BODY_BYTES",
    "SERVE_HELP",
    "ErrorType",
    "LocalAPI",
    "LocalServer",
    "Response",
    "async_local_client",
    "async_sdk_client",
    "client",
    "configure_serve",
    "error_response",
    "handle_count_tokens",
    "handle_messages",
    "is_local",
    "local_client",
    "make_server",
    "run_serve",
    "sdk_client",
    "serve",
]

BASE_URL: Final = "http://msgmodel.local"
"""The base URL of the in-process clients (never resolved: the transport answers in-process)."""
LOCAL_API_KEY: Final = "local-no-key"
"""The dummy key the local clients send; the local API accepts any key."""
MAX_BODY_BYTES: Final = 32 * 1024 * 1024
"""The live API's request-size limit for the Messages endpoints (32 MB)."""
DEFAULT_PORT: Final = 8765

MESSAGES_PATH: Final = "/v1/messages"
COUNT_TOKENS_PATH: Final = "/v1/messages/count_tokens"
MODELS_PATH: Final = "/v1/models"
_TOO_LARGE: Final = "Request exceeds the maximum allowed number of bytes."
_DELTA_CHARS: Final = 32
"""Deltas of a streamed block carry this many characters each (deterministic chunking)."""

ErrorType: TypeAlias = Literal[
    "invalid_request_error", "not_found_error", "request_too_large", "api_error", "timeout_error"
]
"""The API's ``error.type`` values this local API answers with by itself (a scripted ``ErrorTurn``
may answer with any other, ``rate_limit_error`` or ``overloaded_error`` say)."""


# ---------------------------------------------------------------------------------------
# The response value
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Response:
    """One HTTP answer: status, headers (lower-case names, in order) and the body bytes."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes

    def header(self, name: str) -> str | None:
        """The value of header ``name`` (case-insensitive), or None."""
        wanted = name.lower()
        return next((v for k, v in self.headers if k == wanted), None)

    def json(self) -> Any:
        """The body decoded as JSON (for a JSON answer)."""
        return msgspec.json.decode(self.body)


_ENCODER: Final = msgspec.json.Encoder()


def _request_id(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part)
        h.update(b"\x00")
    return "req_local_" + h.hexdigest()[:24]


def _json_response(status: int, payload: object, request_id: str) -> Response:
    headers = (("content-type", "application/json"), ("request-id", request_id))
    return Response(status, headers, _ENCODER.encode(payload))


def error_response(
    status: int,
    error_type: ErrorType | str,
    message: str,
    *,
    request_id: str,
    details: Mapping[str, Any] | None = None,
) -> Response:
    """An error in the API's shape: ``{"type": "error", "error": {...}, "request_id": ...}``.

    ``details`` becomes ``error.details`` (the SDK reads ``error.details.error_code``).
    """
    error: dict[str, Any] = {"type": error_type, "message": message}
    if details is not None:
        error["details"] = dict(details)
    payload = {"type": "error", "error": error, "request_id": request_id}
    return _json_response(status, payload, request_id)


THREAD_UNSUPPORTED: Final = "thread: this server keeps no message threads; send the full conversation without `thread`."
"""The text of the 400 that answers a request carrying ``thread`` (our wording; the code is the API's)."""


def _thread_refusal(request: object, request_id: str) -> Response | None:
    """The 400 ``thread_unsupported_request`` for a request that carries a ``thread``, else None.

    SDK 2.14's tool runner (``client.beta.messages.tool_runner``) threads by default: it sends
    ``thread: {"type": "create"}``, then only the new messages with ``{"type": "continue", ...}``.
    This server keeps no threads, so it answers the first one with the error the SDK recognises
    (``error.details.error_code == "thread_unsupported_request"``); the runner then sends every
    turn with the full history and no ``thread``. Checked before anything else is (a
    ``continue`` request alone looks invalid), on the body ``_check_request`` decoded.
    """
    if not isinstance(request, dict) or request.get("thread") is None:
        return None
    return error_response(
        400,
        "invalid_request_error",
        THREAD_UNSUPPORTED,
        request_id=request_id,
        details={"error_code": "thread_unsupported_request"},
    )


# ---------------------------------------------------------------------------------------
# Request checks
# ---------------------------------------------------------------------------------------


def _json_error_detail(body: bytes, fallback: str) -> str:
    """pydantic-core's description of why ``body`` is not JSON (msgspec's when it is missing)."""
    try:
        import pydantic_core
    except ImportError:  # pragma: no cover - pydantic comes with the SDK
        return fallback
    try:
        pydantic_core.from_json(body)
    except ValueError as e:
        return str(e)
    return fallback  # pragma: no cover - both parsers agree on what JSON is


def _check_request(
    body: bytes,
    headers: Mapping[str, str] | None,
    request_id: str,
    *,
    needs_max_tokens: bool,
    refuse_thread: bool = False,
    strict_models: bool = True,
) -> dict[str, Any] | Response:
    """The parsed request, or the 400 the live API would answer (``refuse_thread``: see ``_thread_refusal``)."""
    request: Any = None
    json_error: Exception | None = None
    try:
        request = msgspec.json.decode(body)
    except (msgspec.DecodeError, RecursionError) as e:  # RecursionError: nesting deeper than the decoder's limit
        json_error = e
    refusal = _thread_refusal(request, request_id) if refuse_thread and json_error is None else None
    if refusal is not None:
        return refusal
    if headers is not None and not any(k.lower() == "anthropic-version" for k in headers):
        return error_response(
            400, "invalid_request_error", "anthropic-version: header is required", request_id=request_id
        )
    if json_error is not None:
        detail = _json_error_detail(body, str(json_error))
        return error_response(400, "invalid_request_error", f"Invalid JSON: {detail}", request_id=request_id)
    try:
        violations = validate_body(request, count_tokens=not needs_max_tokens)
    except RecursionError:  # a validator recursing on deep input must still answer in the API's shape
        text = "request nesting is too deep"  # our wording
        return error_response(400, "invalid_request_error", text, request_id=request_id)
    if not strict_models:  # any model id is answered (a fine-tune, a model newer than the SDK)
        violations = [v for v in violations if v.rule != "model_not_found"]
    if violations:
        if violations[0].rule == "model_not_found":
            return error_response(404, "not_found_error", str(violations[0]), request_id=request_id)
        return error_response(400, "invalid_request_error", str(violations[0]), request_id=request_id)
    assert isinstance(request, dict)  # validate_body refuses anything else
    return request


# ---------------------------------------------------------------------------------------
# The answer
# ---------------------------------------------------------------------------------------


def _signed(blocks: Sequence[ContentBlock], request: ParsedRequest) -> list[ContentBlock]:
    """The blocks, every thinking block signed (the API signs all it returns)."""
    out: list[ContentBlock] = []
    for b in blocks:
        if b.type == "thinking" and b.signature is None:
            b = ThinkingBlock(thinking=b.thinking, signature=request.signature(b.thinking), extra=b.extra)
        out.append(b)
    return out


def _message(request: ParsedRequest, delivered: limits.Delivered, content: msgspec.Raw, seq: int) -> dict[str, Any]:
    """The Message JSON answering ``request`` with the ``delivered`` blocks (``content`` is their wire form)."""
    return {
        "id": f"msg_local_{seq:06d}",
        "type": "message",
        "role": "assistant",
        "model": request.model,
        "content": content,
        "stop_reason": delivered.stop_reason,
        "stop_sequence": delivered.stop_sequence,
        "usage": limits.usage(limits.input_tokens(request.body), limits.output_tokens(delivered.blocks)),
    }


def _chunks(s: str) -> list[str]:
    return [s[i : i + _DELTA_CHARS] for i in range(0, len(s), _DELTA_CHARS)]


def _block_events(index: int, block: ContentBlock) -> list[dict[str, Any]]:
    """The events that stream one content block: its empty start, its deltas, its stop."""
    deltas: list[dict[str, Any]]
    match block:
        case TextBlock():
            start = block_to_api(TextBlock("", extra=block.extra))
            deltas = [{"type": "text_delta", "text": c} for c in _chunks(block.text)]
        case ThinkingBlock():
            start = block_to_api(ThinkingBlock("", signature="", extra=block.extra))
            deltas = [{"type": "thinking_delta", "thinking": c} for c in _chunks(block.thinking)]
            deltas.append({"type": "signature_delta", "signature": block.signature or ""})
        case ToolUseBlock():
            start = block_to_api(ToolUseBlock(id=block.id, name=block.name, input={}, extra=block.extra))
            partial = _ENCODER.encode(block.input).decode()
            deltas = [{"type": "input_json_delta", "partial_json": c} for c in _chunks(partial)]
        case ToolResultBlock() | OpaqueBlock():  # kinds the SDK does not stream piecewise: whole in the start
            start, deltas = block_to_api(block), []
        case _:
            assert_never(block)
    return [
        {"type": "content_block_start", "index": index, "content_block": start},
        *({"type": "content_block_delta", "index": index, "delta": d} for d in deltas),
        {"type": "content_block_stop", "index": index},
    ]


def _stream_events(message: Mapping[str, Any], blocks: Sequence[ContentBlock]) -> list[dict[str, Any]]:
    """The server-sent events that deliver ``message`` (the Message JSON of ``blocks``), in order."""
    usage = message["usage"]
    start = {
        **message,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": limits.message_start_usage(usage),
    }
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}, {"type": "ping"}]
    for i, block in enumerate(blocks):
        events.extend(_block_events(i, block))
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": message["stop_sequence"]},
            "usage": limits.message_delta_usage(usage),
        }
    )
    events.append({"type": "message_stop"})
    return events


def _sse(events: Sequence[Mapping[str, Any]]) -> bytes:
    return b"".join(b"event: " + e["type"].encode() + b"\ndata: " + _ENCODER.encode(e) + b"\n\n" for e in events)


TIMED_OUT: Final = "Request timed out: the local API's time budget for one request ran out"
"""The text of the 504 ``timeout_error`` (our wording; the status and type are the API's)."""


def _within_budget(seconds: float | None, request_id: str, answer: Callable[[], Response]) -> Response:
    """``answer()`` under a time budget; the API's 504 ``timeout_error`` when it runs out.

    Retrying gives the same 504 (the local API is deterministic), so the answer says
    ``x-should-retry: false`` (the SDK's own header; sending it here is our choice)."""
    try:
        with budget.within(seconds):
            return answer()
    except budget.BudgetExceeded as e:
        r = error_response(504, "timeout_error", f"{TIMED_OUT} ({e.path})", request_id=request_id)
        return Response(r.status, (*r.headers, ("x-should-retry", "false")), r.body)


def handle_messages(
    body: bytes,
    headers: Mapping[str, str] | None = None,
    *,
    model: Model | None = None,
    seq: int | Callable[[], int] = 1,
    time_budget: float | None = budget.REQUEST_BUDGET,
    strict_models: bool = True,
) -> Response:
    """Answer one ``POST /v1/messages`` as the live API would.

    ``seq`` numbers the message id (``msg_local_000001`` for 1); a function is called
    only for an answered request, so refused ones take no number. ``headers`` are checked
    only when given (the SDK always sends ``anthropic-version``). Work past ``time_budget``
    seconds (``None``: no limit) stops with a 504 ``timeout_error`` (``msgmodel.api.budget``).
    ``strict_models=False`` answers any model id (by default one the SDK does not list is a 404).

    A model may answer with an API error (it raises ``msgmodel.api.turns.ErrorAnswer``: that
    status and error, with ``retry-after-ms``), choose the stop reason (it returns a
    ``msgmodel.api.turns.Reply``; ``max_tokens`` and ``stop_sequences`` still cut first), or
    leave the request unanswered (``TimeoutAnswer`` propagates to the transport).
    """
    request_id = _request_id(b"POST", MESSAGES_PATH.encode(), body)
    return _within_budget(
        time_budget, request_id, lambda: _answer_messages(body, headers, model, seq, request_id, strict_models)
    )


def _scripted_error(turn: ErrorTurn, request_id: str) -> Response:
    """The API's error for an ``ErrorTurn``, with ``retry-after-ms`` when it has a ``retry_after``."""
    r = error_response(turn.status, turn.error_type, turn.text, request_id=request_id)
    if turn.retry_after is None:
        return r
    return Response(r.status, (*r.headers, ("retry-after-ms", f"{turn.retry_after * 1000:g}")), r.body)


def _answer_messages(
    body: bytes,
    headers: Mapping[str, str] | None,
    model: Model | None,
    seq: int | Callable[[], int],
    request_id: str,
    strict_models: bool = True,
) -> Response:
    checked = _check_request(
        body, headers, request_id, needs_max_tokens=True, refuse_thread=True, strict_models=strict_models
    )
    if isinstance(checked, Response):
        return checked
    try:
        request = parse_request(checked)
    except DecodeError as e:  # the validator accepted a history the codec cannot read
        return error_response(400, "invalid_request_error", str(e), request_id=request_id)
    try:
        answer = (model if model is not None else RuleModel()).respond(request)
        budget.check("the model's answer")
        delivered = limits.apply_limits(_signed(constrain(list(answer), request), request), request)
        chosen = answer.stop_reason if isinstance(answer, Reply) else None
        if chosen is not None and delivered.stop_reason not in ("max_tokens", "stop_sequence"):
            delivered = limits.Delivered(delivered.blocks, chosen)
        # Encoded once, inside the budget: a model's block that is not JSON fails here, as the model's fault.
        content = msgspec.Raw(_ENCODER.encode([block_to_api(b) for b in delivered.blocks]))
        budget.check("encoding the answer")
    except DecodeError as e:  # the validator accepted a history the codec cannot read
        return error_response(400, "invalid_request_error", str(e), request_id=request_id)
    except SchemaError as e:  # a tool's or the output format's schema this server cannot serve (wording ours)
        text = f"the local API cannot build a value for this schema: {e}"
        return error_response(400, "invalid_request_error", text, request_id=request_id)
    except ErrorAnswer as e:  # a scripted API error (ErrorTurn)
        return _scripted_error(e.turn, request_id)
    except (budget.BudgetExceeded, TimeoutAnswer):
        raise
    except ScriptExhaustedError as e:  # asking again gives the same answer: not worth a retry
        r = error_response(500, "api_error", f"local model failed: {type(e).__name__}: {e}", request_id=request_id)
        return Response(r.status, (*r.headers, ("x-should-retry", "false")), r.body)
    except Exception as e:
        return error_response(500, "api_error", f"local model failed: {type(e).__name__}: {e}", request_id=request_id)
    message = _message(request, delivered, content, seq() if callable(seq) else seq)
    if request.stream:
        sse_headers = (
            ("content-type", "text/event-stream; charset=utf-8"),
            ("cache-control", "no-cache"),
            ("request-id", request_id),
        )
        return Response(200, sse_headers, _sse(_stream_events(message, delivered.blocks)))
    return _json_response(200, message, request_id)


def handle_count_tokens(
    body: bytes,
    headers: Mapping[str, str] | None = None,
    *,
    time_budget: float | None = budget.REQUEST_BUDGET,
    strict_models: bool = True,
) -> Response:
    """Answer one ``POST /v1/messages/count_tokens``: ``{"input_tokens": N}`` for a valid request."""
    request_id = _request_id(b"POST", COUNT_TOKENS_PATH.encode(), body)

    def answer() -> Response:
        checked = _check_request(body, headers, request_id, needs_max_tokens=False, strict_models=strict_models)
        if isinstance(checked, Response):
            return checked
        return _json_response(200, {"input_tokens": limits.input_tokens(checked)}, request_id)

    return _within_budget(time_budget, request_id, answer)


# ---------------------------------------------------------------------------------------
# Routing, shared by the in-process and the HTTP transport
# ---------------------------------------------------------------------------------------


class LocalAPI:
    """The local API's endpoints over one model; numbers its answers from ``msg_local_000001``.

    ``strict_models=False`` answers any model id (a fine-tune, a model newer than the installed SDK);
    by default an id the SDK does not list is the live API's 404 ``not_found_error``.
    """

    def __init__(
        self,
        model: Model | None = None,
        *,
        max_body_bytes: int = MAX_BODY_BYTES,
        time_budget: float | None = budget.REQUEST_BUDGET,
        strict_models: bool = True,
    ) -> None:
        self.model: Model = model if model is not None else RuleModel()
        self.max_body_bytes = max_body_bytes
        self.time_budget = time_budget
        self.strict_models = strict_models
        self._lock = threading.Lock()
        self._seq = 0

    def __repr__(self) -> str:
        return f"LocalAPI(model={self.model!r})"

    def _next_seq(self) -> int:
        with self._lock:
            self._seq += 1
            return self._seq

    def handle(self, method: str, target: str, headers: Mapping[str, str] | None, body: bytes) -> Response:
        """Answer one HTTP request; ``target`` is the path, with or without a query string."""
        path, _, query = target.partition("?")
        path = path.rstrip("/") or "/"
        request_id = _request_id(method.encode(), target.encode(), body)
        if path == MODELS_PATH or path.startswith(MODELS_PATH + "/"):
            return self._models(method, path, query, request_id)
        if path not in (MESSAGES_PATH, COUNT_TOKENS_PATH):
            return error_response(404, "not_found_error", "Not Found", request_id=request_id)
        if method != "POST":
            r = error_response(405, "invalid_request_error", "Method Not Allowed", request_id=request_id)
            return Response(r.status, (*r.headers, ("allow", "POST")), r.body)
        if len(body) > self.max_body_bytes:
            return error_response(413, "request_too_large", _TOO_LARGE, request_id=request_id)
        if path == COUNT_TOKENS_PATH:
            return handle_count_tokens(body, headers, time_budget=self.time_budget, strict_models=self.strict_models)
        return handle_messages(
            body,
            headers,
            model=self.model,
            seq=self._next_seq,
            time_budget=self.time_budget,
            strict_models=self.strict_models,
        )

    def _models(self, method: str, path: str, query: str, request_id: str) -> Response:
        """``GET /v1/models`` and ``GET /v1/models/{id}`` (``msgmodel.api.models``)."""
        if method not in ("GET", "HEAD"):
            r = error_response(405, "invalid_request_error", "Method Not Allowed", request_id=request_id)
            return Response(r.status, (*r.headers, ("allow", "GET")), r.body)
        model_id = path[len(MODELS_PATH) + 1 :]
        if "/" in model_id:
            return error_response(404, "not_found_error", "Not Found", request_id=request_id)
        status, payload = models.retrieve_model(unquote(model_id)) if model_id else models.list_models(query)
        if status != 200:
            return _json_response(status, {**payload, "request_id": request_id}, request_id)
        return _json_response(200, payload, request_id)


# ---------------------------------------------------------------------------------------
# Clients
# ---------------------------------------------------------------------------------------


Exchange: TypeAlias = tuple[str, str, Mapping[str, str], bytes, Response | None]
"""One HTTP exchange a transport saw: method, path, headers, body, and the answer (``None``: left unanswered)."""


def _mock_transport(api: LocalAPI, on_exchange: Callable[[Exchange], None] | None = None) -> httpx2.MockTransport:
    import httpx2

    def answer(request: httpx2.Request) -> httpx2.Response:
        # MockTransport has read the body already (``read``/``aread``), so ``content`` is there.
        body = request.content  # on purpose: the HTTP request's bytes, not a message
        target, headers = request.url.raw_path.decode("ascii"), dict(request.headers)
        try:
            r = api.handle(request.method, target, headers, body)
        except TimeoutAnswer as e:  # a scripted timeout: what the SDK sees when no answer comes in time
            if on_exchange is not None:
                on_exchange((request.method, target, headers, body, None))
            raise httpx2.ReadTimeout(f"local API: {e}", request=request) from None
        if on_exchange is not None:
            on_exchange((request.method, target, headers, body, r))
        return httpx2.Response(r.status, headers=list(r.headers), content=r.body)

    return httpx2.MockTransport(answer)


def _sdk_options(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    return {"api_key": LOCAL_API_KEY, "base_url": BASE_URL, "max_retries": 0, **kwargs}


def sdk_client(
    api: LocalAPI, *, on_exchange: Callable[[Exchange], None] | None = None, **kwargs: Any
) -> anthropic.Anthropic:
    """The official SDK client answered in-process by ``api`` (``on_exchange`` sees every exchange)."""
    import anthropic
    import httpx2

    transport = _mock_transport(api, on_exchange)
    return anthropic.Anthropic(http_client=httpx2.Client(transport=transport), **_sdk_options(kwargs))


def async_sdk_client(
    api: LocalAPI, *, on_exchange: Callable[[Exchange], None] | None = None, **kwargs: Any
) -> anthropic.AsyncAnthropic:
    """``sdk_client`` for ``anthropic.AsyncAnthropic``."""
    import anthropic
    import httpx2

    transport = _mock_transport(api, on_exchange)
    return anthropic.AsyncAnthropic(http_client=httpx2.AsyncClient(transport=transport), **_sdk_options(kwargs))


def local_client(model: Model | None = None, *, strict_models: bool = True, **kwargs: Any) -> anthropic.Anthropic:
    """The official SDK client, answered in-process by a fresh ``LocalAPI(model, strict_models=...)``.

    ``kwargs`` go to ``anthropic.Anthropic`` (defaults: a dummy key, ``BASE_URL``,
    ``max_retries=0`` so a 400 raises at once; pass ``max_retries=2``, the SDK's default, to
    test retries against ``ErrorTurn``/``TimeoutTurn``).
    """
    return sdk_client(LocalAPI(model, strict_models=strict_models), **kwargs)


def async_local_client(
    model: Model | None = None, *, strict_models: bool = True, **kwargs: Any
) -> anthropic.AsyncAnthropic:
    """``local_client`` for ``anthropic.AsyncAnthropic``."""
    return async_sdk_client(LocalAPI(model, strict_models=strict_models), **kwargs)


LIVE_ENV: Final = "MSGMODEL_LIVE"
"""The environment variable that lets ``client()`` reach the live (paid) API: ``MSGMODEL_LIVE=1``."""


def client(*, model: Model | None = None, local: bool | None = None) -> anthropic.Anthropic:
    """The local API, unless the live (paid) API is asked for explicitly.

    ``local=False``, or ``MSGMODEL_LIVE=1`` in the environment (with ``local`` left ``None``),
    gives a plain ``anthropic.Anthropic()``: the key and base URL are the SDK's to read from the
    environment, and this module never prints, logs or stores them. Anything else is the local
    API: an ``ANTHROPIC_API_KEY`` in the shell alone never switches a test to the paid API.
    ``MSGMODEL_OFFLINE=1`` forces the local API even over ``MSGMODEL_LIVE``. ``model`` is the
    local API's model (ignored by the live API).
    """
    if local is None:
        live = os.environ.get(LIVE_ENV, "").strip().lower() in ("1", "true", "yes")
        local = bool(os.environ.get("MSGMODEL_OFFLINE")) or not live
    if local:
        return local_client(model)
    import anthropic

    return anthropic.Anthropic()


def is_local(c: object) -> bool:
    """Whether an SDK client made here talks to the in-process local API."""
    return str(getattr(c, "base_url", "")).rstrip("/") == BASE_URL


# ---------------------------------------------------------------------------------------
# HTTP
# ---------------------------------------------------------------------------------------

_DRAIN_LIMIT: Final = 4
"""An oversized body is read and dropped up to this many times the limit (so the client
sees the 413 instead of a reset connection); beyond that the connection is just closed."""


def _check_loopback(host: str) -> str:
    """The address to bind for ``host``; refuses anything but loopback."""
    if host == "localhost":
        return "127.0.0.1"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if address is None or not address.is_loopback:
        raise ValueError(
            f"refusing to serve on {host!r}: the local API binds to loopback only (127.0.0.1, ::1 or localhost)"
        )
    return host


_DIGITS: Final = re.compile(r"[0-9]{1,20}")
SOCKET_TIMEOUT: Final = 30.0
"""Seconds a connection may sit idle (or a body may stall) before the server closes it."""
MAX_CONNECTIONS: Final = 64
"""Connections served at once; more wait for a slot without a thread (``msgmodel.api.admission``)."""
OVERLOAD_WAIT: Final = 1.0
"""Seconds a connection over ``MAX_CONNECTIONS`` waits for a slot before its 529."""
_OVERLOADED: Final = (
    b"HTTP/1.1 529 Overloaded\r\nContent-Type: application/json\r\nConnection: close\r\n"
    b"x-should-retry: true\r\nContent-Length: 75\r\n\r\n"
    b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
)
_UNREAD_LIMIT: Final = 1 << 16
"""Bytes a refused connection may have sent that are read (and dropped) before it is closed, so the
client reads its 529 instead of a reset (closing a socket with unread data sends a reset)."""


class _DeadlineReader(io.RawIOBase):
    """The connection's bytes, each ``recv`` given only what is left of the handler's ``deadline``.

    A per-``recv`` timeout never fires for a client that sends one byte every few seconds; this
    makes the timeout hold for the whole request (request line, headers and body) instead."""

    def __init__(self, handler: _Handler) -> None:
        self._handler = handler

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        remaining = self._handler.deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("request not received in time")
        self._handler.connection.settimeout(remaining)
        return int(self._handler.connection.recv_into(buffer))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: LocalServer
    deadline: float = 0.0
    """When the request being read must have arrived whole (``socket_timeout`` after the server began waiting)."""

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.socket_timeout)
        self.rfile = io.BufferedReader(_DeadlineReader(self))

    def handle_one_request(self) -> None:
        self.deadline = time.monotonic() + self.server.socket_timeout
        super().handle_one_request()

    def handle(self) -> None:
        try:
            super().handle()
        except (TimeoutError, ConnectionError):  # idle, stalled or gone: close quietly, no traceback
            self.close_connection = True

    def _answer(self, method: str) -> None:
        api = self.server.api
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            self._send(error_response(411, "invalid_request_error", "Length Required", request_id=_request_id()))
            self.close_connection = True
            return
        lengths = self.headers.get_all("content-length") or []
        try:  # strict: one header, ASCII digits only (int() would take "1_0", "+5", " 7 ")
            if len(lengths) > 1 or (lengths and not _DIGITS.fullmatch(lengths[0])):
                raise ValueError
            length = int(lengths[0]) if lengths else 0
        except ValueError:
            r = error_response(400, "invalid_request_error", "Invalid Content-Length", request_id=_request_id())
            self._send(r)
            self.close_connection = True
            return
        if length > api.max_body_bytes:
            self._drain(length)
            self.connection.settimeout(self.server.socket_timeout)
            target = self.path.encode()
            r = error_response(413, "request_too_large", _TOO_LARGE, request_id=_request_id(method.encode(), target))
            self._send(r)
            self.close_connection = True
            return
        body = self._read_body(length)
        self.connection.settimeout(self.server.socket_timeout)  # for the answer; the deadline is for reading
        if len(body) < length:  # the client closed before sending what it announced
            r = error_response(400, "invalid_request_error", "Incomplete request body", request_id=_request_id())
            self._send(r)
            self.close_connection = True
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            answer = api.handle(method, self.path, headers, body)
        except TimeoutAnswer as e:  # a scripted timeout: hold the connection, then close it unanswered
            time.sleep(max(0.0, e.turn.seconds))
            self.close_connection = True
            return
        except Exception as e:  # a bug here must still answer in the API's shape, not drop the connection
            answer = error_response(
                500, "api_error", f"Internal server error ({type(e).__name__})", request_id=_request_id(body)
            )
        self._send(answer)

    def _read_body(self, length: int) -> bytes:
        """The announced body, which must arrive by the request's ``deadline`` (not per ``recv``: a
        body trickled a byte at a time must not hold the connection forever); ``TimeoutError`` past it."""
        parts: list[bytes] = []
        left = length
        while left > 0:
            chunk = self.rfile.read1(min(left, 1 << 16))
            if not chunk:
                break
            parts.append(chunk)
            left -= len(chunk)
        self.connection.settimeout(self.server.socket_timeout)
        return b"".join(parts)

    def _drain(self, length: int) -> None:
        if length > _DRAIN_LIMIT * self.server.api.max_body_bytes:
            return
        left = length
        while left > 0:
            chunk = self.rfile.read(min(left, 1 << 20))
            if not chunk:
                break
            left -= len(chunk)

    def _send(self, r: Response) -> None:
        self.send_response(r.status)
        for name, value in r.headers:
            self.send_header(name, value)
        self.send_header("content-length", str(len(r.body)))
        if self.close_connection:
            self.send_header("connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(r.body)

    def do_POST(self) -> None:
        self._answer("POST")

    def do_GET(self) -> None:
        self._answer("GET")

    def do_HEAD(self) -> None:
        self._answer("HEAD")

    def do_PUT(self) -> None:
        self._answer("PUT")

    def do_PATCH(self) -> None:
        self._answer("PATCH")

    def do_DELETE(self) -> None:
        self._answer("DELETE")

    def log_message(self, format: str, *args: Any) -> None:  # the request line only: never headers, never keys
        if not self.server.quiet:
            super().log_message(format, *args)


class LocalServer(ThreadingHTTPServer):
    """The local API over HTTP, one thread per connection; ``url`` is its base URL."""

    daemon_threads = True
    request_queue_size = 128

    def __init__(
        self,
        address: tuple[str, int],
        api: LocalAPI,
        *,
        quiet: bool = True,
        socket_timeout: float = SOCKET_TIMEOUT,
        max_connections: int = MAX_CONNECTIONS,
        overload_wait: float = OVERLOAD_WAIT,
    ) -> None:
        self.api = api
        self.quiet = quiet
        self.socket_timeout = socket_timeout
        self.overload_wait = overload_wait
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, _Handler)
        self.admission = Admission(
            max_connections, overload_wait, start=super().process_request, refuse=self._refuse_overloaded
        )

    def process_request(self, request: Any, client_address: Any) -> None:
        """Called by the accept loop: served, queued or refused by ``self.admission``, never waited for here."""
        self.admission.admit(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.admission.release()

    def _refuse_overloaded(self, request: Any) -> None:
        """The API's 529 on a connection that got no slot, then close it; never blocks."""
        try:
            request.setblocking(False)
            request.send(_OVERLOADED)  # 200 bytes into an empty send buffer: whole
            unread = 0
            while unread < _UNREAD_LIMIT and (chunk := request.recv(_UNREAD_LIMIT)):
                unread += len(chunk)
        except OSError:  # nothing more to read now (EAGAIN), or the client is gone
            pass
        self.shutdown_request(request)

    def server_close(self) -> None:
        if hasattr(self, "admission"):  # a failed bind closes the server before the admission exists
            self.admission.close()
        super().server_close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], (TimeoutError, ConnectionError)):
            return  # a client that went away is not a server error
        super().handle_error(request, client_address)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        host = str(self.server_address[0])
        return f"http://[{host}]:{self.port}" if ":" in host else f"http://{host}:{self.port}"


def make_server(
    port: int = 0,
    *,
    host: str = "127.0.0.1",
    model: Model | None = None,
    max_body_bytes: int = MAX_BODY_BYTES,
    quiet: bool = True,
    socket_timeout: float = SOCKET_TIMEOUT,
    max_connections: int = MAX_CONNECTIONS,
    overload_wait: float = OVERLOAD_WAIT,
    time_budget: float | None = budget.REQUEST_BUDGET,
    strict_models: bool = True,
) -> LocalServer:
    """A bound, not yet serving, HTTP server for the local API (``port=0``: any free port).

    Run it with ``server.serve_forever()`` (in a thread, say); stop it with
    ``server.shutdown()`` then ``server.server_close()``. ``host`` must be loopback.
    ``time_budget``: seconds of work per request before its 504 (``msgmodel.api.budget``).
    ``strict_models=False``: any model id is answered (see ``LocalAPI``).
    """
    api = LocalAPI(model, max_body_bytes=max_body_bytes, time_budget=time_budget, strict_models=strict_models)
    address = (_check_loopback(host), port)
    return LocalServer(
        address,
        api,
        quiet=quiet,
        socket_timeout=socket_timeout,
        max_connections=max_connections,
        overload_wait=overload_wait,
    )


def serve(port: int, *, host: str = "127.0.0.1", model: Model | None = None, strict_models: bool = True) -> None:
    """Serve the local API on ``host:port`` until interrupted (Ctrl-C).

    The base URL is the one line printed on standard output (``http://127.0.0.1:PORT``), so a
    script that starts ``serve --port 0`` reads the port chosen there; how to point a client at
    it goes to standard error, as does the request log.
    """
    server = make_server(port, host=host, model=model, quiet=False, strict_models=strict_models)
    try:  # Ctrl-C as soon as the URL is out (a script that read it and stops at once) still exits 0
        print(server.url, flush=True)
        print(
            f"msgmodel local Messages API on {server.url} (POST /v1/messages, GET /v1/models); Ctrl-C to stop\n"
            f"  point the official SDK at it (it needs a key; any key works, none is checked):\n"
            f'    anthropic.Anthropic(base_url="{server.url}", api_key="dummy")\n'
            f"  or any client that reads the environment:\n"
            f"    ANTHROPIC_BASE_URL={server.url} ANTHROPIC_API_KEY=dummy <your agent>",
            file=sys.stderr,
            flush=True,
        )
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


SERVE_HELP: Final = "serve the local Messages API over HTTP (loopback only)"
"""The ``serve`` subcommand's one-line help, for ``msgmodel.core.cli.SUBCOMMANDS``."""


def _port_number(text: str) -> int:
    """``--port``'s type: a whole number 0..65535 (argparse reports anything else as a usage error)."""
    if not (text.isascii() and text.isdigit()):  # int() would also take "1_0", "+5", " 7 "
        raise argparse.ArgumentTypeError(f"not a port number: {text!r} (expected a whole number 0..65535)")
    port = int(text)
    if port > 65535:
        raise argparse.ArgumentTypeError(f"port {port} is out of range (expected 0..65535; 0 picks a free one)")
    return port


def configure_serve(parser: argparse.ArgumentParser) -> None:
    """The ``serve`` subcommand's arguments: ``--port``, ``--host`` (loopback only), ``--script``, ``--any-model``."""
    parser.add_argument(
        "--port",
        type=_port_number,
        default=DEFAULT_PORT,
        help=f"TCP port 0..65535 (default {DEFAULT_PORT}; 0 picks a free one; the URL is printed on stdout)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="a loopback address: 127.0.0.1 (default), ::1 or localhost")
    parser.add_argument(
        "--script",
        metavar="FILE",
        help="answer with the turns of this script file (.json or .toml; see msgmodel.api.script_file), "
        "one per request in call order, instead of the rule model",
    )
    parser.add_argument(
        "--any-model",
        action="store_true",
        help="answer any model id (by default an id the installed SDK does not list is a 404, as the live API's)",
    )


def run_serve(args: argparse.Namespace) -> int:
    """Run ``serve`` for parsed arguments; 0 after Ctrl-C, 2 for a non-loopback host, a busy port or a bad script."""
    from msgmodel.api.script_file import ScriptFileError, load_script

    model: Model | None = None
    strict_models = not getattr(args, "any_model", False)
    script_path = getattr(args, "script", None)
    if script_path is not None:
        try:
            script = load_script(script_path)
        except ScriptFileError as e:
            print(f"msgmodel serve: {e}", file=sys.stderr)
            return 2
        model = script.model()
        strict_models = strict_models and script.strict_models
    try:
        serve(args.port, host=args.host, model=model, strict_models=strict_models)
    except (ValueError, OverflowError) as e:  # OverflowError: a port out of range given past configure_serve
        print(f"msgmodel serve: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        hint = "; try --port 0 (any free port) or another --port" if e.errno == errno.EADDRINUSE else ""
        print(f"msgmodel serve: cannot listen on {args.host}:{args.port}: {e.strerror or e}{hint}", file=sys.stderr)
        return 2
    return 0
