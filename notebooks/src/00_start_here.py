# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown] tags=["core"]
# # 00 · Start here
#
# An agent that calls tools keeps its conversation as a list of messages. Most codebases type that list as
# `list[Any]` and get away with it, until a compaction step cuts the list in the wrong place and the API answers
# **400**, or a summary quietly forgets every file the agent read. This series replays two such bugs from one agent,
# traces them to a single cause, and cures that cause with one small module. Each claim is a cell whose output you
# can check, or names what it rests on: a test, a committed file, a cited source.

# %% [markdown] tags=["core"]
# ## What
#
# The map of the eight chapters, how to use them, and what every later chapter assumes you read at a glance: the
# Messages API's **tool exchange**, four messages, sent through the official `anthropic` SDK to a local copy of the
# API. Afterwards you can draw it from memory, name the rules that tie it together, and predict a request's 200 or
# 400.

# %% [markdown] tags=["core"]
# ## Why
#
# **"Your agent calls tools. Walk me through what goes over the wire, and tell me what can break."**
#
# The Messages API is stateless: every request carries the *whole* conversation. When the model wants a tool, its
# assistant message ends with a `tool_use` block with an `id`; your code runs the tool and sends the output back as
# a `tool_result` block with that id in the *next* message, whose role is `user`. The server checks this pairing
# on every request, so any code that edits the history (compaction, trimming, summarizing, storage, replay) must keep
# the pairs intact. A cut that separates a call from its result gets a 400: loud. A summary that flattens tool blocks
# into placeholders forgets what the agent did: silent, and worse.
#
# The interviewer wants you to draw the exchange, name the invariant the server enforces, and name the design that
# keeps every piece of code from breaking it.

# %% [markdown] tags=["core"]
# ## How
#
# ### Chapter map
#
# The series retells the original step-31 tutorial, from a Chinese series that builds a coding agent step by step
# beside Claude Code's source. Its steps 29 and 30 met the two bugs and fixed each locally; step 31 is the cure.
#
# | # | chapter | what you will see |
# |---|---|---|
# | [00](00_start_here.ipynb) | Start here | the protocol, live; how to use the series |
# | [01](01_orphan_tool_result.ipynb) | The orphan tool_result (step 29) | a compaction that earns a 400 |
# | [02](02_lost_tool_context.ipynb) | Lost tool context (step 30) | a summary that forgot what was read |
# | [03](03_root_cause.ipynb) | The root cause: no owner for a message's shape | the copies, counted |
# | [04](04_unified_model.ipynb) | One authoritative model | a tagged union; mypy narrowing |
# | [05](05_refactor_and_regressions.ipynb) | The refactor, and the bugs as regression tests | 200s; property tests |
# | [06](06_interview_followups.ipynb) | Interview follow-ups | the questions, with answers that run |
# | [07](07_tradeoffs_and_next.ipynb) | Trade-offs and what comes next | when to consolidate; what it buys |
#
# ### Three ways to use the series
#
# A 90-minute class (below), interview preparation or executable documentation (the optional cell after the route).
#
# * **A 90-minute class, or a first reading.** Follow the *core path*: the cells tagged `core` (JupyterLab's property
#   inspector shows tags) explain both bugs, their common cause and the model that removes it. The
#   route's minutes are the careful model's (under the table), under 90 so that a class keeps time for questions;
#   the model prices outputs at 250 words a minute, as if skimmed, and a reader who checks every output against its
#   sentence takes longer (optional: the README gives what fresh readers measured):

# %% tags=["core"]
from msgmodel.course.teaching import core_route

core_route()

# %% [markdown] tags=["core"]
# Every chapter has the same sections: What · Why · How · Follow-up questions · Pitfalls and trade-offs · vs. the
# real source · One-line summary · Exercises. The core route reads What, Why, How and, from chapter 04 on, the
# summary; chapter 06, the interview chapter, reads its follow-up questions too. It never needs the other sections (a
# core cell that mentions one says it is optional).

# %% [markdown]
# * **Interview preparation.** Each chapter's *Why* opens with the interviewer's question in bold; chapter 06 has a
#   drill of fifteen follow-up questions where you write your answer first, then read the model answer and score
#   yours against a checklist.
# * **Executable documentation.** `make test` re-runs every notebook and compares each output with the committed
#   one. The code you import is the `msgmodel` package: `msgmodel.core` is the library,
#   `msgmodel.api` a local Messages API, `msgmodel.course` what only these notebooks use (displays, widgets, the
#   sessions the chapters replay, the legacy exhibit).

