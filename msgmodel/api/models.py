"""The models the local API answers for, as ``GET /v1/models`` and ``GET /v1/models/{id}`` list them.

This module owns the Models endpoints of the local API. The ids are those of the pinned SDK's
``Model`` literal (``msgmodel.api.request.known_models``), newest first, the order the live
list uses. Each is a ``ModelInfo`` in the SDK's shape: ``type`` ``model``, ``id``,
``display_name``, ``created_at`` (RFC 3339), ``lifecycle`` ``active``; the optional fields the
local API cannot know (``capabilities``, ``max_tokens`` ...) are null.

Our wording and our values (no live data is copied): ``display_name`` is spelled from the id
(``claude-opus-4-8`` -> ``Claude Opus 4.8``); ``created_at`` is the date in a dated id, and
otherwise a made-up date that keeps the list's order (one day apart, newest first).

``list_models(query) -> (status, payload)``
    One page, with the SDK's pagination fields (``data``, ``first_id``, ``last_id``,
    ``has_more``) and query (``limit`` 1..1000, default 20; ``after_id``; ``before_id``).
``retrieve_model(model_id) -> (status, payload)``
    One ``ModelInfo``, or a 404 ``not_found_error`` worded as the Messages endpoint words an
    unknown model (``model: <id>``).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, Final
from urllib.parse import parse_qs

from msgmodel.api.request import known_models

__all__ = ["list_models", "model_info", "retrieve_model"]

_DATED: Final = re.compile(r"^(?P<base>.+)-(?P<date>\d{8})$")
_NEWEST: Final = dt.date(2026, 8, 1)
_DEFAULT_LIMIT: Final = 20
_MAX_LIMIT: Final = 1000


def _display_name(model_id: str) -> str:
    m = _DATED.match(model_id)
    base = m.group("base") if m else model_id
    words: list[str] = []
    for part in base.split("-"):
        if part.isdigit() and words and words[-1][-1].isdigit():
            words[-1] += "." + part
        else:
            words.append(part if part.isdigit() else part.capitalize())
    return " ".join(words)


def model_info(model_id: str) -> dict[str, Any]:
    """The ``ModelInfo`` of one known model id (see the module docstring for what is ours)."""
    ids = known_models()
    m = _DATED.match(model_id)
    if m:
        d = m.group("date")
        created = dt.date(int(d[:4]), int(d[4:6]), int(d[6:]))
    else:
        created = _NEWEST - dt.timedelta(days=ids.index(model_id))
    return {
        "type": "model",
        "id": model_id,
        "display_name": _display_name(model_id),
        "created_at": f"{created.isoformat()}T00:00:00Z",
        "lifecycle": "active",
        "capabilities": None,
        "deprecated_at": None,
        "retires_at": None,
        "max_input_tokens": None,
        "max_tokens": None,
    }


def _error(status: int, error_type: str, message: str) -> tuple[int, dict[str, Any]]:
    return status, {"type": "error", "error": {"type": error_type, "message": message}}


def retrieve_model(model_id: str) -> tuple[int, dict[str, Any]]:
    """``GET /v1/models/{model_id}``: (200, ModelInfo) or (404, the error payload)."""
    if model_id not in known_models():
        return _error(404, "not_found_error", f"model: {model_id}")
    return 200, model_info(model_id)


def list_models(query: str) -> tuple[int, dict[str, Any]]:
    """``GET /v1/models?{query}``: (200, one page) or (400, the error payload)."""
    params = parse_qs(query, keep_blank_values=True)
    ids = list(known_models())
    raw_limit = params.get("limit", [str(_DEFAULT_LIMIT)])[-1]
    # The length first: int() refuses more than 4 300 digits with a ValueError (a 500 before).
    if (
        not (raw_limit.isascii() and raw_limit.isdigit() and len(raw_limit) <= 6)
        or not 1 <= int(raw_limit) <= _MAX_LIMIT
    ):
        return _error(400, "invalid_request_error", f"limit: Input should be an integer from 1 to {_MAX_LIMIT}")
    limit = int(raw_limit)
    after = params.get("after_id", [None])[-1]
    before = params.get("before_id", [None])[-1]
    for name, value in (("after_id", after), ("before_id", before)):
        if value is not None and value not in ids:
            return _error(400, "invalid_request_error", f"{name}: unknown model id {value!r}")
    if after is not None:
        page = ids[ids.index(after) + 1 :][:limit]
        has_more = ids.index(after) + 1 + len(page) < len(ids)
    elif before is not None:
        start = max(0, ids.index(before) - limit)
        page = ids[start : ids.index(before)]
        has_more = start > 0
    else:
        page = ids[:limit]
        has_more = len(page) < len(ids)
    return 200, {
        "data": [model_info(i) for i in page],
        "first_id": page[0] if page else None,
        "last_id": page[-1] if page else None,
        "has_more": has_more,
    }
