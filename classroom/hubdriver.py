"""What the class tests share: start and stop a Hub, reach it as a service or as a student's browser, run cells.

Used by ``test_hub.py`` (test mode) and ``test_hub_real.py`` (real mode), both run with the hub
venv's Python (``build/hub-venv``: tornado, httpx, psutil, nbformat, nbgrader).

* ``Service``: the Hub's REST API and the students' servers with a service token (the
  ``class-runner`` service of ``jupyterhub_config.py``);
* ``Browser``: one student's browser: logs in through the Hub's login form (the ``_xsrf`` token
  of the form, the password posted), is let into their server by the Hub's OAuth redirects,
  and calls the server's API with its cookies and the server's ``_xsrf`` token, as JupyterLab does;
* ``run_cells``: code cells run, in order, in a kernel over its websocket (reconnecting as
  JupyterLab does when the socket drops), with each cell's text output.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil
from tornado.httpclient import HTTPRequest
from tornado.websocket import WebSocketClientConnection, websocket_connect

OK = (200, 201, 202, 204)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class HubError(RuntimeError):
    """A request the class needed was refused or failed (the message names it and the answer)."""


class Client:
    """Something that talks to the Hub and the students' servers: ``call`` and websocket ``headers``."""

    base: str
    http: httpx.AsyncClient

    def headers(self, path: str) -> dict[str, str]:
        raise NotImplementedError

    async def call(
        self,
        method: str,
        path: str,
        body: object = None,
        *,
        ok: tuple[int, ...] = OK,
        form: dict[str, str] | None = None,
    ) -> Any:
        """``method path`` with a JSON ``body`` (or a ``form``); the answer, decoded; ``HubError`` unless ``ok``."""
        try:
            resp = await self.http.request(
                method,
                path,
                headers=self.headers(path),
                json=body if form is None and (body is not None or method not in ("GET", "DELETE")) else None,
                data=form,
            )
        except httpx.HTTPError as e:
            raise HubError(f"{method} {path}: {type(e).__name__}: {e}") from None
        if resp.status_code not in ok:
            raise HubError(f"{method} {path}: HTTP {resp.status_code}: {resp.text[:300]!r}")
        if not resp.content:
            return None
        try:  # JSON whatever the content type says (nbgrader's handlers answer JSON as text/html)
            return resp.json()
        except ValueError:
            return resp.text

    async def close(self) -> None:
        await self.http.aclose()


class Service(Client):
    """The ``class-runner`` service: the Hub's REST API and every student's server, with its token."""

    def __init__(self, base: str, token: str) -> None:
        self.base = base
        self.token = token
        self.http = httpx.AsyncClient(base_url=base, timeout=300, follow_redirects=False)

    def headers(self, path: str) -> dict[str, str]:
        return {"Authorization": f"token {self.token}"}


