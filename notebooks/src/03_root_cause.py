# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # 03 · The root cause: one piece of knowledge, copied N times
#
# *[Chapter 01](01_orphan_tool_result.ipynb) found the orphan `tool_result` (step 29) and
# [chapter 02](02_lost_tool_context.ipynb) found the `(tool call)` summary (step 30). Each bug
# was fixed where it showed up. This chapter stops fixing and starts measuring: what do the two
# bugs have in common, and how many more are waiting in the same code?*

# %% [markdown]
# ## What
#
# We point a small scanner (`msgmodel.course.knowledge`, built on `ast`) at the legacy package and list
# every place that knows, by hand, what a content block looks like: every `"tool_result"`
# compared, every `["content"]` read, every `{"type": ...}` dict built. We count those places by
# block kind and function, by wire name and module, and by the question they answer. Then we put
# three answers to one of those questions side by side and watch them disagree, trace which
# copies run on which path of the agent, and run mypy on the `toolUseId` slip to see why
# `list[dict[str, Any]]` hides it and what a type catches.
#
# After this chapter you can name the one root cause behind both bugs, measure scattered
# knowledge in any codebase, and say precisely what a type checker can and cannot do about it.

# %% [markdown]
# ## Why
#
# **"You fixed the orphan `tool_result` and the `(tool call)` summary where each one showed up.
# Why do you say the two bugs have one root cause?"**
#
# On the surface they have nothing in common. One is a loud HTTP 400 after compaction; the other
# is a silent summary that forgot what the agent read. But both are *wrong answers to a question
# about the shape of a message*. "May a history start at this message?" needs to know that tool
# results travel inside user messages. "What did this turn do?" needs to know how to render each
# kind of block. Nobody owned those answers. The messages were `list[dict[str, Any]]`, so every
# module that touched them wrote its own answer: compaction its own `_is_clean_user_start`, the
# summarizer its own `_block_to_text`, the api layer its own `extract_text`, the engine its own
# hand-built `{"type": "tool_result", ...}`. N copies are N chances to be wrong and N places to
# update when the protocol moves. Each local fix added one more copy.
#
# Worse, `Any` switches the type checker off, so every copy compiles and the simple path works.
# The cost is not avoided, only deferred: it lands on the complex paths (compaction, summaries,
# a failing tool, a round trip through storage), weeks later, far from the line that caused it.
# An interviewer wants to hear that you can see this pattern, measure it, and know which tool
# removes it: not a better copy, but one authority.

# %% [markdown]
# ## How
#
# ### 1. Two bugs, one slip, three questions
#
# | What broke (chapter) | The question the code got wrong | The local answer (a copy) |
# |---|---|---|
# | 400 after compaction: orphan `tool_result` (01) | *Is this user message a tool result?* | compaction's (copy #1) |
# | the summary forgot what was read and run (02) | *How should a reader see a block?* | the summarizer's (copy #2) |
# | 400 after a failing tool: `toolUseId` (02) | *What does a tool result look like?* | the engine's, written twice |
#
# The original step-31 tutorial (TypeScript) names the same copies. Before step 31, `compact.ts`
# held a local `isCleanUserStart` (step 29's fix) and a local `blockToText` (step 30's),
# `QueryEngine.ts` spelled `{ type: "tool_result", ... }` by hand, and `api.ts` read text its
# own way. Step 31 keeps each once in `message.ts`: `isCleanUserStart(m)` becomes
# `!!m && m.role === "user" && !isToolResultMessage(m)`, and `blockToText(b)` one
# `switch (b.type)` with a case per kind. `msgmodel.course.legacy` replays the state before, in Python.
#
# Three questions, each about a block's shape, each answered privately. How many such private
# answers does the legacy package hold? Let's count them instead of guessing.

# %%
import msgmodel.course.legacy as legacy
from msgmodel.course.knowledge import PIECES, describe, scan_block_knowledge, scan_source, tabulate
from msgmodel.course.legacy import api, compact29, summary30

