import pytest

REASON = "the pettingzoo extra is not installed (pip install -e '.[pettingzoo]')"
np = pytest.importorskip("numpy", reason=REASON)
pytest.importorskip("pettingzoo", reason=REASON)
pytest.importorskip("gymnasium", reason=REASON)

from pettingzoo.test import api_test, seed_test

from allegra_rules import RuleConfig, observe, preset
from allegra_rules.adapters.features import view_features
from allegra_rules.adapters.pettingzoo import env, raw_env

# PettingZoo's classic games use Dict observations too; api_test warns about them.
pytestmark = pytest.mark.filterwarnings("ignore:Observation:UserWarning")

SHORT = RuleConfig(max_turns_per_round=6)


@pytest.mark.parametrize(
    ("players", "config"),
    [
        (2, None),
        (4, SHORT),
        (6, SHORT),
        (3, preset("fr")),
        (4, preset("published")),
        (2, RuleConfig(max_turns_per_round=3, discard_draw="may_discard")),
    ],
)
def test_api(players, config):
    api_test(env(num_players=players, config=config), num_cycles=60)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_seed(players):
    seed_test(lambda: env(num_players=players, config=SHORT), num_cycles=30)


def play_out(e, seed):
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    returns = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        returns[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(rng.choice(legal)))
    return returns


def test_full_game_returns_are_minus_totals():
    e = raw_env(num_players=3, config=SHORT)
    returns = play_out(e, 5)
    state = e.game_state
    assert state.is_terminal
    assert returns == {f"player_{i}": -float(t) for i, t in enumerate(state.totals)}


def test_observation_uses_only_the_view():
    e = raw_env(num_players=2)
    e.reset(seed=3)
    obs = e.observe("player_1")
    expected = np.asarray(view_features(observe(e.game_state, 1)), dtype=np.float32)
    assert np.array_equal(obs["observation"], expected)
    assert obs["action_mask"].dtype == np.int8
    assert obs["action_mask"].sum() == 0  # seat 0 acts first
    assert e.observe("player_0")["action_mask"].sum() > 0


def test_ansi_render():
    e = env(num_players=2, render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert isinstance(text, str)
    assert "zone 1" in text


def test_core_does_not_import_adapters():
    import subprocess
    import sys

    code = (
        "import sys, allegra_rules; "
        "bad = [m for m in sys.modules if m.split('.')[0] in "
        "('pettingzoo', 'gymnasium', 'numpy', 'pyspiel', 'open_spiel') "
        "or m.startswith('allegra_rules.adapters')]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_integrations_page_example_runs(capsys):
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "integrations.md").read_text()
    block = next(
        b.split("```", 1)[0] for b in text.split("```python\n")[1:] if "adapters.pettingzoo" in b
    )
    exec(compile(block, "integrations.md", "exec"), {})
    assert "player_0" in capsys.readouterr().out
