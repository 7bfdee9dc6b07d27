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
# *The interviewer now pushes on every decision in the model: practise the answers, then check each against a
# cell.*
#
# ## What
#
# The original step-31 tutorial asks four follow-up questions, I1–I4 here; this chapter adds eleven, I5–I15. The
# drill gives every model answer; the core route backs I1–I6 with a cell each, the optional cells I7–I15.
#
# ## Why
#
# **"Fine, you built a type module. Now tell me why each decision in it is right."**
#
# A follow-up tests whether you know what a design and its alternatives cost, and how you would *show* it: a
# one-sentence position, the reason, and evidence anyone can check.

# %% [markdown] tags=["core"]
# ## How
#
# ### The drill
#
# Write your answer first, then open the model answer: its key points, in order. Without a widget (static page,
# slides, text view) each answer follows its question.

# %% tags=["core"]
from msgmodel.course.exercises.ch06 import DRILL
from msgmodel.course.widgets import InterviewDrill

InterviewDrill(DRILL)

# %% [markdown] tags=["core"]
# ## Follow-up questions: the evidence
#
# Each drill answer, backed by a cell (or by the chapter whose cell does).
#
# ### I1. Why is `content` a `str | list`, and not always a list of blocks?
#
# Both shapes are on the wire: the SDK's own type, and a 200 for each:

# %% tags=["core"]
import typing

from anthropic.types.message_content_param import MessageContentParam

from msgmodel import assistant_msg, blocks_from_api, blocks_of, to_api, tool_result_msg, tool_uses_of, user_text
from msgmodel.api import local_client

MODEL, client = "claude-sonnet-4-6", local_client()  # the local API's rule-based model answers
string_shape, list_shape = typing.get_args(MessageContentParam)
print("SDK: content is a", string_shape.__name__, "or an", typing.get_origin(list_shape).__name__, "of blocks")
for name, content in [("string", "What is 6 * 7?"), ("blocks", [{"type": "text", "text": "What is 6 * 7?"}])]:
    reply = client.messages.create(model=MODEL, max_tokens=256, messages=[{"role": "user", "content": content}])
    print(f"{name:>6} content -> 200, stop_reason {reply.stop_reason!r}")

# %% [markdown]
# Why not turn every string into `[TextBlock(...)]` on the way in? Then the model would no longer return what it was
# given, and a session written by another tool would come out different:

# %%
from msgmodel import from_json, to_json, user_msg

raw = b'[{"role":"user","content":"Fix the flaky test."}]'
kept = from_json(raw)
normalized = [user_msg(blocks_of(m)) if m.role == "user" else assistant_msg(blocks_of(m)) for m in kept]
print("kept as given :", to_json(kept) == raw, to_json(kept).decode())
print("normalized    :", to_json(normalized) == raw, to_json(normalized).decode())

# %% [markdown] tags=["core"]
# ### I2. Why define `ThinkingBlock` before any feature uses thinking?
#
# Thinking passes through unchanged: the local API (with thinking on, its model opens with a signed thinking block;
# it checks structure, not signatures) answers, the tool runs, `msgmodel.core.storage` (chapter 05's) saves the
# session file and loads it back (`storage.load` returns a result whose `.messages` is the history), and it goes back:

# %% tags=["core"]
import tempfile
from pathlib import Path

from msgmodel.api import demo_registry
from msgmodel.core import storage
from msgmodel.core.tools import run_tool, tools_param

REGISTRY = demo_registry()
TOOLS, THINKING = tools_param(REGISTRY), {"type": "enabled", "budget_tokens": 1024}
history = [user_text("Please read src/app.py")]
reply = client.messages.create(model=MODEL, max_tokens=2048, thinking=THINKING, tools=TOOLS, messages=to_api(history))
history.append(assistant_msg(blocks_from_api(reply.content)))
history.append(tool_result_msg([run_tool(REGISTRY, call) for call in tool_uses_of(history[-1])]))
with tempfile.TemporaryDirectory() as d:
    storage.save(Path(d, "session.jsonl"), history)
    loaded = storage.load(Path(d, "session.jsonl")).messages
as_returned = to_api(loaded)[1]["content"][0] == reply.content[0].model_dump()  # on purpose: the SDK's reply
print("loaded == saved:", loaded == history, "| thinking as returned:", as_returned)
reply = client.messages.create(model=MODEL, max_tokens=2048, thinking=THINKING, tools=TOOLS, messages=to_api(loaded))
print("sent back, answered:", [b.type for b in blocks_from_api(reply.content)])

