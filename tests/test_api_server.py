"""The local Messages API over HTTP on 127.0.0.1, driven by the official SDK and by raw requests.

Each test runs ``msgmodel.api.server.make_server(0, ...)`` in a thread and stops it cleanly. No
traffic leaves the loopback interface.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import anthropic
import httpx2
import msgspec
import pytest
from serving import serving

from msgmodel.api.demo_tools import demo_registry
from msgmodel.api.server import LocalServer, configure_serve, make_server, run_serve
from msgmodel.core.message import (
    Message,
    assistant_msg,
    blocks_from_api,
    to_api,
    tool_result_block,
    tool_result_msg,
    user_text,
)
from msgmodel.core.tools import tools_param

MODEL = "claude-haiku-4-5"
TOOLS: Any = tools_param(demo_registry())  # typed Any: the SDK's TypedDict params would reject plain dicts
LIMIT = 256 * 1024  # a small request-size limit keeps the oversized-body test fast
ORPHAN: Any = to_api([tool_result_msg([tool_result_block("toolu_01Orphan", "x")]), user_text("go on")])
ORPHAN_TEXT = (
    "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01Orphan. "
    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
)
JOIN_TIMEOUT = 60.0  # a hang guard, not a performance assertion


def wire(history: Sequence[Message]) -> Any:
    """``to_api``, typed ``Any`` for the SDK's TypedDict parameters."""
    return to_api(history)


def run(server: LocalServer) -> threading.Thread:
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    return thread


def stop(server: LocalServer, thread: threading.Thread) -> None:
    server.shutdown()
    server.server_close()
    thread.join(JOIN_TIMEOUT)
    assert not thread.is_alive()


@pytest.fixture
def server() -> Iterator[LocalServer]:
    yield from serving(max_body_bytes=LIMIT)


def sdk(server: LocalServer, api_key: str = "x", **kwargs: Any) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.url, api_key=api_key, max_retries=0, **kwargs)


def raw(
    server: LocalServer, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], Any]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=JOIN_TIMEOUT)
    try:
        conn.request(method, path, body=body, headers={"anthropic-version": "2023-06-01", **(headers or {})})
        resp = conn.getresponse()
        data = resp.read()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, msgspec.json.decode(data) if data else None
    finally:
        conn.close()


def test_the_server_binds_loopback_and_reports_its_url(server: LocalServer) -> None:
    assert server.server_address[0] == "127.0.0.1"
    assert server.url == f"http://127.0.0.1:{server.port}" and server.port > 0


def test_the_sdk_gets_answers_and_verbatim_400s_over_http(server: LocalServer) -> None:
    c = sdk(server)
    resp = c.messages.create(model=MODEL, max_tokens=100, messages=wire([user_text("read setup.cfg")]), tools=TOOLS)
    assert resp.stop_reason == "tool_use" and resp.id == "msg_local_000001"
    with pytest.raises(anthropic.BadRequestError) as info:
        c.messages.create(model=MODEL, max_tokens=100, messages=ORPHAN, tools=TOOLS)
    assert isinstance(info.value.body, dict)
    assert info.value.body["error"]["message"] == ORPHAN_TEXT
    assert info.value.request_id == info.value.body["request_id"]


def test_streaming_over_http_equals_the_non_streaming_answer(server: LocalServer) -> None:
    c = sdk(server)
    request: dict[str, Any] = {
        "model": MODEL,
        "max_tokens": 100,
        "messages": wire([user_text("read src/app.py, README.md")]),
        "tools": TOOLS,
        "thinking": {"type": "enabled", "budget_tokens": 1024},
    }
    created = c.messages.create(**request)
    with c.messages.stream(**request) as s:
        final = s.get_final_message()
    assert blocks_from_api(final.content) == blocks_from_api(created.content)
    assert final.model_dump(exclude={"id"}) == created.model_dump(exclude={"id"})
    assert [b.type for b in final.content] == ["thinking", "text", "tool_use", "tool_use"]


def test_bad_json_is_a_400_in_the_api_shape(server: LocalServer) -> None:
    status, headers, body = raw(server, "POST", "/v1/messages", b'{"model": "m", "max_tokens": ')
    assert status == 400
    assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error"
    assert body["error"]["message"].startswith("Invalid JSON: ")
    assert headers["request-id"] == body["request_id"]


