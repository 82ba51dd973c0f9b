"""The moves a person types in ``allegra-rules play``: the grammar and the fixed numbers.

A move is typed by what it does (``d``, ``p``, ``k``, ``x``, ``g p3``, ``r 24``,
``s 13``, ``s left 14``, ``t p3 12``, or a cell with its seat such as ``left 14``), or by
its number in the list. A cell is one number, its row then its column, counted from one as
the narration says them (``24`` is row 2, column 4); a seat is ``pN`` (``p3`` is Player 3),
``left``, ``right`` or ``me``. The old 0-based forms (``r 0 3``, ``s left 0 3``, ``t 2 0 1``,
a bare ``2 1``, ``g 2``) are refused with the new form, never read as another cell.
The numbers are fixed by the move, not by the list: a cell is numbered by its place in a
zone (see ``move_number``), so the same move has the same number in every decision.

``parse_move`` never raises: it answers an [`Action`][allegra_rules.actions.Action] of the legal
list, or a ``Rejected`` whose text says what would be accepted now.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

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
from allegra_rules.geometry import COLS, ROWS, SHARED_COL, Pos
from allegra_rules.state import GameState, Phase
from allegra_rules.wording import cell_text, seat_name

DISCARD_NUMBER = 16
"""The number of ``Discard()`` (after the 15 cells of a zone)."""
GIVE_NUMBER = 17
"""The number of ``Give`` to the first knocker; later knockers count on from it."""

_VERBS = {
    "d": "d",
    "draw": "d",
    "p": "p",
    "pile": "p",
    "discard": "p",
    "k": "k",
    "knock": "k",
    "x": "x",
    "pass": "x",
    "g": "g",
    "give": "g",
    "r": "r",
    "reveal": "r",
    "flip": "r",
    "s": "s",
    "swap": "s",
    "t": "t",
    "take": "t",
}
"""Every word that starts a move, mapped to its one-letter form."""

_CELL_VERB = {
    Phase.SETUP: "r",
    Phase.FLIP: "r",
    Phase.HOLD_DECK: "s",
    Phase.HOLD_DISCARD: "s",
    Phase.KNOCKER_SWAP: "s",
    Phase.HOLD_TAKEN: "s",
    Phase.TAKE: "t",
}
"""The verb a bare cell stands for in each phase that asks for a cell."""


@attrs.frozen
class Rejected:
    """Input that is not a legal move now.

    Attributes:
        reason: what was wrong, one sentence.
    """

    reason: str


def area_owner(state: GameState, you: int) -> int:
    """Whose zone numbers the cells of the current decision: the knocker's for a take."""
    if state.phase is Phase.TAKE and state.knocker is not None:
        return state.knocker
    return you


def cell_number(pos: Pos, owner: int, num_players: int) -> int | None:
    """The number of cell ``pos`` in ``owner``'s zone, or ``None`` outside it.

    The owner's own cells are 1-12 row by row (1-4 the top row), and column 3 of
    its left neighbour is 13-15, top to bottom.

    Examples:
        >>> cell_number(Pos(0, 1, 3), 0, 3), cell_number(Pos(1, 2, 3), 0, 3)
        (8, 15)
    """
    if pos.player == owner:
        return pos.row * COLS + pos.col + 1
    if pos.player == (owner + 1) % num_players and pos.col == SHARED_COL:
        return ROWS * COLS + pos.row + 1
    return None


def move_number(state: GameState, action: Action, you: int) -> int:
    """The fixed number of a legal ``action`` of seat ``you``.

    ``DrawDeck`` and ``Knock`` are 1, ``DrawDiscard`` and ``Pass`` 2; a cell move is
    its ``cell_number`` in the zone of ``area_owner``; ``Discard`` is 16 and
    ``Give`` 17 for the first knocker, 18 for the next, in knock order.
    """
    if isinstance(action, (DrawDeck, Knock)):
        return 1
    if isinstance(action, (DrawDiscard, Pass)):
        return 2
    if isinstance(action, Discard):
        return DISCARD_NUMBER
    if isinstance(action, Give):
        return GIVE_NUMBER + state.knockers.index(action.player)
    assert isinstance(action, (Reveal, Swap, Take))
    number = cell_number(action.pos, area_owner(state, you), state.num_players)
    assert number is not None, "a cell move lies in the zone of area_owner"
    return number


def numbered(state: GameState, legal: Sequence[Action], you: int) -> dict[int, Action]:
    """The legal moves by their fixed numbers, in ascending number."""
    found = {move_number(state, action, you): action for action in legal}
    return dict(sorted(found.items()))


