"""Ways to write the message model in Python, as modules a chapter can run and type-check.

This module owns the scratch code of two comparisons, so the chapters show what it finds, not how
it is wired:

* Chapter 06 (I3), a closed tagged union against an open class hierarchy, two block kinds each:
  ``UNION_SOURCE`` and ``CLASSES_SOURCE``, the same two functions at the end of both
  (``tool_name`` narrows on the tag, ``render`` is an exhaustive ``match``). ``load(name, source)``
  runs a source as a module of that name (the same text ``type_check`` reads).
* Chapter 07, four ways to write the whole model: ``OPTION_SOURCES`` holds three scratch modules,
  ``opt_typeddict`` (``TypedDict``s, ``json.loads`` as a promise), ``opt_dataclass`` (frozen
  dataclasses and a hand-written decoder) and ``opt_pydantic`` (a discriminated union and a
  ``TypeAdapter``); the fourth is ``msgmodel.core.message``. ``options()`` loads them and maps each
  name to its ``(decode, encode)`` pair. ``MISTAKES`` writes three classic mistakes once per option,
  each marked ``# (1)``, ``# (2)``, ``# (3)`` on its line; ``mistakes_caught()`` runs ``mypy --strict``
  on all of them and says which mistake each option's checker caught. ``decode_outcomes(inputs)``
  says what each decoder does with each input; ``decode_times(data)`` times them (median of five
  round-robin runs, each after a ``gc.collect()``). ``barh`` draws a bar chart as a PNG, each bar
  labelled with its ratio to a reference bar.
"""

from __future__ import annotations

import base64
import functools
import gc
import io
import json
import statistics
import sys
import textwrap
import time
import types
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from msgmodel.core.message import Message, from_json, to_json
from msgmodel.course.teaching import type_check

__all__ = [
    "BENCH_GOALS",
    "CLASSES_SOURCE",
    "MISTAKES",
    "OPTION_SOURCES",
    "UNION_SOURCE",
    "barh",
    "bench_verdicts",
    "committed_bench",
    "decode_grid",
    "decode_outcomes",
    "decode_times",
    "load",
    "mistakes_caught",
    "mistakes_verdict",
    "option_excerpt",
    "options",
]

_USES: Final = """
def tool_name(b: Block) -> str:
    if b.type == "tool_use":
        return b.name
    return ""


def render(b: Block) -> str:
    match b:
        case Text():
            return b.text
        case ToolUse():
            return f"[call {b.name}]"
        case _:
            assert_never(b)
"""

UNION_SOURCE: Final = f"""from typing import ClassVar, Literal, assert_never

import msgspec


class Text(msgspec.Struct, frozen=True, tag="text"):
    text: str
    type: ClassVar[Literal["text"]] = "text"


class ToolUse(msgspec.Struct, frozen=True, tag="tool_use"):
    id: str
    name: str
    type: ClassVar[Literal["tool_use"]] = "tool_use"


Block = Text | ToolUse
{_USES}"""
"""Two block kinds as a closed union of msgspec structs, then ``tool_name`` and ``render``."""

CLASSES_SOURCE: Final = f"""from dataclasses import asdict, dataclass
from typing import Any, ClassVar, assert_never


@dataclass(frozen=True)
class Block:
    type: ClassVar[str] = ""


@dataclass(frozen=True)
class Text(Block):
    type: ClassVar[str] = "text"
    text: str


@dataclass(frozen=True)
class ToolUse(Block):
    type: ClassVar[str] = "tool_use"
    id: str
    name: str


REGISTRY: dict[str, type[Block]] = {{"text": Text, "tool_use": ToolUse}}


def to_dict(b: Block) -> dict[str, Any]:
    return {{"type": b.type, **asdict(b)}}


def from_dict(d: dict[str, Any]) -> Block:
    return REGISTRY[d["type"]](**{{k: v for k, v in d.items() if k != "type"}})
{_USES}"""
"""The same two kinds as an open class hierarchy with a registry, then the same two functions."""


def load(name: str, source: str) -> types.ModuleType:
    """Run ``source`` as the module ``name`` (registered in ``sys.modules``, so its classes resolve by name)."""
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    return module


