"""Exercises of chapter 02 (lost tool context, step 30): render, read, predict.

* ``02.1`` (write code): ``render_block(b)`` for a block *dict*, keeping what a summarizer
  needs (tool name and arguments, result text, the failure flag), checked on tricky blocks.
* ``02.2`` (read the model): which questions a copy-#2 transcript of ``QUIZ_HISTORY`` can
  answer; the learner answers with a set of letters from ``QUIZ_QUESTIONS``.
* ``02.3`` (predict the API): which of the hand-built ``tool_result`` dicts in ``HAND_BUILT``
  the API refuses; the checker asks ``msgmodel.core.protocol.validate`` and quotes its text. Every
  case is one whose outcome api-rules.md has from live captures or public reports; slips whose
  outcome is only msgmodel's reading (``isError``, ``content: None``) are left out on purpose.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, cast

from msgmodel.api.demo_tools import DEMO_FILES
from msgmodel.core.message import (
    Message,
    OpaqueBlock,
    TextBlock,
    ToolUseBlock,
    assistant_msg,
    block_to_api,
    to_api,
    tool_result_block,
    tool_result_msg,
    user_text,
)
from msgmodel.course.exercises import Exercise, exercise
from msgmodel.course.exercises.closed import closed
from msgmodel.course.i18n import N_, _

__all__ = ["HAND_BUILT", "QUIZ_HISTORY", "QUIZ_QUESTIONS"]


def _rename(d: Mapping[str, Any], old: str, new: str) -> dict[str, Any]:
    """``d`` with the key ``old`` spelled ``new``, in the same position."""
    return {(new if k == old else k): v for k, v in d.items()}


# ---------------------------------------------------------------------------------------
# 02.1: render a block dict for a summarizer
# ---------------------------------------------------------------------------------------

_GREP_LINES: Final = (
    "src/app.py:15:     for attempt in range(retries):",
    'src/config.py:13:         config["retries"] = os.environ["APP_RETRIES"]  # TODO: int()',
)


def _render_cases() -> list[tuple[str, dict[str, Any], tuple[str, ...], bool | None]]:
    """(what the case is, the block dict, texts the rendering must contain, must it say 'fail'?)."""
    return [
        ("a text block", block_to_api(TextBlock("Let me read the config.")), ("Let me read the config.",), None),
        (
            "a tool call",
            block_to_api(ToolUseBlock("toolu_21", "read_file", {"path": "src/config.py"})),
            ("read_file", "src/config.py"),
            None,
        ),
        (
            "a tool call with two arguments",
            block_to_api(ToolUseBlock("toolu_22", "grep", {"pattern": "retr(y|ies)", "path": "src/"})),
            ("grep", "retr(y|ies)", "src/"),
            None,
        ),
        (
            "a successful result",
            block_to_api(tool_result_block("toolu_22", "2 matches in 2 files")),
            ("2 matches in 2 files",),
            False,
        ),
        (
            "a failed result (is_error)",
            block_to_api(tool_result_block("toolu_23", "read_file: no such file: `src/settings.py`", is_error=True)),
            ("no such file: `src/settings.py`",),
            True,
        ),
        (
            "a result whose content is a list of text blocks",
            block_to_api(tool_result_block("toolu_24", [TextBlock(line) for line in _GREP_LINES])),
            _GREP_LINES,
            False,
        ),
        (
            "a failed result with no content at all (content is optional)",
            block_to_api(tool_result_block("toolu_25", "", is_error=True)),
            (),
            True,
        ),
        (
            "an image (a kind the summary cannot show)",
            block_to_api(
                OpaqueBlock({"type": "image", "source": {"type": "url", "url": "https://example.com/ci.png"}})
            ),
            ("image",),
            None,
        ),
    ]


def _check_render(answer: object) -> str | None:
    if not callable(answer):
        return N_("give a function render_block(b) that takes one block dict and returns a string.")
    render: Callable[[dict[str, Any]], object] = answer
    for what, block, must_contain, failed in _render_cases():
        out = render(dict(block))
        if not isinstance(out, str):
            return _("for {0} your function returned {1}, not a string: {2!r}").format(what, type(out).__name__, block)
        shown = f"render_block({block!r}) returned {out!r}"
        for text in must_contain:
            if text not in out:
                return _("{0}: for {1} it should contain {2!r}.").format(shown, what, text)
        says_fail = "fail" in out.lower()
        if failed is True and not says_fail:
            return _(
                "{0}: {1} should say it failed (use the word 'failed'), or the summary reads it as a success."
            ).format(shown, what)
        if failed is False and says_fail:
            return _("{0}: {1} did not fail (is_error is absent or false), so it should not say 'failed'.").format(
                shown, what
            )
    return None


def _render_starter(b: dict[str, Any]) -> str: ...  # type: ignore[empty-body]  # your code here


exercise(
    Exercise(
        id="02.1",
        task=(
            N_(
                "Write render_block(b) for a block dict: text as itself, a tool call with its name and arguments, "
                "a result with its text (a string or a list of blocks) and the word 'failed' when is_error is true, "
                "any other kind as a label naming its type."
            )
        ),
        checker=_check_render,
        starter=_render_starter,
        hints=(
            N_(
                "Ask what a summarizer still needs after reading your line: which tool, with what arguments, what came "
                "back, and whether it failed."
            ),
            N_(
                'Dispatch on b["type"]: a call has "name" and "input" (json.dumps it); a result\'s "content" is a '
                "string "
                'or a list of blocks (join their "text"), and b.get("is_error") marks a failure. '
                "msgmodel.core.message.block_to_text makes the same choices on a decoded block."
            ),
        ),
    )
)


# ---------------------------------------------------------------------------------------
# 02.2: what can a copy-#2 transcript answer?
# ---------------------------------------------------------------------------------------

QUIZ_HISTORY: Final[list[Message]] = [
    user_text("Where is the retry count used, and is it tested?"),
    assistant_msg(
        [TextBlock("Searching for it."), ToolUseBlock("toolu_11", "grep", {"pattern": "retries", "path": "src/"})]
    ),
    tool_result_msg([tool_result_block("toolu_11", [TextBlock(line) for line in _GREP_LINES])]),
    assistant_msg([TextBlock("Now the tests."), ToolUseBlock("toolu_12", "read_file", {"path": "tests/test_app.py"})]),
    tool_result_msg([tool_result_block("toolu_12", DEMO_FILES["tests/test_app.py"])]),
    assistant_msg([ToolUseBlock("toolu_13", "read_file", {"path": "src/settings.py"})]),
    tool_result_msg([tool_result_block("toolu_13", "read_file: no such file: `src/settings.py`", is_error=True)]),
]
"""A history cut just before the next model call, as compaction sees it (it ends on tool results)."""

QUIZ_QUESTIONS: Final[dict[str, str]] = {
    "A": "Which paths did the agent pass to read_file?",
    "B": "Which lines did the grep for `retries` find?",
    "C": "Which of the calls did the tool flag as failed (is_error)?",
    "D": "What did the user ask?",
    "E": "How many lines long is tests/test_app.py?",
}


def _check_quiz(answer: object) -> str | None:
    if isinstance(answer, str):
        answer = set(answer.replace(",", " ").split())
    if not isinstance(answer, (set, frozenset, list, tuple)):
        return N_('answer with a set of letters, e.g. {"A", "C"}.')
    letters = {str(x).strip().upper() for x in answer}
    unknown = sorted(letters - set(QUIZ_QUESTIONS))
    if unknown:
        return _("there is no question {0}; the letters are {1}.").format(", ".join(unknown), ", ".join(QUIZ_QUESTIONS))
    answers = closed("02.2")
    given = {letter: "chosen" if letter in letters else "left out" for letter in QUIZ_QUESTIONS}
    wrong = [letter for letter in QUIZ_QUESTIONS if not answers.is_right(letter, given[letter])]
    for letter in sorted(wrong, key=lambda letter: (given[letter] == "chosen", letter)):  # left out first
        return answers.feedback(letter, given[letter]) or f"look again at {letter}."
    return None


exercise(
    Exercise(
        id="02.2",
        task=(
            N_(
                "Which questions of QUIZ_QUESTIONS can a summarizer answer from copy #2's transcript of QUIZ_HISTORY "
                "alone? Answer with a set of letters."
            )
        ),
        checker=_check_quiz,
        starter=None,
        hints=(
            N_(
                "Answer each question from the transcript text alone, as the summarizer would, not from the history "
                "you "
                "can see."
            ),
            N_(
                "Look at what copy #2 (msgmodel.course.legacy.summary30.transcript) writes for a tool_use or a "
                "tool_result "
                "block: a question whose answer lives only in a tool's name, arguments or output cannot be answered "
                "from "
                "it."
            ),
        ),
    )
)


# ---------------------------------------------------------------------------------------
# 02.3: which hand-built tool_result dicts does the API refuse?
# ---------------------------------------------------------------------------------------

_GOOD: Final = block_to_api(tool_result_block("toolu_04", "read_file: no such file: `src/settings.py`", is_error=True))

HAND_BUILT: Final[list[dict[str, Any]]] = [
    _rename(_GOOD, "tool_use_id", "toolUseId"),
    block_to_api(tool_result_block("toolu_04", "")),
    {**_GOOD, "tool_use_id": "read_file"},
    block_to_api(
        tool_result_block("toolu_04", [TextBlock("read_file: no such file: `src/settings.py`")], is_error=True)
    ),
    {**_GOOD, "cache_control": {"type": "ephemeral"}},
]
"""Five ``tool_result`` blocks as five error paths might hand-build them, each answering ``toolu_04``.

