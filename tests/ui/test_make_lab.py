"""``make lab`` (``scripts/lab.py``): the repository root served, chapter 00 opened, every chapter link alive.

Starts ``scripts/lab.py`` itself, as a learner's ``make lab`` does (with throw-away Jupyter
config, data and runtime directories and no browser), then reads through the Lab contents
API: the printed URL opens chapter 00, and every relative link of every chapter's markdown
(into ``docs/``, ``bench/``, other chapters) names a file the server has.
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from lab_server import running_lab

pytestmark = pytest.mark.ui

ROOT = Path(__file__).resolve().parents[2]

LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.fixture(scope="module")
def make_lab() -> Iterator[tuple[str, str, str]]:
    with running_lab("uitesttoken") as lab:
        yield lab.base, lab.token, lab.output()


def _get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


def test_the_printed_url_opens_chapter_00(make_lab: tuple[str, str, str]) -> None:
    base, token, output = make_lab
    url = f"{base}/lab/tree/notebooks/00_start_here.ipynb?token={token}"
    assert f"The series (chapter 00): {url}" in output
    assert _get(url) == 200
    assert _get(f"{base}/api/contents/notebooks/00_start_here.ipynb?token={token}&content=0") == 200


def test_the_printed_chinese_url_opens_the_chinese_chapter_00(make_lab: tuple[str, str, str]) -> None:
    base, token, output = make_lab
    url = f"{base}/lab/tree/notebooks/zh/00_start_here.ipynb?token={token}"
    assert f"中文版（第 00 章）: {url}" in output
    assert _get(url) == 200
    assert _get(f"{base}/api/contents/notebooks/zh/00_start_here.ipynb?token={token}&content=0") == 200


def test_every_chapter_link_resolves_in_lab(make_lab: tuple[str, str, str]) -> None:
    base, token, _ = make_lab
    checked, dead = 0, []
    for nb in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            if cell["cell_type"] != "markdown":
                continue
            for target in LINK.findall("".join(cell["source"])):
                if re.match(r"[a-z]+:", target) or target.startswith("#"):
                    continue
                path = target.split("#", 1)[0]
                rel = os.path.normpath(os.path.join("notebooks", urllib.parse.unquote(path)))
                assert not rel.startswith(".."), f"{nb.name}: {target} leaves the repository"
                checked += 1
                url = f"{base}/api/contents/{urllib.parse.quote(rel)}?token={token}&content=0"
                if _get(url) != 200:
                    dead.append(f"{nb.name}: {target}")
    assert checked >= 10, "the chapters link into docs/ and bench/"
    assert dead == []
