"""docs/library-guide.md runs as written: every ```python block, in order, in one namespace, in a fresh
directory; a ```text block right after one is exactly what it printed; the ``test_*`` functions the
guide defines pass with the ``msgmodel_api`` fixture's kit; the ``msgmodel`` shell lines run (``serve``
prints its URL on stdout); the TOML script parses; the pre-commit hook id exists.

Review finding M6 (no docs for using msgmodel as a library) is held fixed by this file.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from msgmodel.api.script_file import read_script
from msgmodel.api.testing import LocalKit

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "library-guide.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
BIN = Path(sys.executable).parent
ENV = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "MSGMODEL_LIVE")}


def blocks() -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(GUIDE.read_text(encoding="utf-8"))]


def test_the_guide_has_one_section_per_use() -> None:
    heads = re.findall(r"^## (.+)$", GUIDE.read_text(encoding="utf-8"), re.MULTILINE)
    assert heads == [
        "Install",
        "Validate before you send",
        "Constructors and readers with the SDK",
        "The testing kit and the pytest plugin",
        "Error turns and retries",
        "Compaction of a long tool loop",
        "Sessions with a header",
        "Check in CI and pre-commit",
        "Claude Code import",
        "Going live",
    ]
    assert "docs/library-guide.md" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_python_block_runs_and_prints_what_the_guide_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("ANTHROPIC_API_KEY", "MSGMODEL_LIVE"):
        monkeypatch.delenv(name, raising=False)
    namespace: dict[str, object] = {"__name__": "library_guide"}
    listed = blocks()
    ran = 0
    for i, (lang, code) in enumerate(listed):
        if lang != "python":
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"{GUIDE.name} block {i}", "exec"), namespace)
        ran += 1
        follows = listed[i + 1] if i + 1 < len(listed) else None
        if follows is not None and follows[0] == "text":
            assert out.getvalue() == follows[1], f"block {i} printed:\n{out.getvalue()}"
        else:
            assert out.getvalue() == "", f"block {i} prints, but the guide shows no output after it"
    assert ran >= 9
    tests = [(n, f) for n, f in namespace.items() if n.startswith("test_") and inspect.isfunction(f)]
    assert tests, "the guide shows a test using the msgmodel_api fixture"
    for _, fn in tests:
        kit = LocalKit()
        fn(msgmodel_api=kit)
        kit.assert_all_used()  # what the fixture checks at teardown


def test_the_toml_script_and_the_shell_lines_run(tmp_path: Path) -> None:
    (tmp_path / "session.jsonl").write_text('{"role": "user", "content": "hi"}\n')
    listed = blocks()
    toml = [code for lang, code in listed if lang == "toml"]
    assert len(toml) == 1
    script = read_script(toml[0], toml=True)
    assert len(script.turns) == 5
    (tmp_path / "agent-script.toml").write_text(toml[0])
    lines = [ln.split("#")[0].strip() for lang, code in listed if lang == "sh" for ln in code.splitlines()]
    commands = [shlex.split(ln) for ln in lines if ln.startswith("msgmodel ")]
    assert [c[1] for c in commands] == ["serve", "check", "check"]
    for command in commands:
        argv = [str(BIN / "msgmodel"), *command[1:]]
        if command[1] == "serve":
            proc = subprocess.Popen(
                argv, cwd=tmp_path, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
            )
            try:
                assert proc.stdout is not None
                assert re.fullmatch(r"http://127\.0\.0\.1:\d+\n", proc.stdout.readline())
            finally:
                proc.send_signal(signal.SIGINT)
                assert proc.wait(20) == 0
        else:
            done = subprocess.run(argv, cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, done.stdout + done.stderr
    assert any(ln.startswith('pip install "msgmodel-anthropic[api] @ git+https://') for ln in lines)


def test_the_pre_commit_snippet_names_the_hook_this_repository_defines() -> None:
    yaml = [code for lang, code in blocks() if lang == "yaml"]
    assert len(yaml) == 1
    hook = re.search(r"- id: (\S+)", yaml[0])
    assert hook is not None
    assert f"- id: {hook.group(1)}\n" in (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
