"""PostgreSQL's ``LISTEN``/``NOTIFY`` as the server's transport (several processes, one database).

[`PostgresNotify`][allegra_rules.server.transport_postgres.PostgresNotify] publishes each
[`Notice`][allegra_rules.server.transport.Notice] with ``NOTIFY allegra_moves`` and
listens on that channel on a connection of its own, in a thread, connecting again after
a pause when the connection is lost. A payload is ``<table id>:<version>:<origin>`` after
a move and ``<table id>:seats:<origin>`` after a change of seats or bots; the payloads
of older servers (``<table id>:<version>``, ``<table id>:seats:<holder>``) are heard too,
so processes of both kinds may share a database while they are upgraded.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from .transport import Listener, Notice

if TYPE_CHECKING:  # imported when a transport opens: the module imports without it
    import psycopg

__all__ = ["CHANNEL", "PostgresNotify", "notice_from_payload", "payload_of"]

log = logging.getLogger("allegra_rules.server")

CHANNEL = "allegra_moves"
"""The ``NOTIFY`` channel of the tables' changes."""


def payload_of(notice: Notice) -> str:
    """The ``NOTIFY`` payload of ``notice``.

    Examples:
        >>> payload_of(Notice("Zk3v", 12, origin="a1"))
        'Zk3v:12:a1'
        >>> payload_of(Notice("Zk3v", None, origin="a1"))
        'Zk3v:seats:a1'
    """
    version = "seats" if notice.version is None else str(notice.version)
    return f"{notice.table_id}:{version}:{notice.origin}"


def notice_from_payload(payload: str) -> Notice | None:
    """The notice a payload carries, or ``None`` for a payload of no known shape.

    Examples:
        >>> notice_from_payload("Zk3v:12:a1")
        Notice(table_id='Zk3v', version=12, origin='a1')
        >>> notice_from_payload("Zk3v:12")  # an older server's move
        Notice(table_id='Zk3v', version=12, origin='')
        >>> notice_from_payload("nonsense") is None
        True
    """
    parts = payload.split(":")
    if len(parts) not in (2, 3) or not parts[0]:
        return None
    origin = parts[2] if len(parts) == 3 else ""
    if parts[1] == "seats" and len(parts) == 3:
        return Notice(parts[0], None, origin)
    if not (parts[1].isascii() and parts[1].isdigit()):
        return None
    return Notice(parts[0], int(parts[1]), origin)


class PostgresNotify:
    """A [`Transport`][allegra_rules.server.transport.Transport] through PostgreSQL.

    Args:
        url: the database's libpq URL (the same as its store's).
        timeout: seconds to wait when connecting.
    """

    def __init__(self, url: str, *, timeout: float = 10.0) -> None:
        self._url = url
        self._timeout = timeout
        self._stop = threading.Event()
        self._listener: threading.Thread | None = None
        self._lock = threading.Lock()
        self._conn: psycopg.Connection[Any] | None = None

    def _connect(self) -> psycopg.Connection[Any]:
        import psycopg

        return psycopg.connect(
            self._url, autocommit=True, connect_timeout=max(1, int(self._timeout))
        )

    def publish(self, notice: Notice) -> None:
        """``NOTIFY`` every listening process of ``notice`` (on a connection kept open).

        A notice that cannot be sent is logged, not raised: the change is stored, and
        the other processes read it from the store when they next answer for the table.
        """
        import psycopg

        with self._lock:
            for attempt in range(2):
                try:
                    if self._conn is None or self._conn.closed:
                        self._conn = self._connect()
                    self._conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload_of(notice)))
                    return
                except psycopg.Error as exc:
                    self._conn = None
                    if attempt:
                        log.warning("a notice of table %s was not sent (%s)", notice.table_id, exc)

    def listen(self, callback: Listener) -> None:
        """Call ``callback(notice)`` for each notice of any process, from a thread."""
        if self._listener is not None:
            return
        self._listener = threading.Thread(
            target=self._listen, args=(callback,), name="allegra-listen", daemon=True
        )
        self._listener.start()

    def _listen(self, callback: Listener) -> None:
        import psycopg

        pause = 0.1
        while not self._stop.is_set():
            try:
                with self._connect() as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    pause = 0.1
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=0.5):
                            self._heard(note.payload, callback)
            except psycopg.Error as exc:
                if self._stop.is_set():
                    break
                log.warning("listening for moves failed (%s); again in %.1f s", exc, pause)
                self._stop.wait(pause)
                pause = min(pause * 2, 5.0)

    @staticmethod
    def _heard(payload: str, callback: Listener) -> None:
        notice = notice_from_payload(payload)
        if notice is None:
            return
        try:
            callback(notice)
        except Exception:  # pragma: no cover - keep listening whatever one notice does
            log.exception("a notice of table %s failed", notice.table_id[:64])

    def close(self) -> None:
        """Stop listening and close the connections."""
        self._stop.set()
        if self._listener is not None:
            self._listener.join(timeout=5)
            self._listener = None
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
