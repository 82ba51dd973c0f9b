"""A network's input that fits every deck and names the rules: the features, deck-free.

The features [`Encoder`][allegra_rules.features.Encoder] writes each card value as a
one-hot over the deck's distinct values, so its vector's length (and each entry's
meaning) depends on the deck. A network that plays every [`RuleConfig`][allegra_rules.
config.RuleConfig] reads [`NetworkInput`][allegra_rules.network_input.NetworkInput]
instead: the same features with every value block written over fixed **card slots**,
followed by the rules themselves ([`rules_vector`][allegra_rules.network_input.
rules_vector]). Its length depends on the seat count alone.

Card slots ([`card_slots`][allegra_rules.network_input.card_slots]): ``CARD_SLOTS`` (16)
places. When every card value lies in ``SLOT_LOW..SLOT_LOW + CARD_SLOTS - 1`` (-2..13,
every preset's deck and the usual custom ones), value ``v`` has slot ``v - SLOT_LOW``: a
slot means the same card on every such deck. Any other deck is spread over the slots in
proportion to its values (``round((v - low) * 15 / (high - low))``), so neighbouring
values may share a slot; the card's own magnitude entry still tells them apart.

The input, in order (``NetworkInput.size`` entries, every one in ``[0, 1]``):

- every entry of ``Encoder.features`` outside a value block, in its order (flags, seat
  one-hots, counts of cards, totals...);
- each *card* block of the features (a cell's face-up value, the held card, the in-hand
  card, the discard pile's top, the viewer's private cards; ``12 n + 5`` of them): its
  value on the ``CARD_SLOTS`` slots, then one magnitude entry,
  [`value_magnitude`][allegra_rules.network_input.value_magnitude] of the card (0 when
  the block holds none);
- each *count* block (the discard pile, the cards out of play, the known draw pile, the
  unseen cards, each per value over that value's copies): per slot, the block's cards of
  that slot over the slot's copies;
- the rules vector.

It is a linear function of the features (plus the rules, a constant of the config), so
it reads nothing the features do not: nothing hidden from the seat. The batched
engine's training builds the same input from ``State.observation`` with the arrays of
[`NetworkInput.blocks`][allegra_rules.network_input.NetworkInput.blocks], and a test
holds the two in lock-step.

Examples:
    >>> from allegra_rules import RuleConfig, new_game, observe
    >>> a = NetworkInput(RuleConfig(), 2)
    >>> b = NetworkInput(RuleConfig(deck={0: 40, 50: 40}), 2)
    >>> a.size == b.size
    True
    >>> vec = a.features(observe(new_game(2, seed=1), 0))
    >>> len(vec) == a.size, min(vec) >= 0.0, max(vec) <= 1.0
    (True, True, True)
"""

from __future__ import annotations

from collections.abc import Sequence

from allegra_rules.config import OPTION_CHOICES, RuleConfig
from allegra_rules.features import Encoder
from allegra_rules.transitions import new_game
from allegra_rules.views import PlayerView, observe

__all__ = [
    "CARD_SLOTS",
    "RULE_INPUTS",
    "SLOT_LOW",
    "NetworkInput",
    "card_slots",
    "rules_vector",
    "value_magnitude",
]

CARD_SLOTS = 16
"""The fixed places over which every card value block is written."""

SLOT_LOW = -2
"""The card value of slot 0 on a deck whose values all lie in ``-2..13``."""

RULE_INPUTS: tuple[tuple[str, tuple[str, ...]], ...] = tuple(OPTION_CHOICES.items())
"""The rule options a network reads, with their choices (one entry per choice).

A weights file records the list it was trained with (``meta["rule_inputs"]``), so an
option added in a later release, unknown to an older network, is left out of its input
rather than moving every entry after it.
"""

_MAGNITUDE_SCALE = 10.0


def value_magnitude(value: int) -> float:
    """A card value squashed into ``(0, 1)``, the same on every deck: ``0.5 + v / (2 (|v| + 10))``.

    It increases with the value, so two values that share a card slot still differ here.

    Examples:
        >>> value_magnitude(0), value_magnitude(10), round(value_magnitude(-1000), 3)
        (0.5, 0.75, 0.005)
    """
    return 0.5 + 0.5 * value / (abs(value) + _MAGNITUDE_SCALE)


def card_slots(config: RuleConfig) -> tuple[int, ...]:
    """The card slot of each of the deck's distinct values, ascending (see the module docs).

    Examples:
        >>> card_slots(RuleConfig())[:3]
        (1, 2, 3)
        >>> card_slots(RuleConfig(deck={0: 20, 100: 20, 1000: 10}))
        (0, 2, 15)
    """
    values = [v for v, _ in config.deck]
    low, high = values[0], values[-1]
    top = CARD_SLOTS - 1
    if low >= SLOT_LOW and high <= SLOT_LOW + top:
        return tuple(v - SLOT_LOW for v in values)
    span = max(1, high - low)
    return tuple(round((v - low) * top / span) for v in values)


