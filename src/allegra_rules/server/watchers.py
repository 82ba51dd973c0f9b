"""The sockets watching a table in this process: each gets its own view after every change.

A socket watching a table is a [`Subscriber`][allegra_rules.server.table.Subscriber]
with a queue of view texts; the web application sends them in order. ``announce`` puts
the current view of each watcher's seat (``None``: the public view) on its queue; a
watcher that stopped reading (more than ``MAX_QUEUED`` texts waiting) is dropped and its
socket closed. How the other processes hear of a change is the transport's job
([`Transport`][allegra_rules.server.transport.Transport]), not this module's.
"""

from __future__ import annotations

from .table import Subscriber, Table

__all__ = ["MAX_QUEUED", "announce", "close_seat", "seats_changed", "subscribe"]

MAX_QUEUED = 256
"""The most view texts a socket may leave unsent; past that it is closed."""


def subscribe(table: Table, seat: int | None, *, svg: bool, lang: str) -> Subscriber:
    """A new watcher of ``table``; its queue already holds the current view."""
    sub = Subscriber(seat=seat, svg=svg, lang=lang)
    sub.queue.put_nowait(table.text(seat, svg=svg, lang=lang))
    table.subscribers.add(sub)
    return sub


def announce(table: Table) -> None:
    """Send the current view to every socket watching ``table``."""
    for sub in list(table.subscribers):
        if sub.queue.qsize() > MAX_QUEUED:  # a socket that stopped reading
            table.subscribers.discard(sub)
            sub.queue.put_nowait(None)
            continue
        sub.queue.put_nowait(table.text(sub.seat, svg=sub.svg, lang=sub.lang))


def close_seat(table: Table, seat: int) -> None:
    """Close every socket watching as ``seat`` (its token no longer works)."""
    for sub in list(table.subscribers):
        if sub.seat == seat:
            table.subscribers.discard(sub)
            sub.queue.put_nowait(None)


def seats_changed(table: Table) -> None:
    """The seats changed without a move (a stand-in, a bot, a freed seat): new views."""
    table.generation += 1
    announce(table)
