"""The tables this process has in memory, loaded from the store when first asked for.

A finished table nobody watches leaves memory (``forget_if_done``), and so does an
expired one (``allegra_rules.server.seats``); both stay in the database, and the next
request for them loads them again.
"""

from __future__ import annotations

from collections.abc import Iterator

from .limits import ViewCache
from .refusals import Refused, Why
from .store import Store
from .table import Table, table_from_row

__all__ = ["Registry"]


class Registry:
    """The tables in memory, by id.

    Args:
        store: where a table not in memory is read from.
        views: the cache of rendered views every table shares.
    """

    def __init__(self, store: Store, views: ViewCache) -> None:
        self.store = store
        self.views = views
        self._tables: dict[str, Table] = {}

    def __iter__(self) -> Iterator[Table]:
        """The tables in memory (a copy: they may change while it is read)."""
        return iter(list(self._tables.values()))

    def __contains__(self, table_id: object) -> bool:
        return table_id in self._tables

    def __len__(self) -> int:
        return len(self._tables)

    def ids(self) -> set[str]:
        """The ids of the tables in memory."""
        return set(self._tables)

    def find(self, table_id: str) -> Table | None:
        """The table ``table_id`` if it is in memory, else ``None``."""
        return self._tables.get(table_id)

    def get(self, table_id: str) -> Table:
        """The table ``table_id``, loaded from the store if need be.

        Raises:
            Refused: ``NOT_FOUND`` (``unknown_table``) when there is no such table.
        """
        table = self._tables.get(table_id)
        if table is not None:
            return table
        row = self.store.load(table_id) if len(table_id) <= 64 else None
        if row is None:
            raise Refused(Why.NOT_FOUND, "unknown_table", f"there is no table {table_id[:64]!r}")
        table = table_from_row(row, self.views)
        self._tables[table_id] = table
        return table

    def add(self, table: Table) -> None:
        """Keep a new table in memory."""
        self._tables[table.id] = table

    def drop(self, table_id: str) -> None:
        """Take a table out of memory (it stays in the store)."""
        self._tables.pop(table_id, None)

    def forget_if_done(self, table: Table) -> None:
        """Drop a finished, unwatched table from memory (it stays in the database)."""
        if table.state.is_terminal and not table.subscribers:
            self._tables.pop(table.id, None)