OPTION_SOURCES: Final[Mapping[str, str]] = {
    "opt_typeddict": textwrap.dedent(
        """
        import json
        from typing import Any, Literal, NotRequired, Required, TypeAlias, TypedDict, cast

        class TextBlock(TypedDict):
            type: Literal["text"]
            text: str

        class ThinkingBlock(TypedDict):
            type: Literal["thinking"]
            thinking: str
            signature: NotRequired[str]

        class ToolUseBlock(TypedDict):
            type: Literal["tool_use"]
            id: str
            name: str
            input: dict[str, Any]

        class ToolResultBlock(TypedDict, total=False):  # spelled as the SDK's ToolResultBlockParam
            tool_use_id: Required[str]
            type: Required[Literal["tool_result"]]
            content: str | list[TextBlock]
            is_error: bool

        ContentBlock: TypeAlias = TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock

        class Message(TypedDict):
            role: Literal["user", "assistant"]
            content: str | list[ContentBlock]

        def decode(data: bytes) -> list[Message]:
            return cast(list[Message], json.loads(data))  # a promise: nothing checks it

        def encode(messages: list[Message]) -> bytes:
            return json.dumps(messages).encode()
        """
    ),
    "opt_dataclass": textwrap.dedent(
        """
        import json
        from dataclasses import asdict, dataclass
        from typing import Any, Literal, TypeAlias

        @dataclass(frozen=True, slots=True)
        class TextBlock:
            text: str
            type: Literal["text"] = "text"

        @dataclass(frozen=True, slots=True)
        class ThinkingBlock:
            thinking: str
            signature: str | None = None
            type: Literal["thinking"] = "thinking"

        @dataclass(frozen=True, slots=True)
        class ToolUseBlock:
            id: str
            name: str
            input: dict[str, Any]
            type: Literal["tool_use"] = "tool_use"

        @dataclass(frozen=True, slots=True)
        class ToolResultBlock:
            tool_use_id: str
            content: "str | list[ContentBlock]" = ""
            is_error: bool = False
            type: Literal["tool_result"] = "tool_result"

        ContentBlock: TypeAlias = TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock

        @dataclass(frozen=True, slots=True)
        class Message:
            role: Literal["user", "assistant"]
            content: str | list[ContentBlock]

        KINDS: dict[str, type[ContentBlock]] = {
            "text": TextBlock, "thinking": ThinkingBlock, "tool_use": ToolUseBlock, "tool_result": ToolResultBlock
        }

        def _block(d: dict[str, Any]) -> ContentBlock:  # the hand-written dispatch on "type"
            fields = {k: v for k, v in d.items() if k != "type"}
            if isinstance(fields.get("content"), list):
                fields["content"] = [_block(b) for b in fields["content"]]
            return KINDS[d["type"]](**fields)

        def decode(data: bytes) -> list[Message]:
            return [
                Message(m["role"], c if isinstance(c := m["content"], str) else [_block(b) for b in c])
                for m in json.loads(data)
            ]

        def encode(messages: list[Message]) -> bytes:
            return json.dumps([asdict(m) for m in messages]).encode()
        """
    ),
    "opt_pydantic": textwrap.dedent(
        """
        from typing import Annotated, Any, Literal, TypeAlias

        from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

        class TextBlock(BaseModel):
            model_config = ConfigDict(frozen=True)
            type: Literal["text"] = "text"
            text: str

        class ThinkingBlock(BaseModel):
            model_config = ConfigDict(frozen=True)
            type: Literal["thinking"] = "thinking"
            thinking: str
            signature: str | None = None

        class ToolUseBlock(BaseModel):
            model_config = ConfigDict(frozen=True)
            type: Literal["tool_use"] = "tool_use"
            id: str
            name: str
            input: dict[str, Any]

        class ToolResultBlock(BaseModel):
            model_config = ConfigDict(frozen=True)
            type: Literal["tool_result"] = "tool_result"
            tool_use_id: str
            content: "str | list[ContentBlock]" = ""
            is_error: bool = False

        ContentBlock: TypeAlias = Annotated[
            TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock, Field(discriminator="type")
        ]

        class Message(BaseModel):
            model_config = ConfigDict(frozen=True)
            role: Literal["user", "assistant"]
            content: str | list[ContentBlock]

        ADAPTER = TypeAdapter(list[Message])
        decode = ADAPTER.validate_json
        encode = ADAPTER.dump_json
        """
    ),
}
"""The source of the three scratch options, by module name (``message.py`` is the fourth)."""

Codec = tuple[Callable[[bytes], Any], Callable[[Any], bytes]]


