# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # 07 · Trade-offs and what comes next
#
# *Chapters 01–06 made the case for one authoritative message model and defended each decision in it. This last
# chapter asks what that case costs, and when it does not apply. It sets `message.py` beside the other ways
# Python can model the same data, then runs the next two steps of the original series on top of it: an event
# stream and extended thinking. It ends with a Claude Code session file (built to the documented format and
# shipped in the repo) and a reading list.*

# %% [markdown]
# ## What
#
# Four parts, each one backed by cells that run:
#
# 1. **When to consolidate.** The original series names its rule *the rule of two, plus a bug*. We state it,
#    show the evidence that step 31 met it, and use a decision table to tell consolidation from premature
#    abstraction.
# 2. **Python's options, compared live.** The same model is written four ways: `TypedDict`, `dataclass`, a pydantic
#    discriminated union, and msgspec tagged structs. We compare what mypy catches, what each does with bad input,
#    and how fast each decodes a generated session of 3,000 messages.
# 3. **What comes next, on the same foundation.** Step 32 turns the agent loop's callbacks into an async event stream
#    with a fold law. Step 33 turns on extended thinking. Neither changes `message.py`.
# 4. **A Claude Code session.** We import the Claude Code transcript shipped with the package, see what was kept and
#    skipped, and check it with `python -m msgmodel check`.
#
# Afterwards you can say when you would *not* write a `message.py`, choose a modelling library and defend the
# choice with evidence, and describe how an event stream and thinking fit the same model.

# %% [markdown]
# ## Why
#
# **"Wasn't `message.py` over-engineering? When would you *not* build it?"**
#
# Senior interviews probe judgement as well as technique. Anyone can add an abstraction. The harder skill is
# knowing when one pays for itself, and saying what it costs. `message.py` has real costs. Every layer depends on
# it, it needs heavy tests, and choosing msgspec over the libraries a team already knows is a decision you have to
# defend. Those costs were worth paying at step 31 because of what had already happened. Compaction and the
# summarizer each carried their own copy of "what a message looks like", and each copy had got a detail wrong, with
# a bug to show for it: the orphan `tool_result` (chapter 01) and the summary that forgot its tools (chapter 02).
# Without that history, the same module would have been a guess.
#
# The second half of the answer is what the module buys later. The original series continues with an event stream
# (step 32) and extended thinking (step 33). A foundation earns its keep when the next features cost little on top
# of it. This chapter checks that claim by running those features.

# %% [markdown]
# ## How
#
# Everything runs offline and deterministically. The common imports come first; each section
# imports the rest where it first needs it.

# %%
import io
import json
import tempfile
import textwrap
from pathlib import Path

import msgmodel
from msgmodel import TextBlock, block_to_api, block_to_text, blocks_of, from_json, text_of, to_json, tool_result_block
from msgmodel.api import demo_registry, local_client
from msgmodel.core.protocol import validate
from msgmodel.course.exercises import check, reveal

REPO = Path(msgmodel.__file__).resolve().parents[1]  # the repository root (msgmodel is installed editable)

# %% [markdown]
# ### 1. When to consolidate: the rule of two, plus a bug
#
# The original step-31 tutorial gives a precise trigger for consolidating knowledge into one authority. **The same
# piece of knowledge has been copied at least twice, and a copy has already caused a bug.** Both halves matter.
#
# * **Two copies** mean the knowledge is real and shared, not a guess about the future. With one copy there is
#   nothing to consolidate: the single place that knows *is* the authority.
# * **A bug** means the copies have started to drift, and drift has a price you have already paid. Until then,
#   the duplication may be cheaper than the abstraction, and you do not yet know where the right boundary lies.
#
# Step 31 met both conditions. Chapter 03 counted the copies. Here is the drift itself, one more time. The
# step-30 fix gave compaction its own private `_block_to_text` (copy #2), and it already disagrees with the
# authority on two ordinary blocks:

# %%
from msgmodel.course.legacy import summary30  # the exhibit: compaction's private copy #2, for contrast only

failed = tool_result_block("toolu_01B", "FileNotFoundError: src/settings.py", is_error=True)
as_list = tool_result_block("toolu_01C", [TextBlock("3 passed in 0.41s")])
for block in (failed, as_list):
    print(f"copy #2   → {summary30._block_to_text(block_to_api(block))!r}")
    print(f"authority → {block_to_text(block)!r}\n")

# %% [markdown]
# Copy #2 renders a failure as if it had succeeded, and a result whose content is a list of blocks as empty. Each
# is a future step-30 bug: the summarizer would believe the file was read, or would not see that the tests passed.
# No reviewer would catch either one, because the copy looks reasonable on its own. This is what the rule detects.
# Once knowledge lives in two places, the copies drift, and drift shows up as bugs in code paths nobody is looking
# at.
#
# The same rule tells you when consolidating is **premature**:
#
# | Situation | Copies | A bug from drift? | Verdict |
# |---|---|---|---|
# | Block shapes at step 31 (compaction, summary, API, engine, storage) | 5 | yes, two | **consolidate now** |
# | A tool's input schema, read only by the tool registry | 1 | — | **leave it**: it is the authority |
# | Two log formatters print a tool call differently, for people | 2 | no | **wait**: note it |
# | A provider-neutral `Part` class "for when we add a provider" | 0 | — | **premature**: a guess |
# | `ThinkingBlock`, before any feature turns thinking on | — | — | **model it now** (see below) |
#
# The last row is not a contradiction. The rule of two decides when to *create* the authority. Once it exists, it
# should describe the whole external contract it owns, including every block the API can send back. Chapter 06
# showed that a thinking round trip then needs no change to `message.py`, and section 4 below repeats the test
# through the engine. Compare the speculative `Part` class in the row above it. It models a contract nobody has
# given you yet, so its seams are guesses.
#
# ```mermaid
# flowchart TD
#     Q1{"Is the same knowledge written<br/>in two or more places?"}
#     Q1 -- no --> L["Leave it. One place already is the authority."]
#     Q1 -- yes --> Q2{"Has the drift between copies<br/>already caused a bug?"}
#     Q2 -- no --> W["Wait. Write it down, and watch the copies."]
#     Q2 -- yes --> C["Consolidate: one module, with constructors and readers."]
#     C --> X["Then model the whole contract it owns,<br/>not only the parts used today."]
# ```
#
# In words: one copy, leave it; two or more copies but no bug yet, wait and watch; copies plus a bug, consolidate,
# and then model the whole contract the new module owns.
#
# Two more lessons from the original series belong here.
#
# * **The cost of `Any` compounds.** `messages: list[Any]` is fastest on day one. The bill arrives later, all at
#   once, in the complex paths: compaction, summaries, replaying stored sessions. A bug there surfaces as a 400
#   that names a message index, far from the line that caused it. Type debt accrues interest like any other debt.
# * **Constructors are not ceremony.** `tool_result_block(id, text, is_error)` looks wordier than a dict literal.
#   But it makes `toolUseId` impossible to write, and in chapter 02 nothing but the server caught that slip.
#   The next section shows every typed option catching that slip before anything runs.

