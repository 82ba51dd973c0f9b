"""PolicyBot (allegra_rules.policy) and the search it guides, on generated weights files.

The weights here are random networks in the shipped file's format: they test the player
(legal moves, determinism, the view-only contract, the file checks), not its strength.
The tests marked "shipped" read the package's own weights and skip only when the package
has none.
"""

from __future__ import annotations

import functools
import itertools
import json
import random
import shlex
import subprocess
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import attrs
import pytest

np = pytest.importorskip("numpy")

from allegra_rules import (
    Action,
    GameState,
    GreedyBot,
    RuleConfig,
    apply,
    legal_actions,
    new_game,
    observe,
    preset,
)
from allegra_rules import policy as policy_module
from allegra_rules.bot_kinds import BOT_KINDS
from allegra_rules.browser_table import bot_offers
from allegra_rules.encoding import action_to_id, num_distinct_actions
from allegra_rules.features import Encoder
from allegra_rules.network_input import CARD_SLOTS, RULE_INPUTS, SLOT_LOW, NetworkInput
from allegra_rules.policy import (
    POLICY_FORMAT,
    SHIPPED_WEIGHTS,
    PolicyBot,
    cannot_play,
    guided_search,
)
from allegra_rules.presets import preset_names
from allegra_rules.search import GUIDED_LEVEL, SearchBot, SearchGuide, guided_level
from allegra_rules.simulate import simulate
from test_bots import _sample_states, hidden_variants

SEEDS = preset("seeds")


