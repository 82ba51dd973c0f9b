"""The tables of the server: creating them, seats and tokens, moves, bots and views.

Everything here runs on the server's event loop, one step at a time: a move is checked,
applied with ``apply(state, action, player=seat)``, stored (see
[`Store`][allegra_rules.server.store.Store]) and only then announced, to the client that
made it and to every socket watching the table. Bots move by themselves as soon as it is
their seat's move: after a person's move, when a table is created, and when the server
starts again. They think in worker processes (``bot_workers`` of them), never on the
event loop: [`Thinking`][allegra_rules.server.thinking.Thinking] serves the tables in turn,
in a lane of cheap bots and a lane of searches, each with processes of its own.

The server's resources are bounded: rendered views are kept in one LRU cache of at most
``view_cache_bytes`` bytes, a table has at most ``MAX_SEATS`` seats, each client address
may create ``tables_per_hour`` tables an hour (429 after that), at most
``bot_tables_per_client`` unfinished tables of bots only and ``search_tables_per_client``
unfinished tables with a search bot (429 after that), and a seat that is to act
but idle for ``seat_timeout`` seconds is played by a stand-in bot (greedy) until its
person comes back.

A seat only ever gets ``observe(state, seat)``; a spectator gets the public view,
``observe(state, None)`` (as data: [`public_view`][allegra_rules.server.tables.public_view]),
what every seat knows.

Several server processes may share one database (PostgreSQL). After each change (a
move stored, seats or bots changed) a process publishes a
[`Notice`][allegra_rules.server.transport.Notice] on its
[`Transport`][allegra_rules.server.transport.Transport]; each hears those of the others
(``listen``, then ``notified``) and reads such a table again, exactly as after a move
refused as stale, so that its sockets get the new views. A table's bots
are played by the one process that holds them (``Store.hold_bots``); ``watch_bots``
renews that hold and takes a table's bots over once another process's hold has expired.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import secrets
import time
import uuid
from typing import Any

import attrs

from allegra_rules.actions import Action
from allegra_rules.bot_kinds import BOT_KINDS, unavailable
from allegra_rules.bots import Bot, GreedyBot
from allegra_rules.config import RuleConfig
from allegra_rules.presets import preset, preset_id
from allegra_rules.records import GameRecord, commit_deal, preset_id_of
from allegra_rules.serialize import (
    SaveFormatError,
    action_from_dict,
    action_to_dict,
    state_from_json,
    state_to_json,
)
from allegra_rules.state import GameState, Phase
from allegra_rules.table_view import (
    LANGUAGES,
    Move,
    public_view,
    recent,
    remember,
    seat_document,
    seat_svg,
)
from allegra_rules.transitions import IllegalActionError, apply, new_game

from .limits import VIEW_CACHE_BYTES, RateLimit, ViewCache, ViewKey
from .store import Deal, StaleVersion, Store, TableRow
from .thinking import MOVE_BUDGET, SEARCH, Thinking, decide, lane_of, move_seed
from .transport import InProcessTransport, Notice, Transport

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
    "ApiError",
    "RateLimit",
    "RateLimited",
    "Subscriber",
    "Table",
    "Tables",
    "TooManyTables",
    "ViewCache",
    "public_view",
    "seat_svg",
]

log = logging.getLogger("allegra_rules.server")


_CREATE_KEYS = frozenset({"players", "preset", "config", "max_turns", "bots", "seed"})
_SEED_LIMIT = 2**63

MAX_SEATS = 6
"""The most seats a table may have (and the most ``max_players`` its rules may ask for)."""

TABLES_PER_HOUR = 20
"""The default number of tables one client address may create per hour."""

SEAT_TIMEOUT = 300.0
"""The default seconds a seat may be idle while it is to act before a bot stands in."""

BOT_WORKERS = 2
"""The default number of worker processes the bots of all tables think in.

One is the cheap bots' lane, the others the searches' (see
[`Thinking`][allegra_rules.server.thinking.Thinking]).
"""

BOT_TABLES_PER_CLIENT = 2
"""The default number of unfinished tables of bots only one client address may have created."""

SEARCH_TABLES_PER_CLIENT = 2
"""The default number of unfinished tables with a search bot one client address may have created.

The search bots are those of ``allegra_rules.server.thinking.EXPENSIVE_BOTS``.
"""

IDLE_SECONDS = 86400.0
"""The default seconds after its last move that an unfinished table stops counting as open."""

ABANDONED_AFTER = 600.0
"""The default seconds after which a table with no claimed seat and no move expires.

