# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # 04 · One authoritative model
#
# *Chapters 01–03 found two bugs with one cause: the shape of a message was known in many places,
# and each place knew it a little differently. This chapter reads the cure, `msgmodel/core/message.py`,
# one part at a time, and checks every claim it makes by running it.*

# %% [markdown]
# ## What
#
# `msgmodel/core/message.py` is the only module in the package that knows what a chat message looks
# like. It has four parts: the **blocks** (a tagged union of five classes), the **constructors**
# (the only way the package builds a message), the **readers** (the only way it reads one), and
# the **codec** (JSON and SDK dicts in and out, with errors that name the JSON path). We walk
# through each part, and we run mypy from the notebook to show what the type checker now catches
# that `list[Any]` let through.
#
# After this chapter you can explain, with evidence, how one module removes the root cause that
# chapter 03 measured, and you can give the Python counterpart of each idea in the original
# TypeScript design.

# %% [markdown]
# ## Why
#
# **"`list[Any]` works. Why spend a week on a type module?"**
#
# Because "works" meant "works until one of the copies gets a detail wrong". Chapter 03 counted
# the places in `msgmodel.course.legacy` that know what a block looks like. The orphan `tool_result` of
# chapter 01 and the `(tool call)` summary of chapter 02 look unrelated, but each was one of those
# copies getting a detail wrong: compaction's idea of where a history may start, and the
# summarizer's idea of how to render a block. Patching a copy fixes one symptom and leaves the
# cause in place, ready for the next copy.
#
# A type module removes the cause in three ways.
#
# 1. **One place.** The knowledge lives in one module: one place to get right, one place to change.
# 2. **The checker can see it.** Inside `if b.type == "text":` mypy knows `b` is a `TextBlock`,
#    and a `match` that forgets a kind fails the check instead of quietly returning `None` in
#    production.
# 3. **The edges are guarded.** A misspelled field fails on the line that writes it, not as a 400
#    two turns later, and a bad file fails on load with the path of the bad value.
#
# It adds no feature. The original series calls this step 收口, "closing the knowledge into one
# place". It is worth a week because the bugs it removes are the expensive kind: they pass
# review, pass the tests written for the happy path, and surface in production as an API error
# that names a message index, not a line of your code.

# %% [markdown]
# ## How
#
# ### 1. The map: from copies to one module
#
# Before (chapters 01–03), each layer carried its own idea of a message. After, each layer imports
# one module.
#
# ```mermaid
# flowchart LR
#   subgraph B["Before: msgmodel.course.legacy, list of dicts"]
#     direction TB
#     B1["compact29: its own _is_clean_user_start, copy 1"]
#     B2["summary30: its own _block_to_text, copy 2"]
#     B3["api: its own extract_text, copy 3"]
#     B4["engine: hand-built tool_result dicts"]
#     B5["storage: json.dump / json.load, no checks"]
#   end
#   subgraph A["After: msgmodel, list of Message"]
#     direction TB
#     A1[compact] --> M
#     A2[engine] --> M
#     A3["api: the local Messages API server"] --> M
#     A4[storage] --> M
#     A5[display] --> M
#     M[("message.py: blocks, constructors, readers, codec")]
#   end
#   B ==>|step 31| A
# ```
#
# In words: before, five legacy modules each carried their own copy of the shapes; after, compaction,
# the engine, storage, display and the local API server all import `message.py`. The two `api` boxes
# are different modules: the legacy one was a client-side layer (its job is now three calls in the
# engine, shown in chapter 05), while `msgmodel.api` is the local Messages API server these notebooks
# send requests to.
#
# | Part | What it holds | What it replaces in `msgmodel.course.legacy` |
# |---|---|---|
# | Blocks | five block classes, `ContentBlock` (their union), `Message` | dicts with a `"type"` key to remember |
# | Constructors | `user_text`, `assistant_msg`, `tool_result_msg`, `tool_result_block` | hand-built tool_result dicts |
# | Readers | nine functions, from `blocks_of` to `transcript_of` | copies #1–#3 and every `.get("type")` |
# | Codec | `from_json`, `to_json`, `from_api`, `to_api`, `DecodeError` | `json.load` of whatever is on disk |
#
# Copies #1–#3 are the private helpers chapters 01–03 found: compaction's `_is_clean_user_start`,
# the summarizer's `_block_to_text` and the api layer's `extract_text`. Chapter 03 ended with a
# list of what one authority must provide: one owner, one reader per question, tags that mypy
# knows, constructors instead of dicts, and a decoder that names the bad path. The four parts
# above are that list, delivered.

