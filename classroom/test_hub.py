"""A class on one JupyterHub: many students run chapter 01 at once, each in their own server and kernel.

    build/hub-venv/bin/python classroom/test_hub.py [--users 20] [--chapter 01]

(``make test-hub`` builds ``build/hub-venv`` from ``classroom/requirements.txt`` and the
proxy from ``classroom/package.json`` first.) It starts JupyterHub with
``classroom/jupyterhub_config.py`` in test mode (dummy authenticator, simple local process
spawner, a throw-away state directory, free loopback ports), then through the Hub's REST API
and as a ``class-runner`` service: creates the users, starts every server, and has every user
run the chapter's code cells, in order, in a kernel of their own reached through the proxy
(``/user/<name>/api/...`` and the kernel's websocket), all users at once. A cell tagged
``raises-exception`` may raise; any other error fails that user.

Prints the time to start the servers, the wall time of the concurrent run, the memory of each
user's processes (server and kernel, RSS), and ``N passed, M failed``; writes the same to
``build/hub-report.json``. Exits 1 when a user failed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import psutil
from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest
from tornado.websocket import websocket_connect

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Hub:
    def __init__(self, base: str, token: str, homes: Path) -> None:
        self.base = base
        self.token = token
        self.homes = homes
        self.http = AsyncHTTPClient(max_clients=64)

    async def call(
        self, method: str, path: str, body: object = None, *, ok: tuple[int, ...] = (200, 201, 202, 204)
    ) -> Any:
        req = HTTPRequest(
            self.base + path,
            method=method,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
            body=None if body is None and method in ("GET", "DELETE") else json.dumps(body or {}),
            request_timeout=300,
            follow_redirects=False,
        )
        try:
            resp = await self.http.fetch(req, raise_error=False)
        except (OSError, HTTPClientError) as e:
            raise RuntimeError(f"{method} {path}: {e}") from None
        if resp.code not in ok:
            raise RuntimeError(f"{method} {path}: HTTP {resp.code}: {resp.body[:300]!r}")
        return json.loads(resp.body) if resp.body else None


async def wait_ready(hub: Hub, user: str, deadline: float) -> None:
    while time.monotonic() < deadline:
        info = await hub.call("GET", f"/hub/api/users/{user}")
        server = info.get("servers", {}).get("")
        if server is None:
            raise RuntimeError(f"{user}: the server failed to start (see the Hub's log)")
        if server.get("ready"):
            return
        await asyncio.sleep(0.5)
    raise RuntimeError(f"{user}: server not ready in time")


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


async def run_chapter(hub: Hub, user: str, chapter: Path, drops: list[str]) -> str | None:
    """Run the chapter's code cells in a new kernel of ``user``'s; ``None`` when all went as expected."""
    rel = f"notebooks/{chapter.name}"
    sess = await hub.call(
        "POST", f"/user/{user}/api/sessions", {"path": rel, "type": "notebook", "kernel": {"name": "python3"}}
    )
    kernel = sess["kernel"]["id"]
    try:
        # Kernels must use IPC sockets in the student's private directory: TCP ports picked by 20
        # servers at once collided ("Address already in use"), and that student's kernel never answered.
        info = hub.homes / user / ".tmp" / f"kernel-{kernel}.json"
        transport = json.loads(info.read_text(encoding="utf-8")).get("transport") if info.exists() else None
        if transport != "ipc":
            return f"the kernel's connection file ({info}) says transport {transport!r}, not 'ipc'"
        return await _run_cells(hub, user, kernel, chapter, drops)
    finally:
        await hub.call("DELETE", f"/user/{user}/api/sessions/{sess['id']}", ok=(204, 404))


async def _run_cells(hub: Hub, user: str, kernel: str, chapter: Path, drops: list[str]) -> str | None:
    """The cells, in order, over the kernel's websocket; the first unexpected error, else ``None``.

    A dropped websocket is reconnected with the same session, as JupyterLab reconnects, and noted in
    ``drops``; more than ``MAX_RECONNECTS`` drops fail the user."""
    session = uuid.uuid4().hex
    # The session id in the URL, as JupyterLab sends it: when a websocket drops, the server buffers
    # the kernel's messages for that session and replays them to the next connection that names it.
    ws_url = hub.base.replace("http", "ws", 1) + f"/user/{user}/api/kernels/{kernel}/channels?session_id={session}"
    request = HTTPRequest(ws_url, headers={"Authorization": f"token {hub.token}"}, request_timeout=120)
    conn = await websocket_connect(request)
    try:
        cells = json.loads(chapter.read_text(encoding="utf-8"))["cells"]
        for n, cell in enumerate(cells):
            code = "".join(cell["source"])
            if cell["cell_type"] != "code" or not code.strip():
                continue
            may_raise = "raises-exception" in cell.get("metadata", {}).get("tags", [])
            msg_id, raw = _message(code, session)
            await conn.write_message(raw)
            while True:
                text = await asyncio.wait_for(conn.read_message(), timeout=180)
                if text is None:  # reconnect as JupyterLab does; the reply is replayed, the kernel kept
                    drops.append(f"cell {n} ({conn.close_code} {conn.close_reason or 'no reason'})")
                    if len(drops) > MAX_RECONNECTS:
                        return f"the kernel's websocket closed {len(drops)} times: {', '.join(drops)}"
                    conn = await websocket_connect(request)
                    continue
                reply = json.loads(text)
                if reply.get("parent_header", {}).get("msg_id") != msg_id or reply["msg_type"] != "execute_reply":
                    continue
                status = reply["content"]["status"]
                if status != "ok" and not may_raise:
                    c = reply["content"]
                    return f"cell {n}: {c.get('ename')}: {c.get('evalue')}"
                break
    finally:
        conn.close()
    return None


def memory_by_user(users: list[str]) -> dict[str, float]:
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


async def drive(hub: Hub, users: list[str], chapter: Path, report: dict[str, Any]) -> int:
    await hub.call("POST", "/hub/api/users", {"usernames": users})
    start = time.monotonic()
    await asyncio.gather(*(hub.call("POST", f"/hub/api/users/{u}/server", {}) for u in users))
    await asyncio.gather(*(wait_ready(hub, u, start + 600) for u in users))
    report["spawn_seconds"] = round(time.monotonic() - start, 1)
    print(f"{len(users)} servers ready in {report['spawn_seconds']} s", flush=True)

    async def one(u: str) -> tuple[str, str | None, float]:
        t = time.monotonic()
        try:
            problem = await run_chapter(hub, u, chapter, drops[u])
        except Exception as e:  # a user's failure is reported, never the whole run's
            problem = f"{type(e).__name__}: {e}"
        return u, problem, time.monotonic() - t

    drops: dict[str, list[str]] = {u: [] for u in users}

    # Sample memory while the kernels are alive: once every user's kernel exists, mid-run.
    start = time.monotonic()
    run = asyncio.gather(*(one(u) for u in users))
    peak = dict.fromkeys(users, 0.0)
    while not run.done():
        await asyncio.sleep(2)
        for u, mb in (await asyncio.to_thread(memory_by_user, users)).items():
            peak[u] = max(peak[u], mb)
    results = await run
    report["run_seconds"] = round(time.monotonic() - start, 1)
    report["users"] = {
        u: {
            "ok": problem is None,
            "problem": problem,
            "seconds": round(s, 1),
            "peak_rss_mb": round(peak[u], 1),
            "websocket_drops": drops[u],
        }
        for u, problem, s in results
    }
    failed = [u for u, problem, _ in results if problem is not None]
    for u, problem, s in results:
        again = f"; reconnected after a websocket drop at {', '.join(drops[u])}" if drops[u] and problem is None else ""
        print(f"{u}: {'ok' if problem is None else 'FAILED ' + problem} ({s:.1f} s, peak {peak[u]:.0f} MB{again})")
    mbs = sorted(peak.values())
    report["peak_rss_mb_per_user"] = {"median": round(mbs[len(mbs) // 2], 1), "max": round(mbs[-1], 1)}
    print(
        f"wall time of the concurrent run: {report['run_seconds']} s; memory per user (server + kernel, peak RSS): "
        f"median {report['peak_rss_mb_per_user']['median']} MB, max {report['peak_rss_mb_per_user']['max']} MB"
    )
    report["websocket_drops"] = sum(len(d) for d in drops.values())
    print(f"{len(users) - len(failed)} passed, {len(failed)} failed; websocket drops: {report['websocket_drops']}")
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--chapter", default="01")
    args = parser.parse_args()
    chapters = sorted((REPO / "notebooks").glob(f"{args.chapter}_*.ipynb"))
    if len(chapters) != 1:
        print(f"no single chapter {args.chapter!r} in notebooks/", file=sys.stderr)
        return 2
    state = Path(tempfile.mkdtemp(prefix="msgmodel-hub-"))
    token = secrets.token_hex(32)
    port = free_port()
    env = dict(
        os.environ,
        MSGMODEL_HUB_TEST="1",
        MSGMODEL_HUB_STATE=str(state),
        MSGMODEL_HUB_PORT=str(port),
        MSGMODEL_HUB_API_PORT=str(free_port()),
        MSGMODEL_PROXY_API_PORT=str(free_port()),
        MSGMODEL_HUB_SERVICE_TOKEN=token,
        MSGMODEL_HUB_BIN=str(Path(sys.executable).parent),
        PYTHONHASHSEED="0",
    )
    log = (state / "hub.log").open("wb")
    hub_proc = subprocess.Popen(
        [str(Path(sys.executable).with_name("jupyterhub")), "-f", str(HERE / "jupyterhub_config.py")],
        cwd=state,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    report: dict[str, Any] = {"users_asked": args.users, "chapter": chapters[0].name}
    try:
        hub = Hub(base, token, state / "home")
        loop = asyncio.new_event_loop()
        deadline = time.monotonic() + 120
        while True:
            if hub_proc.poll() is not None:
                print(f"jupyterhub exited with {hub_proc.returncode}; log: {state / 'hub.log'}", file=sys.stderr)
                print((state / "hub.log").read_text(errors="replace")[-3000:], file=sys.stderr)
                return 1
            try:
                loop.run_until_complete(hub.call("GET", "/hub/api/"))
                break
            except RuntimeError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        users = [f"student{i:02d}" for i in range(1, args.users + 1)]
        code = loop.run_until_complete(drive(hub, users, chapters[0], report))
        homes = sorted(p.name for p in (state / "home").iterdir())
        report["separate_homes"] = homes == users
        tmpdirs = [state / "home" / u / ".tmp" for u in users]
        report["private_tmpdirs"] = all(t.is_dir() and (t.stat().st_mode & 0o777) == 0o700 for t in tmpdirs)
        isolated = report["separate_homes"] and report["private_tmpdirs"]
        print(f"every user has their own home and a private TMPDIR: {isolated}")
        if not (report["separate_homes"] and report["private_tmpdirs"]):
            code = 1
        return code
    finally:
        os.killpg(hub_proc.pid, signal.SIGTERM)
        try:
            hub_proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(hub_proc.pid, signal.SIGKILL)
            hub_proc.wait()
        log.close()
        shutil.copy(state / "hub.log", REPO / "build" / "hub.log")  # kept for a failure's post-mortem
        out = REPO / "build" / "hub-report.json"
        out.parent.mkdir(exist_ok=True)
        out.write_text(json.dumps(report, indent=2) + "\n")
        if os.environ.get("MSGMODEL_HUB_KEEP") != "1":
            shutil.rmtree(state, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
