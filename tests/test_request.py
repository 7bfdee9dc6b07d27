"""``msgmodel.api.request``: the whole request body validated, field by field, against the pinned SDK.

Run as a script to regenerate the table: ``.venv/bin/python tests/test_request.py`` writes
``msgmodel/data/known_request.json``.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from msgmodel.api.request import REQUEST_RULES, known_models, validate_body
from msgmodel.core.protocol import validate

TABLE = Path(__file__).resolve().parent.parent / "msgmodel" / "data" / "known_request.json"

# ---------------------------------------------------------------------------------------
# The table, derived from the installed SDK
# ---------------------------------------------------------------------------------------


def derive_known_request() -> dict[str, Any]:
    """Every table of ``msgmodel/data/known_request.json``, read from the installed ``anthropic`` SDK's types.

    ``REQUEST``: the fields of ``MessageCreateParams`` (GA and beta merged; ``betas`` travels as a
    header and is left out; ``messages`` is ``any`` here, ``msgmodel.core.protocol`` owns it).
    ``TYPES``: every TypedDict those fields reach, by class name. ``MODELS``: the ``Model`` literal.
    """
    import collections.abc
    import typing

    import anthropic
    import anthropic.types as t
    import anthropic.types.beta.message_create_params as bp
    import anthropic.types.message_create_params as gp
    import typing_extensions

    types_: dict[str, Any] = {}

    def unwrap(tp: Any) -> Any:
        while get_origin(tp) in (typing.Required, typing.NotRequired, Annotated):
            tp = get_args(tp)[0]
        return tp

    def spec(tp: Any) -> Any:
        tp = unwrap(tp)
        origin = get_origin(tp)
        if tp is str:
            return ("str",)
        if tp is bool:
            return ("bool",)
        if tp is int:
            return ("int",)
        if tp is float:
            return ("float",)
        if tp is type(None) or tp is None:
            return ("null",)
        if tp is object or tp is Any:
            return ("any",)
        if origin is Literal:  # sorted: typing caches equal Literals, whichever order was seen first
            return ("lit", tuple(sorted(get_args(tp), key=lambda v: (type(v).__name__, repr(v)))))
        if origin in (Union, types.UnionType):
            return union([spec(a) for a in get_args(tp)])
        if origin in (list, collections.abc.Iterable, collections.abc.Sequence) or (
            origin is not None and getattr(origin, "__name__", "") == "SequenceNotStr"
        ):
            return ("list", spec(get_args(tp)[0]))
        if origin is dict:
            return ("map", spec(get_args(tp)[1]))
        if typing_extensions.is_typeddict(tp):
            name = tp.__name__
            if name not in types_:
                types_[name] = None  # a placeholder breaks recursion
                hints = get_type_hints(tp, include_extras=True)
                required = tuple(sorted(k for k, v in hints.items() if get_origin(v) is typing.Required))
                types_[name] = ("obj", {k: spec(v) for k, v in hints.items()}, required)
            return ("ref", name)
        raise TypeError(f"no spec for {tp!r}")

    def union(members: list[Any]) -> Any:
        flat: list[Any] = []
        for m in members:
            for x in m[1] if m[0] == "union" else [m]:
                if x not in flat:
                    flat.append(x)
        if ("str",) in flat:  # Literal["a", ...] | str -> str (the literal only documents known values)
            flat = [x for x in flat if not (x[0] == "lit" and all(isinstance(v, str) for v in x[1]))]
        lits = [x for x in flat if x[0] == "lit"]
        if len(lits) > 1:  # Literal[a] | Literal[b] -> Literal[a, b]
            values = {(type(v), v): v for x in lits for v in x[1]}  # typing's caches may repeat members
            merged_lit = ("lit", tuple(sorted(values.values(), key=lambda v: (type(v).__name__, repr(v)))))
            flat = [merged_lit if x is lits[0] else x for x in flat if x[0] != "lit" or x is lits[0]]
        lists = [x for x in flat if x[0] == "list"]
        if len(lists) > 1:  # list[A] | list[B] -> list[A | B]
            merged = ("list", union([x[1] for x in lists]))
            flat = [merged if x is lists[0] else x for x in flat if x[0] != "list" or x is lists[0]]
        return flat[0] if len(flat) == 1 else ("union", tuple(flat))

    fields: dict[str, Any] = {}
    required: set[str] = set()
    for cls in (
        gp.MessageCreateParamsNonStreaming,
        gp.MessageCreateParamsStreaming,
        bp.MessageCreateParamsNonStreaming,
        bp.MessageCreateParamsStreaming,
    ):
        hints = get_type_hints(cls, include_extras=True)
        for k, v in hints.items():
            if k == "betas":
                continue
            s = ("any",) if k == "messages" else spec(v)
            fields[k] = s if k not in fields else union([fields[k], s])
        required |= {k for k, v in hints.items() if get_origin(v) is typing.Required and k != "stream"}
    (models,) = [a for a in get_args(t.Model) if get_origin(a) is Literal]

    return {
        "SDK_VERSION": anthropic.__version__,
        "MODELS": tuple(get_args(models)),
        "REQUEST": ("obj", fields, tuple(sorted(required))),
        "TYPES": dict(sorted(types_.items())),
    }


def render_known_request(tables: dict[str, Any]) -> bytes:
    """The bytes of ``msgmodel/data/known_request.json`` for ``tables`` (keys sorted, one level per line)."""
    import json

    return (json.dumps(msgspec.to_builtins(tables), indent=1, sort_keys=True) + "\n").encode()


def test_known_request_table_is_what_the_installed_sdk_derives() -> None:
    assert TABLE.read_bytes() == render_known_request(derive_known_request()), "regenerate: see the module docstring"


# ---------------------------------------------------------------------------------------
# validate_body
# ---------------------------------------------------------------------------------------

MODEL = "claude-haiku-4-5"
OK: dict[str, Any] = {"model": MODEL, "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
TOOL: dict[str, Any] = {"name": "grep", "input_schema": {"type": "object", "properties": {}}}


def first(body: object, **kwargs: Any) -> str | None:
    found = validate_body(body, **kwargs)
    return str(found[0]) if found else None


@pytest.mark.parametrize(
    "extra",
    [
        {"max_tokens": 0},
        {"stream": True},
        {"stream": False},
        {"temperature": 0},
        {"temperature": 1.0},
        {"top_p": 0.5},
        {"top_k": 5},
        {"temperature": None},
        {"stop_sequences": ["END", "\n\nHuman:"]},
        {"system": "be brief"},
        {"system": [{"type": "text", "text": "be brief", "cache_control": {"type": "ephemeral", "ttl": "1h"}}]},
        {"metadata": {"user_id": "u-1"}},
        {"metadata": {"user_id": None}},
        {"service_tier": "standard_only"},
        {"tools": [TOOL], "tool_choice": {"type": "tool", "name": "grep", "disable_parallel_tool_use": True}},
        {"tools": [TOOL], "tool_choice": {"type": "any"}},
        {"tools": [TOOL], "tool_choice": {"type": "none"}},
        {"tool_choice": {"type": "auto"}},
        {"tools": [{**TOOL, "type": "custom", "strict": True, "description": "d"}]},
        {"tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}]},
        {"thinking": {"type": "enabled", "budget_tokens": 1024}, "max_tokens": 2048},
        {"thinking": {"type": "adaptive"}},
        {"thinking": {"type": "disabled"}},
        {"output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}, "effort": "low"}},
        {"container": "container_1"},
        {"thread": None},
        {"context_management": None},
        {"inference_geo": "us"},
    ],
    ids=lambda e: ",".join(e),
)
def test_bodies_the_sdk_types_allow_are_accepted(extra: dict[str, Any]) -> None:
    assert validate_body({**OK, **extra}) == []


@pytest.mark.parametrize(
    ("extra", "text"),
    [
        ({"foo": 1}, "foo: Extra inputs are not permitted"),
        ({"response_format": {}}, "response_format: Extra inputs are not permitted"),
        ({"max_tokens": -1}, "max_tokens: Input should be greater than or equal to 0"),
        ({"max_tokens": 1.5}, "max_tokens: Input should be a valid integer"),
        ({"stream": "true"}, "stream: Input should be a valid boolean"),
        ({"stream": 1}, "stream: Input should be a valid boolean"),
        ({"temperature": 1.5}, "temperature: Input should be less than or equal to 1"),
        ({"temperature": -0.1}, "temperature: Input should be greater than or equal to 0"),
        ({"temperature": "hot"}, "temperature: Input should be a valid number"),
        ({"top_p": 2}, "top_p: Input should be less than or equal to 1"),
        ({"top_k": -1}, "top_k: Input should be greater than or equal to 0"),
        ({"top_k": 0.5}, "top_k: Input should be a valid integer"),
        (
            {"temperature": 0.5, "top_p": 0.5},
            "`temperature` and `top_p` cannot both be specified for this model. Please use only one.",
        ),
        ({"stop_sequences": "END"}, "stop_sequences: Input should be a valid list"),
        ({"stop_sequences": ["END", 3]}, "stop_sequences.1: Input should be a valid string"),
        ({"stop_sequences": [""]}, "stop_sequences.0: stop sequences must be non-empty strings"),
        ({"system": 5}, "system: Input should be a valid string"),
        ({"system": [{"type": "text"}]}, "system.0.text.text: Field required"),
        ({"metadata": {"user_id": 3}}, "metadata.user_id: Input should be a valid string"),
        ({"metadata": {"session": "x"}}, "metadata.session: Extra inputs are not permitted"),
        ({"service_tier": "fast"}, "service_tier: Input should be 'auto' or 'standard_only'"),
        ({"tools": {}}, "tools: Input should be a valid list"),
        ({"tools": [{"input_schema": {"type": "object"}}]}, "tools.0.custom.name: Field required"),
        ({"tools": [{"name": "grep"}]}, "tools.0.custom.input_schema: Field required"),
        ({"tools": [{"name": "grep", "input_schema": {}}]}, "tools.0.custom.input_schema.type: Field required"),
        (
            {"tools": [{"name": "grep", "input_schema": {"type": "array"}}]},
            "tools.0.custom.input_schema.type: Input should be 'object'",
        ),
        (
            {"tools": [{**TOOL, "name": "has space"}]},
            "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
        ),
        ({"tools": [TOOL, TOOL]}, "tools: Tool names must be unique."),
        ({"tools": [{**TOOL, "colour": "red"}]}, "tools.0.custom.colour: Extra inputs are not permitted"),
        ({"tools": [{"type": "web_search_20250305"}]}, "tools.0.web_search_20250305.name: Field required"),
        ({"tool_choice": "auto"}, "tool_choice: Input should be a valid dictionary or object to extract fields from"),
        ({"tool_choice": {}}, "tool_choice: Unable to extract tag using discriminator 'type'"),
        (
            {"tool_choice": {"type": "required"}},
            "tool_choice: Input tag 'required' found using 'type' does not match any of the expected tags: "
            "'any', 'auto', 'none', 'tool'",
        ),
        ({"tools": [TOOL], "tool_choice": {"type": "tool"}}, "tool_choice.tool.name: Field required"),
        (
            {"tools": [TOOL], "tool_choice": {"type": "tool", "name": "calc"}},
            "tool_choice.tool.name: Tool 'calc' not found in `tools`",
        ),
        ({"tool_choice": {"type": "any"}}, "tool_choice.type 'any' requires `tools` to be defined"),
        (
            {"tools": [TOOL], "tool_choice": {"type": "auto", "disable_parallel_tool_use": "yes"}},
            "tool_choice.auto.disable_parallel_tool_use: Input should be a valid boolean",
        ),
        (
            {"tools": [TOOL], "tool_choice": {"type": "none", "disable_parallel_tool_use": True}},
            "tool_choice.none.disable_parallel_tool_use: Extra inputs are not permitted",
        ),
        (
            {"thinking": {"type": "enabled", "budget_tokens": 512}},
            "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
        ),
        ({"thinking": {"type": "enabled"}}, "thinking.enabled.budget_tokens: Field required"),
        (
            {"thinking": {"type": "enabled", "budget_tokens": 1024}},
            "`max_tokens` must be greater than `thinking.budget_tokens`",
        ),
        (
            {"output_config": {"format": {"type": "json_schema"}}},
            "output_config.format.json_schema.schema: Field required",
        ),
        (
            {"output_config": {"effort": "extreme"}},
            "output_config.effort: Input should be 'high', 'low', 'max', 'medium' or 'xhigh'",
        ),
        ({"container": 5}, "container: Input should be a valid dictionary"),
        ({"mcp_servers": [{}]}, "mcp_servers.0.name: Field required"),
        ({"model": "claude-nope-9"}, "model: claude-nope-9"),
    ],
    ids=lambda x: x if isinstance(x, str) else ",".join(x),
)
def test_each_field_is_checked_with_the_api_wording(extra: dict[str, Any], text: str) -> None:
    assert first({**OK, **extra}) == text


def test_every_reported_rule_is_a_known_rule() -> None:
    body = {**OK, "foo": 1, "max_tokens": -1, "tools": [TOOL, TOOL], "model": "x"}
    assert {v.rule for v in validate_body(body)} <= set(REQUEST_RULES)


def test_schema_errors_come_in_the_sdk_field_order_and_before_the_model() -> None:
    body = {"foo": 1, "stream": "yes", "max_tokens": "5", "model": "claude-nope"}
    assert [str(v) for v in validate_body(body)] == [
        "max_tokens: Input should be a valid integer",
        "messages: Field required",
        "stream: Input should be a valid boolean",
        "foo: Extra inputs are not permitted",
    ]


def test_the_messages_rules_are_msgmodel_core_protocol_s() -> None:
    orphan = [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}]}]
    body = {**OK, "messages": orphan, "tools": [TOOL]}
    assert [str(v) for v in validate_body(body)] == [str(v) for v in validate(orphan, model=MODEL)]


def test_count_tokens_bodies_need_no_max_tokens() -> None:
    body = {k: v for k, v in OK.items() if k != "max_tokens"}
    assert first(body) == "max_tokens: Field required"
    assert validate_body(body, count_tokens=True) == []


def test_the_known_models_are_the_sdk_model_list_and_all_are_accepted() -> None:
    import anthropic.types

    (literal,) = [a for a in get_args(anthropic.types.Model) if get_origin(a) is Literal]
    assert known_models() == get_args(literal)
    for model in known_models():
        assert validate_body({**OK, "model": model}) == [], model


def test_an_unknown_model_is_reported_only_when_nothing_else_is_wrong() -> None:
    assert [v.rule for v in validate_body({**OK, "model": "gpt-4o"})] == ["model_not_found"]
    assert [v.rule for v in validate_body({**OK, "model": "gpt-4o", "max_tokens": -1})] == ["request_range"]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=12,
)
FIELDS = [
    "system",
    "tools",
    "tool_choice",
    "thinking",
    "metadata",
    "stop_sequences",
    "output_config",
    "container",
    "mcp_servers",
    "context_management",
    "temperature",
    "stream",
    "max_tokens",
    "model",
    "thread",
]


@settings(max_examples=300, deadline=None)
@given(field=st.sampled_from(FIELDS), value=JSON)
def test_any_json_in_any_field_gives_violations_at_that_field_never_an_exception(field: str, value: Any) -> None:
    found = validate_body({**OK, field: value})
    assert all(isinstance(v.message, str) and v.message for v in found)
    schema = [v for v in found if v.rule not in ("sampling_exclusive", "thinking_budget", "tool_choice_tool")]
    assert all(v.path == field or v.path.startswith(field + ".") or v.path == "" for v in schema), found


if __name__ == "__main__":
    TABLE.write_bytes(render_known_request(derive_known_request()))
    sys.exit(0)


def test_an_empty_model_id_is_named_not_left_blank() -> None:
    # Hypothesis found it: the 404's text was "model: " with nothing after it.
    (v,) = validate_body({**OK, "model": ""})
    assert v.rule == "model_not_found" and str(v) == 'model: ""'
