"""The testing kit (``msgmodel.api.testing``, ``msgmodel.api.turns``): call-ordered scripts, the request
log, error and stop turns reaching the SDK as its own exceptions, generated tool ids, unknown models.

Each test names the finding of the library review (docs: /work/shared/reviews/library-adoption.md,
M4, M5, m4, m9) it holds fixed; each failed before the kit existed.
"""

from __future__ import annotations

import time
from typing import Any

import anthropic
import pytest

from msgmodel import assistant_msg, blocks_from_api, from_api, to_api, tool_result_block, tool_result_msg, user_text
from msgmodel.api import local_client
from msgmodel.api.parsed import ParsedRequest
from msgmodel.api.scripted import ScriptedModel, ScriptExhaustedError, ScriptNotUsedError, SequenceModel
from msgmodel.api.testing import LocalKit
from msgmodel.api.turns import ErrorTurn, Reply, StopTurn, TimeoutTurn, tool_call
from msgmodel.core.compact import compact, summarizer_from_client
from msgmodel.core.message import Message, TextBlock, ToolUseBlock, text_of
from msgmodel.core.protocol import validate

MODEL = "claude-haiku-4-5"
ADD = {
    "name": "add",
    "description": "Add two numbers.",
    "input_schema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
}


def ask(c: anthropic.Anthropic, history: list[Message], **kw: Any) -> anthropic.types.Message:
    return c.messages.create(**{"model": MODEL, "max_tokens": 200, "messages": to_api(history), **kw})


def text(r: anthropic.types.Message) -> str:
    return "".join(b.text for b in r.content if b.type == "text")


# ---------------------------------------------------------------------------------------
# M4: call order, not history
# ---------------------------------------------------------------------------------------


def _long_loop(n: int) -> list[Message]:
    h = [user_text("add many numbers")]
    for i in range(n):
        call = f"toolu_{i:02d}"
        h.append(assistant_msg([ToolUseBlock(id=call, name="add", input={"a": i, "b": 1})]))
        h.append(tool_result_msg([tool_result_block(call, str(i + 1))]))
    return h


def test_after_compaction_the_sequence_model_goes_forward() -> None:
    """M4: ScriptedModel answered the call after a compaction with an earlier turn, silently."""
    turns = ["one", "two", "three"]
    for model, expected in ((ScriptedModel(turns), "one"), (SequenceModel(turns), "three")):
        c = local_client(model)
        h = [user_text("hi")]
        h.append(
            assistant_msg(blocks_from_api(c.messages.create(model=MODEL, max_tokens=50, messages=to_api(h)).content))
        )
        h += [user_text("more")]
        h.append(assistant_msg(blocks_from_api(ask(c, h).content)))
        h = compact([*h, user_text("and?")], summarize=lambda t: "S", keep_recent=1)
        assert text(ask(c, h)) == expected  # ScriptedModel: no assistant message is left, so turn 0 again


def test_a_summarizer_sharing_the_client_takes_the_next_turn() -> None:
    """M4: with ScriptedModel a summarizer's request (no assistant message) got turn 0, a tool call."""
    model = SequenceModel(["Summary: added 0..5 so far.", "Done: 6."])
    c = local_client(model)
    h = compact(_long_loop(6), summarize=summarizer_from_client(c, model=MODEL), keep_recent=2)
    assert validate(h) == [] and "added 0..5" in text_of(h[0])
    assert text(ask(c, h, tools=[ADD])) == "Done: 6."
    model.assert_all_used()
    assert [len(r.messages) for r in model.requests] == [1, len(h)]
    assert model.requests[0].system.startswith("You summarize")


def test_the_sequence_model_refuses_a_request_past_the_end_without_a_retry() -> None:
    model = SequenceModel(["only"])
    c = local_client(model, max_retries=2)
    ask(c, [user_text("a")])
    with pytest.raises(anthropic.InternalServerError) as caught:
        ask(c, [user_text("b")])
    assert "the script has 1 turn(s) and this is request 2" in caught.value.message
    assert model.used == 2  # not retried: x-should-retry false
    with pytest.raises(ScriptExhaustedError):
        model.respond({"model": MODEL, "max_tokens": 5, "messages": [{"role": "user", "content": "c"}]})


def test_assert_all_used_names_the_turns_never_asked_for() -> None:
    """M5: nothing told a test that the agent stopped before the script did."""
    model = SequenceModel(["a", tool_call("add", a=1), ErrorTurn(429)])
    ask(local_client(model), [user_text("x")])
    with pytest.raises(ScriptNotUsedError, match=r"2 of 3 scripted turn\(s\) never asked for .*1: \[tool_use\], 2: "):
        model.assert_all_used()
    assert model.remaining == 2


