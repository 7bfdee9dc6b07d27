# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown] tags=["core"]
# # 03 · The root cause: no owner for a message's shape
#
# *[Chapter 01](01_orphan_tool_result.ipynb) found the orphan `tool_result` (step 29), [chapter
# 02](02_lost_tool_context.ipynb) the `(tool call)` summary (step 30). Each was fixed where it showed up. This chapter
# stops fixing and starts measuring: what do the two bugs have in common, and how many more wait in the same code?*

# %% [markdown] tags=["core"]
# ## What
#
# An `ast` scanner counts every place in the legacy package that knows, by hand, what a content block looks like.
# We give one input to three functions that answer the same question, trace which copies run on which path of the
# agent, and run mypy to see what `list[dict[str, Any]]` hides.

# %% [markdown] tags=["core"]
# ## Why
#
# **"You fixed the orphan `tool_result` and the `(tool call)` summary where each one showed up. Why do you say the
# two bugs have one root cause?"**
#
# On the surface they have nothing in common: a loud 400 after compaction, a silent summary. Both touch a *question
# about the shape of a message*: "may a history start here?" needs to know that tool results travel inside user
# messages, "what did this turn do?" how to render each kind of block. The common cause: **no module owned the
# knowledge of a message's shape.** One module lacked it: step 29's slicing asked nobody where a tool answer lives
# (copy #1 is its patch). Another answered wrongly: step 30's summarizer had its own copy, which renders every tool
# block as `(tool call)`. Copies are what a missing owner produces, and each local fix added one more. `Any` switches
# the type checker off, so every copy compiles and the simple path works: the cost waits on the complex paths.

# %% [markdown] tags=["core"]
# ## How
#
# ### 1. The original's list of copies, and how many
#
# The original step-31 tutorial lists the private answers left after step 30, each replaced in step 31 by an import
# of `message.ts`; the middle column is our illustration (chapter 01, section 2):
#
# | The original, before step 31 | `msgmodel.course.legacy` | The question it answers |
# |---|---|---|
# | `compact.ts`: `isCleanUserStart` | `compact29._is_clean_user_start`, copy #1 | Is this user message a tool result? |
# | `compact.ts`: `extractText` | `summary30._message_text`, step 30's bug | How should a reader see a block? |
# | `compact.ts`: `blockToText` | `summary30._block_to_text`, copy #2 | the same, step 30's fix |
# | `QueryEngine.ts`: `{type: "tool_result"}` | `QueryEngine.submit`'s dicts: the slip | What does a result look like? |
# | `api.ts`: reads text itself | `api.extract_text`, copy #3 | What is a message's text? |
# | `storage.ts`: `any[]` | `storage`: `json.dump` of the list | none: nothing looks at a block |
#
# **How many copies?** The original says "N" and lists **five** (`storage.ts` holds untyped data, no copy): copies
# #1–#3, step 30's wrong one and the slip. Our exhibit, counted finer by the scanner below: **34 sites** (a line that
# spells a shape by hand) in **11 functions**.
#
# ### 2. Measure the copying
#
# `scan_block_knowledge` reads source with `ast` and reports a site wherever code spells out a block shape itself: a
# kind compared (`kind-test`), a field read by name (`wire-key`), a block or message built as a dict
# (`block-literal`, `message-literal`).

# %% tags=["core"]
import msgmodel.course.legacy as legacy
from msgmodel.course.knowledge import describe, scan_block_knowledge, tabulate

sites = scan_block_knowledge(legacy)
print(describe(sites).splitlines()[0])  # the headline; the optional cells below break it down
kind_spellings = [s for s in sites if s.kind in ("kind-test", "block-literal")]
tabulate(kind_spellings, rows="function", columns="detail")

# %% [markdown] tags=["core"]
# The copies in one table: `"tool_result"` is spelled by hand in three functions of three modules, `"text"` in
# three functions of two, `"tool_use"` in two, each comparing the raw string itself (field names and message
# literals make up the other sites, in the optional cells below). `storage` holds no site: it saves with `json.dump`
# and loads with `json.load`, so nothing looks at a block on the way out or in:

# %% tags=["core"]
import inspect

from msgmodel.course.legacy import storage

print(inspect.getsource(storage.load))

# %% [markdown]
# Counting the field names too (message literals left out):

# %%
tabulate([s for s in sites if s.kind != "message-literal"], rows="detail", columns="module")

# %% [markdown]
# `"content"` six times in four modules, `"text"` six times. Each is a place that must agree with the API and with
# every other place; a protocol change means finding all of them by hand.
#
# **What each copy is for.** The scanner files each site under its *piece* of knowledge, the question the code around
# it answers (a dict literal builds a block or a message; other sites take the piece of their function, from the
# block kinds it tests):

