"""The pytest plugin: the ``msgmodel_api`` fixture, a scripted local Messages API for each test.

Registered by the ``pytest11`` entry point of the distribution (``msgmodel = "msgmodel.pytest_plugin"``
in pyproject.toml), so installing ``msgmodel-anthropic[api]`` is enough: no ``conftest.py`` line.
``pytest -p no:msgmodel`` turns it off.

    def test_agent_adds(msgmodel_api):
        msgmodel_api.script(tool_call("add", a=2, b=3), "5")
        assert run_agent(msgmodel_api.client, "2 + 3?") == "5"
        assert len(msgmodel_api.requests) == 2

The fixture is a ``msgmodel.api.testing.LocalKit``: ``.script(*turns)``, ``.client`` (the official
``anthropic.Anthropic``, answered in-process, ``max_retries=0``), ``.make_client(**kwargs)``,
``.requests`` (every request received, refused ones and retries included). At teardown it fails
the test when a scripted turn was never asked for, unless ``require_all_used`` was set to False.

This module is loaded by pytest in every run where the distribution is installed, with or without
the ``[api]`` extra: it imports nothing of ``msgmodel.api`` until the fixture is used (without the
extra, using it raises ``MissingExtraError`` naming the extra).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from msgmodel.api.testing import LocalKit

__all__ = ["msgmodel_api"]


@pytest.fixture
def msgmodel_api() -> Iterator[LocalKit]:
    """A fresh scripted local Messages API (``msgmodel.api.testing.LocalKit``) for one test."""
    from msgmodel.api.testing import LocalKit

    kit = LocalKit()
    yield kit
    if not kit.require_all_used:
        return
    try:
        kit.assert_all_used()
    except AssertionError as e:
        unused = str(e)
    else:
        return
    pytest.fail(f"msgmodel_api: {unused} (set msgmodel_api.require_all_used = False to allow it)", pytrace=False)
