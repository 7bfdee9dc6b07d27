"""The number a JSON schema's numeric keywords allow: one deterministic integer or float, or why there is none.

This module owns the numbers of ``msgmodel.api.schema_instance``'s instances. ``number_for(schema,
integer=..., variant=...)`` reads ``minimum``, ``maximum``, ``exclusiveMinimum``,
``exclusiveMaximum`` (draft 6+ numbers, or draft 4's booleans) and ``multipleOf``, and returns the
allowed number nearest to 0 (the ``variant``-th one along, for distinct array items); ``admits``
says whether a given value passes those keywords.

Exact, then checked as a validator checks
    The keywords are read as the decimals their author wrote (``0.1`` is one tenth, not the
    binary float nearest to it), so the allowed set is computed exactly with ``Fraction``: an empty
    range, or a range without a multiple of ``multipleOf`` (the integers that are multiples of
    ``p/q`` are the multiples of ``p``), is *proven* empty. A candidate is then written as an
    ``int`` when whole, a ``float`` otherwise, and kept only if it passes the keywords as a
    validator tests them (Python's comparisons, and ``multipleOf`` as ``jsonschema`` tests it:
    ``x / step`` must be whole in floats, exact fractions past the float range): ``0.3`` is not
    a multiple of ``0.1`` there (``0.3 / 0.1 == 2.9999999999999996``), so ``minimum: 0.25,
    multipleOf: 0.1`` gives ``0.4``. Integers of any size are written whole (a 400-digit
    ``minimum`` gives that integer), up to what JSON encoders print (``MAX_DIGITS``).

``NoNumber(keyword, message, proven=...)`` says why no number was returned: ``proven`` when no
number can satisfy the keywords, otherwise because none of the candidates tried passed the check,
or the keywords are not numbers at all.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any, Final

__all__ = ["MAX_DIGITS", "NoNumber", "admits", "number_for"]

MAX_DIGITS: Final = 4_000
"""An integer of more digits is never returned (Python prints at most 4 300 by default)."""
_TRIES: Final = 64
"""Candidates tried, nearest to the preferred one first, before giving up."""


class NoNumber(ValueError):
    """No number was found for the schema's numeric keywords; ``keyword`` names the one to blame."""

    def __init__(self, keyword: str, message: str, *, proven: bool) -> None:
        super().__init__(message)
        self.keyword = keyword
        self.message = message
        self.proven = proven


