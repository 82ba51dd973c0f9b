"""Internal: the SVG primitives and the parts of a table picture.

One job: write SVG. The primitives (text, numbers, attributes, the document envelope
``document``) and, at the places that a [`Layout`][allegra_rules.svg_positions.Layout]
gives, every part of a table: card faces, backs and gaps, the zone bands, the seat,
column and row labels, the grid cells, the zone brackets, the held and hand cards with
their notes, the legend and the piles. The colours and the font are here too.

Both layouts compose these parts: ``allegra_rules.svg`` (the seats side by side) and
``allegra_rules.svg_layout`` (the seats stacked, for a phone). It imports
``allegra_rules.svg_positions`` (the layout) and the engine's modules it reads a state
with (``geometry``, ``render``, ``state``, ``transitions``); neither layout module is
imported here. Its names are internal to the package and may change between releases.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Sequence

import attrs

from allegra_rules.geometry import CELLS_PER_SEAT, COLS, ROWS, SHARED_COL
from allegra_rules.render import status_text
from allegra_rules.state import GameState, Phase
from allegra_rules.svg_positions import (
    CARD_H,
    CARD_W,
    GRID_H,
    GRID_W,
    MARGIN,
    SEAT_GAP,
    WRAP_NOTE_SIZE,
    Layout,
    Options,
    text_width,
    wrap_note,
)
from allegra_rules.transitions import ROUNDS

# ------------------------------------------------------------------------ style

FONT = "DejaVu Sans, Verdana, Helvetica, Arial, sans-serif"
"""The font family of every text (the ``<svg>`` element's ``font-family``)."""
INK = "#222831"
"""The colour of the main texts."""
MUTED = "#6b7280"
"""The colour of the secondary texts (labels, notes, counts, the legend)."""
ACCENT = "#c2185b"
"""The colour of the seat to play and of the highlight outlines."""
ZONE_COLOURS = ("#2f6fb5", "#e07b00", "#2e9a4b", "#8e4fb8", "#d6336c", "#148f8f")
"""The colours of the zones' bands and brackets, zone ``p`` taking ``p % 6``."""
# (fill, stroke, text) per value band.
_BANDS = (
    ("#d6e8ff", "#4a78b8", "#1b4a8a"),  # 0 and below
    ("#daf2d5", "#4f9a52", "#24662a"),  # 1..4
    ("#fff0bf", "#c49a1c", "#7a5a00"),  # 5..8
    ("#ffd9d3", "#c8503f", "#9a2414"),  # 9 and up
)
BACK = "#2d3c78"
"""The colour of a card's back."""

DEFS = (
    "<defs>"
    '<pattern id="allegra-back" width="8" height="8" patternUnits="userSpaceOnUse"'
    ' patternTransform="rotate(45)">'
    f'<rect width="8" height="8" fill="{BACK}"/>'
    '<rect width="3" height="8" fill="#4a5ca6"/>'
    "</pattern>"
    "</defs>"
)
"""The ``<defs>`` of every picture: the striped pattern of a card's back."""


def esc(text: str) -> str:
    """``text`` escaped for an element's content (as ``html.escape(text, quote=False)``).

    Written out here: the ``html`` module loads its table of every named entity at
    import, which costs the docs' play page a twentieth of a second in the browser.
    """
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def attr(value: object) -> str:
    """A quoted attribute value, written as ``xml.sax.saxutils.quoteattr`` writes it."""
    # (That module pulls in urllib, http.client and ssl at import.)
    text = esc(str(value))
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


def svg_text(
    x: float,
    y: float,
    text: str,
    *,
    size: float = 12,
    anchor: str = "start",
    fill: str = INK,
    weight: str = "normal",
    cls: str = "",
) -> str:
    """A ``<text>`` element (``cls``: its class, if any)."""
    extra = f' class="{cls}"' if cls else ""
    bold = f' font-weight="{weight}"' if weight != "normal" else ""
    return (
        f'<text{extra} x="{num(x)}" y="{num(y)}" font-size="{num(size)}"'
        f' text-anchor="{anchor}" fill="{fill}"{bold}>{esc(text)}</text>'
    )


def num(value: float) -> str:
    """A coordinate with at most one decimal, without a trailing ``.0``."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


# -------------------------------------------------------------------- the cards


def _value_text(value: int, cx: float, y: float, height: float, colour: str) -> str:
    label = str(value)
    size = 22 if len(label) <= 2 else max(11, 44 / len(label))
    return svg_text(
        cx,
        y + height / 2 + size * 0.36,
        label,
        size=size,
        anchor="middle",
        fill=colour,
        weight="bold",
    )


def face_up_shapes(x: float, y: float, value: int, *, dashed: bool = False) -> list[str]:
    """A face-up card at ``(x, y)``; ``dashed``: the border of a face-down card shown."""
    fill, stroke, ink = _band(value)
    border = (
        f'stroke="{BACK}" stroke-width="2.5" stroke-dasharray="5 3"'
        if dashed
        else f'stroke="{stroke}" stroke-width="1.5"'
    )
    return [
        f'<rect x="{num(x)}" y="{num(y)}" width="{CARD_W}" height="{CARD_H}" rx="6"'
        f' fill="{fill}" {border}/>',
        _value_text(value, x + CARD_W / 2, y, CARD_H, ink),
    ]


def back_shapes(x: float, y: float) -> list[str]:
    """A card's striped back at ``(x, y)``."""
    return [
        f'<rect x="{num(x)}" y="{num(y)}" width="{CARD_W}" height="{CARD_H}" rx="6"'
        f' fill="url(#allegra-back)" stroke="#1c2650" stroke-width="1.5"/>',
        f'<rect x="{num(x + 4)}" y="{num(y + 4)}" width="{CARD_W - 8}"'
        f' height="{CARD_H - 8}" rx="3" fill="none" stroke="#ffffff"'
        ' stroke-opacity="0.55" stroke-width="1"/>',
    ]


def gap_shapes(x: float, y: float) -> list[str]:
    """A gap (a dashed empty outline) at ``(x, y)``."""
    return [
        f'<rect x="{num(x + 1)}" y="{num(y + 1)}" width="{CARD_W - 2}"'
        f' height="{CARD_H - 2}" rx="6" fill="#ffffff" fill-opacity="0.55"'
        ' stroke="#8a8f98" stroke-width="1.5" stroke-dasharray="5 4"/>',
    ]


def loose_card(x: float, y: float, value: int | None, cls: str) -> str:
    """A card outside the grids (pile top, held or hand card); ``None`` shows a back."""
    shapes = back_shapes(x, y) if value is None else face_up_shapes(x, y, value)
    data = f" data-value={attr(value)}" if value is not None else ""
    return f'<g class="{cls}"{data}>' + "".join(shapes) + "</g>"


# ------------------------------------------------------------------- the status


def status_line(state: GameState) -> str:
    """The round and what the game waits for (the text drawing's status line)."""
    return f"Round {state.round} of {ROUNDS} \u00b7 " + status_text(state)


# ----------------------------------------------------------------- the document


def document(width: int, height: int, title: str, desc: str, body: Iterable[str]) -> str:
    """The whole SVG document of a picture ``width`` by ``height`` whose parts are ``body``.

    The XML declaration, then one ``<svg>`` element holding the ``<title>``, the
    ``<desc>``, the ``<defs>``, a white background and ``body``; a newline ends it.
    """
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}"'
        f' viewBox="0 0 {width} {height}" role="img" font-family={attr(FONT)}>'
        f"<title>{esc(title)}</title><desc>{esc(desc)}</desc>{DEFS}"
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>' + "".join(body) + "</svg>\n"
    )


