"""msgmodel: one authoritative content model for LLM agent chat messages.

``import msgmodel`` gives the model (``msgmodel.core.message``): the blocks, ``Message``, the
constructors, the readers and the codec; and the validator's entry point, ``validate`` (with
``Violation`` and ``ProtocolError``; the rest of ``msgmodel.core.protocol`` lives there). The
heavier layers (compaction, the local API, the engine, storage, widgets) are imported
from their own modules; the ``anthropic`` SDK and ipywidgets are imported only where a
client or a widget is made.
"""

from typing import TYPE_CHECKING, Any

from msgmodel.core import __version__, message
from msgmodel.core.message import *  # noqa: F403  (the model's own __all__ is the list; no copy kept here)

if TYPE_CHECKING:
    from msgmodel.core.protocol import ProtocolError as ProtocolError
    from msgmodel.core.protocol import Violation as Violation
    from msgmodel.core.protocol import validate as validate

_FROM_PROTOCOL = ("ProtocolError", "Violation", "validate")
__all__ = ["__version__", *_FROM_PROTOCOL, *message.__all__]


def __getattr__(name: str) -> Any:
    """The validator's names, imported on first use (the validator's tables cost ~12 ms to import)."""
    if name in _FROM_PROTOCOL:
        from msgmodel.core import protocol

        return getattr(protocol, name)
    raise AttributeError(f"module 'msgmodel' has no attribute {name!r}")
