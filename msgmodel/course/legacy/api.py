"""Step 30 exhibit: the api layer on dicts, with its own way of reading text (copy #3).

``create_message`` sends the list as it is and turns the SDK's response blocks back into
dicts; ``extract_text`` is the api layer's private idea of "the text of a message"
(``msgmodel.core.message.text_of`` is the authority). ``summarize`` asks the model for a
summary, with no tools, as compaction needs.
"""

from __future__ import annotations

from typing import Any

DEFAULT_MODEL = "claude-sonnet-4-6"


def create_message(
    client: Any,
    model: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None = None,
    max_tokens: int = 1024,
) -> dict[str, Any]:
    """One model call; the reply as an assistant message dict."""
    kwargs: dict[str, Any] = {"model": model, "max_tokens": max_tokens, "messages": messages}
    if tools:
        kwargs["tools"] = tools
    resp = client.messages.create(**kwargs)
    return {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in resp.content]}


def extract_text(message: dict[str, Any]) -> str:
    content = message.get("content") or []
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if b.get("type") == "text")


def summarize(client: Any, model: str, text: str) -> str:
    prompt = "Summarize this conversation so far, for the assistant to continue from:\n\n" + text
    reply = create_message(client, model, [{"role": "user", "content": prompt}])
    return extract_text(reply)
