"""The table server over real HTTP and WebSockets: a server process on 127.0.0.1.

Routes and statuses of api.md's "Table server" section, bad input (a JSON error, the
table unchanged, the server still serving), views (no seat ever receives more than
``observe(state, seat)``), tokens kept out of the logs, and the database surviving SIGKILL.
The tests that start a server run on SQLite and on PostgreSQL (the ``databases`` fixture).
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the server extra is not installed")
pytest.importorskip("uvicorn", reason="the server extra is not installed")
httpx = pytest.importorskip("httpx")
ws_client = pytest.importorskip("websockets.sync.client")
from websockets.exceptions import ConnectionClosed

from allegra_rules import GameRecord, RuleConfig, observe
from allegra_rules.records import check_deal
from allegra_rules.serialize import state_to_json
from allegra_rules.server import public_view
from allegra_rules.server.backends import open_store
from allegra_rules.server.table import token_digest
from allegra_rules.table_view import discard_could_help, knock_could_help
from allegra_rules.transitions import new_game
from allegra_rules.wording import action_texts
from openapi_check import check_answer
from server_process import Databases, ServerProcess

TOKENS: list[str] = []
"""Every token the module's server handed out (none may appear in its log)."""


@pytest.fixture(scope="module")
def server(databases: Databases) -> Iterator[ServerProcess]:
    with databases.server(databases.new()) as running:
        yield running


@pytest.fixture(scope="module")
def client(server: ServerProcess) -> Iterator[httpx.Client]:
    # Every answer this client gets is checked against the server's OpenAPI document.
    hooks = {"response": [check_answer]}
    with httpx.Client(base_url=server.base, timeout=10, event_hooks=hooks) as opened:
        yield opened


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_table(client: httpx.Client, **body: Any) -> str:
    answer = client.post("/api/tables", json=body)
    assert answer.status_code == 201, answer.text
    table: str = answer.json()["table"]
    return table


def claim(client: httpx.Client, table: str, seat: int) -> str:
    answer = client.post(f"/api/tables/{table}/seats/{seat}")
    assert answer.status_code in (200, 201), answer.text
    token: str = answer.json()["token"]
    TOKENS.append(token)
    return token


def error_of(answer: httpx.Response, status: int, code: str) -> None:
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert set(body) == {"error", "message"}
    assert body["error"] == code
    assert isinstance(body["message"], str) and body["message"]


# ------------------------------------------------------------------- routes