def options() -> dict[str, Codec]:
    """Every option by name, ``(decode, encode)``: the three scratch modules, plain msgspec structs, ``from_json``."""
    import msgspec

    mods = {name: load(name, source) for name, source in OPTION_SOURCES.items()}
    return {
        "TypedDict": (mods["opt_typeddict"].decode, mods["opt_typeddict"].encode),
        "dataclass": (mods["opt_dataclass"].decode, mods["opt_dataclass"].encode),
        "pydantic": (mods["opt_pydantic"].decode, mods["opt_pydantic"].encode),
        "msgspec structs": (msgspec.json.Decoder(list[Message]).decode, to_json),
        "msgmodel.from_json": (from_json, to_json),
    }


_SUBSCRIPTED: Final = """\
def label(b: ContentBlock) -> str:
    if b["type"] == "text":
        return f"said {b['name']}"  # (1) a tool_use field, read in the text branch
    return "other"

slip: ToolResultBlock = {"type": "tool_result", "toolUseId": "toolu_01B", "content": "no such file"}  # (2)

def kind(b: ContentBlock) -> str:
    if b["type"] == "text" or b["type"] == "thinking" or b["type"] == "tool_use":
        return "known"
    ENDING  # (3) tool_result forgotten
"""

MISTAKES: Final[Mapping[str, str]] = {
    "list[Any] (dicts)": "from typing import Any, TypeAlias\nContentBlock: TypeAlias = dict[str, Any]\n"
    "ToolResultBlock: TypeAlias = dict[str, Any]\n\n" + _SUBSCRIPTED.replace("ENDING", 'return ""'),
    "TypedDict": "from typing import assert_never\nfrom opt_typeddict import ContentBlock, ToolResultBlock\n\n"
    + _SUBSCRIPTED.replace("ENDING", "assert_never(b)"),
    **{
        name: f"""\
from typing import assert_never
from {module} import ContentBlock, ToolResultBlock

def label(b: ContentBlock) -> str:
    if b.type == "text":
        return f"said {{b.name}}"  # (1) a tool_use field, read in the text branch
    return "other"

slip = ToolResultBlock(toolUseId="toolu_01B", content="no such file")  # (2) the toolUseId slip

def kind(b: ContentBlock) -> str:
    if b.type == "text" or b.type == "thinking" or b.type == "tool_use":
        return "known"
    assert_never(b)  # (3) tool_result forgotten
"""
        for name, module in (
            ("dataclass", "opt_dataclass"),
            ("pydantic", "opt_pydantic"),
            ("msgspec (message.py)", "msgmodel"),
        )
    },
}
"""Per option, a snippet making the same three mistakes, each marked ``# (1)``, ``# (2)`` or ``# (3)`` on its line.

The ``list[Any]`` version cannot use ``assert_never`` at all, so it ends with a fallback ``return``, as the
original TypeScript's ``default`` did; the ``TypedDict`` version uses subscripts and a dict literal."""


@functools.cache
def _mistakes_found() -> tuple[frozenset[tuple[str, str]], tuple[str, ...]]:
    """Run ``mypy --strict`` on every ``MISTAKES`` snippet, once: the (option, mark) pairs caught, unmarked errors."""
    files = {name: f"use_{i}" for i, name in enumerate(MISTAKES)}
    report = type_check({**OPTION_SOURCES, **{files[name]: code for name, code in MISTAKES.items()}})
    found: set[tuple[str, str]] = set()
    unmarked = []
    for error in (line for line in report.splitlines() if ": error: " in line):
        file, line = error.split(":")[:2]
        name = next(n for n, f in files.items() if f"{f}.py" == file)
        text = MISTAKES[name].splitlines()[int(line) - 1]
        if "# (" in text:
            found.add((name, text.split("# (")[1][0]))
        else:
            unmarked.append(error)
    return frozenset(found), tuple(unmarked)


def mistakes_caught() -> str:
    """Run ``mypy --strict`` on every ``MISTAKES`` snippet; per option, which marked mistake it caught.

    Each error is mapped back to the mistake marked on its line; errors on unmarked lines are listed.
    """
    found, unmarked = _mistakes_found()
    lines = [f"{'':22}{'(1) wrong field':18}{'(2) toolUseId':18}(3) forgotten kind"]
    for name in MISTAKES:
        lines.append(
            f"{name:22}" + "".join(f"{'caught' if (name, m) in found else 'silent':18}" for m in "123").rstrip()
        )
    lines.append(f"errors on unmarked lines: {', '.join(unmarked) or 'none'}")
    return "\n".join(lines)


