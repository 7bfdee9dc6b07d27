"""How to stop paying the cycle collector while decoding: the options of issue 11, measured.

    python -m bench.gc_options              # 100 000 messages, 7 rounds, every session shape
    python -m bench.gc_options --quick      # 10 000 messages, 3 rounds (--rounds N: N rounds)

Each option decodes the same session; options are timed round-robin and the median is kept
(the machine is shared). The reference is the same decode with the collector off (the floor): no option can
beat it, so every figure is a ratio to it.

``paused``          ``from_json`` as shipped: the collector is paused during the decode and
                    restored afterwards, even on error (``msgmodel.core.message._collector_paused``).
``paused + young``  the same, plus the young-generation pass the collector makes over the new
                    objects at its next run (forced here with ``gc.collect(0)``), so the deferred
                    cost is counted too.
``on``              the decoder without the pause: the collector runs during the decode.
``frozen``          ``gc.freeze()`` before the decode, ``gc.unfreeze()`` after: the collector still
                    runs, but its full passes skip every object that existed before the decode.
``tuple content``   ``content`` decoded as tuples (untracked once the collector sees them), with
                    the collector on: a change of the public type, measured for comparison only.
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any, Literal

import msgspec

from bench.run import option_sessions
from msgmodel.core import message as mm

_OPTS: dict[str, Any] = {"tag_field": "type", "omit_defaults": True, "gc": False, "frozen": True}


# The model's structs with ``content`` as a tuple (not the public types; for the comparison only).
class _Text(msgspec.Struct, tag="text", **_OPTS):
    text: str


class _Thinking(msgspec.Struct, tag="thinking", **_OPTS):
    thinking: str
    signature: str | None = None


class _ToolUse(msgspec.Struct, tag="tool_use", **_OPTS):
    id: str
    name: str
    input: dict[str, Any]


class _ToolResult(msgspec.Struct, tag="tool_result", **_OPTS):
    tool_use_id: str
    content: str | tuple[_Text | _Thinking | _ToolUse, ...] = ""
    is_error: bool = False


class _Msg(msgspec.Struct, gc=False, frozen=True):
    role: Literal["user", "assistant"]
    content: str | tuple[_Text | _Thinking | _ToolUse | _ToolResult, ...]


def _tuple_decoder() -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(list[_Msg])


def options(data: bytes) -> dict[str, Callable[[], object]]:
    fast = mm._FAST_DECODER
    tuples = _tuple_decoder()

    def decode() -> object:  # what ``from_json`` does inside its pause: the C decode
        return fast.decode(data)

    def off() -> object:
        gc.disable()
        try:
            return decode()
        finally:
            gc.enable()

    def paused_young() -> object:
        out = mm.from_json(data)
        gc.collect(0)
        return out

    def frozen() -> object:
        gc.freeze()
        try:
            return decode()
        finally:
            gc.unfreeze()

    return {
        "collector off (the floor)": off,
        "paused (from_json)": lambda: mm.from_json(data),
        "paused + young pass": paused_young,
        "on (no pause)": decode,
        "frozen": frozen,
        "tuple content, on": lambda: tuples.decode(data),
    }


class _CollectorClock:
    """Time spent inside the cycle collector (``gc.callbacks``), and how many passes it made."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.passes = 0
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = time.process_time()
        else:
            self.seconds += time.process_time() - self._start
            self.passes += 1


def measure(data: bytes, rounds: int) -> dict[str, dict[str, float]]:
    """Per option: median CPU seconds (this process only, so other jobs on a shared machine weigh
    less than in wall time), median seconds inside the collector, median collector passes."""
    cands = options(data)
    cpu: dict[str, list[float]] = {k: [] for k in cands}
    in_gc: dict[str, list[float]] = {k: [] for k in cands}
    passes: dict[str, list[int]] = {k: [] for k in cands}
    for _ in range(rounds):
        for name, fn in cands.items():
            gc.collect()
            clock = _CollectorClock()
            gc.callbacks.append(clock)
            t = time.process_time()
            out = fn()
            cpu[name].append(time.process_time() - t)
            gc.callbacks.remove(clock)
            in_gc[name].append(clock.seconds)
            passes[name].append(clock.passes)
            del out
    return {
        k: {"cpu": statistics.median(cpu[k]), "gc": statistics.median(in_gc[k]), "passes": statistics.median(passes[k])}
        for k in cands
    }


def main(argv: list[str] | None = None) -> int:
    for heading, data, rounds in option_sessions(argv, __doc__):
        t = measure(data, rounds)
        base = t["collector off (the floor)"]["cpu"]
        print(f"\n{heading})")
        print("| option | decode | × collector off | in the collector | collector passes |")
        print("|---|---:|---:|---:|---:|")
        for name, r in t.items():
            print(
                f"| {name} | {r['cpu'] * 1000:.0f} ms | {r['cpu'] / base:.2f}× | {r['gc'] * 1000:.0f} ms "
                f"| {r['passes']:.0f} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
