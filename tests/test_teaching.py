"""The notebooks' shared helpers: columns, and mypy on a snippet with stable output."""

from __future__ import annotations

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


def test_type_check_finds_this_checkout_of_msgmodel() -> None:
    # mypy_path must be the folder that holds the package, or snippets import-fail (or see another install)
    from msgmodel.course import teaching

    assert (teaching._SOURCE_TREE / "msgmodel" / "core" / "message.py").is_file()
