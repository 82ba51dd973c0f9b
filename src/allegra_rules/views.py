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

A view is what a player with perfect memory of the public events knows; it rebuilds nothing a player
cannot know. [`allegra_rules.determinize`][allegra_rules.determinize] samples full states consistent
with a view.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from operator import itemgetter
from typing import Any, cast

import attrs

import allegra_rules.invariants as inv
from allegra_rules import _fast
from allegra_rules.actions import Action
from allegra_rules.config import RuleConfig
from allegra_rules.fields import STATE_FIELDS
from allegra_rules.geometry import CELLS_PER_SEAT, Geometry, Pos, geometry
from allegra_rules.invariants import deck_counts
from allegra_rules.serialize import (
    ACTION_TYPES,
    MAX_DOCUMENT_BYTES,
    PUBLIC_KEYS,
    JsonPath,
    SaveFormatError,
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
    schema_version_for,
)
from allegra_rules.state import GameState, Phase, RoundEnd, _UnfrozenState
from allegra_rules.transitions import legal_actions

VIEW_KEYS: tuple[str, ...] = (
    "schema_version",
    "kind",
    "viewer",
    "config",
    "num_players",
    "cells",
    "face_down",
    "draw_pile_size",
    "draw_pile_cards",
    "held",
    "held_hidden",
    "in_hand",
    "legal_actions",
    *PUBLIC_KEYS,
    "own_setup_named",
)
"""Every key of a view document (schema version 2), all required."""

VIEW_KEYS_V1: tuple[str, ...] = VIEW_KEYS[:-1]
"""Every key of a schema version 1 view document, all required."""


