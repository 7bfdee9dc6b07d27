"""msgmodel.core.protocol: one test per rule of docs/api-rules.md (verbatim text, index), the accepted
recordings of its section 4, the model-dependent rules, validate_request, check/ProtocolError, and
the generated block table (re-derived here from the installed anthropic SDK).

Run as a script to regenerate the table: ``.venv/bin/python tests/test_protocol.py > msgmodel/core/_known_blocks.py``.
"""

from __future__ import annotations

import json
import sys
import types
import typing
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints

import pytest

from msgmodel.core import _known_blocks
from msgmodel.core.message import ToolUseBlock, assistant_msg, to_api, tool_result_block, tool_result_msg, user_text
from msgmodel.core.protocol import (
    KNOWN_BLOCK_TAGS,
    RULES,
    ModelVersion,
    ProtocolError,
    Violation,
    check,
    check_request,
    hint_for,
    model_accepts_inline_system,
    model_accepts_prefill,
    parse_model,
    validate,
    validate_request,
)

# ---------------------------------------------------------------------------------------
# The block table, derived from the installed SDK
# ---------------------------------------------------------------------------------------


def derive_known_blocks() -> dict[str, Any]:
    """Every table of ``msgmodel.core._known_blocks``, read from the installed ``anthropic`` SDK's types.

    Block kinds: the members of ``ContentBlockParam``, ``ContentBlock`` and their beta versions
    (the ``type`` Literal of each); tool_result content: the ``content`` union of
    ``ToolResultBlockParam`` (GA and beta); fields: ``get_type_hints`` (``Required[...]`` marks
    the required ones of a TypedDict param).
    """
    import anthropic
    import anthropic.types as t
    import anthropic.types.beta as b
    import pydantic

    def unwrap(tp: Any) -> Any:
        while get_origin(tp) in (typing.Required, typing.NotRequired, Annotated):
            tp = get_args(tp)[0]
        return tp

    def members(tp: Any) -> list[Any]:
        tp = unwrap(tp)
        if get_origin(tp) in (Union, types.UnionType):
            return [x for a in get_args(tp) for x in members(a)]
        return [tp]

    def is_model(cls: Any) -> bool:
        return isinstance(cls, type) and issubclass(cls, pydantic.BaseModel)

    def hints(cls: Any) -> dict[str, Any]:
        if is_model(cls):
            return {(f.alias or n): f.annotation for n, f in cls.model_fields.items()}
        return get_type_hints(cls, include_extras=True)

    def tag_of(cls: Any) -> str:
        (tag,) = get_args(unwrap(hints(cls)["type"]))
        return str(tag)

    def required_of(cls: Any) -> list[str]:
        if is_model(cls):
            return [(f.alias or n) for n, f in cls.model_fields.items() if f.is_required()]
        return [k for k, v in get_type_hints(cls, include_extras=True).items() if get_origin(v) is typing.Required]

    def block_classes(union: Any) -> list[Any]:
        out: list[Any] = []
        for m in members(union):
            if m is str:
                continue
            if get_origin(m) in (Iterable, list):  # a content list
                out += block_classes(get_args(m)[0])
            else:
                out.append(m)
        return out

    def table(classes: list[Any]) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
        required: dict[str, list[str]] = {}
        allowed: dict[str, set[str]] = {}
        for cls in classes:
            tag = tag_of(cls)
            allowed.setdefault(tag, set()).update(hints(cls))
            if not is_model(cls):  # the request params say what a client must send
                req = [f for f in required_of(cls) if f != "type"]
                required[tag] = req if tag not in required else [f for f in required[tag] if f in req]
        return {tag: (tuple(required.get(tag, ())), tuple(sorted(allowed[tag]))) for tag in sorted(allowed)}

    message_unions = [t.ContentBlockParam, t.ContentBlock, b.BetaContentBlockParam, b.BetaContentBlock]
    blocks = table([c for u in message_unions for c in block_classes(u)])
    result_unions = [hints(t.ToolResultBlockParam)["content"], hints(b.BetaToolResultBlockParam)["content"]]
    nested = table([c for u in result_unions for c in block_classes(u)])
    system_unions = [hints(t.SystemMessageParam)["content"], hints(b.BetaSystemMessageParam)["content"]]
    system_tags = sorted({tag_of(c) for u in system_unions for c in block_classes(u)})

    def message_fields(*classes: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
        required = [f for f in required_of(classes[0]) if all(f in required_of(c) for c in classes)]
        return tuple(required), tuple(sorted({f for c in classes for f in hints(c)}))

    tags = tuple(blocks)
    return {
        "SDK_VERSION": anthropic.__version__,
        "MESSAGE_BLOCK_TAGS": tags,
        "TOOL_RESULT_CONTENT_TAGS": tuple(nested),
        "SYSTEM_MESSAGE_BLOCK_TAGS": tuple(system_tags),
        "SERVER_TOOL_USE_TAGS": tuple(x for x in tags if x.endswith("_tool_use")),
        "SERVER_TOOL_RESULT_TAGS": tuple(x for x in tags if x.endswith("_tool_result")),
        "BLOCK_FIELDS": blocks,
        "TOOL_RESULT_CONTENT_FIELDS": nested,
        "MESSAGE_FIELDS": {
            "assistant": message_fields(t.AssistantMessageParam, b.BetaAssistantMessageParam),
            "system": message_fields(t.SystemMessageParam, b.BetaSystemMessageParam),
            "user": message_fields(t.UserMessageParam, b.BetaUserMessageParam),
        },
    }


def render_known_blocks(tables: dict[str, Any]) -> str:
    """The text of ``msgmodel/core/_known_blocks.py`` for ``tables`` (ruff-format clean)."""

    def q(s: str) -> str:
        return '"' + s + '"'

    def tup(items: tuple[str, ...]) -> str:
        if len(items) == 1:
            return "(" + q(items[0]) + ",)"
        return "(" + ", ".join(q(x) for x in items) + ")"

    lines = [
        '"""Every content-block kind the Messages API knows, as the installed ``anthropic`` SDK types it.',
        "",
        f"GENERATED from anthropic=={tables['SDK_VERSION']} (the GA and beta request params, plus the response",
        "models the SDK also accepts as input) by ``derive_known_blocks`` in ``tests/test_protocol.py``.",
        "Do not edit by hand; regenerate with",
        "",
        "    .venv/bin/python tests/test_protocol.py > msgmodel/core/_known_blocks.py",
        "",
        "``test_known_blocks_match_installed_sdk`` re-derives every table and fails when one drifts.",
        "A static table rather than ``import anthropic`` at run time: the SDK takes ~1.5 s to import.",
        "",
        "``BLOCK_FIELDS`` / ``TOOL_RESULT_CONTENT_FIELDS`` / ``MESSAGE_FIELDS`` map a tag (or a role) to",
        "``(required, allowed)`` field names: *required* = required by every request param of that tag",
        "(``type`` left out); *allowed* = every field any param or response model of that tag has.",
        '"""',
        "",
        "from typing import Final",
        "",
        f"SDK_VERSION: Final = {q(tables['SDK_VERSION'])}",
        "",
    ]
    for name in [
        "MESSAGE_BLOCK_TAGS",
        "TOOL_RESULT_CONTENT_TAGS",
        "SYSTEM_MESSAGE_BLOCK_TAGS",
        "SERVER_TOOL_USE_TAGS",
        "SERVER_TOOL_RESULT_TAGS",
    ]:
        lines.append(f"{name}: Final[tuple[str, ...]] = (")
        lines += [f"    {q(v)}," for v in tables[name]]
        lines += [")", ""]
    for name in ["BLOCK_FIELDS", "TOOL_RESULT_CONTENT_FIELDS", "MESSAGE_FIELDS"]:
        lines.append(f"{name}: Final[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {{")
        for tag, (req, allowed) in tables[name].items():
            lines += [f"    {q(tag)}: (", f"        {tup(req)},", f"        {tup(allowed)},", "    ),"]
        lines += ["}", ""]
    return "\n".join(lines[:-1]) + "\n"


def test_known_blocks_match_installed_sdk() -> None:
    derived = derive_known_blocks()
    for name, value in derived.items():
        assert getattr(_known_blocks, name) == value, f"{name} drifted: regenerate msgmodel/core/_known_blocks.py"


def test_known_blocks_module_is_what_the_generator_writes() -> None:
    text = Path(_known_blocks.__file__).read_text(encoding="utf-8")
    assert text == render_known_blocks(derive_known_blocks())


def test_known_tags_cover_the_recorded_block_kinds() -> None:
    for tag in (
        "text",
        "image",
        "document",
        "thinking",
        "redacted_thinking",
        "tool_use",
        "tool_result",
        "server_tool_use",
        "mcp_tool_use",
        "web_search_tool_result",
        "mcp_tool_result",
        "web_fetch_tool_result",
        "advisor_tool_result",
        "bash_code_execution_tool_result",
        "tool_search_tool_result",
        "compaction",
        "tool_addition",
    ):
        assert tag in KNOWN_BLOCK_TAGS


# ---------------------------------------------------------------------------------------
# Builders
# ---------------------------------------------------------------------------------------

HAIKU_45 = "claude-haiku-4-5-20251001"  # the model of the opencode recordings
SONNET_45 = "claude-sonnet-4-5-20250929"
SONNET_46 = "claude-sonnet-4-6"
OPUS_48 = "claude-opus-4-8"


def _message(role: str, content: tuple[Any, ...]) -> dict[str, Any]:
    """``u("hi")`` has string content, ``u([])`` the given list, ``u(block, block)`` a block list."""
    if len(content) == 1 and isinstance(content[0], (str, list)):
        return {"role": role, "content": content[0]}
    return {"role": role, "content": list(content)}


def u(*content: Any) -> dict[str, Any]:
    return _message("user", content)


def a(*content: Any) -> dict[str, Any]:
    return _message("assistant", content)


def s(*content: Any) -> dict[str, Any]:
    return _message("system", content)


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def use(tool_use_id: str, name: str = "get_weather") -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_use_id, "name": name, "input": {"city": "Paris"}}


