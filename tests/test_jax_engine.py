"""The batched engine in lock-step with the scalar one: every field, every mask, every observation.

Along scalar games, at every step: ``to_state(from_state(s)) == s``, the legal-action mask,
the observation, the rewards, and the state after each action (exactly; when a shuffle
happened, up to the order of the shuffled cards). Along the batched engine's own random
games: every state it reaches is one the scalar loader accepts, and the scalar engine
agrees with each step. One ``Env`` (one compiled program) per seat count and config,
shared by every test; the big sweeps are marked ``slow``.
"""

from __future__ import annotations

import ast
import os
import random
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("JAX_PLATFORMS", "cpu")
jax = pytest.importorskip("jax")

import jax.numpy as jnp
import numpy as np

from allegra_rules import DrawDeck, GameState, RuleConfig, apply, legal_actions, new_game
from allegra_rules import observe as scalar_observe
from allegra_rules.adapters.features import Encoder
from allegra_rules.adapters.pettingzoo import RewardScale
from allegra_rules.config import OPTION_CHOICES
from allegra_rules.encoding import action_from_id, action_to_id, legal_action_mask
from allegra_rules.invariants import check_state
from allegra_rules.jax import Env, State
from allegra_rules.presets import preset, preset_names

SHUFFLED = ("cells", "draw_pile", "discard_pile", "held")


@cache
def env_for(n: int, config: RuleConfig) -> Env:
    """One Env per seat count and config for the whole run."""
    return Env(n, config)


@cache
def jitted(env: Env) -> tuple[Any, Any]:
    return jax.jit(env.step), jax.jit(env.observe)


def random_config(rng: random.Random) -> RuleConfig:
    options: dict[str, Any] = {name: rng.choice(values) for name, values in OPTION_CHOICES.items()}
    options["max_turns_per_round"] = rng.choice((500, 500, 12, 30))
    return RuleConfig(**options)


def differing(a: GameState, b: GameState) -> list[str]:
    names = [f for f in GameState.__attrs_attrs__ if f.init]  # type: ignore[attr-defined]
    return [f.name for f in names if getattr(a, f.name) != getattr(b, f.name)]


def was_chance(before: GameState, action: object, after: GameState) -> bool:
    """Whether ``apply`` shuffled: a refill, or the next round's deal."""
    refill = isinstance(action, DrawDeck) and not before.draw_pile
    return refill or after.round != before.round


def check_step(env: Env, s: GameState, action: object, after: GameState, got: State) -> None:
    """The batched step from ``s`` agrees with ``apply``: exactly, or up to the shuffle."""
    mine = env.to_state(got)
    mask = tuple(int(x) for x in np.asarray(got.legal_action_mask))
    assert mask == legal_action_mask(mine)
    if was_chance(s, action, after):
        diff = differing(mine, after)
        assert set(diff) <= set(SHUFFLED), diff
        assert mine.all_cards() == after.all_cards()
        for name in ("cells", "draw_pile", "discard_pile"):
            assert len(getattr(mine, name)) == len(getattr(after, name)), name
        assert (mine.held is None) == (after.held is None)
        assert [v is None for v in mine.cells] == [v is None for v in after.cells]
        check_state(mine)
    else:
        assert mine == after, differing(mine, after)
    scale = RewardScale(env.config, "scaled")
    rewards = np.asarray(got.rewards)
    if len(after.round_scores) > len(s.round_scores):
        want = [scale.round_reward(x) for x in after.round_scores[-1]]
        np.testing.assert_allclose(rewards, want, rtol=1e-5, atol=1e-6)
    else:
        assert not rewards.any()
    assert bool(got.terminated) == after.is_terminal
    assert not bool(got.truncated)


