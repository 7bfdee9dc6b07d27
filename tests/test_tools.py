"""The demo tools: the in-memory file system, the safe calculator, the registry and ``run_tool``."""

from __future__ import annotations

import operator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from msgmodel.api.demo_tools import DEMO_FILES, calculator, demo_registry, grep, list_dir, read_file
from msgmodel.core.message import ToolResultBlock, ToolUseBlock, to_api, tool_result_msg
from msgmodel.core.tools import Tool, ToolError, ToolRegistry, input_problem, run_tool, tools_param

REGISTRY = demo_registry()


def call(name: str, **args: Any) -> ToolResultBlock:
    return run_tool(REGISTRY, ToolUseBlock(id="toolu_1", name=name, input=args))


# ---------------------------------------------------------------------------------------
# calculator
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("1 + 2", "3"),
        ("(3 + 4) * 2 ** 3", "56"),
        ("7 / 2", "3.5"),
        ("7 // 2", "3"),
        ("-7 % 3", "2"),
        ("-(2 ** 2)", "-4"),
        ("+5", "5"),
        ("2 ** -1", "0.5"),
        ("1.5 * 4", "6.0"),
        ("  10 - 4  ", "6"),
    ],
)
def test_calculator_evaluates_arithmetic(expression: str, value: str) -> None:
    assert calculator(expression) == value


_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv, "%": operator.mod}


@settings(max_examples=200)
@given(st.integers(-(10**12), 10**12), st.sampled_from(sorted(_OPS)), st.integers(-(10**12), 10**12))
def test_calculator_agrees_with_python_on_integers(a: int, op: str, b: int) -> None:
    expr = f"({a}) {op} ({b})"
    if op in ("//", "%") and b == 0:
        with pytest.raises(ToolError, match="division by zero"):
            calculator(expr)
    else:
        assert calculator(expr) == str(_OPS[op](a, b))


@pytest.mark.parametrize(
    ("expression", "complaint"),
    [
        ("x + 1", "names are not allowed (found `x`)"),
        ("__import__('os').system('echo pwned')", "function calls are not allowed"),
        ("(1).real", "attribute access is not allowed (found `.real`)"),
        ("abs(-1)", "function calls are not allowed"),
        ("'a' * 3", "only numbers are allowed (found str 'a')"),
        ("True + 1", "only numbers are allowed (found bool True)"),
        ("1j * 2", "only numbers are allowed (found complex 1j)"),
        ("[1, 2][0]", "`Subscript` is not allowed"),
        ("lambda: 1", "`Lambda` is not allowed"),
        ("1 if 1 else 2", "`IfExp` is not allowed"),
        ("1 < 2", "`Compare` is not allowed"),
        ("1 << 2", "`BinOp` is not allowed"),
        ("~1", "`UnaryOp` is not allowed"),
        ("not 1", "`UnaryOp` is not allowed"),
        ("[x for x in ()]", "`ListComp` is not allowed"),
    ],
)
def test_calculator_refuses_anything_but_arithmetic(expression: str, complaint: str) -> None:
    result = call("calculator", expression=expression)
    assert result.is_error
    assert isinstance(result.content, str)
    assert complaint in result.content
    assert result.content.startswith("calculator: ")
    assert "use numbers, + - * / // % ** and parentheses" in result.content


def test_calculator_never_runs_a_call(tmp_path: Any) -> None:
    target = tmp_path / "pwned"
    result = call("calculator", expression=f"open({str(target)!r}, 'w').write('x')")
    assert result.is_error
    assert not target.exists()


@pytest.mark.parametrize(
    ("expression", "complaint"),
    [
        ("1 / 0", "division by zero"),
        ("5 % 0", "division by zero"),
        ("0 ** -1", "division by zero"),
        ("9 ** 9 ** 9", "result too large"),
        ("2.0 ** 100000", "result too large"),
        ("(-8) ** 0.5", "is not a real number"),
        ("1 +", "not an arithmetic expression"),
        ("1" * 201, "longer than 200 characters"),
        ("2**4000 * 2**4000", "result too large"),
    ],
)
def test_calculator_reports_bad_arithmetic(expression: str, complaint: str) -> None:
    with pytest.raises(ToolError, match="calculator: ") as err:
        calculator(expression)
    assert complaint in str(err.value)


