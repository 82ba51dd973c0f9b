"""The observation encoder (core library only: runs without any extra)."""

import random

import attrs
import pytest

from allegra_rules import RuleConfig, apply, legal_actions, new_game, observe, preset
from allegra_rules.adapters.features import Encoder, round_score_bounds, total_bounds


def random_states(players, config, seed, every=1):
    rng = random.Random(seed)
    state = new_game(players, config=config, seed=seed)
    out = [state]
    while not state.is_terminal:
        state = apply(state, rng.choice(legal_actions(state)))
        out.append(state)
    return out[::every]


@pytest.mark.parametrize(
    ("players", "config"),
    [
        (2, RuleConfig(max_turns_per_round=30)),
        (5, attrs.evolve(preset("fr"), max_turns_per_round=20)),
    ],
)
def test_vectors_are_in_unit_range_and_public_part_is_shared(players, config):
    enc = Encoder(config, players)
    for state in random_states(players, config, 3, every=7):
        views = [observe(state, p) for p in range(players)]
        for view in views:
            vec = enc.features(view)
            assert len(vec) == enc.size
            assert all(0.0 <= x <= 1.0 for x in vec)
        for origin in range(players):
            publics = {tuple(enc.public(v, origin)) for v in views}
            assert len(publics) == 1


def test_seats_are_relative_to_the_viewer():
    state = new_game(3, seed=4)
    enc = Encoder(RuleConfig(), 3)
    for seat in range(3):
        vec = enc.public(observe(state, seat), seat)
        rotated = enc.public(observe(state, 0), seat)
        assert vec == rotated
    # Seat 0 acts first: at origin 0 the current-player one-hot is at place 0, at
    # origin 1 it is at place 2 (seat 0 is seat 1's right neighbour).
    assert enc.public(observe(state, 0), 0) != enc.public(observe(state, 1), 1)


def changed(view, **fields):
    return attrs.evolve(view, **fields)


def test_every_public_fact_changes_the_vector():
    states = random_states(3, RuleConfig(max_turns_per_round=40), 8)
    mid = next(s for s in states if len(s.discard_pile) >= 3 and s.phase.value == "draw")
    view = observe(mid, 0)
    enc = Encoder(RuleConfig(max_turns_per_round=40), 3)
    base = enc.features(view)
    pile = view.discard_pile
    variants = {
        # The pile below its top counts by value (its order can never matter: a draw
        # from the pile is always covered at once, a refill shuffles it).
        "below the top": changed(view, discard_pile=((pile[0] + 1) % 11, *pile[1:])),
        "ender": changed(view, ender=2),
        "final turns": changed(view, final_turns=(2,)),
        "out of play": changed(view, out_of_play=(5, 5, 5)),
        "draw pile known": changed(view, draw_pile_cards=(1,) * view.draw_pile_size, refills=1),
        "knock gap": changed(view, taken_at=5),
        "given at": changed(view, given_at=7),
        "knockers": changed(view, knockers=(1,)),
        "totals": changed(view, totals=(10, 0, 0)),
    }
    for name, other in variants.items():
        assert enc.features(other) != base, name


def test_score_bounds_hold_for_random_games():
    config = RuleConfig(max_turns_per_round=20, double_nonpositive="yes")
    lo, hi = round_score_bounds(config)
    tlo, thi = total_bounds(config)
    for seed in range(3):
        final = random_states(3, config, seed)[-1]
        assert all(lo <= s <= hi for scores in final.round_scores for s in scores)
        assert all(tlo <= t <= thi for t in final.totals)


def test_bad_arguments():
    with pytest.raises(ValueError, match="config"):
        Encoder("seeds", 2)
    with pytest.raises(ValueError, match="num_players"):
        Encoder(RuleConfig(), 1)
    enc = Encoder(RuleConfig(), 2)
    with pytest.raises(ValueError, match="origin"):
        enc.public(observe(new_game(2), 0), 2)
    with pytest.raises(ValueError, match="seats"):
        enc.public(observe(new_game(3), 0), 0)
