"""How tall each static slide is: build/slides/NN_*.slides.html opened at 1280×800 in Chromium.

Every deck is opened from disk in Debian's headless Chromium (``/usr/bin/chromium`` or ``$CHROMIUM``,
driven by Playwright; nothing is downloaded), every slide is shown in turn with ``Reveal.slide(h, v)``
and the height of its content is read: the ``scrollHeight`` of the slide's ``<section>``, in the
deck's own pixels (the deck is 1280×800; reveal.js scales it to the window). A slide over 800 px
does not fit the screen and scrolls. An output that scrolls inside its own box (the template caps
outputs) is counted as "boxed". Collapsed ``<details>`` count as closed (as a class first sees
them). The test that holds the bound is tests/ui/test_slide_fit.py.

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
# the slide on screen: its content height, how many of its outputs scroll in their own box, its first words
MEASURE = """() => {
  const s = Reveal.getCurrentSlide();
  const boxed = [...s.querySelectorAll('.jp-OutputArea-output')].filter(o => o.scrollHeight > o.clientHeight + 2);
  return {height: s.scrollHeight, boxed: boxed.length, text: s.innerText.trim().replace(/\\s+/g, ' ').slice(0, 60)};
}"""


@dataclass(frozen=True)
class Slide:
    deck: str  # the deck's file stem, e.g. "07_tradeoffs_and_next"
    number: int  # 1-based, as reveal.js's slide number shows it
    where: str  # "h.v"
    height: int  # content height in deck pixels
    boxed: int  # outputs on it that scroll inside their own box (taller than the room the slide gives them)
    text: str  # its first words

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
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => r(null)))")
        m = page.evaluate(MEASURE)
        where = f"{h}.{v}"
        out.append(Slide(stem, n, where, int(m["height"]), int(m["boxed"]), m["text"]))
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
    """Per chapter: slides, how many are over ``limit`` px, the tallest; then the ``worst`` tallest overall."""
    lines = [f"{'deck':32} slides  over {limit}px  tallest  boxed outputs"]
    for stem in sorted({s.deck for s in slides}):
        mine = [s for s in slides if s.deck == stem]
        over = sum(s.height > limit for s in mine)
        boxed = sum(s.boxed for s in mine)
        lines.append(f"{stem:32} {len(mine):6}  {over:11}  {max(s.height for s in mine):7}  {boxed:13}")
    total_over = sum(s.height > limit for s in slides)
    lines.append(f"{'total':32} {len(slides):6}  {total_over:11}  {'':7}  {sum(s.boxed for s in slides):13}")
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
