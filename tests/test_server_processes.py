"""Two ``allegra-rules serve`` processes on one PostgreSQL database, and ``--workers``.

A move made through one process reaches the sockets opened on the other (``NOTIFY``),
and so do seats claimed and freed; many copies of one move sent at once to both (10,000
in all, over ten tables) are stored exactly once per version; and when the process that
plays a table's bots is killed, the other plays them on once its hold (``--bot-lease``,
short here) has expired. A process killed in the middle of a game loses no move it
acknowledged, and its clients carry on through the other. ``serve --workers 2`` shares
one port between two processes and replaces a killed one. A SQLite store has one
process: it hears nothing and holds every table's bots.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import http.client
import json
import os
import random
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the server extra is not installed")
pytest.importorskip("uvicorn", reason="the server extra is not installed")
httpx = pytest.importorskip("httpx")
ws_client = pytest.importorskip("websockets.sync.client")
from websockets.exceptions import ConnectionClosed

from postgres import Cluster
from server_process import ServerProcess

LEASE = 1.0
"""The bot lease of the test servers, in seconds."""


@pytest.fixture(scope="module")
def pair(postgres: Cluster, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """A fresh database and a folder for the servers' logs."""
    return postgres.new_database(), tmp_path_factory.mktemp("processes")


def start(url: str, folder: Path, name: str) -> ServerProcess:
    return ServerProcess(url, "--bot-lease", str(LEASE), log=folder / f"{name}.log")


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def claim(client: httpx.Client, table: str, seat: int) -> str:
    answer = client.post(f"/api/tables/{table}/seats/{seat}")
    assert answer.status_code in (200, 201), answer.text
    token: str = answer.json()["token"]
    return token


def view(client: httpx.Client, table: str, token: str) -> dict[str, Any]:
    answer = client.get(f"/api/tables/{table}/view", headers=bearer(token))
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def wait_for(check: Callable[[], bool], seconds: float) -> float:
    """Poll ``check`` until it holds (at most ``seconds``); returns the seconds it took."""
    began = time.monotonic()
    while not check():
        if time.monotonic() - began > seconds:
            raise AssertionError(f"not within {seconds} s")
        time.sleep(0.02)
    return time.monotonic() - began


def drain(sock: Any) -> None:
    """Read a socket until it closes (each message within 2 s)."""
    while True:
        sock.recv(timeout=2)


def next_version(sock: Any, version: int) -> int:
    """The version of the first view newer than ``version`` that ``sock`` reads (within 5 s).

    A process may send a view again at the same version (when the table's seats changed
    on another process, say).
    """
    while (seen := int(json.loads(sock.recv(timeout=5))["version"])) <= version:
        pass
    return seen


def at_version(client: httpx.Client, table: str, token: str, version: int) -> Callable[[], bool]:
    """Whether the table's view read through ``client`` is at ``version``."""
    return lambda: bool(view(client, table, token)["version"] == version)


def lease_holder(url: str, table: str) -> str | None:
    """The process (its ``holder`` name) that holds the bots of ``table``, if one does."""
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT holder FROM bot_leases WHERE table_id = %s", (table,)).fetchone()
    return None if row is None else str(row[0])


def stored_moves(url: str, table: str) -> list[tuple[int, int]]:
    """(index, copies) of every move of ``table`` in the database, in order."""
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT idx, count(*) FROM moves WHERE table_id = %s GROUP BY idx ORDER BY idx",
            (table,),
        ).fetchall()
    return [(int(i), int(n)) for i, n in rows]


@pytest.mark.parametrize("seconds", ["0", "-1", "nan", "3601"])
def test_serve_refuses_a_bad_bot_lease(seconds: str, capsys: pytest.CaptureFixture[str]) -> None:
    from allegra_rules.cli import main

    assert main(["serve", "--bot-lease", seconds]) == 2
    assert "--bot-lease must be more than 0" in capsys.readouterr().err


