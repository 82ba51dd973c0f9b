"""``allegra-rules play``: a person plays one seat in the terminal against bots."""

from __future__ import annotations

import io
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
from allegra_rules.render import render_round_end, render_table, wrap_words
from allegra_rules.simulate import BOT_KINDS, bot_seed
from allegra_rules.state import GameState, Phase
from allegra_rules.transitions import ROUNDS, apply, legal_actions, new_game
from allegra_rules.triples import new_triples


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


KNOCK_AT_MOST = 2
"""Auto-pass asks about a drawn card of this value or lower (or one that makes a triple)..."""
KNOCK_HIGH_CARD = 8
"""... when a face-up card of this value or higher lies where you could swap it in."""
TRIPLE_AT_LEAST = 3
"""Auto-pass asks about a card that completes a triple when it is worth this much or more."""


def knock_reason(state: GameState, you: int) -> str | None:
    """Why the card of a knock window would clearly help seat ``you``, or ``None``.

    ``--auto-pass`` answers a knock window with a pass by itself unless this gives a
    reason: the drawn card is ``KNOCK_AT_MOST`` or lower and the seat's swap area
    shows a face-up ``KNOCK_HIGH_CARD`` or higher, or the drawn card is
    ``TRIPLE_AT_LEAST`` or higher and, swapped in at a cell of that area, it would
    complete a triple. Only what every player sees is used (the
    drawn card and the face-up cards), so the answer tells nothing hidden. (The
    ``greedy`` bot knocks only in windows this asks about.)

    Examples:
        >>> from allegra_rules import new_game
        >>> knock_reason(new_game(3, seed=1), 0) is None  # nobody holds a card
        True
    """
    held = state.held
    if held is None or state.phase is not Phase.KNOCK or state.current_player != you:
        return None
    config = state.config
    geo = state.geometry
    area = geo.zone[you] if config.swap_area == "zone" else geo.own[you]
    cells = state.cells
    face_down = state.face_down
    up = [i for i in area if cells[i] is not None and not face_down >> i & 1]
    if up:
        high = max(up, key=lambda i: (cells[i], -i))
        value = cells[high]
        assert value is not None
        if held <= KNOCK_AT_MOST and value >= KNOCK_HIGH_CARD:
            where = _cell(geo.positions[high], you)
            return f"the {held} is {value - held} lower than the {value} at {where}"
    for i in area if held >= TRIPLE_AT_LEAST else ():
        if cells[i] is None or (cells[i] == held and not face_down >> i & 1):
            continue
        placed = list(cells)
        placed[i] = held
        if new_triples(config, geo, tuple(placed), face_down & ~(1 << i), (i,)):
            where = _cell(geo.positions[i], you)
            return f"the {held} swapped in at {where} would complete a triple"
    return None


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

PROMPT = "Your move (h help, l list, v table, q quit): "
"""The prompt of every decision."""

AUTO_PASS_ON = (
    "Auto-pass is on: knock windows are passed for you, unless the drawn card would "
    "clearly help you (then you are asked); a turns it off."
)
AUTO_PASS_OFF = "Auto-pass is off: you answer every knock window (k or x); a turns it on."


class _Quit(Exception):
    """The person typed ``q``."""


