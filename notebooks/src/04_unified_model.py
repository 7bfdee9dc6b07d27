# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown] tags=["core"]
# # 04 · One authoritative model
#
# *The cure for chapters 01–03's bugs, `msgmodel/core/message.py`, read one part at a time, each claim run.*
#
# ## What
#
# `message.py` is the only module that builds and reads typed messages (others spell wire keys by hand only where
# raw JSON enters: chapter 05, section 1): the **blocks**, a tagged union of `text`, `thinking`,
# `tool_use`, `tool_result` and `OpaqueBlock` for every other kind (five classes; the original has no catch-all);
# the **constructors**, the only way to build a message; the **readers**, the only way to read its content (`role` is
# a plain field; section 5 asks
# four; the rest render text or HTML, and `server_tool_link` pairs a server-side tool's call with its result); the
# **codec**, JSON and SDK dicts in and out:

# %% tags=["core"]
from msgmodel.core.message import CONSTRUCTORS, READERS

print(f"{len(CONSTRUCTORS)} constructors: {', '.join(CONSTRUCTORS)}")
print(f"{len(READERS)} readers: {', '.join(READERS)}")

# %% [markdown] tags=["core"]
# ## Why
#
# **"`list[Any]` works. Why spend a week on a type module?"**
#
# Because "works" meant "until a copy gets a detail wrong". One module (the original's 收口, "closing the knowledge
# into one place") removes the cause three ways:
#
# 1. **One place** to get right and to change.
# 2. **The checker can see it**: narrowing, and a `match` ending in `assert_never` that forgets a kind fails the
#    check (section 6); `tests/test_layout.py` refuses a `match` on the blocks that ends any other way.
# 3. **The edges are guarded**: a misspelled keyword argument fails where it is written (a `TypeError`, section 4),
#    and a decoded document missing a required field is a `DecodeError` (section 7). A misspelled *optional* field
#    decodes into `extra`, a misspelled kind into an `OpaqueBlock` (section 2); `validate` names both before
#    sending (optional cell there).

# %% [markdown] tags=["core"]
# ## How
#
# ### 1. From the TypeScript design to Python
#
# | The original (TypeScript) | Here (Python) | § |
# |---|---|---|
# | discriminated union (判别联合) on `type` | frozen msgspec `Struct`s, each with a class-level `type` Literal | 2 |
# | `content: string \| ContentBlock[]` | `content: str \| list[ContentBlock]` | 3 |
# | `switch (b.type)` narrows `b` (类型收窄) | `if b.type == "text":`, `match b:` | 6 |
# | `default: return ""` | `case _: assert_never(b)` | 6 |
#
# Ours, not the original's: `frozen=True`, `assert_never` (its `blockToText` ends in `default: return ""`),
# `OpaqueBlock` and a checked decoder.

# %% [markdown] tags=["core"]
# ### 2. The blocks: a tagged union
#
# The blocks are [msgspec](https://jcristharif.com/msgspec/) `Struct`s: typed records that msgspec encodes to JSON
# and decodes, checking types. `TextBlock`, in outline:
#
# ```python
# class TextBlock(msgspec.Struct, frozen=True, tag="text"):
#     text: str
#     extra: dict[str, Any] | None = None  # the block's other API fields (cache_control, ...)
#     type: ClassVar[Literal["text"]] = "text"
# ```
#
# `tag="text"` is the `"type"` on the wire; `frozen=True` makes instances read-only; the `ClassVar` is the tag as an
# attribute mypy sees as the literal `"text"`, which narrowing relies on; `extra` keeps the API's other fields, so a
# round trip loses nothing (typos too: optional cell below). One block of each class:

# %% tags=["core"]
from msgmodel import OpaqueBlock, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock, block_to_api

five = [
    TextBlock("How many retries does the client make?"),
    ThinkingBlock("The defaults live in the config module.", signature="EqQBCkYIBxgCKkA0+/9x/q=="),
    ToolUseBlock(id="toolu_01A", name="grep", input={"pattern": "retries", "path": "src/config.py"}),
    ToolResultBlock(tool_use_id="toolu_01A", content='DEFAULTS = {"retries": 3}'),
    OpaqueBlock({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}),
]
for b in five:
    print(f"{type(b).__name__:15} .type={b.type!r:14} on the wire: {block_to_api(b)['type']!r}")

# %% [markdown] tags=["core"]
# `OpaqueBlock` keeps any other kind as its JSON object, with the wire type in `.kind`: five fixed `.type` values
# let mypy check a `match` for completeness.

