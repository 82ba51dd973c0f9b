"""The actions a player can take. All are frozen and hashable.

``legal_actions`` hands out interned objects (one object per distinct action), so
programs that compare or store actions pay nothing for building them; an action built
by hand, such as ``Swap(Pos(0, 1, 2))``, is equal to the interned one.

Fields are checked when an action is built: ``Reveal``, ``Swap`` and ``Take`` hold a
[`Pos`][allegra_rules.geometry.Pos], ``Give.player`` is an ``int`` seat (a ``bool`` or a ``float``
is not); anything else raises ``ValueError`` naming the field.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import attrs

from allegra_rules.geometry import MAX_SEATS, Pos, geometry


def _is_pos(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if type(value) is not Pos:
        shown = repr(value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise ValueError(
            f"{type(instance).__name__}.{attribute.name} must be a Pos; got {shown} "
            f"({type(value).__name__})"
        )


def _is_seat(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if type(value) is not int or not 0 <= value < MAX_SEATS:
        shown = repr(value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise ValueError(
            f"{type(instance).__name__}.{attribute.name} must be an int seat "
            f"0..{MAX_SEATS - 1}; got {shown} ({type(value).__name__})"
        )


@attrs.frozen(slots=True)
class Reveal:
    """Turn the face-down card at ``pos`` face up (setup, or after a ``Discard``)."""

    pos: Pos = attrs.field(validator=_is_pos)


@attrs.frozen(slots=True)
class DrawDeck:
    """Draw the top card of the draw pile and show it to everyone."""


@attrs.frozen(slots=True)
class DrawDiscard:
    """Take the top card of the discard pile."""


@attrs.frozen(slots=True)
class Knock:
    """Ask for the card the drawer just drew from the draw pile."""


@attrs.frozen(slots=True)
class Pass:
    """Do not knock."""


@attrs.frozen(slots=True)
class Give:
    """The drawer gives the drawn card to the knocker ``player``."""

    player: int = attrs.field(validator=_is_seat)


@attrs.frozen(slots=True)
class Swap:
    """Put the held card at ``pos``, face up, replacing the card there."""

    pos: Pos = attrs.field(validator=_is_pos)


@attrs.frozen(slots=True)
class Discard:
    """Put the held card on the discard pile (a ``Reveal`` follows)."""


@attrs.frozen(slots=True)
class Take:
    """In a knock exchange, the drawer takes the card at ``pos`` from the knocker's area."""

    pos: Pos = attrs.field(validator=_is_pos)


Action = Reveal | DrawDeck | DrawDiscard | Knock | Pass | Give | Swap | Discard | Take
"""Any action."""

DRAW_DECK = DrawDeck()
"""``DrawDeck()`` as a constant (equal to every ``DrawDeck()``)."""
DRAW_DISCARD = DrawDiscard()
"""``DrawDiscard()`` as a constant (equal to every ``DrawDiscard()``)."""
KNOCK = Knock()
"""``Knock()`` as a constant (equal to every ``Knock()``)."""
PASS = Pass()
"""``Pass()`` as a constant (equal to every ``Pass()``)."""
DISCARD = Discard()
"""``Discard()`` as a constant (equal to every ``Discard()``)."""


@attrs.frozen(slots=True, eq=False)
class InternedActions:
    """The interned actions of one seat count, indexed by flat cell index or seat.

    ``reveal[i]``, ``swap[i]`` and ``take[i]`` are ``Reveal``, ``Swap`` and ``Take`` of
    flat cell ``i`` (``seat * 12 + row * 4 + col``); ``give[k]`` is ``Give(k)``. Get
    one with [`interned_actions`][allegra_rules.actions.interned_actions].
    """

    reveal: tuple[Reveal, ...]
    swap: tuple[Swap, ...]
    take: tuple[Take, ...]
    give: tuple[Give, ...]


@cache
def interned_actions(num_players: int) -> InternedActions:
    """The interned actions of a ``num_players`` table (one shared object per seat count)."""
    positions = geometry(num_players).positions
    return InternedActions(
        reveal=tuple(Reveal(p) for p in positions),
        swap=tuple(Swap(p) for p in positions),
        take=tuple(Take(p) for p in positions),
        give=tuple(Give(k) for k in range(num_players)),
    )


ActionTable = InternedActions
"""Deprecated: the old name of [`InternedActions`][allegra_rules.actions.InternedActions].

"Table" means the cards on the table (and, in the server, where people sit); this is a
list of actions. Kept importable; use ``InternedActions``.
"""

action_table = interned_actions
"""Deprecated: the old name of [`interned_actions`][allegra_rules.actions.interned_actions].

Kept importable (the same function); use ``interned_actions``.
"""
