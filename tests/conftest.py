"""Test configuration: Hypothesis profiles and the ``rule`` marker check.

The default profile ``ci`` keeps the suite fast; ``thorough`` runs deep. Pick one
with ``HYPOTHESIS_PROFILE=thorough python -m pytest``. The ``mutation`` profile is for
mutation testing (few examples, derandomized, no shrinking, no example database; see
CONTRIBUTING.md).

Tests name the rule clauses of ``docs/rules.md`` they check with
``@pytest.mark.rule("R4.2", ...)`` (registered in ``pyproject.toml``). A test whose
marker names a clause that does not exist fails at setup.
"""

from __future__ import annotations

import os
from functools import cache

import pytest
from hypothesis import HealthCheck, Phase, settings

from rule_markers import CLAUSE_ID, parse_clauses

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough",
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "mutation",
    max_examples=15,
    deadline=None,
    derandomize=True,
    database=None,
    # A mutant is killed by the first failing example: shrinking it would only cost time.
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    report_multiple_bugs=False,
    suppress_health_check=list(HealthCheck),
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@cache
def _known_clauses() -> frozenset[str]:
    return frozenset(parse_clauses())


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Fail a test whose ``rule`` marker names no clause of docs/rules.md."""
    for mark in item.iter_markers("rule"):
        if not mark.args:
            pytest.fail("@pytest.mark.rule needs at least one clause id, e.g. 'R4.2'")
        for clause_id in mark.args:
            if not isinstance(clause_id, str) or not CLAUSE_ID.match(clause_id):
                pytest.fail(f"@pytest.mark.rule: {clause_id!r} is not a clause id like 'R4.2'")
            if clause_id not in _known_clauses():
                pytest.fail(f"@pytest.mark.rule: clause {clause_id} is not in docs/rules.md")
