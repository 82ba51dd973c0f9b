import random
from collections import Counter

import pytest

REASON = "the openspiel extra is not installed (pip install -e '.[openspiel]')"
pyspiel = pytest.importorskip("pyspiel", reason=REASON)
np = pytest.importorskip("numpy", reason=REASON)

import allegra_rules.adapters.openspiel  # noqa: F401
from allegra_rules import GameState, new_game, observe
from allegra_rules.adapters.features import total_bounds

GAME = "python_allegra"
CHANCE = int(pyspiel.PlayerId.CHANCE)
PUBLIC = pyspiel.IIGObservationType(
    public_info=True, perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE
)
PUBLIC_RECALL = pyspiel.IIGObservationType(
    public_info=True, perfect_recall=True, private_info=pyspiel.PrivateInfoType.NONE
)
PRIVATE_ONLY = pyspiel.IIGObservationType(
    public_info=False, perfect_recall=False, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER
)


def load(**params):
    return pyspiel.load_game(GAME, params)


def step_randomly(state, rng):
    if state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(rng.choices(actions, probs)[0])
    else:
        state.apply_action(rng.choice(state.legal_actions()))


def states_of_a_game(game, seed):
    """Every state of one random game (each a clone)."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    out = [state.clone()]
    while not state.is_terminal():
        step_randomly(state, rng)
        out.append(state.clone())
    return out


SIM_CASES = [
    {"players": 2, "max_turns_per_round": 6},
    {"players": 3, "preset": "fr", "deal": "seeded", "seed": "12345678901234567890"},
    {"players": 2, "options": "setup_reveals:simultaneous;scoring_triples:removed"},
]


@pytest.mark.parametrize("params", SIM_CASES, ids=["chance-2", "seeded-3", "new-options-2"])
def test_random_sim(params):
    game = load(**{"max_turns_per_round": 4, **params})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("deal", ["chance", "seeded"])
@pytest.mark.parametrize("name", ["seeds", "fr", "published"])
def test_random_sim_matrix(players, deal, name):
    game = load(players=players, deal=deal, preset=name, max_turns_per_round=12, seed="0x2a")
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_a_whole_uncapped_game_serializes():
    # A full-length 5-player game on the "fr" preset: its history runs to about 1,600
    # moves, which a nested history could not pickle (RecursionError).
    pyspiel.random_sim_test(load(players=5, preset="fr"), num_sims=1, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("name", ["seeds", "de", "pl", "fr", "published"])
def test_random_sim_whole_games_every_preset(players, name):
    game = load(players=players, preset=name)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_a_finished_six_player_game_pickles_and_restores_equal():
    import copy
    import pickle
    import sys

    state = load(players=6).new_initial_state()
    rng = random.Random(6)
    while not state.is_terminal():
        step_randomly(state, rng)
    moves = len(state.history())
    assert moves > 1000
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)  # a flat history needs no deep recursion
    try:
        restored = pickle.loads(pickle.dumps(state))
        copied = copy.deepcopy(state)
    finally:
        sys.setrecursionlimit(limit)
    for other in (restored, copied):
        assert other.history() == state.history()
        assert str(other) == str(state)
        assert other.returns() == state.returns()
        assert other.information_state_string(2) == state.information_state_string(2)
        assert other.is_terminal()


def test_a_clone_that_plays_on_from_an_earlier_state_keeps_both_histories():
    game = load(players=2, max_turns_per_round=3)
    state = game.new_initial_state()
    rng = random.Random(3)
    for _ in range(30):
        step_randomly(state, rng)
    earlier = state.clone()
    later = state.clone()
    for _ in range(10):
        step_randomly(later, rng)
    branch = earlier.clone()
    while branch.history() == later.history()[: len(branch.history())]:
        step_randomly(branch, random.Random(len(branch.history())))
        if branch.is_terminal():
            break
    recall = game.make_py_observer(PUBLIC_RECALL)
    for one in (earlier, later, branch):
        text = recall.string_from(one, 0)
        assert text == recall.string_from(pickle_round_trip(one), 0)
    assert recall.string_from(earlier, 0) == recall.string_from(state, 0)


def pickle_round_trip(state):
    import pickle

    return pickle.loads(pickle.dumps(state))


NEW_OPTIONS = [
    "setup_reveals:simultaneous",
    "scoring_triples:removed",
    "setup_reveals:simultaneous;scoring_triples:removed;first_player:highest_reveal",
]


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("deal", ["chance", "seeded"])
@pytest.mark.parametrize("options", NEW_OPTIONS)
def test_random_sim_new_options(players, deal, options):
    game = load(players=players, deal=deal, options=options, max_turns_per_round=10)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_simultaneous_setup_namings_stay_secret_until_they_turn_up_together():
    game = load(players=3, options="setup_reveals:simultaneous", max_turns_per_round=3)
    recall = game.make_py_observer(PUBLIC_RECALL)
    rng = random.Random(5)
    state = game.new_initial_state()
    step_randomly(state, rng)  # the discard starter
    named = []
    for k in range(6):
        assert not state.is_chance_node()
        seat = state.current_player()
        action = rng.choice(state.legal_actions())
        state.apply_action(action)
        named.append((seat, action))
        if k < 5:
            assert not state.is_chance_node()
            history = recall.string_from(state, 0).split("history ")[1].split()
            assert history[-1] == f"{seat}:?"  # nobody sees which cell was named
            own = state.information_state_string(seat)
            assert f"{seat}:{action}" in own.split("history ")[1].split()
            others = [p for p in range(3) if p != seat]
            assert all(f"{seat}:?" in state.information_state_string(p) for p in others)
    # The last naming: chance deals every named cell (once each), then they turn up.
    cells = list(dict.fromkeys(a - 5 - 3 for _, a in named))
    assert list(state._node.queue) == cells
    for _ in cells:
        step_randomly(state, rng)
    engine = state.engine_state
    assert engine.phase.value == "draw"
    assert all(not engine.face_down >> c & 1 or engine.cells[c] is None for c in cells)


@pytest.mark.slow
def test_random_sim_small_deck_with_refills():
    game = load(players=2, deck="0:10;1:10;2:10", max_turns_per_round=60, returns="scaled")
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_game_types_and_sizes():
    chance = load(players=2, max_turns_per_round=10)
    kind = chance.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.provides_information_state_tensor and kind.provides_observation_tensor
    assert chance.max_chance_outcomes() == 13
    assert chance.num_distinct_actions() == 79
    assert chance.max_game_length() == 3 * (4 + 10 * 6)
    seeded = load(players=2, deal="seeded")
    assert seeded.get_type().chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert seeded.max_chance_outcomes() == 0
    state = chance.new_initial_state()
    assert state.is_chance_node()
    assert len(state.observation_tensor(0)) == chance.observation_tensor_size()
    assert len(state.information_state_tensor(1)) == chance.information_state_tensor_size()
    assert chance.information_state_tensor_size() > chance.observation_tensor_size()
    small = load(players=2, deck="0:9;1:9;2:8")
    assert small.max_chance_outcomes() == 3


def test_every_new_game_is_a_new_deal():
    game = load(players=2)
    deals = set()
    for seed in range(8):
        state = game.new_initial_state()
        rng = random.Random(seed)
        while state.is_chance_node() or state.engine_state.setup_reveals < 4:
            step_randomly(state, rng)
        deals.add(state.observation_string(0))
    assert len(deals) == 8


def unseen_by_everyone(engine):
    """The deck minus every card some player has seen, from the full engine state."""
    seen = Counter(
        v for i, v in enumerate(engine.cells) if v is not None and not engine.face_down >> i & 1
    )
    seen.update(engine.discard_pile)
    seen.update(engine.out_of_play)
    seen.update(card for _, card in engine.in_hand)
    if engine.held is not None:
        seen[engine.held] += 1
    if engine.refills:
        seen.update(engine.draw_pile)
    return Counter(engine.config.deck_cards()) - seen


@pytest.mark.parametrize("deck", ["", "0:10;1:10;2:10"])
def test_chance_probabilities_are_the_unseen_cards(deck):
    game = load(players=2, deck=deck, max_turns_per_round=40)
    values = [v for v, _ in game.config.deck]
    checked = 0
    for state in states_of_a_game(game, 3):
        engine = state.engine_state
        assert engine.all_cards() == Counter(engine.config.deck_cards())
        if not state.is_chance_node():
            assert GameState.from_json(engine.to_json()) == engine
            continue
        outcomes = dict(state.chance_outcomes())
        assert len(outcomes) <= 13
        slot = state._node.queue[0]
        if slot == -1 and engine.refills:
            pool = Counter(engine.draw_pile or engine.discard_pile[:-1])
        elif slot == -1 and not engine.draw_pile:
            pool = Counter(engine.discard_pile[:-1])
        else:
            pool = unseen_by_everyone(engine)
            if slot == -2:  # a fresh deal: the starter is not seen yet
                pool[engine.discard_pile[-1]] += 1
        expected = {values.index(v): c / sum(pool.values()) for v, c in pool.items() if c}
        assert outcomes == pytest.approx(expected)
        checked += 1
    assert checked > 50


def test_seeded_mode_replays_the_engine_deal():
    seed = 2**64 - 1
    game = load(players=3, deal="seeded", seed=str(seed))
    state = game.new_initial_state()
    assert not state.is_chance_node()
    assert state.engine_state == new_game(3, seed=seed)
    again = pyspiel.load_game(str(game))
    assert again.new_initial_state().engine_state == state.engine_state
    with pytest.raises(ValueError, match="seed"):
        load(deal="seeded", seed=str(2**64))


def test_observers_honour_the_observation_type():
    game = load(players=3, max_turns_per_round=20)
    public = game.make_py_observer(PUBLIC)
    recall = game.make_py_observer(PUBLIC_RECALL)
    private = game.make_py_observer(PRIVATE_ONLY)
    default = game.make_py_observer()
    private_seen = 0
    for seed in range(2):
        for number, state in enumerate(states_of_a_game(game, seed)):
            strings = {public.string_from(state, p) for p in range(3)}
            assert len(strings) == 1
            (shared,) = strings
            if number % 8 == 0:
                assert len({recall.string_from(state, p) for p in range(3)}) == 1
            tensors = []
            for p in range(3):
                public.set_from(state, p)
                tensors.append(public.tensor.copy())
            assert all(np.array_equal(tensors[0], t) for t in tensors)
            engine = state.engine_state
            for p in range(3):
                own = private.string_from(state, p)
                sees = (engine.held_was_face_down and engine.drawer == p) or (
                    engine.hand_was_face_down and engine.in_hand[0][0] == p
                )
                private_seen += sees
                assert (own != f"p{p} -") == sees
                assert default.string_from(state, p) == f"{shared}\n{own}"
    assert private_seen > 0


def test_the_public_observation_is_the_public_view():
    from allegra_rules.adapters.features import Encoder
    from allegra_rules.adapters.openspiel import AllegraObserver

    game = load(players=3, max_turns_per_round=20)
    public = game.make_py_observer(PUBLIC)
    hidden = 0
    for state in states_of_a_game(game, 1)[::2]:
        engine = state.engine_state
        spectator = observe(engine, None)
        hidden += spectator.held_hidden or any(c is None for _, c in spectator.in_hand)
        encoder = Encoder(engine.config, engine.num_players)
        assert public.string_from(state, 0) == AllegraObserver._public_text(public, spectator)
        for p in range(3):
            public.set_from(state, p)
            assert np.array_equal(
                public.tensor, np.asarray(encoder.public(spectator, 0), np.float32)
            )
    assert hidden > 0


@pytest.mark.parametrize(
    ("deal", "options"),
    [("chance", ""), ("seeded", ""), ("chance", "setup_reveals:simultaneous")],
)
def test_resampled_states_keep_the_information_state(deal, options):
    game = load(players=3, deal=deal, options=options, max_turns_per_round=25, seed="7")
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    changed = 0
    states = states_of_a_game(game, 4)
    for state in states[1:8] + states[::5]:
        if state.is_terminal():
            continue
        for p in range(3):
            other = state.resample_from_infostate(p, sampler)
            assert other.information_state_string(p) == state.information_state_string(p)
            assert other.observation_string(p) == state.observation_string(p)
            assert np.array_equal(
                other.information_state_tensor(p), state.information_state_tensor(p)
            )
            if state.current_player() == p:
                # Legal moves are part of the mover's knowledge (a seat's second
                # naming in a simultaneous setup may not repeat its first).
                assert other.legal_actions() == state.legal_actions()
            changed += str(other) != str(state)
    assert changed > 0  # the hidden cards differ: str(state) shows them


def test_str_shows_the_hidden_cards_and_clone_shares_the_engine_state():
    game = load(players=2, deal="seeded")
    state = game.new_initial_state()
    engine = state.engine_state
    assert f'"cells":{list(engine.cells)}'.replace(" ", "") in str(state)
    clone = state.clone()
    assert clone.engine_state is engine
    clone.apply_action(clone.legal_actions()[0])
    assert state.engine_state is engine and clone.engine_state is not engine


@pytest.mark.parametrize("returns", ["points", "scaled"])
def test_returns(returns):
    game = load(players=3, max_turns_per_round=6, returns=returns)
    final = states_of_a_game(game, 2)[-1]
    totals = final.engine_state.totals
    lo, hi = total_bounds(game.config)
    if returns == "points":
        assert final.returns() == [-float(t) for t in totals]
    else:
        assert final.returns() == pytest.approx([1 - 2 * (t - lo) / (hi - lo) for t in totals])
    assert all(game.min_utility() <= r <= game.max_utility() for r in final.returns())


def test_shortened_game_and_custom_deck():
    game = load(players=2, rounds=1, deck="0:9;1:9;2:8", max_turns_per_round=2)
    final = states_of_a_game(game, 1)[-1]
    assert len(final.engine_state.round_scores) == 1
    assert final.returns() == [-float(s) for s in final.engine_state.round_scores[0]]
    with pytest.raises(ValueError, match="deck"):
        load(deck="0x9")


def test_ismcts_plays_a_whole_game():
    from open_spiel.python.algorithms import ismcts, mcts

    game = load(players=2, rounds=1, max_turns_per_round=3, returns="scaled")
    rng = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(
        game, mcts.RandomRolloutEvaluator(1, rng), uct_c=1.0, max_simulations=6, random_state=rng
    )
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node() or state.current_player() == 1:
            step_randomly(state, random.Random(decisions))
        else:
            state.apply_action(int(bot.step(state)))
        decisions += 1
    assert len(state.returns()) == 2 and state.engine_state.round_scores


SMALL = {
    "players": 2,
    "rounds": 1,
    "deck": "0:13;1:13",
    "max_turns_per_round": 1,
    "options": "reveal_area:own;swap_area:own;knocking:never",
}


def test_outcome_sampling_mccfr_runs():
    from open_spiel.python.algorithms import outcome_sampling_mccfr

    game = load(**SMALL)
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(30):
        solver.iteration()
    policy = solver.average_policy()
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    probs = policy.action_probabilities(state)
    assert set(probs) == set(state.legal_actions())
    assert sum(probs.values()) == pytest.approx(1.0)


@pytest.mark.slow
def test_external_sampling_mccfr_runs():
    from open_spiel.python.algorithms import external_sampling_mccfr

    game = load(**SMALL)
    solver = external_sampling_mccfr.ExternalSamplingSolver(
        game, external_sampling_mccfr.AverageType.SIMPLE
    )
    for _ in range(2):
        solver.iteration()
    assert solver._infostates  # regrets were stored for visited information states


def test_integrations_page_example_runs(capsys):
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "integrations.md").read_text()
    blocks = [b.split("```", 1)[0] for b in text.split("```python\n")[1:]]
    block = next(b for b in blocks if "ISMCTSBot" in b)
    exec(compile(block, "integrations.md", "exec"), {})
    assert capsys.readouterr().out.startswith("[")


def test_state_from_engine_hides_other_seats_private_cards():
    from allegra_rules import Knock, Pass, legal_actions
    from allegra_rules import apply as engine_apply

    game = load(players=3)
    rng = random.Random(0)
    engine = new_game(3, seed=6)
    # Play until the drawer holds a card it took face down in a knock exchange.
    while not (engine.held_was_face_down or engine.is_terminal):
        options = legal_actions(engine)
        knock = [a for a in options if isinstance(a, Knock)]
        takes = [a for a in options if type(a).__name__ in ("Give", "Take")]
        pick = knock or takes or [a for a in options if not isinstance(a, Pass)] or options
        engine = engine_apply(engine, rng.choice(pick))
    assert engine.held_was_face_down
    wrapped = game.state_from_engine(engine)
    assert wrapped.engine_state is engine and not wrapped.is_chance_node()
    other = next(p for p in range(3) if p != engine.drawer)
    hidden = game.state_from_engine(engine, player=other).engine_state
    assert observe(hidden, other) == observe(engine, other)
    assert (hidden.cells, hidden.draw_pile, hidden.held) != (
        engine.cells,
        engine.draw_pile,
        engine.held,
    )
    mine = game.state_from_engine(engine, player=engine.drawer).engine_state
    assert mine.held == engine.held and observe(mine, engine.drawer) == observe(
        engine, engine.drawer
    )
    with pytest.raises(ValueError, match="config"):
        game.state_from_engine(new_game(2))
