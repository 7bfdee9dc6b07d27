"""The demo tool set: a tiny, deterministic project to read and a calculator, for the chapters and tests.

This module owns the demo tools:

* an in-memory file system (``DEMO_FILES``, a small Python project) read by
  ``read_file(path)``, ``list_dir(path)`` and ``grep(pattern, path)``;
* ``calculator(expression)``, which parses with ``ast`` and evaluates numbers and
  ``+ - * / // % **`` and parentheses only: no names, calls or attributes are ever evaluated;
* ``demo_registry(files)``: the four as a ``msgmodel.core.tools.ToolRegistry``.

Everything is a pure function of its input and the file mapping, so a session replays byte
for byte. How a call runs (``run_tool``) is the core's (``msgmodel.core.tools``).
"""

from __future__ import annotations

import ast
import functools
import math
import operator
import posixpath
import re
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Final

from msgmodel.core.tools import Tool, ToolError, ToolRegistry

__all__ = ["DEMO_FILES", "calculator", "demo_registry", "grep", "list_dir", "read_file"]


# ---------------------------------------------------------------------------------------
# The demo file system
# ---------------------------------------------------------------------------------------

_APP_PY = '''\
"""A tiny HTTP client with retries."""

import time

from src.config import load_config


class FetchError(Exception):
    pass


def fetch(url, session, retries=None):
    config = load_config()
    retries = config["retries"] if retries is None else retries
    for attempt in range(retries):
        response = session.get(url, timeout=config["timeout"])
        if response.status_code < 500:
            return response
        time.sleep(config["backoff"] * 2**attempt)
    raise FetchError(f"{url}: gave up after {retries} attempts")
'''

_CONFIG_PY = '''\
"""Configuration, read from the environment with defaults."""

import os

DEFAULTS = {"timeout": 10, "retries": 3, "backoff": 0.5}


def load_config():
    config = dict(DEFAULTS)
    if "APP_TIMEOUT" in os.environ:
        config["timeout"] = int(os.environ["APP_TIMEOUT"])
    if "APP_RETRIES" in os.environ:
        config["retries"] = os.environ["APP_RETRIES"]  # TODO: int()
    return config
'''

_TEST_APP_PY = """\
from src.app import FetchError, fetch


class FakeSession:
    def __init__(self, codes):
        self.codes = list(codes)

    def get(self, url, timeout):
        return type("Response", (), {"status_code": self.codes.pop(0)})()


def test_fetch_retries_then_succeeds(monkeypatch):
    monkeypatch.setattr("time.sleep", lambda s: None)
    assert fetch("http://x", FakeSession([503, 200])).status_code == 200


def test_fetch_gives_up(monkeypatch):
    monkeypatch.setattr("time.sleep", lambda s: None)
    try:
        fetch("http://x", FakeSession([503, 503, 503]))
    except FetchError as e:
        assert "3 attempts" in str(e)
"""

_README = """\
# fetcher

A tiny HTTP client with retries and exponential backoff.

Configuration comes from the environment:

* `APP_TIMEOUT`: seconds per request (default 10)
* `APP_RETRIES`: attempts before giving up (default 3)

Run the tests with `pytest -q`.
"""

_SETUP_CFG = """\
[metadata]
name = fetcher
version = 0.3.1

[options]
packages = find:
python_requires = >=3.10

[tool:pytest]
testpaths = tests
"""

DEMO_FILES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "README.md": _README,
        "setup.cfg": _SETUP_CFG,
        "src/app.py": _APP_PY,
        "src/config.py": _CONFIG_PY,
        "tests/test_app.py": _TEST_APP_PY,
    }
)
"""The demo project: path (POSIX, relative, no leading ``./``) to file text."""

_GREP_LIMIT: Final = 50


def _norm(path: str, tool: str) -> str:
    """A path as a key of the file mapping: relative, normalized, ``""`` for the root."""
    p = posixpath.normpath(path.strip() or ".")
    if p.startswith("/") or p == ".." or p.startswith("../"):
        raise ToolError(f"{tool}: `{path}` is outside the project; paths are relative to its root")
    return "" if p == "." else p


