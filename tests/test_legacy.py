"""The step-29/30 exhibits (``msgmodel.course.legacy``): they carry exactly the bugs they claim; nothing imports them.

These tests pin the exhibits' behaviour. If one fails because somebody "fixed" a legacy
module, the fix belongs in ``msgmodel.core.message`` / ``compact`` / ``engine`` instead.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from imports import imported_modules

import msgmodel
from msgmodel.core.message import (
    DecodeError,
    Message,
    TextBlock,
    ToolUseBlock,
    assistant_msg,
    block_to_text,
    from_api,
    from_json,
    is_clean_user_start,
    is_tool_result_message,
    text_of,
    to_api,
    tool_result_block,
    tool_result_msg,
    transcript_of,
    user_text,
)
from msgmodel.core.protocol import validate
from msgmodel.course.legacy import api as legacy_api
from msgmodel.course.legacy import compact29, storage, summary30
from msgmodel.course.legacy.engine import QueryEngine as LegacyEngine
from msgmodel.course.synth import synth_session

PACKAGE_DIR = Path(msgmodel.__file__).parent
MODEL = "claude-haiku-4-5"  # accepts a final assistant message, so a stored history validates as it is
ORPHAN = (
    "unexpected `tool_use_id` found in `tool_result` blocks: {id}. "
    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
)


def summarize(transcript: str) -> str:
    return f"summary of {len(transcript)} characters"


def session() -> list[dict[str, Any]]:
    """Two prompts, each answered after one tool round; the second read fails."""
    return to_api(
        [
            user_text("Why do the tests fail?"),
            assistant_msg([TextBlock("Let me read it."), ToolUseBlock("toolu_1", "read_file", {"path": "src/app.py"})]),
            tool_result_msg([tool_result_block("toolu_1", "def fetch(url): ...")]),
            assistant_msg([TextBlock("fetch never retries.")]),
            user_text("And the config?"),
            assistant_msg([ToolUseBlock("toolu_2", "read_file", {"path": "src/settings.py"})]),
            tool_result_msg([tool_result_block("toolu_2", "read_file: no such file: `src/settings.py`", True)]),
            assistant_msg([TextBlock("That file does not exist.")]),
        ]
    )


# ---------------------------------------------------------------------------------------
# Nothing outside msgmodel.course.legacy imports it
# ---------------------------------------------------------------------------------------


def legacy_imports(source: str, module: str) -> list[str]:
    """The imports of ``msgmodel.course.legacy`` (or anything under it) in ``source``, the code of ``module``."""
    legacy = "msgmodel.course.legacy"
    return [n for n in imported_modules(source, module) if n == legacy or n.startswith(legacy + ".")]


@pytest.mark.parametrize(
    ("source", "module", "caught"),
    [
        ("import msgmodel.course.legacy.engine", "msgmodel.x", True),
        ("from msgmodel.course.legacy import compact29", "msgmodel.x", True),
        ("from msgmodel.course import legacy", "msgmodel.x", True),
        ("from . import legacy", "msgmodel.course.x", True),
        ("from .legacy.api import extract_text", "msgmodel.course.x", True),
        ("from ..legacy import api", "msgmodel.course.sub.x", True),
        ("importlib.import_module('msgmodel.course.legacy.engine')", "msgmodel.x", True),
        ("from msgmodel.core import message, legacy_notes", "msgmodel.x", False),
        ("import msgmodel.core.message", "msgmodel.x", False),
        ("'see msgmodel.course.legacy for the exhibit'", "msgmodel.x", False),
    ],
)
def test_the_import_check_catches_every_spelling(source: str, module: str, caught: bool) -> None:
    assert bool(legacy_imports(source, module)) is caught


def test_no_module_outside_legacy_imports_it() -> None:
    offenders = {}
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        rel = path.relative_to(PACKAGE_DIR.parent)
        if rel.parts[:3] == ("msgmodel", "course", "legacy"):
            continue
        module = ".".join(rel.with_suffix("").parts)  # "pkg.__init__" resolves relative imports against "pkg"
        hits = legacy_imports(path.read_text(encoding="utf-8"), module)
        if hits:
            offenders[str(rel)] = hits
    assert offenders == {}, (
        "msgmodel.course.legacy is an exhibit; import msgmodel.core.message / compact / engine instead"
    )


def test_every_exhibit_says_what_it_is() -> None:
    package_doc = ast.get_docstring(ast.parse((PACKAGE_DIR / "course" / "legacy" / "__init__.py").read_text())) or ""
    assert "EXHIBIT, NOT CODE TO USE" in package_doc
    assert "deliberately knows everything twice" in package_doc
    assert "must not import" in package_doc
    for name, step in [("compact29", "Step 29"), ("summary30", "Step 30"), ("api", "Step 30"), ("engine", "Step 30")]:
        doc = ast.get_docstring(ast.parse((PACKAGE_DIR / "course" / "legacy" / f"{name}.py").read_text())) or ""
        assert doc.startswith(f"{step} exhibit"), name


# ---------------------------------------------------------------------------------------
# compact29: slicing orphans a tool_result; the local fix does not
# ---------------------------------------------------------------------------------------


def test_slicing_can_start_on_an_orphan_result() -> None:
    history = session()
    compacted = compact29.compact(history, 2, summarize)
    assert compacted[0]["content"].startswith(compact29.SUMMARY_PREFIX)
    assert compacted[1:] == history[-2:]
    violations = validate(compacted, model=MODEL)
    assert [v.rule for v in violations] == ["orphan_tool_result"]
    assert str(violations[0]) == "messages.1.content.0: " + ORPHAN.format(id="toolu_2")


def test_slicing_is_fine_for_an_even_keep_on_this_history() -> None:
    """Why the bug survives review: most values of ``keep`` work most of the time."""
    history = session()
    assert validate(compact29.compact(history, 4, summarize), model=MODEL) == []


def test_the_local_fix_moves_the_cut_to_a_clean_start() -> None:
    history = session()
    fixed = compact29.compact_fixed(history, 2, summarize)
    assert validate(fixed, model=MODEL) == []
    assert fixed[1:] == history[-1:] or fixed[1:] == []  # the cut moved forward, past the orphan


sessions = st.builds(
    lambda n, seed: to_api(synth_session(n, seed=seed)), st.integers(2, 40), st.integers(0, 10_000)
).flatmap(lambda h: st.tuples(st.just(h), st.integers(1, len(h) + 1)))


@settings(max_examples=60)
@given(sessions)
def test_slicing_orphans_exactly_when_the_slice_starts_on_a_result(case: tuple[list[dict[str, Any]], int]) -> None:
    history, keep = case
    compacted = compact29.compact(history, keep, summarize)
    orphaned = any(v.rule == "orphan_tool_result" for v in validate(compacted, model=MODEL))
    starts_on_result = keep < len(history) and is_tool_result_message(from_api(history)[-keep])
    assert orphaned == starts_on_result


@settings(max_examples=60)
@given(sessions)
def test_the_local_fix_keeps_a_valid_history_valid(case: tuple[list[dict[str, Any]], int]) -> None:
    history, keep = case
    assert validate(compact29.compact_fixed(history, keep, summarize), model=MODEL) == []


@settings(max_examples=40)
@given(st.integers(1, 30), st.integers(0, 10_000))
def test_copy_one_agrees_with_the_authority_on_well_formed_messages(n: int, seed: int) -> None:
    """Copy #1 of "clean user start" agrees with ``message.is_clean_user_start`` today..."""
    for m in synth_session(n, seed=seed):
        assert compact29._is_clean_user_start(to_api([m])[0]) == is_clean_user_start(m)


