# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # 00 · Start here
#
# An agent that calls tools keeps its conversation as a list of messages. Most codebases type that list as
# `list[Any]` and get away with it, until the day a compaction step cuts the list in the wrong place and the API
# answers **400**, or a summary quietly forgets every file the agent read. This series replays two such bugs from one
# agent, traces them to a single cause, and cures that cause with one small module. Everything runs: every claim
# in these notebooks is a cell whose output you can check. New terms are explained in the [glossary](#Glossary);
# setup and the layout of every chapter are in [How to use these notebooks](#How-to-use-these-notebooks).

# %% [markdown]
# ## What
#
# This chapter is the front door. It maps the eight chapters, then shows the one thing every later chapter assumes
# you can read at a glance: the Messages API's **tool exchange**, four messages long, sent live through the official
# `anthropic` SDK to a local copy of the API. You will see the 400 that comes back when one rule is broken, worded as
# public captures of the live API word it. Setup notes and a glossary close the section. Afterwards you can draw the
# four messages from memory, say which rules tie them together, predict whether a request gets 200 or 400, and write
# the code that answers a tool call.

# %% [markdown]
# ## Why
#
# **"Your agent calls tools. Walk me through what goes over the wire, and tell me what can break."**
#
# The Messages API is stateless: every request carries the *whole* conversation. When the model wants a tool, its
# assistant message ends with a `tool_use` block that has an `id`. Your code runs the tool and sends the output back
# as a `tool_result` block with that id. The result goes in the *next* message, and that message has the role
# `user`. The server checks this pairing on every request. So any code that edits the history must keep the pairs
# intact: compaction, trimming, summarizing, storage, replay. Two things break when it does not. A cut that separates
# a call from its result gets a 400, which is loud. A summary that flattens tool blocks into placeholders forgets
# what the agent did, which is silent and worse.
#
# Both happen in real agents. Public bug trackers hold dozens of reports, most of them the loud kind: Claude Code
# ([anthropics/claude-code#24670][]: `/compact` itself fails with an orphan at `messages.0.content.0`), LangChain
# ([langchain-ai/langchain#29637][]), pydantic-ai ([pydantic/pydantic-ai#4728][]), OpenHands, cline, LiteLLM and more.
# The bugs look unrelated. Chapters 01–03 show that two of them have one cause: nothing in the codebase owned the
# shape of a message, so each file carried its own copy of that knowledge, and the copies drifted apart. Chapters
# 04–05 give that knowledge one owner.
#
# An interviewer who asks this question wants three things. Can you draw the exchange? Do you know which invariant
# the server enforces? And can you name the design that keeps every piece of code from breaking it? This series
# gives you all three, with evidence that runs.
#
# [anthropics/claude-code#24670]: https://github.com/anthropics/claude-code/issues/24670
# [langchain-ai/langchain#29637]: https://github.com/langchain-ai/langchain/issues/29637
# [pydantic/pydantic-ai#4728]: https://github.com/pydantic/pydantic-ai/issues/4728

# %% [markdown]
# ## How
#
# ### Chapter map
#
# The series follows one refactor: two symptoms, one diagnosis, one cure, then the defence you give in an interview.
# The step numbers come from the original step-31 tutorial, part of a Chinese series that builds a coding agent step
# by step: its steps 29 and 30 shipped the two bugs, and step 31, the cure, is what this series expands.
#
# ```mermaid
# flowchart LR
#     S["00 Start here<br/>the protocol"]
#     subgraph symptoms
#         B1["01 Orphan tool_result<br/>step 29: a 400"]
#         B2["02 Lost tool context<br/>step 30: a silent loss"]
#     end
#     D["03 Root cause<br/>one piece of knowledge, N copies"]
#     subgraph cure
#         M["04 One authoritative model"]
#         R["05 Refactor<br/>the bugs become regression tests"]
#     end
#     F["06 Interview follow-ups"]
#     T["07 Trade-offs and what comes next"]
#     S --> B1 --> B2 --> D --> M --> R --> F --> T
# ```
#
# | # | chapter | what you will see |
# |---|---|---|
# | [00](00_start_here.ipynb) | Start here | the protocol, live; how to use the series |
# | [01](01_orphan_tool_result.ipynb) | The orphan tool_result (step 29) | a compaction that earns a 400 |
# | [02](02_lost_tool_context.ipynb) | Lost tool context (step 30) | a summary that forgot what was read |
# | [03](03_root_cause.ipynb) | The root cause: one piece of knowledge, copied N times | the copies, counted |
# | [04](04_unified_model.ipynb) | One authoritative model | a tagged union; mypy narrowing |
# | [05](05_refactor_and_regressions.ipynb) | The refactor, and the bugs as regression tests | 200s; property tests |
# | [06](06_interview_followups.ipynb) | Interview follow-ups | the questions, with answers that run |
# | [07](07_tradeoffs_and_next.ipynb) | Trade-offs and what comes next | when to consolidate; what it buys |

