"""Only reachable setups load: the setup's face-up cards, sums, revealers and first drawer.

The loader and ``check_state`` decide reachability by reasoning (which seat can have
revealed which cell, with which sums). The oracle here decides it by playing: from the
round's first state it tries every sequence of setup reveals that turns up only cells
that are up in the state under test, with the engine's own ``apply``, and asks whether
one of them ends in that exact state. A mutated state must be refused exactly when the
oracle finds no way to it.
"""

from __future__ import annotations

import functools
import random
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allegra_rules import (
    GameState,
    Phase,
    Pos,
    Reveal,
    RuleConfig,
    apply,
    legal_actions,
    new_game,
    state_from_json,
    state_to_json,
)
from allegra_rules.invariants import InvalidStateError, check_state
from allegra_rules.state import trusted_state
from helpers import thorough_run
from random_games import choose, tables

MUTATIONS_PER_STATE = 3


def in_window(state: GameState) -> bool:
    """A state of the setup, or the first draw of a round (before anyone has drawn)."""
    return state.phase is Phase.SETUP or (state.phase is Phase.DRAW and state.turns_played == 0)


def rebuilt(state: GameState, **changes: Any) -> GameState:
    """``state`` with ``changes``, built without any check (as a forged document would be)."""
    fields = {f.name: getattr(state, f.name) for f in attrs.fields(GameState) if f.init}
    fields.update(changes)
    return trusted_state(**fields)


def up_cells(state: GameState) -> frozenset[int]:
    return frozenset(i for i in range(len(state.cells)) if not (state.face_down >> i) & 1)


def reachable(target: GameState, round_start: GameState) -> bool:
    """Whether some sequence of setup actions leads from ``round_start`` to ``target``."""
    if target.phase is Phase.SETUP:
        depth = target.setup_reveals
        if target.config.setup_reveals == "simultaneous":
            allowed = frozenset(target.setup_named)
        else:
            allowed = up_cells(target)
    else:
        depth = 2 * target.num_players
        allowed = up_cells(target)
    layers = _layers(round_start, allowed)
    while len(layers) <= depth:
        layers.append(
            {
                apply(s, a)
                for s in layers[-1]
                if s.phase is Phase.SETUP
                for a in legal_actions(s)
                if isinstance(a, Reveal) and a.pos.index in allowed
            }
        )
    return target in layers[depth]


@functools.lru_cache(maxsize=16)
def _layers(round_start: GameState, allowed: frozenset[int]) -> list[set[GameState]]:
    """The states ``k`` setup reveals of ``allowed`` cells lead to from ``round_start``,
    for ``k`` = 0, 1, ... as far as ``reachable`` has gone: the mutations of one state
    that keep its face-up cells, and the next states of its round, ask for the same."""
    return [{round_start}]


def mutations(state: GameState, rng: random.Random) -> list[tuple[str, GameState]]:
    """Small changes of the kinds a forged setup document makes."""
    n = state.num_players
    cards = [i for i, v in enumerate(state.cells) if v is not None]
    up = [i for i in cards if not (state.face_down >> i) & 1]
    down = [i for i in cards if (state.face_down >> i) & 1]
    sums = list(state.setup_sums)
    out: list[tuple[str, GameState]] = []
    i = rng.choice(cards)
    out.append((f"flip cell {i}", rebuilt(state, face_down=state.face_down ^ (1 << i))))
    if up and down:
        a, b = rng.choice(up), rng.choice(down)
        moved = state.face_down ^ (1 << a) ^ (1 << b)
        out.append((f"reveal {b} instead of {a}", rebuilt(state, face_down=moved)))
    p, q = rng.sample(range(n), 2)
    delta = rng.choice([-1, 1, 2, 5])
    bumped = list(sums)
    bumped[p] += delta
    out.append((f"sum of seat {p} {delta:+}", rebuilt(state, setup_sums=tuple(bumped))))
    split = list(sums)
    split[p] -= delta
    split[q] += delta
    out.append(
        (f"move {delta} of the sums from {p} to {q}", rebuilt(state, setup_sums=tuple(split)))
    )
    swapped = list(sums)
    swapped[p], swapped[q] = swapped[q], swapped[p]
    out.append((f"swap the sums of {p} and {q}", rebuilt(state, setup_sums=tuple(swapped))))
    if state.phase is Phase.DRAW:
        other = rng.choice([s for s in range(n) if s != state.drawer])
        out.append(
            (f"seat {other} draws first", rebuilt(state, drawer=other, current_player=other))
        )
    return rng.sample(out, min(MUTATIONS_PER_STATE, len(out)))