def test_a_sqlite_store_has_one_process(tmp_path: Path) -> None:
    from allegra_rules.server.backends import open_store, open_transport
    from allegra_rules.server.transport import InProcessTransport, Notice

    store = open_store(tmp_path / "one.db")
    try:
        assert store.bot_lease == 0
        assert store.hold_bots(["t1", "t2"]) == {"t1", "t2"}
        transport = open_transport(tmp_path / "one.db")
        assert isinstance(transport, InProcessTransport)
        heard: list[Notice] = []
        transport.listen(heard.append)
        transport.publish(Notice("t1", 1, "me"))
        assert heard == [Notice("t1", 1, "me")]
        transport.close()
        transport.publish(Notice("t1", 2, "me"))
        assert len(heard) == 1
    finally:
        store.close()


def test_postgres_notify_carries_notices_between_processes(pair: tuple[str, Path]) -> None:
    from allegra_rules.server.backends import open_transport
    from allegra_rules.server.transport import Notice
    from allegra_rules.server.transport_postgres import PostgresNotify

    url, _ = pair
    one, two = open_transport(url), open_transport(url)
    assert isinstance(one, PostgresNotify) and isinstance(two, PostgresNotify)
    heard: list[Notice] = []
    try:
        two.listen(heard.append)
        sent = [Notice("t1", 3, "one"), Notice("t1", None, "one"), Notice("t2", 0, "one")]
        # The listener connects in its thread: publish until it hears the first.
        wait_for(lambda: one.publish(sent[0]) or bool(heard), 10)
        for notice in sent[1:]:
            one.publish(notice)
        wait_for(lambda: heard[-1] == sent[-1], 5)
        assert set(heard) == set(sent)
    finally:
        one.close()
        two.close()


def test_a_move_on_one_process_reaches_the_sockets_of_the_other(
    pair: tuple[str, Path],
) -> None:
    url, folder = pair
    with (
        start(url, folder, "notify-a") as a,
        start(url, folder, "notify-b") as b,
        httpx.Client(base_url=a.base, timeout=10) as on_a,
        httpx.Client(base_url=b.base, timeout=10) as on_b,
    ):
        table = on_a.post("/api/tables", json={"players": 2}).json()["table"]
        tokens = [claim(on_a, table, 0), claim(on_a, table, 1)]
        with (
            ws_client.connect(f"{a.ws_base}/ws/tables/{table}") as watcher,
            ws_client.connect(f"{a.ws_base}/ws/tables/{table}?token={tokens[1]}") as seat_1,
        ):
            assert json.loads(watcher.recv(timeout=10))["version"] == 0
            assert json.loads(seat_1.recv(timeout=10))["version"] == 0
            for version in range(6):
                seat = view(on_b, table, tokens[0])["current_player"]
                mine = view(on_b, table, tokens[seat])
                sent = time.monotonic()
                moved = on_b.post(
                    f"/api/tables/{table}/moves",
                    json={"action": mine["legal_actions"][0], "version": version},
                    headers=bearer(tokens[seat]),
                )
                assert moved.status_code == 200, moved.text
                public = json.loads(watcher.recv(timeout=2))
                private = json.loads(seat_1.recv(timeout=2))
                assert time.monotonic() - sent < 2
                assert public["version"] == private["version"] == version + 1
                assert public["viewer"] is None and private["viewer"] == 1
                assert "legal_actions" not in public


def test_seats_claimed_or_freed_on_one_process_hold_on_the_other(
    pair: tuple[str, Path],
) -> None:
    url, folder = pair
    with (
        start(url, folder, "seats-a") as a,
        start(url, folder, "seats-b") as b,
        httpx.Client(base_url=a.base, timeout=10) as on_a,
        httpx.Client(base_url=b.base, timeout=10) as on_b,
    ):
        made = on_a.post("/api/tables", json={"players": 2}).json()
        table, creator = made["table"], made["creator_token"]
        assert on_b.get(f"/api/tables/{table}/view").status_code == 200  # B has it in memory
        token = claim(on_a, table, 1)
        wait_for(lambda: on_b.get(f"/api/tables/{table}/view", headers=bearer(token)).is_success, 2)
        with ws_client.connect(f"{b.ws_base}/ws/tables/{table}?token={token}") as sock:
            assert json.loads(sock.recv(timeout=10))["viewer"] == 1
            freed = on_a.delete(f"/api/tables/{table}/seats/1", headers=bearer(creator))
            assert freed.is_success, freed.text
            with pytest.raises(ConnectionClosed):
                drain(sock)
        assert on_b.get(f"/api/tables/{table}/view", headers=bearer(token)).status_code == 403


