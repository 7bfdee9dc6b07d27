"""Start JupyterLab on the series: the repository root served, chapter 00 opened, the URLs of both editions printed.

    python scripts/lab.py [--port N] [--no-browser]

Jupyter serves the repository root (not ``notebooks/``), so the chapters' links into
``docs/`` and ``bench/`` resolve. The URL printed first opens chapter 00 directly; it carries
a token made here (Jupyter's own banner prints only its generic ``/lab`` address); the second opens
the Chinese edition's chapter 00 (``notebooks/zh/``). The token
reaches Jupyter through its environment (``JUPYTER_TOKEN``), never its command line: any local
user can read a command line (``ps``, ``/proc/PID/cmdline``), while a process's environment is
readable by its owner only. Port 8888 is used when free, otherwise any free loopback port. As
root, ``--allow-root`` is added.
"""

from __future__ import annotations

import argparse
import os
import secrets
import socket
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START = "notebooks/00_start_here.ipynb"
START_ZH = "notebooks/zh/00_start_here.ipynb"


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _any_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def lab_command(port: int, *, browser: bool) -> list[str]:
    """The ``jupyter lab`` command line: the repository root served, chapter 00 as the start page.

    No token on it: ``main`` passes the token in the environment (``JUPYTER_TOKEN``).
    """
    jupyter = Path(sys.executable).with_name("jupyter")
    cmd = [
        str(jupyter if jupyter.exists() else "jupyter"),
        "lab",
        f"--ServerApp.root_dir={ROOT}",
        f"--ServerApp.default_url=/lab/tree/{START}",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
    ]
    if not browser:
        cmd.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    return cmd


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=None, help="the port (default: 8888 when free, else any)")
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    args = parser.parse_args(argv)
    port = args.port if args.port is not None else (8888 if _free(8888) else _any_port())
    token = os.environ.get("MSGMODEL_LAB_TOKEN") or secrets.token_hex(24)
    url = f"http://127.0.0.1:{port}/lab/tree/{START}?token={token}"
    zh_url = f"http://127.0.0.1:{port}/lab/tree/{START_ZH}?token={token}"
    print(f"\n  The series (chapter 00): {url}\n  中文版（第 00 章）: {zh_url}\n", flush=True)
    cmd = lab_command(port, browser=not args.no_browser)
    os.execvpe(cmd[0], cmd, {**os.environ, "JUPYTER_TOKEN": token})


if __name__ == "__main__":
    sys.exit(main())
