"""Round robins between bots: who beats whom, how often and by how much.

Public names:

* [`Fixture`][allegra_rules.tournament.Fixture] and
  [`schedule`][allegra_rules.tournament.schedule]: the games of a round robin.
* [`TournamentGame`][allegra_rules.tournament.TournamentGame] and
  [`play_fixture`][allegra_rules.tournament.play_fixture]: one game, played.
* [`round_robin`][allegra_rules.tournament.round_robin]: every game, in this process, in
  worker processes, or through a [`Runner`][allegra_rules.simulate.Runner] (Ray);
  [`deal_out`][allegra_rules.tournament.deal_out]: how its games are split into tasks.
* [`PairResult`][allegra_rules.tournament.PairResult],
  [`pair_results`][allegra_rules.tournament.pair_results] and
  [`wilson_interval`][allegra_rules.tournament.wilson_interval]: per pair of bots, the win
  share with its 95 % interval, the games and the mean margin.

How a pair plays: every pair of bots ``(a, b)`` plays the same ``deals`` deals
(``game_seed(seed, d)`` of [`allegra_rules.simulate`][allegra_rules.simulate]). At each deal
``a`` sits once at every seat with ``b`` at all the others, and, at tables of three or more,
``b`` sits once at every seat with ``a`` at all the others. So each pair plays every deal
from every seat: 2 games a deal heads-up, ``2 K`` at ``K`` seats. The bot at seat ``p`` of
a game dealt from seed ``s`` is seeded ``bot_seed(s, p)``.

A game's *share* for ``a`` is the part of the win its seats hold: ``1`` for a sole winner,
``1/k`` to each of ``k`` tied winners (a heads-up tie counts half). Its *margin* for ``a``
is the mean total of ``b``'s seats minus the mean total of ``a``'s seats (positive: ``a``
did better; lower totals win).

Examples:
    >>> from allegra_rules import preset
    >>> games = round_robin(["random", "greedy"], config=preset("seeds"), deals=2, seed=1)
    >>> [g.bots for g in games]
    [('random', 'greedy'), ('greedy', 'random'), ('random', 'greedy'), ('greedy', 'random')]
    >>> (pair,) = pair_results(games)
    >>> pair.games, pair.a, pair.b
    (4, 'random', 'greedy')
"""

from __future__ import annotations

import math
import multiprocessing
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from allegra_rules.bot_kinds import BOT_KINDS
from allegra_rules.bots import Bot
from allegra_rules.config import RuleConfig
from allegra_rules.simulate import Runner, bot_seed, game_seed
from allegra_rules.transitions import apply, new_game

__all__ = [
    "Fixture",
    "PairResult",
    "TournamentGame",
    "deal_out",
    "pair_results",
    "play_fixture",
    "round_robin",
    "schedule",
    "wilson_interval",
]

Makers = Mapping[str, Callable[[int], Bot]]
"""Bot names mapped to constructors taking a seed (``BOT_KINDS`` by default)."""


@attrs.frozen(slots=True)
class Fixture:
    """One game of a round robin, before it is played.

    Attributes:
        index: its place in the schedule (0-based).
        seed: the deal's seed.
        bots: the bot name at every seat.
    """

    index: int
    seed: int
    bots: tuple[str, ...]


@attrs.frozen(slots=True)
class TournamentGame:
    """One game of a round robin, played.

    Attributes:
        index: its place in the schedule.
        seed: the deal's seed.
        bots: the bot name at every seat.
        totals: every seat's final total.
        winners: the winning seats.
    """

    index: int
    seed: int
    bots: tuple[str, ...]
    totals: tuple[int, ...]
    winners: tuple[int, ...]

    def share(self, bot: str) -> float:
        """The part of the win held by ``bot``'s seats (tied winners split it)."""
        return sum(1 for p in self.winners if self.bots[p] == bot) / len(self.winners)

    def margin(self, bot: str) -> float:
        """The others' mean total minus ``bot``'s mean total (positive: ``bot`` did better)."""
        mine = [t for t, name in zip(self.totals, self.bots, strict=True) if name == bot]
        others = [t for t, name in zip(self.totals, self.bots, strict=True) if name != bot]
        return sum(others) / len(others) - sum(mine) / len(mine)


