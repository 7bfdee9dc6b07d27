"""How the chapters drive the exhibit: harness code, not part of it (the bugs are in the other modules).

The chapters run the legacy engine many times, always the same way; this module writes that once:

* ``legacy_engine(**config)``: the step-29/30 ``QueryEngine`` (messages as dicts) on the official
  SDK and the local Messages API (``msgmodel.api.local_client``), with the demo tools (or the tools
  given) handed to it as the plain functions and schemas it takes;
* ``RecordingCompactor(compactor)``: a compactor, unchanged, that remembers every history it was
  handed (``.handed``), so a chapter can show where the cut fell;
* ``first_400(engine, prompts)``: submit prompts until the API refuses one; a ``Refusal`` says which
  prompt, the API's error and the request it refused;
* ``slicing_session(keep)``: chapter 01's run, written once for the chapters that reuse it: the
  eight tool prompts twice over on the legacy engine with step 29's slicing compactor; a
  ``SlicedSession`` holds the history the compactor was handed last (typed messages) and the
  ``Refusal``, if any;
* ``new_signature(compactor)``: a step-29 compactor (dicts in, dicts out) called like
  ``msgmodel.core.compact.compact`` (typed messages, ``keep_recent=``, ``summarize=``), so one test
  can run against the old code and the new; ``verdict(test, impl)`` runs such a test on one
  implementation and says ``passes`` or ``FAILS:`` with the assertion's message;
  ``legacy_compactors()`` and ``legacy_renderers()`` are step 29's and step 30's code (bug and local
  fix), named and called like the new code, for chapter 05's regression tests, and
  ``legacy_summaries(history, summarize)`` the summaries step 30's code writes of a history;
* ``trace_paths(sites)``: five ways through the legacy engine (a plain question, a tool round, a tool
  that fails, a compacted session, and one compacted by the local fixes of steps 29–30), each run
  under a line tracer (``sys.settrace``) that records which knowledge sites execute; ``reach_table``
  shows which function holding knowledge each path reached.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, cast

import anthropic

from msgmodel.api import local_client
from msgmodel.api.demo_tools import demo_registry
from msgmodel.api.scripted import Model
from msgmodel.core.message import Message, from_api, text_of, to_api
from msgmodel.core.tools import Tool, tools_param
from msgmodel.course.knowledge import KnowledgeSite
from msgmodel.course.legacy import compact29, summary30
from msgmodel.course.legacy.engine import QueryEngine
from msgmodel.course.sessions import PROMPTS

__all__ = [
    "RecordingCompactor",
    "Refusal",
    "SlicedSession",
    "first_400",
    "legacy_compactors",
    "legacy_engine",
    "legacy_renderers",
    "legacy_summaries",
    "new_signature",
    "reach_table",
    "slicing_session",
    "trace_paths",
    "verdict",
]

Wire = list[dict[str, Any]]


def legacy_engine(*, model: Model | None = None, tools: Mapping[str, Tool] | None = None, **config: Any) -> QueryEngine:
    """The step-29/30 agent loop on dicts, talking to the local API (``model``: its rule-based one by default)."""
    registry = demo_registry() if tools is None else tools
    functions = {name: tool.run for name, tool in registry.items()}
    return QueryEngine(local_client(model), functions, tools_param(registry), **config)


class RecordingCompactor:
    """``compactor``, unchanged, but it remembers every history it was handed (``.handed``)."""

    def __init__(self, compactor: Callable[..., Wire]) -> None:
        self.compactor = compactor
        self.handed: list[Wire] = []

    def __call__(self, history: Wire, keep: int, summarize: Callable[[str], str]) -> Wire:
        self.handed.append(list(history))
        return self.compactor(history, keep, summarize)


@dataclass(frozen=True)
class Refusal:
    """A prompt the API refused: its number (from 1), the prompt, the SDK's error and the request it refused."""

    number: int
    prompt: str
    error: anthropic.BadRequestError
    request: Wire

    def __str__(self) -> str:
        return f"prompt {self.number} ({self.prompt!r}): HTTP {self.error.status_code}\n{self.error.api_message}"


def first_400(engine: QueryEngine, prompts: Iterable[str]) -> Refusal | None:
    """Submit ``prompts`` in order; the first the API refuses, or None when every one is answered."""
    for n, prompt in enumerate(prompts, start=1):
        try:
            engine.submit(prompt)
        except anthropic.BadRequestError as err:
            return Refusal(n, prompt, err, list(engine.messages))  # the engine swapped in the compacted list
    return None


@dataclass(frozen=True)
class SlicedSession:
    """Chapter 01's run: the history the slicing compactor was handed last, as typed messages, and the 400, if any."""

    history: list[Message]
    refusal: Refusal | None


def slicing_session(keep: int = 7) -> SlicedSession:
    """``PROMPTS`` twice over on the legacy engine with step 29's ``compact29.compact`` keeping ``keep`` messages."""
    compactor = RecordingCompactor(compact29.compact)
    refusal = first_400(legacy_engine(keep=keep, compact=compactor), PROMPTS * 2)
    return SlicedSession(from_api(compactor.handed[-1]), refusal)


