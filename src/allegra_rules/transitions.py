"""The rules in motion: ``new_game``, ``legal_actions`` and ``apply``.

``legal_actions`` is the single source of truth for what may happen: ``apply`` accepts exactly the
actions it lists (and equal ones) and explains any other. Each rule option is read here, where its
rule is applied, except the triple and scoring options, which live in
[`allegra_rules.triples`][allegra_rules.triples] and
[`allegra_rules.scoring`][allegra_rules.scoring].

A turn is a short sequence of actions (draw; maybe a knock window; swap, discard and
reveal, or the three-step knock exchange). Play *settles* after each setup reveal and
at the end of each turn: triples are removed, the round end is checked, then play
passes on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from functools import cache
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from allegra_rules.actions import (
    DISCARD,
    DRAW_DECK,
    DRAW_DISCARD,
    KNOCK,
    PASS,
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
    interned_actions,
)
from allegra_rules.config import RuleConfig
from allegra_rules.geometry import CELLS_PER_SEAT, Geometry, Pos, geometry
from allegra_rules.knocking import first_asked, knocking_applies, next_asked
from allegra_rules.presets import preset
from allegra_rules.round_end import ROUNDS as _ROUNDS
from allegra_rules.scoring import round_scores, winners, zone_sums
from allegra_rules.shuffle import DEFAULT_SEED, check_seed, seed_from_deck, shuffled, stream
from allegra_rules.state import (
    NEWEST_VERSION,
    GameState,
    Phase,
    RoundEnd,
    state_builder,
    trusted_evolve,
    trusted_state,
)
from allegra_rules.triples import new_triples, table_triples

if TYPE_CHECKING:
    from allegra_rules.fields import StateField

ROUNDS = _ROUNDS
"""Rounds in a game (defined below the state, in ``allegra_rules.round_end``, for its checks)."""


class IllegalActionError(ValueError):
    """An action that is not legal in the given state. The state is unchanged.

    Attributes:
        action: the rejected action.
        reason: why it is not legal now.
    """

    def __init__(self, action: object, reason: str) -> None:
        self.action = action
        self.reason = reason
        super().__init__(f"{action!r} is not legal now: {reason}")


# --------------------------------------------------------------------------- setup


def _round_deck(config: RuleConfig, seed: int, round_number: int) -> tuple[int, ...]:
    return shuffled(config.deck_cards(), stream(seed, "deal", round_number))


def _check_deck(config: RuleConfig, deck: object) -> tuple[int, ...]:
    if not isinstance(deck, (list, tuple)):
        raise ValueError(f"deck must be a list or tuple of card values; got {type(deck).__name__}")
    cards = tuple(deck)
    bad = [c for c in cards if type(c) is not int]
    if bad:
        raise ValueError(f"deck must hold int card values; got {bad[0]!r}")
    want = Counter(config.deck_cards())
    got = Counter(cards)
    if got != want:
        extra = sorted((got - want).items())
        missing = sorted((want - got).items())
        parts = []
        if extra:
            parts.append("extra " + ", ".join(f"{n}x {v}" for v, n in extra))
        if missing:
            parts.append("missing " + ", ".join(f"{n}x {v}" for v, n in missing))
        raise ValueError(
            f"deck must hold exactly the config's {config.deck_size} cards; it has "
            f"{len(cards)} ({'; '.join(parts)})"
        )
    return cards


_NO_TURN: dict[str, Any] = {
    "held": None,
    "in_hand": (),
    "knockers": (),
    "knocker": None,
    "given_at": None,
    "taken_at": None,
    "held_was_face_down": False,
    "hand_was_face_down": False,
}
"""The fields of a turn in progress as they are when none is: after a deal, between two
turns and once the game is over (``drawer`` is ``None`` too, but between two turns)."""


def _deal(
    config: RuleConfig,
    n: int,
    seed: int,
    round_number: int,
    order: tuple[int, ...],
    totals: tuple[int, ...],
    scores: tuple[tuple[int, ...], ...],
    last_round: RoundEnd | None,
    version: int,
) -> GameState:
    cut = CELLS_PER_SEAT * n
    start = (round_number - 1) % n
    return trusted_state(
        config=config,
        num_players=n,
        seed=seed,
        round=round_number,
        phase=Phase.SETUP,
        current_player=start,
        cells=order[:cut],
        face_down=(1 << cut) - 1,
        draw_pile=order[cut + 1 :],
        discard_pile=(order[cut],),
        out_of_play=(),
        start_seat=start,
        setup_reveals=0,
        setup_sums=(0,) * n,
        drawer=None,
        **_NO_TURN,
        turns_played=0,
        ender=None,
        final_turns=(),
        refills=0,
        totals=totals,
        round_scores=scores,
        winners=(),
        last_round=last_round,
        schema_version=version,
    )


def new_game(
    num_players: int,
    *,
    config: RuleConfig | None = None,
    seed: int | None = None,
    deck: Sequence[int] | None = None,
    schema_version: int | None = None,
) -> GameState:
    """Deal round 1 of a new game and return its first state (setup reveals).

    Args:
        num_players: seats, from ``config.min_players`` to ``config.max_players``
            and at most what the deck can deal (12 per seat plus 2).
        config: the rules; ``None`` means ``preset("seeds")``.
        seed: every shuffle of the game is drawn from it, an int of at most 256 bits
            (``shuffle.MIN_SEED`` to ``shuffle.MAX_SEED``). ``None`` means a fixed
            default seed, or, when ``deck`` is given, a seed derived from the deck.
        deck: the whole deck in draw order, top first, as a list or tuple holding
            exactly the config's cards. Seat 0 gets the first 12 cards row by row,
            seat 1 the next 12 and so on; the next card starts the discard pile; the
            rest is the draw pile.
            Without it round 1 is shuffled from ``seed``; later rounds always are.
        schema_version: the saved-game schema version the game is written in, which
            it keeps (``GameState.schema_version``). ``None`` means the newest
            (``SCHEMA_VERSION``); an older one replays a game stored in that version to
            the very documents it wrote (``GameRecord`` does). It must be able to hold
            the config (``schema_version_for``).

    Raises:
        ValueError: a seat count, seed, config, deck or schema version that cannot be
            played.

    Examples:
        >>> state = new_game(4, seed=7)
        >>> state.phase, state.current_player, len(state.draw_pile)
        (Phase.SETUP, 0, 71)
    """
    if config is None:
        config = preset("seeds")
    elif not isinstance(config, RuleConfig):
        raise ValueError(f"config must be a RuleConfig or None; got {type(config).__name__}")
    if type(num_players) is not int:
        raise ValueError(f"num_players must be an int; got {num_players!r}")
    if not config.min_players <= num_players <= config.max_players:
        raise ValueError(
            f"num_players must be {config.min_players}..{config.max_players} "
            f"(RuleConfig.min_players..max_players); got {num_players}"
        )
    need = CELLS_PER_SEAT * num_players + 2
    if config.deck_size < need:
        raise ValueError(
            f"num_players={num_players} needs a deck of at least {need} cards "
            f"(12 per player + 2); RuleConfig.deck has {config.deck_size}"
        )
    if seed is not None:
        check_seed(seed)
    if deck is not None:
        order = _check_deck(config, deck)
        if seed is None:
            seed = seed_from_deck(order)
    else:
        if seed is None:
            seed = DEFAULT_SEED
        order = _round_deck(config, seed, 1)
    zero = (0,) * num_players
    version = _check_version(config, schema_version)
    return _deal(config, num_players, seed, 1, order, zero, (), None, version)


def _check_version(config: RuleConfig, version: object) -> int:
    """The schema version of a new game: ``version``, or the newest for ``None``."""
    if version is None:
        return NEWEST_VERSION
    if type(version) is not int or not 1 <= version <= NEWEST_VERSION:
        raise ValueError(
            f"schema_version must be an int 1..{NEWEST_VERSION} (or None); got {version!r}"
        )
    from allegra_rules.config_codec import schema_version_for  # only here: see _checks_and_codec

    needed = schema_version_for(config)
    if version < needed:
        later = ", ".join(config.later_options)
        raise ValueError(
            f"a schema version {version} game cannot hold the config's {later}: it needs "
            f"version {needed} or later"
        )
    return version


# ---------------------------------------------------------------- shared helpers


def _copier(*changed: str, **fixed: Any) -> Callable[..., GameState]:
    """A copy-with-changes for one kind of transition (faster than ``_evolve``).

    The returned function takes the source state and every field of ``changed`` as a
    keyword argument; the fields of ``fixed`` get the given values.
    """
    return state_builder(changed, fixed)


_evolve = trusted_evolve
"""Copy a state, replacing the fields given as keyword arguments."""


def _area(geo: Geometry, player: int, which: str) -> tuple[int, ...]:
    """The cells of ``player``'s ``"zone"`` or ``"own"`` grid, in ``Pos`` order."""
    return geo.area(player, which)


