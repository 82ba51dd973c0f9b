"""Training a policy on the batched engine with masked PPO (extra ``train``).

``allegra-rules train`` runs [`train`][allegra_rules.train.train]: one network per seat
count, trained with PPO whose whole rollout-and-update loop is one compiled JAX program
over [`allegra_rules.jax`][allegra_rules.jax]. The network reads only the acting seat's
observation (the features ``Encoder`` vector, ``State.observation``): never the draw pile
or a face-down card. The other seats are played by GreedyBot's rule in JAX
([`greedy_action`][allegra_rules.train.greedy_action]), by past snapshots of the learner,
and by the current policy. The weights file it writes is read by ``PolicyBot`` with NumPy
alone. Nothing else in the package imports this module (the command line imports it when
the command runs).

Before PPO, an imitation warm start (``TrainOptions.imitate`` steps, ``--imitate``)
trains the network with masked cross-entropy towards GreedyBot's action at tables where
every seat plays GreedyBot's rule, so PPO starts from a policy close to GreedyBot.
``PPOConfig.critic_updates`` (``--critic-updates``) then holds that policy still for
PPO's first updates while the value head alone is fitted.

With ``PPOConfig.greedy_input`` (``--greedy-input``) the network also reads the greedy
hint ([`greedy_hint`][allegra_rules.train.greedy_hint]): GreedyBot's score of every legal
action, from the acting seat's view, beside the features and added to each logit times a
learned weight. It starts where GreedyBot's judgement is and learns what to change; the
weights file is then of format 3, and ``PolicyBot`` computes the same hint with
[`GreedyBot.hint`][allegra_rules.bots.GreedyBot.hint].

Examples:
    >>> from allegra_rules.train import PPOConfig, TrainOptions
    >>> TrainOptions(seats=(2,), ppo=PPOConfig(num_envs=64), updates=1).seats
    (2,)
"""

from __future__ import annotations

from allegra_rules.train._export import curve_svg, write_weights
from allegra_rules.train._greedy import greedy_action, greedy_hint, greedy_scores
from allegra_rules.train._loop import IMITATE_STEPS, TrainOptions, TrainResult, train
from allegra_rules.train._ppo import (
    PolicyNetwork,
    PPOConfig,
    Trainer,
    learner_input,
    learner_reward,
)

__all__ = [
    "IMITATE_STEPS",
    "PPOConfig",
    "PolicyNetwork",
    "TrainOptions",
    "TrainResult",
    "Trainer",
    "curve_svg",
    "greedy_action",
    "greedy_hint",
    "greedy_scores",
    "learner_input",
    "learner_reward",
    "train",
    "write_weights",
]
