"""Seats, cells, zones and lines: the table's shape, computed once per seat count.

Seats ``0..n-1`` sit clockwise and play passes clockwise. The next seat clockwise is a
player's *left* neighbour. Every player owns a grid of 3 rows by 4 columns; column 3
(the rightmost) is shared: it also belongs to the zone of the right neighbour. A
player's *zone* is its own 12 cells plus the left neighbour's column 3, 15 cells read
row by row as ``[left's (r, 3), own (r, 0), own (r, 1), own (r, 2), own (r, 3)]``.

Cells are addressed internally by a flat index ``seat * 12 + row * 4 + col``; every
table here maps seats to tuples of such indices so that the rules never recompute
the shape of the table.
"""

from __future__ import annotations

from functools import cache

import attrs

ROWS = 3
"""Rows in a player's grid."""
COLS = 4
"""Columns in a player's grid; column ``COLS - 1`` is the shared one."""
CELLS_PER_SEAT = ROWS * COLS
"""Cards dealt to each player: 12."""
SHARED_COL = COLS - 1
"""The column a player shares with its right neighbour's zone."""


MAX_SEATS = 64
"""The most seats any table may have (and any document may name)."""


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_range(name: str, value: object, low: int, high: int) -> None:
    # ``type(...) is int``: a bool or a float is not a coordinate.
    if type(value) is not int:
        raise ValueError(
            f"Pos.{name} must be an int {low}..{high}; got {_short(value)} ({type(value).__name__})"
        )
    if not low <= value <= high:
        raise ValueError(f"Pos.{name} must be {low}..{high}; got {value}")


@attrs.frozen(order=True, slots=True, repr=False)
class Pos:
    """A cell of ``player``'s own grid: ``row`` 0..2, ``col`` 0..3 (col 3 is shared).

    Positions order as the tuple ``(player, row, col)``. Every coordinate must be an
    ``int`` (a ``bool`` or a ``float`` is not); anything else raises ``ValueError``.

    Examples:
        >>> Pos(1, 2, 3)
        Pos(1, 2, 3)
        >>> Pos(0, 1, 0) < Pos(0, 1, 2) < Pos(1, 0, 0)
        True
    """

    player: int
    row: int
    col: int

    def __attrs_post_init__(self) -> None:
        _check_range("player", self.player, 0, MAX_SEATS - 1)
        _check_range("row", self.row, 0, ROWS - 1)
        _check_range("col", self.col, 0, COLS - 1)

    def __repr__(self) -> str:
        return f"Pos({self.player}, {self.row}, {self.col})"

    @property
    def index(self) -> int:
        """The flat cell index ``player * 12 + row * 4 + col``."""
        return self.player * CELLS_PER_SEAT + self.row * COLS + self.col


def check_seats(num_players: object) -> int:
    """``num_players`` as a seat count ``2..MAX_SEATS``; ``ValueError`` otherwise."""
    if type(num_players) is not int or not 2 <= num_players <= MAX_SEATS:
        raise ValueError(f"num_players must be an int 2..{MAX_SEATS}; got {_short(num_players)}")
    return num_players


def check_seat(player: object, num_players: int, what: str = "player") -> int:
    """``player`` as a seat ``0..num_players-1``; ``ValueError`` otherwise."""
    if type(player) is not int or not 0 <= player < num_players:
        raise ValueError(f"{what} must be a seat 0..{num_players - 1}; got {_short(player)}")
    return player


def left(player: int, num_players: int) -> int:
    """The left neighbour of ``player``: the next seat clockwise.

    Raises:
        ValueError: ``num_players`` is not a seat count or ``player`` not a seat.
    """
    n = check_seats(num_players)
    return (check_seat(player, n) + 1) % n


def right(player: int, num_players: int) -> int:
    """The right neighbour of ``player``: the previous seat clockwise.

    Raises:
        ValueError: ``num_players`` is not a seat count or ``player`` not a seat.
    """
    n = check_seats(num_players)
    return (check_seat(player, n) - 1) % n


