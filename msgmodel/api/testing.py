"""The testing kit: a scripted local Messages API for one test, its SDK clients, and what it received.

``LocalKit(turns=(), *, strict_models=True)``
    A fresh ``LocalAPI`` answering with a call-ordered ``SequenceModel`` (or any ``model=``).
    ``kit.client`` is the official ``anthropic.Anthropic`` answered in-process (no socket, no
    key, ``max_retries=0``); ``kit.make_client(max_retries=2)`` and ``kit.make_async_client()``
    make more, all answered by the same API and recorded in the same log.
    ``kit.script(*turns)`` sets the turns (replacing the model); ``kit.requests`` is every HTTP
    request the API received, in order, as ``RecordedRequest`` (refused ones and the SDK's
    retries included: a 429 retried once shows as two requests); ``kit.assert_all_used()``
    fails when a scripted turn was never asked for.

The pytest plugin (``msgmodel.api.pytest_plugin``, registered by the ``pytest11`` entry point)
gives each test a ``LocalKit`` as the ``msgmodel_api`` fixture and checks at teardown that the
script was used up (``kit.require_all_used = False`` turns that off for one test).

Turns are those of ``msgmodel.api.turns``: a string, blocks, ``tool_call(name, **input)``
(generated id), ``ErrorTurn(429)`` (the SDK raises ``anthropic.RateLimitError``, or retries),
``TimeoutTurn()`` (``anthropic.APITimeoutError``), ``StopTurn(text, "max_tokens")``, or a
function of the request returning one of those.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import msgspec

from msgmodel.api.scripted import Model, SequenceModel
from msgmodel.api.server import Exchange, LocalAPI, async_sdk_client, sdk_client
from msgmodel.api.turns import ErrorTurn, StopTurn, TimeoutTurn, Turn, tool_call
from msgmodel.core.message import Message, from_api

if TYPE_CHECKING:
    import anthropic

__all__ = [
    "ErrorTurn",
    "LocalKit",
    "RecordedRequest",
    "SequenceModel",
    "StopTurn",
    "TimeoutTurn",
    "Turn",
    "tool_call",
]


@dataclass(frozen=True)
class RecordedRequest:
    """One HTTP request the local API received, and the status it answered (``None``: a scripted timeout)."""

    method: str
    path: str
    headers: Mapping[str, str]
    raw_body: bytes
    status: int | None
    answer: bytes | None

    @cached_property
    def body(self) -> Any:
        """The request body as JSON (``None`` when there is no body or it is not JSON)."""
        try:
            return msgspec.json.decode(self.raw_body) if self.raw_body else None
        except msgspec.DecodeError:
            return None

    @property
    def messages(self) -> list[Message]:
        """The body's ``messages`` as ``Message`` values (``DecodeError`` when they are not a conversation)."""
        body = self.body
        return from_api(body.get("messages", []) if isinstance(body, dict) else [])

    @property
    def model(self) -> str | None:
        """The body's ``model``."""
        body = self.body
        return body.get("model") if isinstance(body, dict) else None

    def __repr__(self) -> str:
        return f"RecordedRequest({self.method} {self.path} -> {self.status})"


class LocalKit:
    """A scripted local API for a test; see the module docstring."""

    def __init__(self, turns: Sequence[Turn] = (), *, model: Model | None = None, strict_models: bool = True) -> None:
        self.api = LocalAPI(model if model is not None else SequenceModel(turns), strict_models=strict_models)
        self.requests: list[RecordedRequest] = []
        self.require_all_used = True
        """Whether the pytest fixture checks at teardown that every scripted turn was asked for."""
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LocalKit({self.api.model!r}, {len(self.requests)} request(s))"

    @property
    def model(self) -> Model:
        """The model answering (a ``SequenceModel`` unless another was given)."""
        return self.api.model

    @property
    def strict_models(self) -> bool:
        """Whether a model id the SDK does not list is a 404 (``False``: any id is answered)."""
        return self.api.strict_models

    @strict_models.setter
    def strict_models(self, value: bool) -> None:
        self.api.strict_models = value

    def script(self, *turns: Turn) -> SequenceModel:
        """Answer from now on with ``turns``, in call order (a fresh ``SequenceModel``, returned)."""
        model = SequenceModel(turns)
        self.api.model = model
        return model

    def _record(self, exchange: Exchange) -> None:
        method, path, headers, raw_body, answer = exchange
        entry = RecordedRequest(
            method,
            path,
            dict(headers),
            raw_body,
            None if answer is None else answer.status,
            None if answer is None else answer.body,
        )
        with self._lock:
            self.requests.append(entry)

    @property
    def messages_requests(self) -> list[RecordedRequest]:
        """The ``POST /v1/messages`` requests of ``requests`` (no ``count_tokens``, no ``models``)."""
        return [r for r in self.requests if r.method == "POST" and r.path.split("?")[0].rstrip("/") == "/v1/messages"]

    @cached_property
    def client(self) -> anthropic.Anthropic:
        """The SDK client of this kit (``max_retries=0``: an error turn raises at once)."""
        return self.make_client()

    def make_client(self, **kwargs: Any) -> anthropic.Anthropic:
        """Another ``anthropic.Anthropic`` answered by this kit; ``kwargs`` go to the SDK (``max_retries=2``, ...)."""
        return sdk_client(self.api, on_exchange=self._record, **kwargs)

    def make_async_client(self, **kwargs: Any) -> anthropic.AsyncAnthropic:
        """An ``anthropic.AsyncAnthropic`` answered by this kit."""
        return async_sdk_client(self.api, on_exchange=self._record, **kwargs)

    def assert_all_used(self) -> None:
        """``AssertionError`` when the model is a ``SequenceModel`` with turns never asked for."""
        model = self.api.model
        if isinstance(model, SequenceModel):
            model.assert_all_used()
