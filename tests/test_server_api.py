"""The table server's API as published: its OpenAPI document, its refusals, its headers.

A real server process on 127.0.0.1 (a short body timeout, set through the environment),
on SQLite and on PostgreSQL.
The OpenAPI document at ``GET /api/openapi.json`` names every route and nothing else, the
answers of a scripted session validate against it, and a bounded, derandomized
Schemathesis run over it finds no 5xx and no answer outside it, accepts the document's
examples and sees data the document calls invalid refused; a targeted run of the same
rules covers the bodies the document once let through (``preset`` with ``config``,
unknown bots, ``null``). A 405 names every method of its path. Also: the write rules
(JSON only, the server's own origin), the security headers, relative redirects, a slow
body, socket close codes, tokens kept out of the log, and 0600 database files.
"""

from __future__ import annotations

import json
import os
import re
import socket
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

pytest.importorskip("starlette", reason="the server extra is not installed")
pytest.importorskip("uvicorn", reason="the server extra is not installed")
httpx = pytest.importorskip("httpx")
jsonschema = pytest.importorskip("jsonschema")
ws_client = pytest.importorskip("websockets.sync.client")
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from starlette.routing import Mount, Route, WebSocketRoute
from websockets.exceptions import ConnectionClosed

from allegra_rules import RuleConfig, preset
from allegra_rules.bot_kinds import BOT_KINDS, unavailable
from allegra_rules.server import create_app, openapi_document
from allegra_rules.server.app import CONTENT_SECURITY_POLICY
from allegra_rules.server.store_sqlite import SQLiteStore
from openapi_check import check_answer
from server_process import Databases, ServerProcess

BODY_TIMEOUT = 1.5
"""The server's body timeout in this module (seconds)."""

DOC = openapi_document()
SECRETS: list[str] = []
"""Tokens and token-like strings sent in URLs (none may appear in the log)."""


@pytest.fixture(scope="module")
def server(databases: Databases) -> Iterator[ServerProcess]:
    """The module's server, on SQLite and on PostgreSQL (``databases``, tests/conftest.py)."""
    env = {"ALLEGRA_SERVER_BODY_TIMEOUT": str(BODY_TIMEOUT)}
    with databases.server(databases.new(), env=env) as running:
        yield running


@pytest.fixture(scope="module")
def client(server: ServerProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.base, timeout=10) as opened:
        yield opened


def check(answer: httpx.Response, path: str) -> httpx.Response:
    """Assert that ``answer`` (to the documented ``path``) is what the document says."""
    assert answer.status_code < 500, answer.text
    return check_answer(answer, path)


def error_of(answer: httpx.Response, path: str, status: int, code: str) -> None:
    check(answer, path)
    assert answer.status_code == status, answer.text
    assert answer.json()["error"] == code, answer.text


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# ---------------------------------------------------------------- the document


@pytest.mark.installed
def test_the_document_names_every_route_and_only_those() -> None:
    app = create_app()
    http: set[tuple[str, str]] = set()
    sockets: set[str] = set()
    for route in app.routes:
        if isinstance(route, Route):
            http.update((route.path, m) for m in route.methods or () if m != "HEAD")
        elif isinstance(route, Mount):
            http.add((f"{route.path}/{{path}}", "GET"))
        elif isinstance(route, WebSocketRoute):
            sockets.add(route.path)
        else:  # pragma: no cover - a new kind of route needs a line here
            pytest.fail(f"unexpected route {route!r}")
    documented = {(p, m.upper()) for p, ops in DOC["paths"].items() for m in ops}
    assert http == documented
    assert sockets == set(DOC["x-websockets"])
    assert DOC["openapi"].startswith("3.1")
    codes = DOC["x-websockets"]["/ws/tables/{table}"]["close-codes"]
    assert {"4400", "4401", "4404", "1011"} <= set(codes)
    # Every refusal is the error shape, every documented status a 2xx or a 4xx (503 the
    # one exception: too many open tables, with Retry-After).
    for path, ops in DOC["paths"].items():
        for method, op in ops.items():
            for status, answer in op["responses"].items():
                assert status[0] in "24" or (path, method, status) == (
                    "/api/tables",
                    "post",
                    "503",
                ), (path, method, status)
                if status[0] != "2":
                    schema = answer["content"]["application/json"]["schema"]
                    assert schema == {"$ref": "#/components/schemas/Error"}


