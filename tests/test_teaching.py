"""The notebooks' shared helpers: columns, and mypy on a snippet with stable output."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

import pytest

from msgmodel.course.teaching import side_by_side, type_check


def test_side_by_side_aligns_columns_in_text_and_escapes_html() -> None:
    view = side_by_side("a\n<b>", "one\ntwo\nthree", ("left", "right"), width=6)
    assert repr(view).splitlines() == [
        "left   │ right",
        "────── │ ──────",
        "a      │ one",
        "<b>    │ two",
        "       │ three",
    ]
    assert "&lt;b&gt;" in view._repr_html_() and "<b>" not in view._repr_html_()


def test_type_check_reports_with_short_names_and_the_function() -> None:
    report = type_check(
        """\
        from msgmodel import ContentBlock

        def name_of(b: ContentBlock) -> str:
            if b.type == "text":
                return b.name
            return ""
        """,
        functions=True,
    )
    assert not report.clean
    assert 'snippet.py:5 in name_of(): error: "TextBlock" has no attribute "name"' in report
    assert "/" not in report.splitlines()[0]


def test_type_check_passes_correct_code_and_checks_several_modules() -> None:
    report = type_check({"a": "X: int = 1\n", "b": "from a import X\nY: str = X\n"})
    assert (
        report.splitlines()[0] == 'b.py:2: error: Incompatible types in assignment (expression has type "int", '
        'variable has type "str")  [assignment]'
    )
    assert type_check("from msgmodel import user_text\nm = user_text('hi')\n").clean


# ---------------------------------------------------------------------------------------
# The scratch folder (issue 11, defect 19)
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["../evil", "a/b", "a.b", "", "class", "ünï", "x\x00", "/tmp/x"])
def test_type_check_refuses_module_names_that_are_not_identifiers(name: str) -> None:
    # "../evil" wrote evil.py outside the run folder.
    with pytest.raises(ValueError, match="not a plain Python identifier"):
        type_check({name: "X = 1\n"})


def test_type_check_runs_in_a_fresh_private_folder_it_removes(monkeypatch: pytest.MonkeyPatch) -> None:
    import mypy.api

    real = mypy.api.run
    seen: list[tuple[Path, int, list[str]]] = []

    def spy(args: list[str]) -> tuple[str, str, int]:
        here = Path.cwd()
        seen.append((here, stat.S_IMODE(here.stat().st_mode), sorted(p.name for p in here.iterdir())))
        return real(args)

    monkeypatch.setattr(mypy.api, "run", spy)
    assert type_check("X: int = 1\n").clean
    assert type_check("Y: int = 2\n").clean
    (first, mode, files), (second, _, _) = seen
    assert mode == 0o700 and files == ["mypy.ini", "snippet.py"]
    assert first != second and first.parent == Path(tempfile.gettempdir())
    assert not first.exists() and not second.exists()


def test_type_check_follows_no_link_planted_at_the_old_predictable_path(tmp_path: Path) -> None:
    # Another user of the machine could create /tmp/msgmodel-type-check-<uid>/run<pid>-<n> as a
    # link to the victim's folder: type_check wrote its files there, then deleted every file in it.
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious.txt").write_text("keep me")
    scratch = Path(tempfile.gettempdir()) / f"msgmodel-type-check-{os.getuid()}"
    made_scratch = not scratch.exists()
    scratch.mkdir(exist_ok=True)
    links = [scratch / f"run{os.getpid()}-{n}" for n in range(1, 300)]
    planted = []
    try:
        for link in links:
            if not link.exists() and not link.is_symlink():
                link.symlink_to(victim, target_is_directory=True)
                planted.append(link)
        report = type_check("X: int = 1\n")
    finally:
        for link in planted:
            link.unlink()
        if made_scratch:  # another run planting its own links at the same time may still use it
            with contextlib.suppress(OSError):
                scratch.rmdir()
    assert report.clean
    assert sorted(p.name for p in victim.iterdir()) == ["precious.txt"]
    assert (victim / "precious.txt").read_text() == "keep me"


def test_type_check_finds_this_checkout_of_msgmodel() -> None:
    # mypy_path must be the folder that holds the package, or snippets import-fail (or see another install)
    from msgmodel.course import teaching

    assert (teaching._SOURCE_TREE / "msgmodel" / "core" / "message.py").is_file()


def test_mypy_ini_names_the_source_tree_only_for_a_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """An installed msgmodel (a class image's site-packages) must not go on mypy_path: mypy refuses it.

    The class test (make test-hub-real) found chapter 03's TypedDict check failing so in the image:
    "…/site-packages is in the MYPYPATH. Please remove it."
    """
    from pathlib import Path

    from msgmodel.course import teaching

    assert f"mypy_path = {teaching._SOURCE_TREE}" in teaching.mypy_ini("strict = True")
    monkeypatch.setattr(teaching, "_SOURCE_TREE", Path("/opt/class/venv/lib/python3.11/site-packages"))
    assert teaching.mypy_ini("strict = True") == "[mypy]\nstrict = True\n"
