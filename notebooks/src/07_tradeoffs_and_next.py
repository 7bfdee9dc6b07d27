# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown] tags=["core"]
# # 07 · Trade-offs and what comes next
#
# *Chapters 01–06 made the case for one authoritative message model. This chapter asks what it costs and when it
# does not apply, compares it with Python's other options, and runs our sketch of the next step on top of it.*
#
# ## What
#
# 1. **When to consolidate**, and when it is premature.
# 2. **Python's options, compared**: `TypedDict`, `dataclass`, pydantic and msgspec: what mypy catches, bad input,
#    decode speed.
# 3. **What comes next**: our sketch of step 32's event stream, which the original only previews. Optional, off the
#    core route: step 33's thinking, a Claude Code session file, the local API serving your agent.
#
# ## Why
#
# **"Wasn't `message.py` over-engineering? When would you *not* build it?"**
#
# Senior interviews probe judgement: when an abstraction pays for itself. `message.py` costs something (every layer
# depends on it, it needs heavy tests, msgspec needs a defence), worth paying at step 31 because copies of "what a
# message looks like" had already got a detail wrong (step 30's renderer, and the slip). The other half of the
# answer: the next features cost little on top of it.

# %% [markdown] tags=["core"]
# ## How
#
# ### 1. When to consolidate
#
# The trigger is the original tutorial's: consolidate when **the same piece of knowledge has been copied at least
# twice, and the copying has already caused a bug** ("twice, plus a bug" is this series' shorthand for it). Two
# copies show the knowledge is real and shared; a bug shows they drift (chapter 02's copy #2). Step 31 met both. The
# same trigger says when consolidating is **premature**:
#
# | Situation | Copies | A bug from drift? | Verdict |
# |---|---|---|---|
# | Block shapes at step 31 (the original's list, chapter 03 §1) | 5 | yes: step 30's | **consolidate now** |
# | A tool's input schema, read only by the tool registry | 1 | — | **leave it**: it is the authority |
# | Two log formatters print a tool call differently, for people | 2 | no | **wait**: note it |
# | A provider-neutral `Part` class "for when we add a provider" | 0 | — | **premature**: a guess |
# | `ThinkingBlock`, before any feature turns thinking on | — | — | **model it now** |
#
# The five are the original's (three in compaction, one each in engine and API; 34 sites in our exhibit). Step 29's
# orphan came from no copy: slicing asked nobody where a tool answer lives; copy #1 was its patch. The last row is no
# contradiction: the trigger decides when to *create* the authority; once it exists, it describes the whole contract
# it owns, every block the API can send back included. The `Part` class models a contract nobody has given you yet.
#
# ### 2. Four ways to write the model in Python
#
# `TypedDict`s, as the `anthropic` SDK types its requests; frozen
# `dataclass`es, as pydantic-ai's parts (with a decoder you write); a pydantic discriminated union, as the SDK's
# responses; and msgspec tagged structs, `message.py`. The first three are scratch modules in
# `msgmodel.course.options` (printed by an optional cell below).

# %% [markdown] tags=["core"]
# **"Why not just use `anthropic.types`?"** The SDK has two families of types, not one model. Requests are
# `TypedDict`s (`MessageParam`): mypy checks them, nothing checks them at run time (section 2b runs that). Responses
# are pydantic models (`anthropic.types.Message`): they describe what the API sends back, not a history you store
# and resend. A history is both at once; msgmodel is one model for it and reads both families:

# %% tags=["core"]
import pydantic

from msgmodel import from_api
from msgmodel.api import local_client
from msgmodel.core.protocol import validate

question = {"role": "user", "content": "What is 6 * 7?"}  # a request dict, as a MessageParam types it
reply = local_client().messages.create(model="claude-sonnet-4-6", max_tokens=256, messages=[question])
mixed = [question, {"role": reply.role, "content": reply.content}]  # on purpose: the SDK's pydantic blocks as they are
print("a response block is a pydantic model:", isinstance(mixed[1]["content"][0], pydantic.BaseModel))
typed = from_api(mixed)
print("from_api reads both:", {type(m).__name__ for m in typed}, "| validate:", validate(mixed, as_history=True))