@pytest.mark.installed
def test_create_claim_and_read_views(client: httpx.Client) -> None:
    answer = client.post("/api/tables", json={"players": 2, "bots": {"1": "random"}})
    assert answer.status_code == 201
    created = answer.json()
    assert '"seed"' not in answer.text
    table = created["table"]
    assert created["seats"][1] == {"seat": 1, "bot": "random", "taken": True}

    token = claim(client, table, 0)
    assert len(token) >= 22 and re.fullmatch(r"[A-Za-z0-9_-]+", token)  # >= 128 bits, URL-safe
    error_of(client.post(f"/api/tables/{table}/seats/0"), 409, "seat_taken")
    error_of(client.post(f"/api/tables/{table}/seats/1"), 409, "seat_is_bot")
    error_of(client.post(f"/api/tables/{table}/seats/2"), 404, "unknown_seat")
    error_of(client.post(f"/api/tables/{table}/seats/x"), 404, "unknown_seat")
    # A seat is a canonical decimal: no leading zero, no sign, at most two digits.
    for seat in ("00", "01", "+1", "-0", "0" * 5000, "1" * 5000, "\u0663", " 1"):
        error_of(client.post(f"/api/tables/{table}/seats/{seat}"), 404, "unknown_seat")

    mine = client.get(f"/api/tables/{table}/view", headers=bearer(token)).json()
    assert mine["viewer"] == 0 and mine["version"] == 0 and mine["legal_actions"]
    public = client.get(f"/api/tables/{table}/view").json()
    assert public["viewer"] is None and "legal_actions" not in public
    assert public["version"] == 0
    # The page's mode words the seat's moves (allegra_rules.wording), in its language.
    paged = client.get(f"/api/tables/{table}/view?svg=1&lang=de", headers=bearer(token)).json()
    assert len(paged["action_texts"]) == len(paged["legal_actions"])
    assert paged["action_texts"][0] == "Die Karte in Reihe 1, Spalte 1 aufdecken."
    assert "action_texts" not in client.get(f"/api/tables/{table}/view?svg=1").json()
    error_of(
        client.get(f"/api/tables/{table}/view", headers=bearer("not-a-token")), 403, "wrong_token"
    )
    error_of(
        client.get(f"/api/tables/{table}/view", headers={"Authorization": "Basic abc"}),
        401,
        "bad_authorization",
    )
    error_of(client.get(f"/api/tables/{table}/record"), 409, "game_not_over")
    for path in ("", "/view", "/record"):
        error_of(client.get(f"/api/tables/nosuchtable{path}"), 404, "unknown_table")
    error_of(client.post("/api/tables/nosuchtable/seats/0"), 404, "unknown_table")
    error_of(
        client.post("/api/tables/nosuchtable/moves", json={}, headers=bearer(token)),
        404,
        "unknown_table",
    )


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        (b"{", 400, "malformed_json"),
        (b"[" * 40000, 400, "malformed_json"),
        (json.dumps({"players": 2, "pad": "x" * 70000}).encode(), 413, "too_large"),
        (b"[]", 422, "invalid_table"),
        (json.dumps({"players": 1}).encode(), 422, "invalid_table"),
        (json.dumps({"players": True}).encode(), 422, "invalid_table"),
        (json.dumps({"players": 2, "preset": "nope"}).encode(), 422, "invalid_table"),
        (json.dumps({"players": 2, "bots": {"2": "random"}}).encode(), 422, "invalid_table"),
        (json.dumps({"players": 2, "bots": {"1": "nobot"}}).encode(), 422, "invalid_table"),
        (json.dumps({"players": 3, "bots": {"1": []}}).encode(), 422, "invalid_table"),
        (json.dumps({"players": 3, "bots": {"1": {}}}).encode(), 422, "invalid_table"),
        (json.dumps({"players": 3, "bots": {"1": 1}}).encode(), 422, "invalid_table"),
        (json.dumps({"players": 3, "bots": {"1" * 5000: "random"}}).encode(), 422, "invalid_table"),
        (json.dumps({"players": 3, "bots": {"01": "random"}}).encode(), 422, "invalid_table"),
        (json.dumps({"players": 3, "bots": {"-1": "random"}}).encode(), 422, "invalid_table"),
        (json.dumps({"players": 2, "preset": []}).encode(), 422, "invalid_table"),
        (json.dumps({"players": 2, "config": []}).encode(), 422, "invalid_table"),
        (json.dumps({"players": 2, "config": {"deck": 1}}).encode(), 422, "invalid_table"),
        (b'{"players": 2, "seed": 1' + b"0" * 5000 + b"}", 400, "malformed_json"),
        (json.dumps({"players": 2, "colour": "red"}).encode(), 422, "invalid_table"),
        (json.dumps({"players": 2, "seed": -1}).encode(), 422, "invalid_table"),
        (json.dumps({"players": 2, "max_turns": 0}).encode(), 422, "invalid_table"),
    ],
)
def test_bad_table_requests(client: httpx.Client, body: bytes, status: int, code: str) -> None:
    answer = client.post("/api/tables", content=body, headers={"Content-Type": "application/json"})
    error_of(answer, status, code)
    assert client.get("/").status_code == 200


@pytest.fixture
def two_people(client: httpx.Client) -> tuple[str, str, str]:
    table = new_table(client, players=2)
    return table, claim(client, table, 0), claim(client, table, 1)


