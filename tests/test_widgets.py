"""The notebook widgets in the kernel: set a value or click, then read the state and the HTML.

No frontend is involved: ipywidgets runs its Python side without a comm, callbacks fire on
``.value =`` and ``.click()``. The browser side is tested by ``tests/ui`` (``make test-browser``).
"""

from __future__ import annotations

import html
import re
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from msgmodel.core.compact import plan_compaction, summary_message
from msgmodel.core.message import (
    Message,
    TextBlock,
    ToolUseBlock,
    assistant_msg,
    is_tool_result_message,
    to_api,
    tool_result_block,
    tool_result_msg,
    user_text,
)
from msgmodel.core.protocol import Violation, validate
from msgmodel.course.exercises.ch06 import DRILL, QUIZ, DrillItem
from msgmodel.course.legacy.summary30 import transcript as legacy_transcript
from msgmodel.course.synth import synth_session
from msgmodel.course.widgets import (
    ApiVerdict,
    CompactionExplorer,
    ConversationView,
    InterviewDrill,
    Question,
    Quiz,
    TranscriptCompare,
    api_verdict,
    check_choice,
    clean_cut,
    count_hits,
    locate,
    slicing_cut,
    violation_problems,
)


def _session() -> list[Message]:
    a = ToolUseBlock(id="toolu_A", name="read_file", input={"path": "src/app.py"})
    b = ToolUseBlock(id="toolu_B", name="grep", input={"pattern": "token", "path": "src"})
    c = ToolUseBlock(id="toolu_C", name="read_file", input={"path": "src/db.py"})
    d = ToolUseBlock(id="toolu_D", name="bash", input={"command": "pytest -q"})
    e = ToolUseBlock(id="toolu_E", name="read_file", input={"path": "README.md"})
    return [
        user_text("Find where the session token is logged."),
        assistant_msg([TextBlock("Reading the app."), a]),
        tool_result_msg([tool_result_block("toolu_A", "import logging")]),
        assistant_msg([b, c]),
        tool_result_msg(
            [
                tool_result_block("toolu_B", "src/app.py:12: log(token)"),
                tool_result_block("toolu_C", "no such file: src/db.py", is_error=True),
            ]
        ),
        assistant_msg([TextBlock("The token is logged in src/app.py, line 12.")]),
        user_text("Remove it and run the tests."),
        assistant_msg([d, e]),
        tool_result_msg([tool_result_block("toolu_D", "3 passed"), tool_result_block("toolu_E", "# App")]),
        assistant_msg([TextBlock("Done: removed, and the tests pass.")]),
        user_text("Add retry logic to the HTTP client."),
        assistant_msg([TextBlock("Will do.")]),
    ]


SESSION = _session()
"""12 messages; 2, 4 and 8 hold tool results, so slicing at keep_recent 10, 8 and 4 orphans them."""
ORPHAN_TEXT = "unexpected `tool_use_id` found in `tool_result` blocks"


def sliced(k: int) -> list[Message]:
    return [summary_message("(summary)"), *SESSION[-k:]]


# ---------------------------------------------------------------------------------------
# Locating violations on blocks
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("at", "where"),
    [
        ("messages.3.content.1", (3, 1)),
        ("messages.3.content.1.tool_use.id", (3, 1)),
        ("messages.12.content.0.content.2", (12, 0)),
        ("messages.3", (3, None)),
        ("messages.3.content", (3, None)),
        ("messages.3.role", (3, None)),
        ("messages", (None, None)),
        ("", (None, None)),
        ("max_tokens", (None, None)),
    ],
)
def test_locate(at: str, where: tuple[int | None, int | None]) -> None:
    assert locate(at) == where