# %% [markdown] tags=["core"]
# ### The protocol in one page
#
# One question that needs a tool takes four messages. The tool runs on *your* side, between two requests:
#
# ```mermaid
# sequenceDiagram
#     participant C as your code
#     participant API as Messages API
#     C->>API: [0] user: "What is in setup.cfg?"
#     API-->>C: [1] assistant: text + tool_use(id=toolu_01A, read_file)
#     Note over C: run read_file("setup.cfg")
#     C->>API: [0] [1] again + [2] user: tool_result(tool_use_id=toolu_01A)
#     API-->>C: [3] assistant: the answer
# ```
#
# Let's send it with the **official `anthropic` SDK**, wired in-process to a local Messages API
# (`msgmodel.api.local_client`) that refuses a bad request with a 400, in the live API's words where a public capture
# exists (chapter 01). Its *model* is a script: the protocol is real, the intelligence is not. The tools are four
# demos over an in-memory project.

# %% tags=["core"]
import anthropic

from msgmodel import TextBlock, ToolUseBlock, assistant_msg, blocks_from_api, to_api, tool_result_msg, user_text
from msgmodel.api import demo_registry, local_client
from msgmodel.api.scripted import ScriptedModel
from msgmodel.core.tools import run_tool, tools_param
from msgmodel.course.display import show

MODEL = "claude-sonnet-4-6"  # the local API applies this model's rules
script = ScriptedModel([  # the model's two answers, in order
    [TextBlock("Let me read it."), ToolUseBlock(id="toolu_01A", name="read_file", input={"path": "setup.cfg"})],
    "setup.cfg describes the package fetcher, version 0.3.1. It needs Python 3.10 or newer; tests live in tests/.",
])
client = local_client(script)
REGISTRY = demo_registry()
TOOLS = tools_param(REGISTRY)  # the API's tools= list

# %% [markdown] tags=["core"]
# **Message 0, the question.** `user_text` builds a user message; `to_api` turns our messages into the plain dicts
# the SDK takes as `messages=`.

# %% tags=["core"]
history = [user_text("What is in setup.cfg?")]
reply = client.messages.create(model=MODEL, max_tokens=1024, tools=TOOLS, messages=to_api(history))
print("stop_reason:", reply.stop_reason)
print("blocks:", [(type(b).__name__, b.type) for b in reply.content])  # on purpose: the SDK's reply, not a Message

# %% [markdown] tags=["core"]
# `stop_reason: tool_use`: the model waits for a tool result. We convert the SDK's objects once, at the boundary,
# into `msgmodel` blocks. **Message 1**, the assistant's turn, holds a text block and a `tool_use` block (`extra`
# keeps API fields the model does not type, such as `cache_control`; chapter 04):

# %% tags=["core"]
history.append(assistant_msg(blocks_from_api(reply.content)))
history[1]

# %% [markdown] tags=["core"]
# **Message 2, the result.** `run_tool` runs the tool and returns a `tool_result` block carrying the call's id;
# `tool_result_msg` wraps it in a message whose role is **`user`**. That one fact causes most of chapter 01.

# %% tags=["core"]
from msgmodel import tool_uses_of

[call] = tool_uses_of(history[1])
result = run_tool(REGISTRY, call)
history.append(tool_result_msg([result]))
print(f"tool_use id {call.id} → tool_result for {result.tool_use_id}, carried by a {history[2].role!r} message")

# %% [markdown] tags=["core"]
# **Message 3, the answer.** We send all three messages again. `show` draws the
# conversation as cards: tool calls in amber, results in green.

# %% tags=["core"]
reply = client.messages.create(model=MODEL, max_tokens=1024, tools=TOOLS, messages=to_api(history))
history.append(assistant_msg(blocks_from_api(reply.content)))
print("stop_reason:", reply.stop_reason)
show(history)

# %% [markdown]
# The wire format is plain JSON: a `content` is either a string or a list of blocks, and each block says what it is
# in its `type` field (long lines cut):

# %%
import json

for i, wire in enumerate(to_api(history)):
    line = json.dumps(wire)
    print(i, line if len(line) <= 120 else line[:119] + "…")