def _seat_word(word: str, you: int, n: int, *, bare: bool = True) -> int | None:
    """The seat ``word`` names: me, left, right, ``pN`` (Player N), or N when ``bare``.

    Seats are counted from one as the table names them (``p1`` is seat 0); the
    answer is 0-based, and may be out of range (the caller says so).
    """
    if word in ("me", "my", "mine", "own", "you"):
        return you
    if word in ("left", "l"):
        return (you + 1) % n
    if word in ("right",):
        return (you - 1) % n
    if word.startswith("p") and _digits(word[1:]) and len(word) <= 3:
        return int(word[1:]) - 1
    if bare and _digits(word) and len(word) == 1:
        return int(word) - 1
    return None


def _rc(word: str) -> bool:
    """Whether ``word`` is written as a cell: two digits, the row then the column."""
    return len(word) == 2 and _digits(word)


def seat_text(seat: int, you: int, n: int) -> str:
    """How to type seat ``seat`` as seat ``you`` (``me``, ``left``, ``right`` or ``pN``).

    Examples:
        >>> seat_text(1, 0, 3), seat_text(2, 0, 3), seat_text(2, 0, 4)
        ('left', 'right', 'p3')
    """
    if seat == you:
        return "me"
    if seat == (you + 1) % n:
        return "left"
    if seat == (you - 1) % n:
        return "right"
    return f"p{seat + 1}"


def old_cell(verb: str, words: Sequence[str], you: int, n: int) -> Rejected | None:
    """The refusal of a cell typed the old way (``0 3``, ``left 0 3``, ``2 0 1``), else ``None``.

    Before cells were said from one, a cell was typed as two 0-based numbers: such
    input is never read as a cell now. The refusal shows the new form of what was
    typed read the old way, and read as the narration's row and column when that is
    a cell too.

    Args:
        verb: the move's letter as it would be typed (``r``, ``s``, ``t``, ``p``).
        words: the words after the verb.
        you: the person's seat.
        n: the number of seats.

    Examples:
        >>> old_cell("r", ["0", "3"], 0, 2).reason
        'a cell is one number now, row then column counted from one: r 14 is row 1, column 4'
    """
    rest = list(words)
    if rest and rest[0] == "seat":
        rest = rest[1:]
    if len(rest) not in (2, 3) or not all(_digits(w) and len(w) == 1 for w in rest[-2:]):
        return None
    row, col = int(rest[-2]), int(rest[-1])
    who = ""
    if len(rest) == 3:
        seat = _seat_word(rest[0], you, n, bare=False)
        if seat is None and _digits(rest[0]):
            seat = int(rest[0])  # the old seat numbers counted from 0
        who = f"{seat_text(seat, you, n)} " if seat is not None and 0 <= seat < n else ""
    readings = []
    if row < ROWS and col < COLS:
        readings.append(f"{verb} {who}{row + 1}{col + 1} is row {row + 1}, column {col + 1}")
    if 1 <= row <= ROWS and 1 <= col <= COLS:
        readings.append(f"{verb} {who}{row}{col} is row {row}, column {col}")
    if not readings:
        readings.append(f"{verb} 24 is row 2, column 4")
    return Rejected(
        "a cell is one number now, row then column counted from one: " + "; ".join(readings)
    )


def _digits(word: str) -> bool:
    """Whether ``word`` is a number in ASCII digits (``"²"`` and ``"٣"`` are not)."""
    return word.isascii() and word.isdigit()


_SPLIT = re.compile(r"[\s,;()\[\]]+")


def tokens(text: str) -> list[str]:
    """The words of an input line: lower case, split at spaces, commas and brackets.

    Examples:
        >>> tokens("S Left (0, 3)")
        ['s', 'left', '0', '3']
    """
    return [word for word in _SPLIT.split(text.strip().lower()) if word]


def _cell(verb: str, words: Sequence[str], owner: int, you: int, n: int) -> Pos | Rejected:
    """``[WHO] RC`` (``player N RC`` too), the grid ``owner``'s unless WHO says."""
    old = old_cell(verb, words, you, n)
    if old is not None:
        return old
    rest = list(words)
    if rest and rest[0] in ("player", "seat"):
        rest = rest[1:]
        if len(rest) != 2:
            return Rejected(f"after {words[0]!r} give the seat's number and the cell, e.g. 3 24")
    seat = owner
    if len(rest) == 2:
        who = _seat_word(rest[0], you, n)
        if who is None:
            return Rejected(f"{rest[0]!r} is not a seat: use p1-p{n}, left or right")
        if not 0 <= who < n:
            return Rejected(f"there is no Player {who + 1}: the seats are p1-p{n}")
        seat = who
        rest = rest[1:]
    if len(rest) != 1 or not _rc(rest[0]):
        return Rejected(
            f"a cell is one number, its row then its column (e.g. {verb} 24 for row 2, "
            f"column 4), or a seat and the cell for another grid (e.g. {verb} left 14)"
        )
    row, col = int(rest[0][0]) - 1, int(rest[0][1]) - 1
    if not (0 <= row < ROWS and 0 <= col < COLS):
        return Rejected(f"{rest[0]} is not a cell: rows are 1-3 and columns 1-4 (e.g. 24)")
    return Pos(seat, row, col)


