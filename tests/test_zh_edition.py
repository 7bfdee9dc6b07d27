"""The Chinese edition (issue 23) cannot drift from the English: same code, complete catalogs, one glossary.

* every chapter's catalog is in step with its English (``make translations`` would change nothing)
  and complete: no untranslated entry, no fuzzy one, each named by its cells;
* ``notebooks/zh/NN_*.ipynb`` is its catalog applied to the English (``make notebooks``), executed
  cleanly; its code cells are the English chapter's, token for token once comments are removed;
* the course layer's catalog: every marked string translated, none fuzzy, the same ``{}`` fields,
  the committed ``.mo`` is the ``.po`` compiled, and ``i18n.use("zh_CN")`` makes the outputs Chinese;
* ``docs/glossary.zh.md`` binds every catalog: no forbidden rendering, every inline code span kept.

nbval (``make nbtest``) re-executes the Chinese chapters like the English ones.
"""

from __future__ import annotations

import io
import re
import tokenize

import build_notebooks as build
import nbformat
import pytest
import translations as tr
from babel.messages.catalog import Catalog

from msgmodel.course import i18n
from msgmodel.course.exercises import check, hint

CHAPTERS = build.chapters()
STEMS = [c.stem for c in CHAPTERS]
TERMS = tr.glossary()


def catalog_of(stem: str) -> Catalog | None:
    path = tr.catalog_path(stem)
    return tr.read_catalog(path) if path.exists() else None


def zh(stem: str) -> nbformat.NotebookNode:
    return nbformat.read(tr.ZH / f"{stem}.ipynb", as_version=4)


def en(stem: str) -> nbformat.NotebookNode:
    return nbformat.read(build.NOTEBOOKS / f"{stem}.ipynb", as_version=4)


# --- the catalogs follow the English -------------------------------------------------------------


@pytest.mark.parametrize("stem", STEMS)
def test_the_catalog_is_in_step_with_the_english(stem: str) -> None:
    path = tr.catalog_path(stem)
    found = tr.out_of_step(catalog_of(stem), tr.template(stem), path)
    assert not found, "run `make translations`:\n" + "\n".join(map(str, found))


@pytest.mark.parametrize("stem", STEMS)
def test_every_entry_is_translated_and_none_is_fuzzy(stem: str) -> None:
    catalog = catalog_of(stem)
    assert catalog is not None, f"{tr.catalog_path(stem)} is missing: run `make translations`"
    found = tr.problems(catalog, tr.catalog_path(stem))
    assert not found, "\n".join(map(str, found))


def english_cells(texts: list[str]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(t) for t in texts]
    return nb


def test_a_changed_english_sentence_turns_its_entry_fuzzy_and_is_named() -> None:
    """The acceptance demo in small: change a sentence, update, and the stale entry is named."""
    before = english_cells(["# 09 · Title", "The API answers **400**.", "Gone soon.", "The API answers **400**."])
    catalog = tr.template("09_demo", before)
    for entry, text in zip(catalog, ["", "# 09 · 标题", "API 回 **400**。", "很快就删。"], strict=True):
        entry.string = text
    after = english_cells(["# 09 · Title", "The local API answers **400**.", "New cell."])
    updated = tr.merged(tr.read_catalog_bytes(tr.po_text(catalog)), tr.template("09_demo", after))
    entry = updated["The local API answers **400**."]
    assert entry.fuzzy and entry.string == "API 回 **400**。"
    assert entry.previous_id == ["The API answers **400**."]
    assert [e.id for e in updated if e.id] == ["# 09 · Title", "The local API answers **400**.", "New cell."]
    assert list(updated.obsolete) == ["Gone soon."]
    path = tr.catalog_path("09_demo")
    named = [str(p) for p in tr.problems(updated, path)]
    assert named == [
        f"{path.relative_to(tr.ROOT)} (09_demo.ipynb:1): fuzzy (its English changed; review and remove the flag): "
        "'The local API answers **400**.'",
        f"{path.relative_to(tr.ROOT)} (09_demo.ipynb:2): untranslated: 'New cell.'",
    ]
    # ... and the build shows the English of both under a visible marker, never the stale Chinese
    text = tr.po_text(updated)
    assert b'#| msgid "The API answers **400**."' in text and b'#~ msgid "Gone soon."' in text


