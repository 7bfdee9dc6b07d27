"""Debian's Chromium, headless, as every script and browser test here drives it.

``/usr/bin/chromium`` (or ``$CHROMIUM``), never a downloaded browser; the flags keep it from
reaching the network on its own (updates, sync, background fetches). ``browser()`` is the
Playwright browser the browser tests and ``measure_slides`` use; ``build_cheatsheet`` runs the
same binary with the same flags to print a PDF.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
HEADLESS_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
MISSING = f"{CHROMIUM} not found: `apt-get install -y chromium` (Debian's package; make test-browser installs it)"


def is_installed() -> bool:
    return Path(CHROMIUM).exists()


@contextmanager
def browser() -> Iterator[Any]:
    """A headless Playwright browser on the system's Chromium; ``SystemExit`` when it is missing."""
    if not is_installed():
        raise SystemExit(MISSING)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=HEADLESS_ARGS)
        try:
            yield b
        finally:
            b.close()
