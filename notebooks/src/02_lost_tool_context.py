# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # 02 · Lost tool context (step 30)
#
# *The series follows one agent codebase through its steps. At step 29 ([chapter
# 01](01_orphan_tool_result.ipynb)) compaction stopped producing 400s. This chapter is about the
# bug that survived that fix: the summary no longer knows what the agent read, what it ran, or
# what failed. It ends with a planted illustration of a warning in the original step-31
# tutorial, a field-name slip like `toolUseId` in a hand-built dict, which the API catches only
# when a tool fails.*

# %% [markdown]
# ## What
#
# We run a short debugging session with the legacy, dict-based agent loop. It reads a config
# file, runs the test suite (which fails) and greps the code. Then we look at exactly what the
# step-30 summary transcript gives the summarizer, and compare it with what it should have given. Both
# versions go to a summarizer through the official SDK, and we ask each summary two concrete
# questions: *which file was read?* and *which command failed, and why?* We find the API rule
# that makes projects flatten tool blocks to text in the first place. We take apart step 30's
# local fix (copy #2 of "how to render a block") and measure how far it drifts from the real one.
# Last comes a hand-built `tool_result` dict with a one-word slip (planted in the legacy engine to
# illustrate the original tutorial's warning) that nothing in the process notices until the
# server rejects it.
#
# After this chapter you can say what a summarizer's transcript must keep, explain why a
# flattening bug never shows up as an error, and show why a hand-built dict is a bug waiting on
# the error path.

# %% [markdown]
# ## Why
#
# **"Your compaction no longer causes any 400s, and the agent keeps working after it. How can it
# still be broken?"**
#
# A 400 is the easy kind of bug: it is loud, it happens at once, and its text tells you where to
# look. Step 30's bug is silent. Compaction replaces the old part of the conversation with a
# summary, and a summary can only be as good as the text the summarizer reads. The summary
# transcript of step 30 rendered every tool block as `(tool call)`. The API accepts that text
# without complaint, because a placeholder is valid text. The summary comes back, the session goes on,
# and the agent has forgotten which files it read, which commands it ran and what failed. It
# reads the files again, runs the failing command again, or proposes a fix that contradicts
# evidence it no longer has. No error is raised and no status code changes.
#
# The interviewer's next question is usually *"why flatten at all?"*. The answer is an API rule:
# a request that contains `tool_use` or `tool_result` blocks must define `tools`, and a
# summarization call normally defines none ([api-rules.md](../docs/api-rules.md), finding 4). So projects turn blocks
# into text, and each project writes its own little renderer to do it. That renderer is one more
# copy of "what a block looks like", and that is the thread of the whole series.
#
# ```mermaid
# flowchart LR
#     H["history:<br/>text, tool_use, tool_result"] -->|"summary30.transcript<br/>flattens"| T["'(tool call)' × 6"]
#     H -.->|"send the blocks as they are,<br/>no tools defined"| X["400: must define tools"]
#     T -->|"summarize, no tools: 200"| S["summary: 'I cannot say'"]
#     S --> C["compacted history: the agent<br/>forgot what it read, ran and saw fail"]
# ```
#
# In words: flattened to `(tool call)`, the history reaches the summarizer without a 400 but
# also without its facts; sent as real blocks with no tools defined, it gets a 400 instead.

# %% [markdown]
# ## How
#
# ### 1. A debugging session with the legacy engine
#
# The exhibit is `msgmodel.course.legacy.engine.QueryEngine`, the dict-based agent loop as it stood at
# steps 29–30. It calls the model through the official SDK, runs each `tool_use`, and builds the
# `tool_result` dicts by hand. The demo tools (`read_file`, `grep`, ... over a small in-memory
# project) include no shell, so we add a stand-in `run_command` that behaves like a typical
# shell tool: it runs, and it *reports* the command's failure in its output (`exit code 1`)
# instead of raising. Keep that in mind for section 6.
#
# The yardstick throughout is msgmodel's own model, which [chapter 04](04_unified_model.ipynb)
# walks through; here we only use a few of its readers. `from_api` decodes wire dicts into typed
# blocks (`block_from_api` does one block, `from_json` reads saved JSON, and both raise a
# `DecodeError` that names the bad path); `transcript_of` and `block_to_text` render blocks as
# text for a summarizer; an `OpaqueBlock` carries a kind msgmodel does not interpret, such as
# an image.

