"""GreedyBot games per second against an older revision, and ``simulate`` with 1 or 2 jobs.

Run from the repository root:

    python benchmarks/bots_and_jobs.py greedy --baseline 4d8312d
    python benchmarks/bots_and_jobs.py jobs --games 400 --rounds 5

``greedy`` plays the same seeded 3-player games with this checkout's GreedyBot and
with the GreedyBot of ``--baseline`` (a git revision, loaded from ``git show``), A B A B
in one process, and prints the median CPU seconds per game of each and their ratio. It
also checks that both bots made the same moves in every game.

``jobs`` runs ``simulate`` for ``--games`` random-bot games with ``jobs=1`` and
``jobs=2`` alternately (a fresh pool each run, worker start-up included) and prints
the median wall-clock seconds of each and the speed-up, with the load average before
and after. On a busy machine the speed-up shrinks: the second worker competes with
whatever else runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import types

from allegra_rules import GameState, apply, new_game, preset
from allegra_rules import bots as current
from allegra_rules.simulate import bot_seed, game_seed, simulate


def _baseline_bots(revision: str) -> types.ModuleType:
    source = subprocess.run(
        ["git", "show", f"{revision}:src/allegra_rules/bots.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    module = types.ModuleType("baseline_bots")
    module.__dict__["__name__"] = "baseline_bots"
    exec(compile(source, f"{revision}:bots.py", "exec"), module.__dict__)
    return module


def _game(module: types.ModuleType, seed: int) -> tuple[tuple[int, ...], list[object]]:
    players = [module.GreedyBot(bot_seed(seed, seat)) for seat in range(3)]
    state: GameState = new_game(3, config=preset("seeds"), seed=seed)
    moves = []
    while not state.is_terminal:
        action = players[state.current_player].choose(state)
        moves.append(action)
        state = apply(state, action)
    return state.totals, moves


def greedy(args: argparse.Namespace) -> None:
    baseline = _baseline_bots(args.baseline)
    times: dict[str, list[float]] = {"baseline": [], "current": []}
    for r in range(args.rounds):
        seeds = [game_seed(r, i) for i in range(args.games)]
        results = {}
        for name, module in (("baseline", baseline), ("current", current)):
            start = time.process_time()
            results[name] = [_game(module, seed) for seed in seeds]
            times[name].append((time.process_time() - start) / args.games)
        assert results["baseline"] == results["current"], "the bots chose differently"
    old, new = statistics.median(times["baseline"]), statistics.median(times["current"])
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print(f"GreedyBot, 3 players, {args.games} games x {args.rounds} rounds, A B A B:")
    print(f"  {args.baseline}: median {old * 1000:.1f} ms CPU per game")
    print(f"  current: median {new * 1000:.1f} ms CPU per game")
    print(f"  speed-up {old / new:.2f}x; the same moves in every game")


def jobs(args: argparse.Namespace) -> None:
    config = preset("seeds")
    times: dict[int, list[float]] = {1: [], 2: []}
    before = os.getloadavg()[0]
    for _ in range(args.rounds):
        for count in (1, 2):
            start = time.perf_counter()
            simulate(3, games=args.games, config=config, seed=1, bots=["random"] * 3, jobs=count)
            times[count].append(time.perf_counter() - start)
    after = os.getloadavg()[0]
    one, two = statistics.median(times[1]), statistics.median(times[2])
    print(f"load average before {before:.2f}, after {after:.2f} ({os.cpu_count()} CPUs)")
    print(f"simulate, {args.games} random-bot games, 3 players, A B A B x {args.rounds}:")
    for count, median in ((1, one), (2, two)):
        runs = ", ".join(f"{t:.2f}" for t in times[count])
        print(f"  jobs={count}: median {median:.2f} s (runs: {runs})")
    print(f"  speed-up {one / two:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    g = commands.add_parser("greedy")
    g.add_argument("--baseline", default="4d8312d", help="git revision to compare with")
    g.add_argument("--games", type=int, default=6)
    g.add_argument("--rounds", type=int, default=5)
    g.set_defaults(run=greedy)
    j = commands.add_parser("jobs")
    j.add_argument("--games", type=int, default=400)
    j.add_argument("--rounds", type=int, default=5)
    j.set_defaults(run=jobs)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    sys.exit(main())
