"""The docs' play page: cold load, bytes on the wire, and the bots' move time, in Chromium.

Serves a built site (``python docs/generate.py && mkdocs build --site-dir DIR``, with
``npm ci`` run first so that the site carries the game) on 127.0.0.1 with a static
file server, and loads ``/_generated/play/`` in headless Chromium (``tests/cdp.py``)
with a fresh profile (an empty cache), ``--repeat`` times. For each load:

- **time to table, cold**: from the navigation's start (``performance.now()`` origin)
  until the table picture is shown, the lobby's "Create the table" clicked as soon as
  the page has loaded (the game then waits for Pyodide and the wheels, in the page's
  Web Worker); with the steps the worker marks (``allegra:pyodide``, ``allegra:python``,
  ``allegra:wheels``, ``allegra:ready``, ``allegra:bots``);
- **time to table, warm** (``--warm N``, default 3): the same page loaded again N times
  in the same browser, its files in the browser's cache (the static server answers
  ``Last-Modified``; the browser asks again and gets 304, as from a site whose files
  expire at once) and its compiled WebAssembly in V8's code cache;
- **longest main-thread task**: the longest ``longtask`` entry (a PerformanceObserver)
  while the page loads and the table is created (the goal: none over 200 ms);
- **load average**: ``os.getloadavg()`` at the start and the end;
- **bytes**: every file the page requested, as the static server sent it
  (uncompressed), and as a server that compresses would send it: each file gzipped
  (level 6, nginx's and most servers' usual level) and, when the ``brotli`` module is
  installed, brotli-compressed (quality 11, what a site precompresses static files
  with); the WebAssembly and the stdlib zip count as they are compressed like any
  other file;
- **bot move**: in the page, in Pyodide, the time of each move (``BrowserTable.bot_move``,
  both seats of two-seat games played by that bot, ``--moves`` moves) of each bot the
  page offers: greedy, ``search-easy`` and the learned ``policy``, which runs in plain
  Python there; p50 / p95 / max.

Goals (issues 37 and 55): the table within 3 s cold on a quiet machine (5 s at a load
average of 2), 1.5 s warm, no main-thread task over 200 ms, at most 8 MB compressed, a
bot move under 0.5 s.

    python benchmarks/play_page.py --site /tmp/site --repeat 3 --warm 3
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import json
import os
import statistics
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from cdp import Browser, find_chromium  # noqa: E402

PLAY = "_generated/play/index.html?lang=en"

BOT_TIMES = """
import json, time, statistics
from allegra_rules.browser_table import BrowserTable, bot_choices
out = {}
for bot in bot_choices():
    times = []
    for seed in range(1000):
        if len(times) >= MOVES:
            break
        table = BrowserTable.create(json.dumps(
            {"players": 2, "preset": "seeds", "bots": {"1": bot}, "seed": seed}))
        table.bots[0] = bot  # the person's seat too: bots on both seats
        from allegra_rules.bot_kinds import BOT_KINDS
        table._players[0] = BOT_KINDS[bot](seed)
        table.seat = -1
        while not table.state.is_terminal and len(times) < MOVES:
            start = time.perf_counter()
            table.bot_move()
            times.append(time.perf_counter() - start)
    times.sort()
    out[bot] = {"moves": len(times), "p50": statistics.median(times),
                "p95": times[int(0.95 * (len(times) - 1))], "max": times[-1]}
json.dumps(out)
"""


STEPS = (
    "Object.fromEntries(performance.getEntriesByType('mark')"
    ".filter(m => m.name.startsWith('allegra:'))"
    ".map(m => [m.name.slice(8), Math.round(m.startTime)]))"
)
"""The worker's steps, in milliseconds since the navigation started."""

LONG_TASKS = (
    "window.allegraLongTasks = [];"
    "new PerformanceObserver((list) => { for (const e of list.getEntries())"
    " allegraLongTasks.push(e.duration); }).observe({type: 'longtask', buffered: true});"
)
"""Collect the page's long tasks (over 50 ms on the main thread) from its start."""


