"""The batched engine's state: a frozen dataclass of fixed-shape arrays, a JAX pytree."""

from __future__ import annotations

import dataclasses
from typing import Any

import jax

# Phase codes: the position of each member in ``tuple(allegra_rules.Phase)``.
SETUP, DRAW, KNOCK, HOLD_DECK, HOLD_DISCARD, FLIP, KNOCKER_SWAP, TAKE, HOLD_TAKEN, OVER = range(10)

NONE = -1
"""A seat or cell field that holds nothing (``None`` in a ``GameState``)."""


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
    _illegal: jax.Array
    _spec: Any = dataclasses.field(default=None, compare=False)

    def replace(self, **changes: Any) -> State:
        """A copy with the given fields replaced."""
        return dataclasses.replace(self, **changes)

    @property
    def observation(self) -> jax.Array:
        """float32 features of the current player's view (seat 0's once the game is over).

        They equal ``Encoder(config, n).features(observe(state, current_player))`` of
        ``allegra_rules.adapters.features``. Computed when read (also under ``jit`` and
        ``vmap``), so a step that nobody observes does not pay for it.
        """
        from allegra_rules.jax._env import observe_current

        return observe_current(self)

    @property
    def num_bytes(self) -> int:
        """The bytes of every array of this state (of the whole batch, for a batch)."""
        return sum(int(leaf.nbytes) for leaf in jax.tree_util.tree_leaves(self))


_FIELDS = [f.name for f in dataclasses.fields(State) if f.name != "_spec"]
jax.tree_util.register_dataclass(State, data_fields=_FIELDS, meta_fields=["_spec"])

__all__ = ["NONE", "State"]
