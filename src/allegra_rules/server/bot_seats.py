"""The bots at the tables: when a bot (or a stand-in) moves, and which process plays it.

A bot moves as soon as it is its seat's move: after a person's move, when a table is
created, and when the server starts again. It thinks in a worker process, never on the
event loop ([`Thinking`][allegra_rules.server.thinking.Thinking] serves the tables in
turn, in a lane of cheap bots and a lane of searches), and its move is committed back on
the loop like a person's (``Moves.commit``). A seat that is to act but idle for
``seat_timeout`` seconds, at a table where some seat is claimed, is played by a stand-in
(greedy) until its person comes back.

With several processes on one database, a table's bots are played by the one process
that holds them (``Store.hold_bots``); ``watch_bots`` renews that hold and takes a
table's bots over once another process's hold has expired.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from allegra_rules.bots import GreedyBot
from allegra_rules.serialize import action_from_dict
from allegra_rules.state import GameState
from allegra_rules.transitions import apply

from .moves import Moves
from .refusals import Refused
from .registry import Registry
from .store import Store
from .sync import Sync
from .table import Table
from .thinking import Thinking, decide, move_seed
from .watchers import seats_changed

__all__ = ["BOT_WORKERS", "SEAT_TIMEOUT", "BotSeats"]

log = logging.getLogger("allegra_rules.server")

SEAT_TIMEOUT = 300.0
"""The default seconds a seat may be idle while it is to act before a bot stands in."""

BOT_WORKERS = 2
"""The default number of worker processes the bots of all tables think in.

One is the cheap bots' lane, the others the searches' (see
[`Thinking`][allegra_rules.server.thinking.Thinking]).
"""


def player(table: Table, seat: int | None) -> tuple[str, int] | None:
    """The bot that plays ``seat`` now, as (name, seed): its own, a stand-in, or none.

    A stand-in is ``greedy``, seeded with the table's version.
    """
    if seat is None:
        return None
    bot = table.bots.get(seat)
    if bot is None and seat in table.stand_in:
        bot = ("greedy", table.version)
    return bot


class BotSeats:
    """The bots of every table this process plays.

    Args:
        store: the database (its ``hold_bots`` says which process plays a table's bots).
        registry: the tables in memory.
        sync: reads a table again when this process takes its bots over.
        moves: commits each bot's move.
        thinking: the worker processes the bots think in.
        seat_timeout: seconds a seat may be idle while it is to act before a stand-in
            plays it; 0: never.
    """

    def __init__(
        self,
        store: Store,
        registry: Registry,
        sync: Sync,
        moves: Moves,
        thinking: Thinking,
        *,
        seat_timeout: float = SEAT_TIMEOUT,
    ) -> None:
        self.store = store
        self.registry = registry
        self.sync = sync
        self.moves = moves
        self.thinking = thinking
        self.seat_timeout = seat_timeout
        self._held: set[str] = set()

    # ------------------------------------------------------------ moving

    def schedule(self, table: Table) -> None:
        """Let a bot think when it is a bot's (or a stand-in's) move.

        With an event loop running, the bot thinks in a worker process (in its lane and
        in turn with the other tables) and its move is applied back on the loop;
        without one, the bots' moves are played now.
        """
        state = table.state
        if table.bots_pending or state.is_terminal:
            return
        seat = state.current_player
        bot = player(table, seat)
        if bot is None or seat is None or not self._holds(table):
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no event loop: play the bots' moves now
            while self._step(table):
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
                table.id, job, lambda data, error: self._chose(table, state, seat, data, error)
            )
        except RuntimeError:  # the server is stopping: its worker processes are closed
            table.bots_pending = False

    def _chose(
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
        if table.state is state and player(table, seat) is not None:
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
                self.moves.commit(table, seat, action, apply(state, action, player=seat))
            except Refused:  # another move was stored first: the table was read again
                pass
            except Exception:  # pragma: no cover - a bot never fails on a legal state
                log.exception("the bot of seat %s at table %s failed", seat, table.id)
                return
        self.schedule(table)

    def _step(self, table: Table) -> bool:
        """One bot move, if it is a bot's move; True when one was made."""
        state = table.state
        seat = state.current_player
        bot = player(table, seat)
        if seat is None or bot is None or state.is_terminal:
            return False
        try:
            name, seed = bot
            data = decide(self.thinking.job(name, seed, table.version, state))
            action = action_from_dict(data, num_players=table.num_players)
            self.moves.commit(table, seat, action, apply(state, action, player=seat))
        except Refused:  # another move was stored first: the table was read again
            return True
        except Exception:  # pragma: no cover - a bot never fails on a legal state
            log.exception("the bot of seat %s at table %s failed", seat, table.id)
            return False
        return True

    # ------------------------------------------------- holds (several processes)

    def _holds(self, table: Table) -> bool:
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
        self._held.intersection_update(self.registry.ids())
        wanted = [
            table.id
            for table in self.registry
            if not table.state.is_terminal
            and (table.id in self._held or player(table, table.state.current_player) is not None)
        ]
        before = set(self._held)
        held = self._hold(wanted)
        for table_id in held:
            table = self.registry.find(table_id)
            if table is None or table.bots_pending:
                continue
            if table_id not in before:
                row = self.store.load(table.id)
                if row is not None and row.version != table.version:
                    self.sync.reload(table, row)
            self.schedule(table)
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

    # ------------------------------------------------------------ stand-ins

    def stand_in_idle_seats(self, now: float | None = None) -> int:
        """Let a stand-in play every seat idle past ``seat_timeout`` while it is to act.

        Returns how many stand-ins started. A seat no bot plays (claimed or not) is idle
        since its turn began or its person's last request, whichever is later. Only a
        table where some seat is claimed gets stand-ins: one nobody came to waits, and
        expires (see ``allegra_rules.server.seats``).
        """
        if self.seat_timeout <= 0:
            return 0
        now = time.monotonic() if now is None else now
        started = 0
        for table in self.registry:
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
            seats_changed(table)
            self.schedule(table)
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
