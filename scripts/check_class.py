"""What a teacher checks the day before the class, in one command: ``make check-class``.

    python scripts/check_class.py            # every check, one line each, then the total time
    python scripts/check_class.py chapters   # only the named checks (ids below)

Each check prints ``ok`` or ``FAILED`` with what it measured and, on failure, what to do. The exit
status is 1 when a check failed. Nothing is written outside a temporary folder, and nothing touches
the network: the chapters run with every non-loopback connection refused. The checks are the
checklist of ``docs/teacher-guide.md`` (its "Before class: the checklist" block is generated from
``CHECKS``; ``tests/test_teacher_guide_plan.py`` checks that the two agree).

The slowest check is ``chapters`` (every chapter top to bottom in a fresh kernel, two at a time);
the whole run takes about a minute on an idle laptop and must stay under three.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
NOTEBOOKS = ROOT / "notebooks"
MIN_PYTHON = (3, 11)
CHAPTER_BUDGET_S = 10.0
"""A chapter's cells must run in this many seconds (``scripts/build_notebooks.py``'s budget), kernel start aside."""
WORKERS = 2


class CheckFailed(Exception):
    """A check did not pass: the message says what was found and what to do."""


@dataclass(frozen=True)
class Check:
    """One item of the checklist: its id, what it checks (the checklist's words), and the check itself."""

    id: str
    says: str
    run: Callable[[], str]  # returns what it measured; raises CheckFailed


# ---------------------------------------------------------------------------------------
# The checks
# ---------------------------------------------------------------------------------------


def check_python() -> str:
    here = sys.version_info[:3]
    if here < MIN_PYTHON:
        raise CheckFailed(f"this venv runs Python {'.'.join(map(str, here))}; msgmodel needs 3.11 or newer")
    found = f"Python {'.'.join(map(str, here))} in {Path(sys.prefix).name or sys.prefix}"
    system = shutil.which("python3")
    if system:
        out = subprocess.run(
            [system, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        ).stdout.strip()
        found += f"; python3 on PATH is {out}"
        if tuple(int(x) for x in out.split(".")[:2]) < MIN_PYTHON:
            found += " (too old to make a new venv: install Python 3.11+)"
    return found


def pins(path: Path) -> dict[str, str]:
    """``name==version`` pins of a requirements file (comments, options and ``-e`` lines skipped)."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^([A-Za-z0-9_.\-\[\]]+)==([^\s;#]+)", line.strip())
        if m:
            found[re.sub(r"\[.*\]", "", m[1])] = m[2]
    return found


def check_requirements() -> str:
    wanted = pins(ROOT / "requirements.txt")
    wrong = []
    for name, version in wanted.items():
        try:
            have = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            wrong.append(f"{name} missing")
            continue
        if have != version:
            wrong.append(f"{name} {have} (pinned {version})")
    try:
        importlib.metadata.version("msgmodel-anthropic")
    except importlib.metadata.PackageNotFoundError:
        wrong.append("msgmodel itself is not installed (pip install -e .)")
    if wrong:
        raise CheckFailed(f"{', '.join(wrong)}: run `make venv` (or pip install -r requirements.txt)")
    broken = subprocess.run(
        [sys.executable, "-m", "pip", "check", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if broken.returncode != 0:
        raise CheckFailed(f"pip check: {broken.stdout.strip().splitlines()[0]}")
    size = sum(f.stat().st_size for f in Path(sys.prefix).rglob("*") if f.is_file() and not f.is_symlink())
    return f"{len(wanted)} pins of requirements.txt installed, pip check clean; this venv is {size / 2**20:.0f} MB"


def check_kernel() -> str:
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec("python3")
    exe = spec.argv[0]
    resolved = Path(shutil.which(exe) or exe)
    if exe not in ("python", "python3", sys.executable) and resolved.resolve() != Path(sys.executable).resolve():
        raise CheckFailed(
            f"the python3 kernel ({spec.resource_dir}) starts {exe}, not this venv's {sys.executable}: "
            f"remove that kernelspec (`jupyter kernelspec remove python3`) or start JupyterLab with `make lab`"
        )
    return f"the python3 kernel runs this venv's Python ({spec.resource_dir})"


LAB_EXTENSIONS = {
    "@jupyter-widgets/jupyterlab-manager": "the widgets (chapter 06's quiz and drill, the explorers)",
    "jupyterlab-rise": "RISE, live slides",
}


def check_widgets() -> str:
    jupyter = Path(sys.executable).with_name("jupyter")
    done = subprocess.run(
        [str(jupyter), "labextension", "list"], capture_output=True, text=True, timeout=120, check=False
    )
    listing = done.stdout + done.stderr
    missing = []
    for name, what in LAB_EXTENSIONS.items():
        line = next((ln for ln in listing.splitlines() if ln.strip().startswith(name + " ")), "")
        if "enabled" not in line or "OK" not in line:
            missing.append(f"{name} ({what}): {line.strip() or 'not installed'}")
    if missing:
        raise CheckFailed(
            "; ".join(missing) + ": reinstall requirements.txt in this venv (ipywidgets, jupyterlab-rise)"
        )
    import ipywidgets

    return f"JupyterLab extensions enabled: {', '.join(LAB_EXTENSIONS)} (ipywidgets {ipywidgets.__version__})"


OFFLINE_GUARD = """\
import socket as _socket

def _refuse_remote(host):
    if host not in ("127.0.0.1", "::1", "localhost", None) and not str(host).startswith("/"):
        raise OSError(f"check-class: the network is off (a connection to {host!r} was attempted)")

_connect, _connect_ex, _getaddrinfo = _socket.socket.connect, _socket.socket.connect_ex, _socket.getaddrinfo

def _guarded_connect(self, address, _real=_connect):
    if self.family in (_socket.AF_INET, _socket.AF_INET6):
        _refuse_remote(address[0])
    return _real(self, address)

def _guarded_connect_ex(self, address, _real=_connect_ex):
    if self.family in (_socket.AF_INET, _socket.AF_INET6):
        _refuse_remote(address[0])
    return _real(self, address)

def _guarded_getaddrinfo(host, *args, _real=_getaddrinfo, **kwargs):
    _refuse_remote(host)
    return _real(host, *args, **kwargs)

_socket.socket.connect, _socket.socket.connect_ex = _guarded_connect, _guarded_connect_ex
_socket.getaddrinfo = _guarded_getaddrinfo
"""
"""Run first in each chapter's kernel: any connection beyond this machine raises ``OSError``."""


def run_chapter(path: Path) -> tuple[str, float, str | None]:
    """(chapter, seconds its cells took, why it failed or None): a fresh kernel, the network refused."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(OFFLINE_GUARD))
    client = NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}})
    took = 0.0
    try:
        with client.setup_kernel():
            client.execute_cell(nb.cells[0], 0)
            start = time.perf_counter()
            for index, cell in enumerate(nb.cells[1:], start=1):
                client.execute_cell(cell, index)
            took = time.perf_counter() - start
    except CellExecutionError as e:
        return path.name, took, str(e).strip().splitlines()[-1]
    except Exception as e:  # the kernel died, a timeout, ...
        return path.name, took, f"{type(e).__name__}: {e}"
    return path.name, took, None


def _quiet_kernels() -> None:
    """The kernels' own stderr (ipykernel's TCP warning) goes nowhere; a failing cell is reported from its output."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)


def busy_factor() -> float:
    """How many times over its cores this machine is loaded (1 when idle): the chapters' budget is scaled by it."""
    cores = os.cpu_count() or 1
    return max(1.0, os.getloadavg()[0] / cores)


def check_chapters() -> str:
    chapters = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    if not chapters:
        raise CheckFailed("no chapter in notebooks/")
    busy = busy_factor()
    budget = CHAPTER_BUDGET_S * busy
    with concurrent.futures.ProcessPoolExecutor(max_workers=WORKERS, initializer=_quiet_kernels) as pool:
        results = list(pool.map(run_chapter, chapters))
    failed = [f"{name}: {why}" for name, _, why in results if why]
    slow = [f"{name} {took:.1f} s" for name, took, why in results if not why and took > budget]
    times = ", ".join(f"{name[:2]} {took:.1f} s" for name, took, _ in results)
    within = f"{CHAPTER_BUDGET_S:.0f} s" if busy == 1 else f"{budget:.0f} s (10 s x {busy:.1f}: the machine is busy)"
    if failed:
        raise CheckFailed("; ".join(failed))
    if slow:
        raise CheckFailed(f"over {within}: {', '.join(slow)}; close what else runs and check again")
    return f"{len(results)} chapters ran top to bottom offline, each within {within} ({times})"


def check_student() -> str:
    import build_student

    with tempfile.TemporaryDirectory(prefix="msgmodel-check-") as tmp:
        written = build_student.build(Path(tmp) / "student")
    return f"{len(written)} student copies build (`make student` writes them to build/student/)"


def check_slides() -> str:
    import build_slides

    if not build_slides.REVEAL_PACKAGE.is_dir():
        raise CheckFailed("reveal.js is not installed: run `make slides` once (npm ci in slides/)")
    with tempfile.TemporaryDirectory(prefix="msgmodel-check-") as tmp:
        counts = build_slides.build(out=Path(tmp) / "slides")
    return f"{len(counts)} decks, {sum(counts.values())} slides build offline (`make slides`)"


def check_handout() -> str:
    import build_cheatsheet
    import chromium

    if not chromium.is_installed():
        raise CheckFailed(chromium.MISSING)
    with tempfile.TemporaryDirectory(prefix="msgmodel-check-") as tmp:
        _, pages, words = build_cheatsheet.build(build_cheatsheet.SOURCE, Path(tmp))
    if pages != build_cheatsheet.MAX_PAGES:
        raise CheckFailed(f"the handout prints on {pages} pages, not one")
    return f"the handout prints on 1 A4 page ({words} words; `make cheatsheet` writes build/cheatsheet.pdf)"


CHECKS: tuple[Check, ...] = (
    Check("python", "Python 3.11 or newer runs the series (the venv, and `python3` for a new one)", check_python),
    Check("venv", "The venv holds every pin of requirements.txt, and `pip check` is clean", check_requirements),
    Check("kernel", "The notebooks' `python3` kernel is this venv's Python, not another environment", check_kernel),
    Check("widgets", "JupyterLab's widgets extension and RISE are installed and enabled", check_widgets),
    Check(
        "chapters", "Every chapter runs top to bottom offline, each in 10 s or less (every demo runs)", check_chapters
    ),
    Check("student", "The student copies build", check_student),
    Check("slides", "The slides build, offline", check_slides),
    Check("handout", "The class handout prints on one A4 page", check_handout),
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("only", nargs="*", help=f"check ids (default: all): {', '.join(c.id for c in CHECKS)}")
    ap.add_argument("--json", action="store_true", help="also print the results as one JSON line")
    args = ap.parse_args(argv)
    unknown = sorted(set(args.only) - {c.id for c in CHECKS})
    if unknown:
        ap.error(f"no check named {', '.join(unknown)}")
    chosen = [c for c in CHECKS if not args.only or c.id in args.only]
    start = time.perf_counter()
    results = []
    width = max(len(c.id) for c in chosen)
    for c in chosen:
        t0 = time.perf_counter()
        try:
            detail, ok = c.run(), True
        except CheckFailed as e:
            detail, ok = str(e), False
        took = time.perf_counter() - t0
        results.append({"id": c.id, "ok": ok, "seconds": round(took, 1), "detail": detail})
        print(f"{'ok    ' if ok else 'FAILED'} {c.id:<{width}}  {took:5.1f} s  {detail}", flush=True)
    failed = [r["id"] for r in results if not r["ok"]]
    total = time.perf_counter() - start
    verdict = f"FAILED: {', '.join(str(f) for f in failed)}" if failed else "ready for class"
    print(f"{len(results) - len(failed)} of {len(results)} checks passed in {total:.0f} s: {verdict}")
    if args.json:
        print(json.dumps({"seconds": round(total, 1), "checks": results}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
