# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown] tags=["core"]
# # 06 · Interview follow-ups
#
# *You have explained the unified message model. Now the interviewer pushes on every decision in it. Practise the
# answers first, then check each one against a cell.*
#
# ## What
#
# The original step-31 tutorial ends with four follow-up questions: why `content` has two shapes, why
# `ThinkingBlock` exists before anything uses thinking, why a tagged union and not a class hierarchy, and what it
# costs to add a block kind. This chapter adds eleven more an interviewer is likely to ask. They are numbered
# **I1–I15** ("I" for interview), apart from the API's open questions Q1, Q2, … that `protocol.py` lists. You
# answer each one in the drill below, then see the model answer and tick its key points. The rest of the chapter is
# the evidence: a cell per answer, or a link to the chapter whose cell proves it.
#
# ## Why
#
# **"Fine, you built a type module. Now tell me why each decision in it is right, and not just the first thing you
# tried."**
#
# Anyone can describe a design. A follow-up tests whether you know what it costs, what the alternatives cost, and
# how you would *show* it. A good answer has three parts: a one-sentence position, the reason in this protocol (not
# in general), and evidence the other person can check: a test, a type checker's output, or the API's own error
# text.

# %% [markdown] tags=["core"]
# ## How
#
# ### The drill
#
# Write your answer in the box before you open the model answer; an answer you only read is not one you can give.
# Then tick the key points your answer had. In JupyterLab the drill keeps your score; on a static page each model
# answer and its checklist are folded under the question.

# %% tags=["core"]
from msgmodel.course.exercises.ch06 import DRILL
from msgmodel.course.widgets import InterviewDrill

InterviewDrill(DRILL)

# %% [markdown]
# ## Follow-up questions: the evidence
#
# Each answer in the drill, backed by a cell (or a link to the chapter whose cell proves it). One setup cell: the
# model, the official SDK answered in-process by the local API, and `type_check` (`mypy --strict` on a snippet).

# %% tags=["core"]
import ast
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

import msgmodel
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
from msgmodel.core.compact import repair
from msgmodel.core.engine import EngineConfig
from msgmodel.core.protocol import validate
from msgmodel.core.tools import run_tool, tools_param
from msgmodel.course.synth import synth_session
from msgmodel.course.teaching import type_check

MODEL = "claude-sonnet-4-6"
REGISTRY = demo_registry()
TOOLS = tools_param(REGISTRY)
client = local_client(RuleModel())

# %% [markdown] tags=["core"]
# ### I1. Why is `content` a `str | list`, and not always a list of blocks?
#
# The original's argument (wrapping plain text in a block list is needless ceremony) is in chapter 04, section 3.
# The evidence that both shapes are on the wire: the SDK's own type, a 200 for each shape, and a session file built
# to Claude Code's documented transcript format (shipped with the package), which holds both:

# %% tags=["core"]
from anthropic.types.message_content_param import MessageContentParam

string_shape, list_shape = typing.get_args(MessageContentParam)
print("SDK: content is a", string_shape.__name__, "or an", typing.get_origin(list_shape).__name__, "of blocks")
from msgmodel import is_plain_text, text_of, user_msg

for name, content in [("string", "What is 6 * 7?"), ("blocks", [{"type": "text", "text": "What is 6 * 7?"}])]:
    reply = client.messages.create(model=MODEL, max_tokens=256, messages=[{"role": "user", "content": content}])
    print(f"{name:>6} content -> 200: {text_of(assistant_msg(blocks_from_api(reply.content)))}")
cc_session = import_claude_code(sample_session_path()).messages
print(sorted(Counter((m.role, "str" if is_plain_text(m) else "list") for m in cc_session).items()))

# %% [markdown]
# Why not turn every string into `[TextBlock(...)]` on the way in? Then the model would no longer return what it was
# given, and a session written by another tool would come out different:

