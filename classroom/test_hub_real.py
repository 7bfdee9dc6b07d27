"""A real class on one server: Unix accounts, PAM logins, isolation proven by attack, grading with nbgrader.

    sudo build/hub-venv/bin/python classroom/test_hub_real.py [--users 20]      (make test-hub-real)

Runs as root on a throw-away machine and does what the README's runbook "A class on one server"
tells a teacher to do, with the same commands, under paths of its own (``/opt``, ``/srv`` and
``/etc`` folders named ``…-test-<pid>``, accounts ``mm<pid>s01``…, ``mm<pid>t`` the teacher):

1. **Accounts.** ``classroom/accounts.py create`` makes the roster's accounts (``useradd``,
   random passwords set with ``chpasswd``, homes 0700); one more account, not on the roster,
   tries to log in and must be refused. Everything is removed afterwards, also when the run
   fails; accounts and folders left by a run that died are swept at the start.
2. **Install.** ``classroom/install.py install`` with Debian's ``/usr/bin/python3`` (apt installs
   ``python3-venv`` when missing): the class image under ``/opt`` (venv with msgmodel *not*
   editable, share/, the Hub's files, the proxy), owned by root and writable by no one else;
   the Hub's state 0700; the teacher's nbgrader course 0700; the exchange. While the class
   runs, **this checkout is closed (mode 0700)**: nothing a student runs may come from it, and
   the teacher's guide in it is out of reach.
3. **The Hub**, as root, started with the ``ExecStart`` line of the installed systemd unit:
   PAM login, ``LocalProcessSpawner``, ``allowed_users`` and admins from the roster.
4. **Every student logs in through the login form** (GET the form, POST name, password and
   its ``_xsrf`` token), starts their server from ``/hub/spawn``, is let in by the Hub's OAuth
   redirects, and works through the server's API with their cookies and the server's
   ``_xsrf``, as JupyterLab does. Checked as root: each server and kernel runs as its
   student's uid, in their own home (0700), with ``TMPDIR`` their own ``~/.tmp`` (0700),
   kernels on IPC sockets there.
5. **All students run chapter 01 at once** (their blank copy, every code cell in order); wall
   time and memory per student (server + kernel, peak RSS) measured, students per 16 GB derived.
6. **Attacks**, from student A's kernel (and browser) on student B and the teacher; every one
   must be refused, and the test prints the table and ``N of N attacks refused``.
7. **Grading with nbgrader**, as the teacher in the course directory: ``validate`` every source
   assignment (the answer key passes every autograder test), ``generate_assignment``,
   ``release_assignment`` of chapter 01. Each student fetches it from the Assignments
   extension, answers right, wrong or not at all (a known plan per student) by editing the
   notebook through the server's contents API and running the answer cells in their kernel,
   saves, and submits; one student never submits. A forges a submission in B's name. The
   teacher runs ``collect``, ``autograde``, ``generate_feedback``, ``release_feedback``; every
   student who submitted fetches their feedback. The gradebook's score of every student and
   exercise must be what that student did.

Writes ``build/hub-real-report.json`` and keeps the Hub's log in ``build/hub-real.log``.
Exits 1 if anything failed.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import glob
import json
import os
import pwd
import re
import secrets
import shutil
import stat
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from hubdriver import (
    Browser,
    HubError,
    Service,
    code_cells,
    free_port,
    hub_rss_mb,
    memory_by_user,
    processes_of_user,
    run_cells,
    start_hub,
    start_kernel,
    stop_kernel,
    wait_for_api,
    wait_ready,
)

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "scripts"))

import accounts  # noqa: E402
import build_student  # noqa: E402
import install  # noqa: E402
import nbformat  # noqa: E402
from roster import Roster, roster_text  # noqa: E402

from msgmodel.course.exercises import Exercise, all_exercises  # noqa: E402

RUN = os.getpid()
TAG = f"msgmodel class test run {RUN}"
TAG_PREFIX = "msgmodel class test run "
PREFIX = Path(f"/opt/msgmodel-class-test-{RUN}")
STATE = Path(f"/srv/msgmodel-hub-test-{RUN}")
COURSE = Path(f"/srv/msgmodel-course-test-{RUN}")
EXCHANGE = Path(f"/srv/nbgrader-test-{RUN}/exchange")
ETC = Path(f"/etc/msgmodel-class-test-{RUN}")
STALE = ("/opt/msgmodel-class-test-", "/srv/msgmodel-hub-test-", "/srv/msgmodel-course-test-", "/srv/nbgrader-test-")
SYSTEM_PYTHON = "/usr/bin/python3"
ASSIGNMENT = "01_orphan_tool_result"
COURSE_ID = "msgmodel"
RESERVE_MB = 1024
"""Memory kept for the system when counting students per 16 GB."""


def log(text: str) -> None:
    print(text, flush=True)


# ---------------------------------------------------------------------------------------
# Set-up and clean-up
# ---------------------------------------------------------------------------------------


def _pid_of(text: str) -> int | None:
    m = re.search(r"(\d+)$", text)
    return int(m[1]) if m else None


def sweep_stale() -> list[str]:
    """Remove what a run that died left: its accounts (by their comment) and folders (by their pid)."""
    swept = []
    for pw in pwd.getpwall():
        if pw.pw_gecos.startswith(TAG_PREFIX):
            pid = _pid_of(pw.pw_gecos)
            if pid is not None and pid != RUN and not psutil.pid_exists(pid):
                accounts.end_processes(pw.pw_uid)
                subprocess.run(["userdel", "--remove", pw.pw_name], capture_output=True, check=False)
                swept.append(pw.pw_name)
    for etc in glob.glob("/etc/msgmodel-class-test-*"):
        pid = _pid_of(etc)
        if pid is not None and pid != RUN and not psutil.pid_exists(pid):
            _restore_checkout(Path(etc))
            shutil.rmtree(etc, ignore_errors=True)
            swept.append(etc)
    for prefix in STALE:
        for path in glob.glob(prefix + "*"):
            pid = _pid_of(path)
            if pid is not None and pid != RUN and not psutil.pid_exists(pid):
                shutil.rmtree(path, ignore_errors=True)
                swept.append(path)
    return swept


def ensure_system_python() -> None:
    """Debian's python3 with venv (what the runbook installs with apt); installed here when missing."""
    ok = subprocess.run([SYSTEM_PYTHON, "-c", "import venv, ensurepip"], capture_output=True, check=False)
    if Path(SYSTEM_PYTHON).exists() and ok.returncode == 0:
        return
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "python3", "python3-venv"], check=True, env=env)


