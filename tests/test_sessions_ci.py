"""Sessions and CI (issue 24, review m5, m6, m11): session headers, ``check`` on directories and new sessions,
``check --json``'s fields, and the repository's pre-commit hook.

* ``storage.save(path, messages, header=...)`` / ``load(path).header`` round-trip a typed
  ``SessionHeader`` (model, system prompt, tools, session id, metadata, and unknown keys), older
  files load with ``header is None``, the torn-tail logic and ``repair`` work with a header, and the
  Claude Code importer is unaffected;
* ``check`` validates a session with its header's model and tools, reads a directory's session
  files, calls an empty session ok, and puts a bad line's number in ``line``, not in ``file``;
* ``.pre-commit-hooks.yaml`` is a valid pre-commit manifest whose entry works on good and bad files,
  and (slow) pre-commit itself runs it from this repository.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies_msg import json_objects, message_lists, short_texts, text_blocks

import msgmodel
from msgmodel.core import storage
from msgmodel.core.claude_code import import_claude_code, is_claude_code_session, sample_session_path
from msgmodel.core.cli import TORN_HINT, main
from msgmodel.core.message import (
    ToolUseBlock,
    assistant_msg,
    assistant_text,
    system_text,
    tool_result_block,
    tool_result_msg,
    user_text,
)
from msgmodel.core.storage import HEADER_KEY, SessionHeader, StorageError

ROOT = Path(msgmodel.__file__).resolve().parent.parent

HEADER = SessionHeader(
    session_id="sess_01",
    model="claude-sonnet-4-6",
    system="You are a careful coding agent.",
    tools=[{"name": "read_file", "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}],
    metadata={"user": "ada", "started": "2026-12-02T10:00:00Z"},
)
LOOP = [
    user_text("What is in setup.cfg?"),
    assistant_msg([ToolUseBlock("toolu_01", "read_file", {"path": "setup.cfg"})]),
    tool_result_msg([tool_result_block("toolu_01", "[metadata]\nname = demo")]),
]


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # `check` names files as given: relative names, in tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------------------------------
# The session header (m11)
# ---------------------------------------------------------------------------------------


def test_a_session_header_round_trips_and_is_the_first_line(tmp_path: Path) -> None:
    # Before: a header line was damage ("$.type: unexpected field"); an agent needed a sidecar file.
    path = tmp_path / "s.jsonl"
    storage.save(path, LOOP, header=HEADER)
    first = json.loads(path.read_text().splitlines()[0])
    assert first == {HEADER_KEY: 1, **{k: v for k, v in HEADER.to_json().items() if k != HEADER_KEY}}
    loaded = storage.load(path)
    assert loaded.header == HEADER and loaded.messages == LOOP and loaded.ok
    assert loaded.line_numbers == (2, 3, 4)


def test_older_files_load_without_a_header(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    storage.save(path, LOOP)
    assert storage.load(path).header is None and storage.load(path).messages == LOOP


def test_a_new_session_starts_with_its_header_and_appends(tmp_path: Path) -> None:
    path = tmp_path / "new.jsonl"
    storage.save(path, [], header=HEADER)
    storage.append(path, LOOP[:1])
    storage.append(path, LOOP[1:])
    loaded = storage.load(path)
    assert (loaded.header, loaded.messages) == (HEADER, LOOP)


def test_the_torn_tail_and_repair_work_after_a_header(tmp_path: Path) -> None:
    path = tmp_path / "torn.jsonl"
    storage.save(path, LOOP, header=HEADER)
    with path.open("ab") as f:
        f.write(b'{"role":"assistant","content":[{"type":"te')  # a crash inside append
    loaded = storage.load(path, strict=True)
    assert loaded.header == HEADER and loaded.messages == LOOP and loaded.torn is not None
    with pytest.raises(StorageError, match="torn line"):
        storage.append(path, [user_text("more")])
    cut = storage.repair(path)
    assert cut is not None and cut.line == 5
    storage.append(path, [user_text("more")])
    assert storage.load(path).messages == [*LOOP, user_text("more")]
    # a header alone, torn: the file is cut back to nothing, and a new header can be saved
    path.write_bytes(b'{"msgmodel_session": 1, "mod')
    assert storage.load(path).torn is not None and storage.repair(path) is not None and path.read_bytes() == b""


def test_a_header_is_valid_only_on_the_first_line_and_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    storage.save(path, LOOP)
    with path.open("a") as f:
        f.write(json.dumps(HEADER.to_json()) + "\n")
    (problem,) = storage.load(path).problems
    assert (problem.line, problem.reason) == (4, "a session header is only valid as the first line of a session file")
    path.write_text('{"msgmodel_session": 1, "tools": {"name": "x"}}\n{"role": "user", "content": "hi"}\n')
    loaded = storage.load(path)
    assert loaded.messages == [user_text("hi")] and loaded.header is None
    assert [str(p) for p in loaded.problems] == [
        f"{path}:1: session header: $.tools: expected an array of tool definitions (objects), got dict"
    ]
    with pytest.raises(StorageError, match=r":1: session header: \$\.tools"):
        storage.load(path, strict=True)


def test_save_refuses_what_is_not_a_header(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="not a SessionHeader"):
        storage.save(tmp_path / "s.jsonl", LOOP, header={"model": "x"})  # type: ignore[arg-type]
    with pytest.raises(StorageError, match="session header cannot be written as JSON"):
        storage.save(tmp_path / "s.jsonl", LOOP, header=SessionHeader(metadata={"ratio": float("nan")}))
    assert not (tmp_path / "s.jsonl").exists()


def test_the_claude_code_importer_is_unaffected() -> None:
    data = sample_session_path().read_bytes()
    session = import_claude_code(data, name="sample")
    assert len(session.messages) == 11 and len(session.skipped) == 33
    header_file = [json.dumps(HEADER.to_json()).encode(), b'{"role":"user","content":"hi"}']
    assert not is_claude_code_session(header_file)


_headers = st.builds(
    SessionHeader,
    session_id=st.none() | short_texts,
    model=st.none() | short_texts,
    system=st.none() | short_texts | st.lists(text_blocks, max_size=2),
    tools=st.none() | st.lists(json_objects, max_size=2),
    metadata=st.none() | json_objects,
    extra=st.none()
    | st.dictionaries(
        short_texts.filter(lambda k: k not in {HEADER_KEY, "session_id", "model", "system", "tools", "metadata"}),
        st.integers() | short_texts,
        min_size=1,
        max_size=2,
    ),
)


@settings(max_examples=100)
@given(_headers, message_lists)
def test_any_header_and_messages_round_trip(
    tmp_path_factory: pytest.TempPathFactory, header: Any, messages: Any
) -> None:
    path = tmp_path_factory.mktemp("h") / "s.jsonl"
    storage.save(path, messages, header=header)
    loaded = storage.load(path, strict=True)
    assert (loaded.header, loaded.messages) == (header, messages)


# ---------------------------------------------------------------------------------------
# check: headers, directories, new sessions, --json (m5, m6)
# ---------------------------------------------------------------------------------------


def test_check_validates_a_session_with_its_headers_model_and_tools(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with_system = [*LOOP, system_text("Answer in French."), assistant_text("Oui.")]
    storage.save(tmp_path / "s.jsonl", with_system, header=HEADER)  # sonnet-4-6 takes no mid-conversation system
    code, out, _ = run(capsys, "check", "s.jsonl")
    assert code == 1 and out.startswith("s.jsonl:5: role 'system' is not supported on this model\n")
    assert run(capsys, "check", "--model", "claude-opus-4-8", "s.jsonl")[:2] == (
        0,
        "s.jsonl: ok (5 messages; a session with a header (model claude-sonnet-4-6))\n",
    )
    storage.save(tmp_path / "t.jsonl", LOOP, header=SessionHeader(tools=[]))  # no tools, yet tool blocks
    code, out, _ = run(capsys, "check", "t.jsonl")
    assert code == 1 and "must define tools" in out
    storage.save(tmp_path / "h.jsonl", [], header=HEADER)
    assert run(capsys, "check", "h.jsonl") == (
        0,
        "h.jsonl: ok (0 messages; a session with a header (model claude-sonnet-4-6))\n",
        "",
    )


def test_check_reads_the_session_files_of_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Before: a directory argument was exit 2 ("is a directory").
    sessions = tmp_path / "sessions"
    (sessions / "sub").mkdir(parents=True)
    (sessions / ".hidden").mkdir()
    storage.save(sessions / "a.jsonl", LOOP)
    (sessions / "sub" / "b.json").write_text(json.dumps([{"role": "user", "content": "hi"}]))
    (sessions / "sub" / "c.jsonl").write_text(msgmodel.to_json(LOOP[2:]).decode()[1:-1] + "\n")  # an orphan
    (sessions / ".hidden" / "d.jsonl").write_text("not json\n")  # skipped
    (sessions / "notes.txt").write_text("not a session\n")  # skipped
    (sessions / ".a.jsonl.1f2e.tmp").write_text("{")  # a save in flight: skipped
    os.symlink(tmp_path, sessions / "loop")  # a link to a directory is not followed
    code, out, err = run(capsys, "check", str(sessions))
    assert code == 1 and err == ""
    assert re.findall(r"^(\S+?):(?:\d+:)? ", out, re.M) == [
        f"{sessions}/a.jsonl",
        f"{sessions}/sub/b.json",
        f"{sessions}/sub/c.jsonl",
    ]
    code, out, _ = run(capsys, "check", "--json", str(sessions))
    assert code == 1 and [(f["file"], f["line"]) for f in json.loads(out)] == [(f"{sessions}/sub/c.jsonl", 1)]


@pytest.mark.parametrize("content", ["", "\n\n", " \t\n"])
def test_an_empty_session_file_is_not_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str
) -> None:
    # Before: exit 2, "empty file".
    (tmp_path / "new.jsonl").write_text(content)
    assert run(capsys, "check", "new.jsonl") == (0, "new.jsonl: ok (0 messages; an empty session)\n", "")
    assert run(capsys, "check", "--json", "new.jsonl") == (0, "[]\n", "")


def test_check_json_puts_the_line_in_line_and_says_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Before: {"file": "torn.jsonl:2", "line": null, ... "(Unterminated string starting at at column 31)"}.
    (tmp_path / "torn.jsonl").write_text('{"role":"user","content":"hi"}\n{"role":"assistant","content":"unfin')
    code, out, err = run(capsys, "check", "--json", "torn.jsonl")
    (finding,) = json.loads(out)
    assert code == 2
    assert (finding["file"], finding["line"], finding["rule"]) == ("torn.jsonl", 2, "unreadable_input")
    why = "line is not JSON (Unterminated string starting at column 31)" + TORN_HINT  # the tail has no \n: torn
    assert finding["message"] == why
    assert "at at" not in out + err and err == f"torn.jsonl:2: {why}\n"


# ---------------------------------------------------------------------------------------
# The pre-commit hook (m6)
# ---------------------------------------------------------------------------------------

# pre-commit's manifest schema (pre_commit/clientlib.py, MANIFEST_HOOK_DICT), pre-commit 4.x.
_HOOK_REQUIRED = {"id", "name", "entry", "language"}
_HOOK_OPTIONAL = {
    "alias", "files", "exclude", "types", "types_or", "exclude_types", "additional_dependencies", "args",
    "always_run", "fail_fast", "pass_filenames", "description", "language_version", "log_file",
    "require_serial", "stages", "verbose", "minimum_pre_commit_version",
}  # fmt: skip
_LANGUAGES = {
    "conda", "coursier", "dart", "docker", "docker_image", "dotnet", "fail", "golang", "haskell", "julia", "lua",
    "node", "perl", "pygrep", "python", "r", "ruby", "rust", "swift", "script", "system", "unsupported",
    "unsupported_script",
}  # fmt: skip
PRE_COMMIT = "pre-commit==4.7.0"


def _hooks() -> list[dict[str, Any]]:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert isinstance(hooks, list)
    return hooks


def test_the_pre_commit_manifest_is_valid() -> None:
    (hook,) = _hooks()
    assert _HOOK_REQUIRED <= hook.keys() <= _HOOK_REQUIRED | _HOOK_OPTIONAL
    assert hook["id"] == "msgmodel-check" and hook["language"] in _LANGUAGES
    assert hook["language"] == "python"  # pre-commit installs this repository: no additional_dependencies
    re.compile(hook["files"])
    assert re.search(hook["files"], "tests/sessions/a.jsonl") and not re.search(hook["files"], "package.json")


def test_the_hooks_entry_passes_good_sessions_and_fails_bad_ones(tmp_path: Path) -> None:
    """What pre-commit runs: ``entry`` + ``args`` + the file names that match ``files``."""
    (hook,) = _hooks()
    command = shlex.split(hook["entry"]) + hook.get("args", [])
    assert command[0] == "msgmodel"
    executable = shutil.which("msgmodel", path=os.path.dirname(sys.executable))
    assert executable is not None, "the msgmodel console script is not installed beside this Python"
    storage.save(tmp_path / "good.jsonl", LOOP, header=HEADER)
    (tmp_path / "new.jsonl").write_text("")
    (tmp_path / "bad.jsonl").write_text(msgmodel.to_json(LOOP[2:]).decode()[1:-1] + "\n")
    (tmp_path / "package.json").write_text('{"name": "x"}')

    def hook_run(*names: str) -> subprocess.CompletedProcess[str]:
        files = [n for n in names if re.search(hook["files"], n)]
        return subprocess.run(
            [executable, *command[1:], *files], cwd=tmp_path, capture_output=True, text=True, timeout=60
        )

    good = hook_run("good.jsonl", "new.jsonl", "package.json")
    assert (good.returncode, good.stderr) == (0, "")
    bad = hook_run("good.jsonl", "bad.jsonl")
    assert bad.returncode == 1 and bad.stdout.startswith("good.jsonl: ok") and "bad.jsonl:1:" in bad.stdout


@pytest.mark.slow
def test_pre_commit_runs_the_hook_from_this_repository(tmp_path: Path) -> None:
    """The real thing: pre-commit (pinned) in a fresh venv, ``try-repo`` on this checkout, good and bad files."""
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True, timeout=120)
    bin_dir = tmp_path / "venv" / "bin"
    done = subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", PRE_COMMIT],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    storage.save(project / "good.jsonl", LOOP)
    (project / "bad.jsonl").write_text(msgmodel.to_json(LOOP[2:]).decode()[1:-1] + "\n")
    subprocess.run(["git", "add", "."], cwd=project, check=True)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "PATH": f"{bin_dir}:{os.environ['PATH']}"}

    def try_repo(*files: str) -> subprocess.CompletedProcess[str]:
        argv = [str(bin_dir / "pre-commit"), "try-repo", str(ROOT), "msgmodel-check", "--files", *files]
        return subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=600)

    ok = try_repo("good.jsonl")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert re.search(r"msgmodel check\.+Passed", ok.stdout)
    failed = try_repo("good.jsonl", "bad.jsonl")
    assert failed.returncode == 1 and "bad.jsonl:1: messages.0.content.0: unexpected `tool_use_id`" in failed.stdout
