"""Create and remove the Unix accounts of a class's roster (run as root).

    sudo python3 classroom/accounts.py create --roster /etc/msgmodel-class/roster.toml --passwords /root/class-passwords
    sudo python3 classroom/accounts.py remove --roster /etc/msgmodel-class/roster.toml

``create`` makes an account for every teacher and student of the roster that has none yet
(``useradd --create-home``, shell ``/bin/bash``, the comment ``COMMENT`` that marks it as this
tool's), gives each new account a random password (``chpasswd``) and writes ``name password``
lines to the passwords file (mode 0600) for the teacher to hand out. Every home, new or not, is
set to mode 0700: the Hub's isolation between students is the Unix uid and a home nobody else
may enter (``useradd`` makes homes 0755 unless ``HOME_MODE`` says otherwise).

``remove`` deletes the accounts of the roster this tool created (their comment says so; an
account made by hand is never touched), with their homes, after ending their processes by id.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import pwd
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from roster import roster_for_root  # noqa: E402

COMMENT = "msgmodel class account"


def _run(cmd: list[str], stdin: str | None = None) -> None:
    done = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}): {(done.stdout + done.stderr).strip()}")


def exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def create(names: tuple[str, ...], comment: str = COMMENT) -> dict[str, str]:
    """Accounts for ``names`` that have none; their passwords. Every home of ``names`` ends up mode 0700."""
    passwords: dict[str, str] = {}
    for name in names:
        if not exists(name):
            _run(["useradd", "--create-home", "--shell", "/bin/bash", "--comment", comment, name])
            passwords[name] = secrets.token_urlsafe(12)
        os.chmod(pwd.getpwnam(name).pw_dir, 0o700)
    if passwords:
        _run(["chpasswd"], stdin="".join(f"{n}:{p}\n" for n, p in passwords.items()))
    return passwords


def processes_of(uid: int) -> list[int]:
    """The ids of the processes running as ``uid`` (from /proc)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def end_processes(uid: int, timeout: float = 10) -> None:
    """SIGTERM each process of ``uid`` by its id, then SIGKILL what is left."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in processes_of(uid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + timeout
        while processes_of(uid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if not processes_of(uid):
            return


def remove(names: tuple[str, ...], comment: str = COMMENT) -> list[str]:
    """Delete the accounts of ``names`` whose comment is ``comment`` (with their homes); the names removed."""
    removed = []
    for name in names:
        try:
            pw = pwd.getpwnam(name)
        except KeyError:
            continue
        if pw.pw_gecos != comment:
            print(f"{name}: not made by this tool (comment {pw.pw_gecos!r}); left alone", file=sys.stderr)
            continue
        end_processes(pw.pw_uid)
        _run(["userdel", "--remove", name])
        removed.append(name)
    return removed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=("create", "remove"))
    ap.add_argument("--roster", type=Path, default=Path("/etc/msgmodel-class/roster.toml"))
    ap.add_argument("--passwords", type=Path, help="create: where to write the new accounts' passwords (mode 0600)")
    ap.add_argument("--comment", default=COMMENT, help=argparse.SUPPRESS)  # the tests mark their accounts
    args = ap.parse_args(argv)
    roster = roster_for_root(args.roster, "accounts.py", "it creates and removes Unix accounts")
    if args.command == "remove":
        removed = remove(roster.everyone, args.comment)
        print(f"removed {len(removed)} account(s)")
        return 0
    if args.passwords is None:
        raise SystemExit("create needs --passwords FILE: where to write the new accounts' passwords")
    passwords = create(roster.everyone, args.comment)
    fd = os.open(args.passwords, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as out:
        out.writelines(f"{n} {p}\n" for n, p in passwords.items())
    os.chmod(args.passwords, 0o600)
    print(f"created {len(passwords)} account(s); their passwords are in {args.passwords}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
