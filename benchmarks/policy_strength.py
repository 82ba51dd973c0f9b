"""How strong is PolicyBot? Against GreedyBot, and as the search's guide.

Run from the repository root::

    python benchmarks/policy_strength.py --jobs 2 --json policy-strength.json
    python benchmarks/policy_strength.py --random-weights 64,64 --games 20 --four-games 8 \\
        --search-games 4                          # a quick check that it runs

Arms (each on fixed deals, ``game_seed(--seed, d)``; bots seeded by seat,
``bot_seed(deal, seat)``, as ``allegra-rules tournament`` seeds them):

- ``heads-up``: ``PolicyBot`` against ``GreedyBot``, 2 players, ``--games`` games: each
  deal played twice with the seats swapped (goal: at least 80 % of 1,000 games).
- ``one-vs-three``: one ``PolicyBot`` against three ``GreedyBot``, 4 players,
  ``--four-games`` games: each deal played four times, the policy once at every seat
  (par 25 %; goal at least 50 %).
- ``guided-vs-search``: the guided search level (``search-guided``: ``SearchBot`` led by
  the policy, [`GUIDED_LEVEL`] simulations unless ``--guided-simulations``) against the
  default level (``search``: 64 simulations of three candidates, GreedyBot's playouts),
  heads-up, seats swapped, ``--search-games`` games (goal: at least 60 % of 200 games at
  no more time per move). The mean and median seconds per move of both are printed: the
  comparison is fair only when the guided level's mean is not above the default's.
- ``policy-vs-search``: ``PolicyBot`` alone against the default level (``search``),
  heads-up, seats swapped, ``--search-games`` games (goal: at least 55 % at no more than
  1 ms a move: the policy needs no search to beat the search).
- ``every-config``: ``PolicyBot`` against ``GreedyBot`` heads-up, as ``heads-up``, on
  each preset's rules (``seeds``, whose rules ``de`` and ``pl`` share, ``fr``,
  ``published``) and on ``--drawn`` custom configs drawn over every option by
  ``draw_configs(--config-seed, --drawn)``, ``--config-games`` games each (goal: at least
  85 % on each). Needs weights that play every config (format 4).
- ``one-vs-many``: one ``PolicyBot`` against ``n - 1`` ``GreedyBot`` at 3, 4, 5 and 6
  seats (``--many-seats``; ``seeds``), ``--many-games`` games each, the policy once at
  every seat of each deal (goal: at least twice par, ``2 / n``). Needs a network for
  each seat count.

- ``oracle``: [`OracleBot`] (it sees every card; measurement only) against
  ``GreedyBot`` heads-up, ``--oracle-games`` games: the top of the ladder. A bot's share
  of the gap between GreedyBot and the oracle is its heads-up margin against GreedyBot
  over the oracle's (GreedyBot's own margin against itself being 0).

Every arm but ``every-config`` plays ``seeds``.

A game's share is the bot's part of the win: the lowest total wins, and tied winners
split the win (a heads-up tie counts half; in a four-seat game shared by two winners,
each gets half). The interval is the 95 % Wilson interval of the mean share over the
games. The margin is the others' mean total minus the bot's (points, positive: the bot
did better), with its standard error. Times per move count the decisions with a choice,
in wall time; the machine's load average is printed with them. A long arm prints its
running share twenty times as it goes (to standard error).

``--games-file FILE`` keeps every game played in a JSON-lines file, with what it was
played under (the arm, the weights file's SHA-256, the seed, the guided level); a run
given the same file plays only the games it does not hold yet. So a long arm (200 guided
games take hours on a 2-core machine) can be stopped and carried on: the games are the
same either way, as every bot is seeded. The times per move of games read back are those
measured when they were played.

``--weights FILE`` plays a weights file instead of the shipped one; ``--random-weights
H1,H2`` a random network (to check that the script runs before there are weights).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import math
import multiprocessing
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import attrs

from allegra_rules import GameState, GreedyBot, RuleConfig, legal_actions, preset
from allegra_rules.actions import Action
from allegra_rules.bots import Bot
from allegra_rules.config import draw_configs
from allegra_rules.oracle import OracleBot
from allegra_rules.policy import SHIPPED_WEIGHTS, PolicyBot
from allegra_rules.search import GUIDED_LEVEL, SearchBot, search_level
from allegra_rules.simulate import game_seed
from allegra_rules.tournament import Fixture, TournamentGame, play_fixture, wilson_interval

sys.path.insert(0, str(Path(__file__).resolve().parent))
from policy_speed import weights_argument


class Timed:
    """A bot that records the wall seconds of each of its decisions with a choice."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.times: list[float] = []

    def choose(self, state: GameState) -> Action:
        start = time.perf_counter()
        action = self.bot.choose(state)
        if len(legal_actions(state)) > 1:
            self.times.append(time.perf_counter() - start)
        return action