# %%
from msgmodel.course.options import OPTION_SOURCES, option_excerpt

for name, source in OPTION_SOURCES.items():
    print(f"# ── {name}.py ──\n{option_excerpt(source)}\n")

# %% [markdown] tags=["core"]
# #### 2a. What mypy sees
#
# One snippet per option makes three marked mistakes: a `tool_use` field read in the `text` branch (chapter 04,
# section 6), the `toolUseId` slip (chapter 02), and `tool_result` forgotten before `assert_never` (the
# `dict[str, Any]` version ends with a fallback `return` instead). `mypy --strict` on all five, each error mapped
# to the mistake marked on its line:

# %% tags=["core", "demo"]
from msgmodel.course.options import mistakes_verdict

print(mistakes_verdict())

# %% [markdown]
# The snippet for `message.py`, and the same result as a grid:

# %%
from msgmodel.course.options import MISTAKES, mistakes_caught

print(MISTAKES["msgspec (message.py)"])
print(mistakes_caught())

# %% [markdown] tags=["core"]
# **Statically, the four typed options are equal**, and `dict[str, Any]` catches nothing. (The `dataclass` option is
# a *closed* union; chapter 06's I3 hierarchy was open.) The choice between libraries is about run time, where mypy
# cannot help: a dict from `json.loads` or the SDK is `Any`, and nothing checks it.
#
# #### 2b. Bad input, and input the model has never heard of
#
# Three wrong inputs (the slip as a stored session holds it, `text` as a number, a `tool` role), then two *valid*
# ones the model does not interpret (an `image` block, a `cache_control` field). A good decoder refuses the first
# three and keeps the last two, writing them back unchanged; `▶` marks `message.py`'s decoder:

# %% tags=["core"]
from msgmodel.course.options import decode_grid, options

OPTIONS = options()  # name -> (decode, encode)
bad = {
    "the toolUseId slip": b'[{"role":"user","content":[{"type":"tool_result","toolUseId":"toolu_01B","content":"x"}]}]',
    "text is a number": b'[{"role":"assistant","content":[{"type":"text","text":42}]}]',
    "a tool turn": b'[{"role":"tool","content":"Be brief."}]',
    "an image block": b'[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://x.io/a"}}]}]',
    "cache_control on text": b'[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{}}]}]',
}
print(decode_grid(bad, OPTIONS, marked="msgmodel.from_json"))  # accepted: decoded and written back unchanged

# %% [markdown] tags=["core"]
# **Only the marked column refuses every wrong input with a path and keeps both valid ones**: TypedDict accepts
# everything; the dataclass decoder accepts two wrong inputs and refuses both valid ones, naming no place; pydantic
# refuses the image and drops `cache_control`; plain msgspec structs refuse both. msgspec alone does not give that;
# `message.py` adds it (`OpaqueBlock`, `extra`).
#
# #### 2c. Decode speed: why it is fast, and what that cost
#
# msgspec decodes JSON bytes straight into checked structs, skipping the dicts `json.loads` builds, so `from_json`
# validates and still beats `json.loads`, which checks nothing. The cost: a document holding an unknown kind or an
# `extra` field takes a second decoder, a Python walk that must give the same results and error paths, and one more
# dependency. To hold these claims to numbers, this project set itself five goals (optional: `bench/run.py`):
# **P1** decode ≥ 3× as fast as `json.loads` and ≥ 20× the SDK's validator; **P2** `validate` no slower than
# `json.loads`; **P3** linear, 10× the messages in ≤ 12× the time; **P4** memory ≤ 0.55× the same data as dicts;
# **P5** `import msgmodel` ≤ 150 ms. The committed run (optional: [bench/RESULTS.md](../bench/RESULTS.md)) is one run
# on a shared 2-core machine, on 100,000-message sessions with no `cache_control` and no unknown kind:

# %% tags=["core"]
from msgmodel.course.options import bench_verdicts, committed_bench

results = committed_bench()  # bench/results.json, written by `python -m bench.run --publish`
print(bench_verdicts(results))

