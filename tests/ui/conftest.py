"""Browser tests: JupyterLab on 127.0.0.1, driven by Playwright in Debian's headless Chromium.

Run with ``make test-browser`` (``pytest tests/ui --run-ui -m ui``). Without ``--run-ui`` the
files here are not even collected, so ``pytest tests`` (``make unit``) stays browser-free.

Nothing of the user's is touched: JupyterLab runs with temporary root, settings, workspace,
config, data, runtime and IPython directories, token-less on a random free port bound to
127.0.0.1, and the notebooks are copies. Chromium is ``/usr/bin/chromium`` (or ``$CHROMIUM``);
no browser is ever downloaded.

The temporary root mirrors the repository: ``notebooks/`` holds copies of the chapters and of
the Chinese edition ``notebooks/zh/`` (and links to everything else in ``notebooks/``),
``selfcheck/`` copies of ``tests/ui/notebooks``, and every other top-level entry of the
repository is a symlink, so a chapter that reads ``../msgmodel/...`` finds it. ``msgmodel``
itself is importable because it is installed editable in the venv whose Python runs the server
(and so the kernels).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "build" / "screenshots"
import chromium  # noqa: E402  (scripts/chromium.py: the one way this project runs Chromium)

LAB_SETTINGS = {
    # without it JupyterLab 4.6 asks "Select Kernel" in a dialog and run-all hangs
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": (
        '{"autoStartDefaultKernel": true, "windowingMode": "none"}'
    ),
    # without it a "get notified about official Jupyter news?" toast covers the page
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": (
        '{"fetchNews": "false", "checkForUpdates": false}'
    ),
}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-ui", action="store_true", default=False, help="collect the browser tests in tests/ui")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if not config.getoption("run_ui", default=False):
        return True
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _mirror_repo(root: Path) -> None:
    """Lay out ``root`` like the repository, with copies of every notebook."""
    for entry in ROOT.iterdir():
        if entry.name.startswith(".") or entry.name in ("notebooks", "build"):
            continue
        (root / entry.name).symlink_to(entry)
    nbdir = root / "notebooks"
    nbdir.mkdir()
    for entry in (ROOT / "notebooks").iterdir():
        if entry.name.startswith("."):
            continue
        if entry.suffix == ".ipynb":
            shutil.copy2(entry, nbdir / entry.name)
        elif entry.name == "zh":  # the Chinese edition: copies too, a run in the lab must not save over them
            shutil.copytree(entry, nbdir / entry.name, ignore=shutil.ignore_patterns(".*"))
        else:
            (nbdir / entry.name).symlink_to(entry)
    shutil.copytree(Path(__file__).parent / "notebooks", root / "selfcheck")


_LAB_ROOTS: dict[str, Path] = {}  # the root directory of the lab server at each URL


@pytest.fixture(scope="session")
def lab_url() -> Iterator[str]:
    tmp = Path(tempfile.mkdtemp(prefix="msgmodel-ui-"))
    root, settings = tmp / "root", tmp / "settings"
    root.mkdir()
    _mirror_repo(root)
    for rel, body in LAB_SETTINGS.items():
        (settings / rel).parent.mkdir(parents=True, exist_ok=True)
        (settings / rel).write_text(body)
    env = dict(os.environ)
    for var, sub in (
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_DATA_DIR", "data"),
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("IPYTHONDIR", "ipython"),
    ):
        (tmp / sub).mkdir()
        env[var] = str(tmp / sub)
    env["PYTHONHASHSEED"] = "0"
    port = _free_port()
    log = (tmp / "lab.log").open("wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyter",
            "lab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            f"--ServerApp.root_dir={root}",
            "--IdentityProvider.token=",
            "--ServerApp.password=",
            "--ServerApp.disable_check_xsrf=True",
            "--ServerApp.allow_root=True",
            "--LabApp.expose_app_in_browser=True",
            f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
            f"--LabApp.user_settings_dir={settings}",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=root,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            if proc.poll() is not None:
                raise RuntimeError(f"jupyter lab exited with {proc.returncode}; see {tmp / 'lab.log'}")
            try:
                urllib.request.urlopen(base + "/api/status", timeout=1)
                break
            except OSError:
                time.sleep(0.25)
        else:
            raise RuntimeError(f"jupyter lab did not start within 60 s; see {tmp / 'lab.log'}")
        _LAB_ROOTS[base] = root
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:  # a SIGTERM shutdown can hang with kernels alive
            proc.kill()
            proc.wait()
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="session")
def lab_root(lab_url: str) -> Path:
    """The lab server's root directory (a mirror of the repository without ``build/``): a test may write there."""
    return _LAB_ROOTS[lab_url]


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not chromium.is_installed():
        pytest.fail(chromium.MISSING)
    with chromium.browser() as b:
        yield b


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    ctx.close()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
