"""Saved games: the state and action JSON formats, their schemas, and the strict loader."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from collections.abc import Callable
from importlib import resources
from typing import Any

import attrs
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import allegra_rules as ar
from allegra_rules import (
    DEFAULT_DECK,
    OPTION_CHOICES,
    Discard,
    DrawDeck,
    GameState,
    Give,
    Pass,
    Phase,
    Pos,
    Reveal,
    RuleConfig,
    SaveFormatError,
    Swap,
    Take,
    action_from_json,
    action_to_json,
    apply,
    json_schema,
    legal_actions,
    new_game,
    observe,
    preset,
    serialize,
    state_from_json,
    state_to_json,
)
from allegra_rules.actions import DISCARD, DRAW_DECK, DRAW_DISCARD, KNOCK, PASS, action_table
from allegra_rules.fields import STATE_FIELDS, later_fields
from allegra_rules.serialize import (
    MAX_DOCUMENT_BYTES,
    MAX_NESTING_DEPTH,
    SCHEMA_VERSION,
    SCHEMA_VERSIONS,
    STATE_KEYS,
    STATE_KEYS_V1,
)
from helpers import game, schema_validator, setup_reveals, thorough_run
from random_games import CONFIGS, exchange_states, game_states, play, players_for, states

GRID0 = [[-1, 0, 1, 2], [3, 4, 5, 6], [7, 8, 9, 10]]
GRID1 = [[11, 10, 9, 8], [7, 6, 5, 4], [3, 2, 1, 0]]


def doc(state: GameState) -> dict[str, Any]:
    return json.loads(state.to_json())


def load(data: object) -> GameState:
    return state_from_json(json.dumps(data))


def rejected(data: object) -> SaveFormatError:
    with pytest.raises(SaveFormatError) as info:
        load(data)
    return info.value


# ------------------------------------------------------------------ round trips


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_every_state_of_random_games_round_trips(name: str) -> None:
    config = CONFIGS[name]
    phases = set()
    for n in (2, 3, 6):
        n = players_for(config, n)
        for k, state in enumerate(game_states(config, n, seed=n * 101)):
            if k % 9 and not state.is_terminal:
                continue
            text = state.to_json()
            back = GameState.from_json(text)
            assert back == state
            assert back.to_json() == text
            assert legal_actions(back) == legal_actions(state)
            phases.add(state.phase)
            if k % 45 == 0 or state.is_terminal:
                schema_validator("state").validate(json.loads(text))
    assert Phase.OVER in phases and Phase.DRAW in phases


def test_exchange_states_round_trip_and_validate() -> None:
    found = exchange_states(seed=3)
    assert {s.phase for s in found} >= {Phase.TAKE, Phase.HOLD_TAKEN}
    for state in found:
        text = state_to_json(state)
        schema_validator("state").validate(json.loads(text))
        assert state_from_json(text) == state
        assert state_from_json(text.encode()) == state


def test_the_document_holds_the_fields_as_dealt() -> None:
    config = preset("seeds")
    state = game(2, {0: GRID0, 1: GRID1}, discard=4, draw=[5, 6, 7], seed=99)
    data = doc(state)
    # A new game is written in the newest version; one started in version 1 (as a game
    # stored by 0.1.0 was) exactly as 0.1.0 wrote it, without the later fields.
    assert set(data) == set(STATE_KEYS)
    assert data["schema_version"] == SCHEMA_VERSION and data["kind"] == "state"
    old = doc(new_game(2, config=config, seed=99, schema_version=1))
    later = {f.name for f in later_fields(STATE_FIELDS, 1)}
    assert set(old) == set(STATE_KEYS_V1) == set(STATE_KEYS) - later
    assert old["schema_version"] == 1
    assert data["cells"][:12] == [c for row in GRID0 for c in row]
    assert data["cells"][12:] == [c for row in GRID1 for c in row]
    assert data["face_down"] == [True] * 24
    assert data["discard_pile"] == [4]
    assert data["draw_pile"][:3] == [5, 6, 7]
    assert len(data["draw_pile"]) == 120 - 24 - 1
    assert data["seed"] == 99
    assert data["phase"] == "setup" and data["current_player"] == 0
    assert data["config"]["deck"] == {str(v): k for v, k in DEFAULT_DECK}
    assert data["config"]["knocking"] == "always"
    assert data["held"] is None and data["in_hand"] == [] and data["last_round"] is None
    after = apply(state, Reveal(Pos(0, 0, 1)))
    assert doc(after)["face_down"][1] is False
    assert doc(after)["setup_sums"] == [0, 0]
    assert doc(apply(after, Reveal(Pos(0, 2, 3))))["setup_sums"] == [10, 0]
    assert config.to_dict() == data["config"]


def test_json_is_canonical() -> None:
    state = play(preset("fr@1"), 3, seed=5, steps=70)
    text = state.to_json()
    assert json.dumps(json.loads(text), sort_keys=True, separators=(",", ":")) == text
    assert text == state_to_json(state)
    assert " " not in text and "\n" not in text


@pytest.mark.installed
def test_the_schema_files_ship_in_the_package() -> None:
    folder = resources.files("allegra_rules") / "schemas"
    for kind in ("state", "action", "record", "view"):
        schema = json.loads((folder / f"{kind}.schema.json").read_text(encoding="utf-8"))
        type(schema_validator(kind)).check_schema(schema)
        assert schema == json_schema(kind)
        assert schema["properties"]["schema_version"]["enum"] == list(SCHEMA_VERSIONS)
        assert schema["properties"]["kind"] == {"const": kind}
    with pytest.raises(ValueError, match="unknown schema"):
        json_schema("game")


@pytest.mark.installed
def test_schemas_agree_with_the_code() -> None:
    state_schema = json_schema("state")
    assert sorted(state_schema["required"]) == sorted(STATE_KEYS_V1)
    assert sorted(state_schema["properties"]) == sorted(STATE_KEYS)
    assert state_schema["additionalProperties"] is False
    assert state_schema["properties"]["phase"]["enum"] == [p.value for p in Phase]
    for kind in ("state", "record", "view"):
        options = json_schema(kind)["$defs"]["config"]["properties"]
        for name, choices in OPTION_CHOICES.items():
            assert options[name]["enum"] == list(choices), (kind, name)
        assert set(options) == set(RuleConfig().to_dict(complete=True))
    # Every action class has a type string, and the schema lists exactly those.
    branches = json_schema("action")["$defs"]["action_body"]["oneOf"]
    listed = set()
    for branch in branches:
        kind = branch["properties"]["type"]
        listed |= set(kind.get("enum", [kind.get("const")]))
    written = {json.loads(action_to_json(a))["type"] for a in _all_actions(3)}
    assert (
        listed
        == written
        == {
            "reveal",
            "swap",
            "take",
            "give",
            "draw_deck",
            "draw_discard",
            "knock",
            "pass",
            "discard",
        }
    )


def test_the_schema_rejects_what_it_should() -> None:
    data = doc(new_game(2, seed=1))
    validator = schema_validator("state")
    assert validator.is_valid(data)
    for key, value in [
        ("num_players", True),
        ("cells", "none"),
        ("phase", "thinking"),
        ("schema_version", 3),
        ("held", 1.5),
    ]:
        bad = copy.deepcopy(data)
        bad[key] = value
        assert not validator.is_valid(bad), key
        with pytest.raises(SaveFormatError):
            load(bad)
    bad = copy.deepcopy(data)
    bad["extra"] = 1
    assert not validator.is_valid(bad)
    bad = copy.deepcopy(data)
    del bad["round"]
    assert not validator.is_valid(bad)


# ------------------------------------------------------------------- rejections


def _set(key: str, value: object) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        data[key] = value

    return change


def _cell(i: int, value: object) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        data["cells"][i] = value

    return change


def _config(key: str, value: object) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        data["config"][key] = value

    return change


def _drop(key: str) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        del data[key]

    return change


def _move_draw_card_to(key: str) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        data[key] = data["draw_pile"].pop(0)

    return change


def _swap_cell_with_draw(data: dict[str, Any]) -> None:
    # Conserves the cards: only a consistency check can catch nothing here, so the
    # state must stay valid.
    data["cells"][14], data["draw_pile"][0] = data["draw_pile"][0], data["cells"][14]


def _conservation_broken(data: dict[str, Any]) -> None:
    data["draw_pile"][0] = 11 if data["draw_pile"][0] != 11 else 10


# A state in the draw phase of round 1, after setup (seat 0 draws).
MID = play(preset("seeds"), 3, seed=4, steps=6)

REJECTIONS: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("newer version", _set("schema_version", 3), "$.schema_version"),
    (
        "version 2 document called version 1",
        _set("schema_version", 1),
        f"$.{later_fields(STATE_FIELDS, 1)[0].name}",  # the first key version 1 lacks
    ),
    ("version as text", _set("schema_version", "1"), "$.schema_version"),
    ("version as bool", _set("schema_version", True), "$.schema_version"),
    ("missing version", _drop("schema_version"), "$.schema_version"),
    ("other kind", _set("kind", "record"), "$.kind"),
    ("missing key", _drop("held"), "$.held"),
    ("unknown key", _set("comment", "hi"), "$.comment"),
    ("bool seat count", _set("num_players", True), "$.num_players"),
    ("too many seats", _set("num_players", 7), "$.num_players"),
    ("card out of range", _cell(14, 99), "$.cells[14]"),
    ("card as float", _cell(14, 3.0), "$.cells[14]"),
    ("card as bool", _cell(14, False), "$.cells[14]"),
    ("card as string", _cell(14, "7"), "$.cells[14]"),
    ("cells too short", lambda d: d["cells"].pop(), "$.cells"),
    ("broken conservation", _conservation_broken, "$"),
    ("card lost", lambda d: d["draw_pile"].pop(), "$"),
    ("unknown phase", _set("phase", "thinking"), "$.phase"),
    ("wrong current player", _set("current_player", 2), "$.current_player"),
    ("current player out of range", _set("current_player", 3), "$.current_player"),
    ("held card outside a turn", _move_draw_card_to("held"), "$.held"),
    ("round out of range", _set("round", 4), "$.round"),
    ("round without scores", _set("round", 2), "$.round_scores"),
    ("totals without rounds", _set("totals", [1, 0, -1]), "$.totals"),
    ("winners mid-game", _set("winners", [0]), "$.winners"),
    ("seed as float", _set("seed", 1.5), "$.seed"),
    ("seed as string", _set("seed", "7"), "$.seed"),
    ("setup sums too short", _set("setup_sums", [0, 0]), "$.setup_sums"),
    ("knockers between turns", _set("knockers", [1]), "$.knockers"),
    ("duplicate knockers", _set("knockers", [1, 1]), "$.knockers[1]"),
    ("knocker between turns", _set("knocker", 1), "$.knocker"),
    ("given_at out of range", _set("given_at", 36), "$.given_at"),
    ("flag as int", _set("held_was_face_down", 0), "$.held_was_face_down"),
    ("flag outside an exchange", _set("hand_was_face_down", True), "$.hand_was_face_down"),
    ("refills above turns", _set("refills", 99), "$.refills"),
    ("turn count off", _set("turns_played", 1), "$.drawer"),
    ("ender without final turns", _set("ender", 1), "$.final_turns"),
    ("last round too early", _set("last_round", {}), "$.last_round.round"),
    ("in_hand outside an exchange", _set("in_hand", [{"player": 1, "card": 3}]), "$"),
    ("in_hand entry malformed", _set("in_hand", [{"player": 1}]), "$.in_hand[0].card"),
    ("unknown config key", _config("colour", "red"), "$.config.colour"),
    ("bad option", _config("knocking", "sometimes"), "$.config.knocking"),
    ("option as number", _config("row_match", 1), "$.config.row_match"),
    ("bool in config", _config("max_turns_per_round", True), "$.config.max_turns_per_round"),
    (
        "non-canonical deck key",
        lambda d: d["config"]["deck"].update({"05": 1}),
        '$.config.deck["05"]',
    ),
    (
        "negative zero deck key",
        lambda d: d["config"]["deck"].update({"-0": 1}),
        '$.config.deck["-0"]',
    ),
    ("zero copies", lambda d: d["config"]["deck"].update({"5": 0}), '$.config.deck["5"]'),
    ("min above max", _config("min_players", 7), "$.config"),
    ("config not an object", _set("config", "seeds"), "$.config"),
    ("face-down gap", lambda d: (_cell(14, None)(d), d["draw_pile"].append(0)), "$.face_down[14]"),
]


@pytest.mark.parametrize(
    ("change", "path"), [r[1:] for r in REJECTIONS], ids=[r[0] for r in REJECTIONS]
)
def test_tampered_documents_are_rejected_at_their_path(
    change: Callable[[dict[str, Any]], None], path: str
) -> None:
    data = doc(MID)
    assert MID.phase is Phase.DRAW and MID.current_player == 0
    load(data)  # the untouched document loads
    change(data)
    error = rejected(data)
    assert isinstance(error, ValueError)
    assert error.path == path, str(error)
    assert str(error).startswith(path + ": ")


def test_a_conserving_swap_of_hidden_cards_is_still_valid() -> None:
    data = doc(MID)
    assert data["face_down"][14]
    _swap_cell_with_draw(data)
    state = load(data)
    assert state != MID
    assert state.all_cards() == MID.all_cards()


def test_conservation_errors_say_what_is_extra_and_missing() -> None:
    data = doc(MID)
    data["draw_pile"][0] = 11 if data["draw_pile"][0] != 11 else 10
    message = str(rejected(data))
    assert "extra 1x" in message and "missing 1x" in message


def _in_phase(phase: Phase) -> GameState:
    for seed in range(20):
        for state in game_states(preset("seeds"), 3, seed):
            if state.phase is phase:
                return state
    raise AssertionError(phase)


@pytest.mark.parametrize(
    ("phase", "key", "value", "path"),
    [
        (Phase.TAKE, "knocker", None, "$.knocker"),
        (Phase.TAKE, "given_at", None, "$.given_at"),
        (Phase.TAKE, "in_hand", [], "$"),
        (Phase.TAKE, "knockers", [], "$.knocker"),
        (Phase.HOLD_TAKEN, "taken_at", None, "$.taken_at"),
        (Phase.HOLD_TAKEN, "phase", "take", "$.out_of_play"),
        (Phase.KNOCK, "held", None, "$"),
        (Phase.KNOCK, "current_player", None, "$.current_player"),
        (Phase.KNOCKER_SWAP, "current_player", "drawer", "$.current_player"),
        (Phase.FLIP, "phase", "draw", "$.drawer"),
        (Phase.HOLD_DECK, "phase", "hold_discard", "$.knockers"),
        (Phase.OVER, "winners", [], "$.winners"),
        (Phase.OVER, "current_player", 0, "$.current_player"),
        (Phase.OVER, "round", 2, "$.round"),
    ],
)
def test_phase_consistency(phase: Phase, key: str, value: object, path: str) -> None:
    state = _in_phase(phase)
    if phase is Phase.HOLD_DECK and not state.knockers:
        state = next(
            s
            for seed in range(40)
            for s in game_states(preset("seeds"), 3, seed)
            if s.phase is Phase.HOLD_DECK and s.knockers
        )
    data = doc(state)
    load(data)
    if value == "drawer":
        value = data["drawer"]
    data[key] = value
    assert rejected(data).path == path


def test_last_round_must_add_up() -> None:
    state = next(s for s in game_states(preset("seeds"), 2, 7) if s.round == 2)
    data = doc(state)
    assert data["last_round"]["round"] == 1
    for key, change in [
        ("scores", lambda lr: lr["scores"].__setitem__(0, lr["scores"][0] + 1)),
        ("zone_sums", lambda lr: lr["zone_sums"].__setitem__(1, lr["zone_sums"][1] - 1)),
        ("doubled", lambda lr: lr.__setitem__("doubled", not lr["doubled"])),
        ("round", lambda lr: lr.__setitem__("round", 2)),
        ("cells", lambda lr: lr["cells"].__setitem__(0, 99)),
    ]:
        bad = copy.deepcopy(data)
        change(bad["last_round"])
        error = rejected(bad)
        assert error.path.startswith(f"$.last_round.{key}"), (key, str(error))
    bad = copy.deepcopy(data)
    bad["round_scores"][0][0] += 1
    bad["totals"][0] += 1
    assert rejected(bad).path == "$.round_scores"


# ------------------------------------------------------------- size and syntax


def test_size_limit_is_checked_before_parsing() -> None:
    text = MID.to_json()
    assert state_from_json(text, max_bytes=len(text)) == MID
    with pytest.raises(SaveFormatError, match="bytes") as info:
        state_from_json(text, max_bytes=len(text) - 1)
    assert info.value.path == "$"
    huge = "[" + "0," * (MAX_DOCUMENT_BYTES // 2) + "0]"
    with pytest.raises(SaveFormatError, match="MAX_DOCUMENT_BYTES"):
        state_from_json(huge)
    # Multi-byte characters count in bytes, not characters.
    wide = '"' + "\u20ac" * (MAX_DOCUMENT_BYTES // 3 + 1) + '"'
    assert len(wide) < MAX_DOCUMENT_BYTES
    with pytest.raises(SaveFormatError, match="bytes"):
        state_from_json(wide)
    with pytest.raises(ValueError, match="max_bytes"):
        state_from_json(text, max_bytes=0)


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"a":' * 5000 + "1" + "}" * 5000,
        "[" * (MAX_NESTING_DEPTH + 1) + "]" * (MAX_NESTING_DEPTH + 1),
    ],
)
def test_deep_nesting_is_rejected_without_recursion_error(text: str) -> None:
    with pytest.raises(SaveFormatError, match="nest"):
        state_from_json(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "{",
        "nul",
        '{"schema_version": NaN}',
        '{"schema_version": Infinity}',
        '{"schema_version": -Infinity}',
        '{"schema_version": 1, "schema_version": 1}',
        "1" * 5000,
        "[1] x",
        '"\\ud800"',
        b"\xff\xfe{}",
        b"\xef\xbb\xbf{}",
        "null",
        "[]",
        "17",
        '"state"',
        '{"schema_version": 1}',
        '{"schema_version": 1, "kind": "state"}',
    ],
)
def test_malformed_json_is_rejected(text: str | bytes) -> None:
    with pytest.raises(SaveFormatError) as info:
        state_from_json(text)
    assert info.value.path.startswith("$")


@pytest.mark.parametrize("value", [None, 17, 1.5, ["{}"], {"a": 1}])
def test_non_text_input_is_rejected(value: Any) -> None:
    with pytest.raises(SaveFormatError, match="str or bytes"):
        state_from_json(value)


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    data = doc(MID)
    data["kind"] = "[" * 100 + '"\\' + "{" * 100
    error = rejected(data)
    assert error.path == "$.kind"


# --------------------------------------------------------------------- fuzzing

JSON_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 130),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=6), inner, max_size=5)
    ),
    max_leaves=20,
)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += _paths(item, (*path, i))
    return out


def _mutate(data: Any, rng: random.Random, replacement: Any, *, by_key: bool = False) -> Any:
    """Change one random place of ``data``: replace, nudge, delete, add or reorder.

    With ``by_key`` the place is under a key of ``data`` drawn first, so that every key is
    as likely to change as the 72 cells (whose items are most of the places).
    """
    paths = _paths(data)
    if by_key and isinstance(data, dict) and data:
        key = rng.choice(sorted(data))
        paths = [p for p in paths if p[:1] == (key,)]
    path = rng.choice(paths)
    if not path:
        return replacement
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    old = parent[key]
    how = rng.randrange(6)
    if how == 0:
        parent[key] = replacement
    elif how == 1 and type(old) is int:
        parent[key] = old + rng.choice([-1, 1])
    elif how == 2:
        del parent[key]
    elif how == 3 and isinstance(old, list):
        old.append(rng.choice(old) if old else 0)
    elif how == 4 and isinstance(old, list) and len(old) > 1:
        i, j = rng.sample(range(len(old)), 2)
        old[i], old[j] = old[j], old[i]
    elif how == 5 and isinstance(old, bool):
        parent[key] = not old
    elif isinstance(parent, dict):
        parent[key + "_" if isinstance(key, str) else key] = replacement
    else:
        parent[key] = replacement
    return data


def _usable(state: GameState) -> None:
    """A loaded state must round-trip and play on without any engine error."""
    assert state_from_json(state.to_json()) == state
    schema_validator("state").validate(json.loads(state.to_json()))
    rng = random.Random(0)
    for _ in range(40):
        if state.is_terminal:
            break
        legal = legal_actions(state)
        assert legal
        state = apply(state, rng.choice(legal))
        assert state.all_cards() == Counter(dict(state.config.deck))


@given(states(), st.randoms(use_true_random=False), JSON_VALUES, st.integers(1, 3))
def test_fuzz_mutated_documents(
    state: GameState, rng: random.Random, replacement: Any, count: int
) -> None:
    data = doc(state)
    for _ in range(count):
        data = _mutate(data, rng, copy.deepcopy(replacement))
    text = json.dumps(data)
    try:
        loaded = state_from_json(text)
    except SaveFormatError as exc:
        message = str(exc)
    else:
        _usable(loaded)
        return
    assert message.startswith("$")


@given(states(), st.randoms(use_true_random=False), JSON_VALUES, st.integers(0, 3))
def test_the_bulk_checks_accept_only_what_the_field_by_field_checks_accept(
    state: GameState, rng: random.Random, replacement: Any, count: int
) -> None:
    # The loader first checks a document's types and ranges in bulk; only when that refuses
    # does it check field by field (to name the bad field). The bulk checks must never accept
    # more, nor build anything else.
    data = doc(state)
    for _ in range(count):
        data = _mutate(data, rng, copy.deepcopy(replacement), by_key=True)
    fast = serialize._state_fast(copy.deepcopy(data), "$")
    try:
        slow = serialize._state_checked(copy.deepcopy(data), "$")
    except SaveFormatError:
        assert fast is None
        return
    if count == 0:
        assert fast is not None, "a document as written must take the bulk checks"
    if fast is not None:
        assert fast == slow
        assert state_to_json(fast) == state_to_json(slow)  # bool and int told apart


def _feature_sample() -> list[GameState]:
    """Per config, states that between them show every phase and every optional part.

    A state is kept only if it shows something not seen yet: final turns, a finished round,
    gaps, a card in hand, knockers, triples removed at scoring, setup namings.
    """
    out: list[GameState] = []
    for k, (_, config) in enumerate(sorted(CONFIGS.items())):
        seen: set[object] = set()
        for state in game_states(config, players_for(config, 2 + k % 5), seed=k):
            features = {
                state.phase,
                ("final turns", bool(state.final_turns)),
                ("finished round", state.last_round is not None),
                ("gaps", None in state.cells),
                ("in hand", bool(state.in_hand)),
                ("knockers", bool(state.knockers)),
                ("scoring removed", bool(state.last_round and state.last_round.removed)),
                ("named", bool(state.setup_named)),
            }
            if not features <= seen:
                seen |= features
                out.append(state)
    return out


def _edge_values(state: GameState) -> list[Any]:
    """JSON values on and just past every bound a state document has, and wrong types."""
    n = state.num_players
    two, zone = serialize.bounds(state.config)
    cards = sorted(dict(state.config.deck))
    numbers = {0, 1, -1, n - 1, n, 12 * n - 1, 12 * n, two, two + 1, -two - 1, zone, zone + 1}
    numbers |= {-zone - 1, 5 * zone + 1, cards[0] - 1, cards[-1] + 1, 2 * n, 2 * n + 1, 6}
    too_long = [0] * (2 * n + 1)
    return [*sorted(numbers), None, True, False, 1.0, "1", [], {}, [0], too_long, {"player": 0}]


def _places(value: Any, path: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """``path`` and, below it, each key of an object and the first, middle and last items.

    The config is one place: both loaders read it with the same function.
    """
    out = [path]
    if path == ("config",):
        return out
    if isinstance(value, dict):
        for key in sorted(value):
            out += _places(value[key], (*path, key))
    elif isinstance(value, list) and value:
        for i in sorted({0, len(value) // 2, len(value) - 1}):
            out += _places(value[i], (*path, i))
    return out


def _changed(data: dict[str, Any], path: tuple[Any, ...], change: Any) -> dict[str, Any] | None:
    """A copy of ``data`` with the place at ``path`` changed (``None``: not applicable)."""
    out = copy.deepcopy(data)
    parent = out
    for key in path[:-1]:
        parent = parent[key]
    old = parent[path[-1]]
    if change == "delete":
        del parent[path[-1]]
    elif change in ("repeat", "drop"):
        if not isinstance(old, list) or not old:
            return None
        old.append(old[-1]) if change == "repeat" else old.pop()
    else:
        parent[path[-1]] = change
    return out


def test_the_bulk_checks_refuse_every_edge_the_field_checks_refuse() -> None:
    # Systematic: every key and array end of states showing every phase of every config, set
    # to each value on or past a bound, deleted, or with an item repeated or dropped. The
    # default run tries two states for each kind of change at each place (the same key, or an
    # item of the same array), the thorough run every state.
    groups: dict[tuple[Any, ...], list[tuple[dict[str, Any], tuple[Any, ...], Any]]] = {}
    for state in _feature_sample():
        data = doc(state)
        for path in _places(data, ())[1:]:
            value: Any = data
            for key in path:
                value = value[key]
            for change in [*_edge_values(state), "delete", "repeat", "drop"]:
                if change in ("repeat", "drop") and not (isinstance(value, list) and value):
                    continue
                kind = tuple("item" if type(key) is int else key for key in path)
                groups.setdefault((*kind, repr(change)), []).append((data, path, change))
    rng = random.Random(16)
    cases = [
        case
        for group in groups.values()
        for case in (group if thorough_run() else rng.sample(group, min(2, len(group))))
    ]
    tried = refused = 0
    for data, path, change in cases:
        mutated = _changed(data, path, change)
        if mutated is None:
            continue
        tried += 1
        fast = serialize._state_fast(mutated, "$")
        try:
            slow = serialize._state_checked(mutated, "$")
        except SaveFormatError:
            refused += 1
            assert fast is None, (path, change)
            continue
        if fast is not None:
            assert fast == slow, (path, change)
            assert state_to_json(fast) == state_to_json(slow), (path, change)
    assert refused > tried // 2  # most edges are refused: the test reaches the checks


def test_every_document_as_written_takes_the_bulk_checks() -> None:
    for state in _feature_sample():
        assert serialize._state_fast(doc(state), "$") == state


@given(JSON_VALUES)
def test_fuzz_arbitrary_json(value: Any) -> None:
    with pytest.raises(SaveFormatError):
        state_from_json(json.dumps(value))


@given(st.one_of(st.text(max_size=200), st.binary(max_size=200)))
def test_fuzz_arbitrary_text(text: str | bytes) -> None:
    with pytest.raises(SaveFormatError):
        state_from_json(text)


@given(states(), st.sampled_from(STATE_KEYS), JSON_LEAVES)
def test_fuzz_each_key_with_wrong_values(state: GameState, key: str, value: Any) -> None:
    data = doc(state)
    if key in data:
        assume(data[key] != value or type(data[key]) is not type(value))
    data[key] = value  # a key of a newer schema version is unknown to a version 1 document
    try:
        loaded = load(data)
    except SaveFormatError as exc:
        where = exc.path
    else:
        _usable(loaded)
        return
    assert where == "$" or where.startswith(("$.", "$["))


# ---------------------------------------------------------------------- actions


def _all_actions(n: int) -> list[ar.Action]:
    table = action_table(n)
    fixed: list[ar.Action] = [DRAW_DECK, DRAW_DISCARD, KNOCK, PASS, DISCARD]
    return fixed + list(table.give) + list(table.reveal) + list(table.swap) + list(table.take)


@pytest.mark.parametrize("n", [2, 3, 6])
def test_every_action_round_trips(n: int) -> None:
    for action in _all_actions(n):
        text = action_to_json(action)
        data = json.loads(text)
        schema_validator("action").validate(data)
        assert data["schema_version"] == 1 and data["kind"] == "action"
        assert action_from_json(text) == action
        # With the seat count known, the loader hands out the engine's own objects.
        assert action_from_json(text, num_players=n) is action


def test_action_documents_by_hand() -> None:
    assert json.loads(action_to_json(Swap(Pos(1, 2, 3)))) == {
        "schema_version": 1,
        "kind": "action",
        "type": "swap",
        "pos": {"player": 1, "row": 2, "col": 3},
    }
    assert json.loads(action_to_json(Give(2))) == {
        "schema_version": 1,
        "kind": "action",
        "type": "give",
        "player": 2,
    }
    assert json.loads(action_to_json(Pass())) == {
        "schema_version": 1,
        "kind": "action",
        "type": "pass",
    }
    text = (
        '{"kind": "action", "schema_version": 1, "type": "take",'
        ' "pos": {"player": 0, "row": 1, "col": 3}}'
    )
    assert action_from_json(text) == Take(Pos(0, 1, 3))


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"type": "fly"}, "$.type"),
        ({"type": 3}, "$.type"),
        ({}, "$.type"),
        ({"type": "swap"}, "$.pos"),
        ({"type": "swap", "pos": {"player": 0, "row": 3, "col": 0}}, "$.pos.row"),
        ({"type": "swap", "pos": {"player": 0, "row": 0, "col": 4}}, "$.pos.col"),
        ({"type": "swap", "pos": {"player": True, "row": 0, "col": 0}}, "$.pos.player"),
        ({"type": "swap", "pos": [0, 0, 0]}, "$.pos"),
        ({"type": "swap", "pos": {"player": 0, "row": 0, "col": 0, "z": 1}}, "$.pos.z"),
        ({"type": "give"}, "$.player"),
        ({"type": "give", "player": -1}, "$.player"),
        ({"type": "give", "player": 64}, "$.player"),
        ({"type": "knock", "player": 1}, "$.player"),
        ({"type": "reveal", "pos": {"player": 0, "row": 0, "col": 0}, "extra": None}, "$.extra"),
    ],
)
def test_malformed_actions_are_rejected(data: dict[str, Any], path: str) -> None:
    text = json.dumps({"schema_version": 1, "kind": "action", **data})
    with pytest.raises(SaveFormatError) as info:
        action_from_json(text)
    assert info.value.path == path
    assert not schema_validator("action").is_valid(json.loads(text))


def test_action_headers_and_seats() -> None:
    good = action_to_json(Give(2))
    with pytest.raises(SaveFormatError, match="schema_version"):
        action_from_json(good.replace('"schema_version":1', '"schema_version":2'))
    with pytest.raises(SaveFormatError, match="kind"):
        action_from_json(good.replace('"kind":"action"', '"kind":"state"'))
    with pytest.raises(SaveFormatError, match=r"\$\.player"):
        action_from_json(good, num_players=2)
    assert action_from_json(good, num_players=3) == Give(2)
    with pytest.raises(SaveFormatError, match=r"\$\.pos\.player"):
        action_from_json(action_to_json(Reveal(Pos(3, 0, 0))), num_players=3)
    with pytest.raises(ValueError, match="num_players"):
        action_from_json(good, num_players=1)
    with pytest.raises(ValueError, match="not an allegra_rules action"):
        action_to_json("swap")  # type: ignore[arg-type]


@given(JSON_VALUES)
def test_fuzz_actions(value: Any) -> None:
    text = json.dumps(value)
    try:
        action = action_from_json(text)
    except SaveFormatError:
        return
    assert action_from_json(action_to_json(action)) == action


def test_state_to_json_rejects_non_states() -> None:
    with pytest.raises(ValueError, match="GameState"):
        state_to_json("state")  # type: ignore[arg-type]


def test_a_settled_table_has_no_triple_and_no_unnoticed_round_end() -> None:
    fives = [[5, 0, 1, 2], [5, 3, 4, 6], [5, 7, 8, 9]]
    state = setup_reveals(game(2, {0: fives, 1: GRID1}, discard=4))
    assert state.phase is Phase.DRAW and state.ender is None
    load(doc(state))
    # Turning the column of 5s face up gives a triple that settling would have removed.
    data = doc(state)
    for i in (0, 4, 8):
        data["face_down"][i] = False
    assert rejected(data).path == "$.cells[0]"
    # Turning all of seat 1's cards face up is a round end nobody noticed.
    data = doc(state)
    for i in range(12, 24):
        data["face_down"][i] = False
    assert rejected(data).path == "$.ender"


def test_setup_sums_of_seats_that_have_not_revealed() -> None:
    state = play(preset("seeds"), 3, seed=2, steps=1)
    assert state.phase is Phase.SETUP and state.setup_reveals == 1
    data = doc(state)
    data["setup_sums"][2] = 3
    assert rejected(data).path == "$.setup_sums[2]"


# ------------------------------------------------- one tamper per consistency check


def _find(
    predicate: Callable[[GameState], bool], config_name: str = "seeds@1", n: int = 3
) -> GameState:
    config = CONFIGS[config_name]
    for seed in range(60):
        for state in game_states(config, n, seed):
            if predicate(state):
                return state
    raise AssertionError("no such state")


def _phase(phase: Phase, **kw: Any) -> Callable[[GameState], bool]:
    return lambda s: s.phase is phase and all(getattr(s, k) == v for k, v in kw.items())


def _take_from_draw(data: dict[str, Any], key: str, count: int = 1) -> list[int]:
    """Move ``count`` equal cards out of the draw pile (conservation kept by the caller)."""
    pile = data["draw_pile"]
    value = next(v for v in pile if pile.count(v) >= count)
    for _ in range(count):
        pile.remove(value)
    return [value] * count


def _flip_area_up_and_end(data: dict[str, Any]) -> None:
    # Every card turns up: seat 0 is made the round's ender (its cards all up) and seat 1
    # is left in its final turn with nothing to reveal.
    for i in range(24):
        data["face_down"][i] = False
    data["ender"] = 0
    data["final_turns"] = [1]


def _dead_end_flip() -> GameState:
    grid0 = [[-1, 0, 1, 2], [3, 4, 5, 6], [7, 8, 9, 10]]
    state = setup_reveals(game(2, {0: grid0, 1: GRID1}, discard=4, draw=[5, 9]))
    for action in [DrawDeck(), Pass(), Swap(Pos(0, 0, 0)), DrawDeck(), Pass(), Discard()]:
        state = apply(state, action)
    assert state.phase is Phase.FLIP and state.drawer == 1
    return state


def _split_out_of_play(data: dict[str, Any]) -> None:
    # Swap one removed card with a different draw-pile card: still conserved.
    removed = data["out_of_play"]
    other = next(v for v in data["draw_pile"] if v != removed[0])
    data["draw_pile"].remove(other)
    data["draw_pile"].append(removed[0])
    removed[0] = other


TARGETED: list[tuple[str, Callable[[], GameState], Callable[[dict[str, Any]], None], str, str]] = [
    (
        "dead end",
        _dead_end_flip,
        _flip_area_up_and_end,
        "$.phase",
        "dead end",
    ),
    (
        "out of play with removed_cards=discard",
        lambda: _find(_phase(Phase.DRAW), "short"),
        lambda d: d["out_of_play"].extend(_take_from_draw(d, "out_of_play", 3)),
        "$.out_of_play",
        "must be empty",
    ),
    (
        "out of play without gaps",
        lambda: _find(_phase(Phase.DRAW)),
        lambda d: d["out_of_play"].extend(_take_from_draw(d, "out_of_play", 3)),
        "$.out_of_play",
        "emptied by triples",
    ),
    (
        "out of play not in triples",
        lambda: _find(lambda s: s.phase is Phase.DRAW and len(s.out_of_play) >= 3),
        _split_out_of_play,
        "$.out_of_play",
        "at least 3 equal cards",
    ),
    (
        "ender without a final turn",
        lambda: _find(lambda s: s.phase is Phase.DRAW and len(s.final_turns) >= 2),
        _set("final_turns", []),
        "$.final_turns",
        "a final turn must be due",
    ),
    (
        "ender with a final turn",
        lambda: _find(lambda s: s.phase is Phase.DRAW and len(s.final_turns) >= 2),
        lambda d: d["final_turns"].append(d["ender"]),
        "$.final_turns",
        "gets no final turn",
    ),
    (
        "final turns before any turn",
        lambda: _find(
            lambda s: s.phase is Phase.DRAW and len(s.final_turns) >= 2 and not s.refills
        ),
        _set("turns_played", 0),
        "$.final_turns",
        "too many final turns",
    ),
    (
        "empty discard pile",
        lambda: _find(_phase(Phase.DRAW)),
        lambda d: (d["draw_pile"].extend(d["discard_pile"]), d.__setitem__("discard_pile", [])),
        "$.discard_pile",
        "cannot be empty",
    ),
    (
        "no last round after a round",
        lambda: _find(_phase(Phase.DRAW, round=2), n=2),
        _set("last_round", None),
        "$.last_round",
        "latest finished round",
    ),
    (
        "last round in round 1",
        lambda: _find(_phase(Phase.DRAW, round=1), n=2),
        lambda d: d.__setitem__(
            "last_round", doc(_find(_phase(Phase.DRAW, round=2), n=2))["last_round"]
        ),
        "$.last_round",
        "before any round",
    ),
    (
        "last round with too many copies",
        lambda: _find(_phase(Phase.DRAW, round=2), n=2),
        lambda d: d["last_round"].__setitem__("cells", [11] * 24),
        "$.last_round.cells",
        "more copies",
    ),
    (
        "finished game on another table",
        lambda: _find(_phase(Phase.OVER), n=2),
        lambda d: d["cells"].reverse(),
        "$.cells",
        "scored on",
    ),
    (
        "finished game with another ender",
        lambda: _find(lambda s: s.is_terminal and s.ender == 0, n=2),
        _set("ender", 1),
        "$.ender",
        "last round's ender",
    ),
    (
        "start seat",
        lambda: _find(_phase(Phase.DRAW, round=1)),
        _set("start_seat", 1),
        "$.start_seat",
        "starts at seat 0",
    ),
    (
        "setup reveals after setup",
        lambda: _find(_phase(Phase.DRAW)),
        _set("setup_reveals", 5),
        "$.setup_reveals",
        "setup is over",
    ),
    (
        "setup reveals in setup",
        lambda: _find(_phase(Phase.SETUP)),
        _set("setup_reveals", 6),
        "$.setup_reveals",
        "setup ends",
    ),
    (
        "setup turn order",
        lambda: _find(_phase(Phase.SETUP, setup_reveals=2)),
        _set("current_player", 0),
        "$.current_player",
        "seat 1 reveals next",
    ),
    (
        "setup face-up count",
        lambda: _find(_phase(Phase.SETUP, setup_reveals=2)),
        lambda d: d["face_down"].__setitem__(d["face_down"].index(True), False),
        "$.face_down",
        "exactly 2 cells",
    ),
    (
        "setup draw pile",
        lambda: _find(_phase(Phase.SETUP)),
        lambda d: d["discard_pile"].append(d["draw_pile"].pop()),
        "$.draw_pile",
        "nobody has drawn",
    ),
    (
        "setup turns",
        lambda: _find(_phase(Phase.SETUP)),
        _set("turns_played", 1),
        "$.turns_played",
        "during setup",
    ),
    (
        "setup ender",
        lambda: _find(_phase(Phase.SETUP)),
        _set("ender", 1),
        "$.ender",
        "during setup",
    ),
    (
        "face down after the game",
        lambda: _find(_phase(Phase.OVER), n=2),
        lambda d: d["face_down"].__setitem__(0, True),
        "$.face_down",
        "once the game is over",
    ),
    (
        "drawer in setup",
        lambda: _find(_phase(Phase.SETUP)),
        _set("drawer", 0),
        "$.drawer",
        "must be null",
    ),
    (
        "final turns in setup",
        lambda: _find(_phase(Phase.SETUP)),
        _set("final_turns", [1]),
        "$.final_turns",
        "must be empty",
    ),
    (
        "no drawer",
        lambda: _find(_phase(Phase.DRAW)),
        _set("drawer", None),
        "$.drawer",
        "needs a drawer",
    ),
    (
        "turn cap reached",
        lambda: _find(_phase(Phase.DRAW, round=1), "short"),
        _set("turns_played", 12),
        "$.turns_played",
        "below max_turns_per_round",
    ),
    (
        "turn not counted",
        lambda: _find(_phase(Phase.HOLD_DISCARD, refills=0)),
        _set("turns_played", 0),
        "$.turns_played",
        "at least 1",
    ),
    (
        "final turns without an ender",
        lambda: _find(_phase(Phase.DRAW, ender=None)),
        _set("final_turns", [1]),
        "$.final_turns",
        "nobody has ended",
    ),
    (
        "final turns out of order",
        lambda: _find(lambda s: s.phase is Phase.DRAW and len(s.final_turns) >= 2),
        lambda d: d["final_turns"].reverse(),
        "$.final_turns",
        "final turns left",
    ),
    (
        "final turn of the wrong seat",
        lambda: _find(lambda s: s.phase is Phase.DRAW and len(s.final_turns) >= 2),
        lambda d: (
            d.__setitem__("drawer", d["final_turns"][1]),
            d.__setitem__("current_player", d["final_turns"][1]),
        ),
        "$.drawer",
        "next final turn",
    ),
    (
        "nothing held",
        lambda: _find(_phase(Phase.HOLD_DISCARD)),
        lambda d: (d["discard_pile"].append(d["held"]), d.__setitem__("held", None)),
        "$.held",
        "needs a held card",
    ),
    (
        "knock window without knocking",
        lambda: _find(_phase(Phase.KNOCK)),
        _config("knocking", "never"),
        "$.phase",
        "no knock window",
    ),
    (
        "knockers without knocking",
        lambda: _find(lambda s: s.phase is Phase.HOLD_DECK and bool(s.knockers)),
        _config("knocking", "never"),
        "$.knockers",
        "nobody may knock",
    ),
    (
        "knockers out of order",
        lambda: _find(lambda s: s.phase is Phase.HOLD_DECK and len(s.knockers) >= 2, n=4),
        lambda d: d["knockers"].reverse(),
        "$.knockers",
        "clockwise order",
    ),
    (
        "two knockers under first_clockwise",
        lambda: _find(lambda s: s.phase is Phase.HOLD_DECK and len(s.knockers) >= 2, n=4),
        _config("knock_winner", "first_clockwise"),
        "$.knockers",
        "first knock",
    ),
    (
        "a knock before being asked",
        lambda: _find(lambda s: s.phase is Phase.KNOCK and s.current_player == (s.drawer + 1) % 3),
        lambda d: d.__setitem__("knockers", [(d["drawer"] + 2) % 3]),
        "$.knockers",
        "asked before",
    ),
    (
        "in hand outside an exchange",
        lambda: _find(_phase(Phase.DRAW)),
        lambda d: d.__setitem__(
            "in_hand", [{"player": 1, "card": _take_from_draw(d, "in_hand")[0]}]
        ),
        "$.in_hand",
        "must be empty",
    ),
    (
        "given_at before the knocker swaps",
        lambda: _find(_phase(Phase.KNOCKER_SWAP)),
        _set("given_at", 0),
        "$.given_at",
        "before the knocker swaps",
    ),
    (
        "in hand before the knocker swaps",
        lambda: _find(_phase(Phase.KNOCKER_SWAP)),
        lambda d: d.__setitem__(
            "in_hand", [{"player": d["knocker"], "card": _take_from_draw(d, "in_hand")[0]}]
        ),
        "$.in_hand",
        "before the knocker swaps",
    ),
    (
        "flag before the knocker swaps",
        lambda: _find(_phase(Phase.KNOCKER_SWAP)),
        _set("hand_was_face_down", True),
        "$.hand_was_face_down",
        "before the knocker swaps",
    ),
    (
        "in hand of another seat",
        lambda: _find(_phase(Phase.TAKE)),
        lambda d: d["in_hand"][0].__setitem__("player", (d["knocker"] + 1) % 3),
        "$.in_hand",
        "exactly the knocker's",
    ),
    (
        "given card face down",
        lambda: _find(_phase(Phase.TAKE)),
        lambda d: d["face_down"].__setitem__(d["given_at"], True),
        "$.given_at",
        "lies face up",
    ),
    (
        "taken before taking",
        lambda: _find(_phase(Phase.TAKE)),
        _set("taken_at", 0),
        "$.taken_at",
        "before the drawer takes",
    ),
    (
        "held flag before taking",
        lambda: _find(_phase(Phase.TAKE)),
        _set("held_was_face_down", True),
        "$.held_was_face_down",
        "before the drawer takes",
    ),
    (
        "taken from a full cell",
        lambda: _find(_phase(Phase.HOLD_TAKEN)),
        lambda d: d.__setitem__("taken_at", d["given_at"]),
        "$.taken_at",
        "must be a gap",
    ),
    (
        "given card taken back under forbidden",
        lambda: _find(lambda s: s.phase is Phase.HOLD_TAKEN and s.taken_at == s.given_at),
        _config("take_given_card", "forbidden"),
        "$.taken_at",
        "cannot be taken",
    ),
    (
        "given card taken back face down",
        lambda: _find(lambda s: s.phase is Phase.HOLD_TAKEN and s.taken_at == s.given_at),
        _set("held_was_face_down", True),
        "$.held_was_face_down",
        "lay face up",
    ),
]


@pytest.mark.parametrize(
    ("build", "change", "path", "words"),
    [t[1:] for t in TARGETED],
    ids=[t[0] for t in TARGETED],
)
def test_each_consistency_check(
    build: Callable[[], GameState],
    change: Callable[[dict[str, Any]], None],
    path: str,
    words: str,
) -> None:
    data = doc(build())
    load(data)
    change(data)
    error = rejected(data)
    assert (error.path, words in error.reason) == (path, True), str(error)


def test_a_dead_end_is_named_by_the_loader_and_refused_by_the_state_itself() -> None:
    # "A live state has a legal action" is the rules' question: the loader above the rules
    # (and check_state) ask it, before the counts. GameState.from_json runs the state's own
    # checks, below the rules: every other one, which refuse this table too.
    data = doc(_dead_end_flip())
    _flip_area_up_and_end(data)
    text = json.dumps(data)
    with pytest.raises(SaveFormatError, match=r"^\$\.phase: .*dead end"):
        state_from_json(text)
    with pytest.raises(SaveFormatError, match=r"^\$\.face_down: .* face up or gaps"):
        GameState.from_json(text)
    assert GameState.from_json(state_to_json(_dead_end_flip())) == _dead_end_flip()


# ---------------------------------------------------------------- schema versions


def test_a_game_keeps_the_schema_version_it_started_in() -> None:
    from allegra_rules import GameRecord, replay, state_digest

    for version in SCHEMA_VERSIONS:
        state = new_game(3, seed=21, schema_version=version)
        record = GameRecord(num_players=3, seed=21, schema_version=version)
        while not state.is_terminal:
            assert state.schema_version == version
            text = state_to_json(state)
            assert json.loads(text)["schema_version"] == version
            back = state_from_json(text)
            assert back == state and state_to_json(back) == text
            assert observe(state, state.current_player).schema_version == version
            action = legal_actions(state)[len(state.discard_pile) % len(legal_actions(state))]
            record = record.with_actions(action)
            state = apply(state, action)
        # A record keeps its version through its document and replays to the same digest.
        again = GameRecord.from_json(record.to_json())
        assert again.schema_version == version == json.loads(record.to_json())["schema_version"]
        assert state_digest(replay(again)) == state_digest(state)
    assert new_game(2).schema_version == SCHEMA_VERSION


def test_a_schema_version_that_cannot_hold_the_game_is_refused() -> None:
    simultaneous = RuleConfig(setup_reveals="simultaneous")
    with pytest.raises(ValueError, match="cannot hold the config's setup_reveals"):
        new_game(2, config=simultaneous, schema_version=1)
    for bad in (0, SCHEMA_VERSION + 1, True, "2", 1.0):
        with pytest.raises(ValueError, match="schema_version must be an int"):
            new_game(2, schema_version=bad)  # type: ignore[arg-type]
    # A state built by hand is checked alike, and so is a later field's value.
    state = new_game(2, seed=3)
    with pytest.raises(ValueError, match="schema_version"):
        attrs.evolve(new_game(2, config=simultaneous), schema_version=1)
    old = attrs.evolve(state, schema_version=1)
    assert later_fields(STATE_FIELDS, 1)  # setup_named: its default () is all it may hold
    with pytest.raises(ValueError, match="added in version 2"):
        attrs.evolve(old, setup_named=(0,))


def test_apply_keeps_a_later_field_at_its_default_in_an_older_game() -> None:
    from allegra_rules.state import trusted_evolve
    from allegra_rules.transitions import _at_version

    old = new_game(2, seed=3, schema_version=1)
    # As a rule written for version 2 would leave it: the field set in a version 1 game.
    changed = trusted_evolve(old, setup_named=(0, 1))
    assert _at_version(changed).setup_named == () and _at_version(old) is old
    assert _at_version(trusted_evolve(changed, schema_version=2)).setup_named == (0, 1)