# %% [markdown]
# ### 2. From the TypeScript design to Python
#
# The original design is TypeScript. Every idea in it has a Python counterpart, and each row is
# shown running below.
#
# | TypeScript idea | Python here | § |
# |---|---|---|
# | discriminated union (判别联合) on `type` | tagged frozen msgspec `Struct`s with a class-level `type` Literal | 3 |
# | `readonly` fields | `frozen=True` | 3 |
# | `content: string \| ContentBlock[]` | `content: str \| list[ContentBlock]` | 4 |
# | `toolResultBlock(id, …)`, never an object literal | `tool_result_block(tool_use_id, …)`: names checked | 5 |
# | `switch (b.type)` narrows `b` (类型收窄, narrowing) | `if b.type == "text":`, `match b.type:`, `match b:` | 7 |
# | exhaustiveness: optional in TS (`never`), not in the original (see below) | `case _: assert_never(b)` | 7 |
# | `JSON.parse` / `JSON.stringify`, trusted as-is | `from_json` / `to_json`, `DecodeError(path, expected)` | 8 |
# | (no counterpart) | `OpaqueBlock`: a kind we do not interpret, kept unchanged | 3, 8 |
#
# One row is an addition, not a translation: the original's `blockToText` has no exhaustiveness
# check (it ends in `default: return ""`). Section 7 shows what that costs and what `assert_never`
# buys.

# %%
import inspect
import json
import typing

import msgspec

import msgmodel
from msgmodel import (
    ContentBlock,
    Message,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    block_to_api,
)
from msgmodel.course.display import show
from msgmodel.course.exercises import check, reveal

# %% [markdown]
# ### 3. The blocks: a tagged union
#
# The blocks are built on [msgspec](https://jcristharif.com/msgspec/), a serialization library
# whose `Struct` classes are typed records that it encodes to JSON and decodes from JSON, checking
# types as it decodes. (Why msgspec, and not pydantic or dataclasses, is answered in chapters 06
# and 07.) Here is `TextBlock`, exactly as `message.py` defines it. Three details carry the design:
#
# - `tag="text"` makes msgspec write and read `"type": "text"` on the wire;
# - `frozen=True` makes instances read-only;
# - `type: ClassVar[Literal["text"]]` gives the class its tag as a class attribute whose type mypy
#   sees as the literal `"text"`. This is what narrowing will rely on.
#
# `extra` keeps the fields the API defines beyond the core ones (such as `cache_control`), so a
# round trip loses nothing. Its odd wire name (`_EXTRA_WIRE_NAME`, printed below) is an
# implementation detail: no real block has that key, and `to_json` spreads `extra`'s keys back
# into the block. `**_STRUCT_OPTS` holds the settings every block shares, printed below
# the class:
#
# - `tag_field` names the wire field that carries the tag;
# - `omit_defaults` leaves `"is_error": false` and an empty `extra` off the wire;
# - `forbid_unknown_fields` sends any unexpected field to the slower decoder that fills `extra`
#   (section 8 and the pitfalls);
# - `gc=False` is a speed setting: blocks never form reference cycles.

# %%
print(inspect.getsource(TextBlock))
print("_EXTRA_WIRE_NAME =", repr(msgmodel.core.message._EXTRA_WIRE_NAME))
print("_STRUCT_OPTS =", msgmodel.core.message._STRUCT_OPTS)

# %% [markdown]
# `type` is not a field. It costs nothing per instance, and nobody can build a `TextBlock` whose
# `type` says something else. The fields are only what varies from one text block to another.

# %%
print("fields:", [f.name for f in msgspec.structs.fields(TextBlock)])
print("TextBlock.type =", repr(TextBlock.type), "  TextBlock('hi').type =", repr(TextBlock("hi").type))

# %% [markdown]
# One block of each of the five classes, and the JSON each one writes. `block_to_api` turns one
# block into its wire dict (`to_api` does the same for whole messages, in the shape the SDK
# accepts as `messages=`).

# %%
five = [
    TextBlock("How many retries does the client make?"),
    ThinkingBlock("The defaults live in the config module.", signature="EqQBCkYIBxgCKkA0+/9x/q=="),
    ToolUseBlock(id="toolu_01A", name="grep", input={"pattern": "retries", "path": "src/config.py"}),
    ToolResultBlock(tool_use_id="toolu_01A", content='DEFAULTS = {"retries": 3}'),
    OpaqueBlock({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}),
]
for b in five:
    print(f"{type(b).__name__:15} .type={b.type!r:14} {json.dumps(block_to_api(b))}")

# %% [markdown]
# Decoding runs the other way. Given a union of tagged structs, msgspec reads `"type"` first and
# picks the class from it, with no hand-written `if d["type"] == ...`. The union below has three
# members, not `ContentBlock`'s five: msgspec can only dispatch among its own `Struct`s, and
# `OpaqueBlock` is not one (it holds any JSON object). That is why `from_json` has a fast path for
# the known kinds and falls back to a slower walking decoder for the rest (see the pitfalls).

