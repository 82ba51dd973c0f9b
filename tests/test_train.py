"""Tests of ``allegra_rules.train``: the JAX greedy rule, the learner's input, PPO runs."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
import pickle
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("flax")
pytest.importorskip("optax")

import jax
import jax.numpy as jnp
import numpy as np

from allegra_rules import (
    GreedyBot,
    Phase,
    RuleConfig,
    apply,
    legal_actions,
    new_game,
    observe,
    preset,
)
from allegra_rules.adapters.features import Encoder
from allegra_rules.bots import SeatEstimate, deck_multiset
from allegra_rules.cli import main
from allegra_rules.config import draw_configs
from allegra_rules.encoding import KNOCK_ID, action_to_id, num_distinct_actions
from allegra_rules.jax import Env, State
from allegra_rules.network_input import RULE_INPUTS, NetworkInput
from allegra_rules.policy import PolicyBot
from allegra_rules.train import (
    PPOConfig,
    TrainOptions,
    greedy_action,
    greedy_hint,
    greedy_scores,
    learner_input,
    learner_reward,
    train,
    write_weights,
)
from allegra_rules.train._ppo import Rewrite, TableState, Trainer, trainer

TINY = PPOConfig(
    num_envs=16,
    num_steps=8,
    hidden=(16, 8),
    epochs=1,
    minibatches=2,
    pool_size=2,
    pool_every=1,
    eval_envs=16,
)
TINY_HINT = dataclasses.replace(TINY, greedy_input=True)

EVALUATION_COMPILE = {"xla_backend_optimization_level": 1}
"""XLA's options for the trainers' evaluation in these tests (the rest: tests/conftest.py).

The suite compiles for a quick compile (``QUICK_COMPILE``), but an evaluation plays its
tables' games to the end, thousands of engine steps in one loop: without LLVM's
optimisations a tiny trainer's evaluation takes about 5 s of CPU, with them 1 s, for
about 2.5 s more compiling. The module's 26 evaluations come from three programs."""


@pytest.fixture(autouse=True, scope="module")
def _evaluations_compiled_to_run() -> Iterator[None]:
    """Every ``Trainer`` of the module compiles its ``evaluate`` with ``EVALUATION_COMPILE``:
    the same function (``Trainer._evaluate``), compiled with other options."""
    init = Trainer.__init__

    def compiled_to_run(self: Trainer, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        self.evaluate = jax.jit(self._evaluate, compiler_options=EVALUATION_COMPILE)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Trainer, "__init__", compiled_to_run)
        yield


ADJACENT = RuleConfig(row_match="adjacent", removed_cards="discard", knocking="always")
"""Rules whose triples are runs side by side (the JAX greedy's second way to find them)."""


@pytest.mark.parametrize(
    ("players", "config"),
    [(2, None), (4, None), (2, ADJACENT), (3, ADJACENT)],
    ids=["2", "4", "2-adjacent", "3-adjacent"],
)
def test_jax_greedy_scores_every_action_as_greedybot_does(
    players: int, config: RuleConfig | None
) -> None:
    env = Env(players, config)
    scores = jax.jit(lambda s: greedy_scores(env.tables, s))
    choose = jax.jit(lambda s, k: greedy_action(env.tables, s, k))
    checked = 0
    for seed in range(2 if config is None else 1):
        state = new_game(players, seed=seed, config=config)
        bot, rng = GreedyBot(seed), random.Random(seed)
        while not state.is_terminal:
            legal = legal_actions(state)
            seat = state.current_player
            assert seat is not None
            if len(legal) > 1:
                table = env.from_state(state)
                got = np.asarray(scores(table))
                choice = int(choose(table, jax.random.key(checked)))
                if state.phase is Phase.KNOCK:
                    assert (got[KNOCK_ID] > 0) == bot._wants_to_knock(state, seat)
                    assert choice == action_to_id(bot.choose(state), players)
                else:
                    view = SeatEstimate(
                        observe(state, seat), state.geometry, deck_multiset(state.config)
                    )
                    want = {action_to_id(a, players): bot.score(view, state, a) for a in legal}
                    for action_id, value in want.items():
                        if value == float("-inf"):
                            assert got[action_id] < -1e8
                        else:
                            assert got[action_id] == pytest.approx(value, abs=1e-3)
                    assert want[choice] >= max(want.values()) - 1e-3
                checked += 1
            # Mostly GreedyBot's own games, with random moves for varied positions.
            action = bot.choose(state) if rng.random() < 0.7 else rng.choice(legal)
            state = apply(state, action)
    assert checked > 100