def check_views(env: Env, s: GameState, js: State, observe_fn: Any) -> None:
    mask = tuple(int(x) for x in np.asarray(js.legal_action_mask))
    assert mask == legal_action_mask(s)
    seat = 0 if s.current_player is None else s.current_player
    assert int(js.current_player) == (-1 if s.current_player is None else s.current_player)
    want = Encoder(env.config, env.num_players).features(scalar_observe(s, seat))
    got = np.asarray(observe_fn(js, seat))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def lockstep(
    n: int, config: RuleConfig, seed: int, *, max_steps: int = 10_000, views_every: int = 7
) -> int:
    """Play a scalar game with random moves; check the batched engine at every step."""
    env = env_for(n, config)
    step, observe_fn = jitted(env)
    rng = random.Random(seed)
    s = new_game(n, config=config, seed=seed)
    key = jax.random.key(seed)
    steps = 0
    while not s.is_terminal and steps < max_steps:
        js = env.from_state(s)
        assert env.to_state(js) == s
        if steps % views_every == 0:
            check_views(env, s, js, observe_fn)
        else:
            mask = np.asarray(js.legal_action_mask)
            assert tuple(int(x) for x in mask) == legal_action_mask(s)
        action = rng.choice(legal_actions(s))
        key, sub = jax.random.split(key)
        after = apply(s, action)
        check_step(env, s, action, after, step(js, action_to_id(action, n), sub))
        s = after
        steps += 1
    js = env.from_state(s)
    assert env.to_state(js) == s
    check_views(env, s, js, observe_fn)
    return steps


def own_games(n: int, config: RuleConfig, seed: int, tables: int, steps: int) -> int:
    """The batched engine's own random games: every state loads and agrees with ``apply``."""
    env = env_for(n, config)
    vstep = jax.jit(jax.vmap(env.step))
    key = jax.random.key(seed)
    states = jax.jit(jax.vmap(env.init))(jax.random.split(key, tables))
    checked = 0
    for t in range(steps):
        key, k_act, k_step = jax.random.split(key, 3)
        logits = jnp.where(states.legal_action_mask, 0.0, -jnp.inf)
        actions = jax.random.categorical(k_act, logits)
        keys = jax.random.split(k_step, tables)
        nxt = vstep(states, actions, keys)
        # Each table's arrays taken apart on the host (on the device, every slice of
        # every field would be an operation of its own).
        before, later, chosen = jax.device_get((states, nxt, actions))
        for i in range(tables):
            one = jax.tree_util.tree_map(lambda x, i=i: x[i], before)
            if bool(one.terminated):
                continue
            s = env.to_state(one)
            check_state(s)
            assert env.to_state(env.from_state(s)) == s
            a = action_from_id(int(chosen[i]), n)
            after = apply(s, a)
            check_step(env, s, a, after, jax.tree_util.tree_map(lambda x, i=i: x[i], later))
            checked += 1
        states = nxt
        del t
    return checked


# ------------------------------------------------------------------------ the default run


# Seat counts per preset in the default run: few compiled programs (de@1 and pl@1 equal
# seeds, so they share its Env); every preset at every seat count runs in the slow sweep.
DEFAULT_SEATS = {"seeds": 4, "de": 4, "pl": 4, "fr": 3, "published": 5}


@pytest.mark.parametrize("name", preset_names())
def test_lockstep_every_preset(name: str) -> None:
    assert lockstep(DEFAULT_SEATS.get(name, 4), preset(name), seed=11) > 100


@pytest.mark.parametrize("n", [2, 6])
def test_lockstep_seat_counts(n: int) -> None:
    assert lockstep(n, preset("seeds"), seed=n) > 100


@pytest.mark.parametrize("seed", [0, 2])
def test_lockstep_random_options(seed: int) -> None:
    rng = random.Random(1000 + seed)
    config = random_config(rng)
    lockstep(3, config, seed=seed)


SHORT = RuleConfig(
    max_turns_per_round=6,
    setup_reveals="simultaneous",
    first_player="highest_reveal",
    scoring_triples="removed",
    removed_cards="discard",
    knock_winner="first_clockwise",
    take_given_card="forbidden",
)
"""Rounds capped at 6 turns, with options the presets do not use."""


