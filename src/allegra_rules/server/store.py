"""SQLite storage of the table server: one row per table, one row per move.

The database runs in WAL mode. A move is one transaction: its row in ``moves`` and the
table's new state (``state_to_json``) and version are written together, before any client
hears of the move, so a server killed at any moment comes back at the last move a client
was told about. Seat tokens are stored as their SHA-256 digests, never in plain text.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import attrs

__all__ = ["Store", "TableRow"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    num_players INTEGER NOT NULL,
    config TEXT NOT NULL,
    preset TEXT,
    seed INTEGER NOT NULL,
    bots TEXT NOT NULL,
    state TEXT NOT NULL,
    version INTEGER NOT NULL,
    over INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS tables_open ON tables (over, updated);
CREATE TABLE IF NOT EXISTS seats (
    table_id TEXT NOT NULL REFERENCES tables (id),
    seat INTEGER NOT NULL,
    token_sha256 BLOB NOT NULL,
    PRIMARY KEY (table_id, seat)
);
CREATE TABLE IF NOT EXISTS moves (
    table_id TEXT NOT NULL REFERENCES tables (id),
    idx INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (table_id, idx)
);
"""


@attrs.frozen
class TableRow:
    """One stored table, as read back from the database.

    Attributes:
        id: the table's public id.
        num_players: the seat count.
        config: the rules, as ``RuleConfig.to_json`` wrote them.
        preset: the pinned preset id the rules equal, or ``None``.
        seed: the game's seed (secret until the game is over).
        bots: bot seats: seat -> (bot name, bot seed).
        state: the latest state, as ``state_to_json`` wrote it.
        version: the number of actions applied so far.
        over: whether the game has ended.
        seats: claimed seats: seat -> SHA-256 digest of its token.
        actions: every action so far (``action_to_dict`` data), in order.
    """

    id: str
    num_players: int
    config: str
    preset: str | None
    seed: int
    bots: dict[int, tuple[str, int]]
    state: str
    version: int
    over: bool
    seats: dict[int, bytes]
    actions: list[Any]


class Store:
    """The server's SQLite database (one connection, used from the event loop's thread).

    Args:
        path: the database file; ``":memory:"`` keeps everything in memory.
    """

    def __init__(self, path: str | Path) -> None:
        self._path = str(path)
        self._stop = threading.Event()
        self._checkpointer: threading.Thread | None = None
        self._db = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        # NORMAL: a commit survives the process being killed (it is in the WAL, which the
        # operating system holds); only a power cut may lose the last commits.
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(_SCHEMA)

    def start_checkpoints(self, every: float = 1.0) -> None:
        """Copy the WAL into the database from a background thread, every ``every`` seconds.

        SQLite otherwise checkpoints inside a commit now and then, and that commit waits
        for the disk; here no move does.
        """
        if self._checkpointer is not None or self._path == ":memory:":
            return
        self._db.execute("PRAGMA wal_autocheckpoint=0")

        def run() -> None:
            db = sqlite3.connect(self._path, isolation_level=None)
            try:
                while not self._stop.wait(every):
                    with contextlib.suppress(sqlite3.Error):
                        db.execute("PRAGMA wal_checkpoint(PASSIVE)")
            finally:
                db.close()

        self._checkpointer = threading.Thread(target=run, name="wal-checkpoint", daemon=True)
        self._checkpointer.start()

    def close(self) -> None:
        """Stop the checkpoints, copy the WAL into the database, and close it."""
        self._stop.set()
        if self._checkpointer is not None:
            self._checkpointer.join(timeout=10)
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
    ) -> None:
        """Store a new table at version 0."""
        now = time.time()
        bots_json = json.dumps({str(k): list(v) for k, v in sorted(bots.items())})
        with self._transaction():
            self._db.execute(
                "INSERT INTO tables (id, created, updated, num_players, config, preset, seed,"
                " bots, state, version, over) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0)",
                (table_id, now, now, num_players, config, preset, seed, bots_json, state),
            )

    def add_seat(self, table_id: str, seat: int, token_sha256: bytes) -> bool:
        """Store a claimed seat; False when the seat was already claimed."""
        try:
            with self._transaction():
                self._db.execute(
                    "INSERT INTO seats (table_id, seat, token_sha256) VALUES (?, ?, ?)",
                    (table_id, seat, token_sha256),
                )
        except sqlite3.IntegrityError:
            return False
        return True

    def add_move(
        self, table_id: str, index: int, seat: int, action: str, state: str, over: bool
    ) -> None:
        """Store move ``index`` and the state after it, in one transaction.

        Raises:
            RuntimeError: the stored table is not at version ``index`` (nothing is written).
        """
        with self._transaction():
            done = self._db.execute(
                "UPDATE tables SET state = ?, version = ?, over = ?, updated = ?"
                " WHERE id = ? AND version = ?",
                (state, index + 1, int(over), time.time(), table_id, index),
            ).rowcount
            if done != 1:
                raise RuntimeError(f"table {table_id} is not stored at version {index}")
            self._db.execute(
                "INSERT INTO moves (table_id, idx, seat, action) VALUES (?, ?, ?, ?)",
                (table_id, index, seat, action),
            )

    def open_tables(self, since: float) -> int:
        """How many unfinished tables were created or moved on after ``since`` (epoch s)."""
        row = self._db.execute(
            "SELECT count(*) FROM tables WHERE over = 0 AND updated >= ?", (since,)
        ).fetchone()
        return int(row[0])

    def unfinished(self) -> list[str]:
        """The ids of every table whose game has not ended."""
        return [r[0] for r in self._db.execute("SELECT id FROM tables WHERE over = 0")]

    def load(self, table_id: str) -> TableRow | None:
        """The stored table ``table_id``, or ``None`` when there is none."""
        row = self._db.execute(
            "SELECT id, num_players, config, preset, seed, bots, state, version, over"
            " FROM tables WHERE id = ?",
            (table_id,),
        ).fetchone()
        if row is None:
            return None
        seats = {
            int(seat): bytes(digest)
            for seat, digest in self._db.execute(
                "SELECT seat, token_sha256 FROM seats WHERE table_id = ?", (table_id,)
            )
        }
        actions = [
            json.loads(text)
            for (text,) in self._db.execute(
                "SELECT action FROM moves WHERE table_id = ? ORDER BY idx", (table_id,)
            )
        ]
        bots = {int(k): (str(v[0]), int(v[1])) for k, v in json.loads(row[5]).items()}
        return TableRow(
            id=row[0],
            num_players=row[1],
            config=row[2],
            preset=row[3],
            seed=row[4],
            bots=bots,
            state=row[6],
            version=row[7],
            over=bool(row[8]),
            seats=seats,
            actions=actions,
        )

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, or ``ROLLBACK`` on an exception."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        self._db.execute("COMMIT" if kind is None else "ROLLBACK")