@attrs.frozen(slots=True, repr=False, weakref_slot=False)
class PlayerView:
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

    def __attrs_post_init__(self) -> None:
        # A view built by hand has every field checked; observe builds its views
        # without this cost (see _make_view).
        _check_view_types(self)

    def __repr__(self) -> str:
        return (
            f"<PlayerView viewer={self.viewer} players={self.num_players} round={self.round} "
            f"phase={self.phase.value} current_player={self.current_player}>"
        )

    @property
    def geometry(self) -> Geometry:
        """The index tables of this table size."""
        return geometry(self.num_players)

    @property
    def is_terminal(self) -> bool:
        """True once the game is over."""
        return self.phase is Phase.OVER

    @property
    def is_my_turn(self) -> bool:
        """True when the viewer is the seat to act (never for the public view)."""
        return self.viewer is not None and self.current_player == self.viewer

    @property
    def discard_top(self) -> int | None:
        """The discard pile's top card, or ``None`` when the pile is empty."""
        return self.discard_pile[-1] if self.discard_pile else None

    def card(self, pos: Pos) -> int | None:
        """The value at ``pos`` if it lies face up, else ``None`` (face down or gap)."""
        return self.cells[self.geometry.index(pos)]

    def is_face_up(self, pos: Pos) -> bool:
        """Whether ``pos`` holds a face-up card."""
        return self.cells[self.geometry.index(pos)] is not None

    def is_hidden(self, pos: Pos) -> bool:
        """Whether ``pos`` holds a face-down card (its value is unknown)."""
        return self.face_down[self.geometry.index(pos)]

    def is_gap(self, pos: Pos) -> bool:
        """Whether ``pos`` is empty."""
        i = self.geometry.index(pos)
        return self.cells[i] is None and not self.face_down[i]

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

    def to_dict(self) -> dict[str, Any]:
        """The view as plain JSON data (see [`to_json`][allegra_rules.views.PlayerView.to_json])."""
        last = self.last_round
        version = schema_version_for(self.config)
        data = {
            "schema_version": version,
            "kind": "view",
            "viewer": self.viewer,
            "config": self.config.to_dict(),
            "num_players": self.num_players,
            "round": self.round,
            "phase": self.phase.value,
            "current_player": self.current_player,
            "cells": list(self.cells),
            "face_down": list(self.face_down),
            "draw_pile_size": self.draw_pile_size,
            "draw_pile_cards": None if self.draw_pile_cards is None else list(self.draw_pile_cards),
            "discard_pile": list(self.discard_pile),
            "held": self.held,
            "held_hidden": self.held_hidden,
            "in_hand": [{"player": p, "card": c} for p, c in self.in_hand],
            "out_of_play": list(self.out_of_play),
            "start_seat": self.start_seat,
            "setup_reveals": self.setup_reveals,
            "setup_sums": list(self.setup_sums),
            "drawer": self.drawer,
            "knockers": list(self.knockers),
            "knocker": self.knocker,
            "given_at": self.given_at,
            "taken_at": self.taken_at,
            "held_was_face_down": self.held_was_face_down,
            "hand_was_face_down": self.hand_was_face_down,
            "turns_played": self.turns_played,
            "ender": self.ender,
            "final_turns": list(self.final_turns),
            "refills": self.refills,
            "totals": list(self.totals),
            "round_scores": [list(scores) for scores in self.round_scores],
            "winners": list(self.winners),
            "last_round": None if last is None else round_end_to_dict(last, version),
            "legal_actions": [action_to_dict(a) for a in self.legal_actions],
        }
        if version >= 2:
            data["own_setup_named"] = list(self.own_setup_named)
        return data

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
        data = check_header(data, path, "view")
        data = get_object(data, path, VIEW_KEYS if data["schema_version"] >= 2 else VIEW_KEYS_V1)
        table = read_table(data, path)
        n = table.num_players
        public = read_public(data, path, table)
        cells, face_down = read_cells(data, path, table, hidden_values=True)
        size = get_int(
            data["draw_pile_size"], join(path, "draw_pile_size"), 0, table.config.deck_size
        )
        known = data["draw_pile_cards"]
        draw_cards = None
        if known is not None:
            draw_cards = table.cards(known, join(path, "draw_pile_cards"))
            if len(draw_cards) != size:
                fail(join(path, "draw_pile_cards"), f"must hold draw_pile_size={size} cards")
            if list(draw_cards) != sorted(draw_cards):
                fail(join(path, "draw_pile_cards"), "must be in ascending order")
        held = table.card_or_null(data["held"], join(path, "held"))
        held_hidden = get_bool(data["held_hidden"], join(path, "held_hidden"))
        if held_hidden and held is not None:
            fail(join(path, "held"), "must be null when held_hidden is true")
        hand_path = join(path, "in_hand")
        in_hand = []
        for i, item in enumerate(get_list(data["in_hand"], hand_path, most=1)):
            where = join(hand_path, i)
            entry = get_object(item, where, ("player", "card"))
            in_hand.append(
                (
                    table.seat(entry["player"], join(where, "player")),
                    table.card_or_null(entry["card"], join(where, "card")),
                )
            )
        actions_path = join(path, "legal_actions")
        items = get_list(data["legal_actions"], actions_path, most=5 + 37 * n)
        view = cls(
            viewer=table.seat_or_null(data["viewer"], join(path, "viewer")),
            config=table.config,
            num_players=n,
            cells=cells,
            face_down=face_down,
            draw_pile_size=size,
            draw_pile_cards=draw_cards,
            held=held,
            held_hidden=held_hidden,
            in_hand=tuple(in_hand),
            legal_actions=tuple(
                action_from_dict(x, join(actions_path, i), n) for i, x in enumerate(items)
            ),
            own_setup_named=read_setup_named(data, path, table, "own_setup_named"),
            **public,
        )
        _check_view(view, path)
        return view

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
        state = determinize(view, random.Random(0))
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
    n = state.num_players
    if player is not None and (type(player) is not int or not 0 <= player < n):
        raise ValueError(f"player must be a seat 0..{n - 1} or None; got {player!r}")
    face_down, cells = _hide(state.face_down, state.cells, n * CELLS_PER_SEAT)
    held = state.held
    held_hidden = False
    if held is not None and state.held_was_face_down and player != state.drawer:
        held, held_hidden = None, True
    in_hand: tuple[tuple[int, int | None], ...] = state.in_hand
    if in_hand and state.hand_was_face_down:
        in_hand = tuple((p, card if player == p else None) for p, card in in_hand)
    to_act = player is not None and player == state.current_player
    return _view(
        state,
        viewer=player,
        cells=cells,
        face_down=face_down,
        draw_pile_size=len(state.draw_pile),
        draw_pile_cards=tuple(sorted(state.draw_pile)) if state.refills else None,
        held=held,
        held_hidden=held_hidden,
        in_hand=in_hand,
        legal_actions=legal_actions(state) if to_act else (),
        own_setup_named=_own_named(state, player)
        if state.setup_named and player is not None
        else (),
    )


