"""Masked PPO over the batched engine, the whole rollout-and-update loop in one ``jit``.

One [`Trainer`][allegra_rules.train._ppo.Trainer] trains the network of one seat count.
Its ``run(state, updates)`` is a ``jax.lax.scan`` over PPO updates, each a ``scan`` over
``num_steps`` engine steps of ``num_envs`` tables and then ``epochs`` passes of minibatch
updates; the host calls it chunk by chunk to print progress and save checkpoints.

At every table one seat is the learner (drawn again at every new game); the other seats
are played, by the table's place in the batch, by GreedyBot's rule (the JAX greedy of
``_greedy``), by a snapshot of the learner's past self (a fixed-size pool of parameters,
one slot overwritten every ``pool_every`` updates), or by the current policy. Only the
learner's own decisions are trained on. The learner sees ``State.observation`` (the
features ``Encoder`` vector of the acting seat's view) and, with ``greedy_input``, the
greedy hint computed from that same view (GreedyBot's score of each legal action), and
nothing else.

Reward: the engine's scaled round rewards of the learner's seat (a game's rewards add up
to its final total mapped onto ``[+1, -1]``), less ``relative`` times the mean of the
other seats' round rewards, plus ``win_bonus`` at the end of a game the learner wins (the
lowest total, ties included). With ``relative`` 1 the score part is the learner's total
against the others' mean, so a move that costs the learner a point and the others two
pays; with 0 (the default) only the learner's own total counts.

The first ``critic_updates`` updates of a run fit the value head alone: the gradients of
every other weight are zeroed, so the policy that plays (the imitation warm start's, say)
is held still until its critic has learnt what its positions are worth.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, NamedTuple

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax

from allegra_rules.config import RuleConfig
from allegra_rules.jax import Env, State
from allegra_rules.jax._state import observe
from allegra_rules.jax._tables import SETUP, StaticTables
from allegra_rules.network_input import CARD_SLOTS, NetworkInput
from allegra_rules.presets import preset
from allegra_rules.train._greedy import (
    choice_of,
    greedy_action,
    greedy_hint,
    greedy_scores,
    hint_of,
)

F32 = jnp.float32
_NEG = -1e9
EVAL_STEPS_PER_SEAT = 800
"""The evaluation's step limit per seat of a game (a usual game takes 150-250 a seat)."""


@dataclasses.dataclass(frozen=True)
class PPOConfig:
    """The hyper-parameters of one training run (the same for every seat count).

    Attributes:
        num_envs: tables played at once per seat count.
        num_steps: engine steps per table in one update's rollout.
        hidden: the two hidden layers' widths.
        lr: Adam's learning rate (linearly annealed to 10 % over ``total_updates``).
        gamma, gae_lambda: discount and GAE's lambda, per learner decision.
        clip: PPO's ratio clip.
        ent_coef, vf_coef: the entropy bonus's and the value loss's weights.
        epochs, minibatches: passes over a rollout, and minibatches per pass.
        max_grad_norm: gradient clipping.
        win_bonus: the reward for winning a game, added at its end.
        relative: the weight of the other seats' mean round reward, taken off the
            learner's own (0: the learner's own score alone; 1: its score against the
            others' mean).
        greedy_share, pool_share: the fractions of tables whose other seats are played
            by GreedyBot's rule and by the pool of past selves (the rest: the current
            policy).
        pool_size, pool_every: the pool's slots, and updates between two snapshots.
        total_updates: the horizon of the learning-rate schedule.
        eval_envs: games of the evaluation against GreedyBot's rule.
        imitate_lr: Adam's learning rate of the imitation warm start.
        critic_updates: the first PPO updates of a run, in which the value head alone
            learns (the policy's loss and entropy bonus move nothing; the shared layers
            and the policy's weights stay as they were), so that PPO's first policy
            steps are taken with a fitted critic rather than the one left by the
            imitation warm start, which never trains it.
        greedy_input: whether the network also reads the greedy hint, GreedyBot's score of
            every legal action from the acting seat's view
            ([`greedy_hint`][allegra_rules.train._greedy.greedy_hint]): appended to the
            features, and added to each action's logit times a learned weight of its own.
        rules_input: whether the network reads the deck-free
            [`NetworkInput`][allegra_rules.network_input.NetworkInput] (the rules among it)
            instead of the features, so that it plays every config (a weights file of
            format 4).
        value_heads: whether the network also learns the value heads (``head_coef`` their
            weight in the loss), from the acting seat's input alone: its margin at the
            round's end (its round reward less the others' mean), whether it wins the
            game, and its rank at the game's end (0: the lowest total). See ``HEADS``.
        head_coef: the value heads' weight in the loss.
        rules: the configs the tables play, an equal share of the ``num_envs`` tables each
            (empty: ``preset("seeds")``; with ``k`` configs, ``num_envs // k`` each, and
            so for the evaluation's games). Each compiles its own engine program. More
            than one needs ``rules_input``.
    """

    num_envs: int = 512
    num_steps: int = 64
    hidden: tuple[int, int] = (256, 256)
    lr: float = 3e-4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    epochs: int = 4
    minibatches: int = 4
    max_grad_norm: float = 0.5
    win_bonus: float = 1.0
    relative: float = 0.0
    greedy_share: float = 0.5
    pool_share: float = 0.25
    pool_size: int = 4
    pool_every: int = 20
    total_updates: int = 2000
    eval_envs: int = 512
    imitate_lr: float = 1e-3
    critic_updates: int = 0
    greedy_input: bool = False
    rules_input: bool = False
    rules: tuple[RuleConfig, ...] = ()
    value_heads: bool = False
    head_coef: float = 0.5


