"""The package as a library user installs it: a distribution name of its own, the wheel, the README's install line.

* The distribution is ``msgmodel-anthropic`` (``msgmodel`` on PyPI is an unrelated project, 4.1.1);
  the import name stays ``msgmodel``; the installed metadata says so and agrees with ``__version__``.
* The wheel holds the core and the local API, ``py.typed`` and the data, and not the course layer;
  an editable install (what the notebooks and the class image use) still imports the course.
* The README's install line, pointed at this repository's committed HEAD, installs into a fresh
  venv: ``import msgmodel`` and the ``msgmodel`` command work there, and ``[api]`` names the SDK.
* ``make lock`` keeps the project itself out of ``constraints.txt`` and nothing else.
"""

from __future__ import annotations

import email
import importlib.metadata
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import msgmodel

ROOT = Path(msgmodel.__file__).resolve().parent.parent
DIST = "msgmodel-anthropic"


def _pip(*args: str, python: str = sys.executable, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [python, "-m", "pip", "--disable-pip-version-check", "-q", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_the_distribution_has_a_name_of_its_own() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == DIST
    assert project["scripts"] == {"msgmodel": "msgmodel.__main__:main"}
    assert set(project["optional-dependencies"]) == {"api"}
    # the development venv installs this checkout under that name
    assert importlib.metadata.version(DIST) == msgmodel.__version__ == project["version"]
    files = importlib.metadata.distribution(DIST).read_text("top_level.txt") or "msgmodel"
    assert files.split() == ["msgmodel"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel built from a copy of the checkout's files (setuptools would reuse a stale ``build/lib`` in place)."""
    src, out = tmp_path_factory.mktemp("src"), tmp_path_factory.mktemp("wheel")
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
    )
    for name in filter(None, listed.stdout.decode().split("\0")):
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    done = _pip("wheel", str(src), "--no-deps", "-w", str(out))
    assert done.returncode == 0, done.stderr
    (built,) = out.glob("*.whl")
    return built


def test_the_wheel_holds_the_library_and_not_the_course(wheel: Path) -> None:
    assert wheel.name.startswith("msgmodel_anthropic-")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        info = next(n for n in names if n.endswith(".dist-info/METADATA"))
        meta = email.message_from_bytes(z.read(info))
    layers = {n.split("/")[1] for n in names if n.startswith("msgmodel/") and n.count("/") >= 2}
    assert layers == {"core", "api", "data"}
    shipped = ("py.typed", "data/known_request.json", "data/sample_claude_code_session.jsonl")
    assert {f"msgmodel/{f}" for f in shipped} <= set(names)
    assert not [n for n in names if n.startswith("msgmodel/course")]
    assert meta["Name"] == DIST
    requires = meta.get_all("Requires-Dist") or []
    assert any(r.startswith("msgspec") and "extra" not in r for r in requires)
    assert any(r.startswith("anthropic") and 'extra == "api"' in r for r in requires)


def test_an_editable_install_still_has_the_course() -> None:
    import msgmodel.course.legacy

    assert Path(msgmodel.course.legacy.__file__).is_relative_to(ROOT)


def _readme_install_line() -> str:
    readme = (ROOT / "README.md").read_text()
    first_screen = "\n".join(readme.splitlines()[:40])
    m = re.search(r'^pip install "(msgmodel-anthropic\[api\] @ git\+https://\S+@COMMIT)"$', first_screen, re.M)
    assert m, 'the README\'s first screen has no `pip install "msgmodel-anthropic[api] @ git+https://…@COMMIT"`'
    return m.group(1)


@pytest.mark.slow
def test_the_readme_install_line_installs_into_a_fresh_venv(tmp_path: Path) -> None:
    """The README's line, pointed at this checkout's HEAD by commit, without ``[api]`` (the SDK is 37 MB)."""
    line = _readme_install_line()
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    requirement = re.sub(r"git\+https://\S+@COMMIT", f"git+file://localhost{ROOT}@{head.stdout.strip()}", line)
    requirement = requirement.replace("[api]", "")
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True, timeout=120)
    python = str(tmp_path / "venv" / "bin" / "python")
    done = _pip("install", requirement, python=python)
    assert done.returncode == 0, done.stderr
    probe = (
        "import importlib.metadata, importlib.util, msgmodel\n"
        f"print(importlib.metadata.version({DIST!r}) == msgmodel.__version__, "
        "callable(msgmodel.from_api), importlib.util.find_spec('msgmodel.course') is None)\n"
    )
    out = subprocess.run([python, "-c", probe], capture_output=True, text=True, cwd=tmp_path, timeout=60, check=True)
    assert out.stdout.split() == ["True", "True", "True"]
    command = shutil.which("msgmodel", path=str(tmp_path / "venv" / "bin"))
    assert command is not None
    session = tmp_path / "s.jsonl"
    session.write_text('{"role":"user","content":"hi"}\n')
    checked = subprocess.run([command, "check", str(session)], capture_output=True, text=True, timeout=60)
    assert (checked.returncode, checked.stdout) == (0, f"{session}: ok (1 message)\n")


def _lock_filter() -> re.Pattern[str]:
    makefile = (ROOT / "Makefile").read_text()
    m = re.search(r"^lock: venv\n\t.*\| grep -v -i -E '([^']+)' > constraints\.txt$", makefile, re.M)
    assert m, "the Makefile's lock target changed shape"
    return re.compile(m.group(1).replace("$$", "$"), re.I)


@pytest.mark.parametrize(
    ("line", "dropped"),
    [
        ("msgmodel-anthropic==0.1.0", True),
        ("msgmodel_anthropic @ file:///work/msgmodel", True),
        ("msgmodel==4.1.1", False),  # not ours: if it were ever installed, the lock would say so
        ("msgspec==0.23.0", False),
        ("msgmodel-anthropic-extras==1.0", False),
    ],
)
def test_make_lock_leaves_out_the_project_itself(line: str, dropped: bool) -> None:
    assert bool(_lock_filter().search(line)) == dropped
