"""One table in memory: its game, its seats and bots, its watchers, and how it is read back.

A [`Table`][allegra_rules.server.tables.Table] is what the server knows of a table while
it is loaded: the game (rules, seed, state, actions), the seats (token digests, bots,
stand-ins) and the sockets watching it (``Subscriber``). It renders its views
(``text``: the seat's document, cached per version and seats) and its record; every
other part of the server changes it (``allegra_rules.server.seats``, ``moves``,
``sync``, ``bot_seats``).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
from typing import Any

import attrs

from allegra_rules.actions import Action
from allegra_rules.bot_kinds import BOT_KINDS
from allegra_rules.bots import Bot
from allegra_rules.config import RuleConfig
from allegra_rules.records import GameRecord
from allegra_rules.serialize import SaveFormatError, action_from_dict, state_from_json
from allegra_rules.state import GameState
from allegra_rules.table_view import Move, recent, remember, seat_document
from allegra_rules.transitions import IllegalActionError, apply, new_game

from .limits import ViewCache, ViewKey
from .store import Deal, TableRow

__all__ = [
    "Subscriber",
    "Table",
    "follow",
    "row_state",
    "seat_of_digest",
    "table_from_row",
    "token_digest",
]


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
        names: the names people gave when claiming their seats: seat -> name (only
            claimed seats that were given one); shown to everyone in place of "Player N".
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
    names: dict[int, str] = attrs.field(factory=dict)

    @property
    def num_players(self) -> int:
        """The seat count."""
        return self.state.num_players

    @property
    def version(self) -> int:
        """The number of actions applied so far."""
        return len(self.actions)

    def info(self) -> dict[str, Any]:
        """The table's public facts: rules, seats (bot, taken, name), version, whether it is over.

        A claimed seat whose person gave a name when claiming it has ``name`` (the key is
        left out otherwise).

        Also the deal's commitment and whether the creator chose the seed (both
        ``None`` for a table an older server made), and once the game is over the
        seed and the salt (``deal_facts``).
        """
        return {
            "table": self.id,
            "players": self.num_players,
            "preset": self.preset,
            "config": self.config.to_dict(),
            "seats": [self._seat_facts(p) for p in range(self.num_players)],
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

    def _seat_facts(self, seat: int) -> dict[str, Any]:
        """One seat's public facts: its bot, whether it is taken, the name it was given."""
        facts: dict[str, Any] = {
            "seat": seat,
            "bot": self.bots[seat][0] if seat in self.bots else None,
            "taken": seat in self.bots or seat in self.tokens,
        }
        if seat in self.tokens and seat in self.names:
            facts["name"] = self.names[seat]
        return facts

    def people_seats(self, bots: dict[int, tuple[str, int]] | None = None) -> int:
        """How many seats are for people: those no bot plays (with ``bots``, if given)."""
        return self.num_players - len(self.bots if bots is None else bots)

    def body(self, seat: int | None, *, svg: bool = False, lang: str = "en") -> dict[str, Any]:
        """The view document of ``seat`` (``None``: public) plus ``version`` and ``log``.

        Built by [`seat_document`][allegra_rules.table_view.seat_document] from the last
        moves (see ``allegra_rules.table_view.recent``), the same document the table in
        the browser sends: ``log`` names no card the seat has not seen; with ``svg``
        also the picture (its bot seats named by their kind, as the page's badges) and,
        for a seat, ``action_texts``.
        """
        moves = recent(self.moves, self.version, self.record)
        bots = {p: kind for p, (kind, _) in self.bots.items()}
        names = {p: name for p, name in self.names.items() if p in self.tokens}
        return seat_document(
            self.state,
            seat,
            version=self.version,
            moves=moves,
            svg=svg,
            lang=lang,
            bots=bots,
            names=names,
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


def row_state(row: TableRow, config: RuleConfig) -> GameState:
    """A stored table's state: its saved state, or its moves replayed (an older format)."""
    try:
        return state_from_json(row.state)
    except SaveFormatError:
        state = new_game(row.num_players, config=config, seed=row.seed)
        for data in row.actions:
            state = apply(state, action_from_dict(data, num_players=row.num_players))
        return state


def follow(table: Table, added: list[Action]) -> bool:
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


def seat_of_digest(table: Table, digest: bytes) -> int | None:
    """The seat whose stored token digest is ``digest`` (compared in constant time), or None."""
    found = None
    for seat, stored in table.tokens.items():
        if hmac.compare_digest(stored, digest):
            found = seat
    return found


def token_digest(token: str) -> bytes:
    """The SHA-256 digest of a token, as stored."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


def table_from_row(row: TableRow, cache: ViewCache | None = None) -> Table:
    """The table in memory of a stored one (its views cached in ``cache``)."""
    config = RuleConfig.from_json(row.config)
    return Table(
        id=row.id,
        config=config,
        preset=row.preset,
        seed=row.seed,
        bots=row.bots,
        players={p: BOT_KINDS[name](bot_seed) for p, (name, bot_seed) in row.bots.items()},
        tokens=row.seats,
        names=row.names,
        state=row_state(row, config),
        actions=[action_from_dict(a, num_players=row.num_players) for a in row.actions],
        creator=row.creator,
        cache=cache,
        active=row.updated or time.time(),
        deal=row.deal,
    )