# %%
raw = b'[{"role":"user","content":"Fix the flaky test."}]'
kept = from_json(raw)
normalized = [user_msg(blocks_of(m)) if m.role == "user" else assistant_msg(blocks_of(m)) for m in kept]
print("kept as given :", to_json(kept) == raw, to_json(kept).decode())
print("normalized    :", to_json(normalized) == raw, to_json(normalized).decode())

# %% [markdown] tags=["core"]
# ### I2. Why define `ThinkingBlock` before any feature uses thinking?
#
# The API signs each thinking block it returns and refuses a replayed one whose signature is missing or wrong, or
# whose latest turn was modified ([api-rules.md](../docs/api-rules.md)). If thinking is in the model from day one,
# storage, compaction and the engine carry it unchanged without knowing what it is. The proof: ask the local API with
# thinking on (its rule-based model opens with a signed thinking block, as the live API does), run the tool, save the
# session, load it, and send it back:

# %% tags=["core"]
THINKING = {"type": "enabled", "budget_tokens": 1024}
history = [user_text("Please read src/app.py")]
reply = client.messages.create(model=MODEL, max_tokens=2048, thinking=THINKING, tools=TOOLS, messages=to_api(history))
signature = reply.content[0].signature  # on purpose: the SDK's reply, not a Message
history.append(assistant_msg(blocks_from_api(reply.content)))
history.append(tool_result_msg([run_tool(REGISTRY, call) for call in tool_uses_of(history[-1])]))
with tempfile.TemporaryDirectory() as d:
    storage.save(Path(d, "session.jsonl"), history)
    loaded = storage.load(Path(d, "session.jsonl")).messages
print("loaded == saved:", loaded == history)
print("signature byte for byte:", blocks_of(loaded[1])[0].signature == signature)
sdk_block = reply.content[0].model_dump()  # on purpose: the SDK's reply, not a Message
print("block as the SDK returned it:", to_api(loaded)[1]["content"][0] == sdk_block)
reply = client.messages.create(model=MODEL, max_tokens=2048, thinking=THINKING, tools=TOOLS, messages=to_api(loaded))
answer = assistant_msg(blocks_from_api(reply.content))
print("sent back:", [b.type for b in blocks_of(answer)], text_of(answer))

# %% [markdown]
# None of storage, compaction or the engine mentions thinking at all; a count of every reference to `ThinkingBlock`,
# the string `"thinking"`, or a `.thinking`/`.signature` attribute in their code:

# %%
for module in ["storage", "compact", "engine"]:
    tree = ast.parse((Path(msgmodel.__file__).parent / "core" / f"{module}.py").read_text())
    refs = [n for n in ast.walk(tree)
            if (isinstance(n, ast.Name) and n.id == "ThinkingBlock")
            or (isinstance(n, ast.alias) and n.name == "ThinkingBlock")
            or (isinstance(n, ast.Constant) and n.value == "thinking")
            or (isinstance(n, ast.Attribute) and n.attr in ("thinking", "signature"))]
    print(f"msgmodel/core/{module}.py: {len(refs)} references to thinking")

# %% [markdown]
# A named type pays where code *does* need to know: with thinking enabled, the assistant message that opened the
# current tool loop must start with its thinking block, exactly as returned. Three ways careless code breaks that,
# each named by the validator:

# %%
opener = blocks_of(loaded[1])  # [thinking, text, tool_use]
variants = {
    "thinking dropped": [b for b in opener if b.type != "thinking"],
    "thinking moved after the text": [opener[1], opener[0], opener[2]],
    "signature lost": [msgspec.structs.replace(opener[0], signature=None), *opener[1:]],
}
for name, blocks in variants.items():
    v = validate([loaded[0], assistant_msg(blocks), loaded[2]], thinking="enabled")[0]
    print(f"{name:<30} {v.rule:<18} {str(v)[:70]}…")

# %% [markdown] tags=["core"]
# ### I3. Tagged union or class hierarchy?
#
# Both are classes (a msgspec `Struct` is a class); the real choice is a *closed* union versus an *open* base
# class. The same two kinds written both ways, as scratch modules we run *and* type-check. Both end with the same two
# functions, `tool_name` (narrows on the tag) and `render` (an exhaustive `match`):