SMALL_DECK = RuleConfig(
    deck={-2: 4, 0: 6, 5: 10, 7: 10, 11: 10},
    min_players=2,
    max_players=2,
    max_turns_per_round=60,
)
"""A 40-card deck: the draw pile runs out and is refilled many times a game."""


def test_lockstep_short_rounds_and_simultaneous_setup() -> None:
    for seed in range(4):
        assert lockstep(3, SHORT, seed=seed, views_every=2) > 30


def test_lockstep_small_deck_refills_often() -> None:
    """A 40-card deck: the draw pile runs out and is refilled many times a game."""
    config = SMALL_DECK
    refills = 0
    for seed in range(2):
        s = new_game(2, config=config, seed=seed)
        rng = random.Random(seed)
        while not s.is_terminal:
            action = rng.choice(legal_actions(s))
            refills += isinstance(action, DrawDeck) and not s.draw_pile
            s = apply(s, action)
        lockstep(2, config, seed=seed, views_every=3)
    assert refills >= 4


def test_own_random_games_load_and_agree() -> None:
    assert own_games(4, preset("seeds"), seed=1, tables=4, steps=40) > 100
    assert own_games(3, SHORT, seed=1, tables=4, steps=40) > 100


def test_round_trip_keeps_every_seed() -> None:
    env = env_for(2, preset("seeds"))
    for seed in (0, 1, -1, 2**63, 2**64 + 5, -(2**127), 2**127 - 1):
        s = new_game(2, seed=seed)
        assert env.to_state(env.from_state(s)) == s
    with pytest.raises(ValueError, match="seed"):
        env.from_state(new_game(2, seed=2**127))


@pytest.mark.installed
def test_importing_the_package_does_not_import_jax() -> None:
    code = (
        "import sys, allegra_rules, allegra_rules.adapters.features; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('jax', 'jaxlib') "
        "or m.startswith('allegra_rules.jax')]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_bad_arguments_raise_value_error() -> None:
    for args in ((1,), (7,), ("4",), (True,), (4, "seeds")):
        with pytest.raises(ValueError, match=r"num_players|config"):
            Env(*args)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="int8"):
        Env(2, RuleConfig(deck={200: 40}, min_players=2, max_players=2))
    env = env_for(2, preset("seeds"))
    with pytest.raises(ValueError, match="3-player game"):
        env.from_state(new_game(3))
    with pytest.raises(ValueError, match="GameState"):
        env.from_state("state")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"allegra_rules\.jax\.State"):
        env.to_state("state")  # type: ignore[arg-type]
    table = jax.jit(env.init)(jax.random.key(0))
    for player in (2, -1, True):
        with pytest.raises(ValueError, match="seat"):
            env.observe(table, player)
    batch = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.key(0), 2))
    with pytest.raises(ValueError, match="one table"):
        env.to_state(batch)


def test_auto_reset_and_terminated_steps() -> None:
    """pgx's auto_reset pattern: a terminated table is dealt anew; a step on it changes nothing."""
    config = SHORT
    env = env_for(3, config)
    tables = 8

    def auto_reset_step(state: State, action: jax.Array, key: jax.Array) -> State:
        k_step, k_init = jax.random.split(key)
        state = env.step(state, action, k_step)
        return jax.lax.cond(state.terminated, lambda: env.init(k_init), lambda: state)

    run = jax.jit(jax.vmap(auto_reset_step))
    key = jax.random.key(3)
    states = jax.jit(jax.vmap(env.init))(jax.random.split(key, tables))
    resets = 0
    auto = jax.jit(jax.vmap(env.step_auto_reset))
    for _ in range(120):
        key, k_act, k_step = jax.random.split(key, 3)
        actions = jax.random.categorical(k_act, jnp.where(states.legal_action_mask, 0.0, -jnp.inf))
        keys = jax.random.split(k_step, tables)
        before_rounds = np.asarray(states._round)
        plain = run(states, actions, keys)
        states = auto(states, actions, keys)
        assert not np.asarray(states.terminated).any()
        assert np.asarray(states.legal_action_mask).any(axis=1).all()
        reset = (np.asarray(states._round) == 1) & (before_rounds == 3)
        resets += int(reset.sum())
        # step_auto_reset agrees with the lax.cond pattern but for the new deal, and it
        # keeps the last step's rewards.
        assert ((np.asarray(plain._round) == np.asarray(states._round)) | reset).all()
        rewards = np.asarray(states.rewards)
        np.testing.assert_allclose(rewards[~reset], np.asarray(plain.rewards)[~reset])
        assert (np.abs(rewards[reset]).sum(axis=1) > 0).all()
    assert resets > 0
    # A step on a terminated state: nothing changes, no reward.
    s = new_game(3, config=config, seed=2)
    rng = random.Random(0)
    while not s.is_terminal:
        s = apply(s, rng.choice(legal_actions(s)))
    over = env.from_state(s)
    assert bool(over.terminated) and not np.asarray(over.legal_action_mask).any()
    after = jax.jit(env.step)(over, 0, jax.random.key(0))  # compiled, not op by op
    assert env.to_state(after) == s
    assert not np.asarray(after.rewards).any()


