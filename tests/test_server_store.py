"""The server's stores, SQLite and PostgreSQL: the same checks on both.

Conflicting moves from many threads, each with its own connection as separate server
processes would have: of the moves made on one version exactly one is stored, none is
lost or stored twice. The schema's migrations: a SQLite database of an older server
opens and migrates, and running the migrations again changes nothing.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# The store modules need no extra, but their package imports the server's application.
pytest.importorskip("starlette", reason="the server extra is not installed")
pytest.importorskip("uvicorn", reason="the server extra is not installed")

from allegra_rules.server.backends import is_postgres_url, open_store
from allegra_rules.server.migrations import MIGRATIONS
from allegra_rules.server.store import Deal, StaleVersion, Store
from allegra_rules.server.store_sqlite import SQLiteStore
from postgres import Cluster

THREADS = 8
ROUNDS = 50


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """A new database: a SQLite file, or a database of the session's PostgreSQL server."""
    if request.param == "sqlite":
        return tmp_path / "tables.db"
    cluster: Cluster = request.getfixturevalue("postgres")
    return cluster.new_database()


@pytest.fixture
def store(database: Path | str) -> Iterator[Store]:
    opened = open_store(database)
    try:
        yield opened
    finally:
        opened.close()


def _add_table(store: Store, table_id: str = "t1") -> None:
    store.add_table(
        table_id=table_id,
        num_players=2,
        config="{}",
        preset=None,
        seed=2**63 - 1,
        bots={1: ("greedy", 7)},
        state="state 0",
        creator=b"\x01" * 32,
        deal=DEAL,
    )


DEAL = Deal(salt=bytes(range(32)), commitment="ab" * 32, seed_chosen=True)


def test_a_table_reads_back_as_stored(store: Store) -> None:
    _add_table(store)
    assert store.add_seat("t1", 0, b"\x02" * 32)
    assert not store.add_seat("t1", 0, b"\x03" * 32)  # taken
    store.add_move("t1", 0, 0, json.dumps({"type": "reveal"}), "state 1", False)
    store.set_bots("t1", {0: ("random", 3), 1: ("greedy", 7)})
    store.remove_seat("t1", 0)
    row = store.load("t1")
    assert row is not None
    assert (row.version, row.state, row.over, row.seed) == (1, "state 1", False, 2**63 - 1)
    assert row.bots == {0: ("random", 3), 1: ("greedy", 7)}
    assert row.seats == {}
    assert row.actions == [{"type": "reveal"}]
    assert row.creator == b"\x01" * 32
    assert row.deal == DEAL
    assert store.load("nope") is None
    assert store.unfinished() == ["t1"]
    assert store.version("t1") == 1 and store.version("nope") is None
    # Open: unfinished and moved since the first time; unclaimed, since the second.
    [(updated, claimed)] = store.open_tables(0.0, 0.0)
    assert claimed is False and abs(updated - time.time()) < 60
    assert store.open_tables(0.0, updated + 1) == []
    assert store.open_tables(updated + 1, 0.0) == []
    assert store.add_seat("t1", 1, b"\x04" * 32)
    assert store.open_tables(0.0, updated + 1) == [(updated, True)]
    assert store.load("t1").updated == updated  # type: ignore[union-attr]
    store.add_move("t1", 1, 1, "{}", "state 2", True)
    # A process that has the first moves reads only the later ones.
    later = store.load("t1", actions_from=1)
    assert later is not None and (later.version, later.actions) == (2, [{}])
    assert store.load("t1", actions_from=2).actions == []  # type: ignore[union-attr]
    assert store.unfinished() == []
    assert store.open_tables(0.0, 0.0) == []  # finished tables never count


def test_a_stale_move_writes_nothing(store: Store) -> None:
    _add_table(store)
    store.add_move("t1", 0, 0, '"first"', "state 1", False)
    with pytest.raises(StaleVersion):
        store.add_move("t1", 0, 1, '"second"', "state 1b", False)
    with pytest.raises(StaleVersion):
        store.add_move("t1", 5, 1, '"ahead"', "state 6", False)
    row = store.load("t1")
    assert row is not None
    assert (row.version, row.state, row.actions) == (1, "state 1", ["first"])


