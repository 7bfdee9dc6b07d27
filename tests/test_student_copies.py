"""The student copies (``make student``): blank, free of solutions, and runnable with and without the answer key.

Every copy is run twice in one kernel per chapter, as a class would: top to bottom as handed out
(each exercise prints "not attempted yet"), then, after ``%reset -f``, top to bottom again with the
answer key of docs/teacher-guide.md pasted into its exercise cells (each ``check`` prints ✓). The
8 chapters run 2 at a time; the whole module takes about 60 s on 2 cores.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import build_student
import nbformat
import pytest
from guide import ROOT, answer_key, chapter_exercises
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

CHAPTERS = build_student.chapters()
RUN_DIR = ROOT / "build" / "student"  # the kernels start where `make student` puts the copies


def committed(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def copy_of(path: Path) -> nbformat.NotebookNode:
    return build_student.student_copy(committed(path), path.name)


def text_of_outputs(cell: nbformat.NotebookNode) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            parts.append(out.text)
        elif "data" in out:
            parts.append(out.data.get("text/plain", ""))
        elif out.output_type == "error":
            parts.append(f"{out.ename}: {out.evalue}")
    return "".join(parts)


# ---------------------------------------------------------------------------------------
# The copies as files
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_a_copy_has_no_outputs_and_keeps_every_starter(path: Path) -> None:
    original, copy = committed(path), copy_of(path)
    assert "widgets" not in copy.metadata
    assert copy.cells[0].cell_type == "markdown" and "Student copy" in copy.cells[0].source
    assert len(copy.cells) == len(original.cells) + 1
    for cell in copy.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
    exercises = build_student.exercise_cells(copy)
    assert len(exercises) == 3 and all(ex_id.startswith(path.name[:2]) for ex_id in exercises)
    for i, _ in exercises.values():
        assert copy.cells[i].source == original.cells[i - 1].source  # the starter, as committed
    code = [c.source for c in copy.cells if c.cell_type == "code"]
    assert code == [c.source for c in original.cells if c.cell_type == "code"]


def test_make_student_writes_every_chapter(tmp_path: Path) -> None:
    assert build_student.main(["--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.glob("*.ipynb")) == [p.name for p in CHAPTERS]
    assert sorted(p.name for p in (tmp_path / "zh").glob("*.ipynb")) == [p.name for p in CHAPTERS]  # both editions
    for p in [*tmp_path.glob("*.ipynb"), *tmp_path.glob("zh/*.ipynb")]:
        nbformat.validate(nbformat.read(p, as_version=4))


def test_the_chinese_copies_link_out_and_back_from_build_student_zh() -> None:
    out = RUN_DIR / "zh"  # build/student/zh/
    for path in build_student.chapters(zh=True):
        copy = build_student.student_copy(committed(path), path.name, "../../..", zh=True)
        assert copy.cells[0].source.startswith("**学生副本。**")
        for cell in copy.cells:
            if cell.cell_type == "markdown":
                for target in re.findall(r"\]\((\.\./[^)#\s]+)", cell.source):
                    assert (out / target).resolve().exists(), f"zh/{path.name}: dead link {target}"


def test_links_out_of_the_notebooks_folder_still_resolve() -> None:
    for path in CHAPTERS:
        for cell in copy_of(path).cells:
            if cell.cell_type != "markdown":
                continue
            for target in re.findall(r"\]\((\.\./[^)#\s]+)", cell.source):
                assert (RUN_DIR / target).resolve().exists(), f"{path.name}: dead link {target}"


def _solution_texts() -> Iterator[tuple[str, str]]:
    """Every exercise's key block (what reveal(id, confirm=True) prints in self-study)."""
    for ex in chapter_exercises():
        yield ex.id, answer_key()[ex.id]