# %% [markdown]
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
# In words: [0] the user asks; [1] the assistant answers with a `tool_use` (id `toolu_01A`); your code runs the tool
# and sends [0], [1] and [2], a **user** message holding the `tool_result` for `toolu_01A`; [3] the assistant answers.
#
# Let's send it for real. The client below is the **official `anthropic` SDK**, wired in-process to a local Messages
# API (`msgmodel.api.local_client`). That API checks every request against the live API's rules, gathered from
# recorded live traffic and public bug reports ([api-rules.md](../docs/api-rules.md)). A refused request gets a 400.
# Where a public capture of the live error exists, as for every error this chapter shows, the wording is the live
# one, byte for byte; where none does, `msgmodel/core/protocol.py` documents the reading it chose. The *model* behind
# it is
# a script: it decides nothing. The protocol is real; the intelligence is not, and for these chapters it does not
# need to be.

# %% [markdown]
# First the imports: the SDK, and everything else from the package, `msgmodel`.

# %%
import anthropic

from msgmodel import TextBlock, ToolUseBlock, assistant_msg, blocks_from_api, to_api, tool_result_msg, tool_uses_of
from msgmodel.api import local_client
from msgmodel.api.demo_tools import demo_registry
from msgmodel.core.tools import run_tool, tools_param
from msgmodel.course.display import show

MODEL = "claude-sonnet-4-6"  # the local API applies this model's rules

# %% [markdown]
# The script: the model's answer for each turn. Turn `i` answers a request whose history holds `i` assistant
# messages. The tools are four demo tools over a small in-memory project; `tools_param` gives the API's `tools=` list.

# %%
from msgmodel.api.scripted import ScriptedModel

script = ScriptedModel(
    [
        [TextBlock("Let me read it."), ToolUseBlock(id="toolu_01A", name="read_file", input={"path": "setup.cfg"})],
        "setup.cfg describes the package fetcher, version 0.3.1. It needs Python 3.10 or newer; tests live in tests/.",
        "Python 3.10 or newer: the file says python_requires = >=3.10.",
    ]
)
client = local_client(script)
REGISTRY = demo_registry()
TOOLS = tools_param(REGISTRY)
[tool["name"] for tool in TOOLS]

# %% [markdown]
# **Message 0, the question.** `user_text` builds a user message; `to_api` turns our messages into the plain dicts
# the SDK takes as `messages=`.

# %%
from msgmodel import user_text

history = [user_text("What is in setup.cfg?")]
reply = client.messages.create(model=MODEL, max_tokens=1024, tools=TOOLS, messages=to_api(history))
print("stop_reason:", reply.stop_reason)
print("blocks:", [(type(b).__name__, b.type) for b in reply.content])

# %% [markdown]
# `stop_reason: tool_use` means the model is waiting for a tool result. The SDK hands back its own pydantic objects.
# We convert them once, at the boundary, into `msgmodel` blocks. **Message 1**, the assistant's turn, holds a text
# block and a `tool_use` block (each block's `extra` keeps any wire fields msgmodel does not name, so nothing is
# lost on the way back):

# %%
history.append(assistant_msg(blocks_from_api(reply.content)))
history[1]

# %% [markdown]
# **Message 2, the result.** Our code runs the tool. `run_tool` returns a `tool_result` block that carries the call's
# id. `tool_result_msg` wraps the block in a message, and the role of that message is **`user`**. That one fact
# causes most of chapter 01.

