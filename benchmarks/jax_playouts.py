"""Batched random playouts with ``allegra_rules.jax``, side by side with the scalar engine.

Run from the repository root (needs the ``jax`` extra):

    python benchmarks/jax_playouts.py                          # 4 players, seeds
    python benchmarks/jax_playouts.py --batch 1024 8192 65536 --rounds 5 --json
    python benchmarks/jax_playouts.py --cpu-devices 2          # also sharded over 2 cores
    python benchmarks/jax_playouts.py --baseline f723bab       # also a revision's engine

A *step* is one action of one table: a uniformly random legal action (drawn from the
legal-action mask) plus ``env.step_auto_reset`` (``env.step``; a table whose game ended
is dealt a new game at once, so every table plays at every step). The batched loop is
``jax.jit`` of a ``jax.lax.scan`` over ``--scan`` steps of
``jax.vmap(env.step_auto_reset)``.

``--cpu-devices K`` splits the CPU into K XLA devices (``XLA_FLAGS
--xla_force_host_platform_device_count``, set before JAX is imported) and adds a
*sharded* run of each batch: the same loop under ``jax.shard_map``, each device playing
its share of the tables. One XLA CPU device runs a step's operations one after another,
spreading each over the cores only where it pays; K devices run K slices of the batch at
once, which keeps every core busy.

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


def _cpu_devices(argv: list[str]) -> int:
    """``--cpu-devices K`` of the command line, read before JAX is imported."""
    for k, arg in enumerate(argv):
        if arg == "--cpu-devices" and k + 1 < len(argv):
            return int(argv[k + 1])
        if arg.startswith("--cpu-devices="):
            return int(arg.partition("=")[2])
    return 1


if __name__ == "__main__" and _cpu_devices(sys.argv) > 1:
    os.environ["XLA_FLAGS"] = (
        os.environ.get("XLA_FLAGS", "")
        + f" --xla_force_host_platform_device_count={_cpu_devices(sys.argv)}"
    )

import jax  # noqa: E402 (after XLA_FLAGS)
import jax.numpy as jnp  # noqa: E402 (after XLA_FLAGS)
from jax.sharding import NamedSharding  # noqa: E402 (after XLA_FLAGS)
from jax.sharding import PartitionSpec as P  # noqa: E402 (after XLA_FLAGS)

sys.path.insert(0, os.path.dirname(__file__))

from playouts import allegra_burst, load_baseline  # noqa: E402 (after XLA_FLAGS)

from allegra_rules import preset  # noqa: E402 (after XLA_FLAGS)
from allegra_rules.jax import Env, State  # noqa: E402 (after XLA_FLAGS)
from allegra_rules.jax._arrays import mix  # noqa: E402 (after XLA_FLAGS)


def table_bits(key: jax.Array, tables: int) -> jax.Array:
    """Three uint32 words per table from one key: a hash of the table's number."""
    w = jax.random.bits(key, (3,), jnp.uint32)
    i = jnp.arange(tables, dtype=jnp.uint32)
    return jnp.stack([mix(i * jnp.uint32(0x9E3779B9) ^ w[k]) for k in range(3)], axis=1)