@pytest.mark.installed
def test_the_documents_bot_names_are_the_registrys() -> None:
    schemas = DOC["components"]["schemas"]
    assert schemas["BotName"]["enum"] == list(BOT_KINDS)
    name = {"$ref": "#/components/schemas/BotName"}
    assert schemas["NewTable"]["properties"]["bots"]["additionalProperties"] == name
    assert schemas["SeatBot"]["properties"]["bot"] == name


@pytest.mark.installed
def test_the_server_sends_the_document(client: httpx.Client) -> None:
    answer = check(client.get("/api/openapi.json"), "/api/openapi.json")
    assert answer.json() == DOC


def test_a_session_answers_as_documented(client: httpx.Client) -> None:
    created = check(
        client.post("/api/tables", json={"players": 2, "bots": {"1": "random"}, "max_turns": 1}),
        "/api/tables",
    )
    assert created.status_code == 201
    table = created.json()["table"]
    check(client.get(f"/api/tables/{table}"), "/api/tables/{table}")
    seat = "/api/tables/{table}/seats/{seat}"
    error_of(client.post(f"/api/tables/{table}/seats/1"), seat, 409, "seat_is_bot")
    error_of(client.post(f"/api/tables/{table}/seats/0", json={"a": 1}), seat, 400, "bad_body")
    claimed = check(client.post(f"/api/tables/{table}/seats/0", json={}), seat)
    assert claimed.status_code == 201
    token = claimed.json()["token"]
    error_of(client.post(f"/api/tables/{table}/seats/0"), seat, 409, "seat_taken")
    for bad in ("00", "002", "+0", "1" * 5000):
        error_of(client.post(f"/api/tables/{table}/seats/{bad}"), seat, 404, "unknown_seat")

    view = "/api/tables/{table}/view"
    check(client.get(f"/api/tables/{table}/view?svg=1&lang=fr"), view)
    error_of(client.get(f"/api/tables/{table}/view?lang=xx"), view, 400, "bad_query")
    error_of(client.get(f"/api/tables/{table}/view?svg=2"), view, 400, "bad_query")
    error_of(client.get(f"/api/tables/{table}/view", headers=bearer("x")), view, 403, "wrong_token")
    record = "/api/tables/{table}/record"
    error_of(client.get(f"/api/tables/{table}/record"), record, 409, "game_not_over")

    moves = "/api/tables/{table}/moves"
    error_of(client.post(f"/api/tables/{table}/moves", json={}), moves, 401, "missing_token")
    error_of(
        client.post(f"/api/tables/{table}/moves", json={}, headers=bearer(token)),
        moves,
        400,
        "bad_body",
    )
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline, "the game took too long"
        mine = check(
            client.get(f"/api/tables/{table}/view?svg=1", headers=bearer(token)), view
        ).json()
        if mine["phase"] == "over":
            break
        if mine["current_player"] != 0:
            time.sleep(0.02)
            continue
        move = {"action": mine["legal_actions"][-1], "version": mine["version"]}
        check(client.post(f"/api/tables/{table}/moves", json=move, headers=bearer(token)), moves)
    check(client.get(f"/api/tables/{table}/record"), record)
    stale = {"action": {"type": "pass"}, "version": 0}
    error_of(
        client.post(f"/api/tables/{table}/moves", json=stale, headers=bearer(token)),
        moves,
        409,
        "game_over",
    )
    for path in ("/api/tables/nosuchtable", "/api/tables/nosuchtable/record"):
        documented = path.replace("nosuchtable", "{table}")
        error_of(client.get(path), documented, 404, "unknown_table")


# --------------------------------------------------------- refusals, one shape


