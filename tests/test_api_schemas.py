"""Regression tests for the schema-driven answers of the local API (issue 20, items 1 to 3).

1. Amplification: a schema's instance is bounded in size *while it is built* (``const`` and ``enum``
   values count at their encoded size each time they are used), in a server whose memory and whose
   other clients are measured from outside (``/proc``, in a subprocess), also under an address-space
   limit; the time budget covers the model's answer and its encoding.
2. Malformed schemas and parameters are a 400 ``invalid_request_error`` naming the schema path, never
   a 500 (which the SDK retries twice).
3. Satisfiable schemas that real tool definitions use get a value ``jsonschema`` accepts; schemas the
   server can prove unsatisfiable get a 400 saying so; forcing a tool Anthropic defines gives an input
   of that tool's documented shape.

Each failed on the code before its fix (the 600-``$ref`` chain raised RecursionError; the 1 MiB
``const`` took the server to 2 GB; ``maximum: -3.5`` on an integer was a 400, ...).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from serving import HANG_GUARD

from msgmodel.api.scripted import ScriptedModel
from msgmodel.api.server import LocalAPI, handle_messages, local_client
from msgmodel.core.message import TextBlock

MODEL = "claude-haiku-4-5"
BODY: Any = {"model": MODEL, "max_tokens": 4096, "messages": [{"role": "user", "content": "go"}]}
_FORMATS = jsonschema.Draft202012Validator.FORMAT_CHECKER


def forced(schema: Any, **extra: Any) -> bytes:
    tools = [{"name": "t", "input_schema": schema}]
    return msgspec.json.encode({**BODY, "tools": tools, "tool_choice": {"type": "tool", "name": "t"}, **extra})


def as_output(schema: Any, **extra: Any) -> bytes:
    return msgspec.json.encode(
        {**BODY, "output_config": {"format": {"type": "json_schema", "schema": schema}}, **extra}
    )


def under_a(schema: Any, defs: dict[str, Any] | None = None) -> dict[str, Any]:
    """``schema`` as the required property ``a`` of an object (a tool's input is an object)."""
    root: dict[str, Any] = {"type": "object", "properties": {"a": schema}, "required": ["a"]}
    return {**root, "$defs": defs} if defs else root


def answered_value(body: bytes) -> Any:
    """The forced call's input (or the JSON output's value) of a 200, checked."""
    r = handle_messages(body)
    assert r.status == 200, r.json()
    payload = r.json()
    tool_use = next((b for b in payload["content"] if b["type"] == "tool_use"), None)
    if tool_use is not None:
        return tool_use["input"]
    return msgspec.json.decode(payload["content"][0]["text"])


def assert_schema_400(body: bytes, path: str) -> str:
    r = handle_messages(body)
    assert r.status == 400, r.json()
    error = r.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert error["message"].startswith(f"the local API cannot build a value for this schema: {path}"), error
    return str(error["message"])


# ---------------------------------------------------------------------------------------
# 1. Amplification
# ---------------------------------------------------------------------------------------

ONE_MIB = 1 << 20


def repeated_const(copies: int = 1000) -> dict[str, Any]:
    """A 1 MiB ``const`` reached ``copies`` times through ``$ref``: a request of about 1 MiB."""
    return {
        "type": "object",
        "$defs": {"big": {"const": "x" * ONE_MIB}},
        "properties": {f"p{i}": {"$ref": "#/$defs/big"} for i in range(copies)},
        "required": [f"p{i}" for i in range(copies)],
    }


@pytest.mark.parametrize("how", [forced, as_output])
def test_a_const_repeated_through_refs_is_refused_while_the_value_is_built(how: Any) -> None:
    # Before: a 200 whose answer held 1 000 MiB (2 GB of server memory), after 3 to 8 s.
    started = time.monotonic()
    message = assert_schema_400(how(repeated_const()), "$.properties.p")
    assert "bytes of JSON" in message
    assert time.monotonic() - started < HANG_GUARD


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "array", "minItems": 1000, "items": {"enum": ["y" * 65_536]}},
        {"type": "array", "minItems": 1000, "items": {"type": "array", "minItems": 1000, "items": {"const": 12345}}},
    ],
)
def test_enum_values_and_nested_arrays_count_toward_the_bound_too(schema: Any) -> None:
    assert_schema_400(as_output(schema), "$.items")


