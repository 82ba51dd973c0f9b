"""The tables of the server: creating them, seats and tokens, moves, bots and views.

Everything here runs on the server's event loop, one step at a time: a move is checked,
applied with ``apply(state, action, player=seat)``, stored (see
[`Store`][allegra_rules.server.store.Store]) and only then announced, to the client that
made it and to every socket watching the table. Bots move by themselves, one move per
turn of the event loop, as soon as it is their seat's move: after a person's move, when
a table is created, and when the server starts again.

A seat only ever gets ``observe(state, seat)``; a spectator gets the public view,
``observe(state, None)`` (as data: [`public_view`][allegra_rules.server.tables.public_view]),
what every seat knows.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import secrets
import time
from typing import Any

import attrs

from allegra_rules.actions import Action, Reveal, Swap, Take
from allegra_rules.bot_kinds import BOT_KINDS
from allegra_rules.bots import Bot
from allegra_rules.config import RuleConfig
from allegra_rules.geometry import Pos
from allegra_rules.presets import preset, preset_id
from allegra_rules.records import GameRecord, preset_id_of
from allegra_rules.search import SearchBot
from allegra_rules.serialize import (
    SaveFormatError,
    action_from_dict,
    action_to_dict,
    state_from_json,
    state_to_json,
)
from allegra_rules.state import GameState, Phase
from allegra_rules.svg import render_svg
from allegra_rules.transitions import IllegalActionError, apply, new_game
from allegra_rules.views import observe
from allegra_rules.wording import action_texts

from .store import Store

__all__ = [
    "LANGUAGES",
    "ApiError",
    "Subscriber",
    "Table",
    "Tables",
    "public_view",
    "seat_svg",
]

log = logging.getLogger("allegra_rules.server")

LANGUAGES: dict[str, tuple[str, str]] = {
    "en": ("seat {}", "you"),
    "de": ("Platz {}", "du"),
    "pl": ("miejsce {}", "ty"),
    "fr": ("place {}", "vous"),
}
"""The page's languages: how the table picture names a seat, and the viewer's own seat."""

_CREATE_KEYS = frozenset({"players", "preset", "config", "max_turns", "bots", "seed"})
_SEED_LIMIT = 2**63


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


def public_view(state: GameState) -> dict[str, Any]:
    """The public view's data: ``observe(state, None).to_dict()`` without ``legal_actions``.

    The public view ([`observe`][allegra_rules.views.observe] with ``viewer`` ``None``) is
    what every seat sees; the server sends it, with no ``legal_actions`` key, to whoever
    has no token. Nothing here builds it another way.
    """
    data = observe(state, None).to_dict()
    data.pop("legal_actions", None)
    return data


def _seat_names(num_players: int, viewer: int | None, lang: str) -> list[str]:
    label, me = LANGUAGES.get(lang, LANGUAGES["en"])
    return [
        f"{label.format(p)} ({me})" if p == viewer else label.format(p) for p in range(num_players)
    ]


def seat_svg(state: GameState, viewer: int | None, lang: str = "en") -> str | None:
    """The table drawn with ``render_svg`` as seat ``viewer`` sees it (``None``: a spectator).

    The cells the viewer may act on are outlined. A spectator's picture is drawn as a
    seat that knows no private card; when every seat knows one (two seats, each holding
    a card that lay face down), there is no such seat and the answer is ``None``.
    """
    names = _seat_names(state.num_players, viewer, lang)
    options: dict[str, Any] = {"status": False, "legend": False, "piles": False, "labels": lang}
    if viewer is None:
        private = set()
        if state.held is not None and state.held_was_face_down and state.drawer is not None:
            private.add(state.drawer)
        if state.hand_was_face_down:
            private.update(p for p, _ in state.in_hand)
        outsiders = [p for p in range(state.num_players) if p not in private]
        if not outsiders:
            return None
        return render_svg(state, viewer=outsiders[0], seat_names=names, **options)
    marked: list[Pos] = []
    if state.current_player == viewer:
        from allegra_rules.transitions import legal_actions

        marked = [a.pos for a in legal_actions(state) if isinstance(a, (Reveal, Swap, Take))]
    return render_svg(state, viewer=viewer, highlight=marked, seat_names=names, **options)


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
        players: the bot objects of the bot seats.
        tokens: the claimed seats: seat -> SHA-256 digest of its token.
        state: the current state.
        actions: every action applied so far.
        subscribers: the sockets watching the table.
        bots_pending: a bot move is scheduled on the event loop.
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
    _bodies: dict[tuple[int | None, bool, str], str] = attrs.field(factory=dict)
    _bodies_version: int = -1

    @property
    def num_players(self) -> int:
        """The seat count."""
        return self.state.num_players

    @property
    def version(self) -> int:
        """The number of actions applied so far."""
        return len(self.actions)

    def info(self) -> dict[str, Any]:
        """The table's public facts: rules, seats (bot, taken), version, whether it is over."""
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
        }

    def body(self, seat: int | None, *, svg: bool = False, lang: str = "en") -> dict[str, Any]:
        """The view document of ``seat`` (``None``: public) plus ``version``.

        With ``svg`` (what the page asks for) also ``svg``, the table picture, and for a
        seat ``action_texts``: each of its ``legal_actions`` worded in ``lang`` by
        [`action_texts`][allegra_rules.wording.action_texts], in the same order.
        """
        state = self.state
        data = observe(state, seat).to_dict() if seat is not None else public_view(state)
        data["version"] = self.version
        if svg:
            data["svg"] = seat_svg(state, seat, lang)
            if seat is not None:
                data["action_texts"] = list(action_texts(state, seat, lang=lang))
        return data

    def text(self, seat: int | None, *, svg: bool = False, lang: str = "en") -> str:
        """``body`` as JSON text, cached for the current version."""
        if self._bodies_version != self.version:
            self._bodies.clear()
            self._bodies_version = self.version
        key = (seat, svg, lang)
        text = self._bodies.get(key)
        if text is None:
            text = self._bodies[key] = json.dumps(
                self.body(seat, svg=svg, lang=lang), separators=(",", ":")
            )
        return text

    def record(self) -> GameRecord:
        """The game record so far."""
        return GameRecord(
            num_players=self.num_players,
            config=self.config,
            seed=self.seed,
            actions=tuple(self.actions),
            preset=self.preset,
        )


