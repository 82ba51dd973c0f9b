"""``allegra-rules play``: a person plays one seat in the terminal against bots."""

from __future__ import annotations

import textwrap
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
from allegra_rules.cli._common import Narrator, clockwise_line, terminal_size
from allegra_rules.cli._help import moves_text, options_text, summary_text
from allegra_rules.cli._interrupt import interrupted
from allegra_rules.cli._moves import (
    Rejected,
    accepted,
    area_owner,
    move_text,
    number_ranges,
    numbered,
    parse_move,
    tokens,
)
from allegra_rules.config import RuleConfig
from allegra_rules.geometry import Pos
from allegra_rules.presets import preset, preset_id
from allegra_rules.render import render_table
from allegra_rules.simulate import BOT_KINDS, bot_seed
from allegra_rules.state import GameState, Phase
from allegra_rules.transitions import ROUNDS, apply, legal_actions, new_game


class EndOfInput(Exception):
    """Standard input ended while the game waited for the person's choice.

    Attributes:
        result: the game so far (``None`` until ``run_play`` fills it in).
    """

    def __init__(self, result: PlayResult | None = None) -> None:
        super().__init__("the input ended before the game was over")
        self.result = result


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

    Unlike [`describe_action`][allegra_rules.render.describe_action], which names the card a
    reveal or a draw turns up, this only uses what seat ``you`` may see now.

    Args:
        state: a state where ``you`` is to act.
        action: one of its legal actions.
        you: the person's seat.

    Returns:
        An imperative sentence such as ``"Swap the 3 in at (1, 2), discarding the 9."``.

    Examples:
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
            return "Draw (the empty draw pile is refilled from the discard pile first)."
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


def cell_menu(state: GameState, legal: Sequence[Action], you: int) -> list[str]:
    """The short menu of a decision: its moves by what to type, and their numbers.

    Moves without a cell get a line each (``1  d  Draw ...``); all the cell moves of
    the decision share one line with the verb, what it does and which cell numbers
    are open, so that even a 17-move decision takes at most four lines.
    """
    table = numbered(state, legal, you)
    cells = [number for number, action in table.items() if isinstance(action, (Reveal, Swap, Take))]
    lines = []
    if cells:
        owner = area_owner(state, you)
        left_seat = (owner + 1) % state.num_players
        whose = "your" if owner == you else f"seat {owner}'s"
        sample = table[cells[0]]
        verb = {Reveal: "r", Swap: "s", Take: "t"}[type(sample)]
        what = {
            "r": "turn up a face-down card",
            "s": f"swap the {state.held} in",
            "t": f"take a card from seat {owner}'s area",
        }[verb]
        if verb == "s" and state.phase is Phase.KNOCKER_SWAP:
            what += " (the card there goes to your hand)"
        elif verb == "s":
            what += " (the card there is discarded)"
        lines.append(f"  {verb} ROW COL  {what}")
        lines.append(f"             open cells: {number_ranges(cells)}")
        lines.append(
            f"             (1-12 {whose} grid row by row, 13-15 seat {left_seat}'s column 3)"
        )
    keys = {DrawDeck: "d", DrawDiscard: "p", Knock: "k", Pass: "x", Discard: "p"}
    for number, action in table.items():
        if isinstance(action, (Reveal, Swap, Take)):
            continue
        key = f"g {action.player}" if isinstance(action, Give) else keys[type(action)]
        lines.append(f"  {str(number).rjust(2)}  {key.ljust(4)} {option_text(state, action, you)}")
    return lines


def round_end_warning(state: GameState, action: Action, you: int) -> list[str]:
    """What to tell the person before ``action`` ends the round, or nothing.

    A move ends the round when it leaves a player with every card of its grid (or
    zone) face up: that depends only on which cards lie face down, which everyone
    sees, so asking the engine tells the person nothing hidden. The sums shown are
    the face-up sums the table shows.
    """
    after = apply(state, action)
    if state.ender is not None or after.ender is None or after.round != state.round:
        return []
    ender = after.ender
    config = state.config
    area = "grid" if config.round_end == "own_grid" else "zone"
    who = "you end" if ender == you else f"seat {ender} ends"
    lines = [
        f"Careful: this move leaves every card of {'your' if ender == you else 'its'} {area} "
        f"face up, so {who} the round:",
        "every other player gets one more turn, then all cards turn up and are scored.",
    ]
    geo = state.geometry

    def shown(seat: int) -> tuple[int, int]:
        up = down = 0
        for i in geo.zone[seat]:
            value = after.cells[i]
            if value is None:
                continue
            if after.face_down >> i & 1:
                down += 1
            else:
                up += value
        return up, down

    mine, mine_down = shown(ender)
    others = [(shown(q), q) for q in range(state.num_players) if q != ender]
    (low, low_down), low_seat = min(others)
    tie = "strictly lowest" if config.ender_tie == "doubled" else "lowest (a tie is enough)"
    zero = "; a sum of 0 or less is never doubled" if config.double_nonpositive == "no" else ""
    subject = "your" if ender == you else f"seat {ender}'s"
    lines.append(
        f"Now {subject} zone shows {mine} (+{mine_down} face-down); the lowest other, seat "
        f"{low_seat}'s, shows {low} (+{low_down} face-down)."
    )
    lines.append(f"The ender's sum is doubled unless it is the {tie}{zero}.")
    return lines


