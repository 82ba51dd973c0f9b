"""Random game states for the saved-game, view, record, encoding and determinize tests.

Random play is biased towards knocks and gives, so that knock exchanges (and their
face-down cards) show up often; a few extra configs cover the options that change
which fields a state uses.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hypothesis import strategies as st

from allegra_rules import (
    Action,
    GameState,
    Give,
    Knock,
    RuleConfig,
    apply,
    legal_actions,
    new_game,
    preset,
    preset_ids,
)
from allegra_rules.config import OPTION_CHOICES

SMALL_DECK = RuleConfig(deck=dict.fromkeys(range(10), 3), max_players=2)
"""30 cards for 2 players: the draw pile runs out (and is refilled) early."""

CONFIGS: dict[str, RuleConfig] = {
    **{pid: preset(pid) for pid in preset_ids()},
    "exotic": RuleConfig(
        first_player="highest_reveal",
        knock_winner="first_clockwise",
        take_given_card="forbidden",
        take_area="own",
        swap_area="own",
        reveal_area="own",
        row_match="adjacent",
        round_end="zone",
        ender_tie="doubled",
    ),
    "short": RuleConfig(
        max_turns_per_round=12, removed_cards="discard", discard_draw="may_discard"
    ),
    "small_deck": SMALL_DECK,
    # Options added in 0.2.0 (their documents are schema version 2).
    "simultaneous": RuleConfig(setup_reveals="simultaneous", first_player="highest_reveal"),
    "scoring_removed": RuleConfig(
        scoring_triples="removed", removed_cards="discard", row_match="adjacent"
    ),
}


def choose(rng: random.Random, legal: tuple[Action, ...]) -> Action:
    """A random legal action, preferring knocks, gives and face-down takes."""
    gives = [a for a in legal if isinstance(a, Give)]
    if gives and rng.random() < 0.5:
        return rng.choice(gives)
    if any(isinstance(a, Knock) for a in legal) and rng.random() < 0.6:
        return next(a for a in legal if isinstance(a, Knock))
    return rng.choice(legal)


def players_for(config: RuleConfig, wanted: int) -> int:
    """``wanted`` seats, capped by what the config can deal."""
    return max(config.min_players, min(wanted, config.most_players()))


def game_states(config: RuleConfig, num_players: int, seed: int) -> Iterator[GameState]:
    """Every state of one biased random game, first to last."""
    rng = random.Random(seed)
    state = new_game(num_players, config=config, seed=seed)
    yield state
    while not state.is_terminal:
        state = apply(state, choose(rng, legal_actions(state)))
        yield state


def play(config: RuleConfig, num_players: int, seed: int, steps: int) -> GameState:
    """The state after ``steps`` biased random actions (or the end of the game)."""
    for done, state in enumerate(game_states(config, num_players, seed)):
        if done >= steps:
            return state
    return state


@st.composite
def states(draw: st.DrawFn, most_steps: int = 400) -> GameState:
    """A state somewhere in a random game of a random config and seat count.

    The game is played into a random round, then up to ``most_steps`` more actions
    (a uniformly drawn count, so that Hypothesis does not favour the deal).
    """
    name = draw(st.sampled_from(sorted(CONFIGS)))
    config = CONFIGS[name]
    n = players_for(config, draw(st.integers(2, 6)))
    seed = draw(st.integers(0, 2**32))
    target_round = draw(st.integers(1, 3))
    extra = draw(
        st.one_of(
            st.integers(0, 12),
            st.integers(0, 2**32).map(lambda k: random.Random(k).randrange(most_steps + 1)),
        )
    )
    state = None
    for state in game_states(config, n, seed):
        if state.round >= target_round:
            if extra == 0:
                break
            extra -= 1
    assert state is not None
    return state


def exchange_states(seed: int, num_players: int = 3) -> list[GameState]:
    """Every state of a game that is in a knock exchange after a face-down take."""
    return [
        s
        for s in game_states(preset("seeds"), num_players, seed)
        if s.held_was_face_down or s.hand_was_face_down
    ]


@st.composite
def small_decks(draw: st.DrawFn, n: int) -> dict[int, int]:
    """A deck of 2 to 4 values, just big enough for ``n`` seats (or a little more)."""
    values = draw(st.lists(st.integers(-1, 11), min_size=2, max_size=4, unique=True))
    total = 12 * n + 2 + draw(st.integers(0, 24))
    k = len(values)
    return {v: total // k + (i < total % k) for i, v in enumerate(values)}


@st.composite
def tables(draw: st.DrawFn, *, small_cap: bool = False) -> tuple[RuleConfig, int, int]:
    """``(config, seats, seed)``: every option value, sometimes a small cap or deck."""
    n = draw(st.integers(2, 6))
    options: dict[str, Any] = {
        name: draw(st.sampled_from(values)) for name, values in OPTION_CHOICES.items()
    }
    if small_cap:
        options["max_turns_per_round"] = draw(st.one_of(st.integers(1, 40), st.just(500)))
    else:
        options["max_turns_per_round"] = draw(st.sampled_from([500, 500, 1, 2, 3, 5, 8, 13]))
    if draw(st.booleans()):
        options["deck"] = draw(small_decks(n))
    seed = draw(st.integers(0, 2**63))
    return RuleConfig(**options), n, seed
