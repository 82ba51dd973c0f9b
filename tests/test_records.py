"""Game records: replay, JSON, fingerprints and preset ids."""

from __future__ import annotations

import copy
import hashlib
import json
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from allegra_rules import (
    DrawDeck,
    GameRecord,
    IllegalActionError,
    Phase,
    Pos,
    Reveal,
    RuleConfig,
    SaveFormatError,
    action_to_dict,
    apply,
    legal_actions,
    preset,
    preset_id_of,
    preset_ids,
    replay,
    state_digest,
)
from allegra_rules.records import RECORD_KEYS
from helpers import schema_validator, stack_deck
from random_games import CONFIGS, choose, players_for

G0 = [[-1, 0, 1, 2], [3, 4, 5, 6], [7, 8, 9, 10]]
G1 = [[11, 10, 9, 8], [7, 6, 5, 4], [3, 2, 1, 0]]

# The fr@1 preset written out by hand from the ambiguity list: seeds, plus A9
# "may_discard" and A20 "discard".
FR1: dict[str, Any] = {
    "deck": {
        "-1": 6,
        "0": 7,
        "1": 8,
        "2": 10,
        "3": 11,
        "4": 12,
        "5": 12,
        "6": 12,
        "7": 11,
        "8": 10,
        "9": 8,
        "10": 7,
        "11": 6,
    },
    "min_players": 2,
    "max_players": 6,
    "reveal_area": "zone",
    "first_player": "rotate",
    "discard_draw": "may_discard",
    "swap_area": "zone",
    "knocking": "always",
    "knock_winner": "drawer_chooses",
    "take_given_card": "allowed",
    "take_area": "zone",
    "row_match": "anywhere",
    "removed_cards": "discard",
    "round_end": "own_grid",
    "ender_tie": "not_doubled",
    "double_nonpositive": "yes",
    "max_turns_per_round": 500,
}
FR1_PRINT = hashlib.sha256(json.dumps(FR1, sort_keys=True, separators=(",", ":")).encode())


def pos(player: int, row: int, col: int) -> dict[str, int]:
    return {"player": player, "row": row, "col": col}


def hand_written_record() -> dict[str, Any]:
    deck = stack_deck(preset("fr@1"), 2, {0: G0, 1: G1}, discard=5, draw=[4])
    return {
        "schema_version": 1,
        "kind": "record",
        "num_players": 2,
        "preset": "fr@1",
        "config": copy.deepcopy(FR1),
        "config_fingerprint": FR1_PRINT.hexdigest(),
        "seed": None,
        "deck": deck,
        "actions": [
            {"type": "reveal", "pos": pos(0, 2, 0)},
            {"type": "reveal", "pos": pos(0, 2, 1)},
            {"type": "reveal", "pos": pos(1, 0, 0)},
            {"type": "reveal", "pos": pos(1, 0, 1)},
            {"type": "draw_discard"},
            {"type": "swap", "pos": pos(0, 0, 0)},
            {"type": "draw_deck"},
            {"type": "pass"},
            {"type": "discard"},
            {"type": "reveal", "pos": pos(1, 1, 0)},
        ],
        "final_state_sha256": None,
    }


def random_record(config: RuleConfig, n: int, seed: int, steps: int | None = None) -> GameRecord:
    record = GameRecord(num_players=n, config=config, seed=seed)
    state = record.initial_state()
    rng = random.Random(seed)
    actions = []
    while not state.is_terminal and (steps is None or len(actions) < steps):
        action = choose(rng, legal_actions(state))
        actions.append(action)
        state = apply(state, action)
    return record.with_actions(*actions)


# ------------------------------------------------------------------ round trips


def test_a_hand_written_record_replays_as_worked_out() -> None:
    text = json.dumps(hand_written_record())
    schema_validator("record").validate(json.loads(text))
    record = GameRecord.from_json(text)
    assert record.preset == "fr@1" and record.config == preset("fr@1")
    assert record.seed is None and record.deck is not None
    final = replay(record)
    assert final.phase is Phase.DRAW and final.current_player == 0
    assert final.turns_played == 2
    assert final.card(Pos(0, 0, 0)) == 5 and final.is_face_up(Pos(0, 0, 0))
    assert final.card(Pos(1, 1, 0)) == 7 and final.is_face_up(Pos(1, 1, 0))
    assert final.discard_pile == (-1, 4)
    assert final.setup_sums == (15, 21)
    # Written back, the record names the same rules and pins the final state.
    data = json.loads(record.to_json())
    assert data["config"] == FR1
    assert data["config_fingerprint"] == FR1_PRINT.hexdigest()
    assert data["actions"] == hand_written_record()["actions"]
    assert data["final_state_sha256"] == hashlib.sha256(final.to_json().encode()).hexdigest()


