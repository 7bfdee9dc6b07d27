"""The 90-minute class as taught: objective, clock, cut cues, pre-reading, homework, exit ticket and rubrics.

This module owns the teaching plan as data; ``scripts/teacher_guide.py`` renders it into
``docs/teacher-guide.md`` (the ``class-plan``, ``exit-ticket`` and ``drill-rubric`` blocks) and
writes the student's side of the exit ticket, ``docs/exit-ticket.md`` (the questions, no rubric).
``tests/test_teacher_guide_plan.py`` checks the arithmetic (the clock runs 0 to 90 without a gap,
chapter 04 gets the most minutes), that every homework exercise exists, that the ticket's mypy
claim holds, and that the drill rubric covers exactly the drill of chapter 06.

The minutes are a teaching budget, not a reading one: prose paraphrased aloud, each demo with a
prediction first, questions and a written exit ticket paid for. The reading-time table of the guide
(``lesson-plan``, generated from ``core_route()``) stays as the self-study budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

RUNTIME_MB: Final = 608
"""MB of the runtime venv (``requirements.txt`` alone, a class image), measured as ``make test-runtime`` makes it."""

OBJECTIVE: Final = (
    "By the end of the 90 minutes a student can argue, from the two bugs of the original step-31 tutorial, "
    "why an agent's chat messages deserve **one typed content model** instead of `list[dict[str, Any]]` "
    "(the same protocol knowledge was copied into several modules, and the copies drifted into two bugs: "
    "a 400 and summaries that lost the tools' work), and can decide **when to consolidate** (knowledge "
    "copied at least twice, and the copies have already cost a bug); they can then read and dispatch on "
    "messages with the model's readers and `match` + `assert_never`."
)
"""The one lesson-level objective; the exit ticket tests its two halves."""


@dataclass(frozen=True)
class Segment:
    """One stretch of the class: its minutes, what to show, what to run live, and what goes when you are late."""

    minutes: int
    title: str
    chapter: str | None  # "04", or None for setup, questions, the ticket, the buffer
    keep: str  # what stays in the class
    live: str  # the demo run in front of the class ("" if none), with its prediction
    demo_minutes: int  # of ``minutes``, the demo (prediction, run, reading the output)
    cut: str  # what to cut first if you reach this segment late ("" if nothing can go)


PLAN: Final[tuple[Segment, ...]] = (
    Segment(
        5,
        "Setup and hook",
        None,
        "Students log in (or run `make lab`) and open their copy of chapter 00 while you ask the hook question "
        'from 01\'s *Why*: "an agent worked for weeks, then every request got a 400: what changed?"',
        "",
        0,
        "",
    ),
    Segment(
        6,
        "00 · the protocol",
        "00",
        'The four-message diagram (the handout has it), the rules slide, the prediction "which rule does a window '
        'of the last three messages break?"',
        "The rules demo: the last-three window sent to the local API; read the 400 aloud",
        2,
        'the chapter map, "Three ways to use the series" and the glossary (they are pre-reading)',
    ),
    Segment(
        10,
        "01 · bug 1, the orphan `tool_result`",
        "01",
        "§3 `keep=6` passes and `keep=7` gets the 400, §4 where the cut fell, §5 the user-role table; "
        '§7–§9 become one sentence: "the fix is copy #1"',
        "§3: predict which of `keep=6` and `keep=7` breaks, then run both",
        3,
        '§1\'s 15-capture evidence table (say "15 of 15 captures agree") and §7–§9',
    ),
    Segment(
        7,
        "02 · bug 2, lost tool context",
        "02",
        "The side-by-side transcripts and §4's 0 of 7 vs 7 of 7 facts",
        "§4: ask both summaries what was read and what failed",
        2,
        "§3 (why flatten) and §6 (the `toolUseId` slip returns in 03)",
    ),
    Segment(
        10,
        "03 · the root cause",
        "03",
        "The copy count (one piece of knowledge, N copies) and §5's mypy demo",
        "§5: mypy is silent on `dict[str, Any]` and reports 2 errors with a `TypedDict`",
        3,
        "§4's tracer table: name the copies, do not trace them",
    ),
    Segment(
        18,
        "04 · one authoritative model (the heart)",
        "04",
        "The tagged union, string-or-list content, constructors and readers, §6 `match` + `assert_never` with the "
        "code visible, the codec in one sentence",
        "§6: predict what mypy says about the wrong-branch read and the forgotten kind, then run it",
        4,
        "nothing from §6; shorten the codec (§7) to its one-line summary",
    ),
    Segment(
        7,
        "05 · the proof",
        "05",
        "Chapter 01's conversation replayed on the new `compact`: HTTP 200; name the regression tests",
        "§2: the replay, the cut moves back, HTTP 200",
        2,
        "the Hypothesis properties: name them, do not run them",
    ),
    Segment(
        7,
        "06 · discussion",
        "06",
        "Cold-call drill I3 (tagged union or class hierarchy), then run I5",
        "I5: the same in-place cleanup on frozen blocks raises `AttributeError`",
        2,
        "the second drill question",
    ),
    Segment(
        3,
        "07 · when to consolidate",
        "07",
        '§1 only: the rule "twice, plus a bug"; the 4-way comparison (§2) is homework',
        "",
        0,
        "say the rule in one sentence and go to the questions",
    ),
    Segment(5, "Questions", None, "Open questions; the lesson's objections below are the likely ones", "", 0, ""),
    Segment(8, "Exit ticket", None, "The four items below, on paper or in `docs/exit-ticket.md`", "", 0, ""),
    Segment(4, "Buffer", None, "Spend it where the class got stuck; it absorbs a slow start", "", 0, ""),
)
"""The class, in order; the minutes add up to 90."""

CUES: Final[tuple[tuple[int, str], ...]] = (
    (
        10,
        "still in setup or chapter 00: cut 00 to the diagram and the demo; give the rules slide as reading "
        "(the handout has them)",
    ),
    (
        25,
        "not into 02 yet: cut 02 to its 0 of 7 vs 7 of 7 result on the committed output, no live run",
    ),
    (
        40,
        "not into 04 yet: cut 03 to §5 alone, and 05 to its replay, so 04 keeps its 18 minutes",
    ),
    (
        60,
        'still in 04: finish §6, then cut 05 to one sentence ("the same conversations now get HTTP 200") and '
        "06 to the I5 demo",
    ),
    (
        75,
        "not at the questions yet: drop 07 to its rule in one sentence and the questions to two; **never cut the "
        "exit ticket**",
    ),
)
"""(minute, what to cut when you are behind at that minute)."""

PRE_READING: Final[tuple[str, ...]] = (
    "Chapter 00's *Chapter map*, *Three ways to use the series* and the *Glossary* (about 5 minutes)",
    "The class handout, `docs/cheatsheet.md` (printed: `make cheatsheet`): its diagram and the three pairing errors",
    "Optional: run chapter 00 top to bottom once, so setup problems show up before class",
)

HOMEWORK: Final[tuple[tuple[str, str], ...]] = (
    ("01.3", "the smallest window at least `keep` long that the API accepts"),
    ("03.2", "a `TypedDict` that makes mypy reject the `toolUseId` slip"),
    ("04.2", "count the kinds with `match` + `assert_never`"),
    ("05.1", "a regression test that fails when a compaction drops recent messages"),
    ("07.2", "rebuild a history from the engine's events"),
)
"""(exercise id, what it asks): on-thesis exercises, checked by ``check`` (or graded with nbgrader)."""

HOMEWORK_READING: Final = (
    "Chapter 07 §2, the 4-way comparison (what mypy catches with `TypedDict`, dataclass, pydantic, msgspec)"
)


# ---------------------------------------------------------------------------------------
# The exit ticket
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rubric:
    """How to mark one open answer: what a full, a partial and a missing answer look like."""

    full: str
    partial: str
    missing: str
    wrong: tuple[str, ...]  # common wrong answers, each with why it is tempting and why it is wrong


@dataclass(frozen=True)
class TicketItem:
    """One exit-ticket question: the student sees ``question`` (and ``body``); the teacher the rest."""

    title: str
    question: str
    body: str  # a code snippet or scenario list shown to the student (markdown), or ""
    points: int
    answer: str  # the model answer (closed items: the key)
    rubric: Rubric | None  # open items only


TICKET_SNIPPET_DICTS: Final = """\
from typing import Any