_SERVER = (
    "import resource, sys\n"
    "limit = int(sys.argv[1])\n"
    "if limit: resource.setrlimit(resource.RLIMIT_AS, (limit, limit))\n"
    "from msgmodel.api.server import make_server\n"
    "s = make_server(0)\n"
    "print(s.port, flush=True)\n"
    "s.serve_forever()\n"
)


def _post(port: int, body: bytes) -> tuple[int, float]:
    head = (
        "POST /v1/messages HTTP/1.1\r\nHost: x\r\nanthropic-version: 2023-06-01\r\nConnection: close\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD) as s:
        s.sendall(head.encode() + body)
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
    status = int(b"".join(chunks).split(maxsplit=2)[1])
    return status, time.monotonic() - started


def _peak_rss_mb(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("VmHWM:")).split()[1]) // 1024


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the server's peak memory from /proc")
@pytest.mark.parametrize("address_space", [0, 1 << 30])
def test_the_server_answers_the_repeated_const_in_bounded_memory_and_others_wait_not(address_space: int) -> None:
    """The server in a subprocess (``address_space``: its RLIMIT_AS, 0 for none); its peak RSS from /proc.

    Before: 2 030 MB and a 200; a tiny request from another client waited 2.8 to 7.8 s; under a 1.5 GB
    address-space limit a 500 ``MemoryError``, under 3 GB with three such arrays a SIGSEGV."""
    server = subprocess.Popen(
        [sys.executable, "-c", _SERVER, str(address_space)],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        tiny = msgspec.json.encode(BODY)
        assert _post(port, tiny)[0] == 200
        results: list[tuple[int, float]] = []
        big = threading.Thread(target=lambda: results.append(_post(port, forced(repeated_const()))), daemon=True)
        big.start()
        latencies = []
        while big.is_alive() or not latencies:
            status, seconds = _post(port, tiny)
            assert status == 200
            latencies.append(seconds)
        big.join(HANG_GUARD)
        assert results and results[0][0] == 400
        assert server.poll() is None, "the server died"
        assert _peak_rss_mb(server.pid) < 300  # ~32 MB here; 2 030 MB before
        assert max(latencies) < 2.0, latencies  # a generous bound: milliseconds here, seconds before
        assert _post(port, tiny)[0] == 200
    finally:
        server.kill()
        server.wait()


def test_the_budget_covers_the_models_answer_and_its_encoding() -> None:
    # Before, the budget was checked only inside the schema walk: a model that took longer than the
    # budget, or an answer whose encoding did, still got a 200 after it.
    def slow(request: Any) -> list[TextBlock]:
        time.sleep(0.3)
        return [TextBlock("late")]

    r = handle_messages(msgspec.json.encode(BODY), model=ScriptedModel([slow]), time_budget=0.1)
    assert r.status == 504 and r.json()["error"]["type"] == "timeout_error", r.json()
    assert "the model's answer" in r.json()["error"]["message"]
    assert handle_messages(msgspec.json.encode(BODY), model=ScriptedModel([slow]), time_budget=5.0).status == 200


# ---------------------------------------------------------------------------------------
# 2. No 500 on a malformed schema or parameter
# ---------------------------------------------------------------------------------------


def _ref_chain(n: int) -> tuple[Any, dict[str, Any]]:
    defs: dict[str, Any] = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(n)}
    defs[f"d{n}"] = {"type": "string"}
    return {"$ref": "#/$defs/d0"}, defs