# %% [markdown]
# The same on this machine, now: a generated agent session of 3,000 messages (`synth_session`: prompts, signed
# thinking, parallel calls, failures), decoded five times per option, round-robin, median kept (the ratios on the bars
# are this run's, each to `msgmodel.from_json`), then the committed P1 run as bars (ratios to `msgmodel.from_json`,
# the figures printed above). Which of pydantic and the dataclass walk comes last here varies by run. Last, the second
# decoder: the same session with one `cache_control` field added goes whole through `from_json`'s Python walk.

# %%
import json  # also used by exercise 07.3 below

from msgmodel import to_json
from msgmodel.course.options import barh, decode_times
from msgmodel.course.synth import synth_session

session = synth_session(3_000, seed=7)
data = to_json(session)
median = decode_times(data, {name: codec for name, codec in OPTIONS.items() if name != "msgspec structs"})
names = list(median)
print(f"each option decoded all {len(session):,} messages five times")  # which is fastest is the bars' to say: one run
barh([{"TypedDict": "TypedDict (json.loads)"}.get(n, n) for n in names], [t * 1000 for t in median.values()],
     f"median ms to decode {len(session):,} messages ({len(data) / 1e6:.1f} MB); lower is better",
     reference=names.index("msgmodel.from_json"))
seconds = results["P1"]["seconds"]
barh(list(seconds), [s * 1000 for s in seconds.values()],
     f"P1: median ms to decode {results['messages']:,} messages (one run)", height=2.8,
     reference=list(seconds).index("msgmodel.from_json"))
cached = data.replace(b'"type":"text"', b'"type":"text","cache_control":{"type":"ephemeral"}', 1)  # one extra field
walk = decode_times(cached, {"walk": OPTIONS["msgmodel.from_json"]})["walk"]
fast, loads = median["msgmodel.from_json"] * 1000, median["TypedDict"] * 1000
print(f"one cache_control field: from_json walks all {len(session):,} messages in {walk * 1000:.1f} ms "
      f"(its fast path: {fast:.1f} ms; json.loads: {loads:.1f} ms)")

# %% [markdown] tags=["core"]
# The misses: P1's SDK ratio, as long tool outputs cost every decoder alike (lazy decoding would change the model's
# contract); P3, whose first tenfold step (from runs of 26 ms) took ×15.1 in this run and ×11.5 in an earlier one:
# linear time is not shown by these runs, only not refuted.
#
# #### 2d. No universal winner
#
# A team that validates everything with pydantic can defend a pydantic union (with `extra="allow"` and a fallback
# for unknown kinds); data that never leaves your own code may need only `TypedDict`. `message.py` chose msgspec for
# validation at the boundary, exact round trips and speed, together; the speed is the fast path's: one `extra` field
# or unknown kind sends the whole document through the Python walk, several times slower than the fast path and
# slower than `json.loads` (timed in the optional cell after 2c's figures). 2a–2c as one table: optional cell below.

# %% [markdown]
# | | `TypedDict` | `dataclass` | pydantic union | msgspec + `message.py` |
# |---|---|---|---|---|
# | narrowing, exhaustiveness, slip caught | yes | yes | yes | yes |
# | bad input at run time | accepted | partly refused, no path | refused, path | refused, JSON path |
# | unknown kind / unknown field | kept / kept | refused / refused | refused / dropped | kept / kept |
# | decoder | `json.loads` | hand-written | generated | generated |
# | decode speed (P1) | slower, and checks nothing | not in P1 | much slower | fastest (fast path) |
# | dependency | none | none | pydantic (large; the SDK brings it) | msgspec (small) |

# %% [markdown] tags=["core"]
# ### 3. What comes next, on the same foundation
#
# **Step 32: from callbacks to an event stream.** The original's step 30 engine reported progress through callbacks;
# its preview of step 32 says they become an async-generator event stream. This series sketches that step (the event
# classes and the fold law are ours): `QueryEngine.run(prompt)` *yields* events, the caller pulls them with
# `async for`, and every event carries values from `message.py`. `event_line` prints one event per line; one of the
# two files asked for does not exist:

