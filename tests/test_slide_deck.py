"""The core path as a slide deck: slide metadata from the ``core`` tag, static slides that load nothing remote.

``scripts/build_notebooks.py`` writes ``metadata.slideshow.slide_type`` on every cell (RISE and
nbconvert's reveal.js exporter read it); ``scripts/build_slides.py`` renders the decks with a
template that serves every script and stylesheet from the build. The browser side (the decks
presented, statically and live with RISE) is tests/ui/test_slides.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
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