@pytest.mark.parametrize(
    ("method", "path", "status", "code"),
    [
        ("GET", "/nope", 404, "not_found"),
        ("GET", "/api/tables/", 404, "not_found"),
        ("GET", "/static/nope.js", 404, "not_found"),
        ("GET", "/static/..%2F..%2Fpyproject.toml", 404, "not_found"),
        ("DELETE", "/api/tables", 405, "method_not_allowed"),
        ("GET", "/api/tables", 405, "method_not_allowed"),
        ("PUT", "/api/tables/x/moves", 405, "method_not_allowed"),
        ("POST", "/api/openapi.json", 405, "method_not_allowed"),
    ],
)
def test_router_refusals_have_the_error_shape(
    client: httpx.Client, method: str, path: str, status: int, code: str
) -> None:
    answer = client.request(method, path)
    assert answer.status_code == status
    assert answer.headers["content-type"] == "application/json"
    assert answer.json() == {"error": code, "message": answer.json()["message"]}
    if status == 405:
        assert answer.headers["allow"]


def test_a_405_names_every_method_of_its_path(client: httpx.Client) -> None:
    routes = [route.path for route in create_app().routes if isinstance(route, Route)]
    assert len(routes) == len(set(routes)), "one Route per path, with all its methods"
    table = client.post("/api/tables", json={"players": 2}).json()["table"]
    for path, operations in DOC["paths"].items():
        url = path.format(table=table, seat="0", path="app.js")
        documented = {method.upper() for method in operations}
        allowed = documented | ({"HEAD"} if "GET" in documented else set())
        for method in sorted({"GET", "POST", "PUT", "PATCH", "DELETE"} - documented):
            answer = client.request(method, url)
            assert answer.status_code == 405, (method, url, answer.text)
            assert answer.json()["error"] == "method_not_allowed"
            given = {m.strip() for m in answer.headers["allow"].split(",")}
            assert given == allowed, (method, path, answer.headers["allow"])


def _body_schema(path: str, method: str) -> dict[str, Any]:
    body: dict[str, Any] = DOC["paths"][path][method]["requestBody"]
    schema: dict[str, Any] = body["content"]["application/json"]["schema"]
    return {**schema, "components": DOC["components"]}


def _documented(path: str, method: str, body: object) -> bool:
    """Whether the document calls ``body`` a valid body of the operation."""
    return bool(jsonschema.Draft202012Validator(_body_schema(path, method)).is_valid(body))


def _send(
    client: httpx.Client, url: str, body: object, headers: dict[str, str] | None = None
) -> httpx.Response:
    content = json.dumps(body).encode()
    return client.post(
        url, content=content, headers={"Content-Type": "application/json", **(headers or {})}
    )


def test_the_document_takes_exactly_the_bodies_the_server_takes(client: httpx.Client) -> None:
    """Valid by the document: accepted (bar a bot that cannot play these rules); invalid:
    refused with 400 or 422. The cases the document once let through are among them."""
    config = RuleConfig(max_turns_per_round=2).to_dict()
    seeds = preset("seeds")
    create = "/api/tables"
    tables: list[tuple[object, bool]] = [
        ({"players": 2, "preset": "seeds"}, True),
        ({"players": 2, "config": config}, True),
        ({"players": 2, "preset": "seeds", "config": config}, False),
        ({"players": 2, "bots": {"1": "nobody"}}, False),
        ({"players": 2, "bots": {"1": 7}}, False),
        ({"players": 2, "bots": {"1": None}}, False),
        (None, False),
        ([], False),
        *(({"players": 2, "max_turns": 1, "bots": {"1": name}}, True) for name in BOT_KINDS),
    ]
    for body, valid in tables:
        assert _documented(create, "post", body) is valid, body
        answer = check(_send(client, create, body), create)
        bots = body.get("bots", {}) if isinstance(body, dict) else {}
        cannot = [n for n in bots.values() if n in BOT_KINDS and unavailable(n, seeds, 2)]
        if valid and not cannot:
            assert answer.status_code == 201, (body, answer.text)
        elif valid:
            error_of(answer, create, 422, "invalid_table")
            assert "cannot play here" in answer.json()["message"]
        else:
            assert answer.status_code in (400, 422), (body, answer.text)

    created = client.post(create, json={"players": 3, "max_turns": 1}).json()
    table, creator = created["table"], created["creator_token"]
    bot = "/api/tables/{table}/seats/{seat}/bot"
    hand_overs: list[tuple[object, bool]] = [
        ({}, True),
        *(({"bot": name}, True) for name in BOT_KINDS),
        (None, False),
        ({"bot": "nobody"}, False),
        ({"bot": None}, False),
        ({"bot": "greedy", "level": 1}, False),
        ([], False),
        ("greedy", False),
    ]
    for body, valid in hand_overs:
        assert _documented(bot, "post", body) is valid, body
        url = f"/api/tables/{table}/seats/1/bot"
        answer = check(_send(client, url, body, bearer(creator)), bot)
        name = body.get("bot", "greedy") if isinstance(body, dict) else None
        if valid and not unavailable(str(name), seeds, 3):
            assert answer.status_code == 200, (body, answer.text)
            assert answer.json()["seats"][1]["bot"] == name
        elif valid:
            error_of(answer, bot, 422, "invalid_bot")
        else:
            assert answer.status_code in (400, 422), (body, answer.text)

    seat = "/api/tables/{table}/seats/{seat}"
    for body in (None, {"a": 1}, [], 0, "x"):
        assert not _documented(seat, "post", body), body
        error_of(_send(client, f"/api/tables/{table}/seats/2", body), seat, 400, "bad_body")
    assert _documented(seat, "post", {})
    assert check(_send(client, f"/api/tables/{table}/seats/2", {}), seat).status_code == 201


