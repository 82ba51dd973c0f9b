"""``--ray``: games run as Ray tasks give the same results as a local run.

Needs the ``ray`` extra (skipped without it). One local Ray with two CPUs serves the
module; every check is short.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from allegra_rules import preset
from allegra_rules.analysis import analyze
from allegra_rules.cli import main
from allegra_rules.cli._ray import ray_runner
from allegra_rules.simulate import simulate
from allegra_rules.tournament import round_robin


@pytest.fixture(scope="module", autouse=True)
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        yield
    finally:
        ray.shutdown()


def test_simulate_on_ray_equals_local() -> None:
    config = preset("seeds")
    local = simulate(2, games=5, config=config, seed=3, bots=["greedy", "random"], jobs=1)
    with ray_runner(None) as (runner, cpus):
        assert cpus == 2
        remote = simulate(
            2, games=5, config=config, seed=3, bots=["greedy", "random"], jobs=2, runner=runner
        )
    assert remote == local
    assert ray.is_initialized()  # the fixture's Ray is left running


def test_tournament_on_ray_equals_local() -> None:
    config = preset("seeds")
    kwargs = {"config": config, "deals": 2, "seed": 5, "num_players": 3}
    local = round_robin(["random", "greedy"], **kwargs)  # type: ignore[arg-type]
    with ray_runner(None) as (runner, _):
        remote = round_robin(["random", "greedy"], jobs=2, runner=runner, **kwargs)  # type: ignore[arg-type]
    assert [g.index for g in remote] == list(range(len(local)))
    assert remote == local


def test_cli_simulate_ray_output_equals_local(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--games", "4", "--players", "2", "--bots", "greedy", "--json"]
    assert main(argv) == 0
    local = json.loads(capsys.readouterr().out)
    assert main([*argv, "--ray"]) == 0
    assert json.loads(capsys.readouterr().out) == local


def test_analyze_on_ray_equals_local() -> None:
    config = preset("fr")
    local = analyze(3, games=5, config=config, seed=6, bots=["greedy"] * 3, jobs=1)
    with ray_runner(None) as (runner, _):
        remote = analyze(
            3, games=5, config=config, seed=6, bots=["greedy"] * 3, jobs=2, runner=runner
        )
    assert remote == local


def test_cli_analyze_ray_json_equals_local(tmp_path: Path) -> None:
    argv = ["analyze", "--players", "2-3", "--games", "3", "--seed", "4", "--no-progress"]
    assert main([*argv, "--json", str(tmp_path / "local.json")]) == 0
    assert main([*argv, "--ray", "--json", str(tmp_path / "ray.json")]) == 0
    assert (tmp_path / "ray.json").read_bytes() == (tmp_path / "local.json").read_bytes()
