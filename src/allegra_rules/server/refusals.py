"""Why the server refuses a request, in the tables' own terms (no HTTP here).

The parts of the server that keep the tables (creation, seats, moves, bots) refuse with
[`Refused`][allegra_rules.server.refusals.Refused]: a reason
([`Why`][allegra_rules.server.refusals.Why]), a short machine-readable code such as
``"stale_version"``, and a message in words. Only the edge, the web application
([`allegra_rules.server.app`][allegra_rules.server.app]), turns a reason into an HTTP
status or a socket's close code; the codes and messages pass through unchanged.
"""

from __future__ import annotations

import enum

__all__ = ["Refused", "Why"]


class Why(enum.Enum):
    """The reasons a request is refused.

    Attributes:
        MALFORMED: the request is not of the shape it must have (a body, a query).
        NO_TOKEN: it needs a token and has none.
        NOT_ALLOWED: its token is not one this request may use (another seat's, not
            the creator's).
        NOT_FOUND: no such table or seat.
        CONFLICT: it does not fit the table as it is now (not the seat's move, a
            version gone by, the game over, a seat taken).
        GONE: the table expired.
        INVALID: it is well formed but the rules do not allow it (a table, a move, a bot).
        TOO_MANY: the client reached one of its limits.
        FULL: the server reached one of its limits.
    """

    MALFORMED = "malformed"
    NO_TOKEN = "no_token"
    NOT_ALLOWED = "not_allowed"
    NOT_FOUND = "not_found"
    CONFLICT = "conflict"
    GONE = "gone"
    INVALID = "invalid"
    TOO_MANY = "too_many"
    FULL = "full"


class Refused(Exception):
    """A request the tables refuse; nothing was changed.

    Attributes:
        why: the reason.
        code: a short machine-readable code, such as ``"stale_version"``.
        message: what was wrong, in words.
        retry_after: the seconds after which the same request may succeed, should
            nothing else change (``None``: unknown, or never).

    Examples:
        >>> refusal = Refused(Why.CONFLICT, "seat_taken", "seat 1 is already taken")
        >>> refusal.body()
        {'error': 'seat_taken', 'message': 'seat 1 is already taken'}
    """

    def __init__(
        self, why: Why, code: str, message: str, *, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.why = why
        self.code = code
        self.message = message
        self.retry_after = retry_after

    def body(self) -> dict[str, str]:
        """The JSON error body, ``{"error": code, "message": message}``."""
        return {"error": self.code, "message": self.message}