def _close_checkout() -> None:
    """Mode 0700 on this checkout while the class runs (the original mode is kept in ETC to restore)."""
    (ETC / "checkout").write_text(f"{oct(stat.S_IMODE(REPO.stat().st_mode))} {REPO}\n", encoding="utf-8")
    os.chmod(REPO, 0o700)


def _restore_checkout(etc: Path) -> None:
    saved = etc / "checkout"
    if saved.exists():
        mode, path = saved.read_text(encoding="utf-8").split(maxsplit=1)
        if Path(path.strip()).exists():
            os.chmod(path.strip(), int(mode, 8))


def sh(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, **kw)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}):\n{(done.stdout + done.stderr)[-3000:]}")
    return done


def as_teacher(teacher: str, *cmd: str) -> str:
    """An nbgrader command as the teacher, in the course directory (the runbook's step); its output."""
    done = sh(install.teacher_command(PREFIX, teacher, list(cmd)), cwd=COURSE)
    return done.stdout + done.stderr


# ---------------------------------------------------------------------------------------
# The class
# ---------------------------------------------------------------------------------------


@dataclass
class Attack:
    attempt: str
    refused: bool
    detail: str


@dataclass
class Class:
    service: Service
    browsers: dict[str, Browser]
    teacher: str
    report: dict[str, Any]
    attacks: list[Attack] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def students(self) -> list[str]:
        return list(self.browsers)

    def fail(self, what: str) -> None:
        self.failures.append(what)
        log(f"FAILED: {what}")

    def attack(self, attempt: str, refused: bool, detail: str) -> None:
        self.attacks.append(Attack(attempt, refused, detail))


def home(user: str) -> Path:
    return Path(pwd.getpwnam(user).pw_dir)


async def log_in_and_spawn(cls: Class, outsider: tuple[str, str]) -> None:
    t = time.monotonic()
    await asyncio.gather(*(b.login() for b in cls.browsers.values()))
    cls.report["login_seconds"] = round(time.monotonic() - t, 1)
    log(f"{len(cls.browsers)} students logged in through the login form in {cls.report['login_seconds']} s")
    b = cls.students[1]
    for name, password, who in (
        (b, "not-" + secrets.token_hex(4), "B's name, a wrong password"),
        (outsider[0], outsider[1], "an account that is not on the roster"),
    ):
        intruder = Browser(cls.service.base, name, password)
        try:
            await intruder.login()
            cls.attack(f"log in with {who}", False, "logged in")
        except HubError as e:
            cls.attack(f"log in with {who}", True, str(e).split(": ", 1)[1])
        finally:
            await intruder.close()
    t = time.monotonic()
    await asyncio.gather(*(br.spawn() for br in cls.browsers.values()))
    await asyncio.gather(*(wait_ready(cls.service, u, t + 600) for u in cls.students))
    await asyncio.gather(*(br.enter_server() for br in cls.browsers.values()))
    cls.report["spawn_seconds"] = round(time.monotonic() - t, 1)
    log(f"{len(cls.students)} servers started from /hub/spawn and entered in {cls.report['spawn_seconds']} s")


def check_servers(cls: Class) -> None:
    """As root: each student's processes run as their uid, in their home, with their own private TMPDIR."""
    for user in cls.students:
        pw = pwd.getpwnam(user)
        procs = processes_of_user(user)
        if not procs:
            cls.fail(f"{user}: no server process found")
            continue
        for proc in procs:
            uids = proc.uids()
            if {uids.real, uids.effective} != {pw.pw_uid}:
                cls.fail(f"{user}: process {proc.pid} runs as uid {uids.effective}, not {pw.pw_uid}")
            env = proc.environ()
            if env.get("TMPDIR") != f"{pw.pw_dir}/.tmp" or env.get("JUPYTER_RUNTIME_DIR") != f"{pw.pw_dir}/.tmp":
                cls.fail(f"{user}: process {proc.pid} has TMPDIR {env.get('TMPDIR')!r}")
            if env.get("MSGMODEL_REVEAL") != "off":
                cls.fail(f"{user}: reveal is not off in process {proc.pid}")
        for path, mode in ((Path(pw.pw_dir), 0o700), (Path(pw.pw_dir) / ".tmp", 0o700)):
            st = path.lstat()
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != pw.pw_uid or stat.S_IMODE(st.st_mode) != mode:
                cls.fail(f"{user}: {path} is not a directory of theirs with mode {oct(mode)}")
        copies = list((Path(pw.pw_dir) / "msgmodel" / "work").glob("*.ipynb"))
        if len(copies) != 8 or any(c.lstat().st_uid != pw.pw_uid for c in copies):
            cls.fail(f"{user}: the blank copies are not 8 files of their own")