Deliberately derived by editing dicts (the exercise is to spot the slips); production code
builds results with ``tool_result_block`` only. Block 2 passes the tool's *name* where the
call's id belongs.
"""

_ACCEPTED_BECAUSE: Final[dict[int, str]] = {
    1: "`content` is optional: a result with no content is a valid (empty) answer.",
    3: "`content` may be a list of blocks (text, images, ...) instead of a string.",
    4: "`cache_control` is a real field of a tool_result block (prompt caching).",
}

_REFUSED_BECAUSE: Final[dict[int, str]] = {
    0: "a tool_result must carry `tool_use_id`, and this one spells it `toolUseId`",
    2: (
        "`tool_use_id` must be the id of a call in the previous message (`toolu_04`), not the tool's name. "
        "It also leaves `toolu_04` unanswered, which is a second error; which of the two the API names first "
        "is msgmodel's reading"
    ),
}
_QUOTED_RULES: Final = ("schema_required_field", "orphan_tool_result")
"""The violations whose text the hint quotes: the ones api-rules.md has verbatim for these blocks."""


def _context(block: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The history the hand-built block is sent in: a read of src/settings.py, then the block."""
    call = ToolUseBlock("toolu_04", "read_file", {"path": "src/settings.py"})
    before = cast(
        list[dict[str, Any]], to_api([user_text("Does a settings module override the default?"), assistant_msg([call])])
    )
    return [*before, {"role": "user", "content": [dict(block)]}]