# %% tags=["core"]
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


def load(name, source):  # run a scratch module's source: the same text type_check reads
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(source, module.__dict__)
    return module


union, classes = load("blocks_union", UNION), load("blocks_classes", CLASSES)

# %% [markdown]
# Serializing: msgspec writes the tag and reads it back, and an unknown tag fails with a JSON path. The hierarchy
# needs `to_dict`, `from_dict` and a registry, and an unknown or unregistered tag fails with a bare `KeyError`:

# %%
wire = msgspec.json.encode([union.Text("hi"), union.ToolUse(id="toolu_01", name="grep")])
print(wire.decode(), "→", msgspec.json.decode(wire, type=list[union.Block]))
for decode in (lambda: msgspec.json.decode(b'[{"type": "image"}]', type=list[union.Block]),
               lambda: classes.from_dict({"type": "image"})):
    try:
        decode()
    except (msgspec.ValidationError, KeyError) as e:
        print(f"{type(e).__name__}: {e}")

# %% [markdown] tags=["core"]
# Narrowing: what `mypy --strict` makes of the two modules (`type_check` names the function each error is in):

# %% tags=["core"]
type_check({"blocks_union": UNION, "blocks_classes": CLASSES}, functions=True)

# %% [markdown] tags=["core"]
# The union module is clean. In the hierarchy, `b.type == "tool_use"` does not narrow (`type` is a plain `str` on
# the base), so you write `isinstance` and keep tag and class in sync by hand; and `assert_never(b)` fails although
# every subclass has a case, because an open base class may have a third subclass in some other module. Declaring
# `AnyBlock = Text | ToolUse` fixes it, and then you have written a closed union.
#
# | | closed union (msgspec) | open class hierarchy |
# |---|---|---|
# | encode / decode | built in; the tag is a field | `to_dict`, `from_dict` and a registry, by hand |
# | unknown tag on decode | `ValidationError` naming `$[0].type` | bare `KeyError` |
# | `if b.type == ...` narrows | yes (Literal tags) | no; needs `isinstance` |
# | `match` + `assert_never` exhaustive | yes | no |
# | behaviour per kind | plain functions with `match` | methods (what a hierarchy is good at) |
#
# ### I4. What does it cost to add a block kind?
#
# One class, added to the union in `message.py`; then mypy lists every exhaustive `match` that must handle it. We
# measured it: a sixth class (a dummy `CitationBlock` with the usual `extra` field) added to `ContentBlock` in a
# scratch copy of the package, then `mypy --strict msgmodel` (10–50 s on this machine, too slow for a cell).
# It reported **7 errors in 4 files**, each an `assert_never` that now receives the new class:
#
# | file | function |
# |---|---|
# | `msgmodel/core/message.py` | `block_to_text`, `block_html`, `block_to_api` |
# | `msgmodel/api/server.py` | `_block_events` (the streaming writer) |
# | `msgmodel/api/limits.py` | `_generated`, `apply_limits` (what `max_tokens` counts and cuts) |
# | `msgmodel/course/exercises/ch00.py` | `_line` |
#
# The cell below finds the same list without running mypy: functions that `match` on the block classes and end in
# `assert_never`.

# %% tags=["core"]
BLOCK_CLASSES = {"TextBlock", "ThinkingBlock", "ToolUseBlock", "ToolResultBlock", "OpaqueBlock"}


def matches_every_block(f):
    nodes = list(ast.walk(f))
    return any(isinstance(n, ast.Call) and getattr(n.func, "id", "") == "assert_never" for n in nodes) and any(
        isinstance(n, ast.MatchClass) and getattr(n.cls, "id", "") in BLOCK_CLASSES for n in nodes)