# %%
from msgmodel import TextBlock, ToolUseBlock, from_api
from msgmodel.api import local_client
from msgmodel.api.demo_tools import demo_registry
from msgmodel.api.scripted import ScriptedModel
from msgmodel.core.tools import tools_param
from msgmodel.course.display import show
from msgmodel.course.legacy.engine import QueryEngine as LegacyEngine

# %%
PYTEST_OUTPUT = """exit code 1
src/app.py:15: TypeError: 'str' object cannot be interpreted as an integer
!!! stopping after 1 failures !!!
1 failed"""


def run_command(command: str) -> str:
    """A stand-in shell tool: it reports a failing command in its output, as shell tools do."""
    if "pytest" in command:
        return PYTEST_OUTPUT
    return f"exit code 127\nsh: {command.split()[0]}: command not found"


# %%
RUN_COMMAND_SCHEMA = {
    "name": "run_command",
    "description": "Run a shell command in the project root; returns its exit code and output.",
    "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
}
registry = demo_registry()
tools = {name: tool.run for name, tool in registry.items()} | {"run_command": run_command}
schemas = [*tools_param(registry), RUN_COMMAND_SCHEMA]

# %% [markdown]
# The agent's side of the session is scripted with `ScriptedModel`, so every model turn is
# exactly the one we want. The loop, the tool runs and the dicts all belong to the legacy
# engine. The script's last turn is used in section 6.

# %%
TURNS = [
    [TextBlock("I'll read the config first."), ToolUseBlock("toolu_01", "read_file", {"path": "src/config.py"})],
    [
        TextBlock("Now the tests, with the variable set."),
        ToolUseBlock("toolu_02", "run_command", {"command": "APP_RETRIES=5 pytest -q -x --tb=line"}),
    ],
    [
        TextBlock("Where is the retry count used?"),
        ToolUseBlock("toolu_03", "grep", {"pattern": "retries", "path": "src/"}),
    ],
    "I have what I need; next I'll write the fix.",
    # section 6: later in the session, the agent guesses a file name that does not exist
    [TextBlock("Is there a settings module?"), ToolUseBlock("toolu_04", "read_file", {"path": "src/settings.py"})],
]

# %%
built = []  # every tool_result dict the engine builds, through its on_tool_result callback
engine = LegacyEngine(local_client(ScriptedModel(TURNS)), tools, schemas, on_tool_result=built.append)
print(engine.submit("The tests fail when APP_RETRIES is set. Find out why."))
history = list(engine.messages)  # a snapshot: the engine keeps appending to its own list
show(from_api(history))

# %% [markdown]
# Eight messages: the prompt, three tool rounds (an assistant `tool_use`, then a user
# `tool_result`) and a last answer. The facts the next turn needs are all in the tool results:
# `config.py` stores `APP_RETRIES` as a string, `pytest` fails with a `TypeError` at
# `src/app.py:15`, and line 15 is `range(retries)`.
#
# ### 2. What the summarizer reads
#
# When the history outgrows its budget, the compactor renders the old part as text and asks a
# model to summarize it. The legacy compactor is step 29's `legacy.compact29` (the slicing of
# [chapter 01](01_orphan_tool_result.ipynb)), and it renders the old part with step 30's
# `summary30.transcript`, *before* step 30's fix. The authority's renderer is
# `msgmodel.transcript_of`, built on `block_to_text`. Here is the same history through both,
# with each tool result cut to its first two lines so the columns fit on a screen (the widget
# below shows the full texts).

# %%
from msgmodel import tool_uses_of, transcript_of
from msgmodel.course.legacy import summary30
from msgmodel.course.teaching import side_by_side
from msgmodel.course.widgets import TranscriptCompare


def first_lines(transcript: str, keep: int = 2) -> str:
    """For display only: every line that continues a block beyond `keep` lines is counted, not shown."""
    out, run = [], []
    for line in [*transcript.splitlines(), "[end]"]:
        if line.lower().startswith(("user:", "assistant:", "[")):  # a new message or block starts
            out += run if len(run) <= keep + 1 else [*run[:keep], f"  ⋮ ({len(run) - keep} more lines)", ""]
            out, run = [*out, line], []
        else:
            run.append(line)
    return "\n".join(out[:-1])


# %%
step30_text = summary30.transcript(history)
authority_text = transcript_of(from_api(history))
titles = ("step 30, before its fix: summary30.transcript", "the authority: msgmodel.transcript_of")
side_by_side(first_lines(step30_text), first_lines(authority_text), titles)