class Browser(Client):
    """One student's browser: cookies from the Hub's login form and its OAuth redirects, the server's _xsrf.

    httpx's cookie jar keeps every cookie with its path, as a browser does (the Hub's ``_xsrf`` is
    for ``/hub/``, the server's for ``/user/<name>/``); ``headers`` gives a path's cookies and its
    ``_xsrf`` token as ``X-XSRFToken``, which the server asks of a request authenticated by cookie.
    """

    def __init__(self, base: str, user: str, password: str) -> None:
        self.base = base
        self.user = user
        self.password = password
        self.http = httpx.AsyncClient(base_url=base, timeout=300, follow_redirects=False)

    def _cookies_for(self, path: str) -> dict[str, str]:
        found: dict[str, tuple[int, str]] = {}
        for c in self.http.cookies.jar:
            if path.startswith(c.path) and (c.name not in found or len(c.path) > found[c.name][0]):
                found[c.name] = (len(c.path), c.value or "")  # the most specific path wins, as in a browser
        return {name: value for name, (_, value) in found.items()}

    def headers(self, path: str) -> dict[str, str]:
        cookies = self._cookies_for(path.split("?")[0])
        out = {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())}
        if "_xsrf" in cookies:
            out["X-XSRFToken"] = cookies["_xsrf"]
        return out

    async def login(self) -> float:
        """Log in through the Hub's login form; the seconds it took. ``HubError`` if the Hub refuses."""
        t = time.monotonic()
        page = await self.http.get("/hub/login")
        m = re.search(r'name="_xsrf"\s+value="([^"]+)"', page.text)
        if page.status_code != 200 or not m:
            raise HubError(f"{self.user}: no login form with an _xsrf token (HTTP {page.status_code})")
        form = {"username": self.user, "password": self.password, "_xsrf": m[1]}
        resp = await self.http.post("/hub/login?next=", data=form)
        if resp.status_code != 302 or "/hub/login" in resp.headers.get("location", "/hub/login"):
            raise HubError(f"{self.user}: login refused (HTTP {resp.status_code})")
        return time.monotonic() - t

    async def follow(self, path: str, limit: int = 12) -> httpx.Response:
        """GET ``path`` and follow the redirects (the Hub's OAuth dance into the server), keeping every cookie."""
        for _ in range(limit):
            resp = await self.http.get(path)
            if resp.status_code not in (301, 302, 303, 307):
                return resp
            location = resp.headers["location"]
            path = location if location.startswith("/") else httpx.URL(location).raw_path.decode()
        raise HubError(f"{self.user}: more than {limit} redirects from {path}")

    async def spawn(self) -> None:
        """What the Hub's home page does after login: ask for the server (it starts in the background)."""
        resp = await self.http.get("/hub/spawn")
        if resp.status_code not in (200, 302):
            raise HubError(f"{self.user}: /hub/spawn answered HTTP {resp.status_code}")

    async def enter_server(self) -> None:
        """Open the student's Lab: the OAuth redirects give the server's cookie, the page its _xsrf cookie."""
        resp = await self.follow(f"/user/{self.user}/lab")
        if resp.status_code != 200 or "_xsrf" not in self._cookies_for(f"/user/{self.user}/api"):
            raise HubError(f"{self.user}: the Lab page answered HTTP {resp.status_code} without an _xsrf cookie")


async def wait_ready(service: Service, user: str, deadline: float) -> None:
    while time.monotonic() < deadline:
        info = await service.call("GET", f"/hub/api/users/{user}")
        server = info.get("servers", {}).get("")
        if server is not None and server.get("ready"):
            return
        if server is None and info.get("pending") is None:
            raise HubError(f"{user}: the server failed to start (see the Hub's log)")
        await asyncio.sleep(0.5)
    raise HubError(f"{user}: server not ready in time")


def _message(code: str, session: str) -> tuple[str, str]:
    msg_id = uuid.uuid4().hex
    msg = {
        "header": {
            "msg_id": msg_id,
            "msg_type": "execute_request",
            "session": session,
            "username": "class-runner",
            "version": "5.3",
            "date": "",
        },
        "parent_header": {},
        "metadata": {},
        "content": {
            "code": code,
            "silent": False,
            "store_history": True,
            "user_expressions": {},
            "allow_stdin": False,
            "stop_on_error": True,
        },
        "channel": "shell",
        "buffers": [],
    }
    return msg_id, json.dumps(msg)


MAX_RECONNECTS = 2
"""Websocket drops a user may see and still pass (each reconnects and is reported; the kernel is kept)."""


@dataclass
class CellRun:
    """What ``run_cells`` saw: each cell's text output, the first unexpected error, the websocket drops."""

    outputs: list[str] = field(default_factory=list)
    problem: str | None = None
    drops: list[str] = field(default_factory=list)


async def start_kernel(client: Client, user: str, path: str) -> tuple[str, str]:
    """A notebook session on ``path`` in ``user``'s server: (session id, kernel id)."""
    sess = await client.call(
        "POST", f"/user/{user}/api/sessions", {"path": path, "type": "notebook", "kernel": {"name": "python3"}}
    )
    return sess["id"], sess["kernel"]["id"]


async def stop_kernel(client: Client, user: str, session: str) -> None:
    await client.call("DELETE", f"/user/{user}/api/sessions/{session}", ok=(204, 404))


