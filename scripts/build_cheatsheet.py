"""Print the class handout, docs/cheatsheet.md, to one A4 page (build/cheatsheet.pdf), the other sheets, in Chinese too.

The markdown is rendered with markdown-it-py (CommonMark plus tables, what MyST reads too) into one
self-contained, print-styled HTML page (build/cheatsheet.html: no script, no font, no stylesheet from
anywhere else; the handout's diagram, docs/handout-protocol.svg, is inlined), which Debian's headless
Chromium prints to PDF with the page size and margins of the page's CSS ``@page`` rule. Nothing
touches the network. On screen the same HTML lays out in two balanced columns.

The handout must print on one page (``SHEETS``); the interview sheet, docs/interview-answers.md (two
sentences for each of chapter 06's drill questions), on at most two; the students' exit ticket,
docs/exit-ticket.md, on one, in one column.

The Chinese sheets, docs/cheatsheet.zh-CN.md, docs/interview-answers.zh-CN.md and
docs/exit-ticket.zh-CN.md (made from the English ones and their catalogs by ``scripts/doc_translations.py``),
are printed the same way to build/<name>.zh-CN.pdf, each within its English sheet's pages (``ZH_SHEETS``),
their Chinese set in Noto Sans CJK SC from Debian's fonts-noto-cjk (``make cheatsheet`` installs it when
``fc-list`` knows no Chinese font; without one Chromium would print boxes). Latin text and code keep
the English sheets' faces.

    python scripts/build_cheatsheet.py            # "build/cheatsheet.pdf: 1 page(s), N words", each sheet
    python scripts/build_cheatsheet.py --html     # the HTML only (no Chromium needed)
    python scripts/build_cheatsheet.py --lang zh  # one language only (en, zh; default both)
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import chromium  # scripts/chromium.py: the one way this project runs Chromium
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "docs" / "cheatsheet.md"
INTERVIEW = ROOT / "docs" / "interview-answers.md"
BUILD = ROOT / "build"
MAX_PAGES = 1
TICKET = ROOT / "docs" / "exit-ticket.md"
SHEETS: dict[Path, int] = {SOURCE: MAX_PAGES, INTERVIEW: 2, TICKET: 1}
"""Each sheet and the pages it may print on."""
ZH_SOURCE = ROOT / "docs" / "cheatsheet.zh-CN.md"
ZH_INTERVIEW = ROOT / "docs" / "interview-answers.zh-CN.md"
ZH_TICKET = ROOT / "docs" / "exit-ticket.zh-CN.md"
ZH_SHEETS: dict[Path, int] = {ZH_SOURCE: SHEETS[SOURCE], ZH_INTERVIEW: SHEETS[INTERVIEW], ZH_TICKET: SHEETS[TICKET]}
"""Each Chinese sheet and its pages: the English sheet's."""
ZH_MAX_PAGES = ZH_SHEETS[ZH_SOURCE]
ZH_TITLES = {
    ZH_SOURCE.stem: "msgmodel 速查表",
    ZH_INTERVIEW.stem: "msgmodel 面试答案",
    ZH_TICKET.stem: "msgmodel 课末小测",
}
ONE_COLUMN = {TICKET.stem, ZH_TICKET.stem}
"""Sheets printed in one column: the exit ticket leaves room to write."""
CJK_FONT = "Noto Sans CJK SC"  # Debian: fonts-noto-cjk
TIMEOUT_S = 120
BODY_PT = 9.0
"""The body text's size: readable on a photocopy (tests/ui/test_cheatsheet_pdf.py measures it in Chromium)."""

