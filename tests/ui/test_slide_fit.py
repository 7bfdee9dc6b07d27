"""Every static slide is made for a projector: the issue's acceptance test, over every chapter's deck.

``scripts/build_slides.py`` builds every deck; ``scripts/measure_slides.py`` opens each one from disk
in Chromium at 1280×800, shows every slide with ``Reveal.slide(h, v)`` and reads, after the template
has fitted it: its height, the words of prose outside its notes, its notes, its folded demo cells,
its clipped lines, its outputs in a scroll box, the smallest font of its code and tables, and its
drawn diagrams. Every slide must fit the screen, hold at most ``WORDS_MAX`` words of prose, have
speaker notes, show every demo cell unfolded, clip no line and box no output; chapter 00's
four-message diagram must be drawn (an ``<svg>`` with a size) on its slide. Before the decks were
made for a projector: 118 slides, up to 347 words on one, no notes, 30 folded code cells (the named
demos among them), lines clipped on the right, an evidence table in a scroll box, and the diagram as
raw mermaid text. Screenshots of the three tallest slides: ``build/screenshots/slides-fit-NN-h.v.png``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import build_slides
import diagrams
import measure_slides
import pytest

pytestmark = pytest.mark.ui

LIMIT = measure_slides.HEIGHT  # px: the deck's height
MIN_FONT = 12.5  # px on the 1280×800 canvas: the smallest code or table font a slide may shrink to (0.7 × 18 px)


def test_every_static_slide_is_made_for_a_projector(browser: Any, screenshots: Path) -> None:
    counts = build_slides.build()
    slides = measure_slides.measure(browser=browser)
    print("\n" + measure_slides.report(slides))
    for deck, n in counts.items():
        walked = [s for s in slides if f"{s.deck}.slides.html" == deck]
        assert len(walked) == n, f"{deck}: walked {len(walked)} slides of {n}"
    measure_slides.shoot_tallest(browser, slides, 3)

    def bad(test: Any, what: str) -> str:
        found = [f"{s.chapter} slide {s.number} ({s.where}): {what.format(s=s)}  {s.text}" for s in slides if test(s)]
        return "\n".join(found)

    assert all(s.height > 0 and s.text for s in slides), "an empty slide"
    assert not bad(lambda s: s.height > LIMIT, ""), "taller than the screen:\n" + bad(
        lambda s: s.height > LIMIT, "{s.height} px"
    )
    wordy = bad(lambda s: s.words > build_slides.WORDS_MAX, "{s.words} words")
    assert not wordy, f"over {build_slides.WORDS_MAX} words of prose outside the notes:\n{wordy}"
    assert not bad(lambda s: not s.notes, ""), "no speaker notes:\n" + bad(lambda s: not s.notes, "")
    assert not bad(lambda s: s.folded, ""), "a folded demo:\n" + bad(lambda s: s.folded, "{s.folded}")
    assert not bad(lambda s: s.clipped, ""), "clipped lines:\n" + bad(lambda s: s.clipped, "{s.clipped}")
    assert not bad(lambda s: s.boxed, ""), "an output in a scroll box:\n" + bad(lambda s: s.boxed, "{s.boxed}")
    small = bad(lambda s: 0 < s.font < MIN_FONT, "{s.font} px")
    assert not small, f"code or a table under {MIN_FONT} px:\n{small}"
    # every diagram of the chapters is drawn on its deck: chapter 00 has the four-message sequence
    drawn = {s.chapter: 0 for s in slides}
    for s in slides:
        drawn[s.chapter] += s.diagrams
    assert drawn["00"] >= 1, "chapter 00's diagram is not drawn on its slide"
    assert sum(drawn.values()) >= len(diagrams.all_fences())