# %% [markdown] tags=["core"]
# ### The rules that hold it together
#
# | # | rule | broken by |
# |---|---|---|
# | 1 | A `tool_result` travels in a **user** message. | a result inside an assistant message |
# | 2 | A `tool_result` names a `tool_use` of the **message right before it**. | a window opening on a result (01) |
# | 3 | A turn's `tool_use`s come **last**, answered at the **start of the next** message. | text after; no result |
# | 4 | A request that holds tool blocks must define `tools=`. | a summarizer called without tools (02) |
# | 5 | On Claude 4.6 and later, a request ends with a **user** message. | replaying a stored history as is |
#
# Rules 2 and 3 are the **pairing rules**; their three errors are `orphan_tool_result` (2), `tool_use_not_last` (3: a
# block other than a call follows a call in its turn) and `dangling_tool_use` (3: the next message does not open with
# every call's result). Rules 1, 2, 3 and 5 rest on captured live answers (chapter 01), rule 4 on users' reports.
# Rule 5 is recent: from Claude 4.6 on, models refuse *prefill*, a request ending with an assistant message for the
# model to continue.
#
# Break each pairing rule once (a naive compaction that keeps the last three messages breaks rule 2). `validate`
# (`msgmodel.core.protocol`), the local API's own judge, names the broken rule without a round trip: it returns the
# violations it finds, first the one the API would report, each with a rule id and a plain-words hint.

# %% tags=["core", "demo"]
from msgmodel.core.protocol import validate

window = [*history, user_text("Which Python version does it need?")][-3:]
broken = {
    "window opens on the result": window,
    "result never sent": [history[0], history[1], user_text("Actually, wait.")],
    "text after the call": [history[0], assistant_msg([TextBlock("Reading."), call, TextBlock("Wait.")]), history[2]],
}
for name, request in broken.items():
    try:
        client.messages.create(model=MODEL, max_tokens=1024, tools=TOOLS, messages=to_api(request))
    except anthropic.BadRequestError as err:
        v = validate(request, model=MODEL)[0]
        print(f"{name}: HTTP {err.status_code}; {v.rule}: {v.hint.split(';')[0]}")

# %% [markdown] tags=["core"]
# Each 400 carries the live API's sentence where a public capture exists; chapter 01 reads the orphan's part by part
# and checks `validate` against 15 public captures.

# %% [markdown]
# ### The whole agent loop, in eight lines
#
# An agent is the exchange in a loop: send, run every tool the reply asks for, send again, until the model stops
# asking. This time the model is `RuleModel`, a deterministic stand-in that picks demo tools from the words of your
# question, several at once if asked.

# %%
from msgmodel.api.scripted import RuleModel

agent = local_client(RuleModel())


def run_agent(question):
    messages = [user_text(question)]
    while True:
        reply = agent.messages.create(model=MODEL, max_tokens=1024, tools=TOOLS, messages=to_api(messages))
        messages.append(assistant_msg(blocks_from_api(reply.content)))
        if reply.stop_reason != "tool_use":
            return messages
        messages.append(tool_result_msg([run_tool(REGISTRY, call) for call in tool_uses_of(messages[-1])]))


# %% [markdown]
# Two files at once, one of which does not exist. Both calls go in one assistant message, both results in the next
# user message; the failed one is marked `is_error` (red), and the model reads the failure instead of crashing:

# %%
session = run_agent("Read setup.cfg and src/main.py")
show(session)

# %% [markdown]
# Try `run_agent("Where is 'retries' used in src/?")` or `run_agent("What is (3 + 4) * 2 ** 3?")`.
#
# ### Reference: running the series
#
# * **Open it:** `make lab` from the repository root; run each chapter top to bottom (*Kernel → Restart Kernel and
#   Run All Cells*). Every chapter runs offline, with no API key, in ten seconds or less (the build fails a slower
#   one); its outputs are deterministic (fixed ids, fixed seeds, no clocks), so they can be committed and re-checked.
# * **Exercises** are checked by `check("00.1", answer)`. A committed notebook shows each one unattempted. Stuck?
#   `hint("00.1")`, then `hint("00.1", 2)`; `reveal("00.1", confirm=True)` shows a reference solution.
# * **The real API.** Only the line that makes the client is local. `msgmodel.api.client()` returns a plain
#   `anthropic.Anthropic()` only when asked: `client(local=False)`, or `MSGMODEL_LIVE=1` with `ANTHROPIC_API_KEY` in
#   the environment (never in a notebook); a key alone is not enough. The 400s should match where a live capture
#   exists (chapter 01); a real model writes its own text and ids, so cells that assume the script may need a change.
#   To serve the local API to other programs: `python -m msgmodel serve --port 8765`.
#
# #### Glossary
#
# The original tutorial's Chinese terms are given where they name an idea sharply.
#
# | term | original | meaning |
# |---|---|---|
# | content block | 内容块 | one typed piece of content: `text`, `thinking`, `tool_use`, `tool_result`, ... |
# | orphan `tool_result` | 孤儿 tool_result | a result whose call is not in the previous message: a 400 (chapter 01) |
# | dangling `tool_use` | | a call not answered at the start of the next message: a 400 |
# | clean user start | | a user message that answers no call: a safe place for a window to begin |
# | compaction · summary | 压缩 · 摘要 | shrinking a long history: summarize the old part, keep the recent |
# | prefill | | a request ending with an assistant message, for the model to continue |
# | consolidation | 收口 | "closing the opening": moving scattered knowledge into one place |
# | single authoritative definition | 单一权威定义 | the one module that owns the block shapes (`message.py`) |
# | discriminated (tagged) union | 判别联合 | one of several shapes, told apart by a tag field (`type`) |
# | type narrowing | 类型收窄 | the checker knows the exact shape inside `if b.type == "text":` |
# | constructors / readers | 构造器 / 读取器 | the only functions that build messages and that read them |
# | foundation | 地基 | groundwork that makes later features cheap (event streams, thinking) |

