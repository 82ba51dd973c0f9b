"""The server's bounded helpers: the cache of rendered views and the per-address rate limit.

Both keep their memory bounded: the cache by the bytes of its texts (least recently used
out first), the rate limit by the events of its last window.
"""

from __future__ import annotations

import collections
import time

__all__ = ["VIEW_CACHE_BYTES", "RateLimit", "ViewCache", "ViewKey"]

VIEW_CACHE_BYTES = 4 * 1024 * 1024
"""The default size (bytes of JSON text) of the cache of rendered views."""

_ENTRY_BYTES = 256  # what a cache entry costs besides its text: key, links, str header

ViewKey = tuple[str, int, int, int | None, bool, str]


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
