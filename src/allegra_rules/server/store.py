"""The storage of the table server: the interface every store implements.

[`Store`][allegra_rules.server.store.Store] is what the server above it
([`Tables`][allegra_rules.server.tables.Tables]) uses; it never knows which store it has.
Two implement it: ``SQLiteStore`` (``allegra_rules.server.store_sqlite``) and
``PostgresStore`` (``allegra_rules.server.store_postgres``, psycopg 3);
[`open_store`][allegra_rules.server.backends.open_store] (in
``allegra_rules.server.backends``, the one module that knows the implementations) picks
one for the database named. Both create and migrate their schema with the same numbered
steps (``allegra_rules.server.migrations``), recorded in the table ``schema_migrations``.

A move is one transaction in either store: the table's row is updated only where its
``version`` is still the one the move was made on, and the move is added to ``moves``
under the unique key (table, index). A move made on a version another move already
took, whichever process made it, writes nothing and raises
[`StaleVersion`][allegra_rules.server.store.StaleVersion].

Several server processes may share one PostgreSQL database. Its store lends each
table's bots to one process at a time (``hold_bots``: a lease that its holder renews and
that another process takes over once it expires); a SQLite database has one process, and
its ``hold_bots`` always says yes. How the processes hear of each other's changes is not
the store's job but the transport's
([`Transport`][allegra_rules.server.transport.Transport]).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any, Protocol

import attrs

__all__ = [
    "BOT_LEASE",
    "WAL_LIMIT",
    "Deal",
    "StaleVersion",
    "Store",
    "TableRow",
]

WAL_LIMIT = 16 * 1024 * 1024
"""The default size (bytes) past which SQLite's ``-wal`` file is checkpointed and truncated."""


BOT_LEASE = 5.0
"""The default seconds a process's hold on a table's bots lasts unless renewed."""


class StaleVersion(RuntimeError):
    """A move was made on a version of the table that is no longer the stored one."""


@attrs.frozen
class Deal:
    """A table's commitment to its deal, and how its seed came about.

    Attributes:
        salt: the salt hashed with the seed (32 bytes), secret until the game is over.
        commitment: ``deal_commitment(seed, salt)`` (64 hex digits), public from the
            table's creation (see [`commit_deal`][allegra_rules.records.commit_deal]).
        seed_chosen: whether the creator chose the seed (rather than the server).
    """

    salt: bytes
    commitment: str
    seed_chosen: bool


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
        names: the names given when claiming seats: seat -> name (only seats given one).
        actions: every action so far (``action_to_dict`` data), in order; those from
            the index ``load`` was given on.
        creator: the SHA-256 digest of the creator's token (``None`` for a table
            stored by an older server).
        updated: when (epoch s) the table was created or last moved.
        deal: the commitment to the deal (``None`` for a table stored by an older
            server, which made none).
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
    creator: bytes | None = None
    updated: float = 0.0
    deal: Deal | None = None
    names: dict[int, str] = attrs.field(factory=dict)


class Store(Protocol):
    """What the server stores and reads back: tables, their seats and their moves.

    Attributes:
        bot_lease: the seconds a hold on a table's bots lasts unless renewed (see
            ``hold_bots``); 0: the store has one process, which always holds them.
    """

    bot_lease: float

    def start(self) -> None:
        """Start the store's background upkeep, if it has any (SQLite: WAL checkpoints)."""

    def close(self) -> None:
        """Stop the upkeep and close the database."""

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

    def set_bots(self, table_id: str, bots: dict[int, tuple[str, int]]) -> None:
        """Store a table's bot seats anew (the creator handed a seat to a bot or freed one)."""

    def remove_seat(self, table_id: str, seat: int) -> None:
        """Forget a claimed seat's token (the seat is free again, or a bot's)."""

    def add_seat(
        self, table_id: str, seat: int, token_sha256: bytes, name: str | None = None
    ) -> bool:
        """Store a claimed seat (with the name given, if any); False when it was claimed."""

    def add_move(
        self, table_id: str, index: int, seat: int, action: str, state: str, over: bool
    ) -> None:
        """Store move ``index`` and the state after it, in one transaction.

        Raises:
            StaleVersion: the stored table is not at version ``index`` or its move
                ``index`` is already stored (nothing is written).
        """

    def open_tables(self, active_since: float, unclaimed_since: float) -> list[tuple[float, bool]]:
        """The tables that count as open: for each, when it last moved and if a seat is claimed.

        A table counts while it is unfinished and was created or moved on after
        ``active_since`` (epoch s); one with no claimed seat only while that was also after
        ``unclaimed_since``. Each is given as ``(updated, claimed)``: when it was created or
        last moved (epoch s), and whether any of its seats is claimed.
        """

    def version(self, table_id: str) -> int | None:
        """The stored version of ``table_id`` (its number of moves), or ``None``: no such table."""

    def unfinished(self) -> list[str]:
        """The ids of every table whose game has not ended."""

    def load(self, table_id: str, actions_from: int = 0) -> TableRow | None:
        """The stored table ``table_id``, or ``None`` when there is none.

        ``actions_from``: read only the moves from that index on (a process that has
        the first ones already); the row's ``actions`` then start there.
        """

    def hold_bots(self, table_ids: Collection[str]) -> set[str]:
        """Take or renew this process's hold on the bots of the tables ``table_ids``.

        Returns those whose bots this process holds now (for ``bot_lease`` seconds);
        not those whose hold another process has and has not let expire.
        """

    def migrate(self) -> list[int]:
        """Run the schema steps not yet applied; returns their numbers (none: up to date)."""

    def migrations(self) -> list[int]:
        """The numbers of the schema steps applied to the database, in order."""


def bots_json(bots: dict[int, tuple[str, int]]) -> str:
    """A table's bot seats as stored: ``{"<seat>": [name, seed]}``, seats in order."""
    return json.dumps({str(k): list(v) for k, v in sorted(bots.items())})


def deal_columns(deal: Deal | None) -> tuple[bytes | None, str | None, int | None]:
    """A deal as stored: ``deal_salt``, ``deal_commitment``, ``seed_chosen`` (or NULLs)."""
    if deal is None:
        return None, None, None
    return deal.salt, deal.commitment, int(deal.seed_chosen)


def deal_from_columns(
    salt: bytes | None, commitment: str | None, chosen: int | None
) -> Deal | None:
    """The deal ``deal_columns`` stored; ``None`` for a table stored before commitments."""
    if salt is None or commitment is None:
        return None
    return Deal(salt=bytes(salt), commitment=str(commitment), seed_chosen=bool(chosen))


def bots_from_json(text: str) -> dict[int, tuple[str, int]]:
    """The bot seats ``bots_json`` wrote."""
    return {int(k): (str(v[0]), int(v[1])) for k, v in json.loads(text).items()}
