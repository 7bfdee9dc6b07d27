"""The sessions the chapters replay, written once: prompts, a scripted debugging session, its probes.

This module owns the recurring scenes of the series, so that no chapter rebuilds one another
chapter already built (as d2l keeps the code two chapters share in its package):

* ``PROMPTS``: eight tool prompts, the ordinary agent session of chapters 01 and 05 (step 29's
  bug); ``CHATTY``: the same with one bit of small talk, which the model answers without a tool.
* The debugging session of chapters 02 and 05 (step 30's bug): ``DEBUG_PROMPT`` and the scripted
  model turns ``DEBUG_TURNS`` (the agent reads the config, runs the failing tests, greps, then
  looks for a settings module that does not exist); ``RUN_COMMAND``, a stand-in shell tool that
  *reports* a failing command in its output (``exit code 1``) instead of raising, as shell tools
  do; ``debug_tools()``, the demo tools plus that one.
* ``KEY_FACTS`` and ``probe``: what a summary of that session still tells. ``PROBES`` are three
  questions the agent's next turn depends on, asked with regular expressions over the local
  model's summary format (a real agent would ask a model; either way the answer can only come
  from the summary's text). ``probe_table`` asks them of several summaries at once.
* ``TRICKY``: three messages with blocks the debugging session did not contain (a screenshot, a
  signed thinking block, a long ``grep`` pattern, a read that failed, a result given as a list of
  blocks), built with the constructors.
* ``long_tool_loop(rounds)``: chapter 05's worst case for compaction: one prompt, then ``rounds``
  grep rounds with no clean user start between them, each turn opening with a signed thinking block.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from msgmodel.api.demo_tools import demo_registry
from msgmodel.core.message import (
    ContentBlock,
    Message,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    assistant_msg,
    tool_result_block,
    tool_result_msg,
    user_msg,
    user_text,
)
from msgmodel.core.tools import Tool, ToolRegistry

__all__ = [
    "CHATTY",
    "DEBUG_PROMPT",
    "DEBUG_TURNS",
    "KEY_FACTS",
    "PROBES",
    "PROMPTS",
    "PYTEST_OUTPUT",
    "RUN_COMMAND",
    "SETTINGS_PROMPT",
    "TRICKY",
    "debug_tools",
    "long_tool_loop",
    "probe",
    "probe_table",
    "run_command",
]

PROMPTS: Final[tuple[str, ...]] = (
    "Read src/app.py",
    "What is (3 + 4) * 2 ** 3?",
    "Search for 'retries' in src/",
    "List the files in tests/",
    "Read README.md and setup.cfg",
    "Where is 'APP_TIMEOUT' used? grep for it",
    "Please read tests/test_app.py",
    "Compute 2 ** 10 - 24",
)
"""Eight prompts the rule-based model answers with one tool round each (one asks for two files at once)."""

CHATTY: Final[tuple[str, ...]] = (*PROMPTS[:3], "Great, thanks.", *PROMPTS[3:])
"""``PROMPTS`` with one bit of small talk after the third, which the model answers without a tool."""

PYTEST_OUTPUT: Final = """exit code 1
src/app.py:15: TypeError: 'str' object cannot be interpreted as an integer
!!! stopping after 1 failures !!!
1 failed"""


def run_command(command: str) -> str:
    """A stand-in shell tool: it reports a failing command in its output, as shell tools do."""
    if "pytest" in command:
        return PYTEST_OUTPUT
    return f"exit code 127\nsh: {command.split()[0]}: command not found"


RUN_COMMAND: Final = Tool(
    "run_command",
    "Run a shell command in the project root; returns its exit code and output.",
    {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
    run_command,
)


def debug_tools() -> ToolRegistry:
    """The demo tools (``read_file``, ``list_dir``, ``grep``, ``calculator``) plus ``run_command``."""
    return ToolRegistry([*demo_registry().values(), RUN_COMMAND])


DEBUG_PROMPT: Final = "The tests fail when APP_RETRIES is set. Find out why."
SETTINGS_PROMPT: Final = "Before you fix it: does a settings module override the default?"

DEBUG_TURNS: Final[tuple[list[TextBlock | ToolUseBlock] | str, ...]] = (
    [TextBlock("I'll read the config first."), ToolUseBlock("toolu_01", "read_file", {"path": "src/config.py"})],
    [
        TextBlock("Now the tests, with the variable set."),
        ToolUseBlock("toolu_02", "run_command", {"command": "APP_RETRIES=5 pytest -q -x --tb=line"}),
    ],
    [
        TextBlock("Where is the retry count used?"),
        ToolUseBlock("toolu_03", "grep", {"pattern": "retries", "path": "src/"}),
    ],
    "I have what I need; next I'll write the fix.",
    [TextBlock("Is there a settings module?"), ToolUseBlock("toolu_04", "read_file", {"path": "src/settings.py"})],
    "There is no settings module, so nothing overrides the default in src/config.py.",
)
"""The model's turns, in order: three tool rounds and an answer for ``DEBUG_PROMPT``, then a read of a
file that does not exist and an answer for ``SETTINGS_PROMPT``."""

KEY_FACTS: Final[tuple[str, ...]] = (
    "src/config.py",
    "run_command",
    "pytest",
    "exit code 1",
    "TypeError",
    "src/app.py:15",
    "grep",
)
"""Seven facts of the debugging session a summary should still hold."""

PROBES: Final[Mapping[str, tuple[str, str]]] = {
    "which file was read": (r'read_file \{"path": ?"([^"]+)"', "{1}"),
    "which command failed, and why": (
        r'run_command \{"command": ?"([^"]+)"\} → returned: exit code [1-9]\d* (\S+?):? (\w+Error)',
        "`{1}`: {3} at {2}",
    ),
    "which call reported an error": (r"(\w+ \{[^}]*\}) → failed: (.+)", "{1}: {2}"),
}
"""Each question: a regular expression over the local model's summary, and how to word what it found."""


