"""Tests of ``python -m msgmodel check``: formats told by content, output, --json, exit codes, bad input.

Most tests call ``msgmodel.core.cli.main`` in-process (fast); a few run the real command in a
subprocess to pin what a user sees: the exit status, stdout/stderr, and no traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from msgmodel import __main__ as entry
from msgmodel.core import cli
from msgmodel.core.cli import LONE_SURROGATE
from msgmodel.core.message import (
    Message,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    assistant_msg,
    to_api,
    to_json,
    tool_result_block,
    tool_result_msg,
    user_text,
)

ORPHAN = (
    "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01. "
    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
)
ORPHAN_HINT = "  hint: the tool_use this result answers is not in the previous message; was the history cut here?"
DANGLING = (
    "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01. "
    "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
)
PREFILL = "This model does not support assistant message prefill. The conversation must end with a user message."
TOOLS_REQUIRED = "Requests which include `tool_use` or `tool_result` blocks must define tools."
WHAT_WE_READ = (
    "expected a Messages API request body (a JSON object with `messages`), "
    "a JSON array of messages, or JSONL with one message object per line"
)


def history() -> list[Message]:
    """A valid session on every model: a tool call answered, then a user follow-up."""
    return [
        user_text("Why does the build fail?"),
        assistant_msg(
            [
                ThinkingBlock("Look at the log.", signature="EqQBCkgIARAB"),
                TextBlock("Reading the log."),
                ToolUseBlock(id="toolu_01", name="read_file", input={"path": "build.log"}),
            ]
        ),
        tool_result_msg([tool_result_block("toolu_01", "error: missing semicolon")]),
        assistant_msg([TextBlock("A semicolon is missing on line 3.")]),
        user_text("Thanks, fix it."),
    ]


TOOLS = [{"name": "read_file", "description": "Read a file", "input_schema": {"type": "object"}}]


def body(messages: list[Message], **fields: Any) -> dict[str, Any]:
    return {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": to_api(messages), "tools": TOOLS, **fields}


def jsonl(messages: list[Message], *, sep: str = "\n") -> str:
    return sep.join(json.dumps(m) for m in to_api(messages)) + sep


def write(tmp_path: Path, name: str, content: str | bytes) -> str:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = entry.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # file names in the output are then short and exact


# ---------------------------------------------------------------------------------------
# Clean inputs, in each format
# ---------------------------------------------------------------------------------------


def test_clean_message_array(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tmp_path.joinpath("h.json").write_bytes(to_json(history()))
    assert run(capsys, "check", "h.json") == (0, "h.json: ok (5 messages)\n", "")


def test_clean_request_body_pretty_printed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "req.json", json.dumps(body(history()), indent=2))
    assert run(capsys, "check", "req.json") == (0, "req.json: ok (5 messages)\n", "")


def test_clean_jsonl_with_blank_lines_crlf_and_bom(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "a.jsonl", jsonl(history()))
    write(tmp_path, "b.txt", "\ufeff" + jsonl(history(), sep="\r\n\r\n"))  # extension does not matter
    code, out, err = run(capsys, "check", "a.jsonl", "b.txt")
    assert (code, out, err) == (0, "a.jsonl: ok (5 messages)\nb.txt: ok (5 messages)\n", "")


def test_one_message_as_one_line_or_one_object(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    [wire] = to_api([user_text("hello")])
    write(tmp_path, "one.jsonl", json.dumps(wire) + "\n")
    write(tmp_path, "one.json", json.dumps(wire, indent=2))
    assert run(capsys, "check", "one.jsonl", "one.json") == (
        0,
        "one.jsonl: ok (1 message)\none.json: ok (1 message)\n",
        "",
    )


def test_line_separators_inside_strings_do_not_split_jsonl(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    msgs = [user_text("para\u2028graph\u0085end"), assistant_msg([TextBlock("ok")]), user_text("next\x1c")]
    write(tmp_path, "u.jsonl", "\n".join(json.dumps(m, ensure_ascii=False) for m in to_api(msgs)) + "\n")
    assert run(capsys, "check", "u.jsonl") == (0, "u.jsonl: ok (3 messages)\n", "")


def test_empty_array_is_a_violation_not_unreadable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "e.json", "[]")
    code, out, _ = run(capsys, "check", "e.json")
    assert code == 1
    assert out == "e.json: messages: at least one message is required\n  hint: a request needs at least one message\n"


# ---------------------------------------------------------------------------------------
# Violations: text output, hints, line numbers, options
# ---------------------------------------------------------------------------------------


def test_cut_history_in_jsonl_names_the_line_and_hints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "cut.jsonl", "\n" + jsonl(history()[2:]))  # starts at the tool result, on line 2
    code, out, err = run(capsys, "check", "cut.jsonl")
    assert code == 1 and err == ""
    assert out == f"cut.jsonl:2: {ORPHAN}\n{ORPHAN_HINT}\n"


def test_cut_history_in_an_array_names_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tmp_path.joinpath("cut.json").write_bytes(to_json(history()[2:]))
    assert run(capsys, "check", "cut.json") == (1, f"cut.json: {ORPHAN}\n{ORPHAN_HINT}\n", "")


def test_dropped_result_is_a_dangling_tool_use(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    h = history()
    tmp_path.joinpath("d.json").write_bytes(to_json([*h[:2], h[4]]))  # the result message dropped
    code, out, _ = run(capsys, "check", "d.json")
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == f"d.json: {DANGLING}"
    assert lines[1] == "  hint: a tool call has no result right after it; was the result dropped or a message inserted?"


def test_every_violation_is_printed_with_its_hint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    h = history()
    write(tmp_path, "two.jsonl", jsonl([*h[2:], assistant_msg([TextBlock("")])]))
    code, out, _ = run(capsys, "check", "two.jsonl")
    assert code == 1
    lines = out.splitlines()
    assert len(lines) % 2 == 0 and len(lines) >= 4
    assert all(line.startswith("two.jsonl:") for line in lines[0::2])
    assert all(line.startswith("  hint: ") for line in lines[1::2])
    assert f"two.jsonl:1: {ORPHAN}" in lines
    assert "two.jsonl:4: messages: text content blocks must be non-empty" in lines  # no index: line from `at`


def test_model_option_decides_prefill(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tmp_path.joinpath("p.json").write_bytes(to_json(history()[:4]))  # ends with the assistant
    # A list is a stored conversation by default: its final assistant message ends a turn.
    assert run(capsys, "check", "p.json") == (0, "p.json: ok (4 messages)\n", "")
    code, out, _ = run(capsys, "check", "--as-request", "p.json")
    assert code == 1 and out.splitlines()[0] == f"p.json: {PREFILL}"
    assert run(capsys, "check", "--as-request", "--model", "claude-sonnet-4-5", "p.json") == (
        0,
        "p.json: ok (4 messages)\n",
        "",
    )
    code, out, _ = run(capsys, "check", "--as-request", "--model", "claude-opus-4-6", "p.json")
    assert code == 1 and PREFILL in out


def test_no_tools_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tmp_path.joinpath("h.json").write_bytes(to_json(history()))
    code, out, _ = run(capsys, "check", "--no-tools", "h.json")
    assert code == 1
    assert out == (
        f"h.json: {TOOLS_REQUIRED}\n"
        "  hint: the history replays tool blocks but the request defines no tools; pass the tools\n"
    )


def test_thinking_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    loop = [
        user_text("go"),
        assistant_msg([ToolUseBlock(id="toolu_01", name="read_file", input={})]),
        tool_result_msg([tool_result_block("toolu_01", "x")]),
    ]
    tmp_path.joinpath("loop.json").write_bytes(to_json(loop))
    assert run(capsys, "check", "loop.json")[0] == 0
    assert run(capsys, "check", "--thinking", "disabled", "loop.json")[0] == 0
    code, out, _ = run(capsys, "check", "--thinking", "enabled", "loop.json")
    assert code == 1
    assert out.startswith("loop.json: messages.1.content.0.type: Expected `thinking` or `redacted_thinking`")
    assert "\n  hint: with thinking enabled, keep the thinking block" in out


def test_request_body_reads_its_own_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    h = history()
    write(tmp_path, "no_tools.json", json.dumps({**body(h), "tools": []}))
    write(tmp_path, "prefill.json", json.dumps(body(h[:4], model="claude-opus-4-6")))
    write(tmp_path, "ok_prefill.json", json.dumps(body(h[:4])))
    code, out, _ = run(capsys, "check", "no_tools.json", "prefill.json", "ok_prefill.json")
    assert code == 1
    assert f"no_tools.json: {TOOLS_REQUIRED}" in out.splitlines()
    assert f"prefill.json: {PREFILL}" in out.splitlines()
    assert "ok_prefill.json: ok (4 messages)" in out.splitlines()


def test_options_replace_a_request_bodys_fields(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "req.json", json.dumps(body(history()[:4])))  # sonnet-4-5: prefill is fine
    assert run(capsys, "check", "req.json")[0] == 0
    code, out, _ = run(capsys, "check", "--model", "claude-opus-4-6", "req.json")
    assert (code, out.splitlines()[0]) == (1, f"req.json: {PREFILL}")
    code, out, _ = run(capsys, "check", "--no-tools", "req.json")
    assert (code, out.splitlines()[0]) == (1, f"req.json: {TOOLS_REQUIRED}")
    # the file itself is untouched
    assert json.loads((tmp_path / "req.json").read_text())["model"] == "claude-sonnet-4-5"


def test_malformed_request_body_reports_the_api_schema_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, "b.json", json.dumps({"messages": to_api([user_text("hi")])}))
    code, out, _ = run(capsys, "check", "b.json")
    assert code == 1
    assert out.splitlines()[0::2] == ["b.json: max_tokens: Field required", "b.json: model: Field required"]


def test_jsonl_line_that_is_json_but_not_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "m.jsonl", jsonl([user_text("hi")]) + "\n" + '"just a string"\n')
    code, out, _ = run(capsys, "check", "--json", "m.jsonl")
    assert code == 1
    [finding] = json.loads(out)
    assert (finding["line"], finding["path"], finding["rule"]) == (3, "messages.1", "schema_type")


# ---------------------------------------------------------------------------------------
# --json
# ---------------------------------------------------------------------------------------


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "cut.jsonl", jsonl(history()[2:]))
    tmp_path.joinpath("ok.json").write_bytes(to_json(history()))
    code, out, err = run(capsys, "check", "--json", "ok.json", "cut.jsonl")
    assert code == 1 and err == ""
    assert json.loads(out) == [
        {
            "file": "cut.jsonl",
            "line": 1,
            "rule": "orphan_tool_result",
            "path": "messages.0.content.0",
            "message": ORPHAN.removeprefix("messages.0.content.0: "),
            "error": ORPHAN,
            "hint": ORPHAN_HINT.removeprefix("  hint: "),
        }
    ]


def test_json_output_clean_is_an_empty_array(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tmp_path.joinpath("ok.json").write_bytes(to_json(history()))
    code, out, err = run(capsys, "check", "--json", "ok.json")
    assert (code, json.loads(out), err) == (0, [], "")


def test_json_output_includes_unreadable_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tmp_path.joinpath("ok.json").write_bytes(to_json(history()))
    code, out, err = run(capsys, "check", "--json", "missing.json", "ok.json")
    assert code == 2
    assert err == "missing.json: no such file\n"
    assert json.loads(out) == [
        {
            "file": "missing.json",
            "line": None,
            "rule": "unreadable_input",
            "path": "",
            "message": "no such file",
            "error": "no such file",
            "hint": "",
        }
    ]


def test_json_output_for_a_request_body_has_no_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "req.json", json.dumps(body(history()[2:])))
    code, out, _ = run(capsys, "check", "--json", "req.json")
    assert code == 1
    [finding] = json.loads(out)
    assert finding["line"] is None and finding["error"] == ORPHAN


# ---------------------------------------------------------------------------------------
# Unreadable input: one line on stderr, exit 2
# ---------------------------------------------------------------------------------------


UNREADABLE = [
    ("prose.txt", "hello world", "prose.txt: not JSON (Expecting value: line 1 column 1 (char 0))"),
    (
        "comma.json",
        '[{"role": "user" "content": "x"}]',
        "comma.json: not JSON (Expecting ',' delimiter: line 1 column 18 (char 17))",
    ),
    ("nan.json", '[{"role": "user", "content": NaN}]', "nan.json: not JSON (NaN is not valid JSON)"),
    (
        "broken.jsonl",
        '{"role": "user", "content": "a"}\n{"role": "assistant", "content": "b"}\n\n{"role": "user", "content": \n',
        "broken.jsonl:4: line is not JSON (Expecting value at column 29)",
    ),
    (
        "unquoted.jsonl",
        '{"role": "user", "content": "a"}\n{role: "assistant"}\n',
        "unquoted.jsonl:2: line is not JSON (Expecting property name enclosed in double quotes at column 2)",
    ),
    (
        "other.json",
        '{"model": "x", "max_tokens": 5}',
        f'other.json: {WHAT_WE_READ}; got an object without `messages` (keys: "model", "max_tokens")',
    ),
    ("string.json", '"hello"', f"string.json: {WHAT_WE_READ}; got a JSON string"),
    ("number.json", "42", f"number.json: {WHAT_WE_READ}; got a JSON number"),
    ("null.json", "null", f"null.json: {WHAT_WE_READ}; got JSON null"),
    ("emptyobj.json", "{}", f"emptyobj.json: {WHAT_WE_READ}; got an object without `messages`"),
    (
        "other.jsonl",
        '{"kind": "summary", "summary": "x"}\n{"kind": "user", "id": "u2"}\n',
        f'other.jsonl:1: {WHAT_WE_READ}; got JSONL whose first line is an object without `role` (keys: "kind", '
        '"summary")',
    ),
    ("numbers.jsonl", "1\n2\n", f"numbers.jsonl:1: {WHAT_WE_READ}; got JSONL whose first line is a JSON number"),
    ("prose.jsonl", "hello\nworld\n", "prose.jsonl: not JSON (Expecting value: line 1 column 1 (char 0))"),
]


@pytest.mark.parametrize(("name", "content", "error"), UNREADABLE, ids=[case[0] for case in UNREADABLE])
def test_unreadable_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: str, error: str
) -> None:
    write(tmp_path, name, content)
    assert run(capsys, "check", name) == (2, "", error + "\n")


def test_non_utf8_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "latin1.json", '[{"role": "user", "content": "caf\u00e9"}]'.encode("latin-1"))
    assert run(capsys, "check", "latin1.json") == (2, "", "latin1.json: not UTF-8 text (byte 0xe9 at offset 33)\n")


def test_missing_file_and_an_empty_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "adir").mkdir()
    code, out, err = run(capsys, "check", "nope.json", "adir")
    assert (code, out) == (2, "adir: no session files (*.jsonl, *.json) in this directory\n")
    assert err == "nope.json: no such file\n"
    assert run(capsys, "check", "adir") == (0, "adir: no session files (*.jsonl, *.json) in this directory\n", "")


def test_permission_denied(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "secret.json"
    path.write_bytes(to_json(history()))

    def deny(name: str, limit: int = -1) -> bytes:
        raise PermissionError(13, "Permission denied", name)

    monkeypatch.setattr(cli, "read_regular_file", deny)
    assert run(capsys, "check", "secret.json") == (2, "", "secret.json: permission denied\n")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads files whatever their mode")
def test_permission_denied_for_real(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "secret.json"
    path.write_bytes(to_json(history()))
    path.chmod(0)
    try:
        assert run(capsys, "check", "secret.json") == (2, "", "secret.json: permission denied\n")
    finally:
        path.chmod(0o600)


def test_worst_exit_code_wins_and_every_file_is_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tmp_path.joinpath("ok.json").write_bytes(to_json(history()))
    tmp_path.joinpath("cut.json").write_bytes(to_json(history()[2:]))
    assert run(capsys, "check", "ok.json", "ok.json")[0] == 0
    assert run(capsys, "check", "ok.json", "cut.json")[0] == 1
    code, out, err = run(capsys, "check", "cut.json", "nope.json", "ok.json")
    assert code == 2
    assert out == f"cut.json: {ORPHAN}\n{ORPHAN_HINT}\nok.json: ok (5 messages)\n"
    assert err == "nope.json: no such file\n"


# ---------------------------------------------------------------------------------------
# Internal errors: one line, exit 2, the other files still checked
# ---------------------------------------------------------------------------------------


def test_internal_error_in_the_validator(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import msgmodel.core.protocol

    real = msgmodel.core.protocol.validate

    def flaky(messages: object, **kw: Any) -> Any:
        if isinstance(messages, list) and len(messages) == 3:
            raise RuntimeError("boom")
        return real(messages, **kw)

    monkeypatch.setattr(msgmodel.core.protocol, "validate", flaky)
    tmp_path.joinpath("three.json").write_bytes(to_json(history()[2:]))
    tmp_path.joinpath("ok.json").write_bytes(to_json(history()))
    code, out, err = run(capsys, "check", "three.json", "ok.json")
    assert code == 2
    assert out == "ok.json: ok (5 messages)\n"
    assert err == "three.json: internal error while checking: RuntimeError: boom\n"


def test_internal_error_outside_any_file(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(args: object) -> int:
        raise KeyError("oops")

    monkeypatch.setitem(cli.SUBCOMMANDS, "check", cli.SUBCOMMANDS["check"]._replace(run=broken))
    assert cli.main(["check", "x.json"]) == 2
    assert capsys.readouterr().err == "python -m msgmodel check: internal error: KeyError: 'oops'\n"


# ---------------------------------------------------------------------------------------
# Usage, and the two extension points
# ---------------------------------------------------------------------------------------


def test_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys)
    assert (code, out) == (2, "")
    assert err.endswith("python -m msgmodel: error: a command is required (check, serve)\n")
    code, _, err = run(capsys, "check")
    assert code == 2 and "the following arguments are required: FILE" in err
    code, _, err = run(capsys, "check", "--thinking", "maybe", "x.json")
    assert code == 2 and "invalid choice: 'maybe'" in err
    code, _, err = run(capsys, "frobnicate")
    assert code == 2 and "invalid choice: 'frobnicate'" in err


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "check" in out
    code, out, _ = run(capsys, "check", "--help")
    assert code == 0
    for option in ("--model", "--thinking", "--no-tools", "--json"):
        assert option in out


def test_a_subcommand_is_one_entry(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def configure(parser: Any) -> None:
        parser.add_argument("--port", type=int, default=8000)

    def serve(args: Any) -> int:
        print(f"serving on {args.port}")
        return 0

    monkeypatch.setitem(cli.SUBCOMMANDS, "hello", cli.Subcommand("say hello", configure, serve))
    assert cli.main(["hello", "--port", "9"]) == 0
    assert capsys.readouterr().out == "serving on 9\n"
    assert cli.main(["--help"]) == 0
    assert "hello" in capsys.readouterr().out


def test_the_entry_point_adds_serve_to_the_core_commands() -> None:
    assert set(entry.COMMANDS) == {*cli.SUBCOMMANDS, "serve"}
    assert "serve" not in cli.SUBCOMMANDS


def test_an_input_format_is_one_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def detect(p: cli.Probe) -> bool:
        first = p.first_line
        return isinstance(first, dict) and "sessionId" in first

    def load(p: cli.Probe) -> cli.Document:
        return cli.Document("fake-session", [user_text("from the session")], lines=(p.lines[0][0],))

    formats = list(cli.INPUT_FORMATS)
    formats.insert(2, cli.InputFormat("fake-session", detect, load))
    monkeypatch.setattr(cli, "INPUT_FORMATS", formats)
    write(tmp_path, "s.jsonl", '{"sessionId": "x", "type": "user"}\n{"sessionId": "x", "type": "assistant"}\n')
    assert run(capsys, "check", "s.jsonl") == (0, "s.jsonl: ok (1 message)\n", "")
    assert cli.load_input("s.jsonl").format == "fake-session"


def test_load_input_tells_formats_by_content(tmp_path: Path) -> None:
    write(tmp_path, "a.jsonl", json.dumps(body(history())))
    tmp_path.joinpath("b.txt").write_bytes(to_json(history()))
    write(tmp_path, "c.json", jsonl(history()))
    assert cli.load_input("a.jsonl").format == "request"
    assert cli.load_input("b.txt").format == "messages"
    doc = cli.load_input("c.json")
    assert (doc.format, doc.lines, doc.message_count) == ("jsonl", (1, 2, 3, 4, 5), 5)
    with pytest.raises(cli.InputError) as info:
        cli.load_input("nope")
    assert (info.value.where, info.value.reason) == ("nope", "no such file")


# ---------------------------------------------------------------------------------------
# The real command, in a subprocess
# ---------------------------------------------------------------------------------------


def _command(*argv: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "msgmodel", *argv],
        cwd=cwd,
        input=stdin.decode() if stdin is not None else None,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_subprocess_exit_codes_and_output(tmp_path: Path) -> None:
    tmp_path.joinpath("ok.json").write_bytes(to_json(history()))
    write(tmp_path, "cut.jsonl", jsonl(history()[2:]))
    write(tmp_path, "bad.json", "{not json")
    ok = _command("check", "ok.json", cwd=tmp_path)
    assert (ok.returncode, ok.stdout, ok.stderr) == (0, "ok.json: ok (5 messages)\n", "")
    cut = _command("check", "cut.jsonl", cwd=tmp_path)
    assert (cut.returncode, cut.stdout, cut.stderr) == (1, f"cut.jsonl:1: {ORPHAN}\n{ORPHAN_HINT}\n", "")
    bad = _command("check", "bad.json", "ok.json", "--json", cwd=tmp_path)
    assert bad.returncode == 2
    assert (
        bad.stderr
        == "bad.json: not JSON (Expecting property name enclosed in double quotes: line 1 column 2 (char 1))\n"
    )
    assert [f["rule"] for f in json.loads(bad.stdout)] == ["unreadable_input"]
    assert "Traceback" not in bad.stderr


def test_subprocess_reads_stdin(tmp_path: Path) -> None:
    done = _command("check", "-", cwd=tmp_path, stdin=jsonl(history()[2:]).encode())
    assert (done.returncode, done.stdout) == (1, f"<stdin>:1: {ORPHAN}\n{ORPHAN_HINT}\n")
    empty = _command("check", "-", cwd=tmp_path, stdin=b"")
    assert (empty.returncode, empty.stdout, empty.stderr) == (0, "<stdin>: ok (0 messages; an empty session)\n", "")


class _EndlessStdin:
    """Standard input that never ends (``/dev/zero | check -``); it counts what is read from it."""

    def __init__(self) -> None:
        self.read_bytes = 0

    def read(self, size: int = -1) -> bytes:
        if size < 0 or size > 2 * cli.MAX_INPUT_BYTES:
            raise MemoryError  # reading it all can only end like this
        self.read_bytes += size
        return bytes(size)


def test_stdin_and_files_are_read_up_to_the_size_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 20, item 8: `head -c 400M /dev/zero | check -` read all of it and ended in "internal error
    # ... MemoryError". Now standard input, like a file, is read up to the limit and refused past it.
    monkeypatch.setattr(cli, "MAX_INPUT_BYTES", 1000)
    stdin = _EndlessStdin()
    monkeypatch.setattr(sys, "stdin", type("Stdin", (), {"buffer": stdin})())
    too_large = "too large to check (over 0 MiB; check reads no more)"
    assert run(capsys, "check", "-") == (2, "", f"<stdin>: {too_large}\n")
    assert stdin.read_bytes == 1001
    write(tmp_path, "big.json", " " * 1001)
    write(tmp_path, "ok.json", " " * 990 + "[]")
    assert run(capsys, "check", "big.json") == (2, "", f"big.json: {too_large}\n")
    assert run(capsys, "check", "ok.json")[0] == 1  # at the limit: read and checked (an empty array)


def test_out_of_memory_is_the_inputs_problem_not_an_internal_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "h.json", json.dumps(to_api(history())))

    def out_of_memory(*args: Any, **kwargs: Any) -> Any:
        raise MemoryError

    monkeypatch.setattr(cli, "_violations", out_of_memory)
    assert run(capsys, "check", "h.json") == (2, "", "h.json: too large to check in the memory this process may use\n")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero and resource limits")
def test_subprocess_refuses_endless_stdin_within_its_memory(tmp_path: Path) -> None:
    # The adversary's run, with the real limit: /dev/zero as standard input, 1 GiB of address space.
    code = (
        "import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
        "from msgmodel.core.cli import main; sys.exit(main(['check', '-']))"
    )
    with open("/dev/zero", "rb") as zero:
        done = subprocess.run(
            [sys.executable, "-c", code], stdin=zero, capture_output=True, text=True, timeout=60, check=False
        )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "<stdin>: too large to check (over 256 MiB; check reads no more)\n"


def test_importing_the_cli_stays_light() -> None:
    code = (
        "import sys, msgmodel.core.cli, msgmodel.__main__; "
        "print(sorted(m for m in ('anthropic', 'httpx2', 'ipywidgets', 'msgmodel.core.protocol') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"


def test_claude_code_sessions_are_read_and_checked(capsys: pytest.CaptureFixture[str]) -> None:
    from msgmodel.core.claude_code import sample_session_path

    sample = str(sample_session_path())
    code, out, _ = run(capsys, "check", sample)
    # The shipped sample was copied mid-turn: its last tool call has no result yet.
    first = out.splitlines()[0]
    assert code == 1 and first.startswith(f"{sample}:47: messages.")
    assert "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_" in first


def test_a_clean_claude_code_session_is_ok(capsys: pytest.CaptureFixture[str]) -> None:
    clean = Path(__file__).parent / "fixtures" / "claude_code" / "v2_1_clean_session.jsonl"
    code, out, _ = run(capsys, "check", str(clean))
    assert code == 0
    assert out.startswith(f"{clean}: ok (") and "a Claude Code session" in out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    import tomllib

    import msgmodel

    code, out, _ = run(capsys, "--version")
    assert (code, out) == (0, f"msgmodel {msgmodel.__version__}\n")
    pyproject = tomllib.loads((Path(msgmodel.__file__).parent.parent / "pyproject.toml").read_text())
    assert pyproject["project"]["version"] == msgmodel.__version__


# ---------------------------------------------------------------------------------------
# Hostile input (issue 11, defect 18): one valid JSON array, user errors named as such
# ---------------------------------------------------------------------------------------

TOO_DEEP = "JSON nested too deeply to check (deeper than Python's recursion limit)"


def test_lone_surrogates_keep_the_json_output_one_valid_array(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The escape \ud800 decodes (in Python) to a lone surrogate that UTF-8 cannot hold. The report
    # quoted it and died half-way through the array ("internal error"). It is now refused as not
    # JSON, as the API and the local server refuse it; the output is still one valid array.
    write(tmp_path, "lone.json", '[{"role": "user", "content": [{"type": "\\ud800x", "a": 1}]}]')
    code, out, err = run(capsys, "check", "--json", "lone.json")
    assert (code, err) == (2, f"lone.json: not JSON ({LONE_SURROGATE})\n")
    (finding,) = json.loads(out)
    assert finding["rule"] == "unreadable_input" and finding["message"] == f"not JSON ({LONE_SURROGATE})"
    code, out, err = run(capsys, "check", "lone.json")
    assert (code, out) == (2, "")


@pytest.mark.parametrize("text", ["[" * 100_000, "[" * 100_000 + "]" * 100_000, '{"messages": ' + "[" * 50_000])
def test_deeply_nested_json_is_a_user_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> None:
    write(tmp_path, "deep.json", text)
    code, out, err = run(capsys, "check", "--json", "deep.json")
    assert code == 2 and err == f"deep.json: {TOO_DEEP}\n"
    assert json.loads(out) == [
        {
            "file": "deep.json",
            "line": None,
            "rule": "unreadable_input",
            "path": "",
            "message": TOO_DEEP,
            "error": TOO_DEEP,
            "hint": "",
        }
    ]


def test_a_deeply_nested_jsonl_line_names_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "deep.jsonl", '{"role": "user", "content": "hi"}\n' + "[" * 100_000 + "\n")
    code, _, err = run(capsys, "check", "deep.jsonl")
    assert code == 2 and err == f"deep.jsonl:2: line is not JSON ({TOO_DEEP})\n"


def test_a_recursion_error_while_checking_is_the_inputs_depth_not_an_internal_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import msgmodel.core.protocol

    def too_deep(messages: object, **kw: Any) -> Any:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(msgmodel.core.protocol, "validate", too_deep)
    tmp_path.joinpath("ok.json").write_bytes(to_json(history()))
    code, out, err = run(capsys, "check", "ok.json")
    assert (code, out) == (2, "")
    assert err == "ok.json: nested too deeply to check (deeper than Python's recursion limit)\n"


@pytest.mark.parametrize(
    ("port", "why"),
    [
        ("70000", "port 70000 is out of range (expected 0..65535; 0 picks a free one)"),
        ("65536", "port 65536 is out of range"),
        ("-1", "not a port number: '-1'"),
        ("1_0", "not a port number: '1_0'"),
        ("http", "not a port number: 'http'"),
    ],
)
def test_serve_port_out_of_range_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, port: str, why: str
) -> None:
    # It was "internal error: OverflowError: bind(): port must be 0-65535" (after trying to bind),
    # and "1_0" served on port 10. The server must never be started here.
    import msgmodel.api.server

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("serve() was called for a bad --port")

    monkeypatch.setattr(msgmodel.api.server, "serve", never)
    code, out, err = run(capsys, "serve", "--port", port)
    assert (code, out) == (2, "")
    assert f"python -m msgmodel serve: error: argument --port: {why}" in err
    assert "internal error" not in err


def test_subprocess_json_output_with_lone_surrogates_is_valid(tmp_path: Path) -> None:
    write(
        tmp_path, "lone.jsonl", '{"role": "user", "content": "a"}\n{"role": "user", "content": [{"type": "\\udc80"}]}\n'
    )
    done = _command("check", "--json", "lone.jsonl", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (2, f"lone.jsonl:2: line is not JSON ({LONE_SURROGATE})\n")
    found = [(f["file"], f["line"], f["rule"]) for f in json.loads(done.stdout)]
    assert found == [("lone.jsonl", 2, "unreadable_input")]


@pytest.mark.parametrize(
    ("bad_line", "reason"),
    [
        ("[" * 100_000 + "]" * 100_000, "JSON nested too deeply to read"),  # skipped for depth
        ("{not json", "not JSON ("),
    ],
)
def test_a_claude_code_line_left_out_as_unreadable_is_reported_not_ok(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bad_line: str, reason: str
) -> None:
    # `check` said "ok (4 messages; a Claude Code session; 3 lines left out (?, ...))" and exited 0:
    # the unreadable line was only a "?" in the note.
    clean = (Path(__file__).parent / "fixtures" / "claude_code" / "v2_1_clean_session.jsonl").read_text()
    lines = clean.splitlines()
    write(tmp_path, "s.jsonl", "\n".join([*lines[:3], bad_line, *lines[3:]]) + "\n")
    code, out, err = run(capsys, "check", "s.jsonl")
    assert (code, out) == (2, "")
    assert err.startswith(f"s.jsonl:4: line left out: {reason}")
    code, out, _ = run(capsys, "check", "--json", "s.jsonl")
    (finding,) = json.loads(out)
    assert code == 2 and (finding["file"], finding["line"], finding["rule"]) == ("s.jsonl", 4, "unreadable_input")
