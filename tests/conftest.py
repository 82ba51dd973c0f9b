"""Test configuration: the default and thorough runs, the resources a run shares, markers.

``python -m pytest`` is the default run: bounded Hypothesis examples (profile ``ci``)
and small samples of the long random-play tests, in parallel workers (pytest-xdist,
``-n auto`` in ``pyproject.toml``; CONTRIBUTING.md gives each part's measured time).
``python -m pytest --thorough`` (or ``ALLEGRA_THOROUGH=1``) is the deep run: the
``thorough`` Hypothesis profile (2,000 examples per property), the 2,000-game
random-play run and every test marked ``@pytest.mark.slow``, which the default run
deselects. ``ALLEGRA_CHECK_INSTALL=1`` (set by CI) also selects the tests marked
``install_check``, which build a fresh virtual environment. ``HYPOTHESIS_PROFILE``
still picks a profile by name; the ``mutation`` profile is for mutation testing (few
examples, derandomized, no shrinking, no example database; see CONTRIBUTING.md).

Tests name the rule clauses of ``docs/rules.md`` they check with
``@pytest.mark.rule("R4.2", ...)`` (registered in ``pyproject.toml``). A test whose
marker names a clause that does not exist fails at setup.

One run, whatever its number of workers, shares what is costly to make: the docs site
(``built_site``) is built once and the PostgreSQL server (``postgres``) started once, by
the first worker that asks, under a lock in the run's own folder; the process that
started the workers stops the server and removes the folder at the end. JAX keeps its
compiled programs in ``.pytest_cache/jax/`` (its persistent compilation cache), so a
program compiled by one worker, test or training run is read back by the others, and
by the next run.
"""

from __future__ import annotations

import compileall
import contextlib
import importlib.util
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings

from helpers import thorough_run
from postgres import Cluster, can_run_as_root, find_bin
from rule_markers import CLAUSE_ID, parse_clauses
from server_process import Databases

ROOT = Path(__file__).resolve().parent.parent

# Before any test module imports JAX: every compiled program goes to the persistent
# cache, however quickly it compiled (the default keeps only those of a second or more),
# and XLA compiles for a quick compile rather than a quick run:
# - without LLVM's optimisations, and with its older fusion emitters (a training step of
#   the tests compiles in about half the time);
# - its machine code made in one piece rather than split for threads that the busy cores
#   cannot run anyway (the batched engine's step compiles in 0.77 s of CPU, not 0.95);
# - without handing dots to XNNPACK (a tiny training run compiled in about 4 % less CPU
#   in four of five alternated pairs; the tests' networks are too small to gain from it).
# The tests run most programs only a few times (the trainers' evaluations, thousands of
# steps in one loop, compile with LLVM's optimisations: EVALUATION_COMPILE in
# tests/test_train.py); the benchmarks and the GPU check compile as users do. A JAX
# release that drops one of these flags stops at start-up naming it ("Unknown flags in
# XLA_FLAGS").
os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", str(ROOT / ".pytest_cache" / "jax"))
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
QUICK_COMPILE = (
    "--xla_backend_optimization_level=0",
    "--xla_cpu_use_fusion_emitters=false",
    "--xla_cpu_parallel_codegen_split_count=1",
    "--xla_cpu_use_xnnpack=false",
)
_given_flags = os.environ.get("XLA_FLAGS", "")
os.environ["XLA_FLAGS"] = " ".join(
    [_given_flags, *(flag for flag in QUICK_COMPILE if flag.split("=")[0] not in _given_flags)]
).strip()

# pytest rewrites the asserts of every test module it imports, and keeps the result in the
# (git-ignored) __pycache__ folders next to them, unless bytecode may not be written
# (PYTHONDONTWRITEBYTECODE): then every worker and every pytest a test starts rewrites
# all 90 modules again, about 8 s of CPU each. The test processes write them (and the
# bytecode of any other module they import without it; pip's installs come with theirs),
# as the run writes the package's bytecode (_compile_the_package).
sys.dont_write_bytecode = False