# %% [markdown]
# ## Follow-up questions
#
# **"Why does the tool result come back in a *user* message?"**
#
# The API has two speaking roles, and whatever the model did not write comes from the client's side, `user`. The
# consequence matters more: *"a user message"* no longer means *"a person spoke here"*. Message 2 is a user message,
# yet a history cannot start there:

# %%
from msgmodel import is_clean_user_start

for i, m in enumerate(history):
    print(i, m.role.ljust(9), "clean user start" if is_clean_user_start(m) else "-")

# %% [markdown]
# **"What links a result to its call: the order, or the id?"**
#
# Both. The id must match *and* the result must sit in the very next message. A right id one message too late, or
# a wrong id in the right place, breaks two rules at once (the call is unanswered, the result is an orphan); the API
# reports one of them:

# %%
from msgmodel import tool_result_block

late = [history[0], history[1], user_text("Actually, wait."), history[2]]
wrong_id = [history[0], history[1], tool_result_msg([tool_result_block("toolu_99Z", "[metadata]")])]
for name, case in [("right id, one message too late", late), ("right place, wrong id", wrong_id)]:
    print(f"{name}: {[v.rule for v in validate(case, model=MODEL)]}")

# %% [markdown]
# (Which of the two the live API names first is not captured publicly; chapter 01 lists such open questions apart.)
#
# **"Two user messages in a row: is that an error?"**
#
# Not any more: the API merges consecutive messages of one role into one turn ([api-rules.md](../docs/api-rules.md)
# §0, finding 2: the docs say so, and a live recording got a 200). Tutorials from 2024 quote the old error (`roles
# must alternate`). Check the date before you trust an error string.

# %%
validate([user_text("What is in setup.cfg?"), user_text("And the version, please.")], model=MODEL)

# %% [markdown]
# **"A tool failed. What do you send back?"**
#
# A result anyway, with `is_error: true` and the error text, so the model can react. Dropping it would leave the
# `tool_use` dangling: a 400. The two results of the loop above, then the model's answer:

# %%
from msgmodel import result_text, text_of, tool_results_of

for r in tool_results_of(session[2]):
    print(r.tool_use_id, "is_error" if r.is_error else "ok", "|", result_text(r).splitlines()[0])
print(text_of(session[3]))

# %% [markdown]
# ## Pitfalls and trade-offs
#
# **A stored history is not a request.** Our four messages end with the assistant's answer. Sent as they are, a
# current model reads the last message as a *prefill* and refuses; older models accept it.
# `validate(..., as_history=True)` checks a stored conversation as the start of the next request:

# %%
print("as a request, new model:", validate(history, model=MODEL)[0])
print("as a request, claude-sonnet-4-5:", validate(history, model="claude-sonnet-4-5"))
print("as a stored history:", validate(history, model=MODEL, as_history=True))

# %% [markdown]
# **A request with tool blocks must define tools.** A summarizer called without `tools=` hits this, so projects
# flatten the tool blocks into text first. That flattening is where chapter 02's bug lives:

# %%
print(validate(history[:3], model=MODEL, tools_defined=False)[0])

# %% [markdown]
# **`str(err)` is not the API's message.** The SDK's `str()` of a `BadRequestError` is the status plus the Python
# repr of the whole body. The API's own sentence is `err.body["error"]["message"]`, which SDK 2.14 and later also
# offer as `err.api_message`; the chapters use the shorter form:

# %%
try:
    client.messages.create(model=MODEL, max_tokens=1024, tools=TOOLS, messages=to_api(window))
except anthropic.BadRequestError as err:
    print(str(err)[:60] + " …")
    print("err.api_message == err.body['error']['message']:", err.api_message == err.body["error"]["message"])

