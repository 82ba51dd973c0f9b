"""Test configuration: the default and thorough runs, and the ``rule`` marker check.

``python -m pytest`` is the default run: bounded Hypothesis examples (profile ``ci``)
and small samples of the long random-play tests, a few tens of seconds of CPU on two
cores. ``python -m pytest --thorough`` (or ``ALLEGRA_THOROUGH=1``) is the deep run: the
``thorough`` Hypothesis profile (2,000 examples per property), the 2,000-game
random-play run and every test marked ``@pytest.mark.slow``, which the default run
deselects. ``ALLEGRA_CHECK_INSTALL=1`` (set by CI) also selects the tests marked
``install_check``, which build a fresh virtual environment. ``HYPOTHESIS_PROFILE``
still picks a profile by name; the ``mutation`` profile is for mutation testing (few
examples, derandomized, no shrinking, no example database; see CONTRIBUTING.md).

Tests name the rule clauses of ``docs/rules.md`` they check with
``@pytest.mark.rule("R4.2", ...)`` (registered in ``pyproject.toml``). A test whose
marker names a clause that does not exist fails at setup.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings

from helpers import thorough_run
from postgres import Cluster, can_run_as_root, find_bin
from rule_markers import CLAUSE_ID, parse_clauses
from server_process import Databases

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


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--thorough",
        action="store_true",
        help="deep run: thorough Hypothesis profile, 2,000 random games, slow tests",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--thorough"):
        # Test modules read the switch at import time, after this hook.
        os.environ["ALLEGRA_THOROUGH"] = "1"
    default = "thorough" if thorough_run() else "ci"
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", default))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the ``slow`` tests unless thorough, the ``install_check`` ones unless asked."""
    skip_markers = []
    if not thorough_run():
        skip_markers.append("slow")
    if os.environ.get("ALLEGRA_CHECK_INSTALL") != "1":
        skip_markers.append("install_check")
    keep, dropped = [], []
    for item in items:
        wanted = not any(item.get_closest_marker(name) for name in skip_markers)
        (keep if wanted else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


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


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole docs site, generated and built once per run (strict: a warning fails).

    ``docs/generate.py`` writes its git-ignored folders in ``docs/`` and builds the
    translations; the English site, which carries them at ``/<lang>/``, is built into a
    temporary folder. Skipped when the docs extra is not installed.
    """
    pytest.importorskip("mkdocs", reason="the docs extra is not installed (pip install '.[docs]')")
    import importlib.util
    import logging
    import sys

    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location(
        "_docs_generate_built", root / "docs" / "generate.py"
    )
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = generator
    spec.loader.exec_module(generator)
    out = tmp_path_factory.mktemp("site")
    logging.getLogger("mkdocs").setLevel(logging.WARNING)
    cwd = Path.cwd()
    try:
        generator.generate()
        build(load_config(str(root / "mkdocs.yml"), site_dir=str(out)))
    finally:
        os.chdir(cwd)
    return out


@pytest.fixture(scope="session")
def postgres() -> Iterator[Cluster]:
    """A PostgreSQL server of the test session's own (tests/postgres.py), stopped at the end.

    Skipped when psycopg or the PostgreSQL programs (``initdb``, ``pg_ctl``,
    ``postgres``) are missing, unless ``ALLEGRA_REQUIRE_POSTGRES=1`` (CI): then it fails.
    """
    required = os.environ.get("ALLEGRA_REQUIRE_POSTGRES") == "1"
    missing = None
    bin_dir = find_bin()
    if bin_dir is None:
        missing = "the PostgreSQL programs initdb, pg_ctl and postgres are not installed"
    else:
        try:
            import psycopg  # noqa: F401
            import psycopg_pool  # noqa: F401
        except ImportError:
            missing = "psycopg is not installed (pip install '.[server]')"
    if missing is None and os.geteuid() == 0 and not can_run_as_root():
        missing = "PostgreSQL refuses root, and there is no user 'postgres' to run it as"
    if missing is not None or bin_dir is None:
        if required:
            pytest.fail(f"ALLEGRA_REQUIRE_POSTGRES=1, but {missing}")
        pytest.skip(str(missing))
    cluster = Cluster(bin_dir).start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def databases(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Databases:
    """Fresh databases of one store: every server test that takes it runs on both stores.

    The ``sqlite`` run makes SQLite files, the ``postgres`` run databases of the session's
    own PostgreSQL server (the ``postgres`` fixture, tests/postgres.py).
    """
    folder = tmp_path_factory.mktemp(f"server-{request.param}")
    if request.param == "sqlite":
        return Databases(folder)
    return Databases(folder, request.getfixturevalue("postgres"))
