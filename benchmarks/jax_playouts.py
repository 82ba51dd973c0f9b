"""Batched random playouts with ``allegra_rules.jax``, side by side with the scalar engine.

Run from the repository root (needs the ``jax`` extra):

    python benchmarks/jax_playouts.py                          # 4 players, seeds
    python benchmarks/jax_playouts.py --batch 1024 8192 65536 --rounds 5 --json

A *step* is one action of one table: a uniformly random legal action (drawn from the
legal-action mask) plus ``env.step_auto_reset`` (``env.step``; a table whose game ended
is dealt a new game at once, so every table plays at every step). The batched loop is
``jax.jit`` of a ``jax.lax.scan`` over ``--scan`` steps of
``jax.vmap(env.step_auto_reset)``.

The scalar figure is ``benchmarks/playouts.py``'s loop (``legal_actions``, a
``random.Random.choice`` and ``apply``, whole seeded games) in the same process. The
runs alternate (scalar, batch 1, batch 2, ..., then again) so that a busy machine slows
all of them alike; the report gives the median of each. Rates are steps per second of
wall-clock time; the process's CPU time per wall second is printed too (XLA may use
more than one core, the scalar loop uses one).

Also printed: the bytes of one state (every array of ``State``) and the compile time
of the step program (first call of the jitted scan, per config).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from typing import Any

import jax
import jax.numpy as jnp

sys.path.insert(0, os.path.dirname(__file__))

from playouts import allegra_burst

from allegra_rules import preset
from allegra_rules.jax import Env, State
from allegra_rules.jax._env import _mix


def table_bits(key: jax.Array, tables: int) -> jax.Array:
    """Three uint32 words per table from one key: a hash of the table's number."""
    w = jax.random.bits(key, (3,), jnp.uint32)
    i = jnp.arange(tables, dtype=jnp.uint32)
    return jnp.stack([_mix(i * jnp.uint32(0x9E3779B9) ^ w[k]) for k in range(3)], axis=1)


def random_actions(bits: jax.Array, mask: jax.Array) -> jax.Array:
    """One uniformly random legal action id per table (0 where none is legal)."""
    count = mask.sum(axis=-1)
    pick = (bits.astype(jnp.float32) * (1.0 / 2**32) * count).astype(jnp.int32)
    return jnp.argmax(jnp.cumsum(mask, axis=-1) > pick[:, None], axis=-1)


def make_runner(env: Env, scan: int) -> Any:
    """``run(states, key) -> (states, steps)``: ``scan`` batched steps with auto-reset.

    Each step is ``jax.vmap(env.step_auto_reset)``: ``env.step``, and a table whose game
    ended is dealt a new one. Per-table keys and the random action come from a hash of
    the table's number and one key per step (one threefry call per step, not per table).
    """
    vstep = jax.vmap(env.step_auto_reset)

    def body(states: State, key: jax.Array) -> tuple[State, None]:
        tables = states.terminated.shape[0]
        bits = table_bits(key, tables)
        actions = random_actions(bits[:, 0], states.legal_action_mask)
        keys = jax.random.wrap_key_data(bits[:, 1:])
        return vstep(states, actions, keys), None

    def run(states: State, key: jax.Array) -> tuple[State, jax.Array]:
        states, _ = jax.lax.scan(body, states, jax.random.split(key, scan))
        return states, jnp.asarray(scan * states.terminated.shape[0], jnp.int32)

    return jax.jit(run)


def jax_burst(run: Any, states: State, key: jax.Array, seconds: float) -> Any:
    """Run scans for about ``seconds``: (states, key, steps, wall seconds, cpu seconds)."""
    steps = 0
    start, cpu0 = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        key, sub = jax.random.split(key)
        states, done = run(states, sub)
        steps += int(done)
    return states, key, steps, time.perf_counter() - start, time.process_time() - cpu0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--preset", default="seeds")
    parser.add_argument("--batch", type=int, nargs="+", default=[1024, 4096, 16384, 65536])
    parser.add_argument("--scan", type=int, default=32, help="steps per compiled scan")
    parser.add_argument("--burst", type=float, default=2.0, help="seconds per burst")
    parser.add_argument("--rounds", type=int, default=3, help="bursts per engine")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    n = args.players
    config = preset(args.preset)
    start = time.perf_counter()
    env = Env(n, config)
    run = make_runner(env, args.scan)
    one = env.init(jax.random.key(0))
    report: dict[str, Any] = {
        "python": platform.python_version(),
        "jax": jax.__version__,
        "device": str(jax.devices()[0]),
        "players": n,
        "preset": args.preset,
        "bytes_per_state": one.num_bytes,
        "scan": args.scan,
        "load_before": os.getloadavg(),
    }
    states: dict[int, Any] = {}
    compile_s: dict[int, float] = {}
    key = jax.random.key(1)
    for batch in args.batch:
        key, k_init, k_run = jax.random.split(key, 3)
        t = time.perf_counter()
        s = jax.jit(jax.vmap(env.init))(jax.random.split(k_init, batch))
        s, _ = run(s, k_run)
        jax.block_until_ready(s)
        compile_s[batch] = time.perf_counter() - t
        states[batch] = (s, key)
    report["compile_seconds"] = compile_s
    report["setup_seconds"] = time.perf_counter() - start
    rates: dict[str, list[float]] = {"scalar": [], **{str(b): [] for b in args.batch}}
    cpu_share: dict[str, list[float]] = {k: [] for k in rates}
    for r in range(args.rounds):
        t, c = time.perf_counter(), time.process_time()
        steps, _ = allegra_burst(n, args.burst, r)
        wall = time.perf_counter() - t
        rates["scalar"].append(steps / wall)
        cpu_share["scalar"].append((time.process_time() - c) / wall)
        for batch in args.batch:
            s, k = states[batch]
            s, k, steps, wall, cpu = jax_burst(run, s, k, args.burst)
            states[batch] = (s, k)
            rates[str(batch)].append(steps / wall)
            cpu_share[str(batch)].append(cpu / wall)
    medians = {name: statistics.median(v) for name, v in rates.items()}
    report["steps_per_second"] = medians
    report["runs"] = rates
    report["cpu_per_wall"] = {name: statistics.median(v) for name, v in cpu_share.items()}
    report["ratio_to_scalar"] = {
        name: rate / medians["scalar"] for name, rate in medians.items() if name != "scalar"
    }
    report["load_after"] = os.getloadavg()
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{n} players, preset {args.preset}, {report['device']}, jax {jax.__version__}")
    print(f"bytes per state: {report['bytes_per_state']}")
    print(f"load average before/after: {report['load_before']} / {report['load_after']}")
    print(f"{'engine':>14} {'steps/s':>12} {'x scalar':>9} {'cpu/wall':>9} {'compile s':>10}")
    for name, rate in medians.items():
        ratio = rate / medians["scalar"]
        label = "scalar" if name == "scalar" else f"batch {name}"
        comp = "" if name == "scalar" else f"{compile_s[int(name)]:.1f}"
        share = report["cpu_per_wall"][name]
        print(f"{label:>14} {rate:>12,.0f} {ratio:>9.2f} {share:>9.2f} {comp:>10}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