def test_bad_moves_leave_the_table_unchanged(
    client: httpx.Client, two_people: tuple[str, str, str]
) -> None:
    table, first, second = two_people
    view_url = f"/api/tables/{table}/view"
    before = client.get(view_url, headers=bearer(first)).json()
    assert before["current_player"] == 0
    legal = before["legal_actions"][0]
    good = {"action": legal, "version": 0}
    json_type = {"Content-Type": "application/json"}
    cases: list[tuple[dict[str, str], bytes, int, str]] = [
        ({}, json.dumps(good).encode(), 401, "missing_token"),
        (bearer("wrong"), json.dumps(good).encode(), 403, "wrong_token"),
        ({"Authorization": "Token abc"}, json.dumps(good).encode(), 401, "bad_authorization"),
        (bearer(first), b"{not json", 400, "malformed_json"),
        (bearer(first), b"[" * 60000, 400, "malformed_json"),
        (bearer(first), b"\xff\xfe", 400, "malformed_json"),
        (bearer(first), b"[1, 2]", 400, "bad_body"),
        (bearer(first), json.dumps({"action": legal}).encode(), 400, "bad_body"),
        (bearer(first), json.dumps({"action": legal, "version": "0"}).encode(), 400, "bad_body"),
        (bearer(first), json.dumps({**good, "pad": "x" * 66000}).encode(), 413, "too_large"),
        (bearer(first), json.dumps({"action": legal, "version": 3}).encode(), 409, "stale_version"),
        (bearer(second), json.dumps(good).encode(), 409, "not_your_turn"),
        (
            bearer(first),
            json.dumps({"action": {"type": "fly"}, "version": 0}).encode(),
            422,
            "invalid_action",
        ),
        (
            bearer(first),
            json.dumps({"action": {"type": "draw_deck"}, "version": 0}).encode(),
            422,
            "illegal_action",
        ),
        (
            bearer(first),
            json.dumps(
                {
                    "action": {"type": "reveal", "pos": {"player": 1, "row": 0, "col": 0}},
                    "version": 0,
                }
            ).encode(),
            422,
            "illegal_action",
        ),
    ]
    for headers, body, status, code in cases:
        answer = client.post(
            f"/api/tables/{table}/moves", content=body, headers={**json_type, **headers}
        )
        error_of(answer, status, code)
        assert client.get(view_url, headers=bearer(first)).json() == before  # unchanged
        assert client.get("/").status_code == 200  # still serving
    moved = client.post(f"/api/tables/{table}/moves", json=good, headers=bearer(first))
    assert moved.status_code == 200
    assert moved.json()["version"] == 1
    # The same move again is stale; the right version makes it (or the next) legal.
    error_of(
        client.post(f"/api/tables/{table}/moves", json=good, headers=bearer(first)),
        409,
        "stale_version",
    )


def test_too_many_open_tables(databases: Databases) -> None:
    with (
        databases.server(databases.new("few"), "--max-tables", "2") as small,
        httpx.Client(base_url=small.base, timeout=10) as c,
    ):
        first = new_table(c, players=2)
        new_table(c, players=3)
        error_of(c.post("/api/tables", json={"players": 2}), 503, "too_many_tables")
        assert c.get(f"/api/tables/{first}").status_code == 200


# ----------------------------------------------------- whole games, views only


def _card_values_in_svg(svg: str, view: dict[str, Any]) -> None:
    """Every card value the picture shows is one the view shows at the same place."""
    n = view["num_players"]
    cells = re.findall(
        r'<g class="card [^"]*" data-seat="(\d)" data-row="(\d)" data-col="(\d)"'
        r'(?: data-value="(-?\d+)")?',
        svg,
    )
    assert len(cells) == 12 * n
    for seat, row, col, value in cells:
        shown = view["cells"][int(seat) * 12 + int(row) * 4 + int(col)]
        assert (int(value) if value else None) == shown
    for cls, value in re.findall(
        r'<g class="(held-card|hand-card)"(?: data-value="(-?\d+)")?', svg
    ):
        if cls == "held-card":
            assert (int(value) if value else None) == view["held"]
        else:
            assert (int(value) if value else None) in [h["card"] for h in view["in_hand"]]


