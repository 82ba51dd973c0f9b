"""``allegra-rules simulate --ray`` against ``--jobs``: wall time on this machine.

Run from the repository root (needs the ``ray`` extra)::

    python benchmarks/ray_vs_jobs.py --games 200 --players 3 --bots greedy --repeats 3

Each repeat runs ``--jobs J`` and then ``--ray`` (a local Ray started and stopped by the
command, as a user gets it), alternately, in fresh processes, and checks that both print
the same statistics. Printed: every time and the median of each, and the speed-up
(``--jobs`` median over ``--ray`` median; above 1 means Ray was faster).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time


def run(argv: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "allegra_rules", *argv],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    return time.perf_counter() - start, done.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--bots", default="greedy")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    base = [
        "simulate",
        "--games",
        str(args.games),
        "--players",
        str(args.players),
        "--bots",
        args.bots,
        "--json",
        "--no-progress",
    ]
    times: dict[str, list[float]] = {"jobs": [], "ray": []}
    for _ in range(args.repeats):
        t_jobs, out_jobs = run([*base, "--jobs", str(args.jobs)])
        t_ray, out_ray = run([*base, "--ray"])
        if out_jobs != out_ray:
            raise SystemExit("--ray printed other statistics than --jobs")
        times["jobs"].append(t_jobs)
        times["ray"].append(t_ray)
        print(f"--jobs {args.jobs}: {t_jobs:.1f} s   --ray: {t_ray:.1f} s", flush=True)
    jobs = statistics.median(times["jobs"])
    ray = statistics.median(times["ray"])
    print(
        f"median --jobs {args.jobs}: {jobs:.1f} s, --ray: {ray:.1f} s, "
        f"speed-up of --ray: {jobs / ray:.2f}x; load average {os.getloadavg()}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