# %%
print(describe(sites))

# %% [markdown]
# Each piece is private to one module (compaction alone knows where a tool result hides, the engine alone how to
# answer tool calls, the summarizer alone how to render each kind), while the wire names they rest on are spelled in
# many.
#
# The smallest piece holds the sharpest example, the `toolUseId` slip of
# [chapter 02](02_lost_tool_context.ipynb#6.-The-toolUseId-slip): the piece "build a block" lives twice in one
# function, three lines apart, and the copies disagree:

# %%
for s in sites:
    if s.piece == "build a block":
        print(f"{s.where:14} {s.code}")

# %% [markdown] tags=["core"]
# ### 3. The same knowledge, written three ways
#
# "What is the text of a message?" is answered three times: by the api layer's `extract_text` (copy #3), the
# compactor's own `_message_text` (the step-30 bug) and the step-30 fix's `_block_to_text` (copy #2). (An optional
# cell below prints their source side by side.)

# %%
from msgmodel.course.legacy import api, summary30
from msgmodel.course.teaching import side_by_side

left = inspect.getsource(api.extract_text) + "\n" + inspect.getsource(summary30._message_text)
titles = ("copy #3: api.extract_text; the bug: summary30._message_text", "copy #2: summary30._block_to_text")
side_by_side(left, inspect.getsource(summary30._block_to_text), titles, width=60)

# %% [markdown] tags=["core"]
# Three spellings of one idea, with small differences and real behaviour. Give all three the same assistant turn
# (two text blocks and a tool call), and the authority's `text_of` as well:

# %% tags=["core"]
from msgmodel import TextBlock, ToolUseBlock, assistant_msg, text_of, to_api
from msgmodel.course.legacy import api, summary30

turn = assistant_msg([TextBlock("Let me check."), TextBlock("Reading the config now."),
                      ToolUseBlock("toolu_01", "read_file", {"path": "src/config.py"})])
(wire,) = to_api([turn])
answers = {"copy #3 (api)": api.extract_text(wire), "the step-30 bug": summary30._message_text(wire),
           "copy #2 (fixed transcript)": summary30.transcript_fixed([wire]),
           "msgmodel.text_of": text_of(turn)}
for who, text in answers.items():
    print(f"{who:27} {text!r}")

# %% [markdown] tags=["core"]
# Copy #3 and the authority agree, joining text blocks with nothing between, by design (as a client printing the
# streamed deltas shows them). The summarizer's two copies differ (copy #2 is a transcript, so partly by design), and
# which one runs depends on the compactor: nobody decided that.
#
# ### 4. Where the cost lands: the copies run on the complex paths
#
# That `Any` *defers* the cost can be measured. `trace_paths` runs the legacy engine five ways under a line tracer
# (`sys.settrace`): a plain question, a tool round, a tool that fails, and a compacted session, with the original
# compactor and with the local fixes of chapters 01 and 02. On which paths does each copy and each bug run?

# %% tags=["core"]
from msgmodel.course.legacy.harness import trace_paths

paths = trace_paths(sites)


def first_site(function):
    return next(s for s in sites if s.function == function)


watched = {"the slip": next(s for s in sites if "toolUseId" in s.code and s.kind == "block-literal"),
           "the (tool call) transcript": first_site("_message_text"), "copy #1": first_site("_is_clean_user_start"),
           "copy #2": first_site("_block_to_text"), "copy #3": first_site("extract_text")}
for name, site in watched.items():
    print(f"{name:27} runs on: {', '.join(path for path, ran in paths.items() if site in ran)}")
print("of these, on the plain path:", [name for name, site in watched.items() if site in paths["plain"]])

# %% [markdown] tags=["core"]
# The slip, the `(tool call)` transcript and the two local fixes run only on the failing-tool and compaction paths,
# which a demo, a smoke test or a short session never takes. Only copy #3 runs on the plain path, and it agrees with
# the authority (section 3). It misses the failing-tool path because it reads the model's final reply, and there the
# slip's 400 comes first. (The optional cell below prints the full grid.)

# %%
from msgmodel.course.legacy.harness import reach_table

print(reach_table(sites, paths))  # api.create_message holds knowledge: it turns the SDK's reply into a dict by hand

# %% [markdown] tags=["core"]
# That is the original tutorial's sentence made measurable: the cost of `any` is pushed to "compaction, summaries,
# multi-turn round trips", where it lands all at once.

