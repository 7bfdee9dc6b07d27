"""What a scripted turn may be besides text and blocks: an API error, a timeout, a stop reason, a tool call.

This module owns the *outcomes* a test scripts for the local API, so that an agent's retry and
stop-reason code can be exercised offline with the SDK's own exceptions:

``ErrorTurn(status, type=None, message=None, retry_after=0.001)``
    The request is answered with the API's error JSON and that HTTP status: 429
    ``rate_limit_error``, 529 ``overloaded_error``, 401 ``authentication_error``, 500
    ``api_error``, ... (``type`` and ``message`` default from the status). The SDK raises its own
    exception for it (``anthropic.RateLimitError``, ``InternalServerError``, ``AuthenticationError``)
    and retries the statuses it retries (408, 409, 429, 5xx), ``retry_after`` seconds later
    (sent as ``retry-after-ms``; ``None`` sends no header and the SDK backs off on its own, 0.5 s
    and up). 401 and the other 4xx are not retried, as with the live API.
``TimeoutTurn(seconds=30.0)``
    The request is never answered. In-process (``local_client``, the testing kit) the transport
    raises ``httpx2.ReadTimeout`` at once, which the SDK reports as ``anthropic.APITimeoutError``
    (after its retries); over HTTP (``serve``) the server holds the connection ``seconds`` and
    closes it without an answer, so a client whose timeout is shorter times out.
``StopTurn(answer, stop_reason)``
    The blocks (a string is one text block) delivered with that ``stop_reason``: ``max_tokens``,
    ``refusal``, ``pause_turn``, ``model_context_window_exceeded``, ... as the live API can stop.
``tool_call(name, input=None, /, **kwargs)``
    A ``ToolUseBlock`` whose id is filled in when it is answered (``AUTO_ID``), with the local
    API's deterministic id for that request (``msgmodel.api.parsed.tool_use_id_for``): unique
    within a conversation, stable on replay, never picked by hand.

A model signals the first two by raising ``ErrorAnswer`` / ``TimeoutAnswer`` from ``respond``
and the third by returning a ``Reply`` (a sequence of blocks carrying a stop reason);
``msgmodel.api.server`` turns them into the wire answer. ``play(turn, request)`` is how the
scripted models (``msgmodel.api.scripted``) answer with one turn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeAlias, get_args, overload

from msgmodel.api.limits import AnyStopReason
from msgmodel.api.parsed import ParsedRequest
from msgmodel.core.message import ContentBlock, TextBlock, ToolUseBlock

__all__ = [
    "AUTO_ID",
    "ERROR_TYPES",
    "ErrorAnswer",
    "ErrorTurn",
    "Reply",
    "ScriptedStopReason",
    "StopTurn",
    "TimeoutAnswer",
    "TimeoutTurn",
    "Turn",
    "check_turn",
    "fill_tool_ids",
    "play",
    "tool_call",
]

AUTO_ID: Final = ""
"""The id of a ``tool_call`` block until it is answered: replaced by the request's own id then."""

ERROR_TYPES: Final[Mapping[int, str]] = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    408: "timeout_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}
"""The API's ``error.type`` for each status it documents (docs.anthropic.com, "Errors")."""

_MESSAGES: Final[Mapping[str, str]] = {
    "invalid_request_error": "Invalid request",
    "authentication_error": "invalid x-api-key",
    "billing_error": "Your credit balance is too low to access the Anthropic API.",
    "permission_error": "Your API key does not have permission to use the specified resource.",
    "not_found_error": "Not Found",
    "request_too_large": "Request exceeds the maximum allowed number of bytes.",
    "rate_limit_error": "Number of request tokens has exceeded your per-minute rate limit",
    "api_error": "Internal server error",
    "timeout_error": "Request timed out",
    "overloaded_error": "Overloaded",
}

ScriptedStopReason: TypeAlias = AnyStopReason
"""The stop reasons of the pinned SDK's ``StopReason``, any of which a ``StopTurn`` may give."""
STOP_REASONS: Final[tuple[str, ...]] = get_args(AnyStopReason)


@dataclass(frozen=True)
class ErrorTurn:
    """Answer the request with the API's error JSON and HTTP ``status`` (see the module docstring)."""

    status: int
    type: str | None = None
    message: str | None = None
    retry_after: float | None = 0.001

    def __post_init__(self) -> None:
        if not (isinstance(self.status, int) and 400 <= self.status <= 599):
            raise ValueError(f"ErrorTurn: status must be an HTTP error status 400..599, got {self.status!r}")
        if self.retry_after is not None and not self.retry_after >= 0:
            raise ValueError(f"ErrorTurn: retry_after must be >= 0 seconds or None, got {self.retry_after!r}")
        kind = self.type if self.type is not None else ERROR_TYPES.get(self.status, "api_error")
        object.__setattr__(self, "type", kind)
        if self.message is None:
            object.__setattr__(self, "message", _MESSAGES.get(kind, kind))

    @property
    def error_type(self) -> str:
        """``type``, filled in from the status when not given."""
        assert self.type is not None  # set in __post_init__
        return self.type

    @property
    def text(self) -> str:
        """``message``, filled in from the type when not given."""
        assert self.message is not None  # set in __post_init__
        return self.message


@dataclass(frozen=True)
class TimeoutTurn:
    """Leave the request unanswered (see the module docstring); ``seconds``: how long ``serve`` holds it."""

    seconds: float = 30.0


