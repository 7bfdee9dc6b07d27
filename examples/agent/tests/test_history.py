"""Compaction of a long tool loop and session files, with the same scripted client."""

from __future__ import annotations

from pathlib import Path

from myagent import TOOLS, load_session, run

import msgmodel as mm
from msgmodel.api.testing import LocalKit, tool_call
from msgmodel.core import storage


def test_a_long_tool_loop_is_compacted_and_the_summary_takes_the_next_turn(
    msgmodel_api: LocalKit, tmp_path: Path
) -> None:
    (tmp_path / "big.txt").write_text("x" * 4_000)  # about 1,000 tokens a result
    read = tool_call("read_file", path="big.txt")
    # Call order: after the third result the history is over the budget, so before the fourth
    # request the agent compacts, and the summarizer's request (same client) takes the next turn.
    msgmodel_api.script(read, read, read, "Summary: read big.txt three times.", read, "Read it four times.")
    history = run(msgmodel_api.client, "Read big.txt four times", root=tmp_path, budget=2_500)
    assert mm.text_of(history[-1]) == "Read it four times."
    assert "read big.txt three times" in mm.text_of(history[0])  # the summary opens the compacted history
    assert len(history) < 9  # 1 prompt + 4 calls + 4 results + the answer, without compaction
    assert mm.validate(history, as_history=True) == []  # a stored conversation may end with the answer
    summarizer = [r for r in msgmodel_api.requests if "tools" not in r.body]
    assert len(summarizer) >= 1 and summarizer[0].body["system"].startswith("You summarize")


def test_a_session_file_keeps_the_header_and_every_message(msgmodel_api: LocalKit, tmp_path: Path) -> None:
    session = tmp_path / "s1.jsonl"
    msgmodel_api.script(tool_call("add", a=1, b=1), "2.", "Still 2.")
    first = run(msgmodel_api.client, "1 + 1?", root=tmp_path, session=session)
    loaded = storage.load(session)
    assert loaded.header is not None and loaded.header.tools == TOOLS and loaded.header.session_id == "s1"
    assert loaded.messages == first and loaded.ok
    again = run(msgmodel_api.client, "And again?", root=tmp_path, session=session)  # resumed: no filler turns
    assert again[: len(first)] == first and mm.text_of(again[-1]) == "Still 2."
    assert msgmodel_api.requests[-1].messages == again[:-1]


def test_a_crash_mid_append_is_cut_off_on_resume(msgmodel_api: LocalKit, tmp_path: Path) -> None:
    session = tmp_path / "s2.jsonl"
    msgmodel_api.script("Hello.")
    done = run(msgmodel_api.client, "hi", root=tmp_path, session=session)
    with session.open("ab") as f:
        f.write(b'{"role": "user", "content": "half a li')  # what kill -9 inside an append leaves
    assert load_session(session) == done
