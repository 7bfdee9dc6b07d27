"""A seeded, bounded fuzz job for ``msgmodel.core.claude_code.import_claude_code``.

Mutated copies of the shipped sample session and of the Claude Code fixtures go through
the importer with both scopes. The promise under test: a bad line never stops the import,
and a file that is no session at all raises ``ClaudeCodeError``; no other exception, ever.
What comes back is also self-consistent (one line tuple per message, skipped lines inside
the file) and readable by ``protocol.validate`` without an exception.

Mutations work on two levels: on the bytes (flip, cut, splice, duplicate, drop, swap, join
lines) and on the JSON of a line (a field replaced by a value of another JSON type, by a
uuid of another line, by a deep or odd value; a field removed; the line's ``type`` or
``subtype`` changed; a boundary without its logical link). The generator is seeded and
the number of cases fixed, so a failure reproduces: the message names the case.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any, Final

import pytest

from msgmodel.core.claude_code import ClaudeCodeError, import_claude_code, sample_session_path
from msgmodel.core.protocol import validate

FIXTURES: Final = Path(__file__).parent / "fixtures" / "claude_code"
SOURCES: Final = (sample_session_path(), FIXTURES / "v1_0_session.jsonl", FIXTURES / "v2_1_clean_session.jsonl")
CASES_PER_SOURCE: Final = 500
SEED: Final = 20261201

_KEYS: Final = (
    "type",
    "subtype",
    "uuid",
    "parentUuid",
    "logicalParentUuid",
    "isSidechain",
    "isMeta",
    "isApiErrorMessage",
    "isCompactSummary",
    "sessionId",
    "version",
    "message",
    "sourceToolAssistantUUID",
    "compactMetadata",
    "data",
    "summary",
)
_MESSAGE_KEYS: Final = ("role", "content", "id", "model")
_TYPES: Final = ("user", "assistant", "system", "progress", "summary", "queue-operation", "file-history-snapshot", "x")


def _odd_value(rng: random.Random, uuids: list[str]) -> Any:
    """A JSON value of a random kind, some of them hostile."""
    choice = rng.randrange(14)
    if choice == 0:
        return None
    if choice == 1:
        return rng.choice([True, False])
    if choice == 2:
        return rng.choice([0, -1, 2**63, 1.5, -0.0])
    if choice == 3:
        return rng.choice(["", " ", "\ud800", "x" * 300, "compact_boundary", "<synthetic>"])
    if choice == 4:
        return []
    if choice == 5:
        return {}
    if choice == 6:
        return rng.choice(uuids) if uuids else "u"
    if choice == 7:
        return [{"type": rng.choice(["text", "tool_use", "tool_result", "thinking", "image", "server_tool_use"])}]
    if choice == 8:
        return [{"type": "tool_result", "tool_use_id": rng.choice(uuids) if uuids else "t", "content": [[]]}]
    if choice == 9:  # spliced in as text by _deepen (json.dumps would recurse)
        return f"{rng.choice(_DEEP_KINDS)}{rng.choice([50, 400, 3000])}"
    if choice == 10:
        return {"role": rng.choice(["user", "assistant", "system", 5]), "content": rng.choice(["", [], "hi", 3])}
    if choice == 11:
        return [1, "a", None]
    if choice == 12:
        return {"type": "text", "text": 5}
    return "x"


_DEEP_KINDS: Final = ("deep-array-", "deep-results-")
_DEEP_MARK: Final = re.compile(r'"deep-(array|results)-(\d+)"')
_RESULT_OPEN: Final = '[{"type":"tool_result","tool_use_id":"t","content":'


def _deepen(text: str) -> str:
    """The JSON text with each deep marker replaced by an array, or content of tool results, nested that deep."""

    def nested(m: re.Match[str]) -> str:
        n = int(m[2])
        if m[1] == "array":
            return "[" * n + '"x"' + "]" * n
        return _RESULT_OPEN * n + '"x"' + "}]" * n

    return _DEEP_MARK.sub(nested, text)


def _mutate_json(rng: random.Random, obj: dict[str, Any], uuids: list[str]) -> dict[str, Any]:
    obj = dict(obj)
    action = rng.randrange(6)
    if action == 0 and obj:
        obj.pop(rng.choice(sorted(obj)), None)
    elif action == 1:
        obj[rng.choice(_KEYS)] = _odd_value(rng, uuids)
    elif action == 2:
        obj["type"] = rng.choice(_TYPES)
    elif action == 3:
        obj.update(type="system", subtype="compact_boundary")
        if rng.random() < 0.5:
            obj.pop("logicalParentUuid", None)
        else:
            obj["logicalParentUuid"] = rng.choice(uuids) if uuids else None
    elif action == 4:
        msg = obj.get("message")
        msg = dict(msg) if isinstance(msg, dict) else {}
        msg[rng.choice(_MESSAGE_KEYS)] = _odd_value(rng, uuids)
        obj["message"] = msg
    else:
        obj["parentUuid"] = rng.choice([*uuids, None, "missing"]) if uuids else None
    return obj


def _mutate(rng: random.Random, data: bytes) -> bytes:
    lines = data.split(b"\n")
    uuids = [u for line in lines for u in _uuids(line)]
    for _ in range(rng.randrange(1, 5)):
        if not lines:
            break
        i = rng.randrange(len(lines))
        action = rng.randrange(10)
        if action <= 2:  # a JSON-level change of one line
            try:
                obj = json.loads(lines[i])
            except ValueError:
                continue
            if isinstance(obj, dict):
                lines[i] = _deepen(json.dumps(_mutate_json(rng, obj, uuids))).encode("utf-8", "surrogatepass")
        elif action == 3:  # flip bytes
            b = bytearray(lines[i])
            for _ in range(rng.randrange(1, 4)):
                if b:
                    b[rng.randrange(len(b))] = rng.randrange(256)
            lines[i] = bytes(b)
        elif action == 4:  # cut the line (a torn write, or a hole)
            lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
        elif action == 5:
            lines.insert(rng.randrange(len(lines) + 1), lines[i])
        elif action == 6:
            del lines[i]
        elif action == 7:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif action == 8 and i + 1 < len(lines):  # two lines on one
            lines[i : i + 2] = [lines[i] + lines[i + 1]]
        else:  # junk between lines
            lines.insert(i, rng.choice([b"\x00\xff", b"[", b"{}", b"null", b"\xef\xbb\xbf{", b"\r", b'"x"']))
    out = b"\n".join(lines)
    if rng.random() < 0.1:
        out = out[: rng.randrange(len(out) + 1)]
    return out


def _uuids(line: bytes) -> list[str]:
    try:
        obj = json.loads(line)
    except ValueError:
        return []
    return [v for k in ("uuid", "parentUuid") if isinstance(obj, dict) and isinstance(v := obj.get(k), str)]


def _check(data: bytes, case: str) -> None:
    for scope in ("context", "all"):
        try:
            s = import_claude_code(data, scope=scope, name=case)
        except ClaudeCodeError:
            continue
        except Exception as e:  # pragma: no cover - the failure this test exists to catch
            pytest.fail(f"{case} (scope={scope}): {type(e).__name__}: {e}")
        assert len(s.messages) == len(s.message_lines), case
        assert all(1 <= k.line <= s.line_count for k in s.skipped), case
        assert all(1 <= no <= s.line_count for nos in s.message_lines for no in nos), case
        validate(s.messages)  # must not raise on what the importer built


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_mutated_sessions_raise_only_claude_code_error(source: Path) -> None:
    data = source.read_bytes()
    rng = random.Random(f"{SEED}:{source.name}")
    for n in range(CASES_PER_SOURCE):
        _check(_mutate(rng, data), f"{source.name}#case{n}")


def test_the_mutations_reach_both_outcomes() -> None:
    """The fuzz is not vacuous: some mutants import (with lines skipped), some are refused."""
    data = sample_session_path().read_bytes()
    rng = random.Random(SEED)
    imported = refused = skipped_more = 0
    baseline = len(import_claude_code(data).skipped)
    for _ in range(60):
        try:
            s = import_claude_code(_mutate(rng, data))
        except ClaudeCodeError:
            refused += 1
            continue
        imported += 1
        skipped_more += len(s.skipped) != baseline
    assert imported > 30 and skipped_more > 5, (imported, refused, skipped_more)
    with pytest.raises(ClaudeCodeError):
        import_claude_code(b"\x00\xff\n[\n", name="junk")