def test_a_claim_or_a_move_answered_by_one_process_holds_at_once_on_the_other(
    pair: tuple[str, Path],
) -> None:
    """No waiting for the database's notice: the other process reads the database first."""
    url, folder = pair
    refused: list[str] = []
    with (
        start(url, folder, "agree-a") as a,
        start(url, folder, "agree-b") as b,
        httpx.Client(base_url=a.base, timeout=10) as on_a,
        httpx.Client(base_url=b.base, timeout=10) as on_b,
    ):
        for _ in range(25):
            table = on_a.post("/api/tables", json={"players": 4}).json()["table"]
            assert on_b.get(f"/api/tables/{table}/view").status_code == 200  # B has it
            for seat in range(4):
                token = claim(on_a, table, seat)
                if seat % 2:
                    answer = on_b.get(f"/api/tables/{table}/view", headers=bearer(token))
                    if answer.status_code != 200:
                        refused.append(f"GET {answer.status_code}")
                    continue
                with ws_client.connect(f"{b.ws_base}/ws/tables/{table}?token={token}") as sock:
                    try:
                        assert json.loads(sock.recv(timeout=10))["viewer"] == seat
                    except ConnectionClosed as closed:
                        refused.append(f"socket {closed.rcvd.code if closed.rcvd else None}")
        assert refused == []
        # A view read on A right after B answered a move shows that move.
        table = on_a.post("/api/tables", json={"players": 2}).json()["table"]
        tokens = [claim(on_a, table, 0), claim(on_a, table, 1)]
        assert view(on_a, table, tokens[0])["version"] == 0
        for version in range(30):
            seat = view(on_b, table, tokens[0])["current_player"]
            mine = view(on_b, table, tokens[seat])
            moved = on_b.post(
                f"/api/tables/{table}/moves",
                json={"action": mine["legal_actions"][0], "version": version},
                headers=bearer(tokens[seat]),
            )
            assert moved.status_code == 200, moved.text
            assert view(on_a, table, tokens[1 - seat])["version"] == version + 1
            public = on_a.get(f"/api/tables/{table}/view").json()
            assert public["version"] == on_a.get(f"/api/tables/{table}").json()["version"]
            assert public["version"] == version + 1


def test_concurrent_copies_of_a_move_on_both_processes_are_stored_once(
    pair: tuple[str, Path],
) -> None:
    url, folder = pair
    rounds, copies = 6, 200
    with (
        start(url, folder, "race-a") as a,
        start(url, folder, "race-b") as b,
        httpx.Client(base_url=a.base, timeout=30) as on_a,
        httpx.Client(base_url=b.base, timeout=30) as on_b,
        concurrent.futures.ThreadPoolExecutor(32) as workers,
    ):
        table = on_a.post("/api/tables", json={"players": 2}).json()["table"]
        tokens = [claim(on_a, table, 0), claim(on_a, table, 1)]
        sent: list[dict[str, Any]] = []
        for version in range(rounds):
            seat = view(on_a, table, tokens[0])["current_player"]
            mine = view(on_a, table, tokens[seat])
            assert mine["version"] == version
            body = {"action": mine["legal_actions"][0], "version": version}
            sent.append(body["action"])

            def post(i: int, body: dict[str, Any] = body, seat: int = seat) -> httpx.Response:
                client = on_a if i % 2 else on_b
                return client.post(
                    f"/api/tables/{table}/moves", json=body, headers=bearer(tokens[seat])
                )

            answers = list(workers.map(post, range(copies)))
            codes = [r.status_code for r in answers]
            assert codes.count(200) == 1, codes
            assert codes.count(409) == copies - 1, codes
            assert all(
                r.json()["error"] == "stale_version" for r in answers if r.status_code == 409
            )
            # Both processes are at the new version soon after (B hears it from A or
            # the other way round).
            for client in (on_a, on_b):
                wait_for(at_version(client, table, tokens[0], version + 1), 5)
        assert stored_moves(url, table) == [(i, 1) for i in range(rounds)]
        import psycopg

        with psycopg.connect(url) as conn:
            actions = [
                json.loads(text)
                for (text,) in conn.execute(
                    "SELECT action FROM moves WHERE table_id = %s ORDER BY idx", (table,)
                )
            ]
        assert actions == sent


