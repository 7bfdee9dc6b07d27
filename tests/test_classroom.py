"""The class kit's pieces that need no Hub: the roster, the share/ folder, the nbgrader course.

The whole class (accounts, PAM logins, isolation attacks, an nbgrader round) is ``make
test-hub-real``; these check, in ``make test``, that the roster refuses what it must, that the
class image's share/ has the student docs (the exit ticket in both languages) and blank copies but
not the teacher's guide or the ticket's answers, and that the nbgrader course follows the exercise
registry: one answer cell and one locked test cell per exercise, with the key's solution only
between nbgrader's markers.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import build_student
import nbformat
import nbgrader_course
import pytest
from guide import answer_key, chapter_exercises

from msgmodel.course.exercises import Exercise

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "classroom"))

import install  # noqa: E402
from roster import Roster, RosterError, parse_roster, read_roster, roster_text  # noqa: E402

# ---------------------------------------------------------------------------------------
# The roster
# ---------------------------------------------------------------------------------------


def test_the_example_roster_reads_and_writes_back() -> None:
    roster = read_roster(ROOT / "classroom" / "roster.example.toml")
    assert roster == Roster("msgmodel", ("teacher",), ("student01", "student02", "student03"), reveal=False)
    assert roster.everyone == ("teacher", "student01", "student02", "student03")
    assert parse_roster(roster_text(roster)) == roster


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('teachers = ["t"]\nstudents = ["Bob"]\n', r"roster.toml: students\[0\]: 'Bob' is not a login name"),
        ('teachers = ["t"]\nstudents = ["a", "a"]\n', r"roster.toml: students: 'a' is listed twice"),
        ('teachers = ["a"]\nstudents = ["a"]\n', r"roster.toml: 'a' is both a teacher and a student"),
        ('teachers = ["t"]\nstudents = []\n', r"roster.toml: students must be a non-empty list"),
        ('teachers = ["t"]\nstudents = ["s"]\nreveal = "yes"\n', r"roster.toml: reveal must be true or false"),
        ('teachers = ["t"]\nstudents = ["s"]\nadmins = ["x"]\n', r"roster.toml: unknown field 'admins'"),
        ('teachers = ["t"]\nstudents = ["s"]\ncourse = "my course"\n', r"roster.toml: course must be"),
        ('teachers = ["t"\n', r"roster.toml: "),
    ],
)
def test_a_bad_roster_is_refused_naming_the_field(text: str, message: str) -> None:
    with pytest.raises(RosterError, match=message):
        parse_roster(text, "roster.toml")


def test_a_missing_roster_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RosterError, match=r"absent.toml: cannot read the roster"):
        read_roster(tmp_path / "absent.toml")


# ---------------------------------------------------------------------------------------
# share/: what every home links to
# ---------------------------------------------------------------------------------------


def test_share_holds_the_student_docs_and_blank_copies_not_the_key(tmp_path: Path) -> None:
    share = tmp_path / "share"
    install.write_share(share)
    assert sorted(p.name for p in (share / "docs").iterdir()) == sorted(
        p.name
        for p in [*(ROOT / "docs").glob("*.md"), *(ROOT / "docs").glob("*.svg")]
        if not p.name.startswith("teacher-guide")  # the Chinese guide (teacher-guide.zh-CN.md) holds the key too
    )
    assert [p.name for p in sorted((share / "work").iterdir())] == [p.name for p in build_student.chapters()]
    assert [p.name for p in sorted((share / "notebooks").iterdir())] == [p.name for p in build_student.chapters()]
    key = answer_key()
    everything = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in share.rglob("*") if p.is_file())
    for ex_id, code in key.items():
        lines = [line.strip() for line in code.splitlines()]
        long_lines = [s for s in lines if len(s) >= 40 and not s.startswith(("from ", "import ", "def ", "class "))]
        assert not any(line in everything for line in long_lines), f"share/ holds a line of {ex_id}'s key"
    home = tmp_path / "home" / "msgmodel"  # as prepare_home.py lays a home out
    home.mkdir(parents=True)
    for name in ("docs", "bench", "notebooks", "work"):
        (home / name).symlink_to(share / name)
    for copy in (home / "work").iterdir():
        for cell in nbformat.read(copy, as_version=4).cells:
            if cell.cell_type == "markdown":
                for target in re.findall(r"\]\((\.\./[^)#\s]+)", cell.source):
                    assert (copy.parent / target).exists(), f"{copy.name}: dead link {target} in a class home"


def test_share_gives_students_the_exit_ticket_in_both_languages_and_none_of_its_answers(tmp_path: Path) -> None:
    """The exit ticket is handed out in English and Chinese; its answers and rubric, in the guide, in neither."""
    share = tmp_path / "share"
    install.write_share(share)
    names = {p.name for p in (share / "docs").iterdir()}
    assert {"exit-ticket.md", "exit-ticket.zh-CN.md", "interview-answers.zh-CN.md", "cheatsheet.zh-CN.md"} <= names
    assert not any(name.startswith("teacher-guide") for name in names)
    everything = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in share.rglob("*.md"))
    for guide in ("teacher-guide.md", "teacher-guide.zh-CN.md"):
        text = (ROOT / "docs" / guide).read_text(encoding="utf-8")
        block = text.split("<!-- exit-ticket -->", 1)[1].split("<!-- /exit-ticket -->", 1)[0]
        answers = [line for line in block.splitlines() if line.startswith("- **")]  # the answers and the rubric
        assert len(answers) >= 14, guide
        assert not [line for line in answers if line in everything], f"share/ holds the exit ticket's key ({guide})"


# ---------------------------------------------------------------------------------------
# The nbgrader course
# ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("course")
    nbgrader_course.write_course(out, "msgmodel", "/srv/nbgrader/exchange")
    return out


def _released(source: str) -> str:
    """What nbgrader's generate_assignment leaves of a cell: the solution region replaced by the empty stub."""
    return re.sub(r"^### BEGIN SOLUTION\n.*?^### END SOLUTION$", "", source, flags=re.M | re.S)


