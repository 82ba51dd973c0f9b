"""The immutable game state.

A [`GameState`][allegra_rules.state.GameState] is a frozen, slotted attrs class. Cells live in one
flat tuple indexed by ``seat * 12 + row * 4 + col`` (``None`` for a gap); which cards lie face down
is one int bitmask. Every transition builds a new state that shares all unchanged tuples with its
parent, so keeping a whole game's history is cheap.

This module imports nothing above it: the import graph is one-way (config and geometry, the
state's parts, checks and codec, then the state, then the transitions, then everything that reads
states). A state checks itself and reads and writes its JSON with modules below it, which work on
the declaration of the fields (``allegra_rules.fields``): ``allegra_rules.state_checks`` (every
check of ``check_state`` but one: that a live state has a legal action, which is the rules'
question and so is asked above, by ``check_state`` and ``state_from_json``) and
``allegra_rules.state_codec``. [`Phase`][allegra_rules.state.Phase] and
[`RoundEnd`][allegra_rules.state.RoundEnd] are defined below it too (``allegra_rules.round_end``)
and re-exported here. A picture of a state is [`render_svg`][allegra_rules.svg.render_svg]'s,
which a Jupyter notebook shows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from allegra_rules import _fast
from allegra_rules.actions import Action
from allegra_rules.config import RuleConfig
from allegra_rules.geometry import Geometry, Pos, check_seat, geometry
from allegra_rules.round_end import Phase, RoundEnd
from allegra_rules.round_end import trusted_round_end as trusted_round_end

# The documented names; the engine's constructors of trusted states are its own.
__all__ = ["GameState", "Phase", "RoundEnd"]


def _newest_version() -> int:
    """``allegra_rules.fields.NEWEST_VERSION``, as generated into ``_fast_builders``.

    Importing the declaration would cost a twentieth of ``import allegra_rules``; while
    ``_fast`` lacks the constant (before the generator has run), the declaration's own.
    """
    generated = getattr(_fast, "NEWEST_VERSION", None)
    if isinstance(generated, int):
        return generated
    from allegra_rules.fields import NEWEST_VERSION as declared

    return declared


NEWEST_VERSION: int = _newest_version()
"""The newest saved-game schema version, which new games start in (see ``allegra_rules.fields``)."""


class _Table:
    """The accessors that a state and a view share: the table read alike in both.

    Written once for [`GameState`][allegra_rules.state.GameState] and
    [`PlayerView`][allegra_rules.views.PlayerView]; each says how it stores which cells lie
    face down (``_lies_face_down``). A state's ``cells`` hold every card, face up or down;
    a view's hold only the face-up ones.
    """

    __slots__ = ()

    num_players: int
    phase: Phase
    cells: tuple[int | None, ...]
    discard_pile: tuple[int, ...]

    def _lies_face_down(self, i: int) -> bool:
        """Whether cell ``i`` holds a face-down card."""
        raise NotImplementedError

    @property
    def geometry(self) -> Geometry:
        """The index tables of this table size."""
        return geometry(self.num_players)

    @property
    def is_terminal(self) -> bool:
        """True once the game is over."""
        return self.phase is Phase.OVER

    @property
    def discard_top(self) -> int | None:
        """The discard pile's top card, or ``None`` when the pile is empty."""
        pile = self.discard_pile
        return pile[-1] if pile else None

    def card(self, pos: Pos) -> int | None:
        """The value at ``pos``, or ``None`` for a gap.

        A state holds every card, face up or down; a view only the face-up ones, so a
        view's face-down card is ``None`` too (``is_hidden`` tells it from a gap).
        """
        return self.cells[self.geometry.index(pos)]

    def is_face_up(self, pos: Pos) -> bool:
        """Whether ``pos`` holds a face-up card (a gap is not face up)."""
        i = self.geometry.index(pos)
        return self.cells[i] is not None and not self._lies_face_down(i)

    def is_gap(self, pos: Pos) -> bool:
        """Whether ``pos`` is empty (no card, face up or down)."""
        i = self.geometry.index(pos)
        return self.cells[i] is None and not self._lies_face_down(i)


def require_state(state: object, what: str = "state") -> GameState:
    """``state`` if it is a ``GameState``, else ``ValueError`` naming ``what``."""
    if not isinstance(state, GameState):
        raise ValueError(f"{what} must be a GameState; got {type(state).__name__}")
    return state


