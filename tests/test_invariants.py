"""One definition of a valid state: ``allegra_rules.invariants.check_state``.

- Every impossible state that issue reports listed is rejected, by ``check_state`` on
  the state and by the loader at the JSON path of the field.
- ``check_state`` checks the types of a state built by hand, never raising anything
  but ``InvalidStateError``.
- Closure: from states the loader accepts (played ones, and small mutations of them
  that it still accepts) the engine only ever produces states that load again and
  equal themselves after a round trip.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import attrs
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from allegra_rules import (
    Discard,
    DrawDeck,
    GameState,
    Give,
    Knock,
    Pass,
    Phase,
    Pos,
    SaveFormatError,
    Swap,
    Take,
    apply,
    legal_actions,
    preset,
    state_from_dict,
    state_from_json,
    state_to_dict,
    state_to_json,
)
from allegra_rules.invariants import InvalidStateError, check_state
from helpers import forged, game, setup_reveals
from random_games import CONFIGS, choose, game_states, play, players_for

G0 = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 0]]
G1 = [[2, 3, 4, 5], [6, 7, 8, 9], [10, 11, 0, 1]]
G2 = [[3, 4, 5, 6], [7, 8, 9, 10], [11, 0, 1, 2]]


def doc(state: GameState) -> dict[str, Any]:
    return json.loads(state_to_json(state))


def rejected(data: dict[str, Any]) -> SaveFormatError:
    with pytest.raises(SaveFormatError) as info:
        state_from_dict(data)
    return info.value


def both_reject(state: GameState, path: str, words: str) -> None:
    """``check_state`` and the loader reject ``state`` at ``path``."""
    with pytest.raises(InvalidStateError) as info:
        check_state(state)
    assert info.value.path == path, str(info.value)
    assert words in info.value.reason, str(info.value)
    error = rejected(state_to_dict(state))
    assert error.path == path and words in error.reason, str(error)


# ------------------------------------------------ the impossible states reported


def _draw_state(n: int = 3) -> GameState:
    state = setup_reveals(game(n, {0: G0, 1: G1, 2: G2}, discard=4))
    assert state.phase is Phase.DRAW and state.turns_played == 0
    check_state(state)
    return state


def test_an_ender_has_no_face_down_card_in_its_area() -> None:
    state = _draw_state()
    # As if seat 0 had ended the round on turn 1: seats 1 and 2 have their last turns.
    ended = forged(state, ender=0, final_turns=(1, 2), turns_played=1, drawer=1, current_player=1)
    both_reject(ended, "$.ender", "lie face down")


def test_face_up_cards_agree_with_the_turns_played() -> None:
    state = _draw_state()
    # 14 face-up cells at the start of the first turn (the setup turned up 6).
    mask = state.face_down
    for i in (0, 1, 2, 12, 13, 24, 25, 26):
        mask &= ~(1 << i)
    assert 36 - mask.bit_count() == 14
    both_reject(forged(state, face_down=mask), "$.face_down", "face up or gaps")


def test_cards_leave_the_draw_pile_only_by_drawing() -> None:
    state = _draw_state()
    moved = state.draw_pile[:10]
    tampered = forged(
        state, draw_pile=state.draw_pile[10:], discard_pile=state.discard_pile + moved
    )
    both_reject(tampered, "$.draw_pile", "no refill")


def test_every_gap_lies_on_a_line_a_triple_emptied() -> None:
    # fr@1 sends removed cards to the discard pile, so gaps need no out-of-play cards.
    state = setup_reveals(game(3, {0: G0, 1: G1, 2: G2}, config=preset("fr@1"), discard=4))
    cells = list(state.cells)
    gone = tuple(cells[i] for i in (1, 14, 30))
    assert None not in gone
    for i in (1, 14, 30):
        cells[i] = None
    tampered = forged(
        state,
        cells=tuple(cells),
        face_down=state.face_down & ~((1 << 1) | (1 << 14) | (1 << 30)),
        discard_pile=state.discard_pile + gone,  # type: ignore[operator]
    )
    both_reject(tampered, "$.cells[1]", "no line through this cell holds three gaps")


def test_setup_sums_match_the_revealed_cards() -> None:
    state = _draw_state()
    sums = list(state.setup_sums)
    sums[0] += 3
    sums[1] -= 1
    # The seats that revealed keep sums that could be right one by one, but not in all.
    both_reject(forged(state, setup_sums=tuple(sums)), "$.setup_sums", "add up to")


def _exchange_state(phase: Phase) -> GameState:
    # Seat 1 knocks for a drawn 7; seat 0 gives it; seat 1 swaps it onto its (0,0).
    state = _draw_state()
    state = apply(state, DrawDeck())
    state = apply(apply(state, Knock()), Pass())
    state = apply(state, Give(1))
    state = apply(state, Swap(Pos(1, 0, 0)))
    if phase is Phase.HOLD_TAKEN:
        state = apply(state, Take(Pos(1, 1, 1)))
    assert state.phase is phase
    check_state(state)
    return state


@pytest.mark.parametrize("phase", [Phase.TAKE, Phase.HOLD_TAKEN])
def test_a_table_carrying_a_triple_in_a_knock_exchange_is_rejected(phase: Phase) -> None:
    state = _exchange_state(phase)
    # Seat 2's face-up (2, 0) and (2, 1) are 11 and 0: make its row 2 three 11s, face up.
    cells = list(state.cells)
    cells[24 + 9] = 11
    cells[24 + 10] = 11
    donor = [i for i, v in enumerate(state.draw_pile) if v == 11][:1]
    assert state.cells[24 + 8] == 11 and donor
    draw = list(state.draw_pile)
    # Keep the cards conserved: the replaced 0 and 1 go back into the draw pile.
    draw.remove(11)
    draw.remove(11)
    draw += [state.cells[24 + 9], state.cells[24 + 10]]  # type: ignore[list-item]
    mask = state.face_down & ~((1 << (24 + 9)) | (1 << (24 + 10)))
    tampered = forged(state, cells=tuple(cells), draw_pile=tuple(draw), face_down=mask)
    with pytest.raises(InvalidStateError) as info:
        check_state(tampered)
    assert "triple" in info.value.reason and info.value.path.startswith("$.")
    assert rejected(state_to_dict(tampered)).path == info.value.path


# --------------------------------------------------------- hand-built states


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.floats(allow_nan=True),
    st.integers(-(2**70), 2**70),
    st.text(max_size=5),
    st.lists(st.integers(-3, 3), max_size=3).map(tuple),
    st.from_type(object),
)


@given(st.sampled_from([f.name for f in attrs.fields(GameState) if f.init]), JUNK)
def test_check_state_names_a_field_of_a_wrong_type(field: str, value: Any) -> None:
    state = play(preset("seeds@1"), 3, seed=7, steps=25)
    try:
        bad = attrs.evolve(state, **{field: value})
    except ValueError:
        return
    try:
        check_state(bad)
    except InvalidStateError as error:
        where = error.path
    else:
        # Whatever check_state accepts is a state the loader accepts too.
        assert state_to_json(state_from_json(state_to_json(bad))) == state_to_json(bad)
        return
    assert where.startswith("$"), where


def test_check_state_bounds_the_numbers_the_loader_bounds() -> None:
    # Found by a thorough run with another seed: check_state accepted a setup sum no two
    # cards make, and an earlier round's score no zone can reach, which the loader refuses.
    state = play(preset("seeds@1"), 3, seed=7, steps=25)
    third = next(s for s in game_states(preset("seeds@1"), 3, seed=2) if s.round == 3)
    first, second = third.round_scores
    # Beyond any round's score (a whole zone of 12s, doubled: 360), within a total's.
    far = (400, *first[1:])
    cases = [
        (forged(state, setup_sums=(0, 0, 23)), "$.setup_sums[2]"),
        (forged(state, setup_sums=(-23, 0, 0)), "$.setup_sums[0]"),
        (
            forged(
                third,
                round_scores=(far, second),
                totals=tuple(a + b for a, b in zip(far, second, strict=True)),
            ),
            "$.round_scores[0][0]",
        ),
    ]
    for bad, where in cases:
        with pytest.raises(InvalidStateError) as info:
            check_state(bad)
        assert info.value.path == where
        with pytest.raises(SaveFormatError):
            state_from_json(state_to_json(bad))
    for good in (state, third):  # the states the cases were made from are valid
        check_state(good)


def test_check_state_rejects_what_is_not_a_state() -> None:
    for thing in (None, 3, "state", object(), preset("seeds")):
        with pytest.raises(InvalidStateError, match="expected a GameState"):
            check_state(thing)


# ------------------------------------------------------------------- closure


def _swap_hidden(data: dict[str, Any], rng: random.Random) -> None:
    hidden = [i for i, down in enumerate(data["face_down"]) if down]
    if hidden and data["draw_pile"]:
        i = rng.choice(hidden)
        j = rng.randrange(len(data["draw_pile"]))
        data["cells"][i], data["draw_pile"][j] = data["draw_pile"][j], data["cells"][i]


def _turn_up(data: dict[str, Any], rng: random.Random) -> None:
    hidden = [i for i, down in enumerate(data["face_down"]) if down]
    if hidden:
        data["face_down"][rng.choice(hidden)] = False


def _turn_down(data: dict[str, Any], rng: random.Random) -> None:
    up = [i for i, v in enumerate(data["cells"]) if v is not None and not data["face_down"][i]]
    if up:
        data["face_down"][rng.choice(up)] = True


def _nudge(key: str) -> Callable[[dict[str, Any], random.Random], None]:
    def change(data: dict[str, Any], rng: random.Random) -> None:
        if isinstance(data[key], int) and not isinstance(data[key], bool):
            data[key] += rng.choice((-1, 1))

    return change


def _draw_to_discard(data: dict[str, Any], rng: random.Random) -> None:
    if data["draw_pile"]:
        data["discard_pile"].append(data["draw_pile"].pop(0))


def _discard_to_draw(data: dict[str, Any], rng: random.Random) -> None:
    if len(data["discard_pile"]) > 1:
        data["draw_pile"].insert(0, data["discard_pile"].pop(0))


def _shuffle_discard(data: dict[str, Any], rng: random.Random) -> None:
    rng.shuffle(data["discard_pile"])


def _seat(key: str) -> Callable[[dict[str, Any], random.Random], None]:
    def change(data: dict[str, Any], rng: random.Random) -> None:
        data[key] = rng.randrange(data["num_players"])

    return change


def _setup_sum(data: dict[str, Any], rng: random.Random) -> None:
    seat = rng.randrange(data["num_players"])
    data["setup_sums"][seat] += rng.choice((-2, -1, 1, 2))


def _knockers(data: dict[str, Any], rng: random.Random) -> None:
    n = data["num_players"]
    data["knockers"] = sorted(rng.sample(range(n), rng.randrange(n)))


def _seed(data: dict[str, Any], rng: random.Random) -> None:
    data["seed"] = rng.getrandbits(64)


MUTATIONS: dict[str, Callable[[dict[str, Any], random.Random], None]] = {
    "swap a hidden card": _swap_hidden,
    "turn a card up": _turn_up,
    "turn a card down": _turn_down,
    "turns played": _nudge("turns_played"),
    "refills": _nudge("refills"),
    "setup reveals": _nudge("setup_reveals"),
    "draw to discard": _draw_to_discard,
    "discard to draw": _discard_to_draw,
    "shuffle the discard pile": _shuffle_discard,
    "current player": _seat("current_player"),
    "drawer": _seat("drawer"),
    "ender": _seat("ender"),
    "start seat": _seat("start_seat"),
    "setup sum": _setup_sum,
    "knockers": _knockers,
    "seed": _seed,
}


@st.composite
def loadable_states(draw: st.DrawFn) -> tuple[GameState, str]:
    """A played state, or a small mutation of one that the loader still accepts."""
    name = draw(st.sampled_from(sorted(CONFIGS)))
    config = CONFIGS[name]
    n = players_for(config, draw(st.integers(2, 6)))
    seed = draw(st.integers(0, 2**32))
    steps = draw(st.integers(0, 300))
    state = play(config, n, seed=seed, steps=steps)
    mutation = draw(st.sampled_from(["none", *MUTATIONS]))
    if mutation == "none":
        return state, mutation
    data = doc(state)
    rng = random.Random(draw(st.integers(0, 2**32)))
    for _ in range(draw(st.integers(1, 3))):
        MUTATIONS[mutation](data, rng)
    try:
        return state_from_dict(copy.deepcopy(data)), mutation
    except SaveFormatError:
        assume(False)
        raise AssertionError("unreachable") from None


@given(loadable_states(), st.integers(0, 2**32), st.integers(1, 120))
def test_the_engine_only_produces_states_its_loader_accepts(
    start: tuple[GameState, str], picks: int, steps: int
) -> None:
    state, mutation = start
    rng = random.Random(picks)
    for step in range(steps):
        if state.is_terminal:
            break
        state = apply(state, choose(rng, legal_actions(state)))
        text = state_to_json(state)
        try:
            again = state_from_json(text)
        except SaveFormatError as error:
            raise AssertionError(
                f"after a {mutation!r} mutation and {step + 1} action(s) the engine made a "
                f"state its loader rejects: {error}"
            ) from None
        assert again == state
        assert state_to_json(again) == text


def test_the_closure_check_catches_a_state_the_loader_should_have_refused() -> None:
    # The converse of the closure: from a state that skipped the checks (a face-up
    # triple the engine never settled), play goes on and produces a state that its
    # own loader rejects. This is what the closure test would report.
    fives = [[5, 1, 2, 3], [5, 4, 6, 7], [5, 8, 9, 10]]
    state = setup_reveals(game(2, {0: fives, 1: G1}, discard=4))
    bad = forged(state, face_down=state.face_down & ~0b100010001)
    with pytest.raises(InvalidStateError, match="triple"):
        check_state(bad)
    after = apply(apply(apply(bad, DrawDeck()), Pass()), Discard())
    after = apply(after, legal_actions(after)[-1])
    assert after.phase is Phase.DRAW
    with pytest.raises(SaveFormatError, match="triple"):
        state_from_json(state_to_json(after))