@pytest.mark.parametrize("players", [2, 4])
def test_the_greedy_hint_is_greedybots_scores_as_the_network_reads_them(players: int) -> None:
    env = Env(players)
    hint = jax.jit(lambda s: greedy_hint(env.tables, s))
    state, rng = new_game(players, seed=7), random.Random(7)
    bot, checked, knocks = GreedyBot(7), 0, 0
    while not state.is_terminal and checked < 300:
        scores = GreedyBot(0).action_scores(state)
        # The formula: each legal id's score clipped to 50 points either way, over 10.
        assert GreedyBot(0).hint(state) == {
            a: max(-50.0, min(50.0, v)) / 10 for a, v in scores.items()
        }
        want = np.zeros(num_distinct_actions(players), np.float32)
        for action, value in GreedyBot(0).hint(state).items():
            want[action_to_id(action, players)] = value
        np.testing.assert_allclose(np.asarray(hint(env.from_state(state))), want, atol=1e-4)
        knocks += state.phase is Phase.KNOCK
        checked += 1
        legal = legal_actions(state)
        action = bot.choose(state) if rng.random() < 0.7 else rng.choice(legal)
        state = apply(state, action)
    assert checked > 150 and knocks > 0


@pytest.mark.parametrize("players", [2, 4])
def test_a_step_reads_the_hint_and_the_greedy_moves_from_one_scoring(players: int) -> None:
    tr = trainer(players, TINY_HINT)
    # 4 batches of 16 tables met while GreedyBot's rule plays every seat (25 steps
    # apart: the imitation program of the greedy-input run's test, compiled once).
    run = tr.imitation_init(tr.init(jax.random.key(2)).params, jax.random.key(8))
    batches = []
    for _ in range(4):
        run, _ = tr.imitate(run, 25)
        (one,) = run.env  # one config: preset seeds
        batches.append(one)
    env = jax.tree_util.tree_map(lambda *xs: jnp.concatenate(xs), *batches)
    # Compiled once each (run op by op, these took most of the test's time).
    obs, (scores,) = jax.jit(tr._read)((env,))
    assert scores is not None
    np.testing.assert_array_equal(np.asarray(obs), np.asarray(jax.jit(tr.input)(env)))
    greedy = jax.jit(functools.partial(tr._greedy, tr.groups[0]))
    alone = jax.jit(jax.vmap(lambda s, k: greedy_action(tr.tables, s, k)))
    for seed in range(3):
        key = jax.random.key(seed)
        shared = np.asarray(greedy(env, key, scores))
        np.testing.assert_array_equal(shared, np.asarray(alone(env, jax.random.split(key, 64))))
        assert np.asarray(env.legal_action_mask)[np.arange(64), shared].all()
    # Without the hint the input is the features alone and nothing is scored ahead.
    plain_obs, (plain_scores,) = jax.jit(trainer(players, TINY)._read)((env,))
    assert plain_scores is None
    np.testing.assert_array_equal(np.asarray(plain_obs), np.asarray(env.observation))


def _hidden_twin(players: int) -> tuple[object, object, int]:
    """Two tables that the acting seat cannot tell apart, and that seat.

    The second one has the draw pile's order reversed and one face-down card of another
    seat exchanged with a draw-pile card of another value.
    """
    env = Env(players)
    state = env.from_state(new_game(players, seed=3))
    seat = int(state.current_player)
    draw_len = int(state._draw_len)
    draw = np.asarray(state._draw).copy()
    draw[:draw_len] = draw[:draw_len][::-1]
    cells = np.asarray(state._cells).copy()
    face_down = np.asarray(state._face_down)
    other = next(
        i for i in range(len(cells)) if i // 12 != seat and face_down[i] and cells[i] != draw[0]
    )
    cells[other], draw[0] = draw[0], cells[other]
    twin = state.replace(_draw=jnp.asarray(draw), _cells=jnp.asarray(cells))
    assert not np.array_equal(np.asarray(twin._cells), np.asarray(state._cells))
    return state, twin, seat


@pytest.mark.parametrize("players", [2, 4])
def test_the_learner_reads_only_what_its_seat_may_see(players: int) -> None:
    state, twin, seat = _hidden_twin(players)
    assert int(twin.current_player) == seat  # type: ignore[attr-defined]
    # Each function compiled once, as training compiles it (not op by op).
    read = jax.jit(learner_input)
    a, b = read(state), read(twin)
    assert a.shape == (Encoder(preset("seeds"), players).size,)
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    t = trainer(players, TINY)
    params = t.init(jax.random.key(0)).params
    policy = jax.jit(lambda x: t.apply(params, x)[0])
    np.testing.assert_array_equal(np.asarray(policy(a)), np.asarray(policy(b)))
    # The opponents' rule reads no hidden card either.
    scores = jax.jit(lambda table: greedy_scores(Env(players).tables, table))
    np.testing.assert_array_equal(np.asarray(scores(state)), np.asarray(scores(twin)))
    # Nor does the greedy hint that a network of greedy_input reads beside the features.
    tables = Env(players).tables
    read = jax.jit(lambda table: learner_input(table, tables))
    a, b = read(state), read(twin)
    assert a.shape == (Encoder(preset("seeds"), players).size + num_distinct_actions(players),)
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert np.asarray(a)[-num_distinct_actions(players) :].any()


