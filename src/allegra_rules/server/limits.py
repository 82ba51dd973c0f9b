"""The server's bounded helpers: the view cache, the per-address limits, the socket caps.

Each keeps its memory bounded: the cache by the bytes of its texts (least recently used
out first), the rate limit by the events of its last window, the socket caps by the
sockets open. Limits per client count a client's address as
[`client_key`][allegra_rules.server.limits.client_key] groups it: an IPv4 address on
its own, an IPv6 address with the rest of its /64.
"""

from __future__ import annotations

import collections
import ipaddress
import logging
import time

__all__ = [
    "MAX_SOCKETS",
    "MAX_SOCKETS_PER_CLIENT",
    "VIEW_CACHE_BYTES",
    "RateLimit",
    "SocketCaps",
    "ViewCache",
    "ViewKey",
    "client_key",
]

log = logging.getLogger("allegra_rules.server")

MAX_SOCKETS = 10_000
"""The default number of WebSockets one server process holds open at once.

``serve`` lowers it to what the process's open-files limit leaves room for.
"""

MAX_SOCKETS_PER_CLIENT = 50
"""The default number of WebSockets one client (``client_key``) may hold open at once."""

REFUSALS_LOG_EVERY = 60.0
"""Seconds between two log lines about the sockets refused to one client (or to all)."""

REFUSAL_LINES = 20
"""The most log lines about refused sockets within ``REFUSALS_LOG_EVERY`` seconds, all clients
together (a client whose line would pass it is counted on, and logged later)."""

VIEW_CACHE_BYTES = 4 * 1024 * 1024
"""The default size (bytes of JSON text) of the cache of rendered views."""

_ENTRY_BYTES = 256  # what a cache entry costs besides its text: key, links, str header

ViewKey = tuple[str, int, int, int | None, bool, str]
"""The key of a cached view: table id, version, seats' generation, seat, picture, language."""


class ViewCache:
    """Rendered view texts, least recently used first out, at most ``max_bytes`` in all.

    An entry costs its text's length plus a fixed overhead; a text larger than the
    whole cache is not kept. ``max_bytes`` 0 keeps nothing.
    """

    def __init__(self, max_bytes: int = VIEW_CACHE_BYTES) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        self._items: collections.OrderedDict[ViewKey, str] = collections.OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: ViewKey) -> str | None:
        """The text cached for ``key``, now the most recently used, or ``None``."""
        text = self._items.get(key)
        if text is not None:
            self._items.move_to_end(key)
        return text

    def put(self, key: ViewKey, text: str) -> None:
        """Keep ``text`` for ``key``, dropping the least recently used texts to fit."""
        cost = len(text) + _ENTRY_BYTES
        if cost > self.max_bytes:
            return
        old = self._items.pop(key, None)
        if old is not None:
            self.size -= len(old) + _ENTRY_BYTES
        self._items[key] = text
        self.size += cost
        while self.size > self.max_bytes:
            _, dropped = self._items.popitem(last=False)
            self.size -= len(dropped) + _ENTRY_BYTES


class RateLimit:
    """At most ``limit`` events per key within ``window`` seconds (a sliding window).

    Keys with no event in the window are forgotten, so the memory it holds stays
    bounded by the events of the last window.
    """

    def __init__(self, limit: int, window: float = 3600.0) -> None:
        self.limit = limit
        self.window = window
        self._events: dict[str, collections.deque[float]] = {}
        self._swept = time.monotonic()

    def check(self, key: str, now: float | None = None) -> float:
        """0 when ``key`` may act now; else the seconds until it may."""
        now = time.monotonic() if now is None else now
        if now - self._swept > self.window:
            self._swept = now
            for k in [k for k, q in self._events.items() if not q or q[-1] <= now - self.window]:
                del self._events[k]
        events = self._events.get(key)
        if events is None:
            return 0.0
        while events and events[0] <= now - self.window:
            events.popleft()
        if not events:
            del self._events[key]
            return 0.0
        if len(events) < self.limit:
            return 0.0
        return max(events[0] + self.window - now, 1.0)

    def add(self, key: str, now: float | None = None) -> None:
        """Count one event of ``key``."""
        now = time.monotonic() if now is None else now
        self._events.setdefault(key, collections.deque()).append(now)


