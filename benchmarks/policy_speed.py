"""How long does PolicyBot take a move? Medians over many positions, by part.

Run from the repository root::

    python benchmarks/policy_speed.py                        # the shipped weights
    python benchmarks/policy_speed.py --random-weights 256,256 --states 3000

The positions are the decisions with a choice of seeded GreedyBot self-play games at 2 and
4 seats. On each, in turn: ``observe`` (the seat's view), the features
``Encoder.features`` of that view, for weights of format 3 the greedy hint
(``GreedyBot.hint``), the network (``PolicyBot``'s float32 forward pass), and a
whole ``PolicyBot.choose`` and ``action_probabilities``. Reported per seat count: the
median, 95th percentile and maximum, in microseconds. The goal is at most 1 ms a move.

``--random-weights H1,H2`` writes a random network of those hidden sizes in the weights
file format (the shape of a real one, no skill) to a temporary file and times that, for
when the package has no shipped weights yet.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from allegra_rules import GameState, GreedyBot, apply, legal_actions, new_game, observe, preset
from allegra_rules.encoding import num_distinct_actions
from allegra_rules.features import Encoder
from allegra_rules.policy import PolicyBot
from allegra_rules.simulate import game_seed


def write_random_weights(
    path: Path, hidden: Sequence[int], seat_counts: Sequence[int] = (2, 4), seed: int = 0
) -> Path:
    """A random network per seat count in the weights file format (float16, He scale)."""
    rng = np.random.default_rng(seed)
    config = preset("seeds")
    h1, h2 = hidden
    meta = {
        "format": 1,  # float matrices, no greedy hint
        "preset": "seeds",
        "config_fingerprint": config.fingerprint,
        "seat_counts": list(seat_counts),
        "hidden": [h1, h2],
        "activation": "relu",
        "command": f"benchmarks/policy_speed.py --random-weights {h1},{h2} (random, untrained)",
        "seed": seed,
    }
    arrays: dict[str, Any] = {"meta": np.array(json.dumps(meta))}
    for n in seat_counts:
        size, actions = Encoder(config, n).size, num_distinct_actions(n)
        for name, shape in (
            ("w0", (size, h1)),
            ("b0", (h1,)),
            ("w1", (h1, h2)),
            ("b1", (h2,)),
            ("pi_w", (h2, actions)),
            ("pi_b", (actions,)),
            ("v_w", (h2, 1)),
            ("v_b", (1,)),
        ):
            scale = np.sqrt(2.0 / shape[0]) if len(shape) == 2 else 0.01
            arrays[f"{n}/{name}"] = (scale * rng.standard_normal(shape)).astype(np.float16)
    np.savez_compressed(path, **arrays)
    return path


def weights_argument(args: argparse.Namespace) -> str | None:
    """The weights file the arguments name: ``--weights``, a random one, or None (shipped)."""
    if args.random_weights:
        hidden = [int(x) for x in args.random_weights.split(",")]
        folder = Path(tempfile.mkdtemp(prefix="policy-"))
        return str(write_random_weights(folder / "random.npz", hidden, seed=args.seed))
    return str(args.weights) if args.weights else None


def positions(players: int, count: int, seed: int) -> list[GameState]:
    """Decisions with a choice from seeded GreedyBot self-play games."""
    states: list[GameState] = []
    game = 0
    while len(states) < count:
        state = new_game(players, config=preset("seeds"), seed=game_seed(seed, game))
        bots = [GreedyBot(p) for p in range(players)]
        while not state.is_terminal and len(states) < count:
            if len(legal_actions(state)) > 1:
                states.append(state)
            state = apply(state, bots[state.current_player or 0].choose(state))
        game += 1
    return states


def _summary(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {
        "median_us": round(1e6 * statistics.median(ordered), 1),
        "p95_us": round(1e6 * ordered[int(0.95 * (len(ordered) - 1))], 1),
        "max_us": round(1e6 * ordered[-1], 1),
    }


def time_parts(bot: PolicyBot, states: list[GameState]) -> dict[str, dict[str, float]]:
    """Microseconds of every part of a move, on each state in turn."""
    n, config = states[0].num_players, states[0].config
    policy = bot._policy.policy_for(n, config)
    network = policy.networks[n]
    encoder = policy.encoder(config, n)
    hinted = network.hint is not None  # format 3: the greedy hint is part of a move
    parts: dict[str, list[float]] = {
        "observe": [],
        "features": [],
        **({"hint": []} if hinted else {}),
        "network": [],
        "choose": [],
        "action_probabilities": [],
    }
    clock = time.perf_counter
    greedy = GreedyBot(0)
    for state in states:
        seat = state.current_player
        start = clock()
        view = observe(state, seat)
        parts["observe"].append(clock() - start)
        start = clock()
        features = encoder.features(view)
        parts["features"].append(clock() - start)
        if hinted:
            start = clock()
            hints = greedy.hint(state)
            parts["hint"].append(clock() - start)
            legal = view.legal_actions
            ids = [network.action_id(action) for action in legal]
            start = clock()
            network.legal_logits(features, ids, [hints[a] for a in legal])
        else:
            start = clock()
            network.logits(features)
        parts["network"].append(clock() - start)
        start = clock()
        bot.choose(state)
        parts["choose"].append(clock() - start)
        start = clock()
        bot.action_probabilities(state)
        parts["action_probabilities"].append(clock() - start)
    return {name: _summary(values) for name, values in parts.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--weights", type=Path, default=None, help="a weights file (default: shipped)"
    )
    parser.add_argument("--random-weights", default=None, metavar="H1,H2")
    parser.add_argument("--states", type=int, default=2000, help="positions per seat count")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--json", default=None, help="write the results to this file")
    args = parser.parse_args(argv)
    weights = weights_argument(args)
    bot = PolicyBot(0, weights=weights)
    rows: list[dict[str, Any]] = []
    for players in bot.seat_counts:
        states = positions(players, args.states, args.seed)
        bot.choose(states[0])  # the first move builds the encoder
        parts = time_parts(bot, states)
        rows.append({"players": players, "positions": len(states), **parts})
        line = ", ".join(
            f"{name} {p['median_us']} us (p95 {p['p95_us']})" for name, p in parts.items()
        )
        print(f"{players} players, {len(states)} positions: {line}", file=sys.stderr)
    result = {
        "weights": weights or "shipped",
        "hidden": list(
            bot._policy.policy_for(bot.seat_counts[0], preset("seeds"))
            .networks[bot.seat_counts[0]]
            .hidden
        ),
        "numpy": np.__version__,
        "python": sys.version.split()[0],
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "rows": rows,
    }
    hinted = "hint" in rows[0]  # weights of format 3
    parts = ["observe", "features", *(["hint"] if hinted else []), "network"]
    print(f"| players | {' | '.join(parts)} | choose (median) | choose (p95) |")
    print("|---" * (len(parts) + 3) + "|")
    for row in rows:
        medians = " | ".join(f"{row[part]['median_us']} us" for part in parts)
        print(
            f"| {row['players']} | {medians} | "
            f"{row['choose']['median_us']} us | {row['choose']['p95_us']} us |"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
