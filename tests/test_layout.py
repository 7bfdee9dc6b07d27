"""The package's layers and its own rule: core, local API and course apart; the model is the only way in.

* ``import msgmodel`` loads the core layer only; no import runs upward (core → api/course,
  api → course), lazy imports inside functions included;
* outside ``msgmodel/core/message.py`` nothing calls ``Message(...)`` or reads ``.content``
  by hand (``scan_model_bypasses``), except the ``course.legacy`` exhibit and lines that say
  ``# on purpose: …``;
* the counts the docs state (block kinds, constructors, readers) are the code's.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest
from imports import imported_modules

import msgmodel
from msgmodel.core import message
from msgmodel.core.message import (
    CONSTRUCTORS,
    READERS,
    ContentBlock,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    block_html,
    result_text,
    tool_result_block,
)
from msgmodel.course.knowledge import (
    Bypass,
    ScanError,
    block_matches_without_assert_never,
    exhaustive_block_matches,
    scan_model_bypasses,
)

PACKAGE = Path(msgmodel.__file__).parent
ROOT = PACKAGE.parent
# Raised from 6000 for issue 24, the library features of the core: constructors that check their
# arguments, SDK objects read by the validator, mid-conversation system messages, compaction of one
# long tool loop (cuts before an assistant turn, a token budget, clearing old tool results),
# session headers, and `check` on directories. Moving a layer out instead (cli, claude_code) would
# not make the layers clearer: both are core commands and readers built only on the model.
CORE_LINE_BUDGET = 7000
_WORDS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
NUMBER_WORDS = {w: i for i, w in enumerate(_WORDS.split(" "))}


def _layer_files(layer: str) -> list[Path]:
    return sorted(p for p in (PACKAGE / layer).rglob("*.py") if "__pycache__" not in p.parts)


def _imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, anywhere in it (function bodies too), as absolute dotted names."""
    module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    return set(imported_modules(path.read_text(encoding="utf-8"), module))


# ---------------------------------------------------------------------------------------
# The layers
# ---------------------------------------------------------------------------------------


def test_import_msgmodel_loads_only_the_core() -> None:
    code = (
        "import sys, msgmodel\n"
        "print(sorted(m for m in sys.modules if m.startswith(('msgmodel.api', 'msgmodel.course')) "
        "or m in ('anthropic', 'ipywidgets', 'msgmodel.__main__')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("layer", "forbidden"),
    [("core", ("msgmodel.api", "msgmodel.course", "msgmodel.__main__")), ("api", ("msgmodel.course",))],
)
def test_no_import_runs_upward(layer: str, forbidden: tuple[str, ...]) -> None:
    upward = {
        str(path.relative_to(ROOT)): sorted(m for m in _imported_modules(path) if m.startswith(forbidden))
        for path in _layer_files(layer)
    }
    assert {k: v for k, v in upward.items() if v} == {}


def test_the_import_scan_sees_every_spelling() -> None:
    source = (
        "import msgmodel.api.server\n"
        "def lazy():\n    from msgmodel.course import display\n"
        "from ..course.widgets import Quiz\n"
        "importlib.import_module('msgmodel.api.scripted')\n"
    )
    found = set(imported_modules(source, "msgmodel.core.x"))
    expected = {"msgmodel.api.server", "msgmodel.course.display", "msgmodel.course.widgets", "msgmodel.api.scripted"}
    assert expected <= found


def test_the_core_layer_stays_small() -> None:
    lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in _layer_files("core"))
    assert lines <= CORE_LINE_BUDGET, f"msgmodel/core is {lines} lines (budget {CORE_LINE_BUDGET})"


# ---------------------------------------------------------------------------------------
# The rule: constructors and readers are the only way
# ---------------------------------------------------------------------------------------


def test_nothing_in_the_package_goes_around_the_model() -> None:
    bypasses = scan_model_bypasses("msgmodel", exclude=["msgmodel.course.legacy"])
    assert bypasses == [], "build with a constructor, read with a reader:\n" + "\n".join(map(str, bypasses))


def test_message_py_is_the_one_module_allowed_both() -> None:
    source = (PACKAGE / "core" / "message.py").read_text(encoding="utf-8")
    assert "Message(role=" in source and ".content" in source
    assert scan_model_bypasses("msgmodel.core.message") == []


def _scan(tmp_path: Path, code: str) -> list[Bypass]:
    f = tmp_path / "snippet.py"
    f.write_text(code)
    return scan_model_bypasses(f)


