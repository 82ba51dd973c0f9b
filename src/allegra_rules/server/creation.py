"""Creating a table: the body of ``POST /api/tables`` read, checked and limited.

A new table names its seat count, its rules (a preset or a whole config, and perhaps a
cap on turns), its bots, and perhaps its seed; the server commits to the deal (see
``allegra_rules.records.commit_deal``) and gives the creator a token of its own. The
limits that keep one client, or many, from taking the server:

* each client (an address, IPv6 grouped by /64: ``allegra_rules.server.limits.client_key``)
  may create ``tables_per_hour`` tables an hour (``TOO_MANY``, with the seconds to wait);
* and may have ``bot_tables_per_client`` unfinished tables of bots only and
  ``search_tables_per_client`` with a search bot (``TOO_MANY``, no time to wait: when a
  game of bots ends cannot be known);
* the server has at most ``max_open_tables`` open tables (``FULL``, with the seconds
  until enough of them stop counting). A table counts while it is unfinished and moved
  within ``idle_seconds``; one where no seat is claimed only until it expires
  (``abandoned_after``, see ``allegra_rules.server.seats``).
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from typing import Any

import attrs

from allegra_rules.bot_kinds import BOT_KINDS, unavailable
from allegra_rules.config import RuleConfig
from allegra_rules.presets import preset, preset_id
from allegra_rules.records import commit_deal, preset_id_of
from allegra_rules.serialize import state_to_json
from allegra_rules.transitions import new_game

from .limits import RateLimit, ViewCache, client_key
from .refusals import Refused, Why
from .registry import Registry
from .seats import ABANDONED_AFTER
from .store import Deal, Store
from .table import Table, token_digest
from .thinking import SEARCH, lane_of

__all__ = [
    "BOT_TABLES_PER_CLIENT",
    "IDLE_SECONDS",
    "MAX_SEATS",
    "SEARCH_TABLES_PER_CLIENT",
    "TABLES_PER_HOUR",
    "Creation",
    "chosen_bot_seed",
]

_CREATE_KEYS = frozenset({"players", "preset", "config", "max_turns", "bots", "seed"})
_SEED_LIMIT = 2**63

MAX_SEATS = 6
"""The most seats a table may have (and the most ``max_players`` its rules may ask for)."""

TABLES_PER_HOUR = 20
"""The default number of tables one client address may create per hour."""

BOT_TABLES_PER_CLIENT = 2
"""The default number of unfinished tables of bots only one client address may have created."""

SEARCH_TABLES_PER_CLIENT = 2
"""The default number of unfinished tables with a search bot one client address may have created.

