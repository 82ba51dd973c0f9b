"""Load on the table server: N tables of two persons, on one process or several, on loopback.

Starts ``allegra-rules serve`` on 127.0.0.1 (``--store sqlite``: a fresh SQLite file;
``--store postgres``: a fresh database of a PostgreSQL server it starts itself with
tests/postgres.py, ``fsync`` on, or ``--database URL``), ``--processes P`` of them on one
database (PostgreSQL), creates N two-seat tables (rounds capped at --max-turns turns so
that games are short) and plays them all at once. Each table's two seats are two clients:
seat 0 talks to process k, seat 1 to process k+1, so with several processes every move
crosses from one process to another. Each client holds its seat's WebSocket and, when a
view says it is its move, POSTs a random legal action with the view's version, at once
(``--think 0``: the server's saturation) or after a random pause (``--think T``: a mean
of T seconds, uniform over 0..2T; people take longer).

The tables are shared among ``--clients C`` client processes (4 by default; table k
is played by client k mod C), so that no single client's event loop is the queue that
is measured, and each client's garbage collector is off while the clock runs (its full
collections, once it has read thousands of views, paused it for up to 0.6 s).

Reports moves/s; the p50 and p99 latency of a move (POST sent to answer read) and of the
push (POST sent to the other seat's socket reading the new view); the servers' CPU time
per move; games completed; and checks every finished game's record against the moves
its clients made: none lost, none applied twice. Tables are made and sockets opened
before the clock starts.

    python benchmarks/server_load.py --tables 50 200 --repeat 2 --think 1
    python benchmarks/server_load.py --store postgres --processes 1 2 4 --tables 200 --think 0
    python benchmarks/server_load.py --store postgres --processes 4 --tables 1000 --think 3

Runs alternate (processes, tables in order, then the next repeat); the medians of the
repeats are printed last.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import itertools
import json
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from raw_http import Http, free_port
from websockets.asyncio.client import connect

from allegra_rules import GameRecord

ROOT = Path(__file__).resolve().parent.parent


class Clock:
    """When each move of each table was sent: for the pushes' latency at the other seat."""

    def __init__(self) -> None:
        self.sent: dict[tuple[str, int], float] = {}
        self.moves: list[float] = []
        self.pushes: list[float] = []
        self.measuring = False


async def play_seat(
    ports: tuple[int, int],
    table: str,
    seat: int,
    token: str,
    think: float,
    rng: random.Random,
    clock: Clock,
    ready: asyncio.Event,
    go: asyncio.Event,
) -> list[tuple[int, Any]]:
    """One person's seat: its socket on one process, its moves through the same process."""
    port = ports[seat]
    http = Http(port)
    made: list[tuple[int, Any]] = []
    url = f"ws://127.0.0.1:{port}/ws/tables/{table}?token={token}"
    async with connect(url, open_timeout=300, max_size=2**22) as ws:
        view = json.loads(await ws.recv())
        ready.set()
        await go.wait()
        while view["phase"] != "over":
            if view["current_player"] != seat:
                view = json.loads(await ws.recv())
                sent = clock.sent.get((table, view["version"]))
                if sent is not None and clock.measuring:
                    clock.pushes.append(time.perf_counter() - sent)
                continue
            if think:
                await asyncio.sleep(rng.uniform(0, 2 * think))
            action = rng.choice(view["legal_actions"])
            version = view["version"]
            start = time.perf_counter()
            clock.sent[(table, version + 1)] = start
            status, answer = await http.request_json(
                "POST", f"/api/tables/{table}/moves", {"action": action, "version": version}, token
            )
            if clock.measuring:
                clock.moves.append(time.perf_counter() - start)
            assert status == 200, answer
            made.append((version, action))
            # Read the socket up to the view this move made, then on to the next move.
            while True:
                view = json.loads(await ws.recv())
                if view["version"] >= answer["version"]:
                    break
    http.close()
    return made


async def play_table(
    ports: tuple[int, int],
    max_turns: int,
    think: float,
    seed: int,
    clock: Clock,
    go: asyncio.Event,
    ready: list[asyncio.Event],
) -> dict[str, Any]:
    """A two-seat table of two persons, seat 0 on ``ports[0]``'s process, seat 1 on the other."""
    rng = random.Random(seed)
    http = Http(ports[0])
    status, created = await http.request_json(
        "POST", "/api/tables", {"players": 2, "max_turns": max_turns}
    )
    assert status == 201, created
    table = created["table"]
    tokens = []
    for seat in (0, 1):
        claimer = Http(ports[seat])
        status, claim = await claimer.request_json("POST", f"/api/tables/{table}/seats/{seat}")
        claimer.close()
        assert status == 201, claim
        tokens.append(claim["token"])
    events = [asyncio.Event(), asyncio.Event()]
    ready.extend(events)
    made = await asyncio.gather(
        *(
            play_seat(ports, table, seat, tokens[seat], think, rng, clock, events[seat], go)
            for seat in (0, 1)
        )
    )
    status, record = await http.request_json("GET", f"/api/tables/{table}/record")
    http.close()
    assert status == 200, record
    return {"made": made[0] + made[1], "record": record}


