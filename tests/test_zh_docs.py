"""The Chinese teacher's guide and cheat sheet (``scripts/doc_translations.py``): one catalog per document,
one entry per block, in step with the English, complete, within the glossary, and the committed
``docs/*.zh-CN.md`` made from them.

A changed English block turns its entry fuzzy and the Chinese document shows that block in English
under the marker, until someone reviews it (shown here on a copy of the catalog). The Chinese cheat sheet
keeps what the English one's tests hold it to: the pairing errors verbatim, every constructor and
reader named (the drill questions moved on main to docs/interview-answers.md, which has no Chinese
edition yet). Its printed page is tests/ui/test_cheatsheet_pdf.py.
"""

from __future__ import annotations

import re

import doc_translations as docs
import pytest
import translations as tr
from markdown_it import MarkdownIt

from msgmodel.core.message import CONSTRUCTORS, READERS
from msgmodel.course import i18n
from msgmodel.course.exercises.ch06 import DRILL


@pytest.mark.parametrize("name", docs.DOCUMENTS)
def test_the_segments_give_the_document_back(name: str) -> None:
    text = docs.source(name).read_text(encoding="utf-8")
    assert "".join(s.text for s in docs.segments(text)) == text


def test_code_blocks_and_markers_are_not_entries() -> None:
    text = (
        "# Title\n\nSome `code` prose.\n<!-- key: 01.1 -->\n\n```python\nx = 1\n```\n<!-- lesson-plan -->\n\n- a\n- b\n"
    )
    segs = docs.segments(text)
    assert [s.text.strip() for s in segs if s.translatable] == [
        "# Title",
        "Some `code` prose.\n<!-- key: 01.1 -->",
        "- a\n- b",
    ]
    assert "```python\nx = 1\n```\n" in [s.text for s in segs if not s.translatable]


@pytest.mark.parametrize("name", docs.DOCUMENTS)
def test_the_catalog_is_in_step_complete_and_within_the_glossary(name: str) -> None:
    path = docs.catalog_path(name)
    catalog = docs.read(name)
    assert catalog is not None, f"no {path.name}: run `make translations`"
    found = tr.out_of_step(catalog, docs.template(name), path)
    found += tr.problems(catalog, path)
    found += tr.glossary_problems(catalog, path, tr.glossary())
    assert not found, "\n".join(map(str, found))


@pytest.mark.parametrize("name", docs.DOCUMENTS)
def test_the_chinese_document_is_current(name: str) -> None:
    committed = docs.target(name).read_text(encoding="utf-8")
    assert committed == docs.translated(name), f"{docs.target(name).name} is stale: run `make translations`"
    assert tr.MISSING_MARK not in committed and tr.FUZZY_MARK not in committed


def test_a_changed_english_block_turns_fuzzy_and_shows_in_english() -> None:
    name = "cheatsheet"
    english = docs.source(name).read_text(encoding="utf-8")
    old = next(line for line in english.splitlines() if line.startswith("## "))  # the sheet's first section
    changed = english.replace(old, f"{old}, restated", 1)
    zh = str(tr.read_catalog(docs.catalog_path(name))[old].string)
    catalog = tr.merged(tr.read_catalog(docs.catalog_path(name)), docs.template(name, changed))
    entry = catalog[f"{old}, restated"]
    assert entry.fuzzy and entry.string == zh
    problems = [str(p) for p in tr.problems(catalog, docs.catalog_path(name))]
    where = f"docs/locale/zh_CN/LC_MESSAGES/cheatsheet.po (cheatsheet.md:{_line(changed, old)})"
    what = "fuzzy (its English changed; review and remove the flag)"
    assert problems == [f"{where}: {what}: {old + ', restated'!r}"]
    chinese = docs.translated(name, catalog, changed)
    assert f"{old}, restated\n\n{tr.FUZZY_MARK}" in chinese and zh not in chinese


def _line(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def _sheet() -> str:
    return docs.target("cheatsheet").read_text(encoding="utf-8")


def _fences(markdown: str) -> list[str]:
    return [t.content for t in MarkdownIt("commonmark").parse(markdown) if t.type == "fence"]


def test_the_chinese_sheet_quotes_the_errors_verbatim_and_names_the_model() -> None:
    english = docs.source("cheatsheet").read_text(encoding="utf-8")
    assert _fences(_sheet()) == _fences(english)
    for name in [*CONSTRUCTORS, *READERS]:
        assert f"`{name}`" in _sheet(), name


def test_the_chinese_guide_keeps_every_answer_key_block() -> None:
    english = docs.source("teacher-guide").read_text(encoding="utf-8")
    chinese = docs.target("teacher-guide").read_text(encoding="utf-8")
    assert _fences(chinese) == _fences(english)
    assert re.findall(r"<!-- key: \S+ -->", chinese) == re.findall(r"<!-- key: \S+ -->", english)


def test_the_chinese_quiz_and_drill_keys_come_from_the_course_catalog() -> None:
    """Chapter 06's quiz answers and drill points are translated once, in the course catalog the chapter uses."""
    chinese = docs.target("teacher-guide").read_text(encoding="utf-8")
    entries = {e.id for e in docs.template("teacher-guide") if e.id}
    assert not any("<!-- quiz-key -->" in str(e) or "<!-- drill-key -->" in str(e) for e in entries)
    with i18n.using("zh_CN"):
        for d in DRILL:
            assert f"**{i18n._(d.question)}**" in chinese
            assert all(f"    - {i18n._(p)}" in chinese for p in d.points)
    assert "**答案：**" in chinese and "**Answer:**" not in chinese
