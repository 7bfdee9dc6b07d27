"""Exercises of chapter 04 (one authoritative model): add a kind, match every kind, predict a path.

04.1  A new kind: for each reader of ``MINI_MODEL`` (a three-kind model of ours), once ``Image``
      joins the union, does mypy name it, does it give a wrong answer silently, or does it
      need no change? The "mypy" part of the answer comes from running mypy, the rest from
      running each reader on an image.
04.2  ``count_kinds(blocks)``: how many blocks of each wire kind a content list holds, written
      as a ``match`` over ``ContentBlock`` (an ``OpaqueBlock`` counts under its wire kind).
04.3  Predict the JSON path ``from_json`` names in its ``DecodeError`` for ``BAD_SESSION``.

Every checker judges behaviour on several cases (including the tricky ones: string content,
tool_result messages, server-side tool calls, nested tool_result content) and names the case
an answer got wrong. The expected values of 04.2 are written out with each case; 04.1's and 04.3's
come from mypy and ``from_json`` themselves, so they follow the code if it changes. The reference
solutions are in the answer key, not here.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from msgmodel.core.message import (
    ContentBlock,
    DecodeError,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    from_json,
    tool_result_block,
)
from msgmodel.course.exercises import Exercise, exercise, learner_source
from msgmodel.course.i18n import N_, _

__all__ = ["BAD_SESSION", "IMAGE_CLASS", "MINI_MODEL", "READERS_04_1", "VERDICTS_04_1", "with_image"]


def _source_tree(fn: Callable[..., Any]) -> ast.AST | None:
    """The parsed source of a learner's function, or ``None`` when it cannot be read."""
    read = learner_source(fn)
    return None if read is None else read[1]


# 04.1 a new kind: which readers does mypy point at?
# ---------------------------------------------------------------------------------------

MINI_MODEL: Final = """\
from dataclasses import dataclass
from typing import ClassVar, Literal, assert_never


@dataclass(frozen=True)
class Text:
    text: str
    type: ClassVar[Literal["text"]] = "text"


@dataclass(frozen=True)
class ToolUse:
    id: str
    name: str
    type: ClassVar[Literal["tool_use"]] = "tool_use"


@dataclass(frozen=True)
class ToolResult:
    tool_use_id: str
    output: str
    type: ClassVar[Literal["tool_result"]] = "tool_result"


Block = Text | ToolUse | ToolResult


def render(b: Block) -> str:
    match b:
        case Text():
            return b.text
        case ToolUse():
            return f"[call {b.name}]"
        case ToolResult():
            return f"[result: {b.output}]"
        case _:
            assert_never(b)


def to_wire(b: Block) -> dict[str, str]:
    if b.type == "text":
        return {"type": "text", "text": b.text}
    if b.type == "tool_use":
        return {"type": "tool_use", "id": b.id, "name": b.name}
    return {"type": "tool_result", "tool_use_id": b.tool_use_id, "content": b.output}


def label(b: Block) -> str:
    if b.type == "tool_use":
        return "call"
    if b.type == "tool_result":
        return "result"
    return "text"


def calls_of(blocks: list[Block]) -> list[ToolUse]:
    return [b for b in blocks if isinstance(b, ToolUse)]


def text_of(blocks: list[Block]) -> str:
    return "".join(b.text for b in blocks if b.type == "text")
"""
"""A model of three block kinds and five readers (ours, small on purpose): the subject of exercise 04.1."""

IMAGE_CLASS: Final = """\
@dataclass(frozen=True)
class Image:
    media_type: str
    data: str
    type: ClassVar[Literal["image"]] = "image"
"""
"""The kind exercise 04.1 adds: an image block."""

READERS_04_1: Final = tuple(re.findall(r"^def (\w+)", MINI_MODEL, re.M))
VERDICTS_04_1: Final = ("mypy", "silent", "fine")


