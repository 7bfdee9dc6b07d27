# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # 01 · The orphan tool_result (step 29)
#
# *An agent that worked for weeks starts failing with HTTP 400 right after it compacts its
# history. This chapter makes that happen for real, takes it apart, and fixes it the way step 29
# did. The fix is where the series' real problem begins.*

# %% [markdown]
# ## What
#
# We run a small coding agent written the way most agents start, with messages as
# `list[dict]`, through the official `anthropic` SDK. When its history grows it *compacts*: it
# keeps the last `keep` messages and replaces the rest with a summary. With one innocent value of
# `keep`, the next request fails with `anthropic.BadRequestError`, and the API's own words say a
# `tool_result` has lost its `tool_use`. We find where the cut fell, see why "start the window at
# a user message" is not enough in this protocol, find which values of `keep` break, and predict
# the error locally before sending anything. Then we apply the step-29 fix and ask why it is
# *copy #1* of knowledge that belongs somewhere else.
#
# After this chapter you can explain the orphan `tool_result` error from its text alone, tell
# for any cut whether the API will accept it, and name the design smell the obvious fix brings in.
#
# (The step numbers follow the original step-31 tutorial this series retells: steps 29 and 30
# are two bugs and their local fixes, step 31 is the consolidation that chapters 04–05 build.)

# %% [markdown]
# ## Why
#
# **"Our agent worked for weeks. Then, right after a context compaction, every request failed
# with a 400 about `tool_use_id`. What happened, and why didn't the tests catch it?"**
#
# In the Anthropic Messages protocol a tool call and its answer are two separate messages: the
# assistant's `tool_use` block, and a `tool_result` block that names it by id. The answer travels
# inside a **user** message. On every request the API checks that each `tool_result` answers a
# `tool_use` in the message right before it. Compaction that cuts by count can separate the two:
# the answer stays in the window while its question is summarized away. Whether that happens
# depends on `keep` and on how many messages the last few rounds happened to take. A test suite
# built around one conversation shape can stay green forever, until a user says "thanks" at the
# wrong moment.
#
# This is the most common trimming bug in public agent code (see the table near the end). Claude
# Code, LangChain, cline and CopilotKit have all shipped it, and a pydantic-ai docs example for
# trimming history is reported to have it too (an open report that still needs confirmation).
# In an interview the fix matters less than *where those few lines end up*, and that is the
# thread the rest of the series pulls.

# %% [markdown]
# ## How
#
# ### 1. The tool loop, and where a tool's answer lives
#
# [Chapter 00](00_start_here.ipynb#The-protocol-in-one-page) drew one round of tool use: the
# assistant's `tool_use`, then a **user** message carrying the `tool_result`, then the answer.
# Two consequences matter here. The API is stateless, so every request carries the *whole*
# conversation: that is why long sessions must shrink their history (compaction), and why the
# API can check the pairing of every call and answer on every request. And one round is four
# messages, two of them with `role: "user"`, but only one of those was typed by a person.
#
# Let's watch it happen. The exhibit is `msgmodel.course.legacy.engine.QueryEngine`, the dict-based
# agent loop as it stood at steps 29–30. It runs on `local_client()`: the official SDK, wired
# in-process to a local Messages API that validates requests like the live one, with a
# deterministic rule-based model that calls the demo tools (an in-memory file system and a
# calculator).

# %%
import ast
import inspect
from pathlib import Path

import anthropic

import msgmodel.core.protocol
import msgmodel.course.legacy
from msgmodel import Message, from_api, is_clean_user_start, text_of, to_api, tool_results_of, tool_uses_of, user_text
from msgmodel.api import local_client
from msgmodel.api.demo_tools import demo_registry
from msgmodel.core.protocol import ProtocolError, validate
from msgmodel.core.tools import tools_param
from msgmodel.course.display import conversation_html, show
from msgmodel.course.legacy import compact29
from msgmodel.course.legacy.engine import QueryEngine as LegacyEngine
from msgmodel.course.synth import synth_session

# %%
REGISTRY = demo_registry()


def legacy_engine(**config):
    """The step-29/30 agent loop (dicts all the way) on the official SDK and the local API."""
    tools = {name: tool.run for name, tool in REGISTRY.items()}
    return LegacyEngine(local_client(), tools, tools_param(REGISTRY), **config)


# %%
engine = legacy_engine()
print(engine.submit("Read src/app.py")[:110], "…")
show(from_api(engine.messages))


