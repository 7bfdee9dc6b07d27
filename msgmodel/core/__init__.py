"""The core library: the message model and what is built on it. ``import msgmodel`` loads only this layer.

===============  ============================================================
``message``      the model: four block kinds (and ``OpaqueBlock`` for the rest), ``Message``,
                 the constructors, the readers and the codec; the one module that knows
                 what a block looks like
``protocol``     the validator: the Messages API's rules over a history, in the API's words
``compact``      compaction that keeps tool pairs whole, and ``repair``
``tools``        a tool, a registry, and how a ``tool_use`` becomes a ``tool_result``
``engine``       the agent loop (``QueryEngine``)
``storage``      sessions as JSONL files, safe under ``kill -9`` and several processes
``files``        how core opens files: regular files only, and the inter-process lock
``claude_code``  import of Claude Code session transcripts
``cli``          the command line's core commands (``check``)
===============  ============================================================

Nothing here imports the local Messages API (``msgmodel.api``) or the course
(``msgmodel.course``): both are built on this layer.
"""

__version__ = "0.1.0"
"""The package's version (``pyproject.toml`` says the same; a test checks it)."""
