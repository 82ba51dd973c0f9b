"""Where the server's bots think: worker processes, two lanes, tables in turn, limits.

The order in which tables get their moves is checked with fake jobs that finish only
when a test says (no processes, no timing); one test plays a game whose bot moves come
from real worker processes and checks them against the same moves made inline. The
limits on bot-only and search tables per client address are checked on ``Tables`` with
bots that never answer, and on a real server with clients from four addresses.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import pickle
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

# The server package imports its application: it needs the server extra.
pytest.importorskip("starlette", reason="the server extra is not installed")
pytest.importorskip("uvicorn", reason="the server extra is not installed")

from allegra_rules import apply, legal_actions, new_game
from allegra_rules.bots import GreedyBot
from allegra_rules.search import SearchBot
from allegra_rules.serialize import action_from_dict, action_to_dict
from allegra_rules.server.store_sqlite import SQLiteStore
from allegra_rules.server.tables import Refused, Tables, Why
from allegra_rules.server.thinking import (
    CHEAP,
    MOVE_BUDGET,
    SEARCH,
    Job,
    Thinking,
    build_bot,
    decide,
    lane_of,
    move_seed,
)

# ------------------------------------------------------------------------ fake jobs


class FakeExecutor(concurrent.futures.Executor):
    """Runs nothing: each job's future waits in ``sent`` until the test finishes it."""

    def __init__(self, name: str, sent: list[tuple[str, Job, concurrent.futures.Future[Any]]]):
        self.name = name
        self.sent = sent

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.sent.append((self.name, args[0], future))
        return future


class Fake:
    """A ``Thinking`` of fake executors, answering inline; records what was sent and heard."""

    def __init__(self, workers: int) -> None:
        self.sent: list[tuple[str, Job, concurrent.futures.Future[Any]]] = []
        self.heard: list[str] = []
        self.started: list[tuple[int, int]] = []

        def start(processes: int, niceness: int) -> concurrent.futures.Executor:
            self.started.append((processes, niceness))
            return FakeExecutor(f"pool{len(self.started)}", self.sent)

        self.thinking = Thinking(workers, start=start, call_soon=lambda f: f())

    def ask(self, table: str, bot: str = "search-hard", again: bool = False) -> None:
        """Ask a move of ``bot`` for ``table``; with ``again``, ask the next one when heard."""
        state = new_game(2, seed=1)

        def answer(data: dict[str, Any] | None, error: BaseException | None) -> None:
            self.heard.append(table)
            if again:
                self.ask(table, bot, again)

        self.thinking.ask(table, self.thinking.job(bot, 1, 0, state), answer)

    def finish(self, index: int) -> None:
        self.sent[index][2].set_result({"kind": "pass"})


def test_the_tables_of_a_lane_take_turns() -> None:
    fake = Fake(workers=2)  # one process for cheap bots, one for searches
    state = new_game(2, seed=1)

    def order() -> list[str]:  # the tables sent, in order (a table's bot seed names it)
        return ["ABC"[job.seed] for _, job, _ in fake.sent]

    def ask(table: str, seed: int) -> None:
        def answer(data: dict[str, Any] | None, error: BaseException | None) -> None:
            fake.heard.append(table)
            ask(table, seed)  # every table always wants its next move

        fake.thinking.ask(table, fake.thinking.job("search-hard", seed, 0, state), answer)

    for seed, table in enumerate("ABC"):
        ask(table, seed)
    assert order() == ["A"]  # one search process: A thinks, B and C wait in that order
    assert fake.thinking.lanes[SEARCH].order() == ["B", "C"]
    for k in range(6):
        fake.finish(k)  # the move being thought comes back; its table asks again
    # A table that just moved goes behind those already waiting: A B C A B C A.
    assert order() == ["A", "B", "C", "A", "B", "C", "A"]
    assert fake.heard == ["A", "B", "C", "A", "B", "C"]
    assert fake.thinking.lanes[SEARCH].order() == ["B", "C"]


def test_a_table_has_one_move_on_its_way_at_a_time() -> None:
    fake = Fake(workers=2)
    fake.ask("A")
    with pytest.raises(ValueError, match="already has a bot move"):
        fake.ask("A", bot="greedy")
    fake.finish(0)
    fake.ask("A", bot="greedy")  # answered: it may ask again
    assert len(fake.sent) == 2


