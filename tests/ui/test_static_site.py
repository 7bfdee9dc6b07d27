"""``make html``: the static site reads well offline, and its links resolve.

The site is built into a temporary directory from the committed chapters (and, separately,
from an executed copy of the widget self-check, so that every widget's static fallback is
seen even before the chapters use them). Each page is opened in headless Chromium with
every non-``file:`` request refused, which is what a reader without network gets.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import build_html  # noqa: E402

pytestmark = pytest.mark.ui

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def _offline(page: Any) -> list[str]:
    refused: list[str] = []

    def route(r: Any) -> None:
        if r.request.url.startswith("file:"):
            r.continue_()
        else:
            refused.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    return refused


def _static_widget_outputs(nb: nbformat.NotebookNode) -> int:
    return sum(
        1
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if WIDGET_MIME in o.get("data", {}) and "text/html" in o.get("data", {})
    )


def _check_links(out: Path) -> None:
    pages = {p.name: p.read_text(encoding="utf-8") for p in out.glob("*.html")}
    broken = []
    for name, text in pages.items():
        for href in re.findall(r'href="([^"]+)"', text):
            if re.match(r"[a-z]+:", href) or href.startswith("../"):
                continue  # external, or into the repository (checked by tests/test_notebooks.py)
            target, _, anchor = href.partition("#")
            target = target or name
            if target not in pages:
                broken.append(f"{name} links to missing {href}")
            elif anchor and target != name and f'id="{anchor}"' not in pages[target]:
                broken.append(f"{name} links to missing anchor {href}")
        if re.search(r'href="[\w.-]+\.ipynb', text):
            broken.append(f"{name} still links to a notebook")
    assert not broken, "\n".join(sorted(set(broken)))


@pytest.mark.skipif(not list((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")), reason="no chapters built yet")
def test_site_of_the_chapters(tmp_path: Path, page: Any, screenshots: Path) -> None:
    out = tmp_path / "site"
    chapters = build_html.build(out)
    assert (out / "index.html").exists()
    _check_links(out)
    index = (out / "index.html").read_text(encoding="utf-8")
    positions = [index.index(f'href="{ch.page}"') for ch in chapters]
    assert positions == sorted(positions), "the index lists the chapters out of order"
    refused = _offline(page)
    page.goto((out / "index.html").as_uri())
    assert page.locator("li > a").count() == len(chapters)
    page.screenshot(path=str(screenshots / "site-index.png"), full_page=True)
    for ch in chapters:
        page.goto((out / ch.page).as_uri(), wait_until="load")
        assert page.title() == ch.title
        assert page.locator(".jp-Cell").count() > 0
        assert page.get_by_text("Error displaying widget").count() == 0
        fallbacks = page.locator(".mm-widget-static")
        expected = _static_widget_outputs(nbformat.read(ch.source, as_version=4))
        assert fallbacks.count() == expected
        for i in range(expected):
            assert fallbacks.nth(i).is_visible()
    assert refused, "the pages were expected to ask a CDN for scripts (and be refused)"
    first = chapters[1] if len(chapters) > 1 else chapters[0]
    page.goto((out / first.page).as_uri(), wait_until="load")
    page.set_viewport_size({"width": 1280, "height": 2400})
    page.screenshot(path=str(screenshots / f"site-{first.source.stem}.png"))


def test_site_shows_every_widget_fallback_offline(tmp_path: Path, page: Any, screenshots: Path) -> None:
    from nbclient import NotebookClient

    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    source = Path(__file__).parent / "notebooks" / "widgets_selfcheck.ipynb"
    nb = nbformat.read(source, as_version=4)
    NotebookClient(nb, timeout=60, kernel_name="python3", resources={"metadata": {"path": str(notebooks)}}).execute()
    assert "widgets" in nb.metadata  # nbclient saved the widget state, as `make notebooks` does
    nbformat.write(nb, notebooks / "01_widgets_selfcheck.ipynb")
    shutil.copy(notebooks / "01_widgets_selfcheck.ipynb", notebooks / "02_widgets_again.ipynb")
    out = tmp_path / "site"
    build_html.build(out, notebooks)
    _check_links(out)
    text = (out / "01_widgets_selfcheck.html").read_text(encoding="utf-8")
    assert "application/vnd.jupyter.widget-state+json" in text  # the saved state is embedded
    _offline(page)
    page.goto((out / "01_widgets_selfcheck.html").as_uri(), wait_until="load")
    fallbacks = page.locator(".mm-widget-static")
    assert fallbacks.count() == 5
    for css in ("mm-conversation", "mm-compaction", "mm-transcripts", "mm-quiz-static", "mm-interview-drill-static"):
        assert page.locator(f".mm-widget-static .{css}").first.is_visible(), css
    assert page.locator(".mm-widget-static .mmw-fail").first.is_visible()
    assert page.get_by_text("200 OK: the API accepts it").first.is_visible()
    page.get_by_text("Show the answer").first.click()
    assert page.get_by_text("in the next user message — The client answers the call").is_visible()
    page.get_by_text("Show the model answer").first.click()  # the drill's model answer, folded until asked
    assert page.get_by_text("Both shapes are on the wire: the API accepts").first.is_visible()
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.screenshot(path=str(screenshots / "site-widgets_selfcheck.png"), full_page=True)
