"""``make cheatsheet``: the class handout prints on ONE A4 page, readable, and lays out in two columns on screen.

The PDFs are written to build/ as ``make cheatsheet`` does; pages are read from each PDF itself
(one ``/Type /Page`` object per page), and a sheet twice as long is printed too, to show that the
count sees a second page. The font sizes are measured in Chromium with print media emulated (what
the PDF is printed from): body text at ``BODY_PT`` (9 pt) or more, code at 8 pt or more. The
screen version, at 1280×800, must use both columns and balance them (before, ``column-fill: auto``
with no page height put everything in the left column); its screenshot and the PDF's page are in
build/screenshots/. The Chinese sheets (docs/*.zh-CN.md) print within their English sheets' pages
(the handout on one) with a CJK font from Debian (fonts-noto-cjk).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "build" / "screenshots"
import build_cheatsheet  # noqa: E402

pytestmark = pytest.mark.ui

A4_POINTS = (595.3, 841.9)  # 210 x 297 mm in PDF points
PX_PER_PT = 96 / 72


@pytest.mark.parametrize("source", list(build_cheatsheet.SHEETS), ids=lambda p: p.stem)
def test_each_sheet_prints_on_its_a4_pages(source: Path, record_property: pytest.RecordProperty) -> None:
    pdf, pages, words = build_cheatsheet.build(source)
    record_property("pages", pages)
    record_property("words", words)
    print(f"\n{pdf.relative_to(ROOT)}: {pages} page(s), {words} words")
    assert 1 <= pages <= build_cheatsheet.SHEETS[source], f"{source.name}: {pages} pages"
    boxes = re.findall(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", pdf.read_bytes())
    assert boxes, "no page size in the PDF"
    for w, h in boxes:
        assert abs(float(w) - A4_POINTS[0]) < 1 and abs(float(h) - A4_POINTS[1]) < 1, f"not A4: {w!r} x {h!r}"


def test_the_handout_is_one_page() -> None:
    assert build_cheatsheet.SHEETS[build_cheatsheet.SOURCE] == build_cheatsheet.MAX_PAGES == 1


def test_the_page_count_sees_every_page(tmp_path: Path) -> None:
    twice = tmp_path / "twice.md"
    text = build_cheatsheet.SOURCE.read_text(encoding="utf-8")
    twice.write_text(text + "\n\n" + text, encoding="utf-8")
    (tmp_path / "handout-protocol.svg").write_bytes(
        (build_cheatsheet.SOURCE.parent / "handout-protocol.svg").read_bytes()
    )
    _, pages, _ = build_cheatsheet.build(twice, tmp_path)
    assert pages >= 2


SIZES_JS = """() => {
  const px = (el) => parseFloat(getComputedStyle(el).fontSize);
  const texts = [...document.querySelectorAll('p, li, td, th')].filter(e => e.closest('pre') === null);
  const prose = texts.map(e => [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()) ? px(e) : null)
                     .filter(x => x !== null);
  const code = [...document.querySelectorAll('pre code')].map(px);
  const inline = [...document.querySelectorAll('p code, li code')].map(px);
  const svgText = [...document.querySelectorAll('svg text')].map(t => t.getBoundingClientRect().height);
  return {prose: Math.min(...prose), code: Math.min(...code), inline: Math.min(...inline), n: prose.length,
          svg: svgText.length};
}"""

COLUMNS_JS = """() => {
  const body = document.body.getBoundingClientRect();
  const mid = body.left + body.width / 2;
  const blocks = [...document.body.children].filter(e => e.tagName !== 'H1');
  const rects = blocks.map(e => e.getBoundingClientRect());
  const left = rects.filter(r => r.right <= mid), right = rects.filter(r => r.left >= mid);
  const bottom = (rs) => Math.max(...rs.map(r => r.bottom)), top = (rs) => Math.min(...rs.map(r => r.top));
  return {left: left.length, right: right.length, blocks: blocks.length,
          leftHeight: bottom(left) - top(left), rightHeight: bottom(right) - top(right),
          overflowX: document.documentElement.scrollWidth > window.innerWidth};
}"""


@pytest.fixture(scope="module")
def handout_html() -> Path:
    path, _, _ = build_cheatsheet.build(pdf=False)
    return path


def _open(browser: Any, path: Path, width: int, height: int, media: str) -> Any:
    page = browser.new_page(viewport={"width": width, "height": height})
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort())
    page.emulate_media(media=media)
    page.goto(path.resolve().as_uri())
    return page


def test_the_printed_handout_is_readable(
    browser: Any, handout_html: Path, record_property: pytest.RecordProperty
) -> None:
    # the session's browser (conftest): a second sync Playwright beside it fails ("Sync API inside the asyncio loop")
    page = _open(browser, handout_html, 794, 1123, "print")
    sizes = page.evaluate(SIZES_JS)
    page.close()
    pt = {k: round(v / PX_PER_PT, 2) for k, v in sizes.items() if k in ("prose", "code", "inline")}
    record_property("font_pt", pt)
    print(f"\nsmallest font sizes in print (pt): {pt}, {sizes['n']} text blocks, {sizes['svg']} diagram labels")
    assert pt["prose"] >= build_cheatsheet.BODY_PT, pt
    assert pt["code"] >= 8 and pt["inline"] >= 8, pt
    assert sizes["svg"] >= 7, "the diagram is not inlined"


def test_the_screen_version_uses_both_columns(browser: Any, handout_html: Path) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page = _open(browser, handout_html, 1280, 800, "screen")
    cols = page.evaluate(COLUMNS_JS)
    page.screenshot(path=str(SCREENSHOTS / "cheatsheet-screen.png"), full_page=True)
    narrow_page = _open(browser, handout_html, 600, 800, "screen")
    narrow = narrow_page.evaluate(COLUMNS_JS)
    page.close()
    narrow_page.close()
    print(f"\nscreen at 1280 px: {cols}")
    assert cols["left"] >= 3 and cols["right"] >= 3, cols
    assert cols["left"] + cols["right"] >= cols["blocks"] - 2, f"blocks straddle the columns: {cols}"
    assert 0.75 <= cols["leftHeight"] / cols["rightHeight"] <= 1.33, f"the columns are not balanced: {cols}"
    assert not cols["overflowX"], cols
    assert narrow["right"] == 0 and not narrow["overflowX"], f"a phone should get one column: {narrow}"


MIN_CHINESE = {
    build_cheatsheet.ZH_SOURCE: 500,  # the one-page handout: about 770 (733 English words)
    build_cheatsheet.ZH_INTERVIEW: 900,  # fifteen two-sentence answers: about 1 220 (743 English words)
    build_cheatsheet.ZH_TICKET: 250,  # four questions: about 400 (341 English words)
}


@pytest.mark.parametrize("source", list(build_cheatsheet.ZH_SHEETS), ids=lambda p: p.stem)
def test_each_chinese_sheet_prints_on_its_english_pages_in_a_cjk_font(
    source: Path, record_property: pytest.RecordProperty
) -> None:
    """docs/*.zh-CN.md: within the English sheet's pages, and its Chinese set in Noto Sans CJK, not boxes.

    The PDF names the fonts Chromium embedded: a CJK face must be among them, as it is only when a
    glyph of the page needed it.
    """
    pdf, pages, chars = build_cheatsheet.build(source, lang="zh-CN")
    record_property("pages", pages)
    record_property("chinese_characters", chars)
    print(f"\n{pdf.relative_to(ROOT)}: {pages} page(s), {chars} Chinese characters")
    english = source.with_name(source.name.replace(".zh-CN.md", ".md"))
    assert 1 <= pages <= build_cheatsheet.ZH_SHEETS[source] == build_cheatsheet.SHEETS[english], f"{pages} pages"
    assert chars > MIN_CHINESE[source]
    fonts = build_cheatsheet.pdf_fonts(pdf.read_bytes())
    assert any(f.startswith("NotoSansCJK") for f in fonts), fonts
    assert any(f.startswith("DejaVuSansMono") for f in fonts), fonts  # code keeps the English sheet's face


def test_the_chinese_handout_is_one_page() -> None:
    assert build_cheatsheet.ZH_SHEETS[build_cheatsheet.ZH_SOURCE] == build_cheatsheet.ZH_MAX_PAGES == 1
