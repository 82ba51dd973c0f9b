"""Search bots against a random player: does an honest search still beat random?

Run from the repository root (needs the ``openspiel`` extra)::

    python benchmarks/search_eval.py --games 120 --simulations 32 --rounds 1 --json

Every arm plays the same deals (engine seeds 0..games-1, the search bot in seat
``game % 2``) against a uniformly random player, 2 players, ``--turns`` turns per
round, ``--rounds`` rounds (the game parameter ``rounds``: the searches stop there
too). A referee plays the real game with the engine; at each of its
decisions the search bot gets an OpenSpiel state to search from:

- ``mcts-seeded``: ``MCTSBot`` on ``deal="seeded"`` with the real seed. It reads the
  whole deal, the next draws included (the old adapter's behaviour: it cheats).
- ``mcts-sampled``: ``MCTSBot`` on ``deal="seeded"`` from one deal sampled afresh
  from the bot's view at every decision (honest, one determinization).
- ``mcts-chance``: ``MCTSBot`` on ``deal="chance"`` from the bot's view: every card
  nobody has seen is dealt by chance nodes during the search.
- ``ismcts``: OpenSpiel's ``ISMCTSBot`` on ``deal="chance"``; it resamples the
  hidden cards with ``resample_from_infostate`` at every simulation.

The margin of a game is the random player's total minus the bot's total (points;
positive means the bot did better). Printed: the mean margin, its standard error,
the bot's win rate and the seconds per game.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import allegra_rules.adapters.openspiel  # noqa: F401
from allegra_rules import apply, new_game, observe
from allegra_rules.determinize import determinize
from allegra_rules.encoding import action_from_id, legal_action_ids

ARMS = ("mcts-seeded", "mcts-sampled", "mcts-chance", "ismcts")


def make_bot(arm: str, game: Any, simulations: int, uct_c: float, rng: Any) -> Any:
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    if arm == "ismcts":
        return ismcts.ISMCTSBot(
            game, evaluator, uct_c=uct_c, max_simulations=simulations, random_state=rng
        )
    return mcts.MCTSBot(
        game, uct_c=uct_c, max_simulations=simulations, evaluator=evaluator, random_state=rng
    )


def play(arm: str, seed: int, args: argparse.Namespace) -> tuple[float, float]:
    """One game; returns (margin, seconds)."""
    base = {"players": 2, "max_turns_per_round": args.turns, "rounds": args.rounds}
    chance = pyspiel.load_game("python_allegra", {**base, "deal": "chance"})
    real = pyspiel.load_game("python_allegra", {**base, "deal": "seeded", "seed": str(seed)})
    game = chance if arm in ("mcts-chance", "ismcts") else real
    rng = np.random.RandomState(seed)
    bot = make_bot(arm, game, args.simulations, args.uct_c, rng)
    pick = random.Random(seed + 10**6)
    sampler = random.Random(seed + 2 * 10**6)
    me = seed % 2
    state = new_game(2, config=real.config, seed=seed)
    start = time.perf_counter()
    while not state.is_terminal and len(state.round_scores) < args.rounds:
        ids = legal_action_ids(state)
        if state.current_player != me:
            action = pick.choice(ids)
        elif len(ids) == 1:
            action = ids[0]
        else:
            if arm == "mcts-seeded":
                root = real.state_from_engine(state)
            elif arm == "mcts-sampled":
                sample = determinize(observe(state, me), sampler)
                root = pyspiel.load_game(
                    "python_allegra",
                    {**base, "deal": "seeded", "seed": str(sample.seed)},
                ).state_from_engine(sample)
            else:
                root = chance.state_from_engine(state, player=me)
            action = int(bot.step(root))
        state = apply(state, action_from_id(action, 2))
    seconds = time.perf_counter() - start
    totals = [sum(scores[p] for scores in state.round_scores) for p in range(2)]
    return float(totals[1 - me] - totals[me]), seconds


def summary(margins: list[float], seconds: list[float]) -> dict[str, float]:
    n = len(margins)
    mean = sum(margins) / n
    var = sum((m - mean) ** 2 for m in margins) / (n - 1) if n > 1 else 0.0
    return {
        "games": n,
        "mean_margin": round(mean, 2),
        "stderr": round(math.sqrt(var / n), 2),
        "win_rate": round(sum(m > 0 for m in margins) / n, 3),
        "seconds_per_game": round(sum(seconds) / n, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--simulations", type=int, default=16)
    parser.add_argument("--uct-c", type=float, default=2.0)
    parser.add_argument("--turns", type=int, default=4, help="max_turns_per_round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds played (1 to 3)")
    parser.add_argument("--arms", default=",".join(ARMS))
    parser.add_argument("--first-game", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results: dict[str, dict[str, float]] = {}
    arms = args.arms.split(",")
    margins: dict[str, list[float]] = {a: [] for a in arms}
    seconds: dict[str, list[float]] = {a: [] for a in arms}
    for seed in range(args.first_game, args.first_game + args.games):
        for arm in arms:  # interleaved, so machine noise hits every arm alike
            margin, took = play(arm, seed, args)
            margins[arm].append(margin)
            seconds[arm].append(took)
        row = {a: margins[a][-1] for a in arms}
        print(f"game {seed}: {json.dumps(row)}", file=sys.stderr, flush=True)
        if (seed + 1 - args.first_game) % 10 == 0:
            means = {a: round(sum(m) / len(m), 1) for a, m in margins.items()}
            print(f"after {seed + 1 - args.first_game} games: {means}", file=sys.stderr, flush=True)
    for arm in arms:
        results[arm] = summary(margins[arm], seconds[arm])
    if args.json:
        print(json.dumps({"settings": vars(args), "results": results, "margins": margins}))
    else:
        for arm, row in results.items():
            print(f"{arm:13s} {row}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
