"""The HTTP and WebSocket routes of the table server (a Starlette application).

Routes (see the "Run a server" page of the documentation, and the OpenAPI document the
server publishes at ``GET /api/openapi.json``):

* ``POST /api/tables``: create a table; ``GET /api/tables/{table}``: its seats.
* ``POST /api/tables/{table}/seats/{seat}``: claim a seat for a token.
* ``POST /api/tables/{table}/seats/{seat}/bot``, ``DELETE /api/tables/{table}/seats/{seat}``:
  the table's creator (``Authorization: Bearer <creator token>``) hands a seat to a bot,
  or frees it.
* ``GET /api/tables/{table}/view``: a seat's view (``Authorization: Bearer <token>``)
  or, without a token, the public view.
* ``POST /api/tables/{table}/moves``: a seat's move.
* ``GET /api/tables/{table}/record``: the record of a finished game.
* ``GET /api/openapi.json``: the API as an OpenAPI 3.1 document.
* ``WebSocket /ws/tables/{table}?token=...``: every new view, pushed.
* ``GET /``: the page to play on (``/static/...`` its script and style).

Every refusal is a 4xx with the JSON body ``{"error": "<short code>", "message": "..."}``,
404 and 405 of the router included (a 405's ``Allow`` names every method of the path).
A request whose ``Host`` is not an allowed host (``create_app``'s ``allowed_hosts``, the
loopback names by default; see [`hosts`][allegra_rules.server.hosts]) is refused with
400 ``host_not_allowed``, a socket's handshake included. A ``POST`` with a body needs
``Content-Type: application/json`` (415), and a ``POST`` or ``DELETE`` that sends an
``Origin`` header needs the server's own origin under an allowed host (403). Every
response carries the headers of ``SECURITY_HEADERS``. A socket closes with 4403 (an
``Origin`` that is not allowed), 4400 (bad query), 4401 (bad token), 4404 (unknown
table) or 1011 (server error) before any view, and with 4429 (its client holds
``max_sockets_per_client`` sockets) or 1013 (the server holds ``max_sockets``) before
anything else.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import html
import json
import logging
import math
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from allegra_rules.browser_table import bot_offers

from .backends import open_store, open_transport
from .hosts import AllowedHosts
from .limits import MAX_SOCKETS, MAX_SOCKETS_PER_CLIENT, SocketCaps, client_key
from .store import BOT_LEASE, WAL_LIMIT
from .tables import (
    ABANDONED_AFTER,
    BOT_TABLES_PER_CLIENT,
    BOT_WORKERS,
    IDLE_SECONDS,
    LANGUAGES,
    SEARCH_TABLES_PER_CLIENT,
    SEAT_TIMEOUT,
    TABLES_PER_HOUR,
    VIEW_CACHE_BYTES,
    Refused,
    Table,
    Tables,
    Why,
)

__all__ = [
    "APP_OPTIONS_VARIABLE",
    "BODY_TIMEOUT",
    "CLOSE_BAD_QUERY",
    "CLOSE_BAD_TOKEN",
    "CLOSE_FORBIDDEN_ORIGIN",
    "CLOSE_SERVER_BUSY",
    "CLOSE_SERVER_ERROR",
    "CLOSE_TOO_MANY_SOCKETS",
    "CLOSE_UNKNOWN_TABLE",
    "CONTENT_SECURITY_POLICY",
    "MAX_BODY_BYTES",
    "PLAY_PAGE",
    "SECURITY_HEADERS",
    "STATUS_OF",
    "ApiError",
    "app_from_environment",
    "create_app",
    "openapi_document",
]

log = logging.getLogger("allegra_rules.server")

MAX_BODY_BYTES = 64 * 1024
"""The largest request body the server reads; a larger one is answered with 413."""

BODY_TIMEOUT = 10.0
"""Seconds a request may take to send its whole body; a slower one is answered with 408."""

APP_OPTIONS_VARIABLE = "ALLEGRA_SERVER_APP"
"""The environment variable through which ``serve`` hands its options to its workers.