def move_text(state: GameState, action: Action, you: int) -> str:
    """How to type the legal ``action`` of seat ``you`` (what ``parse_move`` reads).

    Examples:
        >>> from allegra_rules import new_game, Pos, Reveal
        >>> state = new_game(3, seed=1)
        >>> move_text(state, Reveal(Pos(0, 2, 1)), 0), move_text(state, Reveal(Pos(1, 0, 3)), 0)
        ('r 32', 'r left 14')
    """
    if isinstance(action, DrawDeck):
        return "d"
    if isinstance(action, (DrawDiscard, Discard)):
        return "p"
    if isinstance(action, Knock):
        return "k"
    if isinstance(action, Pass):
        return "x"
    if isinstance(action, Give):
        return f"g {seat_text(action.player, you, state.num_players)}"
    assert isinstance(action, (Reveal, Swap, Take))
    verb = "r" if isinstance(action, Reveal) else "s" if isinstance(action, Swap) else "t"
    pos = action.pos
    owner = area_owner(state, you) if verb == "t" else you
    who = "" if pos.player == owner else f"{seat_text(pos.player, you, state.num_players)} "
    return f"{verb} {who}{pos.row + 1}{pos.col + 1}"


def _name(pos: Pos, you: int) -> str:
    return cell_text(pos, you)


def parse_move(text: str, state: GameState, you: int) -> Action | Rejected:
    """The legal move of seat ``you`` that ``text`` names, or why it names none.

    Args:
        text: one input line (commands such as ``h`` or ``q`` are not moves: the
            caller handles them first).
        state: a state where ``you`` is to act.
        you: the person's seat.

    Returns:
        One of ``legal_actions(state)``, or a ``Rejected``. Never raises.

    Examples:
        >>> from allegra_rules import new_game
        >>> state = new_game(2, seed=1)
        >>> parse_move("r 32", state, 0), parse_move("left 14", state, 0)
        (Reveal(pos=Pos(0, 2, 1)), Reveal(pos=Pos(1, 0, 3)))
        >>> parse_move("0 3", state, 0).reason
        'a cell is one number now, row then column counted from one: r 14 is row 1, column 4'
        >>> parse_move("k", state, 0).reason
        'k (knock) is not a move now: nobody has drawn a card to knock for'
    """
    from allegra_rules.transitions import legal_actions

    legal = legal_actions(state)
    words = tokens(text)
    n = state.num_players
    phase = state.phase
    if not words:
        return Rejected("the line is empty")
    if len(words) == 1 and _digits(words[0]):
        number = int(words[0]) if len(words[0]) <= 3 else -1
        table = numbered(state, legal, you)
        if number in table:
            return table[number]
        listed = number_ranges(list(table))
        hint = ""
        cell_verb = _CELL_VERB.get(phase)
        row, col = divmod(number, 10)
        if cell_verb is not None and _rc(words[0]) and 1 <= row <= ROWS and 1 <= col <= COLS:
            hint = f"; for row {row}, column {col} type {cell_verb} {number}"
        return Rejected(f"there is no move {words[0]} now: the numbers now are {listed}{hint}")
    first = words[0]
    verb = _VERBS.get(first)
    args = words[1:]
    if verb is None:
        named = _seat_word(first, you, n, bare=False) is not None
        if _digits(first) or named or first in ("seat", "player"):
            verb = _CELL_VERB.get(phase)
            args = words
            if verb is None:
                return Rejected("no cell is asked for now")
        else:
            return Rejected(f"{first!r} is not a move")
    if verb in ("d", "p", "k", "x"):
        if args:
            return Rejected(f"{verb} takes nothing after it")
        simple: dict[str, Action] = {
            "d": DrawDeck(),
            "p": DrawDiscard() if phase is Phase.DRAW else Discard(),
            "k": Knock(),
            "x": Pass(),
        }
        if simple[verb] in legal:
            return simple[verb]
        return Rejected(_not_now(verb, state))
    if verb == "g":
        gives = [a for a in legal if isinstance(a, Give)]
        if not gives:
            return Rejected(_not_now(verb, state))
        if not args:
            if len(gives) == 1:
                return gives[0]
            seats = " or ".join(f"g {seat_text(g.player, you, n)}" for g in gives)
            return Rejected(f"several players knocked: say which, {seats}")
        if len(args) == 2 and args[0] in ("player", "seat"):
            args = [f"p{args[1]}"]
        seat = _seat_word(args[0], you, n, bare=False) if len(args) == 1 else None
        for give in gives:
            if give.player == seat:
                return give
        seats = " or ".join(f"g {seat_text(g.player, you, n)}" for g in gives)
        if len(args) == 1 and _digits(args[0]):
            return Rejected(f"a seat is pN now, counted from one as the table says it: {seats}")
        return Rejected(f"you can give the card only to a knocker: {seats}")
    # A cell move: r, s or t.
    kinds: dict[str, type[Reveal] | type[Swap] | type[Take]] = {
        "r": Reveal,
        "s": Swap,
        "t": Take,
    }
    kind = kinds[verb]
    if not any(isinstance(a, kind) for a in legal):
        return Rejected(_not_now(verb, state))
    owner = you if verb != "t" else area_owner(state, you)
    pos = _cell(verb, args, owner, you, n)
    if isinstance(pos, Rejected):
        return pos
    cell_action: Action = kind(pos)
    if cell_action in legal:
        return cell_action
    return Rejected(_why_not_cell(state, pos, verb, you))


