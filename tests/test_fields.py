"""The one declaration of the state's fields agrees with every place that lists them.

``allegra_rules.fields.STATE_FIELDS`` declares each field of a ``GameState`` once; the classes
(``GameState``, ``PlayerView``), the JSON schema of a saved game, the JAX conversion and the
generated builders of ``allegra_rules._fast`` must all agree with it.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import random
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import attrs
import pytest

import allegra_rules
from allegra_rules import GameState, PlayerView, new_game, observe, state_codec
from allegra_rules._generate_fast import copier_specs, current_text
from allegra_rules.config import RuleConfig
from allegra_rules.fields import (
    FIELDS,
    NO_DEFAULT,
    ROUND_END_FIELDS,
    STATE_FIELDS,
    VIEW_ONLY,
    DefaultFrom,
    Kind,
    Seen,
    StateField,
)
from allegra_rules.geometry import CELLS_PER_SEAT
from allegra_rules.invariants import _KIND_CHECKS, InvalidStateError, check_state
from allegra_rules.serialize import SCHEMA_VERSION, SaveFormatError, schema_version_for
from allegra_rules.state import RoundEnd
from helpers import forged
from random_games import game_states

SRC = importlib.util.find_spec("allegra_rules").submodule_search_locations[0]  # type: ignore[index,union-attr]


def test_the_declaration_lists_the_state_fields_in_order() -> None:
    init = [f for f in attrs.fields(GameState) if f.init]
    assert [f.name for f in STATE_FIELDS] == [f.name for f in init]
    for declared, field in zip(STATE_FIELDS, init, strict=True):
        want = attrs.NOTHING if declared.default is NO_DEFAULT else declared.default
        if isinstance(declared.default, DefaultFrom):  # computed from the other fields
            assert isinstance(field.default, attrs.Factory), declared.name  # type: ignore[arg-type]
            assert field.default.takes_self, declared.name
        else:
            assert field.default == want, declared.name
        # A later field has a default for the games of older versions; the schema
        # version's default (the newest) is what a state built by hand is written in.
        has_default = declared.added > 1 or declared.kind is Kind.SCHEMA_VERSION
        assert (declared.default is not NO_DEFAULT) == has_default, declared.name
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


@pytest.mark.installed
def test_the_saved_game_schema_lists_the_declared_fields() -> None:
    with open(f"{SRC}/schemas/state.schema.json", encoding="utf-8") as f:
        schema = json.load(f)
    # The schema version field is the header's schema_version.
    keys = set(schema["properties"]) - {"schema_version", "kind"}
    assert keys == {f.name for f in STATE_FIELDS if f.kind is not Kind.SCHEMA_VERSION}
    required = set(schema["required"]) - {"schema_version", "kind"}
    assert required == {
        f.name for f in STATE_FIELDS if f.added == 1 and f.kind is not Kind.SCHEMA_VERSION
    }


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


@pytest.mark.installed
def test_the_generated_builders_are_current() -> None:
    with open(f"{SRC}/_fast_builders.py", encoding="utf-8") as f:
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


# ------------------------------------------------------------------- the JSON codec

PKG = Path(SRC)
_CODEC_MODULES = ("serialize", "state_codec", "jsondoc", "config_codec", "action_codec")


def _field_names_in(module: str) -> list[tuple[str, str, int]]:
    """Each string constant, attribute name and keyword of ``module`` that names a field."""
    # The schema version is every document's header key, which the toolkit checks by name.
    names = {
        f.name for f in (*STATE_FIELDS, *ROUND_END_FIELDS) if f.kind is not Kind.SCHEMA_VERSION
    }
    path = PKG / f"{module}.py"
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            word, what = node.value, "string"
        elif isinstance(node, ast.Attribute):
            word, what = node.attr, "attribute"
        elif isinstance(node, ast.keyword) and node.arg is not None:
            word, what = node.arg, "keyword"
        else:
            continue
        if word in names:
            found.append((what, word, getattr(node, "lineno", 0)))
    return found


@pytest.mark.parametrize("module", _CODEC_MODULES)
def test_no_codec_module_names_a_field(module: str) -> None:
    # The codec reads and writes each field by its declared kind: a field named by hand
    # here would be a second description of the state.
    assert _field_names_in(module) == []


def test_the_field_name_check_finds_a_named_field(tmp_path: Path, monkeypatch: Any) -> None:
    (tmp_path / "probe.py").write_text('x = data["held"]\ny = s.turns_played\nf(ender=1)\n')
    monkeypatch.setattr(sys.modules[__name__], "PKG", tmp_path)
    found = sorted(what for what, _, _ in _field_names_in("probe"))
    assert found == ["attribute", "keyword", "string"]


def test_the_round_end_declaration_lists_its_fields_in_order() -> None:
    assert [f.name for f in ROUND_END_FIELDS] == [a.name for a in attrs.fields(RoundEnd)]
    for field, attribute in zip(ROUND_END_FIELDS, attrs.fields(RoundEnd), strict=True):
        default = attribute.default if attribute.default is not attrs.NOTHING else NO_DEFAULT
        assert field.default == default, field.name


def test_every_kind_has_an_encoder_and_a_decoder() -> None:
    assert set(state_codec._ENCODERS) == set(Kind)
    assert set(state_codec._DECODERS) == set(Kind)


def test_a_new_field_of_a_known_kind_flows_through_the_codec() -> None:
    # A copy of the declaration with two more fields of existing kinds: the codec reads and
    # writes them with no other change, and names them in its messages.
    extra = (
        StateField("bonus_seat", Kind.OPT_SEAT),
        StateField("bonus_cards", Kind.CARDS, default=(), added=SCHEMA_VERSION),
    )
    fields = (*STATE_FIELDS, *extra)
    state = next(s for s in game_states(RuleConfig(), 3, 11) if s.last_round is not None)
    obj = SimpleNamespace(
        **{f.name: getattr(state, f.name) for f in STATE_FIELDS}, bonus_seat=2, bonus_cards=(5, 7)
    )
    version = SCHEMA_VERSION  # the newest, which the state is in
    assert schema_version_for(state.config) <= version == state.schema_version
    data = json.loads(
        json.dumps(
            {
                "schema_version": version,
                "kind": "state",
                **state_codec.encode_fields(fields, obj, version, 3 * CELLS_PER_SEAT),
            }
        )
    )
    assert data["bonus_seat"] == 2 and data["bonus_cards"] == [5, 7]
    valid = state_codec.read_table(data, "$")
    back = state_codec.decode_fields(fields, data, "$", valid)
    assert back == vars(obj)
    # An older document lacks the later field: it reads as the declared default.
    old = dict(data, schema_version=SCHEMA_VERSION - 1)
    del old["bonus_cards"]
    old_valid = state_codec.read_table(old, "$")
    assert state_codec.decode_fields(extra, old, "$", old_valid) == {
        "bonus_seat": 2,
        "bonus_cards": (),
    }
    with pytest.raises(SaveFormatError, match=r"^\$\.bonus_seat: "):
        state_codec.decode_fields(fields, {**data, "bonus_seat": 3}, "$", valid)


def test_the_state_has_no_bind_hooks() -> None:
    # The state calls its checks and its codec directly: they sit below it.
    import allegra_rules.state as state_module

    tree = ast.parse((PKG / "state.py").read_text(encoding="utf-8"))
    defined = {
        node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.ClassDef)
    }
    assert not {"bind", "_Above", "_repr_svg_"} & defined
    assert not hasattr(state_module, "bind")
    assert "TYPE_CHECKING" not in (PKG / "state.py").read_text(encoding="utf-8")
    assert "_bind" not in (PKG / "__init__.py").read_text(encoding="utf-8")


def test_a_hand_built_state_runs_every_check_but_the_rules() -> None:
    state = new_game(2, seed=3)
    with pytest.raises(InvalidStateError, match=r"\$\.turns_played: must be 0 during setup"):
        attrs.evolve(state, turns_played=4)
    assert GameState.from_json(state.to_json()) == state


def test_the_view_fields_are_declared_in_the_views_order() -> None:
    # VIEW_FIELDS declares every PlayerView field that is not a copied state field, in order.
    from allegra_rules.fields import VIEW_FIELDS, ViewKind

    copied = {f.name for f in STATE_FIELDS if f.copied_to_view}
    own = [f.name for f in attrs.fields(PlayerView) if f.name not in copied]
    assert [f.name for f in VIEW_FIELDS] == own
    assert set(VIEW_ONLY) == {f.name for f in VIEW_FIELDS if not f.shows}
    for view_field in VIEW_FIELDS:
        if view_field.shows:
            assert view_field.name in FIELDS[view_field.shows].view_fields, view_field.name
        else:
            assert view_field.kind in (ViewKind.VIEWER, ViewKind.ACTIONS), view_field.name
        if view_field.about:
            assert view_field.about in own, view_field.name
    shown = {v for f in STATE_FIELDS if not f.copied_to_view for v in f.view_fields}
    assert shown == {f.name for f in VIEW_FIELDS if f.shows}


def test_a_rule_without_a_template_stops_the_generator(monkeypatch: Any, capsys: Any) -> None:
    from allegra_rules import _generate_fast
    from allegra_rules.fields import Owner

    # observe's code is generated from one template per rule: a declared rule without one
    # (here Owner.PAIR_SEAT's, taken away) stops the generator before it writes anything.
    monkeypatch.delitem(_generate_fast._OWNER_TEMPLATES, Owner.PAIR_SEAT)
    fast = Path(SRC) / "_fast_builders.py"
    before = fast.read_text(encoding="utf-8")
    assert _generate_fast.main(["--write"]) == 2
    err = capsys.readouterr().err
    assert "no observe template for owned_by=<Owner.PAIR_SEAT" in err
    assert repr(next(f.name for f in STATE_FIELDS if f.owned_by is Owner.PAIR_SEAT)) in err
    assert fast.read_text(encoding="utf-8") == before


def test_every_bound_has_a_range_in_the_checks_and_the_bulk_readers() -> None:
    from allegra_rules._generate_fast import _BOUNDS
    from allegra_rules.fields import Bound
    from allegra_rules.state_checks import per_seat_range

    config = RuleConfig()
    for bound in (*Bound, None):
        low, high = per_seat_range(bound, config)
        assert low <= 0 < high and bound in _BOUNDS, bound
    assert per_seat_range(Bound.COUNT, config) == (0, config.max_turns_per_round)


def test_a_per_seat_number_out_of_its_range_is_refused() -> None:
    from allegra_rules.state_checks import per_seat_range

    state = new_game(2, seed=5)
    for field in (f for f in STATE_FIELDS if f.kind is Kind.PER_SEAT):
        low, high = per_seat_range(field.bound, state.config)
        for bad in (low - 1, high + 1):
            with pytest.raises(InvalidStateError, match=field.name):
                attrs.evolve(state, **{field.name: (bad, 0)})
