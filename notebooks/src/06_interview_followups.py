# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # 06 · Interview follow-ups
#
# *You have explained the unified message model. Now the interviewer pushes on every decision in
# it. This chapter answers each push with a short answer and a cell that proves it.*

# %% [markdown]
# ## What
#
# The original step-31 tutorial ends with four follow-up questions: why `content` has two
# shapes, why `ThinkingBlock` exists before anything uses thinking, why a tagged union and not a
# class hierarchy, and what it costs to add a block kind. We answer each one with running
# evidence: requests through the official SDK to the local API, a thinking signature that comes
# back unchanged from disk, and mypy run on scratch modules. Then come eleven more questions an
# interviewer is likely to ask, each with a model answer (and a cell, or a link to the chapter
# that proves it), and a self-check quiz.
#
# After this chapter you can defend every design choice in `msgmodel/core/message.py` in a few
# sentences, and back each answer with a concrete example.

# %% [markdown]
# ## Why
#
# **"Fine, you built a type module. Now tell me why each decision in it is right, and not just
# the first thing you tried."**
#
# Anyone can describe a design. A follow-up question tests whether you know what the design costs,
# what the alternatives would cost, and how you would *show* it rather than just claim it. A good
# answer has three parts: a one-sentence position, the reason in this protocol (not in general),
# and a piece of evidence the other person can check. That evidence can be a test, a type
# checker's output, or the API's own error text.
#
# The questions below are not trivia. Each one points at a decision that other agent libraries made
# differently and paid for in their issue trackers: LangChain's `start_on="human"`, pydantic-ai's
# silent repair, and thinking signatures that break when a history is edited. If you can run the
# cell, you can tell the story.

# %% [markdown]
# ## How
#
# The four follow-ups from the original step-31 tutorial, at a glance:
#
# | Follow-up | Short answer | Evidence |
# |---|---|---|
# | Q1 Why is `content` `str \| list`? | Both shapes are on the wire; readers fold them in one branch | two 200s |
# | Q2 Why `ThinkingBlock` so early? | The thinking feature then costs no change to the model | a signed round trip |
# | Q3 Union or class hierarchy? | Blocks are data: no registry, exhaustive narrowing | both, run and type-checked |
# | Q4 What does a new kind cost? | One class in one module; mypy lists every `match` | a scratch module + mypy |
#
# One setup cell first: the model, the local API, and a small loader that runs a scratch module's
# source, so the same text can be imported *and* type-checked (`msgmodel.course.teaching.type_check` runs
# `mypy --strict` on it).

# %%
import json
import re
import sys
import tempfile
import types
import typing
from collections import Counter
from pathlib import Path

import anthropic
import msgspec

from msgmodel import (
    Message,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    assistant_msg,
    block_to_text,
    blocks_from_api,
    blocks_of,
    from_json,
    is_clean_user_start,
    text_of,
    to_api,
    to_json,
    tool_result_block,
    tool_result_msg,
    tool_uses_of,
    user_text,
)
from msgmodel.api import local_client
from msgmodel.api.demo_tools import demo_registry
from msgmodel.api.scripted import RuleModel
from msgmodel.core import storage
from msgmodel.core.claude_code import import_claude_code, sample_session_path
from msgmodel.core.compact import plan_compaction, repair
from msgmodel.core.engine import EngineConfig
from msgmodel.core.protocol import validate
from msgmodel.core.tools import run_tool, tools_param
from msgmodel.course.exercises import check, reveal
from msgmodel.course.synth import synth_session
from msgmodel.course.teaching import type_check

MODEL = "claude-sonnet-4-6"
REGISTRY = demo_registry()
TOOLS = tools_param(REGISTRY)
client = local_client(RuleModel())  # the official SDK, answered in-process by the local API


def load(name, source):
    """Run a scratch module's source as module `name`: the same text that `type_check` reads."""
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(source, module.__dict__)
    return module


# %% [markdown]
# ### Q1. Why is `content` a `str | list`, and not always a list of blocks?
#
# **Short answer.** Both shapes are on the wire. The API accepts a plain string or a list of
# blocks, and real transcripts hold both. A typed prompt or a summary is one string; an assistant
# turn or a tool answer is a list. The model keeps what it was given, so a history loaded and saved
# again comes back byte for byte. The cost is one `isinstance(content, str)` branch, and that
# branch lives in the readers, written once.
#
# First, the installed SDK's own type for `content`:

# %%
from anthropic.types.message_content_param import MessageContentParam

string_shape, list_shape = typing.get_args(MessageContentParam)  # Union[str, Iterable[<block params>]]
print("content is a", string_shape.__name__, "or an", typing.get_origin(list_shape).__name__, "of blocks")

# %% [markdown]
# The API answers both shapes the same way. The local API below validates like the live one, and
# its rule-based model answers what it reads:

# %%
as_string = [{"role": "user", "content": "What is 6 * 7?"}]
as_blocks = [{"role": "user", "content": [{"type": "text", "text": "What is 6 * 7?"}]}]
for name, messages in [("string", as_string), ("blocks", as_blocks)]:
    reply = client.messages.create(model=MODEL, max_tokens=256, messages=messages)
    print(f"{name:>6} content -> 200: {reply.content[0].text}")

# %% [markdown]
# A real session has both shapes too. The repo ships a small Claude Code transcript. Here is how
# often each shape appears in it:

# %%
cc_session = import_claude_code(sample_session_path()).messages
print(sorted(Counter((m.role, type(m.content).__name__) for m in cc_session).items()))

# %% [markdown]
# So every reader has to handle a string, and handles it in exactly one place: `blocks_of`, the
# reader the others build on, turns a non-empty string into one `TextBlock` and an empty one into
# none ([chapter 04, section 4](04_unified_model.ipynb) shows it at work).