# %% [markdown]
# ### 2. Measure the copying
#
# `scan_block_knowledge` reads source with `ast` (it never imports it) and reports a *site*
# wherever the code spells out a piece of the block shapes itself. There are four kinds:
#
# | Site kind | Example from the legacy code |
# |---|---|
# | `kind-test`: a block kind compared | `b.get("type") == "tool_result"`, `t == "text"` |
# | `wire-key`: a field read by its name | `m["content"]`, `b.get("text", "")`, `call["id"]` |
# | `block-literal`: a block built as a dict | `{"type": "tool_result", "tool_use_id": ..., ...}` |
# | `message-literal`: a message built as a dict | `{"role": "user", "content": prompt}` |
#
# A docstring that mentions `"tool_result"` is not a site: it cannot be wrong at run time.

# %%
sites = scan_block_knowledge(legacy)
print(describe(sites).splitlines()[0])  # the headline; the full breakdown comes below
kind_spellings = [s for s in sites if s.kind in ("kind-test", "block-literal")]
tabulate(kind_spellings, rows="function", columns="detail")

# %% [markdown]
# That is the title's claim in one table. Each block kind the legacy code cares about is spelled
# out by hand in several functions: `"tool_result"` in three functions of three modules, `"text"`
# in three functions of two modules, `"tool_use"` in two. Nobody asks anybody: each function
# compares the raw string itself. Counting the field names too (every wire name written by hand,
# the `"type"` read inside each kind test counted with the test, and the six message literals,
# which all spell `"role"` and `"content"`, left out):

# %%
spellings = [s for s in sites if s.kind != "message-literal"]
tabulate(spellings, rows="detail", columns="module")

# %% [markdown]
# `"content"` six times in four modules, `"text"` six times, `"tool_result"` four times in three
# modules. Each is a place that must agree with the API, and with every other place, forever. A
# protocol change (a new block kind, a renamed field) means finding all of them by hand.
#
# **What each copy is for.** The scanner also files each site under a *piece of knowledge*: the
# question the code around it answers. A dict literal is "build a block" or "build a message".
# Any other site takes the piece of its function, decided by the block kinds the function tests
# or reads fields of: one kind gives that kind's question, two kinds or an `if`/`else` on the
# kind give "dispatch on the kind", and no kind at all gives "walk a message".
#
# | Piece | The question | Where the legacy code answers it |
# |---|---|---|
# | tell a tool result | is this block (or message) a tool result? | compaction's `_is_clean_user_start` (copy #1) |
# | find tool calls | which blocks of a reply are tool calls, and what do they ask? | the engine's tool loop |
# | read text | what is the text of this message? | the api layer's `extract_text` (copy #3) |
# | read thinking | what did the model think? | nowhere: the legacy code never reads thinking |
# | dispatch on the kind | how is each kind handled (here: rendered)? | `summary30._message_text`, `_block_to_text` |
# | build a block | how is a block written? | the engine's two `tool_result` dicts |
# | build a message | how is a turn written? | compaction, engine and api layer |
# | walk a message | where are `role` and `content`? | the transcript loops |
#
# One filing needs a word. The summarizer's `_message_text` (the step-30 bug) and
# `_block_to_text` (copy #2) branch on the kind, so the scanner files them under "dispatch on
# the kind". But what they answer, for the summarizer, is "what is the text of this message?",
# the same question as the api layer's `extract_text`. So "read text" has one site row in the
# breakdown below, yet the question is answered three times (section 3 puts them side by side).

# %%
print(describe(sites))

# %% [markdown]
# Read it piece by piece: each piece is private to one module (compaction alone knows where a
# tool result hides, the engine alone how to find and answer tool calls, the summarizer alone how
# to render each kind), while the wire names those pieces rest on are spelled in many. No module
# can ask another, so each answers from scratch, out of the raw dicts. `storage.py` is missing
# altogether: it calls `json.dump`, knows nothing about blocks, and so checks nothing on the way
# in or out.
#
# The smallest piece hides the sharpest example. "How to build a tool result" lives twice, in the
# same function, three lines apart, and the two copies already disagree:

# %%
for s in sites:
    if s.piece == "build a block":
        print(f"{s.where:14} {s.code}")

# %% [markdown]
# The happy path writes `tool_use_id`; the error path writes `toolUseId`. Two copies of one shape
# drifted apart within a few lines of each other. (The slip is planted, to illustrate the
# original step-31 tutorial's warning about "a field-name slip like `toolUseId`";
# [chapter 02](02_lost_tool_context.ipynb) shows it reaching the server.)
#
# ### 3. The same knowledge, written three ways
#
# "What is the text of a message?" is answered three times in the legacy package: by the api
# layer's `extract_text` (copy #3), by the step-30 transcript's `_message_text` (the bug), and by
# the step-30 fix's `_block_to_text` (copy #2), which the fixed transcript joins line by line:

