"""The knocking rule (A13, A14): whether there is a knock window, who is asked, when it closes.

After a ``DrawDeck()``, when knocking applies at the table, the other seats are asked in
turn whether to knock, clockwise from the drawer's left neighbour; the drawer is never
asked. The window closes when the last of them has answered, or, with
``knock_winner="first_clockwise"``, at the first ``Knock()``. The knockers are therefore
seats asked, in the order they were asked.

Whether knocking applies is the option ``knocking``: ``"always"``, ``"three_or_more"``
(at tables of three or more seats) or ``"never"``.

This module is the one definition of the rule: the scalar engine applies it
(``transitions``), the loader checks states against it (``invariants``) and the batched
engine derives its static tables from it (``allegra_rules.jax``).

Examples:
    >>> from allegra_rules import preset
    >>> config = preset("seeds")
    >>> asked_order(2, 4)
    (3, 0, 1)
    >>> next_asked(config, 4, drawer=2, asked=3, knocked=False)
    0
    >>> next_asked(config, 4, drawer=2, asked=1, knocked=True) is None
    True
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from allegra_rules.config import RuleConfig


def knocking_applies(config: RuleConfig, num_players: int) -> bool:
    """Whether a ``DrawDeck()`` opens a knock window at a table of ``num_players`` seats.

    Examples:
        >>> from allegra_rules import RuleConfig
        >>> knocking_applies(RuleConfig(knocking="three_or_more"), 2)
        False
    """
    knocking = config.knocking
    return knocking == "always" or (knocking == "three_or_more" and num_players >= 3)


def closes_at_first_knock(config: RuleConfig) -> bool:
    """Whether the window closes at the first ``Knock()`` (``knock_winner="first_clockwise"``)."""
    return config.knock_winner == "first_clockwise"


def first_asked(drawer: int, num_players: int) -> int:
    """The seat asked first in ``drawer``'s knock window: its left neighbour."""
    return (drawer + 1) % num_players


def asked_order(drawer: int, num_players: int) -> tuple[int, ...]:
    """Every seat asked in ``drawer``'s knock window, in the order asked.

    Examples:
        >>> asked_order(0, 3)
        (1, 2)
    """
    return tuple((drawer + k) % num_players for k in range(1, num_players))


def next_asked(
    config: RuleConfig, num_players: int, drawer: int, asked: int, knocked: bool
) -> int | None:
    """The seat asked after ``asked`` answers (``Knock()`` when ``knocked``, else ``Pass()``).

    ``None`` when that answer closes the window: ``asked`` was the last seat to ask, or
    it knocked and the window closes at the first knock. Then play goes back to the
    drawer.
    """
    if knocked and closes_at_first_knock(config):
        return None
    nxt = (asked + 1) % num_players
    return None if nxt == drawer else nxt


def asked_before(drawer: int, asked: int, num_players: int) -> tuple[int, ...]:
    """The seats asked before ``asked`` in ``drawer``'s window, in order: its possible knockers.

    Examples:
        >>> asked_before(1, 0, 4)
        (2, 3)
    """
    order = asked_order(drawer, num_players)
    return order[: order.index(asked)] if asked in order else ()


def in_asked_order(knockers: Sequence[int], drawer: int, num_players: int) -> bool:
    """Whether ``knockers`` are seats asked in ``drawer``'s window, each once, in the order asked.

    Examples:
        >>> in_asked_order((3, 1), 2, 4), in_asked_order((1, 3), 2, 4)
        (True, False)
    """
    order = asked_order(drawer, num_players)
    if any(k not in order for k in knockers):
        return False
    places = [order.index(k) for k in knockers]
    return all(a < b for a, b in itertools.pairwise(places))


__all__ = [
    "asked_before",
    "asked_order",
    "closes_at_first_knock",
    "first_asked",
    "in_asked_order",
    "knocking_applies",
    "next_asked",
]
