"""How ``round_robin`` splits its games into tasks: dealt out in turn against consecutive runs.

Run from the repository root::

    python benchmarks/tournament_tasks.py --deals 1 --jobs 2 --repeats 2

Both ways play the same games in a pool of ``--jobs`` worker processes, with as many
tasks as ``deal_out`` makes. ``dealt`` runs the tasks of ``deal_out`` (every task holds
games of every pair). ``consecutive`` regroups the same games into runs of consecutive
games of the schedule, which leaves the slow pairs at its end (two search bots) to one
or two tasks. The two ways alternate; every run checks that the games equal the first
run's. Printed: every wall time, the medians and the ratio (consecutive over dealt;
above 1 means dealing out was faster).
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from allegra_rules import preset
from allegra_rules.tournament import TournamentGame, round_robin


def pool_runner(jobs: int, *, consecutive: bool) -> Callable[..., Iterable[Any]]:
    """A ``runner`` for ``round_robin`` that plays its tasks in a local pool."""

    def run(function: Callable[[Any], Any], tasks: Sequence[Any]) -> Iterable[Any]:
        if consecutive:
            head = tasks[0][:3]
            games = sorted((f for task in tasks for f in task[3]), key=lambda f: f.index)
            size = -(-len(games) // len(tasks))
            tasks = [(*head, tuple(games[k : k + size])) for k in range(0, len(games), size)]
        context = multiprocessing.get_context("forkserver")
        with context.Pool(jobs) as pool:
            return list(pool.imap(function, tasks))

    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", default="random,greedy,search-easy,search,search-hard")
    parser.add_argument("--deals", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args(argv)
    bots = args.bots.split(",")
    config = preset("seeds")
    times: dict[str, list[float]] = {"dealt": [], "consecutive": []}
    first: list[TournamentGame] | None = None
    for repeat in range(args.repeats):
        for way in ("dealt", "consecutive"):
            runner = pool_runner(args.jobs, consecutive=way == "consecutive")
            start = time.perf_counter()
            games = round_robin(
                bots, config=config, deals=args.deals, seed=args.seed, jobs=args.jobs, runner=runner
            )
            elapsed = time.perf_counter() - start
            if first is None:
                first = games
            elif games != first:
                raise SystemExit(f"{way} played different games")
            times[way].append(elapsed)
            print(f"repeat {repeat + 1}, {way}: {elapsed:.1f} s ({len(games)} games)", flush=True)
    dealt = statistics.median(times["dealt"])
    consecutive = statistics.median(times["consecutive"])
    print(f"median dealt: {dealt:.1f} s, consecutive: {consecutive:.1f} s")
    print(f"consecutive / dealt: {consecutive / dealt:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