def _load(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as f:
        return {k: f[k] for k in f.files}


TINY_RUN = TrainOptions(
    seats=(2,), ppo=TINY, seed=5, updates=2, chunk=1, command="x", imitate=25, imitate_chunk=25
)
"""The module's tiny run: two PPO updates after 25 imitation steps, at two seats."""


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    """``TINY_RUN`` trained once for the module: its result and its folder, which holds
    its weights (``a.npz``) and its history (``h.json``)."""
    folder = tmp_path_factory.mktemp("tiny_run")
    options = {**TINY_RUN.__dict__, "out": folder / "a.npz", "history": folder / "h.json"}
    return train(TrainOptions(**options)), folder


def test_a_tiny_run_writes_the_weights_file_and_repeats_itself(
    tiny_run: tuple[Any, Path], tmp_path: Path
) -> None:
    first, folder = tiny_run
    again = train(TrainOptions(**{**TINY_RUN.__dict__, "out": tmp_path / "b.npz"}))
    a, b = _load(folder / "a.npz"), _load(tmp_path / "b.npz")
    meta = json.loads(str(a.pop("meta")))
    b.pop("meta")
    assert meta["format"] == 1 and meta["seat_counts"] == [2] and meta["updates"] == 2
    assert meta["hidden"] == [16, 8] and meta["config_fingerprint"] == preset("seeds").fingerprint
    assert meta["imitation_steps"] == first.imitated == 25
    assert meta["env_steps"] == first.env_steps == 2 * 16 * 8 + 25 * 16
    assert 0.0 <= meta["win_rate_vs_greedy"]["2"] <= 1.0
    size, actions = Encoder(preset("seeds"), 2).size, num_distinct_actions(2)
    shapes = {"w0": (size, 16), "b0": (16,), "w1": (16, 8), "b1": (8,)}
    shapes |= {"pi_w": (8, actions), "pi_b": (actions,), "v_w": (8, 1), "v_b": (1,)}
    assert {k: v.shape for k, v in a.items()} == {f"2/{k}": s for k, s in shapes.items()}
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])
    assert again.updates == 2
    history = json.loads((folder / "h.json").read_text())
    assert [point["updates"] for point in history] == [0, 1, 2]
    assert [point["phase"] for point in history] == ["imitation", "ppo", "ppo"]
    assert history[0]["imitation"] == 25 and 0.0 <= history[0]["win_rate"]["2"] <= 1.0
    # The trained network differs from its initial weights.
    initial = trainer(2, TINY).init(jax.random.split(jax.random.key(5), 2)[0]).params
    assert not np.array_equal(
        np.asarray(initial["params"]["hidden_0"]["kernel"], np.float16), a["2/w0"]
    )


def test_a_resumed_run_ends_with_the_weights_of_an_unbroken_one(
    tiny_run: tuple[Any, Path], tmp_path: Path
) -> None:
    """``TINY_RUN`` broken off after one update and resumed: the unbroken run's weights."""
    straight, folder = tiny_run
    train(dataclasses.replace(TINY_RUN, updates=1, checkpoint=tmp_path / "c"))
    # Without keep_best, no candidate network is copied into the checkpoint.
    with (tmp_path / "c" / "checkpoint.pkl").open("rb") as f:
        assert pickle.load(f)["extra"]["kept"] == {}
    resumed = train(
        dataclasses.replace(
            TINY_RUN, checkpoint=tmp_path / "c", resume=True, out=tmp_path / "r.npz"
        )
    )
    assert resumed.updates == straight.updates == 2
    r, s = _load(tmp_path / "r.npz"), _load(folder / "a.npz")
    for key in r:
        if key != "meta":
            np.testing.assert_array_equal(r[key], s[key])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_relative_reward_takes_the_others_mean_off_the_learners_own(players: int) -> None:
    rng = np.random.default_rng(players)
    rewards = rng.normal(size=(32, players)).astype(np.float32)
    learner = rng.integers(0, players, size=32).astype(np.int32)
    for relative in (0.0, 0.5, 1.0):
        got = np.asarray(learner_reward(jnp.asarray(rewards), jnp.asarray(learner), relative))
        for t in range(32):
            own = float(rewards[t, learner[t]])
            others = [float(rewards[t, s]) for s in range(players) if s != learner[t]]
            assert got[t] == pytest.approx(own - relative * sum(others) / len(others), abs=1e-5)
    if players == 2:
        # Heads-up with weight 1 the reward is zero-sum: the two seats' rewards cancel.
        seat0 = learner_reward(jnp.asarray(rewards), jnp.zeros(32, jnp.int32), 1.0)
        seat1 = learner_reward(jnp.asarray(rewards), jnp.ones(32, jnp.int32), 1.0)
        np.testing.assert_allclose(np.asarray(seat0), -np.asarray(seat1), atol=1e-6)