def test_an_oversized_body_is_a_413(server: LocalServer) -> None:
    big = "x" * (LIMIT + 1)
    status, _, body = raw(server, "POST", "/v1/messages", big.encode())
    assert status == 413
    assert body["error"] == {
        "type": "request_too_large",
        "message": "Request exceeds the maximum allowed number of bytes.",
    }
    with pytest.raises(anthropic.ContentTooLargeError) as info:
        sdk(server).messages.create(model=MODEL, max_tokens=10, messages=[{"role": "user", "content": big}])
    assert info.value.status_code == 413
    # The server still answers afterwards.
    assert raw(server, "POST", "/v1/messages/count_tokens", b'{"model": "m", "messages": []}')[0] == 400


def test_unknown_paths_wrong_methods_and_missing_headers(server: LocalServer) -> None:
    status, _, body = raw(server, "POST", "/v1/nothing", b"{}")
    assert (status, body["error"]["type"]) == (404, "not_found_error")
    status, headers, body = raw(server, "GET", "/v1/messages")
    assert (status, headers["allow"], body["type"]) == (405, "POST", "error")
    ok = msgspec.json.encode({"model": MODEL, "max_tokens": 5, "messages": wire([user_text("hi")])})
    assert raw(server, "POST", "/v1/messages", ok)[0] == 200
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=JOIN_TIMEOUT)
    conn.request("POST", "/v1/messages", body=ok, headers={"content-type": "application/json"})
    resp = conn.getresponse()
    assert resp.status == 400
    assert msgspec.json.decode(resp.read())["error"]["message"] == "anthropic-version: header is required"
    conn.close()


def test_fifty_concurrent_clients_get_200s_and_400s_and_no_5xx(server: LocalServer) -> None:
    n = 50
    barrier = threading.Barrier(n)
    # Each client gets its own connection pool; they share one TLS context, which the SDK's
    # HTTP client would otherwise build per client (~50 ms each) though the traffic is plain HTTP.
    tls = ssl.create_default_context()
    outcomes: list[tuple[int, int, str] | BaseException] = [ValueError("not run")] * n

    def work(i: int) -> None:
        try:
            c = sdk(server, http_client=httpx2.Client(verify=tls))
            barrier.wait(JOIN_TIMEOUT)
            ok = c.messages.create(
                model=MODEL, max_tokens=50, messages=wire([user_text(f"what is {i} * 3?")]), tools=TOOLS
            )
            call = ok.content[-1]
            try:
                c.messages.create(model=MODEL, max_tokens=50, messages=ORPHAN, tools=TOOLS)
            except anthropic.BadRequestError as err:
                assert isinstance(err.body, dict)
                outcomes[i] = (200, err.status_code, err.body["error"]["message"])
            assert call.type == "tool_use" and call.input == {"expression": f"{i} * 3"}
        except BaseException as e:
            outcomes[i] = e

    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(JOIN_TIMEOUT)
    assert not any(t.is_alive() for t in threads)
    assert outcomes == [(200, 400, ORPHAN_TEXT)] * n
    last = sdk(server).messages.create(model=MODEL, max_tokens=5, messages=[{"role": "user", "content": "hi"}])
    assert last.id == f"msg_local_{n + 1:06d}"  # every valid request got its own number


def test_the_server_shuts_down_cleanly_and_frees_the_port() -> None:
    srv = make_server(0)
    port = srv.port
    thread = run(srv)
    c = sdk(srv)
    assert c.messages.create(model=MODEL, max_tokens=5, messages=[{"role": "user", "content": "hi"}]).id
    c.close()
    stop(srv, thread)
    with socket.socket() as s, pytest.raises(OSError):
        s.settimeout(5)
        s.connect(("127.0.0.1", port))


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "example.com", "", "::"])
def test_only_loopback_hosts_are_served(host: str) -> None:
    with pytest.raises(ValueError, match="loopback"):
        make_server(0, host=host)


def test_localhost_means_127_0_0_1() -> None:
    srv = make_server(0, host="localhost")
    try:
        assert srv.server_address[0] == "127.0.0.1"
    finally:
        srv.server_close()


