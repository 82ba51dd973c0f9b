"""A PettingZoo AEC environment for Allegra (needs the ``pettingzoo`` extra).

Example::

    from allegra_rules.adapters.pettingzoo import env

    e = env(num_players=4)
    e.reset(seed=7)

- Agents are ``"player_0"`` .. ``"player_{n-1}"`` (seat ``i`` is ``"player_i"``); the
  agent to act is always ``agent_selection`` (``state.current_player``).
- Actions are ``Discrete(num_distinct_actions(n))`` with the ids of
  :mod:`allegra_rules.encoding`.
- Observations are ``{"observation": float32 array, "action_mask": int8 array}``.
  ``observation`` is :func:`allegra_rules.adapters.features.view_features` of
  ``observe(state, seat)``: only what that seat may know. ``action_mask`` is the
  legal-id mask for the agent to act and all zeros for every other agent.
- Rewards: whenever a round ends, every agent gets minus its score for that round
  (lower scores win Allegra), so an episode's return is minus the final total.
  All other steps give 0.
- The episode ends (every agent terminated) when the game ends after its three
  rounds; ``max_turns_per_round`` of the config bounds its length. Nothing is
  truncated.
- ``reset(seed=s)`` deals ``new_game(n, config=config, seed=s)``; ``reset()`` without
  a seed draws the next seed from a generator seeded by the last given seed.
- ``render_mode="ansi"``: ``render()`` returns :func:`allegra_rules.render_table`.

:func:`env` wraps the raw environment in PettingZoo's standard wrappers, as its
classic games do: an illegal action ends the game with reward -1 for the offender.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from allegra_rules.adapters.features import feature_size, view_features
from allegra_rules.config import RuleConfig
from allegra_rules.encoding import action_from_id, legal_action_mask, num_distinct_actions
from allegra_rules.render import render_table
from allegra_rules.state import GameState
from allegra_rules.transitions import apply, new_game
from allegra_rules.views import observe

__all__ = ["AllegraEnv", "env", "raw_env"]

_OBS_BOUND = 1.0e6


def env(
    num_players: int = 4, config: RuleConfig | None = None, render_mode: str | None = None
) -> Any:
    """A wrapped Allegra AEC environment.

    Args:
        num_players: seats, ``config.min_players`` to ``config.max_players``.
        config: the rules; ``None`` means ``preset("seeds")``.
        render_mode: ``None`` or ``"ansi"``.

    Returns:
        :class:`AllegraEnv` inside ``TerminateIllegalWrapper``,
        ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``.
    """
    wrapped: Any = AllegraEnv(num_players, config, render_mode)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


def raw_env(
    num_players: int = 4, config: RuleConfig | None = None, render_mode: str | None = None
) -> AllegraEnv:
    """The unwrapped :class:`AllegraEnv` (same arguments as :func:`env`)."""
    return AllegraEnv(num_players, config, render_mode)


class AllegraEnv(AECEnv):  # type: ignore[misc]
    """The raw AEC environment; see the module docs for spaces and rewards.

    Args:
        num_players: seats, ``config.min_players`` to ``config.max_players``.
        config: the rules; ``None`` means ``preset("seeds")``.
        render_mode: ``None`` or ``"ansi"``.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"],
        "name": "allegra_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        num_players: int = 4,
        config: RuleConfig | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi'; got {render_mode!r}")
        self.num_players = num_players
        self.config = config if config is not None else RuleConfig()
        # Fail early on a bad seat count.
        new_game(num_players, config=self.config, seed=0)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agents = list(self.possible_agents)
        size = num_distinct_actions(num_players)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    low=-_OBS_BOUND,
                    high=_OBS_BOUND,
                    shape=(feature_size(num_players),),
                    dtype=np.float32,
                ),
                "action_mask": spaces.Box(low=0, high=1, shape=(size,), dtype=np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: spaces.Discrete(size) for a in self.possible_agents}
        self._rng = random.Random()
        self.state_: GameState = new_game(num_players, config=self.config, seed=0)

    def observation_space(self, agent: str) -> gymnasium.Space[Any]:
        """The observation space of ``agent`` (the same for every agent)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.Space[Any]:
        """The action space of ``agent`` (the same for every agent)."""
        return self.action_spaces[agent]

    @property
    def game_state(self) -> GameState:
        """The full (hidden-information) engine state, for debugging and tests."""
        return self.state_

    def observe(self, agent: str) -> dict[str, Any]:
        """What ``agent`` may know: its feature vector and its action mask."""
        seat = self.possible_agents.index(agent)
        state = self.state_
        features = np.asarray(view_features(observe(state, seat)), dtype=np.float32)
        if state.current_player == seat:
            mask = np.asarray(legal_action_mask(state), dtype=np.int8)
        else:
            mask = np.zeros(num_distinct_actions(self.num_players), dtype=np.int8)
        return {"observation": features, "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game, from ``seed`` when given (see the module docs)."""
        if seed is not None:
            self._rng = random.Random(seed)
            game_seed = seed
        else:
            game_seed = self._rng.getrandbits(63)
        self.state_ = new_game(self.num_players, config=self.config, seed=game_seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select()

    def _select(self) -> None:
        player = self.state_.current_player
        if player is not None:
            self.agent_selection = self.possible_agents[player]

    def step(self, action: int | None) -> None:
        """Apply ``action`` (an action id) for ``agent_selection``."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act and must give an action id, not None")
        before = len(self.state_.round_scores)
        self.state_ = apply(self.state_, action_from_id(int(action), self.num_players))
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        scores = self.state_.round_scores
        if len(scores) > before:
            for seat, name in enumerate(self.possible_agents):
                self.rewards[name] = -float(scores[-1][seat])
        if self.state_.is_terminal:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self._select()
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The table as text (``render_mode="ansi"``); ``None`` without a render mode."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; nothing to render")
            return None
        return render_table(self.state_)

    def close(self) -> None:
        """Nothing to release."""
