"""The class as taught (scripts/class_plan.py), its checklist (``make check-class``) and its exit ticket.

The clock runs from 0 to 90 without a gap and pays for setup, questions and the ticket; chapter 04
gets the most minutes and starts before minute 40; every checklist item that says it is checked
names a check of scripts/check_class.py or a make target that exists, and every check is on the
checklist; the exit ticket's mypy claim holds; the students' ticket holds no answer; the drill's
rubric covers exactly chapter 06's drill. ``make check-class``'s own machinery (the offline guard,
the pins, the report) is tested on small inputs.
"""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
from pathlib import Path

import check_class
import class_plan
import nbformat
import pytest
import teacher_guide
from guide import GUIDE, ROOT, guide_text

from msgmodel.course.exercises import all_exercises
from msgmodel.course.exercises.ch06 import DRILL
from msgmodel.course.route import core_route

MAKEFILE = ROOT / "Makefile"


def block(name: str) -> str:
    found = teacher_guide.block_pattern(name).search(guide_text())
    assert found, f"the guide lacks its <!-- {name} --> block"
    return str(found[2])


def test_the_generated_parts_are_current() -> None:
    """The guide's blocks and docs/exit-ticket.md are what scripts/teacher_guide.py writes."""
    assert teacher_guide.main([]) == 0, "stale: run `python scripts/teacher_guide.py --write`"


# ---------------------------------------------------------------------------------------
# The plan
# ---------------------------------------------------------------------------------------


def test_the_clock_runs_from_0_to_90() -> None:
    spans = class_plan.clock()
    assert spans[0][0] == 0 and spans[-1][1] == 90
    assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))
    assert all(s.minutes > 0 and 0 <= s.demo_minutes <= s.minutes for s in class_plan.PLAN)


def test_the_plan_pays_for_setup_questions_and_the_ticket() -> None:
    by_title = {s.title: s.minutes for s in class_plan.PLAN if s.chapter is None}
    assert by_title["Setup and hook"] >= 4
    assert by_title["Questions"] >= 5
    assert by_title["Exit ticket"] >= 6
    assert class_plan.PLAN[0].chapter is None, "students get into the notebooks before the first chapter"


def test_chapter_04_is_the_centre() -> None:
    chapters = {s.chapter: (a, s.minutes) for a, _, s in class_plan.clock() if s.chapter}
    start, minutes = chapters["04"]
    assert start <= 40, f"chapter 04 starts at minute {start}"
    assert minutes == max(m for _, m in chapters.values()) and minutes >= 18


def test_every_chapter_of_the_core_route_is_taught_once_in_order() -> None:
    taught = [s.chapter for s in class_plan.PLAN if s.chapter]
    assert taught == [c.chapter for c in core_route().chapters]


def test_every_chapter_but_07_has_a_live_demo() -> None:
    for s in class_plan.PLAN:
        if s.chapter and s.chapter != "07":
            assert s.live and s.demo_minutes >= 2, s.title


def test_the_cut_cues_are_in_order_and_inside_the_class() -> None:
    minutes = [m for m, _ in class_plan.CUES]
    assert minutes == sorted(minutes) and minutes[0] > 0 and minutes[-1] < 90
    assert len(minutes) >= 4
    assert any("exit ticket" in cue for _, cue in class_plan.CUES), "the last cue protects the exit ticket"


def test_the_homework_exists_and_is_on_thesis() -> None:
    ids = {ex.id for ex in all_exercises()}
    homework = [ex for ex, _ in class_plan.HOMEWORK]
    assert set(homework) <= ids, sorted(set(homework) - ids)
    assert not {"05.3", "06.2", "07.3"} & set(homework), "the review's off-thesis exercises are not homework"


def test_the_guide_shows_the_plan_before_the_chapters() -> None:
    text = guide_text()
    assert text.index("<!-- class-plan -->") < text.index("<!-- lesson-plan -->") < text.index("## 00 · ")
    assert "**Lesson objective.**" in block("class-plan")
    assert re.search(r"^\| 38–56 \| 18 \| 04 · ", block("class-plan"), re.M)