# %% [markdown]
# Message 2 is a user message that no person wrote: it carries the `tool_result` for the
# `tool_use` in message 1. Below, a small helper prints one message per line through the
# readers of `msgmodel.core.message`, so we can look at long histories.


# %%
def describe(m):
    """One message in a few words: its tool calls, its tool answers, or its text."""
    if calls := tool_uses_of(m):
        return "tool_use      " + ", ".join(f"{c.name} {c.id}" for c in calls)
    if answers := tool_results_of(m):
        return "tool_result → " + ", ".join(r.tool_use_id for r in answers)
    return "text          " + repr(text_of(m).replace("\n", " ")[:48])


def draw(history, marks=None):
    """The history, one line per message, with a ✂ line before each marked index."""
    for i, m in enumerate(history):
        if i in (marks or {}):
            print(f"✂ ─── {marks[i]}")
        print(f"{i:>3}  {m.role:<9}  {describe(m)}")


draw(from_api(engine.messages))

# %% [markdown]
# ### 2. Weeks of green: the default `keep=6`
#
# The engine compacts when the history holds more than 12 messages, just before it calls the
# model: everything but the last `keep` messages goes through the summarizer, and the summary
# comes back as one user message in front (`legacy.compact29.compact`, whose core is
# `history[-keep:]`). Here is an ordinary session, eight realistic prompts twice over:

# %%
PROMPTS = [
    "Read src/app.py",
    "What is (3 + 4) * 2 ** 3?",
    "Search for 'retries' in src/",
    "List the files in tests/",
    "Read README.md and setup.cfg",
    "Where is 'APP_TIMEOUT' used? grep for it",
    "Please read tests/test_app.py",
    "Compute 2 ** 10 - 24",
]
compactions = []
engine = legacy_engine(keep=6, on_compact=compactions.append)
for prompt in PROMPTS * 2:
    engine.submit(prompt)
print(f"{len(PROMPTS) * 2} prompts answered, {len(compactions)} compactions, no error")

# %% [markdown]
# ### 3. One more message of context: `keep=7`
#
# A teammate raises `keep` to 7 to give the model a little more recent context. We wrap the
# compactor, unchanged, so we can look afterwards at the history it was given:

# %%
given_to_compact = []


def recording(compactor):
    """The compactor, unchanged, but it remembers every history it was handed."""

    def run(history, keep, summarize):
        given_to_compact.append(list(history))
        return compactor(history, keep, summarize)

    return run


# %%
engine = legacy_engine(keep=7, compact=recording(compact29.compact))
for n, prompt in enumerate(PROMPTS * 2, start=1):
    try:
        engine.submit(prompt)
    except anthropic.BadRequestError as err:
        error, refused = err, list(engine.messages)  # the engine had already swapped in the compacted list
        print(f"prompt {n} ({prompt!r}) raised {type(err).__name__}")
        print("status:", err.status_code, "| error type:", err.body["error"]["type"])
        print("the API's message, verbatim:")
        print(err.body["error"]["message"])
        break

# %% [markdown]
# Read the message piece by piece. This one sentence is the whole bug report:
#
# | Part | Meaning |
# |---|---|
# | `messages.1.content.0` | the request's message 1, its block 0 (the **request you sent**, not your history) |
# | ``unexpected `tool_use_id` … toolu_local_…`` | that block is a `tool_result` answering this id |
# | ``… corresponding `tool_use` block in the previous message`` | message 0 holds no `tool_use` with that id |
#
# (As [chapter 00](00_start_here.ipynb#Pitfalls-and-trade-offs) showed, print
# `err.body["error"]["message"]`, not `str(err)`: the latter is the SDK's wrapper around it.)
#
# And the session is stuck: the broken window *is* now the history, so every later prompt is
# refused the same way ([anthropics/claude-code#40305][] calls such a session "unrecoverable").
#
# [anthropics/claude-code#40305]: https://github.com/anthropics/claude-code/issues/40305

# %%
for prompt in ["Hello?", "Read src/app.py"]:
    try:
        engine.submit(prompt)
    except anthropic.BadRequestError as err:
        print(f"{prompt!r:>18} -> 400: {err.body['error']['message'][:60]} …")

# %% [markdown]
# ### 4. Where the cut fell
#
# The compactor was handed 13 messages (three prompts with their tool rounds, then the fourth
# prompt) and kept `history[-7:]`:

# %%
before = from_api(given_to_compact[-1])
start = len(before) - 7
draw(before, {start: f"history[-7:] starts here, at index {start}"})