def test_violations_are_placed_on_their_blocks_in_the_apis_words() -> None:
    msgs = sliced(4)
    violations = validate(msgs, as_history=True)
    problems, unplaced = violation_problems(violations, len(msgs))
    assert unplaced == []
    assert set(problems) == {1}
    assert set(problems[1]) == {0, 1}  # both orphan results of message 1, each on its own block
    assert all(ORPHAN_TEXT in t for texts in problems[1].values() for t in texts)
    assert problems[1][0] == [str(violations[0])]


def test_request_level_violations_are_not_placed_on_a_message() -> None:
    v = Violation("tools_required", "", "tools must be defined", at="")
    far = Violation("orphan_tool_result", "messages.9", "x", at="messages.9")
    problems, unplaced = violation_problems([v, far], 3)
    assert problems == {}
    assert unplaced == [v, far]


def test_api_verdict_is_the_validators_first_violation_verbatim() -> None:
    msgs = sliced(4)
    verdict = api_verdict(msgs)
    assert not verdict.ok
    assert verdict.text == str(validate(msgs, as_history=True)[0])
    assert str(verdict) == f"400 invalid_request_error: {verdict.text}"
    assert "mmw-fail" in verdict.html() and html.escape(verdict.text) in verdict.html()
    ok = api_verdict(SESSION)
    assert ok.ok and str(ok) == "200 OK" and "mmw-ok" in ok.html()
    # as a request (not a history) the same session ends in a prefill, which the newest models refuse
    assert not api_verdict(SESSION, as_history=False).ok


# ---------------------------------------------------------------------------------------
# ConversationView
# ---------------------------------------------------------------------------------------


def _chip_of(page: str, label: str) -> str:
    """The chip whose label starts with ``label``, plus the error lines right after it."""
    start = page.index(label)
    end = page.find('<div class="mm-msg', start)
    return page[start : end if end != -1 else len(page)]


def test_conversation_view_highlights_each_violation_on_its_block() -> None:
    view = ConversationView(sliced(4))
    page = view.static_html()
    assert "mmw-fail" in page
    first, second = (f"tool_result → {t}" for t in ("toolu_D", "toolu_E"))
    assert page.count('class="mm-bad"') == 2
    assert "messages.1.content.0: " + ORPHAN_TEXT in _chip_of(page, first)
    assert "messages.1.content.1: " + ORPHAN_TEXT in _chip_of(page, second).split(first)[-1]
    # the messages without problems carry no error
    assert page.count('class="mm-err"') == 2


def test_conversation_view_filter_shows_only_messages_with_problems() -> None:
    view = ConversationView(sliced(4))
    everything = view.body.value
    assert "Add retry logic" in everything  # message 3, which is fine
    view.only_problems.value = True
    narrowed = view.body.value
    assert narrowed != everything
    assert "Add retry logic" not in narrowed
    assert "toolu_D" in narrowed
    assert "… 1 message not shown …" in narrowed and "… 3 messages not shown …" in narrowed
    view.only_problems.value = False
    assert view.body.value == everything


def test_conversation_view_of_a_valid_history() -> None:
    view = ConversationView(SESSION)
    assert view.verdict.ok and view.problems == {}
    assert "200 OK" in repr(view) and "✗" not in repr(view)
    view.only_problems.value = True
    assert "No message has a problem" in view.body.value


def test_tool_pairs_share_a_badge_and_an_orphan_has_its_own() -> None:
    page = ConversationView(SESSION).static_html()
    badges = re.findall(r'title="tool pair #(\d+)"', page)
    assert badges, "no tool badges"
    counts = {b: badges.count(b) for b in badges}
    assert set(counts.values()) == {2}, counts  # each tool_use and its result
    orphan = ConversationView(sliced(4)).static_html()
    assert re.findall(r'title="tool pair #(\d+)"', orphan) == ["1", "2"]  # two results, no calls


def test_html_is_escaped() -> None:
    msgs = [user_text("<script>alert(1)</script>"), assistant_msg([TextBlock("a & b")])]
    page = ConversationView(msgs).static_html()
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


# ---------------------------------------------------------------------------------------
# CompactionExplorer
# ---------------------------------------------------------------------------------------


