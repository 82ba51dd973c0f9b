"""Scenario tests for rule clauses of docs/rules.md that the other files test thinly.

Like ``test_rules.py``, every scenario is dealt from a stacked deck and every expected
value is worked out by hand. Late-round tables are made with ``attrs.evolve`` on a real
state, only ever turning face-down cards face up (the cards stay where they are).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from allegra_rules import (
    OPTION_CHOICES,
    PRESETS,
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
    preset,
    zone_positions,
)
from allegra_rules.config import DEFAULT_DECK
from allegra_rules.geometry import geometry
from allegra_rules.presets import preset_id, preset_ids
from allegra_rules.scoring import ender_doubled, round_scores
from allegra_rules.shuffle import DEFAULT_SEED, SplitMix64, seed_from_deck, shuffled, stream
from allegra_rules.triples import find_triples, new_triples
from helpers import Grid, forged, game, own, pass_window, play, setup_reveals

G0: Grid = ((1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 0))  # sum 66, column 3: 4 + 8 + 0
G1: Grid = ((2, 3, 4, 5), (6, 7, 8, 9), (10, 11, 0, -1))  # sum 64, column 3: 5 + 9 - 1
G2: Grid = ((3, 4, 5, 6), (7, 8, 9, 10), (11, 0, -1, 1))  # sum 63, column 3: 6 + 10 + 1


def face_down_only(state: GameState, positions: Iterable[Pos]) -> GameState:
    """Turn every card face up except ``positions`` (as if revealed earlier)."""
    mask = 0
    for pos in positions:
        mask |= 1 << pos.index
    assert mask & ~state.face_down == 0, "can only turn cards face up"
    return forged(state, face_down=mask)


def flip_turn(state: GameState, pos: Pos) -> GameState:
    """A whole turn: draw from the deck, nobody knocks, discard it, reveal ``pos``."""
    return play(pass_window(play(state, [DrawDeck()])), [Discard(), Reveal(pos)])


# ------------------------------------------------------------------- R1.3, R1.4


@pytest.mark.rule("R1.3")
def test_cells_read_by_pos_gaps_and_foreign_seats() -> None:
    sevens: Grid = ((1, 2, 3, 7), (5, 6, 8, 7), (9, 10, 11, 7))
    state = game(3, {0: G0, 1: sevens, 2: G2})
    assert state.card(Pos(1, 1, 2)) == 8 and not state.is_face_up(Pos(1, 1, 2))
    # seat 0's zone holds seat 1's column 3: three 7s revealed in setup are removed
    state = play(state, [Reveal(Pos(1, 0, 3)), Reveal(Pos(1, 1, 3))])
    state = play(state, [Reveal(Pos(1, 2, 3))])
    for r in range(3):
        gap = Pos(1, r, 3)
        assert state.card(gap) is None and state.is_gap(gap)
        assert not state.is_face_up(gap)
    assert state.card(Pos(0, 0, 0)) == 1 and not state.is_gap(Pos(0, 0, 0))
    for read in (state.card, state.is_face_up, state.is_gap):
        with pytest.raises(ValueError, match="names seat 3"):
            read(Pos(3, 0, 0))
    with pytest.raises(ValueError, match=r"seat 0\.\.2"):
        state.zone(3)


@pytest.mark.rule("R1.4", "R10.1", "R1.5")
@pytest.mark.parametrize("n", [2, 3, 6])
def test_zone_and_line_tables(n: int) -> None:
    geo = geometry(n)
    assert geo.num_cells == 12 * n and len(geo.positions) == 12 * n
    assert [geo.positions[i].index for i in range(12 * n)] == list(range(12 * n))
    assert [geo.left(p) for p in range(n)] == [(p + 1) % n for p in range(n)]
    assert [geo.right(p) for p in range(n)] == [(p - 1) % n for p in range(n)]
    for p in range(n):
        lp = (p + 1) % n
        rows = [[Pos(lp, r, 3)] + [Pos(p, r, c) for c in range(4)] for r in range(3)]
        assert list(zone_positions(p, n)) == [pos for row in rows for pos in row]
        assert geo.zone_sorted[p] == tuple(sorted(geo.zone[p]))
        assert geo.own[p] == tuple(range(12 * p, 12 * p + 12))
        assert geo.zone_masks[p] == sum(1 << i for i in geo.zone[p])
        assert geo.own_masks[p] == sum(1 << pos.index for pos in own(p))
        assert geo.zone_set[p] == frozenset(geo.zone[p])
        assert geo.own_set[p] == frozenset(geo.own[p])
    # Lines: 3 zone rows and 4 columns per seat; nothing else.
    zone_rows = {tuple(geo.positions[i] for i in line) for line in geo.zone_rows}
    assert zone_rows == {
        (Pos((p + 1) % n, r, 3), *(Pos(p, r, c) for c in range(4)))
        for p in range(n)
        for r in range(3)
    }
    columns = {tuple(geo.positions[i] for i in line) for line in geo.columns}
    assert columns == {tuple(Pos(p, r, c) for r in range(3)) for p in range(n) for c in range(4)}
    assert len(geo.lines) == 7 * n and set(geo.lines) == set(geo.zone_rows) | set(geo.columns)
    for i, pos in enumerate(geo.positions):
        expected_zones = (pos.player, (pos.player - 1) % n) if pos.col == 3 else (pos.player,)
        assert geo.zones_of[i] == tuple(sorted(set(expected_zones)))
        # a column-3 cell: two zone rows and a column; any other cell: one row, one column
        assert len(geo.lines_through[i]) == (3 if pos.col == 3 else 2)
        assert all(i in line for line in geo.lines_through[i])
        assert {line for line in geo.lines if i in line} == set(geo.lines_through[i])
    with pytest.raises(ValueError, match="names seat"):
        geo.index(Pos(n, 0, 0))
    assert geo.index(Pos(n - 1, 2, 3)) == 12 * n - 1
    assert repr(geo) == f"geometry({n})"
    with pytest.raises(ValueError, match=r"int 2\.\.64; got 1"):
        geometry(1)


# ------------------------------------------------------------------------- R5.1


@pytest.mark.rule("R5.1")
def test_a_turn_counts_from_its_draw() -> None:
    config = RuleConfig(max_turns_per_round=2)
    state = game(3, {0: G0, 1: G1, 2: G2}, config=config, discard=6, draw=[8])
    assert state.turns_played == 0
    state = setup_reveals(state)
    assert (state.turns_played, state.phase, state.drawer) == (0, Phase.DRAW, 0)
    state = play(state, [DrawDeck()])
    assert (state.turns_played, state.drawer, state.current_player) == (1, 0, 1)
    state = play(state, [Knock(), Pass()])
    assert state.turns_played == 1
    state = play(state, [Discard(), Reveal(Pos(0, 0, 0))])
    assert (state.turns_played, state.drawer, state.current_player) == (1, 1, 1)
    state = play(state, [DrawDiscard()])
    assert state.turns_played == 2
    state = play(state, [Swap(Pos(1, 0, 0))])  # the second turn ends: the cap ends the round
    assert (state.round, state.turns_played, state.phase) == (2, 0, Phase.SETUP)


# ----------------------------------------------------------------- R11.2, R15.1


@pytest.mark.rule("R11.2", "R15.1", "R13.3")
def test_scoring_sees_the_table_after_the_last_turns_triple() -> None:
    sevens: Grid = ((7, 3, 4, 5), (7, 8, 6, 9), (10, 11, 0, -1))
    state = game(2, {0: G0, 1: sevens}, discard=6, draw=[2, 7])
    picks = {0: (Pos(0, 0, 0), Pos(0, 0, 1)), 1: (Pos(1, 0, 0), Pos(1, 1, 0))}
    state = setup_reveals(state, picks)
    state = face_down_only(state, [Pos(0, 2, 2)] + [p for p in own(1) if p.col > 0])
    state = flip_turn(state, Pos(0, 2, 2))  # seat 0's last card: it ends the round
    assert (state.ender, state.final_turns, state.current_player) == (0, (1,), 1)
    # Seat 1's final turn swaps the drawn 7 under its two face-up 7s: a column triple.
    state = play(pass_window(play(state, [DrawDeck()])), [Swap(Pos(1, 2, 0))])
    result = state.last_round
    assert result is not None and state.round == 2
    assert [result.cells[Pos(1, r, 0).index] for r in range(3)] == [None, None, None]
    # zone(0) = 66 + seat 1's column 3 (5 + 9 - 1); zone(1) = 45 without the 7s + 12.
    assert result.zone_sums == (79, 57)
    assert (result.ender, result.doubled, result.scores) == (0, True, (158, 57))


# ------------------------------------------------------------------------ R13


@pytest.mark.rule("R13.2", "R13.3", "R1.5")
def test_two_players_a_drawer_who_completes_the_other_grid_plays_again_at_once() -> None:
    state = setup_reveals(game(2, {0: G0, 1: G1}, discard=6, draw=[8, 3]))
    state = face_down_only(state, [Pos(0, 0, 0), Pos(0, 1, 1), Pos(1, 0, 3)])
    # Seat 0 swaps the drawn 8 onto seat 1's last face-down card, in seat 0's zone.
    state = play(pass_window(play(state, [DrawDeck()])), [Swap(Pos(1, 0, 3))])
    assert (state.ender, state.final_turns) == (1, (0,))
    assert (state.phase, state.current_player, state.round) == (Phase.DRAW, 0, 1)
    state = flip_turn(state, Pos(0, 0, 0))
    result = state.last_round
    assert result is not None and result.ender == 1 and state.round == 2
    # zone(0) = 66 + (8 + 9 - 1); zone(1) = 64 - 5 + 8 + 12: the ender is lowest.
    assert result.zone_sums == (82, 79)
    assert (result.doubled, result.scores) == (False, (82, 79))


# ------------------------------------------------------------------------ R14.1


@pytest.mark.rule("R14.1", "R13.3", "R15.2")
@pytest.mark.parametrize(("cap", "ender"), [(2, None), (3, 0)])
def test_turn_cap_during_the_final_turns_ends_the_round_without_ender(
    cap: int, ender: int | None
) -> None:
    config = RuleConfig(max_turns_per_round=cap)
    state = setup_reveals(game(3, {0: G0, 1: G1, 2: G2}, config=config, discard=6))
    state = face_down_only(state, [Pos(0, 0, 0), Pos(1, 0, 0), Pos(1, 0, 1), Pos(2, 0, 0)])
    state = flip_turn(state, Pos(0, 0, 0))  # turn 1: seat 0 is done
    assert (state.ender, state.final_turns, state.turns_played) == (0, (1, 2), 1)
    state = flip_turn(state, Pos(1, 0, 0))  # turn 2: seat 1's final turn
    if cap == 2:
        # The cap cuts the round before seat 2's final turn: no ender, nobody doubled.
        assert state.round == 2
    else:
        assert (state.round, state.current_player, state.final_turns) == (1, 2, (2,))
        state = flip_turn(state, Pos(2, 0, 0))  # turn 3 is the last final turn
        assert state.round == 2
    result = state.last_round
    assert result is not None
    # zone(0) = 66 + 13, zone(1) = 64 + 17, zone(2) = 63 + 12: seat 0 is not lowest.
    assert result.zone_sums == (79, 81, 75)
    assert result.ender == ender
    assert result.doubled is (ender is not None)
    assert result.scores == ((158, 81, 75) if ender is not None else (79, 81, 75))


# ------------------------------------------------------------------------ R17.1


@pytest.mark.rule("R17.1", "R8.3")
def test_legal_actions_come_in_a_fixed_order() -> None:
    g3: Grid = ((4, 5, 6, 7), (8, 9, 10, 11), (0, -1, 1, 2))
    state = game(4, {0: G0, 1: G1, 2: G2, 3: g3}, discard=6, draw=[8, 3])
    zone0 = own(0) + [Pos(1, r, 3) for r in range(3)]
    assert legal_actions(state) == tuple(Reveal(p) for p in sorted(zone0))
    state = setup_reveals(state)
    assert legal_actions(state) == (DrawDeck(), DrawDiscard())
    state = flip_turn(state, Pos(0, 0, 0))
    # Drawer 1; seats 2, 3 and 0 knock, in that order.
    state = play(state, [DrawDeck(), Knock(), Knock(), Knock()])
    zone1 = sorted(own(1) + [Pos(2, r, 3) for r in range(3)])
    assert legal_actions(state) == (
        *(Swap(p) for p in zone1),
        Discard(),
        Give(2),
        Give(3),
        Give(0),
    )
    state = play(state, [Give(0)])  # seat 0's zone holds seat 1's column 3
    assert legal_actions(state) == tuple(Swap(p) for p in sorted(zone0))
    state = play(state, [Swap(Pos(1, 2, 3))])
    assert legal_actions(state) == tuple(Take(p) for p in sorted(zone0))
    state = play(state, [Take(Pos(0, 1, 1))])
    assert legal_actions(state) == tuple(Swap(p) for p in zone1)
    state = play(state, [Swap(Pos(1, 0, 0))])
    assert (state.phase, state.current_player) == (Phase.DRAW, 2)


# ------------------------------------------------------------------------ R18


@pytest.mark.rule("R18.1")
def test_the_shuffle_is_splitmix64_and_fisher_yates_with_keyed_streams() -> None:
    # Published SplitMix64 reference outputs (seed 0 and seed 1234567).
    zero = SplitMix64(0)
    assert [zero.next64() for _ in range(3)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]
    other = SplitMix64(1234567)
    assert [other.next64() for _ in range(3)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
    ]
    assert SplitMix64(-1).next64() == SplitMix64((1 << 64) - 1).next64()
    # Pinned: the saved-game format depends on these exact values.
    assert stream(7, "deal", 1).next64() == 5065274971313921717
    assert stream(7, "refill", 1, 0).next64() == 5184621319169506599
    assert shuffled(range(10), stream(7, "deal", 1)) == (0, 9, 3, 6, 2, 4, 1, 8, 5, 7)
    assert seed_from_deck([1, 2, 3]) == 9974032063344415273
    assert DEFAULT_SEED == 0
    state = new_game(2, seed=0)
    assert state.cells[:12] == (5, 3, 9, 4, 11, -1, 11, 1, 3, 4, 6, 8)
    assert state.discard_pile == (6,) and state.draw_pile[:5] == (2, 11, 6, 4, 0)
    assert new_game(2) == state
    # below(): uniform in range, never the bound
    rng = SplitMix64(3)
    draws = [rng.below(3) for _ in range(600)]
    assert set(draws) == {0, 1, 2} and min(Counter(draws).values()) > 150
    assert all(SplitMix64(s).below(1) == 0 for s in range(5))
    assert sorted(shuffled(range(50), stream(1, "x"))) == list(range(50))


@pytest.mark.rule("R18.2", "R17.2")
@pytest.mark.parametrize(
    ("name", "n", "seed"), [("seeds", 3, 1), ("fr", 2, 2), ("published", 5, 3)]
)
def test_replaying_the_actions_from_the_same_arguments_gives_equal_states(
    name: str, n: int, seed: int
) -> None:
    config = preset(name)
    rng = random.Random(seed)
    states = [new_game(n, config=config, seed=seed)]
    actions = []
    while not states[-1].is_terminal:
        action = rng.choice(legal_actions(states[-1]))
        actions.append(action)
        states.append(apply(states[-1], action))
    replay = new_game(n, config=config, seed=seed)
    assert replay == states[0]
    for action, expected in zip(actions, states[1:], strict=True):
        replay = apply(replay, action)
        assert replay == expected
        assert apply(states[0], actions[0]) == states[1]
    assert replay.is_terminal and replay.winners == states[-1].winners
    # At the end every card on the table is shown.
    assert replay.face_down == 0
    assert all(replay.is_face_up(pos) or replay.is_gap(pos) for p in range(n) for pos in own(p))


# ------------------------------------------------------------------------ R19


@pytest.mark.rule("R19.1", "R1.2")
def test_config_helpers() -> None:
    config = RuleConfig(deck={1: 20, 2: 20}, max_players=6)
    assert config.most_players() == 3  # 40 cards: 3 seats need 38, 4 need 50
    assert RuleConfig().most_players() == 6
    assert RuleConfig(max_players=4).most_players() == 4
    assert config.deck_size == 40 and config.deck_cards() == (1,) * 20 + (2,) * 20
    data = RuleConfig().to_dict()
    assert data["deck"] == {str(v): c for v, c in DEFAULT_DECK}
    assert data["max_turns_per_round"] == 500 and data["knocking"] == "always"
    assert RuleConfig.from_dict(data) == RuleConfig()
    assert RuleConfig(knocking="never").options_differing_from(RuleConfig()) == {
        "knocking": ("never", "always")
    }
    assert RuleConfig().options_differing_from(RuleConfig()) == {}
    bad = dict(data, deck=[["1", 3]])
    with pytest.raises(ValueError, match="must be an object"):
        RuleConfig.from_dict(bad)
    with pytest.raises(ValueError, match="JSON object"):
        RuleConfig.from_dict([])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="copy count must be an int"):
        RuleConfig(deck={1: "30"})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="must be a mapping of card values to copy counts"):
        RuleConfig(deck=[(1, 2, 3)])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="at least 1 copy; got 0"):
        RuleConfig(deck={1: 30, 2: 0})
    with pytest.raises(ValueError, match=r"min_players=3 needs at least 38"):
        RuleConfig(deck={1: 37}, min_players=3)
    assert RuleConfig(deck={1: 38}, min_players=3).deck_size == 38
    with pytest.raises(ValueError, match=r"min_players must be an int 2\.\.64; got 1"):
        RuleConfig(min_players=1)
    assert RuleConfig(min_players=3, max_players=3).max_players == 3


@pytest.mark.rule("R19.3")
def test_preset_ids() -> None:
    assert preset_ids() == ("seeds@1", "de@1", "pl@1", "fr@1", "published@1")
    assert preset_id("published") == "published@1"
    assert preset_id("fr@1") == "fr@1"
    with pytest.raises(ValueError, match="must be a str"):
        preset(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown preset 'seed'"):
        preset_id("seed")


@pytest.mark.rule("R17.2")
def test_illegal_action_error_carries_the_action_and_the_reason() -> None:
    state = setup_reveals(game(3, {0: G0, 1: G1, 2: G2}, discard=6, draw=[8]))
    with pytest.raises(IllegalActionError) as info:
        apply(state, Take(Pos(0, 0, 0)))
    assert info.value.action == Take(Pos(0, 0, 0))
    assert "phase 'draw' expects DrawDeck() or DrawDiscard() from seat 0" in info.value.reason
    assert str(info.value).startswith("Take(pos=Pos(0, 0, 0)) is not legal now: ")
    assert isinstance(info.value, ValueError)


# ------------------------------------------------------------------------ R10


def _line(*values: int | None, down: Iterable[int] = ()) -> tuple[tuple[int | None, ...], int]:
    mask = 0
    for k in down:
        mask |= 1 << k
    return tuple(values), mask


ROW = (0, 1, 2, 3, 4)


@pytest.mark.rule("R10.2", "R10.3")
@pytest.mark.parametrize(
    ("values", "down", "anywhere", "adjacent"),
    [
        ((5, 5, 5, 1, 2), (), [0, 1, 2], [0, 1, 2]),
        ((1, 5, 5, 5, 2), (), [1, 2, 3], [1, 2, 3]),
        ((1, 2, 5, 5, 5), (), [2, 3, 4], [2, 3, 4]),
        ((5, 5, 6, 6, 6), (), [2, 3, 4], [2, 3, 4]),
        ((5, 5, 5, 5, 5), (), [0, 1, 2, 3, 4], [0, 1, 2, 3, 4]),
        ((5, 5, 5, 5, 1), (), [0, 1, 2, 3], [0, 1, 2, 3]),
        ((5, 7, 5, 8, 5), (), [0, 2, 4], []),
        ((5, 5, 1, 5, 2), (), [0, 1, 3], []),
        ((5, 5, None, 5, 5), (), [0, 1, 3, 4], []),
        ((5, 5, 5, 5, 5), (2,), [0, 1, 3, 4], []),
        ((7, 7, 7, 7, 1), (0,), [1, 2, 3], [1, 2, 3]),
        ((5, 5, 5, 1, 2), (1,), [], []),
        ((-1, -1, -1, 0, 0), (), [0, 1, 2], [0, 1, 2]),
        ((0, 0, 3, 0, 3), (), [0, 1, 3], []),
        ((None, None, None, 1, 1), (), [], []),
        ((1, 2, 3, 4, 5), (), [], []),
    ],
)
def test_a_row_holds_a_triple_as_row_match_says(
    values: tuple[int | None, ...], down: tuple[int, ...], anywhere: list[int], adjacent: list[int]
) -> None:
    cells, mask = _line(*values, down=down)
    for reading, expected in (("anywhere", anywhere), ("adjacent", adjacent)):
        config = RuleConfig(row_match=reading)
        assert find_triples(config, cells, mask, [ROW]) == expected, reading
        # A 3-cell column: both readings agree.
        column = (0, 1, 2)
        both = find_triples(RuleConfig(row_match="anywhere"), cells, mask, [column])
        assert find_triples(config, cells, mask, [column]) == both


@pytest.mark.rule("R10.4")
def test_triples_of_several_lines_are_united_and_sorted() -> None:
    geo = geometry(2)
    cells: list[int | None] = [v % 11 for v in range(24)]
    for i in (0, 4, 8):  # seat 0's column 0 ...
        cells[i] = 9
    for i in (1, 2):  # ... and its row 0 with seat 1's column-3 cell
        cells[i] = 9
    cells[15] = 9
    table = tuple(cells)
    for reading in ("anywhere", "adjacent"):
        config = RuleConfig(row_match=reading)
        found = find_triples(config, table, 0, geo.lines)
        assert found == [0, 1, 2, 4, 8, 15]
        assert new_triples(config, geo, table, 0, range(24)) == found
        assert new_triples(config, geo, table, 0, [8]) == [0, 4, 8]
        assert new_triples(config, geo, table, 0, [15]) == [0, 1, 2, 15]
        assert new_triples(config, geo, table, 1 << 8 | 1 << 15, [8, 15]) == []


@pytest.mark.rule("R10.2", "R10.3", "R10.4")
@given(
    n=st.integers(2, 4),
    reading=st.sampled_from(OPTION_CHOICES["row_match"]),
    data=st.data(),
)
def test_new_triples_through_every_cell_equals_all_triples_on_the_table(
    n: int, reading: str, data: st.DataObject
) -> None:
    geo = geometry(n)
    cells = tuple(
        data.draw(
            st.lists(st.one_of(st.none(), st.integers(0, 2)), min_size=12 * n, max_size=12 * n)
        )
    )
    face_down = data.draw(st.integers(0, (1 << (12 * n)) - 1))
    face_down &= sum(1 << i for i, v in enumerate(cells) if v is not None)
    config = RuleConfig(row_match=reading)
    expected = find_triples(config, cells, face_down, geo.lines)
    assert new_triples(config, geo, cells, face_down, range(12 * n)) == expected
    for i in expected:
        assert cells[i] is not None and not (face_down >> i) & 1


# ----------------------------------------------------------- messages and pins


@pytest.mark.rule("R3.3", "R19.1", "R19.3", "R1.3")
def test_error_messages_name_what_is_wrong() -> None:
    deck = list(RuleConfig().deck_cards())
    deck.remove(10)
    deck.remove(11)
    with pytest.raises(ValueError, match=r"it has 120 \(extra 1x 5, 1x 6; missing 1x 10, 1x 11\)"):
        new_game(3, deck=[*deck, 5, 6])
    with pytest.raises(ValueError, match="list or tuple of card values; got str"):
        new_game(3, deck="1234")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="JSON object; got list"):
        RuleConfig.from_dict([])  # type: ignore[arg-type]
    data = RuleConfig().to_dict()
    with pytest.raises(ValueError, match=r'^RuleConfig\.deck must be an object like \{"-1": 6'):
        RuleConfig.from_dict(dict(data, deck=[]))
    with pytest.raises(ValueError, match=r"^RuleConfig\.deck: card value must be an int; got '1'$"):
        RuleConfig(deck={"1": 30})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match=r"\(optionally pinned as name@version\)$"):
        preset("nope")
    with pytest.raises(ValueError, match=r"the table has seats 0\.\.2$"):
        geometry(3).index(Pos(3, 0, 0))


@pytest.mark.rule("R1.2")
def test_most_players_is_what_the_deck_can_deal() -> None:
    # 12 cards per seat plus 2: 37 cards deal 2 seats, 38 deal 3.
    assert RuleConfig(deck={1: 37}).most_players() == 2
    assert RuleConfig(deck={1: 38}).most_players() == 3
    assert RuleConfig(deck={1: 49}).most_players() == 3
    assert RuleConfig(deck={1: 50}).most_players() == 4


@pytest.mark.rule("R19.3")
def test_a_pinned_version_is_that_version(monkeypatch: pytest.MonkeyPatch) -> None:
    first = preset("seeds@1")
    second = RuleConfig(knocking="never")
    monkeypatch.setitem(PRESETS, "seeds", (first, second))
    assert preset("seeds@1") is first
    assert preset("seeds@2") is second
    assert preset("seeds") is second
    assert preset_id("seeds") == "seeds@2"
    assert "seeds@1" in preset_ids() and "seeds@2" in preset_ids()
    with pytest.raises(ValueError, match=r"released versions are 1\.\.2"):
        preset("seeds@3")


# ---------------------------------------------------------------- R9.5, R17.2

T3 = {0: G0, 1: G1, 2: G2}


def clear(state: GameState, positions: Iterable[Pos]) -> GameState:
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
    return forged(
        state, cells=tuple(cells), face_down=face_down, out_of_play=state.out_of_play + tuple(gone)
    )


def reason(state: GameState, action: object) -> str:
    assert action not in legal_actions(state)
    before = attrs.asdict(state, recurse=False)
    with pytest.raises(IllegalActionError) as info:
        apply(state, action)  # type: ignore[arg-type]
    assert info.value.action == action
    assert attrs.asdict(state, recurse=False) == before
    return info.value.reason


def _one_takeable(take_given_card: str, extra: Iterable[Pos] = ()) -> GameState:
    """Drawer 0 holds one card in its zone, (1,0,3); knocker 1's zone holds (1,0,3),
    (1,1,1) and ``extra``. Seat 0 draws an 8, seat 1 knocks, seat 0 gives it the card."""
    config = RuleConfig(take_given_card=take_given_card)
    state = setup_reveals(game(3, T3, config=config, discard=6, draw=[8]))
    keep = {Pos(1, 0, 3), Pos(1, 1, 1), *extra}
    gone = own(0) + [p for p in own(1) if p not in keep] + [Pos(2, r, 3) for r in range(3)]
    state = clear(state, gone)
    state = play(state, [DrawDeck(), Knock(), Pass()])
    assert legal_actions(state) == (Swap(Pos(1, 0, 3)), Discard(), Give(1))
    return play(state, [Give(1)])


@pytest.mark.rule("R9.5", "R9.3")
@pytest.mark.parametrize("take_given_card", ["allowed", "forbidden"])
def test_no_dead_end_with_a_single_takeable_card(take_given_card: str) -> None:
    state = _one_takeable(take_given_card)
    # (1,1,1) is the only card the drawer could take: (1,0,3) is the drawer's last card.
    if take_given_card == "forbidden":
        # The given card may not go onto the only takeable card: it could not be taken.
        assert legal_actions(state) == (Swap(Pos(1, 0, 3)),)
        assert reason(state, Swap(Pos(1, 1, 1))) == (
            "the drawer could not complete the knock exchange after it"
        )
        state = play(state, [Swap(Pos(1, 0, 3))])
        assert legal_actions(state) == (Take(Pos(1, 1, 1)),)
        assert reason(state, Take(Pos(1, 0, 3))) == (
            "take_given_card='forbidden': the card just given cannot be taken back"
        )
        state = play(state, [Take(Pos(1, 1, 1)), Swap(Pos(1, 0, 3))])
        # The drawer swapped the taken 7 over the given 8; the knocker's 5 fills (1,1,1).
        assert (state.card(Pos(1, 0, 3)), state.card(Pos(1, 1, 1))) == (7, 5)
        assert state.discard_pile == (6, 8)
    else:
        assert legal_actions(state) == (Swap(Pos(1, 0, 3)), Swap(Pos(1, 1, 1)))
        state = play(state, [Swap(Pos(1, 1, 1))])
        assert legal_actions(state) == (Take(Pos(1, 1, 1)),)
        assert reason(state, Take(Pos(1, 0, 3))) == (
            "the drawer would have no card left to swap the taken card with"
        )
        state = play(state, [Take(Pos(1, 1, 1)), Swap(Pos(1, 0, 3))])
        assert (state.card(Pos(1, 0, 3)), state.card(Pos(1, 1, 1))) == (8, 7)
        assert state.discard_pile == (6, 5)
    assert (state.phase, state.current_player) == (Phase.DRAW, 1)


@pytest.mark.rule("R9.5", "R9.3")
def test_no_dead_end_take_under_forbidden_names_the_missing_swap_target() -> None:
    state = _one_takeable("forbidden", extra=[Pos(1, 2, 2)])
    assert legal_actions(state) == tuple(
        Swap(p) for p in (Pos(1, 0, 3), Pos(1, 1, 1), Pos(1, 2, 2))
    )
    state = play(state, [Swap(Pos(1, 1, 1))])
    assert legal_actions(state) == (Take(Pos(1, 2, 2)),)
    assert reason(state, Take(Pos(1, 0, 3))) == (
        "the drawer would have no card left to swap the taken card with"
    )
    assert reason(state, Take(Pos(1, 1, 1))) == (
        "take_given_card='forbidden': the card just given cannot be taken back"
    )
    assert reason(state, Take(Pos(1, 0, 0))) == (
        "Pos(1, 0, 0) is a gap, and gaps are never targeted"
    )
    assert reason(state, Take(Pos(0, 0, 0))) == (
        "Pos(0, 0, 0) is not in seat 1's zone (take_area='zone')"
    )


@pytest.mark.rule("R9.5", "R6.1")
def test_no_dead_end_with_swap_area_own_counts_only_the_own_grid() -> None:
    # The drawer keeps one own card, (0,0,0). The knocker's column-3 cells lie in the
    # drawer's zone but not in its own grid: taking one leaves (0,0,0) to swap with.
    config = RuleConfig(swap_area="own")
    state = setup_reveals(game(3, T3, config=config, discard=6, draw=[8]))
    state = clear(state, [p for p in own(0) if p != Pos(0, 0, 0)])
    state = play(state, [DrawDeck(), Knock(), Pass(), Give(1), Swap(Pos(1, 1, 1))])
    takes = set(legal_actions(state))
    assert takes == {Take(p) for p in own(1) + [Pos(2, r, 3) for r in range(3)]}
    assert Take(Pos(1, 0, 3)) in takes
    state = play(state, [Take(Pos(1, 0, 3))])
    assert legal_actions(state) == (Swap(Pos(0, 0, 0)),)


@pytest.mark.rule("R17.2", "R12.2", "R5.3", "R9.1", "R4.2")
def test_every_illegal_action_says_exactly_why() -> None:
    state = game(3, T3, discard=6, draw=[8])
    assert reason(state, "reveal") == "str is not an allegra_rules action"
    assert reason(state, DrawDeck()) == (
        "phase 'setup' expects Reveal(pos) of a face-down card (setup) from seat 0"
    )
    assert reason(state, Reveal(Pos(5, 0, 0))) == (
        "Pos(5, 0, 0) names seat 5, but the seats are 0..2"
    )
    assert reason(state, Reveal(Pos(3, 0, 0))) == (
        "Pos(3, 0, 0) names seat 3, but the seats are 0..2"
    )
    assert reason(state, Reveal(Pos(2, 0, 0))) == (
        "Pos(2, 0, 0) is not in seat 0's zone (reveal_area='zone')"
    )
    own_config = RuleConfig(reveal_area="own", swap_area="own")
    own_state = game(3, T3, config=own_config, discard=6, draw=[8])
    assert reason(own_state, Reveal(Pos(1, 0, 3))) == (
        "Pos(1, 0, 3) is not in seat 0's own grid (reveal_area='own')"
    )
    after = play(state, [Reveal(Pos(0, 0, 0))])
    assert reason(after, Reveal(Pos(0, 0, 0))) == "the card at Pos(0, 0, 0) is already face up"
    after = play(state, [Reveal(Pos(1, 0, 3))])  # a card of the left neighbour's column
    assert reason(after, Reveal(Pos(1, 0, 3))) == "the card at Pos(1, 0, 3) is already face up"
    assert reason(clear(state, [Pos(0, 1, 1)]), Reveal(Pos(0, 1, 1))) == (
        "Pos(0, 1, 1) is a gap, and gaps are never targeted"
    )
    # Drawing.
    state = setup_reveals(state)
    empty = forged(state, draw_pile=(), out_of_play=state.draw_pile)
    assert reason(empty, DrawDeck()) == (
        "the draw pile is empty and the discard pile has fewer than 2 cards to refill it"
    )
    no_discard = forged(state, discard_pile=(), out_of_play=state.discard_pile)
    assert reason(no_discard, DrawDiscard()) == "the discard pile is empty"
    bare = clear(state, own(0) + [Pos(1, r, 3) for r in range(3)])
    assert reason(bare, DrawDiscard()) == "seat 0 has no card in its zone to swap with"
    own_state = clear(setup_reveals(own_state), own(0))
    assert reason(own_state, DrawDiscard()) == "seat 0 has no card in its own grid to swap with"
    assert reason(own_state, Swap(Pos(0, 0, 0))) == (
        "phase 'draw' expects DrawDeck() or DrawDiscard() from seat 0"
    )
    # Holding the discard pile's card.
    held = play(state, [DrawDiscard()])
    assert reason(held, Discard()) == (
        "discard_draw='must_swap': a card taken from the discard pile must be swapped in"
    )
    assert reason(held, Swap(Pos(2, 0, 0))) == (
        "Pos(2, 0, 0) is not in seat 0's zone (swap_area='zone')"
    )
    # Knocks.
    held = play(state, [DrawDeck(), Knock(), Pass()])
    assert reason(held, Give(2)) == "seat 2 did not knock (knockers: [1])"
    gone = own(0) + [p for p in own(1) if p != Pos(1, 0, 3)] + [Pos(2, r, 3) for r in range(3)]
    stuck = clear(held, gone)
    assert reason(stuck, Give(1)) == "the knock exchange with seat 1 could not be completed"


@pytest.mark.rule("R16.2", "R17.2")
def test_after_the_game_nothing_is_in_progress() -> None:
    config = RuleConfig(max_turns_per_round=1)
    state = new_game(2, config=config, seed=4)
    rng = random.Random(4)
    while not state.is_terminal:
        before = state
        state = apply(state, rng.choice(legal_actions(state)))
    assert before.drawer is not None
    assert state.phase is Phase.OVER and state.current_player is None
    assert (state.drawer, state.knocker, state.given_at, state.taken_at) == (None,) * 4
    assert (state.knockers, state.final_turns, state.in_hand, state.held) == ((), (), (), None)
    assert (state.held_was_face_down, state.hand_was_face_down) == (False, False)
    assert state.ender is None and state.last_round is not None
    assert state.last_round.ender is None and state.round == 3
    assert reason(state, DrawDeck()) == "the game is over"


@pytest.mark.rule("R16.2", "R13.3")
def test_a_game_ending_by_itself_keeps_its_last_ender() -> None:
    config = RuleConfig(knocking="never")
    state = new_game(2, config=config, seed=9)
    rng = random.Random(9)
    while not state.is_terminal:
        before = state
        legal = legal_actions(state)
        # Discarding and revealing ends rounds by themselves.
        choice = [a for a in legal if isinstance(a, DrawDeck | Discard | Reveal)] or list(legal)
        state = apply(state, rng.choice(choice))
    assert state.last_round is not None and state.last_round.ender is not None
    assert state.ender == state.last_round.ender == before.ender
    assert (state.drawer, state.final_turns, state.knockers) == (None, (), ())


# ------------------------------------------------------------------- R15.2


@pytest.mark.rule("R15.2")
@pytest.mark.parametrize(
    ("options", "sums", "ender", "scores", "doubled"),
    [
        ({}, (10, 5), 0, (20, 5), True),
        ({}, (5, 10), 0, (5, 10), False),
        ({}, (5, 5), 0, (5, 5), False),
        ({"ender_tie": "doubled"}, (5, 5), 0, (10, 5), True),
        ({"ender_tie": "doubled"}, (4, 5), 0, (4, 5), False),
        ({}, (0, -1), 0, (0, -1), True),
        ({"double_nonpositive": "no"}, (0, -1), 0, (0, -1), False),
        ({"double_nonpositive": "no"}, (1, 0), 0, (2, 0), True),
        ({"double_nonpositive": "no"}, (-2, -3), 0, (-2, -3), False),
        ({}, (-2, -3), 0, (-4, -3), True),
        ({}, (9, 7, 8), 2, (9, 7, 16), True),
        ({}, (9, 7, 7), 2, (9, 7, 7), False),
        ({}, (9, 7, 8), None, (9, 7, 8), False),
    ],
)
def test_doubling_the_round_ender(
    options: dict[str, str],
    sums: tuple[int, ...],
    ender: int | None,
    scores: tuple[int, ...],
    doubled: bool,
) -> None:
    config = RuleConfig(**options)  # type: ignore[arg-type]
    assert round_scores(config, sums, ender) == (scores, doubled)
    assert ender_doubled(config, sums, ender) is doubled


@pytest.mark.rule("R2.1")
def test_a_deck_value_may_have_a_single_copy() -> None:
    config = RuleConfig(deck={1: 30, 2: 1})
    assert config.deck_size == 31 and config.deck_cards().count(2) == 1


# ------------------------------------------------------------- more R-clauses


@pytest.mark.rule("R12.1", "R18.1")
def test_refills_are_shuffled_from_the_seed_round_and_refill_count() -> None:
    state = setup_reveals(game(2, {0: G0, 1: G1}, discard=6, seed=5))
    pile = (3, 9, 4, 4, 8, 1, 7, 2)
    pool = Counter(state.draw_pile) + Counter(state.discard_pile)
    pool.subtract(Counter(pile))
    state = forged(
        state,
        draw_pile=(),
        discard_pile=pile,
        out_of_play=state.out_of_play + tuple(sorted(pool.elements())),
    )
    first = shuffled(pile[:-1], stream(5, "refill", 1, 0))
    assert first == (3, 4, 9, 8, 1, 4, 7)  # pinned: part of the saved-game format
    state = play(state, [DrawDeck()])
    assert state.refills == 1 and state.held == first[0]
    assert state.draw_pile == first[1:] and state.discard_pile == (2,)
    # Empty the pile again: the second refill of the round has its own stream.
    state = play(pass_window(state), [Discard(), Reveal(Pos(0, 0, 0))])
    state = forged(
        state,
        draw_pile=(),
        discard_pile=(*state.draw_pile, *state.discard_pile),
    )
    pile2 = state.discard_pile
    state = play(state, [DrawDeck()])
    second = shuffled(pile2[:-1], stream(5, "refill", 1, 1))
    assert second != shuffled(pile2[:-1], stream(5, "refill", 1, 0))
    assert state.refills == 2 and (state.held, *state.draw_pile) == second


@pytest.mark.rule("R13.2", "R13.3", "R9.2")
def test_two_players_done_at_once_the_first_clockwise_from_the_drawer_ends() -> None:
    g3: Grid = ((4, 5, 6, 7), (8, 9, 10, 11), (0, -1, 1, 2))
    state = setup_reveals(game(4, {0: G0, 1: G1, 2: G2, 3: g3}, discard=6, draw=[3, 8]))
    state = flip_turn(state, Pos(0, 0, 0))
    down = [Pos(0, 1, 1), Pos(1, 0, 0), Pos(1, 0, 1), Pos(2, 0, 3), Pos(3, 0, 0)]
    state = face_down_only(state, down)
    # Drawer 1; seat 0 knocks and swaps the 8 onto its last face-down card.
    state = play(state, [DrawDeck(), Pass(), Pass(), Knock(), Give(0), Swap(Pos(0, 1, 1))])
    # The drawer takes seat 0's face-up 11 and swaps it onto seat 2's last face-down card.
    state = play(state, [Take(Pos(0, 2, 2)), Swap(Pos(2, 0, 3))])
    assert state.card(Pos(0, 2, 2)) == 6 and state.card(Pos(2, 0, 3)) == 11
    # Seats 0 and 2 are done, the drawer 1 is not: seat 2 comes first clockwise from 1.
    assert state.ender == 2 and state.final_turns == (3, 0, 1)
    assert (state.phase, state.current_player) == (Phase.DRAW, 3)
    assert (state.knocker, state.given_at, state.taken_at, state.knockers) == (None, None, None, ())
    assert state.held_was_face_down is False and state.hand_was_face_down is False


@pytest.mark.rule("R5.3", "R9.5")
@pytest.mark.parametrize("discard_draw", ["must_swap", "may_discard"])
def test_draw_discard_needs_a_swap_target_in_the_swap_area(discard_draw: str) -> None:
    config = RuleConfig(discard_draw=discard_draw)
    state = setup_reveals(game(3, T3, config=config, discard=6))
    # Only the left neighbour's column (part of the zone) still holds cards.
    state = clear(state, own(0))
    assert legal_actions(state) == (DrawDeck(), DrawDiscard())
    bare = clear(state, [Pos(1, r, 3) for r in range(3)])
    if discard_draw == "must_swap":
        assert legal_actions(bare) == (DrawDeck(),)
    else:
        assert legal_actions(bare) == (DrawDeck(), DrawDiscard())
        bare = play(bare, [DrawDiscard(), Discard()])  # nothing to reveal: the turn ends
        assert (bare.phase, bare.current_player, bare.discard_pile) == (Phase.DRAW, 1, (6,))
    own_only = RuleConfig(discard_draw=discard_draw, swap_area="own")
    state = clear(setup_reveals(game(3, T3, config=own_only, discard=6)), own(0))
    expected = (DrawDeck(),) if discard_draw == "must_swap" else (DrawDeck(), DrawDiscard())
    assert legal_actions(state) == expected


@pytest.mark.rule("R9.2", "R9.3", "R4.1")
def test_fresh_deals_and_setups_have_no_turn_in_progress() -> None:
    state = game(3, T3, discard=6, draw=[8])
    for s in (state, play(state, [Reveal(Pos(0, 0, 0))])):
        assert s.drawer is None and s.knocker is None and s.given_at is None
        assert s.held_was_face_down is False and s.hand_was_face_down is False
    state = setup_reveals(state)
    assert state.drawer == 0
    # The knocker swaps onto its face-up (1,2,1); the next cell (1,2,2) lies face down.
    state = play(state, [DrawDeck(), Knock(), Pass(), Give(1), Swap(Pos(1, 2, 1))])
    assert state.hand_was_face_down is False and state.in_hand == ((1, 11),)
    state = play(state, [Take(Pos(1, 2, 2)), Swap(Pos(0, 0, 0))])
    assert (state.round, state.phase, state.current_player) == (1, Phase.DRAW, 1)
    with pytest.raises(ValueError, match="config must be a RuleConfig or None; got dict"):
        new_game(3, config={"knocking": "never"})  # type: ignore[arg-type]


@pytest.mark.rule("R14.1", "R16.2")
def test_a_last_round_cut_by_the_cap_leaves_no_ender() -> None:
    config = RuleConfig(max_turns_per_round=2)
    state = game(3, T3, config=config, discard=6)
    while state.round < 3:
        state = apply(state, legal_actions(state)[0])
    state = setup_reveals(state)
    assert (state.round, state.current_player) == (3, 2)
    down = [Pos(2, 0, 0), Pos(0, 0, 0), Pos(0, 0, 1), Pos(1, 0, 0), Pos(1, 0, 1)]
    state = face_down_only(state, [p for p in down if state.face_down >> p.index & 1])
    state = flip_turn(state, Pos(2, 0, 0))
    assert (state.ender, state.final_turns) == (2, (0, 1))
    state = flip_turn(state, Pos(0, 0, 0))  # the second turn: the cap ends the game
    assert state.is_terminal and state.last_round is not None
    assert state.last_round.ender is None and state.ender is None
    assert state.last_round.doubled is False
