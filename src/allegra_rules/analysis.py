"""What a variant does to a game: many seeded games between bots, measured.

Public names:

* [`Tally`][allegra_rules.analysis.Tally]: the integer counts of a set of games, merged exactly;
  [`measure_game`][allegra_rules.analysis.measure_game] plays and counts one game.
* [`analyze`][allegra_rules.analysis.analyze]: ``N`` games of one variant, in this process, in
  ``J`` worker processes or on a ``runner`` (Ray), and
  [`report`][allegra_rules.analysis.report], their figures as JSON data.
* [`option_variants`][allegra_rules.analysis.option_variants]: every alternative of every rule
  option, read from [`RuleConfig`][allegra_rules.config.RuleConfig], with the rest held at a base.
* [`compare`][allegra_rules.analysis.compare] and [`holm`][allegra_rules.analysis.holm]: which
  figures a variant changes, after Holm's correction for the number of comparisons.
* [`wilson`][allegra_rules.analysis.wilson], [`mean_interval`][allegra_rules.analysis.mean_interval]
  and [`t_quantile`][allegra_rules.analysis.t_quantile]: the 95 % intervals.

Game ``i`` of an analysis seeded ``S`` is the game ``allegra-rules simulate`` plays:
``new_game(K, config=config, seed=game_seed(S, i))`` with the bot at seat ``p`` seeded
``bot_seed(game_seed(S, i), p)``. Every count is an integer and merging tallies adds them
(or takes a maximum), so the figures are the same whatever the number of worker
processes, the order their results arrive in, or whether the games ran on Ray.

What is counted:

* **length**: turns per round (a turn starts with its draw) and per game;
* **scores**: the spread of the final totals (highest minus lowest) and the winner's
  margin (the second-lowest total minus the lowest; 0 for a shared win);
* **seats**: each seat's share of the wins (a shared win counts ``1/k`` to each of ``k``
  winners) and its final total; its advantage is its share minus ``1/K``;
* **rules firing**: knock windows (a draw-pile card other seats were asked about), the
  asks and the knocks, windows with a knock, knock exchanges (``Give``), triples (the
  settlements that removed cards) and the cards they removed, gaps left in the grids
  when the round is scored, doubled round enders and rounds stopped at the turn cap;
* **branching**: at every decision, the number of legal actions, by phase (the kind of
  decision);
* **information flow**: at every decision, from the seats' views
  ([`observe`][allegra_rules.views.observe]), the cards on the table (the grids, a held
  card and a knocker's hand; the piles are left out) whose value the public view shows,
  those every seat's own view shows, and the face-down cards nobody knows; summed by the
  turn of the round the decision falls in.

Intervals: a rate (events out of chances) has a 95 % Wilson score interval; a mean has
a 95 % Student t interval from the exact sums of the values and of their squares. A
comparison of a variant with its base is a two-sided Welch (normal) test of the
difference, its p-values corrected with Holm's step-down method.

Examples:
    >>> from allegra_rules import preset
    >>> tally = analyze(2, games=2, config=preset("seeds"), seed=7, bots=["random"] * 2)
    >>> tally.games, tally.rounds
    (2, 6)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from allegra_rules.actions import DrawDeck, Give, Knock
from allegra_rules.config import OPTION_CHOICES, RuleConfig
from allegra_rules.presets import PRESETS
from allegra_rules.records import preset_id_of
from allegra_rules.round_end import ROUNDS
from allegra_rules.simulate import (
    Runner,
    chunk_bounds,
    game_seed,
    removed_by_settling,
    seated_bots,
    worker_pool,
)
from allegra_rules.state import GameState, Phase
from allegra_rules.transitions import apply, legal_actions, new_game
from allegra_rules.views import PlayerView, observe

__all__ = [
    "MEASURES",
    "TURN_CAP_ABOVE",
    "TURN_CAP_BELOW",
    "Tally",
    "analyze",
    "compare",
    "describe",
    "holm",
    "mean_interval",
    "measure_game",
    "option_variants",
    "report",
    "rounded",
    "t_quantile",
    "wilson",
]

Z95 = 1.959963984540054
"""The 97.5 % quantile of the standard normal distribution."""

SHARE = 60
"""A win counts ``SHARE`` units, shared equally by tied winners (60 divides by 1..6)."""

TURN_CAP_BELOW = 50
"""The turn cap below the presets' (500) that the option sweep measures: it stops rounds."""

