"""``make lab`` (``scripts/lab.py``): the repository root served, chapter 00 opened, every chapter link alive.

Starts ``scripts/lab.py`` itself, as a learner's ``make lab`` does (with throw-away Jupyter
config, data and runtime directories and no browser), then reads through the Lab contents
API: the printed URL opens chapter 00, and every relative link of every chapter's markdown
(into ``docs/``, ``bench/``, other chapters) names a file the server has.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.ui

ROOT = Path(__file__).resolve().parents[2]

LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.fixture(scope="module")
def make_lab() -> Iterator[tuple[str, str, str]]:
    tmp = Path(tempfile.mkdtemp(prefix="msgmodel-lab-"))
    env = dict(os.environ, MSGMODEL_LAB_TOKEN="uitesttoken")
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
        cwd=tmp,  # not the repository: the served root must not depend on where make runs
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            if proc.poll() is not None:
                raise RuntimeError(f"scripts/lab.py exited with {proc.returncode}: {log_text(log)}")
            try:
                urllib.request.urlopen(f"{base}/api/status?token=uitesttoken", timeout=1)
                break
            except OSError:
                time.sleep(0.25)
        else:
            raise RuntimeError(f"jupyter lab did not start within 60 s: {log_text(log)}")
        yield base, "uitesttoken", log_text(log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def log_text(log: object) -> str:
    log.flush()  # type: ignore[attr-defined]
    log.seek(0)  # type: ignore[attr-defined]
    return log.read().decode(errors="replace")  # type: ignore[attr-defined]


def _get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


def test_the_printed_url_opens_chapter_00(make_lab: tuple[str, str, str]) -> None:
    base, token, output = make_lab
    url = f"{base}/lab/tree/notebooks/00_start_here.ipynb?token={token}"
    assert f"The series (chapter 00): {url}" in output
    assert _get(url) == 200
    assert _get(f"{base}/api/contents/notebooks/00_start_here.ipynb?token={token}&content=0") == 200


def test_every_chapter_link_resolves_in_lab(make_lab: tuple[str, str, str]) -> None:
    base, token, _ = make_lab
    checked, dead = 0, []
    for nb in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            if cell["cell_type"] != "markdown":
                continue
            for target in LINK.findall("".join(cell["source"])):
                if re.match(r"[a-z]+:", target) or target.startswith("#"):
                    continue
                path = target.split("#", 1)[0]
                rel = os.path.normpath(os.path.join("notebooks", urllib.parse.unquote(path)))
                assert not rel.startswith(".."), f"{nb.name}: {target} leaves the repository"
                checked += 1
                url = f"{base}/api/contents/{urllib.parse.quote(rel)}?token={token}&content=0"
                if _get(url) != 200:
                    dead.append(f"{nb.name}: {target}")
    assert checked >= 10, "the chapters link into docs/ and bench/"
    assert dead == []
