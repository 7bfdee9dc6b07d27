"""The core path as a slide deck: slide metadata from the ``core`` tag, static slides that load nothing remote.

``scripts/build_notebooks.py`` writes ``metadata.slideshow.slide_type`` on every cell (RISE and
nbconvert's reveal.js exporter read it); ``scripts/build_slides.py`` renders the decks with a
template that serves every script and stylesheet from the build. The browser side (the decks
presented, statically and live with RISE) is tests/ui/test_slides.py.
"""

from __future__ import annotations

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
    """Chapter 06's drill is on the core route: its static slides carry every model answer (folded)."""
    import html

    from msgmodel.course.exercises.ch06 import DRILL

    nb = build_slides.fit_to_screen(nbformat.read(build_notebooks.NOTEBOOKS / "06_interview_followups.ipynb", 4))
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


def test_long_and_setup_only_code_folds_on_the_deck() -> None:
    assert build_slides.fold_label("\n".join(["x = 1"] * (build_slides.FOLD_LINES + 1))) is not None
    assert build_slides.fold_label("x = 1\nprint(x)") is None
    assert build_slides.fold_label("import json\n\nfrom msgmodel import user_text  # the constructor") is not None
    assert build_slides.fold_label("import json\nprint(json.dumps(1))") is None
    # a cell whose input the notebook hides (and the reading clock does not count) folds on the deck too
    assert build_slides.fold_label("x = 1", {"tags": ["core", "hide-input"]}) is not None
    assert build_slides.fold_label("x = 1", {"jupyter": {"source_hidden": True}}) is not None


def test_markdown_pages_cut_at_sections_and_long_prose_and_lose_no_text() -> None:
    para = "word " * 150  # several screen lines
    source = "\n\n".join(["## How", "### 1. First", para, "```python\nx = 1\n\ny = 2\n```", "### 2. Second", para])
    pages = build_slides.markdown_pages(source)
    assert pages[0].startswith("## How\n\n### 1. First"), "a heading-only page stays with its first section"
    assert any(p.startswith("### 2. Second") for p in pages)
    assert all("```python\nx = 1\n\ny = 2\n```" in p for p in pages if "```" in p), "a fence was cut"
    assert [b for p in pages for b in build_slides.markdown_blocks(p)] == build_slides.markdown_blocks(source)
    long = "\n\n".join(["### A"] + [f"paragraph {n}: " + "word " * 60 for n in range(20)])
    assert len(build_slides.markdown_pages(long)) > 1
    assert all(build_slides.screen_lines(p) <= build_slides.MD_LINES for p in build_slides.markdown_pages(long))
    assert build_slides.markdown_pages("short text") == ["short text"]


@pytest.mark.parametrize("ch", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_fitting_a_chapter_to_the_screen_keeps_its_core_path(ch: build_notebooks.Chapter) -> None:
    nb = nbformat.read(build_notebooks.NOTEBOOKS / ch.ipynb, as_version=4)
    fitted = build_slides.fit_to_screen(nb)

    def shown(n: nbformat.NotebookNode) -> list[tuple[str, str]]:
        out = []
        for c in n.cells:
            if c.metadata["slideshow"]["slide_type"] != "skip":
                blocks = build_slides.markdown_blocks(c.source) if c.cell_type == "markdown" else [c.source]
                out += [(c.cell_type, b) for b in blocks]
        return out

    assert shown(fitted) == shown(nb), "the deck shows other text than the core path"
    assert [c.metadata["slideshow"]["slide_type"] for c in fitted.cells].count("slide") == [
        c.metadata["slideshow"]["slide_type"] for c in nb.cells
    ].count("slide"), "fitting moved a slide (a ## section) boundary"
    assert len({c["id"] for c in fitted.cells}) == len(fitted.cells)
    assert "slide_fold" not in str([c.metadata for c in nb.cells]), "the committed notebook was changed"