def result(tool_use_id: str, content: Any = "72F", **extra: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": content, **extra}


def thinking(sig: str = "EqQBCkYIBxgCKkD") -> dict[str, Any]:
    return {"type": "thinking", "thinking": "Let me think.", "signature": sig}


def server_use(sid: str, name: str = "web_search") -> dict[str, Any]:
    return {"type": "server_tool_use", "id": sid, "name": name, "input": {"query": "q"}}


def texts(violations: list[Violation]) -> list[str]:
    return [str(v) for v in violations]


def only(violations: list[Violation]) -> Violation:
    assert len(violations) == 1, texts(violations)
    return violations[0]


DANGLING = (
    "`tool_use` ids were found without `tool_result` blocks immediately after: {}. "
    "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
)
ORPHAN = (
    "unexpected `tool_use_id` found in `tool_result` blocks: {}. "
    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
)

# ---------------------------------------------------------------------------------------
# 1.1 Tool pairing
# ---------------------------------------------------------------------------------------


def test_orphan_tool_result_at_window_start() -> None:
    v = only(validate([u(result("toolu_01abc"))]))
    assert v.rule == "orphan_tool_result"
    assert v.path == "messages.0.content.0"
    assert str(v) == (
        "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01abc. "
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
    )


def test_orphan_tool_result_after_summary_message() -> None:
    v = only(validate([u("Summary of the conversation so far."), u(result("toolu_9"))]))
    assert (v.rule, str(v)) == ("orphan_tool_result", "messages.1.content.0: " + ORPHAN.format("toolu_9"))


def test_orphan_tool_result_when_tool_use_was_rewritten_to_text() -> None:
    v = only(validate([u("hi"), a("(tool call)"), u(text("ok"), result("toolu_2"))]))
    assert str(v) == "messages.2.content.1: " + ORPHAN.format("toolu_2")


def test_orphan_tool_result_for_parallel_results_split_across_user_messages() -> None:
    # StakAI RFC / autogen #2997: passes the tool_use side (merged), fails the raw result side.
    v = only(validate([u("q"), a(use("A"), use("B")), u(result("A")), u(result("B"))]))
    assert (v.rule, str(v)) == ("orphan_tool_result", "messages.3.content.0: " + ORPHAN.format("B"))


def test_orphan_server_tool_result_variant() -> None:
    advisor = {"type": "advisor_tool_result", "tool_use_id": "srvtoolu_01", "content": {"type": "advisor_result"}}
    v = only(validate([u("q"), a(advisor, text("done")), u("next")]))
    assert v.rule == "orphan_tool_result"
    assert str(v) == (
        "messages.1.content.0: unexpected `tool_use_id` found in `advisor_tool_result` blocks: srvtoolu_01. "
        "Each `advisor_tool_result` block must have a corresponding `server_tool_use` block before it."
    )


def test_dangling_tool_use_lists_missing_ids_in_tool_use_order() -> None:
    v = only(validate([u("q"), a(use("toolu_b"), use("toolu_a")), u("never mind")]))
    assert v.rule == "dangling_tool_use"
    assert str(v) == "messages.1: " + DANGLING.format("toolu_b, toolu_a")


def test_dangling_tool_use_when_one_parallel_result_is_missing() -> None:
    v = only(validate([u("q"), a(use("A"), use("B")), u(result("A"))]))
    assert (v.rule, str(v)) == ("dangling_tool_use", "messages.1: " + DANGLING.format("B"))


def test_dangling_tool_use_when_a_message_is_inserted_before_the_result() -> None:
    vs = validate([u("q"), a(use("A")), u("interjection"), u(result("A"))])
    assert texts(vs) == ["messages.1: " + DANGLING.format("A"), "messages.3.content.0: " + ORPHAN.format("A")]
    assert vs[0].rule == "dangling_tool_use"
    # an assistant message inserted instead: merged into the tool_use turn, the result still pairs with it
    v = only(validate([u("q"), a(use("A")), a("more"), u(result("A"))]))
    assert (v.rule, str(v)) == ("tool_use_not_last", "messages.1: " + DANGLING.format("A"))


def test_tool_result_first_text_before_result() -> None:
    v = only(validate([u("q"), a(use("A")), u(text("here you go"), result("A"))]))
    assert v.rule == "tool_result_first"
    assert str(v) == "messages.1: " + DANGLING.format("A")


def test_tool_use_not_last_recorded_opencode_request() -> None:
    # anomalyco/opencode rejects-malformed-assistant-tool-order-without-patch.json (live, 2026-05-05)
    messages = [
        a(use("call_1"), text("I will check the weather.")),
        u(result("call_1", '{"temperature":"72F"}')),
        u(text("Use that result to answer briefly.")),
    ]
    v = only(validate(messages, model=HAIKU_45))
    assert v.rule == "tool_use_not_last"
    assert str(v) == (
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: call_1. "
        "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
    )
    assert v.at == "messages.0"  # Q1: the request opens with an assistant message, the index is one higher


def test_tool_use_not_last_when_split_into_two_assistant_messages() -> None:
    v = only(validate([u("q"), a(use("A")), a(text("I will check.")), u(result("A"))]))
    assert (v.rule, str(v)) == ("tool_use_not_last", "messages.1: " + DANGLING.format("A"))


def test_tool_use_index_counts_merged_turns_q1() -> None:
    # user-first: the index of the assistant message (no merging involved)
    assert str(only(validate([u("q"), a(use("A")), u("x")]))).startswith("messages.1: ")
    assert str(only(validate([u("q"), a("ok"), u("q2"), a(use("A")), u("x")]))).startswith("messages.3: ")
    # assistant-first: one higher
    assert str(only(validate([a(use("A")), u("x")], model=HAIKU_45))).startswith("messages.1: ")
    # merged turns: [u, u] count as one turn
    v = only(validate([u("q"), u("q2"), a(use("A")), u("x")]))
    assert (v.path, v.at) == ("messages.1", "messages.2")


def test_tool_result_role() -> None:
    vs = validate([u("q"), a(use("A"), result("A")), u("x")])
    assert vs[0].rule == "tool_result_role"
    assert str(vs[0]) == "messages.1: `tool_result` blocks can only be in `user` messages"


def test_tool_use_role() -> None:
    vs = validate([u(use("A")), a("ok"), u("q")])
    assert vs[0].rule == "tool_use_role"
    assert str(vs[0]) == "messages.0: `tool_use` blocks can only be in `assistant` messages"


def test_duplicate_tool_use_id_in_one_message() -> None:
    v = only(validate([u("q"), a(use("A"), use("A")), u(result("A"))]))
    assert (v.rule, str(v)) == ("duplicate_tool_use_id", "messages.1.content.1: `tool_use` ids must be unique")


def test_duplicate_tool_use_id_across_turns() -> None:
    v = only(validate([u("q"), a(use("A")), u(result("A")), a(use("A")), u(result("A"))]))
    assert str(v) == "messages.3.content.0: `tool_use` ids must be unique"


def test_duplicate_tool_result() -> None:
    v = only(validate([u("q"), a(use("toolu_1")), u(result("toolu_1"), result("toolu_1"))]))
    assert v.rule == "duplicate_tool_result"
    # Q6: the prefix is the one quoted from live 400s (messages.N.content.M of the second block)
    assert str(v) == (
        "messages.2.content.1: each tool_use must have a single result. "
        "Found multiple `tool_result` blocks with id: toolu_1"
    )


@pytest.mark.parametrize("bad_id", ["", "bad id!", "toolu_01/x", "ü"])
def test_tool_use_id_pattern(bad_id: str) -> None:
    vs = validate([u("q"), a(use(bad_id)), u(result(bad_id))])
    assert vs[0].rule == "tool_use_id_pattern"
    assert str(vs[0]) == "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"


@pytest.mark.parametrize("good_id", ["call_1", "auto_load_97d4a2341e6817ea", "toolu_01A-b", "x"])
def test_tool_use_ids_need_not_look_like_toolu(good_id: str) -> None:
    assert validate([u("q"), a(use(good_id)), u(result(good_id))]) == []


def test_tools_required_has_no_path_prefix() -> None:
    v = only(validate([u("q"), a(use("A")), u(result("A")), a("done"), u("summarize")], tools_defined=False))
    assert v.rule == "tools_required"
    assert v.path == ""
    assert str(v) == v.message == "Requests which include `tool_use` or `tool_result` blocks must define tools."
    assert v.at == "messages.1.content.0"
    # flattening the tool turns to text passes (the loss of context is semantic, not structural)
    flattened = [u("q"), a("(called get_weather)"), u("(result: 72F)"), a("done"), u("summarize")]
    assert validate(flattened, tools_defined=False) == []


def test_schema_required_field_tool_use_id() -> None:
    vs = validate([u("q"), a(use("A")), {"role": "user", "content": [{"type": "tool_result", "content": "x"}]}])
    assert vs[0].rule == "schema_required_field"
    assert str(vs[0]) == "messages.2.content.0.tool_result.tool_use_id: Field required"


# ---------------------------------------------------------------------------------------
# 1.2 Roles and order
# ---------------------------------------------------------------------------------------


def test_consecutive_same_role_messages_are_accepted() -> None:
    assert validate([a("one"), a("two"), u("three"), u("four")], model=HAIKU_45) == []


def test_assistant_first_is_accepted() -> None:
    assert validate([a("Hi, how can I help?"), u("Tell me a joke.")]) == []


@pytest.mark.parametrize("model", [None, OPUS_48, SONNET_45, "claude-3-5-haiku-20241022", "claude-fable-5"])
def test_role_system_at_messages_0(model: str | None) -> None:
    vs = validate([s("You are terse."), u("hi")], model=model)
    assert vs[0].rule == "role_name"
    assert str(vs[0]) == "messages.0: use the top-level 'system' parameter for the initial system prompt"


@pytest.mark.parametrize("model", [SONNET_46, SONNET_45, HAIKU_45, "claude-opus-4-7", "claude-sonnet-5"])
def test_role_system_mid_conversation_rejected_on_models_without_it(model: str) -> None:
    v = only(validate([u("hi"), s("The date is 2026-08-16.")], model=model))
    assert v.rule == "role_name"
    assert v.path == ""
    assert str(v) == "role 'system' is not supported on this model"
    assert v.at == "messages.1"


@pytest.mark.parametrize("model", [OPUS_48, "claude-fable-5", "claude-opus-5", None])
@pytest.mark.parametrize(
    "messages",
    [
        pytest.param([u("hi"), s("Be brief.")], id="after-user"),
        pytest.param([u("hi"), u("more"), s("Be brief."), s("Cite.")], id="two-after-two-users"),
        pytest.param([u("q"), a(use("A")), u(result("A")), s("note")], id="after-tool-result"),
        pytest.param(
            [
                u("q"),
                s([text("ping is on"), {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "ping"}}]),
            ],
            id="tool-addition",
        ),
        pytest.param([u("q"), a(use("A")), u(result("A")), s("note"), a(use("B")), u(result("B"))], id="between-pairs"),
        pytest.param([u("q"), s("note"), a("ok"), u("next")], id="followed-by-assistant"),
    ],
)
def test_role_system_mid_conversation_accepted(model: str | None, messages: list[dict[str, Any]]) -> None:
    assert validate(messages, model=model) == []


