"""A single-agent gymnasium environment: one learning seat against ``allegra_rules`` bots.

Needs the ``gymnasium`` extra (``pip install ".[gymnasium]"`` in a clone)::

    from allegra_rules.adapters.gymnasium import AllegraEnv

    env = AllegraEnv(num_players=2, opponents="random")
    observation, info = env.reset(seed=0)

- The learner plays seat ``seat`` (``"random"``: a seat drawn at every reset); the
  other seats are played by bots ([`RandomBot`][allegra_rules.bots.RandomBot] for
  ``"random"``, [`GreedyBot`][allegra_rules.bots.GreedyBot] for ``"greedy"``, or bot objects
  you pass, one per other seat in seat order). ``step`` plays the learner's action,
  then the bots' moves until the learner is to act again or the game is over, so
  every observation is one where the learner acts (or the final one).
- The observation is a ``Box(0, 1)`` float32 vector:
  [`features`][allegra_rules.adapters.features.Encoder.features] of the learner's view,
  seats relative to the learner. The action space is
  ``Discrete(num_distinct_actions(n))``.
- ``AllegraEnv.action_masks`` returns the legal-id mask as a bool array, in the
  convention of sb3-contrib's ``MaskablePPO`` (its ``ActionMasker`` wrapper is not
  needed); ``info["action_mask"]`` holds the same mask.
- Rewards come when a round ends, as in the PettingZoo environment
  ([`RewardScale`][allegra_rules.adapters.pettingzoo.RewardScale]): with
  ``reward="scaled"`` an episode's return is the learner's final total mapped onto
  ``[+1, -1]``; ``reward="raw"`` gives minus the round scores.
- An illegal action never raises: it ends the episode (``terminated=True``) with the
  worst return, and ``info["illegal_action"]`` names it. ``max_turns_per_round``
  bounds an episode, so nothing is truncated.
- Importing the module registers the id ``"allegra_rules/Allegra-v0"``
  (``ENV_ID``) for ``gymnasium.make``; the keyword arguments go to the class.
- ``reset(seed=s)`` seeds gymnasium's ``np_random``; the deal, the bots' choices and
  a random seat are all drawn from it, so the same seed gives the same episode for
  the same actions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from allegra_rules.adapters.features import RENDER_MODES, Encoder, RewardScale
from allegra_rules.bots import Bot, GreedyBot, RandomBot
from allegra_rules.config import RuleConfig
from allegra_rules.encoding import action_from_id, legal_action_mask, num_distinct_actions
from allegra_rules.render import render_table
from allegra_rules.state import GameState
from allegra_rules.transitions import apply, new_game
from allegra_rules.views import observe

__all__ = ["ENV_ID", "AllegraEnv"]

ENV_ID = "allegra_rules/Allegra-v0"
"""The id this module registers: ``gymnasium.make(ENV_ID, num_players=2, ...)``."""

_BOTS: dict[str, type[RandomBot] | type[GreedyBot]] = {"random": RandomBot, "greedy": GreedyBot}


class AllegraEnv(gymnasium.Env[np.ndarray, np.int64]):
    """Allegra for one learner; see the module docs.

    Args:
        num_players: seats, ``config.min_players`` to ``config.max_players``.
        config: the rules; ``None`` means ``preset("seeds")``.
        opponents: ``"random"``, ``"greedy"``, or one bot (anything with
            ``choose(state) -> Action``) per other seat, in seat order.
        seat: the learner's seat, or ``"random"`` for a new one every reset.
        reward: ``"scaled"`` (returns in ``[-1, 1]``) or ``"raw"`` (points).
        render_mode: ``None``, ``"human"`` or ``"ansi"``.

    Raises:
        ValueError: a bad seat count, config, opponent list, seat, reward or render mode.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}  # noqa: RUF012

    def __init__(
        self,
        num_players: int = 2,
        config: RuleConfig | None = None,
        opponents: str | Sequence[Bot] = "random",
        seat: int | str = 0,
        reward: str = "scaled",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.config = config if config is not None else RuleConfig()
        self.state: GameState = new_game(num_players, config=self.config, seed=0)
        self.num_players = num_players
        if isinstance(opponents, str):
            if opponents not in _BOTS:
                raise ValueError(f"opponents must be 'random', 'greedy' or bots; got {opponents!r}")
            self._bot_kind: str | None = opponents
            self._fixed_bots: list[Bot] = []
        else:
            bots = list(opponents)
            if len(bots) != num_players - 1 or not all(isinstance(b, Bot) for b in bots):
                raise ValueError(
                    f"opponents must hold {num_players - 1} bot(s) with choose(state); got {bots!r}"
                )
            self._bot_kind = None
            self._fixed_bots = bots
        if seat != "random" and (type(seat) is not int or not 0 <= seat < num_players):
            raise ValueError(f"seat must be a seat 0..{num_players - 1} or 'random'; got {seat!r}")
        self._seat_choice = seat
        self.seat: int = 0 if seat == "random" else int(seat)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None, 'human' or 'ansi'; got {render_mode!r}")
        self.render_mode = render_mode
        self.scale = RewardScale(self.config, reward)
        self.encoder = Encoder(self.config, num_players)
        self.observation_space = spaces.Box(0.0, 1.0, shape=(self.encoder.size,), dtype=np.float32)
        self.action_space = spaces.Discrete(num_distinct_actions(num_players))
        self._bots: dict[int, Bot] = {}
        self._return = 0.0
        self._ended = False

    # ----------------------------------------------------------------- helpers

    def _observation(self) -> np.ndarray[Any, Any]:
        view = observe(self.state, self.seat)
        return np.asarray(self.encoder.features(view), dtype=np.float32)

    def action_masks(self) -> np.ndarray[Any, Any]:
        """The legal action ids as a bool array (all False once the game is over)."""
        if self._ended or self.state.current_player != self.seat:
            return np.zeros(num_distinct_actions(self.num_players), dtype=bool)
        return np.asarray(legal_action_mask(self.state), dtype=bool)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks(), "seat": self.seat}

    def _advance(self, state: GameState) -> tuple[GameState, float]:
        """Let the bots play until the learner acts or the game ends; the learner's reward."""
        reward = 0.0
        while not state.is_terminal and state.current_player != self.seat:
            seat = state.current_player
            assert seat is not None
            state, gained = self._play(state, self._bots[seat].choose(state))
            reward += gained
        return state, reward

    def _play(self, state: GameState, action: Any) -> tuple[GameState, float]:
        before = len(state.round_scores)
        after = apply(state, action)
        reward = 0.0
        if len(after.round_scores) > before:
            reward = self.scale.round_reward(after.round_scores[-1][self.seat])
        return after, reward

    # --------------------------------------------------------------------- API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray[Any, Any], dict[str, Any]]:
        """Deal a new game and play the bots up to the learner's first move.

        Args:
            seed: seeds ``np_random`` (and through it the deal and the bots).
            options: not used.
        """
        super().reset(seed=seed)
        rng = self.np_random
        if self._seat_choice == "random":
            self.seat = int(rng.integers(self.num_players))
        others = [s for s in range(self.num_players) if s != self.seat]
        if self._bot_kind is not None:
            kind = _BOTS[self._bot_kind]
            self._bots = {s: kind(int(rng.integers(2**62))) for s in others}
        else:
            self._bots = dict(zip(others, self._fixed_bots, strict=True))
        game_seed = int(rng.integers(2**63))
        self._return = 0.0
        self._ended = False
        self.state, reward = self._advance(
            new_game(self.num_players, config=self.config, seed=game_seed)
        )
        self._return += reward
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[np.ndarray[Any, Any], float, bool, bool, dict[str, Any]]:
        """Play the learner's ``action`` id, then the bots up to the learner's next move.

        Returns:
            ``(observation, reward, terminated, truncated, info)``; an illegal action
            gives ``terminated=True`` and the reward that makes the return the worst.
        """
        if self._ended or self.state.is_terminal:
            raise ValueError("the episode is over; call reset()")
        mask = self.action_masks()
        index = int(action)
        if not 0 <= index < len(mask) or not mask[index]:
            reward = self.scale.worst - self._return
            self._return = self.scale.worst
            self._ended = True
            info = self._info()
            info["illegal_action"] = index
            return self._observation(), reward, True, False, info
        state, reward = self._play(self.state, action_from_id(index, self.num_players))
        state, more = self._advance(state)
        reward += more
        self.state = state
        self._return += reward
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, state.is_terminal, False, self._info()

    def render(self) -> str | None:
        """The table as text: returned (``"ansi"``) or printed (``"human"``)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; nothing to render")
            return None
        text = render_table(self.state)
        if self.render_mode == "human":
            print(text)
            return None
        return text


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="allegra_rules.adapters.gymnasium:AllegraEnv")
