"""The live Messages API's structural rules, checked locally, with the API's own error text.

This module owns one decision and one piece of wording: would the live Anthropic Messages API
accept this ``messages`` array (or this whole request body), and if not, what exactly would its
400 say. It never talks to the network and never imports the ``anthropic`` SDK (the block kinds
the SDK knows are a generated table, ``msgmodel.core._known_blocks``).

Public API
    ``validate(messages, *, model=None, tools_defined=True, thinking=None) -> list[Violation]``
        ``messages`` is raw JSON-like data (any JSON value, malformed shapes included) or a
        sequence of ``msgmodel.core.message.Message``. Never raises; ``[]`` means "the API accepts it".
    ``validate_request(body) -> list[Violation]``
        The same rules for a whole request body; ``model``, ``tools`` and ``thinking`` are read
        from it.
    ``check(...)`` / ``check_request(body)``
        Raise ``ProtocolError`` (a ``ValueError``) whose ``str()`` is the first violation's text.
    ``Violation``
        ``rule`` (stable id), ``path`` (``messages.3.content.0``; ``""`` when the API's text has no
        path prefix), ``message`` (the text after the path), ``at`` (the most precise location of
        the offending item even when the API's text names a coarser one or none). ``str(v)`` is the
        error text as the live API words it in the public captures (``msgmodel/data/live_api_errors.json``; elsewhere
        a documented reading): ``f"{path}: {message}"``, or just ``message``
        when ``path == ""``. ``v.hint`` (or ``hint_for(v)``) is a one-line plain-words hint.
    ``parse_model``, ``model_accepts_prefill``, ``model_accepts_inline_system``
        The model-dependent part of the rules.

Rule ids
    Schema (checked first, pydantic-style text): ``schema_type``, ``schema_required_field``,
    ``schema_extra_field``, ``text_type``, ``unknown_block_type``, ``tool_use_id_pattern``,
    ``role_name`` (a role outside user/assistant/system), ``thinking_signature`` (missing).
    Semantic: ``non_empty_messages``, ``tools_required``, ``role_name`` (``system`` roles),
    ``system_placement``, ``prefill``, ``text_nonempty``, ``non_empty_content``,
    ``trailing_whitespace``, ``tool_result_role``, ``tool_use_role``, ``thinking_order``,
    ``thinking_signature`` (empty), ``thinking_required``, ``dangling_tool_use``,
    ``tool_use_not_last``, ``tool_result_first``, ``orphan_tool_result``, ``duplicate_tool_use_id``,
    ``duplicate_tool_result``, ``thinking_budget`` (``max_tokens`` not above an enabled budget, no tools).

How the checks run (api-rules.md section 1.5)
    1. Schema and per-block checks, in document order.
    2. Request-level and model-level rules (tools, ``system`` roles, prefill).
    3. Empty text blocks, whitespace-only text, empty content, trailing whitespace of a prefill
       (the texts of the first two and the last have no index).
    4. Block roles, then thinking rules.
    5. ``tool_use`` side, on *merged* turns (consecutive same-role messages combined): every
       ``tool_use`` of an assistant turn must be in its trailing run of ``tool_use`` blocks and be
       answered by the leading run of ``tool_result`` blocks of the next turn, which must be a user
       turn. Missing ids are listed in ``tool_use`` order.
    6. ``tool_result`` side, on *raw* messages: the message right before a user message holding a
       ``tool_result`` must be an assistant message, and the id must be a ``tool_use`` of the
       assistant turn that message ends (so ``a:[tool_use A] a:[tool_use B] u:[result A, result B]``
       passes, as recorded, while results split over ``u:[result A] u:[result B]`` fail on the
       second message, as recorded). Server results (``web_search_tool_result``, ``mcp_tool_result``,
       ``advisor_tool_result`` ...) need their ``server_tool_use``/``mcp_tool_use`` earlier in the
       conversation; server tool calls need no ``tool_result``.
    7. Uniqueness of ``tool_use`` ids (whole conversation) and of results (per message).

    ``validate`` returns every violation it finds in that order, so ``violations[0]`` is the error
    the API would answer with (our best reading of Q2); ``check`` raises with that one.

Open questions and the readings chosen
    * Q1 (index of the ``tool_use`` error): ``messages.N`` counts *merged* turns, plus one when the
      request starts with an assistant message (the API appears to put a user turn in front of
      such a request; one recording shows it). For a request with no consecutive same-role
      messages that is the raw index of the assistant message, or that index + 1 when the request
      opens with an assistant message.
    * Q2 (which error comes first): schema errors first (pydantic runs before the semantic checks),
      then the order above. All violations are returned; ``violations[0]`` is the API's answer.
    * Q3 (parallel results in ``tool_use`` order?): not required on the first-party API; the
      leading ``tool_result`` run may list the ids in any order (the Bedrock rule is not applied).
    * Q4 (``tool_result`` with ``content: ""``): accepted, as is ``content: []``; an empty *text
      block* inside a ``tool_result`` is rejected like any empty text block.
    * Q5 (final assistant message that is a bare ``tool_use``): rejected with the ``tool_use``
      error (there is no next message to hold the result); on models without prefill the prefill
      error comes first.
    * Q6 (wordings): a foreign role gives ``messages.N.role: Input should be 'user', 'assistant'
      or 'system'`` (pydantic literal error; ``system`` is now a valid role value). The
      duplicate-result error *does* carry the ``messages.N.content.M: `` prefix (M = the second
      block with that id): several public bug reports quote live 400s such as
      ``messages.4.content.1: each tool_use must have a single result. ...``. ``tool_use`` in a user
      message uses the wording in api-rules.md. The unknown-tag list is every tag the installed
      SDK knows (GA and beta, params and responses), sorted and quoted the pydantic way
      (``'a', 'b'``); sorted because live captures list tags alphabetically (``'document', 'image',
      'search_result', 'text', 'tool_reference'``). The exact live list (it changes with beta
      headers) stays open.
    * Q7 (trailing whitespace): only the final assistant message (a prefill) is checked; trailing
      whitespace elsewhere is accepted.
    * Q8 (request-level options): yes. ``validate`` takes ``model``, ``tools_defined`` and
      ``thinking``; ``validate_request`` reads them from the body.
    * Q9 (thinking signatures): structural checks only: present, a string, not empty. Whether a
      signature is genuine, and ``thinking_modified``, cannot be checked locally.

Other readings (no evidence either way; each is commented where it is coded)
    * ``model=None`` or an unreadable model name means "the newest model": prefill is rejected
      (every model since Claude 4.6 rejects it) and mid-conversation ``system`` is accepted.
    * Mid-conversation ``role: "system"``: accepted on Opus >= 4.8, Fable and Mythos models (and on
      unknown/None models), rejected on Sonnet, Haiku and older Opus with the no-prefix text
      ``role 'system' is not supported on this model``. On accepting models it must follow a user
      message (or an assistant message ending in a server tool block) and be last or followed by
      an assistant message; those two placement texts are our wording (rule ``system_placement``).
      ``messages[0]`` with role ``system`` is rejected on every model with the 2026 wording.
    * A final assistant message that ends with a server tool block (a ``pause_turn``
      continuation) is not a prefill, on any model.
    * ``thinking_required`` applies when ``thinking == "enabled"`` only (not ``"adaptive"``), when
      the conversation ends in a user message holding ``tool_result`` blocks; the assistant message
      checked is the first one after the last user message without results. The "disabled"
      variant applies when ``thinking`` is ``"disabled"`` or not given.
    * ``content`` that is neither a string nor a list gives ``Input should be a valid list``; a
      message that is not an object ``messages.N: Input should be a valid dictionary``; a block
      that is not an object pydantic's tagged-union text (``Input should be a valid dictionary or
      object to extract fields from``); a block without ``type`` ``Unable to extract tag using
      discriminator 'type'``.
    * ``dangling_tool_use``, ``tool_use_not_last`` and ``tool_result_first`` share one text; the
      rule id names the first cause found (text after the calls; text before the results in the
      same message; otherwise a missing result, including a message inserted before it).
    * Extra fields are rejected (``Extra inputs are not permitted``) against the union of all fields
      the SDK knows for that block kind or role, so beta-only fields are accepted.
    * ``is_error`` and ``stream`` must be JSON booleans (``Input should be a valid boolean``): the
      SDK types them ``bool``, the live API refuses other values, and ``msgmodel``'s codec and
      local server refuse them too. ``"true"``, ``1`` and the other words pydantic's lax mode
      would accept are violations (``stream: null`` counts as not given).
"""