# -------------------------------------------------------------------- the parts


@attrs.frozen
class Picture:
    """What every part of one drawing needs: the state, the layout, what is shown."""

    state: GameState
    lay: Layout
    opts: Options

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
            return "gap", gap_shapes(x, y)
        if drawn is None:
            return "face-down", back_shapes(x, y)
        kind = "face-down revealed" if down else "face-up"
        return kind, face_up_shapes(x, y, drawn, dashed=down)

    def name(self, seat: int) -> str:
        """The name drawn for ``seat``."""
        return self.opts.names[seat]

    def text(self, x: float, y: float, text: str, size: float, **kwargs: str) -> str:
        """A text element with a font size of ``size`` at scale 1."""
        return svg_text(x, y, text, size=self.lay.size(size), **kwargs)


def _held_note(pic: Picture) -> tuple[int | None, str]:
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


def _zone_span(pic: Picture, p: int) -> tuple[float, float]:
    """The x range of zone ``p``'s five columns, from its first card's left edge."""
    lay = pic.lay
    n = pic.state.num_players
    first = pic.opts.order[0]
    x0 = lay.ghost_x if p == first else lay.col_x((p + 1) % n, SHARED_COL)
    return x0, lay.col_x(p, SHARED_COL) + CARD_W


def draw_bands(pic: Picture) -> list[str]:
    """The translucent coloured band over each drawn zone's five columns."""
    out = []
    for p in sorted(pic.opts.order):
        colour = ZONE_COLOURS[p % len(ZONE_COLOURS)]
        x0, x1 = _zone_span(pic, p)
        # Neighbouring bands are staggered a little so both edges of the shared
        # column show.
        top, bottom = pic.lay.band_y[p % 2]
        out.append(
            f'<rect class="zone-band" data-zone="{p}" x="{num(x0 - 5)}" y="{num(top)}"'
            f' width="{num(x1 - x0 + 10)}" height="{num(bottom - top)}" rx="9"'
            f' fill="{colour}" fill-opacity="0.16" stroke="{colour}" stroke-opacity="0.55"'
            ' stroke-width="1.2"/>'
        )
    return out


