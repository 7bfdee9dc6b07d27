"""Exercises of chapter 03 (the root cause): find the copies, type the slip away, keep the authority.

* ``03.1`` (read the code): which functions of ``COPIES_SNIPPET`` carry their own copy of
  "is this block a tool result?"; the learner answers with a list of function names.
* ``03.2`` (write code, checked by mypy): a ``TypedDict`` for a ``tool_result`` block that
  makes ``mypy --strict`` reject the ``toolUseId`` slip and still accept correct results. The
  checker rebuilds the learner's class as source, adds six small functions that return
  results (three right, three wrong) and runs mypy on the file through ``mypy.api``.
* ``03.3`` (review new code): which functions of ``REVIEW_SNIPPET``, written against the typed
  model, still go around it (read ``.content`` or the wire dicts by hand, or build a message dict).
"""

import itertools
import re
import tempfile
import types
import typing
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Final, Literal, TypedDict

from msgmodel.course.exercises import Exercise, exercise
from msgmodel.course.exercises.closed import closed
from msgmodel.course.i18n import N_, _
from msgmodel.course.teaching import mypy_ini

__all__ = ["COPIES_SNIPPET", "REVIEW_SNIPPET"]


# ---------------------------------------------------------------------------------------
# 03.1: count the copies of "is this a tool result?"
# ---------------------------------------------------------------------------------------

COPIES_SNIPPET: Final = '''\
def needs_answer(m):
    return any(b["type"] == "tool_use" for b in m["content"])

def is_result_turn(m):
    return isinstance(m["content"], list) and any(b.get("type") == "tool_result" for b in m["content"])

def answered_ids(m):
    return [b["tool_use_id"] for b in m["content"] if "tool_use_id" in b]

def error_result(call_id, e):
    return {"type": "tool_result", "tool_use_id": call_id, "content": str(e), "is_error": True}

def safe_start(m):
    return m.role == "user" and not is_tool_result_message(m)

def label(b):
    kind = b["type"]
    if kind == "text":
        return b["text"]
    if kind in ("tool_result", "web_search_tool_result"):
        return "[result]"
    return f"[{kind}]"

def count_results(history):
    """How many tool_result blocks the history holds."""
    return sum(len(tool_results_of(m)) for m in history)
'''
"""Seven small functions on wire dicts (and two on ``Message``); three hold a copy."""

_FUNCTIONS: Final = tuple(re.findall(r"^def (\w+)", COPIES_SNIPPET, re.M))


def _as_names(answer: object) -> list[str] | str:
    if isinstance(answer, str) or not isinstance(answer, Iterable):
        return N_("answer with a list of function names, e.g. `['is_result_turn']`.")
    names = list(answer)
    bad = [n for n in names if not isinstance(n, str)]
    if bad:
        return _("every item must be a function name (a string); got {0!r}.").format(bad[0])
    return [n.strip().removesuffix("()") for n in names]


def _check_chosen(
    answer: object, functions: Sequence[str], exercise_id: str, no_copy: Callable[[str], str]
) -> str | None:
    """Judge a list of function names against the closed answers of ``exercise_id``: names the snippet does not
    define, a function chosen wrongly (its feedback, else ``no_copy(name)``), then the copies left out."""
    names = _as_names(answer)
    if isinstance(names, str):
        return names
    unknown = sorted(set(names) - set(functions))
    if unknown:
        return _("{0!r} is not a function of the snippet (its functions: {1}).").format(
            unknown[0], ", ".join(functions)
        )
    chosen = set(names)
    answers = closed(exercise_id)
    given = {name: "chosen" if name in chosen else "left out" for name in functions}
    for name in functions:  # in source order, so the hint follows the reading
        if given[name] == "chosen" and not answers.is_right(name, "chosen"):
            return answers.feedback(name, "chosen") or no_copy(name)
    copies = [name for name in functions if answers.is_right(name, "chosen")]
    missed = [name for name in copies if given[name] == "left out"]
    if missed:
        return _("{0} of {1} found; {2}").format(
            len(copies) - len(missed), len(copies), answers.feedback(missed[0], "left out")
        )
    return None


