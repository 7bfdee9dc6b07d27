"""JupyterHub for a class working through the msgmodel series on one server.

Two modes, one layout of a student's home (``prepare_home.py``): their own blank copies of the
chapters in ``~/msgmodel/work/``, links to the class image's ``share/`` (the student docs, the
benchmarks, the chapters with their outputs), and a private ``TMPDIR`` (``~/.tmp``, mode 0700)
that is also the kernels' runtime directory. Kernels talk to their server over IPC sockets in
that directory, not TCP ports: servers that start kernels at once each pick "free" TCP ports on
their own, and two can pick the same one (in ``make test-hub`` a kernel then died with "Address
already in use" and its student waited forever).

**Real mode** (the default; ``classroom/install.py`` installs this file as
``/opt/msgmodel-class/hub/jupyterhub_config.py`` beside ``class.json``, and the Hub runs as
root): PAM login with each student's Unix password, ``LocalProcessSpawner`` (every student's
server a process of their own uid, in their own home), and the roster file
(``roster.py``) as ``allowed_users`` with the teachers as admins. Before a spawn the home is
prepared by ``prepare_home.py`` running **as the student**, so nothing a student plants in their
home makes root touch anything. ``reveal`` is off for students (``MSGMODEL_REVEAL=off``) unless
the roster says ``reveal = true`` and the teacher has published the key. The state directory
(database, cookie secret) is mode 0700. Why this spawner: on one server with real accounts, the
Unix uid and a home of mode 0700 are the isolation, and each server is a plain process (no
container runtime to install); ``SystemdSpawner`` would add per-student memory and CPU limits
where systemd runs (it is not in CI's container), and Zero to JupyterHub with
``KubeSpawner`` is the answer for a class that outgrows one server.

**Test mode** (``MSGMODEL_HUB_TEST=1``): no authentication and no isolation, for ``make
test-hub`` and a laptop demo only. The dummy authenticator lets in any name with any password,
and every student's server and kernels run as the Hub's own Unix user, so students can read and
change each other's files; homes live under the state directory. It refuses to start as root
unless ``MSGMODEL_HUB_TEST_ALLOW_ROOT=1`` says so (a throw-away CI machine).

Settings come from ``class.json`` next to this file (real mode) and from the environment:

``MSGMODEL_HUB_STATE``        the Hub's database, cookie secret (and, in test mode, the homes)
``MSGMODEL_HUB_PORT``         the public port of the proxy (default 8000)
``MSGMODEL_HUB_API_PORT``     the Hub's internal API port (default 8081)
``MSGMODEL_PROXY_API_PORT``   the proxy's API port (default 8001)
``MSGMODEL_HUB_SSL_CERT``, ``MSGMODEL_HUB_SSL_KEY``  real mode: serve HTTPS with this certificate
``MSGMODEL_HUB_IP``           real mode: the address the proxy listens on (default all, ``0.0.0.0``)
``MSGMODEL_HUB_SERVICE_TOKEN``  when set, a ``class-runner`` service with this token may list
                              users, start their servers and use them (the tests drive the
                              class through it; a real class leaves it unset)
``MSGMODEL_CLASS_SHARE``      test mode: the class image's ``share/`` (``make class-share``)
``MSGMODEL_HUB_BIN``          test mode: the venv whose ``jupyterhub-singleuser`` students run
"""

# ruff: noqa: F821  (``get_config`` is given by JupyterHub when it loads this file)
from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import prepare_home as prepare_home_py  # noqa: E402
from roster import read_roster  # noqa: E402

TEST = os.environ.get("MSGMODEL_HUB_TEST") == "1"
START = "work/00_start_here.ipynb"

c = get_config()  # type: ignore[name-defined]

if TEST:
    if os.geteuid() == 0 and os.environ.get("MSGMODEL_HUB_TEST_ALLOW_ROOT") != "1":
        raise SystemExit(
            "test mode has no authentication and no isolation: every student's code would run as root. "
            "Run it as an ordinary user, or set MSGMODEL_HUB_TEST_ALLOW_ROOT=1 on a throw-away machine."
        )
    REPO = HERE.parent
    STATE = Path(os.environ.get("MSGMODEL_HUB_STATE", str(REPO / "build" / "hub-state")))
    SHARE = Path(os.environ.get("MSGMODEL_CLASS_SHARE", str(REPO / "build" / "class-share")))
    VENV_BIN = Path(os.environ.get("MSGMODEL_HUB_BIN", str(REPO / "build" / "hub-venv" / "bin")))
    PROXY = REPO / "classroom" / "node_modules" / ".bin" / "configurable-http-proxy"
    SETTINGS: dict[str, Any] = {}
