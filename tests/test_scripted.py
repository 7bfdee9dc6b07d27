"""The deterministic stand-in model: what its summaries can and cannot know."""

from __future__ import annotations

from msgmodel import ToolUseBlock, assistant_msg, to_api, tool_result_block, tool_result_msg, transcript_of, user_text
from msgmodel.api.scripted import RuleModel


def _summary_of(transcript: str) -> str:
    blocks = RuleModel().respond(
        {"model": "m", "max_tokens": 100, "messages": [{"role": "user", "content": f"Summarize:\n\n{transcript}"}]}
    )
    assert len(blocks) == 1 and blocks[0].type == "text"
    return blocks[0].text


def test_a_summary_counts_each_call_once_even_after_the_models_own_report() -> None:
    history = [
        user_text("What is in src/app.py?"),
        assistant_msg([ToolUseBlock(id="toolu_1", name="read_file", input={"path": "src/app.py"})]),
        tool_result_msg([tool_result_block("toolu_1", "import os\nprint(os.getcwd())")]),
    ]
    request = {"model": "m", "max_tokens": 100, "messages": to_api(history)}
    report = RuleModel().respond(request)  # "Here is what the tools returned: ..."
    history.append(assistant_msg(report))
    summary = _summary_of(transcript_of(history))
    assert "- Tool calls I can see: 1" in summary
    assert 'read_file {"path":"src/app.py"} → returned: import os print(os.getcwd())' in summary
    assert "- Task: What is in src/app.py?" in summary


def test_a_placeholder_transcript_names_no_tool_but_keeps_the_task() -> None:
    summary = _summary_of("user: What is in src/app.py?\nassistant: (tool call)\nuser: (tool call)")
    assert "- Task: What is in src/app.py?" in summary
    assert "read_file" not in summary and "2 step(s) appear only as placeholders" in summary
