"""The core path as slides for a projector: notebooks/NN_*.ipynb + slides/decks/NN.toml → build/slides/.

One source, two decks. ``deck_notebook`` makes the deck of a chapter: its core cells (the cells
``scripts/build_notebooks.py`` did not mark ``skip``), where each core markdown cell shows the short
slide text that ``slides/decks/NN.toml`` holds for it (at most ``WORDS_MAX`` words of prose a slide)
and the cell's own prose moves into the slide's speaker notes. The chapter's markdown is never edited:
the slide texts live beside it, keyed by cell id and the cell's first words (a cell that changed or
moved is an error, not a wrong slide). The deck notebook is written as ``build/slides/NN_*.ipynb``
(the live deck: open it in JupyterLab and press RISE's button; its cells run in front of the class)
and rendered by nbconvert's reveal.js exporter as ``build/slides/NN_*.slides.html`` (the static deck,
from the committed outputs: nothing is re-executed).

Each slide is one claim (a slide text) and its evidence (the code cells after it, with their
outputs); every slide is horizontal (space and the right arrow do the same). Every slide has notes
(reveal.js's ``s`` key, RISE's speaker view): a clock cue (minutes into the 90-minute lesson of
``docs/teacher-guide.md``, shared out by each slide's reading time), the teacher's prompt for the
slide from the deck file, on a demo slide the guide's common wrong answers, on the chapter's last
slide its discussion prompts, then the chapter's prose to paraphrase. Code is shown, never folded
when it is a demo (a code cell tagged ``demo``, the ones the guide's lesson plan runs live; their
slide numbers are the guide's ``slide-map`` block); only a cell of imports alone, one whose input
the notebook hides, or one the deck file names in ``fold`` (its output is the evidence) folds to a
one-line summary. A projector stylesheet (the template) wraps long
code lines instead of clipping them, sets tables at 18 px without scroll boxes, and scales a slide
that would still be taller than the screen. Diagrams (mermaid fences) are drawn: the SVG
``scripts/diagrams.py`` committed replaces each ``<pre class="mermaid">``.

Offline by construction: the template (``slides/template/msgmodel_slides.html.j2``) loads reveal.js
from ``build/slides/reveal.js/``, copied from the npm package that ``slides/package-lock.json`` pins
(``make slides`` runs ``npm ci`` first), and drops nbconvert's jQuery, RequireJS, MathJax, Mermaid
and widget-manager tags, which would come from a CDN. Widgets show their static HTML fallback.
``scripts/measure_slides.py`` measures every slide in Chromium; tests/ui/test_slide_fit.py holds the bounds.

    python scripts/build_slides.py          # every chapter, English and Chinese
    python scripts/build_slides.py 01 04    # some chapters (by number prefix)
    python scripts/build_slides.py --lang zh    # the Chinese decks only (en, zh, both: default both)

The Chinese decks, ``build/slides/zh/NN_*.slides.html`` (and the live ``.ipynb``), are made from the
Chinese chapters (``notebooks/zh/``, committed with their outputs like the English) by the same
``deck_notebook`` with ``lang="zh"``. The slide texts of ``slides/decks/NN.toml`` are English and keyed
by the English cells, so a Chinese deck does not use them: each core markdown cell of the Chinese
chapter is the prose of the slide it opens (so the ``WORDS_MAX`` bound is not applied: Chinese has no
spaces to count words by), the code and its evidence are laid out, folded and timed as in English,
and every slide's notes hold its clock cue and, on a demo slide, the demo prompt, in Chinese
(``LABELS``); the guide's prompts stay in the English notes.

Open ``build/slides/NN_*.slides.html`` in a browser (from disk): arrow keys move, ``s`` opens the
speaker notes, ``f`` full screen.
"""

from __future__ import annotations

import argparse
import copy
import re
import shutil
import sys
import time
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import class_plan  # scripts/class_plan.py: the 90 minutes as taught (the clock cues)
import diagrams  # scripts/diagrams.py: the committed SVG of every mermaid diagram
import nbformat
from nbconvert import SlidesExporter
from traitlets.config import Config

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from msgmodel.course import route as reading  # noqa: E402  (the careful reading model: the clock cues)