# %% [markdown]
# Message 6 answers the `calculator` call in message 5, and message 5 is above the cut: it went
# into the summary. This is the request that was refused, the summary first. (The summary reads
# "Summary of the earlier conversation: Summary of the conversation so far…": the first label is
# the compactor's prefix, the second the summarizer's own heading. Two layers, two labels.)

# %%
sent = from_api(refused)
show(sent)

# %% [markdown]
# ### 5. Why "start at a user message" is not enough
#
# The intuitive guard is "make the window start on a user message". Message 6 *is* a user
# message. The trouble is that in this protocol the user role carries two different things:
#
# | Protocol | Where a tool's answer lives | Is "start on a user/human message" safe? |
# |---|---|---|
# | OpenAI Chat, LangChain | its own role (`tool`) / class (`ToolMessage`) | yes: a human message never answers a tool |
# | Anthropic Messages | a `tool_result` block **inside a `user` message** | no: many user messages are tool answers |
#
# Counting them in the history the compactor saw:

# %%
users = [m for m in before if m.role == "user"]
answers = [m for m in users if tool_results_of(m)]
print(f"{len(users)} user messages: {len(answers)} are tool answers, {len(users) - len(answers)} were typed")
print(f"the window starts on role={before[start].role!r}; a clean user start? {is_clean_user_start(before[start])}")

# %% [markdown]
# The rule that holds is stricter: **a window may start only at a *clean user start*, a user
# message that answers no tool call.** `msgmodel.core.message.is_clean_user_start` is that predicate
# (chapter 04 explains why it lives there).
#
# ### 6. Which values of `keep` break, and why it ships
#
# We sweep `keep` over two conversations: the eight tool prompts from above (the kind of session
# a team's tests use), and the same prompts with one bit of small talk, "Great, thanks.", which
# the model answers without a tool (two messages instead of four).

# %%
CHATTY = [*PROMPTS[:3], "Great, thanks.", *PROMPTS[3:]]


def outcome(prompts, keep, compactor=compact29.compact):
    """Run a fresh legacy engine over the prompts: '✓' or the prompt that got the 400."""
    agent = legacy_engine(keep=keep, compact=compactor)
    for n, prompt in enumerate(prompts, start=1):
        try:
            agent.submit(prompt)
        except anthropic.BadRequestError:
            return f"400 at prompt {n}"
    return "✓"


# %%
print(f"{'keep':>4}  {'tool prompts only':<18}  {'with one small-talk turn'}")
for keep in range(1, 10):
    print(f"{keep:>4}  {outcome(PROMPTS, keep):<18}  {outcome(CHATTY, keep)}")

# %% [markdown]
# Every tool round is four messages, so whether `history[-keep:]` starts on a tool answer repeats
# with period four in `keep`: 3 and 7 here. One two-message turn shifts the phase, and 1, 5 and 9
# break as well.
# A team whose tests use `keep=6` and tool prompts only sees nothing but ✓. Real sessions have
# small talk, failed tools and multi-step loops, so *some* cut lands on an answer sooner or later.
# That is why the bug ships.
#
# The same pattern on one finished session, without running the agent again. `CompactionExplorer`
# (from `msgmodel.course.widgets`) puts a slider on `keep_recent` and shows, side by side, the slicing
# cut of step 29 (`[summary, *messages[-k:]]`) and the clean cut of
# `msgmodel.core.compact.plan_compaction` (chapter 05), each with the validator's verdict. Its strip of
# ✓ and ✗ covers every value at once: in a live notebook, drag the slider to see each request.

# %%
from msgmodel.course.widgets import CompactionExplorer

recorder = legacy_engine(keep=100)  # keep everything: we only want the session
for prompt in CHATTY:
    recorder.submit(prompt)
explorer = CompactionExplorer(from_api(recorder.messages), keep_recent=6)
explorer

# %% [markdown]
# In words: on this 34-message session the slicing cut fails at `keep_recent` 2, 6, 10, 14, 18,
# then 24, 28, 32 (the small-talk turn shifts the phase by two), while the clean cut passes at
# every value. The failing values differ from the table above because the engine compacts at
# other moments (before each model call, mid tool loop too), while here we cut the finished
# session: where the cut is taken decides what breaks, which is the point. Moving the slider is a
# state change you can also make in code:

# %%
for k in (6, 7):
    explorer.slider.value = k
    print(f"keep_recent={k}\n  slicing:   {explorer.slicing.verdict}\n  clean cut: {explorer.clean.verdict}")