def test_moving_the_slider_changes_the_verdict() -> None:
    ex = CompactionExplorer(SESSION, keep_recent=5)
    assert ex.slicing.verdict.ok and ex.clean.verdict.ok
    ok_page = ex.body.value
    ex.slider.value = 4
    assert not ex.slicing.verdict.ok
    assert ORPHAN_TEXT in ex.slicing.verdict.text
    assert ex.clean.verdict.ok
    broken_page = ex.body.value
    assert broken_page != ok_page
    slicing_col, clean_col = broken_page.split('<div class="mmw-col">')[1:3]
    assert "mmw-fail" in slicing_col and html.escape(ex.slicing.verdict.text) in slicing_col
    assert "mmw-ok" in clean_col and "mmw-fail" not in clean_col
    assert "mmw-fail" not in ok_page.split('<div class="mmw-cols">')[1]
    assert ex.static_html() == broken_page


def test_explorer_repr_and_table() -> None:
    ex = CompactionExplorer(SESSION, keep_recent=4)
    text = repr(ex)
    assert text.splitlines()[0] == "CompactionExplorer: 12 messages, keep_recent=4"
    assert "slicing ✓✓✓✗✓✓✓✗✓✗✓✓" in text and "clean cut ✓✓✓✓✓✓✓✓✓✓✓✓" in text
    assert "→ 400 invalid_request_error: messages.1.content.0: " + ORPHAN_TEXT in text
    assert len(ex.table) == len(SESSION)


def test_explorer_starts_on_a_broken_slice_and_checks_its_arguments() -> None:
    ex = CompactionExplorer(SESSION)
    assert ex.keep_recent == 10 and not ex.slicing.verdict.ok
    with pytest.raises(ValueError, match="between 1 and 12"):
        CompactionExplorer(SESSION, keep_recent=13)
    with pytest.raises(ValueError, match="at least 2 messages"):
        CompactionExplorer(SESSION[:1])


def test_slicing_cut_is_the_legacy_slice() -> None:
    cut = slicing_cut(SESSION, 4)
    assert cut.messages[1:] == tuple(SESSION[-4:])
    assert cut.kept_from == 8 and cut.summarized
    assert cut.describe() == "summary of messages 0–7 + messages 8–11 kept (5 sent)"
    assert clean_cut(SESSION, 4).kept_from == 6  # moved back to the clean user start
    whole = slicing_cut(SESSION, 12)
    assert whole.messages == tuple(SESSION) and not whole.summarized
    with pytest.raises(ValueError, match=r"messages\[-0:\] is the whole list"):
        slicing_cut(SESSION, 0)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 24), seed=st.integers(0, 10_000), data=st.data())
def test_clean_cut_is_always_accepted_and_slicing_breaks_exactly_on_results(n: int, seed: int, data: Any) -> None:
    msgs = synth_session(n, seed=seed)
    k = data.draw(st.integers(1, len(msgs)), label="keep_recent")
    clean = clean_cut(msgs, k)
    assert clean.verdict.ok, clean
    assert clean.kept_from == plan_compaction(msgs, keep_recent=k).kept_from
    slicing = slicing_cut(msgs, k)
    lands_on_results = k < len(msgs) and is_tool_result_message(msgs[-k])
    assert slicing.verdict.ok == (not lands_on_results), slicing


# ---------------------------------------------------------------------------------------
# TranscriptCompare
# ---------------------------------------------------------------------------------------


def test_transcript_compare_passes_the_wire_shape_to_the_legacy_renderer() -> None:
    seen: list[Any] = []

    def before(history: list[dict[str, Any]]) -> str:
        seen.append(history)
        return "x"

    TranscriptCompare(SESSION[:4], before=before)
    assert seen == [to_api(SESSION[:4])]
    with pytest.raises(TypeError, match="must return a string"):
        TranscriptCompare(SESSION[:4], before=lambda h: None)  # type: ignore[arg-type,return-value]