def result_ids(history: list[dict[str, Any]]) -> list[str]:
    return [b["toolUseId"] for m in history for b in m["content"] if b["type"] == "tool_result"]
"""

TICKET_SNIPPET_MODEL: Final = """\
from msgmodel import Message, tool_results_of


def result_ids(history: list[Message]) -> list[str]:
    return [r.toolUseId for m in history for r in tool_results_of(m)]
"""

CONSOLIDATE: Final[tuple[tuple[str, str, str], ...]] = (
    (
        "a",
        "Two modules each pick the `tool_use` blocks out of message dicts. Last week one of them forgot that content "
        "can be a plain string, and a production run crashed on it.",
        "now",
    ),
    (
        "b",
        "One module renders messages for a log viewer. A colleague proposes a `ProviderMessage` base class "
        '"for when we add a second provider".',
        "premature",
    ),
    (
        "c",
        "Three scripts each count the tool calls in a saved session for a dashboard. They agree today, and no "
        "bug has been reported.",
        "wait",
    ),
    (
        "d",
        "The compactor and the session store each decide where a history may be cut. A history trimmed by one "
        "and saved by the other was refused by the API with a 400.",
        "now",
    ),
)
"""Exit-ticket item 1: (letter, scenario, verdict): consolidate now, wait, or premature."""

TICKET: Final[tuple[TicketItem, ...]] = (
    TicketItem(
        "Consolidate now, wait, or premature?",
        "For each scenario write **now**, **wait** or **premature**.",
        "\n".join(f"- ({k}) {s}" for k, s, _ in CONSOLIDATE),
        4,
        ", ".join(f"({k}) {v}" for k, _, v in CONSOLIDATE)
        + '. (a) and (d): copies of one piece of knowledge, and the copies already cost a bug ("twice, plus a '
        'bug"). (b): no copy and no bug, only a guess about the future. (c): three copies but no cost yet: write '
        "it down and wait.",
        None,
    ),
    TicketItem(
        "What does mypy see?",
        "Both functions below contain the same slip. For each, does `mypy --strict` report it? Answer yes or no, "
        "and say why in one line.",
        f"```python\n{TICKET_SNIPPET_DICTS}```\n\n```python\n{TICKET_SNIPPET_MODEL}```",
        1,
        'The first: no. `dict[str, Any]` means any string key with any value, so `b["toolUseId"]` is fine to '
        "mypy and raises `KeyError` at run time, on the first tool result. The second: yes, `ToolResultBlock` has no "
        "attribute `toolUseId`: the model's field is `tool_use_id`, and mypy knows it (the same slip as chapter "
        "02's, caught as in chapter 03 §5).",
        None,
    ),
    TicketItem(
        "One cause, one cure",
        "The original tutorial shipped two bugs: step 29 (a trimmed history began with an orphan `tool_result`) "
        "and step 30 (a summary lost what the tools had done). In two or three sentences: what one cause do they "
        "share, and what does one typed model change about it?",
        "",
        2,
        "Both bugs came from the same protocol knowledge (what a message's content holds, how tool calls and "
        "results pair) being written again in each module that touched `list[dict[str, Any]]`, with no owner and "
        "nothing checking the copies. One typed model puts that knowledge in one place (the structs, their "
        "constructors and readers), so a rule is fixed once and mypy checks every use: narrowing by the tag, "
        "`match` + `assert_never` exhaustive over the kinds.",
        Rubric(
            full="Names the shared cause as **copies** of one piece of protocol knowledge over untyped dicts, "
            "**and** says what the model changes: one owner of that knowledge **and** a type checker that sees "
            "every use (either of these two is enough for the second half if it is concrete).",
            partial='One half only: "the dicts were untyped" without the copies, or "add types" / "use '
            'dataclasses" without one place that owns the rules; or a correct cause with a vague cure '
            '("be more careful").',
            missing='Restates a symptom ("the cut was in the wrong place", "the summary was bad") or fixes one '
            'bug only ("walk the cut back to a clean start").',
            wrong=(
                '"More tests would have caught them": tempting because tests are the usual cure; the step-29 bug '
                "depends on `keep` modulo the round length, and the team's tests were green (chapter 01). Tests "
                "check behaviour, not that every copy agrees.",
                '"The model (LLM) misbehaved": tempting because a 400 comes from the API; both requests were '
                "built by our code, and the local API reproduces them with a scripted model.",
                '"Use pydantic": tempting because it validates; a library is a means, the cure is one authority '
                "(chapter 07 compares four ways to write it).",
            ),
        ),
    ),
    TicketItem(
        "Where does it live?",
        "Name one piece of message knowledge the two bugs needed, and where it lives after the refactor "
        "(one sentence).",
        "",
        2,
        'For example: "what counts as a clean place to start a trimmed history lives in `is_clean_user_start`, '
        'in `msgmodel/core/message.py`"; or "which blocks of a message are tool calls: `tool_uses_of`"; or '
        '"a `tool_result`\'s fields: `ToolResultBlock`".',
        Rubric(
            full="A specific piece of knowledge (a rule or a shape: a clean user start, the fields of a "
            "`tool_result`, string-or-list content) **and** the one place that owns it (the model module, or a "
            "named constructor, reader or struct of it).",
            partial='The right place with vague knowledge ("message stuff lives in `message.py`"), or a specific '
            'piece of knowledge with a vague place ("in a shared helper").',
            missing='No piece of knowledge, or a place that is a consumer ("in the compactor", "in the '
            'summarizer", "wherever it is used"): that is another copy.',
            wrong=(
                '"In the compactor": tempting because the bug showed there; the compactor is one of the copies, and '
                "the summarizer and the store need the same rule.",
                '"In the API" / "the API validates it": tempting because the API refuses bad requests; it refuses '
                "them in production, after the bug has happened.",
            ),
        ),
    ),
)
"""The exit ticket: 9 points, about 8 minutes."""


# ---------------------------------------------------------------------------------------
# The interview drill's rubric (chapter 06's ``DRILL``)
# ---------------------------------------------------------------------------------------

DRILL_RUBRIC: Final[dict[str, tuple[int, str]]] = {
    "Why is a message's content a str | list of blocks, and not always a list of blocks?": (
        1,
        '"A list is always simpler, convert on load": the round trip is then no longer byte for byte.',
    ),
    "Why define ThinkingBlock before any feature uses thinking?": (
        1,
        '"YAGNI: add it when a feature needs it": the blocks arrive anyway, and a tool loop that loses its opening one '
        "gets a 400.",
    ),
    "Tagged union or class hierarchy for content blocks?": (
        0,
        '"A hierarchy, it is more object-oriented": an open base class defeats exhaustiveness (`assert_never`).',
    ),
    "What does it cost to add a block kind?": (
        1,
        '"Every function that reads blocks must change": readers that filter by type need no change.',
    ),
    "Why are the blocks frozen?": (
        1,
        '"Frozen makes them fast" or "frozen makes them deeply immutable": it is about shared blocks, and it is '
        "shallow.",
    ),
    "Where does validation belong?": (
        0,
        '"Everywhere, to be safe": re-validating inside is the copying the lesson removes.',
    ),
    'Why not LangChain\'s start_on="human" to pick where a trimmed window starts?': (
        0,
        '"LangChain is buggy": it is right for OpenAI\'s shape, where tool results are not user messages.',
    ),
    "Why does the validator use the API's exact wording?": (
        0,
        '"To look like the real API": the point is one search finding local and production failures.',
    ),
    "Repair a broken history, or reject it?": (
        0,
        '"Repair silently, users hate errors": it hides the bug that broke the history.',
    ),
    'How do you test an invariant like "a clean start is always a valid start"?': (
        0,
        '"A few hand-written cases": the bug hides in the values of `keep` nobody picked.',
    ),
    "What happens to a block kind the model does not know?": (
        0,
        '"Raise an error" or "drop it": refusing breaks on the API\'s next release, dropping loses data.',
    ),
    "Why do the structs carry an extra field?": (
        1,
        '"To allow arbitrary data": it keeps the API\'s optional fields verbatim, core fields stay typed.',
    ),
    "Why msgspec, and not pydantic or plain dataclasses?": (
        0,
        '"pydantic cannot do tagged unions": it can; the choice is measured, not forced.',
    ),
    "Why not let the API compact the history for you?": (
        1,
        '"Never use server-side compaction": using it is a fine answer; the question is what it leaves to you.',
    ),
    "Messages or tokens: what should a compaction budget count?": (
        0,
        '"Messages, that is what the code counts": the window and the bill are in tokens.',
    ),
}
"""Drill question -> (index of its essential key point in ``DRILL``, a common wrong answer)."""


# ---------------------------------------------------------------------------------------
# The checklist of the day before (the automatic checks are scripts/check_class.py's CHECKS)
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChecklistItem:
    """One thing to make sure of before class, and how: a ``make check-class`` check, a make target, or by hand."""

    what: str
    check: str = ""  # the id of a check of scripts/check_class.py
    make: str = ""  # or a make target that checks it
    by_hand: str = ""  # or what to do by hand


CHECKLIST: Final[tuple[ChecklistItem, ...]] = (
    ChecklistItem("**Python 3.11 or newer** on the machine that runs the class", check="python"),
    ChecklistItem(
        "**The runtime installed** from `requirements.txt` on the lab machines or the class image "
        "({runtime_mb} MB measured, a few minutes: do it the day before, not in class)",
        check="venv",
    ),
    ChecklistItem("**The notebooks' kernel is the venv's Python**", check="kernel"),
    ChecklistItem("**The widgets' JupyterLab extension** (and RISE, for live slides) installed", check="widgets"),
    ChecklistItem("**Every chapter runs offline within its time**, which runs every named demo once", check="chapters"),
    ChecklistItem("**Student copies** build; then write them with `make student` and hand them out", check="student"),
    ChecklistItem("**The slides** build (`make slides` writes `build/slides/`)", check="slides"),
    ChecklistItem(
        "**The handout** prints on one page; print one per student (`make cheatsheet`, `build/cheatsheet.pdf`)",
        check="handout",
    ),
    ChecklistItem(
        "**Widgets render in a real browser**: every chapter run in JupyterLab in headless Chromium "
        "(about 5 minutes on two cores)",
        make="test-browser",
    ),
    ChecklistItem(
        "**A class on the Hub**: 4 students run chapter 01 at once in test mode; for the real class, "
        "`sudo make test-hub-real` on a throw-away machine",
        make="test-hub",
    ),
    ChecklistItem(
        "**Widgets render on the classroom machine**",
        by_hand="open chapter 06 in JupyterLab there and click one quiz option: buttons, not a line of text "
        "such as `VBox(children=...)`",
    ),
    ChecklistItem(
        "**The projector**",
        by_hand="project one deck (`build/slides/04_unified_model.slides.html`, full screen with `f`) and one "
        "notebook at the projector's resolution; the slides are fitted to 1280×800; zoom JupyterLab to 125-150 %",
    ),
    ChecklistItem(
        "**The demos on the projecting machine**",
        by_hand="open each chapter, *Run All* once, and find the demo cell of the plan (the cells it needs have run)",
    ),
    ChecklistItem(
        "**The exit ticket** printed (`make cheatsheet` writes `build/exit-ticket.pdf` from `docs/exit-ticket.md`)",
        by_hand="one copy per student; the rubric stays in this guide",
    ),
)


def render_checklist(checks: set[str], runtime_mb: int) -> str:
    """The checklist as markdown; ``checks`` is the ids of check_class.CHECKS."""
    lines = []
    for item in CHECKLIST:
        what = item.what.format(runtime_mb=runtime_mb)
        if item.check:
            if item.check not in checks:
                raise ValueError(f"the checklist names a check scripts/check_class.py lacks: {item.check}")
            how = f"checked by `make check-class` (`{item.check}`)"
        elif item.make:
            how = f"checked by `make {item.make}`"
        else:
            how = f"by hand: {item.by_hand}"
        lines.append(f"- [ ] {what}: {how}.")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------


def _cell(text: str) -> str:
    """``text`` safe in a markdown table cell: a ``|`` (as in ``str | list``) escaped."""
    return text.replace("|", "\\|")


def clock(plan: tuple[Segment, ...] = PLAN) -> list[tuple[int, int, Segment]]:
    """(start minute, end minute, segment) for each segment, in order."""
    out, start = [], 0
    for s in plan:
        out.append((start, start + s.minutes, s))
        start += s.minutes
    return out


def render_plan() -> str:
    """The class-plan block: objective, the taught clock, the cut cues, pre-reading and homework."""
    lines = [f"**Lesson objective.** {OBJECTIVE}", ""]
    lines += [
        "| clock | min | segment | what stays | run live (min) | cut first if late |",
        "|---|---:|---|---|---|---|",
    ]
    for a, b, s in clock():
        live = f"{s.live} ({s.demo_minutes})" if s.live else ""
        cells = " | ".join(_cell(x) for x in (s.title, s.keep, live, s.cut))
        lines.append(f"| {a}–{b} | {s.minutes} | {cells} |")
    total = sum(s.minutes for s in PLAN)
    demos = sum(s.demo_minutes for s in PLAN)
    lines.append(f"| | **{total}** | | | **{demos}** of demos | |")
    lines += ["", "**If you are behind** (check the clock at these minutes):", ""]
    lines += [f"- at minute {minute}, {cue}" for minute, cue in CUES]
    lines += ["", "**Pre-reading** (before class):", ""]
    lines += [f"- {item}" for item in PRE_READING]
    lines += [
        "",
        "**Homework** (after class; each checked by `check` in the student copy, or graded with nbgrader):",
        "",
    ]
    lines += [f"- {ex}: {what}" for ex, what in HOMEWORK]
    lines.append(f"- Reading: {HOMEWORK_READING}")
    return "\n".join(lines)


def _answer_space(item: TicketItem) -> str:
    """Where a student writes: a blank per scenario for item 1, a few empty lines otherwise (more for open items)."""
    if item is TICKET[0]:
        return "Answer: " + " ".join(f"({k}) ____________" for k, _, _ in CONSOLIDATE)
    return "\n\n".join(["Answer:", *["&nbsp;"] * (6 if item.rubric else 3)])


def render_ticket(*, teacher: bool) -> str:
    """The exit ticket: the questions; for the teacher, each with its answer and rubric."""
    lines = []
    for i, item in enumerate(TICKET, start=1):
        lines.append(f"**{i}. {item.title}** ({item.points} point{'s' if item.points > 1 else ''}) {item.question}")
        if item.body:
            lines += ["", item.body]
        if not teacher:
            lines += ["", _answer_space(item)]
        if teacher:
            lines += ["", f"- **Answer:** {item.answer}"]
            if item.rubric:
                r = item.rubric
                lines += [
                    f"- **Full ({item.points}):** {r.full}",
                    f"- **Partial (1):** {r.partial}",
                    "- **Missing (0):** " + r.missing,
                ]
                lines += [f"- **Common wrong answer:** {w}" for w in r.wrong]
        lines.append("")
    total = sum(item.points for item in TICKET)
    lines.append(f"{total} points in all; about 8 minutes.")
    return "\n".join(lines)


def render_drill_rubric(drill: tuple[tuple[str, tuple[str, ...]], ...]) -> str:
    """The rubric of the interview drill: for each (question, key points), the essential point and a wrong answer."""
    lines = [
        "Score each open answer 0, 1 or 2 against the key points above:",
        "",
        "- **2, full:** makes the essential point below and at least half of the other key points, with nothing false.",
        "- **1, partial:** the essential point alone, or half of the other points without it.",
        "- **0, missing:** neither, or the common wrong answer below.",
        "",
        "| # | question | essential point | common wrong answer |",
        "|---:|---|---|---|",
    ]
    for i, (question, points) in enumerate(drill, start=1):
        essential, wrong = DRILL_RUBRIC[question]
        lines.append(f"| {i} | {_cell(question)} | {_cell(points[essential])} | {_cell(wrong)} |")
    return "\n".join(lines)


STUDENT_TICKET_HEADER: Final = """\
# Exit ticket

<!-- Generated by `python scripts/teacher_guide.py --write` from scripts/class_plan.py: edit it there. The rubric
and the answers are in the teacher's guide, which students do not get. -->

The lesson in four questions, about 8 minutes: answer on paper or below each question. Name: ______________
"""


def render_student_ticket() -> str:
    """docs/exit-ticket.md: the questions only."""
    return STUDENT_TICKET_HEADER + "\n" + render_ticket(teacher=False) + "\n"