# %% [markdown]
# On the left, every tool block became `(tool call)`. Not even the count survives: there are six
# placeholders for three calls, because each *result* is labelled `(tool call)` too. On the
# right, each call keeps its name and arguments and each result keeps its text.

# %%
calls = sum(len(tool_uses_of(m)) for m in from_api(history))
print(f"tool calls in the history: {calls}; '(tool call)' placeholders: {step30_text.count('(tool call)')}")

# %% [markdown]
# The same two transcripts in full, in `TranscriptCompare`: the table counts how often each side
# mentions a few of the session's facts, and in Jupyter the search box counts any word you type.

# %%
FACTS = ("src/config.py", "run_command", "pytest", "exit code 1", "TypeError", "src/app.py:15", "grep")
compare = TranscriptCompare(from_api(history), before=summary30.transcript, terms=FACTS[:5], before_label=titles[0])
compare

# %%
compare.query.value = "failed"  # what typing in the search box does
print(f"mentions of {compare.query.value!r} (before, after):", compare.hits(compare.query.value))

# %% [markdown]
# ### 3. Why flatten? The summarization request defines no tools
#
# A summarization request carries the conversation and "summarize this", and it defines no
# tools, because the summarizer should write, not act. The API has a rule about exactly this
# request (api-rules.md, finding 4). The local validator reports it without sending anything:

# %%
import anthropic

from msgmodel import to_api, user_text
from msgmodel.core.protocol import validate
from msgmodel.course.legacy import api as legacy_api

ASK = "Summarize this conversation so far, for the assistant to continue from."
request = [*history, *to_api([user_text(ASK)])]
for v in validate(request, tools_defined=False):
    print(f"{v.rule}: {v}\n  hint: {v.hint}")

# %% [markdown]
# Sent for real through the official SDK, the request gets a 400 from the local API with the
# same words:

# %%
summarizer = local_client()  # its model is RuleModel, which summarizes when asked without tools
try:
    summarizer.messages.create(model=legacy_api.DEFAULT_MODEL, max_tokens=1024, messages=request)
except anthropic.BadRequestError as err:
    print(f"HTTP {err.status_code}: {err.api_message}")

# %% [markdown]
# Flattened text gets through, whatever it has lost. The API cannot tell a good transcript from
# a useless one, so no check on the request will ever catch this bug:

# %%
for name, text in (("step 30", step30_text), ("authority", authority_text)):
    flat = to_api([user_text(f"{ASK}\n\n{text}")])
    print(f"{name:9} flattened request, no tools -> violations: {validate(flat, tools_defined=False)}")

# %% [markdown]
# So every project that summarizes without tools writes some "block to text" function, and that
# function decides what survives compaction. Step 30's summary transcript wrote `(tool call)`
# for everything that is not text.
#
# ### 4. Ask the summaries
#
# Both transcripts go to the summarizer through `legacy.api.summarize`, which is what the
# legacy compactor calls.

# %%
summary_step30 = legacy_api.summarize(summarizer, legacy_api.DEFAULT_MODEL, step30_text)
summary_authority = legacy_api.summarize(summarizer, legacy_api.DEFAULT_MODEL, authority_text)
print(summary_step30, summary_authority, sep="\n\n")

# %% [markdown]
# The summarizer is `RuleModel`, the local API's deterministic stand-in for a model. It can only
# report what its input shows, and that is the one property that matters here. A real model
# would do a little better: the step-30 transcript keeps the assistant's own words ("I'll read
# the config first", "Now the tests"), so it could guess *which* tools ran. It could not know
# what they returned: the file's contents, the failing line and the error are not in the text.
#
# Here are two questions the agent's next turn depends on, written as small functions that read
# a summary. They are regular expressions over `RuleModel`'s format; a real agent would ask a
# model instead, but either way the answer can only come from the summary's text.

# %%
import re


def which_file_was_read(summary: str) -> str:
    found = re.search(r'read_file \{"path": ?"([^"]+)"', summary)
    return found[1] if found else "cannot tell"


def which_command_failed_and_why(summary: str) -> str:
    pattern = r'run_command \{"command": ?"([^"]+)"\} → returned: exit code [1-9]\d* (\S+?):? (\w+Error)'
    found = re.search(pattern, summary)
    return f"`{found[1]}`: {found[3]} at {found[2]}" if found else "cannot tell"


