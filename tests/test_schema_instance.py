"""``instance_of``: every generated instance validates (``jsonschema``, formats checked) against its schema.

Schemas come from Hypothesis (random, satisfiable by construction) and from real pydantic models
(``$ref``/``$defs``, ``anyOf`` with null, enums, nested models, constrained fields, recursion).
"""

from __future__ import annotations

import datetime
import enum
import uuid
from typing import Annotated, Any, Literal

import jsonschema
import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from msgmodel.api.schema_instance import MAX_BYTES, MAX_ITEMS, MAX_STEPS, SchemaError, instance_of

_FORMAT_CHECKER = jsonschema.Draft202012Validator.FORMAT_CHECKER


def assert_valid(schema: Any) -> Any:
    value = instance_of(schema)
    jsonschema.Draft202012Validator(schema, format_checker=_FORMAT_CHECKER).validate(value)
    assert instance_of(schema) == value  # deterministic
    return value


# -- Hypothesis: random satisfiable schemas --------------------------------------------------------

_names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8)


@st.composite
def _numbers(draw: st.DrawFn, integer: bool) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer" if integer else "number"}
    lo = draw(st.none() | st.integers(-1000, 1000))
    width = draw(st.integers(2, 1000))
    if lo is not None:
        schema["exclusiveMinimum" if draw(st.booleans()) else "minimum"] = lo
    if draw(st.booleans()):
        hi = (lo if lo is not None else draw(st.integers(-1000, 1000))) + width
        schema["exclusiveMaximum" if draw(st.booleans()) else "maximum"] = hi
    if draw(st.booleans()) and "maximum" not in schema and "exclusiveMaximum" not in schema:
        schema["multipleOf"] = draw(st.integers(1, 7) | st.sampled_from([0.1, 0.25, 0.5, 0.01]))
    if draw(st.booleans()):  # a bound that is not whole: -3.5 as an integer's maximum, 0.25 as a number's minimum
        key = next(
            (k for k in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum") if k in schema), "maximum"
        )
        schema[key] = schema.get(key, 0) + draw(st.sampled_from([0.5, -0.5, 0.25, -3.5]))
    return schema


# Patterns real tool definitions carry (ids, codes, dates, enums, slugs), longer than 20 characters too.
_PATTERNS = [
    "^[A-Z]{2}-[0-9]{4}-[a-z]{3}$",
    "^[a-z_][a-z0-9_]*$",
    "^\\d{4}-\\d{2}-\\d{2}$",
    "^(asc|desc)$",
    "^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}$",
    "^https?://[^\\s]+$",
    "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
    "^#[0-9a-fA-F]{6}$",
    "^\\+?[1-9]\\d{1,14}$",
    "^[A-Z][a-z]+( [A-Z][a-z]+)*$",
    "^v\\d+\\.\\d+\\.\\d+(-[a-z]+)?$",
    "[a-z]",
]


@st.composite
def _strings(draw: st.DrawFn) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    fmt = draw(st.none() | st.sampled_from(["date", "date-time", "email", "uri", "uuid", "ipv4", "hostname"]))
    if fmt:
        schema["format"] = fmt
        return schema
    if draw(st.booleans()):
        schema["pattern"] = draw(st.sampled_from(_PATTERNS))
        return schema
    least = draw(st.integers(0, 30))
    if least:
        schema["minLength"] = least
    if draw(st.booleans()):
        schema["maxLength"] = least + draw(st.integers(0, 5))
    return schema


_leaves = st.one_of(
    _strings(),
    _numbers(True),
    _numbers(False),
    st.just({"type": "boolean"}),
    st.just({"type": "null"}),
    st.lists(st.integers() | st.text(max_size=5), min_size=1, max_size=4, unique=True).map(lambda v: {"enum": v}),
    st.integers().map(lambda v: {"const": v}),
    st.just({}),
    st.just(True),
)


def _compound(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    objects = st.dictionaries(_names, children, max_size=5).flatmap(
        lambda props: st.builds(
            lambda required, closed: {
                "type": "object",
                "properties": props,
                "required": required,
                **({"additionalProperties": False} if closed else {}),
            },
            st.lists(st.sampled_from(sorted(props)), unique=True) if props else st.just([]),
            st.booleans(),
        )
    )
    arrays = st.tuples(children, st.integers(0, 4), st.integers(0, 3), st.booleans()).map(
        lambda t: {"type": "array", "items": t[0], "minItems": t[1], **({"maxItems": t[1] + t[2]} if t[3] else {})}
    )
    unions = st.lists(children, min_size=1, max_size=3).flatmap(
        lambda bs: st.sampled_from([{"anyOf": bs}, {"oneOf": bs[:1]}])
    )
    nullable = children.map(lambda c: {"anyOf": [c, {"type": "null"}]})
    return st.one_of(objects, arrays, unions, nullable)


schemas = st.recursive(_leaves, _compound, max_leaves=25)


@settings(max_examples=400)
@given(schemas)
def test_random_schemas_get_a_valid_instance(schema: Any) -> None:
    assert_valid(schema)


@settings(max_examples=100)
@given(schemas, _names)
def test_refs_to_defs_resolve(schema: Any, name: str) -> None:
    assert_valid(
        {"$defs": {name: schema}, "type": "object", "properties": {"x": {"$ref": f"#/$defs/{name}"}}, "required": ["x"]}
    )


# -- real pydantic schemas ------------------------------------------------------------------------


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Address(pydantic.BaseModel):
    street: str
    city: Annotated[str, pydantic.Field(min_length=3, max_length=40)]
    zip: Annotated[str, pydantic.Field(pattern=r"^\d{5}$")] | None = None


class Person(pydantic.BaseModel):
    name: str
    age: Annotated[int, pydantic.Field(ge=18, le=120)]
    height: Annotated[float, pydantic.Field(gt=0.5, lt=2.5)]
    email: Annotated[str, pydantic.Field(json_schema_extra={"format": "email"})]
    born: datetime.date
    seen: datetime.datetime
    id: uuid.UUID
    site: pydantic.AnyUrl
    favourite: Color
    kind: Literal["human", "robot"]
    tags: Annotated[list[str], pydantic.Field(min_length=2, max_length=4)]
    home: Address
    others: list[Address]
    scores: dict[str, int]
    pair: tuple[int, str]


class Tree(pydantic.BaseModel):
    label: str
    children: list[Tree]
    parent: Tree | None


class Cat(pydantic.BaseModel):
    kind: Literal["cat"]
    meows: bool


class Dog(pydantic.BaseModel):
    kind: Literal["dog"]
    barks: int


class Pet(pydantic.BaseModel):
    pet: Annotated[Cat | Dog, pydantic.Field(discriminator="kind")]
    unique: Annotated[set[int], pydantic.Field(min_length=3)]


class Weather(pydantic.BaseModel):
    """What a structured-output tutorial asks for."""

    city: str
    temperature_c: float
    conditions: Literal["sunny", "cloudy", "rain"]


@pytest.mark.parametrize("model", [Address, Person, Tree, Pet, Weather])
@pytest.mark.parametrize("mode", ["validation", "serialization"])
def test_pydantic_schemas_get_an_instance_pydantic_accepts(model: type[pydantic.BaseModel], mode: Any) -> None:
    schema = model.model_json_schema(mode=mode)
    value = assert_valid(schema)
    model.model_validate(value)


def test_person_instance_is_readable() -> None:
    value = instance_of(Weather.model_json_schema())
    assert value == {"city": "city", "temperature_c": 0, "conditions": "sunny"}


def test_recursion_is_cut_where_the_schema_allows_it() -> None:
    value = instance_of(Tree.model_json_schema())
    assert value == {"label": "label", "children": [], "parent": None}


# -- errors: named by path, bounded -------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "path"),
    [
        (
            {"type": "object", "properties": {"a": {"type": "array", "minItems": 10**9}}, "required": ["a"]},
            "$.properties.a.minItems",
        ),
        ({"type": "string", "minLength": 10**12}, "$.minLength"),
        ({"$ref": "https://example.com/s.json"}, "$.$ref"),
        ({"$ref": "#/$defs/missing"}, "$.$ref"),
        ({"type": "string", "pattern": "^(?=b)a$"}, "$.pattern"),  # a look-ahead no candidate passes
        ({"type": "array", "minItems": 3, "maxItems": 1}, "$.maxItems"),
        ({"type": "wat"}, "$.type"),
        ({"type": "array", "items": {"type": "boolean"}, "minItems": 3, "uniqueItems": True}, "$.uniqueItems"),
    ],
)
def test_unservable_schemas_raise_schema_error_with_path(schema: Any, path: str) -> None:
    with pytest.raises(SchemaError) as info:
        instance_of(schema)
    assert info.value.path == path, str(info.value)


def test_an_endless_recursion_is_a_schema_error_not_a_recursion_error() -> None:
    schema = {
        "$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}, "required": ["next"]}},
        "$ref": "#/$defs/n",
    }
    with pytest.raises(SchemaError, match="no instance"):
        instance_of(schema)


def test_a_wide_and_deep_schema_stops_at_the_step_budget() -> None:
    layer: Any = {"type": "string"}
    for _ in range(12):
        layer = {
            "type": "object",
            "properties": {f"p{i}": layer for i in range(4)},
            "required": [f"p{i}" for i in range(4)],
        }
    with pytest.raises(SchemaError, match=str(MAX_STEPS)):
        instance_of(layer)
    assert MAX_ITEMS >= 100


def test_an_instance_holds_a_bounded_number_of_characters_in_all() -> None:
    # Before, each string was bounded (MAX_LENGTH) but not their sum: six arrays of 1 000 strings of
    # 100 000 characters (a schema of 828 bytes) were built, 1.7 GB, for a forced tool call.
    strings = {"type": "array", "minItems": MAX_ITEMS, "items": {"type": "string", "minLength": 100_000}}
    with pytest.raises(SchemaError, match=rf"more than {MAX_BYTES} bytes"):
        instance_of({"type": "object", "properties": {"a": strings}, "required": ["a"]})
    one = instance_of({"type": "object", "properties": {"a": {"type": "string", "minLength": 100_000}}})
    assert one == {} or len(one["a"]) == 100_000
    fits = {"type": "array", "minItems": 9, "items": {"type": "string", "minLength": 100_000}}
    assert sum(map(len, instance_of(fits))) == 900_000