# %%
import inspect

from msgmodel.course.teaching import side_by_side

left = inspect.getsource(api.extract_text) + "\n" + inspect.getsource(summary30._message_text)
titles = ("copy #3: api.extract_text; the bug: summary30._message_text", "copy #2: summary30._block_to_text")
side_by_side(left, inspect.getsource(summary30._block_to_text), titles, width=60)

# %% [markdown]
# Three authors, three spellings of one idea: `b.get("type") == "text"` twice and `t == "text"`
# once; `b.get("text", "")`, `b["text"]` and `str(b.get("text", ""))`. Small differences, but
# they decide real behaviour. Give all three the same assistant turn (two text blocks and a tool
# call, as `to_api` writes it for the SDK), and the authority's `text_of` as well:

# %%
from msgmodel import TextBlock, ToolUseBlock, assistant_msg, text_of, to_api

turn = assistant_msg([TextBlock("Let me check."), TextBlock("Reading the config now."),
                      ToolUseBlock("toolu_01", "read_file", {"path": "src/config.py"})])
(wire,) = to_api([turn])
answers = {"copy #3 (api)": api.extract_text(wire), "the step-30 bug": summary30._message_text(wire),
           "copy #2 (fixed transcript)": summary30.transcript_fixed([wire]),
           "msgmodel.text_of": text_of(turn)}
for who, text in answers.items():
    print(f"{who:27} {text!r}")

# %% [markdown]
# The api copy and the authority agree here: both join a turn's text blocks with nothing
# between them (`text_of` does so because that is how the API streams a turn's text). The drift
# is between the summarizer's two copies. The step-30 transcript separates the blocks with a
# space and turns the call into `(tool call)`; the fixed transcript puts each block on its own
# line and renders the call. Which text the summarizer reads from the same message depends on
# which copy compaction was handed, and nobody decided that. (The authority keeps "the text of
# a message" and "a block as a summarizer should see it" as two readers, `text_of` and
# `block_to_text`, each written once.)
#
# They also fail differently on a malformed block, a text block that lost its `text`:

# %%
broken = {"role": "assistant", "content": [{"type": "text"}]}
for name, reader in (("api.extract_text", api.extract_text), ("summary30._message_text", summary30._message_text)):
    try:
        print(f"{name:24} -> {reader(broken)!r}")
    except KeyError as e:
        print(f"{name:24} -> KeyError: {e}")

# %% [markdown]
# One copy hides the damage (an empty string), the other crashes deep inside the summarizer. Which
# behaviour you get depends on which copy happens to run.
#
# ### 4. Where the cost lands: the copies run on the complex paths
#
# The claim that `Any` *defers* the cost can be measured. Below, the legacy engine answers five
# kinds of request through the official SDK, wired to the local Messages API
# (`msgmodel.api.local_client()`, no network). While it runs, a line tracer records which
# knowledge sites execute. The tracer is the only new code here: one small function around
# `sys.settrace`.

# %%
import sys
from pathlib import Path

LEGACY_DIR = str(Path(legacy.__file__).parent)


def sites_run(action):
    """Run `action()`; return the knowledge sites whose line executed meanwhile."""
    hit = set()

    def tracer(frame, event, arg):  # follow only the legacy package's frames, line by line
        if frame.f_code.co_filename.startswith(LEGACY_DIR):
            hit.add((Path(frame.f_code.co_filename).name, frame.f_lineno))
            return tracer
        return None

    sys.settrace(tracer)
    try:
        action()
    finally:
        sys.settrace(None)
    return [s for s in sites if (s.where.split(":")[0], s.line) in hit]


# %% [markdown]
# The engine gets the demo tools (an in-memory project: `read_file`, `list_dir`, `grep`,
# `calculator`) and the deterministic `RuleModel` behind the local API. Long sessions get
# compacted, once with the engine's original compactor (slicing, and the `(tool call)`
# transcript), once with the compactor as it stood after chapters 01 and 02: copy #1 decides
# where the kept part starts, copy #2 renders the summarizer's transcript.