def _check_view_types(view: PlayerView) -> None:
    """Check the type, size and range of every field of a view built by hand.

    Raises:
        InvalidStateError: the first field of a wrong type, size or range.
    """
    size = inv.check_table_size(view)
    n, ncells, values = size.n, size.ncells, size.values
    if view.viewer is not None:  # None: the public view
        inv._int(view.viewer, "$.viewer", 0, n - 1)
    # The fields copied from the state, each by its declared kind; then the computed ones.
    inv.check_fields(view, _COPIED, size)
    inv._opt_cards(view.cells, "$.cells", values, ncells)
    for i, down in enumerate(inv._tuple(view.face_down, "$.face_down", length=ncells)):
        inv._bool(down, f"$.face_down[{i}]")
    inv._int(view.draw_pile_size, "$.draw_pile_size", 0, size.config.deck_size)
    if view.draw_pile_cards is not None:
        inv._cards(view.draw_pile_cards, "$.draw_pile_cards", values, size.config.deck_size)
    if view.held is not None:
        inv._card(view.held, "$.held", values)
    inv._bool(view.held_hidden, "$.held_hidden")
    for i, entry in enumerate(inv._tuple(view.in_hand, "$.in_hand", most=1)):
        pair = inv._tuple(entry, f"$.in_hand[{i}]", length=2)
        inv._int(pair[0], f"$.in_hand[{i}][0]", 0, n - 1)
        if pair[1] is not None:
            inv._card(pair[1], f"$.in_hand[{i}][1]", values)
    for i, action in enumerate(inv._tuple(view.legal_actions, "$.legal_actions")):
        if type(action) not in ACTION_TYPES:
            inv.fail(f"$.legal_actions[{i}]", f"must be an action; got {type(action).__name__}")
    inv._ints(view.own_setup_named, "$.own_setup_named", 0, ncells - 1, most=2)


_COPIED = tuple(field for field in STATE_FIELDS if field.copied_to_view)
"""The state's fields that a view holds as they are: those everyone may see."""


