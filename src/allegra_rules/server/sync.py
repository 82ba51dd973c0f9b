"""Keeping the tables in memory true to the store, when other processes change it too.

Several server processes may share one database (PostgreSQL). After each change it
makes (a move stored, seats or bots changed) a process publishes a
[`Notice`][allegra_rules.server.transport.Notice] on its
[`Transport`][allegra_rules.server.transport.Transport]; each process hears those of the
others (``listen``, then ``notified``) and reads such a table again (``reload``), exactly
as after a move refused as stale, so that its sockets get the new views. Besides, a
process that answers with a view first asks the store for the table's version
(``catch_up``), and one that does not know a token looks for it in the store's seats
(``refresh``): a change answered by one process holds on every process at once,
without waiting for its notice.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable

from allegra_rules.bot_kinds import BOT_KINDS
from allegra_rules.serialize import action_from_dict

from .registry import Registry
from .store import Store, TableRow
from .table import Table, follow, row_state
from .transport import InProcessTransport, Notice, Transport
from .watchers import announce, close_seat

__all__ = ["Sync"]


class Sync:
    """What this process knows of the tables, kept true to the store.

    Args:
        store: the database.
        transport: how the processes sharing ``store`` hear of each other's changes.
        registry: the tables in memory.
        after_reload: called with each table read again (its bots may be to move).

    Attributes:
        origin: this process's name in the notices it publishes.
        shared: whether other processes may change the store (PostgreSQL; a SQLite
            store has one process, its ``bot_lease`` is 0).
    """

    def __init__(
        self,
        store: Store,
        transport: Transport | None,
        registry: Registry,
        after_reload: Callable[[Table], None] = lambda table: None,
    ) -> None:
        self.store = store
        self.transport: Transport = InProcessTransport() if transport is None else transport
        self.registry = registry
        self.after_reload = after_reload
        self.origin = uuid.uuid4().hex
        self.shared = store.bot_lease > 0

    def publish(self, table: Table, *, seats: bool = False) -> None:
        """Tell the other processes that ``table`` moved (or its seats or bots changed)."""
        self.transport.publish(Notice(table.id, None if seats else table.version, self.origin))

    def listen(self) -> None:
        """Hear of the changes other processes make (call on the running event loop).

        Each notice of another process is handled by ``notified`` on the loop.
        """
        loop = asyncio.get_running_loop()

        def heard(notice: Notice) -> None:
            if notice.origin != self.origin and not loop.is_closed():
                loop.call_soon_threadsafe(self.notified, notice.table_id, notice.version)

        self.transport.listen(heard)

    def notified(self, table_id: str, version: int | None) -> None:
        """A move took ``table_id`` to ``version`` (``None``: its seats or bots changed).

        A table in memory at an older version, or whose seats changed, is read again:
        its sockets get the new views (those of a seat whose token no longer works
        close), and ``after_reload`` hears of it.
        """
        table = self.registry.find(table_id)
        if table is None or (version is not None and version <= table.version):
            return
        tokens = dict(table.tokens)
        self.reload(table)
        for seat, digest in tokens.items():
            if table.tokens.get(seat) != digest:
                close_seat(table, seat)
        self.after_reload(table)

    def catch_up(self, table: Table) -> None:
        """Read ``table`` again when the store has moves it lacks (a shared store only).

        Called before a view is read: a view read on any process after a move was
        answered shows that move, without waiting for the notice.
        """
        if not self.shared:
            return
        version = self.store.version(table.id)
        if version is not None and version > table.version:
            self.notified(table.id, version)

    def refresh(self, table: Table) -> bool:
        """Read ``table`` again when its seats or moves in the store differ (shared only).

        Returns whether it was read again (a token not known here may now be).
        """
        if not self.shared:
            return False
        row = self.store.load(table.id, actions_from=table.version)
        if row is None or (row.seats == table.tokens and row.version == table.version):
            return False
        self.notified(table.id, None)
        return True

    def reload(self, table: Table, row: TableRow | None = None) -> None:
        """Read ``table``'s moves, seats and bots again from the store; tell its watchers.

        ``row``: the table as just read, if it was.
        """
        known = table.version
        following = row is None  # only the moves after ours are read
        if row is None:
            # The moves are never changed once stored: read only those after ours.
            row = self.store.load(table.id, actions_from=known)
        else:
            known = 0
        if row is None:  # pragma: no cover - a table is never deleted
            return
        added = [action_from_dict(a, num_players=row.num_players) for a in row.actions]
        if not (following and row.version == known + len(added) and follow(table, added)):
            table.state = row_state(row, table.config)
        table.actions = table.actions[:known] + added
        table.tokens = row.seats
        if row.names != table.names or row.bots != table.bots:
            table.generation += 1  # the pictures name the seats: the cached views are old
        table.names = row.names
        table.active = max(table.active, row.updated)
        if row.bots != table.bots:
            table.bots = row.bots
            table.players = {p: BOT_KINDS[name](seed) for p, (name, seed) in row.bots.items()}
        table.turn_since = time.monotonic()
        announce(table)
        self.registry.forget_if_done(table)