# ---------------------------------------------------------------------------------------
# The checklist and `make check-class`
# ---------------------------------------------------------------------------------------


def make_targets() -> set[str]:
    return set(re.findall(r"^([a-z][a-z-]*):", MAKEFILE.read_text(encoding="utf-8"), re.M))


def test_every_checked_item_names_a_check_that_exists() -> None:
    items = block("checklist").splitlines()
    assert items and all(line.startswith("- [ ] ") for line in items)
    ids = {c.id for c in check_class.CHECKS}
    named = [m[1] for line in items if (m := re.search(r"checked by `make check-class` \(`([a-z-]+)`\)", line))]
    assert set(named) <= ids, sorted(set(named) - ids)
    assert sorted(named) == sorted(ids), "every check of make check-class is on the checklist, once"
    targets = [m[1] for line in items if (m := re.search(r"checked by `make ([a-z-]+)`", line))]
    assert set(targets) - {"check-class"} <= make_targets()
    for line in items:
        assert "checked by `make " in line or ": by hand: " in line, f"say how it is checked: {line}"


def test_make_check_class_runs_the_checks() -> None:
    text = MAKEFILE.read_text(encoding="utf-8")
    recipe = re.search(r"^check-class:.*\n\t(.*)$", text, re.M)
    assert recipe and recipe[1] == "$(PY) scripts/check_class.py"
    assert "check-class" in re.search(r"^\.PHONY:(.*)$", text, re.M)[1]  # type: ignore[index]


def test_the_troubleshooting_covers_the_review() -> None:
    text = guide_text()
    section = text[text.index("### Troubleshooting") : text.index("## The core route's reading time")]
    for needle in (
        "3.11",
        f"{class_plan.RUNTIME_MB} MB",
        "Widgets show as text",
        "wrong environment",
        "1280×800",
        "82 s",
        "262 MB",
    ):
        assert needle in section, needle


def test_pins_reads_a_requirements_file(tmp_path: Path) -> None:
    req = tmp_path / "r.txt"
    req.write_text("-c constraints.txt\n# a comment\nmsgspec==0.23.0\nfoo[bar]==1.2  # why\n-e .\n", encoding="utf-8")
    assert check_class.pins(req) == {"msgspec": "0.23.0", "foo": "1.2"}