def test_role_system_placement_on_models_that_accept_it() -> None:
    v = only(validate([u("q"), a("ok"), s("note"), a("more"), u("x")], model=OPUS_48))
    assert v.rule == "system_placement"
    assert v.path == "messages.2"
    v = only(validate([u("q"), s("note"), u("x")], model=OPUS_48))
    assert (v.rule, v.path) == ("system_placement", "messages.1")
    # a system message between a tool_use and its result breaks the pairing (both sides)
    vs = validate([u("q"), a(use("A")), s("note"), u(result("A"))], model=OPUS_48)
    assert {v.rule for v in vs} >= {"dangling_tool_use", "orphan_tool_result"}
    # after an assistant turn that ends in server tool use (pause_turn)
    ws = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}
    assert validate([u("q"), a(server_use("srvtoolu_1"), ws), s("note")], model=OPUS_48) == []


@pytest.mark.parametrize("role", ["tool", "human", "developer", "", 5, None])
def test_role_name_other_roles(role: object) -> None:
    vs = validate([u("q"), {"role": role, "content": "x"}, u("y")])
    assert vs[0].rule == "role_name"
    assert str(vs[0]) == "messages.1.role: Input should be 'user', 'assistant' or 'system'"


@pytest.mark.parametrize("model", [SONNET_46, "claude-opus-4-6", "claude-opus-4-7", OPUS_48, "claude-fable-5", None])
def test_prefill_rejected_on_claude_4_6_and_later(model: str | None) -> None:
    v = only(validate([u("Write a haiku."), a("Autumn")], model=model))
    assert v.rule == "prefill"
    assert v.path == ""
    assert str(v) == (
        "This model does not support assistant message prefill. The conversation must end with a user message."
    )
    assert v.at == "messages.1"


