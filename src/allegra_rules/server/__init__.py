"""A table server to play Allegra with friends in a browser (extra ``server``).

``allegra-rules serve [--host 127.0.0.1] [--port 8000] [--db FILE | --database URL]`` runs
it: a Starlette application ([`create_app`][allegra_rules.server.app.create_app]) served
by uvicorn, its tables stored in SQLite or PostgreSQL (a
[`Store`][allegra_rules.server.store.Store]; the processes sharing a PostgreSQL database
hear of each other's changes through a
[`Transport`][allegra_rules.server.transport.Transport]).
The server is a thin shell around the library: it checks each move with
``apply(state, action, player=seat)``, stores every state, and sends each seat its own
view (``observe(state, seat)``), never the state. The core package never imports this one.

Public names:

* [`create_app`][allegra_rules.server.app.create_app]: the application.
* [`serve`][allegra_rules.server.serve]: run it with uvicorn, tokens kept out of the logs.
* [`RedactTokens`][allegra_rules.server.RedactTokens]: the logging filter that does so.
* [`openapi_document`][allegra_rules.server.app.openapi_document]: the API as an OpenAPI
  3.1 document (also served at ``GET /api/openapi.json``).
* [`LOOPBACK_HOSTS`][allegra_rules.server.hosts.LOOPBACK_HOSTS]: the host names a server
  always answers to; ``serve``'s and ``create_app``'s ``allowed_hosts`` add others
  ([`hosts`][allegra_rules.server.hosts]).
* [`public_view`][allegra_rules.server.tables.public_view]: what every seat knows, the public
  view ``observe(state, None)`` as the server sends it.
* [`client_key`][allegra_rules.server.limits.client_key]: how the limits per client group
  addresses (IPv4 whole, IPv6 by /64).
"""

from __future__ import annotations

import json
import logging
import logging.config
import math
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus

from .app import (
    APP_OPTIONS_VARIABLE,
    BODY_TIMEOUT,
    MAX_BODY_BYTES,
    create_app,
    openapi_document,
)
from .backends import is_postgres_url, open_store
from .connections import (
    HEADER_TIMEOUT,
    HEADER_TIMEOUT_VARIABLE,
    HeadDeadlineProtocol,
    PictureDeflateProtocol,
    connection_caps,
    raise_open_files_limit,
)
from .hosts import LOOPBACK_HOSTS, serving_hosts
from .limits import MAX_SOCKETS, MAX_SOCKETS_PER_CLIENT, client_key
from .store import BOT_LEASE, WAL_LIMIT
from .tables import (
    ABANDONED_AFTER,
    BOT_TABLES_PER_CLIENT,
    BOT_WORKERS,
    MAX_SEATS,
    SEARCH_TABLES_PER_CLIENT,
    SEAT_TIMEOUT,
    TABLES_PER_HOUR,
    VIEW_CACHE_BYTES,
    public_view,
)

__all__ = [
    "ABANDONED_AFTER",
    "BODY_TIMEOUT",
    "BOT_LEASE",
    "BOT_TABLES_PER_CLIENT",
    "BOT_WORKERS",
    "HEADER_TIMEOUT",
    "LOOPBACK_HOSTS",
    "MAX_BODY_BYTES",
    "MAX_SEATS",
    "MAX_SOCKETS",
    "MAX_SOCKETS_PER_CLIENT",
    "SEARCH_TABLES_PER_CLIENT",
    "SEAT_TIMEOUT",
    "TABLES_PER_HOUR",
    "VIEW_CACHE_BYTES",
    "WAL_LIMIT",
    "RedactTokens",
    "client_key",
    "create_app",
    "log_config",
    "openapi_document",
    "public_view",
    "serve",
]

BODY_TIMEOUT_VARIABLE = "ALLEGRA_SERVER_BODY_TIMEOUT"
"""The environment variable that sets ``serve``'s ``body_timeout`` (seconds) by default."""

_URL = re.compile(r"(/[^\s?\"']*)\?([^\s\"']*)")


def _redact(text: str) -> str:
    """``text`` with the query strings of socket and token URLs replaced.

    The query of every socket URL, and of every URL whose query names a token
    (percent-encoded or not), becomes ``[redacted]``.
    """

    def blank(match: re.Match[str]) -> str:
        path, query = match.group(1), match.group(2)
        if path.startswith("/ws/") or "token" in unquote_plus(query).lower():
            return f"{path}?[redacted]"
        return match.group(0)

    return _URL.sub(blank, text) if "?" in text else text


class RedactTokens(logging.Filter):
    """A logging filter that blanks the query string of socket and token URLs in a record.

    uvicorn writes the path with its query string into the access log and into its
    "WebSocket ... [accepted]" lines; with this filter a WebSocket URL reads
    ``/ws/tables/ID?[redacted]``, whatever its query (``?token=...``, ``?tok%65n=...``),
    and so does any other URL whose decoded query says ``token``.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message and arguments; never drops a record."""
        if isinstance(record.msg, str):
            record.msg = _redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(_redact(a) if isinstance(a, str) else a for a in record.args)
        return True


