"""The README's example runs and prints what the README says it prints."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_readme_example_prints_what_it_promises() -> None:
    text = README.read_text()
    code = re.search(r"## The package in a dozen lines\n\n```python\n(.*?)```", text, re.S)
    shown = re.search(r"\nprints\n\n```text\n(.*?)```", text, re.S)
    assert code and shown, "the README's example or its output block moved"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code.group(1), "README.md", "exec"), {})
    assert out.getvalue() == shown.group(1)
