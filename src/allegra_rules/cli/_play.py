"""``allegra-rules play``: a person plays one seat in the terminal against bots."""

from __future__ import annotations

import io
import random
import re
import textwrap
from collections.abc import Sequence
from pathlib import Path
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
from allegra_rules.bot_kinds import BOT_KINDS
from allegra_rules.bots import Bot
from allegra_rules.cli._common import (
    Narrator,
    UsageError,
    check_save_path,
    clockwise_line,
    one_line,
    players_line,
    terminal_size,
)
from allegra_rules.cli._help import moves_text, options_text, summary_text
from allegra_rules.cli._interrupt import interrupted
from allegra_rules.cli._moves import (
    Rejected,
    accepted,
    area_owner,
    move_text,
    number_ranges,
    numbered,
    old_cell,
    parse_move,
    tokens,
)
from allegra_rules.config import RuleConfig
from allegra_rules.determinize import determinize
from allegra_rules.geometry import Pos
from allegra_rules.hints import (
    draw_reason,
    knock_reason,
)
from allegra_rules.presets import preset, preset_id
from allegra_rules.render import render_round_end, render_table, wrap_words
from allegra_rules.simulate import bot_seed
from allegra_rules.state import GameState, Phase
from allegra_rules.transitions import ROUNDS, apply, legal_actions, new_game
from allegra_rules.views import observe
from allegra_rules.wording import action_text, cell_text, seat_name


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
        save: the file the person named when quitting (``q``, then a file name) to
            save the game in, or ``None``.
        auto_pass: whether auto-pass was on when the game stopped.
    """

    state: GameState
    actions: tuple[Action, ...]
    quit: bool
    save: str | None = None
    auto_pass: bool = False


class GameInterrupted(KeyboardInterrupt):
    """Ctrl-C during ``run_play``: a ``KeyboardInterrupt`` that carries the game so far.

    Attributes:
        result: the game up to the interrupt (``quit`` is true).
    """

    def __init__(self, result: PlayResult) -> None:
        super().__init__("interrupted")
        self.result = result


def seat_picture(state: GameState, you: int) -> GameState:
    """A full state made from what seat ``you`` knows of ``state``, and nothing more.

    The hidden cards are filled in by [`determinize`][allegra_rules.determinize.determinize]
    with a fixed seed, so the result is a function of ``observe(state, you)`` alone:
    two states that the seat cannot tell apart give the same picture. Everything
    ``play`` writes before a move is applied is computed from this picture, never
    from the real state; no text may name one of its made-up hidden cards.

    Examples:
        >>> import random
        >>> from allegra_rules import new_game, observe
        >>> state = new_game(3, seed=5)
        >>> twin = determinize(observe(state, 1), random.Random(2))
        >>> seat_picture(state, 1) == seat_picture(twin, 1)
        True
    """
    return determinize(observe(state, you), random.Random(0))


def _cell(pos: Pos, you: int) -> str:
    return cell_text(pos, you)


def option_text(state: GameState, action: Action, you: int) -> str:
    """What a legal action of the person's seat would do, naming no hidden card.

    Unlike [`describe_action`][allegra_rules.render.describe_action], which names the card a
    reveal or a draw turns up, this only uses what seat ``you`` may see now. The words are
    [`action_text`][allegra_rules.wording.action_text]'s (English), the same the server's
    page shows.

    Args:
        state: a state where ``you`` is to act.
        action: one of its legal actions.
        you: the person's seat.

    Returns:
        An imperative sentence such as ``"Swap the 3 in at row 2, column 3, discarding the
        9."``.

    Examples:
        >>> from allegra_rules import new_game, Pos, Reveal
        >>> option_text(new_game(2, seed=1), Reveal(Pos(0, 1, 2)), 0)
        'Reveal the card at row 2, column 3.'
    """
    return action_text(state, action, you)


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
        whose = "your" if owner == you else f"{seat_name(owner, you)}'s"
        sample = table[cells[0]]
        verb = {Reveal: "r", Swap: "s", Take: "t"}[type(sample)]
        what = {
            "r": "turn up a face-down card",
            "s": f"swap the {state.held} in",
            "t": f"take a card from {seat_name(owner, you)}'s zone",
        }[verb]
        if verb == "s" and state.phase is Phase.KNOCKER_SWAP:
            what += " (the card there goes to your hand)"
        elif verb == "s":
            what += " (the card there is discarded)"
        lines.append(f"  {verb} RC   {what}")
        example = move_text(state, table[cells[0]], you)
        lines.append(f"        RC: row then column ({example}); open cells: {number_ranges(cells)}")
        lines.append(
            f"        (1-12 {whose} grid row by row, 13-15 {seat_name(left_seat, you)}'s column 4)"
        )
    keys = {DrawDeck: "d", DrawDiscard: "p", Knock: "k", Pass: "x", Discard: "p"}
    for number, action in table.items():
        if isinstance(action, (Reveal, Swap, Take)):
            continue
        key = move_text(state, action, you) if isinstance(action, Give) else keys[type(action)]
        lines.append(f"  {str(number).rjust(2)}  {key.ljust(4)} {option_text(state, action, you)}")
    return lines


def _ending(state: GameState, action: Action) -> tuple[GameState, int] | None:
    """The state after ``action`` and the round's ender, when ``action`` ends the round.

    A move ends the round when it leaves a player's grid (or zone) face up. Most such
    moves settle at once; the knocker's swap (A14) settles only when the drawer's
    exchange that follows it is done, but no move of that exchange turns a card face
    down, so the round ends all the same: the ender is then the one A23 would name
    now (the drawer, if its own exchange turns up its last card, comes first).
    Whether a move ends the round depends only on which cards lie face down, which
    every player sees, so this may be asked of a seat's picture. ``None`` when the
    move does not end the round (or the round ends by its turn cap, with no ender).
    """
    after = apply(state, action)
    if state.ender is not None or after.round != state.round:
        return None
    if after.ender is not None:
        return after, after.ender
    if after.phase not in (Phase.TAKE, Phase.HOLD_TAKEN):
        return None
    geo = after.geometry
    masks = geo.own_masks if after.config.round_end == "own_grid" else geo.zone_masks
    done = [p for p in range(after.num_players) if not after.face_down & masks[p]]
    drawer = after.drawer
    if not done or drawer is None:
        return None
    n = after.num_players
    return after, drawer if drawer in done else min(done, key=lambda p: (p - drawer) % n)


def _forced_end(state: GameState, action: Action, you: int) -> Action | None:
    """A move of seat ``you`` that must follow ``action`` and ends the round, or ``None``.

    After a discard (or a take from the discard pile), the seat may be left with
    nothing but moves that end the round (its last face-down card to turn up): the
    question belongs to the move that leads there, while there is still a choice.
    """
    if not isinstance(action, (Discard, DrawDiscard)):
        return None
    after = apply(state, action)
    if after.current_player != you or after.round != state.round or after.ender is not None:
        return None
    following = legal_actions(after)
    if following and all(_ending(after, move) is not None for move in following):
        return following[0]
    return None


def _zone_shown(state: GameState, seat: int, turned: int | None) -> tuple[int, int, str]:
    """A zone's face-up sum and face-down count as the table shows them, and its text.

    ``turned`` is a cell about to turn up: it counts as neither, and the text says so.
    """
    up = down = 0
    plus = ""
    for i in state.geometry.zone[seat]:
        value = state.cells[i]
        if value is None:
            continue
        if i == turned:
            plus = ", plus the card you turn up"
        elif state.face_down >> i & 1:
            down += 1
        else:
            up += value
    return up, down, f"{up}{plus}" + (f" (+{down} face-down)" if down else "")


def round_end_warning(state: GameState, action: Action, you: int) -> list[str]:
    """What to tell seat ``you`` before ``action`` ends the round, or nothing.

    A move ends the round when it leaves a player with every card of its grid (or
    zone) face up; a discard does when the only moves left after it do (turning up
    the last face-down card). That depends only on which cards lie face down, which
    everyone sees. The sums are the face-up sums the table shows; a card about to
    be turned up counts as "the card you turn up", never as its value. When every
    legal move ends the round there is nothing to choose, and nothing is said (the
    move that led there asked).

    Only what the seat knows is used when ``state`` is the seat's picture
    ([`seat_picture`][allegra_rules.cli._play.seat_picture]), as ``play`` passes it.
    """
    legal = legal_actions(state)
    if all(_ending(state, move) is not None for move in legal):
        return []
    ending = _ending(state, action)
    forced = False
    if ending is None:
        follow = _forced_end(state, action, you)
        if follow is None:
            return []
        forced = True
        state, action = apply(state, action), follow
        ending = _ending(state, action)
        assert ending is not None
    after, ender = ending
    pending = after.ender is None  # the knocker's swap: the drawer's exchange comes first
    config = state.config
    area = "grid" if config.round_end == "own_grid" else "zone"
    who = "you end" if ender == you else f"Player {ender + 1} ends"
    whose = "your" if ender == you else f"Player {ender + 1}'s"
    lead = "after this move, every move left to you" if forced else "this move"
    lines = [
        f"Careful: {lead} leaves every card of {whose} {area} face up, so {who} the round:",
        "every other player gets one more turn, then all cards turn up and are scored.",
    ]
    drawer = after.drawer
    if pending and drawer is not None and drawer != ender:
        lines.append(
            f"(Player {drawer + 1} finishes the exchange first; if that turns up "
            f"Player {drawer + 1}'s last face-down card, Player {drawer + 1} ends the round "
            "instead.)"
        )
    # A card turned up is unknown until it is: count the table before the move.
    turned = action.pos.index if isinstance(action, Reveal) else None
    base = state if turned is not None else after
    others = [q for q in range(state.num_players) if q != ender]
    shown = {q: _zone_shown(base, q, turned) for q in range(state.num_players)}
    low = min(others, key=lambda q: (shown[q][:2], q))
    tie = "strictly lowest" if config.ender_tie == "doubled" else "lowest (a tie is enough)"
    zero = "; a sum of 0 or less is never doubled" if config.double_nonpositive == "no" else ""
    lines.append(
        f"{whose[:1].upper()}{whose[1:]} zone would show {shown[ender][2]}; "
        f"the lowest other, Player {low + 1}'s, shows {shown[low][2]}."
    )
    lines.append(f"The ender's sum is doubled unless it is the {tie}{zero}.")
    return lines


HELP = moves_text()
"""The text ``h moves`` prints: how to type a move."""

PROMPT = "Your move (h help, l list, v table, q quit): "
"""The prompt of every decision."""

KNOCK_SETTING = "ask me only when the card could help me"
"""The knock setting's name, the same on every surface (``--auto-pass``, the ``a`` key)."""

