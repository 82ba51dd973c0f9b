"""Work that few tables need in a step: run it only for them under ``vmap``.

Under ``jax.vmap`` every branch of a step is computed for every table (a ``lax.cond``
becomes a select). Most of a step's rare work (a shuffle, scoring a round and dealing
the next, taking away a triple's cards) is needed by a handful of tables out of
thousands, and costs more than the rest of the step together.
[`rarely`][allegra_rules.jax._rare.rarely] computes such work only for the tables that
need it: its batching rule gathers them, a chunk of
[`chunk_size`][allegra_rules.jax._rare.chunk_size] tables at a time, runs the work on each
chunk and writes the results back (only the arrays the work changed), in a loop of as
many chunks as there are needed tables to fill. With no table in need it does nothing.
The result is what a plain ``vmap`` gives; only the time differs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import jax
import jax.numpy as jnp

T = TypeVar("T")


def chunk_size(batch: int, share: float) -> int:
    """StaticTables per chunk of ``rarely``'s batched rule for a batch of ``batch`` tables.

    ``share`` is the part of the tables expected to need the work. A chunk holds about
    that many tables, but at least 16 and at most a sixteenth of the batch (then a
    common case, a third of the tables, takes a few chunks), and never more than the
    batch.
    """
    return min(batch, max(16, min(batch // 16, int(batch * share))))


def _where(needed: jax.Array, new: Any, old: Any) -> Any:
    """``new`` where ``needed`` (a bool per leading row, or a scalar), else ``old``."""

    def pick(a: jax.Array, b: jax.Array) -> jax.Array:
        cond = needed.reshape(needed.shape + (1,) * (a.ndim - needed.ndim))
        return jnp.where(cond, a, b)

    return jax.tree_util.tree_map(pick, new, old)


def rarely(needed: jax.Array, fn: Callable[[T], T], operand: T, share: float) -> T:
    """``fn(operand)`` where ``needed``, else ``operand``; only needed tables pay under vmap.

    Args:
        needed: a bool scalar: whether this table needs ``fn``.
        fn: a pure function of one table's ``operand`` (a pytree of arrays) to a pytree
            of the same structure, shapes and dtypes. It must not close over traced
            values: pass everything it reads in ``operand``. Rows that are not needed may
            be given to it as zeros; their results are dropped. A leaf that ``fn``
            returns as it got it (the same traced value) is not written back, so what
            ``fn`` only reads costs a gather and no scatter.
        operand: the pytree ``fn`` works on.
        share: about what part of the tables need ``fn`` in a step (it sizes the chunks;
            any value gives the same result).

    Unbatched (``jit`` of one table) this is a plain select: ``fn`` runs and its result
    is kept when ``needed``.
    """

    @jax.custom_batching.custom_vmap
    def call(needed: jax.Array, operand: Any) -> Any:
        return _where(needed, fn(operand), operand)

    @call.def_vmap
    def batched(
        axis_size: int, in_batched: list[Any], needed: jax.Array, operand: Any
    ) -> tuple[Any, Any]:
        needed_batched, operand_batched = in_batched

        def full(x: jax.Array, is_batched: bool) -> jax.Array:
            x = jnp.asarray(x)
            return x if is_batched else jnp.broadcast_to(x, (axis_size, *x.shape))

        needed = full(needed, needed_batched)
        operand = jax.tree_util.tree_map(full, operand, operand_batched)
        size = chunk_size(axis_size, share)
        count = needed.sum()

        def run() -> Any:
            # The needed rows first, then ``axis_size`` (no row: gathers fill, sets drop).
            rows = jnp.nonzero(needed, size=axis_size + size, fill_value=axis_size)[0]

            def chunk(i: jax.Array, out: Any) -> Any:
                idx = jax.lax.dynamic_slice(rows, (i * size,), (size,))
                # Each needed row is in one chunk only, so ``out`` still holds its input.
                part = jax.tree_util.tree_map(
                    lambda a: a.at[idx].get(mode="fill", fill_value=0), out
                )
                done = jax.vmap(fn)(part)
                # A leaf that ``fn`` returns as it was given needs no writing back.
                return jax.tree_util.tree_map(
                    lambda a, p, d: a if d is p else a.at[idx].set(d, mode="drop"),
                    out,
                    part,
                    done,
                )

            return jax.lax.fori_loop(0, (count + size - 1) // size, chunk, operand)

        out = jax.lax.cond(count > 0, run, lambda: operand)
        return out, jax.tree_util.tree_map(lambda _: True, out)

    result: T = call(needed, operand)
    return result


__all__ = ["chunk_size", "rarely"]