# %% [markdown]
# Typos on the wire: a required field missing or of the wrong type is a `DecodeError` (section 7); a misspelled
# optional field (`isError`) is kept in `extra`, and a misspelled kind (`"tool-result"`) as an `OpaqueBlock`. Kept, not
# refused, so nothing is lost; `validate` names both before a request is sent:

# %%
from msgmodel import blocks_of, from_json, validate

typos = from_json(b"""[{"role": "user", "content": "run it"},
 {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {}}]},
 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok", "isError": true}]},
 {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_2", "name": "bash", "input": {}}]},
 {"role": "user", "content": [{"type": "tool-result", "tool_use_id": "toolu_2", "content": "ok"}]}]""")
print(blocks_of(typos[2])[0].extra, "|", type(blocks_of(typos[4])[0]).__name__)
for v in validate(typos):
    print(str(v)[:110])

# %% [markdown]
# Decoding picks the class from `"type"` with no hand-written `if`. Frozen means a change builds a new block:

# %%
import msgspec

wire = b'{"type": "tool_use", "id": "toolu_01A", "name": "grep", "input": {"pattern": "retries"}}'
call = msgspec.json.decode(wire, type=TextBlock | ToolUseBlock | ToolResultBlock)
print(call, "  image kind:", five[-1].kind)
try:
    call.name = "read_file"
except AttributeError as e:
    print("AttributeError:", e)
print(msgspec.structs.replace(call, name="read_file"))

# %% [markdown] tags=["core"]
# ### 3. The message: `str | list[ContentBlock]`
#
# A `Message` is a role (`"user"`, `"assistant"`, or `"system"` for some models: optional cell below) and a content
# in either form the API accepts. Why not always a list? The original: typed text and summaries are plain text, and
# wrapping them is ceremony. `blocks_of` hides the difference from code that only wants blocks.

# %% tags=["core"]
from msgmodel import blocks_of, user_text

typed = user_text("How many retries does the client make?")
print(repr(typed.content), "→", blocks_of(typed))  # on purpose: the field itself, beside its reader
print(blocks_of(user_text("")), "← an empty string is no blocks at all")

# %% [markdown]
# A system turn mid-conversation: which models take one is **our reading of Anthropic's docs, not a captured
# answer**, and the validator applies it per model (the system prompt itself goes in the request's `system=`):

# %%
from msgmodel import system_text

for model in ("claude-sonnet-4-6", "claude-opus-4-8"):
    print(f"a system turn after it, {model}:", *validate([typed, system_text("Be brief.")], model=model) or ["ok"],
          "(our reading)")

# %% [markdown] tags=["core"]
# ### 4. Constructors: the only way to build
#
# An exchange built with the constructors: a grep and a read of a missing file. `tool_result_msg` carries a
# protocol fact: tool results travel in a **user** turn. (Blocks are built by their classes or `tool_result_block`.)

# %% tags=["core"]
from msgmodel import assistant_msg, tool_result_block, tool_result_msg
from msgmodel.course.display import show

history = [
    user_text("How many retries does the client make?"),
    assistant_msg([five[1], TextBlock("Let me look at the config."), five[2],
                   ToolUseBlock(id="toolu_01B", name="read_file", input={"path": "src/settings.py"})]),
    tool_result_msg([tool_result_block("toolu_01A", 'src/config.py:1: DEFAULTS = {"retries": 3}'),
                     tool_result_block("toolu_01B", "no such file: src/settings.py", is_error=True)]),
]
show(history)

# %% [markdown] tags=["core"]
# With a constructor, the `toolUseId` slip is a `TypeError` on the line that makes it (first output below). What
# keeps "the only way"? Not the types: a hand-built `Message(role="assistant", ...)` holding a `tool_result`
# type-checks. `validate` catches it before sending (`as_history=True`: a stored history, which may end on an
# assistant turn), and `tests/test_layout.py` scans the package and these chapters for a `Message(...)` built or
# `.content` walked outside `message.py` (`# on purpose` exempts a line). Why a scan, not the type system? Python
# has no private constructor (an underscore is a convention too), so a test keeps the rule, naming the file and line:

# %% tags=["core"]
from msgmodel import Message
from msgmodel.core.protocol import validate
from msgmodel.course.knowledge import bypasses_in, scan_model_bypasses

