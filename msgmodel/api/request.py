"""What a Messages API request body may hold: every field, its type and range, and the model it names.

This module owns one decision for the local API: is a ``POST /v1/messages`` (or
``/v1/messages/count_tokens``) body acceptable *as a whole*, and if not, which violations (with
pydantic-style JSON paths) the live API would report. The ``messages`` array itself is judged by
``msgmodel.core.protocol.validate``; this module composes it with everything around it.

``validate_body(body, *, count_tokens=False) -> list[Violation]``
    Never raises; ``[]`` means accepted. ``violations[0]`` is the error to answer with. Rule
    ``model_not_found`` (``str(v) == "model: <id>"``) is the only one answered with HTTP 404
    ``not_found_error``; every other one is a 400 ``invalid_request_error``.
``known_models() -> tuple[str, ...]``
    The model ids the local API answers for: the ``Model`` literal of the pinned SDK.

Where the field list comes from
    ``msgmodel/data/known_request.json`` is GENERATED from the installed ``anthropic`` SDK
    (``derive_known_request`` in ``tests/test_request.py``; regenerate with
    ``.venv/bin/python tests/test_request.py``): the fields of ``MessageCreateParams``, GA and
    beta merged (our reading, as for block fields in ``msgmodel.core.protocol``: a beta field such
    as ``thread`` or ``context_management`` is accepted without the beta header; the live API
    refuses some of them without it), and every TypedDict they reach, with its required keys.
    Four fields the pinned SDK no longer types but the live API documents and third-party
    clients still send are added here: ``temperature`` and ``top_p`` (numbers in 0..1),
    ``top_k`` (an integer >= 0) and ``output_format`` (the structured-output beta's spelling of
    ``output_config.format``, which older SDKs send at the top level).

What is checked, in this order
    1. Schema, field by field in the SDK's order (``max_tokens``, ``messages``, ``model``, then
       the optional fields), then unknown top-level keys (``<key>: Extra inputs are not
       permitted``). Types are strict: ``"5"`` is not an integer, ``"true"`` not a boolean.
       Tagged unions name the tag in the path, as the live API does
       (``tools.0.custom.input_schema: Field required``, ``thinking.enabled.budget_tokens: ...``).
       The schema errors of ``messages`` (from ``msgmodel.core.protocol``) sit at its place.
    2. Ranges: ``max_tokens`` >= 0 (0 is valid: the SDK documents it for prompt-cache
       pre-warming); ``thinking.enabled.budget_tokens`` >= 1024; ``temperature``/``top_p`` in
       0..1, ``top_k`` >= 0; a custom tool's ``input_schema`` must be ``{"type": "object", ...}``;
       tool names match ``^[a-zA-Z0-9_-]{1,128}$``; stop sequences are non-empty.
    3. The ``messages`` rules of ``msgmodel.core.protocol`` (semantic part).
    4. Cross-field rules: tool names unique; ``tool_choice`` of type ``tool`` names a defined
       tool; ``any``/``tool`` need tools; ``budget_tokens`` below ``max_tokens`` when no tools are
       defined (with tools, interleaved thinking may span the turn, as the docs describe); ``temperature``
       and ``top_p`` not both.
    5. The model: an id outside ``known_models()`` is ``model: <id>`` (``model_not_found``).

Wording
    Verbatim from the live API (sources in ``docs/api-rules.md`` section 5): ``Field required``,
    ``Extra inputs are not permitted``, ``Input should be a valid ...``, ``Input should be
    greater than or equal to N`` (pydantic's texts), ``tools.N.custom.input_schema: Field
    required``, ``tools.N.custom.input_schema.type: Field required``, ``tools: Tool names must be
    unique.``, ``thinking.enabled.budget_tokens: Input should be greater than or equal to 1024``,
    ```temperature` and `top_p` cannot both be specified for this model. Please use only one.``,
    ``model: <id>`` (404 ``not_found_error``). OUR wording (no public capture found): the
    union-mismatch texts, the ``tool_choice`` texts, ``max_tokens`` versus ``budget_tokens``, the
    empty stop sequence, the ``input_schema.type`` literal text, and the order of a literal's
    values (sorted; pydantic lists them as declared, which typing's caches do not preserve).
"""

from __future__ import annotations

import functools
import importlib.resources
import math
import re
from collections.abc import Mapping
from typing import Any, Final

import msgspec

from msgmodel.core.protocol import Violation, thinking_budget_violation, validate
from msgmodel.core.protocol import _text_of_value as _text_of_value  # one rendering of values, core and server

__all__ = ["REQUEST_RULES", "known_models", "validate_body"]