# %% [markdown]
# ### 2. Four ways to write the model in Python
#
# `message.py` uses msgspec. A team could reasonably pick any of four tools, so we write the same model four ways
# and compare them on three questions. What does mypy catch? What happens to bad input at run time? How fast does a
# session decode?
#
# | Option | Used by | A block at run time | JSON decoded by |
# |---|---|---|---|
# | `TypedDict` | the `anthropic` SDK's requests | a plain `dict` | `json.loads` (a promise) |
# | frozen `dataclass` | pydantic-ai's parts (with pydantic) | an instance | a decoder you write |
# | pydantic discriminated union | the SDK's responses | a model instance | `TypeAdapter` |
# | msgspec tagged `Struct` | `message.py` | a struct | `msgspec.json.Decoder` |
#
# Each of the first three is a small module written to a scratch directory, so that Python can import it and mypy
# can check it. The fourth is `message.py` itself. All four use the same class names, so one snippet can test them
# all.

# %%
import importlib
import sys

_scratch = tempfile.TemporaryDirectory()  # removed when the kernel exits
SCRATCH = Path(_scratch.name)
sys.path.insert(0, str(SCRATCH))


SOURCES = {}  # module name -> source: what `type_check` reads below


def module(name, source):
    """Write `source` to SCRATCH/name.py and import it: the same text for Python and for mypy."""
    SOURCES[name] = textwrap.dedent(source)
    (SCRATCH / f"{name}.py").write_text(SOURCES[name])
    return importlib.import_module(name)


# %% [markdown]
# **Option 1: `TypedDict`.** The classes describe dicts to the type checker, and nothing exists at run time.
# Decoding is `json.loads` plus a `cast`, a promise that nothing checks.

# %%
opt_typeddict = module(
    "opt_typeddict",
    """
    import json
    from typing import Any, Literal, NotRequired, TypeAlias, TypedDict, cast

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

    class ToolResultBlock(TypedDict):
        type: Literal["tool_result"]
        tool_use_id: str
        content: NotRequired[str | list[TextBlock]]
        is_error: NotRequired[bool]

    ContentBlock: TypeAlias = TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock

    class Message(TypedDict):
        role: Literal["user", "assistant"]
        content: str | list[ContentBlock]

    def decode(data: bytes) -> list[Message]:
        return cast(list[Message], json.loads(data))  # a promise: nothing checks it

    def encode(messages: list[Message]) -> bytes:
        return json.dumps(messages).encode()
    """,
)

# %% [markdown]
# **Option 2: frozen dataclasses.** The classes are real, and the tag is a field with a `Literal` default. The
# standard library has no decoder for a union of dataclasses, so you write one, and that decoder is one more
# place that knows the shapes.

# %%
opt_dataclass = module(
    "opt_dataclass",
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
    """,
)

# %% [markdown]
# **Option 3: a pydantic discriminated union.** `Field(discriminator="type")` tells pydantic to read the tag
# first and validate against one class. This is the design of pydantic-ai and of the SDK's response types.

# %%
opt_pydantic = module(
    "opt_pydantic",
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
    """,
)

# %% [markdown]
# **Option 4: msgspec tagged structs.** This is `message.py`, read in chapter 04. Each struct declares
# `tag="tool_use"` (the wire value) and a class-level `type: ClassVar[Literal["tool_use"]]` (for mypy). Its
# decoder comes in two strengths. `msgspec.json.Decoder(list[Message])` is the structs alone. `from_json` puts
# `message.py`'s codec on top: errors in the series' terms, and unknown kinds kept as `OpaqueBlock`.
#
# Each option also gets an encoder. Section 2b uses it to check that writing a decoded session back loses
# nothing.

# %%
import msgspec
import pydantic  # for the comparison only: the package never imports it

from msgmodel import Message

OPTIONS = {  # name → (decode, encode)
    "TypedDict": (opt_typeddict.decode, opt_typeddict.encode),
    "dataclass": (opt_dataclass.decode, opt_dataclass.encode),
    "pydantic": (opt_pydantic.decode, opt_pydantic.encode),
    "msgspec structs": (msgspec.json.Decoder(list[Message]).decode, to_json),
    "msgmodel.from_json": (from_json, to_json),
}

# %% [markdown]
# #### 2a. Static narrowing: what mypy sees
#
# The snippet below makes three classic mistakes, each marked in a comment:
#
# 1. it reads a `tool_use` field (`name`) inside the `text` branch;
# 2. it makes the `toolUseId` slip;
# 3. it forgets the `tool_result` kind in a function that ends in `assert_never`.
#
# `MODULE` is filled in with each option's module. The attribute style (`b.type`) serves the dataclass, pydantic
# and msgspec options.

# %%
MISTAKES = """\
from typing import assert_never
from MODULE import ContentBlock, ToolResultBlock

def label(b: ContentBlock) -> str:
    if b.type == "text":
        return f"said {b.name}"  # (1) a tool_use field, read in the text branch
    return "other"

slip = ToolResultBlock(toolUseId="toolu_01B", content="no such file")  # (2) the toolUseId slip

def kind(b: ContentBlock) -> str:
    if b.type == "text" or b.type == "thinking" or b.type == "tool_use":
        return "known"
    assert_never(b)  # (3) tool_result forgotten
"""

# %% [markdown]
# The `TypedDict` version says the same with subscripts, and a dict literal in place of the constructor call:

# %%
MISTAKES_SUBSCRIPT = """\
from typing import assert_never
from MODULE import ContentBlock, ToolResultBlock

def label(b: ContentBlock) -> str:
    if b["type"] == "text":
        return f"said {b['name']}"  # (1) a tool_use field, read in the text branch
    return "other"

slip: ToolResultBlock = {"type": "tool_result", "toolUseId": "toolu_01B", "content": "no such file"}  # (2)

def kind(b: ContentBlock) -> str:
    if b["type"] == "text" or b["type"] == "thinking" or b["type"] == "tool_use":
        return "known"
    assert_never(b)  # (3) tool_result forgotten
"""

# %% [markdown]
# The `dict[str, Any]` version, the `list[Any]` world of chapters 01–03, is the same text with plain dicts. It
# cannot use `assert_never` at all, because nothing narrows `dict[str, Any]` to `Never`. So its `kind` ends the
# way the original TypeScript did, with a fallback `return`.

