"""``serve --script FILE`` (``msgmodel.api.script_file``), ``--any-model``, the URL on stdout, the pytest
plugin as a user's pytest loads it, and the ``[api]`` extra named when it is missing.

Review findings held fixed here: M5 (``serve`` could not take a script; no pytest fixture), m9
(``--any-model``), m10 (a bare ``ModuleNotFoundError`` without the extra), m13 (the URL of
``serve --port 0`` only on stderr).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anthropic
import pytest

from msgmodel.api.script_file import ScriptFileError, load_script, read_script
from msgmodel.api.turns import ErrorTurn, StopTurn, TimeoutTurn
from msgmodel.core.message import TextBlock, ToolUseBlock

MODEL = "claude-haiku-4-5"
ENV = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")}
SCRIPT = {
    "turns": [
        {"text": "Adding.", "tool_calls": [{"name": "add", "input": {"a": 2, "b": 3}}]},
        {"error": 429},
        "5",
        {"content": [{"type": "text", "text": "cut"}], "stop_reason": "max_tokens"},
        {"error": {"status": 401, "type": "authentication_error", "message": "invalid x-api-key"}},
    ]
}
TOML = """
strict_models = false

[[turns]]
text = "plain"

[[turns]]
text = "Adding."
tool_calls = [{ name = "add", input = { a = 2, b = 3 } }]

[[turns]]
error = 529

[[turns]]
stop_reason = "refusal"

[[turns]]
timeout = 0.5
"""


def test_a_json_script_reads_into_turns(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(SCRIPT))
    script = load_script(path)
    assert script.strict_models
    first = script.turns[0]
    assert isinstance(first, tuple) and first[0] == TextBlock("Adding.")
    assert isinstance(first[1], ToolUseBlock) and first[1].id == "" and first[1].input == {"a": 2, "b": 3}
    assert script.turns[1] == ErrorTurn(429)
    assert script.turns[3] == StopTurn([TextBlock("cut")], "max_tokens")
    assert script.turns[4] == ErrorTurn(401, "authentication_error", "invalid x-api-key")


def test_a_toml_script_reads_into_turns() -> None:
    script = read_script(TOML, toml=True)
    assert not script.strict_models
    assert script.turns[0] == (TextBlock("plain"),)
    assert script.turns[2] == ErrorTurn(529) and script.turns[2].error_type == "overloaded_error"  # type: ignore[union-attr]
    assert script.turns[3] == StopTurn([], "refusal")
    assert script.turns[4] == TimeoutTurn(0.5)


@pytest.mark.parametrize(
    ("doc", "where"),
    [
        ("[]", "Expected `object`, got `array`"),
        ('{"turns": [], "model": 1}', "Object contains unknown field `model`"),
        (
            '{"turns": [{"error": 200}]}',
            "expected an HTTP error status 400..599, got 200 - at `$.turns[0].error.status`",
        ),
        ('{"turns": [{"error": 429, "text": "x"}]}', "`error` and `timeout` stand alone in a turn - at `$.turns[0]`"),
        ('{"turns": ["a", {"txt": "x"}]}', "Object contains unknown field `txt` - at `$.turns[1]`"),
        (
            '{"turns": [{"tool_calls": [{"input": {}}]}]}',
            "Object missing required field `name` - at `$.turns[0].tool_calls[0]`",
        ),
        (
            '{"turns": [{"tool_calls": [{"name": ""}]}]}',
            "expected the tool's name - at `$.turns[0].tool_calls[0].name`",
        ),
        ('{"turns": [{"stop_reason": "tired"}]}', "expected one of end_turn, "),
        ('{"turns": [{"content": [{"type": "text"}]}]}', "$.turns[0].content[0]"),
        ('{"turns": [{"timeout": -1}]}', "expected seconds >= 0 (or true: 30), got -1.0 - at `$.turns[0].timeout`"),
        ('{"turns": [{}]}', "an empty turn"),
        ("{", "not JSON"),
    ],
)
def test_a_bad_script_names_the_place(doc: str, where: str) -> None:
    with pytest.raises(ScriptFileError) as caught:
        read_script(doc, source="s.json")
    assert str(caught.value).startswith("s.json: ") and where in str(caught.value)


@contextmanager
def serving(*args: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    cmd = [sys.executable, "-m", "msgmodel", "serve", "--port", "0", *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        assert proc.stdout is not None
        yield proc, proc.stdout.readline().strip()
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def test_serve_plays_a_script_over_http_and_prints_its_url_on_stdout(tmp_path: Path) -> None:
    """M5: serve ran only the rule model; m13: the chosen port was only in the stderr banner."""
    path = tmp_path / "s.json"
    path.write_text(json.dumps(SCRIPT))
    with serving("--script", str(path)) as (proc, url):
        assert url.startswith("http://127.0.0.1:") and url.rsplit(":", 1)[1].isdigit()
        c = anthropic.Anthropic(base_url=url, api_key="dummy", max_retries=2)
        add = {"name": "add", "input_schema": {"type": "object"}}
        r = c.messages.create(model=MODEL, max_tokens=50, messages=[{"role": "user", "content": "2+3"}], tools=[add])  # type: ignore[list-item]
        call = r.content[1]
        assert r.stop_reason == "tool_use" and call.type == "tool_use" and call.id.startswith("toolu_")
        history = [
            {"role": "user", "content": "2+3"},
            {"role": "assistant", "content": r.content},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "5"}]},
        ]
        r = c.messages.create(model=MODEL, max_tokens=50, messages=history, tools=[add])  # type: ignore[arg-type, list-item]
        assert r.content[0].type == "text" and r.content[0].text == "5"  # after the 429, retried
        assert (
            c.messages.create(model=MODEL, max_tokens=50, messages=[{"role": "user", "content": "x"}]).stop_reason
            == "max_tokens"
        )
        with pytest.raises(anthropic.AuthenticationError):
            c.messages.create(model=MODEL, max_tokens=50, messages=[{"role": "user", "content": "x"}])
        with pytest.raises(anthropic.NotFoundError):  # strict by default
            c.messages.create(model="claude-next", max_tokens=50, messages=[{"role": "user", "content": "x"}])
        proc.send_signal(signal.SIGINT)
        assert proc.wait(10) == 0


def test_serve_any_model_and_a_toml_script_with_a_timeout(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text('turns = ["one", { timeout = 0.3 }, "three"]\n')
    with serving("--script", str(path), "--any-model") as (_, url):
        c = anthropic.Anthropic(base_url=url, api_key="dummy", max_retries=0, timeout=2.0)
        ask = {"model": "ft:my-model", "max_tokens": 50, "messages": [{"role": "user", "content": "x"}]}
        r = c.messages.create(**ask)  # type: ignore[call-overload]
        assert (r.model, r.content[0].text) == ("ft:my-model", "one")
        with pytest.raises(anthropic.APIConnectionError):  # held 0.3 s, then closed unanswered
            c.messages.create(**ask)  # type: ignore[call-overload]
        assert c.messages.create(**ask).content[0].text == "three"  # type: ignore[call-overload]


def test_serve_refuses_a_bad_script_before_listening(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"turns": [{"error": 99}]}')
    done = subprocess.run(
        [sys.executable, "-m", "msgmodel", "serve", "--port", "0", "--script", str(path)],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert (
        done.stderr
        == f"msgmodel serve: {path}: expected an HTTP error status 400..599, got 99 - at `$.turns[0].error.status`\n"
    )
    missing = subprocess.run(
        [sys.executable, "-m", "msgmodel", "serve", "--script", str(tmp_path / "none.json")],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=60,
    )
    assert missing.returncode == 2 and "cannot read the script" in missing.stderr


BLOCK_SDK = textwrap.dedent(
    """
    import sys
    class Block:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("anthropic", "httpx2"):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    sys.meta_path.insert(0, Block())
    """
)


def test_without_the_api_extra_the_error_names_it() -> None:
    """m10: without [api], local_client() raised a bare "No module named 'anthropic'"."""
    code = BLOCK_SDK + "import msgmodel.api"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=60)
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("msgmodel.api._sdk.MissingExtraError: msgmodel.api")
    assert "pip install 'msgmodel-anthropic[api]'" in last
    cli = BLOCK_SDK + "from msgmodel.__main__ import main; sys.exit(main(sys.argv[1:]))"
    serve = subprocess.run(
        [sys.executable, "-c", cli, "serve", "--port", "0"], capture_output=True, text=True, env=ENV, timeout=60
    )
    assert serve.returncode == 2 and serve.stderr.startswith("msgmodel serve: msgmodel.api (the local Messages API")
    check = subprocess.run(
        [sys.executable, "-c", cli, "check", "-"],
        input='[{"role": "user", "content": "hi"}]',
        capture_output=True,
        text=True,
        env=ENV,
        timeout=60,
    )
    assert check.returncode == 0, check.stderr  # the core's commands need no extra


PLUGIN_TESTS = """
import anthropic, pytest
from msgmodel.api.testing import ErrorTurn, tool_call