def test_check_class_prints_one_line_per_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert check_class.main(["python", "kernel"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("ok     python ") and out[1].startswith("ok     kernel ")
    assert re.match(r"2 of 2 checks passed in \d+ s: ready for class$", out[-1])
    with pytest.raises(SystemExit):
        check_class.main(["no-such-check"])


def test_a_failed_check_says_so(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> str:
        raise check_class.CheckFailed("the widgets are missing: reinstall")

    monkeypatch.setattr(check_class, "CHECKS", (check_class.Check("widgets", "x", broken),))
    assert check_class.main([]) == 1
    out = capsys.readouterr().out
    assert "FAILED widgets" in out and "the widgets are missing: reinstall" in out and "FAILED: widgets" in out


def test_the_offline_guard_refuses_the_network_and_keeps_loopback() -> None:
    probe = (
        check_class.OFFLINE_GUARD
        + "import socket\n"
        + "try:\n    socket.create_connection(('192.0.2.1', 80), timeout=5)\nexcept OSError as e:\n    print(e)\n"
        + "try:\n    socket.getaddrinfo('example.com', 443)\nexcept OSError as e:\n    print(e)\n"
        + "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()\n"
        + "socket.create_connection(s.getsockname(), timeout=5).close(); print('loopback ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True).stdout
    lines = out.splitlines()
    assert lines[0] == "check-class: the network is off (a connection to '192.0.2.1' was attempted)"
    assert lines[1] == "check-class: the network is off (a connection to 'example.com' was attempted)"
    assert lines[2] == "loopback ok"


def test_a_chapter_that_reaches_the_network_fails_the_check(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import urllib.request\nurllib.request.urlopen('http://example.com')")]
    path = tmp_path / "99_online.ipynb"
    nbformat.write(nb, path)
    name, _, why = check_class.run_chapter(path)
    assert name == "99_online.ipynb" and why and "the network is off" in why, why


# ---------------------------------------------------------------------------------------
# The exit ticket and the drill's rubric
# ---------------------------------------------------------------------------------------


def test_the_ticket_tests_the_claim() -> None:
    verdicts = [v for _, _, v in class_plan.CONSOLIDATE]
    assert set(verdicts) == {"now", "wait", "premature"}
    assert sum(item.points for item in class_plan.TICKET) == 9
    assert [bool(item.rubric) for item in class_plan.TICKET] == [False, False, True, True], "items 3-4 are open"
    text = block("exit-ticket")
    assert "00.2" not in text and "06.2" not in text


def _mypy(tmp_path: Path, name: str, code: str) -> str:
    from mypy import api

    path = tmp_path / f"{name}.py"
    path.write_text(code, encoding="utf-8")
    out, _, _ = api.run(["--strict", "--no-incremental", "--cache-dir=/dev/null", str(path)])
    return out


def test_the_tickets_mypy_claim_holds(tmp_path: Path) -> None:
    """Item 2: mypy says nothing about the slip on ``dict[str, Any]``, and names it on the model."""
    dicts = _mypy(tmp_path, "dicts", class_plan.TICKET_SNIPPET_DICTS)
    model = _mypy(tmp_path, "model", class_plan.TICKET_SNIPPET_MODEL)
    assert "Success: no issues found" in dicts, dicts
    errors = [line for line in model.splitlines() if ": error:" in line]
    assert len(errors) == 1 and '"ToolResultBlock" has no attribute "toolUseId"' in errors[0], model


def test_the_students_ticket_holds_no_answer() -> None:
    student = (ROOT / "docs" / "exit-ticket.md").read_text(encoding="utf-8")
    assert student == class_plan.render_student_ticket()
    for item in class_plan.TICKET:
        assert item.question in student
        assert item.answer not in student
        if item.rubric:
            assert item.rubric.full not in student and item.rubric.partial not in student
    assert "**Answer:**" not in student and "Full (" not in student
    assert not re.search(r"\((?:a|b|c|d)\)[^\n]*\b(?:now|wait|premature)\.?$", student, re.M)


def test_the_drill_rubric_covers_exactly_the_drill() -> None:
    assert list(class_plan.DRILL_RUBRIC) == [d.question for d in DRILL]
    for d in DRILL:
        essential, wrong = class_plan.DRILL_RUBRIC[d.question]
        assert 0 <= essential < len(d.points) and wrong
    rows = [line for line in block("drill-rubric").splitlines() if re.match(r"^\| \d+ \|", line)]
    assert len(rows) == len(DRILL)


def _table_rows(markdown: str) -> list[list[str]]:
    """The body rows of the tables in ``markdown``, each as the text of its cells (as a renderer reads them)."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    rows: list[list[str]] = []
    in_cell = False
    for tok in tokens:
        if tok.type == "tr_open":
            rows.append([])
        elif tok.type in ("td_open", "th_open"):
            in_cell = True
        elif tok.type == "inline" and in_cell:
            rows[-1].append(tok.content)
            in_cell = False
    return [r for r in rows if r and r[0] not in ("#", "clock")]


def test_a_pipe_inside_a_cell_does_not_split_it() -> None:
    """``str | list`` in a drill question: escaped, or the renderer cuts the question and drops the last cell."""
    rubric = _table_rows(block("drill-rubric"))
    assert [r[1] for r in rubric] == [d.question for d in DRILL]
    assert [r[3] for r in rubric] == [class_plan.DRILL_RUBRIC[d.question][1] for d in DRILL]
    plan = _table_rows(block("class-plan"))
    assert [r[2] for r in plan[: len(class_plan.PLAN)]] == [s.title for s in class_plan.PLAN]
    assert [r[5] for r in plan[: len(class_plan.PLAN)]] == [s.cut for s in class_plan.PLAN]


def test_the_guide_file_is_the_one_the_tests_read() -> None:
    assert GUIDE == teacher_guide.GUIDE