from __future__ import annotations

import re
import reprlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import msgspec

from msgmodel.core import _known_blocks as _kb
from msgmodel.core.message import Message, api_value, block_to_api, to_api

__all__ = [
    "KNOWN_BLOCK_TAGS",
    "RULES",
    "ModelVersion",
    "ProtocolError",
    "Violation",
    "check",
    "check_request",
    "hint_for",
    "model_accepts_inline_system",
    "model_accepts_prefill",
    "parse_model",
    "thinking_budget_violation",
    "validate",
    "validate_request",
]


# ---------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------


class Violation(msgspec.Struct, frozen=True):
    """One broken rule: ``str(v)`` is the live API's error text, byte for byte.

    ``path`` is where the *API* says the problem is, as its error text says it. It is ``""`` for
    the errors the API words without a path prefix (``tools_required``, ``prefill``, ``role
    'system' is not supported on this model``; then ``str(v) == v.message``), coarser than the
    item for some (``messages``), and for the ``tool_use`` errors it counts *merged turns* (the API
    combines consecutive same-role messages), so ``messages.3`` may name list index 5.
    ``at`` is where the problem is *in the list you passed*: ``messages.N`` or
    ``messages.N.content.M`` with ``N`` an index into that list, as precise as we can make it.
    Use ``path`` (or ``str(v)``) to compare with the API's answer and ``at`` to find the message.
    """

    rule: str
    path: str
    message: str
    at: str = ""

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message

    @property
    def hint(self) -> str:
        """A one-line hint in plain words (see ``hint_for``)."""
        return hint_for(self)


class ProtocolError(ValueError):
    """Raised by ``check``/``check_request``; ``str()`` is the first violation's full text."""

    def __init__(self, violations: Sequence[Violation]) -> None:
        self.violations: tuple[Violation, ...] = tuple(violations)
        super().__init__(str(self.violations[0]) if self.violations else "invalid request")


class ModelVersion(msgspec.Struct, frozen=True):
    """What ``parse_model`` reads from a model name.

    ``major is None`` means the name is not one we can read; it is then treated as the newest model.
    """

    family: str | None
    major: int | None
    minor: int = 0


RULES: Final[tuple[str, ...]] = (
    "schema_type",
    "schema_required_field",
    "schema_extra_field",
    "text_type",
    "unknown_block_type",
    "tool_use_id_pattern",
    "non_empty_messages",
    "tools_required",
    "role_name",
    "system_placement",
    "prefill",
    "text_nonempty",
    "non_empty_content",
    "trailing_whitespace",
    "tool_result_role",
    "tool_use_role",
    "thinking_order",
    "thinking_signature",
    "thinking_required",
    "dangling_tool_use",
    "tool_use_not_last",
    "tool_result_first",
    "orphan_tool_result",
    "duplicate_tool_use_id",
    "duplicate_tool_result",
    "thinking_budget",
)
"""Every rule id ``validate`` can report."""

KNOWN_BLOCK_TAGS: Final[tuple[str, ...]] = _kb.MESSAGE_BLOCK_TAGS
"""Every ``type`` a block in ``messages[].content`` may have (from the installed SDK's types)."""

_HINTS: Final[dict[str, str]] = {
    "schema_type": "a value has the wrong JSON type for the Messages API schema",
    "schema_required_field": "a field the API requires is missing",
    "schema_extra_field": "a field the API does not know was sent; drop it (or it needs a beta header)",
    "text_type": "a text block's `text` must be a string",
    "unknown_block_type": "a block has a `type` the API does not know (a typo, another provider's shape?)",
    "tool_use_id_pattern": "tool_use ids may use only letters, digits, `_` and `-`, and cannot be empty",
    "non_empty_messages": "a request needs at least one message",
    "tools_required": "the history replays tool blocks but the request defines no tools; pass the tools",
    "role_name": "roles are user and assistant (and system, mid-conversation, on some models); the first system prompt "
    "goes in the top-level `system`",
    "system_placement": "a mid-conversation system message must follow a user turn and precede an assistant turn",
    "prefill": "this model cannot continue a prefilled answer; end the conversation with a user message",
    "text_nonempty": "drop empty (or whitespace-only) text blocks before sending",
    "non_empty_content": "a message has no content; drop it or give it some",
    "trailing_whitespace": "strip the trailing whitespace from the prefilled assistant text",
    "tool_result_role": "tool results belong in user messages; split the assistant message at the results",
    "tool_use_role": "tool calls belong in assistant messages; was the role assigned wrongly?",
    "thinking_order": "thinking blocks must open their assistant message; were blocks reordered or merged?",
    "thinking_signature": "send thinking blocks back exactly as received, signature included",
    "thinking_required": "with thinking enabled, keep the thinking block that opened the tool loop (or disable it)",
    "dangling_tool_use": "a tool call has no result right after it; was the result dropped or a message inserted?",
    "tool_use_not_last": "nothing may follow a tool call in its assistant turn; move the text before the calls",
    "tool_result_first": "tool_result blocks must come first in the user message that answers the calls",
    "orphan_tool_result": "the tool_use this result answers is not in the previous message; was the history cut here?",
    "duplicate_tool_use_id": "a tool_use id repeats; was a turn replayed twice?",
    "duplicate_tool_result": "a tool call got two results; keep one",
}


def hint_for(v: Violation) -> str:
    """A one-line hint in plain words for a violation (what probably went wrong)."""
    return _HINTS.get(v.rule, "the live API would reject this request")


# ---------------------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------------------

_FAMILIES: Final = frozenset({"opus", "sonnet", "haiku", "fable", "mythos", "instant"})
_NAME_SPLIT: Final = re.compile(r"[-._@:/\[\]\s]+")