async def run_cells(
    client: Client, user: str, kernel: str, cells: Sequence[tuple[str, bool]], *, stop_on_error: bool = True
) -> CellRun:
    """Run ``cells`` (code, may it raise?) in order over the kernel's websocket.

    A dropped websocket is reconnected with the same session, as JupyterLab reconnects, and noted;
    more than ``MAX_RECONNECTS`` drops fail the run. The first error of a cell that may not raise
    is ``problem`` (and ends the run when ``stop_on_error``).
    """
    run = CellRun()
    session = uuid.uuid4().hex
    # The session id in the URL, as JupyterLab sends it: when a websocket drops, the server buffers
    # the kernel's messages for that session and replays them to the next connection that names it.
    path = f"/user/{user}/api/kernels/{kernel}/channels"
    url = client.base.replace("http", "ws", 1) + f"{path}?session_id={session}"
    request = HTTPRequest(url, headers=client.headers(path), request_timeout=120)
    conn: WebSocketClientConnection = await websocket_connect(request)
    try:
        for n, (code, may_raise) in enumerate(cells):
            msg_id, raw = _message(code, session)
            await conn.write_message(raw)
            text: list[str] = []
            reply: dict[str, Any] | None = None
            idle = False  # the outputs (iopub) may come after the reply (shell): wait for both
            while reply is None or not idle:
                got = await asyncio.wait_for(conn.read_message(), timeout=180)
                if got is None:  # reconnect as JupyterLab does; the reply is replayed, the kernel kept
                    run.drops.append(f"cell {n} ({conn.close_code} {conn.close_reason or 'no reason'})")
                    if len(run.drops) > MAX_RECONNECTS:
                        run.problem = f"the kernel's websocket closed {len(run.drops)} times: {', '.join(run.drops)}"
                        return run
                    conn = await websocket_connect(request)
                    continue
                msg = json.loads(got)
                if msg.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                kind, content = msg["msg_type"], msg["content"]
                if kind == "stream":
                    text.append(content["text"])
                elif kind in ("execute_result", "display_data"):
                    text.append(content["data"].get("text/plain", "") + "\n")
                elif kind == "error":
                    text.append(f"{content['ename']}: {content['evalue']}\n")
                elif kind == "status" and content.get("execution_state") == "idle":
                    idle = True
                elif kind == "execute_reply":
                    reply = content
            run.outputs.append("".join(text))
            if reply["status"] != "ok" and not may_raise and run.problem is None:
                run.problem = f"cell {n}: {reply.get('ename')}: {reply.get('evalue')}"
                if stop_on_error:
                    return run
    finally:
        conn.close()
    return run


def code_cells(nb: dict[str, Any]) -> list[tuple[str, bool]]:
    """A notebook's code cells as ``run_cells`` takes them: (source, tagged raises-exception?)."""
    out = []
    for cell in nb["cells"]:
        code = "".join(cell["source"])
        if cell["cell_type"] == "code" and code.strip():
            out.append((code, "raises-exception" in cell.get("metadata", {}).get("tags", [])))
    return out


def memory_by_user(users: Sequence[str]) -> dict[str, float]:
    """RSS in MB of every process (server, kernel) whose environment names the user."""
    totals = dict.fromkeys(users, 0.0)
    for proc in psutil.process_iter(["pid"]):
        try:
            user = proc.environ().get("JUPYTERHUB_USER")
            if user in totals:
                totals[user] += proc.memory_info().rss / 2**20
        except (psutil.Error, OSError):
            continue
    return totals


def processes_of_user(user: str) -> list[psutil.Process]:
    """The processes (server, kernels) whose environment names the JupyterHub user."""
    found = []
    for proc in psutil.process_iter(["pid"]):
        try:
            if proc.environ().get("JUPYTERHUB_USER") == user:
                found.append(proc)
        except (psutil.Error, OSError):
            continue
    return found


def hub_rss_mb(pid: int) -> float:
    """RSS in MB of the Hub and its children that serve no student (the proxy): the class's fixed cost."""
    total = 0
    try:
        procs = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return 0.0
    for proc in procs:
        try:
            if "JUPYTERHUB_USER" not in proc.environ():
                total += proc.memory_info().rss
        except psutil.Error:
            continue
    return total / 2**20


@dataclass
class HubProcess:
    """A running ``jupyterhub`` (its own process group) and its log."""

    proc: subprocess.Popen[bytes]
    log_path: Path

    def log_tail(self, n: int = 3000) -> str:
        return self.log_path.read_text(errors="replace")[-n:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def start_hub(cmd: list[str], env: dict[str, str], cwd: Path, log_path: Path) -> HubProcess:
    log = log_path.open("wb")
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    log.close()
    return HubProcess(proc, log_path)


async def wait_for_api(service: Service, hub: HubProcess, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if hub.proc.poll() is not None:
            raise HubError(f"jupyterhub exited with {hub.proc.returncode}:\n{hub.log_tail()}")
        try:
            await service.call("GET", "/hub/api/")
            return
        except HubError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.5)
