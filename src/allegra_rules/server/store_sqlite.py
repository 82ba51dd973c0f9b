"""SQLite storage of the table server: one row per table, one row per move.

The database runs in WAL mode. A move is one transaction: its row in ``moves`` and the
table's new state (``state_to_json``) and version are written together, before any client
hears of the move, so a server killed at any moment comes back at the last move a client
was told about. The table's row is updated only where its version is still the one the
move was made on, and ``moves`` has the key (table, index): a move on a version another
connection already took raises [`StaleVersion`][allegra_rules.server.store.StaleVersion].
Seat tokens are stored as their SHA-256 digests, never in plain text.
The database file and its ``-wal`` and ``-shm`` files are readable by their owner only
(0600): they hold the seeds and every hand. The ``-wal`` file stays small: a background
thread checkpoints it every second, a commit that leaves it larger than ``wal_limit`` bytes
runs ``PRAGMA wal_checkpoint(TRUNCATE)``, and ``journal_size_limit`` caps what a reset WAL
keeps.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Collection, Iterator
from pathlib import Path

from .migrations import MIGRATIONS, SCHEMA_TABLE
from .store import (
    WAL_LIMIT,
    Deal,
    StaleVersion,
    TableRow,
    bots_from_json,
    bots_json,
    deal_columns,
    deal_from_columns,
)

__all__ = ["SQLiteStore"]


_OPEN_TABLES = """
SELECT t.updated, EXISTS (SELECT 1 FROM seats s WHERE s.table_id = t.id) AS claimed
FROM tables t
WHERE t.over = 0 AND t.updated >= ?
  AND (t.updated >= ? OR EXISTS (SELECT 1 FROM seats s WHERE s.table_id = t.id))