def check_image(cls: Class) -> None:
    """Everything in the class image belongs to root and no one else may write it."""
    bad = []
    for path in [PREFIX, *PREFIX.rglob("*")]:
        st = path.lstat()
        if st.st_uid != 0 or (not stat.S_ISLNK(st.st_mode) and st.st_mode & 0o022):
            bad.append(str(path))
    if bad:
        cls.fail(f"{len(bad)} paths of the image are not root's alone, e.g. {bad[:3]}")
    python = str(PREFIX / "venv" / "bin" / "python")
    site = sh([python, "-c", "import msgmodel; print(msgmodel.__file__)"], cwd="/").stdout
    if not site.strip().startswith(str(PREFIX / "venv" / "lib")):
        cls.fail(f"msgmodel in the image is not installed in it: {site.strip()}")
    cls.report["image_mb"] = round(sum(p.lstat().st_size for p in PREFIX.rglob("*")) / 2**20)
    teacher_uid = pwd.getpwnam(cls.teacher).pw_uid
    for path, uid, mode in ((STATE, 0, 0o700), (COURSE, teacher_uid, 0o700), (EXCHANGE, 0, 0o1777)):
        st = path.stat()
        if st.st_uid != uid or stat.S_IMODE(st.st_mode) != mode:
            cls.fail(f"{path}: owner {st.st_uid}, mode {oct(stat.S_IMODE(st.st_mode))}; expected {uid}, {oct(mode)}")


