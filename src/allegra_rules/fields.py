"""The one declaration of a game state's fields: name, kind, who may see it, old-save default.

[`GameState`][allegra_rules.state.GameState] spells its fields out as typed attributes (so that type
checkers know them); everything else that walks over the fields reads [`STATE_FIELDS`][
allegra_rules.fields.STATE_FIELDS] instead of naming them again:

- ``allegra_rules.invariants.check_types`` checks each field by its
  [`Kind`][allegra_rules.fields.Kind];
- ``PlayerView`` copies every field that [`Seen.EVERYONE`][allegra_rules.fields.Seen] may see, and
  ``observe`` computes the view fields (``view``) of the others;
- ``determinize`` copies those public fields back from a view and samples the others;
- the fast builders of states and views (``allegra_rules._fast``) are generated from it;
- the JAX engine's conversion lists, for each field, the arrays that hold it.

A test checks that this declaration, ``attrs.fields(GameState)``, ``attrs.fields(PlayerView)``, the
JSON schema of a saved game and the JAX conversion all agree. The JSON codec
(``allegra_rules.serialize``) still spells the fields out by hand.

This module imports nothing of the package: it sits below the state.

Examples:
    >>> FIELDS["held"].seen, FIELDS["held"].owner
    (<Seen.OWNER: 'owner'>, 'drawer')
    >>> [f.name for f in STATE_FIELDS if f.seen is Seen.NOBODY]
    ['seed', 'draw_pile']
"""

from __future__ import annotations

import enum

import attrs

__all__ = ["FIELDS", "NO_DEFAULT", "STATE_FIELDS", "VIEW_ONLY", "Kind", "Seen", "StateField"]


class Kind(enum.Enum):
    """What a field holds, and so how its type, size and range are checked.

    ``n`` is the seat count and a "cell" a flat index ``0 .. 12 * n - 1``.
    """

    CONFIG = "config"
    """A ``RuleConfig``."""
    SEAT_COUNT = "seat_count"
    """The seat count ``n``: the config's ``min_players .. most_players()``."""
    SEED = "seed"
    """An int seed of the shuffles, ``MIN_SEED .. MAX_SEED``."""
    ROUND = "round"
    """A round number, ``1 .. 3``."""
    PHASE = "phase"
    """A ``Phase``."""
    SEAT = "seat"
    """A seat, ``0 .. n - 1``."""
    OPT_SEAT = "opt_seat"
    """A seat or ``None``."""
    SEATS = "seats"
    """A tuple of at most ``n`` seats."""
    OPT_CELL = "opt_cell"
    """A cell or ``None``."""
    CELLS = "cells"
    """A tuple of at most ``2 * n`` cells (the cells named in a simultaneous setup)."""
    TABLE = "table"
    """One card value or ``None`` (a gap) per cell."""
    CELL_MASK = "cell_mask"
    """An int bitmask with bit ``i`` for cell ``i``."""
    CARDS = "cards"
    """A tuple of card values of the config's deck, at most the deck's size."""
    OPT_CARD = "opt_card"
    """A card value of the config's deck, or ``None``."""
    HAND = "hand"
    """At most one ``(seat, card)`` pair."""
    REVEALS = "reveals"
    """A count of setup reveals, ``0 .. 2 * n``."""
    TURNS = "turns"
    """A count of turns, ``0 .. max_turns_per_round``."""
    REFILLS = "refills"
    """A count of refills, ``0 .. turns_played``."""
    PER_SEAT = "per_seat"
    """One int per seat."""
    SCORE_ROWS = "score_rows"
    """At most three rows (finished rounds) of one int per seat."""
    FLAG = "flag"
    """A bool."""
    ROUND_END = "round_end"
    """A ``RoundEnd`` or ``None``."""


class Seen(enum.Enum):
    """Who may see a field (see ``allegra_rules.views``)."""

    EVERYONE = "everyone"
    """Public: a view holds the field as it is."""
    FACE_UP = "face_up"
    """Public where the ``face_down`` bitmask shows it: a face-down cell's value is nobody's."""
    OWNER = "owner"
    """Seen by its owner only when the field's ``secret_when`` flag is set, else public."""
    NOBODY = "nobody"
    """Nobody's: a view holds at most what everyone knows about it (its size, say)."""


class _NoDefault(enum.Enum):
    NO_DEFAULT = "no default"

    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT = _NoDefault.NO_DEFAULT
