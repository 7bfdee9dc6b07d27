"""Whether a given value passes a schema's own keywords: the check behind ``const`` and ``enum``.

This module owns one question of ``msgmodel.api.schema_instance``: a ``const`` or ``enum`` value is
written as it is, so does it pass the other keywords of its schema? ``failed_keyword(value,
schema, path)`` names the first keyword it fails, of those cheap and certain to check: ``type``
(``integer`` takes a whole float, never a boolean), ``const`` and ``enum`` (JSON equality:
``json_equal``, where ``1 == 1.0`` but ``true`` is not ``1``), the numeric bounds and
``multipleOf`` (``msgmodel.api.schema_numbers.admits``), the lengths of strings, arrays and objects,
``required``, and ``pattern`` when it runs in-process on that string (``msgmodel.api.budget``).
A value that fails one of them can never be valid, so an ``enum`` none of whose values passes
proves the schema unsatisfiable. ``declared_types`` reads ``type`` (a name or a list of them).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from msgmodel.api import budget
from msgmodel.api.pattern_text import PATTERN_MAX_LENGTH
from msgmodel.api.schema_numbers import admits as number_admits

__all__ = ["TYPES", "declared_types", "failed_keyword", "json_equal"]

TYPES: Final = ("object", "array", "string", "integer", "number", "boolean", "null")
_SIZE_KEYWORDS: Final[Mapping[type, tuple[str, str]]] = {
    str: ("minLength", "maxLength"),
    list: ("minItems", "maxItems"),
    dict: ("minProperties", "maxProperties"),
}


def _is_num(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def failed_keyword(value: object, schema: Mapping[str, Any], path: str) -> str | None:
    """The keyword of ``schema`` that ``value`` fails, of those cheap to check (see the module docstring), or None."""
    budget.check(path)
    types = declared_types(schema.get("type"))
    if types is not None and not any(_has_type(value, t) for t in types):
        return f"type ({', '.join(types)})"
    if "const" in schema and not json_equal(value, schema["const"]):
        return "const"
    enum = schema.get("enum")
    if isinstance(enum, list) and not any(json_equal(value, v) for v in enum):
        return "enum"
    if _is_num(value) and not number_admits(value, schema):
        return "bounds or multipleOf"
    if isinstance(value, (str, list, dict)):
        low, high = _SIZE_KEYWORDS[type(value)]
        least: Any = schema.get(low)
        most: Any = schema.get(high)
        if (_is_num(least) and len(value) < least) or (_is_num(most) and len(value) > most):
            return f"{low}/{high}"
    required = schema.get("required")
    if (
        isinstance(value, dict)
        and isinstance(required, list)
        and any(isinstance(r, str) and r not in value for r in required)
    ):
        return "required"
    pattern = schema.get("pattern")
    if isinstance(value, str) and isinstance(pattern, str) and len(pattern) <= PATTERN_MAX_LENGTH:
        try:
            if budget.runs_in_process(pattern, len(value)) and not budget.search(pattern, value, f"{path}.pattern"):
                return "pattern"
        except re.error:
            return None  # reported where the pattern itself is read
    return None


def declared_types(t: object) -> list[str] | None:
    """The JSON type names ``type`` allows (a name or a list), or None when it is absent or not names."""
    if isinstance(t, str):
        return [t] if t in TYPES else None
    if isinstance(t, list) and t and all(isinstance(x, str) and x in TYPES for x in t):
        return list(dict.fromkeys(t))
    return None


def _has_type(value: object, t: str) -> bool:
    match t:
        case "null":
            return value is None
        case "boolean":
            return isinstance(value, bool)
        case "integer":
            if isinstance(value, float):
                return value.is_integer()
            return isinstance(value, int) and not isinstance(value, bool)
        case "number":
            return _is_num(value)
        case "string":
            return isinstance(value, str)
        case "array":
            return isinstance(value, list)
        case _:
            return isinstance(value, dict)


def json_equal(a: object, b: object) -> bool:
    """JSON equality as validators test ``const`` / ``enum``: ``1 == 1.0``, but ``true`` is not ``1``.

    Iterative: a value nested a thousand levels deep is compared without recursion."""
    pairs: list[tuple[object, object]] = [(a, b)]
    while pairs:
        x, y = pairs.pop()
        if x is y:
            continue
        if isinstance(x, bool) or isinstance(y, bool):
            if not (isinstance(x, bool) and isinstance(y, bool) and x == y):
                return False
        elif _is_num(x) and _is_num(y):
            if x != y:
                return False
        elif isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return False
            pairs.extend(zip(x, y, strict=True))
        elif isinstance(x, dict) and isinstance(y, dict):
            if x.keys() != y.keys():
                return False
            pairs.extend((x[k], y[k]) for k in x)
        elif type(x) is not type(y) or x != y:
            return False
    return True