def _takeable(s: GameState, knocker: int) -> list[int]:
    """Cells the drawer could take from ``knocker``, before the given-card rule.

    A cell qualifies when it holds a card and taking it leaves the drawer a card to
    swap with. The knocker's swap never changes which cells hold cards, so this is
    the same before and after that swap.
    """
    config = s.config
    geo = geometry(s.num_players)
    cells = s.cells
    drawer = s.drawer
    assert drawer is not None
    own_area = _area(geo, drawer, config.swap_area)
    targets_left = sum(1 for i in own_area if cells[i] is not None)
    in_own_area = geo.zone_set[drawer] if config.swap_area == "zone" else geo.own_set[drawer]
    return [
        t
        for t in _area(geo, knocker, config.take_area)
        if cells[t] is not None and targets_left - (t in in_own_area) >= 1
    ]


def _take_targets(s: GameState, knocker: int, given_at: int) -> list[int]:
    """Cells the drawer may take after the given card went to ``given_at`` (A15, A16)."""
    targets = _takeable(s, knocker)
    if s.config.take_given_card == "forbidden":
        return [t for t in targets if t != given_at]
    return targets


def _knocker_swaps(s: GameState, knocker: int) -> list[int]:
    """Cells where ``knocker`` may put the given card so the exchange can complete."""
    targets = _takeable(s, knocker)
    if not targets:
        return []
    # With take_given_card="forbidden", putting the given card on the only takeable
    # cell would leave the drawer nothing to take.
    blocked = targets[0] if len(targets) == 1 and s.config.take_given_card == "forbidden" else -1
    cells = s.cells
    area = _area(geometry(s.num_players), knocker, s.config.swap_area)
    return [i for i in area if cells[i] is not None and i != blocked]