async def run_chapter_all(cls: Class) -> None:
    chapter = PREFIX / "share" / "work" / f"{ASSIGNMENT}.ipynb"
    cells = code_cells(json.loads(chapter.read_text(encoding="utf-8")))

    async def one(user: str) -> tuple[str | None, list[str], float]:
        t = time.monotonic()
        browser = cls.browsers[user]
        try:
            session, kernel = await start_kernel(browser, user, f"work/{chapter.name}")
            try:
                info = home(user) / ".tmp" / f"kernel-{kernel}.json"
                transport = json.loads(info.read_text(encoding="utf-8")).get("transport") if info.exists() else None
                if transport != "ipc":
                    return f"the kernel's connection file {info} says {transport!r}, not 'ipc'", [], 0.0
                run = await run_cells(browser, user, kernel, cells)
                return run.problem, run.drops, time.monotonic() - t
            finally:
                await stop_kernel(browser, user, session)
        except Exception as e:  # a student's failure is reported, never the whole run's
            return f"{type(e).__name__}: {e}", [], time.monotonic() - t

    start = time.monotonic()
    run = asyncio.gather(*(one(u) for u in cls.students))
    peak = dict.fromkeys(cls.students, 0.0)
    hub_peak = 0.0
    hub_pid = cls.report["hub_pid"]
    while not run.done():
        await asyncio.sleep(2)
        for u, mb in (await asyncio.to_thread(memory_by_user, cls.students)).items():
            peak[u] = max(peak[u], mb)
        hub_peak = max(hub_peak, await asyncio.to_thread(hub_rss_mb, hub_pid))
    results = await run
    wall = round(time.monotonic() - start, 1)
    for u, (problem, drops, secs) in zip(cls.students, results, strict=True):
        again = f"; websocket drops at {', '.join(drops)}" if drops else ""
        log(f"{u}: {'ok' if problem is None else 'FAILED ' + problem} ({secs:.1f} s, peak {peak[u]:.0f} MB{again})")
        if problem is not None:
            cls.fail(f"{u} could not run chapter 01: {problem}")
    mbs = sorted(peak.values())
    median, worst = mbs[len(mbs) // 2], mbs[-1]
    per_16gb = int((16 * 1024 - RESERVE_MB - hub_peak) // worst) if worst else 0
    passed = sum(p is None for p, _, _ in results)
    cls.report.update(
        chapter_run_seconds=wall,
        chapter_passed=passed,
        peak_rss_mb_per_student={"median": round(median, 1), "max": round(worst, 1)},
        hub_and_proxy_rss_mb=round(hub_peak, 1),
        students_per_16gb=per_16gb,
        websocket_drops=sum(len(d) for _, d, _ in results),
    )
    log(
        f"chapter 01 by {len(cls.students)} students at once: {passed} passed, wall time {wall} s; memory per "
        f"student (server + kernel, peak RSS): median {median:.0f} MB, max {worst:.0f} MB; the Hub and proxy "
        f"{hub_peak:.0f} MB; students per 16 GB (keeping {RESERVE_MB} MB for the system): {per_16gb}"
    )


# ---------------------------------------------------------------------------------------
# Attacks
# ---------------------------------------------------------------------------------------


def key_lines() -> dict[str, list[str]]:
    """Per exercise, the lines of its key block that make it a solution (stripped; imports and signatures left out).

    A text "holds" an exercise's solution when more than half of these lines are lines of it (the attack code's
    ``holds``): a whole solution, or most of it, not a line such as ``return None`` that any code may have.
    """
    key = build_student.answer_key(build_student.GUIDE.read_text(encoding="utf-8"))
    out = {}
    for ex_id, code in key.items():
        lines = [line.strip() for line in code.splitlines()]
        lines = [s for s in lines if len(s) >= 12 and not s.startswith(("from ", "import ", "def ", "class ", "#"))]
        out[ex_id] = sorted(set(lines))
    return out


ATTACK_CODE = r"""
import glob, json, os, socket, subprocess, inspect, importlib, time
P = json.loads(PARAMS)
results = []

def attempt(name, fn):
    try:
        got = fn()
    except (PermissionError, FileNotFoundError, IsADirectoryError, NotADirectoryError, OSError) as e:
        results.append([name, True, f"{type(e).__name__}: {e.strerror or e}"])
        return
    refused, detail = got
    results.append([name, refused, detail])

def read(path):
    with open(path, "rb") as f:
        data = f.read()
    return False, f"read {len(data)} bytes"

def listing(path):
    return False, f"listed {len(os.listdir(path))} entries"

def write(path):
    with open(path, "a") as f:
        f.write("planted by A")
    return False, "wrote it"

def connect_unix(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
    finally:
        s.close()
    return False, "connected"

def zmq_execute(path):
    import zmq
    ctx = zmq.Context.instance()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect("ipc://" + path)
    header = json.dumps({"msg_id": "a1", "msg_type": "kernel_info_request", "session": "a", "username": "a",
                         "version": "5.3", "date": ""})
    sock.send_multipart([b"<IDS|MSG>", b"", header.encode(), b"{}", b"{}", b"{}"])
    answered = sock.poll(3000)
    sock.close()
    return (not answered), ("a reply came" if answered else "no reply in 3 s (no access to the socket file)")

def environ_of(pid):
    with open(f"/proc/{pid}/environ", "rb") as f:
        data = f.read()
    return b"JUPYTERHUB_API_TOKEN" not in data, "read the environment"

def holds(text):  # the exercises whose solution text holds: more than half of their key lines are lines of it
    lines = {line.strip() for line in text.splitlines()}
    return [ex for ex, want in P["key"].items() if want and 2 * sum(w in lines for w in want) > len(want)]

attempt("read B's notebook", lambda: read(P["b_notebook"]))
attempt("list B's home", lambda: listing(P["b_home"]))
attempt("read B's kernel connection file (its HMAC key)", lambda: read(P["b_connection"]))
attempt("list B's TMPDIR", lambda: listing(P["b_tmp"]))
attempt("read a temp file B's kernel made in its TMPDIR", lambda: read(P["b_tempfile"]))
attempt("connect to B's kernel shell socket (ipc)", lambda: connect_unix(P["b_shell"]))
attempt("send B's kernel a ZeroMQ request over its ipc socket", lambda: zmq_execute(P["b_shell"]))
attempt("read B's server's API token from /proc/PID/environ", lambda: environ_of(P["b_server_pid"]))
attempt("write into B's home", lambda: write(P["b_home"] + "/planted-by-a"))
attempt("overwrite B's notebook", lambda: write(P["b_notebook"]))
attempt("write into the class image (a chapter of share/)", lambda: write(P["image_chapter"]))
attempt("write into the installed package", lambda: write(P["package_init"]))
attempt("read the teacher's guide in the teacher's checkout", lambda: read(P["checkout_guide"]))
attempt("read the course's source assignment (the key)", lambda: read(P["course_source"]))
attempt("list the teacher's course directory", lambda: listing(P["course"]))

def guide_in_reach():
    found = [p for root in P["reach"] for p in glob.glob(root + "/**/teacher-guide*", recursive=True)]
    return not found, (f"found {found[:2]}" if found else "no teacher-guide file under " + ", ".join(P["reach"]))
attempt("find the teacher's guide in the home, its docs and the image", guide_in_reach)

def via_reveal():
    from msgmodel.course.exercises import reveal, all_exercises
    shown = "\n".join(str(reveal(ex.id, confirm=True)) for ex in all_exercises())
    found = holds(shown)
    return not found, (f"solutions of {found}" if found else "24 exercises: " + shown.splitlines()[0][:80])
attempt("reveal(id, confirm=True) for every exercise", via_reveal)

def via_registry():
    from msgmodel.course.exercises import all_exercises
    exercises = all_exercises()
    has = [f for f in ("reference", "solution", "answer") if any(hasattr(ex, f) for ex in exercises)]
    text = "\n".join(repr(v) for ex in exercises for v in vars(ex).values())
    found = holds(text)
    return not (found or has), (f"fields {has}, solutions of {found}" if found or has else
                                f"{len(exercises)} exercises: id, task, checker, starter, hints; no solution")
attempt("read a reference from the exercise registry", via_registry)

def via_inspect():
    import pkgutil, msgmodel.course.exercises as pkg
    names = [m.name for m in pkgutil.iter_modules(pkg.__path__)]
    found = {}
    for name in names:
        module = importlib.import_module(f"msgmodel.course.exercises.{name}")
        hits = holds(inspect.getsource(module)) + holds("\n".join(repr(v) for v in vars(module).values()))
        if hits:
            found[name] = sorted(set(hits))
    return not found, (f"solutions in {found}" if found else f"{len(names)} modules: source and values, no solution")
attempt("inspect.getsource (and the values) of every exercise module", via_inspect)

def via_grep():
    searched, found = 0, {}
    for root in P["grep"]:
        for folder, _, files in os.walk(root):
            for name in files:
                if not name.endswith((".py", ".pyi", ".md", ".txt", ".json", ".ipynb", ".toml", ".cfg")):
                    continue
                path = os.path.join(folder, name)
                try:
                    if os.path.getsize(path) > 3_000_000:
                        continue
                    with open(path, encoding="utf-8", errors="replace") as f:
                        hits = holds(f.read())
                except OSError:
                    continue
                searched += 1
                if hits:
                    found[path] = hits
    return not found, (f"solutions in {dict(list(found.items())[:2])}" if found else
                       f"{searched} files of site-packages and the image: no solution")
attempt("search site-packages and the class image for the key", via_grep)

print("ATTACKS " + json.dumps(results))
"""


async def kernel_output(browser: Browser, user: str, path: str, code: str) -> str:
    session, kernel = await start_kernel(browser, user, path)
    try:
        run = await run_cells(browser, user, kernel, [(code, False)])
        if run.problem:
            raise HubError(f"{user}: {run.problem}")
        return run.outputs[0]
    finally:
        await stop_kernel(browser, user, session)


async def attack(cls: Class) -> None:
    a, b = cls.students[0], cls.students[1]
    ba, bb = cls.browsers[a], cls.browsers[b]
    b_home = home(b)
    # B is at work: a kernel on their notebook, a temp file it made, its sockets in B's TMPDIR.
    b_session, b_kernel = await start_kernel(bb, b, f"work/{ASSIGNMENT}.ipynb")
    try:
        made = await run_cells(
            bb, b, b_kernel, [("import tempfile\nfd, p = tempfile.mkstemp(text=True)\nprint(p)", False)]
        )
        b_tempfile = made.outputs[0].strip()
        conn = json.loads((b_home / ".tmp" / f"kernel-{b_kernel}.json").read_text(encoding="utf-8"))
        b_server = next(p for p in processes_of_user(b) if "jupyterhub-singleuser" in " ".join(p.cmdline()))
        lines = key_lines()
        site = sh(
            [str(PREFIX / "venv" / "bin" / "python"), "-c", "import site; print(site.getsitepackages()[0])"], cwd="/"
        )
        params = {
            "b_home": str(b_home),
            "b_notebook": str(b_home / "msgmodel" / "work" / f"{ASSIGNMENT}.ipynb"),
            "b_connection": str(b_home / ".tmp" / f"kernel-{b_kernel}.json"),
            "b_tmp": str(b_home / ".tmp"),
            "b_tempfile": b_tempfile,
            "b_shell": f"{conn['ip']}-{conn['shell_port']}",
            "b_server_pid": b_server.pid,
            "image_chapter": str(PREFIX / "share" / "work" / f"{ASSIGNMENT}.ipynb"),
            "package_init": sh(
                [str(PREFIX / "venv" / "bin" / "python"), "-c", "import msgmodel; print(msgmodel.__file__)"], cwd="/"
            ).stdout.strip(),
            "checkout_guide": str(REPO / "docs" / "teacher-guide.md"),
            "course_source": str(COURSE / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"),
            "course": str(COURSE),
            "reach": [str(home(a)), str(PREFIX)],
            "grep": [site.stdout.strip(), str(PREFIX / "share"), str(PREFIX / "hub")],
            "key": lines,
            "tmp": str(home(a) / ".tmp"),
        }
        code = f"PARAMS = {json.dumps(json.dumps(params))}\n{ATTACK_CODE}"
        out = await kernel_output(ba, a, f"work/{ASSIGNMENT}.ipynb", code)
        for name, refused, detail in json.loads(out.split("ATTACKS ", 1)[1]):
            cls.attack(name, refused, detail)
    finally:
        await stop_kernel(bb, b, b_session)
    # A's browser, with A's cookies, asks for B's server.
    resp = await ba.follow(f"/user/{b}/api/contents")
    cls.attack(
        "open B's server with A's login (GET /user/B/api/contents)",
        resp.status_code in (403, 404),
        f"HTTP {resp.status_code}",
    )


def etc_snapshot() -> list[tuple[str, int, int, int]]:
    out = []
    for path in [Path("/etc"), Path("/etc/cron.d"), *Path("/etc/cron.d").iterdir()]:
        st = path.lstat()
        out.append((str(path), st.st_mode, st.st_uid, st.st_gid))
    return sorted(out)


async def plant_links_and_respawn(cls: Class) -> None:
    """A plants the review's links in their home, stops and starts their server: root must follow none."""
    a = cls.students[0]
    ba = cls.browsers[a]
    a_home = home(a)
    before = etc_snapshot()
    plant = (
        "import os\n"
        f"home = {str(a_home)!r}\n"
        "os.rename(home + '/.tmp', home + '/.tmp-before')\n"
        "os.symlink('/etc', home + '/.tmp')\n"
        f"nb = home + '/msgmodel/work/{ASSIGNMENT}.ipynb'\n"
        "os.remove(nb)\n"
        "os.symlink('/etc/cron.d/x', nb)\n"
        "print(os.readlink(home + '/.tmp'), os.readlink(nb))"
    )
    _, kernel = await start_kernel(ba, a, "work/00_start_here.ipynb")  # the session goes with the server
    planted = await run_cells(ba, a, kernel, [(plant, False)])
    if planted.problem:
        cls.fail(f"{a} could not plant the links: {planted.problem}")
        return
    await cls.service.call("DELETE", f"/hub/api/users/{a}/server", ok=(202, 204))
    deadline = time.monotonic() + 120
    while (await cls.service.call("GET", f"/hub/api/users/{a}")).get("servers"):
        if time.monotonic() > deadline:
            raise HubError(f"{a}'s server did not stop")
        await asyncio.sleep(0.5)
    await ba.spawn()
    await wait_ready(cls.service, a, time.monotonic() + 300)
    await ba.enter_server()
    after = etc_snapshot()
    tmp = (a_home / ".tmp").lstat()
    fresh = stat.S_ISDIR(tmp.st_mode) and tmp.st_uid == pwd.getpwnam(a).pw_uid and stat.S_IMODE(tmp.st_mode) == 0o700
    cron = os.path.lexists("/etc/cron.d/x")
    cls.attack(
        "plant ~/.tmp -> /etc and ~/msgmodel/work/01_….ipynb -> /etc/cron.d/x, then spawn again",
        before == after and not cron and fresh,
        f"/etc and /etc/cron.d unchanged: {before == after}; /etc/cron.d/x exists: {cron}; "
        f"~/.tmp a fresh 0700 directory of A's: {fresh}; the server started again",
    )


# ---------------------------------------------------------------------------------------
# Grading with nbgrader
# ---------------------------------------------------------------------------------------

PLANS = ("RRR", "WWW", "MMM", "RWM", "MRW", "WMR")
"""What each student does with the assignment's exercises, in order: Right, Wrong, Missing (cycled)."""


def assignment_exercises() -> list[Exercise]:
    return [ex for ex in all_exercises() if ex.id.startswith(ASSIGNMENT[:2] + ".")]


def wrong_answer(ex: Exercise, name: str, key: str) -> str:
    """A wrong answer an honest student could give: a function that returns nothing useful, or another value."""
    if callable(ex.starter):
        return f"def {name}(*args, **kwargs):\n    return None\n"
    value = "A" if re.search(r"=\s*['\"]B['\"]", key) else "B"  # any letter but the key's
    return f"{name} = {value!r}\n"


def expected_points(plan: str, exercises: list[Exercise]) -> dict[str, float]:
    from nbgrader_course import points

    return {ex.id: float(points(ex)) if p == "R" else 0.0 for ex, p in zip(exercises, plan, strict=True)}


async def student_round(cls: Class, user: str, plan: str) -> dict[str, str]:
    """Fetch, answer by the plan (contents API + the kernel), save, submit; the verdicts the kernel printed."""
    from nbgrader_course import grade_id

    browser = cls.browsers[user]
    form = {"course_id": COURSE_ID, "assignment_id": ASSIGNMENT}
    await browser.call("POST", f"/user/{user}/assignments/fetch", form=form)
    path = f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
    model = await browser.call("GET", f"/user/{user}/api/contents/{path}?content=1")
    nb = model["content"]
    key = build_student.answer_key(build_student.GUIDE.read_text(encoding="utf-8"))
    names = {ex_id: name for ex_id, (_, name) in build_student.exercise_cells(nbformat.from_dict(nb)).items()}
    answer_cells = []
    for ex, p in zip(assignment_exercises(), plan, strict=True):
        cell = next(
            c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id("answer", ex.id)
        )
        source = "".join(cell["source"])
        if p == "R":
            source = build_student.paste(source, names[ex.id], key[ex.id])
        elif p == "W":
            source = build_student.paste(source, names[ex.id], wrong_answer(ex, names[ex.id], key[ex.id]))
        cell["source"] = source
        answer_cells.append((source, False))
    session, kernel = await start_kernel(browser, user, path)
    try:
        run = await run_cells(browser, user, kernel, answer_cells, stop_on_error=False)
    finally:
        await stop_kernel(browser, user, session)
    await browser.call(
        "PUT", f"/user/{user}/api/contents/{path}", {"type": "notebook", "format": "json", "content": nb}
    )
    submitted = await browser.call("POST", f"/user/{user}/assignments/submit", form=form)
    if isinstance(submitted, dict) and submitted.get("success") is False:
        raise HubError(f"{user}: nbgrader refused the submission: {str(submitted.get('value'))[-500:]}")
    return {ex.id: out for ex, out in zip(assignment_exercises(), run.outputs, strict=True)}


async def forge_submission(cls: Class) -> None:
    """A writes a submission named for B, later than B's, holding the key's answers (full marks)."""
    a, b = cls.students[0], cls.students[1]
    source = COURSE / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    perfect = nbformat.read(source, as_version=4)  # the root of the test hands A a perfect notebook
    stamp = (datetime.datetime.now(datetime.UTC) + datetime.timedelta(minutes=5)).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    folder = EXCHANGE / COURSE_ID / "inbound" / f"{b}+{ASSIGNMENT}+{stamp}+forgedbyA"
    code = (
        "import os, json\n"
        f"folder = {str(folder)!r}\n"
        "try:\n"
        "    print('listed', len(os.listdir(os.path.dirname(folder))), 'submissions')\n"
        "except OSError as e:\n"
        "    print('refused', type(e).__name__, e.strerror)\n"
        "os.mkdir(folder)\n"
        f"open(os.path.join(folder, {ASSIGNMENT + '.ipynb'!r}), 'w').write({json.dumps(nbformat.writes(perfect))})\n"
        f"open(os.path.join(folder, 'timestamp.txt'), 'w').write({stamp!r})\n"
        "print('forged', folder)"
    )
    out = await kernel_output(cls.browsers[a], a, "work/00_start_here.ipynb", code)
    listed = out.splitlines()[0] if out else ""
    cls.attack("list the exchange's inbound to find B's submission", listed.startswith("refused"), listed)
    if "forged" not in out:
        cls.fail(f"A could not write the forged submission: {out}")


async def grade(cls: Class) -> None:
    from nbgrader.api import Gradebook
    from nbgrader_course import grade_id

    t = time.monotonic()
    out = as_teacher(
        cls.teacher,
        "nbgrader",
        "validate",
        *sorted(str(p.relative_to(COURSE)) for p in (COURSE / "source").glob("*/*.ipynb")),
    )
    passes = out.count("Success! Your notebook passes all the tests.")
    cls.report["validate_sources"] = {"passed": passes, "seconds": round(time.monotonic() - t, 1)}
    log(f"nbgrader validate: {passes} of 8 source assignments pass every autograder test with the key")
    if passes != 8:
        cls.fail(f"nbgrader validate: {passes} of 8 sources pass:\n{out[-2000:]}")
    as_teacher(cls.teacher, "nbgrader", "generate_assignment", ASSIGNMENT)
    as_teacher(cls.teacher, "nbgrader", "release_assignment", ASSIGNMENT)
    exercises = assignment_exercises()
    submitters = cls.students[:-1]  # the last one never submits
    plans = {u: PLANS[i % len(PLANS)] for i, u in enumerate(submitters)}
    t = time.monotonic()
    verdicts = await asyncio.gather(*(student_round(cls, u, plans[u]) for u in submitters))
    cls.report["submit_seconds"] = round(time.monotonic() - t, 1)
    mark = {"R": "✓", "W": "✗", "M": "·"}
    for u, v in zip(submitters, verdicts, strict=True):
        for ex, p in zip(exercises, plans[u], strict=True):
            if f"{mark[p]} exercise {ex.id}" not in v.get(ex.id, ""):
                cls.fail(f"{u}: the kernel said {v.get(ex.id, '')[:200]!r} for {ex.id}, planned {p}")
    seconds = cls.report["submit_seconds"]
    log(f"{len(submitters)} students fetched, answered in their kernels, saved and submitted in {seconds} s")
    await forge_submission(cls)
    t = time.monotonic()
    collected = as_teacher(cls.teacher, "nbgrader", "collect", ASSIGNMENT)
    forged_skipped = "forgedbyA claims to be" in collected and "not collected" in collected
    as_teacher(cls.teacher, "nbgrader", "autograde", ASSIGNMENT)
    as_teacher(cls.teacher, "nbgrader", "generate_feedback", ASSIGNMENT)
    as_teacher(cls.teacher, "nbgrader", "release_feedback", ASSIGNMENT)
    cls.report["grading_seconds"] = round(time.monotonic() - t, 1)
    log(f"collect, autograde, generate_feedback, release_feedback: {cls.report['grading_seconds']} s")
    form = {"course_id": COURSE_ID, "assignment_id": ASSIGNMENT}
    await asyncio.gather(
        *(cls.browsers[u].call("POST", f"/user/{u}/assignments/fetch_feedback", form=form) for u in submitters)
    )
    no_feedback = [u for u in submitters if not list((home(u) / "msgmodel" / ASSIGNMENT / "feedback").glob("*/*.html"))]
    if no_feedback:
        cls.fail(f"no feedback fetched by {no_feedback}")
    book: dict[str, dict[str, float | None]] = {}
    with Gradebook(f"sqlite:///{COURSE / 'gradebook.db'}", course_id=COURSE_ID) as gb:
        for u in cls.students:
            book[u] = {}
            for ex in exercises:
                try:
                    g = gb.find_grade(grade_id("test", ex.id), ASSIGNMENT, ASSIGNMENT, u)
                    book[u][ex.id] = float(g.score)
                except Exception:
                    book[u][ex.id] = None
    b = cls.students[1]
    wrong = []
    for u in cls.students:
        want = expected_points(plans[u], exercises) if u in plans else dict.fromkeys(book[u])
        if book[u] != want:
            wrong.append(f"{u} ({plans.get(u, 'no submission')}): gradebook {book[u]}, expected {want}")
    for w in wrong:
        cls.fail(f"gradebook: {w}")
    cls.attack(
        "submit in B's name (a later submission folder named for B, holding full marks)",
        forged_skipped and book[b] == expected_points(plans[b], exercises),
        f"collect skipped it: {forged_skipped}; B's score stays B's own: {sum(v or 0 for v in book[b].values())}",
    )
    cls.report["gradebook"] = {u: {"plan": plans.get(u, "no submission"), "scores": book[u]} for u in cls.students}
    header = "student      plan  " + "  ".join(
        f"{ex.id}({int(expected_points('RRR', exercises)[ex.id])})" for ex in exercises
    )
    log("gradebook of the run (points per exercise; R right, W wrong, M missing; — no submission):")
    log(header + "  total")
    for u in cls.students:
        scores = book[u]
        cells = "  ".join(f"{'—' if scores[e.id] is None else f'{scores[e.id]:g}':>7}" for e in exercises)
        total = "—" if all(v is None for v in scores.values()) else f"{sum(v or 0 for v in scores.values()):g}"
        log(f"{u:<12} {plans.get(u, '—'):<4}  {cells}  {total:>5}")


# ---------------------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------------------


async def check_extensions(cls: Class) -> None:
    """A student's server has nbgrader's Assignments handlers, and none of the instructor's (formgrader)."""
    a = cls.students[0]
    browser = cls.browsers[a]
    formgrader = await browser.http.get(f"/user/{a}/formgrader", headers=browser.headers(f"/user/{a}/formgrader"))
    listed = await browser.call("GET", f"/user/{a}/assignments?course_id={COURSE_ID}")
    if formgrader.status_code != 404 or not (isinstance(listed, dict) and listed.get("success")):
        cls.fail(f"{a}'s server: formgrader answered HTTP {formgrader.status_code}; Assignments answered {listed!r}")


async def check_type_check(cls: Class) -> None:
    """mypy in a student's kernel sees msgmodel as installed (chapters 03-04 run it live; a checkout hid a bug)."""
    a = cls.students[0]
    code = (
        "from msgmodel.course.teaching import type_check\n"
        "print(type_check('from msgmodel.core.message import user_text\\nx: int = user_text(\"hi\")\\n'))"
    )
    out = await kernel_output(cls.browsers[a], a, "work/00_start_here.ipynb", code)
    if "Incompatible types in assignment" not in out or "MYPYPATH" in out:
        cls.fail(f"type_check in a student's kernel does not see msgmodel's types: {out[-300:]!r}")


async def drive(cls: Class, outsider: tuple[str, str]) -> None:
    await log_in_and_spawn(cls, outsider)
    check_servers(cls)
    check_image(cls)
    await check_type_check(cls)
    await check_extensions(cls)
    await run_chapter_all(cls)
    await attack(cls)
    await plant_links_and_respawn(cls)
    await grade(cls)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=20, help="students in the class (default 20)")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("test_hub_real.py runs as root on a throw-away machine: it creates Unix accounts", file=sys.stderr)
        return 2
    if args.users < 3:
        print("--users: at least 3 (A attacks B; one student never submits)", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    swept = sweep_stale()
    if swept:
        log(f"swept what a dead run left: {', '.join(swept)}")
    ensure_system_python()
    teacher = f"mm{RUN}t"
    students = [f"mm{RUN}s{i:02d}" for i in range(1, args.users + 1)]
    roster = Roster(course=COURSE_ID, teachers=(teacher,), students=tuple(students), reveal=False)
    ETC.mkdir(mode=0o755, parents=True)
    (ETC / "roster.toml").write_text(roster_text(roster), encoding="utf-8")
    report: dict[str, Any] = {"mode": "real", "students": len(students)}
    hub = None
    service = None
    loop = asyncio.new_event_loop()
    outsider = f"mm{RUN}x"
    code = 1
    try:
        t = time.monotonic()
        sh(
            [
                SYSTEM_PYTHON,
                str(HERE / "accounts.py"),
                "create",
                "--roster",
                str(ETC / "roster.toml"),
                "--passwords",
                str(ETC / "passwords"),
                "--comment",
                TAG,
            ]
        )
        passwords = dict(line.split() for line in (ETC / "passwords").read_text(encoding="utf-8").splitlines())
        outsider_password = accounts.create((outsider,), TAG)[outsider]
        report["accounts_seconds"] = round(time.monotonic() - t, 1)
        seconds = report["accounts_seconds"]
        log(f"{len(passwords)} accounts (useradd, chpasswd) in {seconds} s, plus {outsider}, not on the roster")
        t = time.monotonic()
        places = ["--prefix", str(PREFIX), "--state", str(STATE), "--course", str(COURSE), "--exchange", str(EXCHANGE)]
        done = sh([SYSTEM_PYTHON, str(HERE / "install.py"), "install", "--roster", str(ETC / "roster.toml"), *places])
        log("".join(f"  install: {line}\n" for line in done.stdout.splitlines()).rstrip())
        report["install_seconds"] = round(time.monotonic() - t, 1)
        log(f"class installed in {report['install_seconds']} s: {PREFIX}, {STATE}, {COURSE}, {EXCHANGE}")
        _close_checkout()
        unit = (PREFIX / "hub" / "msgmodel-hub.service").read_text(encoding="utf-8")
        exec_start = re.search(r"^ExecStart=(.*)$", unit, re.M)
        assert exec_start, "the unit has no ExecStart"
        token = secrets.token_hex(32)
        port = free_port()
        env = {
            "PATH": "/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "MSGMODEL_HUB_IP": "127.0.0.1",
            "MSGMODEL_HUB_PORT": str(port),
            "MSGMODEL_HUB_API_PORT": str(free_port()),
            "MSGMODEL_PROXY_API_PORT": str(free_port()),
            "MSGMODEL_HUB_SERVICE_TOKEN": token,
        }
        hub = start_hub(exec_start[1].split(), env, STATE, ETC / "hub.log")
        report["hub_pid"] = hub.proc.pid
        base = f"http://127.0.0.1:{port}"
        service = Service(base, token)
        loop.run_until_complete(wait_for_api(service, hub))
        browsers = {u: Browser(base, u, passwords[u]) for u in students}
        cls = Class(service, browsers, teacher, report)
        try:
            loop.run_until_complete(drive(cls, (outsider, outsider_password)))
        except Exception as e:
            cls.fail(f"{type(e).__name__}: {e}")
        refused = sum(a.refused for a in cls.attacks)
        log("\nattack (student A on student B, the teacher and the image)                         refused?")
        for a in cls.attacks:
            log(f"  {'yes' if a.refused else 'NO '}  {a.attempt}: {a.detail}")
        log(f"{refused} of {len(cls.attacks)} attacks refused")
        report["attacks"] = [vars(a) for a in cls.attacks]
        report["failures"] = cls.failures
        if refused != len(cls.attacks):
            cls.fail(f"{len(cls.attacks) - refused} attack(s) succeeded")
        for b in browsers.values():
            loop.run_until_complete(b.close())
        code = 1 if cls.failures else 0
    except Exception as e:
        log(f"FAILED: {type(e).__name__}: {e}")
        report.setdefault("failures", []).append(f"{type(e).__name__}: {e}")
    finally:
        if service is not None:
            loop.run_until_complete(service.close())
        if hub is not None:
            hub.stop()
        _restore_checkout(ETC)
        (REPO / "build").mkdir(exist_ok=True)
        if (ETC / "hub.log").exists():
            shutil.copy(ETC / "hub.log", REPO / "build" / "hub-real.log")
        removed = accounts.remove((*students, teacher, outsider), TAG)
        subprocess.run(
            [
                SYSTEM_PYTHON,
                str(HERE / "install.py"),
                "uninstall",
                "--purge",
                "--prefix",
                str(PREFIX),
                "--state",
                str(STATE),
                "--course",
                str(COURSE),
                "--exchange",
                str(EXCHANGE),
            ],
            capture_output=True,
            check=False,
        )
        shutil.rmtree(EXCHANGE.parent, ignore_errors=True)
        shutil.rmtree(ETC, ignore_errors=True)
        left = [p for p in (PREFIX, STATE, COURSE, EXCHANGE.parent, ETC) if p.exists()]
        left += [u for u in (*students, teacher, outsider) if accounts.exists(u)]
        report["cleanup"] = {"accounts_removed": len(removed), "left_behind": [str(x) for x in left]}
        report["total_seconds"] = round(time.monotonic() - t0, 1)
        total = report["total_seconds"]
        log(f"clean-up: {len(removed)} accounts removed; left behind: {left or 'nothing'}; total {total} s")
        if left:
            code = 1
        (REPO / "build" / "hub-real-report.json").write_text(json.dumps(report, indent=2, default=str) + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
