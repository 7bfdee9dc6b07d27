"""One deterministic JSON instance of a JSON schema, for the local API's forced tool calls and JSON output.

This module owns *making a value that a JSON schema accepts*: ``instance_of(schema)`` returns a
JSON value (dicts, lists, strings, numbers, booleans, None) built from the schema alone, the same
value for the same schema every time. The local Messages API uses it where the live API guarantees
schema-valid output: the ``input`` of a tool call forced by ``tool_choice`` and the text answering
``output_config.format`` of type ``json_schema``.

What it honours
    ``type`` (a name or a list: the first non-null one), ``enum`` and ``const`` (the first value),
    objects (every ``required`` property, built from ``properties`` or ``additionalProperties``;
    optional ones only to reach ``minProperties``), arrays (``items``, ``prefixItems`` and the
    draft-4 list form of ``items``; one item when ``minItems``/``maxItems`` allow it, otherwise
    ``minItems``; distinct items under ``uniqueItems``), strings (``minLength``, ``maxLength``, the
    formats ``date``, ``date-time``, ``time``, ``email``, ``uri``, ``uuid``, ``hostname``,
    ``ipv4``, ``ipv6``, ``duration``; a ``pattern`` only when a few plain candidates match it),
    numbers and integers (``minimum``, ``maximum``, both ``exclusive`` forms, ``multipleOf``),
    local ``$ref`` (``#``, ``#/$defs/...``, ``#/definitions/...``, any JSON pointer), ``allOf``
    (merged), ``anyOf`` / ``oneOf`` (the first branch that yields an instance), OpenAPI's
    ``nullable``, and the boolean schemas.

What it does not
    ``not``, ``if``/``then``/``else``, ``contains``, ``patternProperties``, ``dependentRequired``
    and remote references are not read; for ``oneOf`` the first branch's instance may match
    another branch too. A schema it cannot serve raises ``SchemaError`` naming the JSON path
    inside the schema (``$.properties.tags.minItems: ...``), never a bare KeyError or
    RecursionError: work is bounded (``MAX_STEPS`` schema nodes, ``MAX_ITEMS`` items,
    ``MAX_LENGTH`` characters per string, ``MAX_CHARS`` in all), so a hostile schema costs bounded memory; under a
    request's time budget (``msgmodel.api.budget``) every node and every ``pattern`` search is
    checked against the deadline, and ``BudgetExceeded`` stops the walk.

Strings are readable placeholders: a property's value is its name (``{"city": "city"}``), padded
or cut to the length bounds.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, Final

from msgmodel.api import budget

__all__ = ["MAX_CHARS", "MAX_ITEMS", "MAX_LENGTH", "MAX_STEPS", "SchemaError", "instance_of"]

MAX_STEPS: Final = 20_000
"""At most this many schema nodes are visited for one instance."""
MAX_ITEMS: Final = 1_000
"""A ``minItems`` / ``minProperties`` above this is refused."""
MAX_LENGTH: Final = 100_000
"""A ``minLength`` above this is refused."""
MAX_CHARS: Final = 1_000_000
"""The strings of one instance hold at most this many characters in all (our limit): before, 1 000
strings of ``MAX_LENGTH`` in each of 6 arrays took 1.7 GB for a request of 828 bytes."""
PATTERN_PROBE_MAX: Final = 20
"""A ``pattern`` is tried only on placeholders of at most this many characters: the request's own
regular expression runs here, and a backtracking one (``(x+x+)+y``) doubles its time with every
character, so a longer probe could stall the server."""
PATTERN_MAX_LENGTH: Final = 10_000
"""A longer ``pattern`` is refused (our limit): Python reads a pattern in the server's own process,
and one of 4 million characters took 12 s and 680 MB there, past the time budget."""

_FORMATS: Final[Mapping[str, str]] = {
    "date": "2024-01-01",
    "date-time": "2024-01-01T00:00:00Z",
    "time": "00:00:00Z",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "uri": "https://example.com/",
    "iri": "https://example.com/",
    "uri-reference": "https://example.com/",
    "url": "https://example.com/",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "hostname": "example.com",
    "idn-hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "duration": "P1D",
}
_TYPES: Final = ("object", "array", "string", "integer", "number", "boolean", "null")


class SchemaError(ValueError):
    """The schema has no instance this generator can build; ``path`` is where inside the schema."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


class _Dead(Exception):
    """This branch has no instance (a reference cycle with nothing to stop it); try the next one."""


def instance_of(schema: object) -> Any:
    """A JSON value valid against ``schema`` (a dict or a boolean), the same every time.

    Raises ``SchemaError`` (with the path inside the schema) when it cannot build one.
    """
    try:
        return _Generator(schema).build(schema, "$", key=None, variant=0)
    except _Dead as e:
        raise SchemaError(
            str(e), "the schema has no instance (a false schema, or a reference cycle it requires)"
        ) from None