def test_illegal_action_ends_the_game_at_the_worst_return() -> None:
    env = env_for(2, preset("seeds"))
    s = new_game(2, seed=4)
    js = env.from_state(s)
    bad = int(np.flatnonzero(~np.asarray(js.legal_action_mask))[0])
    out = jax.jit(env.step)(js, bad, jax.random.key(0))
    assert bool(out.terminated)
    np.testing.assert_allclose(np.asarray(out.rewards), [-1.0, 0.0])
    with pytest.raises(ValueError, match="illegal"):
        env.to_state(out)


def test_observation_property_is_the_current_players_features() -> None:
    env = env_for(2, preset("seeds"))
    s = new_game(2, seed=9)
    for action in legal_actions(s)[:1]:
        s = apply(s, action)
    js = env.from_state(s)
    want = Encoder(env.config, 2).features(scalar_observe(s, s.current_player or 0))
    np.testing.assert_allclose(np.asarray(js.observation), want, rtol=1e-6, atol=1e-6)
    batch = jax.tree_util.tree_map(lambda x: jnp.stack([x, x]), js)
    assert batch.observation.shape == (2, len(want))


# ------------------------------------------------------------------------ batched work


def _toy(x: dict[str, jax.Array]) -> dict[str, jax.Array]:
    """A table's toy work, with work of its own that few rows need (``rarely`` nested)."""
    from allegra_rules.jax._rare import rarely

    doubled = rarely(x["v"].sum() % 5 == 0, lambda y: {"v": y["v"] * 2}, {"v": x["v"]}, 0.2)
    return {"v": doubled["v"] + x["k"], "k": x["k"] ^ jnp.uint32(7)}


@pytest.mark.parametrize("tables", [1, 5, 40, 300])
def test_rarely_equals_a_plain_select(tables: int) -> None:
    """Chunked under vmap or not, ``rarely`` gives ``where(needed, fn(x), x)`` row by row."""
    from allegra_rules.jax._rare import rarely

    rng = np.random.default_rng(tables)
    x = {
        "v": jnp.asarray(rng.integers(-50, 50, (tables, 6)), jnp.int32),
        "k": jnp.asarray(rng.integers(0, 2**32, tables, dtype=np.uint64), jnp.uint32),
    }
    batched = jax.jit(jax.vmap(lambda need, y: rarely(need, _toy, y, 0.05)))
    single = jax.jit(lambda need, y: rarely(need, _toy, y, 0.05))
    plain = jax.vmap(_toy)(x)
    for density in (0.0, 1 / tables, 0.1, 0.5, 1.0):
        needed = jnp.asarray(rng.random(tables) < density)
        got = batched(needed, x)
        for name in x:
            want = np.where(
                np.asarray(needed)[:, None] if x[name].ndim > 1 else np.asarray(needed),
                np.asarray(plain[name]),
                np.asarray(x[name]),
            )
            np.testing.assert_array_equal(np.asarray(got[name]), want)
        for t in range(min(tables, 5)):
            one = single(needed[t], {k: v[t] for k, v in x.items()})
            for name in x:
                np.testing.assert_array_equal(np.asarray(one[name]), np.asarray(got[name][t]))