class _Session:
    """The prompt loop of one person at one seat, and what the screen shows.

    When ``pauses`` is set (a person at a terminal), what happened since the last
    screen is held back and written just above the next one: in full when it fits
    the terminal with the table, else one line per turn, else one page at a time,
    each page waiting for Enter.
    """

    def __init__(
        self,
        you: int,
        inp: TextIO,
        out: TextIO,
        echo: bool,
        *,
        pauses: bool = False,
        auto_pass: bool = False,
    ) -> None:
        self.you = you
        self.inp = inp
        self.out = out
        self.echo = echo
        self.pauses = pauses
        self.auto_pass = auto_pass
        self.legend = True
        self.full = io.StringIO()
        self.short = io.StringIO()
        self.last_moves = ""
        self.queued: str | None = None

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")

    def wrapped(self, text: str) -> None:
        """Write ``text`` wrapped to the terminal's width."""
        columns, _ = terminal_size()
        for line in _wrap(text, columns):
            self.say(line)

    def screen(
        self, state: GameState, legend: bool, menu: list[str], compact: bool = False
    ) -> list[str]:
        """The table for this seat and the menu under it, fitted to the terminal's height.

        When the whole would push the table's first lines off the screen, the legend
        is left out, then the menu's line explaining the cell numbers. ``compact``
        leaves both out and writes each zone's sum on one line.
        """
        columns, rows = terminal_size()
        legend = legend and not compact
        text = render_table(
            state, legend=legend, viewer=self.you, max_width=columns, compact=compact
        )
        if legend and text.count("\n") + 1 + len(menu) + 1 > rows:
            text = render_table(state, legend=False, viewer=self.you, max_width=columns)
        if compact or text.count("\n") + 1 + len(menu) + 1 > rows:
            menu = [line for line in menu if not line.lstrip().startswith("(1-12 ")]
        return ["", *text.split("\n"), *menu]

    def pause(self, text: str) -> None:
        """Wait for Enter (only a person at a terminal is asked); ``q`` quits."""
        if not self.pauses:
            return
        if tokens(self.read(f"-- {text} --"))[:1] in (["q"], ["quit"]):
            raise _Quit

    def moves(self, columns: int) -> tuple[list[str], list[str]]:
        """What happened since the last screen, in full and one line per turn; then forget it."""
        full = self.full.getvalue()
        short = self.short.getvalue()
        for buffer in (self.full, self.short):
            buffer.seek(0)
            buffer.truncate()
        if not full:
            return [], []
        self.last_moves = full
        brief = ["Since your last move, one line per turn (m shows every action):"]
        for line in short.rstrip("\n").split("\n"):
            brief += _wrap(line, columns)
        return full.rstrip("\n").split("\n"), brief

    def show_moves(self, screens: Sequence[list[str]], then: str = "the table") -> list[str]:
        """Write what happened since the last screen above the first of ``screens`` it fits.

        Each screen is the lines to come under it, its prompt not counted. The moves
        are written in full when they fit, else one line per turn; when even that
        fits no screen, they are written page by page, each page waiting for Enter
        (the last one says that ``then`` comes next).

        Returns:
            The screen to write under the moves.
        """
        columns, rows = terminal_size()
        full, brief = self.moves(columns)
        for lines in (full, brief):
            for screen in screens:
                if len(lines) + len(screen) + 1 <= rows:
                    for line in lines:
                        self.say(line)
                    return screen
        screen = screens[-1]
        room = rows - len(screen) - 1
        lines = brief
        while lines and len(lines) > room:
            page, lines = lines[: rows - 1], lines[rows - 1 :]
            for line in page:
                self.say(line)
            self.pause(
                "more: press Enter" if lines and len(lines) > room else f"press Enter for {then}"
            )
        for line in lines:
            self.say(line)
        return screen

    def show(self, state: GameState, legend: bool, menu: list[str], note: list[str]) -> None:
        screens = [self.screen(state, legend, menu) + note]
        if self.pauses:
            screens.append(self.screen(state, False, menu, compact=True) + note)
            screens = [self.show_moves(screens)]
        for line in screens[0]:
            self.say(line)

    def listing(self, state: GameState, legal: Sequence[Action]) -> None:
        columns, _ = terminal_size()
        self.say("Your moves by number (the same move keeps its number):")
        for number, action in numbered(state, legal, self.you).items():
            typed = move_text(state, action, self.you).ljust(12)
            line = f"  {str(number).rjust(2)}  {typed} {option_text(state, action, self.you)}"
            for part in textwrap.wrap(line, columns - 1, subsequent_indent=" " * 19):
                self.say(part)

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

    def knock_menu(self, state: GameState) -> tuple[list[str], list[str]]:
        """The lines a knock window adds: the auto-pass key, and why it still asks."""
        columns, _ = terminal_size()
        if self.auto_pass:
            reason = knock_reason(state, self.you)
            text = f"Auto-pass asks you this time: {reason}."
            return ["   a    auto-pass: turn it off"], _wrap(text, columns)
        return ["   a    auto-pass: pass every knock window unless the card matters"], []

    def chained(self, state: GameState) -> Action | None:
        """The second half of a ``p ROW COL`` typed at the decision before, if it fits this one."""
        line, self.queued = self.queued, None
        if line is None:
            return None
        found = parse_move(line, state, self.you)
        if isinstance(found, Rejected) or round_end_warning(state, found, self.you):
            return None
        return found

    def choose(self, state: GameState) -> Action:
        chained = self.chained(state)
        if chained is not None:
            return chained
        legal = legal_actions(state)
        menu = cell_menu(state, legal, self.you)
        note: list[str] = []
        if state.phase is Phase.KNOCK:
            extra, note = self.knock_menu(state)
            menu += extra
        self.show(state, self.legend, menu, note)
        self.legend = False
        while True:
            line = self.read(PROMPT)
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
                for text in self.screen(state, True, menu) + note:
                    self.say(text)
                continue
            if command in ("l", "list") and len(words) == 1:
                self.listing(state, legal)
                continue
            if command in ("m", "moves") and len(words) == 1:
                self.out.write(self.last_moves or "Nothing has happened since your last move.\n")
                continue
            if command in ("a", "auto", "autopass", "auto-pass") and len(words) == 1:
                self.auto_pass = not self.auto_pass
                self.wrapped(AUTO_PASS_ON if self.auto_pass else AUTO_PASS_OFF)
                if (
                    self.auto_pass
                    and state.phase is Phase.KNOCK
                    and knock_reason(state, self.you) is None
                ):
                    return Pass()
                continue
            if command in ("q", "quit", "exit") and len(words) == 1:
                raise _Quit
            found = parse_move(line, state, self.you)
            if (
                isinstance(found, Rejected)
                and len(words) in (3, 4)
                and command in ("p", "pile", "discard")
                and isinstance(
                    first := parse_move(command, state, self.you), (Discard, DrawDiscard)
                )
            ):
                # p ROW COL: take the discard pile's top, or discard the drawn card, and
                # answer the next decision (the swap, or the turn-up) with ROW COL.
                self.queued = " ".join(words[1:])
                return first
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


