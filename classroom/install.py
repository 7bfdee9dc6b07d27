"""Install the class on this server: the class image every student reads, the teacher's course, the Hub.

    sudo python3 classroom/install.py install --roster /etc/msgmodel-class/roster.toml
    sudo python3 classroom/install.py publish-key        # the teacher turns reveal on (roster: reveal = true)
    sudo python3 classroom/install.py uninstall [--purge]
    python3 classroom/install.py share OUT              # the share/ folder alone (test mode, no root)

``install`` (as root, after ``classroom/accounts.py create``) writes, from this checkout:

``PREFIX`` (``/opt/msgmodel-class``), owned by root, readable by everyone, writable by no one else:
    ``venv/``       Python with the runtime requirements, JupyterHub and nbgrader, and msgmodel
                    installed from a copy of the package (not editable: nothing points back
                    into this checkout, and no answer key is installed: see
                    ``msgmodel.course.exercises.key``). nbgrader's student side is configured
                    (course id, exchange); its instructor extensions (formgrader, course list,
                    create assignment) are turned off for the students' servers.
    ``share/``      what a home links to: ``docs/`` (every document but the teacher's guide),
                    ``bench/``, ``notebooks/`` (the chapters with their outputs) and ``work/``
                    (the blank copies each student gets once, links fitted to a home)
    ``hub/``        ``jupyterhub_config.py``, ``prepare_home.py``, ``roster.py``, ``class.json``
                    (the paths below) and ``msgmodel-hub.service`` (a systemd unit)
    ``proxy/``      configurable-http-proxy (``classroom/node_modules``, from npm)
``STATE`` (``/srv/msgmodel-hub``), mode 0700: the Hub's database and cookie secret.
``COURSE`` (``/srv/msgmodel-course``), the first teacher's, mode 0700: the nbgrader course
    (``scripts/nbgrader_course.py``: the source assignments hold the answer key) and its
    gradebook, with every student of the roster in it.
``EXCHANGE`` (``/srv/nbgrader/exchange``), mode 1777: where nbgrader releases and collects.

Installing again updates the image and regenerates ``source/``; the gradebook and everything
collected stay. ``uninstall`` removes the image and the state; ``--purge`` also the course and
the exchange (grades included).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import pwd
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from roster import roster_for_root  # noqa: E402

PREFIX = Path("/opt/msgmodel-class")
STATE = Path("/srv/msgmodel-hub")
COURSE = Path("/srv/msgmodel-course")
EXCHANGE = Path("/srv/nbgrader/exchange")
ROSTER = Path("/etc/msgmodel-class/roster.toml")

HUB_FILES = ("jupyterhub_config.py", "prepare_home.py", "roster.py")
STUDENT_OFF = {
    "server": ("nbgrader.server_extensions.formgrader", "nbgrader.server_extensions.course_list"),
    "lab": ("@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:course-list", "@jupyter/nbgrader:create-assignment"),
}
"""nbgrader's instructor parts, turned off in the students' servers (the teacher uses the command line)."""

UNIT = """\
[Unit]
Description=JupyterHub of the msgmodel class ({prefix})
After=network.target

[Service]
User=root
WorkingDirectory={state}
ExecStart={prefix}/venv/bin/jupyterhub -f {prefix}/hub/jupyterhub_config.py
Restart=on-failure