# %%
import functools

import anthropic

from msgmodel.api import local_client
from msgmodel.api.demo_tools import demo_registry
from msgmodel.core.tools import tools_param
from msgmodel.course.legacy.engine import QueryEngine

registry = demo_registry()
tools = {name: tool.run for name, tool in registry.items()}
fixed_compactor = functools.partial(compact29.compact_fixed, render=summary30.transcript_fixed)


def new_engine(**options):
    return QueryEngine(local_client(), tools, tools_param(registry), **options)


# %% [markdown]
# Five paths: a plain question, a tool round, a tool that fails, and a session long enough to be
# compacted, with each compactor. The failing tool ends in the slip's 400; we print the API's
# verbatim error.

# %%
engine = new_engine()


def failing_tool():
    try:
        engine.submit("Read src/settings.py")
    except anthropic.BadRequestError as err:
        print("400 from the API:", err.body["error"]["message"])


def long_session(**compactor):
    long = new_engine(max_messages=6, keep=3, **compactor)
    for prompt in ("Read src/app.py", "Read src/config.py", "List the files in src", "Read README.md"):
        long.submit(prompt)


# %%
paths = {"plain": sites_run(lambda: engine.submit("Hello! What can you do?")),
         "tool round": sites_run(lambda: engine.submit("Read src/app.py")),
         "failing tool": sites_run(failing_tool),
         "compaction": sites_run(long_session),
         "fixed compaction": sites_run(lambda: long_session(compact=fixed_compactor))}

# %% [markdown]
# Which functions holding knowledge did each path reach? A `✓` means at least one of the
# function's sites ran.

# %%
def holder(site):
    return f"{site.module.rsplit('.', 1)[-1]}.{site.function}"


print(f"{'function holding knowledge':32}" + "".join(f"{p:>17}" for p in paths))
for f in dict.fromkeys(map(holder, sites)):
    marks = ["✓" if f in map(holder, ran) else "·" for ran in paths.values()]
    print(f"{f:32}" + "".join(f"{m:>17}" for m in marks))
print(f"{f'sites run (of {len(sites)})':32}" + "".join(f"{len(ran):>17}" for ran in paths.values()))

# %% [markdown]
# The plain question touches 7 of the 34 sites, all in the engine and the api layer, and those
# work. Every site that carried a bug sits on a path that a demo, a smoke test or a short session
# never takes:

# %%
def first_site(function):
    return next(s for s in sites if s.function == function)


buggy = {"the slip": next(s for s in sites if "toolUseId" in s.code and s.kind == "block-literal"),
         "the (tool call) transcript": first_site("_message_text"),
         "copy #1": first_site("_is_clean_user_start"), "copy #2": first_site("_block_to_text")}
for name, site in buggy.items():
    reached = [path for path, ran in paths.items() if site in ran]
    print(f"{name:27} {site.where:16} runs on: {', '.join(reached)}")

# %% [markdown]
# That is the original step-31 tutorial's sentence made measurable: *the cost of `any` is deferred to the complex
# paths*. The slip waits for a tool to fail. The copies in compaction and summarization wait for a
# session long enough to be compacted (and the slicing compactor's orphan waits, on top of that,
# for an unlucky `keep`: chapter 01). When they finally run, the error (a 400 naming
# `messages.8.content.0`, or a summary that quietly forgot a file) appears far from the line that
# caused it.
#
# ### 5. What the type checker sees
#
# Could a tool have caught the slip before it ran? We ask mypy, from this notebook:
# `msgmodel.course.teaching.type_check` runs `mypy --strict` on snippets in a scratch folder and returns
# its report, with short file names such as `loop.py:9`.

# %%
from msgmodel.course.teaching import type_check

# %% [markdown]
# The legacy package is already type-checked: `make check` runs `mypy --strict msgmodel`, and it
# passes, slip included. Here is the engine's tool loop on its own, with the results typed
# exactly as the engine types them, `list[dict[str, Any]]`. The word `RESULT` stands for the
# annotation; we will change only that.