def test_the_bypass_scan_finds_construction_and_content_walks(tmp_path: Path) -> None:
    found = _scan(
        tmp_path,
        "m = Message(role='user', content='hi')\n"
        "n = msgmodel.Message('assistant', [])\n"
        "for b in m.content: pass\n"
        "if isinstance(m.content, str): pass\n"
        "x = Message(role='user', content=[])  # on purpose: a malformed message for the test\n"
        "blocks = blocks_from_api(resp.content)\n"
        "y = assistant_msg(blocks_from_api(reply.content, path='r'))\n"
        "z = len(reply.content)\n",
    )
    assert [(b.kind, b.line) for b in found] == [
        ("construct", 1),
        ("construct", 2),
        ("content-walk", 3),
        ("content-walk", 4),
        ("content-walk", 8),
    ]
    assert str(found[0]).startswith("snippet.py:1: construct: m = Message(")


def test_the_bypass_scan_names_bad_source(tmp_path: Path) -> None:
    with pytest.raises(ScanError, match=r"snippet\.py:1: cannot parse"):
        _scan(tmp_path, "def (:\n")


def test_display_renders_a_result_through_result_text() -> None:
    # display.block_html used to rebuild result text on its own: "a  b" (two spaces) where
    # result_text gives "a b". One message's HTML is now the model's own.
    from msgmodel.course import display

    block = tool_result_block("t", [TextBlock("a"), ThinkingBlock("x", signature="s"), TextBlock("b")])
    assert result_text(block) == "a b"
    assert "</b> a b</span>" in block_html(block)
    assert display.block_html is block_html


# ---------------------------------------------------------------------------------------
# Counts the docs state
# ---------------------------------------------------------------------------------------


def _doc_section(title: str) -> tuple[int, list[str]]:
    doc = message.__doc__ or ""
    m = re.search(rf"^{title} \((\w+);[^\n]*\n((?:    .*\n)+)", doc, re.M)
    assert m, f"message.py's docstring has no '{title} (N; ...)' section"
    return NUMBER_WORDS[m.group(1)], re.findall(r"``(\w+)``", m.group(2))


def test_the_docstring_lists_every_constructor_and_reader() -> None:
    for title, names in [("Constructors", CONSTRUCTORS), ("Readers", READERS)]:
        count, listed = _doc_section(title)
        assert listed == list(names) and count == len(names), title
        for name in names:
            assert name in message.__all__ and callable(getattr(message, name)), name


def test_the_stated_number_of_block_kinds_is_the_unions() -> None:
    known = [c for c in get_args(ContentBlock) if c is not OpaqueBlock]
    doc = message.__doc__ or ""
    stated = re.search(r"(\w+) content blocks form a tagged union", doc)
    assert stated and NUMBER_WORDS[stated.group(1).lower()] == len(known) == 4
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for m in re.finditer(r"\b(\w+) (content blocks|constructors|readers)\b", readme):
        word = m.group(1).lower()
        if word in NUMBER_WORDS:
            expected = {"content blocks": len(known), "constructors": len(CONSTRUCTORS), "readers": len(READERS)}
            assert NUMBER_WORDS[word] == expected[m.group(2)], m.group(0)