NOTEBOOKS = ROOT / "notebooks"
OUT = ROOT / "build" / "slides"
DECKS = ROOT / "slides" / "decks"
GUIDE = ROOT / "docs" / "teacher-guide.md"
TEMPLATE = ROOT / "slides" / "template" / "msgmodel_slides.html.j2"
PROJECTOR_CSS = TEMPLATE.parent / "projector.css"  # the static deck inlines it; the live deck's rise.css is a copy
REVEAL_PACKAGE = ROOT / "slides" / "node_modules" / "reveal.js"
REVEAL_DIR = "reveal.js"  # next to the slides, as the template's reveal_url_prefix
REVEAL_FILES = ("dist", "plugin/notes", "LICENSE")
LESSON_MINUTES = 90
WORDS_MAX = 60  # words of prose on one slide; the rest is in its notes
DIAGRAM = "{diagram}"  # in a slide text: the diagram(s) of its cell, drawn
DEMO_TAG = "demo"  # a code cell run live in class: never folded
SLIDE_PX = 700  # estimated content height of one slide (the deck is 800 px tall) before code goes to the next
CODE_PX = 22  # one line of code on the projector stylesheet
OUTPUT_WIDTH = 100  # characters per line of a text output before it wraps
HTML_ROWS = re.compile(r"<(?:tr|li|br|p|h[1-6]|pre)\b|class=\"mm-msg", re.I)
SETUP_LINE = re.compile(r"(?:import |from \S+ import |#|$)")


def exporter(lang: str = "en") -> SlidesExporter:
    """nbconvert's reveal.js exporter, set up for local reveal.js on a 1280×800 canvas."""
    c = Config()
    c.SlidesExporter.language_code = "zh" if lang == "zh" else "en"  # <html lang>: the browser picks CJK faces
    c.SlidesExporter.reveal_url_prefix = REVEAL_DIR
    c.SlidesExporter.reveal_theme = "white"
    c.SlidesExporter.reveal_transition = "none"
    c.SlidesExporter.reveal_scroll = False
    c.SlidesExporter.reveal_number = "c/t"
    c.SlidesExporter.reveal_width = "1280"
    c.SlidesExporter.reveal_height = "800"
    c.SlidesExporter.extra_template_paths = [str(TEMPLATE.parent)]
    ex = SlidesExporter(config=c)
    ex.template_file = TEMPLATE.name  # after construction: the reveal template's conf.json resets it
    return ex


@dataclass(frozen=True)
class SlideText:
    """What ``slides/decks/NN.toml`` says about one core markdown cell of the chapter."""

    cell: str  # the cell's id in the built notebook (NN-nnn)
    starts: str  # the first characters of the cell's source: a cell that changed or moved is caught
    pages: tuple[str, ...]  # the slide text of each slide the cell opens; none: its prose joins the slide before
    notes: str  # the teacher's prompt for the slide (before the chapter's prose in the notes)


def deck_file(stem: str) -> Path:
    return DECKS / f"{stem[:2]}.toml"


def deck_data(stem: str) -> dict[str, Any]:
    return tomllib.loads(deck_file(stem).read_text(encoding="utf-8"))


def folded_cells(stem: str) -> set[str]:
    """The code cells the deck file folds (``fold = [ids]``): their output is the evidence, their code is not."""
    return set(deck_data(stem).get("fold", []))


def slide_texts(stem: str) -> dict[str, SlideText]:
    """The slide texts of chapter ``stem``, by cell id."""
    data = deck_data(stem)
    out: dict[str, SlideText] = {}
    for entry in data.get("slide", []):
        text = entry.get("text", "")
        pages = tuple(p.strip() for p in ([text] if isinstance(text, str) else text) if p.strip())
        out[entry["cell"]] = SlideText(entry["cell"], entry["starts"], pages, entry.get("notes", "").strip())
    return out


FENCED = re.compile(r"^```.*?^```[ \t]*$", re.M | re.S)
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def prose_words(markdown: str) -> int:
    """The words of prose in ``markdown``: its text outside fenced blocks (code, diagrams), link targets not counted."""
    text = LINK.sub(r"\1", FENCED.sub(" ", markdown))
    return sum(1 for token in text.split() if re.search(r"\w", token))


