"""The hosts a table server answers to, and the origins whose writes and sockets it takes.

``AllowedHosts`` and ``serving_hosts`` on their own, then a real server process on
127.0.0.1 started with ``--allowed-hosts tables.example.org,lan.example:8443
--proxy-headers``: a request whose ``Host`` is not allowed gets a JSON 400 with the
security headers (a socket's handshake too), whatever ``X-Forwarded-Host`` says; a
``POST`` or ``DELETE`` whose ``Origin`` is not the server's own under an allowed host gets
403, a socket closes with 4403; the loopback names and the configured public name work.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the server extra is not installed")
pytest.importorskip("uvicorn", reason="the server extra is not installed")
httpx = pytest.importorskip("httpx")
ws_client = pytest.importorskip("websockets.sync.client")
from websockets.exceptions import ConnectionClosed, InvalidStatus

from allegra_rules.cli import main
from allegra_rules.server.app import CLOSE_FORBIDDEN_ORIGIN, CONTENT_SECURITY_POLICY
from allegra_rules.server.hosts import LOOPBACK_HOSTS, AllowedHosts, host_entry, serving_hosts
from openapi_check import check_answer
from server_process import ServerProcess

PUBLIC = "tables.example.org"
"""The public name the module's server is told it is reached by."""

# ------------------------------------------------------------------ the rules


@pytest.mark.parametrize(
    ("text", "entry"),
    [
        ("Tables.Example.ORG", "tables.example.org"),
        ("example.org:8443", "example.org:8443"),
        ("::1", "[::1]"),
        ("[0:0::1]:8000", "[::1]:8000"),
        (" 192.168.1.5 ", "192.168.1.5"),
    ],
)
def test_host_entries_are_written_one_way(text: str, entry: str) -> None:
    assert host_entry(text) == entry


@pytest.mark.parametrize(
    "text", ["", "a b", "example.org/x", "example.org:0", "example.org:99999", "[::g]", "u@h"]
)
def test_a_bad_host_entry_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a"):
        host_entry(text)


def test_the_host_header_must_name_an_allowed_host() -> None:
    hosts = AllowedHosts.of([PUBLIC, "lan.example:8443"])
    assert set(LOOPBACK_HOSTS) <= hosts.entries
    for header in ("127.0.0.1:8000", "LOCALHOST", "[::1]:80", PUBLIC, "lan.example:8443"):
        assert hosts.allows_host_header(header, "http"), header
    for header in (None, "", "evil.example", f"{PUBLIC}.evil.example", "lan.example:8000"):
        assert not hosts.allows_host_header(header, "http"), header
    # A header without a port names the scheme's default port.
    assert not hosts.allows_host_header("lan.example", "https")
    assert AllowedHosts.of(["lan.example:443"]).allows_host_header("lan.example", "wss")


def test_an_origin_must_be_the_servers_own_under_an_allowed_host() -> None:
    hosts = AllowedHosts.of([PUBLIC])
    assert hosts.allows_origin("http://127.0.0.1:8000", "http", "127.0.0.1:8000")
    assert hosts.allows_origin(f"https://{PUBLIC}", "https", PUBLIC)
    assert hosts.allows_origin(f"https://{PUBLIC}", "wss", f"{PUBLIC}:443")
    refused = [
        ("http://evil.example:8000", "http", "evil.example:8000"),  # rebinding: not allowed
        ("http://localhost:8000", "http", "127.0.0.1:8000"),  # another name: another origin
        ("http://127.0.0.1:8001", "http", "127.0.0.1:8000"),
        (f"http://{PUBLIC}", "https", PUBLIC),
        ("null", "http", "127.0.0.1:8000"),
        ("http://127.0.0.1:8000/", "http", "127.0.0.1:8000"),
        ("http://u@127.0.0.1:8000", "http", "127.0.0.1:8000"),
        ("ftp://127.0.0.1:8000", "http", "127.0.0.1:8000"),
        ("http://127.0.0.1:99999", "http", "127.0.0.1:99999"),
        ("http://127.0.0.1:8000", "http", None),
    ]
    for origin, scheme, host in refused:
        assert not hosts.allows_origin(origin, scheme, host), origin