# %% tags=["core"]
from msgmodel.api import demo_registry, local_client
from msgmodel.core.engine import QueryEngine, fold_events
from msgmodel.course.display import event_line

engine = QueryEngine(local_client(), tools=demo_registry())
events = []
async for ev in engine.run("Read src/app.py and src/missing.py"):
    events.append(ev)
    print(event_line(ev))

# %% [markdown] tags=["core"]
# **The fold law.** The events *are* the conversation, delivered in pieces: `fold_events(events, history_before) ==
# engine.history`. `TurnStarted` and `AssistantMessage` carry a message each; the `ToolResulted` events after one
# reply fold into a single `tool_result_msg`, as the API requires; a `Compacted` event (the engine emits one when it
# compacts, which these short runs do not) carries the whole history after compaction, which replaces everything
# folded so far. The law holds turn after turn, so a consumer that
# stores events can rebuild the conversation exactly:

# %% tags=["core"]
before = list(engine.history)
more = [ev async for ev in engine.run("What is (3 + 4) * 2 ** 3?")]
print("turn 1: fold_events(events) == history then:", fold_events(events) == before)
print("turn 2: fold_events(more, before) == engine.history:", fold_events(more, before) == list(engine.history))

# %% [markdown]
# **Why a stream beats callbacks.** The caller sets the pace: the engine does no work until the next event is asked
# for, and stopping is leaving the loop. The user presses Esc as the first tool is about to run:

# %%
import contextlib

from msgmodel import block_to_text, blocks_of
from msgmodel.core.engine import ToolCalled
from msgmodel.core.protocol import validate

engine = QueryEngine(local_client(), tools=demo_registry())
async with contextlib.aclosing(engine.run("Read src/app.py and src/db.py")) as stream:
    async for ev in stream:
        if isinstance(ev, ToolCalled):
            break  # stop here: nothing else runs
print("the history ends with:", [block_to_text(b) for b in blocks_of(engine.history[-1])])
print("valid for the next request:", validate(list(engine.history), as_history=True) == [])

# %% [markdown]
# Closing the generator makes the engine answer every call it had not run with an `is_error` result, so the next
# request will not fail on a dangling `tool_use` ([anthropics/claude-code#8004](https://github.com/anthropics/claude-code/issues/8004)
# is this bug in the wild). `contextlib.aclosing` makes the close happen at once.
#
# **Step 33: thinking.** On the wire, one request parameter, `thinking={"type": "enabled", ...}`; the model then
# opens each answer with a signed `thinking` block that must come back byte for byte. In the package it is a client
# that adds the parameter; the engine, storage and `message.py` stay as they are (chapter 06, I2, counted their
# references to thinking: none). The turn is saved, loaded, and continued from the loaded copy:

# %%
import tempfile
from pathlib import Path
from types import SimpleNamespace

from msgmodel.core import storage
from msgmodel.core.engine import EngineConfig


def with_thinking(client, budget_tokens=1024):
    """The same client, asking for extended thinking on every request: the whole of step 33's change."""

    def create(**request):
        return client.messages.create(**request, thinking={"type": "enabled", "budget_tokens": budget_tokens})

    return SimpleNamespace(messages=SimpleNamespace(create=create))


config = EngineConfig(max_tokens=2048)
engine = QueryEngine(with_thinking(local_client()), tools=demo_registry(), config=config)
events = [ev async for ev in engine.run("Read src/app.py")]
opener = blocks_of(events[1].message)[0]
print("first block of the reply:", type(opener).__name__, "| fold law:", fold_events(events) == list(engine.history))
with tempfile.TemporaryDirectory() as d:
    storage.save(Path(d, "session.jsonl"), list(engine.history))
    loaded = storage.load(Path(d, "session.jsonl")).messages
resumed = QueryEngine(with_thinking(local_client()), tools=demo_registry(), config=config, history=loaded)
turn = resumed.run_sync("Now list the files in tests/")
print("signature byte for byte after save + load:", blocks_of(loaded[1])[0].signature == opener.signature)
print("the replayed thinking accepted:", turn.ended.reason, "| protocol agrees:",
      validate(list(resumed.history), thinking="enabled", as_history=True) == [])