def test_transcript_compare_counts_what_each_side_still_says() -> None:
    tc = TranscriptCompare(SESSION[:6], before=legacy_transcript, terms=["src/db.py", "failed"])
    assert tc.hits("src/db.py") == (0, 2)  # the call and its failure
    assert tc.hits("failed") == (0, 1)
    assert tc.hits("src/app.py")[0] == 1  # the assistant's own text survives
    assert tc.hits("(tool call)")[0] > 0 and tc.hits("(tool call)")[1] == 0
    assert "mentions of 'src/db.py': before 0, after 2" in repr(tc)
    tc.query.value = "read_file"
    page = tc.body.value
    assert "“read_file”: before 0 · after 2" in page
    assert page.count("<mark>read_file</mark>") == 2
    tc.query.value = ""
    assert "<mark>" not in tc.body.value


def test_count_hits() -> None:
    assert count_hits("Read README, read it", "read") == 3  # README too: a substring count
    assert count_hits("abc", "") == 0


# ---------------------------------------------------------------------------------------
# Quiz
# ---------------------------------------------------------------------------------------

Q = Question(
    "Where does a tool_result travel?",
    ["in the assistant message", "in the next user message", "in a 'tool' message"],
    answer="in the next user message",
    explain="The client answers.",
    hints={"in a 'tool' message": "That is another API's shape."},
)


def test_check_choice() -> None:
    right = check_choice(Q, "in the next user message")
    assert right.correct and right.text == "✓ Correct. The client answers."
    hinted = check_choice(Q, "in a 'tool' message")
    assert not hinted.correct and hinted.text == "✗ Not quite. That is another API's shape."
    plain = check_choice(Q, "in the assistant message")
    assert not plain.correct and plain.text.startswith("✗ Not quite. ") and "The client answers" not in plain.text
    assert check_choice(Q, None) == check_choice(Q, None) and not check_choice(Q, None).correct
    assert not check_choice(Q, "something else").correct


def test_question_rejects_bad_definitions() -> None:
    with pytest.raises(ValueError, match="not one of its options"):
        Question("?", ["a", "b"], answer="c")
    with pytest.raises(ValueError, match="at least 2 options"):
        Question("?", ["a"], answer="a")
    with pytest.raises(ValueError, match="distinct"):
        Question("?", ["a", "a"], answer="a")
    with pytest.raises(ValueError, match="hints for options"):
        Question("?", ["a", "b"], answer="a", hints={"z": "no"})


def test_quiz_click_gives_feedback() -> None:
    quiz = Quiz([Q, Question("2 + 2?", ["4", "5"], answer="4")])
    assert quiz.feedback[0].value == ""
    quiz.buttons[0].click()  # nothing picked yet
    assert "Pick an answer first." in quiz.feedback[0].value
    quiz.radios[0].value = "in a 'tool' message"
    quiz.buttons[0].click()
    assert "mmw-wrong" in quiz.feedback[0].value and "another API&#x27;s shape" in quiz.feedback[0].value
    assert quiz.choose(0, "in the next user message").correct
    assert "mmw-right" in quiz.feedback[0].value and "✓ Correct." in quiz.feedback[0].value
    assert quiz.feedback[1].value == ""
    assert "1 of 1 checked right" in quiz.score.value
    assert not quiz.choose(1, "5").correct
    assert "1 of 2 checked right" in quiz.score.value
    with pytest.raises(ValueError, match="not one of"):
        quiz.choose(1, "6")


