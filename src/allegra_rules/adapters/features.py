"""The observation vectors of the adapters, and their reward scale.

[`Encoder`][allegra_rules.features.Encoder],
[`round_score_bounds`][allegra_rules.features.round_score_bounds] and
[`total_bounds`][allegra_rules.features.total_bounds] live in the core module
[`allegra_rules.features`][allegra_rules.features] (its page describes the vector's layout);
this module re-exports the same objects, so ``allegra_rules.adapters.features.Encoder is
allegra_rules.features.Encoder``. It adds what only the environments use: the render modes and
[`RewardScale`][allegra_rules.adapters.features.RewardScale]. Pure Python (no numpy).
"""

from __future__ import annotations

from allegra_rules.config import RuleConfig
from allegra_rules.features import Encoder, round_score_bounds, total_bounds
from allegra_rules.transitions import ROUNDS

__all__ = ["RENDER_MODES", "Encoder", "RewardScale", "round_score_bounds", "total_bounds"]

RENDER_MODES = ("human", "ansi")
"""The render modes of the PettingZoo and gymnasium environments."""


class RewardScale:
    """Round rewards and the worst return for a config (the PettingZoo and gymnasium envs's).

    Args:
        config: the rules (their deck fixes the score bounds).
        reward: ``"scaled"`` (returns in ``[-1, 1]``) or ``"raw"`` (minus the points).

    Raises:
        ValueError: ``reward`` is neither.

    Examples:
        >>> scale = RewardScale(RuleConfig(), "scaled")
        >>> scale.round_reward(-8), scale.round_reward(308), scale.worst
        (0.3333333333333333, -0.3333333333333333, -1.0)
    """

    def __init__(self, config: RuleConfig, reward: str) -> None:
        if reward not in ("scaled", "raw"):
            raise ValueError(f"reward must be 'scaled' or 'raw'; got {reward!r}")
        self.reward = reward
        self.low, self.high = round_score_bounds(config)
        self.worst: float = -1.0 if reward == "scaled" else -float(ROUNDS * self.high)
        """The worst return a game can give: what an illegal move earns."""

    def round_reward(self, score: int) -> float:
        """The reward for a round score (``-score`` when raw)."""
        if self.reward == "raw":
            return -float(score)
        mid = (self.low + self.high) / 2
        return -(score - mid) / (self.high - self.low) * 2 / ROUNDS