# %% [markdown]
# ### 7. The validator sees it before the API does
#
# `msgmodel.core.protocol.validate` checks a message list against the live API's structural rules and
# words each violation **exactly** as the API would. Run on the refused request, it predicts the
# 400 without sending anything:

# %%
v = validate(refused)[0]
print(v)
print("identical to the API's text:", str(v) == error.body["error"]["message"])
print("rule:", v.rule, "| path:", v.path)
print("hint:", v.hint)

# %% [markdown]
# The same check as a pre-flight guard (`msgmodel.core.protocol.check` raises `ProtocolError`, whose text is
# the first violation's), and the violation drawn on the message it names:

# %%
try:
    msgmodel.core.protocol.check(refused)
except ProtocolError as e:
    print("refused locally, before any network call:", str(e)[:60], "…")

# %% [markdown]
# The path is all you need to find the culprit: read the two indices back out of it.

# %%
msg_i, block_i = (int(x) for x in v.path.split(".")[1::2])  # "messages.1.content.0" -> 1, 0
print("message", msg_i, "block", block_i, "->", describe(sent[msg_i]))

# %% [markdown]
# Drawn on the cards, the violation sits on the block it names (in red where HTML is shown; the
# text view lists it under the messages). `Marked` is a demo helper, not part of the package:


# %%
class Marked:
    """Messages as cards with errors on the blocks they name; the same as text where HTML is not shown."""

    def __init__(self, messages, problems):
        self.messages, self.problems = messages, problems

    def _repr_html_(self):
        return conversation_html(self.messages, problems=self.problems)

    def __repr__(self):
        marks = [(i, b, e) for i, by in self.problems.items() for b, errors in by.items() for e in errors]
        return "\n".join([repr(show(self.messages)), *(f"  ✗ message {i}, block {b}: {e}" for i, b, e in marks)])


Marked(sent, {msg_i: {block_i: [str(v)]}})

# %% [markdown]
# ### 8. What the live API says
#
# We made no live call to write this chapter. For this error the local API uses the wording
# that public captures of the live API show byte for byte (below); where no capture exists,
# `msgmodel/core/protocol.py` says which reading it chose. If you set `ANTHROPIC_API_KEY` and replay
# the refused request with the real client, the live API checks the same structure before any
# model runs and should answer with the same words (the index and the id are those of your
# request). Not executed here:
#
# ```python
# from msgmodel.api import client           # the real API when ANTHROPIC_API_KEY is set
# client().messages.create(model="claude-sonnet-4-6", max_tokens=256,
#                          tools=tools_param(REGISTRY), messages=refused)
# # anthropic.BadRequestError: ... messages.1.content.0: unexpected `tool_use_id` found in ...
# ```
#
# The public record quotes this text byte for byte from live sessions (confidence A/B in
# [api-rules.md](../docs/api-rules.md) §1.1): [anthropics/claude-code#24670][] (`messages.0.content.0`, a window that
# starts on an orphan), [anthropics/claude-code#8484][] (`messages.2.content.3`),
# [cline/cline#7225][] (`messages.2.content.1`), [openai/openai-agents-python#1797][]
# (`messages.4.content.1`), [openclaw/openclaw#8525][] (`messages.130.content.1`),
# [CopilotKit/CopilotKit#2450][] (`messages.0.content.0`).
#
# ### 9. The step-29 fix
#
# Step 29 fixed it where it hurt, inside compaction: move the cut **forward** to the next clean
# user start.
#
# [anthropics/claude-code#24670]: https://github.com/anthropics/claude-code/issues/24670
# [anthropics/claude-code#8484]: https://github.com/anthropics/claude-code/issues/8484
# [cline/cline#7225]: https://github.com/cline/cline/issues/7225
# [openai/openai-agents-python#1797]: https://github.com/openai/openai-agents-python/issues/1797
# [openclaw/openclaw#8525]: https://github.com/openclaw/openclaw/issues/8525
# [CopilotKit/CopilotKit#2450]: https://github.com/CopilotKit/CopilotKit/issues/2450

# %%
print(inspect.getsource(compact29.compact_fixed))

# %% [markdown]
# The same `keep=7` session, with the fixed compactor:

# %%
given_to_compact.clear()
engine = legacy_engine(keep=7, compact=recording(compact29.compact_fixed))
for prompt in PROMPTS * 2:
    engine.submit(prompt)
print(f"{len(PROMPTS) * 2} prompts answered, {len(given_to_compact)} compactions, no error")
print("final history valid:", validate(engine.messages, as_history=True) == [])

