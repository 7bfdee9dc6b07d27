"""Strings a regular expression matches, built from the pattern itself: the ``pattern`` of a schema instance.

This module owns one step of ``msgmodel.api.schema_instance``: from a JSON schema's ``pattern``
(read as Python's ``re`` reads it) to a few candidate strings that should match it, of a length the
schema allows. It reads the pattern's parse tree (``re._parser``, the parser ``re`` itself uses) and
writes one string per path through it: a literal as itself, a class as its first member (``[A-Z]``
-> ``A``, ``\\d`` -> ``0``, ``[^,]`` -> ``a``), a repeat its least number of times (more, to reach
``minLength``), a group reference as the group's text, an alternation's first branch (and, as a
second candidate, its shortest), anchors and look-arounds as nothing. ``^[A-Z]{2}-[0-9]{4}-[a-z]{3}$``
gives ``AA-0000-aaa``.

``texts_matching(pattern, least=..., most=..., limit=..., variant=...) -> list[str]``
    The candidates, best first. They are *candidates*: a look-around, a ``\\b`` or an anchor in the
    middle can make one fail, so the caller checks each with the real search (under the request's
    time budget, ``msgmodel.api.budget.search``). ``variant`` picks other members of the classes
    (and other branches), so array items can differ. Raises ``re.error`` when Python cannot read the pattern
    (an ``OverflowError`` or ``RecursionError`` of the parser included), and ``NoText`` when no
    candidate fits: ``proven`` when the shortest string the pattern can match is longer than
    ``most`` (a search needs a whole match inside the string), not proven when only the candidates
    are too long or longer than ``limit``.
"""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Sequence
from typing import Any, Final

__all__ = ["PATTERN_MAX_LENGTH", "NoText", "parse", "texts_matching"]

PATTERN_MAX_LENGTH: Final = 10_000
"""A longer ``pattern`` is refused (our limit): Python reads a pattern in the server's own process,
and one of 4 million characters took 12 s and 680 MB there, past the time budget."""

_PARSER: Final[Any] = importlib.import_module("re._parser")
"""The parser ``re`` itself uses (``sre_parse`` is its deprecated alias); read here, never changed."""
_POOL: Final = "".join(
    dict.fromkeys("aA0_x-. :/,;=+!@#$%&*?~^|<>()[]{}\"'\\\t\n" + "".join(map(chr, range(0x20, 0x7F))) + "éΩ中")
)
"""Characters tried, in order, for a negated class (``[^,]``) or a character that must differ."""
_LETTERS: Final = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_CATEGORY_CHARS: Final = {
    "CATEGORY_DIGIT": "0123456789",
    "CATEGORY_NOT_DIGIT": _LETTERS,
    "CATEGORY_SPACE": " \t\n",
    "CATEGORY_NOT_SPACE": _LETTERS + "0123456789",
    "CATEGORY_WORD": _LETTERS + "0123456789_",
    "CATEGORY_NOT_WORD": "-.,:;/ ",
    "CATEGORY_LINEBREAK": "\n",
    "CATEGORY_NOT_LINEBREAK": _LETTERS,
}
"""The characters written for ``\\d``, ``\\w``, ``\\s``, ... (each of them is one of the category's)."""
_CHOICES: Final = 64
"""At most this many characters of a class are told apart (for distinct array items)."""


class NoText(ValueError):
    """No candidate string fits the length bounds; ``proven`` when no string can."""

    def __init__(self, message: str, *, proven: bool) -> None:
        super().__init__(message)
        self.proven = proven


def parse(pattern: str) -> Any:
    """The parse tree of ``pattern`` (``re.error`` for anything Python's ``re`` cannot read)."""
    try:
        return _PARSER.parse(pattern)
    except (OverflowError, RecursionError) as e:  # "a{5000000000}", or thousands of nested groups
        raise re.error(f"{type(e).__name__}: {e}" if str(e) else type(e).__name__) from None


def _in_category(ch: str, name: str) -> bool:
    match name:
        case "CATEGORY_DIGIT":
            return ch.isdecimal()
        case "CATEGORY_NOT_DIGIT":
            return not ch.isdecimal()
        case "CATEGORY_SPACE":
            return ch.isspace()
        case "CATEGORY_NOT_SPACE":
            return not ch.isspace()
        case "CATEGORY_WORD":
            return ch.isalnum() or ch == "_"
        case "CATEGORY_NOT_WORD":
            return not (ch.isalnum() or ch == "_")
        case "CATEGORY_LINEBREAK":
            return ch == "\n"
        case _:
            return ch != "\n"


def _member(ch: str, items: Sequence[Any]) -> bool:
    """Whether ``ch`` belongs to a parsed character class (``IN``'s items, without ``NEGATE``)."""
    for op, av in items:
        name = str(op)
        if name == "LITERAL" and ch == chr(av):
            return True
        if name == "RANGE" and av[0] <= ord(ch) <= av[1]:
            return True
        if name == "CATEGORY" and _in_category(ch, str(av)):
            return True
    return False


def _usable(code: int) -> bool:
    return not 0xD800 <= code <= 0xDFFF  # a lone surrogate is no JSON text


def _class_chars(items: Sequence[Any]) -> list[str]:
    """Up to ``_CHOICES`` characters of a parsed class, in order: its own members first (``[A-Z]`` ->
    ``A``, ``B``, ...), or for a negated one the pool characters outside it."""
    negated = bool(items) and str(items[0][0]) == "NEGATE"
    members = items[1:] if negated else items
    if negated:
        return [ch for ch in _POOL if not _member(ch, members)][:_CHOICES]
    found: list[str] = []
    for op, av in members:
        name = str(op)
        if name == "LITERAL":
            codes: Sequence[int] = [av]
        elif name == "RANGE":
            codes = range(av[0], min(av[1], av[0] + _CHOICES) + 1)
        elif name == "CATEGORY":
            codes = [ord(ch) for ch in _CATEGORY_CHARS.get(str(av), "a")]
        else:
            codes = []
        found.extend(chr(c) for c in codes if _usable(c))
        if len(found) >= _CHOICES:
            break
    return list(dict.fromkeys(found))[:_CHOICES]


