"""The JSON Schemas of a state and of a view are written from the declaration of the fields.

``python -m allegra_rules._generate_schemas --write`` writes them; the checked-in files must be
what it writes, and a field declared once must show up in them.
"""

from __future__ import annotations

import importlib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.installed  # CI runs this module against the wheel too

import allegra_rules
from allegra_rules import _generate_schemas as gen
from allegra_rules.fields import (
    FIELDS,
    ROUND_END_FIELDS,
    STATE_FIELDS,
    VIEW_FIELDS,
    Kind,
    StateField,
    ViewField,
    ViewKind,
    later_fields,
)
from allegra_rules.serialize import SCHEMA_VERSIONS, json_schema
from helpers import schema_validator

_HEADER = ["schema_version", "kind"]


@pytest.fixture
def copies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Copies of the checked-in schemas, which the generator then reads and writes instead."""
    paths = {}
    for kind, path in gen.SCHEMAS.items():
        paths[kind] = tmp_path / path.name
        shutil.copyfile(path, paths[kind])
        monkeypatch.setitem(gen.SCHEMAS, kind, paths[kind])
    return paths


def test_the_checked_in_schemas_are_what_the_generator_writes() -> None:
    for path, want in gen.current_texts().items():
        assert path.read_text(encoding="utf-8") == want, (
            "run python -m allegra_rules._generate_schemas --write"
        )
    assert gen.stale_files() == []
    assert gen.main([]) == 0


def test_the_generated_schemas_are_the_shipped_ones() -> None:
    assert gen.state_schema() == json_schema("state")
    assert gen.view_schema() == json_schema("view")
    for kind in gen.SCHEMAS:
        validator = type(schema_validator(kind))
        validator.check_schema(json_schema(kind))


@pytest.mark.parametrize(
    ("kind", "old", "new"),
    [
        ("state", '"maxItems": 3,', '"maxItems": 4,'),  # a bound
        ("state", '"seed": {\n      "type": "integer"\n    },\n', ""),  # a property dropped
        ("view", '"legal_actions"\n  ],', '"legal_actions",\n    "extra"\n  ],'),  # required
        ("view", "Bottom first", "Bottom card first"),  # a description
        ("view", "\n}\n", "\n}"),  # the layout alone
    ],
)
def test_a_hand_edit_makes_the_check_fail(
    copies: dict[str, Path], capsys: pytest.CaptureFixture[str], kind: str, old: str, new: str
) -> None:
    path = copies[kind]
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    assert gen.stale_files() == [path]
    assert gen.main([]) == 1
    assert "_generate_schemas --write" in capsys.readouterr().out
    assert gen.main(["--write"]) == 0
    assert path.read_text(encoding="utf-8") == text
    assert gen.stale_files() == []


def test_the_check_runs_as_a_module() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "allegra_rules._generate_schemas"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_properties_follow_the_declaration() -> None:
    state, view = gen.state_schema(), gen.view_schema()
    # The schema version field is the header's schema_version.
    names = [f.name for f in STATE_FIELDS if f.name not in _HEADER]
    assert sorted(state["properties"]) == sorted([*_HEADER, *names])
    later = {f.name for f in later_fields(STATE_FIELDS, 1)}
    assert state["required"] == [k for k in state["properties"] if k not in later]
    # Declaration order within each group: shown as it is (or not at all), then shown its own way.
    listed = [k for k in state["properties"] if k not in _HEADER]
    assert [n for n in listed if not FIELDS[n].view] == [n for n in names if not FIELDS[n].view]
    assert [n for n in listed if FIELDS[n].view] == [n for n in names if FIELDS[n].view]
    copied = [f.name for f in STATE_FIELDS if f.copied_to_view and f.name not in _HEADER]
    own = [f.name for f in VIEW_FIELDS]
    assert list(view["properties"]) == [*_HEADER, own[0], *copied, *own[1:]]
    round_end = state["$defs"]["round_end"]
    assert list(round_end["properties"]) == [f.name for f in ROUND_END_FIELDS]
    assert round_end["required"] == [f.name for f in ROUND_END_FIELDS if f.added == 1]


def _extended(fields: tuple[Any, ...], after: str, extra: Any) -> tuple[Any, ...]:
    """``fields`` with ``extra`` declared after the field named ``after``."""
    at = [f.name for f in fields].index(after) + 1
    return (*fields[:at], extra, *fields[at:])


def test_an_extra_field_gets_its_kinds_schema() -> None:
    extra = StateField("bonus_sums", Kind.PER_SEAT)
    fields = _extended(STATE_FIELDS, "totals", extra)
    schema = gen.state_schema(fields)
    assert schema["properties"]["bonus_sums"] == schema["properties"]["totals"]
    keys = list(schema["properties"])
    assert keys.index("bonus_sums") == keys.index("totals") + 1
    assert "bonus_sums" in schema["required"]
    assert "bonus_sums" not in gen.state_schema()["properties"]
    # A public field is copied to a view, with the same schema.
    view = gen.view_schema(fields)
    assert view["properties"]["bonus_sums"] == schema["properties"]["totals"]
    assert "bonus_sums" in view["required"]
    # The rest of each schema is unchanged.
    without = {k: v for k, v in schema["properties"].items() if k != "bonus_sums"}
    assert without == gen.state_schema()["properties"]
    assert {k: v for k, v in schema.items() if k not in ("properties", "required")} == {
        k: v for k, v in gen.state_schema().items() if k not in ("properties", "required")
    }


def test_a_document_with_the_extra_field_validates() -> None:
    validator = type(schema_validator("state"))
    extra = StateField("lucky_seat", Kind.OPT_SEAT)
    schema = gen.state_schema(_extended(STATE_FIELDS, "knocker", extra))
    state = allegra_rules.new_game(3, seed=1)
    data = json.loads(state.to_json())
    assert not validator(schema).is_valid(data)  # the key is required
    assert validator(schema).is_valid({**data, "lucky_seat": 2})
    assert validator(schema).is_valid({**data, "lucky_seat": None})
    assert not validator(schema).is_valid({**data, "lucky_seat": 64})


def _entry(schema: dict[str, Any], version: int) -> dict[str, Any]:
    """The ``allOf`` entry of what the documents of ``version`` (and no older) hold."""
    (entry,) = (
        e for e in schema["allOf"] if e["if"]["properties"]["schema_version"] == {"const": version}
        or e["if"]["properties"]["schema_version"].get("enum", [None])[0] == version
    )  # fmt: skip
    return entry


def test_a_field_added_in_the_newest_version_is_required_there_only() -> None:
    validator = type(schema_validator("state"))
    newest = SCHEMA_VERSIONS[-1]
    extra = StateField("spare", Kind.FLAG, default=False, added=newest)
    schema = gen.state_schema((*STATE_FIELDS, extra))
    assert schema["properties"]["spare"] == {"type": "boolean"}
    assert "spare" not in schema["required"]
    entry = _entry(schema, newest)
    # In the properties' order: a public field before those a view shows its own way.
    added = {f.name for f in STATE_FIELDS if f.added == newest}
    in_newest = [k for k in schema["properties"] if k in added]
    public = [k for k in in_newest if not FIELDS[k].view]
    assert entry["then"]["required"] == [
        *public,
        "spare",
        *(k for k in in_newest if k not in public),
    ]
    assert entry["else"]["not"] == {"anyOf": [{"required": [k]} for k in entry["then"]["required"]]}
    data = json.loads(allegra_rules.new_game(2, seed=3, schema_version=newest - 1).to_json())
    assert data["schema_version"] == newest - 1
    assert validator(schema).is_valid(data)
    assert not validator(schema).is_valid({**data, "spare": True})
    later = json.loads(allegra_rules.new_game(2, seed=3).to_json())
    assert later["schema_version"] == newest
    assert not validator(schema).is_valid(later)
    assert validator(schema).is_valid({**later, "spare": True})


def test_an_extra_round_end_field_and_view_field() -> None:
    newest = SCHEMA_VERSIONS[-1]
    marks = StateField("marks", Kind.CELL_SET, default=(), added=newest)
    state = gen.state_schema(round_end_fields=(*ROUND_END_FIELDS, marks))
    round_end = state["$defs"]["round_end"]
    assert round_end["properties"]["marks"] == {
        "type": "array",
        "items": {"type": "integer", "minimum": 0},
    }
    entry = _entry(state, newest)
    inner = [f.name for f in ROUND_END_FIELDS if f.added == newest]
    assert entry["then"]["properties"]["last_round"]["anyOf"][1] == {"required": [*inner, "marks"]}
    hint = ViewField("hint_cards", ViewKind.KNOWN_CARDS, shows="draw_pile", about="draw_pile_size")
    view = gen.view_schema(view_fields=_extended(VIEW_FIELDS, "draw_pile_cards", hint))
    assert view["properties"]["hint_cards"] == view["properties"]["draw_pile_cards"]
    keys = list(view["properties"])
    assert keys.index("hint_cards") == keys.index("draw_pile_cards") + 1
    assert "hint_cards" in view["required"]


def test_every_kind_has_a_schema() -> None:
    assert set(gen._KIND_SCHEMAS) == set(Kind)
    assert set(gen._VIEW_KIND_SCHEMAS) == set(ViewKind)
    for kind in Kind:
        assert gen._field_schema("state", StateField("x", kind))
    for view_kind in ViewKind:
        assert gen._view_field_schema(ViewField("x", view_kind))


def test_a_kind_without_a_schema_stops_the_generator(
    copies: dict[str, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A declared kind without a fragment stops the generator before it writes anything.
    monkeypatch.delitem(gen._KIND_SCHEMAS, Kind.REFILLS)
    copies["state"].write_text("{}\n", encoding="utf-8")
    assert gen.main(["--write"]) == 2
    assert "no schema for kind Kind.REFILLS (field 'refills')" in capsys.readouterr().err
    assert copies["state"].read_text(encoding="utf-8") == "{}\n"
    with pytest.raises(gen.NoSchemaError, match="_KIND_SCHEMAS"):
        gen.state_schema()


def test_no_module_of_the_engine_imports_the_generator() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, allegra_rules, allegra_rules.serialize, allegra_rules.views;"
            "assert 'allegra_rules._generate_schemas' not in sys.modules",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    importlib.reload(gen)  # importing it again writes nothing
    assert gen.stale_files() == []
