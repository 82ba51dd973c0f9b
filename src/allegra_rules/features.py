"""Fixed-length observation vectors in ``[0, 1]``, built from a ``PlayerView``.

The vectors never use hidden information: they are computed from
``observe(state, seat)``, so a face-down card, the draw pile's order, the seed and
cards hidden from the viewer never reach them. Pure Python (no numpy): the core's bots
may use them ([`PolicyBot`][allegra_rules.policy.PolicyBot] reads nothing else), and the
adapters and the batched engine turn them into arrays (``allegra_rules.adapters.features``
re-exports these names). Every entry lies in ``[0, 1]``: flags and one-hot codes are 0 or 1,
counts are divided by their largest possible value.

An [`Encoder`][allegra_rules.features.Encoder] is built for one rule config and seat count.
Card values are one-hot over the deck's distinct values (``K`` of them, 13 for the default deck).
Seats are written *relative to an origin seat*: seat ``(origin + k) % n`` is written at place ``k``
of every seat-indexed part, so with ``origin = viewer`` place 0 is always "me", place 1 my left
neighbour (who plays after me), and so on. The cells are rotated the same way (the block of seat
``(origin + k) % n`` comes ``k``-th).

The **public part** ([`Encoder.public`][allegra_rules.features.Encoder.public], the same
for every viewer at a given origin) holds, in order:

- per cell (``12 n`` cells, seat blocks in relative order, each block row by row):
  ``[gap, face down, face-up value one-hot (K)]``;
- the phase one-hot (one per [`Phase`][allegra_rules.state.Phase] member), the round one-hot
  (3), ``turns_played / max_turns_per_round``, ``setup_reveals / 2n``;
- seat one-hots (``n`` each): current player, drawer, knocker (given the card),
  round-ender, setup start seat, the owner of the in-hand card; seat indicators
  (``n`` each): the knockers, the seats still due a final turn;
- the held card: ``[a card is held, its value is hidden from someone]`` and its value
  one-hot when everyone saw it (else zeros);
- the in-hand card (a knocker's replaced card): ``[present, hidden from someone]``
  and its value one-hot when public;
- the knock-exchange cells: where the knocker put the given card and the knock gap,
  each one-hot over the ``12 n`` cells (relative order), and the two "lay face
  down" flags;
- the discard pile: ``[empty]``, its top one-hot, its size over the deck size, and
  its cards per value (the whole pile, below the top included) over that value's
  copies;
- the cards out of play per value over the copies;
- the draw pile: its size over the deck size, ``[its contents are known]`` (after a
  refill this round) and then its cards per value over the copies (zeros when
  unknown);
- the cards nobody has seen (face-down cells, the draw pile unless known, and cards
  hidden from everyone but one player) per value over the copies;
- per seat (relative): its total mapped from the game's score bounds to ``[0, 1]``
  (0 = the lowest total possible, the best) and its setup sum scaled the same way.

The **private part** ([`Encoder.private`][allegra_rules.features.Encoder.private]) holds
what only the viewer knows: ``[I see a held card others do not]`` and its value one-hot, ``[I see my
in-hand card others do not]`` and its value one-hot, then (with ``setup_reveals="simultaneous"``)
the cells the viewer has named in the current setup, an indicator over the ``12 n`` cells in
relative order.

[`Encoder.features`][allegra_rules.features.Encoder.features] is the public part at
``origin = viewer`` followed by the private part: every fact the viewer knows at that moment. The
previous round's table (``last_round``) is left out: it never changes what a seat may do or score
later, and the totals already hold its scores.
"""

from __future__ import annotations

from collections import Counter

from allegra_rules.config import RuleConfig
from allegra_rules.geometry import CELLS_PER_SEAT
from allegra_rules.state import Phase
from allegra_rules.transitions import ROUNDS
from allegra_rules.views import PlayerView

__all__ = ["Encoder", "round_score_bounds", "total_bounds"]

_PHASES: tuple[Phase, ...] = tuple(Phase)
_ZONE_CELLS = 15


def round_score_bounds(config: RuleConfig) -> tuple[int, int]:
    """The lowest and highest score a seat can get in one round under ``config``.

    A zone holds 15 cells, so a zone sum lies between the sum of the deck's 15 lowest
    cards and the sum of its 15 highest; the round-ender's sum may be doubled (a
    zero or negative one only with ``double_nonpositive="yes"``). The bounds are true
    but not tight: no real deal reaches them.

    Examples:
        >>> round_score_bounds(RuleConfig())
        (-8, 308)
    """
    cards = config.deck_cards()
    low = sum(cards[:_ZONE_CELLS])
    high = sum(cards[-_ZONE_CELLS:])
    lo = 2 * low if low < 0 and config.double_nonpositive == "yes" else min(low, 0)
    hi = 2 * high if high > 0 else high
    return lo, hi