def test_the_rollout_rewards_the_learner_with_the_relative_reward_and_the_bonus() -> None:
    config = dataclasses.replace(
        TINY, relative=1.0, win_bonus=3.0, num_envs=32, greedy_share=0.0, pool_share=0.0
    )
    tr = trainer(3, config)
    ts = tr.init(jax.random.key(3))

    def one(tables: TableState, key: jax.Array) -> tuple[TableState, dict[str, jax.Array]]:
        after, record = tr._step(ts.params, ts.pool, tables, key)
        seen = {"rewards": after.env[0].rewards, "learner": tables.learner}
        return after, {**record, **seen}

    roll = jax.jit(lambda t, k: jax.lax.scan(one, t, jax.random.split(k, 600)))
    _, out = roll(ts.tables, jax.random.key(4))
    rewards = np.asarray(out["rewards"]).reshape(-1, 3)
    learner = np.asarray(out["learner"]).reshape(-1)
    own = rewards[np.arange(len(learner)), learner]
    others = (rewards.sum(axis=1) - own) / 2
    bonus = np.where(np.asarray(out["won"]).reshape(-1), 3.0, 0.0)
    got = np.asarray(out["reward"]).reshape(-1)
    np.testing.assert_allclose(got, own - others + bonus, atol=1e-5)
    # The check saw rounds settled and games won, not only zeros.
    assert (np.abs(rewards) > 0).any(axis=1).sum() > 0
    assert bonus.sum() > 0


def _moved(before: object, after: object) -> list[bool]:
    """For every weight array of ``before``, whether ``after`` differs in it."""
    pairs = zip(jax.tree_util.tree_leaves(before), jax.tree_util.tree_leaves(after), strict=True)
    return [not np.array_equal(np.asarray(a), np.asarray(b)) for a, b in pairs]


def test_the_critic_updates_move_the_value_head_alone() -> None:
    tr = trainer(2, dataclasses.replace(TINY, critic_updates=2))
    start = tr.init(jax.random.key(7))
    # Update by update (one compiled program): the first two fit the value head alone.
    fitted, _ = tr.run(tr.run(start, 1)[0], 1)
    assert int(fitted.update) == 2
    held = ("hidden_0", "hidden_1", "policy")
    for name in held:
        assert not any(_moved(start.params["params"][name], fitted.params["params"][name])), name
    assert all(_moved(start.params["params"]["value"], fitted.params["params"]["value"]))
    # The next update is an ordinary one: the policy and the shared layers move too.
    after, _ = tr.run(fitted, 1)
    for name in held:
        assert any(_moved(fitted.params["params"][name], after.params["params"][name])), name


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--critic-updates", "-1"], "--critic-updates must be 0 or more; got -1"),
        (["--imitate", "-3"], "--imitate must be 0 or more; got -3"),
        (["--num-envs", "12"], "--num-envs must be a multiple of 8, at least 8; got 12"),
        (["--seats", "7"], "--seats must be 2..6; got [7]"),
        (["--precision", "int4"], "invalid choice: 'int4'"),
        (["--relative", "1.5"], "--relative must be between 0 and 1; got 1.5"),
        (["--relative", "-0.1"], "--relative must be between 0 and 1; got -0.1"),
        (["--rules", "fr"], "--rules needs --rules-input"),
        (["--rules-input", "--rules", "random:0"], "random:K needs a count K of 1 or more"),
        (["--rules-input", "--rules", "nope"], "--rules: "),
        (["--rules-input", "--rules", "random:9", "--num-envs", "8"], "at least the number"),
    ],
)
def test_train_refuses_wrong_options_with_the_reason(
    arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["train", "--updates", "1", *arguments]) == 2
    assert message in capsys.readouterr().err


def test_8bit_weights_are_the_network_within_half_a_step_and_play_as_it_does(
    tmp_path: Path,
) -> None:
    initial = trainer(2, dataclasses.replace(TINY, hidden=(64, 32))).init(jax.random.key(1)).params
    # Weights of a trained network's size (the initial policy head is nearly zero).
    rng = np.random.default_rng(0)
    params = jax.tree_util.tree_map(
        lambda x: rng.standard_normal(x.shape) / np.sqrt(x.shape[0]), initial
    )
    meta = {
        "preset": "seeds",
        "config_fingerprint": preset("seeds").fingerprint,
        "seat_counts": [2],
        "hidden": [64, 32],
    }
    sizes = {
        precision: write_weights(tmp_path / f"{precision}.npz", {2: params}, meta, precision)
        for precision in ("float32", "float16", "int8")
    }
    assert sizes["int8"] < 0.6 * sizes["float16"] < 0.6 * sizes["float32"]
    eight = _load(tmp_path / "int8.npz")
    assert json.loads(str(eight.pop("meta"))) == {**meta, "format": 2, "precision": "int8"}
    layers = {"w0": "hidden_0", "w1": "hidden_1", "pi_w": "policy", "v_w": "value"}
    for name, layer in layers.items():
        kernel = np.asarray(params["params"][layer]["kernel"], np.float32)
        q, scale = eight[f"2/{name}"], eight[f"2/{name}_scale"]
        assert q.dtype == np.int8 and scale.dtype == np.float32
        assert scale.shape == (kernel.shape[1],)
        assert (np.abs(q).max(axis=0) == 127).all()  # each column uses the whole range
        assert (np.abs(q * scale - kernel) <= scale / 2 + 1e-7).all()
    float32 = PolicyBot(0, weights=tmp_path / "float32.npz")
    int8 = PolicyBot(0, weights=tmp_path / "int8.npz")
    assert json.loads(str(_load(tmp_path / "float16.npz")["meta"]))["format"] == 1
    state, exact, near = new_game(2, seed=3), [], []
    for _ in range(40):
        if state.is_terminal:
            break
        legal, logits = float32._legal_logits(state)
        exact += logits
        near += int8._legal_logits(state)[1]
        state = apply(state, legal[0])
    error = np.linalg.norm(np.subtract(near, exact)) / np.linalg.norm(exact)
    assert len(exact) > 100 and error < 0.03
    with pytest.raises(ValueError, match="precision must be one of"):
        TrainOptions(precision="int4")


