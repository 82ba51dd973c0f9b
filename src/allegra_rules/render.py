"""Plain-text drawings of the table and English narration of actions.

Public names:

* [`render_table`][allegra_rules.render.render_table]: the whole table as a spectator sees it
  (face-down cards as ``##``), with the zones and the shared columns marked, the piles, the held
  card, whose turn it is and the running totals.
* [`render_round_end`][allegra_rules.render.render_round_end]: the revealed table of the round that
  just ended, with its zone sums, the ender, the doubling, the round scores and the totals.
* [`describe_action`][allegra_rules.render.describe_action]: one sentence saying what an action
  does, before it is applied.
* [`describe_outcome`][allegra_rules.render.describe_outcome]: sentences for what the engine did by
  itself while settling an action (triples removed, the draw pile refilled, the round end
  triggered).
* [`card_text`][allegra_rules.render.card_text]: a card value with its English article (``"an 8"``).

The narration's sentences are worded in [`allegra_rules.wording`][allegra_rules.wording], the one
place where an action is worded, with their translations: `describe_action`, `describe_outcome`
and `card_text` are its English [`narrate`][allegra_rules.wording.narrate],
[`outcome`][allegra_rules.wording.outcome] and [`card_text`][allegra_rules.wording.card_text].

Drawing conventions. The seats are drawn from the highest seat to seat 0, left to
right. A zone row of seat ``p`` reads ``[left(p)'s (r, 3), p's (r, 0..3)]`` and
``left(p) = (p + 1) % n``, so in this order every zone is five consecutive columns:
the bracketed column 3 of the seat drawn just left of ``p``, then ``p``'s own four
columns. Column 3 is bracketed (``[ 7]``) because it lies in two zones: its owner's
and its right neighbour's. Seat 0's column 3 belongs to seat ``n - 1``'s zone; it is
repeated in parentheses at the far left so that this zone is consecutive too. Face-down
cards are ``##`` (never their value), gaps are ``.``, face-up values are right-aligned.
The spectator never sees a value the rules keep hidden: in particular the card a
drawer takes from a knocker and the knocker's hand card are not shown while held.

Examples:
    >>> from allegra_rules import new_game
    >>> print(render_table(new_game(2, seed=1)).splitlines()[0])
    Round 1 of 3 | setup: Player 1 reveals a card (0 of 4 reveals done)
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence

from allegra_rules import wording
from allegra_rules.actions import Action
from allegra_rules.geometry import CELLS_PER_SEAT, COLS, ROWS, SHARED_COL, Pos
from allegra_rules.state import GameState, Phase, require_state
from allegra_rules.transitions import ROUNDS
from allegra_rules.views import observe
from allegra_rules.wording import _check_viewer, _simultaneous_setup

__all__ = [
    "card_text",
    "describe_action",
    "describe_outcome",
    "render_round_end",
    "render_table",
]

_GAP = "."
_DOWN = "#"
_SEP = "  "  # between two drawn grids
_MARGIN = "    "  # room for the row labels 1, 2, 3


# ---------------------------------------------------------------- small helpers


def card_text(value: int) -> str:
    """A card value with its indefinite article: ``"a 7"``, ``"an 8"``, ``"an 11"``.

    The English [`card_text`][allegra_rules.wording.card_text].

    Examples:
        >>> card_text(7), card_text(8), card_text(11), card_text(-1)
        ('a 7', 'an 8', 'an 11', 'a -1')
    """
    return wording.card_text(value)


def _cell(pos: Pos) -> str:
    return f"row {pos.row + 1}, column {pos.col + 1}"


def _where(pos: Pos, actor: int, own: str = "") -> str:
    """``(r, c)`` (after ``own``) for the actor's own cell, else ``seat k's (r, c)``."""
    if pos.player == actor:
        return f"{own} {_cell(pos)}".lstrip()
    return f"{_player(pos.player)}'s {_cell(pos)}"


def _width(state_values: Sequence[int]) -> int:
    return max([2, *(len(str(v)) for v in state_values)])


def _token(value: int | None, face_down: bool, width: int) -> str:
    if value is None:
        return _GAP.rjust(width)
    if face_down:
        return _DOWN * width
    return str(value).rjust(width)


def _and_list(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _player(seat: int | None) -> str:
    """A seat as players say it, counted from one: ``"Player 3"``."""
    return "nobody" if seat is None else f"Player {seat + 1}"


def _seats_text(seats: Sequence[int]) -> str:
    return _and_list([f"{_player(s)}" for s in seats])


def _center(text: str, width: int) -> str:
    return text.center(width) if len(text) <= width else text[:width]


# ------------------------------------------------------------------- the grids


def _band_width(seats: int, width: int) -> int:
    """The drawn width of a band of ``seats`` grids whose tokens are ``width`` wide."""
    grid_width = COLS * width + (COLS - 1) + 2
    return len(_MARGIN) + width + 2 + seats * (len(_SEP) + grid_width)


def table_width(num_players: int, width: int = 2) -> int:
    """How wide the one-band table drawing of ``num_players`` seats is, in characters.

    Examples:
        >>> table_width(4), table_width(6)
        (68, 98)
    """
    return _band_width(num_players, width)


def _bands(num_players: int, width: int, max_width: int | None) -> list[list[int]]:
    """The seats of each band, highest seat first: one band, or two when too wide."""
    order = list(range(num_players - 1, -1, -1))
    if max_width is None or _band_width(num_players, width) <= max_width:
        return [order]
    first = (num_players + 1) // 2
    return [order[:first], order[first:]]


def _grid_lines(
    num_players: int,
    cells: Sequence[int | None],
    face_down: int,
    width: int,
    headers: Sequence[str],
    zone_notes: Sequence[str],
    max_width: int | None = None,
    labels_once: bool = False,
    viewer: int | None = None,
    inline_notes: bool = False,
) -> list[str]:
    """The table drawing: seat headers, column labels, 3 rows, zone brackets, notes.

    ``headers[s]`` is written above seat ``s``'s grid, ``zone_notes[s]`` (one line)
    under seat ``s``'s zone. When the drawing is wider than ``max_width`` it is cut
    into two bands, one above the other; each band starts with a repeated column 3
    (in parentheses) of the seat drawn just left of it, so every zone stays five
    consecutive columns. ``labels_once`` writes the column labels above the first
    band only. Under the rows, each zone's bracket covers its five columns, neighbours'
    brackets taking turns on two lines (they overlap on the [4] they share), with the
    zone's notes under them; ``inline_notes`` writes instead each zone's (one-line)
    note alone, centred under its five columns, on one line: a band takes three lines
    less.
    """
    out: list[str] = []
    for k, band in enumerate(_bands(num_players, width, max_width)):
        lines = _band_lines(
            num_players, band, cells, face_down, width, headers, zone_notes, viewer, inline_notes
        )
        out += [lines[0], *lines[2:]] if labels_once and k else lines
    return out


def _band_lines(
    num_players: int,
    band: Sequence[int],
    cells: Sequence[int | None],
    face_down: int,
    width: int,
    headers: Sequence[str],
    zone_notes: Sequence[str],
    viewer: int | None = None,
    inline_notes: bool = False,
) -> list[str]:
    n = num_players
    ghost_seat = (band[0] + 1) % n  # its column 3 closes the zone of the band's first seat
    grid_width = COLS * width + (COLS - 1) + 2  # "c0 c1 c2 [c3]"
    ghost_width = width + 2  # "(c3)"
    starts: dict[int, int] = {}
    pos = len(_MARGIN) + ghost_width + len(_SEP)
    for seat in band:
        starts[seat] = pos
        pos += grid_width + len(_SEP)
    total = pos - len(_SEP)
    bracket_offset = (COLS - 1) * (width + 1)
    # Each zone's bracket spans its five columns: from the first character of the [4]
    # just left of the grid (the repeated one at the far left) to the last of the
    # grid's own [4].
    spans = {
        seat: (
            len(_MARGIN) if k == 0 else starts[band[k - 1]] + bracket_offset,
            starts[seat] + bracket_offset + ghost_width - 1,
        )
        for k, seat in enumerate(band)
    }

    def blank() -> list[str]:
        return [" "] * total

    def put(line: list[str], at: int, text: str) -> None:
        line[at : at + len(text)] = list(text)

    head = blank()
    put(head, len(_MARGIN), _center(f"P{ghost_seat + 1}", ghost_width))
    for seat in band:
        put(head, starts[seat], _center(headers[seat], grid_width))
    labels = blank()
    put(labels, len(_MARGIN), "(" + str(SHARED_COL + 1).rjust(width) + ")")
    own_labels = " ".join(str(c + 1).rjust(width) for c in range(COLS - 1))
    col_labels = f"{own_labels} [{str(SHARED_COL + 1).rjust(width)}]"
    for seat in band:
        put(labels, starts[seat], col_labels)
    out = ["".join(head).rstrip(), "".join(labels).rstrip()]
    for r in range(ROWS):
        line = blank()
        put(line, 0, str(r + 1).rjust(2))
        ghost = ghost_seat * CELLS_PER_SEAT + r * COLS + SHARED_COL
        put(line, len(_MARGIN), f"({_token(cells[ghost], bool(face_down >> ghost & 1), width)})")
        for seat in band:
            base = seat * CELLS_PER_SEAT + r * COLS
            tokens = [
                _token(cells[base + c], bool(face_down >> (base + c) & 1), width)
                for c in range(COLS)
            ]
            put(line, starts[seat], " ".join(tokens[:-1]) + f" [{tokens[-1]}]")
        out.append("".join(line).rstrip())
    if inline_notes:
        # Compact: each zone's note alone, centred under the zone's five columns (the
        # seat is named above its grid); the legend says what a note counts.
        line = blank()
        for seat in band:
            a, b = spans[seat]
            note = zone_notes[seat][: b - a + 1]
            put(line, a + (b - a + 1 - len(note)) // 2, note)
        out.append("".join(line).rstrip())
        return out
    # Neighbours share a [4], so their brackets overlap there: they take turns on two
    # lines, and each bracket covers whole columns.
    brackets = [blank(), blank()]
    notes = blank()
    for k, seat in enumerate(band):
        a, b = spans[seat]
        put(brackets[k % 2], a, "+" + "-" * (b - a - 1) + "+")
        label = " your zone " if seat == viewer else f" {_player(seat)} "
        put(brackets[k % 2], a + 1 + (b - a - 1 - len(label)) // 2, label)
        note = zone_notes[seat][: b - a - 1]
        put(notes, a + 1 + (b - a - 1 - len(note)) // 2, note)
    out += ["".join(line).rstrip() for line in brackets if "".join(line).strip()]
    out.append("".join(notes).rstrip())
    return out


def _seat_word(seat: int, viewer: int | None) -> str:
    return "you" if seat == viewer else f"{_player(seat)}"


def _ghosts(num_players: int, bands: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    """``(seat, zone)`` of each band's far-left column: ``seat``'s column 3 closing ``zone``."""
    return [((band[0] + 1) % num_players, band[0]) for band in bands]


def _legend(
    n: int,
    viewer: int | None = None,
    max_width: int | None = None,
    *,
    bands: Sequence[Sequence[int]] | None = None,
    face_down: bool = True,
    brackets: bool = True,
) -> list[str]:
    """The legend in words: the zones, the far-left column, the notes and the symbols.

    ``bands`` are the seats of each band of grids as drawn (one band by default);
    ``face_down`` says whether the notes under the zones may count face-down cards;
    ``brackets`` whether the zones are drawn with brackets (else each note alone).
    """
    ghosts = _ghosts(n, bands or [list(range(n - 1, -1, -1))])
    far = []
    for seat, zone in ghosts:
        whose = "your column 4" if seat == viewer else f"column 4 of {_player(seat)}"
        closes = "your zone" if zone == viewer else f"{_player(zone)}'s zone"
        far.append(f"P{seat + 1} (4) repeats {whose}, where it closes {closes}")
    far_left = ("At the far left, " if len(far) == 1 else "At the far left of each band, ") + (
        "; ".join(far) + "."
    )
    if viewer is not None:
        lft, rgt = (viewer + 1) % n, (viewer - 1) % n
        neighbour = "your only neighbour" if n == 2 else "your left neighbour"
        other = f"{_player(rgt)}'s" if n == 2 else f"{_player(rgt)}'s, your right neighbour's"
        text = (
            f"Your zone is your grid plus the bracketed column 4 just left of it: column 4 "
            f"of {_player(lft)}, {neighbour}. Your own column 4 is also in "
            f"{other} zone. {far_left}"
        )
    else:
        text = (
            "Each zone is a player's grid plus the bracketed column 4 just left of it, "
            "which is its left neighbour's, so every [4] is in two zones. Column 4 of "
            f"Player 1 is repeated at the far left, where it closes Player {n}'s zone."
        )
        if len(ghosts) > 1:
            text += " " + far_left
    if brackets:
        text += " Brackets span the zones (neighbours' overlap on a [4]); under them,"
    else:
        text += " Under the zones,"
    if face_down:
        text += " each zone's face-up sum and face-down cards (##), as sum 7, 13 ##; a . is a gap."
    else:
        text += " each zone's sum."
    return textwrap.wrap(text, max_width or 80)


def _compact_legend(
    n: int,
    viewer: int | None,
    max_width: int | None,
    bands: Sequence[Sequence[int]],
    example: str,
) -> list[str]:
    """The legend in two short lines (at 80 columns), for a table drawn with ``compact``.

    ``example`` is a zone note as drawn (``sum 3, 13 ##``) to explain.
    """
    shown, _, hidden = example.removeprefix("sum ").partition(", ")
    hidden = hidden.removesuffix(" ##")
    if hidden:
        notes = f"{example} = face-up sum {shown} and {hidden} face-down cards (##); . = gap"
    else:
        notes = f"{example} = the zone's face-up sum; ## = a face-down card, . = gap"
    ghosts = _ghosts(n, bands)
    if len(ghosts) == 1:
        seat = ghosts[0][0]
        again = "your [4]" if seat == viewer else f"{_player(seat)}'s [4]"
        far = f"far left: P{seat + 1} (4) = {again}"
    else:
        far = "far left: PK (4) = Player K's [4]"
    if viewer is None:
        zones = "A zone: a grid + the [4] left of it"
    else:
        zones = f"Your zone = your grid + Player {(viewer + 1) % n + 1}'s [4]"
    lines = [f"Legend: {notes}.", f"{zones}; {far}."]
    if max_width is None:
        return lines
    return [part for line in lines for part in wrap_words(line, max_width, "  ")]


def _zone_note(state: GameState, seat: int) -> str:
    """The note under a zone: its face-up sum, and how many of its cards lie face down."""
    shown = 0
    hidden = 0
    cells = state.cells
    for i in state.geometry.zone[seat]:
        value = cells[i]
        if value is None:
            continue
        if state.face_down >> i & 1:
            hidden += 1
        else:
            shown += value
    return f"sum {shown}, {hidden} ##" if hidden else f"sum {shown}"


# ------------------------------------------------------------------ the header


def status_text(state: GameState) -> str:
    """What the game waits for, in words (never a hidden value)."""
    who = state.current_player
    phase = state.phase
    drawer = state.drawer
    held = state.held
    n = state.num_players
    if phase is Phase.OVER:
        best = state.totals[state.winners[0]]
        return f"game over: {_seats_text(state.winners)} won with {best}"
    if phase is Phase.SETUP:
        if _simultaneous_setup(state):
            return f"setup: {_player(who)} names a cell ({state.setup_reveals} of {2 * n} named)"
        return (
            f"setup: {_player(who)} reveals a card ({state.setup_reveals} of {2 * n} reveals done)"
        )
    if phase is Phase.DRAW:
        text = f"turn {state.turns_played + 1}: {_player(who)} to draw"
        if state.ender is not None:
            text += f" (a last turn: {_player(state.ender)} ended the round)"
        return text
    turn = f"turn {state.turns_played}: "
    if phase is Phase.KNOCK:
        return turn + f"{_player(who)} may knock for the {held} {_player(drawer)} drew"
    if phase is Phase.HOLD_DECK:
        knocks = f"; {_seats_text(state.knockers)} knocked" if state.knockers else ""
        return turn + f"{_player(who)} holds the {held} from the draw pile{knocks}"
    if phase is Phase.HOLD_DISCARD:
        return turn + f"{_player(who)} holds the {held} from the discard pile"
    if phase is Phase.FLIP:
        return turn + f"{_player(who)} turns up a card"
    if phase is Phase.KNOCKER_SWAP:
        return turn + f"{_player(who)} swaps in the {held} given by {_player(drawer)}"
    if phase is Phase.TAKE:
        return turn + f"{_player(who)} takes a card from {_take_from(state)}"
    return turn + f"{_player(who)} swaps the card taken from {_player(state.knocker)} into its zone"


def _take_from(state: GameState) -> str:
    """Where the drawer of a knock exchange takes a card: ``seat k's zone`` (or ``grid``)."""
    whole = "grid" if state.config.take_area == "own" else "zone"
    return f"{_player(state.knocker)}'s {whole}"


def _piles(state: GameState) -> str:
    top = state.discard_top
    discard = (
        f"discard pile: {top} on top, {_cards(len(state.discard_pile))}"
        if top is not None
        else "discard pile: empty"
    )
    text = f"Draw pile: {_cards(len(state.draw_pile))} | {discard}"
    if state.out_of_play:
        text += f" | out of play: {_cards(len(state.out_of_play))}"
    return text


def _cards(count: int) -> str:
    return f"{count} card" if count == 1 else f"{count} cards"


def _subject(seat: int, viewer: int | None, verb: str) -> str:
    """``"you hold"`` for the viewer's own seat, else ``"seat 2 holds"``."""
    return f"you {verb}" if seat == viewer else f"{_player(seat)} {verb}s"


_HELD_IN_STATUS = frozenset(
    {
        Phase.SETUP,
        Phase.DRAW,
        Phase.FLIP,
        Phase.OVER,
        Phase.KNOCK,
        Phase.HOLD_DECK,
        Phase.HOLD_DISCARD,
        Phase.KNOCKER_SWAP,
    }
)
"""The phases whose status line says what is held (nothing, or the card and its source)."""


def _held(state: GameState, viewer: int | None = None) -> str:
    """Who holds which card, naming it only when ``viewer`` (or everyone) has seen it."""
    held = state.held
    if held is None:
        return "Held: nothing"
    phase = state.phase
    if phase is Phase.HOLD_TAKEN:
        drawer = state.current_player
        assert drawer is not None
        taken = f"taken from {_take_from(state)}"
        if not state.held_was_face_down:
            return f"Held: {_subject(drawer, viewer, 'hold')} the {held}, {taken}"
        if viewer == drawer:
            return f"Held: you hold the {held}, {taken} face down (only you have seen it)"
        return (
            f"Held: {_player(drawer)} holds a card {taken} face down "
            f"(only {_player(drawer)} has seen it)"
        )
    holder = state.current_player if phase is Phase.KNOCKER_SWAP else state.drawer
    assert holder is not None
    source = {
        Phase.KNOCK: "drawn from the draw pile",
        Phase.HOLD_DECK: "drawn from the draw pile",
        Phase.HOLD_DISCARD: "taken from the discard pile",
        Phase.KNOCKER_SWAP: f"given by {_player(state.drawer)}",
    }.get(phase, "")
    return f"Held: {_subject(holder, viewer, 'hold')} the {held}" + (
        f", {source}" if source else ""
    )


def _hand_lines(state: GameState, viewer: int | None = None) -> list[str]:
    """The knocker's replaced card, named only when ``viewer`` (or everyone) has seen it."""
    lines = []
    drawer = state.drawer
    for holder, card in state.in_hand:
        fills = f"it fills the gap that {_player(drawer)} takes a card from"
        if not state.hand_was_face_down:
            lines.append(
                f"In hand: {_subject(holder, viewer, 'hold')} the {card} "
                f"{'you' if holder == viewer else 'it'} replaced; {fills}"
            )
        elif viewer == holder:
            lines.append(
                f"In hand: you hold the {card} you replaced face down (only you have seen "
                f"it); {fills}"
            )
        else:
            lines.append(
                f"In hand: {_player(holder)} holds the face-down card it replaced (only "
                f"{_player(holder)} has seen it); {fills}"
            )
    return lines


def _named_lines(state: GameState, viewer: int | None) -> list[str]:
    """The cells ``viewer`` named face down in a simultaneous setup (A36): only its own."""
    if viewer is None or not state.setup_named:
        return []
    positions = state.geometry.positions
    mine = observe(state, viewer).own_setup_named
    if not mine:
        return []
    cells = _and_list([_where(positions[i], viewer) for i in mine])
    return [f"Named: you named {cells}; it turns up when every player has named two cells"]


def _totals(totals: Sequence[int]) -> str:
    return "Totals: " + ", ".join(f"{_player(s)}: {t}" for s, t in enumerate(totals))


MIN_WIDTH = 40
"""The narrowest ``max_width`` the drawings accept."""


def _check_width(max_width: object) -> int | None:
    """``max_width`` if it is ``None`` or an int of at least ``MIN_WIDTH``."""
    if max_width is None:
        return None
    if type(max_width) is not int or max_width < MIN_WIDTH:
        raise ValueError(f"max_width must be None or an int >= {MIN_WIDTH}; got {max_width!r}")
    return max_width


def _fit(lines: Sequence[str], max_width: int | None) -> list[str]:
    """``lines``, each wrapped to ``max_width`` (continuations indented) when given."""
    if max_width is None:
        return list(lines)
    out: list[str] = []
    for line in lines:
        if len(line) <= max_width:
            out.append(line)
        else:
            out += wrap_words(line, max_width, "  ")
    return out


_KEEP_TOGETHER = re.compile(r"\b(seat|seats|Seat|Player|Players) (\d+)(?:(:) (-?\d+))?")
"""A player word, its number and a value after a colon: a line never ends between them."""
_CELL = re.compile(r"\((-?\d+), (-?\d+)\)")
"""A cell ``(ROW, COL)``: never cut either."""


def wrap_words(text: str, width: int, indent: str = "  ") -> list[str]:
    """``text`` cut at spaces into lines of at most ``width`` characters.

    Continuation lines start with ``indent``. A line never ends inside "Player N",
    "Player N: V" or a cell "(R, C)", so lists such as ``Player 1: 12, Player 2: 9``
    break between their items, and a word is never cut (a single word wider than
    ``width``, such as a long file name, keeps a line of its own).

    Examples:
        >>> wrap_words("Final totals: Player 1: 70, Player 2: 71", 30)
        ['Final totals: Player 1: 70,', '  Player 2: 71']
    """
    kept = _KEEP_TOGETHER.sub(
        lambda m: "\u00a0".join(filter(None, (m[1], m[2] + (m[3] or ""), m[4]))), text
    )
    kept = _CELL.sub("(\\1,\u00a0\\2)", kept)
    lines = textwrap.wrap(
        kept, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False
    )
    return [line.replace("\u00a0", " ") for line in lines] or [""]


def render_table(
    state: GameState,
    *,
    legend: bool = True,
    viewer: int | None = None,
    max_width: int | None = None,
    compact: bool = False,
) -> str:
    """A plain-text drawing of the table as every player (or one seat) sees it.

    The first lines give the round, what the game waits for (whose turn, and the
    phase), the pile sizes, the discard pile's top, the held card, a knocker's hand
    card and the totals. Then every seat's 3x4 grid, seats from ``n - 1`` down to
    ``0`` left to right, so that each zone is five consecutive columns, a
    ``+--- Player p ----+`` bracket under each zone's five columns (neighbours'
    brackets take turns on two lines, overlapping on the ``[4]`` they share), and
    under them each zone's face-up sum and its count of face-down cards
    (``sum 28, 10 ##``). The seat to
    act is marked ``*seat p*``. A legend in words closes the drawing: the zones, the
    far-left column of each band, the notes under the zones and the symbols.

    A card that only one seat has seen (a card the drawer took face down in a knock
    exchange, the face-down card a knocker replaced, A37) is named only in the
    drawing for that seat, and the drawing says who has seen it.

    Args:
        state: any state of a game.
        legend: whether to end with the legend explaining the zones.
        viewer: draw the table for this seat (its private cards, its grid marked
            "you", the legend in its words), or ``None`` for a spectator.
        max_width: the widest line allowed (the terminal's width, at least 40): the
            grids are drawn in two bands, one above the other, when one band is
            wider, and long header lines are wrapped. ``None`` never wraps.
        compact: leave out the totals and the ``Held:`` line where the status line
            already says what is held (or nothing is), write each zone's sum and
            face-down count on one line centred under its five columns
            (``sum 16, 12 ##``, the seat being named above its grid; no brackets), the
            column labels above the first band
            only, and the legend in two short lines (at 80 columns) that explain the
            notes, ``##`` and ``.``, the zone of ``viewer`` and the far-left column: a
            screen of six seats on 80x24 keeps its legend, and leaves room for the
            last turns above it.

    Returns:
        The drawing, lines joined by newlines, without a trailing newline. Face-down
        cards never show their value.

    Raises:
        ValueError: ``state`` is not a state, ``viewer`` not a seat, or ``max_width``
            not an int of at least 40.

    Examples:
        >>> from allegra_rules import new_game
        >>> table = render_table(new_game(3, seed=2))
        >>> "## ## ## [##]" in table, " Player 3 " in table
        (True, True)
    """
    require_state(state)
    viewer = _check_viewer(state, viewer)
    max_width = _check_width(max_width)
    n = state.num_players
    width = _width(state.config.deck_cards())
    who = state.current_player
    headers = []
    for s in range(n):
        name = "You" if s == viewer else f"{_player(s)}"
        headers.append(f"*{name}*" if s == who else name)
    compact = compact is True
    notes = [_zone_note(state, s) for s in range(n)]
    held = [_held(state, viewer)]
    if compact and state.phase in _HELD_IN_STATUS:  # the status line says it already
        held = []
    head = [
        f"Round {state.round} of {ROUNDS} | {status_text(state)}",
        _piles(state),
        *held,
        *_hand_lines(state, viewer),
        *_named_lines(state, viewer),
    ]
    if not compact:  # the compact table leaves the totals to the full one (v in play)
        head.append(_totals(state.totals))
    lines = _fit(head, max_width)
    lines += _grid_lines(
        n,
        state.cells,
        state.face_down,
        width,
        headers,
        notes,
        max_width,
        labels_once=compact,
        viewer=viewer,
        inline_notes=compact,
    )
    bands = _bands(n, width, max_width)
    if legend and compact:
        mine = notes[0 if viewer is None else viewer]
        example = next((note for note in notes if note.endswith("##")), mine)
        lines += _compact_legend(n, viewer, max_width, bands, mine if "##" in mine else example)
    elif legend:
        lines += _legend(n, viewer, max_width, bands=bands)
    return "\n".join(lines)


def render_round_end(state: GameState, *, legend: bool = True, max_width: int | None = None) -> str:
    """The revealed table and the scoring of the round that ended last.

    Call it with the first state after a round ended (the next round's setup, or
    the final state): it draws ``state.last_round``'s table with every card face up
    and each zone's sum under its bracket, then says who ended the round and whether
    that sum was doubled, and lists the zone sums, the round scores and the totals
    after that round.

    Args:
        state: a state whose ``last_round`` is set.
        legend: whether to add the legend explaining the zones.
        max_width: the widest line allowed: two bands of grids when one is wider
            (see [`render_table`][allegra_rules.render.render_table]); ``None`` never wraps.

    Returns:
        The report, lines joined by newlines.

    Raises:
        ValueError: no round has ended yet in ``state``, or a bad ``max_width``.
    """
    require_state(state)
    max_width = _check_width(max_width)
    result = state.last_round
    if result is None:
        raise ValueError("no round has ended yet: state.last_round is None")
    n = state.num_players
    width = _width(state.config.deck_cards())
    sums = result.zone_sums
    headers = [f"{_player(s)}" for s in range(n)]
    notes = [f"sum {sums[s]}" for s in range(n)]
    lines = [f"Round {result.round} is over: every card is turned up.", ""]
    # Cut into bands (six seats on 80 columns), each zone's sum alone under its five
    # columns, as on the compact table: the report fits 24 lines.
    bands = _bands(n, width, max_width)
    inline = len(bands) > 1
    lines += _grid_lines(n, result.cells, 0, width, headers, notes, max_width, inline_notes=inline)
    if legend:
        lines += _legend(n, None, max_width, bands=bands, face_down=False, brackets=not inline)
    lines.append("")
    ender = result.ender
    if ender is None:
        lines.append("The round hit the turn limit: nobody ended it, nobody is doubled.")
    else:
        lowest = min(sums)
        if result.doubled:
            verdict = (
                f"its sum {sums[ender]} is not the lowest ({lowest}), so it is doubled "
                f"to {result.scores[ender]}"
            )
        elif sums[ender] == lowest:
            verdict = f"its sum {sums[ender]} is the lowest, so it is not doubled"
        else:
            verdict = (
                f"its sum {sums[ender]} is not the lowest ({lowest}), but a sum of zero "
                "or less is not doubled under these rules"
            )
        lines.append(f"{_player(ender)} ended the round; {verdict}.")
    history = state.round_scores[: result.round]
    after = [sum(scores[s] for scores in history) for s in range(n)]
    lines.append("Zone sums:    " + ", ".join(f"{_player(s)}: {v}" for s, v in enumerate(sums)))
    lines.append(
        "Round scores: " + ", ".join(f"{_player(s)}: {v}" for s, v in enumerate(result.scores))
    )
    lines.append(f"{_totals(after)} (after round {result.round})")
    return "\n".join(_fit(lines, max_width))


# ------------------------------------------------------------------ narration


def describe_action(state: GameState, action: Action, *, viewer: int | None = None) -> str:
    """One English sentence saying what ``action`` does in ``state``, before it happens.

    The English [`narrate`][allegra_rules.wording.narrate], where the sentence is worded
    (with its translations). Only what the rules show to everyone is named: a card drawn from
    the draw pile, the discard pile's cards, face-up cards, a card a setup or flip reveal turns
    up, and a card swapped out onto the discard pile. A face-down card that moves without being
    shown (a knocker's replaced card, a card the drawer takes) is called "the face-down card",
    and the sentence says who alone sees it (A37); the sentence for that seat (``viewer``) also
    names it. With ``setup_reveals="simultaneous"`` (A36) a setup cell is *named*, face down:
    only its namer is told which cell, and the values come with
    [`describe_outcome`][allegra_rules.render.describe_outcome] when the last cell is named.

    Args:
        state: the state the action is taken in.
        action: a legal action of ``state``.
        viewer: the seat the sentence is written for (it may name a card only that
            seat has seen), or ``None`` for a spectator.

    Returns:
        The sentence, starting with the player (``"Player 1"``, or ``"You"`` for the
        viewer) and ending with a full stop.

    Raises:
        IllegalActionError: ``action`` is not legal in ``state``.
        ValueError: ``viewer`` is not ``None`` or a seat.

    Examples:
        >>> from allegra_rules import new_game, Pos, Reveal
        >>> describe_action(new_game(2, seed=1), Reveal(Pos(0, 1, 2)))
        'Player 1 reveals a 2 at row 2, column 3.'
    """
    return wording.narrate(state, action, viewer=viewer)


def describe_outcome(state: GameState, action: Action, after: GameState) -> tuple[str, ...]:
    """Sentences for what happened by itself when ``action`` took ``state`` to ``after``.

    The English [`outcome`][allegra_rules.wording.outcome], where the sentences are worded
    (with their translations). These are the engine's own steps, not a player's choice: the
    cards of triples removed while settling (with where they went), a draw pile refilled from
    the discard pile, and a player whose cards are now all face up triggering the round end.
    The round's scoring itself is left to
    [`render_round_end`][allegra_rules.render.render_round_end].

    Args:
        state: the state before the action.
        action: the action that was applied.
        after: ``apply(state, action)``.

    Returns:
        Zero or more sentences, in the order they happened.
    """
    return wording.outcome(state, action, after)