# %%
MISTAKES_ANY = """\
from typing import Any, TypeAlias
ContentBlock: TypeAlias = dict[str, Any]
ToolResultBlock: TypeAlias = dict[str, Any]

def label(b: ContentBlock) -> str:
    if b["type"] == "text":
        return f"said {b['name']}"  # (1) a tool_use field, read in the text branch
    return "other"

slip: ToolResultBlock = {"type": "tool_result", "toolUseId": "toolu_01B", "content": "no such file"}  # (2)

def kind(b: ContentBlock) -> str:
    if b["type"] == "text" or b["type"] == "thinking" or b["type"] == "tool_use":
        return "known"
    return ""  # (3) tool_result forgotten
"""
snippets = {
    "list[Any] (dicts)": MISTAKES_ANY,
    "TypedDict": MISTAKES_SUBSCRIPT.replace("MODULE", "opt_typeddict"),
    "dataclass": MISTAKES.replace("MODULE", "opt_dataclass"),
    "pydantic": MISTAKES.replace("MODULE", "opt_pydantic"),
    "msgspec (message.py)": MISTAKES.replace("MODULE", "msgmodel"),
}

# %% [markdown]
# Now the run: `msgmodel.course.teaching.type_check` runs `mypy --strict` on the option modules and the five snippets
# together (as `use_0.py` … `use_4.py`). Each error line is mapped back to the mistake marked on it, `(1)`, `(2)`
# or `(3)`. mypy's cache is kept between runs, so only the first run ever pays for checking pydantic.

# %%
from msgmodel.course.teaching import type_check

files = {name: f"use_{i}.py" for i, name in enumerate(snippets)}
report = type_check({**SOURCES, **{files[name].removesuffix(".py"): code for name, code in snippets.items()}})
errors = [line for line in report.splitlines() if ": error: " in line]


# %%
def marker(error):
    """The mistake, "1", "2" or "3", marked on the line a mypy error points at (None if unmarked)."""
    file, line = error.split(":")[:2]
    name = next(n for n, f in files.items() if f == file)
    text = snippets[name].splitlines()[int(line) - 1]
    return (name, text.split("# (")[1][0]) if "# (" in text else (name, None)


# %%
found = {marker(e) for e in errors}
print(f"{'':22}{'(1) wrong field':18}{'(2) toolUseId':18}(3) forgotten kind")
for name in snippets:
    print(f"{name:22}" + "".join(f"{'caught' if (name, m) in found else 'silent':18}" for m in "123").rstrip())
print("errors on unmarked lines:", sorted(e for e in errors if marker(e)[1] is None) or "none")

# %% [markdown]
# mypy's own words for the `TypedDict` version:

# %%
print("\n".join(e.split(": ", 1)[1] for e in errors if e.startswith(files["TypedDict"])))

# %% [markdown]
# **Statically, the four typed options are equal.** Each one narrows on a `Literal` tag and catches all three
# mistakes. `dict[str, Any]` catches none of them. So the choice between libraries is not about narrowing: any
# tagged union gets it for free. It is about what happens at run time, where mypy cannot help. A `TypedDict` is
# checked only where a value was *annotated*. A dict that comes from `json.loads` or from the SDK is `Any`, and
# nothing ever checks it.
#
# #### 2b. Runtime validation: bad input
#
# Three inputs that are wrong: the `toolUseId` slip as a stored session would hold it, a text block whose `text`
# is a number, and a `system` role inside `messages`. Each option gets each one.


# %%
def outcome(decode, data):
    """What one decoder does with one input, in one line."""
    try:
        decode(data)
    except Exception as e:
        if isinstance(e, pydantic.ValidationError):  # report the deepest error (the union adds a `str` branch)
            err = max(e.errors(), key=lambda x: len(x["loc"]))
            loc = ".".join(str(p) if "[" not in str(p) else "list[…]" for p in err["loc"])
            count = f"{e.error_count()} error{'s' if e.error_count() > 1 else ''}"
            return f"{type(e).__name__} ({count}): {loc}: {err['msg']}"
        return f"{type(e).__name__}: {e}"
    return "accepted"


# %%
bad = {
    "the toolUseId slip": b'[{"role":"user","content":[{"type":"tool_result","toolUseId":"toolu_01B","content":"x"}]}]',
    "text is a number": b'[{"role":"assistant","content":[{"type":"text","text":42}]}]',
    "a system turn": b'[{"role":"system","content":"Be brief."}]',
}
for label, data in bad.items():
    print(label)
    for name, (decode, _) in OPTIONS.items():
        print(f"  {name:19} {textwrap.shorten(outcome(decode, data), 96, placeholder=' …')}")

# %% [markdown]
# Read it row by row.
#
# * **TypedDict accepts everything.** The slip goes into the history, and fails much later: as a `KeyError` in
#   whichever reader first asks for `tool_use_id`, or as a 400 on the next request. That is chapter 02's bug,
#   exactly.
# * **The dataclass decoder** refuses the unknown keyword, with a message that names no place in the input. It
#   accepts `text: 42` and `role: "system"` silently, because a dataclass checks nothing at run time.
# * **pydantic** refuses all three with a path. Because `content` is `str | list`, it reports one error per
#   branch of the union. The one printed is the deepest, which is usually the one you want.
# * **msgspec** refuses all three with a JSON path, and `from_json` restates each in the series' own terms.
#
# Now two inputs that are *valid*, though the model has never heard of them: an `image` block (a kind the model
# does not interpret) and a `cache_control` field on a text block (a field it does not model). A good decoder
# should accept both, and writing the result back should give the same JSON.

# %%
unfamiliar = {
    "an image block": b'[{"role":"user","content":[{"type":"image","source":'
    b'{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}]',
    "cache_control on text": b'[{"role":"user","content":[{"type":"text","text":"hi",'
    b'"cache_control":{"type":"ephemeral"}}]}]',
}
for label, data in unfamiliar.items():
    print(label)
    for name, (decode, encode) in OPTIONS.items():
        result = outcome(decode, data)
        if result == "accepted":
            same = json.loads(encode(decode(data))) == json.loads(data)
            result = "accepted; written back unchanged" if same else "accepted, but written back WITHOUT it"
        print(f"  {name:19} {textwrap.shorten(result, 96, placeholder=' …')}")

# %% [markdown]
# This is the trade-off a strict decoder cannot escape. Strict about the kinds it knows means strict about kinds
# it does *not* know, and the API keeps adding both. The plain structs refuse the image. pydantic refuses it too,
# and quietly **drops** `cache_control` (by default, pydantic ignores unknown fields). `from_json` is strict about
# the four kinds it interprets, and lossless about everything else (`OpaqueBlock`, `extra`). msgspec alone does
# not give you that. `message.py` adds it, with a second, slower decoding path (chapter 04's pitfalls).
#
# #### 2c. Decode speed
#
# The last question is speed. `synth_session` generates a realistic agent session: prompts, signed thinking,
# parallel tool calls, failures, and results as strings and as block lists. We take 3,000 messages (about 0.9 MB
# of JSON). Each option decodes it five times, round-robin, and we keep the median. The machine is shared, so
# the notebook prints no timings, only a verdict that holds by a wide margin. The plot shows the rest.