@settings(max_examples=150)
@given(st.text(max_size=60))
def test_calculator_either_answers_or_refuses_with_a_tool_error(text: str) -> None:
    try:
        out = calculator(text)
    except ToolError as e:
        assert str(e).startswith("calculator: ")
    else:
        float(out)  # a number, nothing else


# ---------------------------------------------------------------------------------------
# the file system
# ---------------------------------------------------------------------------------------


def test_the_demo_project_is_a_small_python_project() -> None:
    assert set(DEMO_FILES) == {"README.md", "setup.cfg", "src/app.py", "src/config.py", "tests/test_app.py"}
    assert tools_param(demo_registry()) == tools_param(demo_registry())  # deterministic


def test_read_file_returns_the_text_and_normalizes_paths() -> None:
    assert read_file("src/app.py") == DEMO_FILES["src/app.py"]
    assert read_file("./src/../src/config.py") == DEMO_FILES["src/config.py"]


@pytest.mark.parametrize(
    ("path", "complaint"),
    [
        ("src/missing.py", "read_file: no such file: `src/missing.py`"),
        ("src", "read_file: `src` is a directory; use list_dir"),
        ("../etc/passwd", "is outside the project"),
        ("/etc/passwd", "is outside the project"),
    ],
)
def test_read_file_failures_are_error_results(path: str, complaint: str) -> None:
    result = call("read_file", path=path)
    assert result.is_error
    assert isinstance(result.content, str)
    assert complaint in result.content
    assert result.tool_use_id == "toolu_1"


def test_list_dir() -> None:
    assert list_dir(".") == "README.md\nsetup.cfg\nsrc/\ntests/"
    assert list_dir("src") == "app.py\nconfig.py"
    assert list_dir("src/") == "app.py\nconfig.py"
    assert call("list_dir", path="nowhere").content == "list_dir: no such directory: `nowhere`"
    assert call("list_dir", path="README.md").content == "list_dir: `README.md` is a file; use read_file"


def test_list_dir_of_a_custom_file_system() -> None:
    files = {"a/b/c.txt": "x", "a/d.txt": "y", "e.txt": "z"}
    assert list_dir(".", files=files) == "a/\ne.txt"
    assert list_dir("a", files=files) == "b/\nd.txt"


def test_grep() -> None:
    out = grep("APP_RETRIES")
    assert out.splitlines() == [
        "README.md:8: * `APP_RETRIES`: attempts before giving up (default 3)",
        'src/config.py:12:     if "APP_RETRIES" in os.environ:',
        'src/config.py:13:         config["retries"] = os.environ["APP_RETRIES"]  # TODO: int()',
    ]
    assert grep("APP_RETRIES", "src") == "\n".join(out.splitlines()[1:])
    assert grep("APP_RETRIES", "src/config.py") == "\n".join(out.splitlines()[1:])
    assert grep("no such text anywhere") == "no matches"


def test_grep_caps_its_output() -> None:
    files = {"big.txt": "\n".join(f"line {i}" for i in range(80))}
    lines = grep("line", files=files).splitlines()
    assert len(lines) == 51
    assert lines[-1] == "... 30 more matches"


def test_grep_failures_are_error_results() -> None:
    bad = call("grep", pattern="(")
    assert bad.is_error
    assert isinstance(bad.content, str)
    assert bad.content.startswith("grep: invalid regular expression `(`")
    missing = call("grep", pattern="x", path="nowhere")
    assert missing.is_error
    assert missing.content == "grep: no such file or directory: `nowhere`"


def test_file_tools_read_the_registry_file_system() -> None:
    registry = demo_registry({"notes.txt": "hello"})
    result = run_tool(registry, ToolUseBlock(id="t", name="read_file", input={"path": "notes.txt"}))
    assert result == ToolResultBlock(tool_use_id="t", content="hello")
    gone = run_tool(registry, ToolUseBlock(id="t", name="read_file", input={"path": "src/app.py"}))
    assert gone.is_error


# ---------------------------------------------------------------------------------------
# run_tool and the registry
# ---------------------------------------------------------------------------------------


def test_run_tool_answers_with_the_call_id() -> None:
    result = run_tool(REGISTRY, ToolUseBlock(id="toolu_abc", name="calculator", input={"expression": "6 * 7"}))
    assert result == ToolResultBlock(tool_use_id="toolu_abc", content="42", is_error=False)
    assert to_api([tool_result_msg([result])]) == [
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_abc", "content": "42"}]}
    ]


