"""A local Messages API server on a free loopback port, in a thread, for the tests that speak HTTP to it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

from msgmodel.api.server import LocalServer, make_server

HANG_GUARD = 60.0
"""Seconds after which a test that should have finished long ago gives up instead of hanging CI."""


def serving(**kwargs: Any) -> Iterator[LocalServer]:
    """Yield one server made by ``make_server(0, **kwargs)``; shut it down and join its thread after."""
    srv = make_server(0, **kwargs)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(HANG_GUARD)
        assert not thread.is_alive(), "the server's thread did not stop"
