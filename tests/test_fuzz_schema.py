"""A seeded, bounded fuzz job for the local API's schema-driven answers (issue 20; a few seconds in all).

Every schema is sent twice through ``handle_messages``: as the ``input_schema`` of a forced tool
(under ``properties.a`` of an object, the API's rule for a tool's root) and as the JSON output
format (at the root), some of them streamed. The promise under test: an answer is a 200 or a 400
``invalid_request_error``, never a 5xx (a 500 ``api_error`` the SDK retries twice, or a 504 on
these small schemas) and never an exception; a 400 about the schema names its path
(``...: $.properties...``) and never comes from the generator's last-resort net (an exception it
did not foresee); and a 200's value is valid against the schema wherever ``jsonschema`` can judge
it (a valid draft 2020-12 schema using only keywords the generator reads; a ``oneOf`` whose value
matches two branches is the generator's documented limit).

The hostile classes are those the third adversarial run found (a chain of hundreds of ``$ref``;
unions and merges that refer to themselves; ``allOf`` merging into a ``properties`` that is no
object or a ``required`` that is no array; numbers past the float range, ``multipleOf: 5e-324``;
patterns Python cannot compile, such as ``a{5000000000}``; ``const`` values repeated through
``$ref``), and random mutations of realistic tool schemas (a keyword replaced by a value of the
wrong type, a huge or a tiny number, a self-reference, a deep nesting; a node replaced whole).

The seeds are fixed, so a failure reproduces: its message names the seed and the case. For a
larger run by hand: ``.venv/bin/python tests/test_fuzz_schema.py --schemas 30000 --seed 1``.
"""

from __future__ import annotations

import argparse
import copy
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Final

import jsonschema
import msgspec
import pytest
from test_api_tools import WEATHER

from msgmodel.api.server import handle_messages

SEEDS: Final = range(6)
CASES_PER_SEED: Final = 120
MODEL: Final = "claude-haiku-4-5"
UNCHECKED_KEYWORDS: Final = frozenset(
    {"not", "if", "then", "else", "propertyNames", "unevaluatedProperties", "unevaluatedItems", "dependentSchemas"}
)
"""Keywords the generator does not read: a value is not checked against a schema holding one."""

_BIG = 10**400
_HUGE = 10**4000
_NUMBERS: Final = (
    0,
    1,
    -1,
    3,
    7.5,
    -3.5,
    0.1,
    0.3,
    2.5,
    5e-324,
    1e-300,
    1e308,
    -1e308,
    _BIG,
    -_BIG,
    _HUGE,
    2**63,
    -(2**64),
)
_WRONG: Final = (None, True, False, "", "x", "1", [], [1, "a"], {}, {"a": 1}, -1, 0, 1.5, _BIG)
_PATTERNS: Final = (
    "a{5000000000}",
    "a{1000}{1000}",
    "(" * 300 + ")" * 300,
    "((a|b)+)+c",
    "^(?=b)a$",
    "\\p{L}+",
    "[",
    "(?P<x>a)(?P=x){3}",
    "^[A-Z]{2}-[0-9]{4}-[a-z]{3}$",
    "^[a-z_][a-z0-9_]{0,30}$",
    "[^\\s\\S]",
    "(?!)",
    "\\ud800",
    "(?i)[^a-z0-9]+",
    "^\\d{3}-\\d{2}-\\d{4}$",
    "^(asc|desc)$",
    "a{,99999}b",
    "x" * 10_001,
    "^$",
    "\\bword\\b",
)
_FORMATS: Final = ("date", "date-time", "email", "uri", "uuid", "ipv4", "hostname", "nonsense", 7)
_KEYWORDS: Final = (
    "type",
    "properties",
    "required",
    "items",
    "prefixItems",
    "additionalProperties",
    "enum",
    "const",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "contains",
    "patternProperties",
    "dependentRequired",
    "nullable",
)
_REALISTIC: Final[tuple[Any, ...]] = (
    WEATHER["input_schema"],
    {
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "label": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                    "parent": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
                },
                "required": ["label"],
            }
        },
        "allOf": [{"$ref": "#/$defs/Node"}],
    },
    {
        "type": "object",
        "properties": {
            "code": {"type": "string", "pattern": "^[A-Z]{2}-[0-9]{4}-[a-z]{3}$"},
            "price": {"type": "number", "multipleOf": 0.01, "exclusiveMinimum": 0},
            "qty": {"type": "integer", "maximum": -3.5},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True, "minItems": 3},
            "kind": {"oneOf": [{"const": "a"}, {"const": "b"}]},
        },
        "required": ["code", "price", "qty", "tags", "kind"],
    },
)