def parse_model(model: str | None) -> ModelVersion:
    """Read family and version from a model name.

    ``claude-sonnet-4-6`` -> (sonnet, 4, 6); ``claude-3-5-haiku-20241022`` -> (haiku, 3, 5);
    ``claude-opus-4-1-20250805`` -> (opus, 4, 1); ``claude-sonnet-4-20250514`` -> (sonnet, 4, 0);
    ``claude-fable-5`` -> (fable, 5, 0); ``anthropic.claude-opus-4-8-v1:0`` -> (opus, 4, 8).
    Dates (8 digits) and suffixes are skipped. Anything else -> ``ModelVersion(None, None)``.
    """
    if not isinstance(model, str):
        return ModelVersion(None, None)
    name = model.lower()
    start = name.find("claude")
    if start < 0:
        return ModelVersion(None, None)
    family: str | None = None
    major: int | None = None
    minor = 0
    after_major = False
    for token in _NAME_SPLIT.split(name[start + 6 :]):
        if not token:
            continue
        if token.isascii() and token.isdigit() and len(token) <= 2:
            if major is None:
                major, after_major = int(token), True
                continue
            if after_major:
                minor = int(token)
        elif token in _FAMILIES and family is None:
            family = token
        after_major = False
    return ModelVersion(family, major, minor)


def model_accepts_prefill(model: str | None) -> bool:
    """True when the model accepts a final assistant message (prefill): Claude models before 4.6.

    ``None`` and unreadable names mean the newest model, which does not: a validator should
    describe today's API, and every model released since Claude 4.6 rejects prefill. A caller
    targeting an older model says so with ``model=``.
    """
    v = parse_model(model)
    return v.major is not None and (v.major, v.minor) < (4, 6)


def model_accepts_inline_system(model: str | None) -> bool:
    """True when the model accepts ``role: "system"`` in the middle of ``messages``.

    Per the docs: Claude Opus 4.8 and later, Fable and Mythos; not Sonnet (5 included) nor Haiku.
    ``None``, unreadable names and unknown families of version >= 4.8 count as the newest model,
    which accepts it.
    """
    v = parse_model(model)
    if v.major is None:
        return True
    if v.family in ("fable", "mythos"):
        return True
    if v.family in ("sonnet", "haiku", "instant"):
        return False
    return (v.major, v.minor) >= (4, 8)


# ---------------------------------------------------------------------------------------
# Wording (byte for byte as the live API says it; see docs/api-rules.md)
# ---------------------------------------------------------------------------------------

_ORPHAN: Final = (
    "unexpected `tool_use_id` found in `tool_result` blocks: {}. "
    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
)
_SERVER_ORPHAN: Final = (
    "unexpected `tool_use_id` found in `{0}` blocks: {1}. "
    "Each `{0}` block must have a corresponding `{2}` block before it."
)
_DANGLING: Final = (
    "`tool_use` ids were found without `tool_result` blocks immediately after: {}. "
    "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
)
_RESULT_ROLE: Final = "`tool_result` blocks can only be in `user` messages"
_USE_ROLE: Final = "`tool_use` blocks can only be in `assistant` messages"
_DUPLICATE_USE: Final = "`tool_use` ids must be unique"
_DUPLICATE_RESULT: Final = "each tool_use must have a single result. Found multiple `tool_result` blocks with id: {}"
_ID_PATTERN_TEXT: Final = "String should match pattern '^[a-zA-Z0-9_-]+$'"
_TOOLS_REQUIRED: Final = "Requests which include `tool_use` or `tool_result` blocks must define tools."
_SYSTEM_FIRST: Final = "use the top-level 'system' parameter for the initial system prompt"
_SYSTEM_UNSUPPORTED: Final = "role 'system' is not supported on this model"
# Our wording: no public capture of these two (see "Other readings").
_SYSTEM_AFTER: Final = (
    "a mid-conversation `system` message must follow a `user` message "
    "(or an `assistant` message ending in server tool use)"
)
_SYSTEM_BEFORE: Final = (
    "a mid-conversation `system` message must be the last message or be followed by an `assistant` message"
)
_PREFILL: Final = (
    "This model does not support assistant message prefill. The conversation must end with a user message."
)
_NO_MESSAGES: Final = "at least one message is required"
_EMPTY_CONTENT: Final = "all messages must have non-empty content except for the optional final assistant message"
_EMPTY_TEXT: Final = "text content blocks must be non-empty"
_BLANK_TEXT: Final = "text content blocks must contain non-whitespace text"
_TRAILING_WS: Final = "final assistant content cannot end with trailing whitespace"
_THINKING_FIRST: Final = (
    "If an assistant message contains any thinking blocks, the first block must be `thinking` or `redacted_thinking`. "
    "Found `{}`."
)
_THINKING_REQUIRED: Final = (
    "Expected `thinking` or `redacted_thinking`, but found `{}`. When `thinking` is enabled, a final `assistant` "
    "message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). "
    "We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. "
    "Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
)
_THINKING_IN_PREFILL: Final = (
    "When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`. "
    "To use thinking blocks, enable `thinking` in your request."
)
_BAD_SIGNATURE: Final = "Invalid `signature` in `thinking` block"

# pydantic's own texts (the API validates the body with pydantic, and prints "<loc>: <msg>").
_REQUIRED: Final = "Field required"
_EXTRA: Final = "Extra inputs are not permitted"
_NOT_STR: Final = "Input should be a valid string"
_NOT_LIST: Final = "Input should be a valid list"
_NOT_DICT: Final = "Input should be a valid dictionary"
_NOT_INT: Final = "Input should be a valid integer"
_NOT_BOOL: Final = "Input should be a valid boolean"
_NOT_BLOCK: Final = "Input should be a valid dictionary or object to extract fields from"
_NO_TAG: Final = "Unable to extract tag using discriminator 'type'"
_BAD_TAG: Final = "Input tag '{}' found using 'type' does not match any of the expected tags: {}"
_BAD_ROLE: Final = "Input should be 'user', 'assistant' or 'system'"


def _quoted(tags: Iterable[str]) -> str:
    return ", ".join(f"'{t}'" for t in sorted(tags))


_EXPECTED_TAGS: Final = _quoted(_kb.MESSAGE_BLOCK_TAGS)
_EXPECTED_RESULT_TAGS: Final = _quoted(_kb.TOOL_RESULT_CONTENT_TAGS)
_THINKING_KEYS: Final = dict(adaptive=("display",), between_tools=(), disabled=(), enabled=("budget_tokens", "display"))
"""Each ``thinking`` variant's fields besides ``type`` (the SDK's ``ThinkingConfig*Param``)."""
_EXPECTED_THINKING: Final = _quoted(_THINKING_KEYS)

# ---------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------

