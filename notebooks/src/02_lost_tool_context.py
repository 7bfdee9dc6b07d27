# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown] tags=["core"]
# # 02 · Lost tool context (step 30)
#
# *Step 29's fix ([chapter 01](01_orphan_tool_result.ipynb)) stopped the 400s. This chapter is about the bug that
# survived it: the summary no longer knows what the agent read, what it ran, or what failed.*

# %% [markdown] tags=["core"]
# ## What
#
# A short debugging session with the legacy, dict-based agent: what the step-30 summarizer reads, what each summary
# still knows, why projects flatten tool blocks, a local fix (copy #2 of "how to render a block") that drifts, and
# the `toolUseId` slip, a hand-built dict that nothing checks until the server does.

# %% [markdown] tags=["core"]
# ## Why
#
# **"Your compaction no longer causes any 400s, and the agent keeps working after it. How can it still be broken?"**
#
# A 400 is loud and says where to look; this bug is silent. A summary is only as good as the text the summarizer
# reads, and step 30's transcript turned every tool block into `(tool call)`, the placeholder the original step-31
# tutorial names when it looks back at step 30 (the legacy code that writes it here is ours). The API accepts the
# text, the session goes on, and the agent has forgotten which files it read, which commands it ran and what failed.

# %% [markdown] tags=["core"]
# ## How
#
# ### 1. A debugging session with the legacy engine
#
# The exhibit is chapter 01's legacy `QueryEngine` (`legacy_engine`), its model scripted this time (`ScriptedModel`
# plays the turns of `DEBUG_TURNS`); the loop, the tool runs and the dicts are the legacy engine's. The agent reads
# `src/config.py`, runs the failing tests and greps for `retries`. `run_command`, a stand-in shell tool, *reports* a
# failing command in its output (`exit code 1`) instead of raising (section 6 needs that). The final answer:

# %% tags=["core"]
from msgmodel import from_api
from msgmodel.api.scripted import ScriptedModel
from msgmodel.course.legacy.harness import legacy_engine
from msgmodel.course.sessions import DEBUG_PROMPT, DEBUG_TURNS, debug_tools

built = []  # every tool_result dict the engine builds, through its on_tool_result callback
engine = legacy_engine(model=ScriptedModel(DEBUG_TURNS), tools=debug_tools(), on_tool_result=built.append)
print(engine.submit(DEBUG_PROMPT))
history = list(engine.messages)  # a snapshot: the engine keeps appending to its own list

# %% [markdown] tags=["core"]
# The facts the next turn needs are in the tool results only: which file was read, which command failed and how
# (`pytest`: a `TypeError` at `src/app.py:15`), and where `retries` is used.
#
# ### 2. What the summarizer reads
#
# The legacy compactor renders the old part with step 30's `summary30.transcript`; the authority's renderer is
# `msgmodel.transcript_of`. The same history through both, and the first tool call in each:

# %% tags=["core"]
from msgmodel import tool_results_of, tool_uses_of, transcript_of
from msgmodel.course.legacy import summary30

step30_text = summary30.transcript(history)
authority_text = transcript_of(from_api(history))
calls, results = (sum(len(of(m)) for m in from_api(history)) for of in (tool_uses_of, tool_results_of))
print(f"'(tool call)' written by step 30: {step30_text.count('(tool call)')}, one per tool block ({calls} calls and",
      f"{results} results alike); by the authority: {authority_text.count('(tool call)')}. The first call in each:")
print("  step 30:   ", step30_text.splitlines()[1])
print("  authority: ", next(line for line in authority_text.splitlines() if line.startswith("[call")))

# %% [markdown]
# Both transcripts side by side (`abridged` keeps each tool result's first two lines so the columns fit): on the left
# not even the count of calls survives, on the right each call keeps its name and arguments and each result its text.

# %%
from msgmodel.course.teaching import abridged, side_by_side

titles = ("step 30: summary30.transcript", "the authority: msgmodel.transcript_of")
side_by_side(abridged(step30_text), abridged(authority_text), titles)