It holds ``create_app``'s keyword arguments as a JSON object (``db`` included); each
worker process builds its application with ``app_from_environment``.
"""

CLOSE_BAD_QUERY = 4400
"""Socket close code: the query string is wrong (an unknown ``lang``, a bad ``svg``)."""
CLOSE_BAD_TOKEN = 4401
"""Socket close code: the token is no seat's token at this table (or empty)."""
CLOSE_FORBIDDEN_ORIGIN = 4403
"""Socket close code: the page's ``Origin`` is not this server under an allowed host."""
CLOSE_UNKNOWN_TABLE = 4404
"""Socket close code: there is no such table."""
CLOSE_SERVER_ERROR = 1011
"""Socket close code: the server failed (try again later)."""
CLOSE_TOO_MANY_SOCKETS = 4429
"""Socket close code: this client holds ``max_sockets_per_client`` sockets already."""
CLOSE_SERVER_BUSY = 1013
"""Socket close code: the server holds ``max_sockets`` sockets already (try again later)."""

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
"""The ``Content-Security-Policy`` of every response: no inline script or style."""

SECURITY_HEADERS: dict[str, str] = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}
"""Headers every HTTP response carries."""

_STATIC = Path(str(resources.files("allegra_rules.server") / "static"))
_OPENAPI = resources.files("allegra_rules.server") / "openapi.json"
_NO_STORE = {"Cache-Control": "no-store"}

PAGE_BOTS = ("greedy", "search", "policy", "random", "person")
"""What the page offers each other seat when it creates a table, strongest bots first."""


@functools.cache
def _page_html() -> str:
    """The page, with the bots it may offer per rules and seat count (``data-offers``).

    Each seat count of each preset lists only the bots that can play it
    ([`bot_offers`][allegra_rules.browser_table.bot_offers]): the learned policy only
    where this server has NumPy and a network for that table.
    """
    text = (_STATIC / "index.html").read_text(encoding="utf-8")
    offers = html.escape(json.dumps(bot_offers(PAGE_BOTS), separators=(",", ":")))
    play = html.escape(PLAY_PAGE)
    return text.replace(
        '<html lang="en">', f'<html lang="en" data-offers="{offers}" data-play-page="{play}">', 1
    )


PLAY_PAGE = "https://allegra-rules.readthedocs.io/play/"
"""The docs' play page, where the server's page sends a finished game's record to check.

At the end of a game the page links there with the record and the commitment it noted
in the address's fragment, which the browser never sends to any server: the play page
replays the record in the browser (Pyodide) from the committed deal, as
``allegra-rules verify`` does.
"""

_QUERY_SVG = {"0": False, "1": True, "false": False, "true": True}


def openapi_document() -> dict[str, Any]:
    """The server's API as an OpenAPI 3.1 document (what ``GET /api/openapi.json`` sends)."""
    document: dict[str, Any] = json.loads(_OPENAPI.read_text(encoding="utf-8"))
    return document


STATUS_OF: dict[Why, int] = {
    Why.MALFORMED: 400,
    Why.NO_TOKEN: 401,
    Why.NOT_ALLOWED: 403,
    Why.NOT_FOUND: 404,
    Why.CONFLICT: 409,
    Why.GONE: 410,
    Why.INVALID: 422,
    Why.TOO_MANY: 429,
    Why.FULL: 503,
}
"""The HTTP status of each reason the tables refuse a request for (the edge's one mapping)."""


