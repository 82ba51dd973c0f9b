"""The batched engine's state, a JAX pytree of fixed-shape arrays, and what a seat sees of it.

``State`` carries its game's static [`StaticTables`][allegra_rules.jax._tables.StaticTables] as the
static part of the pytree (``_spec``), so ``state.observation`` is computed from the state
alone: [`observe`][allegra_rules.jax._state.observe] takes those tables explicitly.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp

from allegra_rules.geometry import CELLS_PER_SEAT as SEAT
from allegra_rules.jax._tables import (
    F32,
    GAP,
    I32,
    NONE,
    NUM_PHASES,
    OVER,
    ROUNDS,
    SETUP,
    StaticTables,
)


@dataclasses.dataclass(frozen=True)
class State:
    """One table of the batched engine (or a batch of tables, along leading axes).

    The six fields of pgx's ``State`` come first and mean what they mean there;
    every other field is the engine's own (a ``_`` prefix: read them through
    ``Env.to_state``). A batch of states is the same class with a leading batch axis
    on every array.

    Attributes:
        current_player: the seat to act (int8), ``-1`` once the game is over.
        legal_action_mask: bool over the action ids of ``allegra_rules.encoding``;
            all False once the game is over.
        rewards: float32 per seat: each round's score scaled as the PettingZoo env
            pays it, in the step that ended the round; 0 otherwise.
        terminated: the game is over (three rounds played, or an illegal action).
        truncated: always False (``max_turns_per_round`` ends a round, not the game).
    """

    current_player: jax.Array
    legal_action_mask: jax.Array
    rewards: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    _phase: jax.Array
    _round: jax.Array
    _cells: jax.Array
    _face_down: jax.Array
    _draw: jax.Array
    _draw_len: jax.Array
    _discard: jax.Array
    _discard_len: jax.Array
    _out: jax.Array
    _out_len: jax.Array
    _held: jax.Array
    _hand_owner: jax.Array
    _hand_card: jax.Array
    _start_seat: jax.Array
    _setup_reveals: jax.Array
    _setup_sums: jax.Array
    _setup_named: jax.Array
    _drawer: jax.Array
    _knockers: jax.Array
    _knocker: jax.Array
    _given_at: jax.Array
    _taken_at: jax.Array
    _held_was_face_down: jax.Array
    _hand_was_face_down: jax.Array
    _turns_played: jax.Array
    _ender: jax.Array
    _final_due: jax.Array
    _refills: jax.Array
    _totals: jax.Array
    _round_scores: jax.Array
    _has_last: jax.Array
    _last_round: jax.Array
    _last_cells: jax.Array
    _last_sums: jax.Array
    _last_ender: jax.Array
    _last_doubled: jax.Array
    _last_scores: jax.Array
    _last_removed: jax.Array
    _seed: jax.Array
    _schema_version: jax.Array
    _illegal: jax.Array
    _spec: StaticTables | None = dataclasses.field(default=None, compare=False)

    def replace(self, **changes: Any) -> State:
        """A copy with the given fields replaced."""
        return dataclasses.replace(self, **changes)

    @property
    def observation(self) -> jax.Array:
        """float32 features of the current player's view (seat 0's once the game is over).

        They equal ``Encoder(config, n).features(observe(state, current_player))`` of
        ``allegra_rules.adapters.features``. Computed when read (also under ``jit`` and
        ``vmap``), so a step that nobody observes does not pay for it.

        Raises:
            ValueError: the state was built without its game's tables (``_spec``).
        """
        t = self._spec
        if t is None:
            raise ValueError("the state has no tables (_spec): build it with an Env")

        def one(s: State) -> jax.Array:
            out: jax.Array = _observe_jit(t, s, jnp.maximum(s.current_player, 0))
            return out

        fn: Any = one
        for _ in range(self.current_player.ndim):
            fn = jax.vmap(fn)
        result: jax.Array = fn(self)
        return result

    @property
    def num_bytes(self) -> int:
        """The bytes of every array of this state (of the whole batch, for a batch)."""
        return sum(int(leaf.nbytes) for leaf in jax.tree_util.tree_leaves(self))


_FIELDS = [f.name for f in dataclasses.fields(State) if f.name != "_spec"]
jax.tree_util.register_dataclass(State, data_fields=_FIELDS, meta_fields=["_spec"])


def observe(t: StaticTables, s: State, viewer: jax.Array) -> jax.Array:
    """``Encoder(config, n).features(observe(state, viewer))`` as float32 (one table).

    ``t`` is the game's tables (``s._spec``), ``viewer`` a seat (traced or not).
    """
    config, n, c, d = t.config, t.num_players, t.num_cells, t.deck_size
    copies = jnp.asarray(t.copies)
    k = len(t.values)
    table = jnp.asarray(t.value_index)

    def index(card: jax.Array) -> jax.Array:
        return table[card.astype(I32) - GAP]

    def one_hot(card: jax.Array, on: jax.Array) -> jax.Array:
        return (jax.nn.one_hot(index(card), k, dtype=F32) * on).astype(F32)

    def counts(pile: jax.Array, length: jax.Array) -> jax.Array:
        valid = jnp.arange(pile.shape[0]) < length
        hot = jax.nn.one_hot(index(pile), k, dtype=F32) * valid[:, None]
        return hot.sum(axis=0)

    origin = viewer
    order = (origin + jnp.arange(n)) % n
    cell_order = (order[:, None] * SEAT + jnp.arange(SEAT)[None, :]).reshape(-1)
    cells = s._cells
    present = cells != GAP
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
    parts.append(jax.nn.one_hot(s._phase.astype(jnp.int32), NUM_PHASES, dtype=F32))
    parts.append(jax.nn.one_hot(s._round.astype(jnp.int32) - 1, ROUNDS, dtype=F32))
    parts.append(jnp.minimum(1.0, s._turns_played.astype(F32) / config.max_turns_per_round)[None])
    parts.append((s._setup_reveals.astype(F32) / (2 * n))[None])

    def place_of(seat: jax.Array) -> jax.Array:
        return (seat.astype(jnp.int32) - origin) % n

    def seat_hot(seat: jax.Array) -> jax.Array:
        return jax.nn.one_hot(place_of(seat), n, dtype=F32) * (seat >= 0)

    over = s._phase == OVER
    current = jnp.where(over, -1, s.current_player.astype(jnp.int32))
    for seat in (current, s._drawer, s._knocker, s._ender, s._start_seat, s._hand_owner):
        parts.append(seat_hot(jnp.asarray(seat)))
    parts.append(s._knockers[order].astype(F32))
    parts.append(s._final_due[order].astype(F32))
    held_present = s._held != GAP
    held_public = held_present & ~s._held_was_face_down
    parts.append(jnp.stack([held_present, held_present & ~held_public]).astype(F32))
    parts.append(one_hot(s._held, held_public))
    hand = s._hand_owner >= 0
    hand_public = hand & ~s._hand_was_face_down
    parts.append(jnp.stack([hand, hand & ~hand_public]).astype(F32))
    parts.append(one_hot(s._hand_card, hand_public))
    cell_place = ((jnp.arange(c) // SEAT - origin) % n) * SEAT + jnp.arange(c) % SEAT
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
    lo, span = t.total_lo, t.total_span
    parts.append(jnp.clip((s._totals[order].astype(F32) - lo) / span, 0.0, 1.0))
    slo, sspan = t.setup_lo, t.setup_span
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
    shifted = (jnp.maximum(named, 0) - viewer * SEAT) % c
    parts.append(jnp.zeros(c, F32).at[jnp.where(mine_named, shifted, c)].set(1.0, mode="drop"))
    return jnp.concatenate(parts)


_observe_jit = jax.jit(observe, static_argnums=0)
"""``observe`` compiled once per tables (for ``State.observation`` read outside ``jit``)."""

# ``NONE`` and ``OVER`` are re-exported for ``_convert``, which reads them from here.
__all__ = ["NONE", "OVER", "State", "observe"]
