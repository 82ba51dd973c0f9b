import random
import time

import pytest

REASON = "the openspiel extra is not installed (pip install -e '.[openspiel]')"
pyspiel = pytest.importorskip("pyspiel", reason=REASON)
pytest.importorskip("numpy", reason=REASON)

import allegra_rules.adapters.openspiel  # noqa: F401
from allegra_rules import observe

GAME = "python_allegra"


@pytest.mark.parametrize(
    "params",
    [
        {"players": 2, "max_turns_per_round": 8},
        {"players": 3, "preset": "fr", "seed": 4, "max_turns_per_round": 6},
        {"players": 4, "preset": "published", "seed": 9, "max_turns_per_round": 5},
    ],
)
def test_random_sim(params):
    game = pyspiel.load_game(GAME, params)
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


def test_game_info():
    game = pyspiel.load_game(GAME, {"players": 2, "max_turns_per_round": 10})
    assert game.num_distinct_actions() == 79
    assert game.num_players() == 2
    assert game.max_game_length() == 3 * (4 + 10 * 6)
    assert game.min_utility() < 0 <= game.max_utility()
    state = game.new_initial_state()
    assert game.observation_tensor_size() == len(state.observation_tensor(0))
    assert state.observation_string(1) == observe(state.engine_state, 1).to_json()
    assert state.information_state_string(0).startswith(state.observation_string(0))


def test_returns_are_minus_totals_within_bounds():
    game = pyspiel.load_game(GAME, {"players": 3, "seed": 2, "max_turns_per_round": 6})
    state = game.new_initial_state()
    rng = random.Random(0)
    length = 0
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
        length += 1
    assert length <= game.max_game_length()
    assert state.returns() == [-float(t) for t in state.engine_state.totals]
    assert all(game.min_utility() <= r <= game.max_utility() for r in state.returns())


def test_mcts_bot_plays_full_games_against_random():
    mcts = pytest.importorskip("open_spiel.python.algorithms.mcts")
    import numpy as np

    start = time.perf_counter()
    for seed in range(2):
        game = pyspiel.load_game(GAME, {"players": 2, "seed": seed, "max_turns_per_round": 4})
        rng = np.random.RandomState(seed)
        bot = mcts.MCTSBot(
            game,
            uct_c=2.0,
            max_simulations=8,
            evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng),
            random_state=rng,
        )
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.current_player() == seed % 2:
                action = bot.step(state)
            else:
                action = rng.choice(state.legal_actions())
            state.apply_action(int(action))
        assert len(state.returns()) == 2
    assert time.perf_counter() - start < 30


def test_integrations_page_example_runs(capsys):
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "integrations.md").read_text()
    block = next(b.split("```", 1)[0] for b in text.split("```python\n")[1:] if "MCTSBot" in b)
    exec(compile(block, "integrations.md", "exec"), {})
    assert capsys.readouterr().out.startswith("[")
