"""The Chinese teacher's guide and class sheets (``scripts/doc_translations.py``): one catalog per document,
one entry per block, in step with the English, complete, within the glossary, and the committed
``docs/*.zh-CN.md`` made from them.

A changed English block turns its entry fuzzy and the Chinese document shows that block in English
under the marker, until someone reviews it (shown here on a copy of the catalog). The Chinese cheat sheet
keeps what the English one's tests hold it to: the pairing errors verbatim, every constructor and
reader named. The Chinese interview sheet asks chapter 06's drill questions as the Chinese chapter does
(the course catalog's words), each with a two-sentence answer. The Chinese exit ticket takes its
questions from the guide's catalog (one translation) and none of the guide's answers or rubric. The
printed pages are tests/ui/test_cheatsheet_pdf.py.
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


def test_the_chinese_interview_sheet_asks_the_drill_questions_as_the_chapter_does() -> None:
    """Each drill question in bold, in the course catalog's words (what the Chinese chapter 06 shows), then an
    answer of two sentences; the English sheet's code spans all kept."""
    chinese = docs.target("interview-answers").read_text(encoding="utf-8")
    with i18n.using("zh_CN"):
        questions = [i18n._(d.question) for d in DRILL]
    for question in questions:
        at = chinese.find(f"**{question}**")
        assert at >= 0, f"the Chinese interview sheet lacks the drill question {question!r} (bold, word for word)"
        answer = chinese[at + len(question) + 4 :].split("\n\n")[0].strip()
        assert len(re.findall(r"[。！？]", answer)) == 2, f"two sentences to {question!r}: {answer!r}"
        assert answer.endswith("。"), answer
    english = docs.source("interview-answers").read_text(encoding="utf-8")
    assert sorted(tr.code_spans(english)) == sorted(tr.code_spans(chinese))


def _ticket_answers(guide: str) -> list[str]:
    """The answer and rubric lines of the guide's ``exit-ticket`` (``- **Answer:** …``, ``- **满分（2）**：…``)."""
    block = guide.split("<!-- exit-ticket -->", 1)[1].split("<!-- /exit-ticket -->", 1)[0]
    return [line for line in block.splitlines() if line.startswith("- **")]


def test_the_chinese_exit_ticket_takes_its_questions_from_the_guide_and_none_of_its_answers() -> None:
    """The exit ticket's questions are translated once, in the guide's catalog; its own catalog has the rest."""
    english = docs.source("exit-ticket").read_text(encoding="utf-8")
    chinese = docs.target("exit-ticket").read_text(encoding="utf-8")
    guide_zh = docs.target("teacher-guide").read_text(encoding="utf-8")
    lent = docs.borrowed("exit-ticket")
    for n in range(1, 5):  # each of the four questions
        assert any(key.startswith(f"**{n}. ") for key in lent), n
    own = {e.id for e in docs.template("exit-ticket") if e.id}
    assert not own & set(lent) and not own & {docs.unmarked(str(e.id)) for e in docs.template("teacher-guide")}
    for key, theirs in lent.items():
        zh = docs.unmarked(str(docs.read("teacher-guide")[theirs].string))
        assert zh in chinese and zh in guide_zh, key
    assert _fences(chinese) == _fences(english)
    answers = _ticket_answers(guide_zh)
    assert len(answers) >= 14 and any(line.startswith("- **答案**") for line in answers)
    assert not [line for line in answers if line in chinese]
    assert "**答案**" not in chinese and "满分" not in chinese and "评分标准" not in chinese


def test_a_changed_guide_question_shows_in_english_on_the_chinese_ticket() -> None:
    """A guide entry turned fuzzy (its English changed) is not used for the ticket either: English under the marker."""
    guide = tr.read_catalog(docs.catalog_path("teacher-guide"))
    key, theirs = next((k, v) for k, v in docs.borrowed("exit-ticket").items() if k.startswith("**2. "))
    guide[theirs].flags.add("fuzzy")
    chinese = docs.translated("exit-ticket", lender=guide)
    assert f"{tr.FUZZY_MARK}\n\n{key}" in chinese
    assert docs.unmarked(str(guide[theirs].string)) not in chinese