# %% [markdown]
# In this sketch step 33 cost one five-line function and nothing in the model. The original's preview of step 33 says
# the same of its design (`assistantMsg(result.contentBlocks)`, and not one line of `message.ts` changed): "good
# foundations make later features cheap".
#
# ### Optional: a Claude Code session file
#
# Claude Code writes each session to a JSONL file, one line per event
# ([claude-code-transcripts.md](../docs/claude-code-transcripts.md) describes the format as observed; it is
# third-party and changes between versions). The package ships a small session **built by hand to that documented
# format, not captured from a real run**: a Claude Code 2.1.x coding task, compacted once, copied while the agent was
# still working. `import_claude_code` rebuilds what the model would have seen. Claude Code writes one content block
# per line, so one API message can span several lines sharing a `message.id`, and parallel results arrive as
# consecutive user lines, merged back into one message:

# %%
import textwrap

from msgmodel.core.claude_code import import_claude_code, sample_session_path

path = sample_session_path()
cc = import_claude_code(path, name=path.name)  # name= keeps absolute paths out of the reports
print(f"{path.name}: {cc.line_count} lines, Claude Code {', '.join(cc.versions)}, {cc.compactions} compaction")
for i, (m, lines) in enumerate(zip(cc.messages, cc.message_lines, strict=True)):
    text = textwrap.shorten(" ".join(block_to_text(b) for b in blocks_of(m)), 50, placeholder=" …")
    print(f"{i:>2} lines {','.join(map(str, lines)):9} {m.role:9} {','.join(b.type for b in blocks_of(m)):24} {text}")
by_code = {}
for s in cc.skipped:
    by_code.setdefault(s.code, []).append(s.line)
print("skipped:", "; ".join(f"{code} {len(lines)}" for code, lines in by_code.items()))

# %% [markdown]
# Every other line is in `.skipped` with `file:line`, a stable `code` and a reason: the talk before the compaction
# boundary (the summary replaced it), the boundary itself, hook/bash/subagent progress, Claude Code's own records,
# and an `API Error: 500` written as an assistant line, which replaying would put in the model's mouth. Nothing kept
# was altered. The file ends mid-turn, with an assistant `tool_use` whose result is not written yet;
# `validate(..., as_history=True)` checks a stored conversation as the next request would continue it. The command
# line does the same in one step, from the folder that holds the package:

# %%
import subprocess
import sys

here = path.parents[2]  # the folder that holds the msgmodel package
rel = path.relative_to(here)
proc = subprocess.run(
    [sys.executable, "-m", "msgmodel", "check", str(rel)], cwd=here, capture_output=True, text=True, check=False
)
print("$ python -m msgmodel check", rel)
print(proc.stdout + proc.stderr, end="")
print("exit code:", proc.returncode)

# %% [markdown]
# Exit code 1 means "a rule is broken" (2: the file could not be read). The importer never repairs on its own;
# whoever resumes the session answers the call first (`repair`, chapter 05). In msgmodel's reading (open question Q1
# in `protocol.py`, not verified live), the API's `messages.N` counts merged same-role turns, so its index differs
# from the file's.
#
# **Build next.** A streaming fold from the API's raw deltas (`text_delta`, `input_json_delta`, `signature_delta`)
# to a `Message`, with its law; storage that loads "the last *N* turns" and cuts only at clean starts; a richer
# result status than `is_error` (`interrupted`, `denied`), mapped to `is_error` on the wire. Reading list:
# [docs/survey.md](../docs/survey.md#chapter-07).

# %% [markdown]
# ### Point your own agent at it
#
# The local API is not only a classroom tool. `python -m msgmodel serve` puts it on a loopback port, and any
# Anthropic client can use it with a dummy key (the README shows pydantic-ai and LangChain against it). Here the
# official SDK's own tool runner runs against it unchanged. The runner first asks the server to keep a *thread*;
# ours keeps none and answers with the error code `thread_unsupported_request` (the code is the API's, the
# wording ours), so the runner sends the whole history each turn.

