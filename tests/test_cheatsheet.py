"""docs/cheatsheet.md cannot drift from the code it summarizes.

The quoted pairing errors are the texts ``validate`` returns on two small histories, byte for
byte; every constructor and reader of ``msgmodel.core.message`` and the four codec functions are
named; every interview question of chapter 06's drill appears word for word; and the sheet is
plain CommonMark a Sphinx/MyST site can render (no raw HTML but comments, no dead relative link).
The printed page count is checked by tests/ui/test_cheatsheet_pdf.py (it needs Chromium).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from msgmodel.core.message import (
    CONSTRUCTORS,
    READERS,
    ToolUseBlock,
    assistant_msg,
    tool_result_block,
    tool_result_msg,
    user_text,
)
from msgmodel.core.protocol import validate
from msgmodel.course.exercises.ch06 import DRILL

ROOT = Path(__file__).resolve().parent.parent
SHEET = ROOT / "docs" / "cheatsheet.md"
import build_cheatsheet  # noqa: E402

CODEC = ("from_json", "to_json", "from_api", "to_api")


def sheet() -> str:
    return SHEET.read_text(encoding="utf-8")


def code_blocks(markdown: str) -> list[str]:
    return [t.content.strip() for t in MarkdownIt("commonmark").parse(markdown) if t.type == "fence"]


def only_error(messages: object, rule: str) -> str:
    violations = validate(messages)  # type: ignore[arg-type]
    assert [v.rule for v in violations] == [rule], violations
    return str(violations[0])


def dangling() -> str:
    call = ToolUseBlock(id="toolu_01", name="run_tests", input={})
    return only_error([user_text("Run the tests"), assistant_msg([call]), user_text("next")], "dangling_tool_use")


def orphan() -> str:
    return only_error([tool_result_msg([tool_result_block("toolu_01", "3 passed")])], "orphan_tool_result")


def test_the_dangling_tool_use_error_is_quoted_verbatim() -> None:
    assert dangling() in code_blocks(sheet())


def test_the_orphan_tool_result_error_is_quoted_verbatim() -> None:
    assert orphan() in code_blocks(sheet())


def test_every_quoted_error_is_one_validate_returns() -> None:
    """No third, stale quotation: the sheet's fenced blocks are exactly the two pairing errors ``validate`` returns."""
    assert sorted(code_blocks(sheet())) == sorted([dangling(), orphan()])


@pytest.mark.parametrize("name", [*CONSTRUCTORS, *READERS, *CODEC])
def test_the_model_at_a_glance_names(name: str) -> None:
    assert f"`{name}`" in sheet() or f"`{name}(" in sheet(), f"the cheat sheet does not name {name}"


@pytest.mark.parametrize("question", [d.question for d in DRILL], ids=[f"drill-{i}" for i in range(len(DRILL))])
def test_every_drill_question_is_answered(question: str) -> None:
    text = sheet()
    at = text.find(f"**{question}**")
    assert at >= 0, f"the cheat sheet lacks the drill question {question!r} (in bold, word for word)"
    answer = text[at + len(question) + 4 :].split("\n\n")[0]
    sentences = re.findall(r"[.?!](?:\s|$)", answer.strip())
    assert len(sentences) == 2, f"the answer to {question!r} should be two sentences: {answer!r}"


def test_the_sheet_is_plain_commonmark() -> None:
    tokens = MarkdownIt("commonmark").enable("table").parse(sheet())
    html = [t.content for t in tokens if t.type == "html_block"]
    html += [c.content for t in tokens if t.children for c in t.children if c.type == "html_inline"]
    assert all(h.strip().startswith("<!--") and h.strip().endswith("-->") for h in html), html
    links = [c.attrs["href"] for t in tokens if t.children for c in t.children if c.type == "link_open"]
    for href in links:
        assert isinstance(href, str) and not href.startswith(("http:", "https:", "//")), f"external link {href}"
        assert (SHEET.parent / href.split("#")[0]).exists(), f"dead link {href}"


def test_the_printed_page_is_self_contained() -> None:
    """The print HTML fetches nothing: Chromium prints it without a network."""
    page = build_cheatsheet.render_html(sheet())
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//|@import|url\(""", page)
    assert "@page { size: A4;" in page


def test_word_count_ignores_comments_and_markup() -> None:
    assert build_cheatsheet.count_words("<!-- not seen -->\n# Two words\n\n`three` **four**") == 4