# %%
for question in (which_file_was_read, which_command_failed_and_why):
    print(question.__name__)
    print(f"  from the step-30 summary:    {question(summary_step30)}")
    print(f"  from the authority's summary: {question(summary_authority)}")

# %% [markdown]
# A blunter measure, in the spirit of the hermes-agent benchmark cited in section 7: how many of
# the session's key facts each summary still holds.

# %%
for name, summary in (("step 30", summary_step30), ("authority", summary_authority)):
    kept = [f for f in FACTS if f in summary]
    print(f"{name:9} summary keeps {len(kept)}/{len(FACTS)} key facts: {kept}")

# %% [markdown]
# ### 5. The step-30 fix: copy #2
#
# Step 30 fixed the summary where the bug was reported, inside compaction. It wrote a private
# `_block_to_text` next to the compactor:

# %%
import difflib
import inspect

print(inspect.getsource(summary30._block_to_text))

# %% [markdown]
# It renders calls as `[call name(args)]` and results as `[result: ...]`, just like the
# authority. On the session from the bug report it *is* the authority: a line diff of the two
# transcripts shows only JSON spacing: `json.dumps` puts a space after `:`, while msgmodel
# encodes with msgspec (the fast JSON and struct library its model is built on), which does not.

# %%
fixed_text = summary30.transcript_fixed(history)
diff = difflib.unified_diff(
    authority_text.splitlines(), fixed_text.splitlines(), "transcript_of", "transcript_fixed", lineterm="", n=0
)
print("\n".join(line for line in diff if not line.startswith("@@")))

# %% [markdown]
# Now a few blocks that the bug report's session did not contain: a screenshot from the user,
# the model's thinking, a long `grep` pattern, a read that failed, and a result that a tool
# returned as a list of blocks instead of a string (the API allows both).

# %%
from msgmodel import Message, OpaqueBlock, ThinkingBlock, assistant_msg, tool_result_block, tool_result_msg

LONG_PATTERN = "|".join(["retries", "backoff", "timeout", "APP_RETRIES", "APP_TIMEOUT", "load_config"] * 4)
screenshot = OpaqueBlock({"type": "image", "source": {"type": "url", "url": "https://example.com/ci.png"}})
tricky = [
    Message(role="user", content=[TextBlock("CI fails too; here is the screenshot:"), screenshot]),
    assistant_msg([
        ThinkingBlock("A settings module might override the config.", signature="c2lnbmF0dXJl"),
        ToolUseBlock("toolu_05", "read_file", {"path": "src/settings.py"}),
        ToolUseBlock("toolu_06", "grep", {"pattern": LONG_PATTERN, "path": "src/"}),
    ]),
    tool_result_msg([
        tool_result_block("toolu_05", "read_file: no such file: `src/settings.py`", is_error=True),
        tool_result_block("toolu_06", [TextBlock("src/app.py:15:     for attempt in range(retries):")]),
    ]),
]
titles = ("copy #2: summary30.transcript_fixed", "the authority: transcript_of")
side_by_side(summary30.transcript_fixed(to_api(tricky)), transcript_of(tricky), titles)

# %% [markdown]
# Four differences, each small enough to pass a code review:
#
# | block | copy #2 | the authority | what the summary loses |
# |---|---|---|---|
# | a failed result (`is_error`) | `[result: …]` | `[result (failed): …]` | a failure reads like a success |
# | a result given as a list of blocks | `[result: ]` | the blocks' text | the output; looks like "found nothing" |
# | arguments or a result over the limit | cut silently | cut, ending in `…` | whether it saw the end or a cut |
# | an image (or another kind) | nothing | `[image]` | that the user sent a screenshot at all |
#
# Both drop thinking, and that one is on purpose (see the follow-up questions). How often do the
# other four matter? Here is a 300-message synthetic coding session (`synth_session`), rendered
# by both:

# %%
from msgmodel import tool_results_of
from msgmodel.course.synth import synth_session

