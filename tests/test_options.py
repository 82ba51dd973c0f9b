"""Every rule option changes play as ambiguities.md says: one scenario per reading.

Each test deals a stacked deck (``tests/helpers.py``), plays a short script and checks
concrete outcomes (legal action sets, cells, piles, scores) that differ between the
readings of one option. Expected values are worked out by hand from the stacked
tables in this file, never by asking the engine.

Conventions: ``own(p)`` and ``zone(p, n)`` below are written out from api.md (zone =
own 12 cells plus ``Pos(left(p), r, 3)``), not taken from the engine.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import pytest

from allegra_rules import (
    Action,
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
    legal_actions,
    new_game,
    observe,
    preset,
)
from helpers import Grid, game, own, pass_window, play, setup_reveals

# ------------------------------------------------------------------ helpers


def cfg(**options: Any) -> RuleConfig:
    """A config from option values given as plain strings (as parametrized below)."""
    return RuleConfig(**options)


def zone(p: int, n: int) -> list[Pos]:
    """Seat ``p``'s 15 zone cells: own grid plus the left neighbour's column 3."""
    return own(p) + [Pos((p + 1) % n, r, 3) for r in range(3)]


def area(kind: str, p: int, n: int) -> list[Pos]:
    return zone(p, n) if kind == "zone" else own(p)


def legal_of(state: GameState, kind: type) -> set[Action]:
    return {a for a in legal_actions(state) if isinstance(a, kind)}


def discard_turn(state: GameState, reveal: Pos | None = None) -> GameState:
    """A whole turn: draw from the deck, nobody knocks, discard it, reveal ``reveal``.

    Without ``reveal`` the first legal reveal is taken.
    """
    state = play(state, [DrawDeck()])
    state = pass_window(state)
    state = play(state, [Discard()])
    if state.phase is Phase.FLIP:
        state = play(state, [Reveal(reveal) if reveal else legal_actions(state)[0]])
    return state


def cards_everywhere(state: GameState) -> Counter[int]:
    """Every card of the game, counted by hand from the public state fields."""
    found = Counter(v for v in state.cells if v is not None)
    found.update(state.draw_pile)
    found.update(state.discard_pile)
    found.update(state.out_of_play)
    found.update(card for _, card in state.in_hand)
    if state.held is not None:
        found[state.held] += 1
    return found


def gaps(state: GameState) -> set[Pos]:
    n = state.num_players
    return {pos for p in range(n) for pos in own(p) if state.card(pos) is None}


# A 3-seat table on which no two face-up cards can form a triple by accident: every
# zone row and every column holds at most two cards of one value.
G0: Grid = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 0]]
G1: Grid = [[2, 3, 4, 5], [6, 7, 8, 9], [10, 11, 0, 1]]
G2: Grid = [[3, 4, 5, 6], [7, 8, 9, 10], [11, 0, 1, 2]]
SAFE3 = {0: G0, 1: G1, 2: G2}
SAFE2 = {0: G0, 1: G1}


# ------------------------------------------------------------------- A1 deck

DEFAULT_COUNTS = {
    -1: 6, 0: 7, 1: 8, 2: 10, 3: 11, 4: 12, 5: 12,
    6: 12, 7: 11, 8: 10, 9: 8, 10: 7, 11: 6,
}  # fmt: skip


@pytest.mark.rule("R2.1", "R2.2")
@pytest.mark.parametrize("n", [2, 6])
def test_deck_default_is_120_cards_with_the_listed_counts(n: int) -> None:
    config = RuleConfig()
    assert dict(config.deck) == DEFAULT_COUNTS
    assert sum(DEFAULT_COUNTS.values()) == 120
    state = new_game(n, seed=11)
    assert cards_everywhere(state) == Counter(DEFAULT_COUNTS)
    assert len(state.draw_pile) == 120 - 12 * n - 1


@pytest.mark.rule("R2.1", "R2.2", "R3.1")
@pytest.mark.parametrize("removed", ["out_of_play", "discard"])
def test_deck_custom_deals_in_blocks_and_is_conserved_all_game(removed: str) -> None:
    counts = {0: 10, 3: 10, 8: 10, 11: 10}
    config = cfg(deck=counts, removed_cards=removed, max_turns_per_round=30)
    deck = [v for _ in range(10) for v in (11, 3, 0, 8)]  # 40 cards, a fixed order
    state = new_game(3, config=config, deck=deck)
    assert state.cells == tuple(deck[:36])
    assert state.discard_pile == (deck[36],)
    assert state.draw_pile == tuple(deck[37:])
    assert state.card(Pos(1, 0, 0)) == deck[12]
    assert state.card(Pos(2, 2, 3)) == deck[35]
    rng = random.Random(5)
    seen_removal = False
    while not state.is_terminal:
        state = apply(state, rng.choice(legal_actions(state)))
        assert cards_everywhere(state) == Counter(counts)
        assert {v for v in state.cells if v is not None} <= set(counts)
        seen_removal = seen_removal or bool(state.out_of_play) or None in state.cells
    assert seen_removal  # four values only: triples were removed and still conserved
    assert len(state.round_scores) == 3


# ------------------------------------------------------- A2 min/max players


@pytest.mark.rule("R1.2")
def test_players_default_bounds_are_2_to_6() -> None:
    for n in range(2, 7):
        assert new_game(n).num_players == n
    for n in (1, 7):
        with pytest.raises(ValueError, match=r"num_players must be 2\.\.6"):
            new_game(n)


@pytest.mark.rule("R1.2")
def test_players_custom_bounds_are_enforced_by_new_game() -> None:
    config = RuleConfig(min_players=3, max_players=4)
    assert new_game(3, config=config).num_players == 3
    assert new_game(4, config=config).num_players == 4
    for n in (2, 5):
        with pytest.raises(ValueError, match=r"num_players must be 3\.\.4"):
            new_game(n, config=config)


@pytest.mark.rule("R1.2")
def test_players_custom_deck_too_small_for_n_is_rejected() -> None:
    small = RuleConfig(deck={1: 19, 2: 18})  # 37 cards: 2 seats need 26, 3 need 38
    assert len(new_game(2, config=small).draw_pile) == 37 - 25
    with pytest.raises(ValueError, match="needs a deck of at least 38 cards"):
        new_game(3, config=small)
    with pytest.raises(ValueError, match="needs a deck of at least 38 cards"):
        new_game(3, config=small, deck=[1] * 19 + [2] * 18)
    exact = RuleConfig(deck={1: 19, 2: 19})  # 38 cards: exactly 12 * 3 + 2
    state = new_game(3, config=exact, deck=[1] * 19 + [2] * 19)
    assert len(state.draw_pile) == 1
    assert state.discard_pile == (2,)


# --------------------------------------------------------------- A6 reveal_area


@pytest.mark.rule("R4.2", "R7.1")
@pytest.mark.parametrize("reading", ["zone", "own"])
def test_reveal_area_in_setup_and_after_discard(reading: str) -> None:
    config = cfg(reveal_area=reading)
    state = game(3, SAFE3, config=config)
    assert legal_of(state, Reveal) == {Reveal(p) for p in area(reading, 0, 3)}
    assert len(legal_actions(state)) == (15 if reading == "zone" else 12)
    if reading == "zone":
        state = play(state, [Reveal(Pos(1, 0, 3)), Reveal(Pos(0, 0, 0))])
        assert state.is_face_up(Pos(1, 0, 3))
        assert state.setup_sums[0] == 5 + 1  # G1 (0,3) = 5, G0 (0,0) = 1
        up = {Pos(1, 0, 3), Pos(0, 0, 0)}
    else:
        with pytest.raises(IllegalActionError, match="reveal_area='own'"):
            apply(state, Reveal(Pos(1, 0, 3)))
        state = play(state, [Reveal(Pos(0, 0, 0)), Reveal(Pos(0, 0, 1))])
        up = {Pos(0, 0, 0), Pos(0, 0, 1)}
    state = setup_reveals(state)  # seats 1 and 2 reveal their own (2,0), (2,1)
    state = pass_window(play(state, [DrawDeck()]))
    state = play(state, [Discard()])
    assert state.phase is Phase.FLIP
    assert legal_of(state, Reveal) == {Reveal(p) for p in area(reading, 0, 3) if p not in up}
    if reading == "zone":
        state = play(state, [Reveal(Pos(1, 1, 3))])
        assert state.is_face_up(Pos(1, 1, 3))
        assert (state.phase, state.current_player) == (Phase.DRAW, 1)
    else:
        with pytest.raises(IllegalActionError, match="reveal_area='own'"):
            apply(state, Reveal(Pos(1, 1, 3)))


@pytest.mark.rule("R7.1", "R13.1")
@pytest.mark.parametrize("reading", ["zone", "own"])
def test_reveal_area_after_discard_with_only_the_neighbours_column_face_down(reading: str) -> None:
    # round_end="zone" keeps the round going once seat 0's own grid is all up
    config = cfg(reveal_area=reading, round_end="zone")
    state = game(2, END_GRIDS, config=config)
    state = setup_reveals(state, {0: (Pos(0, 0, 0), Pos(0, 0, 1)), 1: (Pos(1, 0, 0), Pos(1, 0, 1))})
    rest0 = [p for p in own(0) if p not in (Pos(0, 0, 0), Pos(0, 0, 1))]
    rest1 = [Pos(1, 0, 2), Pos(1, 1, 0), Pos(1, 1, 1), Pos(1, 1, 2)]
    rest1 += [Pos(1, 2, 0), Pos(1, 2, 1), Pos(1, 2, 2)]
    for turn in range(10):
        state = discard_turn(state, rest0[turn])
        if turn < len(rest1):
            state = discard_turn(state, rest1[turn])
        else:  # seat 1 keeps its column 3 down: it swaps over its face-up (0,0)
            state = pass_window(play(state, [DrawDeck()]))
            state = play(state, [Swap(Pos(1, 0, 0))])
    assert all(state.is_face_up(p) or p in gaps(state) for p in own(0))
    assert not any(state.is_face_up(Pos(1, r, 3)) for r in range(3))
    assert (state.ender, state.current_player) == (None, 0)
    state = pass_window(play(state, [DrawDeck()]))
    state = play(state, [Discard()])
    if reading == "zone":
        assert (state.phase, state.current_player) == (Phase.FLIP, 0)
        assert set(legal_actions(state)) == {Reveal(Pos(1, r, 3)) for r in range(3)}
    else:  # nothing left to reveal in the own grid: the turn just ends (A11)
        assert (state.phase, state.current_player) == (Phase.DRAW, 1)
        assert not any(state.is_face_up(Pos(1, r, 3)) for r in range(3))


# -------------------------------------------------------------- A7 first_player

# Seat 1 reveals 11 + 11, seat 2 then reveals 11 at Pos(2,0,3): that completes the
# row [11, 11, 11, 2, 3] of seat 1's zone, and the three 11s are removed in setup.
# Setup sums: seat 0 10 + 10 = 20, seat 1 22 (removed, still counts), seat 2 11 + 10 = 21.
FP_GRIDS = {
    0: [[1, 2, 3, 4], [5, 6, 7, 8], [10, 10, 9, 0]],
    1: [[11, 11, 2, 3], [4, 5, 6, 7], [8, 9, 0, 1]],
    2: [[1, 2, 3, 11], [10, 4, 5, 6], [7, 8, 9, 2]],
}
FP_PICKS = {
    0: (Pos(0, 2, 0), Pos(0, 2, 1)),
    1: (Pos(1, 0, 0), Pos(1, 0, 1)),
    2: (Pos(2, 0, 3), Pos(2, 1, 0)),
}


@pytest.mark.rule("R4.4")
@pytest.mark.parametrize(("reading", "first"), [("rotate", 0), ("highest_reveal", 1)])
def test_first_player_round_one(reading: str, first: int) -> None:
    state = game(3, FP_GRIDS, config=cfg(first_player=reading))
    assert state.current_player == 0  # setup always starts at seat 0 in round 1
    state = setup_reveals(state, FP_PICKS)
    # the setup triple went (a precondition of the "setup card still counts" rule)
    assert {Pos(1, 0, 0), Pos(1, 0, 1), Pos(2, 0, 3)} == gaps(state)
    assert state.out_of_play == (11, 11, 11)
    assert (state.phase, state.current_player) == (Phase.DRAW, first)
    # play then passes clockwise from the first player
    state = discard_turn(state)
    assert state.current_player == (first + 1) % 3


@pytest.mark.rule("R4.1", "R4.4", "R16.1")
@pytest.mark.parametrize("reading", ["rotate", "highest_reveal"])
def test_first_player_setup_start_seat_rotates_each_round(reading: str) -> None:
    config = cfg(first_player=reading, max_turns_per_round=1)
    state = game(3, SAFE3, config=config)
    for r in (1, 2, 3):
        start = (r - 1) % 3
        assert (state.round, state.phase) == (r, Phase.SETUP)
        order = []
        while state.phase is Phase.SETUP:
            assert state.current_player is not None
            order.append(state.current_player)
            state = play(state, [legal_actions(state)[0]])
        assert order == [start, start, (start + 1) % 3, (start + 1) % 3, (start + 2) % 3,
                         (start + 2) % 3]  # fmt: skip
        if reading == "rotate":
            assert state.current_player == start
        state = discard_turn(state)
    assert state.is_terminal
    assert len(state.round_scores) == 3


def _pair_sums(state: GameState, seat: int) -> dict[int, tuple[Pos, Pos]]:
    out: dict[int, tuple[Pos, Pos]] = {}
    for a, b in itertools.combinations(own(seat), 2):
        value_a, value_b = state.card(a), state.card(b)
        assert value_a is not None and value_b is not None
        out[value_a + value_b] = (a, b)
    return out


@pytest.mark.rule("R4.4")
@pytest.mark.parametrize(
    ("tied", "low", "first"),
    [((0, 2), 1, 2), ((1, 0), 2, 1)],
    ids=["tie-0-2-goes-to-2", "tie-1-0-goes-to-1"],
)
def test_first_player_highest_reveal_tie_goes_clockwise_from_setup_start(
    tied: tuple[int, int], low: int, first: int
) -> None:
    config = RuleConfig(first_player="highest_reveal", max_turns_per_round=1)
    state = discard_turn(setup_reveals(game(3, SAFE3, config=config)))
    assert (state.round, state.phase, state.current_player) == (2, Phase.SETUP, 1)
    # Round 2 is shuffled from the seed: choose reveals that tie the two seats `tied`
    # on the highest sum and give seat `low` less. Setup starts at seat 1, so the
    # first tied seat clockwise from it is `first` (not the lowest seat number).
    low_cards = sorted(own(low), key=lambda pos: state.card(pos) or 0)[:2]
    low_sum = sum(state.card(pos) or 0 for pos in low_cards)
    sums_a, sums_b = _pair_sums(state, tied[0]), _pair_sums(state, tied[1])
    top = max(set(sums_a) & set(sums_b))
    assert top > low_sum
    picks = {low: tuple(low_cards), tied[0]: sums_a[top], tied[1]: sums_b[top]}
    state = setup_reveals(state, picks)
    assert state.setup_sums[tied[0]] == state.setup_sums[tied[1]] == top
    assert (state.phase, state.current_player) == (Phase.DRAW, first)


# ------------------------------------------------------------- A9 discard_draw


@pytest.mark.rule("R5.3")
@pytest.mark.parametrize("reading", ["must_swap", "may_discard"])
def test_discard_draw(reading: str) -> None:
    state = setup_reveals(game(2, SAFE2, config=cfg(discard_draw=reading), discard=6))
    assert state.discard_pile == (6,)
    state = play(state, [DrawDiscard()])
    assert (state.phase, state.held, state.discard_pile) == (Phase.HOLD_DISCARD, 6, ())
    swaps = {Swap(p) for p in zone(0, 2)}
    if reading == "must_swap":
        assert set(legal_actions(state)) == swaps
        with pytest.raises(IllegalActionError, match="must be swapped in"):
            apply(state, Discard())
    else:
        assert set(legal_actions(state)) == swaps | {Discard()}
        state = play(state, [Discard()])
        assert (state.phase, state.discard_pile, state.held) == (Phase.FLIP, (6,), None)
        state = play(state, [Reveal(Pos(0, 0, 0))])
        assert state.is_face_up(Pos(0, 0, 0))
        assert state.cells[:24] == tuple(v for grid in (G0, G1) for row in grid for v in row)
        assert (state.phase, state.current_player) == (Phase.DRAW, 1)


# --------------------------------------------------------------- A10 swap_area


@pytest.mark.rule("R6.1", "R5.3")
@pytest.mark.parametrize("source", ["deck", "discard"])
@pytest.mark.parametrize("reading", ["zone", "own"])
def test_swap_area_drawers_swap(reading: str, source: str) -> None:
    config = cfg(swap_area=reading)
    state = setup_reveals(game(3, SAFE3, config=config, discard=6, draw=[7]))
    if source == "deck":
        state = pass_window(play(state, [DrawDeck()]))
        held, phase = 7, Phase.HOLD_DECK
    else:
        state = play(state, [DrawDiscard()])
        held, phase = 6, Phase.HOLD_DISCARD
    assert (state.phase, state.current_player, state.held) == (phase, 0, held)
    assert legal_of(state, Swap) == {Swap(p) for p in area(reading, 0, 3)}
    if reading == "zone":
        state = play(state, [Swap(Pos(1, 0, 3))])  # the left neighbour's column
        assert state.card(Pos(1, 0, 3)) == held
        assert state.is_face_up(Pos(1, 0, 3))
        assert state.discard_top == 5  # G1 (0,3)
    else:
        with pytest.raises(IllegalActionError, match="swap_area='own'"):
            apply(state, Swap(Pos(1, 0, 3)))


def _give_to_seat_1(config: RuleConfig, draw: Sequence[int] = (7,)) -> GameState:
    """SAFE3 table; seat 0 draws, seat 1 knocks, seat 2 passes, seat 0 gives to 1."""
    state = setup_reveals(game(3, SAFE3, config=config, draw=draw))
    state = play(state, [DrawDeck(), Knock(), Pass(), Give(1)])
    assert (state.phase, state.current_player) == (Phase.KNOCKER_SWAP, 1)
    return state


@pytest.mark.rule("R6.1", "R9.2")
@pytest.mark.parametrize("reading", ["zone", "own"])
def test_swap_area_knockers_swap(reading: str) -> None:
    state = _give_to_seat_1(cfg(swap_area=reading))
    assert legal_of(state, Swap) == {Swap(p) for p in area(reading, 1, 3)}
    assert set(legal_actions(state)) == {Swap(p) for p in area(reading, 1, 3)}
    if reading == "zone":
        state = play(state, [Swap(Pos(2, 0, 3))])  # the knocker's left neighbour's column
        assert state.card(Pos(2, 0, 3)) == 7
        assert state.in_hand == ((1, 6),)  # G2 (0,3) went to the knocker's hand
        assert (state.phase, state.current_player) == (Phase.TAKE, 0)
    else:
        with pytest.raises(IllegalActionError, match="swap_area='own'"):
            apply(state, Swap(Pos(2, 0, 3)))


@pytest.mark.rule("R6.1", "R9.3", "R9.4")
@pytest.mark.parametrize("reading", ["zone", "own"])
def test_swap_area_drawers_swap_of_the_taken_card(reading: str) -> None:
    state = _give_to_seat_1(cfg(swap_area=reading))
    state = play(state, [Swap(Pos(1, 0, 0)), Take(Pos(1, 1, 0))])  # hand: 2, taken: 6
    assert (state.phase, state.current_player, state.held) == (Phase.HOLD_TAKEN, 0, 6)
    assert set(legal_actions(state)) == {Swap(p) for p in area(reading, 0, 3)}
    if reading == "zone":
        state = play(state, [Swap(Pos(1, 2, 3))])
        assert state.card(Pos(1, 2, 3)) == 6
        assert state.discard_top == 1  # G1 (2,3)
        assert state.card(Pos(1, 1, 0)) == 2  # the knocker's hand card filled the gap
        assert state.is_face_up(Pos(1, 1, 0))
        assert state.in_hand == ()
        assert (state.phase, state.current_player) == (Phase.DRAW, 1)
    else:
        with pytest.raises(IllegalActionError, match="swap_area='own'"):
            apply(state, Swap(Pos(1, 2, 3)))


@pytest.mark.rule("R9.6", "R10.4")
def test_swap_area_zone_knockers_swap_completes_a_cross_zone_triple() -> None:
    grids = {0: G0, 1: [[7, 7, 4, 5], [6, 2, 8, 9], [10, 11, 0, 1]], 2: G2}
    state = game(3, grids, draw=[7])
    state = setup_reveals(state, {1: (Pos(1, 0, 0), Pos(1, 0, 1))})
    state = play(state, [DrawDeck(), Knock(), Pass(), Give(1)])
    # the knocker puts the 7 into its left neighbour's column: zone row [7, 7, 7, 4, 5];
    # the triple goes when the turn settles, after the whole exchange
    state = play(state, [Swap(Pos(2, 0, 3)), Take(Pos(1, 2, 2)), Swap(Pos(0, 1, 1))])
    assert (state.phase, state.current_player) == (Phase.DRAW, 1)  # the turn has settled
    assert {Pos(2, 0, 3), Pos(1, 0, 0), Pos(1, 0, 1)} <= gaps(state)
    assert sorted(state.out_of_play) == [7, 7, 7]


# ---------------------------------------------------------------- A12 knocking


@pytest.mark.rule("R8.1")
@pytest.mark.parametrize(
    ("reading", "n", "asked"),
    [
        ("always", 2, [1]),
        ("always", 3, [1, 2]),
        ("three_or_more", 2, []),
        ("three_or_more", 3, [1, 2]),
        ("never", 2, []),
        ("never", 3, []),
    ],
)
def test_knocking(reading: str, n: int, asked: list[int]) -> None:
    grids = SAFE3 if n == 3 else SAFE2
    state = setup_reveals(game(n, grids, config=cfg(knocking=reading), draw=[7]))
    state = play(state, [DrawDeck()])
    if not asked:
        assert (state.phase, state.current_player) == (Phase.HOLD_DECK, 0)
        assert set(legal_actions(state)) == {Swap(p) for p in zone(0, n)} | {Discard()}
        for answer in (Knock(), Pass()):
            with pytest.raises(IllegalActionError, match="hold_deck"):
                apply(state, answer)
        return
    seen = []
    while state.phase is Phase.KNOCK:
        assert set(legal_actions(state)) == {Knock(), Pass()}
        seen.append(state.current_player)
        state = play(state, [Knock()])
    assert seen == asked
    assert (state.phase, state.current_player) == (Phase.HOLD_DECK, 0)
    assert legal_of(state, Give) == {Give(k) for k in asked}


@pytest.mark.rule("R8.2")
def test_knocking_window_asks_each_other_player_clockwise_from_the_drawer() -> None:
    state = setup_reveals(game(4, config=RuleConfig(knocking="always")))
    state = discard_turn(state)
    assert (state.phase, state.current_player) == (Phase.DRAW, 1)
    state = play(state, [DrawDeck()])
    seen = []
    while state.phase is Phase.KNOCK:
        seen.append(state.current_player)
        state = play(state, [Pass()])
    assert seen == [2, 3, 0]
    assert (state.phase, state.current_player) == (Phase.HOLD_DECK, 1)
    assert legal_of(state, Give) == set()


# ------------------------------------------------------------- A13 knock_winner


@pytest.mark.rule("R8.3", "R9.1")
@pytest.mark.parametrize("reading", ["drawer_chooses", "first_clockwise"])
def test_knock_winner(reading: str) -> None:
    state = setup_reveals(game(4, config=cfg(knock_winner=reading)))
    state = play(state, [DrawDeck(), Pass(), Knock()])  # seat 1 passes, seat 2 knocks
    if reading == "first_clockwise":
        assert (state.phase, state.current_player) == (Phase.HOLD_DECK, 0)  # 3 never asked
        assert legal_of(state, Give) == {Give(2)}
        with pytest.raises(IllegalActionError, match="did not knock"):
            apply(state, Give(3))
    else:
        assert (state.phase, state.current_player) == (Phase.KNOCK, 3)
        state = play(state, [Knock()])
        assert (state.phase, state.current_player) == (Phase.HOLD_DECK, 0)
        assert legal_of(state, Give) == {Give(2), Give(3)}
        with pytest.raises(IllegalActionError, match="did not knock"):
            apply(state, Give(1))
        state = play(state, [Give(3)])  # not the first knocker
        assert (state.phase, state.current_player) == (Phase.KNOCKER_SWAP, 3)
        assert state.knocker == 3


# --------------------------------------------------------- A15 take_given_card


@pytest.mark.rule("R9.3")
@pytest.mark.parametrize("reading", ["allowed", "forbidden"])
def test_take_given_card(reading: str) -> None:
    state = _give_to_seat_1(cfg(take_given_card=reading))
    state = play(state, [Swap(Pos(1, 0, 0))])  # the given 7 replaces G1 (0,0) = 2
    assert state.in_hand == ((1, 2),)
    targets = {Take(p) for p in zone(1, 3)}
    if reading == "allowed":
        assert set(legal_actions(state)) == targets
        state = play(state, [Take(Pos(1, 0, 0)), Swap(Pos(0, 0, 0))])
        assert state.card(Pos(0, 0, 0)) == 7
        assert state.discard_top == 1  # G0 (0,0)
        # the knocker's grid ends with its old values, the refilled card face up
        assert [state.card(p) for p in own(1)] == [v for row in G1 for v in row]
        assert state.is_face_up(Pos(1, 0, 0))
        assert (state.phase, state.current_player) == (Phase.DRAW, 1)
    else:
        assert set(legal_actions(state)) == targets - {Take(Pos(1, 0, 0))}
        with pytest.raises(IllegalActionError, match="take_given_card='forbidden'"):
            apply(state, Take(Pos(1, 0, 0)))


# ----------------------------------------------------------------- A16 take_area


@pytest.mark.rule("R9.3", "R9.4")
@pytest.mark.parametrize("reading", ["zone", "own"])
def test_take_area(reading: str) -> None:
    state = _give_to_seat_1(cfg(take_area=reading))
    state = play(state, [Swap(Pos(1, 0, 0))])  # hand: 2
    assert set(legal_actions(state)) == {Take(p) for p in area(reading, 1, 3)}
    if reading == "zone":
        # take from the knocker's zone cell in seat 2's column 3 (G2 (0,3) = 6)
        state = play(state, [Take(Pos(2, 0, 3)), Swap(Pos(0, 0, 0))])
        assert state.card(Pos(0, 0, 0)) == 6
        assert state.card(Pos(2, 0, 3)) == 2  # the knocker's hand card fills that gap
        assert state.is_face_up(Pos(2, 0, 3))
        assert state.card(Pos(1, 0, 0)) == 7
    else:
        with pytest.raises(IllegalActionError, match="take_area='own'"):
            apply(state, Take(Pos(2, 0, 3)))


@pytest.mark.rule("R9.3")
@pytest.mark.parametrize("reading", ["zone", "own"])
def test_take_area_zone_reaches_into_the_drawers_own_column(reading: str) -> None:
    # Seat 2 draws and gives to seat 1, whose zone holds seat 2's column 3.
    state = setup_reveals(game(3, SAFE3, config=cfg(take_area=reading)))
    state = discard_turn(discard_turn(state))
    assert state.current_player == 2
    state = play(state, [DrawDeck(), Pass(), Knock(), Give(1), Swap(Pos(1, 0, 0))])
    assert set(legal_actions(state)) == {Take(p) for p in area(reading, 1, 3)}
    if reading == "zone":
        state = play(state, [Take(Pos(2, 0, 3))])  # the drawer's own card (G2 (0,3) = 6)
        assert set(legal_actions(state)) == {Swap(p) for p in zone(2, 3) if p != Pos(2, 0, 3)}
        state = play(state, [Swap(Pos(2, 1, 1))])
        assert state.card(Pos(2, 1, 1)) == 6
        assert state.discard_top == 8  # G2 (1,1)
        assert state.card(Pos(2, 0, 3)) == 2  # the knocker's hand card lands in seat 2's grid
        assert (state.phase, state.current_player) == (Phase.DRAW, 0)
    else:
        with pytest.raises(IllegalActionError, match="take_area='own'"):
            apply(state, Take(Pos(2, 0, 3)))


# ----------------------------------------------------------------- A18 row_match

# Seat 0's zone row 0 reads [Pos(1,0,3), Pos(0,0,0), Pos(0,0,1), Pos(0,0,2), Pos(0,0,3)].
ROW_APART = {
    0: [[7, 5, 8, 5], [1, 2, 3, 4], [6, 9, 10, 11]],
    1: [[1, 2, 3, 5], [6, 7, 8, 9], [10, 11, 0, -1]],
}


@pytest.mark.rule("R10.3")
@pytest.mark.parametrize("reading", ["anywhere", "adjacent"])
def test_row_match_three_equal_cards_apart(reading: str) -> None:
    # zone row [5, 7, 5, 8, 5]: the three 5s are not side by side
    state = game(2, ROW_APART, config=cfg(row_match=reading))
    picks = {0: (Pos(0, 0, 1), Pos(0, 0, 3)), 1: (Pos(1, 0, 3), Pos(1, 2, 0))}
    state = setup_reveals(state, picks)
    fives = {Pos(1, 0, 3), Pos(0, 0, 1), Pos(0, 0, 3)}
    if reading == "anywhere":
        assert gaps(state) == fives
        assert state.out_of_play == (5, 5, 5)
    else:
        assert gaps(state) == set()
        # even with the whole row [5, 7, 5, 8, 5] face up nothing goes
        state = discard_turn(state, Pos(0, 0, 0))
        state = discard_turn(state, Pos(1, 2, 1))
        state = discard_turn(state, Pos(0, 0, 2))
        assert all(state.is_face_up(p) for p in [*fives, Pos(0, 0, 0), Pos(0, 0, 2)])
        assert gaps(state) == set()
        assert state.out_of_play == ()


ROW_FIVE = {
    0: [[5, 5, 5, 5], [1, 2, 3, 4], [6, 7, 8, 9]],
    1: [[1, 2, 3, 5], [6, 7, 8, 10], [10, 11, 0, -1]],
}


@pytest.mark.rule("R10.3", "R10.2")
@pytest.mark.parametrize("reading", ["anywhere", "adjacent"])
def test_row_match_face_down_card_breaks_a_run_then_five_in_a_line_all_go(reading: str) -> None:
    # zone row [5, 5, (5 face down), 5, 5]; seat 1 reveals its Pos(1,0,3) and,
    # through its zone, seat 0's Pos(0,0,3)
    state = game(2, ROW_FIVE, config=cfg(row_match=reading))
    picks = {0: (Pos(0, 0, 0), Pos(0, 0, 2)), 1: (Pos(1, 0, 3), Pos(0, 0, 3))}
    state = setup_reveals(state, picks)
    first_three = {Pos(1, 0, 3), Pos(0, 0, 0), Pos(0, 0, 2)}
    if reading == "anywhere":
        # three face-up 5s went as soon as the third was up; the face-down 5 stayed
        assert gaps(state) == first_three
        assert state.out_of_play == (5, 5, 5)
    else:
        assert gaps(state) == set()  # runs of two, split by the face-down card
    state = discard_turn(state, Pos(0, 0, 1))
    if reading == "anywhere":
        assert gaps(state) == first_three
        assert state.card(Pos(0, 0, 1)) == state.card(Pos(0, 0, 3)) == 5
        assert state.out_of_play == (5, 5, 5)
    else:
        assert gaps(state) == first_three | {Pos(0, 0, 1), Pos(0, 0, 3)}
        assert state.out_of_play == (5, 5, 5, 5, 5)


ROW_GAP = {
    0: [[5, 9, 5, 1], [2, 9, 3, 4], [6, 9, 7, 8]],
    1: [[1, 2, 3, 5], [6, 7, 8, 10], [10, 11, 0, -1]],
}


@pytest.mark.rule("R10.3", "R10.6")
@pytest.mark.parametrize("reading", ["anywhere", "adjacent"])
def test_row_match_gap_breaks_adjacency(reading: str) -> None:
    state = game(2, ROW_GAP, config=cfg(row_match=reading))
    picks = {0: (Pos(0, 0, 1), Pos(0, 1, 1)), 1: (Pos(1, 0, 3), Pos(1, 2, 0))}
    state = setup_reveals(state, picks)
    state = discard_turn(state, Pos(0, 2, 1))  # column of three 9s: goes in both readings
    column = {Pos(0, 0, 1), Pos(0, 1, 1), Pos(0, 2, 1)}
    assert gaps(state) == column
    assert state.out_of_play == (9, 9, 9)
    state = discard_turn(state, Pos(1, 2, 1))
    state = discard_turn(state, Pos(0, 0, 0))
    state = discard_turn(state, Pos(1, 1, 0))
    state = discard_turn(state, Pos(0, 0, 2))
    # zone row [5, 5, gap, 5, (1 face down)]; cards never slide into the gap
    fives = {Pos(1, 0, 3), Pos(0, 0, 0), Pos(0, 0, 2)}
    assert all(state.is_face_up(p) or p in gaps(state) for p in fives)
    if reading == "anywhere":
        assert gaps(state) == column | fives
        assert state.out_of_play == (9, 9, 9, 5, 5, 5)
    else:
        assert gaps(state) == column
        assert state.out_of_play == (9, 9, 9)


ROW_NEIGHBOUR = {
    0: [[5, 5, 1, 2], [3, 4, 6, 7], [8, 9, 10, 0]],
    1: [[1, 3, 4, 5], [6, 7, 8, 9], [10, 11, 0, 1]],
    2: G2,
}


@pytest.mark.rule("R10.1", "R10.3")
@pytest.mark.parametrize("reading", ["anywhere", "adjacent"])
def test_row_match_row_through_left_neighbours_column(reading: str) -> None:
    # seat 0's zone row 0 [Pos(1,0,3), 5, 5, 1, 2]: seat 1 reveals its own (0,3) = 5
    state = game(3, ROW_NEIGHBOUR, config=cfg(row_match=reading))
    picks = {0: (Pos(0, 0, 0), Pos(0, 0, 1)), 1: (Pos(1, 0, 3), Pos(1, 2, 0))}
    state = setup_reveals(state, picks)
    assert gaps(state) == {Pos(1, 0, 3), Pos(0, 0, 0), Pos(0, 0, 1)}
    assert state.out_of_play == (5, 5, 5)


ROW_FOUR = {
    0: [[5, 5, 1, 2], [3, 4, 6, 7], [8, 9, 10, 0]],
    1: [[1, 3, 4, 5], [5, 6, 7, 8], [9, 10, 0, 11]],
}


@pytest.mark.rule("R10.3", "R9.6")
@pytest.mark.parametrize("reading", ["anywhere", "adjacent"])
def test_row_match_four_equal_cards_arriving_at_once_all_go(reading: str) -> None:
    # Seat 0's zone row 0 is [Pos(1,0,3)=5 down, 5, 5, 1 down, 2 down]. In one knock
    # exchange seat 0 takes the 5 at Pos(1,0,3) into Pos(0,0,2), and the knocker's
    # hand card (another 5) fills Pos(1,0,3): four 5s in the line at once.
    state = game(2, ROW_FOUR, config=cfg(row_match=reading), draw=[11])
    picks = {0: (Pos(0, 0, 0), Pos(0, 0, 1)), 1: (Pos(1, 2, 0), Pos(1, 2, 1))}
    state = setup_reveals(state, picks)
    state = play(state, [DrawDeck(), Knock(), Give(1), Swap(Pos(1, 1, 0))])  # hand: 5
    assert state.in_hand == ((1, 5),)
    state = play(state, [Take(Pos(1, 0, 3)), Swap(Pos(0, 0, 2))])
    assert (state.phase, state.current_player) == (Phase.DRAW, 1)
    assert gaps(state) == {Pos(1, 0, 3), Pos(0, 0, 0), Pos(0, 0, 1), Pos(0, 0, 2)}
    assert state.out_of_play == (5, 5, 5, 5)
    assert state.discard_top == 1
    assert state.card(Pos(1, 1, 0)) == 11


# ------------------------------------------------------------- A20 removed_cards

# Seat 1 draws, seat 0 knocks. Seat 0 puts the given 11 at Pos(0,0,2) (its 8 goes to
# hand); seat 1 takes the face-down 4 at Pos(0,2,0) and swaps it over its 6 at
# Pos(1,2,0), completing seat 1's column [4, 4, 4]; the hand 8 fills Pos(0,2,0),
# completing seat 0's column [8, 8, 8]. Both triples go in one settle.
REMOVE_GRIDS = {
    0: [[8, 1, 8, 2], [8, 3, 5, 6], [4, 7, 9, 10]],
    1: [[4, 1, 2, 3], [4, 5, 6, 7], [6, 9, 10, 11]],
}


@pytest.mark.rule("R10.5", "R10.4")
@pytest.mark.parametrize("reading", ["out_of_play", "discard"])
def test_removed_cards(reading: str) -> None:
    config = cfg(removed_cards=reading)
    state = game(2, REMOVE_GRIDS, config=config, discard=0, draw=[10, 11])
    picks = {0: (Pos(0, 0, 0), Pos(0, 1, 0)), 1: (Pos(1, 0, 0), Pos(1, 1, 0))}
    state = setup_reveals(state, picks)
    state = discard_turn(state, Pos(0, 1, 1))
    assert state.discard_pile == (0, 10)
    state = play(state, [DrawDeck(), Knock(), Give(0), Swap(Pos(0, 0, 2))])
    state = play(state, [Take(Pos(0, 2, 0)), Swap(Pos(1, 2, 0))])
    assert (state.phase, state.current_player) == (Phase.DRAW, 0)
    assert gaps(state) == {Pos(p, r, 0) for p in (0, 1) for r in range(3)}
    if reading == "out_of_play":
        assert state.discard_pile == (0, 10, 6)
        assert sorted(state.out_of_play) == [4, 4, 4, 8, 8, 8]
    else:
        # the replaced 6 first, then the removed cards in ascending Pos order: seat
        # 0's 8s before seat 1's 4s, so the highest Pos (Pos(1,2,0)) is on top
        assert state.discard_pile == (0, 10, 6, 8, 8, 8, 4, 4, 4)
        assert state.out_of_play == ()
    assert cards_everywhere(state) == Counter(DEFAULT_COUNTS)


@pytest.mark.rule("R10.5", "R4.3")
@pytest.mark.parametrize("reading", ["out_of_play", "discard"])
def test_removed_cards_in_setup(reading: str) -> None:
    state = game(3, ROW_NEIGHBOUR, config=cfg(removed_cards=reading), discard=0)
    picks = {0: (Pos(0, 0, 0), Pos(0, 0, 1)), 1: (Pos(1, 0, 3), Pos(1, 2, 0))}
    state = setup_reveals(state, picks)
    if reading == "out_of_play":
        assert (state.discard_pile, state.out_of_play) == ((0,), (5, 5, 5))
    else:
        assert (state.discard_pile, state.out_of_play) == ((0, 5, 5, 5), ())
        state = play(state, [DrawDiscard()])  # removed cards are playable from the pile
        assert state.held == 5


# ------------------------------------------------- round-end scenario (2 seats)

# Setup: seat 0 reveals (0,0), (0,1); seat 1 reveals seat 0's (0,3) and (1,3) through
# its zone. Then seat 0 reveals its other own cells, seat 1 first seat 0's (2,3), then
# its own columns 0..2. Seat 0's own grid is complete after turn 13 (its 7th turn).
ENDER_PICKS = {0: (Pos(0, 0, 0), Pos(0, 0, 1)), 1: (Pos(0, 0, 3), Pos(0, 1, 3))}
SEAT0_REVEALS = [Pos(0, r, c) for r in range(3) for c in range(3)][2:]
SEAT1_REVEALS = [Pos(0, 2, 3)] + [Pos(1, r, c) for r in range(3) for c in range(3)]
FIRST_13 = [p for pair in zip(SEAT0_REVEALS, SEAT1_REVEALS, strict=False) for p in pair][:13]


def play_reveal_turns(state: GameState, reveals: Sequence[Pos]) -> GameState:
    for pos in reveals:
        state = discard_turn(state, pos)
    return state


def round_with_seat0_ending(config: RuleConfig, grids: Mapping[int, Grid]) -> GameState:
    """Seat 0 completes its own grid on turn 13, seat 1 has one more turn: round 2."""
    state = setup_reveals(game(2, grids, config=config), ENDER_PICKS)
    state = play_reveal_turns(state, FIRST_13)
    assert (state.round, state.ender, state.current_player) == (1, 0, 1)
    state = discard_turn(state, SEAT1_REVEALS[6])
    assert state.round == 2
    return state


# Seat 0's column 1 is three 7s: they are removed on turn 11, leaving gaps.
# Zone sums by hand: own0 = 13 + 22 + 34 = 69, seat 1's column 3 = 8 + 3 - 1 = 10;
# own1 = 38 + 18 + 2 = 58, seat 0's column 3 = 3 + 6 + 10 = 19.
END_GRIDS = {
    0: [[1, 7, 2, 3], [4, 7, 5, 6], [8, 7, 9, 10]],
    1: [[11, 10, 9, 8], [6, 5, 4, 3], [2, 1, 0, -1]],
}


@pytest.mark.rule("R13.1", "R10.6")
@pytest.mark.parametrize("reading", ["own_grid", "zone"])
def test_round_end(reading: str) -> None:
    state = setup_reveals(game(2, END_GRIDS, config=cfg(round_end=reading)), ENDER_PICKS)
    state = play_reveal_turns(state, FIRST_13[:12])
    assert state.ender is None
    state = play_reveal_turns(state, FIRST_13[12:])
    # seat 0: 9 own cells face up and 3 gaps (gaps count as revealed); seat 1's
    # column 3, part of seat 0's zone, is still face down
    assert gaps(state) == {Pos(0, 0, 1), Pos(0, 1, 1), Pos(0, 2, 1)}
    assert all(state.is_face_up(p) or p in gaps(state) for p in own(0))
    assert not any(state.is_face_up(Pos(1, r, 3)) for r in range(3))
    assert (state.round, state.current_player) == (1, 1)
    if reading == "own_grid":
        assert state.ender == 0
        state = discard_turn(state, Pos(1, 1, 2))  # seat 1's one last turn
    else:
        assert state.ender is None
        extra = [Pos(1, 1, 2), Pos(1, 0, 3), Pos(1, 2, 0), Pos(1, 1, 3), Pos(1, 2, 1)]
        state = play_reveal_turns(state, extra)
        assert (state.round, state.ender) == (1, None)
        state = discard_turn(state, Pos(1, 2, 3))  # seat 0's zone is complete
        assert (state.round, state.ender, state.current_player) == (1, 0, 1)
        state = discard_turn(state, Pos(1, 2, 2))
    assert state.round == 2
    assert state.last_round is not None
    assert state.last_round.ender == 0
    assert state.last_round.zone_sums == (69 - 21 + 10, 58 + 19)
    assert state.last_round.doubled is False
    assert state.round_scores == ((58, 77),)


# ------------------------------------------------- A27 ender_tie, A28 double_nonpositive

# Both seats hold the same grid: zone sums 66 + (4 + 8 + 0) = 78 each, a tie.
TIE_GRIDS = {0: G0, 1: G0}


@pytest.mark.rule("R15.2")
@pytest.mark.parametrize(
    ("config", "scores", "doubled"),
    [
        (RuleConfig(ender_tie="not_doubled"), (78, 78), False),
        (RuleConfig(ender_tie="doubled"), (156, 78), True),
        (RuleConfig(ender_tie="doubled", double_nonpositive="no"), (156, 78), True),
    ],
    ids=["not_doubled", "doubled", "doubled-positive-with-double_nonpositive-no"],
)
def test_ender_tie(config: RuleConfig, scores: tuple[int, int], doubled: bool) -> None:
    state = round_with_seat0_ending(config, TIE_GRIDS)
    assert state.last_round is not None
    assert state.last_round.zone_sums == (78, 78)
    assert (state.last_round.ender, state.last_round.doubled) == (0, doubled)
    assert state.last_round.scores == scores
    assert state.round_scores == (scores,)
    assert state.totals == scores


# A custom deck of -1, 0, 1 (and filler 6s) makes both zone sums negative; no line
# holds three equal cards. Rows of seat 0's zone: [-1,0,1,0,-1] [0,-1,-1,1,0]
# [1,1,0,-1,-1] = -2; seat 1's: [-1,0,0,1,-1] [0,-1,1,-1,0] [-1,0,-1,0,1] = -3.
NEG_DECK = {-1: 10, 0: 10, 1: 10, 6: 20}
NEG_GRIDS = {
    0: [[0, 1, 0, -1], [-1, -1, 1, 0], [1, 0, -1, -1]],
    1: [[0, 0, 1, -1], [-1, 1, -1, 0], [0, -1, 0, 1]],
}


@pytest.mark.rule("R15.2")
@pytest.mark.parametrize(("reading", "ender_score"), [("yes", -4), ("no", -2)])
def test_double_nonpositive(reading: str, ender_score: int) -> None:
    config = cfg(deck=NEG_DECK, double_nonpositive=reading)
    state = round_with_seat0_ending(config, NEG_GRIDS)
    assert state.out_of_play == ()
    assert state.last_round is not None
    assert state.last_round.zone_sums == (-2, -3)  # the ender is not lowest
    assert state.last_round.ender == 0
    assert state.last_round.doubled is (reading == "yes")
    assert state.last_round.scores == (ender_score, -3)
    assert state.totals == (ender_score, -3)


# ----------------------------------------------------- A30 max_turns_per_round


@pytest.mark.rule("R14.1")
def test_max_turns_default_is_500() -> None:
    assert RuleConfig().max_turns_per_round == 500


@pytest.mark.rule("R14.1", "R15.2")
@pytest.mark.parametrize("cap", [1, 3])
def test_max_turns_ends_the_round_with_no_ender(cap: int) -> None:
    config = RuleConfig(max_turns_per_round=cap)
    state = setup_reveals(game(2, END_GRIDS, config=config), ENDER_PICKS)
    state = play_reveal_turns(state, FIRST_13[: cap - 1])
    assert (state.round, state.phase, state.last_round) == (1, Phase.DRAW, None)
    state = play(state, [DrawDeck()])  # the cap-th turn starts...
    assert state.round == 1
    state = play(state, [Pass(), Discard(), Reveal(FIRST_13[cap - 1])])  # ...and ends
    assert (state.round, state.phase) == (2, Phase.SETUP)
    assert state.last_round is not None
    assert (state.last_round.round, state.last_round.ender) == (1, None)
    assert state.last_round.doubled is False
    # no triple went: seat 0 69 + 10, seat 1 58 + 19; seat 0 (higher) is not doubled
    assert state.last_round.zone_sums == (79, 77)
    assert state.last_round.scores == (79, 77)
    assert state.round_scores == ((79, 77),)


@pytest.mark.rule("R14.1", "R11.2")
@pytest.mark.parametrize("cap", [13, 500])
def test_max_turns_reached_on_the_turn_that_triggers_the_end(cap: int) -> None:
    # with ender_tie="doubled" the tied ender would be doubled if the round ended by
    # itself; a round cut by the cap has no ender and doubles nobody
    config = RuleConfig(ender_tie="doubled", max_turns_per_round=cap)
    state = setup_reveals(game(2, TIE_GRIDS, config=config), ENDER_PICKS)
    state = play_reveal_turns(state, FIRST_13)
    if cap == 13:
        assert state.round == 2  # seat 1 gets no last turn
        assert state.last_round is not None
        assert (state.last_round.ender, state.last_round.doubled) == (None, False)
        assert state.round_scores == ((78, 78),)
    else:
        assert (state.round, state.ender, state.current_player) == (1, 0, 1)
        state = discard_turn(state, SEAT1_REVEALS[6])
        assert state.last_round is not None
        assert (state.last_round.ender, state.last_round.doubled) == (0, True)
        assert state.round_scores == ((156, 78),)


# ------------------------------------------------------------------- presets


def _differences(config: RuleConfig) -> dict[str, object]:
    seeds = RuleConfig()
    return {
        f.name: getattr(config, f.name)
        for f in attrs.fields(RuleConfig)
        if getattr(config, f.name) != getattr(seeds, f.name)
    }


@pytest.mark.rule("R19.3")
@pytest.mark.parametrize(
    ("name", "differences"),
    [
        ("seeds", {}),
        ("seeds@1", {}),
        ("de@1", {}),
        ("pl@1", {}),
        ("fr", {"discard_draw": "may_discard", "removed_cards": "discard"}),
        ("fr@1", {"discard_draw": "may_discard", "removed_cards": "discard"}),
        ("published", {"double_nonpositive": "no", "knocking": "three_or_more"}),
        ("published@1", {"double_nonpositive": "no", "knocking": "three_or_more"}),
    ],
)
def test_preset_contents(name: str, differences: dict[str, object]) -> None:
    config = preset(name)
    assert _differences(config) == differences
    assert config == RuleConfig(**differences)  # type: ignore[arg-type]


# ------------------------------------------------------- A35 scoring_triples

# Seat 0's zone row 0 reads [P(1,0,3)=7, 7, 3, 7, 1]: three 7s, but not side by side.
# No other line of the table holds three equal cards.
ST_GRIDS: dict[int, Grid] = {
    0: [[7, 3, 7, 1], [2, 4, 6, 8], [9, 10, 11, 0]],
    1: [[2, 3, 4, 7], [5, 6, 8, 9], [10, 11, 0, 1]],
}
ST_PICKS = {0: (Pos(0, 1, 0), Pos(0, 1, 1)), 1: (Pos(1, 1, 0), Pos(1, 1, 1))}


@pytest.mark.rule("R15.4", "R15.1", "R10.3")
@pytest.mark.parametrize(
    ("reading", "row_match", "removed", "sums"),
    [
        # kept: counted as they lie. Seat 0: own 68 + seat 1's column 3 (7+9+1) = 85;
        # seat 1: own 66 + seat 0's column 3 (1+8+0) = 75.
        ("kept", "anywhere", (), (85, 75)),
        ("kept", "adjacent", (), (85, 75)),
        # removed: the three 7s of seat 0's zone row 0 go (flat cells 0, 2 and 15);
        # seat 0 loses 21, seat 1 the 7 of its own column 3.
        ("removed", "anywhere", (0, 2, 15), (64, 68)),
        # with "adjacent" the 3 between them breaks the run: nothing goes.
        ("removed", "adjacent", (), (85, 75)),
    ],
)
def test_scoring_triples_at_the_turn_up(
    reading: str, row_match: str, removed: tuple[int, ...], sums: tuple[int, int]
) -> None:
    config = cfg(scoring_triples=reading, row_match=row_match, max_turns_per_round=1)
    state = setup_reveals(game(2, ST_GRIDS, config=config, draw=[9]), ST_PICKS)
    state = discard_turn(state, Pos(0, 2, 0))  # the cap ends round 1: no ender
    result = state.last_round
    assert result is not None and result.ender is None
    assert result.removed == removed
    assert result.zone_sums == sums == result.scores
    # The recorded table is the turned-up one, before the scoring triple left.
    assert result.cells[0] == result.cells[2] == result.cells[15] == 7


@pytest.mark.rule("R15.4", "R10.5")
@pytest.mark.parametrize("removed_cards", ["out_of_play", "discard"])
def test_scoring_triples_go_where_removed_cards_says(removed_cards: str) -> None:
    # Later rounds are shuffled from the seed: find a game whose last round has a
    # scoring triple, and check where its cards went.
    config = cfg(scoring_triples="removed", removed_cards=removed_cards, max_turns_per_round=2)
    for seed in range(200):
        rng = random.Random(seed)
        state = new_game(2, config=config, seed=seed)
        before = state
        while not state.is_terminal:
            before = state
            state = apply(state, rng.choice(legal_actions(state)))
        result = state.last_round
        assert result is not None
        if not result.removed:
            continue
        values = tuple(result.cells[i] for i in result.removed)
        assert all(state.cells[i] is None for i in result.removed)
        for i, value in enumerate(result.cells):
            if i not in result.removed:
                assert state.cells[i] == value
        if removed_cards == "out_of_play":
            assert state.out_of_play[len(before.out_of_play) :] == values
        else:
            assert state.discard_pile[-len(values) :] == values
            assert state.out_of_play == ()
        assert cards_everywhere(state) == Counter(config.deck_cards())
        return
    pytest.fail("no seeded game ended with a scoring triple")


# -------------------------------------------------------- A36 setup_reveals


@pytest.mark.rule("R4.5", "R4.2")
def test_setup_reveals_in_turn_shows_each_card_at_once() -> None:
    state = game(2, SAFE2, config=cfg(setup_reveals="in_turn"))
    state = play(state, [Reveal(Pos(0, 0, 0))])
    assert state.is_face_up(Pos(0, 0, 0))
    assert observe(state, 1).card(Pos(0, 0, 0)) == 1
    assert state.setup_sums == (1, 0)
    # a face-up card cannot be revealed again, by anyone
    state = play(state, [Reveal(Pos(0, 0, 3))])
    with pytest.raises(IllegalActionError):
        apply(state, Reveal(Pos(0, 0, 3)))


@pytest.mark.rule("R4.5")
def test_setup_reveals_simultaneous_named_cells_stay_face_down_and_unseen() -> None:
    state = game(2, SAFE2, config=cfg(setup_reveals="simultaneous"))
    state = play(state, [Reveal(Pos(0, 0, 0))])
    assert (state.phase, state.current_player, state.setup_reveals) == (Phase.SETUP, 0, 1)
    assert not state.is_face_up(Pos(0, 0, 0))
    assert state.setup_sums == (0, 0)
    for seat in (0, 1):
        view = observe(state, seat)
        assert view.card(Pos(0, 0, 0)) is None and view.is_hidden(Pos(0, 0, 0))
    assert observe(state, 0).own_setup_named == (0,)
    assert observe(state, 1).own_setup_named == ()
    # the namer cannot name the same cell twice
    assert Reveal(Pos(0, 0, 0)) not in legal_actions(state)
    with pytest.raises(IllegalActionError):
        apply(state, Reveal(Pos(0, 0, 0)))


@pytest.mark.rule("R4.5", "R4.4")
def test_setup_reveals_simultaneous_a_cell_named_twice_counts_for_both() -> None:
    config = cfg(setup_reveals="simultaneous", first_player="highest_reveal")
    state = game(2, SAFE2, config=config)
    # Seat 0 names its (0,3)=4 and (2,0)=9; seat 1, not knowing, names the same (0,3)
    # (it lies in seat 1's zone too) and its own (2,0)=10.
    state = play(state, [Reveal(Pos(0, 0, 3)), Reveal(Pos(0, 2, 0)), Reveal(Pos(0, 0, 3))])
    assert not any(state.is_face_up(p) for p in own(0) + own(1))
    state = play(state, [Reveal(Pos(1, 2, 0))])
    up = {p for p in own(0) + own(1) if state.is_face_up(p)}
    assert up == {Pos(0, 0, 3), Pos(0, 2, 0), Pos(1, 2, 0)}
    # 4 + 9 = 13 for seat 0, 4 + 10 = 14 for seat 1: seat 1 takes the first turn.
    assert state.setup_sums == (13, 14)
    assert (state.phase, state.current_player, state.setup_named) == (Phase.DRAW, 1, ())


# Seat 0's zone row 0 reads [P(1,0,3)=7, 7, 7, ., .] once those three are up.
SR_GRIDS: dict[int, Grid] = {
    0: [[7, 7, 3, 4], [5, 6, 8, 9], [10, 11, 0, 1]],
    1: [[2, 3, 4, 7], [5, 6, 8, 9], [10, 11, 0, 1]],
}


@pytest.mark.rule("R4.5", "R4.3")
@pytest.mark.parametrize("reading", ["in_turn", "simultaneous"])
def test_setup_reveals_settle_after_each_or_once(reading: str) -> None:
    state = game(2, SR_GRIDS, config=cfg(setup_reveals=reading))
    picks = [Reveal(Pos(0, 0, 0)), Reveal(Pos(0, 0, 1)), Reveal(Pos(1, 0, 3))]
    state = play(state, picks)
    triple = {Pos(0, 0, 0), Pos(0, 0, 1), Pos(1, 0, 3)}
    if reading == "in_turn":
        # the third 7 completes seat 0's zone row at once
        assert gaps(state) == triple and state.out_of_play == (7, 7, 7)
    else:
        assert gaps(state) == set() and state.out_of_play == ()
    state = play(state, [Reveal(Pos(1, 1, 0))])
    assert gaps(state) == triple and state.out_of_play == (7, 7, 7)
    assert state.is_face_up(Pos(1, 1, 0))
    assert state.setup_sums == (14, 12)
    assert (state.phase, state.current_player) == (Phase.DRAW, 0)
