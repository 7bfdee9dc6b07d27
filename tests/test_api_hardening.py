"""Regression tests for the local server defects of issue 11 (#15 quadratic rules, #16 deep JSON, #17 sockets).

Each failed on the code before its fix. Time limits here are hang guards, not performance
assertions: the inputs are sized so that the old code needs minutes to hours and the fixed code
milliseconds. Network tests use 127.0.0.1 only.
"""

from __future__ import annotations

import os
import re
import socket
import struct
import threading
import time
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from serving import HANG_GUARD, serving

from msgmodel.api.demo_tools import demo_registry
from msgmodel.api.scripted import RuleModel, _search_for
from msgmodel.api.server import LocalServer, handle_messages
from msgmodel.core.tools import tools_param

MODEL = "claude-haiku-4-5"
TOOLS: Any = tools_param(demo_registry())


def answer_within_guard(request: dict[str, Any]) -> Any:
    """The rule model's answer, computed in a thread; fails (instead of hanging) past the guard."""
    out: list[Any] = []
    worker = threading.Thread(target=lambda: out.append(RuleModel().respond(request)), daemon=True)
    worker.start()
    worker.join(HANG_GUARD)
    assert not worker.is_alive(), "the rule model did not answer: a quadratic scan?"
    return out[0]


# ---------------------------------------------------------------------------------------
# 15. The rule model's scans are linear
# ---------------------------------------------------------------------------------------


def test_many_trigger_words_without_for_do_not_stall_the_rule_model() -> None:
    # Before: the lazy `(?:\s+\w+)*?` retried from every "find": "find " * 16000 took 21 s, this hours.
    request = {
        "model": MODEL,
        "max_tokens": 64,
        "tools": TOOLS,
        "messages": [{"role": "user", "content": "find " * 200_000}],
    }
    blocks = answer_within_guard(request)
    assert blocks and blocks[0].type == "text"


@pytest.mark.parametrize("text", ["(" * 400_000, "1+" * 200_000 + "x", "a/" * 200_000])
def test_backtracking_inputs_for_paths_and_expressions_do_not_stall(text: str) -> None:
    request = {"model": MODEL, "max_tokens": 64, "tools": TOOLS, "messages": [{"role": "user", "content": text}]}
    assert answer_within_guard(request)


def test_a_summary_of_unclosed_call_markers_does_not_stall() -> None:
    # Before: `\[call ...\((.*?)\)\]` scanned to the end from every marker.
    text = "[call a(" * 300_000 + " [result: x" * 100_000
    request = {"model": MODEL, "max_tokens": 64, "system": "summarize", "messages": [{"role": "user", "content": text}]}
    assert answer_within_guard(request)


OLD_SEARCH_FOR = re.compile(r"\b(?:grep|search|look|find|where)\b(?:\s+\w+)*?\s+for\s+(\S+)", re.IGNORECASE)
WORDS = st.sampled_from(["find", "Search", "for", "FOR", "x", "a-b", "where", "look,", "the", "refind", "for.", "é"])


@settings(max_examples=400, deadline=None)
@given(words=st.lists(WORDS, max_size=10), seps=st.lists(st.sampled_from([" ", "  ", "\n", "\t"]), min_size=10))
def test_the_linear_search_for_finds_what_the_old_regex_found(words: list[str], seps: list[str]) -> None:
    text = "".join(w + s for w, s in zip(words, seps, strict=False))
    old = OLD_SEARCH_FOR.search(text)
    assert _search_for(text) == (old.group(1) if old else None)


# ---------------------------------------------------------------------------------------
# 16. Deep JSON is a 400, not a RecursionError
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body", [b"[" * 100_000, b"[" * 100_000 + b"]" * 100_000, b'{"a":' * 50_000 + b"1" + b"}" * 50_000]
)
def test_a_deeply_nested_body_is_a_400_invalid_request_error(body: bytes) -> None:
    r = handle_messages(body)
    assert r.status == 400
    assert r.json()["error"]["type"] == "invalid_request_error"
    assert r.json()["error"]["message"].startswith("Invalid JSON: ")


# ---------------------------------------------------------------------------------------
# 17. Sockets: timeouts, a connection cap, quiet disconnects, strict Content-Length
# ---------------------------------------------------------------------------------------