def _can_exchange(s: GameState, knocker: int, drawer_cards: int) -> bool:
    """Whether the knock exchange with ``knocker`` can complete (``_knocker_swaps``).

    ``drawer_cards`` is how many cards the drawer's swap area holds. With two or
    more, every card of the knocker's take area is takeable, so card counts decide:
    face-down cells always hold cards, which settles most cases without looking at
    any cell. Everything else goes to the exact check.
    """
    if drawer_cards >= 2:
        config = s.config
        geo = geometry(s.num_players)
        cells = s.cells
        face_down = s.face_down
        if config.take_area == "zone":
            mask, area = geo.zone_masks[knocker], geo.zone[knocker]
        else:
            mask, area = geo.own_masks[knocker], geo.own[knocker]
        takeable = (face_down & mask).bit_count()
        if takeable < 2:
            takeable = sum(1 for i in area if cells[i] is not None)
        if takeable >= 2 or (takeable == 1 and config.take_given_card == "allowed"):
            # No cell is blocked: the knocker needs one card in its swap area. The
            # take area's cards count when they lie in it (own grid within the zone).
            if config.swap_area == "zone" or config.take_area == "own":
                return True
            if face_down & geo.own_masks[knocker]:
                return True
            return any(cells[i] is not None for i in geo.own[knocker])
        if takeable == 0:
            return False
    return bool(_knocker_swaps(s, knocker))


# ------------------------------------------------------------------ legal actions


def _legal_reveal(s: GameState) -> tuple[Action, ...]:
    player = s.current_player
    assert player is not None
    fd = s.face_down
    if s.setup_named and s.setup_reveals % 2:
        # A36, simultaneous setup: the second naming may not repeat the seat's first.
        fd &= ~(1 << s.setup_named[-1])
    table = interned_actions(s.num_players).reveal
    area = _area(geometry(s.num_players), player, s.config.reveal_area)
    return tuple(table[i] for i in area if (fd >> i) & 1)


_BOTH_DRAWS: tuple[Action, ...] = (DRAW_DECK, DRAW_DISCARD)


def _legal_draw(s: GameState) -> tuple[Action, ...]:
    deck = bool(s.draw_pile) or len(s.discard_pile) >= 2
    if s.discard_pile:
        player = s.current_player
        assert player is not None
        config = s.config
        geo = geometry(s.num_players)
        if config.swap_area == "zone":
            mask, area = geo.zone_masks[player], geo.zone[player]
        else:
            mask, area = geo.own_masks[player], geo.own[player]
        # A face-down cell always holds a card, so the bitmask usually settles it.
        if s.face_down & mask or config.discard_draw == "may_discard":
            return _BOTH_DRAWS if deck else (DRAW_DISCARD,)
        cells = s.cells
        if any(cells[i] is not None for i in area):
            return _BOTH_DRAWS if deck else (DRAW_DISCARD,)
    return (DRAW_DECK,) if deck else ()


def _legal_knock(s: GameState) -> tuple[Action, ...]:
    return (KNOCK, PASS)


class _SwapTable:
    """Per seat, its swap area's cells, a reader of their values, and all their swaps."""

    __slots__ = ("cells", "every", "read")

    def __init__(
        self,
        cells: tuple[tuple[int, ...], ...],
        read: tuple[Callable[[tuple[int | None, ...]], tuple[int | None, ...]], ...],
        every: tuple[tuple[Action, ...], ...],
    ) -> None:
        self.cells = cells
        self.read = read
        self.every = every


@cache
def _swap_table(num_players: int, swap_area: str) -> _SwapTable:
    geo = geometry(num_players)
    table = interned_actions(num_players).swap
    areas = tuple(_area(geo, p, swap_area) for p in range(num_players))
    return _SwapTable(
        cells=areas,
        read=tuple(itemgetter(*area) for area in areas),
        every=tuple(tuple(table[i] for i in area) for area in areas),
    )


