"""Print the cheat sheet, docs/cheatsheet.md, to an A4 PDF: build/cheatsheet.pdf.

The markdown is rendered with markdown-it-py (CommonMark plus tables, what MyST reads too) into one
self-contained, print-styled HTML page (build/cheatsheet.html: no script, no font, no stylesheet from
anywhere else), which Debian's headless Chromium prints to PDF with the page size and margins of the
page's CSS ``@page`` rule. Nothing touches the network.

    python scripts/build_cheatsheet.py            # prints "build/cheatsheet.pdf: 1 page(s), N words"
    python scripts/build_cheatsheet.py --html     # the HTML only (no Chromium needed)
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
BUILD = ROOT / "build"
MAX_PAGES = 2
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


def render_html(markdown: str, *, title: str = "msgmodel cheat sheet") -> str:
    """The sheet as one self-contained HTML page styled for an A4 print."""
    body = MarkdownIt("commonmark").enable("table").render(markdown)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n{body}</body>\n</html>\n"
    )


def count_words(markdown: str) -> int:
    """Words a reader sees: HTML comments dropped, markdown punctuation is not a word."""
    text = re.sub(r"<!--.*?-->", " ", markdown, flags=re.S)
    return len(re.findall(r"[A-Za-z0-9][\w'’./-]*", text))


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


def build(source: Path = SOURCE, out: Path = BUILD, *, pdf: bool = True) -> tuple[Path, int, int]:
    """Write ``cheatsheet.html`` (and ``cheatsheet.pdf``) into ``out``: (path, pages, words); pages 0 without PDF."""
    markdown = source.read_text(encoding="utf-8")
    out.mkdir(parents=True, exist_ok=True)
    html_path = out / "cheatsheet.html"
    html_path.write_text(render_html(markdown), encoding="utf-8")
    words = count_words(markdown)
    if not pdf:
        return html_path, 0, words
    pdf_path = out / "cheatsheet.pdf"
    print_pdf(html_path, pdf_path)
    return pdf_path, count_pages(pdf_path.read_bytes()), words


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--html", action="store_true", help="write the HTML only")
    args = ap.parse_args(argv)
    path, pages, words = build(pdf=not args.html)
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    if args.html:
        print(f"{rel}: {words} words")
        return 0
    print(f"{rel}: {pages} page(s), {words} words")
    if pages > MAX_PAGES:
        print(f"the cheat sheet must print on at most {MAX_PAGES} A4 pages", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
