"""``allegra-rules play`` writes nothing before a move that the person's seat cannot know.

For random positions of random games at 2 to 6 seats, the person's prompt is fed every
kind of input (a move, ``p ROW COL``, ``r ROW COL ROW COL``, ``l``, ``v``, ``m``, ``h``,
``a``, refused moves, a round-ending move answered "no") twice: once at the real state,
once at a twin that differs only in cards the seat cannot see (sampled with
``determinize`` from the seat's view). The text written, and the move returned, must be
the same.
"""

from __future__ import annotations

import io
import random

import pytest

from allegra_rules import apply, legal_actions, new_game, observe
from allegra_rules.actions import Action, Discard, DrawDiscard, Reveal
from allegra_rules.bots import GreedyBot
from allegra_rules.cli import _play
from allegra_rules.cli._moves import move_text
from allegra_rules.determinize import determinize
from allegra_rules.state import GameState, Phase

END = ["q", "y"]
"""Typed after every script: quit without saving, so that each run stops."""


def _run(state: GameState, you: int, lines: list[str], pauses: bool) -> tuple[str, Action | None]:
    out = io.StringIO()
    inp = io.StringIO("\n".join([*lines, *END]) + "\n")
    session = _play._Session(you, inp, out, echo=True, pauses=pauses, auto_pass=True)
    try:
        action: Action | None = session.choose(state)
    except (_play._Quit, _play.EndOfInput):  # a question may take the "q" as its answer
        action = None
    return out.getvalue(), action


def _inputs(state: GameState, you: int, rng: random.Random) -> list[list[str]]:
    """Every kind of input the person can type at ``state``."""
    legal = legal_actions(state)
    move = rng.choice(legal)
    scripts = [
        [move_text(state, move, you)],
        ["l"],
        ["v"],
        ["m"],
        ["h"],
        ["h moves"],
        ["a"],
        ["a", "a"],
        ["zz"],
        ["k"],
        ["r 5 1"],
        ["s left 2 3"],
        ["g 1"],
        ["99"],
        [str(rng.randint(1, 20))],
    ]
    for action in legal:
        if _play.round_end_warning(state, action, you):
            scripts.append([move_text(state, action, you), "n"])
            scripts.append([move_text(state, action, you), "y"])
            break
    if state.phase is Phase.SETUP:
        cells = [move_text(state, a, you).split(" ", 1)[1] for a in legal]
        scripts.append([f"r {cells[0]} {cells[-1]}"])
        scripts.append([f"r {cells[0]} {cells[0]}"])
    for first in (Discard(), DrawDiscard()):
        if first in legal:
            after = apply(state, first)
            if after.current_player == you:
                for second in legal_actions(after):
                    cell = move_text(after, second, you).split(" ", 1)[-1]
                    scripts.append([f"p {cell}", "n"])
                    scripts.append([f"p {cell}", "y"])
    return scripts


def _positions(players: int, seed: int, you: int, count: int) -> list[GameState]:
    """``count`` random decisions of seat ``you`` in a game of greedy bots."""
    state = new_game(players, seed=seed)
    bots = [GreedyBot(seed * 7 + seat) for seat in range(players)]
    found = []
    while not state.is_terminal:
        if state.current_player == you:
            found.append(state)
        state = apply(state, bots[state.current_player or 0].choose(state))
    rng = random.Random(seed)
    # Where a move of the seat would end the round, the game warns: some of those too.
    ends = [s for s in found if any(_play.round_end_warning(s, a, you) for a in legal_actions(s))]
    return rng.sample(found, min(count, len(found))) + rng.sample(ends, min(3, len(ends)))


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_what_play_writes_before_a_move_depends_only_on_the_seats_view(players: int) -> None:
    rng = random.Random(players)
    compared = differing = warned = 0
    for seed in range(2):
        you = rng.randrange(players)
        for state in _positions(players, 100 * players + seed, you, 4):
            twin = determinize(observe(state, you), random.Random(rng.getrandbits(32)))
            assert observe(twin, you) == observe(state, you)
            differing += twin != state
            for lines in _inputs(state, you, rng):
                pauses = rng.random() < 0.5
                real = _run(state, you, lines, pauses)
                other = _run(twin, you, lines, pauses)
                assert real == other, (lines, state.phase)
                compared += 1
                warned += "Careful: " in real[0]
    assert differing and compared > 100 and warned


def test_the_round_end_preview_names_no_hidden_card() -> None:
    """The issue's position kind: one face-down card left; turning it up ends the round."""
    seen = 0
    for seed in range(40):
        state = new_game(2, seed=seed)
        bots = [GreedyBot(seed), GreedyBot(seed + 1)]
        while not state.is_terminal and seen < 8:
            you = state.current_player
            assert you is not None
            if state.phase is Phase.FLIP or state.phase is Phase.HOLD_DECK:
                for action in legal_actions(state):
                    warning = _play.round_end_warning(state, action, you)
                    if warning and isinstance(action, (Reveal, Discard)):
                        text = " ".join(warning)
                        assert "plus the card you turn up" in text, text
                        seen += 1
                        break
            state = apply(state, bots[you].choose(state))
    assert seen >= 4


def test_a_shortcut_that_ends_the_round_asks_before_anything_is_played() -> None:
    """``p ROW COL`` whose turn-up ends the round: the question comes first; "n" plays nothing."""
    asked = 0
    for seed in range(60):
        state = new_game(2, seed=seed)
        bots = [GreedyBot(seed), GreedyBot(seed + 1)]
        while not state.is_terminal and asked < 3:
            you = state.current_player
            assert you is not None
            if state.phase is Phase.HOLD_DECK and Discard() in legal_actions(state):
                after = apply(state, Discard())
                ending = [a for a in legal_actions(after) if _play._ending(after, a)]
                if after.phase is Phase.FLIP and ending:
                    cell = move_text(after, ending[0], you).split(" ", 1)[1]
                    text, action = _run(state, you, [f"p {cell}", "n"], pauses=False)
                    assert action is None and "Not played." in text
                    assert text.count("Careful: ") == 1
                    assert text.index("Careful: ") < text.index("Not played.")
                    long_text, long_action = _run(state, you, ["p", "n"], pauses=False)
                    if len(legal_actions(after)) == 1:  # the long form asks the same
                        assert long_action is None and "Careful: " in long_text
                    text, action = _run(state, you, [f"p {cell}", "y"], pauses=False)
                    assert action == Discard()
                    asked += 1
            state = apply(state, bots[you].choose(state))
    assert asked >= 1
