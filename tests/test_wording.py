"""allegra_rules.wording: one wording of every action, the menu's and the page's."""

from __future__ import annotations

import pytest

from allegra_rules import Pos, Reveal, legal_actions, new_game, preset
from allegra_rules.cli._play import option_text
from allegra_rules.wording import LANGUAGES, action_text, action_texts, cell_text
from random_games import game_states


def test_every_action_is_worded_in_every_language() -> None:
    kinds: set[str] = set()
    for seed in range(3):
        for state in list(game_states(preset("seeds"), 3, seed))[::2]:
            if state.is_terminal:
                continue
            seat = state.current_player
            assert seat is not None
            texts = {lang: action_texts(state, seat, lang=lang) for lang in LANGUAGES}
            for k, action in enumerate(legal_actions(state)):
                kinds.add(type(action).__name__)
                # The terminal menu's words are the English ones.
                assert texts["en"][k] == option_text(state, action, seat)
                for lang in LANGUAGES:
                    text = texts[lang][k]
                    assert text == action_text(state, action, seat, lang=lang)
                    assert text.endswith(".") and "{" not in text and "None" not in text
            assert all(action_texts(state, p) == () for p in range(3) if p != seat)
    assert kinds >= {"Reveal", "DrawDeck", "DrawDiscard", "Knock", "Pass", "Swap", "Discard"}


def test_wording_names_no_hidden_card_and_checks_its_arguments() -> None:
    state = new_game(2, seed=1)
    assert action_text(state, Reveal(Pos(0, 1, 2)), 0) == "Reveal the card at (1, 2)."
    assert cell_text(Pos(1, 0, 3), 0, "fr") == "(0, 3) de la place 1"
    with pytest.raises(ValueError, match="lang"):
        action_text(state, Reveal(Pos(0, 1, 2)), 0, lang="xx")
    with pytest.raises(ValueError, match="seat to act"):
        action_text(state, Reveal(Pos(1, 1, 2)), 1)