@pytest.mark.parametrize("precision", ["float32", "int8"])
def test_a_network_of_the_greedy_hint_plays_in_policybot_as_in_jax(
    tmp_path: Path, precision: str
) -> None:
    tr = trainer(2, dataclasses.replace(TINY_HINT, hidden=(64, 32)))
    initial = tr.init(jax.random.key(1)).params
    assert np.asarray(initial["params"]["hint"]).tolist() == [10.0] * tr.env.num_actions
    rng = np.random.default_rng(2)
    params = jax.tree_util.tree_map(
        lambda x: rng.standard_normal(x.shape) / np.sqrt(x.shape[0]), initial
    )
    params["params"]["hint"] = rng.uniform(2.0, 12.0, tr.env.num_actions)
    meta = {"preset": "seeds", "config_fingerprint": preset("seeds").fingerprint}
    write_weights(tmp_path / "w.npz", {2: params}, {**meta, "seat_counts": [2]}, precision)
    arrays = _load(tmp_path / "w.npz")
    assert json.loads(str(arrays["meta"]))["format"] == 3
    size, actions = Encoder(preset("seeds"), 2).size, num_distinct_actions(2)
    assert arrays["2/w0"].shape == (size + actions, 64)
    assert arrays["2/hint"].dtype == np.float32 and arrays["2/hint"].shape == (actions,)
    bot = PolicyBot(0, weights=tmp_path / "w.npz")
    apply_net = jax.jit(lambda table: tr.apply(params, learner_input(table, tr.tables))[0])
    state, compared, error, scale = new_game(2, seed=8), 0, 0.0, 0.0
    while not state.is_terminal and compared < 60:
        legal, logits = bot._legal_logits(state)
        if len(legal) > 1:
            ids = [action_to_id(a, 2) for a in legal]
            want = np.asarray(apply_net(tr.env.from_state(state)))[ids]
            error = max(error, float(np.abs(np.subtract(logits, want)).max()))
            scale = max(scale, float(np.abs(want).max()))
            compared += 1
        state = apply(state, GreedyBot(compared).choose(state))
    # float32: the same arithmetic up to rounding; int8: within a few per cent.
    assert compared == 60 and error <= (1e-3 if precision == "float32" else 0.05) * scale


def test_a_run_with_the_greedy_input_writes_weights_of_format_3(tmp_path: Path) -> None:
    options = TrainOptions(
        seats=(2,), ppo=TINY_HINT, seed=5, updates=1, chunk=1, command="x", imitate=25
    )
    train(TrainOptions(**{**options.__dict__, "out": tmp_path / "h.npz"}))
    arrays = _load(tmp_path / "h.npz")
    meta = json.loads(str(arrays.pop("meta")))
    assert meta["format"] == 3 and meta["greedy_input"] is True
    assert meta["ppo"]["greedy_input"] is True
    size, actions = Encoder(preset("seeds"), 2).size, num_distinct_actions(2)
    assert arrays["2/w0"].shape == (size + actions, 16)
    # Imitation and PPO moved the hint's weights away from where they started.
    assert not np.allclose(arrays["2/hint"], 10.0)
    state = new_game(2, seed=1)
    bots = [PolicyBot(p, weights=tmp_path / "h.npz") for p in range(2)]
    while not state.is_terminal:
        state = apply(state, bots[state.current_player or 0].choose(state))
    assert len(state.round_scores) == 3


def test_the_command_line_passes_the_greedy_input_on(monkeypatch: pytest.MonkeyPatch) -> None:
    import allegra_rules.train as train_module

    seen: list[TrainOptions] = []

    class Stop(Exception):
        pass

    def fake(options: TrainOptions, report: object = None) -> None:
        seen.append(options)
        raise Stop

    monkeypatch.setattr(train_module, "train", fake)
    for extra, wanted in (([], False), (["--greedy-input"], True)):
        assert main(["train", "--updates", "1", "--no-progress", *extra]) != 0  # Stop
        assert seen[-1].ppo.greedy_input is wanted
    assert seen[-1].ppo.rules == () and not seen[-1].ppo.rules_input
    main(["train", "--updates", "1", "--no-progress", "--rules-input"])
    assert seen[-1].ppo.rules_input
    assert seen[-1].ppo.rules == (preset("seeds"), preset("fr"), preset("published"))
    drawn = ["--rules", "fr", "random:2", "--seed", "4"]
    main(["train", "--updates", "1", "--no-progress", "--rules-input", *drawn])
    assert seen[-1].ppo.rules == (preset("fr"), *draw_configs(4, 2))


RULES_CUSTOM = RuleConfig(
    deck={-5: 20, 0: 20, 4: 30, 30: 20}, knocking="never", setup_reveals="simultaneous"
)
"""Rules no preset has, on a deck whose values do not fit the card slots' -2..13."""

