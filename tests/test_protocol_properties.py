"""Properties of msgmodel.core.protocol: it never raises, valid conversations pass, and each targeted
mutation of a valid conversation (the trimming and compaction bugs of api-rules.md) is named."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

# tests/ is on sys.path under pytest (rootdir-relative "prepend" import mode), as for conftest.py
from strategies import json_values, mutated_conversations, valid_conversations

from msgmodel.core.protocol import RULES, Violation, validate, validate_request

Conversation = list[dict[str, Any]]

MODELS = st.sampled_from(
    [None, "claude-3-5-haiku-20241022", "claude-sonnet-4-5", "claude-sonnet-4-6", "claude-opus-4-8", "x"]
)
THINKING = st.sampled_from([None, "enabled", "disabled", "adaptive"])


def _well_formed(violations: object) -> None:
    assert isinstance(violations, list)
    for v in violations:
        assert isinstance(v, Violation)
        assert v.rule in RULES
        assert str(v) == (f"{v.path}: {v.message}" if v.path else v.message)
        assert v.hint


def _rules(conversation: object, **options: Any) -> list[str]:
    return [v.rule for v in validate(conversation, **options)]


# ---------------------------------------------------------------------------------------
# (a) never raises
# ---------------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(json_values(), st.booleans(), MODELS, THINKING)
def test_validate_never_raises_on_any_json(value: object, tools: bool, model: str | None, thinking: str | None) -> None:
    _well_formed(validate(value, model=model, tools_defined=tools, thinking=thinking))


@settings(max_examples=200, deadline=None)
@given(st.lists(json_values(max_leaves=10), max_size=5))
def test_validate_never_raises_on_lists_of_anything(value: list[Any]) -> None:
    _well_formed(validate(value))


@settings(max_examples=100, deadline=None)
@given(mutated_conversations(), st.booleans(), MODELS, THINKING)
def test_validate_never_raises_on_almost_valid_conversations(
    conversation: object, tools: bool, model: str | None, thinking: str | None
) -> None:
    before = copy.deepcopy(conversation)
    violations = validate(conversation, model=model, tools_defined=tools, thinking=thinking)
    _well_formed(violations)
    assert conversation == before  # pure: the input is not touched
    assert validate(conversation, model=model, tools_defined=tools, thinking=thinking) == violations


@settings(max_examples=100, deadline=None)
@given(json_values())
def test_validate_request_never_raises(value: object) -> None:
    _well_formed(validate_request(value))
    _well_formed(
        validate_request({"model": "claude-sonnet-4-5", "max_tokens": 1, "messages": value, "thinking": value})
    )


# ---------------------------------------------------------------------------------------
# (b) valid conversations pass
# ---------------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(valid_conversations(), MODELS)
def test_valid_conversations_pass(conversation: Conversation, model: str | None) -> None:
    # they end with a user message, so neither prefill nor inline-system rules depend on the model
    assert validate(conversation, model=model) == []
    assert validate(conversation, model=model, thinking="adaptive") == []


@settings(max_examples=100, deadline=None)
@given(valid_conversations(thinking=True))
def test_valid_conversations_with_thinking_pass_with_thinking_enabled(conversation: Conversation) -> None:
    assert validate(conversation, thinking="enabled") == []


@settings(max_examples=100, deadline=None)
@given(valid_conversations())
def test_valid_conversations_pass_as_a_request(conversation: Conversation) -> None:
    body = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 1024,
        "messages": conversation,
        "tools": [{"name": "tool", "input_schema": {"type": "object"}}],
    }
    assert validate_request(body) == []


# ---------------------------------------------------------------------------------------
# (c) targeted mutations name their rule
# ---------------------------------------------------------------------------------------


def _tool_positions(conversation: Conversation) -> list[tuple[int, int, str]]:
    """(message index, block index, id) of every tool_use."""
    return [
        (i, j, b["id"])
        for i, m in enumerate(conversation)
        if m["role"] == "assistant" and isinstance(m["content"], list)
        for j, b in enumerate(m["content"])
        if b["type"] == "tool_use"
    ]


def _result_positions(conversation: Conversation) -> list[tuple[int, int, str]]:
    return [
        (i, j, b["tool_use_id"])
        for i, m in enumerate(conversation)
        if m["role"] == "user" and isinstance(m["content"], list)
        for j, b in enumerate(m["content"])
        if b["type"] == "tool_result"
    ]


@settings(max_examples=100, deadline=None)
@given(valid_conversations(), st.data())
def test_dropping_the_assistant_that_owns_a_result_orphans_it(conversation: Conversation, data: st.DataObject) -> None:
    uses = _tool_positions(conversation)
    assume(uses)
    i, _, tool_use_id = data.draw(st.sampled_from(uses))
    del conversation[i]
    orphans = [v for v in validate(conversation) if v.rule == "orphan_tool_result"]
    assert any(f"found in `tool_result` blocks: {tool_use_id}. " in v.message for v in orphans)


@settings(max_examples=100, deadline=None)
@given(valid_conversations(), st.data())
def test_dropping_a_result_leaves_a_dangling_tool_use(conversation: Conversation, data: st.DataObject) -> None:
    results = _result_positions(conversation)
    assume(results)
    i, j, tool_use_id = data.draw(st.sampled_from(results))
    content = conversation[i]["content"]
    del content[j]
    if not content:
        content.append({"type": "text", "text": "(result lost)"})
    violations = validate(conversation)
    assert [v.rule for v in violations][:1] == ["dangling_tool_use"]
    assert tool_use_id in violations[0].message


@settings(max_examples=100, deadline=None)
@given(valid_conversations(), st.data())
def test_text_before_the_results_is_named_tool_result_first(conversation: Conversation, data: st.DataObject) -> None:
    results = _result_positions(conversation)
    assume(results)
    i, _, _ = data.draw(st.sampled_from(results))
    conversation[i]["content"].insert(0, {"type": "text", "text": "Here are the results."})
    assert _rules(conversation) == ["tool_result_first"]


@settings(max_examples=100, deadline=None)
@given(valid_conversations(), st.data())
def test_text_after_a_tool_use_is_named_tool_use_not_last(conversation: Conversation, data: st.DataObject) -> None:
    uses = _tool_positions(conversation)
    assume(uses)
    i, _, _ = data.draw(st.sampled_from(uses))
    conversation[i]["content"].append({"type": "text", "text": "I will wait for the result."})
    assert _rules(conversation) == ["tool_use_not_last"]


@settings(max_examples=100, deadline=None)
@given(valid_conversations(), st.data())
def test_a_reused_id_is_named_duplicate_tool_use_id(conversation: Conversation, data: st.DataObject) -> None:
    uses = _tool_positions(conversation)
    assume(len(uses) >= 2)
    first, second = sorted(data.draw(st.lists(st.sampled_from(uses), min_size=2, max_size=2, unique=True)))
    old, new = second[2], first[2]
    conversation[second[0]]["content"][second[1]]["id"] = new
    for i, j, tool_use_id in _result_positions(conversation):
        if tool_use_id == old:
            conversation[i]["content"][j]["tool_use_id"] = new
    rules = _rules(conversation)
    assert "duplicate_tool_use_id" in rules
    assert set(rules) <= {"duplicate_tool_use_id", "duplicate_tool_result"}


@settings(max_examples=100, deadline=None)
@given(valid_conversations(), st.data())
def test_a_result_in_an_assistant_message_is_named_tool_result_role(
    conversation: Conversation, data: st.DataObject
) -> None:
    uses = _tool_positions(conversation)
    assume(uses)
    i, _, tool_use_id = data.draw(st.sampled_from(uses))
    conversation[i]["content"].append({"type": "tool_result", "tool_use_id": tool_use_id, "content": "x"})
    rules = _rules(conversation)
    assert rules[0] == "tool_result_role"


@settings(max_examples=100, deadline=None)
@given(valid_conversations())
def test_a_tool_use_in_a_user_message_is_named_tool_use_role(conversation: Conversation) -> None:
    first = conversation[0]
    content = first["content"] if isinstance(first["content"], list) else [{"type": "text", "text": first["content"]}]
    first["content"] = [*content, {"type": "tool_use", "id": "toolu_user", "name": "x", "input": {}}]
    assert _rules(conversation)[0] == "tool_use_role"


@settings(max_examples=100, deadline=None)
@given(valid_conversations())
def test_tool_blocks_without_tools_are_named_tools_required(conversation: Conversation) -> None:
    expected = ["tools_required"] if _tool_positions(conversation) else []
    assert _rules(conversation, tools_defined=False) == expected


@settings(max_examples=100, deadline=None)
@given(valid_conversations(), st.data())
def test_cutting_the_window_at_a_result_orphans_it(conversation: Conversation, data: st.DataObject) -> None:
    results = _result_positions(conversation)
    assume(results)
    i, _, _ = data.draw(st.sampled_from(results))
    window = conversation[i:]  # the classic `messages[-k:]` trim
    violations = validate(window)
    assert violations[0].rule == "orphan_tool_result"
    assert violations[0].path == "messages.0.content.0"


@settings(max_examples=100, deadline=None)
@given(valid_conversations())
def test_a_prefill_is_named_by_model(conversation: Conversation) -> None:
    conversation.append({"role": "assistant", "content": "The answer is"})
    assert _rules(conversation, model="claude-sonnet-4-6") == ["prefill"]
    assert _rules(conversation, model="claude-sonnet-4-5") == []


@settings(max_examples=100, deadline=None)
@given(valid_conversations(thinking=True), st.data())
def test_moving_thinking_after_text_is_named_thinking_order(conversation: Conversation, data: st.DataObject) -> None:
    candidates = [
        i
        for i, m in enumerate(conversation)
        if m["role"] == "assistant" and len(m["content"]) >= 2 and m["content"][1]["type"] != "tool_use"
    ]
    assume(candidates)
    i = data.draw(st.sampled_from(candidates))
    blocks = conversation[i]["content"]
    blocks[0], blocks[1] = blocks[1], blocks[0]
    assert _rules(conversation) == ["thinking_order"]


@settings(max_examples=100, deadline=None)
@given(valid_conversations(), st.data())
def test_an_empty_text_block_is_named_text_nonempty(conversation: Conversation, data: st.DataObject) -> None:
    i = data.draw(st.sampled_from([k for k, m in enumerate(conversation) if m["role"] == "user"]))
    message = conversation[i]
    content = (
        message["content"] if isinstance(message["content"], list) else [{"type": "text", "text": message["content"]}]
    )
    message["content"] = [*content, {"type": "text", "text": ""}]
    violations = validate(conversation)
    assert [str(v) for v in violations] == ["messages: text content blocks must be non-empty"]
