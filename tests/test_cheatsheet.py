"""The class handout (docs/cheatsheet.md) and the interview sheet cannot drift from the code they summarize.

The handout's three quoted pairing errors are the texts ``validate`` returns on three small
histories, byte for byte and in that order; its before/after code runs, and the "after" passes
``mypy --strict`` (and fails it when a kind is left out of the ``match``); its diagram carries the
labels of chapter 00's mermaid diagram; every constructor and reader of ``msgmodel.core.message``
and the four codec functions are named. The interview sheet (docs/interview-answers.md) answers
every question of chapter 06's drill, word for word, in two sentences. Every sheet, the exit ticket and
the Chinese editions included, is plain CommonMark a Sphinx/MyST site can render (no raw HTML but
comments, no dead relative link or image). The printed page count, the font sizes and the screen layout
are checked in Chromium by tests/ui/test_cheatsheet_pdf.py; the Chinese sheets' contents by
tests/test_zh_docs.py.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from msgmodel.core.message import (
    CONSTRUCTORS,
    READERS,
    TextBlock,
    ToolUseBlock,
    assistant_msg,
    tool_result_block,
    tool_result_msg,
    user_msg,
    user_text,
)
from msgmodel.core.protocol import validate
from msgmodel.course.exercises.ch06 import DRILL

ROOT = Path(__file__).resolve().parent.parent
SHEET = ROOT / "docs" / "cheatsheet.md"
INTERVIEW = ROOT / "docs" / "interview-answers.md"
DIAGRAM = ROOT / "docs" / "handout-protocol.svg"
CHAPTER_00 = ROOT / "notebooks" / "src" / "00_start_here.py"
import build_cheatsheet  # noqa: E402

CODEC = ("from_json", "to_json", "from_api", "to_api")


def sheet() -> str:
    return SHEET.read_text(encoding="utf-8")


def code_blocks(markdown: str, info: str = "text") -> list[str]:
    """The fenced blocks of one language, in order (``text``: the quoted errors)."""
    tokens = MarkdownIt("commonmark").parse(markdown)
    return [t.content.strip() for t in tokens if t.type == "fence" and t.info.strip() == info]


def only_error(messages: object, rule: str) -> str:
    violations = validate(messages)  # type: ignore[arg-type]
    assert [v.rule for v in violations] == [rule], violations
    return str(violations[0])


def dangling() -> str:
    call = ToolUseBlock(id="toolu_01", name="run_tests", input={})
    return only_error([user_text("Run the tests"), assistant_msg([call]), user_text("next")], "dangling_tool_use")


def orphan() -> str:
    return only_error([tool_result_msg([tool_result_block("toolu_01", "3 passed")])], "orphan_tool_result")


def text_first() -> str:
    """The third 400 (chapter 00's exercise 00.2, case E): text before the result in the answering message."""
    call = ToolUseBlock(id="toolu_01", name="run_tests", input={})
    answer = user_msg([TextBlock(text="Done:"), tool_result_block("toolu_01", "3 passed")])
    return only_error([user_text("Run the tests"), assistant_msg([call]), answer], "tool_result_first")


def test_the_dangling_tool_use_error_is_quoted_verbatim() -> None:
    assert dangling() in code_blocks(sheet())


def test_the_orphan_tool_result_error_is_quoted_verbatim() -> None:
    assert orphan() in code_blocks(sheet())


def test_the_text_before_the_result_error_is_quoted_verbatim() -> None:
    assert text_first() in code_blocks(sheet())


def test_every_quoted_error_is_one_validate_returns() -> None:
    """No stale quotation: the sheet's text blocks are the three pairing errors ``validate`` returns, in order."""
    assert code_blocks(sheet()) == [dangling(), orphan(), text_first()]
    for rule in ("dangling_tool_use", "orphan_tool_result", "tool_result_first"):
        assert f"`{rule}`" in sheet()


def test_the_thesis_comes_first() -> None:
    """The first paragraph under the title is the thesis, the second the consolidation rule; then the diagram."""
    body = re.sub(r"<!--.*?-->", "", sheet(), flags=re.S).split("\n\n")
    paragraphs = [p.strip() for p in body if p.strip() and not p.startswith("# ")]
    assert paragraphs[0].startswith("**The thesis.**") and "one typed model" in paragraphs[0]
    assert paragraphs[1].startswith("**When to consolidate")
    assert paragraphs[2] == "## The protocol in one picture"


SNIPPET_IMPORTS = """\
from typing import Any, assert_never

from msgmodel import (
    ContentBlock, Message, OpaqueBlock, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock, tool_uses_of,
)
"""


def test_before_and_after_give_the_same_answer() -> None:
    from msgmodel import from_api, to_api

    before, after = code_blocks(sheet(), "python")
    history = [
        user_text("What is in setup.cfg?"),
        assistant_msg([TextBlock(text="Let me look."), ToolUseBlock(id="toolu_01A", name="read_file", input={})]),
        tool_result_msg([tool_result_block("toolu_01A", "[metadata]")]),
        assistant_msg(
            [ToolUseBlock(id="toolu_01B", name="grep", input={}), ToolUseBlock(id="toolu_01C", name="ls", input={})]
        ),
    ]
    old: dict[str, object] = {}
    exec(SNIPPET_IMPORTS + before, old)
    new: dict[str, object] = {}
    exec(SNIPPET_IMPORTS + after, new)
    assert old["tool_names"](to_api(history)) == new["tool_names"](history) == ["read_file", "grep", "ls"]  # type: ignore[operator]
    assert [new["label"](b) for b in history[1].content] == ["Let me look.", "read_file"]  # type: ignore[operator, union-attr]
    assert from_api(to_api(history)) == history


def test_the_after_code_is_what_mypy_proves_complete(tmp_path: Path) -> None:
    from mypy import api

    after = code_blocks(sheet(), "python")[1]
    ok = tmp_path / "after.py"
    ok.write_text(SNIPPET_IMPORTS + after, encoding="utf-8")
    forgot = tmp_path / "forgot.py"
    forgot.write_text(SNIPPET_IMPORTS + re.sub(r"^ +case OpaqueBlock\(\).*\n", "", after, flags=re.M), encoding="utf-8")
    out, _, _ = api.run(["--strict", "--no-incremental", "--cache-dir=/dev/null", str(ok), str(forgot)])
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert all(line.startswith(str(forgot)) for line in errors), out
    assert len(errors) == 1 and "OpaqueBlock" in errors[0], out


def _svg_text(svg: str) -> str:
    return " ".join(html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg))