# %% [markdown]
# None of storage, compaction or the engine mentions thinking at all; a count of every reference to `ThinkingBlock`,
# the string `"thinking"`, or a `.thinking`/`.signature` attribute in their code:

# %%
import ast

import msgmodel

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
import msgspec

from msgmodel.core.protocol import validate

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
# Chapter 04, section 6 showed the union narrowing; the new angle is the open base class. Two kinds as a closed
# union with `Literal` tags and as a dataclass `Block` with a `str` tag and two subclasses (both printed in an
# optional cell below), each with `tool_name` and an exhaustive `render`, under `mypy --strict`:

# %% tags=["core"]
from msgmodel.course.options import CLASSES_SOURCE, UNION_SOURCE
from msgmodel.course.teaching import type_check

type_check({"blocks_union": UNION_SOURCE, "blocks_classes": CLASSES_SOURCE}, functions=True)

# %% [markdown] tags=["core"]
# Only the hierarchy fails: a `str` tag does not narrow, and `assert_never` fails though every subclass has a case,
# as an open base class may have a third elsewhere. Declaring `Text | ToolUse` fixes it: a closed union.
#
# | | closed union (msgspec) | open class hierarchy |
# |---|---|---|
# | encode / decode | built in; the tag is a field | `to_dict`, `from_dict`, a registry, by hand |
# | unknown tag on decode (run below, optional) | error at `$[0].type` | bare `KeyError` |
# | narrowing, `assert_never` | yes | no |
# | behaviour per kind | functions with `match` | methods (a hierarchy's strength) |

# %%
from msgmodel.course.options import CLASSES_SOURCE, UNION_SOURCE
from msgmodel.course.teaching import side_by_side

titles = ("closed union (msgspec structs)", "open hierarchy (dataclasses)")
side_by_side(UNION_SOURCE.split("\ndef ")[0], CLASSES_SOURCE.split("\ndef ")[0], titles, width=56)

# %% [markdown]
# The serializing rows, run: msgspec writes the tag and reads it back, and an unknown tag fails with a JSON path; the
# hierarchy's `from_dict` fails with a bare `KeyError`:

# %%
from msgmodel.course.options import load

union, classes = load("blocks_union", UNION_SOURCE), load("blocks_classes", CLASSES_SOURCE)
wire = msgspec.json.encode([union.Text("hi"), union.ToolUse(id="toolu_01", name="grep")])
print(wire.decode(), "→", msgspec.json.decode(wire, type=list[union.Block]))
for decode in (lambda: msgspec.json.decode(b'[{"type": "image"}]', type=list[union.Block]),
               lambda: classes.from_dict({"type": "image"})):
    try:
        decode()
    except (msgspec.ValidationError, KeyError) as e:
        print(f"{type(e).__name__}: {e}")

# %% [markdown] tags=["core"]
# ### I4. What does it cost to add a block kind?
#
# mypy names every `match` ending in `assert_never` that must handle the new class: **6 errors in 3 files**, the
# functions this `ast` scan lists (`tests/test_layout.py` adds a sixth class to a copy and runs mypy to check exactly
# these; `limits.py` and `server.py` are the local API's output-token limits and streaming).

# %% tags=["core"]
import msgmodel
from msgmodel.course.knowledge import exhaustive_block_matches

for file, functions in exhaustive_block_matches(Path(msgmodel.__file__).parent, exclude=["course"]).items():
    print(f"{file}: {', '.join(functions)}")

# %% [markdown] tags=["core"]
# mypy does *not* list the codec's tables of kinds, below the classes in `message.py`, nor, for a paired kind,
# `protocol.py`. Readers that filter by `type` need nothing; until then `OpaqueBlock` carries the kind.
#
# ### I5. Why are the blocks frozen?
#
# A compacted history holds the saved one's block objects. With plain dicts, a cleanup of the compactor's window
# edits the saved history too, signed thinking included:

# %% tags=["core", "demo"]
from msgmodel import TextBlock, ThinkingBlock

signed_text = "Check trailing spaces.  "
turn = assistant_msg([ThinkingBlock(signed_text, signature="c2ln"), TextBlock("Done.  ")])
saved = to_api([user_text("Tidy the README."), turn])  # plain dicts, as a dict-based agent keeps them
window = saved[-1:]  # the compactor's window: the same dict objects as `saved`
for block in window[0]["content"]:  # the cleanup
    block.update({key: value.rstrip() for key, value in block.items() if key in ("text", "thinking")})
print("saved thinking is still the text that was signed:", saved[1]["content"][0]["thinking"] == signed_text)
try:  # the same cleanup on the msgmodel values
    blocks_of(turn)[1].text = "Done."