def test_copy_one_fails_deep_inside_on_a_malformed_message() -> None:
    """...but on bad data it fails with a bare KeyError, where the codec names the path."""
    bad = [{"role": "user", "content": "hi"}, {"role": "user"}]
    with pytest.raises(KeyError):
        compact29.compact_fixed(bad, 1, summarize)
    with pytest.raises(DecodeError, match=r"\$\[1\]\.content: missing required field `content`"):
        from_api(bad)


# ---------------------------------------------------------------------------------------
# summary30: "(tool call)" placeholders; copy #2 drifts from block_to_text
# ---------------------------------------------------------------------------------------


def test_the_step_30_transcript_hides_every_tool_block() -> None:
    text = summary30.transcript(session())
    assert text.count("(tool call)") == 4
    for lost in ("read_file", "src/app.py", "src/settings.py", "no such file", "def fetch"):
        assert lost not in text
    authority = transcript_of(from_api(session()))
    for kept in ("[call read_file", "src/app.py", "src/settings.py", "[result (failed): read_file: no such file"):
        assert kept in authority


def test_copy_two_shows_calls_but_drops_the_failure_marker() -> None:
    text = summary30.transcript_fixed(session())
    assert '[call read_file({"path": "src/settings.py"})]' in text
    assert "[result: read_file: no such file: `src/settings.py`]" in text  # reads like a success
    assert "(failed)" not in text
    assert "[result (failed): read_file: no such file" in transcript_of(from_api(session()))