# %%
import gc
import statistics
import time

from msgmodel.course.synth import synth_session

session = synth_session(3_000, seed=7)
data = to_json(session)
decoders = {name: decode for name, (decode, _) in OPTIONS.items() if name != "msgspec structs"}

# %%
times = {name: [] for name in decoders}
gc.freeze()  # set the kernel's own objects aside, so that each gc.collect() below is cheap
for _ in range(5):
    for name, decode in decoders.items():
        gc.collect()  # each run starts with a clean heap, then pays for its own garbage
        start = time.perf_counter()
        n = len(decode(data))
        times[name].append(time.perf_counter() - start)
        assert n == len(session)
gc.unfreeze()
median = {name: statistics.median(t) for name, t in times.items()}
print(f"each option decoded all {len(session):,} messages, five times")
print("fastest of the four:", min(median, key=median.get))

# %%
import base64

from IPython.display import display
from matplotlib.figure import Figure  # for the plots only

# %%
labels = {"TypedDict": "TypedDict (json.loads)", "msgmodel.from_json": "msgmodel.from_json (msgspec)"}
names = [labels.get(n, n) for n in median]
ms = [t * 1000 for t in median.values()]
fastest = min(ms)
fig = Figure(figsize=(7.5, 2.6), dpi=100)
ax = fig.subplots()
ax.barh(names, ms, color=["#bbbbbb", "#9ecae1", "#6baed6", "#2171b5"])
ax.invert_yaxis()
for y, v in enumerate(ms):
    ax.text(v, y, f"  {v / fastest:.1f}×", va="center")
ax.set_xlim(0, max(ms) * 1.18)
ax.set_xlabel(f"median milliseconds to decode {len(session):,} messages ({len(data) / 1e6:.1f} MB); lower is better")
fig.tight_layout()
png = io.BytesIO()
fig.savefig(png, format="png", metadata={"Software": None})
display({"image/png": base64.b64encode(png.getvalue()).decode()}, raw=True)

# %% [markdown]
# The bars compare what each option *gives* you for the time. The `TypedDict` bar is plain `json.loads`, with no
# validation at all. msgspec validates every field and still beats it (the ratio on the bar is this run's), because
# it decodes bytes straight into structs without building dicts first. The hand-written dataclass decoder pays for
# `json.loads` *and* for a walk in Python. pydantic validates as thoroughly as msgspec and lands in the same range
# as the dataclass walk, several times slower than msgspec. Which of those two comes last varies from run to run,
# so the notebook claims only what holds every time: msgspec first.
#
# Does the speed matter? For a 50-message chat, no: every option takes well under a millisecond. It matters for
# what agents do at scale: resuming long sessions, validating a stored history before every request, compacting on
# every turn, or reading thousands of transcripts for analysis. The benchmarks in `bench/run.py` measure those cases
# on 100,000-message sessions, against the SDK's own `TypeAdapter(list[MessageParam])` as well. The figures below
# come from [bench/RESULTS.md](../bench/RESULTS.md): **one run on a shared 2-core machine**, so read the ratios,
# not the milliseconds. They also record two goals the package **missed**. Decoding was meant to be ≥ 20× the SDK
# path and reached 8.8×; memory was meant to be ≤ 0.5× the same data as dicts and reached 0.55×. RESULTS.md's notes
# profile both misses (the `str` payload both representations hold dominates) and name what would close them.

# %%
results = json.loads((REPO / "bench" / "results.json").read_text())  # written by `make bench`; committed
p1 = results["P1"]["seconds"]
fig = Figure(figsize=(7.5, 2.4), dpi=100)
ax = fig.subplots()
ax.barh(list(p1), [s * 1000 for s in p1.values()], color="#6baed6")
ax.invert_yaxis()
ax.set_xlabel(f"P1: median ms to decode {results['messages']:,} messages (bench/results.json, one run)")
fig.tight_layout()
png = io.BytesIO()
fig.savefig(png, format="png", metadata={"Software": None})
display({"image/png": base64.b64encode(png.getvalue()).decode()}, raw=True)

# %%
m = results["machine"]
print(f"{results['messages']:,} messages; Python {m['python']}, msgspec {m['msgspec']}, pydantic {m['pydantic']}")
p1, p4 = results["P1"], results["P4"]
print(f"P1 decode: {p1['x_vs_sdk']:.1f}× the SDK path (goal ≥ 20×), ", end="")
print(f"{p1['x_vs_json_loads']:.1f}× json.loads (goal ≥ 3×)")
print(f"P4 memory: {p4['ratio']:.2f}× the dicts (goal ≤ 0.5×)")
goals = {name: results[name]["goal_met"] for name in ("P1", "P2", "P3", "P4", "P5")}
print("goals met:", ", ".join(n for n, ok in goals.items() if ok))
print("goals missed:", ", ".join(n for n, ok in goals.items() if not ok))

# %% [markdown]
# #### 2d. The comparison in one table
#
# | | `TypedDict` | `dataclass` | pydantic union | msgspec + `message.py` |
# |---|---|---|---|---|
# | narrowing, exhaustiveness, slip caught | yes | yes | yes | yes |
# | bad input at run time | accepted | partly refused, no path | refused, path | refused, JSON path |
# | unknown kind / unknown field | kept / kept | refused / refused | refused / dropped | kept / kept |
# | decoder | `json.loads` | hand-written | generated | generated |
# | decode speed here | fast, no checks | several times slower | several times slower | fastest |
# | immutable | no | `frozen=True` | `frozen=True` | `frozen=True` |
# | dependency | none | none | pydantic (large) | msgspec (small) |
#
# There is no universal winner. If your team already validates everything with pydantic, a pydantic union is a
# defensible choice: add `extra="allow"` and a fallback for unknown kinds, and accept the speed. If the data only
# ever comes from your own code and never from disk, `TypedDict` may be enough. `message.py` chose msgspec for
# three things together: validation at the boundary, exact round trips, and speed on long sessions.