def test_every_chapter_is_a_source_assignment_with_its_config(course: Path) -> None:
    stems = [p.stem for p in build_student.chapters()]
    assert sorted(p.name for p in (course / "source").iterdir()) == stems
    config = (course / "nbgrader_config.py").read_text(encoding="utf-8")
    assert "c.CourseDirectory.course_id = 'msgmodel'" in config
    assert "c.Exchange.root = '/srv/nbgrader/exchange'" in config
    assert 'c.ExchangeFactory.collect = "owned_collect.OwnedCollect"' in config
    assert (course / "owned_collect.py").read_text() == (ROOT / "classroom" / "owned_collect.py").read_text()
    compile(config, "nbgrader_config.py", "exec")


def test_every_exercise_has_an_answer_cell_and_a_locked_test_cell(course: Path) -> None:
    key = answer_key()
    seen = []
    for chapter in build_student.chapters():
        nb = nbformat.read(course / "source" / chapter.stem / chapter.name, as_version=4)
        cells = nb.cells
        for i, cell in enumerate(cells):
            meta = cell.metadata.get("nbgrader")
            if not meta or not meta["solution"]:
                continue
            ex_id = meta["grade_id"].removeprefix("answer_").replace("_", ".")
            seen.append(ex_id)
            assert meta == {
                "grade_id": nbgrader_course.grade_id("answer", ex_id),
                "schema_version": 3,
                "solution": True,
                "grade": False,
                "locked": False,
                "task": False,
            }
            assert key[ex_id].rstrip() in cell.source  # the key, between the markers
            test = cells[i + 1]
            ex = next(e for e in chapter_exercises() if e.id == ex_id)
            assert test.metadata["nbgrader"] == {
                "grade_id": nbgrader_course.grade_id("test", ex_id),
                "schema_version": 3,
                "solution": False,
                "grade": True,
                "locked": True,
                "task": False,
                "points": 2 if callable(ex.starter) else 1,
            }
            assert f'_check("{ex_id}", ' in test.source and "assert _verdict.passed" in test.source
        copy = build_student.student_copy(nbformat.read(chapter, as_version=4), chapter.name, "..")
        released = [_released(c.source) for c in cells if "nbgrader" not in c.metadata or c.metadata.nbgrader.solution]
        # the same cells as the student copy's, up to blank lines (the empty stub is one)
        assert [re.sub(r"\n+", "\n", s) for s in released] == [re.sub(r"\n+", "\n", c.source) for c in copy.cells], (
            f"{chapter.name}: the released cells are not the student copy's"
        )
    assert sorted(seen) == sorted(ex.id for ex in chapter_exercises())
    assert sum(nbgrader_course.points(ex) for ex in chapter_exercises()) == 38