def schedule(bots: Sequence[str], *, num_players: int, deals: int, seed: int) -> list[Fixture]:
    """The games of a round robin between ``bots`` (see the module docs for the seating).

    Raises:
        ValueError: fewer than two bots, a bot named twice, ``num_players`` below 2, or
            ``deals`` below 1.

    Examples:
        >>> [f.bots for f in schedule(["x", "y"], num_players=3, deals=1, seed=0)]
        ... # doctest: +NORMALIZE_WHITESPACE
        [('x', 'y', 'y'), ('y', 'x', 'y'), ('y', 'y', 'x'),
         ('y', 'x', 'x'), ('x', 'y', 'x'), ('x', 'x', 'y')]
    """
    names = list(bots)
    if len(names) < 2 or len(set(names)) != len(names):
        raise ValueError(f"a round robin needs two or more different bots; got {names!r}")
    if type(num_players) is not int or num_players < 2:
        raise ValueError(f"num_players must be an int >= 2; got {num_players!r}")
    if type(deals) is not int or deals < 1:
        raise ValueError(f"deals must be an int >= 1; got {deals!r}")
    fixtures: list[Fixture] = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            lone = [a] if num_players == 2 else [a, b]
            for d in range(deals):
                deal = game_seed(seed, d)
                for one in lone:
                    rest = b if one == a else a
                    for seat in range(num_players):
                        seats = tuple(one if p == seat else rest for p in range(num_players))
                        fixtures.append(Fixture(len(fixtures), deal, seats))
    return fixtures


def play_fixture(
    num_players: int, config: RuleConfig, fixture: Fixture, makers: Makers | None = None
) -> TournamentGame:
    """Play one scheduled game.

    Raises:
        ValueError: a bot name ``makers`` does not know, or a wrong number of seats.
    """
    kinds = BOT_KINDS if makers is None else makers
    if len(fixture.bots) != num_players:
        raise ValueError(f"the fixture seats {len(fixture.bots)} bots, not {num_players}")
    unknown = [name for name in fixture.bots if name not in kinds]
    if unknown:
        raise ValueError(f"unknown bot {unknown[0]!r}; known bots: {', '.join(kinds)}")
    players = [kinds[name](bot_seed(fixture.seed, p)) for p, name in enumerate(fixture.bots)]
    state = new_game(num_players, config=config, seed=fixture.seed)
    while not state.is_terminal:
        seat = state.current_player
        assert seat is not None
        state = apply(state, players[seat].choose(state))
    return TournamentGame(
        index=fixture.index,
        seed=fixture.seed,
        bots=fixture.bots,
        totals=state.totals,
        winners=state.winners,
    )


_Task = tuple[int, RuleConfig, "Makers | None", tuple[Fixture, ...]]


def _play_chunk(task: _Task) -> list[TournamentGame]:
    num_players, config, makers, fixtures = task
    return [play_fixture(num_players, config, f, makers) for f in fixtures]


MAX_CHUNK = 8
"""The most games one task plays (tournament games are slow: results keep coming)."""


