"""The harness the chapters call instead of defining it (``msgmodel.course``): each does what its chapter says.

The chapters' outputs (nbval) pin these too; these tests say what each helper promises, one by one.
"""

from __future__ import annotations

import pytest

from msgmodel import ToolUseBlock, assistant_msg, tool_result_block, tool_result_msg, user_text
from msgmodel.api.scripted import ScriptedModel
from msgmodel.core.compact import compact
from msgmodel.core.protocol import validate
from msgmodel.course.display import event_line, outline
from msgmodel.course.legacy import compact29
from msgmodel.course.legacy.harness import (
    RecordingCompactor,
    first_400,
    legacy_engine,
    new_signature,
    reach_table,
    slicing_session,
    trace_paths,
    verdict,
)
from msgmodel.course.live_api import live_api_agreement
from msgmodel.course.sessions import (
    DEBUG_PROMPT,
    DEBUG_TURNS,
    KEY_FACTS,
    PROMPTS,
    SETTINGS_PROMPT,
    TRICKY,
    debug_tools,
    probe,
    probe_table,
)
from msgmodel.course.teaching import abridged


def test_outline_draws_one_line_per_message_and_marks_a_cut() -> None:
    call = ToolUseBlock("toolu_01", "grep", {"pattern": "x"})
    history = [user_text("Find x"), assistant_msg([call]), tool_result_msg([tool_result_block("toolu_01", "hit")])]
    lines = str(outline(history, {2: "cut here"})).splitlines()
    assert lines[0].split() == ["0", "user", "text", "'Find", "x'"]
    assert lines[2] == "✂ ─── cut here" and lines[3].split()[-2:] == ["→", "toolu_01"]
    assert str(outline(history, since=2)).splitlines()[0] == "  … 2 earlier messages"
    assert repr(outline(history)) == str(outline(history))


def test_abridged_keeps_the_first_lines_of_each_block_and_counts_the_rest() -> None:
    text = "User: hi\n[result: a\nb\nc\nd\ne]\nAssistant: ok"
    assert abridged(text) == "User: hi\n[result: a\nb\nc\n  ⋮ (2 more lines)\n\nAssistant: ok"
    assert abridged("User: hi\n[result: a\nb\nc\nd]") == "User: hi\n[result: a\nb\nc\nd]"  # one line over: kept
    assert abridged("User: short") == "User: short"


def test_the_slicing_session_gets_its_400_at_keep_7_and_none_at_keep_6() -> None:
    six = RecordingCompactor(compact29.compact)
    assert first_400(legacy_engine(keep=6, compact=six), PROMPTS * 2) is None and len(six.handed) >= 1
    seven = RecordingCompactor(compact29.compact)
    refusal = first_400(legacy_engine(keep=7, compact=seven), PROMPTS * 2)
    assert refusal is not None and refusal.number == 4 and refusal.error.status_code == 400
    assert validate(refusal.request)[0].rule == "orphan_tool_result"
    assert str(validate(refusal.request)[0]) in str(refusal)


def test_slicing_session_is_chapter_01s_run_written_once() -> None:
    seven = slicing_session()
    assert len(seven.history) == 13 and seven.refusal is not None and seven.refusal.number == 4
    assert validate(seven.refusal.request)[0].rule == "orphan_tool_result"
    six = slicing_session(keep=6)
    assert six.refusal is None and len(six.history) > 12  # every prompt answered; the last history compacted


def test_new_signature_and_verdict_run_one_test_on_old_and_new_code() -> None:
    slicing = new_signature(compact29.compact)
    assert slicing.__name__ == "compact"
    loop = [user_text("go"), assistant_msg([ToolUseBlock("toolu_01", "grep", {})])]
    loop.append(tool_result_msg([tool_result_block("toolu_01", "hit")]))

    def never_orphans(fn: object) -> None:
        for k in range(len(loop) + 1):
            assert validate(fn(loop, keep_recent=k, summarize=lambda t: "S."), as_history=True) == [], k  # type: ignore[operator]

    assert verdict(never_orphans, compact) == "passes"
    assert verdict(never_orphans, slicing).startswith("FAILS: ")


