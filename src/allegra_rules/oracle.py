"""The oracle: a bot that sees every card, the yardstick of the ladder (for measurement only).

[`OracleBot`][allegra_rules.oracle.OracleBot] reads the whole state, not a seat's view:
every face-down card and the draw pile in its order. So it cheats, on purpose: it bounds
what a bot could reach, and the docs page "How strong are the bots" says what share of the
gap between GreedyBot and the oracle each bot closes. It is not a player: it is kept out of
the bot registry ([`BOT_KINDS`][allegra_rules.bot_kinds.BOT_KINDS]), so the command line,
the server and the pages never offer it, and nothing but a benchmark builds one.

How it decides (one decision, for the seat to act):

1. The candidates are GreedyBot's ``candidates`` best legal moves (in the knock window,
   both answers).
2. Each of ``playouts`` playouts plays every candidate from the true state, then GreedyBot
   at every seat for ``HORIZON`` turns a player or to the round's end, with the same tie
   seeds for every candidate. The draws are the true draw pile's: a playout differs from
   another only by GreedyBot's ties.
3. A playout is scored by the seat's margin (the others' mean minus its own) from the true
   zone sums, face-down cards at their value, or from the round's exact scores when the
   round ended in it. The best mean margin is played; a tie goes to GreedyBot's order.

Examples:
    >>> from allegra_rules import new_game, legal_actions
    >>> state = new_game(2, seed=4)
    >>> OracleBot(1, playouts=2).choose(state) in legal_actions(state)
    True
"""

from __future__ import annotations

import random

from allegra_rules.actions import Action, Knock, Pass
from allegra_rules.bots import GreedyBot, SeatEstimate
from allegra_rules.scoring import zone_sums
from allegra_rules.search import play_on
from allegra_rules.state import GameState, Phase
from allegra_rules.transitions import apply, legal_actions
from allegra_rules.views import observe

__all__ = ["OracleBot"]


class OracleBot:
    """Plays with every card in sight: a playout search on the true state (measurement only).

    Args:
        seed: seeds the bot's own ``random.Random`` (the playouts' tie seeds).
        playouts: playouts per decision (each plays every candidate). The draws of a
            playout are the true draw pile's, so playouts differ only where GreedyBot
            breaks a tie: two are about as good as many.
        candidates: GreedyBot's best moves compared (at least 1).

    Raises:
        ValueError: a seed, ``playouts`` or ``candidates`` that is not a positive int (a
            seed may be 0 or negative).
    """

    HORIZON = 6
    """Turns per player a playout looks ahead (unless the round ends first)."""

    def __init__(self, seed: int = 0, *, playouts: int = 2, candidates: int = 6) -> None:
        if type(seed) is not int:
            raise ValueError(f"a bot's seed must be an int; got {type(seed).__name__}")
        for name, value in (("playouts", playouts), ("candidates", candidates)):
            if type(value) is not int or value < 1:
                raise ValueError(f"{name} must be an int of 1 or more; got {value!r}")
        self.seed = seed
        self.playouts = playouts
        self.candidates = candidates
        self._rng = random.Random(seed)

    def __repr__(self) -> str:
        return (
            f"OracleBot(seed={self.seed}, playouts={self.playouts}, candidates={self.candidates})"
        )

    def choose(self, state: GameState) -> Action:
        """The best legal action of ``state`` by playouts from the true state.

        Raises:
            ValueError: ``state`` is not a ``GameState``, or it is terminal.
        """
        if not isinstance(state, GameState):
            raise ValueError(f"state must be a GameState; got {type(state).__name__}")
        legal = legal_actions(state)
        if not legal:
            raise ValueError("the game is over: there is no action to choose")
        rng = random.Random(self._rng.getrandbits(64))
        if len(legal) == 1:
            return legal[0]
        seat = state.current_player
        assert seat is not None
        candidates = self._candidates(state, seat, legal)
        if len(candidates) == 1:
            return candidates[0]
        totals = [0.0] * len(candidates)
        for _ in range(self.playouts):
            seeds = [rng.getrandbits(32) for _ in range(state.num_players)]
            for k, action in enumerate(candidates):
                totals[k] += _playout(apply(state, action), seat, seeds, self.HORIZON)
        best = max(range(len(candidates)), key=lambda k: (totals[k], -k))
        return candidates[best]

    def _candidates(self, state: GameState, seat: int, legal: tuple[Action, ...]) -> list[Action]:
        if state.phase is Phase.KNOCK:
            return [Pass(), Knock()] if Knock() in legal else list(legal)
        if len(legal) <= self.candidates:
            return list(legal)
        greedy = GreedyBot(0)
        look = SeatEstimate.from_view(observe(state, seat))
        scores = [greedy.score(look, state, action) for action in legal]
        order = sorted(range(len(legal)), key=lambda k: -scores[k])
        return [legal[k] for k in order[: self.candidates]]


def _playout(state: GameState, seat: int, seeds: list[int], horizon: int) -> float:
    """GreedyBot at every seat for ``horizon`` turns a player; the seat's true margin."""
    start_round = state.round
    state = play_on(state, seeds, horizon)
    if state.round != start_round or state.is_terminal:
        last = state.last_round
        assert last is not None
        sums = [float(x) for x in last.scores]
    else:
        sums = [float(x) for x in zone_sums(state.geometry, state.cells)]
    others = [s for q, s in enumerate(sums) if q != seat]
    return sum(others) / len(others) - sums[seat]
