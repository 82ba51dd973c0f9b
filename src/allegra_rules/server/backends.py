"""Which store and which transport serve a database: the server's one factory.

``--db FILE`` (or ``":memory:"``) is SQLite: a ``SQLiteStore``
(``allegra_rules.server.store_sqlite``) and an
[`InProcessTransport`][allegra_rules.server.transport.InProcessTransport] (one process).
A ``postgresql://`` (or ``postgres://``) URL is PostgreSQL: a ``PostgresStore``
(``allegra_rules.server.store_postgres``) and a ``PostgresNotify`` transport
(``allegra_rules.server.transport_postgres``), so that any number of processes may share
it. The interfaces
([`Store`][allegra_rules.server.store.Store],
[`Transport`][allegra_rules.server.transport.Transport]) know none of their
implementations; only this module does.
"""

from __future__ import annotations

from pathlib import Path

from .store import BOT_LEASE, WAL_LIMIT, Store
from .transport import InProcessTransport, Transport

__all__ = ["is_postgres_url", "open_store", "open_transport"]


def is_postgres_url(database: str | Path) -> bool:
    """Whether ``database`` is a PostgreSQL URL (``postgresql://`` or ``postgres://``).

    Examples:
        >>> is_postgres_url("postgresql://allegra@localhost/allegra"), is_postgres_url("t.db")
        (True, False)
    """
    return isinstance(database, str) and database.startswith(("postgresql://", "postgres://"))


def open_store(
    database: str | Path, *, wal_limit: int = WAL_LIMIT, bot_lease: float = BOT_LEASE
) -> Store:
    """The store of ``database``: a PostgreSQL URL, or a SQLite file (``":memory:"``).

    The schema is created or migrated on opening. ``wal_limit`` is SQLite's (see
    ``SQLiteStore``), ``bot_lease`` PostgreSQL's (see ``PostgresStore``).
    """
    if is_postgres_url(database):
        from .store_postgres import PostgresStore

        return PostgresStore(str(database), bot_lease=bot_lease)
    from .store_sqlite import SQLiteStore

    return SQLiteStore(database, wal_limit=wal_limit)


def open_transport(database: str | Path) -> Transport:
    """The transport of the processes serving ``database`` (see the module's text)."""
    if is_postgres_url(database):
        from .transport_postgres import PostgresNotify

        return PostgresNotify(str(database))
    return InProcessTransport()