def test_a_second_update_leaves_a_fuzzy_multi_line_entry_as_it_was() -> None:
    """A multi-line previous id is written on one ``#|`` line; read back, it stays the previous id.

    Babel reads such a line as a translator comment ``| msgid ...``: before the fix, every update after the first
    turned the ``#|`` line into a ``# |`` comment and the entry lost its previous English.
    """
    catalog = tr.template("09_demo", english_cells(["# 09 · Title", "One line.\nTwo lines."]))
    catalog["One line.\nTwo lines."].string = "一行。\n两行。"
    after = english_cells(["# 09 · Title", "One line.\nThree lines."])
    once = tr.po_text(tr.merged(tr.read_catalog_bytes(tr.po_text(catalog)), tr.template("09_demo", after)))
    twice = tr.po_text(tr.merged(tr.read_catalog_bytes(once), tr.template("09_demo", after)))
    assert twice == once and b"# |" not in twice
    assert tr.read_catalog_bytes(twice)["One line.\nThree lines."].previous_id == ["One line.\nTwo lines."]


def test_an_untranslated_or_fuzzy_cell_is_built_in_english_under_a_marker() -> None:
    stem = STEMS[1]
    english = tr.english(stem)
    catalog = tr.template(stem, english)
    cells = [e for e in catalog if e.id]
    cells[0].string, cells[1].string = "已译", "过时的中文"
    cells[1].flags.add("fuzzy")
    built = tr.translated_notebook(stem, catalog)
    md = [c.source for c in built.cells if c.cell_type == "markdown"]
    assert md[0] == tr.relinked("已译") and "过时的中文" not in "".join(md)
    assert tr.FUZZY_MARK in md[1] and tr.MISSING_MARK in md[2]
    first_line = english.cells[[c.cell_type for c in english.cells].index("markdown", 2)].source.splitlines()[0]
    if first_line.startswith("#"):
        assert md[2].splitlines()[0] == first_line  # a heading stays the cell's first line


def test_the_chinese_cells_carry_no_english_holdback_marks() -> None:
    """The marks name English phrases (scripts/build_student.py holds them back); a Chinese cell has none of them."""
    stem = next(s for s in STEMS if any("holdback" in c.metadata for c in en(s).cells))
    assert not any("holdback" in c.metadata for c in tr.translated_notebook(stem).cells)
    assert not any("holdback" in c.metadata for c in zh(stem).cells)


def test_every_anchor_a_chinese_chapter_links_to_exists() -> None:
    """``00_start_here.ipynb#Chapter-map`` (the navigation cells) lands on an anchor of the Chinese chapter.

    JupyterLab names a heading's anchor after its text (spaces as ``-``); a Chinese heading has a Chinese name,
    so a heading an English link names carries the English anchor (``<a id="Chapter-map"></a>``).
    """
    for stem in STEMS:
        for cell in (c for c in zh(stem).cells if c.cell_type == "markdown"):
            for target, fragment in re.findall(r"\]\((\d\d_\w+)\.ipynb#([^)\s]+)\)", cell.source):
                text = "\n".join(c.source for c in zh(target).cells if c.cell_type == "markdown")
                headings = {
                    re.sub(r"[`*]", "", h).strip().replace(" ", "-") for h in re.findall(r"^#+ (.*)$", text, re.M)
                }
                assert f'<a id="{fragment}"></a>' in text or fragment in headings, (stem, target, fragment)


def test_links_out_of_notebooks_go_one_folder_further_up() -> None:
    assert tr.relinked("[规则](../docs/api-rules.md) · [01](01_orphan_tool_result.ipynb)") == (
        "[规则](../../docs/api-rules.md) · [01](01_orphan_tool_result.ipynb)"
    )


# --- the built Chinese chapters -----------------------------------------------------------------


@pytest.mark.parametrize("stem", STEMS)
def test_the_chinese_chapter_is_its_catalog_applied(stem: str) -> None:
    assert (tr.ZH / f"{stem}.ipynb").exists(), f"notebooks/zh/{stem}.ipynb is missing: run `make notebooks`"
    assert build.source_view(zh(stem)) == build.source_view(tr.translated_notebook(stem)), (
        f"notebooks/zh/{stem}.ipynb is out of date with its source or its catalog: run `make notebooks`"
    )


def tokens(source: str) -> list[tuple[int, str]]:
    """The tokens of a code cell without its comments and blank-line breaks (comments may be translated)."""
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING}
    toks = tokenize.generate_tokens(io.StringIO(source + "\n").readline)
    return [(t.type, t.string) for t in toks if t.type not in skip]