@pytest.mark.parametrize("pid", preset_ids())
def test_records_under_every_preset_version_replay_exactly(pid: str) -> None:
    config = preset(pid)
    for n in (2, 4):
        record = random_record(config, n, seed=n + 10)
        final = replay(record)
        assert final.is_terminal
        text = record.to_json()
        data = json.loads(text)
        schema_validator("record").validate(data)
        assert set(data) == set(RECORD_KEYS)
        assert data["preset"] == preset_id_of(config)
        assert preset(data["preset"]) == config
        loaded = GameRecord.from_json(text)
        assert loaded == record
        assert replay(loaded) == final
        assert loaded.to_json() == text
        assert list(loaded.states()) == list(record.states())


def test_the_preset_id_is_kept_when_given() -> None:
    for name in ("de", "de@1", "pl@1", "seeds"):
        record = GameRecord(num_players=3, config=preset(name), seed=1, preset=name)
        assert record.preset == (name if "@" in name else name + "@1")
        loaded = GameRecord.from_json(record.to_json())
        assert loaded.preset == record.preset
    assert GameRecord(num_players=3, config=preset("de@1")).preset == "seeds@1"
    custom = GameRecord(num_players=3, config=RuleConfig(knocking="never"))
    assert custom.preset is None
    assert json.loads(custom.to_json())["preset"] is None


def test_deck_records_and_states() -> None:
    deck = stack_deck(preset("seeds"), 3, {0: G0}, discard=5)
    record = GameRecord(num_players=3, deck=deck)
    assert record.config == preset("seeds") and record.preset == "seeds@1"
    record = GameRecord(num_players=3, deck=deck, actions=[])
    first = record.initial_state()
    assert first.cells[:12] == tuple(c for row in G0 for c in row)
    action = legal_actions(first)[3]
    record = record.with_actions(action)
    states = list(record.states())
    assert states == [first, apply(first, action)]
    assert GameRecord.from_json(record.to_json()) == record


def test_exotic_configs_round_trip() -> None:
    for name in ("exotic", "short", "small_deck"):
        config = CONFIGS[name]
        n = players_for(config, 3)
        record = random_record(config, n, seed=4)
        assert record.preset is None
        assert replay(GameRecord.from_json(record.to_json())) == replay(record)


# ------------------------------------------------------------------- rejections


def _mutated(change: Any) -> dict[str, Any]:
    data = hand_written_record()
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda d: d.__setitem__("config_fingerprint", "0" * 64), "$.config_fingerprint"),
        (lambda d: d.__setitem__("config_fingerprint", "XYZ"), "$.config_fingerprint"),
        (lambda d: d["config"].__setitem__("knocking", "never"), "$.config_fingerprint"),
        (lambda d: d.__setitem__("preset", "fr@9"), "$.preset"),
        (lambda d: d.__setitem__("preset", "fr"), "$.preset"),
        (lambda d: d.__setitem__("preset", "chess@1"), "$.preset"),
        (lambda d: d.__setitem__("preset", "seeds@1"), "$.preset"),
        (lambda d: d.__setitem__("preset", 1), "$.preset"),
        (lambda d: d["actions"].__setitem__(5, {"type": "knock"}), "$.actions[5]"),
        (
            lambda d: d["actions"].__setitem__(0, {"type": "reveal", "pos": pos(1, 0, 0)}),
            "$.actions[0]",
        ),
        (
            lambda d: d["actions"].__setitem__(2, {"type": "swap", "pos": pos(0, 3, 0)}),
            "$.actions[2].pos.row",
        ),
        (
            lambda d: d["actions"].__setitem__(2, {"type": "give", "player": 2}),
            "$.actions[2].player",
        ),
        (lambda d: d["actions"].insert(0, {"type": "draw_deck"}), "$.actions[0]"),
        (lambda d: d["deck"].__setitem__(0, 11), "$.deck"),
        (lambda d: d["deck"].pop(), "$.deck"),
        (lambda d: d.__setitem__("deck", "shuffled"), "$.deck"),
        (lambda d: d.__setitem__("seed", 2.5), "$.seed"),
        (lambda d: d.__setitem__("num_players", 1), "$.num_players"),
        (lambda d: d.__setitem__("final_state_sha256", "0" * 64), "$.final_state_sha256"),
        (lambda d: d.__setitem__("final_state_sha256", "maybe"), "$.final_state_sha256"),
        (lambda d: d.__setitem__("schema_version", 3), "$.schema_version"),
        (lambda d: d.__setitem__("kind", "state"), "$.kind"),
        (lambda d: d.pop("actions"), "$.actions"),
        (lambda d: d.__setitem__("winner", 0), "$.winner"),
    ],
)
def test_tampered_records_are_rejected(change: Any, path: str) -> None:
    GameRecord.from_json(json.dumps(hand_written_record()))
    with pytest.raises(SaveFormatError) as info:
        GameRecord.from_json(json.dumps(_mutated(change)))
    assert info.value.path == path, str(info.value)