def _own_named(state: GameState, player: int) -> tuple[int, ...]:
    """The cells ``player`` named in a simultaneous setup (two per seat, from the start)."""
    n = state.num_players
    start = state.start_seat
    return tuple(cell for k, cell in enumerate(state.setup_named) if (start + k // 2) % n == player)


class _UnfrozenView:
    """PlayerView's unfrozen twin (see ``allegra_rules._fast``)."""

    __slots__ = PlayerView.__slots__


_Reader = Callable[[tuple[int | None, ...]], tuple[int | None, ...]]
_mask_cache: dict[int, tuple[tuple[bool, ...], _Reader]] = {}
_IS_DOWN = cast(Callable[[str], bool], {"0": False, "1": True}.get)
_last_hidden: tuple[object, int, tuple[bool, ...], tuple[int | None, ...]] = (None, 0, (), ())


def _hide(
    face_down: int, cells: tuple[int | None, ...], num_cells: int
) -> tuple[tuple[bool, ...], tuple[int | None, ...]]:
    """A view's ``face_down`` and ``cells``: the bitmask as bools, face-down values hidden.

    Consecutive states mostly share their mask, and often their cells tuple too. So
    the last answer is kept, and for each of the last 128 masks its bools and one
    ``itemgetter`` that reads the cells, taking each face-down cell from a trailing
    ``None``.
    """
    global _last_hidden
    top = 1 << num_cells
    key = face_down & (top - 1) | top  # the top bit keeps masks of other sizes apart
    last = _last_hidden
    if last[0] is cells and last[1] == key:
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
    shown = visible(cells + (None,))
    _last_hidden = (cells, key, down, shown)
    return down, shown


_view: Callable[..., PlayerView] = _fast.make_view(PlayerView, _UnfrozenView)
"""``_view(state, *, <the fields a view computes>)``: every public field copied from the state.

The public fields are those ``allegra_rules.fields`` declares seen by everyone; the builder is
generated in ``allegra_rules._fast`` (see there why it is fast).
"""


# ------------------------------------------------------------------ determinize
# Sampling a full state from a view lives with the views: loading a view checks it
# by sampling one (``_check_view``), and ``allegra_rules.determinize`` re-exports it.


def determinize(view: PlayerView, rng: random.Random) -> GameState:
    """A full state consistent with ``view``, its hidden cards drawn from ``rng``.

    The unseen cards ([`PlayerView.unseen_cards`][allegra_rules.views.PlayerView.unseen_cards]) are
    shuffled uniformly and dealt to the hidden places: the face-down cells in flat index order, then
    a hidden held card, then a hidden in-hand card, then the draw pile (top first) unless its cards
    are known, in which case only their order is shuffled. The seed, which decides every later
    shuffle, is drawn from ``rng`` too (64 bits). Each arrangement of the unseen cards is equally
    likely; nothing is inferred from how the players behaved. In a simultaneous setup
    (``setup_reveals= "simultaneous"``) the cells that other seats have named are hidden too: each
    is drawn uniformly from that seat's reveal area (two distinct cells per seat), after the cards
    are dealt.

    ``observe(determinize(view, rng), view.viewer) == view`` always holds, and the result passes the
    saved-game checks of [`allegra_rules.state_from_json`][allegra_rules.serialize.state_from_json].
    The same view and the same ``rng`` state give the same result.

    Args:
        view: what a player knows (from [`allegra_rules.observe`][allegra_rules.views.observe]).
        rng: the random source; it is advanced.

    Raises:
        ValueError: ``view`` is not a ``PlayerView``, ``rng`` is not a
            ``random.Random``, or the view is inconsistent (it shows more copies of
            a card than the deck holds, hides a different number of cards than
            are unseen, or lists other than the viewer's own setup namings so far).

    Examples:
        >>> import random
        >>> from allegra_rules import new_game, observe
        >>> view = observe(new_game(3, seed=9), 1)
        >>> sample = determinize(view, random.Random(4))
        >>> observe(sample, 1) == view
        True
    """
    if not isinstance(view, PlayerView):
        raise ValueError(f"view must be a PlayerView; got {type(view).__name__}")
    if not isinstance(rng, random.Random):
        raise ValueError(f"rng must be a random.Random; got {type(rng).__name__}")
    unseen = list(view.unseen_cards())
    hidden_cells = [i for i, down in enumerate(view.face_down) if down]
    hidden_hand = sum(1 for _, card in view.in_hand if card is None)
    draw_known = view.draw_pile_cards is not None
    slots = (
        len(hidden_cells)
        + int(view.held_hidden)
        + hidden_hand
        + (0 if draw_known else view.draw_pile_size)
    )
    if len(unseen) != slots:
        raise ValueError(
            f"the view hides {slots} card(s), but {len(unseen)} card(s) of the deck are unseen"
        )
    rng.shuffle(unseen)
    deal = iter(unseen)
    cells = list(view.cells)
    for i in hidden_cells:
        cells[i] = next(deal)
    held = next(deal) if view.held_hidden else view.held
    in_hand = tuple((p, next(deal) if card is None else card) for p, card in view.in_hand)
    if view.draw_pile_cards is not None:
        pile = list(view.draw_pile_cards)
        rng.shuffle(pile)
        draw = tuple(pile)
    else:
        draw = tuple(deal)
    # Every field everyone may see is copied from the view (see allegra_rules.fields).
    return _state_of_view(
        view,
        setup_named=_namings(view, rng),  # before the seed: both draw from rng
        seed=rng.getrandbits(64),
        cells=tuple(cells),
        face_down=sum(1 << i for i in hidden_cells),
        draw_pile=draw,
        held=held,
        in_hand=in_hand,
    )


_state_of_view: Callable[..., GameState] = _fast.make_state_of_view(GameState, _UnfrozenState)
"""``_state_of_view(view, *, <the fields not everyone may see>)``, unchecked (``_fast``)."""


def _namings(view: PlayerView, rng: random.Random) -> tuple[int, ...]:
    """The cells named so far in a simultaneous setup: the viewer's, others drawn."""
    if view.config.setup_reveals != "simultaneous" or view.phase is not Phase.SETUP:
        return ()
    geo = geometry(view.num_players)
    seats = [(view.start_seat + k // 2) % view.num_players for k in range(view.setup_reveals)]
    own = 0 if view.viewer is None else seats.count(view.viewer)
    if len(view.own_setup_named) != own:
        raise ValueError(
            f"own_setup_named must hold the {own} cells the viewer has named so far; "
            f"got {len(view.own_setup_named)}"
        )
    mine = iter(view.own_setup_named)
    named: list[int] = []
    for k, seat in enumerate(seats):
        if seat == view.viewer:
            named.append(next(mine))
            continue
        area = geo.zone_sorted[seat] if view.config.reveal_area == "zone" else geo.own[seat]
        choices = [i for i in area if view.face_down[i] and not (k % 2 and i == named[-1])]
        if not choices:
            raise ValueError(f"seat {seat} has no face-down card of its area left to name")
        named.append(rng.choice(choices))
    return tuple(named)