def accepted(state: GameState) -> bool:
    """Whether ``check_state`` accepts ``state``, and the loader agrees with it."""
    try:
        check_state(state)
    except InvalidStateError:
        ok = False
    else:
        ok = True
    try:
        loaded = state_from_json(state_to_json(state))
    except ValueError:
        assert not ok, "check_state accepts a state that the loader refuses"
    else:
        assert ok, "the loader accepts a state that check_state refuses"
        assert loaded == state
    return ok


@settings(max_examples=200 if thorough_run() else 12, deadline=None)
@given(table=tables(), picks=st.integers(0, 2**32))
def test_a_mutated_setup_loads_only_when_a_game_can_reach_it(
    table: tuple[RuleConfig, int, int], picks: int
) -> None:
    config, n, seed = table
    rng = random.Random(picks)
    state = new_game(n, config=config, seed=seed)
    round_start = state
    checked = 0
    while not state.is_terminal:
        if state.phase is Phase.SETUP and state.setup_reveals == 0:
            round_start = state
        if in_window(state):
            assert accepted(state)
            for what, mutated in mutations(state, rng):
                if mutated == state:
                    continue
                expect = reachable(mutated, round_start)
                assert accepted(mutated) == expect, (what, expect)
                checked += 1
        state = apply(state, choose(rng, legal_actions(state)))
    assert checked > 0


# ------------------------------------------------------- the cases the red team found


def _setup_done(config: RuleConfig, picks: dict[int, list[Pos]]) -> GameState:
    state = new_game(2, config=config, seed=3)
    made = dict.fromkeys(picks, 0)
    while state.phase is Phase.SETUP:
        seat = state.current_player
        assert seat is not None
        state = apply(state, Reveal(picks[seat][made[seat]]), player=seat)
        made[seat] += 1
    return state


def test_a_face_up_card_of_a_seat_that_has_not_revealed_is_refused() -> None:
    state = new_game(3, config=RuleConfig(reveal_area="own"), seed=5)
    state = apply(state, Reveal(Pos(0, 0, 0)))
    forged = rebuilt(state, face_down=state.face_down ^ 1 ^ (1 << Pos(2, 1, 1).index))
    with pytest.raises(InvalidStateError, match="no seat that has revealed"):
        check_state(forged)


def test_sums_split_between_seats_are_refused() -> None:
    state = _setup_done(
        RuleConfig(), {0: [Pos(0, 0, 0), Pos(0, 0, 1)], 1: [Pos(1, 0, 0), Pos(1, 2, 2)]}
    )
    a, b = state.setup_sums
    with pytest.raises(InvalidStateError, match=r"\$\.setup_sums"):
        check_state(rebuilt(state, setup_sums=(a + 1, b - 1)))


def test_a_first_drawer_who_did_not_reveal_the_highest_sum_is_refused() -> None:
    config = RuleConfig(first_player="highest_reveal")
    state = _setup_done(config, {0: [Pos(0, 0, 0), Pos(0, 0, 1)], 1: [Pos(1, 0, 0), Pos(1, 2, 2)]})
    first = state.drawer
    assert first is not None
    other = 1 - first
    assert state.setup_sums[first] > state.setup_sums[other]
    # The sums swapped so that they name the other seat: consistent with the drawer, not
    # with the cards each seat turned up.
    swapped = tuple(reversed(state.setup_sums))
    forged = rebuilt(state, setup_sums=swapped, drawer=other, current_player=other)
    with pytest.raises(InvalidStateError, match=r"\$\.setup_sums"):
        check_state(forged)


def test_a_simultaneous_setup_shows_every_named_card() -> None:
    config = RuleConfig(setup_reveals="simultaneous")
    state = _setup_done(config, {0: [Pos(0, 0, 0), Pos(0, 0, 1)], 1: [Pos(1, 0, 0), Pos(1, 2, 2)]})
    assert state.phase is Phase.DRAW
    all_down = (1 << len(state.cells)) - 1
    with pytest.raises(InvalidStateError):
        check_state(rebuilt(state, face_down=all_down))
    with pytest.raises(InvalidStateError, match=r"\$\.setup_sums"):
        check_state(rebuilt(state, setup_sums=(22, 22)))
