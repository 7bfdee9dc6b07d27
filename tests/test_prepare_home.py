"""The Hub's home preparation (classroom/prepare_home.py) never follows a student's link (issue 22).

The Hub runs as root. Before, its hook prepared a student's home in the Hub's own process: a
student who planted ``~/.tmp -> /etc`` made root ``chmod 0700 /etc`` on the next spawn, and a
dangling ``~/notebooks/01_….ipynb -> /etc/cron.d/x`` made root create that file. Now the hook
runs ``prepare_home.py`` as the student, and the script itself never follows a link it finds.

Both are tested here with a temporary directory standing in for ``/etc``: as the user running
the tests (what test mode does, and the script's own refusal to follow links), and, when the
tests run as root (CI), exactly as the Hub runs it: the same command line in a child switched
to a throw-away uid that has no account and owns nothing but the home. ``make test-hub-real``
repeats the attack with real accounts, real ``/etc`` and a real spawn.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "classroom"))

import prepare_home  # noqa: E402

THROWAWAY_UID = 64_999  # no account: a child switched to it owns nothing but the home made for it


def _reachable_by_all(path: Path) -> bool:
    """Whether any user may run ``path``: it and every folder above it open to others."""
    real = path.resolve()
    return all(p.stat().st_mode & 0o001 for p in [real, *real.parents])


WORLD_PYTHON = next((p for p in ("/usr/bin/python3",) if Path(p).exists() and _reachable_by_all(Path(p))), None)
"""An interpreter every user may run (the class image's venv is built on it, not on a private pyenv)."""

as_root = pytest.mark.skipif(
    os.geteuid() != 0 or WORLD_PYTHON is None,
    reason="switching to another uid needs root (CI runs as root) and a Python every user may run",
)


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A temporary folder any uid may enter (pytest's own are 0700), holding a copy of the script."""
    base = Path(tempfile.mkdtemp(prefix="msgmodel-prepare-"))
    try:
        base.chmod(0o755)
        shutil.copy2(prepare_home.__file__, base / "prepare_home.py")
        (base / "prepare_home.py").chmod(0o644)
        yield base
    finally:
        shutil.rmtree(base)


def _as_throwaway(base: Path, home: Path, share: Path) -> subprocess.CompletedProcess[str]:
    """The Hub's command line for ``home``, run as the throw-away uid (the copy of the script in ``base``)."""
    assert WORLD_PYTHON is not None
    cmd = prepare_home.command(home, share, python=WORLD_PYTHON)
    cmd[2] = str(base / "prepare_home.py")
    return subprocess.run(
        cmd,
        user=THROWAWAY_UID,
        group=THROWAWAY_UID,
        extra_groups=[],
        umask=0o077,
        env=prepare_home.child_environment(home),
        cwd="/",
        capture_output=True,
        text=True,
        check=False,
    )


def _share(base: Path) -> Path:
    share = base / "share"
    for name in ("docs", "bench", "notebooks", "work"):
        (share / name).mkdir(parents=True)
    (share / "work" / "01_orphan_tool_result.ipynb").write_text(json.dumps({"cells": []}), encoding="utf-8")
    (share / "work" / "02_lost_tool_context.ipynb").write_text(json.dumps({"cells": []}), encoding="utf-8")
    for path in [share, *share.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return share


def _outside(base: Path) -> Path:
    """A stand-in for /etc: a directory of the test's user, mode 0755, with a cron.d/ inside."""
    etc = base / "etc"
    (etc / "cron.d").mkdir(parents=True)
    etc.chmod(0o755)
    (etc / "cron.d").chmod(0o755)
    return etc


def _plant(home: Path, etc: Path) -> None:
    """What the student plants before their next spawn: the links of the review."""
    (home / ".tmp").symlink_to(etc)
    work = home / "msgmodel" / "work"
    work.mkdir(parents=True)
    (work / "01_orphan_tool_result.ipynb").symlink_to(etc / "cron.d" / "x")
    (home / "msgmodel" / "docs").symlink_to(etc)  # where a link of ours belongs: theirs stays, followed by no one


def _snapshot(etc: Path) -> list[tuple[str, int, int]]:
    return sorted((str(p.relative_to(etc)), p.lstat().st_mode, p.lstat().st_uid) for p in [etc, *etc.rglob("*")])


def _assert_untouched_and_home_fixed(home: Path, etc: Path, before: list[tuple[str, int, int]]) -> None:
    assert _snapshot(etc) == before, "the preparation changed something outside the home"
    assert not os.path.lexists(etc / "cron.d" / "x")
    assert stat.S_IMODE(etc.stat().st_mode) == 0o755
    tmp = home / ".tmp"
    assert tmp.is_dir() and not tmp.is_symlink() and stat.S_IMODE(tmp.lstat().st_mode) == 0o700
    assert [p.name for p in home.glob(".tmp.moved-*")], "the planted link is kept aside, not followed"
    assert (home / "msgmodel" / "work" / "01_orphan_tool_result.ipynb").is_symlink()  # the student's, untouched
    assert (home / "msgmodel" / "work" / "02_lost_tool_context.ipynb").is_file()
    assert os.readlink(home / "msgmodel" / "docs") == str(etc)
    assert stat.S_IMODE(home.lstat().st_mode) == 0o700


def test_a_fresh_home_gets_its_copies_links_and_private_tmpdir(tmp_path: Path) -> None:
    share = _share(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    tmp = prepare_home.prepare(home, share)
    assert tmp == home / ".tmp" and stat.S_IMODE(tmp.stat().st_mode) == 0o700
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    work = home / "msgmodel" / "work"
    assert sorted(p.name for p in work.iterdir()) == ["01_orphan_tool_result.ipynb", "02_lost_tool_context.ipynb"]
    for name in prepare_home.SHARED:
        assert os.readlink(home / "msgmodel" / name) == str(share / name)
    (work / "01_orphan_tool_result.ipynb").write_text("my work", encoding="utf-8")
    prepare_home.prepare(home, share)  # the next spawn
    assert (work / "01_orphan_tool_result.ipynb").read_text(encoding="utf-8") == "my work"


def test_planted_links_are_not_followed_by_the_script(tmp_path: Path) -> None:
    """As the test's own user (test mode has no other): the script moves the .tmp link aside, creates nothing."""
    share, etc, home = _share(tmp_path), _outside(tmp_path), tmp_path / "home"
    home.mkdir()
    _plant(home, etc)
    before = _snapshot(etc)
    prepare_home.prepare(home, share)
    _assert_untouched_and_home_fixed(home, etc, before)


@as_root
def test_root_prepares_a_home_only_as_its_student(open_dir: Path) -> None:
    """Root runs the Hub's command line, switched to the student's uid: /etc's stand-in stays as it was."""
    share, etc, home = _share(open_dir), _outside(open_dir), open_dir / "home"
    home.mkdir()
    _plant(home, etc)
    for path in [home, *home.rglob("*")]:
        os.lchown(path, THROWAWAY_UID, THROWAWAY_UID)
    before = _snapshot(etc)
    done = _as_throwaway(open_dir, home, share)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(home / ".tmp")
    _assert_untouched_and_home_fixed(home, etc, before)
    assert (home / ".tmp").lstat().st_uid == THROWAWAY_UID  # the student's own TMPDIR, not root's
    assert (home / "msgmodel" / "work" / "02_lost_tool_context.ipynb").lstat().st_uid == THROWAWAY_UID


@as_root
def test_the_script_refuses_a_home_that_is_not_the_students(open_dir: Path) -> None:
    """A home that is a link, or someone else's directory, is not prepared at all."""
    share = _share(open_dir)
    roots = open_dir / "roots"
    roots.mkdir(mode=0o755)
    (open_dir / "link").symlink_to(roots)
    for home in (roots, open_dir / "link"):
        done = _as_throwaway(open_dir, home, share)
        assert done.returncode != 0 and "not a directory of uid" in done.stderr, done.stderr
    assert list(roots.iterdir()) == []