def _primitives(jaxpr: Any) -> list[str]:
    """The names of every primitive of ``jaxpr`` and of the programs nested in it."""
    names = []
    for eqn in jaxpr.eqns:
        names.append(eqn.primitive.name)
        for param in eqn.params.values():
            for sub in param if isinstance(param, (tuple, list)) else (param,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    names += _primitives(inner)
    return names


def test_rarely_writes_back_only_what_its_work_changed() -> None:
    """A leaf the rare work returns as it got it is not scattered back (each scatter is a
    loop of its own to compile on a CPU), and the result is still the plain select."""
    from allegra_rules.jax._rare import rarely

    def work(y: dict[str, jax.Array]) -> dict[str, jax.Array]:
        return {"kept": y["kept"], "read": y["read"], "v": y["v"] * 3 + y["read"]}

    x = {
        "kept": jnp.arange(64, dtype=jnp.int8).reshape(16, 4),
        "read": jnp.arange(16, dtype=jnp.int32),
        "v": jnp.ones((16, 2), jnp.float32),
    }
    needed = jnp.arange(16) % 3 == 0
    batched = jax.vmap(lambda need, y: rarely(need, work, y, 0.3))
    assert _primitives(jax.make_jaxpr(batched)(needed, x).jaxpr).count("scatter") == 1
    got = jax.jit(batched)(needed, x)
    want_v = np.where(np.asarray(needed)[:, None], 3.0 + np.arange(16)[:, None], 1.0)
    want_v = np.broadcast_to(want_v, (16, 2))
    np.testing.assert_array_equal(np.asarray(got["v"]), want_v)
    for name in ("kept", "read"):
        np.testing.assert_array_equal(np.asarray(got[name]), np.asarray(x[name]))


@pytest.mark.parametrize(("n", "config", "steps"), [(3, SHORT, 50), (2, SMALL_DECK, 160)])
def test_batched_steps_equal_single_table_steps(n: int, config: RuleConfig, steps: int) -> None:
    """``vmap`` over many tables (the rare work in chunks) equals each table stepped alone.

    The batch is large enough for several chunks of ``rarely``: turns that settle, triples,
    round ends and deals, refills and new games all come up in it.
    """
    env = env_for(n, config)
    tables = 96
    vstep = jax.jit(jax.vmap(env.step_auto_reset))
    # Each table stepped alone: the unbatched step, applied to the tables one after the
    # other by a loop inside one program (lax.map), never through vmap's batching rules.
    one_by_one = jax.jit(
        lambda s, a, k: jax.lax.map(lambda table: env.step_auto_reset(*table), (s, a, k))
    )
    key = jax.random.key(21)
    states = jax.jit(jax.vmap(env.init))(jax.random.split(key, tables))
    seen = {"round ends": 0, "refills": 0}
    for _ in range(steps):
        key, k_act, k_step = jax.random.split(key, 3)
        logits = jnp.where(states.legal_action_mask, 0.0, -jnp.inf)
        actions = jax.random.categorical(k_act, logits)
        keys = jax.random.split(k_step, tables)
        nxt = vstep(states, actions, keys)
        before = jax.tree_util.tree_map(np.asarray, states)
        alone = one_by_one(states, actions, keys)
        leaves = zip(jax.tree_util.tree_leaves(nxt), jax.tree_util.tree_leaves(alone), strict=True)
        for got, want in leaves:
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
        seen["round ends"] += int((before._round != np.asarray(nxt._round)).sum())
        seen["refills"] += int((before._refills < np.asarray(nxt._refills)).sum())
        states = nxt
    assert seen["round ends"] + seen["refills"] >= 4, seen


@pytest.mark.slow
def test_nested_vmap_equals_one_batch() -> None:
    """A batch of batches (``vmap`` of ``vmap``) steps exactly as the flat batch does.

    Slow (minutes): the engine's batching rule, batched once more, runs its loops for
    every table.
    """
    env = env_for(3, SHORT)
    outer, inner = 2, 12
    keys = jax.random.split(jax.random.key(4), outer * inner)
    states = jax.jit(jax.vmap(env.init))(keys)
    nested = jax.jit(jax.vmap(jax.vmap(env.step_auto_reset)))
    flat = jax.jit(jax.vmap(env.step_auto_reset))
    key = jax.random.key(5)
    round_ends = 0
    for _ in range(60):
        key, k_act, k_step = jax.random.split(key, 3)
        actions = jax.random.categorical(k_act, jnp.where(states.legal_action_mask, 0.0, -jnp.inf))
        step_keys = jax.random.split(k_step, outer * inner)
        want = flat(states, actions, step_keys)

        def fold(x: jax.Array) -> jax.Array:
            return x.reshape(outer, inner, *x.shape[1:])

        got = nested(jax.tree_util.tree_map(fold, states), fold(actions), fold(step_keys))
        for a, b in zip(
            jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want), strict=True
        ):
            np.testing.assert_array_equal(np.asarray(a).reshape(np.shape(b)), np.asarray(b))
        round_ends += int((np.asarray(want._round) != np.asarray(states._round)).sum())
        states = want
    assert round_ends > 5


