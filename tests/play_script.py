"""Scripts for ``allegra-rules play``: the lines a person would type for a whole game.

The game is mirrored in this process: ``play`` deals ``new_game(n, config, seed)`` and
seeds the bot at seat ``p`` with ``bot_seed(seed, p)``, so the same bots here make the
same moves, and the person's moves are chosen here (at random, or by a bot) and typed
as cells (``r 2 1``, ``s left 0 3``, ``t 2 0 1``) or letters (``d``, ``k``, ``g 2``).
"""

from __future__ import annotations

import random

import attrs

from allegra_rules import GameState, RuleConfig, apply, legal_actions, new_game, preset
from allegra_rules.actions import Action, DrawDeck, Pass
from allegra_rules.cli._moves import move_number, move_text
from allegra_rules.cli._play import draw_reason, knock_reason, round_end_warning
from allegra_rules.simulate import BOT_KINDS, bot_seed
from allegra_rules.state import Phase


@attrs.frozen
class Turn:
    """One decision of the person: the state, the move, and what was typed."""

    state: GameState
    action: Action
    typed: tuple[str, ...]


def short_config(max_turns: int, name: str = "seeds") -> RuleConfig:
    """The preset with a low turn cap: short rounds for whole-game tests."""
    return attrs.evolve(preset(name), max_turns_per_round=max_turns)


def script(
    num_players: int,
    you: int,
    seed: int,
    config: RuleConfig,
    bots: str = "greedy",
    pick_seed: int = 0,
    numbers_every: int = 0,
    auto_pass: bool = False,
    state: GameState | None = None,
    person: str | None = None,
) -> tuple[list[Turn], GameState]:
    """The person's decisions of a whole game, with what to type, and the final state.

    Every ``numbers_every``-th move (0: never) is typed by its fixed number instead.
    A move that ends the round is confirmed with ``y``. With ``auto_pass`` the knock
    windows that ``play --auto-pass`` answers by itself are passed, and the draws it
    makes by itself are drawn, without a line.
    ``state`` continues a game from there (the bots must not have used their
    generators yet: the greedy bot only does on ties). ``person``: a bot of
    ``BOT_KINDS`` that chooses the person's moves (default: a random legal move).
    """
    rng = random.Random(pick_seed)
    players = {
        seat: BOT_KINDS[bots](bot_seed(seed, seat)) for seat in range(num_players) if seat != you
    }
    chooser = None if person is None else BOT_KINDS[person](pick_seed)
    if state is None:
        state = new_game(num_players, config=config, seed=seed)
    turns: list[Turn] = []
    while not state.is_terminal:
        seat = state.current_player
        assert seat is not None
        auto = seat == you and auto_pass and state.phase is Phase.KNOCK
        if auto and knock_reason(state, you) is None:
            state = apply(state, Pass())
            continue
        drawing = seat == you and auto_pass and state.phase is Phase.DRAW
        if drawing and DrawDeck() in legal_actions(state) and draw_reason(state, you) is None:
            state = apply(state, DrawDeck())
            continue
        if seat == you:
            if chooser is None:
                action = rng.choice(legal_actions(state))
            else:
                action = chooser.choose(state)
            typed = move_text(state, action, you)
            if numbers_every and len(turns) % numbers_every == numbers_every - 1:
                typed = str(move_number(state, action, you))
            lines = [typed]
            if round_end_warning(state, action, you):
                lines.append("y")
            turns.append(Turn(state=state, action=action, typed=tuple(lines)))
        else:
            action = players[seat].choose(state)
        state = apply(state, action)
    return turns, state


def typed_lines(turns: list[Turn]) -> list[str]:
    """Every line the person types, in order."""
    return [line for turn in turns for line in turn.typed]
