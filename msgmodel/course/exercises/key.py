"""The answer key: where the reference solutions live (not in this package) and how ``reveal`` reads them.

The reference solution of every exercise is teacher material, kept in one place: the
``<!-- key: NN.k -->`` python blocks of the teacher's guide, ``docs/teacher-guide.md`` in the
repository (``tests/test_teacher_guide.py`` runs each block against its checker). The package
holds the checkers and the hints, never a solution, so a class image that installs the package
(non-editable, without ``docs/``) gives a student no way to read one.

``reveal(id, confirm=True)`` prints the exercise's key block when it finds the key:

* ``MSGMODEL_REVEAL=off`` in the environment (a class's JupyterHub sets it unless the teacher
  turns reveal on): reveal says it is off, whatever key there is;
* ``MSGMODEL_KEY=/path/to/teacher-guide.md``: that file (a teacher who publishes the key to a
  class sets it);
* otherwise the guide of the checkout the package was installed from in editable mode
  (``make venv``, ``make lab``: self-study), found next to the package; a plain ``pip install``
  has none, and reveal says where the key is.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Final

__all__ = ["KEY_ENV", "REVEAL_ENV", "AnswerKeyError", "key_path", "load_key", "parse_key", "reveal_is_off"]

KEY_ENV: Final = "MSGMODEL_KEY"
"""The environment variable naming the file that holds the key (a teacher's guide)."""

REVEAL_ENV: Final = "MSGMODEL_REVEAL"
"""The environment variable a class sets to ``off``: ``reveal`` then shows no solution."""

_BLOCK: Final = re.compile(r"^<!-- key: (?P<id>\d\d\.\d) -->\n```python\n(?P<code>.*?)^```$", re.M | re.S)
_CHECKOUT_GUIDE: Final = Path(__file__).resolve().parents[3] / "docs" / "teacher-guide.md"


class AnswerKeyError(ValueError):
    """The key file is malformed: an exercise has two key blocks (the message names the file and the id)."""


def parse_key(text: str, source: str = "the key") -> dict[str, str]:
    """Exercise id -> the code of its key block: a ```` ```python ```` fence right after ``<!-- key: NN.k -->``.

    ``AnswerKeyError`` if an id has two blocks.
    """
    key: dict[str, str] = {}
    for m in _BLOCK.finditer(text):
        if m["id"] in key:
            line = text.count("\n", 0, m.start()) + 1
            raise AnswerKeyError(f"{source}:{line}: exercise {m['id']} has two key blocks")
        key[m["id"]] = m["code"]
    return key


def reveal_is_off() -> bool:
    """Whether the environment turns ``reveal`` off (``MSGMODEL_REVEAL=off``, as a class sets it)."""
    return os.environ.get(REVEAL_ENV, "").strip().lower() in ("off", "0", "no", "false")


def key_path() -> Path | None:
    """The file the key is read from: ``$MSGMODEL_KEY``, else the checkout's guide; ``None`` if neither exists."""
    named = os.environ.get(KEY_ENV)
    if named:
        return Path(named) if Path(named).is_file() else None
    return _CHECKOUT_GUIDE if _CHECKOUT_GUIDE.is_file() else None


def load_key(path: Path | None = None) -> dict[str, str]:
    """The key blocks of ``path`` (default: ``key_path()``); empty when there is no key to read."""
    path = path if path is not None else key_path()
    if path is None:
        return {}
    return parse_key(path.read_text(encoding="utf-8"), str(path))