def _swaps(s: GameState, player: int) -> tuple[Action, ...]:
    cells = s.cells
    swaps = _swap_table(s.num_players, s.config.swap_area)
    if None not in swaps.read[player](cells):
        return swaps.every[player]
    table = interned_actions(s.num_players).swap
    return tuple(table[i] for i in swaps.cells[player] if cells[i] is not None)


def _legal_hold_deck(s: GameState) -> tuple[Action, ...]:
    drawer = s.current_player
    assert drawer is not None
    out = _swaps(s, drawer) + (DISCARD,)
    if s.knockers:
        cards = len(out) - 1
        gives = interned_actions(s.num_players).give
        out += tuple(gives[k] for k in s.knockers if _can_exchange(s, k, cards))
    return out


def _legal_hold_discard(s: GameState) -> tuple[Action, ...]:
    drawer = s.current_player
    assert drawer is not None
    out = _swaps(s, drawer)
    if s.config.discard_draw == "may_discard":
        out += (DISCARD,)
    return out


def _legal_knocker_swap(s: GameState) -> tuple[Action, ...]:
    knocker = s.knocker
    assert knocker is not None
    table = interned_actions(s.num_players).swap
    return tuple(table[i] for i in _knocker_swaps(s, knocker))


def _legal_take(s: GameState) -> tuple[Action, ...]:
    assert s.knocker is not None and s.given_at is not None
    table = interned_actions(s.num_players).take
    return tuple(table[t] for t in _take_targets(s, s.knocker, s.given_at))


def _legal_hold_taken(s: GameState) -> tuple[Action, ...]:
    drawer = s.current_player
    assert drawer is not None
    return _swaps(s, drawer)


def _legal_over(s: GameState) -> tuple[Action, ...]:
    return ()


_LEGAL: dict[Phase, Callable[[GameState], tuple[Action, ...]]] = {
    Phase.SETUP: _legal_reveal,
    Phase.DRAW: _legal_draw,
    Phase.KNOCK: _legal_knock,
    Phase.HOLD_DECK: _legal_hold_deck,
    Phase.HOLD_DISCARD: _legal_hold_discard,
    Phase.FLIP: _legal_reveal,
    Phase.KNOCKER_SWAP: _legal_knocker_swap,
    Phase.TAKE: _legal_take,
    Phase.HOLD_TAKEN: _legal_hold_taken,
    Phase.OVER: _legal_over,
}


def legal_actions(state: GameState) -> tuple[Action, ...]:
    """Every legal action in ``state``, in a fixed order; empty exactly when terminal.

    Cell actions come in ascending ``Pos`` order; then ``Discard()``, then ``Give``
    in knock order. The result is computed once per state and cached.

    Examples:
        >>> state = new_game(2, seed=1)
        >>> legal_actions(state)[0]
        Reveal(pos=Pos(0, 0, 0))
    """
    try:
        cached = state._legal
    except AttributeError:
        raise ValueError(f"state must be a GameState; got {type(state).__name__}") from None
    if cached is None:
        cached = _LEGAL[state.phase](state)
        _set_legal(state, cached)
    return cached


# Stores into the cache slot of a frozen state: the slot descriptor's own setter.
_set_legal: Callable[[GameState, tuple[Action, ...]], None] = vars(GameState)["_legal"].__set__


# --------------------------------------------------------------------- settling


def _remove_triples(
    s: GameState,
    cells: tuple[int | None, ...],
    face_down: int,
    touched: tuple[int, ...],
    discard: tuple[int, ...],
    out_of_play: tuple[int, ...],
) -> tuple[tuple[int | None, ...], tuple[int, ...], tuple[int, ...]]:
    """Remove every triple through a touched cell (A18-A21): new cells and piles.

    Play was settled before the last action, so a new triple must pass through a
    cell that action filled or turned up. Removed cards go out of play or onto the
    discard pile in ascending ``Pos`` order (``removed_cards``).
    """
    if not touched:
        return cells, discard, out_of_play
    found = new_triples(s.config, geometry(s.num_players), cells, face_down, touched)
    if not found:
        return cells, discard, out_of_play
    return _take_away(s.config, cells, found, discard, out_of_play)


def _take_away(
    config: RuleConfig,
    cells: tuple[int | None, ...],
    found: Sequence[int],
    discard: tuple[int, ...],
    out_of_play: tuple[int, ...],
) -> tuple[tuple[int | None, ...], tuple[int, ...], tuple[int, ...]]:
    """Empty the ascending cells ``found``; their cards go where ``removed_cards`` says."""
    removed = tuple(cells[i] for i in found)
    grid = list(cells)
    for i in found:
        grid[i] = None
    if config.removed_cards == "discard":
        discard = discard + removed  # type: ignore[operator]
    else:
        out_of_play = out_of_play + removed  # type: ignore[operator]
    return tuple(grid), discard, out_of_play