TINY_RULES = dataclasses.replace(
    TINY, rules_input=True, rules=(preset("fr"), RULES_CUSTOM), value_heads=True
)


def test_several_configs_need_the_rules_input_and_an_equal_share_of_tables() -> None:
    with pytest.raises(ValueError, match="needs rules_input"):
        Trainer(2, dataclasses.replace(TINY_RULES, rules_input=False))
    with pytest.raises(ValueError, match="value heads need rules_input"):
        Trainer(2, dataclasses.replace(TINY, value_heads=True))
    with pytest.raises(ValueError, match="at least the number of configs"):
        Trainer(2, dataclasses.replace(TINY_RULES, eval_envs=1))
    odd = Trainer(2, dataclasses.replace(TINY_RULES, num_envs=15, eval_envs=9))
    assert (odd.batch, odd.eval_batch, [g.size for g in odd.groups]) == (14, 8, [7, 7])


@pytest.mark.parametrize("config", [RULES_CUSTOM, preset("fr")], ids=["custom", "fr"])
def test_the_batched_input_is_network_input_in_lock_step(config: RuleConfig) -> None:
    env, network_input = Env(3, config), NetworkInput(config, 3)
    rewrite = jax.jit(Rewrite(network_input))
    rng, state, checked = random.Random(2), new_game(3, seed=3, config=config), 0
    while not state.is_terminal and checked < 120:
        seat = state.current_player
        want = network_input.features(observe(state, seat))
        got = np.asarray(rewrite(env.observe(env.from_state(state), seat or 0)))
        np.testing.assert_allclose(got, np.asarray(want, np.float32), atol=1e-6)
        checked += 1
        state = apply(state, rng.choice(legal_actions(state)))
    assert checked == 120


def test_the_value_heads_learn_each_decisions_next_round_end_and_game_end() -> None:
    # One table of two seats, eight steps: a round ends at steps 2 and 5, the game at 5.
    ends = [False, False, True, False, False, True, False, False]
    rec = {
        "round_end": jnp.asarray([[e] for e in ends]),
        "margin": jnp.asarray([[0.1 * t] for t in range(8)], jnp.float32),
        "ended": jnp.asarray([[t == 5] for t in range(8)]),
        "won": jnp.asarray([[t == 5] for t in range(8)]),
        "rank": jnp.asarray([[1 if t == 5 else 0] for t in range(8)], jnp.int32),
    }
    # The heads' predictions at the rollout's end: margin 0.7, win logit 0, ranks 3:1.
    last = jnp.asarray([[0.7, 0.0, np.log(3.0), 0.0]], jnp.float32)
    got = {k: np.asarray(v)[:, 0] for k, v in Trainer.head_targets(rec, last).items()}
    np.testing.assert_allclose(got["score"], [0.2, 0.2, 0.2, 0.5, 0.5, 0.5, 0.7, 0.7])
    np.testing.assert_allclose(got["win"], [1.0] * 6 + [0.5] * 2)
    np.testing.assert_allclose(got["ranks"], [[0.0, 1.0]] * 6 + [[0.75, 0.25]] * 2, rtol=1e-6)


def test_a_run_of_several_configs_writes_format_4_that_plays_every_config(
    tmp_path: Path,
) -> None:
    options = TrainOptions(
        seats=(2,), ppo=TINY_RULES, seed=2, updates=1, chunk=1, command="x", imitate=5
    )
    options = dataclasses.replace(options, out=tmp_path / "r.npz", precision="float32")
    result = train(options)
    arrays = _load(tmp_path / "r.npz")
    meta = json.loads(str(arrays.pop("meta")))
    assert meta["format"] == 4 and "config_fingerprint" not in meta and meta["value_heads"]
    assert meta["trained_on"] == ["fr", RULES_CUSTOM.to_dict()]
    assert meta["rule_inputs"] == [[name, list(c)] for name, c in RULE_INPUTS]
    assert meta["ppo"]["rules"] == [preset("fr").to_dict(), RULES_CUSTOM.to_dict()]
    size = NetworkInput(RULES_CUSTOM, 2).size
    assert arrays["2/w0"].shape == (size, 16)
    assert arrays["2/heads_w"].shape == (8, 2 + 2) and arrays["2/heads_b"].shape == (4,)
    # PolicyBot computes what the network computed in JAX, on a trained config...
    tr = trainer(2, TINY_RULES)
    bot = PolicyBot(0, weights=tmp_path / "r.npz")
    apply_net = jax.jit(lambda table: tr.apply_heads(result.params[2], tr.input(table, 1)))
    env, state, compared = tr.groups[1].env, new_game(2, seed=8, config=RULES_CUSTOM), 0
    while not state.is_terminal and compared < 40:
        legal, logits = bot._legal_logits(state)
        if len(legal) > 1:
            ids = [action_to_id(a, 2) for a in legal]
            all_logits, _, heads = (np.asarray(x) for x in apply_net(env.from_state(state)))
            np.testing.assert_allclose(logits, all_logits[ids], rtol=1e-4, atol=1e-4)
            # ... and the value heads: the margin, the win's and the ranks' probabilities.
            value = bot.value(state)
            ranks = np.exp(heads[2:] - heads[2:].max())
            want = [heads[0], 1 / (1 + np.exp(-heads[1])), *(ranks / ranks.sum())]
            np.testing.assert_allclose([value.margin, value.win, *value.ranks], want, atol=1e-4)
            compared += 1
        state = apply(state, GreedyBot(compared).choose(state))
    assert compared == 40
    # ... and plays rules it never met, an extreme deck among them, to the end.
    for config in (*draw_configs(9, 1), RuleConfig(deck={-900: 20, 0: 10, 800: 30})):
        state = new_game(2, seed=1, config=config)
        bots = [PolicyBot(p, weights=tmp_path / "r.npz") for p in range(2)]
        while not state.is_terminal:
            state = apply(state, bots[state.current_player or 0].choose(state))
        assert len(state.round_scores) == 3


