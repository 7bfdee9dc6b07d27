"""msgmodel: one authoritative content model for LLM agent chat messages.

``import msgmodel`` gives the model (``msgmodel.core.message``): the blocks, ``Message``, the
constructors, the readers and the codec. The validator (``msgmodel.core.protocol``) and the
heavier layers (compaction, the local API, the engine, storage, widgets) are imported
from their own modules; the ``anthropic`` SDK and ipywidgets are imported only where a
client or a widget is made.
"""

from msgmodel.core import __version__, message
from msgmodel.core.message import *  # noqa: F403  (the model's own __all__ is the list; no copy kept here)

__all__ = ["__version__", *message.__all__]