GROUPS = {
    "tests/test_jax_engine.py": "jax",
    "tests/test_train.py": "train",
    "tests/test_docs_site.py": "site",
    "tests/test_docs_browser.py": "site",
    "tests/test_play_page.py": "site",
    "tests/test_ray.py": "ray",
}
"""The modules whose tests one worker runs together, and the name of each group.

A group's tests share what is costly to make in one process: the compiled programs of
the batched engine's Envs (``jax``) and of the trainers (``train``), the built docs site
and its browser (``site``), a local Ray cluster (``ray``: its processes cost about 5 s of
CPU to start, once in every worker that runs a test of the module). The groups are
handed out first (in the order of ``FIRST``), and the other tests one by one after them.
"""

TEST_GROUPS = dict.fromkeys(
    (
        "tests/test_train.py::test_a_step_reads_the_hint_and_the_greedy_moves_from_one_scoring",
        "tests/test_train.py::test_a_run_with_the_greedy_input_writes_weights_of_format_3",
        "tests/test_train.py::test_keep_best_writes_the_best_evaluated_network_and_survives_a_resume",
        "tests/test_train.py::test_a_network_of_the_greedy_hint_plays_in_policybot_as_in_jax",
    ),
    "train-hint",
)
TEST_GROUPS[
    "tests/test_train.py::test_a_run_of_several_configs_writes_format_4_that_plays_every_config"
] = "train-rules"
"""Tests of a ``GROUPS`` module that another worker runs, in a group of their own.

The ``train-hint`` tests train and play networks that read the greedy input, so they
share their compiled programs with each other and little with the rest of their module,
whose group alone would keep one worker busy for most of the run. The ``train-rules``
test trains on two configs at once: its programs (one engine per config inside each)
are the module's largest and nobody else's. What they compile in common with the rest of
their module, the persistent compilation cache shares between the workers.
"""

FIRST = (
    "jax",
    "train",
    "site",
    "train-hint",
    "train-rules",
    "tests/test_server_processes.py",
    "tests/test_docs.py::test_python_blocks_run_and_print_their_output",
    "ray",
    "tests/test_server_limits.py",
    "tests/test_growing_saves.py::test_the_batched_engine_agrees_on_the_field_in_lock_step",
)
"""The work units handed out first, in this order: the longest (measured), so that no
long unit starts near the end of a run while the other workers have nothing left.

A unit is a group of ``GROUPS`` or ``TEST_GROUPS``, or one test with all its cases. The
other units follow in the order pytest collects them, but for the ``WAITING`` ones
spread among them. The three workers start on the first three groups; the smaller
training groups then go to the first workers near their ends (pytest-xdist sends a
worker more when two of its tests or fewer are left), and the long single tests to the
next ones.
"""

WAITING = ("tests/test_server",)
"""The modules (by the start of their path) whose tests wait for much of their time on
what they started: servers, their bot workers, PostgreSQL, a browser.

Collected in a row, they came near the end and left the cores idle for a fifth to a third of the
run's last 100 s. Spread evenly over the first seven eighths of the other units, each
shares the cores with tests that use them. Each such module is one unit, so one worker
runs all of its tests and starts its module-scoped servers (SQLite's and PostgreSQL's,
each with its bot worker processes) once in the run, not once in every worker that ran
one of its tests.
"""


def work_unit(nodeid: str) -> str:
    """The unit of work that a test belongs to: its group, a ``WAITING`` module whole, or
    the test with its cases."""
    test = nodeid.split("[", 1)[0]  # a parametrized test's cases stay together
    module = nodeid.split("::", 1)[0]
    if module.startswith(WAITING):
        return module
    return TEST_GROUPS.get(test) or GROUPS.get(module, test)


RUN_FOLDER = "ALLEGRA_TEST_RUN_FOLDER"
"""The variable naming the folder that the processes of one run share."""

_RUN_KEY = pytest.StashKey[Path]()

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
    if not hasattr(config, "workerinput"):
        # The process that starts the workers (or the only one): the workers, started
        # after this hook, inherit the variable.
        folder = Path(tempfile.mkdtemp(prefix="allegra-run-"))
        config.stash[_RUN_KEY] = folder
        os.environ[RUN_FOLDER] = str(folder)
        _compile_the_package()
    else:
        _rewrite_a_share_of_the_test_modules(config)


