"""Internal: where every part of an SVG table picture goes.

One job: the layout of the pictures of ``allegra_rules.svg`` (the wide table) and
``allegra_rules.svg_layout`` (the stacked table for a phone). It checks a drawing's
arguments into [`Options`][allegra_rules.svg_positions.Options] (which seats, in which
order, with which words) and computes a [`Layout`][allegra_rules.svg_positions.Layout]:
the x of every drawn seat's grid and of the faded column at the far left, the y of the
status line, the labels, the grid rows, the zone bands and brackets, and the piles. It
writes no SVG.

It imports ``allegra_rules.geometry``, ``allegra_rules.picture_labels`` and
``allegra_rules.state`` only; the drawing module ``allegra_rules.svg_draw`` and the two
layouts import it. Its names are internal to the package and may change between
releases.
"""

from __future__ import annotations

import itertools
import textwrap
from collections.abc import Iterable, Mapping, Sequence

import attrs

from allegra_rules.geometry import COLS, ROWS, SHARED_COL, Pos
from allegra_rules.picture_labels import PictureLabels, picture_labels
from allegra_rules.state import GameState

# ------------------------------------------------------------------------ sizes

CARD_W = 44
"""The width of a card, in picture units (the cards keep their size at any text scale)."""
CARD_H = 60
"""The height of a card."""
GAP = 6
"""The space between the columns and the rows of one grid."""
SEAT_GAP = 26
"""The space between two grids."""
MARGIN = 18
"""The space around the picture."""
GRID_W = COLS * CARD_W + (COLS - 1) * GAP
"""The width of a seat's 3x4 grid."""
GRID_H = ROWS * CARD_H + (ROWS - 1) * GAP
"""The height of a seat's 3x4 grid."""
PILES_W = 2 * CARD_W + 3 * 14
"""The width of the draw and discard piles side by side."""
MAX_TEXT_SCALE = 3.0
"""The largest ``text_scale``."""


# --------------------------------------------------------------------- the text


def text_width(text: str, size: float) -> float:
    """About how wide ``text`` is drawn at font size ``size``."""
    return 0.6 * size * len(text)


def wrap(text: str, width_px: float, size: float) -> list[str]:
    """``text`` broken into lines that fit ``width_px`` at font size ``size``."""
    chars = max(20, int(width_px / (0.56 * size)))
    lines: list[str] = []
    for paragraph in text.splitlines() or [""]:
        lines.extend(textwrap.wrap(paragraph, chars) or [""])
    return lines


# ------------------------------------------------------------------- the layout


@attrs.frozen
class Options:
    """The checked arguments of one drawing."""

    viewer: int | None
    reveal: bool
    marked: frozenset[int]
    order: tuple[int, ...]  # the drawn seats, left to right
    names: tuple[str, ...]  # by seat
    named: bool  # the names were given
    status: bool
    legend: bool
    piles: bool
    zone_sums: bool
    scale: float
    labels: PictureLabels  # the words drawn

    @property
    def ghost(self) -> int:
        """The seat whose column 3 is repeated at the far left (it closes the first zone)."""
        n = len(self.names)
        return (self.order[0] + 1) % n

    @property
    def whole_table(self) -> bool:
        """Whether every seat is drawn."""
        return len(self.order) == len(self.names)