# %%
wire = b'{"type": "tool_use", "id": "toolu_01A", "name": "grep", "input": {"pattern": "retries"}}'
print(msgspec.json.decode(wire, type=TextBlock | ToolUseBlock | ToolResultBlock))

# %% [markdown]
# The first four are the kinds this package interprets. The fifth is the catch-all. Any kind this
# package does not interpret (`image`, `document`, `redacted_thinking`, `server_tool_use`, and
# whatever the API adds next year) is kept as an `OpaqueBlock` that holds the original JSON
# object. Its `.type` is `"opaque"`, and its wire type is `.kind`. Keeping `.type` to five fixed
# values is what lets mypy check a `match` for completeness, however many kinds the API invents.

# %%
image = five[-1]
print("image.type =", repr(image.type), "  image.kind =", repr(image.kind))
print("ContentBlock =", " | ".join(t.__name__ for t in typing.get_args(ContentBlock)))

# %% [markdown]
# Frozen means read-only, like TypeScript's `readonly`. To change a block you build a new one;
# `msgspec.structs.replace` copies a block with one field changed.

# %%
call = five[2]
try:
    call.name = "read_file"
except AttributeError as e:
    print("AttributeError:", e)
print(msgspec.structs.replace(call, name="read_file"))

# %% [markdown]
# ### 4. The message: `str | list[ContentBlock]`
#
# A `Message` is a role (`"user"` or `"assistant"`) and a content, and the content has the two
# forms the API accepts: a plain string (what a person typed, a compaction summary) or a list of
# blocks. `blocks_of` hides the difference from code that only wants blocks.

# %%
from msgmodel import blocks_of, user_text

typed = user_text("How many retries does the client make?")
print(repr(typed.content))
print(blocks_of(typed))
print(blocks_of(user_text("")), "← an empty string is no blocks at all")

# %% [markdown]
# ### 5. Constructors: the only way to build
#
# Four functions build every message in the package: `user_text(s)`, `assistant_msg(blocks)`,
# `tool_result_msg(results)` and `tool_result_block(tool_use_id, content, is_error=False)`. Here
# they build a realistic exchange. The model greps the config and, in the same turn, reads a file
# that does not exist. The demo tools (`msgmodel.api.demo_tools`, an in-memory project) produce the
# results, through the same constructors.

# %%
from msgmodel import assistant_msg, tool_result_block, tool_result_msg
from msgmodel.api.demo_tools import demo_registry
from msgmodel.core.tools import run_tool

registry = demo_registry()
grep_call = ToolUseBlock(id="toolu_01A", name="grep", input={"pattern": "retries", "path": "src/config.py"})
read_call = ToolUseBlock(id="toolu_01B", name="read_file", input={"path": "src/settings.py"})
history = [
    user_text("How many retries does the client make?"),
    assistant_msg([five[1], TextBlock("Let me look at the config."), grep_call, read_call]),
    tool_result_msg([run_tool(registry, grep_call), run_tool(registry, read_call)]),
]
show(history)

# %% [markdown]
# A constructor also carries a protocol fact, so its callers need not remember it.
# `tool_result_msg` makes a **user** message, because in this protocol tool results travel in user
# turns. It also refuses to make one with nothing in it.

# %%
print("tool_result_msg makes a", history[2].role, "message")
try:
    tool_result_msg([])
except ValueError as e:
    print("ValueError:", e)

# %% [markdown]
# #### The `toolUseId` slip, once more
#
# In chapter 02, the legacy engine's error path built `{"type": "tool_result", "toolUseId": ...}`.
# A dict takes any key, `json.dump` writes it, and only the server noticed, one request later.
# With a constructor, the same slip fails on the line that makes it:

# %%
for build in (tool_result_block, ToolResultBlock):
    try:
        build(toolUseId="toolu_01B", content="no such file", is_error=True)
    except TypeError as e:
        print(f"{build.__name__}: TypeError: {e}")

# %% [markdown]
# The block classes are constructors too, with keyword names checked the same way. The four
# functions add what a bare struct cannot: the protocol facts. Section 7 shows that mypy rejects
# both lines above before they ever run.
#
# ### 6. Readers: the only way to read
#
# Nine readers answer every question the package asks of a message. Here are five of them, asked
# of each message of the history above:

# %%
from msgmodel import is_clean_user_start, is_tool_result_message, text_of, tool_uses_of

rows = [("", "role", "blocks", "text_of", "tool_uses_of", "tool result?", "clean start?")]
for i, m in enumerate(history):
    names = [u.name for u in tool_uses_of(m)]
    text = repr(text_of(m)[:26])
    rows.append((i, m.role, len(blocks_of(m)), text, names, is_tool_result_message(m), is_clean_user_start(m)))
for row in rows:
    print("{!s:>2} {!s:10} {!s:>6}  {!s:30} {!s:22} {!s:13} {!s}".format(*row))