CSS = """
@page { size: A4; margin: 8mm 9mm 8mm 9mm; }
html { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; font-size: 9pt; line-height: 1.22;
       color: #111; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { margin: 0; column-count: 2; column-gap: 5mm; column-fill: balance; }
h1 { column-span: all; font-size: 12.5pt; margin: 0 0 1.2mm 0; padding-bottom: 0.8mm; border-bottom: 0.6pt solid #444; }
h2 { font-size: 9.8pt; margin: 1.6mm 0 0.6mm 0; color: #1a4d80; break-after: avoid; }
p, ol, ul, table, pre { margin: 0 0 1mm 0; }
ol, ul { padding-left: 4mm; break-inside: avoid; }
li { margin: 0; }
code { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 0.92em; }
pre { background: #f3f3f3; border-left: 1.2pt solid #b03030; padding: 0.6mm 1.2mm; white-space: pre-wrap;
      overflow-wrap: anywhere; break-inside: avoid; }
pre code { font-size: 8pt; }
pre.python { border-left-color: #1a4d80; }
table { border-collapse: collapse; width: 100%; break-inside: avoid; }
th, td { border: 0.4pt solid #999; padding: 0.3mm 1mm; text-align: left; vertical-align: top; }
th { background: #e8eef5; }
figure, p.figure { margin: 0 0 0.6mm 0; break-inside: avoid; }
svg { display: block; width: 100%; height: auto; max-width: 95mm; }
@media screen {
  html { font-size: 15px; }
  body { max-width: 1200px; margin: 0 auto; padding: 16px 24px; column-gap: 32px; }
  h1 { font-size: 24px; } h2 { font-size: 18px; } pre code { font-size: 13px; }
}
@media screen and (max-width: 760px) { body { column-count: 1; } }
"""


CSS_ZH = f"""
html {{ font-family: "DejaVu Sans", "Liberation Sans", "{CJK_FONT}", sans-serif; line-height: 1.3; }}
code {{ font-family: "DejaVu Sans Mono", "Liberation Mono", "Noto Sans Mono CJK SC", "{CJK_FONT}", monospace; }}
"""
"""The Chinese sheet: Chinese set in the CJK face (Latin and code as in English), lines a little taller."""


def render_html(
    markdown: str, *, title: str = "msgmodel class handout", base: Path = SOURCE.parent, lang: str = "en"
) -> str:
    """The sheet as one self-contained HTML page styled for an A4 print (and two columns on screen).

    A markdown image of a local ``.svg`` (relative to ``base``) is inlined, so the page loads nothing.
    ``lang`` ``zh-CN``: the Chinese sheet (CJK face).
    """
    body = MarkdownIt("commonmark").enable("table").render(markdown)
    body = re.sub(r'<pre><code class="language-(\w+)">', r'<pre class="\1"><code class="language-\1">', body)
    body = re.sub(r"<p><img [^>]*></p>", lambda m: _inline_svg(m[0], base), body)
    css = CSS + (CSS_ZH if lang.startswith("zh") else "")
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{css}</style>\n</head>\n<body>\n{body}</body>\n</html>\n"
    )


def _inline_svg(tag: str, base: Path) -> str:
    """``<p><img src="x.svg" alt="…"></p>`` as the SVG itself (its alt text as the SVG's label)."""
    src = re.search(r'src="([^"]+)"', tag)
    alt = re.search(r'alt="([^"]*)"', tag)
    if not src or not src[1].endswith(".svg") or re.match(r"[a-z]+:|/", src[1]):
        raise ValueError(f"only a local .svg image can be inlined: {tag}")
    svg = (base / html.unescape(src[1])).read_text(encoding="utf-8")
    svg = re.sub(r"<\?xml[^>]*>\s*", "", svg).strip()
    label = html.escape(html.unescape(alt[1])) if alt else ""
    return f'<p class="figure" role="img" aria-label="{label}">{svg}</p>'


def count_words(markdown: str) -> int:
    """Words a reader sees: HTML comments dropped, markdown punctuation is not a word."""
    text = re.sub(r"<!--.*?-->", " ", markdown, flags=re.S)
    return len(re.findall(r"[A-Za-z0-9][\w'’./-]*", text))


