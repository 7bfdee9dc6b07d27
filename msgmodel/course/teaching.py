"""Helpers the notebook series shares: two texts side by side, and mypy run on a snippet.

This module owns the little machinery several chapters need to *show* something, so that no
notebook defines it again: ``side_by_side`` lays two texts out in columns (an HTML table in
Jupyter, aligned plain text on GitHub and in nbval), and ``type_check`` runs ``mypy --strict``
on snippets in a scratch folder and returns what mypy says with short, stable file names.
"""

from __future__ import annotations

import ast
import contextlib
import html
import itertools
import os
import re
import tempfile
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Final

__all__ = ["MypyReport", "SideBySide", "side_by_side", "type_check"]

_SOURCE_TREE: Final = Path(__file__).resolve().parents[2]
# One scratch folder per machine user, reused across runs (mypy's cache stays warm there;
# nbval stops kernels without exit handlers, so a folder per run would pile up in /tmp).
_SCRATCH: Final = Path(tempfile.gettempdir()) / f"msgmodel-type-check-{os.getuid() if hasattr(os, 'getuid') else 0}"
_RUNS = itertools.count(1)


class SideBySide:
    """Two texts in two columns: an HTML table in Jupyter, plain-text columns elsewhere."""

    def __init__(self, left: str, right: str, titles: tuple[str, str], width: int = 58) -> None:
        self.left, self.right, self.titles, self.width = left, right, titles, width

    def _lines(self, text: str) -> list[str]:
        wrap = textwrap.TextWrapper(self.width, subsequent_indent="  ", break_on_hyphens=False)
        return [part for line in text.splitlines() for part in (wrap.wrap(line) or [""])]

    def __repr__(self) -> str:
        left = [self.titles[0], "─" * self.width, *self._lines(self.left)]
        right = [self.titles[1], "─" * self.width, *self._lines(self.right)]
        rows = itertools.zip_longest(left, right, fillvalue="")
        return "\n".join(f"{a:<{self.width}} │ {b}".rstrip() for a, b in rows)

    def _repr_html_(self) -> str:
        cell = '<td style="vertical-align:top;text-align:left"><pre style="white-space:pre-wrap;margin:0">{}</pre></td>'
        head = "".join(f'<th style="text-align:left;width:50%">{html.escape(t)}</th>' for t in self.titles)
        body = "".join(cell.format(html.escape(t)) for t in (self.left, self.right))
        return f'<table style="table-layout:fixed;width:100%"><tr>{head}</tr><tr>{body}</tr></table>'


def side_by_side(left: str, right: str, titles: tuple[str, str], *, width: int = 58) -> SideBySide:
    """Show two texts in columns (``titles`` head the columns)."""
    return SideBySide(left, right, titles, width)


class MypyReport(str):
    """What mypy said, one line per finding (a ``str`` that displays as plain text)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)

    @property
    def clean(self) -> bool:
        """Whether mypy found nothing to report."""
        return self.startswith("Success")


def _function_at(source: str, line: int) -> str:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return "<module>"
    defs = [
        n
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.lineno <= line <= (n.end_lineno or n.lineno)
    ]
    return defs[-1].name if defs else "<module>"


def type_check(snippets: str | Mapping[str, str], *, functions: bool = False) -> MypyReport:
    """Run ``mypy --strict`` on one snippet (or several named modules) and return its report.

    File names in the report are short (``snippet.py:5``) so the output is the same on every
    machine; ``msgmodel`` is importable from the snippets. ``functions=True`` names the
    function each error is in (``snippet.py:5 in tool_name(): ...``).
    """
    import mypy.api  # a development dependency: imported only when a chapter asks

    modules = {"snippet": snippets} if isinstance(snippets, str) else dict(snippets)
    run = _SCRATCH / f"run{os.getpid()}-{next(_RUNS)}"  # a fresh folder: the cache never answers for old code
    run.mkdir(parents=True, exist_ok=True)
    sources = {name: textwrap.dedent(code) for name, code in modules.items()}
    for name, code in sources.items():
        (run / f"{name}.py").write_text(code)
    (run / "mypy.ini").write_text(f"[mypy]\nstrict = True\nmypy_path = {_SOURCE_TREE}\n")
    args = ["--config-file", "mypy.ini", "--no-color-output", "--cache-dir", str(_SCRATCH / "cache")]
    with contextlib.chdir(run):
        out, err, _ = mypy.api.run([*args, *(f"{n}.py" for n in sources)])
    lines = []
    for line in (out + err).strip().splitlines():
        m = re.match(r"(\w+)\.py:(\d+): (error|note): (.*)", line)
        if m and functions and m[1] in sources:
            line = f"{m[1]}.py:{m[2]} in {_function_at(sources[m[1]], int(m[2]))}(): {m[3]}: {m[4]}"
        lines.append(line)
    for path in run.iterdir():
        path.unlink()
    run.rmdir()
    return MypyReport("\n".join(lines))
