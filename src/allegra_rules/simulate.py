"""Many seeded games between bots, and their summary statistics.

Public names:

* ``BOT_KINDS``: the registry of bot names,
  [`allegra_rules.bot_kinds.BOT_KINDS`][allegra_rules.bot_kinds.BOT_KINDS] (the same
  object, importable from here too).
* [`game_seed`][allegra_rules.simulate.game_seed]: the seed of game ``i`` of a simulation seeded
  with ``S``.
* [`bot_seed`][allegra_rules.simulate.bot_seed]: the seed of the bot at a seat of a game.
* [`GameStats`][allegra_rules.simulate.GameStats] and
  [`play_game`][allegra_rules.simulate.play_game]: one game between bots, measured.
* [`removed_by_settling`][allegra_rules.simulate.removed_by_settling]: the cards one action's
  triples removed from the grids.
* [`simulate`][allegra_rules.simulate.simulate]: ``N`` games, in one process or in ``J`` worker
  processes; [`default_jobs`][allegra_rules.simulate.default_jobs] is the number of CPUs available.
* [`Summary`][allegra_rules.simulate.Summary], [`SeatSummary`][allegra_rules.simulate.SeatSummary]
  and [`summarize`][allegra_rules.simulate.summarize]: the statistics of many games, as plain text
  ([`Summary.to_text`][allegra_rules.simulate.Summary.to_text]) or JSON data
  ([`Summary.to_dict`][allegra_rules.simulate.Summary.to_dict]).

Everything is deterministic: game ``i`` of a simulation with seed ``S`` is
``new_game(K, config=config, seed=game_seed(S, i))`` played by bots seeded with
``bot_seed(game_seed(S, i), seat)``, whatever the number of worker processes. The
same seeds drive ``allegra-rules demo``, so ``allegra-rules demo --seed
<game_seed(S, i)>`` with the same players, preset and bots narrates game ``i``.

What is counted, per round:

* its length: the turns played in it (a turn starts with its draw);
* knocks: ``Knock()`` actions; exchanges: ``Give(k)`` actions;
* triples: the settlements that removed cards from the grids (one settlement may
  clear a line of four or five, or two lines at once: that counts once), and the
  cards they removed;
* how it ended: by a player (the ender, doubled or not) or at the turn cap.

Win rates split a shared win: each of ``k`` tied winners gets ``1/k`` of the game,
so the seats' win rates add up to 1.

Examples:
    >>> from allegra_rules import preset
    >>> stats = simulate(2, games=2, config=preset("seeds"), seed=7, bots=["random"] * 2)
    >>> [s.index for s in stats], len(stats[0].rounds)
    ([0, 1], 3)
    >>> summary = summarize(stats, bots=["random"] * 2)
    >>> round(sum(seat.win_rate for seat in summary.seats), 9)
    1.0
"""

from __future__ import annotations

import hashlib
import math
import multiprocessing
import multiprocessing.pool
import os
import signal
import statistics
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import attrs

from allegra_rules.actions import Give, Knock
from allegra_rules.bot_kinds import BOT_KINDS
from allegra_rules.bots import Bot
from allegra_rules.config import RuleConfig
from allegra_rules.records import preset_id_of
from allegra_rules.state import GameState, Phase
from allegra_rules.transitions import apply, new_game

