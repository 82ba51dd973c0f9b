"""States built by hand are checked like loaded ones; arguments are normalised or refused.

``GameState(...)`` and ``attrs.evolve(state, ...)`` run ``check_state``: a state that no
game can reach is refused with ``InvalidStateError`` naming the field, so every public
function only ever sees consistent states. A ``str`` or ``int`` subclass is never stored
as given, and a seed out of range says so, with the range.
"""

from __future__ import annotations

import enum
import random
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from allegra_rules import (
    GameRecord,
    GameState,
    Phase,
    Pos,
    RuleConfig,
    apply,
    describe_action,
    determinize,
    legal_action_mask,
    legal_actions,
    new_game,
    observe,
    render_svg,
    render_table,
    state_from_json,
    state_to_json,
)
from allegra_rules.config import OPTION_CHOICES
from allegra_rules.invariants import InvalidStateError
from allegra_rules.shuffle import MAX_SEED, MIN_SEED
from random_games import states

FIELDS = [f.name for f in attrs.fields(GameState) if f.init]


def _other_values(state: GameState, name: str, rng: random.Random) -> list[Any]:
    """Values of the field's type that differ from the state's own."""
    n = state.num_players
    value = getattr(state, name)
    seat_or_none = [None, *range(n)]
    pool: dict[str, list[Any]] = {
        "phase": list(Phase),
        "current_player": seat_or_none,
        "drawer": seat_or_none,
        "knocker": seat_or_none,
        "ender": seat_or_none,
        "held": [None, *sorted({v for v, _ in state.config.deck})[:3]],
        "round": [1, 2, 3],
        "start_seat": list(range(n)),
        "setup_reveals": [0, 1, 2 * n - 1, 2 * n],
        "turns_played": [0, 1, 2, 7],
        "refills": [0, 1],
        "knockers": [(), tuple(range(1, n))],
        "final_turns": [(), (0,), tuple(range(n))],
        "given_at": [None, 0, 5],
        "taken_at": [None, 3],
        "held_was_face_down": [False, True],
        "hand_was_face_down": [False, True],
        "face_down": [0, state.face_down ^ (1 << rng.randrange(12 * n))],
        "setup_sums": [tuple(v + 1 for v in state.setup_sums)],
        "totals": [tuple(v + 1 for v in state.totals)],
        "cells": [tuple(reversed(state.cells))],
        "draw_pile": [tuple(reversed(state.draw_pile)), state.draw_pile[1:]],
        "discard_pile": [state.discard_pile[:-1]],
    }
    return [v for v in pool.get(name, []) if v != value]


def _must_not_crash(state: GameState) -> None:
    """The functions the reported hand-built states broke: only ``ValueError`` is allowed."""
    seat = state.current_player if state.current_player is not None else 0
    legal = legal_actions(state)
    if legal:
        apply(state, legal[0])
        describe_action(state, legal[0])
    legal_action_mask(state)
    view = observe(state, seat)
    determinize(view, random.Random(0))
    render_table(state)
    render_svg(state)


@given(states(most_steps=200), st.data())
def test_a_state_built_by_hand_is_one_a_game_can_reach_or_is_refused(
    state: GameState, data: st.DataObject
) -> None:
    rng = random.Random(data.draw(st.integers(0, 2**32), label="rng"))
    name = data.draw(st.sampled_from(FIELDS), label="field")
    choices = _other_values(state, name, rng)
    if not choices:
        return
    value = data.draw(st.sampled_from(choices), label="value")
    for build in (
        lambda: attrs.evolve(state, **{name: value}),
        lambda: GameState(**{**{f: getattr(state, f) for f in FIELDS}, name: value}),
    ):
        try:
            made = build()
        except InvalidStateError as error:
            refused = error
        else:
            refused = None
        if refused is not None:
            # The path names a field, or (for card conservation) the reason lists them.
            assert refused.path.startswith("$.") or name in refused.reason, refused
            continue
        # Accepted: then it is a state the loader accepts too, and nothing crashes on it.
        assert state_from_json(state_to_json(made)) == made
        _must_not_crash(made)


def test_a_hand_built_state_names_the_field() -> None:
    state = new_game(3, seed=1)
    with pytest.raises(InvalidStateError, match=r"^\$\.turns_played: must be 0 during setup"):
        attrs.evolve(state, turns_played=4)
    with pytest.raises(InvalidStateError) as info:
        attrs.evolve(state, current_player=2)
    assert info.value.path == "$.current_player"
    fields = {f: getattr(state, f) for f in FIELDS}
    with pytest.raises(InvalidStateError) as info:
        GameState(**{**fields, "phase": Phase.DRAW})
    assert info.value.path.startswith("$.")
    assert GameState(**fields) == state


class _Evil(str):
    """A str subclass that claims to equal everything."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = str.__hash__


class _Area(enum.StrEnum):
    OWN = "own"


@pytest.mark.parametrize("name", sorted(OPTION_CHOICES))
def test_option_values_are_stored_as_plain_str(name: str) -> None:
    last = OPTION_CHOICES[name][-1]
    config = RuleConfig(**{name: _Evil(last)})
    stored = getattr(config, name)
    assert type(stored) is str and stored == last
    assert config == RuleConfig(**{name: last})
    assert config.to_json() == RuleConfig(**{name: last}).to_json()
    with pytest.raises(ValueError, match=f"RuleConfig.{name} must be one of"):
        RuleConfig(**{name: _Evil("no such value")})


def test_a_str_enum_member_is_an_option_value() -> None:
    config = RuleConfig(swap_area=_Area.OWN)
    assert type(config.swap_area) is str
    assert config == RuleConfig(swap_area="own")


class _Seat(int):
    pass


@pytest.mark.parametrize(
    "build",
    [
        lambda: new_game(_Seat(2)),
        lambda: new_game(2, seed=_Seat(5)),
        lambda: Pos(_Seat(0), 0, 0),
        lambda: RuleConfig(max_turns_per_round=_Seat(5)),
        lambda: RuleConfig(deck={_Seat(1): 40, 2: 40}),
        lambda: GameRecord(num_players=_Seat(2)),
    ],
)
def test_an_int_subclass_is_refused(build: Any) -> None:
    with pytest.raises(ValueError, match=r"int|deck"):
        build()


@pytest.mark.parametrize(
    "seed",
    [MAX_SEED + 1, MIN_SEED - 1, 10**4301, -(10**5000)],
    ids=["max+1", "min-1", "4302 digits", "5001 digits"],
)
def test_a_seed_out_of_range_says_so_with_the_range(seed: int) -> None:
    with pytest.raises(
        ValueError, match=r"seed is out of range: .*-\(2\*\*256 - 1\) to 2\*\*256 - 1"
    ):
        new_game(2, seed=seed)
    with pytest.raises(ValueError, match="seed"):
        GameRecord(num_players=2, seed=seed)


@pytest.mark.parametrize("seed", [MAX_SEED, MIN_SEED, 0, -1, 2**63 + 5])
def test_seeds_in_range_play_and_load(seed: int) -> None:
    state = new_game(2, seed=seed)
    state = apply(state, legal_actions(state)[0])
    assert state_from_json(state_to_json(state)) == state
    text = state_to_json(state).replace(f'"seed":{seed}', f'"seed":{MAX_SEED + 1}')
    with pytest.raises(ValueError, match=r"\$\.seed"):
        state_from_json(text)
