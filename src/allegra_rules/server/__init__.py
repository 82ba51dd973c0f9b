"""A table server to play Allegra with friends in a browser (extra ``server``).

``allegra-rules serve [--host 127.0.0.1] [--port 8000] [--db FILE]`` runs it: a
Starlette application ([`create_app`][allegra_rules.server.app.create_app]) served by
uvicorn, its tables stored in SQLite ([`Store`][allegra_rules.server.store.Store]).
The server is a thin shell around the library: it checks each move with
``apply(state, action, player=seat)``, stores every state, and sends each seat its own
view (``observe(state, seat)``), never the state. The core package never imports this one.

Public names:

* [`create_app`][allegra_rules.server.app.create_app]: the application.
* [`serve`][allegra_rules.server.serve]: run it with uvicorn, tokens kept out of the logs.
* [`RedactTokens`][allegra_rules.server.RedactTokens]: the logging filter that does so.
* [`public_view`][allegra_rules.server.tables.public_view]: what every seat knows, the public
  view ``observe(state, None)`` as the server sends it.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

from .app import MAX_BODY_BYTES, create_app
from .tables import public_view

__all__ = ["MAX_BODY_BYTES", "RedactTokens", "create_app", "log_config", "public_view", "serve"]

_TOKEN = re.compile(r"([?&]token=)[^&\s\"']*")


class RedactTokens(logging.Filter):
    """A logging filter that blanks the ``token=`` of every URL in a log record.

    uvicorn writes the path with its query string into the access log and into its
    "WebSocket ... [accepted]" lines; with this filter a WebSocket URL's token reads
    ``token=[redacted]``.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message and arguments; never drops a record."""
        if isinstance(record.msg, str) and "token=" in record.msg:
            record.msg = _TOKEN.sub(r"\1[redacted]", record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(
                _TOKEN.sub(r"\1[redacted]", a) if isinstance(a, str) and "token=" in a else a
                for a in record.args
            )
        return True


def log_config() -> dict[str, Any]:
    """Uvicorn's default logging configuration, with a token filter on every handler.

    The filter is [`RedactTokens`][allegra_rules.server.RedactTokens].
    """
    from uvicorn.config import LOGGING_CONFIG

    config: dict[str, Any] = {
        **LOGGING_CONFIG,
        "filters": {"redact_tokens": {"()": f"{__name__}.RedactTokens"}},
        "handlers": {
            name: {**handler, "filters": ["redact_tokens"]}
            for name, handler in LOGGING_CONFIG["handlers"].items()
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
) -> None:
    """Serve the tables until interrupted (what ``allegra-rules serve`` runs).

    Args:
        host: the address to listen on.
        port: the TCP port.
        db: the SQLite database file (created when missing).
        proxy_headers: trust ``X-Forwarded-For``/``X-Forwarded-Proto`` from
            ``forwarded_allow_ips`` (behind a reverse proxy).
        forwarded_allow_ips: the proxies' addresses, comma-separated.
        max_open_tables: how many unfinished, recently active tables there may be.
    """
    import uvicorn

    uvicorn.run(
        create_app(db, max_open_tables=max_open_tables),
        host=host,
        port=port,
        log_config=log_config(),
        proxy_headers=proxy_headers,
        forwarded_allow_ips=forwarded_allow_ips,
        ws_max_size=64 * 1024,
    )