def test_a_cheap_bot_never_waits_behind_a_search() -> None:
    fake = Fake(workers=3)  # one cheap process, two search processes
    for table in "ABCD":
        fake.ask(table)  # four searching tables: two think, two wait
    fake.ask("G", bot="greedy")
    # The search pool started first (pool1) and thinks A and B; G went to its own pool.
    assert [(name, job.bot) for name, job, _ in fake.sent] == [
        ("pool1", "search-hard"),
        ("pool1", "search-hard"),
        ("pool2", "greedy"),
    ]
    assert fake.started == [(2, 10), (1, 0)]  # the searches' processes run at a lower priority
    cheap, search = fake.thinking.lanes[CHEAP].workers, fake.thinking.lanes[SEARCH].workers
    assert cheap is not search and (cheap.processes, search.processes) == (1, 2)
    assert fake.thinking.lanes[SEARCH].order() == ["C", "D"]
    fake.finish(len(fake.sent) - 1)
    assert fake.heard == ["G"]


def test_one_process_serves_cheap_moves_first() -> None:
    fake = Fake(workers=1)  # both lanes share it
    assert fake.thinking.lanes[CHEAP].workers is fake.thinking.lanes[SEARCH].workers
    fake.ask("A")
    fake.ask("B")
    fake.ask("G", bot="random")
    assert [job.bot for _, job, _ in fake.sent] == ["search-hard"]
    fake.finish(0)
    # B asked before G, but G is cheap: it goes first.
    assert [job.bot for _, job, _ in fake.sent] == ["search-hard", "random"]
    fake.finish(1)
    assert [job.bot for _, job, _ in fake.sent] == ["search-hard", "random", "search-hard"]
    assert fake.heard == ["A", "G"]


def test_a_dead_process_is_replaced_and_the_move_asked_again() -> None:
    from concurrent.futures.process import BrokenProcessPool

    fake = Fake(workers=2)
    fake.ask("A")
    fake.sent[0][2].set_exception(BrokenProcessPool("died"))
    assert fake.heard == [] and len(fake.sent) == 2  # asked again, on new processes
    assert len(fake.started) == 2
    fake.sent[1][2].set_exception(BrokenProcessPool("died again"))
    assert fake.heard == ["A"]  # twice: the caller hears of it (and plays a greedy move)


def test_searches_get_a_time_budget_and_answer_past_it() -> None:
    state = new_game(6, seed=3)
    greedy = GreedyBot(1)
    for _ in range(20):
        state = apply(state, greedy.choose(state))
    thinking = Thinking(2, start=lambda n, nice: FakeExecutor("x", []), call_soon=lambda f: f())
    job = thinking.job("search-hard", 5, 20, state)
    assert job.budget == MOVE_BUDGET and job.lane == SEARCH
    assert thinking.job("greedy", 5, 20, state).budget is None
    bot = build_bot("search-hard", 5, 0.5)
    assert isinstance(bot, SearchBot) and bot.time_limit == 0.5 and bot.simulations == 128
    assert isinstance(build_bot("greedy", 5, 0.5), GreedyBot)
    # A budget far too small for one simulation: the move is still answered, and legal.
    data = decide(Job("search-hard", 5, 20, state, budget=1e-6))
    assert action_from_dict(data, num_players=6) in legal_actions(state)
    assert lane_of("search-guided") == SEARCH and lane_of("policy") == CHEAP


def test_a_move_depends_on_the_bot_seed_and_the_version_only() -> None:
    state = new_game(3, seed=8)
    one = decide(Job("random", 4, 0, state))
    assert all(decide(Job("random", 4, 0, state)) == one for _ in range(3))
    moves = {str(decide(Job("random", 4, v, state))) for v in range(12)}
    assert len(moves) > 1  # another version, another bot seed
    assert move_seed(4, 0) != move_seed(5, 0)


# ------------------------------------------------------------------ real processes


def test_bot_moves_are_computed_in_worker_processes() -> None:
    async def play() -> tuple[Any, list[int]]:
        # A budget no move reaches here: the searches play their whole level.
        tables = Tables(SQLiteStore(":memory:"), bot_workers=2, move_budget=600.0)
        bots = {"0": "greedy", "1": "random", "2": "search-easy"}
        table = tables.create({"players": 3, "max_turns": 2, "bots": bots})
        while not table.state.is_terminal:
            await asyncio.sleep(0.01)
        pids = []
        for lane in tables.thinking.lanes.values():
            executor = lane.workers._executor
            assert isinstance(executor, concurrent.futures.ProcessPoolExecutor)
            pids += [p.pid for p in executor._processes.values()]  # type: ignore[attr-defined]
        tables.close()
        return table, pids

    table, pids = asyncio.run(asyncio.wait_for(play(), 120))
    assert pids and os.getpid() not in pids
    # Each move is the one the bot makes inline from its seed and the table's version.
    state = new_game(3, config=table.config, seed=table.seed)
    for version, action in enumerate(table.actions):
        seat = state.current_player
        name, seed = table.bots[seat]
        assert decide(Job(name, seed, version, state)) == action_to_dict(action)
        state = apply(state, action, player=seat)
    assert state.is_terminal


