"""``make lab`` (``scripts/lab.py``) keeps its token off the command line (issue 22).

Any local user reads every process's command line (``ps``, ``/proc/PID/cmdline``); with the
token there, they got HTTP 200 on the learner's Jupyter API. The test starts ``scripts/lab.py``
as ``make lab`` does (throw-away Jupyter directories, no browser, a free port), checks that the
token opens the API and its absence does not, and that no process of the server's tree shows
the token in its command line.
"""

from __future__ import annotations

import secrets
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from lab_server import running_lab


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


@pytest.fixture(scope="module")
def lab() -> Iterator[tuple[subprocess.Popen[bytes], str, str]]:
    with running_lab(secrets.token_hex(16), timeout=90) as lab:
        yield lab.proc, lab.base, lab.token


def test_the_token_opens_the_api_and_nothing_else_does(lab: tuple[subprocess.Popen[bytes], str, str]) -> None:
    _, base, token = lab
    assert _status(f"{base}/api/status?token={token}") == 200
    assert _status(f"{base}/api/status") == 403
    assert _status(f"{base}/api/status?token={token[::-1]}") == 403


def test_no_command_line_shows_the_token(lab: tuple[subprocess.Popen[bytes], str, str]) -> None:
    """What ``ps`` shows every local user: the server's (and its children's) ``/proc/PID/cmdline``."""
    proc, _, token = lab
    server = psutil.Process(proc.pid)  # lab.py execs jupyter: the same process id
    tree = [server, *server.children(recursive=True)]
    assert any("lab" in " ".join(p.cmdline()) for p in tree)
    for p in tree:
        raw = Path(f"/proc/{p.pid}/cmdline").read_bytes()
        assert token.encode() not in raw, f"process {p.pid} shows the token: {raw!r}"
    everyone = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=True).stdout
    assert token not in everyone