ZH_DIR = "zh"  # the Chinese chapters (notebooks/zh/) and their decks (build/slides/zh/)
LABELS = {
    "en": {
        "hidden": "code, {n} lines, hidden in the notebook (click to show)",
        "long": "code, {n} lines (click to show)",
        "setup": "setup: imports, {n} lines (click to show)",
    },
    "zh": {
        "hidden": "代码，{n} 行，在 notebook 中隐藏（点击展开）",
        "long": "代码，{n} 行（点击展开）",
        "setup": "准备：导入，{n} 行（点击展开）",
        "clock": "**时间 {start}–{end}**（{lesson} 分钟的课）· 本章：{a}–{b} · 第 {n}/{total} 张",
        "demo": "**演示**（`{cells}`）：运行之前，先请学生预测结果。",
    },
}
"""What the deck itself writes (folded code, the Chinese notes' clock and demo lines), by language."""


def fold_label(source: str, metadata: dict[str, Any] | None = None, lang: str = "en") -> str | None:
    """The summary a code cell shows collapsed, or None to show the code.

    A demo (tag ``demo``) is always shown; other cells fold when the notebook hides their input, or
    when they only import (the slide keeps to its point). Long code is shown: the stylesheet wraps it.
    """
    meta = metadata or {}
    tags = meta.get("tags", ())
    lines = source.splitlines()
    words = LABELS[lang]
    if DEMO_TAG in tags:
        return None
    if "hide-input" in tags or meta.get("jupyter", {}).get("source_hidden"):
        return words["hidden"].format(n=len(lines))
    if lines and all(SETUP_LINE.match(line.strip()) for line in lines):
        return words["setup"].format(n=len(lines))
    return None


