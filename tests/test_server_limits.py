"""The table server's bounded resources and its seats that cannot be stolen or stall.

Real server processes on 127.0.0.1 (tests/server_process.py), on SQLite and on PostgreSQL,
each with the limits a test needs: the view cache's bytes (the process's memory after
thousands of views), at most six seats, tables per client address per hour (429), finished
bot-only tables still counting against ``--max-tables``, a small ``-wal`` file after many
moves (SQLite only), the creator's token (handing a seat to a bot, freeing it) and
stand-in bots for idle seats. Also the view cache and the rate limit on their own.
"""

from __future__ import annotations

import http.client
import itertools
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the server extra is not installed")
pytest.importorskip("uvicorn", reason="the server extra is not installed")
httpx = pytest.importorskip("httpx")
jsonschema = pytest.importorskip("jsonschema")

from allegra_rules import RuleConfig
from allegra_rules.config import MAX_DECK_SIZE
from allegra_rules.server import MAX_SEATS
from allegra_rules.server.tables import LANGUAGES, RateLimit, ViewCache
from openapi_check import check_answer
from server_process import Databases, ServerProcess

MB = 1024 * 1024

VIEW_REQUESTS = 4000
"""View requests of the memory test."""

MEMORY_GROWTH_LIMIT = 60 * MB
"""How much the server may grow while it answers ``VIEW_REQUESTS`` views."""