Counted from its creation or its last move (a bot's included): such a table no longer
counts as open, and nobody may claim a seat at it any more (410 ``table_expired``).
"""


class ApiError(Exception):
    """A request the server refuses: an HTTP status, a short code and a message.

    Attributes:
        status: the HTTP status code.
        code: a short machine-readable code, such as ``"stale_version"``.
        message: what was wrong, in words.
    """

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message

    def body(self) -> dict[str, str]:
        """The JSON error body, ``{"error": code, "message": message}``."""
        return {"error": self.code, "message": self.message}


class RateLimited(ApiError):
    """A 429: too many requests of one kind from one client; ``retry_after`` seconds."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(429, "too_many_requests", message)
        self.retry_after = retry_after


class TooManyTables(ApiError):
    """A 503: the server has as many open tables as it allows.

    Attributes:
        retry_after: the seconds until enough of them stop counting as open, should
            none of them move before.
    """

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(503, "too_many_tables", message)
        self.retry_after = retry_after


@attrs.define(eq=False)
class Subscriber:
    """A socket watching a table: its seat (``None``: a spectator) and its message queue.

    Attributes:
        seat: the seat whose views it gets, or ``None`` for the public view.
        svg: whether its messages carry the table picture (``"svg"``).
        lang: the picture's language (``en``, ``de``, ``pl``, ``fr``).
        queue: JSON texts to send, in order; ``None`` asks the socket to close.
    """

    seat: int | None
    svg: bool
    lang: str
    queue: asyncio.Queue[str | None] = attrs.field(factory=asyncio.Queue)


@attrs.define(eq=False)
class Table:
    """One table in memory: its game, seats, bots and watchers.

    Attributes:
        id: the public id (in links and URLs).
        config: the rules.
        preset: the pinned preset id the rules equal, or ``None``.
        seed: the game's seed, never sent before the game is over.
        bots: bot seats: seat -> (bot name, bot seed).
        players: the bot objects of the bot seats (a move is decided by a bot built
            afresh from its name and seed: see ``allegra_rules.server.thinking``).
        tokens: the claimed seats: seat -> SHA-256 digest of its token.
        state: the current state.
        actions: every action applied so far.
        subscribers: the sockets watching the table.
        bots_pending: a bot move is scheduled on the event loop.
        creator: the SHA-256 digest of the creator's token (``None``: none stored).
        stand_in: the seats a stand-in bot plays while their person is away.
        turn_since: when (``time.monotonic``) the seat to act got its turn.
        seen: seat -> when its person last made a request with its token.
        generation: counts changes of the seats (stand-ins, bots, freed seats) that
            change the views without a move.
        cache: the server's cache of rendered views (``None``: no caching).
        moves: the last moves, for the views' ``log`` (see ``allegra_rules.server.log``).
        active: when (epoch s, ``time.time``) the table was created or last moved.
        deal: the commitment to the deal (its salt secret until the game is over),
            ``None`` for a table an older server made.
    """

    id: str
    config: RuleConfig
    preset: str | None
    seed: int
    bots: dict[int, tuple[str, int]]
    players: dict[int, Bot]
    tokens: dict[int, bytes]
    state: GameState
    actions: list[Action]
    subscribers: set[Subscriber] = attrs.field(factory=set)
    bots_pending: bool = False
    creator: bytes | None = None
    stand_in: set[int] = attrs.field(factory=set)
    turn_since: float = attrs.field(factory=time.monotonic)
    seen: dict[int, float] = attrs.field(factory=dict)
    generation: int = 0
    cache: ViewCache | None = None
    moves: list[Move] = attrs.field(factory=list)
    active: float = attrs.field(factory=time.time)
    deal: Deal | None = None

    @property
    def num_players(self) -> int:
        """The seat count."""
        return self.state.num_players

    @property
    def version(self) -> int:
        """The number of actions applied so far."""
        return len(self.actions)

    def info(self) -> dict[str, Any]:
        """The table's public facts: rules, seats (bot, taken), version, whether it is over.

        Also the deal's commitment and whether the creator chose the seed (both
        ``None`` for a table an older server made), and once the game is over the
        seed and the salt (``deal_facts``).
        """
        return {
            "table": self.id,
            "players": self.num_players,
            "preset": self.preset,
            "config": self.config.to_dict(),
            "seats": [
                {
                    "seat": p,
                    "bot": self.bots[p][0] if p in self.bots else None,
                    "taken": p in self.bots or p in self.tokens,
                }
                for p in range(self.num_players)
            ],
            "version": self.version,
            "over": self.state.is_terminal,
            "stand_in": sorted(self.stand_in),
            **self.deal_facts(),
        }

    def deal_facts(self) -> dict[str, Any]:
        """``deal_commitment`` and ``seed_chosen``; once over, also ``seed`` and ``deal_salt``.

        Before the game is over nothing here tells the seed or the salt.
        """
        deal = self.deal
        facts: dict[str, Any] = {
            "deal_commitment": None if deal is None else deal.commitment,
            "seed_chosen": None if deal is None else deal.seed_chosen,
        }
        if self.state.is_terminal:
            facts["seed"] = self.seed
            facts["deal_salt"] = None if deal is None else deal.salt.hex()
        return facts

    def people_seats(self, bots: dict[int, tuple[str, int]] | None = None) -> int:
        """How many seats are for people: those no bot plays (with ``bots``, if given)."""
        return self.num_players - len(self.bots if bots is None else bots)

    def body(self, seat: int | None, *, svg: bool = False, lang: str = "en") -> dict[str, Any]:
        """The view document of ``seat`` (``None``: public) plus ``version`` and ``log``.

        Built by [`seat_document`][allegra_rules.table_view.seat_document] from the last
        moves (see ``allegra_rules.table_view.recent``), the same document the table in
        the browser sends: ``log`` names no card the seat has not seen; with ``svg``
        also the picture and, for a seat, ``action_texts``.
        """
        moves = recent(self.moves, self.version, self.record)
        return seat_document(
            self.state, seat, version=self.version, moves=moves, svg=svg, lang=lang
        )

    def text(self, seat: int | None, *, svg: bool = False, lang: str = "en") -> str:
        """``body`` plus ``stand_in`` (the seats a stand-in bot plays) as JSON text.

        The text is kept in ``cache`` for the current version and seats.
        """
        key: ViewKey = (self.id, self.version, self.generation, seat, svg, lang)
        cache = self.cache
        text = cache.get(key) if cache is not None else None
        if text is None:
            data = self.body(seat, svg=svg, lang=lang)
            data["stand_in"] = sorted(self.stand_in)
            text = json.dumps(data, separators=(",", ":"))
            if cache is not None:
                cache.put(key, text)
        return text

    def record(self) -> GameRecord:
        """The game record so far."""
        return GameRecord(
            num_players=self.num_players,
            config=self.config,
            seed=self.seed,
            actions=tuple(self.actions),
            preset=self.preset,
            schema_version=self.state.schema_version,  # a stored game keeps its version
            deal_commitment=None if self.deal is None else self.deal.commitment,
            deal_salt=None if self.deal is None else self.deal.salt.hex(),
        )


def _row_state(row: TableRow, config: RuleConfig) -> GameState:
    """A stored table's state: its saved state, or its moves replayed (an older format)."""
    try:
        return state_from_json(row.state)
    except SaveFormatError:
        state = new_game(row.num_players, config=config, seed=row.seed)
        for data in row.actions:
            state = apply(state, action_from_dict(data, num_players=row.num_players))
        return state


def _follow(table: Table, added: list[Action]) -> bool:
    """Apply to ``table``'s state the moves another process stored after it; whether done.

    The engine is a function of the state and the action, so this is the state stored
    with the last of them, at a fraction of the cost of decoding it, and the moves join
    the log (``table.moves``) with the words already given to the earlier ones. A move
    that does not apply (never, unless the table in memory is not the stored one) leaves
    the table as it was and returns False: the caller then takes the stored state.
    """
    state, moves = table.state, list(table.moves)
    try:
        for k, action in enumerate(added, start=table.version + 1):
            seat = state.current_player
            if seat is None:
                return False
            after = apply(state, action)
            remember(moves, k, seat, state, action, after)
            state = after
    except IllegalActionError:
        return False
    table.state = state
    table.moves[:] = moves
    return True


def _seat_of_digest(table: Table, digest: bytes) -> int | None:
    """The seat whose stored token digest is ``digest`` (compared in constant time), or None."""
    found = None
    for seat, stored in table.tokens.items():
        if hmac.compare_digest(stored, digest):
            found = seat
    return found


def _deal(seed: object, people: int) -> tuple[int, Deal]:
    """The seed of a new table (the one chosen, or a random one) and its commitment.

    ``people``: the seats no bot plays. A seed may be chosen only when at most one
    seat is for a person: whoever chooses it knows every card of the deal.

    Raises:
        ApiError: 422 for a seed that is not an integer 0..2**63-1, or a chosen seed
            at a table with more than one seat for people.
    """
    if seed is None:
        seed = secrets.randbelow(_SEED_LIMIT)
        chosen = False
    elif type(seed) is not int or not 0 <= seed < _SEED_LIMIT:
        raise ApiError(422, "invalid_table", f"seed must be an integer 0..2**63-1; got {seed!r}")
    elif people > 1:
        raise ApiError(
            422,
            "invalid_table",
            f"a chosen seed is refused when more than one seat is for people (here {people}): "
            "whoever chooses the seed knows every card of the deal. Leave the seed out, or "
            "give every other seat to a bot",
        )
    else:
        chosen = True
    salt, commitment = commit_deal(seed)
    return seed, Deal(salt=salt, commitment=commitment, seed_chosen=chosen)


def _check_people_seats(table: Table, seat: int) -> None:
    """Refuse to free a bot's seat when that would give a chosen seed's table a second person.

    Raises:
        ApiError: 409 ``seed_chosen``.
    """
    if table.deal is None or not table.deal.seed_chosen or seat not in table.bots:
        return
    people = table.people_seats({p: b for p, b in table.bots.items() if p != seat})
    if people > 1:
        raise ApiError(
            409,
            "seed_chosen",
            f"the creator chose this table's seed, so at most one seat may be for a person; "
            f"freeing seat {seat}'s bot would make {people}",
        )


def token_digest(token: str) -> bytes:
    """The SHA-256 digest of a token, as stored."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


class Tables:
    """Every table of one server, in memory and in a [`Store`][allegra_rules.server.store.Store].

    Args:
        store: the database.
        transport: how this process and the others sharing ``store`` hear of each
            other's changes (default: an ``InProcessTransport``, one process).
        max_open_tables: how many tables may count as open; creating one more is refused
            with 503 and a ``Retry-After`` saying when one of them stops counting.
        idle_seconds: an unfinished table counts as open until this long after its
            creation or last move.
        abandoned_after: a table with no claimed seat expires this long after its
            creation or last move: it stops counting as open and takes no claim.
        view_cache_bytes: the size of the cache of rendered views (bytes of text).
        tables_per_hour: how many tables one client address may create per hour
            (429 after that).
        seat_timeout: seconds a seat may be idle while it is to act before a stand-in
            bot (greedy) plays it; 0 never.
        bot_workers: the worker processes the bots of every table think in (one for
            the cheap bots, the others for the searches; see
            [`Thinking`][allegra_rules.server.thinking.Thinking]).
        bot_tables_per_client: how many unfinished tables of bots only one client
            address may have created (429 ``too_many_bot_tables`` after that).
        search_tables_per_client: how many unfinished tables with a search bot one
            client address may have created (429 ``too_many_search_tables`` after that).
        move_budget: seconds a search bot may think about one move.
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
        self.transport: Transport = InProcessTransport() if transport is None else transport
        self.origin = uuid.uuid4().hex
        """This process's name in the notices it publishes."""
        self.max_open_tables = max_open_tables
        self.idle_seconds = idle_seconds
        self.abandoned_after = abandoned_after
        # Another process may store moves and claims (PostgreSQL): what is in memory is
        # checked against the database before a view is sent or a token refused.
        self.shared = store.bot_lease > 0
        self.seat_timeout = seat_timeout
        self.views = ViewCache(view_cache_bytes)
        self.created = RateLimit(tables_per_hour)
        self.bot_workers = bot_workers
        self.bot_tables_per_client = bot_tables_per_client
        self.search_tables_per_client = search_tables_per_client
        self.thinking = Thinking(bot_workers, budget=move_budget)
        self._tables: dict[str, Table] = {}
        self._held: set[str] = set()
        self._created_by: dict[str, set[str]] = {}

    def close(self) -> None:
        """Stop the bots' worker processes (a bot still thinking finishes, unheard)."""
        self.thinking.close()

    # ---------------------------------------------------------------- tables

    def create(self, data: object, client: str | None = None) -> Table:
        """Create a table from a ``POST /api/tables`` body (parsed JSON).

        See [`create_with_token`][allegra_rules.server.tables.Tables.create_with_token].
        """
        return self.create_with_token(data, client)[0]

    def create_with_token(self, data: object, client: str | None = None) -> tuple[Table, str]:
        """Create a table from a ``POST /api/tables`` body; also its creator's token.

        ``client`` is the address the request came from: each may create
        ``tables_per_hour`` tables an hour.

        Raises:
            ApiError: 422 for a body that names no valid game (or more than
                ``MAX_SEATS`` seats), 429 (a ``RateLimited``) when ``client`` created
                too many tables this hour, 503 when too many tables are open.
        """
        if not isinstance(data, dict):
            raise ApiError(422, "invalid_table", "the body must be a JSON object")
        unknown = sorted(set(data) - _CREATE_KEYS)
        if unknown:
            raise ApiError(
                422,
                "invalid_table",
                f"unknown keys {unknown}; allowed: {', '.join(sorted(_CREATE_KEYS))}",
            )
        players = data.get("players")
        if type(players) is not int:
            raise ApiError(422, "invalid_table", "players must be an integer (the seat count)")
        config, pinned = self._rules(data)
        if "max_turns" in data:
            turns = data["max_turns"]
            if type(turns) is not int or not 1 <= turns <= config.max_turns_per_round:
                raise ApiError(
                    422,
                    "invalid_table",
                    f"max_turns must be an integer 1..{config.max_turns_per_round}; got {turns!r}",
                )
            config = attrs.evolve(config, max_turns_per_round=turns)
            pinned = preset_id_of(config)
        if players > MAX_SEATS or config.max_players > MAX_SEATS:
            raise ApiError(
                422,
                "invalid_table",
                f"a table has at most {MAX_SEATS} seats; got players {players}, "
                f"max_players {config.max_players}",
            )
        if not config.min_players <= players <= config.max_players:
            raise ApiError(
                422,
                "invalid_table",
                f"players must be {config.min_players}..{config.max_players} for these rules; "
                f"got {players}",
            )
        bots = self._bots(data.get("bots", {}), players, config)
        seed, deal = _deal(data.get("seed"), players - len(bots))
        try:
            state = new_game(players, config=config, seed=seed)
        except ValueError as exc:
            raise ApiError(422, "invalid_table", str(exc)) from None
        address = client or "unknown"
        self._check_bot_tables(address, bots, players)
        wait = self.created.check(address)
        if wait:
            raise RateLimited(
                f"this address created {self.created.limit} tables within the hour; "
                f"try again in {wait:.0f} seconds",
                wait,
            )
        self._check_room()
        table_id = secrets.token_urlsafe(9)
        creator_token = secrets.token_urlsafe(32)
        self.store.add_table(
            table_id=table_id,
            num_players=players,
            config=config.to_json(),
            preset=pinned,
            seed=seed,
            bots=bots,
            state=state_to_json(state),
            creator=token_digest(creator_token),
            deal=deal,
        )
        self.created.add(address)
        self._created_by.setdefault(address, set()).add(table_id)
        table = Table(
            id=table_id,
            config=config,
            preset=pinned,
            seed=seed,
            bots=bots,
            players={p: BOT_KINDS[name](bot_seed) for p, (name, bot_seed) in bots.items()},
            tokens={},
            state=state,
            actions=[],
            creator=token_digest(creator_token),
            cache=self.views,
            deal=deal,
        )
        self._tables[table_id] = table
        self.schedule_bots(table)
        return table, creator_token

    def _check_room(self, now: float | None = None) -> None:
        """Refuse a new table while ``max_open_tables`` tables count as open.

        Raises:
            TooManyTables: with the seconds until enough of them stop counting, should
                none of them move before.
        """
        now = time.time() if now is None else now
        counted = self.store.open_tables(now - self.idle_seconds, now - self.abandoned_after)
        extra = len(counted) - self.max_open_tables
        if extra < 0:
            return
        closing = sorted(
            updated + (self.idle_seconds if claimed else self.abandoned_after)
            for updated, claimed in counted
        )
        wait = max(closing[extra] - now, 1.0)
        raise TooManyTables(
            f"the server already has {self.max_open_tables} open tables; "
            f"try again in {wait:.0f} seconds",
            wait,
        )

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
        """Raises ApiError 410 ``table_expired`` when ``table`` has expired."""
        if self.expired(table):
            raise ApiError(
                410,
                "table_expired",
                f"table {table.id} expired: nobody took a seat and nothing moved for "
                f"{self.abandoned_after:g} seconds; create a new table",
            )

    def forget_expired(self, now: float | None = None) -> int:
        """Drop from memory every expired table that no socket watches; how many.

        They stay in the database (their ``GET`` still answers, from there).
        """
        gone = [t.id for t in self._tables.values() if not t.subscribers and self.expired(t, now)]
        for table_id in gone:
            del self._tables[table_id]
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

    def _check_bot_tables(
        self, address: str, bots: dict[int, tuple[str, int]], players: int
    ) -> None:
        """Refuse a table of bots only, or with a search bot, over ``address``'s limits.

        Counted are the unfinished tables in memory that ``address`` created and that
        have bots only (``bot_tables_per_client``), or a search bot
        (``search_tables_per_client``), now. The refusal has no ``Retry-After``: when a
        game of bots ends cannot be known (a 6-seat game of searches runs for hours).

        Raises:
            ApiError: 429 ``too_many_bot_tables`` or ``too_many_search_tables``.
        """
        search = any(lane_of(name) == SEARCH for name, _ in bots.values())
        bot_only = len(bots) == players
        if not (search or bot_only):
            return
        for key, ids in list(self._created_by.items()):  # forget the finished tables
            ids.difference_update(
                [t for t in ids if t not in self._tables or self._tables[t].state.is_terminal]
            )
            if not ids:
                del self._created_by[key]
        mine = [self._tables[t] for t in self._created_by.get(address, ())]
        if search:
            count = sum(
                1 for t in mine if any(lane_of(name) == SEARCH for name, _ in t.bots.values())
            )
            if count >= self.search_tables_per_client:
                raise ApiError(
                    429,
                    "too_many_search_tables",
                    f"this address already has {count} unfinished tables with a search bot "
                    f"(at most {self.search_tables_per_client}); create another when one "
                    "is over",
                )
        if bot_only:
            count = sum(1 for t in mine if len(t.bots) == t.num_players)
            if count >= self.bot_tables_per_client:
                raise ApiError(
                    429,
                    "too_many_bot_tables",
                    f"this address already has {count} unfinished tables of bots only "
                    f"(at most {self.bot_tables_per_client}); create another when one is over",
                )

    @staticmethod
    def _rules(data: dict[str, Any]) -> tuple[RuleConfig, str | None]:
        if "config" in data:
            if "preset" in data:
                raise ApiError(422, "invalid_table", "give either preset or config, not both")
            if not isinstance(data["config"], dict):
                raise ApiError(422, "invalid_table", "config must be an object (RuleConfig)")
            try:
                config = RuleConfig.from_json(json.dumps(data["config"]))
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                raise ApiError(422, "invalid_table", f"config: {str(exc)[:300]}") from None
            return config, preset_id_of(config)
        name = data.get("preset", "seeds")
        if not isinstance(name, str) or len(name) > 64:
            raise ApiError(422, "invalid_table", "preset must be a preset id, such as 'seeds'")
        try:
            return preset(name), preset_id(name)
        except ValueError as exc:
            raise ApiError(422, "invalid_table", str(exc)) from None

    @staticmethod
    def _bots(value: object, players: int, config: RuleConfig) -> dict[int, tuple[str, int]]:
        if not isinstance(value, dict):
            raise ApiError(422, "invalid_table", 'bots must be an object {"<seat>": "<bot>"}')
        bots: dict[int, tuple[str, int]] = {}
        for key, name in value.items():
            # A seat is a canonical decimal: "0", "1", ..., no sign, no leading zero.
            canonical = len(key) <= 2 and key.isascii() and key.isdigit() and key == str(int(key))
            if not (canonical and int(key) < players):
                raise ApiError(
                    422, "invalid_table", f"bots: {key[:20]!r} is not a seat 0..{players - 1}"
                )
            if not isinstance(name, str) or name not in BOT_KINDS:
                raise ApiError(
                    422,
                    "invalid_table",
                    f"bots: unknown bot {name!r:.40}; known bots: {', '.join(BOT_KINDS)}",
                )
            if (why := unavailable(name, config, players)) is not None:
                raise ApiError(422, "invalid_table", f"bots: {name} cannot play here: {why}")
            bots[int(key)] = (name, secrets.randbelow(2**31))
        return bots

    def get(self, table_id: str) -> Table:
        """The table ``table_id``, loaded from the database if need be.

        Raises:
            ApiError: 404 when there is no such table.
        """
        table = self._tables.get(table_id)
        if table is not None:
            return table
        row = self.store.load(table_id) if len(table_id) <= 64 else None
        if row is None:
            raise ApiError(404, "unknown_table", f"there is no table {table_id[:64]!r}")
        config = RuleConfig.from_json(row.config)
        state = _row_state(row, config)
        actions = [action_from_dict(a, num_players=row.num_players) for a in row.actions]
        table = Table(
            id=row.id,
            config=config,
            preset=row.preset,
            seed=row.seed,
            bots=row.bots,
            players={p: BOT_KINDS[name](bot_seed) for p, (name, bot_seed) in row.bots.items()},
            tokens=row.seats,
            state=state,
            actions=actions,
            creator=row.creator,
            cache=self.views,
            active=row.updated or time.time(),
            deal=row.deal,
        )
        self._tables[table_id] = table
        return table

    def resume(self) -> int:
        """Load every unfinished table and let its bots move; returns how many there are.

        Expired tables (see ``expired``) are left in the database, not in memory.
        """
        ids = self.store.unfinished()
        for table_id in ids:
            table = self.get(table_id)
            if self.expired(table):
                del self._tables[table_id]
            else:
                self.schedule_bots(table)
        return len(ids)

    def sync(self, table: Table) -> None:
        """Catch ``table`` up with the moves another process stored (a shared store only).

        Called before a view is read: a view read on any process after a move was
        answered shows that move, without waiting for the database's notice.
        """
        if not self.shared:
            return
        version = self.store.version(table.id)
        if version is not None and version > table.version:
            self.notified(table.id, version)

    # ---------------------------------------------------------- seats, tokens

    def claim(self, table: Table, seat_text: str) -> tuple[int, str]:
        """Claim a seat; returns the seat and its new token.

        Raises:
            ApiError: 404 for a seat the table does not have, 409 for a bot's seat or
                one already taken, 410 when the table has expired.
        """
        seat = self.seat_number(table, seat_text)
        self._check_not_expired(table)
        if seat in table.bots:
            raise ApiError(409, "seat_is_bot", f"seat {seat} is played by a bot")
        token = secrets.token_urlsafe(32)
        digest = token_digest(token)
        if seat in table.tokens or not self.store.add_seat(table.id, seat, digest):
            raise ApiError(409, "seat_taken", f"seat {seat} is already taken")
        table.tokens[seat] = digest
        self._publish(table, seats=True)
        self.seen(table, seat)
        self._announce(table)  # the seats changed: every page reads them again
        return seat, token

    @staticmethod
    def seat_number(table: Table, seat_text: str) -> int:
        """The seat a path names.

        Raises:
            ApiError: 404 for a seat the table does not have.
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
            raise ApiError(
                404,
                "unknown_seat",
                f"table {table.id} has seats 0..{n - 1}; got {seat_text[:20]!r}",
            )
        return int(seat_text)

    def seen(self, table: Table, seat: int) -> None:
        """The person of ``seat`` made a request with its token: a stand-in stops."""
        table.seen[seat] = time.monotonic()
        if seat in table.stand_in:
            table.stand_in.discard(seat)
            self._seats_changed(table)

    @staticmethod
    def check_creator(table: Table, token: str) -> None:
        """Check the creator's token (compared in constant time).

        Raises:
            ApiError: 403 when it is not the token this table's creator was given.
        """
        digest = token_digest(token)
        if table.creator is None or not hmac.compare_digest(table.creator, digest):
            raise ApiError(
                403, "not_creator", "this token is not the creator's token of this table"
            )

    def hand_to_bot(self, table: Table, seat_text: str, data: object) -> None:
        """Let a bot play a seat from now on (the creator asks: ``{"bot": name}``, or none).

        The seat's token, if any, stops working. The bot is ``greedy`` unless named.

        Raises:
            ApiError: 400 for a body that is not ``{}`` or ``{"bot": name}``, 404 for a
                seat the table does not have, 409 when the game is over, 422 for an
                unknown bot.
        """
        seat = self.seat_number(table, seat_text)
        if data is None:
            data = {}
        if not isinstance(data, dict) or not set(data) <= {"bot"}:
            raise ApiError(400, "bad_body", 'the body must be {} or {"bot": "<bot>"}')
        name = data.get("bot", "greedy")
        if not isinstance(name, str) or name not in BOT_KINDS:
            raise ApiError(
                422,
                "invalid_bot",
                f"unknown bot {name!r:.40}; known bots: {', '.join(BOT_KINDS)}",
            )
        if (why := unavailable(name, table.config, table.num_players)) is not None:
            raise ApiError(422, "invalid_bot", f"{name} cannot play here: {why}")
        if table.state.is_terminal:
            raise ApiError(409, "game_over", "the game is over")
        self._check_not_expired(table)
        bot_seed = secrets.randbelow(2**31)
        bots = {**table.bots, seat: (name, bot_seed)}
        if seat in table.tokens:
            self.store.remove_seat(table.id, seat)
        self.store.set_bots(table.id, bots)
        self._publish(table, seats=True)
        table.tokens.pop(seat, None)
        table.bots = bots
        table.players[seat] = BOT_KINDS[name](bot_seed)
        table.stand_in.discard(seat)
        self._close_seat(table, seat)
        self._seats_changed(table)
        self.schedule_bots(table)

    def free_seat(self, table: Table, seat_text: str) -> None:
        """Free a seat (the creator asks): its token stops working, or its bot leaves.

        Raises:
            ApiError: 404 for a seat the table does not have, 409 when the game is over
                or (``seed_chosen``) when freeing a bot's seat would make a second seat
                for people at a table whose seed the creator chose.
        """
        seat = self.seat_number(table, seat_text)
        if table.state.is_terminal:
            raise ApiError(409, "game_over", "the game is over")
        _check_people_seats(table, seat)
        if seat in table.tokens:
            self.store.remove_seat(table.id, seat)
            table.tokens.pop(seat)
        if seat in table.bots:
            bots = {p: b for p, b in table.bots.items() if p != seat}
            self.store.set_bots(table.id, bots)
            table.bots = bots
            table.players.pop(seat, None)
        self._publish(table, seats=True)
        table.seen.pop(seat, None)
        self._close_seat(table, seat)
        self._seats_changed(table)

    @staticmethod
    def _close_seat(table: Table, seat: int) -> None:
        """Close every socket watching as ``seat`` (its token no longer works)."""
        for sub in list(table.subscribers):
            if sub.seat == seat:
                table.subscribers.discard(sub)
                sub.queue.put_nowait(None)

    def _seats_changed(self, table: Table) -> None:
        """The seats changed without a move: new views for every watcher."""
        table.generation += 1
        self._announce(table)

    def seat_of(self, table: Table, token: str) -> int:
        """The seat whose token ``token`` is (compared in constant time).

        With a shared store, a token not known here is looked for again in the
        database's seats before it is refused: a seat claimed through another process
        is valid here as soon as its claim has answered.

        Raises:
            ApiError: 403 when it is no seat's token at this table.
        """
        digest = token_digest(token)
        found = _seat_of_digest(table, digest)
        if found is None and self.shared:
            row = self.store.load(table.id, actions_from=table.version)
            if row is not None and (row.seats != table.tokens or row.version != table.version):
                self.notified(table.id, None)
                found = _seat_of_digest(table, digest)
        if found is None:
            raise ApiError(403, "wrong_token", "this token is not a seat's token at this table")
        return found

    # ------------------------------------------------------------------ moves

    def move(self, table: Table, seat: int, data: object) -> None:
        """Check and apply a ``POST .../moves`` body (parsed JSON) of ``seat``.

        Raises:
            ApiError: 400 for a body that is not ``{"action": ..., "version": k}``;
                409 when the game is over, ``version`` is stale or it is not the
                seat's move; 422 for an action that is invalid or not legal now.
        """
        if not isinstance(data, dict) or set(data) != {"action", "version"}:
            raise ApiError(
                400, "bad_body", 'the body must be {"action": <legal action>, "version": <int>}'
            )
        version = data["version"]
        if type(version) is not int:
            raise ApiError(400, "bad_body", f"version must be an integer; got {version!r:.40}")
        if version != table.version:
            self.sync(table)  # another process may have stored the moves the seat saw
        state = table.state
        if state.is_terminal:
            raise ApiError(409, "game_over", "the game is over; GET .../record has its record")
        if version != table.version:
            raise ApiError(
                409,
                "stale_version",
                f"the table is at version {table.version}, not {version}: read the view again",
            )
        if state.current_player != seat:
            raise ApiError(
                409, "not_your_turn", f"it is seat {state.current_player}'s move, not seat {seat}'s"
            )
        try:
            action = action_from_dict(data["action"], "$.action", table.num_players)
        except ValueError as exc:
            raise ApiError(422, "invalid_action", str(exc)) from None
        try:
            after = apply(state, action, player=seat)
        except IllegalActionError as exc:
            raise ApiError(422, "illegal_action", exc.reason) from None
        self._commit(table, seat, action, after)
        self.schedule_bots(table)

    def _commit(self, table: Table, seat: int, action: Action, after: GameState) -> None:
        """Store the move, then update the table and tell every watcher.

        Raises:
            ApiError: 409 ``stale_version`` when the database holds another move at this
                version (the table is read again from it, and nothing is written).
        """
        try:
            self.store.add_move(
                table.id,
                table.version,
                seat,
                json.dumps(action_to_dict(action)),
                state_to_json(after),
                after.is_terminal,
            )
        except StaleVersion:
            version = table.version
            self._reload(table)
            raise ApiError(
                409,
                "stale_version",
                f"the table is at version {table.version}, not {version}: read the view again",
            ) from None
        remember(table.moves, table.version + 1, seat, table.state, action, after)
        table.state = after
        table.actions.append(action)
        self._publish(table)
        table.turn_since = time.monotonic()
        table.active = time.time()
        self._announce(table)
        self._forget_if_done(table)

    def _reload(self, table: Table, row: TableRow | None = None) -> None:
        """Read ``table``'s moves, seats and bots again from the database; tell its watchers.

        ``row``: the table as just read, if it was.
        """
        known = table.version
        following = row is None  # only the moves after ours are read
        if row is None:
            # The moves are never changed once stored: read only those after ours.
            row = self.store.load(table.id, actions_from=known)
        else:
            known = 0
        if row is None:  # pragma: no cover - a table is never deleted
            return
        added = [action_from_dict(a, num_players=row.num_players) for a in row.actions]
        if not (following and row.version == known + len(added) and _follow(table, added)):
            table.state = _row_state(row, table.config)
        table.actions = table.actions[:known] + added
        table.tokens = row.seats
        table.active = max(table.active, row.updated)
        if row.bots != table.bots:
            table.bots = row.bots
            table.players = {p: BOT_KINDS[name](seed) for p, (name, seed) in row.bots.items()}
        table.turn_since = time.monotonic()
        self._announce(table)
        self._forget_if_done(table)

    def listen(self) -> None:
        """Hear of the changes other processes make (call on the running event loop).

        Each notice of another process is handled by ``notified`` on the loop.
        """
        loop = asyncio.get_running_loop()

        def heard(notice: Notice) -> None:
            if notice.origin != self.origin and not loop.is_closed():
                loop.call_soon_threadsafe(self.notified, notice.table_id, notice.version)

        self.transport.listen(heard)

    def _publish(self, table: Table, *, seats: bool = False) -> None:
        """Tell the other processes that ``table`` moved (or its seats or bots changed)."""
        self.transport.publish(Notice(table.id, None if seats else table.version, self.origin))

    def notified(self, table_id: str, version: int | None) -> None:
        """A move took ``table_id`` to ``version`` (``None``: its seats or bots changed).

        A table in memory at an older version, or whose seats changed, is read again:
        its sockets get the new views (those of a seat whose token no longer works
        close), and its bots move if it is their turn and this process holds them.
        """
        table = self._tables.get(table_id)
        if table is None or (version is not None and version <= table.version):
            return
        tokens = dict(table.tokens)
        self._reload(table)
        for seat, digest in tokens.items():
            if table.tokens.get(seat) != digest:
                self._close_seat(table, seat)
        self.schedule_bots(table)

    def _announce(self, table: Table) -> None:
        """Send the current view to every socket watching ``table``."""
        for sub in list(table.subscribers):
            if sub.queue.qsize() > 256:  # a socket that stopped reading
                table.subscribers.discard(sub)
                sub.queue.put_nowait(None)
                continue
            sub.queue.put_nowait(table.text(sub.seat, svg=sub.svg, lang=sub.lang))

    # ------------------------------------------------------------------- bots

    @staticmethod
    def _player(table: Table, seat: int | None) -> tuple[str, int] | None:
        """The bot that plays ``seat`` now, as (name, seed): its own, a stand-in, or none.

        A stand-in is ``greedy``, seeded with the table's version (as before).
        """
        if seat is None:
            return None
        bot = table.bots.get(seat)
        if bot is None and seat in table.stand_in:
            bot = ("greedy", table.version)
        return bot

    def schedule_bots(self, table: Table) -> None:
        """Let a bot think when it is a bot's (or a stand-in's) move.

        With an event loop running, the bot thinks in a worker process
        ([`Thinking`][allegra_rules.server.thinking.Thinking], in its lane and in turn
        with the other tables) and its move is applied back on the loop; without one,
        the bots' moves are played now.
        """
        state = table.state
        if table.bots_pending or state.is_terminal:
            return
        seat = state.current_player
        bot = self._player(table, seat)
        if bot is None or seat is None or not self._holds_bots(table):
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no event loop: play the bots' moves now
            while self._bot_step(table):
                pass
            return
        table.bots_pending = True
        # Nobody else can move while it is this bot's move (a person coming back to a
        # stand-in's seat aside: then the answer is dropped), so the state is still the
        # same when the answer comes.
        name, seed = bot
        job = self.thinking.job(name, seed, table.version, state)
        try:
            self.thinking.ask(
                table.id, job, lambda data, error: self._bot_chose(table, state, seat, data, error)
            )
        except RuntimeError:  # the server is stopping: its worker processes are closed
            table.bots_pending = False

    def _holds_bots(self, table: Table) -> bool:
        """Take or renew this process's hold on ``table``'s bots; whether it holds them."""
        if self.store.bot_lease <= 0:
            return True
        return table.id in self._hold([table.id])

    def _hold(self, table_ids: list[str]) -> set[str]:
        """Take or renew the hold on the bots of ``table_ids``; those held now."""
        try:
            held = self.store.hold_bots(table_ids)
        except Exception:
            log.exception("the bots of %s tables could not be held", len(table_ids))
            held = set()
        self._held.difference_update(table_ids)
        self._held.update(held)
        return held

    def hold_idle_bots(self) -> int:
        """Renew this process's hold on bots, take over those no process holds.

        The hold is renewed for every unfinished table in memory whose bots this
        process holds, and taken where a bot (or a stand-in) is to move and no other
        process holds it (its hold expired: that process stopped). A table whose bots
        this process takes over is read again from the database first; then a bot to
        move at a table held moves.
        Returns how many tables' bots this process holds.
        """
        if self.store.bot_lease <= 0:
            return 0
        self._held.intersection_update(self._tables)
        wanted = [
            table.id
            for table in self._tables.values()
            if not table.state.is_terminal
            and (
                table.id in self._held
                or self._player(table, table.state.current_player) is not None
            )
        ]
        before = set(self._held)
        held = self._hold(wanted)
        for table_id in held:
            table = self._tables.get(table_id)
            if table is None or table.bots_pending:
                continue
            if table_id not in before:
                row = self.store.load(table.id)
                if row is not None and row.version != table.version:
                    self._reload(table, row)
            self.schedule_bots(table)
        return len(held)

    async def watch_bots(self) -> None:
        """Run ``hold_idle_bots`` three times per hold's length, until cancelled (a server task).

        Nothing to do when the store has one process (its ``bot_lease`` is 0).
        """
        lease = self.store.bot_lease
        if lease <= 0:
            return
        while True:
            await asyncio.sleep(lease / 3)
            try:
                self.hold_idle_bots()
            except Exception:  # pragma: no cover - keep watching whatever one table does
                log.exception("the bot watcher failed")

    def _bot_chose(
        self,
        table: Table,
        state: GameState,
        seat: int,
        data: dict[str, Any] | None,
        error: BaseException | None,
    ) -> None:
        """Apply the move a bot chose in a worker process, then let the next bot move.

        A move its worker failed to answer (its process died twice) is played by a
        greedy bot here instead, so that the game never stalls.
        """
        table.bots_pending = False
        if table.state is state and self._player(table, seat) is not None:
            try:
                if data is None:
                    log.error(
                        "the bot of seat %s at table %s failed (%r); a greedy bot moves",
                        seat,
                        table.id,
                        error,
                    )
                    action = GreedyBot(move_seed(table.seed, table.version)).choose(state)
                else:
                    action = action_from_dict(data, num_players=table.num_players)
                self._commit(table, seat, action, apply(state, action, player=seat))
            except ApiError:  # another move was stored first: the table was read again
                pass
            except Exception:  # pragma: no cover - a bot never fails on a legal state
                log.exception("the bot of seat %s at table %s failed", seat, table.id)
                return
        self.schedule_bots(table)

    def _bot_step(self, table: Table) -> bool:
        """One bot move, if it is a bot's move; True when one was made."""
        state = table.state
        seat = state.current_player
        bot = self._player(table, seat)
        if seat is None or bot is None or state.is_terminal:
            return False
        try:
            name, seed = bot
            data = decide(self.thinking.job(name, seed, table.version, state))
            action = action_from_dict(data, num_players=table.num_players)
            after = apply(state, action, player=seat)
            self._commit(table, seat, action, after)
        except ApiError:  # another move was stored first: the table was read again
            return True
        except Exception:  # pragma: no cover - a bot never fails on a legal state
            log.exception("the bot of seat %s at table %s failed", seat, table.id)
            return False
        return True

    def stand_in_idle_seats(self, now: float | None = None) -> int:
        """Let a stand-in play every seat idle past ``seat_timeout`` while it is to act.

        Returns how many stand-ins started. A seat no bot plays (claimed or not) is idle
        since its turn began or its person's last request, whichever is later. Only a
        table where some seat is claimed gets stand-ins: one nobody came to waits, and
        expires (see ``expired``).
        """
        if self.seat_timeout <= 0:
            return 0
        now = time.monotonic() if now is None else now
        started = 0
        for table in list(self._tables.values()):
            state = table.state
            seat = state.current_player
            if state.is_terminal or seat is None or seat in table.bots or seat in table.stand_in:
                continue
            if not table.tokens:  # nobody has come to this table: nobody is kept waiting
                continue
            if now - max(table.turn_since, table.seen.get(seat, 0.0)) < self.seat_timeout:
                continue
            table.stand_in.add(seat)
            started += 1
            log.info("a bot stands in for idle seat %s at table %s", seat, table.id)
            self._seats_changed(table)
            self.schedule_bots(table)
        return started

    async def watch_seats(self) -> None:
        """Run ``stand_in_idle_seats`` now and then, until cancelled (a server task)."""
        if self.seat_timeout <= 0:
            return
        every = min(1.0, max(0.05, self.seat_timeout / 4))
        while True:
            await asyncio.sleep(every)
            try:
                self.stand_in_idle_seats()
            except Exception:  # pragma: no cover - keep watching whatever one table does
                log.exception("the seat watcher failed")

    # ---------------------------------------------------------------- watchers

    @staticmethod
    def subscribe(table: Table, seat: int | None, *, svg: bool, lang: str) -> Subscriber:
        """A new watcher of ``table``; its queue already holds the current view."""
        sub = Subscriber(seat=seat, svg=svg, lang=lang)
        sub.queue.put_nowait(table.text(seat, svg=svg, lang=lang))
        table.subscribers.add(sub)
        return sub

    def unsubscribe(self, table: Table, sub: Subscriber) -> None:
        """Stop sending views to ``sub``; a finished table nobody watches leaves memory."""
        table.subscribers.discard(sub)
        self._forget_if_done(table)

    def _forget_if_done(self, table: Table) -> None:
        """Drop a finished, unwatched table from memory (it stays in the database)."""
        if table.state.is_terminal and not table.subscribers:
            self._tables.pop(table.id, None)

    @staticmethod
    def record_json(table: Table) -> str:
        """The finished game's record (``GameRecord.to_json``).

        Raises:
            ApiError: 409 while the game is not over.
        """
        if table.state.phase is not Phase.OVER:
            raise ApiError(409, "game_not_over", "the record is public once the game is over")
        return table.record().to_json()