# %%
for m in [user_text("hi"), Message(role="user", content=[TextBlock("hi")]), user_text("")]:
    print(f"{m.content!r:>30}  blocks_of -> {blocks_of(m)!r:<32} text_of -> {text_of(m)!r}")

# %% [markdown]
# Why not turn every string into `[TextBlock(...)]` on the way in? Because then the model would
# no longer return what it was given. A session written by another tool (Claude Code, say) and
# saved again would come out different:

# %%
raw = b'[{"role":"user","content":"Fix the flaky test."}]'
kept = from_json(raw)
normalized = [Message(role=m.role, content=blocks_of(m)) for m in kept]
print("kept as given :", to_json(kept) == raw, to_json(kept).decode())
print("normalized    :", to_json(normalized) == raw, to_json(normalized).decode())

# %% [markdown]
# ### Q2. Why define `ThinkingBlock` before any feature uses thinking?
#
# **Short answer.** The model exists to describe every block the API can send, not only the blocks
# today's features read. If thinking is in the model from day one, the later thinking feature
# needs no change to `message.py`. Storage, compaction and the engine carry thinking blocks
# unchanged, signature included, because they never look inside a block they don't need.
#
# Why the signature matters: the API signs each thinking block it returns. When the history comes
# back, it refuses a replayed thinking block whose signature is missing or does not match, and it
# refuses any change to the thinking of the *latest* assistant message ("`thinking` or
# `redacted_thinking` blocks in the latest assistant message cannot be modified", rule
# `thinking_modified` in [api-rules.md](../docs/api-rules.md)). A model that loses or rewrites one
# byte of a thinking block breaks the next request.
#
# Here is the proof. We ask the local API for an answer with thinking enabled. The rule-based model
# opens its answer with a signed thinking block, as the live API does. We decode the answer with
# `blocks_from_api`, run the tool, save the session to disk, load it, compare the thinking block
# with what the SDK handed us, and send the history back.

# %%
THINKING = {"type": "enabled", "budget_tokens": 1024}
history = [user_text("Please read src/app.py")]
reply = client.messages.create(model=MODEL, max_tokens=2048, thinking=THINKING, tools=TOOLS, messages=to_api(history))
signature = reply.content[0].signature
print([b.type for b in reply.content], reply.stop_reason)
print("signature from the API:", signature)

# %%
history.append(assistant_msg(blocks_from_api(reply.content)))
history.append(tool_result_msg([run_tool(REGISTRY, call) for call in tool_uses_of(history[-1])]))
with tempfile.TemporaryDirectory() as d:
    storage.save(Path(d, "session.jsonl"), history)
    loaded = storage.load(Path(d, "session.jsonl")).messages
thinking = blocks_of(loaded[1])[0]
print("loaded == saved:", loaded == history)
print("signature byte for byte:", thinking.signature == signature)
print("block as the SDK returned it:", to_api(loaded)[1]["content"][0] == reply.content[0].model_dump())

# %%
reply = client.messages.create(model=MODEL, max_tokens=2048, thinking=THINKING, tools=TOOLS, messages=to_api(loaded))
print([b.type for b in reply.content])
print(reply.content[1].text)

# %% [markdown]
# Storage carried the block to disk and back without knowing what it was, and compaction and the
# engine pass it along the same way. None of the three mentions thinking. Here is a count of every
# reference to `ThinkingBlock`, the string `"thinking"`, or a `.thinking`/`.signature` attribute
# in their code:

# %%
import ast

import msgmodel

for module in ["storage", "compact", "engine"]:
    tree = ast.parse((Path(msgmodel.__file__).parent / "core" / f"{module}.py").read_text())
    refs = [
        n
        for n in ast.walk(tree)
        if (isinstance(n, ast.Name) and n.id == "ThinkingBlock")
        or (isinstance(n, ast.alias) and n.name == "ThinkingBlock")
        or (isinstance(n, ast.Constant) and n.value == "thinking")
        or (isinstance(n, ast.Attribute) and n.attr in ("thinking", "signature"))
    ]
    print(f"msgmodel/{module}.py: {len(refs)} references to thinking")

# %% [markdown]
# A named type still pays for itself where code *does* need to know about thinking. The
# summarizer's transcript leaves thinking out on purpose (`block_to_text` returns `""` for it), and
# the validator knows the API's thinking rules. With thinking enabled, the assistant message that
# opened the current tool loop must start with its thinking block, exactly as the API returned it.
# Three ways careless code breaks that: a model with no thinking type drops the block, a merge of
# two turns reorders it, and a model with no `signature` field loses the signature:

# %%
opener = blocks_of(loaded[1])  # [thinking, text, tool_use]
variants = {
    "thinking dropped": [b for b in opener if b.type != "thinking"],
    "thinking moved after the text": [opener[1], opener[0], opener[2]],
    "signature lost": [msgspec.structs.replace(opener[0], signature=None), *opener[1:]],
}
for name, blocks in variants.items():
    v = validate([loaded[0], assistant_msg(blocks), loaded[2]], thinking="enabled")[0]
    text = str(v) if len(str(v)) <= 84 else str(v)[:84] + "…"
    print(f"{name:<30} {v.rule:<18} {text}")
print("block_to_text(thinking) ->", repr(block_to_text(opener[0])))

# %% [markdown]
# And the API itself, for the first variant. The public reports of this rule
# ([mastra-ai/mastra#7799](https://github.com/mastra-ai/mastra/issues/7799),
# [deepset-ai/haystack-core-integrations#2146](https://github.com/deepset-ai/haystack-core-integrations/issues/2146))
# quote the same text with ``found `tool_use` ``: their turns opened with a tool call, ours opens
# with text once the thinking is gone. The word "preceeding" (sic) is the API's own spelling, kept
# byte for byte:

# %%
broken = [loaded[0], assistant_msg(variants["thinking dropped"]), loaded[2]]
try:
    client.messages.create(model=MODEL, max_tokens=2048, thinking=THINKING, tools=TOOLS, messages=to_api(broken))
except anthropic.BadRequestError as err:
    print("400:", err.api_message)

# %% [markdown]
# ### Q3. Tagged union or class hierarchy?
#
# **Short answer.** Both are classes (a msgspec `Struct` is a class too); the real choice is a
# *closed* union versus an *open* base class. Content blocks are data that travel as JSON and get
# read by `type`, with no behaviour to override. A closed union `Text | ToolUse` fits that: the tag
# is a field the serializer writes and reads, so no registry is needed, and because nobody can add
# a member from outside, a type checker can narrow on the tag and prove that a `match` covers every
# case. An open base class needs a registry to decode, and mypy cannot check it for
# exhaustiveness, because any module may define another subclass. Use an open hierarchy for
# behaviour (polymorphic methods), a closed union for shapes.
#
# Here are the same two kinds written both ways, as scratch modules that we run *and* type-check.
# Both end with the same two functions, written once:

# %%
USES = """
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

# %% [markdown]
# First the closed union, in the style of `message.py`: each struct carries its tag, and `Block` is
# the union of exactly these two.

# %%
UNION = f"""from typing import ClassVar, Literal, assert_never

import msgspec


class Text(msgspec.Struct, frozen=True, tag="text"):
    text: str
    type: ClassVar[Literal["text"]] = "text"


class ToolUse(msgspec.Struct, frozen=True, tag="tool_use"):
    id: str
    name: str
    type: ClassVar[Literal["tool_use"]] = "tool_use"


Block = Text | ToolUse
{USES}"""

# %% [markdown]
# Then a fair open hierarchy: frozen dataclasses (so equality and `repr` come free) under a base
# class, each subclass with its `type`. Decoding needs a registry from tag to class:

# %%
CLASSES = f"""from dataclasses import asdict, dataclass
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
{USES}"""
union, classes = load("blocks_union", UNION), load("blocks_classes", CLASSES)

# %% [markdown]
# **Serializing.** msgspec writes the tag and reads it back, and an unknown tag fails with a JSON
# path:

# %%
wire = msgspec.json.encode([union.Text("hi"), union.ToolUse(id="toolu_01", name="grep")])
print(wire.decode())
print(msgspec.json.decode(wire, type=list[union.Block]))
try:
    msgspec.json.decode(b'[{"type": "image"}]', type=list[union.Block])
except msgspec.ValidationError as e:
    print("ValidationError:", e)

# %% [markdown]
# (This toy union rejects the unknown tag. `message.py` goes one step further: a kind it does not
# interpret decodes as an `OpaqueBlock` and round-trips unchanged, see
# [chapter 04](04_unified_model.ipynb), "Nothing is lost".)
#
# The hierarchy cannot be serialized as it stands, so it needs `to_dict`, `from_dict` and the
# registry. An unknown tag, or a subclass someone forgot to register, fails with a bare `KeyError`
# from deep inside:

# %%
try:
    json.dumps(classes.ToolUse(id="toolu_01", name="grep"))
except TypeError as e:
    print("json.dumps:", e)
wire = json.dumps([classes.to_dict(b) for b in [classes.Text("hi"), classes.ToolUse(id="toolu_01", name="grep")]])
print(wire)
print([classes.from_dict(d) for d in json.loads(wire)])
try:
    classes.from_dict({"type": "image"})
except KeyError as e:
    print("from_dict: KeyError", e)

# %% [markdown]
# **Narrowing.** Both modules end with the same `tool_name` and `render`. Here is what
# `mypy --strict` makes of them (`type_check` names the function each error is in):

# %%
type_check({"blocks_union": UNION, "blocks_classes": CLASSES}, functions=True)

# %% [markdown]
# The union module is clean. In the hierarchy two things fail (line 35 is reported twice: once for
# the missing attribute, once because mypy then treats its value as `Any`):
#
# * `b.type == "tool_use"` does not narrow. `type` is a plain `str` on the base class, so mypy
#   still sees a `Block`, and a `Block` has no `name`. You have to write `isinstance(b, ToolUse)`,
#   and then the tag and the class are two facts you keep in sync by hand.
# * `assert_never(b)` fails even though every subclass has a case. The base class is *open*, so
#   mypy has to assume some other module defines a third subclass. The fix is to declare
#   `AnyBlock = Text | ToolUse` and match on that. At that point you have written a closed union,
#   and the base class no longer does anything.
#
# | | closed union (msgspec) | open class hierarchy |
# |---|---|---|
# | encode / decode | built in; the tag is a field | `to_dict`, `from_dict` and a registry, by hand |
# | unknown tag on decode | `ValidationError` naming `$[0].type` | bare `KeyError`, unless you write more code |
# | `if b.type == ...` narrows | yes (Literal tags) | no; needs `isinstance` |
# | `match` + `assert_never` exhaustive | yes (closed union) | no (open base class) |
# | behaviour per kind | plain functions with `match` | methods (the one thing a hierarchy is good at) |

# %% [markdown]
# ### Q4. What does it cost to add a block kind?
#
# **Short answer.** One class added to the union, in one module. Then the type checker lists every
# `match` that must now handle the new kind, and nothing else needs to change: readers that filter
# by `type` keep working. Before anyone models a new kind, `OpaqueBlock` already carries it
# through unchanged ([chapter 04](04_unified_model.ipynb), "Nothing is lost").
#
# Here is a feature module written against the union: one function that `match`es over every
# kind, and one reader that only wants text. It type-checks clean:

# %%
FEATURES = """\
from typing import assert_never