def draw_labels(pic: Picture) -> list[str]:
    """The seats' names (with their marks), the column labels and the row labels."""
    state, lay = pic.state, pic.lay
    words = pic.opts.labels
    out = []
    knockers = set(state.knockers)
    for seat in sorted(pic.opts.order):
        label = pic.name(seat)
        colour = INK
        if seat == state.current_player:
            label = "\u25b6 " + label
            colour = ACCENT
        if seat == state.drawer and state.phase is not Phase.DRAW:
            label += words.drawer
        if seat in knockers:
            label += words.knocked
        cx = lay.starts[seat] + GRID_W / 2
        out.append(
            pic.text(cx, lay.seat_label_y, label, 15, anchor="middle", fill=colour, weight="bold")
        )
        for c in range(COLS):
            x = lay.col_x(seat, c) + CARD_W / 2
            col = words.column.format(col=c + 1)
            out.append(pic.text(x, lay.col_label_y, col, 10, anchor="middle", fill=MUTED))
    x = lay.ghost_x + CARD_W / 2
    # Named seats: the faded column is labelled with its owner's name.
    ghost = (
        pic.name(pic.opts.ghost)
        if pic.opts.named
        else words.ghost_column.format(seat=pic.opts.ghost + 1)
    )
    out.append(pic.text(x, lay.col_label_y, ghost, 10, anchor="middle", fill=MUTED))
    for r in range(ROWS):
        y = lay.row_y(r) + CARD_H / 2 + lay.size(4)
        out.append(pic.text(MARGIN, y, words.row.format(row=r + 1), 11, fill=MUTED))
    return out


def _highlight_shape(x: float, y: float) -> str:
    return (
        f'<rect class="highlight" x="{num(x - 4)}" y="{num(y - 4)}" width="{CARD_W + 8}"'
        f' height="{CARD_H + 8}" rx="9" fill="none" stroke="{ACCENT}" stroke-width="3.5"/>'
    )