_Fields = tuple[tuple[str, ...], frozenset[str]]
_BLOCKS: Final[dict[str, _Fields]] = {t: (req, frozenset(ok)) for t, (req, ok) in _kb.BLOCK_FIELDS.items()}
_NESTED: Final[dict[str, _Fields]] = {
    t: (req, frozenset(ok)) for t, (req, ok) in _kb.TOOL_RESULT_CONTENT_FIELDS.items()
}
_MESSAGE_KEYS: Final[dict[str, frozenset[str]]] = {r: frozenset(ok) for r, (_, ok) in _kb.MESSAGE_FIELDS.items()}
_USER_KEYS: Final = _MESSAGE_KEYS["user"]
_TEXT_KEYS: Final = _BLOCKS["text"][1]
_TOOL_USE_KEYS: Final = _BLOCKS["tool_use"][1]
_TOOL_RESULT_KEYS: Final = _BLOCKS["tool_result"][1]
_SERVER_USE: Final = frozenset(_kb.SERVER_TOOL_USE_TAGS)
_SERVER_RESULT: Final = frozenset(_kb.SERVER_TOOL_RESULT_TAGS)
_SERVER_TAIL: Final = _SERVER_USE | _SERVER_RESULT
_THINKING_TAGS: Final = frozenset({"thinking", "redacted_thinking"})
# Blocks that carry no model output of their own; skipped when asking "what does this assistant
# message start with" (a replayed compaction block opens a message; a fallback marks a hop).
_MARKER_TAGS: Final = frozenset({"compaction", "fallback"})
_id_ok: Final = re.compile(r"[a-zA-Z0-9_-]+").fullmatch
_MISSING: Final[Any] = object()
_ROLES: Final = ("user", "assistant", "system")


def _v(rule: str, path: str, message: str, at: str | None = None) -> Violation:
    return Violation(rule, path, message, path if at is None else at)


def _text_of_value(value: object) -> str:
    """A value as pydantic prints it inside an error (``str``), safe for any input."""
    if isinstance(value, str):
        return value
    try:
        if value is None or isinstance(value, (bool, float)) or (isinstance(value, int) and -(10**50) < value < 10**50):
            return str(value)
        return reprlib.repr(value)
    except Exception:  # a hostile __repr__ or an absurd int; the text is informative only
        return "?"


def _has_tool_result(message: object) -> bool:
    if not isinstance(message, dict):
        return False
    content = message.get("content")
    if not isinstance(content, (list, tuple)):
        return False
    return any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def _first_kind(message: object) -> str | None:
    """The ``type`` an assistant message starts with (markers skipped); ``None`` if it has no blocks."""
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if isinstance(content, str):
        return "text" if content else None
    if not isinstance(content, (list, tuple)):
        return None
    for b in content:
        t = b.get("type") if isinstance(b, dict) else None
        if isinstance(t, str) and t in _MARKER_TAGS:
            continue
        return _text_of_value(t)
    return None


def _ends_with_server_block(message: object) -> bool:
    if not isinstance(message, dict):
        return False
    content = message.get("content")
    if not isinstance(content, (list, tuple)) or not content:
        return False
    last = content[-1]
    t = last.get("type") if isinstance(last, dict) else None
    return isinstance(t, str) and t in _SERVER_TAIL


# ---------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------


def validate(
    messages: object,
    *,
    model: str | None = None,
    tools_defined: bool = True,
    thinking: str | None = None,
    as_history: bool = False,
) -> list[Violation]:
    """Every rule of the live Messages API that ``messages`` breaks, the API's answer first.

    ``messages``: raw JSON-like data (anything) or a sequence of ``msgmodel.core.message.Message``.
    ``model``: the request's model (``None``: the newest model; see ``model_accepts_prefill``).
    ``tools_defined``: whether the request defines tools. ``thinking``: the request's
    ``thinking.type`` (``"enabled"``, ``"disabled"``, ``"adaptive"`` or ``None`` when not given).
    ``as_history``: the messages are a stored conversation, not a request as it will be sent: a
    final assistant message ends a turn (the next request adds a user message after it) instead
    of being a prefill. Checked as if that next user message were there, so an assistant that
    ends on a ``tool_use`` is still reported (its result is missing).
    Pure and linear in the size of the conversation; never raises.
    """
    schema, semantic = _inspect_messages(messages, model, tools_defined, thinking, as_history)
    return schema + semantic


def thinking_budget_violation(body: Mapping[str, Any], tools_defined: bool) -> Violation | None:
    """``max_tokens`` not above an enabled thinking budget, without tools (with them thinking may span the turn)."""
    thinking, max_tokens = body.get("thinking"), body.get("max_tokens")
    budget = thinking.get("budget_tokens") if isinstance(thinking, dict) and thinking.get("type") == "enabled" else None
    if tools_defined or type(budget) is not int or not isinstance(max_tokens, int) or not budget >= max_tokens > 0:
        return None
    return _v("thinking_budget", "", "`max_tokens` must be greater than `thinking.budget_tokens`")


def validate_request(body: object) -> list[Violation]:
    """``validate`` for a whole Messages API request body; never raises.

    Options come from the body: ``model``; ``tools_defined`` = ``tools`` is a non-empty list;
    ``thinking`` = ``thinking.type``. A malformed body gives pydantic-style violations
    (``messages: Field required``). Our reading: the body-level fields are reported in the
    order of the SDK's ``MessageCreateParams`` (``max_tokens`` (an integer >= 0), ``messages``,
    ``model``, ``stream`` (a boolean), ``thinking`` (a variant, its fields), ``tools``), then the semantic rules.
    Other fields (``system``, ``tool_choice``, ...) are not checked here; the local API checks the
    whole body with ``msgmodel.api.request.validate_body``.
    """
    if not isinstance(body, dict):
        return [_v("schema_type", "", _NOT_DICT)]
    schema: list[Violation] = []
    semantic: list[Violation] = []

    max_tokens = body.get("max_tokens", _MISSING)
    if max_tokens is _MISSING:
        schema.append(_v("schema_required_field", "max_tokens", _REQUIRED))
    elif not isinstance(max_tokens, int) or isinstance(max_tokens, bool):
        schema.append(_v("schema_type", "max_tokens", _NOT_INT))
    elif max_tokens < 0:  # 0 is valid: the SDK documents it for prompt-cache pre-warming
        schema.append(_v("schema_type", "max_tokens", "Input should be greater than or equal to 0"))

    model = body.get("model", _MISSING)
    model_name = model if isinstance(model, str) else None
    tools = body.get("tools", [])
    tools_error = None if isinstance(tools, list) else _v("schema_type", "tools", _NOT_LIST)  # null too, as the server
    tools_defined = isinstance(tools, list) and len(tools) > 0
    thinking_type, thinking_error = _read_thinking(body.get("thinking", _MISSING))

    messages = body.get("messages", _MISSING)
    if messages is _MISSING:
        schema.append(_v("schema_required_field", "messages", _REQUIRED))
    else:
        schema_m, semantic = _inspect_messages(messages, model_name, tools_defined, thinking_type)
        schema += schema_m
    if model is _MISSING:
        schema.append(_v("schema_required_field", "model", _REQUIRED))
    elif model_name is None:
        schema.append(_v("schema_type", "model", _NOT_STR))
    if (stream := body.get("stream", _MISSING)) is not _MISSING and not isinstance(stream, bool):  # null too
        schema.append(_v("schema_type", "stream", _NOT_BOOL))
    if thinking_error is not None:
        schema.append(thinking_error)
    if tools_error is not None:
        schema.append(tools_error)
    # A body-level rule is read only of a body whose fields are well-formed, as the server reads it
    # (``validate_body``): with ``model`` missing, the budget was reported here and not there.
    if not schema and (too_small := thinking_budget_violation(body, tools_defined)) is not None:
        semantic.append(too_small)
    return schema + semantic