def _compile_the_package() -> None:
    """Write the bytecode of the package under test, once, before any process imports it.

    The workers and the hundreds of processes the tests start (servers, their bots'
    worker processes, the command line) each import ``allegra_rules``. Where
    ``PYTHONDONTWRITEBYTECODE`` is set, none of them writes its bytecode, so each one
    compiled the package again from its sources (0.13 s of CPU for a server's imports).
    Python still reads bytecode it finds, as pip's install writes it for an installed
    package, so the run writes the checkout's once, into the usual (git-ignored)
    ``__pycache__`` folders. Nothing is written for a package installed elsewhere.
    """
    spec = importlib.util.find_spec("allegra_rules")
    package = ROOT / "src" / "allegra_rules"
    if spec is None or spec.origin is None or Path(spec.origin).parent != package:
        return
    compileall.compile_dir(package, quiet=1)


def _rewrite_a_share_of_the_test_modules(config: pytest.Config) -> None:
    """In a worker, before it collects: rewrite the asserts of its share of the modules.

    Every worker imports every test module of the run, and on a fresh clone none of the
    rewritten modules is kept yet, so each worker rewrote all of them, side by side
    (about 4 s of CPU each, with three workers 12 s of the run's start). Here worker
    ``k`` of ``n`` first rewrites and keeps every ``n``-th of the modules, as pytest's own
    import does (``_pytest.assertion.rewrite``), and then finds the others' kept ones.
    A module that another worker has not kept yet is rewritten by pytest as before, and a
    kept module is written whole or not at all, so the race costs time at worst. The
    functions are pytest's internal ones: where they change, this does nothing.
    """
    try:
        from _pytest.assertion import rewrite

        if config.getoption("assertmode") != "rewrite":
            return
        worker = config.workerinput  # type: ignore[attr-defined]
        index = int(str(worker["workerid"]).removeprefix("gw"))
        count = int(worker["workercount"])
        state = config.stash[rewrite.assertstate_key]
        # The modules of tests/ that the run's arguments name, or a folder above them.
        given = [
            Path(config.invocation_params.dir, a.split("::")[0]).resolve() for a in config.args
        ]
        chosen = [
            module
            for module in sorted((ROOT / "tests").glob("test_*.py"))
            if any(path == module or path in module.parents for path in given)
        ]
        for fn in chosen[index::count]:
            pyc = rewrite.get_cache_dir(fn) / (fn.name[:-3] + rewrite.PYC_TAIL)
            if rewrite._read_pyc(fn, pyc, state.trace) is not None:
                continue
            if not rewrite.try_makedirs(pyc.parent):
                return
            source_hash, code = rewrite._rewrite_test(fn, config)
            rewrite._write_pyc(state, code, source_hash, pyc)
    except Exception:
        return  # a speed-up only: pytest rewrites whatever is left as it imports it