MALFORMED: list[tuple[str, Any, dict[str, Any] | None, str]] = [  # (case, schema, $defs, the 400's path or "")
    ("a chain of 600 $refs", *_ref_chain(600), "$.properties.a"),
    ("anyOf referring to itself", {"anyOf": [{"$ref": "#/properties/a"}], "type": "string"}, None, "$.properties.a"),
    ("anyOf referring to the root", {"anyOf": [{"$ref": "#"}]}, None, "$.properties.a"),
    (
        "allOf into a properties that is a list",
        {"allOf": [{"properties": [1]}, {"properties": {}}]},
        None,
        "$.properties.a.allOf.0.properties",
    ),
    (
        "allOf under a properties that is a number",
        {"properties": 3, "allOf": [{"properties": {}}]},
        None,
        "$.properties.a.properties",
    ),
    (
        "allOf into a required that is a string",
        {"allOf": [{"required": "x"}, {"required": ["y"]}]},
        None,
        "$.properties.a.allOf.0.required",
    ),
    (
        "allOf under a required that is a number",
        {"required": 3, "allOf": [{"required": ["x"]}]},
        None,
        "$.properties.a.required",
    ),
    ("a pattern Python cannot compile", {"type": "string", "pattern": "a{5000000000}"}, None, "$.properties.a.pattern"),
    ("a type list holding an object", {"type": ["integer", {"a": 1}], "exclusiveMinimum": True}, None, ""),
    ("multipleOf past the float range", {"type": "number", "multipleOf": 10**400, "minimum": 1}, None, ""),
]


@pytest.mark.parametrize(("case", "schema", "defs", "path"), MALFORMED, ids=[m[0] for m in MALFORMED])
@pytest.mark.parametrize("how", ["tool", "output format"])
def test_a_malformed_schema_is_a_400_naming_its_path_not_a_500(
    case: str, schema: Any, defs: dict[str, Any] | None, path: str, how: str
) -> None:
    root = under_a(schema, defs)
    r = handle_messages(forced(root) if how == "tool" else as_output(root))
    assert r.status in ((400,) if path else (200, 400)), r.json()  # before: 500 (RecursionError, TypeError, ...)
    if r.status == 400:
        error = r.json()["error"]
        assert error["type"] == "invalid_request_error"
        assert error["message"].startswith("the local API cannot build a value for this schema: $"), error
        assert error["message"].split(": ", 1)[1].startswith(path or "$"), error
        assert "cannot read the schema here" not in error["message"]  # not the generator's last-resort net
    elif jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA).is_valid(root):
        jsonschema.Draft202012Validator(root, format_checker=_FORMATS).validate(answered_value(forced(root)))


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "number", "multipleOf": 5e-324, "minimum": 1},  # before: OverflowError (a 500)
        {"type": "integer", "minimum": int("9" * 400)},  # before: OverflowError (a 500)
        {"type": "number", "exclusiveMaximum": -int("9" * 400)},
        {"type": "integer", "multipleOf": 7, "minimum": 10**300 + 1},
    ],
)
def test_numbers_past_the_float_range_get_an_exact_valid_value(schema: Any) -> None:
    root = under_a(schema)
    jsonschema.Draft202012Validator(root).validate(answered_value(forced(root)))


def test_a_page_size_of_4401_digits_is_a_400_not_a_500() -> None:
    # Before: int() refused the 4 401 digits with a ValueError, answered as a 500.
    r = LocalAPI().handle("GET", "/v1/models?limit=" + "9" * 4401, {}, b"")
    assert r.status == 400 and r.json()["error"]["type"] == "invalid_request_error"
    assert r.json()["error"]["message"].startswith("limit: ")


def test_a_schema_path_does_not_grow_with_long_property_names() -> None:
    # A path is kept at every level of the walk: 100 levels of 100 kB names would hold 500 MB of paths.
    schema: Any = {"type": "string", "pattern": "("}
    for _ in range(100):
        schema = {"type": "object", "properties": {"k" * 100_000: schema}, "required": ["k" * 100_000]}
    message = assert_schema_400(as_output(schema), "$.properties.")
    assert len(message) < 10_000


# ---------------------------------------------------------------------------------------
# 3. Satisfiable schemas get a valid value; provably unsatisfiable ones a 400
# ---------------------------------------------------------------------------------------

