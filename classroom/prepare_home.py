"""Prepare a student's home for their server: their own copies of the chapters, the shared docs, a private TMPDIR.

    python -I prepare_home.py --home /home/student01 --share /opt/msgmodel-class/share

The Hub runs this before each spawn **as the student** (a child process with the student's uid,
gid and groups, umask 077; ``jupyterhub_config.py``), never as root: the home belongs to the
student, and everything in it (a link planted at ``~/.tmp``, a dangling link where a chapter
should be) can only ever reach what the student may reach. On top of that it never follows a
link it finds: every path is checked with ``lstat``, files are created with ``O_EXCL |
O_NOFOLLOW``, modes are set through a descriptor opened with ``O_NOFOLLOW``. What it makes:

``~``                       mode 0700: no other student may enter it
``~/msgmodel/``             the server's root (``notebook_dir``)
``~/msgmodel/work/``        the student's own copies of the chapters (blank, from ``share/work``);
                            made once each, never overwritten: a student's work survives a restart
``~/msgmodel/docs``, ``bench``, ``notebooks``   links to the class image's ``share/`` (read-only):
                            the student docs (no teacher's guide), the benchmarks, the chapters
                            with their outputs (the reading copy the student copies link to)
``~/.tmp/``                 mode 0700: ``TMPDIR`` and ``JUPYTER_RUNTIME_DIR`` (kernel connection
                            files and IPC sockets)

Something else where a directory belongs (a link, a file) is moved aside to
``NAME.moved-<time>`` and a fresh directory made; a link the student put where a link of ours
belongs is left alone. Prints the path of the private TMPDIR.
"""

from __future__ import annotations

import argparse
import os
import pwd
import shutil
import stat
import sys
import time
from pathlib import Path

SHARED = ("docs", "bench", "notebooks")
"""The folders of the class image's ``share/`` every home links to."""


def _private(path: Path, mode: int) -> None:
    """Set ``mode`` on the directory ``path`` itself, never on what a link there points to."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        os.fchmod(fd, mode)
    finally:
        os.close(fd)


def ensure_dir(path: Path, mode: int = 0o700) -> Path:
    """``path`` as a real directory of ours: made if missing; a link or a file there is moved aside first."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    if st is not None and not stat.S_ISDIR(st.st_mode):  # a symlink (even to a directory) or a file
        os.rename(path, path.with_name(f"{path.name}.moved-{time.strftime('%Y%m%d-%H%M%S')}"))
        st = None
    if st is None:
        os.mkdir(path, mode)
    _private(path, mode)
    return path


def ensure_link(link: Path, target: Path) -> None:
    """A symlink ``link`` -> ``target`` when nothing is there; whatever is there already stays (it is the student's)."""
    if not os.path.lexists(link):
        os.symlink(target, link)


def copy_new(source: Path, target: Path) -> bool:
    """Copy ``source`` to a *new* file ``target`` (never through a link, never over anything); ``False`` if taken."""
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    except FileExistsError:  # the student's copy, or anything they put there (a dangling link too)
        return False
    with os.fdopen(fd, "wb") as out, source.open("rb") as src:
        shutil.copyfileobj(src, out)
    return True


def prepare(home: Path, share: Path) -> Path:
    """Prepare ``home`` from the class image's ``share``; the private TMPDIR."""
    st = os.lstat(home)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
        raise SystemExit(f"{home} is not a directory of uid {os.geteuid()}: not preparing it")
    _private(home, 0o700)
    root = ensure_dir(home / "msgmodel")
    for name in SHARED:
        ensure_link(root / name, share / name)
    work = ensure_dir(root / "work")
    for chapter in sorted((share / "work").glob("[0-9][0-9]_*.ipynb")):
        copy_new(chapter, work / chapter.name)
    return ensure_dir(home / ".tmp", 0o700)


def command(home: Path, share: Path, python: str = sys.executable) -> list[str]:
    """The command line that prepares ``home``: this file, in isolated mode (no PYTHONPATH, no user site)."""
    return [python, "-I", str(Path(__file__).resolve()), "--home", str(home), "--share", str(share)]


def as_user(name: str) -> tuple[Path, dict[str, object]]:
    """A user's home, and the ``subprocess`` keywords that run a child as them (uid, gid, groups, umask 077)."""
    pw = pwd.getpwnam(name)
    groups = os.getgrouplist(name, pw.pw_gid)
    return Path(pw.pw_dir), {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": groups, "umask": 0o077}


def child_environment(home: Path) -> dict[str, str]:
    """The whole environment of the preparing child: nothing of the Hub's own."""
    return {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="the student's home (theirs, as this process)")
    parser.add_argument("--share", type=Path, required=True, help="the class image's share/ folder")
    args = parser.parse_args(argv)
    os.umask(0o077)
    print(prepare(args.home, args.share))
    return 0


if __name__ == "__main__":
    sys.exit(main())