# %%
first = from_api(given_to_compact[0])
cut = len(first) - 7
moved = next(i for i in range(cut, len(first)) if is_clean_user_start(first[i]))
draw(first, {cut: "history[-7:] would start here (a tool answer)", moved: "compact_fixed starts here (a prompt)"})

# %% [markdown]
# And the sweep again, with the fix:

# %%
print(f"{'keep':>4}  {'tool prompts only':<18}  {'with one small-talk turn'}")
for keep in range(1, 10):
    fixed = compact29.compact_fixed
    print(f"{keep:>4}  {outcome(PROMPTS, keep, fixed):<18}  {outcome(CHATTY, keep, fixed)}")

# %% [markdown]
# ### 10. Why this fix is "copy #1"
#
# Here is the question the fix asks, "is this message a clean user start?", as step 29 wrote it,
# privately, inside the compaction module:

# %%
print(inspect.getsource(compact29._is_clean_user_start))

# %% [markdown]
# One expression, and every part of it encodes a fact about **the shape of a message**, not about compaction:
# the role names; `content` is either a string or a list; a block's kind is under the key
# `"type"`; a tool's answer is a block tagged `"tool_result"` inside a user message. Compaction
# now owns a private copy of that knowledge. It is not the only module that does. Here is every
# line of the legacy package whose code spells the tag `"tool_result"` itself (chapter 03 counts
# every such fact, not just this one):

# %%
for path in sorted(Path(msgmodel.course.legacy.__file__).parent.glob("*.py")):
    source = path.read_text()
    tree = ast.parse(source)
    lines = sorted(n.lineno for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value == "tool_result")
    for n in lines:
        print(f"{path.name}:{n}: {source.splitlines()[n - 1].strip()[:90]}")

# %% [markdown]
# (Notice `engine.py:80`, the failing-tool path: it spells the id key `toolUseId`. That slip is
# chapter 02's.) The engine builds the blocks by hand, the summarizer renders them, and compaction recognizes
# them. These are three modules with three private ideas of one shape. They agree today: on every
# message of the history above, copy #1 gives the same answer as the authority that chapter 04
# introduces:

# %%
wire = given_to_compact[0]
pairs = zip(wire, from_api(wire), strict=True)
print(all(compact29._is_clean_user_start(d) == is_clean_user_start(m) for d, m in pairs))

# %% [markdown]
# "They agree today" is the weakness. Nothing makes them agree tomorrow. Chapter 02 finds copy #2
# (how the summarizer renders a block) and the bug it hides; chapter 03 counts every copy;
# chapter 04 replaces them with one authority.
#
# ```mermaid
# flowchart LR
#     S["the shape of a tool_result<br/>(user message, type = tool_result)"]
#     S -. "copy #1 (step 29)" .-> C["compact29._is_clean_user_start"]
#     S -. "hand-built dicts" .-> E["legacy.engine: results.append({...})"]
#     S -. "copy #2 (step 30, chapter 02)" .-> R["summary30._block_to_text"]
# ```

# %% [markdown]
# ## Follow-up questions
#
# **"The error says `messages.1`. Is that message 1 of my history?"**
# No. For this error the index counts the messages of the request as sent, which is what the
# public captures show. After a compaction, message 0 is the summary, so request message 1 is
# history index `start` (here 6). When you debug, map the index back through the cut, or
# validate the request you actually send:

# %%
print(f"request message 1 is history[{start}]:", sent[1] == before[start])

# %% [markdown]
# The mirror-image error, a `tool_use` left without its result, is less certain. The API merges
# consecutive messages of one role into one turn, and one live recording suggests this error's
# index counts those merged turns. That is open question Q1 in
# [api-rules.md](../docs/api-rules.md#3-open-questions); counting merged turns is **msgmodel's
# reading**, not a confirmed fact. Here are both errors in one compacted request: we also replace
# the result of the `grep` call (request message 5) with a typed "Never mind." The summary and
# the orphan (messages 0 and 1) merge into one turn, so the `tool_use` at request index 4 is
# reported as `messages.3`. Which of the two errors the API reports first is open too (Q2);
# msgmodel puts the `tool_use` one first:

# %%
both = [*sent[:5], user_text("Never mind."), *sent[6:]]
for found in validate(both):
    print(f"{found.rule:<19} {found.path:<21} (request index {found.at.split('.')[1]})")