AUTO_PASS_ON = (
    f"On: {KNOCK_SETTING}. A knock window whose card could not help you is passed for "
    "you, and your turn starts with a draw from the draw pile when the discard pile's "
    "card could not help you; each is said. a turns it off."
)
AUTO_PASS_OFF = f"Off: {KNOCK_SETTING}. You answer every knock window (k or x); a turns it on."


def passed_for_you(state: GameState) -> str:
    """The clause said when a knock window of the person's is passed for them."""
    return f"passed for you: the {state.held} could not help you"


def drawn_for_you(state: GameState) -> str:
    """The clause said when the person's draw is made for them from the draw pile."""
    return (
        f"drawn for you from the draw pile: the {state.discard_top} on the discard pile "
        "could not help you"
    )


class _Quit(Exception):
    """The person typed ``q`` (and confirmed it); ``save`` is a file to save the game in."""

    def __init__(self, save: str | None) -> None:
        super().__init__("quit")
        self.save = save


class _Session:
    """The prompt loop of one person at one seat, and what the screen shows.

    When ``pauses`` is set (a person at a terminal), what happened since the last
    screen is held back and written just above the next one: in full when it fits
    the terminal with the table, else one line a turn (the latest that fit); ``m``
    shows every action, a screen at a time.
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
        saving: str | None = None,
    ) -> None:
        self.you = you
        self.saving = saving
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

    def table(self, state: GameState, legend: bool, compact: bool = False) -> str:
        """The table as this seat sees it, at the terminal's width."""
        columns, _ = terminal_size()
        return render_table(
            state, legend=legend, viewer=self.you, max_width=columns, compact=compact
        )

    def fits(self, text: str, menu: list[str]) -> bool:
        """Whether a blank line, ``text``, ``menu`` and the prompt fit the terminal."""
        _, rows = terminal_size()
        return 1 + text.count("\n") + 1 + len(menu) + 1 <= rows

    def screen(
        self, state: GameState, legend: bool, menu: list[str], compact: bool = False
    ) -> list[str]:
        """The table for this seat and the menu under it, fitted to the terminal's height.

        When the whole would push the table's first lines off the screen, the legend
        is left out, then the menu's line explaining the cell numbers. ``compact``
        writes each zone's sum on one line and the legend in two.
        """
        text = self.table(state, legend, compact)
        if legend and not self.fits(text, menu):
            text = self.table(state, False, compact)
        if not self.fits(text, menu):
            menu = [line for line in menu if not line.lstrip().startswith("(1-12 ")]
        return ["", *text.split("\n"), *menu]

    def pause(self, text: str) -> None:
        """Wait for Enter (only a person at a terminal is asked); ``q`` quits as at a prompt."""
        if not self.pauses:
            return
        if tokens(self.read(f"-- {text} --"))[:1] in (["q"], ["quit"]):
            self.quit()

    def moves(self, columns: int) -> tuple[list[str], list[str]]:
        """What happened since the last screen, in full and one line per turn; then forget it.

        A turn's line longer than the terminal is cut (ending in ``...``), never
        wrapped: ``m`` shows every action in full.
        """
        full = self.full.getvalue()
        short = self.short.getvalue()
        for buffer in (self.full, self.short):
            buffer.seek(0)
            buffer.truncate()
        if not full:
            return [], []
        self.last_moves = full
        turns = short.rstrip("\n").split("\n")
        brief = [_one_line(line, columns) for line in turns]
        return full.rstrip("\n").split("\n"), brief

    def show_moves(self, screens: Sequence[list[str]]) -> list[str]:
        """Write what happened since the last screen above the first of ``screens`` it fits.

        Each screen is the lines to come under it, its prompt not counted. The moves
        are written in full when they fit, else one line a turn (a turn wider than the
        terminal is cut, ending in ``...``), above the first screen that leaves room for
        every turn; when even the smallest does not, the latest turns that fit, under a
        line saying that ``m`` shows every action. Nothing scrolls off the screen and the
        game never waits for a key between the moves and the table.

        Returns:
            The screen to write under the moves.
        """
        columns, rows = terminal_size()
        full, brief = self.moves(columns)
        if full:
            for screen in screens:
                if len(full) + len(screen) + 1 <= rows:
                    for line in full:
                        self.say(line)
                    return screen
        if not brief:
            return screens[0]
        screen = screens[-1]
        for candidate in screens:
            if len(brief) + 1 + len(candidate) + 1 <= rows:
                screen = candidate
                break
        room = rows - len(screen) - 2  # a heading, then the turns
        if room < 1:  # not even one turn fits: one line says where they are
            if room == 0:
                self.say("(m shows every action since your last move)")
            return screen
        if len(brief) <= room:
            self.say("Since your last move, one line a turn (m shows every action):")
            shown = brief
        else:
            shown = brief[len(brief) - room :]
            self.say(
                _one_line(
                    f"Since your last move, the last {room} of {len(brief)} lines "
                    "(m shows every action):",
                    columns,
                )
            )
        for line in shown:
            self.say(line)
        return screen

    def paged(self, text: str) -> None:
        """Write ``text`` a screen at a time (a person at a terminal presses Enter between)."""
        lines = text.rstrip("\n").split("\n")
        _, rows = terminal_size()
        size = max(rows - 2, 5)
        for start in range(0, len(lines), size):
            if start:
                line = self.read(f"-- {start} of {len(lines)} lines; Enter for more, q stops -- ")
                if tokens(line)[:1] in (["q"], ["quit"]):
                    return
            for part in lines[start : start + size]:
                self.say(part)

    def show(self, state: GameState, legend: bool, menu: list[str], note: list[str]) -> None:
        """Write the moves since the last screen (when a person reads), the table and menu."""
        screens = [self.screen(state, legend, menu) + note]
        if self.pauses:
            short = self.screen(state, legend, menu, compact=True) + note
            if legend and not self.fits(self.table(state, True), menu):
                screens = [short]  # only the shorter table keeps the legend on screen
            else:
                screens.append(short)
            # The smallest: no legend, the cell numbers' lines shortened to the open
            # cells on the verb's line, no blank line, so that the last turns of six
            # seats fit 24 lines with the table.
            columns, _ = terminal_size()
            short_note = [_one_line(_short_note(note), columns)] if note else []
            screens.append(
                self.table(state, False, True).split("\n") + _short_menu(menu) + short_note
            )
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
            text = f"You are asked this time, as {reason}."
            return [f"   a    {KNOCK_SETTING}: turn it off"], _wrap(text, columns)
        return [f"   a    {KNOCK_SETTING}: turn it on"], []

    def chained(self, seen: GameState) -> Action | None:
        """The second half of a two-part line typed at the decision before, if it fits this one.

        The whole line was checked (and confirmed, when it ends the round) before its
        first half was played, so nothing is asked again.
        """
        line, self.queued = self.queued, None
        if line is None:
            return None
        found = parse_move(line, seen, self.you)
        return None if isinstance(found, Rejected) else found

    def two_part(
        self, seen: GameState, words: list[str]
    ) -> tuple[Action, GameState, Action, str] | Rejected | None:
        """A line that makes two moves: ``p ROW COL``, or ``r ROW COL ROW COL`` in the setup.

        Returns:
            The first move, the picture after it, the second move and its text, when
            both are legal one after the other; a ``Rejected`` when the line is of that
            form but cannot be played whole (then nothing is played); ``None`` for any
            other line.
        """
        command = words[0]
        if command in ("p", "pile", "discard") and len(words) >= 2:
            old = old_cell("p", words[1:], self.you, seen.num_players)
            if old is not None:
                return old
            first = parse_move(command, seen, self.you)
            if isinstance(first, Rejected):
                return first
            # The cell's verb is the one the game asks for after the first move: swap
            # the discard pile's top in, or turn up a card after a discard.
            verb = "r" if apply(seen, first).phase is Phase.FLIP else "s"
            rest = verb + " " + " ".join(words[1:])
        elif command in ("r", "reveal", "flip") and seen.phase is Phase.SETUP and len(words) >= 3:
            # Two cells: the line is cut after the first word written as a cell (RC).
            cut = next((k + 1 for k in range(1, len(words) - 1) if _is_rc(words[k])), None)
            if cut is None or not any(_is_rc(w) for w in words[cut:]):
                return None
            head = parse_move(" ".join(words[:cut]), seen, self.you)
            if isinstance(head, Rejected):
                return head
            first, rest = head, "r " + " ".join(words[cut:])
        else:
            return None
        after = apply(seen, first)
        if after.current_player != self.you or after.round != seen.round:
            return Rejected(f"{words[0]} then a cell is not one turn now: type one move")
        second = parse_move(rest, after, self.you)
        if isinstance(second, Rejected):
            return Rejected(f"{second.reason} (after {move_text(seen, first, self.you)})")
        return first, after, second, rest

    def confirm(self, seen: GameState, action: Action) -> bool:
        """Warn before a move that ends the round and ask; whether to play it."""
        warning = round_end_warning(seen, action, self.you)
        if not warning:
            return True
        for text in warning:
            self.wrapped(text)
        answer = self.read("Play this move? y to play it, anything else to choose again: ")
        if tokens(answer)[:1] in (["y"], ["yes"]):
            return True
        self.say("Not played.")
        return False

    def quit(self) -> None:
        """``q``: stop at once when the game is being saved; else ask first."""
        if self.saving is not None:
            raise _Quit(None)
        self.wrapped(
            "The game is not being saved: quit now and it is lost. Type a file name to "
            "save it there and quit (play --resume FILE continues it later), y to quit "
            "without saving, or Enter to go on playing."
        )
        while True:
            answer = self.read("Quit? ").strip()
            if answer.lower() in ("y", "yes"):
                raise _Quit(None)
            if not answer or answer.lower() in ("n", "no"):
                self.say("The game goes on.")
                return
            try:
                check_save_path(Path(answer).expanduser())
            except UsageError as exc:
                self.wrapped(f"{exc}: type another file name, y, or Enter.")
                continue
            raise _Quit(answer)

    def choose(self, state: GameState) -> Action:
        """Ask the person for the move of ``state``.

        Everything written here comes from the seat's picture of ``state`` (see
        [`seat_picture`][allegra_rules.cli._play.seat_picture]): nothing the seat
        cannot see reaches the screen.
        """
        seen = seat_picture(state, self.you)
        chained = self.chained(seen)
        if chained is None:
            chained = self.decide(seen)
        if chained not in legal_actions(state):  # the picture has the real state's moves
            raise AssertionError(f"{chained!r} is not legal in the real state")
        return chained

    def decide(self, seen: GameState) -> Action:
        """The prompt loop of one decision, on the seat's picture ``seen``."""
        legal = legal_actions(seen)
        menu = cell_menu(seen, legal, self.you)
        note: list[str] = []
        if seen.phase is Phase.KNOCK:
            extra, note = self.knock_menu(seen)
            menu += extra
        elif seen.phase is Phase.DRAW and self.auto_pass:
            columns, _ = terminal_size()
            note = _wrap(
                f"You choose the pile this time, as {draw_reason(seen, self.you)}.", columns
            )
        self.show(seen, self.legend, menu, note)
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
                    self.out.write(options_text(seen.config))
                else:
                    self.out.write(summary_text(seen.config))
                continue
            if command in ("v", "view", "table") and len(words) == 1:
                for text in self.screen(seen, True, menu) + note:
                    self.say(text)
                continue
            if command in ("l", "list") and len(words) == 1:
                self.listing(seen, legal)
                continue
            if command in ("m", "moves") and len(words) == 1:
                if not self.last_moves:
                    self.say("Nothing has happened since your last move.")
                elif self.pauses:
                    self.paged(self.last_moves)
                else:
                    self.out.write(self.last_moves)
                continue
            if command in ("a", "auto", "autopass", "auto-pass") and len(words) == 1:
                self.auto_pass = not self.auto_pass
                self.wrapped(AUTO_PASS_ON if self.auto_pass else AUTO_PASS_OFF)
                passing = self.auto_pass and seen.phase is Phase.KNOCK
                if passing and knock_reason(seen, self.you) is None:
                    self.wrapped(passed_for_you(seen)[:1].upper() + passed_for_you(seen)[1:] + ".")
                    return Pass()
                drawing = self.auto_pass and seen.phase is Phase.DRAW and DrawDeck() in legal
                if drawing and draw_reason(seen, self.you) is None:
                    self.wrapped(drawn_for_you(seen)[:1].upper() + drawn_for_you(seen)[1:] + ".")
                    return DrawDeck()
                continue
            if command in ("q", "quit", "exit") and len(words) == 1:
                self.quit()
                continue
            pair = self.two_part(seen, words)
            if isinstance(pair, Rejected):
                self.wrapped(f"{line.strip()!r}: {pair.reason}; nothing was played.")
                continue
            if pair is not None:
                first, after, second, rest = pair
                if not (self.confirm(seen, first) and self.confirm(after, second)):
                    continue
                self.queued = rest
                return first
            found = parse_move(line, seen, self.you)
            if isinstance(found, Rejected):
                self.wrapped(f"{line.strip()!r}: {found.reason}.")
                self.wrapped(accepted(seen, self.you))
                continue
            if self.confirm(seen, found):
                return found


