"""``check``'s validator and the local server's agree on the body-level fields both read (issue 11).

``msgmodel.core.protocol.validate_request`` (what ``python -m msgmodel check`` runs) checks
``max_tokens``, ``model``, ``stream``, ``tools`` and ``thinking`` itself, as the core cannot import
the API layer's table; ``msgmodel.api.request.validate_body`` (the server) checks every field from
that table. On those five fields both must refuse the same bodies and name the same fields, and
what ``validate_request`` says about a field must be one of the server's texts for it (the server
lists every problem of a field, the core the first). Unknown model ids are the server's alone (a
404 from the model table; the core keeps no model list). Tool entries are checked by the server only.

Found by this test and fixed: ``tools: null`` and ``thinking: null`` passed ``check`` (the server
refuses both); a ``thinking`` object's own fields (``budget_tokens`` required, an integer >= 1024,
``display``, extra keys) and the ``between_tools`` variant were not read by ``check``.
"""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from msgmodel.api.request import known_models, validate_body
from msgmodel.core.protocol import Violation, validate_request

FIELDS = ("max_tokens", "model", "stream", "tools", "thinking")
MODELS = sorted(known_models())[:3]
TOOL = {"name": "t", "input_schema": {"type": "object"}}

junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(allow_nan=False),
    st.text(max_size=3),
    st.just([]),
    st.just({}),
)
thinking = st.fixed_dictionaries(
    {"type": st.one_of(st.sampled_from(["enabled", "disabled", "adaptive", "between_tools", "interleaved"]), junk)},
    optional={
        "budget_tokens": st.one_of(st.integers(0, 5000), junk),
        "display": st.one_of(st.sampled_from(["omitted", "summarized"]), junk),
        "extra": junk,
    },
)
FIELD_VALUES: dict[str, Any] = {
    "max_tokens": st.one_of(st.integers(-3, 5000), junk),
    "model": st.one_of(st.sampled_from(MODELS), junk),
    "stream": junk,
    "tools": st.one_of(st.lists(st.just(TOOL), max_size=1), junk),
    "thinking": st.one_of(thinking, junk),
}
bodies = st.fixed_dictionaries({}, optional=FIELD_VALUES).map(
    lambda fields: {"messages": [{"role": "user", "content": "hi"}], **fields}
)


def by_field(violations: list[Violation]) -> dict[str, list[str]]:
    """The texts of the violations of each of the five fields, in order."""
    out: dict[str, list[str]] = {}
    for v in violations:
        field = v.path.split(".")[0]
        if field in FIELDS and v.rule != "model_not_found":
            out.setdefault(field, []).append(str(v))
    return out


@settings(max_examples=400, deadline=None)
@given(bodies)
@example(  # found by Hypothesis in CI: the budget reported beside a missing model by the core only
    {
        "messages": [{"role": "user", "content": "hi"}],
        "max_tokens": 1,
        "thinking": {"type": "enabled", "budget_tokens": 1024},
    }
)
def test_check_and_the_server_refuse_the_same_body_fields(body: dict[str, Any]) -> None:
    core, server = by_field(validate_request(body)), by_field(validate_body(body))
    assert core.keys() == server.keys(), (core, server)
    for field, texts in core.items():
        assert texts[0] in server[field], (field, texts, server[field])
    budget = [
        [str(v) for v in found if v.rule == "thinking_budget"]
        for found in (validate_request(body), validate_body(body))
    ]
    assert budget[0] == budget[1], budget


def test_the_disagreements_found_are_fixed() -> None:
    base = {"model": MODELS[0], "max_tokens": 2048, "messages": [{"role": "user", "content": "hi"}]}
    for extra in (
        {"tools": None},
        {"thinking": None},
        {"thinking": {"type": "enabled"}},
        {"thinking": {"type": "enabled", "budget_tokens": 100}},
        {"thinking": {"type": "disabled", "budget_tokens": 1024}},
        {"thinking": {"type": "adaptive", "display": "full"}},
    ):
        body = {**base, **extra}
        assert [str(v) for v in validate_request(body)][:1] == [str(v) for v in validate_body(body)][:1] != []
    assert validate_request({**base, "thinking": {"type": "between_tools"}}) == []


def test_check_refuses_a_thinking_budget_not_below_max_tokens_as_the_server_does() -> None:
    # check passed these (the rule has no field path, so the field comparison above missed it);
    # the server answers 400 "`max_tokens` must be greater than `thinking.budget_tokens`".
    base = {"model": MODELS[0], "messages": [{"role": "user", "content": "hi"}]}
    for max_tokens, budget in ((1024, 1024), (1500, 4096), (2048, 2**70)):
        body = {**base, "max_tokens": max_tokens, "thinking": {"type": "enabled", "budget_tokens": budget}}
        assert [str(v) for v in validate_request(body)] == [str(v) for v in validate_body(body)] != []
    tools = {"tools": [TOOL], "max_tokens": 1024, "thinking": {"type": "enabled", "budget_tokens": 4096}}
    assert validate_request({**base, **tools}) == validate_body({**base, **tools}) == []  # interleaved: allowed