def test_null_is_no_body(client: httpx.Client) -> None:
    """JSON ``null`` where an object is required is refused; no body at all stays fine."""
    created = client.post("/api/tables", json={"players": 3}).json()
    table, creator = created["table"], created["creator_token"]
    null = {"Content-Type": "application/json"}
    bot, seat = "/api/tables/{table}/seats/{seat}/bot", "/api/tables/{table}/seats/{seat}"
    answer = client.post(
        f"/api/tables/{table}/seats/1/bot", content=b"null", headers={**null, **bearer(creator)}
    )
    error_of(answer, bot, 400, "bad_body")
    error_of(
        client.post(f"/api/tables/{table}/seats/1", content=b" null ", headers=null),
        seat,
        400,
        "bad_body",
    )
    error_of(
        client.post("/api/tables", content=b"null", headers=null),
        "/api/tables",
        422,
        "invalid_table",
    )
    assert client.get(f"/api/tables/{table}").json()["seats"][1] == {
        "seat": 1,
        "bot": None,
        "taken": False,
    }
    handed = check(client.post(f"/api/tables/{table}/seats/1/bot", headers=bearer(creator)), bot)
    assert handed.json()["seats"][1]["bot"] == "greedy"
    assert check(client.post(f"/api/tables/{table}/seats/2"), seat).status_code == 201


def test_writes_need_json_and_the_servers_own_origin(
    client: httpx.Client, server: ServerProcess
) -> None:
    body = b'{"players": 2}'
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None):
        headers = {} if kind is None else {"Content-Type": kind}
        error_of(
            client.post("/api/tables", content=body, headers=headers),
            "/api/tables",
            415,
            "unsupported_media_type",
        )
    json_type = {"Content-Type": "application/json; charset=utf-8"}
    own = f"http://127.0.0.1:{server.port}"
    for origin in (
        "http://evil.example",
        "null",
        f"https://127.0.0.1:{server.port}",
        f"http://127.0.0.1:{server.port + 1}",
        f"http://localhost:{server.port}",
        f"{own}/path",
        "http://127.0.0.1:99999",
    ):
        answer = client.post("/api/tables", content=body, headers={**json_type, "Origin": origin})
        error_of(answer, "/api/tables", 403, "cross_origin")
    created = client.post("/api/tables", content=body, headers={**json_type, "Origin": own})
    assert check(created, "/api/tables").status_code == 201
    table = created.json()["table"]
    # Behind a name: the origin is the Host the request was sent to.
    local = {"Host": f"localhost:{server.port}", "Origin": f"http://localhost:{server.port}"}
    seat = "/api/tables/{table}/seats/{seat}"
    error_of(
        client.post(f"/api/tables/{table}/seats/0", headers={"Content-Type": "text/plain"}),
        seat,
        415,
        "unsupported_media_type",
    )
    error_of(
        client.post(f"/api/tables/{table}/seats/0", content=b"{}"),
        seat,
        415,
        "unsupported_media_type",
    )
    error_of(
        client.post(f"/api/tables/{table}/seats/0", headers={"Origin": "http://evil.example"}),
        seat,
        403,
        "cross_origin",
    )
    assert check(client.post(f"/api/tables/{table}/seats/0", headers=local), seat).is_success
    token = client.post(f"/api/tables/{table}/seats/1").json()["token"]
    SECRETS.append(token)
    error_of(
        client.post(
            f"/api/tables/{table}/moves",
            content=b'{"action": {"type": "pass"}, "version": 0}',
            headers={**bearer(token), "Content-Type": "text/plain"},
        ),
        "/api/tables/{table}/moves",
        415,
        "unsupported_media_type",
    )
    assert client.get(f"/api/tables/{table}").json()["version"] == 0


