"""Write the JSON Schemas of a saved state and of a player view from the declaration of the fields.

Run ``python -m allegra_rules._generate_schemas --write`` after changing
``allegra_rules.fields`` (``STATE_FIELDS``, ``ROUND_END_FIELDS``, ``VIEW_FIELDS``); without
``--write`` it exits 1 when ``schemas/state.schema.json`` or ``schemas/view.schema.json`` is not
what it writes (``tests/test_schemas_generated.py`` checks it). This is a tool for developers: no
module of the engine imports it.

Each field's schema comes from its kind (``Kind``, ``ViewKind``): one fragment per kind, with
the bounds a schema can express on its own (shapes, types and the fixed ranges of any table:
``2 .. MAX_SEATS`` seats, three rounds); the loader checks the rest (ranges that depend on the
config and seat count, the phase, card conservation). A field's ``added`` version makes it
optional in the ``properties``, required from that version on and absent before it (the
``allOf`` at the end), and prefixes its description. What no declaration says stays here, in
words: the titles, a few fields' descriptions (``_DESCRIPTIONS``), the config's schema and the
action's (the view's ``legal_actions``).

The properties come in declaration order, in two groups, so that the two schemas read alike:
in the state, first the fields that a view holds as they are (or not at all), then those that
a view shows in its own way (through ``StateField.view``); in the view, first the viewer, then
the state's copied fields, then the view's other fields.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from allegra_rules.config import LATER_OPTIONS
from allegra_rules.fields import (
    ROUND_END_FIELDS,
    STATE_FIELDS,
    VIEW_FIELDS,
    Kind,
    StateField,
    ViewField,
    ViewKind,
    fields_after_newest,
)
from allegra_rules.geometry import CELLS_PER_SEAT, MAX_SEATS
from allegra_rules.jsondoc import SCHEMA_VERSIONS
from allegra_rules.round_end import ROUNDS, Phase
from allegra_rules.state_codec import HAND_KEYS, HEADER_KEYS

__all__ = [
    "SCHEMAS",
    "NoSchemaError",
    "current_texts",
    "main",
    "schema_text",
    "stale_files",
    "state_schema",
    "view_schema",
]

SRC = Path(__file__).parent
SCHEMAS: dict[str, Path] = {
    "state": SRC / "schemas" / "state.schema.json",
    "view": SRC / "schemas" / "view.schema.json",
}
"""The schema files this tool writes, by document kind."""

MIN_SEATS = 2
"""The fewest seats any table has (``allegra_rules.geometry.seat_count``)."""

_FIRST, _LATEST = SCHEMA_VERSIONS[0], SCHEMA_VERSIONS[-1]


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/$defs/{name}"}


def _array(items: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"type": "array", "items": items, **more}


def _nat() -> dict[str, Any]:
    return {"type": "integer", "minimum": 0}


def _table_size() -> dict[str, int]:
    return {"minItems": MIN_SEATS * CELLS_PER_SEAT, "maxItems": MAX_SEATS * CELLS_PER_SEAT}


def _hand(card: str) -> dict[str, Any]:
    player_key, card_key = HAND_KEYS
    return {
        "type": "array",
        "maxItems": 1,
        "items": {
            "type": "object",
            "properties": {player_key: _ref("seat"), card_key: _ref(card)},
            "required": list(HAND_KEYS),
            "additionalProperties": False,
        },
    }


# ----------------------------------------------------------------------- by kind

_KIND_SCHEMAS: dict[Kind, Callable[[], dict[str, Any]]] = {
    Kind.CONFIG: lambda: _ref("config"),
    Kind.SEAT_COUNT: lambda: {"type": "integer", "minimum": MIN_SEATS, "maximum": MAX_SEATS},
    Kind.SEED: lambda: {"type": "integer"},  # its range is the loader's
    Kind.ROUND: lambda: {"type": "integer", "minimum": 1, "maximum": ROUNDS},
    Kind.PHASE: lambda: {"enum": [phase.value for phase in Phase]},
    Kind.SEAT: lambda: _ref("seat"),
    Kind.OPT_SEAT: lambda: _ref("seat_or_null"),
    Kind.SEATS: lambda: _array(_ref("seat"), uniqueItems=True),
    Kind.OPT_CELL: lambda: _ref("cell_or_null"),
    Kind.CELLS: lambda: _array(_nat()),
    Kind.TABLE: lambda: {**_array(_ref("card_or_null")), **_table_size()},
    Kind.CELL_MASK: lambda: {**_array({"type": "boolean"}), **_table_size()},
    Kind.CARDS: lambda: _array(_ref("card")),
    Kind.OPT_CARD: lambda: _ref("card_or_null"),
    Kind.HAND: lambda: _hand("card"),
    Kind.REVEALS: _nat,
    Kind.TURNS: _nat,
    Kind.REFILLS: _nat,
    Kind.PER_SEAT: lambda: _array({"type": "integer"}),  # its bound depends on the config
    Kind.SCORE_ROWS: lambda: {
        "type": "array",
        "maxItems": ROUNDS,
        "items": _array({"type": "integer"}),
    },
    Kind.FLAG: lambda: {"type": "boolean"},
    Kind.ROUND_END: lambda: {"oneOf": [{"type": "null"}, _ref("round_end")]},
    Kind.CELL_SET: lambda: _array(_nat()),
    Kind.SCHEMA_VERSION: lambda: {"enum": list(SCHEMA_VERSIONS)},  # written as the header
}
"""The schema of a state field (or a ``RoundEnd``'s) of each kind."""

_UNSIZED_IN_ROUND_END = (Kind.TABLE, Kind.CELL_MASK)
"""Kinds whose size the schema of a ``RoundEnd`` leaves to the loader (it always has)."""

_VIEW_KIND_SCHEMAS: dict[ViewKind, Callable[[], dict[str, Any]]] = {
    ViewKind.VIEWER: lambda: {"oneOf": [_ref("seat"), {"type": "null"}]},
    ViewKind.SHOWN_CELLS: _KIND_SCHEMAS[Kind.TABLE],
    ViewKind.CELL_FLAGS: _KIND_SCHEMAS[Kind.CELL_MASK],
    ViewKind.PILE_SIZE: _nat,  # the deck's size is the loader's
    ViewKind.KNOWN_CARDS: lambda: {"oneOf": [{"type": "null"}, _array(_ref("card"))]},
    ViewKind.SHOWN_CARD: lambda: _ref("card_or_null"),
    ViewKind.HIDDEN_FLAG: lambda: {"type": "boolean"},
    ViewKind.SHOWN_HAND: lambda: _hand("card_or_null"),
    ViewKind.ACTIONS: lambda: _array(_ref("action")),
    ViewKind.OWN_CELLS: lambda: _array(_nat()),
}
"""The schema of a view field of each kind (besides the state's fields a view copies)."""

_DESCRIBED_FIRST: tuple[Kind | ViewKind, ...] = (ViewKind.VIEWER,)
_DESCRIBED_AFTER_TYPE: tuple[Kind | ViewKind, ...] = (Kind.TABLE, ViewKind.SHOWN_CELLS)
"""Where a kind's schema puts a description (else last)."""

# ------------------------------------------------------------------ in words only

_DESCRIPTIONS: dict[str, dict[str, str]] = {
    "state": {
        "discard_pile": "Bottom first: the last card is the top.",
        "cells": "Flat index seat*12 + row*4 + col: a card value, or null for a gap.",
        "draw_pile": "Top first.",
        "setup_named": "The cells named so far in a simultaneous setup, in naming order.",
    },
    "round_end": {
        "removed": 'The cells whose cards left as triples at scoring (scoring_triples="removed").',
    },
    "view": {
        "viewer": (
            "The seat this view belongs to, or null for the public view (what every seat sees)."
        ),
        "cells": "A face-up card's value; null for a face-down card or a gap.",
        "own_setup_named": "The cells the viewer named in a simultaneous setup.",
    },
}
"""A field's description, where the schema has one, per document (a view's copied fields take
the state's); a field added in a later version gets its version prefixed."""

_VERSION_DESCRIPTION = (
    "The version the game is written in, which it keeps (new games: the newest). 1: the format "
    "of release 0.1.0, which holds no option added later; 2: adds the options scoring_triples "
    "and setup_reveals and the keys that go with them."
)

_HEADS: dict[str, dict[str, str]] = {
    "state": {
        "$id": "urn:allegra-rules:schema:state:1",
        "title": "allegra_rules saved game state, schema versions 1 and 2",
        "description": (
            "A full GameState (hidden cards and seed included). The loader also checks what a "
            "schema cannot: card conservation, ranges that depend on the config and seat count, "
            "and the consistency of every field with the phase. Version 1 documents (release "
            "0.1.0's format) have none of the keys added in version 2."
        ),
    },
    "view": {
        "$id": "urn:allegra-rules:schema:view:1",
        "title": "allegra_rules player view, schema versions 1 and 2",
        "description": (
            "What one seat may know: face-down cells are null with face_down true; the draw pile "
            "is a size (and its sorted cards after a refill); hidden held and in-hand cards are "
            "null. Version 1 documents (release 0.1.0's format) have none of the keys added in "
            "version 2."
        ),
    },
}

_ROUND_END_DESCRIPTION = "How the latest finished round ended: its table (all face up) and scoring."

_CONFIG_DEF: dict[str, Any] = {
    "type": "object",
    "description": "RuleConfig.to_dict(): every rule option. See RuleConfig and ambiguities.md.",
    "properties": {
        "deck": {
            "type": "object",
            "description": "Card value (canonical decimal string) -> number of copies.",
            "minProperties": 1,
            "propertyNames": {"pattern": "^(0|-?[1-9][0-9]*)$"},
            "additionalProperties": {"type": "integer", "minimum": 1},
        },
        "min_players": {"type": "integer", "minimum": 2},
        "max_players": {"type": "integer", "minimum": 2},
        "max_turns_per_round": {"type": "integer", "minimum": 1},
        "reveal_area": {"enum": ["zone", "own"]},
        "first_player": {"enum": ["rotate", "highest_reveal"]},
        "discard_draw": {"enum": ["must_swap", "may_discard"]},
        "swap_area": {"enum": ["zone", "own"]},
        "knocking": {"enum": ["always", "three_or_more", "never"]},
        "knock_winner": {"enum": ["drawer_chooses", "first_clockwise"]},
        "take_given_card": {"enum": ["allowed", "forbidden"]},
        "take_area": {"enum": ["zone", "own"]},
        "row_match": {"enum": ["anywhere", "adjacent"]},
        "removed_cards": {"enum": ["out_of_play", "discard"]},
        "round_end": {"enum": ["own_grid", "zone"]},
        "ender_tie": {"enum": ["not_doubled", "doubled"]},
        "double_nonpositive": {"enum": ["yes", "no"]},
        "scoring_triples": {
            "enum": ["kept", "removed"],
            "description": (
                'Added in 0.2.0 (schema version 2); left out at its legacy value "kept".'
            ),
        },
        "setup_reveals": {
            "enum": ["in_turn", "simultaneous"],
            "description": (
                'Added in 0.2.0 (schema version 2); left out at its legacy value "in_turn".'
            ),
        },
    },
    "additionalProperties": False,
    "required": [
        "deck",
        "min_players",
        "max_players",
        "max_turns_per_round",
        "reveal_area",
        "first_player",
        "discard_draw",
        "swap_area",
        "knocking",
        "knock_winner",
        "take_given_card",
        "take_area",
        "row_match",
        "removed_cards",
        "round_end",
        "ender_tie",
        "double_nonpositive",
    ],
}
"""``RuleConfig.to_dict()``'s schema, as in ``record.schema.json``."""

_ACTION_DEFS: dict[str, Any] = {
    "pos": {
        "type": "object",
        "properties": {
            "player": _ref("seat"),
            "row": {"type": "integer", "minimum": 0, "maximum": 2},
            "col": {"type": "integer", "minimum": 0, "maximum": 3},
        },
        "required": ["player", "row", "col"],
        "additionalProperties": False,
    },
    "action_body": {
        "description": (
            'An action: {"type": ...} plus "pos" (reveal, swap, take) or "player" (give).'
        ),
        "type": "object",
        "required": ["type"],
        "oneOf": [
            {
                "properties": {"type": {"enum": ["reveal", "swap", "take"]}, "pos": _ref("pos")},
                "required": ["type", "pos"],
            },
            {
                "properties": {"type": {"const": "give"}, "player": _ref("seat")},
                "required": ["type", "player"],
            },
            {
                "properties": {
                    "type": {"enum": ["draw_deck", "draw_discard", "knock", "pass", "discard"]}
                },
                "required": ["type"],
            },
        ],
    },
    "action": {"$ref": "#/$defs/action_body", "unevaluatedProperties": False},
}
"""An action's schema, as in ``action.schema.json`` (a view's ``legal_actions``)."""


# ----------------------------------------------------------------------- building


class NoSchemaError(LookupError):
    """A kind of the declaration that the generator has no schema fragment for."""


def _fragment(
    table: dict[Any, Callable[[], dict[str, Any]]], kind: Kind | ViewKind, name: str
) -> dict[str, Any]:
    make = table.get(kind)
    if make is None:
        table_name = "_KIND_SCHEMAS" if isinstance(kind, Kind) else "_VIEW_KIND_SCHEMAS"
        raise NoSchemaError(
            f"no schema for kind {kind} (field {name!r}): add one to {table_name} in "
            "allegra_rules._generate_schemas"
        )
    return make()


def _describe(schema: dict[str, Any], kind: Kind | ViewKind, text: str) -> dict[str, Any]:
    """``schema`` with description ``text`` where its kind puts one."""
    entry = {"description": text}
    if kind in _DESCRIBED_FIRST:
        return {**entry, **schema}
    if kind in _DESCRIBED_AFTER_TYPE:
        head, *rest = schema.items()
        return {head[0]: head[1], **entry, **dict(rest)}
    return {**schema, **entry}


def _description(doc: str, name: str, added: int) -> str | None:
    text = _DESCRIPTIONS[doc].get(name)
    if text is None or added == _FIRST:
        return text
    since = f"Schema version {added} only" if added == _LATEST else f"From schema version {added}"
    return f"{since} (required there): {text[0].lower()}{text[1:]}"


def _field_schema(doc: str, field: StateField) -> dict[str, Any]:
    schema = _fragment(_KIND_SCHEMAS, field.kind, field.name)
    if doc == "round_end" and field.kind in _UNSIZED_IN_ROUND_END:
        schema = {k: v for k, v in schema.items() if k not in ("minItems", "maxItems")}
    text = _description(doc, field.name, field.added)
    return schema if text is None else _describe(schema, field.kind, text)


def _view_field_schema(field: ViewField) -> dict[str, Any]:
    schema = _fragment(_VIEW_KIND_SCHEMAS, field.kind, field.name)
    text = _description("view", field.name, field.added)
    return schema if text is None else _describe(schema, field.kind, text)


def _shared_defs(round_end_fields: Sequence[StateField]) -> dict[str, Any]:
    last_seat, last_cell = MAX_SEATS - 1, MAX_SEATS * CELLS_PER_SEAT - 1
    return {
        "card": {"type": "integer", "description": "A card value of the config's deck."},
        "card_or_null": {"type": ["integer", "null"], "description": "A card value, or null."},
        "seat": {"type": "integer", "minimum": 0, "maximum": last_seat},
        "seat_or_null": {"type": ["integer", "null"], "minimum": 0, "maximum": last_seat},
        "cell_or_null": {"type": ["integer", "null"], "minimum": 0, "maximum": last_cell},
        "config": _CONFIG_DEF,
        "round_end": {
            "type": "object",
            "description": _ROUND_END_DESCRIPTION,
            "properties": {f.name: _field_schema("round_end", f) for f in round_end_fields},
            "required": [f.name for f in round_end_fields if f.added == _FIRST],
            "additionalProperties": False,
        },
    }


def _header(kind: str) -> dict[str, Any]:
    version, doc_kind = HEADER_KEYS
    return {
        version: {"enum": list(SCHEMA_VERSIONS), "description": _VERSION_DESCRIPTION},
        doc_kind: {"const": kind},
    }


def _any_of_keys(names: Sequence[str]) -> dict[str, Any]:
    """A schema that holds when any of the keys ``names`` is present (its ``not``: none is)."""
    if len(names) == 1:
        return {"required": list(names)}
    return {"anyOf": [{"required": [name]} for name in names]}


def _versions(
    names: Iterable[tuple[str, int]],
    round_end_fields: Sequence[StateField],
    state_fields: Sequence[StateField],
) -> list[dict[str, Any]]:
    """Per later schema version, what its documents require and what older ones lack.

    ``names`` are the document's keys with the version that added each.
    """
    named = list(names)
    (last_round,) = (f.name for f in state_fields if f.kind is Kind.ROUND_END)
    (config,) = (f.name for f in state_fields if f.kind is Kind.CONFIG)
    entries = []
    for version in SCHEMA_VERSIONS[1:]:
        keys = [name for name, added in named if added == version]
        inner = [f.name for f in round_end_fields if f.added == version]
        options = list(LATER_OPTIONS) if version == SCHEMA_VERSIONS[1] else []
        then: dict[str, Any] = {}
        other: dict[str, Any] = {}
        if keys:
            then["required"] = keys
        if options:
            other[config] = {"properties": dict.fromkeys(options, False)}
        if inner:
            then["properties"] = {last_round: {"anyOf": [{"type": "null"}, {"required": inner}]}}
            other[last_round] = {"anyOf": [{"type": "null"}, {"not": _any_of_keys(inner)}]}
        otherwise: dict[str, Any] = {"properties": other} if other else {}
        if keys:
            otherwise["not"] = _any_of_keys(keys)
        if not then and not otherwise:
            continue
        later = [v for v in SCHEMA_VERSIONS if v >= version]
        test = {"const": version} if len(later) == 1 else {"enum": later}
        entries.append(
            {
                "if": {"properties": {HEADER_KEYS[0]: test}},
                **({"then": then} if then else {}),
                **({"else": otherwise} if otherwise else {}),
            }
        )
    return entries


def _document(
    kind: str,
    properties: dict[str, Any],
    added: dict[str, int],
    defs: dict[str, Any],
    round_end_fields: Sequence[StateField],
    state_fields: Sequence[StateField],
) -> dict[str, Any]:
    properties = {**_header(kind), **properties}
    versions = _versions(added.items(), round_end_fields, state_fields)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **_HEADS[kind],
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "$defs": defs,
        "required": [name for name in properties if added.get(name, _FIRST) == _FIRST],
        **({"allOf": versions} if versions else {}),
    }


