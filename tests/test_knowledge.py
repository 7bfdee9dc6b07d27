"""The knowledge scanner (``msgmodel.course.knowledge``): what it counts, what it does not, and its tables."""

from __future__ import annotations

import textwrap
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import msgmodel
import msgmodel.course.legacy
from msgmodel.course.knowledge import (
    BLOCK_KINDS,
    PIECES,
    SITE_KINDS,
    WIRE_KEYS,
    KnowledgeSite,
    ScanError,
    describe,
    scan_block_knowledge,
    scan_source,
    tabulate,
)

PACKAGE_DIR = Path(msgmodel.__file__).parent
LEGACY_DIR = PACKAGE_DIR / "course" / "legacy"


def scan(code: str) -> list[KnowledgeSite]:
    return scan_source(textwrap.dedent(code))


def facts(code: str) -> list[tuple[int, str, str]]:
    return [(s.line, s.kind, s.detail) for s in scan(code)]


# ---------------------------------------------------------------------------------------
# The legacy exhibits: the measurement chapter 03 shows
# ---------------------------------------------------------------------------------------


def test_legacy_sites_by_function_and_piece() -> None:
    sites = scan_block_knowledge(msgmodel.course.legacy)
    by_function = Counter((s.module.rsplit(".", 1)[-1], s.function, s.piece) for s in sites)
    assert by_function == {
        ("api", "create_message", "build a message"): 1,
        ("api", "extract_text", "read text"): 3,
        ("api", "summarize", "build a message"): 1,
        ("compact29", "compact", "build a message"): 1,
        ("compact29", "_is_clean_user_start", "tell a tool result"): 3,
        ("compact29", "compact_fixed", "build a message"): 1,
        ("engine", "QueryEngine.submit", "find tool calls"): 6,
        ("engine", "QueryEngine.submit", "build a block"): 2,
        ("engine", "QueryEngine.submit", "build a message"): 2,
        ("summary30", "_message_text", "dispatch on the kind"): 3,
        ("summary30", "transcript", "walk a message"): 1,
        ("summary30", "_block_to_text", "dispatch on the kind"): 8,
        ("summary30", "transcript_fixed", "walk a message"): 2,
    }
    assert not any(s.typed for s in sites), "the exhibits work on dicts: nothing a type checker can verify"
    assert not [s for s in sites if s.module.endswith("storage")], "storage checks nothing, so it knows nothing"


def test_the_slip_is_a_hand_built_tool_result() -> None:
    sites = scan_block_knowledge("msgmodel.course.legacy.engine")
    (slip,) = [s for s in sites if "toolUseId" in s.code and s.kind == "block-literal"]
    assert (slip.kind, slip.detail, slip.piece, slip.function) == (
        "block-literal",
        "tool_result",
        "build a block",
        "QueryEngine.submit",
    )
    assert slip.path == "msgmodel/course/legacy/engine.py"
    source_line = (LEGACY_DIR / "engine.py").read_text().splitlines()[slip.line - 1]
    assert source_line.strip() == slip.code


def test_every_target_form_gives_the_same_sites() -> None:
    by_module = scan_block_knowledge(msgmodel.course.legacy)
    assert scan_block_knowledge("msgmodel.course.legacy") == by_module
    assert scan_block_knowledge(LEGACY_DIR) == by_module
    assert scan_block_knowledge(str(LEGACY_DIR)) == by_module
    assert scan_block_knowledge(sorted(LEGACY_DIR.glob("*.py"))) == by_module
    assert scan_block_knowledge([LEGACY_DIR, LEGACY_DIR / "api.py"]) == by_module, "a file is scanned once"


def test_paths_are_relative_and_sites_sorted() -> None:
    sites = scan_block_knowledge(msgmodel, exclude=["msgmodel.course.exercises"])
    assert sites == sorted(sites, key=lambda s: (s.path, s.line, SITE_KINDS.index(s.kind), s.detail))
    for s in sites:
        assert s.path.startswith("msgmodel/") and not Path(s.path).is_absolute(), s.path
        assert s.module.startswith("msgmodel."), s.module
        assert s.code, s