# ------------------------------------------------------------------- headers


@pytest.mark.installed
def test_every_answer_carries_the_security_headers(client: httpx.Client) -> None:
    answers = [
        client.get("/"),
        client.get("/static/app.js"),
        client.get("/static/style.css"),
        client.get("/api/openapi.json"),
        client.get("/nope"),
        client.delete("/api/tables"),
        client.post("/api/tables", content=b"{", headers={"Content-Type": "application/json"}),
        client.post("/api/tables", content=b"{}", headers={"Content-Type": "text/plain"}),
    ]
    for answer in answers:
        headers = answer.headers
        assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY, answer.url
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"
        assert headers["referrer-policy"] in ("no-referrer", "same-origin")
    policy = dict(
        part.strip().split(" ", 1) for part in CONTENT_SECURITY_POLICY.split(";") if part.strip()
    )
    assert policy["frame-ancestors"] == "'none'"
    assert policy["script-src"] == "'self'"
    assert "unsafe" not in CONTENT_SECURITY_POLICY


@pytest.mark.installed
def test_the_page_has_nothing_inline_that_the_policy_blocks() -> None:
    static = Path(create_app.__code__.co_filename).parent / "static"
    page = (static / "index.html").read_text()
    for script in re.findall(r"<script\b[^>]*>", page, flags=re.IGNORECASE):
        assert " src=" in script, script
    assert not re.search(r"<script\b[^>]*>\s*[^<\s]", page, flags=re.IGNORECASE)
    assert not re.search(r"<style\b", page, flags=re.IGNORECASE)
    assert not re.search(r"\sstyle\s*=", page, flags=re.IGNORECASE)
    assert not re.search(r"\son[a-z]+\s*=", page, flags=re.IGNORECASE)
    assert not re.search(r"javascript:", page, flags=re.IGNORECASE)
    script = (static / "app.js").read_text()
    assert 'setAttribute("style"' not in script and "eval(" not in script


def test_no_answer_echoes_the_host_header(client: httpx.Client) -> None:
    evil = {"Host": "evil.example"}
    for path in ("/api/tables/", "/static", "/static/", "/api/tables//x", "//evil.example/"):
        answer = client.get(path, headers=evil)
        assert not answer.is_redirect, (path, answer.headers.get("location"))
        assert "evil.example" not in answer.text
        location = answer.headers.get("location")
        assert location is None or (location.startswith("/") and not location.startswith("//"))


# ------------------------------------------------------------- a slow body


def test_a_slow_body_times_out(server: ServerProcess) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
        raw.sendall(
            b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
        )
        started = time.monotonic()
        raw.settimeout(BODY_TIMEOUT + 5)
        answer = b""
        try:
            while chunk := raw.recv(65536):
                answer += chunk
        except ConnectionResetError:
            pass  # the server closed the connection after its answer
        waited = time.monotonic() - started
    assert BODY_TIMEOUT - 0.2 < waited < BODY_TIMEOUT + 5
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert b"connection: close" in answer.lower()
    assert answer.endswith(b'the body did not arrive within 1.5 seconds"}')


