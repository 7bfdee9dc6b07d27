"""Every static slide fits a 1280×800 screen: no slide of any chapter's deck scrolls.

``scripts/build_slides.py`` builds every deck; ``scripts/measure_slides.py`` opens each one from disk
in Chromium at 1280×800, shows every slide with ``Reveal.slide(h, v)`` and reads the height of its
content. Before the decks were fitted, 34 of 109 slides were taller than 800 px (the tallest, a
175-line setup cell of chapter 07, 4022 px). Screenshots of the three tallest slides:
``build/screenshots/slides-fit-NN-h.v.png``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import build_slides
import measure_slides
import pytest

pytestmark = pytest.mark.ui

LIMIT = measure_slides.HEIGHT  # px: the deck's height
# slides allowed over LIMIT, by "NN h.v", each with its reason; none today
TALL_ALLOWED: dict[str, str] = {}
BOXED_MAX = 16  # outputs that scroll inside their own box (11 when this was written): a table or transcript too long


def test_every_static_slide_fits_the_screen(browser: Any, screenshots: Path) -> None:
    counts = build_slides.build()
    slides = measure_slides.measure(browser=browser)
    print("\n" + measure_slides.report(slides))
    for deck, n in counts.items():
        walked = [s for s in slides if f"{s.deck}.slides.html" == deck]
        assert len(walked) == n, f"{deck}: walked {len(walked)} slides of {n}"
    assert all(s.height > 0 and s.text for s in slides), "an empty slide"
    tall = [s for s in slides if s.height > LIMIT and f"{s.chapter} {s.where}" not in TALL_ALLOWED]
    measure_slides.shoot_tallest(browser, slides, 3)
    assert not tall, "slides taller than the screen:\n" + "\n".join(
        f"{s.chapter} slide {s.number} ({s.where}): {s.height} px  {s.text}" for s in tall
    )
    boxed = sum(s.boxed for s in slides)
    assert boxed <= BOXED_MAX, f"{boxed} outputs scroll in their own box (at most {BOXED_MAX})"