try:
    tool_result_block(toolUseId="toolu_01A", content="3")  # chapter 02's slip, through a constructor
except TypeError as e:
    print("TypeError:", e)
teammate = Message(role="assistant", content=[tool_result_block("toolu_01A", "3")])  # on purpose: a bypass
print("validate:", validate([history[0], teammate], as_history=True)[0])
print("the scan:", *bypasses_in('m = Message(role="assistant", content=[tool_result_block("toolu_01A", "3")])'))
print("bypasses in msgmodel:", scan_model_bypasses("msgmodel", exclude=["msgmodel.course.legacy"]))

# %% [markdown] tags=["core"]
# ### 5. Readers: the only way to read
#
# Four readers, asked of each message above. `is_clean_user_start`, chapter 01's rule written once, is a user
# message for which the reader `is_tool_result_message` is false: readers built on readers. `transcript_of` is
# chapter 02's fix, written once (optional cell below).

# %% tags=["core"]
from msgmodel import is_clean_user_start, is_tool_result_message, text_of, tool_uses_of

print(f"{'role':10} {'text_of':16} {'tool_uses_of':22} {'result?':8} clean start?")
for m in history:
    names, result, clean = [u.name for u in tool_uses_of(m)], is_tool_result_message(m), is_clean_user_start(m)
    mark = "  ← a user message a history may not start at" if m.role == "user" and not clean else ""
    print(f"{m.role:10} {text_of(m)[:14]!r:16} {names!s:22} {result!s:8} {clean}{mark}")

# %% [markdown]
# `block_to_text` renders text as itself, a call as `[call name(args)]`, a result as
# `[result: …]` or `[result (failed): …]`, thinking as nothing, other kinds as a short label (arguments are cut at
# `ARGS_LIMIT` characters and results at `RESULT_LIMIT`, each cut marked `…`). `transcript_of` applies it to a
# history. Beside the legacy transcript of the same history, every `(tool call)` now says what was searched, found
# and failed:

# %%
from msgmodel import to_api, transcript_of
from msgmodel.course.legacy import summary30  # the step-30 exhibit, for contrast only

print(summary30.transcript(to_api(history)))
print("-" * 40)
print(transcript_of(history))

# %% [markdown] tags=["core"]
# ### 6. One `type` field removes every assertion
#
# The original's claim: "one `type` field saves every `as` assertion". In Python, no `cast`: each class's `type` is a
# different literal, so `if b.type == "text":` narrows `b` to `TextBlock`, and mypy catches `.name` read there
# (`wrong_branch`). A `match` on classes (`case TextBlock():`) narrows by class, as `isinstance` does, and
# `assert_never(b)` makes a forgotten kind, which `default: return ""` compiles, a type error. `mypy --strict`:

# %% tags=["core", "demo"]
from msgmodel.course.teaching import type_check

type_check({
    "wrong_branch": """\
        from msgmodel import ContentBlock

        def label(b: ContentBlock) -> str:
            if b.type == "text":
                return f"said {b.name}"
            return b.type
    """,
    "forgot_a_kind": """\
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
    """,
})

# %% [markdown] tags=["core"]
# mypy has narrowed `b` to `TextBlock` with no cast, and names the class the `match` left out.
#
# ### 7. The codec: JSON and the SDK, in and out
#
# `to_json`/`from_json` work on bytes; `to_api`/`from_api` on the dicts the SDK takes as `messages=`. Both round
# trips are exact, even for what the model does not interpret. Bad data raises `DecodeError`, whose `.path` points
# into the input, here on a saved slip:

# %% tags=["core"]
from msgmodel import DecodeError, from_api, from_json, to_api, to_json

print("from_json(to_json(h)) == h:", from_json(to_json(history)) == history,
      "  from_api(to_api(h)) == h:", from_api(to_api(history)) == history)
raw = (
    b'[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBO"}},'
    b'{"type":"text","text":"What is this?","cache_control":{"type":"ephemeral"}}]},'
    b'{"role":"assistant","content":[{"type":"redacted_thinking","data":"EmwKAhgB"},{"type":"text","text":"A PNG."}]}]'
)
print("image, cache_control, redacted_thinking: to_json(from_json(raw)) == raw:", to_json(from_json(raw)) == raw)
try:
    from_json(b'[{"role":"user","content":[{"type":"tool_result","toolUseId":"toolu_01B"}]}]', source="session.json")
except DecodeError as e:
    print(f"DecodeError: {e}")