# %% [markdown]
# The two transcripts in full, in `TranscriptCompare`: a table counts how often each side mentions a few of the
# session's facts, and in Jupyter its search box counts any word you type.

# %%
from msgmodel.course.sessions import KEY_FACTS
from msgmodel.course.widgets import TranscriptCompare

TranscriptCompare(from_api(history), before=summary30.transcript, terms=KEY_FACTS[:5], before_label=titles[0])

# %% [markdown] tags=["core"]
# ### 3. Why flatten? The summarization request defines no tools
#
# A summarization request carries the conversation and "summarize this", and no tools: the summarizer should write,
# not act. The API has a rule about such a request (first line below); defining the tools and forbidding their use
# (`tool_choice: {"type": "none"}`) is legal (last line).

# %% tags=["core"]
from msgmodel import to_api, user_text
from msgmodel.api import local_client
from msgmodel.core.protocol import validate
from msgmodel.core.tools import tools_param

ASK = "Summarize this conversation so far, for the assistant to continue from."
request = [*history, *to_api([user_text(ASK)])]
for v in validate(request, tools_defined=False):
    print(f"{v.rule}: {v}")
summarizer = local_client()  # the local API; its RuleModel writes the summaries of section 4
reply = summarizer.messages.create(model="claude-sonnet-4-6", max_tokens=1024, messages=request,
                                   tools=tools_param(debug_tools()), tool_choice={"type": "none"})
print("the same request with tools= and tool_choice none: HTTP 200, stop_reason", repr(reply.stop_reason))

# %% [markdown] tags=["core"]
# Flattened text gets through, whatever it has lost. The API cannot tell a good transcript from a useless one, so no
# check on the request will ever catch this bug:

# %% tags=["core"]
for name, text in (("step 30", step30_text), ("authority", authority_text)):
    flat = to_api([user_text(f"{ASK}\n\n{text}")])
    print(f"{name:9} flattened request, no tools -> violations: {validate(flat, tools_defined=False)}")

# %% [markdown] tags=["core"]
# Projects flatten anyway, because raw tool outputs are what made the history too big. So every project that
# summarizes writes some "block to text" function, and it decides what survives compaction (msgmodel's keeps names,
# arguments, results, failures and cut marks, and drops the bulk).
#
# ### 4. Ask the summaries
#
# Both transcripts go to `summarizer` through `legacy.api.summarize`, the legacy compactor's call. Its `RuleModel`
# can only report what its input shows, the one property that matters here (a real model could guess *which* tools
# ran from the assistant's words, not what they returned). The step-30 summary:

# %% tags=["core"]
from msgmodel.course.legacy import api as legacy_api

summary_step30 = legacy_api.summarize(summarizer, legacy_api.DEFAULT_MODEL, step30_text)
summary_authority = legacy_api.summarize(summarizer, legacy_api.DEFAULT_MODEL, authority_text)
print(summary_step30)  # the authority's summary is the optional cell's output below

# %% [markdown]
# The authority's summary, for comparison (the probes below ask both):

# %%
print(summary_authority)

# %% [markdown] tags=["core"]
# Two questions the next turn depends on, and how many of the session's seven key facts (`src/config.py`,
# `run_command`, `pytest`, `exit code 1`, `TypeError`, `src/app.py:15`, `grep`) each summary holds. `probe_table`
# asks with regular expressions over `RuleModel`'s format; a model would do no better than the summary's text.

# %% tags=["core", "demo"]
from msgmodel.course.sessions import probe_table

summaries = {"step 30": summary_step30, "authority": summary_authority}
print(probe_table(summaries, ["which file was read", "which command failed, and why"]))

# %% [markdown] tags=["core"]
# ### 5. A local fix: copy #2
#
# Step 30's fix, `summary30.transcript_fixed`, renders each block with a private `_block_to_text`: calls as
# `[call name(args)]`, results as `[result: ...]`, like the authority's `block_to_text`. Then `TRICKY`, three messages
# built with chapter 04's constructors, seven blocks the bug report's session lacked: a text and a screenshot; thinking,
# a read and a `grep` with a long pattern; the read's failure and a result given as a list of blocks (the API allows
# both forms of `content`). Block by block (`blocks_of(m)`: a message's blocks; `block_to_api(b)`: the wire dict the
# copy reads), where does the copy render differently?