SATISFIABLE: list[Any] = [
    {"type": "integer", "maximum": -3.5},  # before: "cannot build a value"
    {"type": "integer", "exclusiveMaximum": -3, "exclusiveMinimum": -5},
    {"type": "number", "multipleOf": 0.1, "minimum": 0.25},  # 0.3 / 0.1 is 2.9999999999999996: 0.4 it is
    {"type": "number", "multipleOf": 0.01, "exclusiveMinimum": 0},
    {"type": "integer", "multipleOf": 0.1, "minimum": 3},
    {"type": "number", "minimum": 0.1, "maximum": 0.2},
    {"type": "number", "exclusiveMinimum": 1e-9, "exclusiveMaximum": 2e-9},
    {"type": "integer", "minimum": 5, "maximum": 5},
    {"type": "string", "pattern": "^[A-Z]{2}-[0-9]{4}-[a-z]{3}$"},  # before: no placeholder matched
    {"type": "string", "pattern": "^\\d{3}-\\d{2}-\\d{4}$"},
    {"type": "string", "pattern": "^[a-z]+$", "minLength": 30},
    {"type": "string", "pattern": "^(GET|POST|PUT)$"},
    {"type": "string", "pattern": "^sk-[A-Za-z0-9]{32,}$"},
    {"type": "string", "pattern": "^(?P<w>ab)(?P=w)c$"},
    {"type": "string", "pattern": "^[^,;]+,[^,;]+$"},
    {"type": "string", "pattern": "^#[0-9a-fA-F]{6}$", "maxLength": 7},
    {"type": "string", "format": "email", "minLength": 40},
    {"type": "string", "format": "uri", "minLength": 40},
    {"enum": ["a", 1, None], "type": "integer"},
    {"enum": ["a", "bb", "ccc"], "minLength": 2},
    {"const": 3, "type": "number"},
    {"allOf": [{"type": ["string", "null"]}, {"type": "string"}]},
    {"allOf": [{"type": "number"}, {"type": ["integer", "boolean"]}]},
    {"allOf": [{"enum": [1, 2, 3]}, {"enum": [3, 4]}]},
    {
        "allOf": [
            {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            {"anyOf": [{"type": "string"}, {"type": "null"}]},
        ]
    },
    {"anyOf": [{"type": "integer"}, {"type": "string"}], "oneOf": [{"type": "string"}]},
    {"type": "array", "contains": {"const": "x"}, "items": {"type": "string"}},
    {"type": "array", "contains": {"type": "integer"}, "minContains": 2},
    {"type": "object", "properties": {"a": {}}, "required": ["a"], "dependentRequired": {"a": ["b"]}},
    {
        "type": "object",
        "patternProperties": {"^n_": {"type": "integer"}},
        "additionalProperties": False,
        "required": ["n_1"],
    },
    {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 3}, "minItems": 4, "uniqueItems": True},
    {"type": "array", "items": {"type": "string", "pattern": "^[a-z]{3}$"}, "minItems": 3, "uniqueItems": True},
    {"allOf": [{"properties": {"x": {"type": "integer"}}}, {"properties": {"x": {"minimum": 5}}}], "required": ["x"]},
    {
        "allOf": [{"properties": {"a": {"type": "string"}}}],
        "properties": {"b": {}},
        "required": ["b"],
        "additionalProperties": False,
    },
]


@pytest.mark.parametrize("schema", SATISFIABLE, ids=[msgspec.json.encode(s).decode()[:60] for s in SATISFIABLE])
def test_a_satisfiable_schema_gets_a_value_jsonschema_accepts(schema: Any) -> None:
    root = under_a(schema)
    value = answered_value(forced(root))
    jsonschema.Draft202012Validator(root, format_checker=_FORMATS).validate(value)
    jsonschema.Draft202012Validator(schema, format_checker=_FORMATS).validate(answered_value(as_output(schema)))


def test_draft_4_boolean_exclusive_bounds_are_read_as_draft_4_means_them() -> None:
    schema = {"type": "number", "maximum": 100, "exclusiveMaximum": True, "minimum": 99.5}
    jsonschema.Draft4Validator(schema).validate(answered_value(as_output(schema)))