@attrs.frozen(slots=True, repr=False, weakref_slot=False)
class GameState(_Table):
    """A moment of a game. Frozen: every transition returns a new state.

    Build one with [`allegra_rules.new_game`][allegra_rules.transitions.new_game]; advance it with
    [`allegra_rules.apply`][allegra_rules.transitions.apply]. The fields below are read-only;
    ``cells`` and ``face_down`` are the raw table, [`card`][allegra_rules.state.GameState.card] and
    [`is_face_up`][allegra_rules.state.GameState.is_face_up] read it by
    [`Pos`][allegra_rules.geometry.Pos].

    Attributes:
        config: the rule options of this game.
        num_players: seats ``0..num_players-1``, clockwise.
        seed: the seed every shuffle of this game is drawn from.
        round: the current round, 1-based (stays at the last round once over).
        phase: what the game waits for.
        current_player: the seat that acts next, or ``None`` when terminal.
        cells: flat tuple of card values, ``None`` for a gap.
        face_down: bitmask; bit ``i`` set when cell ``i`` holds a face-down card.
        draw_pile: the draw pile, top first.
        discard_pile: the discard pile, bottom first (its last card is the top).
        held: the card the acting player holds, or ``None``.
        in_hand: ``(player, card)`` pairs outside grids and piles other than
            ``held``: a knocker's replaced card during a knock exchange.
        out_of_play: cards of removed triples (with ``removed_cards="out_of_play"``).
        start_seat: the seat this round's setup started at.
        setup_reveals: how many setup reveals this round has seen (``2 * n`` when done).
        setup_sums: per seat, the sum of the two cards it revealed in setup (with
            ``setup_reveals="simultaneous"``: 0 until the named cells turn up).
        drawer: the seat whose turn it is, or ``None`` outside a turn.
        knockers: seats that knocked for the current draw-pile card, clockwise.
        knocker: the knocker that was given the card, or ``None``.
        given_at: flat index where the knocker put the given card, or ``None``.
        taken_at: flat index of the knock gap (the card the drawer took), or ``None``.
        held_was_face_down: in a knock exchange, the card the drawer took (now
            ``held``) lay face down: only the drawer has seen it.
        hand_was_face_down: in a knock exchange, the knocker's replaced card (now in
            ``in_hand``) lay face down: only the knocker has seen it.
        turns_played: turns started this round (a turn starts with its draw).
        ender: the seat that triggered the round end, or ``None``.
        final_turns: seats still due their one last turn, in order.
        refills: how often this round's draw pile has been refilled.
        totals: cumulative score per seat.
        round_scores: one tuple of per-seat scores per finished round.
        winners: seats with the lowest total once the game is over, else empty.
        last_round: how the latest finished round ended, or ``None``.
        setup_named: with ``setup_reveals="simultaneous"``, the cells named so far in
            this setup, as flat indices in naming order (two per seat, from the start
            seat); they lie face down until the last one is named. Always empty
            otherwise.
        schema_version: the saved-game schema version the game is written in
            (``to_json``): the newest for a new game, else the version of the document
            it was read from. A game keeps it; a field added in a later version holds
            its default (see ``allegra_rules.fields``).
    """

    # Each field is declared once in allegra_rules.fields (its kind, who may see it, its
    # default for old saves); tests/test_fields.py checks that this list agrees with it.
    config: RuleConfig
    num_players: int
    seed: int
    round: int
    phase: Phase
    current_player: int | None
    cells: tuple[int | None, ...]
    face_down: int
    draw_pile: tuple[int, ...]
    discard_pile: tuple[int, ...]
    held: int | None
    in_hand: tuple[tuple[int, int], ...]
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
    setup_named: tuple[int, ...] = ()
    schema_version: int = NEWEST_VERSION
    _legal: tuple[Action, ...] | None = attrs.field(
        default=None, init=False, eq=False, hash=False, repr=False
    )

    def __attrs_post_init__(self) -> None:
        # Nothing inconsistent is ever stored in a state: a state built by hand (or with
        # attrs.evolve) is checked as the loader checks a saved game (every field, and
        # that a game can reach it), all but "a live state has a legal action", which
        # is the rules' question (check_state asks it too); the engine's own states are
        # built without this cost (see trusted_state).
        from allegra_rules.state_checks import check_without_rules  # below: see _checks_and_codec

        check_without_rules(self)

    def __repr__(self) -> str:
        return (
            f"<GameState players={self.num_players} round={self.round} "
            f"phase={self.phase.value} current_player={self.current_player}>"
        )

    def _lies_face_down(self, i: int) -> bool:
        return bool((self.face_down >> i) & 1)

    def zone(self, player: int) -> tuple[Pos, ...]:
        """The 15 cells of ``player``'s zone: its own 12 and the left neighbour's column 3.

        Zone row ``r`` reads ``[Pos(left, r, 3), Pos(player, r, 0), ..., Pos(player, r, 3)]``;
        the result lists the three zone rows in order.
        """
        geo = self.geometry
        check_seat(player, self.num_players)
        return tuple(geo.positions[i] for i in geo.zone[player])

    def zone_sum(self, player: int) -> int:
        """The sum of every card in ``player``'s zone, face up or down (gaps count 0).

        Raises:
            ValueError: ``player`` is not a seat of the game.
        """
        check_seat(player, self.num_players)
        cells = self.cells
        return sum(v for i in self.geometry.zone[player] if (v := cells[i]) is not None)

    def to_json(self) -> str:
        """The state as a canonical JSON saved game (see ``allegra_rules.serialize``)."""
        from allegra_rules.state_codec import state_json  # below: see _checks_and_codec

        return state_json(self)

    @classmethod
    def from_json(cls, text: str | bytes, *, max_bytes: int | None = None) -> GameState:
        """Load a saved game written by ``to_json``, checking it as a hand-built state is checked.

        Every check of [`state_from_json`][allegra_rules.serialize.state_from_json] but one: that
        a state which is not over has a legal action (a question for the rules, which sit above
        the state); ``state_from_json`` asks it too.

        Args:
            text: the document.
            max_bytes: the largest document read; ``None``: ``MAX_DOCUMENT_BYTES`` (4 MiB).

        Raises:
            SaveFormatError: a malformed, inconsistent or tampered document (a
                ``ValueError``); the message names the path of the bad field.
        """
        from allegra_rules.jsondoc import MAX_DOCUMENT_BYTES, load_document  # see _checks_and_codec

        limit = MAX_DOCUMENT_BYTES if max_bytes is None else max_bytes
        return load_document(text, _state_from_data, max_bytes=limit, what="state")

    def all_cards(self) -> Counter[int]:
        """Every card of the game wherever it is, as a multiset of values."""
        found: Counter[int] = Counter(v for v in self.cells if v is not None)
        found.update(self.draw_pile)
        found.update(self.discard_pile)
        found.update(self.out_of_play)
        found.update(card for _, card in self.in_hand)
        if self.held is not None:
            found[self.held] += 1
        return found