def test_conflicting_moves_from_many_threads(database: Path | str) -> None:
    setup = open_store(database)
    _add_table(setup)
    setup.close()
    start = threading.Barrier(THREADS)
    accepted: list[tuple[int, int]] = []  # (version, thread)
    refused: list[tuple[int, int]] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def play(thread: int) -> None:
        # Each thread has its own store, as a process of its own would.
        store = open_store(database)
        try:
            for _ in range(ROUNDS):
                start.wait(timeout=60)
                row = store.load("t1")
                assert row is not None
                version = row.version
                start.wait(timeout=60)  # every thread has read the same version
                action = json.dumps({"thread": thread, "version": version})
                try:
                    store.add_move("t1", version, 0, action, f"state {version + 1}", False)
                except StaleVersion:
                    with lock:
                        refused.append((version, thread))
                else:
                    with lock:
                        accepted.append((version, thread))
                start.wait(timeout=60)  # the round is over before anyone reads again
        except BaseException as exc:
            errors.append(exc)
            start.abort()
        finally:
            store.close()

    workers = [threading.Thread(target=play, args=(t,)) for t in range(THREADS)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=300)
    assert not errors, errors
    assert sorted(v for v, _ in accepted) == list(range(ROUNDS))  # one per version
    assert len(refused) == ROUNDS * (THREADS - 1)
    check = open_store(database)
    try:
        row = check.load("t1")
    finally:
        check.close()
    assert row is not None
    assert row.version == ROUNDS
    assert row.state == f"state {ROUNDS}"
    # Each accepted move is in the record once, at its version; no refused one is.
    assert row.actions == [
        {"thread": thread, "version": version} for version, thread in sorted(accepted)
    ]


def test_migrations_run_once(database: Path | str) -> None:
    first = open_store(database)
    try:
        assert first.migrations() == [m.version for m in MIGRATIONS]
        _add_table(first)
    finally:
        first.close()
    again = open_store(database)
    try:
        assert again.migrations() == [m.version for m in MIGRATIONS]
        assert again.migrate() == []
        assert again.load("t1") is not None
    finally:
        again.close()
    assert [m.version for m in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1))
    assert is_postgres_url(database) == isinstance(database, str)


# The schema of the servers before the migrations, without creator_sha256 (the oldest)
# or with it (CREATE TABLE IF NOT EXISTS, then ALTER TABLE ... ADD COLUMN).
_OLD_SCHEMA = """
CREATE TABLE tables (
    id TEXT PRIMARY KEY, created REAL NOT NULL, updated REAL NOT NULL,
    num_players INTEGER NOT NULL, config TEXT NOT NULL, preset TEXT,
    seed INTEGER NOT NULL, bots TEXT NOT NULL, state TEXT NOT NULL,
    version INTEGER NOT NULL, over INTEGER NOT NULL
);
CREATE INDEX tables_open ON tables (over, updated);
CREATE TABLE seats (
    table_id TEXT NOT NULL REFERENCES tables (id), seat INTEGER NOT NULL,
    token_sha256 BLOB NOT NULL, PRIMARY KEY (table_id, seat)
);
CREATE TABLE moves (
    table_id TEXT NOT NULL REFERENCES tables (id), idx INTEGER NOT NULL,
    seat INTEGER NOT NULL, action TEXT NOT NULL, PRIMARY KEY (table_id, idx)
);
INSERT INTO tables VALUES ('old', 1.0, 1.0, 2, '{}', NULL, 5, '{}', 'state 1', 1, 0);
INSERT INTO seats VALUES ('old', 0, x'0202');
INSERT INTO moves VALUES ('old', 0, 0, '{"type": "reveal"}');
"""


@pytest.mark.parametrize("creator_column", [False, True])
def test_an_older_sqlite_database_migrates(tmp_path: Path, creator_column: bool) -> None:
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as old:
        old.executescript(_OLD_SCHEMA)
        if creator_column:
            old.execute("ALTER TABLE tables ADD COLUMN creator_sha256 BLOB")
    old.close()
    store = SQLiteStore(db)
    try:
        assert store.migrations() == [m.version for m in MIGRATIONS]
        row = store.load("old")
        assert row is not None
        assert (row.version, row.seats, row.creator) == (1, {0: b"\x02\x02"}, None)
        assert row.deal is None  # an older table made no commitment
        assert row.actions == [{"type": "reveal"}]
        with pytest.raises(StaleVersion):
            store.add_move("old", 0, 1, "{}", "state 1b", False)
        store.add_move("old", 1, 1, '"next"', "state 2", False)
        _add_table(store, "new")
        new = store.load("new")
        assert new is not None and new.creator == b"\x01" * 32
        assert store.migrate() == []
    finally:
        store.close()
    with sqlite3.connect(db) as check:
        indexes = {r[0] for r in check.execute("SELECT name FROM sqlite_master")}
    check.close()
    assert {"tables_open", "tables_created", "schema_migrations"} <= indexes
    reopened = SQLiteStore(db)
    try:
        assert reopened.migrations() == [m.version for m in MIGRATIONS]
        row = reopened.load("old")
        assert row is not None and row.version == 2
    finally:
        reopened.close()