UNSATISFIABLE: list[tuple[Any, str]] = [
    ({"const": 1, "type": "string"}, "const"),  # before: a 200 whose value did not validate
    ({"enum": ["a"], "type": "integer"}, "enum"),
    ({"enum": ["a", "b"], "maxLength": 0}, "enum"),
    ({"type": "integer", "minimum": 5, "maximum": 1}, "maximum"),
    ({"type": "integer", "minimum": 0.2, "maximum": 0.8}, "maximum"),
    ({"type": "integer", "multipleOf": 3, "minimum": 1, "maximum": 2}, "multipleOf"),
    ({"type": "number", "exclusiveMinimum": 1, "exclusiveMaximum": 1}, "exclusiveMaximum"),
    ({"allOf": [{"type": "string"}, {"type": "integer"}]}, "allOf.1.type"),
    ({"allOf": [{"const": "a"}, {"const": "b"}]}, "allOf.1.const"),
    ({"type": "object", "required": ["x"], "additionalProperties": False}, "required"),
    ({"type": "string", "pattern": "^a{10}$", "maxLength": 5}, "pattern"),
    ({"type": "array", "minItems": 3, "maxItems": 1}, "maxItems"),
    ({"anyOf": [False, {"not": {}, "type": "boolean", "enum": [1]}]}, ""),
    # Found by the 30 000-schema fuzz run: a const next to a union was returned without the union's
    # branches checking it; an allOf part's additionalProperties was read as covering only what no
    # other part declared.
    ({"anyOf": [{"type": "string"}, {"type": "null"}], "const": -1e308}, ""),
    (
        {
            "allOf": [
                {"properties": {"label": {"type": "string"}}, "required": ["label"]},
                {"additionalProperties": {"type": "array"}},
            ]
        },
        "type",
    ),
    (
        {
            "allOf": [{"properties": {"a": {}}, "required": ["a"]}],
            "properties": {"b": {}},
            "additionalProperties": False,
        },
        "additionalProperties",
    ),
]


@pytest.mark.parametrize(
    ("schema", "where"), UNSATISFIABLE, ids=[msgspec.json.encode(s).decode()[:60] for s, _ in UNSATISFIABLE]
)
def test_a_provably_unsatisfiable_schema_is_a_400_that_says_so(schema: Any, where: str) -> None:
    from msgmodel.api.schema_instance import SchemaError, instance_of

    with pytest.raises(SchemaError) as info:
        instance_of(schema)
    assert info.value.unsatisfiable, str(info.value)
    assert info.value.path.endswith(where) if where else True, str(info.value)
    assert_schema_400(forced(under_a(schema)), "$.properties.a")


def test_an_unproven_failure_is_not_called_unsatisfiable() -> None:
    from msgmodel.api.schema_instance import SchemaError, instance_of

    with pytest.raises(SchemaError) as info:
        instance_of({"type": "string", "pattern": "^(?=b)a$"})  # no string matches, but no proof of it here
    assert not info.value.unsatisfiable


_decimal = st.decimals(min_value=-1000, max_value=1000, places=2, allow_nan=False, allow_infinity=False)


@settings(max_examples=300)
@given(
    integer=st.booleans(),
    low=st.none() | _decimal,
    width=st.decimals(min_value=0, max_value=100, places=2),
    step=st.none() | st.sampled_from([0.1, 0.01, 0.25, 0.5, 2, 3, 7, 0.3]),
    open_low=st.booleans(),
    open_high=st.booleans(),
    has_high=st.booleans(),
)
def test_decimal_bounds_and_steps_get_a_valid_number_or_a_proven_400(
    integer: bool, low: Any, width: Any, step: Any, open_low: bool, open_high: bool, has_high: bool
) -> None:
    from msgmodel.api.schema_instance import SchemaError, instance_of

    schema: dict[str, Any] = {"type": "integer" if integer else "number"}
    if low is not None:
        schema["exclusiveMinimum" if open_low else "minimum"] = float(low)
    if has_high:
        schema["exclusiveMaximum" if open_high else "maximum"] = float((low or 0) + width)
    if step is not None:
        schema["multipleOf"] = step
    try:
        value = instance_of(schema)
    except SchemaError as e:  # only when no number exists, or none passes the float test validators make
        assert e.unsatisfiable or "validator accepts" in e.message, (schema, str(e))
        return
    jsonschema.Draft202012Validator(schema).validate(value)