session = synth_session(300, seed=0)
results = [r for m in session for r in tool_results_of(m)]
copy2, authority = summary30.transcript_fixed(to_api(session)), transcript_of(session)
failed, lists = sum(r.is_error for r in results), sum(not isinstance(r.content, str) for r in results)
cuts = authority.count("…")  # the authority marks every cut it makes, so this counts the cuts
rows = [
    ("failure flags dropped", failed, failed - copy2.count("(failed)"), failed - authority.count("(failed)")),
    ("list results shown empty", lists, copy2.count("[result: ]"), authority.count("[result: ]")),
    ("cuts left unmarked", cuts, cuts - copy2.count("…"), cuts - authority.count("…")),
]
print(f"{len(results)} tool results; what each renderer loses:   copy #2   authority")
for what, total, by_copy2, by_authority in rows:
    print(f"  {what:26} (of {total:>2} cases) {by_copy2:>10} {by_authority:>11}")

# %% [markdown]
# **Why do two copies drift?** Nobody wrote a bug on purpose:
#
# * Copy #2 was written to fix one report, and tested against the session in that report. On
#   that session it agrees with the authority (the diff above).
# * When the authority learns a new case (a failure marker, list results, an ellipsis, a label
#   for images), the change lands in one file. No test compares the two copies and neither
#   imports the other, so nothing carries the change to the other copy.
# * Each consumer of the text binds to one of the two formats: the summarizer's prompt, a parser
#   such as `RuleModel`'s, a golden test. The formats can then no longer change freely.
#
# A better copy does not fix drift. Having no copy does: compaction imports `block_to_text`.
# That refactor is [chapter 04](04_unified_model.ipynb) and [chapter 05](05_refactor_and_regressions.ipynb).
# Copy #1 was [chapter 01](01_orphan_tool_result.ipynb)'s `_is_clean_user_start`, and
# [chapter 03](03_root_cause.ipynb) counts the rest.
#
# ### 6. The hand-built `tool_result` and the `toolUseId` slip
#
# The original step-31 tutorial warns that a hand-built result invites "a field-name slip like
# `toolUseId`", the hardest kind of bug to find while messages are `any`. It gives no such bug
# report; the legacy engine plants one so we can watch it happen. It builds its `tool_result`
# dicts inline, on two lines:

# %%
source = inspect.getsource(LegacyEngine.submit).splitlines()
start = next(i for i, line in enumerate(source) if line.strip() == "try:")
print("\n".join(line[12:] for line in source[start : start + 7]))

# %% [markdown]
# Can you spot the difference? The second dict spells the field `toolUseId`. That line runs
# only when a tool *raises*. In our session nothing raised: `run_command` reported its failure
# as output. So every result was built by the first line, and the history is valid:

# %%
print("keys of each result built so far:", [sorted(r) for r in built])
print("violations:", validate([*history, *to_api([user_text("Go on.")])]))

# %% [markdown]
# Later in the session the agent guesses a file name that does not exist. `read_file` raises,
# the `except` branch builds the result, and the engine sends the next request:

# %%
try:
    engine.submit("Before you fix it: does a settings module override the default?")
except anthropic.BadRequestError as err:
    print(f"HTTP {err.status_code}: {err.api_message}")
slipped = built[-1]  # the dict the except branch just built
print(slipped)

# %% [markdown]
# The 400 names the exact path, `messages.10.content.0.tool_result.tool_use_id`: message 10,
# block 0, its `tool_use_id` field, which is missing. (This wording is the live API's, quoted
# from a probe in [api-rules.md](../docs/api-rules.md), `schema_required_field`.)

#
# Nothing in the process noticed. A dict takes any key, `json` encodes it, and the legacy
# storage saves it and loads it back as if nothing were wrong. The first code to object is a
# reader that knows the shape, and only if someone calls it:

# %%
import tempfile
from pathlib import Path

from msgmodel import DecodeError, block_to_api, from_json
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
# The session is now poisoned: every later request carries the same result and fails the same
# way, and a restart replays it from the saved file. What catches the slip *before* the server?
# `msgmodel.core.protocol.validate`, which lists every violation it finds:

# %%
for v in validate(engine.messages):
    print(f"{v.rule}: {v}")

# %% [markdown]
# Only the first line is verified: it is the 400 above, in the live API's words. The second is
# msgmodel's reading, not verified live: no capture shows whether the API also names the stray
# `toolUseId` ("Extra inputs are not permitted"), or in which order it would list the two
# (`msgmodel/core/protocol.py`, "Open questions", Q2). The third follows from the first: a result
# without a `tool_use_id` answers nothing, so the call `toolu_04` counts as unanswered.

# %% [markdown]
# The constructor catches it earlier still. `tool_result_block(tool_use_id, content, is_error)`
# has no parameter spelled `toolUseId`, so the slip fails with a `TypeError` the first time the
# line runs, and mypy flags it before it ever runs. Written correctly, the wire dict
# (`block_to_api`) comes out with the right field name:

