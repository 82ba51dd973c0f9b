"""A seat's move: checked, applied, stored, and only then announced.

A move is checked against the table as it is (its version, whose move it is) and
applied with ``apply(state, action, player=seat)``; then it is stored (the store
refuses a move made on a version another move already took, from any process), and only
then does the table change in memory, the other processes hear of it (``Sync.publish``)
and every socket watching the table get its new view. Bots' moves take the same way
(``commit``).
"""

from __future__ import annotations

import json
import time

from allegra_rules.actions import Action
from allegra_rules.serialize import action_from_dict, action_to_dict, state_to_json
from allegra_rules.state import GameState
from allegra_rules.table_view import remember
from allegra_rules.transitions import IllegalActionError, apply

from .refusals import Refused, Why
from .registry import Registry
from .store import StaleVersion, Store
from .sync import Sync
from .table import Table
from .watchers import announce

__all__ = ["Moves"]


def _stale(table: Table, version: int) -> Refused:
    return Refused(
        Why.CONFLICT,
        "stale_version",
        f"the table is at version {table.version}, not {version}: read the view again",
    )


class Moves:
    """The moves of every table.

    Args:
        store: the database.
        sync: tells the other processes of each move; catches a table up when a seat
            names a version this process has not heard of yet.
        registry: the tables in memory (a finished table nobody watches leaves it).
    """

    def __init__(self, store: Store, sync: Sync, registry: Registry) -> None:
        self.store = store
        self.sync = sync
        self.registry = registry

    def move(self, table: Table, seat: int, data: object) -> None:
        """Check and apply a ``POST .../moves`` body (parsed JSON) of ``seat``.

        Raises:
            Refused: ``MALFORMED`` for a body that is not ``{"action": ..., "version":
                k}``; ``CONFLICT`` when the game is over, ``version`` is stale or it is
                not the seat's move; ``INVALID`` for an action that is malformed or not
                legal now.
        """
        if not isinstance(data, dict) or set(data) != {"action", "version"}:
            raise Refused(
                Why.MALFORMED,
                "bad_body",
                'the body must be {"action": <legal action>, "version": <int>}',
            )
        version = data["version"]
        if type(version) is not int:
            raise Refused(
                Why.MALFORMED, "bad_body", f"version must be an integer; got {version!r:.40}"
            )
        if version != table.version:
            self.sync.catch_up(table)  # another process may have stored what the seat saw
        state = table.state
        if state.is_terminal:
            raise Refused(
                Why.CONFLICT, "game_over", "the game is over; GET .../record has its record"
            )
        if version != table.version:
            raise _stale(table, version)
        if state.current_player != seat:
            raise Refused(
                Why.CONFLICT,
                "not_your_turn",
                f"it is seat {state.current_player}'s move, not seat {seat}'s",
            )
        try:
            action = action_from_dict(data["action"], "$.action", table.num_players)
        except ValueError as exc:
            raise Refused(Why.INVALID, "invalid_action", str(exc)) from None
        try:
            after = apply(state, action, player=seat)
        except IllegalActionError as exc:
            raise Refused(Why.INVALID, "illegal_action", exc.reason) from None
        self.commit(table, seat, action, after)

    def commit(self, table: Table, seat: int, action: Action, after: GameState) -> None:
        """Store the move, then update the table and tell every watcher.

        Raises:
            Refused: ``CONFLICT`` (``stale_version``) when the database holds another
                move at this version (the table is read again from it, and nothing is
                written).
        """
        try:
            self.store.add_move(
                table.id,
                table.version,
                seat,
                json.dumps(action_to_dict(action)),
                state_to_json(after),
                after.is_terminal,
            )
        except StaleVersion:
            version = table.version
            self.sync.reload(table)
            raise _stale(table, version) from None
        remember(table.moves, table.version + 1, seat, table.state, action, after)
        table.state = after
        table.actions.append(action)
        self.sync.publish(table)
        table.turn_since = time.monotonic()
        table.active = time.time()
        announce(table)
        self.registry.forget_if_done(table)