[Install]
WantedBy=multi-user.target
"""


_STARTED = time.monotonic()


def step(what: str) -> None:
    """Say what install does now (seconds since it started)."""
    print(f"[{time.monotonic() - _STARTED:6.1f} s] {what}", flush=True)


def run(cmd: list[str], **kw: object) -> None:
    """Run ``cmd``; on failure, exit with its output (no traceback)."""
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)  # type: ignore[call-overload]
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{(done.stdout + done.stderr)[-3000:]}")


# ---------------------------------------------------------------------------------------
# share/: what every home links to
# ---------------------------------------------------------------------------------------


def write_share(out: Path) -> None:
    """The class image's ``share/``: student docs, benchmarks, the chapters with outputs, the blank copies."""
    sys.path.insert(0, str(REPO / "scripts"))
    import build_student

    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    docs = out / "docs"
    docs.mkdir()
    for doc in sorted([*(REPO / "docs").glob("*.md"), *(REPO / "docs").glob("*.svg")]):  # the handout's diagram
        if not doc.name.startswith("teacher-guide"):  # the answer key stays with the teacher, in every language
            shutil.copy2(doc, docs / doc.name)
    shutil.copytree(REPO / "bench", out / "bench", ignore=shutil.ignore_patterns("__pycache__"))
    (out / "notebooks").mkdir()
    for chapter in build_student.chapters():
        shutil.copy2(chapter, out / "notebooks" / chapter.name)
    build_student.build(out / "work", up="..")


# ---------------------------------------------------------------------------------------
# install
# ---------------------------------------------------------------------------------------


def _name(line: str) -> str:
    return re.split(r"[=<>!~; ]", line, maxsplit=1)[0].strip().lower().replace("_", "-")


