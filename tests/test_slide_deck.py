"""The core path as a slide deck: slide metadata from the ``core`` tag, static slides that load nothing remote.

``scripts/build_notebooks.py`` writes ``metadata.slideshow.slide_type`` on every cell (RISE and
nbconvert's reveal.js exporter read it); ``scripts/build_slides.py`` renders the decks with a
template that serves every script and stylesheet from the build. The browser side (the decks
presented, statically and live with RISE) is tests/ui/test_slides.py.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
import build_notebooks  # noqa: E402
import build_slides  # noqa: E402

CHAPTERS = build_notebooks.chapters()


def cell(kind: str, source: str, core: bool = True) -> nbformat.NotebookNode:
    c = nbformat.v4.new_markdown_cell(source) if kind == "markdown" else nbformat.v4.new_code_cell(source)
    c.metadata["tags"] = ["core"] if core else []
    return c


def test_slide_types_follow_the_core_tag_and_the_headings() -> None:
    cells = [
        cell("markdown", "nav", core=False),
        cell("markdown", "# Title\n\nintro"),
        cell("code", "x = 1"),
        cell("markdown", "a side track", core=False),
        cell("markdown", "## How"),
        cell("markdown", "### 1. A step"),
        cell("code", "\n".join(["y = 2"] * build_notebooks.SLIDE_LINES)),
        cell("markdown", "more words"),
    ]
    assert build_notebooks.slide_types(cells) == [
        "skip",
        "slide",
        "-",
        "skip",
        "slide",
        "subslide",
        "subslide",
        "subslide",
    ]


def test_the_first_core_cell_starts_a_slide_even_without_a_heading() -> None:
    assert build_notebooks.slide_types([cell("code", "x", core=False), cell("code", "x")]) == ["skip", "slide"]


@pytest.mark.parametrize("ch", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_every_committed_chapter_carries_its_deck(ch: build_notebooks.Chapter) -> None:
    nb = nbformat.read(build_notebooks.NOTEBOOKS / ch.ipynb, as_version=4)
    kinds = [c.metadata.get("slideshow", {}).get("slide_type") for c in nb.cells]
    assert kinds == build_notebooks.slide_types(nb.cells), f"{ch.ipynb}: stale slide metadata (rebuild the notebook)"
    shown = [c for c, k in zip(nb.cells, kinds, strict=True) if k != "skip"]
    assert shown and all("core" in c.metadata.get("tags", ()) for c in shown)
    assert kinds[0] == kinds[-1] == "skip", "the navigation cells are not slides"
    assert nb.metadata.get("rise", {}).get("scroll") is True


def test_the_remote_resource_scan_sees_the_stock_template() -> None:
    """The check below can fail: nbconvert's own reveal template loads jQuery, RequireJS and reveal.js from CDNs."""
    from nbconvert import SlidesExporter

    nb = nbformat.read(build_notebooks.NOTEBOOKS / CHAPTERS[1].ipynb, as_version=4)
    page, _ = SlidesExporter().from_notebook_node(nb)
    assert len(build_slides.remote_resources(page)) >= 3