def test_quiz_choose_takes_a_letter_and_its_usage_names_no_option() -> None:
    quiz = Quiz([Q])
    assert quiz.choose(0, "B").correct and quiz.radios[0].value == "in the next user message"
    with pytest.raises(ValueError, match="or a letter a, b, c"):
        quiz.choose(0, "z")
    chapter = [Question(q.prompt, q.options, q.answer, q.explain, q.hints) for q in QUIZ]
    for q in [Q, *chapter]:
        for option in q.options:
            assert option not in Quiz.USAGE and repr(option) not in Quiz.USAGE
    # before anything is checked, the text view lists the options and no verdict
    assert "Correct" not in repr(Quiz(chapter)) and "     → " not in repr(Quiz(chapter))


def test_quiz_static_fallback_hides_answers_in_details() -> None:
    page = Quiz([Q]).static_html()
    assert "<details><summary>Show the answer</summary><b>in the next user message</b>" in page
    for letter, option in zip("abc", Q.options, strict=True):
        assert f'<div class="mmw-opt">{letter}) {html.escape(option)}</div>' in page


# ---------------------------------------------------------------------------------------
# Display: one deterministic mimebundle
# ---------------------------------------------------------------------------------------


def _widgets() -> list[Any]:
    return [
        ConversationView(sliced(4)),
        CompactionExplorer(SESSION, keep_recent=4),
        TranscriptCompare(SESSION[:6], before=legacy_transcript, terms=["README.md"]),
        Quiz([Q]),
        InterviewDrill(DRILL),
    ]


def test_mimebundle_has_the_widget_a_static_html_and_a_deterministic_text() -> None:
    first, second = _widgets(), _widgets()
    for a, b in zip(first, second, strict=True):
        bundle = a._repr_mimebundle_()
        assert set(bundle) == {"application/vnd.jupyter.widget-view+json", "text/plain", "text/html"}
        assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == a.widget.model_id
        assert bundle["text/html"] == a.static_html() == b.static_html()
        assert bundle["text/plain"] == repr(a) == repr(b)
        for mime in ("text/plain", "text/html"):
            assert a.widget.model_id not in bundle[mime]
            assert not re.search(r"0x[0-9a-f]{6,}", bundle[mime])


def test_reprs_read_well() -> None:
    view, ex, tc, quiz, _drill = _widgets()
    assert repr(view).splitlines()[:3] == [
        "ConversationView: 5 messages, 2 tool ids",
        "  400 invalid_request_error: 2 violations",
        "  ✗ messages.1.content.0: " + ORPHAN_TEXT + ": toolu_D. Each `tool_result` block must have a "
        "corresponding `tool_use` block in the previous message.",
    ]
    assert repr(quiz).splitlines()[0] == "Quiz: Self-check (1 question; pick an answer and press Check)"
    quiz.choose(0, "in the next user message")
    assert "     → in the next user message: ✓ Correct. The client answers." in repr(quiz)
    assert repr(tc).startswith("TranscriptCompare: 6 messages\n  mentions of 'README.md'")
    assert all(line == line.rstrip() for line in repr(tc).splitlines())
    assert isinstance(ex.slicing.verdict, ApiVerdict)


def test_a_failed_tool_result_and_a_tool_use_render() -> None:
    call = ToolUseBlock(id="toolu_x", name="read_file", input={"path": "a.py"})
    msgs = [
        user_text("go"),
        assistant_msg([call]),
        tool_result_msg([tool_result_block("toolu_x", "no such file", is_error=True)]),
        assistant_msg([TextBlock("it failed")]),
    ]
    page = ConversationView(msgs).static_html()
    assert "tool_result (failed) → toolu_x" in page and "mm-failed" in page
    assert page.count('title="tool pair #1"') == 2


