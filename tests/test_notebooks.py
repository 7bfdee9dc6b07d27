"""The notebooks as documents: up to date with their sources, complete, navigable, checked.

nbval (``make test``) re-executes them and compares outputs; these tests check what nbval
does not: the chapter rhythm, the exercises, the navigation and the stored execution state.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
import build_notebooks as build  # noqa: E402
from guide import key_answer  # noqa: E402

from msgmodel.course.exercises import check, get  # noqa: E402

CHAPTERS = build.chapters()
RHYTHM = (
    "What",
    "Why",
    "How",
    "Follow-up questions",
    "Pitfalls and trade-offs",
    "vs. the real source",
    "One-line summary",
    "Exercises",
)


def built(ch: build.Chapter) -> nbformat.NotebookNode:
    return nbformat.read(build.NOTEBOOKS / ch.ipynb, as_version=4)


def ids(chs: list[build.Chapter]) -> list[str]:
    return [c.stem for c in chs]


@pytest.mark.parametrize("ch", CHAPTERS, ids=ids(CHAPTERS))
def test_notebook_matches_its_source(ch: build.Chapter) -> None:
    i = CHAPTERS.index(ch)
    assert build.source_view(built(ch)) == build.source_view(build.assemble(CHAPTERS, i)), (
        f"{ch.ipynb} is out of date with notebooks/src/{ch.stem}.py: run `make notebooks`"
    )


@pytest.mark.parametrize("ch", CHAPTERS, ids=ids(CHAPTERS))
def test_outputs_come_from_one_clean_run(ch: build.Chapter) -> None:
    code = [c for c in built(ch).cells if c.cell_type == "code"]
    counts = [c.execution_count for c in code]
    assert counts == list(range(1, len(code) + 1)), "execution counts must be 1..N (a clean top-to-bottom run)"
    for c in code:
        for out in c.outputs:
            if out.output_type == "error":
                assert "raises-exception" in c.metadata.get("tags", ()), f"unexpected error output: {out.ename}"


@pytest.mark.parametrize("ch", CHAPTERS, ids=ids(CHAPTERS))
def test_chapter_follows_the_rhythm(ch: build.Chapter) -> None:
    headings = [
        m.group(1).strip()
        for c in built(ch).cells
        if c.cell_type == "markdown"
        for m in re.finditer(r"^## (?:\d+\.\s*)?(.+)$", c.source, re.M)
    ]
    found = []
    for section in RHYTHM:
        hits = [i for i, h in enumerate(headings) if h.startswith(section)]
        assert hits, f"{ch.ipynb} lacks a '## {section}' section (has: {headings})"
        found.append(hits[0])
    assert found == sorted(found), f"{ch.ipynb}: the sections are out of order: {headings}"


@pytest.mark.parametrize("ch", CHAPTERS, ids=ids(CHAPTERS))
def test_chapter_has_checked_exercises(ch: build.Chapter) -> None:
    source = "\n".join(c.source for c in built(ch).cells if c.cell_type == "code")
    used = sorted(set(re.findall(r'check\("(\d\d\.\d+)"', source)))
    assert len(used) >= 2, f"{ch.ipynb} needs at least two auto-checked exercises, has {used}"
    for ex_id in used:
        assert ex_id.startswith(ch.stem[:2]), f"{ch.ipynb} checks exercise {ex_id} of another chapter"
        ex = get(ex_id)
        assert check(ex_id, key_answer(ex_id)).passed, f"the key's solution of {ex_id} fails its own checker"
        assert not check(ex_id, ex.starter).passed, f"the starter of {ex_id} already passes"


@pytest.mark.parametrize("ch", CHAPTERS, ids=ids(CHAPTERS))
def test_navigation_and_links_resolve(ch: build.Chapter) -> None:
    nb = built(ch)
    i = CHAPTERS.index(ch)
    line = build.nav_line(CHAPTERS, i)
    assert nb.cells[0].source == line and nb.cells[-1].source == line, "navigation cells are stale"
    for c in nb.cells:
        if c.cell_type != "markdown":
            continue
        for target in re.findall(r"\]\(([^)#\s]+\.ipynb)(?:#[^)]*)?\)", c.source):
            assert (build.NOTEBOOKS / target).exists(), f"{ch.ipynb} links to missing {target}"
        for target in re.findall(r"\]\((\.\./[^)#\s]+)\)", c.source):
            assert (build.NOTEBOOKS / target).exists(), f"{ch.ipynb} links to missing {target}"


def test_every_source_is_built() -> None:
    built_names = {p.name for p in build.NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")}
    assert built_names == {c.ipynb for c in CHAPTERS}