# ----------------------------------------------------------------- sockets


def _close_code(url: str) -> int:
    with ws_client.connect(url) as sock, pytest.raises(ConnectionClosed) as closed:
        sock.recv(timeout=10)
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code


def test_socket_close_codes_mean_one_thing(client: httpx.Client, server: ServerProcess) -> None:
    table = client.post("/api/tables", json={"players": 2}).json()["table"]
    base = f"{server.ws_base}/ws/tables/{table}"
    assert _close_code(f"{server.ws_base}/ws/tables/nosuchtable") == 4404
    assert _close_code(f"{server.ws_base}/ws/tables/nosuchtable?token=abc") == 4404
    assert _close_code(f"{base}?token=wrong") == 4401
    assert _close_code(f"{base}?token=") == 4401
    assert _close_code(f"{base}?lang=xx") == 4400
    assert _close_code(f"{base}?svg=yes") == 4400
    with ws_client.connect(f"{base}?svg=1&lang=pl") as sock:
        assert '"viewer":null' in sock.recv(timeout=10)


def test_socket_and_token_urls_stay_out_of_the_log(
    client: httpx.Client, server: ServerProcess
) -> None:
    table = client.post("/api/tables", json={"players": 3}).json()["table"]
    tokens = [client.post(f"/api/tables/{table}/seats/{s}").json()["token"] for s in (0, 1, 2)]
    SECRETS.extend(tokens)
    base = f"{server.ws_base}/ws/tables/{table}"
    for url in (
        f"{base}?token={tokens[0]}",
        f"{base}?tok%65n={tokens[1]}",
        f"{base}?svg=1&token={tokens[2]}",
    ):
        with ws_client.connect(url) as sock:
            assert '"viewer":' in sock.recv(timeout=10)
    # A token in the query of a plain HTTP URL is not read, and not logged either.
    client.get(f"/api/tables/{table}/view?token={tokens[0]}")
    client.get(f"/api/tables/{table}/view?%74oken={tokens[1]}")
    time.sleep(0.3)
    log = server.log_text()
    assert f"/ws/tables/{table}?[redacted]" in log
    assert '"GET /api/tables/' in log  # the access log is on
    leaked = [t for t in SECRETS if t in log]
    assert not leaked
    assert "Traceback" not in log


# --------------------------------------------------------------- the files


def test_database_files_are_readable_by_their_owner_only(tmp_path: Path) -> None:
    db = tmp_path / "tables.db"
    old = os.umask(0o022)
    try:
        with ServerProcess(db) as running, httpx.Client(base_url=running.base) as c:
            table = c.post("/api/tables", json={"players": 2}).json()["table"]
            c.post(f"/api/tables/{table}/seats/0")
            files = [db, Path(f"{db}-wal"), Path(f"{db}-shm")]
            assert all(f.exists() for f in files)
            for f in files:
                assert stat.S_IMODE(f.stat().st_mode) == 0o600, f
        # An older database, its files 0644, is made 0600 when opened.
        for f in (db, Path(f"{db}-wal")):
            if f.exists():
                f.chmod(0o644)
        SQLiteStore(db).close()
        assert stat.S_IMODE(db.stat().st_mode) == 0o600
    finally:
        os.umask(old)


# ------------------------------------------------------------- Schemathesis

EXAMPLES = 15
"""Generated requests per operation and generation mode (positive, negative)."""


