"""The README's "Point your own agent at it" snippets run against ``serve`` and print what they promise."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
README_URL = "http://127.0.0.1:8765"


def section() -> str:
    text = README.read_text()
    found = re.search(r"\n## Point your own agent at it\n(.*?)\n## ", text, re.S)
    assert found, "the README's section moved"
    return found.group(1)


def snippets() -> list[str]:
    return re.findall(r"```python\n(.*?)```", section(), re.S)


def run(code: str, base_url: str) -> str:
    assert README_URL in code
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code.replace(README_URL, base_url), "README.md", "exec"), {})
    return out.getvalue()


@pytest.mark.parametrize("index", [0, 1])
def test_the_readme_clients_print_what_their_comments_say(base_url: str, index: int) -> None:
    code = snippets()[index]
    promised = re.findall(r"print\(.*\)  # (.*)", code)
    assert promised
    assert run(code, base_url).splitlines() == promised


def test_the_readme_trimming_example_prints_the_api_words(base_url: str) -> None:
    shown = re.search(r"\nprints\n\n```text\n(.*?)```", section(), re.S)
    assert shown
    assert run(snippets()[2], base_url) == shown.group(1)