REQUEST_RULES: Final[tuple[str, ...]] = (
    "request_type",
    "request_required_field",
    "request_extra_field",
    "request_range",
    "tool_name",
    "tool_input_schema",
    "tool_names_unique",
    "tool_choice_tool",
    "thinking_budget",
    "sampling_exclusive",
    "stop_sequence_empty",
    "model_not_found",
)
"""The rule ids this module adds to those of ``msgmodel.core.protocol``."""

_REQUIRED: Final = "Field required"
_EXTRA: Final = "Extra inputs are not permitted"
_NO_TAG: Final = "Unable to extract tag using discriminator 'type'"
_BAD_TAG: Final = "Input tag '{}' found using 'type' does not match any of the expected tags: {}"
_NOT_OBJECT: Final = "Input should be a valid dictionary or object to extract fields from"
_TYPE_TEXT: Final = {
    "str": "Input should be a valid string",
    "int": "Input should be a valid integer",
    "float": "Input should be a valid number",
    "bool": "Input should be a valid boolean",
    "null": "Input should be None",
    "list": "Input should be a valid list",
    "map": "Input should be a valid dictionary",
    "ref": "Input should be a valid dictionary",
}
_TOOL_NAME: Final = re.compile(r"[a-zA-Z0-9_-]{1,128}")
_TOOL_NAME_TEXT: Final = "String should match pattern '^[a-zA-Z0-9_-]{1,128}$'"
_UNIQUE: Final = "Tool names must be unique."
_BOTH_SAMPLING: Final = "`temperature` and `top_p` cannot both be specified for this model. Please use only one."
_MIN_BUDGET: Final = 1024
_SAMPLING: Final[dict[str, list[Any]]] = {
    "temperature": ["float"],
    "top_k": ["int"],
    "top_p": ["float"],
    "output_format": ["union", [["ref", "BetaJSONOutputFormatParam"], ["null"]]],
}
"""Fields the live API documents that the pinned SDK no longer types (see the module docstring)."""
_SCHEMA_RULES: Final = frozenset(
    {"schema_type", "schema_required_field", "schema_extra_field", "text_type", "unknown_block_type"}
    | {"tool_use_id_pattern", "role_name", "thinking_signature"}
)
"""``msgmodel.core.protocol`` rules that can be pydantic-stage (schema) errors."""
_MISSING: Final[Any] = object()


@functools.cache
def _tables() -> dict[str, Any]:
    raw = importlib.resources.files("msgmodel").joinpath("data/known_request.json").read_bytes()
    tables: dict[str, Any] = msgspec.json.decode(raw)
    return tables


def known_models() -> tuple[str, ...]:
    """The model ids the local API answers for (the pinned SDK's ``Model`` literal, newest first)."""
    return tuple(_tables()["MODELS"])


def _v(rule: str, path: str, message: str) -> Violation:
    return Violation(rule=rule, path=path, message=message, at=path)


def _join(path: str, key: object) -> str:
    return f"{path}.{key}" if path else str(key)


def _quote(value: object) -> str:
    return f"'{value}'" if isinstance(value, str) else repr(value)


def _literal_text(values: list[Any]) -> str:
    quoted = [_quote(v) for v in values]
    return "Input should be " + (quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1])


def _same(a: object, b: object) -> bool:
    return type(a) is type(b) and a == b


def _kind_of(value: object) -> str:
    match value:
        case None:
            return "null"
        case bool():
            return "bool"
        case int():
            return "int"
        case float():
            return "float"
        case str():
            return "str"
        case list():
            return "list"
        case dict():
            return "map"
        case _:
            return "other"


def _accepts_kind(spec: list[Any], kind: str) -> bool:
    """Whether a value of JSON ``kind`` could match ``spec`` at its top level."""
    head = spec[0]
    if head == "any":
        return True
    if head == "lit":
        return any(_kind_of(v) == kind for v in spec[1])
    if head == "union":
        return any(_accepts_kind(m, kind) for m in spec[1])
    if head == "ref":
        return kind == "map"
    if head == "float":
        return kind in ("int", "float")
    return bool(head == kind)


def _tag_of(spec: list[Any]) -> tuple[list[Any], bool] | None:
    """A union member's ``type`` tags and whether ``type`` may be absent; None if not tagged."""
    if spec[0] != "ref":
        return None
    _, fields, required = _tables()["TYPES"][spec[1]]
    t = fields.get("type")
    if t is None:
        return None
    members = t[1] if t[0] == "union" else [t]
    tags = [v for m in members if m[0] == "lit" for v in m[1]]
    if not tags or any(m[0] not in ("lit", "null") for m in members):
        return None
    return tags, "type" not in required


