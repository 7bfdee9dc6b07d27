"""The core route: measured on the built notebooks by the careful model and shown in the README."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from msgmodel.course.route import SourceCell, core_route, find_notebooks, find_sources, read_cells
from msgmodel.course.teaching import core_route as from_teaching

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "notebooks" / "src"

SAMPLE = """# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # 09 · A sample

# %% [markdown] tags=["core"]
# ## What
#
# one two three four

# %% tags=["core"]
x = 1

# %%
y = 2

# %% [markdown]
# ## How

# %% tags=["core", "other"]

# %% tags=["core"]
print(x)
"""


def test_read_cells_reads_types_tags_and_markdown_text() -> None:
    cells = read_cells(SAMPLE)
    assert cells[0] == SourceCell("markdown", "# 09 · A sample", ())
    assert cells[1] == SourceCell("markdown", "## What\n\none two three four", ("core",))
    assert [c.cell_type for c in cells] == ["markdown", "markdown", "code", "code", "markdown", "code", "code"]
    assert cells[5] == SourceCell("code", "", ("core", "other"))


def _built(tmp_path: Path, source: str) -> Path:
    """``source`` as a built notebook (no outputs), the way ``core_route`` reads chapters."""
    import jupytext

    nb = jupytext.reads(source, fmt="py:percent")
    (tmp_path / "09_sample.ipynb").write_text(jupytext.writes(nb, fmt="ipynb"))
    return tmp_path


@pytest.mark.skipif(importlib.util.find_spec("jupytext") is None, reason="jupytext builds the sample notebook")
def test_minutes_and_sections_count_core_cells_only(tmp_path: Path) -> None:
    route = core_route(_built(tmp_path, SAMPLE))
    (ch,) = route.chapters
    assert (ch.chapter, ch.title, ch.words, ch.code_cells, ch.code_lines) == ("09", "A sample", 6, 2, 2)
    assert ch.sections == ("What", "How")
    assert ch.minutes == round(6 / 200 + 2 / 20, 1) == route.total  # the careful model: words/200 + lines/20
    assert ch.quick_minutes == round(6 / 200 + 2 * 0.5, 1) == route.quick_total
    assert repr(route).splitlines()[1].split() == ["09", "A", "sample", "0.1"]
    assert "| 09 | A sample | What · How | 0.1 |" in route.markdown()


@pytest.mark.skipif(importlib.util.find_spec("jupytext") is None, reason="jupytext builds the sample notebook")
def test_a_core_cell_that_opens_two_sections_names_both(tmp_path: Path) -> None:
    # Regression: chapters 05-07 open "What" and "Why" in one core cell, and the route named only "Why".
    two = SAMPLE.replace("# ## What\n#\n# one two three four", "# ## What\n#\n# one two\n#\n# ## Why\n#\n# three four")
    (ch,) = core_route(_built(tmp_path, two)).chapters
    assert ch.sections == ("What", "Why", "How")


@pytest.mark.skipif(importlib.util.find_spec("jupytext") is None, reason="jupytext is what builds the notebooks")
@pytest.mark.parametrize("path", sorted(SRC.glob("[0-9][0-9]_*.py")), ids=lambda p: p.stem)
def test_read_cells_agrees_with_jupytext_on_every_chapter(path: Path) -> None:
    import jupytext

    nb = jupytext.read(path, fmt="py:percent")
    ours = read_cells(path.read_text(encoding="utf-8"))
    theirs = [(c.cell_type, tuple(c.metadata.get("tags", ())), c.source) for c in nb.cells]
    assert [(c.cell_type, c.tags) for c in ours] == [t[:2] for t in theirs]
    for mine, (_, _, source) in zip(ours, theirs, strict=True):
        assert len(re.findall(r"\S+", mine.source)) == len(re.findall(r"\S+", source))


def test_the_sources_are_found_from_the_package_and_from_notebooks(monkeypatch: pytest.MonkeyPatch) -> None:
    assert find_sources() == SRC
    assert find_notebooks() == ROOT / "notebooks"
    monkeypatch.chdir(ROOT / "notebooks")
    assert find_sources() == SRC
    assert find_sources(ROOT / "notebooks") == SRC
    assert find_notebooks(ROOT / "notebooks") == ROOT / "notebooks"
    assert repr(core_route()) == repr(from_teaching(ROOT / "notebooks"))


def test_chapter_00_prints_the_route_of_the_committed_notebooks() -> None:
    import build_notebooks
    import nbformat

    shown = build_notebooks.printed_route(nbformat.read(ROOT / "notebooks" / "00_start_here.ipynb", as_version=4))
    assert shown == repr(core_route()), "stale: run `make notebooks` (it re-runs chapter 00 until the route settles)"


def test_the_readme_shows_the_core_route() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- core-route -->\n(.*?)\n<!-- /core-route -->", readme, re.S)
    assert block, "README.md lacks its <!-- core-route --> … <!-- /core-route --> block"
    assert block[1] == core_route().markdown(), "stale: run `python scripts/core_route.py --write-readme`"


def test_the_script_rewrites_only_the_block() -> None:
    spec = importlib.util.spec_from_file_location("core_route_script", ROOT / "scripts" / "core_route.py")
    assert spec and spec.loader
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    text = "intro\n<!-- core-route -->\nold\ntable\n<!-- /core-route -->\nafter\n"
    new = script.readme_with_route(text, "| new |")
    assert new == "intro\n<!-- core-route -->\n| new |\n<!-- /core-route -->\nafter\n"
    assert script.readme_with_route(new, "| new |") == new
    with pytest.raises(SystemExit):
        script.readme_with_route("no markers", "| new |")
