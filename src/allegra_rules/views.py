"""What one seat may know: ``observe`` turns a full state into a ``PlayerView``.

A view holds every public fact of the state and the seat's private knowledge, and
nothing else:

- Face-down cards are hidden: their cells read ``None`` and ``face_down`` is True.
  Nobody knows a face-down card, not even its owner.
- The draw pile's order is hidden; the view gives its size. After a refill in the
  current round (``refills > 0``) the pile holds exactly the discard-pile cards that
  were shuffled into it minus the cards drawn since, all of which everyone saw, so
  the view also gives its cards as a sorted multiset (``draw_pile_cards``).
- A card drawn from the draw pile is shown to everyone (``held`` in the phases
  ``knock``, ``hold_deck`` and ``knocker_swap``); a card taken from the discard pile
  was face up. Knocks are public.
- In a knock exchange the drawer may take a face-down card from the knocker's area:
  only the drawer sees it while it is held (``held_was_face_down``); others get
  ``held=None`` and ``held_hidden=True``. The knocker's replaced card in ``in_hand``
  may have lain face down: only the knocker sees it then (``hand_was_face_down``);
  others get ``None`` for its value.
- With ``setup_reveals="simultaneous"`` the cells other seats have named in the
  setup are secret until they all turn up together; the view lists only the cells
  the viewer named itself (``own_setup_named``), never their values.
- The seed is secret (it decides every shuffle); so is everything it implies.
- Everything else is public: scores, totals, the whole discard pile (each card was
  face up when put there), ``out_of_play``, the previous round's table, whose turn
  it is, and the legal actions when the viewer is the one to act.

Each of these rules is declared once, with the field, in
[`allegra_rules.fields`][allegra_rules.fields] (``Seen``, ``Owner``, ``secret_when``, ``mask``,
``known_when``, ``view``; ``VIEW_FIELDS`` for the view's own fields): ``observe``'s masking,
``determinize``'s sampling and the view's JSON are built from that declaration, and name no field.
[`private_seats`][allegra_rules.views.private_seats],
[`private_cards`][allegra_rules.views.private_cards] and
[`private_namings`][allegra_rules.views.private_namings] say which seats know what the public view
does not (the server and the OpenSpiel observer use them).

A view is what a player with perfect memory of the public events knows; it rebuilds nothing a player
cannot know. [`allegra_rules.determinize`][allegra_rules.determinize] samples full states consistent
with a view.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from operator import attrgetter, itemgetter
from typing import Any, NoReturn, cast

import attrs

import allegra_rules.invariants as inv
from allegra_rules import _fast
from allegra_rules.actions import Action
from allegra_rules.config import RuleConfig
from allegra_rules.fields import (
    FIELDS,
    NEWEST_VERSION,
    STATE_FIELDS,
    VIEW_FIELDS,
    Kind,
    Owner,
    Seen,
    StateField,
    ViewField,
    ViewKind,
)
from allegra_rules.geometry import Pos
from allegra_rules.invariants import deck_counts
from allegra_rules.jsondoc import SCHEMA_VERSIONS
from allegra_rules.sampling import FACE_UP as _FACE_UP
from allegra_rules.sampling import config_of as _config_of
from allegra_rules.sampling import mask_view_of as _mask_view_of
from allegra_rules.sampling import sample_state
from allegra_rules.sampling import seats_of as _seats_of
from allegra_rules.sampling import the_field as _the_field
from allegra_rules.serialize import (
    ACTION_TYPES,
    MAX_DOCUMENT_BYTES,
    PUBLIC_KEYS,
    JsonPath,
    SaveFormatError,
    ValidValues,
    action_from_dict,
    action_to_dict,
    check_header,
    consistent,
    dumps,
    fail,
    get_bool,
    get_int,
    get_list,
    get_object,
    join,
    load_document,
    read_cells,
    read_public,
    read_setup_named,
    read_table,
    round_end_to_dict,
)
from allegra_rules.state import GameState, Phase, RoundEnd, _Table
from allegra_rules.transitions import legal_actions


@attrs.frozen(slots=True, repr=False, weakref_slot=False)
class PlayerView(_Table):
    """Everything seat ``viewer`` may know at one moment of a game. Frozen.

    Build one with [`observe`][allegra_rules.views.observe]. The fields that a
    [`GameState`][allegra_rules.state.GameState] also has mean the same there (see its docs); only
    these differ:

    Attributes:
        viewer: the seat this view belongs to, or ``None`` for the public view
            (``observe(state, None)``): what every seat sees, with no private card and
            no ``legal_actions``.
        config: the rule options (public).
        num_players: the seat count.
        round: the current round, 1-based.
        phase: what the game waits for.
        current_player: the seat that acts next, or ``None`` when terminal.
        cells: per flat cell index ``seat * 12 + row * 4 + col``, the value of a
            face-up card, or ``None`` for a face-down card or a gap.
        face_down: per cell, True when it holds a face-down (hidden) card.
        draw_pile_size: how many cards the draw pile holds.
        draw_pile_cards: the draw pile's cards in ascending order when every player
            knows them (after a refill this round), else ``None``. Never the order.
        discard_pile: the discard pile, bottom first.
        held: the held card when the viewer may see it, else ``None``.
        held_hidden: True when a card is held but the viewer may not see it.
        in_hand: ``(player, card)`` pairs; ``card`` is ``None`` when hidden from
            the viewer.
        out_of_play: cards of removed triples.
        start_seat: the seat this round's setup started at.
        setup_reveals: setup reveals made this round.
        setup_sums: per seat, the sum of its setup reveals.
        drawer: the seat whose turn it is, or ``None``.
        knockers: seats that knocked for the current card, clockwise.
        knocker: the knocker that was given the card, or ``None``.
        given_at: flat index where the knocker put the given card, or ``None``.
        taken_at: flat index of the knock gap, or ``None``.
        held_was_face_down: the card the drawer took in a knock exchange lay face down.
        hand_was_face_down: the knocker's replaced card lay face down.
        turns_played: turns started this round.
        ender: the seat that triggered the round end, or ``None``.
        final_turns: seats still due their last turn, in order.
        refills: draw-pile refills this round.
        totals: cumulative score per seat.
        round_scores: one tuple of per-seat scores per finished round.
        winners: the winning seats once the game is over, else empty.
        last_round: how the latest finished round ended (every card face up).
        legal_actions: the legal actions when the viewer is to act, else empty.
        own_setup_named: with ``setup_reveals="simultaneous"``, the cells the viewer
            itself has named in the current setup (flat indices, in naming order);
            the cells other seats named are not shown.
        schema_version: the schema version of the viewed game, which its document is
            written in (``GameState.schema_version``).
    """

    viewer: int | None
    config: RuleConfig
    num_players: int
    round: int
    phase: Phase
    current_player: int | None
    cells: tuple[int | None, ...]
    face_down: tuple[bool, ...]
    draw_pile_size: int
    draw_pile_cards: tuple[int, ...] | None
    discard_pile: tuple[int, ...]
    held: int | None
    held_hidden: bool
    in_hand: tuple[tuple[int, int | None], ...]
    out_of_play: tuple[int, ...]
    start_seat: int
    setup_reveals: int
    setup_sums: tuple[int, ...]
    drawer: int | None
    knockers: tuple[int, ...]
    knocker: int | None
    given_at: int | None
    taken_at: int | None
    held_was_face_down: bool
    hand_was_face_down: bool
    turns_played: int
    ender: int | None
    final_turns: tuple[int, ...]
    refills: int
    totals: tuple[int, ...]
    round_scores: tuple[tuple[int, ...], ...]
    winners: tuple[int, ...]
    last_round: RoundEnd | None
    legal_actions: tuple[Action, ...]
    own_setup_named: tuple[int, ...] = ()
    schema_version: int = NEWEST_VERSION

    def __attrs_post_init__(self) -> None:
        # A view built by hand has every field checked; observe builds its views
        # without this cost (see _make_view).
        _check_view_types(self)

    def __repr__(self) -> str:
        return (
            f"<PlayerView viewer={self.viewer} players={self.num_players} round={self.round} "
            f"phase={self.phase.value} current_player={self.current_player}>"
        )

    def _lies_face_down(self, i: int) -> bool:
        return self.face_down[i]

    @property
    def is_my_turn(self) -> bool:
        """True when the viewer is the seat to act (never for the public view)."""
        return self.viewer is not None and self.current_player == self.viewer

    def is_hidden(self, pos: Pos) -> bool:
        """Whether ``pos`` holds a face-down card (its value is unknown)."""
        return self.face_down[self.geometry.index(pos)]

    def visible_cards(self) -> Counter[int]:
        """Every card of the current round the viewer can see or knows, as a multiset.

        Face-up cells, the discard pile, ``out_of_play``, the held and in-hand cards
        the viewer may see, and ``draw_pile_cards`` when known.
        """
        seen: Counter[int] = Counter(v for v in self.cells if v is not None)
        seen.update(self.discard_pile)
        seen.update(self.out_of_play)
        seen.update(card for _, card in self.in_hand if card is not None)
        if self.held is not None:
            seen[self.held] += 1
        if self.draw_pile_cards is not None:
            seen.update(self.draw_pile_cards)
        return seen

    def unseen_cards(self) -> tuple[int, ...]:
        """The cards whose whereabouts the viewer does not know, ascending.

        The config's deck minus [`visible_cards`][allegra_rules.views.PlayerView.visible_cards]:
        exactly the cards that lie in hidden places (face-down cells, a hidden held or in-hand card,
        and the draw pile unless ``draw_pile_cards`` is known).

        Raises:
            ValueError: the view shows more copies of a card than the deck holds.
        """
        deck = deck_counts(self.config)
        seen = self.visible_cards()
        for card, copies in sorted(seen.items()):
            if copies > deck.get(card, 0):
                raise ValueError(
                    f"the view shows {copies} card(s) {card}, but the deck holds "
                    f"{deck.get(card, 0)}"
                )
        return tuple(sorted(Counter({v: k - seen[v] for v, k in deck.items()}).elements()))

    def own_private_cards(self) -> tuple[tuple[int, ...], ...]:
        """The viewer's cards that the public view does not show, per ``PRIVATE_CARD_FIELDS``.

        A held card that lay face down, when the viewer drew it; the viewer's replaced card in a
        knock exchange, when it lay face down. Empty in the public view.
        """
        return _own_private_cards(self)

    def to_dict(self) -> dict[str, Any]:
        """The view as plain JSON data (see [`to_json`][allegra_rules.views.PlayerView.to_json])."""
        return _view_to_dict(self)

    def to_json(self) -> str:
        """The view as a canonical JSON document (``"kind": "view"``).

        Safe to send to its seat: it holds nothing that seat may not know.
        """
        return dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: object, path: JsonPath = "$") -> PlayerView:
        """Load parsed view data, checking types, ranges and consistency.

        The view must be one that [`observe`][allegra_rules.views.observe] can produce from some
        valid state: the loader builds such a state with
        [`allegra_rules.determinize`][allegra_rules.determinize] and checks it like a saved game.

        Raises:
            SaveFormatError: anything malformed or inconsistent; the message names
                the path.
        """
        return _view_from_dict(cls, data, path)

    @classmethod
    def from_json(cls, text: str | bytes, *, max_bytes: int = MAX_DOCUMENT_BYTES) -> PlayerView:
        """Load a view document written by ``to_json``, checking everything.

        Raises:
            SaveFormatError: anything malformed or inconsistent; the message names
                the path.
        """
        return load_document(text, cls.from_dict, max_bytes=max_bytes, what="view")


def _check_view(view: PlayerView, path: JsonPath) -> None:
    """Fail unless ``view`` is what ``observe`` gives for some valid state."""
    try:
        state = sample_state(view, random.Random(0))  # determinize's sample
    except ValueError as exc:
        fail(path, f"inconsistent view: {exc}")
    try:
        consistent(state, path)
    except SaveFormatError as exc:
        fail(exc.path, f"inconsistent view: {exc.reason}")
    again = observe(state, view.viewer)
    if again != view:
        for field in attrs.fields(PlayerView):
            if getattr(again, field.name) != getattr(view, field.name):
                fail(
                    join(path, field.name),
                    f"inconsistent view: for this game it must be {getattr(again, field.name)!r}",
                )


# ------------------------------------------------------------------ the declaration, resolved
# Everything below reads the state's and the view's fields through the declaration
# (allegra_rules.fields): no field is named here, so a field declared there is masked,
# sampled, written, read and checked by its Seen, Owner or kind.


_CONFIG = _the_field(Kind.CONFIG)
_SEAT_COUNT = _the_field(Kind.SEAT_COUNT)
_VERSION = _the_field(Kind.SCHEMA_VERSION)

_VIEW_FIELD: dict[str, ViewField] = {f.name: f for f in VIEW_FIELDS}
_COPIED = tuple(field for field in STATE_FIELDS if field.copied_to_view)
"""The state's fields that a view holds as they are: those everyone may see."""
_HEADER = (_VERSION, "kind")  # the version field is the header's schema_version
_PUBLIC = frozenset(PUBLIC_KEYS)
_VIEW_ORDER = tuple(f.name for f in attrs.fields(PlayerView))


