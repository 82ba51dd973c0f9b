"""Bots never starve a table: a greedy bot's answer while four tables of searches play.

Starts ``allegra-rules serve`` on 127.0.0.1 (a fresh SQLite file, the server's default
options but ``--seat-timeout 0``), creates four 6-seat tables of ``search-hard`` bots
only, each from its own source address (127.0.0.2 .. 127.0.0.5, as four people would),
waits ``--warmup`` seconds, then plays a person's 2-seat table against a greedy bot from
127.0.0.1: the person moves (a random legal action, ``--think`` seconds after its turn
came), and after each move that hands the turn to the bot it polls its view (every
``--poll`` seconds) until the bot's move is seen. It reports, over ``--moves`` such moves:

* ``greedy``: the time from the person's move's answer until the greedy bot's move is
  seen in the view, p50 and p95 (goal: p95 at most 1.5 s);
* ``view``: the latency of every view GET made meanwhile (the person's polls, and
  ``--views`` GETs of the search tables' public views after each measured move), p50
  and p95 (goal: p95 under 200 ms);
* ``search_moves``: the moves the four search tables made, from their creation to the
  end of the run (the searches are not starved either).

``--baseline REV`` runs the same against a git revision too (checked out in a temporary
worktree), alternating baseline and current ``--repeat`` times, each run on a fresh
server; the server of each run imports that tree's ``src/``. A run stops after
``--max-seconds`` even if it has fewer moves (it says how many).

    python benchmarks/server_bots.py
    python benchmarks/server_bots.py --baseline main --repeat 2

Each run prints one JSON line; the medians per tree come last.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from raw_http import free_port

ROOT = Path(__file__).resolve().parent.parent
SEARCH_TABLE = {"players": 6, "bots": dict.fromkeys("012345", "search-hard")}
PERSON_TABLE = {"players": 2, "bots": {"1": "greedy"}}


@contextlib.contextmanager
def server(src: Path, db: Path) -> Iterator[str]:
    """A server importing the package of ``src`` on ``db``; yields its base URL."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(src)}
    process = subprocess.Popen(
        [sys.executable, "-m", "allegra_rules", "serve", "--port", str(port),
         "--db", str(db), "--seat-timeout", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{base}/api/openapi.json", timeout=2)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def run(src: Path, label: str, args: argparse.Namespace) -> dict[str, Any]:
    """One run against the package of ``src``: the measures as a dict."""
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as folder, server(src, Path(folder) / "t.db") as base:
        searches: list[str] = []
        for k in range(2, 6):
            transport = httpx.HTTPTransport(local_address=f"127.0.0.{k}")
            with httpx.Client(base_url=base, transport=transport, timeout=30) as c:
                answer = c.post("/api/tables", json=SEARCH_TABLE)
                assert answer.status_code == 201, answer.text
                searches.append(answer.json()["table"])
        time.sleep(args.warmup)
        greedy: list[float] = []
        views: list[float] = []
        started = time.monotonic()
        with httpx.Client(base_url=base, timeout=60) as c:

            def view(table: str, token: str | None) -> dict[str, Any]:
                began = time.perf_counter()
                headers = {} if token is None else {"Authorization": token}
                answer = c.get(f"/api/tables/{table}/view", headers=headers)
                views.append(time.perf_counter() - began)
                assert answer.status_code == 200, answer.text
                data: dict[str, Any] = answer.json()
                return data

            table = token = ""
            seen: dict[str, Any] = {"phase": "over"}
            while len(greedy) < args.moves and time.monotonic() - started < args.max_seconds:
                if seen["phase"] == "over":
                    answer = c.post("/api/tables", json=PERSON_TABLE)
                    assert answer.status_code == 201, answer.text
                    table = answer.json()["table"]
                    claimed = c.post(f"/api/tables/{table}/seats/0").json()["token"]
                    token = f"Bearer {claimed}"
                    seen = view(table, token)
                    continue
                if seen["current_player"] != 0:
                    time.sleep(args.poll)
                    seen = view(table, token)
                    continue
                time.sleep(args.think)
                seen = view(table, token)
                move = {"action": rng.choice(seen["legal_actions"]), "version": seen["version"]}
                answer = c.post(
                    f"/api/tables/{table}/moves", json=move, headers={"Authorization": token}
                )
                assert answer.status_code == 200, answer.text
                moved = time.perf_counter()
                seen = answer.json()
                if seen["phase"] == "over" or seen["current_player"] != 1:
                    continue
                version = seen["version"]
                while seen["version"] == version:
                    time.sleep(args.poll)
                    seen = view(table, token)
                greedy.append(time.perf_counter() - moved)
                for k in range(args.views):  # the public views of the searches' tables
                    view(searches[k % len(searches)], None)
            versions = [c.get(f"/api/tables/{t}").json()["version"] for t in searches]
    return {
        "tree": label,
        "moves": len(greedy),
        "greedy_p50_s": round(statistics.median(greedy), 3) if greedy else None,
        "greedy_p95_s": round(percentile(greedy, 0.95), 3) if greedy else None,
        "greedy_max_s": round(max(greedy), 3) if greedy else None,
        "views": len(views),
        "view_p50_ms": round(statistics.median(views) * 1000, 1),
        "view_p95_ms": round(percentile(views, 0.95) * 1000, 1),
        "search_moves": sum(versions),
        "seconds": round(time.monotonic() - started, 1),
    }


@contextlib.contextmanager
def checkout(revision: str) -> Iterator[Path]:
    """``revision`` in a temporary git worktree; yields its ``src/``."""
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder) / "tree"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), revision],
            check=True,
            capture_output=True,
        )
        try:
            yield tree / "src"
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                check=False,
                capture_output=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=40, help="greedy moves measured (40)")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds before (10)")
    parser.add_argument("--think", type=float, default=0.5, help="person's pause (0.5)")
    parser.add_argument("--poll", type=float, default=0.01, help="view poll interval (0.01)")
    parser.add_argument("--views", type=int, default=5, help="public views per move (5)")
    parser.add_argument("--max-seconds", type=float, default=300.0, help="per run (300)")
    parser.add_argument("--baseline", metavar="REV", help="git revision to compare with")
    parser.add_argument("--repeat", type=int, default=1, help="runs per tree (1)")
    parser.add_argument("--seed", type=int, default=1, help="the person's moves' seed")
    args = parser.parse_args()
    results: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        trees = [("current", ROOT / "src")]
        if args.baseline:
            trees.insert(0, (args.baseline, stack.enter_context(checkout(args.baseline))))
        for _ in range(args.repeat):
            for label, src in trees:
                result = run(src, label, args)
                results.append(result)
                print(json.dumps(result), flush=True)
    for label, _ in trees:
        mine = [r for r in results if r["tree"] == label and r["moves"]]
        if mine:
            summary = {
                key: statistics.median(r[key] for r in mine)
                for key in ("greedy_p50_s", "greedy_p95_s", "view_p50_ms", "view_p95_ms")
            }
            print(json.dumps({"tree": label, "median_of_runs": summary}), flush=True)


if __name__ == "__main__":
    main()
