"""EXHIBIT, NOT CODE TO USE: the any-typed message handling of steps 29–30 of the original step-31 tutorial.

This package deliberately knows everything twice. It is the code a team writes while
messages are ``list[dict[str, Any]]``: every module carries its own copy of "what a block
looks like", "how to read its text" and "is this a tool result?", and each copy is a
little different. It is kept as an exhibit of the bug that step 31 (``msgmodel.core.message``)
cures, so the notebooks and tests can show the failures happening against the local API:

* ``compact29``: step 29. Compaction keeps ``history[-keep:]`` by slicing and can start the
  window on an orphan ``tool_result`` (the API answers 400); then the step-29 local fix,
  compaction's own private ``_is_clean_user_start`` (copy #1 of that knowledge).
* ``summary30``: step 30. The summarizer's transcript renders every tool block as
  ``(tool call)``, so the summary cannot know what was read, run or failed; then the
  step-30 local fix, compaction's own ``_block_to_text`` (copy #2), which drifts from
  ``message.block_to_text`` in small, honest ways.
* ``api``: the api layer on dicts, with its own text extraction (copy #3).
* ``engine``: the agent loop on dicts, hand-building ``{"type": "tool_result", ...}``;
  its error path carries a field-name slip (``toolUseId``) that only the server catches.
* ``storage``: ``json.dump`` of the list; nothing checks a shape on the way in or out.

``harness`` is not part of the exhibit: it is how the chapters drive it (the legacy engine on the
local API, a compactor that records what it was handed, the first 400 of a session, traced paths).

The rest of ``msgmodel`` must not import this package (``tests/test_legacy.py`` checks
it). Use ``msgmodel.core.message``, ``msgmodel.core.compact`` and ``msgmodel.core.engine`` instead.
"""
