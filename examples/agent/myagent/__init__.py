"""myagent: a small agent on the official Anthropic SDK, with msgmodel for its history."""

from myagent.agent import MODEL, SYSTEM, TOOLS, AgentError, make_client, run, run_tool, step
from myagent.history import compact_if_needed, load_session, start_session

__all__ = [
    "MODEL",
    "SYSTEM",
    "TOOLS",
    "AgentError",
    "compact_if_needed",
    "load_session",
    "make_client",
    "run",
    "run_tool",
    "start_session",
    "step",
]
