"""``allegra-rules play``: a person plays one seat in the terminal against bots."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

import attrs

from allegra_rules.actions import (
    Action,
    Discard,
    DrawDeck,
    DrawDiscard,
    Give,
    Knock,
    Pass,
    Reveal,
    Swap,
    Take,
)
from allegra_rules.bots import Bot
from allegra_rules.cli._common import Narrator, clockwise_line
from allegra_rules.geometry import Pos
from allegra_rules.presets import preset, preset_id
from allegra_rules.render import render_table
from allegra_rules.simulate import BOT_KINDS, bot_seed
from allegra_rules.state import GameState, Phase
from allegra_rules.transitions import ROUNDS, apply, legal_actions, new_game


class EndOfInput(Exception):
    """Standard input ended while the game waited for the person's choice."""


@attrs.frozen(slots=True)
class PlayResult:
    """How a terminal game ended.

    Attributes:
        state: the last state (terminal unless the person quit).
        actions: every action played, in order.
        quit: whether the person quit before the end.
    """

    state: GameState
    actions: tuple[Action, ...]
    quit: bool


def _cell(pos: Pos, you: int) -> str:
    where = f"({pos.row}, {pos.col})"
    return where if pos.player == you else f"seat {pos.player}'s {where}"


def _old_card(state: GameState, pos: Pos) -> str:
    if state.is_face_up(pos):
        return f"the {state.card(pos)}"
    return "the face-down card there"


def option_text(state: GameState, action: Action, you: int) -> str:
    """What a legal action of the person's seat would do, naming no hidden card.

    Unlike :func:`~allegra_rules.render.describe_action`, which names the card a
    reveal or a draw turns up, this only uses what seat ``you`` may see now.

    Args:
        state: a state where ``you`` is to act.
        action: one of its legal actions.
        you: the person's seat.

    Returns:
        An imperative sentence such as ``"Swap the 3 in at (1, 2), discarding the 9."``.

    >>> from allegra_rules import new_game, Pos, Reveal
    >>> option_text(new_game(2, seed=1), Reveal(Pos(0, 1, 2)), 0)
    'Reveal the card at (1, 2).'
    """
    held = state.held
    if isinstance(action, Reveal):
        verb = "Reveal" if state.phase is Phase.SETUP else "Turn up"
        return f"{verb} the card at {_cell(action.pos, you)}."
    if isinstance(action, DrawDeck):
        size = len(state.draw_pile)
        if size == 0:
            return (
                "Draw from the draw pile (it is empty: the discard pile but its top card "
                "is reshuffled into a new one first)."
            )
        return f"Draw the top card of the draw pile ({size} left)."
    if isinstance(action, DrawDiscard):
        return f"Take the {state.discard_top} from the discard pile."
    if isinstance(action, Knock):
        return f"Knock for the {held}."
    if isinstance(action, Pass):
        return "Do not knock."
    if isinstance(action, Give):
        return f"Give the {held} to seat {action.player}, who knocked."
    if isinstance(action, Discard):
        then = (
            ", then turn up a face-down card"
            if apply(state, action).phase is Phase.FLIP
            else " (you have no face-down card left to turn up)"
        )
        if state.phase is Phase.HOLD_DISCARD:
            return f"Put the {held} back on the discard pile{then}."
        return f"Discard the {held}{then}."
    if isinstance(action, Take):
        pos = action.pos
        if state.is_face_up(pos):
            return f"Take the {state.card(pos)} from {_cell(pos, you)}."
        return f"Take the face-down card at {_cell(pos, you)}."
    assert isinstance(action, Swap)
    target = _cell(action.pos, you)
    old = _old_card(state, action.pos)
    if state.phase is Phase.KNOCKER_SWAP:
        return f"Swap the {held} in at {target}, taking {old} into your hand."
    return f"Swap the {held} in at {target}, discarding {old}."


def private_lines(state: GameState, you: int) -> list[str]:
    """What seat ``you`` knows that the drawn table does not show.

    In a knock exchange the drawer may hold a card it took face down, and the
    knocker may hold the face-down card it replaced: only they have seen it.
    """
    lines = []
    if state.phase is Phase.HOLD_TAKEN and state.current_player == you:
        lines.append(
            f"You hold the {state.held}, taken from seat {state.knocker}'s area "
            "(only you have seen it)."
        )
    for holder, card in state.in_hand:
        if holder == you:
            lines.append(
                f"In your hand: the {card} you replaced; it fills the gap that seat "
                f"{state.drawer} takes a card from."
            )
    return lines


HELP = """\
How to play: type the number of an action and press Enter.
  t   show the table again, with its legend
  h   show this help
  q   quit the game (it is not finished and nobody wins)
Cells are (row, column): rows 0-2 from the top, columns 0-3 from the left. A cell
of another seat's grid is written "seat k's (r, c)". Your zone is your own grid
plus the bracketed column 3 just left of it (your left neighbour's). Face-down cards
are ## on the table, gaps are dots. The lowest total after three rounds wins."""
"""The text the ``h`` command prints."""


class _Quit(Exception):
    """The person typed ``q``."""