# %%
from anthropic import beta_tool

from msgmodel.api import DEMO_FILES


@beta_tool
def read_file(path: str) -> str:
    """Read a file of the demo project.

    Args:
        path: the file's path
    """
    return DEMO_FILES.get(path, f"no such file: {path}")


runner = local_client().beta.messages.tool_runner(
    model="claude-haiku-4-5",
    max_tokens=512,
    tools=[read_file],
    messages=[{"role": "user", "content": "Compare setup.cfg and README.md."}],
)
for reply in runner:
    print(reply.stop_reason, [b.type for b in reply.content])  # on purpose: the SDK's reply, not a Message

# %% [markdown]
# A forced `tool_choice` or a JSON output format gets an answer that validates against your schema, so
# structured-output code runs offline too:

# %%
import pydantic


class Verdict(pydantic.BaseModel):
    file: str
    ok: bool


parsed = local_client().messages.parse(
    model="claude-haiku-4-5",
    max_tokens=256,
    output_format=Verdict,
    messages=[{"role": "user", "content": "Is setup.cfg fine?"}],
)
print(parsed.parsed_output)

# %% [markdown]
# ## Follow-up questions
#
# **"All four options narrow equally well. Why not just use pydantic?"** It is a fine choice, and section 2 shows
# its cost: several times slower to decode here, and defaults that do not fit this data (unknown fields dropped, a
# new kind fails the whole document). You can configure your way out, but then you are writing `message.py`'s codec
# again, inside pydantic. Say which trade you made and why; that is the answer the interviewer wants.
#
# **"Your stream yields whole messages. Is that really streaming?"** It streams the *agent loop*, not the tokens.
# Token streaming is the layer below and folds into the same `AssistantMessage`; the SDK's `get_final_message()`
# folds the local API's raw events the same way:

# %%
from collections import Counter

from msgmodel import assistant_msg, blocks_from_api

client = local_client()
with client.messages.stream(
    model="claude-sonnet-4-6", max_tokens=1024, messages=[{"role": "user", "content": "What is (3 + 4) * 2 ** 3?"}]
) as s:
    kinds = Counter(event.type for event in s)
    final = s.get_final_message()
reply = assistant_msg(blocks_from_api(final.content))
print("stream events:", dict(sorted(kinds.items())), "→ folded into:", [b.type for b in blocks_of(reply)])

# %% [markdown]
# **"The fold law: what breaks it?"** Anything the engine does to the history that no event reports. An abandoned
# turn is one: the engine appends `is_error` results for the tools it never ran, and no event carries them:

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
# The fix is a design decision: emit a `ToolResulted` for each synthesized result, or state the law only for turns
# run to the end, as `engine.py`'s docstring does today. The law is a contract, with a scope, and you test it.
#
# **"By your own trigger, step 29 already qualified. Why wait for a second bug? Why not model everything on day
# one?"** Step 29 did qualify: the shapes were already copied, and the orphan was one copy getting a detail wrong.
# The series patched the copy, creating a new one; the second bug made the pattern impossible to miss. When a bug
# traces back to a copy, fix the cause, not the copy. Day one is too early for the opposite reason: nobody would
# have guessed that "which message may start a history" and "how a tool call reads in a summary" were the knowledge
# that mattered.
#
# ## Pitfalls and trade-offs
#
# * **The trigger is a heuristic, not a quota.** The first bug that traces back to a copy is the signal; for
#   knowledge you do not own, such as a wire format, a near miss in review can be enough.
# * **Premature abstraction has a real cost.** A provider-neutral layer built before the second provider guesses its
#   seams, and becomes one more thing to work around when the provider's semantics differ.
# * **Strict and lossless pull in opposite directions.** Refuse unknown kinds and old sessions break the day the API
#   adds one; keep everything and typos survive (`is_eror` lands in `extra`). Decode losslessly, validate strictly
#   before sending.
# * **Benchmarks on a shared machine are ratios, not times.**
# * **An async generator needs closing.** Without `contextlib.aclosing`, cleanup (answering abandoned calls) runs
#   whenever the event loop gets to it, perhaps after your next request.
# * **Third-party formats drift.** The Claude Code importer follows notes on public transcripts of versions 1.0.98
#   to 2.1.59, and no recorded session is tested here. It reports what it does not understand in `.skipped` and
#   never repairs.
#
# ## vs. the real source
#
# The original's step-32 preview says the real source streams events from an async generator. The installed SDK's
# own stream fold, `accumulate_event`, is the nearest code at hand: it folds raw deltas into a snapshot it mutates
# in place, ends in an `assert_never`, and states no law. A law like `fold_events(events) == history` is cheap to
# state and to test. How pydantic-ai, LangChain and Vercel AI model messages and events:
# [docs/survey.md](../docs/survey.md#chapter-07).