def options(*args: object) -> pytest.MarkDecorator:
    """Run the test against a server started with the command-line options ``args``."""
    return pytest.mark.parametrize("server", [args], indirect=True, ids=["options"])


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def biggest_config() -> dict[str, Any]:
    """Default rules with the biggest deck a config allows (``MAX_DECK_SIZE`` cards)."""
    data = RuleConfig().to_dict()
    values = sorted(data["deck"], key=int)
    data["deck"] = {value: MAX_DECK_SIZE // len(values) for value in values}
    return data


def created(answer: httpx.Response) -> dict[str, Any]:
    check_answer(answer)
    assert answer.status_code == 201, answer.text
    body: dict[str, Any] = answer.json()
    return body


def refused(answer: httpx.Response, status: int, code: str) -> dict[str, Any]:
    check_answer(answer)
    assert answer.status_code == status, answer.text
    body: dict[str, Any] = answer.json()
    assert set(body) == {"error", "message"} and body["error"] == code
    return body


@pytest.fixture
def server(request: pytest.FixtureRequest, databases: Databases) -> Iterator[ServerProcess]:
    """A server with the options a test gives (``options(...)``), else the defaults.

    On a fresh database of each store (``databases``, tests/conftest.py).
    """
    args = [str(a) for a in getattr(request, "param", ())]
    with databases.server(databases.new(), *args) as running:
        yield running


@pytest.fixture
def client(server: ServerProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.base, timeout=30) as opened:
        yield opened


def wait_for(condition: Any, seconds: float = 20.0) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    pytest.fail("the condition did not hold in time")


# -------------------------------------------------------------------- the cache on its own


def test_the_view_cache_keeps_at_most_its_bytes() -> None:
    cache = ViewCache(10_000)
    for i in range(100):
        cache.put(("t", i, 0, None, False, "en"), "x" * 1000)
        assert cache.size <= 10_000
    assert 0 < len(cache) < 10
    assert cache.get(("t", 99, 0, None, False, "en")) == "x" * 1000
    assert cache.get(("t", 0, 0, None, False, "en")) is None
    cache.put(("t", -1, 0, None, False, "en"), "x" * 20_000)  # larger than the cache
    assert cache.get(("t", -1, 0, None, False, "en")) is None
    assert ViewCache(0).get(("t", 0, 0, None, False, "en")) is None


def test_the_view_cache_drops_the_least_recently_used() -> None:
    cache = ViewCache(3 * (100 + 256))
    keys = [("t", i, 0, None, False, "en") for i in range(4)]
    for key in keys[:3]:
        cache.put(key, "y" * 100)
    assert cache.get(keys[0]) is not None  # now the most recently used
    cache.put(keys[3], "y" * 100)
    assert cache.get(keys[1]) is None
    assert all(cache.get(k) is not None for k in (keys[0], keys[2], keys[3]))


def test_the_rate_limit_slides_over_its_window() -> None:
    limit = RateLimit(2, window=100.0)
    assert limit.check("a", now=0.0) == 0.0
    limit.add("a", now=0.0)
    limit.add("a", now=10.0)
    assert limit.check("a", now=20.0) == pytest.approx(80.0)
    assert limit.check("b", now=20.0) == 0.0
    assert limit.check("a", now=100.5) == 0.0
    limit.add("a", now=100.5)
    assert limit.check("a", now=101.0) == pytest.approx(9.0)
    # Addresses without a recent event are forgotten.
    assert limit.check("a", now=500.0) == 0.0
    assert "a" not in limit._events


# ------------------------------------------------------------------------------- memory


def test_thousands_of_views_of_the_largest_tables_keep_memory_bounded(
    server: ServerProcess, client: httpx.Client
) -> None:
    """Every kind of view of many 6-seat tables with the biggest deck: at most 60 MB more.

    Each table's views at each version are rendered once and cached: without a bound on
    the cache's bytes (``--view-cache-mb 100000``) this grows the server by some 80 MB.
    """
    config = biggest_config()
    kinds = [
        (seat, svg, lang)
        for seat in [None, *range(MAX_SEATS)]
        for svg in ("0", "1")
        for lang in LANGUAGES
    ]
    count = -(-VIEW_REQUESTS // len(kinds))
    tables: list[tuple[str, list[str]]] = []
    for _ in range(count):
        table = created(client.post("/api/tables", json={"players": MAX_SEATS, "config": config}))
        tokens = [
            client.post(f"/api/tables/{table['table']}/seats/{seat}").json()["token"]
            for seat in range(MAX_SEATS)
        ]
        tables.append((table["table"], tokens))
    # Warm up: every kind of view once, so that the code paths are loaded.
    for table_id, tokens in tables[:2]:
        for seat, svg, lang in kinds:
            headers = {} if seat is None else bearer(tokens[seat])
            client.get(f"/api/tables/{table_id}/view?svg={svg}&lang={lang}", headers=headers)
    before = server.rss()
    requests = 0
    # One kept-alive connection of the standard library's client, lighter than httpx:
    # the requests, not the client, are under test.
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    for (table_id, tokens), (seat, svg, lang) in itertools.product(tables, kinds):
        if requests == VIEW_REQUESTS:
            break
        headers = {} if seat is None else bearer(tokens[seat])
        connection.request(
            "GET", f"/api/tables/{table_id}/view?svg={svg}&lang={lang}", None, headers
        )
        answer = connection.getresponse()
        text = answer.read()
        assert answer.status == 200, text
        requests += 1
    connection.close()
    after = server.rss()
    assert requests == VIEW_REQUESTS
    growth = after - before
    print(f"RSS {before / MB:.1f} MB -> {after / MB:.1f} MB (+{growth / MB:.1f} MB)")
    assert growth <= MEMORY_GROWTH_LIMIT, f"the server grew by {growth / MB:.1f} MB"


# ------------------------------------------------------------------------ seats, tables


def test_a_table_has_at_most_six_seats(client: httpx.Client) -> None:
    refused(client.post("/api/tables", json={"players": MAX_SEATS + 1}), 422, "invalid_table")
    many = {**RuleConfig().to_dict(), "max_players": 64}
    refused(client.post("/api/tables", json={"players": 4, "config": many}), 422, "invalid_table")
    body = created(client.post("/api/tables", json={"players": MAX_SEATS}))
    assert body["players"] == MAX_SEATS


@options("--tables-per-hour", 3)
def test_each_address_creates_a_few_tables_an_hour(client: httpx.Client) -> None:
    # A bot-only table that is over at once counts as well.
    done = created(
        client.post(
            "/api/tables",
            json={"players": 2, "max_turns": 1, "bots": {"0": "greedy", "1": "greedy"}},
        )
    )
    wait_for(lambda: client.get(f"/api/tables/{done['table']}").json()["over"])
    created(client.post("/api/tables", json={"players": 2}))
    created(client.post("/api/tables", json={"players": 3}))
    answer = client.post("/api/tables", json={"players": 2})
    refused(answer, 429, "too_many_requests")
    assert 1 <= int(answer.headers["Retry-After"]) <= 3600
    # An invalid body is refused for what it is, and the others' tables still serve.
    assert client.get(f"/api/tables/{done['table']}").status_code == 200


@options("--max-tables", 1)
def test_a_finished_table_does_not_count_as_open(client: httpx.Client) -> None:
    body = {"players": 2, "max_turns": 1, "bots": {"0": "greedy", "1": "greedy"}}
    table = created(client.post("/api/tables", json=body))["table"]
    wait_for(lambda: client.get(f"/api/tables/{table}").json()["over"])
    created(client.post("/api/tables", json={"players": 2}))


@options("--max-tables", 2, "--abandoned-after", 2)
def test_a_table_nobody_joined_expires_and_retry_after_says_when(client: httpx.Client) -> None:
    began = time.monotonic()
    first = created(client.post("/api/tables", json={"players": 2}))["table"]
    second = created(client.post("/api/tables", json={"players": 2}))
    answer = client.post("/api/tables", json={"players": 2})
    refused(answer, 503, "too_many_tables")
    wait = int(answer.headers["Retry-After"])
    assert 1 <= wait <= 2
    # A claimed seat keeps the second table open for a day (it does not expire).
    claimed = client.post(f"/api/tables/{second['table']}/seats/0")
    assert claimed.status_code == 201, claimed.text
    time.sleep(max(0.0, began + wait + 0.2 - time.monotonic()))
    # The first table expired: it no longer counts, and takes no claim.
    created(client.post("/api/tables", json={"players": 2}))
    refused(client.post(f"/api/tables/{first}/seats/0"), 410, "table_expired")
    assert client.get(f"/api/tables/{first}").status_code == 200
    again = client.post("/api/tables", json={"players": 2})
    refused(again, 503, "too_many_tables")
    # Both open tables count until their last move (creation here) is a day old, or
    # until the unclaimed one expires (2 s).
    assert 1 <= int(again.headers["Retry-After"]) <= 2


@options("--max-tables", 1)
def test_retry_after_is_a_day_for_a_claimed_table_that_waits(client: httpx.Client) -> None:
    table = created(client.post("/api/tables", json={"players": 2}))["table"]
    assert client.post(f"/api/tables/{table}/seats/1").status_code == 201
    answer = client.post("/api/tables", json={"players": 2})
    refused(answer, 503, "too_many_tables")
    assert 86400 - 60 <= int(answer.headers["Retry-After"]) <= 86400


def test_the_wal_file_stays_under_its_limit(tmp_path: Path) -> None:
    """Bot-only tables with the biggest deck: each move stores a state of about 24 kB.

    SQLite's own file (PostgreSQL manages its write-ahead log itself).
    """
    with (
        ServerProcess(tmp_path / "tables.db", "--wal-limit-mb", "0.25") as server,
        httpx.Client(base_url=server.base, timeout=30) as client,
    ):
        wal_stays_under_its_limit(server, client)


def wal_stays_under_its_limit(server: ServerProcess, client: httpx.Client) -> None:
    # Rounds of at most 30 turns: some 600 moves a table, some 15 MB of states each.
    config = {**biggest_config(), "max_turns_per_round": 30}
    body = {"players": MAX_SEATS, "config": config, "bots": dict.fromkeys("012345", "greedy")}
    tables = [created(client.post("/api/tables", json=body))["table"] for _ in range(2)]
    wal = Path(f"{server.db}-wal")
    largest = 0

    def all_over() -> bool:
        nonlocal largest
        if wal.exists():
            largest = max(largest, wal.stat().st_size)
        return all(client.get(f"/api/tables/{t}").json()["over"] for t in tables)

    wait_for(all_over, 120)
    moves = sum(client.get(f"/api/tables/{t}").json()["version"] for t in tables)
    assert moves > 1000  # some 25 MB of states went through the WAL
    print(f"{moves} moves; largest -wal file {largest / 1024:.0f} kB")
    # Between two checks the WAL grows by the moves of a busy moment: 2.4 MB were seen on a loaded
    # machine; without the checkpoints it passes 5 MB.
    assert largest <= 0.25 * MB + 3 * MB
    time.sleep(1.5)  # the checkpoint thread's next round
    assert (wal.stat().st_size if wal.exists() else 0) <= 0.25 * MB + 64 * 1024


# ----------------------------------------------------------------------- creator's token


def test_the_creator_hands_seats_to_bots_and_frees_them(client: httpx.Client) -> None:
    table = created(client.post("/api/tables", json={"players": 3}))
    assert {"table", "url", "seats", "creator_token", "stand_in"} <= set(table)
    creator = table["creator_token"]
    assert table["stand_in"] == []
    t = table["table"]
    squatter = client.post(f"/api/tables/{t}/seats/1").json()["token"]

    refused(client.delete(f"/api/tables/{t}/seats/1"), 401, "missing_token")
    refused(client.post(f"/api/tables/{t}/seats/1/bot"), 401, "missing_token")
    refused(client.delete(f"/api/tables/{t}/seats/1", headers=bearer(squatter)), 403, "not_creator")
    refused(
        client.post(f"/api/tables/{t}/seats/1/bot", headers=bearer(squatter)), 403, "not_creator"
    )
    refused(client.delete(f"/api/tables/{t}/seats/3", headers=bearer(creator)), 404, "unknown_seat")
    refused(
        client.post("/api/tables/nosuch/seats/1/bot", headers=bearer(creator)), 404, "unknown_table"
    )
    refused(
        client.post(f"/api/tables/{t}/seats/1/bot", json={"bot": "nobot"}, headers=bearer(creator)),
        422,
        "invalid_bot",
    )
    # A bot that cannot play the table is refused before it is seated: see
    # test_a_bot_that_cannot_play_the_table_is_refused_before_it_is_seated (the shipped
    # policy plays every table a server holds, so no bot of this server is such a bot).
    refused(
        client.post(f"/api/tables/{t}/seats/1/bot", json={"x": 1}, headers=bearer(creator)),
        400,
        "bad_body",
    )

    # Freeing a stolen seat: the squatter's token stops working, the seat is free again.
    answer = client.delete(f"/api/tables/{t}/seats/1", headers=bearer(creator))
    check_answer(answer)
    assert answer.status_code == 200
    assert answer.json()["seats"][1] == {"seat": 1, "bot": None, "taken": False}
    refused(client.get(f"/api/tables/{t}/view", headers=bearer(squatter)), 403, "wrong_token")
    mine = client.post(f"/api/tables/{t}/seats/1").json()["token"]
    assert client.get(f"/api/tables/{t}/view", headers=bearer(mine)).status_code == 200

    # Handing seats to bots: the game goes on without the people who left.
    for seat in (0, 1, 2):
        answer = client.post(
            f"/api/tables/{t}/seats/{seat}/bot", json={"bot": "random"}, headers=bearer(creator)
        )
        check_answer(answer)
        assert answer.status_code == 200
        assert answer.json()["seats"][seat] == {"seat": seat, "bot": "random", "taken": True}
    refused(client.get(f"/api/tables/{t}/view", headers=bearer(mine)), 403, "wrong_token")
    wait_for(lambda: client.get(f"/api/tables/{t}").json()["over"])
    refused(client.delete(f"/api/tables/{t}/seats/0", headers=bearer(creator)), 409, "game_over")


def test_a_freed_seat_closes_its_sockets(server: ServerProcess, client: httpx.Client) -> None:
    ws_client = pytest.importorskip("websockets.sync.client")
    from websockets.exceptions import ConnectionClosed

    table = created(client.post("/api/tables", json={"players": 2}))
    t, creator = table["table"], table["creator_token"]
    token = client.post(f"/api/tables/{t}/seats/0").json()["token"]
    with (
        ws_client.connect(f"{server.ws_base}/ws/tables/{t}?token={token}") as seat,
        ws_client.connect(f"{server.ws_base}/ws/tables/{t}") as watcher,
    ):
        assert seat.recv(timeout=10)
        assert watcher.recv(timeout=10)
        answer = client.post(f"/api/tables/{t}/seats/0/bot", headers=bearer(creator))
        assert answer.status_code == 200, answer.text

        def read_until_closed() -> None:
            while True:
                seat.recv(timeout=10)

        with pytest.raises(ConnectionClosed):
            read_until_closed()
        # The watcher hears of the seats' change, then of the bot's moves.
        assert '"version"' in watcher.recv(timeout=10)


# -------------------------------------------------------------------------- stand-ins


@options("--seat-timeout", 1)
def test_an_unclaimed_seat_does_not_stall_the_game(client: httpx.Client) -> None:
    t = created(client.post("/api/tables", json={"players": 3, "bots": {"2": "greedy"}}))["table"]
    assert client.post(f"/api/tables/{t}/seats/0").status_code == 201
    started = time.monotonic()
    info = wait_for(lambda: (i := client.get(f"/api/tables/{t}").json())["over"] and i)
    # Seat 1 was never claimed, and seat 0's person never moved: stand-ins played their
    # moves once each was idle for 1 s.
    assert time.monotonic() - started >= 0.9
    assert info["version"] > 0
    check_answer(client.get(f"/api/tables/{t}"))


@options("--seat-timeout", 0.2)
def test_a_table_nobody_came_to_gets_no_stand_in(client: httpx.Client) -> None:
    t = created(client.post("/api/tables", json={"players": 2, "bots": {"1": "greedy"}}))["table"]
    time.sleep(1.0)
    info = client.get(f"/api/tables/{t}").json()
    assert info["stand_in"] == [] and info["version"] == 0


@options("--seat-timeout", 1)
def test_a_stand_in_plays_an_idle_seat_until_its_person_comes_back(
    client: httpx.Client,
) -> None:
    t = created(client.post("/api/tables", json={"players": 2}))["table"]
    tokens = [client.post(f"/api/tables/{t}/seats/{seat}").json()["token"] for seat in (0, 1)]
    # A stand-in starts, and moves for its seat (it thinks in a worker process).
    info = wait_for(
        lambda: (i := client.get(f"/api/tables/{t}").json())["stand_in"] and i["version"] > 0 and i
    )
    seat = info["stand_in"][0]
    assert client.get(f"/api/tables/{t}/view").json()["stand_in"] == info["stand_in"]
    # A view request with the seat's token ends its stand-in.
    view = client.get(f"/api/tables/{t}/view", headers=bearer(tokens[seat]))
    check_answer(view)
    assert seat not in view.json()["stand_in"]
    assert seat not in client.get(f"/api/tables/{t}").json()["stand_in"]
    # The stand-in moved for the seat while it was away.
    assert client.get(f"/api/tables/{t}").json()["version"] > 0


@options("--seat-timeout", 0)
def test_a_seat_timeout_of_zero_never_stands_in(client: httpx.Client) -> None:
    t = created(client.post("/api/tables", json={"players": 2, "bots": {"1": "greedy"}}))["table"]
    time.sleep(1.0)
    info = client.get(f"/api/tables/{t}").json()
    assert info["stand_in"] == [] and info["version"] == 0


# --------------------------------------------------------------------------------- bots


def test_the_bots_of_every_table_think_in_worker_processes() -> None:
    import asyncio
    import concurrent.futures

    from allegra_rules.server.store_sqlite import SQLiteStore
    from allegra_rules.server.tables import Tables

    async def play() -> set[int]:
        tables = Tables(SQLiteStore(":memory:"), bot_workers=2, bot_tables_per_client=5)
        bots = dict.fromkeys("0123", "greedy")
        games = [tables.create({"players": 4, "max_turns": 2, "bots": bots}) for _ in range(5)]
        # While the bots think, the event loop keeps turning.
        turns = 0
        while not all(table.state.is_terminal for table in games):
            await asyncio.sleep(0.001)
            turns += 1
        assert turns > 1
        executor = tables.thinking.lanes["cheap"].workers._executor
        assert isinstance(executor, concurrent.futures.ProcessPoolExecutor)
        pids = {p.pid for p in executor._processes.values()}  # type: ignore[attr-defined]
        tables.close()
        return pids

    pids = asyncio.run(asyncio.wait_for(play(), 60))
    # The greedy bots' lane has one process of its own, not this one.
    assert len(pids) == 1 and os.getpid() not in pids


@options("--bot-tables-per-client", 1, "--search-tables-per-client", 1)
def test_four_addresses_each_create_a_table_of_searches(server: ServerProcess) -> None:
    body = {"players": MAX_SEATS, "bots": dict.fromkeys("012345", "search-hard")}
    clients = [
        httpx.Client(
            base_url=server.base,
            timeout=30,
            transport=httpx.HTTPTransport(local_address=f"127.0.0.{k}"),
        )
        for k in range(2, 6)
    ]
    try:
        for c in clients:
            created(c.post("/api/tables", json=body))
        answer = clients[0].post("/api/tables", json=body)
        error = refused(answer, 429, "too_many_search_tables")
        assert "at most 1" in error["message"]
        assert "retry-after" not in answer.headers  # when a game of bots ends is unknown
        # A table of bots only, without a search, is over the other limit.
        cheap = {"players": 2, "bots": {"0": "greedy", "1": "random"}}
        refused(clients[1].post("/api/tables", json=cheap), 429, "too_many_bot_tables")
        # A table with a seat for a person and a greedy bot is not limited.
        created(clients[1].post("/api/tables", json={"players": 2, "bots": {"1": "greedy"}}))
    finally:
        for c in clients:
            c.close()


@options("--bot-workers", 1)
def test_busy_bots_leave_the_server_answering(client: httpx.Client) -> None:
    """Ten bot-only 6-seat tables with the biggest deck; other requests stay answered."""
    config = biggest_config()
    body = {
        "players": MAX_SEATS,
        "config": config,
        "max_turns": 1,
        "bots": dict.fromkeys("012345", "greedy"),
    }
    tables = [created(client.post("/api/tables", json=body))["table"] for _ in range(10)]
    slowest = 0.0
    while not all(client.get(f"/api/tables/{t}").json()["over"] for t in tables):
        started = time.perf_counter()
        assert client.get("/api/openapi.json").status_code == 200
        slowest = max(slowest, time.perf_counter() - started)
    print(f"slowest answer while the bots played: {slowest * 1000:.0f} ms")
    # Generous for a busy machine: without the pool one step of the event loop played a
    # whole game's moves of a table.
    assert slowest < float(os.environ.get("ALLEGRA_TEST_SLOW_ANSWER", "2.0"))


# ----------------------------------------------------------------------- the command line


def test_serve_names_its_limits(capsys: pytest.CaptureFixture[str]) -> None:
    from allegra_rules.cli import main

    assert main(["serve", "--help"]) == 0
    out = capsys.readouterr().out
    for option in (
        "--tables-per-hour",
        "--seat-timeout",
        "--view-cache-mb",
        "--bot-workers",
        "--wal-limit-mb",
    ):
        assert option in out


@pytest.mark.parametrize(
    "args",
    [
        ["--tables-per-hour", "0"],
        ["--seat-timeout", "-1"],
        ["--seat-timeout", "inf"],
        ["--view-cache-mb", "-1"],
        ["--bot-workers", "0"],
        ["--wal-limit-mb", "0"],
    ],
)
def test_serve_refuses_bad_limits(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from allegra_rules.cli import main

    assert main(["serve", *args]) == 2
    assert args[0] in capsys.readouterr().err


def test_a_bot_that_cannot_play_the_table_is_refused_before_it_is_seated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Weights without a 3-seat network stand in for a bot that cannot play a table: the
    table is refused at its creation, the seat at its handing over, both with the reason
    (``unavailable``), before any move."""
    import asyncio

    import allegra_rules.bot_kinds as kinds
    from allegra_rules.server.store_sqlite import SQLiteStore
    from allegra_rules.server.tables import Refused, Tables

    monkeypatch.setattr(kinds, "cannot_play", lambda config, n: "not 3" if n == 3 else None)

    async def run() -> None:
        tables = Tables(SQLiteStore(":memory:"))
        try:
            with pytest.raises(Refused) as caught:
                tables.create({"players": 3, "bots": {"1": "search-guided"}}, "10.0.0.1")
            assert caught.value.code == "invalid_table"
            assert "search-guided cannot play here: not 3" in str(caught.value)
            table = tables.create({"players": 3}, "10.0.0.1")
            with pytest.raises(Refused) as caught:
                tables.hand_to_bot(table, "1", {"bot": "policy"}, "10.0.0.1")
            assert caught.value.code == "invalid_bot" and "not 3" in str(caught.value)
            assert table.bots == {}
            tables.hand_to_bot(table, "1", {"bot": "greedy"}, "10.0.0.1")
            assert table.bots[1][0] == "greedy"
        finally:
            tables.close()

    asyncio.run(run())


def test_the_creation_limits_count_an_ipv6_client_by_its_64() -> None:
    from allegra_rules.server.store_sqlite import SQLiteStore
    from allegra_rules.server.tables import Refused, Tables, Why

    tables = Tables(SQLiteStore(":memory:"), tables_per_hour=1)
    try:
        tables.create({"players": 2}, "2001:db8:0:7::1")
        with pytest.raises(Refused) as caught:  # the same /64, another address
            tables.create({"players": 2}, "2001:db8:0:7:ffff:ffff:ffff:fffe")
        assert (caught.value.why, caught.value.code) == (Why.TOO_MANY, "too_many_requests")
        assert caught.value.retry_after is not None and caught.value.retry_after > 3000
        tables.create({"players": 2}, "2001:db8:0:8::1")  # another /64
        tables.create({"players": 2}, "198.51.100.7")
        with pytest.raises(Refused):  # the same IPv4 address, mapped into IPv6
            tables.create({"players": 2}, "::ffff:198.51.100.7")
    finally:
        tables.close()


def test_handing_seats_to_bots_counts_against_the_creators_limits() -> None:
    import asyncio

    from allegra_rules.server.store_sqlite import SQLiteStore
    from allegra_rules.server.tables import Refused, Tables, Why

    async def run() -> None:
        tables = Tables(SQLiteStore(":memory:"), search_tables_per_client=1)
        try:
            search = {"players": 2, "bots": {"1": "search-easy"}}
            tables.create(search, "10.0.0.1")
            # A table for people, then its seats handed to a search bot: refused like a
            # table created so, for the creator's address.
            plain = tables.create({"players": 2}, "10.0.0.1")
            with pytest.raises(Refused) as caught:
                tables.hand_to_bot(plain, "1", {"bot": "search-hard"}, "10.0.0.1")
            assert (caught.value.why, caught.value.code) == (Why.TOO_MANY, "too_many_search_tables")
            assert plain.bots == {}  # nothing changed
            tables.hand_to_bot(plain, "1", {"bot": "greedy"}, "10.0.0.1")  # a cheap bot is fine
            other = tables.create({"players": 2}, "10.0.0.2")
            tables.hand_to_bot(other, "1", {"bot": "search-hard"}, "10.0.0.2")
            # That table now counts for 10.0.0.2 like one created with a search bot.
            with pytest.raises(Refused):
                tables.create(search, "10.0.0.2")
        finally:
            tables.close()

    asyncio.run(run())