# %% [markdown]
# **"Without the summary in front, what would the API say?"**
# The same words at `messages.0.content.0`. That is what [anthropics/claude-code#24670][] and
# [CopilotKit/CopilotKit#2450][] report for a window that simply starts on an orphan:
#
# [anthropics/claude-code#24670]: https://github.com/anthropics/claude-code/issues/24670
# [CopilotKit/CopilotKit#2450]: https://github.com/CopilotKit/CopilotKit/issues/2450

# %%
print(validate(sent[1:])[0])

# %% [markdown]
# **"Why not just drop the orphaned results? cline and CopilotKit merged exactly that."**
# It does make the request valid, but information disappears silently: the assistant turn right
# after the dropped results talks about output the model can no longer see. Done naively, it also
# trades one 400 for another, because a message that held only results is left empty:

# %%
emptied = [sent[0], Message(role="user", content=[]), *sent[2:]]
print("blocks dropped: ", validate(emptied)[0])
print("message dropped:", validate([sent[0], *sent[2:]]))

# %% [markdown]
# Dropping the whole message is valid (`[]`: no violation). If you repair, report what you changed:
# `msgmodel.core.compact.repair` returns notes next to the repaired history (chapter 05).
#
# **"Should the cut move forward or backward?"**
# Forward (step 29) never exceeds the budget, but it keeps *fewer* messages than asked, sometimes
# none (see the pitfalls). Backward keeps at least `keep` messages and can overshoot the budget.
# Claude Code moves the start back (see [vs. the real source](#vs.-the-real-source));
# `msgmodel.core.compact` keeps "the shortest suffix of at least
# `keep_recent` messages that starts at a clean cut". Exercise 01.3 is the backward version.
# Here is how much the forward fix kept in each compaction of the small-talk session, when asked
# for 7:

# %%
kept = []
engine = legacy_engine(keep=7, compact=compact29.compact_fixed, on_compact=lambda h: kept.append(len(h) - 1))
for prompt in CHATTY * 2:
    engine.submit(prompt)
print("messages kept per compaction (asked for 7):", kept)

# %% [markdown]
# **"How would you test for this, so it cannot ship again?"**
# Not with one conversation. State the invariant and check it over many histories and every
# cut: *if a history is valid, the compacted history is valid.* `tests/test_legacy.py` does it
# with Hypothesis; here is the same idea as a plain sweep over 20 generated agent sessions and
# every value of `keep`:

# %%
cases = [(to_api(synth_session(30, seed=s)), keep) for s in range(20) for keep in range(1, 30)]
for compactor in (compact29.compact, compact29.compact_fixed):
    broken = sum(1 for h, keep in cases if validate(compactor(h, keep, lambda t: "summary"), as_history=True))
    print(f"{compactor.__name__:<14} {broken:>3} of {len(cases)} cuts refused")

# %% [markdown]
# ## Pitfalls and trade-offs
#
# - **Valid is not the same as right.** When the last `keep` messages hold no clean user start
#   (mid tool loop, small `keep`), the forward fix moves the cut all the way to the end and
#   summarizes *everything*, the question being answered right now included. The model then
#   answers from a summary alone. Here `keep=2` compacts in the middle of the `grep` round, so
#   the question, the call and its result all go into the summary. This is the one message the
#   model was sent:

# %%
compacted = []
engine = legacy_engine(keep=2, compact=compact29.compact_fixed, on_compact=lambda h: compacted.append(list(h)))
for prompt in CHATTY[:7]:
    answer = engine.submit(prompt)
print("asked:", CHATTY[6], "| the request held", len(compacted[-1]), "message(s):\n")
print(text_of(from_api(compacted[-1])[0]))

# %% [markdown]
# Neither the question nor the grep's output is in it: the summarizer (step 30, chapter 02) kept
# every tool block only as a placeholder, and its "Task" line is the *previous* summary, because
# this is a summary of a summary. The stand-in model, finding no question, echoes the summary
# back; a real model would have nothing better to go on:

# %%
print("answered:", answer[:120].replace("\n", " "), "…")

# %% [markdown]
# Valid, and useless: no error, just a wrong answer.
#
# - **The bug is intermittent by construction.** Whether a cut orphans an answer depends on
#   `keep` and on the rhythm of the conversation (section 6), so example-based tests pass.
#   Test the invariant instead.
# - **Copy #1 fails badly on bad data.** It indexes dicts directly, so a malformed message gives a
#   bare `KeyError` from deep inside compaction. msgmodel's decoder, `from_api` (chapter 04),
#   names the JSON path instead:

