"""A stable integer id for every action, for learning code (policy heads, masks).

For a table of ``n`` seats there are ``num_distinct_actions(n) == 5 + 37 * n`` ids,
laid out as follows (``c`` is a flat cell index ``seat * 12 + row * 4 + col``, in
``0 .. 12n - 1``):

=====================  ============================
ids                    action
=====================  ============================
0                      ``DrawDeck()``
1                      ``DrawDiscard()``
2                      ``Knock()``
3                      ``Pass()``
4                      ``Discard()``
5 + k                  ``Give(k)``, seat ``k`` in ``0 .. n-1``
5 + n + c              ``Reveal(pos)``
5 + 13n + c            ``Swap(pos)``
5 + 25n + c            ``Take(pos)``
=====================  ============================

The layout is part of the public API: it never changes for a given ``n``. Only the
core library is used (no numpy): masks are tuples of 0 and 1.
"""

from __future__ import annotations

from typing import NamedTuple

from allegra_rules.actions import (
    DISCARD,
    DRAW_DECK,
    DRAW_DISCARD,
    KNOCK,
    PASS,
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
    action_table,
)
from allegra_rules.geometry import CELLS_PER_SEAT
from allegra_rules.state import GameState
from allegra_rules.transitions import legal_actions

FIXED_ACTIONS: tuple[Action, ...] = (DRAW_DECK, DRAW_DISCARD, KNOCK, PASS, DISCARD)
"""The actions with ids 0 to 4, in id order."""

DRAW_DECK_ID = 0
"""The id of ``DrawDeck()``."""
DRAW_DISCARD_ID = 1
"""The id of ``DrawDiscard()``."""
KNOCK_ID = 2
"""The id of ``Knock()``."""
PASS_ID = 3
"""The id of ``Pass()``."""
DISCARD_ID = 4
"""The id of ``Discard()``."""

_FIXED_IDS: dict[type, int] = {
    DrawDeck: DRAW_DECK_ID,
    DrawDiscard: DRAW_DISCARD_ID,
    Knock: KNOCK_ID,
    Pass: PASS_ID,
    Discard: DISCARD_ID,
}
_FIRST_GIVE = len(FIXED_ACTIONS)

GAP_CODE = -128
"""The code of an empty cell (a gap) where cells are stored as int8 card values.

No card value is -128 (card values of array encodings lie in -127..127), so the code
never stands for a card. The batched engine (``allegra_rules.jax``) stores cells so.
"""


class ActionIdLayout(NamedTuple):
    """The first id of each kind of action with an argument, at one seat count.

    ``give + k`` is ``Give(k)``; ``reveal + c``, ``swap + c`` and ``take + c`` are
    ``Reveal``, ``Swap`` and ``Take`` of flat cell ``c``; ``end`` is the number of ids.
    """

    give: int
    reveal: int
    swap: int
    take: int
    end: int


def action_id_layout(num_players: int) -> ActionIdLayout:
    """The first id of ``Give``, ``Reveal``, ``Swap`` and ``Take`` (see the module docs).

    Raises:
        ValueError: ``num_players`` is not an int of at least 2.

    Examples:
        >>> action_id_layout(2)
        ActionIdLayout(give=5, reveal=7, swap=31, take=55, end=79)
    """
    n = _check_players(num_players)
    cells = CELLS_PER_SEAT * n
    reveal = _FIRST_GIVE + n
    return ActionIdLayout(
        give=_FIRST_GIVE,
        reveal=reveal,
        swap=reveal + cells,
        take=reveal + 2 * cells,
        end=reveal + 3 * cells,
    )


def _check_players(num_players: object) -> int:
    if type(num_players) is not int or num_players < 2:
        raise ValueError(f"num_players must be an int >= 2; got {num_players!r}")
    return num_players


def num_distinct_actions(num_players: int) -> int:
    """How many action ids a table of ``num_players`` seats has: ``5 + 37 * n``.

    Raises:
        ValueError: ``num_players`` is not an int of at least 2.

    Examples:
        >>> num_distinct_actions(4)
        153
    """
    n = _check_players(num_players)
    return _FIRST_GIVE + n + 3 * CELLS_PER_SEAT * n


def action_to_id(action: Action, num_players: int) -> int:
    """The id of ``action`` at a table of ``num_players`` seats (see the module docs).

    Raises:
        ValueError: not an action, or it names a seat the table does not have.

    Examples:
        >>> from allegra_rules import Pos, Swap
        >>> action_to_id(Swap(Pos(1, 0, 2)), 2)
        45
    """
    n = _check_players(num_players)
    kind = type(action)
    fixed = _FIXED_IDS.get(kind)
    if fixed is not None:
        return fixed
    if isinstance(action, Give):
        if not 0 <= action.player < n:
            raise ValueError(f"{action!r} names a seat outside 0..{n - 1}")
        return _FIRST_GIVE + action.player
    if isinstance(action, (Reveal, Swap, Take)):
        pos = action.pos
        if pos.player >= n:
            raise ValueError(f"{action!r} names a seat outside 0..{n - 1}")
        group = 0 if kind is Reveal else 1 if kind is Swap else 2
        return _FIRST_GIVE + n + group * CELLS_PER_SEAT * n + pos.index
    raise ValueError(f"not an allegra_rules action: {action!r}")


def action_from_id(action_id: int, num_players: int) -> Action:
    """The action with id ``action_id`` at a table of ``num_players`` seats.

    Returns the engine's interned action object.

    Raises:
        ValueError: ``action_id`` is not an int in ``0 .. num_distinct_actions(n) - 1``.

    Examples:
        >>> action_from_id(5, 3)
        Give(player=0)
    """
    total = num_distinct_actions(num_players)
    if type(action_id) is not int or not 0 <= action_id < total:
        raise ValueError(
            f"action_id must be an int in 0..{total - 1} for {num_players} players; "
            f"got {action_id!r}"
        )
    if action_id < _FIRST_GIVE:
        return FIXED_ACTIONS[action_id]
    table = action_table(num_players)
    rest = action_id - _FIRST_GIVE
    if rest < num_players:
        return table.give[rest]
    rest -= num_players
    cells = CELLS_PER_SEAT * num_players
    group, cell = divmod(rest, cells)
    return (table.reveal, table.swap, table.take)[group][cell]


def legal_action_ids(state: GameState) -> tuple[int, ...]:
    """The ids of ``legal_actions(state)``, in the same order."""
    legal = legal_actions(state)
    n = state.num_players
    return tuple(action_to_id(a, n) for a in legal)


def legal_action_mask(state: GameState) -> tuple[int, ...]:
    """A 0/1 tuple of length ``num_distinct_actions(n)``: 1 where the id is legal.

    All zeros exactly when the state is terminal.

    Examples:
        >>> from allegra_rules import new_game
        >>> mask = legal_action_mask(new_game(2, seed=1))
        >>> len(mask), sum(mask)
        (79, 15)
    """
    ids = legal_action_ids(state)
    mask = [0] * num_distinct_actions(state.num_players)
    for i in ids:
        mask[i] = 1
    return tuple(mask)