def _play_watched_game(
    client: httpx.Client,
    server: ServerProcess,
    body: dict[str, Any],
    humans: tuple[int, ...],
    rng: random.Random,
) -> None:
    table = new_table(client, **body)
    tokens = {seat: claim(client, table, seat) for seat in humans}
    with contextlib.ExitStack() as stack:
        urls = {seat: f"?svg=1&token={token}" for seat, token in tokens.items()}
        urls[None] = "?svg=1"
        sockets: dict[int | None, Any] = {
            seat: stack.enter_context(ws_client.connect(f"{server.ws_base}/ws/tables/{table}{q}"))
            for seat, q in urls.items()
        }
        received, answers, raw, watcher = _play(client, table, tokens, sockets, rng)
        over = client.post(
            f"/api/tables/{table}/moves",
            json={"action": {"type": "pass"}, "version": watcher["version"]},
            headers=bearer(tokens[humans[0]]),
        )
        error_of(over, 409, "game_over")
    _check_received(client, table, received, answers, raw)


def _play(
    client: httpx.Client,
    table: str,
    tokens: dict[int, str],
    sockets: dict[int | None, Any],
    rng: random.Random,
) -> tuple[
    dict[int | None, list[dict[str, Any]]],
    list[tuple[int, dict[str, Any]]],
    list[str],
    dict[str, Any],
]:
    received: dict[int | None, list[dict[str, Any]]] = {seat: [] for seat in sockets}
    answers: list[tuple[int, dict[str, Any]]] = []
    raw: list[str] = []
    deadline = time.monotonic() + 60
    watcher: dict[str, Any] = {}
    for _ in range(2000):
        assert time.monotonic() < deadline, "the game took too long"
        target = client.get(f"/api/tables/{table}/view").json()["version"]
        for seat, sock in sockets.items():
            while not received[seat] or received[seat][-1]["version"] < target:
                text = sock.recv(timeout=10)
                raw.append(text)
                received[seat].append(json.loads(text))
        watcher = received[None][-1]
        if watcher["phase"] == "over":
            break
        seat = watcher["current_player"]
        if seat not in tokens or received[seat][-1]["version"] != watcher["version"]:
            continue  # a bot's move is on its way
        mine = received[seat][-1]
        move = {"action": rng.choice(mine["legal_actions"]), "version": mine["version"]}
        answer = client.post(
            f"/api/tables/{table}/moves?svg=1", json=move, headers=bearer(tokens[seat])
        )
        assert answer.status_code == 200, answer.text
        raw.append(answer.text)
        answers.append((seat, answer.json()))
    else:
        pytest.fail("the game did not end")
    return received, answers, raw, watcher


