"""Every chapter (and the widget self-check) runs in JupyterLab in a real browser.

For each notebook: open it, run all cells, then check that
  * every non-empty code cell ran, and no cell shows an error output unless it is tagged
    ``raises-exception``;
  * every widget output rendered (no "Error displaying widget", none stuck "Loading widget...");
  * each kind of ``msgmodel.course.widgets`` widget on the page reacts to one interaction: the
    ``CompactionExplorer`` slider changes the verdict, a ``Quiz`` answer gets feedback, the
    ``TranscriptCompare`` search counts, the ``ConversationView`` filter re-renders, the
    ``InterviewDrill`` takes a typed answer, shows the model answer and scores a ticked point;
and save a screenshot of the whole notebook (plus one per widget) under ``build/screenshots/``.

The Chinese edition (``notebooks/zh/``) runs the same way, with the same interactions matched on
the course catalog's Chinese texts (``msgmodel.course.i18n``: the quiz's "Check" button, its
feedback, the drill's score...), so a widget that fell back to English fails. On top of that, every
widget output and the chapter's first markdown heading must show CJK characters, and Chromium must
draw them with a CJK font (``CSS.getPlatformFontsForNode``: the fonts that actually rendered the
text, so missing glyphs, "tofu", fail; ``make test-browser`` installs ``fonts-noto-cjk``).
Their screenshots are named ``zh-NN_*.png``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.ui

CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
CHAPTERS_ZH = sorted((ROOT / "notebooks" / "zh").glob("[0-9][0-9]_*.ipynb"))
SELFCHECK = sorted((Path(__file__).parent / "notebooks").glob("*.ipynb"))
NOTEBOOKS = (
    [f"notebooks/{p.name}" for p in CHAPTERS]
    + [f"selfcheck/{p.name}" for p in SELFCHECK]
    + [f"notebooks/zh/{p.name}" for p in CHAPTERS_ZH]
)
RUN_TIMEOUT_MS = 180_000

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# Font families that hold the CJK ideographs (Debian's fonts-noto-cjk is "Noto Sans CJK SC" etc.).
CJK_FONT = re.compile(r"CJK|WenQuanYi|Droid Sans Fallback|Source Han|AR PL|Hei|Song|Ming", re.IGNORECASE)

Translate = Callable[[str], str]


def _language(rel: str) -> str:
    """The course layer's language in the notebook at ``rel``: the Chinese edition calls ``use("zh_CN")``."""
    return "zh_CN" if rel.startswith("notebooks/zh/") else "en"


def _translator(lang: str) -> Translate:
    """The course catalog's text for an English source string, in ``lang`` (what the widgets show)."""
    from msgmodel.course import i18n

    def tr(text: str) -> str:
        with i18n.using(lang):
            return i18n._(text)

    return tr


def _pattern(template: str, **known: int) -> re.Pattern[str]:
    """A catalog template such as ``"{right} of {checked} checked right"`` as a regex that both Python
    and the browser read: each field a number, ``known`` ones exactly that number, the others in
    groups numbered in the template's order."""
    parts = re.split(r"\{(\w+)\}", template)
    return re.compile(
        "".join(
            re.escape(part).replace("\\ ", " ") if i % 2 == 0 else str(known[part]) if part in known else r"(\d+)"
            for i, part in enumerate(parts)
        )
    )


# The notebook panel of `path`; the page opens a fresh workspace, but be exact anyway.
PANEL = """(path) => {
  const app = window.jupyterapp;
  if (!app) return false;
  for (const w of app.shell.widgets('main')) {
    if (w.context && w.context.path === path && w.sessionContext) {
      window.__mmPanel = w;
      app.shell.activateById(w.id);
      app.shell.collapseLeft();                      // the file browser only costs width
      return app.shell.currentWidget === w;
    }
  }
  return false;
}"""

RUN_ALL = """async (limitMs) => {
  const app = window.jupyterapp, panel = window.__mmPanel;
  if (app.shell.currentWidget !== panel) throw new Error('the notebook is not the current widget');
  await panel.context.ready;
  await panel.sessionContext.ready;                 // the kernel is connected
  // Clear the committed outputs first: it resets every execution count to null, so that a count
  // seen afterwards can only come from this run (see DONE).
  await app.commands.execute('notebook:clear-all-cell-outputs');
  const run = app.commands.execute('notebook:run-all-cells');
  const limit = new Promise((_, reject) =>
      setTimeout(() => reject(new Error('run-all timed out after ' + limitMs + ' ms')), limitMs));
  await Promise.race([run, limit]);                  // page.evaluate has no timeout of its own
}"""

