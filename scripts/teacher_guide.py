"""Write the generated parts of the teacher's guide, ``docs/teacher-guide.md``.

    python scripts/teacher_guide.py           # are the generated blocks up to date? (exit 1 if not)
    python scripts/teacher_guide.py --write   # rewrite them

These blocks of the guide are generated, each between ``<!-- NAME -->`` and ``<!-- /NAME -->``:

* ``class-plan``: the lesson objective, the 90 minutes as taught, the cut cues, pre-reading and
  homework (``scripts/class_plan.py``);
* ``checklist``: what to make sure of the day before, each item naming the ``make check-class``
  check (``scripts/check_class.py``), the make target or the manual step that covers it;
* ``lesson-plan``: the core route's reading time, one row per chapter of the core route
  (``msgmodel.course.route.core_route()``: its core sections and its minutes by the careful reading
  model) with the demo to run live (``DEMOS`` below), then the minutes left;
* ``exit-ticket``: the exit ticket with its answers and rubric (``class_plan.TICKET``); the
  student's side, without them, is written whole to ``docs/exit-ticket.md``;
* ``quiz-key``: the answer of every self-check question of chapter 06 (``QUIZ``);
* ``drill-key``: the key points of every interview question of chapter 06 (``DRILL``);
* ``drill-rubric``: how to score the drill's open answers (``class_plan.DRILL_RUBRIC``);
* ``slide-map``: each live demo by its slide: the chapter, the slide number reveal.js shows on the
  static deck (and RISE's live deck, the same notebook) and the deck's address of that slide
  (``scripts/build_slides.py``: the demos are the code cells tagged ``demo``).

``tests/test_teacher_guide.py`` checks that the guide holds exactly these blocks, so the minutes,
the quiz answers and the drill's key points cannot drift from the route and the exercise module.
The rest of the guide (goals, prompts, wrong answers, the answer key) is written by hand; its key
blocks are run against the checkers by the same test file.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "scripts"))

import class_plan  # noqa: E402
from check_class import CHECKS  # noqa: E402

from msgmodel.course.exercises.ch06 import DRILL, QUIZ  # noqa: E402
from msgmodel.course.route import Route, core_route  # noqa: E402

GUIDE = ROOT / "docs" / "teacher-guide.md"
TICKET = ROOT / "docs" / "exit-ticket.md"
LESSON_MINUTES = 90

DEMOS: dict[str, str] = {
    "00": "The rules: send the last-three-messages window to the local API and read its 400 aloud",
    "01": "§3: `keep=6` answers 16 prompts; `keep=7` gets the 400 at prompt 4; §4 draws where the cut fell",
    "02": "§4: ask both summaries what was read and what failed (0 of 7 key facts vs 7 of 7)",
    "03": "§5: mypy passes the `toolUseId` slip on `dict[str, Any]`, reports 2 errors with a TypedDict",
    "04": "§6: mypy finds the field read in the wrong branch and the forgotten block kind",
    "05": "§2: chapter 01's conversation replayed on the new `compact`: the cut moves back, HTTP 200",
    "06": "I5: the same in-place cleanup on frozen blocks raises `AttributeError`",
    "07": "§2a: mypy catches all 3 mistakes in the 4 typed ways to write the model, none in `dict[str, Any]`",
}
"""The demo to run live in each chapter (a core code cell; its section of the chapter)."""


def lesson_plan(route: Route) -> str:
    """The lesson-plan table: each chapter of the core route, its live demo and its clock (minutes from the start).

    Then the time left for questions and the exit ticket, and the total.
    """
    missing = [c.chapter for c in route.chapters if c.chapter not in DEMOS]
    if missing:
        raise ValueError(f"no live demo chosen for chapter(s) {', '.join(missing)}: add them to DEMOS")
    lines = ["| # | chapter | core sections | run live | min | clock |", "|---|---|---|---|---:|---:|"]
    start = 0.0
    for c in route.chapters:
        clock = f"{start:.0f}–{start + c.minutes:.0f}"
        start += c.minutes
        lines.append(
            f"| {c.chapter} | {c.title} | {' · '.join(c.sections)} | {DEMOS[c.chapter]} | {c.minutes} | {clock} |"
        )
    spare = round(LESSON_MINUTES - route.total, 1)
    if spare < 0:
        raise ValueError(f"the core route takes {route.total} min, more than the {LESSON_MINUTES}-minute lesson")
    lines.append(f"| | left over (the class plan pays for questions) | | | {spare} | {start:.0f}–{LESSON_MINUTES} |")
    lines.append(f"| | **total** | | | **{LESSON_MINUTES}** | |")
    return "\n".join(lines)


def quiz_key() -> str:
    """The self-check quiz of chapter 06, each question with its right option and why."""
    lines = []
    for i, q in enumerate(QUIZ, start=1):
        lines.append(f"{i}. {q.prompt}")
        lines.append(f"    - **Answer:** {q.answer}")
        lines.append(f"    - **Why:** {q.explain}")
    return "\n".join(lines)


def drill_key() -> str:
    """The interview drill of chapter 06, each question with the key points a good answer makes."""
    lines = []
    for i, d in enumerate(DRILL, start=1):
        lines.append(f"{i}. **{d.question}**")
        lines.extend(f"    - {p}" for p in d.points)
    return "\n".join(lines)


def slide_map() -> str:
    """The live demos by their slides: a row per demo cell (chapter, the lesson plan's demo, slide n/total, address)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import build_slides
    import nbformat

    lines = ["| # | demo (the lesson plan's) | cell | slide | static deck |", "|---|---|---|---:|---|"]
    for path in sorted(build_slides.NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        deck = build_slides.deck_notebook(nbformat.read(path, as_version=4), path.stem)
        total = build_slides.slide_count(deck)
        for cell, n in build_slides.demo_slides(deck):
            where = f"`build/slides/{path.stem}.slides.html#/{n - 1}`"
            lines.append(f"| {path.stem[:2]} | {DEMOS.get(path.stem[:2], '')} | `{cell}` | {n}/{total} | {where} |")
    return "\n".join(lines)


def blocks() -> dict[str, str]:
    """The generated blocks of the guide, by marker name."""
    return {
        "class-plan": class_plan.render_plan(),
        "checklist": class_plan.render_checklist({c.id for c in CHECKS}, class_plan.RUNTIME_MB),
        "lesson-plan": lesson_plan(core_route()),
        "exit-ticket": class_plan.render_ticket(teacher=True),
        "quiz-key": quiz_key(),
        "drill-key": drill_key(),
        "drill-rubric": class_plan.render_drill_rubric(tuple((d.question, tuple(d.points)) for d in DRILL)),
        "slide-map": slide_map(),
    }


def block_pattern(name: str) -> re.Pattern[str]:
    """The regex of one generated block; group 2 is its body."""
    return re.compile(rf"(<!-- {re.escape(name)} -->\n)(.*?)\n?(<!-- /{re.escape(name)} -->)", re.S)


def with_blocks(text: str, new: dict[str, str]) -> str:
    """``text`` with every generated block replaced by its new body (``SystemExit`` if a marker is missing)."""
    for name, body in new.items():
        pattern = block_pattern(name)
        if not pattern.search(text):
            raise SystemExit(f"{GUIDE.name} has no <!-- {name} --> … <!-- /{name} --> block")
        text = pattern.sub(lambda m, body=body: m[1] + body + "\n" + m[3], text, count=1)
    return text


def main(argv: list[str]) -> int:
    text = GUIDE.read_text(encoding="utf-8")
    new = with_blocks(text, blocks())
    ticket = class_plan.render_student_ticket()
    old_ticket = TICKET.read_text(encoding="utf-8") if TICKET.exists() else ""
    if new == text and ticket == old_ticket:
        print(f"{GUIDE.name}, {TICKET.name}: generated blocks up to date")
        return 0
    if "--write" in argv:
        GUIDE.write_text(new, encoding="utf-8")
        TICKET.write_text(ticket, encoding="utf-8")
        print(f"{GUIDE.name}: generated blocks rewritten; {TICKET.name} written")
        return 0
    print(f"{GUIDE.name} or {TICKET.name}: stale; run `python scripts/teacher_guide.py --write`", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