def _min_length(items: Sequence[Any]) -> int:
    """The length of the shortest string the parsed items can match (a lower bound: a back-reference counts 0)."""
    total = 0
    for op, av in items:
        name = str(op)
        if name in ("LITERAL", "NOT_LITERAL", "ANY", "IN", "CATEGORY"):
            total += 1
        elif name == "SUBPATTERN":
            total += _min_length(av[-1])
        elif name == "ATOMIC_GROUP":
            total += _min_length(av)
        elif name == "BRANCH":
            total += min((_min_length(b) for b in av[1]), default=0)
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            total += av[0] * _min_length(av[2])
        elif name == "GROUPREF_EXISTS":
            total += min(_min_length(av[1]), _min_length(av[2]) if av[2] else 0)
    return total


class _Writer:
    """Writes one string along the parse tree.

    ``extra`` characters go to the variable repeats, first come first; ``variant`` picks, as the
    digits of a mixed-radix number, which member each class (and branch) writes, so variants 0, 1, 2
    ... of ``^[a-z]{3}$`` are ``aaa``, ``baa``, ``caa``."""

    def __init__(self, extra: int, shortest: bool, limit: int, variant: int = 0) -> None:
        self.extra = extra
        self.shortest = shortest
        self.limit = limit
        self.variant = variant
        self.groups: dict[int, str] = {}

    def pick(self, choices: Sequence[str]) -> str:
        if not choices:
            raise NoText("a character class matches no character this generator writes", proven=False)
        self.variant, digit = divmod(self.variant, len(choices))
        return choices[digit]

    def items(self, items: Sequence[Any]) -> str:
        parts: list[str] = []
        size = 0
        for op, av in items:
            part = self.item(str(op), av)
            size += len(part)
            if size > self.limit:
                raise NoText(f"the strings it matches are longer than {self.limit} characters", proven=False)
            parts.append(part)
        return "".join(parts)

    def item(self, name: str, av: Any) -> str:
        match name:
            case "LITERAL":
                return chr(av) if _usable(av) else "\ufffd"
            case "NOT_LITERAL":
                return self.pick([ch for ch in _LETTERS if ord(ch) != av])
            case "ANY":
                return self.pick(_LETTERS)
            case "IN":
                return self.pick(_class_chars(av))
            case "CATEGORY":
                return self.pick(_CATEGORY_CHARS.get(str(av), "a"))
            case "SUBPATTERN":
                group, text = av[0], self.items(av[-1])
                if group is not None:
                    self.groups[group] = text
                return text
            case "ATOMIC_GROUP":
                return self.items(av)
            case "BRANCH":
                branches = av[1]
                if self.shortest:
                    return self.items(min(branches, key=_min_length))
                self.variant, digit = divmod(self.variant, len(branches))
                return self.items(branches[digit])
            case "MAX_REPEAT" | "MIN_REPEAT" | "POSSESSIVE_REPEAT":
                return self.repeat(*av)
            case "GROUPREF":
                return self.groups.get(av, "")
            case "GROUPREF_EXISTS":
                group, yes, no = av
                return self.items(yes) if group in self.groups else (self.items(no) if no else "")
            case _:  # AT (anchors, \\b), ASSERT, ASSERT_NOT, FAILURE: no characters of their own
                return ""

    def repeat(self, low: int, high: int, sub: Sequence[Any]) -> str:
        if low * _min_length(sub) > self.limit:
            raise NoText(f"the strings it matches are longer than {self.limit} characters", proven=False)
        one = self.items(sub)
        count = low
        if self.extra > 0 and one and high > low:
            more = min(math.ceil(self.extra / len(one)), high - low)
            count += more
            self.extra -= more * len(one)
        if len(one) * count > self.limit:
            raise NoText(f"the strings it matches are longer than {self.limit} characters", proven=False)
        return one * count


def texts_matching(pattern: str, *, least: int, most: int | None, limit: int, variant: int = 0) -> list[str]:
    """Candidate strings for ``pattern`` with a length in [least, most] (see the module docstring)."""
    tree = parse(pattern)
    try:
        shortest = _min_length(tree.data)
    except RecursionError:
        raise re.error("the pattern nests too deeply") from None
    if most is not None and shortest > most:
        raise NoText(
            f"the shortest string it matches has {shortest} characters, more than maxLength {most}", proven=True
        )
    if shortest > limit:
        raise NoText(f"the shortest string it matches has {shortest} characters, more than {limit}", proven=False)
    found: list[str] = []
    for prefer_short in (False, True):
        base = _write(tree.data, 0, prefer_short, limit, variant)
        want = max(least - len(base), 0)
        text = _write(tree.data, want, prefer_short, limit, variant) if want else base
        for candidate in (text, text + "x" * (least - len(text)), "x" * (least - len(text)) + text):
            if len(candidate) >= least and (most is None or len(candidate) <= most) and candidate not in found:
                found.append(candidate)
    if not found:
        raise NoText(f"no string this generator writes for it has a length in [{least}, {most}]", proven=False)
    return found


def _write(items: Sequence[Any], extra: int, shortest: bool, limit: int, variant: int) -> str:
    try:
        return _Writer(extra, shortest, limit, variant).items(items)
    except RecursionError:
        raise re.error("the pattern nests too deeply") from None
