"""``mypy --strict`` on an agent's code that uses msgmodel with the real ``anthropic`` SDK (review m1).

``to_api`` is typed as the SDK's ``list[MessageParam]``, so ``client.messages.create(messages=to_api(h))``
and ``params: list[MessageParam] = to_api(h)`` need no ``cast``. The snippet also checks that mypy
really reads the SDK's types here: the lines marked ``# E: code`` must be reported, and nothing else.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

AGENT = textwrap.dedent(
    """\
    from __future__ import annotations

    import anthropic
    from anthropic.types import MessageParam

    import msgmodel
    from msgmodel import Message, assistant_msg, blocks_from_api, from_api, to_api, user_text, validate

    client = anthropic.Anthropic(api_key="x", base_url="http://127.0.0.1:9")
    history: list[Message] = [user_text("What is 2 + 3?")]
    params: list[MessageParam] = to_api(history)
    resp = client.messages.create(model="claude-haiku-4-5", max_tokens=64, messages=to_api(history))
    history.append(assistant_msg(blocks_from_api(resp.content)))
    sdk_style: list[MessageParam] = [*params, {"role": "assistant", "content": resp.content}]
    violations: list[msgmodel.Violation] = validate(sdk_style)
    back: list[Message] = from_api(sdk_style)
    system_turn: MessageParam = to_api([msgmodel.system_text("Answer in French.")])[0]

    wrong: list[dict[str, int]] = to_api(history)  # E: assignment
    client.messages.create(model="m", max_tokens="1", messages=params)  # E: call-overload
    """
)


@pytest.mark.slow
def test_mypy_strict_accepts_to_api_at_the_sdk_boundary(tmp_path: Path) -> None:
    from mypy import api

    snippet = tmp_path / "agent.py"
    snippet.write_text(AGENT)
    expected = {
        (n, m.group(1)) for n, line in enumerate(AGENT.splitlines(), 1) if (m := re.search(r"# E: (\S+)", line))
    }
    stdout, stderr, _ = api.run(
        [
            "--strict",
            "--show-error-codes",
            "--no-error-summary",
            "--hide-error-context",
            "--no-pretty",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(ROOT / "build" / "mypy-sdk-cache"),  # the SDK's types take ~20 s to check cold
            str(snippet),
        ]
    )
    found = set()
    for line in stdout.splitlines():
        if ": note: " in line:
            continue
        where, _, rest = line.partition(": error: ")
        assert rest and Path(where.rpartition(":")[0]).name == snippet.name, stdout + stderr
        found.add((int(where.rpartition(":")[2]), rest.rsplit("[", 1)[1].rstrip("]")))
    assert found == expected, stdout + stderr