def test_the_request_log_never_shows_the_api_key(capsys: pytest.CaptureFixture[str]) -> None:
    secret = "sk-ant-api03-SENTINEL-log-0123456789"
    srv = make_server(0, quiet=False)
    thread = run(srv)
    try:
        sdk(srv, api_key=secret).messages.create(
            model=MODEL, max_tokens=5, messages=[{"role": "user", "content": "hi"}]
        )
    finally:
        stop(srv, thread)
    err = capsys.readouterr().err
    assert "POST /v1/messages" in err and " 200 " in err
    assert secret not in err


def test_the_serve_subcommand_parses_and_refuses_a_public_host_or_a_busy_port(
    capsys: pytest.CaptureFixture[str], server: LocalServer
) -> None:
    parser = argparse.ArgumentParser(prog="msgmodel")
    configure_serve(parser)
    args = parser.parse_args(["--port", "0"])
    assert (args.port, args.host) == (0, "127.0.0.1")
    assert run_serve(parser.parse_args(["--host", "0.0.0.0"])) == 2
    assert "loopback" in capsys.readouterr().err
    assert run_serve(parser.parse_args(["--port", str(server.port)])) == 2  # taken by the fixture's server
    assert "cannot listen on 127.0.0.1" in capsys.readouterr().err


def test_assistant_history_round_trips_through_the_server(server: LocalServer) -> None:
    """What the SDK returns, appended with the constructors, is accepted on the next turn."""
    c = sdk(server)
    history = [user_text("List the files in src/")]
    resp = c.messages.create(model=MODEL, max_tokens=100, messages=wire(history), tools=TOOLS)
    history.append(assistant_msg(blocks_from_api(resp.content)))
    call = resp.content[-1]
    assert call.type == "tool_use"
    history.append(tool_result_msg([tool_result_block(call.id, "app.py\nconfig.py")]))
    again = c.messages.create(model=MODEL, max_tokens=100, messages=wire(history), tools=TOOLS)
    assert again.stop_reason == "end_turn"


def test_serve_runs_until_interrupted_and_exits_cleanly() -> None:
    """``serve`` in its own process: it prints its URL, answers, and stops on Ctrl-C (SIGINT)."""
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    code = "from msgmodel.api.server import serve; serve(0)"
    proc = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stderr is not None
        banner = proc.stderr.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)", banner)
        assert match, banner
        how = "".join(proc.stderr.readline() for _ in range(4))
        assert f'anthropic.Anthropic(base_url="http://127.0.0.1:{match.group(1)}", api_key="dummy")' in how
        assert f"ANTHROPIC_BASE_URL=http://127.0.0.1:{match.group(1)} ANTHROPIC_API_KEY=dummy" in how
        conn = http.client.HTTPConnection("127.0.0.1", int(match.group(1)), timeout=JOIN_TIMEOUT)
        conn.request("POST", "/v1/messages", body=b"{", headers={"anthropic-version": "2023-06-01"})
        assert conn.getresponse().status == 400
        conn.close()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(JOIN_TIMEOUT) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_sdk_lists_and_retrieves_models_over_http(server: LocalServer) -> None:
    from msgmodel.api.request import known_models

    c = sdk(server)
    assert [m.id for m in c.models.list(limit=5)] == list(known_models())  # auto-paginated, 5 at a time
    assert c.models.retrieve(MODEL).display_name == "Claude Haiku 4.5"
    with pytest.raises(anthropic.NotFoundError):
        c.models.retrieve("claude-nope")
    status, _, payload = raw(server, "POST", "/v1/models")
    assert status == 405 and payload["error"]["type"] == "invalid_request_error"


def test_an_unknown_model_is_a_404_over_http(server: LocalServer) -> None:
    with pytest.raises(anthropic.NotFoundError) as info:
        sdk(server).messages.create(model="claude-nope-1", max_tokens=5, messages=[{"role": "user", "content": "hi"}])
    assert info.value.status_code == 404


def test_a_deeply_nested_body_is_a_400_over_http(server: LocalServer) -> None:
    status, _, payload = raw(server, "POST", "/v1/messages", b"[" * 100_000)
    assert status == 400 and payload["error"]["type"] == "invalid_request_error"


def test_serve_on_a_busy_port_suggests_port_0() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "msgmodel", "serve", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"msgmodel serve: cannot listen on 127.0.0.1:{port}: ")
    assert "try --port 0 (any free port)" in done.stderr