def test_scripted(msgmodel_api):
    msgmodel_api.script(ErrorTurn(429), "hello")
    c = msgmodel_api.make_client(max_retries=1)
    r = c.messages.create(model="claude-haiku-4-5", max_tokens=9, messages=[{"role": "user", "content": "x"}])
    assert r.content[0].text == "hello"
    assert [q.status for q in msgmodel_api.requests] == [429, 200]

def test_left_over(msgmodel_api):
    msgmodel_api.script("used", "never asked for")
    user = [{"role": "user", "content": "x"}]
    msgmodel_api.client.messages.create(model="claude-haiku-4-5", max_tokens=9, messages=user)

def test_left_over_allowed(msgmodel_api):
    msgmodel_api.script("never asked for")
    msgmodel_api.require_all_used = False
"""


def test_the_pytest_plugin_is_found_by_its_entry_point(tmp_path: Path) -> None:
    """M5: there was no pytest fixture; this one is registered by the pytest11 entry point (no conftest)."""
    (tmp_path / "test_agent.py").write_text(PLUGIN_TESTS)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_agent.py"],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=tmp_path,
        timeout=120,
    )
    assert "3 passed, 1 error" in done.stdout, done.stdout
    assert "ERROR at teardown of test_left_over" in done.stdout
    assert (
        "msgmodel_api: 1 of 2 scripted turn(s) never asked for (the agent made 1 request(s)): 1: 'never asked for'"
        in done.stdout
    )
