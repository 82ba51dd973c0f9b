"""A search bot: determinized Monte-Carlo look-ahead over what its seat cannot see.

Public names:

* [`SearchBot`][allegra_rules.search.SearchBot]: the bot,
  ``SearchBot(seed=0, *, simulations=None, time_limit=None, candidates=None)``.
* [`SEARCH_LEVELS`][allegra_rules.search.SEARCH_LEVELS]: the named levels (easy, medium,
  hard), each a number of simulations, and
  [`SEARCH_LEVEL_CANDIDATES`][allegra_rules.search.SEARCH_LEVEL_CANDIDATES], each level's
  number of candidate moves.
* [`search_level`][allegra_rules.search.search_level]: a level's bot from its name.
* [`SearchGuide`][allegra_rules.search.SearchGuide]: what may guide the search instead of
  GreedyBot (a learned policy: [`PolicyBot`][allegra_rules.policy.PolicyBot]), and
  [`GUIDED_LEVEL`][allegra_rules.search.GUIDED_LEVEL], the guided level's budget
  ([`guided_level`][allegra_rules.search.guided_level] builds it for a guide).

How it decides (one decision, for the seat to act):

1. It looks at the seat's view only, ``observe(state, seat)``.
2. It draws a full state consistent with that view
   ([`determinize`][allegra_rules.determinize.determinize]) and ranks the legal actions there
   with [`GreedyBot`][allegra_rules.bots.GreedyBot]'s one-step heuristic, keeping the best
   ``candidates`` (three unless told; in the knock window: both answers).
3. Each simulation draws another such state and plays every candidate in it, then plays on
   with GreedyBot at every seat for ``HORIZON`` turns per player (or to the round's end).
   Every candidate sees the same sampled cards and the same later draws, so their
   differences are not drowned by the luck of the draw.
4. A playout is scored by the seat's margin: the other seats' mean zone sum minus its own,
   face-down cards counted as the mean of the cards the seat has not seen (the exact round
   scores, doubling included, when the round ended during the playout).
5. The candidate with the best mean margin is played; a tie goes to GreedyBot's order.

With a ``guide`` (a [`SearchGuide`][allegra_rules.search.SearchGuide]), the guide takes
GreedyBot's two roles: the candidates are the guide's most probable moves, and every seat of
a playout plays the guide's most probable move (ties broken by that seat's seeded generator).
The rest is unchanged.

With a ``value`` (a [`SearchValue`][allegra_rules.search.SearchValue]: a learned value,
[`PolicyBot.value`][allegra_rules.policy.PolicyBot.value] of weights with value heads), a
playout stops at the seat's next turn, one turn a player, and the value of that position
from the seat's view is its score instead of the estimated sums (turned into points, so
that a playout that ended the round, scored exactly, compares with the others).

Rollouts to the round's end were tried and lose: a rollout's margin varies by more than
a dozen points where the actions differ by one to three. The short horizon and the
estimated sums keep that noise small.

Examples:
    >>> from allegra_rules import new_game, apply, legal_actions
    >>> state = new_game(2, seed=4)
    >>> bot = SearchBot(1, simulations=2)
    >>> bot.choose(state) in legal_actions(state)
    True
"""

from __future__ import annotations

import functools
import math
import random
import time
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from allegra_rules.actions import Action, Knock, Pass
from allegra_rules.bots import GreedyBot, SeatEstimate
from allegra_rules.determinize import determinize
from allegra_rules.features import round_score_bounds
from allegra_rules.state import GameState, Phase
from allegra_rules.transitions import ROUNDS, apply, legal_actions
from allegra_rules.views import PlayerView, observe

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_TIME_LIMIT",
    "GUIDED_LEVEL",
    "SEARCH_LEVELS",
    "SEARCH_LEVEL_CANDIDATES",
    "SearchBot",
    "SearchGuide",
    "SearchValue",
    "guided_level",
    "level_constructor",
    "play_on",
    "search_level",
]

SEARCH_LEVELS: dict[str, int] = {"easy": 16, "medium": 64, "hard": 128}
"""The named levels, each a number of simulations per decision.

``medium`` is the default level (``SearchBot()`` with no budget). The docs page "How strong
are the bots" gives each level's measured strength and time per move.
"""