def test_the_other_process_plays_the_bots_of_a_killed_one(pair: tuple[str, Path]) -> None:
    url, folder = pair
    with (
        start(url, folder, "bots-a") as a,
        start(url, folder, "bots-b") as b,
        httpx.Client(base_url=a.base, timeout=10) as on_a,
        httpx.Client(base_url=b.base, timeout=10) as on_b,
    ):
        answer = on_a.post("/api/tables", json={"players": 2, "seed": 7, "bots": {"1": "greedy"}})
        table = answer.json()["table"]
        token = claim(on_a, table, 0)

        def person_moves(client: httpx.Client) -> int:
            """Seat 0 moves while it is its move; returns the version after."""
            mine = view(client, table, token)
            while mine["current_player"] == 0 and mine["phase"] != "over":
                moved = client.post(
                    f"/api/tables/{table}/moves",
                    json={"action": mine["legal_actions"][0], "version": mine["version"]},
                    headers=bearer(token),
                )
                assert moved.status_code == 200, moved.text
                mine = moved.json()
            return int(mine["version"])

        def bots_answered(client: httpx.Client, after: int) -> Callable[[], bool]:
            def check() -> bool:
                mine = view(client, table, token)
                return bool(mine["version"] > after and mine["current_player"] == 0)

            return check

        # A made the table and plays its bot, and keeps holding it.
        wait_for(bots_answered(on_a, -1), 10)
        version = person_moves(on_a)
        wait_for(bots_answered(on_a, version), 10)
        held_by_a = lease_holder(url, table)
        assert held_by_a is not None
        # A person's move through B: A, which holds the bots, hears of it and answers.
        for _ in range(2):
            time.sleep(LEASE)  # longer than a lease: A renews it meanwhile
            version = person_moves(on_b)
            wait_for(bots_answered(on_b, version), 10)
            assert lease_holder(url, table) == held_by_a
        a.kill()
        version = person_moves(on_b)
        took = wait_for(bots_answered(on_b, version), 10)
        assert took < 3 * LEASE + 1
        assert lease_holder(url, table) not in (None, held_by_a)
        # And B goes on playing them.
        version = person_moves(on_b)
        assert wait_for(bots_answered(on_b, version), 5) < 2