def _check_received(
    client: httpx.Client,
    table: str,
    received: dict[int | None, list[dict[str, Any]]],
    answers: list[tuple[int, dict[str, Any]]],
    raw: list[str],
) -> None:
    record_text = client.get(f"/api/tables/{table}/record").text
    record = GameRecord.from_json(record_text)
    states = list(record.states())
    assert states[-1].is_terminal
    seed = str(record.seed)
    assert all(seed not in text for text in raw if '"phase":"over"' not in text)
    # Each socket got every version once, in order: 0, 1, ..., the last.
    for bodies in received.values():
        assert [b["version"] for b in bodies] == list(range(len(states)))
    checked = [(seat, dict(body)) for seat, bodies in received.items() for body in bodies]
    checked += answers
    for seat, body in checked:
        state = states[body["version"]]
        expected = observe(state, seat).to_dict() if seat is not None else public_view(state)
        svg = body.pop("svg")
        assert body.pop("version") is not None
        # The page's words for the seat's moves, in the order of legal_actions.
        texts = body.pop("action_texts", None)
        if seat is None:
            assert texts is None
        else:
            assert texts == list(action_texts(state, seat))
        # No seat is idle long enough here for a stand-in bot; the log is the page's.
        assert body.pop("stand_in") == []
        body.pop("log", None)
        # What helps the page play: derived from the seat's own view and the geometry.
        assert body.pop("knock_could_help") == (seat is not None and knock_could_help(state, seat))
        assert body.pop("discard_could_help") == (
            seat is not None and discard_could_help(state, seat)
        )
        assert body.pop("zones") == [list(zone) for zone in state.geometry.zone]
        assert body == expected
        if svg is not None:
            _card_values_in_svg(svg, body)


def test_whole_games_show_each_seat_only_its_view(
    client: httpx.Client, server: ServerProcess
) -> None:
    rng = random.Random(5)
    _play_watched_game(
        client,
        server,
        {"players": 3, "bots": {"2": "greedy"}, "max_turns": 6},
        (0, 1),
        rng,
    )
    simultaneous = RuleConfig(setup_reveals="simultaneous", max_turns_per_round=4)
    _play_watched_game(
        client,
        server,
        {"players": 2, "config": simultaneous.to_dict()},
        (0, 1),
        rng,
    )


def test_public_view_holds_only_what_every_seat_knows() -> None:
    rng = random.Random(3)
    from allegra_rules import apply, legal_actions

    for seed in range(4):
        state = new_game(3, seed=seed)
        while not state.is_terminal and state.round == 1:
            public = public_view(state)
            views = [observe(state, p).to_dict() for p in range(3)]
            assert public["viewer"] is None and "legal_actions" not in public
            # It is the public view, observe(state, None), as the server sends it.
            spectator = observe(state, None).to_dict()
            assert spectator.pop("legal_actions") == []
            assert public == spectator
            for key, value in public.items():
                if key in ("viewer", "held", "held_hidden", "in_hand", "own_setup_named"):
                    continue
                assert all(v[key] == value for v in views), key
            if public["held"] is not None:
                assert all(v["held"] == public["held"] for v in views)
            for k, entry in enumerate(public["in_hand"]):
                if entry["card"] is not None:
                    assert all(v["in_hand"][k] == entry for v in views)
            state = apply(state, rng.choice(legal_actions(state)))


# ---------------------------------------------------------------- sockets


def test_socket_with_a_wrong_token_closes_before_any_view(
    client: httpx.Client, server: ServerProcess
) -> None:
    table = new_table(client, players=2)
    with (
        ws_client.connect(f"{server.ws_base}/ws/tables/{table}?token=wrong") as sock,
        pytest.raises(ConnectionClosed) as closed,
    ):
        sock.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
    with ws_client.connect(f"{server.ws_base}/ws/tables/{table}") as sock:
        assert json.loads(sock.recv(timeout=10))["viewer"] is None
        sock.send(b"\x00\x01")  # what a client sends is ignored, text or bytes
        sock.send("hello")
        token = claim(client, table, 0)
        view = client.get(f"/api/tables/{table}/view", headers=bearer(token)).json()
        move = {"action": view["legal_actions"][0], "version": 0}
        assert client.post(
            f"/api/tables/{table}/moves", json=move, headers=bearer(token)
        ).is_success
        # The claim sent the view again (the seats changed), then the move its new one.
        versions = [json.loads(sock.recv(timeout=10))["version"] for _ in range(2)]
        assert versions == [0, 1]


# ------------------------------------------------------------ restarts, logs