def _fuzz(operation: Any, mode: Any, base: str, table: str, token: str) -> int:
    """Send ``EXAMPLES`` generated requests to ``operation``; returns how many were sent."""
    from schemathesis import GenerationMode
    from schemathesis.checks import not_a_server_error
    from schemathesis.generation.hypothesis.builder import add_examples
    from schemathesis.generation.meta import TestPhase
    from schemathesis.specs.openapi.checks import (
        content_type_conformance,
        negative_data_rejection,
        positive_data_acceptance,
        response_headers_conformance,
        response_schema_conformance,
        status_code_conformance,
    )

    checks = [
        not_a_server_error,
        status_code_conformance,
        content_type_conformance,
        response_schema_conformance,
        response_headers_conformance,
    ]
    if mode is GenerationMode.NEGATIVE:
        # Data the document calls invalid must be refused: the document says no less
        # than the server refuses.
        checks.append(negative_data_rejection)
    count = 0

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy(generation_mode=mode))
    def run(case: Any) -> None:
        nonlocal count
        count += 1
        headers: dict[str, str] = {}
        if case.path_parameters and "table" in case.path_parameters and count % 2:
            case.path_parameters["table"] = table
            headers = bearer(token)
        example = case.meta is not None and case.meta.phase.name == TestPhase.EXAMPLES
        # The document's own examples must be accepted (or refused only for the token).
        extra = [positive_data_acceptance] if example else []
        case.call_and_validate(base_url=base, headers=headers, checks=[*checks, *extra])

    if mode is GenerationMode.POSITIVE:
        # The document's examples (a table on a preset, one on a whole config, bots by
        # name, an empty claim) are sent first, in the explicit phase.
        run = add_examples(run, operation, fill_missing=False)
    try:
        run()
    except Unsatisfiable:
        # Nothing to make invalid (no parameter, no body): only negative mode says so.
        assert mode is GenerationMode.NEGATIVE, operation.label
    return count


def test_schemathesis_finds_no_server_error_and_nothing_undocumented(
    client: httpx.Client, server: ServerProcess
) -> None:
    schemathesis = pytest.importorskip("schemathesis")
    # Every operation of the served document, with valid data and with invalid data; half
    # the requests that name a table go to a real one, with a real seat's token.
    table = client.post("/api/tables", json={"players": 3}).json()["table"]
    token = client.post(f"/api/tables/{table}/seats/2").json()["token"]
    SECRETS.append(token)
    schema = schemathesis.openapi.from_url(f"{server.base}/api/openapi.json")
    sent = 0
    for result in schema.get_all_operations():
        for mode in schemathesis.GenerationMode:
            sent += _fuzz(result.ok(), mode, server.base, table, token)
    assert sent >= EXAMPLES * len(DOC["paths"])
    assert "Traceback" not in server.log_text()


# ------------------------------------------------------------ hostile bodies

_ODD = ["0", "1", "00", "01", "002", "-1", "+1", "1" * 5000, "0" * 5000, "\u0663", " 1", ""]
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | st.sampled_from(["greedy", "random", "seeds", "published", *_ODD])
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
SEATS = st.sampled_from(_ODD) | st.text(max_size=6)
_VALID = {"players": 3, "max_turns": 2, "bots": {"1": "greedy", "2": "random"}, "seed": 1}
_HOSTILE = {
    "players": st.integers(-1, 9) | JSON,
    "preset": st.sampled_from(["seeds", "seeds@1", "published", "nope"]) | JSON,
    "config": st.just(RuleConfig(max_turns_per_round=2).to_dict()) | JSON,
    "max_turns": st.integers(-1, 3) | JSON,
    "bots": st.dictionaries(
        st.sampled_from(["0", "1", "2"]) | SEATS,
        st.sampled_from(["greedy", "random", "x"])
        | st.lists(SCALARS, max_size=2)
        | st.dictionaries(st.text(max_size=3), SCALARS, max_size=2)
        | SCALARS,
        min_size=1,
        max_size=3,
    )
    | JSON,
    "seed": st.integers(-1, 2**64) | JSON,
    "colour": JSON,
}
NEW_TABLES = st.sampled_from(sorted(_HOSTILE)).flatmap(
    lambda key: _HOSTILE[key].map(lambda value: {**_VALID, key: value})
)
"""A table that would be created but for one key, whose value is hostile."""
FUZZ = settings(
    max_examples=100,
    derandomize=True,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)