def with_image() -> str:
    """``MINI_MODEL`` with ``Image`` defined and added to ``Block``: give it to ``type_check(..., functions=True)``."""
    union = "\n\nBlock = Text | ToolUse | ToolResult\n"
    model = MINI_MODEL.replace(union, f"\n\n{IMAGE_CLASS}{union[:-1]} | Image\n")
    assert model != MINI_MODEL
    return model


@functools.cache
def _flagged() -> frozenset[str]:
    """The readers mypy --strict reports once ``Image`` joins the union: the answer's "mypy" part, from mypy itself."""
    from msgmodel.course.teaching import type_check  # mypy is imported only when a checker needs it

    report = type_check(with_image(), functions=True)
    return frozenset(re.findall(r"in (\w+)\(\): error", report))


def _run_on_image() -> dict[str, object]:
    """What each reader returns for an image (or the list of one image), run for real."""
    scope: dict[str, Any] = {}
    exec(compile(with_image(), "mini_model.py", "exec"), scope)
    image = scope["Image"]("image/png", "iVBORw0KGgo=")
    out: dict[str, object] = {}
    for name in READERS_04_1:
        fn = scope[name]
        try:
            out[name] = fn([image]) if name in ("calls_of", "text_of") else fn(image)
        except Exception as e:  # the readers mypy flags may crash on an image
            out[name] = f"{type(e).__name__}: {e}"
    return out


_RIGHT_FOR_AN_IMAGE: Final[dict[str, object]] = {"calls_of": [], "text_of": ""}
"""What a reader that needs no change returns for an image: the readers not listed here give a wrong answer or
crash unless someone edits them (render and to_wire, which mypy names; label, which it does not)."""


def _check_new_kind(answer: Any) -> str | None:
    if not isinstance(answer, Mapping):
        return N_('answer with a dict from reader to verdict, e.g. {"render": "mypy", ...}.')
    missing = [name for name in READERS_04_1 if name not in answer]
    if missing:
        return _("{0} has no verdict yet; the readers are {1}.").format(missing[0], ", ".join(READERS_04_1))
    for name, verdict in answer.items():
        if name not in READERS_04_1:
            return _("{0!r} is not a reader of MINI_MODEL (its readers: {1}).").format(name, ", ".join(READERS_04_1))
        if verdict not in VERDICTS_04_1:
            return _("{0}: {1!r} is not a verdict; choose one of {2}.").format(name, verdict, ", ".join(VERDICTS_04_1))
    flagged, ran = _flagged(), _run_on_image()
    for name in READERS_04_1:
        fine = name in _RIGHT_FOR_AN_IMAGE and ran[name] == _RIGHT_FOR_AN_IMAGE[name]
        right = "mypy" if name in flagged else ("fine" if fine else "silent")
        given = answer[name]
        if given == right:
            continue
        if right == "mypy":
            why = (
                _("mypy names it: its match ends in assert_never, which now receives an Image.")
                if name == "render"
                else _(
                    "mypy names it: after the two ifs, b is narrowed to ToolResult | Image, and an Image has no "
                    ".tool_use_id. The last branch assumed there was one kind left."
                )
            )
        elif right == "silent":
            why = _(
                "mypy says nothing (every path returns a str), yet {0}(an image) returns {1!r}: "
                "its last line is a default that was right only while three kinds existed."
            ).format(name, ran[name])
        else:
            why = _("it keeps only the kind it asks for, so an image falls out by itself: it returns {0!r}.").format(
                ran[name]
            )
        return _("{0} is not {1!r}: {2}").format(name, given, why)
    return None


exercise(
    Exercise(
        id="04.1",
        task=N_("readers_hit: for each reader of MINI_MODEL, once Image joins Block: 'mypy', 'silent' or 'fine'"),
        goal=N_(
            "See what a new block kind costs under one typed model: mypy lists the readers that must change, "
            "except the ones that hide the kind behind a default."
        ),
        checker=_check_new_kind,
        starter=None,
        hints=(
            N_(
                "For each reader, follow an Image through it: which line does it reach, and what does mypy know "
                "about b on that line?"
            ),
            N_(
                "mypy reports a reader when an Image reaches typing.assert_never or an attribute it lacks; a final "
                "`return` after if-branches compiles for any kind. Check your mypy column with "
                "msgmodel.course.teaching.type_check(with_image(), functions=True)."
            ),
        ),
    )
)