# %%
try:
    tool_result_block(toolUseId="toolu_04", content="read_file: no such file", is_error=True)
except TypeError as e:
    print("TypeError:", e)
print(block_to_api(tool_result_block("toolu_04", "read_file: no such file", is_error=True)))

# %% [markdown]
# mypy cannot see the slip in the legacy engine, because its messages are `list[dict[str, Any]]`
# and a dict of `Any` takes any key. [Chapter 03](03_root_cause.ipynb) runs mypy on a snippet
# with this slip to show it.
#
# ### 7. The same bug in public projects
#
# Flattening tool turns to placeholders, or dropping them from the summarizer's input, is bug #2
# of [api-rules.md](../docs/api-rules.md)'s survey of public trimming and compaction bugs
# (section 2). Every row below shipped it (bounty-challenge is the cortex project's tracker):
#
# | Project | What the summarizer saw | What happened |
# |---|---|---|
# | [hermes-agent#9661][1] | old output as `[Old tool output cleared…]` | PR (closed): facts kept **0/24** → **24/24** |
# | [picoclaw#778][2] | only `role: content`; tool turns vanished | [PR #829][3] (closed): serialize calls, results |
# | [bounty-challenge#16576][4] | tool content as `[Non-text content]` | "intentional design" (won't fix) |
# | [dynamiq#742][5] | the flat input omitted `tool_calls` | merged: inline tool name and arguments |
# | [SpeakMCP#530][6] | tool-call-only turns dropped | [PR #542][7]: serialize calls (name, cut args) |
# | [dyad#2515][8] | built from `${m.content}` only | flagged by a review bot |
# | [code_puppy#779][9] | tool blocks, no tools defined (finding 4) | 400 swallowed; fell back to truncation |
#
# [1]: https://github.com/NousResearch/hermes-agent/pull/9661
# [2]: https://github.com/sipeed/picoclaw/issues/778
# [3]: https://github.com/sipeed/picoclaw/pull/829
# [4]: https://github.com/BaseIntelligence/bounty-challenge/issues/16576
# [5]: https://github.com/dynamiq-ai/dynamiq/pull/742
# [6]: https://github.com/aj47/SpeakMCP/issues/530
# [7]: https://github.com/aj47/SpeakMCP/pull/542
# [8]: https://github.com/dyad-sh/dyad/pull/2515
# [9]: https://github.com/mpfaffenberger/code_puppy/issues/779
#
# The `toolUseId` slip has no row: it is planted here, and that survey covers trimming and
# summarization bugs.

# %% [markdown]
# ## Follow-up questions
#
# **"Why not send the summarizer the real blocks and define the tools?"**
#
# You can: the rule is about *defining* tools, not about what the messages contain. Claude
# Code's full compaction reportedly does this, forking an agent with the raw history (a
# second-hand account, [anchors.md](../docs/anchors.md) 1.7). There are costs. You are summarizing because the history
# is too big, and raw tool outputs are usually the biggest part of it. The tool definitions add
# tokens. And a model that has tools may call one instead of writing the summary. A flattened
# transcript with bounded cuts is smaller and needs no tools. Either way, make the choice on
# purpose.

# %%
print("raw blocks + tools defined ->", validate(request, tools_defined=True))

# %% [markdown]
# **"What must the transcript keep, and what may it drop?"**
#
# Keep who said what, each tool's name and arguments, each result's text, the failure flag, a
# visible mark where something was cut, and a label for whatever cannot be shown. Drop thinking:
# it is the model's scratch space, not part of the conversation, and its signature only means
# something to the API. Drop ids too: pairing matters to the API, not to a reader. The limits are
# two constants in `message.py` (`ARGS_LIMIT`, `RESULT_LIMIT`), so there is one place to tune
# them.

# %%
from msgmodel import block_to_text, message_to_text

print(message_to_text(tricky[1]))  # thinking and ids are gone; the long pattern ends in "…"
long_result = block_to_text(tool_result_block("toolu_07", "x" * 600))
print(f"a 600-character result renders as {len(long_result)} characters, ending in {long_result[-6:]!r}")

# %% [markdown]
# **"The failed result already says 'no such file'. Why does the flag matter?"**
#
# Because readers act on the flag, not on the prose. The API tells the model a call failed
# through `is_error`. A summarizer that is told "failed" says so, and a later step that parses
# the summary branches on it. Here is the tricky history's failed read, summarized through each
# copy:

