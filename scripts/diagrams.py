"""The series' diagrams, drawn once as SVG: every ```` ```mermaid ```` fence → ``docs/diagrams/mermaid-<hash>.svg``.

A chapter draws a diagram as a mermaid fence in its markdown (chapter 00's four-message sequence).
JupyterLab draws such a fence itself (its own bundled mermaid: the chapters, the student copies and
the live RISE slides), but the static slides (``make slides``) and the site (``make html``) are
plain HTML that load no script from anywhere: they carry the diagram as an inline ``<svg>``, drawn
here by mermaid.js (the npm package that ``slides/package-lock.json`` pins, loaded from
``slides/node_modules``; no CDN) in Debian's headless Chromium. The SVGs are committed, named by the
SHA-256 of the fence's text, so the site and the slides build without a browser
(``tests/test_slide_deck.py`` checks that every fence has its SVG and that no SVG is stale).

    python scripts/diagrams.py            # is every diagram drawn? (exit 1 if one is missing or stale)
    python scripts/diagrams.py --write    # draw the missing ones, remove the stale ones
"""

from __future__ import annotations

import hashlib
import html
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DIAGRAMS = ROOT / "docs" / "diagrams"
MERMAID_JS = ROOT / "slides" / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"
# where diagrams are written: the chapters' sources and the documentation pages
SOURCES = ("notebooks/src/[0-9][0-9]_*.py", "docs/*.md")
FENCE = re.compile(r"^(?P<indent>[ \t]*(?:# )?)```mermaid[ \t]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S)
# what nbconvert (and markdown-it) make of a mermaid fence: a <pre class="mermaid"> holding the escaped source
PRE_MERMAID = re.compile(r'<pre class="mermaid">\s*(.*?)</pre>', re.S)
CONFIG = {"startOnLoad": False, "theme": "default", "securityLevel": "strict", "htmlLabels": False}


def key(source: str) -> str:
    """The name of a diagram's SVG: the first 16 hex digits of the SHA-256 of its text (trailing blanks ignored)."""
    return hashlib.sha256(source.strip().encode()).hexdigest()[:16]


def svg_path(source: str) -> Path:
    return DIAGRAMS / f"mermaid-{key(source)}.svg"


def fences(text: str) -> list[str]:
    """The text of every mermaid fence of ``text`` (a markdown page, or a jupytext source whose lines start ``# ``)."""
    out = []
    for m in FENCE.finditer(text):
        indent = m["indent"]
        lines = [
            line.removeprefix(indent) if line.startswith(indent) else line.lstrip("#")
            for line in m["body"].splitlines()
        ]
        out.append("\n".join(lines).strip())
    return out


def all_fences() -> dict[str, str]:
    """Every diagram of the series, by its key: the text of its fence."""
    out: dict[str, str] = {}
    for pattern in SOURCES:
        for path in sorted(ROOT.glob(pattern)):
            for source in fences(path.read_text(encoding="utf-8")):
                out[key(source)] = source
    return out


def drawn(source: str) -> str:
    """The committed SVG of a diagram; ``LookupError`` naming the command when it is not drawn yet."""
    path = svg_path(source)
    if not path.is_file():
        raise LookupError(f"the diagram {key(source)} is not drawn: run `python scripts/diagrams.py --write`")
    return path.read_text(encoding="utf-8")


def inline_svgs(page: str) -> str:
    """``page`` (HTML) with every ``<pre class="mermaid">`` replaced by its drawn SVG in a ``<figure>``."""

    def one(m: re.Match[str]) -> str:
        source = html.unescape(m[1])
        return f'<figure class="msg-diagram" data-diagram="{key(source)}">{drawn(source)}</figure>'

    return PRE_MERMAID.sub(one, page)


def render(sources: list[str], browser: Any) -> list[str]:
    """Each mermaid text drawn as SVG by mermaid.js in ``browser`` (a Playwright browser)."""
    if not MERMAID_JS.is_file():
        raise SystemExit(f"{MERMAID_JS} is missing: run `npm ci` in slides/ (make slides does)")
    page = browser.new_page()
    try:
        page.set_content("<!doctype html><html><body></body></html>")
        page.add_script_tag(path=str(MERMAID_JS))
        page.evaluate(f"() => mermaid.initialize({CONFIG!r})".replace("False", "false"))
        out = []
        for source in sources:
            svg = page.evaluate(
                "async ([id, text]) => (await mermaid.render(id, text)).svg", [f"mermaid-{key(source)}", source]
            )
            if "<svg" not in svg or "Syntax error" in svg:
                raise SystemExit(f"mermaid could not draw diagram {key(source)}:\n{source}")
            out.append(svg)
        return out
    finally:
        page.close()


def main(argv: list[str]) -> int:
    wanted = all_fences()
    have = {p.stem.removeprefix("mermaid-"): p for p in DIAGRAMS.glob("mermaid-*.svg")}
    missing = [k for k in wanted if k not in have]
    stale = [p for k, p in have.items() if k not in wanted]
    if "--write" not in argv:
        for k in missing:
            print(f"not drawn: {k}\n{wanted[k]}", file=sys.stderr)
        for p in stale:
            print(f"stale: {p.relative_to(ROOT)}", file=sys.stderr)
        print(f"{len(wanted)} diagram(s), {len(missing)} not drawn, {len(stale)} stale")
        return 1 if missing or stale else 0
    import chromium  # scripts/chromium.py: the one way this project runs Chromium

    DIAGRAMS.mkdir(parents=True, exist_ok=True)
    if missing:
        with chromium.browser() as b:
            for k, svg in zip(missing, render([wanted[k] for k in missing], b), strict=True):
                (DIAGRAMS / f"mermaid-{k}.svg").write_text(svg + "\n", encoding="utf-8")
                print(f"drew docs/diagrams/mermaid-{k}.svg")
    for p in stale:
        p.unlink()
        print(f"removed {p.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
