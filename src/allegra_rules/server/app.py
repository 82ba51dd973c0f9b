"""The HTTP and WebSocket routes of the table server (a Starlette application).

Routes (see the "Run a server" page of the documentation):

* ``POST /api/tables``: create a table; ``GET /api/tables/{table}``: its seats.
* ``POST /api/tables/{table}/seats/{seat}``: claim a seat for a token.
* ``GET /api/tables/{table}/view``: a seat's view (``Authorization: Bearer <token>``)
  or, without a token, the public view.
* ``POST /api/tables/{table}/moves``: a seat's move.
* ``GET /api/tables/{table}/record``: the record of a finished game.
* ``WebSocket /ws/tables/{table}?token=...``: every new view, pushed.
* ``GET /``: the page to play on (``/static/...`` its script and style).

Every error is a JSON body ``{"error": "<short code>", "message": "..."}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from .store import Store
from .tables import LANGUAGES, ApiError, Table, Tables

__all__ = ["MAX_BODY_BYTES", "create_app"]

MAX_BODY_BYTES = 64 * 1024
"""The largest request body the server reads; a larger one is answered with 413."""

_STATIC = Path(str(resources.files("allegra_rules.server") / "static"))
_NO_STORE = {"Cache-Control": "no-store"}


def _error(exc: ApiError) -> JSONResponse:
    headers = dict(_NO_STORE)
    if exc.status == 503:
        headers["Retry-After"] = "60"
    return JSONResponse(exc.body(), status_code=exc.status, headers=headers)


def _json(data: Any, status: int = 200) -> Response:
    return Response(
        json.dumps(data, separators=(",", ":")),
        status_code=status,
        media_type="application/json",
        headers=_NO_STORE,
    )


def _text_json(text: str, status: int = 200) -> Response:
    return Response(text, status_code=status, media_type="application/json", headers=_NO_STORE)


async def _read_json(request: Request) -> object:
    """The request's JSON body, at most ``MAX_BODY_BYTES``.

    Raises:
        ApiError: 413 for a larger body, 400 for one that is not JSON.
    """
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY_BYTES):
        raise ApiError(413, "too_large", f"the body must be at most {MAX_BODY_BYTES} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise ApiError(413, "too_large", f"the body must be at most {MAX_BODY_BYTES} bytes")
        chunks.append(chunk)
    try:
        return json.loads(b"".join(chunks))
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
    """``svg`` and ``lang`` of a query string (``?svg=1&lang=de``)."""
    svg = params.get("svg", "0") in ("1", "true")
    lang = params.get("lang", "en")
    return svg, lang if lang in LANGUAGES else "en"


Handler = Callable[[Request], Awaitable[Response]]


def _api(handler: Handler) -> Handler:
    """Answer an ``ApiError`` raised by ``handler`` with its JSON body."""

    async def wrapped(request: Request) -> Response:
        try:
            return await handler(request)
        except ApiError as exc:
            return _error(exc)

    return wrapped


def create_app(
    db: str | Path = ":memory:", *, max_open_tables: int = 1000, idle_seconds: float = 86400.0
) -> Starlette:
    """The server's application; serve it with uvicorn (``allegra-rules serve`` does).

    Args:
        db: the SQLite database file (created when missing); ``":memory:"`` keeps
            the tables only as long as the process runs.
        max_open_tables: how many unfinished, recently active tables there may be.
        idle_seconds: after how long without a move a table no longer counts as open.
    """
    store = Store(db)
    tables = Tables(store, max_open_tables=max_open_tables, idle_seconds=idle_seconds)

    def table_of(request: Request) -> Table:
        return tables.get(request.path_params["table"])

    async def create(request: Request) -> Response:
        table = tables.create(await _read_json(request))
        body = table.info()
        body["url"] = f"/?table={table.id}"
        return _json(body, 201)

    async def info(request: Request) -> Response:
        return _json(table_of(request).info())

    async def claim(request: Request) -> Response:
        table = table_of(request)
        seat, token = tables.claim(table, request.path_params["seat"])
        return _json({"token": token, "table": table.id, "seat": seat}, 201)

    async def view(request: Request) -> Response:
        table = table_of(request)
        token = _bearer(request)
        seat = None if token is None else tables.seat_of(table, token)
        svg, lang = _options(request.query_params)
        return _text_json(table.text(seat, svg=svg, lang=lang))

    async def move(request: Request) -> Response:
        table = table_of(request)
        token = _bearer(request)
        if token is None:
            raise ApiError(401, "missing_token", "a move needs 'Authorization: Bearer <token>'")
        seat = tables.seat_of(table, token)
        tables.move(table, seat, await _read_json(request))
        svg, lang = _options(request.query_params)
        return _text_json(table.text(seat, svg=svg, lang=lang))

    async def record(request: Request) -> Response:
        return _text_json(tables.record_json(table_of(request)))

    async def page(request: Request) -> Response:
        return FileResponse(_STATIC / "index.html", headers=_NO_STORE)

    async def socket(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            table = tables.get(websocket.path_params["table"])
            token = websocket.query_params.get("token")
            seat = None if token is None else tables.seat_of(table, token)
        except ApiError as exc:
            await websocket.close(code=1008, reason=exc.message[:120])
            return
        svg, lang = _options(websocket.query_params)
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

    async def not_found(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        codes = {404: "not_found", 405: "method_not_allowed"}
        return _error(
            ApiError(exc.status_code, codes.get(exc.status_code, "error"), str(exc.detail))
        )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store.start_checkpoints()
        tables.resume()
        yield
        store.close()

    app = Starlette(
        routes=[
            Route("/", page),
            Route("/api/tables", _api(create), methods=["POST"]),
            Route("/api/tables/{table}", _api(info), methods=["GET"]),
            Route("/api/tables/{table}/seats/{seat}", _api(claim), methods=["POST"]),
            Route("/api/tables/{table}/view", _api(view), methods=["GET"]),
            Route("/api/tables/{table}/moves", _api(move), methods=["POST"]),
            Route("/api/tables/{table}/record", _api(record), methods=["GET"]),
            WebSocketRoute("/ws/tables/{table}", socket),
            Mount("/static", StaticFiles(directory=_STATIC), name="static"),
        ],
        exception_handlers={HTTPException: not_found},
        lifespan=lifespan,
    )
    app.state.tables = tables
    return app