@pytest.mark.parametrize("stem", STEMS)
def test_the_chinese_code_is_the_english_code_token_for_token(stem: str) -> None:
    ours = [c for c in zh(stem).cells if c.cell_type == "code" and tr.LOCALE_TAG not in c.metadata.get("tags", ())]
    theirs = [c for c in en(stem).cells if c.cell_type == "code"]
    assert len(ours) == len(theirs), f"{len(ours)} code cells in Chinese, {len(theirs)} in English"
    for n, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        assert tokens(a.source) == tokens(b.source), f"code cell {n} ({a.get('id')}) differs from the English"


def test_comments_do_not_count_but_code_does() -> None:
    assert tokens("x = 1  # one\n# a note\ny = 2") == tokens("x = 1  # 一\n\ny = 2")
    assert tokens("x = 1") != tokens("x = 2")


@pytest.mark.parametrize("stem", STEMS)
def test_the_chinese_chapter_speaks_chinese_and_ran_cleanly(stem: str) -> None:
    nb = zh(stem)
    assert nb.metadata.get("language") == "zh_CN"
    setup = [c for c in nb.cells if tr.LOCALE_TAG in c.metadata.get("tags", ())]
    assert [c.source for c in setup] == [tr.SETUP]
    first_code = next(c for c in nb.cells if c.cell_type == "code")
    assert first_code is setup[0], "i18n.use('zh_CN') runs before any other code"
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1)), "one clean top-to-bottom run"
    for c in code:
        for out in c.outputs:
            if out.output_type == "error":
                assert "raises-exception" in c.metadata.get("tags", ()), f"unexpected error: {out.ename}"


# --- the course layer's catalog ------------------------------------------------------------------


def course() -> Catalog:
    return tr.read_catalog(tr.COURSE_PO)


def test_the_course_catalog_holds_every_marked_string() -> None:
    found = tr.out_of_step(course(), tr.course_template(), tr.COURSE_PO)
    assert not found, "run `make translations`:\n" + "\n".join(map(str, found))


def test_every_course_string_is_translated_and_none_is_fuzzy() -> None:
    found = tr.problems(course(), tr.COURSE_PO)
    assert not found, "\n".join(map(str, found))


FIELD = re.compile(r"(?<!\{)\{[^{}]*\}(?!\})")


def test_every_course_translation_keeps_the_format_fields() -> None:
    for entry in course():
        if entry.id and entry.string:
            ids = entry.id if isinstance(entry.id, tuple) else (entry.id,)
            strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
            for s in strings:
                assert sorted(FIELD.findall(s)) == sorted(FIELD.findall(ids[-1])), f"{entry.id!r} → {s!r}"


def test_the_committed_mo_is_the_po_compiled() -> None:
    assert tr.COURSE_MO.read_bytes() == tr.mo_bytes(course()), "run `make translations`"


def test_use_switches_the_course_layer_and_back() -> None:
    with i18n.using("zh_CN"):
        assert i18n.language() == "zh_CN"
        placeholder = repr(check("01.1", None))
        nudge = str(hint("01.1"))
    english = repr(check("01.1", None))
    assert i18n.language() == "en"
    assert "not attempted yet" in english and "not attempted yet" not in placeholder
    assert re.search(r"[\u4e00-\u9fff]", placeholder) and re.search(r"[\u4e00-\u9fff]", nudge)
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        i18n.use("fr")


# --- the glossary binds ---------------------------------------------------------------------------


def test_the_glossary_parses() -> None:
    assert len(TERMS) >= 30
    opaque = next(t for t in TERMS if t.english == "opaque block")
    assert opaque.renderings == ("不透明块",) and "透明块" in opaque.forbidden


def test_a_forbidden_rendering_is_found_but_not_inside_an_allowed_one() -> None:
    assert tr.forbidden_uses("这是一个不透明块。", TERMS) == []
    assert ("透明块", "opaque block") in tr.forbidden_uses("这是一个透明块。", TERMS)
    assert tr.forbidden_uses("用 `坑` 命名的变量", TERMS) == []  # code is not prose


@pytest.mark.parametrize("stem", STEMS)
def test_the_chapter_catalog_keeps_the_glossary_and_the_code_spans(stem: str) -> None:
    catalog = catalog_of(stem)
    if catalog is None:
        pytest.skip("no catalog yet")  # the in-step test above fails then
    found = tr.glossary_problems(catalog, tr.catalog_path(stem), TERMS)
    assert not found, "\n".join(map(str, found))


def test_the_course_catalog_keeps_the_glossary_and_the_code_spans() -> None:
    found = tr.glossary_problems(course(), tr.COURSE_PO, TERMS)
    assert not found, "\n".join(map(str, found))