def log_config() -> dict[str, Any]:
    """Uvicorn's default logging configuration, with a token filter on every handler.

    The filter is [`RedactTokens`][allegra_rules.server.RedactTokens]. The server's own
    lines (logger ``allegra_rules``, ``INFO`` and up) go where uvicorn's go.
    """
    from uvicorn.config import LOGGING_CONFIG

    config: dict[str, Any] = {
        **LOGGING_CONFIG,
        "filters": {"redact_tokens": {"()": f"{__name__}.RedactTokens"}},
        "handlers": {
            name: {**handler, "filters": ["redact_tokens"]}
            for name, handler in LOGGING_CONFIG["handlers"].items()
        },
        "loggers": {
            **LOGGING_CONFIG["loggers"],
            "allegra_rules": {"handlers": ["default"], "level": "INFO", "propagate": False},
        },
    }
    return config


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    db: str | Path = "allegra-tables.sqlite3",
    *,
    proxy_headers: bool = False,
    forwarded_allow_ips: str | None = None,
    max_open_tables: int = 1000,
    body_timeout: float | None = None,
    view_cache_bytes: int = VIEW_CACHE_BYTES,
    tables_per_hour: int = TABLES_PER_HOUR,
    seat_timeout: float = SEAT_TIMEOUT,
    abandoned_after: float = ABANDONED_AFTER,
    bot_workers: int = BOT_WORKERS,
    wal_limit: int = WAL_LIMIT,
    bot_lease: float = BOT_LEASE,
    workers: int = 1,
    allowed_hosts: Iterable[str] | None = None,
    bot_tables_per_client: int = BOT_TABLES_PER_CLIENT,
    search_tables_per_client: int = SEARCH_TABLES_PER_CLIENT,
    max_sockets: int | None = None,
    max_sockets_per_client: int = MAX_SOCKETS_PER_CLIENT,
    header_timeout: float = HEADER_TIMEOUT,
) -> None:
    """Serve the tables until interrupted (what ``allegra-rules serve`` runs).

    Each server process freezes what it loaded to start in the garbage collector's
    permanent generation (``create_app``'s ``freeze_startup_objects``).

    Open files: ``serve`` raises the process's soft open-files limit (``RLIMIT_NOFILE``)
    to its hard limit, then shares it with ``connections.connection_caps``: the sockets
    get at most what leaves room for HTTP connections (``max_sockets`` at most), and
    uvicorn's ``limit_concurrency`` (503 past it) is the sockets plus that room, so that
    sockets at their cap never keep ``GET /`` or a table's creation from being answered.
    It logs the limits it chose. Each connection must send its request head within
    ``header_timeout`` seconds (``connections.HeadDeadlineProtocol``), and only sockets
    with pictures (``svg=1``) are compressed (``connections.PictureDeflateProtocol``).

    Args:
        host: the address to listen on.
        port: the TCP port.
        db: the database: a SQLite file (created when missing) or a PostgreSQL URL,
            ``postgresql://USER@HOST:PORT/DB``.
        proxy_headers: trust ``X-Forwarded-For``/``X-Forwarded-Proto`` from
            ``forwarded_allow_ips`` (behind a reverse proxy).
        forwarded_allow_ips: the proxies' addresses, comma-separated.
        max_open_tables: how many unfinished, recently active tables there may be.
        body_timeout: seconds a request may take to send its body (408 after that);
            ``None``: the environment variable ``ALLEGRA_SERVER_BODY_TIMEOUT``, else
            ``BODY_TIMEOUT`` (10 s).
        view_cache_bytes: the size of the cache of rendered views (bytes of text).
        tables_per_hour: how many tables one client address may create per hour.
        seat_timeout: seconds a seat may be idle while it is to act before a bot
            stands in for it; 0: never.
        abandoned_after: seconds after its creation or last move that a table where no
            seat is claimed expires (it stops counting as open and takes no claim).
        bot_workers: the worker processes the bots of every table think in (per
            server process): one for the cheap bots, the others for the searches.
        wal_limit: the size (bytes) past which SQLite's ``-wal`` file is truncated.
        bot_lease: with PostgreSQL, the seconds a process's hold on a table's bots lasts
            unless renewed (another process takes them over this long after it stopped).
        workers: how many server processes share the port (uvicorn's workers, each
            restarted by the parent process when it dies). More than one needs a
            PostgreSQL ``db``: the processes learn of each other's moves through it.
        allowed_hosts: the host names (or addresses; ``name:port`` for one port) the
            server answers to besides the loopback names ``LOOPBACK_HOSTS`` and ``host``
            (when ``host`` names one address): a request naming another in its ``Host``
            header gets 400 ``host_not_allowed`` (see ``create_app``). Behind a reverse
            proxy or on every interface, the public name(s). ``None`` with a ``host``
            of every interface (``0.0.0.0``, ``::``) is refused.
        bot_tables_per_client: how many unfinished tables of bots only one client
            address may have created (per server process).
        search_tables_per_client: how many unfinished tables with a search bot one
            client address may have created (per server process).

        max_sockets: the most WebSockets open at once per process; ``None``:
            ``MAX_SOCKETS`` (10,000). Either is lowered to what the open-files limit
            leaves room for. One more is closed with 1013.
        max_sockets_per_client: the most WebSockets one client address (IPv6: its
            /64) holds open at once; one more is closed with 4429.
        header_timeout: seconds a connection may take to send a request's head (from
            when it opens, or from the first byte of a later request); a slower one is
            closed.

    Raises:
        ValueError: ``ALLEGRA_SERVER_BODY_TIMEOUT`` is not a positive number, or
            ``workers`` is less than 1, or more than 1 on SQLite; an entry of
            ``allowed_hosts`` is no host name, or ``host`` is every interface and
            ``allowed_hosts`` is ``None`` (see ``hosts.serving_hosts``); a socket cap is
            less than 1, or ``header_timeout`` is not a positive number.
        ConnectionError: the PostgreSQL database cannot be reached.
    """
    import uvicorn

    if body_timeout is None:
        text = os.environ.get(BODY_TIMEOUT_VARIABLE, "").strip()
        try:
            body_timeout = float(text) if text else BODY_TIMEOUT
        except ValueError:
            body_timeout = -1.0
        if not 0 < body_timeout < float("inf"):
            raise ValueError(f"{BODY_TIMEOUT_VARIABLE} must be a positive number of seconds")

    if type(workers) is not int or workers < 1:
        raise ValueError(f"workers must be an int of at least 1; got {workers!r}")
    hosts = serving_hosts(host, allowed_hosts)
    if max_sockets is not None and max_sockets < 1:
        raise ValueError(f"max_sockets must be at least 1; got {max_sockets!r}")
    if max_sockets_per_client < 1:
        raise ValueError(
            f"max_sockets_per_client must be at least 1; got {max_sockets_per_client!r}"
        )
    if not (header_timeout > 0 and math.isfinite(header_timeout)):
        raise ValueError(
            f"header_timeout must be a positive number of seconds; got {header_timeout!r}"
        )
    logging.config.dictConfig(log_config())  # the lines below go where uvicorn's go
    sockets, limit_concurrency = _open_files(MAX_SOCKETS if max_sockets is None else max_sockets)
    HeadDeadlineProtocol.header_timeout = header_timeout
    os.environ[HEADER_TIMEOUT_VARIABLE] = repr(header_timeout)
    options: dict[str, Any] = {
        "db": str(db),
        "max_open_tables": max_open_tables,
        "body_timeout": body_timeout,
        "view_cache_bytes": view_cache_bytes,
        "tables_per_hour": tables_per_hour,
        "seat_timeout": seat_timeout,
        "abandoned_after": abandoned_after,
        "bot_workers": bot_workers,
        "wal_limit": wal_limit,
        "bot_lease": bot_lease,
        "bot_tables_per_client": bot_tables_per_client,
        "search_tables_per_client": search_tables_per_client,
        "max_sockets": sockets,
        "max_sockets_per_client": max_sockets_per_client,
        "freeze_startup_objects": True,
        "allowed_hosts": hosts,
    }
    served: Any
    if workers == 1:
        served = create_app(**options)
    else:
        if not is_postgres_url(str(db)):
            raise ValueError(
                "more than one worker needs a PostgreSQL database (--database): "
                "processes on one SQLite file would not see each other's moves"
            )
        # Migrate (and fail on an unreachable database) once, here, before the workers.
        open_store(str(db)).close()
        os.environ[APP_OPTIONS_VARIABLE] = json.dumps(options)
        served = f"{__name__}.app:app_from_environment"
    uvicorn.run(
        served,
        factory=workers > 1,
        workers=workers if workers > 1 else None,
        host=host,
        port=port,
        log_config=log_config(),
        proxy_headers=proxy_headers,
        forwarded_allow_ips=forwarded_allow_ips,
        ws_max_size=64 * 1024,
        http=HeadDeadlineProtocol,
        ws=PictureDeflateProtocol,
        limit_concurrency=limit_concurrency,
    )


def _open_files(max_sockets: int) -> tuple[int, int | None]:
    """Raise the open-files limit; the socket cap and ``limit_concurrency`` it leaves room for.

    Logs what it chose. Without an open-files limit (Windows): ``max_sockets`` and no
    ``limit_concurrency``.
    """
    raised = raise_open_files_limit()
    if raised is None:  # pragma: no cover - Windows
        return max_sockets, None
    before, after = raised
    sockets, limit_concurrency = connection_caps(after, max_sockets)
    log = logging.getLogger("allegra_rules.server")
    if sockets < max_sockets:
        log.warning(
            "open files: limit %s (was %s): at most %s sockets, not %s; "
            "raise the hard limit (ulimit -Hn, LimitNOFILE=) for more",
            after,
            before,
            sockets,
            max_sockets,
        )
    log.info(
        "open files: limit %s (was %s); at most %s sockets, "
        "%s connections in all (more HTTP requests: 503)",
        after,
        before,
        sockets,
        limit_concurrency,
    )
    return max(1, sockets), limit_concurrency