def _is_dir(key: str, files: Mapping[str, str]) -> bool:
    return key == "" or any(f.startswith(key + "/") for f in files)


def read_file(path: str, *, files: Mapping[str, str] = DEMO_FILES) -> str:
    """The text of the file at ``path``."""
    key = _norm(path, "read_file")
    if key in files:
        return files[key]
    if _is_dir(key, files):
        raise ToolError(f"read_file: `{path}` is a directory; use list_dir")
    raise ToolError(f"read_file: no such file: `{path}`")


def list_dir(path: str = ".", *, files: Mapping[str, str] = DEMO_FILES) -> str:
    """The entries directly under ``path``, one a line, sorted; directories end with ``/``."""
    key = _norm(path, "list_dir")
    if key in files:
        raise ToolError(f"list_dir: `{path}` is a file; use read_file")
    if not _is_dir(key, files):
        raise ToolError(f"list_dir: no such directory: `{path}`")
    prefix = key + "/" if key else ""
    entries = set()
    for f in files:
        if f.startswith(prefix):
            head, sep, _ = f[len(prefix) :].partition("/")
            entries.add(head + sep)
    return "\n".join(sorted(entries))


def grep(pattern: str, path: str = ".", *, files: Mapping[str, str] = DEMO_FILES) -> str:
    """Lines matching the regular expression ``pattern`` in the file or directory ``path``.

    One match a line as ``path:line: text``, files in sorted order, at most 50 lines
    (a last line says how many more); ``no matches`` when there are none.
    """
    try:
        regex = re.compile(pattern)
    except re.error as e:
        raise ToolError(f"grep: invalid regular expression `{pattern}`: {e}") from None
    key = _norm(path, "grep")
    if key in files:
        targets = [key]
    elif _is_dir(key, files):
        prefix = key + "/" if key else ""
        targets = sorted(f for f in files if f.startswith(prefix))
    else:
        raise ToolError(f"grep: no such file or directory: `{path}`")
    hits = [
        f"{f}:{n}: {line}"
        for f in targets
        for n, line in enumerate(files[f].splitlines(), start=1)
        if regex.search(line)
    ]
    if not hits:
        return "no matches"
    if len(hits) > _GREP_LIMIT:
        return "\n".join([*hits[:_GREP_LIMIT], f"... {len(hits) - _GREP_LIMIT} more matches"])
    return "\n".join(hits)


# ---------------------------------------------------------------------------------------
# The calculator
# ---------------------------------------------------------------------------------------

_BINARY: Final[Mapping[type[ast.operator], Callable[[Any, Any], Any]]] = MappingProxyType(
    {
        ast.Add: operator.add,
        ast.Sub: operator.sub,
        ast.Mult: operator.mul,
        ast.Div: operator.truediv,
        ast.FloorDiv: operator.floordiv,
        ast.Mod: operator.mod,
        ast.Pow: operator.pow,
    }
)
_UNARY: Final[Mapping[type[ast.unaryop], Callable[[Any], Any]]] = MappingProxyType(
    {ast.UAdd: operator.pos, ast.USub: operator.neg}
)
_EXPRESSION_LIMIT: Final = 200
_RESULT_BITS_LIMIT: Final = 4096
_ALLOWED: Final = "numbers, + - * / // % ** and parentheses"


def _refuse(node: ast.AST) -> ToolError:
    match node:
        case ast.Name():
            what = f"names are not allowed (found `{node.id}`)"
        case ast.Attribute():
            what = f"attribute access is not allowed (found `.{node.attr}`)"
        case ast.Call():
            what = "function calls are not allowed"
        case ast.Constant():
            what = f"only numbers are allowed (found {type(node.value).__name__} {node.value!r})"
        case _:
            what = f"`{type(node).__name__}` is not allowed"
    return ToolError(f"calculator: {what}; use {_ALLOWED}")


