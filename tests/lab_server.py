"""``make lab`` for the tests: ``scripts/lab.py`` started as a learner starts it, on a free port.

Throw-away Jupyter config, data and runtime directories, no browser, a working directory that is
not the repository (the served root must not depend on where make runs), the token given through
``MSGMODEL_LAB_TOKEN``. Used by tests/test_lab.py (the token stays off the command line) and
tests/ui/test_make_lab.py (the printed URL and every chapter link).
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Lab:
    """A running ``scripts/lab.py``: its process (``jupyter lab`` after the exec), base URL, token and output."""

    proc: subprocess.Popen[bytes]
    base: str
    token: str
    log: IO[bytes]

    def output(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read().decode(errors="replace")


@contextlib.contextmanager
def running_lab(token: str, timeout: float = 60) -> Iterator[Lab]:
    tmp = Path(tempfile.mkdtemp(prefix="msgmodel-lab-"))
    env = dict(os.environ, MSGMODEL_LAB_TOKEN=token)
    env.pop("JUPYTER_TOKEN", None)
    for var in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
        (tmp / var).mkdir()
        env[var] = str(tmp / var)
    port = free_port()
    log = (tmp / "lab.log").open("w+b")
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "lab.py"), "--port", str(port), "--no-browser"],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=tmp,
    )
    lab = Lab(proc, f"http://127.0.0.1:{port}", token, log)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"scripts/lab.py exited with {proc.returncode}: {lab.output()}")
            try:
                urllib.request.urlopen(f"{lab.base}/api/status?token={token}", timeout=1)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"jupyter lab did not start within {timeout:.0f} s: {lab.output()}") from None
                time.sleep(0.25)
        yield lab
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