def test_kill_9_and_restart_resume_every_table(databases: Databases) -> None:
    db = databases.new()
    rng = random.Random(9)
    told = 0
    made: list[tuple[int, dict[str, Any]]] = []
    tokens = []
    first = databases.server(db)
    try:
        with httpx.Client(base_url=first.base, timeout=10) as c:
            table = new_table(c, players=2, bots={"1": "random"}, max_turns=3)
            token = claim(c, table, 0)
            tokens.append(token)
            view = c.get(f"/api/tables/{table}/view", headers=bearer(token)).json()
            for _ in range(12):
                if view["phase"] == "over":
                    break
                if view["current_player"] != 0:
                    view = c.get(f"/api/tables/{table}/view", headers=bearer(token)).json()
                    continue
                action = rng.choice(view["legal_actions"])
                made.append((view["version"], action))
                answer = c.post(
                    f"/api/tables/{table}/moves",
                    json={"action": action, "version": view["version"]},
                    headers=bearer(token),
                )
                assert answer.status_code == 200
                view = answer.json()
                told = max(told, view["version"])
    finally:
        first.kill()
    assert made
    with databases.server(db) as second, httpx.Client(base_url=second.base, timeout=10) as c:
        view = c.get(f"/api/tables/{table}/view", headers=bearer(token)).json()
        assert view["version"] >= told
        deadline = time.monotonic() + 30
        while view["phase"] != "over":
            assert time.monotonic() < deadline
            if view["current_player"] != 0:
                time.sleep(0.01)
                view = c.get(f"/api/tables/{table}/view", headers=bearer(token)).json()
                continue
            action = rng.choice(view["legal_actions"])
            made.append((view["version"], action))
            view = c.post(
                f"/api/tables/{table}/moves",
                json={"action": action, "version": view["version"]},
                headers=bearer(token),
            ).json()
        record = GameRecord.from_json(c.get(f"/api/tables/{table}/record").text)
        logs = first.log_text() + second.log_text()
    # Every move the client made is in the record exactly where it was made.
    recorded = record.to_dict()["actions"]
    for version, action in made:
        assert recorded[version] == action
    states = list(record.states())
    assert sum(1 for s in states[:-1] if s.current_player == 0) == len(made)  # none twice
    assert all(t not in logs for t in tokens)


def test_a_move_another_process_stored_first_is_stale(databases: Databases) -> None:
    # Two servers on one database, both holding the table at version 0: the database
    # takes the first move of version 0 and refuses the second with the same 409.
    db = databases.new("shared")
    with (
        databases.server(db) as one,
        databases.server(db) as two,
        httpx.Client(base_url=one.base, timeout=10) as a,
        httpx.Client(base_url=two.base, timeout=10) as b,
    ):
        table = new_table(a, players=2)
        token = claim(a, table, 0)
        view = b.get(f"/api/tables/{table}/view", headers=bearer(token)).json()
        assert view["version"] == 0
        first, second = view["legal_actions"][:2]
        moved = a.post(
            f"/api/tables/{table}/moves",
            json={"action": first, "version": 0},
            headers=bearer(token),
        )
        assert moved.status_code == 200, moved.text
        error_of(
            b.post(
                f"/api/tables/{table}/moves",
                json={"action": second, "version": 0},
                headers=bearer(token),
            ),
            409,
            "stale_version",
        )
        # The refused server read the table again: it is at version 1 with the first move.
        view = b.get(f"/api/tables/{table}/view", headers=bearer(token)).json()
        assert view["version"] == 1
        again = b.post(
            f"/api/tables/{table}/moves",
            json={"action": view["legal_actions"][0], "version": 1},
            headers=bearer(token),
        )
        assert again.status_code == 200, again.text
        logs = one.log_text() + two.log_text()
    assert token not in logs


