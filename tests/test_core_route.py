"""The core route: read from the jupytext sources, measured as series_stats measures, shown in the README."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from msgmodel.course.route import SourceCell, core_route, find_sources, read_cells
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


def test_minutes_and_sections_count_core_cells_only(tmp_path: Path) -> None:
    (tmp_path / "09_sample.py").write_text(SAMPLE)
    route = core_route(tmp_path)
    (ch,) = route.chapters
    assert (ch.chapter, ch.title, ch.words, ch.code_cells) == ("09", "A sample", 6, 2)  # the empty cell is not counted
    assert ch.sections == ("What", "How")
    assert ch.minutes == round(6 / 200 + 2 * 0.5, 1) == route.total
    assert repr(route).splitlines()[1].split() == ["09", "A", "sample", "1.0", "What", "·", "How"]
    assert "| 09 | A sample | What · How | 1.0 |" in route.markdown()


def test_a_core_cell_that_opens_two_sections_names_both(tmp_path: Path) -> None:
    # Regression: chapters 05-07 open "What" and "Why" in one core cell, and the route named only "Why".
    two = SAMPLE.replace("# ## What\n#\n# one two three four", "# ## What\n#\n# one two\n#\n# ## Why\n#\n# three four")
    (tmp_path / "09_sample.py").write_text(two)
    (ch,) = core_route(tmp_path).chapters
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
    monkeypatch.chdir(ROOT / "notebooks")
    assert find_sources() == SRC
    assert find_sources(ROOT / "notebooks") == SRC
    assert repr(core_route()) == repr(from_teaching(SRC))


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
