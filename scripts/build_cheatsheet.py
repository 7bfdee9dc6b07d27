"""Print the cheat sheet, docs/cheatsheet.md, to an A4 PDF: build/cheatsheet.pdf.

The markdown is rendered with markdown-it-py (CommonMark plus tables, what MyST reads too) into one
self-contained, print-styled HTML page (build/cheatsheet.html: no script, no font, no stylesheet from
anywhere else), which Debian's headless Chromium prints to PDF with the page size and margins of the
page's CSS ``@page`` rule. Nothing touches the network.

The Chinese sheet, docs/cheatsheet.zh-CN.md (made from the English one and its catalog by
``scripts/doc_translations.py``), is printed the same way to build/cheatsheet.zh-CN.pdf, on one page,
its Chinese set in Noto Sans CJK SC from Debian's fonts-noto-cjk (``make cheatsheet`` installs it when
``fc-list`` knows no Chinese font; without one Chromium would print boxes). Latin text and code keep
the English sheet's faces.

    python scripts/build_cheatsheet.py            # prints "build/cheatsheet.pdf: 1 page(s), N words" and the Chinese
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
ZH_SOURCE = ROOT / "docs" / "cheatsheet.zh-CN.md"
BUILD = ROOT / "build"
MAX_PAGES = 2
ZH_MAX_PAGES = 1
CJK_FONT = "Noto Sans CJK SC"  # Debian: fonts-noto-cjk
TIMEOUT_S = 120

CSS = """
@page { size: A4; margin: 9mm 10mm 9mm 10mm; }
html { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; font-size: 7.5pt; line-height: 1.25;
       color: #111; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { margin: 0; column-count: 2; column-gap: 5mm; column-fill: auto; }
h1 { column-span: all; font-size: 12pt; margin: 0 0 1.5mm 0; padding-bottom: 1mm; border-bottom: 0.6pt solid #444; }
h2 { font-size: 8.2pt; margin: 2mm 0 0.8mm 0; color: #1a4d80; break-after: avoid; }
p, ol, ul, table, pre { margin: 0 0 1.1mm 0; }
ol, ul { padding-left: 4mm; }
li { margin: 0; }
code { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 0.93em; }
pre { background: #f3f3f3; border-left: 1.2pt solid #b03030; padding: 0.8mm 1.2mm; white-space: pre-wrap;
      overflow-wrap: anywhere; break-inside: avoid; }
pre code { font-size: 0.9em; }
table { border-collapse: collapse; width: 100%; break-inside: avoid; }
th, td { border: 0.4pt solid #999; padding: 0.3mm 1mm; text-align: left; vertical-align: top; }
th { background: #e8eef5; }
"""


CSS_ZH = f"""
html {{ font-family: "DejaVu Sans", "Liberation Sans", "{CJK_FONT}", sans-serif; line-height: 1.3; }}
code {{ font-family: "DejaVu Sans Mono", "Liberation Mono", "Noto Sans Mono CJK SC", "{CJK_FONT}", monospace; }}
"""
"""The Chinese sheet: Chinese set in the CJK face (Latin and code as in English), lines a little taller."""


def render_html(markdown: str, *, title: str = "msgmodel cheat sheet", lang: str = "en") -> str:
    """The sheet as one self-contained HTML page styled for an A4 print (``lang`` ``zh-CN``: the Chinese one)."""
    body = MarkdownIt("commonmark").enable("table").render(markdown)
    css = CSS + (CSS_ZH if lang.startswith("zh") else "")
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n<style>{css}</style>\n</head>\n<body>\n{body}</body>\n</html>\n"
    )


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
    """Write ``cheatsheet.html`` (and ``cheatsheet.pdf``) into ``out``: (path, pages, words); pages 0 without PDF.

    ``lang="zh-CN"``: ``cheatsheet.zh-CN.html`` and ``.pdf``, and words are the Chinese characters.
    """
    markdown = source.read_text(encoding="utf-8")
    out.mkdir(parents=True, exist_ok=True)
    chinese = lang.startswith("zh")
    stem = "cheatsheet.zh-CN" if chinese else "cheatsheet"
    title = "msgmodel 速查表" if chinese else "msgmodel cheat sheet"
    html_path = out / f"{stem}.html"
    html_path.write_text(render_html(markdown, title=title, lang=lang), encoding="utf-8")
    words = count_chinese(markdown) if chinese else count_words(markdown)
    if not pdf:
        return html_path, 0, words
    if chinese and not has_chinese_font():
        raise SystemExit("no Chinese font: `apt-get install -y fonts-noto-cjk` (make cheatsheet installs it)")
    pdf_path = out / f"{stem}.pdf"
    print_pdf(html_path, pdf_path)
    return pdf_path, count_pages(pdf_path.read_bytes()), words


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--html", action="store_true", help="write the HTML only")
    ap.add_argument("--lang", choices=("en", "zh", "both"), default="both", help="which sheet (default: both)")
    args = ap.parse_args(argv)
    status = 0
    sheets = [("en", SOURCE, MAX_PAGES, "words"), ("zh-CN", ZH_SOURCE, ZH_MAX_PAGES, "Chinese characters")]
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
            print(f"{rel.name} must print on at most {max_pages} A4 page(s)", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
