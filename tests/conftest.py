"""Shared test configuration: Hypothesis profiles (derandomized in CI, so a red run reproduces), and
``scripts/`` on the import path, so that a test imports a script (``import build_site``) as a module."""

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))  # the scripts are not a package

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "ci", deadline=None, derandomize=True, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "default")
