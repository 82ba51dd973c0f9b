"""A table that runs in the browser: one person against bots, with no server.

The docs' play page runs the engine in Pyodide (CPython compiled to WebAssembly) and
plays through this module. It answers with the same documents the table server sends
([`seat_document`][allegra_rules.table_view.seat_document]), so the page's code is the
same for both. It imports neither asyncio nor the server's packages; every answer is
JSON text, the form the page's JavaScript reads.

The person's seat gets only its view, never the state: what the page receives is the
same for any two games that seat cannot tell apart.

Examples:
    >>> import json
    >>> table = BrowserTable.create(
    ...     json.dumps({"players": 2, "preset": "seeds", "bots": {"1": "greedy"}, "seed": 5})
    ... )
    >>> doc = json.loads(table.view_json())
    >>> doc["viewer"], doc["version"], doc["phase"]
    (0, 0, 'setup')
    >>> doc = json.loads(table.move_json(json.dumps(doc["legal_actions"][0]), 0))
    >>> doc["version"]
    1
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Sequence
from typing import Any

import attrs

from allegra_rules.actions import Action
from allegra_rules.bot_kinds import BOT_KINDS, POLICY_BOTS, unavailable
from allegra_rules.bots import Bot
from allegra_rules.config import RuleConfig
from allegra_rules.policy import fetch_shipped_weights, shipped_missing
from allegra_rules.presets import preset, preset_id, preset_names
from allegra_rules.records import GameRecord
from allegra_rules.serialize import action_from_dict
from allegra_rules.state import GameState
from allegra_rules.table_view import Move, remember, replay, seat_document
from allegra_rules.transitions import apply

__all__ = [
    "BOT_CHOICES",
    "BrowserTable",
    "TableError",
    "bot_choices",
    "bot_offers",
    "fetch_weights_from",
]

BOT_CHOICES: tuple[str, ...] = ("greedy", "search-easy", "policy")
"""The bots the play page offers, weakest first; ``policy`` only where it can run."""


def bot_choices() -> list[str]:
    """The names of [`BOT_CHOICES`][allegra_rules.browser_table.BOT_CHOICES] that run here.

    ``policy`` (the learned policy) needs its bot kind, NumPy (or Pyodide, where it
    runs in plain Python) and its weights file; a page without them offers the others.
    The weights are not loaded here (``shipped_missing``): a table that seats the
    policy loads them.

    Examples:
        >>> bot_choices()[:2]
        ['greedy', 'search-easy']
    """
    return [name for name in BOT_CHOICES if _runs(name)]


@functools.cache
def _runs(name: str) -> bool:
    if name not in BOT_KINDS:
        return False
    if name in POLICY_BOTS:
        # Asked without loading the weights (most of a second in Pyodide, paid only by
        # a table that seats the policy).
        return shipped_missing() is None
    try:
        BOT_KINDS[name](0)
    except (ImportError, OSError, ValueError):  # no numpy, no weights
        return False
    return True


def fetch_weights_from(base: str) -> None:
    """Fetch the policy's weights files from the folder at the address ``base``.

    The play page's wheel holds the weights' index but not their files, which the site
    serves in its ``weights/`` folder: a table that seats the policy fetches its own
    seat count's file there, once, with a synchronous request (allowed in the page's Web
    Worker, where Pyodide runs). It needs Pyodide's ``js`` module
    ([`fetch_shipped_weights`][allegra_rules.policy.fetch_shipped_weights] says how the
    file is checked).
    """

    def fetch(name: str) -> bytes:
        from js import XMLHttpRequest  # type: ignore[import-not-found]

        request = XMLHttpRequest.new()
        request.open("GET", base + name, False)
        request.responseType = "arraybuffer"
        request.send(None)
        if request.status != 200:
            raise FileNotFoundError(f"{base}{name}: HTTP {request.status}")
        return bytes(request.response.to_bytes())

    fetch_shipped_weights(fetch)


def bot_offers(
    names: Sequence[str], presets: Sequence[str] | None = None
) -> dict[str, dict[str, list[str]]]:
    """Which of the bots ``names`` can play, per preset (every one by default) and seat count.

    ``{preset: {"2": [names...], ..., "6": [...]}}`` (2 to 6 seats): a page offers a seat only the
    bots listed for its table, so every bot it offers can create that table
    ([`unavailable`][allegra_rules.bot_kinds.unavailable] says why one cannot). A
    name that is not a bot kind (``"person"``) is always listed.

    Examples:
        >>> bot_offers(["greedy"], ["seeds"])["seeds"]["6"]
        ['greedy']
    """
    offers: dict[str, dict[str, list[str]]] = {}
    for name in preset_names() if presets is None else presets:
        config = preset(name)
        offers[name] = {
            str(n): [
                bot for bot in names if bot not in BOT_KINDS or unavailable(bot, config, n) is None
            ]
            for n in range(2, 7)
        }
    return offers


class TableError(ValueError):
    """A request the table refuses: its ``code`` is one of the server's error codes."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class BrowserTable:
    """One game in the page: the person's seat, the bots of the other seats, the moves.

    Attributes:
        seat: the person's seat.
        bots: the bot seats: seat -> bot name.
        record: the game so far (its rules, its deal and every action).
        state: the current state (never sent to the page).
    """

    def __init__(self, record: GameRecord, seat: int, bots: dict[int, str], seed: int) -> None:
        """A table that continues ``record`` with the person at ``seat``.

        Args:
            record: the game so far.
            seat: the person's seat.
            bots: a bot name for every other seat.
            seed: the bots' seed (each bot gets its own, drawn from it).
        """
        players = record.num_players
        if not 0 <= seat < players:
            raise TableError("invalid_table", f"seat must be 0..{players - 1}; got {seat}")
        if set(bots) != set(range(players)) - {seat}:
            raise TableError("invalid_table", "every seat but the person's needs a bot")
        unknown = sorted(set(bots.values()) - set(bot_choices()))
        if unknown:
            raise TableError("invalid_table", f"unknown bots {unknown}; known: {bot_choices()}")
        for name in sorted(set(bots.values())):
            why = unavailable(name, record.config, players)
            if why is not None:
                raise TableError("invalid_table", f"the {name} bot cannot play here: {why}")
        rng = random.Random(seed)
        self.seat = seat
        self.bots = dict(sorted(bots.items()))
        self._players: dict[int, Bot] = {
            p: BOT_KINDS[name](rng.randrange(2**31)) for p, name in self.bots.items()
        }
        self.record = record
        self.state: GameState = record.initial_state()
        for action in record.actions:
            self.state = apply(self.state, action)
        self._moves: list[Move] = replay(record, len(record.actions))

    @classmethod
    def create(cls, request: str) -> BrowserTable:
        """A new table from the page's JSON request.

        The request is ``{"players": n, "preset": name, "bots": {"1": "greedy", ...},
        "max_turns": k, "seed": s}`` (``max_turns`` and ``seed`` may be left out), the
        body the server's ``POST /api/tables`` takes; the person sits at seat 0 and
        every seat not named in ``bots`` gets a greedy bot. With ``"record"`` (a game
        record's JSON text) instead of ``players``, ``preset`` and ``max_turns``, the
        table continues that game with the person at the seat to move.

        Raises:
            TableError: a request that names no valid game.
        """
        try:
            data = json.loads(request)
        except ValueError as exc:
            raise TableError("invalid_table", f"not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise TableError("invalid_table", "the request must be a JSON object")
        seed = data.get("seed")
        if seed is None:
            seed = random.randrange(2**63)
        if type(seed) is not int or not 0 <= seed < 2**63:
            raise TableError("invalid_table", f"seed must be an integer 0..2**63-1; got {seed!r}")
        try:
            if "record" in data:
                record = GameRecord.from_json(str(data["record"]))
                state = record.initial_state()
                for action in record.actions:
                    state = apply(state, action)
                seat = state.current_player
                if seat is None:
                    raise TableError("game_over", "the game of this record is over")
            else:
                record = cls._new_record(data, seed)
                seat = 0
        except (ValueError, TypeError, KeyError) as exc:
            if isinstance(exc, TableError):
                raise
            raise TableError("invalid_table", str(exc)[:300]) from None
        names = data.get("bots", {})
        if not isinstance(names, dict):
            raise TableError("invalid_table", 'bots must be an object {"<seat>": "<bot>"}')
        bots = {p: "greedy" for p in range(record.num_players) if p != seat}
        for key, name in names.items():
            if not (isinstance(key, str) and key.isdigit() and int(key) in bots):
                raise TableError("invalid_table", f"bots: {str(key)[:20]!r} is not a bot's seat")
            bots[int(key)] = name
        return cls(record, seat, bots, seed)

    @staticmethod
    def _new_record(data: dict[str, Any], seed: int) -> GameRecord:
        players = data.get("players")
        if type(players) is not int:
            raise TableError("invalid_table", "players must be an integer (the seat count)")
        name = data.get("preset", "seeds")
        if not isinstance(name, str):
            raise TableError("invalid_table", "preset must be a preset id, such as 'seeds'")
        config: RuleConfig = preset(name)
        pinned: str | None = preset_id(name)
        turns = data.get("max_turns")
        if turns is not None:
            if type(turns) is not int or not 1 <= turns <= config.max_turns_per_round:
                raise TableError(
                    "invalid_table",
                    f"max_turns must be an integer 1..{config.max_turns_per_round}; got {turns!r}",
                )
            config = attrs.evolve(config, max_turns_per_round=turns)
            pinned = None  # found by GameRecord when the rules equal a preset
        return GameRecord(num_players=players, config=config, seed=seed, preset=pinned)

    @property
    def version(self) -> int:
        """The number of actions applied so far."""
        return len(self.record.actions)

    def info_json(self) -> str:
        """The table's public facts as JSON, the shape of the server's ``GET /api/tables/ID``.

        ``{"players": n, "preset": id, "seats": [{"seat": p, "bot": name, "taken": true},
        ...], "version": k, "over": bool, "bots": [names the page may offer]}``.
        """
        return json.dumps(
            {
                "players": self.record.num_players,
                "preset": self.record.preset,
                "seats": [
                    {"seat": p, "bot": self.bots.get(p), "taken": True}
                    for p in range(self.record.num_players)
                ],
                "version": self.version,
                "over": self.state.is_terminal,
                "bots": bot_choices(),
            }
        )

    def view_json(self, lang: str = "en") -> str:
        """The person's view document as JSON, with its picture and worded actions.

        The same document as the server's ``GET .../view?svg=1`` for the person's seat
        ([`seat_document`][allegra_rules.table_view.seat_document]), plus
        ``"stand_in": []``.
        """
        data = seat_document(
            self.state,
            self.seat,
            version=self.version,
            moves=self._moves,
            svg=True,
            lang=lang,
            bots=self.bots,
        )
        data["stand_in"] = []
        return json.dumps(data, separators=(",", ":"))

    def _apply(self, seat: int, action: Action) -> None:
        before = self.state
        self.state = apply(before, action, player=seat)
        self.record = self.record.with_actions(action)
        remember(self._moves, self.version, seat, before, action, self.state)

    def move_json(self, action: str, version: int, lang: str = "en") -> str:
        """Apply the person's ``action`` (JSON, as in ``legal_actions``) made at ``version``.

        Returns:
            The person's new view document (``view_json``).

        Raises:
            TableError: the game is over (``game_over``), ``version`` is not the table's
                (``stale_version``), it is not the person's move (``not_your_turn``), or
                the action is not one (``invalid_action``) or not legal now
                (``illegal_action``).
        """
        if self.state.is_terminal:
            raise TableError("game_over", "the game is over")
        if version != self.version:
            raise TableError("stale_version", f"the table is at version {self.version}")
        if self.state.current_player != self.seat:
            raise TableError("not_your_turn", f"it is seat {self.state.current_player}'s move")
        try:
            chosen = action_from_dict(json.loads(action), "$.action", self.record.num_players)
        except ValueError as exc:
            raise TableError("invalid_action", str(exc)) from None
        try:
            self._apply(self.seat, chosen)
        except ValueError as exc:
            raise TableError("illegal_action", str(exc)) from None
        return self.view_json(lang)

    def bot_to_move(self) -> bool:
        """Whether a bot's seat is to act."""
        seat = self.state.current_player
        return not self.state.is_terminal and seat is not None and seat != self.seat

    def bot_move(self) -> bool:
        """Let the bot whose seat is to act make one move; ``False`` when none is to act."""
        if not self.bot_to_move():
            return False
        seat = self.state.current_player
        assert seat is not None
        self._apply(seat, self._players[seat].choose(self.state))
        return True

    def record_json(self) -> str:
        """The finished game's record (``GameRecord.to_json``), for ``allegra-rules replay``.

        Raises:
            TableError: the game is not over (the record holds the deal).
        """
        if not self.state.is_terminal:
            raise TableError("game_not_over", "the record is public once the game is over")
        return self.record.to_json()
