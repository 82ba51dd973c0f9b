"""The server's connections: a deadline for request heads, cheap sockets, open files.

uvicorn has no timeout for a request's head: a client that sends one header line every
few seconds holds its connection (and a file descriptor) for as long as it likes.
[`HeadDeadlineProtocol`][allegra_rules.server.connections.HeadDeadlineProtocol] is
uvicorn's HTTP protocol (httptools, else h11) with one: a connection whose request head
is not complete ``header_timeout`` seconds after the connection opened, or after the
first byte of the next request on a kept-alive connection, is closed.

[`PictureDeflateProtocol`][allegra_rules.server.connections.PictureDeflateProtocol] is
uvicorn's WebSocket protocol (websockets, sans-I/O) that compresses (permessage-deflate)
only the sockets that ask for pictures (``svg=1``): the zlib contexts of compression
cost some 40 KiB a socket, more than the rest of a socket without them.

[`connection_caps`][allegra_rules.server.connections.connection_caps] shares the
process's open files between sockets and HTTP connections so that neither can starve
the other; ``serve`` raises the soft open-files limit to the hard one first
([`raise_open_files_limit`][allegra_rules.server.connections.raise_open_files_limit]).
"""

from __future__ import annotations

import asyncio
import os
from typing import cast
from urllib.parse import parse_qsl

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _HttpProtocol
except ImportError:  # pragma: no cover - uvicorn[standard] brings httptools
    from uvicorn.protocols.http.h11_impl import H11Protocol as _HttpProtocol  # type: ignore[assignment]

__all__ = [
    "HEADER_TIMEOUT",
    "HEADER_TIMEOUT_VARIABLE",
    "RESERVED_FILES",
    "HeadDeadlineProtocol",
    "PictureDeflateProtocol",
    "connection_caps",
    "raise_open_files_limit",
]

HEADER_TIMEOUT = 10.0
"""Seconds a client may take to send a request's head (its request line and headers)."""

HEADER_TIMEOUT_VARIABLE = "ALLEGRA_SERVER_HEADER_TIMEOUT"
"""The environment variable through which ``serve`` hands ``header_timeout`` to its workers."""

RESERVED_FILES = 64
"""Open files ``connection_caps`` keeps for the process itself: database, logs, pipes."""


def _header_timeout() -> float:
    """``HEADER_TIMEOUT_VARIABLE``'s seconds when it holds a positive number, else the default."""
    try:
        seconds = float(os.environ.get(HEADER_TIMEOUT_VARIABLE, ""))
    except ValueError:
        return HEADER_TIMEOUT
    return seconds if 0 < seconds < float("inf") else HEADER_TIMEOUT


class HeadDeadlineProtocol(_HttpProtocol):
    """uvicorn's HTTP protocol, closing a connection whose request head comes too slowly.

    The deadline, ``header_timeout`` seconds, starts when the connection opens and,
    on a kept-alive connection, at the first byte of each later request; it ends when
    the head is complete (the request goes to the application, or the connection
    becomes a WebSocket). A connection that sends nothing at all is closed as well.
    A request's body has its own deadline (``create_app``'s ``body_timeout``).

    ``header_timeout`` is a class attribute: ``serve`` sets it, and a worker process
    reads it from ``HEADER_TIMEOUT_VARIABLE`` when it imports this module.
    """

    header_timeout: float = _header_timeout()
    _head_timer: asyncio.TimerHandle | None = None
    _head_transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Start the deadline of the first request's head."""
        super().connection_made(transport)  # type: ignore[arg-type]
        self._head_transport = cast(asyncio.Transport, transport)  # uvloop's is no subclass
        self._start_head_timer()

    def data_received(self, data: bytes) -> None:
        """Start the deadline at a request's first byte; stop it once the head is in."""
        cycle = self.cycle
        if self._head_timer is None and (cycle is None or cycle.response_complete):
            self._start_head_timer()
        super().data_received(data)
        transport = self._head_transport
        if self._head_timer is not None and (
            self.cycle is not cycle
            or (transport is not None and transport.get_protocol() is not self)
        ):
            self._stop_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the deadline."""
        self._stop_head_timer()
        super().connection_lost(exc)

    def _start_head_timer(self) -> None:
        self._head_timer = asyncio.get_running_loop().call_later(
            self.header_timeout, self._head_too_slow
        )

    def _stop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_too_slow(self) -> None:
        self._head_timer = None
        transport = self._head_transport
        if (
            transport is not None
            and transport.get_protocol() is self
            and not transport.is_closing()
        ):
            transport.close()


_PICTURES = frozenset({"1", "true"})


class PictureDeflateProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, compressing only the sockets that carry pictures.

    A socket whose query asks for pictures (``svg=1`` or ``svg=true``) is offered
    permessage-deflate (when uvicorn's ``ws_per_message_deflate`` is on and the
    client asks for it); any other socket is not, and costs no zlib contexts.
    """

    def handle_connect(self, event: Request) -> None:
        """Leave out compression unless the socket's query asks for pictures."""
        query = event.path.partition("?")[2]
        svg = [value for name, value in parse_qsl(query) if name == "svg"]
        if not (svg and svg[-1] in _PICTURES):
            self.conn.available_extensions = []
        super().handle_connect(event)


def raise_open_files_limit() -> tuple[int, int] | None:
    """Raise the process's soft limit of open files (``RLIMIT_NOFILE``) to its hard limit.

    Returns:
        The soft limit before and after, or ``None`` where the platform has no such
        limit (no ``resource`` module). A hard limit of "unlimited" that the kernel
        refuses as a soft limit leaves the soft limit as it was.
    """
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            return soft, soft
    after, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft, after


def connection_caps(open_files: int, max_sockets: int) -> tuple[int, int]:
    """How many sockets, and how many connections in all, fit ``open_files`` open files.

    ``RESERVED_FILES`` are kept for the process; of the rest, an eighth (at least 16)
    is room for HTTP connections, counted twice (a connection sending a static file
    holds the file open as well). The sockets get what is left, at most
    ``max_sockets``; the connections in all (uvicorn's ``limit_concurrency``, past
    which an HTTP request is answered with 503) are the sockets plus the HTTP room.
    So sockets at their cap leave every HTTP request its connection, and neither
    reaches the open-files limit.

    Args:
        open_files: the process's (soft) open-files limit.
        max_sockets: the most sockets wanted.

    Returns:
        ``(sockets, limit_concurrency)``.
    """
    usable = max(0, open_files - RESERVED_FILES)
    http_room = max(16, usable // 8)
    sockets = max(0, min(max_sockets, usable - 2 * http_room))
    return sockets, sockets + http_room