@dataclass(frozen=True)
class StopTurn:
    """Deliver ``answer`` (a string: one text block; ``""``: no block) with ``stop_reason``."""

    answer: str | Sequence[ContentBlock]
    stop_reason: ScriptedStopReason

    def __post_init__(self) -> None:
        if self.stop_reason not in STOP_REASONS:
            raise ValueError(
                f"StopTurn: stop_reason must be one of {', '.join(STOP_REASONS)}; got {self.stop_reason!r}"
            )
        if not isinstance(self.answer, str):
            object.__setattr__(self, "answer", tuple(_blocks(self.answer, "StopTurn")))


class ErrorAnswer(Exception):
    """Raised by a model to have the request answered with an API error (``ErrorTurn``)."""

    def __init__(self, turn: ErrorTurn) -> None:
        super().__init__(f"{turn.status} {turn.error_type}: {turn.text}")
        self.turn = turn


class TimeoutAnswer(Exception):
    """Raised by a model to leave the request unanswered (``TimeoutTurn``)."""

    def __init__(self, turn: TimeoutTurn) -> None:
        super().__init__(f"scripted timeout ({turn.seconds:g} s over HTTP)")
        self.turn = turn


class Reply(Sequence[ContentBlock]):
    """A model's blocks with the stop reason they end on (``None``: the local API decides, as usual)."""

    __slots__ = ("_blocks", "stop_reason")

    def __init__(self, blocks: Sequence[ContentBlock], stop_reason: ScriptedStopReason | None = None) -> None:
        self._blocks = tuple(blocks)
        self.stop_reason = stop_reason

    @overload
    def __getitem__(self, index: int) -> ContentBlock: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[ContentBlock]: ...
    def __getitem__(self, index: int | slice) -> ContentBlock | Sequence[ContentBlock]:
        return self._blocks[index]

    def __len__(self) -> int:
        return len(self._blocks)

    def __iter__(self) -> Iterator[ContentBlock]:
        return iter(self._blocks)

    def __eq__(self, other: object) -> bool:
        """Equal to a ``Reply`` with the same blocks and stop reason, or to a list/tuple of the same blocks
        when no stop reason was chosen (so a model's answer compares as the list it used to be)."""
        if isinstance(other, Reply):
            return self._blocks == other._blocks and self.stop_reason == other.stop_reason
        if isinstance(other, (list, tuple)):
            return self.stop_reason is None and self._blocks == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to lists, which are unhashable

    def __repr__(self) -> str:
        return f"Reply({list(self._blocks)!r}, stop_reason={self.stop_reason!r})"


Turn: TypeAlias = (
    str
    | ContentBlock
    | Sequence[ContentBlock]
    | ErrorTurn
    | TimeoutTurn
    | StopTurn
    | Callable[[ParsedRequest], "str | ContentBlock | Sequence[ContentBlock] | ErrorTurn | TimeoutTurn | StopTurn"]
)
"""One scripted answer: a string (one text block), a block or a list of them, an ``ErrorTurn``, a ``TimeoutTurn``,
a ``StopTurn``, or a function of the request returning any of those."""


def tool_call(name: str, input: Mapping[str, Any] | None = None, /, **kwargs: Any) -> ToolUseBlock:
    """A ``tool_use`` block for a script, its id generated when it is answered: ``tool_call("add", a=1, b=2)``."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"tool_call: name must be a non-empty string, got {name!r:.80}")
    if input is not None and not isinstance(input, Mapping):
        raise TypeError(f"tool_call: input must be a mapping of the tool's arguments, got {type(input).__name__}")
    return ToolUseBlock(id=AUTO_ID, name=name, input={**(input or {}), **kwargs})


def fill_tool_ids(blocks: Sequence[ContentBlock], request: ParsedRequest) -> list[ContentBlock]:
    """``blocks`` with every ``tool_call`` id (``AUTO_ID``) replaced by the request's ``tool_use_id(i)``."""
    out: list[ContentBlock] = []
    for i, b in enumerate(blocks):
        if isinstance(b, ToolUseBlock) and b.id == AUTO_ID:
            b = ToolUseBlock(id=request.tool_use_id(i), name=b.name, input=b.input, extra=b.extra)
        out.append(b)
    return out


def _blocks(value: object, where: str) -> list[ContentBlock]:
    if isinstance(value, ContentBlock):  # one block alone: tool_call("add", a=1) as a whole turn
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(b, ContentBlock) for b in value):
        return list(value)
    raise TypeError(
        f"{where}: expected a string, a content block or a list of them (msgmodel.core.message), an ErrorTurn, "
        f"a TimeoutTurn or a StopTurn, got {value!r:.120} (API-shaped dicts: convert them with "
        "msgmodel.blocks_from_api)"
    )


def check_turn(turn: object, where: str) -> Turn:
    """``turn`` as a script holds it (blocks as a tuple); ``TypeError`` naming ``where`` for anything else."""
    if isinstance(turn, (str, ErrorTurn, TimeoutTurn, StopTurn)) or callable(turn):
        return turn  # a callable's return is checked when it is played
    return tuple(_blocks(turn, where))


def play(turn: Turn, request: ParsedRequest, where: str = "turn") -> Reply:
    """The answer ``turn`` gives ``request``: its blocks (tool ids filled in) and stop reason, or raise
    ``ErrorAnswer`` / ``TimeoutAnswer``. A callable is called once and its result played."""
    value: object = turn(request) if callable(turn) else turn
    match value:
        case str():
            return Reply([TextBlock(value)])
        case ErrorTurn():
            raise ErrorAnswer(value)
        case TimeoutTurn():
            raise TimeoutAnswer(value)
        case StopTurn(answer=answer, stop_reason=reason):
            blocks = ([TextBlock(answer)] if answer else []) if isinstance(answer, str) else list(answer)
            return Reply(fill_tool_ids(blocks, request), reason)
        case _:
            what = f"{where} (returned by its function)" if callable(turn) else where
            return Reply(fill_tool_ids(_blocks(value, what), request))