def _requirements(tmp: Path) -> Path:
    """The class image's requirements, without the editable install, and its constraints.

    The constraints are ``constraints.txt`` with the packages ``classroom/hub-constraints.txt`` pins
    taken from there instead (``hub-constraints.txt`` says why).
    """
    hub_pins = [line.strip() for line in (HERE / "hub-constraints.txt").read_text(encoding="utf-8").splitlines()]
    hub_pins = [line for line in hub_pins if line and not line.startswith("#")]
    replaced = {_name(line) for line in hub_pins}
    pins = [line.strip() for line in (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines()]
    pins = [line for line in pins if line and not line.startswith("#") and _name(line) not in replaced]
    (tmp / "constraints.txt").write_text("\n".join([*pins, *hub_pins]) + "\n", encoding="utf-8")
    lines = [f"-c {tmp / 'constraints.txt'}"]
    for source in (REPO / "requirements.txt", HERE / "requirements.txt"):
        for line in source.read_text(encoding="utf-8").splitlines():
            bare = line.split("#")[0].strip()
            if bare and not bare.startswith(("-e", "-r", "-c")):
                lines.append(bare)
    path = tmp / "requirements.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


LIBRARY_EXCLUDE = 'exclude = ["msgmodel.course", "msgmodel.course.*"]\n'
LIBRARY_DATA = 'msgmodel = ["py.typed", "data/*"]\n'


def class_image_pyproject(text: str) -> str:
    """The project file a class image is built with: the library's, with the course layer kept in the wheel.

    The library wheel leaves ``msgmodel.course`` out (the notebooks run from a checkout, editable);
    a class image has no checkout, so its wheel keeps the course, the sealed closed answers and the
    course's compiled catalogs (``msgmodel.course.i18n``: the Chinese chapters print through them).
    """
    if LIBRARY_EXCLUDE not in text or LIBRARY_DATA not in text:
        raise SystemExit("pyproject.toml: the course exclusion or the package data changed; update install.py")
    text = text.replace(LIBRARY_EXCLUDE, "")
    return text.replace(
        LIBRARY_DATA,
        'msgmodel = ["py.typed", "data/*", "course/exercises/closed_answers*.json", '
        '"course/locale/*/LC_MESSAGES/*.mo"]\n',
    )


def _package_copy(tmp: Path) -> Path:
    """A copy of what the package is built from (so the build writes nothing into the checkout).

    The closed questions' answers go in sealed (``msgmodel.course.exercises.closed``): the copy has
    ``closed_answers.sealed.json`` and no ``closed_answers.json``.
    """
    src = tmp / "msgmodel-src"
    src.mkdir()
    for name in ("README.md", "LICENSE"):
        shutil.copy2(REPO / name, src / name)
    (src / "pyproject.toml").write_text(class_image_pyproject((REPO / "pyproject.toml").read_text("utf-8")), "utf-8")
    shutil.copytree(REPO / "msgmodel", src / "msgmodel", ignore=shutil.ignore_patterns("__pycache__"))
    exercises = src / "msgmodel" / "course" / "exercises"
    spec = importlib.util.spec_from_file_location("closed", exercises / "closed.py")  # stdlib only: no msgspec here
    assert spec is not None and spec.loader is not None
    closed = importlib.util.module_from_spec(spec)
    sys.modules["closed"] = closed  # dataclasses looks its module up
    spec.loader.exec_module(closed)
    plain = json.loads((exercises / "closed_answers.json").read_text(encoding="utf-8"))
    sealed = json.dumps(closed.sealed_form(plain), indent=1)
    (exercises / "closed_answers.sealed.json").write_text(sealed, encoding="utf-8")
    (exercises / "closed_answers.json").unlink()
    return src


def open_to_all(path: Path) -> bool:
    """Whether every user may run ``path``: it and each folder above it open to others."""
    real = path.resolve()
    return all(p.stat().st_mode & 0o001 for p in [real, *real.parents])


def build_venv(prefix: Path) -> None:
    """``prefix/venv``: the runtime, JupyterHub, nbgrader, and msgmodel itself (not editable)."""
    if not open_to_all(Path(sys.executable)):
        raise SystemExit(
            f"the class image's Python must be one every student may run; {Path(sys.executable).resolve()} is in a "
            "private folder. Run install.py with Debian's /usr/bin/python3 (apt install python3-venv)."
        )
    venv = prefix / "venv"
    if not (venv / "bin" / "python").exists():
        run([sys.executable, "-m", "venv", str(venv)])
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    run([*pip, "--upgrade", "pip"])  # Debian's pip 23 cannot read some of today's wheels' metadata
    with tempfile.TemporaryDirectory() as tmp:
        run([*pip, "-r", str(_requirements(Path(tmp)))])
        run([*pip, "--no-deps", "--force-reinstall", str(_package_copy(Path(tmp)))])
    step("nbgrader's instructor extensions off for students")
    turn_off_instructor_extensions(venv / "etc" / "jupyter")


def turn_off_instructor_extensions(etc_jupyter: Path) -> None:
    """What ``jupyter server extension disable --sys-prefix`` and ``jupyter labextension disable
    --level=sys_prefix`` write for ``STUDENT_OFF``, written directly (the commands take a minute on a busy server)."""
    server = {"ServerApp": {"jpserver_extensions": dict.fromkeys(STUDENT_OFF["server"], False)}}
    (etc_jupyter / "jupyter_server_config.json").write_text(json.dumps(server, indent=2) + "\n", encoding="utf-8")
    (etc_jupyter / "labconfig").mkdir(exist_ok=True)
    lab = {"disabledExtensions": dict.fromkeys(STUDENT_OFF["lab"], True)}
    (etc_jupyter / "labconfig" / "page_config.json").write_text(json.dumps(lab, indent=2) + "\n", encoding="utf-8")


def nbgrader_student_config(course_id: str, exchange: Path) -> str:
    """nbgrader's configuration for the students' servers (and the teacher's commands): course and exchange."""
    return (
        "# nbgrader, for every user of the class image (written by classroom/install.py).\n"
        "import os\n\n"
        "c = get_config()  # noqa: F821\n"
        f"c.CourseDirectory.course_id = {course_id!r}\n"
        f"c.Exchange.root = {str(exchange)!r}\n"
        "# Fetched assignments land in the server's root, beside docs/ and work/ (nbgrader's default, '.', is the\n"
        "# server process's working directory: the home, where the assignment's links would not resolve).\n"
        'c.Exchange.assignment_dir = os.path.join(os.path.expanduser("~"), "msgmodel")\n'
    )


def lock_down(prefix: Path) -> None:
    """Everything under ``prefix`` owned by root, with no write bit for group or others."""
    for path in [prefix, *prefix.rglob("*")]:
        st = os.lstat(path)
        os.lchown(path, 0, 0)
        if not stat.S_ISLNK(st.st_mode):
            os.chmod(path, stat.S_IMODE(st.st_mode) & ~0o022)


def install_course(
    prefix: Path, course: Path, course_id: str, exchange: Path, teacher: str, students: tuple[str, ...]
) -> None:
    """The teacher's nbgrader course: config and source assignments (regenerated), the students in the gradebook."""
    python = str(prefix / "venv" / "bin" / "python")
    course.mkdir(parents=True, exist_ok=True)
    if (course / "source").exists():
        shutil.rmtree(course / "source")
    run(
        [
            python,
            str(REPO / "scripts" / "nbgrader_course.py"),
            "--out",
            str(course),
            "--course-id",
            course_id,
            "--exchange",
            str(exchange),
        ]
    )
    (course / "students.csv").write_text("id\n" + "".join(f"{s}\n" for s in students), encoding="utf-8")
    run(["chown", "-R", f"{teacher}:", str(course)])
    os.chmod(course, 0o700)
    as_teacher(prefix, teacher, course, ["nbgrader", "db", "student", "import", "students.csv"])


def teacher_command(prefix: Path, teacher: str, cmd: list[str]) -> list[str]:
    """``cmd`` run as the teacher with the class image's tools first on PATH (nbgrader runs alembic by name)."""
    home = pwd.getpwnam(teacher).pw_dir
    env = ["env", "-i", f"PATH={prefix / 'venv' / 'bin'}:/usr/bin:/bin", "LANG=C.UTF-8", f"HOME={home}"]
    return ["runuser", "-u", teacher, "--", *env, *cmd]


def as_teacher(prefix: Path, teacher: str, course: Path, cmd: list[str]) -> None:
    """Run an nbgrader command as the teacher, in the course directory."""
    run(teacher_command(prefix, teacher, cmd), cwd=course)


def install(args: argparse.Namespace) -> int:
    roster = roster_for_root(args.roster, "install", "it writes the class image and runs commands as the teacher")
    teacher = roster.teachers[0]
    try:
        pwd.getpwnam(teacher)
    except KeyError:
        raise SystemExit(f"teacher {teacher!r} has no account here: run classroom/accounts.py create first") from None
    prefix: Path = args.prefix
    os.umask(0o022)
    prefix.mkdir(parents=True, exist_ok=True)
    step(f"the image's Python: {prefix / 'venv'} (pip, from {sys.executable})")
    build_venv(prefix)
    step("share/: the student docs, the chapters, the blank copies")
    (prefix / "venv" / "etc" / "jupyter" / "nbgrader_config.py").write_text(
        nbgrader_student_config(roster.course, args.exchange), encoding="utf-8"
    )
    run([str(prefix / "venv" / "bin" / "python"), str(Path(__file__).resolve()), "share", str(prefix / "share")])
    step("hub/ and proxy/")
    hub = prefix / "hub"
    hub.mkdir(exist_ok=True)
    for name in HUB_FILES:
        shutil.copy2(HERE / name, hub / name)
    proxy = prefix / "proxy"
    if proxy.exists():
        shutil.rmtree(proxy)
    proxy.mkdir()
    for name in ("package.json", "package-lock.json"):
        shutil.copy2(HERE / name, proxy / name)
    if (HERE / "node_modules" / ".bin" / "configurable-http-proxy").exists():
        shutil.copytree(HERE / "node_modules", proxy / "node_modules", symlinks=True)
    else:
        run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=proxy)
    settings = {
        "roster": str(args.roster.resolve()),
        "state": str(args.state),
        "share": str(prefix / "share"),
        "venv": str(prefix / "venv"),
        "proxy": str(proxy / "node_modules" / ".bin" / "configurable-http-proxy"),
        "course": str(args.course),
        "exchange": str(args.exchange),
    }
    (hub / "class.json").write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    (hub / "msgmodel-hub.service").write_text(UNIT.format(prefix=prefix, state=args.state), encoding="utf-8")
    step("owner root, no write for anyone else")
    lock_down(prefix)
    args.state.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(args.state, 0o700)
    args.exchange.mkdir(parents=True, exist_ok=True)
    os.chmod(args.exchange, 0o1777)  # students write their submissions into it (nbgrader's inbound is 2733)
    step(f"the course: {args.course} ({teacher}'s), the exchange: {args.exchange}")
    install_course(prefix, args.course, roster.course, args.exchange, teacher, roster.students)
    print(f"installed: image {prefix}, state {args.state}, course {args.course} ({teacher}), exchange {args.exchange}")
    return 0