from blocks_union import Block, Text, ToolUse


def preview(b: Block) -> str:
    match b:
        case Text():
            return b.text[:40]
        case ToolUse():
            return b.name
        case _:
            assert_never(b)


def texts(blocks: list[Block]) -> list[str]:
    return [b.text for b in blocks if b.type == "text"]
"""
type_check({"blocks_union": UNION, "features": FEATURES}, functions=True)

# %% [markdown]
# Now the API grows an image block. We add one class and one union member, and change nothing
# else:

# %%
IMAGE = """\
class Image(msgspec.Struct, frozen=True, tag="image"):
    media_type: str
    data: str
    type: ClassVar[Literal["image"]] = "image"


Block = Text | ToolUse | Image
"""
UNION_WITH_IMAGE = UNION.replace("Block = Text | ToolUse\n", IMAGE)
type_check({"blocks_union": UNION_WITH_IMAGE, "features": FEATURES}, functions=True)

# %% [markdown]
# That is the whole to-do list: `render` in the model module and `preview` in the feature module.
# `tool_name` and `texts` filter by tag, so they are correct as they stand and mypy leaves them
# alone. In `msgmodel` the same list would come from the functions that `match` on the block
# classes and end in `assert_never`. Here they are, found with `ast`:

# %%
BLOCK_CLASSES = {"TextBlock", "ThinkingBlock", "ToolUseBlock", "ToolResultBlock", "OpaqueBlock"}


def matches_blocks(f):
    nodes = list(ast.walk(f))
    exhaustive = any(isinstance(n, ast.Call) and getattr(n.func, "id", "") == "assert_never" for n in nodes)
    return exhaustive and any(
        isinstance(n, ast.MatchClass) and getattr(n.cls, "id", "") in BLOCK_CLASSES for n in nodes
    )


PACKAGE = Path(msgmodel.__file__).parent
for path in sorted(PACKAGE.rglob("*.py")):
    if "assert_never(" in (source := path.read_text()):
        sites = [f.name for f in ast.walk(ast.parse(source)) if isinstance(f, ast.FunctionDef) and matches_blocks(f)]
        print(f"{path.relative_to(PACKAGE.parent)}: {', '.join(sorted(sites)) or '(none over blocks)'}")

# %% [markdown]
# (`engine.py` matches exhaustively too, but over its events, a different union.) To be complete
# about the cost: inside `message.py` the codec also lists the kinds it decodes
# (`_KNOWN_KINDS`, `_KNOWN_TYPES`, `_CORE_FIELDS`, and one branch of `_convert_block`). mypy does
# not point at those tables, which is one reason they sit right below the classes in the same
# file. If the new kind comes with rules of its own (a pairing, say), those go in `protocol.py`.
# That makes two modules for the shape and its rules, and every other module stays as it is.

# %% [markdown]
# ## Follow-up questions
#
# Eleven more questions an interviewer is likely to ask, in roughly the order they come up. Each
# has a short model answer and a cell that proves it, or a link to the chapter whose cell does.
#
# ### Why are the blocks frozen?
#
# **Model answer.** A block is a value that many places share. A compacted history keeps the
# very same block objects as the original. A saved session, the history that was sent, and a
# retry all point at one block. If anyone can change a block in place, a "harmless" cleanup
# somewhere edits every history that holds it, including a signed thinking block, which the API
# then refuses. Frozen blocks turn that into an error at the line that tries, and they can be
# hashed, so you can deduplicate them or use them as cache keys. (The mechanism, `frozen=True`
# and `msgspec.structs.replace`, is in [chapter 04, section 3](04_unified_model.ipynb).)
#
# Here is the bug that frozen blocks prevent, written with plain dicts. A compactor keeps the last
# turn, and those are the same dict objects as in the saved history. Later someone adds a
# whitespace cleanup that runs on the window:

# %%
turn = assistant_msg([ThinkingBlock("Check trailing spaces.  ", signature="c2ln"), TextBlock("Done.  ")])
saved = to_api([user_text("Tidy the README."), turn])  # plain dicts, as a dict-based agent keeps them
window = saved[-1:]  # the compactor's window: the same dict objects as `saved`


def strip_text(messages):  # a "harmless" cleanup, added months later
    for m in messages:
        for block in m["content"]:
            for key in ("text", "thinking"):
                if key in block:
                    block[key] = block[key].rstrip()


strip_text(window)
print("saved history's thinking now:", repr(saved[1]["content"][0]["thinking"]), "(its signature no longer matches)")

# %% [markdown]
# The same history as msgmodel values. The same cleanup fails at the assignment. A correct
# cleanup has to build new blocks, and that leaves the saved history exactly as it was:

# %%
saved = [user_text("Tidy the README."), turn]
window = saved[-1:]
try:
    blocks_of(window[0])[1].text = "Done."
except AttributeError as e:
    print("AttributeError:", e)
cleaned = [msgspec.structs.replace(b, text=b.text.rstrip()) if b.type == "text" else b for b in blocks_of(window[0])]
print("cleaned window:", [b.text if b.type == "text" else b.thinking for b in cleaned])
print("saved history: ", [b.text if b.type == "text" else b.thinking for b in blocks_of(saved[1])])

# %% [markdown]
# Be honest about the limit: frozen is *shallow*. `Message.content` is a list and
# `ToolUseBlock.input` is a dict, so those two can still be mutated, and neither can be hashed. The
# package's rule is never to mutate them. The constructors copy what they are given, so a caller's
# list cannot leak in:

# %%
blocks = [TextBlock("a")]
m = assistant_msg(blocks)
blocks.append(TextBlock("b"))
print("message still has", len(m.content), "block")
print("a TextBlock hashes, equal by value:", len({TextBlock("ok"), TextBlock("ok")}), "distinct")
try:
    hash(ToolUseBlock(id="toolu_01", name="grep", input={"pattern": "TODO"}))
except TypeError as e:
    print("a ToolUseBlock does not: TypeError:", e)

# %% [markdown]
# ### Where does validation belong?
#
# **Model answer.** At the boundary, once. Data from outside (a file, a request body, the SDK's
# response) is decoded by `from_json`/`from_api`, which checks the shape and reports a
# `DecodeError` with the JSON path and what was expected (the `toolUseId` slip, stopped at the
# door, is in [chapter 04](04_unified_model.ipynb), "`DecodeError`: the path to the bad value").
# Past that point, a `ToolResultBlock` *has* a string `tool_use_id`, and no function re-checks it.
# If every function validated its own input, the knowledge of the shapes would be copied N times
# again, which is the disease from [chapter 03](03_root_cause.ipynb). The API's protocol rules are
# a second, separate layer: `validate` checks them where a history is about to be sent, or after
# it has been loaded.
#
# Shape and protocol are different questions, and each layer answers only its own. This history is
# perfectly well-formed (it decodes without complaint), but no API would accept it:

# %%
well_formed = from_json(
    b'[{"role":"user","content":"hi"},'
    b'{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"3 matches"}]}]'
)
print("decoded:", [m.role for m in well_formed])
print("validate:", validate(well_formed)[0])

# %% [markdown]
# | Layer | Where | Error | Knows about |
# |---|---|---|---|
# | shape | `from_json`, `from_api`, `storage.load` | `DecodeError`, `StorageError` | fields, types, kinds |
# | protocol | `validate`: before sending, after loading | `Violation` (the API's text) | pairing, order, thinking |
# | the rest | compaction, engine, display | none: it reads typed values | no wire shapes at all |

# %% [markdown]
# ### Why not LangChain's `start_on="human"`?
#
# **Model answer.** LangChain's `trim_messages` keeps the last messages, then drops the leading
# ones until it reaches a human message. That works there because a tool result is a separate
# `ToolMessage` type. In Anthropic's shape a tool result travels *inside* a user message, so a
# "start at the first user message" rule can start on an orphan result. The right question is
# `is_clean_user_start`: a user message that answers no tool call. LangChain shipped this bug
# itself ([langchain-ai/langchain#33245](https://github.com/langchain-ai/langchain/issues/33245),
# [#29637](https://github.com/langchain-ai/langchain/issues/29637)).
#
# Here is a generated session (`synth_session`, 13 messages) where we want to keep the last 5:

# %%
session = synth_session(13, seed=0)
keep = 5
cut = len(session) - keep
naive = next(i for i in range(cut, len(session)) if session[i].role == "user")
clean = plan_compaction(session, keep_recent=keep).kept_from
print(" i  role       blocks                          role=='user'  is_clean_user_start")
for i in range(clean, len(session)):
    m = session[i]
    kinds = ", ".join(b.type for b in blocks_of(m))
    print(f"{i:>2}  {m.role:<9}  {kinds:<30}  {m.role == 'user'!s:<12}  {is_clean_user_start(m)}")
print(f"cut at {cut}: start_on='human' port starts at {naive}; clean user start at {clean}")

# %%
for name, start in [("start_on='human' port", naive), ("clean user start", clean)]:
    try:
        reply = client.messages.create(model=MODEL, max_tokens=512, tools=TOOLS, messages=to_api(session[start:]))
        print(f"{name}: session[{start}:] -> 200 ({reply.stop_reason})")
    except anthropic.BadRequestError as err:
        print(f"{name}: session[{start}:] -> 400 {err.api_message}")

# %% [markdown]
# The naive start is message 8, a user message holding only a `tool_result` whose `tool_use` was
# cut away. The clean start is message 6. It is found by walking *back* from the cut, so the window
# holds at least `keep` messages.

# %% [markdown]
# ### Why does the validator use the API's exact wording?
#
# **Model answer.** The error text is the thing a learner or an on-call engineer will actually
# search for. If `str(v)` is the API's text byte for byte, then a local failure, a failure in
# production, and the public bug reports all say the same words, and one search finds all three.
# The validator adds what the API leaves out: a stable rule id, the precise location, and a hint
# in plain words.

# %%
v = validate(session[naive:])[0]
try:
    client.messages.create(model=MODEL, max_tokens=512, tools=TOOLS, messages=to_api(session[naive:]))
    api_text = "(no error: the request was accepted)"
except anthropic.BadRequestError as err:
    api_text = err.api_message
print("str(v) == the API's text:", str(v) == api_text)
print("rule:", v.rule, "| path:", v.path, "| hint:", v.hint)

# %% [markdown]
# To be fair, the local API is built on this same validator, so that equality only shows that the
# plumbing works. Fidelity to the *live* API comes from [api-rules.md](../docs/api-rules.md), where
# each text is quoted byte for byte from recordings and public reports. The searchable part of this
# one is what [anthropics/claude-code#24670](https://github.com/anthropics/claude-code/issues/24670)
# and [#8484](https://github.com/anthropics/claude-code/issues/8484) quote:

# %%
phrase = re.sub(r"toolu_\w+", "<id>", api_text.split(": ", 1)[1])
print(phrase)

# %% [markdown]
# ### Repair, or reject?
#
# **Model answer.** Reject by default, and repair only when asked, with a report. `validate` and
# the API reject a broken history. `msgmodel.core.compact.repair` is opt-in: it returns the repaired
# history *and* one `RepairNote` per change, and nothing calls it implicitly (compaction never
# does). It never edits, moves or drops a thinking block. The contrast is pydantic-ai's
# `_clean_message_history`. It runs before every request, drops orphaned tool results and makes up
# `outcome='interrupted'` returns for dangling calls, and it hands back no report of what it changed
# (a made-up return carries only a metadata marker). That keeps requests going, but it hides the
# bug that broke the history.
#
# The naive cut from above, ending right after a tool call (a crash before its results were
# stored):

# %%
broken = session[naive : naive + 2]
fixed, notes = repair(broken)
for note in notes:
    print(f"{note.kind:<22} {note}")
print("validate(fixed):", validate(fixed), "| repair again:", repair(fixed)[1])

# %% [markdown]
# Every change is named, the result validates, and a second repair changes nothing. (The repaired
# history opens with an assistant message; the first-party API accepts that today, see
# [api-rules.md](../docs/api-rules.md) section 0.) A caller can log the notes, show them to a
# person, or refuse to continue when any note appears.
#
# And the thinking promise: the signed turn from Q2, cut right after its tool call, gets an answer
# for the dangling call, while its thinking block comes back as the very same object:

# %%
fixed, notes = repair(loaded[:2])  # [user, assistant [thinking, text, tool_use]]: the result is missing
print([note.kind for note in notes])
print("thinking block untouched:", blocks_of(fixed[1])[0] is blocks_of(loaded[1])[0])

# %% [markdown]
# ### How do you test an invariant like "a clean start is always a valid start"?
#
# **Model answer.** With a property test: generate many valid histories, cut each one at a random
# place, and assert the invariant wherever its condition holds. Run it with a fixed seed and a
# modest example count so CI stays fast and repeatable. Then check that the test *can fail*: run
# the same property with the naive condition and watch Hypothesis find and shrink a
# counterexample. [Chapter 05](05_refactor_and_regressions.ipynb) ("The invariant, checked by
# Hypothesis") walks through the setup; here is the short version, both conditions in one cell:

# %%
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

PHASES = [Phase.explicit, Phase.generate, Phase.shrink]  # no example database, no explain phase
PROPERTY = settings(derandomize=True, max_examples=40, database=None, deadline=None, phases=PHASES)


def starts_are_valid(condition):
    """Every cut of a generated session where `condition` holds is a valid history (None) or a counterexample."""

    @PROPERTY
    @given(n=st.integers(2, 24), seed=st.integers(0, 10_000), at=st.integers(0, 23))
    def prop(n, seed, at):
        history = synth_session(n, seed=seed)
        if condition(history[at % len(history)]):
            assert validate(history[at % len(history) :], as_history=True) == []

    try:
        prop()
    except AssertionError as e:
        return " ".join(e.__notes__[0].split())


print("is_clean_user_start:", starts_are_valid(is_clean_user_start) or "held for every example")
print("role == 'user'     :", starts_are_valid(lambda m: m.role == "user"))

# %% [markdown]
# Hypothesis shrank the failure to a tiny case: a 5-message session cut at message 12 % 5 = 2, a
# user message holding only a `tool_result`. The package's own tests
# (`tests/test_compact_properties.py`) state the same idea one level up: for every valid history
# and every `keep_recent`, `compact` returns a valid history.

# %% [markdown]
# ### What happens to a block kind the model does not know?
#
# **Model answer.** It is kept, not dropped and not rejected. An `OpaqueBlock` holds the original
# JSON object and writes it back unchanged, so images, documents, `redacted_thinking` and server
# tool blocks survive a round trip byte for byte. Its own `type` is `"opaque"`, so `match` stays
# exhaustive over five cases, and `b.kind` gives the wire type. The round trip is proved in
# [chapter 04](04_unified_model.ipynb) ("Nothing is lost"); the server-side compaction block below
# is one more example.
#
# ### Why do the structs carry an `extra` field?
#
# **Model answer.** The API keeps adding optional fields to known kinds (`cache_control`,
# `citations`, `caller`, …). A model that drops unknown fields silently breaks features such as
# prompt caching. A model that rejects them breaks on the next API release. `extra` keeps them
# verbatim and writes them back flat, while the core fields stay typed (the same chapter 04 cell
# shows a `cache_control` surviving).
#
# ### Why msgspec, and not pydantic or plain dataclasses?
#
# **Model answer.** Any of them can express a tagged union. pydantic-ai uses dataclasses with a
# pydantic discriminator, and the Anthropic SDK uses pydantic models. msgspec gives frozen structs
# whose tag is part of the class, and it decodes JSON bytes straight into the union and encodes
# straight back to the API's shape, with no adapter layer and one small dependency (the one-call
# decode is in [chapter 04, section 3](04_unified_model.ipynb)). That is a preference, not a law.
# [Chapter 07](07_tradeoffs_and_next.ipynb) measures the options side by side.

# %% [markdown]
# ### Why not let the API compact for you?
#
# **Model answer.** The API offers two server-side tools: compaction (the `compact_20260112` edit,
# which summarizes earlier context on the server and returns a `compaction` block: a summary in
# `content` plus `encrypted_content` to send back verbatim) and context editing
# (`clear_tool_uses_20250919` clears old tool results, `clear_thinking_20251015` old thinking).
# They are good tools, and using them is a fine answer. What they cost: they are beta features of
# one provider; you do not choose what the summary keeps (chapter 02's question "which file was
# read?" is then up to their prompt); part of the result is encrypted, so your code carries a block
# it cannot read; and a history you load from disk, replay, or send elsewhere still needs a
# client-side answer. They are also not in conflict with this model: a `compaction` block is one
# more kind that msgmodel does not interpret, so it decodes as an `OpaqueBlock`, round-trips byte
# for byte, and the validator accepts it where the server puts it. (Sources:
# [anchors.md](../docs/anchors.md), section 1.1.) A replayed turn in the shape the SDK's
# `BetaCompactionBlockParam` describes:

# %%
raw = (
    b'[{"role":"user","content":"Continue the refactor."},'
    b'{"role":"assistant","content":[{"type":"compaction","content":"Read src/app.py; tests pass.",'
    b'"encrypted_content":"Eo8BCkYIBxgC"},{"type":"text","text":"Picking up where we left off."}]},'
    b'{"role":"user","content":"Run the tests again."}]'
)
replayed = from_json(raw)
block = blocks_of(replayed[1])[0]
print(f"{type(block).__name__}(kind={block.kind!r}) | round trip byte for byte: {to_json(replayed) == raw}")
print("validate:", validate(replayed), "| in a summary transcript:", block_to_text(block))

# %% [markdown]
# ### Messages or tokens: what should a compaction budget count?
#
# **Model answer.** Tokens, because the context window and the bill are in tokens; a message count
# is only a proxy. It is a cheap one and fine while messages are similar in size, but one tool
# result holding a whole file can be larger than forty chat turns. The engine takes both budgets:
# `EngineConfig(compact_at_messages=40)` (the default) and `compact_at_chars`, the length of the
# history's JSON, a local stand-in for tokens that costs no request. When the number must be
# exact, ask the API: `client.messages.count_tokens(...)` answers with `input_tokens` for the same
# request body, at the price of a round trip. Two five-message histories, one with a short tool
# result and one with a 2 000-line file:


# %%
def read_turn(result):
    call = ToolUseBlock(id="toolu_01", name="read_file", input={"path": "src/app.py"})
    answer = tool_result_msg([tool_result_block("toolu_01", result)])
    return [user_text("Read it"), assistant_msg([call]), answer, assistant_msg([TextBlock("Done.")]), user_text("Next")]


big_file = "\n".join(f"    retries = retries + {i}  # line {i}" for i in range(2_000))
for name, history in [("short result", read_turn("x = 1")), ("2 000-line file", read_turn(big_file))]:
    tokens = client.messages.count_tokens(model=MODEL, tools=TOOLS, messages=to_api(history)).input_tokens
    print(f"{name:<16} messages: {len(history)}  JSON chars: {len(to_json(history)):>6,}  input_tokens: {tokens:>6,}")
config = EngineConfig(compact_at_messages=None, compact_at_chars=200_000)  # a size budget instead of a count
print(f"this engine compacts once the history's JSON passes {config.compact_at_chars:,} chars")

# %% [markdown]
# Same message count, fifty times the tokens. (The local API estimates tokens as a quarter of the
# request's JSON bytes, tool definitions included; the live endpoint uses the real tokenizer, so
# its numbers differ, but not the lesson.)

# %% [markdown]
# ## Pitfalls and trade-offs
#
# * **Two shapes mean two branches.** `str | list` is faithful to the wire, but every reader pays
#   for it with one branch. Keep that branch in the readers, because code that walks `.content`
#   itself will forget the string case (exercise 06.1 shows how).
# * **Frozen is shallow.** `content` is a list and `input` a dict. They can be mutated, and a
#   `Message` or `ToolUseBlock` cannot be hashed. The rule "never mutate, build new values with
#   `msgspec.structs.replace`" is a convention the type checker does not enforce.
# * **Exhaustiveness only covers `match`.** mypy flags a new kind only where a `match` ends in
#   `assert_never`. An `if b.type == ...` chain with a fallback `return` stays silent. That is
#   right for a reader that filters, and wrong for a serializer. Use `match` wherever every kind
#   needs a decision.
# * **Opaque means uninterpreted.** An `OpaqueBlock` survives, but no code reasons about it. The
#   validator has its own table for server tool pairs (`server_tool_use` →
#   `web_search_tool_result`), and a new paired kind needs a rule there, not just a round trip.
# * **A local validator has a ceiling.** It cannot check that a signature is genuine, or that
#   thinking in the latest turn was left untouched (`Invalid signature`, "cannot be modified" in
#   [api-rules.md](../docs/api-rules.md)). Only the API can answer those.
# * **Mirroring the wording is a maintenance duty.** The API has changed its texts before (the
#   "tool_result must come first" error was reworded in 2025). The rule ids stay stable and the
#   texts follow the API.
# * **Repair can hide a bug.** Run it where a person sees the notes (loading an old session), not
#   silently before every request.
# * **A message count is not a size.** `compact_at_messages` is cheap and predictable, but one
#   large tool result can fill the window on its own. Give long-running agents a size budget too.

# %% [markdown]
# ## vs. the real source
#
# What the anchors do, per decision of this chapter (from the project's notes on each library,
# [anchors.md](../docs/anchors.md)):
#
# * **Anthropic SDK** (`anthropics/anthropic-sdk-python`). `MessageParam.content` is
#   `Union[str, Iterable[...]]`, the same two shapes (`message_param.py`; the installed 2.14 names
#   the type `MessageContentParam`, as the Q1 cell shows).
#   Response blocks are pydantic models with `type: Literal[...]`, joined by
#   `PropertyInfo(discriminator="type")`. That discriminator only *picks* a class, because
#   `construct_type` is loose, and request params are `TypedDict`s that nothing validates: the
#   server's 400 is the validator. `ThinkingBlock.signature` is required; `RedactedThinkingBlock`
#   holds `data`. There are no constructors, readers or trimming for messages.
# * **pydantic-ai.** Parts are dataclasses with a Literal `part_kind`, unioned by a callable
#   `pydantic.Discriminator` with `Tag`s (`messages.py`); `ThinkingPart.signature` goes back
#   only to the same provider. Before every request `_clean_message_history` (`_agent_graph.py`)
#   drops orphaned tool results and makes up `outcome='interrupted'` returns, without a report.
#   The harness cuts with `find_safe_cutoff`, which checks pairs only within ±5 messages.
# * **LangChain.** `content: str | list[str | dict]`. Tool results are separate `ToolMessage`s,
#   which is why `trim_messages(start_on="human")` can work there and fails in Anthropic's shape
#   ([langchain-ai/langchain#33245](https://github.com/langchain-ai/langchain/issues/33245)).
#   Content blocks are unvalidated `TypedDict`s; the Anthropic signature moves
#   into `extras`; an unknown block becomes `{"type": "non_standard", "value": ...}`.
# * **Claude Code** (closed source; second-hand notes). Transcripts hold both content shapes.
#   `adjustIndexToPreserveAPIInvariants()` moves the window start back until every kept
#   `tool_result` has its `tool_use`, and keeps together assistant fragments that share a
#   `message.id`, so thinking stays whole. Orphans still happen:
#   [anthropics/claude-code#6836](https://github.com/anthropics/claude-code/issues/6836) (150+ reports),
#   [#24670](https://github.com/anthropics/claude-code/issues/24670),
#   [#8484](https://github.com/anthropics/claude-code/issues/8484).
#
# Two public threads are worth reading before an interview.
# [anthropics/anthropic-sdk-python#1598](https://github.com/anthropics/anthropic-sdk-python/issues/1598):
# a maintainer explains why a signature fails after blocks are "edited or re-serialized, …,
# reordered or merged". [pydantic/pydantic-ai#4728](https://github.com/pydantic/pydantic-ai/issues/4728):
# "once a conversation is poisoned, it stays poisoned", the request that led to their repair
# pipeline.

# %% [markdown]
# ## One-line summary
#
# **Every choice in the message model (two content shapes, thinking modelled early, a closed
# tagged union, frozen values, validation at the boundary, repair only on request with a report)
# can be defended in one sentence and proved in one cell, and that is what an interviewer is
# testing.**

# %% [markdown]
# ## Exercises
#
# ### Self-check quiz
#
# Seven questions from this chapter. In JupyterLab (or Notebook 7, VS Code), pick an answer and
# press **Check**; a wrong pick gets a hint that points back to the section. The Check button
# needs a running kernel. Without one, the series' static pages (`make html`) show each question
# with its answer folded under "Show the answer", and a plain-text view lists the questions and
# their options. In code, `quiz.choose(0, "[]")` picks and checks an answer.

# %%
from msgmodel.course.exercises.ch06 import QUIZ, prediction_cases
from msgmodel.course.widgets import Question, Quiz

quiz = Quiz([Question(q.prompt, q.options, q.answer, q.explain, q.hints) for q in QUIZ], title="06 · Self-check")
quiz

# %% [markdown]
# ### 06.1 Pair every call with its answer
#
# Write `pairs_of(messages)`: for every `tool_use` block in the history, in order, the pair
# `(call, result)`, where `result` is the `tool_result` block whose `tool_use_id` is the call's
# `id`, or `None` when the call was never answered. A result whose call is not in the history is
# left out, and so are server tool blocks (they are `OpaqueBlock`s, not `tool_use`). Use the
# readers. The starter below is the obvious first try: run it and read the hint.


# %%
def pairs_of(messages):
    calls = [b for m in messages for b in m.content if b.type == "tool_use"]
    results = [b for m in messages for b in m.content if b.type == "tool_result"]
    return list(zip(calls, results, strict=False))


check("06.1", pairs_of)

# %% [markdown]
# Stuck? `print(reveal("06.1"))` shows a reference solution.
#
# ### 06.2 Predict the API's answer
#
# Six short histories about thinking and server tools. Each request defines tools, and "thinking"
# says whether the request enables extended thinking. For each history, will the API answer 200 or
# 400? Decide before you run anything, then replace `None` with a dict such as
# `{"A": 200, "B": 400, ...}`. The checker quotes the API's text for any 400 you missed.


# %%
def describe(b):
    if b.type == "tool_use":
        return f"tool_use {b.id}"
    if b.type == "tool_result":
        return f"tool_result for {b.tool_use_id}"
    if b.type == "opaque":
        ref = b.raw.get("id") or b.raw.get("tool_use_id")
        return f"{b.kind} {ref}" if ref else b.kind
    return b.type


for label, (history, thinking) in prediction_cases().items():
    print(f"{label}  (thinking {thinking or 'off'})")
    for i, m in enumerate(history):
        print(f"     {i} {m.role:<9} [{', '.join(describe(b) for b in blocks_of(m))}]")

# %%
predictions = None  # your answer: {"A": 200 or 400, "B": ..., ..., "F": ...}
check("06.2", predictions)

# %% [markdown]
# Stuck? `print(reveal("06.2"))` shows the answers.
#
# ### 06.3 Rename in the visible text, and only there
#
# Write `rename_in_text(messages, old, new)`: a **new** history in which `old` is replaced by `new`
# in every text block and in string content. Every other block stays as it is: thinking (it is
# signed), tool calls and tool results. The input history must not change, and a text block's
# `extra` fields (`cache_control`) must survive. The starter is the obvious first try again.


# %%
def rename_in_text(messages, old, new):
    for m in messages:
        for b in blocks_of(m):
            if b.type == "text":
                b.text = b.text.replace(old, new)
    return messages


check("06.3", rename_in_text)

# %% [markdown]
# Stuck? `print(reveal("06.3"))` shows a reference solution.
