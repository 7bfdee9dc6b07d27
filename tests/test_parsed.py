"""The request, read once (``msgmodel.api.parsed``): its typed fields, the body it still offers, and its ids.

Before this value, four modules of ``msgmodel.api`` re-read the body field by field (the server,
the limits, the constraints, and the models through ``request_messages``), and ``constraints``
imported ``scripted`` lazily while ``scripted`` imported ``constraints``.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
import pytest
from imports import imported_modules

import msgmodel
from msgmodel.api.parsed import ParsedRequest, ToolChoice, ToolSpec, parse_request, signature_for, tool_use_id_for
from msgmodel.api.scripted import ScriptedModel
from msgmodel.api.server import handle_messages, local_client
from msgmodel.core.message import ContentBlock, DecodeError, TextBlock, ToolUseBlock, assistant_msg, to_api, user_text

MODEL = "claude-haiku-4-5"
BODY: Any = {
    "model": MODEL,
    "max_tokens": 77,
    "system": [{"type": "text", "text": "Be brief."}],
    "messages": [
        {"role": "user", "content": "hi"},
        {"role": "system", "content": "a mid-conversation instruction"},
        {"role": "assistant", "content": [{"type": "text", "text": "hello"}]},
        {"role": "user", "content": "again"},
    ],
    "tools": [
        {"name": "read_file", "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}},
        {"type": "bash_20250124", "name": "bash"},
        {"type": "computer_toolset_20260801"},  # a toolset: no name, not a tool one can force
    ],
    "tool_choice": {"type": "tool", "name": "bash", "disable_parallel_tool_use": True},
    "output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}},
    "stop_sequences": ["END", 3],
    "stream": True,
    "thinking": {"type": "adaptive"},
}


def test_the_fields_are_read_once_into_typed_values() -> None:
    r = parse_request(BODY)
    assert r.model == MODEL and r.max_tokens == 77 and r.stream and r.thinking == "adaptive" and r.thinking_on
    assert [m.role for m in r.messages] == ["user", "assistant", "user"]  # the system turn is instructions
    assert r.system == "Be brief."
    assert r.tools == (
        ToolSpec("read_file", None, BODY["tools"][0]["input_schema"]),
        ToolSpec("bash", "bash_20250124", None),
    )
    assert r.tool("bash") == r.tools[1] and r.tool("nope") is None
    assert r.tool_choice == ToolChoice("tool", "bash", True) and r.tool_choice.forced
    assert r.output_schema == {"type": "object"}
    assert r.stop_sequences == ("END",)  # what is not a string is no stop sequence


def test_a_request_is_also_the_read_only_body_a_model_received_before() -> None:
    r = parse_request(BODY)
    assert r["messages"] is BODY["messages"] and r.get("tools") is BODY["tools"] and "thinking" in r
    assert dict(r) == BODY and len(r) == len(BODY) and r == BODY
    assert r.body is BODY and json.loads(json.dumps(r.body)) == BODY
    with pytest.raises(TypeError):
        r["model"] = "other"  # type: ignore[index]


def test_a_model_written_against_the_body_still_works_through_the_server() -> None:
    seen: list[Any] = []

    class BodyReader:
        """A user's model from before: it reads the body with dict access only."""

        def respond(self, request: Any) -> Sequence[ContentBlock]:
            seen.append(request)
            n = len(request["messages"])
            return [TextBlock(f"{n} message(s); tools: {request.get('tools') is not None}")]

    reply = local_client(BodyReader()).messages.create(
        model=MODEL, max_tokens=50, messages=[{"role": "user", "content": "hi"}]
    )
    assert reply.content[0].text == "1 message(s); tools: False"  # type: ignore[union-attr]
    assert isinstance(seen[0], ParsedRequest)
    turn = ScriptedModel([lambda req: [TextBlock(f"third of {len(req['messages'])}")]])
    assert turn.respond({"model": MODEL, "messages": [{"role": "user", "content": "x"}]}) == [TextBlock("third of 1")]


def test_messages_that_are_no_conversation_are_a_decode_error_with_the_path() -> None:
    with pytest.raises(DecodeError, match=r"\$\.messages"):
        parse_request({"model": MODEL, "messages": "hi"})


def _old_digest(*parts: object) -> bytes:  # the formula scripted.py used before the request was parsed once
    h = hashlib.sha256()
    for part in parts:
        h.update(msgspec.json.encode(part))
        h.update(b"\x00")
    return h.digest()


def test_ids_and_signatures_are_the_same_bytes_as_before_from_a_body_or_a_request() -> None:
    history = to_api([user_text("a"), assistant_msg([ToolUseBlock("t1", "x", {})])])
    body = {"model": MODEL, "messages": history}
    old_id = "toolu_local_" + _old_digest(history, 3).hex()[:20]
    old_signature = base64.b64encode(_old_digest("signature", "I think", history)).decode()
    for request in (body, parse_request(body)):
        assert tool_use_id_for(request, 3) == old_id
        assert signature_for("I think", request) == old_signature


def test_the_server_answers_from_the_parsed_request() -> None:
    valid = {**BODY, "model": "claude-opus-4-8", "stream": False, "stop_sequences": ["END"]}  # system turns: 4.8
    r = handle_messages(msgspec.json.encode(valid))
    assert r.status == 200, r.json()
    thought, call = r.json()["content"]  # thinking is on: the rule model thinks first
    assert thought["type"] == "thinking" and thought["signature"]
    assert call["name"] == "bash" and call["input"] == {"command": "ls -la"}


def _api_imports() -> dict[str, set[str]]:
    root = Path(msgmodel.__file__).parent.parent
    found = {}
    for path in sorted((root / "msgmodel" / "api").glob("*.py")):
        module = ".".join(path.relative_to(root).with_suffix("").parts)
        imported = imported_modules(path.read_text(encoding="utf-8"), module)
        found[module] = {m for m in imported if m.startswith("msgmodel.api.") and m != module}
    return found


def test_the_api_modules_import_each_other_without_a_circle() -> None:
    # Before: constraints imported scripted inside two functions while scripted imported constraints.
    graph = _api_imports()
    graph = {m: {d for d in deps if d in graph} for m, deps in graph.items() if m != "msgmodel.api.__init__"}
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, " -> ".join((*path, module))
        if module in done:
            return
        for dep in graph.get(module, ()):
            visit(dep, (*path, module))
        done.add(module)

    for module in graph:
        visit(module, ())
