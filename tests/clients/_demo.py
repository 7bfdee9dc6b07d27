"""What the client tests share: the model id, a dummy key, a structured-output model, the demo files."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from msgmodel.api.demo_tools import DEMO_FILES

MODEL = "claude-haiku-4-5"
DUMMY_KEY = "local-dummy-key"  # the local API accepts any key
ORPHAN_WORDS = "unexpected `tool_use_id` found in `tool_result` blocks"


class Weather(BaseModel):
    """The answer a structured-output call asks for."""

    city: str
    temperature_c: float
    conditions: Literal["sunny", "cloudy", "rain"]


def read_demo_file(path: str) -> str:
    """The demo project's file at ``path``."""
    return DEMO_FILES.get(path, f"no such file: {path}")
