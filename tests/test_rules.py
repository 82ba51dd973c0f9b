"""Scenario tests of the fixed rules under the default config (``RuleConfig()``, ``seeds``).

Every scenario is dealt from a stacked deck (``helpers.game``) and every expected value
(cells, piles, held cards, scores, whose turn) is worked out by hand from the stacked
layout. The stacked grids are chosen so that no line holds three equal values unless a
test wants a triple. Late-round tables are reached either by real play or by turning
cards face up / into gaps with ``attrs.evolve`` on a real state (always keeping the
deck's cards conserved).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import pytest

from allegra_rules import (
    Discard,
    DrawDeck,
    DrawDiscard,
    GameState,
    Give,
    IllegalActionError,
    Knock,
    Pass,
    Phase,
    Pos,
    Reveal,
    RuleConfig,
    Swap,
    Take,
    apply,
    left,
    legal_actions,
    new_game,
    right,
)
from helpers import Grid, cards_of, forged, game, play, setup_reveals, stack_deck

CONFIG = RuleConfig()
FULL_DECK = Counter(CONFIG.deck_cards())

# Three grids without any triple, also side by side (n = 2 or 3, seat p gets G[p]).
G0: Grid = ((1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 0))  # sum 66, column 3 sums 12
G1: Grid = ((2, 3, 4, 5), (6, 7, 8, 9), (10, 11, 0, -1))  # sum 64, column 3 sums 13
G2: Grid = ((3, 4, 5, 6), (7, 8, 9, 10), (11, 0, -1, 1))  # sum 63, column 3 sums 17
T3 = {0: G0, 1: G1, 2: G2}


# ------------------------------------------------------------------ private helpers


def _flat(*grids: Grid) -> tuple[int, ...]:
    return tuple(v for grid in grids for row in grid for v in row)


def _own(seat: int) -> list[Pos]:
    return [Pos(seat, r, c) for r in range(3) for c in range(4)]


def _answer_window(state: GameState, knockers: Iterable[int] = ()) -> GameState:
    """Answer the knock window: the seats in ``knockers`` knock, everybody else passes."""
    knocking = set(knockers)
    while state.phase is Phase.KNOCK:
        asked = state.current_player
        state = play(state, [Knock() if asked in knocking else Pass()])
    return state


def _draw(state: GameState, knockers: Iterable[int] = ()) -> GameState:
    """``DrawDeck()`` and the whole knock window; returns with the drawer to act."""
    drawer = state.current_player
    state = _answer_window(play(state, [DrawDeck()]), knockers)
    assert state.phase is Phase.HOLD_DECK and state.current_player == drawer
    return state


def _flip_turn(state: GameState, pos: Pos) -> GameState:
    """A whole turn: draw from the deck, everybody passes, discard it, reveal ``pos``."""
    return play(_draw(state), [Discard(), Reveal(pos)])


def _face_down_only(state: GameState, positions: Iterable[Pos]) -> GameState:
    """Turn every card face up except ``positions`` (as if revealed earlier)."""
    mask = 0
    for pos in positions:
        mask |= 1 << pos.index
    assert mask & ~state.face_down == 0, "can only turn cards face up"
    return forged(state, face_down=mask)


def _clear(state: GameState, positions: Iterable[Pos]) -> GameState:
    """Turn ``positions`` into gaps, their cards out of play (as removed triples would)."""
    cells = list(state.cells)
    face_down = state.face_down
    gone: list[int] = []
    for pos in positions:
        card = cells[pos.index]
        assert card is not None
        gone.append(card)
        cells[pos.index] = None
        face_down &= ~(1 << pos.index)
    out = forged(
        state,
        cells=tuple(cells),
        face_down=face_down,
        out_of_play=state.out_of_play + tuple(gone),
    )
    assert cards_of(out) == FULL_DECK
    return out


def _restack(state: GameState, grids: Mapping[int, Grid]) -> GameState:
    """Replace the fresh deal of a later round by a stacked one (same cards, block deal)."""
    assert state.phase is Phase.SETUP and state.setup_reveals == 0
    deck = stack_deck(CONFIG, state.num_players, grids)
    cut = 12 * state.num_players
    return forged(
        state,
        cells=tuple(deck[:cut]),
        discard_pile=(deck[cut],),
        draw_pile=tuple(deck[cut + 1 :]),
    )


def _race_round(state: GameState) -> GameState:
    """Play a two-player round from its setup: the start seat uncovers its grid first.

    Setup: the start seat s reveals (s,0,0), (s,0,1); the other seat o reveals s's
    column-3 cards (s,0,3), (s,1,3) (its zone holds them). Then every turn is
    draw / pass / discard / reveal: s reveals its own cards, o reveals (s,2,3) and then
    its own cards. After s's 7th turn s has all 12 cards face up; o plays its final turn.
    Only reveals happen, so the grids at scoring are the dealt ones.
    """
    assert state.num_players == 2 and state.phase is Phase.SETUP
    s = state.current_player
    assert s is not None
    o = 1 - s
    state = play(
        state,
        [Reveal(Pos(s, 0, 0)), Reveal(Pos(s, 0, 1)), Reveal(Pos(s, 0, 3)), Reveal(Pos(s, 1, 3))],
    )
    mine = [Pos(s, 0, 2), Pos(s, 1, 0), Pos(s, 1, 1), Pos(s, 1, 2), Pos(s, 2, 0), Pos(s, 2, 1)]
    mine.append(Pos(s, 2, 2))
    theirs = [Pos(s, 2, 3), Pos(o, 0, 0), Pos(o, 0, 1), Pos(o, 0, 2), Pos(o, 0, 3), Pos(o, 1, 0)]
    for k in range(7):
        assert state.current_player == s and state.ender is None
        state = _flip_turn(state, mine[k])
        if k < 6:
            state = _flip_turn(state, theirs[k])
    assert state.ender == s and state.final_turns == (o,) and state.current_player == o
    return _flip_turn(state, Pos(o, 1, 1))


def _swaps(positions: Iterable[Pos]) -> set[Swap]:
    return {Swap(p) for p in positions}


def _reveals(positions: Iterable[Pos]) -> set[Reveal]:
    return {Reveal(p) for p in positions}


def _illegal(state: GameState, action: object) -> None:
    assert action not in legal_actions(state)
    with pytest.raises(IllegalActionError):
        apply(state, action)  # type: ignore[arg-type]


def _zone_literal(p: int, lp: int) -> list[Pos]:
    out: list[Pos] = []
    for r in range(3):
        out.append(Pos(lp, r, 3))
        out.extend(Pos(p, r, c) for c in range(4))
    return out


# ------------------------------------------------------------------------ geometry


@pytest.mark.rule("R1.4")
def test_zone_is_fifteen_cells_in_the_documented_order() -> None:
    state = new_game(3)
    assert state.zone(2) == (
        Pos(0, 0, 3), Pos(2, 0, 0), Pos(2, 0, 1), Pos(2, 0, 2), Pos(2, 0, 3),
        Pos(0, 1, 3), Pos(2, 1, 0), Pos(2, 1, 1), Pos(2, 1, 2), Pos(2, 1, 3),
        Pos(0, 2, 3), Pos(2, 2, 0), Pos(2, 2, 1), Pos(2, 2, 2), Pos(2, 2, 3),
    )  # fmt: skip
    assert list(state.zone(0)) == _zone_literal(0, 1)
    assert list(state.zone(1)) == _zone_literal(1, 2)
    four = new_game(4)
    assert list(four.zone(3)) == _zone_literal(3, 0)
    assert four.zone(1)[0] == Pos(2, 0, 3) and four.zone(1)[14] == Pos(1, 2, 3)


@pytest.mark.rule("R1.1")
def test_left_is_next_seat_clockwise_and_right_the_previous() -> None:
    assert [left(p, 4) for p in range(4)] == [1, 2, 3, 0]
    assert [right(p, 4) for p in range(4)] == [3, 0, 1, 2]
    assert [left(p, 3) for p in range(3)] == [1, 2, 0]
    assert [right(p, 3) for p in range(3)] == [2, 0, 1]
    assert [left(p, 2) for p in range(2)] == [1, 0]
    assert [right(p, 2) for p in range(2)] == [1, 0]


@pytest.mark.rule("R1.5")
def test_two_players_the_neighbour_is_left_and_right_and_zones_are_well_formed() -> None:
    state = new_game(2)
    assert left(0, 2) == right(0, 2) == 1 and left(1, 2) == right(1, 2) == 0
    assert list(state.zone(0)) == _zone_literal(0, 1)
    assert list(state.zone(1)) == _zone_literal(1, 0)
    for p in (0, 1):
        assert len(set(state.zone(p))) == 15
    shared = set(state.zone(0)) & set(state.zone(1))
    assert shared == {Pos(p, r, 3) for p in (0, 1) for r in range(3)}
    assert set(state.zone(0)) | set(state.zone(1)) == set(_own(0) + _own(1))


@pytest.mark.rule("R1.4")
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_column_three_cells_are_in_exactly_two_zones(n: int) -> None:
    state = new_game(n)
    for p in range(n):
        for pos in _own(p):
            holders = {q for q in range(n) if pos in state.zone(q)}
            if pos.col == 3:
                assert holders == {p, (p - 1) % n}, pos
            else:
                assert holders == {p}, pos


# ---------------------------------------------------------------------------- deal


@pytest.mark.rule("R3.1")
def test_block_deal_seat_by_seat_then_discard_then_draw_pile() -> None:
    deck = stack_deck(CONFIG, 3, T3, discard=-1, draw=[8, 2, 7])
    state = new_game(3, deck=deck, seed=1)
    assert state.cells == _flat(G0, G1, G2)
    assert state.card(Pos(0, 0, 3)) == 4
    assert state.card(Pos(1, 0, 0)) == 2
    assert state.card(Pos(1, 2, 3)) == -1
    assert state.card(Pos(2, 1, 2)) == 9
    assert state.discard_pile == (-1,)
    assert state.discard_top == -1
    assert state.draw_pile[:3] == (8, 2, 7)
    assert state.draw_pile == tuple(deck[37:])
    assert len(state.draw_pile) == 120 - 36 - 1
    assert state.face_down == (1 << 36) - 1
    assert not any(state.is_face_up(pos) for p in range(3) for pos in _own(p))
    assert state.phase is Phase.SETUP and state.current_player == 0 and state.round == 1
    assert state.held is None and state.in_hand == () and state.out_of_play == ()
    assert state.totals == (0, 0, 0) and state.round_scores == () and state.winners == ()


# --------------------------------------------------------------------------- setup


@pytest.mark.rule("R4.1")
def test_setup_two_reveals_each_clockwise_from_seat_zero() -> None:
    state = game(3, T3, discard=-1)
    seen = []
    picks = [Pos(0, 0, 0), Pos(0, 1, 1), Pos(1, 0, 0), Pos(2, 0, 3), Pos(2, 2, 2), Pos(0, 2, 3)]
    for pos in picks:
        assert state.phase is Phase.SETUP
        seen.append(state.current_player)
        state = play(state, [Reveal(pos)])
    assert seen == [0, 0, 1, 1, 2, 2]
    assert state.phase is Phase.DRAW and state.current_player == 0
    assert [state.is_face_up(p) for p in picks] == [True] * 6
    assert bin(state.face_down).count("1") == 30
    assert state.cells == _flat(G0, G1, G2) and state.discard_pile == (-1,)


@pytest.mark.rule("R4.2")
def test_setup_reveal_only_face_down_cells_of_the_zone() -> None:
    state = game(3, T3, discard=-1)
    assert set(legal_actions(state)) == _reveals(_zone_literal(0, 1))
    _illegal(state, Reveal(Pos(2, 0, 3)))  # the right neighbour's column is not in zone(0)
    _illegal(state, Reveal(Pos(1, 0, 0)))
    state = play(state, [Reveal(Pos(1, 0, 3))])  # the left neighbour's column is
    assert state.is_face_up(Pos(1, 0, 3)) and state.current_player == 0
    assert set(legal_actions(state)) == _reveals(_zone_literal(0, 1)) - {Reveal(Pos(1, 0, 3))}
    _illegal(state, Reveal(Pos(1, 0, 3)))
    state = play(state, [Reveal(Pos(0, 0, 0))])
    assert state.current_player == 1
    assert set(legal_actions(state)) == _reveals(_zone_literal(1, 2)) - {Reveal(Pos(1, 0, 3))}
    _illegal(state, Reveal(Pos(1, 0, 3)))
    _illegal(state, Reveal(Pos(0, 0, 0)))


@pytest.mark.rule("R4.3", "R10.4")
def test_setup_triple_through_the_left_neighbours_column_is_removed() -> None:
    a: Grid = ((7, 7, 1, 2), (3, 4, 5, 6), (8, 9, 10, 11))
    b: Grid = ((0, 1, 2, 7), (3, 4, 5, 6), (8, 9, 10, 11))
    state = game(3, {0: a, 1: b, 2: G2}, discard=-1)
    state = play(state, [Reveal(Pos(0, 0, 0)), Reveal(Pos(0, 0, 1))])
    assert state.card(Pos(0, 0, 0)) == state.card(Pos(0, 0, 1)) == 7
    # Seat 1 reveals its own column-3 card: zone(0) row 0 is now 7 7 7 . .
    state = play(state, [Reveal(Pos(1, 0, 3))])
    for pos in (Pos(0, 0, 0), Pos(0, 0, 1), Pos(1, 0, 3)):
        assert state.card(pos) is None and not state.is_face_up(pos)
    assert state.out_of_play == (7, 7, 7)
    assert state.discard_pile == (-1,)
    assert state.current_player == 1 and state.phase is Phase.SETUP
    _illegal(state, Reveal(Pos(1, 0, 3)))
    state = play(state, [Reveal(Pos(1, 1, 0)), Reveal(Pos(2, 0, 0)), Reveal(Pos(2, 0, 1))])
    assert state.phase is Phase.DRAW and state.current_player == 0
    assert state.out_of_play == (7, 7, 7)
    assert cards_of(state) == FULL_DECK


# ---------------------------------------------------------------------------- turn


@pytest.mark.rule("R5.2", "R8.2")
def test_draw_deck_shows_the_card_and_asks_each_other_player_clockwise() -> None:
    state = setup_reveals(game(3, T3, discard=-1, draw=[8, 2]))
    assert state.phase is Phase.DRAW and state.current_player == 0
    assert set(legal_actions(state)) == {DrawDeck(), DrawDiscard()}
    state = play(state, [DrawDeck()])
    assert state.held == 8
    assert state.draw_pile[0] == 2 and len(state.draw_pile) == 82
    assert state.discard_pile == (-1,)
    assert state.phase is Phase.KNOCK and state.current_player == 1
    assert set(legal_actions(state)) == {Knock(), Pass()}
    state = play(state, [Pass()])
    assert state.phase is Phase.KNOCK and state.current_player == 2 and state.held == 8
    assert set(legal_actions(state)) == {Knock(), Pass()}
    state = play(state, [Pass()])
    assert state.phase is Phase.HOLD_DECK and state.current_player == 0 and state.held == 8
    assert set(legal_actions(state)) == _swaps(_zone_literal(0, 1)) | {Discard()}


@pytest.mark.rule("R8.2", "R5.1")
def test_knock_window_of_a_later_drawer_starts_at_its_left_neighbour() -> None:
    g3: Grid = ((4, 5, 6, 7), (8, 9, 10, 11), (0, -1, 1, 2))
    state = setup_reveals(game(4, {0: G0, 1: G1, 2: G2, 3: g3}, discard=-1, draw=[8, 3]))
    state = _flip_turn(state, Pos(0, 0, 0))
    assert state.current_player == 1
    state = play(state, [DrawDeck()])
    assert state.held == 3
    asked = []
    while state.phase is Phase.KNOCK:
        asked.append(state.current_player)
        state = play(state, [Pass()])
    assert asked == [2, 3, 0]
    assert state.phase is Phase.HOLD_DECK and state.current_player == 1


@pytest.mark.rule("R5.3", "R6.1")
def test_draw_discard_then_swap_into_the_left_neighbours_column() -> None:
    state = setup_reveals(game(3, T3, discard=-1, draw=[8]))
    state = play(state, [DrawDiscard()])
    assert state.held == -1
    assert state.discard_pile == () and state.discard_top is None
    assert state.phase is Phase.HOLD_DISCARD and state.current_player == 0
    assert set(legal_actions(state)) == _swaps(_zone_literal(0, 1))  # must swap
    _illegal(state, Discard())
    _illegal(state, Swap(Pos(2, 0, 3)))
    state = play(state, [Swap(Pos(1, 0, 3))])
    assert state.card(Pos(1, 0, 3)) == -1 and state.is_face_up(Pos(1, 0, 3))
    assert state.discard_pile == (5,)
    assert state.held is None
    assert state.draw_pile[0] == 8
    assert state.phase is Phase.DRAW and state.current_player == 1


@pytest.mark.rule("R6.1", "R5.2")
def test_swap_of_the_drawn_card_onto_a_face_up_card() -> None:
    state = setup_reveals(game(3, T3, discard=-1, draw=[8]))
    assert state.is_face_up(Pos(0, 2, 0)) and state.card(Pos(0, 2, 0)) == 9
    state = play(_draw(state), [Swap(Pos(0, 2, 0))])
    assert state.card(Pos(0, 2, 0)) == 8 and state.is_face_up(Pos(0, 2, 0))
    assert state.discard_pile == (-1, 9)
    assert state.held is None
    assert state.phase is Phase.DRAW and state.current_player == 1
    assert cards_of(state) == FULL_DECK


@pytest.mark.rule("R7.1", "R5.1")
def test_discard_then_reveal_exactly_one_face_down_card_of_the_zone() -> None:
    state = setup_reveals(game(3, T3, discard=-1, draw=[8]))
    state = play(_draw(state), [Discard()])
    assert state.discard_pile == (-1, 8)
    assert state.held is None
    assert state.phase is Phase.FLIP and state.current_player == 0
    face_down = [p for p in _zone_literal(0, 1) if p not in (Pos(0, 2, 0), Pos(0, 2, 1))]
    assert set(legal_actions(state)) == _reveals(face_down)
    _illegal(state, Reveal(Pos(0, 2, 0)))
    _illegal(state, Reveal(Pos(2, 0, 3)))
    state = play(state, [Reveal(Pos(1, 1, 3))])
    assert state.is_face_up(Pos(1, 1, 3))
    assert state.cells == _flat(G0, G1, G2)
    assert state.phase is Phase.DRAW and state.current_player == 1
    state = _flip_turn(state, Pos(1, 0, 0))
    state = _flip_turn(state, Pos(2, 0, 0))
    assert state.current_player == 0


# ---------------------------------------------------------------- knock exchange


@pytest.mark.rule("R9.1", "R9.2", "R9.3", "R9.4")
def test_knock_exchange_in_full() -> None:
    state = setup_reveals(game(3, T3, discard=-1, draw=[8]))
    state = play(state, [DrawDeck(), Knock(), Pass()])
    assert state.phase is Phase.HOLD_DECK and state.current_player == 0
    assert set(legal_actions(state)) == _swaps(_zone_literal(0, 1)) | {Discard(), Give(1)}
    state = play(state, [Give(1)])
    assert state.phase is Phase.KNOCKER_SWAP and state.current_player == 1 and state.held == 8
    assert set(legal_actions(state)) == _swaps(_zone_literal(1, 2))
    # Step 1: the knocker swaps the given 8 in; its old (face-down) 2 goes to its hand.
    state = play(state, [Swap(Pos(1, 0, 0))])
    assert state.card(Pos(1, 0, 0)) == 8 and state.is_face_up(Pos(1, 0, 0))
    assert state.in_hand == ((1, 2),)
    assert state.held is None
    assert state.discard_pile == (-1,)
    assert state.phase is Phase.TAKE and state.current_player == 0
    assert set(legal_actions(state)) == {Take(p) for p in _zone_literal(1, 2)}
    # Step 2: the drawer takes the face-down 10 at (2,1,3), part of the knocker's zone.
    state = play(state, [Take(Pos(2, 1, 3))])
    assert state.card(Pos(2, 1, 3)) is None and not state.is_face_up(Pos(2, 1, 3))
    assert state.held == 10
    assert state.in_hand == ((1, 2),)
    assert state.phase is Phase.HOLD_TAKEN and state.current_player == 0
    assert set(legal_actions(state)) == _swaps(_zone_literal(0, 1))
    assert cards_of(state) == FULL_DECK
    # ... and swaps it in for its 6; the 6 is discarded; the hand card fills the gap.
    state = play(state, [Swap(Pos(0, 1, 1))])
    assert state.card(Pos(0, 1, 1)) == 10 and state.is_face_up(Pos(0, 1, 1))
    assert state.discard_pile == (-1, 6)
    assert state.card(Pos(2, 1, 3)) == 2 and state.is_face_up(Pos(2, 1, 3))
    assert state.in_hand == () and state.held is None
    assert state.out_of_play == ()
    assert state.phase is Phase.DRAW and state.current_player == 1
    assert cards_of(state) == FULL_DECK


@pytest.mark.rule("R9.1", "R9.3")
def test_give_only_to_a_knocker_and_take_from_the_knockers_whole_zone() -> None:
    state = setup_reveals(game(3, T3, discard=-1, draw=[8]))
    state = play(state, [DrawDeck(), Pass(), Knock()])
    assert Give(2) in legal_actions(state)
    _illegal(state, Give(1))
    _illegal(state, Give(0))
    state = play(state, [Give(2)])
    assert state.current_player == 2
    assert set(legal_actions(state)) == _swaps(_zone_literal(2, 0))
    state = play(state, [Swap(Pos(2, 0, 1))])
    assert state.in_hand == ((2, 4),) and state.card(Pos(2, 0, 1)) == 8
    # zone(2) holds the drawer's own column 3: the drawer may take its own (0,1,3).
    assert set(legal_actions(state)) == {Take(p) for p in _zone_literal(2, 0)}
    state = play(state, [Take(Pos(0, 1, 3))])
    assert state.held == 8 and state.card(Pos(0, 1, 3)) is None
    assert set(legal_actions(state)) == _swaps(_zone_literal(0, 1)) - {Swap(Pos(0, 1, 3))}
    state = play(state, [Swap(Pos(0, 0, 0))])
    assert state.card(Pos(0, 0, 0)) == 8
    assert state.discard_pile == (-1, 1)
    assert state.card(Pos(0, 1, 3)) == 4 and state.is_face_up(Pos(0, 1, 3))
    assert state.phase is Phase.DRAW and state.current_player == 1
    assert cards_of(state) == FULL_DECK


FIVES: Grid = ((5, 1, 2, 3), (5, 4, 6, 7), (9, 10, 11, 0))


def _knocker_makes_five_triple() -> GameState:
    """Seat 1 shows 5 5 in its column 0; seat 0 draws a 5 and gives it to knocker 1,
    who swaps it onto (1,2,0) (a face-down 9): the column reads 5 5 5, all face up."""
    state = game(3, {0: G0, 1: FIVES, 2: G2}, discard=-1, draw=[5])
    state = setup_reveals(state, {1: (Pos(1, 0, 0), Pos(1, 1, 0))})
    state = play(state, [DrawDeck(), Knock(), Pass(), Give(1), Swap(Pos(1, 2, 0))])
    assert state.phase is Phase.TAKE and state.in_hand == ((1, 9),)
    return state


@pytest.mark.rule("R9.6", "R11.1")
def test_no_triple_is_removed_in_the_middle_of_a_knock_exchange() -> None:
    state = _knocker_makes_five_triple()
    for r in range(3):
        assert state.card(Pos(1, r, 0)) == 5 and state.is_face_up(Pos(1, r, 0))
    assert state.out_of_play == ()
    # The drawer takes one of the three 5s: the triple is broken before play settles.
    state = play(state, [Take(Pos(1, 0, 0))])
    assert state.held == 5 and state.out_of_play == ()
    state = play(state, [Swap(Pos(0, 1, 1))])
    assert state.card(Pos(0, 1, 1)) == 5
    assert [state.card(Pos(1, r, 0)) for r in range(3)] == [9, 5, 5]
    assert state.is_face_up(Pos(1, 0, 0))
    assert state.out_of_play == ()
    assert state.discard_pile == (-1, 6)
    assert state.phase is Phase.DRAW and state.current_player == 1


@pytest.mark.rule("R9.6")
def test_triple_made_by_the_knockers_swap_is_removed_after_the_exchange() -> None:
    state = _knocker_makes_five_triple()
    state = play(state, [Take(Pos(1, 1, 1)), Swap(Pos(0, 0, 0))])
    assert state.card(Pos(0, 0, 0)) == 4
    assert state.card(Pos(1, 1, 1)) == 9 and state.is_face_up(Pos(1, 1, 1))
    assert state.discard_pile == (-1, 1)
    assert state.phase is Phase.DRAW and state.current_player == 1
    assert [state.card(Pos(1, r, 0)) for r in range(3)] == [None, None, None]
    assert state.out_of_play == (5, 5, 5)


@pytest.mark.rule("R9.6", "R10.4")
def test_exchange_completing_two_triples_removes_both_at_its_end() -> None:
    f0: Grid = ((1, 2, 3, 4), (5, 6, 3, 7), (8, 9, 0, 11))
    f1: Grid = ((10, 1, 2, 4), (10, 5, 6, 8), (3, 10, 7, 9))
    state = game(3, {0: f0, 1: f1, 2: G2}, discard=-1, draw=[5])
    picks = {0: (Pos(0, 0, 2), Pos(0, 1, 2)), 1: (Pos(1, 0, 0), Pos(1, 1, 0))}
    state = setup_reveals(state, picks)
    state = play(state, [DrawDeck(), Knock(), Pass(), Give(1), Swap(Pos(1, 2, 1))])
    assert state.in_hand == ((1, 10),)
    state = play(state, [Take(Pos(1, 2, 0))])
    assert state.held == 3
    # The drawer's 3 completes its column 2; the hand card 10 completes seat 1's column 0.
    state = play(state, [Swap(Pos(0, 2, 2))])
    gone = [Pos(0, r, 2) for r in range(3)] + [Pos(1, r, 0) for r in range(3)]
    assert [state.card(p) for p in gone] == [None] * 6
    assert Counter(state.out_of_play) == Counter({3: 3, 10: 3})
    assert state.discard_pile == (-1, 0)
    assert state.card(Pos(1, 2, 1)) == 5 and state.is_face_up(Pos(1, 2, 1))
    assert state.phase is Phase.DRAW and state.current_player == 1
    assert cards_of(state) == FULL_DECK


@pytest.mark.rule("R9.5")
def test_no_dead_end_give_is_not_listed_when_the_exchange_cannot_complete() -> None:
    state = setup_reveals(game(3, T3, discard=-1, draw=[8]))
    # Drawer 0 keeps one card in its zone, (1,0,3), and knocker 1's zone holds nothing else.
    gaps = _own(0) + [p for p in _own(1) if p != Pos(1, 0, 3)] + [Pos(2, r, 3) for r in range(3)]
    state = _clear(state, gaps)
    state = play(state, [DrawDeck(), Knock(), Knock()])
    assert state.phase is Phase.HOLD_DECK
    assert set(legal_actions(state)) == {Swap(Pos(1, 0, 3)), Discard(), Give(2)}
    _illegal(state, Give(1))
    state = play(state, [Give(2)])
    seat2_left = [Pos(2, r, c) for r in range(3) for c in range(3)]
    assert set(legal_actions(state)) == _swaps(seat2_left)
    state = play(state, [Swap(Pos(2, 0, 0))])
    assert state.in_hand == ((2, 3),)
    assert set(legal_actions(state)) == {Take(p) for p in seat2_left}
    state = play(state, [Take(Pos(2, 1, 1))])
    assert state.held == 8
    assert legal_actions(state) == (Swap(Pos(1, 0, 3)),)
    state = play(state, [Swap(Pos(1, 0, 3))])
    assert state.card(Pos(1, 0, 3)) == 8 and state.card(Pos(2, 1, 1)) == 3
    assert state.card(Pos(2, 0, 0)) == 8
    assert state.discard_pile == (-1, 5)
    assert cards_of(state) == FULL_DECK


@pytest.mark.rule("R9.5")
def test_no_dead_end_take_leaves_the_drawer_a_card_to_swap_with() -> None:
    state = setup_reveals(game(3, T3, discard=-1, draw=[8]))
    # The drawer's zone keeps one card, (1,0,3), which also lies in knocker 1's zone.
    state = _clear(state, [*_own(0), Pos(1, 1, 3), Pos(1, 2, 3)])
    state = play(state, [DrawDeck(), Knock(), Pass()])
    assert set(legal_actions(state)) == {Swap(Pos(1, 0, 3)), Discard(), Give(1)}
    state = play(state, [Give(1)])
    zone1 = [p for p in _zone_literal(1, 2) if p not in (Pos(1, 1, 3), Pos(1, 2, 3))]
    assert set(legal_actions(state)) == _swaps(zone1)
    state = play(state, [Swap(Pos(1, 1, 1))])
    assert state.in_hand == ((1, 7),)
    assert set(legal_actions(state)) == {Take(p) for p in zone1 if p != Pos(1, 0, 3)}
    _illegal(state, Take(Pos(1, 0, 3)))
    state = play(state, [Take(Pos(1, 1, 1))])  # the given card itself
    assert state.held == 8
    assert legal_actions(state) == (Swap(Pos(1, 0, 3)),)
    state = play(state, [Swap(Pos(1, 0, 3))])
    assert state.card(Pos(1, 0, 3)) == 8 and state.card(Pos(1, 1, 1)) == 7
    assert state.discard_pile == (-1, 5)
    assert cards_of(state) == FULL_DECK


@pytest.mark.rule("R5.3", "R9.5")
def test_draw_discard_is_listed_only_with_a_swap_target() -> None:
    state = setup_reveals(game(3, T3, discard=-1))
    state = _clear(state, [*_own(0), Pos(1, 0, 3), Pos(1, 1, 3), Pos(1, 2, 3)])
    assert legal_actions(state) == (DrawDeck(),)
    _illegal(state, DrawDiscard())


# ------------------------------------------------------------------------- triples


@pytest.mark.rule("R10.2")
def test_column_triple_counts_only_face_up_cards() -> None:
    nines: Grid = ((1, 2, 9, 3), (4, 5, 9, 6), (7, 8, 9, 10))
    state = game(2, {0: nines, 1: G1}, discard=-1, draw=[4])
    state = setup_reveals(state, {0: (Pos(0, 0, 2), Pos(0, 1, 2))})
    # 9 9 face up, the third 9 face down: no triple.
    assert [state.card(Pos(0, r, 2)) for r in range(3)] == [9, 9, 9]
    assert state.out_of_play == ()
    state = play(_draw(state), [Discard(), Reveal(Pos(0, 2, 2))])
    assert [state.card(Pos(0, r, 2)) for r in range(3)] == [None, None, None]
    assert state.out_of_play == (9, 9, 9)
    assert state.discard_pile == (-1, 4)
    assert state.current_player == 1
    assert cards_of(state) == FULL_DECK


@pytest.mark.rule("R10.1")
def test_row_triple_through_the_left_neighbours_column_but_not_the_right() -> None:
    a: Grid = ((8, 8, 1, 2), (3, 4, 5, 6), (7, 9, 10, 11))
    b: Grid = ((0, 1, 2, 3), (4, 5, 6, 7), (9, 10, 11, -1))
    c: Grid = ((1, 2, 3, 8), (4, 5, 6, 7), (9, 10, 11, 0))
    state = game(3, {0: a, 1: b, 2: c}, discard=-1, draw=[8])
    picks = {0: (Pos(0, 0, 0), Pos(0, 0, 1)), 2: (Pos(2, 0, 3), Pos(2, 2, 0))}
    state = setup_reveals(state, picks)
    # Three face-up 8s, but (2,0,3) is the RIGHT neighbour's column: no common line.
    for pos in (Pos(0, 0, 0), Pos(0, 0, 1), Pos(2, 0, 3)):
        assert state.card(pos) == 8 and state.is_face_up(pos)
    assert state.out_of_play == ()
    # Seat 0 swaps a drawn 8 into its left neighbour's (1,0,3): zone(0) row 0 is 8 8 8 1 2.
    state = play(_draw(state), [Swap(Pos(1, 0, 3))])
    for pos in (Pos(1, 0, 3), Pos(0, 0, 0), Pos(0, 0, 1)):
        assert state.card(pos) is None, pos
    assert state.card(Pos(2, 0, 3)) == 8 and state.is_face_up(Pos(2, 0, 3))
    assert state.out_of_play == (8, 8, 8)
    assert state.discard_pile == (-1, 3)
    assert state.current_player == 1
    assert cards_of(state) == FULL_DECK


@pytest.mark.rule("R10.4")
def test_row_and_column_triples_found_at_once_are_all_removed() -> None:
    a: Grid = ((1, 6, 3, 4), (6, 2, 5, 7), (8, 6, 9, 10))
    b: Grid = ((0, 1, 2, 3), (4, 5, 7, 6), (8, 9, 10, 11))
    state = game(2, {0: a, 1: b}, discard=-1, draw=[0, 1, 6])
    picks = {0: (Pos(0, 0, 1), Pos(0, 2, 1)), 1: (Pos(1, 1, 3), Pos(1, 0, 0))}
    state = setup_reveals(state, picks)
    state = _flip_turn(state, Pos(0, 1, 0))
    state = _flip_turn(state, Pos(1, 0, 1))
    assert state.out_of_play == ()
    state = play(_draw(state), [Swap(Pos(0, 1, 1))])
    gone = [Pos(0, 0, 1), Pos(0, 1, 1), Pos(0, 2, 1), Pos(1, 1, 3), Pos(0, 1, 0)]
    assert [state.card(p) for p in gone] == [None] * 5
    assert state.out_of_play == (6, 6, 6, 6, 6)
    assert state.discard_pile == (-1, 0, 1, 2)
    assert state.card(Pos(0, 1, 2)) == 5  # the rest of the row stays
    assert cards_of(state) == FULL_DECK


@pytest.mark.rule("R10.6")
def test_gaps_stay_empty_and_are_never_targets() -> None:
    sevens: Grid = ((1, 2, 3, 7), (5, 6, 8, 7), (9, 10, 11, 7))
    state = game(2, {0: sevens, 1: G1}, discard=-1, draw=[4])
    state = play(state, [Reveal(Pos(0, 0, 3)), Reveal(Pos(0, 1, 3)), Reveal(Pos(0, 2, 3))])
    gaps = [Pos(0, r, 3) for r in range(3)]
    assert [state.card(p) for p in gaps] == [None] * 3
    assert not any(state.is_face_up(p) for p in gaps)
    assert state.out_of_play == (7, 7, 7)
    assert state.current_player == 1
    assert set(legal_actions(state)) == _reveals(_own(1))
    state = play(state, [Reveal(Pos(1, 0, 0))])
    assert state.phase is Phase.DRAW and state.current_player == 0
    state = play(state, [DrawDeck(), Knock()])
    zone0 = [p for p in _zone_literal(0, 1) if p not in gaps]
    assert set(legal_actions(state)) == _swaps(zone0) | {Discard(), Give(1)}
    _illegal(state, Swap(Pos(0, 0, 3)))
    state = play(state, [Give(1)])
    assert set(legal_actions(state)) == _swaps(_own(1))
    _illegal(state, Swap(Pos(0, 1, 3)))
    state = play(state, [Swap(Pos(1, 1, 1))])
    assert set(legal_actions(state)) == {Take(p) for p in _own(1)}
    _illegal(state, Take(Pos(0, 2, 3)))
    state = play(state, [Take(Pos(1, 2, 2))])
    assert state.held == 0
    state = play(state, [Swap(Pos(0, 0, 0))])
    # Only the knock gap is refilled.
    assert state.card(Pos(1, 2, 2)) == 7 and state.is_face_up(Pos(1, 2, 2))
    assert [state.card(p) for p in gaps] == [None] * 3
    assert state.discard_pile == (-1, 1)
    state = play(_draw(state), [Discard()])
    assert state.phase is Phase.FLIP and state.current_player == 1
    up = {Pos(1, 0, 0), Pos(1, 1, 1), Pos(1, 2, 2)}
    assert set(legal_actions(state)) == _reveals(p for p in _own(1) if p not in up)
    _illegal(state, Reveal(Pos(0, 1, 3)))
    state = play(state, [Reveal(Pos(1, 0, 1))])
    assert [state.card(p) for p in gaps] == [None] * 3
    assert state.out_of_play == (7, 7, 7)
    assert cards_of(state) == FULL_DECK


# ---------------------------------------------------------------- draw pile refill


def _empty_draw_pile(state: GameState, discard: Sequence[int]) -> GameState:
    """Empty the draw pile; the discard pile becomes ``discard``; the rest is out of play."""
    pool = Counter(state.draw_pile) + Counter(state.discard_pile)
    pool.subtract(Counter(discard))
    assert min(pool.values()) >= 0
    out = forged(
        state,
        draw_pile=(),
        discard_pile=tuple(discard),
        out_of_play=state.out_of_play + tuple(sorted(pool.elements())),
    )
    assert cards_of(out) == FULL_DECK
    return out


@pytest.mark.rule("R12.1")
def test_draw_deck_on_an_empty_draw_pile_reshuffles_all_but_the_discard_top() -> None:
    state = setup_reveals(game(2, {0: G0, 1: G1}, discard=-1))
    state = _empty_draw_pile(state, (5, 9))
    assert state.refills == 0
    assert DrawDeck() in legal_actions(state)
    state = play(state, [DrawDeck()])
    assert state.refills == 1
    assert state.held == 5
    assert state.draw_pile == () and state.discard_pile == (9,)
    assert cards_of(state) == FULL_DECK
    state = play(_answer_window(state), [Discard()])
    assert state.discard_pile == (9, 5)
    state = play(state, [Reveal(Pos(0, 0, 0))])
    assert state.current_player == 1
    state = play(state, [DrawDeck()])
    assert state.refills == 2
    assert state.held == 9
    assert state.draw_pile == () and state.discard_pile == (5,)
    assert cards_of(state) == FULL_DECK


@pytest.mark.rule("R12.1")
def test_three_card_refill_keeps_the_discard_top() -> None:
    state = setup_reveals(game(2, {0: G0, 1: G1}, discard=-1))
    state = _empty_draw_pile(state, (6, 6, 6, 2))
    state = play(state, [DrawDeck()])
    assert state.refills == 1 and state.held == 6
    assert state.draw_pile == (6, 6) and state.discard_pile == (2,)


@pytest.mark.rule("R12.2")
def test_draw_deck_is_not_legal_when_the_draw_pile_cannot_be_refilled() -> None:
    state = setup_reveals(game(2, {0: G0, 1: G1}, discard=-1))
    state = _empty_draw_pile(state, (9,))
    assert legal_actions(state) == (DrawDiscard(),)
    _illegal(state, DrawDeck())


# ----------------------------------------------------------------------- round end

S0 = G0  # zone sums with n = 2: own sum + the other seat's column 3
S1 = G1


@pytest.mark.rule("R13.1", "R13.3", "R15.1", "R15.2", "R16.1")
@pytest.mark.parametrize(
    ("grids", "sums", "scores", "doubled"),
    [
        # zone(0) = 66 + 13 = 79, zone(1) = 64 + 12 = 76: the ender 0 is not lowest.
        ({0: S0, 1: S1}, (79, 76), (158, 76), True),
        # zone(0) = 64 + 12 = 76, zone(1) = 66 + 13 = 79: the ender 0 is lowest.
        ({0: S1, 1: S0}, (76, 79), (76, 79), False),
    ],
)
def test_round_end_two_players_then_scoring_and_the_next_deal(
    grids: dict[int, Grid], sums: tuple[int, int], scores: tuple[int, int], doubled: bool
) -> None:
    state = game(2, grids, discard=-1)
    state = play(
        state,
        [Reveal(Pos(0, 0, 0)), Reveal(Pos(0, 0, 1)), Reveal(Pos(0, 0, 3)), Reveal(Pos(0, 1, 3))],
    )
    mine = [Pos(0, 0, 2), Pos(0, 1, 0), Pos(0, 1, 1), Pos(0, 1, 2), Pos(0, 2, 0), Pos(0, 2, 1)]
    theirs = [Pos(0, 2, 3), Pos(1, 0, 0), Pos(1, 0, 1), Pos(1, 0, 2), Pos(1, 0, 3), Pos(1, 1, 0)]
    for pos, other in zip(mine, theirs, strict=True):
        state = _flip_turn(_flip_turn(state, pos), other)
    assert state.ender is None and state.current_player == 0
    assert [state.is_face_up(p) for p in _own(0)].count(False) == 1
    state = _flip_turn(state, Pos(0, 2, 2))  # seat 0's last face-down card
    assert state.ender == 0 and state.final_turns == (1,)
    assert state.phase is Phase.DRAW and state.current_player == 1 and state.round == 1
    assert state.last_round is None and state.totals == (0, 0)
    state = _flip_turn(state, Pos(1, 1, 1))  # seat 1's one more turn
    result = state.last_round
    assert result is not None
    assert result.round == 1 and result.ender == 0 and result.doubled is doubled
    assert result.zone_sums == sums and result.scores == scores
    # Seat 1 still had 6 face-down cards: they count. The column 3 counts twice.
    assert result.cells == _flat(grids[0], grids[1])
    assert sum(result.zone_sums) == 66 + 64 + 12 + 13
    assert state.totals == scores and state.round_scores == (scores,)
    # Round 2 is dealt and starts at seat 1.
    assert state.round == 2 and state.phase is Phase.SETUP and state.current_player == 1
    assert state.face_down == (1 << 24) - 1 and state.ender is None
    assert len(state.discard_pile) == 1 and len(state.draw_pile) == 95
    assert state.held is None and state.in_hand == () and state.out_of_play == ()
    assert cards_of(state) == FULL_DECK


@pytest.mark.rule("R10.6", "R13.1", "R15.1")
def test_gaps_count_as_revealed_for_the_round_end_and_score_zero() -> None:
    sevens: Grid = ((1, 2, 3, 7), (5, 6, 8, 7), (9, 10, 11, 7))
    state = game(2, {0: sevens, 1: G1}, discard=-1)
    state = play(
        state,
        [Reveal(Pos(0, 0, 3)), Reveal(Pos(0, 1, 3)), Reveal(Pos(0, 2, 3)), Reveal(Pos(1, 0, 0))],
    )
    assert state.out_of_play == (7, 7, 7) and state.current_player == 0
    state = _face_down_only(state, [Pos(0, 0, 0)] + [p for p in _own(1) if p != Pos(1, 0, 0)])
    state = _flip_turn(state, Pos(0, 0, 0))  # 9 face-up cards and 3 gaps: seat 0 is done
    assert state.ender == 0 and state.final_turns == (1,) and state.current_player == 1
    state = _flip_turn(state, Pos(1, 0, 1))
    result = state.last_round
    assert result is not None and result.ender == 0 and state.round == 2
    grid0 = (1, 2, 3, None, 5, 6, 8, None, 9, 10, 11, None)
    assert result.cells == grid0 + _flat(G1)
    # zone(0) = 55 + 13 (seat 1's column 3); zone(1) = 64 + 0 (seat 0's column 3 is gone).
    assert result.zone_sums == (68, 64)
    assert result.doubled is True and result.scores == (136, 64)


@pytest.mark.rule("R13.4", "R13.3")
def test_the_enders_cards_stay_in_play_during_the_last_turns() -> None:
    state = setup_reveals(game(3, T3, discard=-1, draw=[7, -1, 2]))
    setup_up = {Pos(p, 2, c) for p in range(3) for c in (0, 1)}
    others = [pos for p in (1, 2) for pos in _own(p) if pos not in setup_up]
    state = _face_down_only(state, [Pos(0, 0, 0), *others])
    state = _flip_turn(state, Pos(0, 0, 0))  # seat 0's last face-down card: it ends
    assert state.ender == 0 and state.final_turns == (1, 2) and state.current_player == 1
    # Seat 1's last turn: the ender may knock for the drawn -1 and be given it.
    state = play(state, [DrawDeck(), Pass()])
    assert state.current_player == 0 and Knock() in legal_actions(state)
    state = play(state, [Knock()])
    assert Give(0) in legal_actions(state)
    state = play(state, [Give(0), Swap(Pos(0, 1, 1))])  # the 6 goes to seat 0's hand
    state = play(state, [Take(Pos(0, 2, 2)), Swap(Pos(1, 0, 0))])  # the 11; the 6 fills
    assert state.card(Pos(0, 1, 1)) == -1 and state.card(Pos(0, 2, 2)) == 6
    assert (state.ender, state.current_player, state.round) == (0, 2, 1)
    # Seat 2's last turn: it swaps the drawn 2 into the ender's shared column.
    state = play(_draw(state), [Swap(Pos(0, 0, 3))])
    result = state.last_round
    assert result is not None and result.ender == 0 and state.round == 2
    # Seat 0 is scored on what its zone holds now: own (1+2+3+2) + (5-1+7+8) + (9+10+6+0)
    # = 52, plus seat 1's column 3 (5+9-1) = 65. Seat 1: 64 - 2 + 11 = 73, plus seat 2's
    # column 3 (6+10+1) = 90. Seat 2: 63, plus seat 0's column 3 (2+8+0) = 73.
    assert result.zone_sums == (65, 90, 73)
    assert result.doubled is False and result.scores == (65, 90, 73)


@pytest.mark.rule("R13.2", "R13.3")
def test_ender_by_own_reveal_others_get_one_turn_each_clockwise() -> None:
    state = setup_reveals(game(3, T3, discard=-1))
    state = _flip_turn(state, Pos(0, 0, 0))
    assert state.current_player == 1
    state = _face_down_only(
        state, [Pos(0, 0, 1), Pos(0, 0, 2), Pos(1, 0, 0), Pos(2, 0, 0), Pos(2, 0, 1)]
    )
    state = _flip_turn(state, Pos(1, 0, 0))
    assert state.ender == 1 and state.final_turns == (2, 0) and state.current_player == 2
    state = _flip_turn(state, Pos(2, 0, 0))
    assert state.round == 1 and state.current_player == 0 and state.final_turns == (0,)
    state = _flip_turn(state, Pos(0, 0, 1))
    result = state.last_round
    assert result is not None and result.ender == 1
    # zone(0) = 66 + 13, zone(1) = 64 + 17, zone(2) = 63 + 12; the ender is not lowest.
    assert result.zone_sums == (79, 81, 75)
    assert result.doubled is True and result.scores == (79, 162, 75)
    assert state.totals == (79, 162, 75)
    assert state.round == 2 and state.current_player == 1


@pytest.mark.rule("R13.2", "R13.3")
def test_ender_completed_by_the_drawers_swap_into_its_column() -> None:
    state = setup_reveals(game(3, T3, discard=-1, draw=[8]))
    state = _face_down_only(
        state, [Pos(0, 0, 0), Pos(0, 0, 1), Pos(1, 2, 3), Pos(2, 0, 0), Pos(2, 0, 1)]
    )
    # Seat 0 swaps the drawn 8 onto seat 1's last face-down card (1,2,3).
    state = play(_draw(state), [Swap(Pos(1, 2, 3))])
    assert state.discard_pile == (-1, -1)
    assert state.ender == 1
    assert state.final_turns == (2, 0) and state.current_player == 2
    state = _flip_turn(state, Pos(2, 0, 0))
    assert state.current_player == 0 and state.round == 1  # the acting seat plays again
    state = _flip_turn(state, Pos(0, 0, 0))
    result = state.last_round
    assert result is not None and result.ender == 1 and state.round == 2
    # own(1) = 64 + 1 + 8 = 73 (the -1 became an 8); column 3 of seat 1 = 5 + 9 + 8 = 22.
    assert result.zone_sums == (66 + 22, 73 + 17, 63 + 12)
    assert result.doubled is True and result.scores == (88, 180, 75)


@pytest.mark.rule("R13.2")
def test_two_done_at_once_the_acting_drawer_is_the_ender() -> None:
    state = setup_reveals(game(3, T3, discard=-1, draw=[8]))
    state = _face_down_only(state, [Pos(0, 0, 0), Pos(1, 0, 0), Pos(2, 0, 0), Pos(2, 0, 1)])
    state = play(state, [DrawDeck(), Knock(), Pass(), Give(1), Swap(Pos(1, 0, 0))])
    assert state.in_hand == ((1, 2),)
    state = play(state, [Take(Pos(1, 1, 1)), Swap(Pos(0, 0, 0))])
    # Seat 1 finished by its own swap, seat 0 by the drawer's swap: the drawer ends.
    assert state.card(Pos(0, 0, 0)) == 7 and state.card(Pos(1, 1, 1)) == 2
    assert state.discard_pile == (-1, 1)
    assert state.ender == 0 and state.final_turns == (1, 2) and state.current_player == 1
    # Seat 1 has nothing face down in its zone: discarding the drawn card ends its turn.
    state = play(_draw(state), [Discard()])
    assert state.phase is Phase.DRAW and state.current_player == 2
    assert state.final_turns == (2,)
    state = _flip_turn(state, Pos(2, 0, 0))
    result = state.last_round
    assert result is not None and result.ender == 0
    # own(0) = 66 - 1 + 7 = 72; own(1) = 64 - 2 + 8 - 7 + 2 = 65.
    assert result.zone_sums == (72 + 13, 65 + 17, 63 + 12)
    assert result.doubled is True and result.scores == (170, 82, 75)


@pytest.mark.rule("R13.2", "R7.1")
def test_two_done_at_once_the_first_clockwise_from_the_drawer_ends() -> None:
    state = setup_reveals(game(3, T3, discard=-1, draw=[2, 6, 11]))
    state = _flip_turn(state, Pos(0, 0, 0))
    assert state.current_player == 1
    state = _face_down_only(state, [Pos(0, 2, 3), Pos(1, 0, 0), Pos(1, 0, 1), Pos(2, 0, 0)])
    state = play(state, [DrawDeck()])
    assert state.held == 6 and state.current_player == 2
    state = play(state, [Knock(), Pass(), Give(2)])
    # Knocker 2 swaps onto seat 0's last face-down card (in zone(2)): seat 0 is done.
    state = play(state, [Swap(Pos(0, 2, 3))])
    assert state.in_hand == ((2, 0),)
    # Drawer 1 takes seat 2's last face-down card: the refilled gap finishes seat 2.
    state = play(state, [Take(Pos(2, 0, 0))])
    assert state.held == 3
    state = play(state, [Swap(Pos(1, 1, 1))])
    assert state.card(Pos(2, 0, 0)) == 0 and state.is_face_up(Pos(2, 0, 0))
    assert state.discard_pile == (-1, 2, 7)
    # Seats 0 and 2 are done, the drawer 1 is not: 2 is first clockwise from 1.
    assert state.ender == 2 and state.final_turns == (0, 1) and state.current_player == 0
    # Seat 0's whole zone is face up: after Discard() its turn just ends.
    state = play(_draw(state), [Discard()])
    assert state.discard_pile == (-1, 2, 7, 11)
    assert state.phase is Phase.DRAW and state.current_player == 1
    assert state.final_turns == (1,) and state.round == 1
    state = _flip_turn(state, Pos(1, 0, 0))
    result = state.last_round
    assert result is not None and result.ender == 2 and state.round == 2
    # own(0) = 66 + 6 = 72, col3(0) = 18; own(1) = 64 - 7 + 3 = 60; own(2) = 63 - 3 = 60.
    assert result.zone_sums == (72 + 13, 60 + 17, 60 + 18)
    assert result.doubled is True and result.scores == (85, 77, 156)
    assert sum(result.zone_sums) == (72 + 60 + 60) + (18 + 13 + 17)


# --------------------------------------------------------------------- whole game


@pytest.mark.rule("R16.1", "R16.2", "R15.3")
@pytest.mark.parametrize(
    ("rounds", "scores", "totals", "winners"),
    [
        (
            [{0: S1, 1: S0}, {0: S0, 1: S1}, {0: S0, 1: S0}],
            # r1: ender 0 lowest; r2: ender 1 lowest; r3: 78 each, a tie is lowest.
            [(76, 79), (79, 76), (78, 78)],
            (233, 233),
            (0, 1),
        ),
        (
            [{0: S0, 1: S1}, {0: S0, 1: S1}, {0: S0, 1: S0}],
            [(158, 76), (79, 76), (78, 78)],
            (315, 230),
            (1,),
        ),
    ],
)
def test_three_rounds_then_the_game_is_over(
    rounds: list[dict[int, Grid]],
    scores: list[tuple[int, int]],
    totals: tuple[int, int],
    winners: tuple[int, ...],
) -> None:
    state = game(2, rounds[0], discard=-1, seed=5)
    for number, (grids, expected) in enumerate(zip(rounds, scores, strict=True), start=1):
        assert state.round == number
        assert state.current_player == (number - 1) % 2
        assert state.winners == () and not state.is_terminal
        if number > 1:
            state = _restack(state, grids)
        state = _race_round(state)
        assert state.last_round is not None
        assert state.last_round.round == number
        assert state.last_round.ender == (number - 1) % 2
        assert state.last_round.scores == expected
        assert state.round_scores == tuple(scores[:number])
    assert state.totals == totals
    assert state.is_terminal and state.phase is Phase.OVER
    assert state.current_player is None
    assert legal_actions(state) == ()
    assert state.round == 3
    assert state.winners == winners
    _illegal(state, DrawDeck())


def _round_two(grids: Mapping[int, Grid], seed: int | None) -> GameState:
    state = _race_round(game(2, grids, discard=-1, seed=seed))
    assert state.round == 2 and state.phase is Phase.SETUP
    return state


@pytest.mark.rule("R3.2", "R16.1")
def test_later_rounds_are_dealt_from_the_seed() -> None:
    a = _round_two({0: S0, 1: S1}, seed=7)
    b = _round_two({0: S0, 1: S1}, seed=7)
    assert (a.cells, a.discard_pile, a.draw_pile) == (b.cells, b.discard_pile, b.draw_pile)
    assert a == b
    assert cards_of(a) == FULL_DECK and a.face_down == (1 << 24) - 1
    assert a.cells != _flat(S0, S1)
    # Another seed deals another round 2; another round-1 deck with the same seed does not.
    c = _round_two({0: S0, 1: S1}, seed=8)
    assert c.cells != a.cells
    d = _round_two({0: S1, 1: S0}, seed=7)
    assert (d.cells, d.discard_pile, d.draw_pile) == (a.cells, a.discard_pile, a.draw_pile)


@pytest.mark.rule("R3.2")
def test_a_deck_without_a_seed_still_deals_later_rounds_deterministically() -> None:
    a = _round_two({0: S0, 1: S1}, seed=None)
    b = _round_two({0: S0, 1: S1}, seed=None)
    assert a == b
    assert cards_of(a) == FULL_DECK and a.face_down == (1 << 24) - 1
    assert a.cells != _flat(S0, S1)
    c = _round_two({0: S1, 1: S0}, seed=None)
    assert c.cells != a.cells
