"""The table picture for a narrow screen: the seats stacked, one zone a row.

[`render_svg`][allegra_rules.svg.render_svg] draws the grids side by side, so that every
zone is five consecutive columns; a table of three seats is about 1,100 units wide, and on
a phone its labels would be a few pixels high. ``render_svg_stacked`` draws the same
table about 350 units wide: one block a seat, one under the other, the seat the picture
is about first and then the others in the order of play.

Each block is that seat's zone, drawn as the wide picture draws it: the seat's name, its
3x4 grid under its zone's coloured band and, just left of it, its left neighbour's column
3, faded and labelled with the neighbour's name (so every column 3 is drawn twice: in its
own grid and, faded, in the block of the zone it also belongs to; a highlighted cell is
outlined in both places). Under a grid: its zone's sum (``zone_sums``) and the card the
seat holds or has in its hand. The piles close the picture. The cards, labels, colours,
classes and ``data-`` attributes are those of ``render_svg``; each block is a ``<g
class="seat-block" data-seat="p">``. (Both pictures are made of the same parts: each
block is the wide layout of one seat, from the internal module
``allegra_rules.svg_positions``, drawn by ``allegra_rules.svg_draw``.)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs

from allegra_rules.geometry import Pos
from allegra_rules.picture_labels import PictureLabels
from allegra_rules.state import GameState, require_state
from allegra_rules.svg_draw import (
    Picture,
    document,
    draw_bands,
    draw_brackets,
    draw_cells,
    draw_hands,
    draw_labels,
    draw_piles,
    hand_lines,
    hands_height,
    status_line,
)
from allegra_rules.svg_positions import MARGIN, Options, check_options, layout

__all__ = ["BLOCK_GAP", "render_svg_stacked", "stacking_order"]

BLOCK_GAP = 22
"""The space between two stacked blocks, in picture units."""

_HAND_ROOM = 10
"""How far a hand card's notes may reach past the block's margin (see ``svg_draw.draw_hands``)."""


def stacking_order(num_players: int, drawn: Iterable[int], first: int | None) -> tuple[int, ...]:
    """The drawn seats from top to bottom: ``first``, then the others in the order of play.

    Args:
        num_players: the number of seats at the table.
        drawn: the seats drawn (neighbours around the table, as ``render_svg`` wants them).
        first: the seat drawn on top; ``None`` starts with the lowest drawn seat.

    Returns:
        The seats, each ``(seat - first) % num_players`` after the one before.

    Raises:
        ValueError: ``first`` is not one of the drawn seats.

    Examples:
        >>> stacking_order(3, (1, 0), 1), stacking_order(3, (2, 1, 0), None)
        ((1, 0), (0, 1, 2))
    """
    seats = sorted(set(drawn))
    top = seats[0] if first is None else first
    if top not in seats:
        raise ValueError(f"first must be one of the drawn seats {seats}; got {first!r}")
    return tuple(sorted(seats, key=lambda seat: (seat - top) % num_players))


def _block(state: GameState, opts: Options, seat: int) -> tuple[str, float, float]:
    """One seat's zone, drawn from y = 0: its SVG, its height and its width."""
    one = attrs.evolve(opts, order=(seat,), piles=False)
    lay = layout(one)
    pic = Picture(state, lay, one)
    body = [*draw_bands(pic), *draw_labels(pic), *draw_cells(pic)]
    lane = lay.lane_y[0]
    if one.zone_sums:
        body += draw_brackets(pic)
        hand_top, bottom = lane + lay.size(22), lane + lay.size(9)
    else:
        hand_top = lay.grid_bottom + 10 + lay.size(16)
        bottom = lay.grid_bottom + 10
    if hand_lines(pic):
        body += draw_hands(pic, hand_top)
        bottom = hand_top + hands_height(pic)
    return "".join(body), bottom, lay.width + _HAND_ROOM


def _piles_block(state: GameState, opts: Options, seat: int) -> tuple[str, float]:
    """The draw and discard piles in a row, drawn from y = 0: their SVG and height."""
    one = attrs.evolve(opts, order=(seat,), piles=True)
    lay = layout(one)
    label_y = lay.size(14)
    lay = attrs.evolve(lay, piles_x=lay.ghost_x, col_label_y=label_y, grid_top=label_y)
    pic = Picture(state, lay, one)
    extra = 56 if state.out_of_play else 32
    return "".join(draw_piles(pic)), lay.grid_top + 18 + 60 + lay.size(extra + 6)


def render_svg_stacked(
    state: GameState,
    *,
    first: int | None = None,
    viewer: int | None = None,
    highlight: Iterable[Pos] = (),
    reveal: bool = False,
    seats: Iterable[int] | None = None,
    seat_names: Sequence[str] | None = None,
    piles: bool = True,
    zone_sums: bool = False,
    text_scale: float = 1.0,
    labels: str | PictureLabels = "en",
) -> str:
    """The table of ``state`` for a narrow screen: one block a seat, stacked.

    The arguments are those of [`render_svg`][allegra_rules.svg.render_svg] (without
    the status line, the legend and the caption, which a narrow screen shows as page
    text), and ``first``.

    Args:
        state: any state of a game.
        first: the seat drawn on top, the one the picture is about; the others follow
            in the order of play (``stacking_order``). ``None``: the lowest drawn seat.
        viewer: draw the table as this seat may see it (see ``render_svg``).
        highlight: cells to outline; a column 3 is outlined in both its places.
        reveal: with ``viewer=None``, draw face-down cards with their values.
        seats: draw only these neighbouring seats; ``None`` draws every seat.
        seat_names: one name per seat for the labels.
        piles: draw the draw and discard piles, under the seats.
        zone_sums: draw the sum of each zone's shown cards under its block.
        text_scale: scale every text by this factor, from 0.5 to 3.
        labels: the language of the words drawn (see ``render_svg``).

    Returns:
        The SVG document, as ``render_svg`` returns it; the same arguments always give
        the same text.

    Raises:
        ValueError: as ``render_svg``, or ``first`` is not a drawn seat.

    Examples:
        >>> from allegra_rules import new_game
        >>> picture = render_svg_stacked(new_game(3, seed=1), first=1)
        >>> picture.count('class="seat-block"'), picture.index('data-seat="1"') < picture.index(
        ...     'data-seat="2"'
        ... )
        (3, True)
    """
    require_state(state)
    opts = check_options(
        state,
        viewer=viewer,
        highlight=highlight,
        reveal=reveal,
        seats=seats,
        seat_names=seat_names,
        status=False,
        legend=False,
        piles=piles,
        zone_sums=zone_sums,
        text_scale=text_scale,
        labels=labels,
    )
    order = stacking_order(state.num_players, opts.order, first)
    parts: list[str] = []
    y = 0.0
    width = 0.0
    for seat in order:
        svg, height, wide = _block(state, opts, seat)
        parts.append(
            f'<g class="seat-block" data-seat="{seat}" transform="translate(0 {round(y)})">'
            f"{svg}</g>"
        )
        y = round(y) + height + BLOCK_GAP
        width = max(width, wide)
    if opts.piles:
        svg, height = _piles_block(state, opts, order[0])
        parts.append(f'<g class="piles" transform="translate(0 {round(y)})">{svg}</g>')
        y = round(y) + height
    else:
        y += MARGIN - BLOCK_GAP
    w, h = round(width), round(y)
    status = status_line(state)
    title = f"{opts.labels.count('title', state.num_players)}: {status}"
    return document(w, h, title, status, parts)
