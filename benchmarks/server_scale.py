"""Thousands of sockets on one table server process: memory per socket and push latency.

Starts ``allegra-rules serve`` on 127.0.0.1 (a fresh SQLite file, its default socket
caps), creates ``--tables`` two-seat tables and claims both seats of each, then opens
``--sockets`` WebSockets without pictures: each table's two seats and spectators for the
rest (5,000 over 500 tables: 2 seats and 8 spectators each). The sockets are held by
``--clients`` client processes of their own (asyncio, table k in process k mod C), and
each socket connects from its own source address in 127.0.0.0/8 (127.<process+1>.x.y),
so no client address reaches the per-client cap (50) and the caps stay at their
defaults. The benchmark raises its soft open-files limit to the hard one (the server
and the client processes inherit it); it needs ``ulimit -n`` above the sockets plus
some 200 (the server's share: ``connection_caps`` of its limit must reach the sockets).

Memory per socket: the server's resident memory (``VmRSS``) once every socket has its
first view, less before the first socket opened, over the sockets.

Then the tables play ``--rate`` moves a second between them for ``--seconds``: each
client process POSTs a random legal move of a table whose turn it knows, at an even
pace, over a few keep-alive HTTP connections. Push latency: from the move's HTTP answer
read by the client to each socket of that table (both seats and the spectators, all in
that client process, one clock) reading the view of the new version; a push read
before the answer counts 0.

    python benchmarks/server_scale.py                      # 5,000 sockets, 100 moves/s
    python benchmarks/server_scale.py --sockets 1000 --tables 100 --seconds 10
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import multiprocessing
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from raw_http import Http, free_port
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

ROOT = Path(__file__).resolve().parent.parent
VERSION = re.compile(rb'"version":(\d+)')


def rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def post(base: str, path: str, body: Any = None) -> Any:
    request = urllib.request.Request(
        base + path,
        data=json.dumps(body).encode() if body is not None else b"",
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


class Table:
    """One table as a client process sees it: its seats' tokens, views and watchers."""

    def __init__(self, table_id: str, tokens: list[str]) -> None:
        self.id = table_id
        self.tokens = tokens
        self.views: list[dict[str, Any] | None] = [None, None]
        self.busy = False
        self.over = False


async def client_main(
    index: int,
    port: int,
    tables: list[tuple[str, list[str]]],
    spectators: int,
    rate: float,
    pipe: Connection,
) -> None:
    """One client process: open the sockets, report, play at ``rate``, report latencies."""
    gc.disable()
    url = f"ws://127.0.0.1:{port}/ws/tables/"
    answered: dict[tuple[str, int], float] = {}
    received: dict[tuple[str, int], list[float]] = {}
    measuring = False
    tabs = [Table(t, tokens) for t, tokens in tables]
    sockets: list[ClientConnection] = []
    addresses = (f"127.{index + 1}.{k // 250}.{k % 250 + 1}" for k in range(1_000_000))

    async def open_socket(table: Table, seat: int | None) -> None:
        query = "" if seat is None else f"?token={table.tokens[seat]}"
        sock = await connect(
            url + table.id + query,
            local_addr=(next(addresses), 0),
            max_size=None,
            open_timeout=60,
            ping_interval=None,
        )
        sockets.append(sock)
        first = await sock.recv(decode=False)
        if seat is not None:
            table.views[seat] = json.loads(first)

        async def read() -> None:
            while True:
                try:
                    message = await sock.recv(decode=False)
                except ConnectionClosed:
                    return
                now = time.perf_counter()
                if seat is not None:
                    view = json.loads(message)
                    table.views[seat] = view
                    version = view["version"]
                    if view.get("over"):
                        table.over = True
                else:
                    found = VERSION.search(message)
                    assert found is not None
                    version = int(found.group(1))
                if measuring:
                    received.setdefault((table.id, version), []).append(now)

        asyncio.get_running_loop().create_task(read())

    # Open: both seats, then the spectators, a few at a time.
    jobs = [(t, s) for t in tabs for s in (0, 1)]
    jobs += [(t, None) for t in tabs for _ in range(spectators)]
    gate = asyncio.Semaphore(32)

    async def opened(job: tuple[Table, int | None]) -> None:
        async with gate:
            await open_socket(*job)

    await asyncio.gather(*(opened(job) for job in jobs))
    pipe.send(("open", len(sockets)))
    assert pipe.recv() == "play"

    conns: asyncio.Queue[Http] = asyncio.Queue()
    for _ in range(8):
        conns.put_nowait(Http(port))
    rng = random.Random(index)
    failures = 0
    moves = 0

    async def move(table: Table, seat: int, view: dict[str, Any]) -> None:
        nonlocal failures, moves
        table.busy = True
        conn = await conns.get()
        try:
            action = rng.choice(view["legal_actions"])
            status, _ = await conn.request(
                "POST",
                f"/api/tables/{table.id}/moves",
                {"action": action, "version": view["version"]},
                table.tokens[seat],
            )
            if status == 200:
                answered[(table.id, view["version"] + 1)] = time.perf_counter()
                moves += 1
            else:
                failures += 1
        finally:
            conns.put_nowait(conn)
            table.busy = False

    def ready() -> tuple[Table, int, dict[str, Any]] | None:
        for _ in range(len(tabs)):
            table = tabs[rng.randrange(len(tabs))]
            if table.busy or table.over:
                continue
            for seat, view in enumerate(table.views):
                if view is not None and view.get("legal_actions"):
                    other = table.views[1 - seat]
                    if other is not None and other["version"] == view["version"]:
                        return table, seat, view
        return None

    measuring = True
    loop = asyncio.get_running_loop()
    start = loop.time()
    seconds = pipe.recv()
    tasks = set()
    k = 0
    while (now := loop.time()) < start + seconds:
        due = start + k / rate
        if now < due:
            await asyncio.sleep(due - now)
        k += 1
        found = ready()
        if found is None:
            continue
        task = loop.create_task(move(*found))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    if tasks:
        await asyncio.wait(tasks)
    await asyncio.sleep(2)  # the last pushes
    measuring = False
    latencies = [
        max(0.0, at - answered[key])
        for key, ats in received.items()
        if key in answered
        for at in ats
    ]
    counts = [len(received.get(key, [])) for key in answered]
    pipe.send(("done", moves, failures, latencies, counts))
    for sock in sockets:
        sock.transport.abort()