# ------------------------------------------------------------------------ the package's shape


JAX_PACKAGE = Path(__file__).resolve().parents[1] / "src" / "allegra_rules" / "jax"
LAYERS = [
    "_by_kind",
    "_tables",
    "_arrays",
    "_rare",
    "_state",
    "_settle",
    "_rules",
    "_convert",
    "_env",
]
"""The modules of ``allegra_rules.jax``, each importing only modules before it."""


def _jax_imports(tree: ast.AST) -> list[tuple[str, bool]]:
    """``(module, at top level)`` of every import of an ``allegra_rules.jax`` module."""
    top = {id(node) for node in getattr(tree, "body", [])}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            for name in names:
                if name.startswith("allegra_rules.jax._"):
                    found.append((name.split(".")[2], id(node) in top))
    return found


def test_modules_import_one_way_and_at_the_top() -> None:
    """Constants, then state, rules, env: no cycle, no import inside a function."""
    modules = sorted(p.stem for p in JAX_PACKAGE.glob("*.py") if p.stem != "__init__")
    assert modules == sorted(LAYERS)
    for name in LAYERS:
        source = (JAX_PACKAGE / f"{name}.py").read_text(encoding="utf-8")
        assert len(source.splitlines()) <= 600, f"{name} has over 600 lines"
        tree = ast.parse(source)
        for module, at_top in _jax_imports(tree):
            assert at_top, f"{name} imports {module} inside a function or block"
            assert LAYERS.index(module) < LAYERS.index(name), f"{name} imports {module}"


def test_observation_needs_no_env_registry() -> None:
    """A state's observation comes from its own tables, whatever Envs were built since."""
    env = env_for(3, SHORT)
    state = jax.jit(env.init)(jax.random.key(3))
    Env(3, preset("seeds"))
    Env(3, SHORT)
    want = np.asarray(env.observe(state, 0))
    np.testing.assert_allclose(np.asarray(state.observation), want, rtol=1e-6, atol=1e-6)
    assert state._spec is env.tables


# ------------------------------------------------------------------------ the slow sweeps


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(40))
def test_lockstep_random_options_sweep(seed: int) -> None:
    rng = random.Random(5000 + seed)
    lockstep(rng.choice((2, 3, 4, 5, 6)), random_config(rng), seed=seed, views_every=3)


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("name", preset_names())
def test_lockstep_every_preset_and_seat_count(name: str, n: int) -> None:
    lockstep(n, preset(name), seed=100 + n, views_every=2)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_own_random_games_sweep(seed: int) -> None:
    rng = random.Random(7000 + seed)
    own_games(rng.choice((2, 3, 4, 5, 6)), random_config(rng), seed=seed, tables=8, steps=300)
