"""``Env``: the batched engine's thin shell, pgx's ``Env`` over the rules of ``_rules``.

An ``Env`` checks its seat count and config, builds the game's static
[`StaticTables`][allegra_rules.jax._tables.StaticTables] and binds them to the plain functions of
``_rules`` (``init``, ``step``, ``observe``, ...). It holds no rule of its own.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from allegra_rules.config import RuleConfig
from allegra_rules.encoding import GAP_CODE
from allegra_rules.jax import _rules
from allegra_rules.jax._convert import from_state, to_state
from allegra_rules.jax._state import State
from allegra_rules.jax._tables import I32, StaticTables, tables
from allegra_rules.presets import preset


class Env:
    """The game for ``num_players`` seats under ``config``, as pure JAX functions.

    Args:
        num_players: the seat count, within the config's ``min_players`` to
            ``most_players()``.
        config: the rules; ``None`` means ``preset("seeds")``.

    Raises:
        ValueError: a seat count or config that cannot be played.

    ``init``, ``step`` and ``observe`` are pure functions of arrays: wrap them in
    ``jax.jit`` and ``jax.vmap`` as you like (each ``Env`` compiles its own program).
    """

    def __init__(self, num_players: int, config: RuleConfig | None = None) -> None:
        if config is None:
            config = preset("seeds")
        if not isinstance(config, RuleConfig):
            raise ValueError(f"config must be a RuleConfig or None; got {type(config).__name__}")
        if type(num_players) is not int:
            raise ValueError(f"num_players must be an int; got {num_players!r}")
        most = config.most_players()
        if not config.min_players <= num_players <= most:
            raise ValueError(
                f"num_players must be {config.min_players}..{most} for this config "
                f"(min_players..most_players()); got {num_players}"
            )
        cards = config.deck_cards()
        low, high = GAP_CODE + 1, 127
        if cards[0] < low or cards[-1] > high:
            raise ValueError(
                f"the batched engine stores cards as int8: card values must be {low}..{high}; "
                f"RuleConfig.deck has {cards[0]}..{cards[-1]}"
            )
        self.tables: StaticTables = tables(num_players, config)
        """The game's static tables (also every state's ``_spec``)."""
        self.config = config
        """The rules."""
        self.num_players = num_players
        """The seat count."""
        self.num_cells = self.tables.num_cells
        """Cells on the table: ``12 * num_players``."""
        self.deck_size = self.tables.deck_size
        """Cards in the deck (the length of each pile array)."""
        self.num_actions = self.tables.num_actions
        """Action ids: ``allegra_rules.encoding.num_distinct_actions(num_players)``."""
        self._spec = self.tables

    def __repr__(self) -> str:
        return f"Env({self.num_players}, config fingerprint {self.config.fingerprint[:12]})"

    def init(self, key: jax.Array) -> State:
        """Deal round 1 of a new game, shuffled from ``key``."""
        return _rules.init(self.tables, key)

    def step(self, state: State, action: jax.Array, key: jax.Array) -> State:
        """The state after ``action`` (an action id); chance draws from ``key``.

        A step on a terminated state returns it unchanged with zero rewards. An
        illegal action ends the game: the actor's rewards of the game so far become
        -1 in all (the worst, as the PettingZoo env pays it), the others get 0.
        """
        return _rules.step(self.tables, state, action, key)

    def step_auto_reset(self, state: State, action: jax.Array, key: jax.Array) -> State:
        """``step``; when that ends the game, a new game dealt from ``key`` instead.

        The new game keeps the final step's ``rewards`` (its ``terminated`` is False), so
        a learner sees the last round's rewards and play goes on at once. It is pgx's
        auto-reset, but under ``vmap`` only the tables whose game ended pay for the deal
        (``jax.lax.cond`` inside ``vmap`` would deal for every table at every step).
        """
        return _rules.step_auto_reset(self.tables, state, action, key)

    def observe(self, state: State, player: jax.Array | int) -> jax.Array:
        """float32 features of ``player``'s view: ``Encoder.features(observe(...))``.

        Raises:
            ValueError: ``player`` is a Python int (or bool) that is not a seat. A traced
                ``player`` is not checked.
        """
        if isinstance(player, (int, np.integer)) and (
            isinstance(player, bool) or not 0 <= int(player) < self.num_players
        ):
            raise ValueError(f"player must be a seat 0..{self.num_players - 1}; got {player!r}")
        return _rules.observe(self.tables, state, jnp.asarray(player, I32))

    def from_state(self, state: Any) -> State:
        """The batched engine's state of the ``GameState`` ``state`` (on the host, exact)."""
        return from_state(self.tables, state)

    def to_state(self, state: State) -> Any:
        """The ``GameState`` of one table ``state`` (on the host, exact)."""
        return to_state(self.tables, state)


__all__ = ["Env"]
