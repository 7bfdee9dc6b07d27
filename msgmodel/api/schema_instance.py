"""One deterministic JSON instance of a JSON schema, for the local API's forced tool calls and JSON output.

This module owns *making a value that a JSON schema accepts*: ``instance_of(schema)`` returns a
JSON value (dicts, lists, strings, numbers, booleans, None) built from the schema alone, the same
value for the same schema every time. The local Messages API uses it where the live API guarantees
schema-valid output: the ``input`` of a tool call forced by ``tool_choice`` and the text answering
``output_config.format`` of type ``json_schema``.

What it honours
    ``type`` (a name or a list: the first non-null one); ``enum`` and ``const`` (checked against
    the schema's own ``type``, bounds, lengths and cheap ``pattern`` by
    ``msgmodel.api.schema_checks``: the first ``enum`` value that passes); objects (every
    ``required`` property and what ``dependentRequired`` adds, built from ``properties``, a
    matching ``patternProperties`` or ``additionalProperties``; optional ones only to reach
    ``minProperties``); arrays (``items``, ``prefixItems`` and the draft-4 list form of ``items``,
    ``contains``/``minContains``; one item when ``minItems``/``maxItems`` allow it, otherwise
    ``minItems``; distinct items under ``uniqueItems``); strings (``minLength``, ``maxLength``,
    the formats ``date``, ``date-time``, ``time``, ``email``, ``uri``, ``uuid``, ``hostname``,
    ``ipv4``, ``ipv6``, ``duration``, and ``pattern``: a placeholder when it matches, otherwise a
    string written from the pattern by ``msgmodel.api.pattern_text``); numbers and integers
    (``minimum``, ``maximum``, both ``exclusive`` forms, ``multipleOf``, exactly, by
    ``msgmodel.api.schema_numbers``); local ``$ref`` (``#``, ``#/$defs/...``,
    ``#/definitions/...``, any JSON pointer); ``allOf`` (merged: properties and ``required``
    joined, ``type`` and ``enum`` intersected, bounds tightened, two unions both kept); ``anyOf`` /
    ``oneOf`` (the first branch that yields an instance); OpenAPI's ``nullable``; and the boolean
    schemas.

What it does not
    ``not``, ``if``/``then``/``else``, ``propertyNames``, ``unevaluated*`` and remote references
    are not read; for ``oneOf`` the first branch's instance may match another branch too.

Errors and bounds
    A schema it cannot serve raises ``SchemaError`` naming the JSON path inside the schema
    (``$.properties.tags.minItems: ...``), never a bare KeyError, TypeError, OverflowError or
    RecursionError. ``SchemaError.unsatisfiable`` is True when the schema provably has no instance
    (``const: 1`` with ``type: string``; ``enum: ["a"]`` with ``type: integer``; ``minimum: 5,
    maximum: 1``; no multiple of ``multipleOf`` in the range; a ``required`` property that
    ``additionalProperties: false`` forbids; a ``false`` schema that must hold), and False when
    this generator only failed to find one. Work and size are bounded while the instance is built:
    ``MAX_STEPS`` schema nodes, ``MAX_DEPTH`` nested levels (references and combinators
    included), ``MAX_MERGED`` schema entries copied by merges, ``MAX_ITEMS`` items, ``MAX_LENGTH``
    characters per string, and ``MAX_BYTES`` bytes of the instance's JSON, ``const`` and ``enum``
    values counted at their encoded size each time they are used (a 1 MiB ``const`` reached
    through 1 000 ``$ref`` s is 1 000 MiB, refused at the third), so a hostile schema costs bounded
    memory and time. Under a request's time budget (``msgmodel.api.budget``) every node and every
    ``pattern`` search is checked against the deadline, and ``BudgetExceeded`` stops the walk.

Strings are readable placeholders: a property's value is its name (``{"city": "city"}``), padded
or cut to the length bounds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final, NamedTuple

import msgspec

from msgmodel.api import budget
from msgmodel.api.pattern_text import PATTERN_MAX_LENGTH, NoText, texts_matching
from msgmodel.api.schema_checks import TYPES, declared_types, failed_keyword, json_equal
from msgmodel.api.schema_numbers import NoNumber, number_for

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_ITEMS",
    "MAX_LENGTH",
    "MAX_MERGED",
    "MAX_STEPS",
    "SchemaError",
    "instance_of",
]

MAX_STEPS: Final = 20_000
"""At most this many schema nodes are visited for one instance."""
MAX_DEPTH: Final = 100
"""Schemas nest at most this deep on the way to a value (each ``$ref`` hop and merge counts one)."""
MAX_MERGED: Final = 200_000
"""``allOf`` merges and unions copy at most this many schema entries in all (a wide ``properties``
merged again by each of 10 000 ``anyOf`` branches took seconds and held copies at every level)."""
MAX_ITEMS: Final = 1_000
"""A ``minItems`` / ``minProperties`` above this is refused."""
MAX_LENGTH: Final = 100_000
"""A ``minLength`` above this is refused."""
MAX_BYTES: Final = 2 * 1024 * 1024
"""The instance's JSON holds at most this many bytes (our limit). Before, nothing counted what
``const`` and ``enum`` values added: a 1 MiB ``const`` repeated 1 000 times through ``$ref`` (a 1 MiB
request) took the server to 2 GB; and 1 000 strings of ``MAX_LENGTH`` in each of 6 arrays, 1.7 GB."""
_CHILD_TRIES: Final = 3
"""Candidates tried for a pattern that must be searched in a child process (20 ms or more each)."""

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
_LOWER: Final = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains")
_UPPER: Final = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains")
_ENCODER: Final = msgspec.json.Encoder()
_CANONICAL: Final = msgspec.json.Encoder(order="sorted")


class SchemaError(ValueError):
    """The schema has no instance this generator can build; ``path`` is where inside the schema.

    ``unsatisfiable``: no instance exists at all (see the module docstring)."""

    def __init__(self, path: str, message: str, *, unsatisfiable: bool = False) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message
        self.unsatisfiable = unsatisfiable


class _Dead(Exception):
    """This branch has no instance; try the next one. ``proven``: none exists (not just none found)."""

    def __init__(self, path: str, reason: str, *, proven: bool) -> None:
        super().__init__(path)
        self.path = path
        self.reason = reason
        self.proven = proven


def instance_of(schema: object) -> Any:
    """A JSON value valid against ``schema`` (a dict or a boolean), the same every time.

    Raises ``SchemaError`` (with the path inside the schema) when it cannot build one.
    """
    generator = _Generator(schema)
    try:
        return generator.build(schema, "$", key=None, variant=0)
    except _Dead as e:
        verdict = "the schema has no instance" if e.proven else "no instance found"
        raise SchemaError(e.path, f"{verdict} ({e.reason})", unsatisfiable=e.proven) from None
    except (RecursionError, OverflowError, TypeError, ValueError, ZeroDivisionError) as e:
        if isinstance(e, SchemaError):
            raise
        # A shape this walk did not foresee: still an answer naming where, never a bare exception.
        raise SchemaError(generator.where, f"this generator cannot read the schema here ({type(e).__name__})") from e


def _is_num(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


class _Layer(NamedTuple):
    """One part of an ``allOf`` as its ``additionalProperties`` sees it: what it declares, and what it allows else."""

    names: frozenset[str]
    patterns: Mapping[str, Any] | None
    extra: Any

    @staticmethod
    def of(schema: Mapping[str, Any]) -> _Layer:
        properties = schema.get("properties")
        patterned = schema.get("patternProperties")
        return _Layer(
            frozenset(properties) if isinstance(properties, Mapping) else frozenset(),
            patterned if isinstance(patterned, Mapping) else None,
            schema.get("additionalProperties"),
        )


class _Generator:
    def __init__(self, root: object) -> None:
        self.root = root
        self.steps = 0
        self.depth = 0
        self.merged = 0
        self.bytes = 0
        self.where = "$"
        self.refs: list[str] = []
        self.sizes: dict[int, int] = {}

    # -- bounds -----------------------------------------------------------------------------

    def _enter(self, path: str) -> None:
        self.where = path
        self.steps += 1
        budget.check(path)
        if self.steps > MAX_STEPS:
            raise SchemaError(path, f"the schema needs more than {MAX_STEPS} steps to instantiate")
        if self.depth >= MAX_DEPTH:
            raise _Dead(
                path, f"it nests deeper than {MAX_DEPTH} levels, references and combinators included", proven=False
            )

    def _spend(self, size: int, path: str) -> None:
        """Count ``size`` bytes of the instance's JSON (before they are built, where that is known)."""
        self.bytes += size
        if self.bytes > MAX_BYTES:
            raise SchemaError(path, f"the instance would take more than {MAX_BYTES} bytes of JSON")

    def _copy(self, n: int, path: str) -> None:
        self.merged += n
        if self.merged > MAX_MERGED:
            raise SchemaError(path, f"merging the schema copies more than {MAX_MERGED} entries")

    def _size(self, value: object) -> int:
        """The encoded size of a ``const`` / ``enum`` value of the schema (each value measured once)."""
        known = self.sizes.get(id(value))
        if known is None:
            known = self.sizes[id(value)] = len(_ENCODER.encode(value))
        return known

    # -- the walk ---------------------------------------------------------------------------

    def build(self, schema: object, path: str, *, key: str | None, variant: int) -> Any:
        self._enter(path)
        self.depth += 1
        try:
            return self._build(schema, path, key=key, variant=variant)
        finally:
            self.depth -= 1

    def _build(self, schema: object, path: str, *, key: str | None, variant: int) -> Any:
        if schema is True:
            return self._text(_placeholder(key, variant), path)
        if schema is False:
            raise _Dead(path, "a false schema must hold", proven=True)
        if not isinstance(schema, Mapping):
            raise SchemaError(path, f"a schema must be an object or a boolean, got {type(schema).__name__}")
        if "$ref" in schema:
            return self._ref(schema, path, key=key, variant=variant)
        if "allOf" in schema:
            followed: list[str] = []
            merged = self._merged(schema, path, followed)
            self.refs.extend(followed)  # a reference inlined by the merge is being expanded, as in _ref
            try:
                return self.build(merged, path, key=key, variant=variant)
            finally:
                del self.refs[len(self.refs) - len(followed) :]
        for union in ("anyOf", "oneOf"):  # before const/enum: each branch is merged with them, and checks them
            if union in schema:
                return self._union(schema, union, path, key=key, variant=variant)
        if "const" in schema:
            return self._const(schema, path)
        if "enum" in schema:
            return self._enum(schema, path, variant)
        match _type_of(schema, path):
            case "object":
                return self._object(schema, path, variant=variant)
            case "array":
                return self._array(schema, path, key=key, variant=variant)
            case "string":
                return self._text(self._string(schema, path, key=key, variant=variant), path)
            case "integer" | "number" as kind:
                try:
                    value = number_for(schema, integer=kind == "integer", variant=variant)
                except NoNumber as e:
                    if e.proven:
                        raise _Dead(f"{path}.{e.keyword}", e.message, proven=True) from None
                    raise SchemaError(f"{path}.{e.keyword}", e.message) from None
                self._spend(len(_ENCODER.encode(value)), path)
                return value
            case "boolean":
                self._spend(5, path)
                return variant % 2 == 1
            case _:
                self._spend(4, path)
                return None

    def _text(self, text: str, path: str) -> str:
        self._spend(len(_ENCODER.encode(text)), path)
        return text

    def _const(self, schema: Mapping[str, Any], path: str) -> Any:
        value = schema["const"]
        problem = failed_keyword(value, schema, path)
        if problem is not None:
            raise _Dead(f"{path}.const", f"the const value fails the schema's own {problem}", proven=True)
        self._spend(self._size(value), f"{path}.const")
        return value

    def _enum(self, schema: Mapping[str, Any], path: str, variant: int) -> Any:
        values = schema["enum"]
        if not isinstance(values, list) or not values:
            raise SchemaError(f"{path}.enum", "expected a non-empty array")
        allowed = [v for v in values if failed_keyword(v, schema, path) is None]
        if not allowed:
            problem = failed_keyword(values[0], schema, path)
            text = f"no value of the enum passes the schema's own keywords (the first fails its {problem})"
            raise _Dead(f"{path}.enum", text, proven=True)
        value = allowed[variant % len(allowed)]
        self._spend(self._size(value), f"{path}.enum")
        return value

    def _ref(self, schema: Mapping[str, Any], path: str, *, key: str | None, variant: int) -> Any:
        ref = schema["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise SchemaError(f"{path}.$ref", f"only local references (#...) are supported, got {ref!r:.80}")
        if ref in self.refs:  # a cycle: this branch never ends unless an enclosing choice avoids it
            raise _Dead(path, "a reference cycle it requires", proven=False)
        target = _resolve(self.root, ref, f"{path}.$ref")
        siblings = {k: v for k, v in schema.items() if k not in ("$ref", "$defs", "definitions")}
        if siblings:  # 2020-12: $ref next to other keywords means both apply
            self._copy(len(siblings), path)
            target = {"allOf": [target, siblings]}
        self.refs.append(ref)
        try:
            return self.build(target, path, key=key, variant=variant)
        finally:
            self.refs.pop()

    def _merged(self, schema: Mapping[str, Any], path: str, followed: list[str]) -> dict[str, Any]:
        """``allOf`` as one schema (see the module docstring); never holds ``allOf`` itself.

        The references it inlines are added to ``followed``."""
        parts = schema["allOf"]
        if not isinstance(parts, list):
            raise SchemaError(f"{path}.allOf", "expected an array of schemas")
        merged: dict[str, Any] = {k: v for k, v in schema.items() if k not in ("allOf", "additionalProperties")}
        self._copy(len(merged), path)
        _check_shapes(merged, path)
        pending: list[tuple[str, Any]] = []
        layers = [_Layer.of(schema)]
        for i, part in enumerate(parts):
            where = f"{path}.allOf.{i}"
            self._enter(where)
            part = self._inline(part, where, followed)
            if part is True:
                continue
            if part is False:
                raise _Dead(where, "a false schema must hold", proven=True)
            if not isinstance(part, Mapping):
                raise SchemaError(where, f"a schema must be an object or a boolean, got {type(part).__name__}")
            if "allOf" in part:
                self.depth += 1
                try:
                    part = self._merged(part, where, followed)
                finally:
                    self.depth -= 1
            _check_shapes(part, where)
            self._copy(len(part), where)
            layers.append(_Layer.of(part))
            for k, v in part.items():
                if k != "additionalProperties":
                    self._merge_keyword(merged, k, v, where, pending)
        for union, branches in pending:  # a second anyOf (oneOf): each branch of the first carries it
            first = merged[union]
            if isinstance(first, list):
                self._copy(len(first), path)
                merged[union] = [{"allOf": [b, {union: branches}]} for b in first]
        self._close(merged, layers, path)
        return merged

    def _close(self, merged: dict[str, Any], layers: list[_Layer], path: str) -> None:
        """Apply each part's ``additionalProperties`` to the merged properties that part does not declare.

        As JSON Schema reads it, a part's ``additionalProperties`` covers every property outside that
        part's own ``properties`` / ``patternProperties``, those that other parts of the ``allOf``
        declare included: a ``false`` there drops an optional one (and makes a required one
        impossible); a schema there must hold too."""
        closing = [layer for layer in layers if layer.extra is not None and layer.extra is not True]
        if not closing:
            return
        properties = dict(merged.get("properties", {}))
        required = merged.get("required", [])
        for layer in closing:
            for name in list(properties):
                if name in layer.names or self._pattern_property(layer.patterns, name, path) is not None:
                    continue
                if layer.extra is False and name in required:
                    why = f"the required property {name!r:.40} is outside a part of allOf that allows no others"
                    raise _Dead(f"{path}.additionalProperties", why, proven=True)
                if layer.extra is False:
                    del properties[name]
                else:
                    properties[name] = {"allOf": [properties[name], layer.extra]}
        self._copy(len(properties), path)
        merged["properties"] = properties
        extras = [layer.extra for layer in closing]
        merged["additionalProperties"] = (
            False if False in extras else extras[0] if len(extras) == 1 else {"allOf": extras}
        )

    def _merge_keyword(
        self, merged: dict[str, Any], k: str, v: Any, where: str, pending: list[tuple[str, Any]]
    ) -> None:
        if k == "properties":  # a property two parts declare must pass both
            joined = dict(merged.get("properties", {}))
            for name, sub in v.items():
                joined[name] = {"allOf": [joined[name], sub]} if name in joined else sub
            self._copy(len(joined), where)
            merged["properties"] = joined
        elif k == "required":
            merged["required"] = list(dict.fromkeys([*merged.get("required", []), *v]))
        elif k == "type" and "type" in merged:
            mine, theirs = declared_types(merged["type"]), declared_types(v)
            if mine is None or theirs is None:
                raise SchemaError(f"{where}.type", "expected a JSON type name or a list of them")
            both = [t for t in mine if t in theirs or (t == "integer" and "number" in theirs)]
            both += [t for t in theirs if t == "integer" and "number" in mine and t not in both]
            if not both:
                raise _Dead(f"{where}.type", "no JSON type satisfies every part of allOf", proven=True)
            merged["type"] = both
        elif k == "enum" and isinstance(merged.get("enum"), list) and isinstance(v, list):
            kept = [a for a in merged["enum"] if any(json_equal(a, b) for b in v)]
            if not kept:
                raise _Dead(f"{where}.enum", "no value is in every enum of allOf", proven=True)
            merged["enum"] = kept
        elif k == "const" and "const" in merged:
            if not json_equal(merged["const"], v):
                raise _Dead(f"{where}.const", "two parts of allOf require different values", proven=True)
        elif k in ("anyOf", "oneOf") and k in merged:
            pending.append((k, v))
        elif k in _LOWER and k in merged:
            merged[k] = max(merged[k], v) if _is_num(v) and _is_num(merged[k]) else v
        elif k in _UPPER and k in merged:
            merged[k] = min(merged[k], v) if _is_num(v) and _is_num(merged[k]) else v
        elif k not in ("$defs", "definitions"):
            merged[k] = v

    def _inline(self, schema: object, path: str, followed: list[str]) -> object:
        """``schema`` with a top-level local ``$ref`` followed (for merging); a reference being expanded is a cycle."""
        seen = 0
        while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str):
            ref = schema["$ref"]
            seen += 1
            if seen > 64:
                raise SchemaError(path, "a chain of more than 64 references")
            if ref in self.refs or ref in followed:
                raise _Dead(path, "a reference cycle it requires", proven=False)
            followed.append(ref)
            target = _resolve(self.root, ref, f"{path}.$ref")
            siblings = {k: v for k, v in schema.items() if k not in ("$ref", "$defs", "definitions")}
            if siblings:
                self._copy(len(siblings), path)
                return {"allOf": [target, siblings]}
            schema = target
        return schema

    def _union(self, schema: Mapping[str, Any], union: str, path: str, *, key: str | None, variant: int) -> Any:
        branches = schema[union]
        if not isinstance(branches, list) or not branches:
            raise SchemaError(f"{path}.{union}", "expected a non-empty array of schemas")
        rest = {k: v for k, v in schema.items() if k != union}
        self._copy(len(rest), path)
        deaths: list[_Dead] = []
        for i, branch in enumerate(branches):
            where = f"{path}.{union}.{i}"
            budget.check(where)
            candidate = {"allOf": [rest, branch]} if rest else branch
            mark = self.bytes
            try:
                return self.build(candidate, where, key=key, variant=variant)
            except _Dead as e:
                deaths.append(e)
                self.bytes = mark  # the dead branch's value is dropped
        unproven = next((d for d in deaths if not d.proven), None)
        if unproven is not None:
            raise _Dead(unproven.path, unproven.reason, proven=False)
        raise _Dead(path, f"no branch of {union} has one", proven=True)

    def _object(self, schema: Mapping[str, Any], path: str, *, variant: int) -> dict[str, Any]:
        _check_shapes(schema, path)
        properties: Mapping[str, Any] = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        wanted = list(dict.fromkeys(schema.get("required", [])))
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
        _add_dependencies(schema, wanted, path)
        patterned = schema.get("patternProperties")
        self._spend(2, path)
        out: dict[str, Any] = {}
        for i, name in enumerate(wanted):
            if name in properties:
                sub, sub_path = properties[name], f"{path}.properties.{_segment(name)}"
            elif (found := self._pattern_property(patterned, name, path)) is not None:
                sub, sub_path = found
            elif extra is False:
                raise _Dead(f"{path}.required", f"the required property {name!r:.40} is not allowed", proven=True)
            else:
                sub, sub_path = extra, f"{path}.additionalProperties"
            self._spend(len(_ENCODER.encode(name)) + 2, path)
            out[name] = self.build(sub, sub_path, key=name, variant=variant if i == 0 else 0)
        return out

    def _pattern_property(self, patterned: object, name: str, path: str) -> tuple[object, str] | None:
        """The ``patternProperties`` schema whose pattern matches ``name``, with its path, or None."""
        if not isinstance(patterned, Mapping):
            return None
        for pattern, sub in patterned.items():
            where = f"{path}.patternProperties.{_segment(pattern)}"
            if len(pattern) > PATTERN_MAX_LENGTH:
                raise SchemaError(where, f"this generator reads patterns of at most {PATTERN_MAX_LENGTH} characters")
            try:
                if budget.search(pattern, name, where):
                    return sub, where
            except re.error as e:
                raise SchemaError(where, f"not a regular expression Python reads: {e}") from None
        return None

    def _array(self, schema: Mapping[str, Any], path: str, *, key: str | None, variant: int) -> list[Any]:
        least = _count(schema, "minItems", path)
        most = schema.get("maxItems")
        if most is not None and not _is_num(most):
            raise SchemaError(f"{path}.maxItems", "expected a non-negative integer")
        if most is not None and most < least:
            raise _Dead(f"{path}.maxItems", "no length fits both minItems and maxItems", proven=True)
        prefix = schema.get("prefixItems")
        items = schema.get("items", True)
        if isinstance(items, list):  # draft 4: a tuple
            prefix, items = items, schema.get("additionalItems", True)
        prefix = prefix if isinstance(prefix, list) else []
        contains = schema.get("contains")
        must_contain = _count(schema, "minContains", path) if "minContains" in schema else 1
        must_contain = must_contain if contains is not None else 0
        if most is not None and must_contain > most:
            raise _Dead(f"{path}.minContains", "more items must match contains than maxItems allows", proven=True)
        least = max(least, must_contain)
        unique = schema.get("uniqueItems") is True
        item_key = key[:-1] if key and key.endswith("s") and len(key) > 1 else key
        preferred = max(least, 1) if most is None or most >= max(least, 1) else least
        for n in dict.fromkeys([preferred, least]):
            mark = self.bytes
            self._spend(2 + max(n - 1, 0), path)
            try:
                out = [
                    self.build(
                        *self._item_schema(prefix, items, contains if i < must_contain else None, i, path),
                        key=item_key,
                        variant=(variant + i) if unique else variant,
                    )
                    for i in range(n)
                ]
            except _Dead:
                if n == least:
                    raise
                self.bytes = mark  # that attempt is dropped; its bytes were never kept
                continue
            if unique and len({_CANONICAL.encode(v) for v in out}) != len(out):
                raise SchemaError(f"{path}.uniqueItems", f"cannot build {n} distinct items")
            return out
        raise _Dead(path, "no length of the array has an instance", proven=False)  # pragma: no cover

    @staticmethod
    def _item_schema(prefix: Sequence[Any], items: object, contains: object, i: int, path: str) -> tuple[object, str]:
        sub, where = (prefix[i], f"{path}.prefixItems.{i}") if i < len(prefix) else (items, f"{path}.items")
        if contains is None:
            return sub, where
        return {"allOf": [sub, contains]}, where

    def _string(self, schema: Mapping[str, Any], path: str, *, key: str | None, variant: int) -> str:
        least = schema.get("minLength", 0)
        most = schema.get("maxLength")
        if not _is_num(least) or least < 0:
            raise SchemaError(f"{path}.minLength", "expected a non-negative integer")
        if least > MAX_LENGTH:
            raise SchemaError(f"{path}.minLength", f"{least!r:.40} is more than this generator builds ({MAX_LENGTH})")
        if most is not None and not _is_num(most):
            raise SchemaError(f"{path}.maxLength", "expected a non-negative integer")
        if most is not None and most < least:
            raise _Dead(f"{path}.maxLength", "no length fits both minLength and maxLength", proven=True)
        least, most = int(least), None if most is None else int(most)
        pattern = schema.get("pattern")
        if pattern is not None and not isinstance(pattern, str):
            raise SchemaError(f"{path}.pattern", "expected a string")
        if pattern is not None and len(pattern) > PATTERN_MAX_LENGTH:
            raise SchemaError(
                f"{path}.pattern", f"this generator reads patterns of at most {PATTERN_MAX_LENGTH} characters"
            )
        fmt = schema.get("format")
        if isinstance(fmt, str) and fmt in _FORMATS:  # only the format's own value is known to be one
            text = _formatted(fmt, least, most, path)
            try:
                if pattern is not None and not budget.search(pattern, text, f"{path}.pattern"):
                    raise SchemaError(f"{path}.pattern", f"the {fmt} value this generator writes does not match it")
            except re.error as e:
                raise SchemaError(f"{path}.pattern", f"not a regular expression Python reads: {e}") from None
            return text
        base = _placeholder(key, variant)
        placeholders = [_fit(c, least, most) for c in dict.fromkeys([base, "string", "a", "0", ""])]
        if pattern is None:
            return placeholders[0]
        try:
            written = texts_matching(pattern, least=least, most=most, limit=MAX_LENGTH, variant=variant)
        except NoText as e:
            if e.proven:
                raise _Dead(f"{path}.pattern", str(e), proven=True) from None
            written = []
        except re.error as e:
            raise SchemaError(f"{path}.pattern", f"not a regular expression Python reads: {e}") from None
        cheap = [c for c in placeholders if budget.runs_in_process(pattern, len(c))]
        candidates = [*cheap, *written, *placeholders] if cheap else [*written, *placeholders][:_CHILD_TRIES]
        for candidate in dict.fromkeys(candidates):
            try:
                if budget.search(pattern, candidate, f"{path}.pattern"):
                    return candidate
            except re.error as e:
                raise SchemaError(f"{path}.pattern", f"not a regular expression Python reads: {e}") from None
        raise SchemaError(f"{path}.pattern", f"no string this generator writes matches {pattern!r:.80}")


def _segment(name: str) -> str:
    """A property name as a step of a path: long ones cut (paths are kept at every level of the walk)."""
    return name if len(name) <= 40 else name[:39] + "…"


def _placeholder(key: str | None, variant: int) -> str:
    base = re.sub(r"[^\w -]", "", key or "") or "string"
    return f"{base}{variant}" if variant else base


def _check_shapes(schema: Mapping[str, Any], path: str) -> None:
    """``properties`` is an object and ``required`` an array of strings, where present."""
    if "properties" in schema and not isinstance(schema["properties"], Mapping):
        raise SchemaError(f"{path}.properties", "expected an object")
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise SchemaError(f"{path}.required", "expected an array of strings")


def _add_dependencies(schema: Mapping[str, Any], wanted: list[str], path: str) -> None:
    """Add to ``wanted`` what ``dependentRequired`` requires of the properties in it."""
    deps = schema.get("dependentRequired")
    if not isinstance(deps, Mapping):
        return
    i = 0
    while i < len(wanted):
        more = deps.get(wanted[i], [])
        if not isinstance(more, list) or not all(isinstance(m, str) for m in more):
            raise SchemaError(f"{path}.dependentRequired.{_segment(wanted[i])}", "expected an array of strings")
        wanted.extend(m for m in more if m not in wanted)
        i += 1
        if len(wanted) > MAX_ITEMS:
            raise SchemaError(f"{path}.dependentRequired", f"more than {MAX_ITEMS} properties are required")


def _count(schema: Mapping[str, Any], keyword: str, path: str) -> int:
    value = schema.get(keyword, 0)
    if not _is_num(value) or value < 0:
        raise SchemaError(f"{path}.{keyword}", "expected a non-negative integer")
    if value > MAX_ITEMS:
        raise SchemaError(f"{path}.{keyword}", f"{value!r:.40} is more than this generator builds ({MAX_ITEMS})")
    return int(value)


def _type_of(schema: Mapping[str, Any], path: str) -> str:
    t = schema.get("type")
    if isinstance(t, list):
        named = [x for x in t if isinstance(x, str) and x in TYPES]
        if not named:
            raise SchemaError(f"{path}.type", "expected at least one JSON type")
        t = next((x for x in named if x != "null"), "null")
    if t is None:
        if "properties" in schema or "required" in schema or "additionalProperties" in schema:
            return "object"
        if "items" in schema or "prefixItems" in schema or "minItems" in schema or "contains" in schema:
            return "array"
        if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")):
            return "number"
        return "string"
    if not isinstance(t, str) or t not in TYPES:
        raise SchemaError(f"{path}.type", f"unknown type {t!r:.40}")
    return t


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
        elif isinstance(node, list) and part.isascii() and part.isdigit() and len(part) < 10 and int(part) < len(node):
            node = node[int(part)]
        else:
            raise SchemaError(path, f"the reference {ref!r:.80} points at nothing")
    return node


def _formatted(fmt: str, least: int, most: int | None, path: str) -> str:
    """The value of a known ``format`` with a length in [least, most]: an email or a URI is padded inside."""
    text = _FORMATS[fmt]
    short = least - len(text)
    if short > 0 and fmt in ("email", "idn-email"):
        text = text.replace("@", "x" * short + "@", 1)
    elif short > 0 and fmt in ("uri", "iri", "uri-reference", "url"):
        text += "x" * short
    if len(text) < least or (most is not None and len(text) > most):
        raise SchemaError(
            f"{path}.format", f"this generator writes a {fmt} value of {len(text)} characters, out of bounds"
        )
    return text


def _fit(s: str, least: int, most: int | None) -> str:
    if len(s) < least:
        s = s + "x" * (least - len(s))
    if most is not None and len(s) > most:
        s = s[:most]
    return s