def _wrap(text: str, columns: int) -> list[str]:
    """``text`` cut at spaces into lines narrower than ``columns`` (continuations indented)."""
    if len(text) < columns:
        return [text]
    indent = "    " if text.startswith("  ") else "  "
    return wrap_words(text, columns - 1, indent)


def _replay_bots(
    state: GameState, history: Sequence[Action], you: int, bots: dict[int, Bot], names: list[str]
) -> GameState:
    """Play ``history`` on from ``state``, letting each bot choose its own actions again.

    The bots are asked for every action of theirs, so their random generators stand
    where they stood when the game was saved, and a record played with another seat or
    other bots is refused.

    Raises:
        ValueError: an action of the history is not legal, or is not what the bot at
            its seat chooses.
    """
    for number, action in enumerate(history, start=1):
        actor = state.current_player
        if actor is None:
            raise ValueError(f"action {number} comes after the end of the game")
        if actor != you and bots[actor].choose(state) != action:
            raise ValueError(
                f"action {number} of the saved game, {action!r}, is not what the "
                f"{names[actor]} bot at seat {actor} plays: resume with the --seat and "
                "--bots the game was played with"
            )
        state = apply(state, action)
    return state


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
    auto_pass: bool = False,
    pauses: bool = False,
    history: Sequence[Action] = (),
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
        auto_pass: answer the person's knock windows with a pass, except when
            ``knock_reason`` finds that the drawn card would clearly help (the
            ``a`` key turns it on and off during the game).
        pauses: a person reads the game at a terminal: wait for Enter after the
            opening lines and after each round's scores, and fit what happened since
            the person's last move above each table (one line per turn when the
            whole does not fit, page by page when even that does not).
        history: the actions of a saved game to continue from (``play --resume``);
            the bots are asked for their own actions again and must agree.

    Returns:
        The result: the last state, the actions (``history`` included) and whether
        the person quit.

    Raises:
        EndOfInput: ``inp`` ended before the game did; its ``result`` holds the
            game so far.
        ValueError: bad arguments (an unknown preset or bot, a seat out of range,
            a history that is not this game's).
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
    state = _replay_bots(state, history, you, bots, labels)
    if state.is_terminal:
        raise ValueError("the saved game is already over")
    columns, _ = terminal_size()
    session = _Session(you, inp, out, echo, pauses=pauses, auto_pass=auto_pass)
    narrator = Narrator(
        session.full if pauses else out,
        tables=False,
        names=labels,
        you=you,
        max_width=columns,
        round_reports=not pauses,
    )
    short = Narrator(session.short, names=labels, you=you, style="turns", brief=True)
    intro = Narrator(out, max_width=columns)
    rules = preset_id(preset_name) if config == preset(preset_name) else "a custom config"
    intro.say_wrapped(
        f"Allegra: you play seat {you} of {num_players}; preset {rules}, "
        f"seed {seed}, {ROUNDS} rounds; lowest total wins."
    )
    intro.say_wrapped(
        "Seats: " + ", ".join(f"{seat} {label}" for seat, label in enumerate(labels)) + "."
    )
    intro.say_wrapped(clockwise_line(num_players))
    intro.say("Type a move by what it does (d, p, k, x, g SEAT, r/s/t ROW COL) or its number;")
    intro.say("h the rules in short, h moves how to type, l list, v table, m the moves since")
    intro.say("your last one, q quit.")
    intro.say_wrapped(AUTO_PASS_ON if auto_pass else AUTO_PASS_OFF)
    if history:
        where = f"round {state.round}, turn {state.turns_played + 1}"
        if state.phase is Phase.SETUP:
            where = f"the setup of round {state.round}"
        intro.say_wrapped(f"Resuming the saved game after {len(history)} actions, in {where}.")
    actions: list[Action] = list(history)

    def stopped() -> PlayResult:
        return PlayResult(state=state, actions=tuple(actions), quit=True)

    try:
        session.pause("press Enter to start")
        if history:
            short.say(f"Round {state.round} of {ROUNDS}, resumed.")
        else:
            narrator.round_heading(state)
            short.say(f"Round {state.round} of {ROUNDS}: new deal.")
        while not state.is_terminal:
            narrator.turn_heading(state)
            actor = state.current_player
            assert actor is not None
            if actor != you:
                session.queued = None
                action = bots[actor].choose(state)
            elif (
                session.auto_pass
                and state.phase is Phase.KNOCK
                and knock_reason(state, you) is None
            ):
                action = Pass()
            else:
                if pauses and session.queued is None:
                    short.flush_turn(state)
                action = session.choose(state)
                narrator.say()
            after = apply(state, action)
            narrator.step(state, action, after)
            if pauses:
                short.step(state, action, after)
            actions.append(action)
            round_over = after.round != state.round or after.is_terminal
            state = after
            if pauses and round_over:
                drawn = render_round_end(state, legend=False, max_width=columns)
                report = ["", *drawn.split("\n")]
                if len(report) >= terminal_size()[1]:
                    report = [line for line in report if line]  # six seats on 24 lines
                session.show_moves([report], then="the scores")
                for line in report:
                    session.say(line)
                if state.is_terminal:
                    session.pause("press Enter for the final totals")
                else:
                    session.pause(f"press Enter to deal round {state.round}")
                    narrator.round_heading(state)
                    short.say(f"Round {state.round} of {ROUNDS}: new deal.")
    except _Quit:
        session.say()
        session.say(
            f"You quit in round {state.round} of {ROUNDS}; the game is not "
            "finished and nobody wins."
        )
        return stopped()
    except EndOfInput:
        raise EndOfInput(stopped()) from None
    closing = Narrator(out, names=labels, you=you, max_width=columns) if pauses else narrator
    closing.game_over(state)
    if you not in state.winners:
        verdict = "You did not win"
    elif len(state.winners) > 1:
        verdict = "You share the win"
    else:
        verdict = "You win"
    closing.say(f"{verdict}: your total is {state.totals[you]}.")
    return PlayResult(state=state, actions=tuple(actions), quit=False)
