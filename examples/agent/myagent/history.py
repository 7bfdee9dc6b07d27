"""The history's life outside one request: compaction of a long tool loop, and session files."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import anthropic

import msgmodel as mm
from msgmodel.core import storage
from msgmodel.core.compact import compact, estimate_tokens, summarizer_from_client

TOKEN_BUDGET = 20_000
"""Compact a history that counts more tokens than this (``estimate_tokens``: 4 bytes of JSON a token)."""


def compact_if_needed(
    history: list[mm.Message], client: anthropic.Anthropic, *, budget: int = TOKEN_BUDGET
) -> list[mm.Message]:
    """``history``, or, over ``budget``, a summary of its old part and a recent window within half the budget.

    Old tool results are cleared first (all but the 2 latest); the summary is asked of the same client.
    """
    if estimate_tokens(history) <= budget:
        return history
    summarize = summarizer_from_client(client, model="claude-haiku-4-5")
    return compact(history, summarize=summarize, max_tokens=budget // 2, clear_results=2)


def start_session(path: Path, *, model: str, system: str, tools: Sequence[Mapping[str, Any]]) -> None:
    """A new session file: its header line (what the conversation is held with), no messages yet."""
    header = storage.SessionHeader(session_id=path.stem, model=model, system=system, tools=[dict(t) for t in tools])
    storage.save(path, [], header=header)


def record(path: Path, messages: list[mm.Message]) -> None:
    """Append ``messages`` to the session (acknowledged, fsynced, when this returns)."""
    storage.append(path, messages)


def load_session(path: Path) -> list[mm.Message]:
    """The session's messages; a torn last line (a crash mid-append) is cut off first."""
    result = storage.load(path)
    if result.torn:
        storage.repair(path)
        result = storage.load(path)
    return list(result.messages)