def check(
    messages: object,
    *,
    model: str | None = None,
    tools_defined: bool = True,
    thinking: str | None = None,
    as_history: bool = False,
) -> None:
    """Raise ``ProtocolError`` (its ``str()`` = the API's error text) unless ``validate`` finds nothing."""
    violations = validate(messages, model=model, tools_defined=tools_defined, thinking=thinking, as_history=as_history)
    if violations:
        raise ProtocolError(violations)


def check_request(body: object) -> None:
    """Raise ``ProtocolError`` unless ``validate_request(body)`` finds nothing."""
    violations = validate_request(body)
    if violations:
        raise ProtocolError(violations)


def _read_thinking(value: object) -> tuple[str | None, Violation | None]:
    """``thinking.type`` of a request body, or the pydantic error for a malformed ``thinking`` (null included)."""
    if value is _MISSING:
        return None, None
    if not isinstance(value, dict):
        return None, _v("schema_type", "thinking", _NOT_BLOCK)
    if "type" not in value:
        return None, _v("schema_required_field", "thinking", _NO_TAG)
    kind = value["type"]
    if not (isinstance(kind, str) and kind in _THINKING_KEYS):
        return None, _v("schema_type", "thinking", _BAD_TAG.format(_text_of_value(kind), _EXPECTED_THINKING))
    at, budget, display = f"thinking.{kind}", value.get("budget_tokens", _MISSING), value.get("display")
    if kind == "enabled" and budget is _MISSING:
        return kind, _v("schema_required_field", f"{at}.budget_tokens", _REQUIRED)
    if kind == "enabled" and (not isinstance(budget, int) or isinstance(budget, bool)):
        return kind, _v("schema_type", f"{at}.budget_tokens", _NOT_INT)
    if kind == "enabled" and budget < 1024:
        return kind, _v("schema_type", f"{at}.budget_tokens", "Input should be greater than or equal to 1024")
    if "display" in _THINKING_KEYS[kind] and display not in (None, "omitted", "summarized"):
        return kind, _v("schema_type", f"{at}.display", "Input should be 'omitted' or 'summarized'")
    extra = next((k for k in value if k != "type" and k not in _THINKING_KEYS[kind]), None)
    return kind, None if extra is None else _v("schema_extra_field", f"{at}.{extra}", "Extra inputs are not permitted")


def _as_wire(messages: object) -> object:
    """A list of wire-shape dicts for a sequence of ``Message`` or SDK objects (mixed lists too); else as given."""
    messages = api_value(messages)
    if isinstance(messages, list):
        seq: list[Any] = messages
    elif isinstance(messages, Sequence) and not isinstance(messages, (str, bytes, bytearray, memoryview)):
        try:
            seq = list(messages)
        except Exception:  # a hostile Sequence; report it as "not a list"
            return None
    else:
        return messages
    for m in seq:
        if not isinstance(m, dict):
            break
    else:
        return _without_sdk_objects(seq)
    if all(isinstance(m, Message) for m in seq):
        try:
            return to_api(seq)
        except Exception:  # a mistyped Message (msgspec does not type-check __init__): convert one by one
            pass
    return _without_sdk_objects([_message_as_wire(m) if isinstance(m, Message) else api_value(m) for m in seq])


def _without_sdk_objects(seq: list[Any]) -> list[Any]:
    """The messages with every SDK object read through ``api_value`` where ``from_api`` reads one.

    ``{"role": "assistant", "content": response.content}`` is the SDK's own idiom (its
    ``MessageParam`` takes response blocks): the blocks are pydantic models, which the SDK dumps
    before sending. Copies only the messages and blocks that hold one; plain data is returned as is.
    """
    out: list[Any] | None = None
    for i, m in enumerate(seq):
        content = m.get("content") if isinstance(m, dict) else None
        if content is None or isinstance(content, str):
            continue
        dumped = api_value(content)
        blocks = _blocks_without_sdk_objects(dumped) if isinstance(dumped, (list, tuple)) else dumped
        if blocks is not content:
            out = out if out is not None else list(seq)
            out[i] = {**m, "content": blocks}
    return seq if out is None else out


def _blocks_without_sdk_objects(blocks: Sequence[Any]) -> Sequence[Any]:
    """The blocks, a block or a result's content read through ``api_value``; the same object when none is SDK."""
    out: list[Any] | None = None
    for j, b in enumerate(blocks):
        new = api_value(b) if type(b) is not dict else b
        if isinstance(new, dict):
            key = "input" if new.get("type") == "tool_use" else "content" if new.get("type") == "tool_result" else None
            inner = new.get(key) if key is not None else None
            if inner is not None and not isinstance(inner, (str, dict)):
                dumped = api_value(inner)
                fixed = _blocks_without_sdk_objects(dumped) if isinstance(dumped, (list, tuple)) else dumped
                if fixed is not inner:
                    new = {**new, key: fixed}
        if new is not b:
            out = out if out is not None else list(blocks)
            out[j] = new
    return blocks if out is None else out


def _message_as_wire(m: Message) -> object:
    """One ``Message`` in its wire shape, whatever its fields hold.

    msgspec does not type-check ``__init__`` (``Message(role="user", content=[1])`` and
    ``content=None`` build), so a block that ``block_to_api`` cannot write is passed on as it is
    and reported by the schema checks like any other value that is not a block object.
    """
    content: object = m.content  # on purpose: a hand-built Message may hold anything; checked as raw data
    if not isinstance(content, (list, tuple)):
        return {"role": m.role, "content": content}
    blocks: list[object] = []
    for b in content:  # on purpose: the same raw check, block by block
        try:
            blocks.append(block_to_api(b))
        except Exception:  # not a block, or a block whose fields are mistyped
            blocks.append(b)
    return {"role": m.role, "content": blocks}


_NEXT_TURN: Final = {"role": "user", "content": "(the next user turn)"}


def _inspect_messages(
    messages: object, model: str | None, tools_defined: bool, thinking: str | None, as_history: bool = False
) -> tuple[list[Violation], list[Violation]]:
    wire = _as_wire(messages)
    if not isinstance(wire, list):
        return [_v("schema_type", "messages", _NOT_LIST)], []
    if as_history and wire and isinstance(wire[-1], dict) and wire[-1].get("role") == "assistant":
        wire = [*wire, _NEXT_TURN]
    return _inspect(
        wire,
        prefill_ok=model_accepts_prefill(model),
        system_ok=model_accepts_inline_system(model),
        tools_defined=tools_defined,
        thinking=thinking,
    )


# ---------------------------------------------------------------------------------------
# The checks
# ---------------------------------------------------------------------------------------


def _extra_keys(obj: dict[Any, Any], allowed: frozenset[str], path: str, out: list[Violation]) -> None:
    for k in obj:
        if k not in allowed:
            out.append(_v("schema_extra_field", f"{path}.{_text_of_value(k)}", _EXTRA))


def _unknown_tag(block: dict[Any, Any], tag: object, path: str, expected: str, out: list[Violation]) -> None:
    if "type" not in block:
        out.append(_v("schema_required_field", path, _NO_TAG))
    else:
        out.append(_v("unknown_block_type", path, _BAD_TAG.format(_text_of_value(tag), expected)))