# -- Anthropic-defined tools -------------------------------------------------------------------

ANTHROPIC_TOOLS: list[tuple[dict[str, Any], str, str, dict[str, Any]]] = [
    ({"type": "bash_20250124", "name": "bash"}, "tool_use", "bash", {"command": str}),
    (
        {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"},
        "tool_use",
        "",
        {"command": "view", "path": str},
    ),
    ({"type": "text_editor_20250124", "name": "str_replace_editor"}, "tool_use", "", {"command": "view", "path": str}),
    ({"type": "memory_20250818", "name": "memory"}, "tool_use", "memory", {"command": "view", "path": str}),
    ({"type": "web_search_20250305", "name": "web_search"}, "server_tool_use", "web_search", {"query": str}),
    ({"type": "web_fetch_20250910", "name": "web_fetch"}, "server_tool_use", "web_fetch", {"url": str}),
    ({"type": "code_execution_20250522", "name": "code_execution"}, "server_tool_use", "code_execution", {"code": str}),
    (
        {"type": "code_execution_20250825", "name": "code_execution"},
        "server_tool_use",
        "bash_code_execution",
        {"command": str},
    ),
    (
        {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
        "server_tool_use",
        "",
        {"query": str},
    ),
    (
        {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
        "server_tool_use",
        "",
        {"query": str},
    ),
]


@pytest.mark.parametrize(
    ("tool", "block", "name", "shape"), ANTHROPIC_TOOLS, ids=[t["type"] for t, *_ in ANTHROPIC_TOOLS]
)
def test_forcing_an_anthropic_defined_tool_gives_its_documented_input_shape(
    tool: dict[str, Any], block: str, name: str, shape: dict[str, Any]
) -> None:
    # Before: a tool_use with input {} for every one of them.
    c = local_client()
    said = "What is new at https://example.org/news today?"
    reply = c.messages.create(
        model=MODEL,
        max_tokens=256,
        messages=[{"role": "user", "content": said}],
        tools=[tool],  # type: ignore[list-item]
        tool_choice={"type": "tool", "name": tool["name"]},
    )
    call = reply.content[0]
    assert call.type == block and call.name == (name or tool["name"]), reply.content
    assert set(call.input) == set(shape), call.input  # type: ignore[union-attr]
    for key, expected in shape.items():
        value = call.input[key]  # type: ignore[union-attr, index]
        assert isinstance(value, str) and value if expected is str else value == expected, (key, value)
    if block == "server_tool_use":  # the API runs it: its result follows, here the documented "unavailable"
        result = reply.content[1]
        assert result.type.endswith("_tool_result") and result.tool_use_id == call.id  # type: ignore[union-attr]
        assert result.content.error_code == "unavailable"  # type: ignore[union-attr]
        assert reply.stop_reason == "end_turn"
        if tool["name"] == "web_fetch":
            assert call.input == {"url": "https://example.org/news"}  # type: ignore[union-attr]
    else:
        assert reply.stop_reason == "tool_use"


def test_a_forced_server_tool_call_replays_as_a_valid_history() -> None:
    c = local_client()
    tool: Any = {"type": "web_search_20250305", "name": "web_search"}
    first = c.messages.create(
        model=MODEL,
        max_tokens=64,
        messages=[{"role": "user", "content": "x"}],
        tools=[tool],
        tool_choice={"type": "any"},
    )
    history: Any = [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
        {"role": "user", "content": "and?"},
    ]
    again = c.messages.create(model=MODEL, max_tokens=64, messages=history, tools=[tool])
    assert again.content and again.content[0].type == "text"
