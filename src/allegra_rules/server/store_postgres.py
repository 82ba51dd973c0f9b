"""PostgreSQL storage of the table server (``allegra-rules serve --database postgresql://...``).

The same tables as SQLite's, made by the same numbered steps
([`allegra_rules.server.migrations`][allegra_rules.server.migrations]), through psycopg 3
and a connection pool (``psycopg_pool.ConnectionPool``). A move is one transaction: the
table's row is updated only ``WHERE version`` is still the one the move was made on, and
the move is added to ``moves`` under its primary key (table, index), so that of two
moves on one version, from any process, exactly one is stored; the other raises
[`StaleVersion`][allegra_rules.server.store.StaleVersion]. Migrations take a transaction
advisory lock: processes starting together on one database run each step once.

Several processes may serve one database (they hear of each other's changes through
their transport, ``allegra_rules.server.transport_postgres``). A table's bots are
played by the process that holds its row in ``bot_leases`` (``hold_bots``): the holder
renews it, and another process takes it over once it has expired, ``bot_lease`` seconds
after its last renewal (a process that died). Lease times are the database's clock, so
the processes' clocks may differ.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported when a store opens: the module imports without them
    import psycopg
    from psycopg_pool import ConnectionPool

from .migrations import MIGRATIONS, SCHEMA_TABLE
from .store import (
    BOT_LEASE,
    Deal,
    StaleVersion,
    TableRow,
    bots_from_json,
    bots_json,
    deal_columns,
    deal_from_columns,
)

__all__ = ["MIGRATION_LOCK", "PostgresStore"]

log = logging.getLogger("allegra_rules.server")

MIGRATION_LOCK = 0x616C6C6567726100
"""The advisory lock key migrations hold (``pg_advisory_xact_lock``)."""


class PostgresStore:
    """The server's PostgreSQL database: a [`Store`][allegra_rules.server.store.Store].

    Args:
        url: a libpq connection URL, ``postgresql://USER@HOST:PORT/DB`` (a password,
            if any, is best given in ``~/.pgpass`` or ``PGPASSWORD``, not the URL).
        min_size: connections the pool keeps open.
        max_size: the most connections the pool opens.
        timeout: seconds to wait for the database (to connect, or for a free
            connection of the pool).
        bot_lease: seconds a hold on a table's bots lasts unless renewed.

    Raises:
        ConnectionError: the database cannot be reached within ``timeout`` seconds.
    """

    def __init__(
        self,
        url: str,
        *,
        min_size: int = 1,
        max_size: int = 4,
        timeout: float = 10.0,
        bot_lease: float = BOT_LEASE,
    ) -> None:
        import psycopg
        from psycopg_pool import ConnectionPool, PoolTimeout

        self._url = url
        self._timeout = timeout
        self.bot_lease = bot_lease
        self.holder = uuid.uuid4().hex
        """This process's name in ``bot_leases``."""

        self._unique_violation = psycopg.errors.UniqueViolation
        self._pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            url,
            min_size=min_size,
            max_size=max_size,
            timeout=timeout,
            open=False,
            name="allegra-tables",
            kwargs={"autocommit": True},
        )
        try:
            try:
                self._pool.open(wait=True, timeout=timeout)
            except PoolTimeout:
                raise ConnectionError(
                    f"cannot connect to the PostgreSQL database {_where(url)} within {timeout:g} s"
                ) from None
            self.migrate()
        except BaseException:
            self._pool.close()
            raise

    def migrate(self) -> list[int]:
        """Run the schema steps not yet applied; returns their numbers (none: up to date)."""
        ran = []
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            conn.execute(SCHEMA_TABLE)
            applied = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
            for step in MIGRATIONS:
                if step.version in applied:
                    continue
                for statement in step.statements("postgres"):
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO schema_migrations (version, name, applied) VALUES (%s, %s, %s)",
                    (step.version, step.name, time.time()),
                )
                ran.append(step.version)
        return ran

    def migrations(self) -> list[int]:
        """The numbers of the schema steps applied to the database, in order."""
        with self._pool.connection() as conn:
            rows = conn.execute("SELECT version FROM schema_migrations ORDER BY version")
            return [int(row[0]) for row in rows]

    def start(self) -> None:
        """Nothing to start: PostgreSQL needs no upkeep from the server."""

    def close(self) -> None:
        """Close every connection of the pool."""
        self._pool.close()

    def hold_bots(self, table_ids: Collection[str]) -> set[str]:
        """Take or renew this process's lease on the bots of the tables ``table_ids``.

        Returns those whose lease this process holds now, until ``bot_lease`` seconds
        from now (the database's clock); not those whose lease another process holds
        and has not let expire. One statement for all of them.
        """
        if not table_ids:
            return set()
        with self._pool.connection() as conn:
            rows = conn.execute(
                "INSERT INTO bot_leases (table_id, holder, expires)"
                " SELECT id, %s, extract(epoch FROM clock_timestamp()) + %s"
                " FROM unnest(%s::text[]) AS id"
                " ON CONFLICT (table_id) DO UPDATE"
                " SET holder = EXCLUDED.holder, expires = EXCLUDED.expires"
                " WHERE bot_leases.holder = EXCLUDED.holder"
                " OR bot_leases.expires < extract(epoch FROM clock_timestamp())"
                " RETURNING table_id",
                (self.holder, float(self.bot_lease), sorted(set(table_ids))),
            )
            return {str(row[0]) for row in rows}

    def add_table(
        self,
        *,
        table_id: str,
        num_players: int,
        config: str,
        preset: str | None,
        seed: int,
        bots: dict[int, tuple[str, int]],
        state: str,
        creator: bytes | None = None,
        deal: Deal | None = None,
    ) -> None:
        """Store a new table at version 0.

        ``creator``: the digest of the creator's token; ``deal``: its commitment.
        """
        now = time.time()
        with self._pool.connection() as conn:
            conn.execute(
                "INSERT INTO tables (id, created, updated, num_players, config, preset, seed,"
                " bots, state, version, over, creator_sha256, deal_salt, deal_commitment,"
                " seed_chosen)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, 0, 0, %s, %s, %s, %s)",
                (
                    table_id,
                    now,
                    now,
                    num_players,
                    config,
                    preset,
                    seed,
                    bots_json(bots),
                    state,
                    creator,
                    *deal_columns(deal),
                ),
            )

    def set_bots(self, table_id: str, bots: dict[int, tuple[str, int]]) -> None:
        """Store a table's bot seats anew (the creator handed a seat to a bot or freed one)."""
        with self._pool.connection() as conn:
            conn.execute("UPDATE tables SET bots = %s WHERE id = %s", (bots_json(bots), table_id))

    def remove_seat(self, table_id: str, seat: int) -> None:
        """Forget a claimed seat's token (the seat is free again, or a bot's)."""
        with self._pool.connection() as conn:
            conn.execute("DELETE FROM seats WHERE table_id = %s AND seat = %s", (table_id, seat))

    def add_seat(
        self, table_id: str, seat: int, token_sha256: bytes, name: str | None = None
    ) -> bool:
        """Store a claimed seat (with the name given, if any); False when it was claimed."""
        with self._pool.connection() as conn:
            cursor = conn.execute(
                "INSERT INTO seats (table_id, seat, token_sha256, name) VALUES (%s, %s, %s, %s)"
                " ON CONFLICT DO NOTHING",
                (table_id, seat, token_sha256, name),
            )
            return cursor.rowcount == 1

    def add_move(
        self, table_id: str, index: int, seat: int, action: str, state: str, over: bool
    ) -> None:
        """Store move ``index`` and the state after it, in one transaction.

        Raises:
            StaleVersion: the stored table is not at version ``index`` or its move
                ``index`` is already stored (nothing is written).
        """
        # One statement, so one round trip and one transaction (the connection is in
        # autocommit): the table row is updated only at the version the move was made
        # on, and the move is added only when it was.
        try:
            with self._pool.connection() as conn:
                done = conn.execute(
                    "WITH moved AS ("
                    " UPDATE tables SET state = %s, version = %s, over = %s, updated = %s"
                    " WHERE id = %s AND version = %s RETURNING id),"
                    " added AS ("
                    " INSERT INTO moves (table_id, idx, seat, action)"
                    " SELECT id, %s, %s, %s FROM moved RETURNING table_id)"
                    " SELECT 1 FROM added",
                    (
                        state, index + 1, int(over), time.time(), table_id, index,
                        index, seat, action,
                    ),
                ).rowcount  # fmt: skip
        except self._unique_violation:
            raise StaleVersion(f"move {index} of table {table_id} is already stored") from None
        if done != 1:
            raise StaleVersion(f"table {table_id} is not stored at version {index}")

    def open_tables(self, active_since: float, unclaimed_since: float) -> list[tuple[float, bool]]:
        """The tables that count as open: for each, when it last moved and if a seat is claimed.

        See [`Store.open_tables`][allegra_rules.server.store.Store.open_tables].
        """
        with self._pool.connection() as conn:
            rows = conn.execute(
                "SELECT t.updated, EXISTS (SELECT 1 FROM seats s WHERE s.table_id = t.id)"
                " FROM tables t WHERE t.over = 0 AND t.updated >= %s"
                " AND (t.updated >= %s OR EXISTS (SELECT 1 FROM seats s WHERE s.table_id = t.id))",
                (active_since, unclaimed_since),
            ).fetchall()
        return [(float(updated), bool(claimed)) for updated, claimed in rows]

    def version(self, table_id: str) -> int | None:
        """The stored version of ``table_id``, or ``None``: no such table."""
        with self._pool.connection() as conn:
            row = conn.execute("SELECT version FROM tables WHERE id = %s", (table_id,)).fetchone()
        return None if row is None else int(row[0])

    def unfinished(self) -> list[str]:
        """The ids of every table whose game has not ended."""
        with self._pool.connection() as conn:
            return [str(r[0]) for r in conn.execute("SELECT id FROM tables WHERE over = 0")]

    def load(self, table_id: str, actions_from: int = 0) -> TableRow | None:
        """The stored table ``table_id``, or ``None`` when there is none (one snapshot).

        ``actions_from``: the row's ``actions`` start at that move. One statement, so one
        round trip and one snapshot: the table's row, its seats and its moves agree.
        """
        with self._pool.connection() as conn:
            row = conn.execute(
                "SELECT id, num_players, config, preset, seed, bots, state, version, over,"
                " creator_sha256, updated,"
                " ARRAY(SELECT seat FROM seats WHERE table_id = t.id ORDER BY seat),"
                " ARRAY(SELECT token_sha256 FROM seats WHERE table_id = t.id ORDER BY seat),"
                " ARRAY(SELECT action FROM moves WHERE table_id = t.id AND idx >= %s"
                " ORDER BY idx),"
                " deal_salt, deal_commitment, seed_chosen,"
                " ARRAY(SELECT coalesce(name, '') FROM seats WHERE table_id = t.id ORDER BY seat)"
                " FROM tables t WHERE id = %s",
                (actions_from, table_id),
            ).fetchone()
        if row is None:
            return None
        seats = {int(seat): bytes(digest) for seat, digest in zip(row[11], row[12], strict=True)}
        names = {int(seat): str(name) for seat, name in zip(row[11], row[17], strict=True) if name}
        actions = [json.loads(text) for text in row[13]]
        return TableRow(
            id=row[0],
            num_players=row[1],
            config=row[2],
            preset=row[3],
            seed=row[4],
            bots=bots_from_json(row[5]),
            state=row[6],
            version=row[7],
            over=bool(row[8]),
            seats=seats,
            names=names,
            actions=actions,
            creator=None if row[9] is None else bytes(row[9]),
            updated=float(row[10]),
            deal=deal_from_columns(row[14], row[15], row[16]),
        )


def _where(url: str) -> str:
    """The database, user and host a URL names, never its password."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        info = conninfo_to_dict(url)
    except Exception:
        return "(an invalid URL)"
    host = info.get("host") or "localhost"
    port = f":{info['port']}" if info.get("port") else ""
    return f"{info.get('dbname', '')!r} as {info.get('user', '')!r} on {host}{port}"
