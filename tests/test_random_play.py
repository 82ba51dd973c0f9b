"""Random play always ends, conserves the cards at every step, and scores consistently.

Plays ``GAMES_PER_CASE`` seeded random games for every preset and every seat count
from 2 to 6: 150 games in the default run, 2,000 in the thorough run
(``python -m pytest --thorough``); ``ALLEGRA_RANDOM_GAMES`` sets the count per case.
"""

from __future__ import annotations

import os
import random

import pytest

from allegra_rules import ROUNDS, GameState, Phase, apply, legal_actions, new_game, preset
from allegra_rules.presets import preset_names
from allegra_rules.scoring import zone_sums
from allegra_rules.triples import find_triples
from helpers import thorough_run

SETTLED = (Phase.SETUP, Phase.DRAW)
GAMES_PER_CASE = int(os.environ.get("ALLEGRA_RANDOM_GAMES", "80" if thorough_run() else "6"))


def cards_in_play(state: GameState) -> list[int]:
    cards = [v for v in state.cells if v is not None]
    cards += state.draw_pile
    cards += state.discard_pile
    cards += state.out_of_play
    cards += [card for _, card in state.in_hand]
    if state.held is not None:
        cards.append(state.held)
    cards.sort()
    return cards


@pytest.mark.rule("R2.2", "R10.4", "R14.1", "R15.1", "R15.3", "R16.2")
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("preset_name", preset_names())
def test_random_games_end_conserve_cards_and_add_up(preset_name: str, num_players: int) -> None:
    config = preset(preset_name)
    deck = list(config.deck_cards())
    cap = config.max_turns_per_round
    for game in range(GAMES_PER_CASE):
        seed = game * 7919 + num_players
        rng = random.Random(seed)
        state = new_game(num_players, config=config, seed=seed)
        rounds_seen = 1
        steps = 0
        while not state.is_terminal:
            legal = legal_actions(state)
            assert legal, "a non-terminal state must have a legal action"
            before_round = state.round
            state = apply(state, rng.choice(legal))
            steps += 1
            assert cards_in_play(state) == deck, (seed, steps)
            if state.phase in SETTLED:
                # After settling, no line anywhere on the table holds a triple.
                lines = state.geometry.lines
                assert not find_triples(config, state.cells, state.face_down, lines)
            assert state.turns_played <= cap
            if state.round != before_round:
                rounds_seen += 1
                assert state.last_round is not None
                assert state.last_round.zone_sums == zone_sums(
                    state.geometry, state.last_round.cells
                )
            assert steps < 3 * cap * num_players * 12, "a game must end within its caps"
        assert legal_actions(state) == ()
        assert state.current_player is None
        assert rounds_seen == state.round == ROUNDS
        assert len(state.round_scores) == ROUNDS
        assert all(len(scores) == num_players for scores in state.round_scores)
        assert state.totals == tuple(map(sum, zip(*state.round_scores, strict=True)))
        best = min(state.totals)
        assert state.winners == tuple(p for p, t in enumerate(state.totals) if t == best)
