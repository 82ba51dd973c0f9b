import warnings
from pathlib import Path

import pytest

REASON = "the pettingzoo extra is not installed (pip install -e '.[pettingzoo]')"
np = pytest.importorskip("numpy", reason=REASON)
pytest.importorskip("pettingzoo", reason=REASON)
pytest.importorskip("gymnasium", reason=REASON)

from pettingzoo.test import api_test, render_test, seed_test

from allegra_rules import RuleConfig, observe, preset
from allegra_rules.adapters.features import Encoder, total_bounds
from allegra_rules.adapters.pettingzoo import env, raw_env

# PettingZoo's classic games use Dict observations too; api_test warns about them
# (test_api_test_warns_only_about_the_dict_observation checks that nothing else warns).
pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation:UserWarning"),
    pytest.mark.filterwarnings("ignore:.*illegal move:UserWarning"),
]

SHORT = RuleConfig(max_turns_per_round=6)
TINY = RuleConfig(max_turns_per_round=2)

API_CASES = [
    (2, None),
    (3, preset("fr")),
    (4, preset("published")),
    (5, SHORT),
    (6, SHORT),
    (2, RuleConfig(max_turns_per_round=3, discard_draw="may_discard")),
    (3, RuleConfig(max_turns_per_round=6, setup_reveals="simultaneous", scoring_triples="removed")),
]
NEW_OPTIONS = RuleConfig(
    max_turns_per_round=2, setup_reveals="simultaneous", scoring_triples="removed"
)


@pytest.mark.parametrize(("players", "config"), [*API_CASES[:2], (2, NEW_OPTIONS)])
def test_api(players, config):
    api_test(env(num_players=players, config=config or TINY), num_cycles=40)


DICT_OBSERVATION_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
}
"""What api_test says of every environment whose observation is PettingZoo's Dict of
``observation`` and ``action_mask`` (the classic games' convention), unless the
environment is one of PettingZoo's own, which it exempts by name."""


def test_api_test_warns_only_about_the_dict_observation():
    """No warning from this package while PettingZoo checks it; the only warnings left
    are api_test's two about the Dict observation, which this environment shares with
    PettingZoo's own card games."""
    import allegra_rules

    package = Path(allegra_rules.__file__).resolve().parent
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for players, config in [*API_CASES[:2], (2, NEW_OPTIONS)]:
            api_test(env(num_players=players, config=config or TINY), num_cycles=40)
        seed_test(lambda: env(num_players=2, config=TINY), num_cycles=20)
        render_test(lambda render_mode=None: env(2, TINY, render_mode=render_mode))
    ours = [w for w in caught if Path(w.filename).resolve().is_relative_to(package)]
    assert ours == [], [f"{w.filename}:{w.lineno}: {w.message}" for w in ours]
    others = {(Path(w.filename).name, str(w.message)) for w in caught}
    assert others <= {("api_test.py", message) for message in DICT_OBSERVATION_WARNINGS}
    assert len(caught) > 0  # api_test still checks the observations


@pytest.mark.slow
@pytest.mark.parametrize(("players", "config"), API_CASES)
def test_api_matrix(players, config):
    api_test(env(num_players=players, config=config), num_cycles=200)


@pytest.mark.parametrize("players", [2, 6])
def test_seed(players):
    seed_test(lambda: env(num_players=players, config=TINY), num_cycles=20)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_seed_matrix(players):
    seed_test(lambda: env(num_players=players, config=SHORT), num_cycles=60)


def test_render():
    render_test(lambda render_mode=None: env(2, TINY, render_mode=render_mode))


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_render_matrix(players):
    render_test(lambda render_mode=None: env(players, SHORT, render_mode=render_mode))


def play_out(e, seed, illegal_at=None):
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    returns = dict.fromkeys(e.possible_agents, 0.0)
    steps = 0
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        returns[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        assert e.observation_space(agent)["observation"].contains(obs["observation"])
        legal = np.flatnonzero(obs["action_mask"])
        if steps == illegal_at:
            e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
        else:
            e.step(int(rng.choice(legal)))
        steps += 1
    return returns


@pytest.mark.parametrize("players", [2, 4])
def test_scaled_returns_are_the_mapped_totals(players):
    config = SHORT
    e = raw_env(num_players=players, config=config)
    returns = play_out(e, 5)
    state = e.game_state
    assert state.is_terminal
    lo, hi = total_bounds(config)
    for seat, total in enumerate(state.totals):
        expected = 1 - 2 * (total - lo) / (hi - lo)
        assert returns[f"player_{seat}"] == pytest.approx(expected)
        assert -1 <= returns[f"player_{seat}"] <= 1


def test_raw_returns_are_minus_totals():
    e = raw_env(num_players=3, config=SHORT, reward="raw")
    returns = play_out(e, 5)
    assert returns == {f"player_{i}": -float(t) for i, t in enumerate(e.game_state.totals)}


@pytest.mark.parametrize(("reward", "worst"), [("scaled", -1.0), ("raw", -924.0)])
@pytest.mark.parametrize("illegal_at", [0, 30])
def test_an_illegal_move_gets_the_worst_return(reward, worst, illegal_at):
    # Step 30 comes after the first round's rewards (2 seats, 6 turns per round).
    for wrapped in (env(2, SHORT, reward=reward), raw_env(2, SHORT, reward=reward)):
        returns = play_out(wrapped, 3, illegal_at=illegal_at)
        offender = min(returns, key=returns.get)
        assert returns[offender] == pytest.approx(worst)
        legal = [r for a, r in returns.items() if a != offender]
        assert all(r > worst for r in legal)


def test_observation_is_the_relative_view_encoding():
    e = raw_env(num_players=3)
    e.reset(seed=3)
    enc = Encoder(RuleConfig(), 3)
    for seat in range(3):
        obs = e.observe(f"player_{seat}")
        expected = np.asarray(enc.features(observe(e.game_state, seat)), dtype=np.float32)
        assert np.array_equal(obs["observation"], expected)
        assert obs["observation"].min() >= 0 and obs["observation"].max() <= 1
    assert e.observe("player_1")["action_mask"].sum() == 0  # seat 0 acts first
    assert e.observe("player_0")["action_mask"].sum() > 0
    space = e.observation_space("player_0")["observation"]
    assert (space.low == 0).all() and (space.high == 1).all()


def test_ansi_and_human_render(capsys):
    e = env(num_players=2, render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert isinstance(text, str) and " Player 2 " in text
    h = env(num_players=2, render_mode="human")
    h.reset(seed=1)
    assert h.render() is None
    assert capsys.readouterr().out.strip() == text.strip()
    assert "render_fps" in h.unwrapped.metadata


def test_bad_arguments():
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(2, render_mode="rgb_array")
    with pytest.raises(ValueError, match="reward"):
        raw_env(2, reward="points")


@pytest.mark.installed
def test_core_does_not_import_adapters():
    import subprocess
    import sys

    code = (
        "import sys, allegra_rules; "
        "bad = [m for m in sys.modules if m.split('.')[0] in "
        "('pettingzoo', 'gymnasium', 'numpy', 'pyspiel', 'open_spiel', 'torch') "
        "or m.startswith('allegra_rules.adapters')]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_integrations_page_example_runs(capsys):
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "integrations.md").read_text()
    blocks = [b.split("```", 1)[0] for b in text.split("```python\n")[1:]]
    block = next(b for b in blocks if "adapters.pettingzoo import env" in b)
    exec(compile(block, "integrations.md", "exec"), {})
    assert "player_0" in capsys.readouterr().out
