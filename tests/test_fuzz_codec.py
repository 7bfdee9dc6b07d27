"""A seeded, bounded fuzz job for the codec and the validator (issue 11; a few seconds in all).

Documents are built by ``random.Random(seed)`` from a grammar that is mostly right and often
wrong: the four known kinds with their core fields (sometimes mistyped or missing), unknown kinds,
extra keys drawn from a pool that holds the core names of other kinds and the structs' internal
field name, ``tool_result`` nesting up to past ``MAX_NESTING``, and values that are not messages.
Each document then goes through every entry point:

* ``from_json`` (its JSON text, and byte-mutated copies of it) and ``from_api`` raise only
  ``DecodeError``, agree on what decodes, and what decodes is written back (``to_json``,
  ``to_api``) with every key and value of the input; the only changes are the core fields' default
  values (``is_error: false``, a result's ``content: ""``, ``signature: null``), which are written
  by omission;
* ``validate`` and ``validate_request`` never raise on the document, on what it decodes to, nor on
  ``Message`` objects holding arbitrary values (msgspec does not type-check ``__init__``).

The seeds are fixed, so a failure reproduces: the assertion message names the seed and the case.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from msgmodel.core.message import (
    MAX_NESTING,
    DecodeError,
    Message,
    ToolResultBlock,
    from_api,
    from_json,
    to_api,
    to_json,
    transcript_of,
)
from msgmodel.core.protocol import Violation, validate, validate_request

SEEDS = range(8)
CASES_PER_SEED = 250

_KEYS = [
    "type",
    "text",
    "thinking",
    "signature",
    "id",
    "name",
    "input",
    "tool_use_id",
    "content",
    "is_error",
    "role",
    "cache_control",
    "citations",
    "__msgmodel_extra__",
    "",
    "é",
]
_KINDS = ["text", "thinking", "tool_use", "tool_result", "image", "redacted_thinking", "server_tool_use", "x"]
_RESERVED = "__msgmodel_extra__"
_KNOWN = frozenset({"text", "thinking", "tool_use", "tool_result"})
_ROLES = ["user", "assistant", "system", "tool", None, 1]
_STRINGS = ["", "a", " ", "toolu_1", "true", "false", "\u00e9\u4e2d\U0001f600", '"\\\n', "__msgmodel_extra__"]


class _Gen:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        self.clean = False  # a clean document: right values, only the internal name as an extra key

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def scalar(self) -> Any:
        return self.r.choice(
            [
                None,
                True,
                False,
                0,
                1,
                -(2**63),
                2**64 - 1,
                1.5,
                -0.0,
                self.r.choice(_STRINGS),
                self.r.randrange(10**6),
            ]
        )

    def value(self, depth: int = 0) -> Any:
        roll = self.r.random()
        if depth > 3 or roll < 0.6:
            return self.scalar()
        if roll < 0.8:
            return [self.value(depth + 1) for _ in range(self.r.randrange(3))]
        return {self.r.choice(_KEYS + _STRINGS): self.value(depth + 1) for _ in range(self.r.randrange(3))}

    def right_or_wrong(self, right: Any, p_wrong: float = 0.08) -> Any:
        return self.value() if not self.clean and self.chance(p_wrong) else right

    def block(self, depth: int) -> Any:
        if self.chance(0.03):
            return self.value()
        kind = self.r.choice(_KINDS)
        b: dict[str, Any] = {"type": self.right_or_wrong(kind, 0.03)}
        if kind == "text":
            b["text"] = self.right_or_wrong(self.r.choice(_STRINGS))
        elif kind == "thinking":
            b["thinking"] = self.right_or_wrong("t")
            if self.chance(0.8):
                b["signature"] = self.right_or_wrong(self.r.choice(["sig", None]))
        elif kind == "tool_use":
            b["id"] = self.right_or_wrong(f"t{self.r.randrange(5)}")
            b["name"] = self.right_or_wrong("n")
            b["input"] = self.right_or_wrong({k: self.value(2) for k in self.r.sample(_KEYS, self.r.randrange(3))})
        elif kind == "tool_result":
            b["tool_use_id"] = self.right_or_wrong(f"t{self.r.randrange(5)}")
            if self.chance(0.7):
                b["content"] = self.result_content(depth)
            if self.chance(0.4):
                b["is_error"] = self.right_or_wrong(self.chance(0.5), 0.2)
        elif self.chance(0.5):
            b["data"] = self.value()
        if self.clean:
            if kind in _KNOWN and self.chance(0.3):
                b[_RESERVED] = self.r.choice([None, {}, {"content": "boom", "is_error": True}, {"x": [1]}])
            return b
        for _ in range(self.r.choice([0, 0, 0, 1, 2])):
            key = self.r.choice(_KEYS)
            if key not in b or self.chance(0.1):
                b[key] = self.value()
        if self.chance(0.03):
            b.pop(self.r.choice(list(b)))
        return b

    def result_content(self, depth: int) -> Any:
        if self.chance(0.4):
            return self.right_or_wrong(self.r.choice(_STRINGS))
        if depth < MAX_NESTING + 2 and self.chance(0.1):  # a deep chain of results
            inner: Any = "x"
            for _ in range(self.r.choice([MAX_NESTING - depth, MAX_NESTING + 1 - depth, 40])):
                inner = [{"type": "tool_result", "tool_use_id": "t0", "content": inner}]
            return inner
        return [self.block(depth + 1) for _ in range(self.r.randrange(3))]

    def message(self) -> Any:
        if self.clean:
            return {"role": self.r.choice(["user", "assistant"]), "content": [self.block(1) for _ in range(3)]}
        if self.chance(0.03):
            return self.value()
        m: dict[str, Any] = {}
        if self.chance(0.97):
            m["role"] = self.r.choice(["user", "assistant"]) if self.chance(0.9) else self.r.choice(_ROLES)
        if self.chance(0.97):
            roll = self.r.random()
            if roll < 0.25:
                m["content"] = self.r.choice(_STRINGS)
            elif roll < 0.95:
                m["content"] = [self.block(1) for _ in range(self.r.randrange(4))]
            else:
                m["content"] = self.value()
        if self.chance(0.03):
            m[self.r.choice(_KEYS)] = self.value()
        return m

    def document(self) -> Any:
        self.clean = self.chance(0.3)
        if not self.clean and self.chance(0.03):
            return self.value()
        return [self.message() for _ in range(self.r.randrange(1 if self.clean else 0, 5))]

    def mutate(self, data: bytes) -> bytes:
        b = bytearray(data)
        for _ in range(self.r.randrange(1, 4)):
            if not b:
                break
            i = self.r.randrange(len(b))
            op = self.r.randrange(3)
            if op == 0:
                b[i] = self.r.randrange(256)
            elif op == 1:
                del b[i:]
            else:
                b[i:i] = self.r.choice([b"[", b"{", b'"', b",", b"\\u", b"\xff"])
        return bytes(b)


def _expected_block(b: dict[str, Any]) -> dict[str, Any]:
    """What the codec writes for a block it accepted: the input minus the core defaults."""
    out = dict(b)
    if b["type"] == "thinking" and out.get("signature", "") is None:
        del out["signature"]
    if b["type"] == "tool_result":
        if out.get("is_error") is False:
            del out["is_error"]
        if out.get("content") == "":
            del out["content"]
        elif isinstance(out.get("content"), list):
            out["content"] = [_expected_block(c) for c in out["content"]]
    return out


def _expected(doc: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"role": m["role"], "content": m["content"]}
        if isinstance(m["content"], str)
        else {"role": m["role"], "content": [_expected_block(b) for b in m["content"]]}
        for m in doc
    ]


def _depth(messages: list[Message]) -> int:
    """How deep tool_result blocks nest in decoded messages."""
    deepest, stack = 0, [(m.content, 1) for m in messages if isinstance(m.content, list)]
    while stack:
        blocks, depth = stack.pop()
        for b in blocks:
            if isinstance(b, ToolResultBlock):
                deepest = max(deepest, depth)
                if isinstance(b.content, list):
                    stack.append((b.content, depth + 1))
    return deepest


def _same(a: Any, b: Any) -> bool:
    """JSON equality that tells ``true`` from ``1`` and ``1`` from ``1.0``."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _decode(fn: Any, arg: Any, where: str) -> tuple[list[Message] | None, str | None]:
    try:
        return fn(arg), None
    except DecodeError as e:
        return None, e.path
    except Exception as e:  # pragma: no cover - the assertion is the point
        raise AssertionError(f"{where}: {type(e).__name__}: {e}") from e