# %%
[call] = tool_uses_of(history[1])
result = run_tool(REGISTRY, call)
history.append(tool_result_msg([result]))
print(f"tool_use id {call.id} → tool_result for {result.tool_use_id}, carried by a {history[2].role!r} message")

# %% [markdown]
# **Message 3, the answer.** We send all three messages again (the API remembers nothing) and get the final answer,
# with `stop_reason: end_turn`. `show` draws the conversation as cards: tool calls in amber, results in green.

# %%
reply = client.messages.create(model=MODEL, max_tokens=1024, tools=TOOLS, messages=to_api(history))
history.append(assistant_msg(blocks_from_api(reply.content)))
print("stop_reason:", reply.stop_reason)
show(history)

# %% [markdown]
# This is the wire format, one message per line (long strings cut). It is plain JSON: a `content` is either a string
# or a list of blocks, and each block says what it is in its `type` field.

# %%
import json

for i, wire in enumerate(to_api(history)):
    line = json.dumps(wire)
    print(i, line if len(line) <= 120 else line[:119] + "…")

# %% [markdown]
# ### The rules that hold it together
#
# | # | rule | broken by |
# |---|---|---|
# | 1 | A `tool_result` travels in a **user** message. | a result inside an assistant message |
# | 2 | A `tool_result` names a `tool_use` of the **message right before it**. | a window opening on a result (01) |
# | 3 | Every `tool_use` is answered at the **start of the next** message. | an interjection; a lost result |
# | 4 | A request that holds tool blocks must define `tools=`. | a summarizer called without tools (02) |
# | 5 | On Claude 4.6 and later, a request ends with a **user** message. | replaying a stored history as is |
#
# Break rule 2 and see the API's answer. The user asks a follow-up question. A naive compaction keeps only "the last
# three messages", so the request now opens with the tool result and its `tool_use` is gone:

# %%
follow_up = user_text("Which Python version does it need?")
window = [*history, follow_up][-3:]
try:
    client.messages.create(model=MODEL, max_tokens=1024, tools=TOOLS, messages=to_api(window))
except anthropic.BadRequestError as err:
    print("HTTP", err.status_code)
    print(err.body["error"]["message"])

# %% [markdown]
# That sentence is the live API's exact wording. Claude Code users pasted the same text into
# [anthropics/claude-code#24670][], down to `messages.0.content.0`. Send the whole history with the same follow-up and
# the request passes:
#
# [anthropics/claude-code#24670]: https://github.com/anthropics/claude-code/issues/24670

# %%
reply = client.messages.create(model=MODEL, max_tokens=1024, tools=TOOLS, messages=to_api([*history, follow_up]))
print(reply.stop_reason, "|", reply.content[0].text)

# %% [markdown]
# You don't need a network round trip to know this. `msgmodel.core.protocol.validate` is the local API's own judge. It
# returns every rule a message list breaks, first the one the API would report. Each violation has a stable rule id
# and a plain-words hint:

# %%
from msgmodel.core.protocol import validate

for v in validate(window, model=MODEL):
    print(f"{v.rule}: {v.hint}")

# %% [markdown]
# ### The whole agent loop, in eight lines
#
# An agent is the exchange above in a loop: send, run every tool the reply asks for, send again, until the model stops
# asking. This time the model is `RuleModel`, a tiny deterministic stand-in that picks demo tools from the words of your
# question. It can call several tools at once.

# %%
from msgmodel.api.scripted import RuleModel

agent = local_client(RuleModel())

# %% [markdown]
# The loop itself:


# %%
def run_agent(question):
    messages = [user_text(question)]
    while True:
        reply = agent.messages.create(model=MODEL, max_tokens=1024, tools=TOOLS, messages=to_api(messages))
        messages.append(assistant_msg(blocks_from_api(reply.content)))
        if reply.stop_reason != "tool_use":
            return messages
        messages.append(tool_result_msg([run_tool(REGISTRY, call) for call in tool_uses_of(messages[-1])]))


# %% [markdown]
# Two files at once; one of them does not exist. Both calls go in one assistant message, and both results come back in
# the next user message. The failed one is marked `is_error` (red), and the model reads the failure instead of
# crashing:

