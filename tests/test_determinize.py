"""determinize: full states consistent with a player's view, hidden cards resampled."""

from __future__ import annotations

import random
from collections import Counter

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from allegra_rules import (
    GameState,
    PlayerView,
    apply,
    determinize,
    legal_actions,
    observe,
    preset,
    state_from_json,
)
from random_games import SMALL_DECK, exchange_states, game_states, play, states


def hidden_cards(state: GameState, seat: int) -> Counter[int]:
    """The cards in places ``seat`` cannot see (the draw pile unless it is public)."""
    found: Counter[int] = Counter(
        v for i, v in enumerate(state.cells) if (state.face_down >> i) & 1 and v is not None
    )
    if state.refills == 0:
        found.update(state.draw_pile)
    if state.held is not None and state.held_was_face_down and seat != state.drawer:
        found[state.held] += 1
    if state.in_hand and state.hand_was_face_down and state.in_hand[0][0] != seat:
        found[state.in_hand[0][1]] += 1
    return found


@given(states(), st.integers(0, 5), st.integers(0, 2**32))
def test_a_determinization_is_consistent_with_the_view(
    state: GameState, seat: int, seed: int
) -> None:
    seat %= state.num_players
    view = observe(state, seat)
    sample = determinize(view, random.Random(seed))
    assert observe(sample, seat) == view
    # Cards are conserved, and the result is a valid saved game.
    assert sample.all_cards() == Counter(dict(state.config.deck))
    assert state_from_json(sample.to_json()) == sample
    # The hidden places hold exactly the cards the seat has not seen.
    assert hidden_cards(sample, seat) == hidden_cards(state, seat)
    assert sorted(hidden_cards(state, seat).elements()) == list(view.unseen_cards())
    if state.refills:
        assert sorted(sample.draw_pile) == sorted(state.draw_pile)


@given(states(), st.integers(0, 5))
def test_determinizations_differ_across_seeds(state: GameState, seat: int) -> None:
    seat %= state.num_players
    view = observe(state, seat)
    hidden = hidden_cards(state, seat)
    samples = {
        (s.cells, s.draw_pile, s.held, s.in_hand)
        for s in (determinize(view, random.Random(k)) for k in range(6))
    }
    if len(hidden) >= 2 and hidden.total() >= 8:
        assert len(samples) > 1
    if hidden.total() == 0:
        # Nothing is hidden but, after a refill, the draw pile's order.
        assert len({(cells, held, hand) for cells, _, held, hand in samples}) == 1


def test_same_rng_state_gives_the_same_sample() -> None:
    state = play(preset("seeds"), 4, seed=2, steps=30)
    view = observe(state, 2)
    a = determinize(view, random.Random(99))
    b = determinize(view, random.Random(99))
    assert a == b and a.seed == b.seed
    assert determinize(view, random.Random(100)) != a


def test_samples_spread_over_the_unseen_cards() -> None:
    state = play(preset("seeds"), 3, seed=8, steps=10)
    view = observe(state, 0)
    cell = view.face_down.index(True)
    unseen = Counter(view.unseen_cards())
    counts = Counter(determinize(view, random.Random(k)).cells[cell] for k in range(600))
    assert set(counts) == set(unseen)
    total = unseen.total()
    for card, copies in unseen.items():
        expected = 600 * copies / total
        assert expected / 3 < counts[card] < expected * 3, (card, counts[card], expected)


def test_hidden_exchange_cards_are_resampled_for_others_only() -> None:
    rng = random.Random(0)
    seen = 0
    for state in exchange_states(seed=3):
        for seat in range(state.num_players):
            view = observe(state, seat)
            sample = determinize(view, rng)
            assert observe(sample, seat) == view
            if state.held_was_face_down and seat == state.drawer:
                assert sample.held == state.held
            if state.hand_was_face_down and seat == state.in_hand[0][0]:
                assert sample.in_hand == state.in_hand
            seen += 1
    assert seen > 0


def test_a_sample_plays_on_to_the_end() -> None:
    state = play(SMALL_DECK, 2, seed=4, steps=120)
    assert not state.is_terminal
    sample = determinize(observe(state, 1), random.Random(5))
    rng = random.Random(6)
    while not sample.is_terminal:
        sample = apply(sample, rng.choice(legal_actions(sample)))
        assert sample.all_cards() == Counter(dict(SMALL_DECK.deck))
    assert sample.winners


def test_a_finished_game_has_nothing_to_resample_but_the_draw_pile_order() -> None:
    state = list(game_states(preset("seeds"), 2, seed=1))[-1]
    assert state.is_terminal
    view = observe(state, 0)
    sample = determinize(view, random.Random(3))
    assert sample.cells == state.cells
    assert Counter(sample.draw_pile) == Counter(state.draw_pile)
    assert observe(sample, 0) == view


def test_bad_arguments_and_inconsistent_views() -> None:
    view = observe(play(preset("seeds"), 3, seed=1, steps=8), 0)
    with pytest.raises(ValueError, match=r"random\.Random"):
        determinize(view, 5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="PlayerView"):
        determinize("view", random.Random(1))  # type: ignore[arg-type]
    too_many = attrs.evolve(view, discard_pile=view.discard_pile + (11,) * 7)
    with pytest.raises(ValueError, match="deck holds"):
        determinize(too_many, random.Random(1))
    short = attrs.evolve(view, draw_pile_size=view.draw_pile_size - 1)
    with pytest.raises(ValueError, match="unseen"):
        determinize(short, random.Random(1))
    assert isinstance(view, PlayerView)