__all__ = [
    "GameStats",
    "RoundStats",
    "Runner",
    "SeatSummary",
    "Summary",
    "bot_seed",
    "chunk_bounds",
    "default_jobs",
    "game_seed",
    "play_game",
    "removed_by_settling",
    "seated_bots",
    "simulate",
    "summarize",
    "worker_pool",
]


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` (0-based) of a simulation seeded with ``seed``.

    The first 4 bytes, big-endian, of the sha256 digest of
    ``f"allegra-simulate:{seed}:{index}"``: a 32-bit seed that never changes.

    Examples:
        >>> game_seed(1, 0)
        3179962857
        >>> game_seed(1, 0) == game_seed(1, 0) != game_seed(1, 1)
        True
    """
    digest = hashlib.sha256(f"allegra-simulate:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def bot_seed(seed: int, seat: int) -> int:
    """The seed of the bot at ``seat`` in the game dealt from ``seed``.

    Examples:
        >>> bot_seed(3, 2)
        3002
    """
    return seed * 1000 + seat


@attrs.frozen(slots=True)
class RoundStats:
    """What happened in one round of a game.

    Attributes:
        turns: the turns played in the round (a turn starts with its draw).
        knocks: the ``Knock()`` actions of the round.
        exchanges: the ``Give(k)`` actions (knock exchanges) of the round.
        triples: the settlements that removed cards from the grids.
        removed: the cards those settlements removed.
        ender: the seat that ended the round, or ``None`` at the turn cap.
        doubled: whether the ender's sum was doubled.
    """

    turns: int
    knocks: int
    exchanges: int
    triples: int
    removed: int
    ender: int | None
    doubled: bool


@attrs.frozen(slots=True)
class GameStats:
    """One finished game between bots, measured.

    Attributes:
        index: the game's number in its simulation (0-based).
        seed: the game's seed (``game_seed(simulation seed, index)``).
        totals: each seat's final total.
        winners: the winning seats, ascending.
        rounds: one [`RoundStats`][allegra_rules.simulate.RoundStats] per round, in order.
    """

    index: int
    seed: int
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    rounds: tuple[RoundStats, ...]


def _gaps(cells: Sequence[int | None]) -> int:
    return sum(value is None for value in cells)


def removed_by_settling(before: GameState, after: GameState) -> int:
    """How many cards the triples found while settling ``before -> after`` removed.

    ``after`` is ``apply(before, action)``; 0 when no triple left the grids.

    Gaps only ever come from triples (a knock exchange's gap is filled in the same
    turn), so the new gaps of a settled table are the removed cards; the pending
    gap of the ``hold_taken`` phase is filled by the final ``Swap``.
    """
    if after.round != before.round or after.is_terminal:
        assert after.last_round is not None
        settled: Sequence[int | None] = after.last_round.cells
    elif after.phase in (Phase.DRAW, Phase.SETUP):
        settled = after.cells
    else:
        return 0
    pending = 1 if before.phase is Phase.HOLD_TAKEN else 0
    return _gaps(settled) - _gaps(before.cells) + pending


def seated_bots(num_players: int, seed: int, bots: Sequence[str]) -> list[Bot]:
    """The bots of game ``seed``: ``bots[p]`` at seat ``p``, seeded ``bot_seed(seed, p)``.

    Raises:
        ValueError: ``bots`` does not name ``num_players`` bots, or names an unknown one.

    Examples:
        >>> [type(bot).__name__ for bot in seated_bots(2, 5, ["greedy", "random"])]
        ['GreedyBot', 'RandomBot']
    """
    if len(bots) != num_players:
        raise ValueError(f"bots must name {num_players} bots; got {len(bots)}")
    unknown = [name for name in bots if name not in BOT_KINDS]
    if unknown:
        raise ValueError(f"unknown bot {unknown[0]!r}; known bots: {', '.join(BOT_KINDS)}")
    return [BOT_KINDS[name](bot_seed(seed, seat)) for seat, name in enumerate(bots)]


def play_game(
    num_players: int,
    config: RuleConfig,
    seed: int,
    bots: Sequence[str],
    index: int = 0,
) -> GameStats:
    """Play one game between bots and measure it.

    Args:
        num_players: seats at the table.
        config: the rules.
        seed: the deal's seed; the bot at seat ``p`` is seeded ``bot_seed(seed, p)``.
        bots: one name of [`BOT_KINDS`][allegra_rules.bot_kinds.BOT_KINDS] per seat.
        index: the game's number, stored in the result.

    Returns:
        The game's statistics.

    Raises:
        ValueError: an unknown bot name, a wrong number of bots, or arguments
            ``new_game`` rejects.

    Examples:
        >>> from allegra_rules import preset
        >>> stats = play_game(2, preset("fr"), 5, ["random", "random"])
        >>> stats.seed, len(stats.totals), len(stats.rounds)
        (5, 2, 3)
    """
    players = seated_bots(num_players, seed, bots)
    state = new_game(num_players, config=config, seed=seed)
    rounds: list[RoundStats] = []
    knocks = exchanges = triples = removed = 0
    while not state.is_terminal:
        seat = state.current_player
        assert seat is not None
        action = players[seat].choose(state)
        after = apply(state, action)
        if isinstance(action, Knock):
            knocks += 1
        elif isinstance(action, Give):
            exchanges += 1
        cleared = removed_by_settling(state, after)
        if cleared:
            triples += 1
            removed += cleared
        if after.round != state.round or after.is_terminal:
            last = after.last_round
            assert last is not None
            rounds.append(
                RoundStats(
                    turns=state.turns_played,
                    knocks=knocks,
                    exchanges=exchanges,
                    triples=triples,
                    removed=removed,
                    ender=last.ender,
                    doubled=last.doubled,
                )
            )
            knocks = exchanges = triples = removed = 0
        state = after
    return GameStats(
        index=index,
        seed=seed,
        totals=state.totals,
        winners=state.winners,
        rounds=tuple(rounds),
    )


_Chunk = tuple[int, RuleConfig, int, tuple[str, ...], int, int]
"""``(num_players, config, simulation seed, bots, first game, end)``: games first..end-1."""

Runner = Callable[[Callable[[Any], Any], Sequence[Any]], Iterable[Any]]
"""An ordered ``map``: ``runner(function, tasks)`` yields ``function(task)`` for every task, in
the tasks' order (``function`` and the tasks can be pickled). The builtin ``map`` is one; the
CLI's ``--ray`` option passes one that runs every task as a Ray task."""

CHUNKS_PER_WORKER = 4
"""How many chunks of consecutive games each worker gets at least, for an even load."""
MAX_CHUNK = 50
"""The most games in one chunk, so that results (and the progress bar) keep coming."""


def _run_chunk(chunk: _Chunk) -> list[GameStats]:
    num_players, config, seed, bots, first, end = chunk
    return [
        play_game(num_players, config, game_seed(seed, index), bots, index)
        for index in range(first, end)
    ]


def worker_pool(workers: int, preload: str) -> multiprocessing.pool.Pool:
    """A pool of ``workers`` fresh processes for seeded games, which ignore Ctrl-C.

    Fresh processes: never a fork of this one, which may run a progress bar's thread,
    but forked from a server that has imported ``preload`` once (spawned where there is
    no fork server). Leaving the pool's ``with`` block (Ctrl-C included) terminates the
    workers at once.
    """
    context: multiprocessing.context.BaseContext
    if "forkserver" in multiprocessing.get_all_start_methods():
        server = multiprocessing.get_context("forkserver")
        server.set_forkserver_preload([preload])
        context = server
    else:
        context = multiprocessing.get_context("spawn")
    return context.Pool(workers, initializer=_ignore_sigint)


def _ignore_sigint() -> None:
    # Workers leave Ctrl-C to the parent, which stops the pool (and prints no
    # traceback per worker).
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def chunk_bounds(games: int, workers: int) -> list[tuple[int, int]]:
    """How ``simulate`` splits games ``1..games-1`` into chunks for ``workers``.

    Game 0 is always played first in the calling process. The rest is cut into runs
    of consecutive games whose sizes differ by at most one: ``CHUNKS_PER_WORKER *
    workers`` runs, or more when that would put over ``MAX_CHUNK`` games in one. So
    sending a task and its rules to a worker is paid once per chunk, not once per
    game; a worker that finishes early takes another chunk; and results keep coming
    for a progress bar.

    Examples:
        >>> chunk_bounds(10, 2)
        [(1, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 8), (8, 9), (9, 10)]
    """
    rest = games - 1
    count = max(1, min(rest, max(CHUNKS_PER_WORKER * workers, -(-rest // MAX_CHUNK))))
    size, extra = divmod(rest, count)
    bounds = []
    start = 1
    for k in range(count):
        end = start + size + (1 if k < extra else 0)
        bounds.append((start, end))
        start = end
    return bounds


def simulate(
    num_players: int,
    *,
    games: int,
    config: RuleConfig,
    seed: int,
    bots: Sequence[str],
    jobs: int = 1,
    on_game: Callable[[GameStats], None] | None = None,
    runner: Runner | None = None,
) -> list[GameStats]:
    """Play ``games`` seeded games between bots, in this process or in ``jobs`` workers.

    Game ``i`` is ``play_game(num_players, config, game_seed(seed, i), bots, i)``;
    the results come back in game order, so they are the same for every ``jobs``.
    Game 0 is played in this process first (so bad arguments fail at once); with
    ``jobs`` above 1 the other games go to the workers in chunks of consecutive
    games (see [`chunk_bounds`][allegra_rules.simulate.chunk_bounds]).

    Args:
        num_players: seats at the table.
        games: how many games, at least 1.
        config: the rules.
        seed: the simulation's seed; every game's seed derives from it.
        bots: one name of [`BOT_KINDS`][allegra_rules.bot_kinds.BOT_KINDS] per seat.
        jobs: worker processes; 1 plays every game in this process.
        on_game: called with each game's statistics as soon as it is in, in game
            order (for a progress bar; with workers, a chunk's games arrive together).
        runner: runs the chunks elsewhere instead of in local worker processes: an
            ordered ``map`` (see [`Runner`][allegra_rules.simulate.Runner]), such as the
            CLI's Ray runner; ``jobs`` then sets how many chunks there are.

    Returns:
        One [`GameStats`][allegra_rules.simulate.GameStats] per game, in game order.

    Raises:
        ValueError: ``games`` or ``jobs`` below 1, or arguments
            [`play_game`][allegra_rules.simulate.play_game] rejects (checked on game 0 before any
            worker starts).
    """
    if type(games) is not int or games < 1:
        raise ValueError(f"games must be an int >= 1; got {games!r}")
    if type(jobs) is not int or jobs < 1:
        raise ValueError(f"jobs must be an int >= 1; got {jobs!r}")
    names = tuple(bots)
    results: list[GameStats] = []

    def collect(game: GameStats) -> None:
        results.append(game)
        if on_game is not None:
            on_game(game)

    # Fails fast, in this process, on bad arguments.
    collect(play_game(num_players, config, game_seed(seed, 0), names, 0))
    workers = min(jobs, games - 1)
    if runner is not None and games > 1:
        tasks = [
            (num_players, config, seed, names, first, end)
            for first, end in chunk_bounds(games, max(1, workers))
        ]
        for chunk in runner(_run_chunk, tasks):
            for game in chunk:
                collect(game)
        return results
    if workers <= 1:
        for index in range(1, games):
            collect(play_game(num_players, config, game_seed(seed, index), names, index))
        return results
    chunks = [
        (num_players, config, seed, names, first, end)
        for first, end in chunk_bounds(games, workers)
    ]
    # imap yields the chunks in order, so the results are the same for any ``jobs``.
    with worker_pool(workers, "allegra_rules.simulate") as pool:
        for chunk in pool.imap(_run_chunk, chunks):
            for game in chunk:
                collect(game)
    return results


def default_jobs() -> int:
    """The number of CPUs this process may use (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on every platform
        return max(1, os.cpu_count() or 1)


# ---------------------------------------------------------------- the summary


@attrs.frozen(slots=True)
class SeatSummary:
    """One seat's results over all games.

    Attributes:
        seat: the seat.
        bot: the bot name that played it.
        mean_total: the mean final total.
        stdev_total: the sample standard deviation of the final total (``None``
            for a single game).
        wins: games won, a shared win counting ``1/k`` for each of ``k`` winners.
        win_rate: ``wins`` divided by the number of games.
        shared_wins: games this seat won together with another seat.
    """

    seat: int
    bot: str
    mean_total: float
    stdev_total: float | None
    wins: float
    win_rate: float
    shared_wins: int


@attrs.frozen(slots=True)
class Summary:
    """Statistics of a simulation; see the module docs for what is counted.

    Attributes:
        games: the number of games.
        num_players: seats at the table.
        preset: the pinned preset id the config equals, or ``None``.
        config_fingerprint: the config's fingerprint.
        seed: the simulation's seed (game ``i`` uses ``game_seed(seed, i)``).
        seats: one [`SeatSummary`][allegra_rules.simulate.SeatSummary] per seat.
        games_with_shared_win: games won by two or more tied seats.
        rounds: the number of rounds played.
        mean_round_turns: the mean round length in turns.
        stdev_round_turns: its sample standard deviation (``None`` for one round).
        min_round_turns: the shortest round, in turns.
        max_round_turns: the longest round, in turns.
        knocks_per_round: mean ``Knock()`` actions per round.
        exchanges_per_round: mean knock exchanges (``Give``) per round.
        triples_per_round: mean settlements that removed cards, per round.
        removed_per_round: mean cards removed by triples, per round.
        rounds_with_ender: rounds a player ended (not stopped by the turn cap).
        doubled_enders: rounds whose ender's sum was doubled.
        doubled_rate: ``doubled_enders / rounds_with_ender`` (``None`` when no
            round had an ender).
        turn_cap_rounds: rounds ended by ``max_turns_per_round``.
    """

    games: int
    num_players: int
    preset: str | None
    config_fingerprint: str
    seed: int | None
    seats: tuple[SeatSummary, ...]
    games_with_shared_win: int
    rounds: int
    mean_round_turns: float
    stdev_round_turns: float | None
    min_round_turns: int
    max_round_turns: int
    knocks_per_round: float
    exchanges_per_round: float
    triples_per_round: float
    removed_per_round: float
    rounds_with_ender: int
    doubled_enders: int
    doubled_rate: float | None
    turn_cap_rounds: int

    def to_dict(self) -> dict[str, Any]:
        """The summary as plain JSON data (seats as a list of objects)."""
        data = attrs.asdict(self, recurse=True)
        data["seats"] = [attrs.asdict(seat) for seat in self.seats]
        return data

    def to_text(self) -> str:
        """The summary as a plain-text report: a table per seat, then the rounds.

        Examples:
            >>> from allegra_rules import preset
            >>> stats = simulate(2, games=3, config=preset("seeds"), seed=1, bots=["random"] * 2)
            >>> print(summarize(stats, bots=["random"] * 2).to_text().splitlines()[2])
            seat  bot     mean total  stdev  wins  win rate
        """
        rules = self.preset or f"config {self.config_fingerprint[:12]}"
        lines = [
            f"{_plural(self.games, 'game')}, {self.num_players} players, {rules}, seed {self.seed}",
            "",
        ]
        rows = [
            [
                str(seat.seat),
                seat.bot,
                f"{seat.mean_total:.2f}",
                _number(seat.stdev_total),
                f"{seat.wins:.2f}",  # one format: a shared win makes fractions (1/k)
                f"{100 * seat.win_rate:.1f}%",
            ]
            for seat in self.seats
        ]
        header = ["seat", "bot", "mean total", "stdev", "wins", "win rate"]
        lines += _columns(header, rows, right={0, 2, 3, 4, 5})
        lines.append("")
        lines.append(
            f"Shared wins: {_plural(self.games_with_shared_win, 'game')} (a shared win "
            "counts 1/k for each of k tied winners)"
        )
        lines.append(
            f"Rounds: {self.rounds}; length {self.mean_round_turns:.2f} turns on average "
            f"(stdev {_number(self.stdev_round_turns)}, shortest {self.min_round_turns}, "
            f"longest {self.max_round_turns})"
        )
        lines.append(
            f"Per round: {self.knocks_per_round:.2f} knocks, {self.exchanges_per_round:.2f} "
            f"exchanges, {self.triples_per_round:.2f} triples removing "
            f"{self.removed_per_round:.2f} cards"
        )
        rate = "n/a" if self.doubled_rate is None else f"{100 * self.doubled_rate:.1f}%"
        lines.append(
            f"Round enders doubled: {self.doubled_enders} of {self.rounds_with_ender} "
            f"({rate}); rounds stopped at the turn cap: {self.turn_cap_rounds}"
        )
        return "\n".join(lines)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _columns(header: Sequence[str], rows: Sequence[Sequence[str]], right: set[int]) -> list[str]:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        parts = [
            cell.rjust(widths[i]) if i in right else cell.ljust(widths[i])
            for i, cell in enumerate(cells)
        ]
        return "  ".join(parts).rstrip()

    return [line(header), *(line(row) for row in rows)]


def _stdev(values: Sequence[float]) -> float | None:
    return statistics.stdev(values) if len(values) > 1 else None


def summarize(
    stats: Sequence[GameStats],
    *,
    bots: Sequence[str],
    config: RuleConfig | None = None,
    seed: int | None = None,
) -> Summary:
    """The statistics of ``stats``, as a [`Summary`][allegra_rules.simulate.Summary].

    Args:
        stats: the games, as [`simulate`][allegra_rules.simulate.simulate] returns them (at least
            one).
        bots: the bot name of every seat.
        config: the rules the games were played under (for the preset id and the
            fingerprint); ``None`` means ``preset("seeds")``.
        seed: the simulation's seed, reported as is.

    Returns:
        The summary. Sums run in game order, so equal games give an equal summary.

    Raises:
        ValueError: ``stats`` is empty, or ``bots`` does not name one bot per seat.
    """
    if not stats:
        raise ValueError("summarize needs at least one game")
    if config is None:
        config = RuleConfig()
    n = len(stats[0].totals)
    if len(bots) != n:
        raise ValueError(f"bots must name {n} bots; got {len(bots)}")
    games = len(stats)
    seats = []
    for seat in range(n):
        totals = [float(game.totals[seat]) for game in stats]
        wins = math.fsum(1 / len(g.winners) for g in stats if seat in g.winners)
        shared = sum(1 for g in stats if seat in g.winners and len(g.winners) > 1)
        seats.append(
            SeatSummary(
                seat=seat,
                bot=bots[seat],
                mean_total=math.fsum(totals) / games,
                stdev_total=_stdev(totals),
                wins=wins,
                win_rate=wins / games,
                shared_wins=shared,
            )
        )
    rounds = [r for game in stats for r in game.rounds]
    count = len(rounds)
    turns = [float(r.turns) for r in rounds]
    with_ender = [r for r in rounds if r.ender is not None]
    doubled = sum(1 for r in with_ender if r.doubled)
    return Summary(
        games=games,
        num_players=n,
        preset=preset_id_of(config),
        config_fingerprint=config.fingerprint,
        seed=seed,
        seats=tuple(seats),
        games_with_shared_win=sum(1 for g in stats if len(g.winners) > 1),
        rounds=count,
        mean_round_turns=math.fsum(turns) / count,
        stdev_round_turns=_stdev(turns),
        min_round_turns=min(r.turns for r in rounds),
        max_round_turns=max(r.turns for r in rounds),
        knocks_per_round=sum(r.knocks for r in rounds) / count,
        exchanges_per_round=sum(r.exchanges for r in rounds) / count,
        triples_per_round=sum(r.triples for r in rounds) / count,
        removed_per_round=sum(r.removed for r in rounds) / count,
        rounds_with_ender=len(with_ender),
        doubled_enders=doubled,
        doubled_rate=doubled / len(with_ender) if with_ender else None,
        turn_cap_rounds=count - len(with_ender),
    )