# %%
session = run_agent("Read setup.cfg and src/main.py")
show(session)

# %% [markdown]
# Try your own questions: `run_agent("Where is 'retries' used in src/?")`, `run_agent("What is (3 + 4) * 2 ** 3?")`,
# `run_agent("List the files in tests/")`. Chapters 01 and 02 run a longer session of this kind through the
# *legacy* agent, the one whose messages are `list[Any]`.

# %% [markdown]
# ### Reference: running the series
#
# What you may want before the next chapter: how the notebooks work, how to point them at the real API, and the
# words they use.
#
# #### How to use these notebooks
#
# * **Open them:** `make lab` (from the repository root) creates the virtual environment if needed and opens this
#   notebook in JupyterLab. `make test` runs ruff, `mypy --strict`, the unit tests, and re-executes every notebook
#   under nbval, comparing each output with the one committed here.
# * **Run top to bottom** (*Kernel → Restart Kernel and Run All Cells*). Every chapter runs offline, with no API
#   key, in a few seconds. Outputs are deterministic: fixed ids, fixed seeds, no clocks.
# * **Every chapter has the same rhythm.** If you are preparing for an interview, the bold questions are the ones
#   you will be asked: answer aloud before you read on.
#
# | section | what it gives you |
# |---|---|
# | What / Why | the claim, and the interviewer's question behind it |
# | How | the evidence: short cells, each proving one sentence |
# | Follow-up questions | what the interviewer asks next, with model answers that run |
# | Pitfalls and trade-offs | where the idea stops working, or costs something |
# | vs. the real source | how Claude Code, the `anthropic` SDK, pydantic-ai, LangChain and others do it |
# | One-line summary | the sentence to remember |
# | Exercises | auto-checked: `check("00.1", answer)` prints ✓, or ✗ with a hint naming a case you got wrong |
#
# A committed notebook shows each exercise untouched ("· not attempted yet"), so reading it on GitHub gives nothing
# away.
#
# Stuck on an exercise? `print(reveal("00.1"))` shows a reference solution. All solutions live in
# `msgmodel/course/exercises/`, not in the notebooks. The code you import (`msgmodel`) is a small, typed, tested
# package.
# The notebooks define no logic of their own beyond the demo they are teaching. To see how something works, open
# its module: each one starts with a docstring saying what it owns.

# %% [markdown]
# **Why a local API, not the real one?** It is deterministic, offline and free, so every output in this series can
# be committed and re-checked by `make test`. Above all, it reproduces the API's error text, and that text is how you
# recognise these bugs in the wild. The price: the local API is a *model* of the live one, built from public evidence,
# and the live API changes. The same request always gets the same answer, down to the request id:

# %%
def refusal(messages):
    try:
        client.messages.create(model=MODEL, max_tokens=1024, tools=TOOLS, messages=to_api(messages))
    except anthropic.BadRequestError as err:
        return err.body


print(refusal(window) == refusal(window), refusal(window)["request_id"])

# %% [markdown]
# #### Pointing the same code at the real API
#
# Nothing above is specific to the local API except the line that makes the client. To talk to Anthropic instead,
# set your key in the environment before you start JupyterLab (`export ANTHROPIC_API_KEY=...`; never paste it into a
# notebook) and make the client with `msgmodel.api.client()`:
#
# ```python
# import msgmodel.api
#
# client = msgmodel.api.client()   # the real API when ANTHROPIC_API_KEY is set, the local one otherwise
# msgmodel.api.is_local(client)    # False when it goes to Anthropic
# ```
#
# `client()` returns a plain `anthropic.Anthropic()` when the key is set. The SDK reads the key; msgmodel never
# prints or stores it. `client(local=True)` or the environment variable `MSGMODEL_OFFLINE=1` forces the local API;
# `client(local=False)` forces the real one. The requests are the same, and so should be the 400s: word for word
# where [api-rules.md](../docs/api-rules.md) has a live capture, while the readings that `msgmodel/core/protocol.py`
# lists
# as open may differ. If you find a difference, please report it with the request. The answers
# will differ: a real model writes its own text and ids, and it costs tokens. These chapters therefore always call
# `local_client()`, so that their committed outputs stay reproducible. A real model is also free to answer
# differently: cells that assume the script (one call, id `toolu_01A`) may need a change, and the tools still read
# the demo project in memory, never your disk. To serve the local API to other programs, run
# `python -m msgmodel serve --port 8765`, then point any client at `http://127.0.0.1:8765`.

