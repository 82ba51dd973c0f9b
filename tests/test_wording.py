"""allegra_rules.wording: one wording of every action, in every language.

The options of the menu and the page, the narration of a move (full sentence and the
clause of a one-line turn), what settling a move did and what became of a card knocked
for all come from one table of templates per language.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Iterator
from itertools import pairwise

import pytest

from allegra_rules import (
    Action,
    GameState,
    Pass,
    Pos,
    Reveal,
    apply,
    legal_actions,
    new_game,
    observe,
    preset,
)
from allegra_rules.cli import _common
from allegra_rules.cli._play import option_text
from allegra_rules.determinize import determinize
from allegra_rules.render import describe_action, describe_outcome
from allegra_rules.wording import (
    _WORDS,
    LANGUAGES,
    action_text,
    action_texts,
    card_text,
    cell_text,
    fate,
    narrate,
    narrate_brief,
    outcome,
    outcome_brief,
    seat_name,
)
from random_games import CONFIGS, game_states, players_for


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
    assert action_text(state, Reveal(Pos(0, 1, 2)), 0) == "Reveal the card at row 2, column 3."
    assert cell_text(Pos(1, 0, 3), 0, "fr") == "ligne 1, colonne 4 chez Joueur 2"
    with pytest.raises(ValueError, match="lang"):
        action_text(state, Reveal(Pos(0, 1, 2)), 0, lang="xx")
    with pytest.raises(ValueError, match="seat to act"):
        action_text(state, Reveal(Pos(1, 1, 2)), 1)


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def test_every_language_has_every_template_with_the_same_placeholders() -> None:
    assert set(_WORDS) == set(LANGUAGES)
    english = _WORDS["en"]
    for lang in LANGUAGES:
        words = _WORDS[lang]
        assert list(words) == list(english), lang  # same keys, in the same order
        for key, template in words.items():
            assert _fields(template) == _fields(english[key]), (lang, key, template)
            # Only a piece that continues a sentence starts with a space.
            assert template.rstrip() == template, (lang, key)
            assert template.lstrip() == template or "then" in key or key == "n_seen", (lang, key)
    # The templates of the reader's own seat ("_you") pair with a third-person one.
    assert all(key.removesuffix("_you") in english for key in english)


def _positions() -> Iterator[tuple[str, GameState]]:
    """Positions of seeded random games under every kind of config, a few per game."""
    for name, config in CONFIGS.items():
        for seed in range(2):
            n = players_for(config, 3 + seed)
            states = [s for s in game_states(config, n, seed) if not s.is_terminal]
            yield from ((name, s) for s in states[seed :: max(1, len(states) // 16)])


def _everything(state: GameState, action: Action, viewer: int | None, lang: str) -> tuple[str, ...]:
    """Every sentence and clause worded about ``action`` for ``viewer``."""
    after = apply(state, action)
    return (
        narrate(state, action, viewer=viewer, lang=lang),
        narrate_brief(state, action, viewer=viewer, lang=lang),
        *outcome(state, action, after, lang=lang),
        *outcome_brief(state, action, after, viewer=viewer, lang=lang),
        *fate(state, action, lang=lang),
        *fate(state, action, plain=True, lang=lang),
    )


def test_every_action_is_narrated_in_every_language_and_english_is_the_terminals() -> None:
    kinds: set[str] = set()
    for _, state in _positions():
        n = state.num_players
        for action in legal_actions(state):
            after = apply(state, action)
            kinds.add(type(action).__name__)
            for viewer in (None, *range(n)):
                # The terminal's narration is the English wording, word for word.
                assert narrate(state, action, viewer=viewer) == describe_action(
                    state, action, viewer=viewer
                )
                # The one-line turn: the action's clause (none for a pass), then settling's.
                told = (
                    []
                    if isinstance(action, Pass)
                    else [narrate_brief(state, action, viewer=viewer)]
                )
                told += outcome_brief(state, action, after, viewer=viewer)
                assert _common._brief(state, action, after, viewer) == told
                for lang in LANGUAGES:
                    for text in _everything(state, action, viewer, lang):
                        assert text and "{" not in text and "None" not in text, (lang, text)
            assert outcome(state, action, after) == describe_outcome(state, action, after)
            assert list(fate(state, action)) == _common._fate(state, action)
    assert kinds >= {"Reveal", "DrawDeck", "DrawDiscard", "Knock", "Pass", "Give", "Take"}
    assert kinds >= {"Swap", "Discard"}


def test_no_language_names_a_card_the_reader_cannot_see() -> None:
    """A twin that differs only in cards ``viewer`` cannot see gets the same words.

    The twin is sampled with ``determinize`` from the viewer's view (for a spectator,
    from the public view). An action that shows a card (a draw, a reveal) may name it:
    such actions are compared only where the twin shows the viewer the same thing.
    """
    rng = random.Random(5)
    compared = 0
    hidden = 0
    for _, state in _positions():
        for viewer in (None, *range(state.num_players)):
            twin = determinize(observe(state, viewer), rng)
            if twin.cells != state.cells or twin.draw_pile != state.draw_pile:
                hidden += 1
            twin_legal = set(legal_actions(twin))
            for action in legal_actions(state):
                if action not in twin_legal:
                    continue
                if observe(apply(state, action), viewer) != observe(apply(twin, action), viewer):
                    continue
                for lang in LANGUAGES:
                    mine = _everything(state, action, viewer, lang)
                    assert mine == _everything(twin, action, viewer, lang), (lang, action, viewer)
                compared += 1
    assert compared > 1000 and hidden > 100


def test_seat_names_are_what_people_say() -> None:
    bots = [None, "greedy", "search-hard", "policy", "search", None]
    names = ["Ada", None, None, None, None, "  "]
    said = [seat_name(s, 0, bots=bots, names=names) for s in range(6)]
    assert said == ["You", "Greedy bot", "Search bot 3", "Learned bot", "Search bot 5", "Player 6"]
    assert seat_name(0, None, names=names) == "Ada"
    assert seat_name(1, None, bots={1: "random"}, lang="pl") == "Bot losowy"
    assert [seat_name(1, 0, lang=lang) for lang in LANGUAGES] == [
        "Player 2",
        "Spieler 2",
        "Gracz 2",
        "Joueur 2",
    ]
    assert [seat_name(3, 3, lang=lang) for lang in LANGUAGES] == ["You", "Du", "Ty", "Vous"]
    assert seat_name(1, 0, bots=[None, "greedy"], lang="de") == "Gier-Bot"
    assert seat_name(1, 0, bots=[None, "policy"], lang="fr") == "Bot entraîné"
    with pytest.raises(ValueError, match="lang"):
        seat_name(0, 0, lang="xx")
    with pytest.raises(ValueError, match="seat"):
        seat_name(-1, 0)


def test_cells_are_said_from_one_as_players_say_them() -> None:
    assert [cell_text(Pos(0, r, c), 0) for r, c in ((0, 0), (2, 3))] == [
        "row 1, column 1",
        "row 3, column 4",
    ]
    assert cell_text(Pos(1, 1, 3), 0) == "Player 2's row 2, column 4"
    assert cell_text(Pos(1, 1, 3), None, names=["You", "Greedy bot"]) == (
        "Greedy bot's row 2, column 4"
    )
    assert [cell_text(Pos(2, 1, 3), 2, lang) for lang in LANGUAGES] == [
        "row 2, column 4",
        "Reihe 2, Spalte 4",
        "w rzędzie 2, kolumnie 4",
        "ligne 2, colonne 4",
    ]


def test_the_narration_translates_and_checks_its_arguments() -> None:
    state = new_game(2, seed=1)
    reveal = Reveal(Pos(0, 1, 2))
    assert [narrate(state, reveal, lang=lang) for lang in LANGUAGES] == [
        "Player 1 reveals a 2 at row 2, column 3.",
        "Spieler 1 deckt eine 2 in Reihe 2, Spalte 3 auf.",
        "Gracz 1 odkrywa 2 na polu w rzędzie 2, kolumnie 3.",
        "Joueur 1 révèle un 2 en ligne 2, colonne 3.",
    ]
    assert narrate(state, reveal, viewer=0, lang="fr") == "Vous révélez un 2 en ligne 2, colonne 3."
    assert narrate(state, reveal, viewer=1, names=["Ada", "You"]) == (
        "Ada reveals a 2 at row 2, column 3."
    )
    assert (
        narrate_brief(state, reveal, viewer=0, lang="de")
        == "du deckst eine 2 in Reihe 2, Spalte 3 auf"
    )
    assert [card_text(v) for v in (7, 8, 11, 18)] == ["a 7", "an 8", "an 11", "an 18"]
    assert card_text(8, lang="pl") == "8"
    for call in (
        lambda: narrate(state, reveal, lang="xx"),
        lambda: narrate_brief(state, reveal, lang="EN"),
        lambda: outcome(state, reveal, apply(state, reveal), lang=""),
        lambda: outcome_brief(state, reveal, apply(state, reveal), lang="de_DE"),
        lambda: fate(state, reveal, lang="english"),
        lambda: card_text(3, lang="xx"),
    ):
        with pytest.raises(ValueError, match="lang must be one of en, de, pl, fr"):
            call()
    with pytest.raises(ValueError, match="viewer"):
        narrate(state, reveal, viewer=2)
    with pytest.raises(ValueError, match="viewer"):
        narrate_brief(state, reveal, viewer=True)


def test_every_outcome_is_worded_in_every_language() -> None:
    told: set[str] = set()
    for config in CONFIGS.values():
        n = players_for(config, 3)
        states = list(game_states(config, n, 0))
        for state, after in pairwise(states):
            action = next(a for a in legal_actions(state) if apply(state, a) == after)
            english = outcome(state, action, after)
            told.update(" ".join(sentence.split()[:2]) for sentence in english)
            for lang in LANGUAGES:
                sentences = outcome(state, action, after, lang=lang)
                assert len(sentences) == len(english)
                for viewer in (None, 0):
                    clauses = outcome_brief(state, action, after, viewer=viewer, lang=lang)
                    assert len(clauses) == len(outcome_brief(state, action, after, viewer=viewer))
                    sentences += clauses
                assert all(s and "{" not in s and "None" not in s for s in sentences), sentences
    assert {"Every named", "Triple: three", "The round", "The draw"} <= told
    assert any(text.startswith("Player ") for text in told)


def test_a_swap_is_one_sentence_on_every_surface() -> None:
    """The swap of a drawn card, of the discard pile's card and of a taken card: one verb.

    The full narration (the server page's log, the terminal's narration) is the clause of
    the one-line turn (the terminal's summary and last turns) as a sentence, whatever pile
    the card came from, for the actor and for everyone else, in every language.
    """
    from allegra_rules.actions import DrawDeck, DrawDiscard, Swap
    from allegra_rules.state import Phase

    seen: set[Phase] = set()
    for _, state in _positions():
        swaps = [a for a in legal_actions(state) if isinstance(a, Swap)]
        if not swaps or state.phase is Phase.KNOCKER_SWAP:
            continue
        actor = state.current_player
        assert actor is not None
        other = (actor + 1) % state.num_players
        for lang in LANGUAGES:
            for viewer in (actor, other, None):
                sentence = narrate(state, swaps[0], viewer=viewer, lang=lang)
                clause = narrate_brief(state, swaps[0], viewer=viewer, lang=lang)
                if state.phase is Phase.HOLD_TAKEN and viewer != actor:
                    clause = clause.partition(";")[0].strip()  # the fill is worded apart
                    sentence = sentence.partition(";")[0].strip() + "."
                assert sentence == clause[:1].upper() + clause[1:] + ".", (lang, sentence)
        seen.add(state.phase)
    assert {Phase.HOLD_DECK, Phase.HOLD_DISCARD} <= seen
    # The same swap of a card from the draw pile or from the discard pile: the same words
    # (before, "keeps" one and "puts" the other), the held card aside.
    state = next(s for _, s in _positions() if s.phase is Phase.DRAW and s.discard_top is not None)
    deck, pile = apply(state, DrawDeck()), apply(state, DrawDiscard())
    while deck.phase is Phase.KNOCK:
        deck = apply(deck, Pass())
    swap = next(a for a in legal_actions(pile) if isinstance(a, Swap))
    assert swap in legal_actions(deck)
    you = deck.current_player
    for lang in LANGUAGES:
        for tell in (narrate, narrate_brief):
            said = [
                re.sub(
                    rf"(?<![\d-]){held.held}(?!\d)",
                    "X",
                    tell(held, swap, viewer=you, lang=lang),
                    count=1,
                )
                for held in (deck, pile)
            ]
            assert said[0] == said[1], (lang, said)