@pytest.mark.parametrize("bot", ["greedy", "search-easy"])  # each lane's worker process
def test_bots_move_after_a_restart(databases: Databases, bot: str) -> None:
    db = databases.new("waiting")
    state = new_game(2, seed=4)
    store = open_store(db)
    store.add_table(
        table_id="waiting",
        num_players=2,
        config=state.config.to_json(),
        preset="seeds@1",
        seed=4,
        bots={0: (bot, 1)},
        state=state_to_json(state),
    )
    token = "t" * 40
    store.add_seat("waiting", 1, token_digest(token))
    store.close()
    with databases.server(db) as running, httpx.Client(base_url=running.base, timeout=10) as c:
        deadline = time.monotonic() + 20
        while True:
            view = c.get("/api/tables/waiting/view", headers=bearer(token)).json()
            if view["current_player"] == 1:
                break
            assert time.monotonic() < deadline, "the bot did not move after the restart"
            time.sleep(0.05)
    assert view["version"] == 2  # the bot's two setup reveals
    assert sum(1 for down in view["face_down"][:12] if not down) == 2


def test_tokens_never_appear_in_the_log(client: httpx.Client, server: ServerProcess) -> None:
    # The server hands out and receives six tokens here, besides those of the tests of this
    # module that this worker ran before on it.
    table = new_table(client, players=6)
    tokens = [claim(client, table, seat) for seat in range(6)]
    with ws_client.connect(f"{server.ws_base}/ws/tables/{table}?token={tokens[0]}") as sock:
        sock.recv(timeout=10)
    for token in tokens:
        client.get(f"/api/tables/{table}/view", headers=bearer(token))
    time.sleep(0.2)
    log = server.log_text()
    assert f"/ws/tables/{table}?[redacted]" in log  # the socket's URL, without its query
    assert '"GET /api/tables/' in log  # the access log is on
    assert len(TOKENS) > 5
    leaked = [t for t in TOKENS if t in log]
    assert not leaked


def play_seat_0_at_random(
    client: httpx.Client, table: str, token: str, seed: int, other: str | None = None
) -> dict[str, Any]:
    """Seat 0 plays random legal moves (seeded) until the game is over, bots at the rest;
    the last view. With ``other``, that table's public view is read between the moves."""
    rng = random.Random(seed)
    deadline = time.monotonic() + 120
    while True:
        assert time.monotonic() < deadline, "the game took too long"
        view: dict[str, Any] = client.get(f"/api/tables/{table}/view", headers=bearer(token)).json()
        if view["phase"] == "over":
            return view
        if other is not None:
            assert client.get(f"/api/tables/{other}/view").status_code == 200
        if view["current_player"] != 0:
            time.sleep(0.02)  # the bots' moves are on their way
            continue
        move = {"action": rng.choice(view["legal_actions"]), "version": view["version"]}
        answer = client.post(f"/api/tables/{table}/moves", json=move, headers=bearer(token))
        assert answer.status_code == 200, answer.text


def test_a_chosen_seed_reproduces_the_bots_moves_too(client: httpx.Client) -> None:
    """Two tables of the same chosen seed, played alike by the person: the same game."""

    def play(seed: int) -> list[Any]:
        table = new_table(
            client, players=3, bots={"1": "random", "2": "greedy"}, seed=seed, max_turns=4
        )
        play_seat_0_at_random(client, table, claim(client, table, 0), 3)
        actions: list[Any] = client.get(f"/api/tables/{table}/record").json()["actions"]
        return actions

    first = play(12)
    assert play(12) == first
    assert play(13) != first  # another seed, another deal and other bots


def test_a_search_bot_plays_a_whole_game(client: httpx.Client) -> None:
    # The search bot thinks in a worker process; its moves are stored like any other.
    # (Its easy level: the levels differ only in their budget of simulations.)
    table = new_table(client, players=2, bots={"1": "search-easy"}, seed=5, max_turns=4)
    token = claim(client, table, 0)
    other = new_table(client, players=2)
    view = play_seat_0_at_random(client, table, token, 5, other)
    record = GameRecord.from_json(client.get(f"/api/tables/{table}/record").text)
    assert len(record.actions) == view["version"]
    states = list(record.states())
    assert sum(1 for state in states[:-1] if state.current_player == 1) > 0  # the bot moved