def _end_turn(
    s: GameState,
    cells: tuple[int | None, ...],
    face_down: int,
    discard: tuple[int, ...],
    touched: tuple[int, ...],
) -> GameState:
    """Settle at the end of the drawer's turn: triples, round end, then pass on."""
    cells, discard, out_of_play = _remove_triples(
        s, cells, face_down, touched, discard, s.out_of_play
    )
    n = s.num_players
    drawer = s.drawer
    assert drawer is not None
    ender = s.ender
    final_turns = s.final_turns
    over = False
    if ender is not None:
        # This was one of the final turns: it is done.
        final_turns = final_turns[1:]
        over = not final_turns
    else:
        geo = geometry(s.num_players)
        masks = geo.own_masks if s.config.round_end == "own_grid" else geo.zone_masks
        # Usually every seat still has a face-down card: one C-level pass says so.
        done = (
            []
            if all(map(face_down.__and__, masks))
            else [p for p in range(n) if not face_down & masks[p]]
        )
        if done:
            # A23: the acting player if it is done, else the first done clockwise.
            ender = drawer if drawer in done else min(done, key=lambda p: (p - drawer) % n)
            final_turns = tuple(
                (drawer + j) % n for j in range(1, n + 1) if (drawer + j) % n != ender
            )
    if over or s.turns_played >= s.config.max_turns_per_round:
        # A30: a capped round has no ender and doubles nobody.
        return _score_round(s, cells, discard, out_of_play, ender if over else None)
    nxt = final_turns[0] if final_turns else (drawer + 1) % n
    return _pass_on(
        s,
        current_player=nxt,
        cells=cells,
        face_down=face_down,
        discard_pile=discard,
        out_of_play=out_of_play,
        drawer=nxt,
        ender=ender,
        final_turns=final_turns,
    )


_pass_on = _copier(
    "current_player",
    "cells",
    "face_down",
    "discard_pile",
    "out_of_play",
    "drawer",
    "ender",
    "final_turns",
    phase=Phase.DRAW,
    **_NO_TURN,
)


def _score_round(
    s: GameState,
    cells: tuple[int | None, ...],
    discard: tuple[int, ...],
    out_of_play: tuple[int, ...],
    ender: int | None,
) -> GameState:
    """Score the round (A25-A28, A35) and deal the next one, or end the game."""
    geo = geometry(s.num_players)
    turned_up = cells
    removed: tuple[int, ...] = ()
    if s.config.scoring_triples == "removed":
        # A35: the turn-up may complete triples; the union of those of the whole table
        # leaves before the zones are summed, where removed_cards says.
        removed = tuple(table_triples(s.config, cells, 0))
        if removed:
            cells, discard, out_of_play = _take_away(s.config, cells, removed, discard, out_of_play)
    sums = zone_sums(geo, cells)
    scores, doubled = round_scores(s.config, sums, ender)
    totals = tuple(t + x for t, x in zip(s.totals, scores, strict=True))
    history = s.round_scores + (scores,)
    result = RoundEnd(
        round=s.round,
        cells=turned_up,
        zone_sums=sums,
        ender=ender,
        doubled=doubled,
        scores=scores,
        removed=removed,
    )
    if s.round < ROUNDS:
        order = _round_deck(s.config, s.seed, s.round + 1)
        return _deal(
            s.config,
            s.num_players,
            s.seed,
            s.round + 1,
            order,
            totals,
            history,
            result,
            s.schema_version,
        )
    return _evolve(
        s,
        phase=Phase.OVER,
        current_player=None,
        cells=cells,
        face_down=0,
        discard_pile=discard,
        out_of_play=out_of_play,
        drawer=None,
        **_NO_TURN,
        ender=ender,
        final_turns=(),
        totals=totals,
        round_scores=history,
        winners=winners(totals),
        last_round=result,
    )


# ------------------------------------------------------------------------ apply


def _apply_reveal(s: GameState, action: Reveal) -> GameState:
    i = action.pos.index
    face_down = s.face_down & ~(1 << i)
    if s.phase is Phase.FLIP:
        return _end_turn(s, s.cells, face_down, s.discard_pile, (i,))
    # Setup. The round end cannot come yet: at most 4 of a player's 12 own cells
    # and 6 of its 15 zone cells can be face up (or gone) after everyone's 2 reveals.
    if s.config.setup_reveals == "simultaneous":
        return _name_setup_cell(s, i)
    player = s.current_player
    assert player is not None
    value = s.cells[i]
    assert value is not None
    sums = list(s.setup_sums)
    sums[player] += value
    cells, discard, out_of_play = _remove_triples(
        s, s.cells, face_down, (i,), s.discard_pile, s.out_of_play
    )
    return _after_setup_reveal(s, cells, face_down, discard, out_of_play, sums)