_VERB_TEXT = {
    "d": "d (draw from the draw pile)",
    "p": "p (the discard pile)",
    "k": "k (knock)",
    "x": "x (do not knock)",
    "g": "g (give the drawn card to a knocker)",
    "r": "r (turn up a card)",
    "s": "s (swap the held card in)",
    "t": "t (take a card from the knocker)",
}


def _not_now(verb: str, state: GameState) -> str:
    phase = state.phase
    text = _VERB_TEXT[verb]
    if verb == "k" or verb == "x":
        if phase is Phase.KNOCK:
            return f"{text} is not a move now"
        return f"{text} is not a move now: nobody has drawn a card to knock for"
    if verb == "g" and phase is Phase.HOLD_DECK:
        return f"{text} is not a move now: nobody knocked who can take the card"
    return f"{text} is not a move now"


def _why_not_cell(state: GameState, pos: Pos, verb: str, you: int) -> str:
    where = _name(pos, you)
    if state.card(pos) is None:
        return f"{where} is a gap: no card lies there"
    if verb == "r" and state.is_face_up(pos):
        return f"the card at {where} is already face up"
    if verb == "t":
        whole = "grid" if state.config.take_area == "own" else "zone"
        knocker = seat_name(state.knocker or 0, you)
        return f"{where} is not a card you may take from {knocker}'s {whole}"
    whole = "zone" if state.config.swap_area == "zone" or verb == "r" else "own grid"
    if verb == "r" and state.config.reveal_area == "own":
        whole = "own grid"
    return f"{where} is not in your {whole}"


def accepted(state: GameState, you: int) -> str:
    """One line saying what may be typed now, for the prompt's help and for errors."""
    from allegra_rules.transitions import legal_actions

    legal = legal_actions(state)
    phase = state.phase
    table = numbered(state, legal, you)
    numbers = number_ranges(list(table))
    held = state.held
    if phase is Phase.DRAW:
        parts = []
        if DrawDeck() in legal:
            parts.append("d to draw from the draw pile")
        if DrawDiscard() in legal:
            parts.append(f"p to take the {state.discard_top} from the discard pile")
        text = " or ".join(parts)
    elif phase is Phase.KNOCK:
        text = f"k to knock for the {held}, x not to"
    elif phase in (Phase.SETUP, Phase.FLIP):
        text = "r RC to turn up a face-down card (RC: row then column, e.g. r 24 or r left 14)"
    elif phase is Phase.TAKE:
        knocker = state.knocker or 0
        text = (
            f"t RC to take a card of {seat_name(knocker, you)}'s grid (RC: row then column, "
            f"e.g. t 24; t {seat_text((knocker + 1) % state.num_players, you, state.num_players)}"
            " 14 for its left neighbour's column 4)"
        )
    else:
        text = "s RC to swap the held card in (RC: row then column, e.g. s 24 or s left 14)"
        if Discard() in legal:
            text += "; p to discard it"
        gives = [a for a in legal if isinstance(a, Give)]
        if gives:
            first = seat_text(gives[0].player, you, state.num_players)
            text += f"; g and the knocker (e.g. g {first}) to give it"
    return f"Type {text}; or a number ({numbers}); h help, l list, v table, q quit."


def number_ranges(numbers: Sequence[int]) -> str:
    """``[1, 2, 3, 5, 7, 8]`` as ``"1-3, 5, 7-8"``.

    Examples:
        >>> number_ranges([1, 2, 3, 5, 7, 8])
        '1-3, 5, 7-8'
    """
    parts: list[str] = []
    k = 0
    while k < len(numbers):
        j = k
        while j + 1 < len(numbers) and numbers[j + 1] == numbers[j] + 1:
            j += 1
        parts.append(str(numbers[k]) if j == k else f"{numbers[k]}-{numbers[j]}")
        k = j + 1
    return ", ".join(parts)
