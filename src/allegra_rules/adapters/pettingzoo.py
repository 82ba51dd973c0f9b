"""A PettingZoo AEC environment for Allegra (needs the ``pettingzoo`` extra).

Example::

    from allegra_rules.adapters.pettingzoo import env

    e = env(num_players=4)
    e.reset(seed=7)

- Agents are ``"player_0"`` .. ``"player_{n-1}"`` (seat ``i`` is ``"player_i"``); the
  agent to act is always ``agent_selection`` (``state.current_player``).
- Actions are ``Discrete(num_distinct_actions(n))`` with the ids of
  [`allegra_rules.encoding`][allegra_rules.encoding].
- Observations are ``{"observation": float32 array, "action_mask": int8 array}``. ``observation`` is
  [`allegra_rules.adapters.features.Encoder.features`][allegra_rules.adapters.features.Encoder.features]
  of ``observe(state, seat)``: only what that seat may know, seats relative to the viewer (place 0
  is the viewer, place 1 its left neighbour, who plays next), cards one-hot, every entry in ``[0,
  1]`` (the ``Box`` says so). ``action_mask`` is the legal-id mask for the agent to act and all
  zeros for every other agent.
- Rewards (``reward="scaled"``, the default): whenever a round ends, every agent gets
  its round score mapped linearly from the round's score bounds
  ([`round_score_bounds`][allegra_rules.adapters.features.round_score_bounds]) onto
  ``[+1/3, -1/3]`` (the lowest score possible gives +1/3). An episode's return is
  thus the final total mapped onto ``[+1, -1]``. ``reward="raw"`` gives minus the
  round score in points instead. All other steps give 0.
- An illegal action (one the mask forbids) ends the game at once: the offender's
  return becomes the worst possible (-1, or minus the highest total with
  ``reward="raw"``), every other agent gets 0 for that step, and every agent is
  terminated. So no illegal move ever pays better than legal play.
- The episode ends (every agent terminated) when the game ends after its three
  rounds; ``max_turns_per_round`` of the config bounds its length. Nothing is
  truncated.
- ``reset(seed=s)`` deals ``new_game(n, config=config, seed=s)``; ``reset()`` without
  a seed draws the next seed from a generator seeded by the last given seed.
- ``render_mode="ansi"``: ``render()`` returns
  [`allegra_rules.render_table`][allegra_rules.render.render_table]; ``"human"`` prints it.
  ``metadata["render_fps"]`` is the frame rate a viewer should use; rendering itself never waits.

[`env`][allegra_rules.adapters.pettingzoo.env] wraps the raw environment in PettingZoo's
``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``. It does not use
``TerminateIllegalWrapper``: that wrapper's illegal reward replaces only the last step's reward, so
an agent with earlier round rewards would end with a better return than the worst.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from allegra_rules.adapters.features import RENDER_MODES, Encoder, RewardScale
from allegra_rules.config import RuleConfig
from allegra_rules.encoding import action_from_id, legal_action_mask, num_distinct_actions
from allegra_rules.render import render_table
from allegra_rules.state import GameState
from allegra_rules.transitions import apply, new_game
from allegra_rules.views import observe

__all__ = ["AllegraEnv", "RewardScale", "env", "raw_env"]


def env(
    num_players: int = 4,
    config: RuleConfig | None = None,
    render_mode: str | None = None,
    reward: str = "scaled",
) -> Any:
    """A wrapped Allegra AEC environment.

    Args:
        num_players: seats, ``config.min_players`` to ``config.max_players``.
        config: the rules; ``None`` means ``preset("seeds")``.
        render_mode: ``None``, ``"human"`` or ``"ansi"``.
        reward: ``"scaled"`` (returns in ``[-1, 1]``) or ``"raw"`` (score points).

    Returns:
        [`AllegraEnv`][allegra_rules.adapters.pettingzoo.AllegraEnv] inside
        ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``.
    """
    wrapped: Any = AllegraEnv(num_players, config, render_mode, reward)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


def raw_env(
    num_players: int = 4,
    config: RuleConfig | None = None,
    render_mode: str | None = None,
    reward: str = "scaled",
) -> AllegraEnv:
    """The unwrapped ``AllegraEnv`` (same arguments as ``env``)."""
    return AllegraEnv(num_players, config, render_mode, reward)


class AllegraEnv(AECEnv):  # type: ignore[misc]
    """The raw AEC environment; see the module docs for spaces and rewards.

    Args:
        num_players: seats, ``config.min_players`` to ``config.max_players``.
        config: the rules; ``None`` means ``preset("seeds")``.
        render_mode: ``None``, ``"human"`` or ``"ansi"``.
        reward: ``"scaled"`` or ``"raw"``.

    Raises:
        ValueError: a bad seat count, config, render mode or reward kind.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES),
        "name": "allegra_v1",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        num_players: int = 4,
        config: RuleConfig | None = None,
        render_mode: str | None = None,
        reward: str = "scaled",
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None, 'human' or 'ansi'; got {render_mode!r}")
        self.num_players = num_players
        self.config = config if config is not None else RuleConfig()
        # Fail early on a bad seat count.
        self.state_: GameState = new_game(num_players, config=self.config, seed=0)
        self.render_mode = render_mode
        self.scale = RewardScale(self.config, reward)
        self.encoder = Encoder(self.config, num_players)
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agents = list(self.possible_agents)
        size = num_distinct_actions(num_players)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    low=0.0, high=1.0, shape=(self.encoder.size,), dtype=np.float32
                ),
                "action_mask": spaces.Box(low=0, high=1, shape=(size,), dtype=np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: spaces.Discrete(size) for a in self.possible_agents}
        self._rng = random.Random()
        self._returns = dict.fromkeys(self.possible_agents, 0.0)

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
        features = np.asarray(self.encoder.features(observe(state, seat)), dtype=np.float32)
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
        self._returns = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select()

    def _select(self) -> None:
        player = self.state_.current_player
        if player is not None:
            self.agent_selection = self.possible_agents[player]

    def step(self, action: int | None) -> None:
        """Apply ``action`` (an action id) for ``agent_selection``.

        An action id the mask forbids ends the game with the worst return for the
        offender (see the module docs).
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act and must give an action id, not None")
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        action = int(action)
        mask = legal_action_mask(self.state_)
        if not 0 <= action < len(mask) or not mask[action]:
            gymnasium.logger.warn(f"{agent} made an illegal move ({action}); the game ends")
            self.rewards[agent] = self.scale.worst - self._returns[agent]
            self.infos[agent] = {"illegal_action": action}
            self._finish()
            return
        before = len(self.state_.round_scores)
        self.state_ = apply(self.state_, action_from_id(action, self.num_players))
        scores = self.state_.round_scores
        if len(scores) > before:
            for seat, name in enumerate(self.possible_agents):
                self.rewards[name] = self.scale.round_reward(scores[-1][seat])
        if self.state_.is_terminal:
            self._finish()
            return
        self._select()
        self._accumulate()

    def _accumulate(self) -> None:
        for name, value in self.rewards.items():
            self._returns[name] += value
        self._accumulate_rewards()

    def _finish(self) -> None:
        self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate()

    def render(self) -> str | None:
        """The table as text: returned (``"ansi"``) or printed (``"human"``)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; nothing to render")
            return None
        text = render_table(self.state_)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""