def _name_setup_cell(s: GameState, i: int) -> GameState:
    """A36, ``setup_reveals="simultaneous"``: name cell ``i``; it stays face down.

    When the last player has named its second cell, every named cell turns up at
    once (a cell named twice turns up once and counts for both namers) and play
    settles once.
    """
    named = s.setup_named + (i,)
    n = s.num_players
    if len(named) < 2 * n:
        return _evolve(
            s,
            current_player=(s.start_seat + len(named) // 2) % n,
            setup_reveals=len(named),
            setup_named=named,
        )
    cells = s.cells
    face_down = s.face_down
    sums = list(s.setup_sums)
    for k, cell in enumerate(named):
        face_down &= ~(1 << cell)
        value = cells[cell]
        assert value is not None
        sums[(s.start_seat + k // 2) % n] += value
    cells, discard, out_of_play = _remove_triples(
        s, cells, face_down, tuple(sorted(set(named))), s.discard_pile, s.out_of_play
    )
    return _after_setup_reveal(s, cells, face_down, discard, out_of_play, sums)


def _after_setup_reveal(
    s: GameState,
    cells: tuple[int | None, ...],
    face_down: int,
    discard: tuple[int, ...],
    out_of_play: tuple[int, ...],
    sums: list[int],
) -> GameState:
    """The state after a settled setup reveal: the next revealer, or the first turn."""
    n = s.num_players
    done = s.setup_reveals + 1
    start = s.start_seat
    phase = Phase.SETUP
    drawer = None
    if done < 2 * n:
        nxt = (start + done // 2) % n
    else:
        phase = Phase.DRAW
        if s.config.first_player == "rotate":
            nxt = start
        else:
            # A7: the highest sum of the two setup cards; ties to the first clockwise.
            nxt = max(range(n), key=lambda p: (sums[p], -((p - start) % n)))
        drawer = nxt
    return _evolve(
        s,
        phase=phase,
        current_player=nxt,
        cells=cells,
        face_down=face_down,
        discard_pile=discard,
        out_of_play=out_of_play,
        setup_reveals=done,
        setup_sums=tuple(sums),
        drawer=drawer,
        setup_named=(),
    )


def _apply_draw_deck(s: GameState, action: DrawDeck) -> GameState:
    draw = s.draw_pile
    discard = s.discard_pile
    refills = s.refills
    if not draw:
        # A29: refill from the discard pile, all but its top card, shuffled.
        draw = shuffled(discard[:-1], stream(s.seed, "refill", s.round, refills))
        discard = discard[-1:]
        refills += 1
    drawer = s.current_player
    assert drawer is not None
    n = s.num_players
    if knocking_applies(s.config, n):
        phase, nxt = Phase.KNOCK, first_asked(drawer, n)
    else:
        phase, nxt = Phase.HOLD_DECK, drawer
    return _draw_deck(
        s,
        phase=phase,
        current_player=nxt,
        draw_pile=draw[1:],
        discard_pile=discard,
        held=draw[0],
        turns_played=s.turns_played + 1,
        refills=refills,
    )


_draw_deck = _copier(
    "phase", "current_player", "draw_pile", "discard_pile", "held", "turns_played", "refills"
)


def _apply_draw_discard(s: GameState, action: DrawDiscard) -> GameState:
    pile = s.discard_pile
    return _draw_discard(
        s,
        discard_pile=pile[:-1],
        held=pile[-1],
        turns_played=s.turns_played + 1,
    )


_draw_discard = _copier("discard_pile", "held", "turns_played", phase=Phase.HOLD_DISCARD)


def _answer_knock(s: GameState, knocked: bool) -> GameState:
    asked = s.current_player
    drawer = s.drawer
    assert asked is not None and drawer is not None
    knockers = s.knockers + (asked,) if knocked else s.knockers
    nxt = next_asked(s.config, s.num_players, drawer, asked, knocked)
    if nxt is None:
        return _close_knock_window(s, current_player=drawer, knockers=knockers)
    return _ask_next(s, current_player=nxt, knockers=knockers)


_ask_next = _copier("current_player", "knockers")
_close_knock_window = _copier("current_player", "knockers", phase=Phase.HOLD_DECK)


def _apply_knock(s: GameState, action: Knock) -> GameState:
    return _answer_knock(s, True)


def _apply_pass(s: GameState, action: Pass) -> GameState:
    return _answer_knock(s, False)


def _apply_give(s: GameState, action: Give) -> GameState:
    return _evolve(s, phase=Phase.KNOCKER_SWAP, current_player=action.player, knocker=action.player)


def _apply_swap(s: GameState, action: Swap) -> GameState:
    i = action.pos.index
    cells = list(s.cells)
    old = cells[i]
    assert old is not None
    cells[i] = s.held
    face_down = s.face_down & ~(1 << i)
    phase = s.phase
    if phase is Phase.KNOCKER_SWAP:
        knocker = s.current_player
        assert knocker is not None
        return _evolve(
            s,
            phase=Phase.TAKE,
            current_player=s.drawer,
            cells=tuple(cells),
            face_down=face_down,
            held=None,
            in_hand=((knocker, old),),
            given_at=i,
            hand_was_face_down=bool((s.face_down >> i) & 1),
        )
    discard = s.discard_pile + (old,)
    if phase is Phase.HOLD_TAKEN:
        # A14 step 3: the knocker's hand card fills the gap, face up.
        # Settle now: every cell the exchange filled may complete a line, the
        # knocker's swap cell included.
        gap, given = s.taken_at, s.given_at
        assert gap is not None and given is not None
        cells[gap] = s.in_hand[0][1]
        return _end_turn(s, tuple(cells), face_down, discard, (i, gap, given))
    return _end_turn(s, tuple(cells), face_down, discard, (i,))


def _apply_discard(s: GameState, action: Discard) -> GameState:
    drawer = s.current_player
    assert drawer is not None and s.held is not None
    discard = s.discard_pile + (s.held,)
    area = _area(geometry(s.num_players), drawer, s.config.reveal_area)
    face_down = s.face_down
    if any((face_down >> i) & 1 for i in area):
        return _evolve(s, phase=Phase.FLIP, discard_pile=discard, held=None)
    # A11: nothing left to reveal, the turn just ends.
    return _end_turn(s, s.cells, face_down, discard, ())


def _apply_take(s: GameState, action: Take) -> GameState:
    t = action.pos.index
    cells = list(s.cells)
    card = cells[t]
    cells[t] = None
    return _evolve(
        s,
        phase=Phase.HOLD_TAKEN,
        cells=tuple(cells),
        face_down=s.face_down & ~(1 << t),
        held=card,
        taken_at=t,
        held_was_face_down=bool((s.face_down >> t) & 1),
    )


_APPLY: dict[type, Callable[[GameState, Any], GameState]] = {
    Reveal: _apply_reveal,
    DrawDeck: _apply_draw_deck,
    DrawDiscard: _apply_draw_discard,
    Knock: _apply_knock,
    Pass: _apply_pass,
    Give: _apply_give,
    Swap: _apply_swap,
    Discard: _apply_discard,
    Take: _apply_take,
}


def apply(state: GameState, action: Action, *, player: int | None = None) -> GameState:
    """The state after ``action``. ``state`` itself is never changed.

    Args:
        state: the state to act on.
        action: one of ``legal_actions(state)`` (or an equal action).
        player: the seat on whose behalf the move is made, when it came from a seat (a
            server's client, say). With a seat, the move is applied only when it is that
            seat's to make (``state.current_player``). ``None`` (the default) applies the
            move for whoever is to act.

    Raises:
        IllegalActionError: ``action`` is not in ``legal_actions(state)`` (an object
            of the same action class with equal fields), or ``player`` is given and it
            is not that seat's move; the message says which action and why (for a seat
            out of turn: whose move it is). Anything that is not an action at all is
            refused the same way.
        ValueError: ``player`` is not a seat of the game (a bool, a negative or too
            large int, or not an int).

    Examples:
        >>> state = new_game(2, seed=1)
        >>> after = apply(state, legal_actions(state)[0])
        >>> after.setup_reveals, state.setup_reveals
        (1, 0)
        >>> try:
        ...     apply(state, legal_actions(state)[0], player=1)
        ... except IllegalActionError as error:
        ...     print(error.reason)
        it is seat 0's move, not seat 1's
    """
    try:
        legal = state._legal
    except AttributeError:
        raise ValueError(f"state must be a GameState; got {type(state).__name__}") from None
    if player is not None and (type(player) is not int or player != state.current_player):
        _check_turn(state, action, player)
    if legal is None:
        legal = legal_actions(state)
    for candidate in legal:
        if candidate is action:
            break
    else:
        # Not an interned action: it must be of an action class, with equal fields.
        kind = type(action)
        if kind not in _APPLY or not any(type(c) is kind and c == action for c in legal):
            raise IllegalActionError(action, _why_not(state, action))
    after = _APPLY[type(action)](state, action)
    if after.schema_version != NEWEST_VERSION:
        return _at_version(after)
    return after


def _at_version(s: GameState) -> GameState:
    """``s`` with each field added after its schema version set back to its default.

    A game keeps the version it started in, and the fields of later versions hold their
    defaults there (its documents leave them out): the rules need not ask the version.
    """
    defaults = {f.name: f.default_of(s) for f in _later_fields(s.schema_version)}
    if all(getattr(s, name) == value for name, value in defaults.items()):
        return s
    return _evolve(s, **defaults)


@cache
def _later_fields(version: int) -> tuple[StateField, ...]:
    """The state's fields added after schema ``version``.

    The declaration is imported when an older game plays: a game of the newest version
    does not need it.
    """
    from allegra_rules.fields import STATE_FIELDS, later_fields

    return later_fields(STATE_FIELDS, version)


def _check_turn(state: GameState, action: object, player: object) -> None:
    """Refuse ``player`` unless it is a seat of the game whose move it is."""
    n = state.num_players
    if type(player) is not int or not 0 <= player < n:
        raise ValueError(
            f"player must be a seat of the game, an int 0..{n - 1} (or None); got {player!r}"
        )
    who = state.current_player
    if who is None:
        raise IllegalActionError(action, "the game is over")
    if who != player:
        raise IllegalActionError(action, f"it is seat {who}'s move, not seat {player}'s")


# ---------------------------------------------------------------- explanations

_EXPECTED: dict[Phase, str] = {
    Phase.SETUP: "Reveal(pos) of a face-down card (setup)",
    Phase.DRAW: "DrawDeck() or DrawDiscard()",
    Phase.KNOCK: "Knock() or Pass()",
    Phase.HOLD_DECK: "Swap(pos), Discard() or Give(knocker)",
    Phase.HOLD_DISCARD: "Swap(pos) (or Discard() with discard_draw='may_discard')",
    Phase.FLIP: "Reveal(pos) of a face-down card",
    Phase.KNOCKER_SWAP: "Swap(pos) by the knocker",
    Phase.TAKE: "Take(pos) from the knocker's area",
    Phase.HOLD_TAKEN: "Swap(pos) of the taken card into the drawer's zone",
}

_PHASE_TYPES: dict[Phase, tuple[type, ...]] = {
    Phase.SETUP: (Reveal,),
    Phase.DRAW: (DrawDeck, DrawDiscard),
    Phase.KNOCK: (Knock, Pass),
    Phase.HOLD_DECK: (Swap, Discard, Give),
    Phase.HOLD_DISCARD: (Swap, Discard),
    Phase.FLIP: (Reveal,),
    Phase.KNOCKER_SWAP: (Swap,),
    Phase.TAKE: (Take,),
    Phase.HOLD_TAKEN: (Swap,),
}


def _area_name(which: str) -> str:
    return "zone" if which == "zone" else "own grid"


def _cell_problem(s: GameState, pos: Pos, owner: int, which: str, option: str) -> str | None:
    """Why ``pos`` is not a usable card of ``owner``'s ``which`` area, or None."""
    if pos.player >= s.num_players:
        return f"{pos!r} names seat {pos.player}, but the seats are 0..{s.num_players - 1}"
    geo = geometry(s.num_players)
    i = pos.index
    if i not in _area(geo, owner, which):
        return f"{pos!r} is not in seat {owner}'s {_area_name(which)} ({option}={which!r})"
    if s.cells[i] is None:
        return f"{pos!r} is a gap, and gaps are never targeted"
    return None


def _why_not(s: GameState, action: object) -> str:
    """A sentence saying why ``action`` is not legal in ``s``."""
    if type(action) not in _APPLY:
        return f"{type(action).__name__} is not an allegra_rules action"
    if s.phase is Phase.OVER:
        return "the game is over"
    who = s.current_player
    assert who is not None
    if type(action) not in _PHASE_TYPES[s.phase]:
        return f"phase {s.phase.value!r} expects {_EXPECTED[s.phase]} from seat {who}"
    config = s.config
    if isinstance(action, Reveal):
        problem = _cell_problem(s, action.pos, who, config.reveal_area, "reveal_area")
        return problem or f"the card at {action.pos!r} is already face up"
    if isinstance(action, DrawDeck):
        return "the draw pile is empty and the discard pile has fewer than 2 cards to refill it"
    if isinstance(action, DrawDiscard):
        if not s.discard_pile:
            return "the discard pile is empty"
        return f"seat {who} has no card in its {_area_name(config.swap_area)} to swap with"
    if isinstance(action, Discard):
        return "discard_draw='must_swap': a card taken from the discard pile must be swapped in"
    if isinstance(action, Give):
        if action.player not in s.knockers:
            return f"seat {action.player} did not knock (knockers: {list(s.knockers)})"
        return f"the knock exchange with seat {action.player} could not be completed"
    if isinstance(action, Swap):
        problem = _cell_problem(s, action.pos, who, config.swap_area, "swap_area")
        return problem or "the drawer could not complete the knock exchange after it"
    if isinstance(action, Take):
        assert s.knocker is not None
        problem = _cell_problem(s, action.pos, s.knocker, config.take_area, "take_area")
        if problem:
            return problem
        if action.pos.index == s.given_at and config.take_given_card == "forbidden":
            return "take_given_card='forbidden': the card just given cannot be taken back"
        return "the drawer would have no card left to swap the taken card with"
    return "it is not among the legal actions"