# %%
malformed = [{"role": "user", "content": "hi"}, {"role": "user"}]
try:
    compact29.compact_fixed(malformed, 1, lambda t: "summary")
except KeyError as e:
    print("copy #1:  KeyError", e)
try:
    from_api(malformed)
except ValueError as e:
    print("from_api:", type(e).__name__, e)

# %% [markdown]
# - **The mirror image is a different error.** Cut the *end* of a tool round (or crash between the
#   call and its result) and the `tool_use` is left without an answer: ``messages.N: `tool_use`
#   ids were found without `tool_result` blocks immediately after`` (the follow-up on indices
#   showed it). Same pairing rule, seen from the other side.
# - **Merging does not save you.** The API merges consecutive user messages (the summary and the
#   window's first message), but it checks `tool_result` pairing against the *raw* previous
#   message ([api-rules.md](../docs/api-rules.md) §0, finding 3). Two parallel calls whose
#   results were stored as two user messages in a row are refused on the second one:

# %%
question, calls, results = from_api(recorder.messages)[18:21]  # "Read README.md and setup.cfg"
split = [question, calls, *(Message(role="user", content=[r]) for r in tool_results_of(results))]
for i, m in enumerate(split):
    print(i, m.role.ljust(9), describe(m))
print(validate(split)[0])

# %% [markdown]
# - **The fix is local.** It works, and it is right to ship it under pressure. The cost is that
#   the knowledge "what a tool answer looks like" now lives in compaction too, and it will drift
#   (chapter 02).

# %% [markdown]
# ## vs. the real source
#
# The same bug in public projects (from [api-rules.md](../docs/api-rules.md) §2; "bug 1" there is the orphaned or
# dangling tool block):
#
# | Issue | What broke | Fix adopted |
# |---|---|---|
# | [anthropics/claude-code#24670][] | `/compact` itself fails: orphan at `messages.0.content.0` | closed as duplicate |
# | [anthropics/claude-code#14416][] | 100+ tool calls, then a `tool_use` compacted away, its result kept | autoclosed |
# | [anthropics/claude-code#40305][] | 11 orphan results; unrecoverable even with `/rewind` | closed (stale) |
# | [langchain-ai/langchain#29637][] | `trim_messages(strategy="last")` splits pairs | 3 PRs closed, [#35313][] open |
# | [langchain-ai/langchain#38352][] | `_find_safe_cutoff_point` keeps orphan ToolMessages | 4 PRs, all closed |
# | [pydantic/pydantic-ai#2050][] | a docs example (keep the last messages) orphans a tool return | open, unconfirmed |
# | [cline/cline#7225][] | orphan after truncation (`messages.2.content.1`) | merged: drop orphan results |
# | [CopilotKit/CopilotKit#2450][] | trim splits a pair (`messages.0.content.0`) | [PR #3820][]: drop orphaned results |
# | [HKUDS/OpenHarness#191][] | `/compact` slices `messages[-preserve_recent:]` | closed; pair-guard the split |
# | [dataelement/Clawith#415][] | `conversation[-ctx_size:]` splits a pair | [PR #416][] merged: strip leading orphans |
#
# Note the last two: `messages[-preserve_recent:]` and `conversation[-ctx_size:]` are our
# `history[-keep:]`, nearly character for character.
#
# How the libraries place the cut (from [anchors.md](../docs/anchors.md)):
#
# - **Anthropic Python SDK**: no trimming helper. The beta tool runner's client-side
#   `compaction_control` replaces the *whole* history with one user message (no window, so no
#   boundary to get wrong, but no recent context survives either), and it is deprecated in
#   favour of **server-side compaction**, `edits=[{"type": "compact_20260112"}]`: the API
#   compacts, and the client sends the resulting compaction block back verbatim. The API also
#   offers context-management edits such as `clear_tool_uses_20250919`, which clears old tool
#   uses on the server.
# - **LangChain**: `trim_messages(..., start_on="human")` has no pairing logic; it works only
#   because tool results are a separate `ToolMessage` class, which is why the idea does not carry
#   over to the Anthropic shape. `SummarizationMiddleware`'s cutoff went through three versions
#   (a ±5-message search, "advance past ToolMessages", "walk back to the AIMessage"); the last
#   was itself buggy ([#38352][]).
# - **pydantic-ai**: the harness's `find_safe_cutoff` walks back from `len - keep` but checks pairs
#   only within `_TOOL_PAIR_SEARCH_RANGE = 5` messages of the cut; since 2026 the core's
#   `_clean_message_history` silently drops orphaned results before every request.
# - **Claude Code** (closed source, second-hand notes): `adjustIndexToPreserveAPIInvariants()`
#   moves the start back until every kept `tool_result` keeps its `tool_use`. Even so,
#   [anthropics/claude-code#6836][] collects 150+ reports of mismatched blocks.
# - **Microsoft Agent Framework**: `group_messages()` makes a tool call and its results one atomic
#   group, and strategies drop whole groups, so a pair cannot be split by construction.
#
# **Why not just use the API's compaction?** Where you can, do: the server knows its own rules.
# But these are beta features of one provider, and your history still lives in your code. You
# store it, replay it, trim it for other providers and summarize it your own way, and every one of
# those edits must keep the pairs. Server-side compaction removes one place that cuts, not the
# need to know what a message looks like.
#
# [anthropics/claude-code#24670]: https://github.com/anthropics/claude-code/issues/24670
# [anthropics/claude-code#14416]: https://github.com/anthropics/claude-code/issues/14416
# [anthropics/claude-code#40305]: https://github.com/anthropics/claude-code/issues/40305
# [langchain-ai/langchain#29637]: https://github.com/langchain-ai/langchain/issues/29637
# [#35313]: https://github.com/langchain-ai/langchain/pull/35313
# [langchain-ai/langchain#38352]: https://github.com/langchain-ai/langchain/issues/38352
# [pydantic/pydantic-ai#2050]: https://github.com/pydantic/pydantic-ai/issues/2050
# [cline/cline#7225]: https://github.com/cline/cline/issues/7225
# [CopilotKit/CopilotKit#2450]: https://github.com/CopilotKit/CopilotKit/issues/2450
# [PR #3820]: https://github.com/CopilotKit/CopilotKit/pull/3820
# [HKUDS/OpenHarness#191]: https://github.com/HKUDS/OpenHarness/issues/191
# [dataelement/Clawith#415]: https://github.com/dataelement/Clawith/issues/415
# [PR #416]: https://github.com/dataelement/Clawith/pull/416
# [#38352]: https://github.com/langchain-ai/langchain/issues/38352
# [anthropics/claude-code#6836]: https://github.com/anthropics/claude-code/issues/6836

