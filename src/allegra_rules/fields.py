"""The one declaration of a game state's fields: name, kind, who may see it, old-save default.

[`GameState`][allegra_rules.state.GameState] spells its fields out as typed attributes (so that type
checkers know them); everything else that walks over the fields reads [`STATE_FIELDS`][
allegra_rules.fields.STATE_FIELDS] instead of naming them again:

- ``allegra_rules.state_checks.check_types`` checks each field by its
  [`Kind`][allegra_rules.fields.Kind];
- ``PlayerView`` copies every field that [`Seen.EVERYONE`][allegra_rules.fields.Seen] may see, and
  ``observe`` computes the view fields (``view``) of the others, each by its declared rule
  (``Owner`` and ``owner_field``, ``secret_when``, ``mask``, ``known_when``); ``VIEW_FIELDS``
  declares the view's own fields, by which the view's JSON is written, read and checked;
- ``determinize`` copies those public fields back from a view and samples the others by the
  same rules;
- the fast builders of states and views (``allegra_rules._fast``) are generated from it;
- the JAX engine's conversion lists, for each field, the arrays that hold it.

A test checks that this declaration, ``attrs.fields(GameState)``, ``attrs.fields(PlayerView)``, the
JSON schema of a saved game and the JAX conversion all agree. The JSON codec of a state
(``allegra_rules.state_codec``, behind ``allegra_rules.serialize``) reads and writes each field
by its kind; ``ROUND_END_FIELDS`` declares a ``RoundEnd``'s fields alike for it.

Each field carries the saved-game schema version that added it (``added``), and
[`NEWEST_VERSION`][allegra_rules.fields.NEWEST_VERSION], declared here with the fields, is
the newest version. A game keeps the version it started in (its ``schema_version`` field):
its documents are written in that version, and a field added after it holds its
``default`` and is not written (see ``DefaultFrom`` for a default computed from the other
fields).

This module imports nothing of the package: it sits below the state.

Examples:
    >>> FIELDS["held"].seen, FIELDS["held"].owner
    (<Seen.OWNER: 'owner'>, 'drawer')
    >>> [f.name for f in STATE_FIELDS if f.seen is Seen.NOBODY]
    ['seed', 'draw_pile']
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs

__all__ = [
    "FIELDS",
    "NEWEST_VERSION",
    "NO_DEFAULT",
    "ROUND_END_FIELDS",
    "STATE_FIELDS",
    "VIEW_FIELDS",
    "VIEW_ONLY",
    "Bound",
    "DefaultFrom",
    "Kind",
    "Owner",
    "Seen",
    "StateField",
    "ViewField",
    "ViewKind",
    "attribute_default",
    "fields_after_newest",
    "later_fields",
    "one_per_seat",
]

NEWEST_VERSION = 2
"""The newest saved-game schema version: new games start in it.