def test_the_diagram_is_chapter_00s() -> None:
    """Every participant, message and note of chapter 00's mermaid diagram is drawn, in the same order."""
    source = CHAPTER_00.read_text(encoding="utf-8")
    mermaid = re.search(r"^# ```mermaid\n(.*?)^# ```$", source, re.S | re.M)
    assert mermaid, "chapter 00 has no mermaid diagram"
    lines = [line.removeprefix("#").strip() for line in mermaid[1].splitlines()]
    labels = [m[1] for line in lines if (m := re.match(r"participant \w+ as (.*)$", line))]
    labels += [m[1] for line in lines if (m := re.match(r"(?:\w+-?->>\w+|Note over \w+): (.*)$", line))]
    assert len(labels) == 7, lines
    drawn = _svg_text(DIAGRAM.read_text(encoding="utf-8"))
    at = 0
    for label in labels[2:]:
        found = drawn.find(label, at)
        assert found >= 0, f"the handout's diagram lacks {label!r} (after position {at}): {drawn!r}"
        at = found + len(label)
    assert all(label in drawn for label in labels[:2])
    assert "](handout-protocol.svg)" in sheet()


def test_the_printed_page_inlines_the_diagram() -> None:
    page = build_cheatsheet.render_html(sheet())
    assert "<img" not in page and page.count("<svg") == 1
    assert _svg_text(page.split("<svg", 1)[1]).startswith("your code")


@pytest.mark.parametrize("name", [*CONSTRUCTORS, *READERS, *CODEC])
def test_the_model_at_a_glance_names(name: str) -> None:
    assert f"`{name}`" in sheet() or f"`{name}(" in sheet(), f"the cheat sheet does not name {name}"


@pytest.mark.parametrize("question", [d.question for d in DRILL], ids=[f"drill-{i}" for i in range(len(DRILL))])
def test_every_drill_question_is_answered(question: str) -> None:
    text = INTERVIEW.read_text(encoding="utf-8")
    at = text.find(f"**{question}**")
    assert at >= 0, f"the interview sheet lacks the drill question {question!r} (in bold, word for word)"
    answer = text[at + len(question) + 4 :].split("\n\n")[0]
    sentences = re.findall(r"[.?!](?:\s|$)", answer.strip())
    assert len(sentences) == 2, f"the answer to {question!r} should be two sentences: {answer!r}"


@pytest.mark.parametrize("path", [*build_cheatsheet.SHEETS, *build_cheatsheet.ZH_SHEETS], ids=lambda p: p.stem)
def test_the_sheet_is_plain_commonmark(path: Path) -> None:
    tokens = MarkdownIt("commonmark").enable("table").parse(path.read_text(encoding="utf-8"))
    html = [t.content for t in tokens if t.type == "html_block"]
    html += [c.content for t in tokens if t.children for c in t.children if c.type == "html_inline"]
    assert all(h.strip().startswith("<!--") and h.strip().endswith("-->") for h in html), html
    links = [c.attrs["href"] for t in tokens if t.children for c in t.children if c.type == "link_open"]
    links += [c.attrs["src"] for t in tokens if t.children for c in t.children if c.type == "image"]
    for href in links:
        assert isinstance(href, str) and not href.startswith(("http:", "https:", "//")), f"external link {href}"
        assert (SHEET.parent / href.split("#")[0]).exists(), f"dead link {href}"


def test_the_printed_page_is_self_contained() -> None:
    """The print HTML fetches nothing: Chromium prints it without a network."""
    page = build_cheatsheet.render_html(sheet())
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//|@import|url\((?!#)""", page)  # url(#x): in-page
    assert "@page { size: A4;" in page


def test_word_count_ignores_comments_and_markup() -> None:
    assert build_cheatsheet.count_words("<!-- not seen -->\n# Two words\n\n`three` **four**") == 4


def test_the_rules_carry_chapter_00s_numbers() -> None:
    """Rule N on the handout is rule N of chapter 00's table (a teacher's review found two numberings: the handout's
    rule 3 was parallel calls, chapter 00's the start of the next message)."""
    chapter = (ROOT / "notebooks" / "src" / "00_start_here.py").read_text(encoding="utf-8")
    table = dict(re.findall(r"^# \| (\d) \| (.+?) \|", chapter, re.M))
    listed = dict(re.findall(r"^(\d)\. (.+?)$", sheet().split("## The rules (chapter 00's numbers)")[1], re.M))
    assert sorted(table) == ["1", "2", "3", "4", "5"]
    for n in ("1", "2", "4", "5"):
        assert listed[n] == table[n], n
    assert "answered at the **start** of the next message" in sheet() and "start of the next" in table["3"]
