"""How well do a policy's value heads know a position? Against the truth, and rollouts.

Run from the repository root::

    python benchmarks/value_accuracy.py --weights runs/any2/policy.npz --games 40 \\
        --json value-accuracy.json

It plays ``--games`` held-out games (``game_seed(--seed, g)``, the rules of ``--preset``):
with ``--subject policy`` (the default) the weights' policy at one seat (seat ``g mod n``)
against GreedyBot at the others, as the heads were trained (the learner's decisions), and
with ``--subject greedy`` GreedyBot at every seat. At every ``--every``-th decision with
a choice of the subject's seats it asks the weights' value heads ([`PolicyBot.value`])
for the seat to act. When the round ends it
compares the predicted **margin** (the seat's round reward less the others' mean, scaled
rewards) with the true one; when the game ends, the predicted **win** probability and
**rank** with what happened. As a yardstick at about the same cost it also estimates the
margin by ``--rollouts`` short rollouts from the seat's view (``determinize``, then
GreedyBot at every seat for ``SearchBot.HORIZON`` turns a player or to the round's end,
the zone sums estimated as the search does, in the same scaled units), and times both.

Printed and written (``--json``): per measure the number of positions, the mean squared
error and the correlation of the margins (value and rollouts), the win's Brier score and
log loss against the base rate's, the share of ranks predicted right (the most probable
rank) against always guessing the commonest, and the mean time of a value and of the
rollouts per position.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from allegra_rules import GameState, GreedyBot, apply, legal_actions, new_game, observe, preset
from allegra_rules.adapters.features import RewardScale
from allegra_rules.bots import SeatEstimate
from allegra_rules.determinize import determinize
from allegra_rules.policy import PolicyBot
from allegra_rules.search import SearchBot
from allegra_rules.simulate import game_seed
from allegra_rules.state import Phase


def rollout_margin(state: GameState, seat: int, rng: random.Random, scale: RewardScale) -> float:
    """One short rollout's margin for ``seat``, in scaled rewards (as the search estimates)."""
    sample = determinize(observe(state, seat), rng)
    start_round = sample.round
    turns = sample.turns_played + SearchBot.HORIZON * sample.num_players
    bots = [GreedyBot(rng.getrandbits(32)) for _ in range(sample.num_players)]
    while not sample.is_terminal and sample.round == start_round:
        if sample.phase is Phase.DRAW and sample.turns_played >= turns:
            break
        sample = apply(sample, bots[sample.current_player or 0].choose(sample))
    if sample.round != start_round or sample.is_terminal:
        assert sample.last_round is not None
        sums = [float(x) for x in sample.last_round.scores]
    else:
        sums = SeatEstimate.from_view(observe(sample, seat)).sums
    rewards = [scale.round_reward(s) for s in sums]  # type: ignore[arg-type]
    others = (sum(rewards) - rewards[seat]) / (len(rewards) - 1)
    return rewards[seat] - others


def correlation(xs: list[float], ys: list[float]) -> float:
    """Pearson's correlation (0 when either side does not vary)."""
    if len(xs) < 2 or statistics.pstdev(xs) == 0 or statistics.pstdev(ys) == 0:
        return 0.0
    return statistics.correlation(xs, ys)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--weights", type=Path, required=True, help="weights with value heads")
    parser.add_argument("--preset", default="seeds")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--every", type=int, default=5, help="ask at every N-th decision")
    parser.add_argument("--rollouts", type=int, default=1, help="rollouts per position")
    parser.add_argument("--seed", type=int, default=71)
    parser.add_argument("--subject", choices=("policy", "greedy"), default="policy")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    bot = PolicyBot(0, weights=args.weights)
    if not bot.has_value:
        parser.error(f"{args.weights} has no value heads (train with --value-heads)")
    config = preset(args.preset)
    scale = RewardScale(config, "scaled")
    rng = random.Random(args.seed)
    margins: list[tuple[float, float, float]] = []  # (value, rollouts, truth)
    games: list[tuple[float, list[float], int, int]] = []  # (win, ranks, won, rank)
    value_s: list[float] = []
    rollout_s: list[float] = []
    for g in range(args.games):
        state = new_game(args.players, seed=game_seed(args.seed, g), config=config)
        subject = g % args.players if args.subject == "policy" else None
        bots: list[Any] = [
            PolicyBot(p, weights=args.weights) if p == subject else GreedyBot(p)
            for p in range(args.players)
        ]
        pending_round: list[tuple[int, float, float]] = []
        pending_game: list[tuple[int, float, list[float]]] = []
        decision = 0
        while not state.is_terminal:
            seat = state.current_player
            assert seat is not None
            if len(legal_actions(state)) > 1 and subject in (None, seat):
                decision += 1
                if decision % args.every == 0:
                    start = time.perf_counter()
                    value = bot.value(state)
                    value_s.append(time.perf_counter() - start)
                    start = time.perf_counter()
                    estimate = statistics.fmean(
                        rollout_margin(state, seat, rng, scale) for _ in range(args.rollouts)
                    )
                    rollout_s.append(time.perf_counter() - start)
                    pending_round.append((seat, value.margin, estimate))
                    pending_game.append((seat, value.win, list(value.ranks)))
            before = state.round
            state = apply(state, bots[seat].choose(state))
            if state.round != before or state.is_terminal:
                assert state.last_round is not None
                rewards = [scale.round_reward(s) for s in state.last_round.scores]
                for who, predicted, estimate in pending_round:
                    others = (sum(rewards) - rewards[who]) / (len(rewards) - 1)
                    margins.append((predicted, estimate, rewards[who] - others))
                pending_round = []
        totals = state.totals
        for who, win, ranks in pending_game:
            rank = sum(1 for t in totals if t < totals[who])
            games.append((win, ranks, int(who in state.winners), rank))
        print(f"game {g + 1}: {len(margins)} margins, {len(games)} outcomes", file=sys.stderr)
    truth = [m[2] for m in margins]
    out: dict[str, Any] = {
        "weights": str(args.weights),
        "preset": args.preset,
        "players": args.players,
        "games": args.games,
        "seed": args.seed,
        "subject": args.subject,
        "positions": len(margins),
        "margin_value_mse": statistics.fmean((m[0] - m[2]) ** 2 for m in margins),
        "margin_rollouts_mse": statistics.fmean((m[1] - m[2]) ** 2 for m in margins),
        "margin_value_correlation": correlation([m[0] for m in margins], truth),
        "margin_rollouts_correlation": correlation([m[1] for m in margins], truth),
        "value_ms": 1000 * statistics.fmean(value_s),
        "rollouts_ms": 1000 * statistics.fmean(rollout_s),
        "rollouts": args.rollouts,
    }
    base = statistics.fmean(g[2] for g in games)
    eps = 1e-7
    out["win_brier"] = statistics.fmean((g[0] - g[2]) ** 2 for g in games)
    out["win_brier_base_rate"] = statistics.fmean((base - g[2]) ** 2 for g in games)
    out["win_log_loss"] = statistics.fmean(
        -math.log(max(eps, g[0] if g[2] else 1 - g[0])) for g in games
    )
    common = max(range(args.players), key=lambda r: sum(1 for g in games if g[3] == r))
    out["rank_right"] = statistics.fmean(
        float(max(range(len(g[1])), key=g[1].__getitem__) == g[3]) for g in games
    )
    out["rank_right_commonest"] = statistics.fmean(float(g[3] == common) for g in games)
    for key, value in out.items():
        print(f"{key}: {round(value, 4) if isinstance(value, float) else value}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