def _check_copies(answer: object) -> str | None:
    return _check_chosen(answer, _FUNCTIONS, "03.1", lambda name: _("`{0}` holds no copy.").format(name))


# ---------------------------------------------------------------------------------------
# 03.2: a TypedDict that makes mypy reject the slip
# ---------------------------------------------------------------------------------------


class _Starter(TypedDict):
    """The notebook's starting point: a TypedDict with no fields yet."""


_Case = tuple[str, str, bool, str]  # (function name, its body, must mypy accept it?, what it is)

_CASES: Final[tuple[_Case, ...]] = (
    (
        "happy",
        '{"type": "tool_result", "tool_use_id": call_id, "content": "def fetch(url): ..."}',
        True,
        "a successful result",
    ),
    (
        "failed",
        '{"type": "tool_result", "tool_use_id": call_id, "content": "no such file", "is_error": True}',
        True,
        "a failed result with `is_error`",
    ),
    (
        "blocks",
        '{"type": "tool_result", "tool_use_id": call_id, "content": [{"type": "text", "text": "42"}]}',
        True,
        "a result whose content is a list of blocks (the API accepts `str | list`)",
    ),
    (
        "slip",
        '{"type": "tool_result", "toolUseId": call_id, "content": "no such file", "is_error": True}',
        False,
        "the slip: `toolUseId` instead of `tool_use_id`",
    ),
    (
        "no_id",
        '{"type": "tool_result", "content": "def fetch(url): ..."}',
        False,
        "a result with no `tool_use_id` at all (the API answers `tool_result.tool_use_id: Field required`)",
    ),
    (
        "wrong_kind",
        '{"type": "tool_use", "tool_use_id": call_id, "content": "def fetch(url): ..."}',
        False,
        'a "tool_result" whose `type` says "tool_use"',
    ),
)


class _Source:
    """Collects the source of a TypedDict (and the TypedDicts it uses) plus the imports it needs."""

    def __init__(self) -> None:
        self.imports: set[str] = {"typing"}
        self.classes: list[str] = []
        self.done: set[type] = set()

    def typeddict(self, cls: type) -> str:
        if cls not in self.done:
            self.done.add(cls)
            try:
                hints: dict[str, Any] = typing.get_type_hints(cls, include_extras=True)
            except Exception:  # a name the annotations use is gone: show them as written
                hints = dict(getattr(cls, "__annotations__", {}))
            optional: frozenset[str] = getattr(cls, "__optional_keys__", frozenset())
            fields = []
            for key, hint in hints.items():
                origin = typing.get_origin(hint)
                is_optional = origin is typing.NotRequired or (key in optional and origin is not typing.Required)
                text = self.type(_strip_required(hint))
                fields.append(f"{key!r}: typing.NotRequired[{text}]" if is_optional else f"{key!r}: {text}")
            self.classes.append(f"{cls.__name__} = typing.TypedDict({cls.__name__!r}, {{{', '.join(fields)}}})")
        return cls.__name__

    def type(self, hint: object) -> str:
        if hint is None or hint is type(None):
            return "None"
        if hint is Any:
            return "typing.Any"
        if isinstance(hint, str):
            return hint
        if isinstance(hint, typing.ForwardRef):
            return hint.__forward_arg__
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin is Literal:
            return f"typing.Literal[{', '.join(repr(a) for a in args)}]"
        if origin in (typing.Union, types.UnionType):
            return " | ".join(self.type(a) for a in args)
        if origin is not None:
            if not args:
                return self.type(origin)
            return f"{self.type(origin)}[{', '.join(self.type(a) for a in args)}]"
        if isinstance(hint, type):
            if typing.is_typeddict(hint) and hint.__module__ == "__main__":
                return self.typeddict(hint)
            if hint.__module__ == "builtins":
                return hint.__qualname__
            self.imports.add(hint.__module__)
            return f"{hint.__module__}.{hint.__qualname__}"
        return repr(hint)