class _UnfrozenState(_Table):
    """GameState's unfrozen twin: the same base and slots, without the frozen ``__setattr__``.

    The engine builds a new state by filling the slots of a twin with plain attribute stores and
    then switching the object's class to [`GameState`][allegra_rules.state.GameState] (CPython
    allows it because the two layouts are identical); the builders are in ``allegra_rules._fast``,
    which says why. A twin never leaves the engine: every state a caller sees is a frozen
    ``GameState``.
    """

    __slots__ = GameState.__slots__


MISSING: Any = object()
"""The default of an optional argument of ``trusted_evolve``: keep the source's value."""


def state_builder(
    changed: Sequence[str], fixed: Mapping[str, Any] | None = None
) -> Callable[..., GameState]:
    """The fast copier of a state that replaces ``changed`` and sets ``fixed``.

    The copier takes the source state and every field of ``changed`` as a keyword argument;
    the ``fixed`` fields take the given values, every other field is copied. It is the code
    generated in ``allegra_rules._fast_builders`` for this ``_copier(...)`` call of the
    transitions (``allegra_rules._fast`` says why it is fast); nothing is checked: the engine
    vouches for the values.

    When no copier is generated for these names, or the generated code is not current,
    the copier is a stand-in that raises ``RuntimeError`` when called, saying to run
    ``python -m allegra_rules._generate_fast --write`` (which imports the package); when
    a name is no field of ``GameState``, which no generator fixes, it says so instead.
    """
    fixed = dict(fixed or {})
    key = (tuple(changed), tuple(fixed))
    unknown = sorted(set(key[0] + key[1]) - set(GameState.__slots__))
    if unknown:  # no generator fixes a wrong name: say what is wrong instead
        return _fast.stand_in(f"copier {key}", f"{unknown} are not GameState fields")
    copiers: dict[Any, Any] = getattr(_fast, "COPIERS", {})  # none before the generator ran
    make = copiers.get(key)
    if make is None or not _fast.current(GameState):
        return _fast.stand_in(f"copier {key}")
    build: Callable[..., GameState] = make(GameState, _UnfrozenState, **fixed)
    return build


def _later_default(name: str, given: Mapping[str, Any]) -> object:
    """The default of the later field ``name`` of a state whose other fields are ``given``."""
    from allegra_rules.fields import FIELDS

    return FIELDS[name].default_for(given)


trusted_state: Callable[..., GameState] = _fast.built(
    GameState, _UnfrozenState, "make_trusted_state", MISSING, _later_default
)
"""A ``GameState`` from fields the engine vouches for, without checking them.

``GameState(...)`` checks the type, size and range of every field (its callers may pass
anything); the engine's own constructions (a deal, a loaded document whose every field the
loader has checked, a determinized sample) skip that cost. Every init field is a keyword
argument; ``setup_named`` may be left out (empty). Generated in ``allegra_rules._fast_builders``.
"""

trusted_evolve: Callable[..., GameState] = _fast.built(
    GameState, _UnfrozenState, "make_trusted_evolve", MISSING
)
"""A copy of a state with the fields given as keyword arguments replaced, unchecked.

``attrs.evolve(state, ...)`` checks the new state as ``GameState(...)`` does; the engine's
transitions (and a picture of a moment no state shows) vouch for their values. Generated in
``allegra_rules._fast``.
"""


def _state_from_data(data: object, path: str = "$") -> GameState:
    """``GameState.from_json``'s loader of parsed data: every check but the rules'."""
    from allegra_rules import state_codec  # see _checks_and_codec
    from allegra_rules.state_checks import check_without_rules

    state = trusted_state(**state_codec.read_state(data, path))
    state_codec.consistent(state, path, check_without_rules)
    return state


# _checks_and_codec: the modules of a state's checks and JSON (state_checks, state_codec,
# jsondoc) sit below the state, so importing them is no upward import; they are imported where
# they are first used, not with the state: the engine's own states never need them, and with them
# ``import allegra_rules`` took a quarter longer (122 against 98 ms, side by side).