# %% [markdown]
# Row 2 is the lesson of chapter 01 in one line. It is a **user** message, and yet a history may not
# start there, because it answers tool calls. `is_clean_user_start` is that rule. It lives here
# once, built on `is_tool_result_message`, instead of privately in compaction (copy #1). Note also
# that `text_of` skips the thinking block and the tool calls: it returns the text a person would
# read.
#
# #### `block_to_text`: what a summarizer reads
#
# `block_to_text` renders one block for a summarizer. It is chapter 02's fix, written once:
#
# - text as itself;
# - a call as `[call name(args)]`;
# - a result as `[result: …]`, or `[result (failed): …]` when it failed;
# - thinking as nothing;
# - other kinds as a short label.

# %%
from msgmodel import block_to_text

for b in [*blocks_of(history[1]), *blocks_of(history[2]), image]:
    print(f"{type(b).__name__:15} → {block_to_text(b)!r}")

# %% [markdown]
# Two cuts keep one giant call or result from drowning the transcript. Arguments are cut at
# `ARGS_LIMIT` characters and results at `RESULT_LIMIT`. Each cut is marked with `…`, so the
# summarizer can tell a cut from an end.

# %%
from msgmodel import ARGS_LIMIT, RESULT_LIMIT

print("ARGS_LIMIT =", ARGS_LIMIT, "  RESULT_LIMIT =", RESULT_LIMIT)
big_call = ToolUseBlock(id="toolu_01C", name="write_file", input={"path": "notes.md", "text": "x" * 400})
big_result = tool_result_block("toolu_01C", "line\n" * 300)
for b, size in [(big_call, len(json.dumps(big_call.input))), (big_result, len(big_result.content))]:
    out = block_to_text(b)
    print(f"{type(b).__name__}: {size} chars in, {len(out)} out: {out[:24]!r} … {out[-10:]!r}")

# %% [markdown]
# `message_to_text` renders a whole message: each block through `block_to_text`, one per line,
# with the empty ones (the thinking) left out.

# %%
from msgmodel import message_to_text

print(message_to_text(history[1]))

# %% [markdown]
# `transcript_of` puts it all together, one paragraph per message, labelled with its role. Set it
# beside the legacy transcript of the same history from chapter 02. Every block that used to be
# `(tool call)` now says what was searched, what was found and what failed. Even the thinking block
# came out as `(tool call)` there.

# %%
from msgmodel import to_api, transcript_of
from msgmodel.course.legacy import summary30  # the exhibit, imported here for contrast only

print(summary30.transcript(to_api(history)))
print("-" * 40)
print(transcript_of(history))

# %% [markdown]
# ### 7. Narrowing, checked by mypy
#
# The TypeScript design's central claim is that one `type` field lets the compiler narrow: inside
# `case "text"`, `b` *is* a `TextBlock`. Python makes the same claim. We can check it rather than
# take it on trust. `msgmodel.course.teaching.type_check` runs `mypy --strict` on a snippet, through
# `mypy.api` in this process, in a scratch folder where `msgmodel` is importable, and returns what
# mypy says (the snippet is called `snippet.py`).
#
# First, what mypy believes `b` is, inside a branch and after it. `reveal_type` is mypy's way of
# printing a type.

# %%
from msgmodel.course.teaching import type_check

type_check("""\
    from typing import reveal_type
    from msgmodel import ContentBlock

    def f(b: ContentBlock) -> None:
        if b.type == "text":
            reveal_type(b)
        reveal_type(b)
""")

# %% [markdown]
# Now the mistake that narrowing exists to catch: reading a tool call's `.name` in the `text`
# branch. With `list[Any]` this is a `KeyError` (or worse, a silent `None` from `.get`) at run time.
# Here it is an error before anything runs.

# %%
type_check("""\
    from msgmodel import ContentBlock

    def label(b: ContentBlock) -> str:
        if b.type == "text":
            return f"said {b.name}"
        return b.type
""")

# %% [markdown]
# Exhaustiveness comes next. The original TypeScript `blockToText` ended in `default: return ""`.
# That compiles whichever kind you forget, and the forgotten kind silently renders as nothing, which
# is exactly how a summary loses things. `assert_never(b)` turns the omission into a type error: it
# accepts only a value of type `Never`, and `b` has that type only if every case before it was
# handled. Forget one class, here `OpaqueBlock`, and mypy names it:

# %%
type_check("""\
    from typing import assert_never
    from msgmodel import ContentBlock, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock

    def kind(b: ContentBlock) -> str:
        match b:
            case TextBlock() | ThinkingBlock() | ToolResultBlock():
                return b.type
            case ToolUseBlock():
                return f"call {b.name}"
            case _:
                assert_never(b)
""")

# %% [markdown]
# When a sixth class joins the union, this is what happens to every `match` that does not handle
# it, including those in `message.py` itself. The list of errors is the list of places to update
# (chapter 06 does exactly that). Add the missing case and the check passes:

# %%
type_check("""\
    from typing import assert_never
    from msgmodel import ContentBlock, OpaqueBlock, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock

    def kind(b: ContentBlock) -> str:
        match b:
            case TextBlock() | ThinkingBlock() | ToolResultBlock():
                return b.type
            case ToolUseBlock():
                return f"call {b.name}"
            case OpaqueBlock():
                return b.kind
            case _:
                assert_never(b)
""")

# %% [markdown]
# The other style narrows too: a test of `b.type`, as in TypeScript's `switch`. It narrows `b`
# itself because each class's `type` is a different literal, so only one class can match a given
# value.

# %%
type_check("""\
    from msgmodel import ContentBlock

    def label(b: ContentBlock) -> str:
        if b.type == "text":
            return b.text
        match b.type:
            case "tool_use":
                return b.name
            case _:
                return b.type
""")

# %% [markdown]
# Last, the slip from section 5, caught before anything runs. Look at the last line for contrast:
# the hand-written dict, as the legacy engine wrote it, passes mypy without a word, because
# `dict[str, Any]` accepts any key.

# %%
type_check("""\
    from typing import Any
    from msgmodel import ToolResultBlock, tool_result_block

    a = tool_result_block(toolUseId="toolu_01B", content="no such file", is_error=True)
    b = ToolResultBlock(toolUseId="toolu_01B", content="no such file", is_error=True)
    c: dict[str, Any] = {"type": "tool_result", "toolUseId": "toolu_01B", "content": "no such file"}
""")

# %% [markdown]
# ### 8. The codec: JSON and the SDK, in and out
#
# Four functions cross the boundary, plus per-block helpers (`blocks_from_api`, `block_from_api`,
# `block_to_api`). `to_json` and `from_json` work on bytes, for storage. `to_api` and `from_api`
# work on the plain dicts and lists that the official SDK takes as `messages=`, and on the objects
# it returns. Both round trips are exact:

# %%
from msgmodel import from_api, from_json, to_json

data = to_json(history)
print(len(data), "bytes:", data[:100], "…")
print("from_json(to_json(history)) == history:", from_json(data) == history)
print("from_api(to_api(history)) == history:  ", from_api(to_api(history)) == history)

# %% [markdown]
# `to_api` is what goes to the SDK. Below, the official `anthropic` client takes
# `to_api(history)`. It is wired to the local Messages API (`local_client()`, no network, no
# key). `blocks_from_api` turns the SDK's response objects back into our blocks, and
# `assistant_msg` adds them to the history. The answer comes from the local API's default model,
# `RuleModel` (a rule-based stand-in from `msgmodel.api.scripted`), not from Claude, which is why it
# reads so mechanically.

# %%
from msgmodel import blocks_from_api
from msgmodel.api import local_client
from msgmodel.core.tools import tools_param

client = local_client()
resp = client.messages.create(
    model="claude-sonnet-4-6", max_tokens=1024, messages=to_api(history), tools=tools_param(registry)
)
print("the SDK returns:", [f"{type(b).__module__}.{type(b).__name__}" for b in resp.content])
history.append(assistant_msg(blocks_from_api(resp.content)))
print("we store:       ", [type(b).__name__ for b in blocks_of(history[-1])])
print(text_of(history[-1]))

# %% [markdown]
# #### `DecodeError`: the path to the bad value
#
# Bad data raises one exception type, `DecodeError` (a `ValueError`). Its `.path` is a JSON path
# into the input, and `.expected` says what should have been there. `source=`, a file name for
# example, is put in front of the message. Here are three bad inputs. The third is the `toolUseId`
# slip as chapter 02's legacy storage would have saved it.

# %%
from msgmodel import DecodeError

bad_inputs = {
    "content is a number": '[{"role": "user", "content": 42}]',
    "a system turn inside messages": '[{"role": "system", "content": "Be brief."}]',
    "the toolUseId slip": '[{"role": "user", "content": [{"type": "tool_result", "toolUseId": "toolu_01B"}]}]',
}
for label, text in bad_inputs.items():
    try:
        from_json(text, source="session.json")
    except DecodeError as e:
        print(f"{label}:\n    {e}\n    .path = {e.path!r}")

# %% [markdown]
# The path reads like the data: `$` is the whole array, `[0]` the first message, `.content[0]` its
# first block. The API names the same place `messages.0.content.0`. The validator of the next
# chapters uses the API's style, because its text must match the API's.
#
# The second input shows a known limit. Some models accept a `system` turn in the middle of
# `messages`, but `Message.role` is only `"user"` or `"assistant"`, so such a history cannot be
# represented here: `from_json` refuses it rather than guess. System prompts go in the request's
# `system=` parameter.
#
# `from_json` checks **shape** ("is this a list of messages at all?"). It does not check the
# protocol's rules. Spell the field right and the third input decodes, even though no `tool_use`
# precedes its result. Pairing is `msgmodel.core.protocol`'s job, and it answers with chapter 01's error:

