"""The last moves of a table, worded for each reader in the page's language.

A table keeps its last [`KEEP`][allegra_rules.server.log.KEEP] moves, each with the states
before and after it. A view carries them as ``log``: one entry per move, worded by
[`narrate`][allegra_rules.wording.narrate] for the reader's seat (``None``: a spectator),
followed by what the engine did by itself ([`outcome`][allegra_rules.wording.outcome]) and
what became of a card others knocked for ([`fate`][allegra_rules.wording.fate]).

The wording names only what the reader may know: a card that moved face down is named
only for the seat that saw it, so a seat's text is the same for any two games it cannot
tell apart.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from allegra_rules.actions import Action
from allegra_rules.records import GameRecord
from allegra_rules.state import GameState
from allegra_rules.transitions import apply
from allegra_rules.wording import fate, narrate, outcome

__all__ = ["KEEP", "Move", "recent", "remember", "replay", "worded"]

KEEP = 8
"""How many moves a table keeps for its log."""


@attrs.frozen
class Move:
    """One applied move: the seat that made it, the states around it and the action.

    Attributes:
        version: the table's version after the move (1 for the first move).
        seat: the seat that moved.
        before: the state the move was made in.
        action: the action.
        after: the state after it.
    """

    version: int
    seat: int
    before: GameState
    action: Action
    after: GameState


def remember(
    moves: list[Move], version: int, seat: int, before: GameState, action: Action, after: GameState
) -> None:
    """Add the move that made the table's version ``version`` to ``moves``; keep ``KEEP``."""
    moves.append(Move(version=version, seat=seat, before=before, action=action, after=after))
    del moves[:-KEEP]


def replay(record: GameRecord, version: int) -> list[Move]:
    """The last ``KEEP`` moves of a game, replayed from its record (``version`` actions)."""
    state = record.initial_state()
    moves: list[Move] = []
    first = version - KEEP
    for k, action in enumerate(record.actions[:version]):
        after = apply(state, action)
        if k >= first:
            seat = state.current_player
            assert seat is not None
            moves.append(Move(version=k + 1, seat=seat, before=state, action=action, after=after))
        state = after
    return moves


def recent(moves: list[Move], version: int, record: Callable[[], GameRecord]) -> list[Move]:
    """``moves`` as the last ``KEEP`` moves of a table at ``version``.

    A table loaded from the database starts with none: they are replayed once from its
    ``record`` and stored in ``moves``.
    """
    if len(moves) < min(KEEP, version) or (moves and moves[-1].version != version):
        moves[:] = replay(record(), version)
    return moves


def worded(moves: list[Move], viewer: int | None, lang: str) -> list[dict[str, Any]]:
    """The log entries of ``moves`` for seat ``viewer`` (``None``: a spectator), oldest first.

    Each entry is ``{"version": k, "seat": s, "round": r, "text": ...}``: the table's
    version after the move, the seat that moved, the round it was made in and what
    happened, in ``lang``.
    """
    out = []
    for move in moves:
        sentences = [narrate(move.before, move.action, viewer=viewer, lang=lang)]
        sentences += fate(move.before, move.action, lang=lang)
        sentences += outcome(move.before, move.action, move.after, lang=lang)
        out.append(
            {
                "version": move.version,
                "seat": move.seat,
                "round": move.before.round,
                "text": " ".join(sentences),
            }
        )
    return out