def output_px(output: nbformat.NotebookNode) -> int:
    """A rough height of one output on a slide."""
    if output.get("output_type") == "stream":
        px = 20 * sum(max(1, -(-len(line) // OUTPUT_WIDTH)) for line in str(output.get("text", "")).splitlines())
    elif output.get("output_type") == "error":
        px = 20 * len(output.get("traceback", []))
    else:
        data = output.get("data", {})
        if "text/html" in data:
            px = 26 * len(HTML_ROWS.findall(str(data["text/html"]))) + 40
        else:
            px = 20 * len(str(data.get("text/plain", "")).splitlines())
    return px + 16


def markdown_px(source: str) -> int:
    """A rough height of slide text on the projector stylesheet: 28 px prose, 36–46 px headings, a diagram 520 px."""
    px = 0
    for fence in FENCED.findall(source):
        px += 520 if fence.startswith("```mermaid") else CODE_PX * fence.count("\n") + 16
    for line in FENCED.sub("", source).splitlines():
        if not line.strip():
            continue
        if line.startswith("#"):
            px += 56
        elif line.startswith("|"):
            px += 0 if set(line) <= set("|-: ") else 34 * max(1, -(-len(line) // 110))
        else:
            px += 38 * max(1, -(-len(line) // 80))
    return px + 24


def cell_px(cell: nbformat.NotebookNode) -> int:
    """A rough height of ``cell`` on a slide."""
    if cell.cell_type == "markdown":
        return markdown_px(cell.source)
    code = 40 if cell.metadata.get("slide_fold") else CODE_PX * len(cell.source.splitlines()) + 24
    return code + sum(output_px(o) for o in cell.get("outputs", []))


def cell_minutes(cell: nbformat.NotebookNode) -> float:
    """The careful reading time of one cell (``msgmodel.course.route``'s model), for the clock cues."""
    if cell.cell_type == "markdown":
        return len(cell.source.split()) / reading.WORDS_PER_MINUTE
    words = sum(len(reading.output_text(o).split()) for o in cell.get("outputs", []))
    return reading.code_lines(cell) / reading.CODE_LINES_PER_MINUTE + words / reading.OUTPUT_WORDS_PER_MINUTE


@cache
def guide_sections() -> dict[str, dict[str, str]]:
    """The teacher's guide, by chapter number then ``###`` section name (e.g. "Common wrong answers")."""
    out: dict[str, dict[str, str]] = {}
    chapter = section = None
    for line in GUIDE.read_text(encoding="utf-8").splitlines():
        m = re.match(r"## (\d\d) · ", line)
        if m or line.startswith("## "):
            chapter, section = (m[1] if m else None), None
            continue
        if line.startswith("### ") and chapter:
            section = line[4:].strip()
            out.setdefault(chapter, {})[section] = ""
            continue
        if chapter and section:
            out[chapter][section] += line + "\n"
    return {ch: {k: v.strip() for k, v in secs.items()} for ch, secs in out.items()}


@cache
def chapter_clocks() -> dict[str, tuple[float, float]]:
    """Each chapter's window in the 90-minute lesson (minutes from the start), as the guide's class plan
    (``scripts/class_plan.py``'s ``PLAN``: setup, the chapters, questions, the exit ticket). It was the reading
    route's minutes once, and the notes then disagreed with the plan the guide gives (chapter 04 at 43-54, not 38-56).
    """
    start = 0.0
    out = {}
    for segment in class_plan.PLAN:
        if segment.chapter:
            out[segment.chapter] = (start, start + segment.minutes)
        start += segment.minutes
    return out


def clock(minutes: float) -> str:
    """Minutes as m:ss."""
    m, s = divmod(round(minutes * 60), 60)
    return f"{m}:{s:02d}"


def notes_markdown(slide: dict[str, Any], window: tuple[float, float], n: int, total: int, lang: str = "en") -> str:
    """The speaker notes of one slide (see the module docstring)."""
    start, end = slide["clock"]
    if lang == "zh":
        words = LABELS["zh"]
        zh = [
            words["clock"].format(
                start=clock(start),
                end=clock(end),
                lesson=LESSON_MINUTES,
                a=f"{window[0]:.0f}",
                b=f"{window[1]:.0f}",
                n=n,
                total=total,
            )
        ]
        if slide["demo"]:
            zh.append(words["demo"].format(cells=", ".join(slide["demo"])))
        return "\n\n".join(zh)
    parts = [
        f"**Clock {clock(start)}–{clock(end)}** of the {LESSON_MINUTES}-minute lesson · this chapter: "
        f"{window[0]:.0f}–{window[1]:.0f} · slide {n}/{total}"
    ]
    parts += slide["notes"]
    if slide["demo"]:
        parts.append(f"**Demo** (`{', '.join(slide['demo'])}`): ask for a prediction before you run it.")
        wrong = slide.get("wrong")
        if wrong:
            parts.append("**Common wrong answers** (teacher's guide):\n\n" + wrong)
    if slide.get("discuss"):
        parts.append("**Discussion prompts** (teacher's guide):\n\n" + slide["discuss"])
    if slide["prose"]:
        chapter_text = "\n\n".join(diagrams.FENCE.sub("*(the diagram on the slide)*", p) for p in slide["prose"])
        parts.append("---\n\n*The chapter's text, to paraphrase:*\n\n" + chapter_text)
    return "\n\n".join(parts)


def _type(cell: nbformat.NotebookNode) -> str:
    return str(cell.metadata.get("slideshow", {}).get("slide_type", "-"))


def deck_notebook(nb: nbformat.NotebookNode, stem: str, lang: str = "en") -> nbformat.NotebookNode:
    """The deck of chapter ``stem``: a copy of ``nb`` whose core cells are slides (see the module docstring).

    Cells off the core path stay in it, skipped (the live deck can still run them); the chapter's
    notebook is not changed. ``SystemExit`` names a core markdown cell without a slide text, an
    entry of the deck file that names no such cell, and a slide over ``WORDS_MAX`` words. ``lang="zh"``:
    a Chinese chapter, whose core markdown cells are their slides' prose (no deck file texts).
    """
    chinese = lang == "zh"
    texts = {} if chinese else slide_texts(stem)
    fold = folded_cells(stem)
    nb = copy.deepcopy(nb)
    slides: list[dict[str, Any]] = []  # each: cells (the slide's cells), notes, prose, demo, minutes
    cells: list[nbformat.NotebookNode] = []
    used = 0

    def new_slide(first: nbformat.NotebookNode) -> dict[str, Any]:
        nonlocal used
        first.metadata["slideshow"] = {"slide_type": "slide"}
        slide: dict[str, Any] = {"cells": [first], "notes": [], "prose": [], "demo": [], "minutes": 0.0}
        slides.append(slide)
        used = cell_px(first)
        return slide

    for cell in nb.cells:
        if _type(cell) == "skip":
            cells.append(cell)
            continue
        cid = cell.get("id", "")
        if cell.cell_type == "markdown" and chinese:
            cell.metadata["slide_text"] = True
            cells.append(cell)
            new_slide(cell)["minutes"] += cell_minutes(cell)
            continue
        if cell.cell_type == "markdown":
            entry = texts.pop(cid, None)
            if entry is None:
                raise SystemExit(f"{deck_file(stem).name}: no slide text for core cell {cid}: {cell.source[:60]!r}")
            if not cell.source.startswith(entry.starts):
                raise SystemExit(
                    f"{deck_file(stem).name}: cell {cid} does not start {entry.starts!r}: {cell.source[:60]!r}"
                )
            if not entry.pages and not slides:
                raise SystemExit(f"{deck_file(stem).name}: cell {cid} opens the deck, so it needs a slide text")
            for n, page in enumerate(entry.pages):
                piece = copy.deepcopy(cell)
                piece.source = page.replace(DIAGRAM, "\n\n".join(m[0] for m in diagrams.FENCE.finditer(cell.source)))
                piece["id"] = cid if n == 0 else f"{cid}-{n}"
                piece.metadata["slide_text"] = True
                cells.append(piece)
                new_slide(piece)
                if prose_words(piece.source) > WORDS_MAX:
                    raise SystemExit(
                        f"{deck_file(stem).name}: cell {cid}: {prose_words(piece.source)} words on a slide"
                    )
            slides[-1]["prose"].append(cell.source)
            if entry.notes:
                slides[-len(entry.pages) or -1]["notes"].append(entry.notes)
            slides[-1]["minutes"] += cell_minutes(cell)
            continue
        label = fold_label(cell.source, cell.metadata, lang)
        if cid in fold and not chinese:
            if DEMO_TAG in cell.metadata.get("tags", ()):
                raise SystemExit(f"{deck_file(stem).name}: fold names {cid}, a demo: a demo is never folded")
            label = LABELS[lang]["long"].format(n=len(cell.source.splitlines()))
        if label:
            cell.metadata["slide_fold"] = label
        cell.metadata["slideshow"] = {"slide_type": "-"}
        px = cell_px(cell)
        if not slides or (used + px > SLIDE_PX and used > 200):
            new_slide(cell)  # the evidence goes on: a slide of its own
        else:
            slides[-1]["cells"].append(cell)
            used += px
        if DEMO_TAG in cell.metadata.get("tags", ()):
            slides[-1]["demo"].append(cid)
        slides[-1]["minutes"] += cell_minutes(cell)
        cells.append(cell)
    if texts:
        raise SystemExit(f"{deck_file(stem).name}: entries for cells that are not core markdown: {sorted(texts)}")
    # the clock: the chapter's window of the lesson, shared out by each slide's reading time
    window = chapter_clocks().get(stem[:2], (0.0, 0.0))
    total_minutes = sum(s["minutes"] for s in slides) or 1.0
    at = window[0]
    guide = guide_sections().get(stem[:2], {})
    for s in slides:
        span = (window[1] - window[0]) * s["minutes"] / total_minutes
        s["clock"] = (at, at + span)
        at += span
    demo_slides = [s for s in slides if s["demo"]]
    if demo_slides:
        demo_slides[0]["wrong"] = guide.get("Common wrong answers", "")
    slides[-1]["discuss"] = guide.get("Discussion prompts", "")
    # a notes cell after each slide's last cell
    out: list[nbformat.NotebookNode] = []
    last = {id(s["cells"][-1]): (n, s) for n, s in enumerate(slides, start=1)}
    for cell in cells:
        out.append(cell)
        if id(cell) in last:
            n, s = last[id(cell)]
            note = nbformat.v4.new_markdown_cell(notes_markdown(s, window, n, len(slides), lang))
            note["id"] = f"{s['cells'][0].get('id', 'cell')}-notes"
            note.metadata = {"slideshow": {"slide_type": "notes"}, "tags": ["slide-notes"]}
            out.append(note)
    nb.cells = out
    # RISE: the same 1280×800 canvas; a live output may grow taller than the committed one, so the slide scrolls
    nb.metadata["rise"] = {**nb.metadata.get("rise", {}), "scroll": True, "width": 1280, "height": 800}
    return nb


def fit_to_screen(nb: nbformat.NotebookNode, stem: str | None = None) -> nbformat.NotebookNode:
    """The deck of the notebook (``stem``: its file stem, by default the chapter its first cell id names)."""
    if stem is None:
        prefix = str(nb.cells[0].get("id", ""))[:2]
        stem = next(p.stem for p in NOTEBOOKS.glob(f"{prefix}_*.ipynb"))
    return deck_notebook(nb, stem)


def slide_count(nb: nbformat.NotebookNode) -> int:
    """Slides in the deck: cells that start a slide or a subslide."""
    return sum(c.metadata.get("slideshow", {}).get("slide_type") in ("slide", "subslide") for c in nb.cells)


def demo_slides(nb: nbformat.NotebookNode) -> list[tuple[str, int]]:
    """Every demo cell of a deck notebook with the number of its slide (1-based, as reveal.js counts)."""
    out = []
    n = 0
    for c in nb.cells:
        if c.metadata.get("slideshow", {}).get("slide_type") in ("slide", "subslide"):
            n += 1
        if c.cell_type == "code" and DEMO_TAG in c.metadata.get("tags", ()):
            out.append((str(c.get("id", "")), n))
    return out


REMOTE_TAG = re.compile(r"<(?:script|link|iframe|img)\b[^>]*\b(?:src|href)\s*=\s*[\"']?\s*(?:https?:)?//[^>]*>", re.I)
REMOTE_IMPORT = re.compile(r"(?:@import\s+(?:url\()?|import\s[^;]*?from\s+|import\()\s*[\"']?(?:https?:)?//[^\"')\s]+")


def remote_resources(page: str) -> list[str]:
    """Every script, stylesheet, import or frame of ``page`` that would be fetched over http(s)."""
    return REMOTE_TAG.findall(page) + REMOTE_IMPORT.findall(page)


def copy_reveal(out: Path) -> None:
    if not (REVEAL_PACKAGE / "dist" / "reveal.js").is_file():
        raise SystemExit(f"{REVEAL_PACKAGE} is missing: run `make slides` (it runs `npm ci` in slides/)")
    target = out / REVEAL_DIR
    shutil.rmtree(target, ignore_errors=True)
    for rel in REVEAL_FILES:
        src = REVEAL_PACKAGE / rel
        if src.is_dir():
            shutil.copytree(src, target / rel)
        else:
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target / rel)


def build(only: list[str] | None = None, out: Path = OUT, lang: str = "en") -> dict[str, int]:
    """Write the decks into ``out`` (static ``.slides.html``, live ``.ipynb``); each one's slide count, by file name.

    ``lang="zh"``: the Chinese chapters' decks (``notebooks/zh/``), into ``out/zh``.
    """
    notebooks = NOTEBOOKS / ZH_DIR if lang == "zh" else NOTEBOOKS
    out = out / ZH_DIR if lang == "zh" else out
    out.mkdir(parents=True, exist_ok=True)
    copy_reveal(out)
    shutil.copy2(PROJECTOR_CSS, out / "rise.css")  # RISE reads rise.css next to the notebook it presents
    ex = exporter(lang)
    counts: dict[str, int] = {}
    for path in sorted(notebooks.glob("[0-9][0-9]_*.ipynb")):
        if only and not any(path.stem.startswith(p) for p in only):
            continue
        nb = deck_notebook(nbformat.read(path, as_version=4), path.stem, lang)
        page, _ = ex.from_notebook_node(nb, resources={"metadata": {"name": path.stem}})
        page = diagrams.inline_svgs(page)
        remote = remote_resources(page)
        if remote:
            raise SystemExit(f"{path.name}: the slides would load from the network: {remote[:3]}")
        target = out / f"{path.stem}.slides.html"
        target.write_text(page, encoding="utf-8")
        nbformat.write(nb, out / path.name)  # the live deck (RISE), next to the static one
        counts[target.name] = slide_count(nb)
    return counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("only", nargs="*", help="chapter number prefixes (default: all)")
    ap.add_argument("--lang", choices=("en", "zh", "both"), default="both", help="which decks (default: both)")
    args = ap.parse_args(argv)
    counts: dict[str, int] = {}
    for lang in ("en", "zh"):
        if args.lang in (lang, "both"):
            started = time.monotonic()
            built = build(args.only, lang=lang)
            where = "build/slides/zh" if lang == "zh" else "build/slides"
            for name, n in built.items():
                print(f"{where}/{name}: {n} slides")
            print(f"{where}: {len(built)} decks in {time.monotonic() - started:.1f} s")
            counts.update({f"{lang}/{name}": n for name, n in built.items()})
    if not counts:
        print("no chapter matched", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
