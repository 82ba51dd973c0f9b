"""Simple computer players.

Public names:

* :class:`Bot`: the protocol every player follows, ``choose(state) -> Action``.
* :class:`RandomBot`: picks uniformly among the legal actions.
* :class:`GreedyBot`: a one-step heuristic that only uses what its seat may see.

A bot is asked only when its seat is ``state.current_player`` and always answers
with one of ``legal_actions(state)``. Each bot owns a :class:`random.Random` seeded
at construction (the global generator is never touched), so a bot built with the
same seed makes the same choices in the same game.

>>> from allegra_rules import new_game, apply, legal_actions
>>> state = new_game(3, seed=5)
>>> bots = [GreedyBot(seed) for seed in range(3)]
>>> while not state.is_terminal:
...     seat = state.current_player
...     state = apply(state, bots[seat].choose(state))
>>> len(state.round_scores)
3
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Protocol, runtime_checkable

from allegra_rules.actions import (
    Action,
    Discard,
    DrawDeck,
    DrawDiscard,
    Give,
    Knock,
    Pass,
    Reveal,
    Swap,
    Take,
)
from allegra_rules.state import GameState, Phase
from allegra_rules.transitions import legal_actions

__all__ = ["Bot", "GreedyBot", "RandomBot"]

_TIE = 1e-9


@runtime_checkable
class Bot(Protocol):
    """A player: given a state where it is to act, it picks one legal action."""

    def choose(self, state: GameState) -> Action:
        """One of ``legal_actions(state)`` for ``state.current_player``.

        Args:
            state: a non-terminal state where this bot's seat is to act.

        Returns:
            A legal action of ``state``.
        """
        ...


def _check_seed(seed: object) -> int:
    if type(seed) is not int:
        raise ValueError(f"a bot's seed must be an int; got {type(seed).__name__}")
    return seed


def _legal_or_raise(state: GameState) -> tuple[Action, ...]:
    legal = legal_actions(state)
    if not legal:
        raise ValueError("the game is over: there is no action to choose")
    return legal


class RandomBot:
    """Chooses uniformly at random among the legal actions.

    Args:
        seed: seeds the bot's own :class:`random.Random`.

    >>> from allegra_rules import new_game, legal_actions
    >>> state = new_game(2, seed=1)
    >>> RandomBot(3).choose(state) == RandomBot(3).choose(state)
    True
    """

    def __init__(self, seed: int = 0) -> None:
        self.seed = _check_seed(seed)
        self._rng = random.Random(seed)

    def __repr__(self) -> str:
        return f"RandomBot(seed={self.seed})"

    def choose(self, state: GameState) -> Action:
        """A uniformly random legal action of ``state``.

        Raises:
            ValueError: ``state`` is terminal.
        """
        return self._rng.choice(_legal_or_raise(state))


class _View:
    """What seat ``seat`` knows of a state, and the card arithmetic of GreedyBot.

    Built only from public information: face-up cards, gaps, which cells are face
    down, the discard pile and the cards out of play, and the held card (always
    visible to the seat that is asked to act). A face-down card counts as the mean
    of the cards this seat has not seen (which are exactly the face-down cards, the
    draw pile and any hand card, as a multiset).
    """

    def __init__(self, state: GameState, seat: int) -> None:
        config = state.config
        geo = state.geometry
        self.state = state
        self.seat = seat
        self.geo = geo
        self.adjacent = config.row_match == "adjacent"
        face_down = state.face_down
        known: list[int | None] = []
        hidden: list[bool] = []
        seen: Counter[int] = Counter()
        for i, value in enumerate(state.cells):
            down = value is not None and bool(face_down >> i & 1)
            hidden.append(down)
            if value is None or down:
                known.append(None)
            else:
                known.append(value)
                seen[value] += 1
        seen.update(state.discard_pile)
        seen.update(state.out_of_play)
        if state.held is not None:
            seen[state.held] += 1
        unseen = Counter(config.deck_cards()) - seen
        if not unseen:
            unseen = Counter(config.deck_cards())
        total = sum(unseen.values())
        self.dist = [(value, count / total) for value, count in sorted(unseen.items())]
        self.mean = sum(value * p for value, p in self.dist)
        self.known = known
        self.hidden = hidden
        self.est = [
            float(k) if k is not None else (self.mean if h else 0.0)
            for k, h in zip(known, hidden, strict=True)
        ]
        self.my_zone = geo.zone_set[seat]
        self.sums = [sum(self.est[i] for i in geo.zone[q]) for q in range(state.num_players)]
        self.my_sum = self.sums[seat]
        others = [s for q, s in enumerate(self.sums) if q != seat]
        self.best_other = min(others)
        masks = geo.own_masks if config.round_end == "own_grid" else geo.zone_masks
        self.end_mask = masks[seat]
        self.down_left = bin(face_down & self.end_mask).count("1")
        self.may_end = state.ender is None and state.phase is not Phase.SETUP
        self.doubles_nonpositive = config.double_nonpositive == "yes"
        self._swap_area = geo.zone[seat] if config.swap_area == "zone" else geo.own[seat]
        self._reveal_area = geo.zone[seat] if config.reveal_area == "zone" else geo.own[seat]

    # -------------------------------------------------------------- arithmetic

    def removed_by(self, value: int, i: int) -> set[int]:
        """Cells that a face-up ``value`` at cell ``i`` would remove as triples."""
        known = self.known
        out: set[int] = set()
        for line in self.geo.lines_through[i]:
            if self.adjacent:
                k = line.index(i)
                lo = k
                while lo > 0 and known[line[lo - 1]] == value:
                    lo -= 1
                hi = k
                while hi < len(line) - 1 and known[line[hi + 1]] == value:
                    hi += 1
                if hi - lo >= 2:
                    out.update(line[lo : hi + 1])
            else:
                same = [j for j in line if j == i or known[j] == value]
                if len(same) >= 3:
                    out.update(same)
        return out

    def place_gain(self, value: float, i: int, exact: bool = True) -> float:
        """How much lower this seat's zone sum gets when ``value`` goes face up at ``i``."""
        gain = self.est[i] - value if i in self.my_zone else 0.0
        if exact:
            v = int(value)
            for j in self.removed_by(v, i):
                if j in self.my_zone:
                    gain += v if j == i else self.est[j]
        return gain

    def end_value(self, i: int | None, gain: float) -> float:
        """Bonus (or doubling risk) when a face-up card at ``i`` would end the round."""
        if not self.may_end or self.down_left == 0:
            return 0.0
        flips = i is not None and self.hidden[i] and bool(self.end_mask >> i & 1)
        if self.down_left - flips > 0:
            return 0.0
        mine = self.my_sum - gain
        if mine <= self.best_other - 3:
            return 1.0
        extra = mine if (mine > 0 or self.doubles_nonpositive) else 0.0
        weight = 1.0 if mine >= self.best_other else 0.5
        return -weight * extra

    def place_score(self, value: int, i: int) -> float:
        """``place_gain`` plus the round-end bonus or risk of that placement."""
        gain = self.place_gain(value, i)
        return gain + self.end_value(i, gain)

    def swap_targets(self, exclude: int | None = None) -> list[int]:
        """Cells of this seat's swap area that hold a card."""
        cells = self.state.cells
        return [i for i in self._swap_area if cells[i] is not None and i != exclude]

    def best_place(self, value: int, exclude: int | None = None) -> float:
        """The best ``place_score`` of ``value`` over the swap area."""
        targets = self.swap_targets(exclude)
        return max((self.place_score(value, i) for i in targets), default=0.0)

    def reveal_score(self, i: int) -> float:
        """Expected gain of turning up the face-down card at ``i`` (triples it may make)."""
        expected = sum(p * self.place_gain(value, i) for value, p in self.dist)
        return expected + self.end_value(i, expected)

    def flip_value(self) -> float:
        """The value of discarding and then making the best reveal."""
        candidates = [i for i in self._reveal_area if self.hidden[i]]
        return max((self.reveal_score(i) for i in candidates), default=0.0)