def test_a_table_from_before_commitments_keeps_working(tmp_path: Path) -> None:
    # A table stored before step 3 has no salt, commitment or seed_chosen (NULL): its
    # info says so (null), its game goes on, and its record is written as before.
    from allegra_rules import GameRecord
    from allegra_rules.server.tables import Tables

    db = tmp_path / "tables.db"
    tables = Tables(open_store(db))
    try:
        table, _ = tables.create_with_token({"players": 2, "bots": {"1": "greedy"}})
        token = tables.claim(table, "0")[1]
        assert table.info()["deal_commitment"] == table.deal.commitment  # type: ignore[union-attr]
    finally:
        tables.close()
        tables.store.close()
    with sqlite3.connect(db) as old:
        old.execute(
            "UPDATE tables SET deal_salt = NULL, deal_commitment = NULL, seed_chosen = NULL"
        )
    old.close()
    tables = Tables(open_store(db))
    try:
        table = tables.get(table.id)
        info = table.info()
        assert (info["deal_commitment"], info["seed_chosen"]) == (None, None)
        assert "deal_salt" not in info and "seed" not in info
        while not table.state.is_terminal:
            seat = tables.seat_of(table, token)
            tables.move(
                table,
                seat,
                {"action": table.body(seat)["legal_actions"][0], "version": table.version},
            )
        info = table.info()
        assert (info["seed"], info["deal_salt"]) == (table.seed, None)
        text = tables.record_json(table)
        assert "deal_" not in text
        assert GameRecord.from_json(text).to_json() == text
    finally:
        tables.close()
        tables.store.close()


def test_an_unreachable_postgresql_database_is_a_clear_error(tmp_path: Path) -> None:
    pytest.importorskip("psycopg_pool", reason="psycopg is not installed")
    from allegra_rules.server.store_postgres import PostgresStore

    # A unix socket folder with no server in it: nothing is sent anywhere.
    url = f"postgresql://someone:secret@/tables?host={tmp_path}"
    with pytest.raises(ConnectionError) as caught:
        PostgresStore(url, timeout=0.5)
    message = str(caught.value)
    assert "cannot connect to the PostgreSQL database 'tables' as 'someone'" in message
    assert "secret" not in message


def _two_processes(database: Path | str) -> tuple[Any, Any, Any, Any]:
    """Two ``Tables`` on one database (two server processes), a table, its seats' tokens."""
    from allegra_rules.server.tables import Tables

    first, second = Tables(open_store(database)), Tables(open_store(database))
    first.store.migrate()
    table, _ = first.create_with_token({"players": 2})
    tokens = [first.claim(table, str(seat))[1] for seat in (0, 1)]
    return first, second, table.id, tokens


def _finished_game() -> Any:
    from allegra_rules import apply, legal_actions, new_game

    state = new_game(2, seed=1)
    while not state.is_terminal:
        state = apply(state, legal_actions(state)[0])
    return state


def _move(tables: Any, table_id: str, tokens: list[str], count: int) -> None:
    """``count`` moves of the persons at ``table_id``, through ``tables``."""
    table = tables.get(table_id)
    for _ in range(count):
        seat = table.state.current_player
        tables.move(
            table, seat, {"action": table.body(seat)["legal_actions"][0], "version": table.version}
        )


def test_a_process_follows_the_moves_another_stored(
    database: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Process B hears of moves process A stored: it applies them to the table it has
    # (no stored state decoded), and its log keeps the words it had already given.
    from allegra_rules.server import sync as sync_module

    first, second, table_id, tokens = _two_processes(database)
    try:
        _move(first, table_id, tokens, 3)
        seen = second.get(table_id)  # loaded: the stored state, its log replayed
        assert seen.version == 3 and seen.body(0)["log"]
        worded = {move.version: move for move in seen.moves}
        _move(first, table_id, tokens, 4)

        def no_decoding(*args: object) -> None:
            raise AssertionError("the stored state was decoded")

        monkeypatch.setattr(sync_module, "row_state", no_decoding)
        second.notified(table_id, 7)
        mover = first.get(table_id)
        assert seen.version == 7 and seen.state == mover.state
        assert seen.actions == mover.actions
        assert [m.version for m in seen.moves] == [m.version for m in mover.moves]
        assert all(worded[m.version] is m for m in seen.moves if m.version in worded)
        assert seen.body(1) == mover.body(1)
        monkeypatch.undo()

        # A table in memory that is not the stored one (never, but) takes the stored state.
        _move(first, table_id, tokens, 1)
        seen.state = _finished_game()  # the next move cannot apply to it
        second.notified(table_id, 8)
        assert seen.version == 8 and seen.state == first.get(table_id).state
        assert seen.body(0) == first.get(table_id).body(0)
    finally:
        first.close()
        second.close()


def test_a_seats_name_reads_back_and_goes_with_its_seat(store: Store) -> None:
    _add_table(store)
    assert store.add_seat("t1", 0, b"\x02" * 32, "Zoë 🎲 <b>")
    assert store.add_seat("t1", 1, b"\x03" * 32)  # no name
    row = store.load("t1")
    assert row is not None
    assert row.names == {0: "Zoë 🎲 <b>"} and set(row.seats) == {0, 1}
    store.remove_seat("t1", 0)  # freed: its name goes with it
    assert store.load("t1").names == {}  # type: ignore[union-attr]
    assert store.add_seat("t1", 0, b"\x04" * 32, "Ben")
    assert store.load("t1").names == {0: "Ben"}  # type: ignore[union-attr]
