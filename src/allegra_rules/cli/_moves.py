"""The moves a person types in ``allegra-rules play``: the grammar and the fixed numbers.

A move is typed by what it does (``d``, ``p``, ``k``, ``x``, ``g 2``, ``r 2 1``,
``s 1 3``, ``s left 0 3``, ``t 2 0 1``, or a bare cell ``2 1``), or by its number in
the list. The numbers are fixed by the move, not by the list: a cell is numbered by
its place in a zone (see ``move_number``), so the same move has the same number
in every decision.

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


def _seat_word(word: str, you: int, n: int) -> int | None:
    if word in ("me", "my", "mine", "own", "you"):
        return you
    if word in ("left", "l"):
        return (you + 1) % n
    if word in ("right",):
        return (you - 1) % n
    if _digits(word) and len(word) <= 2:
        return int(word)
    return None


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


def _cell(words: Sequence[str], owner: int, you: int, n: int) -> Pos | Rejected:
    """``[WHO] ROW COL`` (``seat N ROW COL`` too), the grid ``owner``'s unless WHO says."""
    rest = list(words)
    if rest and rest[0] == "seat":
        rest = rest[1:]
        if len(rest) != 3:
            return Rejected("after 'seat' give the seat number, the row and the column")
    seat = owner
    if len(rest) == 3:
        who = _seat_word(rest[0], you, n)
        if who is None:
            return Rejected(
                f"{rest[0]!r} is not a seat: use a seat number 0-{n - 1}, left or right"
            )
        if not 0 <= who < n:
            return Rejected(f"there is no seat {who}: the seats are 0-{n - 1}")
        seat = who
        rest = rest[1:]
    if len(rest) != 2 or not all(_digits(w) and len(w) <= 2 for w in rest):
        return Rejected("a cell is ROW COL, or WHO ROW COL for another grid (e.g. 2 1, left 0 3)")
    row, col = int(rest[0]), int(rest[1])
    if not (0 <= row < ROWS and 0 <= col < COLS):
        return Rejected(f"({row}, {col}) is not a cell: rows are 0-2 and columns 0-3")
    return Pos(seat, row, col)


def move_text(state: GameState, action: Action, you: int) -> str:
    """How to type the legal ``action`` of seat ``you`` (what ``parse_move`` reads).

    Examples:
        >>> from allegra_rules import new_game, Pos, Reveal
        >>> state = new_game(3, seed=1)
        >>> move_text(state, Reveal(Pos(0, 2, 1)), 0), move_text(state, Reveal(Pos(1, 0, 3)), 0)
        ('r 2 1', 'r left 0 3')
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
        return f"g {action.player}"
    assert isinstance(action, (Reveal, Swap, Take))
    verb = "r" if isinstance(action, Reveal) else "s" if isinstance(action, Swap) else "t"
    pos = action.pos
    owner = area_owner(state, you) if verb == "t" else you
    n = state.num_players
    if pos.player == owner:
        who = ""
    elif pos.player == (you + 1) % n:
        who = "left "
    elif pos.player == (you - 1) % n and n > 2:
        who = "right "
    else:
        who = f"{pos.player} "
    return f"{verb} {who}{pos.row} {pos.col}"


def _name(pos: Pos, you: int) -> str:
    where = f"({pos.row}, {pos.col})"
    return where if pos.player == you else f"seat {pos.player}'s {where}"


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
        >>> parse_move("r 2 1", state, 0), parse_move("left 0 3", state, 0)
        (Reveal(pos=Pos(0, 2, 1)), Reveal(pos=Pos(1, 0, 3)))
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
        return Rejected(f"there is no move {words[0]} now: the numbers now are {listed}")
    first = words[0]
    verb = _VERBS.get(first)
    args = words[1:]
    if verb is None:
        if _digits(first) or first in ("seat", "left", "right", "me", "my", "own", "mine"):
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
            seats = ", ".join(str(g.player) for g in gives)
            return Rejected(f"several seats knocked: say which, g {gives[0].player} ({seats})")
        seat = _seat_word(args[0], you, n) if len(args) == 1 else None
        for give in gives:
            if give.player == seat:
                return give
        seats = ", ".join(str(g.player) for g in gives)
        return Rejected(f"you can give the card to seat {seats} only (g SEAT)")
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
    pos = _cell(args, owner, you, n)
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
    if pos.player >= state.num_players:
        return f"there is no seat {pos.player}"
    if state.card(pos) is None:
        return f"{where} is a gap: no card lies there"
    if verb == "r" and state.is_face_up(pos):
        return f"the card at {where} is already face up"
    if verb == "t":
        whole = "grid" if state.config.take_area == "own" else "zone"
        return f"{where} is not a card you may take from seat {state.knocker}'s {whole}"
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
        text = "r ROW COL (or just ROW COL) to turn up a face-down card, e.g. r 2 1 or left 0 3"
    elif phase is Phase.TAKE:
        text = (
            f"t ROW COL to take a card of seat {state.knocker}'s grid "
            "(t WHO ROW COL for its left neighbour's column 3)"
        )
    else:
        text = "s ROW COL (or just ROW COL) to swap the held card in, e.g. s 1 3 or s left 0 3"
        if Discard() in legal:
            text += "; p to discard it"
        gives = [a for a in legal if isinstance(a, Give)]
        if gives:
            text += "; g SEAT to give it to a knocker"
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