def test_chapter_05s_legacy_helpers_property_runner_and_long_loop() -> None:
    from msgmodel import is_clean_user_start
    from msgmodel.core.message import Message
    from msgmodel.course.legacy.harness import legacy_compactors, legacy_renderers, legacy_summaries
    from msgmodel.course.properties import check_on_histories
    from msgmodel.course.sessions import long_tool_loop

    loop = long_tool_loop(rounds=6)
    assert len(loop) == 13 and [i for i, m in enumerate(loop) if is_clean_user_start(m)] == [0]
    assert validate(loop, thinking="enabled") == []
    slicing, fixed = legacy_compactors().values()
    assert len(fixed(loop, keep_recent=3, summarize=lambda t: "S.")) == 1  # the forward fix keeps only its summary
    step30, copy2 = legacy_renderers().values()
    assert "(tool call)" in step30(loop) and "grep" not in step30(loop) and "grep" in copy2(loop)
    summaries = legacy_summaries([*loop, user_text("next")], lambda t: t)
    assert list(summaries) == ["step 30", "copy #2"] and "grep" in summaries["copy #2"]

    def keeps_valid(fn: object, h: list[Message]) -> None:
        for k in range(len(h) + 2):
            assert validate(fn(h, keep_recent=k, summarize=lambda t: "S.")) == [], k  # type: ignore[operator]

    assert check_on_histories(keeps_valid, compact, examples=20) == "passes on 20 histories"
    assert check_on_histories(keeps_valid, slicing, examples=20).startswith("FAILS: ")


def test_the_debugging_session_and_its_probes() -> None:
    engine = legacy_engine(model=ScriptedModel(DEBUG_TURNS), tools=debug_tools())
    assert engine.submit(DEBUG_PROMPT) == DEBUG_TURNS[3]
    with pytest.raises(Exception, match="tool_use_id"):
        engine.submit(SETTINGS_PROMPT)  # the legacy slip: the read of a missing file hits the 400
    summary = 'read_file {"path": "src/config.py"} → returned: ...'
    assert probe(summary, "which file was read") == "src/config.py"
    assert probe("nothing here", "which file was read") == "cannot tell"
    table = probe_table({"a": summary}, ["which file was read"])
    assert table.splitlines()[-1].split() == ["a", "1"] and f"(of {len(KEY_FACTS)})" in table


def test_tricky_holds_a_valid_exchange_of_the_kinds_the_debugging_session_lacks() -> None:
    assert validate([*TRICKY, user_text("next")]) == []
    kinds = {type(b).__name__ for m in TRICKY for b in (m.content if isinstance(m.content, list) else [])}  # on purpose
    assert {"OpaqueBlock", "ThinkingBlock", "ToolUseBlock", "ToolResultBlock", "TextBlock"} <= kinds


def test_the_traced_paths_reach_each_buggy_site_only_off_the_happy_path() -> None:
    import msgmodel.course.legacy as legacy
    from msgmodel.course.knowledge import scan_block_knowledge

    sites = scan_block_knowledge(legacy)
    paths = trace_paths(sites)
    assert list(paths) == ["plain", "tool round", "failing tool", "compaction", "fixed compaction"]
    slip = next(s for s in sites if "toolUseId" in s.code and s.kind == "block-literal")
    assert [p for p, ran in paths.items() if slip in ran] == ["failing tool"]
    assert reach_table(sites, paths).splitlines()[-1].startswith(f"sites run (of {len(sites)})")


def test_the_agreement_summary_counts_what_the_captures_are() -> None:
    agreement = live_api_agreement()
    text = repr(agreement.summary())
    caps = agreement.captures
    filled, rebuilt = sum(c.filled for c in caps), sum(c.reconstructed for c in caps)
    refused = sum(c.live_status == 400 for c in caps)
    assert text.splitlines() == [
        f"{len(caps)} public captures of the live API: {len(caps)} agree with validate byte for byte "
        f"({len(caps) - filled} verbatim, {filled} with placeholders filled)",
        f"  {refused} refusals under {len({c.rule for c in caps if c.live_status == 400})} rules and "
        f"{len(caps) - refused} acceptance; {rebuilt} requests rebuilt from a report, not recorded",
        f"  not captured: {len(agreement.open_questions)} open questions, answered by our reading (listed apart)",
    ]
    assert len(text.split()) <= 60, "the summary is a verdict, not a listing"
    listing = agreement.summary().by_rule()
    assert len({c.rule for c in caps}) <= sum(line.startswith("✓") for line in listing.splitlines())
    assert "✗" not in listing
    assert "(ids filled in)" in agreement._repr_html_()