def _refusals() -> dict[int, str]:
    """Index of each refused block in ``HAND_BUILT`` -> the error text that names its slip."""
    from msgmodel.core.protocol import validate

    out = {}
    for i, block in enumerate(HAND_BUILT):
        violations = validate(_context(block))
        if violations:
            quoted = [str(v) for v in violations if v.rule in _QUOTED_RULES]
            out[i] = quoted[0] if quoted else str(violations[0])
    return out


def _check_refused(answer: object) -> str | None:
    if not isinstance(answer, (set, frozenset, list, tuple)) or not all(
        isinstance(i, int) and not isinstance(i, bool) for i in answer
    ):
        return N_("answer with the set of indices (0-4) of the blocks the API refuses, e.g. {1, 4}.")
    chosen = set(answer)
    outside = sorted(i for i in chosen if not 0 <= i < len(HAND_BUILT))
    if outside:
        return _("HAND_BUILT has indices 0-{0}; {1} is not one of them.").format(len(HAND_BUILT) - 1, outside[0])
    refused = _refusals()
    for i in sorted(set(refused) - chosen):
        why = _REFUSED_BECAUSE.get(i, "the API finds a problem with it")
        return _("block {0} is refused: {1}. The API's 400 text: {2}").format(i, why, refused[i])
    for i in sorted(chosen - set(refused)):
        return _("block {0} is accepted: {1}").format(
            i, _ACCEPTED_BECAUSE.get(i, "the API finds nothing wrong with it.")
        )
    return None


exercise(
    Exercise(
        id="02.3",
        task=N_("Which blocks of HAND_BUILT does the API refuse? Answer with the set of their indices."),
        checker=_check_refused,
        starter=None,
        hints=(
            N_(
                "Compare each hand-built dict, key by key, with a tool_result as the API defines it: type, "
                "tool_use_id, "
                "content, is_error."
            ),
            N_(
                "A misspelled required key is a missing one to the API. msgmodel.core.protocol.validate, given the "
                "block "
                "after its tool_use, names each refused block's path once you have predicted."
            ),
        ),
    )
)
