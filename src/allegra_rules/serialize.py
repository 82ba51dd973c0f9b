"""Saved games: JSON for states and actions, and a loader that trusts nothing.

A state document is one JSON object holding every [`GameState`][allegra_rules.state.GameState]
field, the whole rule config (``RuleConfig.to_dict``), ``schema_version`` and ``kind``.
[`state_to_json`][allegra_rules.serialize.state_to_json] writes it canonically (sorted keys, no
whitespace), so equal states give equal text.
[`state_from_json`][allegra_rules.serialize.state_from_json] reads it back and checks everything
before it builds a state: the document's size and nesting depth (before parsing), JSON syntax, the
exact key set of every object, every type (a JSON ``true`` is not an integer), every range, card
conservation against the config's deck, and the consistency of the phase with every other field.
Anything wrong raises [`SaveFormatError`][allegra_rules.serialize.SaveFormatError], a ``ValueError``
whose message starts with the path of the bad part, such as ``$.cells[14]``.

Action documents ([`action_to_json`][allegra_rules.serialize.action_to_json],
[`action_from_json`][allegra_rules.serialize.action_from_json]) use the same rules. The JSON Schema
files of every document kind ship in ``allegra_rules/schemas/``;
[`json_schema`][allegra_rules.serialize.json_schema] loads them. The loader is stricter than the
schemas: a schema checks shapes, types and fixed ranges; the loader also checks what depends on the
config and on other fields.

This module is the documented face of the state codec, ``allegra_rules.state_codec``, which
sits below the state and reads and writes every field by its declared kind
(``allegra_rules.fields``): the state document written two ways (``state_to_dict``, and
``state_to_json`` writing the same canonical text directly) and read two ways (a fast reader
that checks every field in bulk, and a checked one that names the bad field). The loaders here
add the one check that needs the rules: a state that is not over has a legal action
(``allegra_rules.invariants.check_consistency``). The other codecs live below it and their
documented names are re-exported here, where they have always been: the JSON toolkit
(``allegra_rules.jsondoc``: ``SaveFormatError``, the limits, the parser, the typed getters), the
config codec (``allegra_rules.config_codec``: ``schema_version_for``) and the action codec
(``allegra_rules.action_codec``).

The reader helpers here (``get_*``, ``read_*``, ``ValidValues``, ``consistent``) are shared
with [`allegra_rules.views`][allegra_rules.views] and
[`allegra_rules.records`][allegra_rules.records]; they are not in the module's
``__all__``, not documented here, and may change between releases.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from allegra_rules import state_codec
from allegra_rules.action_codec import (
    ACTION_SCHEMA_VERSION,
    ACTION_TYPES,
    action_from_dict,
    action_from_json,
    action_to_dict,
    action_to_json,
)
from allegra_rules.config import RuleConfig
from allegra_rules.config_codec import config_from_data as config_from_data
from allegra_rules.config_codec import schema_version_for
from allegra_rules.invariants import InvalidStateError, check_consistency
from allegra_rules.invariants import bounds as bounds
from allegra_rules.invariants import check_conservation as _check_conservation
from allegra_rules.jsondoc import (
    DECODER,
    MAX_DOCUMENT_BYTES,
    MAX_NESTING_DEPTH,
    MAX_PLAYERS,
    SCHEMA_NAMES,
    SCHEMA_VERSION,
    SCHEMA_VERSIONS,
    SaveFormatError,
    json_schema,
)
from allegra_rules.jsondoc import JsonPath as JsonPath
from allegra_rules.jsondoc import check_header as check_header
from allegra_rules.jsondoc import describe as describe
from allegra_rules.jsondoc import dumps as dumps
from allegra_rules.jsondoc import fail as fail
from allegra_rules.jsondoc import get_bool as get_bool
from allegra_rules.jsondoc import get_card as get_card
from allegra_rules.jsondoc import get_cards as get_cards
from allegra_rules.jsondoc import get_int as get_int
from allegra_rules.jsondoc import get_int_list as get_int_list
from allegra_rules.jsondoc import get_list as get_list
from allegra_rules.jsondoc import get_object as get_object
from allegra_rules.jsondoc import get_opt_int as get_opt_int
from allegra_rules.jsondoc import get_seats as get_seats
from allegra_rules.jsondoc import get_str as get_str
from allegra_rules.jsondoc import join as join
from allegra_rules.jsondoc import load_document as load_document
from allegra_rules.jsondoc import parse_document as parse_document
from allegra_rules.jsondoc import render as render
from allegra_rules.state import GameState, RoundEnd, require_state, trusted_state
from allegra_rules.state_checks import ValidValues as ValidValues
from allegra_rules.state_codec import read_cells as read_cells
from allegra_rules.state_codec import read_public as read_public
from allegra_rules.state_codec import read_table as read_table
from allegra_rules.transitions import ROUNDS as ROUNDS

# The documented names, some defined in the codecs below this module and re-exported.
# The names imported above as themselves (``fail as fail``: the JSON toolkit's readers and
# error helpers) are re-exported too, undocumented: the views, the records and older code
# import them from here.
__all__ = [
    "ACTION_SCHEMA_VERSION",
    "ACTION_TYPES",
    "MAX_DOCUMENT_BYTES",
    "MAX_NESTING_DEPTH",
    "MAX_PLAYERS",
    "ROUND_END_KEYS",
    "ROUND_END_KEYS_V1",
    "SCHEMA_NAMES",
    "SCHEMA_VERSION",
    "SCHEMA_VERSIONS",
    "STATE_KEYS",
    "STATE_KEYS_V1",
    "SaveFormatError",
    "action_from_dict",
    "action_from_json",
    "action_to_dict",
    "action_to_json",
    "json_schema",
    "schema_version_for",
    "state_from_dict",
    "state_from_json",
    "state_to_dict",
    "state_to_json",
]


_DECODER = DECODER  # the name benchmarks/saved_games.py reads

STATE_KEYS: tuple[str, ...] = state_codec.state_keys(SCHEMA_VERSION)
"""Every key of a state document (schema version 2), all required."""

STATE_KEYS_V1: tuple[str, ...] = state_codec.state_keys(1)
"""Every key of a schema version 1 state document, all required."""

ROUND_END_KEYS: tuple[str, ...] = state_codec.round_end_keys(SCHEMA_VERSION)
"""Every key of a ``last_round`` object (schema version 2), all required."""

ROUND_END_KEYS_V1: tuple[str, ...] = state_codec.round_end_keys(1)
"""Every key of a schema version 1 ``last_round`` object, all required."""

PUBLIC_KEYS: tuple[str, ...] = tuple(f.name for f in state_codec.PUBLIC_FIELDS)
"""The keys that a state and a player view share, with the same meaning."""


# ----------------------------------------------------------------------- checks


def check_conservation(path: JsonPath, found: Counter[int], config: RuleConfig, where: str) -> None:
    """Fail unless ``found`` is exactly the config's deck as a multiset."""
    try:
        _check_conservation(render(path), found, config, where)
    except InvalidStateError as exc:
        fail(exc.path, exc.reason)


