"""The official SDK's idioms at msgmodel's boundaries (issue 24, review findings M1, M2, M6, m1, m2).

* ``validate`` reads SDK objects (``{"role": "assistant", "content": response.content}``) the way
  ``from_api`` does, through the one helper ``api_value``: no false violations, with and without
  thinking, and the local API (which the SDK serializes for) accepts the same history (M1);
* every constructor checks what it is given and raises ``TypeError`` naming itself, the argument
  and the index, pointing at ``blocks_from_api`` (M2);
* ``validate`` is importable from ``msgmodel`` (M6).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anthropic.types as sdk
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies_conv import valid_conversations
from strategies_msg import any_blocks, json_values

import msgmodel
from msgmodel.core.message import (
    ContentBlock,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    api_value,
    assistant_msg,
    assistant_text,
    blocks_from_api,
    from_api,
    to_api,
    tool_result_block,
    tool_result_msg,
    user_msg,
    user_text,
)
from msgmodel.core.protocol import validate

# ---------------------------------------------------------------------------------------
# M1: validate reads SDK objects as from_api does
# ---------------------------------------------------------------------------------------


def _sdk_loop(*, thinking: bool) -> list[Any]:
    """The SDK's tool loop as an agent writes it: the response's own block objects appended as they are."""
    reply: list[Any] = [sdk.ThinkingBlock(type="thinking", thinking="Add them.", signature="c2lnbmF0dXJl")]
    reply = reply if thinking else []
    reply += [
        sdk.TextBlock(type="text", text="I will add them.", citations=None),
        sdk.ToolUseBlock(type="tool_use", id="toolu_01", name="add", input={"a": 2, "b": 3}),
    ]
    return [
        {"role": "user", "content": "What is 2 + 3?"},
        {"role": "assistant", "content": reply},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "5"}]},
    ]


@pytest.mark.parametrize("thinking", [False, True])
def test_validate_reads_sdk_blocks_as_from_api_does(thinking: bool) -> None:
    # Before: two false 400s (four with thinking): schema_type on each SDK block, an orphan result, ...
    h = _sdk_loop(thinking=thinking)
    mode = "enabled" if thinking else None
    assert validate(h, thinking=mode) == [] == validate(from_api(h), thinking=mode)


def test_the_local_api_accepts_the_same_sdk_history() -> None:
    """The history ``validate`` now accepts is one the SDK sends and a validating API answers."""
    from msgmodel.api import ScriptedModel, local_client

    client = local_client(ScriptedModel(["", "5"]))
    tools: Any = [{"name": "add", "input_schema": {"type": "object"}}]
    resp = client.messages.create(
        model="claude-opus-4-8", max_tokens=64, tools=tools, messages=_sdk_loop(thinking=False)
    )
    assert resp.stop_reason == "end_turn"


def test_sdk_objects_inside_a_result_and_mixed_with_dicts_are_read_too() -> None:
    h: list[Any] = [
        {"role": "user", "content": [sdk.TextBlock(type="text", text="Hi", citations=None)]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": [sdk.TextBlock(type="text", text="x")]}
            ],
        },
    ]
    assert validate(h) == [] == validate(from_api(h))
    broken = [*h[:2], {"role": "user", "content": [sdk.TextBlock(type="text", text="no result")]}]
    assert [v.rule for v in validate(broken)] == ["dangling_tool_use"]


def test_the_validator_and_the_codec_share_one_reading_of_sdk_objects() -> None:
    block = sdk.ToolUseBlock(type="tool_use", id="toolu_01", name="add", input={"a": 1})
    assert api_value(block) == {"type": "tool_use", "id": "toolu_01", "name": "add", "input": {"a": 1}}
    assert api_value("text") == "text" and api_value({"a": 1}) == {"a": 1}
    import msgmodel.core.message as message

    assert message._plain is api_value  # from_api's reader is the same function


def test_validate_is_exported_at_the_top_level() -> None:
    assert msgmodel.validate is validate
    assert "validate" in msgmodel.__all__


# ---------------------------------------------------------------------------------------
# M2: constructors refuse at the call
# ---------------------------------------------------------------------------------------

SDK_TEXT = sdk.TextBlock(type="text", text="hi", citations=None)


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (
            lambda: tool_result_block("toolu_1", {"exit_code": 0}),  # type: ignore[arg-type]
            r"tool_result_block: `content` must be a string or a list of blocks, got dict; .*json\.dumps",
        ),
        (
            lambda: tool_result_block("toolu_1", [{"exit_code": 0}]),  # type: ignore[list-item]
            r"tool_result_block: content\[0\] is dict, .*blocks_from_api",
        ),
        (lambda: tool_result_block("toolu_1", [1, 2]), r"content\[0\] is int, .*json\.dumps"),  # type: ignore[list-item]
        (
            lambda: assistant_msg([TextBlock("ok"), SDK_TEXT]),  # type: ignore[list-item]
            r"assistant_msg: blocks\[1\] is anthropic\.types\.text_block\.TextBlock, .*blocks_from_api",
        ),
        (lambda: user_msg(["hello"]), r"user_msg: blocks\[0\] is str, .*TextBlock\(text\)"),  # type: ignore[list-item]
        (lambda: user_msg("hello"), r"user_msg: `blocks` must be an iterable of blocks, got str; .*user_text"),  # type: ignore[arg-type]
        (
            lambda: assistant_msg([{"type": "text", "text": "x"}]),  # type: ignore[list-item]
            r"assistant_msg: blocks\[0\] is dict, .*blocks_from_api",
        ),
        (
            lambda: tool_result_msg([TextBlock("x")]),  # type: ignore[list-item]
            r"tool_result_msg: blocks\[0\] is .*TextBlock, not a ToolResultBlock; .*tool_result_block",
        ),
        (lambda: assistant_text([SDK_TEXT]), r"assistant_text: `s` must be a string, got list; .*assistant_msg"),  # type: ignore[arg-type]
        (lambda: user_text(None), r"user_text: `s` must be a string, got NoneType"),  # type: ignore[arg-type]
        (lambda: tool_result_block(1, "x"), r"`tool_use_id` must be a string, got int"),  # type: ignore[arg-type]
        (lambda: tool_result_block("t", "x", is_error="no"), r"`is_error` must be a bool, got str"),  # type: ignore[arg-type]
    ],
)
def test_constructors_refuse_what_is_not_theirs_at_the_call(build: Any, expected: str) -> None:
    # Before: each was accepted and failed later (AssertionError in to_api, StorageError in save, ...).
    with pytest.raises(TypeError, match=expected):
        build()


def test_the_sdk_idiom_goes_through_blocks_from_api() -> None:
    m = assistant_msg(blocks_from_api([SDK_TEXT]))
    assert to_api([m]) == [{"role": "assistant", "content": [{"type": "text", "text": "hi"}]}]


_NOT_BLOCKS = st.one_of(
    json_values,
    st.just(SDK_TEXT),
    st.just(sdk.ToolUseBlock(type="tool_use", id="t", name="n", input={})),
    st.builds(object),
)


@given(st.lists(any_blocks, max_size=4), st.data())
def test_every_list_constructor_names_the_index_of_the_first_foreign_item(
    blocks: list[ContentBlock], data: st.DataObject
) -> None:
    assert user_msg(blocks).content == blocks == assistant_msg(iter(blocks)).content
    index = data.draw(st.integers(0, len(blocks)))
    foreign = data.draw(_NOT_BLOCKS)
    mixed: list[Any] = [*blocks[:index], foreign, *blocks[index:]]
    for build in (user_msg, assistant_msg):
        with pytest.raises(TypeError, match=rf"^{build.__name__}: blocks\[{index}\] is "):
            build(mixed)
    with pytest.raises(TypeError, match=rf"^tool_result_block: content\[{index}\] is "):
        tool_result_block("t", mixed)
    results = [b for b in blocks if isinstance(b, ToolResultBlock)]
    if results:
        assert tool_result_msg(results).content == results
    with pytest.raises(TypeError, match=r"^tool_result_msg: blocks\[\d+\] is "):
        tool_result_msg([*results, foreign])


# ---------------------------------------------------------------------------------------
# m2: a mid-conversation system message, the same for the codec and the validator
# ---------------------------------------------------------------------------------------

WITH_SYSTEM: list[Any] = [
    {"role": "user", "content": "Summarize the log."},
    {"role": "system", "content": "Answer in French from now on."},
    {"role": "assistant", "content": [{"type": "text", "text": "Le journal est vide."}]},
    {"role": "user", "content": "Merci."},
]


def test_a_mid_conversation_system_message_is_read_by_the_codec_as_the_validator_reads_it() -> None:
    # Before: validate accepted it (as the API does on Opus 4.8+) and from_api refused it
    # ("$[1].role: expected 'user' or 'assistant', got 'system'"), so it could be neither compacted nor stored.
    h = from_api(WITH_SYSTEM)
    assert h[1] == msgmodel.system_text("Answer in French from now on.") and h[1].role == "system"
    assert to_api(h) == WITH_SYSTEM
    for model in (None, "claude-opus-4-8", "claude-fable-5"):
        assert validate(WITH_SYSTEM, model=model) == [] == validate(h, model=model)
    # Where the API refuses it, it refuses it the same way whichever form it is given in.
    assert [str(v) for v in validate(h, model="claude-sonnet-4-6")] == ["role 'system' is not supported on this model"]
    assert validate(h, model="claude-sonnet-4-6") == validate(WITH_SYSTEM, model="claude-sonnet-4-6")
    assert "System: Answer in French from now on." in msgmodel.transcript_of(h)


def test_a_system_message_is_stored_and_compacted(tmp_path: Any) -> None:
    from msgmodel.core import storage
    from msgmodel.core.compact import compact, repair

    h = from_api(WITH_SYSTEM)
    storage.save(tmp_path / "s.jsonl", h)
    assert storage.load(tmp_path / "s.jsonl").messages == h
    assert repair(h) == (h, [])
    out = compact(h, keep_recent=1, summarize=lambda t: t)
    assert validate(out) == [] and "System: Answer in French" in msgmodel.text_of(out[0])


def test_a_system_text_checks_its_argument() -> None:
    with pytest.raises(TypeError, match=r"^system_text: `s` must be a string, got list"):
        msgmodel.system_text([{"type": "text", "text": "x"}])  # type: ignore[arg-type]


@given(valid_conversations(system=True))
def test_codec_and_validator_agree_on_histories_with_system_messages(h: list[Any]) -> None:
    wire = to_api(h)
    assert from_api(wire) == h
    for model in (None, "claude-sonnet-4-6"):
        assert validate(wire, model=model) == validate(h, model=model)
    assert validate(h) == []


# ---------------------------------------------------------------------------------------
# m3, m7: what the README and the docstrings say, checked
# ---------------------------------------------------------------------------------------


def test_both_round_trips_are_as_the_readme_states_them() -> None:
    readme = (Path(msgmodel.__file__).parent.parent / "README.md").read_text()
    assert "`from_api(to_api(h)) == h`" in readme and "`to_api(from_api(d))` equals the API data `d`" in readme
    d: list[Any] = [
        {"role": "user", "content": "Run it."},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "t", "signature": None},
                {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "", "is_error": False}]},
    ]
    h = from_api(d)
    assert from_api(to_api(h)) == h
    # The defaults are left out, and nothing else changes.
    assert to_api(h) == [
        d[0],
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "t"}, d[1]["content"][1]]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"}]},
    ]
    assert to_api(h) != d and from_api(to_api(h)) == from_api(d)


def test_violation_path_counts_merged_turns_and_at_indexes_the_list() -> None:
    h = [
        user_text("a"),
        user_text("b"),  # merged with the one before: the API's turn 0
        assistant_text("c"),
        assistant_text("d"),  # merged: turn 1
        user_text("e"),
        assistant_msg([ToolUseBlock("t1", "f", {})]),  # list index 5, the API's turn 3
        user_text("no result"),
    ]
    (v,) = validate(h)
    assert (v.rule, v.path, v.at) == ("dangling_tool_use", "messages.3", "messages.5")
    assert h[int(v.at.split(".")[1])] is h[5]
    doc = msgmodel.Violation.__doc__ or ""
    assert "merged turns" in doc and "in the list you passed" in doc


def test_the_two_repairs_name_each_other() -> None:
    from msgmodel.core import compact, storage

    assert "storage.repair(path)" in (compact.repair.__doc__ or "")
    assert "compact.repair(messages)" in (storage.repair.__doc__ or "")