def test_a_record_whose_config_matches_the_fingerprint_but_not_the_preset() -> None:
    data = hand_written_record()
    data["config"]["removed_cards"] = "out_of_play"
    data["config_fingerprint"] = hashlib.sha256(
        json.dumps(data["config"], sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()
    with pytest.raises(SaveFormatError, match="removed_cards") as info:
        GameRecord.from_json(json.dumps(data))
    assert info.value.path == "$.preset"
    data["preset"] = None
    assert GameRecord.from_json(json.dumps(data)).config.removed_cards == "out_of_play"


def test_a_changed_game_does_not_match_its_digest() -> None:
    record = random_record(preset("seeds"), 2, seed=3, steps=60)
    data = json.loads(record.to_json())
    state = record.initial_state()
    for action in record.actions[:-1]:
        state = apply(state, action)
    others = [a for a in legal_actions(state) if a != record.actions[-1]]
    assert others
    data["actions"][-1] = action_to_dict(others[0])
    with pytest.raises(SaveFormatError) as info:
        GameRecord.from_json(json.dumps(data))
    assert info.value.path == "$.final_state_sha256"
    data["final_state_sha256"] = None
    assert replay(GameRecord.from_json(json.dumps(data))) == apply(state, others[0])


def test_constructor_and_replay_errors() -> None:
    with pytest.raises(ValueError, match="preset"):
        GameRecord(num_players=2, config=preset("fr"), preset="published")
    with pytest.raises(ValueError, match="unknown preset"):
        GameRecord(num_players=2, preset="chess")
    with pytest.raises(ValueError, match="num_players"):
        GameRecord(num_players=1)
    with pytest.raises(ValueError, match="deck"):
        GameRecord(num_players=2, deck=[1, 2, 3])
    with pytest.raises(ValueError, match="not an allegra_rules action"):
        GameRecord(num_players=2, actions=["draw"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="config"):
        GameRecord(num_players=2, config="fr")  # type: ignore[arg-type]
    bad = GameRecord(num_players=2, seed=1, actions=[Reveal(Pos(0, 0, 0)), DrawDeck()])
    with pytest.raises(IllegalActionError, match="action 1 of the record"):
        replay(bad)
    with pytest.raises(IllegalActionError, match="action 1 of the record"):
        bad.to_json()
    with pytest.raises(IllegalActionError, match="action 1 of the record"):
        list(bad.states())
    with pytest.raises(ValueError, match="GameRecord"):
        replay("record")  # type: ignore[arg-type]


def test_state_digest_tells_states_apart() -> None:
    record = random_record(preset("seeds"), 2, seed=9, steps=5)
    states = list(record.states())
    digests = {state_digest(s) for s in states}
    assert len(digests) == len(states)
    assert state_digest(states[-1]) == hashlib.sha256(states[-1].to_json().encode()).hexdigest()


# ---------------------------------------------------------------------- fuzzing

JSON_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-2, 12), st.text(max_size=4))


@given(st.data())
def test_fuzz_mutated_records(data: st.DataObject) -> None:
    doc = hand_written_record()
    doc["actions"] = doc["actions"][: data.draw(st.integers(0, 10))]
    key = data.draw(st.sampled_from(sorted(doc)))
    value = doc[key]
    if isinstance(value, list) and value and data.draw(st.booleans()):
        i = data.draw(st.integers(0, len(value) - 1))
        value[i] = data.draw(st.one_of(JSON_LEAVES, st.just(copy.deepcopy(value[-1]))))
    elif isinstance(value, dict) and data.draw(st.booleans()):
        inner = data.draw(st.sampled_from(sorted(value)))
        value[inner] = data.draw(JSON_LEAVES)
    else:
        doc[key] = data.draw(JSON_LEAVES)
    try:
        record = GameRecord.from_json(json.dumps(doc))
    except SaveFormatError as exc:
        where = exc.path
    else:
        assert GameRecord.from_json(record.to_json()) == record
        return
    assert where.startswith("$")


@given(
    st.recursive(
        JSON_LEAVES,
        lambda x: st.lists(x, max_size=4) | st.dictionaries(st.text(max_size=4), x, max_size=4),
        max_leaves=10,
    )
)
def test_fuzz_arbitrary_json_records(value: Any) -> None:
    with pytest.raises(SaveFormatError):
        GameRecord.from_json(json.dumps(value))