def test_hostile_bodies_and_paths_get_a_4xx_or_a_table(
    client: httpx.Client, server: ServerProcess
) -> None:
    table = client.post("/api/tables", json={"players": 3}).json()["table"]
    token = client.post(f"/api/tables/{table}/seats/0").json()["token"]
    SECRETS.append(token)

    @FUZZ
    @given(body=NEW_TABLES)
    def create(body: Any) -> None:
        check(client.post("/api/tables", json=body), "/api/tables")

    @FUZZ
    @given(body=JSON)
    def create_from_anything(body: Any) -> None:
        check(client.post("/api/tables", json=body), "/api/tables")

    @FUZZ
    @given(seat=SEATS, body=st.none() | JSON)
    def claim(seat: str, body: Any) -> None:
        path = f"/api/tables/{table}/seats/{quote(seat, safe='')}"
        answer = client.post(path) if body is None else client.post(path, json=body)
        if answer.status_code != 404 or answer.json()["error"] != "not_found":
            check(answer, "/api/tables/{table}/seats/{seat}")

    @FUZZ
    @given(
        action=JSON
        | st.fixed_dictionaries(
            {"type": st.sampled_from(["reveal", "swap", "pass"])}, optional={"pos": JSON, "x": JSON}
        ),
        version=st.just(0) | JSON,
        svg=SEATS,
        lang=SEATS,
    )
    def move(action: Any, version: Any, svg: str, lang: str) -> None:
        answer = client.post(
            f"/api/tables/{table}/moves",
            params={"svg": svg, "lang": lang},
            json={"action": action, "version": version},
            headers=bearer(token),
        )
        check(answer, "/api/tables/{table}/moves")

    create()
    create_from_anything()
    claim()
    move()
    assert "Traceback" not in server.log_text()


# ---------------------------------------------------------------- a seat's name


def test_a_name_given_at_joining_is_shown_to_everyone_as_text(client: httpx.Client) -> None:
    from allegra_rules.server.seats import NAME_LENGTH, NAME_PATTERN

    path = "/api/tables/{table}/seats/{seat}"
    # The document's rule for a name is the server's.
    schema = DOC["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert schema["properties"]["name"]["pattern"] == NAME_PATTERN
    assert schema["properties"]["name"]["maxLength"] == NAME_LENGTH
    created = check(client.post("/api/tables", json={"players": 3}), "/api/tables").json()
    table = created["table"]
    seats = f"/api/tables/{table}/seats"
    # Names that are none: refused with the code that says so, and the seat stays free.
    for bad in ("x" * (NAME_LENGTH + 1), "Ada\nBen", "\u202eadA", 7, None, ["Ada"]):
        error_of(client.post(f"{seats}/1", json={"name": bad}), path, 422, "bad_name")
    error_of(client.post(f"{seats}/1", json={"name": "Ada", "x": 1}), path, 400, "bad_body")
    error_of(client.post(f"{seats}/1", json=["Ada"]), path, 400, "bad_body")
    # A name with markup in it: kept as text, spaces around it left out.
    given = " <b>Ada</b> & co "
    token = check(client.post(f"{seats}/1", json={"name": given}), path).json()["token"]
    mine = check(client.post(f"{seats}/0"), path).json()["token"]
    check(client.post(f"{seats}/2", json={"name": "   "}), path)  # spaces only: no name
    info = check(client.get(f"/api/tables/{table}"), "/api/tables/{table}").json()
    assert [seat.get("name") for seat in info["seats"]] == [None, "<b>Ada</b> & co", None]
    assert "name" not in info["seats"][0]  # the key is only there for a name given
    assert token not in json.dumps(info)
    # Every other seat's picture (and the public one) names the seat by it, escaped.
    for headers in (bearer(mine), {}):
        view = client.get(f"/api/tables/{table}/view?svg=1", headers=headers)
        picture = check(view, "/api/tables/{table}/view").json()["svg"]
        assert "&lt;b&gt;Ada&lt;/b&gt; &amp; co" in picture and "<b>" not in picture
        assert ">Player 2<" not in picture and ">Player 3<" in picture
    # The seat's own picture says "You"; a freed seat loses its name.
    own = client.get(f"/api/tables/{table}/view?svg=1", headers=bearer(token)).json()["svg"]
    assert "&lt;b&gt;Ada" not in own
    creator = bearer(created["creator_token"])
    check(client.delete(f"{seats}/1", headers=creator), path)
    info = client.get(f"/api/tables/{table}").json()
    assert info["seats"][1] == {"seat": 1, "bot": None, "taken": False}