@pytest.mark.parametrize("model", ["claude-3-5-haiku-20241022", SONNET_45, HAIKU_45, "claude-opus-4-1-20250805"])
def test_prefill_accepted_up_to_4_5(model: str) -> None:
    assert validate([u("Write a haiku."), a("Autumn")], model=model) == []


# ---------------------------------------------------------------------------------------
# 1.3 Content
# ---------------------------------------------------------------------------------------


def test_non_empty_messages() -> None:
    v = only(validate([]))
    assert (v.rule, str(v)) == ("non_empty_messages", "messages: at least one message is required")


@pytest.mark.parametrize("content", ["", []])
def test_non_empty_content(content: object) -> None:
    v = only(validate([{"role": "user", "content": content}]))
    assert v.rule == "non_empty_content"
    assert str(v) == (
        "messages.0: all messages must have non-empty content except for the optional final assistant message"
    )
    v = only(validate([u("q"), {"role": "assistant", "content": content}, u("x")]))
    assert str(v).startswith("messages.1: all messages must have non-empty content")


def test_empty_final_assistant_message_is_allowed_on_prefill_models_only() -> None:
    assert validate([u("q"), a([])], model=SONNET_45) == []
    assert validate([u("q"), {"role": "assistant", "content": ""}], model=SONNET_45) == []
    assert [v.rule for v in validate([u("q"), a([])], model=SONNET_46)] == ["prefill"]


def test_text_nonempty_has_no_index() -> None:
    v = only(validate([u(text("hello"), text(""))]))
    assert (v.rule, v.at) == ("text_nonempty", "messages.0.content.1")
    assert str(v) == "messages: text content blocks must be non-empty"
    # inside a tool_result too
    vs = validate([u("q"), a(use("A")), u(result("A", [text("")]))])
    assert texts(vs) == ["messages: text content blocks must be non-empty"]