# %% [markdown]
# ### 3. Step 32 preview: from callbacks to an event stream
#
# In step 30 the agent loop reported progress through **callbacks**: a struct of optional functions
# (`on_tool_call`, `on_turn_end`, ...) that the engine calls as things happen. Step 32 turns the loop inside out.
# `QueryEngine.run(prompt)` is an **async generator** that *yields* events, and the caller pulls them with
# `async for`. The original series says this is how the real source does it.
#
# ```mermaid
# sequenceDiagram
#     participant UI as caller (async for)
#     participant E as QueryEngine.run
#     participant API as Messages API
#     UI->>E: next event?
#     E-->>UI: TurnStarted(user message)
#     E->>API: messages.create(to_api(history))
#     API-->>E: text + tool_use
#     E-->>UI: AssistantMessage(reply)
#     E-->>UI: ToolCalled(read_file) … ToolResulted(result)
#     E->>API: messages.create(…)
#     API-->>E: text
#     E-->>UI: AssistantMessage(answer)
#     E-->>UI: TurnEnded(end_turn)
# ```
#
# In words: the caller asks for the next event; the engine yields `TurnStarted`, calls the API, yields each
# `AssistantMessage`, a `ToolCalled`/`ToolResulted` pair per tool it runs, and finally `TurnEnded`.
#
# Every event carries values from `message.py`: a `Message`, a `ToolUseBlock`, a `ToolResultBlock`. The stream
# adds no shape of its own. A consumer reads the events with a `match` that ends in `assert_never`, so a new
# event kind shows up in mypy as a list of places to update, just as a new block kind does.


# %%
import contextlib
from typing import assert_never

from msgmodel.core.engine import (
    AssistantMessage,
    Compacted,
    QueryEngine,
    ToolCalled,
    ToolResulted,
    TurnEnded,
    TurnStarted,
    fold_events,
)


# %%
def describe(ev):
    match ev:
        case TurnStarted(message=m):
            return f"TurnStarted       user: {text_of(m)!r}"
        case AssistantMessage(message=m, stop_reason=reason):
            return f"AssistantMessage  {[b.type for b in blocks_of(m)]}, stop_reason={reason!r}"
        case ToolCalled(call=call):
            return f"ToolCalled        {call.name}({json.dumps(call.input)})"
        case ToolResulted(result=r):
            return f"ToolResulted      {textwrap.shorten(block_to_text(r), 70, placeholder=' …')}"
        case Compacted(before=before, after=after):
            return f"Compacted         {before} → {after} messages"
        case TurnEnded(reason=reason, model_calls=calls):
            return f"TurnEnded         {reason} after {calls} model calls"
        case _:
            assert_never(ev)


# %% [markdown]
# The engine below is the package's `QueryEngine`, driven by the local API's rule-based model over the demo
# tools (`local_client()`: the official SDK, answered in-process). One prompt asks for two files, and one of them
# does not exist. `async for` works at the top level of a notebook cell because IPython runs cells in an event
# loop.

# %%
engine = QueryEngine(local_client(), tools=demo_registry())
events = []
async for ev in engine.run("Read src/app.py and src/missing.py"):
    events.append(ev)
    print(describe(ev))

# %% [markdown]
# **The fold law.** The events are not only a progress report. They *are* the conversation, delivered in pieces.
# Folding them back gives exactly the messages the turn appended. `TurnStarted` and `AssistantMessage` carry
# a message each. The `ToolResulted` events that follow one reply fold into a single `tool_result_msg`, because
# that is what the API requires. `Compacted` replaces everything so far.
#
# ```
# fold_events(events, history_before) == engine.history
# ```

# %%
print("fold_events(events) == engine.history:", fold_events(events) == list(engine.history))
for m in fold_events(events):
    print(f"  {m.role:9} {[b.type for b in blocks_of(m)]}")

# %% [markdown]
# The law holds turn after turn, starting from the history before the turn. A consumer that stores events, or
# sends them to another process, can rebuild the conversation exactly. That is what makes a stream a safe
# interface and not just logging.

# %%
before = list(engine.history)
more = [ev async for ev in engine.run("What is (3 + 4) * 2 ** 3?")]
print(f"{len(more)} events")
print("fold_events(more, before) == engine.history:", fold_events(more, before) == list(engine.history))
print("the answer:", more[-1].text.splitlines()[-1])

# %% [markdown]
# **Why a stream beats callbacks.** With callbacks the engine sets the pace, and stopping early needs a side
# channel. With a stream the caller sets the pace, because the engine does no work until the next event is asked
# for. Stopping is just leaving the loop. The user presses Esc as the first tool is about to run:

# %%
engine = QueryEngine(local_client(), tools=demo_registry())
async with contextlib.aclosing(engine.run("Read src/app.py and src/db.py")) as stream:
    async for ev in stream:
        print(describe(ev))
        if isinstance(ev, ToolCalled):
            break  # stop here: nothing else runs

last = engine.history[-1]
print("\nthe history ends with:", [block_to_text(b) for b in blocks_of(last)])
print("valid for the next request:", validate(list(engine.history), as_history=True) == [])

# %% [markdown]
# Leaving the loop closes the generator. The engine answers every tool call it had not run yet with an `is_error`
# result that says so. The history therefore stays valid, and the next request will not fail on a dangling
# `tool_use` ([anthropics/claude-code#8004](https://github.com/anthropics/claude-code/issues/8004) is this bug in the
# wild: an interrupted tool call left the session
# unusable). `contextlib.aclosing` makes the close happen at once. Without it, an abandoned async generator is
# closed whenever the event loop gets round to it.
#
# ### 4. Step 33 preview: thinking, on the same foundation
#
# Step 33 turns on extended thinking. On the wire, that is one request parameter,
# `thinking={"type": "enabled", "budget_tokens": ...}`. The model then opens each answer with a `thinking` block
# whose `signature` must come back byte for byte. In the package, it is a client that adds the parameter. The engine,
# storage and `message.py` stay as they are:


# %%
from types import SimpleNamespace

from msgmodel.core.engine import EngineConfig


def with_thinking(client, budget_tokens=1024):
    """The same client, asking for extended thinking on every request: the whole of step 33's change."""

    def create(**request):
        return client.messages.create(**request, thinking={"type": "enabled", "budget_tokens": budget_tokens})

    return SimpleNamespace(messages=SimpleNamespace(create=create))


# %%
engine = QueryEngine(with_thinking(local_client()), tools=demo_registry(), config=EngineConfig(max_tokens=2048))
events = [ev async for ev in engine.run("Read src/app.py")]
for ev in events:
    print(describe(ev))
opener = blocks_of(events[1].message)[0]
print("\nfirst block of the reply:", type(opener).__name__, "| signature:", opener.signature)

# %% [markdown]
# The thinking block came back from the SDK as its own response type, went through `blocks_from_api` into a
# `ThinkingBlock`, and was appended by `assistant_msg`. The fold law still holds. Next, we save the session with
# `msgmodel.core.storage`, load it, and continue the conversation from the loaded copy. With thinking on, the API
# checks that the assistant turn which opened a tool loop still starts with its thinking block, signature included.

# %%
from msgmodel.core import storage

print("fold law:", fold_events(events) == list(engine.history))
with tempfile.TemporaryDirectory() as d:
    storage.save(Path(d, "session.jsonl"), list(engine.history))
    loaded = storage.load(Path(d, "session.jsonl")).messages
print("signature byte for byte after save + load:", blocks_of(loaded[1])[0].signature == opener.signature)

