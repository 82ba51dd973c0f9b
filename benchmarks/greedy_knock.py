"""Does GreedyBot's knocking rule help it? GreedyBot against a copy that never knocks.

Run from the repository root::

    python benchmarks/greedy_knock.py --deals 500 --players 2 3

Both bots are GreedyBot except for the knock window: ``never-knocks`` always passes.
They play a round robin of ``allegra_rules.tournament`` (the same deals, every seat, ties
counted half): heads-up each deal is played twice with the seats swapped; at 3 or more
seats one bot sits against copies of the other, both ways round, from every seat. Printed
per table size: the games, GreedyBot's share of the wins with its 95 % Wilson interval,
and its mean margin in points with the standard error.
"""

from __future__ import annotations

import argparse
import json
import time

from allegra_rules import GameState, Pass, Phase, preset
from allegra_rules.actions import Action
from allegra_rules.bots import GreedyBot
from allegra_rules.simulate import BOT_KINDS
from allegra_rules.tournament import pair_results, round_robin


class NeverKnocks(GreedyBot):
    """GreedyBot that passes in every knock window."""

    def choose(self, state: GameState) -> Action:
        if state.phase is Phase.KNOCK:
            return Pass()
        return super().choose(state)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=500)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--preset", default="seeds")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    makers = {"greedy": BOT_KINDS["greedy"], "never-knocks": NeverKnocks}
    out = []
    for players in args.players:
        start = time.perf_counter()
        games = round_robin(
            ["greedy", "never-knocks"],
            config=preset(args.preset),
            deals=args.deals,
            seed=args.seed,
            num_players=players,
            jobs=args.jobs,
            makers=makers,
        )
        (pair,) = pair_results(games)
        row = {
            "players": players,
            **pair.to_dict(),
            "seconds": round(time.perf_counter() - start, 1),
        }
        out.append(row)
        print(
            f"{players} players: {pair.games} games, {pair.a} wins {100 * pair.share:.1f} % "
            f"[{100 * pair.low:.1f}, {100 * pair.high:.1f}] against {pair.b}, "
            f"margin {pair.margin:+.2f} ± {pair.margin_stderr or 0:.2f} points",
            flush=True,
        )
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
