"""How long the local API may work on one request: a per-request time budget, and regular expressions run under it.

This module owns the local API's answer to "a request that would take too long". A request's work
is bounded in size elsewhere (``schema_instance``'s step and item limits, the linear scans of the
rule model); what size bounds cannot catch, a hostile JSON schema whose instance takes minutes to
build, is caught here by time.

``within(seconds)``
    A context manager: the code inside runs under a deadline ``seconds`` from now (``None``: no
    deadline). The deadline belongs to the running thread (a ``ContextVar``), so each request of
    the threaded server has its own.
``check(path)``
    Raises ``BudgetExceeded`` once the deadline has passed. Long loops call it (``schema_instance``
    calls it at every schema node); a thread cannot be stopped from outside, so the budget is
    cooperative: the request stops at its next check, and its worker is free again.
``search(pattern, text)``
    ``re.search`` for a pattern a request supplied (a schema's ``pattern``). Python's ``re`` holds
    the interpreter lock while it backtracks, and ``((x+)+)+y`` on 20 characters backtracks for
    minutes, stalling every other request, out of reach of ``check``. So a pattern that cannot
    backtrack much on a text of that length (``^[A-Z]{3}-\\d{4}$``, ``^[a-z_]+$``: see
    ``_ways_if_safe``) runs here, and any other runs in a child Python process (about 20 ms)
    killed at the deadline. ``runs_in_process(pattern, length)`` tells which it will be.

The server answers ``BudgetExceeded`` with the API's 504 ``timeout_error`` (the status and error
type of the SDK's ``GatewayTimeoutError``; the message text is ours).
"""

from __future__ import annotations

import importlib
import math
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Final

import msgspec

__all__ = ["REQUEST_BUDGET", "BudgetExceeded", "check", "runs_in_process", "search", "within"]

REQUEST_BUDGET: Final = 10.0
"""Seconds the local API may work on one request (our choice; a valid request needs milliseconds)."""

_DEADLINE: ContextVar[float | None] = ContextVar("msgmodel_request_deadline", default=None)
_CHILD_TIMEOUT: Final = 10.0
"""A child pattern search outside any budget is still stopped after this many seconds."""
_CHILD: Final = (
    "import json,re,sys\n"
    "p,t,cpu=json.load(sys.stdin)\n"
    "try:\n import resource;resource.setrlimit(resource.RLIMIT_CPU,(cpu,cpu))\n"
    "except (ImportError,ValueError,OSError):\n pass\n"
    "print(int(re.search(p,t) is not None))"
)
"""The child's program. Its CPU-time limit ends it even when the server that would kill it at the
deadline is gone (stopped by Ctrl-C mid-request): without it, an orphan backtracked for minutes."""


class BudgetExceeded(Exception):
    """The request's time budget ran out; ``path`` says where the work was (a JSON path, or a step)."""

    def __init__(self, path: str) -> None:
        super().__init__(f"the request took longer than the local API's time budget (at {path})")
        self.path = path


@contextmanager
def within(seconds: float | None) -> Iterator[None]:
    """Run the body under a deadline ``seconds`` from now (``None``: none)."""
    token = _DEADLINE.set(None if seconds is None else time.monotonic() + seconds)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def check(path: str) -> None:
    """Raise ``BudgetExceeded`` (naming ``path``) if the running request's deadline has passed."""
    deadline = _DEADLINE.get()
    if deadline is not None and time.monotonic() > deadline:
        raise BudgetExceeded(path)


_SEARCHED: Final[dict[tuple[str, str], bool]] = {}
"""Answers of child searches, so a schema repeating a pattern pays one child per placeholder."""
_CACHED_CHARS: Final = 2_000
"""Only searches of at most this many characters (pattern and text) are kept: 4 096 of them then hold a few MB."""
_SRE_PARSE: Final[Any] = importlib.import_module("re._parser")
"""The parser ``re`` itself uses (``sre_parse`` is its deprecated alias); read here, never changed."""
_ATOMS: Final = frozenset({"LITERAL", "NOT_LITERAL", "IN", "ANY", "CATEGORY"})
_REPEATS: Final = frozenset({"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"})


_STEPS: Final = 21**4
"""At most this many backtracking steps (ways at one position, times the positions) run in-process."""


def _ways_if_safe(items: Any, length: int) -> int | None:
    """At most how many ways a parsed pattern can match at one position of a text of ``length`` characters,
    or None when it may backtrack badly there.

    Safe: atoms, groups, fixed counts of atoms (``\\d{3}``), variable repeats of one-character atoms
    (``[a-z]+``: ``length + 1`` ways), alternations (``^(asc|desc)$``: their branches' ways added); a
    sequence multiplies its parts' ways. Never safe: a repeated group, a back-reference, a look-around.
    The ways times the positions stay under ``_STEPS`` (on 20 characters: 21**3 ways, as ``[a-z]+``
    three times over), so an in-process search takes at most that many steps."""
    positions = length + 1
    total = 1
    for op, arg in items:
        name = str(op)
        ways: int | None = 1 if name in _ATOMS or name == "AT" else None
        if name == "SUBPATTERN":
            ways = _ways_if_safe(arg[-1], length)
        elif name == "BRANCH":
            branches = [_ways_if_safe(b, length) for b in arg[1]]
            ways = None if None in branches else sum(w or 0 for w in branches)
        elif name in _REPEATS:
            low, high, sub = arg
            ways = None if len(sub) != 1 or str(sub[0][0]) not in _ATOMS else (1 if low == high else positions)
        if ways is None or total * ways * positions > _STEPS:
            return None
        total *= ways
    return total


def _parsed(pattern: str) -> Any:
    """The parse tree's items; ``re.error`` for what Python's ``re`` cannot read (a deep nesting included)."""
    try:
        return _SRE_PARSE.parse(pattern).data
    except (OverflowError, RecursionError) as e:  # "a{5000000000}"; thousands of nested groups
        raise re.error(f"{type(e).__name__}: {e}" if str(e) else type(e).__name__) from None


def runs_in_process(pattern: str, length: int) -> bool:
    """Whether ``search(pattern, text)`` on a text of ``length`` characters runs in-process (cheap), not in a child."""
    items = _parsed(pattern)
    try:
        return _ways_if_safe(items, length) is not None
    except RecursionError:  # nested deeper than this walk goes: the child reads it
        return False


def search(pattern: str, text: str, path: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``text``, within the budget (``re.error`` if not a pattern)."""
    if runs_in_process(pattern, len(text)):  # parses: raises re.error like re.compile
        try:
            return re.search(pattern, text) is not None
        except (OverflowError, RecursionError) as e:
            raise re.error(f"{type(e).__name__}: {e}") from None
    known = _SEARCHED.get((pattern, text))
    if known is not None:
        return known
    check(path)
    deadline = _DEADLINE.get()
    timeout = _CHILD_TIMEOUT if deadline is None else max(0.0, deadline - time.monotonic())
    try:
        job = msgspec.json.encode([pattern, text, math.ceil(timeout) + 1])
    except UnicodeEncodeError:  # a lone surrogate: no JSON text carries it
        raise re.error("the pattern holds a lone surrogate") from None
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", _CHILD],
            input=job,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:  # run() kills the child
        raise BudgetExceeded(f"{path} (matching the pattern)") from None
    found = done.returncode == 0 and done.stdout.strip() == b"1"  # a failing child: no match
    if len(pattern) + len(text) <= _CACHED_CHARS:
        if len(_SEARCHED) >= 4096:
            _SEARCHED.clear()
        _SEARCHED[(pattern, text)] = found
    return found