# ---------------------------------------------------------------------------------------
# 04.2 count_kinds
# ---------------------------------------------------------------------------------------


def _count_kinds_starter(blocks: list[ContentBlock]) -> dict[str, int]: ...  # type: ignore[empty-body]  # your code here


_IMAGE: Final = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}


def _call(call_id: str, name: str, **args: Any) -> ToolUseBlock:
    return ToolUseBlock(id=call_id, name=name, input=args)


def _kinds_cases() -> list[tuple[str, list[ContentBlock], dict[str, int]]]:
    """Each case: a label, a content list, and the counts ``count_kinds`` must return for it."""
    nested = tool_result_block("toolu_01A", [TextBlock("line 1"), TextBlock("line 2"), OpaqueBlock(_IMAGE)])
    return [
        (
            "one block of each of the five classes",
            [
                TextBlock("hi"),
                ThinkingBlock("hmm", signature="c2ln"),
                _call("toolu_01A", "grep", pattern="x"),
                tool_result_block("toolu_01A", "3 matches"),
                OpaqueBlock(_IMAGE),
            ],
            {"text": 1, "thinking": 1, "tool_use": 1, "tool_result": 1, "image": 1},
        ),
        ("three text blocks", [TextBlock("a"), TextBlock("b"), TextBlock("c")], {"text": 3}),
        (
            "three opaque blocks of two wire kinds",
            [
                OpaqueBlock({"type": "redacted_thinking", "data": "EmwKAhgB"}),
                OpaqueBlock(_IMAGE),
                OpaqueBlock({"type": "redacted_thinking", "data": "Eo0CCkYI"}),
            ],
            {"redacted_thinking": 2, "image": 1},
        ),
        ("a tool_result whose content is a list of blocks (count the top level only)", [nested], {"tool_result": 1}),
        ("an empty list", [], {}),
    ]


def _has_match(fn: Callable[..., Any]) -> str | None:
    tree = _source_tree(fn)
    if tree is None or any(isinstance(node, ast.Match) for node in ast.walk(tree)):
        return None
    return N_(
        "the counts are right, but the exercise is to write it as a `match` over the block "
        "(`case TextBlock(): ...`, one case per class, `case _: assert_never(b)`), "
        "so that mypy can check you covered all five."
    )


def _check_count_kinds(fn: Any) -> str | None:
    if not callable(fn):
        return _("give the function itself (count_kinds), not {0!r}.").format(fn)
    for label, blocks, expected in _kinds_cases():
        got = fn(list(blocks))
        if not isinstance(got, dict):
            return _("return a dict (kind → count), got {0!r} for {1}.").format(got, label)
        got_nonzero = {k: v for k, v in got.items() if v != 0}
        if got_nonzero == expected:
            continue
        why = ""
        if "opaque" in got_nonzero:
            why = _(
                ' An OpaqueBlock counts under its wire kind, `b.kind` ("image", "redacted_thinking"), not "opaque".'
            )
        elif sum(got_nonzero.values()) > len(blocks):
            why = _(" Count the blocks of the list itself; a tool_result's own content blocks are not counted.")
        elif missing := sorted(set(expected) - set(got_nonzero)):
            why = _(" Not counted: {0}. Does your `match` have a case for every class?").format(", ".join(missing))
        return _("for {0}, expected {1!r}, got {2!r}.{3}").format(label, expected, got, why)
    return _has_match(fn)