def _inspect_result_content(items: Sequence[Any], path: str, schema: list[Violation], empty: list[Violation]) -> None:
    """The blocks inside a ``tool_result``'s list ``content``."""
    for k, c in enumerate(items):
        if not isinstance(c, dict):
            schema.append(_v("schema_type", f"{path}.{k}", _NOT_BLOCK))
            continue
        t = c.get("type")
        fields = _NESTED.get(t) if isinstance(t, str) else None
        if fields is None:
            _unknown_tag(c, t, f"{path}.{k}", _EXPECTED_RESULT_TAGS, schema)
            continue
        required, allowed = fields
        if t == "text":
            x = c.get("text", _MISSING)
            if isinstance(x, str):
                if not x:
                    empty.append(_v("text_nonempty", "messages", _EMPTY_TEXT, f"{path}.{k}"))
            elif x is _MISSING:
                schema.append(_v("schema_required_field", f"{path}.{k}.text.text", _REQUIRED))
            else:
                schema.append(_v("text_type", f"{path}.{k}.text.text", _NOT_STR))
        else:
            for name in required:
                if name not in c:
                    schema.append(_v("schema_required_field", f"{path}.{k}.{t}.{name}", _REQUIRED))
        if not c.keys() <= allowed:
            _extra_keys(c, allowed, f"{path}.{k}.{t}", schema)


def _missing_ids(
    ids: list[str], trail: int, answered: set[str] | None, later: set[str] | None, path: str, at: str
) -> Violation | None:
    """The ``tool_use``-side verdict for one assistant turn (step 5 of the module docstring).

    ``ids`` are the turn's client ``tool_use`` ids in order, ``ids[trail:]`` the ones in its
    trailing run of ``tool_use`` blocks; ``answered`` the ids of the next user turn's leading run
    of ``tool_result`` blocks (``None``: there is no next user turn), ``later`` the ids of its
    other results. The rule id names the first cause found; the text is the same for all three.
    """
    not_last = trail > 0
    missing = ids if answered is None else [x for k, x in enumerate(ids) if k < trail or x not in answered]
    if not missing:
        return None
    if not_last:
        rule = "tool_use_not_last"
    elif later and any(x in later for x in missing):
        rule = "tool_result_first"
    else:
        rule = "dangling_tool_use"
    return _v(rule, path, _DANGLING.format(", ".join(missing)), at)


