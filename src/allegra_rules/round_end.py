"""The parts of a state below it: the number of rounds, the phase and the round end.

[`Phase`][allegra_rules.state.Phase] and [`RoundEnd`][allegra_rules.state.RoundEnd] are
documented, and re-exported, by ``allegra_rules.state``; they sit here so that the checks
(``allegra_rules.state_checks``) and the codec (``allegra_rules.state_codec``) of a state
can sit below the state as well. A ``RoundEnd`` built by hand checks the type, size and
range of its fields (``check_round_end_types``).
"""

from __future__ import annotations

import enum
from typing import Any

import attrs

from allegra_rules.geometry import CELLS_PER_SEAT, MAX_SEATS
from allegra_rules.value_checks import _bool, _int, _ints, _opt_int, _tuple, invalid, key_path

__all__ = ["ROUNDS", "Phase", "RoundEnd"]

ROUNDS = 3
"""Rounds in a game."""


class Phase(enum.Enum):
    """What the game waits for. ``current_player`` says who acts."""

    SETUP = "setup"
    """Each player, in turn from the round's start seat, reveals (or names) two cards."""
    DRAW = "draw"
    """The drawer chooses ``DrawDeck()`` or ``DrawDiscard()``."""
    KNOCK = "knock"
    """The current player, asked in turn, answers ``Knock()`` or ``Pass()``."""
    HOLD_DECK = "hold_deck"
    """The drawer holds a draw-pile card: ``Swap``, ``Discard`` or ``Give``."""
    HOLD_DISCARD = "hold_discard"
    """The drawer holds the discard pile's former top: ``Swap`` (or ``Discard``)."""
    FLIP = "flip"
    """After a ``Discard`` the drawer reveals one face-down card."""
    KNOCKER_SWAP = "knocker_swap"
    """The knocker who was given the card swaps it in; the old card goes to hand."""
    TAKE = "take"
    """The drawer takes a card from the knocker's area."""
    HOLD_TAKEN = "hold_taken"
    """The drawer swaps the taken card into its zone."""
    OVER = "over"
    """The game has ended."""

    def __repr__(self) -> str:
        return f"Phase.{self.name}"

    # Members are singletons compared by identity, so the identity hash agrees with
    # ``==``; it is C code, where Enum's own ``__hash__`` is a Python call.
    __hash__ = object.__hash__


@attrs.frozen(slots=True)
class RoundEnd:
    """How the latest finished round ended: its table and its scoring.

    Attributes:
        round: the round's number (1-based).
        cells: the table at scoring, every card turned face up (``None`` for a gap),
            before any scoring triple left it.
        zone_sums: each seat's zone sum, before doubling (without ``removed``).
        ender: the seat whose cards were all face up first, or ``None`` when the
            round hit ``max_turns_per_round``.
        doubled: whether the ender's sum was doubled.
        scores: each seat's score for the round, after doubling.
        removed: with ``scoring_triples="removed"``, the flat indices (ascending) of
            the cards that the turn-up completed into triples and that left before the
            zones were summed; always empty with ``"kept"``.
    """

    round: int
    cells: tuple[int | None, ...]
    zone_sums: tuple[int, ...]
    ender: int | None
    doubled: bool
    scores: tuple[int, ...]
    removed: tuple[int, ...] = ()

    def __attrs_post_init__(self) -> None:
        check_round_end_types(self)


def trusted_round_end(**fields: Any) -> RoundEnd:
    """A ``RoundEnd`` from fields the engine vouches for, without checking them."""
    obj: Any = object.__new__(RoundEnd)
    for name, value in fields.items():
        object.__setattr__(obj, name, value)
    if "removed" not in fields:
        object.__setattr__(obj, "removed", ())
    end: RoundEnd = obj
    return end


def check_round_end_types(last: Any, path: str = "$", num_players: int | None = None) -> None:
    """Check the type, size and range of every field of a ``RoundEnd``.

    Args:
        last: the round end.
        path: its path, for messages.
        num_players: the seat count it must have; ``None`` takes it from ``zone_sums``.

    Raises:
        InvalidStateError: the first field of a wrong type, size or range.
    """
    sums = _tuple(last.zone_sums, key_path(path, "zone_sums"), most=MAX_SEATS)
    n = len(sums) if num_players is None else num_players
    if n < 2:
        invalid(key_path(path, "zone_sums"), "must hold one sum per seat (at least 2)")
    ncells = n * CELLS_PER_SEAT
    _int(last.round, key_path(path, "round"), 1, ROUNDS)
    cells = _tuple(last.cells, key_path(path, "cells"), length=ncells)
    for i, value in enumerate(cells):
        if value is not None:
            _int(value, key_path(key_path(path, "cells"), i))
    _ints(last.zone_sums, key_path(path, "zone_sums"), length=n)
    _opt_int(last.ender, key_path(path, "ender"), 0, n - 1)
    _bool(last.doubled, key_path(path, "doubled"))
    _ints(last.scores, key_path(path, "scores"), length=n)
    _ints(last.removed, key_path(path, "removed"), 0, ncells - 1, most=ncells)