@dataclass
class Tally:
    """What a fuzz run saw."""

    schemas: int = 0
    requests: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)
    checked: int = 0
    failures: list[str] = field(default_factory=list)


class _Hostile:
    """Hostile schemas from ``random.Random(seed)``; ``base`` is the pointer of the schema's own root."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        self.base = "#"
        self.defs: dict[str, Any] = {}
        self.deep = False  # one deep nesting per schema: nested in each other, they pass the JSON decoder's limit

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def schema(self, base: str) -> tuple[str, Any, dict[str, Any]]:
        """(class, schema, definitions for the root's ``$defs``)."""
        self.base, self.defs, self.deep = base, {}, False
        kind = self.r.choice(["ref_chain", "self_reference", "bad_merge", "numbers", "patterns", "amplify", "mutation"])
        made = getattr(self, kind)()
        if self.chance(0.3):
            made = self.mutate(made, self.r.randrange(1, 4))
        return kind, made, self.defs

    def leaf(self) -> Any:
        return self.r.choice([{"type": "string"}, {"type": "integer"}, {"type": "null"}, True, {"const": 1}, {}])

    def ref_chain(self) -> Any:
        n = self.r.choice([1, 10, 99, 100, 101, 300, 600, 2000])
        for i in range(n):
            self.defs[f"d{i}"] = {"$ref": f"#/$defs/d{i + 1}"}
            if self.chance(0.05):
                self.defs[f"d{i}"] = {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}]}
        self.defs[f"d{n}"] = self.leaf()
        entry = {"$ref": "#/$defs/d0"}
        return self.r.choice(
            [
                entry,
                {"anyOf": [entry, {"type": "null"}]},
                {"allOf": [entry]},
                {"type": "array", "items": entry, "minItems": 1},
            ]
        )

    def self_reference(self) -> Any:
        me = {"$ref": self.base}
        return self.r.choice(
            [
                {"anyOf": [me], "type": "object"},
                {"anyOf": [me, {"type": "null"}]},
                {"oneOf": [{"allOf": [me]}]},
                {"allOf": [me]},
                me,
                {"type": "object", "properties": {"next": me}, "required": ["next"]},
                {"type": "array", "items": me, "minItems": 1},
                {"type": "object", "properties": {"next": me}},
                {"anyOf": [{"allOf": [me, {"type": "string"}]}, {"type": "integer"}]},
            ]
        )

    def bad_merge(self) -> Any:
        parts: list[Any] = []
        for _ in range(self.r.randrange(1, 4)):
            part: dict[str, Any] = {}
            if self.chance(0.6):
                part["properties"] = self.r.choice([{"x": {"type": "string"}}, [1], 3, "p", None, True])
            if self.chance(0.6):
                part["required"] = self.r.choice([["x"], "x", [1], {"x": 1}, None, [["x"]]])
            if self.chance(0.4):
                part["type"] = self.r.choice(
                    ["object", "string", "integer", "number", ["string", "null"], [], "wat", 5]
                )
            if self.chance(0.3):
                part["enum"] = self.r.choice([["a"], ["b", 1], [], "a", [1.0], [True]])
            if self.chance(0.2):
                part["const"] = self.r.choice(["a", 1, 1.0, True, None])
            if self.chance(0.2):
                part["anyOf"] = [self.leaf(), self.leaf()]
            parts.append(part if not self.chance(0.1) else self.r.choice([True, False, 3, "x", None]))
        merged: Any = {"allOf": parts}
        for _ in range(self.r.choice([0, 0, 1, 50, 300])):
            merged = {"allOf": [merged]}
        if self.chance(0.5):
            merged[self.r.choice(["properties", "required", "type"])] = copy.deepcopy(self.r.choice(_WRONG))
        return merged

    def numbers(self) -> Any:
        s: dict[str, Any] = {"type": self.r.choice(["integer", "number", ["integer", "null"]])}
        for keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
            if self.chance(0.45):
                s[keyword] = copy.deepcopy(
                    self.r.choice([*_NUMBERS, *_WRONG]) if self.chance(0.85) else self.chance(0.5)
                )
        if self.chance(0.2):
            return {"type": "array", "items": s, "minItems": self.r.choice([1, 3, 50]), "uniqueItems": self.chance(0.5)}
        return s

    def patterns(self) -> Any:
        s: dict[str, Any] = {"type": "string", "pattern": self.r.choice(_PATTERNS)}
        if self.chance(0.4):
            s["minLength"] = self.r.choice([0, 1, 5, 21, 40, 1000, 100_000, 10**9, -1, 2.5, "3"])
        if self.chance(0.3):
            s["maxLength"] = self.r.choice([0, 3, 11, 20, 100, _BIG, None, "x"])
        if self.chance(0.2):
            s["format"] = self.r.choice(_FORMATS)
        if self.chance(0.2):
            return {"type": "object", "patternProperties": {s["pattern"]: {"type": "integer"}}, "minProperties": 1}
        return s

    def amplify(self) -> Any:
        size = self.r.choice([1_000, 65_536, 1 << 20])
        self.defs["big"] = self.r.choice(
            [{"const": "x" * size}, {"enum": ["y" * size, 1]}, {"const": ["z" * 100] * (size // 100)}]
        )
        n = self.r.choice([2, 20, 1000, 3000])
        big = {"$ref": "#/$defs/big"}
        return self.r.choice(
            [
                {
                    "type": "object",
                    "properties": {f"p{i}": big for i in range(n)},
                    "required": [f"p{i}" for i in range(n)],
                },
                {"type": "array", "items": big, "minItems": min(n, 1000)},
                {"type": "array", "items": {"type": "array", "items": big, "minItems": 1000}, "minItems": 1000},
                {"type": "string", "minLength": 100_000, "pattern": "^x*$"},
            ]
        )

    def mutation(self) -> Any:
        schema = copy.deepcopy(self.r.choice(_REALISTIC))
        self.defs.update(schema.pop("$defs", {}))
        schema = _rebase(schema, self.base)
        return self.mutate(schema, self.r.randrange(1, 6))

    def mutate(self, schema: Any, times: int) -> Any:
        for _ in range(times):
            nodes = list(_nodes(schema))
            holder, key = self.r.choice(nodes) if nodes else (None, None)
            value = self.hostile_value()
            if holder is None:
                schema = value
            elif isinstance(holder, dict) and self.chance(0.5):
                holder[self.r.choice(_KEYWORDS)] = value
            else:
                holder[key] = value
        return schema

    def hostile_value(self) -> Any:
        return copy.deepcopy(self._hostile_value())  # the pools' lists and dicts are shared: never mutated in place

    def _hostile_value(self) -> Any:
        roll = self.r.random()
        if roll < 0.3:
            return self.r.choice(_WRONG)
        if roll < 0.45:
            return self.r.choice(_NUMBERS)
        if roll < 0.6:
            return {
                "$ref": self.r.choice(
                    [self.base, "#/$defs/missing", "#/$defs/Stop", "#/properties", "http://x/y", "#x"]
                )
            }
        if roll < 0.7 and not self.deep:
            self.deep = True
            deep: Any = {"type": "string"}
            for _ in range(self.r.choice([10, 150, 400])):
                deep = {"type": "array", "items": deep, "minItems": 1}
            return deep
        if roll < 0.8:
            return {"type": "string", "pattern": self.r.choice(_PATTERNS)}
        if roll < 0.9:
            return {"type": self.r.choice(["integer", "number"]), "multipleOf": self.r.choice(_NUMBERS)}
        return self.leaf()


def _nodes(value: Any) -> Any:
    """(holder, key) for every place inside ``value`` a value sits, depth first."""
    stack = [value]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for k, v in items:
            yield node, k
            if isinstance(v, (dict, list)):
                stack.append(v)


def _rebase(value: Any, base: str) -> Any:
    """``value`` with its references to the root (``#``, ``#/...`` outside ``$defs``) moved under ``base``."""
    if isinstance(value, dict):
        out = {k: _rebase(v, base) for k, v in value.items()}
        ref = out.get("$ref")
        if isinstance(ref, str) and ref.startswith("#") and not ref.startswith("#/$defs"):
            out["$ref"] = base + ref[1:]
        return out
    if isinstance(value, list):
        return [_rebase(v, base) for v in value]
    return value


def _bodies(schema: Any, defs: dict[str, Any], tool: bool, stream: bool) -> bytes:
    base: dict[str, Any] = {"model": MODEL, "max_tokens": 4_000_000, "messages": [{"role": "user", "content": "go"}]}
    if stream:
        base["stream"] = True
    if tool:
        root: Any = {"type": "object", "properties": {"a": schema}, "required": ["a"], "$defs": defs}
        body = {**base, "tools": [{"name": "t", "input_schema": root}], "tool_choice": {"type": "tool", "name": "t"}}
    else:
        root = {"$defs": defs, **schema} if isinstance(schema, dict) else schema
        body = {**base, "output_config": {"format": {"type": "json_schema", "schema": root}}}
    return msgspec.json.encode(body)


def _judge(root: Any, value: Any) -> bool | None:
    """Whether ``value`` is valid against ``root`` by ``jsonschema``; None when it cannot judge."""
    text = msgspec.json.encode(root)
    if any(f'"{k}"'.encode() in text for k in UNCHECKED_KEYWORDS):
        return None
    try:
        jsonschema.Draft202012Validator.check_schema(root)
        validator = jsonschema.Draft202012Validator(root, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
        errors = list(validator.iter_errors(value))
    except Exception:  # an invalid schema, a reference it cannot resolve, its own recursion limit
        return None
    # The documented limit of oneOf: the first branch's value may match another branch too.
    return all(e.validator == "oneOf" and "is valid under each of" in e.message for e in errors)


def _answered_value(payload: Any, tool: bool) -> Any:
    content = payload["content"]
    if tool:
        call = next((b for b in content if b["type"] == "tool_use"), None)
        return None if call is None else call["input"].get("a")
    text = next((b["text"] for b in content if b["type"] == "text"), None)
    return None if text is None else msgspec.json.decode(text)


def run(seed: int, cases: int, tally: Tally) -> None:
    """Fuzz ``cases`` schemas from ``seed``, adding what was seen to ``tally``."""
    g = _Hostile(seed)
    for case in range(cases):
        tool = case % 2 == 0
        kind, schema, defs = g.schema("#/properties/a" if tool else "#")
        tally.schemas += 1
        tally.kinds[kind] += 1
        stream = g.chance(0.15)
        where = f"seed {seed}, case {case} ({kind}, {'tool' if tool else 'output format'})"
        try:
            body = _bodies(schema, defs, tool, stream)
        except RecursionError:  # nested past what any JSON encoder writes: no request to send
            tally.kinds["not sendable"] += 1
            continue
        try:
            r = handle_messages(body, time_budget=30.0)
        except Exception as e:  # the promise: never
            tally.failures.append(f"{where}: {type(e).__name__}: {e}")
            continue
        tally.requests += 1
        tally.statuses[r.status] += 1
        if r.status not in (200, 400):
            tally.failures.append(f"{where}: status {r.status}: {r.body[:300]!r}")
            continue
        if r.status == 400:
            error = r.json()["error"]
            message = error["message"]
            if error["type"] != "invalid_request_error" or "this generator cannot read the schema here" in message:
                tally.failures.append(f"{where}: {message[:300]}")
            elif message.startswith("the local API cannot build a value") and ": $" not in message:
                tally.failures.append(f"{where}: no schema path in {message[:300]}")
            continue
        if stream:
            continue
        try:
            value = _answered_value(r.json(), tool)
        except msgspec.DecodeError:
            tally.failures.append(f"{where}: a 200 whose JSON output is not one JSON document")
            continue
        if value is None:
            continue
        if tool:
            root: Any = {"$defs": defs, "type": "object", "properties": {"a": schema}, "required": ["a"]}
            value = {"a": value}
        else:
            root = {"$defs": defs, **schema} if isinstance(schema, dict) else schema
        verdict = _judge(root, value)
        if verdict is not None:
            tally.checked += 1
            if not verdict:
                tally.failures.append(
                    f"{where}: a 200 whose value jsonschema refuses: {msgspec.json.encode(schema)[:300]!r}"
                )


@pytest.mark.parametrize("seed", SEEDS)
def test_hostile_schemas_get_a_200_or_a_400_naming_the_path(seed: int) -> None:
    tally = Tally()
    run(seed, CASES_PER_SEED, tally)
    assert not tally.failures, "\n".join(tally.failures[:10])
    assert tally.statuses[200] and tally.statuses[400], tally.statuses  # both outcomes are reached


def main() -> int:
    parser = argparse.ArgumentParser(description="the schema fuzz job, sized by hand")
    parser.add_argument("--schemas", type=int, default=30_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    tally, started = Tally(), time.monotonic()
    run(args.seed, args.schemas, tally)
    elapsed = time.monotonic() - started
    print(f"{tally.schemas} schemas from seed {args.seed} in {elapsed:.1f} s: statuses {dict(tally.statuses)}")
    print(f"classes {dict(tally.kinds)}; 200 values checked by jsonschema: {tally.checked}")
    print(f"failures: {len(tally.failures)}")
    for line in tally.failures[:40]:
        print("  " + line)
    return 1 if tally.failures else 0


if __name__ == "__main__":
    sys.exit(main())
