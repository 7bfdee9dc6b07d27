"""How the local API counts tokens, and what of an answer it delivers under ``max_tokens`` and ``stop_sequences``.

This module owns three decisions of the local API, all deterministic and linear in the size of
the request and the answer:

What a token is (our convention; the live API's tokenizer is not public)
    One token is up to 4 bytes of UTF-8. ``tokens_of(text) = ceil(len(utf8) / 4)``.
    *Input* tokens are those of the JSON of the request's ``system``, ``messages`` and ``tools``
    (compact encoding, keys in request order), at least 1: ``input_tokens(request)``. Both
    ``POST /v1/messages`` (its ``usage.input_tokens``) and ``/v1/messages/count_tokens`` use it,
    so they agree by construction. *Output* tokens are those of what the model generates: the
    text of a ``text`` block, the thinking of a ``thinking`` block, the name and the JSON input of
    a ``tool_use`` block, the wire JSON of any other block.

What is delivered: ``apply_limits(blocks, request) -> Delivered``
    The blocks are walked in order with a budget of ``max_tokens`` output tokens.

    * A ``text`` block holding a stop sequence (of ``stop_sequences``; the earliest match, the
      first listed on a tie) is cut right before it, nothing after it is delivered, and the
      answer stops with ``stop_reason`` ``stop_sequence`` and ``stop_sequence`` set to the match
      (the live API also leaves the sequence out of the text). Only text is searched, as only
      text is what the user reads.
    * A ``text`` or ``thinking`` block longer than the budget left is cut at the last whole
      character that fits; a block of another kind that does not fit is dropped whole. The answer
      stops with ``stop_reason`` ``max_tokens``. ``max_tokens: 0`` delivers no content at all
      (the SDK documents 0 for prompt-cache pre-warming).
    * Blocks cut to nothing are dropped (an empty text block would be refused on replay).
    * Otherwise ``stop_reason`` is ``tool_use`` when a ``tool_use`` block is delivered and
      ``end_turn`` otherwise.

``usage(input_tokens, output_tokens)`` / ``message_start_usage`` / ``message_delta_usage``
    The usage objects, in the shape the SDK types document (``Usage``, ``MessageDeltaUsage``):
    cache counters are 0 (the local API has no prompt cache), ``server_tool_use`` counts 0
    requests, ``service_tier`` is ``standard``. A stream's ``message_delta.usage`` is cumulative
    (``input_tokens`` included), so the SDK's accumulated final message has the same usage as
    the non-streaming answer.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias, assert_never

import msgspec

from msgmodel.api.parsed import ParsedRequest
from msgmodel.core.message import (
    ContentBlock,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    block_to_api,
)

__all__ = [
    "BYTES_PER_TOKEN",
    "AnyStopReason",
    "Delivered",
    "StopReason",
    "apply_limits",
    "input_tokens",
    "message_delta_usage",
    "message_start_usage",
    "output_tokens",
    "tokens_of",
    "usage",
]

BYTES_PER_TOKEN: Final = 4
"""One token is up to this many bytes of UTF-8 (our convention)."""

StopReason: TypeAlias = Literal["end_turn", "tool_use", "max_tokens", "stop_sequence"]
"""The stop reasons the local API reaches by itself."""
AnyStopReason: TypeAlias = Literal[
    "end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal", "model_context_window_exceeded"
]
"""Every stop reason of the pinned SDK's ``StopReason``: a scripted ``StopTurn`` may give any of them."""

_ENCODER: Final = msgspec.json.Encoder()


def tokens_of(text: str | bytes) -> int:
    """The tokens of ``text``: its UTF-8 bytes / 4, rounded up (0 for empty text)."""
    n = len(text.encode() if isinstance(text, str) else text)
    return math.ceil(n / BYTES_PER_TOKEN)


def input_tokens(request: Mapping[str, Any]) -> int:
    """The input tokens of a request: its ``system``, ``messages`` and ``tools`` as JSON, at least 1."""
    counted = {k: request[k] for k in ("system", "messages", "tools") if k in request}
    return max(1, tokens_of(_ENCODER.encode(counted)))