HELP = moves_text()
"""The text ``h moves`` prints: how to type a move."""


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

    def wrapped(self, text: str) -> None:
        """Write ``text`` wrapped to the terminal's width."""
        columns, _ = terminal_size()
        for line in textwrap.wrap(text, columns - 1, subsequent_indent="  "):
            self.say(line)

    def table(self, state: GameState, legend: bool, menu: list[str]) -> None:
        """The table for this seat, the menu under it, fitted to the terminal's height.

        When the whole would push the table's first lines off the screen, the legend
        is left out, then the menu's line explaining the cell numbers.
        """
        columns, rows = terminal_size()
        text = render_table(state, legend=legend, viewer=self.you, max_width=columns)
        if legend and text.count("\n") + 1 + len(menu) + 1 > rows:
            text = render_table(state, legend=False, viewer=self.you, max_width=columns)
        if text.count("\n") + 1 + len(menu) + 1 > rows:
            menu = [line for line in menu if not line.lstrip().startswith("(1-12 ")]
        self.say()
        self.say(text)
        for line in menu:
            self.say(line)

    def listing(self, state: GameState, legal: Sequence[Action]) -> None:
        self.say("Your moves by number (the same move keeps its number):")
        for number, action in numbered(state, legal, self.you).items():
            typed = move_text(state, action, self.you).ljust(12)
            self.say(f"  {str(number).rjust(2)}  {typed} {option_text(state, action, self.you)}")

    def read(self, prompt: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        line = self.inp.readline()
        if not line:
            if interrupted():  # the Ctrl-C that closed the input, not the input's end
                raise KeyboardInterrupt
            self.say()
            raise EndOfInput
        if self.echo:
            self.say(line.rstrip("\r\n"))
        return line

    def choose(self, state: GameState) -> Action:
        legal = legal_actions(state)
        self.table(state, self.legend, cell_menu(state, legal, self.you))
        self.legend = False
        prompt = "Your move (h help, l list, v table, q quit): "
        while True:
            line = self.read(prompt)
            words = tokens(line)
            if not words:
                continue
            command = words[0]
            if command in ("h", "help", "?"):
                topic = words[1] if len(words) > 1 else ""
                if topic.startswith("move") or topic in ("keys", "key", "typing"):
                    self.out.write(moves_text())
                elif topic.startswith("option") or topic in ("rules", "variant"):
                    self.out.write(options_text(state.config))
                else:
                    self.out.write(summary_text(state.config))
                continue
            if command in ("v", "view", "table") and len(words) == 1:
                self.table(state, True, cell_menu(state, legal, self.you))
                continue
            if command in ("l", "list") and len(words) == 1:
                self.listing(state, legal)
                continue
            if command in ("q", "quit", "exit") and len(words) == 1:
                raise _Quit
            found = parse_move(line, state, self.you)
            if isinstance(found, Rejected):
                self.wrapped(f"{line.strip()!r}: {found.reason}.")
                self.wrapped(accepted(state, self.you))
                continue
            warning = round_end_warning(state, found, self.you)
            if warning:
                for text in warning:
                    self.wrapped(text)
                answer = self.read("Play this move? y to play it, anything else to choose again: ")
                if tokens(answer)[:1] not in (["y"], ["yes"]):
                    self.say("Not played.")
                    continue
            return found


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
    config: RuleConfig | None = None,
) -> PlayResult:
    """Let a person play seat ``you`` against bots, reading moves from ``inp``.

    Before each of the person's moves the table is drawn as that seat sees it (in
    two bands when it is wider than the terminal) with a short menu of the moves;
    every action, the bots' included, is narrated for that seat as ``demo``
    narrates it. Moves are typed as ``allegra_rules.cli._moves`` describes
    (``h moves`` shows it). A move that would end the round is explained and
    asked to be confirmed.

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
        config: the rules to play instead of the preset's (for example the preset
            with a lower ``max_turns_per_round``).

    Returns:
        The result: the last state, the actions and whether the person quit.

    Raises:
        EndOfInput: ``inp`` ended before the game did; its ``result`` holds the
            game so far.
        ValueError: bad arguments (an unknown preset or bot, a seat out of range).
    """
    if config is None:
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
    columns, _ = terminal_size()
    narrator = Narrator(out, tables=False, names=labels, you=you, max_width=columns)
    session = _Session(you, inp, out, echo)
    rules = preset_id(preset_name) if config == preset(preset_name) else "a custom config"
    narrator.say_wrapped(
        f"Allegra: you play seat {you} of {num_players}; preset {rules}, "
        f"seed {seed}, {ROUNDS} rounds; the lowest total wins."
    )
    narrator.say_wrapped(
        "Seats: " + ", ".join(f"{seat} {label}" for seat, label in enumerate(labels)) + "."
    )
    narrator.say_wrapped(clockwise_line(num_players))
    narrator.say("Type a move by what it does (d, p, k, x, g SEAT, r/s/t ROW COL) or its number;")
    narrator.say("h the rules in short, h moves how to type, l list, v table, q quit.")
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
            except EndOfInput:
                raise EndOfInput(
                    PlayResult(state=state, actions=tuple(actions), quit=True)
                ) from None
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