def _time_to_table(browser: Browser, url: str, longest: list[float]) -> float:
    """Load ``url``, create the table at once; seconds until it is shown (and long tasks)."""
    browser.load(url)
    browser.evaluate(LONG_TASKS)
    browser.evaluate("document.getElementById('create-button').click()")
    browser.wait_until("document.querySelector('#picture svg') !== null", timeout=120)
    shown = float(browser.evaluate("performance.now()")) / 1000
    longest.extend(browser.evaluate("allegraLongTasks"))
    return shown


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {  # noqa: RUF012
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".wasm": "application/wasm",
    }
    sent: list[str]

    def log_message(self, format: str, *args: object) -> None:
        pass

    def send_head(self):  # type: ignore[no-untyped-def]
        self.sent.append(self.path.split("?", 1)[0])
        return super().send_head()


def compressed_sizes(site: Path, paths: list[str]) -> dict[str, int]:
    """The bytes of ``paths`` raw, gzipped (level 6) and brotli'd (11, when installed)."""
    try:
        import brotli  # type: ignore[import-not-found]
    except ImportError:
        brotli = None
    sizes = {"raw": 0, "gzip": 0, "brotli": 0 if brotli else -1}
    for path in sorted(set(paths)):
        file = site / path.lstrip("/")
        if file.is_dir():
            file = file / "index.html"
        if not file.is_file():
            continue
        data = file.read_bytes()
        sizes["raw"] += len(data)
        sizes["gzip"] += len(gzip.compress(data, compresslevel=6, mtime=0))
        if brotli:
            sizes["brotli"] += len(brotli.compress(data, quality=11))
    return sizes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, required=True, help="the built site's folder")
    parser.add_argument("--repeat", type=int, default=3, help="cold loads (default 3)")
    parser.add_argument("--warm", type=int, default=3, help="warm loads (default 3)")
    parser.add_argument("--moves", type=int, default=100, help="moves timed per bot")
    args = parser.parse_args()
    chromium = find_chromium()
    if chromium is None:
        raise SystemExit("chromium is not installed")
    if not (args.site / "_generated/play/pyodide/pyodide.mjs").is_file():
        raise SystemExit(f"{args.site} has no game (run npm ci, then build the docs)")
    sent: list[str] = []
    handler = functools.partial(
        type("Handler", (_Handler,), {"sent": sent}), directory=str(args.site)
    )
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    loads: list[float] = []
    warm: list[float] = []
    longest: list[float] = []
    sizes: dict[str, int] = {}
    bots: dict[str, dict[str, float]] = {}
    load_before = os.getloadavg()[0]
    for k in range(args.repeat):
        with (
            tempfile.TemporaryDirectory() as profile,
            Browser(chromium, Path(profile), timeout=300) as browser,
        ):
            browser.send("Network.enable")
            sent.clear()
            loads.append(_time_to_table(browser, base + PLAY, longest))
            sizes = compressed_sizes(args.site, sent)
            print(f"cold load {k + 1}: table after {loads[-1]:.2f} s", flush=True)
            print(f"  steps: {browser.evaluate(STEPS)}", flush=True)
            if k == 0:
                code = BOT_TIMES.replace("MOVES", str(args.moves))
                answer = browser.evaluate(f"localPython({json.dumps(code)})")
                bots = json.loads(answer)
                for w in range(args.warm):
                    warm.append(_time_to_table(browser, base + PLAY, longest))
                    print(f"warm load {w + 1}: table after {warm[-1]:.2f} s", flush=True)
                    print(f"  steps: {browser.evaluate(STEPS)}", flush=True)
    server.shutdown()
    load_after = os.getloadavg()[0]
    mb = 1e6
    print(f"load average (1 min): {load_before:.2f} at the start, {load_after:.2f} at the end")
    print(f"time to table, cold: median {statistics.median(loads):.2f} s of {loads}")
    if warm:
        print(f"time to table, warm: median {statistics.median(warm):.2f} s of {warm}")
    print(f"longest main-thread task: {max(longest, default=0):.0f} ms")
    print(f"files requested: {len(set(sent))}")
    print(
        f"bytes: {sizes['raw'] / mb:.2f} MB as files, {sizes['gzip'] / mb:.2f} MB gzip -6"
        + (f", {sizes['brotli'] / mb:.2f} MB brotli -11" if sizes["brotli"] >= 0 else "")
    )
    for bot, t in bots.items():
        print(
            f"bot {bot}: {int(t['moves'])} moves, p50 {t['p50'] * 1000:.1f} ms, "
            f"p95 {t['p95'] * 1000:.1f} ms, max {t['max'] * 1000:.1f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
