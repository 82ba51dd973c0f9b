"""When a card could help a seat: the one rule behind every "ask me only when it could help".

A knock window asks every other seat whether it wants the card just drawn, and each turn
starts with a choice of piles. A person who lets the table answer for them (the
terminal's ``--auto-pass``, the pages' "ask me only when the card could help me") is
asked only when the card could clearly help: ``knock_reason`` and ``draw_reason`` say
why it could, or ``None``. They read only what the seat knows (the face-up cards, the
card on offer, the cards it has not seen), so their answers tell nothing hidden; the
``greedy`` bot knocks in the same windows.
"""

from __future__ import annotations

from collections.abc import Sequence

from allegra_rules.actions import DrawDeck, DrawDiscard
from allegra_rules.state import GameState, Phase
from allegra_rules.transitions import legal_actions
from allegra_rules.triples import new_triples
from allegra_rules.views import observe
from allegra_rules.wording import cell_text

__all__ = [
    "KNOCK_AT_MOST",
    "KNOCK_HIGH_CARD",
    "TRIPLE_AT_LEAST",
    "draw_reason",
    "knock_reason",
]


KNOCK_AT_MOST = 2
"""Auto-pass asks about a drawn card of this value or lower (or one that makes a triple)..."""
KNOCK_HIGH_CARD = 8
"""... when a face-up card of this value or higher lies where you could swap it in."""
TRIPLE_AT_LEAST = 3
"""Auto-pass asks about a card that completes a triple when it is worth this much or more."""


def knock_reason(state: GameState, you: int) -> str | None:
    """Why the card of a knock window would clearly help seat ``you``, or ``None``.

    ``--auto-pass`` answers a knock window with a pass by itself unless this gives a
    reason: the drawn card is ``KNOCK_AT_MOST`` or lower and the seat's swap zone
    shows a face-up ``KNOCK_HIGH_CARD`` or higher, or the drawn card is
    ``TRIPLE_AT_LEAST`` or higher and, swapped in at a cell of that zone, it would
    complete a triple. Only what every player sees is used (the
    drawn card and the face-up cards), so the answer tells nothing hidden. (The
    ``greedy`` bot knocks only in windows this asks about.)

    Examples:
        >>> from allegra_rules import new_game
        >>> knock_reason(new_game(3, seed=1), 0) is None  # nobody holds a card
        True
    """
    held = state.held
    if held is None or state.phase is not Phase.KNOCK or state.current_player != you:
        return None
    config = state.config
    geo = state.geometry
    area = geo.zone[you] if config.swap_area == "zone" else geo.own[you]
    cells = state.cells
    face_down = state.face_down
    up = [i for i in area if cells[i] is not None and not face_down >> i & 1]
    if up:
        high = max(up, key=lambda i: (cells[i], -i))
        value = cells[high]
        assert value is not None
        if held <= KNOCK_AT_MOST and value >= KNOCK_HIGH_CARD:
            where = cell_text(geo.positions[high], you)
            return f"the {held} is {value - held} lower than the {value} at {where}"
    triple = _triple_cell(state, area, held)
    if triple is not None:
        where = cell_text(geo.positions[triple], you)
        return f"the {held} swapped in at {where} would complete a triple"
    return None


def _triple_cell(state: GameState, area: Sequence[int], card: int) -> int | None:
    """A cell of ``area`` where ``card`` (``TRIPLE_AT_LEAST`` or more) would complete a triple.

    Only face-up cards can make a triple, so this uses nothing hidden.
    """
    if card < TRIPLE_AT_LEAST:
        return None
    cells = state.cells
    face_down = state.face_down
    for i in area:
        if cells[i] is None or (cells[i] == card and not face_down >> i & 1):
            continue
        placed = list(cells)
        placed[i] = card
        if new_triples(state.config, state.geometry, tuple(placed), face_down & ~(1 << i), (i,)):
            return i
    return None


def draw_reason(state: GameState, you: int) -> str | None:
    """Why the discard pile's top card could help seat ``you`` now, or ``None``.

    ``--auto-pass`` draws from the draw pile by itself at the start of the seat's
    turn unless this gives a reason: the top card is lower than a face-up card of
    the seat's swap zone, or lower than the mean of the cards the seat has not seen
    (what a face-down card is worth on average), or it would complete a triple.
    Only what the seat knows is used. (The ``greedy`` bot takes the discard pile
    only when this gives a reason.)

    Examples:
        >>> from allegra_rules import new_game
        >>> draw_reason(new_game(3, seed=1), 0) is None  # the setup: nobody draws yet
        True
    """
    if state.phase is not Phase.DRAW or state.current_player != you:
        return None
    top = state.discard_top
    legal = legal_actions(state)
    if top is None or DrawDiscard() not in legal:
        return None
    if DrawDeck() not in legal:
        return "the draw pile cannot be drawn from"
    geo = state.geometry
    area = geo.zone[you] if state.config.swap_area == "zone" else geo.own[you]
    cells = state.cells
    face_down = state.face_down
    up = [i for i in area if cells[i] is not None and not face_down >> i & 1]
    higher = [i for i in up if (cells[i] or 0) > top]
    if higher:
        best = max(higher, key=lambda i: (cells[i] or 0, -i))
        where = cell_text(geo.positions[best], you)
        return f"the {top} on the discard pile is lower than the {cells[best]} at {where}"
    own_down = [i for i in geo.own[you] if cells[i] is not None and face_down >> i & 1]
    if len(own_down) == 1 and own_down[0] in area:
        where = cell_text(geo.positions[own_down[0]], you)
        return f"the {top}, swapped in at {where}, would turn up your last face-down card"
    if any(cells[i] is not None and face_down >> i & 1 for i in area):
        unseen = observe(state, you).unseen_cards()
        mean = sum(unseen) / len(unseen) if unseen else 0.0
        if top < mean:
            return (
                f"the {top} on the discard pile is lower than a face-down card on average "
                f"({mean:.1f})"
            )
    triple = _triple_cell(state, area, top)
    if triple is not None:
        where = cell_text(geo.positions[triple], you)
        return f"the {top} on the discard pile, swapped in at {where}, would complete a triple"
    return None