SEARCH_LEVEL_CANDIDATES: dict[str, int] = {"easy": 3, "medium": 3, "hard": 6}
"""Each named level's number of candidate moves (GreedyBot's best, searched each simulation).

The hard level searches twice as many moves as the others, with twice the simulations of
the default level: it won 65 % of 106 heads-up games against the default level (95 %
interval 56-73 %; the docs page "How strong are the bots"). Either change alone, 128
simulations of three candidates or 64 of six, measured about even with the default.
"""

DEFAULT_LEVEL = "medium"
"""The level ``SearchBot`` plays when given no budget."""

DEFAULT_TIME_LIMIT = 0.45
"""Seconds a move at most for ``SearchBot()`` with no budget (its default level, capped)."""

GUIDED_LEVEL: tuple[int, int] = (22, 3)
"""The guided level's simulations and candidates (``search-guided`` with the shipped policy).

A guided playout move costs more than GreedyBot's (the guide encodes the seat's view,
scores the legal moves as GreedyBot does for the greedy hint and runs its network), so the
guided level runs fewer simulations than the default level's 64, to spend no more time a
move heads-up: with the shipped weights, 22 simulations took 0.97 times the default
level's time a move over 200 games (24 took 1.04 times, 40 took 1.75 times, side by side on
the same positions). The docs page "How strong are the bots" gives its measured strength
and time.
"""

_MAX_PLAYOUT_STEPS = 400
"""A bound on a playout's actions (a horizon of two turns per player needs far fewer)."""


_MAX_CANDIDATES = 64
"""The most candidate moves a search may keep (a decision has at most about 60 legal ones)."""


def _check_candidates(candidates: object) -> int:
    if candidates is None:
        return SearchBot.CANDIDATES
    if type(candidates) is not int or not 1 <= candidates <= _MAX_CANDIDATES:
        raise ValueError(
            f"candidates must be None or an int from 1 to {_MAX_CANDIDATES}; got {candidates!r}"
        )
    return candidates


def _check_budget(simulations: object, time_limit: object) -> tuple[int | None, float | None]:
    sims: int | None = None
    if simulations is not None:
        if type(simulations) is not int or not 1 <= simulations <= 1_000_000:
            raise ValueError(
                f"simulations must be None or an int from 1 to 1000000; got {simulations!r}"
            )
        sims = simulations
    limit: float | None = None
    if time_limit is not None:
        if type(time_limit) not in (int, float):
            raise ValueError(
                f"time_limit must be None or a number of seconds; got {type(time_limit).__name__}"
            )
        limit = float(time_limit)  # type: ignore[arg-type]
        if not (math.isfinite(limit) and 0 < limit <= 3600):
            raise ValueError(
                f"time_limit must be None or a number of seconds above 0, at most 3600; "
                f"got {time_limit!r}"
            )
    return sims, limit


@runtime_checkable
class SearchGuide(Protocol):
    """What can guide a search: a probability for each legal move, from the seat's view.

    [`PolicyBot`][allegra_rules.policy.PolicyBot] is one. A guide must read nothing of the
    state but ``observe(state, state.current_player)``, and answer the same for the same view
    (the search relies on it: it asks the guide about sampled states).
    """

    def action_probabilities(self, state: GameState) -> dict[Action, float]:
        """Each legal action of ``state`` (for ``state.current_player``) and its probability.

        Args:
            state: a non-terminal state.

        Returns:
            Every action of ``legal_actions(state)`` with a probability (they sum to 1).
        """
        ...


@runtime_checkable
class SearchValue(Protocol):
    """What can score a search's positions: a learned value, from the seat's view alone.

    [`PolicyBot`][allegra_rules.policy.PolicyBot] with value heads is one. Like a guide,
    it must read nothing of the state but ``observe(state, state.current_player)``.
    """

    def value(self, state: GameState) -> Any:
        """The value of ``state`` for ``state.current_player``.

        Returns:
            An object whose ``margin`` is the seat's round reward less the others' mean at
            the round's end, in the engine's scaled rewards (above 0: it ends ahead).
        """
        ...


