"""Random-playout benchmark: steps per second, games per second, memory per state.

Run from the repository root (one core, nothing else busy):

    python benchmarks/playouts.py              # 4 players, every preset
    python benchmarks/playouts.py --players 6 --seconds 5 --json
    python benchmarks/playouts.py --side-by-side --skyjo2 ../skyjo/src
    python benchmarks/playouts.py --side-by-side --baseline v0.1.0   # against a revision

A *step* is one ``legal_actions(state)`` call plus one ``apply(state, action)``;
the action is picked with ``random.Random.choice``, whose cost is included. Memory is
measured with tracemalloc: the bytes retained per additional state when a whole
game's history (every state) is kept alive.

``--side-by-side`` runs three loops in one process, alternating short bursts
(A B C, B C A, ...) so that a busy machine slows all of them alike, and prints the
median rate of each and the ratios, for 2 to 6 players:

- allegra_rules: the loop above, ``seeds`` preset.
- skyjo2: the pure-Python Skyjo engine of https://github.com/noahbkim/skyjo
  (``src/skyjo2``), playing random games with its own functions: ``iter_actions``,
  a ``random.Random.choice`` of them and ``with_action``, rounds dealt and scored
  as its ``play_game`` does until a player reaches 100 points. A step is one
  action. It is imported when installed, or from ``--skyjo2 PATH`` (the clone's
  ``src`` directory, or the clone itself). skyjo2 needs Python 3.12 syntax for two
  ``type`` aliases; on Python 3.11 they are loaded as plain assignments, in memory.
- skeleton: the ceiling of any engine whose state has this shape. A step is a
  ``random.Random.choice`` plus one immutable copy of a frozen, slotted attrs
  object with GameState's fields, one field changed, built the fastest way we know
  (plain stores into an unfrozen twin with the same slots, then a class switch).
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import io
import json
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

import attrs

from allegra_rules import GameState, apply, legal_actions, new_game, preset
from allegra_rules.presets import preset_names

Burst = Callable[[int, float, int], tuple[int, float]]
"""``burst(players, seconds, seed) -> (steps, elapsed seconds)``."""


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
    """Bytes retained per additional state when every state of a game is kept.

    One game is played untraced first, so that the tables built once per seat count
    (and kept for the life of the process) are not counted.
    """
    state = new_game(players, seed=games)
    choice = random.Random(games).choice
    while not state.is_terminal:
        state = apply(state, choice(legal_actions(state)))
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


# ------------------------------------------------------------------ side by side

cpu = time.process_time
"""Bursts are timed in CPU seconds of this process: time other programs take counts less."""


def engine_burst(engine: ModuleType) -> Burst:
    """The loop of :func:`playouts` (``seeds`` preset) on ``engine``'s functions."""
    start_game, step, legal = engine.new_game, engine.apply, engine.legal_actions

    def burst(players: int, seconds: float, seed: int) -> tuple[int, float]:
        steps = 0
        start = cpu()
        deadline = start + seconds
        while cpu() < deadline:
            state = start_game(players, seed=seed)
            choice = random.Random(seed).choice
            while not state.is_terminal:
                state = step(state, choice(legal(state)))
                steps += 1
            seed += 1
        return steps, cpu() - start

    return burst


allegra_burst: Burst = engine_burst(sys.modules["allegra_rules"])
"""The loop of :func:`playouts` on this tree's engine."""