# %% [markdown]
# #### Glossary
#
# The original tutorial's Chinese terms are given too, because they name the ideas sharply; the chapters use the
# English.
#
# | term | original | meaning |
# |---|---|---|
# | message | | one turn: a `role` (`user`/`assistant`) and a `content` (a string, or blocks) |
# | content block | 内容块 | one typed piece of content: `text`, `thinking`, `tool_use`, `tool_result`, ... |
# | `tool_use` | | the model asks to run a tool: `id`, `name`, `input`; assistant messages only |
# | `tool_result` | 工具结果 | the answer to one call: `tool_use_id`, `content`, `is_error`; user messages only |
# | `stop_reason` | | why the model stopped: `tool_use` (waiting for results) or `end_turn` |
# | orphan `tool_result` | 孤儿 tool_result | a result whose call is not in the previous message: a 400 (chapter 01) |
# | dangling `tool_use` | | a call not answered at the start of the next message: a 400 |
# | clean user start | | a user message that answers no call: a safe place for a window to begin |
# | compaction | 压缩 | shrinking a long history: summarize or drop the old part, keep the recent |
# | summary | 摘要 | the text replacing the dropped part; only as good as its transcript (chapter 02) |
# | prefill | | a request ending with an assistant message, for the model to continue |
# | `list[Any]` | any[] | messages with no declared shape: every reader must remember it alone |
# | consolidation | 收口 | "closing the opening": moving scattered knowledge into one place |
# | single authoritative definition | 单一权威定义 | the one module that owns the block shapes (`message.py`) |
# | discriminated (tagged) union | 判别联合 | one of several shapes, told apart by a tag field (`type`) |
# | type narrowing | 类型收窄 | the checker knows the exact shape inside `if b.type == "text":` |
# | exhaustiveness | | every kind handled in a `match`, enforced by `assert_never` |
# | constructors / readers | 构造器 / 读取器 | the only functions that build messages and that read them |
# | foundation | 地基 | groundwork that makes later features cheap (event streams, thinking) |
# | verbatim error | | the API's 400 text, word for word, as `validate` reproduces it where a live capture exists |

# %% [markdown]
# ## Follow-up questions
#
# **"Why does the tool result come back in a *user* message?"**
#
# The API has two speaking roles, and anything the model did not write comes from the client's side, which is
# `user`. The consequence matters more than the reason: *"it is a user message"* no longer means *"a person spoke
# here"*. Message 2 of our exchange is a user message, yet a history cannot start there:

# %%
from msgmodel import is_clean_user_start

for i, m in enumerate(history):
    print(i, m.role.ljust(9), "clean user start" if is_clean_user_start(m) else "-")

# %% [markdown]
# **"What links a result to its call: the order, or the id?"**
#
# Both. The id must match, *and* the result must sit in the very next message. A correct id in the wrong place
# fails, and so does a wrong id in the right place. Each case breaks two rules at once: the call is left unanswered
# (rule 3) and the result is an orphan (rule 2). The API answers with one error only. Which one it names first is an
# open question (Q2 in [api-rules.md](../docs/api-rules.md)); msgmodel's reading puts the unanswered call first:

# %%
from msgmodel import tool_result_block

late = [history[0], history[1], user_text("Actually, wait."), history[2]]
wrong_id = [history[0], history[1], tool_result_msg([tool_result_block("toolu_99Z", "[metadata]")])]
for name, case in [("right id, one message too late", late), ("right place, wrong id", wrong_id)]:
    found = validate(case, model=MODEL)
    print(f"{name}: {[v.rule for v in found]}\n  {found[0]}")

# %% [markdown]
# **"Two user messages in a row: is that an error?"**
#
# Not any more. The API now merges consecutive messages of one role into a single turn. Tutorials from 2024 quote
# the old error (`roles must alternate between "user" and "assistant"`). Check the date before you trust an error
# string.

