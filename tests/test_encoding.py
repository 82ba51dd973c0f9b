"""The stable integer action encoding for learning code."""

from __future__ import annotations

import pytest

from allegra_rules import (
    Discard,
    DrawDeck,
    DrawDiscard,
    Give,
    Knock,
    Pass,
    Pos,
    Reveal,
    Swap,
    Take,
    action_from_id,
    action_to_id,
    legal_action_ids,
    legal_action_mask,
    legal_actions,
    num_distinct_actions,
    preset,
)
from random_games import CONFIGS, game_states, players_for


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 9])
def test_layout_by_hand(n: int) -> None:
    cells = 12 * n
    assert num_distinct_actions(n) == 5 + n + 3 * cells
    assert [action_to_id(a, n) for a in (DrawDeck(), DrawDiscard(), Knock(), Pass())] == [
        0,
        1,
        2,
        3,
    ]
    assert action_to_id(Discard(), n) == 4
    assert action_to_id(Give(0), n) == 5
    assert action_to_id(Give(n - 1), n) == 4 + n
    assert action_to_id(Reveal(Pos(0, 0, 0)), n) == 5 + n
    assert action_to_id(Reveal(Pos(0, 0, 1)), n) == 6 + n
    assert action_to_id(Reveal(Pos(0, 1, 0)), n) == 9 + n
    assert action_to_id(Reveal(Pos(1, 0, 0)), n) == 17 + n
    assert action_to_id(Reveal(Pos(n - 1, 2, 3)), n) == 4 + n + cells
    assert action_to_id(Swap(Pos(0, 0, 0)), n) == 5 + n + cells
    assert action_to_id(Take(Pos(0, 0, 0)), n) == 5 + n + 2 * cells
    assert action_to_id(Take(Pos(n - 1, 2, 3)), n) == num_distinct_actions(n) - 1


def test_a_worked_example() -> None:
    # n = 2: Swap starts at 5 + 2 + 24 = 31; Pos(1, 0, 2) is cell 14.
    assert action_to_id(Swap(Pos(1, 0, 2)), 2) == 45
    assert action_from_id(45, 2) == Swap(Pos(1, 0, 2))
    assert num_distinct_actions(2) == 79 and num_distinct_actions(6) == 227


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_ids_and_actions_are_a_bijection(n: int) -> None:
    total = num_distinct_actions(n)
    actions = [action_from_id(i, n) for i in range(total)]
    assert len(set(actions)) == total
    assert [action_to_id(a, n) for a in actions] == list(range(total))
    kinds = {type(a) for a in actions}
    assert kinds == {DrawDeck, DrawDiscard, Knock, Pass, Discard, Give, Reveal, Swap, Take}
    # The same action object as the engine hands out: cheap identity comparisons.
    assert action_from_id(5 + n, n) is action_from_id(5 + n, n)


@pytest.mark.parametrize("name", ["seeds@1", "fr@1", "exotic", "small_deck"])
def test_every_legal_action_of_random_games_round_trips(name: str) -> None:
    config = CONFIGS[name]
    for wanted in (2, 4, 6):
        n = players_for(config, wanted)
        total = num_distinct_actions(n)
        for state in game_states(config, n, seed=wanted):
            legal = legal_actions(state)
            ids = legal_action_ids(state)
            assert [action_from_id(i, n) for i in ids] == list(legal)
            for action, i in zip(legal, ids, strict=True):
                assert action_to_id(action, n) == i
                assert 0 <= i < total
            mask = legal_action_mask(state)
            assert len(mask) == total and set(mask) <= {0, 1}
            assert sum(mask) == len(legal)
            assert [i for i, bit in enumerate(mask) if bit] == sorted(ids)
            if state.is_terminal:
                assert not any(mask)


@pytest.mark.parametrize("bad", [-1, 79, 10**6, True, 1.0, "3", None])
def test_ids_out_of_range_raise(bad: object) -> None:
    with pytest.raises(ValueError, match="action_id"):
        action_from_id(bad, 2)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [1, 0, True, "4", 2.0])
def test_bad_seat_counts_raise(bad: object) -> None:
    with pytest.raises(ValueError, match="num_players"):
        num_distinct_actions(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="num_players"):
        action_to_id(DrawDeck(), bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="num_players"):
        action_from_id(0, bad)  # type: ignore[arg-type]


def test_actions_outside_the_table_raise() -> None:
    for action in (Give(3), Reveal(Pos(3, 0, 0)), Swap(Pos(5, 2, 3)), Take(Pos(3, 1, 1))):
        with pytest.raises(ValueError, match="seat"):
            action_to_id(action, 3)
    with pytest.raises(ValueError, match="not an allegra_rules action"):
        action_to_id("DrawDeck", 3)  # type: ignore[arg-type]


def test_mask_is_plain_python() -> None:
    state = next(iter(game_states(preset("seeds"), 2, seed=1)))
    mask = legal_action_mask(state)
    assert isinstance(mask, tuple)
    assert all(type(bit) is int for bit in mask)
    assert sum(mask) == 15  # seat 0 may reveal any of the 15 cells of its zone