def test_no_solution_text_is_in_any_copy() -> None:
    copies = {p.name: json.dumps(copy_of(p), ensure_ascii=False) for p in CHAPTERS}
    sources = {p.name: "\n".join(c.source for c in copy_of(p).cells) for p in CHAPTERS}
    for ex_id, solution in _solution_texts():
        for name in CHAPTERS:
            assert solution.strip() not in sources[name.name], f"{name.name} holds the solution of {ex_id}"
            assert json.dumps(solution.strip(), ensure_ascii=False)[1:-1] not in copies[name.name]
        lines = [line.strip() for line in solution.splitlines()]
        body = [s for s in lines if len(s) >= 40 and not s.startswith(("from ", "import ", "def ", "class "))]
        for line in body:  # a distinctive line of a solution (not an import or a signature the starter shares)
            for name in CHAPTERS:
                assert line not in sources[name.name], f"{name.name} holds a line of {ex_id}'s solution: {line}"
    for path in CHAPTERS:  # the markdown may say how to reveal; no code cell does it
        for cell in copy_of(path).cells:
            if cell.cell_type == "code":
                assert not re.search(r"reveal\([^)]*confirm\s*=\s*True", cell.source), f"{path.name} reveals"


def test_pasting_replaces_only_the_starter() -> None:
    cell = 'from x import check\n\n\ndef f(a):\n    ...  # your code here\n\n\ncheck("01.1", f)'
    assert build_student.paste(cell, "f", "def f(a):\n    return a\n") == (
        'from x import check\n\n\ndef f(a):\n    return a\n\n\ncheck("01.1", f)'
    )
    cell = 'print("the question")\nanswer = None  # your answer\ncheck("01.2", answer)'
    assert (
        build_student.paste(cell, "answer", 'answer = "C"')
        == 'print("the question")\nanswer = "C"\ncheck("01.2", answer)'
    )
    with pytest.raises(ValueError, match="no top-level definition"):
        build_student.paste('check("01.2", answer)', "answer", 'answer = "C"')


# ---------------------------------------------------------------------------------------
# The copies, run
# ---------------------------------------------------------------------------------------


@dataclass
class Run:
    """One chapter's two runs: the exercise cells' outputs, and the first error of each run."""

    blank: dict[str, str] = field(default_factory=dict)
    keyed: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def _execute(client: NotebookClient, nb: nbformat.NotebookNode, label: str, errors: list[str]) -> None:
    client.nb = nb
    for i, cell in enumerate(nb.cells):
        try:
            client.execute_cell(cell, i)
        except CellExecutionError as e:
            errors.append(f"{label}, cell {i}: {str(e).strip().splitlines()[-1]}")
            return


def run_chapter(path: Path, key: dict[str, str]) -> Run:
    """Run the chapter's student copy as handed out, then with the key pasted in, in one kernel."""
    blank = copy_of(path)
    keyed = build_student.with_solutions(blank, key)
    result = Run()
    client = NotebookClient(blank, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(RUN_DIR)}})
    with client.setup_kernel():
        _execute(client, blank, "as handed out", result.errors)
        reset = nbformat.v4.new_code_cell("%reset -f")
        _execute(client, nbformat.v4.new_notebook(cells=[reset]), "reset", result.errors)
        _execute(client, keyed, "with the answer key", result.errors)
    for ex_id, (i, _) in build_student.exercise_cells(blank).items():
        result.blank[ex_id] = text_of_outputs(blank.cells[i])
        result.keyed[ex_id] = text_of_outputs(keyed.cells[i])
    return result


@pytest.fixture(scope="module")
def runs() -> Iterator[dict[str, Run]]:
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    key = answer_key()
    with pytest.MonkeyPatch.context() as mp:
        # The kernels import this checkout's msgmodel, wherever the venv's editable install points.
        mp.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
        with ThreadPoolExecutor(max_workers=2) as pool:
            done = dict(zip(CHAPTERS, pool.map(lambda p: run_chapter(p, key), CHAPTERS), strict=True))
    yield {p.name: r for p, r in done.items()}


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_a_copy_runs_as_handed_out_and_with_the_answer_key(path: Path, runs: dict[str, Run]) -> None:
    run = runs[path.name]
    assert run.errors == []
    assert len(run.blank) == len(run.keyed) == 3
    for ex_id, shown in run.blank.items():
        assert f"· exercise {ex_id}: not attempted yet" in shown, shown
    for ex_id, shown in run.keyed.items():
        assert f"✓ exercise {ex_id}: correct" in shown, shown


