"""The core route reads on its own: a learner who reads only the cells tagged ``core`` meets no loose end.

* every name a core code cell uses is bound by a core cell at or before it (an import, an assignment, a
  definition), never only by a cell the route skips;
* no core cell imports a name the core route never uses;
* the numbered sections (``### 3.``, ``#### 2c.``) run without gaps, on the route and in the whole chapter;
* a core sentence that points at an exercise, at the pitfalls or at a document of docs/ or bench/ says the
  target is optional;
* the core cells, run alone in a fresh kernel (as a teacher runs the RISE deck), raise nothing unexpected.
"""

from __future__ import annotations

import ast
import builtins
import re
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
IPYTHON_NAMES = {"display", "get_ipython"}  # bound in every IPython kernel


def core_cells(path: Path, kind: str) -> list[nbformat.NotebookNode]:
    nb = nbformat.read(path, as_version=4)
    return [c for c in nb.cells if c.cell_type == kind and "core" in c.metadata.get("tags", ())]


def parse(source: str) -> ast.Module:
    """A cell's code (top-level ``await`` and ``async for`` allowed, as in a kernel)."""
    tree = compile(source, "<cell>", "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    assert isinstance(tree, ast.Module)
    return tree


def bound_names(tree: ast.AST) -> set[str]:
    """Every name a cell binds anywhere: imports, assignment targets, definitions, parameters, patterns."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
    return names


def used_names(tree: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def imported_names(tree: ast.Module) -> dict[str, int]:
    """The names a cell's imports bind, with the line of each import."""
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            for a in node.names:
                found[(a.asname or a.name).split(".")[0]] = node.lineno
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_name_a_core_cell_uses_is_introduced_on_the_route(path: Path) -> None:
    known = set(dir(builtins)) | IPYTHON_NAMES
    missing = []
    for cell in core_cells(path, "code"):
        tree = parse(cell.source)
        known |= bound_names(tree)
        missing += [f"{name!r} in: {cell.source.splitlines()[0]}" for name in sorted(used_names(tree) - known)]
    assert not missing, f"{path.name}: core cells use names no core cell before them binds:\n" + "\n".join(missing)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_core_cell_imports_a_name_the_route_never_uses(path: Path) -> None:
    cells = [parse(c.source) for c in core_cells(path, "code")]
    unused = []
    for i, tree in enumerate(cells):
        later = set().union(*(used_names(t) for t in cells[i:]))
        for name, line in imported_names(tree).items():
            if name not in later:
                unused.append(f"{name} (core cell {i + 1}, line {line})")
    assert not unused, f"{path.name}: imported on the core route and never used there: {', '.join(unused)}"


def test_the_import_checks_see_what_they_claim() -> None:
    cell = parse(
        "import a.b\nfrom c import d as e, f\nasync for x in g():\n    h = [y for y in x]\n"
        "match z:\n    case {'k': v, **rest}:\n        pass\n"
    )
    assert {"a", "e", "f", "x", "h", "y", "v", "rest"} <= bound_names(cell)
    assert used_names(cell) >= {"g", "x", "z"} and "h" not in used_names(cell)
    assert set(imported_names(cell)) == {"a", "e", "f"}


HEADING = re.compile(r"^(#{3,4}) (\d+)([a-z]?)\. ", re.M)


def numbering(sources: list[str]) -> list[tuple[int, str]]:
    return [(int(m[2]), m[3]) for source in sources for m in HEADING.finditer(source)]


def gaps(numbers: list[tuple[int, str]]) -> list[str]:
    """Where a ``### N.`` or ``#### Nx.`` sequence skips: 1, 2, 4 or 2a, 2c."""
    found = []
    major, minor = 0, ""
    for n, letter in numbers:
        if not letter:
            if n != major + 1:
                found.append(f"§{n} after §{major}")
            major, minor = n, ""
        else:
            expected = chr(ord(minor) + 1) if minor else "a"
            if n != major or letter != expected:
                found.append(f"§{n}{letter} after §{major}{minor}")
            minor = letter
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_sections_are_numbered_without_gaps_on_the_route_and_in_the_chapter(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    everything = [c.source for c in nb.cells if c.cell_type == "markdown"]
    route = [c.source for c in core_cells(path, "markdown")]
    assert not gaps(numbering(route)), f"{path.name}, core route: {gaps(numbering(route))}"
    assert not gaps(numbering(everything)), f"{path.name}: {gaps(numbering(everything))}"


def test_the_numbering_check_finds_a_skipped_section() -> None:
    assert gaps([(1, ""), (2, ""), (3, ""), (5, "")]) == ["§5 after §3"]
    assert gaps([(1, ""), (2, ""), (2, "a"), (2, "c")]) == ["§2c after §2a"]
    assert not gaps([(1, ""), (2, ""), (2, "a"), (2, "b"), (3, "")])


# the sections off the route, and the documents beside the series (docs/, bench/)
POINTER = re.compile(r"[Ee]xercise \d\d\.\d|\b[Pp]itfalls\b|\bFollow-up questions\b|\]\(\.\./(?:docs|bench)/")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_core_sentence_that_points_off_the_route_says_it_is_optional(path: Path) -> None:
    bad = []
    for cell in core_cells(path, "markdown"):
        text = re.sub(r"```.*?```", "", cell.source, flags=re.S)
        for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z*(])", text):
            if sentence.lstrip().startswith("#") or " · " in sentence:  # a heading; the list of a chapter's sections
                continue
            if POINTER.search(sentence) and "optional" not in sentence.lower():
                bad.append(sentence.strip()[:140])
    assert not bad, f"{path.name}: core sentences point at cells off the route:\n" + "\n".join(bad)


def _run_core_only(path: Path) -> list[str]:
    nb = nbformat.read(path, as_version=4)
    nb.cells = [c for c in nb.cells if c.cell_type == "code" and "core" in c.metadata.get("tags", ())]
    for c in nb.cells:
        c.outputs = []
    client = NotebookClient(
        nb, timeout=120, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()
    errors = []
    for c in nb.cells:
        for out in c.outputs:
            if out.output_type == "error" and "raises-exception" not in c.metadata.get("tags", ()):
                errors.append(f"{out.ename}: {out.evalue} (in: {c.source.splitlines()[0]})")
    return errors


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_core_cells_run_on_their_own(path: Path) -> None:
    """What the teacher's guide promises for the live RISE deck: run every core cell, skip the rest."""
    errors: list[Any] = _run_core_only(path)
    assert not errors, f"{path.name}, core cells alone:\n" + "\n".join(errors)