def new_signature(compactor: Callable[..., Wire]) -> Callable[..., list[Message]]:
    """``compactor`` (dicts in and out, ``keep`` positional), called as ``compact(messages, keep_recent=, summarize=)``.

    Its ``__name__`` stays the compactor's.
    """

    def compact(messages: list[Message], *, keep_recent: int, summarize: Callable[[str], str]) -> list[Message]:
        return from_api(compactor(to_api(messages), keep_recent, summarize))

    compact.__name__ = compactor.__name__
    return compact


def _wire(history: list[Message]) -> Wire:
    """``history`` as the legacy code holds it: plain dicts."""
    return cast(Wire, to_api(history))


def legacy_compactors() -> dict[str, Callable[..., list[Message]]]:
    """Step 29's slicing compactor and its local fix (copy #1), by name, called like ``compact``."""
    return {
        "legacy slicing (step 29 bug)": new_signature(compact29.compact),
        "legacy local fix (copy #1)": new_signature(compact29.compact_fixed),
    }


def legacy_renderers() -> dict[str, Callable[[list[Message]], str]]:
    """Step 30's transcript and its local fix (copy #2), by name, called like ``transcript_of``."""
    return {
        "legacy transcript (step 30 bug)": lambda h: summary30.transcript(_wire(h)),
        "legacy local fix (copy #2)": lambda h: summary30.transcript_fixed(_wire(h)),
    }


def legacy_summaries(history: list[Message], summarize: Callable[[str], str]) -> dict[str, str]:
    """The summary step 29's compactor writes of all but the last message, with step 30's renderer and copy #2."""
    wire = _wire(history)
    out: dict[str, str] = {}
    for name, render in (("step 30", summary30.transcript), ("copy #2", summary30.transcript_fixed)):
        out[name] = text_of(from_api(compact29.compact(wire, 1, summarize, render=render))[0])
    return out


def verdict(test: Callable[[Any], object], impl: Any) -> str:
    """Run ``test(impl)``: ``"passes"``, or ``"FAILS: "`` and the message of the ``AssertionError`` it raised."""
    try:
        test(impl)
    except AssertionError as err:
        return f"FAILS: {err}"
    return "passes"


_LEGACY_DIR = str(Path(compact29.__file__).parent)


def _sites_run(sites: Sequence[KnowledgeSite], action: Callable[[], object]) -> list[KnowledgeSite]:
    """Run ``action()``; the sites whose line executed meanwhile (only the legacy package's frames are traced)."""
    hit: set[tuple[str, int]] = set()

    def tracer(frame: FrameType, event: str, arg: object) -> Any:
        if frame.f_code.co_filename.startswith(_LEGACY_DIR):
            hit.add((Path(frame.f_code.co_filename).name, frame.f_lineno))
            return tracer
        return None

    sys.settrace(tracer)
    try:
        action()
    finally:
        sys.settrace(None)
    return [s for s in sites if (s.where.split(":")[0], s.line) in hit]


def trace_paths(sites: Sequence[KnowledgeSite]) -> dict[str, list[KnowledgeSite]]:
    """Five paths through the legacy engine, each with the knowledge sites it ran.

    ``plain``: a question answered without tools; ``tool round``: one tool call; ``failing tool``: a
    read of a missing file (its result is the ``toolUseId`` slip: the next request gets a 400);
    ``compaction``: a session long enough to be compacted (slicing, step 29's bug, and step 30's
    transcript); ``fixed compaction``: the same with the local fixes (copy #1 places the cut, copy #2
    renders the transcript).
    """
    engine = legacy_engine()
    fixed = functools.partial(compact29.compact_fixed, render=summary30.transcript_fixed)

    def failing_tool() -> None:
        with contextlib.suppress(anthropic.BadRequestError):  # the next request carries the slip: a 400
            engine.submit("Read src/settings.py")

    def long_session(**options: Any) -> None:
        long = legacy_engine(max_messages=6, keep=3, **options)
        for prompt in ("Read src/app.py", "Read src/config.py", "List the files in src", "Read README.md"):
            long.submit(prompt)

    return {
        "plain": _sites_run(sites, lambda: engine.submit("Hello! What can you do?")),
        "tool round": _sites_run(sites, lambda: engine.submit("Read src/app.py")),
        "failing tool": _sites_run(sites, failing_tool),
        "compaction": _sites_run(sites, long_session),
        "fixed compaction": _sites_run(sites, lambda: long_session(compact=fixed)),
    }


def _holder(site: KnowledgeSite) -> str:
    return f"{site.module.rsplit('.', 1)[-1]}.{site.function}"


def reach_table(sites: Sequence[KnowledgeSite], paths: Mapping[str, Sequence[KnowledgeSite]]) -> str:
    """One row per function holding knowledge, one column per path: ``✓`` when one of its sites ran."""
    lines = [f"{'function holding knowledge':32}" + "".join(f"{p:>17}" for p in paths)]
    for f in dict.fromkeys(map(_holder, sites)):
        marks = ["✓" if f in map(_holder, ran) else "·" for ran in paths.values()]
        lines.append(f"{f:32}" + "".join(f"{m:>17}" for m in marks))
    lines.append(f"{f'sites run (of {len(sites)})':32}" + "".join(f"{len(ran):>17}" for ran in paths.values()))
    return "\n".join(lines)