def _inspect(
    msgs: list[Any], *, prefill_ok: bool, system_ok: bool, tools_defined: bool, thinking: str | None
) -> tuple[list[Violation], list[Violation]]:
    """One pass over the raw messages (plus O(1) look-backs), filling one list per rule group."""
    schema: list[Violation] = []
    if not msgs:
        return schema, [_v("non_empty_messages", "messages", _NO_MESSAGES)]
    n = len(msgs)
    last = n - 1
    roles: list[str | None] = [None] * n

    g_request: list[Violation] = []
    g_roles: list[Violation] = []
    g_prefill: list[Violation] = []
    g_empty_text: list[Violation] = []
    g_blank_text: list[Violation] = []
    g_content: list[Violation] = []
    g_trailing: list[Violation] = []
    g_block_role: list[Violation] = []
    g_thinking: list[Violation] = []
    g_use: list[Violation] = []
    g_result: list[Violation] = []
    g_unique: list[Violation] = []

    first = msgs[0]
    # Q1: the API seems to put a user turn in front of a request that opens with an assistant
    # message and to count the tool_use error's index from there (one recording shows it).
    shift = 1 if isinstance(first, dict) and first.get("role") == "assistant" else 0
    tool_at = ""  # first tool_use/tool_result block, for tools_required

    run_role: object = _MISSING  # role of the current merged turn
    turn = -1  # merged-turn counter (Q1)
    # the assistant turn being read: its client tool_use ids, where its trailing tool_use run starts
    a_ids: list[str] | None = None
    a_set: set[str] | None = None
    a_trail = 0
    a_turn = 0
    a_first = 0
    prev_a_set: set[str] | None = None  # tool_use ids of the assistant turn that just ended
    # the assistant turn whose results the current user turn must bring (step 5)
    p_ids: list[str] | None = None
    p_trail = 0
    p_turn = 0
    p_first = 0
    u_lead = True  # still inside the user turn's leading run of tool_result blocks
    u_answered: set[str] = set()
    u_later: set[str] | None = None  # results after the leading run, in the turn's first message
    u_start = 0
    prev_role: str | None = None
    all_ids: set[str] = set()
    server_ids: set[str] = set()
    system_pred_ok = False

    for i, m in enumerate(msgs):
        # ---- the message itself ----
        role: str | None
        if not isinstance(m, dict):
            schema.append(_v("schema_type", f"messages.{i}", _NOT_DICT))
            role = None
            content: Any = _MISSING
        else:
            r = m.get("role", _MISSING)
            if r == "user" or r == "assistant" or r == "system":
                role = r
                allowed = _MESSAGE_KEYS[r]
            else:
                if r is _MISSING:
                    schema.append(_v("schema_required_field", f"messages.{i}.role", _REQUIRED))
                else:
                    schema.append(_v("role_name", f"messages.{i}.role", _BAD_ROLE))
                role = None
                allowed = _USER_KEYS
            if not m.keys() <= allowed:
                _extra_keys(m, allowed, f"messages.{i}", schema)
            content = m.get("content", _MISSING)
        roles[i] = role

        # ---- merged turns ----
        if role != run_role:
            if run_role == "assistant":
                prev_a_set = a_set
                if a_ids:
                    if role == "user":
                        p_ids, p_trail, p_turn, p_first = a_ids, a_trail, a_turn, a_first
                        u_answered = set()
                        u_later = None
                    else:  # the next turn is not a user turn: nothing answers these calls
                        v = _missing_ids(
                            a_ids, a_trail, None, None, f"messages.{a_turn + shift}", f"messages.{a_first}"
                        )
                        if v is not None:
                            g_use.append(v)
            elif run_role == "user" and p_ids is not None:
                v = _missing_ids(
                    p_ids, p_trail, u_answered, u_later, f"messages.{p_turn + shift}", f"messages.{p_first}"
                )
                if v is not None:
                    g_use.append(v)
                p_ids = None
            run_role = role
            turn += 1
            if role == "assistant":
                a_ids = a_set = None
                a_trail = 0
                a_turn = turn
                a_first = i
            elif role == "user":
                u_lead = True
                u_start = i
        # tool_result side (step 6): the ids of the assistant turn that ends right before this message
        lookup = prev_a_set if prev_role == "assistant" else None

        # ---- role "system" ----
        if role == "system":
            if i == 0:
                g_roles.append(_v("role_name", "messages.0", _SYSTEM_FIRST))
            elif not system_ok:
                g_roles.append(_v("role_name", "", _SYSTEM_UNSUPPORTED, f"messages.{i}"))
            else:
                if prev_role != "system":
                    system_pred_ok = prev_role == "user" or (
                        prev_role == "assistant" and _ends_with_server_block(msgs[i - 1])
                    )
                # the directive-only form (no content, message-level output_config) may sit anywhere
                directive = content in (_MISSING, "", []) and "output_config" in m
                if not directive:
                    if not system_pred_ok:
                        g_roles.append(_v("system_placement", f"messages.{i}", _SYSTEM_AFTER))
                    if i < last:
                        nxt = msgs[i + 1]
                        nxt_role = nxt.get("role") if isinstance(nxt, dict) else None
                        if nxt_role != "assistant" and nxt_role != "system":
                            g_roles.append(_v("system_placement", f"messages.{i}", _SYSTEM_BEFORE))

        # ---- content ----
        if isinstance(content, str):
            if not content:
                if not (i == last and role == "assistant"):
                    g_content.append(_v("non_empty_content", f"messages.{i}", _EMPTY_CONTENT))
            elif content.isspace():
                g_blank_text.append(_v("text_nonempty", "messages", _BLANK_TEXT, f"messages.{i}"))
            if role == "assistant":
                if a_ids:
                    a_trail = len(a_ids)
            else:
                u_lead = False
        elif isinstance(content, (list, tuple)):
            if (
                not content
                and not (i == last and role == "assistant")
                and not (role == "system" and "output_config" in m)
            ):
                g_content.append(_v("non_empty_content", f"messages.{i}", _EMPTY_CONTENT))
            has_real = False
            blank_at = -1
            has_thinking = False
            result_role_bad = False
            use_role_bad = False
            seen_results: set[str] | None = None
            is_assistant = role == "assistant"
            is_user = role == "user"
            for j, b in enumerate(content):
                if not isinstance(b, dict):
                    schema.append(_v("schema_type", _bp(i, j), _NOT_BLOCK))
                    t: Any = None
                else:
                    t = b.get("type")
                    if t == "text":
                        if not b.keys() <= _TEXT_KEYS:
                            _extra_keys(b, _TEXT_KEYS, _bp(i, j, ".text"), schema)
                        x = b.get("text", _MISSING)
                        if isinstance(x, str):
                            if not x:
                                g_empty_text.append(_v("text_nonempty", "messages", _EMPTY_TEXT, _bp(i, j)))
                            elif not has_real:
                                if x.isspace():
                                    if blank_at < 0:
                                        blank_at = j
                                else:
                                    has_real = True
                        elif x is _MISSING:
                            schema.append(_v("schema_required_field", _bp(i, j, ".text.text"), _REQUIRED))
                        else:
                            schema.append(_v("text_type", _bp(i, j, ".text.text"), _NOT_STR))
                    elif t == "tool_use":
                        if not tool_at:
                            tool_at = _bp(i, j)
                        if not is_assistant and role is not None:
                            use_role_bad = True
                        tid = _inspect_tool_use(b, i, j, schema)
                        if tid is not None:
                            if tid in all_ids:
                                g_unique.append(_v("duplicate_tool_use_id", _bp(i, j), _DUPLICATE_USE))
                            else:
                                all_ids.add(tid)
                            if is_assistant:
                                if a_ids is None or a_set is None:
                                    a_ids = [tid]
                                    a_set = {tid}
                                else:
                                    a_ids.append(tid)
                                    a_set.add(tid)
                    elif t == "tool_result":
                        if not tool_at:
                            tool_at = _bp(i, j)
                        if not is_user and role is not None:
                            result_role_bad = True
                        tid = _inspect_tool_result(b, i, j, schema, g_empty_text)
                        if tid is not None and is_user:
                            if lookup is None or tid not in lookup:
                                g_result.append(_v("orphan_tool_result", _bp(i, j), _ORPHAN.format(tid)))
                            if seen_results is None:
                                seen_results = {tid}
                            elif tid in seen_results:
                                g_unique.append(_v("duplicate_tool_result", _bp(i, j), _DUPLICATE_RESULT.format(tid)))
                            else:
                                seen_results.add(tid)
                            if p_ids is not None:
                                if u_lead:
                                    u_answered.add(tid)
                                elif i != u_start:  # a message was inserted before it: dangling
                                    pass
                                elif u_later is None:
                                    u_later = {tid}
                                else:
                                    u_later.add(tid)
                    else:
                        fields = _BLOCKS.get(t) if isinstance(t, str) else None
                        if fields is None:
                            _unknown_tag(b, t, _bp(i, j), _EXPECTED_TAGS, schema)
                        else:
                            required, allowed_keys = fields
                            for field in required:
                                if field not in b:
                                    if t == "thinking" and field == "signature":
                                        rule = "thinking_signature"
                                    else:
                                        rule = "schema_required_field"
                                    schema.append(_v(rule, _bp(i, j, f".{t}.{field}"), _REQUIRED))
                            if not b.keys() <= allowed_keys:
                                _extra_keys(b, allowed_keys, _bp(i, j, f".{t}"), schema)
                            if t in _THINKING_TAGS:
                                has_thinking = True
                                _inspect_thinking(b, t, i, j, schema, g_thinking)
                            elif t in _SERVER_USE:
                                sid = b.get("id")
                                if isinstance(sid, str):
                                    server_ids.add(sid)
                            elif t in _SERVER_RESULT:
                                sid = b.get("tool_use_id")
                                if isinstance(sid, str) and sid not in server_ids:
                                    use = "mcp_tool_use" if t == "mcp_tool_result" else "server_tool_use"
                                    g_result.append(
                                        _v("orphan_tool_result", _bp(i, j), _SERVER_ORPHAN.format(t, sid, use))
                                    )
                if t != "tool_use" and is_assistant and a_ids:
                    a_trail = len(a_ids)
                if t != "tool_result":
                    u_lead = False
            if result_role_bad:
                g_block_role.append(_v("tool_result_role", f"messages.{i}", _RESULT_ROLE))
            if use_role_bad:
                g_block_role.append(_v("tool_use_role", f"messages.{i}", _USE_ROLE))
            if blank_at >= 0 and not has_real:
                g_blank_text.append(_v("text_nonempty", "messages", _BLANK_TEXT, f"messages.{i}.content.{blank_at}"))
            if has_thinking and is_assistant:
                kind = _first_kind(m)
                if kind not in _THINKING_TAGS:
                    g_thinking.append(_v("thinking_order", f"messages.{i}.content.0", _THINKING_FIRST.format(kind)))
        elif content is _MISSING:
            if isinstance(m, dict) and not (role == "system" and "output_config" in m):
                schema.append(_v("schema_required_field", f"messages.{i}.content", _REQUIRED))
            u_lead = False
        else:
            schema.append(_v("schema_type", f"messages.{i}.content", _NOT_LIST))
            u_lead = False
        prev_role = role

    # ---- the last turn ----
    if run_role == "assistant" and a_ids:
        # Q5: a final assistant turn whose tool calls have no next message is rejected too.
        v = _missing_ids(a_ids, a_trail, None, None, f"messages.{a_turn + shift}", f"messages.{a_first}")
        if v is not None:
            g_use.append(v)
    elif run_role == "user" and p_ids is not None:
        v = _missing_ids(p_ids, p_trail, u_answered, u_later, f"messages.{p_turn + shift}", f"messages.{p_first}")
        if v is not None:
            g_use.append(v)

    if not tools_defined and tool_at:
        g_request.append(_v("tools_required", "", _TOOLS_REQUIRED, tool_at))

    # ---- the final message: prefill, trailing whitespace, thinking in a prefill ----
    if roles[last] == "assistant":
        final = msgs[last]
        body = final.get("content")
        blocks = body if isinstance(body, (list, tuple)) else ()
        if not prefill_ok:
            # A pause_turn continuation (ends in a server tool block) is sent back as is on every model.
            if not _ends_with_server_block(final):
                g_prefill.append(_v("prefill", "", _PREFILL, f"messages.{last}"))
        elif _ends_in_whitespace(body):
            g_trailing.append(_v("trailing_whitespace", "messages", _TRAILING_WS, f"messages.{last}"))
        if thinking in (None, "disabled") and any(
            isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking") for b in blocks
        ):
            g_thinking.append(_v("thinking_required", f"messages.{last}.content.0", _THINKING_IN_PREFILL))

    # ---- thinking enabled: the assistant message that opened the pending tool loop ----
    if thinking == "enabled":
        opener = _tool_loop_opener(msgs, roles)
        if opener >= 0:
            kind = _first_kind(msgs[opener])
            if kind is not None and kind not in _THINKING_TAGS:
                g_thinking.append(
                    _v("thinking_required", f"messages.{opener}.content.0.type", _THINKING_REQUIRED.format(kind))
                )

    semantic = g_request + g_roles + g_prefill + g_empty_text
    semantic += g_blank_text + g_content + g_trailing + g_block_role + g_thinking + g_use + g_result + g_unique
    return schema, semantic