def total_bounds(config: RuleConfig) -> tuple[int, int]:
    """The lowest and highest final total a seat can reach: three rounds of bounds.

    Examples:
        >>> total_bounds(RuleConfig())
        (-24, 924)
    """
    lo, hi = round_score_bounds(config)
    return ROUNDS * lo, ROUNDS * hi


class Encoder:
    """Observation vectors for one rule config and seat count (layout in the module docs).

    Args:
        config: the rules (they fix the card values, the copies and the score bounds).
        num_players: the seat count.

    Examples:
        >>> from allegra_rules import new_game, observe
        >>> enc = Encoder(RuleConfig(), 2)
        >>> vec = enc.features(observe(new_game(2, seed=1), 0))
        >>> len(vec) == enc.size, min(vec) >= 0.0, max(vec) <= 1.0
        (True, True, True)
    """

    def __init__(self, config: RuleConfig, num_players: int) -> None:
        if not isinstance(config, RuleConfig):
            raise ValueError(f"config must be a RuleConfig; got {type(config).__name__}")
        if type(num_players) is not int or num_players < 2:
            raise ValueError(f"num_players must be an int >= 2; got {num_players!r}")
        self.config = config
        self.num_players = num_players
        self.values: tuple[int, ...] = tuple(v for v, _ in config.deck)
        """The deck's distinct card values, ascending (the one-hot order)."""
        self.copies: tuple[int, ...] = tuple(c for _, c in config.deck)
        self._index = {v: i for i, v in enumerate(self.values)}
        self._deck = Counter(config.deck_cards())
        k = len(self.values)
        n = num_players
        cells = CELLS_PER_SEAT * n
        self.public_size: int = (
            cells * (k + 2)
            + len(_PHASES)
            + ROUNDS
            + 2
            + 6 * n
            + 2 * n
            + (2 + k)
            + (2 + k)
            + 2 * cells
            + 2
            + (1 + k + 1 + k)
            + k
            + (2 + k)
            + k
            + 2 * n
        )
        """Length of [`public`][allegra_rules.features.Encoder.public]."""
        self.private_size: int = 2 * (1 + k) + cells
        """Length of [`private`][allegra_rules.features.Encoder.private]."""
        self.size: int = self.public_size + self.private_size
        """Length of [`features`][allegra_rules.features.Encoder.features]."""
        lo, hi = total_bounds(config)
        self._total_lo, self._total_span = lo, max(1, hi - lo)
        low_card, high_card = self.values[0], self.values[-1]
        self._setup_lo, self._setup_span = 2 * low_card, max(1, 2 * (high_card - low_card))
        # Precomputed cell codes: a gap, a face-down card, each face-up value.
        blank = (0.0,) * k
        self._gap_code = (1.0, 0.0, *blank)
        self._down_code = (0.0, 1.0, *blank)
        self._up_code = {
            v: (0.0, 0.0, *(1.0 if j == i else 0.0 for j in range(k)))
            for i, v in enumerate(self.values)
        }
        per = CELLS_PER_SEAT
        self._orders = [
            [s * per + j for s in ((o + d) % n for d in range(n)) for j in range(per)]
            for o in range(n)
        ]

    def _one_hot_value(self, out: list[float], value: int | None) -> None:
        part = [0.0] * len(self.values)
        if value is not None:
            part[self._index[value]] = 1.0
        out += part

    def _counts(self, out: list[float], cards: Counter[int]) -> None:
        out += (cards.get(v, 0) / c for v, c in zip(self.values, self.copies, strict=True))

    def public(self, view: PlayerView, origin: int) -> list[float]:
        """The public part of ``view``, seats relative to ``origin``.

        It uses only what every seat knows, so it is the same for the views of all
        seats of one state (at the same ``origin``).

        Args:
            view: a view of any seat (its private cards are left out).
            origin: the seat written first.
        """
        n = self.num_players
        if view.num_players != n:
            raise ValueError(f"the view has {view.num_players} seats; the encoder {n}")
        if type(origin) is not int or not 0 <= origin < n:
            raise ValueError(f"origin must be a seat 0..{n - 1}; got {origin!r}")
        order = [(origin + k) % n for k in range(n)]
        place = {seat: k for k, seat in enumerate(order)}
        cell_order = self._orders[origin]
        cell_place = {c: k for k, c in enumerate(cell_order)}
        out: list[float] = []
        cells, face_down = view.cells, view.face_down
        up, gap, down_code = self._up_code, self._gap_code, self._down_code
        for c in cell_order:
            value = cells[c]
            out += down_code if face_down[c] else gap if value is None else up[value]
        phase = [0.0] * len(_PHASES)
        phase[_PHASES.index(view.phase)] = 1.0
        out += phase
        rounds = [0.0] * ROUNDS
        rounds[view.round - 1] = 1.0
        out += rounds
        out.append(min(1.0, view.turns_played / self.config.max_turns_per_round))
        out.append(view.setup_reveals / (2 * n))

        def seat_hot(seat: int | None) -> None:
            part = [0.0] * n
            if seat is not None:
                part[place[seat]] = 1.0
            out.extend(part)

        def seat_set(seats: tuple[int, ...]) -> None:
            part = [0.0] * n
            for seat in seats:
                part[place[seat]] = 1.0
            out.extend(part)

        hand_owner = view.in_hand[0][0] if view.in_hand else None
        for seat in (
            view.current_player,
            view.drawer,
            view.knocker,
            view.ender,
            view.start_seat,
            hand_owner,
        ):
            seat_hot(seat)
        seat_set(view.knockers)
        seat_set(view.final_turns)
        held_public = view.held is not None and not view.held_was_face_down
        held_present = view.held is not None or view.held_hidden
        out += (float(held_present), float(held_present and not held_public))
        self._one_hot_value(out, view.held if held_public else None)
        hand_public = bool(view.in_hand) and not view.hand_was_face_down
        out += (float(bool(view.in_hand)), float(bool(view.in_hand) and not hand_public))
        self._one_hot_value(out, view.in_hand[0][1] if hand_public else None)
        for where in (view.given_at, view.taken_at):
            part = [0.0] * len(cell_order)
            if where is not None:
                part[cell_place[where]] = 1.0
            out += part
        out += (float(view.held_was_face_down), float(view.hand_was_face_down))
        pile = view.discard_pile
        out.append(float(not pile))
        self._one_hot_value(out, pile[-1] if pile else None)
        deck_size = self.config.deck_size
        out.append(len(pile) / deck_size)
        self._counts(out, Counter(pile))
        self._counts(out, Counter(view.out_of_play))
        known = view.draw_pile_cards
        out += (view.draw_pile_size / deck_size, float(known is not None))
        self._counts(out, Counter(known or ()))
        seen: Counter[int] = Counter(v for v in view.cells if v is not None)
        seen.update(pile)
        seen.update(view.out_of_play)
        if held_public:
            seen[view.held] += 1  # type: ignore[index]
        if hand_public:
            seen[view.in_hand[0][1]] += 1  # type: ignore[index]
        if known is not None:
            seen.update(known)
        self._counts(out, self._deck - seen)
        for seat in order:
            out.append(min(1.0, max(0.0, (view.totals[seat] - self._total_lo) / self._total_span)))
        for seat in order:
            scaled = (view.setup_sums[seat] - self._setup_lo) / self._setup_span
            out.append(min(1.0, max(0.0, scaled)))
        return out

    def private(self, view: PlayerView, origin: int | None = None) -> list[float]:
        """What only ``view.viewer`` knows.

        A held or in-hand card hidden from the others, and the cells it named in a
        simultaneous setup (cells rotated to ``origin``, by default the viewer).
        """
        out: list[float] = []
        mine = view.held is not None and view.held_was_face_down
        out.append(float(mine))
        self._one_hot_value(out, view.held if mine else None)
        hand = view.in_hand[0] if view.in_hand else None
        own_hand = hand is not None and view.hand_was_face_down and hand[0] == view.viewer
        out.append(float(own_hand))
        self._one_hot_value(out, hand[1] if hand is not None and own_hand else None)
        n = self.num_players
        named = [0.0] * (CELLS_PER_SEAT * n)
        shift = ((view.viewer or 0) if origin is None else origin) * CELLS_PER_SEAT
        for cell in view.own_setup_named:
            named[(cell - shift) % len(named)] = 1.0
        out += named
        return out

    def features(self, view: PlayerView) -> list[float]:
        """The public part seen from ``view.viewer``, then its private part (``size`` floats).

        The public view (``viewer`` None) is encoded as seen from seat 0.
        """
        return self.public(view, view.viewer or 0) + self.private(view)
