import pytest

REASON = "the gymnasium extra is not installed (pip install -e '.[gymnasium]')"
np = pytest.importorskip("numpy", reason=REASON)
pytest.importorskip("gymnasium", reason=REASON)

import gymnasium
from gymnasium.utils.env_checker import check_env

from allegra_rules import GreedyBot, RandomBot, RuleConfig, observe, preset
from allegra_rules.adapters.features import Encoder, total_bounds
from allegra_rules.adapters.gymnasium import ENV_ID, AllegraEnv

pytestmark = [
    pytest.mark.filterwarnings("ignore:.*illegal move:UserWarning"),
    pytest.mark.filterwarnings("ignore:.*alternative render modes:UserWarning"),
]

SHORT = RuleConfig(max_turns_per_round=6)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_players": 2, "config": SHORT},
        {"num_players": 4, "config": SHORT, "opponents": "greedy", "seat": "random"},
        {
            "num_players": 3,
            "config": RuleConfig(
                max_turns_per_round=4, setup_reveals="simultaneous", scoring_triples="removed"
            ),
            "seat": 2,
        },
    ],
)
def test_check_env(kwargs):
    check_env(AllegraEnv(**kwargs))


def test_registered_with_gymnasium():
    env = gymnasium.make(ENV_ID, num_players=2, config=SHORT, render_mode="ansi")
    check_env(env.unwrapped)
    obs, info = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    assert np.array_equal(env.unwrapped.action_masks(), info["action_mask"])
    assert " Player 2 " in env.render()  # the zone brackets name their players


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize(
    "config",
    [
        SHORT,
        preset("fr"),
        preset("published"),
        RuleConfig(max_turns_per_round=8, setup_reveals="simultaneous", scoring_triples="removed"),
    ],
)
def test_check_env_matrix(players, config):
    check_env(AllegraEnv(players, config, seat="random", render_mode="ansi"))


def run_episode(env, seed, policy):
    obs, info = env.reset(seed=seed)
    total, steps, done = 0.0, 0, False
    while not done:
        assert env.observation_space.contains(obs)
        mask = env.action_masks()
        assert mask.dtype == bool and np.array_equal(mask, info["action_mask"])
        assert env.state.current_player == env.seat and mask.any()
        obs, reward, done, truncated, info = env.step(policy(mask, steps))
        assert not truncated
        total += reward
        steps += 1
    return total, steps, info


def random_policy(seed):
    rng = np.random.default_rng(seed)
    return lambda mask, _: int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_return_is_the_learners_mapped_total(seat):
    env = AllegraEnv(3, SHORT, opponents="greedy", seat=seat)
    total, _, _ = run_episode(env, 11, random_policy(0))
    assert env.state.is_terminal
    lo, hi = total_bounds(SHORT)
    expected = 1 - 2 * (env.state.totals[seat] - lo) / (hi - lo)
    assert total == pytest.approx(expected)
    obs = env._observation()
    expected = np.asarray(Encoder(SHORT, 3).features(observe(env.state, seat)), np.float32)
    assert np.array_equal(obs, expected)


def test_raw_reward_is_minus_the_total():
    env = AllegraEnv(2, SHORT, reward="raw", seat=1)
    total, _, _ = run_episode(env, 4, random_policy(1))
    assert total == -env.state.totals[1]


@pytest.mark.parametrize("at_step", [0, 12])
def test_an_illegal_action_ends_the_episode_with_the_worst_return(at_step):
    env = AllegraEnv(2, SHORT)

    def policy(mask, step):
        if step == at_step:
            return int(np.flatnonzero(~mask)[0])
        return int(np.flatnonzero(mask)[0])

    total, steps, info = run_episode(env, 2, policy)
    assert steps == at_step + 1
    assert total == pytest.approx(-1.0)
    assert "illegal_action" in info and not env.action_masks().any()
    with pytest.raises(ValueError, match="reset"):
        env.step(0)


def test_same_seed_same_episode_and_bots_passed_in():
    def play(env):
        return run_episode(env, 9, random_policy(3))[:2]

    assert play(AllegraEnv(3, SHORT, opponents="greedy")) == play(
        AllegraEnv(3, SHORT, opponents="greedy")
    )
    bots = [GreedyBot(1), RandomBot(2)]
    env = AllegraEnv(3, SHORT, opponents=bots)
    total, _, _ = run_episode(env, 1, random_policy(2))
    assert -1 <= total <= 1


def test_bad_arguments():
    with pytest.raises(ValueError, match="opponents"):
        AllegraEnv(3, opponents=[RandomBot(0)])
    with pytest.raises(ValueError, match="opponents"):
        AllegraEnv(2, opponents="clever")
    with pytest.raises(ValueError, match="seat"):
        AllegraEnv(2, seat=2)
    with pytest.raises(ValueError, match="render_mode"):
        AllegraEnv(2, render_mode="rgb_array")


def test_human_render_prints(capsys):
    env = AllegraEnv(2, SHORT, render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    assert " Player 2 " in capsys.readouterr().out


def test_integrations_page_example_runs(capsys):
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "integrations.md").read_text()
    blocks = [b.split("```", 1)[0] for b in text.split("```python\n")[1:]]
    block = next(b for b in blocks if "adapters.gymnasium import AllegraEnv" in b)
    exec(compile(block, "integrations.md", "exec"), {})
    value, totals = capsys.readouterr().out.split(" ", 1)
    assert -1 <= float(value) <= 1 and totals.startswith("(")