def _check(value: object, spec: list[Any], path: str, out: list[Violation]) -> None:
    """Append the violations of ``value`` against a type ``spec`` of the generated table."""
    head = spec[0]
    kind = _kind_of(value)
    if head == "any":
        return
    if head == "lit":
        values = spec[1]
        if any(_same(value, v) for v in values):
            return
        if all(isinstance(v, bool) for v in values) and not isinstance(value, bool):
            out.append(_v("request_type", path, _TYPE_TEXT["bool"]))
        else:
            out.append(_v("request_type", path, _literal_text(values)))
        return
    if head == "union":
        _check_union(value, spec[1], path, out)
        return
    if head == "ref":
        if not isinstance(value, dict):
            out.append(_v("request_type", path, _TYPE_TEXT["ref"]))
            return
        _check_object(value, _tables()["TYPES"][spec[1]], path, out)
        return
    if head == "float":
        if kind not in ("int", "float"):
            out.append(_v("request_type", path, _TYPE_TEXT["float"]))
        return
    if kind != head:
        out.append(_v("request_type", path, _TYPE_TEXT[head]))
        return
    if head == "list":
        assert isinstance(value, list)
        for i, item in enumerate(value):
            _check(item, spec[1], _join(path, i), out)
    elif head == "map":
        assert isinstance(value, dict)
        for k, item in value.items():
            _check(item, spec[1], _join(path, k), out)


def _check_object(value: dict[str, Any], obj: list[Any], path: str, out: list[Violation]) -> None:
    _, fields, required = obj
    for name in required:
        if name not in value:
            out.append(_v("request_required_field", _join(path, name), _REQUIRED))
    for name, item in value.items():
        field = fields.get(name)
        if field is None:
            out.append(_v("request_extra_field", _join(path, name), _EXTRA))
        else:
            _check(item, field, _join(path, name), out)


def _check_union(value: object, members: list[list[Any]], path: str, out: list[Violation]) -> None:
    if value is None and ["null"] in members:
        return
    concrete = [m for m in members if m[0] != "null"]
    tagged = [(m, _tag_of(m)) for m in concrete]
    if concrete and all(t is not None for _, t in tagged):
        if not isinstance(value, dict):
            out.append(_v("request_type", path, _NOT_OBJECT))
            return
        tag = value.get("type", _MISSING)
        candidates: list[tuple[list[Any], str]] = []
        for m, t in tagged:
            assert t is not None
            tags, optional = t
            if (tag is _MISSING or tag is None) and optional:
                candidates.append((m, str(tags[0])))
            elif any(_same(tag, x) for x in tags):
                candidates.append((m, str(tag)))
        if not candidates:
            if tag is _MISSING:
                out.append(_v("request_required_field", path, _NO_TAG))
            else:
                expected = sorted({str(x) for _, t in tagged if t is not None for x in t[0]})
                shown = _text_of_value(tag)  # as pydantic prints it: 'None', 'True' (not JSON's null, true)
                out.append(_v("request_type", path, _BAD_TAG.format(shown, ", ".join(f"'{x}'" for x in expected))))
            return
        _best_of([(m, _join(path, name)) for m, name in candidates], value, out)
        return
    fitting = [m for m in concrete if _accepts_kind(m, _kind_of(value))]
    if not fitting:  # our wording: the first member's type text
        first: list[Any] = concrete[0] if concrete else ["null"]
        text = _literal_text(first[1]) if first[0] == "lit" else _TYPE_TEXT.get(first[0], _TYPE_TEXT["map"])
        out.append(_v("request_type", path, text))
        return
    _best_of([(m, path) for m in fitting], value, out)


def _best_of(options: list[tuple[list[Any], str]], value: object, out: list[Violation]) -> None:
    """Accept ``value`` if any option does; else report the option with the fewest violations."""
    best: list[Violation] | None = None
    for spec, path in options:
        found: list[Violation] = []
        _check(value, spec, path, found)
        if not found:
            return
        if best is None or len(found) < len(best):
            best = found
    assert best is not None
    out.extend(best)


def _number_in(value: object, low: float, high: float | None) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return False
    return low <= value and (high is None or value <= high)


def _scalar_range(name: str, value: object, out: list[Violation]) -> None:
    """The range of a top-level number whose type is right (pydantic reports it at the field's place)."""
    high = {"temperature": 1.0, "top_p": 1.0}.get(name)
    if name not in ("max_tokens", "temperature", "top_p", "top_k") or not isinstance(value, (int, float)):
        return
    if not _number_in(value, 0.0, None):
        out.append(_v("request_range", name, "Input should be greater than or equal to 0"))
    elif high is not None and not _number_in(value, 0.0, high):
        out.append(_v("request_range", name, "Input should be less than or equal to 1"))