def test_copy_two_loses_block_list_results_and_cuts_silently() -> None:
    listed = tool_result_block("toolu_9", [TextBlock("line one"), TextBlock("line two")])
    assert summary30._block_to_text(to_api([tool_result_msg([listed])])[0]["content"][0]) == "[result: ]"
    assert block_to_text(listed) == "[result: line one line two]"
    long_call = ToolUseBlock("toolu_8", "grep", {"pattern": "x" * 300})
    legacy = summary30._block_to_text(to_api([assistant_msg([long_call])])[0]["content"][0])
    assert not legacy.endswith("…)]")
    assert block_to_text(long_call).endswith("…)]")


@settings(max_examples=40)
@given(st.integers(1, 30), st.integers(0, 10_000))
def test_the_placeholder_count_is_the_count_of_non_text_blocks(n: int, seed: int) -> None:
    history = to_api(synth_session(n, seed=seed))
    non_text = sum(1 for m in history if isinstance(m["content"], list) for b in m["content"] if b["type"] != "text")
    assert summary30.transcript(history).count("(tool call)") == non_text


# ---------------------------------------------------------------------------------------
# api, storage and engine on dicts
# ---------------------------------------------------------------------------------------


@settings(max_examples=30)
@given(st.integers(1, 30), st.integers(0, 10_000))
def test_copy_three_reads_text_like_text_of(n: int, seed: int) -> None:
    for m in synth_session(n, seed=seed):
        assert legacy_api.extract_text(to_api([m])[0]) == text_of(m)


def slipped() -> list[dict[str, Any]]:
    history = session()[:6]
    history.append(
        {
            "role": "user",
            "content": [{"type": "tool_result", "toolUseId": "toolu_2", "content": "no such file", "is_error": True}],
        }
    )
    return history


def test_storage_round_trips_raw_dicts(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    storage.save(path, session())
    assert storage.load(path) == session()
    assert from_json(path.read_bytes()) == from_api(session())


def test_storage_saves_and_loads_the_slip_without_a_word(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    storage.save(path, slipped())
    assert storage.load(path) == slipped()  # nothing noticed
    with pytest.raises(DecodeError, match=r"\$\[6\]\.content\[0\]\.tool_use_id: missing required field `tool_use_id`"):
        from_json(path.read_bytes(), source=str(path))
    rendered = {str(v) for v in validate(json.loads(path.read_text()), model=MODEL)}
    assert "messages.6.content.0.tool_result.tool_use_id: Field required" in rendered
    assert "messages.6.content.0.tool_result.toolUseId: Extra inputs are not permitted" in rendered


def test_legacy_engine_happy_path_and_its_slip() -> None:
    from msgmodel.api.demo_tools import demo_registry
    from msgmodel.api.server import local_client
    from msgmodel.core.tools import tools_param

    registry = demo_registry()
    replies: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    engine = LegacyEngine(
        local_client(),
        {name: tool.run for name, tool in registry.items()},
        tools_param(registry),
        on_assistant=replies.append,
        on_tool_result=results.append,
    )
    answer = engine.submit("Read src/app.py")
    assert answer.startswith("Here is what the tools returned:")
    assert [r["role"] for r in replies] == ["assistant", "assistant"]
    assert results[0]["tool_use_id"] == replies[0]["content"][1]["id"]
    # A failing tool goes down the error path, which spells the field wrong.
    with pytest.raises(Exception, match="400"):
        engine.submit("Read src/missing.py")
    slip = results[-1]
    assert set(slip) == {"type", "toolUseId", "content", "is_error"}
    assert slip["content"] == "read_file: no such file: `src/missing.py`"
    # the typed model has no way to write that: the constructor names the field
    (wire,) = to_api([tool_result_msg([tool_result_block(slip["toolUseId"], slip["content"], True)])])
    assert wire["content"][0]["tool_use_id"] == slip["toolUseId"]


def test_legacy_messages_are_the_same_data_as_messages() -> None:
    """The exhibits hold the same wire data; only the knowledge about it is scattered."""
    history: list[Message] = from_api(session())
    assert to_api(history) == session()