# %%
validate([user_text("What is in setup.cfg?"), user_text("And the version, please.")], model=MODEL)

# %% [markdown]
# **"A tool failed. What do you send back?"**
#
# A result anyway, with `is_error: true` and the error text, so the model can react (a real model might list the
# directory to find the right name). Dropping the result would leave the `tool_use` dangling, and that is a 400.
# These are the two results of the loop above, then the model's answer, which reports the failure:

# %%
from msgmodel import text_of, tool_results_of

for r in tool_results_of(session[2]):
    print(r.tool_use_id, "is_error" if r.is_error else "ok", "|", r.content.splitlines()[0])
print(text_of(session[3]))

# %% [markdown]
# ## Pitfalls and trade-offs
#
# **A stored history is not a request.** Our four messages end with the assistant's answer. Sent as they are, a
# current model reads the last message as a *prefill* (a reply to continue) and refuses. Older models accept it.
# `validate(..., as_history=True)` checks a stored conversation as the start of the next request:

# %%
print("as a request, new model:", validate(history, model=MODEL)[0])
print("as a request, claude-sonnet-4-5:", validate(history, model="claude-sonnet-4-5"))
print("as a stored history:", validate(history, model=MODEL, as_history=True))

# %% [markdown]
# **A request with tool blocks must define tools.** A summarizer called without `tools=` hits this, so many projects
# flatten the tool blocks into text first. That flattening is where chapter 02's bug lives:

# %%
print(validate(history[:3], model=MODEL, tools_defined=False)[0])

# %% [markdown]
# **`str(err)` is not the API's message.** The SDK's `str()` of a `BadRequestError` is the status plus the Python
# repr of the whole body. The API's own sentence is `err.body["error"]["message"]`:

# %%
try:
    client.messages.create(model=MODEL, max_tokens=1024, tools=TOOLS, messages=to_api(window))
except anthropic.BadRequestError as err:
    print(str(err)[:90] + " …")

# %% [markdown]
# **The SDK makes `list[Any]` the easy path.** You *can* append `reply.content` to a list of dicts and send it
# back: the SDK accepts its own response objects as input. Then, one message later, you write the `tool_result` by
# hand as a dict. The list now holds three representations of the same protocol, and nothing checks any of them
# before the server does:

# %%
first = client.messages.create(model=MODEL, max_tokens=1024, tools=TOOLS, messages=to_api(history[:1]))
naive = [{"role": "user", "content": "What is in setup.cfg?"}, {"role": "assistant", "content": first.content}]
naive.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": "…"}]})
for m in naive:
    kinds = [f"{type(b).__module__.split('.')[0]}.{type(b).__name__}" for b in m["content"]]
    print(m["role"].ljust(9), "str" if isinstance(m["content"], str) else kinds)

# %% [markdown]
# **Other trade-offs to keep in mind.**
#
# * The local API encodes public evidence: recorded live traffic, quoted errors, the docs. A few questions are still
#   open, such as which message index the `tool_use` error names when a request starts with an assistant message;
#   the docstring of `msgmodel/core/protocol.py` lists each one and the reading it chose. When the live API changes its
#   rules or wording, `protocol.py` has to follow.
# * The models here are stand-ins. The chapters teach the data and the protocol, not prompt quality; a real model's
#   answers will differ, while the rules and the errors stay the same.
# * The rules above belong to Anthropic's first-party API. Other providers put tool results elsewhere (see the next
#   section), and Bedrock has enforced rules the first-party API has since dropped (it still refused a request that
#   opens with an assistant message in late 2024).

