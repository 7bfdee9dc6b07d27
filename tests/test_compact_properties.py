"""Property tests of ``msgmodel.core.compact`` against the protocol oracle ``msgmodel.core.protocol.validate``.

* Compaction keeps a valid history valid, for every ``keep_recent`` from 0 to
  ``len(h) + 1`` of every generated history; the window is a suffix of the input that
  starts at a clean cut, the shortest one with at least ``keep_recent`` messages; no tool
  pair is split; the summary replaced exactly the prefix, read through ``transcript_of``.
* ``repair`` makes every generated broken history valid, reports a change whenever it
  made one, never touches thinking or merges assistant turns, is the identity on valid
  histories and idempotent.

Each property counts the cases it checked and prints the count (``pytest -s``) and
records it as a test property (``--junitxml``); the first test also asserts that it
checked at least 10 000 (conversation, keep_recent) pairs.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Sequence

from hypothesis import given, settings
from strategies_conv import broken_conversations, valid_conversations

from msgmodel.core.compact import (
    RepairKind,
    compact,
    compact_with_provenance,
    plan_compaction,
    repair,
    summary_message,
)
from msgmodel.core.message import (
    Message,
    ToolUseBlock,
    assistant_msg,
    blocks_of,
    is_clean_user_start,
    server_tool_link,
    tool_results_of,
    tool_uses_of,
    transcript_of,
    user_text,
)
from msgmodel.core.protocol import validate

PAIRS_WANTED = 10_000
REPAIR_KINDS = frozenset(typing.get_args(RepairKind))


class RecordingSummarizer:
    """A summarizer function that remembers every transcript it was given."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def __call__(self, transcript: str) -> str:
        self.seen.append(transcript)
        return f"Summary of {len(transcript)} characters."


def _as_request(h: list[Message]) -> list[Message]:
    """``h`` as the next request sends it: ended by a user prompt if it ends with an assistant message.

    ``repair`` never invents a user message, and today's models reject a final assistant
    message (prefill), so the oracle judges the repaired history as the next request would
    carry it. The appended prompt can hide no pairing defect: it holds no tool blocks.
    """
    return h if h and h[-1].role == "user" else [*h, user_text("Go on.")]


def _unpaired(window: Sequence[Message]) -> tuple[set[str], set[str]]:
    """(tool_use ids without a result in ``window``, result ids without a tool_use in ``window``)."""
    uses = {u.id for m in window for u in tool_uses_of(m)}
    results = {r.tool_use_id for m in window for r in tool_results_of(m)}
    return uses - results, results - uses


def test_compact_keeps_valid_histories_valid_for_every_keep_recent(
    record_property: Callable[[str, object], None],
) -> None:
    checked = 0
    summarized = 0

    @settings(max_examples=600)
    @given(valid_conversations())
    def run(h: list[Message]) -> None:
        nonlocal checked, summarized
        assert validate(h) == [], "the strategy made an invalid history"
        strict_thinking = validate(h, thinking="enabled") == []
        n = len(h)
        for k in range(n + 2):
            spy = RecordingSummarizer()
            c = compact_with_provenance(h, keep_recent=k, summarize=spy)
            out = list(c.messages)
            assert validate(out) == [], (k, out)
            if strict_thinking:  # the cut never separates a pending tool loop from its signed opener
                assert validate(out, thinking="enabled") == [], (k, out)
            if k == n // 2:  # once per history: compact() is compact_with_provenance().messages
                assert compact(h, keep_recent=k, summarize=RecordingSummarizer()) == out

            plan = plan_compaction(h, keep_recent=k)
            assert c.kept_from == plan.kept_from
            window = out[1:] if c.summarized else out
            # The window is a suffix of the input, starting at a clean cut ...
            assert window == h[c.kept_from :]
            assert c.kept_from == n or c.kept_from == 0 or is_clean_user_start(h[c.kept_from])
            # ... the shortest one with at least keep_recent messages (or everything, if none fits).
            if c.summarized:
                assert len(window) >= k
                assert not any(is_clean_user_start(h[i]) for i in range(c.kept_from + 1, n - k + 1))
                assert out[0] == summary_message(c.summary)
                # The summary replaced exactly the prefix, read through transcript_of, once.
                assert c.replaced == (0, c.kept_from)
                assert spy.seen == [transcript_of(h[: c.kept_from])] == [c.transcript]
                summarized += 1
            else:
                assert out == h and c.replaced == (0, 0) and spy.seen == []
                assert k >= n or not any(is_clean_user_start(h[i]) for i in range(1, n - k + 1))
            if k == 0:
                assert window == []
            # No tool pair is split.
            assert _unpaired(window) == (set(), set())
            checked += 1

    run()
    print(f"\ncompact: {checked} (conversation, keep_recent) pairs checked, {summarized} summarized")
    record_property("pairs_checked", checked)
    assert checked >= PAIRS_WANTED