def test_keep_best_writes_the_best_evaluated_network_and_survives_a_resume(
    tmp_path: Path,
) -> None:
    # The greedy hint's network wins often enough that its win rates differ, and it is
    # the format-3 run's network: the two tests share their compiled programs.
    base = {"seats": (2,), "ppo": TINY_HINT, "seed": 0, "chunk": 1, "command": "x"}
    base |= {"imitate": 25, "keep_best": True}
    kept = train(
        TrainOptions(**base, updates=4, out=tmp_path / "k.npz", history=tmp_path / "h.json")  # type: ignore[arg-type]
    )
    history = json.loads((tmp_path / "h.json").read_text())
    rates = [point["win_rate"]["2"] for point in history]
    best = history[rates.index(max(rates))]["updates"]  # the first of the best
    # This seed's run is one where the kept network is neither the first nor the last.
    assert best not in (0, 4), rates
    meta = json.loads(str(_load(tmp_path / "k.npz")["meta"]))
    assert meta["keep_best"] is True
    assert meta["kept"] == {"2": {"updates": best, "win_rate": max(rates)}} == kept.kept
    assert meta["win_rate_vs_greedy"] == {"2": max(rates)}
    # The same run stopped at that update writes the same weights.
    train(TrainOptions(**{**base, "keep_best": False}, updates=best, out=tmp_path / "s.npz"))  # type: ignore[arg-type]
    # A run broken off after one update and resumed keeps the same network.
    train(TrainOptions(**base, updates=1, checkpoint=tmp_path / "c"))  # type: ignore[arg-type]
    train(
        TrainOptions(
            **base, updates=4, checkpoint=tmp_path / "c", resume=True, out=tmp_path / "r.npz"
        )  # type: ignore[arg-type]
    )
    k, s, r = (_load(tmp_path / f"{name}.npz") for name in ("k", "s", "r"))
    assert json.loads(str(r["meta"]))["kept"] == meta["kept"]
    for key in k:
        if key != "meta":
            np.testing.assert_array_equal(k[key], s[key])
            np.testing.assert_array_equal(k[key], r[key])


@functools.partial(jax.jit, static_argnums=0)
def _agreement(players: int, params: Any, tables: State, key: jax.Array) -> jax.Array:
    """How often the network's greedy choice is GreedyBot's rule's at ``tables``
    (one compiled program: op by op, JAX would compile each operation on its own)."""
    tr = trainer(players, TINY)
    logits, _ = tr.apply(params, learner_input(tables))
    mine = jnp.argmax(jnp.where(tables.legal_action_mask, logits, -1e9), axis=1)
    keys = jax.random.split(key, mine.shape[0])
    greedy = jax.vmap(lambda s, k: greedy_action(tr.tables, s, k))(tables, keys)
    return (mine == greedy).mean()


def test_imitation_makes_the_network_choose_what_greedybot_chooses() -> None:
    tr = trainer(2, TINY)
    untrained = tr.init(jax.random.key(3)).params
    # Held-out tables: 8 batches of 16 tables met while GreedyBot's rule plays every seat
    # (the imitation's own tables, its weights thrown away).
    held = tr.imitation_init(untrained, jax.random.key(11))
    batches = []
    for _ in range(8):
        held, _ = tr.imitate(held, 25)
        batches.append(held.env[0])
    fixed = jax.tree_util.tree_map(lambda *xs: jnp.concatenate(xs), *batches)
    run = tr.imitation_init(untrained, jax.random.key(4))
    for _ in range(12):
        run, stats = tr.imitate(run, 25)
    before = float(_agreement(2, untrained, fixed, jax.random.key(5)))
    after = float(_agreement(2, run.params, fixed, jax.random.key(5)))
    assert after >= before + 0.25, (before, after)
    assert float(stats["agreement"][-5:].mean()) > before
    # The value head gets no gradient: it is left as it was.
    np.testing.assert_array_equal(
        np.asarray(run.params["params"]["value"]["kernel"]),
        np.asarray(untrained["params"]["value"]["kernel"]),
    )


def test_train_without_the_extra_names_the_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "allegra_rules.train", None)
    assert main(["train", "--updates", "1"]) == 1
    assert 'pip install ".[train]"' in capsys.readouterr().err