def _short_note(note: list[str]) -> str:
    """Why the person is asked (``note``, wrapped), in one line's words: ``Asked, as ...``.

    The smallest screen cuts it at the terminal's width; ``v`` shows it whole.
    """
    text = " ".join(line.strip() for line in note)
    for lead in ("You choose the pile this time, as ", "You are asked this time, as "):
        if text.startswith(lead):
            return "Asked, as " + text.removeprefix(lead).replace(" on the discard pile", "")
    return text


def _short_menu(menu: list[str]) -> list[str]:
    """``menu`` (``cell_menu``'s) in fewer lines, for the smallest screen.

    The line explaining how the cells are numbered goes; the open cells join the
    verb's line, and two numbered moves share a line (``1  k  Knock ...   2  x  Do
    not knock.``), when the whole stays narrower than the terminal (``h moves``, ``l``
    and the fuller screens explain the rest).
    """
    columns, _ = terminal_size()
    out: list[str] = []
    for line in menu:
        text = line.strip()
        if text.startswith("(1-12 "):
            continue
        if text.startswith("RC: ") and out:
            cells = text.rpartition("; ")[2]  # "open cells: 1, 3, 5-12"
            tries = [f"{out[-1]}; {cells}", f"{out[-1]}; {cells.removeprefix('open ')}"]
            fits = [joined for joined in tries if len(joined) < columns]
            if fits:
                out[-1] = fits[0]
                continue
        if re.match(r" +\d+  ", line) and out and re.match(r" +\d+  ", out[-1]):
            # Two numbered moves on one line: "1  k  Knock ...   2  x  Do not knock."
            pair = f"{out[-1]}   {text}"
            if len(pair) < columns:
                out[-1] = pair
                continue
        out.append(line)
    return out