def _state_order(fields: Sequence[StateField]) -> list[StateField]:
    """The fields a view holds as they are or not at all, then those it shows its own way.

    The schema version field is left out: it is the header's ``schema_version``.
    """
    fields = [f for f in fields if f.kind is not Kind.SCHEMA_VERSION]
    return [f for f in fields if not f.view] + [f for f in fields if f.view]


def state_schema(
    fields: Sequence[StateField] = STATE_FIELDS,
    round_end_fields: Sequence[StateField] = ROUND_END_FIELDS,
) -> dict[str, Any]:
    """The JSON Schema of a state document of the declared ``fields``."""
    ordered = _state_order(fields)
    return _document(
        "state",
        {f.name: _field_schema("state", f) for f in ordered},
        {f.name: f.added for f in ordered},
        _shared_defs(round_end_fields),
        round_end_fields,
        fields,
    )


def view_schema(
    fields: Sequence[StateField] = STATE_FIELDS,
    view_fields: Sequence[ViewField] = VIEW_FIELDS,
    round_end_fields: Sequence[StateField] = ROUND_END_FIELDS,
) -> dict[str, Any]:
    """The JSON Schema of a view document: the copied ``fields`` and the ``view_fields``."""
    first = [f for f in view_fields if f.kind is ViewKind.VIEWER]
    copied = [f for f in _state_order(fields) if f.copied_to_view]
    rest = [f for f in view_fields if f.kind is not ViewKind.VIEWER]
    properties = {
        **{f.name: _view_field_schema(f) for f in first},
        **{f.name: _field_schema("state", f) for f in copied},
        **{f.name: _view_field_schema(f) for f in rest},
    }
    both: list[StateField | ViewField] = [*first, *copied, *rest]
    added = {f.name: f.added for f in both}
    defs = {**_shared_defs(round_end_fields), **_ACTION_DEFS}
    return _document("view", properties, added, defs, round_end_fields, fields)


