"""The batched engine: the rules of ``allegra_rules`` as pure JAX functions (extra ``jax``).

``Env(num_players, config=None)`` plays one rule config at one seat count, in the shape
of pgx: ``env.init(key)``, ``env.step(state, action, key)`` and ``env.observe(state,
player)`` are pure functions of fixed-shape arrays, so ``jax.jit`` compiles them once per
``Env`` and ``jax.vmap`` runs thousands of tables at once. Action ids are those of
``allegra_rules.encoding``. Every chance event (a refill of the draw pile, the next
round's deal) draws from the ``key`` given to ``step`` (the first deal from ``init``'s):
the state keeps the draw pile in order but never a future shuffle. The draw pile is
hidden information: a planner must not read it (the observation does not hold it).

``env.from_state(game_state)`` and ``env.to_state(state)`` move a table between the two
engines, exactly. The core package never imports this module.

Examples:
    >>> import jax
    >>> from allegra_rules.jax import Env
    >>> env = Env(2)
    >>> state = env.init(jax.random.key(0))
    >>> int(state.current_player), int(state.legal_action_mask.sum())
    (0, 15)
"""

from __future__ import annotations

from allegra_rules.jax._env import Env
from allegra_rules.jax._state import State

__all__ = ["Env", "State"]