def test_exclude_drops_a_package_and_its_modules() -> None:
    sites = scan_block_knowledge("msgmodel", exclude=["msgmodel.course.legacy"])
    assert not [s for s in sites if s.module.startswith("msgmodel.course.legacy")]
    assert scan_block_knowledge("msgmodel.course.legacy", exclude=["msgmodel.course.legacy.engine"]) == [
        s for s in scan_block_knowledge("msgmodel.course.legacy") if s.module != "msgmodel.course.legacy.engine"
    ]
    assert scan_block_knowledge("msgmodel.course.legacy", exclude=["msgmodel.leg"]) != [], "a prefix is a dotted prefix"


def test_the_scanner_does_not_count_itself() -> None:
    assert scan_block_knowledge("msgmodel.course.knowledge") == []


def test_the_refactored_layers_hold_no_untyped_knowledge() -> None:
    """Compaction, the engine, storage and display read blocks through the model only."""
    for name in ("core.compact", "core.engine", "core.storage", "course.display", "course.synth"):
        untyped = [str(s) for s in scan_block_knowledge(f"msgmodel.{name}") if not s.typed]
        assert untyped == [], f"msgmodel.{name} knows a block's shape by hand:\n" + "\n".join(untyped)


# ---------------------------------------------------------------------------------------
# What counts as a site
# ---------------------------------------------------------------------------------------


def test_kind_tests_in_every_spelling() -> None:
    code = """
        def f(b, t, m):
            a = b.get("type") == "tool_result"
            c = b["type"] != "text"
            d = t in ("tool_use", "image")
            e = "thinking" == t
            g = m.type == "text"
    """
    assert facts(code) == [
        (3, "kind-test", "tool_result"),
        (4, "kind-test", "text"),
        (5, "kind-test", "tool_use"),
        (6, "kind-test", "thinking"),
        (7, "kind-test", "text"),
    ]
    assert [s.typed for s in scan(code)] == [False, False, False, False, True]


def test_a_type_read_outside_a_kind_test_is_a_wire_key() -> None:
    code = """
        def f(b):
            t = b.get("type")
            return t == "text" or t == "tool_use"
    """
    assert facts(code) == [(3, "wire-key", "type"), (4, "kind-test", "text"), (4, "kind-test", "tool_use")]


def test_match_cases_are_kind_tests() -> None:
    code = """
        def f(b, x):
            match b:
                case {"type": "tool_use", "name": name}:
                    return name
                case {"type": "text" | "thinking"}:
                    return ""
            match x.type:
                case "tool_result":
                    return 1
                case "image":
                    return 2
    """
    sites = scan(code)
    assert [(s.line, s.detail, s.typed) for s in sites] == [
        (4, "tool_use", False),
        (6, "text", False),
        (6, "thinking", False),
        (9, "tool_result", True),
    ]
    assert {s.piece for s in sites} == {"dispatch on the kind"}


def test_wire_keys_read_written_and_tested() -> None:
    code = """
        def f(m, b, d):
            x = m["content"]
            y = b.get("tool_use_id", "")
            z = b.pop("is_error", None)
            d["role"] = "user"
            w = "tool_use_id" in b
            v = b["thinking"]
            u = b["cache_control"]
    """
    assert facts(code) == [
        (3, "wire-key", "content"),
        (4, "wire-key", "tool_use_id"),
        (5, "wire-key", "is_error"),
        (6, "wire-key", "role"),
        (7, "wire-key", "tool_use_id"),
    ]


def test_block_and_message_literals() -> None:
    code = """
        def build(call, out, prompt):
            r = {"type": "tool_result", "tool_use_id": call["id"], "content": out}
            s = dict(type="text", text=out)
            m = {"role": "user", "content": [r, s]}
            n = {"role": role, "content": prompt}
            other = {"type": "object", "properties": {}}
            req = {"model": "x", "messages": [m]}
    """
    sites = scan(code)
    assert [(s.line, s.kind, s.detail, s.piece) for s in sites] == [
        (3, "wire-key", "id", "find tool calls"),
        (3, "block-literal", "tool_result", "build a block"),
        (4, "block-literal", "text", "build a block"),
        (5, "message-literal", "user", "build a message"),
        (6, "message-literal", "?", "build a message"),
    ]


