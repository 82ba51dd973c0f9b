"""Moves from a seat: ``apply(..., player=)`` and views whose actions round-trip.

A game server receives a move from a seat's client. The seat check of ``apply`` decides
whether it is that seat's move; the view it sent lists the seat's legal actions, and
each entry, sent back verbatim, loads with both action loaders.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from allegra_rules import (
    GameState,
    IllegalActionError,
    Pass,
    action_from_dict,
    action_from_json,
    action_to_dict,
    action_to_json,
    apply,
    legal_actions,
    new_game,
    observe,
)
from allegra_rules.serialize import SaveFormatError
from random_games import CONFIGS, game_states, players_for, states


class _Seat(int):
    """An int subclass that claims to equal everything."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = int.__hash__


@given(states())
def test_the_seat_to_move_may_move_and_no_other(state: GameState) -> None:
    legal = legal_actions(state)
    if state.is_terminal:
        for seat in range(state.num_players):
            with pytest.raises(IllegalActionError, match="the game is over"):
                apply(state, Pass(), player=seat)
        return
    who = state.current_player
    assert who is not None
    for action in legal:
        assert apply(state, action, player=who) == apply(state, action)
    for seat in range(state.num_players):
        if seat == who:
            continue
        for action in legal:
            with pytest.raises(IllegalActionError) as info:
                apply(state, action, player=seat)
            assert info.value.reason == f"it is seat {who}'s move, not seat {seat}'s"
            assert info.value.action == action


@pytest.mark.parametrize("bad", [True, False, -1, 3, 64, "0", 0.0, None.__class__, _Seat(0)])
def test_a_player_that_is_not_a_seat_is_a_value_error(bad: object) -> None:
    state = new_game(3, seed=4)
    action = legal_actions(state)[0]
    with pytest.raises(ValueError, match=r"player must be a seat of the game, an int 0\.\.2") as e:
        apply(state, action, player=bad)  # type: ignore[arg-type]
    assert not isinstance(e.value, IllegalActionError)


def test_the_seat_check_comes_before_the_legality_check() -> None:
    state = new_game(2, seed=4)
    # An action that is illegal for anyone: the seat out of turn hears whose move it is.
    with pytest.raises(IllegalActionError, match="it is seat 0's move, not seat 1's"):
        apply(state, Pass(), player=1)
    # The seat to move hears why the action is illegal.
    with pytest.raises(IllegalActionError, match="phase 'setup' expects"):
        apply(state, Pass(), player=0)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_every_views_actions_load_back_verbatim(name: str) -> None:
    config = CONFIGS[name]
    n = players_for(config, 4)
    checked = 0
    for i, state in enumerate(game_states(config, n, seed=7)):
        if i % 3:
            continue
        for seat in range(n):
            view = observe(state, seat)
            from_dict = view.to_dict()["legal_actions"]
            from_json = json.loads(view.to_json())["legal_actions"]
            assert from_dict == from_json
            assert len(from_dict) == len(view.legal_actions)
            for entry, action in zip(from_dict, view.legal_actions, strict=True):
                text = json.dumps(entry)
                assert action_from_dict(entry) == action
                assert action_from_json(text) == action
                # With the seat count, the loaders hand out the engine's own objects.
                assert action_from_dict(entry, num_players=n) is action
                assert action_from_json(text, num_players=n) is action
                assert apply(state, action_from_json(text), player=seat) == apply(state, action)
                checked += 1
    assert checked > 100


@given(st.sampled_from([Pass(), *legal_actions(new_game(2))]))
def test_whole_action_documents_load_with_both_loaders(action: object) -> None:
    text = action_to_json(action)  # type: ignore[arg-type]
    assert action_from_json(text) == action
    assert action_from_dict(json.loads(text)) == action
    assert action_from_dict(action_to_dict(action)) == action  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("extra", "path"),
    [
        ({"kind": "action"}, "$.schema_version"),
        ({"schema_version": 1}, "$.kind"),
        ({"schema_version": 2, "kind": "action"}, "$.schema_version"),
        ({"schema_version": 1, "kind": "state"}, "$.kind"),
        ({"schema_version": "1", "kind": "action"}, "$.schema_version"),
    ],
)
def test_a_header_must_be_whole_and_right(extra: dict[str, object], path: str) -> None:
    entry = {"type": "pass", **extra}
    for load in (action_from_dict, lambda d: action_from_json(json.dumps(d))):
        with pytest.raises(SaveFormatError) as info:
            load(entry)
        assert info.value.path == path