def mistakes_verdict() -> str:
    """``mistakes_caught`` in one line: options grouped by how many of the three marked mistakes mypy caught."""
    found, unmarked = _mistakes_found()
    by_count: dict[int, list[str]] = {}
    for name in MISTAKES:
        by_count.setdefault(sum((name, m) in found for m in "123"), []).append(name)
    groups = "; ".join(f"{', '.join(names)}: {n} of 3" for n, names in sorted(by_count.items(), reverse=True))
    return f"mypy --strict, mistakes caught: {groups} (errors on unmarked lines: {len(unmarked)})"


def _outcome(decode: Callable[[bytes], Any], data: bytes) -> str:
    """What one decoder does with one input, in one line (for pydantic: its deepest error, and how many)."""
    import pydantic

    try:
        decode(data)
    except pydantic.ValidationError as e:  # the union adds a `str` branch: report the deepest error
        err = max(e.errors(), key=lambda x: len(x["loc"]))
        loc = ".".join(str(p) if "[" not in str(p) else "list[…]" for p in err["loc"])
        count = f"{e.error_count()} error{'s' if e.error_count() > 1 else ''}"
        return f"{type(e).__name__} ({count}): {loc}: {err['msg']}"
    except Exception as e:
        return f"{type(e).__name__}: {e}"
    return "accepted"


_NO_PATH: Final = ("TypeError", "KeyError")  # exceptions that name no place in the input


def _verdict(result: str, same: bool) -> str:
    if result == "accepted":
        return "accepted" if same else "DROPS it"
    kind = result.split(":")[0].split(" ")[0]
    return f"{kind}, no path" if kind in _NO_PATH else "refused, path"


_LIKE_TOOL_RESULT: Final = ("class TextBlock", "class ThinkingBlock", "class ToolUseBlock")


def option_excerpt(source: str) -> str:
    """An option's scratch module without its imports and without ``TextBlock``, ``ThinkingBlock`` and
    ``ToolUseBlock``, which repeat the pattern of ``ToolResultBlock``: one comment line stands for them (the full
    module is ``OPTION_SOURCES``)."""
    chunks = source.strip("\n").split("\n\n")
    kept: list[str] = []
    for chunk in chunks:
        if all(line.startswith(("import ", "from ")) for line in chunk.splitlines()):
            continue
        if any(name in chunk for name in _LIKE_TOOL_RESULT):
            if not kept or not kept[-1].startswith("# TextBlock"):
                kept.append("# TextBlock, ThinkingBlock, ToolUseBlock: written like ToolResultBlock")
            continue
        kept.append(chunk)
    return "\n\n".join(kept)


def decode_grid(inputs: Mapping[str, bytes], codecs: Mapping[str, Codec], *, marked: str | None = None) -> str:
    """``decode_outcomes`` in one short cell per input and option, then a refusal with no path and one with a path.

    ``accepted``: decoded and written back unchanged; ``DROPS it``: written back without a field;
    ``refused, path``: an error naming where in the input; ``TypeError, no path``: one that does not.
    The refusal with a path shown in full is the last option's (``msgmodel.from_json``). The column of
    option ``marked``, if given, is headed ``▶`` so the reader's eye goes to it first.
    """
    names = {name: ("▶" if name == marked else "") + name.split(".")[-1].split(" ")[0] for name in codecs}
    width = max(map(len, inputs)) + 2
    lines = [" " * width + "".join(f"{short:20}" for short in names.values())]
    no_path, with_path = "", ""
    for label, data in inputs.items():
        cells = []
        for name, (decode, encode) in codecs.items():
            result = _outcome(decode, data)
            same = result == "accepted" and json.loads(encode(decode(data))) == json.loads(data)
            verdict = _verdict(result, same)
            example = f"  {names[name].lstrip('▶')}, {label}: {textwrap.shorten(result, 84, placeholder=' …')}"
            if verdict.endswith("no path"):
                no_path = no_path or example
            elif verdict.startswith("refused"):
                with_path = example if not with_path or name == list(codecs)[-1] else with_path
            cells.append(f"{verdict:20}")
        lines.append(f"{label:{width}}" + "".join(cells))
    return "\n".join(line.rstrip() for line in [*lines, no_path, with_path] if line)


