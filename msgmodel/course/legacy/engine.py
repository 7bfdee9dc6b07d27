"""Step 30 exhibit: the agent loop on dicts, with callbacks, as it stood before step 31.

``QueryEngine.submit(prompt)`` appends the prompt, calls the model through ``legacy.api``,
runs each ``tool_use`` and hand-builds the ``{"type": "tool_result", ...}`` dicts, until
the model answers without tools; ``compact`` (``compact29.compact`` by default) runs when
the history holds more than ``max_messages`` messages.

The slip it carries: the error path of a tool that raised builds its result with
``toolUseId`` instead of ``tool_use_id``. Nothing in the process notices (a dict takes
any key, ``json.dump`` writes it, the happy path never runs that line); only the server
does, on the next request, with a 400 naming
``messages.N.content.M.tool_result.tool_use_id``. ``tool_result_block(id, text,
is_error=True)`` in ``msgmodel.core.message`` makes that slip impossible to write.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgmodel.course.legacy import api
from msgmodel.course.legacy.compact29 import compact as slice_compact

Compactor = Callable[[list[dict[str, Any]], int, Callable[[str], str]], list[dict[str, Any]]]


class QueryEngine:
    def __init__(
        self,
        client: Any,
        tools: dict[str, Callable[..., str]],
        tool_schemas: list[dict[str, Any]],
        *,
        model: str = api.DEFAULT_MODEL,
        max_messages: int = 12,
        keep: int = 6,
        max_turns: int = 10,
        compact: Compactor = slice_compact,
        on_assistant: Callable[[dict[str, Any]], None] | None = None,
        on_tool_result: Callable[[dict[str, Any]], None] | None = None,
        on_compact: Callable[[list[dict[str, Any]]], None] | None = None,
    ) -> None:
        self.client = client
        self.tools = tools
        self.tool_schemas = tool_schemas
        self.model = model
        self.max_messages = max_messages
        self.keep = keep
        self.max_turns = max_turns
        self.compact = compact
        self.on_assistant = on_assistant
        self.on_tool_result = on_tool_result
        self.on_compact = on_compact
        self.messages: list[dict[str, Any]] = []

    def _summarize(self, text: str) -> str:
        return api.summarize(self.client, self.model, text)

    def submit(self, prompt: str) -> str:
        self.messages.append({"role": "user", "content": prompt})
        for _ in range(self.max_turns):
            if len(self.messages) > self.max_messages:
                self.messages = self.compact(self.messages, self.keep, self._summarize)
                if self.on_compact:
                    self.on_compact(self.messages)
            reply = api.create_message(self.client, self.model, self.messages, self.tool_schemas)
            self.messages.append(reply)
            if self.on_assistant:
                self.on_assistant(reply)
            calls = [b for b in reply["content"] if b["type"] == "tool_use"]
            if not calls:
                return api.extract_text(reply)
            results = []
            for call in calls:
                try:
                    output = self.tools[call["name"]](**call["input"])
                    results.append({"type": "tool_result", "tool_use_id": call["id"], "content": output})
                except Exception as e:
                    results.append(
                        {"type": "tool_result", "toolUseId": call["id"], "content": str(e), "is_error": True}
                    )
                if self.on_tool_result:
                    self.on_tool_result(results[-1])
            self.messages.append({"role": "user", "content": results})
        return ""
