"""Exercises of chapter 05 (the refactor, and the bugs as regression tests).

05.1  ``regression(compact_fn)``: a regression test for the forward-cut bug of step 29's local
      fix: ``keep_recent`` promises the last k messages, unchanged. It must pass on a correct
      compactor and fail (``AssertionError``) on one that cuts forward and one that is off by one.
05.2  ``faithful(history, render)``: the step-30 invariant as a property. True when the
      summarizer's input shows every tool call (with its input) and every result, failures
      marked; checked against two faithful renderers and four that lose something.
05.3  ``session_preview(history)``: the storage layer's dict-walking ``LEGACY_PREVIEW`` ported to
      the readers; right on the cases the copy got wrong, and no copy left in its source.

The checkers run the learner's test and property against compactors and renderers written
here with ``msgmodel.core.message``'s constructors and readers (the exhibits in
``msgmodel.course.legacy`` are not imported: nothing outside that package may import it).
``LONG_LOOP`` and ``LEGACY_PREVIEW`` are imported by the notebook to show them.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import Any, Final

from msgmodel.core.compact import Summarizer, compact, summarize_transcript, summary_message
from msgmodel.core.message import (
    Message,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    assistant_msg,
    assistant_text,
    block_to_text,
    blocks_of,
    is_clean_user_start,
    message_to_text,
    tool_result_block,
    tool_result_msg,
    tool_uses_of,
    transcript_of,
    user_msg,
    user_text,
)
from msgmodel.core.protocol import validate
from msgmodel.course.exercises import Exercise, exercise, learner_source
from msgmodel.course.i18n import N_, _
from msgmodel.course.knowledge import scan_source
from msgmodel.course.synth import synth_session

__all__ = ["LEGACY_PREVIEW", "LONG_LOOP", "long_loop_history"]

Compactor = Callable[..., list[Message]]
Impl = Callable[[Sequence[Message], int, Summarizer], list[Message]]
"""A compactor written positionally, as the checkers call the buggy ones."""


def _brief(m: Message) -> str:
    """One message on one line, for hints."""
    parts = []
    for b in blocks_of(m):
        if b.type == "tool_use":
            parts.append(f"tool_use {b.id} {b.name}")
        elif b.type == "tool_result":
            parts.append(f"tool_result→{b.tool_use_id}{' (is_error)' if b.is_error else ''}")
        elif b.type == "text":
            parts.append(repr(b.text if len(b.text) <= 30 else b.text[:30] + "…"))
        else:
            parts.append(b.type)
    return f"{m.role}: [{', '.join(parts)}]"


def _render(history: Sequence[Message]) -> str:
    return "\n".join(f"    {i}  {_brief(m)}" for i, m in enumerate(history))


# ---------------------------------------------------------------------------------------
# 05.1 a regression test for the forward-cut bug (keep_recent's promise)
# ---------------------------------------------------------------------------------------


def long_loop_history() -> list[Message]:
    """A finished episode, then one long tool loop after the last prompt (the usual shape of an agent's work)."""
    out: list[Message] = [
        user_text("Read src/app.py"),
        assistant_msg([TextBlock("I'll read it."), ToolUseBlock("toolu_01", "read_file", {"path": "src/app.py"})]),
        tool_result_msg([tool_result_block("toolu_01", '"""A tiny HTTP client with retries."""')]),
        assistant_msg([TextBlock("It is a small HTTP client.")]),
        user_text("Fix the flaky test."),
    ]
    for i in range(2, 7):
        call_id = f"toolu_0{i}"
        out += [
            assistant_msg([ToolUseBlock(call_id, "grep", {"pattern": f"step {i}"})]),
            tool_result_msg([tool_result_block(call_id, f"tests/test_app.py:{10 * i}: hit {i}")]),
        ]
    return out


LONG_LOOP: Final[list[Message]] = long_loop_history()
"""The history of exercise 05.1 (15 messages; clean user starts at 0 and 4 only)."""


def _regression_starter(compact_fn: Compactor) -> None: ...  # your code here


def _summary_and(window: Sequence[Message], summarized: Sequence[Message], summarize: Summarizer) -> list[Message]:
    return [summary_message(summarize_transcript(transcript_of(summarized), summarize)), *window]


def _forward_cut(messages: Sequence[Message], keep_recent: int, summarize: Summarizer) -> list[Message]:
    """Step 29's local fix (copy #1): move the cut *forward* to the next clean start, or summarize everything."""
    if keep_recent >= len(messages):
        return list(messages)
    cut = len(messages) - keep_recent
    while cut < len(messages) and not is_clean_user_start(messages[cut]):
        cut += 1
    return _summary_and(messages[cut:], messages[:cut], summarize)


def _one_short(messages: Sequence[Message], keep_recent: int, summarize: Summarizer) -> list[Message]:
    """Off by one: plans for ``keep_recent - 1`` messages, wrong only where that lands on a clean start."""
    return compact(messages, keep_recent=max(keep_recent - 1, 1), summarize=summarize)


def _correct(messages: Sequence[Message], keep_recent: int, summarize: Summarizer) -> list[Message]:
    return compact(messages, keep_recent=keep_recent, summarize=summarize)


def _broken_at(impl: Impl, history: list[Message]) -> list[int]:
    """The window sizes at which ``impl`` breaks keep_recent's promise (or validity) on ``history``."""
    bad = []
    for k in range(1, len(history) + 1):
        out = impl(history, k, lambda t: "S.")
        if validate(out) or out[-k:] != history[-k:]:
            bad.append(k)
    return bad


class _Recorder:
    """A compactor with ``compact``'s signature that remembers how it was called."""

    def __init__(self, impl: Impl) -> None:
        self.impl = impl
        self.calls: list[tuple[list[Message], int]] = []

    def __call__(self, messages: Sequence[Message], *, keep_recent: int, summarize: Summarizer) -> list[Message]:
        self.calls.append((list(messages), keep_recent))
        return self.impl(messages, keep_recent, summarize)


_CALLING: Final = N_(
    "Call it the way msgmodel.core.compact.compact is called: "
    "compact_fn(LONG_LOOP, keep_recent=k, summarize=lambda transcript: 'a summary')."
)


def _run_test(test: Callable[[Compactor], object], impl: _Recorder) -> AssertionError | None:
    try:
        test(impl)
    except AssertionError as e:
        return e
    return None


def _check_regression(answer: Any) -> str | None:
    if not callable(answer):
        return N_("Pass the test function itself: check('05.1', regression).")
    good = _Recorder(_correct)
    try:
        failed = _run_test(answer, good)
    except TypeError as e:
        return _("your test raised TypeError ({0}) with a correct compactor. {1}").format(e, _(_CALLING))
    if not good.calls:
        return _("your test never called compact_fn, so it cannot catch anything. {0}").format(_(_CALLING))
    if failed is not None:
        history, k = good.calls[-1]
        out = compact(history, keep_recent=k, summarize=lambda t: "S.")
        tip = ""
        if len(out) != k + 1 and out[-k:] == history[-k:]:
            tip = _(
                " compact returned {0} messages: it moves the cut *back* to a clean start, so it may keep "
                "more than {1}. The promise is *at least* k: the last k messages, unchanged, at the end."
            ).format(len(out), k)
        return _(
            "your test fails on a correct compactor (msgmodel.core.compact.compact), at keep_recent={0}: {1}.{2}"
        ).format(k, str(failed) or "AssertionError", tip)
    buggy_ones = (("forward_cut (step 29's local fix, copy #1)", _forward_cut), ("one_short (off by one)", _one_short))
    for name, impl in buggy_ones:
        buggy = _Recorder(impl)
        try:
            caught = _run_test(answer, buggy)
        except Exception as e:  # a test should fail with an assertion, not crash
            return _(
                "on the buggy compactor {0} your test raised {1}: {2}. A test reports a bug with `assert` "
                "(AssertionError); let the compactor's output reach the assert."
            ).format(name, type(e).__name__, e)
        if caught is not None:
            continue
        if not buggy.calls:
            return _("your test did not call the compactor {0}. {1}").format(name, _(_CALLING))
        history = buggy.calls[0][0]
        tried = sorted({k for _, k in buggy.calls})
        bad = _broken_at(impl, history)
        hit = [k for k in tried if k in bad]
        if hit:
            k = hit[0]
            out = impl(history, k, lambda t: "S.")
            return _(
                "your test passed the buggy compactor {0}. At keep_recent={1} it returned {2} message(s):\n{3}\nThe "
                "API accepts that (validate(out) == []), but the last {4} messages are not all there. What did "
                "keep_recent={5} promise? Assert it."
            ).format(name, k, len(out), _render(out), k, k)
        if bad:
            return _(
                "your test passed the buggy compactor {0}: it tried keep_recent in {1}, but on your history this "
                "compactor breaks its promise only at keep_recent in {2}. A regression test of a boundary bug tries "
                "every boundary: for k in range(1, len(history) + 1)."
            ).format(name, tried, bad)
        return _(
            "your test passed the buggy compactor {0}, but not because it is right: on your history it never breaks "
            "its promise (there is no long tool loop after the last prompt):\n{1}\nUse LONG_LOOP (from "
            "msgmodel.course.exercises.ch05)."
        ).format(name, _render(history))
    return None


exercise(
    Exercise(
        id="05.1",
        goal=N_("Turn bug 1 into a regression test of a promise (the last k messages, unchanged), not of one output."),
        task=N_(
            "regression(compact_fn): fail with AssertionError if compact_fn ever drops the last keep_recent messages"
        ),
        checker=_check_regression,
        starter=_regression_starter,
        hints=(
            N_(
                "The forward cut and the off-by-one show at some window sizes only: try every keep_recent from 1 to "
                "len(history), not one."
            ),
            N_(
                "For each k, call compact_fn(LONG_LOOP, keep_recent=k, summarize=...) and assert that the tail of what "
                "comes back equals the tail of the history; msgmodel.core.protocol.validate(out) says whether the API "
                "would accept it."
            ),
        ),
    )
)


# ---------------------------------------------------------------------------------------
# 05.2 the step-30 invariant as a property
# ---------------------------------------------------------------------------------------

Renderer = Callable[[list[Message]], str]


def _faithful_starter(history: list[Message], render: Renderer) -> bool:  # type: ignore[empty-body]
    ...  # your code here


def _placeholders(history: list[Message]) -> str:
    """Step 30's renderer: text as text, every other block as "(tool call)"."""
    return "\n".join(
        f"{m.role}: " + " ".join(b.text if b.type == "text" else "(tool call)" for b in blocks_of(m)) for m in history
    )


def _no_failure_marker(history: list[Message]) -> str:
    """Step 30's local fix (copy #2): calls and results, but a failure reads like a success."""
    return transcript_of(history).replace("[result (failed): ", "[result: ")


def _first_call_only(history: list[Message]) -> str:
    """Renders only the first tool call of each message: parallel calls vanish."""
    lines = []
    for m in history:
        shown: list[str] = []
        seen_call = False
        for b in blocks_of(m):
            if b.type == "tool_use":
                if seen_call:
                    continue
                seen_call = True
            shown.append(block_to_text(b))
        if any(shown):
            lines.append(f"{m.role}: " + "\n".join(t for t in shown if t))
    return "\n\n".join(lines)


def _names_only(history: list[Message]) -> str:
    """Calls without their input: the summary knows a file was read, not which one."""
    text = transcript_of(history)
    for m in history:
        for u in tool_uses_of(m):
            text = text.replace(block_to_text(u), f"[call {u.name}(…)]")
    return text


def _bare(history: list[Message]) -> str:
    """A faithful renderer without role labels."""
    return "\n".join(message_to_text(m) for m in history)


def _read(call_id: str, path: str) -> ToolUseBlock:
    return ToolUseBlock(call_id, "read_file", {"path": path})


_PROPERTY_CASES: Final[list[tuple[str, list[Message]]]] = [
    (
        "a read that worked, a read that failed, a grep",
        [
            user_text("Why do the tests fail?"),
            assistant_msg([TextBlock("Let me read it."), _read("toolu_1", "src/app.py")]),
            tool_result_msg([tool_result_block("toolu_1", "def fetch(url): ...")]),
            assistant_msg([TextBlock("fetch never retries.")]),
            user_text("And the config?"),
            assistant_msg([_read("toolu_2", "src/settings.py")]),
            tool_result_msg([tool_result_block("toolu_2", "read_file: no such file: `src/settings.py`", True)]),
            assistant_msg([ToolUseBlock("toolu_3", "grep", {"pattern": "settings", "path": "src/"})]),
            tool_result_msg([tool_result_block("toolu_3", "src/app.py:3: from settings import TIMEOUT")]),
        ],
    ),
    (
        "two parallel reads in one message, the second failed",
        [
            user_text("Read README.md and setup.cfg"),
            assistant_msg([_read("toolu_4", "README.md"), _read("toolu_5", "setup.cfg")]),
            tool_result_msg(
                [
                    tool_result_block("toolu_4", "# fetcher"),
                    tool_result_block("toolu_5", "read_file: permission denied", is_error=True),
                ]
            ),
        ],
    ),
    ("no tool calls at all", [user_text("Hello"), assistant_msg([TextBlock("Hi! What shall we fix?")])]),
    *((f"synth_session(30, seed={s})", synth_session(30, seed=s)) for s in (1, 4)),
]

_RIGHT: Final[list[tuple[str, Renderer]]] = [
    ("transcript_of", transcript_of),
    ("a transcript without role labels", _bare),
]
_WRONG: Final[list[tuple[str, str, Renderer, str]]] = [
    ("the step-30 renderer", "every tool block becomes (tool call)", _placeholders, _PROPERTY_CASES[0][0]),
    (
        "copy #2 of block_to_text",
        "a failed result reads like a success: no (failed)",
        _no_failure_marker,
        _PROPERTY_CASES[0][0],
    ),
    (
        "a renderer that keeps one call per message",
        "parallel calls after the first vanish",
        _first_call_only,
        _PROPERTY_CASES[1][0],
    ),
    ("a renderer that drops the calls' input", "[call read_file(…)]: which file?", _names_only, _PROPERTY_CASES[0][0]),
]
"""Renderers a faithful property must reject: a label, what it loses, the renderer, a case on which it loses it."""


def _check_faithful(answer: Any) -> str | None:
    if not callable(answer):
        return N_("Pass the property itself: check('05.2', faithful).")
    for label, render in _RIGHT:
        for case, history in _PROPERTY_CASES:
            got = answer(list(history), render)
            if not isinstance(got, bool):
                return _("faithful(...) returned {0!r}; a property returns True or False.").format(got)
            if not got:
                return _(
                    "your property says {0} is not faithful on the case '{1}', but it shows every call and every "
                    "failure. Its text begins:\n{2}"
                ).format(label, case, render(list(history))[:400])
    for label, what, render, case in _WRONG:
        if not any(answer(list(history), render) is False for _, history in _PROPERTY_CASES):
            history = dict(_PROPERTY_CASES)[case]
            return _(
                "your property accepted {0} ({1}) on every case. On '{2}':\n{3}\nit renders:\n{4}\nA property has to "
                "state every fact the summarizer needs:\neach call with its input, each result, each failure."
            ).format(label, what, case, _render(history), render(list(history))[:500])
    return None


exercise(
    Exercise(
        id="05.2",
        goal=N_("State bug 2 as a property of every history: the summarizer sees every call, input and failure."),
        task=N_("faithful(history, render) -> bool: does render(history) show each call with its input, each failure?"),
        checker=_check_faithful,
        starter=_faithful_starter,
        hints=(
            N_(
                "Faithful means every call shows with its input, every result with its output, and a failure says so. "
                "What does a placeholder renderer lose?"
            ),
            N_(
                "msgmodel.core.message.block_to_text(b) is the model's rendering of one block; take it for each "
                "block of "
                "tool_uses_of(m) and tool_results_of(m) and look for it in render(history)."
            ),
        ),
    )
)


# ---------------------------------------------------------------------------------------
# 05.3 port a copy to the model
# ---------------------------------------------------------------------------------------

LEGACY_PREVIEW: Final = """\
def session_preview(history):  # history: list[dict[str, Any]], the wire dicts of a stored session
    asked = next((m["content"] for m in history if m["role"] == "user"), "")
    calls = sum(1 for m in history if isinstance(m["content"], list)
                for b in m["content"] if b["type"].endswith("tool_use"))
    failed = sum(1 for m in history if isinstance(m["content"], list)
                 for b in m["content"] if b.get("is_error"))
    last = [m for m in history if m["role"] == "assistant"][-1:]
    last_answer = last[0]["content"][0]["text"] if last else ""
    return {"asked": asked, "calls": calls, "failed": failed, "last_answer": last_answer}
"""
"""The session list's preview as the storage layer wrote it before the refactor (ours): four readers, copied."""


def _preview_starter(history: list[Message]) -> dict[str, object]: ...  # type: ignore[empty-body]  # your code here


def _preview_cases() -> list[tuple[str, list[Message], dict[str, object]]]:
    """Each case: a label, a history, and the preview it must get."""
    grep = ToolUseBlock(id="toolu_01A", name="grep", input={"pattern": "retries"})
    read = _read("toolu_01B", "src/settings.py")
    web = [
        OpaqueBlock({"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "x"}}),
        OpaqueBlock({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []}),
    ]
    return [
        (
            "string content everywhere",
            [user_text("hi"), assistant_text("hello")],
            {"asked": "hi", "calls": 0, "failed": 0, "last_answer": "hello"},
        ),
        (
            "parallel calls, one failed, and an answer that opens with thinking",
            [
                user_msg([TextBlock("How many retries?")]),
                assistant_msg([TextBlock("Looking."), grep, read]),
                tool_result_msg(
                    [
                        tool_result_block("toolu_01A", "retries = 3"),
                        tool_result_block("toolu_01B", "no such file", is_error=True),
                    ]
                ),
                assistant_msg([ThinkingBlock("Three.", signature="c2ln"), TextBlock("Three.")]),
            ],
            {"asked": "How many retries?", "calls": 2, "failed": 1, "last_answer": "Three."},
        ),
        (
            "a compacted session: it opens on a result message (storage keeps the summary apart)",
            [
                tool_result_msg([tool_result_block("toolu_01A", "retries = 3")]),
                assistant_text("Three."),
                user_text("And the timeout?"),
                assistant_msg([TextBlock("Let me grep."), grep]),
            ],
            {"asked": "And the timeout?", "calls": 1, "failed": 0, "last_answer": "Let me grep."},
        ),
        (
            "a server-side web search (the API ran it: not a call of your client)",
            [user_text("Search the web."), assistant_msg([*web, TextBlock("Found it.")])],
            {"asked": "Search the web.", "calls": 0, "failed": 0, "last_answer": "Found it."},
        ),
        ("an empty session", [], {"asked": "", "calls": 0, "failed": 0, "last_answer": ""}),
    ]


def _copies_left(fn: Callable[..., Any]) -> str | None:
    """What the knowledge scanners still find in the learner's function (``None``: no copy left, or no source)."""
    read = learner_source(fn)
    if read is None:
        return None
    source, tree = read
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("content", "raw"):
            return _("it reads `.{0}` itself (line {1} of the function): that walks a message by hand.").format(
                node.attr, node.lineno
            )
    sites = scan_source(source)
    if sites:
        s = sites[0]
        return _("the knowledge scanner still finds a copy: line {0}, a {1} ({2!r}); a reader knows it.").format(
            s.line, s.kind, s.detail
        )
    return None


def _check_preview(fn: Any) -> str | None:
    if not callable(fn):
        return _("give the function itself (session_preview), not {0!r}.").format(fn)
    for label, history, expected in _preview_cases():
        got = fn(list(history))
        if not isinstance(got, dict):
            return _("return a dict with the keys asked, calls, failed and last_answer; got {0!r} for {1}.").format(
                got, label
            )
        if got == expected:
            continue
        key = next((k for k in expected if got.get(k) != expected[k]), None)
        if key is None:
            return _("for {0}, return exactly the keys {1}; got {2}.").format(label, sorted(expected), sorted(got))
        return _("for {0}, {1} should be {2!r}, got {3!r}.\n{4}").format(
            label, key, expected[key], got.get(key), _render(history)
        )
    left = _copies_left(fn)
    if left:
        return _(
            "the previews are right, but {0} The port is done when the function asks the model only: "
            "readers for the messages, the blocks' typed fields for the rest."
        ).format(left)
    return None


exercise(
    Exercise(
        id="05.3",
        task=N_("session_preview(history): LEGACY_PREVIEW ported to Messages with readers only (no copy left)"),
        goal=N_(
            "Do the refactor on one copy: replace knowledge written by hand with calls to the model's readers, "
            "and see the copy's bugs go with it."
        ),
        checker=_check_preview,
        starter=_preview_starter,
        hints=(
            N_(
                "Take LEGACY_PREVIEW's four values one at a time and ask which reader already answers each: who "
                "asked, how many client calls, how many failed results, what the assistant last said."
            ),
            N_(
                "msgmodel.core.message has them: is_clean_user_start and text_of, tool_uses_of, tool_results_of "
                "(each result has .is_error). Walk messages, never m.content; the checker scans your source as "
                "chapter 03 does."
            ),
        ),
    )
)
