"""The tables of the server: one object that the web application asks, and the parts it is made of.

[`Tables`][allegra_rules.server.tables.Tables] is what ``allegra_rules.server.app``
talks to. It holds no rule of its own: each job is a part of its own, in a module of its
own, and ``Tables`` only hands each request to the part whose job it is (and, after a
change, lets the bots move):

* ``creation``: a new table from a request's body, within the limits of each client and
  of the server;
* ``seats``: claims and tokens, the creator's seats and bots, expiry;
* ``moves``: a move checked, applied, stored and only then announced;
* ``bot_seats``: when a bot or a stand-in moves, in worker processes
  ([`Thinking`][allegra_rules.server.thinking.Thinking]), and which process plays them;
* ``sync``: the tables in memory kept true to the store when other processes change it,
  through the [`Transport`][allegra_rules.server.transport.Transport];
* ``watchers``: each socket's view after every change; ``registry``: the tables in
  memory; ``table``: one table (the [`Table`][allegra_rules.server.tables.Table]).

Everything here runs on the server's event loop, one step at a time. The parts refuse
with [`Refused`][allegra_rules.server.refusals.Refused] (a reason, a code, a message);
only the web application turns a refusal into an HTTP status or a socket's close code.

A seat only ever gets ``observe(state, seat)``; a spectator gets the public view,
``observe(state, None)`` (as data: [`public_view`][allegra_rules.server.tables.public_view]),
what every seat knows.
"""

from __future__ import annotations

from allegra_rules.table_view import LANGUAGES, public_view, seat_svg

from .bot_seats import BOT_WORKERS, SEAT_TIMEOUT, BotSeats
from .creation import (
    BOT_TABLES_PER_CLIENT,
    IDLE_SECONDS,
    MAX_SEATS,
    SEARCH_TABLES_PER_CLIENT,
    TABLES_PER_HOUR,
    Creation,
)
from .limits import VIEW_CACHE_BYTES, RateLimit, ViewCache
from .moves import Moves
from .refusals import Refused, Why
from .registry import Registry
from .seats import ABANDONED_AFTER, Seats, seat_number
from .store import Store
from .sync import Sync
from .table import Subscriber, Table
from .thinking import MOVE_BUDGET, Thinking
from .transport import Transport
from .watchers import subscribe

__all__ = [
    "ABANDONED_AFTER",
    "BOT_TABLES_PER_CLIENT",
    "BOT_WORKERS",
    "IDLE_SECONDS",
    "LANGUAGES",
    "MAX_SEATS",
    "MOVE_BUDGET",
    "SEARCH_TABLES_PER_CLIENT",
    "SEAT_TIMEOUT",
    "TABLES_PER_HOUR",
    "VIEW_CACHE_BYTES",
    "RateLimit",
    "Refused",
    "Subscriber",
    "Table",
    "Tables",
    "ViewCache",
    "Why",
    "public_view",
    "seat_svg",
]