# The notebook model after the run: per code cell its tags, count and outputs.
CELLS = """() => {
  const panel = window.__mmPanel;
  return panel.content.widgets.filter(c => c.model.type === 'code').map((c, i) => ({
    index: i,
    source: c.model.sharedModel.getSource(),
    tags: c.model.getMetadata('tags') || [],
    count: c.model.executionCount,
    outputs: c.model.outputs.toJSON().map(o => ({
      type: o.output_type, ename: o.ename || '', evalue: o.evalue || '',
      mimes: Object.keys(o.data || {}),
    })),
  }));
}"""

# The run is over when the kernel is idle AND every non-empty code cell has its execution count
# from this run (or a cell failed that is not tagged raises-exception: run-all stops there, and
# _check_cells reports it). Waiting for "idle" alone flaked under load: the kernel can be idle
# between two queued cells (issue 11, item 20).
DONE = """() => {
  const panel = window.__mmPanel;
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  if (!kernel || kernel.status !== 'idle') return false;
  const cells = panel.content.widgets.filter(
      c => c.model.type === 'code' && c.model.sharedModel.getSource().trim());
  const failed = cells.some(c =>
      !(c.model.getMetadata('tags') || []).includes('raises-exception') &&
      c.model.outputs.toJSON().some(o => o.output_type === 'error'));
  return failed || cells.every(c => c.model.executionCount !== null && c.model.executionCount !== undefined);
}"""

SHUTDOWN = """async () => {
  const panel = window.__mmPanel;
  if (panel) await panel.sessionContext.shutdown();
}"""


def _open(page: Any, lab_url: str, rel: str) -> Any:
    # A workspace of its own: JupyterLab would otherwise restore the notebooks opened before.
    workspace = "ui-" + re.sub(r"[^A-Za-z0-9]+", "-", rel)
    page.goto(f"{lab_url}/lab/workspaces/{workspace}/tree/{rel}?reset", wait_until="domcontentloaded")
    page.wait_for_function(PANEL, arg=rel, timeout=60_000)
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")


def _run_all(page: Any) -> list[dict[str, Any]]:
    page.evaluate(RUN_ALL, RUN_TIMEOUT_MS)
    page.wait_for_function(DONE, timeout=RUN_TIMEOUT_MS, polling=250)
    cells: list[dict[str, Any]] = page.evaluate(CELLS)
    return cells


def _check_cells(rel: str, cells: list[dict[str, Any]]) -> None:
    bad = [
        f"code cell {c['index']}: {o['ename']}: {o['evalue']}"
        for c in cells
        for o in c["outputs"]
        if o["type"] == "error" and "raises-exception" not in c["tags"]
    ]
    assert not bad, f"{rel}: unexpected error outputs:\n" + "\n".join(bad)
    unrun = [c["index"] for c in cells if c["source"].strip() and c["count"] is None]
    assert not unrun, f"{rel}: code cells {unrun} did not run"


def _check_widgets_rendered(page: Any, nb: Any, rel: str, cells: list[dict[str, Any]], lang: str) -> int:
    from playwright.sync_api import expect

    expected = sum(WIDGET_MIME in o["mimes"] for c in cells for o in c["outputs"])
    views = nb.locator(".jp-OutputArea-output > .jupyter-widgets")
    expect(views).to_have_count(expected)
    expect(nb.get_by_text("Loading widget...")).to_have_count(0)
    expect(nb.get_by_text("Error displaying widget")).to_have_count(0)
    for i in range(expected):
        box = views.nth(i).bounding_box()
        assert box is not None and box["height"] > 0, f"{rel}: widget output {i} is empty"
        if lang == "zh_CN":
            text = views.nth(i).inner_text()
            assert CJK.search(text), f"{rel}: widget output {i} shows no Chinese: {text[:200]!r}"
    return expected


# Mark the first element under `root` (a CSS selector) with a text node of its own holding CJK.
MARK_CJK = """(root) => {
  const top = document.querySelector(root);
  if (!top) return null;
  const walker = document.createTreeWalker(top, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (/[\\u3400-\\u4dbf\\u4e00-\\u9fff]/.test(n.data) && n.parentElement.getClientRects().length) {
      document.querySelectorAll('[data-mm-cjk]').forEach(e => e.removeAttribute('data-mm-cjk'));
      n.parentElement.setAttribute('data-mm-cjk', '');
      return n.data.trim().slice(0, 80);
    }
  }
  return null;
}"""


