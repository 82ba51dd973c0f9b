"""Test configuration: Hypothesis profiles.

The default profile ``ci`` keeps the suite fast; ``thorough`` runs deep. Pick one
with ``HYPOTHESIS_PROFILE=thorough python -m pytest``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough",
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