def test_what_does_not_count() -> None:
    code = '''
        """A module about "tool_result" blocks and m["content"]."""
        from typing import Literal

        Kind = Literal["text", "tool_use"]
        KINDS = ("text", "tool_use", "tool_result")  # a tuple of names, not a test

        class Text:
            type: Literal["text"] = "text"

        def f(mode: Literal["text"], b: dict) -> str:
            """Compare with "tool_result" here? No: this is a docstring."""
            label: Literal["text"] = "text"
            print("tool_result", b.type)
            return mode + KINDS[0] + b[KIND] + b[0]
    '''
    assert facts(code) == []


def test_one_site_per_line_kind_and_literal() -> None:
    code = """
        def f(m):
            return [b for b in (m["content"] if isinstance(m["content"], list) else []) if b["type"] == "text"]
    """
    assert facts(code) == [(3, "kind-test", "text"), (3, "wire-key", "content")]


def test_nested_functions_and_methods_have_qualified_names() -> None:
    code = """
        class Engine:
            def run(self, reply):
                def calls():
                    return [b for b in reply["content"] if b["type"] == "tool_use"]
                return calls()

        async def go(m):
            return m["role"]

        TOP = {"role": "user", "content": "hi"}
    """
    assert [(s.function, s.detail) for s in scan(code)] == [
        ("Engine.run.calls", "tool_use"),
        ("Engine.run.calls", "content"),
        ("go", "role"),
        ("<module>", "user"),
    ]


# ---------------------------------------------------------------------------------------
# Pieces of knowledge
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "piece"),
    [
        ('return any(b["type"] == "tool_result" for b in m["content"])', "tell a tool result"),
        ('return {b["tool_use_id"] for b in m["content"] if "tool_use_id" in b}', "tell a tool result"),
        ('return [b for b in m["content"] if b["type"] == "tool_use"]', "find tool calls"),
        ('return [(b["name"], b["input"]) for b in m["content"]]', "find tool calls"),
        ('return "".join(b["text"] for b in m["content"] if b["type"] == "text")', "read text"),
        ('return [b for b in m["content"] if b.get("type") == "thinking"]', "read thinking"),
        ('return [b["text"] if b["type"] == "text" else "(tool call)" for b in m["content"]]', "dispatch on the kind"),
        ('return [b for b in m["content"] if b["type"] in ("text", "tool_use")]', "dispatch on the kind"),
        ('return [b["text"] for b in m["content"] if b["type"] == "tool_result"]', "dispatch on the kind"),
        ("return f\"{m['role']}: {m['content']}\"", "walk a message"),
    ],
)
def test_the_piece_of_a_function(body: str, piece: str) -> None:
    sites = scan(f"def f(m):\n    {body}\n")
    assert sites, body
    assert {s.piece for s in sites} == {piece}


def test_an_if_with_an_else_dispatches_but_a_plain_if_does_not() -> None:
    with_else = """
        def f(b):
            if b["type"] == "text":
                return 1
            else:
                return 0
    """
    plain_if = """
        def g(b):
            if not b["type"] == "text":
                return 0
            return 1
    """
    negated_else = """
        def h(b):
            if not b["type"] == "text":
                return 0
            else:
                return 1
    """
    assert {s.piece for s in scan(with_else)} == {"dispatch on the kind"}
    assert {s.piece for s in scan(plain_if)} == {"read text"}
    assert {s.piece for s in scan(negated_else)} == {"dispatch on the kind"}


def test_literals_keep_their_own_piece_and_do_not_change_the_function_piece() -> None:
    code = """
        def submit(reply):
            calls = [b for b in reply["content"] if b["type"] == "tool_use"]
            return [{"type": "tool_result", "tool_use_id": c["id"], "content": "ok"} for c in calls]
    """
    pieces = {(s.kind, s.piece) for s in scan(code)}
    assert pieces == {
        ("kind-test", "find tool calls"),
        ("wire-key", "find tool calls"),
        ("block-literal", "build a block"),
    }


# ---------------------------------------------------------------------------------------
# Property: the scanner finds exactly what a generated function spells out
# ---------------------------------------------------------------------------------------