PACKAGE = Path(msgmodel.__file__).parent
for path in sorted(PACKAGE.rglob("*.py")):
    if "assert_never(" in (source := path.read_text()):
        functions = [f for f in ast.walk(ast.parse(source)) if isinstance(f, ast.FunctionDef)]
        sites = [f.name for f in functions if matches_every_block(f)]
        if sites:
            print(f"{path.relative_to(PACKAGE.parent)}: {', '.join(sorted(sites))}")

# %% [markdown] tags=["core"]
# What mypy does *not* list is the rest of the cost, all in `message.py`, right below the classes: the codec's
# tables of the kinds it decodes (`_KNOWN_KINDS`, `_KNOWN_TYPES`, the runtime union `_KnownBlock`, one branch of
# `_convert_block`). A new kind with rules of its own (a pairing, say) also needs them in `protocol.py`. Readers
# that filter by `type` need nothing. Until anyone models the kind, `OpaqueBlock` already carries it unchanged.

# %% [markdown] tags=["core"]
# ### I5. Why are the blocks frozen?
#
# A block is a value many places share: a compacted history holds the same block objects as the saved one. With
# plain dicts, a "harmless" cleanup added months later, run on the compactor's window, edits the saved history too,
# including a signed thinking block, which the API then refuses:

# %% tags=["core"]
signed_text = "Check trailing spaces.  "
turn = assistant_msg([ThinkingBlock(signed_text, signature="c2ln"), TextBlock("Done.  ")])
saved = to_api([user_text("Tidy the README."), turn])  # plain dicts, as a dict-based agent keeps them
window = saved[-1:]  # the compactor's window: the same dict objects as `saved`
for block in window[0]["content"]:  # the cleanup
    for key in ("text", "thinking"):
        if key in block:
            block[key] = block[key].rstrip()
print("saved thinking is still the text that was signed:", saved[1]["content"][0]["thinking"] == signed_text)
saved = [user_text("Tidy the README."), turn]  # the same history as msgmodel values
try:
    blocks_of(saved[-1])[1].text = "Done."
except AttributeError as e:
    print("the same cleanup on frozen blocks: AttributeError:", e)

# %% [markdown] tags=["core"]
# Frozen turns the bug into an error at the line that tries; a correct cleanup builds new blocks with
# `msgspec.structs.replace`. Frozen is shallow (chapter 04's pitfalls).
#
# ### I6. Where does validation belong?
#
# At the boundary, once: `from_json`/`from_api` check the shape with a `DecodeError` naming the path; past that, no
# function re-checks it (re-checking everywhere would copy the knowledge N times again, chapter 03's disease). The
# API's protocol rules are a separate layer, `validate`, run before sending or after loading. This history is
# well-formed, and no API would accept it:

# %% tags=["core"]
well_formed = from_json(
    b'[{"role":"user","content":"hi"},'
    b'{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"3 matches"}]}]'
)
print("decoded:", [m.role for m in well_formed], "| validate:", validate(well_formed)[0])

# %% [markdown]
# ### I7. Why not LangChain's `start_on="human"`? · I8. Why does the validator use the API's exact wording?
#
# Chapter 01 told the `start_on="human"` story: a tool result travels *inside* a user message in Anthropic's shape,
# so "start at the first user message" can start on an orphan. Here is the port on a generated session, and the
# second question's evidence: `str(v)` is the API's text byte for byte, so a local failure, a production failure and
# the public bug reports can be found with one search. (The local API runs this same validator, so equality here
# shows the plumbing; chapter 01's live-API table compares it with captured live answers.)

# %%
session = synth_session(13, seed=0)
naive = next(i for i in range(len(session) - 5, len(session)) if session[i].role == "user")
v = validate(session[naive:])[0]
try:
    client.messages.create(model=MODEL, max_tokens=512, tools=TOOLS, messages=to_api(session[naive:]))
    api_text = "(no error: the request was accepted)"
except anthropic.BadRequestError as err:
    api_text = err.body["error"]["message"]
print(f"start_on='human' port starts at message {naive}: {session[naive].role}, "
      f"{[b.type for b in blocks_of(session[naive])]}")