resumed = QueryEngine(
    with_thinking(local_client()), tools=demo_registry(), config=EngineConfig(max_tokens=2048), history=loaded
)
turn = resumed.run_sync("Now list the files in tests/")
print("the local API accepted the replayed thinking:", turn.ended.reason, "|", turn.text.splitlines()[-1])
print("the protocol agrees:", validate(list(resumed.history), thinking="enabled", as_history=True) == [])

# %% [markdown]
# What changed to make this work: one request parameter. What did not change: `message.py`, `engine.py`,
# `storage.py`. The engine and storage never mention thinking. They carry blocks they do not need to understand:

# %%
from msgmodel import ThinkingBlock

for name in ("engine", "storage", "compact"):
    source = (Path(msgmodel.__file__).parent / "core" / f"{name}.py").read_text()
    print(f"msgmodel/core/{name}.py mentions ThinkingBlock: {'ThinkingBlock' in source}")
print("ThinkingBlock's docstring:", ThinkingBlock.__doc__.splitlines()[0])

# %% [markdown]
# This is the original step-31 tutorial's "good foundations make later features cheap", measured. Step 33 cost one
# five-line function, and nothing in the model. (Chapter 06's
# [Q2](06_interview_followups.ipynb) made the same round trip by hand; here it runs through the engine.)
#
# ### 5. A Claude Code session transcript
#
# Claude Code writes each session to a JSONL file, one line per event. The project notes
# ([claude-code-transcripts.md](../docs/claude-code-transcripts.md)) describe the format as observed. It is third-party
# and changes between versions.
# The package ships a small session **built by hand to that format, not captured from a real run**. It imitates a
# Claude Code 2.1.x coding task that was compacted once and whose file was copied while the agent was still
# working (the version and model fields below are the ones written into it). `import_claude_code` rebuilds the
# Messages-API view of it: what the model would have seen.

# %%
from msgmodel.core.claude_code import import_claude_code, sample_session_path

path = sample_session_path()
cc = import_claude_code(path, name=path.name)  # name= keeps absolute paths out of the reports
print(f"{path.name}: {cc.line_count} lines, Claude Code {', '.join(cc.versions)}, {', '.join(cc.models)}")
print(f"{cc.compactions} compaction; chain followed by {cc.chain}; scope={cc.scope!r}")
print(f"kept: {len(cc.messages)} messages, rebuilt from {sum(map(len, cc.message_lines))} lines")
print(f"skipped: {len(cc.skipped)} lines")

# %% [markdown]
# The kept messages, with the file lines each was rebuilt from. Claude Code writes one content block per line, so
# one API message can span several lines that share a `message.id` (messages 1, 3 and 10). Parallel tool results
# arrive as consecutive user lines and are merged back into one message (message 4):

# %%
for i, (m, lines) in enumerate(zip(cc.messages, cc.message_lines, strict=True)):
    kinds = [b.type for b in blocks_of(m)]
    text = textwrap.shorten(" ".join(block_to_text(b) for b in blocks_of(m)), 56, placeholder=" …")
    print(f"{i:>2} lines {','.join(map(str, lines)):9} {m.role:9} {','.join(kinds):24} {text}")

# %% [markdown]
# Every other line is reported in `.skipped`, each with `file:line`, a stable `code` and a reason for people.
# Grouped by code:


# %%
def spans(numbers):
    """[2, 3, 4, 9] -> "2-4,9"."""
    runs = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ",".join(f"{a}-{b}" if b > a else f"{a}" for a, b in runs)


# %%
by_code = {}
for s in cc.skipped:
    by_code.setdefault(s.code, []).append(s)
for code, items in sorted(by_code.items(), key=lambda kv: kv[1][0].line):
    reason = textwrap.shorten(items[0].reason, 60, placeholder=" …")
    print(f"{code:17} line{'s' if len(items) > 1 else ' '} {spans([s.line for s in items]):24} {reason}")

# %% [markdown]
# Why each kind is left out:
#
# | code | what it is | why it is not a message |
# |---|---|---|
# | `before_compaction` | the talk before the last boundary | the summary replaced it (`scope="all"` keeps it) |
# | `compact_boundary` | the compaction marker | bookkeeping: the context starts anew after it |
# | `progress` | hook, bash and subagent progress | tool traffic, never sent to the model |
# | `metadata`, `system` | snapshots, queue operations, timings | Claude Code's own records |
# | `api_error` | `API Error: 500`, written as an assistant line | the model never said it |
#
# The last one matters most. Replaying an error message that Claude Code wrote in the assistant's name would put
# words in the model's mouth.
#
# Nothing kept was altered. The blocks went through `blocks_from_api`, so signatures and unknown kinds survive
# as they are.
#
# **Checking it.** The session ends mid-turn, as a file copied while the agent waits for its `Write` tool to
# finish would. Its last message is an assistant `tool_use` with no result yet. That is normal for a file that is still
# being written, but whoever continues this conversation must send that tool's result first, and the file has
# none. `validate(..., as_history=True)` checks a stored conversation as the next request would continue it, and
# says so:

# %%
for v in validate(cc.messages, as_history=True):
    print(f"rule: {v.rule}   our index: {v.at}   the API's index: {v.path}")
    print(v)
    print("hint:", v.hint)

# %% [markdown]
# The two indexes differ on purpose. Our list keeps consecutive user turns apart (messages 6–9: a rejected tool
# result, an interrupt, a new instruction, "continue"), as the file writes them. msgmodel's reading is that the API
# merges consecutive same-role turns before this check and counts merged turns (open question Q1 in
# `msgmodel/core/protocol.py`'s docstring), so for the API our message 10 would be its message 7. The error text uses
# that numbering, to match what the live API would most likely say.
#
# The command line does all of this in one step. It recognises the format by content and reports each problem at
# `file:line`. We run it as a user would, from the repository root, with a relative path:

# %%
import subprocess

rel = path.relative_to(REPO)
proc = subprocess.run(
    [sys.executable, "-m", "msgmodel", "check", str(rel)], cwd=REPO, capture_output=True, text=True, check=False
)
print("$ python -m msgmodel check", rel)
print(proc.stdout + proc.stderr, end="")
print("exit code:", proc.returncode)