class _Session:
    """The prompt loop of one person at one seat."""

    def __init__(self, you: int, inp: TextIO, out: TextIO, echo: bool) -> None:
        self.you = you
        self.inp = inp
        self.out = out
        self.echo = echo
        self.legend = True

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")

    def table(self, state: GameState, legend: bool) -> None:
        self.say()
        self.say(render_table(state, legend=legend))
        for line in private_lines(state, self.you):
            self.say(line)

    def menu(self, state: GameState, legal: Sequence[Action]) -> None:
        self.say(f"You are seat {self.you}. Your options:")
        width = len(str(len(legal)))
        for number, action in enumerate(legal, start=1):
            self.say(f"  {str(number).rjust(width)}. {option_text(state, action, self.you)}")

    def choose(self, state: GameState) -> Action:
        legal = legal_actions(state)
        self.table(state, self.legend)
        self.legend = False
        self.menu(state, legal)
        count = len(legal)
        prompt = f"Your choice (1-{count}; h help, t table, q quit): "
        while True:
            self.out.write(prompt)
            self.out.flush()
            line = self.inp.readline()
            if not line:
                self.say()
                raise EndOfInput
            if self.echo:
                self.say(line.rstrip("\r\n"))
            text = line.strip().lower()
            if not text:
                continue
            if text in ("h", "help", "?"):
                self.say(HELP)
                self.menu(state, legal)
            elif text in ("t", "table"):
                self.table(state, legend=True)
                self.menu(state, legal)
            elif text in ("q", "quit", "exit"):
                raise _Quit
            elif not text.lstrip("+-").isdigit():
                self.say(
                    f"{line.strip()!r} is not a choice: type a number from 1 to {count}, "
                    "or h for help."
                )
            elif not 1 <= int(text) <= count:
                self.say(f"There is no option {int(text)}: choose a number from 1 to {count}.")
            else:
                return legal[int(text) - 1]


def run_play(
    num_players: int,
    you: int,
    preset_name: str,
    seed: int,
    bot_names: Sequence[str],
    inp: TextIO,
    out: TextIO,
    *,
    echo: bool = False,
) -> PlayResult:
    """Let a person play seat ``you`` against bots, reading choices from ``inp``.

    Before each of the person's choices the table is drawn as every player sees it
    (plus what only this seat knows) with a numbered list of the legal actions;
    every action, the bots' included, is narrated as ``demo`` does.

    Args:
        num_players: seats at the table.
        you: the person's seat.
        preset_name: a preset name such as ``"seeds"`` or ``"fr@1"``.
        seed: the deal's seed; the bot at seat ``p`` is seeded ``bot_seed(seed, p)``.
        bot_names: one bot name per other seat, in seat order.
        inp: where the person's answers come from, one per line.
        out: where the game is written.
        echo: write each answer after its prompt (when ``inp`` is not a terminal,
            so that the text reads as a transcript).

    Returns:
        The result: the last state, the actions and whether the person quit.

    Raises:
        EndOfInput: ``inp`` ended before the game did.
        ValueError: bad arguments (an unknown preset or bot, a seat out of range).
    """
    config = preset(preset_name)
    if not 0 <= you < num_players:
        raise ValueError(f"the person's seat must be 0..{num_players - 1}; got {you}")
    if len(bot_names) != num_players - 1:
        raise ValueError(f"bot_names must name {num_players - 1} bots; got {len(bot_names)}")
    others = [seat for seat in range(num_players) if seat != you]
    bots: dict[int, Bot] = {
        seat: BOT_KINDS[name](bot_seed(seed, seat))
        for seat, name in zip(others, bot_names, strict=True)
    }
    labels = ["you" if seat == you else "" for seat in range(num_players)]
    for seat, name in zip(others, bot_names, strict=True):
        labels[seat] = name
    state = new_game(num_players, config=config, seed=seed)
    narrator = Narrator(out, tables=False, names=labels, you=you)
    session = _Session(you, inp, out, echo)
    narrator.say(
        f"Allegra: you play seat {you} of {num_players}; preset {preset_id(preset_name)}, "
        f"seed {seed}, {ROUNDS} rounds; the lowest total wins."
    )
    narrator.say(
        "Seats: " + ", ".join(f"{seat} {label}" for seat, label in enumerate(labels)) + "."
    )
    narrator.say(clockwise_line(num_players))
    narrator.say("Type the number of an action; h for help, t for the table, q to quit.")
    narrator.round_heading(state)
    actions: list[Action] = []
    while not state.is_terminal:
        narrator.turn_heading(state)
        actor = state.current_player
        assert actor is not None
        if actor == you:
            try:
                action = session.choose(state)
            except _Quit:
                narrator.say()
                narrator.say(
                    f"You quit in round {state.round} of {ROUNDS}; the game is not "
                    "finished and nobody wins."
                )
                return PlayResult(state=state, actions=tuple(actions), quit=True)
            narrator.say()
        else:
            action = bots[actor].choose(state)
        after = apply(state, action)
        narrator.step(state, action, after)
        actions.append(action)
        state = after
    narrator.game_over(state)
    if you not in state.winners:
        verdict = "You did not win"
    elif len(state.winners) > 1:
        verdict = "You share the win"
    else:
        verdict = "You win"
    narrator.say(f"{verdict}: your total is {state.totals[you]}.")
    return PlayResult(state=state, actions=tuple(actions), quit=False)