def test_text_nonempty_whitespace_only() -> None:
    v = only(validate([u(text(" \n"))]))
    assert (v.rule, str(v)) == ("text_nonempty", "messages: text content blocks must contain non-whitespace text")
    assert texts(validate([u("  ")])) == ["messages: text content blocks must contain non-whitespace text"]
    assert validate([u(text(" "), text("real"))]) == []


def test_trailing_whitespace_in_final_assistant_message() -> None:
    v = only(validate([u("q"), a("The answer is ")], model=SONNET_45))
    assert v.rule == "trailing_whitespace"
    assert str(v) == "messages: final assistant content cannot end with trailing whitespace"
    assert [v.rule for v in validate([u("q"), a(text("x"), text("y\n"))], model=SONNET_45)] == ["trailing_whitespace"]
    # on 4.6+ the prefill error appears instead
    assert [v.rule for v in validate([u("q"), a("The answer is ")], model=SONNET_46)] == ["prefill"]
    # Q7: trailing whitespace elsewhere is fine
    assert validate([u("q "), a("ok \n"), u("x")]) == []


def test_text_type() -> None:
    vs = validate([u(text("a"), {"type": "text", "text": 5})])
    assert vs[0].rule == "text_type"
    assert str(vs[0]) == "messages.0.content.1.text.text: Input should be a valid string"


def test_unknown_block_type() -> None:
    v = only(validate([u(text("a"), {"type": "image_url", "image_url": {"url": "x"}})]))
    assert v.rule == "unknown_block_type"
    expected = ", ".join(f"'{t}'" for t in sorted(KNOWN_BLOCK_TAGS))
    assert v.path == "messages.0.content.1"
    assert v.message == f"Input tag 'image_url' found using 'type' does not match any of the expected tags: {expected}"
    assert "'compaction'" in expected and "'web_search_tool_result'" in expected


def test_unknown_block_type_inside_tool_result() -> None:
    # shape of a live capture (Databricks gateway, 2026-08-11); our list is the SDK's, sorted
    nested = [text("a"), {"type": "image_url"}]
    vs = validate([u("q"), a(text("t"), use("A")), u(text("x")), a(use("B")), u(result("B", nested))])
    v = next(v for v in vs if v.rule == "unknown_block_type")
    assert str(v) == (
        "messages.4.content.0.tool_result.content.1: Input tag 'image_url' found using 'type' does not match any of "
        "the expected tags: 'browser_state', 'document', 'image', 'search_result', 'text', 'tool_reference'"
    )


# ---------------------------------------------------------------------------------------
# 1.4 Thinking
# ---------------------------------------------------------------------------------------


def test_thinking_order() -> None:
    v = only(validate([u("q"), a(text("Sure."), thinking()), u("x")]))
    assert v.rule == "thinking_order"
    assert str(v) == (
        "messages.1.content.0: If an assistant message contains any thinking blocks, the first block must be "
        "`thinking` or `redacted_thinking`. Found `text`."
    )


def test_thinking_signature_missing() -> None:
    block = {"type": "thinking", "thinking": "hmm"}
    vs = validate([u("q"), a(block, text("ok")), u("x")])
    assert vs[0].rule == "thinking_signature"
    assert str(vs[0]) == "messages.1.content.0.thinking.signature: Field required"


def test_thinking_signature_empty() -> None:
    v = only(validate([u("q"), a(thinking(sig=""), text("ok")), u("x")]))
    assert (v.rule, str(v)) == ("thinking_signature", "messages.1.content.0: Invalid `signature` in `thinking` block")


def test_thinking_block_without_thinking_field() -> None:
    vs = validate([u("q"), a({"type": "thinking", "signature": "sig"}, text("ok")), u("x")])
    assert vs[0].rule == "schema_required_field"
    assert str(vs[0]) == "messages.1.content.0.thinking.thinking: Field required"


THINKING_REQUIRED = (
    "Expected `thinking` or `redacted_thinking`, but found `{}`. When `thinking` is enabled, a final `assistant` "
    "message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). "
    "We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. "
    "Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
)


def test_thinking_required_when_enabled() -> None:
    v = only(validate([u("q"), a(use("A")), u(result("A"))], thinking="enabled"))
    assert v.rule == "thinking_required"
    assert str(v) == "messages.1.content.0.type: " + THINKING_REQUIRED.format("tool_use")
    v = only(validate([u("q"), a(text("Let me look."), use("A")), u(result("A"))], thinking="enabled"))
    assert str(v) == "messages.1.content.0.type: " + THINKING_REQUIRED.format("text")
    # the opener of the loop is what counts: later assistant messages of the loop need no thinking
    loop = [u("q"), a(thinking(), use("A")), u(result("A")), a(use("B")), u(result("B"))]
    assert validate(loop, thinking="enabled") == []
    late = [u("q"), a(use("A")), u(result("A")), a(thinking(), use("B")), u(result("B"))]
    v = only(validate(late, thinking="enabled"))
    assert v.path == "messages.1.content.0.type"
    # disabled / adaptive / not given: no requirement
    for mode in (None, "disabled", "adaptive"):
        assert validate([u("q"), a(use("A")), u(result("A"))], thinking=mode) == []


def test_thinking_required_when_disabled_and_prefill_has_thinking() -> None:
    for mode in (None, "disabled"):
        v = only(validate([u("q"), a(thinking(), text("The"))], model=SONNET_45, thinking=mode))
        assert v.rule == "thinking_required"
        assert str(v) == (
            "messages.1.content.0: When thinking is disabled, an `assistant` message in the final position cannot "
            "contain `thinking`. To use thinking blocks, enable `thinking` in your request."
        )
    assert validate([u("q"), a(thinking(), text("The"))], model=SONNET_45, thinking="enabled") == []


# ---------------------------------------------------------------------------------------
# Section 4: requests the live API accepted
# ---------------------------------------------------------------------------------------