print("str(v) == the API's text:", str(v) == api_text)
print("rule:", v.rule, "| path:", v.path, "| hint:", v.hint)

# %% [markdown]
# ### I9. Repair, or reject? · I10. How do you test an invariant like "a clean start is always a valid start"?
#
# Reject by default; repair only on request, with a report: chapter 05, section 7 shows `repair` and its notes, and
# its follow-ups tell pydantic-ai's silent repair, the other choice. One more promise: `repair` never edits, moves or
# drops a thinking block. The signed turn from I2, cut right after its tool call, gets an answer for the dangling
# call while its thinking block stays the very same object. (I10's evidence, a property that finds and shrinks a
# counterexample, is chapter 05, section 6.)

# %%
fixed, notes = repair(loaded[:2])  # [user, assistant [thinking, text, tool_use]]: the result is missing
print([note.kind for note in notes], "| thinking block untouched:", blocks_of(fixed[1])[0] is blocks_of(loaded[1])[0])

# %% [markdown]
# ### I11. What happens to a kind the model does not know? · I12. Why an `extra` field? · I13. Why msgspec?
#
# An unknown kind becomes an `OpaqueBlock` and round-trips byte for byte; fields the API adds to known kinds
# (`cache_control`, `citations`) are kept in `extra` and written back flat: both shown in chapter 04, section 7.
# msgspec gives frozen structs whose tag is part of the class, decoding JSON bytes straight into the union; that is
# a preference, not a law, and chapter 07 measures it against pydantic and dataclasses.
#
# ### I14. Why not let the API compact for you?
#
# The API's server-side compaction (a `compaction` block: a summary plus `encrypted_content` to send back verbatim)
# and context editing are good tools, and using them is a fine answer. The costs: beta features of one provider, a
# summary whose contents you do not choose, an encrypted part your code cannot read, and histories you load or send
# elsewhere still need a client-side answer. No conflict with this model: a `compaction` block is one more kind
# msgmodel does not interpret (sources: [anchors.md](../docs/anchors.md), section 1.1):

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
# ### I15. Messages or tokens: what should a compaction budget count?
#
# Tokens: the window and the bill are in tokens, and one tool result holding a file can outweigh forty chat turns.
# The engine takes a message budget (`compact_at_messages`, cheap) and `compact_at_chars` (the history's JSON
# length, a local stand-in for tokens); `client.messages.count_tokens(...)` is exact, at the price of a round trip.
# Two five-message histories:

# %%
def read_turn(result):
    call = ToolUseBlock(id="toolu_01", name="read_file", input={"path": "src/app.py"})
    answer = tool_result_msg([tool_result_block("toolu_01", result)])
    return [user_text("Read it"), assistant_msg([call]), answer, assistant_msg([TextBlock("Done.")]), user_text("Next")]


big_file = "\n".join(f"    retries = retries + {i}  # line {i}" for i in range(2_000))
for name, h in [("short result", read_turn("x = 1")), ("2 000-line file", read_turn(big_file))]:
    tokens = client.messages.count_tokens(model=MODEL, tools=TOOLS, messages=to_api(h)).input_tokens
    print(f"{name:<16} messages: {len(h)}  JSON chars: {len(to_json(h)):>6,}  input_tokens: {tokens:>6,}")
print(EngineConfig(compact_at_messages=None, compact_at_chars=200_000))