Version 1 is the format of release 0.1.0; version 2 (release 0.2.0) adds the state's
``setup_named``, the ``last_round``'s ``removed``, the view's ``own_setup_named`` and the
options ``scoring_triples`` and ``setup_reveals``. A field declared with a larger
``added`` fails the generator (``python -m allegra_rules._generate_fast``) until this
is raised with it."""


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
    CELL_SET = "cell_set"
    """A tuple of distinct cells in ascending order, at most ``12 * n`` (a ``RoundEnd``'s)."""
    SCHEMA_VERSION = "schema_version"
    """The saved-game schema version a game is written in, ``1 .. NEWEST_VERSION`` and at
    least what its config needs; in JSON it is the document's ``schema_version`` key."""


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


class Owner(enum.Enum):
    """How the seat that may see a ``Seen.OWNER`` field is found (``StateField.owned_by``)."""

    SEAT_FIELD = "seat_field"
    """The seat that the state field ``owner_field`` holds; the view shows the value, or ``None``
    and its second view field True when the value is secret from the viewer."""
    PAIR_SEAT = "pair_seat"
    """Each ``(seat, card)`` pair's own seat; a view shows the card, or ``None`` when secret."""
    NAMING_PAIRS = "naming_pairs"
    """Item ``k`` (from 0) is seat ``(owner_field + k // 2) % num_players``'s; a view lists only
    the viewer's items (nobody's in the public view)."""


class Bound(enum.Enum):
    """The range of a ``PER_SEAT`` number (``StateField.bound``).

    A sum or a score is as large in absolute value as its kind of sum allows; a count
    runs from 0.
    """

    SETUP_SUM = "setup_sum"
    """A setup sum: two cards."""
    SCORE = "score"
    """A round's score or zone sum: a whole zone, doubled."""
    TOTAL = "total"
    """A game's total: three rounds' scores."""
    COUNT = "count"
    """A count of events in a round (knocks, say): ``0 ..`` the config's
    ``max_turns_per_round``."""


class _NoDefault(enum.Enum):
    NO_DEFAULT = "no default"

    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT = _NoDefault.NO_DEFAULT
"""The ``default`` of a field every saved game holds."""


@attrs.frozen(slots=True)
class DefaultFrom:
    """A field's default computed from the state's other fields (``StateField.default``).

    Attributes:
        make: takes the fields declared before this one, by name (a mapping), and
            returns the default.
        meaning: the default in words, for the docs and the schemas ("one 0 per seat").

    Examples:
        >>> one_per_seat(0).make({"num_players": 3})
        (0, 0, 0)
    """

    make: Callable[[Mapping[str, Any]], object]
    meaning: str


def attribute_default(name: str) -> Any:
    """The attrs default of the ``GameState`` (or ``PlayerView``) attribute of field ``name``.

    Its declared ``default``; for a ``DefaultFrom``, an ``attrs.Factory`` that computes it
    from the object's other fields. A later field's attribute reads
    ``knocks_made: tuple[int, ...] = attribute_default("knocks_made")``.
    """
    default = FIELDS[name].default
    if isinstance(default, DefaultFrom):
        make = default.make
        return attrs.Factory(lambda obj: make(_Attributes(obj)), takes_self=True)
    return default


class _Attributes(Mapping[str, Any]):
    """An object's attributes as a mapping (the argument of a ``DefaultFrom``)."""

    def __init__(self, obj: object) -> None:
        self._obj = obj

    def __getitem__(self, name: str) -> Any:
        return getattr(self._obj, name)

    def __iter__(self) -> Iterator[str]:
        return iter(f.name for f in STATE_FIELDS)

    def __len__(self) -> int:
        return len(STATE_FIELDS)


def one_per_seat(value: int) -> DefaultFrom:
    """The default "``value`` once per seat", for a per-seat field added later."""
    return DefaultFrom(lambda fields: (value,) * fields["num_players"], f"one {value} per seat")


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
        default: its value in a game of a schema version before ``added`` (such a
            game's documents lack it): a value, or a ``DefaultFrom`` that computes it
            from the fields before it; ``NO_DEFAULT`` when every version holds it. It is
            the attrs default of the ``GameState`` field too.
        added: the first saved-game schema version that holds the field
            (at most ``NEWEST_VERSION``).
        owned_by: for ``Seen.OWNER``, the rule that finds the owner (see ``Owner``).
        owner_field: the state field that rule reads (a seat, or the first naming seat).
        count_field: for ``Owner.NAMING_PAIRS``, the public field that counts the items so far.
        live_while: for ``Owner.NAMING_PAIRS``, the ``(attribute path, value)`` pairs under
            which the field may hold items (a ``determinize`` samples them only then).
        mask: for ``Seen.FACE_UP``, the bitmask field whose set bits hide a value.
        known_when: for a ``Seen.NOBODY`` pile, the count field that, when non-zero, makes its
            cards (not their order) known to everyone: the view's second field lists them sorted.
        bound: for ``Kind.PER_SEAT``, how large its numbers may be (see ``Bound``).
    """

    name: str
    kind: Kind
    seen: Seen = Seen.EVERYONE
    owner: str = ""
    secret_when: str = ""
    view: tuple[str, ...] | None = None
    default: object = NO_DEFAULT
    added: int = 1
    owned_by: Owner | None = None
    owner_field: str = ""
    count_field: str = ""
    live_while: tuple[tuple[str, str], ...] = ()
    mask: str = ""
    known_when: str = ""
    bound: Bound | None = None

    def default_for(self, fields: Mapping[str, Any]) -> object:
        """The default of this field in a state whose fields before it are ``fields``."""
        default = self.default
        return default.make(fields) if isinstance(default, DefaultFrom) else default

    def default_of(self, obj: object) -> object:
        """The default of this field in the state (or view) ``obj``, from its other fields."""
        default = self.default
        return default.make(_Attributes(obj)) if isinstance(default, DefaultFrom) else default

    @property
    def view_fields(self) -> tuple[str, ...]:
        """The ``PlayerView`` fields that show it: ``view``, or its own name if copied."""
        return (self.name,) if self.view is None else self.view

    @property
    def copied_to_view(self) -> bool:
        """Whether a view holds it unchanged, under the same name (no ``view`` declared)."""
        return self.seen is Seen.EVERYONE and self.view is None


_F = StateField

ROUND_END_FIELDS: tuple[StateField, ...] = (
    _F("round", Kind.ROUND),
    _F("cells", Kind.TABLE),  # every card turned face up
    _F("zone_sums", Kind.PER_SEAT, bound=Bound.SCORE),
    _F("ender", Kind.OPT_SEAT),
    _F("doubled", Kind.FLAG),
    _F("scores", Kind.PER_SEAT, bound=Bound.SCORE),
    _F("removed", Kind.CELL_SET, default=(), added=2),
)
"""Every field of a ``RoundEnd`` (a ``last_round``), in the class's order, declared alike."""

STATE_FIELDS: tuple[StateField, ...] = (
    _F("config", Kind.CONFIG),
    _F("num_players", Kind.SEAT_COUNT),
    _F("seed", Kind.SEED, Seen.NOBODY, view=()),  # it decides every shuffle
    _F("round", Kind.ROUND),
    _F("phase", Kind.PHASE),
    _F("current_player", Kind.OPT_SEAT),
    _F("cells", Kind.TABLE, Seen.FACE_UP, view=("cells",), mask="face_down"),
    _F("face_down", Kind.CELL_MASK, view=("face_down",)),  # in a view: one bool per cell
    _F(
        "draw_pile",
        Kind.CARDS,
        Seen.NOBODY,
        view=("draw_pile_size", "draw_pile_cards"),
        known_when="refills",  # a refill this round: its cards were all seen
    ),
    _F("discard_pile", Kind.CARDS),
    _F(
        "held",
        Kind.OPT_CARD,
        Seen.OWNER,
        owner="drawer",
        secret_when="held_was_face_down",
        view=("held", "held_hidden"),
        owned_by=Owner.SEAT_FIELD,
        owner_field="drawer",
    ),
    _F(
        "in_hand",
        Kind.HAND,
        Seen.OWNER,
        owner="each pair's seat (the knocker)",
        secret_when="hand_was_face_down",
        view=("in_hand",),
        owned_by=Owner.PAIR_SEAT,
    ),
    _F("out_of_play", Kind.CARDS),
    _F("start_seat", Kind.SEAT),
    _F("setup_reveals", Kind.REVEALS),
    _F("setup_sums", Kind.PER_SEAT, bound=Bound.SETUP_SUM),
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
    _F("totals", Kind.PER_SEAT, bound=Bound.TOTAL),
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
        owned_by=Owner.NAMING_PAIRS,
        owner_field="start_seat",
        count_field="setup_reveals",
        live_while=(("config.setup_reveals", "simultaneous"), ("phase", "setup")),
    ),
    # The version the game is written in: a game keeps the one it started in.
    _F("schema_version", Kind.SCHEMA_VERSION, default=NEWEST_VERSION),
)
"""Every field of a ``GameState``, in the class's order."""

FIELDS: dict[str, StateField] = {f.name: f for f in STATE_FIELDS}
"""``STATE_FIELDS`` by name."""


def fields_after_newest() -> str:
    """What is declared after ``NEWEST_VERSION``, which the generators refuse; else empty.

    Each such field is named ``state.x``, ``round_end.x`` or ``view.x`` with its ``added``
    (the declarations below are read when it is called).
    """
    declared = (("state", STATE_FIELDS), ("round_end", ROUND_END_FIELDS), ("view", VIEW_FIELDS))
    too_new = [
        f"{what}.{f.name} (added={f.added})"
        for what, fields in declared
        for f in fields
        if f.added > NEWEST_VERSION
    ]
    if not too_new:
        return ""
    return (
        f"{', '.join(too_new)} {'is' if len(too_new) == 1 else 'are'} added after the "
        f"newest schema version {NEWEST_VERSION}: raise NEWEST_VERSION in "
        "allegra_rules/fields.py with them"
    )


def later_fields(fields: tuple[StateField, ...], version: int) -> tuple[StateField, ...]:
    """The fields of ``fields`` added after schema ``version``.

    A game of that version holds each one's default, and its documents leave it out.
    """
    return tuple(f for f in fields if f.added > version)


VIEW_ONLY: tuple[str, ...] = ("viewer", "legal_actions")
"""The ``PlayerView`` fields that show no state field: the viewing seat, its legal actions."""


class ViewKind(enum.Enum):
    """What a ``PlayerView`` field that is not a copied state field holds (``VIEW_FIELDS``)."""

    VIEWER = "viewer"
    """The viewing seat, or ``None`` for the public view."""
    SHOWN_CELLS = "shown_cells"
    """Per cell the value of a face-up card, or ``None`` (a face-down card or a gap)."""
    CELL_FLAGS = "cell_flags"
    """Per cell a bool (the mask of a ``Seen.FACE_UP`` field)."""
    PILE_SIZE = "pile_size"
    """A count of cards, ``0 ..`` the deck's size."""
    KNOWN_CARDS = "known_cards"
    """``None``, or the cards of a pile in ascending order, as many as its ``about`` field says."""
    SHOWN_CARD = "shown_card"
    """A card value, or ``None`` (none, or hidden from the viewer)."""
    HIDDEN_FLAG = "hidden_flag"
    """A bool: True when a card is there that the viewer may not see; ``about`` is then ``None``."""
    SHOWN_HAND = "shown_hand"
    """At most one ``(seat, card)`` pair, the card ``None`` when hidden from the viewer."""
    ACTIONS = "actions"
    """A tuple of actions."""
    OWN_CELLS = "own_cells"
    """The cells the viewer named, at most two."""


@attrs.frozen(slots=True)
class ViewField:
    """One field of a ``PlayerView`` that no state field is copied to.

    Attributes:
        name: the attribute (and the key of a view document).
        kind: what it holds.
        shows: the state field it shows (see ``StateField.view``); empty for ``VIEW_ONLY``.
        about: another view field this one describes (a pile's size, a hidden card).
        shown_to: for a view-only field, the state field holding the one seat whose view
            computes it (others get it empty).
        added: the first view schema version that holds the field.
    """

    name: str
    kind: ViewKind
    shows: str = ""
    about: str = ""
    shown_to: str = ""
    added: int = 1


_V = ViewField

VIEW_FIELDS: tuple[ViewField, ...] = (
    _V("viewer", ViewKind.VIEWER),
    _V("cells", ViewKind.SHOWN_CELLS, shows="cells"),
    _V("face_down", ViewKind.CELL_FLAGS, shows="face_down"),
    _V("draw_pile_size", ViewKind.PILE_SIZE, shows="draw_pile"),
    _V("draw_pile_cards", ViewKind.KNOWN_CARDS, shows="draw_pile", about="draw_pile_size"),
    _V("held", ViewKind.SHOWN_CARD, shows="held"),
    _V("held_hidden", ViewKind.HIDDEN_FLAG, shows="held", about="held"),
    _V("in_hand", ViewKind.SHOWN_HAND, shows="in_hand"),
    _V("legal_actions", ViewKind.ACTIONS, shown_to="current_player"),
    _V("own_setup_named", ViewKind.OWN_CELLS, shows="setup_named", added=2),
)
"""Every ``PlayerView`` field that is not a state field copied as it is, in the class's order."""