class SearchBot:
    """A determinized Monte-Carlo search over the states its seat cannot tell apart.

    It reads nothing of the state but the seat's view
    (``observe(state, state.current_player)``): two states that look the same to the seat
    get the same move for the same seed and budget. See the module's description for the
    method; the docs page "How strong are the bots" for its measured strength.

    Args:
        seed: seeds the bot's own ``random.Random`` (the samples and the playouts).
        simulations: the number of sampled states per decision (each plays every
            candidate); deterministic for a given seed and view.
        time_limit: seconds per decision: the search stops when the next simulation
            would not fit, and answers within that time (at least one simulation is
            always run when there is a choice; a very small limit therefore may be
            exceeded by one simulation's time, about a millisecond).
        candidates: how many of GreedyBot's best moves each simulation plays (None:
            ``CANDIDATES``, three). Each costs a playout per simulation; the hard level
            searches six.
        guide: a [`SearchGuide`][allegra_rules.search.SearchGuide] that replaces GreedyBot:
            the candidates are its most probable moves and the playouts play its most
            probable move at every seat (None: GreedyBot, as the named levels do).

    With neither budget it plays its default level: ``SEARCH_LEVELS["medium"]``
    simulations, but never more than ``DEFAULT_TIME_LIMIT`` seconds a move (on a fast
    idle core the simulations end first; on a slow or busy one the time does, and the
    moves then depend on the machine). The named levels
    ([`search_level`][allegra_rules.search.search_level], the ``search`` bot names) have
    no time cap, so they play the same on every machine. With both budgets it stops at
    whichever comes first.

    Raises:
        ValueError: ``seed`` is not an int, ``simulations`` is not an int from 1 to
            1000000, ``time_limit`` is not a finite number of seconds in (0, 3600],
            ``candidates`` is not an int from 1 to 64, or ``guide`` has no
            ``action_probabilities`` method.

    Examples:
        >>> from allegra_rules import new_game
        >>> state = new_game(3, seed=2)
        >>> SearchBot(5, simulations=3).choose(state) == SearchBot(5, simulations=3).choose(state)
        True
    """

    CANDIDATES = 3
    """How many of GreedyBot's best actions are searched, unless ``candidates`` says."""
    HORIZON = 2
    """Turns per player that a playout lasts (unless the round ends first)."""

    def __init__(
        self,
        seed: int = 0,
        *,
        simulations: int | None = None,
        time_limit: float | None = None,
        candidates: int | None = None,
        guide: SearchGuide | None = None,
        value: SearchValue | None = None,
    ) -> None:
        if type(seed) is not int:
            raise ValueError(f"a bot's seed must be an int; got {type(seed).__name__}")
        sims, limit = _check_budget(simulations, time_limit)
        width = _check_candidates(candidates)
        if guide is not None and not isinstance(guide, SearchGuide):
            raise ValueError(
                f"guide must be None or have an action_probabilities method; got {guide!r}"
            )
        if value is not None and not isinstance(value, SearchValue):
            raise ValueError(f"value must be None or have a value method; got {value!r}")
        self.guide = guide
        self.value = value
        self.seed = seed
        self.simulations = sims
        self.time_limit = limit
        self.candidates = width
        self._budget = sims
        self._limit = limit
        if sims is None and limit is None:
            self._budget = SEARCH_LEVELS[DEFAULT_LEVEL]
            self._limit = DEFAULT_TIME_LIMIT
        self._rng = random.Random(seed)

    def __repr__(self) -> str:
        parts = [f"seed={self.seed}"]
        if self.simulations is not None:
            parts.append(f"simulations={self.simulations}")
        if self.time_limit is not None:
            parts.append(f"time_limit={self.time_limit}")
        if self.candidates != self.CANDIDATES:
            parts.append(f"candidates={self.candidates}")
        if self.guide is not None:
            parts.append(f"guide={self.guide!r}")
        if self.value is not None:
            parts.append(f"value={self.value!r}")
        return f"SearchBot({', '.join(parts)})"

    def choose(self, state: GameState) -> Action:
        """The searched best legal action of ``state`` for ``state.current_player``.

        Raises:
            ValueError: ``state`` is not a ``GameState``, or it is terminal.
        """
        if not isinstance(state, GameState):
            raise ValueError(f"state must be a GameState; got {type(state).__name__}")
        start = time.perf_counter()
        legal = legal_actions(state)
        if not legal:
            raise ValueError("the game is over: there is no action to choose")
        # One draw of the bot's generator per decision, whatever the budget used.
        rng = random.Random(self._rng.getrandbits(64))
        if len(legal) == 1:
            return legal[0]
        seat = state.current_player
        assert seat is not None
        view = observe(state, seat)
        return self._search(view, seat, rng, start)

    # ------------------------------------------------------------------ search

    def _search(self, view: PlayerView, seat: int, rng: random.Random, start: float) -> Action:
        first = determinize(view, rng)
        guide = self.guide
        if guide is None:
            candidates = _candidates(first, view, seat, self.candidates, rng)
        else:
            candidates = _guided_candidates(first, guide, self.candidates)
        if len(candidates) == 1:
            return candidates[0]
        totals = [0.0] * len(candidates)
        limit = self._limit
        deadline = start + limit if limit is not None else math.inf
        budget = self._budget
        done = 0
        sample = first
        slowest = 0.0
        while True:
            began = time.perf_counter()
            seeds = [rng.getrandbits(32) for _ in range(view.num_players)]
            for k, action in enumerate(candidates):
                after = apply(sample, action)
                if self.value is None:
                    totals[k] += _playout(after, seat, seeds, self.HORIZON, guide)
                else:
                    totals[k] += _valued(after, seat, seeds, guide, self.value)
            done += 1
            now = time.perf_counter()
            slowest = max(slowest, now - began)
            if budget is not None and done >= budget:
                break
            if now + slowest > deadline:
                break
            sample = determinize(view, rng)
        best = max(range(len(candidates)), key=lambda k: (totals[k], -k))
        return candidates[best]