# %% [markdown]
# **The SDK makes `list[Any]` the easy path.** You *can* append `reply.content` (the SDK's own objects) to a list of
# dicts and send it back, then write the `tool_result` by hand as a dict. The list now holds three representations of
# one protocol, and nothing checks any of them before the server does:

# %%
first = client.messages.create(model=MODEL, max_tokens=1024, tools=TOOLS, messages=to_api(history[:1]))
sdk_blocks = first.content  # on purpose: the naive way hands the SDK's objects back as they are
naive = [{"role": "user", "content": "What is in setup.cfg?"}, {"role": "assistant", "content": sdk_blocks}]
naive.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": "…"}]})
for m in naive:
    kinds = [f"{type(b).__module__.split('.')[0]}.{type(b).__name__}" for b in m["content"]]
    print(m["role"].ljust(9), "str" if isinstance(m["content"], str) else kinds)

# %% [markdown]
# **The local API is a model of the live one,** built from public evidence; when the live API changes its rules or
# wording, `msgmodel/core/protocol.py` has to follow. The rules above are Anthropic's first-party API: other providers
# put tool results elsewhere, and Bedrock has enforced rules the first-party API has since dropped.

# %% [markdown]
# ## vs. the real source
#
# The wire shape is Anthropic's; the **`anthropic` SDK** types it for the checker only. Its request types are
# `TypedDict`s: a message is a role plus `content` that is a string *or* a list of blocks, the same two forms this
# series keeps (the original says Claude Code's source has the same two forms). At run time a `TypedDict` is
# a plain `dict`, so nothing checks it before the server. The installed SDK's own definition:

# %%
import inspect

from anthropic.types.user_message_param import UserMessageParam

print(inspect.getsource(UserMessageParam))
print(type(UserMessageParam(role="user", content="hi")))

# %% [markdown]
# Where LangChain, pydantic-ai, the OpenAI Agents SDK, the Vercel AI SDK and LiteLLM keep a tool result, and what
# guards the pairs, is in [survey.md](../docs/survey.md#chapter-00).

# %% [markdown]
# ## One-line summary
#
# **A tool call and its result are one fact split across two messages (an assistant `tool_use` and the next user
# message's `tool_result`, tied by id), and every bug in this series is code that forgot it.**

# %% [markdown]
# ## Exercises
#
# Each exercise cell shows "not attempted yet" until you replace the placeholder. Stuck? `hint("00.1")` gives a
# first hint, `hint("00.1", 2)` a second; `reveal("00.1", confirm=True)` shows a reference solution.
#
# **00.1 Read the model.** Write `outcomes(history)`: a dict that maps every `tool_use` id in the history to `"ok"`,
# `"failed"` (its result has `is_error`) or `"pending"` (no result yet). Use the readers `tool_uses_of(m)` and
# `tool_results_of(m)`. The checker tries parallel calls, results out of order, a tool called twice, and an
# unanswered call.
#
# *Goal:* Read a history through the model's readers, whatever shape each content has, and link calls to results by id.

# %%
from msgmodel.course.exercises import check, hint, reveal


def outcomes(history):
    ...  # your code here


check("00.1", outcomes)

# %% [markdown]
# **00.2 Predict the API's answer.** Six requests, each sent to `claude-sonnet-4-6` with tools defined: 200 or 400?
# Decide before you run anything; the checker explains every miss with the API's words.
#
# *Goal:* Know the pairing rules the one model must keep, well enough to predict the API's 200 or 400 before sending.

# %%
from IPython.display import display

from msgmodel.course.exercises.ch00 import PREDICT_CASES

for letter, case in PREDICT_CASES.items():
    print(f"case {letter}:")
    display(show(case))

# %%
predictions = {}  # your answer: {"A": 200 or 400, "B": ..., ...}, one entry per case
check("00.2", predictions)

# %% [markdown]
# **00.3 Answer the tool calls.** Write `answer_calls(reply, run)`, the step inside the agent loop. `reply` is an
# assistant `Message`; `run(name, input)` runs one tool and returns its text, or raises. Return the user message that
# answers **every** `tool_use` of `reply`, in order: `tool_result_block(call.id, text)`, or
# `tool_result_block(call.id, str(err), is_error=True)` when the tool raises, wrapped by `tool_result_msg`. Return
# `None` if the reply calls no tool. No hand-written dicts.
#
# *Goal:* Build the answer to a turn with the constructors only, so a failed tool still becomes a result the API
# accepts.

# %%
def answer_calls(reply, run):
    ...  # your code here


check("00.3", answer_calls)

# %% [markdown]
# Next: [01 · The orphan tool_result (step 29)](01_orphan_tool_result.ipynb): a longer agent session, a compaction that
# starts its window at a user message, and the same 400.