TURN_CAP_ABOVE = 1000
"""The turn cap above the presets' that the option sweep measures."""

# ---------------------------------------------------------------- intervals


def t_quantile(df: int) -> float:
    """The 97.5 % quantile of Student's t distribution with ``df`` degrees of freedom.

    The exact values for 1, 2 and 3 degrees of freedom (for 3, Newton's method on the
    closed-form distribution function); from 4 on, the Cornish-Fisher expansion around
    the normal quantile, whose error is below 0.001 there and falls fast.

    Examples:
        >>> round(t_quantile(1), 3), round(t_quantile(10), 3), round(t_quantile(10**6), 3)
        (12.706, 2.228, 1.96)
    """
    if df < 1:
        raise ValueError(f"df must be >= 1; got {df}")
    if df == 1:
        return math.tan(math.pi * 0.475)
    if df == 2:
        return 0.95 / math.sqrt(2 * 0.975 * 0.025)  # (2p - 1) / sqrt(2 p (1 - p)), p = 0.975
    if df == 3:
        t = 3.0
        for _ in range(20):
            x = t / math.sqrt(3)
            cdf = 0.5 + (x / (1 + x * x) + math.atan(x)) / math.pi
            density = 6 * math.sqrt(3) / (math.pi * (3 + t * t) ** 2)
            t -= (cdf - 0.975) / density
        return t
    z = Z95
    v = float(df)
    return (
        z
        + (z**3 + z) / (4 * v)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
        + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * v**4)
    )


def wilson(events: int, chances: int) -> tuple[float, float] | None:
    """The 95 % Wilson score interval of the rate ``events / chances``; ``None`` with no chance.

    Examples:
        >>> low, high = wilson(0, 100)
        >>> low, round(high, 4)
        (0.0, 0.037)
    """
    if chances == 0:
        return None
    n = chances
    p = events / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    low = 0.0 if events == 0 else max(0.0, centre - half)
    high = 1.0 if events == n else min(1.0, centre + half)
    return low, high


def _variance(n: int, total: int, squares: int) -> float | None:
    """The sample variance from exact integer sums (``None`` below two values)."""
    if n < 2:
        return None
    return max(0, n * squares - total * total) / (n * (n - 1))


def mean_interval(n: int, total: int, squares: int, scale: int = 1) -> dict[str, Any]:
    """The mean of ``n`` values from their sum and sum of squares, with a 95 % t interval.

    Args:
        n: how many values.
        total: their sum.
        squares: the sum of their squares.
        scale: every value was multiplied by ``scale`` to make it an integer.

    Returns:
        ``{"n", "mean", "sd", "low", "high"}`` (``None`` where undefined).

    Examples:
        >>> mean_interval(3, 6, 14)  # 1, 2, 3
        {'n': 3, 'mean': 2.0, 'sd': 1.0, 'low': -0.484..., 'high': 4.484...}
    """
    if n == 0:
        return {"n": 0, "mean": None, "sd": None, "low": None, "high": None}
    mean = total / n / scale
    var = _variance(n, total, squares)
    if var is None:
        return {"n": n, "mean": mean, "sd": None, "low": None, "high": None}
    sd = math.sqrt(var) / scale
    half = t_quantile(n - 1) * sd / math.sqrt(n)
    return {"n": n, "mean": mean, "sd": sd, "low": mean - half, "high": mean + half}


def _rate(events: int, chances: int) -> dict[str, Any]:
    interval = wilson(events, chances)
    return {
        "events": events,
        "chances": chances,
        "rate": events / chances if chances else None,
        "low": None if interval is None else interval[0],
        "high": None if interval is None else interval[1],
    }


# ---------------------------------------------------------------- counting


def _moment(sums: dict[str, int], name: str, value: int) -> None:
    sums[name + ".n"] = sums.get(name + ".n", 0) + 1
    sums[name + ".sum"] = sums.get(name + ".sum", 0) + value
    sums[name + ".sq"] = sums.get(name + ".sq", 0) + value * value


def _count(sums: dict[str, int], name: str, value: int = 1) -> None:
    sums[name] = sums.get(name, 0) + value