# %%
from msgmodel.core.protocol import validate

fixed = from_json(bad_inputs["the toolUseId slip"].replace("toolUseId", "tool_use_id"))
print("decodes to:", fixed)
print("protocol:  ", *validate(fixed))

# %% [markdown]
# The same split holds for a field the model does not know on a known block. The model is
# deliberately lossless, so a misspelled `is_eror` goes into `extra` (it could be a field the API
# added last week). The validator refuses it with "Extra inputs are not permitted". That refusal is
# *msgmodel's reading* of the API, not a live capture: `msgmodel/core/protocol.py` lists it under "Other
# readings" (extra fields are checked against every field the SDK knows for that block kind).

# %%
from msgmodel import tool_results_of

typo = from_json(
    '[{"role":"user","content":"Read x."},'
    '{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01D","name":"read_file","input":{"path":"x"}}]},'
    '{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01D","content":"boom","is_eror":true}]}]'
)
print("message.py keeps it:", tool_results_of(typo[2])[0].extra)
print("protocol.py refuses it:", *validate(typo))

# %% [markdown]
# #### Nothing is lost: `OpaqueBlock`, `extra` and signatures
#
# A session from a real agent holds kinds this model does not interpret. The one below has a
# user turn with an image and a text block carrying `cache_control`. Its assistant turn has signed
# thinking and a `redacted_thinking` block (thinking that the API returns encrypted). `from_json`
# keeps the image and the redacted thinking as `OpaqueBlock`s and the `cache_control` in `extra`.
# `to_json` then writes back the very same bytes.

# %%
raw = (
    b'[{"role":"user","content":['
    b'{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},'
    b'{"type":"text","text":"What is this?","cache_control":{"type":"ephemeral"}}]},'
    b'{"role":"assistant","content":['
    b'{"type":"thinking","thinking":"A PNG header.","signature":"EqQBCkYIBxgCKkA0+/9x/q=="},'
    b'{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a"},'
    b'{"type":"text","text":"A tiny PNG."}]}]'
)

# %%
session = from_json(raw)
for m in session:
    print(f"{m.role:9}", [type(b).__name__ for b in blocks_of(m)])
print("to_json(from_json(raw)) == raw:", to_json(session) == raw)

# %% [markdown]
# The signature matters most. The API checks it when the thinking is sent back, and a thinking block
# that comes back altered is refused with ``messages.N.content.M: Invalid `signature` in `thinking`
# block`` ([api-rules.md](../docs/api-rules.md);
# [anthropics/anthropic-sdk-python#1598](https://github.com/anthropics/anthropic-sdk-python/issues/1598)).
# Here it comes through untouched, and so do the redacted data and the `cache_control`. The readers
# handle the unknown kinds too: the image becomes `[image]`, and redacted thinking, like
# thinking, becomes nothing.

# %%
thinking, redacted, _ = blocks_of(session[1])
print("signature:", thinking.signature, "  redacted data:", redacted.raw["data"])
print("extra of the text block:", blocks_of(session[0])[1].extra)
print(transcript_of(session))

# %% [markdown]
# ### 9. A first check: the legacy helpers are gone
#
# Last, the "after" half of the map, checked against the source. This is a narrow check: the
# modules that replaced the legacy exhibits import what they need from `msgmodel.core.message`, and
# none of them defines one of the four legacy helpers by name. It does not prove that no copy of
# the knowledge remains under another name; chapter 05 re-runs chapter 03's scanner on the whole
# package for that.

# %%
import ast
import importlib
import inspect
import textwrap

legacy_helpers = {"_is_clean_user_start", "_block_to_text", "extract_text", "_message_text"}
for name in ["core.compact", "core.engine", "api.server", "core.storage"]:
    tree = ast.parse(inspect.getsource(importlib.import_module(f"msgmodel.{name}")))
    nodes = list(ast.walk(tree))
    imports = [n for n in nodes if isinstance(n, ast.ImportFrom) and n.module == "msgmodel.core.message"]
    used = sorted(a.name for n in imports for a in n.names)
    own = sorted(n.name for n in nodes if isinstance(n, ast.FunctionDef) and n.name in legacy_helpers)
    print(f"{name:12} own copies: {own or 'none'}; imports {len(used)} names from msgmodel.core.message:")
    print(textwrap.fill(", ".join(used), width=100, initial_indent="    ", subsequent_indent="    "))

# %% [markdown]
# ## Follow-up questions
#
# **"Why is `type` a class attribute and not a field?"**
#
# Because it never varies within a class. As a field it would be data that could disagree with the
# class (a `TextBlock` whose `type` says `tool_use`), and it would cost a slot in every instance.
# As a `ClassVar` it is known to mypy from the class alone, which is what narrowing needs, and
# msgspec writes the wire tag from `tag=` anyway. You cannot even pass it:

# %%
try:
    TextBlock(text="hi", type="tool_use")
except TypeError as e:
    print("TypeError:", e)

# %% [markdown]
# **"Why is an `OpaqueBlock`'s `.type` `"opaque"` and not its real kind?"**
#
# So that `.type` stays a closed set of five literals. If it were `"image"`, or any `str`, then as
# far as mypy knows `b.type == "text"` could be true for an opaque block, and the `text` branch
# could no longer promise a `TextBlock`. The price is one invariant, enforced when the block is
# made: an opaque block is never one of the four interpreted kinds.

# %%
try:
    OpaqueBlock({"type": "text", "text": "pretending"})
except ValueError as e:
    print("ValueError:", e)

# %% [markdown]
# Chapter 06 answers the other follow-ups this chapter raises, each with its own evidence:
# [why `content` is `str | list`, what happens to a block kind the model does not know, why the
# blocks are frozen, why they carry `extra`, where validation belongs, and why
# msgspec](06_interview_followups.ipynb). This chapter showed the mechanism; chapter 06 gives the
# interview answers.

# %% [markdown]
# ## Pitfalls and trade-offs
#
# **Frozen is shallow.** `frozen=True` stops `block.name = ...`. But the `dict` in `input` and the
# `list` in `content` are ordinary mutable objects, and `blocks_of` returns the message's own list
# (no copy, for speed). Treat them as read-only, and build new messages with the constructors.

# %%
m = assistant_msg([ToolUseBlock(id="toolu_01E", name="grep", input={"pattern": "x"})])
tool_uses_of(m)[0].input["pattern"] = "y"  # changes the block inside the "frozen" message
blocks_of(m).append(TextBlock("appended"))  # changes the message's own list
print(m)

# %% [markdown]
# **Constructing does not check types at run time.** `Message(role="system", content="hi")` is built
# without a word: msgspec checks types when it decodes, not in `__init__`, and that is part of why
# it is fast. Two nets catch the mistake instead: mypy, before anything runs, and
# `from_json`/`from_api` at the boundary.

# %%
bad = Message(role="system", content="hi")  # no error here
try:
    from_api(to_api([bad]))
except DecodeError as e:
    print("DecodeError:", e)
type_check("""\
    from msgmodel import Message
    bad = Message(role="system", content="hi")
""")

# %% [markdown]
# **Lossless means a typo survives decoding.** The `is_eror` field above was kept, not refused.
# Run `protocol.validate` before you send; `from_json` alone is not enough.
#
# **Two decoders.** A msgspec tagged union dispatches only among `Struct`s, each with its own
# fixed tag; no member can stand for "any other tag", and `OpaqueBlock` is not a `Struct`. So the
# fast path decodes the four known kinds straight into structs, and a document that holds any
# other kind, or an `extra` field, falls back to a slower walk of the whole document. The result
# is the same, and so are the error paths. Sessions full of images pay for that walk. The comments
# above `_FAST_DECODER` in `message.py` explain the split.
#
# **`text_of` and `message_to_text` answer different questions.** `text_of` joins a message's text
# blocks with nothing between them, the way the API streams one answer. `message_to_text` renders
# every block, one per line, for a summarizer. Pick the one that answers your question. Do not
# write a third.
#
# **One module is a dependency of everything.** A change to `message.py` reaches every layer. That
# is the point (one place to change) and the risk (one place to break), so it carries the
# heaviest tests: `tests/test_message.py` pins behaviour, and `tests/test_message_properties.py`
# checks the round-trip laws with Hypothesis. Chapter 07 asks when consolidating is premature.