def draw_cells(pic: Picture) -> list[str]:
    """Every drawn grid cell, the faded column at the far left and the wrap-around marker."""
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
                data = f" data-value={attr(drawn)}" if drawn is not None else ""
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
        data = f" data-value={attr(drawn)}" if drawn is not None and not drawn_twice else ""
        out.append(
            f'<g class="{cls}" data-seat="{ghost}" data-row="{r}" data-col="{SHARED_COL}"{data}'
            f' opacity="{0.45 if drawn_twice else 0.7}">' + "".join(shapes) + "</g>"
        )
    if lay.wrap_x is not None:
        # An arrow right of seat 0's column 3 saying where else it counts.
        mid = lay.grid_top + GRID_H / 2
        wx = lay.wrap_x
        out.append(
            f'<path class="wrap-marker" d="M {num(wx)} {num(mid - 22)} q 16 0 16 14 l 0 22'
            f' m -5 -7 l 5 7 l 5 -7" fill="none" stroke="{MUTED}" stroke-width="1.5"/>'
        )
        for k, line in enumerate(wrap_note(pic.opts)):
            y = mid + lay.size(32 + 13 * k)
            out.append(pic.text(wx + 4, y, line, WRAP_NOTE_SIZE, fill=MUTED, cls="wrap-note"))
    return out


def draw_brackets(pic: Picture) -> list[str]:
    """The bracket under each drawn zone, with the sum of its shown cards."""
    state, lay = pic.state, pic.lay
    out = []
    for p in sorted(pic.opts.order):
        colour = ZONE_COLOURS[p % len(ZONE_COLOURS)]
        left_edge, right_edge = _zone_span(pic, p)
        x0 = left_edge + CARD_W / 2
        x1 = right_edge - CARD_W / 2
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
            note = words.zone_numbered.format(zone=p + 1, total=total) + more
        else:
            note = words.zone_named.format(name=pic.name(p), total=total) + more
        size = lay.size(11)
        width = text_width(note, size) + lay.size(12)
        half = lay.size(9)
        cx = (x0 + x1) / 2
        out.append(
            f'<g class="zone-bracket" data-zone="{p}">'
            f'<path d="M {num(x0)} {num(y - 7)} V {num(y)} H {num(x1)} V {num(y - 7)}"'
            f' fill="none" stroke="{colour}" stroke-width="2"/>'
            f'<rect x="{num(cx - width / 2)}" y="{num(y - half)}" width="{num(width)}"'
            f' height="{num(2 * half)}" rx="{num(half)}" fill="#ffffff" stroke="{colour}"'
            ' stroke-width="1.2"/>'
            + pic.text(cx, y + lay.size(4), note, 11, anchor="middle", fill=colour, weight="bold")
            + "</g>"
        )
    return out


def hand_lines(pic: Picture) -> list[tuple[int, int | None, list[str], str]]:
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


def _note_lines(pic: Picture, lines: Sequence[str]) -> tuple[float, list[str]]:
    """The font size of a hand slot's notes and the notes wrapped to fit beside it.

    The notes stay within the grid and the gap after it (the next seat may hold a
    card too), so they grow less than the other texts.
    """
    size = 12 * min(pic.lay.scale, 1.15)
    room = GRID_W + SEAT_GAP - 12 - CARD_W - 10
    wrapped: list[str] = []
    for line in lines:
        wrapped.extend(textwrap.wrap(line, max(8, int(room / (0.6 * size)))) or [""])
    return size, wrapped