# ---------------------------------------------------------------------------------------
# Prose that states a cleared cell's output
# ---------------------------------------------------------------------------------------

_NUMBER = re.compile(r"(?<![\w.§/-])(\d+(?:\.\d+)?)(?![\w/])")
_NOT_A_RESULT = re.compile(
    r"(chapter|chapters|step|steps|section|§|issue|python|exercise|exercises|rule|top)\s*$", re.I
)

REVIEWED: dict[tuple[str, str], str] = {
    ("00", "Try `run_agent("): "an invitation to type a question, not the cell's output",
    ("00", '`hint("00.1")`, then'): "how to ask for hints",
    ("00", "`client(local=False)`, or `MSGMODEL_LIVE=1`"): "how to reach the real API",
    ("00", "Rules 2 and 3 are the **pairing rules**"): "rule numbers of the table, not the wire listing's indexes",
    ("00", "Rules 1, 2, 3 and 5 rest on captured"): "rule numbers of the table, not the wire listing's indexes",
    ("00", "Each 400 carries the live API's sentence"): "the status of the cell above, then chapter 01's capture count",
    ("01", "Message 2 is a user message"): "reads the outline just drawn (no question was asked of it)",
    ("01", "**Stricter than the protocol, on purpose.**"): "recalls section 3's result, several cells up",
    ("01", "For message 7 the two rules disagree:"): "announces the next cell",
    ("01", "A team whose tests use `keep=6`"): "the moral, no output stated",
    ("01", "As in chapter 00, `validate` run"): "announces the next cell",
    ("02", "Two questions the next turn depends on"): "names the seven facts the next cell probes",
    ("03", "The smallest piece holds the sharpest example"): "a count from the table two cells up",
    ("05", "Each compactor on chapter 01's 13 messages"): "chapter 01's history, not the 13 sites the scan cell prints",
    ("05", "Copy #2 keeps the first prompt's facts"): "copy #2 is a name (chapter 03's numbering), not a result",
    ("05", "The step-30 test spells its facts"): "copy #2 is a name (chapter 03's numbering), not a result",
    ("04", "More bad inputs"): "the JSONPath convention",
    ("05", "`keep_recent=0` would summarize everything"): "announces the next cell",
    ("07", "The same on this machine, now:"): "announces the next cell",
    ("07", "Exit code 1 means"): "the CLI's convention",
}
"""Sentences right after a code cell that repeat a number of its output and were read and judged not to state it
(chapter, first words) -> why. Every other such sentence must be held back (``holdback`` in its cell's metadata)."""


def _output_text(cell: nbformat.NotebookNode) -> str:
    outputs = [out for out in cell.get("outputs", []) if "data" in out and "text/plain" not in out.data]
    return text_of_outputs(cell) + "".join(out.data.get("text/html", "") for out in outputs)


def _sentences(markdown: str) -> Iterator[str]:
    markdown = re.sub(r"```.*?```", "", markdown, flags=re.S)
    for paragraph in re.split(r"\n\s*\n", markdown):
        yield from re.split(r"(?<=[.!?:])\s+(?=[A-Z*`(\"])", " ".join(paragraph.split()))


def sentences_stating_output(nb: nbformat.NotebookNode) -> Iterator[tuple[int, str]]:
    """(cell index, sentence) for each sentence of a markdown cell right after a code cell that repeats a number of
    the code cell's output which its source does not hold: the sentences that may give a prediction away."""
    for i in range(1, len(nb.cells)):
        before, cell = nb.cells[i - 1], nb.cells[i]
        if before.cell_type != "code" or cell.cell_type != "markdown":
            continue
        output = _output_text(before)
        printed, written = set(_NUMBER.findall(output)), set(_NUMBER.findall(before.source))
        for sentence in _sentences(cell.source):
            if sentence.startswith(("|", "#")):
                continue
            for m in _NUMBER.finditer(sentence):
                if m[1] in printed and m[1] not in written and not _NOT_A_RESULT.search(sentence[: m.start()]):
                    yield i, sentence
                    break


