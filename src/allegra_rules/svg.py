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
zone a row, the seats stacked. Both pictures are made of the same parts, placed by the
internal module ``allegra_rules.svg_positions`` and drawn by ``allegra_rules.svg_draw``.

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

import sys
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
from allegra_rules.geometry import CELLS_PER_SEAT, Pos
from allegra_rules.picture_labels import PictureLabels
from allegra_rules.state import GameState, Phase, require_state, trusted_evolve
from allegra_rules.svg_draw import (
    MUTED,
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
    legend_text,
    status_line,
    svg_text,
)
from allegra_rules.svg_positions import CARD_H, MARGIN, Options, check_options, layout, wrap
from allegra_rules.transitions import ROUNDS, apply, new_game

__all__ = ["docs_pictures", "main", "render_svg"]

if sys.argv[:1] == ["-m"]:  # pragma: no cover - only while ``python -m`` starts up
    # ``python -m allegra_rules.svg`` imports the package first, whose __init__
    # imports this module; runpy then warns that the module is already loaded.
    # It is harmless here: this module has no state of its own.
    warnings.filterwarnings(
        "ignore", message=r"'allegra_rules\.svg' found in sys\.modules", category=RuntimeWarning
    )

# -------------------------------------------------------------- the wide layout


def _render(state: GameState, opts: Options, *, caption: str | None, status: str) -> str:
    if caption is not None and not isinstance(caption, str):
        raise ValueError(f"caption must be a str or None; got {type(caption).__name__}")
    n = state.num_players
    lay = layout(opts)
    pic = Picture(state, lay, opts)
    body: list[str] = []
    if opts.status:
        body.append(pic.text(MARGIN, lay.status_y, status, 15, weight="bold", cls="status"))
    body += draw_bands(pic)
    body += draw_labels(pic)
    body += draw_cells(pic)
    if opts.zone_sums:
        body += draw_brackets(pic)
        hand_top = lay.lane_y[1] + lay.size(22)
        bottom = lay.lane_y[1] + lay.size(9)
    else:
        hand_top = lay.grid_bottom + 10 + lay.size(16)
        bottom = lay.grid_bottom + 10
    hands = hand_lines(pic)
    if hands:
        body += draw_hands(pic, hand_top)
        bottom = hand_top + hands_height(pic)
    if opts.piles:
        body += draw_piles(pic)
        bottom = max(bottom, lay.grid_top + 18 + CARD_H + lay.size(56 if state.out_of_play else 32))
    # Caption and legend (text under the table), at the old offsets at scale 1.
    y = bottom + lay.size(31 if opts.zone_sums and not hands else 34)
    text_width = lay.width - 2 * MARGIN
    lines_drawn = False
    if caption:
        size = lay.size(14)
        for line in wrap(caption, text_width, size):
            body.append(svg_text(MARGIN, y, line, size=size, cls="caption"))
            y += lay.size(20)
        y += 6
        lines_drawn = True
    if opts.legend:
        size = lay.size(11)
        for line in wrap(legend_text(pic), text_width, size):
            body.append(svg_text(MARGIN, y, line, size=size, fill=MUTED, cls="legend"))
            y += lay.size(15)
        lines_drawn = True
    height = round(y - lay.size(15) + 14 if lines_drawn else bottom + MARGIN)
    width = round(lay.width)
    title = f"{opts.labels.count('title', n)}: {caption or status}"
    return document(width, height, title, status, body)


class SvgPicture(str):
    """An SVG document, as text, that a Jupyter notebook shows as its picture.

    A plain ``str`` in every other way: ``render_svg``'s result.
    """

    __slots__ = ()

    def _repr_svg_(self) -> str:
        """The drawing without the XML declaration, which an HTML page has no use for."""
        return self.split("\n", 1)[1]


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
) -> SvgPicture:
    """The table of ``state`` as a self-contained SVG picture.

    The text is a ``str`` that a Jupyter notebook shows as the picture: a cell that ends
    in ``render_svg(state)`` shows the table.

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
        seat_names: one name per seat for the labels (``"Player 1"``, ... by default, in
            the language of ``labels``).
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
    opts = check_options(
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
    return SvgPicture(_render(state, opts, caption=caption, status=status_line(state)))


# ----------------------------------------------------------------- doc pictures

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
        "A four-player table in the middle of round 1, Player 1 to draw. The players "
        "are drawn 4, 3, 2, 1 from left to right, so every coloured band is one zone: a "
        "player's four columns plus their left neighbour's column 4 just left of them. "
        "Each column 4 lies under two bands, in two zones; Player 1's column 4 also "
        "belongs to Player 4's zone and is repeated faded at the far left: Player 4 has "
        "just swapped an 8 in there, at Player 1's row 2, column 4. Striped cards are "
        "face down. The three gaps in Player 3's column 2 are where a triple of 6s was "
        "removed."
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
            "Before the knock exchange: Player 1 drew a -1 from the draw pile and holds it. "
            "Player 2 knocked for it, Player 3 passed. Player 1 may swap the -1 in, discard "
            "it, or give it to the knocker, and gives it to Player 2.",
        ),
        _Scene(
            "knock-2.svg",
            swapped,
            "Step 1: Player 2 swapped the -1 in at their row 1, column 2 (outlined). The 9 "
            "that lay there is now in Player 2's hand.",
            (Pos(1, 0, 1),),
        ),
        _Scene(
            "knock-3.svg",
            taken,
            "Step 2: Player 1 took a card from Player 2's zone, the 0 at Player 2's row 2, "
            "column 2, and holds it to swap it into their own zone. Its cell is a gap "
            "(outlined) until the exchange ends.",
            (Pos(1, 1, 1),),
        ),
        _Scene(
            "knock-4.svg",
            done,
            "Step 2 ends and step 3 follows at once: Player 1 swapped the 0 in at their row "
            "1, column 1 and discarded the 8 from there; Player 2's hand card, the 9, "
            "filled the gap at their row 2, column 2, face up (both outlined). The turn is "
            "over; Player 2 draws next.",
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
            "A triple across two grids. The top row of Player 1's zone reads Player 2's row "
            "1, column 4, then Player 1's own row 1. Player 1 swapped a drawn 4 in at row 1, "
            "column 1, discarding the 9; with their 4 at row 1, column 3 and Player 2's 4 at "
            "row 1, column 4 the row holds three face-up 4s (outlined). Play settles now and "
            "removes them.",
            triple,
            f"Round 1 of {ROUNDS} \u00b7 turn 1: Player 1 swapped the 4 in; play settles",
        ),
        _Scene(
            "triple-after.svg",
            after,
            "After settling: the three 4s are out of play, leaving gaps (outlined) in two "
            "grids. The gap in Player 2's column 4 lies in Player 2's zone and in Player "
            "1's. Player 2 draws next.",
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
            check_options(
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
            status=scene.status or status_line(scene.state),
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
    import argparse  # (here: the play page imports this module and never runs main)

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