def rules_vector(
    config: RuleConfig, options: Sequence[tuple[str, Sequence[str]]] = RULE_INPUTS
) -> list[float]:
    """The rules as a network reads them: every entry in ``[0, 1]``.

    In order: for each ``(option, choices)`` of ``options``, a one-hot of the config's
    choice (all zeros for a choice the list does not name); the turn cap ``m`` as
    ``m / (m + 100)``; the deck's share of cards in each card slot (``CARD_SLOTS``
    entries, adding up to 1); the distinct values ``k`` as ``k / (k + 13)``; the deck's
    size ``d`` as ``d / (d + 120)``; and ``[the deck's values do not fit -2..13]``.

    Examples:
        >>> len(rules_vector(RuleConfig())) == sum(len(c) for _, c in RULE_INPUTS) + 20
        True
    """
    out: list[float] = []
    for name, choices in options:
        chosen = getattr(config, name, None)
        out += (1.0 if chosen == choice else 0.0 for choice in choices)
    cap = config.max_turns_per_round
    out.append(cap / (cap + 100))
    share = [0.0] * CARD_SLOTS
    size = config.deck_size
    for slot, (_, copies) in zip(card_slots(config), config.deck, strict=True):
        share[slot] += copies / size
    out += share
    k = len(config.deck)
    out.append(k / (k + 13))
    out.append(size / (size + 120))
    low, high = config.deck[0][0], config.deck[-1][0]
    out.append(float(not (low >= SLOT_LOW and high <= SLOT_LOW + CARD_SLOTS - 1)))
    return out


class _LayoutProbe(Encoder):
    """An ``Encoder`` that notes where its value blocks start while it writes a vector."""

    def __init__(self, config: RuleConfig, num_players: int) -> None:
        super().__init__(config, num_players)
        self.cards: list[int] = []
        self.counts: list[int] = []
        self._base = 0

    def _one_hot_value(self, out: list[float], value: int | None) -> None:
        self.cards.append(self._base + len(out))
        super()._one_hot_value(out, value)

    def _counts(self, out: list[float], cards: object) -> None:
        self.counts.append(self._base + len(out))
        super()._counts(out, cards)  # type: ignore[arg-type]

    def probe(self, view: PlayerView) -> None:
        """Write ``view``'s vector once, noting the blocks' starts in ``features`` order."""
        self._base = 0
        self.public(view, view.viewer or 0)
        self._base = self.public_size
        self.private(view)


class NetworkInput:
    """The deck-free input of a network for ``num_players`` seats under ``config``.

    Args:
        config: the rules.
        num_players: the seat count.
        options: the rule options the network reads (a weights file's
            ``meta["rule_inputs"]``; by default every option of this release).

    Attributes:
        encoder: the features ``Encoder`` it rewrites.
        size: the input's length; the same for every config at this seat count (and
            ``options``).
        rules: the rules vector (``rules_vector(config, options)``), the input's tail.
    """

    def __init__(
        self,
        config: RuleConfig,
        num_players: int,
        options: Sequence[tuple[str, Sequence[str]]] = RULE_INPUTS,
    ) -> None:
        probe = _LayoutProbe(config, num_players)
        probe.probe(observe(new_game(num_players, seed=0, config=config), 0))
        self.encoder = Encoder(config, num_players)
        k = len(self.encoder.values)
        cells = probe.num_players * 12
        # The cells' codes come first: [gap, face down, value one-hot], one per cell.
        self._cards = [c * (k + 2) + 2 for c in range(cells)] + probe.cards
        self._counts = probe.counts
        covered = {start + j for start in (*self._cards, *self._counts) for j in range(k)}
        self._pass = [i for i in range(self.encoder.size) if i not in covered]
        self._slots = card_slots(config)
        self._magnitudes = [value_magnitude(v) for v in self.encoder.values]
        slot_copies = [0] * CARD_SLOTS
        for slot, copies in zip(self._slots, self.encoder.copies, strict=True):
            slot_copies[slot] += copies
        # A count block's entry is count / copies; its slot's is sum(count) / slot copies.
        self._count_weights = [
            c / slot_copies[s] for s, c in zip(self._slots, self.encoder.copies, strict=True)
        ]
        self.rules: list[float] = rules_vector(config, options)
        self.features_size: int = (
            len(self._pass) + len(self._cards) * (CARD_SLOTS + 1) + len(self._counts) * CARD_SLOTS
        )
        """The length of the rewritten features (the input less the rules vector)."""
        self.size: int = self.features_size + len(self.rules)

    def vector(self, features: Sequence[float]) -> list[float]:
        """The input from ``Encoder.features`` of a view (``encoder.size`` floats)."""
        if len(features) != self.encoder.size:
            raise ValueError(f"features must hold {self.encoder.size} entries; got {len(features)}")
        out = [features[i] for i in self._pass]
        slots, magnitudes, k = self._slots, self._magnitudes, len(self._slots)
        for start in self._cards:
            part = [0.0] * (CARD_SLOTS + 1)
            for j in range(k):
                x = features[start + j]
                if x:
                    part[slots[j]] += x
                    part[CARD_SLOTS] += x * magnitudes[j]
            out += part
        weights = self._count_weights
        for start in self._counts:
            part = [0.0] * CARD_SLOTS
            for j in range(k):
                x = features[start + j]
                if x:
                    part[slots[j]] += x * weights[j]
            out += part
        return out + self.rules

    def features(self, view: PlayerView) -> list[float]:
        """The input of ``view``: ``vector(encoder.features(view))``."""
        return self.vector(self.encoder.features(view))

    def blocks(self) -> dict[str, list[int] | list[float] | list[list[int]]]:
        """The rewrite as plain lists, for an array program (the batched engine's training).

        ``pass``: the features' indices copied first; ``cards`` and ``counts``: each
        block's indices (one row of ``k`` per block); ``slots``: each value's card slot;
        ``magnitudes``: each value's magnitude; ``count_weights``: each value's copies over
        its slot's; ``rules``: the rules vector. The input is the copied entries, then per
        card block its values added into their slots and its magnitude, then per count
        block its weighted values added into their slots, then the rules.
        """
        k = len(self._slots)
        return {
            "pass": list(self._pass),
            "cards": [[s + j for j in range(k)] for s in self._cards],
            "counts": [[s + j for j in range(k)] for s in self._counts],
            "slots": list(self._slots),
            "magnitudes": list(self._magnitudes),
            "count_weights": list(self._count_weights),
            "rules": list(self.rules),
        }
