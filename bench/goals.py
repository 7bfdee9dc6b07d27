"""What the benchmark measures against: the session shapes and the goals it reports met or missed.

Owned here so that the driver (``bench.run``) and the report writer (``bench.report``) both read them
from one place without importing each other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from msgmodel import Message
from msgmodel.course.synth import agent_session, synth_session

SHAPES: Final[dict[str, Callable[[int, int], list[Message]]]] = {
    "long tool outputs": lambda n, seed: synth_session(n, seed=seed),
    "dense": lambda n, seed: synth_session(n, seed=seed, long_outputs=False),
    "agent": lambda n, seed: agent_session(n, seed=seed),
}
"""The session shapes every decode and memory figure is given for (the first is P2's and P3's)."""
MEMORY_GOAL: Final = 0.55
"""P4: a loaded session costs at most this fraction of the same session as plain dicts."""
LIMIT_GOAL: Final = 1.2
"""P1's limit: ``from_json`` within this factor of the bare msgspec decode, on every shape."""