# %% [markdown]
# Exit code 1 means "a rule is broken" (2 would mean the file could not be read). Line 47 is the assistant line
# that holds the unanswered `tool_use`. A tool that resumes this session would first answer it, for example with
# an `is_error` result saying the run was interrupted. That is `msgmodel.core.compact.repair`'s job, and it reports
# what it changed (chapter 05). The importer never repairs anything on its own.
#
# ### 6. Where to go next
#
# **Read.**
#
# * **pydantic-ai's `messages.py`** (`pydantic/pydantic-ai`, `pydantic_ai_slim/pydantic_ai/messages.py`). The
#   richest Python message model in the wild: dataclass parts with a Literal `part_kind`, a callable
#   `pydantic.Discriminator`, readers on `ModelResponse`, and stream events (`PartStartEvent`, `PartDeltaEvent`).
#   Then read `_agent_graph.py`'s `_clean_message_history`, a repair pipeline that runs before every request.
# * **msgspec's tagged unions**
#   ([jcristharif.com/msgspec/structs.html#tagged-unions](https://jcristharif.com/msgspec/structs.html#tagged-unions)).
#   `tag`, `tag_field`, and why a union of structs decodes in one pass.
# * **The Anthropic docs on tool use**
#  
# ([platform.claude.com/docs/en/agents-and-tools/tool-use/overview](https://platform.claude.com/docs/en/agents-and-tools/tool-use/overview))
#   and **on extended thinking**
#  
# ([platform.claude.com/docs/en/build-with-claude/extended-thinking](https://platform.claude.com/docs/en/build-with-claude/extended-thinking)).
#   The pairing rules, parallel calls, and why thinking blocks must be sent back unchanged.
# * **[anthropics/anthropic-sdk-python#1598](https://github.com/anthropics/anthropic-sdk-python/issues/1598)**: a
#   maintainer explains what invalidates a thinking signature.
#
# **Build.** Each of these is a good exercise, and a good interview story:
#
# * **A streaming fold.** Our events carry whole messages. The API streams finer events (`content_block_delta`
#   with `text_delta`, `input_json_delta`, `signature_delta`). Write a fold from raw stream events to a `Message`,
#   and state its law: folding the stream of a message gives back the message. The SDK's `accumulate_event` does
#   this by mutating a snapshot and states no law.
# * **Turn-aware storage.** Load "the last *N* turns" instead of "the last *N* messages", and cut only at clean
#   user starts, so that a limited load can never start on an orphan.
#   [openai/openai-agents-python#3738](https://github.com/openai/openai-agents-python/issues/3738) asks for
#   exactly this.
# * **A richer result status.** `is_error` is a boolean. pydantic-ai's `ToolReturnPart.outcome` distinguishes
#   `success`, `failed`, `denied` and `interrupted`, and Vercel AI makes errors their own output kinds. Model the
#   status in `message.py`, map it to `is_error` on the wire, and let transcripts say *interrupted* instead of
#   *failed*.

# %% [markdown]
# ## Follow-up questions
#
# **"All four options narrow equally well. Why not just use pydantic, like the SDK and pydantic-ai do?"**
#
# Pydantic is a fine choice, and section 2 shows what it costs. It decoded several times slower than msgspec, and its
# defaults do not fit this data: unknown fields are silently dropped, and a new block kind fails the whole document. You
# can configure your way out (`extra="allow"`, a callable discriminator with a fallback), but then you are writing
# `message.py`'s codec again, inside pydantic. msgspec gave the struct, the tag and a fast decoder, and
# `message.py` added the two things neither library gives by default: losslessness and errors in the series'
# terms. Say which trade you made and why. That is the answer the interviewer wants.
#
# **"Your stream yields whole messages. Is that really streaming?"**
#
# It streams the *agent loop*, not the tokens. Each event is one step the caller may want to show, log or stop
# at. Token-level streaming is the layer below, and it folds into the same `AssistantMessage`. The local API
# streams too, and the SDK's own `get_final_message()` folds its raw events into the same response object:

# %%
from collections import Counter

from msgmodel import assistant_msg, blocks_from_api

client = local_client()
with client.messages.stream(
    model="claude-sonnet-4-6", max_tokens=1024, messages=[{"role": "user", "content": "What is (3 + 4) * 2 ** 3?"}]
) as s:
    kinds = Counter(event.type for event in s)
    final = s.get_final_message()
print("stream events:", dict(sorted(kinds.items())))
reply = assistant_msg(blocks_from_api(final.content))
print("folded into:", [b.type for b in blocks_of(reply)], "→", text_of(reply))

# %% [markdown]
# **"The fold law: what breaks it?"**
#
# Anything the engine does to the history that no event reports. Section 3 found one case: when a turn is
# abandoned, the engine appends `is_error` results for the tools it never ran, and no event carries them. So for an
# abandoned turn, `fold_events(events)` falls one message short of `engine.history`:

# %%
engine = QueryEngine(local_client(), tools=demo_registry())
seen = []
async with contextlib.aclosing(engine.run("Read src/app.py")) as stream:
    async for ev in stream:
        seen.append(ev)
        if isinstance(ev, ToolCalled):
            break
print("fold_events(seen) == engine.history:", fold_events(seen) == list(engine.history))
print("missing from the fold:", [block_to_text(b) for b in blocks_of(engine.history[-1])])

# %% [markdown]
# The fix is a design decision, not a patch. Either emit a `ToolResulted` for each synthesized result (the law
# then holds for every turn), or state the law only for turns run to the end, as `engine.py`'s docstring does
# today. An interviewer who asks this wants to hear that the law is a contract, with a scope, and that you
# test it.
#
# **"By your own rule, step 29 already qualified. Why wait for a second bug? And why not model everything on day
# one?"**
#
# Step 29 did qualify. The shapes were already copied across the engine, the API layer and compaction, and the
# orphan was one of those copies getting a detail wrong. The series patched the copy instead, and the patch
# created copy #1 of a new piece of knowledge. The second bug made the pattern impossible to miss. The lesson is
# the rule itself: when a bug traces back to a copy, fix the cause, not the copy.
#
# Day one is too early for the opposite reason. You do not yet know which knowledge will be shared, or where the
# seams are. The block shapes are an easy case, because the API defines them. But "which message may start a
# history" and "how a tool call reads in a summary" turned out to be the knowledge that mattered, and nobody
# would have guessed both on day one. The second copy tells you *what* to consolidate. The bug tells you it is
# worth the cost.
#
# **"What did step 33 change in `message.py`?"**
#
# Nothing. `ThinkingBlock` was defined at step 31 because the API already sends thinking blocks. Section 4 ran
# a thinking turn through the engine, stored it, reloaded it and replayed it, and the only new code was a
# five-line client wrapper.