"""


class SQLiteStore:
    """The server's SQLite database: a [`Store`][allegra_rules.server.store.Store].

    One connection; its transactions are taken one at a time, so several threads may
    share it. One process uses the database: it always holds every table's bots
    (``bot_lease`` is 0).

    Args:
        path: the database file; ``":memory:"`` keeps everything in memory.
        wal_limit: the ``-wal`` file's size (bytes) past which the checkpoint thread
            truncates it; also the ``journal_size_limit``.
    """

    bot_lease = 0.0

    def __init__(self, path: str | Path, *, wal_limit: int = WAL_LIMIT) -> None:
        self._path = str(path)
        self.wal_limit = wal_limit
        self._stop = threading.Event()
        self._lock = threading.RLock()
        self._checkpointer: threading.Thread | None = None
        if self._path != ":memory:":
            _owner_only(self._path)
        self._db = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        # NORMAL: a commit survives the process being killed (it is in the WAL, which the
        # operating system holds); only a power cut may lose the last commits.
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.execute(f"PRAGMA journal_size_limit={int(wal_limit)}")
        self._db.execute("PRAGMA busy_timeout=5000")
        self.migrate()
        if self._path != ":memory:":
            _owner_only(self._path)

    def migrate(self) -> list[int]:
        """Run the schema steps not yet applied; returns their numbers (none: up to date)."""
        ran = []
        with self._transaction():
            self._adopt_older_database()
            self._db.execute(SCHEMA_TABLE)
            applied = {row[0] for row in self._db.execute("SELECT version FROM schema_migrations")}
            for step in MIGRATIONS:
                if step.version in applied:
                    continue
                for statement in step.statements("sqlite"):
                    self._db.execute(statement)
                self._db.execute(
                    "INSERT INTO schema_migrations (version, name, applied) VALUES (?, ?, ?)",
                    (step.version, step.name, time.time()),
                )
                ran.append(step.version)
        return ran

    def _adopt_older_database(self) -> None:
        """Record step 1 for a database made before the migrations, adding what it lacks.

        Such a database has ``tables`` but no ``schema_migrations``; the oldest lack the
        ``creator_sha256`` column. Step 1 (``CREATE ... IF NOT EXISTS``) adds any index
        or table missing.
        """
        names = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master")}
        if "tables" not in names or "schema_migrations" in names:
            return
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(tables)")}
        if "creator_sha256" not in columns:
            self._db.execute("ALTER TABLE tables ADD COLUMN creator_sha256 BLOB")
        self._db.execute(SCHEMA_TABLE)
        for statement in MIGRATIONS[0].statements("sqlite"):
            self._db.execute(statement)
        self._db.execute(
            "INSERT INTO schema_migrations (version, name, applied) VALUES (1, ?, ?)",
            (MIGRATIONS[0].name, time.time()),
        )

    def migrations(self) -> list[int]:
        """The numbers of the schema steps applied to the database, in order."""
        with self._lock:
            rows = self._db.execute("SELECT version FROM schema_migrations ORDER BY version")
            return [int(row[0]) for row in rows]

    def hold_bots(self, table_ids: Collection[str]) -> set[str]:
        """All of them: the one process of the database always holds every table's bots."""
        return set(table_ids)

    def start(self) -> None:
        """Start the checkpoint thread (``start_checkpoints``)."""
        self.start_checkpoints()

    def start_checkpoints(self, every: float = 1.0) -> None:
        """Copy the WAL into the database from a background thread, every ``every`` seconds.

        SQLite otherwise checkpoints inside a commit now and then, and that commit waits
        for the disk; here no move does. A ``-wal`` file larger than ``wal_limit`` bytes
        is checkpointed with ``TRUNCATE``, which empties it.
        """
        if self._checkpointer is not None or self._path == ":memory:":
            return
        with self._lock:
            self._db.execute("PRAGMA wal_autocheckpoint=0")

        wal = self._path + "-wal"

        def run() -> None:
            db = sqlite3.connect(self._path, isolation_level=None)
            db.execute(f"PRAGMA journal_size_limit={int(self.wal_limit)}")
            db.execute("PRAGMA busy_timeout=5000")
            try:
                while not self._stop.wait(every):
                    try:
                        size = os.path.getsize(wal)
                    except OSError:
                        size = 0
                    mode = "TRUNCATE" if size > self.wal_limit else "PASSIVE"
                    with contextlib.suppress(sqlite3.Error):
                        db.execute(f"PRAGMA wal_checkpoint({mode})")
            finally:
                db.close()

        self._checkpointer = threading.Thread(target=run, name="wal-checkpoint", daemon=True)
        self._checkpointer.start()

    def close(self) -> None:
        """Stop the checkpoints, copy the WAL into the database, and close it."""
        self._stop.set()
        if self._checkpointer is not None:
            self._checkpointer.join(timeout=10)
        with self._lock:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._db.close()

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
        with self._transaction():
            self._db.execute(
                "INSERT INTO tables (id, created, updated, num_players, config, preset, seed,"
                " bots, state, version, over, creator_sha256, deal_salt, deal_commitment,"
                " seed_chosen)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?, ?, ?)",
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
        with self._transaction():
            self._db.execute("UPDATE tables SET bots = ? WHERE id = ?", (bots_json(bots), table_id))

    def remove_seat(self, table_id: str, seat: int) -> None:
        """Forget a claimed seat's token (the seat is free again, or a bot's)."""
        with self._transaction():
            self._db.execute("DELETE FROM seats WHERE table_id = ? AND seat = ?", (table_id, seat))

    def add_seat(
        self, table_id: str, seat: int, token_sha256: bytes, name: str | None = None
    ) -> bool:
        """Store a claimed seat (with the name given, if any); False when it was claimed."""
        try:
            with self._transaction():
                self._db.execute(
                    "INSERT INTO seats (table_id, seat, token_sha256, name) VALUES (?, ?, ?, ?)",
                    (table_id, seat, token_sha256, name),
                )
        except sqlite3.IntegrityError:
            return False
        return True

    def add_move(
        self, table_id: str, index: int, seat: int, action: str, state: str, over: bool
    ) -> None:
        """Store move ``index`` and the state after it, in one transaction.

        Raises:
            StaleVersion: the stored table is not at version ``index`` or its move
                ``index`` is already stored (nothing is written).
        """
        try:
            with self._transaction():
                done = self._db.execute(
                    "UPDATE tables SET state = ?, version = ?, over = ?, updated = ?"
                    " WHERE id = ? AND version = ?",
                    (state, index + 1, int(over), time.time(), table_id, index),
                ).rowcount
                if done != 1:
                    raise StaleVersion(f"table {table_id} is not stored at version {index}")
                self._db.execute(
                    "INSERT INTO moves (table_id, idx, seat, action) VALUES (?, ?, ?, ?)",
                    (table_id, index, seat, action),
                )
        except sqlite3.IntegrityError:
            raise StaleVersion(f"move {index} of table {table_id} is already stored") from None
        self._wal_written()

    def _wal_written(self) -> None:
        """Checkpoint and truncate the ``-wal`` file once it is over its limit.

        The checkpoint thread copies the WAL into the database now and then without
        blocking anyone; this catches a WAL that grows faster than that (many moves of
        tables with big states), so that it never holds much more than ``wal_limit``.
        """
        if self._path == ":memory:":
            return
        try:
            size = os.path.getsize(self._path + "-wal")
        except OSError:
            return
        if size > self.wal_limit:
            with self._lock, contextlib.suppress(sqlite3.Error):
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def open_tables(self, active_since: float, unclaimed_since: float) -> list[tuple[float, bool]]:
        """The tables that count as open: for each, when it last moved and if a seat is claimed.

        See [`Store.open_tables`][allegra_rules.server.store.Store.open_tables].
        """
        with self._lock:
            rows = self._db.execute(_OPEN_TABLES, (active_since, unclaimed_since)).fetchall()
        return [(float(updated), bool(claimed)) for updated, claimed in rows]

    def version(self, table_id: str) -> int | None:
        """The stored version of ``table_id``, or ``None``: no such table."""
        with self._lock:
            row = self._db.execute(
                "SELECT version FROM tables WHERE id = ?", (table_id,)
            ).fetchone()
        return None if row is None else int(row[0])

    def unfinished(self) -> list[str]:
        """The ids of every table whose game has not ended."""
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT id FROM tables WHERE over = 0")]

    def load(self, table_id: str, actions_from: int = 0) -> TableRow | None:
        """The stored table ``table_id``, or ``None`` when there is none (one snapshot).

        ``actions_from``: the row's ``actions`` start at that move.
        """
        with self._transaction(write=False):
            row = self._db.execute(
                "SELECT id, num_players, config, preset, seed, bots, state, version, over,"
                " creator_sha256, updated, deal_salt, deal_commitment, seed_chosen"
                " FROM tables WHERE id = ?",
                (table_id,),
            ).fetchone()
            if row is None:
                return None
            claimed = self._db.execute(
                "SELECT seat, token_sha256, name FROM seats WHERE table_id = ?", (table_id,)
            ).fetchall()
            seats = {int(seat): bytes(digest) for seat, digest, _ in claimed}
            names = {int(seat): str(name) for seat, _, name in claimed if name}
            actions = [
                json.loads(text)
                for (text,) in self._db.execute(
                    "SELECT action FROM moves WHERE table_id = ? AND idx >= ? ORDER BY idx",
                    (table_id, actions_from),
                )
            ]
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
            deal=deal_from_columns(row[11], row[12], row[13]),
        )

    @contextlib.contextmanager
    def _transaction(self, *, write: bool = True) -> Iterator[None]:
        """``BEGIN IMMEDIATE`` (``write``) or ``BEGIN`` ... ``COMMIT``, or ``ROLLBACK``."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")


def _owner_only(path: str) -> None:
    """Create the database file readable and writable by its owner only (0600).

    SQLite gives the ``-wal`` and ``-shm`` files the database file's permissions; those
    that already exist (from an older server) are made 0600 as well.
    """
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.chmod(path + suffix, 0o600)
