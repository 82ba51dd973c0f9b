"""The observation vector in JAX: ``Encoder.features`` of a seat's view, element for element."""

from __future__ import annotations

from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np

from allegra_rules.jax._state import SETUP, State
from allegra_rules.state import Phase
from allegra_rules.transitions import ROUNDS

if TYPE_CHECKING:
    from allegra_rules.jax._env import Env

_GAP = -128
F32 = jnp.float32


def features(env: Env, s: State, viewer: jax.Array) -> jax.Array:
    """``Encoder(config, n).features(observe(state, viewer))`` as float32 (one table)."""
    enc = env._encoder
    config, n, c, d = env.config, env.num_players, env.num_cells, env.deck_size
    values = np.asarray(enc.values)
    copies = jnp.asarray(np.asarray(enc.copies, np.float32))
    k = len(values)
    lookup = np.zeros(256, np.int32)
    for i, value in enumerate(values):
        lookup[int(value) + 128] = i
    table = jnp.asarray(lookup)

    def index(card: jax.Array) -> jax.Array:
        return table[card.astype(jnp.int32) + 128]

    def one_hot(card: jax.Array, on: jax.Array) -> jax.Array:
        return (jax.nn.one_hot(index(card), k, dtype=F32) * on).astype(F32)

    def counts(pile: jax.Array, length: jax.Array) -> jax.Array:
        valid = jnp.arange(pile.shape[0]) < length
        hot = jax.nn.one_hot(index(pile), k, dtype=F32) * valid[:, None]
        return hot.sum(axis=0)

    origin = viewer
    order = (origin + jnp.arange(n)) % n
    cell_order = (order[:, None] * 12 + jnp.arange(12)[None, :]).reshape(-1)
    cells = s._cells
    present = cells != _GAP
    up = present & ~s._face_down
    parts: list[jax.Array] = []
    # Cells, in relative order.
    oc, ofd, oup = cells[cell_order], s._face_down[cell_order], up[cell_order]
    code = jnp.concatenate(
        [
            (~present[cell_order])[:, None].astype(F32),
            ofd[:, None].astype(F32),
            one_hot(oc, oup[:, None]),
        ],
        axis=1,
    )
    parts.append(code.reshape(-1))
    parts.append(jax.nn.one_hot(s._phase.astype(jnp.int32), len(Phase), dtype=F32))
    parts.append(jax.nn.one_hot(s._round.astype(jnp.int32) - 1, ROUNDS, dtype=F32))
    parts.append(jnp.minimum(1.0, s._turns_played.astype(F32) / config.max_turns_per_round)[None])
    parts.append((s._setup_reveals.astype(F32) / (2 * n))[None])

    def place_of(seat: jax.Array) -> jax.Array:
        return (seat.astype(jnp.int32) - origin) % n

    def seat_hot(seat: jax.Array) -> jax.Array:
        return jax.nn.one_hot(place_of(seat), n, dtype=F32) * (seat >= 0)

    over = s._phase == len(Phase) - 1
    current = jnp.where(over, -1, s.current_player.astype(jnp.int32))
    for seat in (current, s._drawer, s._knocker, s._ender, s._start_seat, s._hand_owner):
        parts.append(seat_hot(jnp.asarray(seat)))
    parts.append(s._knockers[order].astype(F32))
    parts.append(s._final_due[order].astype(F32))
    held_present = s._held != _GAP
    held_public = held_present & ~s._held_was_face_down
    parts.append(jnp.stack([held_present, held_present & ~held_public]).astype(F32))
    parts.append(one_hot(s._held, held_public))
    hand = s._hand_owner >= 0
    hand_public = hand & ~s._hand_was_face_down
    parts.append(jnp.stack([hand, hand & ~hand_public]).astype(F32))
    parts.append(one_hot(s._hand_card, hand_public))
    cell_place = ((jnp.arange(c) // 12 - origin) % n) * 12 + jnp.arange(c) % 12
    for where in (s._given_at, s._taken_at):
        w = jnp.maximum(where.astype(jnp.int32), 0)
        parts.append(jax.nn.one_hot(cell_place[w], c, dtype=F32) * (where >= 0))
    parts.append(jnp.stack([s._held_was_face_down, s._hand_was_face_down]).astype(F32))
    dlen = s._discard_len.astype(jnp.int32)
    top = s._discard[jnp.maximum(dlen - 1, 0)]
    parts.append((dlen == 0)[None].astype(F32))
    parts.append(one_hot(top, dlen > 0))
    parts.append((dlen.astype(F32) / d)[None])
    discard_counts = counts(s._discard, dlen)
    parts.append(discard_counts / copies)
    out_counts = counts(s._out, s._out_len)
    parts.append(out_counts / copies)
    known = s._refills > 0
    parts.append(jnp.stack([s._draw_len.astype(F32) / d, known.astype(F32)]))
    draw_counts = counts(s._draw, s._draw_len) * known
    parts.append(draw_counts / copies)
    seen = (
        (jax.nn.one_hot(index(cells), k, dtype=F32) * up[:, None]).sum(axis=0)
        + discard_counts
        + out_counts
        + one_hot(s._held, held_public)
        + one_hot(s._hand_card, hand_public)
        + draw_counts
    )
    parts.append(jnp.maximum(copies - seen, 0.0) / copies)
    lo, span = enc._total_lo, enc._total_span
    parts.append(jnp.clip((s._totals[order].astype(F32) - lo) / span, 0.0, 1.0))
    slo, sspan = enc._setup_lo, enc._setup_span
    parts.append(jnp.clip((s._setup_sums[order].astype(F32) - slo) / sspan, 0.0, 1.0))
    # The private part.
    mine = held_present & s._held_was_face_down & (viewer == s._drawer)
    parts.append(mine[None].astype(F32))
    parts.append(one_hot(s._held, mine))
    own_hand = hand & s._hand_was_face_down & (s._hand_owner == viewer)
    parts.append(own_hand[None].astype(F32))
    parts.append(one_hot(s._hand_card, own_hand))
    named = s._setup_named.astype(jnp.int32)
    namer = (s._start_seat.astype(jnp.int32) + jnp.arange(2 * n) // 2) % n
    mine_named = (named >= 0) & (namer == viewer) & (s._phase == SETUP)
    shifted = (jnp.maximum(named, 0) - viewer * 12) % c
    parts.append(jnp.zeros(c, F32).at[jnp.where(mine_named, shifted, c)].set(1.0, mode="drop"))
    return jnp.concatenate(parts)
