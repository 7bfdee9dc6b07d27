"""``make cheatsheet``: docs/cheatsheet.md prints on at most two A4 pages (aim: one) with Debian's Chromium.
The Chinese sheet, docs/cheatsheet.zh-CN.md, prints on one page with a CJK font from Debian (fonts-noto-cjk).

The PDF is written to build/cheatsheet.pdf, as ``make cheatsheet`` does; its pages and the sheet's
words are reported. The page count is read from the PDF itself (one ``/Type /Page`` object per
page), and a sheet twice as long is printed too, to show that the count sees a second page.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
import build_cheatsheet  # noqa: E402

pytestmark = pytest.mark.ui

A4_POINTS = (595.3, 841.9)  # 210 x 297 mm in PDF points


def test_the_cheat_sheet_prints_on_at_most_two_a4_pages(record_property: pytest.RecordProperty) -> None:
    pdf, pages, words = build_cheatsheet.build()
    record_property("pages", pages)
    record_property("words", words)
    print(f"\n{pdf.relative_to(ROOT)}: {pages} page(s), {words} words")
    assert 1 <= pages <= build_cheatsheet.MAX_PAGES, f"{pages} pages"
    boxes = re.findall(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", pdf.read_bytes())
    assert boxes, "no page size in the PDF"
    for w, h in boxes:
        assert abs(float(w) - A4_POINTS[0]) < 1 and abs(float(h) - A4_POINTS[1]) < 1, f"not A4: {w!r} x {h!r}"


def test_the_page_count_sees_every_page(tmp_path: Path) -> None:
    twice = tmp_path / "twice.md"
    text = build_cheatsheet.SOURCE.read_text(encoding="utf-8")
    twice.write_text(text + "\n\n" + text, encoding="utf-8")
    _, pages, _ = build_cheatsheet.build(twice, tmp_path)
    assert pages >= 2


def test_the_chinese_cheat_sheet_prints_on_one_a4_page_in_a_cjk_font(record_property: pytest.RecordProperty) -> None:
    """docs/cheatsheet.zh-CN.md: one page, and its Chinese set in Noto Sans CJK (Debian's fonts-noto-cjk), not boxes.

    The PDF names the fonts Chromium embedded: a CJK face must be among them, as it is only when a
    glyph of the page needed it.
    """
    pdf, pages, chars = build_cheatsheet.build(build_cheatsheet.ZH_SOURCE, lang="zh-CN")
    record_property("pages", pages)
    record_property("chinese_characters", chars)
    print(f"\n{pdf.relative_to(ROOT)}: {pages} page(s), {chars} Chinese characters")
    assert pages == build_cheatsheet.ZH_MAX_PAGES == 1, f"{pages} pages"
    assert chars > 1000
    fonts = build_cheatsheet.pdf_fonts(pdf.read_bytes())
    assert any(f.startswith("NotoSansCJK") for f in fonts), fonts
    assert any(f.startswith("DejaVuSansMono") for f in fonts), fonts  # code keeps the English sheet's face