def token_digest(token: str) -> bytes:
    """The SHA-256 digest of a token, as stored."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


class Tables:
    """Every table of one server, in memory and in a [`Store`][allegra_rules.server.store.Store].

    Args:
        store: the database.
        max_open_tables: how many unfinished tables may have been active within
            ``idle_seconds``; creating one more is refused with 503.
        idle_seconds: a table whose last move is older no longer counts as open.
    """

    def __init__(
        self, store: Store, *, max_open_tables: int = 1000, idle_seconds: float = 86400.0
    ) -> None:
        self.store = store
        self.max_open_tables = max_open_tables
        self.idle_seconds = idle_seconds
        self._tables: dict[str, Table] = {}

    # ---------------------------------------------------------------- tables

    def create(self, data: object) -> Table:
        """Create a table from a ``POST /api/tables`` body (parsed JSON).

        Raises:
            ApiError: 422 for a body that names no valid game, 503 when too many
                tables are open.
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
        if not config.min_players <= players <= config.max_players:
            raise ApiError(
                422,
                "invalid_table",
                f"players must be {config.min_players}..{config.max_players} for these rules; "
                f"got {players}",
            )
        bots = self._bots(data.get("bots", {}), players)
        seed = data.get("seed")
        if seed is None:
            seed = secrets.randbelow(_SEED_LIMIT)
        elif type(seed) is not int or not 0 <= seed < _SEED_LIMIT:
            raise ApiError(
                422, "invalid_table", f"seed must be an integer 0..2**63-1; got {seed!r}"
            )
        try:
            state = new_game(players, config=config, seed=seed)
        except ValueError as exc:
            raise ApiError(422, "invalid_table", str(exc)) from None
        since = time.time() - self.idle_seconds
        if self.store.open_tables(since) >= self.max_open_tables:
            raise ApiError(
                503,
                "too_many_tables",
                f"the server already has {self.max_open_tables} open tables; try again later",
            )
        table_id = secrets.token_urlsafe(9)
        self.store.add_table(
            table_id=table_id,
            num_players=players,
            config=config.to_json(),
            preset=pinned,
            seed=seed,
            bots=bots,
            state=state_to_json(state),
        )
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
        )
        self._tables[table_id] = table
        self.schedule_bots(table)
        return table

    @staticmethod
    def _rules(data: dict[str, Any]) -> tuple[RuleConfig, str | None]:
        if "config" in data:
            if "preset" in data:
                raise ApiError(422, "invalid_table", "give either preset or config, not both")
            try:
                config = RuleConfig.from_json(json.dumps(data["config"]))
            except (ValueError, TypeError) as exc:
                raise ApiError(422, "invalid_table", f"config: {exc}") from None
            return config, preset_id_of(config)
        name = data.get("preset", "seeds")
        try:
            return preset(name), preset_id(name)
        except ValueError as exc:
            raise ApiError(422, "invalid_table", str(exc)) from None

    @staticmethod
    def _bots(value: object, players: int) -> dict[int, tuple[str, int]]:
        if not isinstance(value, dict):
            raise ApiError(422, "invalid_table", 'bots must be an object {"<seat>": "<bot>"}')
        bots: dict[int, tuple[str, int]] = {}
        for key, name in value.items():
            if not (key.isascii() and key.isdigit() and int(key) < players):
                raise ApiError(
                    422, "invalid_table", f"bots: {key!r} is not a seat 0..{players - 1}"
                )
            if name not in BOT_KINDS:
                raise ApiError(
                    422,
                    "invalid_table",
                    f"bots: unknown bot {name!r}; known bots: {', '.join(BOT_KINDS)}",
                )
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
        try:
            state = state_from_json(row.state)
        except SaveFormatError:
            state = new_game(row.num_players, config=config, seed=row.seed)
            for data in row.actions:
                state = apply(state, action_from_dict(data, num_players=row.num_players))
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
        )
        self._tables[table_id] = table
        return table

    def resume(self) -> int:
        """Load every unfinished table and let its bots move; returns how many there are."""
        ids = self.store.unfinished()
        for table_id in ids:
            self.schedule_bots(self.get(table_id))
        return len(ids)

    # ---------------------------------------------------------- seats, tokens

    def claim(self, table: Table, seat_text: str) -> tuple[int, str]:
        """Claim a seat; returns the seat and its new token.

        Raises:
            ApiError: 404 for a seat the table does not have, 409 for a bot's seat or
                one already taken.
        """
        n = table.num_players
        if not (seat_text.isascii() and seat_text.isdigit() and int(seat_text) < n):
            raise ApiError(
                404,
                "unknown_seat",
                f"table {table.id} has seats 0..{n - 1}; got {seat_text[:20]!r}",
            )
        seat = int(seat_text)
        if seat in table.bots:
            raise ApiError(409, "seat_is_bot", f"seat {seat} is played by a bot")
        token = secrets.token_urlsafe(32)
        digest = token_digest(token)
        if seat in table.tokens or not self.store.add_seat(table.id, seat, digest):
            raise ApiError(409, "seat_taken", f"seat {seat} is already taken")
        table.tokens[seat] = digest
        return seat, token

    @staticmethod
    def seat_of(table: Table, token: str) -> int:
        """The seat whose token ``token`` is (compared in constant time).

        Raises:
            ApiError: 403 when it is no seat's token at this table.
        """
        digest = token_digest(token)
        found = None
        for seat, stored in table.tokens.items():
            if hmac.compare_digest(stored, digest):
                found = seat
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
        """Store the move, then update the table and tell every watcher."""
        self.store.add_move(
            table.id,
            table.version,
            seat,
            json.dumps(action_to_dict(action)),
            state_to_json(after),
            after.is_terminal,
        )
        table.state = after
        table.actions.append(action)
        for sub in list(table.subscribers):
            if sub.queue.qsize() > 256:  # a socket that stopped reading
                table.subscribers.discard(sub)
                sub.queue.put_nowait(None)
                continue
            sub.queue.put_nowait(table.text(sub.seat, svg=sub.svg, lang=sub.lang))
        self._forget_if_done(table)

    # ------------------------------------------------------------------- bots

    def schedule_bots(self, table: Table) -> None:
        """Let a bot move soon when it is a bot's move (one move per event-loop step)."""
        state = table.state
        if table.bots_pending or state.is_terminal or state.current_player not in table.players:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop: play the bots' moves now
            while self._bot_step(table):
                pass
            return
        table.bots_pending = True
        loop.call_soon(self._bot_turn, table)

    def _bot_turn(self, table: Table) -> None:
        state = table.state
        seat = state.current_player
        bot = table.players.get(seat) if seat is not None else None
        if isinstance(bot, SearchBot) and seat is not None:
            # A search takes a good part of a second: it thinks in a worker thread, so
            # that the other tables are served meanwhile. Nobody else can move while it
            # is this bot's move, so the state is still the same when the answer comes.
            future = asyncio.get_running_loop().run_in_executor(None, bot.choose, state)
            future.add_done_callback(lambda done: self._bot_chose(table, state, seat, done))
            return
        table.bots_pending = False
        if self._bot_step(table):
            self.schedule_bots(table)

    def _bot_chose(
        self, table: Table, state: GameState, seat: int, done: asyncio.Future[Any]
    ) -> None:
        """Apply the move a bot chose in a worker thread, then let the next bot move."""
        table.bots_pending = False
        if table.state is not state or done.cancelled():
            return
        try:
            action = done.result()
            self._commit(table, seat, action, apply(state, action, player=seat))
        except Exception:  # pragma: no cover - a bot never fails on a legal state
            log.exception("the bot of seat %s at table %s failed", seat, table.id)
            return
        self.schedule_bots(table)

    def _bot_step(self, table: Table) -> bool:
        """One bot move, if it is a bot's move; True when one was made."""
        state = table.state
        seat = state.current_player
        if seat is None or seat not in table.players:
            return False
        try:
            action = table.players[seat].choose(state)
            after = apply(state, action, player=seat)
            self._commit(table, seat, action, after)
        except Exception:  # pragma: no cover - a bot never fails on a legal state
            log.exception("the bot of seat %s at table %s failed", seat, table.id)
            return False
        return True

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