def _prose_files() -> list[Path]:
    """The README and every document of docs/ (the site shows them all)."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "docs" / "site" / "index.md"]


def test_every_stated_count_in_the_readme_and_the_docs_is_the_packages() -> None:
    """Counts of block kinds, constructors, readers and drill questions, in words or digits, README and docs/ alike.

    docs/survey.md once said msgmodel has 10 readers when it had 14: a table cell no word-scan saw.
    """
    from msgmodel.course.exercises.ch06 import DRILL

    known = [c for c in get_args(ContentBlock) if c is not OpaqueBlock]
    expected = {"content blocks": len(known), "constructors": len(CONSTRUCTORS), "readers": len(READERS)}
    number = rf"(\d+|{'|'.join(NUMBER_WORDS)})"
    for path in _prose_files():
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(rf"\b{number} (content blocks|constructors|readers)\b", text, re.I):
            said = m.group(1).lower()
            # (the parentheses matter: without them a count in digits was only checked for being non-zero)
            assert (int(said) if said.isdigit() else NUMBER_WORDS[said]) == expected[m.group(2).lower()], (
                f"{path.name}: {m.group(0)!r}"
            )
        for m in re.finditer(rf"\b{number} (?:interview |follow-up )?questions \(I1–I(\d+)\)", text, re.I):
            said = m.group(1).lower()
            assert (int(said) if said.isdigit() else NUMBER_WORDS[said]) == int(m.group(2)) == len(DRILL), m.group(0)
        for m in re.finditer(r"chapter 06 \(I1–I(\d+)\)", text):  # "the decisions of chapter 06 (I1–I15)"
            assert int(m.group(1)) == len(DRILL), f"{path.name}: {m.group(0)!r}"
        lines = text.splitlines()
        for i, line in enumerate(lines):  # a table with Constructors and Readers columns: msgmodel's row
            head = [c.strip().lower() for c in line.strip().strip("|").split("|")]
            if "constructors" in head and "readers" in head:
                rows = [r for r in lines[i + 2 :] if r.startswith("|")]
                mine = next((r for r in rows if "**msgmodel**" in r), None)
                if mine:
                    cells = [c.strip() for c in mine.strip().strip("|").split("|")]
                    assert cells[head.index("constructors")] == str(len(CONSTRUCTORS)), f"{path.name}: {mine}"
                    assert cells[head.index("readers")] == str(len(READERS)), f"{path.name}: {mine}"


def test_the_count_check_reads_survey_tables() -> None:
    text = (ROOT / "docs" / "survey.md").read_text(encoding="utf-8")
    assert "| **msgmodel** |" in text and "| Constructors | Readers |" in text


def test_the_chapters_keep_the_rule_they_teach() -> None:
    bypasses = scan_model_bypasses(ROOT / "notebooks" / "src")
    assert bypasses == [], "a chapter builds or reads a Message by hand:\n" + "\n".join(map(str, bypasses))


def test_every_match_on_the_blocks_ends_in_assert_never() -> None:
    """Exhaustiveness is kept by this scan: a dispatch that falls through (``case _: return ""``) is refused."""
    assert block_matches_without_assert_never(PACKAGE) == []
    assert exhaustive_block_matches(PACKAGE)  # the scan has dispatches to look at


def test_the_dispatch_scan_finds_a_fallback_and_a_missing_wildcard(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "ok.py").write_text(
        "def f(b):\n    match b:\n        case TextBlock():\n            return b.text\n"
        "        case _:\n            assert_never(b)\n"
    )
    (pkg / "fallback.py").write_text(
        "def f(b):\n    match b:\n        case TextBlock():\n            return b.text\n"
        '        case _:\n            return ""\n'
    )
    (pkg / "open.py").write_text(
        "def f(b):\n    match b:\n        case ToolUseBlock() | TextBlock():\n            pass\n"
    )
    (pkg / "other.py").write_text("def f(x):\n    match x:\n        case int():\n            pass\n")
    assert block_matches_without_assert_never(pkg) == ["pkg/fallback.py:2", "pkg/open.py:2"]


@pytest.mark.slow
def test_a_sixth_block_kind_is_flagged_by_mypy_exactly_where_chapter_06_says(tmp_path: Path) -> None:
    """Chapter 06 (I4) lists what mypy flags in the library when a block kind is added; this adds one and runs mypy."""
    from mypy import api as mypy_api

    shutil.copytree(PACKAGE, tmp_path / "msgmodel", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    model = tmp_path / "msgmodel" / "core" / "message.py"
    union = "ContentBlock: TypeAlias = TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock | OpaqueBlock"
    source = model.read_text(encoding="utf-8")
    assert union in source
    model.write_text(
        source.replace(
            union,
            'class CitationBlock(msgspec.Struct, frozen=True, tag="citation", **_STRUCT_OPTS):\n'
            "    cited: str\n    extra: dict[str, Any] | None = None\n"
            '    type: ClassVar[Literal["citation"]] = "citation"\n\n\n' + union + " | CitationBlock",
        )
    )
    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        out, _, status = mypy_api.run(["--strict", "--cache-dir", str(tmp_path / ".mypy_cache"), "msgmodel"])
    finally:
        os.chdir(cwd)
    assert status == 1
    errors = []  # one (file, function) per error line, so "N errors" counts errors, not functions
    for line in out.splitlines():
        m = re.match(r"(msgmodel/\S+\.py):(\d+): error: .*assert_never.*CitationBlock", line)
        if m:
            lines = (tmp_path / m.group(1)).read_text(encoding="utf-8").splitlines()
            at = int(m.group(2))
            name = next(ln for ln in reversed(lines[:at]) if re.match(r"\s*def ", ln))
            errors.append((m.group(1), re.search(r"def (\w+)", name).group(1)))  # type: ignore[union-attr]
    scanned = {(f, n) for f, names in exhaustive_block_matches(PACKAGE).items() for n in names}
    assert set(errors) == scanned  # chapter 06's scan finds exactly what mypy flags
    library = [(f, n) for f, n in errors if not f.startswith("msgmodel/course/")]
    chapter = (ROOT / "notebooks" / "src" / "06_interview_followups.py").read_text(encoding="utf-8")
    files = {f for f, _ in library}
    assert f"**{len(library)} errors in {len(files)} files**" in chapter  # the scan's cell lists them (nbval)