def _candidates(
    sample: GameState, view: PlayerView, seat: int, count: int, rng: random.Random
) -> list[Action]:
    """GreedyBot's ``count`` best legal actions in ``sample``.

    GreedyBot's scores read only what ``view`` shows, so any sample of it gives the same.
    """
    legal = legal_actions(sample)
    if sample.phase is Phase.KNOCK:
        return [Pass(), Knock()] if Knock() in legal else list(legal)
    if len(legal) <= count:
        return list(legal)
    greedy = GreedyBot(0)
    look = SeatEstimate.from_view(view)
    scores = [greedy.score(look, sample, action) for action in legal]
    order = sorted(range(len(legal)), key=lambda k: -scores[k])
    return [legal[k] for k in order[:count]]


def _guided_candidates(sample: GameState, guide: SearchGuide, count: int) -> list[Action]:
    """The guide's ``count`` most probable legal actions in ``sample`` (ties: legal order).

    The guide reads only the seat's view, so any sample of it gives the same.
    """
    legal = legal_actions(sample)
    if sample.phase is Phase.KNOCK:
        return [Pass(), Knock()] if Knock() in legal else list(legal)
    if len(legal) <= count:
        return list(legal)
    probabilities = guide.action_probabilities(sample)
    order = sorted(range(len(legal)), key=lambda k: -probabilities[legal[k]])
    return [legal[k] for k in order[:count]]


class _GuidedPlayer:
    """A playout's seat led by a guide: its most probable move, ties by a seeded draw."""

    def __init__(self, guide: SearchGuide, seed: int) -> None:
        self._guide = guide
        self._rng = random.Random(seed)

    def choose(self, state: GameState) -> Action:
        probabilities = self._guide.action_probabilities(state)
        if len(probabilities) == 1:
            return next(iter(probabilities))
        best = max(probabilities.values())
        ties = [a for a, p in probabilities.items() if p >= best]
        return ties[0] if len(ties) == 1 else self._rng.choice(ties)


def _playout(
    state: GameState,
    seat: int,
    seeds: list[int],
    horizon: int,
    guide: SearchGuide | None = None,
) -> float:
    """Play ``horizon`` turns per player (GreedyBot or the guide); the seat's margin at the end."""
    start_round = state.round
    state = play_on(state, seeds, horizon, guide)
    if state.round != start_round or state.is_terminal:
        last = state.last_round
        assert last is not None
        return _margin([float(x) for x in last.scores], seat)
    look = SeatEstimate.from_view(observe(state, seat))
    return _margin(look.sums, seat)


