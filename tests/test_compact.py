"""Named scenarios for ``msgmodel.core.compact``: the step-29 and step-30 bugs, the window's edge cases,
the summarizer forms, provenance, and each kind of ``repair``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import pytest

from msgmodel.core.compact import (
    CLEARED_RESULT,
    INTERRUPTED_RESULT,
    SUMMARY_FRAMING,
    SUMMARY_INSTRUCTIONS,
    SUMMARY_MODEL,
    CompactionBudgetError,
    CompactionError,
    CompactionWarning,
    RepairNote,
    clear_tool_results,
    compact,
    compact_with_provenance,
    estimate_tokens,
    plan_compaction,
    repair,
    summarizer_from_client,
    summary_message,
)
from msgmodel.core.message import (
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    assistant_msg,
    blocks_of,
    from_api,
    is_clean_user_start,
    result_text,
    text_of,
    to_api,
    to_json,
    tool_result_block,
    tool_result_msg,
    tool_results_of,
    transcript_of,
    user_msg,
    user_text,
)
from msgmodel.core.protocol import validate
from msgmodel.course.synth import synth_session

# ---------------------------------------------------------------------------------------
# Building blocks
# ---------------------------------------------------------------------------------------


def call(tid: str, name: str = "bash", **args: Any) -> ToolUseBlock:
    return ToolUseBlock(id=tid, name=name, input=dict(args))


def thinking(text: str) -> ThinkingBlock:
    return ThinkingBlock(thinking=text, signature=f"sig-{text}==")


def answer(text: str) -> Message:
    return assistant_msg([TextBlock(text)])


def loop(tid: str, result: str = "ok", *, is_error: bool = False, think: str | None = None) -> list[Message]:
    """One tool round: an assistant call and its result."""
    lead = [thinking(think)] if think else []
    return [
        assistant_msg([*lead, call(tid, command=f"run {tid}")]),
        tool_result_msg([tool_result_block(tid, result, is_error=is_error)]),
    ]


class Spy:
    """A summarizer function that records what it read."""

    def __init__(self, reply: str = "The user asked for things; the agent did them.") -> None:
        self.reply = reply
        self.seen: list[str] = []

    def __call__(self, transcript: str) -> str:
        self.seen.append(transcript)
        return self.reply


def rules(messages: Sequence[Message]) -> list[str]:
    return [v.rule for v in validate(list(messages))]


# Two episodes and a new prompt: the second's tool loop is what a "keep the last 3" slice
# cuts into. Like every history here it ends with a user message, ready to be sent:
# today's models reject a final assistant message (prefill), and an agent compacts right
# before it calls the model.
TWO_EPISODES: list[Message] = [
    user_text("Why does CI fail?"),
    *loop("toolu_01", "FAILED tests/test_app.py::test_retry", is_error=True),
    answer("The retry test fails because the flag is reset."),
    user_text("Fix it."),
    *loop("toolu_02", "edited src/app.py"),
    answer("Fixed: the flag is now reset after the loop."),
    user_text("Thanks. Is anything else broken?"),
]


def as_request(h: list[Message]) -> list[Message]:
    """``h`` ended by a user prompt, as the next request carries it (``repair`` never adds one)."""
    return h if h and h[-1].role == "user" else [*h, user_text("Go on.")]


def test_the_fixture_is_valid() -> None:
    assert validate(TWO_EPISODES) == []


# ---------------------------------------------------------------------------------------
# The window
# ---------------------------------------------------------------------------------------


def test_step_29_slicing_orphans_a_result_but_compact_does_not() -> None:
    naive = TWO_EPISODES[-3:]  # what step 29 did: keep the last N by slicing
    assert rules(naive) == ["orphan_tool_result"]  # the API would answer 400
    assert not is_clean_user_start(naive[0])

    c = compact_with_provenance(TWO_EPISODES, keep_recent=3, summarize=Spy())
    assert validate(list(c.messages)) == []
    assert c.kept_from == 4  # "Fix it.", the clean user start of the second episode
    assert list(c.messages[1:]) == TWO_EPISODES[4:]


def test_the_window_extends_back_past_a_long_tool_loop() -> None:
    rounds = [m for i in range(12) for m in loop(f"toolu_{i:02d}")]
    h = [user_text("First question."), answer("First answer."), user_text("Refactor everything."), *rounds]
    assert validate(h) == []
    c = compact_with_provenance(h, keep_recent=3, summarize=Spy())
    assert c.kept_from == 2
    assert len(c.messages) - 1 == 25  # the whole loop, not the 3 asked for
    assert validate(list(c.messages)) == []


def test_keep_recent_zero_summarizes_everything() -> None:
    spy = Spy()
    out = compact(TWO_EPISODES, keep_recent=0, summarize=spy)
    assert out == [summary_message(spy.reply)]
    assert spy.seen == [transcript_of(TWO_EPISODES)]
    assert validate(out) == []


def test_keep_recent_zero_summarizes_even_a_history_ending_mid_loop() -> None:
    h = [user_text("Go."), *loop("toolu_1")]
    out = compact(h, keep_recent=0, summarize=Spy())
    assert len(out) == 1 and validate(out) == []


@pytest.mark.parametrize("keep", [len(TWO_EPISODES), len(TWO_EPISODES) + 1, 1000])
def test_keep_recent_at_least_the_history_changes_nothing(keep: int) -> None:
    spy = Spy()
    c = compact_with_provenance(TWO_EPISODES, keep_recent=keep, summarize=spy)
    assert list(c.messages) == TWO_EPISODES
    assert not c.summarized and spy.seen == [] and c.replaced == (0, 0)


def test_one_long_tool_loop_is_cut_before_an_assistant_turn() -> None:
    # Review M3: one prompt and a long tool loop has no clean user start after the first message, so
    # keep_recent=1..10 summarized nothing (silently). Now the window opens on an assistant turn whose
    # tool pairs all lie inside it, after the summary: the latest pair is kept and the history is valid.
    h = [user_text("Do the whole migration."), *[m for i in range(6) for m in loop(f"toolu_{i}")]]
    for keep in range(1, len(h)):
        c = compact_with_provenance(h, keep_recent=keep, summarize=Spy())
        assert c.summarized and c.cut == "turn" and c.reached
        assert c.kept_from == max(i for i in range(1, len(h) - keep + 1) if h[i].role == "assistant")
        assert c.messages[-2:] == tuple(h[-2:]) and validate(list(c.messages)) == []
    assert compact(h, keep_recent=0, summarize=Spy()) == [summary_message(Spy().reply)]


def test_the_clean_start_rule_alone_says_when_it_cannot_cut() -> None:
    h = [user_text("Do the whole migration."), *[m for i in range(6) for m in loop(f"toolu_{i}")]]
    spy = Spy()
    c = compact_with_provenance(h, keep_recent=3, summarize=spy, clean_only=True)
    assert list(c.messages) == h and not c.summarized and spy.seen == []
    assert c.shortfall is not None and c.shortfall.reason == "no_cut" and not c.reached
    with pytest.warns(CompactionWarning, match="no cut keeps 3 recent message"):
        assert compact(h, keep_recent=3, summarize=spy, clean_only=True) == h
    with pytest.raises(CompactionBudgetError) as err:
        compact(h, keep_recent=3, summarize=spy, clean_only=True, strict=True)
    assert list(err.value.compaction.messages) == h


def test_thinking_before_tool_use_at_the_cut_stays_with_its_call() -> None:
    h = [
        user_text("Read the config."),
        *loop("toolu_a", "port = 8080", think="I should read setup.cfg first."),
        answer("Port 8080."),
        user_text("Now the tests."),
        *loop("toolu_b", "3 passed", think="Run pytest, quietly."),
        assistant_msg([thinking("All green."), TextBlock("All 3 tests pass.")]),
        user_text("Good. Commit it."),
    ]
    assert validate(h) == []
    c = compact_with_provenance(h, keep_recent=3, summarize=Spy())
    assert c.kept_from == 4
    signed = c.messages[2]
    assert signed == h[5] and signed.content[0] == thinking("Run pytest, quietly.")  # byte for byte
    assert validate(list(c.messages)) == []
    assert "I should read setup.cfg" not in c.transcript  # thinking is scratch space, not summarized


def test_string_and_list_prompts_are_both_clean_starts() -> None:
    h = [
        Message(role="user", content=[TextBlock("A list prompt.")]),
        answer("Sure."),
        user_text("A string prompt."),
        answer("Sure again."),
    ]
    assert plan_compaction(h, keep_recent=1).kept_from == 2
    assert plan_compaction(h, keep_recent=3, clean_only=True).kept_from == 0
    assert (plan_compaction(h, keep_recent=3).kept_from, plan_compaction(h, keep_recent=3).cut) == (1, "turn")


def test_a_prompt_after_tool_results_is_a_clean_start() -> None:
    h = [user_text("Go."), *loop("toolu_1"), user_text("And then stop."), answer("Stopped."), user_text("Ok.")]
    assert validate(h) == []
    c = compact_with_provenance(h, keep_recent=3, summarize=Spy())
    assert c.kept_from == 3 and validate(list(c.messages)) == []


def test_negative_keep_recent_is_refused() -> None:
    with pytest.raises(CompactionError, match="keep_recent must be >= 0"):
        compact(TWO_EPISODES, keep_recent=-1, summarize=Spy())


def test_an_empty_summary_is_refused() -> None:
    with pytest.raises(CompactionError, match="empty summary"):
        compact(TWO_EPISODES, keep_recent=2, summarize=Spy("  \n"))


def test_a_summarizer_returning_no_string_is_refused() -> None:
    with pytest.raises(CompactionError, match="expected a string"):
        compact(TWO_EPISODES, keep_recent=2, summarize=lambda t: None)  # type: ignore[arg-type,return-value]


@pytest.mark.parametrize(
    ("keep_recent", "why"),
    [
        (float("nan"), "got nan of type float"),
        (2.0, "got 2.0 of type float"),
        (True, "got True of type bool"),
        ("3", "got '3' of type str"),
        ([3], "got \\[3\\] of type list"),
    ],
)
def test_a_keep_recent_that_is_not_a_whole_number_is_refused(keep_recent: object, why: str) -> None:
    # Defect 13: nan was a silent no-op and 2.0 a bare TypeError from range().
    with pytest.raises(CompactionError, match=f"keep_recent must be a whole number.*{why}"):
        compact(TWO_EPISODES, keep_recent=keep_recent, summarize=Spy())  # type: ignore[arg-type]
    with pytest.raises(CompactionError, match=f"keep_recent must be a whole number.*{why}"):
        plan_compaction(TWO_EPISODES, keep_recent=keep_recent)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "content",
    [[1], [{"type": 5}], [{"type": "text"}], [{"type": "tool_use", "id": "x"}], ["text"]],
)
def test_a_client_answering_junk_blocks_is_a_compaction_error(content: list[Any]) -> None:
    # Defect 13: the codec's DecodeError leaked out of compact().
    class Junk:
        def create(self, **kwargs: Any) -> FakeResponse:
            return FakeResponse(content=content)

    class Client:
        messages = Junk()

    with pytest.raises(CompactionError, match=r"not a list of content blocks: .*response\.content\[0\]"):
        compact(TWO_EPISODES, keep_recent=2, summarize=Client())


def test_a_summarizer_of_the_wrong_kind_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"\.messages\.create"):
        compact(TWO_EPISODES, keep_recent=2, summarize=42)  # type: ignore[arg-type]


def test_compact_on_synth_sessions_is_valid() -> None:
    for seed in range(20):
        h = as_request(synth_session(60, seed=seed))
        assert validate(h) == []
        for keep in (1, 8, 20):
            assert validate(compact(h, keep_recent=keep, summarize=Spy())) == []


# ---------------------------------------------------------------------------------------
# The summary (step 30)
# ---------------------------------------------------------------------------------------


def test_step_30_the_summarizer_reads_what_was_called_and_what_failed() -> None:
    spy = Spy()
    compact(TWO_EPISODES, keep_recent=2, summarize=spy)
    (transcript,) = spy.seen
    assert "(tool call)" not in transcript
    assert '[call bash({"command":"run toolu_01"})]' in transcript
    assert "[result (failed): FAILED tests/test_app.py::test_retry]" in transcript
    assert "User: Why does CI fail?" in transcript


def test_the_summary_message_is_framed_user_text() -> None:
    out = compact(TWO_EPISODES, keep_recent=2, summarize=Spy("S."))
    assert out[0] == user_text(f"{SUMMARY_FRAMING}\n\nS.")


@dataclass
class FakeResponse:
    content: list[dict[str, Any]]


@dataclass
class FakeMessages:
    reply: str
    requests: list[dict[str, Any]] = field(default_factory=list)

    def create(self, **kwargs: Any) -> FakeResponse:
        self.requests.append(kwargs)
        return FakeResponse(content=[{"type": "text", "text": self.reply}])


@dataclass
class FakeClient:
    """The shape of ``anthropic.Anthropic`` that compaction uses: ``.messages.create``."""

    messages: FakeMessages


def test_a_client_with_messages_create_is_asked_without_tools() -> None:
    client = FakeClient(FakeMessages("The agent found and fixed the retry bug."))
    c = compact_with_provenance(TWO_EPISODES, keep_recent=2, summarize=client)
    assert c.summary == "The agent found and fixed the retry bug."
    (request,) = client.messages.requests
    assert "tools" not in request
    assert request["model"] == SUMMARY_MODEL and request["system"] == SUMMARY_INSTRUCTIONS
    assert request["messages"] == [{"role": "user", "content": c.transcript}]
    # No tool blocks go out, so the request is valid even with no tools defined.
    assert validate(request["messages"], tools_defined=False) == []
    assert validate(to_api(TWO_EPISODES[:4]), tools_defined=False) != []  # the raw prefix would not be


def test_summarizer_from_client_takes_a_model_and_a_budget() -> None:
    client = FakeClient(FakeMessages("S."))
    summarize = summarizer_from_client(client, model="claude-sonnet-4-5", max_tokens=99, instructions="Be brief.")
    assert summarize("User: hi") == "S."
    assert client.messages.requests[0] | {"messages": None} == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 99,
        "system": "Be brief.",
        "messages": None,
    }


def test_a_client_response_without_content_is_a_compaction_error() -> None:
    class Broken:
        def create(self, **kwargs: Any) -> object:
            return object()

    class Client:
        messages = Broken()

    with pytest.raises(CompactionError, match="no list of content blocks"):
        compact(TWO_EPISODES, keep_recent=2, summarize=Client())


def test_the_local_api_client_summarizes_through_the_real_sdk() -> None:
    pytest.importorskip("anthropic")
    from msgmodel.api.server import local_client

    # The local API validates the request like the live one: no tools_required 400.
    c = compact_with_provenance(TWO_EPISODES, keep_recent=3, summarize=local_client())
    assert c.summarized and "test_retry" in c.summary  # the failure survived into the summary
    assert validate(list(c.messages)) == []


# ---------------------------------------------------------------------------------------
# Provenance
# ---------------------------------------------------------------------------------------


def test_provenance_is_data() -> None:
    c = compact_with_provenance(TWO_EPISODES, keep_recent=3, summarize=Spy("S."))
    assert (c.replaced, c.kept_from, c.original_len, c.keep_recent) == ((0, 4), 4, 9, 3)
    assert c.summarized and c.summary_index == 0 and c.summary == "S."
    assert c.transcript == transcript_of(TWO_EPISODES[:4])
    assert c.origin_of(0) == range(0, 4)
    assert [c.origin_of(i) for i in range(1, len(c.messages))] == [4, 5, 6, 7, 8]
    with pytest.raises(IndexError):
        c.origin_of(len(c.messages))


# ---------------------------------------------------------------------------------------
# A token budget, old tool results shortened, and saying when it falls short (review M3, m12)
# ---------------------------------------------------------------------------------------


def _long_loop(rounds: int = 30, output: str = "x" * 400) -> list[Message]:
    """One prompt and a long tool loop, the history a coding agent most needs to shrink (61 messages)."""
    return [user_text("Migrate the project."), *[m for i in range(rounds) for m in loop(f"toolu_{i:02d}", output)]]


def test_estimate_tokens_is_the_local_apis_convention() -> None:
    from msgmodel.api.limits import tokens_of

    h = _long_loop(3)
    assert estimate_tokens(h) == tokens_of(to_json(h)) == -(-len(to_json(h)) // 4)


def test_a_token_budget_keeps_the_longest_window_that_fits() -> None:
    h = _long_loop()
    budget = 2000
    c = compact_with_provenance(h, max_tokens=budget, summarize=Spy())
    assert c.summarized and c.cut == "turn" and c.reached
    assert c.window_tokens == estimate_tokens(h[c.kept_from :]) <= budget
    # one more turn would not fit: the window is the longest within the budget
    assert estimate_tokens(h[c.kept_from - 2 :]) > budget
    assert validate(list(c.messages)) == [] and c.messages[-2:] == tuple(h[-2:])


def test_a_history_within_the_budget_is_left_alone() -> None:
    h = _long_loop(2)
    spy = Spy()
    c = compact_with_provenance(h, max_tokens=estimate_tokens(h), summarize=spy)
    assert list(c.messages) == h and not c.summarized and c.reached and spy.seen == []


def test_a_clean_start_within_the_budget_is_preferred_to_a_turn() -> None:
    h = [*TWO_EPISODES[:-1], *_long_loop(2)]
    start = len(TWO_EPISODES) - 1
    c = compact_with_provenance(h, max_tokens=estimate_tokens(h[start:]), summarize=Spy())
    assert (c.kept_from, c.cut) == (start, "clean")


def test_an_unreachable_budget_keeps_the_latest_pair_and_says_so() -> None:
    h = _long_loop(5)
    with pytest.warns(CompactionWarning, match=r"counts \d+ tokens, over max_tokens=10"):
        out = compact(h, max_tokens=10, summarize=Spy())
    assert out[1:] == h[-2:] and validate(out) == []
    c = compact_with_provenance(h, max_tokens=10, summarize=Spy())
    assert (
        c.shortfall is not None and c.shortfall.reason == "over_budget" and c.shortfall.window_tokens == c.window_tokens
    )
    with pytest.raises(CompactionBudgetError, match="over max_tokens=10") as err:
        compact(h, max_tokens=10, summarize=Spy(), strict=True)
    assert err.value.compaction.messages[1:] == tuple(h[-2:])


def test_keep_recent_is_a_floor_under_a_budget() -> None:
    h = _long_loop(5)
    c = compact_with_provenance(h, max_tokens=10, keep_recent=5, summarize=Spy())
    assert len(c.messages) - 1 >= 5 and c.shortfall is not None
    c = compact_with_provenance(h, max_tokens=10, keep_recent=0, summarize=Spy())  # an empty window fits anything
    assert list(c.messages) == [summary_message(Spy().reply)] and c.cut == "empty" and c.reached


def test_a_model_token_counter_is_called_a_logarithmic_number_of_times() -> None:
    h = _long_loop(60)
    calls: list[int] = []

    def count(ms: Sequence[Message]) -> int:
        calls.append(len(ms))
        return 100 * len(ms)

    c = compact_with_provenance(h, max_tokens=1000, count_tokens=count, summarize=Spy())
    assert c.window_tokens == 100 * (len(c.messages) - 1) == 1000 and c.kept_from == len(h) - 10
    assert len(calls) <= 12  # the whole history, a bisection over 60 cuts, and the window chosen


def test_old_tool_results_are_shortened_instead_of_dropping_turns() -> None:
    h = _long_loop(10, output="y" * 2000)
    spy = Spy()
    budget = estimate_tokens(h) // 2
    c = compact_with_provenance(h, max_tokens=budget, clear_results=3, summarize=spy)
    assert not c.summarized and spy.seen == [] and c.reached and len(c.messages) == len(h)
    assert c.window_tokens is not None and c.window_tokens <= budget
    results = [r for m in c.messages for r in tool_results_of(m)]
    assert c.cleared == tuple(r.tool_use_id for r in results[: len(c.cleared)])  # oldest first
    assert 0 < len(c.cleared) <= 7 and all(result_text(r) == CLEARED_RESULT for r in results[: len(c.cleared)])
    assert all(result_text(r) == "y" * 2000 for r in results[-3:])  # the latest three untouched
    assert validate(list(c.messages)) == []
    # Only as many as the budget needs: one fewer would not fit.
    fewer = clear_tool_results(h, keep=3)
    assert len(fewer.cleared) == 7


def test_clearing_spares_excluded_tools_and_keeps_ids_flags_and_extras() -> None:
    call = ToolUseBlock("toolu_m", "memory", {})
    trace = "Traceback (most recent call last):\n" + "  File ...\n" * 20
    failed = ToolResultBlock("toolu_f", trace, is_error=True, extra={"cache_control": {"type": "ephemeral"}})
    memory = "remember this: " + "the port is 8080. " * 10
    h = [
        user_text("Go."),
        assistant_msg([call, ToolUseBlock("toolu_f", "bash", {})]),
        user_msg([tool_result_block("toolu_m", memory), failed, TextBlock("and a note")]),
        *loop("toolu_last"),
    ]
    done = clear_tool_results(h, keep=1, exclude_tools=["memory"])
    assert done.cleared == ("toolu_f",)
    (kept, cleared) = tool_results_of(done.messages[2])
    assert result_text(kept) == memory
    assert clear_tool_results([user_text("Go."), *loop("t1", "ok"), *loop("t2")], keep=1).cleared == ()  # too short
    assert (cleared.tool_use_id, cleared.is_error, cleared.extra, result_text(cleared)) == (
        "toolu_f",
        True,
        {"cache_control": {"type": "ephemeral"}},
        CLEARED_RESULT,
    )
    assert text_of(done.messages[2]) == "and a note" and validate(list(done.messages)) == []
    assert clear_tool_results(list(done.messages), keep=1, exclude_tools=["memory"]).cleared == ()  # idempotent


def test_the_summary_reads_the_original_results_not_the_shortened_ones() -> None:
    h = [*_long_loop(6, output="secret-output"), user_text("Next.")]
    c = compact_with_provenance(h, keep_recent=1, clear_results=1, summarize=Spy())
    assert "secret-output" in c.transcript and CLEARED_RESULT not in c.transcript


def test_a_turn_cut_opens_the_window_as_its_tool_loop_was_opened() -> None:
    # With thinking enabled the turn that opens a pending tool loop must begin with its thinking block.
    h = [user_text("Go."), *loop("toolu_1", think="plan"), *loop("toolu_2"), *loop("toolu_3", think="again")]
    assert validate(h, thinking="enabled") == []
    c = compact_with_provenance(h, keep_recent=2, summarize=Spy())
    assert c.kept_from == 5 and isinstance(blocks_of(c.messages[1])[0], ThinkingBlock)
    assert validate(list(c.messages), thinking="enabled") == []
    # the turn without thinking (index 3) never opens a window: the loop's opener began with thinking
    assert plan_compaction(h, keep_recent=4).kept_from == 1
    # a loop opened without thinking may be cut before any of its turns
    plain = [user_text("Go."), *loop("toolu_1"), *loop("toolu_2", think="late"), *loop("toolu_3")]
    assert plan_compaction(plain, keep_recent=2).kept_from == 5


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({}, "give keep_recent"),
        ({"max_tokens": 0}, "max_tokens must be >= 1"),
        ({"max_tokens": 10.0}, "max_tokens must be a whole number of tokens"),
        ({"max_tokens": 10, "count_tokens": lambda ms: -1}, "count_tokens must return a whole number"),
    ],
)
def test_bad_budgets_are_refused(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(CompactionError, match=match):
        compact(_long_loop(3), summarize=Spy(), **kwargs)


def test_provenance_of_a_compaction_that_changed_nothing() -> None:
    c = compact_with_provenance(TWO_EPISODES, keep_recent=100, summarize=Spy())
    assert c.summary_index is None and c.summary == "" and c.origin_of(3) == 3


def test_the_plan_is_pure_and_agrees_with_the_compaction() -> None:
    plan = plan_compaction(TWO_EPISODES, keep_recent=3)
    assert (plan.kept_from, plan.total) == (4, 9)
    assert plan.replaced == range(0, 4) and plan.window == range(4, 9) and plan.summarizes


def test_compacting_twice_summarizes_the_earlier_summary() -> None:
    first = compact(TWO_EPISODES, keep_recent=3, summarize=Spy("First summary."))
    more = [*first, answer("Nothing else."), user_text("One more thing.")]
    spy = Spy("Second summary.")
    second = compact_with_provenance(more, keep_recent=1, summarize=spy)
    assert second.kept_from == len(first) + 1
    assert "First summary." in spy.seen[0]
    assert validate(list(second.messages)) == []


# ---------------------------------------------------------------------------------------
# Repair
# ---------------------------------------------------------------------------------------


def kinds(notes: Sequence[RepairNote]) -> list[str]:
    return [n.kind for n in notes]


def test_repair_of_a_valid_history_is_the_identity() -> None:
    assert repair(TWO_EPISODES) == (TWO_EPISODES, [])
    h = synth_session(80, seed=3)
    assert repair(h) == (h, [])


def test_repair_drops_the_orphan_left_by_step_29_slicing() -> None:
    fixed, notes = repair(TWO_EPISODES[-3:])
    assert fixed == TWO_EPISODES[-2:]
    assert kinds(notes) == ["dropped_orphan_result", "dropped_empty_message"]
    assert notes[0].index == 0 and notes[0].ids == ("toolu_02",)
    assert "toolu_02" in str(notes[0])
    assert validate(fixed) == []


def test_repair_answers_a_dangling_call_as_interrupted() -> None:
    h = [user_text("Go."), assistant_msg([thinking("Run it."), call("toolu_1"), call("toolu_2")])]
    fixed, notes = repair(h)
    assert fixed == [
        *h,
        tool_result_msg(
            [
                tool_result_block("toolu_1", INTERRUPTED_RESULT, is_error=True),
                tool_result_block("toolu_2", INTERRUPTED_RESULT, is_error=True),
            ]
        ),
    ]
    assert kinds(notes) == ["answered_dangling_call"] and notes[0].ids == ("toolu_1", "toolu_2")
    assert notes[0].index == 1
    assert validate(fixed) == []


def test_repair_completes_a_partly_answered_turn() -> None:
    h = [
        user_text("Go."),
        assistant_msg([call("toolu_1"), call("toolu_2")]),
        tool_result_msg([tool_result_block("toolu_2", "two")]),
    ]
    fixed, notes = repair(h)
    assert fixed[2] == tool_result_msg(
        [tool_result_block("toolu_2", "two"), tool_result_block("toolu_1", INTERRUPTED_RESULT, is_error=True)]
    )
    assert kinds(notes) == ["answered_dangling_call"] and validate(fixed) == []


def test_repair_moves_results_before_text() -> None:
    h = [
        user_text("Go."),
        assistant_msg([call("toolu_1")]),
        Message(role="user", content=[TextBlock("Also, hurry."), tool_result_block("toolu_1", "done")]),
    ]
    fixed, notes = repair(h)
    assert fixed[2] == Message(role="user", content=[tool_result_block("toolu_1", "done"), TextBlock("Also, hurry.")])
    assert kinds(notes) == ["moved_results_first"] and validate(fixed) == []


def test_repair_merges_parallel_results_split_over_two_messages() -> None:
    h = [
        user_text("Go."),
        assistant_msg([call("toolu_1"), call("toolu_2")]),
        tool_result_msg([tool_result_block("toolu_1", "one")]),
        tool_result_msg([tool_result_block("toolu_2", "two")]),
    ]
    fixed, notes = repair(h)
    assert fixed == [
        *h[:2],
        tool_result_msg([tool_result_block("toolu_1", "one"), tool_result_block("toolu_2", "two")]),
    ]
    assert kinds(notes) == ["merged_split_results", "dropped_empty_message"]
    assert notes[0].ids == ("toolu_2",) and validate(fixed) == []


def test_repair_moves_a_result_behind_an_interjected_prompt() -> None:
    h = [
        user_text("Go."),
        assistant_msg([call("toolu_1")]),
        user_text("Are you there?"),
        tool_result_msg([tool_result_block("toolu_1", "done")]),
    ]
    fixed, notes = repair(h)
    assert fixed == [*h[:2], h[3], h[2]]
    assert kinds(notes) == ["moved_results_first", "dropped_empty_message"] and validate(fixed) == []


def test_repair_drops_a_replayed_turn() -> None:
    h = [user_text("Go."), *loop("toolu_1"), loop("toolu_1")[1], answer("Done."), user_text("Next.")]
    fixed, notes = repair(h)
    assert fixed == [user_text("Go."), *loop("toolu_1"), answer("Done."), user_text("Next.")]
    assert kinds(notes) == ["dropped_duplicate_message"] and validate(fixed) == []


def test_repair_drops_a_reused_tool_use_id_but_keeps_the_thinking() -> None:
    h = [
        user_text("Go."),
        *loop("toolu_1"),
        user_text("Again."),
        assistant_msg([thinking("Same id, oops."), TextBlock("Running."), call("toolu_1")]),
        tool_result_msg([tool_result_block("toolu_1", "again")]),
        user_text("Hm?"),
    ]
    fixed, notes = repair(h)
    assert fixed == [*h[:4], assistant_msg([thinking("Same id, oops."), TextBlock("Running.")]), h[-1]]
    assert kinds(notes) == ["dropped_duplicate_tool_use", "dropped_orphan_result", "dropped_empty_message"]
    assert validate(fixed) == []


def test_repair_never_merges_two_signed_assistant_turns() -> None:
    # The API merges consecutive assistant messages: thinking "Two." would follow call 1,
    # which then counts as unanswered. Merging the messages would break a signature; repair
    # answers call 1 between them instead.
    first = assistant_msg([thinking("One."), call("toolu_1")])
    second = assistant_msg([thinking("Two."), call("toolu_2")])
    h = [user_text("Go."), first, second, tool_result_msg([tool_result_block("toolu_2", "two")])]
    assert rules(h) == ["tool_use_not_last"]
    fixed, notes = repair(h)
    assert fixed[1] is first and fixed[3] is second  # untouched, still two messages
    assert fixed[2] == tool_result_msg([tool_result_block("toolu_1", INTERRUPTED_RESULT, is_error=True)])
    assert kinds(notes) == ["split_assistant_turn", "answered_dangling_call"] and validate(fixed) == []


def test_repair_keeps_a_turn_stored_one_block_per_message() -> None:
    # Claude Code stores each block of a turn as its own message; the API merges them back.
    h = [
        user_text("Go."),
        assistant_msg([thinking("Two reads.")]),
        assistant_msg([TextBlock("Reading both.")]),
        assistant_msg([call("toolu_1")]),
        assistant_msg([call("toolu_2")]),
        tool_result_msg([tool_result_block("toolu_1", "one"), tool_result_block("toolu_2", "two")]),
    ]
    assert validate(h) == []
    assert repair(h) == (h, [])


def test_repair_moves_a_result_up_between_a_call_and_later_text() -> None:
    h = [
        user_text("Go."),
        assistant_msg([call("toolu_1")]),
        assistant_msg([TextBlock("While that runs: hello.")]),
        tool_result_msg([tool_result_block("toolu_1", "done")]),
    ]
    assert rules(h) == ["tool_use_not_last"]
    fixed, notes = repair(h)
    assert fixed == [h[0], h[1], h[3], h[2]]
    assert kinds(notes) == ["split_assistant_turn", "dropped_empty_message"]
    assert validate(as_request(fixed)) == []


def test_repair_drops_every_empty_message() -> None:
    h = [user_text("Go."), user_text(""), answer("Hm."), user_text("Well?"), Message(role="assistant", content=[])]
    fixed, notes = repair(h)
    assert fixed == [h[0], h[2], h[3]]
    assert kinds(notes) == ["dropped_empty_message"] * 2 and [n.index for n in notes] == [1, 4]
    assert validate(fixed) == []


def test_repair_notes_are_readable() -> None:
    _, notes = repair([user_text("Go."), assistant_msg([call("toolu_9")])])
    assert str(notes[0]) == notes[0].text
    assert "toolu_9" in notes[0].text and INTERRUPTED_RESULT in notes[0].text


# ---------------------------------------------------------------------------------------
# Server tools (defect 12): a server result needs its call earlier in the conversation
# ---------------------------------------------------------------------------------------

SEARCH_USE: Final = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}}
SEARCH_RESULT: Final = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}
MCP_USE: Final = {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "docs", "server_name": "d", "input": {}}
MCP_RESULT: Final = {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "content": "no match"}


def _server_history(use: dict[str, Any], result: dict[str, Any]) -> list[Message]:
    """A server call, a user turn, then its result: valid (the call is earlier in the conversation)."""
    return from_api(
        [
            {"role": "user", "content": "search please"},
            {"role": "assistant", "content": [{"type": "text", "text": "Searching."}, use]},
            {"role": "user", "content": "go on"},
            {"role": "assistant", "content": [result, {"type": "text", "text": "Found."}]},
            {"role": "user", "content": "thanks"},
        ]
    )


@pytest.mark.parametrize(("use", "result"), [(SEARCH_USE, SEARCH_RESULT), (MCP_USE, MCP_RESULT)])
def test_compact_never_cuts_a_server_result_from_its_call(use: dict[str, Any], result: dict[str, Any]) -> None:
    h = _server_history(use, result)
    assert validate(h) == []
    # The clean user start at 2 would leave the result at 3 without its call at 1.
    assert plan_compaction(h, keep_recent=2, clean_only=True).kept_from == 0
    assert compact_with_provenance(h, keep_recent=2, summarize=Spy(), clean_only=True).messages == tuple(h)
    # The assistant turn holding the call opens a window that keeps the pair whole.
    assert plan_compaction(h, keep_recent=2).kept_from == 1
    # A cut after the result is fine.
    assert plan_compaction(h, keep_recent=1).kept_from == 4
    for k in range(len(h) + 1):
        assert validate(compact(h, keep_recent=k, summarize=Spy())) == []


@pytest.mark.parametrize(("use", "result"), [(SEARCH_USE, SEARCH_RESULT), (MCP_USE, MCP_RESULT)])
def test_repair_drops_a_server_result_whose_call_was_cut_away(use: dict[str, Any], result: dict[str, Any]) -> None:
    h = _server_history(use, result)
    cut = h[2:]  # what the old compact() kept
    assert [v.rule for v in validate(cut)] == ["orphan_tool_result"]
    fixed, notes = repair(cut)
    assert validate(fixed) == []
    assert [(n.kind, n.index, n.ids) for n in notes] == [("dropped_orphan_server_result", 1, (result["tool_use_id"],))]
    assert fixed == [cut[0], assistant_msg([TextBlock("Found.")]), cut[2]]
    assert repair(fixed) == (fixed, [])


def test_repair_drops_a_message_left_empty_by_an_orphan_server_result() -> None:
    h = [user_text("hi"), *from_api([{"role": "assistant", "content": [SEARCH_RESULT]}]), user_text("and?")]
    fixed, notes = repair(h)
    assert [n.kind for n in notes] == ["dropped_orphan_server_result", "dropped_empty_message"]
    assert fixed == [user_text("hi"), user_text("and?")]


def test_repair_keeps_a_server_result_after_its_call_in_the_same_message() -> None:
    h = [user_text("hi"), *from_api([{"role": "assistant", "content": [SEARCH_USE, SEARCH_RESULT]}]), user_text("ok")]
    assert validate(h) == [] and repair(h) == (h, [])
    swapped = [h[0], *from_api([{"role": "assistant", "content": [SEARCH_RESULT, SEARCH_USE]}]), h[2]]
    assert validate(swapped) != []
    fixed, notes = repair(swapped)
    assert validate(fixed) == [] and [n.kind for n in notes] == ["dropped_orphan_server_result"]
