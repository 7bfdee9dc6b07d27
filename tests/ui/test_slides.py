"""The core path presented: chapter 01 as static reveal.js slides, and live in JupyterLab with RISE.

Static: ``scripts/build_slides.py`` builds the deck into ``build/slides/``; Chromium opens it from
disk with every non-``file:`` request refused, advances three slides with the keyboard and saves
``build/screenshots/slides-static-{1..4}.png``. Each slide must differ from the one before, and the
page must load nothing remote and raise no script error.

Live: the chapter's live deck (``build/slides/01_*.ipynb``, the same deck notebook the static deck
is rendered from, written into the lab's root with its ``rise.css``, its outputs cleared so an output
seen later can only come from this run) opens in JupyterLab; the notebook toolbar's
RISE button (``RISE:preview``) opens the deck, three key presses advance it, every slide shown
holds at most 60 words of prose outside its speaker notes and has notes, and on the fourth slide
(the first with a code cell) the teacher's Shift+Enter runs the cell in front of the class: an
output appears, with no error in it. Screenshots: ``build/screenshots/slides-rise-{1..4}.png`` and
``slides-rise-run.png``.

Diagrams in JupyterLab: the student copy of chapter 00 (``scripts/build_student.py``) opens in the
lab, and its four-message diagram is drawn by JupyterLab's own mermaid renderer (bundled, offline),
as an SVG image with a size. RISE renders its slides with the same renderers.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
import build_slides  # noqa: E402

pytestmark = pytest.mark.ui

CHAPTER = "01_orphan_tool_result"
ADVANCES = 3
ERROR_OUTPUT = (
    '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"], .jp-OutputArea-output.jp-mod-error'
)

# reveal.js's position and the text of the slide on screen (the innermost present section)
STATIC_SLIDE = """() => {
  const s = Reveal.getCurrentSlide();
  const i = Reveal.getIndices();
  return {where: i.h + '.' + (i.v || 0), text: s.innerText.trim(), total: Reveal.getTotalSlides()};
}"""
RISE_SLIDE = """() => {
  const all = [...document.querySelectorAll('.reveal .slides section.present')];
  const s = all[all.length - 1];
  if (!s) return {where: location.hash, text: '', words: 0, notes: 0};
  const shown = c => !c.closest("aside.notes") && c.getClientRects().length > 0;  // rendered text; skipped cells hidden
  const cells = [...s.querySelectorAll('.jp-MarkdownCell .jp-RenderedMarkdown')].filter(shown).map(c => {
    const copy = c.cloneNode(true);
    copy.querySelectorAll('pre, svg, .jp-RenderedMermaid').forEach(e => e.remove());
    return copy.textContent.split(/\\s+/).filter(t => /\\w/.test(t));
  });
  const words = cells.reduce((a, b) => a + b.length, 0);
  const counted = cells.map(c => c.join(' ').slice(0, 80));
  const notes = [...s.querySelectorAll('aside.notes')].map(n => n.textContent.trim()).join(' ');
  return {where: location.hash, text: s.innerText.trim(), words, notes: notes.length, counted};
}"""

# the slideshow alone on screen, as a teacher projects it
SOLO = "() => { const app = window.jupyterapp; app.shell.collapseLeft(); app.shell.mode = 'single-document'; }"


def _offline(page: Any) -> list[str]:
    refused: list[str] = []

    def route(r: Any) -> None:
        if r.request.url.startswith(("file:", "data:")):
            r.continue_()
        else:
            refused.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    return refused


def _advance(page: Any, read: Any, shot: Any) -> list[dict[str, Any]]:
    """The slide on screen, then after each of ``ADVANCES`` presses of the space bar (reveal.js's "next")."""
    seen = [read()]
    shot(1)
    for n in range(2, ADVANCES + 2):
        page.keyboard.press("Space")
        for _ in range(40):  # the slide changes on the next animation frame
            now = read()
            if now["where"] != seen[-1]["where"]:
                break
            page.wait_for_timeout(100)
        page.wait_for_timeout(300)  # let the slide settle before the screenshot
        seen.append(read())
        shot(n)
    return seen


def _check_distinct(seen: list[dict[str, Any]]) -> None:
    wheres = [s["where"] for s in seen]
    assert len(set(wheres)) == len(wheres), f"the keyboard did not advance the deck: {wheres}"
    texts = [s["text"] for s in seen]
    assert all(texts), f"an empty slide: {wheres}"
    assert all(a != b for a, b in itertools.pairwise(texts)), "a slide showed the same content as the one before"


def test_static_slides_advance_offline(page: Any, screenshots: Path) -> None:
    counts = build_slides.build([CHAPTER[:2]])
    deck = build_slides.OUT / f"{CHAPTER}.slides.html"
    assert counts == {deck.name: counts[deck.name]} and counts[deck.name] > ADVANCES
    refused = _offline(page)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(deck.as_uri())
    page.wait_for_function("() => window.Reveal && Reveal.isReady()")
    assert page.evaluate(STATIC_SLIDE)["total"] == counts[deck.name]
    seen = _advance(
        page,
        lambda: page.evaluate(STATIC_SLIDE),
        lambda n: page.screenshot(path=str(screenshots / f"slides-static-{n}.png")),
    )
    _check_distinct(seen)
    assert not refused, f"the static slides asked the network for {refused}"
    assert not errors, f"script errors: {errors}"


def _rise_frame(page: Any) -> Any:
    for _ in range(240):
        frames = [f for f in page.frames if "/rise/" in f.url]
        if frames:
            return frames[0]
        page.wait_for_timeout(250)
    pytest.fail("RISE's slideshow frame did not open")


def test_rise_presents_and_runs_a_cell(page: Any, lab_url: str, lab_root: Path, screenshots: Path) -> None:
    import nbformat

    build_slides.build([CHAPTER[:2]], out=lab_root / "slides-live")
    rel = f"slides-live/{CHAPTER}.ipynb"
    deck = nbformat.read(lab_root / rel, as_version=4)
    for c in deck.cells:  # outputs cleared: an output seen later can only come from this run
        if c.cell_type == "code":
            c.outputs, c.execution_count = [], None
    nbformat.write(deck, lab_root / rel)
    page.goto(f"{lab_url}/lab/workspaces/ui-rise/tree/{rel}?reset", wait_until="domcontentloaded")
    button = page.locator(".jp-NotebookPanel-toolbar [data-command='RISE:preview']")
    button.wait_for(timeout=60_000)
    try:
        button.click()
        page.wait_for_selector("iframe[src*='/rise/']", state="attached")
        page.evaluate(
            "() => { const app = window.jupyterapp; app.shell.collapseLeft(); app.shell.mode = 'single-document'; }"
        )
        frame = _rise_frame(page)
        frame.wait_for_selector(".reveal .slides section.present", timeout=60_000)
        shown = page.locator("iframe[src*='/rise/']")
        frame.locator(".reveal .slides section.present").first.click()  # the keyboard goes to the deck
        seen = _advance(
            page,
            lambda: frame.evaluate(RISE_SLIDE),
            lambda n: shown.screenshot(path=str(screenshots / f"slides-rise-{n}.png")),
        )
        _check_distinct(seen)
        for s in seen:
            assert s["words"] <= build_slides.WORDS_MAX, f"{s['where']}: {s['words']} words of prose: {s['counted']}"
            assert s["notes"], f"{s['where']}: no speaker notes"

        code = frame.locator(".reveal .slides section.present .jp-CodeCell").first
        code.wait_for(state="visible")
        assert code.locator(".jp-OutputArea-output").count() == 0, "the outputs were not cleared"
        code.locator(".jp-InputPrompt").click()  # select the cell (command mode), as a teacher clicks it
        page.keyboard.press("Shift+Enter")
        code.locator(".jp-OutputArea-output").first.wait_for(state="visible", timeout=60_000)
        page.wait_for_timeout(500)
        shown.screenshot(path=str(screenshots / "slides-rise-run.png"))
        assert code.locator(ERROR_OUTPUT).count() == 0, code.inner_text()[:2000]
        assert code.locator(".jp-InputPrompt").inner_text().strip() not in ("[ ]:", "[*]:", ""), "no execution count"
    finally:
        page.evaluate("async () => { await window.jupyterapp.serviceManager.sessions.shutdownAll(); }")


def test_the_student_copy_draws_the_diagram(page: Any, lab_url: str, lab_root: Path, screenshots: Path) -> None:
    import build_student
    import nbformat

    out = lab_root / "student"
    build_student.build(out)
    copy = out / "00_start_here.ipynb"
    assert any("```mermaid" in c.source for c in nbformat.read(copy, as_version=4).cells), "no diagram to draw"
    page.goto(f"{lab_url}/lab/workspaces/ui-diagram/tree/student/{copy.name}?reset", wait_until="domcontentloaded")
    # JupyterLab draws the fence as an SVG image (data:image/svg+xml) in a figure, its source folded below it
    drawing = page.locator(".jp-RenderedMermaid figure img[src^='data:image/svg+xml']").first
    drawing.wait_for(state="attached", timeout=60_000)
    drawing.scroll_into_view_if_needed()
    box = drawing.bounding_box()
    assert box and box["width"] > 200 and box["height"] > 100, box
    assert "aria-roledescription%3D%22sequence%22" in (drawing.get_attribute("src") or ""), "not the sequence diagram"
    assert page.locator(".jp-RenderedMermaid.jp-mod-warning").count() == 0, "mermaid could not draw it"
    page.screenshot(path=str(screenshots / "student-00-diagram.png"))
    page.evaluate("async () => { await window.jupyterapp.serviceManager.sessions.shutdownAll(); }")


def test_rise_draws_the_diagram(page: Any, lab_url: str, lab_root: Path, screenshots: Path) -> None:
    """Chapter 00's live deck in RISE: the slide of the four messages shows the diagram drawn, not its source."""
    stem = "00_start_here"
    build_slides.build([stem[:2]], out=lab_root / "slides-live")
    page.goto(f"{lab_url}/lab/workspaces/ui-rise-00/tree/slides-live/{stem}.ipynb?reset", wait_until="domcontentloaded")
    button = page.locator(".jp-NotebookPanel-toolbar [data-command='RISE:preview']")
    button.wait_for(timeout=60_000)
    try:
        button.click()
        page.wait_for_selector("iframe[src*='/rise/']", state="attached")
        page.evaluate(SOLO)
        frame = _rise_frame(page)
        frame.wait_for_selector(".reveal .slides section.present", timeout=60_000)
        frame.locator(".reveal .slides section.present").first.click()
        present = ".reveal .slides section.present .jp-RenderedMermaid figure img[src^='data:image/svg+xml']"
        for _ in range(10):  # space moves on until the slide with the diagram is on screen
            if frame.locator(present).count():
                break
            page.keyboard.press("Space")
            page.wait_for_timeout(500)
        drawing = frame.locator(present).first
        drawing.wait_for(state="visible", timeout=30_000)
        box = drawing.bounding_box()
        assert box and box["width"] > 200 and box["height"] > 100, box
        page.locator("iframe[src*='/rise/']").screenshot(path=str(screenshots / "slides-rise-diagram.png"))
    finally:
        page.evaluate("async () => { await window.jupyterapp.serviceManager.sessions.shutdownAll(); }")


def test_chinese_static_slides_advance_offline_in_a_cjk_font(page: Any, screenshots: Path) -> None:
    """The Chinese deck of the chapter (``build/slides/zh/``) advances, its Chinese drawn in a CJK face."""
    from cjk_fonts import CJK, cjk_glyphs, rendered_fonts

    counts = build_slides.build([CHAPTER[:2]], lang="zh")
    deck = build_slides.OUT / build_slides.ZH_DIR / f"{CHAPTER}.slides.html"
    assert counts[deck.name] > ADVANCES
    refused = _offline(page)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(deck.as_uri())
    page.wait_for_function("() => window.Reveal && Reveal.isReady()")
    assert page.evaluate("() => document.documentElement.lang") == "zh"
    seen = _advance(
        page,
        lambda: page.evaluate(STATIC_SLIDE),
        lambda n: page.screenshot(path=str(screenshots / f"slides-static-zh-{n}.png")),
    )
    _check_distinct(seen)
    assert all(CJK.search(s["text"]) for s in seen[1:]), [s["text"][:80] for s in seen]
    used = rendered_fonts(page, ".reveal .slides section.present .jp-RenderedMarkdown")
    print(f"\nfonts drawn on the slide: {used}")
    assert cjk_glyphs(used) > 20, f"the Chinese was not drawn in a CJK face: {used}"
    assert not refused, f"the static slides asked the network for {refused}"
    assert not errors, f"script errors: {errors}"