# %%
failed_read = tricky[1:]  # the calls and their results
renderings = (("copy #2", summary30.transcript_fixed(to_api(failed_read))), ("authority", transcript_of(failed_read)))
for name, text in renderings:
    summary = legacy_api.summarize(summarizer, legacy_api.DEFAULT_MODEL, text)
    print(f"{name:9} →", next(line.strip() for line in summary.splitlines() if "src/settings.py" in line))

# %% [markdown]
# **"Could you have caught the slip without rewriting the engine?"**
#
# Yes: check the dicts where they are born. The legacy engine has an `on_tool_result` callback,
# and decoding each result there with `block_from_api` turns the slip into a `DecodeError` that
# names the field. That happens in the process, before any request is sent, and the bad result
# never enters the history. It is a good first step on the way to the constructors.

# %%
from msgmodel import block_from_api

guarded = LegacyEngine(local_client(ScriptedModel([TURNS[4]])), tools, schemas, on_tool_result=block_from_api)
try:
    guarded.submit("Does a settings module override the default?")
except DecodeError as e:
    print("DecodeError:", e)
print("messages in the history:", len(guarded.messages), "(the prompt and the call; the bad result never got in)")

# %% [markdown]
# **"Why did no test catch it?"**
#
# The happy path builds every result on the correct line, and the `except` branch runs only
# when a tool raises. Even a unit test that does make a tool raise usually checks the dict it
# gets back, and that dict looks fine: it has the error text and the flag
# (`slipped["is_error"]` is `True`, `"no such file" in slipped["content"]` holds). Only a test
# that sends the next request, or validates or decodes the history, would fail.

# %% [markdown]
# ## Pitfalls and trade-offs
#
# * **A flattening bug passes every check.** The API accepts placeholder text, validators pass,
#   and the sessions keep running. Only a *semantic* test catches it: ask the summary questions,
#   as section 4 does, or count the key facts it keeps, as hermes-agent's benchmark did.
# * **Every cut loses something; mark it.** Cutting arguments at 200 characters and results at
#   500 keeps transcripts small. An unmarked cut makes the summarizer treat a fragment as the
#   whole. The ellipsis costs one character.
# * **Failure is data.** Keep `is_error` as a flag all the way to the text the summarizer reads.
#   Prose such as "no such file" is not a reliable signal for the next reader.
# * **The transcript format is an interface.** A summarizer prompt, a parser and golden tests
#   all depend on it. A second renderer with a slightly different format (`user:` here,
#   `User:` there; `{"path": ...}` with a space or without) splits them.
# * **Fixing at the call site creates copies.** Copy #2 fixed what was reported and drifted on
#   everything else. Fix the authority and import it.
# * **Error paths are the least tested code.** A hand-built dict on an error path waits for the
#   first real failure in production. A constructor moves the mistake to the first run (or to
#   mypy), and decoding at the boundary moves it to the line that made it.
# * **Raw history or flattened text is a real trade-off.** Raw blocks keep everything, but they
#   cost tokens, need tools defined and can trigger tool calls. Flattened text is cheap and
#   tool-free, but it is only as good as its renderer.