# %% [markdown]
# ## One-line summary
#
# **In the Anthropic protocol a tool's answer rides inside a user message, so a compaction window
# must start at a *clean* user start; the moment compaction learns to recognize one on its own,
# the message's shape has its first private copy outside the message model.**

# %% [markdown]
# ## Exercises
#
# **01.1 (reading the model).** Write `first_clean_start(history)` on wire dicts (the plain
# JSON-shaped dicts the legacy engine keeps and the SDK sends): the index of the
# first user message that answers no tool call, or `None` if there is none. Careful: `content`
# may be a string or a list, and a user message may hold a `tool_result` *and* text.

# %%
from msgmodel.course.exercises import check, reveal


def first_clean_start(history):
    ...  # your code here


check("01.1", first_clean_start)

# %% [markdown]
# Stuck? `print(reveal("01.1"))` shows a reference solution.
#
# **01.2 (predicting the API).** A slicing compactor sends `[summary, *history[-7:]]` for the
# history below. What does the API answer? Answer with one letter.

# %%
from msgmodel.course.exercises.ch01 import CHOICES, EXERCISE_KEEP, exercise_history

draw(from_api(exercise_history()))
print(f"\nsent: [summary, *history[-{EXERCISE_KEEP}:]]   (each 400 text is cut before its second sentence)")
for letter, text in CHOICES.items():
    print(f"{letter}. {text.split('. Each')[0]}")

# %%
prediction = None  # your answer: one letter, e.g. "A"
check("01.2", prediction)

# %% [markdown]
# Stuck? `print(reveal("01.2"))` shows a reference solution.
#
# **01.3 (writing code).** Write `smallest_safe_keep(history, keep)`: the smallest `k >= keep` such
# that the API accepts `[summary, *history[-k:]]`. This moves the cut *backward*, the other way
# from step 29. When `keep >= len(history)` the compactor summarizes nothing and sends the history
# as it is, so return `keep` unchanged. The checker runs it on the exercise history and on
# generated sessions, for every `keep` up to one past the history's length.

# %%
def smallest_safe_keep(history, keep):
    return keep  # your code here: trust the caller's keep, as step 29 did


check("01.3", smallest_safe_keep)

# %% [markdown]
# Stuck? `print(reveal("01.3"))` shows a reference solution.