# anomalyco/opencode packages/llm/test/fixtures/recordings/anthropic-messages/*.json (live, 2026-05-05)
_WEATHER_TOOLS = [
    {"name": "get_weather", "description": "Get weather", "input_schema": {"type": "object", "properties": {}}}
]
OPENCODE_ACCEPTED = json.loads(
    json.dumps(
        {
            "model": "claude-haiku-4-5-20251001",
            "messages": [
                {"role": "assistant", "content": [{"type": "text", "text": "I will check the weather."}]},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}}
                    ],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": '{"temperature":"72F"}'}],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "text",
                            "text": "Use that result to answer briefly.",
                            "cache_control": {"type": "ephemeral"},
                        }
                    ],
                },
            ],
            "tools": _WEATHER_TOOLS,
            "stream": True,
            "max_tokens": 4096,
        }
    )
)
OPENCODE_REJECTED = {
    "model": "claude-haiku-4-5-20251001",
    "messages": [
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "text", "text": "I will check the weather."},
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": '{"temperature":"72F"}'}],
        },
        {"role": "user", "content": [{"type": "text", "text": "Use that result to answer briefly."}]},
    ],
    "tools": _WEATHER_TOOLS,
    "stream": True,
    "max_tokens": 4096,
}

_WS_RESULT = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_1",
    "content": [{"type": "web_search_result", "url": "https://e.com", "title": "t", "encrypted_content": "x"}],
}
_MCP_USE = {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "ping", "server_name": "srv", "input": {}}

ACCEPTED: list[Any] = [
    pytest.param(
        [a(text("Checking."), use("A")), a(use("B")), u(result("A"), result("B"))], {}, id="split-assistant-tool-uses"
    ),
    pytest.param(
        [a(text("x")), a(use("c1")), u(result("c1")), u(text("answer"))], {}, id="assistant-assistant-user-user"
    ),
    pytest.param([u("q"), a(server_use("srvtoolu_1"), use("A")), u(result("A"))], {}, id="unpaired-server-tool-use"),
    pytest.param([u("q"), a(_MCP_USE, use("A")), u(result("A"))], {}, id="unpaired-mcp-tool-use"),
    pytest.param(
        [
            u("q"),
            a(
                server_use("srvtoolu_1", "tool_search_tool_regex"),
                {
                    "type": "tool_search_tool_result",
                    "tool_use_id": "srvtoolu_1",
                    "content": {"type": "tool_search_tool_search_result", "tool_references": []},
                },
            ),
            u("thanks"),
        ],
        {},
        id="tool-search-tool-result",
    ),
    pytest.param(
        [
            u("q"),
            a(
                _MCP_USE,
                {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "content": [text("pong")], "is_error": False},
                text("pong"),
            ),
            u("ok"),
        ],
        {},
        id="mcp-tool-result-in-assistant",
    ),
    pytest.param(
        [
            u("q"),
            a(
                server_use("srvtoolu_2", "web_fetch"),
                {
                    "type": "web_fetch_tool_result",
                    "tool_use_id": "srvtoolu_2",
                    "content": {"type": "web_fetch_result", "url": "https://e.com", "content": {}},
                },
            ),
            u("ok"),
        ],
        {},
        id="web-fetch-tool-result-in-assistant",
    ),
    pytest.param(
        [
            u("q"),
            a(
                server_use("srvtoolu_3", "advisor"),
                {
                    "type": "advisor_tool_result",
                    "tool_use_id": "srvtoolu_3",
                    "content": {"type": "advisor_result", "text": "do X"},
                },
                text("ok"),
            ),
            u("go"),
        ],
        {},
        id="advisor-tool-result-in-assistant",
    ),
    pytest.param(
        [
            u("q"),
            a(
                server_use("srvtoolu_4", "bash_code_execution"),
                {
                    "type": "bash_code_execution_tool_result",
                    "tool_use_id": "srvtoolu_4",
                    "content": {
                        "type": "bash_code_execution_result",
                        "stdout": "1",
                        "stderr": "",
                        "return_code": 0,
                        "content": [],
                    },
                },
            ),
            u("ok"),
        ],
        {},
        id="bash-code-execution-tool-result-in-assistant",
    ),
    pytest.param([a("Hello! How can I help?"), u("hi")], {}, id="assistant-first"),
    pytest.param([u("a"), u("b"), a("c"), u("d")], {}, id="consecutive-users"),
    pytest.param([u("Say hi"), a("Hi")], {"model": "claude-3-5-haiku-20241022"}, id="prefill-3-5-haiku"),
    pytest.param(
        [
            u("search"),
            a(thinking(), text("Searching."), server_use("srvtoolu_1"), _WS_RESULT, server_use("srvtoolu_5")),
        ],
        {"model": SONNET_45, "thinking": "enabled"},
        id="pause-turn-continuation-sonnet-4-5",
    ),
    pytest.param(
        [u("search"), a(text("Searching."), server_use("srvtoolu_1"), _WS_RESULT)],
        {"model": SONNET_46},
        id="pause-turn-continuation-4-6",
    ),
    pytest.param([u("q"), a(thinking(), use("A")), u(result("A"))], {"thinking": "enabled"}, id="thinking-round-trip"),
    pytest.param(
        [u("q"), a({"type": "redacted_thinking", "data": "EmwKAhgBEgy"}, use("A")), u(result("A"))],
        {"thinking": "enabled"},
        id="redacted-thinking-round-trip",
    ),
    pytest.param(
        [u("q"), a("plain answer"), u("and now?")],
        {"thinking": "enabled"},
        id="thinking-enabled-history-without-thinking",
    ),
    pytest.param(
        [u("q"), a(use("A")), u(result("A")), a("done"), u("next")], {"thinking": "adaptive"}, id="adaptive-thinking"
    ),
    pytest.param([u("q"), a(use("A")), u(result("A", "plain string"))], {}, id="result-string"),
    pytest.param([u("q"), a(use("A")), u(result("A", [text("one"), text("two")]))], {}, id="result-text-list"),
    pytest.param(
        [u("q"), a(use("A")), u(result("A", [{"type": "tool_reference", "tool_name": "ping"}]))],
        {},
        id="result-tool-reference",
    ),
    pytest.param(
        [
            u("q"),
            a(use("A")),
            u(
                result(
                    "A",
                    [
                        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}},
                        {"type": "image", "source": {"type": "url", "url": "https://e.com/a.png"}},
                    ],
                )
            ),
        ],
        {},
        id="result-images",
    ),
    pytest.param([u("q"), a(use("A")), u(result("A", "boom", is_error=True))], {}, id="result-is-error"),
    pytest.param([u("q"), a(use("A")), u(result("A"), text("now answer"))], {}, id="result-then-text"),
    pytest.param(
        [
            u("q"),
            a(use("A")),
            u(result("A"), {"type": "image", "source": {"type": "url", "url": "https://e.com/a.png"}}),
        ],
        {},
        id="result-then-image",
    ),
    pytest.param(
        [u("q"), a(use("A"), use("B"), use("C"), use("D")), u(result("C"), result("A"), result("D"), result("B"))],
        {},
        id="four-parallel-results-any-order",
    ),
    pytest.param([u("q"), a(use("call_1")), u(result("call_1"))], {}, id="id-call_1"),
    pytest.param(
        [u("q"), a(use("auto_load_97d4a2341e6817ea")), u(result("auto_load_97d4a2341e6817ea"))], {}, id="id-auto-load"
    ),
    pytest.param(
        [
            a({"type": "compaction", "content": "Summary of earlier work.", "signature": "c2ln"}, text("Continuing.")),
            u("next"),
        ],
        {},
        id="compaction-in-assistant",
    ),
    pytest.param(
        [u({"type": "image", "source": {"type": "url", "url": "https://e.com/a.png"}}, text("what is it?"))],
        {},
        id="image-url",
    ),
    pytest.param(
        [
            u(
                {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}},
                text("sum up"),
            )
        ],
        {},
        id="base64-document",
    ),
    pytest.param(
        [u({"type": "text", "text": "cached", "cache_control": {"type": "ephemeral"}})], {}, id="cache-control"
    ),
    pytest.param([u("x" * 5000), a("y" * 5000), u("z" * 5000)], {}, id="long-texts"),
    pytest.param([u("just a string")], {}, id="string-content"),
]