class GreedyBot:
    """A fast one-step heuristic that plays only on what its seat may see.

    Every face-down card (its own included) counts as the mean of the cards the
    seat has not seen yet; the draw pile's order is never read. Each legal action
    gets a score, the expected drop of the seat's own zone sum, and the best one is
    played (ties are broken by the bot's own seeded generator):

    * a card placed at a cell gains the old card's value (or the unseen mean) minus
      its own, plus every card of the seat's zone a triple it completes removes;
    * a placement that would end the round earns a small bonus when the seat's sum
      is clearly the lowest, and costs the doubling risk otherwise;
    * drawing from the discard pile is chosen when its top's best placement beats
      the expected best use of an unseen card from the draw pile;
    * as an asked player it knocks when the drawn card is 2 or less and it shows a
      face-up 8 or more in its swap area;
    * as a drawer it gives the card to a knocker only when the knocker's area shows
      a face-up card more than 2 points better for it than the drawn card.

    Args:
        seed: seeds the bot's own :class:`random.Random` (used for ties only).

    >>> from allegra_rules import DrawDiscard, new_game, legal_actions, apply
    >>> bot = GreedyBot(0)
    >>> state = new_game(3, seed=1)
    >>> while state.phase.value == "setup":
    ...     state = apply(state, bot.choose(state))
    >>> bot.choose(state) in legal_actions(state)
    True
    """

    KNOCK_AT_MOST = 2
    """GreedyBot knocks only for a drawn card of this value or lower."""
    KNOCK_HIGH_CARD = 8
    """... and only when it shows a face-up card of this value or higher."""
    GIVE_MARGIN = 2.5
    """How much better (in points) a knocker's card must be before GreedyBot gives."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = _check_seed(seed)
        self._rng = random.Random(seed)

    def __repr__(self) -> str:
        return f"GreedyBot(seed={self.seed})"

    def choose(self, state: GameState) -> Action:
        """The legal action of ``state`` with the best heuristic score.

        Raises:
            ValueError: ``state`` is terminal.
        """
        legal = _legal_or_raise(state)
        if len(legal) == 1:
            return legal[0]
        seat = state.current_player
        assert seat is not None
        view = _View(state, seat)
        scores = [self._score(view, state, action) for action in legal]
        best = max(scores)
        ties = [a for a, s in zip(legal, scores, strict=True) if s >= best - _TIE]
        return ties[0] if len(ties) == 1 else self._rng.choice(ties)

    # ------------------------------------------------------------------ scoring

    def _score(self, view: _View, state: GameState, action: Action) -> float:
        if isinstance(action, Reveal):
            return view.reveal_score(action.pos.index)
        if isinstance(action, DrawDiscard):
            top = state.discard_top
            assert top is not None
            best = view.best_place(top)
            if state.config.discard_draw == "may_discard":
                best = max(best, view.flip_value())
            return best
        if isinstance(action, DrawDeck):
            flip = view.flip_value()
            return sum(p * max(view.best_place(value), flip) for value, p in view.dist)
        if isinstance(action, Knock):
            return 1.0 if self._wants_to_knock(view, state) else -1.0
        if isinstance(action, Pass):
            return 0.0
        if isinstance(action, Swap):
            held = state.held
            assert held is not None
            return view.place_score(held, action.pos.index)
        if isinstance(action, Discard):
            return view.flip_value()
        if isinstance(action, Give):
            return self._give_score(view, state, action.player)
        assert isinstance(action, Take)
        return self._take_score(view, action.pos.index)

    def _wants_to_knock(self, view: _View, state: GameState) -> bool:
        held = state.held
        assert held is not None
        if held > self.KNOCK_AT_MOST:
            return False
        shown = [view.known[i] for i in view.swap_targets()]
        return any(v is not None and v >= self.KNOCK_HIGH_CARD for v in shown)

    def _give_score(self, view: _View, state: GameState, knocker: int) -> float:
        geo = view.geo
        area = geo.zone[knocker] if state.config.take_area == "zone" else geo.own[knocker]
        values = {v for i in area if (v := view.known[i]) is not None and i not in view.my_zone}
        best = max((view.best_place(v) for v in values), default=float("-inf"))
        return best - self.GIVE_MARGIN

    def _take_score(self, view: _View, t: int) -> float:
        value = view.known[t]
        if value is None:
            # A face-down card: worth the unseen mean, no triple can be planned with it.
            targets = view.swap_targets(exclude=t)
            return max((view.place_gain(view.mean, i, exact=False) for i in targets), default=0.0)
        score = view.best_place(value, exclude=t)
        if t in view.my_zone:
            # The hole is filled with the knocker's hand card, unseen by this seat.
            score += value - view.mean
        return score
