"""``make html``: the documentation site, English and Chinese, read in headless Chromium with the network refused.

The site is built into ``build/site/`` (``scripts/build_site.py``, incremental) and served by a
``http.server`` on 127.0.0.1; every request to any other host is aborted and recorded, and none may
be attempted. The reader opens the index, follows "next" through every chapter in order and "previous"
back, sees the widgets' static fallbacks in the chapters that have widgets, runs a search, and
opens the API reference. On the Chinese site (``build/site/zh/``) it switches a chapter to Chinese and
back, asks Chromium which faces drew the Chinese (a CJK one, no tofu), and searches for 判别联合.
Screenshots go to ``build/screenshots/site-*.png``. The link check of the
built pages (every href, src and anchor) is ``tests/test_site.py``.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
import build_site  # noqa: E402

pytestmark = [pytest.mark.ui, pytest.mark.filterwarnings("ignore:.myst_parser.*is deprecated")]

CHAPTERS = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
# the chapters with widgets, and the class of each one's static fallback (msgmodel.course.widgets)
WIDGET_FALLBACKS = {
    "01_orphan_tool_result": ["mm-compaction"],
    "02_lost_tool_context": ["mm-transcripts"],
    "05_refactor_and_regressions": ["mm-conversation"],
    "06_interview_followups": ["mm-interview-drill-static", "mm-quiz-static"],
}


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site_url() -> Iterator[str]:
    build_site.build(build_site.SITE)
    handler = functools.partial(_Quiet, directory=str(build_site.SITE))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture
def offline(page: Any) -> list[str]:
    """Abort every request that does not go to 127.0.0.1; the list of those attempted."""
    refused: list[str] = []

    def route(r: Any) -> None:
        if urlsplit(r.request.url).hostname == "127.0.0.1":
            r.continue_()
        else:
            refused.append(r.request.url)
            r.abort()

    page.context.route("**/*", route)
    return refused


def _stem(url: str) -> str:
    return Path(urlsplit(url).path).stem


def test_read_the_site_offline(site_url: str, page: Any, offline: list[str], screenshots: Path) -> None:
    assert len(CHAPTERS) >= 8
    page.goto(site_url, wait_until="load")
    assert page.title().startswith("msgmodel")
    sidebar = page.locator(".sidebar-tree")
    for chapter in CHAPTERS:
        assert sidebar.locator(f'a[href="notebooks/{chapter}.html"]').count() == 1, chapter
    page.screenshot(path=str(screenshots / "site-index.png"))

    # "next" from the index walks the chapters in order
    visited: list[str] = []
    for _ in CHAPTERS:
        page.locator("a.next-page").click()
        page.wait_for_load_state("load")
        visited.append(_stem(page.url))
        assert page.locator("article h1").count() == 1
        for css in WIDGET_FALLBACKS.get(visited[-1], []):
            fallback = page.locator(f"article .{css}").first
            fallback.scroll_into_view_if_needed()
            assert fallback.is_visible(), (visited[-1], css)
    assert visited == CHAPTERS
    # and "previous" walks back to the first chapter
    for expected in reversed(CHAPTERS[:-1]):
        page.locator("a.prev-page").click()
        page.wait_for_load_state("load")
        assert _stem(page.url) == expected

    page.goto(site_url + "notebooks/06_interview_followups.html", wait_until="load")
    page.get_by_text("Show the model answer").first.click()  # the drill's answers fold without a kernel
    page.locator("article .mm-quiz-static").first.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshots / "site-06_interview_followups.png"))
    page.goto(site_url + "notebooks/01_orphan_tool_result.html", wait_until="load")
    page.locator("article .mm-compaction").first.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshots / "site-01_orphan_tool_result.png"))
    assert not offline, f"the site asked other hosts for: {offline}"


def test_search_finds_the_chapters(site_url: str, page: Any, offline: list[str], screenshots: Path) -> None:
    page.goto(site_url + "search.html?q=tool_result", wait_until="load")
    # results are listed one by one; the summary says when the list is complete
    page.locator("#search-results .search-summary", has_text="Search finished").wait_for(timeout=30_000)
    results = page.locator("#search-results ul.search li > a")
    hrefs = [results.nth(i).get_attribute("href") or "" for i in range(results.count())]
    found = {_stem(h) for h in hrefs if h.startswith("notebooks/")}
    assert len(found) >= 4, hrefs
    assert found <= set(CHAPTERS)
    page.screenshot(path=str(screenshots / "site-search.png"))
    assert not offline, f"the site asked other hosts for: {offline}"


def test_api_reference(site_url: str, page: Any, offline: list[str], screenshots: Path) -> None:
    page.goto(site_url, wait_until="load")
    page.locator(".sidebar-tree a", has_text="API reference").first.click()
    page.wait_for_load_state("load")
    page.locator("a", has_text="msgmodel.core.message").first.click()
    page.wait_for_load_state("load")
    user_text = page.locator('[id="msgmodel.core.message.user_text"]')
    user_text.scroll_into_view_if_needed()
    assert user_text.is_visible()
    assert "user_text" in user_text.inner_text()
    page.screenshot(path=str(screenshots / "site-api.png"))
    assert not offline, f"the site asked other hosts for: {offline}"


def test_every_diagram_is_drawn(site_url: str, page: Any, offline: list[str], screenshots: Path) -> None:
    """A mermaid fence (chapter 00's four messages) is its committed SVG in the page, drawn, not its source."""
    import diagrams

    pages = {}  # chapter -> the diagrams its source draws
    for src in sorted((ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py")):
        found = [diagrams.key(f) for f in diagrams.fences(src.read_text(encoding="utf-8"))]
        if found:
            pages[src.stem] = found
    assert "00_start_here" in pages
    for chapter, keys in pages.items():
        page.goto(site_url + f"notebooks/{chapter}.html", wait_until="load")
        assert page.locator("article pre", has_text="sequenceDiagram").count() == 0, "a diagram shows its source"
        for key in keys:
            svg = page.locator(f'article figure.msg-diagram[data-diagram="{key}"] svg')
            svg.scroll_into_view_if_needed()
            box = svg.bounding_box()
            assert box and box["width"] > 200 and box["height"] > 100, (chapter, key, box)
            assert svg.locator("text").count() >= 4, "the drawing has no labels"
        page.screenshot(path=str(screenshots / f"site-diagram-{chapter}.png"))


def test_the_language_switch_and_the_chinese_pages(
    site_url: str, page: Any, offline: list[str], screenshots: Path
) -> None:
    """Every page switches to the same page in the other language; the Chinese is drawn in a CJK face."""
    from cjk_fonts import CJK, cjk_glyphs, rendered_fonts

    chapter = "notebooks/04_unified_model.html"
    page.goto(site_url + chapter, wait_until="load")
    english_title = page.locator("article h1").inner_text()
    page.locator(".sidebar-drawer .mm-language-other", has_text="中文").click()
    page.wait_for_load_state("load")
    assert page.url == site_url + f"{build_site.ZH}/{chapter}"
    assert page.evaluate("() => document.documentElement.lang") == "zh-CN"
    title = page.locator("article h1").inner_text()
    assert CJK.search(title) and title != english_title, title
    used = rendered_fonts(page, "article p")
    print(f"\nfonts drawn on {build_site.ZH}/{chapter}: {used}")
    assert cjk_glyphs(used) > 100, f"the Chinese was not drawn in a CJK face: {used}"
    page.screenshot(path=str(screenshots / "site-zh-04_unified_model.png"))
    page.locator(".sidebar-drawer .mm-language-other", has_text="English").click()
    page.wait_for_load_state("load")
    assert page.url == site_url + chapter
    assert not offline, f"the site asked other hosts for: {offline}"


def test_the_chinese_search_finds_a_chinese_word(
    site_url: str, page: Any, offline: list[str], screenshots: Path
) -> None:
    """Searching the Chinese site for 判别联合 (the glossary's "tagged union") lists chapter 04, where it is taught."""
    page.goto(site_url + f"{build_site.ZH}/search.html?q=判别联合", wait_until="load")
    page.locator("#search-results .search-summary").wait_for(timeout=30_000)
    page.wait_for_function("() => !document.querySelector('#search-progress')?.innerText", timeout=30_000)
    results = page.locator("#search-results ul.search li > a")
    hrefs = [results.nth(i).get_attribute("href") or "" for i in range(results.count())]
    found = {_stem(h) for h in hrefs if h.startswith("notebooks/")}
    assert "04_unified_model" in found, hrefs
    page.screenshot(path=str(screenshots / "site-zh-search.png"))
    assert not offline, f"the site asked other hosts for: {offline}"