def _ranges(body: Mapping[str, Any], out: list[Violation]) -> None:
    """The range rules of step 2 below the top level, for fields whose type is right."""
    thinking = body.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") == "enabled":
        budget = thinking.get("budget_tokens")
        if isinstance(budget, int) and not isinstance(budget, bool) and budget < _MIN_BUDGET:
            text = f"Input should be greater than or equal to {_MIN_BUDGET}"
            out.append(_v("request_range", "thinking.enabled.budget_tokens", text))
    tools = body.get("tools")
    for i, tool in enumerate(tools if isinstance(tools, list) else []):
        if not isinstance(tool, dict) or tool.get("type") not in (None, "custom"):
            continue
        path = f"tools.{i}.custom"
        name = tool.get("name")
        if isinstance(name, str) and not _TOOL_NAME.fullmatch(name):
            out.append(_v("tool_name", f"{path}.name", _TOOL_NAME_TEXT))
        schema = tool.get("input_schema")
        if isinstance(schema, dict):
            if "type" not in schema:
                out.append(_v("tool_input_schema", f"{path}.input_schema.type", _REQUIRED))
            elif not _same(schema["type"], "object"):
                out.append(_v("tool_input_schema", f"{path}.input_schema.type", "Input should be 'object'"))
    stops = body.get("stop_sequences")
    for i, stop in enumerate(stops if isinstance(stops, list) else []):
        if stop == "":
            out.append(_v("stop_sequence_empty", f"stop_sequences.{i}", "stop sequences must be non-empty strings"))


def _tool_names(body: Mapping[str, Any]) -> list[str]:
    tools = body.get("tools")
    return (
        [t["name"] for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)]
        if isinstance(tools, list)
        else []
    )


def _cross_field(body: Mapping[str, Any], out: list[Violation]) -> None:
    """The rules of step 4 (each needs two fields)."""
    names = _tool_names(body)
    if len(set(names)) != len(names):
        out.append(_v("tool_names_unique", "tools", _UNIQUE))
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") in ("any", "tool") and not names:
        text = f"tool_choice.type '{choice['type']}' requires `tools` to be defined"
        out.append(_v("tool_choice_tool", "", text))
    elif isinstance(choice, dict) and choice.get("type") == "tool" and choice.get("name") not in names:
        text = f"Tool '{choice.get('name')}' not found in `tools`"
        out.append(_v("tool_choice_tool", "tool_choice.tool.name", text))
    if (too_small := thinking_budget_violation(body, tools_defined=bool(names))) is not None:
        out.append(too_small)
    if body.get("temperature") is not None and body.get("top_p") is not None:
        out.append(_v("sampling_exclusive", "", _BOTH_SAMPLING))


def _messages_parts(body: Mapping[str, Any]) -> tuple[list[Violation], list[Violation]]:
    """``msgmodel.core.protocol.validate`` on ``messages``: (schema violations, semantic violations)."""
    model = body.get("model")
    tools = body.get("tools")
    thinking = body.get("thinking")
    thinking_type = thinking.get("type") if isinstance(thinking, dict) else None
    found = validate(
        body["messages"],
        model=model if isinstance(model, str) else None,
        tools_defined=isinstance(tools, list) and len(tools) > 0,
        thinking=thinking_type if thinking_type in ("enabled", "disabled", "adaptive") else None,
    )
    split = next((i for i, v in enumerate(found) if v.rule not in _SCHEMA_RULES), len(found))
    return found[:split], found[split:]


def validate_body(body: object, *, count_tokens: bool = False) -> list[Violation]:
    """Every violation of a Messages API request ``body``, the API's answer first; never raises.

    ``count_tokens``: the body of ``/v1/messages/count_tokens``, which takes no ``max_tokens``.
    """
    if not isinstance(body, dict):
        return [_v("request_type", "", _TYPE_TEXT["map"])]
    _, fields, required = _tables()["REQUEST"]
    schema: list[Violation] = []
    semantic: list[Violation] = []
    for name, spec in [*fields.items(), *_SAMPLING.items()]:
        value = body.get(name, _MISSING)
        if value is _MISSING:
            if name in required and not (count_tokens and name == "max_tokens"):
                schema.append(_v("request_required_field", name, _REQUIRED))
        elif name == "messages":
            schema_m, semantic = _messages_parts(body)
            schema += schema_m
        elif not (name in _SAMPLING and value is None):
            before = len(schema)
            _check(value, spec, name, schema)
            if len(schema) == before:
                _scalar_range(name, value, schema)
    for name in body:
        if name not in fields and name not in _SAMPLING:
            schema.append(_v("request_extra_field", str(name), _EXTRA))
    _ranges(body, schema)
    if schema:
        return schema + semantic
    cross: list[Violation] = []
    _cross_field(body, cross)
    found = semantic + cross
    if not found and body["model"] not in known_models():
        shown = body["model"] or '""'  # an empty id is shown as "" (our wording), never as nothing
        found.append(Violation(rule="model_not_found", path="model", message=shown, at="model"))
    return found