def test_import_msgmodel_does_not_import_ipywidgets() -> None:
    code = (
        "import sys, msgmodel, msgmodel.course.display, msgmodel.core.compact, msgmodel.core.protocol\n"
        "print('ipywidgets' in sys.modules, 'msgmodel.course.widgets' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


# ---------------------------------------------------------------------------------------
# InterviewDrill
# ---------------------------------------------------------------------------------------

CARDS = [
    DrillItem("Why frozen?", ("Blocks are shared values.", "error at the line", "shallow")),
    DrillItem("Where to validate?", ("At the boundary, once.", "protocol apart")),
]


def test_drill_write_first_then_reveal_then_tick_and_score() -> None:
    drill = InterviewDrill(CARDS)
    assert drill.score == (0, 5) and "Score: 0 of 5 key points (0%)" in drill.score_view.value
    assert drill.model_answers[0].value == "" and drill.point_boxes[0].layout.display == "none"
    drill.answers[0].value = "Because blocks are shared between histories."
    drill.buttons[0].click()
    assert drill.revealed == [True, False]
    assert "Blocks are shared values." in drill.model_answers[0].value
    assert "not written an answer" not in drill.model_answers[0].value
    assert drill.point_boxes[0].layout.display == "flex"
    assert [c.description for c in drill.checks[0]] == ["Blocks are shared values.", "error at the line", "shallow"]
    drill.checks[0][0].value = True
    assert (
        drill.score == (1, 5) and "Score: 1 of 5 key points (20%); 1 of 2 model answers shown" in drill.score_view.value
    )
    assert drill.tick(0, 2) == (2, 5) and drill.tick(0, 2, False) == (1, 5)
    with pytest.raises(ValueError, match="show the model answer before ticking"):
        drill.tick(1, 0)
    assert drill.reveal(1) == "At the boundary, once. protocol apart"  # the answer is the key points, in order
    assert "not written an answer" in drill.model_answers[1].value  # revealed before writing: a nudge, no block
    drill.write(1, "at the boundary")
    assert drill.tick(1, 0) == (2, 5) and drill.tick(1, 1) == (3, 5)
    assert "Score: 3 of 5 key points (60%); 2 of 2 model answers shown" in drill.score_view.value


def test_drill_model_answers_are_readable_without_a_kernel_and_folded_where_html_shows() -> None:
    """The text view (GitHub, a text export) puts each model answer after its question: no button there to press.

    There the answer is its key points numbered ①②…, so a reader can score their own answer (reader 3, #27).

    The static HTML (site, slides) folds each answer and its key points; the live widget ends with all the
    answers folded in one ``<details>``, so they are readable without its buttons too.
    """
    drill = InterviewDrill(DRILL)
    text = repr(drill)
    assert text.splitlines()[0].startswith(f"InterviewDrill: Interview drill ({len(DRILL)} questions; Score: 0 of ")
    for item in DRILL:
        after = text.split(item.question, 1)[1]
        numbered = " ".join(f"{mark}{p}" for mark, p in zip("①②③④⑤", item.points, strict=False))
        assert after.split("\n", 2)[1].strip() == numbered
    sheet = drill.widget.children[-1].value
    assert sheet.startswith('<details class="mmw mm-drill-sheet">')
    assert all(html.escape(item.answer) in sheet for item in DRILL)
    drill.write(0, "two shapes on the wire")
    drill.reveal(0)
    drill.tick(0, 1)
    assert "your answer: 5 words; model answer shown, 1 of " in repr(drill)
    page = InterviewDrill(DRILL).static_html()
    assert page.count("<details><summary>Show the model answer</summary>") == len(DRILL)
    for item in DRILL:
        folded = page.split(html.escape(item.question), 1)[1].split("</details>", 1)[0]
        assert html.escape(item.answer) in folded and all(html.escape(p) in folded for p in item.points)


def test_drill_data_is_chapter_six_questions_with_three_to_five_key_points() -> None:
    assert len(DRILL) >= 10 and len({d.question for d in DRILL}) == len(DRILL)
    for d in DRILL:
        assert 3 <= len(d.points) <= 5, d.question
        assert d.question.endswith("?") and 2 <= d.answer.count(". ") + 1 <= 6, d.question
        assert all(p.endswith(".") for p in d.points), d.question  # the points, read in order, are the answer
    with pytest.raises(ValueError, match="at least one question"):
        InterviewDrill([])