def test_a_worker_ends_with_its_server_even_one_that_died_before_it_started() -> None:
    """A worker serves while the server that started it lives, and a worker whose
    server is already gone when it starts (its parent is then another process) ends at
    once instead of waiting forever for jobs."""
    import multiprocessing
    from concurrent.futures.process import BrokenProcessPool

    from allegra_rules.server import thinking

    spawn = multiprocessing.get_context("spawn")
    for parent, serves in ((os.getpid(), True), (-1, False)):  # -1: nobody's process id
        with concurrent.futures.ProcessPoolExecutor(
            1, mp_context=spawn, initializer=thinking._worker_start, initargs=(0, parent)
        ) as pool:
            answer = pool.submit(os.getppid)
            if serves:
                assert answer.result(timeout=60) == os.getpid()
            else:
                with pytest.raises(BrokenProcessPool):
                    answer.result(timeout=60)


def test_a_worker_unpickles_its_jobs_without_the_web_application() -> None:
    """What a worker process unpickles (a job, ``decide``, its start-up) names a module
    that imports the engine and the bots alone: a worker never loads the server's
    package, Starlette or uvicorn."""
    from allegra_rules.server import thinking

    job = Job("greedy", 1, 0, new_game(2, seed=1))
    sent = pickle.dumps((thinking.decide, thinking._ready, thinking._worker_start, job))
    code = (
        "import pickle, sys\n"
        f"decide, ready, start, job = pickle.loads({sent!r})\n"
        "decide(job)\n"
        "heavy = ('allegra_rules.server', 'starlette', 'uvicorn', 'psycopg')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# --------------------------------------------------------------------------- limits


def silent_tables(**options: Any) -> Tables:
    """Tables whose bots never answer (their tables stay unfinished); call on a loop."""
    tables = Tables(SQLiteStore(":memory:"), **options)
    tables.thinking = Thinking(
        2, start=lambda n, nice: FakeExecutor("x", []), call_soon=lambda f: f()
    )
    return tables


def refused(call: Callable[[], Any], code: str) -> Refused:
    with pytest.raises(Refused) as caught:
        call()
    assert (caught.value.why, caught.value.code) == (Why.TOO_MANY, code)
    return caught.value


def test_each_address_has_a_few_unfinished_bot_tables() -> None:
    async def run() -> None:
        tables = silent_tables(bot_tables_per_client=2, search_tables_per_client=1)
        bots = {"0": "greedy", "1": "random"}
        one = tables.create({"players": 2, "bots": bots}, "10.0.0.1")
        tables.create({"players": 2, "bots": bots}, "10.0.0.1")
        error = refused(
            lambda: tables.create({"players": 2, "bots": bots}, "10.0.0.1"), "too_many_bot_tables"
        )
        assert "2 unfinished tables of bots only" in error.message
        tables.create({"players": 2, "bots": bots}, "10.0.0.2")  # another address
        tables.create({"players": 2, "bots": {"1": "greedy"}}, "10.0.0.1")  # a person plays
        # A table that is over no longer counts.
        one.state = new_game(2, seed=1)
        while not one.state.is_terminal:
            one.state = apply(one.state, GreedyBot(0).choose(one.state))
        tables.create({"players": 2, "bots": bots}, "10.0.0.1")
        # One table with a search bot, bots only or not.
        search = {"players": 2, "bots": {"1": "search-easy"}}
        tables.create(search, "10.0.0.3")
        refused(lambda: tables.create(search, "10.0.0.3"), "too_many_search_tables")
        # Four addresses each create a 6-seat table of search-hard bots.
        six = {"players": 6, "bots": dict.fromkeys("012345", "search-hard")}
        for k in range(4):
            tables.create(six, f"127.0.0.{k + 2}")
        refused(lambda: tables.create(six, "127.0.0.2"), "too_many_search_tables")
        tables.close()

    asyncio.run(run())