# ------------------------------------------------------------------ fair deals


def test_nothing_served_before_the_end_carries_the_seed_or_the_salt(
    client: httpx.Client, server: ServerProcess
) -> None:
    # Every answer and every socket message before the game is over: the create answer,
    # the info, the public and seat views (with pictures), the record's 409. Then the
    # record and the info reveal a seed and salt that hash to the commitment of the start.
    made = client.post("/api/tables", json={"players": 2, "bots": {"1": "greedy"}, "max_turns": 2})
    assert made.status_code == 201, made.text
    table, commitment = made.json()["table"], made.json()["deal_commitment"]
    assert made.json()["seed_chosen"] is False and re.fullmatch(r"[0-9a-f]{64}", commitment)
    token = claim(client, table, 0)
    before = [made.text, client.get(f"/api/tables/{table}").text]
    before.append(client.get(f"/api/tables/{table}/view?svg=1").text)
    before.append(client.get(f"/api/tables/{table}/view?svg=1", headers=bearer(token)).text)
    error_of(client.get(f"/api/tables/{table}/record"), 409, "game_not_over")
    with contextlib.ExitStack() as stack:
        sockets: dict[int | None, Any] = {
            seat: stack.enter_context(ws_client.connect(f"{server.ws_base}/ws/tables/{table}{q}"))
            for seat, q in ((0, f"?svg=1&token={token}"), (None, "?svg=1"))
        }
        _, _, raw, _ = _play(client, table, {0: token}, sockets, random.Random(3))
    before += raw  # the socket messages and the move answers, the last views included
    info = client.get(f"/api/tables/{table}").json()
    record_text = client.get(f"/api/tables/{table}/record").text
    record = GameRecord.from_json(record_text)
    assert record.seed is not None and record.deal_salt is not None
    assert record.deal_commitment == info["deal_commitment"] == commitment
    assert (info["seed"], info["deal_salt"]) == (record.seed, record.deal_salt)
    assert check_deal(record.seed, bytes.fromhex(record.deal_salt), commitment)
    for text in before:
        assert str(record.seed) not in text and record.deal_salt not in text
        assert '"seed"' not in text and '"deal_salt"' not in text


def test_a_chosen_seed_leaves_at_most_one_seat_for_people(client: httpx.Client) -> None:
    for body in ({"players": 2, "seed": 7}, {"players": 3, "seed": 7, "bots": {"1": "greedy"}}):
        answer = client.post("/api/tables", json=body)
        error_of(answer, 422, "invalid_table")
        assert "chosen seed" in answer.json()["message"]
    made = client.post(
        "/api/tables", json={"players": 3, "seed": 7, "bots": {"1": "greedy", "2": "random"}}
    )
    assert made.status_code == 201, made.text
    table, creator = made.json()["table"], made.json()["creator_token"]
    assert made.json()["seed_chosen"] is True
    assert client.get(f"/api/tables/{table}").json()["seed_chosen"] is True
    freed = client.delete(f"/api/tables/{table}/seats/1", headers=bearer(creator))
    error_of(freed, 409, "seed_chosen")
    assert client.get(f"/api/tables/{table}").json()["seats"][1]["bot"] == "greedy"
    # Handing the person's seat to a bot leaves none: then one bot's seat may be freed.
    handed = client.post(f"/api/tables/{table}/seats/0/bot", headers=bearer(creator))
    assert handed.status_code == 200, handed.text
    if not handed.json()["over"]:
        freed = client.delete(f"/api/tables/{table}/seats/1", headers=bearer(creator))
        assert freed.status_code in (200, 409), freed.text
        if freed.status_code == 409:
            assert freed.json()["error"] == "game_over"  # the bots finished first