def count_chinese(markdown: str) -> int:
    """Chinese characters a reader sees (HTML comments dropped)."""
    text = re.sub(r"<!--.*?-->", " ", markdown, flags=re.S)
    return len(re.findall(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]", text))


def pdf_fonts(pdf: bytes) -> list[str]:
    """The fonts a PDF embeds (``/BaseFont``, ``/FontName``), subset prefixes dropped: what Chromium printed with."""
    names = re.findall(rb"/(?:BaseFont|FontName)\s*/([^\s/<>\[\]()]+)", pdf)
    return sorted({name.decode().split("+")[-1] for name in names})


def has_chinese_font() -> bool:
    """Whether fontconfig knows a font covering Chinese (``fc-list :lang=zh``)."""
    if shutil.which("fc-list") is None:
        return False
    done = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True, check=False)
    return bool(done.stdout.strip())


def count_pages(pdf: bytes) -> int:
    """Pages of a PDF as Chromium writes it: one ``/Type /Page`` object per page (``/Pages`` excluded)."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))


def print_pdf(html_path: Path, pdf_path: Path) -> None:
    """Headless Chromium prints ``html_path`` to ``pdf_path`` (a throw-away profile, no network)."""
    if not chromium.is_installed():
        raise SystemExit(chromium.MISSING)
    pdf_path.unlink(missing_ok=True)
    profile = Path(tempfile.mkdtemp(prefix="msgmodel-cheatsheet-"))
    try:
        cmd = [
            chromium.CHROMIUM,
            "--headless",
            *chromium.HEADLESS_ARGS,
            "--no-pdf-header-footer",
            f"--user-data-dir={profile}",
            f"--print-to-pdf={pdf_path}",
            html_path.resolve().as_uri(),
        ]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
        if done.returncode != 0 or not pdf_path.is_file():
            raise SystemExit(f"chromium could not print {html_path} (exit {done.returncode}):\n{done.stderr[-2000:]}")
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def build(source: Path = SOURCE, out: Path = BUILD, *, pdf: bool = True, lang: str = "en") -> tuple[Path, int, int]:
    """Write ``<stem>.html`` (and ``<stem>.pdf``) into ``out``: (path, pages, words); pages 0 without PDF.

    ``lang="zh-CN"`` (a Chinese sheet, ``ZH_SHEETS``): words are the Chinese characters, the PDF needs a CJK font.
    """
    markdown = source.read_text(encoding="utf-8")
    out.mkdir(parents=True, exist_ok=True)
    chinese = lang.startswith("zh")
    html_path = out / f"{source.stem}.html"
    if chinese:
        title = ZH_TITLES.get(source.stem, "msgmodel 速查表")
    elif source.stem == SOURCE.stem:
        title = "msgmodel class handout"
    else:
        title = f"msgmodel: {source.stem.replace('-', ' ')}"
    page = render_html(markdown, title=title, base=source.parent, lang=lang)
    if source.stem in ONE_COLUMN:
        page = page.replace("</style>", "body { column-count: 1; } h2 { margin-top: 4mm; }\n</style>")
    html_path.write_text(page, encoding="utf-8")
    words = count_chinese(markdown) if chinese else count_words(markdown)
    if not pdf:
        return html_path, 0, words
    if chinese and not has_chinese_font():
        raise SystemExit("no Chinese font: `apt-get install -y fonts-noto-cjk` (make cheatsheet installs it)")
    pdf_path = out / f"{source.stem}.pdf"
    print_pdf(html_path, pdf_path)
    return pdf_path, count_pages(pdf_path.read_bytes()), words


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--html", action="store_true", help="write the HTML only")
    ap.add_argument("--lang", choices=("en", "zh", "both"), default="both", help="which sheet (default: both)")
    args = ap.parse_args(argv)
    status = 0
    sheets = [("en", source, max_pages, "words") for source, max_pages in SHEETS.items()]
    sheets += [("zh-CN", source, max_pages, "Chinese characters") for source, max_pages in ZH_SHEETS.items()]
    for lang, source, max_pages, unit in sheets:
        if args.lang != "both" and not lang.startswith(args.lang):
            continue
        path, pages, words = build(source, pdf=not args.html, lang=lang)
        rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        if args.html:
            print(f"{rel}: {words} {unit}")
            continue
        print(f"{rel}: {pages} page(s), {words} {unit}")
        if pages > max_pages:
            print(f"{source.name} must print on at most {max_pages} A4 page(s)", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