def test_the_curve_draws_each_seat_counts_par_in_its_colour() -> None:
    from xml.etree import ElementTree

    from allegra_rules.train._export import curve_svg

    history = [
        {"minutes": 1.0, "win_rate": {"2": 0.4, "4": 0.1}},
        {"minutes": 2.0, "win_rate": {"2": 0.7, "4": 0.2}},
    ]
    root = ElementTree.fromstring(curve_svg(history))
    ns = "{http://www.w3.org/2000/svg}"
    dashed = [e for e in root.iter(f"{ns}line") if e.get("stroke-dasharray")]
    lines = {e.get("stroke"): float(e.get("y1", "nan")) for e in dashed}
    colours = {e.get("stroke") for e in root.iter(f"{ns}polyline")}  # a line a seat count
    assert len(dashed) == 2 and set(lines) == set(colours)
    labels = {e.text: e.get("fill") for e in root.iter(f"{ns}text")}
    top, bottom = 24, 360 - 44  # the plot's edges: a win rate v is at top + (1 - v) * height
    for n, par in ((2, 0.5), (4, 0.25)):
        colour = labels[f"par, {n} seats"]
        assert colour == labels[f"{n} seats"]
        assert lines[colour] == pytest.approx(top + (bottom - top) * (1 - par), abs=0.1)


@pytest.mark.parametrize("most", [0.0, 0.1, 1.0, 2.0, 7.5, 14.9, 59.3, 60.0, 61.0, 400.0])
def test_the_curves_minutes_are_marked_at_round_numbers_to_past_the_end(most: float) -> None:
    from xml.etree import ElementTree

    from allegra_rules.train._export import curve_svg, minute_ticks

    ticks = minute_ticks(most)
    step = ticks[1] - ticks[0]
    assert ticks[0] == 0.0 and 2 <= len(ticks) <= 7
    assert ticks == pytest.approx([step * i for i in range(len(ticks))])
    assert step in (0.25, 0.5, 1, 2, 5, 10, 15, 20, 30) or step % 60 == 0
    assert ticks[-2] < most <= ticks[-1] or (most == 0.0 and ticks == [0.0, 0.25])
    # The picture marks those minutes, its axis ending on the last one.
    history = [{"minutes": most, "win_rate": {"2": 0.5}}]
    root = ElementTree.fromstring(curve_svg(history))
    ns = "{http://www.w3.org/2000/svg}"
    below = [e for e in root.iter(f"{ns}text") if e.get("y") == str(360 - 44 + 16)]
    assert [float(e.text or "nan") for e in below] == pytest.approx(ticks)
    xs = [float(e.get("x", "nan")) for e in below]
    assert xs[0] == pytest.approx(56) and xs[-1] == pytest.approx(640 - 110)


def test_a_two_minute_run_is_not_marked_with_repeated_whole_minutes() -> None:
    from allegra_rules.train._export import minute_ticks

    assert minute_ticks(2.0) == [0.0, 0.5, 1.0, 1.5, 2.0]
    assert minute_ticks(59.3) == [0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0]
    with pytest.raises(ValueError, match="at_most"):
        minute_ticks(5.0, at_most=1)


@pytest.mark.parametrize(
    "last",
    [
        {"2": 0.5, "4": 0.25},  # both curves end on their par
        {"2": 0.26, "4": 0.25},  # all four labels crowd one place
        {"2": 1.0, "4": 0.99},  # at the top edge
        {"2": 0.0, "4": 0.01},  # at the bottom edge
        {"2": 0.8, "4": 0.1},  # nothing to move
    ],
)
def test_the_curves_labels_never_overlap_and_stay_in_order(last: dict[str, float]) -> None:
    from xml.etree import ElementTree

    from allegra_rules.train._export import LABEL_GAP, curve_svg

    history = [
        {"minutes": 1.0, "win_rate": {"2": 0.4, "4": 0.1}},
        {"minutes": 2.0, "win_rate": last},
    ]
    root = ElementTree.fromstring(curve_svg(history))
    ns = "{http://www.w3.org/2000/svg}"
    top, bottom = 24, 360 - 44
    edge = [e for e in root.iter(f"{ns}text") if e.text and "seats" in e.text]
    assert len(edge) == 4
    ys = {e.text: float(e.get("y", "nan")) - 4 for e in edge}
    where = {  # the height of the line each label names
        "par, 2 seats": top + (bottom - top) * 0.5,
        "par, 4 seats": top + (bottom - top) * 0.75,
        "2 seats": top + (bottom - top) * (1 - last["2"]),
        "4 seats": top + (bottom - top) * (1 - last["4"]),
    }
    placed = sorted(ys.values())
    assert all(b - a >= LABEL_GAP - 0.1 for a, b in itertools.pairwise(placed))
    assert all(top - 0.1 <= v <= bottom + 0.1 for v in placed)
    # The labels keep the order of their lines (ties aside), and one with room stays put.
    order = sorted(ys, key=lambda t: (where[t], ys[t]))
    assert [ys[t] for t in order] == placed
    if last == {"2": 0.8, "4": 0.1}:
        assert all(ys[t] == pytest.approx(where[t], abs=0.1) for t in ys)