# %%
LOOP = """\
from typing import Any, Callable
from params import ToolResultParam

def run_calls(tools: dict[str, Callable[..., str]], calls: list[dict[str, Any]]) -> list[RESULT]:
    results: list[RESULT] = []
    for call in calls:
        try:
            output = tools[call["name"]](**call["input"])
            results.append({"type": "tool_result", "tool_use_id": call["id"], "content": output})
        except Exception as e:
            results.append({"type": "tool_result", "toolUseId": call["id"], "content": str(e), "is_error": True})
    return results
"""

# %% [markdown]
# `params.py` holds a `TypedDict` that names the block's fields, as the SDK's
# `ToolResultBlockParam` does:

# %%
PARAMS = """\
from typing import NotRequired, TypedDict

class ToolResultParam(TypedDict):
    type: str
    tool_use_id: str
    content: str
    is_error: NotRequired[bool]
"""
type_check({"params": PARAMS, "loop": LOOP.replace("RESULT", "dict[str, Any]")})

# %% [markdown]
# Not a word, and correctly so: `dict[str, Any]` *means* "any string key, any value". mypy was
# told that `toolUseId` is as good a key as `tool_use_id`. Now change one annotation: the results
# are `ToolResultParam`.

# %%
type_check({"params": PARAMS, "loop": LOOP.replace("RESULT", "ToolResultParam")})

# %% [markdown]
# Line 11 is the error path: mypy reports the missing `tool_use_id` and the stray `toolUseId`
# before anything runs, and the happy path on line 9 passes. This is the same mistake the API
# reported as `messages.8.content.0.tool_result.tool_use_id: Field required` in section 4, only
# now it is found at the desk instead of in production, on a path no test took.
#
# The TypedDict above is deliberately loose in two places (it would accept `"type": "tool_use"`,
# and it refuses a result whose content is a list of blocks, which the API allows). Exercise 03.2
# asks you to tighten it. Chapter 04 goes further: `msgmodel.tool_result_block(id, content,
# is_error=True)` is a function, so there is no key to misspell at all, and its result is a typed
# struct that every reader can narrow.

# %% [markdown]
# ### 6. The question chapter 04 answers
#
# Here is the measured state of the legacy package, as a picture. Every module talks to the same
# `list[dict[str, Any]]`, and each brings its own copy of the knowledge it needs.
#
# ```mermaid
# flowchart TB
#     D[("messages: list[dict[str, Any]]<br/>nobody owns the shape")]
#     C["compact29<br/>tell a tool result (copy 1)<br/>build a message"] --> D
#     S["summary30<br/>dispatch on the kind (copy 2)<br/>walk a message"] --> D
#     E["engine<br/>find tool calls<br/>build a tool result ×2 (one slipped)<br/>build a message"] --> D
#     A["api<br/>read text (copy 3)<br/>build a message"] --> D
#     T["storage<br/>json.dump / json.load<br/>knows nothing, checks nothing"] --> D
# ```
#
# In words: five modules point at one untyped list, and four of them carry their own piece of
# the block shapes; storage carries none and checks nothing.
#
# So the question for [chapter 04](04_unified_model.ipynb) is: **what would one authority look
# like?** The measurements above say what it must provide.
#
# | The measurement | What the authority must provide |
# |---|---|
# | each block kind spelled by hand in 2–3 functions | one module that owns the shapes; the others import it |
# | 3 readers of "the text" that disagree | one reader per question (`text_of`, `block_to_text`, ...) |
# | `"tool_result"` spelled by hand, unchecked | block types with a `type` tag mypy knows, so tests are checked |
# | two `tool_result` dicts, one slipped | constructors, so nobody writes a block as a dict |
# | `json.load` checks nothing | a decoder at the boundary that names the bad path |
# | bugs wait on compaction and failing tools | every path calls the same, already-tested readers |

# %% [markdown]
# ## Follow-up questions

# %% [markdown]
# **"Isn't `grep tool_result` enough to count the copies?"**
#
# It counts the wrong thing. A text search finds every docstring and comment that mentions the
# word, and it misses knowledge that never spells it: `call["id"]`, `m["content"]`, or a test by a
# field (`"tool_use_id" in b`). Compare, on the legacy package:

# %%
grep_hits = [(p.name, n) for p in sorted(Path(LEGACY_DIR).glob("*.py"))
             for n, line in enumerate(p.read_text().splitlines(), 1) if "tool_result" in line]