@pytest.mark.parametrize(("messages", "options"), ACCEPTED)
def test_recorded_requests_accepted(messages: list[dict[str, Any]], options: dict[str, Any]) -> None:
    assert validate(messages, **options) == []


def test_recorded_opencode_request_bodies() -> None:
    assert validate_request(OPENCODE_ACCEPTED) == []
    v = only(validate_request(OPENCODE_REJECTED))
    assert str(v) == (
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: call_1. "
        "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
    )


# ---------------------------------------------------------------------------------------
# validate_request
# ---------------------------------------------------------------------------------------


def _body(**fields: Any) -> dict[str, Any]:
    return {"model": SONNET_45, "max_tokens": 1024, "messages": [u("hi")], **fields}


def test_validate_request_accepts_a_plain_body() -> None:
    assert (
        validate_request(_body(system="You are terse.", tools=[{"name": "f", "input_schema": {"type": "object"}}]))
        == []
    )


@pytest.mark.parametrize("body", [None, 5, "x", [], [1, 2], True])
def test_validate_request_body_not_an_object(body: object) -> None:
    v = only(validate_request(body))
    assert (v.rule, v.path, str(v)) == ("schema_type", "", "Input should be a valid dictionary")


def test_validate_request_missing_fields() -> None:
    assert texts(validate_request({})) == [
        "max_tokens: Field required",
        "messages: Field required",
        "model: Field required",
    ]
    assert texts(validate_request({"model": "m", "max_tokens": 1})) == ["messages: Field required"]
    assert texts(validate_request(_body(messages="hi"))) == ["messages: Input should be a valid list"]
    assert texts(validate_request(_body(model=5, max_tokens="many"))) == [
        "max_tokens: Input should be a valid integer",
        "model: Input should be a valid string",
    ]
    assert texts(validate_request(_body(max_tokens=-1, stream="sometimes"))) == [
        "max_tokens: Input should be greater than or equal to 0",
        "stream: Input should be a valid boolean",
    ]
    assert validate_request(_body(stream=True)) == []


def test_validate_request_reads_tools() -> None:
    pair = [u("q"), a(use("A")), u(result("A"))]
    assert [v.rule for v in validate_request(_body(messages=pair))] == ["tools_required"]
    assert [v.rule for v in validate_request(_body(messages=pair, tools=[]))] == ["tools_required"]
    assert (
        validate_request(_body(messages=pair, tools=[{"name": "get_weather", "input_schema": {"type": "object"}}]))
        == []
    )
    assert texts(validate_request(_body(tools={"name": "f"}))) == ["tools: Input should be a valid list"]


def test_validate_request_reads_thinking_and_model() -> None:
    pair = [u("q"), a(use("A")), u(result("A"))]
    tools = [{"name": "get_weather", "input_schema": {"type": "object"}}]
    body = _body(messages=pair, tools=tools, thinking={"type": "enabled", "budget_tokens": 2048})
    assert [v.rule for v in validate_request(body)] == ["thinking_required"]
    assert validate_request(_body(messages=pair, tools=tools, thinking={"type": "adaptive"})) == []
    assert [v.rule for v in validate_request(_body(messages=[u("q"), a("A")], model=SONNET_46))] == ["prefill"]
    assert validate_request(_body(messages=[u("q"), a("A")], model=SONNET_45)) == []
    assert texts(validate_request(_body(thinking={"type": "bogus"}))) == [
        "thinking: Input tag 'bogus' found using 'type' does not match any of the expected tags: "
        "'adaptive', 'between_tools', 'disabled', 'enabled'"  # the SDK's four variants, as the server lists them
    ]
    assert texts(validate_request(_body(thinking={}))) == ["thinking: Unable to extract tag using discriminator 'type'"]


# ---------------------------------------------------------------------------------------
# check / ProtocolError / Violation
# ---------------------------------------------------------------------------------------


def test_check_returns_none_when_clean() -> None:
    assert check([u("hi")]) is None
    assert check_request(_body()) is None


def test_check_raises_protocol_error_with_the_first_violation() -> None:
    with pytest.raises(ProtocolError) as info:
        check([u(result("toolu_01abc")), a("x"), u(text(""))])
    error = info.value
    assert isinstance(error, ValueError)
    assert str(error) == "messages: text content blocks must be non-empty"  # Q2: emptiness before pairing
    assert [v.rule for v in error.violations] == ["text_nonempty", "orphan_tool_result"]
    with pytest.raises(ProtocolError, match=r"^This model does not support assistant message prefill\."):
        check([u("q"), a("a")], model=SONNET_46)
    with pytest.raises(ProtocolError, match=r"^messages: Field required$"):
        check_request({"model": "m", "max_tokens": 1})


