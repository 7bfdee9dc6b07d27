"""What a loaded session costs in memory, and what each way of making it smaller costs in time.

    python -m bench.memory_options              # 100 000 messages, 7 rounds, every session shape
    python -m bench.memory_options --quick      # 10 000 messages, 3 rounds (--rounds N: N rounds)

Memory is what ``tracemalloc`` counts for the decoded value (bytes, the same every run), as a
ratio to the same JSON decoded into dicts by ``json.loads`` (P4's goal: ≤ 0.55×). Time is the CPU
time of the decode with the collector off for every option alike (the pause is measured by
``bench.gc_options``), round-robin, median kept.

``nothing shared``    ``from_json`` as shipped since issue 20: the C decode, every id and tool name
                      its own string (msgspec shares the roles and the keys of ``input`` dicts).
``a pass after``      ``from_json`` as shipped in issue 11: after the decode, one pass swapped each
                      tool name, and each result's ``tool_use_id``, for the equal string already held.
``names only``        the pass sharing tool names only.
``in hooks``          names and ids shared during the decode instead, by a ``__post_init__`` of the
                      call and result structs (which msgspec runs for every struct it builds) and
                      a bounded window of recent call ids.
``tuple content``     ``content`` as an exact-size tuple instead of a list, nothing shared: a change
                      of the public type, measured for comparison only.
"""

from __future__ import annotations

import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any, Literal

import msgspec
from msgspec.structs import force_setattr

from bench.run import option_sessions, traced_bytes
from msgmodel.core import message as mm

_OPTS: dict[str, Any] = {"tag_field": "type", "omit_defaults": True, "gc": False, "frozen": True}
_WINDOW = 512


# Copies of the model's structs (not the public types; for the comparison only). The ``extra``
# field is kept so that every option has the shipped struct sizes.
class _Text(msgspec.Struct, tag="text", **_OPTS):
    text: str
    extra: dict[str, Any] | None = None


class _Thinking(msgspec.Struct, tag="thinking", **_OPTS):
    thinking: str
    signature: str | None = None
    extra: dict[str, Any] | None = None


class _ToolUse(msgspec.Struct, tag="tool_use", **_OPTS):
    id: str
    name: str
    input: dict[str, Any]
    extra: dict[str, Any] | None = None


_names: dict[str, str] = {}
_ids: dict[str, str] = {}


class _HookedToolUse(msgspec.Struct, tag="tool_use", **_OPTS):
    id: str
    name: str
    input: dict[str, Any]
    extra: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        held = _names.get(self.name)
        if held is None:
            if len(_names) >= _WINDOW:
                _names.clear()
            _names[self.name] = self.name
        elif held is not self.name:
            force_setattr(self, "name", held)
        if len(_ids) >= _WINDOW:
            _ids.clear()
        _ids[self.id] = self.id


class _HookedToolResult(msgspec.Struct, tag="tool_result", **_OPTS):
    tool_use_id: str
    content: str | list[_Text | _Thinking | _ToolUse] = ""
    is_error: bool = False
    extra: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        held = _ids.get(self.tool_use_id)
        if held is not None and held is not self.tool_use_id:
            force_setattr(self, "tool_use_id", held)


class _HookedMsg(msgspec.Struct, gc=False, frozen=True):
    role: Literal["user", "assistant"]
    content: str | list[_Text | _Thinking | _HookedToolUse | _HookedToolResult]


class _TupleToolResult(msgspec.Struct, tag="tool_result", **_OPTS):
    tool_use_id: str
    content: str | tuple[_Text | _Thinking | _ToolUse, ...] = ""
    is_error: bool = False
    extra: dict[str, Any] | None = None


class _TupleMsg(msgspec.Struct, gc=False, frozen=True):
    role: Literal["user", "assistant"]
    content: str | tuple[_Text | _Thinking | _ToolUse | _TupleToolResult, ...]


def _share_strings(messages: list[mm.Message]) -> list[mm.Message]:
    """The pass of issue 11: each result's ``tool_use_id`` becomes its call's ``id``, equal tool names one string."""
    names: dict[str, str] = {}
    calls: dict[str, str] = {}  # the ids of the last assistant message: the only ones a result may answer
    for m in messages:
        content = m.content
        if m.role == "assistant":
            calls = {}
            for b in () if type(content) is str else content:
                if type(b) is mm.ToolUseBlock:
                    calls[b.id] = b.id
                    held = names.setdefault(b.name, b.name)
                    if held is not b.name:
                        force_setattr(b, "name", held)
        elif calls and type(content) is not str:
            for b in content:
                if type(b) is mm.ToolResultBlock and (call_id := calls.get(b.tool_use_id)) is not None:
                    force_setattr(b, "tool_use_id", call_id)
    return messages


def _share_names(messages: list[mm.Message]) -> list[mm.Message]:
    names: dict[str, str] = {}
    for m in messages:
        if m.role == "assistant" and not mm.is_plain_text(m):
            for b in mm.blocks_of(m):
                if type(b) is mm.ToolUseBlock and (held := names.setdefault(b.name, b.name)) is not b.name:
                    force_setattr(b, "name", held)
    return messages


def options(data: bytes) -> dict[str, Callable[[], object]]:
    fast = mm._FAST_DECODER
    hooked = msgspec.json.Decoder(list[_HookedMsg])
    tuples = msgspec.json.Decoder(list[_TupleMsg])
    return {
        "nothing shared (shipped)": lambda: fast.decode(data),
        "a pass after (issue 11)": lambda: _share_strings(fast.decode(data)),
        "names only": lambda: _share_names(fast.decode(data)),
        "in hooks": lambda: hooked.decode(data),
        "tuple content": lambda: tuples.decode(data),
    }


def measure(data: bytes, rounds: int) -> dict[str, dict[str, float]]:
    """Per option: its memory as a ratio to ``json.loads``'s dicts, and its median CPU seconds."""
    cands = options(data)
    dicts = traced_bytes(lambda: json.loads(data))
    memory = {k: traced_bytes(fn) / dicts for k, fn in cands.items()}
    cpu: dict[str, list[float]] = {k: [] for k in cands}
    for _ in range(rounds):
        for name, fn in cands.items():
            gc.collect()
            gc.disable()
            try:
                t = time.process_time()
                out = fn()
                cpu[name].append(time.process_time() - t)
            finally:
                gc.enable()
            del out
    return {k: {"memory": memory[k], "cpu": statistics.median(cpu[k])} for k in cands}


def main(argv: list[str] | None = None) -> int:
    for heading, data, rounds in option_sessions(argv, __doc__):
        t = measure(data, rounds)
        base = t["nothing shared (shipped)"]["cpu"]
        print(f"\n{heading}, collector off)")
        print("| option | memory ÷ dicts | decode | × nothing shared |")
        print("|---|---:|---:|---:|")
        for name, r in t.items():
            print(f"| {name} | {r['memory']:.3f}× | {r['cpu'] * 1000:.0f} ms | {r['cpu'] / base:.2f}× |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