def _added(name: str) -> int:
    """The first view schema version that holds view field ``name``."""
    declared = _VIEW_FIELD.get(name)
    return FIELDS[name].added if declared is None else declared.added


VIEW_KEYS: tuple[str, ...] = (
    *_HEADER,
    *(n for n in _VIEW_ORDER if n not in _PUBLIC and n not in _HEADER and _added(n) == 1),
    *PUBLIC_KEYS,
    *(n for n in _VIEW_ORDER if n not in _PUBLIC and n not in _HEADER and _added(n) > 1),
)
"""Every key of a view document (schema version 2), all required."""

VIEW_KEYS_V1: tuple[str, ...] = tuple(k for k in VIEW_KEYS if k in _HEADER or _added(k) == 1)
"""Every key of a schema version 1 view document, all required."""

_VIEW_KEYS_OF = {
    v: tuple(k for k in VIEW_KEYS if k in _HEADER or _added(k) <= v) for v in SCHEMA_VERSIONS
}
"""Every key of a view document of each schema version, all required."""


def _secret_of(field: StateField) -> Callable[[Any], object]:
    """Whether ``field`` is secret now: its ``secret_when`` flag, or always when none."""
    return attrgetter(field.secret_when) if field.secret_when else _always


def _always(obj: object) -> bool:
    return True