def probe(summary: str, question: str) -> str:
    """The answer ``summary`` gives to one of ``PROBES``, or ``"cannot tell"``."""
    pattern, answer = PROBES[question]
    found = re.search(pattern, summary)
    return answer.format(found[0], *found.groups()) if found else "cannot tell"


def probe_table(summaries: Mapping[str, str], questions: Sequence[str] = tuple(PROBES)) -> str:
    """Each question asked of each summary, then how many ``KEY_FACTS`` each summary still holds."""
    width = max(len(name) for name in summaries)
    lines: list[str] = []
    for question in questions:
        lines.append(question)
        lines.extend(f"  {name:<{width}}  {probe(text, question)}" for name, text in summaries.items())
    lines.append(f"key facts kept (of {len(KEY_FACTS)})")
    lines.extend(f"  {name:<{width}}  {sum(f in text for f in KEY_FACTS)}" for name, text in summaries.items())
    return "\n".join(lines)


_LONG_PATTERN: Final = "|".join(["retries", "backoff", "timeout", "APP_RETRIES", "APP_TIMEOUT", "load_config"] * 4)

TRICKY: Final[tuple[Message, ...]] = (
    user_msg(
        [
            TextBlock("CI fails too; here is the screenshot:"),
            OpaqueBlock({"type": "image", "source": {"type": "url", "url": "https://example.com/ci.png"}}),
        ]
    ),
    assistant_msg(
        [
            ThinkingBlock("A settings module might override the config.", signature="c2lnbmF0dXJl"),
            ToolUseBlock("toolu_05", "read_file", {"path": "src/settings.py"}),
            ToolUseBlock("toolu_06", "grep", {"pattern": _LONG_PATTERN, "path": "src/"}),
        ]
    ),
    tool_result_msg(
        [
            tool_result_block("toolu_05", "read_file: no such file: `src/settings.py`", is_error=True),
            tool_result_block("toolu_06", [TextBlock("src/app.py:15:     for attempt in range(retries):")]),
        ]
    ),
)
"""A screenshot (an ``image`` block), signed thinking, a 120-character pattern, a failed read, a list result."""


def long_tool_loop(rounds: int = 6) -> list[Message]:
    """One prompt, then ``rounds`` tool rounds, each assistant turn opening with a signed thinking block."""
    loop = [user_text("Fix the flaky test.")]
    for i in range(1, rounds + 1):
        turn: list[ContentBlock] = [
            ThinkingBlock(f"Try step {i}.", signature="c2ln"),
            ToolUseBlock(f"toolu_{i:02d}", "grep", {"pattern": "x"}),
        ]
        loop += [assistant_msg(turn), tool_result_msg([tool_result_block(f"toolu_{i:02d}", f"hit {i}")])]
    return loop