def _rendering_fonts(page: Any, root: str) -> tuple[str, list[str]]:
    """The first CJK text under ``root`` and the font families Chromium drew it with."""
    text = page.evaluate(MARK_CJK, root)
    assert text, f"no Chinese text under {root}"
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        doc = cdp.send("DOM.getDocument", {"depth": 0})
        node = cdp.send("DOM.querySelector", {"nodeId": doc["root"]["nodeId"], "selector": "[data-mm-cjk]"})
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})["fonts"]
    finally:
        cdp.detach()
    return text, [f["familyName"] for f in fonts if f.get("glyphCount", 0) > 0]


def _check_chinese_fonts(page: Any, rel: str, widgets: int) -> None:
    """The chapter's prose and (if any) its widgets show CJK text drawn with a CJK font: no tofu."""
    panel = ".jp-NotebookPanel:not(.lm-mod-hidden)"
    roots = [f"{panel} .jp-MarkdownCell .jp-RenderedMarkdown"]
    if widgets:
        roots.append(f"{panel} .jp-OutputArea-output > .jupyter-widgets")
    for root in roots:
        text, families = _rendering_fonts(page, root)
        assert any(CJK_FONT.search(f) for f in families), (
            f"{rel}: {text!r} under {root} was drawn with {families}, no CJK font (is fonts-noto-cjk installed?)"
        )


# ---------------------------------------------------------------------------------------
# One interaction per widget kind
# ---------------------------------------------------------------------------------------


def _explore_compaction(page: Any, nb: Any, tr: Translate) -> None:
    """Step the slider until the slicing verdict changes (first right, then left)."""
    from playwright.sync_api import expect

    explorer = nb.locator(".mm-compaction-explorer").first
    verdict = explorer.locator(".mm-compaction .mmw-col").first.locator(".mmw-verdict")
    readout = explorer.locator(".widget-readout")
    handle = explorer.locator(".noUi-handle")
    before = verdict.inner_text()
    k0 = int(readout.inner_text())
    for key in ("ArrowRight", "ArrowLeft"):
        handle.focus()
        for _ in range(60):
            k = int(readout.inner_text())
            handle.press(key)
            try:
                expect(readout).not_to_have_text(str(k), timeout=3_000)
            except AssertionError:
                break  # at the end of the range
            page.wait_for_timeout(150)
            if verdict.inner_text() != before:
                return
    pytest.fail(f"moving keep_recent from {k0} never changed the slicing verdict {before!r}")


def _answer_quiz(page: Any, nb: Any, tr: Translate) -> None:
    from playwright.sync_api import expect

    quiz = nb.locator(".mm-quiz").first
    quiz.locator(".widget-radio-box label").first.click()
    quiz.locator(".widget-button", has_text=tr("Check")).first.click()
    verdict = f"^({re.escape(tr('✓ Correct.'))}|{re.escape(tr('✗ Not quite.'))})"
    expect(quiz.locator(".mmw-right, .mmw-wrong").first).to_have_text(re.compile(verdict))
    expect(quiz.locator(".mm-score")).to_contain_text(_pattern(tr("{right} of {checked} checked right")))


def _search_transcripts(page: Any, nb: Any, tr: Translate) -> None:
    from playwright.sync_api import expect

    compare = nb.locator(".mm-transcript-compare").first
    box = compare.locator(".widget-text input")
    box.fill("")
    box.press_sequentially("call")
    hits = re.compile("“call”: " + _pattern(tr("before {b} · after {a}")).pattern)
    expect(compare.locator(".mm-hits")).to_contain_text(hits)


def _filter_conversation(page: Any, nb: Any, tr: Translate) -> None:
    from playwright.sync_api import expect

    view = nb.locator(".mm-conversation-view").first
    # A chapter may already have ticked the filter in a later cell (the widget's state is
    # shared): toggle it, and expect the view to change either way.
    box = view.locator(".widget-checkbox input")
    if box.is_checked():
        box.click()
        expect(view.locator(".mm-gap")).to_have_count(0)
    else:
        expect(view.locator(".mm-gap")).to_have_count(0)
        box.click()
        narrowed = view.locator(".mm-gap").or_(view.get_by_text(tr("No message has a problem.")))
        expect(narrowed.first).to_be_visible()