def random_actions(bits: jax.Array, mask: jax.Array) -> jax.Array:
    """One uniformly random legal action id per table (the last id where none is legal).

    The ``pick``-th legal action (``pick`` uniform below the number of legal ones), found
    in two levels: the block of 16 ids that holds it, then its place in the block. The
    running counts are small float32 products with triangular matrices, exact for
    counts this small, where one cumulative sum over every id costs twice the time on a
    CPU.
    """
    tables, ids = mask.shape
    group = 16
    blocks = -(-ids // group)
    grid = jnp.pad(mask, ((0, 0), (0, blocks * group - ids)))
    grid = grid.reshape(tables, blocks, group).astype(jnp.float32)
    per_block = grid.sum(axis=-1)
    upto = per_block @ jnp.triu(jnp.ones((blocks, blocks), jnp.float32))
    count = upto[:, -1]
    pick = jnp.floor(bits.astype(jnp.float32) * (1.0 / 2**32) * count)
    pick = jnp.maximum(jnp.minimum(pick, count - 1), 0)
    block = (upto <= pick[:, None]).sum(axis=-1)
    chosen = (jnp.arange(blocks) == block[:, None]).astype(jnp.float32)
    before = (chosen * (upto - per_block)).sum(axis=-1)
    row = jnp.einsum("tb,tbg->tg", chosen, grid)
    inside = row @ jnp.triu(jnp.ones((group, group), jnp.float32))
    place = (inside <= (pick - before)[:, None]).sum(axis=-1)
    return jnp.minimum(block * group + place, ids - 1).astype(jnp.int32)


def make_runner(env: Env, scan: int, devices: int = 1) -> Any:
    """``run(states, key) -> (states, steps)``: ``scan`` batched steps with auto-reset.

    Each step is ``jax.vmap(env.step_auto_reset)``: ``env.step``, and a table whose game
    ended is dealt a new one. Per-table keys and the random action come from a hash of
    the table's number and one key per step (one threefry call per step, not per table).
    With ``devices`` above 1 the batch is split among that many devices
    (``jax.shard_map``); each plays its slice with its own keys.
    """
    vstep = jax.vmap(env.step_auto_reset)

    def body(states: State, key: jax.Array) -> tuple[State, None]:
        tables = states.terminated.shape[0]
        bits = table_bits(key, tables)
        actions = random_actions(bits[:, 0], states.legal_action_mask)
        keys = jax.random.wrap_key_data(bits[:, 1:])
        return vstep(states, actions, keys), None

    def play(states: State, key: jax.Array) -> State:
        states, _ = jax.lax.scan(body, states, jax.random.split(key, scan))
        return states

    if devices == 1:

        def run(states: State, key: jax.Array) -> tuple[State, jax.Array]:
            states = play(states, key)
            return states, jnp.asarray(scan * states.terminated.shape[0], jnp.int32)

        return jax.jit(run)
    mesh = jax.make_mesh((devices,), ("tables",))

    def local(states: State, key: jax.Array) -> State:
        return play(states, jax.random.fold_in(key[0], jax.lax.axis_index("tables")))

    sharded = jax.shard_map(
        local, mesh=mesh, in_specs=(P("tables"), P()), out_specs=P("tables"), check_vma=False
    )

    def run_sharded(states: State, key: jax.Array) -> tuple[State, jax.Array]:
        states = sharded(states, key[None])
        return states, jnp.asarray(scan * states.terminated.shape[0], jnp.int32)

    return jax.jit(run_sharded)


def first_states(env: Env, batch: int, key: jax.Array, devices: int) -> State:
    """``batch`` new games, split among ``devices`` devices when more than one."""
    states: State = jax.jit(jax.vmap(env.init))(jax.random.split(key, batch))
    if devices > 1:
        mesh = jax.make_mesh((devices,), ("tables",))
        states = jax.device_put(states, NamedSharding(mesh, P("tables")))
    return states


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
    parser.add_argument(
        "--cpu-devices", type=int, default=1, help="XLA CPU devices; above 1 adds sharded runs"
    )
    parser.add_argument(
        "--baseline", default=None, help="also run the batched engine of this git revision"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    n = args.players
    config = preset(args.preset)
    start = time.perf_counter()
    devices = len(jax.devices())
    envs: dict[str, Any] = {"this tree": Env(n, config)}
    if args.baseline:
        old = load_baseline(args.baseline, "allegra_rules.jax")
        envs[f"at {args.baseline}"] = old.Env(n, old._env.preset(args.preset))
    one = envs["this tree"].init(jax.random.key(0))
    report: dict[str, Any] = {
        "python": platform.python_version(),
        "jax": jax.__version__,
        "device": str(jax.devices()[0]),
        "devices": devices,
        "cpu_count": os.cpu_count(),
        "players": n,
        "preset": args.preset,
        "bytes_per_state": one.num_bytes,
        "scan": args.scan,
        "load_before": os.getloadavg(),
    }
    # Every engine to run: (label, env, devices, batch).
    runs: list[tuple[str, Any, int, int]] = []
    for label, env in envs.items():
        for batch in args.batch:
            runs.append((f"{label}, batch {batch}", env, 1, batch))
            if devices > 1:
                runs.append((f"{label}, batch {batch}, {devices} devices", env, devices, batch))
    runners: dict[tuple[int, int], Any] = {}
    states: dict[str, Any] = {}
    compile_s: dict[str, float] = {}
    key = jax.random.key(1)
    for label, env, devs, batch in runs:
        key, k_init, k_run = jax.random.split(key, 3)
        t = time.perf_counter()
        run = runners.setdefault((id(env), devs), make_runner(env, args.scan, devs))
        s, _ = run(first_states(env, batch, k_init, devs), k_run)
        jax.block_until_ready(s)
        compile_s[label] = time.perf_counter() - t
        states[label] = (run, s, key)
    report["compile_seconds"] = compile_s
    report["setup_seconds"] = time.perf_counter() - start
    rates: dict[str, list[float]] = {"scalar": [], **{label: [] for label, *_ in runs}}
    cpu_share: dict[str, list[float]] = {k: [] for k in rates}
    for r in range(args.rounds):
        t, c = time.perf_counter(), time.process_time()
        steps, _ = allegra_burst(n, args.burst, r)
        wall = time.perf_counter() - t
        rates["scalar"].append(steps / wall)
        cpu_share["scalar"].append((time.process_time() - c) / wall)
        for label, *_ in runs:
            run, s, k = states[label]
            s, k, steps, wall, cpu = jax_burst(run, s, k, args.burst)
            states[label] = (run, s, k)
            rates[label].append(steps / wall)
            cpu_share[label].append(cpu / wall)
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
    print(
        f"{n} players, preset {args.preset}, {devices} x {report['device']}, jax {jax.__version__}"
    )
    print(f"bytes per state: {report['bytes_per_state']}")
    print(f"load average before/after: {report['load_before']} / {report['load_after']}")
    width = max(len(name) for name in medians)
    print(f"{'engine':>{width}} {'steps/s':>12} {'x scalar':>9} {'cpu/wall':>9} {'compile s':>10}")
    for name, rate in medians.items():
        ratio = rate / medians["scalar"]
        comp = "" if name == "scalar" else f"{compile_s[name]:.1f}"
        share = report["cpu_per_wall"][name]
        print(f"{name:>{width}} {rate:>12,.0f} {ratio:>9.2f} {share:>9.2f} {comp:>10}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
