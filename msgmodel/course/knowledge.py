"""Where code knows the shape of a content block by hand: a scanner that measures copied knowledge.

This module owns one measurement. ``scan_block_knowledge`` reads Python source with ``ast``
(it never imports what it scans) and reports every *site* that spells out a piece of the
Messages API's block shapes itself, instead of asking ``msgmodel.core.message``. A site is one
of four syntactic kinds (``SITE_KINDS``):

``kind-test``
    a block-kind literal compared: ``b.get("type") == "tool_result"``,
    ``t in ("text", "thinking")``, ``case "tool_use":``, ``case {"type": "text"}:``.
``wire-key``
    a wire field read, written or tested by its string name: ``m["content"]``,
    ``b.get("text", "")``, ``"tool_use_id" in b``.
``block-literal``
    a dict literal whose ``"type"`` names a block kind: ``{"type": "tool_result", ...}``
    (or ``dict(type="tool_result", ...)``).
``message-literal``
    a dict literal with ``"role"`` and ``"content"`` keys: ``{"role": "user", "content": ...}``.

Each site also names the *piece of knowledge* it belongs to (``PIECES``), the question the
code around it answers. Literals are ``build a block`` / ``build a message``. The other
sites take the piece of their function, decided by the block kinds the function tests or
reads fields of (``"text"`` → text; ``"id"``, ``"name"``, ``"input"`` → tool_use;
``"tool_use_id"``, ``"is_error"`` → tool_result; ``"thinking"``, ``"signature"`` →
thinking; ``"role"``, ``"content"``, ``"type"`` → no kind):

* two kinds or more, or a kind test with an ``else`` (``if``/``else``, ``x if … else``,
  ``match``): ``dispatch on the kind`` (the function handles each kind its own way, as a
  renderer or a converter does);
* only tool_result: ``tell a tool result``; only tool_use: ``find tool calls``; only text:
  ``read text``; only thinking: ``read thinking``;
* none: ``walk a message`` (it only reads ``role``, ``content`` or ``type``).

The scan is syntactic, so it is a lower bound with known blind spots: knowledge reached
through a constant (``KIND = "text"; b["type"] == KIND``), ``getattr``, or a helper from
another module is not seen, and an unrelated comparison such as ``mode == "text"`` is
counted. A site is reported once per source line, kind and literal.

A second, stricter scan keeps the package's own rule: ``scan_model_bypasses`` reports every
place that goes *around* the model: ``Message(...)`` called by hand (``construct``) instead of
a constructor, and ``.content`` read by hand (``content-walk``) instead of a reader. Only
``msgmodel/core/message.py`` may do either; a line that does it deliberately says so in a
comment on that line (``# on purpose: …``) and is not reported. It is syntactic too: any
attribute named ``content`` counts (an SDK response's ``.content`` included, which is why such
a line carries its ``# on purpose:`` comment).

A third scan answers chapter 06's question "what does a new block kind cost?" without running
mypy: ``exhaustive_block_matches(folder)`` lists the functions that ``match`` on the block classes
and end in ``assert_never``, the places mypy flags when ``ContentBlock`` gains a member.

``tabulate(sites, rows=..., columns=...)`` counts sites in a cross table (``Table``, shown
as HTML in a notebook and as aligned text elsewhere); ``describe(sites)`` says in a few
lines where each piece of knowledge lives. Paths are reported relative to the scanned
package's parent directory (``msgmodel/course/legacy/engine.py``), never absolute.
"""

from __future__ import annotations

import ast
import html
import importlib.util
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Final, Literal, TypeAlias, get_args

__all__ = [
    "BLOCK_KINDS",
    "PIECES",
    "SITE_KINDS",
    "WIRE_KEYS",
    "Axis",
    "Bypass",
    "KnowledgeSite",
    "Piece",
    "ScanError",
    "SiteKind",
    "Table",
    "bypasses_in",
    "describe",
    "exhaustive_block_matches",
    "model_imports",
    "scan_block_knowledge",
    "scan_model_bypasses",
    "scan_source",
    "tabulate",
]