def _generated(block: ContentBlock) -> str | bytes:
    """What the model generates for ``block``: the part output tokens count."""
    match block:
        case TextBlock():
            return block.text
        case ThinkingBlock():
            return block.thinking
        case ToolUseBlock():
            return block.name.encode() + _ENCODER.encode(block.input)
        case ToolResultBlock() | OpaqueBlock():
            return _ENCODER.encode(block_to_api(block))
        case _:
            assert_never(block)


def output_tokens(blocks: Sequence[ContentBlock]) -> int:
    """The output tokens of delivered blocks."""
    return sum(tokens_of(_generated(b)) for b in blocks)


def _fit(text: str, budget: int) -> str:
    """The longest prefix of ``text`` whose tokens fit ``budget`` (whole characters only)."""
    return text.encode()[: budget * BYTES_PER_TOKEN].decode("utf-8", "ignore")


def _first_stop(text: str, stops: Sequence[str]) -> tuple[int, str] | None:
    """The earliest stop sequence in ``text``: (index, sequence); the first listed wins a tie."""
    best: tuple[int, str] | None = None
    for s in stops:
        if not s:
            continue
        i = text.find(s)
        if i >= 0 and (best is None or i < best[0]):
            best = (i, s)
    return best


@dataclass(frozen=True)
class Delivered:
    """What the answer carries: the blocks, why it stopped, and the matched stop sequence."""

    blocks: tuple[ContentBlock, ...]
    stop_reason: AnyStopReason
    stop_sequence: str | None = None


def apply_limits(blocks: Sequence[ContentBlock], request: ParsedRequest) -> Delivered:
    """The part of ``blocks`` a request with its ``max_tokens`` and ``stop_sequences`` gets (see the docstring)."""
    budget: float = math.inf if request.max_tokens is None else request.max_tokens
    stops = request.stop_sequences
    out: list[ContentBlock] = []
    for block in blocks:
        if isinstance(block, TextBlock) and (hit := _first_stop(block.text, stops)) is not None:
            kept = block.text[: hit[0]]
            if tokens_of(kept) <= budget:
                if kept:
                    out.append(TextBlock(kept, extra=block.extra))
                return Delivered(tuple(out), "stop_sequence", hit[1])
        cost = tokens_of(_generated(block))
        if cost <= budget:
            out.append(block)
            budget -= cost
            continue
        assert isinstance(budget, int)  # an infinite budget fits everything
        match block:
            case TextBlock():
                cut = _fit(block.text, budget)
                if cut:
                    out.append(TextBlock(cut, extra=block.extra))
            case ThinkingBlock():
                cut = _fit(block.thinking, budget)
                if cut:
                    out.append(ThinkingBlock(cut, signature=block.signature, extra=block.extra))
            case ToolUseBlock() | ToolResultBlock() | OpaqueBlock():
                pass  # a block that must be whole is dropped
            case _:
                assert_never(block)
        return Delivered(tuple(out), "max_tokens")
    reason: StopReason = "tool_use" if any(isinstance(b, ToolUseBlock) for b in out) else "end_turn"
    return Delivered(tuple(out), reason)


def usage(input_count: int, output_count: int) -> dict[str, Any]:
    """A non-streaming answer's ``usage``, in the SDK's ``Usage`` shape."""
    return {
        "input_tokens": input_count,
        "output_tokens": output_count,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": "standard",
    }


def message_start_usage(full: Mapping[str, Any]) -> dict[str, Any]:
    """``message_start.message.usage``: the input side known, no output yet."""
    return {**full, "output_tokens": 0}


def message_delta_usage(full: Mapping[str, Any]) -> dict[str, Any]:
    """``message_delta.usage``: cumulative counts, in the SDK's ``MessageDeltaUsage`` shape."""
    keys = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    return {**{k: full[k] for k in keys}, "server_tool_use": full["server_tool_use"]}