exercise(
    Exercise(
        id="04.2",
        goal=N_("Dispatch on the tag with match and assert_never, so that mypy proves every block kind is handled."),
        task=N_("count_kinds(blocks): blocks per wire kind as a match over ContentBlock (OpaqueBlock by its kind)"),
        checker=_check_count_kinds,
        starter=_count_kinds_starter,
        hints=(
            N_(
                "Every block is one of five classes. Four carry their wire kind in .type; the fifth keeps the kind "
                "it was"
                " decoded with."
            ),
            N_(
                "In a match a case can list several classes with |; an OpaqueBlock's wire kind is .kind; end with "
                "case _:"
                " assert_never(b) (typing.assert_never) so mypy proves every class is handled."
            ),
        ),
    )
)


# ---------------------------------------------------------------------------------------
# 04.3 predict the DecodeError path
# ---------------------------------------------------------------------------------------

BAD_SESSION: Final = b"""[
  {"role": "user", "content": "Why does fetch() give up?"},
  {"role": "assistant", "content": [
    {"type": "text", "text": "Let me read it."},
    {"type": "tool_use", "id": "toolu_01A", "name": "read_file", "input": {"path": "src/app.py"}}
  ]},
  {"role": "user", "content": [
    {"type": "tool_result", "tool_use_id": "toolu_01A", "content": [
      {"type": "text", "text": "import time"},
      {"text": "def fetch(url, session, retries=None):"}
    ]}
  ]}
]"""
"""The session of exercise 04.3: JSON that ``from_json`` refuses (one block lost its ``type``)."""


def _decode_error_path() -> str:
    try:
        from_json(BAD_SESSION)
    except DecodeError as e:
        return e.path
    raise AssertionError("BAD_SESSION decoded without error")  # pragma: no cover


def _check_path(answer: Any) -> str | None:
    if not isinstance(answer, str):
        return _('give the path as a string, such as "$[0].content", got {0!r}.').format(answer)
    guess = "".join(answer.split())
    right = _decode_error_path()
    if guess == right:
        return None
    if guess.startswith("messages."):
        return N_(
            "that is the API's path style (`messages.2.content.0`). DecodeError writes a JSONPath: `$` is the "
            "whole array, `[i]` an element (from 0), `.name` a field; e.g. `$[0].content`."
        )
    if not guess.startswith("$"):
        return N_("a DecodeError path starts at `$`, the whole JSON array, e.g. `$[0].content`.")
    if right.startswith(guess):
        return _(
            "right track: {0} leads there, but the decoder goes deeper. It names the field it could not read, not "
            "the message or block around it."
        ).format(guess)
    if guess.startswith("$[3]") or "content[2]" in guess:
        return N_("indices count from 0: the first message is `$[0]`, the first block of a content list `content[0]`.")
    if guess.endswith(".text") or guess.endswith("]"):
        return N_(
            "look at what the broken block lacks rather than what it has: which field does every content block "
            "need before the decoder can know its kind?"
        )
    return N_(
        "not the path from_json names. Walk the JSON from `$` (the array): which message, which block, "
        "which nested block, which field?"
    )


exercise(
    Exercise(
        id="04.3",
        goal=N_(
            "Read the codec's errors: the boundary names the JSON path of what it refuses, so bad data stops there."
        ),
        task=(
            N_(
                "predict the path from_json(BAD_SESSION) names in its DecodeError (err.path). The convention: a "
                "JSONPath "
                "from the whole document, $ the top-level array, [i] an element counted from 0, .name a field, down to "
                "the innermost field the decoder could not read (a message without role gives $[0].role)"
            )
        ),
        checker=_check_path,
        starter=...,
        hints=(
            N_(
                'Find the block that has no "type": the decoder needs it before it can choose a class. Indices count '
                "from"
                " 0."
            ),
            N_(
                "msgmodel.core.message.DecodeError.path is a JSONPath from the whole document: $ the top-level "
                "array, [i]"
                " an element, .name a "
                "field, down to the field that is missing (a message without role gives $[0].role)."
            ),
        ),
    )
)