class ApiError(Exception):
    """A request the server refuses, at the HTTP edge: a status, a short code and a message.

    The tables refuse with [`Refused`][allegra_rules.server.refusals.Refused]
    (``ApiError.of`` turns it into one); the edge itself refuses what only HTTP knows (a
    body too large or too slow, a missing content type, a bad query).

    Attributes:
        status: the HTTP status code.
        code: a short machine-readable code, such as ``"stale_version"``.
        message: what was wrong, in words.
        retry_after: seconds for the ``Retry-After`` header, or ``None``.
    """

    def __init__(
        self, status: int, code: str, message: str, *, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after

    @classmethod
    def of(cls, refusal: Refused) -> ApiError:
        """The HTTP refusal of a refusal of the tables (its status from ``STATUS_OF``)."""
        return cls(
            STATUS_OF[refusal.why], refusal.code, refusal.message, retry_after=refusal.retry_after
        )

    def body(self) -> dict[str, str]:
        """The JSON error body, ``{"error": code, "message": message}``."""
        return {"error": self.code, "message": self.message}


def _error(exc: ApiError, headers: dict[str, str] | None = None) -> JSONResponse:
    merged = {**_NO_STORE, **(headers or {})}
    if exc.retry_after is not None:
        merged["Retry-After"] = str(max(1, math.ceil(exc.retry_after)))
    if exc.status in (408, 413):
        # The rest of the body may still be on its way: the connection ends here.
        merged["Connection"] = "close"
    return JSONResponse(exc.body(), status_code=exc.status, headers=merged)


def _json(data: Any, status: int = 200) -> Response:
    return Response(
        json.dumps(data, separators=(",", ":")),
        status_code=status,
        media_type="application/json",
        headers=_NO_STORE,
    )


def _text_json(text: str, status: int = 200) -> Response:
    return Response(text, status_code=status, media_type="application/json", headers=_NO_STORE)


def _has_body(request: Request) -> bool:
    """Whether the request declares a body (a non-zero length, or a chunked one)."""
    if "transfer-encoding" in request.headers:
        return True
    return request.headers.get("content-length", "0") not in ("", "0")


def _check_origin(request: Request, hosts: AllowedHosts) -> None:
    """Refuse a write whose ``Origin`` (when sent) is not the server's own, allowed origin.

    Raises:
        ApiError: 403 ``cross_origin``.
    """
    origin = request.headers.get("origin")
    if origin is not None and not hosts.allows_origin(
        origin, request.url.scheme, request.headers.get("host")
    ):
        raise ApiError(
            403, "cross_origin", "a write must come from the server's own origin (Origin header)"
        )


def _check_write(request: Request, hosts: AllowedHosts, *, body_optional: bool = False) -> None:
    """Refuse a write from another origin, or one whose body is not declared JSON.

    Raises:
        ApiError: 403 for an ``Origin`` that is not the server's own under an allowed
            host, 415 for a ``Content-Type`` other than ``application/json`` (none at
            all is fine only when ``body_optional`` and the request has no body).
    """
    _check_origin(request, hosts)
    kind = request.headers.get("content-type")
    if kind is None and body_optional and not _has_body(request):
        return
    if kind is None or kind.partition(";")[0].strip().lower() != "application/json":
        raise ApiError(
            415, "unsupported_media_type", "send the body as 'Content-Type: application/json'"
        )


async def _read_body(request: Request, timeout: float) -> bytes:
    """The request's body, at most ``MAX_BODY_BYTES``, sent within ``timeout`` seconds.

    Raises:
        ApiError: 413 for a larger body, 408 for one that comes too slowly.
    """
    declared = request.headers.get("content-length")
    if declared is not None and (
        not (declared.isascii() and declared.isdigit())
        or len(declared) > 9
        or int(declared) > MAX_BODY_BYTES
    ):
        raise ApiError(413, "too_large", f"the body must be at most {MAX_BODY_BYTES} bytes")
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(timeout):
            async for chunk in request.stream():
                size += len(chunk)
                if size > MAX_BODY_BYTES:
                    raise ApiError(
                        413, "too_large", f"the body must be at most {MAX_BODY_BYTES} bytes"
                    )
                chunks.append(chunk)
    except TimeoutError:
        raise ApiError(
            408, "body_timeout", f"the body did not arrive within {timeout:g} seconds"
        ) from None
    return b"".join(chunks)


def _parse_json(body: bytes) -> object:
    """The JSON value of a request body.

    Raises:
        ApiError: 400 for a body that is not JSON.
    """
    try:
        return json.loads(body)
    except (ValueError, RecursionError) as exc:
        message = str(exc) if isinstance(exc, ValueError) else "nested too deeply"
        raise ApiError(400, "malformed_json", f"the body is not JSON: {message[:200]}") from None


def _bearer(request: Request) -> str | None:
    """The bearer token of the request, ``None`` without an Authorization header.

    Raises:
        ApiError: 401 for an Authorization header that is not ``Bearer <token>``.
    """
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "bad_authorization", "use the header 'Authorization: Bearer <token>'")
    return token.strip()


def _options(params: Any) -> tuple[bool, str]:
    """``svg`` and ``lang`` of a query string (``?svg=1&lang=de``).

    Raises:
        ApiError: 400 for an unknown language or an ``svg`` other than 0, 1, true, false.
    """
    svg = params.get("svg", "0")
    lang = params.get("lang", "en")
    if svg not in _QUERY_SVG:
        raise ApiError(400, "bad_query", "svg must be 0, 1, false or true")
    if lang not in LANGUAGES:
        raise ApiError(
            400, "bad_query", f"lang must be one of {', '.join(LANGUAGES)}; got {lang[:20]!r}"
        )
    return _QUERY_SVG[svg], lang