def schema_text(schema: dict[str, Any]) -> str:
    """A schema file's text: two-space indents, a final newline."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def current_texts() -> dict[Path, str]:
    """Each schema file (``SCHEMAS``) and the text it should hold."""
    return {
        SCHEMAS["state"]: schema_text(state_schema()),
        SCHEMAS["view"]: schema_text(view_schema()),
    }


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.exists() else None


def stale_files() -> list[Path]:
    """The schema files that do not hold what this tool writes."""
    return [path for path, want in current_texts().items() if _read(path) != want]


def main(argv: list[str] | None = None) -> int:
    """Check (exit 1 when stale) or ``--write`` the schemas of a state and of a view.

    Exits 2, writing nothing, when a kind has no schema fragment (``NoSchemaError``) or
    a field is added after ``NEWEST_VERSION``.
    """
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite the schema files")
    args = parser.parse_args(argv)
    too_new = fields_after_newest()
    if too_new:
        print(f"cannot generate the schemas: {too_new}", file=sys.stderr)
        return 2
    try:
        texts = current_texts()
    except NoSchemaError as error:
        print(error, file=sys.stderr)
        return 2
    stale = [path for path, want in texts.items() if _read(path) != want]
    if args.write:
        for path, want in texts.items():
            if path in stale:
                path.write_text(want, encoding="utf-8")
                print(f"wrote {path}")
        return 0
    for path in stale:
        print(f"{path} is not current: run python -m allegra_rules._generate_schemas --write")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