@pytest.fixture
def quick() -> Iterator[LocalServer]:
    yield from serving(socket_timeout=0.5, max_connections=3)


def connect(srv: LocalServer) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=HANG_GUARD)
    return s


def read_all(s: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (bounded by the guard)."""
    chunks = []
    while chunk := s.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


BODY = msgspec.json.encode({"model": MODEL, "max_tokens": 16, "messages": [{"role": "user", "content": "hi there"}]})


def post(srv: LocalServer, length_headers: list[str], body: bytes = BODY) -> bytes:
    head = "POST /v1/messages HTTP/1.1\r\nHost: x\r\nanthropic-version: 2023-06-01\r\nConnection: close\r\n"
    head += "".join(f"Content-Length: {v}\r\n" for v in length_headers) + "\r\n"
    with connect(srv) as s:
        s.sendall(head.encode() + body)
        return read_all(s)


def test_a_well_formed_content_length_is_answered(quick: LocalServer) -> None:
    assert post(quick, [str(len(BODY))]).startswith(b"HTTP/1.1 200")


@pytest.mark.parametrize(
    "values",
    [
        [f"+{len(BODY)}"],
        [f"{str(len(BODY))[0]}_{str(len(BODY))[1:]}"],
        [str(len(BODY)), str(len(BODY))],
        [f" {len(BODY)}x"],
        ["-1"],
        ["٣"],  # an Arabic-Indic digit: int() takes it
    ],
)
def test_a_lax_content_length_is_refused(quick: LocalServer, values: list[str]) -> None:
    answer = post(quick, values)
    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]
    assert b"Invalid Content-Length" in answer


def test_an_idle_connection_is_closed_after_the_socket_timeout(quick: LocalServer) -> None:
    with connect(quick) as s:
        assert read_all(s) == b""  # the server hangs up; before, it waited forever


def test_an_announced_body_that_never_arrives_times_out() -> None:
    for srv in serving(socket_timeout=0.5):  # the default 32 MiB limit: 100 MB is drained, not refused at once
        with connect(srv) as s:
            s.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n" + BODY)
            read_all(s)  # returns once the server gives up on the body


def test_connections_over_the_cap_get_the_apis_529_and_hold_no_thread() -> None:
    for srv in serving(socket_timeout=HANG_GUARD, max_connections=2, overload_wait=0.05):
        before = threading.active_count()
        idle = [connect(srv) for _ in range(2)]
        try:
            time.sleep(0.2)  # let the server accept both
            extra = [connect(srv) for _ in range(5)]
            for s in extra:
                answer = read_all(s)  # answered and closed by the server, not left hanging, never reset
                assert answer.startswith(b"HTTP/1.1 529 "), answer[:80]
                body = answer.partition(b"\r\n\r\n")[2]
                assert msgspec.json.decode(body)["error"]["type"] == "overloaded_error"
                s.close()
            assert threading.active_count() <= before + 2
        finally:
            for s in idle:
                s.close()


def test_an_early_disconnect_prints_no_traceback(capfd: pytest.CaptureFixture[str]) -> None:
    for srv in serving(socket_timeout=5.0):
        s = connect(srv)
        s.sendall(b'POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"model"')
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()  # a reset mid-body
        assert post(srv, [str(len(BODY))]).startswith(b"HTTP/1.1 200")  # still serving
        time.sleep(0.3)  # the reset connection's thread finishes
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Exception occurred" not in err


def test_a_burst_over_the_cap_is_queued_not_reset() -> None:
    """40 concurrent SDK requests against a cap of 8 all succeed with no retry: the extra ones wait for a slot.

    Before, a connection over the cap was reset at once (an ``APIConnectionError``)."""
    import asyncio

    import anthropic

    for srv in serving(socket_timeout=1.0, max_connections=8, overload_wait=HANG_GUARD):

        async def burst(url: str) -> list[str]:
            client = anthropic.AsyncAnthropic(base_url=url, api_key="dummy", max_retries=0)
            try:
                replies = await asyncio.gather(
                    *(
                        client.messages.create(model=MODEL, max_tokens=16, messages=[{"role": "user", "content": "hi"}])
                        for _ in range(40)
                    )
                )
            finally:
                await client.close()
            return [r.stop_reason or "" for r in replies]

        assert len(asyncio.run(burst(srv.url))) == 40


# ---------------------------------------------------------------------------------------
# Found by the second adversarial run: schema-driven answers, thread detection
# ---------------------------------------------------------------------------------------

_B = {"model": MODEL, "max_tokens": 50, "messages": [{"role": "user", "content": "hi"}]}


def _with_schema(schema: dict[str, Any]) -> bytes:
    return msgspec.json.encode({**_B, "output_config": {"format": {"type": "json_schema", "schema": schema}}})


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "pattern": "^[A-Z]{3}$"},
        {"type": "string", "pattern": "^\\p{L}+$"},  # a pattern Python's re cannot read
        {"anyOf": [{"type": "array", "minItems": 2, "maxItems": 1}, {"type": "null"}]},
        {"type": "string", "minLength": 40, "pattern": "(x+x+)+y"},  # backtracking: hours before, at once now
    ],
)
def test_a_schema_the_server_cannot_serve_is_a_400_not_a_500_or_a_stall(schema: dict[str, Any]) -> None:
    from msgmodel.api.server import handle_messages

    r = handle_messages(_with_schema(schema))
    assert r.status in (200, 400), r.json()
    if r.status == 400:
        error = r.json()["error"]
        assert error["type"] == "invalid_request_error"
        assert error["message"].startswith("the local API cannot build a value for this schema: ")


def test_a_deep_body_carrying_thread_is_a_400_not_an_exception() -> None:
    from msgmodel.api.server import handle_messages

    r = handle_messages(b'{"thread":' + b"[" * 100_000 + b"]" * 100_000 + b"}")
    assert r.status == 400 and r.json()["error"]["type"] == "invalid_request_error"


def test_a_thread_key_spelled_with_escapes_is_still_refused_as_a_thread() -> None:
    from msgmodel.api.server import handle_messages

    body = msgspec.json.encode({**_B, "thread": {"type": "create"}}).replace(b'"thread"', b'"thr\\u0065ad"')
    r = handle_messages(body)
    assert r.status == 400
    assert r.json()["error"]["details"]["error_code"] == "thread_unsupported_request"


def test_check_and_the_server_agree_on_a_null_stream() -> None:
    # validate_request (what `check` runs) passed "stream": null that the server refused.
    from msgmodel.api.server import handle_messages
    from msgmodel.core.protocol import validate_request

    body = {**_B, "stream": None}
    (v,) = validate_request(body)
    r = handle_messages(msgspec.json.encode(body))
    assert r.status == 400 and r.json()["error"]["message"] == str(v)


def test_a_torn_tail_behind_a_damaged_first_line_is_repaired_into_a_sidecar(tmp_path: Any) -> None:
    # repair refused this file ("not a JSONL session file"), and append then refused it too: the
    # only way out was save(path, load(path).messages). Now repair cuts the torn tail, keeps the
    # cut bytes in <path>.torn, and leaves the damaged first line for load to report.
    from msgmodel.core import storage
    from msgmodel.core.message import user_text

    p = tmp_path / "stuck.jsonl"
    p.write_bytes(b'{"role":"user","content":"a"\n{"role":"user","content":"b"}\n{"role":"us')
    cut = storage.repair(p)
    assert cut is not None and cut.line == 3 and cut.reason.endswith(f"; kept in {p}.torn")
    assert (tmp_path / "stuck.jsonl.torn").read_bytes() == b'{"role":"us\n'
    assert p.read_bytes() == b'{"role":"user","content":"a"\n{"role":"user","content":"b"}\n'
    storage.append(p, [user_text("x")])
    loaded = storage.load(p)
    assert [m.content for m in loaded.messages] == ["b", "x"] and [q.line for q in loaded.problems] == [1]
    # A second crash and repair: before, its cut was glued to the first ({"role":"us{"role":"assist).
    with p.open("ab") as f:
        f.write(b'{"role":"assist')
    assert storage.repair(p) is not None
    assert (tmp_path / "stuck.jsonl.torn").read_bytes().splitlines() == [b'{"role":"us', b'{"role":"assist']


@pytest.mark.parametrize(
    "text",
    [
        b'{"a":\n{"b": 1}\n}',  # pretty-printed JSON: one JSON value, not JSONL
        b'{\n  "role": "user",\n  "content": "a"\n}\n{"role',  # pretty-printed, then a tail
        b'{"role":"user","content":"a"\n{"role":"us',  # a damaged first line and nothing whole after it
        b'[{"role":"user","content":"a"},\n{"role":"user","content":"b"}\n{"ro',  # a JSON array
    ],
)
def test_repair_still_refuses_what_is_not_evidently_jsonl(tmp_path: Any, text: bytes) -> None:
    from msgmodel.core import storage

    p = tmp_path / "f.jsonl"
    p.write_bytes(text)
    with pytest.raises(storage.StorageError, match="not a JSONL session file"):
        storage.repair(p)
    assert p.read_bytes() == text and not (tmp_path / "f.jsonl.torn").exists()


def test_a_body_trickled_a_byte_at_a_time_is_cut_off_after_one_timeout_in_all() -> None:
    # The timeout was per recv: a byte every 0.4 s kept a 1 s timeout from ever firing, so the
    # connection (and its slot) was held for as long as the client liked.
    for srv in serving(socket_timeout=1.0):
        with connect(srv) as s:
            s.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n\r\n")
            try:
                for _ in range(12):
                    time.sleep(0.4)
                    s.sendall(b" ")
            except OSError:  # the server hung up, as it should
                pass
            assert read_all(s) == b""  # closed without an answer: the body never arrived in time


def test_a_body_shorter_than_announced_is_a_400_not_an_answer_to_what_arrived() -> None:
    for srv in serving(socket_timeout=5.0):
        with connect(srv) as s:
            s.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{}")
            s.shutdown(socket.SHUT_WR)
            answer = read_all(s)
        assert answer.startswith(b"HTTP/1.1 400"), answer[:100]
        assert b"Incomplete request body" in answer


@pytest.mark.parametrize(
    ("text", "lone"),
    [
        ("\\ud800", True),  # a lone high surrogate
        ("a\\udc80b", True),  # a lone low surrogate
        ("\\udc00\\ud800", True),  # a pair in the wrong order
        ("\\ud83d\\ude00", False),  # a valid pair: one emoji
        ("\\\\ud800", False),  # an escaped backslash, then the letters ud800
    ],
)
def test_check_and_the_server_agree_on_escaped_surrogates(tmp_path: Any, text: str, lone: bool) -> None:
    # `check` read "\ud800" with Python's json, which accepts it ("ok"); the server's parser, like
    # the API's, answers 400 Invalid JSON. Both now refuse a lone surrogate and accept a pair.
    from msgmodel.core import cli

    body = f'{{"model": "{MODEL}", "max_tokens": 16, "messages": [{{"role": "user", "content": "{text}"}}]}}'
    (tmp_path / "body.json").write_text(body)
    check_refuses = cli.main(["check", str(tmp_path / "body.json")]) == 2
    r = handle_messages(body.encode())
    server_refuses = r.status == 400 and r.json()["error"]["message"].startswith("Invalid JSON")
    assert (check_refuses, server_refuses) == (lone, lone), text


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs os.mkfifo")
def test_repair_refuses_a_fifo_sidecar_instead_of_waiting_for_a_reader(tmp_path: Any) -> None:
    # Before, repair opened <path>.torn for writing with a blocking open: a FIFO there (no reader)
    # held repair, and the file's exclusive lock, forever.
    from msgmodel.core import storage

    p = tmp_path / "stuck.jsonl"
    text = b'{"role":"user","content":"a"\n{"role":"user","content":"b"}\n{"role":"us'
    p.write_bytes(text)
    os.mkfifo(tmp_path / "stuck.jsonl.torn")
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(storage.repair(p))
        except storage.StorageError as e:
            outcome.append(e)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(10)  # a hang guard: the refusal takes milliseconds
    if worker.is_alive():  # release the blocked open so the thread ends
        os.close(os.open(tmp_path / "stuck.jsonl.torn", os.O_RDONLY | os.O_NONBLOCK))
        worker.join(HANG_GUARD)
    assert len(outcome) == 1 and isinstance(outcome[0], storage.StorageError) and "FIFO" in str(outcome[0])
    assert p.read_bytes() == text