# %% [markdown]
# ## vs. the real source
#
# **Where does a tool result live?** The first design decision every framework makes, and it decides which trimming
# rule is safe:
#
# | system | where the tool result lives | what guards the pairs |
# |---|---|---|
# | Messages API (wire) | a `tool_result` block in the next **user** message | the server's 400 |
# | `anthropic` SDK | `ToolResultBlockParam`, a `TypedDict` | nothing before the server |
# | LangChain | a separate `ToolMessage(tool_call_id=...)` | `trim_messages(start_on="human")` |
# | pydantic-ai | a `ToolReturnPart` in a `ModelRequest` | repair: `_clean_message_history` |
# | OpenAI Agents SDK | a `function_call_output` item, paired by `call_id` | repair: `drop_orphan_function_calls` |
# | Vercel AI SDK | a `role: "tool"` message | throws `MissingToolResultsError` |
# | LiteLLM | a `role: "tool"` message | `trim_messages`, with a history of orphans |
#
# * **Claude Code** keeps the Anthropic shape and stores sessions as JSONL transcripts (chapter 07 loads one). How
#   its compactor places the cut, and the reports that it still orphans results, are in
#   [chapter 01](01_orphan_tool_result.ipynb#vs.-the-real-source).
# * Only the Anthropic shape puts results inside *user* messages, so LangChain's `start_on="human"` trick does not
#   transfer ([chapter 01](01_orphan_tool_result.ipynb) shows why).
# * The **`anthropic` SDK** types requests as `TypedDict`s, which nothing checks at run time, and ships no message
#   constructors or readers ([chapter 02](02_lost_tool_context.ipynb) shows what that lets through).
# * **pydantic-ai** and the **OpenAI Agents SDK** repair silently before each request; LiteLLM's `trim_messages` has
#   a long trail of orphan fixes ([BerriAI/litellm#4931][], [BerriAI/litellm#6505][], [BerriAI/litellm#10696][]);
#   [openai/openai-agents-python#4322][] was an orphaned output in limited sessions.
#
# None of these libraries ships a validator that *reports* protocol violations in the API's own words; they repair
# silently, throw on one condition, or leave it to the server. That gap is part of what `msgmodel` fills.
#
# [BerriAI/litellm#4931]: https://github.com/BerriAI/litellm/issues/4931
# [BerriAI/litellm#6505]: https://github.com/BerriAI/litellm/issues/6505
# [BerriAI/litellm#10696]: https://github.com/BerriAI/litellm/issues/10696
# [openai/openai-agents-python#4322]: https://github.com/openai/openai-agents-python/issues/4322

# %% [markdown]
# ## One-line summary
#
# **A tool call and its result are one fact split across two messages (an assistant `tool_use` and the next user
# message's `tool_result`, tied by id), and every bug in this series is code that forgot it.**

# %% [markdown]
# ## Exercises
#
# **00.1 Read the model.** Write `outcomes(history)`. It returns a dict that maps every `tool_use` id in the history
# to `"ok"`, `"failed"` (its result has `is_error`), or `"pending"` (no result yet). Use the readers
# `tool_uses_of(m)` and `tool_results_of(m)`, which return a message's blocks of that kind. The checker tries
# parallel calls, results in a different order from the calls, a tool called twice, and an unanswered call.

# %%
from msgmodel.course.exercises import check, reveal


def outcomes(history):
    ...  # your code here


check("00.1", outcomes)

# %% [markdown]
# Stuck? `print(reveal("00.1"))` shows a reference solution.
#
# **00.2 Predict the API's answer.** Here are six requests, each sent to `claude-sonnet-4-6` with tools defined. For
# each one, will the API answer 200 or 400? Decide before you run anything; the checker explains every miss with
# the API's words.

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
# Stuck? `print(reveal("00.2"))` shows a reference solution.
#
# **00.3 Answer the tool calls.** Write `answer_calls(reply, run)`, the step inside the agent loop. `reply` is an
# assistant `Message`. `run(name, input)` runs one tool and returns its text, or raises an exception. Return the user
# message that answers **every** `tool_use` of `reply`, in order: build each result with
# `tool_result_block(call.id, text)`, or with `tool_result_block(call.id, str(err), is_error=True)` when the tool
# raises, and wrap them with `tool_result_msg`. Return `None` if the reply calls no tool. No hand-written dicts.

# %%
def answer_calls(reply, run):
    ...  # your code here


check("00.3", answer_calls)

# %% [markdown]
# Stuck? `print(reveal("00.3"))` shows a reference solution.
#
# Next: [01 · The orphan tool_result (step 29)](01_orphan_tool_result.ipynb). A longer agent session, a compaction
# that starts its window at a user message, and the same 400 you saw above.