def policy_bot(weights: str | None, seed: int) -> Bot:
    return PolicyBot(seed, weights=weights)


def guided_bot(weights: str | None, simulations: int, seed: int) -> Bot:
    _, candidates = GUIDED_LEVEL
    guide = PolicyBot(seed, weights=weights)
    return SearchBot(seed, simulations=simulations, candidates=candidates, guide=guide)


def default_search(seed: int) -> Bot:
    return search_level("medium", seed)


def play(
    makers: dict[str, Callable[[int], Bot]], config: RuleConfig, fixture: Fixture
) -> dict[str, Any]:
    """One game under ``config``, with every bot's seconds per decision (by bot name)."""
    built: list[tuple[str, Timed]] = []

    def track(name: str) -> Callable[[int], Bot]:
        def build(seed: int) -> Bot:
            bot = Timed(makers[name](seed))
            built.append((name, bot))
            return bot

        return build

    game = play_fixture(len(fixture.bots), config, fixture, {name: track(name) for name in makers})
    times: dict[str, list[float]] = {}
    for name, bot in built:
        times.setdefault(name, []).extend(bot.times)
    return {"game": game, "times": times}


def paired(a: str, b: str, players: int, games: int, seed: int) -> list[Fixture]:
    """Deals played once with ``a`` at every seat (the others ``b``), ``games`` in all.

    Heads-up, that is each deal twice with the seats swapped. ``games`` is rounded up to
    whole deals.
    """
    out: list[Fixture] = []
    deals = math.ceil(games / players)
    for d in range(deals):
        deal = game_seed(seed, d)
        for seat in range(players):
            bots = tuple(a if p == seat else b for p in range(players))
            out.append(Fixture(len(out), deal, bots))
    return out


def weights_digest(weights: str | None) -> str:
    """The SHA-256 of the weights file played (``None``: the shipped one)."""
    if weights is None:
        data = resources.files("allegra_rules").joinpath(SHIPPED_WEIGHTS).read_bytes()
    else:
        data = Path(weights).read_bytes()
    return hashlib.sha256(data).hexdigest()


class GamesFile:
    """The JSON-lines file of ``--games-file``: games played, and what they were played under.

    A line is ``{"arm", "settings", "game", "times"}``; a game is read back only when its
    arm and settings are the run's and its index, deal and bots are the fixture's.
    """

    def __init__(self, path: Path, settings: dict[str, Any]) -> None:
        self.path = path
        self.settings = settings
        self.lines: list[dict[str, Any]] = []
        if path.exists():
            for text in path.read_text(encoding="utf-8").splitlines():
                if text.strip():
                    self.lines.append(json.loads(text))

    def played(self, arm: str, fixture: Fixture) -> dict[str, Any] | None:
        """The result of ``fixture`` if the file holds it (``play``'s shape), else None."""
        for line in self.lines:
            if line["arm"] != arm or line["settings"] != self.settings:
                continue
            g = line["game"]
            game = TournamentGame(
                g["index"], g["seed"], tuple(g["bots"]), tuple(g["totals"]), tuple(g["winners"])
            )
            if (game.index, game.seed, game.bots) == (fixture.index, fixture.seed, fixture.bots):
                return {"game": game, "times": line["times"]}
        return None

    def add(self, arm: str, result: dict[str, Any]) -> None:
        """Append one game played (the file is written at once, a line a game)."""
        game = attrs.asdict(result["game"])
        line = {"arm": arm, "settings": self.settings, "game": game, "times": result["times"]}
        with self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")


