"""Load on the table server: N tables, each a WebSocket client against a bot, on loopback.

Starts ``allegra-rules serve`` on 127.0.0.1 (a fresh SQLite file), creates N two-seat
tables (seat 1 a random bot; rounds capped at --max-turns turns so that games are short),
and plays them all at once: each client holds its seat's WebSocket, and whenever a view
says it is its move it POSTs a random legal action with the view's version, at once
(``--think 0``: the server's saturation) or after a random pause (``--think T``: a mean
of T seconds, uniform over 0..2T; people take longer). Reports
moves/s, the p50 and p99 latency of a move (POST sent to answer read), games completed,
and checks every finished game's record against the moves its client made: none lost,
none applied twice.

    python benchmarks/server_load.py --tables 50 200 --repeat 2 --think 1

Runs alternate (50, 200, 50, 200, ...); the medians of the repeats are printed last.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from allegra_rules import GameRecord

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Http:
    """A minimal HTTP/1.1 keep-alive client on one connection (cheap on the CPU)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        data = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(data)}\r\n"
        if body is not None:
            head += "Content-Type: application/json\r\n"
        if token is not None:
            head += f"Authorization: Bearer {token}\r\n"
        message = head.encode() + b"\r\n" + data
        for attempt in (1, 2):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
            assert self.reader is not None
            try:
                self.writer.write(message)
                status_line = await self.reader.readline()
                if not status_line:
                    raise ConnectionResetError("closed")
                status = int(status_line.split()[1])
                length = 0
                while (line := await self.reader.readline()) not in (b"\r\n", b""):
                    name, _, value = line.decode().partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                payload = await self.reader.readexactly(length)
                return status, json.loads(payload) if payload else None
            except (ConnectionResetError, BrokenPipeError, asyncio.IncompleteReadError):
                # The server closed an idle keep-alive connection (uvicorn's keep-alive
                # timeout) before reading the request: connect again and send it again.
                # A move that had been applied would now be refused as stale (and the
                # benchmark would stop), never applied twice.
                self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


async def play_table(
    port: int, max_turns: int, think: float, seed: int, latencies: list[float]
) -> dict[str, Any]:
    rng = random.Random(seed)
    http = Http(port)
    status, created = await http.request(
        "POST", "/api/tables", {"players": 2, "bots": {"1": "random"}, "max_turns": max_turns}
    )
    assert status == 201, created
    table = created["table"]
    status, claim = await http.request("POST", f"/api/tables/{table}/seats/0")
    assert status == 201, claim
    token = claim["token"]
    made: list[tuple[int, Any]] = []
    url = f"ws://127.0.0.1:{port}/ws/tables/{table}?token={token}"
    async with connect(url, open_timeout=120) as ws:
        view = json.loads(await ws.recv())
        while view["phase"] != "over":
            if view["current_player"] != 0:
                view = json.loads(await ws.recv())
                continue
            if think:
                await asyncio.sleep(rng.uniform(0, 2 * think))
            action = rng.choice(view["legal_actions"])
            version = view["version"]
            start = time.perf_counter()
            status, answer = await http.request(
                "POST", f"/api/tables/{table}/moves", {"action": action, "version": version}, token
            )
            latencies.append(time.perf_counter() - start)
            assert status == 200, answer
            made.append((version, action))
            # Read the socket up to the view this move made, then on to our next move.
            while True:
                view = json.loads(await ws.recv())
                if view["version"] >= answer["version"]:
                    break
    status, record = await http.request("GET", f"/api/tables/{table}/record")
    http.close()
    assert status == 200, record
    return {"made": made, "record": record}


def check(result: dict[str, Any]) -> tuple[int, int, int]:
    """(moves of seat 0 in the record, moves lost, moves applied twice or misplaced)."""
    record = GameRecord.from_dict(result["record"])
    states = list(record.states())
    actions = result["record"]["actions"]
    mine = [i for i, s in enumerate(states[:-1]) if s.current_player == 0]
    made = dict(result["made"])
    lost = sum(1 for v, a in made.items() if v >= len(actions) or actions[v] != a)
    extra = sum(1 for i in mine if i not in made)
    return len(mine), lost, extra


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) process ``pid`` has used, from /proc (Linux)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def run(
    port: int, pid: int, tables: int, max_turns: int, think: float, seed: int
) -> dict[str, Any]:
    latencies: list[float] = []
    cpu_before = cpu_seconds(pid)
    start = time.perf_counter()
    results = await asyncio.gather(
        *(play_table(port, max_turns, think, seed * 100_000 + k, latencies) for k in range(tables))
    )
    wall = time.perf_counter() - start
    server_cpu = cpu_seconds(pid) - cpu_before
    moves = lost = extra = total = 0
    for result in results:
        m, lo, ex = check(result)
        moves += m
        lost += lo
        extra += ex
        total += len(result["record"]["actions"])
    latencies.sort()
    return {
        "tables": tables,
        "think_s": think,
        "games_completed": len(results),
        "client_moves": moves,
        "all_actions": total,
        "seconds": wall,
        "moves_per_s": moves / wall,
        "actions_per_s": total / wall,
        "p50_ms": 1000 * latencies[len(latencies) // 2],
        "p90_ms": 1000 * latencies[int(len(latencies) * 0.90)],
        "p99_ms": 1000 * latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))],
        "max_ms": 1000 * latencies[-1],
        "server_cpu_ms_per_action": 1000 * server_cpu / max(1, total),
        "load_average": os.getloadavg()[0],
        "lost": lost,
        "applied_twice": extra,
    }


def start_server(db: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    process = subprocess.Popen(
        [sys.executable, "-m", "allegra_rules", "serve", "--port", str(port), "--db", str(db),
         "--max-tables", "100000"],
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[50, 200])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--max-turns", type=int, default=10)
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="mean seconds a client waits before each move (uniform 0..2x); 0: none",
    )
    args = parser.parse_args()
    runs: dict[int, list[dict[str, Any]]] = {n: [] for n in args.tables}
    with tempfile.TemporaryDirectory() as folder:
        process, port = start_server(Path(folder) / "load.db")
        try:
            for r in range(args.repeat):
                for n in args.tables:
                    result = asyncio.run(
                        run(port, process.pid, n, args.max_turns, args.think, seed=r * 1000 + n)
                    )
                    runs[n].append(result)
                    print(json.dumps(result), flush=True)
        finally:
            process.terminate()
            process.wait(timeout=10)
    print("medians:")
    for n, results in runs.items():
        keys = (
            "moves_per_s",
            "actions_per_s",
            "p50_ms",
            "p90_ms",
            "p99_ms",
            "max_ms",
            "server_cpu_ms_per_action",
        )
        medians = {k: round(statistics.median(r[k] for r in results), 2) for k in keys}
        games = sum(r["games_completed"] for r in results)
        lost = sum(r["lost"] for r in results)
        twice = sum(r["applied_twice"] for r in results)
        print(
            f"  {n} tables: {medians} games completed {games}, lost {lost}, applied twice {twice}"
        )


if __name__ == "__main__":
    main()
