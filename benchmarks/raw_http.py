"""What the server benchmarks share: a free port, and a raw HTTP/1.1 keep-alive client.

``Http`` speaks just enough HTTP/1.1 over one asyncio connection to make requests cheap
on the CPU (a benchmark's clients must not be what limits it): ``request`` answers the
status and the body's bytes, ``request_json`` the status and the parsed body. When the
server closes an idle keep-alive connection before reading a request (uvicorn's
keep-alive timeout) it connects again and sends the request again, once. A move sent
twice that way is refused as stale the second time, never applied twice.
"""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Http:
    """A minimal HTTP/1.1 keep-alive client on one connection to 127.0.0.1:``port``."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, bytes]:
        """The status and the body of one request (``body`` sent as JSON)."""
        data = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(data)}\r\n"
        if body is not None:
            head += "Content-Type: application/json\r\n"
        if token is not None:
            head += f"Authorization: Bearer {token}\r\n"
        message = head.encode() + b"\r\n" + data
        for attempt in (1, 2):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
            assert self.reader is not None
            try:
                self.writer.write(message)
                status_line = await self.reader.readline()
                if not status_line:
                    raise ConnectionResetError("closed")
                status = int(status_line.split()[1])
                length = 0
                while (line := await self.reader.readline()) not in (b"\r\n", b""):
                    name, _, value = line.decode().partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                return status, await self.reader.readexactly(length)
            except (ConnectionResetError, BrokenPipeError, asyncio.IncompleteReadError):
                self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def request_json(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        """The status and the parsed JSON body (``None`` for an empty one) of a request."""
        status, payload = await self.request(method, path, body, token)
        return status, json.loads(payload) if payload else None

    def close(self) -> None:
        """Close the connection (the next request opens another)."""
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None