def load_baseline(revision: str, module: str = "allegra_rules") -> ModuleType:
    """``allegra_rules`` (or its submodule ``module``) as it was at a git ``revision``.

    The revision's ``src`` is unpacked into a temporary folder and imported while this
    package's modules are set aside, so it loads beside this one; its functions keep
    their own modules' globals.
    """
    folder = tempfile.mkdtemp(prefix="allegra-baseline-")
    archive = subprocess.run(
        ["git", "archive", revision, "src/allegra_rules"], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    ours = {k: m for k, m in sys.modules.items() if k.partition(".")[0] == "allegra_rules"}
    for name in ours:
        del sys.modules[name]
    sys.path.insert(0, os.path.join(folder, "src"))
    try:
        return importlib.import_module(module)
    finally:
        sys.path.pop(0)
        for name in [k for k in sys.modules if k.partition(".")[0] == "allegra_rules"]:
            del sys.modules[name]
        sys.modules.update(ours)


_TYPE_ALIAS = re.compile(rb"^type (\w+) = ", re.MULTILINE)


class _Py311Loader(importlib.machinery.SourceFileLoader):
    """Loads skyjo2 on Python 3.11: its ``type X = ...`` aliases become ``X = ...``."""

    def source_to_code(self, data: Any, path: Any, *, _optimize: int = -1) -> Any:
        return super().source_to_code(_TYPE_ALIAS.sub(rb"\1 = ", bytes(data)), path)

    def set_data(self, path: Any, data: Any, *, _mode: int = 0o666) -> None:
        """Write no bytecode cache into the clone."""


class _Py311Finder:
    """Finds ``skyjo2`` and its modules in one directory, for :class:`_Py311Loader`."""

    def __init__(self, package_dir: str) -> None:
        self.package_dir = package_dir

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name == "skyjo2":
            where = os.path.join(self.package_dir, "__init__.py")
            search: list[str] | None = [self.package_dir]
        elif name.startswith("skyjo2."):
            where = os.path.join(self.package_dir, name.partition(".")[2] + ".py")
            search = None
        else:
            return None
        loader = _Py311Loader(name, where)
        return importlib.util.spec_from_file_location(
            name, where, loader=loader, submodule_search_locations=search
        )


def load_skyjo2(path: str | None) -> tuple[ModuleType | None, str]:
    """Import skyjo2 (from ``path`` when given); return it or ``None``, and a note."""
    if path is not None:
        root = os.path.abspath(path)
        for candidate in (root, os.path.join(root, "src"), os.path.dirname(root)):
            if os.path.isfile(os.path.join(candidate, "skyjo2", "_game.py")):
                root = candidate
                break
        else:
            return None, f"no skyjo2 package under {path}"
        if sys.version_info >= (3, 12):
            sys.path.insert(0, root)
        else:
            sys.meta_path.insert(0, _Py311Finder(os.path.join(root, "skyjo2")))
    elif sys.version_info < (3, 12):
        spec = importlib.util.find_spec("skyjo2")
        if spec is None or spec.origin is None:
            return None, "skyjo2 is not installed (pass --skyjo2 PATH)"
        sys.meta_path.insert(0, _Py311Finder(os.path.dirname(spec.origin)))
    try:
        import skyjo2
    except ImportError as exc:
        if path is None:
            return None, "skyjo2 is not installed (pass --skyjo2 PATH)"
        return None, f"cannot import skyjo2: {exc}"
    return skyjo2, f"skyjo2 from {os.path.dirname(skyjo2.__file__ or '?')}"


def skyjo2_burst_for(skyjo2: ModuleType) -> Burst:
    """skyjo2's random playouts: ``iter_actions``, a random choice, ``with_action``."""
    iter_actions = skyjo2.iter_actions
    with_action = skyjo2.with_action
    new = skyjo2.Game.new
    round_over = skyjo2.GameState.REVEAL_HIDDEN_CARDS

    def burst(players: int, seconds: float, seed: int) -> tuple[int, float]:
        steps = 0
        start = cpu()
        deadline = start + seconds
        while cpu() < deadline:
            rng = random.Random(seed)
            choice = rng.choice
            game = new(players=players)
            # play_game(score_max=100): rounds until someone has 100 points.
            while all(player.score < 100 for player in game.players):
                game = game.with_random_discard_and_first_cards_dealt(rng)
                while game.state != round_over:
                    game = with_action(game, choice(tuple(iter_actions(game))), rng)
                    steps += 1
                game = game.with_random_hidden_cards_revealed(rng)
            seed += 1
        return steps, cpu() - start

    return burst


def skeleton_burst_for(players: int) -> Burst:
    """A random choice plus one immutable copy of a state of GameState's shape."""
    fields = [field.name for field in attrs.fields(GameState)]
    frozen = attrs.make_class(
        "SkeletonState",
        {name: attrs.field() for name in fields},
        frozen=True,
        slots=True,
        weakref_slot=False,
    )
    twin = type("UnfrozenSkeleton", (), {"__slots__": frozen.__slots__})
    # The chosen action goes into one field (which one does not matter for the cost).
    lines = ["def step(s, action):", "    o = new(twin)"]
    for name in fields:
        value = "action" if name == "current_player" else f"s.{name}"
        lines.append(f"    o.{name} = {value}")
    lines += ["    o.__class__ = frozen", "    return o"]
    namespace: dict[str, Any] = {"new": object.__new__, "twin": twin, "frozen": frozen}
    exec("\n".join(lines), namespace)
    copy = namespace["step"]
    first = new_game(players)
    start_state = frozen(*(getattr(first, name) for name in fields))
    actions = legal_actions(first)

    def burst(players: int, seconds: float, seed: int) -> tuple[int, float]:
        steps = 0
        choice = random.Random(seed).choice
        start = cpu()
        deadline = start + seconds
        while cpu() < deadline:
            state = start_state
            for _ in range(1000):
                state = copy(state, choice(actions))
            steps += 1000
        return steps, cpu() - start

    return burst


def side_by_side(
    engines: dict[str, Callable[[int], Burst]],
    players: Sequence[int],
    burst: float,
    rounds: int,
) -> dict[int, dict[str, list[float]]]:
    """Per seat count, each engine's steps/s in ``rounds`` bursts, taking turns."""
    results: dict[int, dict[str, list[float]]] = {}
    for n in players:
        bursts = {name: make(n) for name, make in engines.items()}
        for run in bursts.values():  # warm up: caches, tables, the first deal
            run(n, min(burst, 0.2), 10_000)
        rates: dict[str, list[float]] = {name: [] for name in bursts}
        order = list(bursts)
        for r in range(rounds):
            # A B C, then B C A, ...: no engine always runs right after the same one.
            for name in order[r % len(order) :] + order[: r % len(order)]:
                steps, elapsed = bursts[name](n, burst, r * 1_000)
                rates[name].append(steps / elapsed)
        results[n] = rates
    return results


def print_side_by_side(results: dict[int, dict[str, list[float]]], note: str) -> None:
    """The side-by-side table: median steps/s and ratios."""
    print(f"Python {platform.python_version()} on {platform.machine()}; {note}")
    names = list(next(iter(results.values())))
    head = "".join(f"{name:>15}" for name in names)
    ratios = "".join(f"{'x ' + name:>13}" for name in names[1:])
    print("median steps/s, and allegra_rules' rate as a multiple of the others'")
    print(f"{'players':>7}{head}{ratios}")
    for n, rates in results.items():
        med = {name: statistics.median(v) for name, v in rates.items()}
        row = "".join(f"{med[name]:>15,.0f}" for name in names)
        ratio = "".join(f"{med[names[0]] / med[name]:>13.2f}" for name in names[1:])
        print(f"{n:>7}{row}{ratio}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", help="default: 4 (2..6 side by side)")
    parser.add_argument("--seconds", type=float, default=3.0, help="per preset")
    parser.add_argument("--preset", action="append", help="repeatable; default: all")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    group = parser.add_argument_group("side by side")
    group.add_argument(
        "--side-by-side", action="store_true", help="allegra_rules, skyjo2 and the skeleton"
    )
    group.add_argument("--skyjo2", metavar="PATH", help="a skyjo clone or its src directory")
    group.add_argument(
        "--baseline",
        metavar="REV",
        help="instead of skyjo2 and the skeleton: allegra_rules at git revision REV",
    )
    group.add_argument("--burst", type=float, default=0.5, help="seconds per burst")
    group.add_argument("--rounds", type=int, default=10, help="bursts per engine")
    args = parser.parse_args()
    if args.side_by_side:
        engines: dict[str, Callable[[int], Burst]] = {"allegra_rules": lambda n: allegra_burst}
        if args.baseline:
            before = engine_burst(load_baseline(args.baseline))
            engines[f"at {args.baseline}"] = lambda n: before
        skyjo2, note = (
            load_skyjo2(args.skyjo2)
            if not args.baseline
            else (None, f"this tree against git revision {args.baseline}")
        )
        if skyjo2 is not None:
            run_skyjo2 = skyjo2_burst_for(skyjo2)
            engines["skyjo2"] = lambda n: run_skyjo2
        if not args.baseline:
            engines["skeleton"] = skeleton_burst_for
        players = args.players or [2, 3, 4, 5, 6]
        results = side_by_side(engines, players, args.burst, args.rounds)
        if args.json:
            report = {
                "python": platform.python_version(),
                "note": note,
                "burst_seconds": args.burst,
                "steps_per_second": {
                    n: {name: statistics.median(v) for name, v in rates.items()}
                    for n, rates in results.items()
                },
                "bursts": results,
            }
            print(json.dumps(report, indent=2))
        else:
            print_side_by_side(results, f"{note}; {args.rounds} bursts of {args.burst} s each")
        return 0
    names = args.preset or list(preset_names())
    for players in args.players or [4]:
        results = {name: playouts(name, players, args.seconds) for name in names}
        memory = memory_per_state(players)
        if args.json:
            report = {"players": players, "presets": results, "bytes_per_state": memory}
            print(json.dumps(report, indent=2))
            continue
        print(f"Python {platform.python_version()} on {platform.machine()}, {players} players")
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
