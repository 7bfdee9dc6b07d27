"""Findings of the library review (issue 24) fixed in the core: each test failed before its fix.

m5: ``msgmodel check`` on a session with a torn tail said only "line is not JSON"; it now says the
line is a torn tail and how to cut it. m12: ``transcript_of`` cut calls and results at fixed module
constants; the limits are now parameters, and ``compact`` takes the transcript it summarizes.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from msgmodel import (
    ToolUseBlock,
    assistant_msg,
    block_to_text,
    tool_result_block,
    tool_result_msg,
    transcript_of,
    user_text,
)
from msgmodel.core import cli, storage
from msgmodel.core.compact import compact, compact_with_provenance


def test_check_names_a_torn_tail_and_the_repair(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """m5: a torn tail, which storage.load reads as normal after a crash, was only 'not JSON' to check."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"role": "user", "content": "hi"}\n{"role": "assis')
    assert cli.main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:2: line is not JSON (")
    assert "a torn tail (a crash in the middle of an append), which msgmodel.core.storage.repair(path) cuts off" in err
    assert storage.repair(path) is not None and cli.main(["check", str(path)]) == 0
    path.write_bytes(b'{"role": "user", "content": "hi"}\n{"role": "assis\n{"role": "user", "content": "x"}\n')
    assert cli.main(["check", str(path)]) == 2
    assert "torn tail" not in capsys.readouterr().err  # damage in the middle is not a torn tail


LONG = "x" * 1_000
HISTORY = [
    user_text("go"),
    assistant_msg([ToolUseBlock(id="toolu_1", name="read_file", input={"path": "a" * 300})]),
    tool_result_msg([tool_result_block("toolu_1", LONG)]),
    user_text("next"),
]


def test_transcript_limits_are_parameters() -> None:
    """m12: ARGS_LIMIT / RESULT_LIMIT (200 / 500) were module constants, not parameters."""
    default = transcript_of(HISTORY)
    assert "x" * 500 + "…]" in default and "x" * 501 not in default
    wide = transcript_of(HISTORY, args_limit=1_000, result_limit=2_000)
    assert f"[result: {LONG}]" in wide and "a" * 300 in wide
    assert block_to_text(HISTORY[2].content[0], result_limit=3) == "[result: xxx…]"  # type: ignore[index]


def test_compact_summarizes_the_transcript_it_is_given() -> None:
    seen: list[str] = []

    def summarize(text: str) -> str:
        seen.append(text)
        return "summary"

    wide = functools.partial(transcript_of, result_limit=5_000)
    result = compact_with_provenance(HISTORY, summarize=summarize, keep_recent=1, transcript=wide)
    assert LONG in seen[0] and result.transcript == seen[0]
    assert len(compact(HISTORY, summarize=summarize, keep_recent=1)) == 2
    assert LONG not in seen[1]  # the default transcript still cuts at 500


def test_check_lists_the_apis_answer_first_as_its_docstring_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """m6: the text output is in API-priority order, not line order; that is now said, and held."""
    from msgmodel.core.protocol import validate

    lines = [
        '{"role": "user", "content": "hi"}',
        '{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}]}',
        '{"role": "user", "content": [{"type": "text", "text": ""}]}',
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert cli.main(["check", str(path)]) == 1
    first = capsys.readouterr().out.splitlines()[0]
    expected = validate(storage.load(path).messages, as_history=True)[0]
    assert first == f"{path}:3: {expected}"  # line 3 before line 2: the API's answer first
    assert "the first one is the 400 the live API would" in " ".join((cli.__doc__ or "").split())