# %% [markdown]
# (The local API estimates tokens as a quarter of the request's JSON bytes; the live endpoint uses the real
# tokenizer, so its numbers differ, not the lesson.)
#
# ## Pitfalls and trade-offs
#
# * **Two shapes mean two branches.** Keep the string branch in the readers; code that walks `.content` itself
#   forgets it (exercise 06.1).
# * **Exhaustiveness only covers `match`.** mypy flags a new kind only where a `match` ends in `assert_never`
#   (I4); an `if b.type == ...` chain with a fallback stays silent. Right for a filter, wrong for a serializer.
# * **Opaque means uninterpreted.** An `OpaqueBlock` survives, but no code reasons about it; a new *paired* kind
#   needs a rule in the validator, not just a round trip.
# * **A local validator has a ceiling.** It cannot check that a signature is genuine, or that the latest turn's
#   thinking was left untouched. Only the API can.
# * **Mirroring the wording is a maintenance duty.** When the API rewords an error, the texts must follow it; the
#   rule ids stay stable.
#
# ## vs. the real source
#
# The original's answers are in TypeScript: `typeof m.content === "string"` for I1, `switch` narrowing for I3, and
# for I4 "the `default` branch or the compiler (if exhaustiveness checking is on)". Its I4 answer is the one this
# chapter measured, with the caveat that mypy only lists `match`es that end in `assert_never`. The installed SDK
# makes the same two choices as I1 and I2: `content` is a string or a list (the I1 cell), and its thinking block
# cannot be built without a signature:

# %%
from anthropic.types import ThinkingBlock as SDKThinkingBlock

print({name: f.is_required() for name, f in SDKThinkingBlock.model_fields.items()})

# %% [markdown]
# What other libraries chose for each question: [docs/survey.md](../docs/survey.md#chapter-06).

# %% [markdown] tags=["core"]
# ## One-line summary
#
# **Every choice in the message model (two content shapes, thinking modelled early, a closed tagged union, frozen
# values, validation at the boundary, repair only on request) can be defended in one sentence and proved in one
# cell, and that is what an interviewer is testing.**

# %% [markdown]
# ## Exercises
#
# Each checker says "not attempted yet" until you replace the placeholder. Stuck? `hint("06.1")`, then
# `hint("06.1", 2)`, then `reveal("06.1", confirm=True)`.
#
# **Self-check quiz.** Seven questions. In JupyterLab pick an answer and press **Check** (a running kernel is
# needed); a static page folds each answer under "Show the answer".

# %%
from msgmodel.course.exercises import check, hint, reveal
from msgmodel.course.exercises.ch06 import QUIZ, prediction_cases
from msgmodel.course.widgets import Question, Quiz

quiz = Quiz([Question(q.prompt, q.options, q.answer, q.explain, q.hints) for q in QUIZ], title="06 · Self-check")
quiz

# %% [markdown]
# **06.1 Pair every call with its answer.** Write `pairs_of(messages)`: for every `tool_use` block in the history,
# in order, the pair `(call, result)`, where `result` is the `tool_result` block whose `tool_use_id` is the call's
# `id`, or `None` when the call was never answered. A result whose call is not in the history is left out, and so
# are server tool blocks (`OpaqueBlock`s, not `tool_use`). Use the readers.

# %%
def pairs_of(messages):
    ...  # your code here


check("06.1", pairs_of)

# %% [markdown]
# **06.2 Predict the API's answer.** Six short histories about thinking and server tools. Each request defines tools,
# and "thinking" says whether it enables extended thinking. Will the API answer 200 or 400? Decide before you run
# anything, then replace `None` with a dict such as `{"A": 200, "B": 400, ...}`.

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


for label, (h, thinking) in prediction_cases().items():
    print(f"{label}  (thinking {thinking or 'off'})")
    for i, m in enumerate(h):
        print(f"     {i} {m.role:<9} [{', '.join(describe(b) for b in blocks_of(m))}]")

# %%
predictions = None  # your answer: {"A": 200 or 400, "B": ..., ..., "F": ...}
check("06.2", predictions)

# %% [markdown]
# **06.3 Rename in the visible text, and only there.** Write `rename_in_text(messages, old, new)`: a **new** history
# in which `old` is replaced by `new` in every text block and in string content. Every other block stays as it is:
# thinking (it is signed), tool calls and tool results. The input must not change, and a text block's `extra`
# (`cache_control`) must survive.

# %%
def rename_in_text(messages, old, new):
    ...  # your code here


check("06.3", rename_in_text)