# %% [markdown]
# ## vs. the real source
#
# How others render history for a summarizer, and how they build tool results (from
# [anchors.md](../docs/anchors.md) and [api-rules.md](../docs/api-rules.md)):
#
# * **The original step-31 tutorial** (TypeScript). Its authoritative `blockToText` already
#   marks a failed result (`(失败)`, "failed") and ends every cut with `…`, but it renders a
#   result whose content is a list as `""`: the same gap as copy #2 here. msgmodel's
#   `block_to_text` renders the list's text.
#
# * **Anthropic Python SDK** (`anthropics/anthropic-sdk-python`). There are no message
#   constructors: tool results are dict literals, as in the tool runner. The request types such
#   as `ToolResultBlockParam` (`types/tool_result_block_param.py`) are `TypedDict`s, which a
#   type checker can use but which nothing checks at runtime. A `toolUseId` slip is therefore
#   the server's to find. The beta tool runner's client-side `compaction_control` strips
#   trailing `tool_use` blocks, asks the model for a summary, and replaces the whole history
#   with one user message.
# * **Claude Code** (closed source; second-hand accounts). Full compaction forks an agent with
#   the *raw* history, with images stripped, so nothing is flattened. Its cheapest tier,
#   microcompact, replaces old `tool_result` content with `[Old tool result content cleared]`.
#   That is a placeholder by design, but it keeps the pair and the tool call, and it only
#   touches old results.
# * **pydantic-ai-harness** (`pydantic_ai_harness/compaction/`). Its `_format_messages`
#   renders `Tool Call [name]: {args}` and `Tool [name]: {content[:500]}...`. That is close to
#   copy #2: there is no failure flag, the arguments are not cut, and thinking is dropped.
# * **LangChain** (`langchain_core/messages/utils.py`, `SummarizationMiddleware`). The old
#   middleware formatted the Python repr of the message list into the prompt.
#   `get_buffer_string` appends `str(tool_calls)` to AI lines, and newer versions offer
#   `format="xml"`. There is no truncation and no error marker.
# * **openai-agents** (`memory/tool_output_trimmer.py`). `ToolOutputTrimmer` rewrites old
#   outputs to `[Trimmed: {tool} output — {n} chars → {k} char preview]` followed by the
#   preview. It keeps the tool's name and a marked preview, and it says that it cut.
# * **Failure as data elsewhere.** pydantic-ai's `ToolReturnPart.outcome` is
#   `'success' | 'failed' | 'denied' | 'interrupted'`, and Vercel AI's `ToolResultOutput` has
#   `error-text` and `error-json` kinds. Both treat failure as a kind, not as prose.
#
# Among the libraries anchors.md surveys, none ships a summarizer transcript that keeps tool
# names, cut arguments, results *and* a failure marker together. `msgmodel.block_to_text` does,
# in one place.

# %% [markdown]
# ## One-line summary
#
# **A summary can only keep what its transcript shows, and the API happily accepts a transcript
# that has lost every tool call, so render every block through one authoritative
# `block_to_text` that keeps the tool's name, its arguments, its result and its failure.**

# %% [markdown]
# ## Exercises
#
# ### Exercise 02.1: render a block dict for a summarizer
#
# Write `render_block(b)` for one block **dict** (the legacy world's data): text as itself; a
# tool call with its name and arguments; a result with its text, whether its content is a string
# or a list of blocks, and the word "failed" when `is_error` is true; any other kind as a label
# naming its `type`. The checker tries tricky blocks: a result with no `content` at all, a list
# result, an image.

# %%
from msgmodel.course.exercises import check, reveal


def render_block(b):
    if b.get("type") == "text":
        return b["text"]
    return "(tool call)"  # your code here: keep the tool, its arguments, the result and the failure


check("02.1", render_block)

# %% [markdown]
# Stuck? `print(reveal("02.1"))` shows a reference solution.
#
# ### Exercise 02.2: what can this transcript answer?
#
# Below is copy #2's transcript of a short history, cut just before the next model call, which
# is what compaction would see. Which of the questions can a summarizer answer from this text
# *alone*, correctly? (Reading the history itself would be cheating: the summarizer cannot.)

# %%
from msgmodel.course.exercises.ch02 import HAND_BUILT, QUIZ_HISTORY, QUIZ_QUESTIONS

print(summary30.transcript_fixed(to_api(QUIZ_HISTORY)))

# %%
for letter, question in QUIZ_QUESTIONS.items():
    print(letter, question)
answerable = None  # your answer: the set of letters of the questions it answers, e.g. {"A", "C"}
check("02.2", answerable)

# %% [markdown]
# Stuck? `print(reveal("02.2"))` shows a reference solution.
#
# ### Exercise 02.3: which hand-built results does the API refuse?
#
# Five error paths, five hand-built `tool_result` dicts. Each one is sent as the answer to the
# assistant's `read_file` call `toolu_04`, in the message right after it. Predict which ones the
# API refuses. The checker's hint quotes the 400 text for each slip as
# [api-rules.md](../docs/api-rules.md) records it. (Two slips you may expect are left out on
# purpose, `isError` for `is_error` and `content: None`: msgmodel refuses both, but that is
# msgmodel's reading; no live capture shows what the API answers.)

# %%
for i, block in enumerate(HAND_BUILT):
    print(i, block)
rejected = None  # your answer: the set of indices of the blocks the API refuses, e.g. {1, 4}
check("02.3", rejected)

# %% [markdown]
# Stuck? `print(reveal("02.3"))` shows a reference solution.