def check(result: dict[str, Any]) -> tuple[int, int, int]:
    """(moves in the record, moves lost, moves applied twice or misplaced)."""
    actions = result["record"]["actions"]
    GameRecord.from_dict(result["record"])  # a record that loads: every move legal
    made = dict(result["made"])
    lost = sum(1 for v, a in made.items() if v >= len(actions) or actions[v] != a)
    extra = sum(1 for i in range(len(actions)) if i not in made)
    return len(actions), lost, extra


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) process ``pid`` has used, from /proc (Linux)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile of sorted ``values`` in ms (nearest rank)."""
    return 1000 * values[min(len(values) - 1, int(len(values) * q))]


async def play_tables(
    ports: list[int],
    numbers: list[int],
    max_turns: int,
    think: float,
    seed: int,
    barrier: Any,
) -> dict[str, Any]:
    """One client process: tables ``numbers`` (table k's seats on processes k and k+1).

    Waits at ``barrier`` once every table is made and every socket open, then plays.
    """
    clock = Clock()
    go = asyncio.Event()
    ready: list[asyncio.Event] = []
    games = [
        asyncio.ensure_future(
            play_table(
                (ports[k % len(ports)], ports[(k + 1) % len(ports)]),
                max_turns, think, seed * 100_000 + k, clock, go, ready,
            )
        )
        for k in numbers
    ]  # fmt: skip
    # Every table made and every socket open before the clock starts.
    while len(ready) < 2 * len(numbers) or not all(e.is_set() for e in ready):
        await asyncio.sleep(0.05)
    await asyncio.to_thread(barrier.wait)
    # The client's own garbage collector stays out of the measured window: its full
    # collections (hundreds of ms once it has read thousands of views) would be
    # counted as the servers' latency.
    gc.collect()
    gc.freeze()
    gc.disable()
    clock.measuring = True
    go.set()
    try:
        results = await asyncio.gather(*games)
    finally:
        gc.enable()
        gc.unfreeze()
    moves = lost = extra = 0
    for result in results:
        m, lo, ex = check(result)
        moves += m
        lost += lo
        extra += ex
    return {
        "games": len(results), "moves": moves, "lost": lost, "applied_twice": extra,
        "move_latencies": clock.moves, "push_latencies": clock.pushes,
    }  # fmt: skip


def client(answers: Any, *arguments: Any) -> None:
    """A client process's body: ``play_tables(*arguments)``, its result put on ``answers``."""
    answers.put(asyncio.run(play_tables(*arguments)))


def run(
    ports: list[int],
    pids: list[int],
    tables: int,
    max_turns: int,
    think: float,
    seed: int,
    clients: int,
) -> dict[str, Any]:
    """Play ``tables`` tables from ``clients`` client processes; the run's figures."""
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(clients + 1)
    answers = context.Queue()
    workers = [
        context.Process(
            target=client,
            args=(answers, ports, list(range(i, tables, clients)), max_turns, think, seed, barrier),
        )
        for i in range(clients)
    ]
    for worker in workers:
        worker.start()
    barrier.wait(timeout=1800)
    cpu_before = sum(cpu_seconds(pid) for pid in pids)
    start = time.perf_counter()
    parts = [answers.get(timeout=7200) for _ in workers]
    wall = time.perf_counter() - start
    server_cpu = sum(cpu_seconds(pid) for pid in pids) - cpu_before
    for worker in workers:
        worker.join(timeout=60)
    moves = sum(p["moves"] for p in parts)
    move_latencies = sorted(x for p in parts for x in p["move_latencies"])
    push_latencies = sorted(x for p in parts for x in p["push_latencies"])
    return {
        "processes": len(ports),
        "clients": clients,
        "tables": tables,
        "think_s": think,
        "games_completed": sum(p["games"] for p in parts),
        "moves": moves,
        "seconds": wall,
        "moves_per_s": moves / wall,
        "move_p50_ms": percentile(move_latencies, 0.50),
        "move_p99_ms": percentile(move_latencies, 0.99),
        "move_max_ms": 1000 * move_latencies[-1],
        "push_p50_ms": percentile(push_latencies, 0.50),
        "push_p99_ms": percentile(push_latencies, 0.99),
        "push_max_ms": 1000 * push_latencies[-1],
        "pushes": len(push_latencies),
        "server_cpu_ms_per_move": 1000 * server_cpu / max(1, moves),
        "load_average": os.getloadavg()[0],
        "lost": sum(p["lost"] for p in parts),
        "applied_twice": sum(p["applied_twice"] for p in parts),
    }


def start_server(where: list[str], workers: int = 1) -> tuple[subprocess.Popen[bytes], int]:
    """``allegra-rules serve`` on a free port with ``where`` (``--db F`` or ``--database U``)."""
    port = free_port()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    process = subprocess.Popen(
        [sys.executable, "-m", "allegra_rules", "serve", "--port", str(port), *where,
         "--max-tables", "100000", "--tables-per-hour", "1000000", "--seat-timeout", "0",
         "--workers", str(workers)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2):
                return process, port
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                raise RuntimeError("the server did not start") from None
            time.sleep(0.1)


@contextlib.contextmanager
def database(store: str, url: str | None, folder: Path) -> Iterator[Callable[[], list[str]]]:
    """Yields a function that makes a fresh database: ``--db FILE`` or ``--database URL``.

    ``postgres`` without ``url`` starts a PostgreSQL server of its own (tests/postgres.py,
    with ``fsync`` on, as in production), stopped at the end.
    """
    count = itertools.count()
    if store == "sqlite":
        yield lambda: ["--db", str(folder / f"load-{next(count)}.db")]
        return
    if url is not None:
        yield lambda: ["--database", url]
        return
    sys.path.insert(0, str(ROOT / "tests"))
    from postgres import Cluster, find_bin

    bin_dir = find_bin()
    if bin_dir is None:
        raise SystemExit("--store postgres needs initdb, pg_ctl and postgres (or --database)")
    cluster = Cluster(bin_dir).start(durable=True)
    try:
        yield lambda: ["--database", cluster.new_database()]
    finally:
        cluster.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[50, 200])
    parser.add_argument(
        "--processes", type=int, nargs="+", default=[1], help="serve processes (PostgreSQL)"
    )
    parser.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--database", default=None, help="a PostgreSQL URL to use (emptied: no)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--max-turns", type=int, default=10)
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="mean seconds a client waits before each move (uniform 0..2x); 0: none",
    )
    parser.add_argument(
        "--clients",
        type=int,
        default=4,
        help="client processes the tables are shared among (table k: client k mod N)",
    )
    parser.add_argument("--json", type=Path, default=None, help="write every run here")
    args = parser.parse_args()
    if args.store == "sqlite" and args.processes != [1]:
        parser.error("more than one process needs --store postgres")
    runs: dict[tuple[int, int], list[dict[str, Any]]] = {}
    with (
        tempfile.TemporaryDirectory() as folder,
        database(args.store, args.database, Path(folder)) as fresh,
    ):
        for r in range(args.repeat):
            for processes in args.processes:
                for n in args.tables:
                    where = fresh()
                    servers = [start_server(where) for _ in range(processes)]
                    try:
                        result = run(
                            [port for _, port in servers],
                            [process.pid for process, _ in servers],
                            n, args.max_turns, args.think, seed=r * 1000 + n,
                            clients=args.clients,
                        )  # fmt: skip
                    finally:
                        for process, _ in servers:
                            process.terminate()
                        for process, _ in servers:
                            process.wait(timeout=30)
                    result["store"] = args.store
                    runs.setdefault((processes, n), []).append(result)
                    print(json.dumps(result), flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps([r for rs in runs.values() for r in rs], indent=1))
    print("medians:")
    keys = (
        "moves_per_s", "move_p50_ms", "move_p99_ms", "push_p50_ms", "push_p99_ms",
        "server_cpu_ms_per_move", "load_average",
    )  # fmt: skip
    for (processes, n), results in runs.items():
        medians = {k: round(statistics.median(r[k] for r in results), 2) for k in keys}
        games = sum(r["games_completed"] for r in results)
        lost = sum(r["lost"] for r in results)
        twice = sum(r["applied_twice"] for r in results)
        print(
            f"  {args.store}, {processes} process(es), {n} tables: {medians} "
            f"games completed {games}, lost {lost}, applied twice {twice}"
        )


if __name__ == "__main__":
    main()
