"""How strong is SearchBot? Its levels against GreedyBot and against each other.

Run from the repository root::

    python benchmarks/search_strength.py --deals 50 --jobs 2 --json strength.json

Arms (each on the same fixed deals, ``game_seed(--seed, d)``; bots seeded by seat):

- ``heads-up``: a search level against GreedyBot, 2 players, each deal played twice with
  the seats swapped (goal for the default level: at least 95 %).
- ``one-vs-three``: one search bot against three GreedyBots, 4 players, the search bot
  once at every seat of each deal (par 25 %; goal at least 70 %).
- ``hard-vs-default``: the strongest level against the default level, heads-up, seats
  swapped.
- ``timing`` (not run by default): seconds per decision of every level of ``--levels``,
  and of the capped ``SearchBot()``, on the same positions at 2, 4 and 6 players, levels
  alternating.

A game's share is the search bot's part of the win (a shared win is split, so a heads-up
tie counts half); the interval is the 95 % Wilson interval of the mean share over the
games. The margin is the others' mean total minus the search bot's (points, positive:
the search bot did better), with its standard error. The time per move is measured on
the search bot's decisions that had a choice (mean, 95th percentile and maximum), in wall
time and in the process's CPU time; the machine's load average is printed with it, since
other work slows the wall time down (the CPU time is what one idle core would take).
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import multiprocessing
import os
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from allegra_rules import GameState, GreedyBot, apply, legal_actions, new_game, preset
from allegra_rules.actions import Action
from allegra_rules.search import (
    DEFAULT_LEVEL,
    SEARCH_LEVELS,
    SearchBot,
    search_level,
)
from allegra_rules.simulate import game_seed
from allegra_rules.tournament import Fixture, TournamentGame, play_fixture, wilson_interval


class TimedSearch(SearchBot):
    """SearchBot that records the seconds of every decision with a choice."""

    def __init__(self, seed: int, *, simulations: int, candidates: int) -> None:
        super().__init__(seed, simulations=simulations, candidates=candidates)
        self.times: list[tuple[float, float]] = []

    def choose(self, state: GameState) -> Action:
        start = time.perf_counter()
        cpu = time.process_time()
        action = super().choose(state)
        if len(legal_actions(state)) > 1:
            self.times.append((time.perf_counter() - start, time.process_time() - cpu))
        return action


def make_search(level: str, seed: int) -> TimedSearch:
    """A named level's bot (``search_level``'s budget and candidates), timing its decisions."""
    named = search_level(level, seed)
    assert named.simulations is not None
    return TimedSearch(seed, simulations=named.simulations, candidates=named.candidates)


def play(num_players: int, config: Any, makers: dict[str, Any], fixture: Fixture) -> dict[str, Any]:
    """One game, with the seconds per decision of every TimedSearch in it."""
    built: list[TimedSearch] = []

    def track(name: str) -> Any:
        def build(seed: int) -> Any:
            bot = makers[name](seed)
            if isinstance(bot, TimedSearch):
                built.append(bot)
            return bot

        return build

    game = play_fixture(num_players, config, fixture, {n: track(n) for n in makers})
    return {"game": game, "times": [t for b in built for t in b.times]}


def run_arm(
    name: str,
    fixtures: Sequence[Fixture],
    num_players: int,
    makers: dict[str, Any],
    subject: str,
    jobs: int,
    config: Any,
) -> dict[str, Any]:
    start = time.perf_counter()
    task = functools.partial(play, num_players, config, makers)
    if jobs > 1:
        with multiprocessing.get_context("forkserver").Pool(jobs) as pool:
            results = list(pool.imap(task, fixtures))
    else:
        results = [task(f) for f in fixtures]
    games: list[TournamentGame] = [r["game"] for r in results]
    times = sorted(t for r in results for t, _ in r["times"])
    cpu = sorted(c for r in results for _, c in r["times"])
    n = len(games)
    wins = sum(g.share(subject) for g in games)
    margins = [g.margin(subject) for g in games]
    mean = sum(margins) / n
    stderr = math.sqrt(sum((m - mean) ** 2 for m in margins) / (n - 1) / n) if n > 1 else 0.0
    low, high = wilson_interval(wins, n)
    row = {
        "arm": name,
        "subject": subject,
        "players": num_players,
        "games": n,
        "share": round(wins / n, 4),
        "low": round(low, 4),
        "high": round(high, 4),
        "margin": round(mean, 2),
        "margin_stderr": round(stderr, 2),
        "decisions": len(times),
        "ms_per_move_mean": round(1000 * sum(times) / max(1, len(times)), 1),
        "ms_per_move_p95": round(1000 * times[int(0.95 * (len(times) - 1))], 1) if times else 0,
        "ms_per_move_max": round(1000 * times[-1], 1) if times else 0,
        "cpu_ms_per_move_mean": round(1000 * sum(cpu) / max(1, len(cpu)), 1),
        "cpu_ms_per_move_p95": round(1000 * cpu[int(0.95 * (len(cpu) - 1))], 1) if cpu else 0,
        "seconds": round(time.perf_counter() - start, 1),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    print(
        f"{name}: {subject} {n} games, share {100 * wins / n:.1f} % "
        f"[{100 * low:.1f}, {100 * high:.1f}], margin {mean:+.1f} ± {stderr:.1f}, "
        f"{row['ms_per_move_mean']} ms/move (p95 {row['ms_per_move_p95']}, "
        f"max {row['ms_per_move_max']}; CPU {row['cpu_ms_per_move_mean']} ms, "
        f"p95 {row['cpu_ms_per_move_p95']}), {row['seconds']} s, load {row['load_average']}",
        file=sys.stderr,
        flush=True,
    )
    return row


def timing(players: int, decisions: int, seed: int, levels: Sequence[str]) -> list[dict[str, Any]]:
    """Seconds per decision of every level on the same positions, levels alternating.

    The positions are the decisions with a choice of GreedyBot self-play games; on each
    the levels run in turn (A B C A B C ...), so a change of the machine's load hits
    them alike. Reported per level: the median, 95th percentile and maximum, in wall
    time and CPU time, and the same for ``SearchBot()`` (the capped default).
    """
    states: list[GameState] = []
    game = 0
    while len(states) < decisions:
        state = new_game(players, config=preset("seeds"), seed=game_seed(seed, 1000 + game))
        bots = [GreedyBot(p) for p in range(players)]
        while not state.is_terminal and len(states) < decisions:
            if len(legal_actions(state)) > 1:
                states.append(state)
            state = apply(state, bots[state.current_player or 0].choose(state))
        game += 1
    arms: dict[str, str | None] = {
        **{f"search-{name}": name for name in levels},
        "SearchBot()": None,
    }
    wall: dict[str, list[float]] = {name: [] for name in arms}
    cpu: dict[str, list[float]] = {name: [] for name in arms}
    for k, state in enumerate(states):
        for name, level in arms.items():
            bot = SearchBot(k) if level is None else search_level(level, k)
            start, used = time.perf_counter(), time.process_time()
            bot.choose(state)
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - used)
    rows = []
    for name in arms:
        w, c = sorted(wall[name]), sorted(cpu[name])
        p95 = int(0.95 * (len(w) - 1))
        row = {
            "arm": "timing",
            "subject": name,
            "players": players,
            "decisions": len(w),
            "wall_ms_median": round(1000 * statistics.median(w), 1),
            "wall_ms_p95": round(1000 * w[p95], 1),
            "wall_ms_max": round(1000 * w[-1], 1),
            "cpu_ms_median": round(1000 * statistics.median(c), 1),
            "cpu_ms_p95": round(1000 * c[p95], 1),
            "cpu_ms_max": round(1000 * c[-1], 1),
            "load_average": [round(x, 2) for x in os.getloadavg()],
        }
        print(
            f"timing {players}p {name}: wall median {row['wall_ms_median']} ms, "
            f"p95 {row['wall_ms_p95']}, max {row['wall_ms_max']}; CPU median "
            f"{row['cpu_ms_median']} ms, p95 {row['cpu_ms_p95']}, max {row['cpu_ms_max']}",
            file=sys.stderr,
            flush=True,
        )
        rows.append(row)
    return rows


def heads_up(a: str, b: str, deals: int, seed: int, first: int = 0) -> list[Fixture]:
    out = []
    for d in range(first, first + deals):
        deal = game_seed(seed, d)
        out += [Fixture(len(out), deal, (a, b)), Fixture(len(out) + 1, deal, (b, a))]
    return out


def one_against(
    a: str, b: str, players: int, deals: int, seed: int, first: int = 0
) -> list[Fixture]:
    out = []
    for d in range(first, first + deals):
        deal = game_seed(seed, d)
        for seat in range(players):
            bots = tuple(a if p == seat else b for p in range(players))
            out.append(Fixture(len(out), deal, bots))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=50, help="deals per heads-up arm")
    parser.add_argument("--deals-4p", type=int, default=15, help="deals of one-vs-three")
    parser.add_argument("--levels", default=",".join(SEARCH_LEVELS))
    parser.add_argument(
        "--arms", default="heads-up,one-vs-three,hard-vs-default", help="arms to run"
    )
    parser.add_argument(
        "--first-deal", type=int, default=0, help="play deals first..first+N-1 (to extend a run)"
    )
    parser.add_argument(
        "--timing-decisions", type=int, default=40, help="positions per table size (timing)"
    )
    parser.add_argument("--preset", default="seeds")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", default=None, help="write the rows to this file")
    args = parser.parse_args(argv)
    config = preset(args.preset)
    makers: dict[str, Any] = {"greedy": GreedyBot}
    for level in SEARCH_LEVELS:
        makers[f"search-{level}"] = functools.partial(make_search, level)
    levels = args.levels.split(",")
    arms = args.arms.split(",")
    rows = []

    def save() -> None:
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(
                    {
                        "preset": args.preset,
                        "seed": args.seed,
                        "first_deal": args.first_deal,
                        "rows": rows,
                    },
                    f,
                    indent=2,
                )

    default = f"search-{DEFAULT_LEVEL}"
    strongest = f"search-{list(SEARCH_LEVELS)[-1]}"
    if "timing" in arms:
        for players in (2, 4, 6):
            rows += timing(players, args.timing_decisions, args.seed, levels)
            save()
    if "heads-up" in arms:
        for level in levels:
            name = f"search-{level}"
            fixtures = heads_up(name, "greedy", args.deals, args.seed, args.first_deal)
            rows.append(run_arm("heads-up", fixtures, 2, makers, name, args.jobs, config))
            save()
    if "one-vs-three" in arms:
        for level in levels:
            name = f"search-{level}"
            fixtures = one_against(name, "greedy", 4, args.deals_4p, args.seed, args.first_deal)
            rows.append(run_arm("one-vs-three", fixtures, 4, makers, name, args.jobs, config))
            save()
    if "hard-vs-default" in arms:
        fixtures = heads_up(strongest, default, args.deals, args.seed + 1, args.first_deal)
        rows.append(run_arm("hard-vs-default", fixtures, 2, makers, strongest, args.jobs, config))
        save()
    print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
