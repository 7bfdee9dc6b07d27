"""The answers of the closed questions (choose, classify, give a verdict), kept readable here and sealed in a class.

A closed question's checker must know its answer to say right or wrong, and its best feedback
("you missed `label`: …") says why a wrong choice is wrong. The questions whose answers are not a
fact the library computes (02.2, 03.1, 03.3, 07.1: a reading, a classification, a judgement) keep
them in ``closed_answers.json``: per exercise and item (a letter, a function name, a scenario),
the values that are right and the feedback for each wrong value.

In a checkout (self-study, ``make lab``) the checkers read that file. The class image installs a
*sealed* copy instead (``seal``; ``classroom/install.py``): for each item, the SHA-256 digests of
its right values, and each feedback text encrypted with a key derived from the wrong value it
answers, so the text opens only for a student who gave that value. The sealed file holds nothing
``check`` would not tell: trying every value against it is trying every option with ``check``,
which a closed question always allows, but no answer or explanation can be read from the
package (``make test-hub-real`` greps the image for the answer key).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

__all__ = ["PLAIN", "SEALED", "Closed", "closed", "digest", "seal", "sealed_form", "unseal"]

HERE: Final = Path(__file__).resolve().parent
PLAIN: Final = HERE / "closed_answers.json"
SEALED: Final = HERE / "closed_answers.sealed.json"
_TAG = 16


def digest(exercise_id: str, item: str, value: str) -> str:
    """The digest a sealed file stores for ``value`` of ``item`` (hex)."""
    return hashlib.sha256(f"msgmodel closed answer\0{exercise_id}\0{item}\0{value}".encode()).hexdigest()


def _key(exercise_id: str, item: str, value: str) -> bytes:
    return hashlib.sha256(f"msgmodel closed feedback\0{exercise_id}\0{item}\0{value}".encode()).digest()


def seal(text: str, exercise_id: str, item: str, value: str) -> str:
    """``text`` encrypted so that only ``value`` of ``item`` opens it (a SHAKE-256 stream, an HMAC tag)."""
    key = _key(exercise_id, item, value)
    data = text.encode()
    stream = hashlib.shake_256(key).digest(len(data))
    body = bytes(a ^ b for a, b in zip(data, stream, strict=True))
    tag = hmac.new(key, body, "sha256").digest()[:_TAG]
    return base64.b64encode(tag + body).decode()


def unseal(blob: str, exercise_id: str, item: str, value: str) -> str | None:
    """The text ``seal`` sealed for ``value``; ``None`` when ``value`` is not the one it was sealed for."""
    raw = base64.b64decode(blob)
    tag, body = raw[:_TAG], raw[_TAG:]
    key = _key(exercise_id, item, value)
    if not hmac.compare_digest(tag, hmac.new(key, body, "sha256").digest()[:_TAG]):
        return None
    stream = hashlib.shake_256(key).digest(len(body))
    return bytes(a ^ b for a, b in zip(body, stream, strict=True)).decode()


@dataclass(frozen=True)
class Closed:
    """One closed question's answers, plain or sealed; ``judge`` is all a checker asks of them."""

    exercise_id: str
    data: dict[str, Any]
    sealed: bool

    def items(self) -> list[str]:
        """The items of the question, in the file's order."""
        return list(self.data)

    def is_right(self, item: str, value: str) -> bool:
        entry = self.data[item]
        if self.sealed:
            return digest(self.exercise_id, item, value) in entry["right"]
        return value in entry["right"]

    def feedback(self, item: str, value: str) -> str | None:
        """What the checker says to ``value`` of ``item`` when it is wrong (``None``: nothing particular)."""
        entry = self.data[item]
        if not self.sealed:
            text = entry.get("feedback", {}).get(value)
            return str(text) if text is not None else None
        blob = entry.get("feedback", {}).get(digest(self.exercise_id, item, value))
        return None if blob is None else unseal(blob, self.exercise_id, item, value)


@functools.cache
def _load() -> tuple[dict[str, Any], bool]:
    if PLAIN.exists():
        return json.loads(PLAIN.read_text(encoding="utf-8")), False
    return json.loads(SEALED.read_text(encoding="utf-8")), True


def closed(exercise_id: str) -> Closed:
    """The answers of closed question ``exercise_id``: readable in a checkout, sealed in a class image."""
    data, sealed = _load()
    return Closed(exercise_id, data[exercise_id], sealed)


def sealed_form(plain: dict[str, Any]) -> dict[str, Any]:
    """The sealed form of a ``closed_answers.json``: digests of the right values, feedback sealed per wrong value."""
    out: dict[str, Any] = {}
    for ex_id, items in plain.items():
        out[ex_id] = {}
        for item, entry in items.items():
            out[ex_id][item] = {
                "right": sorted(digest(ex_id, item, v) for v in entry["right"]),
                "feedback": {
                    digest(ex_id, item, v): seal(text, ex_id, item, v) for v, text in entry.get("feedback", {}).items()
                },
            }
    return out