def _power(base: int | float, exponent: int | float) -> int | float:
    big = isinstance(base, int) and isinstance(exponent, int) and abs(base) > 1
    if big and exponent * math.log2(abs(base)) > _RESULT_BITS_LIMIT:
        raise ToolError(f"calculator: result too large ({base} ** {exponent})")
    result: int | float = operator.pow(base, exponent)
    if isinstance(result, complex):
        raise ToolError(f"calculator: ({base}) ** ({exponent}) is not a real number")
    return result


def _evaluate(node: ast.AST) -> int | float:
    match node:
        case ast.Expression():
            return _evaluate(node.body)
        case ast.Constant(value=bool()):
            raise _refuse(node)
        case ast.Constant(value=int() | float() as value):
            return value
        case ast.UnaryOp() if type(node.op) in _UNARY:
            signed: int | float = _UNARY[type(node.op)](_evaluate(node.operand))
            return signed
        case ast.BinOp() if type(node.op) in _BINARY:
            left, right = _evaluate(node.left), _evaluate(node.right)
            if isinstance(node.op, ast.Pow):
                return _power(left, right)
            result: int | float = _BINARY[type(node.op)](left, right)
            return result
        case _:
            raise _refuse(node)


def calculator(expression: str) -> str:
    """The value of an arithmetic expression, e.g. ``"(3 + 4) * 2 ** 3"`` → ``"56"``.

    Parsed with ``ast``; only numbers and ``+ - * / // % **`` with parentheses are
    evaluated. Anything else (names, calls, attributes, strings) is refused with a
    ``ToolError`` saying what was found.
    """
    if len(expression) > _EXPRESSION_LIMIT:
        raise ToolError(f"calculator: expression longer than {_EXPRESSION_LIMIT} characters")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as e:
        raise ToolError(f"calculator: not an arithmetic expression: {e.msg}") from None
    try:
        value = _evaluate(tree)
    except ZeroDivisionError:
        raise ToolError(f"calculator: division by zero in `{expression}`") from None
    except OverflowError:
        raise ToolError(f"calculator: result too large in `{expression}`") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise ToolError(f"calculator: result is not finite in `{expression}`")
    if isinstance(value, int) and value.bit_length() > _RESULT_BITS_LIMIT:
        raise ToolError(f"calculator: result too large in `{expression}`")
    return str(value)


def _string_schema(**fields: str) -> dict[str, Any]:
    """A JSON schema for an object of string fields; ``fields`` maps name to description."""
    return {
        "type": "object",
        "properties": {name: {"type": "string", "description": doc} for name, doc in fields.items()},
        "required": list(fields),
        "additionalProperties": False,
    }


def demo_registry(files: Mapping[str, str] = DEMO_FILES) -> ToolRegistry:
    """The four demo tools, the file tools reading ``files``."""
    grep_schema = _string_schema(
        pattern="A Python regular expression.", path="A file or directory; `.` for the whole project."
    )
    grep_schema["required"] = ["pattern"]
    return ToolRegistry(
        [
            Tool(
                "read_file",
                "Read a file of the project and return its text.",
                _string_schema(path="Path relative to the project root, e.g. `src/app.py`."),
                functools.partial(read_file, files=files),
            ),
            Tool(
                "list_dir",
                "List the entries of a project directory; directories end with `/`.",
                _string_schema(path="Directory relative to the project root; `.` for the root."),
                functools.partial(list_dir, files=files),
            ),
            Tool(
                "grep",
                "Search the project's files for lines matching a regular expression.",
                grep_schema,
                functools.partial(grep, files=files),
            ),
            Tool(
                "calculator",
                "Evaluate an arithmetic expression: numbers, + - * / // % ** and parentheses.",
                _string_schema(expression="For example `(3 + 4) * 2 ** 3`."),
                calculator,
            ),
        ]
    )