def deal_out(fixtures: Sequence[Fixture], jobs: int) -> list[tuple[Fixture, ...]]:
    """How ``round_robin`` splits ``fixtures`` into tasks for ``jobs`` workers.

    There are two tasks a worker or more (fewer only when there are fewer games) and
    at most ``MAX_CHUNK`` games a task. The
    games are dealt out like cards, one to each task in turn, so that every task holds
    games of every pair: a pair of slow bots (two search bots) is shared by all the
    workers instead of being left to one of them at the end of the run.

    Raises:
        ValueError: ``jobs`` below 1.

    Examples:
        >>> games = schedule(["a", "b", "c"], num_players=2, deals=2, seed=0)
        >>> [[f.index for f in task] for task in deal_out(games, 2)]
        [[0, 4, 8], [1, 5, 9], [2, 6, 10], [3, 7, 11]]
    """
    if type(jobs) is not int or jobs < 1:
        raise ValueError(f"jobs must be an int >= 1; got {jobs!r}")
    count = min(len(fixtures), max(jobs * 2, -(-len(fixtures) // MAX_CHUNK)))
    return [tuple(fixtures[k::count]) for k in range(count)]


def round_robin(
    bots: Sequence[str],
    *,
    config: RuleConfig,
    deals: int,
    seed: int,
    num_players: int = 2,
    jobs: int = 1,
    makers: Makers | None = None,
    on_game: Callable[[TournamentGame], None] | None = None,
    runner: Runner | None = None,
) -> list[TournamentGame]:
    """Play every game of ``schedule(bots, ...)``; the results in schedule order.

    The results are the same whatever ``jobs`` or ``runner``: every game depends on its
    fixture only.

    Args:
        bots: two or more bot names of ``makers``.
        config: the rules.
        deals: deals every pair plays (from every seat).
        seed: the tournament's seed; deal ``d`` is ``game_seed(seed, d)``.
        num_players: seats at the table.
        jobs: local worker processes (with ``runner``: the workers the tasks are cut
            for; see [`deal_out`][allegra_rules.tournament.deal_out]).
        makers: bot names mapped to constructors taking a seed
            ([`BOT_KINDS`][allegra_rules.bot_kinds.BOT_KINDS] by default); they are sent to
            the workers, so they must pickle (module-level functions or classes, or
            ``functools.partial`` of them).
        on_game: called with every game as it comes in (for a progress bar).
        runner: an ordered ``map`` that runs the tasks elsewhere (Ray).

    Raises:
        ValueError: bad arguments (see [`schedule`][allegra_rules.tournament.schedule] and
            [`play_fixture`][allegra_rules.tournament.play_fixture]), or ``jobs`` below 1.
    """
    if type(jobs) is not int or jobs < 1:
        raise ValueError(f"jobs must be an int >= 1; got {jobs!r}")
    kinds = BOT_KINDS if makers is None else makers
    unknown = [name for name in bots if name not in kinds]
    if unknown:
        raise ValueError(f"unknown bot {unknown[0]!r}; known bots: {', '.join(kinds)}")
    fixtures = schedule(bots, num_players=num_players, deals=deals, seed=seed)
    results: list[TournamentGame] = []

    def collect(game: TournamentGame) -> None:
        results.append(game)
        if on_game is not None:
            on_game(game)

    if runner is None and jobs == 1:
        for fixture in fixtures:
            collect(play_fixture(num_players, config, fixture, makers))
        return results
    tasks: list[_Task] = [
        (num_players, config, makers, chunk) for chunk in deal_out(fixtures, jobs)
    ]
    if runner is not None:
        for chunk in runner(_play_chunk, tasks):
            for game in chunk:
                collect(game)
    else:
        context: multiprocessing.context.BaseContext
        if "forkserver" in multiprocessing.get_all_start_methods():
            context = multiprocessing.get_context("forkserver")
        else:
            context = multiprocessing.get_context("spawn")
        with context.Pool(min(jobs, len(tasks))) as pool:
            for chunk in pool.imap(_play_chunk, tasks):
                for game in chunk:
                    collect(game)
    # The tasks hold games dealt out in turn: put them back in schedule order.
    return sorted(results, key=lambda game: game.index)


def wilson_interval(successes: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95 % by default).

    ``successes`` may be fractional (shared wins). ``n`` of 0 gives ``(0.0, 1.0)``.

    Examples:
        >>> low, high = wilson_interval(97, 100)
        >>> round(low, 3), round(high, 3)
        (0.915, 0.99)
    """
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@attrs.frozen(slots=True)
class PairResult:
    """What one pair of bots did against each other, from ``a``'s side.

    Attributes:
        a: the first bot (in the order the bots were listed).
        b: the second bot.
        games: the games they played.
        share: ``a``'s mean share of the win (``b``'s is ``1 - share``).
        low: the lower end of the 95 % Wilson interval of ``share``.
        high: its upper end.
        margin: ``a``'s mean margin in points (positive: ``a`` had the lower totals).
        margin_stderr: the standard error of ``margin`` (``None`` for a single game).
    """

    a: str
    b: str
    games: int
    share: float
    low: float
    high: float
    margin: float
    margin_stderr: float | None

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready data."""
        return attrs.asdict(self)


def pair_results(games: Sequence[TournamentGame]) -> list[PairResult]:
    """Every pair's result, in the order the pairs first appear in ``games``."""
    by_pair: dict[tuple[str, str], list[TournamentGame]] = {}
    for game in games:
        names = list(dict.fromkeys(game.bots))
        if len(names) != 2:
            raise ValueError(f"a round-robin game seats exactly two bots; got {names!r}")
        a, b = names
        key = (a, b) if (a, b) in by_pair or (b, a) not in by_pair else (b, a)
        by_pair.setdefault(key, []).append(game)
    out = []
    for (a, b), played in by_pair.items():
        n = len(played)
        wins = sum(g.share(a) for g in played)
        margins = [g.margin(a) for g in played]
        mean = sum(margins) / n
        stderr = math.sqrt(sum((m - mean) ** 2 for m in margins) / (n - 1) / n) if n > 1 else None
        low, high = wilson_interval(wins, n)
        out.append(PairResult(a, b, n, wins / n, low, high, mean, stderr))
    return out
