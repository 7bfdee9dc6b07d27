"""Exercises of chapter 04 (one authoritative model): read with readers, match every kind, predict a path.

04.1  ``tool_names_of(messages)``: the names of the tools the assistant called, in order, one
      per call, written with the readers of ``msgmodel.core.message`` only.
04.2  ``count_kinds(blocks)``: how many blocks of each wire kind a content list holds, written
      as a ``match`` over ``ContentBlock`` (an ``OpaqueBlock`` counts under its wire kind).
04.3  Predict the JSON path ``from_json`` names in its ``DecodeError`` for ``BAD_SESSION``.

Every checker judges behaviour on several cases (including the tricky ones: string content,
tool_result messages, server-side tool calls, nested tool_result content) and names the case
an answer got wrong. The expected values of 04.1 and 04.2 are written out with each case; 04.3's
comes from ``from_json`` itself, so it follows ``message.py`` if that changes. The reference
solutions are in the answer key, not here.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable
from typing import Any, Final

from msgmodel.core.message import (
    ContentBlock,
    DecodeError,
    Message,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    assistant_msg,
    assistant_text,
    blocks_of,
    from_json,
    is_plain_text,
    text_of,
    tool_result_block,
    tool_result_msg,
    user_text,
)
from msgmodel.course.exercises import Exercise, exercise
from msgmodel.course.i18n import N_, _

__all__ = ["BAD_SESSION"]


def _source_tree(fn: Callable[..., Any]) -> ast.AST | None:
    """The parsed source of a learner's function, or ``None`` when it cannot be read."""
    try:
        return ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return None


def _show(messages: list[Message]) -> str:
    lines = []
    for i, m in enumerate(messages):
        if is_plain_text(m):
            lines.append(f"    {i}  {m.role}: {text_of(m)!r}")
            continue
        kinds = []
        for b in blocks_of(m):
            if b.type == "tool_use":
                kinds.append(f"tool_use {b.name}")
            elif b.type == "opaque":
                kinds.append(f"{b.kind} (OpaqueBlock)")
            else:
                kinds.append(b.type)
        lines.append(f"    {i}  {m.role}: [{', '.join(kinds)}]")
    return "\n".join(lines) or "    (no messages)"


# ---------------------------------------------------------------------------------------
# 04.1 tool_names_of
# ---------------------------------------------------------------------------------------


def _tool_names_of_starter(messages: list[Message]) -> None: ...  # your code here


def _call(call_id: str, name: str, **args: Any) -> ToolUseBlock:
    return ToolUseBlock(id=call_id, name=name, input=args)


def _names_cases() -> list[tuple[str, list[Message], list[str]]]:
    """Each case: a label, a history, and the names ``tool_names_of`` must return for it."""
    grep = _call("toolu_01A", "grep", pattern="retries", path="src/config.py")
    read = _call("toolu_01B", "read_file", path="src/settings.py")
    again = _call("toolu_01C", "read_file", path="src/app.py")
    web = OpaqueBlock({"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "x"}})
    return [
        (
            "a turn with thinking, text and two parallel calls",
            [
                user_text("How many retries does the client make?"),
                assistant_msg([ThinkingBlock("Search first.", signature="c2ln"), TextBlock("Looking."), grep, read]),
                tool_result_msg(
                    [
                        tool_result_block("toolu_01A", 'DEFAULTS = {"retries": 3}'),
                        tool_result_block("toolu_01B", "no such file", is_error=True),
                    ]
                ),
                assistant_msg([TextBlock("Three.")]),
            ],
            ["grep", "read_file"],
        ),
        (
            "the same tool called in two turns (keep one name per call, duplicates included)",
            [
                user_text("Read the app."),
                assistant_msg([read]),
                tool_result_msg([tool_result_block("toolu_01B", "no such file", is_error=True)]),
                assistant_msg([TextBlock("Searching instead."), grep]),
                tool_result_msg([tool_result_block("toolu_01A", "src/config.py:5: ...")]),
                assistant_msg([again]),
            ],
            ["read_file", "grep", "read_file"],
        ),
        (
            "a server-side web search (an OpaqueBlock `server_tool_use`: the API ran it, not your client)",
            [user_text("Search the web."), assistant_msg([web, TextBlock("Found it.")])],
            [],
        ),
        ("plain text only (string content everywhere)", [user_text("hi"), assistant_text("hello")], []),
        ("no messages at all", [], []),
    ]


def _uses_only_readers(fn: Callable[..., Any]) -> str | None:
    tree = _source_tree(fn)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "content":
            return N_(
                "it returns the right names, but it reads `.content` itself. The point of the exercise is that "
                "only message.py walks content: use the readers (`tool_uses_of`, `blocks_of`) instead."
            )
    return None


def _check_tool_names_of(fn: Any) -> str | None:
    if not callable(fn):
        return _("give the function itself (tool_names_of), not {0!r}.").format(fn)
    for label, messages, expected in _names_cases():
        got = fn(list(messages))
        if not isinstance(got, list):
            return _("return a list of names (list[str]), got {0!r} for {1}.").format(got, label)
        if got == expected:
            continue
        why = ""
        if any(isinstance(x, ToolUseBlock) for x in got):
            why = " Return the names (`call.name`), not the blocks."
        elif "web_search" in got:
            why = " A server_tool_use is an OpaqueBlock that the API ran itself; `tool_uses_of` leaves it out."
        elif any(isinstance(x, str) and x.startswith("toolu_") for x in got):
            why = " Those are ids; the tool_result blocks carry ids, the tool_use blocks carry names."
        elif sorted(set(got)) == sorted(set(expected)) and len(got) < len(expected):
            why = " One entry per call: a tool called twice appears twice."
        return _("for {0}, expected {1!r}, got {2!r}.{3}\n{4}").format(label, expected, got, why, _show(messages))
    return _uses_only_readers(fn)


exercise(
    Exercise(
        id="04.1",
        task=N_(
            "tool_names_of(messages): names of the tools called, in order, one per call; only readers, no .content"
        ),
        checker=_check_tool_names_of,
        starter=_tool_names_of_starter,
        hints=(
            N_(
                "One name per call, in order. A message can hold several calls; string content and tool results hold "
                "none; server tool blocks are not client calls."
            ),
            N_(
                "msgmodel.core.message.tool_uses_of(m) gives a message's ToolUseBlocks (each has .name), whatever the "
                "content's shape."
            ),
        ),
    )
)


# ---------------------------------------------------------------------------------------
# 04.2 count_kinds
# ---------------------------------------------------------------------------------------


def _count_kinds_starter(blocks: list[ContentBlock]) -> dict[str, int]: ...  # type: ignore[empty-body]  # your code here


_IMAGE: Final = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}


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
            why = ' An OpaqueBlock counts under its wire kind, `b.kind` ("image", "redacted_thinking"), not "opaque".'
        elif sum(got_nonzero.values()) > len(blocks):
            why = " Count the blocks of the list itself; a tool_result's own content blocks are not counted."
        elif missing := sorted(set(expected) - set(got_nonzero)):
            why = f" Not counted: {', '.join(missing)}. Does your `match` have a case for every class?"
        return _("for {0}, expected {1!r}, got {2!r}.{3}").format(label, expected, got, why)
    return _has_match(fn)


exercise(
    Exercise(
        id="04.2",
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