def pytest_unconfigure(config: pytest.Config) -> None:
    """At the end of the run: stop the shared PostgreSQL server, remove the run's folder."""
    folder = config.stash.get(_RUN_KEY, None)
    if folder is None:
        return
    record = folder / "postgres.json"
    if record.is_file():
        started = json.loads(record.read_text(encoding="utf-8"))
        Cluster(Path(started["bin"]), Path(started["dir"])).stop()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: a worker per core and one more.

    Many tests wait a good part of their time on what they started (a server, a browser,
    PostgreSQL, a subprocess); the extra worker keeps the cores busy meanwhile.
    """
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) + 1
    return (os.cpu_count() or 1) + 1


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadgroup`` with the ``GROUPS`` of this file (each on one worker).

    pytest-xdist's own ``xdist_group`` marker renames a test's id, which pytest 9.2
    no longer lets a plugin do; the groups are found by module path here instead.
    """
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    # The units go out in the order of the collection (pytest_collection_modifyitems puts
    # FIRST first), not reordered by their number of tests: a group of two long tests
    # would otherwise wait behind every unit of many quick ones.
    config.option.loadscopereorder = False

    class ByModule(LoadGroupScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            scope: str = super()._split_scope(nodeid)
            if scope != nodeid:  # an xdist_group marker that took effect
                return scope
            return work_unit(nodeid)

    return ByModule(config, log)


@contextlib.contextmanager
def shared(name: str) -> Iterator[Path]:
    """Hold the run-wide lock ``name``; yields the folder the run's processes share.

    What a fixture makes inside it once, under the lock, every worker of the run uses.
    """
    from filelock import FileLock

    folder = Path(os.environ[RUN_FOLDER])
    with FileLock(folder / f"{name}.lock"):
        yield folder


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the ``slow`` tests unless thorough, the ``install_check`` ones unless asked;
    the ``FIRST`` units go first."""
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
    items[:] = in_run_order(keep)


def in_run_order(items: list[pytest.Item]) -> list[pytest.Item]:
    """The ``FIRST`` units first (in its order), then the others as collected, with the
    ``WAITING`` modules spread over the first seven eighths of them."""
    units: dict[str, list[pytest.Item]] = {}
    for item in items:
        units.setdefault(work_unit(item.nodeid), []).append(item)
    rank = {unit: i for i, unit in enumerate(FIRST)}
    first = sorted((u for u in units if u in rank), key=rank.__getitem__)
    rest = [u for u in units if u not in rank]
    others = [u for u in rest if not u.startswith(WAITING)]
    waiting = [u for u in rest if u.startswith(WAITING)]  # a whole module each (work_unit)
    span = len(others) * 7 / 8
    # (the other unit it follows, then 0 for that unit itself or 1 for a waiting module,
    # the waiting module's place)
    place = {u: (i, 0, 0) for i, u in enumerate(others)}
    for i, module in enumerate(waiting):
        place[module] = (int((i + 0.5) * span / len(waiting)), 1, i)
    order = first + sorted(rest, key=place.__getitem__)
    return [item for unit in order for item in units[unit]]


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
def built_site() -> Path:
    """The whole docs site, generated and built once per run (strict: a warning fails).

    ``docs/generate.py`` writes its git-ignored folders in ``docs/`` and builds the
    translations; the English site, which carries them at ``/<lang>/``, is built into the
    run's shared folder. The first worker that asks builds it, under the lock, and the
    others wait for it: nothing else writes into ``docs/`` meanwhile. Skipped when the
    docs extra is not installed.
    """
    pytest.importorskip("mkdocs", reason="the docs extra is not installed (pip install '.[docs]')")
    with shared("site") as folder:
        out = folder / "site"
        done = folder / "site.done"
        if not done.is_file():
            shutil.rmtree(out, ignore_errors=True)
            _build_site(out)
            done.touch()
    return out


def _build_site(out: Path) -> None:
    import importlib.util
    import logging
    import sys

    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    spec = importlib.util.spec_from_file_location(
        "_docs_generate_built", ROOT / "docs" / "generate.py"
    )
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = generator
    spec.loader.exec_module(generator)
    logging.getLogger("mkdocs").setLevel(logging.WARNING)
    cwd = Path.cwd()
    try:
        generator.generate()
        build(load_config(str(ROOT / "mkdocs.yml"), site_dir=str(out)))
    finally:
        os.chdir(cwd)


@pytest.fixture(scope="session")
def postgres() -> Cluster:
    """A PostgreSQL server of the test run's own (tests/postgres.py), stopped at the end.

    The first worker that asks starts it; every worker of the run shares it (each test
    makes databases of its own on it), and ``pytest_unconfigure`` stops it.

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
    with shared("postgres") as folder:
        record = folder / "postgres.json"
        if record.is_file():
            return Cluster(bin_dir, Path(json.loads(record.read_text(encoding="utf-8"))["dir"]))
        cluster = Cluster(bin_dir).start()
        record.write_text(json.dumps({"bin": str(bin_dir), "dir": str(cluster.dir)}))
        return cluster


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
