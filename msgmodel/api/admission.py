"""Which connections the local server serves at once, and what the others do meanwhile.

This module owns the connection cap of ``msgmodel.api.server.LocalServer``. At most ``slots``
connections are served at once, each on its own thread. One more does not get a thread: it waits
in a queue, in arrival order, for a slot to free up, and once it has waited ``wait`` seconds it is
answered with the API's 529 ``overloaded_error`` (which the SDK retries) and closed, never reset.

``Admission(slots, wait, start=..., refuse=...)``
    ``admit(connection, address)`` is what the accept loop calls for every connection; it never
    blocks: with a slot free it calls ``start(connection, address)`` at once (the caller's
    per-connection thread, which calls ``release()`` when it is done); otherwise it queues the
    connection. One waiter thread (started with the ``Admission``, and the only thread the waiting
    connections cost) hands each freed slot to the connection that waited longest, and calls
    ``refuse(connection)`` for those whose wait is over. More than ``max_waiting`` queued
    connections (each holds a file descriptor) and a new one is refused at once. ``close()``
    refuses every connection still waiting and stops the waiter.

Before, the accept loop itself waited up to ``wait`` seconds for a slot, one connection after the
other: 200 connections past a cap of 8 delayed every later client by up to 200 s (130 s measured
for a normal request beside them) before even its 529.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Final, NamedTuple

__all__ = ["MAX_WAITING", "Admission"]

MAX_WAITING: Final = 256
"""Connections that may wait for a slot at once; one more is refused at once (our limit)."""


class _Waiting(NamedTuple):
    deadline: float
    connection: Any
    address: Any


class Admission:
    """The connection cap: see the module docstring."""

    def __init__(
        self,
        slots: int,
        wait: float,
        *,
        start: Callable[[Any, Any], None],
        refuse: Callable[[Any], None],
        max_waiting: int = MAX_WAITING,
    ) -> None:
        self._free = slots
        self._wait = wait
        self._start = start
        self._refuse = refuse
        self._max_waiting = max_waiting
        self._queue: deque[_Waiting] = deque()
        self._cond = threading.Condition()
        self._closed = False
        self._waiter = threading.Thread(target=self._hand_out, name="msgmodel-admission", daemon=True)
        self._waiter.start()

    def admit(self, connection: Any, address: Any) -> None:
        """Serve ``connection`` now, queue it, or refuse it; never blocks."""
        with self._cond:
            if self._closed:
                go, full = False, True
            elif self._free > 0 and not self._queue:
                self._free -= 1
                go, full = True, False
            elif len(self._queue) >= self._max_waiting:
                go, full = False, True
            else:
                self._queue.append(_Waiting(time.monotonic() + self._wait, connection, address))
                self._cond.notify()
                return
        if go:
            self._begin(connection, address)
        elif full:
            self._refuse(connection)

    def release(self) -> None:
        """A served connection is done: its slot goes to the connection that waited longest."""
        with self._cond:
            self._free += 1
            self._cond.notify()

    @property
    def waiting(self) -> int:
        """How many connections wait for a slot now."""
        with self._cond:
            return len(self._queue)

    def close(self) -> None:
        """Refuse every connection still waiting; stop the waiter thread."""
        with self._cond:
            self._closed = True
            self._cond.notify()
        self._waiter.join(timeout=5.0)

    def _begin(self, connection: Any, address: Any) -> None:
        try:
            self._start(connection, address)
        except Exception:  # no thread for it after all: its slot back, and the 529 instead of silence
            self.release()
            self._refuse(connection)

    def _hand_out(self) -> None:
        while True:
            with self._cond:
                while not self._closed and not self._due():
                    timeout = self._queue[0].deadline - time.monotonic() if self._queue else None
                    self._cond.wait(timeout)
                ready: list[_Waiting] = []
                while self._queue and self._free > 0 and not self._closed:
                    ready.append(self._queue.popleft())
                    self._free -= 1
                now = time.monotonic()
                expired: list[_Waiting] = []
                while self._queue and (self._closed or self._queue[0].deadline <= now):
                    expired.append(self._queue.popleft())
                closed = self._closed
            for w in ready:
                self._begin(w.connection, w.address)
            for w in expired:
                self._refuse(w.connection)
            if closed:
                return

    def _due(self) -> bool:
        """Whether the waiter has work: a slot for the first in line, or a wait that is over."""
        return bool(self._queue) and (self._free > 0 or self._queue[0].deadline <= time.monotonic())