code_hits = {(s.where.split(":")[0], s.line) for s in sites if s.detail == "tool_result"}
print(f"lines that contain 'tool_result':              {len(grep_hits)}")
print(f"  of which code that tests or builds one:       {len(code_hits)}")
print(f"sites of any piece the scanner finds:           {len(sites)}")

# %% [markdown]
# **"Would a `TypedDict` have prevented both bugs?"**
#
# No, and this is the answer that separates a careful candidate. A type catches a *misspelled*
# shape, like `toolUseId`. It does not catch a *wrong answer* written in well-typed code. Type the
# step-30 renderer's blocks with TypedDicts, and mypy accepts the `(tool call)` bug without a word,
# because turning every non-text block into a placeholder is perfectly type-correct:

# %%
type_check('''\
from typing import Literal, TypedDict

Text = TypedDict("Text", {"type": Literal["text"], "text": str})
ToolUse = TypedDict("ToolUse", {"type": Literal["tool_use"], "id": str, "name": str})

def message_text(content: list[Text | ToolUse]) -> str:
    return " ".join(b["text"] if b["type"] == "text" else "(tool call)" for b in content)
''')

# %% [markdown]
# The orphan is no different: `history[-keep:]` is as well-typed as a slice can be. Types remove
# one class of bug (shapes nobody checks). The other class (divergent answers) goes
# away only when each question has one answer that everybody calls. That is why chapter 04 ships
# *readers* with its types, and why the orphan fix lives in one `is_clean_user_start`.
#
# **"How many copies are too many? When do you consolidate?"**
#
# The original step-31 tutorial's rule: when the same knowledge has been copied at least twice
# *and* the copies have already caused a bug. Both hold here. The first table of section 2
# shows every block kind the legacy code tests or builds spelled out in at least two functions,
# and the two bugs and the slip all turned on those kinds. Before that, an abstraction is a
# guess about which knowledge will be shared; chapter 07 comes back to the cost of
# consolidating too early.
#
# **"Why not keep the copies and test each one well?"**
#
# Because tests multiply with copies and paths: three text readers need three sets of tests, and
# each must be re-checked whenever the protocol changes. Section 3 showed three well-meant readers
# that already disagree; a test suite would have pinned each one's behaviour, disagreements
# included. One reader needs one set of tests, and every caller inherits them.
#
# **"Is `dict[str, Any]` ever the right type for messages?"**
#
# At the boundary, briefly: what `json.load` returns, or what arrives from another process, *is*
# untyped until it is decoded. The mistake is letting it travel. Decode once at the edge (with a
# decoder that names the bad JSON path), and pass typed messages everywhere inside.

# %% [markdown]
# ## Pitfalls and trade-offs
#
# - **The scanner is a lower bound, and a little noisy.** It reads literals, so knowledge
#   reached through a constant or a helper is invisible to it, while an unrelated
#   `mode == "text"` would be counted. Treat its numbers as a measuring stick, not a proof:

# %%
hidden = '''\
TYPE, TOOL_RESULT = "type", "tool_result"
def is_result(b):
    return b.get(TYPE) == TOOL_RESULT
'''
print("sites found in a copy spelled through constants:", len(scan_source(hidden)))

# %% [markdown]
# - **Counting sites is not weighing them.** "Build a message" appears six times and is nearly
#   harmless (`role` and `content` rarely change). "Tell a tool result" lives in one small
#   function of compaction, and it carried a production 400. Read the table together with the bugs.
# - **A `TypedDict` is static only.** Data from `json.load` or from the network is not checked
#   at run time, and a `cast` silences mypy. You still need a decoder at the boundary.
# - **Types do not stop new copies.** Nothing prevents the next module from writing its own
#   `{"type": "tool_result", ...}`. msgmodel keeps the rule with a test: `tests/test_knowledge.py`
#   runs this scanner over compaction, the engine, storage and display and fails on any untyped
#   site.
# - **Consolidating has a price.** One module that everybody imports must be stable and small,
#   and every change to it is a change for all callers. That is the right trade once the copies
#   have cost a bug, and a premature one before.

