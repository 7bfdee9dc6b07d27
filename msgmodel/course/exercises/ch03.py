"""Exercises of chapter 03 (the root cause): find the copies, type the slip away, name the knowledge.

* ``03.1`` (read the code): which functions of ``COPIES_SNIPPET`` carry their own copy of
  "is this block a tool result?"; the learner answers with a list of function names.
* ``03.2`` (write code, checked by mypy): a ``TypedDict`` for a ``tool_result`` block that
  makes ``mypy --strict`` reject the ``toolUseId`` slip and still accept correct results. The
  checker rebuilds the learner's class as source, adds six small functions that return
  results (three right, three wrong) and runs mypy on the file through ``mypy.api``.
* ``03.3`` (classify): the piece of knowledge (``msgmodel.course.knowledge.PIECES``) each line of
  ``CLASSIFY_LINES`` holds.
"""

import itertools
import re
import tempfile
import types
import typing
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final, Literal, TypedDict

from msgmodel.course.exercises import Exercise, exercise
from msgmodel.course.exercises.closed import closed
from msgmodel.course.i18n import N_, _
from msgmodel.course.knowledge import PIECES
from msgmodel.course.teaching import mypy_ini

__all__ = ["CLASSIFY_LINES", "COPIES_SNIPPET"]


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


def _check_copies(answer: object) -> str | None:
    names = _as_names(answer)
    if isinstance(names, str):
        return names
    unknown = sorted(set(names) - set(_FUNCTIONS))
    if unknown:
        return _("{0!r} is not a function of the snippet (its functions: {1}).").format(
            unknown[0], ", ".join(_FUNCTIONS)
        )
    chosen = set(names)
    answers = closed("03.1")
    given = {name: "chosen" if name in chosen else "left out" for name in _FUNCTIONS}
    for name in _FUNCTIONS:  # in source order, so the hint follows the reading
        if given[name] == "chosen" and not answers.is_right(name, "chosen"):
            return answers.feedback(name, "chosen") or f"`{name}` holds no copy."
    copies = [name for name in _FUNCTIONS if answers.is_right(name, "chosen")]
    missed = [name for name in copies if given[name] == "left out"]
    if missed:
        return _("{0} of {1} found; {2}").format(
            len(copies) - len(missed), len(copies), answers.feedback(missed[0], "left out")
        )
    return None


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


# ---------------------------------------------------------------------------------------
# 03.3: which piece of knowledge is this?
# ---------------------------------------------------------------------------------------

CLASSIFY_LINES: Final[Mapping[str, str]] = {
    "A": 'calls = [b for b in reply["content"] if b["type"] == "tool_use"]',
    "B": 'return "".join(b.get("text", "") for b in content if b.get("type") == "text")',
    "C": 'results.append({"type": "tool_result", "tool_use_id": call["id"], "content": output})',
    "D": 'return [{"role": "user", "content": SUMMARY_PREFIX + summary}, *tail]',
    "E": 'return f"[call {b[\'name\']}]" if b["type"] == "tool_use" else f"[result: {b[\'content\']}]"',
    "F": "return \"\\n\".join(f\"{m['role']}: {m['content']}\" for m in history)",
    "G": 'answered = {b["tool_use_id"] for b in m["content"] if "tool_use_id" in b}',
}
"""Seven lines from dict-based agent code; each holds exactly one piece of ``PIECES``."""

_STARTER_03_3: Final[dict[str, str | None]] = {}  # the blank the notebook hands out


def _check_classification(answer: object) -> str | None:
    if not isinstance(answer, Mapping):
        return N_('answer with a dict from letter to piece, e.g. `{"A": "find tool calls", ...}`.')
    missing = [k for k in CLASSIFY_LINES if answer.get(k) is None]
    if missing:
        return _("line {0} has no answer yet; choose one of: {1}.").format(missing[0], ", ".join(PIECES))
    extra = sorted(str(k) for k in answer if k not in CLASSIFY_LINES)
    if extra:
        return _("there is no line {0!r}; the lines are {1}.").format(extra[0], ", ".join(CLASSIFY_LINES))
    for key in CLASSIFY_LINES:
        given = answer[key]
        if given not in PIECES:
            return _("line {0}: {1!r} is not a piece of knowledge; choose one of: {2}.").format(
                key, given, ", ".join(PIECES)
            )
    answers = closed("03.3")
    wrong = [k for k in CLASSIFY_LINES if not answers.is_right(k, str(answer[k]))]
    if wrong:
        k = wrong[0]
        right = len(CLASSIFY_LINES) - len(wrong)
        return _(
            "{0} of {1} right. Line {2} (`{3}`) is not {4!r}: look again at what it asks of the data. Hint: {5}"
        ).format(right, len(CLASSIFY_LINES), k, CLASSIFY_LINES[k], answer[k], _hint_without_answer(k))
    return None


def _hint_without_answer(key: str) -> str:
    return {
        "A": "which blocks does it keep?",
        "B": "what does it return?",
        "C": "does it read a block, or make one?",
        "D": "is that dict a block or a turn?",
        "E": "how many kinds does it treat differently?",
        "F": "does it ever look at a block's type?",
        "G": "which kind of block carries `tool_use_id`?",
    }[key]


# ---------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------

exercise(
    Exercise(
        id="03.1",
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
            "Name the piece of knowledge (one of msgmodel.course.knowledge.PIECES) each line of CLASSIFY_LINES holds."
        ),
        checker=_check_classification,
        starter=_STARTER_03_3,
        hints=(
            N_(
                "For each line, ask what it must know about a block or a message: how to find it, how to read it, "
                "how to "
                "build it, how to tell its kind?"
            ),
            N_(
                "The names to choose from are msgmodel.course.knowledge.PIECES; print them and match each line of "
                "CLASSIFY_LINES to exactly one."
            ),
        ),
    )
)
