"""The ``[api]`` extra: the official ``anthropic`` SDK (and its ``httpx2``), imported when a client is made.

``msgmodel.api`` needs the extra (``pip install 'msgmodel-anthropic[api]'``). Without it,
``import msgmodel.api`` raises ``MissingExtraError`` (a ``ModuleNotFoundError`` naming the
extra and the line that installs it), never a bare ``No module named 'anthropic'`` from deep
inside a call. The check is a lookup, not an import: ``import msgmodel.api`` stays light.
"""

from __future__ import annotations

import importlib.util
from typing import Final

__all__ = ["INSTALL_HINT", "MissingExtraError", "require_extra"]

INSTALL_HINT: Final = "pip install 'msgmodel-anthropic[api]'"


class MissingExtraError(ModuleNotFoundError):
    """``msgmodel.api`` was imported without the ``[api]`` extra (the ``anthropic`` SDK)."""


def _missing(name: str) -> MissingExtraError:
    return MissingExtraError(
        f"msgmodel.api (the local Messages API and its testing kit) needs the official SDK, "
        f"which comes with the [api] extra: {INSTALL_HINT} (the module {name!r} is not installed)",
        name=name,
    )


def require_extra() -> None:
    """``MissingExtraError`` unless the SDK is installed (found, not imported)."""
    for name in ("anthropic", "httpx2"):
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a finder that refuses it, or a module set to None in sys.modules
            found = False
        if not found:
            raise _missing(name)