@pytest.mark.parametrize(
    ("name", "args", "complaint"),
    [
        ("rm", {"path": "/"}, "unknown tool `rm` (tools: read_file, list_dir, grep, calculator)"),
        ("read_file", {}, "read_file: missing required argument `path`"),
        ("read_file", {"path": 3}, "read_file: argument `path` must be of type string"),
        ("read_file", {"path": "README.md", "mode": "w"}, "read_file: unexpected argument `mode` (arguments: `path`)"),
        ("calculator", {"expression": None}, "calculator: argument `expression` must be of type string"),
    ],
)
def test_run_tool_turns_bad_calls_into_error_results(name: str, args: dict[str, Any], complaint: str) -> None:
    result = call(name, **args)
    assert result.is_error
    assert result.content == complaint


def _boom(**_: Any) -> str:
    raise RuntimeError("disk on fire")


def _not_text(**_: Any) -> str:
    return 42  # type: ignore[return-value]


def test_run_tool_turns_any_exception_into_an_error_result() -> None:
    registry = ToolRegistry(
        [
            Tool("boom", "Always fails.", {"type": "object", "properties": {}}, _boom),
            Tool("number", "Returns a number.", {"type": "object", "properties": {}}, _not_text),
        ]
    )
    boom = run_tool(registry, ToolUseBlock(id="t1", name="boom", input={}))
    assert boom == ToolResultBlock(tool_use_id="t1", content="boom failed: RuntimeError: disk on fire", is_error=True)
    number = run_tool(registry, ToolUseBlock(id="t2", name="number", input={}))
    assert number.is_error
    assert number.content == "number returned int, not text"


@settings(max_examples=100)
@given(
    st.sampled_from(["read_file", "list_dir", "grep", "calculator", "nope"]),
    st.dictionaries(
        st.sampled_from(["path", "pattern", "expression", "other"]),
        st.one_of(st.text(max_size=20), st.integers(), st.none(), st.booleans()),
        max_size=3,
    ),
)
def test_run_tool_never_raises(name: str, args: dict[str, Any]) -> None:
    result = run_tool(REGISTRY, ToolUseBlock(id="toolu_x", name=name, input=args))
    assert result.tool_use_id == "toolu_x"
    assert isinstance(result.content, str)


def test_registry_is_an_immutable_ordered_mapping() -> None:
    assert list(REGISTRY) == ["read_file", "list_dir", "grep", "calculator"]
    assert len(REGISTRY) == 4
    assert REGISTRY["calculator"].name == "calculator"
    with pytest.raises(AttributeError):
        REGISTRY._tools = {}
    with pytest.raises(TypeError):
        REGISTRY["x"] = REGISTRY["calculator"]  # type: ignore[index]
    with pytest.raises(ValueError, match="two tools named `calculator`"):
        ToolRegistry([REGISTRY["calculator"], REGISTRY["calculator"]])


def test_tools_param_is_the_api_tools_list() -> None:
    param = tools_param(REGISTRY)
    assert [t["name"] for t in param] == ["read_file", "list_dir", "grep", "calculator"]
    for t in param:
        assert set(t) == {"name", "description", "input_schema"}
        assert t["input_schema"]["type"] == "object"
        assert set(t["input_schema"]["required"]) <= set(t["input_schema"]["properties"])
    assert param[2]["input_schema"]["required"] == ["pattern"]
    # fresh copies: a caller mutating the list does not change the registry
    param[0]["input_schema"]["properties"].clear()
    assert tools_param(REGISTRY)[0]["input_schema"]["properties"] != {}


@pytest.mark.parametrize("declared", [["integer", {"a": 1}], [["string"]], {"type": "string"}, 7])
def test_input_problem_reads_what_it_can_of_a_type_that_is_not_type_names(declared: Any) -> None:
    # Before, a type list holding an object raised TypeError (unhashable), a 500 from the local API's
    # forced-call check (found by the schema fuzz job, issue 20).
    schema = {"type": "object", "properties": {"n": {"type": declared}}}
    assert input_problem(schema, {"n": 1}) is None
    assert input_problem(schema, {"n": "x"}) in (None, "argument `n` must be of type integer")