def _is_rc(word: str) -> bool:
    """Whether ``word`` is written as a cell (two digits: row, column)."""
    return len(word) == 2 and word.isascii() and word.isdigit()


def _one_line(text: str, columns: int) -> str:
    """``text`` on one line of the terminal: cut, ending in ``...``, when it is wider."""
    return one_line(text, columns)


def _wrap(text: str, columns: int) -> list[str]:
    """``text`` cut at spaces into lines narrower than ``columns`` (continuations indented)."""
    if len(text) < columns:
        return [text]
    indent = "    " if text.startswith("  ") else "  "
    return wrap_words(text, columns - 1, indent)


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
    saving: str | None = None,
    schema_version: int | None = None,
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
        history: the actions of a saved game to continue from (``play --resume``).
            They are played as they are, the bots' included, without asking the bots
            again (a search bot would take as long as it did in the game); the bots
            then go on with generators seeded afresh, so a resumed game may go on
            differently from one never stopped.
        saving: the file the game is saved to when it stops (``--save``), or
            ``None``: then ``q`` asks before quitting and offers to save.
        schema_version: the saved-game schema version the game is played in (a
            resumed game keeps its save's, ``GameRecord.schema_version``); ``None``:
            the newest.

    Returns:
        The result: the last state, the actions (``history`` included) and whether
        the person quit.

    Raises:
        EndOfInput: ``inp`` ended before the game did; its ``result`` holds the
            game so far.
        GameInterrupted: Ctrl-C; its ``result`` holds the game so far.
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
    state = new_game(num_players, config=config, seed=seed, schema_version=schema_version)
    for number, action in enumerate(history, start=1):
        if state.is_terminal or action not in legal_actions(state):
            raise ValueError(f"move {number} of the saved game is not a move of this game")
        state = apply(state, action)
    if state.is_terminal:
        raise ValueError("the saved game is already over")
    columns, _ = terminal_size()
    session = _Session(you, inp, out, echo, pauses=pauses, auto_pass=auto_pass, saving=saving)
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
        f"Allegra: you are Player {you + 1} of {num_players} (--seat {you}); preset {rules}, "
        f"seed {seed}, {ROUNDS} rounds; lowest total wins."
    )
    intro.say_wrapped(players_line([label or None for label in labels], you))
    intro.say_wrapped(clockwise_line(num_players))
    intro.say("Type a move by what it does (d, p, k, x, g WHO, r/s/t RC) or its number;")
    intro.say("h the rules in short, h moves how to type, l list, v table, m the moves since")
    intro.say("your last one, q quit.")
    intro.say_wrapped(AUTO_PASS_ON if auto_pass else AUTO_PASS_OFF)
    if history and not auto_pass:
        intro.say_wrapped("(To resume with auto-pass on, add --auto-pass to --resume.)")
    if history:
        # A turn counts from its draw: before it, the turn to come; after, the one under way.
        turn = state.turns_played + (1 if state.phase is Phase.DRAW else 0)
        where = f"round {state.round}, turn {turn}"
        if state.phase is Phase.SETUP:
            where = f"the setup of round {state.round}"
        intro.say_wrapped(f"Resuming the saved game after {len(history)} actions, in {where}.")
    actions: list[Action] = list(history)

    def stopped(save: str | None = None) -> PlayResult:
        return PlayResult(
            state=state, actions=tuple(actions), quit=True, save=save, auto_pass=session.auto_pass
        )

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
                for teller in (narrator, short) if pauses else (narrator,):
                    teller.note(passed_for_you(state))
            elif (
                session.auto_pass
                and state.phase is Phase.DRAW
                and DrawDeck() in legal_actions(state)
                and draw_reason(state, you) is None
            ):
                action = DrawDeck()
                for teller in (narrator, short) if pauses else (narrator,):
                    teller.note(drawn_for_you(state))
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
                session.show_moves([report])
                for line in report:
                    session.say(line)
                if not state.is_terminal:
                    session.pause(f"press Enter to deal round {state.round}")
                    narrator.round_heading(state)
                    short.say(f"Round {state.round} of {ROUNDS}: new deal.")
    except _Quit as stop:
        session.say()
        session.say(
            f"You quit in round {state.round} of {ROUNDS}; the game is not "
            "finished and nobody wins."
        )
        return stopped(stop.save)
    except EndOfInput:
        raise EndOfInput(stopped()) from None
    except KeyboardInterrupt:
        raise GameInterrupted(stopped()) from None
    closing = Narrator(out, names=labels, you=you, max_width=columns) if pauses else narrator
    closing.game_over(state)
    if you not in state.winners:
        verdict = "You did not win"
    elif len(state.winners) > 1:
        verdict = "You share the win"
    else:
        verdict = "You win"
    closing.say(f"{verdict}: your total is {state.totals[you]}.")
    return PlayResult(state=state, actions=tuple(actions), quit=False, auto_pass=session.auto_pass)