def _own_items(items: tuple[int, ...], first: int, n: int, seat: int) -> tuple[int, ...]:
    """The items of an ``Owner.NAMING_PAIRS`` field that ``seat`` owns.

    Item ``k`` is seat ``(first + k // 2) % n``'s.
    """
    return tuple(x for k, x in enumerate(items) if (first + k // 2) % n == seat)


_MASKS_SHOWN = frozenset(f.mask for f in _FACE_UP)
assert all(
    f.name in _MASKS_SHOWN for f in STATE_FIELDS if f.seen is Seen.EVERYONE and f.view is not None
), "a public field with view fields must be a FACE_UP field's mask"


# ------------------------------------------------------------------ private knowledge

_PRIVATE_CARD_RULES = (Owner.SEAT_FIELD, Owner.PAIR_SEAT)
PRIVATE_CARD_FIELDS: tuple[str, ...] = tuple(
    f.name for f in STATE_FIELDS if f.owned_by in _PRIVATE_CARD_RULES
)
"""The state fields whose cards their owner may see alone (``Seen.OWNER``), in order."""

_Pairs = tuple[tuple[int | None, int], ...]


def _private_finder(field: StateField) -> Callable[[GameState], _Pairs]:
    value_of, secret_of = attrgetter(field.name), _secret_of(field)
    if field.owned_by is Owner.SEAT_FIELD:
        owner_of = attrgetter(field.owner_field)

        def seat_field(state: GameState) -> _Pairs:
            value = value_of(state)
            if value is None or not secret_of(state):
                return ()
            return ((owner_of(state), value),)

        return seat_field

    def pair_seat(state: GameState) -> _Pairs:
        pairs = value_of(state)
        if not pairs or not secret_of(state):
            return ()
        return tuple((p, card) for p, card in pairs if card is not None)

    return pair_seat


def _own_private_finder(field: StateField) -> Callable[[PlayerView], tuple[int, ...]]:
    # The secret flag is public: a view holds it under the state's name.
    assert not field.secret_when or FIELDS[field.secret_when].copied_to_view
    shown_of, secret_of = attrgetter(field.view_fields[0]), _secret_of(field)
    if field.owned_by is Owner.SEAT_FIELD:

        def seat_field(view: PlayerView) -> tuple[int, ...]:
            value = shown_of(view)
            return (value,) if value is not None and secret_of(view) else ()

        return seat_field

    def pair_seat(view: PlayerView) -> tuple[int, ...]:
        if not secret_of(view):
            return ()
        me = view.viewer
        return tuple(card for p, card in shown_of(view) if p == me and card is not None)

    return pair_seat


_PRIVATE_FINDERS = tuple(_private_finder(FIELDS[name]) for name in PRIVATE_CARD_FIELDS)
_OWN_PRIVATE_FINDERS = tuple(_own_private_finder(FIELDS[name]) for name in PRIVATE_CARD_FIELDS)
_NAMINGS = tuple(f for f in STATE_FIELDS if f.owned_by is Owner.NAMING_PAIRS)


def private_cards(state: GameState) -> tuple[_Pairs, ...]:
    """The cards that only their owner may see, per field of ``PRIVATE_CARD_FIELDS``.

    Each entry lists ``(owner seat, card)`` pairs: a card that only that seat's view shows
    (a held card that lay face down: its drawer's; a knocker's replaced card that lay face
    down: the knocker's). The public view shows none of them.

    Examples:
        >>> from allegra_rules import new_game
        >>> private_cards(new_game(2, seed=3))
        ((), ())
    """
    return tuple(find(state) for find in _PRIVATE_FINDERS)


def private_seats(state: GameState) -> frozenset[int]:
    """The seats whose view shows a card that the public view does not (``private_cards``).

    Examples:
        >>> from allegra_rules import new_game
        >>> private_seats(new_game(2, seed=3))
        frozenset()
    """
    return frozenset(
        seat for found in _PRIVATE_FINDERS for seat, _ in found(state) if seat is not None
    )


def private_namings(state: GameState) -> tuple[tuple[int, int], ...]:
    """The cells named so far in a simultaneous setup, as ``(naming seat, cell)`` pairs.

    Each seat's view lists its own (``own_setup_named``); the public view lists none.

    Examples:
        >>> from allegra_rules import Pos, Reveal, RuleConfig, apply, new_game
        >>> state = new_game(2, config=RuleConfig(setup_reveals="simultaneous"), seed=1)
        >>> private_namings(apply(state, Reveal(Pos(0, 1, 2))))
        ((0, 6),)
    """
    out: list[tuple[int, int]] = []
    for field in _NAMINGS:
        first, n = getattr(state, field.owner_field), _seats_of(state)
        out += (((first + k // 2) % n, x) for k, x in enumerate(getattr(state, field.name)))
    return tuple(out)


def _own_private_cards(view: PlayerView) -> tuple[tuple[int, ...], ...]:
    return tuple(find(view) for find in _OWN_PRIVATE_FINDERS)


# ------------------------------------------------------------------ the view codec

_Write = Callable[[Any, int], Any]


def _listed(value: Any, version: int) -> Any:
    return list(value)


def _pairs(value: Any, version: int) -> Any:
    return [{"player": p, "card": c} for p, c in value]


_WRITE: dict[Kind | ViewKind, _Write | None] = {
    Kind.CONFIG: lambda config, version: config.to_dict(),
    Kind.SEAT_COUNT: None,
    Kind.ROUND: None,
    Kind.PHASE: lambda phase, version: phase.value,
    Kind.SEAT: None,
    Kind.OPT_SEAT: None,
    Kind.SEATS: _listed,
    Kind.OPT_CELL: None,
    Kind.CELLS: _listed,
    Kind.CARDS: _listed,
    Kind.OPT_CARD: None,
    Kind.HAND: _pairs,
    Kind.REVEALS: None,
    Kind.TURNS: None,
    Kind.REFILLS: None,
    Kind.PER_SEAT: _listed,
    Kind.SCORE_ROWS: lambda rows, version: [list(row) for row in rows],
    Kind.FLAG: None,
    Kind.ROUND_END: lambda last, version: (
        None if last is None else round_end_to_dict(last, version)
    ),
    Kind.SCHEMA_VERSION: None,  # the header's schema_version
    ViewKind.VIEWER: None,
    ViewKind.SHOWN_CELLS: _listed,
    ViewKind.CELL_FLAGS: _listed,
    ViewKind.PILE_SIZE: None,
    ViewKind.KNOWN_CARDS: lambda cards, version: None if cards is None else list(cards),
    ViewKind.SHOWN_CARD: None,
    ViewKind.HIDDEN_FLAG: None,
    ViewKind.SHOWN_HAND: _pairs,
    ViewKind.ACTIONS: lambda actions, version: [action_to_dict(a) for a in actions],
    ViewKind.OWN_CELLS: _listed,
}
"""How a view field of each kind is written as JSON data (``None``: as it is)."""


def _kind_of(name: str) -> Kind | ViewKind:
    declared = _VIEW_FIELD.get(name)
    return FIELDS[name].kind if declared is None else declared.kind


_VIEW_NAMES = tuple(_VIEW_ORDER)
_read_all = attrgetter(*_VIEW_NAMES)
_CONVERTS = tuple(
    (name, write) for name in _VIEW_NAMES if (write := _WRITE[_kind_of(name)]) is not None
)
_LATER = tuple((name, _added(name)) for name in _VIEW_NAMES if _added(name) > 1)


def _view_to_dict(view: PlayerView) -> dict[str, Any]:
    """``PlayerView.to_dict``: each field written by its kind, in the class's order."""
    data: dict[str, Any] = {"kind": "view"}
    data.update(zip(_VIEW_NAMES, _read_all(view), strict=True))
    version = data[_VERSION]
    for name, write in _CONVERTS:
        data[name] = write(data[name], version)
    for name, added in _LATER:
        if version < added:
            del data[name]
    return data


_Read = Callable[[ViewField, dict[str, Any], JsonPath, ValidValues, dict[str, Any]], None]


def _read_viewer(
    f: ViewField, data: dict[str, Any], path: JsonPath, table: ValidValues, got: dict[str, Any]
) -> None:
    got[f.name] = table.seat_or_null(data[f.name], join(path, f.name))


def _read_shown_cells(
    f: ViewField, data: dict[str, Any], path: JsonPath, table: ValidValues, got: dict[str, Any]
) -> None:
    # The cells and their mask are read together (the mask's own entry reads nothing).
    got[f.name], got[_mask_view_of(FIELDS[f.shows])] = read_cells(
        data, path, table, hidden_values=True
    )


def _read_nothing(
    f: ViewField, data: dict[str, Any], path: JsonPath, table: ValidValues, got: dict[str, Any]
) -> None:
    return


def _read_pile_size(
    f: ViewField, data: dict[str, Any], path: JsonPath, table: ValidValues, got: dict[str, Any]
) -> None:
    got[f.name] = get_int(data[f.name], join(path, f.name), 0, _config_of(table).deck_size)


def _read_known_cards(
    f: ViewField, data: dict[str, Any], path: JsonPath, table: ValidValues, got: dict[str, Any]
) -> None:
    known, where = data[f.name], join(path, f.name)
    cards = None
    if known is not None:
        cards = table.cards(known, where)
        size = got[f.about]
        if len(cards) != size:
            fail(where, f"must hold {f.about}={size} cards")
        if list(cards) != sorted(cards):
            fail(where, "must be in ascending order")
    got[f.name] = cards


def _read_shown_card(
    f: ViewField, data: dict[str, Any], path: JsonPath, table: ValidValues, got: dict[str, Any]
) -> None:
    got[f.name] = table.card_or_null(data[f.name], join(path, f.name))


def _read_hidden_flag(
    f: ViewField, data: dict[str, Any], path: JsonPath, table: ValidValues, got: dict[str, Any]
) -> None:
    hidden = got[f.name] = get_bool(data[f.name], join(path, f.name))
    if hidden and got[f.about] is not None:
        fail(join(path, f.about), f"must be null when {f.name} is true")


def _read_shown_hand(
    f: ViewField, data: dict[str, Any], path: JsonPath, table: ValidValues, got: dict[str, Any]
) -> None:
    where = join(path, f.name)
    pairs = []
    for i, item in enumerate(get_list(data[f.name], where, most=1)):
        at = join(where, i)
        entry = get_object(item, at, ("player", "card"))
        pairs.append(
            (
                table.seat(entry["player"], join(at, "player")),
                table.card_or_null(entry["card"], join(at, "card")),
            )
        )
    got[f.name] = tuple(pairs)


def _read_actions(
    f: ViewField, data: dict[str, Any], path: JsonPath, table: ValidValues, got: dict[str, Any]
) -> None:
    where, n = join(path, f.name), _seats_of(table)
    items = get_list(data[f.name], where, most=5 + 37 * n)
    got[f.name] = tuple(action_from_dict(x, join(where, i), n) for i, x in enumerate(items))


def _read_own_cells(
    f: ViewField, data: dict[str, Any], path: JsonPath, table: ValidValues, got: dict[str, Any]
) -> None:
    got[f.name] = read_setup_named(data, path, table, f.name)


_READ: dict[ViewKind, _Read] = {
    ViewKind.VIEWER: _read_viewer,
    ViewKind.SHOWN_CELLS: _read_shown_cells,
    ViewKind.CELL_FLAGS: _read_nothing,
    ViewKind.PILE_SIZE: _read_pile_size,
    ViewKind.KNOWN_CARDS: _read_known_cards,
    ViewKind.SHOWN_CARD: _read_shown_card,
    ViewKind.HIDDEN_FLAG: _read_hidden_flag,
    ViewKind.SHOWN_HAND: _read_shown_hand,
    ViewKind.ACTIONS: _read_actions,
    ViewKind.OWN_CELLS: _read_own_cells,
}
"""How a view document's field of each view kind is read (the public ones: ``read_public``)."""


def _view_from_dict(cls: type[PlayerView], data: object, path: JsonPath) -> PlayerView:
    """``PlayerView.from_dict``."""
    data = check_header(data, path, "view")
    data = get_object(data, path, _VIEW_KEYS_OF[data[_VERSION]])
    table = read_table(data, path)
    public = read_public(data, path, table)
    got: dict[str, Any] = {name: getattr(table, name) for name in (_CONFIG, _SEAT_COUNT)}
    got[_VERSION] = table.version
    for field in VIEW_FIELDS:
        _READ[field.kind](field, data, path, table, got)
    view = cls(**got, **public)
    _check_view(view, path)
    return view


_Check = Callable[[Any, str, Any], object]


def _check_viewer(value: Any, path: str, size: Any) -> None:
    if value is not None:  # None: the public view
        inv._int(value, path, 0, size.n - 1)


def _check_cell_flags(value: Any, path: str, size: Any) -> None:
    for i, down in enumerate(inv._tuple(value, path, length=size.ncells)):
        inv._bool(down, f"{path}[{i}]")


def _check_known_cards(value: Any, path: str, size: Any) -> None:
    if value is not None:
        inv._cards(value, path, size.values, _config_of(size).deck_size)


def _check_shown_card(value: Any, path: str, size: Any) -> None:
    if value is not None:
        inv._card(value, path, size.values)


def _check_shown_hand(value: Any, path: str, size: Any) -> None:
    for i, entry in enumerate(inv._tuple(value, path, most=1)):
        pair = inv._tuple(entry, f"{path}[{i}]", length=2)
        inv._int(pair[0], f"{path}[{i}][0]", 0, size.n - 1)
        if pair[1] is not None:
            inv._card(pair[1], f"{path}[{i}][1]", size.values)


def _check_actions(value: Any, path: str, size: Any) -> None:
    for i, action in enumerate(inv._tuple(value, path)):
        if type(action) not in ACTION_TYPES:
            inv.invalid(f"{path}[{i}]", f"must be an action; got {type(action).__name__}")


_CHECK: dict[ViewKind, _Check] = {
    ViewKind.VIEWER: _check_viewer,
    ViewKind.SHOWN_CELLS: lambda v, path, size: inv._opt_cards(v, path, size.values, size.ncells),
    ViewKind.CELL_FLAGS: _check_cell_flags,
    ViewKind.PILE_SIZE: lambda v, path, size: inv._int(v, path, 0, _config_of(size).deck_size),
    ViewKind.KNOWN_CARDS: _check_known_cards,
    ViewKind.SHOWN_CARD: _check_shown_card,
    ViewKind.HIDDEN_FLAG: lambda v, path, size: inv._bool(v, path),
    ViewKind.SHOWN_HAND: _check_shown_hand,
    ViewKind.ACTIONS: _check_actions,
    ViewKind.OWN_CELLS: lambda v, path, size: inv._ints(v, path, 0, size.ncells - 1, most=2),
}
"""How a view field of each view kind is type-checked (the copied ones: by their state kind)."""

_CHECKS = tuple((attrgetter(f.name), f"$.{f.name}", _CHECK[f.kind]) for f in VIEW_FIELDS)


def _check_view_types(view: PlayerView) -> None:
    """Check the type, size and range of every field of a view built by hand.

    Raises:
        InvalidStateError: the first field of a wrong type, size or range.
    """
    size = inv.check_table_size(view)
    # The fields copied from the state, each by its declared kind; then the computed ones.
    inv.check_fields(view, _COPIED, size)
    for get, path, check in _CHECKS:
        check(get(view), path, size)


# ------------------------------------------------------------------ observe

_Mask = Callable[[Any, "int | None", dict[str, Any]], None]
"""``mask(state, viewer, out)``: put into ``out`` the view fields that a state field shows."""


def _mask_face_up(field: StateField) -> _Mask:
    """A value per cell, hidden where the declared mask is set (and the mask as bools)."""
    values_of, mask_of = attrgetter(field.name), attrgetter(field.mask)
    (shown,) = field.view_fields
    flags = _mask_view_of(field)

    def mask(state: Any, viewer: int | None, out: dict[str, Any]) -> None:
        values = values_of(state)
        out[flags], out[shown] = _hide(mask_of(state), values, len(values))

    return mask


def _mask_pile(field: StateField) -> _Mask:
    """A pile nobody may see: its size, and its sorted cards while ``known_when`` is non-zero."""
    pile_of = attrgetter(field.name)
    known_of = attrgetter(field.known_when) if field.known_when else _never
    size, cards = field.view_fields

    def mask(state: Any, viewer: int | None, out: dict[str, Any]) -> None:
        pile = pile_of(state)
        out[size] = len(pile)
        out[cards] = tuple(sorted(pile)) if known_of(state) else None

    return mask


def _never(obj: object) -> bool:
    return False


def _mask_seat_field(field: StateField) -> _Mask:
    """A value that its owner (the seat of ``owner_field``) alone sees while secret.

    The others get ``None`` and the second view field True.
    """
    value_of, secret_of, owner_of = (
        attrgetter(field.name),
        _secret_of(field),
        attrgetter(field.owner_field),
    )
    shown, hidden = field.view_fields

    def mask(state: Any, viewer: int | None, out: dict[str, Any]) -> None:
        value = value_of(state)
        if value is not None and secret_of(state) and viewer != owner_of(state):
            out[shown] = None
            out[hidden] = True
        else:
            out[shown] = value
            out[hidden] = False

    return mask


def _mask_pair_seat(field: StateField) -> _Mask:
    """``(seat, card)`` pairs: while secret, each card is shown to its pair's seat alone."""
    pairs_of, secret_of = attrgetter(field.name), _secret_of(field)
    (shown,) = field.view_fields

    def mask(state: Any, viewer: int | None, out: dict[str, Any]) -> None:
        pairs = pairs_of(state)
        if pairs and secret_of(state):
            pairs = tuple((p, card if viewer == p else None) for p, card in pairs)
        out[shown] = pairs

    return mask


def _mask_naming_pairs(field: StateField) -> _Mask:
    """Items named two per seat from ``owner_field`` on: the viewer's own items only."""
    items_of, first_of = attrgetter(field.name), attrgetter(field.owner_field)
    (shown,) = field.view_fields

    def mask(state: Any, viewer: int | None, out: dict[str, Any]) -> None:
        items = items_of(state)
        out[shown] = (
            _own_items(items, first_of(state), _seats_of(state), viewer)
            if items and viewer is not None
            else ()
        )

    return mask


def _mask_to_act(field: ViewField) -> _Mask:
    """A view-only field (the legal actions) given to the seat of ``shown_to`` alone."""
    name, seat_of = field.name, attrgetter(field.shown_to)

    def mask(state: Any, viewer: int | None, out: dict[str, Any]) -> None:
        out[name] = legal_actions(state) if viewer is not None and viewer == seat_of(state) else ()

    return mask


_OWNER_MASKS: dict[Owner, Callable[[StateField], _Mask]] = {
    Owner.SEAT_FIELD: _mask_seat_field,
    Owner.PAIR_SEAT: _mask_pair_seat,
    Owner.NAMING_PAIRS: _mask_naming_pairs,
}
_NOBODY_MASKS: dict[Kind, Callable[[StateField], _Mask]] = {Kind.CARDS: _mask_pile}
_VIEW_ONLY_MASKS: dict[ViewKind, Callable[[ViewField], _Mask]] = {ViewKind.ACTIONS: _mask_to_act}
(_VIEWER,) = (f.name for f in VIEW_FIELDS if f.kind is ViewKind.VIEWER)
"""The view field of the viewing seat (``observe`` sets it)."""


def _plan_masks(
    fields: tuple[StateField, ...] = STATE_FIELDS, view_fields: tuple[ViewField, ...] = VIEW_FIELDS
) -> tuple[_Mask, ...]:
    """``observe``'s plan: one ``mask(state, viewer, out)`` per field that a view does not copy.

    ``_observe_by_plan`` runs it; ``observe`` runs the same rules as code generated from the
    declaration (``allegra_rules._generate_fast``), which a test checks against it.

    Each is chosen by the field's ``Seen`` (and ``Owner`` or kind) from the declaration: a
    ``Seen.EVERYONE`` field is copied (or shown with the ``FACE_UP`` field it masks), a ``NOBODY``
    field with no view fields is left out; ``observe`` sets the viewing seat itself.
    """
    plan: list[_Mask] = []
    for view_field in view_fields:
        if not view_field.shows and view_field.kind is not ViewKind.VIEWER:
            plan.append(_VIEW_ONLY_MASKS[view_field.kind](view_field))
    for field in fields:
        if field.seen is Seen.FACE_UP:
            plan.append(_mask_face_up(field))
        elif field.seen is Seen.OWNER:
            assert field.owned_by is not None, field.name
            plan.append(_OWNER_MASKS[field.owned_by](field))
        elif field.seen is Seen.NOBODY and field.view:
            plan.append(_NOBODY_MASKS[field.kind](field))
    return tuple(plan)


_MASKS = _plan_masks()


def observe(state: GameState, player: int | None) -> PlayerView:
    """What seat ``player`` may know of ``state`` right now; ``None``: the public view.

    The public view (``observe(state, None)``) is what every seat sees: ``viewer`` is
    ``None``, ``legal_actions`` is empty, a held card that lay face down is hidden
    (``held`` None, ``held_hidden`` True), a knocker's replaced card that lay face
    down reads ``None`` in ``in_hand``, and ``own_setup_named`` is empty. Every other
    field equals that of every seat's view. Spectators, servers and adapters use it;
    it is the only way the package builds a public view.

    Args:
        state: the full state.
        player: the viewing seat, or ``None`` for the public view.

    Raises:
        ValueError: ``player`` is neither ``None`` nor a seat of the game.

    Examples:
        >>> from allegra_rules import new_game
        >>> view = observe(new_game(2, seed=3), 0)
        >>> view.cells[:4], view.draw_pile_size
        ((None, None, None, None), 95)
        >>> public = observe(new_game(2, seed=3), None)
        >>> public.viewer, public.legal_actions
        (None, ())
    """
    if not isinstance(state, GameState):
        raise ValueError(f"state must be a GameState; got {type(state).__name__}")
    return _observe(state, player)  # it checks the player (``_not_a_seat``)


def _not_a_seat(state: GameState, player: object) -> NoReturn:
    raise ValueError(f"player must be a seat 0..{_seats_of(state) - 1} or None; got {player!r}")


def _observe_by_plan(state: GameState, player: int | None) -> PlayerView:
    """``observe`` by its plan (``_MASKS``), unchecked: the reference definition of ``_observe``.

    Each field's rule is one call here; ``allegra_rules._generate_fast`` writes the same rules
    inline, one code template per rule, as one function into ``allegra_rules._fast``
    (``make_observe``), which ``observe`` runs. A test checks that both give equal views.
    """
    out: dict[str, Any] = {_VIEWER: player}
    for mask in _MASKS:
        mask(state, player, out)
    return _view(state, **out)


class _UnfrozenView(_Table):
    """PlayerView's unfrozen twin (see ``allegra_rules._fast``)."""

    __slots__ = PlayerView.__slots__


_Reader = Callable[[tuple[int | None, ...]], tuple[int | None, ...]]
_mask_cache: dict[int, tuple[tuple[bool, ...], _Reader]] = {}
_IS_DOWN = cast(Callable[[str], bool], {"0": False, "1": True}.get)
_last_hidden: tuple[object, int, tuple[bool, ...], tuple[int | None, ...]] = (None, 0, (), ())


def _hide(
    mask: int, values: tuple[int | None, ...], num_cells: int
) -> tuple[tuple[bool, ...], tuple[int | None, ...]]:
    """A ``Seen.FACE_UP`` field's view: the bitmask as bools, the masked values hidden.

    Consecutive states mostly share their mask, and often their values tuple too. So
    the last answer is kept, and for each of the last 128 masks its bools and one
    ``itemgetter`` that reads the values, taking each masked value from a trailing
    ``None``.
    """
    global _last_hidden
    top = 1 << num_cells
    key = mask & (top - 1) | top  # the top bit keeps masks of other sizes apart
    last = _last_hidden
    if last[0] is values and last[1] == key:
        return last[2], last[3]
    entry = _mask_cache.get(key)
    if entry is None:
        down = tuple(map(_IS_DOWN, format(key, "b")[:0:-1]))
        if len(_mask_cache) >= 128:
            _mask_cache.clear()
        entry = _mask_cache[key] = (
            down,
            itemgetter(*(num_cells if d else i for i, d in enumerate(down))),
        )
    down, visible = entry
    shown = visible(values + (None,))
    _last_hidden = (values, key, down, shown)
    return down, shown


_view: Callable[..., PlayerView] = _fast.built(
    PlayerView, _UnfrozenView, "make_view", reads=GameState
)
"""``_view(state, **<the fields a view computes>)``: every public field copied from the state.

The public fields are those ``allegra_rules.fields`` declares seen by everyone; the builder is
generated in ``allegra_rules._fast_builders`` (see ``_fast`` why it is fast).
"""

_observe: Callable[[GameState, int | None], PlayerView] = _fast.built(
    PlayerView,
    _UnfrozenView,
    "make_observe",
    reads=GameState,
    hide=_hide,
    legal=legal_actions,
    not_a_seat=_not_a_seat,
)
"""``_observe(state, viewer)``: ``observe`` but for the state's type check, each field's declared
rule inline.

Generated into ``allegra_rules._fast`` from the declaration, one code template per rule of
``_plan_masks``; ``_observe_by_plan`` is its reference definition.
"""


def __getattr__(name: str) -> object:
    # ``determinize`` lived here until it moved to ``allegra_rules.determinize``.
    if name == "determinize":
        import importlib
        import warnings

        warnings.warn(
            "allegra_rules.views.determinize moved: import it from allegra_rules (or "
            "allegra_rules.determinize)",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module("allegra_rules.determinize").determinize
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
