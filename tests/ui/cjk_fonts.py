"""Which fonts Chromium really drew a page's Chinese with: no tofu boxes.

``rendered_fonts`` asks Chromium itself, through the DevTools protocol (``CSS.getPlatformFontsForNode``),
which platform fonts drew the text of the elements a selector matches, and how many glyphs each drew.
A Chinese page is read right only when a CJK face (Debian's fonts-noto-cjk: ``Noto Sans CJK SC``)
drew its Chinese; with no such font installed Chromium draws boxes with whatever face comes first.
``document.fonts`` would not tell: it lists web fonts, not the system's.
"""

from __future__ import annotations

import re
from typing import Any

CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def rendered_fonts(page: Any, selector: str, frame_url: str | None = None) -> dict[str, int]:
    """Font family → glyphs drawn, over the elements ``selector`` matches (at most 20) in the page.

    ``frame_url``: a substring of the URL of the frame to look in (its own document), else the page's.
    """
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})["root"]
        if frame_url is not None:
            root = _frame_document(root, frame_url)
        ids = cdp.send("DOM.querySelectorAll", {"nodeId": root["nodeId"], "selector": selector})["nodeIds"]
        used: dict[str, int] = {}
        for node in ids[:20]:
            for font in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]:
                used[font["familyName"]] = used.get(font["familyName"], 0) + int(font["glyphCount"])
        return used
    finally:
        cdp.detach()


def _frame_document(node: dict[str, Any], url: str) -> dict[str, Any]:
    if node.get("contentDocument") and url in node["contentDocument"].get("documentURL", ""):
        return dict(node["contentDocument"])
    for child in [*node.get("children", []), *([node["contentDocument"]] if node.get("contentDocument") else [])]:
        try:
            return _frame_document(child, url)
        except LookupError:
            continue
    raise LookupError(f"no frame whose URL holds {url!r}")


def cjk_glyphs(used: dict[str, int]) -> int:
    """Glyphs drawn by a CJK face (``Noto Sans CJK SC``, ``Noto Serif CJK SC``, …)."""
    return sum(n for family, n in used.items() if "CJK" in family)