def play_on(
    state: GameState, seeds: list[int], horizon: int, guide: SearchGuide | None = None
) -> GameState:
    """``state`` played on for ``horizon`` turns per player, or to the round's end.

    Every seat plays GreedyBot (seeded by ``seeds``, one a seat) or, with ``guide``, the
    guide's most probable move: a playout of the search (and of the oracle).
    """
    start_round = state.round
    turns = state.turns_played + horizon * state.num_players
    bots: list[GreedyBot] | list[_GuidedPlayer] = (
        [GreedyBot(s) for s in seeds] if guide is None else [_GuidedPlayer(guide, s) for s in seeds]
    )
    for _ in range(_MAX_PLAYOUT_STEPS):
        if state.is_terminal or state.round != start_round:
            break
        if state.phase is Phase.DRAW and state.turns_played >= turns:
            break
        player = state.current_player
        assert player is not None
        state = apply(state, bots[player].choose(state))
    return state


def _valued(
    state: GameState, seat: int, seeds: list[int], guide: SearchGuide | None, value: SearchValue
) -> float:
    """Play on to the seat's next turn (GreedyBot or the guide); the value there, in points.

    A round that ends first is scored exactly, as in a playout.
    """
    start_round = state.round
    bots: list[GreedyBot] | list[_GuidedPlayer] = (
        [GreedyBot(s) for s in seeds] if guide is None else [_GuidedPlayer(guide, s) for s in seeds]
    )
    for _ in range(_MAX_PLAYOUT_STEPS):
        if state.is_terminal or state.round != start_round:
            last = state.last_round
            assert last is not None
            return _margin([float(x) for x in last.scores], seat)
        player = state.current_player
        assert player is not None
        if player == seat and state.phase is Phase.DRAW:
            break
        state = apply(state, bots[player].choose(state))
    low, high = round_score_bounds(state.config)
    # The scaled reward of a round score s is -(s - mid) / (high - low) * 2 / ROUNDS.
    return float(value.value(state).margin) * ROUNDS * (high - low) / 2


def _margin(sums: list[float], seat: int) -> float:
    """The others' mean minus the seat's own (positive: the seat is ahead)."""
    others = [s for q, s in enumerate(sums) if q != seat]
    return sum(others) / len(others) - sums[seat]


def search_level(name: str, seed: int = 0) -> SearchBot:
    """The bot of a named level of [`SEARCH_LEVELS`][allegra_rules.search.SEARCH_LEVELS].

    Raises:
        ValueError: ``name`` is not a level.

    Examples:
        >>> search_level("hard", 3)
        SearchBot(seed=3, simulations=128, candidates=6)
    """
    if not isinstance(name, str) or name not in SEARCH_LEVELS:
        raise ValueError(f"unknown search level {name!r}; levels: {', '.join(SEARCH_LEVELS)}")
    return SearchBot(
        seed, simulations=SEARCH_LEVELS[name], candidates=SEARCH_LEVEL_CANDIDATES[name]
    )


def guided_level(guide: SearchGuide, seed: int = 0) -> SearchBot:
    """The guided level's bot: the budget of [`GUIDED_LEVEL`][allegra_rules.search.GUIDED_LEVEL].

    Its candidates and playouts come from ``guide``.

    ``search-guided`` (the bot name) is this level with the shipped policy
    ([`guided_search`][allegra_rules.policy.guided_search]).

    Raises:
        ValueError: ``guide`` is not a [`SearchGuide`][allegra_rules.search.SearchGuide].
    """
    simulations, candidates = GUIDED_LEVEL
    return SearchBot(seed, simulations=simulations, candidates=candidates, guide=guide)


def level_constructor(name: str) -> Callable[[int], SearchBot]:
    """A constructor taking a seed, for a named level (for bot registries).

    It can be pickled (a ``functools.partial`` of
    [`search_level`][allegra_rules.search.search_level]), so worker processes can build it.

    Raises:
        ValueError: ``name`` is not a level.
    """
    search_level(name)  # checks the name
    return functools.partial(search_level, name)
