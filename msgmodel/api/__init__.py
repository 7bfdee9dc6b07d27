"""The local Messages API: an offline, deterministic, validating stand-in for ``POST /v1/messages``.

Its modules::

    server          the API itself (in-process clients for the official SDK, and serve over HTTP)
    request         what a request body may hold (validate_body, known_models)
    parsed          an accepted body read once into a typed ParsedRequest, which every part below works from
    limits          tokens, usage, and the answer cut by max_tokens / stop_sequences
    budget          the per-request time budget (504 timeout_error), and request patterns run under it
    admission       the connection cap: who is served at once, who waits (off the accept loop) for the 529
    models          GET /v1/models and GET /v1/models/{id}
    scripted        the models that answer it (SequenceModel, ScriptedModel, RuleModel)
    constraints     what tool_choice and output_config.format make of any model's answer
    anthropic_tools the documented input shapes of the tools Anthropic defines (bash, web_search, ...)
    schema_instance one deterministic JSON instance of a JSON schema (forced tool inputs, JSON output),
                    with schema_numbers (its numbers, exactly), pattern_text (its strings for a
                    pattern) and schema_checks (whether a const / enum value passes its schema)
    demo_tools      the demo tool set (an in-memory project, a calculator)
    turns           what a turn may be besides text: ErrorTurn, TimeoutTurn, StopTurn, tool_call
    script_file     the script file of serve --script FILE (JSON or TOML)
    testing         the testing kit: LocalKit (a scripted local API, its clients and its request log)

The pytest plugin, ``msgmodel.pytest_plugin`` (the ``msgmodel_api`` fixture), is registered by the
``pytest11`` entry point and lives outside this package, so that pytest can load it without the extra.

Built on the core (``msgmodel.core``), never imported by it. Needs the ``[api]`` extra
(``pip install 'msgmodel-anthropic[api]'``); without it ``import msgmodel.api`` raises
``MissingExtraError`` saying so.
"""

from msgmodel.api._sdk import MissingExtraError, require_extra

require_extra()  # before anything else: without the [api] extra, say so (a lookup; the SDK is not imported)

# ruff: noqa: E402  (the imports below come after the extra's check on purpose)
from msgmodel.api.demo_tools import DEMO_FILES, calculator, demo_registry
from msgmodel.api.scripted import (
    Model,
    RuleModel,
    ScriptedModel,
    ScriptExhaustedError,
    ScriptNotUsedError,
    SequenceModel,
)
from msgmodel.api.server import (
    BASE_URL,
    DEFAULT_PORT,
    LOCAL_API_KEY,
    MAX_BODY_BYTES,
    SERVE_HELP,
    ErrorType,
    LocalAPI,
    LocalServer,
    Response,
    async_local_client,
    client,
    configure_serve,
    error_response,
    handle_count_tokens,
    handle_messages,
    is_local,
    local_client,
    make_server,
    run_serve,
    serve,
)
from msgmodel.api.turns import ErrorTurn, Reply, StopTurn, TimeoutTurn, Turn, tool_call

__all__ = [
    "BASE_URL",
    "DEFAULT_PORT",
    "DEMO_FILES",
    "LOCAL_API_KEY",
    "MAX_BODY_BYTES",
    "SERVE_HELP",
    "ErrorTurn",
    "ErrorType",
    "LocalAPI",
    "LocalServer",
    "MissingExtraError",
    "Model",
    "Reply",
    "Response",
    "RuleModel",
    "ScriptExhaustedError",
    "ScriptNotUsedError",
    "ScriptedModel",
    "SequenceModel",
    "StopTurn",
    "TimeoutTurn",
    "Turn",
    "async_local_client",
    "calculator",
    "client",
    "configure_serve",
    "demo_registry",
    "error_response",
    "handle_count_tokens",
    "handle_messages",
    "is_local",
    "local_client",
    "make_server",
    "run_serve",
    "serve",
    "tool_call",
]