def consistent(state: GameState, path: JsonPath = "$") -> None:
    """Fail unless ``state`` passes ``allegra_rules.invariants.check_consistency``.

    Raises:
        SaveFormatError: the first contradiction, at the document path of the field.
    """
    state_codec.consistent(state, path, check_consistency)


# ------------------------------------------------------------------------ state


def state_to_dict(state: GameState) -> dict[str, Any]:
    """The state as plain JSON data (see ``state_to_json`` for the format)."""
    return state_codec.state_to_dict(require_state(state))


def round_end_to_dict(last: RoundEnd, version: int = SCHEMA_VERSION) -> dict[str, Any]:
    """A [`RoundEnd`][allegra_rules.state.RoundEnd] as plain JSON data of schema ``version``."""
    return state_codec.round_end_to_dict(last, version)


def state_to_json(state: GameState) -> str:
    """The state as a canonical JSON document (sorted keys, no whitespace).

    Equal states give equal text. The document holds every state field (``seed``
    and the hidden cards included: it is a full saved game, not a player's view),
    the whole config, ``"schema_version": 1`` and ``"kind": "state"``.

    Examples:
        >>> from allegra_rules import new_game
        >>> text = state_to_json(new_game(2, seed=5))
        >>> state_from_json(text) == new_game(2, seed=5)
        True
    """
    if not isinstance(state, GameState):
        raise ValueError(f"state must be a GameState; got {type(state).__name__}")
    return _state_json(state)


_state_json = state_codec.state_json
"""The canonical text of a state, written directly (generated from the declaration)."""


def state_from_json(text: str | bytes, *, max_bytes: int = MAX_DOCUMENT_BYTES) -> GameState:
    """Load a state document written by ``state_to_json``, checking everything.

    Args:
        text: the document (``str`` or UTF-8 ``bytes``).
        max_bytes: reject larger documents before parsing.

    Raises:
        SaveFormatError: the document is too large or deep, not JSON, of another
            schema version or kind, has unknown or missing keys, wrong types, values
            out of range, cards that do not add up to the config's deck, or fields
            that contradict each other. The message names the path.
    """
    return load_document(text, state_from_dict, max_bytes=max_bytes, what="state")


def state_from_dict(data: object, path: JsonPath = "$") -> GameState:
    """Load parsed state JSON data (see ``state_from_json``), checking everything.

    Args:
        data: the parsed document.
        path: the path of ``data`` inside a larger document, for messages.

    Raises:
        SaveFormatError: as [`state_from_json`][allegra_rules.serialize.state_from_json].
    """
    state = trusted_state(**state_codec.read_state(data, path))
    consistent(state, path)
    return state


def _state_fast(data: object, path: JsonPath) -> GameState | None:
    """The state of a document whose every field has the right type and range, else ``None``.

    Every check of [`_state_checked`][allegra_rules.serialize._state_checked] (the types, sizes
    and ranges; not yet the consistency), done in bulk without building a JSON path.
    """
    fields = state_codec.read_state_fast(data, path)
    return None if fields is None else trusted_state(**fields)


def _state_checked(data: object, path: JsonPath) -> GameState:
    """The state of a document, each type, size and range checked one by one.

    The consistency is not checked yet. A failure names the field's path.
    """
    return trusted_state(**state_codec.read_state_checked(data, path))


def read_setup_named(
    data: Mapping[str, Any], path: JsonPath, valid: ValidValues, key: str
) -> tuple[int, ...]:
    """Load the named setup cells at ``key`` (schema version 2; empty in version 1)."""
    named: tuple[int, ...] = state_codec.read_named(data, path, valid, key)
    return named