# %% [markdown]
# ## vs. the real source
#
# Each of these libraries has some form of this model. They differ in where the shape is checked,
# and in whether the library gives its users constructors and readers.
#
# | | Blocks checked at run time | Constructors | Readers | Kinds it does not know |
# |---|---|---|---|---|
# | **msgmodel** | `from_json` / `from_api`, with a path | 4 | 9 | `OpaqueBlock`, written back as-is |
# | **anthropic SDK** | requests: no (`TypedDict`s); responses: loosely | none | stream helpers | returned "as-is" |
# | **pydantic-ai** | yes (pydantic discriminator) | some | `.text`, `.tool_calls` | not recorded |
# | **LangChain** | the message envelope only | `create_*_block` | `.text`, `.tool_calls` | `non_standard` wrapper |
# | **Vercel AI** | yes (zod schema) | none | on results | not recorded |
#
# The details, as the project's notes on these libraries ([anchors.md](../docs/anchors.md)) record them:
#
# - **anthropic SDK** (`anthropics/anthropic-sdk-python`). Responses are pydantic models with
#   `type: Literal[...]` (`types/text_block.py`, `types/tool_use_block.py`), unioned on `type` in
#   `types/content_block.py`. Request blocks are `TypedDict`s (`types/message_param.py`,
#   `types/tool_result_block_param.py`). Responses are built by the loose `construct_type`
#   (`_models.py`), which returns a value "as-is" when it does not match. `accumulate_event`
#   ends in an `assert_never`. There are no constructors or readers for messages: the tool runner
#   writes tool results as dict literals.
# - **pydantic-ai** (`pydantic_ai/messages.py`). `@dataclass` parts with a Literal `part_kind`,
#   dispatched by a callable `pydantic.Discriminator`; `assert_never` in `narrow_message_parts`;
#   readers on the response (`ModelResponse.text`, `.thinking`, `.tool_calls`). Redacted thinking
#   is carried by convention, as `ThinkingPart(id='redacted_thinking', ...)`.
# - **LangChain** (`langchain_core/messages/`). Pydantic message classes with
#   `content: str | list[str | dict]`. Tool calls live outside the content
#   (`AIMessage.tool_calls`), and results are a separate `ToolMessage`. The v1 content blocks are
#   `TypedDict`s (`content.py`), and an unknown block becomes `{"type": "non_standard", "value": block}`.
# - **Vercel AI** (`vercel/ai`). Parts discriminated by `type`, `AssistantContent = string | Array<...>`
#   (our `str | list`), checked by the zod `modelMessageSchema` in `packages/ai/src/prompt/message.ts`.
#
# The closest to ours is the SDK, which speaks the same wire format. It has the union, but it
# gives you no constructors and no readers, and its request types are `TypedDict`s: mypy checks
# their keys, and nothing checks them at run time. A dict read back from disk never meets mypy at
# all. Here is the `toolUseId` slip built with the installed SDK's own type:

# %%
from anthropic.types import ToolResultBlockParam

param = ToolResultBlockParam(toolUseId="toolu_01B", content="no such file", is_error=True)
print(type(param).__name__, param)

# %% [markdown]
# LangChain's `non_standard` wrapper is the nearest thing to `OpaqueBlock`, but it changes the
# block's shape, whereas `OpaqueBlock` writes it back byte for byte. pydantic-ai has the richest
# readers, on the response object. Claude Code is closed source. Second-hand notes describe the
# same Anthropic shape, stored as JSONL, and its meta issue
# [anthropics/claude-code#6836](https://github.com/anthropics/claude-code/issues/6836) gathers
# 150+ reports of `tool_use`/`tool_result` mismatches after compaction. That is the class of bug
# a single authority on "which message may start a history" is built to stop.

# %% [markdown]
# ## One-line summary
#
# **One module owns the shape of a message, so a wrong field, a wrong branch or a forgotten kind
# is caught by mypy or at the boundary instead of by the API two turns later.**

# %% [markdown]
# ## Exercises
#
# **04.1 Read with readers.** Write `tool_names_of(messages)`. It returns the names of the tools
# the assistant called, in call order, one entry per call, so a tool called twice appears twice.
# Use only readers: the checker reads your source and rejects any `.content`. Server-side calls
# (`server_tool_use`, an `OpaqueBlock`) ran on the API, not in your client, so they do not count.

# %%
def tool_names_of(messages):
    ...  # your code here


check("04.1", tool_names_of)

# %% [markdown]
# Stuck? `print(reveal("04.1"))` shows a reference solution.
#
# **04.2 Match every kind.** Finish `count_kinds(blocks)`. It counts the blocks of a content list
# by wire kind: `"text"`, `"thinking"`, `"tool_use"`, `"tool_result"`, and for an `OpaqueBlock`
# its `.kind` (`"image"`, `"redacted_thinking"`, ...). Count the top level only; a tool result's
# own content does not count. Write it as a `match` with one case per class, ending in
# `case _: assert_never(b)`.

# %%
def count_kinds(blocks):
    counts = {}
    for b in blocks:
        match b:
            case TextBlock():
                counts["text"] = counts.get("text", 0) + 1
            # add the other four kinds here, then: case _: assert_never(b)
    return counts


check("04.2", count_kinds)

# %% [markdown]
# Stuck? `print(reveal("04.2"))` shows a reference solution.
#
# **04.3 Predict the path.** `from_json` refuses the session below. Without running it, write the
# `.path` its `DecodeError` names, as a string such as `"$[0].content"`.

# %%
from msgmodel.course.exercises.ch04 import BAD_SESSION

print(BAD_SESSION.decode())

# %%
predicted_path = ...  # a string such as "$[0].content"

check("04.3", predicted_path)

# %% [markdown]
# Afterwards, check yourself with `from_json(BAD_SESSION)`. Stuck? `print(reveal("04.3"))` shows
# the answer.