def test_ten_thousand_conflicting_moves_across_two_processes_are_each_stored_once(
    pair: tuple[str, Path],
) -> None:
    """10 tables x 5 versions x 200 copies of each move, every batch shuffled across A and B."""
    url, folder = pair
    count, versions, copies = 10, 5, 200
    with (
        start(url, folder, "many-a") as a,
        start(url, folder, "many-b") as b,
        httpx.Client(base_url=a.base, timeout=60) as on_a,
        httpx.Client(base_url=b.base, timeout=60) as on_b,
        concurrent.futures.ThreadPoolExecutor(64) as workers,
    ):
        tables = [
            on_a.post("/api/tables", json={"players": 2}).json()["table"] for k in range(count)
        ]
        tokens = {t: [claim(on_a, t, 0), claim(on_a, t, 1)] for t in tables}
        sent: dict[str, list[Any]] = {t: [] for t in tables}
        posted = 0
        for version in range(versions):
            # Fresh connections for each batch.
            local = threading.local()
            opened: list[http.client.HTTPConnection] = []
            batch: list[tuple[str, str, dict[str, Any], httpx.Client]] = []
            for k, table in enumerate(tables):
                seat = view(on_a, table, tokens[table][0])["current_player"]
                mine = view(on_a, table, tokens[table][seat])
                assert mine["version"] == version
                action = mine["legal_actions"][(version + k) % len(mine["legal_actions"])]
                sent[table].append(action)
                body = {"action": action, "version": version}
                batch += [
                    (table, tokens[table][seat], body, on_a if i % 2 else on_b)
                    for i in range(copies)
                ]
            random.Random(version).shuffle(batch)

            def post(
                job: tuple[str, str, dict[str, Any], httpx.Client],
                local: threading.local = local,
                opened: list[http.client.HTTPConnection] = opened,
            ) -> tuple[str, int, str]:
                table, token, body, shared = job
                # One connection per thread and process, kept alive across its posts (the
                # standard library's client: the 10,000 posts are the test's own largest
                # cost, and httpx's client takes about three times the CPU a post).
                key = "a" if shared is on_a else "b"
                connection, used = getattr(local, key, (None, 0.0))
                # Under uvicorn's keep-alive timeout (5 s): a connection the server may be
                # closing is never used for a request.
                if connection is None or time.monotonic() - used > 2:
                    if connection is not None:
                        connection.close()
                    port = (a if key == "a" else b).port
                    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                    opened.append(connection)
                data = json.dumps(body).encode()
                headers = {"Content-Type": "application/json", **bearer(token)}
                connection.request("POST", f"/api/tables/{table}/moves", data, headers)
                answer = connection.getresponse()
                text = answer.read()
                setattr(local, key, (connection, time.monotonic()))
                error = json.loads(text).get("error", "") if answer.status != 200 else ""
                return table, answer.status, error

            answers = list(workers.map(post, batch))
            for connection in opened:
                connection.close()
            posted += len(answers)
            for table in tables:
                mine = [(code, error) for t, code, error in answers if t == table]
                assert mine.count((200, "")) == 1, mine
                assert mine.count((409, "stale_version")) == copies - 1, mine
            for table in tables:
                for client in (on_a, on_b):
                    wait_for(at_version(client, table, tokens[table][0], version + 1), 10)
        assert posted == count * versions * copies == 10_000
        import psycopg

        for table in tables:
            assert stored_moves(url, table) == [(i, 1) for i in range(versions)]
            with psycopg.connect(url) as conn:
                actions = [
                    json.loads(text)
                    for (text,) in conn.execute(
                        "SELECT action FROM moves WHERE table_id = %s ORDER BY idx", (table,)
                    )
                ]
            assert actions == sent[table]


def test_a_killed_process_loses_no_acknowledged_move_and_its_sockets_reconnect(
    pair: tuple[str, Path],
) -> None:
    """Moves go through A as fast as they are answered, and A is killed in the middle.

    Every move that A answered with 200 is in the database, once and in order; the
    socket on A closes, a socket on B (where a load balancer would send the client next)
    gets the table at the stored version at once, the game goes on through B, and B
    plays the bots A held within a few leases.
    """
    url, folder = pair
    with (
        start(url, folder, "crash-a") as a,
        start(url, folder, "crash-b") as b,
        httpx.Client(base_url=a.base, timeout=10) as on_a,
        httpx.Client(base_url=b.base, timeout=10) as on_b,
    ):
        made = on_a.post("/api/tables", json={"players": 3, "bots": {"2": "greedy"}})
        table = made.json()["table"]
        tokens = [claim(on_a, table, 0), claim(on_a, table, 1)]
        acknowledged: list[tuple[int, Any]] = []
        stop = threading.Event()

        def play(client: httpx.Client) -> None:
            """The persons' moves through ``client`` until ``stop`` or a dead server."""
            while not stop.is_set():
                try:
                    mine = view(client, table, tokens[0])
                    seat = mine["current_player"]
                    if seat not in (0, 1):
                        time.sleep(0.01)  # the bot's move
                        continue
                    mine = view(client, table, tokens[seat])
                    action = mine["legal_actions"][0]
                    answer = client.post(
                        f"/api/tables/{table}/moves",
                        json={"action": action, "version": mine["version"]},
                        headers=bearer(tokens[seat]),
                    )
                except (httpx.TransportError, AssertionError):
                    return  # the server is gone: what it did not answer is not acknowledged
                if answer.status_code == 200:
                    acknowledged.append((mine["version"], action))

        with ws_client.connect(f"{a.ws_base}/ws/tables/{table}?token={tokens[0]}") as on_a_socket:
            assert json.loads(on_a_socket.recv(timeout=10))["version"] == 0
            player = threading.Thread(target=play, args=(on_a,))
            player.start()
            wait_for(lambda: len(acknowledged) >= 12, 30)
            a.kill()
            stop.set()
            player.join(timeout=20)
            assert not player.is_alive()
            with pytest.raises((ConnectionClosed, TimeoutError)):
                drain(on_a_socket)
        stored = stored_moves(url, table)
        assert [n for _, n in stored] == [1] * len(stored)
        import psycopg

        with psycopg.connect(url) as conn:
            in_database = {
                int(i): json.loads(text)
                for i, text in conn.execute(
                    "SELECT idx, action FROM moves WHERE table_id = %s", (table,)
                )
            }
        assert len(acknowledged) >= 12
        assert all(in_database.get(version) == action for version, action in acknowledged)
        with ws_client.connect(f"{b.ws_base}/ws/tables/{table}?token={tokens[0]}") as on_b_socket:
            first = json.loads(on_b_socket.recv(timeout=10))
            # At least what was stored (B may have played the bot since, once A's hold on
            # it expired).
            assert first["version"] >= len(stored) and first["viewer"] == 0
            # The game goes on through B, bots included (B takes over A's hold on them).
            began = time.monotonic()
            stop.clear()
            player = threading.Thread(target=play, args=(on_b,))
            player.start()
            try:
                wait_for(lambda: view(on_b, table, tokens[0])["version"] >= len(stored) + 12, 30)
            finally:
                stop.set()
                player.join(timeout=20)
            bot_moves = [
                version
                for version in range(len(stored), len(stored) + 12)
                if version not in {v for v, _ in acknowledged}
            ]
            assert bot_moves, "no bot move came after the crash"
            assert time.monotonic() - began < 30
            assert lease_holder(url, table) is not None