def _acceptable_cuts(h: list[Message]) -> set[int]:
    """Every cut the oracle accepts: a clean user start whose suffix, after a summary, ``validate`` accepts."""
    summary = summary_message("S.")
    return {i for i in range(1, len(h)) if is_clean_user_start(h[i]) and validate([summary, *h[i:]]) == []}


def test_compact_keeps_histories_with_server_tools_valid(record_property: Callable[[str, object], None]) -> None:
    """Valid in, valid out, for server pairs too: a ``web_search_tool_result`` (or any server result)
    whose ``server_tool_use`` sits before a user turn is never cut from it, and the cut is the
    latest one the oracle accepts, no earlier."""
    checked = 0
    held_back = 0

    @settings(max_examples=300)
    @given(valid_conversations(server_tools=True))
    def run(h: list[Message]) -> None:
        nonlocal checked, held_back
        assert validate(h) == [], "the strategy made an invalid history"
        n = len(h)
        accepted = _acceptable_cuts(h)
        held_back += any(is_clean_user_start(h[i]) and i not in accepted for i in range(1, n))
        for k in range(n + 2):
            out = compact(h, keep_recent=k, summarize=lambda t: "S.")
            assert validate(out) == [], (k, out)
            plan = plan_compaction(h, keep_recent=k)
            if k == 0:
                assert plan.kept_from == n
            elif k >= n:
                assert plan.kept_from == 0
            else:
                assert plan.kept_from == max((i for i in accepted if i <= n - k), default=0)
            checked += 1

    run()
    print(
        f"\ncompact with server tools: {checked} pairs checked; "
        f"{held_back} histories had a clean start it must not cut at"
    )
    record_property("server_pairs_checked", checked)
    assert held_back > 0  # the strategy does make the case of defect 12


def _without_tool_uses(m: Message) -> list[object]:
    """The blocks repair never edits: all but client tool calls and server results (it may drop both)."""
    return [b for b in blocks_of(m) if not isinstance(b, ToolUseBlock) and server_tool_link(b) is None]


def test_repair_makes_broken_histories_valid(record_property: Callable[[str, object], None]) -> None:
    repaired = 0
    rejected_before = 0
    kinds_seen: set[str] = set()

    @settings(max_examples=600)
    @given(broken_conversations(server_tools=True))
    def run(h: list[Message]) -> None:
        nonlocal repaired, rejected_before
        fixed, notes = repair(h)
        assert validate(_as_request(fixed)) == [], (fixed, notes)
        # Never silent: a change comes with a note, and no note without a change.
        assert (fixed != h) == bool(notes)
        # Idempotent.
        assert repair(fixed) == (fixed, [])
        for n in notes:
            assert n.kind in REPAIR_KINDS and n.text and 0 <= n.index < len(h)
            kinds_seen.add(n.kind)
        # Assistant messages are never merged or edited beyond dropping duplicate tool calls:
        # thinking survives byte for byte, in its own message.
        originals = [_without_tool_uses(m) for m in h if m.role == "assistant"]
        for m in fixed:
            if m.role == "assistant":
                assert _without_tool_uses(m) in originals
        # A repaired history compacts validly too.
        for k in (0, 1, 3, len(fixed)):
            assert validate(_as_request(compact(fixed, keep_recent=k, summarize=lambda t: "S."))) == []
        repaired += 1
        rejected_before += bool(validate(_as_request(h)))

    run()
    print(
        f"\nrepair: {repaired} broken histories repaired, {rejected_before} of them rejected by validate before; "
        f"kinds seen: {sorted(kinds_seen)}"
    )
    record_property("broken_repaired", repaired)
    # The oracle is not vacuous: much of the generated damage is rejected before repair
    # (the rest, a dropped text block say, leaves a valid history that repair must not touch) ...
    assert rejected_before > repaired // 3
    # ... and every kind of repair is exercised.
    assert kinds_seen == REPAIR_KINDS


@settings(max_examples=300)
@given(valid_conversations(server_tools=True))
def test_repair_is_the_identity_on_valid_histories(h: list[Message]) -> None:
    assert repair(h) == (h, [])


def test_tool_use_blocks_are_what_the_pair_check_sees() -> None:
    """``_unpaired`` can fail: a lone call or a lone result is reported."""
    call = assistant_msg([ToolUseBlock(id="toolu_1", name="bash", input={})])
    assert _unpaired([call]) == ({"toolu_1"}, set())