_KINDS = sorted(BLOCK_KINDS)
_KEYS = sorted(WIRE_KEYS)
_NOISE = ["x = 1", 'y = "tool_result_count"', 'z = m["metadata"]', "w = b.type", '"""tool_use in a docstring"""']

Statement = tuple[str, str, str]  # (source, site kind or "", detail)

statements: st.SearchStrategy[Statement] = st.one_of(
    st.sampled_from(_KINDS).map(lambda k: (f'a = b.get("type") == "{k}"', "kind-test", k)),
    st.sampled_from(_KINDS).map(lambda k: (f'a = b.type != "{k}"', "kind-test", k)),
    st.sampled_from(_KEYS).map(lambda k: (f'a = b["{k}"]', "wire-key", k)),
    st.sampled_from(_KEYS).map(lambda k: (f'a = b.get("{k}", None)', "wire-key", k)),
    st.sampled_from(_KINDS).map(lambda k: (f'a = {{"type": "{k}", "x": 1}}', "block-literal", k)),
    st.sampled_from(["user", "assistant"]).map(
        lambda r: (f'a = {{"role": "{r}", "content": ""}}', "message-literal", r)
    ),
    st.sampled_from(_NOISE).map(lambda s: (s, "", "")),
)


def expected_piece(stmts: list[Statement]) -> str | None:
    implied = {"text": "text", "signature": "thinking", "id": "tool_use", "name": "tool_use", "input": "tool_use"}
    implied |= {"tool_use_id": "tool_result", "is_error": "tool_result"}
    kinds = {d for _, k, d in stmts if k == "kind-test"}
    kinds |= {implied[d] for _, k, d in stmts if k == "wire-key" and d in implied}
    if len(kinds) >= 2:
        return "dispatch on the kind"
    single = {"tool_result": "tell a tool result", "tool_use": "find tool calls", "text": "read text"}
    single["thinking"] = "read thinking"
    return single[kinds.pop()] if kinds else "walk a message"


@settings(max_examples=150)
@given(st.lists(statements, max_size=12))
def test_scanner_finds_exactly_the_spelled_out_sites(stmts: list[Statement]) -> None:
    source = "def f(b, m):\n" + "".join(f"    {s}\n" for s, _, _ in stmts) + "    return None\n"
    sites = scan_source(source)
    expected = [(i + 2, k, d) for i, (_, k, d) in enumerate(stmts) if k]
    assert [(s.line, s.kind, s.detail) for s in sites] == expected
    reads = expected_piece(stmts)
    for s in sites:
        if s.kind == "block-literal":
            assert s.piece == "build a block"
        elif s.kind == "message-literal":
            assert s.piece == "build a message"
        else:
            assert s.piece == reads
        assert s.function == "f" and s.code == source.splitlines()[s.line - 1].strip()


@settings(max_examples=60)
@given(st.lists(statements, max_size=8), st.integers(0, 4))
def test_blank_lines_and_comments_only_shift_lines(stmts: list[Statement], pad: int) -> None:
    body = "".join(f"    {s}\n" for s, _, _ in stmts) + "    pass\n"
    plain = scan_source("def f(b, m):\n" + body)
    padded = scan_source("# a comment about tool_result\n" * pad + "\n" * pad + "def f(b, m):\n" + body)
    assert [(s.line + 2 * pad, s.kind, s.detail, s.piece) for s in plain] == [
        (s.line, s.kind, s.detail, s.piece) for s in padded
    ]


# ---------------------------------------------------------------------------------------
# Tables and descriptions
# ---------------------------------------------------------------------------------------


def test_tabulate_counts_every_site_once() -> None:
    sites = scan_block_knowledge(msgmodel.course.legacy)
    table = tabulate(sites)
    assert table.total == len(sites) == 34
    assert table.columns == ("api", "compact29", "engine", "summary30")
    assert [label for label, _ in table.rows] == [p for p in PIECES if any(s.piece == p for s in sites)]
    assert table.count("tell a tool result", "compact29") == 3
    assert table.count("build a block", "engine") == 2
    assert sum(table.column_totals) == table.total
    with pytest.raises(KeyError, match="storage"):
        table.count("build a block", "storage")