SiteKind: TypeAlias = Literal["kind-test", "wire-key", "block-literal", "message-literal"]
SITE_KINDS: Final[tuple[SiteKind, ...]] = get_args(SiteKind)

Piece: TypeAlias = Literal[
    "tell a tool result",
    "find tool calls",
    "read text",
    "read thinking",
    "dispatch on the kind",
    "build a block",
    "build a message",
    "walk a message",
]
PIECES: Final[tuple[Piece, ...]] = get_args(Piece)

Axis: TypeAlias = Literal["piece", "module", "kind", "detail", "function"]

BLOCK_KINDS: Final = frozenset({"text", "thinking", "tool_use", "tool_result"})
"""The block kinds whose literals count as knowledge of a block's shape."""

# The wire field names, each with the block kind that knowing it implies (None: the message
# envelope, or any block). Written as pairs and named constants so that this module does not
# count itself: the scanner reads string literals, not names.
_TYPE: Final = "type"
_ROLE: Final = "role"
_CONTENT: Final = "content"
_KEY_KIND: Final[dict[str, str | None]] = dict(
    [
        (_TYPE, None),
        (_ROLE, None),
        (_CONTENT, None),
        ("text", "text"),
        ("signature", "thinking"),
        ("id", "tool_use"),
        ("name", "tool_use"),
        ("input", "tool_use"),
        ("tool_use_id", "tool_result"),
        ("is_error", "tool_result"),
    ]
)
WIRE_KEYS: Final = frozenset(_KEY_KIND)
"""The wire field names whose string use counts as knowledge of a block's shape.

``"thinking"`` is left out: it is also the request parameter's name (``body["thinking"]``),
so its key reads say little about blocks; the ``"thinking"`` kind literal still counts.
"""

_SINGLE_KIND_PIECE: Final[dict[str, Piece]] = {
    "tool_result": "tell a tool result",
    "tool_use": "find tool calls",
    "text": "read text",
    "thinking": "read thinking",
}
_DICT_METHODS: Final = frozenset({"get", "pop", "setdefault"})
_MODULE_SCOPE: Final = "<module>"


class ScanError(ValueError):
    """Source that cannot be scanned: a missing path or module, or a file that does not parse."""


@dataclass(frozen=True, slots=True)
class KnowledgeSite:
    """One place in the source that knows a block's shape by hand.

    ``module`` is the dotted module name (``msgmodel.course.legacy.engine``), ``path`` the file
    relative to its package's parent (``msgmodel/course/legacy/engine.py``), ``function`` the
    qualified name of the enclosing ``def`` (``QueryEngine.submit``, or ``<module>``),
    ``detail`` the literal or key involved (``"tool_result"``, ``"content"``, or for a
    message literal its role), ``code`` the stripped source line.

    ``typed`` is true for a kind test on an attribute (``b.type == "tool_use"``,
    ``match b.type:``): the object is typed, and a type checker verifies the literal
    against its ``Literal`` tag (mypy --strict reports ``"tool_usee"`` as a
    non-overlapping comparison). Every other site goes through a string key or a dict
    literal, which ``dict[str, Any]`` keeps out of the checker's sight.
    """

    module: str
    path: str
    line: int
    function: str
    kind: SiteKind
    detail: str
    piece: Piece
    typed: bool
    code: str

    @property
    def where(self) -> str:
        """``file.py:line`` (the file's base name), for short listings."""
        return f"{self.path.rsplit('/', 1)[-1]}:{self.line}"

    def __str__(self) -> str:
        typed = ", typed" if self.typed else ""
        return (
            f"{self.path}:{self.line} {self.function}: {self.kind} {self.detail!r} ({self.piece}{typed}): {self.code}"
        )


# ---------------------------------------------------------------------------------------
# Scanning
# ---------------------------------------------------------------------------------------


def _const_str(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _key_read(node: ast.AST) -> str | None:
    """The wire key of ``x["key"]`` or ``x.get("key", ...)`` (also ``pop``/``setdefault``)."""
    if isinstance(node, ast.Subscript):
        key = _const_str(node.slice)
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _DICT_METHODS
        and node.args
    ):
        key = _const_str(node.args[0])
    else:
        return None
    return key if key in WIRE_KEYS else None


