"""The table server's connections: socket caps, the request head's deadline, open files.

``client_key`` (IPv4 whole, IPv6 by /64), ``SocketCaps`` and ``connection_caps`` on their
own; then real server processes on 127.0.0.1 (tests/server_process.py, SQLite): sockets
past the per-client cap close with 4429 and past the global cap with 1013, each logged
once, while ``GET /`` and table creation go on; a server with a small open-files limit
keeps answering HTTP with its sockets at their cap; a request head sent one line a
second is cut off, a normal request is not; only sockets with pictures are compressed.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the server extra is not installed")
pytest.importorskip("uvicorn", reason="the server extra is not installed")
httpx = pytest.importorskip("httpx")
ws_client = pytest.importorskip("websockets.sync.client")
from websockets.exceptions import ConnectionClosed

from allegra_rules.server import client_key
from allegra_rules.server.app import CLOSE_SERVER_BUSY, CLOSE_TOO_MANY_SOCKETS
from allegra_rules.server.connections import RESERVED_FILES, connection_caps
from allegra_rules.server.limits import REFUSAL_LINES, SocketCaps
from server_process import ServerProcess

# --------------------------------------------------------------------- client_key


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("198.51.100.7", "198.51.100.7"),
        ("127.0.0.1", "127.0.0.1"),
        ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"),
        ("2001:db8:1:2::1", "2001:db8:1:2::/64"),
        ("2001:DB8:1:3::1", "2001:db8:1:3::/64"),
        ("::1", "::/64"),
        ("fe80::1%eth0", "fe80::/64"),
        ("::ffff:198.51.100.7", "198.51.100.7"),
        ("unknown", "unknown"),
        ("/run/allegra.sock", "/run/allegra.sock"),
    ],
)
def test_client_key_keeps_ipv4_whole_and_groups_ipv6_by_64(address: str, key: str) -> None:
    assert client_key(address) == key


def test_client_key_tells_neighbouring_networks_apart() -> None:
    assert client_key("198.51.100.7") != client_key("198.51.100.8")
    assert client_key("2001:db8:0:1::5") == client_key("2001:db8:0:1:ffff::9")
    assert client_key("2001:db8:0:1::5") != client_key("2001:db8:0:2::5")


# --------------------------------------------------------------------- SocketCaps


def test_socket_caps_count_per_client_and_in_all() -> None:
    caps = SocketCaps(max_sockets=3, max_per_client=2)
    assert caps.open("a") is None and caps.open("a") is None
    assert caps.open("a") == SocketCaps.CLIENT
    assert caps.open("b") is None
    assert caps.open("c") == SocketCaps.GLOBAL
    assert (caps.total, caps.count("a"), caps.count("b")) == (3, 2, 1)
    caps.close("a")
    assert caps.open("c") is None
    for key in ("a", "b", "c"):
        caps.close(key)
    assert caps.total == 0 and caps.count("a") == 0 and caps.open("a") is None


def test_socket_refusals_are_logged_once_a_minute_with_a_count(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caps = SocketCaps(max_sockets=100, max_per_client=1, log_every=60.0)
    caps.open("a", now=0.0)
    with caplog.at_level(logging.WARNING, logger="allegra_rules.server"):
        for k in range(1000):
            assert caps.open("a", now=k * 0.01) == SocketCaps.CLIENT
        assert len(caplog.records) == 1
        assert caps.open("a", now=61.0) == SocketCaps.CLIENT
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2 and "client a" in lines[0]
    assert "1000 refused" in lines[1], lines


def test_many_clients_cannot_flood_the_log(caplog: pytest.LogCaptureFixture) -> None:
    caps = SocketCaps(max_sockets=100, max_per_client=1, log_every=60.0)
    with caplog.at_level(logging.WARNING, logger="allegra_rules.server"):
        for k in range(500):
            caps.open(f"10.0.{k // 250}.{k % 250}", now=0.0)
            caps.open(f"10.0.{k // 250}.{k % 250}", now=1.0)
    assert len(caplog.records) == REFUSAL_LINES


# ---------------------------------------------------------------- connection_caps


@pytest.mark.parametrize("open_files", [256, 1024, 4096, 65536])
def test_connection_caps_fit_the_open_files(open_files: int) -> None:
    sockets, concurrency = connection_caps(open_files, 10**9)
    http = concurrency - sockets
    assert sockets > open_files // 2 and http >= 16
    # Sockets at their cap and every HTTP connection sending a file: still under the limit.
    assert sockets + 2 * http + RESERVED_FILES <= open_files
    assert connection_caps(open_files, 10) == (10, 10 + http)


# ------------------------------------------------------------- a server's sockets


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    with ServerProcess(
        tmp_path / "tables.db",
        "--max-sockets",
        "5",
        "--max-sockets-per-client",
        "2",
        "--header-timeout",
        "2",
    ) as running:
        yield running


def new_table(base: str) -> str:
    answer = httpx.post(f"{base}/api/tables", json={"players": 2}, timeout=30)
    assert answer.status_code == 201, answer.text
    table: str = answer.json()["table"]
    return table


def close_code(url: str, address: str = "127.0.0.1") -> int | None:
    """The code a socket from ``address`` is closed with before a view; None: it got one."""
    with ws_client.connect(url, source_address=(address, 0), open_timeout=10) as sock:
        try:
            sock.recv(timeout=10)
        except ConnectionClosed as closed:
            return None if closed.rcvd is None else closed.rcvd.code
        return None


def test_sockets_past_a_cap_close_and_http_goes_on(server: ServerProcess) -> None:
    table = new_table(server.base)
    url = f"{server.ws_base}/ws/tables/{table}"
    with contextlib.ExitStack() as stack:
        for address in ("127.0.0.1", "127.0.0.1", "127.0.0.2", "127.0.0.3"):
            sock = stack.enter_context(ws_client.connect(url, source_address=(address, 0)))
            assert '"version":0' in sock.recv(timeout=10)
        for _ in range(3):
            assert close_code(url) == CLOSE_TOO_MANY_SOCKETS
        assert close_code(url, "127.0.0.4") is None  # the fifth: a view
        assert close_code(url, "127.0.0.4") is None  # the fifth again, once it closed
        held = stack.enter_context(ws_client.connect(url, source_address=("127.0.0.4", 0)))
        held.recv(timeout=10)
        for address in ("127.0.0.5", "127.0.0.6"):
            assert close_code(url, address) == CLOSE_SERVER_BUSY
        # Everyone else's HTTP requests are answered all the same.
        assert httpx.get(f"{server.base}/", timeout=10).status_code == 200
        new_table(server.base)
    # All closed: the places are free again.
    assert close_code(url) is None
    log = server.log_text()
    assert log.count("client 127.0.0.1 holds 2 sockets") == 1, log
    assert log.count("the server holds 5 sockets") == 1, log


def test_a_small_open_files_limit_leaves_http_answering(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "tables.db", open_files=160) as server:
        sockets, concurrency = connection_caps(160, 10_000)
        assert f"at most {sockets} sockets, {concurrency} connections" in server.log_text()
        table = new_table(server.base)
        url = f"{server.ws_base}/ws/tables/{table}"
        with contextlib.ExitStack() as stack:
            for k in range(sockets):
                address = f"127.0.{k // 40}.{k % 40 + 1}"
                stack.enter_context(ws_client.connect(url, source_address=(address, 0))).recv(
                    timeout=10
                )
            assert close_code(url, "127.0.9.9") == CLOSE_SERVER_BUSY
            for _ in range(20):
                assert httpx.get(f"{server.base}/", timeout=10).status_code == 200
            new_table(server.base)
        assert server.process.poll() is None


# ------------------------------------------------------------ the head's deadline


def test_a_slow_request_head_is_closed(server: ServerProcess) -> None:
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
        raw.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        closed_after = None
        for k in range(12):  # twelve lines, one a second, unless cut off
            time.sleep(1)
            try:
                raw.sendall(f"X-Slow-{k}: {k}\r\n".encode())
            except OSError:
                closed_after = time.monotonic() - started
                break
            raw.setblocking(False)
            try:
                if raw.recv(1024) == b"":
                    closed_after = time.monotonic() - started
                    break
            except BlockingIOError:
                pass
            except OSError:
                closed_after = time.monotonic() - started
                break
            finally:
                raw.setblocking(True)
    assert closed_after is not None and closed_after < 6, closed_after


def test_a_silent_connection_is_closed(server: ServerProcess) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
        started = time.monotonic()
        assert raw.recv(1024) == b""
        assert time.monotonic() - started < 6


def test_a_slow_head_on_a_kept_alive_connection_is_closed(server: ServerProcess) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
        # A normal request, answered, its connection kept alive ...
        raw.sendall(b"GET /api/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += raw.recv(65536)
        assert answer.startswith(b"HTTP/1.1 200")
        # ... then a second one sent slowly (each line within the keep-alive timeout).
        time.sleep(1.5)
        raw.sendall(b"GET / HTTP/1.1\r\n")
        started = time.monotonic()
        with contextlib.suppress(OSError):
            for k in range(8):
                time.sleep(1)
                raw.sendall(f"X-Slow-{k}: {k}\r\n".encode())
        assert time.monotonic() - started < 5
        raw.settimeout(5)
        with contextlib.suppress(ConnectionResetError):
            rest = raw.recv(65536)
            while rest:  # the rest of the first answer, then the close
                rest = raw.recv(65536)


def test_requests_and_sockets_still_work_with_a_deadline(server: ServerProcess) -> None:
    with httpx.Client(base_url=server.base, timeout=10) as client:
        for _ in range(3):
            assert client.get("/").status_code == 200
            time.sleep(1)  # kept alive across more than the deadline in all
        table = new_table(server.base)
    with ws_client.connect(f"{server.ws_base}/ws/tables/{table}") as sock:
        sock.recv(timeout=10)
        time.sleep(3)  # a socket is no request head: it stays open
        sock.ping().wait(timeout=5)


# ---------------------------------------------------------------- compression


def test_only_sockets_with_pictures_are_compressed(server: ServerProcess) -> None:
    table = new_table(server.base)
    url = f"{server.ws_base}/ws/tables/{table}"
    for query, compressed in (
        ("", False),
        ("?svg=0", False),
        ("?svg=1", True),
        ("?svg=true", True),
    ):
        with ws_client.connect(url + query) as sock:
            assert sock.response is not None
            offered = sock.response.headers.get("Sec-WebSocket-Extensions") or ""
            assert ("permessage-deflate" in offered) is compressed, (query, offered)
            assert '"version":0' in sock.recv(timeout=10)


# ---------------------------------------------------------------- the command line


@pytest.mark.parametrize(
    "args",
    [
        ["--max-sockets", "0"],
        ["--max-sockets-per-client", "0"],
        ["--header-timeout", "0"],
        ["--header-timeout", "nan"],
    ],
)
def test_serve_refuses_bad_socket_limits(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    from allegra_rules.cli import main

    assert main(["serve", *args]) == 2
    assert args[0] in capsys.readouterr().err


def test_serve_names_its_socket_limits(capsys: pytest.CaptureFixture[str]) -> None:
    from allegra_rules.cli import main

    assert main(["serve", "--help"]) == 0
    out = capsys.readouterr().out
    for option in ("--max-sockets", "--max-sockets-per-client", "--header-timeout"):
        assert option in out