# %%
import ast
import inspect
import textwrap

from anthropic.lib.streaming._messages import accumulate_event

tree = ast.parse(textwrap.dedent(inspect.getsource(accumulate_event)))
targets = [t for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AugAssign))
           for t in (n.targets if isinstance(n, ast.Assign) else [n.target])]
calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
print("in-place attribute assignments:", sum(isinstance(t, ast.Attribute) for t in targets),
      "| ends in assert_never:", "assert_never" in calls)

# %% [markdown] tags=["core"]
# ## One-line summary
#
# **Consolidate when knowledge is copied twice and a copy has already bitten; then model the whole contract, choose
# the library by what it does at run time (every tagged union narrows), and let the next features run on top without
# touching the model.**

# %% [markdown]
# ## Exercises
#
# Each checker says "not attempted yet" until you replace the placeholder. Stuck? `hint("07.1")`, then
# `hint("07.1", 2)`, then `reveal("07.1", confirm=True)`.
#
# **07.1 Consolidate now, wait, or premature?** One verdict per scenario: `"now"`, `"wait"` or `"premature"`.
#
# *Goal:* Decide when to consolidate: copies that already disagree and cost something, not a second use imagined.

# %%
from IPython.display import Markdown

from msgmodel.course.exercises import check, hint, reveal
from msgmodel.course.exercises.ch07 import OPENAI_SESSION, SCENARIOS

Markdown("\n\n".join(f"**({key})** {text}" for key, text in SCENARIOS.items()))

# %%
verdicts = None  # your answer: {"a": "now", "wait" or "premature", "b": ..., ..., "e": ...}
check("07.1", verdicts)

# %% [markdown]
# **07.2 Write the fold.** Write `fold(events)`: the list of messages a list of engine events describes, starting
# from an empty history, without calling `fold_events`. Remember section 3: the `ToolResulted` events after one
# reply travel in ONE `tool_result_msg`, and a `Compacted` event's `.messages` is the whole history after compaction,
# replacing everything folded so far. The checker compares your fold with the engine on seven event lists,
# including parallel calls, a compaction, and a stream that stops right after a tool result.
#
# *Goal:* Rebuild the history from events with the constructors: the engine's fold law, written once by you.

# %%
def fold(events):
    ...  # your code here


check("07.2", fold)

# %% [markdown]
# **07.3 A second format, through the constructors.** A user brings sessions from another vendor's API, in OpenAI's
# Chat Completions shape: `{"role": "user", "content": str}`; an assistant message with `content` (a string or
# `None`) and perhaps `tool_calls`, each `{"id", "function": {"name", "arguments"}}` with `arguments` a JSON string;
# and one `{"role": "tool", "tool_call_id", "content"}` message per result. Write `from_openai(messages)`: the same
# session as a list of `Message`, built with the constructors only. An assistant's text comes before its calls, and
# the tool messages that follow one reply become **one** result turn. The checker compares your messages on four
# sessions, validates the history and scans your source for a message or block built by hand.
#
# *Goal:* Bring a second format in at the boundary, once, through the constructors: the rest of the code never learns
# that format exists.

# %%
print(json.dumps(OPENAI_SESSION, indent=1))

# %%
def from_openai(messages):
    ...  # your code here


check("07.3", from_openai)