def test_every_interface_needs_allowed_hosts() -> None:
    for wildcard in ("0.0.0.0", "::", ""):
        with pytest.raises(ValueError, match="--allowed-hosts"):
            serving_hosts(wildcard, None)
    assert serving_hosts("0.0.0.0", [PUBLIC, "Lan.Example"]) == [PUBLIC, "lan.example"]
    assert serving_hosts("0.0.0.0", []) == []  # said so: the loopback names only
    assert serving_hosts("127.0.0.1", None) == []
    assert serving_hosts("192.168.1.5", None) == ["192.168.1.5"]
    assert serving_hosts("::1", [PUBLIC]) == [PUBLIC]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--host", "0.0.0.0"], "listens on every interface"),
        (["--host", "::"], "--allowed-hosts"),
        (["--allowed-hosts", "example.org/x"], "not a host name"),
        (["--allowed-hosts", "example.org:0"], "not a port"),
    ],
)
def test_serve_refuses_every_interface_without_allowed_hosts(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", "--port", "8123", *args]) == 2
    assert message in capsys.readouterr().err


# ------------------------------------------------------------------ a server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("hosts") / "tables.db"
    args = ("--allowed-hosts", f"{PUBLIC},lan.example:8443", "--proxy-headers")
    with ServerProcess(Path(db), *args) as running:
        yield running


@pytest.fixture(scope="module")
def client(server: ServerProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.base, timeout=10) as opened:
        yield opened


def _refused_host(answer: httpx.Response) -> None:
    assert answer.status_code == 400, answer.text
    assert answer.headers["content-type"] == "application/json"
    assert answer.json()["error"] == "host_not_allowed"
    assert set(answer.json()) == {"error", "message"}
    assert answer.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert answer.headers["x-frame-options"] == "DENY"
    assert "evil" not in answer.text


def test_a_host_that_is_not_allowed_gets_a_json_400(
    client: httpx.Client, server: ServerProcess
) -> None:
    table = client.post("/api/tables", json={"players": 2}).json()["table"]
    for host in ("evil.example", f"evil.example:{server.port}", "lan.example:8000", "a b"):
        evil = {"Host": host}
        for method, path in [
            ("GET", "/"),
            ("GET", "/static/app.js"),
            ("GET", "/api/openapi.json"),
            ("GET", f"/api/tables/{table}"),
            ("GET", "/nope"),
            ("POST", "/api/tables"),
            ("POST", f"/api/tables/{table}/seats/0"),
            ("DELETE", f"/api/tables/{table}/seats/0"),
        ]:
            _refused_host(client.request(method, path, headers=evil))
    # A DNS rebinding page sends its own name as Host and as Origin: refused at the Host.
    rebound = {
        "Host": f"evil.example:{server.port}",
        "Origin": f"http://evil.example:{server.port}",
    }
    _refused_host(client.post("/api/tables", json={"players": 2}, headers=rebound))
    # X-Forwarded-Host is never read, even from a trusted proxy.
    forwarded = {"Host": "evil.example", "X-Forwarded-Host": f"127.0.0.1:{server.port}"}
    _refused_host(client.get(f"/api/tables/{table}", headers=forwarded))
    passed = client.get(f"/api/tables/{table}", headers={"X-Forwarded-Host": "evil.example"})
    assert passed.status_code == 200
    assert client.get(f"/api/tables/{table}").json()["seats"][0]["taken"] is False


def test_a_request_without_a_host_is_refused(server: ServerProcess) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
        raw.sendall(b"GET /api/openapi.json HTTP/1.0\r\n\r\n")
        answer = b""
        while chunk := raw.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]
    assert b'"error":"host_not_allowed"' in answer


def test_the_loopback_names_and_the_allowed_ones_are_served(
    client: httpx.Client, server: ServerProcess
) -> None:
    port = server.port
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "LocalHost"):
        assert check_answer(client.get("/api/openapi.json", headers={"Host": host})).is_success
    # The public name, behind a TLS proxy (--proxy-headers: X-Forwarded-Proto).
    public = {"Host": PUBLIC, "X-Forwarded-Proto": "https", "Origin": f"https://{PUBLIC}"}
    created = check_answer(client.post("/api/tables", json={"players": 2}, headers=public))
    assert created.status_code == 201, created.text
    table, creator = created.json()["table"], created.json()["creator_token"]
    claimed = check_answer(client.post(f"/api/tables/{table}/seats/0", headers=public))
    assert claimed.status_code == 201
    freed = client.delete(
        f"/api/tables/{table}/seats/0",
        headers={**public, "Authorization": f"Bearer {creator}"},
    )
    assert check_answer(freed).status_code == 200
    assert freed.json()["seats"][0]["taken"] is False
    # The name with the one port it is allowed on.
    lan = {"Host": "lan.example:8443", "Origin": "http://lan.example:8443"}
    assert client.post(f"/api/tables/{table}/seats/1", headers=lan).status_code == 201


