"""SERIES BUDGET: reading time, long cells and spoilers of the committed notebooks.

The clock is the careful reading model of ``msgmodel.course.route`` (the one ``core_route()``, chapter 00,
the README and the teacher's guide show): prose at 200 words a minute, code at 20 non-blank lines a minute
(a cell whose input is hidden counts none), outputs at 250 words a minute. It was fitted to a learner who
read the core route start to finish. Budgets: the core route (cells tagged ``core``) at most 90 minutes,
every chapter at most 30, the series at most 200, no core code cell over 30 non-blank lines; a committed
notebook shows no exercise as failed ("✗ exercise …"). The quick model (200 words a minute plus half a
minute per code cell) is measured too, for comparison with ``tools/series_stats.py``.

``series_stats.py`` (the review's tool, outside the repository: ``../shared/tools/`` from the repository
root, or ``$SERIES_STATS``) measures the same notebooks its own way; when it is there, both must agree
within a minute, chapter by chapter.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from msgmodel.course.route import ChapterRoute, chapter_route, code_lines, core_route, output_text

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
CHAPTER_MAX, TOTAL_MAX, CORE_MAX, CORE_CELL_MAX_LINES = 30.0, 200.0, 90.0, 30


def _cells(path: Path) -> list[dict[str, Any]]:
    cells: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return cells


def _whole(path: Path) -> ChapterRoute:
    """The careful and quick measure of a whole chapter: every cell counted as if it were core."""
    nb = {"cells": [{**c, "metadata": {**c.get("metadata", {}), "tags": ["core"]}} for c in _cells(path)]}
    return chapter_route(nb, path.stem)


def _core(path: Path) -> ChapterRoute:
    return chapter_route({"cells": _cells(path)}, path.stem)


WHOLE = {p.stem[:2]: _whole(p) for p in NOTEBOOKS}
CORE = {p.stem[:2]: _core(p) for p in NOTEBOOKS}


def test_there_are_eight_chapters_each_with_a_core_path() -> None:
    assert [p.stem[:2] for p in NOTEBOOKS] == [f"{n:02d}" for n in range(8)]
    assert all(c.words and c.code_cells for c in CORE.values()), "a chapter has no core prose or no core code"


@pytest.mark.parametrize("chapter", sorted(WHOLE))
def test_each_chapter_fits_its_budget(chapter: str) -> None:
    minutes = WHOLE[chapter].minutes
    assert minutes <= CHAPTER_MAX, f"chapter {chapter}: {minutes} min (careful) > {CHAPTER_MAX}"


def test_the_series_and_its_core_path_fit_their_budgets() -> None:
    total = round(sum(c.minutes for c in WHOLE.values()), 1)
    core = round(sum(c.minutes for c in CORE.values()), 1)
    assert total <= TOTAL_MAX, f"the series takes {total} min (careful) > {TOTAL_MAX}"
    assert core <= CORE_MAX, f"the core path takes {core} min (careful) > {CORE_MAX}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_core_code_cell_is_longer_than_a_reader_follows(path: Path) -> None:
    for c in _cells(path):
        if c["cell_type"] == "code" and "core" in c.get("metadata", {}).get("tags", []):
            first = "".join(c["source"]).strip().splitlines()[0]
            assert code_lines(c) <= CORE_CELL_MAX_LINES, f"{path.name}: a core cell of {code_lines(c)} lines: {first}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_committed_output_spoils_an_exercise(path: Path) -> None:
    spoilers = [
        hit
        for c in _cells(path)
        for o in c.get("outputs", [])
        for hit in re.findall(r"✗ exercise [\w.]+", output_text(o))
    ]
    assert not spoilers, f"{path.name}: a committed output shows {spoilers}"


def test_the_route_chapter_00_prints_is_this_measure() -> None:
    assert [c.minutes for c in core_route().chapters] == [CORE[k].minutes for k in sorted(CORE)]
    assert core_route().total == round(sum(c.minutes for c in CORE.values()), 1)


def test_the_careful_model_counts_lines_outputs_and_hidden_inputs() -> None:
    cell = {"cell_type": "code", "source": "a = 1\n\nb = 2\n", "metadata": {"tags": ["core"]}, "outputs": []}
    out = {"output_type": "stream", "name": "stdout", "text": "five words of output here"}
    nb = {
        "cells": [
            {"cell_type": "markdown", "source": "# 09 · A sample\n\none two", "metadata": {"tags": ["core"]}},
            {**cell, "outputs": [out]},
            {**cell, "metadata": {"tags": ["core", "hide-input"]}},
            {**cell, "metadata": {"tags": ["core"], "jupyter": {"source_hidden": True}}},
            {**cell, "metadata": {}},  # not core
        ]
    }
    route = chapter_route(nb, "09_sample")
    assert (route.title, route.words, route.code_cells, route.code_lines, route.output_words) == (
        "A sample",
        7,
        3,
        2,
        5,
    )
    assert route.minutes == round(7 / 200 + 2 / 20 + 5 / 250, 1)
    assert route.quick_minutes == round(7 / 200 + 3 * 0.5, 1)


def _series_stats() -> ModuleType | None:
    candidates = [os.environ.get("SERIES_STATS", "")] + [
        str(base / "shared" / "tools" / "series_stats.py") for base in (ROOT.parent, ROOT.parent.parent)
    ]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            spec = importlib.util.spec_from_file_location("series_stats", candidate)
            if spec and spec.loader:
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                return module
    return None


def test_this_measure_agrees_with_series_stats_within_a_minute(monkeypatch: pytest.MonkeyPatch) -> None:
    tool = _series_stats()
    if tool is None:
        pytest.skip("series_stats.py is not next to this repository (set SERIES_STATS to its path)")
    monkeypatch.chdir(ROOT)
    for path in NOTEBOOKS:
        theirs = tool.stats(str(path.relative_to(ROOT)))
        key = path.stem[:2]
        pairs = {
            "careful": (WHOLE[key].minutes, theirs["careful"]),
            "core careful": (CORE[key].minutes, theirs["core_careful"]),
            "quick": (WHOLE[key].quick_minutes, theirs["minutes"]),
            "core quick": (CORE[key].quick_minutes, theirs["core_minutes"]),
        }
        for what, (ours, stats) in pairs.items():
            assert abs(ours - stats) <= 1.0, f"{path.name}: {what} {ours} here, {stats} by series_stats.py"
        assert CORE[key].code_lines == theirs["core_code_lines"], path.name
        assert not theirs["spoilers"], path.name