@settings(max_examples=40)
@given(st.lists(statements, max_size=10), st.sampled_from(["piece", "module", "kind", "detail", "function"]))
def test_tabulate_rows_and_columns_add_up(stmts: list[Statement], axis: str) -> None:
    source = "def f(b, m):\n" + "".join(f"    {s}\n" for s, _, _ in stmts) + "    pass\n"
    sites = scan_source(source) + scan_source(source.replace("def f", "def g"), module="other", path="other.py")
    for rows, columns in (("piece", axis), (axis, "module")):
        table = tabulate(sites, rows=rows, columns=columns)  # type: ignore[arg-type]
        assert table.total == len(sites)
        assert sum(sum(c) for _, c in table.rows) == sum(table.column_totals) == len(sites)
        assert len({label for label, _ in table.rows}) == len(table.rows)


def test_table_renders_as_text_and_html() -> None:
    table = tabulate(scan_block_knowledge(msgmodel.course.legacy), rows="piece", columns="module")
    text = str(table)
    assert text == repr(table)
    lines = text.splitlines()
    assert lines[0].split() == ["piece", "api", "compact29", "engine", "summary30", "total"]
    assert lines[-1].split() == ["total", "5", "5", "10", "14", "34"]
    assert "·" in text
    html = table._repr_html_()
    assert html.startswith("<table>") and html.count("<tr>") == len(table.rows) + 2
    weird = tabulate(scan_source('def f(b):\n    return b["type"] == "text"\n', module="<a&b>"))
    assert "&lt;a&amp;b&gt;" in weird._repr_html_()


def test_short_module_names_drop_the_shared_prefix() -> None:
    sites = scan_block_knowledge("msgmodel", exclude=["msgmodel.course.exercises"])
    columns = tabulate(sites).columns
    assert "course.legacy.engine" in columns and "core.engine" not in columns  # msgmodel.core.engine has no site
    assert "core.message" in columns
    one = scan_block_knowledge("msgmodel.course.legacy.engine")
    assert tabulate(one).columns == ("engine",)


def test_describe_says_where_each_piece_lives() -> None:
    text = describe(scan_block_knowledge(msgmodel.course.legacy))
    lines = text.splitlines()
    assert lines[0] == "34 sites in 11 functions of 4 modules know a block's shape by hand."
    assert any(
        line.split() == ["tell", "a", "tool", "result", "3", "sites", "compact29._is_clean_user_start", "(49,", "50)"]
        for line in lines
    ), text
    assert describe([]) == "No site knows a block's shape by hand."
    typed = describe(scan_source('def f(b):\n    return b.type == "text"\n'))
    assert "1 of them typed" in typed.splitlines()[0]


# ---------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------


def test_errors_name_the_file_and_what_is_wrong(tmp_path: Path) -> None:
    bad = tmp_path / "broken.py"
    bad.write_text("def f(:\n    pass\n")
    with pytest.raises(ScanError, match=r"^broken\.py:1: cannot parse"):
        scan_block_knowledge(bad)
    with pytest.raises(ScanError, match="no such file or directory: 'nowhere'"):
        scan_block_knowledge(tmp_path / "nowhere")
    with pytest.raises(ScanError, match=r"no module named 'msgmodel\.nowhere'"):
        scan_block_knowledge("msgmodel.nowhere")
    with pytest.raises(ScanError, match="cannot scan a int"):
        scan_block_knowledge([3])  # type: ignore[list-item]
    with pytest.raises(ScanError, match="cannot scan a int"):
        scan_block_knowledge(3)  # type: ignore[arg-type]
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(ScanError, match=r"not a Python file: 'notes\.txt'"):
        scan_block_knowledge(text)
    with pytest.raises(ScanError, match=r"snippet\.py:2: cannot parse"):
        scan_source("x = 1\ny = (\n")
    assert issubclass(ScanError, ValueError)


def test_a_file_outside_any_package_is_named_by_its_file(tmp_path: Path) -> None:
    f = tmp_path / "loose.py"
    f.write_text('def f(m):\n    return m["content"]\n')
    (site,) = scan_block_knowledge(f)
    assert (site.module, site.path, site.where) == ("loose", "loose.py", "loose.py:2")