# %% [markdown]
# More bad inputs (`DecodeError` is a `ValueError`; in a path, `$` is the whole document, `[0]` an index, `.content`
# a key; `source=` goes in front of the message). `from_json` checks **shape**, not the protocol: fix the slip's
# spelling and the third input decodes, although no `tool_use` precedes its result. Pairing is
# `msgmodel.core.protocol`'s job.

# %%
bad_inputs = {
    "content is a number": '[{"role": "user", "content": 42}]',
    "a tool turn (another API's role)": '[{"role": "tool", "content": "Be brief."}]',
    "the toolUseId slip": '[{"role": "user", "content": [{"type": "tool_result", "toolUseId": "toolu_01B"}]}]',
}
for label, text in bad_inputs.items():
    try:
        from_json(text, source="session.json")
    except DecodeError as e:
        print(f"{label}:\n    {e}\n    .path = {e.path!r}")
fixed = from_json(bad_inputs["the toolUseId slip"].replace("toolUseId", "tool_use_id"))
print("spelled right, it decodes; protocol says:", *validate(fixed))

# %% [markdown]
# A `tool` turn is not a role of this API, so `from_json` refuses it rather than guess.
#
# ## Follow-up questions
#
# **"Why is `type` a class attribute and not a field?"** It never varies within a class. As a field it could
# disagree with the class (a `TextBlock` whose `type` says `tool_use`) and would cost a slot per instance; as a
# `ClassVar` mypy knows it from the class alone, which narrowing needs. You cannot even pass it.
#
# **"Why is an `OpaqueBlock`'s `.type` `"opaque"` and not its real kind?"** So that `.type` stays a closed set of
# five literals. If it were `"image"`, or any `str`, mypy could no longer promise that `b.type == "text"` means a
# `TextBlock`. The price is one invariant, checked when the block is made: an opaque block is never one of the four
# interpreted kinds.

# %%
for attempt in (lambda: TextBlock(text="hi", type="tool_use"), lambda: OpaqueBlock({"type": "text", "text": "x"})):
    try:
        attempt()
    except (TypeError, ValueError) as e:
        print(f"{type(e).__name__}: {e}")

# %% [markdown]
# Chapter 06 drills the other follow-ups (why `str | list`, why define thinking early, union or class hierarchy,
# what a new block kind costs).
#
# ## Pitfalls and trade-offs
#
# **`assert_never` is kept by a scan, and only in `match`.** `tests/test_layout.py` refuses every `match` on the block
# classes whose last case is not `case _: assert_never(...)` (a `case _: return ""` would let a new kind through),
# and checks that a new kind is flagged in exactly those; an `if b.type == ...` chain is not a dispatch it sees, so
# one of those is caught only by review.
#
# **Frozen is shallow.** `frozen=True` stops `block.name = ...`, but the `dict` in `input` and the list `blocks_of`
# returns (the message's own, for speed) are ordinary mutable objects. Treat them as read-only.
#
# **Constructing does not check types at run time.** msgspec checks types when it decodes, not in `__init__`, so
# `Message(role="tool", content="hi")` is built without a word. mypy catches it before anything runs, and `from_api`
# at the boundary.
#
# **Lossless means a typo survives decoding.** A misspelled `is_eror` on a known block lands in `extra` (it could be
# a field the API added last week); `protocol.validate` refuses it. Validate before you send.

# %%
from msgmodel import Message

m = assistant_msg([ToolUseBlock(id="toolu_01E", name="grep", input={"pattern": "x"})])
tool_uses_of(m)[0].input["pattern"] = "y"  # changes the block inside the "frozen" message
print(m, "| blocks_of(m) is the message's own list:", blocks_of(m) is m.content)  # on purpose: the field itself
bad = Message(role="tool", content="hi")  # on purpose: msgspec checks no types here
try:
    from_api(to_api([bad]))
except DecodeError as e:
    print("DecodeError:", e)
print(type_check('from msgmodel import Message\nbad = Message(role="tool", content="hi")\n'))
typo = from_json(
    '[{"role":"user","content":"Read x."},'
    '{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01D","name":"read_file","input":{"path":"x"}}]},'
    '{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01D","content":"boom","is_eror":true}]}]'
)
print("decoded, kept in extra:", blocks_of(typo[2])[0].extra, "| validate:", *validate(typo))