# %% [markdown]
# ## Pitfalls and trade-offs
#
# * **The rule of two is a heuristic, not a quota.** It guards against speculative abstraction. It does not ask
#   you to collect bugs: the first one that traces back to a copy is the signal. For knowledge you do not own,
#   such as a wire format, a near miss caught in review can be signal enough.
# * **Premature abstraction has a real cost.** A provider-neutral layer built before the second provider exists
#   guesses its seams. When the provider arrives, its thinking, tool and cache semantics differ in ways the guess
#   did not foresee, and the abstraction becomes one more thing to work around.
# * **A typed model does not check what mypy cannot see.** `TypedDict`s, and any value typed `Any` (from
#   `json.loads`, from the SDK), pass through unchecked. Validate at the boundary, once, and trust the types after.
# * **Strict and lossless pull in opposite directions.** A decoder that refuses unknown kinds bricks old sessions
#   the day the API adds one. A decoder that keeps everything keeps typos too (`is_eror` lands in `extra`; chapter
#   04). `message.py` is lossless, and `protocol.validate` is the strict check before sending.
# * **Benchmarks on a shared machine are ratios, not times.** The notebook prints a verdict that holds by a wide
#   margin, not milliseconds. `bench/run.py` times round-robin and keeps medians for the same reason.
# * **An async generator needs closing.** If you break out of `async for` without `contextlib.aclosing`, cleanup
#   (here: answering the abandoned tool calls) runs whenever the event loop gets to it, perhaps after your next
#   request.
# * **Third-party formats drift.** The Claude Code importer follows notes taken from public transcripts of versions
#   1.0.98 to 2.1.59; no real session is tested here. It
#   reports what it does not understand in `.skipped` rather than failing, and it never repairs on its own. Keep
#   it that way: a loader that silently "fixes" a session hides the next format change.

# %% [markdown]
# ## vs. the real source
#
# What the project's notes ([anchors.md](../docs/anchors.md),
# [claude-code-transcripts.md](../docs/claude-code-transcripts.md)) record about the options and features of
# this chapter:
#
# * **anthropic SDK** (`anthropics/anthropic-sdk-python`). Request blocks are `TypedDict`s
#   (`types/message_param.py`), never checked at run time. Response blocks are pydantic models with
#   `type: Literal[...]`, built by the loose `construct_type` (`_models.py`). Its stream is
#   `RawMessageStreamEvent`, folded by `accumulate_event` (`lib/streaming/_messages.py`), which mutates a
#   snapshot. `ThinkingBlock.signature` is required, and streams arrive as `signature_delta`.
# * **pydantic-ai** (`pydantic_ai_slim/pydantic_ai/messages.py`). `@dataclass` parts with a Literal `part_kind`,
#   joined by a callable `pydantic.Discriminator`, and validated by `ModelMessagesTypeAdapter`. Its events are
#   `PartStartEvent`, `PartDeltaEvent`, `PartEndEvent`, `FunctionToolCallEvent`, and more.
#   `ThinkingPart.signature` goes back only to the provider that made it.
# * **LangChain** (`langchain_core/messages/`). Pydantic message classes; the v1 content blocks are unvalidated
#   `TypedDict`s (`content.py`). Chunks merge with `AIMessageChunk.__add__`. The Anthropic signature is moved
#   into `extras`.
# * **Vercel AI** (`vercel/ai`, TypeScript). Parts discriminated by `type`, checked at run time by the zod
#   `modelMessageSchema`. Its stream has `TextStreamPart` with 24+ variants. The signature rides in
#   `providerOptions.anthropic.signature`.
# * **Claude Code** (closed source; second-hand notes). The Anthropic shape, stored as JSONL transcripts, one
#   block per line, with the fragments of one response grouped by `message.id`.
#
# Three observations, each pointing at a concrete file or issue:
#
# * **Everyone uses a tagged union.** They differ in where it is *checked*. The SDK checks request shapes only
#   statically, and leaves the rest to the server's 400. pydantic-ai and Vercel validate at run time. Nobody in the
#   notes keeps unknown kinds byte for byte, as `OpaqueBlock` does. LangChain wraps them as
#   `{"type": "non_standard", "value": ...}`, which changes their shape.
# * **Event streams are universal; fold laws are not.** The SDK's `accumulate_event`
#   (`lib/streaming/_messages.py`) folds deltas into a snapshot and ends in an `assert_never`, but it states no law
#   and nothing tests one. pydantic-ai and Vercel define rich event unions. A law like `fold_events(events) ==
#   history` is cheap to state and to property-test. It is the gap section 6 suggests filling.
# * **Claude Code's transcripts are the strongest argument for a lossless model.** One block per line, results
#   interleaved with the assistant lines of the same `message.id`, synthetic messages, compaction boundaries, and
#   files that end mid-turn: an importer must keep everything it does not understand and report what it skipped.
#   The format's own bugs ([anthropics/claude-code#6836](https://github.com/anthropics/claude-code/issues/6836), 150+
#   reports of `tool_use`/`tool_result` mismatches after
#   compaction) are the bug class this series started with.

# %% [markdown]
# ## One-line summary
#
# **Consolidate when knowledge is copied twice and a copy has already bitten; then model the whole contract,
# choose the library by what it does at run time (every tagged union narrows), and let the next features, an event
# stream with a fold law and signed thinking, run on top without touching the model.**

# %% [markdown]
# ## Exercises
#
# ### 07.1 Consolidate now, wait, or premature?
#
# For each scenario, give one verdict: `"now"` (consolidate into one authority now), `"wait"` (note it and watch),
# or `"premature"` (an abstraction nobody needs yet).

# %%
from IPython.display import Markdown

from msgmodel.course.exercises.ch07 import CC_LINES, SCENARIOS

Markdown("\n\n".join(f"**({key})** {text}" for key, text in SCENARIOS.items()))

# %%
verdicts = None  # your answer: {"a": "now", "wait" or "premature", "b": ..., ..., "e": ...}
check("07.1", verdicts)

# %% [markdown]
# Stuck? `print(reveal("07.1"))` shows the answers; the hints explain each one.
#
# ### 07.2 Write the fold
#
# Write `fold(events)`: the list of messages a list of engine events describes, starting from an empty history,
# without calling `fold_events`. The starter below is the obvious first try. Run it and read the hint. The checker
# compares your fold with the engine on seven event lists, including parallel tool calls, a compaction, and a
# stream that stops right after a tool result.

# %%
from msgmodel import tool_result_msg


def fold(events):
    messages = []
    for ev in events:
        if isinstance(ev, (TurnStarted, AssistantMessage)):
            messages.append(ev.message)
        elif isinstance(ev, ToolResulted):
            messages.append(tool_result_msg([ev.result]))
    return messages


check("07.2", fold)

# %% [markdown]
# Stuck? `print(reveal("07.2"))` shows a reference solution.
#
# ### 07.3 Predict what the importer skips
#
# Here is a small Claude Code transcript, one JSON object per line. Without running
# `import_claude_code`, list the numbers of the lines it will skip. Think about line types, the `parentUuid`
# chain, the `model` field, and the last line.

# %%
for no, line in enumerate(CC_LINES.decode().split("\n"), start=1):
    print(f"{no:>2} {line}")

# %%
skipped = []  # the line numbers, e.g. [1, 2]
check("07.3", skipped)

# %% [markdown]
# Afterwards, check yourself with `import_claude_code(CC_LINES, name="session.jsonl").skipped`. Stuck?
# `print(reveal("07.3"))` shows the answer.
