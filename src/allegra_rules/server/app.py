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
404 and 405 of the router included. A ``POST`` with a body needs ``Content-Type:
application/json`` (415), and a ``POST`` that sends an ``Origin`` header needs the
server's own origin (403). Every response carries the headers of ``SECURITY_HEADERS``.
A socket closes with 4400 (bad query), 4401 (bad token), 4404 (unknown table) or 1011
(server error) before any view, and with 4429 (its client holds ``max_sockets_per_client``
sockets) or 1013 (the server holds ``max_sockets``) before anything else.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from .limits import MAX_SOCKETS, MAX_SOCKETS_PER_CLIENT, SocketCaps, client_key
from .store import BOT_LEASE, WAL_LIMIT, open_store
from .tables import (
    BOT_WORKERS,
    LANGUAGES,
    SEAT_TIMEOUT,
    TABLES_PER_HOUR,
    VIEW_CACHE_BYTES,
    ApiError,
    RateLimited,
    Table,
    Tables,
)

__all__ = [
    "APP_OPTIONS_VARIABLE",
    "BODY_TIMEOUT",
    "CLOSE_BAD_QUERY",
    "CLOSE_BAD_TOKEN",
    "CLOSE_SERVER_BUSY",
    "CLOSE_SERVER_ERROR",
    "CLOSE_TOO_MANY_SOCKETS",
    "CLOSE_UNKNOWN_TABLE",
    "CONTENT_SECURITY_POLICY",
    "MAX_BODY_BYTES",
    "SECURITY_HEADERS",
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
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
_QUERY_SVG = {"0": False, "1": True, "false": False, "true": True}


def openapi_document() -> dict[str, Any]:
    """The server's API as an OpenAPI 3.1 document (what ``GET /api/openapi.json`` sends)."""
    document: dict[str, Any] = json.loads(_OPENAPI.read_text(encoding="utf-8"))
    return document


def _error(exc: ApiError, headers: dict[str, str] | None = None) -> JSONResponse:
    merged = {**_NO_STORE, **(headers or {})}
    if exc.status == 503:
        merged["Retry-After"] = "60"
    if isinstance(exc, RateLimited):
        merged["Retry-After"] = str(max(1, round(exc.retry_after)))
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


def _check_write(request: Request, *, body_optional: bool = False) -> None:
    """Refuse a write from another origin, or one whose body is not declared JSON.

    Raises:
        ApiError: 403 for an ``Origin`` that is not the server's own, 415 for a
            ``Content-Type`` other than ``application/json`` (none at all is fine only
            when ``body_optional`` and the request has no body).
    """
    origin = request.headers.get("origin")
    if origin is not None and not _same_origin(origin, request):
        raise ApiError(
            403, "cross_origin", "a write must come from the server's own origin (Origin header)"
        )
    kind = request.headers.get("content-type")
    if kind is None and body_optional and not _has_body(request):
        return
    if kind is None or kind.partition(";")[0].strip().lower() != "application/json":
        raise ApiError(
            415, "unsupported_media_type", "send the body as 'Content-Type: application/json'"
        )


def _same_origin(origin: str, request: Request) -> bool:
    """Whether ``origin`` is the scheme, host and port the request was sent to."""
    try:
        given = urlsplit(origin)
        own = request.url
        scheme, own_scheme = given.scheme.lower(), own.scheme.lower()
        if given.path or given.query or given.fragment or given.username or not given.hostname:
            return False
        return (
            scheme == own_scheme
            and given.hostname.lower() == (own.hostname or "").lower()
            and (given.port or _DEFAULT_PORTS.get(scheme))
            == (own.port or _DEFAULT_PORTS.get(own_scheme))
        )
    except ValueError:  # a port out of range, a bad IPv6 address
        return False


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
    """Answer an ``ApiError`` raised by ``handler`` with its JSON body."""

    async def wrapped(request: Request) -> Response:
        try:
            return await handler(request)
        except ApiError as exc:
            return _error(exc)

    return wrapped


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
    idle_seconds: float = 86400.0,
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
) -> Starlette:
    """The server's application; serve it with uvicorn (``allegra-rules serve`` does).

    Args:
        db: the database: a SQLite file (created when missing, readable by its owner
            only; ``":memory:"`` keeps the tables only as long as the process runs) or a
            PostgreSQL URL, ``postgresql://USER@HOST:PORT/DB`` (see ``open_store``).
        max_open_tables: how many unfinished, recently active tables there may be.
        idle_seconds: after how long without a move a table no longer counts as open.
        body_timeout: seconds a request may take to send its body (408 after that).
        view_cache_bytes: the size of the cache of rendered views, in bytes of text.
        tables_per_hour: how many tables one client address may create per hour (429
            with ``Retry-After`` after that).
        seat_timeout: seconds a seat may be idle while it is to act before a bot
            (greedy) stands in for it, until its person comes back; 0: never.
        bot_workers: the worker threads the bots of every table think in.
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
    """
    store = open_store(db, wal_limit=wal_limit, bot_lease=bot_lease)
    tables = Tables(
        store,
        max_open_tables=max_open_tables,
        idle_seconds=idle_seconds,
        view_cache_bytes=view_cache_bytes,
        tables_per_hour=tables_per_hour,
        seat_timeout=seat_timeout,
        bot_workers=bot_workers,
    )
    openapi_text = json.dumps(openapi_document(), separators=(",", ":"))
    socket_caps = SocketCaps(max_sockets, max_sockets_per_client)

    def table_of(request: Request) -> Table:
        return tables.get(request.path_params["table"])

    async def read_json(request: Request) -> object:
        return _parse_json(await _read_body(request, body_timeout))

    async def create(request: Request) -> Response:
        _check_write(request)
        client = request.client.host if request.client is not None else None
        table, creator_token = tables.create_with_token(await read_json(request), client)
        body = table.info()
        body["url"] = f"/?table={table.id}"
        body["creator_token"] = creator_token
        return _json(body, 201)

    async def info(request: Request) -> Response:
        return _json(table_of(request).info())

    async def claim(request: Request) -> Response:
        _check_write(request, body_optional=True)
        table = table_of(request)
        body = await _read_body(request, body_timeout)
        if body.strip() and _parse_json(body) != {}:
            raise ApiError(400, "bad_body", "a seat claim has no body, or the body {}")
        seat, token = tables.claim(table, request.path_params["seat"])
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
        _check_write(request, body_optional=True)
        table = creator_table(request)
        body = await _read_body(request, body_timeout)
        tables.hand_to_bot(
            table, request.path_params["seat"], _parse_json(body) if body.strip() else None
        )
        return _json(table.info())

    async def free_seat(request: Request) -> Response:
        _check_write(request, body_optional=True)
        table = creator_table(request)
        tables.free_seat(table, request.path_params["seat"])
        return _json(table.info())

    async def view(request: Request) -> Response:
        table = table_of(request)
        svg, lang = _options(request.query_params)
        token = _bearer(request)
        seat = None if token is None else tables.seat_of(table, token)
        if seat is not None:
            tables.seen(table, seat)
        return _text_json(table.text(seat, svg=svg, lang=lang))

    async def move(request: Request) -> Response:
        _check_write(request)
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
        return FileResponse(_STATIC / "index.html", headers=_NO_STORE)

    async def socket(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            svg, lang = _options(websocket.query_params)
            table = tables.get(websocket.path_params["table"])
            token = websocket.query_params.get("token")
            seat = None if token is None else tables.seat_of(table, token)
            if seat is not None:
                tables.seen(table, seat)
        except ApiError as exc:
            code = {400: CLOSE_BAD_QUERY, 404: CLOSE_UNKNOWN_TABLE}.get(exc.status, CLOSE_BAD_TOKEN)
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
        tables.resume()
        if freeze_startup_objects:
            # What was loaded to start is alive for the whole run; without this, each
            # full collection of a busy process walks it again (tens of ms of a pause).
            gc.collect()
            gc.freeze()
        watchers = [
            asyncio.create_task(tables.watch_seats()),
            asyncio.create_task(tables.watch_bots()),
        ]
        yield
        for watcher in watchers:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
        tables.close()
        store.close()
        if freeze_startup_objects:
            gc.unfreeze()

    app = Starlette(
        routes=[
            Route("/", page),
            Route("/api/openapi.json", openapi, methods=["GET"]),
            Route("/api/tables", _api(create), methods=["POST"]),
            Route("/api/tables/{table}", _api(info), methods=["GET"]),
            Route("/api/tables/{table}/seats/{seat}", _api(claim), methods=["POST"]),
            Route("/api/tables/{table}/seats/{seat}", _api(free_seat), methods=["DELETE"]),
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
    app.add_middleware(_Guard)
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