def _strip_required(hint: object) -> object:
    while typing.get_origin(hint) in (typing.Required, typing.NotRequired):
        hint = typing.get_args(hint)[0]
    return hint


def _typeddict_module(cls: type) -> tuple[str, dict[int, str]]:
    """The source mypy checks: the class, then one function per case; and the line of each case's return."""
    src = _Source()
    name = src.typeddict(cls)
    lines = [*(f"import {m}" for m in sorted(src.imports)), "", *src.classes, ""]
    at: dict[int, str] = {}
    for case, body, _expected, _why in _CASES:
        lines += ["", f"def {case}(call_id: str) -> {name}:", f"    return {body}"]
        at[len(lines)] = case
    return "\n".join(lines) + "\n", at


_counter = itertools.count(1)
_scratch: tempfile.TemporaryDirectory[str] | None = None


def _run_mypy(source: str) -> list[tuple[int, str]]:
    """``(line, message)`` of each mypy --strict error in ``source`` (checked as a fresh module)."""
    global _scratch
    from mypy import api  # lazy: mypy is a development tool, only this checker needs it

    if _scratch is None:
        _scratch = tempfile.TemporaryDirectory(prefix="msgmodel-ch03-")
        # The answer may use msgmodel's types: mypy_ini says where mypy finds them, checkout or installed.
        (Path(_scratch.name) / "mypy.ini").write_text(mypy_ini(), encoding="utf-8")
    folder = Path(_scratch.name)
    path = folder / f"answer_{next(_counter)}.py"  # a new module each time: the cache never goes stale
    path.write_text(source, encoding="utf-8")
    config = str(folder / "mypy.ini")
    out, err, _ = api.run(
        ["--strict", "--config-file", config, "--no-color-output", "--cache-dir", str(folder / "cache"), str(path)]
    )
    errors = []
    for line in out.splitlines():
        m = re.match(rf"(?:.*[/\\])?{re.escape(path.name)}:(\d+): error: (.*)$", line)
        if m:
            errors.append((int(m.group(1)), m.group(2)))
    if not errors and "error" in err:
        errors.append((0, err.strip().splitlines()[-1]))
    return errors


def _check_typeddict(answer: object) -> str | None:
    if not (isinstance(answer, type) and typing.is_typeddict(answer)):
        got = answer.__name__ if isinstance(answer, type) else type(answer).__name__
        return _("pass the class itself, a TypedDict (`class ToolResultParam(TypedDict): ...`); got {0}.").format(got)
    fields = getattr(answer, "__annotations__", {})
    if "toolUseId" in fields:
        return N_(
            "your TypedDict declares `toolUseId`, the slip itself: mypy would now accept it. "
            "The wire name is `tool_use_id`."
        )
    if "tool_use_id" not in fields:
        return N_(
            "your TypedDict has no `tool_use_id` field, so mypy would reject every correct result as "
            "'extra key'. Declare the fields a tool_result block has: type, tool_use_id, content, is_error."
        )
    source, at = _typeddict_module(answer)
    errors = _run_mypy(source)
    class_errors = [msg for line, msg in errors if line not in at]
    if class_errors:
        return _("mypy cannot use your class: {0}").format(class_errors[0])
    rejected = {at[line]: msg for line, msg in reversed(errors) if line in at}
    for case, body, must_pass, what in _CASES:
        if must_pass and case in rejected:
            return _("mypy rejects {0}, which is correct: `{1}`. mypy said: {2}").format(what, body, rejected[case])
    for case, body, must_pass, what in _CASES:
        if not must_pass and case not in rejected:
            fix = {
                "no_id": "make `tool_use_id` required (no `NotRequired`, no `total=False`).",
                "wrong_kind": 'type the tag: `type: Literal["tool_result"]`, not `str`.',
            }.get(case, "every key must be declared with its exact wire name.")
            return _("mypy accepts {0}: `{1}`. To catch it, {2}").format(what, body, fix)
    return None


# 03.3: review new code: which functions go around the model?
# ---------------------------------------------------------------------------------------