def _drill_interview(page: Any, nb: Any, tr: Translate) -> None:
    """Type an answer, show the model answer, tick one key point: the kernel scores it."""
    from playwright.sync_api import expect

    drill = nb.locator(".mm-interview-drill").first
    score = drill.locator(".mm-drill-score")
    template = tr("Score: {ticked} of {total} key points ({percent}%); {shown} of {n} model answers shown")
    expect(score).to_contain_text(_pattern(template))
    found = _pattern(template).search(score.inner_text())
    assert found, score.inner_text()
    fields = re.findall(r"\{(\w+)\}", template)
    before = int(found[fields.index("ticked") + 1])
    box = drill.locator(".widget-textarea textarea").first
    box.fill("")
    box.press_sequentially("Both shapes are on the wire, and a round trip keeps them.")
    drill.locator(".widget-button", has_text=tr("Show the model answer")).first.click()
    answer = drill.locator(".mm-drill-answer").first
    expect(answer).to_contain_text(tr("Model answer."))
    unwritten = tr(" (you have not written an answer: try first, it sticks better)").strip()
    expect(answer).not_to_contain_text(unwritten)  # the typed text reached the kernel first
    tick = drill.locator(".mm-drill-points").first.locator(".widget-checkbox input").first
    expect(tick).to_be_visible()
    expect(tick).not_to_be_checked()
    tick.click()
    expect(score).to_contain_text(_pattern(template, ticked=before + 1))


INTERACTIONS: dict[str, Callable[[Any, Any, Translate], None]] = {
    "mm-compaction-explorer": _explore_compaction,
    "mm-quiz": _answer_quiz,
    "mm-transcript-compare": _search_transcripts,
    "mm-conversation-view": _filter_conversation,
    "mm-interview-drill": _drill_interview,
}


SCROLLER = "document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer')"
MAX_SHOT = 15_000  # Chromium cannot capture much more than 16384 px in one go


def _screenshot_element(page: Any, locator: Any, path: Path) -> None:
    """A screenshot of one output, with a viewport tall enough to hold it (JupyterLab clips to the window)."""
    box = locator.bounding_box()
    height = int(box["height"]) if box else 600
    page.set_viewport_size({"width": 1400, "height": min(MAX_SHOT, max(1000, height + 300))})
    locator.scroll_into_view_if_needed()
    page.wait_for_timeout(200)
    locator.screenshot(path=str(path))


def _screenshot_notebook(page: Any, directory: Path, stem: str) -> list[Path]:
    """The whole notebook: ``stem.png``, continued in ``stem-2.png``, ... when taller than one capture."""
    total = int(page.evaluate(f"() => {SCROLLER}.scrollHeight"))
    chrome = int(page.evaluate(f"() => window.innerHeight - {SCROLLER}.clientHeight"))
    page.set_viewport_size({"width": 1400, "height": min(MAX_SHOT, total + chrome)})
    page.wait_for_timeout(300)
    visible = int(page.evaluate(f"() => {SCROLLER}.clientHeight"))
    paths = []
    for i in range(-(-total // visible)):
        page.evaluate(f"(y) => {{ {SCROLLER}.scrollTop = y; }}", i * visible)
        page.wait_for_timeout(200)
        path = directory / (f"{stem}.png" if i == 0 else f"{stem}-{i + 1}.png")
        page.screenshot(path=str(path))
        paths.append(path)
    return paths


@pytest.mark.parametrize(
    "rel", NOTEBOOKS, ids=[("zh-" if _language(r) == "zh_CN" else "") + Path(r).stem for r in NOTEBOOKS]
)
def test_notebook_runs_in_jupyterlab(page: Any, lab_url: str, screenshots: Path, rel: str) -> None:
    nb = _open(page, lab_url, rel)
    lang = _language(rel)
    tr = _translator(lang)
    if lang == "zh_CN":
        assert CJK.search(tr("Check")), "the course catalog has no Chinese (make translations)"
    stem = ("zh-" if lang == "zh_CN" else "") + Path(rel).stem
    for old in screenshots.glob(f"{stem}*.png"):
        old.unlink()
    try:
        cells = _run_all(page)
        _check_cells(rel, cells)
        widgets = _check_widgets_rendered(page, nb, rel, cells, lang)
        if lang == "zh_CN":
            _check_chinese_fonts(page, rel, widgets)
        kinds_seen = []
        for css, interact in INTERACTIONS.items():
            widget = nb.locator(f".{css}")
            if widget.count() == 0:
                continue
            kinds_seen.append(css)
            widget.first.scroll_into_view_if_needed()
            interact(page, nb, tr)
            _screenshot_element(page, widget.first, screenshots / f"{stem}--{css.removeprefix('mm-')}.png")
            page.set_viewport_size({"width": 1400, "height": 1000})
        if rel.startswith("selfcheck/"):
            assert sorted(kinds_seen) == sorted(INTERACTIONS), f"the self-check must show every widget: {kinds_seen}"
        _screenshot_notebook(page, screenshots, stem)
    finally:
        page.evaluate(SHUTDOWN)