def _check_validators(value: Any, where: str) -> None:
    try:
        out = validate(value)
        body = validate_request({"model": "claude-sonnet-4-5", "max_tokens": 16, "messages": value, "stream": True})
    except Exception as e:  # pragma: no cover - the assertion is the point
        raise AssertionError(f"{where}: validate raised {type(e).__name__}: {e}") from e
    assert all(isinstance(v, Violation) for v in out + body), where


@pytest.mark.parametrize("seed", SEEDS)
def test_codec_and_validator_on_fuzzed_documents(seed: int) -> None:
    g = _Gen(seed)
    decoded = 0
    for case in range(CASES_PER_SEED):
        where = f"seed {seed}, case {case}"
        doc = g.document()
        text = json.dumps(doc)
        from_text, text_err = _decode(from_json, text, where)
        from_dicts, dicts_err = _decode(from_api, doc, where)
        assert (text_err, from_text) == (dicts_err, from_dicts), where  # both decoders, one answer
        for _ in range(2):
            _decode(from_json, g.mutate(text.encode()), where + " (mutated bytes)")
        _check_validators(doc, where)
        if validate(doc, model="claude-sonnet-4-5") == [] and text_err is not None:  # one answer (no system role there)
            raise AssertionError(f"{where}: the validator accepts what the codec refuses at {text_err}")
        if from_text is None:
            continue
        decoded += 1
        expected = _expected(doc)
        assert _same(json.loads(to_json(from_text)), expected), where  # every key, verbatim
        assert _same(to_api(from_text), expected), where
        assert from_json(to_json(from_text)) == from_text, where
        assert _depth(from_text) <= MAX_NESTING, where  # what decodes, every reader handles
        assert isinstance(transcript_of(from_text), str), where
        _check_validators(from_text, where)
    assert decoded > CASES_PER_SEED // 10  # the grammar is right often enough to reach the writers


@pytest.mark.parametrize("seed", SEEDS)
def test_validator_on_messages_holding_arbitrary_values(seed: int) -> None:
    g = _Gen(1000 + seed)
    for case in range(CASES_PER_SEED):
        content = g.r.choice([g.value(), [g.value() for _ in range(2)], [g.block(1)], g.r.choice(_STRINGS)])
        m = Message(role=g.r.choice(_ROLES), content=content)
        mixed = [m, g.message()] if g.chance(0.5) else [m]
        _check_validators(mixed, f"seed {seed}, case {case}: {m!r}")