def test_the_course_follows_the_registry(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """An exercise the registry has and the chapter does not check (or the reverse) is an error naming both."""
    extra = Exercise(id="01.9", task="t", checker=lambda a: None, starter=None, hints=("h1", "h2"))
    real = nbgrader_course.assignments()

    def with_extra() -> dict[str, list[Exercise]]:
        out = dict(real)
        out["01_orphan_tool_result"] = [*out["01_orphan_tool_result"], extra]
        return out

    monkeypatch.setattr(nbgrader_course, "assignments", with_extra)
    assert nbgrader_course.main(["--out", str(tmp_path)]) == 1
    with pytest.raises(nbgrader_course.CourseError, match=r"01_orphan_tool_result.ipynb: .*'01.9'"):
        nbgrader_course.write_course(tmp_path, "msgmodel", "/x")


def test_the_source_notebooks_are_valid_nbgrader_notebooks(course: Path) -> None:
    for path in (course / "source").glob("*/*.ipynb"):
        nb = json.loads(path.read_text(encoding="utf-8"))
        nbformat.validate(nbformat.from_dict(nb))
        ids = [c["metadata"]["nbgrader"]["grade_id"] for c in nb["cells"] if "nbgrader" in c["metadata"]]
        assert len(ids) == len(set(ids)) == 6, path.name


def test_the_published_key_is_the_guides_key_and_reveal_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """reveal = true in a class: publish-key copies the key blocks (nothing else of the guide) and reveal shows them."""
    from msgmodel.course.exercises import reveal
    from msgmodel.course.exercises.key import parse_key

    text = install.published_key()
    assert parse_key(text) == answer_key()
    assert "### Discussion prompts" not in text and "Common wrong answers" not in text
    published = tmp_path / "teacher-guide.md"
    published.write_text(text, encoding="utf-8")
    monkeypatch.setenv("MSGMODEL_KEY", str(published))
    monkeypatch.delenv("MSGMODEL_REVEAL", raising=False)
    assert reveal("01.1", confirm=True) == answer_key()["01.1"]


@pytest.mark.slow
def test_the_class_image_wheel_keeps_the_course_and_seals_the_closed_answers(tmp_path: Path) -> None:
    """The library wheel leaves msgmodel.course out; the class image, which has no checkout, must keep it.

    Failed after the merge of the two (the image's wheel held no course: chapters could not import it).
    """
    import subprocess
    import zipfile

    src = install._package_copy(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", "wheel", str(src), "--no-deps", "-w",
         str(tmp_path / "out")],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (wheel,) = (tmp_path / "out").glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"msgmodel/course/__init__.py", "msgmodel/course/exercises/closed.py",
            "msgmodel/course/exercises/closed_answers.sealed.json",
            "msgmodel/course/locale/zh_CN/LC_MESSAGES/msgmodel_course.mo"} <= names  # fmt: skip
    assert "msgmodel/course/exercises/closed_answers.json" not in names


def test_the_class_image_pyproject_refuses_a_library_file_it_does_not_know() -> None:
    with pytest.raises(SystemExit, match=r"update install\.py"):
        install.class_image_pyproject("[project]\nname = 'x'\n")
