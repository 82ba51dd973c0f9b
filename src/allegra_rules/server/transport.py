"""How the processes serving one database hear of each other's changes: a pub/sub interface.

The server has two interfaces beside each other: a [`Store`][allegra_rules.server.store.Store]
keeps the tables, and a [`Transport`][allegra_rules.server.transport.Transport] carries
[`Notice`][allegra_rules.server.transport.Notice]s of their changes between the server
processes. After a move is stored, or a table's seats or bots change, the process that
made the change publishes a notice; every process listening (itself included) hears it,
and one that has the table in memory at an older version reads it again from the store
and sends its sockets the new views. A notice carries no view and no secret: only the
table's id, its new version (``None``: its seats or bots changed) and the process it
came from.

Two transports:

* [`InProcessTransport`][allegra_rules.server.transport.InProcessTransport]: the notices
  reach the listeners of this process only. One server process (SQLite) needs nothing
  more.
* ``PostgresNotify`` (``allegra_rules.server.transport_postgres``): PostgreSQL's
  ``LISTEN``/``NOTIFY``, for any number of processes sharing one PostgreSQL database.

[`open_transport`][allegra_rules.server.backends.open_transport] picks one for a
database, as [`open_store`][allegra_rules.server.backends.open_store] picks a store.
A notice may be lost (a process that stops between storing a move and publishing it):
a process reads a table's version from the store before it answers with a view (see
``Tables.sync``), so only its open sockets wait for the next notice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

import attrs

__all__ = ["InProcessTransport", "Listener", "Notice", "Transport"]

log = logging.getLogger("allegra_rules.server")


@attrs.frozen
class Notice:
    """A change of one table that a server process made.

    Attributes:
        table_id: the table's public id.
        version: the table's version after a move, or ``None`` when its seats or bots
            changed.
        origin: the process that made the change (``Tables.origin``), so that it can
            skip its own notices.
    """

    table_id: str
    version: int | None
    origin: str


Listener = Callable[[Notice], None]
"""What a transport calls with each notice it hears."""


class Transport(Protocol):
    """Publishes the changes of this process and hears those of every process."""

    def publish(self, notice: Notice) -> None:
        """Tell every listening process (this one included) of a change made here."""

    def listen(self, callback: Listener) -> None:
        """Call ``callback(notice)`` for each notice published from now on.

        The callback may run in a thread of the transport (not the caller's); it may be
        called more than once for one notice. ``close`` stops it.
        """

    def close(self) -> None:
        """Stop listening and release what the transport holds."""


class InProcessTransport:
    """A [`Transport`][allegra_rules.server.transport.Transport] within one process.

    ``publish`` calls each listener at once, in the caller's thread; a listener that
    raises is logged and the others are still called.

    Examples:
        >>> heard = []
        >>> transport = InProcessTransport()
        >>> transport.listen(heard.append)
        >>> transport.publish(Notice("t1", 3, origin="a"))
        >>> heard
        [Notice(table_id='t1', version=3, origin='a')]
    """

    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    def publish(self, notice: Notice) -> None:
        """Call every listener with ``notice``, now."""
        for listener in list(self._listeners):
            try:
                listener(notice)
            except Exception:
                log.exception("a listener of table %s failed", notice.table_id[:64])

    def listen(self, callback: Listener) -> None:
        """Call ``callback`` with every notice published from now on."""
        self._listeners.append(callback)

    def close(self) -> None:
        """Forget the listeners."""
        self._listeners.clear()