@dataclass
class _Raw:
    line: int
    function: str
    kind: SiteKind
    detail: str
    branch: bool = False  # a kind test that chooses between alternatives
    typed: bool = False  # a kind test on an attribute (`b.type`)


@dataclass
class _Scope:
    name: str
    sites: list[_Raw] = field(default_factory=list)


class _Visitor(ast.NodeVisitor):
    def __init__(self) -> None:
        self.scopes: list[_Scope] = [_Scope(_MODULE_SCOPE)]
        self.qualname: list[str] = []
        self.done: list[_Scope] = []
        self.skip: set[int] = set()  # ids of `.get("type")` / `["type"]` already part of a kind test
        self.branch_tests: set[int] = set()  # ids of expressions used as the test of an if/else

    # scopes --------------------------------------------------------------------------

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        # Decorators and default values run in the enclosing scope; the body is the function's.
        for child in [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]:
            if child is not None:
                self.visit(child)
        self.qualname.append(node.name)
        self.scopes.append(_Scope(".".join(self.qualname)))
        for stmt in node.body:
            self.visit(stmt)
        self.done.append(self.scopes.pop())
        self.qualname.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._function(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._function(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        # Sites in a class body (not in its methods) belong to the enclosing scope.
        for child in [*node.decorator_list, *node.bases, *node.keywords]:
            self.visit(child)
        self.qualname.append(node.name)
        for stmt in node.body:
            self.visit(stmt)
        self.qualname.pop()

    def _add(self, node: ast.AST, kind: SiteKind, detail: str, *, branch: bool = False, typed: bool = False) -> None:
        scope = self.scopes[-1]
        scope.sites.append(_Raw(getattr(node, "lineno", 0), scope.name, kind, detail, branch, typed))

    # annotations say nothing about the data ------------------------------------------

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.visit(node.target)
        if node.value is not None:
            self.visit(node.value)

    # kind tests ----------------------------------------------------------------------

    def visit_If(self, node: ast.If) -> None:
        if node.orelse:
            self.branch_tests.add(id(node.test))
        self.generic_visit(node)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self.branch_tests.add(id(node.test))
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        if id(node) in self.branch_tests:
            self.branch_tests.update(id(v) for v in node.values)
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if id(node) in self.branch_tests and isinstance(node.op, ast.Not):
            self.branch_tests.add(id(node.operand))
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        operands = [node.left, *node.comparators]
        kinds: list[str] = []
        for op, right in zip(node.ops, node.comparators, strict=True):
            if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
                kinds += [s for s in map(_const_str, right.elts) if s in BLOCK_KINDS]
        kinds += [s for s in map(_const_str, operands) if s in BLOCK_KINDS]
        left_key = _const_str(node.left)
        if kinds:
            branch = id(node) in self.branch_tests
            typed = any(_is_type_attribute(o) for o in operands)
            for k in dict.fromkeys(kinds):
                self._add(node, "kind-test", k, branch=branch, typed=typed)
            for operand in operands:
                if _key_read(operand) == _TYPE:
                    self.skip.add(id(operand))
        elif (
            left_key in WIRE_KEYS
            and isinstance(node.ops[0], (ast.In, ast.NotIn))
            and not isinstance(node.comparators[0], (ast.Tuple, ast.List, ast.Set, ast.Constant))
        ):
            self._add(node, "wire-key", left_key)  # "tool_use_id" in b: a test by the field's name
        self.generic_visit(node)

    def visit_Match(self, node: ast.Match) -> None:
        self.visit(node.subject)
        typed = _is_type_attribute(node.subject)
        for case in node.cases:
            for k in sorted(_pattern_kinds(case.pattern)):
                self._add(case.pattern, "kind-test", k, branch=True, typed=typed)
            self.visit(case)

    # keys and literals ----------------------------------------------------------------

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if _is_literal_type(node.value):
            return  # Literal["text"] is a type, not a use of the data
        key = _key_read(node)
        if key is not None and id(node) not in self.skip:
            self._add(node, "wire-key", key)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        key = _key_read(node)
        if key is not None and id(node) not in self.skip:
            self._add(node, "wire-key", key)
        if isinstance(node.func, ast.Name) and node.func.id == "dict":
            named = {kw.arg: kw.value for kw in node.keywords if kw.arg is not None}
            self._literal(node, named)
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        named: dict[str, ast.expr] = {}
        for k, v in zip(node.keys, node.values, strict=True):
            key = _const_str(k)
            if key is not None:
                named[key] = v
        self._literal(node, named)
        self.generic_visit(node)

    def _literal(self, node: ast.AST, named: dict[str, ast.expr]) -> None:
        kind = _const_str(named.get(_TYPE))
        if kind in BLOCK_KINDS:
            self._add(node, "block-literal", kind)
        elif _ROLE in named and _CONTENT in named:
            self._add(node, "message-literal", _const_str(named[_ROLE]) or "?")


def _is_type_attribute(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == _TYPE


def _is_literal_type(node: ast.AST) -> bool:
    return (isinstance(node, ast.Name) and node.id == "Literal") or (
        isinstance(node, ast.Attribute) and node.attr == "Literal"
    )


def _pattern_kinds(pattern: ast.pattern) -> set[str]:
    """Block kinds a ``case`` pattern matches by literal: ``case "text":``, ``case {"type": "text"}:``."""
    found: set[str] = set()
    if isinstance(pattern, ast.MatchValue):
        s = _const_str(pattern.value)
        if s in BLOCK_KINDS:
            found.add(s)
    elif isinstance(pattern, ast.MatchOr):
        for p in pattern.patterns:
            found |= _pattern_kinds(p)
    elif isinstance(pattern, ast.MatchAs) and pattern.pattern is not None:
        found |= _pattern_kinds(pattern.pattern)
    elif isinstance(pattern, ast.MatchMapping):
        for key, value in zip(pattern.keys, pattern.patterns, strict=True):
            if _const_str(key) == _TYPE:
                found |= _pattern_kinds(value)
    return found


def _piece_of_function(sites: Sequence[_Raw]) -> Piece:
    kinds: set[str] = set()
    branch = False
    for s in sites:
        if s.kind == "kind-test":
            kinds.add(s.detail)
            branch = branch or s.branch
        elif s.kind == "wire-key":
            implied = _KEY_KIND[s.detail]
            if implied is not None:
                kinds.add(implied)
    if len(kinds) >= 2 or branch:
        return "dispatch on the kind"
    if kinds:
        return _SINGLE_KIND_PIECE[kinds.pop()]
    return "walk a message"


def _sites(tree: ast.Module, module: str, path: str, lines: Sequence[str]) -> list[KnowledgeSite]:
    visitor = _Visitor()
    visitor.visit(tree)
    scopes = [*visitor.done, *visitor.scopes]
    out: dict[tuple[int, SiteKind, str], KnowledgeSite] = {}
    for scope in scopes:
        reads = [s for s in scope.sites if s.kind in ("kind-test", "wire-key")]
        function_piece = _piece_of_function(reads)
        for s in scope.sites:
            piece: Piece
            if s.kind == "block-literal":
                piece = "build a block"
            elif s.kind == "message-literal":
                piece = "build a message"
            else:
                piece = function_piece
            code = lines[s.line - 1].strip() if 0 < s.line <= len(lines) else ""
            site = KnowledgeSite(module, path, s.line, s.function, s.kind, s.detail, piece, s.typed, code)
            out.setdefault((s.line, s.kind, s.detail), site)
    return sorted(out.values(), key=_order)


def _order(s: KnowledgeSite) -> tuple[str, int, int, str]:
    return (s.path, s.line, SITE_KINDS.index(s.kind), s.detail)


def scan_source(source: str, *, module: str = "snippet", path: str = "snippet.py") -> list[KnowledgeSite]:
    """The knowledge sites of one piece of source text (``module``/``path`` label them)."""
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as e:
        raise ScanError(f"{path}:{e.lineno}: cannot parse: {e.msg}") from None
    return _sites(tree, module, path, source.splitlines())


ScanTarget: TypeAlias = ModuleType | str | os.PathLike[str] | Iterable[str | os.PathLike[str]]


def _package_root(file: Path) -> Path:
    """The directory above the outermost package holding ``file``."""
    root = file.parent
    while (root / "__init__.py").exists():
        root = root.parent
    return root


def _module_name(file: Path, root: Path) -> str:
    parts = list(file.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts) or file.stem


def _locate(name: str) -> list[Path]:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        raise ScanError(f"no module named {name!r} (and no such path)")
    if spec.submodule_search_locations:
        return [Path(p) for p in spec.submodule_search_locations]
    if spec.origin is None or not spec.origin.endswith(".py"):
        raise ScanError(f"module {name!r} has no Python source to scan")
    return [Path(spec.origin)]


def _module_paths(module: ModuleType) -> list[Path]:
    locations = getattr(module, "__path__", None)
    if locations is not None:
        return [Path(p) for p in locations]
    if module.__file__ is None:
        raise ScanError(f"module {module.__name__!r} has no source file")
    return [Path(module.__file__)]


def _targets(target: ScanTarget) -> list[Path]:
    if isinstance(target, ModuleType):
        return _module_paths(target)
    if isinstance(target, (str, os.PathLike)):
        path = Path(target)
        if path.exists():
            return [path]
        if isinstance(target, str) and target.replace(".", "").replace("_", "").isalnum():
            return _locate(target)
        raise ScanError(f"no such file or directory: {path.name!r}")
    if not isinstance(target, Iterable):
        raise ScanError(f"cannot scan a {type(target).__name__}: expected a module, a module name or a path")
    items: Iterable[object] = target
    paths: list[Path] = []
    for item in items:
        if not isinstance(item, (str, os.PathLike, ModuleType)):
            raise ScanError(f"cannot scan a {type(item).__name__}: expected a module, a module name or a path")
        paths += _targets(item)
    return paths


def _python_files(paths: Iterable[Path]) -> Iterator[Path]:
    for p in paths:
        if p.is_dir():
            yield from sorted(f for f in p.rglob("*.py") if "__pycache__" not in f.parts)
        elif p.suffix == ".py":
            yield p
        elif not p.exists():
            raise ScanError(f"no such file or directory: {p.name!r}")
        else:
            raise ScanError(f"not a Python file: {p.name!r}")


def scan_block_knowledge(target: ScanTarget, *, exclude: Iterable[str] = ()) -> list[KnowledgeSite]:
    """Every site in ``target`` that knows a block's shape by hand, sorted by file and line.

    ``target`` is a module or package object (``msgmodel.course.legacy``), a dotted module name
    (``"msgmodel.course.legacy"``), a file or directory path, or an iterable of those. Modules
    whose dotted name is, or starts with, an entry of ``exclude`` plus a dot are skipped.
    Nothing is imported except what ``importlib`` needs to locate a module by name.
    """
    found: list[KnowledgeSite] = []
    for module, rel, source in _sources(target, exclude):
        found += scan_source(source, module=module, path=rel)
    return sorted(found, key=_order)


def _sources(target: ScanTarget, exclude: Iterable[str]) -> Iterator[tuple[str, str, str]]:
    """``(module, path, source)`` of each Python file of ``target``, once, minus the ``exclude``d modules."""
    skipped = tuple(exclude)
    seen: set[Path] = set()
    for file in _python_files(_targets(target)):
        file = file.resolve()
        if file in seen:
            continue
        seen.add(file)
        root = _package_root(file)
        module = _module_name(file, root)
        if any(module == x or module.startswith(x + ".") for x in skipped):
            continue
        rel = file.relative_to(root).as_posix()
        try:
            source = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ScanError(f"{rel}: cannot read: {e}") from None
        yield module, rel, source


# ---------------------------------------------------------------------------------------
# Going around the model
# ---------------------------------------------------------------------------------------

_CODEC_ENTRIES: Final = frozenset({"blocks_from_api", "block_from_api", "from_api"})
ON_PURPOSE: Final = "# on purpose:"
"""The comment that marks a deliberate construction or ``.content`` read on its line."""


@dataclass(frozen=True, slots=True)
class Bypass:
    """One place that goes around the model: ``construct`` (``Message(...)`` by hand) or ``content-walk``."""

    kind: Literal["construct", "content-walk"]
    path: str
    line: int
    code: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.kind}: {self.code}"


def _bypasses(source: str, path: str) -> list[Bypass]:
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as e:
        raise ScanError(f"{path}:{e.lineno}: cannot parse: {e.msg}") from None
    lines = source.splitlines()
    # ``blocks_from_api(resp.content)``: an SDK response's blocks entering the model, the one
    # documented way in; that ``.content`` is not a message's.
    boundary = {
        id(node.args[0])
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and node.args
        and getattr(node.func, "id", getattr(node.func, "attr", None)) in _CODEC_ENTRIES
    }
    found: set[Bypass] = set()
    for node in ast.walk(tree):
        kind: Literal["construct", "content-walk"]
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Message":
            kind, line = "construct", node.lineno
        elif isinstance(node, ast.Attribute) and node.attr == _CONTENT and id(node) not in boundary:
            kind, line = "content-walk", node.lineno
        else:
            continue
        code = lines[line - 1]
        if ON_PURPOSE not in code:
            found.add(Bypass(kind, path, line, code.strip()))
    return sorted(found, key=lambda b: (b.line, b.kind))


def model_imports(modules: Iterable[str], *, model: str = "msgmodel.core.message") -> dict[str, list[str]]:
    """Per module (a dotted name), the names its top level imports from ``model``, in the order written.

    Read from the source with ``ast``: what each rebuilt layer takes from the authority (chapter 05).
    """
    found: dict[str, list[str]] = {}
    for name in modules:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            raise ScanError(f"{name}: no such module")
        tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"), filename=spec.origin)
        found[name] = [
            alias.name
            for node in tree.body
            if isinstance(node, ast.ImportFrom) and node.module == model
            for alias in node.names
        ]
    return found


def bypasses_in(source: str, *, name: str = "snippet.py") -> list[Bypass]:
    """``scan_model_bypasses`` on a piece of source text (a teammate's change, in a chapter), named ``name``."""
    return sorted(_bypasses(source, name), key=lambda b: (b.line, b.kind))


def scan_model_bypasses(target: ScanTarget, *, exclude: Iterable[str] = ()) -> list[Bypass]:
    """Every ``Message(...)`` built and every ``.content`` read by hand in ``target``, outside ``message.py``.

    ``target`` and ``exclude`` are as for ``scan_block_knowledge``; ``msgmodel.core.message``
    itself is always skipped (it is the one module allowed both). Lines marked
    ``# on purpose: …`` are not reported, nor is the ``.content`` handed straight to the
    codec (``blocks_from_api(resp.content)``: an SDK response entering the model).
    """
    found: list[Bypass] = []
    for _, rel, source in _sources(target, (*exclude, "msgmodel.core.message")):
        found += _bypasses(source, rel)
    return sorted(found, key=lambda b: (b.path, b.line, b.kind))


# ---------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Table:
    """A cross table of site counts: ``rows`` of ``(label, counts)`` under ``columns``.

    Totals are computed, not stored. Renders as an HTML table in a notebook and as aligned
    text (``str``/``repr``), zeros shown as ``·``.
    """

    row_axis: Axis
    column_axis: Axis
    columns: tuple[str, ...]
    rows: tuple[tuple[str, tuple[int, ...]], ...]

    @property
    def column_totals(self) -> tuple[int, ...]:
        return tuple(sum(counts[i] for _, counts in self.rows) for i in range(len(self.columns)))

    @property
    def total(self) -> int:
        return sum(sum(counts) for _, counts in self.rows)

    def count(self, row: str, column: str) -> int:
        """The count in one cell (``KeyError`` naming the labels if either is absent)."""
        counts = dict(self.rows).get(row)
        if counts is None or column not in self.columns:
            raise KeyError(f"no cell ({row!r}, {column!r}) in this table")
        return counts[self.columns.index(column)]

    def _grid(self) -> list[list[str]]:
        head = [self.row_axis, *self.columns, "total"]
        body = [[label, *(str(c) if c else "·" for c in counts), str(sum(counts))] for label, counts in self.rows]
        foot = ["total", *(str(c) for c in self.column_totals), str(self.total)]
        return [head, *body, foot]

    def __str__(self) -> str:
        grid = self._grid()
        widths = [max(len(r[i]) for r in grid) for i in range(len(grid[0]))]

        def line(r: list[str]) -> str:
            cells = [r[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True))]
            return "  ".join(cells).rstrip()

        rule = "  ".join("-" * w for w in widths)
        return "\n".join([line(grid[0]), rule, *map(line, grid[1:-1]), rule, line(grid[-1])])

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        grid = self._grid()
        esc = html.escape
        right = ' style="text-align:right"'
        head = "".join(f"<th{right if i else ''}>{esc(c)}</th>" for i, c in enumerate(grid[0]))
        rows = []
        for r in grid[1:]:
            tag = "th" if r is grid[-1] else "td"
            cells = [f"<th style='text-align:left'>{esc(r[0])}</th>"]
            cells += [f"<{tag}{right}>{esc(c)}</{tag}>" for c in r[1:]]
            rows.append("<tr>" + "".join(cells) + "</tr>")
        return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _short_modules(sites: Sequence[KnowledgeSite]) -> dict[str, str]:
    """Module names without the dotted prefix they all share (``msgmodel.course.legacy.engine`` → ``engine``)."""
    names = sorted({s.module for s in sites})
    if not names:
        return {}
    split = [n.split(".") for n in names]
    common = 0
    while all(len(p) > common + 1 for p in split) and len({p[common] for p in split}) == 1:
        common += 1
    return {n: ".".join(p[common:]) for n, p in zip(names, split, strict=True)}


def _label(s: KnowledgeSite, axis: Axis, short: dict[str, str]) -> str:
    if axis == "piece":
        return s.piece
    if axis == "module":
        return short[s.module]
    if axis == "kind":
        return s.kind
    if axis == "detail":
        return s.detail
    return f"{short[s.module]}.{s.function}"


def _axis_order(axis: Axis, labels: Iterable[str], first_seen: dict[str, int]) -> list[str]:
    unique = set(labels)
    if axis == "piece":
        return [p for p in PIECES if p in unique]
    if axis == "kind":
        return [k for k in SITE_KINDS if k in unique]
    if axis == "detail":
        return sorted(unique)
    return sorted(unique, key=lambda x: first_seen[x])  # module, function: in source order


def tabulate(sites: Sequence[KnowledgeSite], *, rows: Axis = "piece", columns: Axis = "module") -> Table:
    """Count ``sites`` by ``rows`` × ``columns`` (``piece``, ``module``, ``kind``, ``detail`` or ``function``).

    Pieces and site kinds keep their canonical order, literals sort alphabetically, modules
    and functions come in source order. Module names drop the prefix all sites share.
    """
    short = _short_modules(sites)
    first_seen: dict[str, int] = {}
    cells: dict[tuple[str, str], int] = {}
    for i, s in enumerate(sites):
        r, c = _label(s, rows, short), _label(s, columns, short)
        first_seen.setdefault(r, i)
        first_seen.setdefault(c, i)
        cells[r, c] = cells.get((r, c), 0) + 1
    row_labels = _axis_order(rows, (r for r, _ in cells), first_seen)
    col_labels = _axis_order(columns, (c for _, c in cells), first_seen)
    body = tuple((r, tuple(cells.get((r, c), 0) for c in col_labels)) for r in row_labels)
    return Table(rows, columns, tuple(col_labels), body)


def _line_ranges(lines: Sequence[int]) -> str:
    return ", ".join(str(n) for n in sorted(set(lines)))


def describe(sites: Sequence[KnowledgeSite]) -> str:
    """Where each piece of knowledge lives, in a few lines of text.

    First a count (sites, functions, modules, and how many are ``typed``), then one line
    per piece: how many sites, and the functions holding them with their line numbers.
    """
    if not sites:
        return "No site knows a block's shape by hand."
    short = _short_modules(sites)
    modules = {s.module for s in sites}
    functions = {(s.module, s.function) for s in sites}
    typed = sum(s.typed for s in sites)
    note = f" ({typed} of them typed kind tests, which a type checker verifies)" if typed else ""
    count = f"{len(sites)} sites in {len(functions)} functions of {len(modules)} modules"
    out = [f"{count} know a block's shape by hand{note}."]
    width = max(len(p) for p in PIECES)
    for piece in PIECES:
        mine = [s for s in sites if s.piece == piece]
        if not mine:
            continue
        by_function: dict[str, list[int]] = {}
        for s in mine:
            by_function.setdefault(f"{short[s.module]}.{s.function}", []).append(s.line)
        where = "; ".join(f"{f} ({_line_ranges(ls)})" for f, ls in by_function.items())
        noun = "site" if len(mine) == 1 else "sites"
        out.append(f"  {piece.ljust(width)}  {len(mine):>2} {noun:<5}  {where}")
    return "\n".join(out)


_BLOCK_CLASSES: Final = frozenset({"TextBlock", "ThinkingBlock", "ToolUseBlock", "ToolResultBlock", "OpaqueBlock"})


def _modules(folder: Path, exclude: Iterable[str] = ()) -> Iterator[tuple[Path, ast.Module]]:
    """Each module under package ``folder`` (outside the subfolders ``exclude`` names), parsed: (path, tree)."""
    skipped = tuple(exclude)
    for path in _python_files([folder]):
        if path.relative_to(folder).parts[0] not in skipped:
            yield path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _names_a_block_class(node: ast.AST) -> bool:
    """Whether ``node`` is a class pattern of one of the block classes (``case TextBlock():``)."""
    return isinstance(node, ast.MatchClass) and getattr(node.cls, "id", "") in _BLOCK_CLASSES


def exhaustive_block_matches(folder: Path, *, exclude: Iterable[str] = ()) -> dict[str, list[str]]:
    """Functions that ``match`` on the block classes and end in ``assert_never``, by file (sorted).

    ``folder`` is a package directory; files are named relative to its parent
    (``msgmodel/core/message.py``). ``exclude`` names subfolders of ``folder`` to skip (``"course"``).
    These are the sites ``mypy --strict`` flags when a block kind joins the ``ContentBlock`` union.
    """
    found: dict[str, list[str]] = {}
    for path, tree in _modules(folder, exclude):
        names = []
        for f in ast.walk(tree):
            if not isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            nodes = list(ast.walk(f))
            never = any(isinstance(n, ast.Call) and getattr(n.func, "id", "") == "assert_never" for n in nodes)
            if never and any(_names_a_block_class(n) for n in nodes):
                names.append(f.name)
        if names:
            found[path.relative_to(folder.parent).as_posix()] = sorted(names)
    return found


def _ends_in_assert_never(m: ast.Match) -> bool:
    """Whether ``m``'s last case is ``case _: assert_never(...)`` and nothing else."""
    last = m.cases[-1]
    wildcard = isinstance(last.pattern, ast.MatchAs) and last.pattern.pattern is None and last.pattern.name is None
    body = last.body
    return (
        wildcard
        and last.guard is None
        and len(body) == 1
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Call)
        and getattr(body[0].value.func, "id", "") == "assert_never"
    )


def block_matches_without_assert_never(folder: Path) -> list[str]:
    """Every ``match`` on the block classes under ``folder`` whose last case is not ``case _: assert_never(...)``.

    Each as ``file:line`` (files named relative to ``folder``'s parent). A ``case _: return ""``, or no
    wildcard at all, lets a new block kind through without a type error: the exhaustiveness chapter 04
    teaches holds only where the dispatch ends in ``assert_never``, and this scan is what keeps it.
    ``if b.type == ...`` chains are not dispatches it can see.
    """
    found = []
    for path, tree in _modules(folder):
        for m in ast.walk(tree):
            if not isinstance(m, ast.Match):
                continue
            on_blocks = any(_names_a_block_class(n) for case in m.cases for n in ast.walk(case.pattern))
            if on_blocks and not _ends_in_assert_never(m):
                found.append(f"{path.relative_to(folder.parent).as_posix()}:{m.lineno}")
    return found