def draw_hands(pic: Picture, top: float) -> list[str]:
    """The held card and a knocker's hand card, each under its holder's grid."""
    out = []
    for holder, value, lines, cls in hand_lines(pic):
        x = pic.lay.starts[holder] + 12
        size, wrapped = _note_lines(pic, lines)
        out.append(loose_card(x, top, value, cls))
        for k, line in enumerate(wrapped):
            out.append(
                svg_text(
                    x + CARD_W + 10,
                    top + 16 * size / 12 + 15 * size / 12 * k,
                    line,
                    size=size,
                    fill=INK if k == 0 else MUTED,
                    weight="bold" if k == 0 else "normal",
                )
            )
    return out


def hands_height(pic: Picture) -> float:
    """How far the hand slots reach below their top."""
    notes = max(len(_note_lines(pic, lines)[1]) for _, _, lines, _ in hand_lines(pic))
    size = _note_lines(pic, ["x"])[0]
    return max(CARD_H, (16 + 15 * (notes - 1) + 4) * size / 12)


def legend_text(pic: Picture) -> str:
    """The legend's text (not yet wrapped)."""
    n = pic.state.num_players
    opts = pic.opts
    legend = (
        "Zone N = Player N's four columns + the column 4 just left of it (the next "
        "player's); each column 4 lies in two zones"
    )
    if opts.whole_table:
        legend += (
            f", and the first player's column 4 wraps around to zone {n} (repeated faded at the"
            " far left)."
        )
    else:
        legend += f"; the faded column at the far left is Player {opts.ghost + 1}'s column 4."
    legend += " Striped: face down; dashed: a gap."
    if opts.reveal:
        legend += " Dashed dark border: a face-down card shown revealed."
    if opts.viewer is not None:
        legend += f" Drawn as Player {opts.viewer + 1} sees it."
    if opts.marked:
        legend += " Outlined: highlighted cells."
    return legend


def draw_piles(pic: Picture) -> list[str]:
    """The draw pile, the discard pile, their labels and sizes, and the cards out of play."""
    state, lay = pic.state, pic.lay
    words = pic.opts.labels
    assert lay.piles_x is not None
    out: list[str] = []
    x = lay.piles_x
    y = lay.grid_top + 18
    out.append(pic.text(x, lay.col_label_y, words.piles, 10, fill=MUTED))
    draw = len(state.draw_pile)
    if draw:
        for k in (2, 1):
            if draw > k:
                out.append(
                    f'<rect x="{num(x + 2 * k)}" y="{num(y - 2 * k)}" width="{CARD_W}"'
                    f' height="{CARD_H}" rx="6" fill="{BACK}" stroke="#1c2650"'
                    ' stroke-width="1"/>'
                )
        out.append(loose_card(x, y, None, "draw-pile"))
    else:
        out.append('<g class="draw-pile">' + "".join(gap_shapes(x, y)) + "</g>")
    label_y = y + CARD_H + lay.size(18)
    count_y = y + CARD_H + lay.size(32)
    out.append(pic.text(x + CARD_W / 2, label_y, words.draw, 11, anchor="middle"))
    out.append(
        pic.text(
            x + CARD_W / 2, count_y, words.count("cards", draw), 11, anchor="middle", fill=MUTED,
            cls="draw-count",
        )
    )  # fmt: skip
    dx = x + CARD_W + 28
    top = state.discard_top
    if top is None:
        out.append('<g class="discard-pile">' + "".join(gap_shapes(dx, y)) + "</g>")
    else:
        out.append(loose_card(dx, y, top, "discard-pile"))
    out.append(pic.text(dx + CARD_W / 2, label_y, words.discard, 11, anchor="middle"))
    out.append(
        pic.text(
            dx + CARD_W / 2, count_y, words.count("cards", len(state.discard_pile)), 11,
            anchor="middle", fill=MUTED,
        )
    )  # fmt: skip
    if state.out_of_play:
        out.append(
            pic.text(
                x,
                y + CARD_H + lay.size(56),
                words.out_of_play.format(cards=words.count("cards", len(state.out_of_play))),
                11,
                fill=MUTED,
                cls="out-of-play",
            )
        )
    return out