class Tables:
    """Every table of one server, in memory and in a [`Store`][allegra_rules.server.store.Store].

    Args:
        store: the database.
        transport: how this process and the others sharing ``store`` hear of each
            other's changes (default: an ``InProcessTransport``, one process).
        max_open_tables: how many tables may count as open; creating one more is refused
            (``FULL``) with the seconds until one of them stops counting.
        idle_seconds: an unfinished table counts as open until this long after its
            creation or last move.
        abandoned_after: a table with no claimed seat expires this long after its
            creation or last move: it stops counting as open and takes no claim.
        view_cache_bytes: the size of the cache of rendered views (bytes of text).
        tables_per_hour: how many tables one client address may create per hour.
        seat_timeout: seconds a seat may be idle while it is to act before a stand-in
            bot (greedy) plays it; 0 never.
        bot_workers: the worker processes the bots of every table think in (one for
            the cheap bots, the others for the searches; see
            [`Thinking`][allegra_rules.server.thinking.Thinking]).
        bot_tables_per_client: how many unfinished tables of bots only one client
            address may have created.
        search_tables_per_client: how many unfinished tables with a search bot one
            client address may have created.
        move_budget: seconds a search bot may think about one move.

    Attributes:
        registry: the tables in memory.
        sync: keeps them true to the store (and tells the other processes).
        creation: makes new tables.
        seats: claims, tokens, the creator's seats, expiry.
        moves: the seats' moves.
        bots: the bots' moves and stand-ins.
    """

    def __init__(
        self,
        store: Store,
        transport: Transport | None = None,
        *,
        max_open_tables: int = 1000,
        idle_seconds: float = IDLE_SECONDS,
        abandoned_after: float = ABANDONED_AFTER,
        view_cache_bytes: int = VIEW_CACHE_BYTES,
        tables_per_hour: int = TABLES_PER_HOUR,
        seat_timeout: float = SEAT_TIMEOUT,
        bot_workers: int = BOT_WORKERS,
        bot_tables_per_client: int = BOT_TABLES_PER_CLIENT,
        search_tables_per_client: int = SEARCH_TABLES_PER_CLIENT,
        move_budget: float = MOVE_BUDGET,
    ) -> None:
        self.store = store
        self.views = ViewCache(view_cache_bytes)
        self.registry = Registry(store, self.views)
        self.sync = Sync(store, transport, self.registry, after_reload=self.schedule_bots)
        self.creation = Creation(
            store,
            self.registry,
            self.views,
            max_open_tables=max_open_tables,
            idle_seconds=idle_seconds,
            abandoned_after=abandoned_after,
            tables_per_hour=tables_per_hour,
            bot_tables_per_client=bot_tables_per_client,
            search_tables_per_client=search_tables_per_client,
        )
        self.seats = Seats(store, self.sync, self.registry, abandoned_after=abandoned_after)
        self.moves = Moves(store, self.sync, self.registry)
        self.bots = BotSeats(
            store,
            self.registry,
            self.sync,
            self.moves,
            Thinking(bot_workers, budget=move_budget),
            seat_timeout=seat_timeout,
        )

    @property
    def thinking(self) -> Thinking:
        """The worker processes the bots think in."""
        return self.bots.thinking

    @thinking.setter
    def thinking(self, thinking: Thinking) -> None:
        self.bots.thinking = thinking

    def close(self) -> None:
        """Stop the bots' worker processes (a bot still thinking finishes, unheard)."""
        self.bots.thinking.close()

    # ---------------------------------------------------------------- tables

    def create(self, data: object, client: str | None = None) -> Table:
        """Create a table from a ``POST /api/tables`` body (parsed JSON).

        See [`create_with_token`][allegra_rules.server.tables.Tables.create_with_token].
        """
        return self.create_with_token(data, client)[0]

    def create_with_token(self, data: object, client: str | None = None) -> tuple[Table, str]:
        """Create a table from a ``POST /api/tables`` body; also its creator's token.

        ``client`` is the address the request came from. Its bots start at once.

        Raises:
            Refused: ``INVALID`` for a body that names no valid game, ``TOO_MANY`` when
                ``client`` reached one of its limits, ``FULL`` when too many tables are
                open (see ``allegra_rules.server.creation``).
        """
        table, token = self.creation.create(data, client)
        self.schedule_bots(table)
        return table, token

    def get(self, table_id: str) -> Table:
        """The table ``table_id``, loaded from the database if need be.

        Raises:
            Refused: ``NOT_FOUND`` when there is no such table.
        """
        return self.registry.get(table_id)

    def resume(self) -> int:
        """Load every unfinished table and let its bots move; returns how many there are.

        Expired tables (see ``expired``) are left in the database, not in memory.
        """
        ids = self.store.unfinished()
        for table_id in ids:
            table = self.registry.get(table_id)
            if self.seats.expired(table):
                self.registry.drop(table_id)
            else:
                self.schedule_bots(table)
        return len(ids)

    def catch_up(self, table: Table) -> None:
        """Read ``table`` again when another process stored moves this one lacks.

        Called before a view is read (see ``Sync.catch_up``).
        """
        self.sync.catch_up(table)

    def listen(self) -> None:
        """Hear of the changes other processes make (call on the running event loop)."""
        self.sync.listen()

    def notified(self, table_id: str, version: int | None) -> None:
        """Another process moved ``table_id`` to ``version`` (``None``: changed its seats)."""
        self.sync.notified(table_id, version)

    # ---------------------------------------------------------- seats, tokens

    def claim(self, table: Table, seat_text: str, data: object = None) -> tuple[int, str]:
        """Claim a seat; returns the seat and its new token (see ``Seats.claim``)."""
        return self.seats.claim(table, seat_text, data)

    seat_number = staticmethod(seat_number)

    def seat_of(self, table: Table, token: str) -> int:
        """The seat whose token ``token`` is (see ``Seats.seat_of``)."""
        return self.seats.seat_of(table, token)

    def seen(self, table: Table, seat: int) -> None:
        """The person of ``seat`` made a request with its token: a stand-in stops."""
        self.seats.seen(table, seat)

    def check_creator(self, table: Table, token: str) -> None:
        """Check the creator's token (see ``Seats.check_creator``)."""
        self.seats.check_creator(table, token)

    def hand_to_bot(
        self, table: Table, seat_text: str, data: object, client: str | None = None
    ) -> None:
        """Let a bot play a seat from now on (see ``Seats.hand_to_bot``); it moves at once.

        ``client``: the creator's address. A table that becomes one of bots only, or
        gains its first search bot, counts against that client's limits as a table
        created so would (see ``Creation.allow_bots``).

        Raises:
            Refused: as ``Seats.hand_to_bot``, and ``TOO_MANY`` over the client's limits.
        """
        self.seats.hand_to_bot(
            table, seat_text, data, lambda bots: self.creation.allow_bots(table, bots, client)
        )
        self.schedule_bots(table)

    def free_seat(self, table: Table, seat_text: str) -> None:
        """Free a seat (see ``Seats.free_seat``)."""
        self.seats.free_seat(table, seat_text)

    def expired(self, table: Table, now: float | None = None) -> bool:
        """Whether ``table`` expired (see ``Seats.expired``)."""
        return self.seats.expired(table, now)

    def forget_expired(self, now: float | None = None) -> int:
        """Drop every expired, unwatched table from memory; how many."""
        return self.seats.forget_expired(now)

    async def watch_expired(self) -> None:
        """Drop expired tables from memory now and then, until cancelled (a server task)."""
        await self.seats.watch_expired()

    # ------------------------------------------------------------------ moves

    def move(self, table: Table, seat: int, data: object) -> None:
        """Check and apply a seat's move (see ``Moves.move``); then the bots move."""
        self.moves.move(table, seat, data)
        self.schedule_bots(table)

    # ------------------------------------------------------------------- bots

    def schedule_bots(self, table: Table) -> None:
        """Let a bot think when it is a bot's (or a stand-in's) move (``BotSeats.schedule``)."""
        self.bots.schedule(table)

    def hold_idle_bots(self) -> int:
        """Renew this process's hold on bots, take over those no process holds."""
        return self.bots.hold_idle_bots()

    async def watch_bots(self) -> None:
        """Keep this process's holds on bots, until cancelled (a server task)."""
        await self.bots.watch_bots()

    def stand_in_idle_seats(self, now: float | None = None) -> int:
        """Let a stand-in play every seat idle past the seat timeout; how many started."""
        return self.bots.stand_in_idle_seats(now)

    async def watch_seats(self) -> None:
        """Start stand-ins now and then, until cancelled (a server task)."""
        await self.bots.watch_seats()

    # ---------------------------------------------------------------- watchers

    @staticmethod
    def subscribe(table: Table, seat: int | None, *, svg: bool, lang: str) -> Subscriber:
        """A new watcher of ``table``; its queue already holds the current view."""
        return subscribe(table, seat, svg=svg, lang=lang)

    def unsubscribe(self, table: Table, sub: Subscriber) -> None:
        """Stop sending views to ``sub``; a finished table nobody watches leaves memory."""
        table.subscribers.discard(sub)
        self.registry.forget_if_done(table)

    @staticmethod
    def record_json(table: Table) -> str:
        """The finished game's record (``GameRecord.to_json``).

        Raises:
            Refused: ``CONFLICT`` (``game_not_over``) while the game is not over.
        """
        if not table.state.is_terminal:
            raise Refused(
                Why.CONFLICT, "game_not_over", "the record is public once the game is over"
            )
        return table.record().to_json()
