"""Where the bots of every table think: worker processes in two lanes, tables in turn.

The server asks [`Thinking`][allegra_rules.server.thinking.Thinking] for a bot's move
(a [`Job`][allegra_rules.server.thinking.Job]: the bot's name and seed, the table's
version and state) and gets the answer back on its event loop, as ``action_to_dict``
data. The bots never think in the server's process, so neither a long search nor the
interpreter's lock slows its requests down.

* Two lanes, each with worker processes of its own: ``cheap`` for the bots that answer
  in milliseconds (greedy, random, policy and the stand-ins) and ``search`` for the
  searches (``EXPENSIVE_BOTS``). A cheap bot never waits behind a search. Of
  ``workers`` processes the cheap lane has one and the search lane the rest; with one
  process in all, both lanes share it and a cheap move is always sent first.
* Within a lane the tables take turns (round robin): each table has at most one move
  waiting or being thought, and the tables waiting are served in the order they asked,
  so a table that just had its move goes behind every table already waiting.
* A search thinks at most ``budget`` seconds a move (``MOVE_BUDGET``: its
  ``time_limit``; a named level stops earlier when its simulations are done). A move
  over the budget is still answered and applied; a worker process that dies is
  replaced and the move asked again once, then the caller hears of the failure.
* The search lane's processes run at a lower CPU priority (``SEARCH_NICENESS``) where the
  system has one, so on a busy machine the server and the cheap lane go first.
* Processes start when first needed (multiprocessing's ``spawn``, never a fork of the
  threaded server; the server starts the cheap lane's as it starts, ``warm``) and stop
  on ``close``.

A bot decides from ``observe(state, seat)`` as it always did. It is built afresh for each
move with a seed derived from its own seed and the table's version (``move_seed``), so a
bot's move depends only on its seed, the version and the state: the same after a
restart, in any worker process, and when the move is played inline (``decide``). A
search cut short by its budget, though, depends on the machine's speed.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import functools
import logging
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import attrs

# What a worker process runs and unpickles lives outside this package (see its docs); the
# names are this module's too.
from allegra_rules._thinking import (
    CHEAP,
    EXPENSIVE_BOTS,
    SEARCH,
    Job,
    _ready,
    _worker_start,
    build_bot,
    decide,
    lane_of,
    move_seed,
)
from allegra_rules.state import GameState

__all__ = [
    "CHEAP",
    "EXPENSIVE_BOTS",
    "MOVE_BUDGET",
    "SEARCH",
    "SEARCH_NICENESS",
    "Answer",
    "Job",
    "Lane",
    "Thinking",
    "Workers",
    "build_bot",
    "decide",
    "lane_of",
    "move_seed",
]

log = logging.getLogger("allegra_rules.server")

MOVE_BUDGET = 2.0
"""Seconds a search may think about one move (its ``time_limit``).

A 6-seat ``search-hard`` move takes about 0.9 s of one core (up to 3 s for the moves with
the most choices), so most of its moves finish their simulations within the budget and
play as the level always does; the longest are cut short.
"""

SEARCH_NICENESS = 10
"""How much lower the search lane's processes run in CPU priority (``os.nice``)."""

Answer = Callable[["dict[str, Any] | None", "BaseException | None"], None]
"""What ``Thinking.ask`` calls with a move: ``(action data, None)`` or ``(None, error)``."""


def _spawned(processes: int, niceness: int) -> concurrent.futures.Executor:
    """A pool of ``processes`` spawned worker processes at ``niceness``."""
    return concurrent.futures.ProcessPoolExecutor(
        max_workers=processes,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_worker_start,
        initargs=(niceness, os.getpid()),
    )


Start = Callable[[int, int], concurrent.futures.Executor]
"""Starts an executor of ``(processes, niceness)``: ``_spawned`` unless a test says."""


class Workers:
    """Worker processes one or two lanes send their jobs to, at most one job each at a time.

    Args:
        processes: how many.
        niceness: how much lower in CPU priority they run.
        start: starts the executor (when the first job comes, and after one died).
    """

    def __init__(self, processes: int, niceness: int = 0, start: Start = _spawned) -> None:
        self.processes = processes
        self.niceness = niceness
        self.busy = 0
        self.generation = 0
        self._start = start
        self._executor: concurrent.futures.Executor | None = None

    @property
    def free(self) -> bool:
        """Whether a process is free for another job."""
        return self.busy < self.processes

    def submit(self, job: Job) -> concurrent.futures.Future[dict[str, Any]]:
        """Send ``job`` to a process (``decide``); the future of its answer.

        A pool found broken (a process died since the last job) is started again.

        Raises:
            RuntimeError: the pool broke again at once.
        """
        for _ in range(2):
            if self._executor is None:
                self._executor = self._start(self.processes, self.niceness)
            try:
                future = self._executor.submit(decide, job)
            except BrokenProcessPool:
                self.restart()
                continue
            self.busy += 1
            return future
        raise RuntimeError("the bots' worker processes cannot be started")

    def warm(self) -> None:
        """Start the processes now, and have them import the bots (the first job's wait)."""
        if self._executor is None:
            self._executor = self._start(self.processes, self.niceness)
        for _ in range(self.processes):
            self._executor.submit(_ready)

    def restart(self) -> None:
        """Forget a broken executor: the next job starts new processes."""
        self.generation += 1
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the processes (a job being thought finishes, unheard)."""
        self.restart()


@attrs.define(eq=False)
class _Asked:
    """A table's move waiting or being thought: the job, its answer, and tries left."""

    job: Job
    answer: Answer
    tries: int = 2
    generation: int = 0


