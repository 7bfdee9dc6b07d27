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
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.ui

CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
SELFCHECK = sorted((Path(__file__).parent / "notebooks").glob("*.ipynb"))
NOTEBOOKS = [f"notebooks/{p.name}" for p in CHAPTERS] + [f"selfcheck/{p.name}" for p in SELFCHECK]
RUN_TIMEOUT_MS = 180_000

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"

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


def _check_widgets_rendered(page: Any, nb: Any, rel: str, cells: list[dict[str, Any]]) -> int:
    from playwright.sync_api import expect

    expected = sum(WIDGET_MIME in o["mimes"] for c in cells for o in c["outputs"])
    views = nb.locator(".jp-OutputArea-output > .jupyter-widgets")
    expect(views).to_have_count(expected)
    expect(nb.get_by_text("Loading widget...")).to_have_count(0)
    expect(nb.get_by_text("Error displaying widget")).to_have_count(0)
    for i in range(expected):
        box = views.nth(i).bounding_box()
        assert box is not None and box["height"] > 0, f"{rel}: widget output {i} is empty"
    return expected


# ---------------------------------------------------------------------------------------
# One interaction per widget kind
# ---------------------------------------------------------------------------------------


def _explore_compaction(page: Any, nb: Any) -> None:
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


def _answer_quiz(page: Any, nb: Any) -> None:
    from playwright.sync_api import expect

    quiz = nb.locator(".mm-quiz").first
    quiz.locator(".widget-radio-box label").first.click()
    quiz.locator(".widget-button", has_text="Check").first.click()
    expect(quiz.locator(".mmw-right, .mmw-wrong").first).to_have_text(re.compile(r"^(✓ Correct\.|✗ Not quite\.)"))
    expect(quiz.locator(".mm-score")).to_contain_text("checked right")


def _search_transcripts(page: Any, nb: Any) -> None:
    from playwright.sync_api import expect

    compare = nb.locator(".mm-transcript-compare").first
    box = compare.locator(".widget-text input")
    box.fill("")
    box.press_sequentially("call")
    expect(compare.locator(".mm-hits")).to_contain_text("“call”: before")


def _filter_conversation(page: Any, nb: Any) -> None:
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
        narrowed = view.locator(".mm-gap").or_(view.get_by_text("No message has a problem"))
        expect(narrowed.first).to_be_visible()


def _drill_interview(page: Any, nb: Any) -> None:
    """Type an answer, show the model answer, tick one key point: the kernel scores it."""
    from playwright.sync_api import expect

    drill = nb.locator(".mm-interview-drill").first
    score = drill.locator(".mm-drill-score")
    expect(score).to_contain_text(re.compile(r"Score: \d+ of \d+ key points"))
    found = re.search(r"Score: (\d+) of", score.inner_text())
    assert found, score.inner_text()
    before = int(found[1])
    box = drill.locator(".widget-textarea textarea").first
    box.fill("")
    box.press_sequentially("Both shapes are on the wire, and a round trip keeps them.")
    drill.locator(".widget-button", has_text="Show the model answer").first.click()
    answer = drill.locator(".mm-drill-answer").first
    expect(answer).to_contain_text("Model answer.")
    expect(answer).not_to_contain_text("not written an answer")  # the typed text reached the kernel first
    tick = drill.locator(".mm-drill-points").first.locator(".widget-checkbox input").first
    expect(tick).to_be_visible()
    expect(tick).not_to_be_checked()
    tick.click()
    expect(score).to_contain_text(f"Score: {before + 1} of")


INTERACTIONS = {
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


@pytest.mark.parametrize("rel", NOTEBOOKS, ids=[Path(r).stem for r in NOTEBOOKS])
def test_notebook_runs_in_jupyterlab(page: Any, lab_url: str, screenshots: Path, rel: str) -> None:
    nb = _open(page, lab_url, rel)
    stem = Path(rel).stem
    for old in screenshots.glob(f"{stem}*.png"):
        old.unlink()
    try:
        cells = _run_all(page)
        _check_cells(rel, cells)
        _check_widgets_rendered(page, nb, rel, cells)
        kinds_seen = []
        for css, interact in INTERACTIONS.items():
            widget = nb.locator(f".{css}")
            if widget.count() == 0:
                continue
            kinds_seen.append(css)
            widget.first.scroll_into_view_if_needed()
            interact(page, nb)
            _screenshot_element(page, widget.first, screenshots / f"{stem}--{css.removeprefix('mm-')}.png")
            page.set_viewport_size({"width": 1400, "height": 1000})
        if rel.startswith("selfcheck/"):
            assert sorted(kinds_seen) == sorted(INTERACTIONS), f"the self-check must show every widget: {kinds_seen}"
        _screenshot_notebook(page, screenshots, stem)
    finally:
        page.evaluate(SHUTDOWN)