def client_process(*args: Any) -> None:
    asyncio.run(client_main(*args))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sockets", type=int, default=5000)
    parser.add_argument("--tables", type=int, default=500)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--rate", type=float, default=100.0, help="moves a second, in all")
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    spectators = max(0, args.sockets // args.tables - 2)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as folder:
        log = open(Path(folder) / "server.log", "wb")  # noqa: SIM115
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        server = subprocess.Popen(
            [
                sys.executable, "-m", "allegra_rules", "serve", "--port", str(port),
                "--db", str(Path(folder) / "tables.db"), "--tables-per-hour", "1000000",
                "--max-tables", "1000000", "--seat-timeout", "0",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )  # fmt: skip
        try:
            for _ in range(300):
                try:
                    urllib.request.urlopen(base + "/", timeout=2).close()
                    break
                except OSError:
                    time.sleep(0.1)
            tables = []
            for _ in range(args.tables):
                table = post(base, "/api/tables", {"players": 2})["table"]
                tokens = [post(base, f"/api/tables/{table}/seats/{s}")["token"] for s in (0, 1)]
                tables.append((table, tokens))
            time.sleep(1)
            before = rss(server.pid)
            context = multiprocessing.get_context("spawn")
            pipes, processes = [], []
            for c in range(args.clients):
                ours, theirs = context.Pipe()
                process = context.Process(
                    target=client_process,
                    args=(
                        c, port, tables[c :: args.clients], spectators,
                        args.rate / args.clients, theirs,
                    ),
                )  # fmt: skip
                process.start()
                pipes.append(ours)
                processes.append(process)
            started = time.perf_counter()
            opened = sum(pipe.recv()[1] for pipe in pipes)
            open_seconds = time.perf_counter() - started
            time.sleep(2)
            after = rss(server.pid)
            cpu_before = cpu_seconds(server.pid)
            for pipe in pipes:
                pipe.send("play")
                pipe.send(args.seconds)
            results = [pipe.recv() for pipe in pipes]
            cpu = cpu_seconds(server.pid) - cpu_before
            for process in processes:
                process.join(timeout=30)
        finally:
            server.terminate()
            server.wait(timeout=30)
            log.close()
        text = (Path(folder) / "server.log").read_text(errors="replace")
    moves = sum(r[1] for r in results)
    failures = sum(r[2] for r in results)
    latencies = [x for r in results for x in r[3]]
    counts = [x for r in results for x in r[4]]
    watchers = 2 + spectators
    per_socket = (after - before) / opened
    print(f"machine: {os.cpu_count()} CPUs; ulimit -n {soft} (hard {hard}, raised to {hard})")
    print(
        f"sockets: {opened} ({args.tables} tables x {watchers}: 2 seats, {spectators} spectators)"
        f" in {open_seconds:.1f} s, from {args.clients} client processes"
    )
    print(
        f"server RSS: {before / 2**20:.1f} MiB -> {after / 2**20:.1f} MiB: "
        f"{per_socket / 1000:.1f} kB ({per_socket / 1024:.1f} KiB) per socket"
    )
    print(
        f"moves: {moves} in {args.seconds:g} s ({moves / args.seconds:.1f}/s, asked "
        f"{args.rate:g}/s), {failures} refused; server CPU {cpu / args.seconds:.2f} s/s"
    )
    if latencies:
        missing = sum(max(0, watchers - c) for c in counts)
        print(
            f"push latency over {len(latencies)} pushes: "
            f"p50 {statistics.median(latencies) * 1000:.1f} ms, "
            f"p95 {percentile(latencies, 0.95) * 1000:.1f} ms, "
            f"p99 {percentile(latencies, 0.99) * 1000:.1f} ms, "
            f"max {max(latencies) * 1000:.1f} ms; {missing} pushes missing"
        )
    for line in text.splitlines():
        if "open files" in line or "refused" in line or "Traceback" in line:
            print("server:", line)


if __name__ == "__main__":
    main()
