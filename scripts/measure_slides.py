"""What each static slide shows a class: build/slides/NN_*.slides.html opened at 1280×800 in Chromium.

Every deck is opened from disk in Debian's headless Chromium (``/usr/bin/chromium`` or ``$CHROMIUM``,
driven by Playwright; nothing is downloaded), every slide is shown in turn with ``Reveal.slide(h, v)``
and the height of its content is read: the ``scrollHeight`` of the slide's ``<section>``, in the
deck's own pixels (the deck is 1280×800; reveal.js scales it to the window). A slide over 800 px
does not fit the screen. Also read on each slide, after the template has fitted it (``fitSlide``):
the words of prose outside its notes (the slide texts; code, outputs, diagrams and notes not
counted), whether it has speaker notes, its folded demo cells (a cell tagged ``demo`` inside a
collapsed ``<details>``), its clipped lines (a text output, code block or table wider than its
column: text cut off on the right), its outputs that scroll in a box of their own ("boxed"), the
smallest font of its code, outputs and tables, and its drawn diagrams (an ``<svg>`` that has a size).
Collapsed ``<details>`` count as closed (as a class first sees them). The test that holds the
bounds is tests/ui/test_slide_fit.py.

    python scripts/measure_slides.py              # every deck in build/slides (make slides first)
    python scripts/measure_slides.py 06 07        # some decks, by number prefix
    python scripts/measure_slides.py --shots 3    # also screenshot the 3 tallest slides

Screenshots go to ``build/screenshots/slides-fit-NN-h.v.png``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chromium  # scripts/chromium.py: the one way this project runs Chromium

ROOT = Path(__file__).resolve().parent.parent
DECKS = ROOT / "build" / "slides"
SCREENSHOTS = ROOT / "build" / "screenshots"
WIDTH, HEIGHT = 1280, 800

# every slide of the deck, as reveal.js indexes it: (h, v) with v = 0 for a slide without subslides
INDICES = """() => [...document.querySelectorAll('.reveal .slides > section')].flatMap((s, h) => {
  const inner = s.querySelectorAll(':scope > section');
  return inner.length ? [...inner].map((_, v) => [h, v]) : [[h, 0]];
})"""
# the slide on screen (see the module docstring); words are counted as build_slides.prose_words counts them
MEASURE = """() => {
  const s = Reveal.getCurrentSlide();
  const shown = e => !e.closest('aside.notes') && !e.closest('details:not([open])');
  const outputs = [...s.querySelectorAll('.jp-OutputArea-output')].filter(shown);
  const boxed = outputs.filter(o => o.scrollHeight > o.clientHeight + 2 && getComputedStyle(o).overflowY !== 'visible');
  const words = [...s.querySelectorAll('.jp-MarkdownCell')].filter(shown).map(c => {
    const copy = c.cloneNode(true);
    copy.querySelectorAll('pre, figure, svg').forEach(e => e.remove());
    return copy.textContent.split(/\\s+/).filter(t => /\\w/.test(t)).length;
  }).reduce((a, b) => a + b, 0);
  const texts = [...s.querySelectorAll('pre, table, .jp-OutputArea-output')].filter(shown);
  const clipped = texts.filter(e => e.scrollWidth > e.clientWidth + 1);
  const fonts = [...s.querySelectorAll('pre, td, th')].filter(shown).filter(e => e.textContent.trim())
    .map(e => parseFloat(getComputedStyle(e).fontSize));
  const notes = s.querySelector('aside.notes');
  const folded = [...s.querySelectorAll('.celltag_demo details.msg-fold, details.msg-fold .celltag_demo')];
  const svgs = [...s.querySelectorAll('figure.msg-diagram svg')].filter(g => g.getBoundingClientRect().width > 100);
  return {height: s.scrollHeight, boxed: boxed.length, words, notes: notes ? notes.textContent.trim().length : 0,
          folded: folded.length, clipped: clipped.map(e => e.textContent.trim().split('\\n')[0].slice(0, 50)),
          font: fonts.length ? Math.min(...fonts) : 0, diagrams: svgs.length,
          text: s.innerText.trim().replace(/\\s+/g, ' ').slice(0, 60)};
}"""


@dataclass(frozen=True)
class Slide:
    deck: str  # the deck's file stem, e.g. "07_tradeoffs_and_next"
    number: int  # 1-based, as reveal.js's slide number shows it
    where: str  # "h.v"
    height: int  # content height in deck pixels
    boxed: int  # outputs on it that scroll inside their own box (taller than the room the slide gives them)
    text: str  # its first words
    words: int = 0  # words of prose outside its notes
    notes: int = 0  # characters of speaker notes
    folded: int = 0  # demo cells shown collapsed
    clipped: tuple[str, ...] = ()  # the first words of each text output, code block or table wider than its column
    font: float = 0.0  # the smallest font of its code, outputs and tables, in deck px (0: none on it)
    diagrams: int = 0  # drawn diagrams (an <svg> with a size)

    @property
    def chapter(self) -> str:
        return self.deck[:2]


def measure_deck(page: Any, deck: Path, shots: Collection[str] = ()) -> list[Slide]:
    """Every slide of ``deck`` with its content height; screenshots of the slides named in ``shots`` ("h.v")."""
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    page.goto(deck.as_uri())
    page.wait_for_function("() => window.Reveal && Reveal.isReady()")
    stem = deck.name.removesuffix(".slides.html")
    out = []
    for n, (h, v) in enumerate(page.evaluate(INDICES), start=1):
        page.evaluate(f"() => Reveal.slide({h}, {v})")
        page.wait_for_function(f"() => {{ const i = Reveal.getIndices(); return i.h === {h} && (i.v || 0) === {v}; }}")
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(null))))")
        m = page.evaluate(MEASURE)
        where = f"{h}.{v}"
        out.append(
            Slide(
                stem,
                n,
                where,
                int(m["height"]),
                int(m["boxed"]),
                m["text"],
                int(m["words"]),
                int(m["notes"]),
                int(m["folded"]),
                tuple(m["clipped"]),
                float(m["font"]),
                int(m["diagrams"]),
            )
        )
        if where in shots:
            page.wait_for_timeout(200)
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / f"slides-fit-{stem[:2]}-{where}.png"))
    return out


def measure(only: list[str] | None = None, browser: Any = None) -> list[Slide]:
    """Every slide of every built deck (or of those whose number prefix is in ``only``)."""
    decks = [d for d in sorted(DECKS.glob("[0-9][0-9]_*.slides.html")) if not only or d.name[:2] in only]
    if not decks:
        raise SystemExit(f"no deck in {DECKS}: run `make slides` first")
    if browser is None:
        with chromium.browser() as b:
            return measure(only, b)
    page = browser.new_page()
    try:
        return [s for d in decks for s in measure_deck(page, d)]
    finally:
        page.close()


def shoot_tallest(browser: Any, slides: list[Slide], n: int) -> None:
    """Screenshots of the ``n`` tallest of ``slides`` (``build/screenshots/slides-fit-NN-h.v.png``)."""
    page = browser.new_page()
    try:
        for s in sorted(slides, key=lambda s: -s.height)[:n]:
            measure_deck(page, DECKS / f"{s.deck}.slides.html", {s.where})
    finally:
        page.close()


def report(slides: list[Slide], limit: int = HEIGHT, worst: int = 10) -> str:
    """Per chapter: slides, how many are over ``limit`` px, the tallest, the most words, the slides without notes,
    the folded demos, the clipped lines, the smallest font and the diagrams; then the ``worst`` tallest overall."""
    head = "slides  over px  tallest  words  no notes  folded demos  clipped  boxed  min font  diagrams"
    lines = [f"{'deck':28} {head}"]

    def row(name: str, mine: list[Slide]) -> str:
        fonts = [s.font for s in mine if s.font]
        return (
            f"{name:28} {len(mine):6}  {sum(s.height > limit for s in mine):7}  {max(s.height for s in mine):7}"
            f"  {max(s.words for s in mine):5}  {sum(not s.notes for s in mine):8}  {sum(s.folded for s in mine):12}"
            f"  {sum(len(s.clipped) for s in mine):7}  {sum(s.boxed for s in mine):5}  {min(fonts or [0]):8.1f}"
            f"  {sum(s.diagrams for s in mine):8}"
        )

    for stem in sorted({s.deck for s in slides}):
        lines.append(row(stem, [s for s in slides if s.deck == stem]))
    lines.append(row("total", slides))
    lines.append("tallest:")
    for s in sorted(slides, key=lambda s: -s.height)[:worst]:
        lines.append(f"  {s.chapter} slide {s.number:2} ({s.where}) {s.height:5} px  {s.boxed} boxed  {s.text}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("only", nargs="*", help="deck number prefixes (default: all)")
    ap.add_argument("--shots", type=int, default=0, help="screenshot the N tallest slides")
    args = ap.parse_args(argv)
    with chromium.browser() as b:
        slides = measure(args.only or None, b)
        print(report(slides))
        shoot_tallest(b, slides, args.shots)
    return 0


if __name__ == "__main__":
    sys.exit(main())