Handler = Callable[[Request], Awaitable[Response]]


def _api(handler: Handler) -> Handler:
    """Answer an ``ApiError`` (or a ``Refused``) raised by ``handler`` with its JSON body."""

    async def wrapped(request: Request) -> Response:
        try:
            return await handler(request)
        except ApiError as exc:
            return _error(exc)
        except Refused as exc:
            return _error(ApiError.of(exc))

    return wrapped


def _by_method(handlers: dict[str, Handler]) -> Handler:
    """One handler for the methods of one path: each request to the handler of its method.

    A path is one ``Route`` with all its methods, so that the router's 405 names every
    one of them in ``Allow``.
    """

    async def dispatch(request: Request) -> Response:
        return await handlers[request.method](request)

    return dispatch


class _HostCheck:
    """ASGI middleware: a request (or socket) whose ``Host`` is not allowed gets a JSON 400.

    A socket's handshake is refused with the same answer where the server can send one
    (the ASGI extension ``websocket.http.response``); elsewhere it is closed before it
    is accepted (uvicorn answers 403). ``X-Forwarded-Host`` is never read.
    """

    def __init__(self, app: ASGIApp, hosts: AllowedHosts) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        host = next(
            (value.decode("latin-1") for name, value in scope["headers"] if name == b"host"),
            None,
        )
        if self.hosts.allows_host_header(host, scope.get("scheme", "http")):
            await self.app(scope, receive, send)
            return
        # The message names no host: it would echo the header to whoever sent it.
        response = _error(
            ApiError(
                400,
                "host_not_allowed",
                "this server does not answer to the name in the Host header "
                "(see the option --allowed-hosts)",
            ),
            # A socket's answer bypasses _Guard, which sees only HTTP: its headers here.
            SECURITY_HEADERS if scope["type"] == "websocket" else None,
        )
        if scope["type"] == "websocket" and "websocket.http.response" not in scope.get(
            "extensions", {}
        ):
            await send({"type": "websocket.close", "code": 1008})
            return
        await response(scope, receive, send)


