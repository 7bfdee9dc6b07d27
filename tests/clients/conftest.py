"""Real third-party clients against ``python -m msgmodel serve`` (``make test-clients``).

Collected only when the clients of ``requirements-clients.txt`` are installed (``make
test-clients`` builds ``.venv-clients`` for them); the default ``pytest tests`` run skips this
directory. One ``serve`` process per session, on a free loopback port (``--port 0``); set
``MSGMODEL_BASE_URL`` to run the same tests against a server that is already running.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

CLIENTS = ("anthropic", "pydantic_ai", "langchain_anthropic", "langchain_core")
if any(importlib.util.find_spec(name) is None for name in CLIENTS):
    collect_ignore_glob = ["test_*.py"]

START_TIMEOUT = 60.0  # a hang guard for the server's start, not a performance assertion
_URL_RE = re.compile(r"on (http://\S+) ")


@pytest.fixture(scope="session")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a running local API: ``MSGMODEL_BASE_URL``, or a ``serve`` started here."""
    given = os.environ.get("MSGMODEL_BASE_URL")
    if given:
        yield given.rstrip("/")
        return
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    log = tmp_path_factory.mktemp("serve") / "serve.log"  # a file, not a pipe: the server logs every request
    with log.open("w") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "msgmodel", "serve", "--port", "0", "--host", "127.0.0.1"],
            stderr=sink,
            stdout=subprocess.DEVNULL,
            env=env,
            cwd=root,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        found = None
        while found is None and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
            found = _URL_RE.search(log.read_text())
        if found is None:
            pytest.fail(f"python -m msgmodel serve did not start (exit status {proc.poll()}): {log.read_text()}")
        yield found.group(1)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=START_TIMEOUT)
        except subprocess.TimeoutExpired:  # pragma: no cover - a hang guard
            proc.kill()
            proc.wait()