def test_a_write_from_another_origin_is_refused(
    client: httpx.Client, server: ServerProcess
) -> None:
    created = client.post("/api/tables", json={"players": 3}).json()
    table, creator = created["table"], created["creator_token"]
    own = f"http://127.0.0.1:{server.port}"
    public = {"Host": PUBLIC, "X-Forwarded-Proto": "https"}
    creator_auth = {"Authorization": f"Bearer {creator}"}
    for headers in (
        {"Origin": "http://evil.example"},
        {"Origin": f"http://{PUBLIC}"},  # an allowed name, but not the origin it was sent to
        {**public, "Origin": f"http://{PUBLIC}"},  # http page, https server
        {**public, "Origin": "https://evil.example"},
        {"Host": PUBLIC, "Origin": f"https://{PUBLIC}"},  # no X-Forwarded-Proto: http
        {"Origin": f"{own}/"},
    ):
        for answer in (
            client.post("/api/tables", json={"players": 2}, headers=headers),
            client.post(f"/api/tables/{table}/seats/0", headers=headers),
            client.post(f"/api/tables/{table}/seats/1/bot", headers={**headers, **creator_auth}),
            client.delete(f"/api/tables/{table}/seats/2", headers={**headers, **creator_auth}),
        ):
            assert answer.status_code == 403, (headers, answer.request.url, answer.text)
            assert check_answer(answer).json()["error"] == "cross_origin"
    facts = client.get(f"/api/tables/{table}").json()
    assert [s["taken"] or s["bot"] is not None for s in facts["seats"]] == [False] * 3
    # The server's own origin, and no Origin at all (a program, not a page), are served.
    assert client.post(f"/api/tables/{table}/seats/2", headers={"Origin": own}).status_code == 201
    answer = client.delete(f"/api/tables/{table}/seats/2", headers={"Origin": own, **creator_auth})
    assert answer.status_code == 200
    assert client.post(f"/api/tables/{table}/seats/1/bot", headers=creator_auth).is_success


def _close_code(url: str, **options: object) -> int:
    with ws_client.connect(url, **options) as sock, pytest.raises(ConnectionClosed) as closed:
        sock.recv(timeout=10)
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code


def test_a_socket_from_another_origin_closes_with_4403(
    client: httpx.Client, server: ServerProcess
) -> None:
    table = client.post("/api/tables", json={"players": 2}).json()["table"]
    token = client.post(f"/api/tables/{table}/seats/0").json()["token"]
    url = f"{server.ws_base}/ws/tables/{table}"
    assert CLOSE_FORBIDDEN_ORIGIN == 4403
    for origin in ("http://evil.example", f"http://localhost:{server.port}", "null"):
        assert _close_code(f"{url}?token={token}", origin=origin) == 4403, origin
        assert _close_code(f"{server.ws_base}/ws/tables/nosuchtable", origin=origin) == 4403
    # The page's own origin, or none, gets views.
    for origin in (f"http://127.0.0.1:{server.port}", None):
        with ws_client.connect(f"{url}?token={token}", origin=origin) as sock:
            assert '"viewer":0' in sock.recv(timeout=10)
    # The public name, over the public name's connection.
    with (
        socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw,
        ws_client.connect(
            f"ws://{PUBLIC}:{server.port}/ws/tables/{table}",
            sock=raw,
            origin=f"http://{PUBLIC}:{server.port}",
        ) as sock,
    ):
        assert '"viewer":null' in sock.recv(timeout=10)


def test_a_socket_to_a_host_that_is_not_allowed_is_refused(
    client: httpx.Client, server: ServerProcess
) -> None:
    table = client.post("/api/tables", json={"players": 2}).json()["table"]
    with (
        socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw,
        pytest.raises(InvalidStatus) as refused,
    ):
        ws_client.connect(f"ws://evil.example:{server.port}/ws/tables/{table}", sock=raw)
    response = refused.value.response
    assert response.status_code == 400
    assert b'"error":"host_not_allowed"' in response.body
    assert response.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