def _held_back(cell: nbformat.NotebookNode, sentence: str) -> bool:
    """Whether a phrase ``holdback`` marks in ``cell`` lies in ``sentence`` (or holds it)."""
    for mark in cell.metadata.get("holdback", []):
        phrase = build_student.mark_pattern(mark).search(cell.source)
        if phrase is not None:
            words = " ".join(phrase.group(0).split())
            if words in sentence or sentence in words:
                return True
    return False


def test_every_sentence_after_a_code_cell_that_repeats_its_output_is_held_back_or_reviewed() -> None:
    found, unreviewed, stale = [], [], set(REVIEWED)
    for path in CHAPTERS:
        nb = committed(path)
        for i, sentence in sentences_stating_output(nb):
            found.append((path.name[:2], sentence))
            reviewed = next((k for k in REVIEWED if k[0] == path.name[:2] and sentence.startswith(k[1])), None)
            stale.discard(reviewed)  # type: ignore[arg-type]
            if reviewed is None and not _held_back(nb.cells[i], sentence):
                unreviewed.append(f"{path.name} cell {i}: {sentence}")
    assert unreviewed == [], "hold these back (holdback in the cell's metadata) or review them:\n" + "\n".join(
        unreviewed
    )
    assert stale == set(), f"reviewed sentences no longer found: {sorted(stale)}"
    assert len(found) >= 20  # the detector still sees what it was tuned on


def test_held_back_phrases_follow_a_code_cell_and_are_gone_from_the_copy() -> None:
    marked = 0
    for path in CHAPTERS:
        original, copy = committed(path), copy_of(path)
        for i, cell in enumerate(original.cells):
            marks = cell.metadata.get("holdback", [])
            if not marks:
                continue
            assert cell.cell_type == "markdown" and original.cells[i - 1].cell_type == "code", f"{path.name} cell {i}"
            twin = copy.cells[i + 1]  # the copy has its note on top
            assert "holdback" not in twin.metadata, "the marks would give the phrases away"
            assert twin.source.count(build_student.HELD_BACK) == len(marks)
            for mark in marks:
                phrase = build_student.mark_pattern(mark).search(cell.source)
                assert phrase is not None, f"{path.name} cell {i}: {mark!r} is not in its cell"
                assert phrase.group(0) not in twin.source
                marked += 1
    assert marked >= 8
    stale = nbformat.v4.new_markdown_cell("Three and seven.", metadata={"holdback": ["3 and 7 here"]})
    with pytest.raises(ValueError, match="not in its cell"):
        build_student.hold_back(stale)
    cell = nbformat.v4.new_markdown_cell("Breaks at\n3 and 7 here. More.", metadata={"holdback": ["3 and 7 here"]})
    assert build_student.hold_back(cell) == f"Breaks at\n{build_student.HELD_BACK}. More."


def test_a_placeholders_example_gives_away_no_part_of_the_answer() -> None:
    """The example in an answer cell's comment (``name = ...  # ..., such as {2, 4}``) shows the form of an answer
    and holds none of the key's values: a teacher's review found four that did (01.2's ``{0, 3}``, both right)."""
    import ast

    key = answer_key()
    checked = 0
    for src in sorted((ROOT / "notebooks" / "src").glob("*.py")):
        for m in re.finditer(r"^(\w+) = .*#.*(?:such as|e\.g\.) (\{.*?\}|\[.*?\])\s*$", src.read_text("utf-8"), re.M):
            name, example = m.group(1), ast.literal_eval(m.group(2))
            owners = [code for code in key.values() if re.search(rf"^{name} = ", code, re.M)]
            assert owners, f"{src.name}: no key assigns {name}"
            scope: dict[str, object] = {}
            exec(owners[0], scope)  # the key is the teacher's code, run as the tests do
            answer = scope[name]
            assert isinstance(answer, (set, list, frozenset)), (name, answer)
            assert not set(example) & set(answer), f"{src.name}: {name}'s example {example} holds part of the answer"
            checked += 1
    assert checked >= 4