def _is_num(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _exact(v: int | float) -> Fraction:
    """The number as its author wrote it: an int as itself, a float as its shortest decimal."""
    return Fraction(v) if isinstance(v, int) else Fraction(repr(v))


def _bound(schema: Mapping[str, Any], closed: str, open_: str) -> tuple[int | float | None, bool, str]:
    """(bound, open, keyword) from ``closed``/``open_`` (draft 6+ numbers, or draft 4's boolean ``exclusive*``)."""
    c, o = schema.get(closed), schema.get(open_)
    if c is not None and not _is_num(c):
        raise NoNumber(closed, "expected a number", proven=False)
    if isinstance(o, bool):
        return c, o and c is not None, closed
    if o is not None and not _is_num(o):
        raise NoNumber(open_, "expected a number", proven=False)
    if c is None:
        return o, o is not None, open_
    if o is None:
        return c, False, closed
    tighter_open = o >= c if closed == "minimum" else o <= c
    return (o, True, open_) if tighter_open else (c, False, closed)


def _step(schema: Mapping[str, Any]) -> int | float | None:
    step = schema.get("multipleOf")
    if step is None:
        return None
    if not _is_num(step) or step <= 0 or (isinstance(step, float) and not math.isfinite(step)):
        raise NoNumber("multipleOf", "expected a positive number", proven=False)
    return float(step) if isinstance(step, float) else int(step)


def _is_multiple(x: int | float, step: int | float) -> bool:
    """``x`` is a multiple of ``step`` as ``jsonschema`` tests it."""
    if isinstance(step, float):
        try:
            quotient = x / step
            return int(quotient) == quotient
        except OverflowError:  # past the float range: exact fractions, as jsonschema falls back to
            return (Fraction(x) / Fraction(step)).denominator == 1
    if isinstance(x, float):
        return x % step == 0
    return x % step == 0


def admits(value: object, schema: Mapping[str, Any]) -> bool:
    """Whether a number ``value`` passes the schema's bounds and ``multipleOf`` (True for a non-number)."""
    if not _is_num(value):
        return True
    assert isinstance(value, (int, float))
    try:
        lo, lo_open, _ = _bound(schema, "minimum", "exclusiveMinimum")
        hi, hi_open, _ = _bound(schema, "maximum", "exclusiveMaximum")
        step = _step(schema)
    except NoNumber:
        return True  # keywords that are not numbers constrain nothing this check can read
    if lo is not None and (value < lo or (lo_open and value == lo)):
        return False
    if hi is not None and (value > hi or (hi_open and value == hi)):
        return False
    return step is None or _is_multiple(value, step)


def _range(
    lo: Fraction | None, lo_open: bool, hi: Fraction | None, hi_open: bool, unit: Fraction
) -> tuple[int | None, int | None]:
    """The whole ``m`` with ``m * unit`` inside the bounds, as (least, most); None for an unbounded side."""
    least = most = None
    if lo is not None:
        q = lo / unit
        least = math.floor(q) + 1 if lo_open and q.denominator == 1 else math.ceil(q)
    if hi is not None:
        q = hi / unit
        most = math.ceil(q) - 1 if hi_open and q.denominator == 1 else math.floor(q)
    return least, most


def _walk(least: int | None, most: int | None, variant: int) -> Iterator[int]:
    """Whole numbers in [least, most]: the one nearest 0, ``variant`` steps along, then its neighbours."""
    if least is not None and least > 0:
        start, direction = least, 1
    elif most is not None and most < 0:
        start, direction = most, -1
    else:
        start, direction = 0, 1
    first = start + direction * variant

    def inside(m: int) -> bool:
        return (least is None or m >= least) and (most is None or m <= most)

    if inside(first):
        yield first
    for k in range(1, _TRIES):
        for m in (first + direction * k, first - direction * k):
            if inside(m):
                yield m


def _written(x: Fraction, integer: bool) -> int | float | None:
    """``x`` as the JSON value to write, or None when it cannot be written faithfully."""
    if x.denominator == 1:
        whole = int(x)
        return whole if whole.bit_length() <= MAX_DIGITS * 3 else None  # ~0.3 digits per bit
    if integer:
        return None
    try:
        value = float(x)
    except OverflowError:
        return None
    return value if math.isfinite(value) else None


def _empty(keyword: str) -> NoNumber:
    return NoNumber(keyword, "no number satisfies the bounds and multipleOf together", proven=True)


def number_for(schema: Mapping[str, Any], *, integer: bool, variant: int = 0) -> int | float:
    """An integer (``integer``) or number allowed by the schema's numeric keywords (see the module docstring)."""
    lo_raw, lo_open, lo_key = _bound(schema, "minimum", "exclusiveMinimum")
    hi_raw, hi_open, hi_key = _bound(schema, "maximum", "exclusiveMaximum")
    step_raw = _step(schema)
    lo = None if lo_raw is None else _exact(lo_raw)
    hi = None if hi_raw is None else _exact(hi_raw)
    if lo is not None and hi is not None and (lo > hi or (lo == hi and (lo_open or hi_open))):
        raise _empty(hi_key)
    if step_raw is not None:
        step = _exact(step_raw)
        unit = Fraction(step.numerator) if integer else step  # whole multiples of p/q are multiples of p
    elif integer:
        unit = Fraction(1)
    else:
        unit = None
    candidates: list[Fraction] = []
    if unit is not None:
        least, most = _range(lo, lo_open, hi, hi_open, unit)
        if least is not None and most is not None and least > most:
            raise _empty("multipleOf" if step_raw is not None else hi_key)
        candidates = [m * unit for m in _walk(least, most, variant)]
    else:  # any real number: a whole one if the range holds one, else points inside it
        least, most = _range(lo, lo_open, hi, hi_open, Fraction(1))
        if least is None or most is None or least <= most:
            candidates = [Fraction(m) for m in _walk(least, most, variant)]
        if lo is not None and hi is not None:
            candidates += [lo + (hi - lo) * Fraction(k, 8) for k in (4, 2, 6, 1, 7)]
    for x in candidates:
        value = _written(x, integer)
        if value is not None and admits(value, schema):
            return value
    keyword = "multipleOf" if step_raw is not None else (lo_key if lo is not None else hi_key)
    raise NoNumber(keyword, "no number found that a validator accepts within the bounds and multipleOf", proven=False)