"""The ``default`` of a field every saved game holds."""


@attrs.frozen(slots=True)
class StateField:
    """One field of a ``GameState``.

    Attributes:
        name: the attribute (and the key of the saved game).
        kind: what it holds.
        seen: who may see it.
        owner: for ``Seen.OWNER``, how the owner is found, in words naming the
            state's fields; else empty.
        secret_when: for ``Seen.OWNER``, the flag field that makes it secret.
        view: the ``PlayerView`` fields that ``observe`` computes from it: what a seat
            may know of it (empty: nothing). ``None``, for a public field, means that a
            view holds it as it is, under its own name.
        default: its value when an old saved game lacks it (the schema version
            that added it says when); ``NO_DEFAULT`` when every save holds it.
            It is the attrs default of the ``GameState`` field too.
        added: the first saved-game schema version that holds the field.
    """

    name: str
    kind: Kind
    seen: Seen = Seen.EVERYONE
    owner: str = ""
    secret_when: str = ""
    view: tuple[str, ...] | None = None
    default: object = NO_DEFAULT
    added: int = 1

    @property
    def view_fields(self) -> tuple[str, ...]:
        """The ``PlayerView`` fields that show it: ``view``, or its own name if copied."""
        return (self.name,) if self.view is None else self.view

    @property
    def copied_to_view(self) -> bool:
        """Whether a view holds it unchanged, under the same name (no ``view`` declared)."""
        return self.seen is Seen.EVERYONE and self.view is None


_F = StateField

STATE_FIELDS: tuple[StateField, ...] = (
    _F("config", Kind.CONFIG),
    _F("num_players", Kind.SEAT_COUNT),
    _F("seed", Kind.SEED, Seen.NOBODY, view=()),  # it decides every shuffle
    _F("round", Kind.ROUND),
    _F("phase", Kind.PHASE),
    _F("current_player", Kind.OPT_SEAT),
    _F("cells", Kind.TABLE, Seen.FACE_UP, view=("cells",)),
    _F("face_down", Kind.CELL_MASK, view=("face_down",)),  # in a view: one bool per cell
    _F(
        "draw_pile",
        Kind.CARDS,
        Seen.NOBODY,
        view=("draw_pile_size", "draw_pile_cards"),
    ),
    _F("discard_pile", Kind.CARDS),
    _F(
        "held",
        Kind.OPT_CARD,
        Seen.OWNER,
        owner="drawer",
        secret_when="held_was_face_down",
        view=("held", "held_hidden"),
    ),
    _F(
        "in_hand",
        Kind.HAND,
        Seen.OWNER,
        owner="each pair's seat (the knocker)",
        secret_when="hand_was_face_down",
        view=("in_hand",),
    ),
    _F("out_of_play", Kind.CARDS),
    _F("start_seat", Kind.SEAT),
    _F("setup_reveals", Kind.REVEALS),
    _F("setup_sums", Kind.PER_SEAT),
    _F("drawer", Kind.OPT_SEAT),
    _F("knockers", Kind.SEATS),
    _F("knocker", Kind.OPT_SEAT),
    _F("given_at", Kind.OPT_CELL),
    _F("taken_at", Kind.OPT_CELL),
    _F("held_was_face_down", Kind.FLAG),
    _F("hand_was_face_down", Kind.FLAG),
    _F("turns_played", Kind.TURNS),
    _F("ender", Kind.OPT_SEAT),
    _F("final_turns", Kind.SEATS),
    _F("refills", Kind.REFILLS),
    _F("totals", Kind.PER_SEAT),
    _F("round_scores", Kind.SCORE_ROWS),
    _F("winners", Kind.SEATS),
    _F("last_round", Kind.ROUND_END),
    _F(
        "setup_named",
        Kind.CELLS,
        Seen.OWNER,
        owner="the naming seat: name k (from 0) is seat (start_seat + k // 2) % num_players's",
        secret_when="",  # always: until the named cells turn up, the field is emptied
        view=("own_setup_named",),
        default=(),
        added=2,
    ),
)
"""Every field of a ``GameState``, in the class's order."""

FIELDS: dict[str, StateField] = {f.name: f for f in STATE_FIELDS}
"""``STATE_FIELDS`` by name."""

VIEW_ONLY: tuple[str, ...] = ("viewer", "legal_actions")
"""The ``PlayerView`` fields that show no state field: the viewing seat, its legal actions."""