except AttributeError as e:
    print("the same cleanup on frozen blocks: AttributeError:", e)

# %% [markdown] tags=["core"]
# A correct cleanup builds new blocks with `msgspec.structs.replace`.
#
# ### I6. Where does validation belong?
#
# Two layers: `from_json` refuses a bad shape (chapter 04); chapter 01's orphan has a good shape, so it decodes,
# and `validate` names the rule it breaks:

# %% tags=["core"]
from msgmodel import from_json
from msgmodel.core.protocol import validate

well_formed = from_json(
    b'[{"role":"user","content":"hi"},'
    b'{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"3 matches"}]}]'
)
v = validate(well_formed)[0]
print("decoded:", [m.role for m in well_formed], "| validate:", v.rule, "at", v.path, "→ a 400 if sent")

# %% [markdown]
# ### I7. Why not LangChain's `start_on="human"`? · I8. Why does the validator use the API's exact wording?
#
# Chapter 01 told the `start_on="human"` story: a tool result travels *inside* a user message in Anthropic's shape,
# so "start at the first user message" can start on an orphan. Here is the port on a generated session, and the
# second question's evidence: `str(v)` is the API's text byte for byte, so a local failure, a production failure and
# the public bug reports can be found with one search. (The local API runs this same validator, so equality here
# shows the plumbing; chapter 01's live-API table compares it with captured live answers.)

# %%
import anthropic

from msgmodel.course.synth import synth_session

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
from msgmodel.core.compact import repair

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
from msgmodel import block_to_text

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
from msgmodel import ToolUseBlock, tool_result_block
from msgmodel.core.engine import EngineConfig


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
# The original's answers are in TypeScript: `typeof m.content === "string"` for I1, `switch` narrowing for I3. Its
# I3 argues from data: blocks are plain objects bound for JSON, and classes would bring instances, `instanceof` and
# serialization work. This series asks I3 as closed against open instead, because in Python msgmodel's blocks *are*
# class instances (msgspec structs) and msgspec does the serialization: what is left of the choice is the closing. For
# I4 it says the change stays in `message.ts` and that "the `default` branch or the compiler (if exhaustiveness
# checking is on)" points at every place to handle. Measured here, only the exhaustiveness check points (a `default`
# branch compiles silently: chapter 04, section 6), and the places it points at are in three files of the library,
# not one. The installed SDK
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
# values, validation at the boundary) can be defended in one sentence and proved in one cell, and that is what an
# interviewer is testing.**

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
from msgmodel.course.exercises.ch06 import BOUNDARY_CASES, QUIZ
from msgmodel.course.widgets import Question, Quiz

quiz = Quiz([Question(q.prompt, q.options, q.answer, q.explain, q.hints) for q in QUIZ], title="06 · Self-check")
quiz

# %% [markdown]
# **06.1 Pair every call with its answer.** Write `pairs_of(messages)`: for every `tool_use` block in the history,
# in order, the pair `(call, result)`, where `result` is the `tool_result` block whose `tool_use_id` is the call's
# `id`, or `None` when the call was never answered. A result whose call is not in the history is left out, and so
# are server tool blocks (`OpaqueBlock`s, not `tool_use`). Use the readers.
#
# *Goal:* Answer a classic interview task with the readers: pairing by id, whatever order and shape the history has.

# %%
def pairs_of(messages):
    ...  # your code here


check("06.1", pairs_of)

# %% [markdown]
# **06.2 What survives the boundary?** Seven documents, as a session file could hold them. For each, will
# `from_json` keep it (decode it and write it back unchanged) or refuse it with a `DecodeError`? Decide before you
# run anything, then replace `None` with a dict such as `{"A": "kept", "B": "refused", ...}`.
#
# *Goal:* Know what the one model does at its edge: keep every kind and field it does not interpret, refuse what it
# cannot read with a path, so the code inside never sees a half-valid block.

# %%
for label, document in BOUNDARY_CASES.items():
    print(label, document)

# %%
verdicts = None  # your answer: {"A": "kept" or "refused", "B": ..., ..., "G": ...}
check("06.2", verdicts)

# %% [markdown]
# **06.3 Rename in the visible text, and only there.** Write `rename_in_text(messages, old, new)`: a **new** history
# in which `old` is replaced by `new` in every text block and in string content. Every other block stays as it is:
# thinking (it is signed), tool calls and tool results. The input must not change, and a text block's `extra`
# (`cache_control`) must survive.
#
# *Goal:* Change a history without breaking what the model keeps for you: frozen blocks, signed thinking, extra.

# %%
def rename_in_text(messages, old, new):
    ...  # your code here


check("06.3", rename_in_text)