@attrs.frozen
class Layout:
    """Positions of one table drawing: x by seat, y by part, font sizes by ``scale``."""

    scale: float
    ghost_x: float
    starts: Mapping[int, float]  # by drawn seat
    wrap_x: float | None  # the "also in zone n-1" marker, whole tables only
    piles_x: float | None
    width: float
    status_y: float
    seat_label_y: float
    col_label_y: float
    grid_top: float

    def size(self, base: float) -> float:
        """A font size (or a text offset) of ``base`` at scale 1."""
        return base * self.scale

    def col_x(self, seat: int, col: int) -> float:
        """The left edge of column ``col`` of ``seat``'s grid."""
        return self.starts[seat] + col * (CARD_W + GAP)

    def row_y(self, row: int) -> float:
        """The top edge of row ``row`` of every grid."""
        return self.grid_top + row * (CARD_H + GAP)

    @property
    def grid_bottom(self) -> float:
        """The bottom edge of the grids."""
        return self.grid_top + GRID_H

    @property
    def band_y(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """The top and bottom of the zone bands, even zones first (staggered a little)."""
        top, bottom = self.grid_top, self.grid_bottom
        return ((top - 10, bottom + 4), (top - 4, bottom + 10))

    @property
    def lane_y(self) -> tuple[float, float]:
        """The centre lines of the two rows of zone brackets."""
        first = self.grid_bottom + 10 + 18 * self.scale
        return (first, first + 24 * self.scale)


WRAP_NOTE_SIZE = 10.5
"""The font size (at scale 1) of the note beside the wrapping column's arrow."""


def wrap_note(opts: Options) -> list[str]:
    """The lines of the note beside the arrow at seat 0's column 4: where else it counts."""
    last = len(opts.names) - 1
    words = opts.labels
    if opts.named:
        return [line.format(name=opts.names[last]) for line in words.wrap_named]
    return [line.format(zone=last + 1) for line in words.wrap_numbered]


def layout(opts: Options) -> Layout:
    """Where every part of a drawing with ``opts`` goes, its seats side by side."""
    s = opts.scale
    ghost_x = MARGIN + 26 * s
    x = ghost_x + CARD_W + SEAT_GAP
    starts: dict[int, float] = {}
    for seat in opts.order:
        starts[seat] = x
        x += GRID_W + SEAT_GAP
    right = x - SEAT_GAP
    wrap_x: float | None = None
    if opts.whole_table:
        wrap_x = right + 6
        # Room for the arrow and its note, whose lines start 4 px right of it.
        note = max(text_width(line, WRAP_NOTE_SIZE * s) for line in wrap_note(opts))
        right = wrap_x + max(64 * s, 4 + note + 4)
    piles_x: float | None = None
    width = right + MARGIN
    if opts.piles:
        piles_x = right + 12 + 20 * (s - 1)
        # Room for the piles and for "out of play: 99 cards" under them.
        widest = opts.labels.out_of_play.format(cards=opts.labels.count("cards", 99))
        room = max(PILES_W, text_width(widest, 11 * s) - 10)
        width = piles_x + room + MARGIN
    status_y = 30 * s
    seat_label_y = status_y + 32 * s if opts.status else 26 * s
    col_label_y = seat_label_y + 18 * s
    return Layout(
        scale=s,
        ghost_x=ghost_x,
        starts=starts,
        wrap_x=wrap_x,
        piles_x=piles_x,
        width=width,
        status_y=status_y,
        seat_label_y=seat_label_y,
        col_label_y=col_label_y,
        grid_top=col_label_y + 12 * s,
    )


# ---------------------------------------------------------------- the arguments


def drawing_order(n: int, seats: Iterable[int] | None) -> tuple[int, ...]:
    """The seats to draw, left to right: clockwise-consecutive, highest first."""
    if seats is None:
        return tuple(range(n - 1, -1, -1))
    if isinstance(seats, (str, bytes)) or not isinstance(seats, Iterable):
        raise ValueError(f"seats must be None or an iterable of seats; got {seats!r}")
    # At most n + 1 items are read: an endless or huge iterable is refused, not consumed.
    chosen = list(itertools.islice(seats, n + 1))
    if len(chosen) > n:
        raise ValueError(f"seats must name each of the {n} seats at most once; got more")
    for seat in chosen:
        if type(seat) is not int or not 0 <= seat < n:
            raise ValueError(f"seats must hold seats 0..{n - 1}; got {seat!r}")
    wanted = set(chosen)
    if not wanted or len(wanted) != len(chosen):
        raise ValueError(f"seats must name at least one seat, each once; got {chosen!r}")
    if len(wanted) == n:
        return tuple(range(n - 1, -1, -1))
    # The first drawn seat is the one whose left neighbour is not drawn; from there
    # the run goes on clockwise backwards (p, p - 1, ...), as in the whole table.
    starts = [p for p in wanted if (p + 1) % n not in wanted]
    order = tuple((starts[0] - k) % n for k in range(len(wanted)))
    if len(starts) != 1 or set(order) != wanted:
        raise ValueError(
            f"seats must be neighbours around the table (like 2, 1, 0); got {sorted(wanted)}"
        )
    return order


def check_options(
    state: GameState,
    *,
    viewer: int | None,
    highlight: Iterable[Pos],
    reveal: bool,
    seats: Iterable[int] | None,
    seat_names: Sequence[str] | None,
    status: bool,
    legend: bool,
    piles: bool,
    zone_sums: bool,
    text_scale: float,
    labels: str | PictureLabels = "en",
) -> Options:
    """The arguments of a drawing, checked (``ValueError`` as ``render_svg`` says)."""
    n = state.num_players
    words = labels if isinstance(labels, PictureLabels) else picture_labels(labels)
    if type(reveal) is not bool:
        raise ValueError(f"reveal must be True or False; got {type(reveal).__name__}")
    if viewer is not None:
        if type(viewer) is not int or not 0 <= viewer < n:
            raise ValueError(f"viewer must be None or a seat 0..{n - 1}; got {viewer!r}")
        if reveal:
            raise ValueError("reveal=True draws the omniscient table; it needs viewer=None")
    if not isinstance(highlight, (list, tuple, set, frozenset)):
        raise ValueError(f"highlight must be a collection of Pos; got {type(highlight).__name__}")
    for flag, name in (
        (reveal, "reveal"),
        (status, "status"),
        (legend, "legend"),
        (piles, "piles"),
        (zone_sums, "zone_sums"),
    ):
        if type(flag) is not bool:
            raise ValueError(f"{name} must be True or False; got {flag!r}")
    if type(text_scale) not in (int, float) or not 0.5 <= text_scale <= MAX_TEXT_SCALE:
        raise ValueError(
            f"text_scale must be a number from 0.5 to {MAX_TEXT_SCALE}; got {text_scale!r}"
        )
    order = drawing_order(n, seats)
    if seat_names is None:
        names = tuple(words.seat.format(seat=p + 1) for p in range(n))
    else:
        if isinstance(seat_names, (str, bytes)) or not isinstance(seat_names, Sequence):
            raise ValueError(f"seat_names must be a sequence of {n} names; got {seat_names!r}")
        names = tuple(itertools.islice(seat_names, n + 1))  # never a huge sequence whole
        if len(names) != n or not all(type(s) is str and s.strip() for s in names):
            got = f"{names!r:.200}" if len(names) <= n else f"more than {n} names"
            raise ValueError(f"seat_names must hold {n} non-empty strings, one per seat; got {got}")
    ghost = (order[0] + 1) % n
    marked = set()
    for pos in highlight:
        if not isinstance(pos, Pos):
            raise ValueError(f"highlight must hold Pos values; got {pos!r}")
        i = state.geometry.index(pos)
        if pos.player not in order and not (pos.player == ghost and pos.col == SHARED_COL):
            raise ValueError(f"highlight: {pos!r} is not drawn (seats {list(order)})")
        marked.add(i)
    return Options(
        viewer=viewer,
        reveal=reveal,
        marked=frozenset(marked),
        order=order,
        names=names,
        named=seat_names is not None,
        status=status,
        legend=legend,
        piles=piles,
        zone_sums=zone_sums,
        scale=float(text_scale),
        labels=words,
    )