class _Generator:
    def __init__(self, root: object) -> None:
        self.root = root
        self.steps = 0
        self.chars = 0
        self.refs: list[str] = []

    # -- the walk ---------------------------------------------------------------------------

    def build(self, schema: object, path: str, *, key: str | None, variant: int) -> Any:
        self.steps += 1
        budget.check(path)
        if self.steps > MAX_STEPS:
            raise SchemaError(path, f"the schema needs more than {MAX_STEPS} steps to instantiate")
        if schema is True:
            return key or "string"
        if schema is False:
            raise _Dead(path)
        if not isinstance(schema, Mapping):
            raise SchemaError(path, f"a schema must be an object or a boolean, got {type(schema).__name__}")
        if "$ref" in schema:
            return self._ref(schema, path, key=key, variant=variant)
        if "allOf" in schema:
            return self.build(self._merged(schema, path), path, key=key, variant=variant)
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            values = schema["enum"]
            if not isinstance(values, list) or not values:
                raise SchemaError(f"{path}.enum", "expected a non-empty array")
            return values[variant % len(values)]
        for union in ("anyOf", "oneOf"):
            if union in schema:
                return self._union(schema, union, path, key=key, variant=variant)
        match _type_of(schema, path):
            case "object":
                return self._object(schema, path, variant=variant)
            case "array":
                return self._array(schema, path, key=key, variant=variant)
            case "string":
                text = _string(schema, path, key=key, variant=variant)
                self.chars += len(text)
                if self.chars > MAX_CHARS:
                    raise SchemaError(path, f"the instance would hold more than {MAX_CHARS} characters of strings")
                return text
            case "integer":
                return _number(schema, path, integer=True, variant=variant)
            case "number":
                return _number(schema, path, integer=False, variant=variant)
            case "boolean":
                return variant % 2 == 1
            case _:
                return None

    def _ref(self, schema: Mapping[str, Any], path: str, *, key: str | None, variant: int) -> Any:
        ref = schema["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise SchemaError(f"{path}.$ref", f"only local references (#...) are supported, got {ref!r:.80}")
        if ref in self.refs:
            raise _Dead(path)  # a cycle: this branch never ends unless an enclosing choice avoids it
        target = _resolve(self.root, ref, f"{path}.$ref")
        siblings = {k: v for k, v in schema.items() if k not in ("$ref", "$defs", "definitions")}
        if siblings and isinstance(target, Mapping):  # 2020-12: $ref next to other keywords means both apply
            target = {"allOf": [target, siblings]}
        self.refs.append(ref)
        try:
            return self.build(target, path, key=key, variant=variant)
        finally:
            self.refs.pop()

    def _merged(self, schema: Mapping[str, Any], path: str) -> dict[str, Any]:
        """``allOf`` as one schema: properties and ``required`` joined, other keywords from the last part."""
        parts = schema["allOf"]
        if not isinstance(parts, list):
            raise SchemaError(f"{path}.allOf", "expected an array of schemas")
        merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
        for i, part in enumerate(parts):
            budget.check(f"{path}.allOf.{i}")
            part = self._inline(part, f"{path}.allOf.{i}")
            if part is False:
                raise _Dead(path)
            if not isinstance(part, Mapping):
                continue
            if "allOf" in part:
                part = self._merged(part, f"{path}.allOf.{i}")
            for k, v in part.items():
                if k == "properties" and isinstance(v, Mapping):
                    merged["properties"] = {**merged.get("properties", {}), **v}
                elif k == "required" and isinstance(v, list):
                    merged["required"] = list(dict.fromkeys([*merged.get("required", []), *v]))
                elif k in ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties") and k in merged:
                    merged[k] = max(merged[k], v) if _is_num(v) and _is_num(merged[k]) else v
                elif k in ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties") and k in merged:
                    merged[k] = min(merged[k], v) if _is_num(v) and _is_num(merged[k]) else v
                elif k not in ("$defs", "definitions"):
                    merged[k] = v
        return merged

    def _inline(self, schema: object, path: str) -> object:
        """``schema`` with a top-level local ``$ref`` followed (for merging), cycles left as they are."""
        seen = 0
        while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str) and len(schema) == 1:
            seen += 1
            if seen > 64:
                raise SchemaError(path, "a chain of more than 64 references")
            schema = _resolve(self.root, schema["$ref"], f"{path}.$ref")
        return schema

    def _union(self, schema: Mapping[str, Any], union: str, path: str, *, key: str | None, variant: int) -> Any:
        branches = schema[union]
        if not isinstance(branches, list) or not branches:
            raise SchemaError(f"{path}.{union}", "expected a non-empty array of schemas")
        rest = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
        for i, branch in enumerate(branches):
            budget.check(f"{path}.{union}.{i}")
            candidate = {"allOf": [rest, branch]} if rest and isinstance(branch, Mapping) else branch
            try:
                return self.build(candidate, f"{path}.{union}.{i}", key=key, variant=variant)
            except _Dead:
                continue
        raise _Dead(path)

    def _object(self, schema: Mapping[str, Any], path: str, *, variant: int) -> dict[str, Any]:
        properties = schema.get("properties", {})
        if not isinstance(properties, Mapping):
            raise SchemaError(f"{path}.properties", "expected an object")
        required = schema.get("required", [])
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            raise SchemaError(f"{path}.required", "expected an array of strings")
        extra = schema.get("additionalProperties", True)
        wanted = list(dict.fromkeys(required))
        least = _count(schema, "minProperties", path)
        for name in properties:
            if len(wanted) >= least:
                break
            if name not in wanted:
                wanted.append(name)
        n = 0
        while len(wanted) < least:
            if extra is False:
                raise SchemaError(f"{path}.minProperties", "more properties required than the schema allows")
            n += 1
            if f"key_{n}" not in wanted:
                wanted.append(f"key_{n}")
        out: dict[str, Any] = {}
        for i, name in enumerate(wanted):
            if name in properties:
                sub, sub_path = properties[name], f"{path}.properties.{name}"
            elif extra is False:
                raise _Dead(f"{path}.required")
            else:
                sub, sub_path = extra, f"{path}.additionalProperties"
            out[name] = self.build(sub, sub_path, key=name, variant=variant if i == 0 else 0)
        return out

    def _array(self, schema: Mapping[str, Any], path: str, *, key: str | None, variant: int) -> list[Any]:
        least = _count(schema, "minItems", path)
        most = schema.get("maxItems")
        if most is not None and (not _is_num(most) or most < least):
            raise SchemaError(f"{path}.maxItems", "no length fits both minItems and maxItems")
        prefix = schema.get("prefixItems")
        items = schema.get("items", True)
        if isinstance(items, list):  # draft 4: a tuple
            prefix, items = items, schema.get("additionalItems", True)
        prefix = prefix if isinstance(prefix, list) else []
        unique = schema.get("uniqueItems") is True
        item_key = key[:-1] if key and key.endswith("s") and len(key) > 1 else key
        preferred = max(least, 1) if most is None or most >= max(least, 1) else least
        for n in dict.fromkeys([preferred, least]):
            try:
                out = [
                    self.build(
                        *((prefix[i], f"{path}.prefixItems.{i}") if i < len(prefix) else (items, f"{path}.items")),
                        key=item_key,
                        variant=(variant + i) if unique else variant,
                    )
                    for i in range(n)
                ]
            except _Dead:
                if n == least:
                    raise
                continue
            if unique and len({_canonical(v) for v in out}) != len(out):
                raise SchemaError(f"{path}.uniqueItems", f"cannot build {n} distinct items")
            return out
        raise _Dead(path)  # pragma: no cover - the loop returns or raises


def _is_num(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _canonical(v: object) -> str:
    return repr(v) if not isinstance(v, (dict, list)) else repr(sorted(v.items()) if isinstance(v, dict) else v)


def _count(schema: Mapping[str, Any], keyword: str, path: str) -> int:
    value = schema.get(keyword, 0)
    if not _is_num(value) or value < 0:
        raise SchemaError(f"{path}.{keyword}", "expected a non-negative integer")
    if value > MAX_ITEMS:
        raise SchemaError(f"{path}.{keyword}", f"{value} is more than this generator builds ({MAX_ITEMS})")
    return int(value)


def _type_of(schema: Mapping[str, Any], path: str) -> str:
    t = schema.get("type")
    if isinstance(t, list):
        named = [x for x in t if x in _TYPES]
        if not named:
            raise SchemaError(f"{path}.type", "expected at least one JSON type")
        t = next((x for x in named if x != "null"), "null")
    if t is None:
        if "properties" in schema or "required" in schema or "additionalProperties" in schema:
            return "object"
        if "items" in schema or "prefixItems" in schema or "minItems" in schema:
            return "array"
        if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")):
            return "number"
        return "string"
    if t not in _TYPES:
        raise SchemaError(f"{path}.type", f"unknown type {t!r:.40}")
    return str(t)


def _resolve(root: object, ref: str, path: str) -> object:
    """The schema a local ``$ref`` (a JSON pointer after ``#``) points at."""
    node = root
    pointer = ref[1:]
    if pointer and not pointer.startswith("/"):
        raise SchemaError(path, f"only JSON-pointer references are supported, got {ref!r:.80}")
    for raw in pointer.split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise SchemaError(path, f"the reference {ref!r:.80} points at nothing")
    return node


def _string(schema: Mapping[str, Any], path: str, *, key: str | None, variant: int) -> str:
    least = schema.get("minLength", 0)
    most = schema.get("maxLength")
    if not _is_num(least) or least < 0:
        raise SchemaError(f"{path}.minLength", "expected a non-negative integer")
    if least > MAX_LENGTH:
        raise SchemaError(f"{path}.minLength", f"{least} is more than this generator builds ({MAX_LENGTH})")
    if most is not None and (not _is_num(most) or most < least):
        raise SchemaError(f"{path}.maxLength", "no length fits both minLength and maxLength")
    fmt = schema.get("format")
    base = _FORMATS.get(fmt, "") if isinstance(fmt, str) else ""
    if not base:
        base = re.sub(r"[^\w -]", "", key or "") or "string"
    if variant:
        base = f"{base}{variant}" if fmt not in _FORMATS else base
    candidates = [base, *(c for c in ("string", "a", "0", "") if c != base)]
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and len(pattern) > PATTERN_MAX_LENGTH:
        raise SchemaError(
            f"{path}.pattern", f"this generator reads patterns of at most {PATTERN_MAX_LENGTH} characters"
        )
    if pattern is not None and least > PATTERN_PROBE_MAX:
        raise SchemaError(
            f"{path}.pattern",
            f"this generator tries a pattern on strings of at most {PATTERN_PROBE_MAX} characters (minLength {least})",
        )
    for candidate in candidates:
        s = _fit(candidate, int(least), None if most is None else int(most))
        if pattern is None:
            return s
        s = s[:PATTERN_PROBE_MAX]
        try:
            if isinstance(pattern, str) and budget.search(pattern, s, f"{path}.pattern"):
                return s
        except re.error as e:
            raise SchemaError(f"{path}.pattern", f"not a regular expression Python reads: {e}") from None
    raise SchemaError(f"{path}.pattern", f"no placeholder string matches {pattern!r:.80}")


def _fit(s: str, least: int, most: int | None) -> str:
    if len(s) < least:
        s = s + "x" * (least - len(s))
    if most is not None and len(s) > most:
        s = s[:most]
    return s


def _number(schema: Mapping[str, Any], path: str, *, integer: bool, variant: int) -> int | float:
    lo, lo_open = _bound(schema, "minimum", "exclusiveMinimum", path)
    hi, hi_open = _bound(schema, "maximum", "exclusiveMaximum", path)
    step = schema.get("multipleOf")
    if step is not None and (not _is_num(step) or step <= 0):
        raise SchemaError(f"{path}.multipleOf", "expected a positive number")

    def ok(x: float) -> bool:
        if lo is not None and (x < lo or (lo_open and x == lo)):
            return False
        if hi is not None and (x > hi or (hi_open and x == hi)):
            return False
        return step is None or _multiple(x, step)

    start = 0.0 if lo is None else (lo if not lo_open else (math.floor(lo) + 1 if integer else lo + 1))
    if lo is None and hi is not None and not ok(0) and hi <= 0:
        start = hi if not hi_open else (math.ceil(hi) - 1 if integer else hi - 1)
    if lo is not None and hi is not None and not integer and lo_open and start >= hi:
        start = (lo + hi) / 2
    if step is not None:
        k = math.ceil(start / step) if lo is not None else math.floor(start / step)
        start = k * step
    candidates = [start + variant * (step or 1), start, 0]
    if lo is not None and hi is not None:
        candidates.append((lo + hi) / 2)
    for x in candidates:
        value: int | float = int(x) if integer or float(x).is_integer() else float(x)
        if integer and not float(x).is_integer():
            continue
        if ok(value):
            return value
    raise SchemaError(path, "no number found within the bounds and multipleOf")


def _bound(schema: Mapping[str, Any], closed: str, open_: str, path: str) -> tuple[float | None, bool]:
    """The bound from ``closed``/``open_`` (draft 6+ numbers, or draft 4's boolean ``exclusive*``)."""
    c, o = schema.get(closed), schema.get(open_)
    if c is not None and not _is_num(c):
        raise SchemaError(f"{path}.{closed}", "expected a number")
    if isinstance(o, bool):
        return c, o and c is not None
    if o is not None and not _is_num(o):
        raise SchemaError(f"{path}.{open_}", "expected a number")
    if c is None:
        return o, o is not None
    if o is None:
        return c, False
    tighter_open = o >= c if closed == "minimum" else o <= c
    return (o, True) if tighter_open else (c, False)


def _multiple(x: float, step: float) -> bool:
    q = x / step
    return q == int(q) if math.isfinite(q) else False
