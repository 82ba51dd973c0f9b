"""The versioned schema of the table server's database, for SQLite and PostgreSQL alike.

``MIGRATIONS`` lists numbered steps, oldest first. A store that opens runs, in one
transaction, every step whose number is not yet in its ``schema_migrations`` table, and
records each there (``version``, ``name``, ``applied``: epoch seconds). Opening a database that is
up to date runs nothing. A step has one text per dialect where the two differ (column
types: ``BLOB``/``BYTEA``, ``REAL``/``DOUBLE PRECISION``), the same otherwise. Steps are
only ever added at the end; a step once released is never changed.

A SQLite database made before the migrations (its tables created with ``CREATE TABLE IF
NOT EXISTS``, perhaps without ``creator_sha256``) is brought to step 1's shape and step 1
recorded as applied (see ``allegra_rules.server.store_sqlite``).
"""

from __future__ import annotations

from typing import Literal

import attrs

__all__ = ["MIGRATIONS", "SCHEMA_TABLE", "Dialect", "Migration"]

Dialect = Literal["sqlite", "postgres"]

SCHEMA_TABLE = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied DOUBLE PRECISION NOT NULL
)
"""
"""The table that records the steps applied (both dialects accept this text)."""


@attrs.frozen
class Migration:
    """One numbered step of the schema.

    Attributes:
        version: the step's number, 1, 2, ...: steps run in this order.
        name: what the step does, in a few words.
        sqlite: its SQL statements for SQLite, separated by ``;``.
        postgres: its SQL statements for PostgreSQL (``None``: the same as ``sqlite``).
    """

    version: int
    name: str
    sqlite: str
    postgres: str | None = None

    def statements(self, dialect: Dialect) -> list[str]:
        """The step's statements in ``dialect``, one SQL text each."""
        text = self.sqlite if dialect == "sqlite" or self.postgres is None else self.postgres
        return [s.strip() for s in text.split(";") if s.strip()]


_TABLES = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    created {real} NOT NULL,
    updated {real} NOT NULL,
    num_players INTEGER NOT NULL,
    config TEXT NOT NULL,
    preset TEXT,
    seed {bigint} NOT NULL,
    bots TEXT NOT NULL,
    state TEXT NOT NULL,
    creator_sha256 {blob},
    version INTEGER NOT NULL,
    over INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS tables_open ON tables (over, updated);
CREATE INDEX IF NOT EXISTS tables_created ON tables (created);
CREATE TABLE IF NOT EXISTS seats (
    table_id TEXT NOT NULL REFERENCES tables (id),
    seat INTEGER NOT NULL,
    token_sha256 {blob} NOT NULL,
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

_LEASES = """
CREATE TABLE IF NOT EXISTS bot_leases (
    table_id TEXT PRIMARY KEY REFERENCES tables (id),
    holder TEXT NOT NULL,
    expires {real} NOT NULL
);
"""

_DEALS = """
ALTER TABLE tables ADD COLUMN deal_salt {blob};
ALTER TABLE tables ADD COLUMN deal_commitment TEXT;
ALTER TABLE tables ADD COLUMN seed_chosen INTEGER
"""
# A table stored before step 3 keeps NULL in all three: it has no commitment, and
# whether its seed was chosen is not known.

_SEAT_NAMES = """
ALTER TABLE seats ADD COLUMN name TEXT
"""
# The name a person gave when claiming the seat, or NULL (none, or a seat claimed
# before step 4).

MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "tables, seats and moves",
        sqlite=_TABLES.format(real="REAL", bigint="INTEGER", blob="BLOB"),
        postgres=_TABLES.format(real="DOUBLE PRECISION", bigint="BIGINT", blob="BYTEA"),
    ),
    Migration(
        2,
        "bot leases",
        sqlite=_LEASES.format(real="REAL"),
        postgres=_LEASES.format(real="DOUBLE PRECISION"),
    ),
    Migration(
        3,
        "deal commitments",
        sqlite=_DEALS.format(blob="BLOB"),
        postgres=_DEALS.format(blob="BYTEA"),
    ),
    Migration(4, "seat names", sqlite=_SEAT_NAMES, postgres=_SEAT_NAMES),
)
"""Every step of the schema, oldest first (their numbers are 1, 2, ... with no gap)."""
