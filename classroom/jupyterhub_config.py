"""JupyterHub for a class working through the msgmodel series on one server.

Every student gets a server of their own (``jupyterhub-singleuser`` from the class image,
``classroom/requirements.txt``) whose home holds their own copy of the chapters: the
student copies of ``build/student/`` when they have been made (``make student``), else
the chapters of ``notebooks/``, plus read-only links to ``docs/`` and ``bench/`` so the
chapters' links resolve. Each server gets a private temporary directory (``TMPDIR``, mode
0700, inside the student's home) and a port of its own. Its kernels talk to it over IPC
sockets in that directory, not TCP ports: servers that start kernels at once each pick
"free" TCP ports on their own, and two can pick the same one (in ``make test-hub`` a kernel
then died with "Address already in use" and its student waited forever). So kernels, sockets
and temporary files of two students never meet. Copies are made once: a student's work
survives a restart of their server.

Settings come from the environment, so the same file serves a real course and the test
(``make test-hub``):

``MSGMODEL_HUB_STATE``        where the Hub keeps its database, cookie secret and the homes
                              (default ``/srv/msgmodel-hub``)
``MSGMODEL_HUB_PORT``         the public port of the proxy (default 8000)
``MSGMODEL_HUB_API_PORT``     the Hub's internal API port (default 8081)
``MSGMODEL_PROXY_API_PORT``   the proxy's API port (default 8001)
``MSGMODEL_HUB_TEST``         ``1``: the dummy authenticator and the simple local process
                              spawner (every student a process of the Hub's own user, homes
                              under the state directory) — for the test and a laptop demo only
``MSGMODEL_HUB_SERVICE_TOKEN``  when set, a ``class-runner`` service with this token may
                              create users, start their servers and use them (the test drives
                              the class through it)

Without ``MSGMODEL_HUB_TEST`` the Hub uses its defaults for a real server: PAM login and
``LocalProcessSpawner`` (one Unix account per student, created beforehand). For a larger
class, see the README's "A class on one server" (Zero to JupyterHub, Binder).
"""

# ruff: noqa: F821  (``get_config`` is given by JupyterHub when it loads this file)
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
STATE = Path(os.environ.get("MSGMODEL_HUB_STATE", "/srv/msgmodel-hub"))
HOMES = STATE / "home"
VENV_BIN = Path(os.environ.get("MSGMODEL_HUB_BIN", str(Path(__file__).resolve().parent.parent / "build/hub-venv/bin")))
START = "notebooks/00_start_here.ipynb"

c = get_config()  # type: ignore[name-defined]

STATE.mkdir(parents=True, exist_ok=True)
HOMES.mkdir(exist_ok=True)
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = int(os.environ.get("MSGMODEL_HUB_PORT", "8000"))
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(os.environ.get("MSGMODEL_HUB_API_PORT", "8081"))
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{int(os.environ.get('MSGMODEL_PROXY_API_PORT', '8001'))}"
proxy = Path(__file__).resolve().parent / "node_modules" / ".bin" / "configurable-http-proxy"
if proxy.exists():
    c.ConfigurableHTTPProxy.command = [str(proxy)]
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
c.JupyterHub.cleanup_servers = True

c.Spawner.default_url = f"/lab/tree/{START}"
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
if (VENV_BIN / "jupyterhub-singleuser").exists():
    c.Spawner.cmd = [str(VENV_BIN / "jupyterhub-singleuser")]


def _starting_copies() -> list[Path]:
    student = REPO / "build" / "student"
    source = student if any(student.glob("[0-9][0-9]_*.ipynb")) else REPO / "notebooks"
    return sorted(source.glob("[0-9][0-9]_*.ipynb"))


def prepare_home(spawner: Any) -> None:
    """A student's home: their own chapters (made once), links to docs/ and bench/, a private TMPDIR."""
    home = HOMES / spawner.user.name
    notebooks = home / "notebooks"
    notebooks.mkdir(parents=True, exist_ok=True)
    for chapter in _starting_copies():
        if not (notebooks / chapter.name).exists():  # never overwrite a student's work
            shutil.copy2(chapter, notebooks / chapter.name)
    for shared in ("docs", "bench"):
        link = home / shared
        if not link.exists():
            link.symlink_to(REPO / shared)
    tmp = home / ".tmp"
    tmp.mkdir(mode=0o700, exist_ok=True)
    os.chmod(tmp, 0o700)
    # The kernels' IPC sockets live in the runtime directory; ~/.local/share/jupyter/runtime would
    # make their paths longer than a Unix socket allows (107 bytes) under a deep home.
    spawner.environment = {
        **spawner.environment,
        "TMPDIR": str(tmp),
        "JUPYTER_RUNTIME_DIR": str(tmp),
        "MSGMODEL_STUDENT": spawner.user.name,
    }
    if hasattr(spawner, "home_dir_template"):
        spawner.notebook_dir = str(home)


c.Spawner.pre_spawn_hook = prepare_home
c.Spawner.args = ["--KernelManager.transport=ipc"]  # see the module docstring: no TCP port races

if os.environ.get("MSGMODEL_HUB_TEST") == "1":
    c.JupyterHub.authenticator_class = "dummy"
    c.JupyterHub.spawner_class = "simple"
    c.SimpleLocalProcessSpawner.home_dir_template = str(HOMES / "{username}")
    c.Authenticator.allow_all = True
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # CI and containers run as root
        c.Spawner.args = [*c.Spawner.args, "--allow-root"]

token = os.environ.get("MSGMODEL_HUB_SERVICE_TOKEN")
if token:
    c.JupyterHub.services = [{"name": "class-runner", "api_token": token}]
    c.JupyterHub.load_roles = [
        {
            "name": "class-runner",
            "scopes": ["admin:users", "admin:servers", "access:servers", "list:users", "read:users"],
            "services": ["class-runner"],
        }
    ]
