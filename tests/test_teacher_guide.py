"""The teacher's guide (docs/teacher-guide.md): its answer key passes the checkers, its tables match the code.

The key blocks are run in a fresh namespace holding only what the chapter's exercise cell imports
(``check``, ``hint``, ``reveal``), and the name the exercise cell checks is handed to ``check``.
The lesson plan, the quiz answers and the drill's key points are compared with
``core_route()``, ``QUIZ`` and ``DRILL``.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import build_student
import class_plan
import pytest
import teacher_guide
from guide import GUIDE, ROOT, answer_key, chapter_exercises, checked_names, guide_text, key_answer

from msgmodel.course.exercises import check
from msgmodel.course.exercises.ch06 import DRILL, QUIZ
from msgmodel.course.exercises.key import AnswerKeyError, parse_key
from msgmodel.course.route import core_route

IDS = [ex.id for ex in chapter_exercises()]


NAMES = checked_names()


def block(name: str) -> str:
    found = teacher_guide.block_pattern(name).search(guide_text())
    assert found, f"the guide lacks its <!-- {name} --> block"
    return str(found[2])


def test_every_exercise_has_exactly_one_key_block() -> None:
    text = guide_text()
    markers = re.findall(r"<!-- key: (\S+) -->", text)
    assert sorted(markers) == sorted(set(markers)), "an exercise has two key blocks"
    key = answer_key()
    assert sorted(key) == sorted(markers), "a <!-- key: … --> marker is not followed by a ```python block"
    assert sorted(key) == IDS
    assert len(IDS) == 24 and sorted(NAMES) == IDS


@pytest.mark.parametrize("ex_id", IDS)
def test_the_key_block_passes_the_checker(ex_id: str) -> None:
    verdict = check(ex_id, key_answer(ex_id))
    assert verdict.passed, repr(verdict)


def test_the_answer_key_parser_reads_only_marked_python_blocks() -> None:
    text = (
        "<!-- key: 01.1 -->\n```python\nx = 1\n```\n\n"  # a marked block
        "```python\ny = 2\n```\n"  # an unmarked one: not part of the key
        "<!-- key: 01.2 -->\n```python\nz = 3\n```\n"
    )
    assert parse_key(text) == {"01.1": "x = 1\n", "01.2": "z = 3\n"}
    with pytest.raises(AnswerKeyError, match=r"^guide.md:13: exercise 01.1 has two key blocks$"):
        parse_key(text + "<!-- key: 01.1 -->\n```python\nw = 4\n```\n", "guide.md")


def test_the_lesson_plan_agrees_with_the_core_route() -> None:
    route = core_route()
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in block("lesson-plan").splitlines()[2:]]
    chapters, spare, total = rows[:-2], rows[-2], rows[-1]
    assert [(r[0], r[1], r[2], float(r[4])) for r in chapters] == [
        (c.chapter, c.title, " · ".join(c.sections), c.minutes) for c in route.chapters
    ], "stale: run `python scripts/teacher_guide.py --write`"
    assert all(r[3] for r in chapters), "every chapter names a demo to run live"
    assert float(spare[4]) == round(90 - route.total, 1) >= 0
    assert total[4] == "**90**"
    assert round(sum(float(r[4]) for r in chapters) + float(spare[4]), 1) == 90
    clocks = [tuple(int(x) for x in r[5].split("–")) for r in [*chapters, spare]]
    assert clocks[0][0] == 0 and clocks[-1][1] == 90, "the clock runs from minute 0 to minute 90"
    assert all(a[1] == b[0] for a, b in itertools.pairwise(clocks)), "each part starts when the one before ends"
    assert all(abs(b - a - float(r[4])) <= 1 for (a, b), r in zip(clocks, [*chapters, spare], strict=True)), (
        "clock matches min"
    )


def test_the_quiz_answers_match_quiz() -> None:
    shown = block("quiz-key")
    assert shown == teacher_guide.quiz_key(), "stale: run `python scripts/teacher_guide.py --write`"
    answers = re.findall(r"^    - \*\*Answer:\*\* (.*)$", shown, re.M)
    assert answers == [q.answer for q in QUIZ]
    assert all(q.answer in q.options for q in QUIZ)


def test_the_drill_points_match_drill() -> None:
    shown = block("drill-key")
    assert shown == teacher_guide.drill_key(), "stale: run `python scripts/teacher_guide.py --write`"
    questions = re.findall(r"^\d+\. \*\*(.*)\*\*$", shown, re.M)
    assert questions == [d.question for d in DRILL]
    points = re.findall(r"^    - (.*)$", shown, re.M)
    assert points == [p for d in DRILL for p in d.points]


def test_the_script_rewrites_only_the_blocks() -> None:
    text = "intro\n<!-- quiz-key -->\nold\n<!-- /quiz-key -->\nafter\n"
    new = teacher_guide.with_blocks(text, {"quiz-key": "1. new"})
    assert new == "intro\n<!-- quiz-key -->\n1. new\n<!-- /quiz-key -->\nafter\n"
    assert teacher_guide.with_blocks(new, {"quiz-key": "1. new"}) == new
    with pytest.raises(SystemExit):
        teacher_guide.with_blocks("no markers", {"quiz-key": "x"})


def test_the_guide_is_clean_markdown() -> None:
    """Headings in order, no raw HTML but comments, every relative link resolves (the doc site renders it)."""
    text = guide_text()
    prose = re.sub(r"^```.*?^```$", "", text, flags=re.M | re.S)
    levels = [len(m[1]) for m in re.finditer(r"^(#+) ", prose, re.M)]
    assert levels[0] == 1 and levels.count(1) == 1
    assert all(b <= a + 1 for a, b in itertools.pairwise(levels)), "a heading skips a level"
    without_code = re.sub(r"`[^`\n]*`", "", prose)
    assert re.findall(r"<(?!!--)[A-Za-z/][^>]*>", without_code) == []
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", prose):
        if not re.match(r"[a-z]+://", target):
            assert (GUIDE.parent / target).resolve().exists(), f"dead link: {target}"


def test_the_guide_says_how_to_get_student_copies_and_help() -> None:
    text = guide_text()
    for needle in ("make student", "build/student/", 'hint("01.1")', 'reveal("01.1", confirm=True)'):
        assert needle in text
    assert (ROOT / "Makefile").read_text(encoding="utf-8").count("\nstudent: venv\n") == 1


def test_the_guide_links_every_chapter() -> None:
    text = guide_text()
    for path in build_student.chapters():
        assert f"](../notebooks/{path.name})" in text, f"no link to {path.name}"
        assert re.search(rf"^## {path.name[:2]} · ", text, re.M), f"no section for chapter {path.name[:2]}"


def _words(path: Path) -> int:
    return len(re.findall(r"\S+", path.read_text(encoding="utf-8")))


def test_the_guide_has_goals_prompts_and_wrong_answers_for_every_chapter() -> None:
    sections = re.split(r"^## (?=\d\d · )", guide_text(), flags=re.M)[1:]
    assert len(sections) == 8
    for s in sections:
        goals = re.search(r"### Learning goals\n\n(.*?)\n\n###", s, re.S)
        prompts = re.search(r"### Discussion prompts\n\n(.*?)\n\n###", s, re.S)
        assert goals and 3 <= len(re.findall(r"^- ", goals[1], re.M)) <= 4, s[:40]
        assert prompts and 2 <= len(re.findall(r"^- ", prompts[1], re.M)) <= 3, s[:40]
        assert "### Common wrong answers" in s and "### Answer key" in s, s[:40]
    assert _words(GUIDE) > 3000


def test_the_guide_parses_as_intended() -> None:
    """Parsed as CommonMark (what GitHub and myst start from): one list per key, four tables, the python fences."""
    markdown_it = pytest.importorskip("markdown_it")
    tokens = markdown_it.MarkdownIt("commonmark").enable("table").parse(guide_text())
    top = [t for t in tokens if t.level == 0]
    assert sum(t.type == "ordered_list_open" for t in top) == 2  # the quiz key and the drill key
    items = [t for t in tokens if t.type == "list_item_open" and t.level == 1]
    lists = [t for t in top if t.type == "ordered_list_open"]
    assert [sum(1 for i in items if lst.map[0] <= i.map[0] < lst.map[1]) for lst in lists] == [len(QUIZ), len(DRILL)]
    # the class plan, the reading time, the drill rubric, the slide map
    assert sum(t.type == "table_open" for t in top) == 4
    demos = teacher_guide.slide_map().count("\n") - 1
    rows = (1 + len(class_plan.PLAN) + 1) + (1 + len(core_route().chapters) + 2) + (1 + len(DRILL)) + (1 + demos)
    assert sum(t.type == "tr_open" for t in tokens) == rows
    fences = [t for t in top if t.type == "fence"]
    assert [t.info for t in fences] == ["python"] * (len(IDS) + 2)  # the key, and the exit ticket's two snippets


def test_the_slide_map_names_every_demo_by_its_slide() -> None:
    """Each chapter's demo (a code cell tagged ``demo``) with its slide on the deck, as the deck builder counts."""
    generated = teacher_guide.slide_map()
    assert block("slide-map") == generated, "stale slide map: run `python scripts/teacher_guide.py --write`"
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in generated.splitlines()[2:]]
    assert {r[0] for r in rows} == {c.chapter for c in core_route().chapters}, "a chapter without a demo"
    for chapter, _demo, cell, slide, where in rows:
        n, total = (int(x) for x in slide.split("/"))
        assert 1 <= n <= total and cell.strip("`").startswith(chapter) and f"#/{n - 1}`" in where