def client_key(address: str) -> str:
    """The key under which the limits per client count ``address``.

    An IPv4 address is its own key; an IPv6 address counts with every address of its
    /64 (one household or one machine usually holds a whole /64), written as the
    network, ``"2001:db8:1:2::/64"``; an IPv4-mapped IPv6 address (``"::ffff:1.2.3.4"``)
    is the IPv4 address it maps. Anything else (a Unix socket's path, ``"unknown"``)
    is its own key.

    Args:
        address: a client's address as the server sees it (``request.client.host``).

    Returns:
        The key: ``"198.51.100.7"``, ``"2001:db8:1:2::/64"``, or ``address`` unchanged.
    """
    try:
        ip = ipaddress.ip_address(address.partition("%")[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
    return str(ip)


class SocketCaps:
    """How many WebSockets are open, in all and per client, and whether one more may open.

    ``open(key)`` takes a place for a socket of the client ``key`` (see
    [`client_key`][allegra_rules.server.limits.client_key]) or says which cap is
    reached; ``close(key)`` gives the place back. Refusals are logged at most once per
    ``log_every`` seconds per client (and once for the global cap), each line with the
    number refused since the last one, and at most ``REFUSAL_LINES`` such lines are
    written per ``log_every`` seconds in all, so that no client, and no crowd of client
    addresses, can flood the log.

    Args:
        max_sockets: the most sockets open at once, all clients together.
        max_per_client: the most sockets open at once per client key.
        log_every: seconds between two log lines about one client's refusals.
    """

    GLOBAL = "global"
    """What ``open`` answers when the global cap is reached."""
    CLIENT = "client"
    """What ``open`` answers when the client's own cap is reached."""

    def __init__(
        self,
        max_sockets: int = MAX_SOCKETS,
        max_per_client: int = MAX_SOCKETS_PER_CLIENT,
        log_every: float = REFUSALS_LOG_EVERY,
    ) -> None:
        self.max_sockets = max_sockets
        self.max_per_client = max_per_client
        self.log_every = log_every
        self.total = 0
        self._open: dict[str, int] = {}
        self._refused: dict[str, tuple[float, int]] = {}
        self._swept = time.monotonic()
        self._lines: collections.deque[float] = collections.deque()

    def count(self, key: str) -> int:
        """The sockets the client ``key`` holds open."""
        return self._open.get(key, 0)

    def open(self, key: str, now: float | None = None) -> str | None:
        """Take a place for one more socket of ``key``; ``None`` when taken.

        Returns:
            ``None``: the place is taken (give it back with ``close``);
            ``SocketCaps.CLIENT``: ``key`` holds ``max_per_client`` sockets already;
            ``SocketCaps.GLOBAL``: ``max_sockets`` are open already.
        """
        held = self._open.get(key, 0)
        if held >= self.max_per_client:
            self._refuse(key, f"client {key} holds {held} sockets", now)
            return self.CLIENT
        if self.total >= self.max_sockets:
            self._refuse("", f"the server holds {self.total} sockets", now)
            return self.GLOBAL
        self._open[key] = held + 1
        self.total += 1
        return None

    def close(self, key: str) -> None:
        """Give back the place of one socket of ``key`` (taken by ``open``)."""
        held = self._open.get(key, 0) - 1
        if held > 0:
            self._open[key] = held
        else:
            self._open.pop(key, None)
        self.total = max(0, self.total - 1)

    def _refuse(self, key: str, why: str, now: float | None) -> None:
        """Count a refusal of ``key`` ("": the global cap); log once per ``log_every``."""
        now = time.monotonic() if now is None else now
        if now - self._swept > self.log_every:
            self._swept = now
            self._refused = {k: v for k, v in self._refused.items() if now - v[0] < self.log_every}
        since, count = self._refused.get(key, (-float("inf"), 0))
        count += 1
        while self._lines and now - self._lines[0] >= self.log_every:
            self._lines.popleft()
        if now - since < self.log_every or len(self._lines) >= REFUSAL_LINES:
            self._refused[key] = (since, count)
            return
        self._lines.append(now)
        # The first refusal of a period is logged with the count of the last period.
        cap = self.max_sockets if not key else self.max_per_client
        log.warning(
            "socket refused: %s (cap %s); %s refused since the last such line",
            why,
            cap,
            count,
        )
        self._refused[key] = (now, 0)
