"""``make lab`` (``scripts/lab.py``) keeps its token off the command line (issue 22).

Any local user reads every process's command line (``ps``, ``/proc/PID/cmdline``); with the
token there, they got HTTP 200 on the learner's Jupyter API. The test starts ``scripts/lab.py``
as ``make lab`` does (throw-away Jupyter directories, no browser, a free port), checks that the
token opens the API and its absence does not, and that no process of the server's tree shows
the token in its command line.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


@pytest.fixture(scope="module")
def lab() -> Iterator[tuple[subprocess.Popen[bytes], str, str]]:
    tmp = Path(tempfile.mkdtemp(prefix="msgmodel-lab-token-"))
    token = secrets.token_hex(16)
    env = dict(os.environ, MSGMODEL_LAB_TOKEN=token)
    env.pop("JUPYTER_TOKEN", None)
    for var in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
        (tmp / var).mkdir()
        env[var] = str(tmp / var)
    port = _free_port()
    log = (tmp / "lab.log").open("w+b")
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "lab.py"), "--port", str(port), "--no-browser"],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=tmp,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while _status_or_none(f"{base}/api/status?token={token}") != 200:
            if proc.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise RuntimeError(f"scripts/lab.py did not serve: {log.read().decode(errors='replace')[-2000:]}")
            time.sleep(0.25)
        yield proc, base, token
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def _status_or_none(url: str) -> int | None:
    try:
        return _status(url)
    except OSError:
        return None


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