The search bots are those of ``allegra_rules.server.thinking.EXPENSIVE_BOTS``.
"""

IDLE_SECONDS = 86400.0
"""The default seconds after its last move that an unfinished table stops counting as open."""


def _invalid(message: str) -> Refused:
    return Refused(Why.INVALID, "invalid_table", message)


def _deal(seed: object, people: int) -> tuple[int, Deal]:
    """The seed of a new table (the one chosen, or a random one) and its commitment.

    ``people``: the seats no bot plays. A seed may be chosen only when at most one
    seat is for a person: whoever chooses it knows every card of the deal.

    Raises:
        Refused: ``INVALID`` for a seed that is not an integer 0..2**63-1, or a chosen
            seed at a table with more than one seat for people.
    """
    if seed is None:
        seed = secrets.randbelow(_SEED_LIMIT)
        chosen = False
    elif type(seed) is not int or not 0 <= seed < _SEED_LIMIT:
        raise _invalid(f"seed must be an integer 0..2**63-1; got {seed!r}")
    elif people > 1:
        raise _invalid(
            f"a chosen seed is refused when more than one seat is for people (here {people}): "
            "whoever chooses the seed knows every card of the deal. Leave the seed out, or "
            "give every other seat to a bot"
        )
    else:
        chosen = True
    salt, commitment = commit_deal(seed)
    return seed, Deal(salt=salt, commitment=commitment, seed_chosen=chosen)


def _rules(data: dict[str, Any]) -> tuple[RuleConfig, str | None]:
    """The rules a body names (a preset, the default ``seeds``, or a config) and their id."""
    if "config" in data:
        if "preset" in data:
            raise _invalid("give either preset or config, not both")
        if not isinstance(data["config"], dict):
            raise _invalid("config must be an object (RuleConfig)")
        try:
            config = RuleConfig.from_json(json.dumps(data["config"]))
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise _invalid(f"config: {str(exc)[:300]}") from None
        return config, preset_id_of(config)
    name = data.get("preset", "seeds")
    if not isinstance(name, str) or len(name) > 64:
        raise _invalid("preset must be a preset id, such as 'seeds'")
    try:
        return preset(name), preset_id(name)
    except ValueError as exc:
        raise _invalid(str(exc)) from None


def _bots(value: object, players: int, config: RuleConfig) -> dict[int, str]:
    """The bot seats a body names, and the bot of each."""
    if not isinstance(value, dict):
        raise _invalid('bots must be an object {"<seat>": "<bot>"}')
    bots: dict[int, str] = {}
    for key, name in value.items():
        # A seat is a canonical decimal: "0", "1", ..., no sign, no leading zero.
        canonical = len(key) <= 2 and key.isascii() and key.isdigit() and key == str(int(key))
        if not (canonical and int(key) < players):
            raise _invalid(f"bots: {key[:20]!r} is not a seat 0..{players - 1}")
        if not isinstance(name, str) or name not in BOT_KINDS:
            raise _invalid(f"bots: unknown bot {name!r:.40}; known bots: {', '.join(BOT_KINDS)}")
        if (why := unavailable(name, config, players)) is not None:
            raise _invalid(f"bots: {name} cannot play here: {why}")
        bots[int(key)] = name
    return bots


def chosen_bot_seed(seed: int, seat: int) -> int:
    """The seed of the bot at ``seat`` of a table whose creator chose the deal's ``seed``.

    At such a table (at most one seat for a person) the bots' seeds come from the chosen
    seed, so the same seed and the same moves of the person give the same game: a chosen
    seed reproduces a bot game, not only its deal. Whoever chose it already knows every
    card, so knowing the bots' seeds tells them nothing of anyone else's. Elsewhere, and
    for a seat handed to a bot later, a bot's seed is random.

        >>> chosen_bot_seed(55, 1) == chosen_bot_seed(55, 1) != chosen_bot_seed(55, 2)
        True
    """
    digest = hashlib.sha256(f"allegra-table-bot:{seed}:{seat}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 2**31


class Creation:
    """Makes new tables, within the limits of each client and of the server.

    Args:
        store: the database.
        registry: the tables in memory (a new table joins them).
        views: the cache of rendered views every table shares.
        max_open_tables: how many tables may count as open.
        idle_seconds: an unfinished table counts as open until this long after its
            creation or last move.
        abandoned_after: a table with no claimed seat counts only this long.
        tables_per_hour: how many tables one client may create per hour.
        bot_tables_per_client: how many unfinished tables of bots only one client may
            have created.
        search_tables_per_client: how many unfinished tables with a search bot one
            client may have created.
    """

    def __init__(
        self,
        store: Store,
        registry: Registry,
        views: ViewCache,
        *,
        max_open_tables: int = 1000,
        idle_seconds: float = IDLE_SECONDS,
        abandoned_after: float = ABANDONED_AFTER,
        tables_per_hour: int = TABLES_PER_HOUR,
        bot_tables_per_client: int = BOT_TABLES_PER_CLIENT,
        search_tables_per_client: int = SEARCH_TABLES_PER_CLIENT,
    ) -> None:
        self.store = store
        self.registry = registry
        self.views = views
        self.max_open_tables = max_open_tables
        self.idle_seconds = idle_seconds
        self.abandoned_after = abandoned_after
        self.created = RateLimit(tables_per_hour)
        self.bot_tables_per_client = bot_tables_per_client
        self.search_tables_per_client = search_tables_per_client
        self._created_by: dict[str, set[str]] = {}

    def create(self, data: object, client: str | None = None) -> tuple[Table, str]:
        """A new table from a ``POST /api/tables`` body (parsed JSON), and its creator's token.

        ``client`` is the address the request came from (grouped by ``client_key``).

        Raises:
            Refused: ``INVALID`` for a body that names no valid game (or more than
                ``MAX_SEATS`` seats); ``TOO_MANY`` when ``client`` created too many
                tables this hour (with ``retry_after``) or has too many tables of bots;
                ``FULL`` when too many tables are open (with ``retry_after``).
        """
        if not isinstance(data, dict):
            raise _invalid("the body must be a JSON object")
        unknown = sorted(set(data) - _CREATE_KEYS)
        if unknown:
            raise _invalid(f"unknown keys {unknown}; allowed: {', '.join(sorted(_CREATE_KEYS))}")
        players = data.get("players")
        if type(players) is not int:
            raise _invalid("players must be an integer (the seat count)")
        config, pinned = _rules(data)
        if "max_turns" in data:
            turns = data["max_turns"]
            if type(turns) is not int or not 1 <= turns <= config.max_turns_per_round:
                raise _invalid(
                    f"max_turns must be an integer 1..{config.max_turns_per_round}; got {turns!r}"
                )
            config = attrs.evolve(config, max_turns_per_round=turns)
            pinned = preset_id_of(config)
        if players > MAX_SEATS or config.max_players > MAX_SEATS:
            raise _invalid(
                f"a table has at most {MAX_SEATS} seats; got players {players}, "
                f"max_players {config.max_players}"
            )
        if not config.min_players <= players <= config.max_players:
            raise _invalid(
                f"players must be {config.min_players}..{config.max_players} for these rules; "
                f"got {players}"
            )
        names = _bots(data.get("bots", {}), players, config)
        seed, deal = _deal(data.get("seed"), players - len(names))
        # Each bot's own seed: from a chosen seed (see chosen_bot_seed), else at random.
        bots = {
            seat: (
                name,
                chosen_bot_seed(seed, seat) if deal.seed_chosen else secrets.randbelow(2**31),
            )
            for seat, name in names.items()
        }
        try:
            state = new_game(players, config=config, seed=seed)
        except ValueError as exc:
            raise _invalid(str(exc)) from None
        key = client_key(client) if client else "unknown"
        self._check_bot_tables(key, bots, players)
        wait = self.created.check(key)
        if wait:
            raise Refused(
                Why.TOO_MANY,
                "too_many_requests",
                f"this address created {self.created.limit} tables within the hour; "
                f"try again in {wait:.0f} seconds",
                retry_after=wait,
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
        self.created.add(key)
        self._created_by.setdefault(key, set()).add(table_id)
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
        self.registry.add(table)
        return table, creator_token

    def _check_room(self, now: float | None = None) -> None:
        """Refuse a new table while ``max_open_tables`` tables count as open.

        Raises:
            Refused: ``FULL`` (``too_many_tables``), with the seconds until enough of
                them stop counting, should none of them move before.
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
        raise Refused(
            Why.FULL,
            "too_many_tables",
            f"the server already has {self.max_open_tables} open tables; "
            f"try again in {wait:.0f} seconds",
            retry_after=wait,
        )

    def allow_bots(
        self, table: Table, bots: dict[int, tuple[str, int]], client: str | None
    ) -> None:
        """Refuse to give ``table`` the bots ``bots`` when that breaks ``client``'s limits.

        A creator who hands seats to bots makes a table of bots only, or one with a
        search bot, as much as one who creates it so: the table then counts for the
        client that asks (the creator), as if it had been created that way.

        Raises:
            Refused: ``TOO_MANY`` (``too_many_bot_tables``, ``too_many_search_tables``).
        """
        key = client_key(client) if client else "unknown"
        players = table.num_players
        was_search = any(lane_of(name) == SEARCH for name, _ in table.bots.values())
        is_search = any(lane_of(name) == SEARCH for name, _ in bots.values())
        if (is_search and not was_search) or (len(bots) == players and len(table.bots) < players):
            mine = self._created_by.get(key, set())
            counted = table.id in mine
            mine.discard(table.id)  # count the others only
            try:
                self._check_bot_tables(key, bots, players)
            finally:
                if counted:
                    mine.add(table.id)
        self._created_by.setdefault(key, set()).add(table.id)

    def _check_bot_tables(self, key: str, bots: dict[int, tuple[str, int]], players: int) -> None:
        """Refuse a table of bots only, or with a search bot, over the client's limits.

        Counted are the unfinished tables in memory that the client ``key`` created and
        that have bots only (``bot_tables_per_client``), or a search bot
        (``search_tables_per_client``), now. The refusal has no ``retry_after``: when a
        game of bots ends cannot be known (a 6-seat game of searches runs for hours).

        Raises:
            Refused: ``TOO_MANY`` (``too_many_bot_tables``, ``too_many_search_tables``).
        """
        search = any(lane_of(name) == SEARCH for name, _ in bots.values())
        bot_only = len(bots) == players
        if not (search or bot_only):
            return
        for owner, ids in list(self._created_by.items()):  # forget the finished tables
            for table_id in list(ids):
                table = self.registry.find(table_id)
                if table is None or table.state.is_terminal:
                    ids.discard(table_id)
            if not ids:
                del self._created_by[owner]
        mine = [t for i in self._created_by.get(key, ()) if (t := self.registry.find(i))]
        if search:
            count = sum(
                1 for t in mine if any(lane_of(name) == SEARCH for name, _ in t.bots.values())
            )
            if count >= self.search_tables_per_client:
                raise Refused(
                    Why.TOO_MANY,
                    "too_many_search_tables",
                    f"this address already has {count} unfinished tables with a search bot "
                    f"(at most {self.search_tables_per_client}); create another when one "
                    "is over",
                )
        if bot_only:
            count = sum(1 for t in mine if len(t.bots) == t.num_players)
            if count >= self.bot_tables_per_client:
                raise Refused(
                    Why.TOO_MANY,
                    "too_many_bot_tables",
                    f"this address already has {count} unfinished tables of bots only "
                    f"(at most {self.bot_tables_per_client}); create another when one is over",
                )
