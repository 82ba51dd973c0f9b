"""Simple computer players.

Public names:

* [`Bot`][allegra_rules.bots.Bot]: the protocol every player follows, ``choose(state) -> Action``.
* [`RandomBot`][allegra_rules.bots.RandomBot]: picks uniformly among the legal actions.
* [`GreedyBot`][allegra_rules.bots.GreedyBot]: a one-step heuristic that only uses what its seat may
  see.
* [`SeatEstimate`][allegra_rules.bots.SeatEstimate]: what one seat's view says about the cards,
  as GreedyBot (and the search's playouts) estimate them;
  [`deck_multiset`][allegra_rules.bots.deck_multiset] is the deck it counts from.

A bot is asked only when its seat is ``state.current_player`` and always answers
with one of ``legal_actions(state)``. Each bot owns a ``random.Random`` seeded
at construction (the global generator is never touched), so a bot built with the
same seed makes the same choices in the same game.

Examples:
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

import functools
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
from allegra_rules.config import RuleConfig
from allegra_rules.geometry import Geometry
from allegra_rules.state import GameState, Phase
from allegra_rules.transitions import legal_actions
from allegra_rules.views import PlayerView, observe

__all__ = ["Bot", "GreedyBot", "RandomBot", "SeatEstimate", "deck_multiset"]

_TIE = 1e-9
_NONE: set[int] = set()


@functools.lru_cache(maxsize=32)
def deck_multiset(config: RuleConfig) -> Counter[int]:
    """The config's deck as a multiset of card values (cached and shared: never change it).

    Examples:
        >>> from allegra_rules import preset
        >>> deck_multiset(preset("seeds"))[4]
        12
    """
    return Counter(dict(config.deck))


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
        seed: seeds the bot's own ``random.Random``.

    Examples:
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


class SeatEstimate:
    """What one seat knows of a state, and the card arithmetic of GreedyBot.

    Built from [`observe`][allegra_rules.views.observe] (the seat's
    [`PlayerView`][allegra_rules.views.PlayerView]), so it can hold nothing the seat may not know.
    Of that view it uses the public part: face-up cards, gaps, which cells are face down, the
    discard pile, the cards out of play and the held card (always visible to the seat that is asked
    to act). A face-down card counts as the mean of the cards not seen face up on the table, in the
    piles or in the held card (as a multiset: the face-down cards, the draw pile and any hand card).

    Every score is memoized for the one decision the view is built for: a turn's
    choice asks for the same placements many times (once per possible drawn card).
    Build one with [`from_view`][allegra_rules.bots.SeatEstimate.from_view].

    Args:
        view: a seat's view (``observe(state, seat)``; not the public view).
        geo: the geometry of the view's seat count.
        deck: the config's deck as a multiset
            ([`deck_multiset`][allegra_rules.bots.deck_multiset]).

    Attributes:
        seat: the viewing seat.
        known: per flat cell, its face-up value, or ``None``.
        hidden: per flat cell, whether it holds a face-down card.
        dist: ``(value, probability)`` of an unseen card, ascending by value.
        mean: the mean value of an unseen card.
        est: per flat cell, its face-up value, ``mean`` when face down, 0 for a gap.
        sums: per seat, the estimated sum of its zone.
    """

    def __init__(self, view: PlayerView, geo: Geometry, deck: Counter[int]) -> None:
        config = view.config
        seat = view.viewer
        if seat is None:
            raise ValueError("a SeatEstimate needs a seat's view, not the public view")
        self.seat = seat
        self.geo = geo
        self.adjacent = config.row_match == "adjacent"
        known = view.cells
        down = view.face_down
        self.known = known
        self.hidden = down
        self.filled = [k is not None or h for k, h in zip(known, down, strict=True)]
        seen: Counter[int] = Counter(v for v in known if v is not None)
        by_value: dict[int, int] = dict(seen)
        self.by_value = by_value
        seen.update(view.discard_pile)
        seen.update(view.out_of_play)
        if view.held is not None:
            seen[view.held] += 1
        unseen = deck - seen
        if not unseen:
            unseen = Counter(deck)
        total = sum(unseen.values())
        self.dist = [(value, count / total) for value, count in sorted(unseen.items())]
        self.mean = sum(value * p for value, p in self.dist)
        mean = self.mean
        self.est = [
            float(k) if k is not None else (mean if h else 0.0)
            for k, h in zip(known, down, strict=True)
        ]
        self.my_zone = geo.zone_set[seat]
        est = self.est
        self.sums = [sum(est[i] for i in geo.zone[q]) for q in range(view.num_players)]
        self.my_sum = self.sums[seat]
        others = [s for q, s in enumerate(self.sums) if q != seat]
        self.best_other = min(others)
        masks = geo.own_masks if config.round_end == "own_grid" else geo.zone_masks
        self.end_mask = masks[seat]
        end_cells = geo.own[seat] if config.round_end == "own_grid" else geo.zone[seat]
        self.down_left = sum(1 for i in end_cells if down[i])
        self.may_end = view.ender is None and view.phase is not Phase.SETUP
        self.doubles_nonpositive = config.double_nonpositive == "yes"
        self._swap_area = geo.zone[seat] if config.swap_area == "zone" else geo.own[seat]
        self._reveal_area = geo.zone[seat] if config.reveal_area == "zone" else geo.own[seat]
        self._triples: dict[int, dict[int, set[int]]] = {}
        self._targets: dict[int | None, list[int]] = {}
        # The one cell whose turning up could end the round for this seat (the
        # round-end bonus or risk of ``end_value`` applies there only).
        self._last = -1
        if self.may_end and self.down_left == 1:
            self._last = next(i for i in end_cells if down[i])
        self._bonus: dict[int, set[int]] | None = None
        self._best: dict[tuple[int, int | None], float] = {}
        self._flip: float | None = None

    @classmethod
    def from_view(cls, view: PlayerView) -> SeatEstimate:
        """The estimate of ``view``'s seat, with the view's geometry and config's deck.

        Examples:
            >>> from allegra_rules import new_game, observe
            >>> SeatEstimate.from_view(observe(new_game(2, seed=1), 0)).sums[0] > 0
            True
        """
        return cls(view, view.geometry, deck_multiset(view.config))

    # -------------------------------------------------------------- arithmetic

    def triples_at(self, i: int) -> dict[int, set[int]]:
        """Per value, the cells that this value put face up at ``i`` would remove.

        Only values that can complete a line through ``i`` are looked at: a value
        seen face up twice in one line through ``i`` ("anywhere"), or one of the
        face-up neighbours of ``i`` in a line ("adjacent").
        """
        found = self._triples.get(i)
        if found is not None:
            return found
        known = self.known
        lines = self.geo.lines_through[i]
        candidates: set[int] = set()
        for line in lines:
            if self.adjacent:
                k = line.index(i)
                if k > 0 and (v := known[line[k - 1]]) is not None:
                    candidates.add(v)
                if k < len(line) - 1 and (v := known[line[k + 1]]) is not None:
                    candidates.add(v)
            else:
                once: set[int] = set()
                for j in line:
                    if j != i and (v := known[j]) is not None:
                        if v in once:
                            candidates.add(v)
                        once.add(v)
        found = {}
        for value in candidates:
            out: set[int] = set()
            for line in lines:
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
            if out:
                found[value] = out
        self._triples[i] = found
        return found

    def place_gain(self, value: float, i: int, exact: bool = True) -> float:
        """How much lower this seat's zone sum gets when ``value`` goes face up at ``i``."""
        gain = self.est[i] - value if i in self.my_zone else 0.0
        if exact:
            v = int(value)
            removed = self.triples_at(i).get(v)
            if removed:
                for j in removed:
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
        filled = self.filled
        return [i for i in self._swap_area if filled[i] and i != exclude]

    def best_place(self, value: int, exclude: int | None = None) -> float:
        """The best ``place_score`` of ``value`` over the swap area."""
        key = (value, exclude)
        best = self._best.get(key)
        if best is not None:
            return best
        targets = self._targets.get(exclude)
        if targets is None:
            # Highest estimate first: without a triple or a round end, the best cell
            # for any value is the one whose card is (thought to be) the highest.
            est = self.est
            targets = sorted(self.swap_targets(exclude), key=lambda i: -est[i])
            self._targets[exclude] = targets
        if not targets:
            best = 0.0
        else:
            if self._bonus is None:
                # Per value, the swap-area cells where it would complete a triple.
                self._bonus = {}
                for i in self._swap_area:
                    for v in self.triples_at(i):
                        self._bonus.setdefault(v, set()).add(i)
            cells = self._bonus.get(value, _NONE)
            last = self._last
            special = [i for i in targets if i == last or i in cells] if cells or last >= 0 else []
            scores = [self.place_score(value, i) for i in special]
            plain = next((i for i in targets if i not in special), None)
            if plain is not None:
                scores.append(self.est[plain] - value)
            best = max(scores)
        self._best[key] = best
        return best

    def reveal_score(self, i: int) -> float:
        """Expected gain of turning up the face-down card at ``i`` (triples it may make)."""
        # place_gain(value, i) inlined: this runs for every value and candidate cell.
        in_zone = i in self.my_zone
        est = self.est
        est_i = est[i]
        my_zone = self.my_zone
        triples = self.triples_at(i)
        expected = 0.0
        for value, p in self.dist:
            gain = est_i - value if in_zone else 0.0
            removed = triples.get(value)
            if removed:
                for j in removed:
                    if j in my_zone:
                        gain += value if j == i else est[j]
            expected += p * gain
        return expected + self.end_value(i, expected)

    def flip_value(self) -> float:
        """The value of discarding and then making the best reveal."""
        if self._flip is None:
            candidates = [i for i in self._reveal_area if self.hidden[i]]
            self._flip = max((self.reveal_score(i) for i in candidates), default=0.0)
        return self._flip


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
        seed: seeds the bot's own ``random.Random`` (used for ties only).

    Examples:
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
    HINT_CLIP = 50.0
    """[`hint`][allegra_rules.bots.GreedyBot.hint] clips a score to this many points either way."""
    HINT_SCALE = 10.0
    """... and divides it by this many points."""

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
        if state.phase is Phase.KNOCK:
            # Knock() scores 1 or -1 against Pass()'s 0: never a tie.
            return Knock() if self._wants_to_knock(state, seat) else Pass()
        view = SeatEstimate(observe(state, seat), state.geometry, deck_multiset(state.config))
        scores = [self.score(view, state, action) for action in legal]
        best = max(scores)
        ties = [a for a, s in zip(legal, scores, strict=True) if s >= best - _TIE]
        return ties[0] if len(ties) == 1 else self._rng.choice(ties)

    def action_scores(self, state: GameState) -> dict[Action, float]:
        """Every legal action of ``state`` with the score GreedyBot gives it (higher is better).

        The keys are ``legal_actions(state)`` in their order. In the knock window ``Knock()``
        scores 1 when GreedyBot would knock and -1 when not, ``Pass()`` 0; elsewhere each
        score is [`score`][allegra_rules.bots.GreedyBot.score]'s (minus infinity for a
        ``Give`` to a knocker who shows no card GreedyBot could use). Only what the acting
        seat may see is read. No randomness is used.

        Raises:
            ValueError: ``state`` is terminal.

        Examples:
            >>> from allegra_rules import new_game
            >>> scores = GreedyBot().action_scores(new_game(2, seed=1))
            >>> len(scores) > 1 and all(isinstance(v, float) for v in scores.values())
            True
        """
        legal = _legal_or_raise(state)
        seat = state.current_player
        assert seat is not None
        if state.phase is Phase.KNOCK:
            knock = 1.0 if self._wants_to_knock(state, seat) else -1.0
            return {a: knock if isinstance(a, Knock) else 0.0 for a in legal}
        view = SeatEstimate(observe(state, seat), state.geometry, deck_multiset(state.config))
        return {a: float(self.score(view, state, a)) for a in legal}

    def hint(self, state: GameState) -> dict[Action, float]:
        """[`action_scores`][allegra_rules.bots.GreedyBot.action_scores] as a network reads them.

        Each score clipped to ``HINT_CLIP`` points either way, then divided by
        ``HINT_SCALE``: the greedy hint that a policy trained with
        ``allegra-rules train --greedy-input`` reads beside the features.

        Raises:
            ValueError: ``state`` is terminal.
        """
        clip, scale = self.HINT_CLIP, self.HINT_SCALE
        return {
            action: max(-clip, min(clip, value)) / scale
            for action, value in self.action_scores(state).items()
        }

    # ------------------------------------------------------------------ scoring

    def score(self, view: SeatEstimate, state: GameState, action: Action) -> float:
        """GreedyBot's score of a legal ``action`` of ``state`` (higher is better).

        Args:
            view: the acting seat's estimate (built from its view of ``state``).
            state: the state (only what the seat may see is read).
            action: a legal action of ``state``, not in the knock window.
        """
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

    def _wants_to_knock(self, state: GameState, seat: int) -> bool:
        held = state.held
        assert held is not None
        if held > self.KNOCK_AT_MOST:
            return False
        # The face-up cards of its swap area (face-down cards and gaps are skipped).
        geo = state.geometry
        area = geo.zone[seat] if state.config.swap_area == "zone" else geo.own[seat]
        cells = state.cells
        face_down = state.face_down
        return any(
            (v := cells[i]) is not None and not face_down >> i & 1 and v >= self.KNOCK_HIGH_CARD
            for i in area
        )

    def _give_score(self, view: SeatEstimate, state: GameState, knocker: int) -> float:
        geo = view.geo
        area = geo.zone[knocker] if state.config.take_area == "zone" else geo.own[knocker]
        values = {v for i in area if (v := view.known[i]) is not None and i not in view.my_zone}
        best = max((view.best_place(v) for v in values), default=float("-inf"))
        return best - self.GIVE_MARGIN

    def _take_score(self, view: SeatEstimate, t: int) -> float:
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
