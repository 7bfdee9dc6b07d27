"""The interview drill's model answers (chapter 06, ``DRILL``) say only what the package does.

The claims checked here are the ones no chapter cell shows: what frozen means for hashing (I5), and
how an invariant is tested (I10: every cut, as ``tests/test_compact_properties.py`` does).
"""

from __future__ import annotations

import copy
from typing import get_args

import pytest

from msgmodel import ContentBlock, OpaqueBlock, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock
from msgmodel.course.exercises.ch06 import DRILL


def _answer(start: str) -> str:
    return next(d.answer for d in DRILL if d.question.startswith(start))


# One block of every kind, each with only immutable fields, and each with a dict or list inside.
IMMUTABLE = [
    TextBlock("hi"),
    ThinkingBlock("plan", signature="c2ln"),
    ToolResultBlock(tool_use_id="toolu_01", content="3 matches"),
    OpaqueBlock({"type": "redacted_thinking", "data": "EmwK"}),
]
HOLDS_A_DICT_OR_LIST = [
    ToolUseBlock(id="toolu_01", name="grep", input={}),  # input is always a dict
    ToolResultBlock(tool_use_id="toolu_01", content=[TextBlock("3 matches")]),
    TextBlock("hi", extra={"cache_control": {"type": "ephemeral"}}),
]


def test_every_block_class_is_covered() -> None:
    assert {type(b) for b in IMMUTABLE + HOLDS_A_DICT_OR_LIST} == set(get_args(ContentBlock))


@pytest.mark.parametrize("block", IMMUTABLE, ids=lambda b: type(b).__name__)
def test_a_block_whose_fields_are_all_immutable_hashes_like_an_equal_one(block: object) -> None:
    twin = copy.deepcopy(block)
    assert twin == block and twin is not block
    assert hash(twin) == hash(block)


@pytest.mark.parametrize("block", HOLDS_A_DICT_OR_LIST, ids=lambda b: type(b).__name__)
def test_frozen_is_shallow_so_a_block_holding_a_dict_or_list_cannot_be_hashed(block: object) -> None:
    with pytest.raises(TypeError, match="unhashable type"):
        hash(block)


def test_the_i5_answer_says_what_hashing_does() -> None:
    answer = _answer("Why are the blocks frozen?")
    assert "hashable" not in answer  # it once said frozen "makes blocks hashable": false for every tool_use
    assert "cannot be hashed" in answer and "shallow" in answer


def test_the_i10_answer_cuts_at_every_place_as_the_suite_does() -> None:
    answer = _answer("How do you test an invariant")
    assert "every place" in answer and "random place" not in answer
