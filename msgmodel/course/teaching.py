"""Helpers the notebook series shares: two texts side by side, and mypy run on a snippet.

This module owns the little machinery several chapters need to *show* something, so that no
notebook defines it again: ``side_by_side`` lays two texts out in columns (an HTML table in
Jupyter, aligned plain text on GitHub and in nbval), ``abridged`` shortens a transcript for such a
column (each block's first lines, the rest counted), and ``type_check`` runs ``mypy --strict`` on
snippets in a scratch folder and returns what mypy says with short, stable file names.

The scratch folder of each run is private (``tempfile.mkdtemp``: mode 0700, a name no one
can guess) and removed afterwards; module names must be plain identifiers, so no file is
written anywhere else. mypy's cache lives in the user's own cache folder
(``$XDG_CACHE_HOME/msgmodel/mypy`` or ``~/.cache/msgmodel/mypy``), never in a shared
folder of a predictable name, so another user of the machine can neither plant links in
it nor read it; if that folder cannot be made, a private one per process is used.

It also re-exports, for the chapters, ``live_api_agreement`` (``msgmodel.course.live_api``: the
validator beside the live API's public captures) and ``core_route`` (``msgmodel.course.route``:
the 90-minute route through the series).
"""

from __future__ import annotations

import ast
import contextlib
import html
import itertools
import keyword
import os
import re
import shutil
import tempfile
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from msgmodel.course.live_api import live_api_agreement
from msgmodel.course.route import core_route

__all__ = [
    "MypyReport",
    "SideBySide",
    "abridged",
    "core_route",
    "live_api_agreement",
    "mypy_ini",
    "side_by_side",
    "type_check",
]

_SOURCE_TREE: Final = Path(__file__).resolve().parents[2]


def mypy_ini(*settings: str) -> str:
    """A ``mypy.ini`` for a scratch check that imports ``msgmodel``: ``settings``, and where msgmodel's source is.

    From a checkout (an editable install, which hides the package from mypy) the source tree goes on
    ``mypy_path``; an installed msgmodel (site-packages, as in a class image) mypy finds by itself, and
    mypy refuses a site-packages folder on ``mypy_path`` (the class test found a chapter 03 check failing so).
    """
    lines = ["[mypy]", *settings]
    if _SOURCE_TREE.name not in ("site-packages", "dist-packages"):
        lines.append(f"mypy_path = {_SOURCE_TREE}")
    return "\n".join(lines) + "\n"


_cache_dir: Path | None = None


def _mypy_cache() -> Path:
    """mypy's cache folder: the user's own (kept warm across runs and kernels), else a private one for this process."""
    global _cache_dir
    if _cache_dir is None:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        folder = base / "msgmodel" / "mypy"
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            usable = folder.is_dir() and not folder.is_symlink() and os.access(folder, os.W_OK)
        except OSError:
            usable = False
        _cache_dir = folder if usable else Path(tempfile.mkdtemp(prefix="msgmodel-mypy-cache-"))
    return _cache_dir


def _check_module_name(name: object) -> str:
    """A module name ``type_check`` may write as ``<name>.py``: a plain Python identifier, nothing else."""
    if not isinstance(name, str) or not (name.isascii() and name.isidentifier()) or keyword.iskeyword(name):
        raise ValueError(
            f"type_check: module name {name!r} is not a plain Python identifier (letters, digits, _; "
            "no dots, slashes or keywords)"
        )
    return name


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


def abridged(transcript: str, keep: int = 2) -> str:
    """A transcript for display: each message or block keeps its first ``keep`` lines; the others are counted.

    A line that starts a message (``User:``, ``Assistant:``) or a block (``[``) starts a new run.
    """
    out: list[str] = []
    run: list[str] = []
    for line in [*transcript.splitlines(), "[end]"]:
        if line.lower().startswith(("user:", "assistant:", "[")):  # a new message or block starts
            out += run if len(run) <= keep + 1 else [*run[:keep], f"  ⋮ ({len(run) - keep} more lines)", ""]
            out, run = [*out, line], []
        else:
            run.append(line)
    return "\n".join(out[:-1])


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
    function each error is in (``snippet.py:5 in tool_name(): ...``). Module names must be
    plain identifiers (``ValueError`` otherwise: no ``../``, dots or slashes).
    """
    import mypy.api  # a development dependency: imported only when a chapter asks

    modules = {"snippet": snippets} if isinstance(snippets, str) else dict(snippets)
    sources = {_check_module_name(name): textwrap.dedent(code) for name, code in modules.items()}
    args = ["--config-file", "mypy.ini", "--no-color-output", "--cache-dir", str(_mypy_cache())]
    # A fresh private folder per run: the cache never answers for old code, and no one else can write there.
    run = Path(tempfile.mkdtemp(prefix="msgmodel-type-check-"))
    try:
        for name, code in sources.items():
            (run / f"{name}.py").write_text(code)
        (run / "mypy.ini").write_text(mypy_ini("strict = True"))
        with contextlib.chdir(run):
            out, err, _ = mypy.api.run([*args, *(f"{n}.py" for n in sources)])
    finally:
        shutil.rmtree(run, ignore_errors=True)
    lines = []
    for line in (out + err).strip().splitlines():
        m = re.match(r"(\w+)\.py:(\d+): (error|note): (.*)", line)
        if m and functions and m[1] in sources:
            line = f"{m[1]}.py:{m[2]} in {_function_at(sources[m[1]], int(m[2]))}(): {m[3]}: {m[4]}"
        lines.append(line)
    return MypyReport("\n".join(lines))
