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

TABLE = Path(__file__).resolve().parent.parent / "msgmodel" / "data" / "known_request.json"

# ---------------------------------------------------------------------------------------
# The table, derived from the installed SDK
# ---------------------------------------------------------------------------------------


def derive_known_request() -> dict[str, Any]:
    """Every table of ``msgmodel.api._known_request``, read from the installed ``anthropic`` SDK's types.

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
        if origin is Literal:
            return ("lit", tuple(get_args(tp)))
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
            merged_lit = ("lit", tuple(v for x in lits for v in x[1]))
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


if __name__ == "__main__":
    TABLE.write_bytes(render_known_request(derive_known_request()))
    sys.exit(0)