# %% [markdown] tags=["core"]
# ### 5. What the type checker sees
#
# Could a tool have caught chapter 02's slip before it ran? `msgmodel.course.teaching.type_check` runs `mypy --strict`
# on snippets in a scratch folder: the engine's two result dicts, typed `dict[str, Any]` as the engine types them
# (`loop_any`), and as a `TypedDict` naming the block's fields, like the SDK's `ToolResultBlockParam` (`loop_typed`).
# `RESULT` stands for the annotation; nothing else changes.

# %% tags=["core", "demo"]
from msgmodel.course.teaching import type_check

LOOP = """\
from typing import Any, NotRequired, TypedDict

class ToolResultParam(TypedDict):
    type: str
    tool_use_id: str
    content: str
    is_error: NotRequired[bool]

def results(call: dict[str, Any], output: str, error: str) -> list[RESULT]:
    return [{"type": "tool_result", "tool_use_id": call["id"], "content": output},
            {"type": "tool_result", "toolUseId": call["id"], "content": error, "is_error": True}]
"""
type_check({"loop_any": LOOP.replace("RESULT", "dict[str, Any]"),
            "loop_typed": LOOP.replace("RESULT", "ToolResultParam")})

# %% [markdown] tags=["core"] holdback=["Not a word on…correctly so", "On `loop_typed`,…anything runs."]
# Not a word on `loop_any`, and correctly so: `dict[str, Any]` *means* "any string key, any value". On `loop_typed`,
# line 11, the error path's dict: mypy reports the missing `tool_use_id` and the stray `toolUseId` before anything runs.
#
# **Where this series parts from the original.** The original says one authoritative definition stops structural
# errors "at compile time, and the bug disappears at the source". That holds for the slip, a misspelled shape. The
# orphan and the `(tool call)` summary are well-typed wrong answers, so this series adds what a type checker cannot
# give: readers written once (chapter 04), a validator and property tests (chapter 05).

# %% [markdown] tags=["core"]
# ### 6. The question chapter 04 answers
#
# Every legacy module talks to the same `list[dict[str, Any]]` with its own copy of what it needs. So
# [chapter 04](04_unified_model.ipynb) asks: **what would one authority look like?** What the measurements say it
# must provide:
#
# | The measurement | What the authority must provide |
# |---|---|
# | each block kind spelled by hand in 2–3 functions | one module that owns the shapes; the others import it |
# | 3 readers of "the text" that disagree | one reader per question (`text_of`, `block_to_text`, ...) |
# | `"tool_result"` spelled by hand, unchecked | block types with a `type` tag mypy knows |
# | two `tool_result` dicts, one slipped | constructors, so nobody writes a block as a dict |
# | `json.load` checks nothing | a decoder at the boundary that names the bad path |
# | bugs wait on compaction and failing tools | every path calls the same, already-tested readers |

# %% [markdown]
# ## Follow-up questions
#
# **"Would a `TypedDict` have prevented both bugs?"** No, and this answer separates a careful candidate. A type
# catches a *misspelled* shape like `toolUseId`; it does not catch a *wrong answer* in well-typed code. Type the
# step-30 renderer's blocks with TypedDicts and mypy accepts the `(tool call)` bug without a word:

# %%
type_check('''\
from typing import Literal, TypedDict

Text = TypedDict("Text", {"type": Literal["text"], "text": str})
ToolUse = TypedDict("ToolUse", {"type": Literal["tool_use"], "id": str, "name": str})

def message_text(content: list[Text | ToolUse]) -> str:
    return " ".join(b["text"] if b["type"] == "text" else "(tool call)" for b in content)
''')

# %% [markdown]
# The orphan is no different: `history[-keep:]` is as well-typed as a slice can be. Types remove one class of bug
# (shapes nobody checks); the other (divergent answers) goes away only when each question has one answer everybody
# calls. That is why chapter 04 ships *readers* with its types.
#
# **"When do you consolidate?"** The original tutorial's rule: when the same knowledge has been copied at least twice
# *and* the copies have already caused a bug. Both hold here. Before that, an abstraction is a guess about which
# knowledge will be shared (chapter 07 returns to the cost of consolidating too early).
#
# **"Why not keep the copies and test each one well?"** Tests multiply with copies: three text readers need three
# sets of tests, each re-checked whenever the protocol changes, and a suite would have pinned each one's behaviour,
# disagreements included. One reader needs one set, and every caller inherits it.
#
# **"Is `dict[str, Any]` ever the right type for messages?"** At the boundary, briefly: what `json.load` returns *is*
# untyped until it is decoded. Decode once at the edge, with a decoder that names the bad path, and pass typed
# messages everywhere inside.

# %% [markdown]
# ## Pitfalls and trade-offs
#
# - **The scanner is a lower bound, and a little noisy.** It reads literals, so knowledge reached through a constant
#   or a helper is invisible to it, while an unrelated `mode == "text"` would be counted. A measuring stick, not a
#   proof:

# %%
from msgmodel.course.knowledge import scan_source

hidden = '''\
TYPE, TOOL_RESULT = "type", "tool_result"
def is_result(b):
    return b.get(TYPE) == TOOL_RESULT
'''
print("sites found in a copy spelled through constants:", len(scan_source(hidden)))

# %% [markdown]
# - **Counting sites is not weighing them.** "Build a message" appears six times and is nearly harmless; "tell a tool
#   result" lives in one small function, and it carried a production 400.
# - **A `TypedDict` is static only.** Data from `json.load` or the network is not checked at run time, and a `cast`
#   silences mypy. You still need a decoder at the boundary.
# - **Types do not stop new copies.** Nothing prevents the next module from writing its own
#   `{"type": "tool_result", ...}`; the scanner above can run as a test over every module but the authority.
# - **Consolidating has a price.** One module everybody imports must be small and stable, and every change to it is a
#   change for all callers: right once the copies have cost a bug, premature before.

# %% [markdown]
# ## vs. the real source
#
# By the original tutorial's own comparison table, the production code is less tidy than the design it teaches:
# where the tutorial has one `message.ts`, the real Claude Code has "a heap of message helpers scattered across
# utils", and its content blocks are the Anthropic SDK's types. The installed SDK gives types and no readers; what
# it offers on a reply message, besides pydantic's own methods:

# %%
import anthropic.types

print(sorted(n for n in vars(anthropic.types.Message) if not n.startswith("_")))

# %% [markdown]
# Elsewhere the same knowledge lives in more than one place: LangChain answers "where may a history start?" twice
# (`trim_messages`, and `SummarizationMiddleware`'s own cutoff), pydantic-ai keeps "keep tool pairs together" in its
# core and again in its harness. Microsoft Agent Framework is the counter-example, with one `group_messages()`.
# Details in [survey.md](../docs/survey.md#chapter-03).

# %% [markdown]
# ## One-line summary
#
# **Both bugs come from one missing owner: no module owned the knowledge of a message's shape, so step 29's slicing
# asked nobody and step 30's summarizer answered with its own wrong copy, in `list[dict[str, Any]]` code the type
# checker cannot see into; the cost waits on the complex paths, and the cure is one authority (types, constructors
# and readers), not a better copy.**

# %% [markdown]
# ## Exercises
#
# Each exercise cell shows "not attempted yet" until you replace the placeholder. Stuck? `hint("03.1")`, then
# `hint("03.1", 2)`; `reveal("03.1", confirm=True)` shows a reference solution.
#
# **03.1 (reading the code).** Which of these functions carry their *own copy* of "is this block a tool result?" A
# copy decides it by itself, however it is spelled. Calling a reader such as `is_tool_result_message` is not a copy,
# and neither is building a result.
#
# *Goal:* Count the copies of one piece of knowledge, however each is spelled: the root cause of both bugs.

# %%
from msgmodel.course.exercises import check, hint, reveal
from msgmodel.course.exercises.ch03 import COPIES_SNIPPET, REVIEW_SNIPPET

print(COPIES_SNIPPET)

# %%
tool_result_copies = []  # the names of the functions that hold a copy, such as ["a_function", "another"]
check("03.1", tool_result_copies)

# %% [markdown]
# **03.2 (writing a type, checked by mypy).** Write a `TypedDict` for a `tool_result` block that makes
# `mypy --strict` reject the `toolUseId` slip. The checker runs mypy on your class against six results: three correct
# ones (a success, a failure with `is_error`, content as a list of blocks) that must pass, and three wrong ones (the
# slip, no `tool_use_id`, a `type` of `"tool_use"`) that must fail. Section 5's loose version is a start.
#
# *Goal:* Give the checker a type to check: a TypedDict makes mypy see the slip that dict[str, Any] lets through.

# %%
from typing import Any, Literal, NotRequired, TypedDict


class ToolResultParam(TypedDict):
    ...  # your fields here


check("03.2", ToolResultParam)

# %% [markdown]
# **03.3 (reviewing new code).** One model only helps while it stays the only one. The functions below come from a
# pull request written *after* the refactor of chapter 04 (ours). Which of them go around the model, reading or
# building a message's shape by hand? Calling a constructor or a reader, or reading a block's own attributes
# (`.type`, `.text`, `.name`, `.kind`), is not a copy.
#
# *Goal:* Keep one authority once it exists: spot, in code written after the refactor, the new copies of how to read or
# build a message, however they are spelled.

# %%
print(REVIEW_SNIPPET)

# %%
around_the_model = []  # the names of the functions that go around the model, such as ["a_function", "another"]
check("03.3", around_the_model)