# %% [markdown]
# **Two decoders.** msgspec's tagged union dispatches only among `Struct`s, and `OpaqueBlock` is not one. So the fast
# path decodes the four known kinds straight into structs, and a document holding any other kind or an `extra` field
# is decoded a second time by a walk in Python that gives the same result and the same error paths (the comments
# above `_FAST_DECODER` in `message.py`).
#
# **`text_of` is not `message_to_text`.** `text_of` joins the text blocks, the answer a person reads;
# `message_to_text` renders every block for a summarizer. Pick the one that answers your question; do not write a
# third.
#
# **One module is a dependency of everything:** one place to change, and one place to break. It carries the
# heaviest tests (`tests/test_message.py`, and round-trip laws with Hypothesis in `tests/test_message_properties.py`).
#
# ## vs. the real source
#
# The original compares its `ContentBlock` with "the Anthropic SDK's content block types", and its one `message.ts`
# with the real Claude Code's message helpers "scattered across utils": the tutorial's design is tidier than the
# production code it studies. The installed SDK shows the difference that matters: its request blocks are
# `TypedDict`s, so mypy checks their keys but nothing does at run time, and it ships no constructors or readers.
# The slip passes straight through the SDK's own type:

# %%
from anthropic.types import ToolResultBlockParam

param = ToolResultBlockParam(toolUseId="toolu_01B", content="no such file", is_error=True)
print(type(param).__name__, param)

# %% [markdown]
# How other libraries (pydantic-ai, LangChain, Vercel AI) model blocks: [docs/survey.md](../docs/survey.md#chapter-04).

# %% [markdown] tags=["core"]
# ## One-line summary
#
# **One module owns the shape of a message, so a wrong field, a wrong branch or a forgotten kind is caught by mypy
# or at the boundary instead of by the API two turns later.**

# %% [markdown]
# ## Exercises
#
# Each checker says "not attempted yet" until you replace the `...`. Stuck? `hint("04.1")` gives a first hint,
# `hint("04.1", 2)` a second, and `reveal("04.1", confirm=True)` the solution.
#
# **04.1 A new kind: what does it cost?** The API adds an image block. Below: a model of three kinds and five
# readers (ours, small on purpose) and the class to add, `Image`. Once `Image` joins the union `Block`, say for each
# reader whether mypy names it (`"mypy"`), whether it compiles and gives a wrong answer for an image (`"silent"`),
# or whether it needs no change (`"fine"`). Predict first; then `type_check(with_image(), functions=True)` shows
# what mypy says.
#
# *Goal:* See what a new block kind costs under one typed model: mypy lists the readers that must change, except the
# ones that hide the kind behind a default.

# %%
from msgmodel.course.exercises import check, hint, reveal
from msgmodel.course.exercises.ch04 import IMAGE_CLASS, MINI_MODEL, with_image

print(MINI_MODEL, "\n# the kind to add:", IMAGE_CLASS, sep="\n")

# %%
readers_hit = None  # your answer: {"render": ..., "to_wire": ..., "label": ..., "calls_of": ..., "text_of": ...}
check("04.1", readers_hit)

# %% [markdown]
# **04.2 Match every kind.** Write `count_kinds(blocks)`: count the blocks of a content list by wire kind
# (`"text"`, `"thinking"`, `"tool_use"`, `"tool_result"`, and for an `OpaqueBlock` its `.kind`). Top level only.
# Write it as a `match` with one case per class, ending in `case _: assert_never(b)`. Which is the tag? `.type`,
# always: five values, one per class, the one `match` and narrowing dispatch on. It is the wire `"type"` for the
# four kinds the model interprets; an `OpaqueBlock`'s `.type` is `"opaque"`, and the wire kind it keeps is data,
# `.kind`, which is what this count asks for.
#
# *Goal:* Dispatch on the tag with match and assert_never, so that mypy proves every block kind is handled.

# %%
def count_kinds(blocks):
    ...  # your code here


check("04.2", count_kinds)

# %% [markdown]
# **04.3 Predict the path.** `from_json` refuses the session below. Without running it, write the `.path` its
# `DecodeError` names, in the convention of section 7 (`$`, `[i]`, `.key`, down to the innermost field the decoder
# could not read), as a string such as `"$[0].content"`.
#
# *Goal:* Read the codec's errors: the boundary names the JSON path of what it refuses, so bad data stops there.

# %%
from msgmodel.course.exercises.ch04 import BAD_SESSION

print(BAD_SESSION.decode())

# %%
predicted_path = ...  # a string such as "$[0].content"

check("04.3", predicted_path)
