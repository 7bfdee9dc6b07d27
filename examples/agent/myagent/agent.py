"""The tool loop: ask the model, run the tools it calls, repeat until it answers in text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anthropic
from anthropic.types import ToolParam

import msgmodel as mm
from msgmodel.core.protocol import check
from myagent import history as hist

MODEL = "claude-haiku-4-5"
SYSTEM = "You are a careful assistant. Use the tools to read files and to add numbers."
TOOLS: list[ToolParam] = [
    {
        "name": "read_file",
        "description": "Read a text file of the project.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    },
    {
        "name": "add",
        "description": "Add two numbers.",
        "input_schema": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
    },
]


class AgentError(RuntimeError):
    """The model stopped in a way the agent cannot continue from (a refusal, an answer cut short)."""


def make_client() -> anthropic.Anthropic:
    """The production client: the SDK retries 429, 529 and timeouts on its own (3 times here)."""
    return anthropic.Anthropic(max_retries=3)


def run_tool(name: str, args: dict[str, Any], root: Path) -> tuple[str, bool]:
    """Run one tool: (its output, whether it failed)."""
    if name == "add":
        try:
            return str(float(args["a"]) + float(args["b"])).removesuffix(".0"), False
        except (KeyError, TypeError, ValueError) as e:
            return f"add needs two numbers a and b ({e})", True
    if name == "read_file":
        path = (root / str(args.get("path", ""))).resolve()
        if not path.is_relative_to(root.resolve()):
            return f"{args.get('path')}: outside the project", True
        try:
            return path.read_text(), False
        except OSError as e:
            return f"{args.get('path')}: {e.strerror}", True
    return f"no tool named {name!r}", True


def step(client: anthropic.Anthropic, history: list[mm.Message], *, model: str = MODEL) -> mm.Message:
    """One request: the history is checked first (``ProtocolError`` with the API's text), then sent."""
    check(history, model=model, tools_defined=True)
    response = client.messages.create(
        model=model,
        max_tokens=1024,
        system=SYSTEM,
        tools=TOOLS,
        messages=mm.to_api(history),
    )
    if response.stop_reason == "refusal":
        raise AgentError("the model refused to continue")
    if response.stop_reason == "max_tokens":
        raise AgentError("the answer was cut at max_tokens")
    return mm.assistant_msg(mm.blocks_from_api(response.content))


def run(
    client: anthropic.Anthropic,
    prompt: str,
    *,
    root: Path = Path("."),
    session: Path | None = None,
    budget: int = hist.TOKEN_BUDGET,
    max_steps: int = 25,
) -> list[mm.Message]:
    """Run the agent on ``prompt`` until it answers in text; the whole history is returned.

    With ``session``, the conversation is saved there (a header, then one line per message,
    appended as it happens) and an existing session is resumed. A history over ``budget``
    tokens is compacted before it is sent.
    """
    history = hist.load_session(session) if session is not None and session.exists() else []
    if session is not None and not session.exists():
        hist.start_session(session, model=MODEL, system=SYSTEM, tools=TOOLS)
    new = [mm.user_text(prompt)]
    for _ in range(max_steps):
        history += new
        if session is not None:
            hist.record(session, new)
        history = hist.compact_if_needed(history, client, budget=budget)
        answer = step(client, history)
        history.append(answer)
        if session is not None:
            hist.record(session, [answer])
        calls = mm.tool_uses_of(answer)
        if not calls:
            return history
        results = []
        for call in calls:
            output, failed = run_tool(call.name, call.input, root)
            results.append(mm.tool_result_block(call.id, output, is_error=failed))
        new = [mm.tool_result_msg(results)]
    raise AgentError(f"no answer after {max_steps} steps")
