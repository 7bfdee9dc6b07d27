"""The Hub's test mode: many students run chapter 01 at once, each in their own server and kernel.

    build/hub-venv/bin/python classroom/test_hub.py [--users 4] [--chapter 01] [--allow-root]

Test mode is for this test and a laptop demo, and it has **no authentication and no
isolation**: the dummy authenticator lets in any name, and every student's server and kernels
run as the Hub's own Unix user, so they can read and change each other's files. What it shows is
the rest of the machinery: the Hub, the proxy, a server per student prepared by
``prepare_home.py`` from the class image's ``share/`` (``make class-share``), IPC kernels in a
TMPDIR per student, and the chapter running in all of them at once. A real class (PAM logins,
a Unix account per student, isolation proven by attack, grading with nbgrader) is
``test_hub_real.py``, ``make test-hub-real``.

As root, test mode runs only with ``--allow-root`` (a throw-away CI machine): every student's
code would run as root. The Hub is started with ``classroom/jupyterhub_config.py`` in test mode
(a throw-away state directory, free loopback ports), then, through its REST API and as a
``class-runner`` service: creates the users, starts every server, and has every user run the
chapter's code cells, in order, in a kernel of their own reached through the proxy. A cell
tagged ``raises-exception`` may raise; any other error fails that user.

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
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from hubdriver import (
    Service,
    code_cells,
    free_port,
    memory_by_user,
    run_cells,
    start_hub,
    start_kernel,
    stop_kernel,
    wait_for_api,
    wait_ready,
)

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


async def run_chapter(service: Service, homes: Path, user: str, chapter: Path) -> tuple[str | None, list[str]]:
    """Run the chapter's code cells in a new kernel of ``user``'s; (the first problem or ``None``, websocket drops)."""
    session, kernel = await start_kernel(service, user, f"work/{chapter.name}")
    try:
        # Kernels must use IPC sockets in the student's private directory: TCP ports picked by 20
        # servers at once collided ("Address already in use"), and that student's kernel never answered.
        info = homes / user / ".tmp" / f"kernel-{kernel}.json"
        transport = json.loads(info.read_text(encoding="utf-8")).get("transport") if info.exists() else None
        if transport != "ipc":
            return f"the kernel's connection file ({info}) says transport {transport!r}, not 'ipc'", []
        run = await run_cells(service, user, kernel, code_cells(json.loads(chapter.read_text(encoding="utf-8"))))
        return run.problem, run.drops
    finally:
        await stop_kernel(service, user, session)


async def drive(service: Service, homes: Path, users: list[str], chapter: Path, report: dict[str, Any]) -> int:
    await service.call("POST", "/hub/api/users", {"usernames": users})
    start = time.monotonic()
    await asyncio.gather(*(service.call("POST", f"/hub/api/users/{u}/server", {}) for u in users))
    await asyncio.gather(*(wait_ready(service, u, start + 600) for u in users))
    report["spawn_seconds"] = round(time.monotonic() - start, 1)
    print(f"{len(users)} servers ready in {report['spawn_seconds']} s", flush=True)

    async def one(u: str) -> tuple[str, str | None, list[str], float]:
        t = time.monotonic()
        try:
            problem, drops = await run_chapter(service, homes, u, chapter)
        except Exception as e:  # a user's failure is reported, never the whole run's
            problem, drops = f"{type(e).__name__}: {e}", []
        return u, problem, drops, time.monotonic() - t

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
        u: {"ok": p is None, "problem": p, "seconds": round(s, 1), "peak_rss_mb": round(peak[u], 1), "drops": d}
        for u, p, d, s in results
    }
    failed = [u for u, p, _, _ in results if p is not None]
    for u, p, d, s in results:
        again = f"; reconnected after a websocket drop at {', '.join(d)}" if d and p is None else ""
        print(f"{u}: {'ok' if p is None else 'FAILED ' + p} ({s:.1f} s, peak {peak[u]:.0f} MB{again})")
    mbs = sorted(peak.values())
    report["peak_rss_mb_per_user"] = {"median": round(mbs[len(mbs) // 2], 1), "max": round(mbs[-1], 1)}
    print(
        f"wall time of the concurrent run: {report['run_seconds']} s; memory per user (server + kernel, peak RSS): "
        f"median {report['peak_rss_mb_per_user']['median']} MB, max {report['peak_rss_mb_per_user']['max']} MB"
    )
    report["websocket_drops"] = sum(len(d) for _, _, d, _ in results)
    print(f"{len(users) - len(failed)} passed, {len(failed)} failed; websocket drops: {report['websocket_drops']}")
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=4)
    parser.add_argument("--chapter", default="01")
    parser.add_argument(
        "--allow-root", action="store_true", help="run test mode as root (a throw-away machine: students would be root)"
    )
    args = parser.parse_args()
    if os.geteuid() == 0 and not args.allow_root:
        print(
            "test mode has no isolation: as root, every student would run code as root; pass --allow-root "
            "on a throw-away machine, or run it as an ordinary user",
            file=sys.stderr,
        )
        return 2
    share = REPO / "build" / "class-share"
    chapters = sorted((share / "work").glob(f"{args.chapter}_*.ipynb"))
    if len(chapters) != 1:
        print(f"no single chapter {args.chapter!r} in {share / 'work'} (make class-share)", file=sys.stderr)
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
        MSGMODEL_CLASS_SHARE=str(share),
        PYTHONHASHSEED="0",
    )
    if os.geteuid() == 0:  # the configuration itself refuses root without the explicit flag
        refused = subprocess.run(
            [str(Path(sys.executable).with_name("jupyterhub")), "-f", str(HERE / "jupyterhub_config.py")],
            env=env,
            cwd=state,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        said = "test mode has no authentication and no isolation" in refused.stdout + refused.stderr
        print(f"as root without MSGMODEL_HUB_TEST_ALLOW_ROOT=1, the Hub refused test mode: {said}")
        if refused.returncode == 0 or not said:
            return 1
        env["MSGMODEL_HUB_TEST_ALLOW_ROOT"] = "1"
    hub = start_hub(
        [str(Path(sys.executable).with_name("jupyterhub")), "-f", str(HERE / "jupyterhub_config.py")],
        env,
        state,
        state / "hub.log",
    )
    report: dict[str, Any] = {"mode": "test", "users_asked": args.users, "chapter": chapters[0].name}
    loop = asyncio.new_event_loop()
    service = Service(f"http://127.0.0.1:{port}", token)
    try:
        loop.run_until_complete(wait_for_api(service, hub))
        users = [f"student{i:02d}" for i in range(1, args.users + 1)]
        code = loop.run_until_complete(drive(service, state / "home", users, chapters[0], report))
        homes = sorted(p.name for p in (state / "home").iterdir())
        report["separate_homes"] = homes == users
        tmpdirs = [state / "home" / u / ".tmp" for u in users]
        report["tmpdirs_0700"] = all(t.is_dir() and (t.stat().st_mode & 0o777) == 0o700 for t in tmpdirs)
        print(
            f"a home and a TMPDIR (0700) per user: {report['separate_homes'] and report['tmpdirs_0700']} "
            "(all one Unix user: test mode has no isolation)"
        )
        return code if report["separate_homes"] and report["tmpdirs_0700"] else 1
    finally:
        loop.run_until_complete(service.close())
        hub.stop()
        (REPO / "build").mkdir(exist_ok=True)
        shutil.copy(state / "hub.log", REPO / "build" / "hub.log")  # kept for a failure's post-mortem
        (REPO / "build" / "hub-report.json").write_text(json.dumps(report, indent=2) + "\n")
        if os.environ.get("MSGMODEL_HUB_KEEP") != "1":
            shutil.rmtree(state, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
