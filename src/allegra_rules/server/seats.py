"""The seats of a table: claims and tokens, the creator's seats and bots, and expiry.

A person claims a free seat and gets its token (only its SHA-256 digest is stored); the
token then names the seat in every request, compared in constant time. The table's
creator (who holds the creator's token) may hand a seat to a bot or free it. A table
where no seat is claimed *expires* ``abandoned_after`` seconds after its creation or its
last move: it takes no claim and no new bot (``GONE``, ``table_expired``).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import re
import secrets
import time
from collections.abc import Callable

from allegra_rules.bot_kinds import BOT_KINDS, unavailable

from .refusals import Refused, Why
from .registry import Registry
from .store import Store
from .sync import Sync
from .table import Table, seat_of_digest, token_digest
from .watchers import announce, close_seat, seats_changed

__all__ = ["ABANDONED_AFTER", "NAME_LENGTH", "NAME_PATTERN", "Seats", "given_name", "seat_number"]

NAME_LENGTH = 24
"""The longest name a person may give a seat, in characters."""

NAME_PATTERN = "^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028-\\u202e\\u2066-\\u2069]*$"
"""The characters a name may hold, as a regular expression (the API document's): no
control character, no line or paragraph separator, no mark that turns text around."""

_NAME = re.compile(NAME_PATTERN)


def given_name(value: object) -> str | None:
    """The name a person gave when claiming a seat, as shown; ``None`` for none.

    Plain text of at most ``NAME_LENGTH`` characters without a control character
    (``NAME_PATTERN``); spaces around it are left out, and a name of spaces only is none.
    The pages show it as text, never as markup.

    Raises:
        Refused: ``INVALID`` (``bad_name``) for anything else.

    Examples:
        >>> given_name("  Ada "), given_name(""), given_name("<b>Ben</b>")
        ('Ada', None, '<b>Ben</b>')
    """
    if not isinstance(value, str) or len(value) > NAME_LENGTH or not _NAME.fullmatch(value):
        raise Refused(
            Why.INVALID,
            "bad_name",
            f"a name is text of at most {NAME_LENGTH} characters, without control characters",
        )
    return " ".join(value.split()) or None


log = logging.getLogger("allegra_rules.server")

ABANDONED_AFTER = 600.0
"""The default seconds after which a table with no claimed seat and no move expires.

Counted from its creation or its last move (a bot's included): such a table no longer
counts as open, and nobody may claim a seat at it any more (410 ``table_expired``).
"""


def seat_number(table: Table, seat_text: str) -> int:
    """The seat a path names.

    Raises:
        Refused: ``NOT_FOUND`` (``unknown_seat``) for a seat the table does not have.
    """
    n = table.num_players
    # A seat is a canonical decimal of at most two digits: "0", "1", ... ("002" is not).
    canonical = (
        len(seat_text) <= 2
        and seat_text.isascii()
        and seat_text.isdigit()
        and seat_text == str(int(seat_text))
    )
    if not (canonical and int(seat_text) < n):
        raise Refused(
            Why.NOT_FOUND,
            "unknown_seat",
            f"table {table.id} has seats 0..{n - 1}; got {seat_text[:20]!r}",
        )
    return int(seat_text)


def _check_people_seats(table: Table, seat: int) -> None:
    """Refuse to free a bot's seat when that would give a chosen seed's table a second person.

    Raises:
        Refused: ``CONFLICT`` (``seed_chosen``).
    """
    if table.deal is None or not table.deal.seed_chosen or seat not in table.bots:
        return
    people = table.people_seats({p: b for p, b in table.bots.items() if p != seat})
    if people > 1:
        raise Refused(
            Why.CONFLICT,
            "seed_chosen",
            f"the creator chose this table's seed, so at most one seat may be for a person; "
            f"freeing seat {seat}'s bot would make {people}",
        )


class Seats:
    """The seats of every table: who may act for which seat.

    Args:
        store: the database.
        sync: tells the other processes of each change, and reads a table again when
            a token is not known here.
        registry: the tables in memory.
        abandoned_after: seconds after which a table with no claimed seat expires.
    """

    def __init__(
        self,
        store: Store,
        sync: Sync,
        registry: Registry,
        *,
        abandoned_after: float = ABANDONED_AFTER,
    ) -> None:
        self.store = store
        self.sync = sync
        self.registry = registry
        self.abandoned_after = abandoned_after

    # ----------------------------------------------------------------- claims

    def claim(self, table: Table, seat_text: str, data: object = None) -> tuple[int, str]:
        """Claim a seat; returns the seat and its new token.

        ``data`` is the claim's body: ``None`` or ``{}``, or ``{"name": "<name>"}``, the
        name to show everyone for the seat ([`given_name`][allegra_rules.server.seats.given_name]).

        Raises:
            Refused: ``MALFORMED`` for a body of another shape, ``INVALID`` for a name
                that is not one, ``NOT_FOUND`` for a seat the table does not have,
                ``CONFLICT`` for a bot's seat or one already taken, ``GONE`` when the
                table has expired.
        """
        if data is None:
            data = {}
        if not isinstance(data, dict) or not set(data) <= {"name"}:
            raise Refused(Why.MALFORMED, "bad_body", 'the body must be {} or {"name": "<name>"}')
        name = given_name(data.get("name", ""))
        seat = seat_number(table, seat_text)
        self._check_not_expired(table)
        if seat in table.bots:
            raise Refused(Why.CONFLICT, "seat_is_bot", f"seat {seat} is played by a bot")
        token = secrets.token_urlsafe(32)
        digest = token_digest(token)
        if seat in table.tokens or not self.store.add_seat(table.id, seat, digest, name):
            raise Refused(Why.CONFLICT, "seat_taken", f"seat {seat} is already taken")
        table.tokens[seat] = digest
        if name is None:
            table.names.pop(seat, None)
        else:
            table.names[seat] = name
        self.sync.publish(table, seats=True)
        self.seen(table, seat)
        if name is None:
            announce(table)  # the seats changed: every page reads them again
        else:
            seats_changed(table)  # and the pictures name the seat: new views
        return seat, token

    def seat_of(self, table: Table, token: str) -> int:
        """The seat whose token ``token`` is (compared in constant time).

        With a shared store, a token not known here is looked for again in the
        database's seats before it is refused: a seat claimed through another process
        is valid here as soon as its claim has answered.

        Raises:
            Refused: ``NOT_ALLOWED`` (``wrong_token``) when it is no seat's token at
                this table.
        """
        digest = token_digest(token)
        found = seat_of_digest(table, digest)
        if found is None and self.sync.refresh(table):
            found = seat_of_digest(table, digest)
        if found is None:
            raise Refused(
                Why.NOT_ALLOWED, "wrong_token", "this token is not a seat's token at this table"
            )
        return found

    @staticmethod
    def seen(table: Table, seat: int) -> None:
        """The person of ``seat`` made a request with its token: a stand-in stops."""
        table.seen[seat] = time.monotonic()
        if seat in table.stand_in:
            table.stand_in.discard(seat)
            seats_changed(table)

    # ---------------------------------------------------------- the creator

    @staticmethod
    def check_creator(table: Table, token: str) -> None:
        """Check the creator's token (compared in constant time).

        Raises:
            Refused: ``NOT_ALLOWED`` (``not_creator``) when it is not the token this
                table's creator was given.
        """
        digest = token_digest(token)
        if table.creator is None or not hmac.compare_digest(table.creator, digest):
            raise Refused(
                Why.NOT_ALLOWED,
                "not_creator",
                "this token is not the creator's token of this table",
            )

    def hand_to_bot(
        self,
        table: Table,
        seat_text: str,
        data: object,
        allow: Callable[[dict[int, tuple[str, int]]], None] | None = None,
    ) -> None:
        """Let a bot play a seat from now on (the creator asks: ``{"bot": name}``, or none).

        The seat's token, if any, stops working. The bot is ``greedy`` unless named.
        ``allow`` is called with the table's bots as they would be, before anything
        changes: it may refuse (the creator's own limits, see ``Creation.allow_bots``).

        Raises:
            Refused: ``MALFORMED`` for a body that is not ``{}`` or ``{"bot": name}``,
                ``NOT_FOUND`` for a seat the table does not have, ``CONFLICT`` when the
                game is over, ``INVALID`` for an unknown bot, ``GONE`` when the table
                has expired.
        """
        seat = seat_number(table, seat_text)
        if data is None:
            data = {}
        if not isinstance(data, dict) or not set(data) <= {"bot"}:
            raise Refused(Why.MALFORMED, "bad_body", 'the body must be {} or {"bot": "<bot>"}')
        name = data.get("bot", "greedy")
        if not isinstance(name, str) or name not in BOT_KINDS:
            raise Refused(
                Why.INVALID,
                "invalid_bot",
                f"unknown bot {name!r:.40}; known bots: {', '.join(BOT_KINDS)}",
            )
        if (why := unavailable(name, table.config, table.num_players)) is not None:
            raise Refused(Why.INVALID, "invalid_bot", f"{name} cannot play here: {why}")
        if table.state.is_terminal:
            raise Refused(Why.CONFLICT, "game_over", "the game is over")
        self._check_not_expired(table)
        bot_seed = secrets.randbelow(2**31)
        bots = {**table.bots, seat: (name, bot_seed)}
        if allow is not None:
            allow(bots)
        if seat in table.tokens:
            self.store.remove_seat(table.id, seat)
        self.store.set_bots(table.id, bots)
        self.sync.publish(table, seats=True)
        table.tokens.pop(seat, None)
        table.names.pop(seat, None)
        table.bots = bots
        table.players[seat] = BOT_KINDS[name](bot_seed)
        table.stand_in.discard(seat)
        close_seat(table, seat)
        seats_changed(table)

    def free_seat(self, table: Table, seat_text: str) -> None:
        """Free a seat (the creator asks): its token stops working, or its bot leaves.

        Raises:
            Refused: ``NOT_FOUND`` for a seat the table does not have, ``CONFLICT``
                when the game is over or (``seed_chosen``) when freeing a bot's seat
                would make a second seat for people at a table whose seed the creator
                chose.
        """
        seat = seat_number(table, seat_text)
        if table.state.is_terminal:
            raise Refused(Why.CONFLICT, "game_over", "the game is over")
        _check_people_seats(table, seat)
        if seat in table.tokens:
            self.store.remove_seat(table.id, seat)
            table.tokens.pop(seat)
            table.names.pop(seat, None)
        if seat in table.bots:
            bots = {p: b for p, b in table.bots.items() if p != seat}
            self.store.set_bots(table.id, bots)
            table.bots = bots
            table.players.pop(seat, None)
        self.sync.publish(table, seats=True)
        table.seen.pop(seat, None)
        close_seat(table, seat)
        seats_changed(table)

    # ---------------------------------------------------------------- expiry

    def expired(self, table: Table, now: float | None = None) -> bool:
        """Whether ``table`` has no claimed seat and has not moved for ``abandoned_after`` s.

        A finished table never expires. An expired table does not count as open, and
        nobody may claim a seat at it or hand it to bots.
        """
        if table.tokens or table.state.is_terminal:
            return False
        now = time.time() if now is None else now
        return now - table.active >= self.abandoned_after

    def _check_not_expired(self, table: Table) -> None:
        """Refuse a change to an expired table (``GONE``, ``table_expired``)."""
        if self.expired(table):
            raise Refused(
                Why.GONE,
                "table_expired",
                f"table {table.id} expired: nobody took a seat and nothing moved for "
                f"{self.abandoned_after:g} seconds; create a new table",
            )

    def forget_expired(self, now: float | None = None) -> int:
        """Drop from memory every expired table that no socket watches; how many.

        They stay in the database (their ``GET`` still answers, from there).
        """
        gone = [t.id for t in self.registry if not t.subscribers and self.expired(t, now)]
        for table_id in gone:
            self.registry.drop(table_id)
        return len(gone)

    async def watch_expired(self) -> None:
        """Run ``forget_expired`` now and then, until cancelled (a server task)."""
        every = min(60.0, max(0.05, self.abandoned_after / 4))
        while True:
            await asyncio.sleep(every)
            try:
                self.forget_expired()
            except Exception:  # pragma: no cover - keep watching whatever one table does
                log.exception("the expiry watcher failed")