def test_event_line_names_every_event_class() -> None:
    import asyncio

    from msgmodel.api import demo_registry, local_client
    from msgmodel.core.engine import QueryEngine

    engine = QueryEngine(local_client(), tools=demo_registry())

    async def run() -> list[str]:
        return [event_line(ev) async for ev in engine.run("Read src/app.py")]

    lines = asyncio.run(run())
    assert [line.split()[0] for line in lines] == [
        "TurnStarted",
        "AssistantMessage",
        "ToolCalled",
        "ToolResulted",
        "AssistantMessage",
        "TurnEnded",
    ]


def test_bypasses_in_names_a_hand_built_message_and_a_content_walk() -> None:
    from msgmodel.course.knowledge import bypasses_in

    found = bypasses_in('m = Message(role="assistant", content=[])\nfor b in m.content: pass\n')
    assert [(b.kind, b.line) for b in found] == [("construct", 1), ("content-walk", 2)]
    assert bypasses_in("m = user_text('hi')  # a constructor\n") == []


def test_model_imports_reads_what_each_layer_takes_from_the_model() -> None:
    from msgmodel.course.knowledge import ScanError, model_imports

    found = model_imports(["msgmodel.core.compact", "msgmodel.core.tools"])
    assert {"is_clean_user_start", "transcript_of"} <= set(found["msgmodel.core.compact"])
    assert "tool_result_block" in found["msgmodel.core.tools"]
    with pytest.raises(ScanError, match="no such module"):
        model_imports(["msgmodel.core.no_such_module"])


def test_decode_grid_gives_each_option_one_short_verdict_per_input() -> None:
    from msgmodel.course.options import decode_grid, options

    inputs = {
        "slip": b'[{"role":"user","content":[{"type":"tool_result","toolUseId":"t","content":"x"}]}]',
        "cache_control": b'[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{}}]}]',
    }
    lines = decode_grid(inputs, options()).splitlines()
    assert lines[0].split() == ["TypedDict", "dataclass", "pydantic", "msgspec", "from_json"]
    assert lines[1].split("  ")[0] == "slip" and "TypeError, no path" in lines[1]
    assert "DROPS it" in lines[2] and lines[2].rstrip().endswith("accepted")
    assert any(line.startswith("  from_json, slip: DecodeError: $[0].content[0]") for line in lines)


def test_bench_verdicts_reads_the_committed_run() -> None:
    from msgmodel.course.options import BENCH_GOALS, bench_verdicts, committed_bench

    results = committed_bench()
    lines = bench_verdicts(results).splitlines()
    assert len(lines) == 2  # chapter 07 defines the goals before the cell: the verdicts fit one line
    assert lines[0].startswith(f"P1, decoding {results['messages']:,} messages")
    met = [name for name in BENCH_GOALS if results[name]["goal_met"]]
    missed = [name for name in BENCH_GOALS if not results[name]["goal_met"]]
    assert lines[1] == f"goals met: {', '.join(met) or 'none'} | missed: {', '.join(missed) or 'none'}"


def test_mistakes_verdict_is_the_grid_in_one_line() -> None:
    from msgmodel.course.options import MISTAKES, mistakes_caught, mistakes_verdict

    verdict, grid = mistakes_verdict(), mistakes_caught().splitlines()
    for name in MISTAKES:
        row = next(line for line in grid if line.startswith(name))
        caught = row[len(name) :].split().count("caught")
        assert f"{name}: {caught} of 3" in verdict or f"{name}, " in verdict.split(f": {caught} of 3")[0]
    assert "list[Any] (dicts): 0 of 3" in verdict and verdict.endswith("(errors on unmarked lines: 0)")


def test_option_excerpt_keeps_one_block_class_and_the_decoder() -> None:
    from msgmodel.course.options import OPTION_SOURCES, option_excerpt

    for source in OPTION_SOURCES.values():
        excerpt = option_excerpt(source)
        assert "ToolResultBlock" in excerpt
        assert "def decode" in excerpt or "decode =" in excerpt
        assert "class TextBlock" not in excerpt and "class ToolUseBlock" not in excerpt
        assert excerpt.count("written like ToolResultBlock") == 1
        assert not any(line.startswith(("import ", "from ")) for line in excerpt.splitlines())