def _in_hand(view: PlayerView) -> int:
    """The cards off the grid whose value ``view`` shows: the held card and the hand."""
    shown = 0 if view.held is None else 1
    for _, card in view.in_hand:
        if card is not None:
            shown += 1
    return shown


@attrs.define(eq=True)
class Tally:
    """The integer counts of a set of games; [`merge`][allegra_rules.analysis.Tally.merge] adds.

    Attributes:
        num_players: seats at the table.
        sums: named totals: ``"<measure>.n"``, ``".sum"`` and ``".sq"`` for a measure
            with a mean, plain counts otherwise (see the module docs).
        seats: per seat, its named totals (win shares in ``SHARE`` units, final totals).
        branching: per phase, ``[decisions, legal actions summed, their squares, most]``.
        flow: per turn of a round (0 for the setup), ``[decisions, public, hidden,
            known by seat 0, known by seat 1, ...]``, each summed over the decisions.
        maxima: named largest values (the longest round).
    """

    num_players: int
    sums: dict[str, int] = attrs.field(factory=dict)
    seats: list[dict[str, int]] = attrs.field(factory=list)
    branching: dict[str, list[int]] = attrs.field(factory=dict)
    flow: dict[int, list[int]] = attrs.field(factory=dict)
    maxima: dict[str, int] = attrs.field(factory=dict)

    def __attrs_post_init__(self) -> None:
        while len(self.seats) < self.num_players:
            self.seats.append({})

    @property
    def games(self) -> int:
        """The number of games counted."""
        return self.sums.get("games", 0)

    @property
    def rounds(self) -> int:
        """The number of rounds counted."""
        return self.sums.get("round_turns.n", 0)

    def merge(self, other: Tally) -> Tally:
        """Add ``other``'s counts to this tally (in place) and return it.

        Raises:
            ValueError: the two tallies have different seat counts.
        """
        if other.num_players != self.num_players:
            raise ValueError(
                f"cannot merge a {other.num_players}-seat tally into a {self.num_players}-seat one"
            )
        for name, value in other.sums.items():
            _count(self.sums, name, value)
        for mine, theirs in zip(self.seats, other.seats, strict=True):
            for name, value in theirs.items():
                _count(mine, name, value)
        for phase, (n, total, squares, most) in other.branching.items():
            row = self.branching.setdefault(phase, [0, 0, 0, 0])
            row[0] += n
            row[1] += total
            row[2] += squares
            row[3] = max(row[3], most)
        for turn, values in other.flow.items():
            row = self.flow.setdefault(turn, [0] * len(values))
            for k, value in enumerate(values):
                row[k] += value
        for name, value in other.maxima.items():
            self.maxima[name] = max(self.maxima.get(name, value), value)
        return self

    def to_dict(self) -> dict[str, Any]:
        """The counts as plain JSON data (keys sorted, turns as strings)."""
        return {
            "num_players": self.num_players,
            "sums": dict(sorted(self.sums.items())),
            "seats": [dict(sorted(seat.items())) for seat in self.seats],
            "branching": {k: list(v) for k, v in sorted(self.branching.items())},
            "flow": {str(k): list(v) for k, v in sorted(self.flow.items())},
            "maxima": dict(sorted(self.maxima.items())),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Tally:
        """A tally from [`to_dict`][allegra_rules.analysis.Tally.to_dict] data."""
        return cls(
            num_players=int(data["num_players"]),
            sums={str(k): int(v) for k, v in data["sums"].items()},
            seats=[{str(k): int(v) for k, v in seat.items()} for seat in data["seats"]],
            branching={str(k): [int(x) for x in v] for k, v in data["branching"].items()},
            flow={int(k): [int(x) for x in v] for k, v in data["flow"].items()},
            maxima={str(k): int(v) for k, v in data["maxima"].items()},
        )

    # -- counting one game

    def decision(self, state: GameState) -> None:
        """Count a decision: its legal actions by phase, and what each seat's view shows."""
        options = len(legal_actions(state))
        row = self.branching.setdefault(state.phase.value, [0, 0, 0, 0])
        row[0] += 1
        row[1] += options
        row[2] += options * options
        row[3] = max(row[3], options)
        public = observe(state, None)
        # Every view shows the same grid cells (``observe``): they are counted once.
        cells = public.cells
        on_grid = len(cells) - cells.count(None)
        turn = 0 if state.phase is Phase.SETUP else state.turns_played
        flow = self.flow.setdefault(turn, [0] * (3 + self.num_players))
        flow[0] += 1
        shown = on_grid + _in_hand(public)
        flow[1] += shown
        flow[2] += public.face_down.count(True)
        if public.held_hidden or any(card is None for _, card in public.in_hand):
            for seat in range(self.num_players):
                flow[3 + seat] += on_grid + _in_hand(observe(state, seat))
        else:
            # A seat's view shows what the public view shows, and what that hides:
            # with nothing hidden, every seat knows what the public view shows.
            for seat in range(self.num_players):
                flow[3 + seat] += shown

    def round_end(self, state: GameState, counts: Mapping[str, int]) -> None:
        """Count a finished round: ``state`` is the first state after it was scored."""
        last = state.last_round
        assert last is not None
        for name in ("round_turns", "round_triples", "round_removed", "round_knocks"):
            _moment(self.sums, name, counts[name])
        _moment(self.sums, "round_exchanges", counts["round_exchanges"])
        gaps = sum(1 for value in last.cells if value is None)
        _moment(self.sums, "round_gaps", gaps)
        self.maxima["round_turns"] = max(self.maxima.get("round_turns", 0), counts["round_turns"])
        if last.ender is None:
            _count(self.sums, "turn_cap_rounds")
        else:
            _count(self.sums, "ended_rounds")
            _count(self.seats[last.ender], "ended")
            if last.doubled:
                _count(self.sums, "doubled_enders")
                _count(self.seats[last.ender], "doubled")

    def game_end(self, state: GameState, turns: int) -> None:
        """Count a finished game: its length, its scores and its winners."""
        _count(self.sums, "games")
        _moment(self.sums, "game_turns", turns)
        totals = state.totals
        ordered = sorted(totals)
        _moment(self.sums, "spread", ordered[-1] - ordered[0])
        _moment(self.sums, "margin", ordered[1] - ordered[0])
        share = SHARE // len(state.winners)
        for seat in range(self.num_players):
            won = share if seat in state.winners else 0
            _moment(self.seats[seat], "win", won)
            _moment(self.seats[seat], "total", totals[seat])
            if won == SHARE:
                _count(self.seats[seat], "sole_wins")


def measure_game(
    num_players: int,
    config: RuleConfig,
    seed: int,
    bots: Sequence[str],
    tally: Tally | None = None,
) -> Tally:
    """Play one game between bots, as ``simulate`` does, and count it into ``tally``.

    Args:
        num_players: seats at the table.
        config: the rules.
        seed: the deal's seed; the bot at seat ``p`` is seeded ``bot_seed(seed, p)``.
        bots: one name of [`BOT_KINDS`][allegra_rules.bot_kinds.BOT_KINDS] per seat.
        tally: where to count; ``None`` starts an empty one.

    Returns:
        The tally, with the game counted.

    Raises:
        ValueError: an unknown bot name, a wrong number of bots, or arguments
            ``new_game`` rejects.

    Examples:
        >>> from allegra_rules import preset
        >>> tally = measure_game(3, preset("published"), 5, ["greedy"] * 3)
        >>> ends = tally.sums.get("ended_rounds", 0) + tally.sums.get("turn_cap_rounds", 0)
        >>> tally.games, tally.rounds, ends
        (1, 3, 3)
    """
    players = seated_bots(num_players, seed, bots)
    state = new_game(num_players, config=config, seed=seed)
    out = Tally(num_players) if tally is None else tally
    counts = dict.fromkeys(
        ("round_turns", "round_triples", "round_removed", "round_knocks", "round_exchanges"), 0
    )
    game_turns = 0
    knocked = False
    while not state.is_terminal:
        seat = state.current_player
        assert seat is not None
        out.decision(state)
        action = players[seat].choose(state)
        after = apply(state, action)
        if isinstance(action, DrawDeck) and after.phase is Phase.KNOCK:
            _count(out.sums, "knock_windows")
            knocked = False
        elif state.phase is Phase.KNOCK:
            _count(out.sums, "knock_asks")
            if isinstance(action, Knock):
                counts["round_knocks"] += 1
                if not knocked:
                    _count(out.sums, "knocked_windows")
                knocked = True
        elif isinstance(action, Give):
            counts["round_exchanges"] += 1
        cleared = removed_by_settling(state, after)
        if cleared:
            counts["round_triples"] += 1
            counts["round_removed"] += cleared
        if after.round != state.round or after.is_terminal:
            counts["round_turns"] = state.turns_played
            game_turns += state.turns_played
            out.round_end(after, counts)
            counts = dict.fromkeys(counts, 0)
        state = after
    out.game_end(state, game_turns)
    return out


# ---------------------------------------------------------------- many games

_Chunk = tuple[int, RuleConfig, int, tuple[str, ...], int, int]
"""``(num_players, config, analysis seed, bots, first game, end)``: games first..end-1."""


def _run_chunk(chunk: _Chunk) -> tuple[int, Tally]:
    num_players, config, seed, bots, first, end = chunk
    tally = Tally(num_players)
    for index in range(first, end):
        measure_game(num_players, config, game_seed(seed, index), bots, tally)
    return end - first, tally


def analyze(
    num_players: int,
    *,
    games: int,
    config: RuleConfig,
    seed: int,
    bots: Sequence[str],
    jobs: int = 1,
    on_games: Callable[[int], None] | None = None,
    runner: Runner | None = None,
) -> Tally:
    """Play and count ``games`` seeded games between bots, here, in ``jobs`` workers or on Ray.

    Game ``i`` is the game ``simulate`` plays (``game_seed(seed, i)``); game 0 is played
    here first, so bad arguments fail at once; the others go out in chunks of
    consecutive games ([`chunk_bounds`][allegra_rules.simulate.chunk_bounds]). The counts
    are integers, so the tally is the same for every ``jobs`` and ``runner``.

    Args:
        num_players: seats at the table.
        games: how many games, at least 1.
        config: the rules.
        seed: the analysis's seed.
        bots: one name of [`BOT_KINDS`][allegra_rules.bot_kinds.BOT_KINDS] per seat.
        jobs: worker processes; 1 plays every game here.
        on_games: called with the number of games just counted (for a progress bar).
        runner: an ordered ``map`` running the chunks elsewhere
            ([`Runner`][allegra_rules.simulate.Runner]); ``jobs`` then sets the chunks.

    Returns:
        The merged tally.

    Raises:
        ValueError: ``games`` or ``jobs`` below 1, or arguments ``measure_game`` rejects.
    """
    if type(games) is not int or games < 1:
        raise ValueError(f"games must be an int >= 1; got {games!r}")
    if type(jobs) is not int or jobs < 1:
        raise ValueError(f"jobs must be an int >= 1; got {jobs!r}")
    names = tuple(bots)
    tally = measure_game(num_players, config, game_seed(seed, 0), names)
    if on_games is not None:
        on_games(1)
    if games == 1:
        return tally
    workers = min(jobs, games - 1)
    chunks = [
        (num_players, config, seed, names, first, end)
        for first, end in chunk_bounds(games, max(1, workers))
    ]
    results: Iterable[tuple[int, Tally]]
    if runner is not None:
        results = runner(_run_chunk, chunks)
        _merge_all(tally, results, on_games)
    elif workers <= 1:
        _merge_all(tally, map(_run_chunk, chunks), on_games)
    else:
        with worker_pool(workers, "allegra_rules.analysis") as pool:
            _merge_all(tally, pool.imap_unordered(_run_chunk, chunks), on_games)
    return tally


def _merge_all(
    tally: Tally,
    results: Iterable[tuple[int, Tally]],
    on_games: Callable[[int], None] | None,
) -> None:
    for count, part in results:
        tally.merge(part)
        if on_games is not None:
            on_games(count)


# ---------------------------------------------------------------- figures


def _mean(sums: Mapping[str, int], name: str, scale: int = 1) -> dict[str, Any]:
    return mean_interval(
        sums.get(name + ".n", 0), sums.get(name + ".sum", 0), sums.get(name + ".sq", 0), scale
    )


MEASURES: dict[str, str] = {
    "round_turns": "turns per round",
    "game_turns": "turns per game",
    "spread": "score spread (highest total minus lowest)",
    "margin": "winner's margin (second-lowest total minus the lowest)",
    "round_knocks": "knocks per round",
    "round_exchanges": "knock exchanges per round",
    "round_triples": "triples per round",
    "round_removed": "cards removed by triples per round",
    "round_gaps": "gaps in the grids at scoring, per round",
    "knock_rate": "share of asks answered with a knock",
    "doubled_rate": "share of round enders doubled",
    "turn_cap_rate": "share of rounds stopped at the turn cap",
    "first_seat_advantage": "first seat's share of the wins minus an even share",
}
"""The figures [`compare`][allegra_rules.analysis.compare] tests, with their words."""


def report(tally: Tally) -> dict[str, Any]:
    """The figures of a tally as plain JSON data: means and rates with 95 % intervals.

    Returns:
        ``{"games", "rounds", "length", "scores", "seats", "rules", "branching",
        "information"}``; see the module docs for what each counts.
    """
    s = tally.sums
    n = tally.num_players
    games = tally.games
    seats = []
    for seat, sums in enumerate(tally.seats):
        win = _mean(sums, "win", SHARE)
        shift = 1 / n
        advantage = {
            key: (None if win[key] is None else win[key] - shift) for key in ("mean", "low", "high")
        }
        seats.append(
            {
                "seat": seat,
                "win_share": win,
                "advantage": advantage,
                "sole_wins": sums.get("sole_wins", 0),
                "total": _mean(sums, "total"),
                "ended": sums.get("ended", 0),
                "doubled": sums.get("doubled", 0),
            }
        )
    branching = {
        phase: {
            "decisions": row[0],
            "mean": row[1] / row[0],
            "sd": None if (v := _variance(row[0], row[1], row[2])) is None else math.sqrt(v),
            "max": row[3],
        }
        for phase, row in sorted(tally.branching.items())
    }
    information = []
    for turn, row in sorted(tally.flow.items()):
        samples = row[0]
        information.append(
            {
                "turn": turn,
                "decisions": samples,
                "public": row[1] / samples,
                "hidden": row[2] / samples,
                "known": [row[3 + seat] / samples for seat in range(n)],
            }
        )
    return {
        "games": games,
        "rounds": tally.rounds,
        "length": {
            "round_turns": _mean(s, "round_turns"),
            "game_turns": _mean(s, "game_turns"),
            "longest_round": tally.maxima.get("round_turns", 0),
        },
        "scores": {"spread": _mean(s, "spread"), "margin": _mean(s, "margin")},
        "seats": seats,
        "rules": {
            "knock_windows": s.get("knock_windows", 0),
            "knock_asks": s.get("knock_asks", 0),
            "knock_rate": _rate(s.get("round_knocks.sum", 0), s.get("knock_asks", 0)),
            "knocked_windows": _rate(s.get("knocked_windows", 0), s.get("knock_windows", 0)),
            "exchange_rate": _rate(s.get("round_exchanges.sum", 0), s.get("knocked_windows", 0)),
            "round_knocks": _mean(s, "round_knocks"),
            "round_exchanges": _mean(s, "round_exchanges"),
            "round_triples": _mean(s, "round_triples"),
            "round_removed": _mean(s, "round_removed"),
            "round_gaps": _mean(s, "round_gaps"),
            "doubled_rate": _rate(s.get("doubled_enders", 0), s.get("ended_rounds", 0)),
            "turn_cap_rate": _rate(s.get("turn_cap_rounds", 0), tally.rounds),
        },
        "branching": branching,
        "information": information,
    }


# ---------------------------------------------------------------- comparisons


def option_variants(base: RuleConfig) -> list[tuple[str, object, RuleConfig]]:
    """Every alternative of every rule option, the rest held at ``base``.

    The options and their values come from [`RuleConfig`][allegra_rules.config.RuleConfig]: every
    string option's other values ([`OPTION_CHOICES`][allegra_rules.config.OPTION_CHOICES]), and for
    the turn cap the values the presets use and
    [`TURN_CAP_BELOW`][allegra_rules.analysis.TURN_CAP_BELOW] and
    [`TURN_CAP_ABOVE`][allegra_rules.analysis.TURN_CAP_ABOVE]. The deck and the seat limits are
    not varied: every preset uses one deck, and the seat limits only say which tables
    may be dealt.

    Returns:
        ``(option, value, config)`` triples in the options' order.

    Examples:
        >>> from allegra_rules import preset
        >>> [(o, v) for o, v, _ in option_variants(preset("published"))][:2]
        [('reveal_area', 'own'), ('first_player', 'highest_reveal')]
    """
    out: list[tuple[str, object, RuleConfig]] = []
    for field in attrs.fields(RuleConfig):
        name = field.name
        current = getattr(base, name)
        values: list[object]
        if name in OPTION_CHOICES:
            values = list(OPTION_CHOICES[name])
        elif name == "max_turns_per_round":
            used = {getattr(c, name) for versions in PRESETS.values() for c in versions}
            values = sorted({*used, TURN_CAP_BELOW, TURN_CAP_ABOVE})
        else:
            continue
        for value in values:
            if value != current:
                change: dict[str, Any] = {name: value}
                out.append((name, value, attrs.evolve(base, **change)))
    return out


def _figure(data: Mapping[str, Any], name: str) -> tuple[float, float, int, bool] | None:
    """``(estimate, its variance, n, is a rate)`` of a figure of ``report`` data, or ``None``."""
    if name == "first_seat_advantage":
        win = data["seats"][0]["win_share"]
        if win["sd"] is None:
            return None
        return win["mean"], win["sd"] ** 2 / win["n"], win["n"], False
    for group in ("length", "scores", "rules"):
        if name in data[group]:
            fig = data[group][name]
            break
    else:
        raise KeyError(name)
    if "rate" in fig:
        if not fig["chances"]:
            return None
        p = fig["rate"]
        return p, p * (1 - p) / fig["chances"], fig["chances"], True
    if fig["sd"] is None:
        return None
    return fig["mean"], fig["sd"] ** 2 / fig["n"], fig["n"], False


def compare(base: Mapping[str, Any], variant: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each figure of [`MEASURES`][allegra_rules.analysis.MEASURES], variant minus base.

    A mean is compared with Welch's (normal) test; a rate with the two-proportion z
    test, whose variance pools the two samples (so two rates of 0 and 1 still get a
    test). The interval of the difference is the 95 % normal one, unpooled.

    Args:
        base: ``report`` data of the base.
        variant: ``report`` data of the variant (the same seat count).

    Returns:
        Per figure: ``{"measure", "base", "variant", "difference", "low", "high", "p"}``,
        with the two-sided p-value. A figure either side cannot estimate is left out.
    """
    rows = []
    for name in MEASURES:
        a = _figure(base, name)
        b = _figure(variant, name)
        if a is None or b is None:
            continue
        diff = b[0] - a[0]
        se = math.sqrt(a[1] + b[1])
        test_se = se
        if a[3]:
            pooled = (a[0] * a[2] + b[0] * b[2]) / (a[2] + b[2])
            test_se = math.sqrt(pooled * (1 - pooled) * (1 / a[2] + 1 / b[2]))
        if test_se == 0:
            p = 1.0 if diff == 0 else 0.0
        else:
            p = math.erfc(abs(diff) / test_se / math.sqrt(2))
        rows.append(
            {
                "measure": name,
                "base": a[0],
                "variant": b[0],
                "difference": diff,
                "low": diff - Z95 * se,
                "high": diff + Z95 * se,
                "p": p,
            }
        )
    return rows


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given.

    A comparison is significant at 5 % over the whole family when its adjusted value is
    below 0.05; the chance of any false claim in the family stays at most 5 %.

    Examples:
        >>> holm([0.01, 0.04, 0.03])
        [0.03, 0.06, 0.06]
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def rounded(data: Any, digits: int = 6) -> Any:
    """``data`` with every float rounded to ``digits`` significant digits (for JSON files)."""
    if isinstance(data, float):
        return float(f"{data:.{digits}g}")
    if isinstance(data, dict):
        return {k: rounded(v, digits) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [rounded(v, digits) for v in data]
    return data


def describe(
    config: RuleConfig, num_players: int, bots: Sequence[str], seed: int
) -> dict[str, Any]:
    """What an analysis was run on: the rules, the seats, the bots, the seed."""
    return {
        "preset": preset_id_of(config),
        "config": config.to_dict(complete=True),
        "config_fingerprint": config.fingerprint,
        "players": num_players,
        "bots": list(bots),
        "seed": seed,
        "rounds_per_game": ROUNDS,
    }