else:
    try:
        SETTINGS = json.loads((HERE / "class.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SystemExit(
            f"no {HERE / 'class.json'}: install the class first (classroom/install.py), or set MSGMODEL_HUB_TEST=1 "
            "for the test mode (no authentication, no isolation)"
        ) from None
    STATE = Path(os.environ.get("MSGMODEL_HUB_STATE", SETTINGS["state"]))
    SHARE = Path(SETTINGS["share"])
    VENV_BIN = Path(SETTINGS["venv"]) / "bin"
    PROXY = Path(SETTINGS["proxy"])

STATE.mkdir(mode=0o700, parents=True, exist_ok=True)
os.chmod(STATE, 0o700)  # the database and the cookie secret: the Hub's alone
HOMES = STATE / "home"  # test mode only

c.JupyterHub.ip = "127.0.0.1" if TEST else os.environ.get("MSGMODEL_HUB_IP", "0.0.0.0")
c.JupyterHub.port = int(os.environ.get("MSGMODEL_HUB_PORT", "8000"))
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(os.environ.get("MSGMODEL_HUB_API_PORT", "8081"))
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{int(os.environ.get('MSGMODEL_PROXY_API_PORT', '8001'))}"
if PROXY.exists():
    c.ConfigurableHTTPProxy.command = [str(PROXY)]
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
c.JupyterHub.cleanup_servers = True
if os.environ.get("MSGMODEL_HUB_SSL_CERT"):  # passwords cross the network: HTTPS (or a TLS proxy in front)
    c.JupyterHub.ssl_cert = os.environ["MSGMODEL_HUB_SSL_CERT"]
    c.JupyterHub.ssl_key = os.environ["MSGMODEL_HUB_SSL_KEY"]

c.Spawner.default_url = f"/lab/tree/{START}"
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
c.Spawner.cmd = [str(VENV_BIN / "jupyterhub-singleuser")]
c.Spawner.args = ["--KernelManager.transport=ipc"]  # see the module docstring: no TCP port races


def _home_of(spawner: Any) -> tuple[Path, dict[str, Any]]:
    """The student's home, and how to run a process as them (``subprocess`` keywords)."""
    if TEST:  # every student is the Hub's own user: no one to switch to
        home = HOMES / spawner.user.name
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
        return home, {"umask": 0o077}
    return prepare_home_py.as_user(spawner.user.name)


async def prepare_home(spawner: Any) -> None:
    """Prepare the home as the student (``prepare_home.py``), then point the server at it."""
    home, as_student = _home_of(spawner)
    proc = await asyncio.create_subprocess_exec(
        *prepare_home_py.command(home, SHARE),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd="/",
        env=prepare_home_py.child_environment(home),
        **as_student,
    )
    out, err = await proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"preparing {home} for {spawner.user.name} failed: {err.decode(errors='replace')[-500:]}")
    tmp = out.decode().strip().splitlines()[-1]
    # The kernels' IPC sockets live in the runtime directory; ~/.local/share/jupyter/runtime would
    # make their paths longer than a Unix socket allows (107 bytes) under a deep home.
    spawner.environment = {
        **spawner.environment,
        "TMPDIR": tmp,
        "JUPYTER_RUNTIME_DIR": tmp,
        "MSGMODEL_STUDENT": spawner.user.name,
        **_reveal_environment(),
    }
    spawner.notebook_dir = str(home / "msgmodel")


def _reveal_environment() -> dict[str, str]:
    """``reveal`` for students: off, unless the roster turns it on and the key is published in the image."""
    if TEST:
        return {}
    if not ROSTER.reveal:
        return {"MSGMODEL_REVEAL": "off"}
    return {"MSGMODEL_KEY": str(KEY)}


c.Spawner.pre_spawn_hook = prepare_home

if TEST:
    c.JupyterHub.authenticator_class = "dummy"
    c.JupyterHub.spawner_class = "simple"
    c.SimpleLocalProcessSpawner.home_dir_template = str(HOMES / "{username}")
    c.Authenticator.allow_all = True
    if os.geteuid() == 0:  # allowed above only with MSGMODEL_HUB_TEST_ALLOW_ROOT=1
        c.Spawner.args = [*c.Spawner.args, "--allow-root"]
else:
    ROSTER = read_roster(Path(SETTINGS["roster"]))
    KEY = Path(SETTINGS["share"]).parent / "key" / "teacher-guide.md"
    if ROSTER.reveal and not KEY.is_file():
        raise SystemExit(
            f"the roster turns reveal on, but the key is not published: {KEY} is missing "
            "(classroom/install.py publish-key, see the README)"
        )
    c.JupyterHub.authenticator_class = "pam"
    c.PAMAuthenticator.open_sessions = False  # no login sessions (utmp, pam_systemd) for a notebook server
    c.Authenticator.allowed_users = set(ROSTER.everyone)
    c.Authenticator.admin_users = set(ROSTER.teachers)
    c.JupyterHub.spawner_class = "localprocess"

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