def decode_outcomes(inputs: Mapping[str, bytes], codecs: Mapping[str, Codec]) -> str:
    """Per input, what each option's decoder does with it; an accepted input is also written back and compared."""
    lines = []
    for label, data in inputs.items():
        lines.append(label)
        for name, (decode, encode) in codecs.items():
            result = _outcome(decode, data)
            if result == "accepted":
                same = json.loads(encode(decode(data))) == json.loads(data)
                result = "accepted; written back unchanged" if same else "accepted, but written back WITHOUT it"
            lines.append(f"  {name:19} {textwrap.shorten(result, 96, placeholder=' …')}")
    return "\n".join(lines)


BENCH_GOALS: Final[dict[str, str]] = {
    "P1": "decode ≥ 3× as fast as json.loads, ≥ 20× the SDK",
    "P2": "validate no slower than json.loads",
    "P3": "linear: 10× the messages, ≤ 12× the time",
    "P4": "memory ≤ 0.55× the same data as dicts",
    "P5": "import msgmodel ≤ 150 ms",
}
"""The benchmark's five goals, as ``bench/RESULTS.md`` states them."""


def committed_bench(start: Path | None = None) -> dict[str, Any]:
    """The committed benchmark run, ``bench/results.json`` (written by ``python -m bench.run --publish``).

    Looked for beside the package's repository, then in the working directory and its parents;
    ``FileNotFoundError`` names where.
    """
    cwd = (start or Path.cwd()).resolve()
    places = [Path(__file__).resolve().parents[2], cwd, *cwd.parents]
    for place in places:
        if (place / "bench" / "results.json").is_file():
            data: dict[str, Any] = json.loads((place / "bench" / "results.json").read_text(encoding="utf-8"))
            return data
    raise FileNotFoundError("no bench/results.json in: " + ", ".join(map(str, places)))


def bench_verdicts(results: Mapping[str, Any]) -> str:
    """P1's ratios in one line, then the goals met and the goals missed, one line each."""
    p1 = results["P1"]
    met = [name for name in BENCH_GOALS if results[name]["goal_met"]]
    missed = [name for name in BENCH_GOALS if not results[name]["goal_met"]]
    return "\n".join(
        [
            f"P1, decoding {results['messages']:,} messages, from_json is faster than json.loads by "
            f"{p1['x_vs_json_loads']:.1f}×, a pydantic union by {p1['x_vs_pydantic_union']:.1f}×, "
            f"the SDK's TypeAdapter by {p1['x_vs_sdk']:.1f}×",
            f"goals met: {', '.join(met) or 'none'} | missed: {', '.join(missed) or 'none'}",
        ]
    )


def decode_times(data: bytes, codecs: Mapping[str, Codec], rounds: int = 5) -> dict[str, float]:
    """Median seconds each decoder takes on ``data``: ``rounds`` round-robin runs, each after a ``gc.collect()``."""
    times: dict[str, list[float]] = {name: [] for name in codecs}
    gc.freeze()  # set the caller's own objects aside, so that each gc.collect() below is cheap
    try:
        for _ in range(rounds):
            for name, (decode, _encode) in codecs.items():
                gc.collect()  # each run starts with a clean heap, then pays for its own garbage
                start = time.perf_counter()
                decode(data)
                times[name].append(time.perf_counter() - start)
    finally:
        gc.unfreeze()
    return {name: statistics.median(t) for name, t in times.items()}


def barh(labels: Sequence[str], values: Sequence[float], xlabel: str, *, reference: int, height: float = 2.6) -> None:
    """Display a horizontal bar chart (PNG); each bar is labelled ``×`` its ratio to ``values[reference]``."""
    from IPython.display import display
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8.5, height), dpi=100)
    ax = fig.subplots()
    ax.barh(list(labels), list(values), color="#6baed6")
    ax.invert_yaxis()
    for y, v in enumerate(values):
        ax.text(v, y, f"  {v / values[reference]:.1f}×", va="center")
    ax.set_xlim(0, max(values) * 1.2)
    ax.set_xlabel(xlabel)
    fig.tight_layout()
    png = io.BytesIO()
    fig.savefig(png, format="png", metadata={"Software": None})
    display({"image/png": base64.b64encode(png.getvalue()).decode()}, raw=True)  # type: ignore[no-untyped-call]