def write_weights(
    path: Path,
    *,
    seat_counts: Sequence[int] = (2, 4),
    hidden: tuple[int, int] = (16, 12),
    seed: int = 0,
    scale: float = 1.0,
    dtype: Any = np.float16,
    meta: dict[str, Any] | None = None,
    drop: str | None = None,
    reshape: str | None = None,
    eight_bit: bool = False,
    hint: bool = False,
    hint_value: float | None = None,
    rules_input: bool = False,
    value_heads: bool = False,
) -> Path:
    """A random network per seat count, in the weights file format (``policy.npz``).

    ``eight_bit``: the matrices are random int8 with random scales per column (format 2).
    ``hint``: the network reads the greedy hint (format 3): ``w0`` has a row per action id
    after the features' rows, and ``"n/hint"`` holds random weights (all ``hint_value``
    when given). ``rules_input``: the network reads the deck-free ``NetworkInput`` and plays
    every config (format 4; with ``hint``, it reads the hint after it).
    """
    rng = np.random.default_rng(seed)
    info: dict[str, Any] = {
        "format": 4 if rules_input else 3 if hint else 2 if eight_bit else 1,
        "preset": "seeds",
        "config_fingerprint": SEEDS.fingerprint,
        "seat_counts": list(seat_counts),
        "hidden": list(hidden),
        "activation": "relu",
        "command": "tests/test_policy.py write_weights (random)",
        "seed": seed,
    }
    if rules_input:
        info.update(
            greedy_input=hint,
            card_slots=CARD_SLOTS,
            slot_low=SLOT_LOW,
            rule_inputs=[[name, list(choices)] for name, choices in RULE_INPUTS],
            value_heads=value_heads,
        )
        del info["config_fingerprint"]
    info.update(meta or {})
    arrays: dict[str, Any] = {"meta": np.array(json.dumps(info))}
    h1, h2 = hidden
    for n in seat_counts:
        size, actions = Encoder(SEEDS, n).size, num_distinct_actions(n)
        if rules_input:
            size = NetworkInput(SEEDS, n).size
        if hint:
            size += actions
            weights = rng.uniform(0.0, 3.0 * scale, actions).astype(np.float32)
            if hint_value is not None:
                weights[:] = hint_value
            shapes_hint = {"hint": weights}
        else:
            shapes_hint = {}
        shapes = {
            "w0": (size, h1),
            "b0": (h1,),
            "w1": (h1, h2),
            "b1": (h2,),
            "pi_w": (h2, actions),
            "pi_b": (actions,),
            "v_w": (h2, 1),
            "v_b": (1,),
        }
        if value_heads:
            shapes |= {"heads_w": (h2, 2 + n), "heads_b": (2 + n,)}
        for name, shape in shapes.items():
            if reshape == f"{n}/{name}":
                shape = (shape[0] + 1, *shape[1:])
            if drop == f"{n}/{name}":
                continue
            if eight_bit and name in ("w0", "w1", "pi_w", "v_w", "heads_w"):
                arrays[f"{n}/{name}"] = rng.integers(-127, 128, shape, dtype=np.int8)
                columns = rng.uniform(0.0, scale / 40, shape[1]).astype(np.float32)
                arrays[f"{n}/{name}_scale"] = columns
            else:
                arrays[f"{n}/{name}"] = (scale * rng.standard_normal(shape)).astype(dtype)
        for name, vector in shapes_hint.items():
            if reshape == f"{n}/{name}":
                vector = vector[:-1]
            if drop != f"{n}/{name}":
                arrays[f"{n}/{name}"] = vector
    np.savez_compressed(path, **arrays)
    return path


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Random weights for 2 to 5 seats (the hidden-information sample has all four)."""
    return write_weights(tmp_path_factory.mktemp("policy") / "policy.npz", seat_counts=(2, 3, 4, 5))


@functools.cache
def _arrays(path: Path, n: int) -> dict[str, Any]:
    with np.load(path) as data:
        names = ("w0", "b0", "w1", "b1", "pi_w", "pi_b")
        out = {k: data[f"{n}/{k}"].astype(np.float32) for k in names}
        for k in ("w0", "w1", "pi_w"):  # format 2: an int8 matrix times its column scales
            if f"{n}/{k}_scale" in data.files:
                out[k] = out[k] * data[f"{n}/{k}_scale"][np.newaxis, :]
        if f"{n}/hint" in data.files:  # format 3: the greedy hint's weights
            out["hint"] = data[f"{n}/hint"].astype(np.float32)
        out["format"] = json.loads(str(data["meta"][()]))["format"]
        return out


def _reference_hint(state: GameState) -> Any:
    """The greedy hint by the format's formula: each legal id's score, clipped, over 10."""
    n = state.num_players
    vector = np.zeros(num_distinct_actions(n), dtype=np.float32)
    for action, score in GreedyBot(0).action_scores(state).items():
        vector[action_to_id(action, n)] = min(50.0, max(-50.0, score)) / 10.0
    return vector


def _reference_logits(path: Path, state: GameState) -> Any:
    """The network computed here, straight from the file (the format's formula)."""
    n = state.num_players
    w = _arrays(path, n)
    pi_w, pi_b = w["pi_w"], w["pi_b"]
    seat = state.current_player
    assert seat is not None
    view = observe(state, seat)
    if w["format"] == 4:  # the deck-free input, the rules among it
        x = np.array(NetworkInput(state.config, n).features(view), dtype=np.float32)
    else:
        x = np.array(Encoder(state.config, n).features(view), dtype=np.float32)
    if "hint" in w:
        x = np.concatenate([x, _reference_hint(state)])
    h = np.maximum(x @ w["w0"] + w["b0"], 0)
    h = np.maximum(h @ w["w1"] + w["b1"], 0)
    logits = h @ pi_w + pi_b
    if "hint" in w:
        logits = logits + w["hint"] * x[-len(w["hint"]) :]
    return logits


def _play(bots: Sequence[Any], state: GameState) -> tuple[GameState, list[Action]]:
    chosen = []
    while not state.is_terminal:
        seat = state.current_player
        assert seat is not None
        action = bots[seat].choose(state)
        assert action in legal_actions(state)
        chosen.append(action)
        state = apply(state, action)
    return state, chosen


# ------------------------------------------------------------------ playing


@pytest.mark.parametrize(("n", "seed"), [(2, 1), (2, 2), (4, 3)])
def test_policy_plays_legal_moves_to_the_end_of_seeded_games(
    weights: Path, n: int, seed: int
) -> None:
    bots = [PolicyBot(p, weights=weights) for p in range(n)]
    end, chosen = _play(bots, new_game(n, seed=seed))
    assert end.is_terminal and len(end.round_scores) == 3
    assert len(chosen) > 30


@pytest.fixture(scope="module")
def weights_8bit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Random 8-bit weights (format 2) for 2 and 4 seats."""
    return write_weights(tmp_path_factory.mktemp("policy") / "int8.npz", seed=3, eight_bit=True)


@pytest.fixture(scope="module")
def weights_hint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Random 8-bit weights that read the greedy hint (format 3), for 2 to 5 seats."""
    return write_weights(
        tmp_path_factory.mktemp("policy") / "hint.npz",
        seat_counts=(2, 3, 4, 5),
        seed=4,
        eight_bit=True,
        hint=True,
    )


@pytest.fixture(scope="module")
def weights_rules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Random 8-bit weights of the deck-free input with the hint (format 4), 2 to 6 seats."""
    return write_weights(
        tmp_path_factory.mktemp("policy") / "rules.npz",
        seat_counts=(2, 3, 4, 5, 6),
        seed=5,
        eight_bit=True,
        hint=True,
        rules_input=True,
    )


CUSTOM = RuleConfig(
    deck={-20: 20, 0: 20, 3: 20, 40: 20},
    knocking="never",
    row_match="adjacent",
    setup_reveals="simultaneous",
    max_turns_per_round=60,
)
"""A config no preset has, its deck far outside the card slots' -2..13."""


@pytest.mark.parametrize(
    "kind", ["float", "8-bit", "greedy hint", "rules input", "rules input, custom"]
)
def test_policy_plays_the_networks_best_legal_move(
    weights: Path, weights_8bit: Path, weights_hint: Path, weights_rules: Path, kind: str
) -> None:
    files = {"float": weights, "8-bit": weights_8bit, "greedy hint": weights_hint}
    weights = files.get(kind, weights_rules)
    config = CUSTOM if kind.endswith("custom") else SEEDS
    bot = PolicyBot(0, weights=weights)
    checked = 0
    for n, seed in ((2, 5), (4, 6)):
        state = new_game(n, seed=seed, config=config)
        greedy = [GreedyBot(p) for p in range(n)]
        while not state.is_terminal:
            legal = legal_actions(state)
            if len(legal) > 1:
                logits = _reference_logits(weights, state)
                ids = [action_to_id(a, n) for a in legal]
                best = legal[int(np.argmax(logits[ids]))]
                assert bot.choose(state) == best
                probabilities = bot.action_probabilities(state)
                assert list(probabilities) == list(legal)
                assert sum(probabilities.values()) == pytest.approx(1.0)
                assert max(probabilities, key=probabilities.__getitem__) == best
                soft = np.exp(logits[ids] - logits[ids].max())
                assert [probabilities[a] for a in legal] == pytest.approx(
                    list(soft / soft.sum()), rel=1e-4
                )
                checked += 1
            state = apply(state, greedy[state.current_player or 0].choose(state))
    assert checked > 100


def test_same_seed_same_choices_and_ties_go_to_the_seeded_generator(tmp_path: Path) -> None:
    # All weights zero: every legal action ties, so the bot's generator picks.
    flat = write_weights(tmp_path / "flat.npz", scale=0.0)
    games: dict[int, list[list[Action]]] = {}
    for seed in (7, 7, 8):
        bots = [PolicyBot(seed + p, weights=flat) for p in range(2)]
        games.setdefault(seed, []).append(_play(bots, new_game(2, seed=11))[1])
    assert games[7][0] == games[7][1]
    assert games[8][0] != games[7][0]
    state = new_game(2, seed=11)
    probabilities = PolicyBot(0, weights=flat).action_probabilities(state)
    assert set(probabilities.values()) == {1 / len(legal_actions(state))}


def test_same_seed_same_game_with_random_weights(weights: Path) -> None:
    runs = [
        _play([PolicyBot(s, weights=weights) for s in (3, 4, 5, 6)], new_game(4, seed=9))[1]
        for _ in range(2)
    ]
    assert runs[0] == runs[1]


def same_view_variants(state: GameState) -> list[GameState]:
    """``hidden_variants`` that the seat to act really cannot tell from ``state``.

    After a refill the draw pile's contents are public, so a variant that trades a
    face-down card with the pile's top changes what the seat sees: it is left out.
    """
    seat = state.current_player
    view = observe(state, seat)
    return [v for v in hidden_variants(state) if observe(v, seat) == view]


@pytest.mark.parametrize("kind", ["features", "hint", "rules input"])
def test_policy_never_reads_face_down_cards_or_the_draw_pile(
    weights: Path, weights_hint: Path, weights_rules: Path, backend: str, kind: str
) -> None:
    # With NumPy, and in plain Python as on the play page; with and without the hint.
    weights = {"features": weights, "hint": weights_hint}.get(kind, weights_rules)
    states = _sample_states(250)
    assert {s.num_players for s in states} == {2, 3, 4, 5}

    def answers(seed: int, seen: GameState) -> tuple[Action, dict[Action, float]]:
        bot = PolicyBot(seed, weights=weights)  # fresh: its tie-breaks start at the seed
        return bot.choose(seen), bot.action_probabilities(seen)

    compared = 0
    for state in states:
        variants = same_view_variants(state)
        if not variants:
            continue
        # A fresh bot's answers on the state, read once for all its variants.
        on_state = {seed: answers(seed, state) for seed in (0, 1)}
        for variant in variants:
            for seed in (0, 1):
                assert answers(seed, variant) == on_state[seed]
            compared += 1
    assert compared > 200


def test_loaded_weights_are_shared_and_reloaded_when_the_file_changes(tmp_path: Path) -> None:
    path = write_weights(tmp_path / "w.npz", seed=1)
    first, second = PolicyBot(0, weights=path), PolicyBot(1, weights=str(path))
    assert first._policy is second._policy
    assert first.seat_counts == (2, 4)
    assert first.meta["command"] == "tests/test_policy.py write_weights (random)"
    state = new_game(2, seed=3)
    write_weights(path, seed=2, meta={"command": "again"})
    third = PolicyBot(0, weights=path)
    assert third._policy is not first._policy and third.meta["command"] == "again"
    assert third.action_probabilities(state) != first.action_probabilities(state)


def test_a_bot_survives_pickling_and_keeps_its_seed(weights: Path) -> None:
    import pickle

    state = new_game(4, seed=2)
    bot = PolicyBot(6, weights=weights)
    copy = pickle.loads(pickle.dumps(bot))
    assert repr(copy) == repr(bot)
    assert copy.action_probabilities(state) == bot.action_probabilities(state)
    assert (
        _play([copy, *[GreedyBot(p) for p in range(1, 4)]], state)[1]
        == _play([bot, *[GreedyBot(p) for p in range(1, 4)]], state)[1]
    )


def test_repr_names_the_seed_and_the_file(weights: Path) -> None:
    assert repr(PolicyBot(3, weights=weights)) == f"PolicyBot(seed=3, weights={str(weights)!r})"


# ------------------------------------------------------------------ errors


def test_a_seat_count_without_a_network_is_refused(tmp_path: Path) -> None:
    bot = PolicyBot(0, weights=write_weights(tmp_path / "two.npz", seat_counts=(2,)))
    with pytest.raises(ValueError, match=r"tables of 2 seats; the game has 4"):
        bot.choose(new_game(4, seed=1))


def test_cannot_play_names_what_the_policy_lacks(tmp_path: Path) -> None:
    two = write_weights(tmp_path / "two.npz", seat_counts=(2,))
    assert cannot_play(SEEDS, 2, weights=two) is None
    assert "plays 2 seats, not 4" in (cannot_play(SEEDS, 4, weights=two) or "")
    assert "trained for the rules of preset 'seeds'" in (
        cannot_play(preset("fr"), 2, weights=two) or ""
    )
    # A table's cap on a round's turns is no other rules for the network.
    short = attrs.evolve(SEEDS, max_turns_per_round=3)
    assert cannot_play(short, 2, weights=two) is None
    state = new_game(2, config=short, seed=1)
    assert PolicyBot(0, weights=two).choose(state) in legal_actions(state)
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a zip")
    assert "not a policy weights file" in (cannot_play(SEEDS, 2, weights=broken) or "")


def test_only_the_policy_bots_ask_the_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    import allegra_rules.bot_kinds as kinds

    monkeypatch.setattr(kinds, "cannot_play", lambda config, n: f"no {n} seats")
    assert kinds.unavailable("greedy", SEEDS, 3) is None
    assert kinds.unavailable("search-hard", SEEDS, 3) is None
    assert kinds.unavailable("policy", SEEDS, 3) == "no 3 seats"
    assert kinds.unavailable("search-guided", SEEDS, 3) == "no 3 seats"
    with pytest.raises(KeyError):
        kinds.unavailable("nobody", SEEDS, 3)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_a_rules_input_policy_plays_every_config_at_every_seat_count(
    weights_rules: Path, n: int
) -> None:
    _plays_every_config(weights_rules, n)
    assert "plays 2, 3, 4, 5, 6 seats, not 7" in (
        cannot_play(RuleConfig(max_players=8), 7, weights=weights_rules) or ""
    )


def _plays_every_config(weights: Path | None, n: int, moves: int = 400) -> None:
    """The policy of ``weights`` (None: the shipped) plays every preset and odd decks."""
    configs = [preset(name) for name in preset_names()] + [
        CUSTOM,
        RuleConfig(deck={7: 80}),
        RuleConfig(deck=dict.fromkeys(range(-1000, 1001, 10), 3), max_turns_per_round=15),
    ]
    rng = random.Random(n)
    for config in configs:
        if n > config.most_players():
            continue
        assert cannot_play(config, n, weights=weights) is None
        state = new_game(n, seed=rng.randrange(1000), config=config)
        bots = [PolicyBot(p, weights=weights) for p in range(n)]
        for _ in range(min(60, moves) if config.deck_size > 500 else moves):
            if state.is_terminal:
                break
            state = apply(state, bots[state.current_player or 0].choose(state))
        assert state.turns_played > 0 or state.round > 1 or state.is_terminal


def test_the_value_heads_read_the_view_alone(tmp_path: Path, backend: str) -> None:
    path = write_weights(
        tmp_path / "heads.npz",
        seed=6,
        hint=True,
        rules_input=True,
        value_heads=True,
        eight_bit=True,
    )
    bot = PolicyBot(0, weights=path)
    assert bot.has_value and not PolicyBot(0, weights=write_weights(tmp_path / "w.npz")).has_value
    if backend == "plain python":
        with pytest.raises(ValueError, match="NumPy only"):
            bot.value(new_game(2, seed=1))
        return
    with np.load(path) as data:
        w, b = data["4/heads_w"].astype(np.float32), data["4/heads_b"].astype(np.float32)
        w = w * data["4/heads_w_scale"][np.newaxis, :]
    checked = 0
    for state in _sample_states(120):
        if state.num_players != 4:
            continue
        value = bot.value(state)
        # The formula: the last hidden layer times the heads' matrix, then the win's
        # sigmoid and the ranks' softmax.
        h = bot._policy.networks[4].trunk(_rules_input(state))
        out = h @ w + b
        ranks = np.exp(out[2:] - out[2:].max())
        want = [out[0], 1 / (1 + np.exp(-out[1])), *(ranks / ranks.sum())]
        assert [value.margin, value.win, *value.ranks] == pytest.approx(want, abs=1e-4)
        for variant in same_view_variants(state):
            assert bot.value(variant) == value
        checked += 1
    assert checked > 20
    with pytest.raises(ValueError, match="game is over"):
        bot.value(_play([GreedyBot(0), GreedyBot(1)], new_game(2, seed=4))[0])
    # The search scores its positions with it (a SearchValue).
    state = new_game(4, seed=2)
    assert SearchBot(0, simulations=2, value=bot).choose(state) in legal_actions(state)


def _rules_input(state: GameState) -> list[float]:
    """A format 4 network's input with the hint, by the format's formula."""
    n = state.num_players
    x = NetworkInput(state.config, n).features(observe(state, state.current_player))
    return [*x, *_reference_hint(state).tolist()]


def test_other_rules_are_refused(weights: Path) -> None:
    bot = PolicyBot(0, weights=weights)
    with pytest.raises(ValueError, match=r"trained for preset 'seeds'"):
        bot.choose(new_game(2, config=preset("fr"), seed=1))


def test_a_finished_game_and_a_non_state_are_refused(weights: Path) -> None:
    bot = PolicyBot(0, weights=weights)
    end, _ = _play([GreedyBot(0), GreedyBot(1)], new_game(2, seed=4))
    with pytest.raises(ValueError, match="game is over"):
        bot.choose(end)
    with pytest.raises(ValueError, match="GameState"):
        bot.action_probabilities("state")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed"):
        PolicyBot("0", weights=weights)  # type: ignore[arg-type]


WRONG_FILES = [
    ({"meta": {"format": 5}}, "format 5; this version of allegra_rules reads formats 1, 2, 3 and"),
    ({"rules_input": True, "meta": {"card_slots": 12}}, "card_slots"),
    ({"rules_input": True, "meta": {"rule_inputs": [["knocking", "never"]]}}, "rule_inputs"),
    ({"rules_input": True, "meta": {"rule_inputs": 3}}, "rule_inputs"),
    ({"rules_input": True, "reshape": "2/w0"}, "reads 776 inputs"),
    ({"rules_input": True, "hint": True, "meta": {"greedy_input": False}}, "without greedy"),
    ({"rules_input": True, "value_heads": True, "drop": "2/heads_b"}, "no 2/heads_b"),
    ({"rules_input": True, "value_heads": True, "reshape": "4/heads_w"}, "the 4-seat heads"),
    ({"meta": {"format": "2"}}, "format '2'"),
    ({"meta": {"format": 1}, "eight_bit": True}, "format 1 has no 8-bit matrices"),
    ({"meta": {"seat_counts": []}}, "seat_counts"),
    ({"meta": {"hidden": [16, 13]}}, "hidden"),
    ({"drop": "4/pi_w"}, "4/pi_w"),
    ({"reshape": "2/w0"}, "reads 597 features"),
    ({"reshape": "4/w1"}, "do not chain"),
    ({"reshape": "2/pi_b"}, "2/pi_b"),
    ({"hint": True, "drop": "4/hint"}, "no 4/hint"),
    ({"hint": True, "reshape": "2/hint"}, "2/hint has shape"),
    ({"hint": True, "meta": {"format": 2}}, "format 2 has no greedy hint"),
    ({"hint": True, "reshape": "2/w0"}, "reads 597 features"),
    ({"hint": True, "hint_value": float("nan")}, "holds a NaN"),
]


@pytest.fixture(params=["numpy", "plain python"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each way a network runs: NumPy, or plain Python (the browser's, without NumPy)."""
    name: str = request.param
    monkeypatch.setattr(policy_module, "_plain_python", lambda: name == "plain python")
    return name


@pytest.mark.parametrize(("changes", "match"), WRONG_FILES)
def test_a_wrong_weights_file_is_refused(
    tmp_path: Path, changes: dict[str, Any], match: str, backend: str
) -> None:
    path = write_weights(tmp_path / "bad.npz", **changes)
    with pytest.raises(ValueError, match=match):
        PolicyBot(0, weights=path)


def test_files_that_are_not_weights_are_refused(tmp_path: Path, backend: str) -> None:
    text = tmp_path / "notes.npz"
    text.write_text("not an archive", encoding="utf-8")
    with pytest.raises(ValueError, match="not a policy weights file"):
        PolicyBot(0, weights=text)
    plain = tmp_path / "plain.npz"
    np.savez(plain, w=np.zeros(3))
    with pytest.raises(ValueError, match="no 'meta'"):
        PolicyBot(0, weights=plain)
    with pytest.raises(FileNotFoundError):
        PolicyBot(0, weights=tmp_path / "missing.npz")
    # The operating system's error names the path as given: "" is no file (not ".").
    with pytest.raises(FileNotFoundError) as empty:
        PolicyBot(0, weights="")
    assert empty.value.filename == ""
    with pytest.raises(IsADirectoryError) as folder:
        PolicyBot(0, weights=f"{tmp_path}/")
    assert folder.value.filename == f"{tmp_path}/"
    with pytest.raises(ValueError, match="weights must be"):
        PolicyBot(0, weights=3)  # type: ignore[arg-type]
    nan = write_weights(tmp_path / "nan.npz", scale=float("nan"))
    with pytest.raises(ValueError, match="NaN"):
        PolicyBot(0, weights=nan)


EIGHT_BIT_DAMAGE = [
    ("no scales", "go together"),
    ("float matrix with scales", "go together"),
    ("scales of another shape", "2/w1_scale has shape"),
    ("a negative scale", "float scales of 0 or more"),
    ("integer scales", "float scales of 0 or more"),
    ("an 8-bit bias", "2/b1 is int8"),
]


@pytest.mark.parametrize(("damage", "match"), EIGHT_BIT_DAMAGE)
def test_a_damaged_8bit_file_is_refused(
    weights_8bit: Path, tmp_path: Path, backend: str, damage: str, match: str
) -> None:
    with np.load(weights_8bit) as data:
        arrays = {name: data[name] for name in data.files}
    if damage == "no scales":
        del arrays["2/w1_scale"]
    elif damage == "float matrix with scales":
        arrays["2/w1"] = arrays["2/w1"].astype(np.float16)
    elif damage == "scales of another shape":
        arrays["2/w1_scale"] = arrays["2/w1_scale"][:-1]
    elif damage == "a negative scale":
        arrays["2/w1_scale"][3] = -0.5
    elif damage == "integer scales":
        arrays["2/w1_scale"] = np.ones_like(arrays["2/w1_scale"], dtype=np.int8)
    else:
        arrays["2/b1"] = np.zeros_like(arrays["2/b1"], dtype=np.int8)
    np.savez_compressed(tmp_path / "damaged.npz", **arrays)
    with pytest.raises(ValueError, match=match):
        PolicyBot(0, weights=tmp_path / "damaged.npz")


@pytest.mark.parametrize("entry", ["fortran", "integers"])
def test_plain_python_reads_only_what_training_writes(tmp_path: Path, entry: str) -> None:
    write_weights(tmp_path / "good.npz")
    with np.load(tmp_path / "good.npz") as data:
        arrays = {name: data[name] for name in data.files}
    if entry == "fortran":
        arrays["2/w0"] = np.asfortranarray(arrays["2/w0"])
    else:
        arrays["2/b0"] = arrays["2/b0"].astype(np.int32)
    np.savez(tmp_path / "odd.npz", **arrays)
    raw = (tmp_path / "odd.npz").read_bytes()
    with pytest.raises(ValueError, match="not a policy weights file"):
        policy_module._read_npz(raw, "odd.npz")


@pytest.mark.installed
@pytest.mark.parametrize(
    "which", ["random", "random 8-bit", "random with the hint", "random rules input", "shipped"]
)
def test_the_plain_python_network_plays_as_numpy_does(
    weights: Path,
    weights_8bit: Path,
    weights_hint: Path,
    weights_rules: Path,
    which: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shipped = which == "shipped"
    if shipped and not resources.files("allegra_rules").joinpath(SHIPPED_WEIGHTS).is_file():
        pytest.skip("this installation has no shipped weights")
    files = {
        "random": weights,
        "random 8-bit": weights_8bit,
        "random with the hint": weights_hint,
        "random rules input": weights_rules,
    }
    path = files.get(which)
    with_numpy = PolicyBot(7, weights=path)
    monkeypatch.setattr(policy_module, "_plain_python", lambda: True)
    plain = PolicyBot(7, weights=path)
    assert type(plain._policy.policy_for(2, SEEDS).networks[2]).__name__ == "_PlainNetwork"
    decisions = 0
    custom = which == "random rules input"
    for n, seed in ((2, 11), (4, 12)):
        for state in _choice_states(n, seed, 60, CUSTOM if custom and n == 4 else None):
            legal, expected = with_numpy._legal_logits(state)
            legal_plain, values = plain._legal_logits(state)
            assert legal_plain == legal
            assert values == pytest.approx(expected, rel=1e-4, abs=1e-4)
            assert plain.choose(state) == with_numpy.choose(state)
            decisions += 1
    assert decisions >= 60


@pytest.mark.installed
def test_in_the_browser_the_policy_plays_without_numpy() -> None:
    # Pyodide (sys.platform "emscripten") without NumPy: the play page's case.
    code = (
        "import sys; sys.modules['numpy'] = None; sys.platform = 'emscripten'\n"
        "from allegra_rules import legal_actions, new_game\n"
        "from allegra_rules.policy import PolicyBot, shipped_missing\n"
        "from allegra_rules.browser_table import bot_choices\n"
        "print(shipped_missing(), 'policy' in bot_choices())\n"
        "state = new_game(2, seed=4)\n"
        "print(PolicyBot(0).choose(state) in legal_actions(state))\n"
        "print(type(PolicyBot(0)._policy.policy_for(2, state.config).networks[2]).__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if "no shipped policy" in done.stderr:
        pytest.skip("this installation has no shipped weights")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["None", "True", "True", "_PlainNetwork"]


@pytest.mark.installed
def test_without_numpy_the_error_names_the_extra(weights: Path) -> None:
    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "from allegra_rules.bot_kinds import BOT_KINDS\n"
        "from allegra_rules.policy import PolicyBot\n"
        "assert 'policy' in BOT_KINDS\n"
        "from allegra_rules.policy import shipped_missing\n"
        "from allegra_rules.cli import main\n"
        "print(shipped_missing())\n"
        "print('exit', main(['demo', '--bots', 'greedy,policy', '--players', '2']))\n"
        "try:\n"
        f"    PolicyBot(0, weights={str(weights)!r})\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 3, done.stdout
    assert all('pip install ".[policy]"' in lines[k] for k in (0, 2))
    assert lines[1] == "exit 1"
    assert "--bots policy" in done.stderr and "[policy]" in done.stderr


@pytest.mark.installed
def test_importing_the_bots_loads_no_numpy() -> None:
    code = (
        "import sys, allegra_rules.bot_kinds, allegra_rules.policy, allegra_rules.search; "
        "print('numpy' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.split() == ["False"], done.stderr


# ------------------------------------------------------------------ guided search


class CountingGuide:
    """A guide that prefers the last legal action and counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def action_probabilities(self, state: GameState) -> dict[Action, float]:
        self.calls += 1
        legal = legal_actions(state)
        rest = 0.5 / max(1, len(legal) - 1)
        return {a: (0.5 if k == len(legal) - 1 else rest) for k, a in enumerate(legal)}


def _choice_states(
    n: int, seed: int, count: int, config: RuleConfig | None = None
) -> list[GameState]:
    states: list[GameState] = []
    state = new_game(n, seed=seed, config=config)
    bots = [GreedyBot(p) for p in range(n)]
    while not state.is_terminal and len(states) < count:
        if len(legal_actions(state)) > 2:
            states.append(state)
        state = apply(state, bots[state.current_player or 0].choose(state))
    return states


def test_the_guide_picks_the_candidates_and_plays_the_playouts() -> None:
    guide = CountingGuide()
    assert isinstance(guide, SearchGuide)
    for state in _choice_states(2, 3, 12):
        if state.phase.value == "knock":
            continue
        one = SearchBot(1, simulations=2, candidates=1, guide=guide)
        assert one.choose(state) == legal_actions(state)[-1]
    before = guide.calls
    state = _choice_states(4, 5, 20)[-1]
    SearchBot(1, simulations=3, candidates=2, guide=guide).choose(state)
    assert guide.calls - before > 3 * 2 * 4  # every seat's playout moves asked the guide


def test_a_guide_must_give_probabilities() -> None:
    with pytest.raises(ValueError, match="guide"):
        SearchBot(0, simulations=2, guide=GreedyBot(0))  # type: ignore[arg-type]


@pytest.mark.parametrize("n", [2, 4])
def test_guided_search_is_legal_and_deterministic(weights: Path, n: int) -> None:
    states = _choice_states(n, 20 + n, 6)
    for state in states:
        first = SearchBot(4, simulations=3, guide=PolicyBot(4, weights=weights))
        again = SearchBot(4, simulations=3, guide=PolicyBot(4, weights=weights))
        action = first.choose(state)
        assert action in legal_actions(state)
        assert again.choose(state) == action
    for variant in same_view_variants(states[-1]):
        bot = SearchBot(4, simulations=3, guide=PolicyBot(4, weights=weights))
        fresh = SearchBot(4, simulations=3, guide=PolicyBot(4, weights=weights))
        assert bot.choose(variant) == fresh.choose(states[-1])


def test_the_guided_level(weights: Path) -> None:
    bot = guided_search(2, weights=weights)
    assert (bot.simulations, bot.candidates) == GUIDED_LEVEL
    assert isinstance(bot.guide, PolicyBot) and bot.seed == 2
    assert repr(bot).startswith("SearchBot(seed=2, simulations=")
    assert "guide=PolicyBot(seed=2" in repr(bot)
    same = guided_level(PolicyBot(2, weights=weights), 2)
    state = _choice_states(2, 8, 3)[-1]
    assert bot.choose(state) == same.choose(state)


# ------------------------------------------------------------------ by name


def _shipped_from(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    """Let ``weights=None`` read ``path`` (the shipped file's place in the cache)."""
    key = f"allegra_rules/{SHIPPED_WEIGHTS}"
    monkeypatch.setitem(policy_module._CACHE, key, (None, policy_module._load(path)))


def test_policy_and_guided_search_by_name_through_simulate(
    weights: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _shipped_from(monkeypatch, weights)
    assert isinstance(BOT_KINDS["policy"](5), PolicyBot)
    guided = BOT_KINDS["search-guided"](5)
    assert isinstance(guided, SearchBot) and isinstance(guided.guide, PolicyBot)
    runs = [simulate(2, games=2, config=SEEDS, seed=4, bots=["policy", "greedy"]) for _ in range(2)]
    assert [g.totals for g in runs[0]] == [g.totals for g in runs[1]]
    assert all(len(g.totals) == 2 for g in runs[0])
    other = simulate(2, games=2, config=SEEDS, seed=4, bots=["greedy", "policy"])
    assert [g.totals for g in other] != [g.totals for g in runs[0]]


# ------------------------------------------------------------------ the shipped weights

_SHIPPED = resources.files("allegra_rules").joinpath(SHIPPED_WEIGHTS)
shipped = pytest.mark.skipif(
    not _SHIPPED.is_file(), reason="the package has no shipped weights (data/policy.npz) yet"
)


@pytest.mark.installed
@shipped
def test_the_shipped_weights_are_small_and_say_how_they_were_made() -> None:
    """One file per seat count, each at most 1 MB (a table of the play page loads one),
    all of them at most 3 MB; each file's meta names the command that made it."""
    folder = resources.files("allegra_rules").joinpath("data")
    index = json.loads(_SHIPPED.read_text(encoding="utf-8"))
    entries = [e for files in index["networks"].values() for e in files]
    sizes = [len(folder.joinpath(e["file"]).read_bytes()) for e in entries]
    assert max(sizes) <= 1_000_000 and sum(sizes) <= 3_000_000
    bot = PolicyBot(0)
    assert bot.seat_counts == tuple(range(2, 7))
    for n in bot.seat_counts:
        # The last file of a seat count plays every config (format 4, with value heads).
        assert "rule_inputs" in bot.meta["networks"][str(n)][-1]
        assert bot.meta["networks"][str(n)][-1]["value_heads"] is True
        for meta in bot.meta["networks"][str(n)]:
            hint, eight_bit = meta.get("greedy_input", False), meta.get("precision") == "int8"
            rules = "rule_inputs" in meta
            formats = (POLICY_FORMAT if rules else 3 if hint else 2 if eight_bit else 1,)
            assert meta["format"] in formats
            assert ("--greedy-input" in meta["command"]) == hint
            assert ("--rules-input" in meta["command"]) == rules
            if not rules:
                assert meta["preset"] == "seeds"
                assert meta["config_fingerprint"] == SEEDS.fingerprint
            assert meta["seat_counts"] == [n]
            assert meta["command"].startswith("allegra-rules train")


def _train_options(command: str) -> dict[str, str | None]:
    """The options of an ``allegra-rules train`` command line, less the run's own files."""
    words = shlex.split(command)
    options: dict[str, str | None] = {}
    for k, word in enumerate(words):
        if word.startswith("--"):
            values = list(itertools.takewhile(lambda w: not w.startswith("--"), words[k + 1 :]))
            options[word] = " ".join(values) or None
    own = {"--minutes", "--out", "--history", "--curve", "--checkpoint", "--no-progress"}
    return {k: v for k, v in options.items() if k not in own}


@pytest.mark.installed
@shipped
def test_the_gpu_check_trains_with_the_shipped_weights_command() -> None:
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "gpu_check.sh"
    text = script.read_text(encoding="utf-8").replace("\\\n", " ")
    line = next(x for x in text.splitlines() if "-m allegra_rules train" in x)
    command = "allegra-rules train" + line.split("-m allegra_rules train", 1)[1]
    mine = _train_options(command)
    # The shipped networks of every config differ in their seat count and seed alone;
    # the check's is 2.
    for n, metas in PolicyBot(0).meta["networks"].items():
        theirs = _train_options(metas[-1]["command"])
        assert theirs.pop("--seats") == n and theirs.pop("--seed") == n
        assert {k: v for k, v in mine.items() if k not in ("--seats", "--seed")} == theirs
    assert mine["--seats"] == "2" and mine["--seed"] == "2"
    assert "--minutes" in command and "--out" in command


@pytest.mark.installed
@shipped
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_the_shipped_policy_plays_every_config_and_is_offered_everywhere(n: int) -> None:
    """The shipped weights play every preset and odd decks at every seat count, so every
    surface that asks (``unavailable``: the server, the page, the command line) offers
    the policy and the guided search at every table."""
    _plays_every_config(None, n, moves=120)
    offers = bot_offers(["policy", "search-guided"])
    assert {name: tuple(offers[name][str(n)]) for name in offers} == dict.fromkeys(
        preset_names(), ("policy", "search-guided")
    )


@pytest.mark.installed
@shipped
@pytest.mark.parametrize("n", [2, 4])
def test_the_shipped_policy_plays_and_keeps_to_the_view(n: int) -> None:
    bots = [PolicyBot(p) for p in range(n)]
    end, _ = _play(bots, new_game(n, seed=n))
    assert end.is_terminal
    states = [s for s in _sample_states(250) if s.num_players == n]
    for state in states:
        for variant in same_view_variants(state):
            assert PolicyBot(1).choose(variant) == PolicyBot(1).choose(state)


@pytest.mark.installed
@shipped
def test_the_shipped_policy_beats_random_play() -> None:
    wins = 0.0
    rng = random.Random(0)
    for game in range(10):
        seats = ["policy", "random"] if game % 2 == 0 else ["random", "policy"]
        stats = simulate(2, games=1, config=SEEDS, seed=rng.randrange(10**6), bots=seats)
        winners = stats[0].winners
        wins += sum(seats[p] == "policy" for p in winners) / len(winners)
    assert wins >= 8


def test_policybot_imports_from_the_top_level_as_the_other_bots_do() -> None:
    """``from allegra_rules import PolicyBot`` (api.md), loaded on first use: NumPy only
    once a bot loads its weights."""
    code = (
        "import sys, allegra_rules\n"
        "from allegra_rules import PolicyBot\n"
        "from allegra_rules.policy import PolicyBot as Defined\n"
        "assert PolicyBot is Defined and 'PolicyBot' in allegra_rules.__all__\n"
        "assert 'numpy' not in sys.modules, 'numpy loaded by the import'\n"
        "PolicyBot(1)\n"
        "assert 'numpy' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@shipped
def test_asking_what_the_shipped_policy_plays_reads_its_index_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``cannot_play`` answers for the shipped weights from their index, loading no
    network (a page lists the bots of every preset and seat count at its start), and
    answers as the loaded policy plays; a bot loads only the networks it plays."""
    monkeypatch.setattr(policy_module, "_CACHE", {})
    policy_module._shipped.cache_clear()
    configs = [preset(name) for name in preset_names()]
    configs.append(attrs.evolve(SEEDS, max_turns_per_round=3))
    asked = {(c, n): cannot_play(c, n) for c in configs for n in range(2, 7)}
    assert policy_module._CACHE == {}  # nothing loaded
    bot = PolicyBot(0)
    assert policy_module._CACHE == {}  # still nothing: a network loads for its first move
    played = {(c, n) for (c, n), reason in asked.items() if reason is None}
    assert {n for _, n in played} == set(bot.meta["seat_counts"])
    for config, n in sorted(played, key=lambda cn: cn[1]):
        state = new_game(n, seed=n, config=config)
        assert bot.choose(state) in legal_actions(state)
    loaded = sorted(key.rsplit("/", 1)[1] for key in policy_module._CACHE)
    assert {int(name.split("-")[1].split(".")[0]) for name in loaded} == set(bot.seat_counts)
    assert all(key.startswith("allegra_rules/data/policy-") for key in policy_module._CACHE)
    assert {(c, n): cannot_play(c, n) for c in configs for n in range(2, 7)} == asked
    for (config, n), reason in asked.items():
        if reason is not None:
            with pytest.raises(ValueError, match=r"seats|rules differ|rules: they differ"):
                bot.choose(new_game(n, seed=1, config=config))


def _one_seat_files(folder: Path, source: Path, seat_counts: Sequence[int]) -> None:
    """Split the weights file ``source`` into ``policy-<n>.npz`` files in ``folder``."""
    with np.load(source) as data:
        arrays = {name: data[name] for name in data.files}
    meta = json.loads(str(arrays["meta"][()]))
    folder.mkdir(exist_ok=True)
    for n in seat_counts:
        own = {k: v for k, v in arrays.items() if k.startswith(f"{n}/")}
        own["meta"] = np.array(json.dumps({**meta, "seat_counts": [n]}))
        np.savez_compressed(folder / f"policy-{n}.npz", **own)


def test_the_shipped_index_names_each_file_and_a_bot_fetches_a_missing_one(
    weights_rules: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One file per seat count behind an index: a file the folder lacks comes from
    ``fetch_shipped_weights`` (the play page's case) and must be the one the index names."""
    folder = tmp_path / "data"
    _one_seat_files(folder, weights_rules, (2, 3))
    index = policy_module.write_shipped_index(folder)
    assert json.loads((folder / "policy.json").read_text()) == index
    assert list(index["networks"]) == ["2", "3"]
    assert index["networks"]["3"][0]["bytes"] == (folder / "policy-3.npz").stat().st_size
    shipped = policy_module._Shipped(index, f"{folder}/policy.json", folder)
    monkeypatch.setattr(policy_module, "_CACHE", {})
    monkeypatch.setattr(policy_module, "_shipped", lambda: shipped)
    assert cannot_play(preset("fr"), 3) is None and "plays 2, 3 seats" in str(cannot_play(SEEDS, 4))
    bot = PolicyBot(0)
    assert bot.seat_counts == (2, 3) and bot.meta["networks"]["3"][0]["seat_counts"] == [3]
    assert bot.meta["format"] == POLICY_FORMAT and "networks" not in bot.meta["networks"]["2"][0]
    reference = PolicyBot(0, weights=weights_rules)
    three = new_game(3, seed=5, config=preset("fr"))
    assert bot.choose(three) == reference.choose(three)
    # The 2-seat file is gone from the folder: it is fetched, and checked against the index.
    moved = (folder / "policy-2.npz").read_bytes()
    (folder / "policy-2.npz").unlink()
    two = new_game(2, seed=5)
    with pytest.raises(FileNotFoundError, match=r"policy-2\.npz"):
        bot.choose(two)
    asked: list[str] = []
    policy_module.fetch_shipped_weights(lambda name: asked.append(name) or moved[:-1] + b"x")
    try:
        with pytest.raises(ValueError, match="not the file the index names"):
            bot.choose(two)
        policy_module.fetch_shipped_weights(lambda name: asked.append(name) or moved)
        assert bot.choose(two) == reference.choose(two)
        bot.choose(new_game(2, seed=6))  # loaded once
    finally:
        policy_module.fetch_shipped_weights(None)
    assert asked == ["policy-2.npz", "policy-2.npz"]
    # An index with a file of the wrong seat count, or an odd entry, is refused.
    (folder / "policy-2.npz").write_bytes(moved)
    _one_seat_files(tmp_path / "odd", weights_rules, (2,))
    (tmp_path / "odd" / "policy-2.npz").rename(tmp_path / "odd" / "policy-4.npz")
    with pytest.raises(ValueError, match="4-seat network alone"):
        policy_module.write_shipped_index(tmp_path / "odd")
    bad = {"networks": {"2": [{**index["networks"]["2"][0], "file": "policy-3.npz"}]}}
    with pytest.raises(ValueError, match="wrong file"):
        policy_module._Shipped(bad, "odd.json", folder)
    with pytest.raises(ValueError, match="no weights files"):
        policy_module.write_shipped_index(tmp_path)


def test_a_presets_own_network_plays_its_rules_before_the_network_of_every_config(
    weights: Path, weights_rules: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``policy-<n>-<name>.npz`` plays the rules it was trained for; ``policy-<n>.npz``
    the rest; the value heads come from a network that has them."""
    folder = tmp_path / "data"
    _one_seat_files(folder, weights_rules, (2, 3))
    (folder / "policy-2.npz").rename(folder / "general.tmp")
    _one_seat_files(folder, weights, (2,))  # seeds' network (format 1), at 2 seats only
    (folder / "policy-2.npz").rename(folder / "policy-2-seeds.npz")
    (folder / "general.tmp").rename(folder / "policy-2.npz")
    index = policy_module.write_shipped_index(folder)
    assert [e["file"] for e in index["networks"]["2"]] == ["policy-2-seeds.npz", "policy-2.npz"]
    shipped = policy_module._Shipped(index, f"{folder}/policy.json", folder)
    monkeypatch.setattr(policy_module, "_CACHE", {})
    monkeypatch.setattr(policy_module, "_shipped", lambda: shipped)
    bot, own, general = (
        PolicyBot(0),
        PolicyBot(0, weights=weights),
        PolicyBot(0, weights=weights_rules),
    )
    seeds, fr = new_game(2, seed=3), new_game(2, seed=3, config=preset("fr"))
    for state in _choice_states(2, 3, 30):
        assert bot._legal_logits(state) == own._legal_logits(state)
    for state in _choice_states(2, 3, 30, preset("fr")):
        assert bot._legal_logits(state) == general._legal_logits(state)
    assert cannot_play(preset("fr"), 2) is None and cannot_play(SEEDS, 2) is None
    assert bot.has_value is False  # the random files have no value heads
    assert {key for key in policy_module._CACHE if key.startswith(str(folder))} == {
        f"{folder}/policy-2-seeds.npz",
        f"{folder}/policy-2.npz",
    }
    assert seeds.config != fr.config
    bad = tmp_path / "bad"
    bad.mkdir()
    (folder / "policy-2.npz").rename(bad / "policy-2-Seeds.npz")
    with pytest.raises(ValueError, match="not named"):
        policy_module.write_shipped_index(bad)


@pytest.mark.installed
@shipped
def test_the_shipped_index_is_the_one_its_files_make(tmp_path: Path) -> None:
    folder = resources.files("allegra_rules").joinpath("data")
    index = json.loads(_SHIPPED.read_text(encoding="utf-8"))
    copy = tmp_path / "data"
    copy.mkdir()
    for entries in index["networks"].values():
        for entry in entries:
            (copy / entry["file"]).write_bytes(folder.joinpath(entry["file"]).read_bytes())
    assert policy_module.write_shipped_index(copy) == index
    assert (copy / "policy.json").read_text(encoding="utf-8") == _SHIPPED.read_text(
        encoding="utf-8"
    )