REVIEW_SNIPPET: Final = """\
from msgmodel import Message, blocks_of, message_to_text, to_api, tool_results_of, tool_uses_of

def cost_badge(m: Message) -> str:
    return f"{len(tool_uses_of(m))} tool calls"

def first_words(m: Message) -> str:
    if isinstance(m.content, str):
        return m.content[:40]
    return next((b.text for b in m.content if b.type == "text"), "")[:40]

def has_image(m: Message) -> bool:
    return any(b.type == "opaque" and b.kind == "image" for b in blocks_of(m))

def export_row(history: list[Message]) -> dict[str, int]:
    wire = to_api(history)
    calls = sum(1 for m in wire if isinstance(m["content"], list) for b in m["content"] if b["type"] == "tool_use")
    return {"turns": len(history), "calls": calls}

def failed_tools(history: list[Message]) -> list[str]:
    names = {u.id: u.name for m in history for u in tool_uses_of(m)}
    return [names.get(r.tool_use_id, "?") for m in history for r in tool_results_of(m) if r.is_error]

def search_queries(m: Message) -> list[str]:
    return [b.raw["input"]["query"] for b in blocks_of(m) if b.type == "opaque" and b.raw["type"] == "server_tool_use"]

def as_prompt(text: str) -> dict[str, object]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}

def preview(m: Message) -> str:
    return message_to_text(m)[:80]
"""
"""Eight functions from a pull request written after the refactor (ours); four go around the model."""

_REVIEWED: Final = tuple(re.findall(r"^def (\w+)", REVIEW_SNIPPET, re.M))


def _check_review(answer: object) -> str | None:
    return _check_chosen(
        answer, _REVIEWED, "03.3", lambda name: _("`{0}` asks the model; it holds no copy.").format(name)
    )


# ---------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------

exercise(
    Exercise(
        id="03.1",
        goal=N_("Count the copies of one piece of knowledge, however each is spelled: the root cause of both bugs."),
        task=N_('List the functions of COPIES_SNIPPET that carry their own copy of "is this block a tool result?".'),
        checker=_check_copies,
        starter=[],
        hints=(
            N_(
                "Read each function and ask: does it decide by itself whether a block is a tool result, or does it ask "
                "another function?"
            ),
            N_(
                "A function that calls another one to decide carries no copy of its own. "
                "msgmodel.course.knowledge.scan_source(COPIES_SNIPPET) lists the sites where the knowledge is written "
                "out, to compare with your list."
            ),
        ),
    )
)
exercise(
    Exercise(
        id="03.2",
        goal=N_(
            "Give the checker a type to check: a TypedDict makes mypy see the slip that dict[str, Any] lets through."
        ),
        task=N_("Write a TypedDict for a tool_result block that makes mypy reject the toolUseId slip."),
        checker=_check_typeddict,
        starter=_Starter,
        hints=(
            N_(
                "mypy can reject a misspelled key only if the dict's type lists the keys it allows. Which keys does a "
                "tool_result have, and which may be absent?"
            ),
            N_(
                'typing.TypedDict with typing.Literal for the "type" key and typing.NotRequired for the optional keys; '
                "mypy --strict then rejects any key the class does not declare."
            ),
        ),
    )
)
exercise(
    Exercise(
        id="03.3",
        task=N_(
            "List the functions of REVIEW_SNIPPET that go around the model (read or build a message's shape by hand)."
        ),
        goal=N_(
            "Keep one authority once it exists: spot, in code written after the refactor, the new copies of how to "
            "read or build a message, however they are spelled."
        ),
        checker=_check_review,
        starter=[],
        hints=(
            N_(
                "For each function ask: does it get its answer from a constructor, a reader or a block's own "
                "attributes (.type, .text, .name, .kind), or does it look at the wire shape itself?"
            ),
            N_(
                "Three spellings of a copy: reading Message.content by hand, reading the wire dicts (to_api's output, "
                'an OpaqueBlock\'s .raw) by key, writing a {"role": ..., "content": ...} dict. '
                "msgmodel.course.knowledge.scan_model_bypasses and scan_source see some of them, not all."
            ),
        ),
    )
)
