"""A tiny, deterministic tool set for demos and tests: what an agent loop runs between model calls.

This module owns the demo tools and how a ``tool_use`` becomes a ``tool_result``:

* an in-memory file system (``DEMO_FILES``, a small Python project) read by
  ``read_file(path)``, ``list_dir(path)`` and ``grep(pattern, path)``;
* ``calculator(expression)``, which parses with ``ast`` and evaluates numbers and
  ``+ - * / // % **`` and parentheses only: no names, calls or attributes are ever evaluated;
* ``Tool`` (a name, a description, the JSON schema of its input, a function) and
  ``ToolRegistry``, an immutable mapping of name to ``Tool``;
* ``run_tool(registry, call)``: one ``ToolUseBlock`` in, one ``ToolResultBlock`` out, built
  with ``tool_result_block``. A tool that raises gives an ``is_error`` result whose text
  says what went wrong; ``run_tool`` itself never raises for a bad call;
* ``tools_param(registry)``: the ``tools=`` list of the Messages API.

Everything is a pure function of its input and the file mapping, so a session replays byte
for byte.
"""

from __future__ import annotations

import ast
import copy
import functools
import math
import operator
import posixpath
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

from msgmodel.message import ToolResultBlock, ToolUseBlock, tool_result_block

__all__ = [
    "DEMO_FILES",
    "Tool",
    "ToolError",
    "ToolRegistry",
    "calculator",
    "demo_registry",
    "grep",
    "list_dir",
    "read_file",
    "run_tool",
    "tools_param",
]


class ToolError(Exception):
    """A tool could not do what was asked. ``str(err)`` is what the model reads in the ``is_error`` result."""


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


# ---------------------------------------------------------------------------------------
# Tools and the registry
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tool:
    """One tool: what the model is told (``name``, ``description``, ``input_schema``) and what runs.

    ``run`` is called with the ``tool_use`` input as keyword arguments and returns the
    result text; it raises (``ToolError`` preferably) when it cannot.
    """

    name: str
    description: str
    input_schema: Mapping[str, Any]
    run: Callable[..., str]


class ToolRegistry(Mapping[str, Tool]):
    """An immutable mapping of tool name to ``Tool``, in the order given."""

    __slots__ = ("_tools",)
    _tools: Mapping[str, Tool]

    def __init__(self, tools: Iterable[Tool]) -> None:
        by_name: dict[str, Tool] = {}
        for t in tools:
            if t.name in by_name:
                raise ValueError(f"two tools named `{t.name}`")
            by_name[t.name] = t
        object.__setattr__(self, "_tools", MappingProxyType(by_name))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("ToolRegistry is immutable")

    def __getitem__(self, name: str) -> Tool:
        return self._tools[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._tools)

    def __len__(self) -> int:
        return len(self._tools)

    def __hash__(self) -> int:
        return hash(tuple(self._tools))

    def __repr__(self) -> str:
        return f"ToolRegistry({list(self._tools)})"


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


_JSON_TYPES: Final[Mapping[str, tuple[type, ...]]] = MappingProxyType(
    {
        "string": (str,),
        "integer": (int,),
        "number": (int, float),
        "boolean": (bool,),
        "object": (dict,),
        "array": (list,),
    }
)


def _check_input(tool: Tool, args: Mapping[str, Any]) -> None:
    """Refuse input that does not fit the tool's (flat) schema, saying which argument and why."""
    schema = tool.input_schema
    properties: Mapping[str, Any] = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in args:
            raise ToolError(f"{tool.name}: missing required argument `{name}`")
    for name, value in args.items():
        spec = properties.get(name)
        if spec is None:
            if schema.get("additionalProperties", True) is False:
                known = ", ".join(f"`{p}`" for p in properties) or "none"
                raise ToolError(f"{tool.name}: unexpected argument `{name}` (arguments: {known})")
            continue
        expected = _JSON_TYPES.get(spec.get("type", ""))
        wrong_bool = isinstance(value, bool) and spec.get("type") in ("integer", "number")
        if expected is not None and (not isinstance(value, expected) or wrong_bool):
            raise ToolError(f"{tool.name}: argument `{name}` must be of type {spec['type']}")


def run_tool(registry: Mapping[str, Tool], call: ToolUseBlock) -> ToolResultBlock:
    """Run one tool call and answer it. Never raises for a bad call: failures become ``is_error`` results.

    An unknown tool, input that does not fit the schema, or an exception from the tool
    gives ``tool_result_block(call.id, <what went wrong>, is_error=True)``.
    """
    tool = registry.get(call.name)
    if tool is None:
        known = ", ".join(registry) or "none"
        return tool_result_block(call.id, f"unknown tool `{call.name}` (tools: {known})", is_error=True)
    try:
        _check_input(tool, call.input)
        output: object = tool.run(**call.input)
    except ToolError as e:
        return tool_result_block(call.id, str(e), is_error=True)
    except Exception as e:  # a tool's bug is the model's failed call, not the loop's crash
        return tool_result_block(call.id, f"{call.name} failed: {type(e).__name__}: {e}", is_error=True)
    if not isinstance(output, str):
        return tool_result_block(call.id, f"{call.name} returned {type(output).__name__}, not text", is_error=True)
    return tool_result_block(call.id, output)


def tools_param(registry: Mapping[str, Tool]) -> list[dict[str, Any]]:
    """The Messages API ``tools=`` list: name, description and input schema of each tool (fresh copies)."""
    return [
        {"name": t.name, "description": t.description, "input_schema": copy.deepcopy(dict(t.input_schema))}
        for t in registry.values()
    ]