def published_key() -> str:
    """The answer key as ``publish-key`` writes it into the image: only the guide's key blocks, in id order."""
    spec = importlib.util.spec_from_file_location("key", REPO / "msgmodel" / "course" / "exercises" / "key.py")
    assert spec is not None and spec.loader is not None
    key_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(key_module)
    key: dict[str, str] = key_module.load_key(REPO / "docs" / "teacher-guide.md")
    blocks = "".join(f"<!-- key: {i} -->\n```python\n{code}```\n\n" for i, code in sorted(key.items()))
    return f"# The answer key\n\n{blocks}"


def publish_key(args: argparse.Namespace) -> int:
    """Copy the answer key into the image (``PREFIX/key``), for a roster with ``reveal = true``."""
    if os.geteuid() != 0:
        raise SystemExit("publish-key runs as root (sudo): it writes into the class image")
    out = args.prefix / "key"
    out.mkdir(mode=0o755, exist_ok=True)
    text = published_key()
    (out / "teacher-guide.md").write_text(text, encoding="utf-8")
    lock_down(args.prefix)
    n = text.count("<!-- key: ")
    print(f"{n} key blocks in {out / 'teacher-guide.md'}; set reveal = true in the roster and restart the Hub")
    return 0


def uninstall(args: argparse.Namespace) -> int:
    if os.geteuid() != 0:
        raise SystemExit("uninstall runs as root (sudo)")
    for path in (args.prefix, args.state, *((args.course, args.exchange) if args.purge else ())):
        shutil.rmtree(path, ignore_errors=True)
        print(f"removed {path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)

    def places(p: argparse.ArgumentParser) -> None:
        p.add_argument("--prefix", type=Path, default=PREFIX, help=f"the class image (default {PREFIX})")
        p.add_argument("--state", type=Path, default=STATE, help=f"the Hub's state (default {STATE})")
        p.add_argument("--course", type=Path, default=COURSE, help=f"the nbgrader course (default {COURSE})")
        p.add_argument("--exchange", type=Path, default=EXCHANGE, help=f"nbgrader's exchange (default {EXCHANGE})")

    p = sub.add_parser("install", help="the image, the state, the course and the exchange (root)")
    places(p)
    p.add_argument("--roster", type=Path, default=ROSTER, help=f"the roster (default {ROSTER})")
    p = sub.add_parser("publish-key", help="copy the answer key into the image (for reveal = true)")
    p.add_argument("--prefix", type=Path, default=PREFIX)
    p = sub.add_parser("uninstall", help="remove the image and the state (--purge: the course and exchange too)")
    places(p)
    p.add_argument("--purge", action="store_true")
    p = sub.add_parser("share", help="write the share/ folder alone (no root needed)")
    p.add_argument("out", type=Path)
    args = ap.parse_args(argv)
    if args.command == "share":
        write_share(args.out)
        return 0
    return {"install": install, "publish-key": publish_key, "uninstall": uninstall}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