# %% tags=["core"]
from msgmodel import block_to_api, block_to_text, blocks_of
from msgmodel.course.sessions import TRICKY

same = summary30.transcript_fixed(history).replace(" ", "") == authority_text.replace(" ", "")
print("the bug report's session: copy #2 equals the authority, spaces aside:", same)
blocks = [b for m in TRICKY for b in blocks_of(m)]
differ = [b for b in blocks
          if summary30._block_to_text(block_to_api(b)).replace(" ", "") != block_to_text(b).replace(" ", "")]
print(f"TRICKY: copy #2 renders {len(differ)} of {len(blocks)} blocks unlike the authority, which writes:")
for b in differ:
    print("  ", block_to_text(b)[:48])

# %% [markdown] tags=["core"]
# Both leave the thinking block out on purpose (the model's scratch space; its signature means something only to the
# API). The four differences, each small enough to pass a code review:
#
# | block | copy #2 | the authority | what the summary loses |
# |---|---|---|---|
# | a failed result (`is_error`) | `[result: …]` | `[result (failed): …]` | a failure reads like a success |
# | a result given as a list of blocks | `[result: ]` | the blocks' text | the output; looks like "found nothing" |
# | arguments or a result over the limit | cut silently | cut, ending in `…` | whether it saw the end or a cut |
# | an image (or another kind) | nothing | `[image]` | that the user sent a screenshot at all |
#
# The copy agrees on the session it was checked against, and nothing carries the authority's next case to it. A
# better copy does not fix drift; having no copy does.

# %% [markdown]
# How often the drifts matter, on a 300-message synthetic session:

# %%
from msgmodel import tool_results_of
from msgmodel.course.synth import synth_session

session = synth_session(300, seed=0)
results = [r for m in session for r in tool_results_of(m)]
copy2, authority = summary30.transcript_fixed(to_api(session)), transcript_of(session)
failed = sum(r.is_error for r in results)
lists = sum(not isinstance(r.content, str) for r in results)  # on purpose: counting the result shapes
cuts = authority.count("…")  # the authority marks every cut it makes, so this counts the cuts
rows = [
    ("failure flags dropped", failed, failed - copy2.count("(failed)"), failed - authority.count("(failed)")),
    ("list results shown empty", lists, copy2.count("[result: ]"), authority.count("[result: ]")),
    ("cuts left unmarked", cuts, cuts - copy2.count("…"), cuts - authority.count("…")),
]
print(f"{len(results)} tool results; what each renderer loses:   copy #2   authority")
for what, total, by_copy2, by_authority in rows:
    print(f"  {what:26} (of {total:>2} cases) {by_copy2:>10} {by_authority:>11}")

# %% [markdown] tags=["core"]
# ### 6. The `toolUseId` slip
#
# A third bug, and a loud one. It is the series' running example: later chapters catch this same slip earlier at each
# layer (mypy in chapter 03, the constructor and the decoder in 04, each typed option in 07) and tell only that. The
# original step-31 tutorial warns that a constructor keeps the field name `tool_use_id` from being mistyped as
# `toolUseId`, the hardest kind of bug to find while messages are `any`. It cites no such bug report: **the legacy
# engine plants one** (our illustration). Its two inline `tool_result` dicts:

# %% tags=["core"]
import inspect

from msgmodel.course.legacy.engine import QueryEngine as LegacyEngine

source = inspect.getsource(LegacyEngine.submit).splitlines()
start = next(i for i, line in enumerate(source) if line.strip() == "try:")
print("\n".join(line[12:] for line in source[start : start + 7]))
print(f"results built so far: {len(built)}, all by the first line:", all("tool_use_id" in r for r in built))

# %% [markdown] tags=["core"]
# The second dict spells the field `toolUseId`, and it runs only when a tool *raises*; `run_command` reported its
# failure as output, so nothing has raised yet. Now the agent guesses a file name that does not exist: `read_file`
# raises, the `except` branch builds the result, and the engine sends the next request:

# %% tags=["core"]
import anthropic

from msgmodel.course.sessions import SETTINGS_PROMPT

try:
    engine.submit(SETTINGS_PROMPT)
except anthropic.BadRequestError as err:
    print(f"HTTP {err.status_code}: {err.api_message}")
print(built[-1])

# %% [markdown] holdback=["The 400 names the exact path: message 10, block 0, its missing `tool_use_id`."]
# The 400 names the exact path: message 10, block 0, its missing `tool_use_id`. Nothing in the process noticed: a dict
# takes any key, `json` encodes it, and the legacy storage saves it and loads it back unchanged. The first code to
# object is a reader that knows the shape, `msgmodel.from_json`, and only if someone calls it:

# %%
import tempfile
from pathlib import Path

from msgmodel import DecodeError, block_to_api, from_json, tool_result_block
from msgmodel.course.legacy import storage as legacy_storage

with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "session.json"
    legacy_storage.save(path, engine.messages)
    print("legacy storage: saved and loaded back unchanged:", legacy_storage.load(path) == engine.messages)
    saved = path.read_bytes()
try:
    from_json(saved)
except DecodeError as e:
    print("msgmodel.from_json:", e)

# %% [markdown]
# The session is now poisoned: every later request carries the same result, and so does the saved file.
# The constructor catches the slip earlier still: `tool_result_block(tool_use_id, content, is_error)` has no parameter
# spelled `toolUseId`, so the slip is a `TypeError` the first time the line runs (and a mypy error before it runs:
# chapter 04), while the correct call writes the right field name:

# %%
try:
    tool_result_block(toolUseId="toolu_04", content="read_file: no such file", is_error=True)
except TypeError as e:
    print("TypeError:", e)
print(block_to_api(tool_result_block("toolu_04", "read_file: no such file", is_error=True)))

# %% [markdown]
# mypy cannot see the slip in the legacy engine, whose messages are `list[dict[str, Any]]`: a dict of `Any` takes any
# key. [Chapter 03](03_root_cause.ipynb) runs mypy on the engine's loop, copied into a snippet.

# %% [markdown]
# ## Follow-up questions
#
# **"What must the transcript keep, and what may it drop?"** Keep who said what, each tool's name and arguments,
# each result's text, the failure flag, a visible mark where something was cut, and a label for whatever cannot be
# shown. Drop thinking (the model's scratch space; its signature means something only to the API) and ids (pairing
# matters to the API, not to a reader). The limits are two constants in `msgmodel/core/message.py`, `ARGS_LIMIT` and
# `RESULT_LIMIT`:

# %%
from msgmodel import block_to_text, message_to_text

print(message_to_text(TRICKY[1]))  # thinking and ids are gone; the long pattern ends in "…"
long_result = block_to_text(tool_result_block("toolu_07", "x" * 600))
print(f"a 600-character result renders as {len(long_result)} characters, ending in {long_result[-6:]!r}")

# %% [markdown]
# **"Could you have caught the slip without rewriting the engine?"** Yes: check the dicts where they are born. Decode
# each result in the engine's `on_tool_result` callback with `block_from_api`, and the slip becomes a `DecodeError`
# naming the field, before any request is sent; the bad result never enters the history.

# %%
from msgmodel import block_from_api

guarded = legacy_engine(model=ScriptedModel([DEBUG_TURNS[4]]), tools=debug_tools(), on_tool_result=block_from_api)
try:
    guarded.submit("Does a settings module override the default?")
except DecodeError as e:
    print("DecodeError:", e)
print("messages in the history:", len(guarded.messages), "(the prompt and the call; the bad result never got in)")

# %% [markdown]
# **"Why did no test catch the slip?"** The `except` branch runs only when a tool raises, and even a test that makes
# one raise usually checks the dict it gets back, which looks fine (it has the error text and the flag). Only a test
# that sends the next request, or decodes the history, fails.