def test_violation_is_a_frozen_value() -> None:
    v = Violation("prefill", "", "text", "messages.1")
    assert str(v) == "text"
    assert str(Violation("x", "messages.0", "msg")) == "messages.0: msg"
    with pytest.raises(AttributeError):
        v.rule = "other"  # type: ignore[misc]
    assert v == Violation("prefill", "", "text", "messages.1")
    assert hash(v) == hash(Violation("prefill", "", "text", "messages.1"))


@pytest.mark.parametrize("rule", RULES)
def test_every_rule_has_a_one_line_hint(rule: str) -> None:
    hint = hint_for(Violation(rule, "", ""))
    assert hint and "\n" not in hint
    assert Violation(rule, "", "").hint == hint


def test_orphan_hint_mentions_the_cut() -> None:
    v = validate([u(result("toolu_1"))])[0]
    assert "previous message" in v.hint and "cut" in v.hint


# ---------------------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("claude-sonnet-4-6", ModelVersion("sonnet", 4, 6)),
        ("claude-opus-4-8", ModelVersion("opus", 4, 8)),
        ("claude-3-5-haiku-20241022", ModelVersion("haiku", 3, 5)),
        ("claude-haiku-4-5", ModelVersion("haiku", 4, 5)),
        ("claude-haiku-4-5-20251001", ModelVersion("haiku", 4, 5)),
        ("claude-sonnet-4-5-20250929", ModelVersion("sonnet", 4, 5)),
        ("claude-sonnet-4-20250514", ModelVersion("sonnet", 4, 0)),
        ("claude-opus-4-1-20250805", ModelVersion("opus", 4, 1)),
        ("claude-3-7-sonnet-latest", ModelVersion("sonnet", 3, 7)),
        ("claude-3-haiku-20240307", ModelVersion("haiku", 3, 0)),
        ("claude-fable-5", ModelVersion("fable", 5, 0)),
        ("claude-opus-5-5", ModelVersion("opus", 5, 5)),
        ("anthropic.claude-opus-4-8-v1:0", ModelVersion("opus", 4, 8)),
        ("us.anthropic.claude-3-5-sonnet-20240620-v1:0", ModelVersion("sonnet", 3, 5)),
        ("claude-sonnet-4-5@20250929", ModelVersion("sonnet", 4, 5)),
        ("claude-opus-4-8[1m]", ModelVersion("opus", 4, 8)),
        ("claude-2.1", ModelVersion(None, 2, 1)),
        ("Claude-Sonnet-4-6", ModelVersion("sonnet", 4, 6)),
        ("gpt-4o", ModelVersion(None, None)),
        ("claude-next", ModelVersion(None, None)),
        ("", ModelVersion(None, None)),
        (None, ModelVersion(None, None)),
    ],
)
def test_parse_model(name: str | None, expected: ModelVersion) -> None:
    assert parse_model(name) == expected


@pytest.mark.parametrize(
    ("name", "prefill", "inline_system"),
    [
        ("claude-3-5-haiku-20241022", True, False),
        (SONNET_45, True, False),
        (HAIKU_45, True, False),
        ("claude-opus-4-5", True, False),
        (SONNET_46, False, False),
        ("claude-opus-4-6", False, False),
        ("claude-opus-4-7", False, False),
        (OPUS_48, False, True),
        ("claude-opus-5", False, True),
        ("claude-sonnet-5", False, False),
        ("claude-fable-5", False, True),
        ("claude-mythos-5", False, True),
        ("some-future-model", False, True),  # unknown names are treated as the newest model
        (None, False, True),
    ],
)
def test_model_capabilities(name: str | None, prefill: bool, inline_system: bool) -> None:
    assert model_accepts_prefill(name) is prefill
    assert model_accepts_inline_system(name) is inline_system


# ---------------------------------------------------------------------------------------
# Message objects, odd Python inputs
# ---------------------------------------------------------------------------------------


def test_validate_accepts_message_objects() -> None:
    call = ToolUseBlock(id="toolu_1", name="read", input={"path": "a.py"})
    conversation = [
        user_text("read a.py"),
        assistant_msg([call]),
        tool_result_msg([tool_result_block("toolu_1", "print(1)")]),
    ]
    assert validate(conversation) == []
    assert validate(tuple(conversation)) == []
    cut = conversation[2:]
    assert validate(cut) == validate(to_api(cut))
    assert [v.rule for v in validate(cut)] == ["orphan_tool_result"]
    mixed = [conversation[0], {"role": "assistant", "content": [use("toolu_1")]}, conversation[2]]
    assert validate(mixed) == []


@pytest.mark.parametrize(
    "messages",
    [
        [[[[[]]]]],
        [{"role": "user", "content": [{"type": 10**5000}]}],
        [{"role": "user", "content": [{"type": ["x"] * 3}]}],
        [{"role": "user", "content": [{"type": {"a": 1}}]}],
        [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": ["x"]}]}],
        [{"role": "assistant", "content": [{"type": "tool_use", "id": {"x": 1}, "name": 1, "input": []}]}],
        [{"role": ["user"], "content": "x"}],
        [{10**5000: 1, "role": "user", "content": "x"}],
        b"[]",
        "messages",
        {"role": "user", "content": "x"},
        range(3),
    ],
)
def test_validate_never_raises_on_odd_inputs(messages: object) -> None:
    violations = validate(messages)
    assert violations
    assert all(isinstance(str(v), str) for v in violations)


def test_validate_never_raises_on_deep_nesting() -> None:
    deep: Any = "x"
    for _ in range(50_000):
        deep = [deep]
    assert validate([{"role": "user", "content": [{"type": deep}]}])
    assert validate([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": deep}]}])


if __name__ == "__main__":
    sys.stdout.write(render_known_blocks(derive_known_blocks()))


def test_as_history_treats_a_final_assistant_as_the_end_of_a_turn() -> None:
    history = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "text", "text": "hello "}]},
    ]
    assert [v.rule for v in validate(history)] == ["prefill"]
    assert validate(history, as_history=True) == []
    with pytest.raises(ProtocolError):
        check(history)
    check(history, as_history=True)


def test_as_history_still_reports_a_final_unanswered_tool_use() -> None:
    history = [
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {}}]},
    ]
    violations = validate(history, as_history=True)
    assert [v.rule for v in violations] == ["dangling_tool_use"]
    assert str(violations[0]) == (
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. "
        "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
    )
