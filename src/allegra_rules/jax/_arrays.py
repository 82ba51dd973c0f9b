"""Array helpers of the batched engine: selects in place of gathers, seat order, the shuffle.

Pure functions of one table's arrays, with no rule in them. ``get``, ``put`` and
``row`` read and write by a select over the whole vector: under ``vmap`` on a CPU that
is faster than a gather or a scatter for vectors this short.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from allegra_rules.jax._tables import I8


def i8(x: Any) -> jax.Array:
    """``x`` as an int8 array."""
    return jnp.asarray(x, I8)


def get(arr: jax.Array, i: jax.Array) -> jax.Array:
    """``arr[i]`` by a select over the whole vector (no gather: fast under vmap on a CPU)."""
    hit = jnp.arange(arr.shape[0]) == i
    if arr.dtype == jnp.bool_:
        return (arr & hit).any()
    return jnp.sum(jnp.where(hit, arr, 0), dtype=arr.dtype)


def put(arr: jax.Array, i: jax.Array | int, value: Any) -> jax.Array:
    """``arr`` with ``arr[i] = value``, by a select (no scatter)."""
    return jnp.where(jnp.arange(arr.shape[0]) == i, jnp.asarray(value, arr.dtype), arr)


def row(table: jax.Array, p: jax.Array) -> jax.Array:
    """Row ``p`` of a bool ``(n, cells)`` table, by a select."""
    return (table & (jnp.arange(table.shape[0]) == p)[:, None]).any(axis=0)


def first_from(members: jax.Array, origin: jax.Array, n: int) -> jax.Array:
    """The first seat of the bool set ``members`` clockwise from ``origin`` (itself first)."""
    key = jnp.where(members, (jnp.arange(n) - origin) % n, n + 1)
    return jnp.argmin(key).astype(I8)


# ---------------------------------------------------------------------- the shuffle


def mix(h: jax.Array) -> jax.Array:
    """MurmurHash3's 32-bit finalizer."""
    h = h ^ (h >> 16)
    h = h * jnp.uint32(0x85EBCA6B)
    h = h ^ (h >> 13)
    h = h * jnp.uint32(0xC2B2AE35)
    return h ^ (h >> 16)


def unmix(h: jax.Array) -> jax.Array:
    """The inverse of ``mix`` (each of its steps is a bijection of the uint32 values)."""
    h = h ^ (h >> 16)
    h = h * jnp.uint32(0x7ED1B41D)  # the inverse of 0xC2B2AE35 modulo 2**32
    h = h ^ (h >> 13) ^ (h >> 26)
    h = h * jnp.uint32(0xA5CB9243)  # the inverse of 0x85EBCA6B
    return h ^ (h >> 16)


def key_words(key: jax.Array) -> jax.Array:
    """The raw uint32 words of a PRNG key (typed or a legacy uint32 key)."""
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        key = jax.random.key_data(key)
    return key.reshape(-1).astype(jnp.uint32)


_PHI = 0x9E3779B9
_PHI_INVERSE = 0x144CBC89
"""``_PHI``'s inverse modulo 2**32."""


def _sort_keys(words: jax.Array, d: int) -> jax.Array:
    """A 32-bit sort key per position ``0..d-1``, all distinct (a bijection of the index)."""
    h = jnp.arange(d, dtype=jnp.uint32) * jnp.uint32(_PHI) ^ words[0]
    return mix(mix(h) ^ words[-1])


def shuffle(words: jax.Array, src: jax.Array, length: jax.Array | int) -> jax.Array:
    """``src[:length]`` in a uniformly random order drawn from the key ``words``.

    Each card gets a distinct 32-bit sort key, a bijective hash of its position and the
    key's words, and the cards go in the order of their keys; the cards past ``length``
    stay behind in their order. For a whole deck (``length`` the static size) the keys
    are sorted alone and the positions read back by inverting the hash, which gives the
    same order several times faster than sorting the positions along.
    """
    d = src.shape[0]
    keys = _sort_keys(words, d)
    if isinstance(length, int) and length == d:
        order = unmix(unmix(jnp.sort(keys)) ^ words[-1]) ^ words[0]
        return src[(order * jnp.uint32(_PHI_INVERSE)).astype(jnp.int32)]
    keys = jnp.where(jnp.arange(d) < length, keys, jnp.uint32(0xFFFFFFFF))
    return src[jnp.argsort(keys, stable=True)]


__all__ = ["first_from", "get", "i8", "key_words", "mix", "put", "row", "shuffle", "unmix"]
