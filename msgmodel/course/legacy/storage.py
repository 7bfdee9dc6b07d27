"""Step 30 exhibit: the session on disk as raw dicts.

``save`` is ``json.dump`` of the list and ``load`` is ``json.load``: nothing checks a
shape on the way out or in, so a history holding a misspelled field (say ``toolUseId``)
is saved and loaded without a word, and fails only when the server reads it.
``msgmodel.core.message.from_json`` would have named the path on load.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def save(path: str | Path, messages: list[dict[str, Any]]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(messages, f, ensure_ascii=False, indent=1)


def load(path: str | Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        messages: list[dict[str, Any]] = json.load(f)
    return messages
