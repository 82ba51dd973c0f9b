"""SVG pictures of the table, for the documentation and for any viewer.

Public names:

* [`render_svg`][allegra_rules.svg.render_svg]: one state as a self-contained SVG picture.
* [`docs_pictures`][allegra_rules.svg.docs_pictures]: seven example pictures with their captions
  drawn in, each built from a stacked deck and real engine actions. (The hosted documentation draws
  its own pictures with [`render_svg`][allegra_rules.svg.render_svg] in ``docs/generate.py``,
  cropped and without text in the picture, its captions being page text.)
* [`main`][allegra_rules.svg.main]: ``python -m allegra_rules.svg DIR`` writes every picture of
  [`docs_pictures`][allegra_rules.svg.docs_pictures] into ``DIR``.

``allegra_rules.svg_layout.render_svg_stacked`` draws the same table for a narrow screen: one
zone a row, the seats stacked.

Drawing conventions (the same as
[`allegra_rules.render.render_table`][allegra_rules.render.render_table]). The seats are drawn in
one row from seat ``n - 1`` down to seat ``0``, left to right. A zone row of seat ``p`` reads
``[left(p)'s (r, 3), p's (r, 0..3)]`` and ``left(p) = (p + 1) % n`` is drawn just left of ``p``, so
every zone is five consecutive columns. Each zone gets a translucent coloured band over its five
columns and a bracket underneath; a column 3 lies under two bands, its owner's and its right
neighbour's, so its colours mix. Seat 0's column 3 also belongs to zone ``n - 1``: it is repeated,
faded, at the far left, under zone ``n - 1``'s band, and a small arrow next to it says so. A drawing
cropped to some neighbouring seats (``seats=``) repeats, in the same way, the column 3 of the first
drawn seat's left neighbour, so every drawn zone is whole.

Cards: a face-up card is a rounded rectangle with its value, coloured by value band
(0 and below blue, 1-4 green, 5-8 yellow, 9 and up red); a face-down card shows a
striped back; a gap is a dashed empty outline. Every grid cell is one ``<g>`` element
of class ``card`` plus ``face-up``, ``face-down`` or ``gap``, with ``data-seat``,
``data-row`` and ``data-col`` attributes and, when its value is drawn, ``data-value``.
Zone bands are ``<rect class="zone-band" data-zone="p">``; highlighted cells get the
class ``highlighted`` and an outline ``<rect class="highlight">``.
"""

from __future__ import annotations

import argparse
import html
import itertools
import sys
import textwrap
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

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
from allegra_rules.config import RuleConfig
from allegra_rules.geometry import CELLS_PER_SEAT, COLS, ROWS, SHARED_COL, Pos
from allegra_rules.picture_labels import PictureLabels, picture_labels
from allegra_rules.render import status_text
from allegra_rules.state import GameState, Phase, require_state, trusted_evolve
from allegra_rules.transitions import ROUNDS, apply, new_game

__all__ = ["docs_pictures", "main", "render_svg"]

if sys.argv[:1] == ["-m"]:  # pragma: no cover - only while ``python -m`` starts up
    # ``python -m allegra_rules.svg`` imports the package first, whose __init__
    # imports this module; runpy then warns that the module is already loaded.
    # It is harmless here: this module has no state of its own.
    warnings.filterwarnings(
        "ignore", message=r"'allegra_rules\.svg' found in sys\.modules", category=RuntimeWarning
    )

# ------------------------------------------------------------------------ layout

_CARD_W = 44
_CARD_H = 60
_GAP = 6  # between the columns and rows of one grid
_SEAT_GAP = 26  # between two grids
_MARGIN = 18
_GRID_W = COLS * _CARD_W + (COLS - 1) * _GAP
_GRID_H = ROWS * _CARD_H + (ROWS - 1) * _GAP
_PILES_W = 2 * _CARD_W + 3 * 14
_MAX_TEXT_SCALE = 3.0

_FONT = "DejaVu Sans, Verdana, Helvetica, Arial, sans-serif"
_INK = "#222831"
_MUTED = "#6b7280"
_ACCENT = "#c2185b"
_ZONE_COLOURS = ("#2f6fb5", "#e07b00", "#2e9a4b", "#8e4fb8", "#d6336c", "#148f8f")
# (fill, stroke, text) per value band.
_BANDS = (
    ("#d6e8ff", "#4a78b8", "#1b4a8a"),  # 0 and below
    ("#daf2d5", "#4f9a52", "#24662a"),  # 1..4
    ("#fff0bf", "#c49a1c", "#7a5a00"),  # 5..8
    ("#ffd9d3", "#c8503f", "#9a2414"),  # 9 and up
)
_BACK = "#2d3c78"

_DEFS = (
    "<defs>"
    '<pattern id="allegra-back" width="8" height="8" patternUnits="userSpaceOnUse"'
    ' patternTransform="rotate(45)">'
    f'<rect width="8" height="8" fill="{_BACK}"/>'
    '<rect width="3" height="8" fill="#4a5ca6"/>'
    "</pattern>"
    "</defs>"
)


def _esc(text: str) -> str:
    return html.escape(text, quote=False)


def _attr(value: object) -> str:
    # A quoted attribute value, written as xml.sax.saxutils.quoteattr writes it
    # (that module pulls in urllib, http.client and ssl at import).
    text = html.escape(str(value), quote=False)
    text = text.replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    if '"' not in text:
        return f'"{text}"'
    if "'" not in text:
        return f"'{text}'"
    return '"' + text.replace('"', "&quot;") + '"'


def _band(value: int) -> tuple[str, str, str]:
    if value <= 0:
        return _BANDS[0]
    if value <= 4:
        return _BANDS[1]
    if value <= 8:
        return _BANDS[2]
    return _BANDS[3]