@attrs.frozen(slots=True, repr=False, eq=False)
class Geometry:
    """Index tables for a table of ``num_players`` seats (build with ``geometry``).

    Attributes:
        num_players: the seat count.
        num_cells: ``12 * num_players``.
        positions: ``positions[i]`` is the [`Pos`][allegra_rules.geometry.Pos] of flat index ``i``.
        own: ``own[p]`` lists the 12 indices of seat ``p``'s grid, row by row.
        zone: ``zone[p]`` lists the 15 indices of seat ``p``'s zone, zone row by
            zone row, each row left to right.
        zone_set: ``zone[p]`` as frozensets, for membership tests.
        own_set: ``own[p]`` as frozensets.
        zone_rows: every zone row on the table, 5 indices each, left to right.
        columns: every grid column on the table, 3 indices each, top to bottom.
        lines: ``zone_rows + columns``: every line a triple can form in.
        zones_of: ``zones_of[i]`` is the seats whose zone holds cell ``i``.
        lines_through: ``lines_through[i]`` is every line that holds cell ``i``.
        zone_masks: ``zone_masks[p]`` has bit ``i`` set for each cell of ``p``'s zone.
        own_masks: ``own_masks[p]`` has bit ``i`` set for each cell of ``p``'s grid.
        zone_sorted: ``zone[p]`` in ascending index (that is, ``Pos``) order.
    """

    num_players: int
    num_cells: int
    positions: tuple[Pos, ...]
    own: tuple[tuple[int, ...], ...]
    zone: tuple[tuple[int, ...], ...]
    own_set: tuple[frozenset[int], ...]
    zone_set: tuple[frozenset[int], ...]
    zone_rows: tuple[tuple[int, ...], ...]
    columns: tuple[tuple[int, ...], ...]
    lines: tuple[tuple[int, ...], ...]
    zones_of: tuple[tuple[int, ...], ...]
    lines_through: tuple[tuple[tuple[int, ...], ...], ...]
    zone_masks: tuple[int, ...]
    own_masks: tuple[int, ...]
    zone_sorted: tuple[tuple[int, ...], ...]

    def __repr__(self) -> str:
        return f"geometry({self.num_players})"

    def left(self, player: int) -> int:
        """The left neighbour of ``player``."""
        return (player + 1) % self.num_players

    def right(self, player: int) -> int:
        """The right neighbour of ``player``."""
        return (player - 1) % self.num_players

    def index(self, pos: Pos) -> int:
        """The flat index of ``pos``; ``ValueError`` if the seat is not at this table."""
        if type(pos) is not Pos:
            raise ValueError(f"expected a Pos; got {_short(pos)} ({type(pos).__name__})")
        if pos.player >= self.num_players:
            raise ValueError(
                f"{pos!r} names seat {pos.player}, but the table has seats "
                f"0..{self.num_players - 1}"
            )
        return pos.player * CELLS_PER_SEAT + pos.row * COLS + pos.col

    def area(self, player: int, which: str) -> tuple[int, ...]:
        """The cells of ``player``'s ``"zone"`` or ``"own"`` grid, in ascending (``Pos``) order.

        ``which`` is the value of an area option (``swap_area``, ``take_area``,
        ``reveal_area``); anything else raises ``ValueError``.
        """
        if which == "zone":
            return self.zone_sorted[player]
        if which == "own":
            return self.own[player]
        raise ValueError(f'an area is "zone" or "own"; got {_short(which)}')

    def area_masks(self, which: str) -> tuple[int, ...]:
        """Per seat, the bit mask of its ``"zone"`` or ``"own"`` grid (``zone_masks``, ...).

        Bit ``i`` stands for flat cell ``i``. ``which`` as for ``area``.
        """
        if which == "zone":
            return self.zone_masks
        if which == "own":
            return self.own_masks
        raise ValueError(f'an area is "zone" or "own"; got {_short(which)}')


@cache
def geometry(num_players: int) -> Geometry:
    """The cached index tables for ``num_players`` seats (2 to ``MAX_SEATS``)."""
    n = check_seats(num_players)
    positions = tuple(Pos(p, r, c) for p in range(n) for r in range(ROWS) for c in range(COLS))
    own = tuple(tuple(p * CELLS_PER_SEAT + i for i in range(CELLS_PER_SEAT)) for p in range(n))
    zone_rows_of: list[list[tuple[int, ...]]] = []
    for p in range(n):
        lp = (p + 1) % n
        rows = []
        for r in range(ROWS):
            shared = lp * CELLS_PER_SEAT + r * COLS + SHARED_COL
            rows.append((shared,) + tuple(p * CELLS_PER_SEAT + r * COLS + c for c in range(COLS)))
        zone_rows_of.append(rows)
    zone = tuple(tuple(i for row in rows for i in row) for rows in zone_rows_of)
    zone_rows = tuple(row for rows in zone_rows_of for row in rows)
    columns = tuple(
        tuple(p * CELLS_PER_SEAT + r * COLS + c for r in range(ROWS))
        for p in range(n)
        for c in range(COLS)
    )
    zones_of = tuple(tuple(p for p in range(n) if i in zone[p]) for i in range(n * CELLS_PER_SEAT))
    lines = zone_rows + columns
    num_cells = n * CELLS_PER_SEAT
    lines_through = tuple(tuple(line for line in lines if i in line) for i in range(num_cells))
    return Geometry(
        num_players=n,
        num_cells=num_cells,
        positions=positions,
        own=own,
        zone=zone,
        own_set=tuple(frozenset(x) for x in own),
        zone_set=tuple(frozenset(x) for x in zone),
        zone_rows=zone_rows,
        columns=columns,
        lines=lines,
        zones_of=zones_of,
        lines_through=lines_through,
        zone_masks=tuple(sum(1 << i for i in cells) for cells in zone),
        own_masks=tuple(sum(1 << i for i in cells) for cells in own),
        zone_sorted=tuple(tuple(sorted(cells)) for cells in zone),
    )


def zone_positions(player: int, num_players: int) -> tuple[Pos, ...]:
    """The 15 positions of ``player``'s zone, zone row by zone row, left to right.

    Raises:
        ValueError: ``num_players`` is not a seat count or ``player`` not a seat.
    """
    geo = geometry(check_seats(num_players))
    check_seat(player, num_players)
    return tuple(geo.positions[i] for i in geo.zone[player])