HINT_WEIGHT = 10.0
"""The starting weight of each action's greedy hint in its logit (``greedy_input``).

With it a score one point better is one logit more likely from the first step on, so the
imitation warm start begins near GreedyBot's choices and learns what to change.
"""


HEADS = ("score", "win")
"""The value heads' first outputs (``PPOConfig.value_heads``), then one per rank.

``score``: the acting seat's round margin, its own round reward less the others' mean
(the engine's scaled round rewards: a game's add up to its total mapped onto ``[+1,
-1]``); ``win``: the logit of its winning the game (a shared win counts); then ``n``
logits of its rank at the game's end (0: the lowest total; seats tied on a total share
the better rank).
"""


class PolicyNetwork(nn.Module):
    """Two ReLU layers, then the action logits and the value (the weights file's network).

    With ``greedy_input`` the input's last ``num_actions`` entries are the greedy hint
    (``learner_input`` with ``tables``), and each action's logit adds its hint times a
    learned weight of its own (the parameter ``hint``, one per action id). With
    ``ranks`` (the seat count, ``PPOConfig.value_heads``), a layer ``heads`` reads the
    last hidden layer as the value does: ``HEADS`` and then ``ranks`` rank logits.
    """

    num_actions: int
    hidden: tuple[int, int]
    greedy_input: bool = False
    ranks: int = 0

    @nn.compact
    def __call__(self, x: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
        """Logits ``(..., num_actions)``, value ``(...)`` and heads ``(..., 2 + ranks)``.

        Without heads (``ranks`` 0) the last is empty, ``(..., 0)``.
        """
        h = nn.relu(nn.Dense(self.hidden[0], name="hidden_0")(x))
        h = nn.relu(nn.Dense(self.hidden[1], name="hidden_1")(h))
        logits = nn.Dense(
            self.num_actions, name="policy", kernel_init=nn.initializers.normal(0.01)
        )(h)
        if self.greedy_input:
            weight = self.param(
                "hint", nn.initializers.constant(HINT_WEIGHT), (self.num_actions,), F32
            )
            logits = logits + weight * x[..., -self.num_actions :]
        value = nn.Dense(1, name="value")(h)
        if self.ranks:
            heads = nn.Dense(len(HEADS) + self.ranks, name="heads")(h)
        else:
            heads = jnp.zeros((*h.shape[:-1], 0), F32)
        return logits, value[..., 0], heads


def masked_logits(logits: jax.Array, mask: jax.Array) -> jax.Array:
    """``logits`` with the illegal ids set very low."""
    return jnp.where(mask, logits, _NEG)


def value_head_only(grads: Any, policy_on: jax.Array) -> Any:
    """``grads`` with every leaf outside the value head scaled by ``policy_on`` (0 or 1)."""

    def scale(path: tuple[Any, ...], g: jax.Array) -> jax.Array:
        if any(getattr(k, "key", None) == "value" for k in path):
            return g
        return g * policy_on

    return jax.tree_util.tree_map_with_path(scale, grads)


class Rewrite:
    """``NetworkInput``'s rewrite of the features as arrays: features in, network input out.

    The deck-free input of [`NetworkInput`][allegra_rules.network_input.NetworkInput],
    from the arrays of its ``blocks()``: the same numbers (a test holds them in lock-step).
    """

    def __init__(self, network_input: NetworkInput) -> None:
        blocks = network_input.blocks()
        self.pass_index = np.asarray(blocks["pass"], np.int32)
        self.cards = np.asarray(blocks["cards"], np.int32).reshape(-1, len(blocks["slots"]))
        self.counts = np.asarray(blocks["counts"], np.int32).reshape(-1, len(blocks["slots"]))
        slots = np.asarray(blocks["slots"])
        self.to_slots = (slots[:, None] == np.arange(CARD_SLOTS)[None, :]).astype(np.float32)
        self.magnitudes = np.asarray(blocks["magnitudes"], np.float32)
        self.count_weights = np.asarray(blocks["count_weights"], np.float32)
        self.rules = np.asarray(blocks["rules"], np.float32)
        self.size = network_input.size

    def __call__(self, features: jax.Array) -> jax.Array:
        """The network input of ``features`` (``(..., Encoder.size)`` floats)."""
        lead = features.shape[:-1]
        cards = features[..., self.cards]  # (..., blocks, k)
        card_part = jnp.concatenate(
            [cards @ self.to_slots, (cards @ self.magnitudes)[..., None]], axis=-1
        )
        counts = features[..., self.counts] * self.count_weights
        return jnp.concatenate(
            [
                features[..., self.pass_index],
                card_part.reshape(*lead, -1),
                (counts @ self.to_slots).reshape(*lead, -1),
                jnp.broadcast_to(self.rules, (*lead, self.rules.shape[0])),
            ],
            axis=-1,
        )


def learner_input(
    state: State, tables: StaticTables | None = None, rewrite: Rewrite | None = None
) -> jax.Array:
    """What the network reads of a (batched) state: the acting seat's features.

    With ``rewrite`` (``PPOConfig.rules_input``) the features are rewritten deck-free with
    the rules at their end. With ``tables`` (``PPOConfig.greedy_input``), the greedy hint
    of the acting seat follows them
    ([`greedy_hint`][allegra_rules.train._greedy.greedy_hint]), which is computed from
    that seat's view too. Nothing else of the state is read.
    """
    features = state.observation if rewrite is None else rewrite(state.observation)
    if tables is None:
        return features
    hint = greedy_hint
    for _ in range(state.observation.ndim - 1):
        hint = jax.vmap(hint, in_axes=(None, 0))
    return jnp.concatenate([features, hint(tables, state)], axis=-1)


def learner_reward(rewards: jax.Array, learner: jax.Array, relative: float) -> jax.Array:
    """The learner's round reward less ``relative`` times the other seats' mean.

    Args:
        rewards: the round rewards, ``(tables, seats)``.
        learner: the learner's seat at each table, ``(tables,)``.
        relative: the others' weight (``PPOConfig.relative``; 0 gives the own reward).

    Returns:
        The learner's reward at each table, ``(tables,)``.

    Examples:
        >>> import jax.numpy as jnp
        >>> r = jnp.asarray([[0.3, -0.1, 0.1, 0.3]])
        >>> round(float(learner_reward(r, jnp.asarray([0]), 1.0)[0]), 6)
        0.2
    """
    n = rewards.shape[1]
    own = jnp.take_along_axis(rewards, learner[:, None], axis=1)[:, 0]
    if relative == 0.0:
        return own
    others = (rewards.sum(axis=1) - own) / (n - 1)
    return own - relative * others


class TableState(NamedTuple):
    """The rollout's carry for the tables of one seat count (``env``: each config's tables)."""

    env: tuple[State, ...]
    learner: jax.Array
    returns: jax.Array


class _Joined:
    """The fields a rollout step reads of every config's tables after a step, joined."""

    def __init__(self, states: tuple[State, ...]) -> None:
        self.rewards = jnp.concatenate([s.rewards for s in states])
        self._phase = jnp.concatenate([s._phase for s in states])
        self._round = jnp.concatenate([s._round for s in states])
        self._setup_reveals = jnp.concatenate([s._setup_reveals for s in states])


class TrainState(NamedTuple):
    """Everything one seat count's training carries from update to update."""

    params: Any
    opt_state: Any
    pool: Any
    tables: TableState
    key: jax.Array
    update: jax.Array


class ImitationState(NamedTuple):
    """The imitation warm start's carry: weights, its own optimizer state, tables, key."""

    params: Any
    opt_state: Any
    env: tuple[State, ...]
    key: jax.Array


class Group:
    """One config's tables in a ``Trainer``: its engine, its share of tables, its opponents.

    Attributes:
        env: the batched engine of the config (its own compiled program).
        tables: its static tables.
        size: its tables, an equal share of ``num_envs``.
        num_greedy, num_pool: its first ``num_greedy`` tables' other seats play GreedyBot's
            rule, the next ``num_pool`` the pool of past selves, the rest the current policy.
        rewrite: the deck-free rewrite of its features (``rules_input``), or ``None``.
    """

    def __init__(self, num_players: int, rules: RuleConfig, config: PPOConfig, size: int) -> None:
        self.env = Env(num_players, rules)
        self.tables = self.env.tables
        self.size = size
        self.num_greedy = int(size * config.greedy_share)
        self.num_pool = int(size * config.pool_share) // config.pool_size * config.pool_size
        self.rewrite = Rewrite(NetworkInput(rules, num_players)) if config.rules_input else None


class Trainer:
    """Masked PPO for the network of ``num_players`` seats (see the module docs).

    Args:
        num_players: the seat count.
        config: the hyper-parameters.

    Raises:
        ValueError: several ``config.rules`` without ``rules_input``, or fewer tables or
            evaluation games than configs.
    """

    def __init__(self, num_players: int, config: PPOConfig) -> None:
        self.n = num_players
        self.config = config
        rules = config.rules or (preset("seeds"),)
        if len(rules) > 1 and not config.rules_input:
            raise ValueError("training on several configs needs rules_input (--rules-input)")
        if config.value_heads and not config.rules_input:
            raise ValueError("value heads need rules_input (weights format 4)")
        if min(config.num_envs, config.eval_envs) < len(rules):
            raise ValueError(
                f"num_envs ({config.num_envs}) and eval_envs ({config.eval_envs}) must be at "
                f"least the number of configs ({len(rules)})"
            )
        size = config.num_envs // len(rules)
        self.batch = size * len(rules)
        """The tables played at once: ``num_envs``, less what does not share out evenly."""
        self.eval_batch = config.eval_envs // len(rules) * len(rules)
        """The evaluation's games: ``eval_envs``, less what does not share out evenly."""
        self.groups = [Group(num_players, r, config, size) for r in rules]
        """The configs' tables, in ``config.rules``' order (the batch is theirs, in turn)."""
        self.env = self.groups[0].env
        """The first config's engine (every config has the same action ids)."""
        self.tables = self.env.tables
        self.network = PolicyNetwork(
            self.env.num_actions,
            config.hidden,
            config.greedy_input,
            num_players if config.value_heads else 0,
        )
        # Its shape alone, traced: nothing is compiled or run to learn it.
        self.obs_size = int(
            jax.eval_shape(
                lambda k: observe(self.tables, self.env.init(k), jnp.asarray(0)),
                jax.random.key(0),
            ).shape[0]
        )
        """The first config's features (``Encoder.size``)."""
        rewrite = self.groups[0].rewrite
        features = self.obs_size if rewrite is None else rewrite.size
        self.input_size = features + (self.env.num_actions if config.greedy_input else 0)
        """The network's input: the features (deck-free with ``rules_input``), then the
        greedy hint (``greedy_input``)."""
        schedule = optax.linear_schedule(config.lr, config.lr * 0.1, config.total_updates)
        chain: list[optax.GradientTransformation] = [
            optax.clip_by_global_norm(config.max_grad_norm),
            optax.adam(
                lambda count: schedule(count // (config.epochs * config.minibatches)), eps=1e-5
            ),
        ]
        self.optimizer = optax.chain(*chain)
        self.imitation_optimizer = optax.chain(
            optax.clip_by_global_norm(1.0), optax.adam(config.imitate_lr)
        )
        # The setups compile once each as one program, not as dozens of single operations.
        self.init = jax.jit(self._init)
        """``init(key)``: a fresh ``TrainState`` (``_init``, compiled)."""
        self.imitation_init = jax.jit(self._imitation_init)
        """``imitation_init(params, key)``: the imitation's start (``_imitation_init``)."""
        self.warm_start = jax.jit(self._warm_start)
        """``warm_start(ts, params)``: ``ts`` led by ``params`` (``_warm_start``)."""
        self.run = jax.jit(self._run, static_argnums=1)
        self.imitate = jax.jit(self._imitate, static_argnums=1)
        self.evaluate = jax.jit(self._evaluate)

    # ------------------------------------------------------------------ setup

    def deal(self, key: jax.Array, per_group: int | None = None) -> tuple[State, ...]:
        """New games at every table, each config's share from its own engine."""
        return tuple(
            jax.vmap(g.env.init)(jax.random.split(k, per_group or g.size))
            for g, k in zip(self.groups, self._keys(key), strict=True)
        )

    def _init(self, key: jax.Array) -> TrainState:
        """A fresh training state: new weights, a pool of copies, tables dealt."""
        k_net, k_env, k_seat, key = jax.random.split(key, 4)
        params = self.network.init(k_net, jnp.zeros((self.input_size,), F32))
        pool = jax.tree_util.tree_map(
            lambda x: jnp.broadcast_to(x, (self.config.pool_size, *x.shape)), params
        )
        b = self.batch
        learner = jax.random.randint(k_seat, (b,), 0, self.n)
        tables = TableState(self.deal(k_env), learner, jnp.zeros((b, self.n), F32))
        return TrainState(
            params, self.optimizer.init(params), pool, tables, key, jnp.asarray(0, jnp.int32)
        )

    def input(self, env: State, group: int = 0) -> jax.Array:
        """The network's input at every table of ``env``, tables of config ``group``."""
        g = self.groups[group]
        return learner_input(env, g.tables if self.config.greedy_input else None, g.rewrite)

    def _read(self, envs: tuple[State, ...]) -> tuple[jax.Array, list[jax.Array | None]]:
        """The network's input at every table, and GreedyBot's scores when the input has them.

        With ``greedy_input`` the scores are computed once here, and both the hint and the
        greedy moves of that step (``_greedy``) are read from them; the input equals
        ``input(env)``, config by config.
        """
        inputs, all_scores = [], []
        for g, env in zip(self.groups, envs, strict=True):
            features = env.observation if g.rewrite is None else g.rewrite(env.observation)
            scores = None
            if self.config.greedy_input:
                scores = jax.vmap(greedy_scores, in_axes=(None, 0))(g.tables, env)
                hint = jax.vmap(hint_of)(scores, env.legal_action_mask)
                features = jnp.concatenate([features, hint], axis=-1)
            inputs.append(features)
            all_scores.append(scores)
        return jnp.concatenate(inputs), all_scores

    def _greedy(
        self, group: Group, env: State, key: jax.Array, scores: jax.Array | None
    ) -> jax.Array:
        """GreedyBot's move at every table of ``env`` (config ``group``), from ``scores``.

        ``key`` is split into one key a table; the moves equal ``greedy_action``'s.
        """
        keys = jax.random.split(key, env.legal_action_mask.shape[0])
        if scores is None:
            return jax.vmap(lambda s, k: greedy_action(group.tables, s, k))(env, keys)
        out: jax.Array = jax.vmap(choice_of)(scores, env.legal_action_mask, keys)
        return out

    def _greedy_all(
        self, envs: tuple[State, ...], key: jax.Array, scores: list[jax.Array | None]
    ) -> jax.Array:
        """GreedyBot's move at every table of every config."""
        return jnp.concatenate(
            [
                self._greedy(g, env, k, sc)
                for g, env, k, sc in zip(self.groups, envs, self._keys(key), scores, strict=True)
            ]
        )

    def apply(self, params: Any, obs: jax.Array) -> tuple[jax.Array, jax.Array]:
        """The network's logits and value."""
        logits, value, _ = self.apply_heads(params, obs)
        return logits, value

    def apply_heads(self, params: Any, obs: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
        """The network's logits, value and value heads (``PolicyNetwork``)."""
        out: tuple[jax.Array, jax.Array, jax.Array] = self.network.apply(params, obs)  # type: ignore[assignment]
        return out

    @staticmethod
    def _mask(envs: tuple[State, ...]) -> jax.Array:
        return jnp.concatenate([env.legal_action_mask for env in envs])

    # ---------------------------------------------------------------- rollout

    def _keys(self, key: jax.Array) -> list[jax.Array]:
        """One key per config (``key`` itself when there is one)."""
        if len(self.groups) == 1:
            return [key]
        return list(jax.random.split(key, len(self.groups)))

    def _advance(
        self, envs: tuple[State, ...], actions: jax.Array, key: jax.Array, auto_reset: bool
    ) -> tuple[State, ...]:
        """Every table one step on: ``actions`` in the batch's order, one key a table."""
        keys = jax.random.split(key, actions.shape[0])
        out, at = [], 0
        for g, env in zip(self.groups, envs, strict=True):
            size = env.legal_action_mask.shape[0]
            step = g.env.step_auto_reset if auto_reset else g.env.step
            out.append(jax.vmap(step)(env, actions[at : at + size], keys[at : at + size]))
            at += size
        return tuple(out)

    def _opponents(
        self,
        pool: Any,
        envs: tuple[State, ...],
        obs: jax.Array,
        key: jax.Array,
        scores: list[jax.Array | None],
    ) -> tuple[jax.Array, jax.Array]:
        """The opponents' action at every table, and where they play (greedy or pool).

        Each config's tables go greedy first, then the pool, then the current policy
        (whose tables get no opponents' action: ``played`` is False there). ``scores``:
        GreedyBot's scores of every config's tables when already computed (``_read``).
        """
        size = self.config.pool_size
        actions, played, at = [], [], 0
        for g, env, k, sc in zip(self.groups, envs, self._keys(key), scores, strict=True):
            n_g, p = g.num_greedy, g.num_pool
            k_g, k_p = jax.random.split(k)
            greedy_env = jax.tree_util.tree_map(lambda x, n_g=n_g: x[:n_g], env)
            parts = [self._greedy(g, greedy_env, k_g, None if sc is None else sc[:n_g])]
            if p:
                pool_obs = obs[at + n_g : at + n_g + p].reshape(size, p // size, -1)
                pool_logits, _ = jax.vmap(self.apply)(pool, pool_obs)
                pool_logits = masked_logits(
                    pool_logits.reshape(p, -1), env.legal_action_mask[n_g : n_g + p]
                )
                parts.append(jax.random.categorical(k_p, pool_logits).astype(jnp.int32))
            parts.append(jnp.zeros(g.size - n_g - p, jnp.int32))
            actions.append(jnp.concatenate(parts).astype(jnp.int32))
            played.append(jnp.arange(g.size) < n_g + p)
            at += g.size
        return jnp.concatenate(actions), jnp.concatenate(played)

    def _step(
        self, params: Any, pool: Any, tables: TableState, key: jax.Array
    ) -> tuple[TableState, dict[str, jax.Array]]:
        cfg = self.config
        b, n = self.batch, self.n
        envs = tables.env
        k_act, k_opp, k_step, k_seat = jax.random.split(key, 4)
        obs, scores = self._read(envs)
        mask = self._mask(envs)
        logits, value = self.apply(params, obs)
        logits = masked_logits(logits, mask)
        action = jax.random.categorical(k_act, logits).astype(jnp.int32)
        logp = jax.nn.log_softmax(logits)[jnp.arange(b), action]
        opp, played = self._opponents(pool, envs, obs, k_opp, scores)
        actor = jnp.concatenate([env.current_player for env in envs]).astype(jnp.int32)
        mine = actor == tables.learner
        chosen = jnp.where(mine | ~played, action, opp)
        afters = self._advance(envs, chosen, k_step, auto_reset=True)
        after = _Joined(afters)
        returns = tables.returns + after.rewards
        ended = (after._phase == SETUP) & (after._round == 1) & (after._setup_reveals == 0)
        own = jnp.take_along_axis(returns, tables.learner[:, None], axis=1)[:, 0]
        won = own >= returns.max(axis=1) - 1e-5
        reward = learner_reward(after.rewards, tables.learner, cfg.relative) + jnp.where(
            ended & won, cfg.win_bonus, 0.0
        )
        new_seat = jax.random.randint(k_seat, (b,), 0, n)
        # The value heads' outcomes at this step: a round's end and a game's end.
        before_round = jnp.concatenate([env._round for env in envs])
        round_end = (after._round != before_round) | ended
        margin = learner_reward(after.rewards, tables.learner, 1.0)
        rank = (returns > own[:, None] + 1e-5).sum(axis=1)  # seats ahead (higher reward)
        learner = jnp.where(ended, new_seat, tables.learner)
        returns = jnp.where(ended[:, None], 0.0, returns)
        record = {
            "round_end": round_end,
            "margin": margin,
            "rank": rank,
            "obs": obs,
            "mask": mask,
            "action": action,
            "logp": logp,
            "value": value,
            "mine": mine,
            "reward": reward,
            "ended": ended,
            "won": ended & won,
        }
        return TableState(afters, learner, returns), record

    def _advantages(
        self, rec: dict[str, jax.Array], last_value: jax.Array
    ) -> tuple[jax.Array, jax.Array]:
        cfg = self.config

        def back(
            carry: tuple[jax.Array, jax.Array, jax.Array, jax.Array], x: dict[str, jax.Array]
        ) -> tuple[tuple[jax.Array, jax.Array, jax.Array, jax.Array], jax.Array]:
            nv, na, acc, cut = carry
            r = x["reward"] + jnp.where(x["ended"], 0.0, acc)
            d = x["ended"] | cut
            keep = 1.0 - d.astype(F32)
            delta = r + cfg.gamma * keep * nv - x["value"]
            adv = delta + cfg.gamma * cfg.gae_lambda * keep * na
            mine = x["mine"]
            out = (
                jnp.where(mine, x["value"], nv),
                jnp.where(mine, adv, na),
                jnp.where(mine, 0.0, r),
                jnp.where(mine, False, d),
            )
            return out, jnp.where(mine, adv, 0.0)

        b = self.batch
        init = (last_value, jnp.zeros(b, F32), jnp.zeros(b, F32), jnp.zeros(b, bool))
        _, adv = jax.lax.scan(back, init, rec, reverse=True)
        return adv, adv + rec["value"]

    @staticmethod
    def head_targets(rec: dict[str, jax.Array], last_heads: jax.Array) -> dict[str, jax.Array]:
        """The value heads' targets of a rollout: each step's next round end and game end.

        A step's ``score`` is the learner's round margin at the first round end at or
        after it, ``win`` (a probability) and ``ranks`` (one per rank) the learner's at
        the first game end at or after it. Where that end lies past the rollout, the
        targets are the heads' own predictions at the rollout's end (``last_heads``, the
        learner's input there), as PPO's value is bootstrapped: so every decision
        teaches the heads, not only those close to an end.
        """
        Carry = tuple[jax.Array, jax.Array, jax.Array]

        def back(carry: Carry, x: dict[str, jax.Array]) -> tuple[Carry, Carry]:
            score, win, ranks = carry
            score = jnp.where(x["round_end"], x["margin"], score)
            win = jnp.where(x["ended"], x["won"].astype(F32), win)
            hot = jax.nn.one_hot(x["rank"], ranks.shape[1], dtype=F32)
            ranks = jnp.where(x["ended"][:, None], hot, ranks)
            out = (score, win, ranks)
            return out, out

        init = (
            last_heads[:, 0],
            jax.nn.sigmoid(last_heads[:, 1]),
            jax.nn.softmax(last_heads[:, 2:], axis=-1),
        )
        keys = ("round_end", "margin", "ended", "won", "rank")
        _, (score, win, ranks) = jax.lax.scan(back, init, {k: rec[k] for k in keys}, reverse=True)
        return {"score": score, "win": win, "ranks": ranks}

    # ----------------------------------------------------------------- update

    def _loss(self, params: Any, batch: dict[str, jax.Array]) -> tuple[jax.Array, jax.Array]:
        cfg = self.config
        logits, value, heads = self.apply_heads(params, batch["obs"])
        logits = masked_logits(logits, batch["mask"])
        logp_all = jax.nn.log_softmax(logits)
        logp = jnp.take_along_axis(logp_all, batch["action"][:, None], axis=1)[:, 0]
        w = batch["mine"].astype(F32)
        count = jnp.maximum(w.sum(), 1.0)
        adv = batch["adv"]
        ratio = jnp.exp(logp - batch["logp"])
        pg = -jnp.minimum(ratio * adv, jnp.clip(ratio, 1 - cfg.clip, 1 + cfg.clip) * adv)
        v_loss = 0.5 * (value - batch["target"]) ** 2
        probs = jnp.exp(logp_all)
        entropy = -(jnp.where(batch["mask"], probs * logp_all, 0.0)).sum(axis=1)
        total = (pg + cfg.vf_coef * v_loss - cfg.ent_coef * entropy) * w
        if cfg.value_heads:
            total = total + cfg.head_coef * self._head_loss(heads, batch) * w
        return total.sum() / count, (entropy * w).sum() / count

    @staticmethod
    def _head_loss(heads: jax.Array, batch: dict[str, jax.Array]) -> jax.Array:
        """Per sample: the score's squared error, the win's and the ranks' cross-entropy."""
        score = 0.5 * (heads[:, 0] - batch["score"]) ** 2
        win = optax.sigmoid_binary_cross_entropy(heads[:, 1], batch["win"])
        ranks = optax.softmax_cross_entropy(heads[:, 2:], batch["ranks"])
        out: jax.Array = score + win + ranks
        return out

    def _update(self, ts: TrainState, _: Any) -> tuple[TrainState, dict[str, jax.Array]]:
        cfg = self.config
        key, k_roll, k_perm = jax.random.split(ts.key, 3)

        def body(tables: TableState, k: jax.Array) -> tuple[TableState, dict[str, jax.Array]]:
            return self._step(ts.params, ts.pool, tables, k)

        tables, rec = jax.lax.scan(body, ts.tables, jax.random.split(k_roll, cfg.num_steps))
        last_obs = self._learner_input(tables)
        _, last_value, last_heads = self.apply_heads(ts.params, last_obs)
        adv, target = self._advantages(rec, last_value)
        mine = rec["mine"]
        w = mine.astype(F32)
        count = jnp.maximum(w.sum(), 1.0)
        mean = (adv * w).sum() / count
        std = jnp.sqrt((((adv - mean) ** 2) * w).sum() / count) + 1e-8
        flat = {
            "obs": rec["obs"],
            "mask": rec["mask"],
            "action": rec["action"],
            "logp": rec["logp"],
            "mine": mine,
            "adv": (adv - mean) / std,
            "target": target,
        }
        if cfg.value_heads:
            flat.update(self.head_targets(rec, last_heads))
        total = cfg.num_steps * self.batch
        flat = jax.tree_util.tree_map(lambda x: x.reshape(total, *x.shape[2:]), flat)
        grad_fn = jax.value_and_grad(self._loss, has_aux=True)
        policy_on = (ts.update >= cfg.critic_updates).astype(F32)

        def epoch(carry: tuple[Any, Any], k: jax.Array) -> tuple[tuple[Any, Any], jax.Array]:
            perm = jax.random.permutation(k, total)
            shuffled = jax.tree_util.tree_map(
                lambda x: x[perm].reshape(cfg.minibatches, -1, *x.shape[1:]), flat
            )

            def minibatch(
                c: tuple[Any, Any], batch: dict[str, jax.Array]
            ) -> tuple[tuple[Any, Any], jax.Array]:
                params, opt_state = c
                (_, entropy), grads = grad_fn(params, batch)
                if cfg.critic_updates:
                    grads = value_head_only(grads, policy_on)
                updates, opt_state = self.optimizer.update(grads, opt_state, params)
                return (optax.apply_updates(params, updates), opt_state), entropy

            return jax.lax.scan(minibatch, carry, shuffled)

        (params, opt_state), entropy = jax.lax.scan(
            epoch, (ts.params, ts.opt_state), jax.random.split(k_perm, cfg.epochs)
        )
        update = ts.update + 1
        slot = (update // cfg.pool_every) % cfg.pool_size
        refresh = update % cfg.pool_every == 0
        pool = jax.tree_util.tree_map(
            lambda p, x: jnp.where(refresh, p.at[slot].set(x), p), ts.pool, params
        )
        stats = {
            "games": rec["ended"].sum(),
            "wins": rec["won"].sum(),
            "decisions": w.sum(),
            "entropy": entropy.mean(),
        }
        return TrainState(params, opt_state, pool, tables, key, update), stats

    def _learner_input(self, tables: TableState) -> jax.Array:
        """The network's input for the learner's seat at every table (the rollout's end)."""
        parts, at = [], 0
        for g, env in zip(self.groups, tables.env, strict=True):
            learner = tables.learner[at : at + g.size]
            obs = jax.vmap(observe, in_axes=(None, 0, 0))(g.tables, env, learner)
            if g.rewrite is not None:
                obs = g.rewrite(obs)
            if self.config.greedy_input:
                # The hint is the acting seat's: the learner's own only on its turn.
                acting = env.current_player.astype(jnp.int32) == learner
                hint = jax.vmap(greedy_hint, in_axes=(None, 0))(g.tables, env)
                obs = jnp.concatenate([obs, jnp.where(acting[:, None], hint, 0.0)], axis=1)
            parts.append(obs)
            at += g.size
        return jnp.concatenate(parts)

    def _run(self, ts: TrainState, updates: int) -> tuple[TrainState, dict[str, jax.Array]]:
        return jax.lax.scan(self._update, ts, None, length=updates)

    def steps_per_update(self) -> int:
        """Engine steps (all seats' moves) of one update's rollout."""
        return self.config.num_steps * self.batch

    # ------------------------------------------------------ imitation warm start

    def _imitation_init(self, params: Any, key: jax.Array) -> ImitationState:
        """The imitation's start from ``params``: a fresh optimizer state, tables dealt."""
        k_env, key = jax.random.split(key)
        return ImitationState(params, self.imitation_optimizer.init(params), self.deal(k_env), key)

    def _imitation_loss(
        self, params: Any, obs: jax.Array, mask: jax.Array, target: jax.Array
    ) -> tuple[jax.Array, jax.Array]:
        """Masked cross-entropy towards ``target``; and how often the argmax agrees."""
        logits, _ = self.apply(params, obs)
        logits = masked_logits(logits, mask)
        logp = jax.nn.log_softmax(logits)
        nll = -jnp.take_along_axis(logp, target[:, None], axis=1)[:, 0]
        agree = (jnp.argmax(logits, axis=1) == target).astype(F32)
        return nll.mean(), agree.mean()

    def _imitation_step(
        self, st: ImitationState, _: Any
    ) -> tuple[ImitationState, dict[str, jax.Array]]:
        key, k_g, k_s = jax.random.split(st.key, 3)
        envs = st.env
        obs, scores = self._read(envs)
        target = self._greedy_all(envs, k_g, scores)
        grad_fn = jax.value_and_grad(self._imitation_loss, has_aux=True)
        (loss, agree), grads = grad_fn(st.params, obs, self._mask(envs), target)
        updates, opt_state = self.imitation_optimizer.update(grads, st.opt_state, st.params)
        params = optax.apply_updates(st.params, updates)
        envs = self._advance(envs, target, k_s, auto_reset=True)
        return ImitationState(params, opt_state, envs, key), {"loss": loss, "agreement": agree}

    def _imitate(
        self, st: ImitationState, steps: int
    ) -> tuple[ImitationState, dict[str, jax.Array]]:
        """``steps`` supervised steps towards GreedyBot's rule (every seat plays it).

        Each step reads the acting seat's observation at every table, takes one Adam step
        of the masked cross-entropy towards the greedy action (the value head gets no
        gradient, so it is left as it was), then plays that action at every table.
        """
        return jax.lax.scan(self._imitation_step, st, None, length=steps)

    def _warm_start(self, ts: TrainState, params: Any) -> TrainState:
        """``ts`` with ``params`` as the learner, every pool slot and a fresh optimizer."""
        pool = jax.tree_util.tree_map(
            lambda x: jnp.broadcast_to(x, (self.config.pool_size, *x.shape)), params
        )
        return ts._replace(params=params, opt_state=self.optimizer.init(params), pool=pool)

    def imitation_steps_per_step(self) -> int:
        """Engine steps of one imitation step (one move at every table)."""
        return self.batch

    # ------------------------------------------------------------- evaluation

    def _evaluate(self, params: Any, key: jax.Array) -> jax.Array:
        """The win rate of the argmax policy against GreedyBot's rule (one game a table).

        A game still going after ``EVAL_STEPS_PER_SEAT`` engine steps a seat (about four
        times a usual game's length) counts as lost: a policy that stalls does not win.
        """
        e = self.eval_batch
        k_env, k_seat, key = jax.random.split(key, 3)
        envs = self.deal(k_env, e // len(self.groups))
        learner = jax.random.randint(k_seat, (e,), 0, self.n)
        limit = EVAL_STEPS_PER_SEAT * self.n
        Carry = tuple[tuple[State, ...], jax.Array, jax.Array]

        def cond(c: Carry) -> jax.Array:
            going = jnp.concatenate([~s.terminated for s in c[0]]).any()
            return going & (c[2] < limit)

        def body(c: Carry) -> Carry:
            s, k, i = c
            k, k_g, k_s = jax.random.split(k, 3)
            obs, scores = self._read(s)
            logits, _ = self.apply(params, obs)
            mine = jnp.argmax(masked_logits(logits, self._mask(s)), axis=1)
            greedy = self._greedy_all(s, k_g, scores)
            current = jnp.concatenate([t.current_player for t in s])
            act = jnp.where(current == learner, mine, greedy).astype(jnp.int32)
            return self._advance(s, act, k_s, auto_reset=False), k, i + 1

        final, _, _ = jax.lax.while_loop(cond, body, (envs, key, jnp.asarray(0)))
        totals = jnp.concatenate([s._totals for s in final]).astype(F32)
        terminated = jnp.concatenate([s.terminated for s in final])
        own = jnp.take_along_axis(totals, learner[:, None], axis=1)[:, 0]
        won = (own <= totals.min(axis=1)) & terminated
        out: jax.Array = won.mean()
        return out


@functools.cache
def trainer(num_players: int, config: PPOConfig) -> Trainer:
    """The ``Trainer`` of a seat count and config, built once (its programs compile once)."""
    return Trainer(num_players, config)


__all__ = [
    "HEADS",
    "HINT_WEIGHT",
    "Group",
    "ImitationState",
    "PPOConfig",
    "PolicyNetwork",
    "Rewrite",
    "TableState",
    "TrainState",
    "Trainer",
    "learner_input",
    "masked_logits",
    "trainer",
    "value_head_only",
]