def test_workers_share_one_port_and_a_dead_worker_is_replaced(
    postgres: Cluster, tmp_path: Path
) -> None:
    """``serve --workers 2``: moves through the port reach sockets on either worker.

    A worker killed with SIGKILL is replaced by the parent process, and the sockets of
    the table that were on it reconnect through the same port.
    """
    url = postgres.new_database()
    with (
        ServerProcess(
            url, "--workers", "2", "--bot-lease", str(LEASE), log=tmp_path / "w.log"
        ) as server,
        httpx.Client(base_url=server.base, timeout=10) as client,
    ):
        wait_for(lambda: len(server.workers()) == 2, 20)
        table = client.post("/api/tables", json={"players": 2}).json()["table"]
        tokens = [claim(client, table, 0), claim(client, table, 1)]
        with contextlib.ExitStack() as stack:
            watchers = [
                stack.enter_context(ws_client.connect(f"{server.ws_base}/ws/tables/{table}"))
                for _ in range(8)
            ]
            for sock in watchers:
                assert json.loads(sock.recv(timeout=10))["version"] == 0
            for version in range(4):
                seat = view(client, table, tokens[0])["current_player"]
                mine = view(client, table, tokens[seat])
                moved = client.post(
                    f"/api/tables/{table}/moves",
                    json={"action": mine["legal_actions"][0], "version": version},
                    headers=bearer(tokens[seat]),
                )
                assert moved.status_code == 200, moved.text
                for sock in watchers:
                    assert next_version(sock, version) == version + 1
        first, second = server.workers()
        os.kill(first, signal.SIGKILL)
        wait_for(lambda: first not in server.workers() and len(server.workers()) == 2, 30)
        assert second in server.workers()
        # The port still answers, from either worker, with the table at its version.
        for _ in range(10):
            assert view(client, table, tokens[0])["version"] == 4
        with ws_client.connect(f"{server.ws_base}/ws/tables/{table}?token={tokens[1]}") as sock:
            assert json.loads(sock.recv(timeout=10))["version"] == 4


def test_more_than_one_worker_needs_postgresql(capsys: pytest.CaptureFixture[str]) -> None:
    from allegra_rules.cli import main

    assert main(["serve", "--workers", "2"]) == 2
    assert "--workers above 1 needs --database" in capsys.readouterr().err
    assert main(["serve", "--workers", "0", "--database", "postgresql://a@b/c"]) == 2
    assert "--workers must be 1..256" in capsys.readouterr().err