def run_arm(
    name: str,
    subject: str,
    fixtures: Sequence[Fixture],
    makers: dict[str, Callable[[int], Bot]],
    jobs: int,
    games_file: GamesFile | None = None,
    config: RuleConfig | None = None,
) -> dict[str, Any]:
    """Play the fixtures; the subject's share, interval, margin and every bot's times.

    With ``games_file``, the games it holds are read back, not played, and every game
    played is added to it. ``config``: the rules (``None``: ``seeds``).
    """
    start = time.perf_counter()
    rules = preset("seeds") if config is None else config
    task = functools.partial(play, makers, rules)
    results: list[dict[str, Any]] = []
    todo: list[Fixture] = []
    for fixture in fixtures:
        known = games_file.played(name, fixture) if games_file else None
        if known is None:
            todo.append(fixture)
        else:
            results.append(known)
    if games_file and results:
        print(f"{name}: {len(results)} games read from {games_file.path}", file=sys.stderr)
    every = max(1, len(fixtures) // 20)

    def collect(played: Iterable[dict[str, Any]]) -> None:
        for result in played:
            if games_file:
                games_file.add(name, result)
            results.append(result)
            if len(results) % every == 0 and len(results) < len(fixtures):
                share = sum(r["game"].share(subject) for r in results)
                print(
                    f"{name}: {len(results)} of {len(fixtures)} games, {subject} "
                    f"{100 * share / len(results):.1f} %, {time.perf_counter() - start:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )

    if jobs > 1 and todo:
        with multiprocessing.get_context("forkserver").Pool(jobs) as pool:
            collect(pool.imap(task, todo))
    else:
        collect(task(f) for f in todo)
    results.sort(key=lambda r: int(r["game"].index))
    games: list[TournamentGame] = [r["game"] for r in results]
    n = len(games)
    wins = sum(g.share(subject) for g in games)
    margins = [g.margin(subject) for g in games]
    mean = sum(margins) / n
    stderr = math.sqrt(sum((m - mean) ** 2 for m in margins) / (n - 1) / n) if n > 1 else 0.0
    low, high = wilson_interval(wins, n)
    times: dict[str, list[float]] = {}
    for r in results:
        for bot, seconds in r["times"].items():
            times.setdefault(bot, []).extend(seconds)
    per_move = {
        bot: {
            "decisions": len(seconds),
            "ms_mean": round(1000 * statistics.fmean(seconds), 3) if seconds else None,
            "ms_median": round(1000 * statistics.median(seconds), 3) if seconds else None,
        }
        for bot, seconds in sorted(times.items())
    }
    row = {
        "arm": name,
        "subject": subject,
        "players": len(fixtures[0].bots),
        "games": n,
        "share": round(wins / n, 4),
        "low": round(low, 4),
        "high": round(high, 4),
        "margin": round(mean, 2),
        "margin_stderr": round(stderr, 2),
        "config": rules.to_dict(),
        "time_per_move": per_move,
        "seconds": round(time.perf_counter() - start, 1),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    timing = "; ".join(
        f"{bot} {t['ms_mean']} ms/move (median {t['ms_median']})" for bot, t in per_move.items()
    )
    print(
        f"{name}: {subject} {n} games, share {100 * wins / n:.1f} % "
        f"[{100 * low:.1f}, {100 * high:.1f}], margin {mean:+.1f} ± {stderr:.1f}; {timing}; "
        f"{row['seconds']} s, load {row['load_average']}",
        file=sys.stderr,
        flush=True,
    )
    return row


def table(rows: Sequence[dict[str, Any]]) -> str:
    """The rows as a Markdown table (the docs page's shape)."""
    lines = [
        "| arm | players | games | share | 95 % interval | margin | ms a move |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        times = ", ".join(
            f"{bot} {t['ms_mean']}" for bot, t in row["time_per_move"].items() if t["ms_mean"]
        )
        lines.append(
            f"| {row['arm']} | {row['players']} | {row['games']} | "
            f"{100 * row['share']:.1f} % | {100 * row['low']:.1f}-{100 * row['high']:.1f} % | "
            f"{row['margin']:+.1f} ± {row['margin_stderr']:.1f} | {times} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--weights", type=Path, default=None, help="default: the shipped one")
    parser.add_argument("--random-weights", default=None, metavar="H1,H2")
    parser.add_argument("--arms", default="heads-up,one-vs-three,guided-vs-search")
    parser.add_argument("--games", type=int, default=1000, help="heads-up games")
    parser.add_argument("--four-games", type=int, default=1000, help="one-vs-three games")
    parser.add_argument(
        "--search-games", type=int, default=200, help="guided-vs-search, policy-vs-search games"
    )
    parser.add_argument(
        "--guided-simulations",
        type=int,
        default=GUIDED_LEVEL[0],
        help=f"the guided search's simulations (default: the level's, {GUIDED_LEVEL[0]})",
    )
    parser.add_argument("--oracle-games", type=int, default=200, help="oracle games")
    parser.add_argument("--config-games", type=int, default=200, help="every-config games each")
    parser.add_argument("--many-games", type=int, default=200, help="one-vs-many games each")
    parser.add_argument(
        "--many-seats", type=int, nargs="+", default=[3, 4, 5, 6], help="one-vs-many's seats"
    )
    parser.add_argument("--drawn", type=int, default=3, help="every-config's drawn configs")
    parser.add_argument("--config-seed", type=int, default=56, help="the drawn configs' seed")
    parser.add_argument("--seed", type=int, default=36)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", default=None, help="write the rows to this file")
    parser.add_argument(
        "--games-file",
        type=Path,
        default=None,
        help="keep the games played in this JSON-lines file and skip those it holds",
    )
    args = parser.parse_args(argv)
    weights = weights_argument(args)
    PolicyBot(0, weights=weights)  # a bad file fails here, before any game
    settings = {
        "weights": weights_digest(weights),
        "seed": args.seed,
        "guided_simulations": args.guided_simulations,
        "guided_candidates": GUIDED_LEVEL[1],
    }
    games_file = GamesFile(args.games_file, settings) if args.games_file else None
    makers: dict[str, Callable[[int], Bot]] = {
        "policy": functools.partial(policy_bot, weights),
        "greedy": GreedyBot,
        "search-guided": functools.partial(guided_bot, weights, args.guided_simulations),
        "search": default_search,
        "oracle": OracleBot,
    }
    arms = args.arms.split(",")
    rows = []
    if "heads-up" in arms:
        fixtures = paired("policy", "greedy", 2, args.games, args.seed)
        rows.append(run_arm("heads-up", "policy", fixtures, makers, args.jobs, games_file))
    if "one-vs-three" in arms:
        fixtures = paired("policy", "greedy", 4, args.four_games, args.seed)
        rows.append(run_arm("one-vs-three", "policy", fixtures, makers, args.jobs, games_file))
    if "guided-vs-search" in arms:
        fixtures = paired("search-guided", "search", 2, args.search_games, args.seed)
        rows.append(
            run_arm("guided-vs-search", "search-guided", fixtures, makers, args.jobs, games_file)
        )
    if "policy-vs-search" in arms:
        fixtures = paired("policy", "search", 2, args.search_games, args.seed)
        rows.append(run_arm("policy-vs-search", "policy", fixtures, makers, args.jobs, games_file))
    if "every-config" in arms:
        configs = [(name, preset(name)) for name in ("seeds", "fr", "published")]
        drawn = draw_configs(args.config_seed, args.drawn)
        configs += [(f"drawn-{i + 1}", config) for i, config in enumerate(drawn)]
        for label, config in configs:
            fixtures = paired("policy", "greedy", 2, args.config_games, args.seed)
            arm = f"every-config:{label}"
            rows.append(run_arm(arm, "policy", fixtures, makers, args.jobs, games_file, config))
    if "one-vs-many" in arms:
        for n in args.many_seats:
            fixtures = paired("policy", "greedy", n, args.many_games, args.seed)
            rows.append(
                run_arm(f"one-vs-{n - 1}", "policy", fixtures, makers, args.jobs, games_file)
            )
    if "oracle" in arms:
        fixtures = paired("oracle", "greedy", 2, args.oracle_games, args.seed)
        rows.append(run_arm("oracle", "oracle", fixtures, makers, args.jobs, games_file))
    print(table(rows))
    if args.json:
        named = {**settings, "weights": weights or "shipped", "weights_sha256": settings["weights"]}
        Path(args.json).write_text(
            json.dumps({**named, "rows": rows}, indent=2) + "\n", encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