@pytest.mark.parametrize("ch", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_static_slides_load_nothing_remote(ch: build_notebooks.Chapter) -> None:
    nb = nbformat.read(build_notebooks.NOTEBOOKS / ch.ipynb, as_version=4)
    page, _ = build_slides.exporter().from_notebook_node(nb, resources={"metadata": {"name": ch.stem}})
    assert build_slides.remote_resources(page) == []
    assert "application/vnd.jupyter.widget-view+json" not in page, "a widget without its static rendering"
    assert f'src="{build_slides.REVEAL_DIR}/dist/reveal.js"' in page
    assert page.count("<section") >= build_slides.slide_count(nb) > 3


def test_the_drills_model_answers_are_on_the_static_deck() -> None:
    """Chapter 06's drill is on the core route: its static slides carry every model answer."""
    import html

    from msgmodel.course.exercises.ch06 import DRILL

    stem = "06_interview_followups"
    nb = build_slides.deck_notebook(nbformat.read(build_notebooks.NOTEBOOKS / f"{stem}.ipynb", 4), stem)
    page, _ = build_slides.exporter().from_notebook_node(nb, resources={"metadata": {"name": "06"}})
    assert all(html.escape(d.answer) in page for d in DRILL)


def test_restamping_copies_the_slide_metadata_and_keeps_the_outputs() -> None:
    fresh = nbformat.v4.new_notebook(cells=[cell("markdown", "# T"), cell("code", "x = 1")])
    build_notebooks.add_slide_metadata(fresh)
    built = nbformat.v4.new_notebook(cells=[cell("markdown", "# T"), cell("code", "x = 1")])
    built.cells[1].outputs = [nbformat.v4.new_output("stream", text="1\n")]
    assert build_notebooks.restamp_slides(built, fresh)
    assert build_notebooks.source_view(built) == build_notebooks.source_view(fresh)
    assert built.cells[1].outputs[0].text == "1\n"


def test_restamping_refuses_a_notebook_whose_cells_changed() -> None:
    fresh = nbformat.v4.new_notebook(cells=[cell("markdown", "# T"), cell("code", "x = 2")])
    build_notebooks.add_slide_metadata(fresh)
    built = nbformat.v4.new_notebook(cells=[cell("markdown", "# T"), cell("code", "x = 1")])
    assert not build_notebooks.restamp_slides(built, fresh)
    assert all("slideshow" not in c.metadata for c in built.cells)


def test_a_long_code_cell_starts_a_subslide_and_prose_counts_its_wrapped_lines() -> None:
    long_code = "\n".join(["y = 2"] * (build_notebooks.CODE_LINES + 1))
    short_code = "\n".join(["y = 2"] * build_notebooks.CODE_LINES)
    cells = [cell("markdown", "# T"), cell("code", long_code), cell("markdown", "# U"), cell("code", short_code)]
    assert build_notebooks.slide_types(cells) == ["slide", "subslide", "slide", "-"]
    # one source line of prose wider than the slide takes several screen lines
    wide = "word " * (build_notebooks.PROSE_WIDTH * build_notebooks.SLIDE_LINES // 5)
    assert build_notebooks.slide_types([cell("markdown", "# T"), cell("markdown", wide)]) == ["slide", "subslide"]


def test_only_setup_and_hidden_code_folds_and_a_demo_never() -> None:
    assert build_slides.fold_label("\n".join(["x = 1"] * 40)) is None, "long code is shown (the stylesheet wraps it)"
    assert build_slides.fold_label("x = 1\nprint(x)") is None
    assert build_slides.fold_label("import json\n\nfrom msgmodel import user_text  # the constructor") is not None
    assert build_slides.fold_label("import json\nprint(json.dumps(1))") is None
    # a cell whose input the notebook hides (and the reading clock does not count) folds on the deck too
    assert build_slides.fold_label("x = 1", {"tags": ["core", "hide-input"]}) is not None
    assert build_slides.fold_label("x = 1", {"jupyter": {"source_hidden": True}}) is not None
    # a demo is shown whatever it holds
    assert build_slides.fold_label("import json", {"tags": ["core", "demo", "hide-input"]}) is None


def test_prose_words_count_the_text_not_code_diagrams_or_link_targets() -> None:
    text = "## How\n\nOne `tool_use` [link text](https://example.com/a/b) here.\n\n```mermaid\nA->>B: x y z\n```\n"
    assert build_slides.prose_words(text) == 6  # How, One, `tool_use`, link, text, here.
    assert build_slides.prose_words("| a | b |\n|---|---|\n| c d | e |") == 5


def _slides(deck: nbformat.NotebookNode) -> list[list[nbformat.NotebookNode]]:
    """The cells of each slide of a deck notebook (skipped cells left out)."""
    slides: list[list[nbformat.NotebookNode]] = []
    for c in deck.cells:
        kind = c.metadata["slideshow"]["slide_type"]
        if kind == "skip":
            continue
        if kind in ("slide", "subslide"):
            slides.append([])
        slides[-1].append(c)
    return slides


@pytest.mark.parametrize("ch", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_every_slide_is_short_has_notes_and_shows_its_demo(ch: build_notebooks.Chapter) -> None:
    """The issue's bounds, on the deck notebook both decks are made of (the browser measures the static one too)."""
    nb = nbformat.read(build_notebooks.NOTEBOOKS / ch.ipynb, as_version=4)
    deck = build_slides.deck_notebook(nb, ch.stem)
    slides = _slides(deck)
    assert len(slides) == build_slides.slide_count(deck) >= 8
    for n, cells in enumerate(slides, start=1):
        shown = [c for c in cells if c.metadata["slideshow"]["slide_type"] != "notes"]
        notes = [c for c in cells if c.metadata["slideshow"]["slide_type"] == "notes"]
        words = sum(build_slides.prose_words(c.source) for c in shown if c.cell_type == "markdown")
        assert words <= build_slides.WORDS_MAX, f"slide {n}: {words} words of prose"
        assert len(notes) == 1 and notes[0] is cells[-1], f"slide {n}: its notes are not its last cell"
        assert notes[0].source.startswith("**Clock "), f"slide {n}: no clock cue"
    demos = [c for c in deck.cells if c.cell_type == "code" and build_slides.DEMO_TAG in c.metadata.get("tags", ())]
    assert demos, f"{ch.stem}: no cell tagged demo"
    assert not [c.get("id") for c in demos if c.metadata.get("slide_fold")], "a folded demo"
    demo_notes = "\n".join(c.source for c in deck.cells if c.metadata["slideshow"]["slide_type"] == "notes")
    assert "**Common wrong answers**" in demo_notes and "**Discussion prompts**" in demo_notes


@pytest.mark.parametrize("ch", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_the_deck_keeps_the_core_path_and_the_chapter_prose_goes_to_the_notes(ch: build_notebooks.Chapter) -> None:
    nb = nbformat.read(build_notebooks.NOTEBOOKS / ch.ipynb, as_version=4)
    before = copy.deepcopy(nb)
    deck = build_slides.deck_notebook(nb, ch.stem)
    assert nb == before, "the chapter's notebook was changed"
    core = [c for c in nb.cells if c.metadata["slideshow"]["slide_type"] != "skip"]
    code = [c.source for c in deck.cells if c.cell_type == "code" and c.metadata["slideshow"]["slide_type"] != "skip"]
    assert code == [c.source for c in core if c.cell_type == "code"], "the deck shows other code than the core path"
    notes = "\n".join(c.source for c in deck.cells if c.metadata["slideshow"]["slide_type"] == "notes")
    for c in core:
        if c.cell_type == "markdown":
            prose = build_slides.diagrams.FENCE.sub("*(the diagram on the slide)*", c.source)
            assert prose in notes, f"{c.get('id')}: its prose is not in the notes"
    assert len({c.get("id") for c in deck.cells}) == len(deck.cells)


def test_a_deck_entry_for_a_changed_cell_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stem = "01_orphan_tool_result"
    nb = nbformat.read(build_notebooks.NOTEBOOKS / f"{stem}.ipynb", as_version=4)
    text = build_slides.deck_file(stem).read_text(encoding="utf-8")
    monkeypatch.setattr(build_slides, "DECKS", tmp_path)
    (tmp_path / "01.toml").write_text(text.replace('starts = "## What"', 'starts = "## Wot"'), encoding="utf-8")
    with pytest.raises(SystemExit, match="does not start"):
        build_slides.deck_notebook(nb, stem)
    long = text.replace("## What\n", "## What\n\n" + "word " * 61 + "\n", 1)
    (tmp_path / "01.toml").write_text(long, encoding="utf-8")
    with pytest.raises(SystemExit, match="words on a slide"):
        build_slides.deck_notebook(nb, stem)
    cut = text[: text.index('[[slide]]\ncell = "01-003"')]
    (tmp_path / "01.toml").write_text(cut, encoding="utf-8")
    with pytest.raises(SystemExit, match="no slide text for core cell 01-003"):
        build_slides.deck_notebook(nb, stem)


def test_every_diagram_is_drawn_and_the_decks_carry_the_svg() -> None:
    import diagrams

    assert diagrams.main([]) == 0, "a diagram is not drawn or an SVG is stale: python scripts/diagrams.py --write"
    fences = diagrams.all_fences()
    assert fences, "the series has no diagram (chapter 00 draws the four messages)"
    for source in fences.values():
        assert diagrams.drawn(source).startswith("<svg"), "an SVG that is not one"
    stem = "00_start_here"
    deck = build_slides.deck_notebook(nbformat.read(build_notebooks.NOTEBOOKS / f"{stem}.ipynb", 4), stem)
    page, _ = build_slides.exporter().from_notebook_node(deck, resources={"metadata": {"name": stem}})
    assert '<pre class="mermaid">' in page
    drawn = diagrams.inline_svgs(page)
    assert '<pre class="mermaid">' not in drawn and drawn.count('<figure class="msg-diagram"') == 1


def test_the_notes_clock_is_the_class_plans() -> None:
    """The notes' chapter windows are the guide's class plan (setup first, then the chapters), and every deck's
    hand-written budget agrees with it. They were the reading route's minutes, and chapter 04's notes said 43-54
    while the plan said 38-56 (a teacher's review)."""
    import class_plan

    start, plan = 0, {}
    for segment in class_plan.PLAN:
        if segment.chapter:
            plan[segment.chapter] = (start, start + segment.minutes)
        start += segment.minutes
    assert build_slides.chapter_clocks() == plan
    assert plan["04"] == (38, 56)
    for chapter, (begin, end) in plan.items():
        text = (ROOT / "slides" / "decks" / f"{chapter}.toml").read_text(encoding="utf-8")
        for said in re.findall(r"Budget: (?:about )?(\d+)", text):
            assert int(said) == end - begin, (chapter, said)
        assert "review's plan" not in text and "exercise 07.1" not in text, chapter