def _bp(i: int, j: int, tail: str = "") -> str:
    """The path of block ``j`` of message ``i`` (built only when something is reported)."""
    return f"messages.{i}.content.{j}{tail}"


def _inspect_tool_use(b: dict[Any, Any], i: int, j: int, schema: list[Violation]) -> str | None:
    """Schema of a ``tool_use`` block (fields in the SDK's order); its id when that is a string."""
    tid = b.get("id", _MISSING)
    if isinstance(tid, str):
        if not _id_ok(tid):
            schema.append(_v("tool_use_id_pattern", _bp(i, j, ".tool_use.id"), _ID_PATTERN_TEXT))
    elif tid is _MISSING:
        schema.append(_v("schema_required_field", _bp(i, j, ".tool_use.id"), _REQUIRED))
    else:
        schema.append(_v("schema_type", _bp(i, j, ".tool_use.id"), _NOT_STR))
    arguments = b.get("input", _MISSING)
    if arguments is _MISSING:
        schema.append(_v("schema_required_field", _bp(i, j, ".tool_use.input"), _REQUIRED))
    elif not isinstance(arguments, dict):
        schema.append(_v("schema_type", _bp(i, j, ".tool_use.input"), _NOT_DICT))
    name = b.get("name", _MISSING)
    if name is _MISSING:
        schema.append(_v("schema_required_field", _bp(i, j, ".tool_use.name"), _REQUIRED))
    elif not isinstance(name, str):
        schema.append(_v("schema_type", _bp(i, j, ".tool_use.name"), _NOT_STR))
    # pydantic reports the declared fields first, unknown keys after them
    if not b.keys() <= _TOOL_USE_KEYS:
        _extra_keys(b, _TOOL_USE_KEYS, _bp(i, j, ".tool_use"), schema)
    return tid if isinstance(tid, str) else None


def _inspect_tool_result(
    b: dict[Any, Any], i: int, j: int, schema: list[Violation], empty: list[Violation]
) -> str | None:
    """Schema of a ``tool_result`` block, its nested content included; its id when a string."""
    tid = b.get("tool_use_id", _MISSING)
    if tid is _MISSING:
        schema.append(_v("schema_required_field", _bp(i, j, ".tool_result.tool_use_id"), _REQUIRED))
    elif not isinstance(tid, str):
        schema.append(_v("schema_type", _bp(i, j, ".tool_result.tool_use_id"), _NOT_STR))
    body = b.get("content", _MISSING)
    # Q4: "" and [] are accepted.
    if body is not _MISSING and not isinstance(body, str):
        if isinstance(body, (list, tuple)):
            _inspect_result_content(body, _bp(i, j, ".tool_result.content"), schema, empty)
        else:
            schema.append(_v("schema_type", _bp(i, j, ".tool_result.content"), _NOT_LIST))
    flag = b.get("is_error", _MISSING)
    if flag is not _MISSING and not isinstance(flag, bool):
        schema.append(_v("schema_type", _bp(i, j, ".tool_result.is_error"), _NOT_BOOL))
    # pydantic reports the declared fields first, unknown keys after them
    if not b.keys() <= _TOOL_RESULT_KEYS:
        _extra_keys(b, _TOOL_RESULT_KEYS, _bp(i, j, ".tool_result"), schema)
    return tid if isinstance(tid, str) else None


def _inspect_thinking(
    b: dict[Any, Any], t: str, i: int, j: int, schema: list[Violation], semantic: list[Violation]
) -> None:
    """Field types of a ``thinking``/``redacted_thinking`` block (presence is checked by the caller)."""
    if t == "thinking":
        signature = b.get("signature", _MISSING)
        if signature is not _MISSING:
            if not isinstance(signature, str):
                schema.append(_v("schema_type", f"messages.{i}.content.{j}.thinking.signature", _NOT_STR))
            elif not signature:
                # Q9: only the structure can be checked; an empty signature is certainly not genuine.
                semantic.append(_v("thinking_signature", f"messages.{i}.content.{j}", _BAD_SIGNATURE))
        text = b.get("thinking", _MISSING)
        if text is not _MISSING and not isinstance(text, str):
            schema.append(_v("schema_type", f"messages.{i}.content.{j}.thinking.thinking", _NOT_STR))
    else:
        data = b.get("data", _MISSING)
        if data is not _MISSING and not isinstance(data, str):
            schema.append(_v("schema_type", f"messages.{i}.content.{j}.redacted_thinking.data", _NOT_STR))


def _ends_in_whitespace(content: object) -> bool:
    if isinstance(content, str):
        return bool(content) and content[-1].isspace()
    if isinstance(content, (list, tuple)) and content:
        b = content[-1]
        if isinstance(b, dict) and b.get("type") == "text":
            x = b.get("text")
            return isinstance(x, str) and bool(x) and x[-1].isspace()
    return False


def _tool_loop_opener(msgs: list[Any], roles: list[str | None]) -> int:
    """Index of the assistant message that opened the tool loop the request is in, or -1.

    The request is in a tool loop when its last non-system message is a user message holding
    ``tool_result`` blocks; the opener is the first assistant message after the last user
    message that holds none (a "real" user turn).
    """
    k = len(msgs) - 1
    while k >= 0 and roles[k] == "system":
        k -= 1
    if k < 0 or roles[k] != "user" or not _has_tool_result(msgs[k]):
        return -1
    opener = -1
    while k >= 0:
        role = roles[k]
        if role == "assistant":
            opener = k
        elif role == "user":
            if not _has_tool_result(msgs[k]):
                break
        elif role != "system":
            break
        k -= 1
    return opener
