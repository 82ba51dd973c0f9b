"""The one declaration of the state's fields agrees with every place that lists them.

``allegra_rules.fields.STATE_FIELDS`` declares each field of a ``GameState`` once; the classes
(``GameState``, ``PlayerView``), the JSON schema of a saved game, the JAX conversion and the
generated builders of ``allegra_rules._fast`` must all agree with it.
"""

from __future__ import annotations

import importlib.util
import json
import random

import attrs
import pytest

import allegra_rules
from allegra_rules import GameState, PlayerView, new_game, observe
from allegra_rules._generate_fast import copier_specs, current_text
from allegra_rules.fields import FIELDS, NO_DEFAULT, STATE_FIELDS, VIEW_ONLY, Kind, Seen
from allegra_rules.geometry import CELLS_PER_SEAT
from allegra_rules.invariants import _KIND_CHECKS, InvalidStateError, check_state
from helpers import forged
from random_games import game_states

SRC = importlib.util.find_spec("allegra_rules").submodule_search_locations[0]  # type: ignore[index,union-attr]


def test_the_declaration_lists_the_state_fields_in_order() -> None:
    init = [f for f in attrs.fields(GameState) if f.init]
    assert [f.name for f in STATE_FIELDS] == [f.name for f in init]
    for declared, field in zip(STATE_FIELDS, init, strict=True):
        want = attrs.NOTHING if declared.default is NO_DEFAULT else declared.default
        assert field.default == want, declared.name
        assert (declared.default is NO_DEFAULT) == (declared.added == 1), declared.name
    assert len(FIELDS) == len(STATE_FIELDS)


def test_owned_fields_say_how_the_owner_is_found() -> None:
    for field in STATE_FIELDS:
        assert bool(field.owner) == (field.seen is Seen.OWNER), field.name
        if field.secret_when:
            assert FIELDS[field.secret_when].kind is Kind.FLAG, field.name
        if field.seen is not Seen.EVERYONE:
            assert field.view is not None, f"{field.name}: say what a view shows of it"


def test_the_view_holds_the_declared_view_fields() -> None:
    view_fields = [f.name for f in attrs.fields(PlayerView)]
    declared = {*VIEW_ONLY, *(v for f in STATE_FIELDS for v in f.view_fields)}
    assert set(view_fields) == declared
    assert len(view_fields) == len(declared)
    # Every public field is copied as it is; a view never holds a field nobody may see.
    state = list(game_states(allegra_rules.preset("seeds"), 3, seed=1))[40]
    view = observe(state, 0)
    for field in STATE_FIELDS:
        if field.copied_to_view:
            assert getattr(view, field.name) == getattr(state, field.name), field.name
    assert not any(f.name in view_fields for f in STATE_FIELDS if f.seen is Seen.NOBODY)


def test_the_saved_game_schema_lists_the_declared_fields() -> None:
    with open(f"{SRC}/schemas/state.schema.json", encoding="utf-8") as f:
        schema = json.load(f)
    keys = set(schema["properties"]) - {"schema_version", "kind"}
    assert keys == set(FIELDS)
    required = set(schema["required"]) - {"schema_version", "kind"}
    assert required == {f.name for f in STATE_FIELDS if f.added == 1}


def test_every_kind_is_checked() -> None:
    assert set(Kind) - set(_KIND_CHECKS) == {Kind.CONFIG, Kind.SEAT_COUNT}


@pytest.mark.parametrize("field", [f for f in STATE_FIELDS if f.kind in _KIND_CHECKS])
def test_each_field_is_type_checked_by_its_kind(field: object) -> None:
    name = field.name  # type: ignore[attr-defined]
    state = new_game(2, seed=5)
    with pytest.raises(InvalidStateError, match=rf"^\$\.{name}"):
        check_state(forged(state, **{name: "wrong"}))


def test_determinize_copies_the_public_fields_and_samples_the_others() -> None:
    state = list(game_states(allegra_rules.preset("seeds"), 4, seed=2))[25]
    view = observe(state, 1)
    sample = allegra_rules.determinize(view, random.Random(3))
    for field in STATE_FIELDS:
        if field.copied_to_view:
            assert getattr(sample, field.name) is getattr(view, field.name), field.name
    assert len(sample.cells) == 4 * CELLS_PER_SEAT


def test_the_generated_builders_are_current() -> None:
    with open(f"{SRC}/_fast.py", encoding="utf-8") as f:
        assert f.read() == current_text(), "run python -m allegra_rules._generate_fast --write"
    from allegra_rules import _fast

    assert set(_fast.COPIERS) == set(copier_specs())


def test_the_jax_conversion_converts_every_field() -> None:
    pytest.importorskip("jax")
    from allegra_rules.jax._convert import STATE_ARRAYS
    from allegra_rules.jax._state import State

    assert list(STATE_ARRAYS) == [f.name for f in STATE_FIELDS]
    arrays = {a for names in STATE_ARRAYS.values() for a in names}
    assert arrays <= set(State.__dataclass_fields__)
