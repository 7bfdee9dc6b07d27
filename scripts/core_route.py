"""Print the series' core route, or write it into the README between its markers.

    python scripts/core_route.py                  # print the route (chapter, careful minutes, core sections)
    python scripts/core_route.py --write-readme   # rewrite the README block <!-- core-route --> … <!-- /core-route -->

The route is ``msgmodel.course.route.core_route()``, measured on the built notebooks
``notebooks/NN_*.ipynb`` (cells tagged ``core``, with their committed outputs) by the careful
reading model; ``tests/test_core_route.py`` checks that the README shows the same table.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from msgmodel.course.route import core_route  # noqa: E402

README = ROOT / "README.md"
BLOCK = re.compile(r"(<!-- core-route -->\n)(?:.*?\n)?(<!-- /core-route -->)", re.S)


def readme_with_route(text: str, table: str) -> str:
    """The README text with the block between the markers replaced by ``table``."""
    if not BLOCK.search(text):
        raise SystemExit("README.md has no <!-- core-route --> … <!-- /core-route --> block")
    return BLOCK.sub(lambda m: m[1] + table + "\n" + m[2], text, count=1)


def main(argv: list[str]) -> int:
    route = core_route(ROOT / "notebooks")
    if "--write-readme" in argv:
        text = README.read_text(encoding="utf-8")
        new = readme_with_route(text, route.markdown())
        if new != text:
            README.write_text(new, encoding="utf-8")
            print(f"README.md: core route updated (total {route.total} min)")
        else:
            print("README.md: core route already up to date")
        return 0
    print(route)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