# %% [markdown]
# ## Pitfalls and trade-offs
#
# * **A flattening bug passes every check.** The API accepts placeholder text and sessions keep running. Only a
#   *semantic* test catches it: ask the summary questions, or count the key facts it keeps (section 4).
# * **Every cut loses something; mark it.** An unmarked cut makes the summarizer treat a fragment as the whole.
# * **Failure is data.** Keep `is_error` as a flag all the way to the summarizer's text; prose such as "no such file"
#   is not a reliable signal.
# * **The transcript format is an interface.** A summarizer prompt, a parser and golden tests depend on it; a second
#   renderer with a slightly different format splits them.
# * **Error paths are the least tested code.** A hand-built dict there waits for the first real failure; a
#   constructor moves the mistake to the first run (or to mypy), decoding at the boundary to the line that made it.

# %% [markdown]
# ## vs. the real source
#
# The original tutorial's own authoritative `blockToText` marks a failed result (`(失败)`, "failed") and ends every
# cut with `…`, but renders a result whose content is not a string as `""`, and any kind it does not name as `""`
# (`default: return ""`): two of copy #2's four gaps here, list results and other kinds.
# `msgmodel.block_to_text` renders the list's text. That the gap matters is in the installed SDK's own type: a
# result's `content` is a string *or* a list of blocks.

# %%
from anthropic.types.tool_result_block_param import ToolResultBlockParam

print(inspect.getsource(ToolResultBlockParam))

# %% [markdown]
# How LangChain, pydantic-ai, openai-agents and Claude Code render history for a summarizer, and seven public projects
# that shipped the `(tool call)` kind of bug, are in [survey.md](../docs/survey.md#chapter-02).

# %% [markdown]
# ## One-line summary
#
# **A summary can only keep what its transcript shows, and the API happily accepts a transcript that has lost every
# tool call, so render every block through one authoritative `block_to_text` that keeps the tool's name, its
# arguments, its result and its failure.**

# %% [markdown]
# ## Exercises
#
# Each exercise cell shows "not attempted yet" until you replace the placeholder. Stuck? `hint("02.1")`, then
# `hint("02.1", 2)`; `reveal("02.1", confirm=True)` shows a reference solution.
#
# **02.1 Render a block dict for a summarizer.** Write `render_block(b)` for one block **dict**: text as itself; a
# tool call with its name and arguments; a result with its text, whether its content is a string or a list of
# blocks, and the word "failed" when `is_error` is true; any other kind as a label naming its `type`. The checker
# tries tricky blocks: a result with no `content` at all, a list result, an image.
#
# *Goal:* Write copy #2 of how to read a block yourself, and feel why a renderer is knowledge of every kind.

# %%
from msgmodel.course.exercises import check, hint, reveal


def render_block(b):
    ...  # your code here


check("02.1", render_block)

# %% [markdown]
# **02.2 What can this transcript answer?** Below is copy #2's transcript of a short history, as compaction would
# see it. Which questions can a summarizer answer from this text *alone*, correctly?
#
# *Goal:* Judge a transcript by what it lets a summarizer know: a lossy copy of a reader loses facts, not style.

# %%
from msgmodel.course.exercises.ch02 import HAND_BUILT, QUIZ_HISTORY, QUIZ_QUESTIONS

print(summary30.transcript_fixed(to_api(QUIZ_HISTORY)))

# %%
for letter, question in QUIZ_QUESTIONS.items():
    print(letter, question)
answerable = None  # your answer: the set of letters of the questions it answers, such as {"B", "C"}
check("02.2", answerable)

# %% [markdown]
# **02.3 Which hand-built results does the API refuse?** Five hand-built `tool_result` dicts, each sent as the answer
# to the assistant's `read_file` call `toolu_04`, in the message right after it. Predict which ones the API refuses;
# the checker quotes the 400 text for each slip as [api-rules.md](../docs/api-rules.md) records it.
#
# *Goal:* See what hand-built blocks get wrong that a constructor would have refused at the line that wrote them.

# %%
for i, block in enumerate(HAND_BUILT):
    print(i, block)
rejected = None  # your answer: the set of indices of the blocks the API refuses, e.g. {1, 4}
check("02.3", rejected)
