"""Random-playout benchmark: steps per second, games per second, memory per state.

Run from the repository root (one core, nothing else busy):

    python benchmarks/playouts.py              # 4 players, every preset
    python benchmarks/playouts.py --players 6 --seconds 5 --json

A *step* is one ``legal_actions(state)`` call plus one ``apply(state, action)``;
the action is picked with ``random.Random.choice``, whose cost is included. Memory is
measured with tracemalloc: the bytes retained per additional state when a whole
game's history (every state) is kept alive.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
import tracemalloc

from allegra_rules import GameState, apply, legal_actions, new_game, preset
from allegra_rules.presets import preset_names


def playouts(preset_name: str, players: int, seconds: float) -> dict[str, float]:
    """Play seeded random games for about ``seconds``; return the rates."""
    config = preset(preset_name)
    steps = games = 0
    seed = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = new_game(players, config=config, seed=seed)
        choice = random.Random(seed).choice
        while not state.is_terminal:
            state = apply(state, choice(legal_actions(state)))
            steps += 1
        games += 1
        seed += 1
    elapsed = time.perf_counter() - start
    return {
        "steps_per_second": steps / elapsed,
        "games_per_second": games / elapsed,
        "steps_per_game": steps / games,
        "games": games,
    }


def memory_per_state(players: int, games: int = 5) -> float:
    """Bytes retained per additional state when every state of a game is kept."""
    per_state = []
    for seed in range(games):
        choice = random.Random(seed).choice
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        history: list[GameState] = [new_game(players, seed=seed)]
        state = history[0]
        while not state.is_terminal:
            legal_actions(state)
            state = apply(state, choice(legal_actions(state)))
            history.append(state)
        used = tracemalloc.get_traced_memory()[0] - base
        tracemalloc.stop()
        per_state.append(used / len(history))
        del history
    return sum(per_state) / len(per_state)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=3.0, help="per preset")
    parser.add_argument("--preset", action="append", help="repeatable; default: all")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    names = args.preset or list(preset_names())
    results = {name: playouts(name, args.players, args.seconds) for name in names}
    memory = memory_per_state(args.players)
    if args.json:
        report = {"players": args.players, "presets": results, "bytes_per_state": memory}
        print(json.dumps(report, indent=2))
        return 0
    print(f"Python {platform.python_version()} on {platform.machine()}, {args.players} players")
    print(f"{'preset':<10} {'steps/s':>10} {'games/s':>9} {'steps/game':>11}")
    for name, r in results.items():
        print(
            f"{name:<10} {r['steps_per_second']:>10,.0f} {r['games_per_second']:>9.1f} "
            f"{r['steps_per_game']:>11.0f}"
        )
    print(f"memory retained per state in a kept history: {memory:,.0f} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