# ---------------------------------------------------------------------------------------
# M5: the request log, error turns and the SDK's retries
# ---------------------------------------------------------------------------------------


def test_the_kit_logs_every_request_refused_and_retried_ones_included() -> None:
    kit = LocalKit([ErrorTurn(429), "ok"])
    c = kit.make_client(max_retries=2)
    assert text(ask(c, [user_text("hi")])) == "ok"
    with pytest.raises(anthropic.BadRequestError):  # refused before any model: no turn taken
        orphan = [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_x", "content": "1"}]}]
        kit.client.messages.create(model=MODEL, max_tokens=10, messages=orphan)  # type: ignore[arg-type]
    assert [r.path for r in kit.requests] == ["/v1/messages"] * 3
    assert [r.status for r in kit.requests] == [429, 200, 400]
    assert kit.requests[0].model == MODEL and kit.requests[0].messages == [user_text("hi")]
    assert kit.requests[0].headers["x-stainless-retry-count"] == "0"
    assert kit.requests[1].headers["x-stainless-retry-count"] == "1"
    kit.assert_all_used()


@pytest.mark.parametrize(
    ("status", "exc", "kind"),
    [
        (429, anthropic.RateLimitError, "rate_limit_error"),
        (529, anthropic.InternalServerError, "overloaded_error"),
        (500, anthropic.InternalServerError, "api_error"),
        (401, anthropic.AuthenticationError, "authentication_error"),
        (403, anthropic.PermissionDeniedError, "permission_error"),
    ],
)
def test_an_error_turn_reaches_the_sdk_as_its_own_exception(status: int, exc: type[Exception], kind: str) -> None:
    """M5: only a model that raised gave a status (500 api_error); retry code could not be tested."""
    kit = LocalKit([ErrorTurn(status)])
    with pytest.raises(exc) as caught:
        ask(kit.client, [user_text("x")])
    err = caught.value
    assert isinstance(err, anthropic.APIStatusError)
    assert err.status_code == status and err.body["error"]["type"] == kind  # type: ignore[index]


def test_the_sdk_retries_what_it_retries_and_not_a_401() -> None:
    kit = LocalKit([ErrorTurn(529), ErrorTurn(429), "third time", ErrorTurn(401), "never"])
    c = kit.make_client(max_retries=2)
    started = time.monotonic()
    assert text(ask(c, [user_text("x")])) == "third time"
    assert time.monotonic() - started < 1.0  # retry-after-ms: 1, not the SDK's 0.5 s backoff
    with pytest.raises(anthropic.AuthenticationError):
        ask(c, [user_text("x")])
    assert [r.status for r in kit.requests] == [529, 429, 200, 401]
    assert kit.model.remaining == 1  # type: ignore[attr-defined]


def test_an_error_turn_carries_the_type_and_text_given() -> None:
    kit = LocalKit([ErrorTurn(429, message="slow down", retry_after=None)])
    with pytest.raises(anthropic.RateLimitError) as caught:
        ask(kit.client, [user_text("x")])
    assert caught.value.body["error"]["message"] == "slow down"  # type: ignore[index]
    assert caught.value.response.headers.get("retry-after-ms") is None
    with pytest.raises(ValueError, match="status must be an HTTP error status"):
        ErrorTurn(200)


def test_a_timeout_turn_is_the_sdks_timeout_and_is_retried() -> None:
    kit = LocalKit([TimeoutTurn(), TimeoutTurn(), "late but here"])
    with pytest.raises(anthropic.APITimeoutError):
        ask(kit.client, [user_text("x")])
    assert text(ask(kit.make_client(max_retries=1), [user_text("x")])) == "late but here"
    assert [r.status for r in kit.requests] == [None, None, 200]


@pytest.mark.parametrize("reason", ["max_tokens", "refusal", "pause_turn", "model_context_window_exceeded"])
@pytest.mark.parametrize("stream", [False, True])
def test_a_stop_turn_gives_its_stop_reason(reason: str, stream: bool) -> None:
    kit = LocalKit([StopTurn("partial" if reason != "refusal" else "", reason)])  # type: ignore[arg-type]
    if stream:
        with kit.client.messages.stream(model=MODEL, max_tokens=50, messages=[{"role": "user", "content": "x"}]) as s:
            r = s.get_final_message()
    else:
        r = ask(kit.client, [user_text("x")])
    assert r.stop_reason == reason
    assert text(r) == ("" if reason == "refusal" else "partial")


def test_the_requests_own_limits_still_cut_a_stop_turn() -> None:
    r = ask(local_client(SequenceModel([StopTurn("a" * 400, "refusal")])), [user_text("x")], max_tokens=5)
    assert (r.stop_reason, len(text(r))) == ("max_tokens", 20)


# ---------------------------------------------------------------------------------------
# M5: generated tool ids; m4: a callable turn returning a string
# ---------------------------------------------------------------------------------------


def test_tool_calls_get_ids_of_their_own() -> None:
    """M5: scripted calls needed hand-picked ids, and a reused one was a 400 blaming the agent."""
    kit = LocalKit([tool_call("add", a=1, b=2), [TextBlock("again"), tool_call("add", {"a": 3}, b=4)], "7"])
    h = [user_text("sum")]
    for _ in range(2):
        r = ask(kit.client, h, tools=[ADD])
        assert r.stop_reason == "tool_use"
        h.append(assistant_msg(blocks_from_api(r.content)))
        calls = [b for b in r.content if b.type == "tool_use"]
        h.append(tool_result_msg([tool_result_block(b.id, "3") for b in calls]))
    assert text(ask(kit.client, h, tools=[ADD])) == "7"
    ids = [b.id for m in h for b in m.content if isinstance(b, ToolUseBlock)]
    assert len(set(ids)) == 2 and all(i.startswith("toolu_") for i in ids)
    assert [b.input for m in h for b in m.content if isinstance(b, ToolUseBlock)] == [
        {"a": 1, "b": 2},
        {"a": 3, "b": 4},
    ]
    assert validate(h) == []


def test_tool_call_refuses_what_is_not_a_call() -> None:
    with pytest.raises(TypeError, match="name must be a non-empty string"):
        tool_call("")
    with pytest.raises(TypeError, match="input must be a mapping"):
        tool_call("add", [1, 2])  # type: ignore[arg-type]


@pytest.mark.parametrize("make", [ScriptedModel, SequenceModel])
def test_a_callable_turn_may_return_a_string(make: Any) -> None:
    """m4: a callable turn returning "ok" was a 500 (AttributeError: 'str' object has no attribute 'type')."""

    def echo(request: ParsedRequest) -> str:
        return f"you sent {len(request.messages)} message(s)"

    r = ask(local_client(make([echo])), [user_text("x")])
    assert text(r) == "you sent 1 message(s)"


def test_a_callable_turn_may_return_any_turn() -> None:
    model = SequenceModel([lambda req: ErrorTurn(529), lambda req: StopTurn("cut", "max_tokens"), lambda req: 42])
    c = local_client(model)
    with pytest.raises(anthropic.InternalServerError):
        ask(c, [user_text("x")])
    assert ask(c, [user_text("x")]).stop_reason == "max_tokens"
    with pytest.raises(anthropic.InternalServerError, match=r"SequenceModel turn 2 \(returned by its function\)"):
        ask(c, [user_text("x")])


def test_reply_compares_as_the_list_it_holds() -> None:
    assert Reply([TextBlock("a")]) == [TextBlock("a")]
    assert Reply([TextBlock("a")], "refusal") != [TextBlock("a")]
    assert Reply([TextBlock("a")], "refusal") == Reply((TextBlock("a"),), "refusal")


# ---------------------------------------------------------------------------------------
# m9: unknown model ids on request
# ---------------------------------------------------------------------------------------


def test_unknown_model_ids_are_answered_on_request() -> None:
    """m9: the local API answered 404 for any id the installed SDK does not list, with no opt-out."""
    request: dict[str, Any] = {"model": "ft:claude-opus-4-1:acme", "max_tokens": 10, "messages": [user_text("x")]}
    with pytest.raises(anthropic.NotFoundError):
        local_client().messages.create(**{**request, "messages": to_api(request["messages"])})
    c = local_client(strict_models=False)
    r = c.messages.create(**{**request, "messages": to_api(request["messages"])})
    assert r.model == "ft:claude-opus-4-1:acme"
    assert c.messages.count_tokens(model="claude-next", messages=to_api([user_text("x")])).input_tokens > 0
    kit = LocalKit(["hi"], strict_models=False)
    assert (
        text(kit.client.messages.create(model="claude-next", max_tokens=5, messages=[{"role": "user", "content": "x"}]))
        == "hi"
    )
    kit.strict_models = True
    kit.script("again")
    with pytest.raises(anthropic.NotFoundError):
        kit.client.messages.create(model="claude-next", max_tokens=5, messages=[{"role": "user", "content": "x"}])
    assert from_api([{"role": "user", "content": "x"}]) == [user_text("x")]