def _text(
    x: float,
    y: float,
    text: str,
    *,
    size: float = 12,
    anchor: str = "start",
    fill: str = _INK,
    weight: str = "normal",
    cls: str = "",
) -> str:
    extra = f' class="{cls}"' if cls else ""
    bold = f' font-weight="{weight}"' if weight != "normal" else ""
    return (
        f'<text{extra} x="{_num(x)}" y="{_num(y)}" font-size="{_num(size)}"'
        f' text-anchor="{anchor}" fill="{fill}"{bold}>{_esc(text)}</text>'
    )


def _num(value: float) -> str:
    """A coordinate with at most one decimal, without a trailing ``.0``."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _text_width(text: str, size: float) -> float:
    return 0.6 * size * len(text)


def _wrap(text: str, width_px: float, size: float) -> list[str]:
    chars = max(20, int(width_px / (0.56 * size)))
    lines: list[str] = []
    for paragraph in text.splitlines() or [""]:
        lines.extend(textwrap.wrap(paragraph, chars) or [""])
    return lines


# ------------------------------------------------------------------- the cards


def _value_text(value: int, cx: float, y: float, height: float, colour: str) -> str:
    label = str(value)
    size = 22 if len(label) <= 2 else max(11, 44 / len(label))
    return _text(
        cx,
        y + height / 2 + size * 0.36,
        label,
        size=size,
        anchor="middle",
        fill=colour,
        weight="bold",
    )


def _face_up_shapes(x: float, y: float, value: int, *, dashed: bool = False) -> list[str]:
    fill, stroke, ink = _band(value)
    border = (
        f'stroke="{_BACK}" stroke-width="2.5" stroke-dasharray="5 3"'
        if dashed
        else f'stroke="{stroke}" stroke-width="1.5"'
    )
    return [
        f'<rect x="{_num(x)}" y="{_num(y)}" width="{_CARD_W}" height="{_CARD_H}" rx="6"'
        f' fill="{fill}" {border}/>',
        _value_text(value, x + _CARD_W / 2, y, _CARD_H, ink),
    ]


def _back_shapes(x: float, y: float) -> list[str]:
    return [
        f'<rect x="{_num(x)}" y="{_num(y)}" width="{_CARD_W}" height="{_CARD_H}" rx="6"'
        f' fill="url(#allegra-back)" stroke="#1c2650" stroke-width="1.5"/>',
        f'<rect x="{_num(x + 4)}" y="{_num(y + 4)}" width="{_CARD_W - 8}"'
        f' height="{_CARD_H - 8}" rx="3" fill="none" stroke="#ffffff"'
        ' stroke-opacity="0.55" stroke-width="1"/>',
    ]


def _gap_shapes(x: float, y: float) -> list[str]:
    return [
        f'<rect x="{_num(x + 1)}" y="{_num(y + 1)}" width="{_CARD_W - 2}"'
        f' height="{_CARD_H - 2}" rx="6" fill="#ffffff" fill-opacity="0.55"'
        ' stroke="#8a8f98" stroke-width="1.5" stroke-dasharray="5 4"/>',
    ]


def _loose_card(x: float, y: float, value: int | None, cls: str) -> str:
    """A card outside the grids (pile top, held or hand card); ``None`` shows a back."""
    shapes = _back_shapes(x, y) if value is None else _face_up_shapes(x, y, value)
    data = f" data-value={_attr(value)}" if value is not None else ""
    return f'<g class="{cls}"{data}>' + "".join(shapes) + "</g>"


# ----------------------------------------------------------------- the status


def _status(state: GameState) -> str:
    """The round and what the game waits for (the text drawing's status line)."""
    return f"Round {state.round} of {ROUNDS} \u00b7 " + status_text(state)


# ------------------------------------------------------------------ rendering


@attrs.frozen
class _Options:
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
class _Layout:
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
        return self.starts[seat] + col * (_CARD_W + _GAP)

    def row_y(self, row: int) -> float:
        return self.grid_top + row * (_CARD_H + _GAP)

    @property
    def grid_bottom(self) -> float:
        return self.grid_top + _GRID_H

    @property
    def band_y(self) -> tuple[tuple[float, float], tuple[float, float]]:
        top, bottom = self.grid_top, self.grid_bottom
        return ((top - 10, bottom + 4), (top - 4, bottom + 10))

    @property
    def lane_y(self) -> tuple[float, float]:
        """The centre lines of the two rows of zone brackets."""
        first = self.grid_bottom + 10 + 18 * self.scale
        return (first, first + 24 * self.scale)


def _layout(opts: _Options) -> _Layout:
    s = opts.scale
    ghost_x = _MARGIN + 26 * s
    x = ghost_x + _CARD_W + _SEAT_GAP
    starts: dict[int, float] = {}
    for seat in opts.order:
        starts[seat] = x
        x += _GRID_W + _SEAT_GAP
    right = x - _SEAT_GAP
    wrap_x: float | None = None
    if opts.whole_table:
        wrap_x = right + 6
        right = wrap_x + 64 * s
    piles_x: float | None = None
    width = right + _MARGIN
    if opts.piles:
        piles_x = right + 12 + 20 * (s - 1)
        # Room for the piles and for "out of play: 99 cards" under them.
        widest = opts.labels.out_of_play.format(cards=opts.labels.count("cards", 99))
        room = max(_PILES_W, _text_width(widest, 11 * s) - 10)
        width = piles_x + room + _MARGIN
    status_y = 30 * s
    seat_label_y = status_y + 32 * s if opts.status else 26 * s
    col_label_y = seat_label_y + 18 * s
    return _Layout(
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


@attrs.frozen
class _Picture:
    """What every part of one drawing needs: the state, the layout, what is shown."""

    state: GameState
    lay: _Layout
    opts: _Options

    def shown(self, i: int) -> int | None:
        """The value drawn for cell ``i``: ``None`` for a back or a gap."""
        value = self.state.cells[i]
        if value is None or ((self.state.face_down >> i) & 1 and not self.opts.reveal):
            return None
        return value

    def cell_shapes(self, i: int, x: float, y: float) -> tuple[str, list[str]]:
        """The kind (``face-up``, ``face-down``, ...) and the shapes of cell ``i``."""
        down = bool((self.state.face_down >> i) & 1)
        drawn = self.shown(i)
        if self.state.cells[i] is None:
            return "gap", _gap_shapes(x, y)
        if drawn is None:
            return "face-down", _back_shapes(x, y)
        kind = "face-down revealed" if down else "face-up"
        return kind, _face_up_shapes(x, y, drawn, dashed=down)

    def name(self, seat: int) -> str:
        return self.opts.names[seat]

    def text(self, x: float, y: float, text: str, size: float, **kwargs: str) -> str:
        """A text element with a font size of ``size`` at scale 1."""
        return _text(x, y, text, size=self.lay.size(size), **kwargs)


def _held_note(pic: _Picture) -> tuple[int | None, str]:
    """Who holds ``state.held`` and where it came from."""
    state = pic.state
    phase = state.phase
    words = pic.opts.labels
    if phase is Phase.KNOCKER_SWAP:
        assert state.drawer is not None
        return state.current_player, words.given_by.format(name=pic.name(state.drawer))
    if phase is Phase.HOLD_TAKEN:
        assert state.knocker is not None
        return state.drawer, words.taken_from.format(name=pic.name(state.knocker))
    if phase is Phase.HOLD_DISCARD:
        return state.drawer, words.from_discard
    return state.drawer, words.from_draw


def _zone_span(pic: _Picture, p: int) -> tuple[float, float]:
    """The x range of zone ``p``'s five columns, from its first card's left edge."""
    lay = pic.lay
    n = pic.state.num_players
    first = pic.opts.order[0]
    x0 = lay.ghost_x if p == first else lay.col_x((p + 1) % n, SHARED_COL)
    return x0, lay.col_x(p, SHARED_COL) + _CARD_W


def _draw_bands(pic: _Picture) -> list[str]:
    out = []
    for p in sorted(pic.opts.order):
        colour = _ZONE_COLOURS[p % len(_ZONE_COLOURS)]
        x0, x1 = _zone_span(pic, p)
        # Neighbouring bands are staggered a little so both edges of the shared
        # column show.
        top, bottom = pic.lay.band_y[p % 2]
        out.append(
            f'<rect class="zone-band" data-zone="{p}" x="{_num(x0 - 5)}" y="{_num(top)}"'
            f' width="{_num(x1 - x0 + 10)}" height="{_num(bottom - top)}" rx="9"'
            f' fill="{colour}" fill-opacity="0.16" stroke="{colour}" stroke-opacity="0.55"'
            ' stroke-width="1.2"/>'
        )
    return out


def _draw_labels(pic: _Picture) -> list[str]:
    state, lay = pic.state, pic.lay
    words = pic.opts.labels
    out = []
    knockers = set(state.knockers)
    for seat in sorted(pic.opts.order):
        label = pic.name(seat)
        colour = _INK
        if seat == state.current_player:
            label = "\u25b6 " + label
            colour = _ACCENT
        if seat == state.drawer and state.phase is not Phase.DRAW:
            label += words.drawer
        if seat in knockers:
            label += words.knocked
        cx = lay.starts[seat] + _GRID_W / 2
        out.append(
            pic.text(cx, lay.seat_label_y, label, 15, anchor="middle", fill=colour, weight="bold")
        )
        for c in range(COLS):
            x = lay.col_x(seat, c) + _CARD_W / 2
            col = words.column.format(col=c)
            out.append(pic.text(x, lay.col_label_y, col, 10, anchor="middle", fill=_MUTED))
    x = lay.ghost_x + _CARD_W / 2
    # Named seats: the faded column is labelled with its owner's name.
    ghost = (
        pic.name(pic.opts.ghost)
        if pic.opts.named
        else words.ghost_column.format(seat=pic.opts.ghost)
    )
    out.append(pic.text(x, lay.col_label_y, ghost, 10, anchor="middle", fill=_MUTED))
    for r in range(ROWS):
        y = lay.row_y(r) + _CARD_H / 2 + lay.size(4)
        out.append(pic.text(_MARGIN, y, words.row.format(row=r), 11, fill=_MUTED))
    return out


def _highlight_shape(x: float, y: float) -> str:
    return (
        f'<rect class="highlight" x="{_num(x - 4)}" y="{_num(y - 4)}" width="{_CARD_W + 8}"'
        f' height="{_CARD_H + 8}" rx="9" fill="none" stroke="{_ACCENT}" stroke-width="3.5"/>'
    )


def _draw_cells(pic: _Picture) -> list[str]:
    lay, opts = pic.lay, pic.opts
    out = []
    for seat in sorted(opts.order):
        for r in range(ROWS):
            for c in range(COLS):
                i = seat * CELLS_PER_SEAT + r * COLS + c
                x, y = lay.col_x(seat, c), lay.row_y(r)
                kind, shapes = pic.cell_shapes(i, x, y)
                cls = f"card {kind}"
                if i in opts.marked:
                    cls += " highlighted"
                    shapes.append(_highlight_shape(x, y))
                drawn = pic.shown(i)
                data = f" data-value={_attr(drawn)}" if drawn is not None else ""
                out.append(
                    f'<g class="{cls}" data-seat="{seat}" data-row="{r}" data-col="{c}"{data}>'
                    + "".join(shapes)
                    + "</g>"
                )
    # The ghost seat's column 3 again, faded, at the far left: it closes the first
    # drawn zone. In a whole table that is seat 0's column 3, also drawn at the right;
    # in a cropped one it is the only drawing of those cells.
    ghost = opts.ghost
    drawn_twice = opts.whole_table
    for r in range(ROWS):
        i = ghost * CELLS_PER_SEAT + r * COLS + SHARED_COL
        x, y = lay.ghost_x, lay.row_y(r)
        _, shapes = pic.cell_shapes(i, x, y)
        cls = "ghost"
        if i in opts.marked and not drawn_twice:
            cls += " highlighted"
            shapes.append(_highlight_shape(x, y))
        drawn = pic.shown(i)
        data = f" data-value={_attr(drawn)}" if drawn is not None and not drawn_twice else ""
        out.append(
            f'<g class="{cls}" data-seat="{ghost}" data-row="{r}" data-col="{SHARED_COL}"{data}'
            f' opacity="{0.45 if drawn_twice else 0.7}">' + "".join(shapes) + "</g>"
        )
    if lay.wrap_x is not None:
        # An arrow right of seat 0's column 3 saying where else it counts.
        mid = lay.grid_top + _GRID_H / 2
        wx = lay.wrap_x
        out.append(
            f'<path class="wrap-marker" d="M {_num(wx)} {_num(mid - 22)} q 16 0 16 14 l 0 22'
            f' m -5 -7 l 5 7 l 5 -7" fill="none" stroke="{_MUTED}" stroke-width="1.5"/>'
        )
        last = pic.state.num_players - 1
        words = pic.opts.labels
        if pic.opts.named:
            lines = [line.format(name=pic.name(last)) for line in words.wrap_named]
        else:
            lines = [line.format(zone=last) for line in words.wrap_numbered]
        for k, line in enumerate(lines):
            y = mid + lay.size(32 + 13 * k)
            out.append(pic.text(wx + 4, y, line, 10.5, fill=_MUTED, cls="wrap-note"))
    return out


def _draw_brackets(pic: _Picture) -> list[str]:
    state, lay = pic.state, pic.lay
    out = []
    for p in sorted(pic.opts.order):
        colour = _ZONE_COLOURS[p % len(_ZONE_COLOURS)]
        left_edge, right_edge = _zone_span(pic, p)
        x0 = left_edge + _CARD_W / 2
        x1 = right_edge - _CARD_W / 2
        y = lay.lane_y[p % 2 if len(pic.opts.order) > 1 else 0]  # one seat: one lane
        total = 0
        hidden = 0
        for i in state.geometry.zone[p]:
            if state.cells[i] is None:
                continue
            drawn = pic.shown(i)
            if drawn is None:
                hidden += 1
            else:
                total += drawn
        words = pic.opts.labels
        more = " " + words.count("face_down", hidden) if hidden else ""
        if not pic.opts.named:
            note = words.zone_numbered.format(zone=p, total=total) + more
        else:
            note = words.zone_named.format(name=pic.name(p), total=total) + more
        size = lay.size(11)
        width = _text_width(note, size) + lay.size(12)
        half = lay.size(9)
        cx = (x0 + x1) / 2
        out.append(
            f'<g class="zone-bracket" data-zone="{p}">'
            f'<path d="M {_num(x0)} {_num(y - 7)} V {_num(y)} H {_num(x1)} V {_num(y - 7)}"'
            f' fill="none" stroke="{colour}" stroke-width="2"/>'
            f'<rect x="{_num(cx - width / 2)}" y="{_num(y - half)}" width="{_num(width)}"'
            f' height="{_num(2 * half)}" rx="{_num(half)}" fill="#ffffff" stroke="{colour}"'
            ' stroke-width="1.2"/>'
            + pic.text(cx, y + lay.size(4), note, 11, anchor="middle", fill=colour, weight="bold")
            + "</g>"
        )
    return out


def _hand_lines(pic: _Picture) -> list[tuple[int, int | None, list[str], str]]:
    """The held card and a knocker's hand card: (holder, value or None, notes, class)."""
    state, viewer = pic.state, pic.opts.viewer
    words = pic.opts.labels
    out: list[tuple[int, int | None, list[str], str]] = []
    if state.held is not None:
        holder, source = _held_note(pic)
        value: int | None = state.held
        lines = [words.holds, source]
        if state.phase is Phase.HOLD_TAKEN and state.held_was_face_down:
            if viewer is not None and viewer != holder:
                value = None
                lines = [words.holds_unseen, source, words.unseen_by.format(name=pic.name(viewer))]
            else:
                lines.append(words.lay_face_down)
        if holder is not None:
            out.append((holder, value, lines, "held-card"))
    for knocker, card in state.in_hand:
        hand_value: int | None = card
        lines = list(words.in_hand)
        if state.hand_was_face_down:
            if viewer is not None and viewer != knocker:
                hand_value = None
                lines = [*words.in_hand_unseen, words.unseen_by.format(name=pic.name(viewer))]
            else:
                lines.append(words.lay_face_down)
        out.append((knocker, hand_value, lines, "hand-card"))
    return [entry for entry in out if entry[0] in pic.lay.starts]


def _note_lines(pic: _Picture, lines: Sequence[str]) -> tuple[float, list[str]]:
    """The font size of a hand slot's notes and the notes wrapped to fit beside it.

    The notes stay within the grid and the gap after it (the next seat may hold a
    card too), so they grow less than the other texts.
    """
    size = 12 * min(pic.lay.scale, 1.15)
    room = _GRID_W + _SEAT_GAP - 12 - _CARD_W - 10
    wrapped: list[str] = []
    for line in lines:
        wrapped.extend(textwrap.wrap(line, max(8, int(room / (0.6 * size)))) or [""])
    return size, wrapped


def _draw_hands(pic: _Picture, top: float) -> list[str]:
    """The held card and a knocker's hand card, each under its holder's grid."""
    out = []
    for holder, value, lines, cls in _hand_lines(pic):
        x = pic.lay.starts[holder] + 12
        size, wrapped = _note_lines(pic, lines)
        out.append(_loose_card(x, top, value, cls))
        for k, line in enumerate(wrapped):
            out.append(
                _text(
                    x + _CARD_W + 10,
                    top + 16 * size / 12 + 15 * size / 12 * k,
                    line,
                    size=size,
                    fill=_INK if k == 0 else _MUTED,
                    weight="bold" if k == 0 else "normal",
                )
            )
    return out


def _hands_height(pic: _Picture) -> float:
    """How far the hand slots reach below their top."""
    notes = max(len(_note_lines(pic, lines)[1]) for _, _, lines, _ in _hand_lines(pic))
    size = _note_lines(pic, ["x"])[0]
    return max(_CARD_H, (16 + 15 * (notes - 1) + 4) * size / 12)


def _legend(pic: _Picture) -> str:
    n = pic.state.num_players
    opts = pic.opts
    legend = (
        "Zone p = seat p's four columns + the column 3 just left of it (seat p+1's); "
        "each column 3 lies in two zones"
    )
    if opts.whole_table:
        legend += (
            f", and seat 0's column 3 wraps around to zone {n - 1} (repeated faded at the"
            " far left)."
        )
    else:
        legend += f"; the faded column at the far left is seat {opts.ghost}'s column 3."
    legend += " Striped: face down; dashed: a gap."
    if opts.reveal:
        legend += " Dashed dark border: a face-down card shown revealed."
    if opts.viewer is not None:
        legend += f" Drawn as seat {opts.viewer} sees it."
    if opts.marked:
        legend += " Outlined: highlighted cells."
    return legend


def _piles(pic: _Picture) -> list[str]:
    state, lay = pic.state, pic.lay
    words = pic.opts.labels
    assert lay.piles_x is not None
    out: list[str] = []
    x = lay.piles_x
    y = lay.grid_top + 18
    out.append(pic.text(x, lay.col_label_y, words.piles, 10, fill=_MUTED))
    draw = len(state.draw_pile)
    if draw:
        for k in (2, 1):
            if draw > k:
                out.append(
                    f'<rect x="{_num(x + 2 * k)}" y="{_num(y - 2 * k)}" width="{_CARD_W}"'
                    f' height="{_CARD_H}" rx="6" fill="{_BACK}" stroke="#1c2650"'
                    ' stroke-width="1"/>'
                )
        out.append(_loose_card(x, y, None, "draw-pile"))
    else:
        out.append('<g class="draw-pile">' + "".join(_gap_shapes(x, y)) + "</g>")
    label_y = y + _CARD_H + lay.size(18)
    count_y = y + _CARD_H + lay.size(32)
    out.append(pic.text(x + _CARD_W / 2, label_y, words.draw, 11, anchor="middle"))
    out.append(
        pic.text(
            x + _CARD_W / 2, count_y, words.count("cards", draw), 11, anchor="middle", fill=_MUTED,
            cls="draw-count",
        )
    )  # fmt: skip
    dx = x + _CARD_W + 28
    top = state.discard_top
    if top is None:
        out.append('<g class="discard-pile">' + "".join(_gap_shapes(dx, y)) + "</g>")
    else:
        out.append(_loose_card(dx, y, top, "discard-pile"))
    out.append(pic.text(dx + _CARD_W / 2, label_y, words.discard, 11, anchor="middle"))
    out.append(
        pic.text(
            dx + _CARD_W / 2, count_y, words.count("cards", len(state.discard_pile)), 11,
            anchor="middle", fill=_MUTED,
        )
    )  # fmt: skip
    if state.out_of_play:
        out.append(
            pic.text(
                x,
                y + _CARD_H + lay.size(56),
                words.out_of_play.format(cards=words.count("cards", len(state.out_of_play))),
                11,
                fill=_MUTED,
                cls="out-of-play",
            )
        )
    return out


def _drawing_order(n: int, seats: Iterable[int] | None) -> tuple[int, ...]:
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


def _check_options(
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
) -> _Options:
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
    if type(text_scale) not in (int, float) or not 0.5 <= text_scale <= _MAX_TEXT_SCALE:
        raise ValueError(
            f"text_scale must be a number from 0.5 to {_MAX_TEXT_SCALE}; got {text_scale!r}"
        )
    order = _drawing_order(n, seats)
    if seat_names is None:
        names = tuple(words.seat.format(seat=p) for p in range(n))
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
    return _Options(
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


def _render(state: GameState, opts: _Options, *, caption: str | None, status: str) -> str:
    if caption is not None and not isinstance(caption, str):
        raise ValueError(f"caption must be a str or None; got {type(caption).__name__}")
    n = state.num_players
    lay = _layout(opts)
    pic = _Picture(state, lay, opts)
    body: list[str] = []
    if opts.status:
        body.append(pic.text(_MARGIN, lay.status_y, status, 15, weight="bold", cls="status"))
    body += _draw_bands(pic)
    body += _draw_labels(pic)
    body += _draw_cells(pic)
    if opts.zone_sums:
        body += _draw_brackets(pic)
        hand_top = lay.lane_y[1] + lay.size(22)
        bottom = lay.lane_y[1] + lay.size(9)
    else:
        hand_top = lay.grid_bottom + 10 + lay.size(16)
        bottom = lay.grid_bottom + 10
    hands = _hand_lines(pic)
    if hands:
        body += _draw_hands(pic, hand_top)
        bottom = hand_top + _hands_height(pic)
    if opts.piles:
        body += _piles(pic)
        bottom = max(
            bottom, lay.grid_top + 18 + _CARD_H + lay.size(56 if state.out_of_play else 32)
        )
    # Caption and legend (text under the table), at the old offsets at scale 1.
    y = bottom + lay.size(31 if opts.zone_sums and not hands else 34)
    text_width = lay.width - 2 * _MARGIN
    lines_drawn = False
    if caption:
        size = lay.size(14)
        for line in _wrap(caption, text_width, size):
            body.append(_text(_MARGIN, y, line, size=size, cls="caption"))
            y += lay.size(20)
        y += 6
        lines_drawn = True
    if opts.legend:
        size = lay.size(11)
        for line in _wrap(_legend(pic), text_width, size):
            body.append(_text(_MARGIN, y, line, size=size, fill=_MUTED, cls="legend"))
            y += lay.size(15)
        lines_drawn = True
    height = round(y - lay.size(15) + 14 if lines_drawn else bottom + _MARGIN)
    width = round(lay.width)
    title = f"{opts.labels.count('title', n)}: {caption or status}"
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}"'
        f' viewBox="0 0 {width} {height}" role="img" font-family={_attr(_FONT)}>'
        f"<title>{_esc(title)}</title><desc>{_esc(status)}</desc>{_DEFS}"
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>' + "".join(body) + "</svg>\n"
    )


def render_svg(
    state: GameState,
    *,
    viewer: int | None = None,
    highlight: Iterable[Pos] = (),
    caption: str | None = None,
    reveal: bool = False,
    seats: Iterable[int] | None = None,
    seat_names: Sequence[str] | None = None,
    status: bool = True,
    legend: bool = True,
    piles: bool = True,
    zone_sums: bool = True,
    text_scale: float = 1.0,
    labels: str | PictureLabels = "en",
) -> str:
    """The table of ``state`` as a self-contained SVG picture.

    Every seat's 3x4 grid is drawn, seats ``n - 1`` down to ``0`` left to right, so
    that each zone (a seat's four columns and the column 3 of its left neighbour,
    drawn just left of it) is five consecutive columns under a coloured band. Seat 0's
    column 3, which also belongs to zone ``n - 1``, is repeated faded at the far left.
    Under the grids: a bracket per zone with the sum of its shown cards, the held card
    and a knocker's hand card under their seats; at the right the draw pile (its size)
    and the discard pile (its top card and size). A status line at the top says what
    the game waits for; the caption and a short legend close the picture.

    For a page that explains the picture in its own text (and in its own language),
    ``status=False, legend=False`` and no caption leave only the table, and
    ``seats`` crops it to a few neighbouring seats so that the cards stay large on a
    narrow screen.

    Args:
        state: any state of a game.
        viewer: draw the table as this seat may see it: face-down cards as backs, and
            a card taken or replaced face down in a knock exchange hidden unless this
            seat has seen it. ``None`` draws the omniscient table: every card someone
            knows is shown, but face-down cards (which nobody knows) are still backs
            unless ``reveal`` is set.
        highlight: cells to outline.
        caption: text written under the table (wrapped), also used in the ``<title>``.
        reveal: with ``viewer=None``, draw face-down cards with their values (and a
            dashed dark border marking them as face down).
        seats: draw only these seats, which must sit next to each other around the
            table (in any order, e.g. ``(1, 0)`` or ``(0, 3)`` at four seats); ``None``
            draws every seat. The column 3 of the first drawn seat's left neighbour is
            repeated faded at the far left, so every drawn zone is whole. A held or
            hand card of a seat that is not drawn is left out, and so is the marker
            of seat 0's wrap-around.
        seat_names: one name per seat for the labels (``"seat 0"``, ... by default).
        status: draw the status line at the top.
        legend: draw the legend at the bottom.
        piles: draw the draw and discard piles.
        zone_sums: draw the bracket under each zone with the sum of its shown cards.
        text_scale: scale every text (labels, notes, caption, legend) by this factor,
            from 0.5 to 3; the cards keep their size.
        labels: the language of the words drawn in the table (the seat marks, the
            column and row labels, the notes, the zone sums, the piles and the default
            seat names): ``"en"`` (the default), ``"de"``, ``"pl"`` or ``"fr"``, or a
            [`PictureLabels`][allegra_rules.picture_labels.PictureLabels] of your own.
            The status line, the legend and the caption are not translated.

    Returns:
        The SVG document, an XML declaration and one ``<svg>`` element with
        ``xmlns``, ``width``, ``height``, ``viewBox`` and a ``<title>``, ending in a
        newline. The same arguments always give the same text.

    Raises:
        ValueError: ``viewer`` is not a seat of the table, ``reveal`` is combined with
            a viewer, a highlighted cell is not on the table or not drawn, ``seats``
            are not neighbouring seats of the table, ``seat_names`` are not one
            non-empty name per seat, a flag is not a ``bool``, ``text_scale`` is out
            of range, or ``labels`` is neither a built-in language nor a
            ``PictureLabels``.

    Examples:
        >>> from allegra_rules import new_game
        >>> picture = render_svg(new_game(3, seed=1), caption="Dealt")
        >>> picture.count('class="card face-down"'), "<title>Allegra, 3 players: Dealt" in picture
        (36, True)
        >>> cropped = render_svg(new_game(3, seed=1), seats=(1, 0), status=False, legend=False)
        >>> cropped.count('class="card face-down"'), 'class="legend"' in cropped
        (24, False)
    """
    require_state(state)
    opts = _check_options(
        state,
        viewer=viewer,
        highlight=highlight,
        reveal=reveal,
        seats=seats,
        seat_names=seat_names,
        status=status,
        legend=legend,
        piles=piles,
        zone_sums=zone_sums,
        text_scale=text_scale,
        labels=labels,
    )
    return _render(state, opts, caption=caption, status=_status(state))


# ---------------------------------------------------------------- doc pictures

_Grid = Sequence[Sequence[int]]


def _stacked_game(
    num_players: int,
    grids: Mapping[int, _Grid],
    *,
    discard: int,
    draw: Sequence[int],
    config: RuleConfig | None = None,
) -> GameState:
    """A new game whose deck deals ``grids``, then ``discard``, then ``draw`` on top.

    Seats not in ``grids`` and the rest of the draw pile get the remaining cards in
    ascending order.
    """
    config = config or RuleConfig()
    pool = Counter(config.deck_cards())

    def take(card: int) -> int:
        if pool[card] <= 0:
            raise ValueError(f"the deck has no card {card} left to stack")
        pool[card] -= 1
        return card

    chosen = {seat: [take(c) for row in grid for c in row] for seat, grid in grids.items()}
    top = take(discard)
    draw_top = [take(c) for c in draw]
    rest = sorted(pool.elements())
    deck: list[int] = []
    for seat in range(num_players):
        if seat in chosen:
            deck.extend(chosen[seat])
        else:
            deck.extend(rest[:CELLS_PER_SEAT])
            del rest[:CELLS_PER_SEAT]
    deck += [top, *draw_top, *rest]
    return new_game(num_players, config=config, deck=deck, seed=1)


def _play(state: GameState, actions: Iterable[Action]) -> GameState:
    for action in actions:
        state = apply(state, action)
    return state


def _setup(state: GameState, picks: Mapping[int, tuple[Pos, Pos]]) -> GameState:
    """Run the setup: each seat reveals its two ``picks``, in turn order."""
    while state.phase is Phase.SETUP:
        seat = state.current_player
        assert seat is not None
        state = apply(state, Reveal(picks[seat][state.setup_reveals % 2]))
    return state


@attrs.frozen
class _Scene:
    name: str
    state: GameState
    caption: str
    highlight: tuple[Pos, ...] = ()
    status: str | None = None


def _table_scene() -> _Scene:
    grids = {
        0: ((3, 8, 1, 5), (7, 2, 9, 4), (10, 0, 6, 11)),
        1: ((5, 9, 2, 7), (1, 6, 10, 3), (8, 4, 11, 0)),
        2: ((2, 6, 9, 1), (11, 6, 3, 8), (4, 10, 7, 5)),
        3: ((9, 0, 4, 6), (3, 7, 1, 10), (5, 11, 2, 8)),
    }
    state = _stacked_game(4, grids, discard=9, draw=(-1, 6, 2, 11, 10, 9, 8))
    state = _setup(
        state,
        {
            0: (Pos(0, 1, 1), Pos(0, 2, 2)),
            1: (Pos(1, 0, 3), Pos(1, 2, 1)),
            2: (Pos(2, 0, 1), Pos(2, 1, 1)),
            3: (Pos(3, 1, 2), Pos(3, 2, 0)),
        },
    )
    state = _play(
        state,
        [
            # Seat 0 draws the -1, nobody knocks, it replaces the face-down 3.
            DrawDeck(), Pass(), Pass(), Pass(), Swap(Pos(0, 0, 0)),
            # Seat 1 takes that 3 from the discard pile for its 5 at (0, 0).
            DrawDiscard(), Swap(Pos(1, 0, 0)),
            # Seat 2 draws a 6: a column triple of 6s, removed at once.
            DrawDeck(), Pass(), Pass(), Pass(), Swap(Pos(2, 2, 1)),
            # Seat 3 draws a 2, discards it and turns up its (0, 0).
            DrawDeck(), Pass(), Pass(), Pass(), Discard(), Reveal(Pos(3, 0, 0)),
            # Round two of turns: seats 0, 1 and 2 discard and turn up a card...
            DrawDeck(), Pass(), Pass(), Pass(), Discard(), Reveal(Pos(0, 0, 3)),
            DrawDeck(), Pass(), Pass(), Pass(), Discard(), Reveal(Pos(1, 1, 0)),
            DrawDeck(), Pass(), Pass(), Pass(), Discard(), Reveal(Pos(2, 2, 3)),
            # ... and seat 3 swaps the 8 it drew in for seat 0's face-down 4 at (1, 3):
            # seat 0's column 3 is in seat 3's zone.
            DrawDeck(), Pass(), Pass(), Pass(), Swap(Pos(0, 1, 3)),
        ],
    )  # fmt: skip
    caption = (
        "A four-player table in the middle of round 1, seat 0 to draw. The seats are "
        "drawn 3, 2, 1, 0 from left to right, so every coloured band is one zone: a "
        "seat's four columns plus its left neighbour's column 3 just left of them. Each "
        "column 3 lies under two bands, in two zones; seat 0's column 3 also belongs to "
        "zone 3 and is repeated faded at the far left: seat 3 has just swapped an 8 in "
        "there, at seat 0's (1, 3). Striped cards are face down. The three gaps in seat "
        "2's column 1 are where a triple of 6s was removed."
    )
    return _Scene("table-4p.svg", state, caption)


def _knock_scenes() -> list[_Scene]:
    grids = {
        0: ((8, 3, 10, 5), (9, 1, 7, 11), (4, 6, 2, 0)),
        1: ((6, 9, 4, 2), (10, 0, 8, 3), (5, 11, 1, 7)),
        2: ((1, 7, 3, 9), (2, 5, 11, 6), (0, 8, 10, 4)),
    }
    state = _stacked_game(3, grids, discard=5, draw=(-1,))
    state = _setup(
        state,
        {
            0: (Pos(0, 0, 0), Pos(0, 1, 2)),
            1: (Pos(1, 0, 1), Pos(1, 1, 1)),
            2: (Pos(2, 0, 0), Pos(2, 2, 2)),
        },
    )
    drawn = _play(state, [DrawDeck(), Knock(), Pass()])
    swapped = _play(drawn, [Give(1), Swap(Pos(1, 0, 1))])
    taken = apply(swapped, Take(Pos(1, 1, 1)))
    done = apply(taken, Swap(Pos(0, 0, 0)))
    return [
        _Scene(
            "knock-1.svg",
            drawn,
            "Before the knock exchange: seat 0 drew a -1 from the draw pile and holds it. Seat "
            "1 knocked for it, seat 2 passed. Seat 0 may swap the -1 in, discard it, or give "
            "it to the knocker; it gives it to seat 1.",
        ),
        _Scene(
            "knock-2.svg",
            swapped,
            "Step 1: seat 1 swapped the -1 in at its (0, 1) (outlined). The 9 that lay "
            "there is now in seat 1's hand.",
            (Pos(1, 0, 1),),
        ),
        _Scene(
            "knock-3.svg",
            taken,
            "Step 2: seat 0 took a card from seat 1's zone, the 0 at seat 1's (1, 1), and "
            "holds it to swap it into its own zone. Its cell is a gap (outlined) until the "
            "exchange ends.",
            (Pos(1, 1, 1),),
        ),
        _Scene(
            "knock-4.svg",
            done,
            "Step 2 ends and step 3 follows at once: seat 0 swapped the 0 in at its (0, 0) and "
            "discarded the 8 from there; "
            "seat 1's hand card, the 9, filled the gap at its (1, 1), face up (both "
            "outlined). The turn is over; seat 1 draws next.",
            (Pos(0, 0, 0), Pos(1, 1, 1)),
        ),
    ]


def _triple_scenes() -> list[_Scene]:
    grids = {
        0: ((9, 2, 4, 10), (6, 11, 0, 8), (3, 7, 1, 5)),
        1: ((7, 1, 8, 4), (2, 10, 5, 9), (11, 3, 6, 0)),
        2: ((5, 0, 9, 3), (8, 4, 10, 1), (6, 2, 11, 7)),
    }
    state = _stacked_game(3, grids, discard=6, draw=(4,))
    state = _setup(
        state,
        {
            0: (Pos(0, 0, 2), Pos(0, 2, 1)),
            1: (Pos(1, 0, 3), Pos(1, 1, 1)),
            2: (Pos(2, 0, 0), Pos(2, 1, 2)),
        },
    )
    holding = _play(state, [DrawDeck(), Pass(), Pass()])
    target = Pos(0, 0, 0)
    after = apply(holding, Swap(target))
    # The moment between the swap and the settling, which no engine state shows:
    # the 4 lies at (0, 0), the 9 is on the discard pile, the triple is still there.
    i = target.index
    old = holding.cells[i]
    assert old is not None
    cells = list(holding.cells)
    cells[i] = holding.held
    before = trusted_evolve(
        holding,
        cells=tuple(cells),
        face_down=holding.face_down & ~(1 << i),
        held=None,
        discard_pile=(*holding.discard_pile, old),
    )
    triple = (Pos(0, 0, 0), Pos(0, 0, 2), Pos(1, 0, 3))
    return [
        _Scene(
            "triple-cross-zone.svg",
            before,
            "A triple across two grids. Seat 0's zone row 0 reads seat 1's (0, 3), then "
            "seat 0's own row 0. Seat 0 swapped a drawn 4 in at its (0, 0), discarding the "
            "9; with its 4 at (0, 2) and seat 1's 4 at (0, 3) the row holds three face-up "
            "4s (outlined). Play settles now and removes them.",
            triple,
            f"Round 1 of {ROUNDS} \u00b7 turn 1: seat 0 swapped the 4 in; play settles",
        ),
        _Scene(
            "triple-after.svg",
            after,
            "After settling: the three 4s are out of play, leaving gaps (outlined) in two "
            "grids. The gap in seat 1's column 3 lies in zone 1 and in zone 0. Seat 1 "
            "draws next.",
            triple,
        ),
    ]


def _scenes() -> list[_Scene]:
    return [_table_scene(), *_knock_scenes(), *_triple_scenes()]


def docs_pictures() -> dict[str, str]:
    """Seven example pictures, by file name, each with its caption drawn in.

    Each is built from a stacked deck and real engine actions and carries a caption
    explaining it (``python -m allegra_rules.svg DIR`` writes them):

    * ``table-4p.svg``: a four-player table mid-round: every zone, the shared
      columns, face-up and face-down cards and gaps.
    * ``knock-1.svg`` .. ``knock-4.svg``: the knock exchange, numbered as in rules
      R9.2 to R9.4: the card drawn and the knock (before the exchange); step 1, the
      knocker's swap; step 2, the drawer's take, leaving a gap; the end of step 2 and
      step 3, the drawer's swap and the knocker's hand card filling the gap.
    * ``triple-cross-zone.svg``: a zone-row triple using the left neighbour's column
      3, outlined just before play settles; ``triple-after.svg``: the gaps after.

    Returns:
        File name to SVG text, in the order above.
    """
    return {
        scene.name: _render(
            scene.state,
            _check_options(
                scene.state,
                viewer=None,
                highlight=scene.highlight,
                reveal=False,
                seats=None,
                seat_names=None,
                status=True,
                legend=True,
                piles=True,
                zone_sums=True,
                text_scale=1.0,
            ),
            caption=scene.caption,
            status=scene.status or _status(scene.state),
        )
        for scene in _scenes()
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Write every picture of [`docs_pictures`][allegra_rules.svg.docs_pictures] into a directory.

    Usage: ``python -m allegra_rules.svg DIR``. ``DIR`` is created if needed;
    existing files of the same names are overwritten.

    Args:
        argv: the arguments after the program name; ``None`` reads ``sys.argv``.

    Returns:
        The exit status, 0.
    """
    parser = argparse.ArgumentParser(
        prog="python -m allegra_rules.svg",
        description="Write the SVG pictures of the allegra_rules documentation.",
    )
    parser.add_argument("directory", type=Path, help="where to write the .svg files")
    args = parser.parse_args(argv)
    out: Path = args.directory
    out.mkdir(parents=True, exist_ok=True)
    for name, picture in docs_pictures().items():
        (out / name).write_text(picture, encoding="utf-8")
        print(out / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
