"""Every exercise serves the thesis and says so: its goal in the chapter and the guide; its answer checked for real.

The thesis of the series is one authoritative typed model of a message (constructors the only way to
build, readers the only way to read). Issue 25 replaced the exercises that tested API trivia or an
implementation detail (01.2, 03.3, 04.1, 05.3, 06.2, 07.3). This module holds the checks that are
particular to them: that the closed answer of 03.3 is what the knowledge scanners see, that 04.1's
"mypy" column is what mypy reports, that 01.2's clean cuts are the validator's. The general
discipline (the key passes, wrong answers fail with a hint, starters are blank) is in
``tests/test_exercises.py`` for every exercise.
"""

from __future__ import annotations

import re

import pytest
from guide import ROOT, answer_key, chapter_exercises, guide_text, key_answer

from msgmodel.course.exercises import Exercise, check
from msgmodel.course.exercises.closed import closed

SOURCES = ROOT / "notebooks" / "src"


def _words(text: str) -> str:
    return " ".join(text.split())


def _exercise_markdown(ex: Exercise) -> str:
    """The markdown cell that states exercise ``ex`` in its chapter's source, as one line of words."""
    source = next(SOURCES.glob(f"{ex.id[:2]}_*.py")).read_text(encoding="utf-8")
    cells = re.split(r"^# %%.*$", source, flags=re.M)
    cell = next(c for c in cells if re.search(rf"^# \*\*{re.escape(ex.id)} ", c, re.M))
    return _words(" ".join(re.sub(r"^# ?", "", line) for line in cell.splitlines()))


def _guide_section(ex: Exercise) -> str:
    text = guide_text()
    start = text.index(f"#### {ex.id} ")
    end = text.find("\n#", start + 1)
    return _words(text[start : end if end != -1 else len(text)])


@pytest.mark.parametrize("ex", chapter_exercises(), ids=lambda e: e.id)
def test_every_exercise_states_its_goal_in_the_chapter_and_the_guide(ex: Exercise) -> None:
    assert len(ex.goal) > 40 and ex.goal.endswith("."), f"{ex.id}: a goal is one sentence"
    assert f"*Goal:* {_words(ex.goal)}" in _exercise_markdown(ex), f"{ex.id}: its chapter does not state the goal"
    assert f"*Goal:* {_words(ex.goal)}" in _guide_section(ex), f"{ex.id}: the guide does not state the goal"


def test_the_03_3_answer_is_what_the_scanners_see() -> None:
    """The closed answer of 03.3 (four functions go around the model) agrees with the chapter's two scanners."""
    from msgmodel.course.exercises.ch03 import _REVIEWED, REVIEW_SNIPPET
    from msgmodel.course.knowledge import scan_source

    answers = closed("03.3")
    copies = {name for name in _REVIEWED if answers.is_right(name, "chosen")}
    assert copies == {"first_words", "export_row", "search_queries", "as_prompt"}
    assert {s.function for s in scan_source(REVIEW_SNIPPET)} == copies
    assert set(key_answer("03.3")) == copies  # type: ignore[call-overload]
    assert "m.content" in REVIEW_SNIPPET.split("def first_words")[1].split("def ")[0]


def test_04_1_takes_its_mypy_column_from_mypy_and_label_is_silently_wrong() -> None:
    from msgmodel.course.exercises import ch04

    assert ch04._flagged() == {"render", "to_wire"}
    ran = ch04._run_on_image()
    assert ran["label"] == "text"  # wrong for an image, and mypy says nothing
    assert ran["calls_of"] == [] and ran["text_of"] == ""
    assert str(ran["render"]).startswith("AssertionError") and str(ran["to_wire"]).startswith("AttributeError")
    assert key_answer("04.1") == {
        "render": "mypy",
        "to_wire": "mypy",
        "label": "silent",
        "calls_of": "fine",
        "text_of": "fine",
    }


def test_01_2_clean_cuts_are_the_validators_and_not_the_roles() -> None:
    from msgmodel.core.message import from_api, is_clean_user_start
    from msgmodel.course.exercises import ch01

    messages = from_api(ch01.cut_history())
    right = ch01._clean_cuts()
    assert right == {i for i, m in enumerate(messages) if m.role == "assistant" or is_clean_user_start(m)}
    assert not right >= {i for i, m in enumerate(messages) if m.role == "user"}, "the role alone must not be enough"
    assert 4 not in right and messages[4].role == "user"  # a result with the user's text after it
    assert not check("01.2", {i for i, m in enumerate(messages) if m.role == "user"}).passed


def test_06_2_keeps_unknown_kinds_and_fields_and_refuses_what_it_cannot_read() -> None:
    from msgmodel.course.exercises import ch06

    verdicts = {label: ch06._at_the_boundary(doc)[0] for label, doc in ch06.BOUNDARY_CASES.items()}
    assert verdicts == key_answer("06.2")
    assert set(verdicts.values()) == {"kept", "refused"}


def test_one_answer_to_which_is_the_tag() -> None:
    """OpaqueBlock.type is "opaque" and its wire kind is .kind: chapter 04 and the guide say once which is the tag."""
    from msgmodel import OpaqueBlock

    image = OpaqueBlock({"type": "image", "source": {}})
    assert (image.type, image.kind) == ("opaque", "image")
    chapter = _exercise_markdown(next(ex for ex in chapter_exercises() if ex.id == "04.2"))
    assert "Which is the tag? `.type`, always" in chapter
    assert "The tag is `.type`, on every class" in _words(guide_text())


def test_the_replaced_exercises_are_gone() -> None:
    """No chapter, guide or key still asks the old questions (API trivia and implementation details)."""
    text = guide_text() + "".join(p.read_text(encoding="utf-8") for p in SOURCES.glob("*.py"))
    for old in ("CHOICES", "CLASSIFY_LINES", "REPAIR_PUZZLE", "CC_LINES", "prediction_cases", "tool_names_of"):
        assert old not in text, old
    assert set(answer_key()) == {ex.id for ex in chapter_exercises()}


def test_no_goal_is_shared() -> None:
    goals = [ex.goal for ex in chapter_exercises()]
    assert len(set(goals)) == len(goals) == 24