class Lane:
    """A lane's tables waiting for a move, in turn, and those being thought.

    Args:
        name: ``CHEAP`` or ``SEARCH``.
        workers: the processes the lane sends its jobs to.
    """

    def __init__(self, name: str, workers: Workers) -> None:
        self.name = name
        self.workers = workers
        self.waiting: collections.OrderedDict[str, _Asked] = collections.OrderedDict()
        self.thinking: dict[str, _Asked] = {}

    def __contains__(self, key: str) -> bool:
        return key in self.waiting or key in self.thinking

    def order(self) -> list[str]:
        """The tables waiting, the next to be served first."""
        return list(self.waiting)


class Thinking:
    """The bots' worker processes and the order in which tables get their moves.

    Args:
        workers: worker processes in all (at least 1): one for the cheap lane, the
            rest for the search lane; with 1 both lanes share it, cheap moves first.
        budget: seconds a search thinks about a move (``None``: no time limit).
        start: starts a lane's executor from ``(processes, niceness)`` (tests give one
            that runs nothing by itself).
        call_soon: runs a callable on the event loop, from any thread (``None``: the
            running loop's ``call_soon_threadsafe``, taken at the first ``ask``).

    Raises:
        ValueError: ``workers`` is less than 1.
    """

    def __init__(
        self,
        workers: int,
        *,
        budget: float | None = MOVE_BUDGET,
        start: Start = _spawned,
        call_soon: Callable[[Callable[[], None]], None] | None = None,
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1; got {workers}")
        self.budget = budget
        cheap = Workers(1, 0, start)
        search = cheap if workers == 1 else Workers(workers - 1, SEARCH_NICENESS, start)
        # The lanes in the order a shared process serves them: cheap moves first.
        self.lanes = {CHEAP: Lane(CHEAP, cheap), SEARCH: Lane(SEARCH, search)}
        self._call_soon = call_soon
        self._closed = False

    def job(self, bot: str, seed: int, version: int, state: GameState) -> Job:
        """The job of a move of ``bot`` (with ``budget`` for a search)."""
        budget = self.budget if lane_of(bot) == SEARCH else None
        return Job(bot=bot, seed=seed, version=version, state=state, budget=budget)

    def ask(self, key: str, job: Job, answer: Answer) -> None:
        """Think ``job`` for the table ``key``; ``answer`` is called on the event loop.

        Raises:
            ValueError: the table ``key`` already has a move waiting or being thought.
            RuntimeError: after ``close``.
        """
        if self._closed:
            raise RuntimeError("the bots' worker processes are closed")
        if any(key in lane for lane in self.lanes.values()):
            raise ValueError(f"table {key} already has a bot move on its way")
        if self._call_soon is None:
            loop = asyncio.get_running_loop()

            def call_soon(callback: Callable[[], None]) -> None:
                if not loop.is_closed():
                    loop.call_soon_threadsafe(callback)

            self._call_soon = call_soon
        self.lanes[job.lane].waiting[key] = _Asked(job, answer)
        self._pump()

    def _pump(self) -> None:
        """Send the next tables' jobs to free processes, each lane in turn order."""
        for lane in self.lanes.values():
            while lane.waiting and lane.workers.free:
                key, asked = lane.waiting.popitem(last=False)
                self._send(lane, key, asked)

    def _send(self, lane: Lane, key: str, asked: _Asked) -> None:
        asked.tries -= 1
        call_soon = self._call_soon
        assert call_soon is not None
        try:
            future = lane.workers.submit(asked.job)
        except RuntimeError as exc:
            log.error("the bots' worker processes cannot be started: %s", exc)
            call_soon(functools.partial(asked.answer, None, exc))
            return
        asked.generation = lane.workers.generation
        lane.thinking[key] = asked

        def done(future: concurrent.futures.Future[dict[str, Any]]) -> None:
            call_soon(lambda: self._finished(lane, key, future))

        future.add_done_callback(done)

    def _finished(
        self, lane: Lane, key: str, future: concurrent.futures.Future[dict[str, Any]]
    ) -> None:
        """A job came back: answer it (or ask again once if its process died), then pump."""
        asked = lane.thinking.pop(key)
        lane.workers.busy -= 1
        if self._closed:
            return
        error = concurrent.futures.CancelledError() if future.cancelled() else future.exception()
        if isinstance(error, BrokenProcessPool):
            if asked.generation == lane.workers.generation:  # not restarted yet
                lane.workers.restart()
            if asked.tries > 0:
                log.warning("a bot's worker process died; the move of table %s is asked again", key)
                lane.waiting[key] = asked
                lane.waiting.move_to_end(key, last=False)
                self._pump()
                return
        try:
            asked.answer(None if error is not None else future.result(), error)
        finally:
            self._pump()

    def warm(self) -> None:
        """Start the cheap lane's process now (the server does as it starts).

        The first greedy or stand-in move then does not wait for a process to start and
        import the engine (about a second); the search lane starts with its first move.
        """
        if not self._closed:
            self.lanes[CHEAP].workers.warm()

    def pending(self) -> int:
        """How many tables have a move waiting or being thought."""
        return sum(len(lane.waiting) + len(lane.thinking) for lane in self.lanes.values())

    def close(self) -> None:
        """Stop every worker process; the moves waiting are dropped, unanswered."""
        self._closed = True
        for lane in self.lanes.values():
            lane.waiting.clear()
            lane.workers.close()
