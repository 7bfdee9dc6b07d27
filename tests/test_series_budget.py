"""SERIES BUDGET (issue 13): reading time and spoilers of the committed notebooks, as series_stats measures them.

Expected to FAIL until the chapter rewrites of issue 13 are merged and the notebooks rebuilt:
the integrator runs it after the merge. The measure is the one of ``tools/series_stats.py``
(reimplemented here, so this test does not depend on a path outside the repository): 200 words of
markdown a minute plus half a minute per non-empty code cell, on ``notebooks/NN_*.ipynb``; the
core path is the cells tagged ``core``; a spoiler is a committed output showing "✗ exercise …".
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from msgmodel.course.route import core_route

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
CHAPTER_MAX, TOTAL_MAX, CORE_MAX = 30.0, 240.0, 90.0


def stats(path: Path) -> dict[str, Any]:
    """The series_stats measure of one notebook: minutes, core minutes, core cells, spoilers."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    words = core_words = cells = core_cells = 0
    spoilers: list[str] = []
    for c in nb["cells"]:
        src = "".join(c["source"])
        core = "core" in c.get("metadata", {}).get("tags", [])
        if c["cell_type"] == "markdown":
            n = len(re.findall(r"\S+", src))
            words += n
            core_words += n if core else 0
        elif c["cell_type"] == "code" and src.strip():
            cells += 1
            core_cells += 1 if core else 0
            for o in c.get("outputs", []):
                text = "".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
                spoilers += re.findall(r"✗ exercise [\w.]+", text)
    return {
        "minutes": round(words / 200 + cells * 0.5, 1),
        "core_minutes": round(core_words / 200 + core_cells * 0.5, 1),
        "core_cells": core_cells
        + sum(
            1 for c in nb["cells"] if c["cell_type"] == "markdown" and "core" in c.get("metadata", {}).get("tags", [])
        ),
        "spoilers": spoilers,
    }


STATS = {p.stem[:2]: stats(p) for p in NOTEBOOKS}


def test_there_are_eight_chapters() -> None:
    assert len(NOTEBOOKS) == 8


@pytest.mark.parametrize("chapter", sorted(STATS))
def test_each_chapter_fits_its_budget_has_a_core_path_and_spoils_nothing(chapter: str) -> None:
    s = STATS[chapter]
    assert s["minutes"] <= CHAPTER_MAX, f"chapter {chapter}: {s['minutes']} min > {CHAPTER_MAX}"
    assert s["core_cells"] > 0, f"chapter {chapter}: no cell tagged core"
    assert not s["spoilers"], f"chapter {chapter}: committed output shows {s['spoilers']}"


def test_the_series_and_its_core_path_fit_their_budgets() -> None:
    total = round(sum(s["minutes"] for s in STATS.values()), 1)
    core = round(sum(s["core_minutes"] for s in STATS.values()), 1)
    assert total <= TOTAL_MAX, f"the series takes {total} min > {TOTAL_MAX}"
    assert core <= CORE_MAX, f"the core path takes {core} min > {CORE_MAX}"


def test_the_core_route_measured_on_the_sources_is_the_one_of_the_built_notebooks() -> None:
    route = {c.chapter: c.minutes for c in core_route().chapters}
    assert route == {k: s["core_minutes"] for k, s in STATS.items()}, (
        "rebuild the notebooks (scripts/build_notebooks.py)"
    )