# %% [markdown]
# ## vs. the real source
#
# [Chapter 01](01_orphan_tool_result.ipynb) lists the public trimming bugs themselves (Claude
# Code, LangChain, LiteLLM, ...). What this chapter adds is where a project keeps the same
# knowledge in *more than one place*, or in exactly one. From [anchors.md](../docs/anchors.md)
# and [api-rules.md](../docs/api-rules.md) (section 2):
#
# - **anthropic-sdk-python.** Request params are `TypedDict`s, e.g. `ToolResultBlockParam` in
#   `src/anthropic/types/tool_result_block_param.py`, with no constructors or readers: tool
#   results are dict literals (as in the tool runner). Annotate your results with
#   `ToolResultBlockParam` and mypy reports the slip exactly as in section 5; annotate them
#   `dict[str, Any]` and only the server's 400 does.
# - **LangChain.** Two places answer "where may a history start?": `trim_messages` relies on
#   `start_on="human"`, and `SummarizationMiddleware` has its own cutoff rule, rewritten three
#   times.
# - **pydantic-ai.** The core repairs histories in `_agent_graph.py` (`_clean_message_history`);
#   the separate harness has its own `find_safe_cutoff` with `_TOOL_PAIR_SEARCH_RANGE = 5`: two
#   copies of "keep tool pairs together" in one ecosystem.
# - **Everyone else.** The bug table in api-rules.md lists project after project with its own
#   post-trim cleanup, each one more local copy: [cline#7225][cline],
#   [CopilotKit#2450][copilotkit], [mastra#16193][mastra].
# - **Microsoft Agent Framework** is the counter-example. `group_messages()` in `_compaction.py`
#   splits a history into atomic groups in one place; trimming strategies exclude whole groups,
#   so a pair cannot be split by construction. That is the closest thing to one authority.
#
# The fixes elsewhere are local heuristics (a ±5-message window, "advance past tool messages"),
# and none removes the cause, because the cause is that the knowledge has no single home.
#
# [cline]: https://github.com/cline/cline/issues/7225
# [copilotkit]: https://github.com/CopilotKit/CopilotKit/issues/2450
# [mastra]: https://github.com/mastra-ai/mastra/issues/16193

# %% [markdown]
# ## One-line summary
#
# **Both bugs were wrong answers to questions about a block's shape, answered privately in
# several modules of `list[dict[str, Any]]` code that the type checker cannot see into; the cost
# waits on the complex paths, and the cure is one authority (types, constructors and readers),
# not a better copy.**

# %% [markdown]
# ## Exercises
#
# **03.1 (reading the code).** Which of these functions carry their *own copy* of "is this block
# a tool result?" A copy is code that decides it by itself, however it is spelled. Calling a
# reader such as `is_tool_result_message` is not a copy, and neither is building a result.

# %%
from msgmodel.course.exercises import check, reveal
from msgmodel.course.exercises.ch03 import CLASSIFY_LINES, COPIES_SNIPPET

print(COPIES_SNIPPET)

# %%
tool_result_copies = []  # the names of the functions that hold a copy, e.g. ["is_result_turn"]
check("03.1", tool_result_copies)

# %% [markdown]
# Stuck? `print(reveal("03.1"))` shows a reference solution.
#
# **03.2 (writing a type, checked by mypy).** Write a `TypedDict` for a `tool_result` block that
# makes `mypy --strict` reject the `toolUseId` slip. The checker runs mypy on your class against
# six results: three correct ones (a success, a failure with `is_error`, content as a list of
# blocks) that must pass, and three wrong ones (the slip, no `tool_use_id`, a `type` of
# `"tool_use"`) that must fail. Section 5's loose version is a fine place to start.

# %%
from typing import Any, Literal, NotRequired, TypedDict


class ToolResultParam(TypedDict):
    ...  # your fields here


check("03.2", ToolResultParam)

# %% [markdown]
# Stuck? `print(reveal("03.2"))` shows a reference solution.
#
# **03.3 (classifying).** Each line below comes from dict-based agent code and holds one piece of
# knowledge. Name it, using the labels of the table in section 2 (`PIECES`). One label, "read
# thinking", fits none of the lines: it is there as a distractor.

# %%
print("Pieces:", ", ".join(PIECES), end="\n\n")
for key, line in CLASSIFY_LINES.items():
    print(f"{key}  {line}")

# %%
pieces = {}  # your answer: a piece for each letter, {"A": "<one of PIECES>", ..., "G": ...}
check("03.3", pieces)

# %% [markdown]
# Stuck? `print(reveal("03.3"))` shows a reference solution.