class _Guard:
    """ASGI middleware: the security headers on every response, and no traceback page.

    An exception no handler answered is logged and answered with a JSON 500 (a bug to
    fix: every refusal the server knows of is a 4xx).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.headers = [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
        self.names = {k for k, _ in self.headers}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                kept = [h for h in message.get("headers", []) if h[0].lower() not in self.names]
                message = {**message, "headers": kept + self.headers}
            await send(message)

        try:
            await self.app(scope, receive, guarded_send)
        except Exception:
            log.exception("internal error on %s %s", scope.get("method"), scope.get("path"))
            if started:
                raise
            response = JSONResponse(
                {"error": "internal_error", "message": "the server failed; try again later"},
                status_code=500,
                headers={**_NO_STORE, "Connection": "close"},
            )
            await response(scope, receive, guarded_send)


SocketHandler = Callable[[WebSocket], Awaitable[None]]


def _capped(handler: SocketHandler, caps: SocketCaps) -> SocketHandler:
    """``handler`` behind the socket caps: a socket over a cap is closed before anything else.

    The client is ``client_key`` of the socket's address (behind a trusted proxy, the
    forwarded one); its place is given back when ``handler`` returns.
    """

    async def capped(websocket: WebSocket) -> None:
        key = client_key(websocket.client.host if websocket.client is not None else "unknown")
        refused = caps.open(key)
        if refused is not None:
            if refused == SocketCaps.CLIENT:
                code = CLOSE_TOO_MANY_SOCKETS
                reason = f"this address holds {caps.max_per_client} sockets; close one first"
            else:
                code, reason = CLOSE_SERVER_BUSY, "the server is full; try again later"
            with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
                await websocket.accept()
                await websocket.close(code=code, reason=reason)
            return
        try:
            await handler(websocket)
        finally:
            caps.close(key)

    return capped


def create_app(
    db: str | Path = ":memory:",
    *,
    max_open_tables: int = 1000,
    idle_seconds: float = IDLE_SECONDS,
    abandoned_after: float = ABANDONED_AFTER,
    body_timeout: float = BODY_TIMEOUT,
    view_cache_bytes: int = VIEW_CACHE_BYTES,
    tables_per_hour: int = TABLES_PER_HOUR,
    seat_timeout: float = SEAT_TIMEOUT,
    bot_workers: int = BOT_WORKERS,
    wal_limit: int = WAL_LIMIT,
    bot_lease: float = BOT_LEASE,
    max_sockets: int = MAX_SOCKETS,
    max_sockets_per_client: int = MAX_SOCKETS_PER_CLIENT,
    freeze_startup_objects: bool = False,
    allowed_hosts: Iterable[str] | None = None,
    bot_tables_per_client: int = BOT_TABLES_PER_CLIENT,
    search_tables_per_client: int = SEARCH_TABLES_PER_CLIENT,
) -> Starlette:
    """The server's application; serve it with uvicorn (``allegra-rules serve`` does).

    Args:
        db: the database: a SQLite file (created when missing, readable by its owner
            only; ``":memory:"`` keeps the tables only as long as the process runs) or a
            PostgreSQL URL, ``postgresql://USER@HOST:PORT/DB`` (see ``open_store``).
        max_open_tables: how many unfinished, recently active tables there may be.
        idle_seconds: after how long without a move an unfinished table no longer
            counts as open.
        abandoned_after: after how long without a move a table where no seat is
            claimed expires (it no longer counts as open, and takes no claim).
        body_timeout: seconds a request may take to send its body (408 after that).
        view_cache_bytes: the size of the cache of rendered views, in bytes of text.
        tables_per_hour: how many tables one client address may create per hour (429
            with ``Retry-After`` after that).
        seat_timeout: seconds a seat may be idle while it is to act before a bot
            (greedy) stands in for it, until its person comes back; 0: never.
        bot_workers: the worker processes the bots of every table think in: one for
            the cheap bots (greedy, random, policy, stand-ins), the others for the
            searches (with 1, both share it, cheap moves first).
        wal_limit: the size (bytes) past which SQLite's ``-wal`` file is truncated.
        bot_lease: with PostgreSQL, the seconds a process's hold on a table's bots
            lasts unless renewed: another process takes them over this long after the
            holder stopped.
        max_sockets: the most WebSockets open at once; one more is closed with 1013
            (``CLOSE_SERVER_BUSY``) before anything else. ``serve`` lowers it to what
            the open-files limit leaves room for.
        max_sockets_per_client: the most WebSockets one client holds open at once (its
            address as ``limits.client_key`` groups it: IPv6 by /64); one more is
            closed with 4429 (``CLOSE_TOO_MANY_SOCKETS``) before anything else.
        freeze_startup_objects: once the application has started (modules imported,
            unfinished tables loaded), collect the garbage and move every object left
            into the collector's permanent generation (``gc.freeze()``), so that later
            full collections do not walk them again; undone (``gc.unfreeze()``) when it
            stops. It changes the whole process's collector, so ``serve`` sets it and
            an application embedded in a larger program leaves it off.
        allowed_hosts: the host names (or addresses, ``name:port`` for one port only)
            the server answers to besides the loopback ones (``localhost``,
            ``127.0.0.1``, ``[::1]``, always allowed): a request whose ``Host`` header
            names another is refused with 400 ``host_not_allowed``, a write or socket
            whose ``Origin`` is not the server's own under one of them with 403
            ``cross_origin`` or close code ``CLOSE_FORBIDDEN_ORIGIN``. ``None``: the
            loopback names only. A public server lists its public name here.
        bot_tables_per_client: how many unfinished tables of bots only one client
            address may have created (429 ``too_many_bot_tables``, without
            ``Retry-After``, after that).
        search_tables_per_client: how many unfinished tables with a search bot one
            client address may have created (429 ``too_many_search_tables``).

    Raises:
        ValueError: an entry of ``allowed_hosts`` is no host name.
    """
    hosts = AllowedHosts.of(allowed_hosts)
    store = open_store(db, wal_limit=wal_limit, bot_lease=bot_lease)
    transport = open_transport(db)
    tables = Tables(
        store,
        transport,
        max_open_tables=max_open_tables,
        idle_seconds=idle_seconds,
        abandoned_after=abandoned_after,
        view_cache_bytes=view_cache_bytes,
        tables_per_hour=tables_per_hour,
        seat_timeout=seat_timeout,
        bot_workers=bot_workers,
        bot_tables_per_client=bot_tables_per_client,
        search_tables_per_client=search_tables_per_client,
    )
    openapi_text = json.dumps(openapi_document(), separators=(",", ":"))
    socket_caps = SocketCaps(max_sockets, max_sockets_per_client)

    def table_of(request: Request) -> Table:
        return tables.get(request.path_params["table"])

    def current_table(request: Request) -> Table:
        table = table_of(request)
        tables.catch_up(table)  # with PostgreSQL: the moves other processes answered, too
        return table

    async def read_json(request: Request) -> object:
        return _parse_json(await _read_body(request, body_timeout))

    async def create(request: Request) -> Response:
        _check_write(request, hosts)
        client = request.client.host if request.client is not None else None
        table, creator_token = tables.create_with_token(await read_json(request), client)
        body = table.info()
        body["url"] = f"/?table={table.id}"
        body["creator_token"] = creator_token
        return _json(body, 201)

    async def info(request: Request) -> Response:
        return _json(current_table(request).info())

    async def claim(request: Request) -> Response:
        _check_write(request, hosts, body_optional=True)
        table = table_of(request)
        body = await _read_body(request, body_timeout)
        data = _parse_json(body) if body.strip() else {}
        if not isinstance(data, dict):
            raise ApiError(400, "bad_body", 'a seat claim has no body, {} or {"name": "<name>"}')
        seat, token = tables.claim(table, request.path_params["seat"], data)
        return _json({"token": token, "table": table.id, "seat": seat}, 201)

    def creator_table(request: Request) -> Table:
        token = _bearer(request)
        if token is None:
            raise ApiError(
                401, "missing_token", "this needs 'Authorization: Bearer <creator token>'"
            )
        table = table_of(request)
        tables.check_creator(table, token)
        return table

    async def seat_bot(request: Request) -> Response:
        _check_write(request, hosts, body_optional=True)
        table = creator_table(request)
        body = await _read_body(request, body_timeout)
        data = _parse_json(body) if body.strip() else {}
        if not isinstance(data, dict):
            # JSON null included: no body is {}, but a body must be an object.
            raise ApiError(400, "bad_body", 'the body must be {} or {"bot": "<bot>"}')
        client = request.client.host if request.client is not None else None
        tables.hand_to_bot(table, request.path_params["seat"], data, client)
        return _json(table.info())

    async def free_seat(request: Request) -> Response:
        _check_write(request, hosts, body_optional=True)
        table = creator_table(request)
        tables.free_seat(table, request.path_params["seat"])
        return _json(table.info())

    async def view(request: Request) -> Response:
        table = current_table(request)
        svg, lang = _options(request.query_params)
        token = _bearer(request)
        seat = None if token is None else tables.seat_of(table, token)
        if seat is not None:
            tables.seen(table, seat)
        return _text_json(table.text(seat, svg=svg, lang=lang))

    async def move(request: Request) -> Response:
        _check_write(request, hosts)
        table = table_of(request)
        svg, lang = _options(request.query_params)
        token = _bearer(request)
        if token is None:
            raise ApiError(401, "missing_token", "a move needs 'Authorization: Bearer <token>'")
        seat = tables.seat_of(table, token)
        data = await read_json(request)
        tables.seen(table, seat)
        tables.move(table, seat, data)
        return _text_json(table.text(seat, svg=svg, lang=lang))

    async def record(request: Request) -> Response:
        return _text_json(tables.record_json(table_of(request)))

    async def openapi(request: Request) -> Response:
        return _text_json(openapi_text)

    async def page(request: Request) -> Response:
        return HTMLResponse(_page_html(), headers=_NO_STORE)

    async def socket(websocket: WebSocket) -> None:
        await websocket.accept()
        origin = websocket.headers.get("origin")
        if origin is not None and not hosts.allows_origin(
            origin, websocket.url.scheme, websocket.headers.get("host")
        ):
            reason = "the page's Origin is not this server under an allowed host"
            await websocket.close(code=CLOSE_FORBIDDEN_ORIGIN, reason=reason)
            return
        try:
            svg, lang = _options(websocket.query_params)
            table = tables.get(websocket.path_params["table"])
            tables.catch_up(table)
            token = websocket.query_params.get("token")
            seat = None if token is None else tables.seat_of(table, token)
            if seat is not None:
                tables.seen(table, seat)
        except (ApiError, Refused) as exc:
            status = exc.status if isinstance(exc, ApiError) else STATUS_OF[exc.why]
            code = {400: CLOSE_BAD_QUERY, 404: CLOSE_UNKNOWN_TABLE}.get(status, CLOSE_BAD_TOKEN)
            await websocket.close(code=code, reason=exc.message[:120])
            return
        except Exception:
            log.exception("internal error on a socket of table %s", websocket.path_params["table"])
            await websocket.close(code=CLOSE_SERVER_ERROR, reason="the server failed")
            return
        sub = tables.subscribe(table, seat, svg=svg, lang=lang)

        async def read() -> None:
            # The server expects nothing from a client: whatever it sends is read and
            # dropped, until the socket closes.
            try:
                while (await websocket.receive())["type"] != "websocket.disconnect":
                    pass
            except (WebSocketDisconnect, RuntimeError, OSError):
                pass
            finally:
                sub.queue.put_nowait(None)

        reader = asyncio.create_task(read())
        try:
            while (text := await sub.queue.get()) is not None:
                await websocket.send_text(text)
        except (WebSocketDisconnect, RuntimeError, OSError):
            pass
        finally:
            tables.unsubscribe(table, sub)
            reader.cancel()
            with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
                await websocket.close()

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        codes = {404: "not_found", 405: "method_not_allowed"}
        return _error(
            ApiError(exc.status_code, codes.get(exc.status_code, "error"), str(exc.detail)),
            dict(exc.headers or {}),
        )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store.start()
        tables.listen()
        tables.thinking.warm()
        tables.resume()
        if freeze_startup_objects:
            # What was loaded to start is alive for the whole run; without this, each
            # full collection of a busy process walks it again (tens of ms of a pause).
            gc.collect()
            gc.freeze()
        watchers = [
            asyncio.create_task(tables.watch_seats()),
            asyncio.create_task(tables.watch_bots()),
            asyncio.create_task(tables.watch_expired()),
        ]
        yield
        for watcher in watchers:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
        tables.close()
        transport.close()
        store.close()
        if freeze_startup_objects:
            gc.unfreeze()

    app = Starlette(
        routes=[
            Route("/", page),
            Route("/api/openapi.json", openapi, methods=["GET"]),
            Route("/api/tables", _api(create), methods=["POST"]),
            Route("/api/tables/{table}", _api(info), methods=["GET"]),
            Route(
                "/api/tables/{table}/seats/{seat}",
                _api(_by_method({"POST": claim, "DELETE": free_seat})),
                methods=["POST", "DELETE"],
            ),
            Route("/api/tables/{table}/seats/{seat}/bot", _api(seat_bot), methods=["POST"]),
            Route("/api/tables/{table}/view", _api(view), methods=["GET"]),
            Route("/api/tables/{table}/moves", _api(move), methods=["POST"]),
            Route("/api/tables/{table}/record", _api(record), methods=["GET"]),
            WebSocketRoute("/ws/tables/{table}", _capped(socket, socket_caps)),
            Mount("/static", StaticFiles(directory=_STATIC), name="static"),
        ],
        exception_handlers={HTTPException: http_error},
        lifespan=lifespan,
    )
    # No redirect from "/path/" to "/path": such a redirect would echo the Host header.
    app.router.redirect_slashes = False
    app.add_middleware(_HostCheck, hosts=hosts)
    app.add_middleware(_Guard)  # the outermost: its headers go on the Host check's 400 too
    app.state.tables = tables
    app.state.socket_caps = socket_caps
    return app


def app_from_environment() -> Starlette:
    """The application of a worker process: ``create_app`` of ``APP_OPTIONS_VARIABLE``'s options.

    ``serve(..., workers=N)`` sets the variable and has uvicorn call this in each worker.

    Raises:
        RuntimeError: the variable is not set.
    """
    text = os.environ.get(APP_OPTIONS_VARIABLE)
    if text is None:
        raise RuntimeError(f"{APP_OPTIONS_VARIABLE} is not set: start workers with serve()")
    return create_app(**json.loads(text))
