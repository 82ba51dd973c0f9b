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

The reader helpers here (``get_*``, ``read_*``, ``Table``, ``consistent``) are shared
with [`allegra_rules.views`][allegra_rules.views] and
[`allegra_rules.records`][allegra_rules.records]; they are not in the module's
``__all__``, not documented here, and may change between releases.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache, lru_cache, partial
from importlib import resources
from itertools import chain, compress
from operator import is_not
from typing import Any, NoReturn, TypeVar

import attrs

from allegra_rules.actions import (
    DISCARD,
    DRAW_DECK,
    DRAW_DISCARD,
    KNOCK,
    PASS,
    Action,
    Discard,
    DrawDeck,
    DrawDiscard,
    Give,
    Knock,
    Pass,
    Reveal,
    Swap,
    Take,
    action_table,
)
from allegra_rules.config import LATER_OPTIONS, OPTION_CHOICES, RuleConfig
from allegra_rules.geometry import CELLS_PER_SEAT, COLS, MAX_SEATS, ROWS, Pos
from allegra_rules.invariants import InvalidStateError, bounds, check_consistency, deck_counts
from allegra_rules.invariants import check_conservation as _check_conservation
from allegra_rules.shuffle import MAX_SEED, MIN_SEED
from allegra_rules.state import (
    GameState,
    Phase,
    RoundEnd,
    require_state,
    trusted_round_end,
    trusted_state,
)
from allegra_rules.transitions import ROUNDS

# The documented names; the others (the JSON readers the views and records share,
# the error helpers) are the module's own.
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

_T = TypeVar("_T")

SCHEMA_VERSION = 2
"""The newest version of the JSON documents; this release reads every version up to it.

A document is written in the oldest version that can hold it: the documents of a game
whose config uses no option added after 0.1.0 are exactly what release 0.1.0 wrote
(version 1), so their text, digests and readers never change. Version 2 (release
0.2.0) adds the options ``scoring_triples`` and ``setup_reveals`` to the config, the
state key ``setup_named``, the view key ``own_setup_named`` and the ``last_round`` key
``removed``. See [`schema_version_for`][allegra_rules.serialize.schema_version_for].
"""

SCHEMA_VERSIONS: tuple[int, ...] = (1, 2)
"""Every schema version this release reads."""

ACTION_SCHEMA_VERSION = 1
"""Action documents have not changed since release 0.1.0: they are always version 1."""

MAX_DOCUMENT_BYTES = 4 * 1024 * 1024
"""Documents above this many bytes (UTF-8) are rejected before parsing (4 MiB).

Every loader takes a ``max_bytes`` argument to raise or lower it.
"""

MAX_NESTING_DEPTH = 16
"""Arrays and objects nested deeper than this are rejected before parsing.

The formats themselves never nest deeper than 4.
"""

MAX_PLAYERS = MAX_SEATS
"""The most seats a saved document may have, whatever its config allows (64)."""

STATE_KEYS: tuple[str, ...] = (
    "schema_version",
    "kind",
    *(field.name for field in attrs.fields(GameState) if field.init),
)
"""Every key of a state document (schema version 2), all required."""

_V2_STATE_KEYS = ("setup_named",)
STATE_KEYS_V1: tuple[str, ...] = tuple(k for k in STATE_KEYS if k not in _V2_STATE_KEYS)
"""Every key of a schema version 1 state document, all required."""

ROUND_END_KEYS: tuple[str, ...] = (
    "round",
    "cells",
    "zone_sums",
    "ender",
    "doubled",
    "scores",
    "removed",
)
"""Every key of a ``last_round`` object (schema version 2), all required."""

ROUND_END_KEYS_V1: tuple[str, ...] = ROUND_END_KEYS[:-1]
"""Every key of a schema version 1 ``last_round`` object, all required."""

ACTION_TYPES: dict[type, str] = {
    Reveal: "reveal",
    DrawDeck: "draw_deck",
    DrawDiscard: "draw_discard",
    Knock: "knock",
    Pass: "pass",
    Give: "give",
    Swap: "swap",
    Discard: "discard",
    Take: "take",
}
"""The ``type`` string of every action class in JSON."""

_ACTION_CLASSES: dict[str, type] = {name: cls for cls, name in ACTION_TYPES.items()}
_PLAIN_ACTIONS: dict[type, Action] = {
    DrawDeck: DRAW_DECK,
    DrawDiscard: DRAW_DISCARD,
    Knock: KNOCK,
    Pass: PASS,
    Discard: DISCARD,
}
_POS_ACTIONS = (Reveal, Swap, Take)
_CONFIG_KEYS: tuple[str, ...] = tuple(f.name for f in attrs.fields(RuleConfig))
_CONFIG_KEYS_V1: tuple[str, ...] = tuple(k for k in _CONFIG_KEYS if k not in LATER_OPTIONS)
_INT_OPTIONS = ("min_players", "max_players", "max_turns_per_round")
_CANONICAL_INT = re.compile(r"0|-?[1-9][0-9]*")


class SaveFormatError(ValueError):
    """A JSON document that cannot be loaded: malformed, inconsistent or tampered.

    The message reads ``"<path>: <reason>"``; the path names the bad part of the
    document in JSONPath style, ``$`` being the whole document: ``$.cells[14]``,
    ``$.config.deck["5"]``, ``$.actions[37].pos.row``.

    Attributes:
        path: where the problem is.
        reason: what is wrong there.
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


# ------------------------------------------------------------------ reading JSON


JsonPath = str | tuple["JsonPath", str | int]
"""Where a value lies in a document: ``"$"``, or ``(parent, key)`` built by ``join``.

Loaders pass these lazy paths down and turn them into text
([`render`][allegra_rules.serialize.render]) only when they report an error, so a document that
loads builds no path strings.
"""


def fail(path: JsonPath, reason: str) -> NoReturn:
    """Raise [`SaveFormatError`][allegra_rules.serialize.SaveFormatError] at ``path``."""
    raise SaveFormatError(render(path), reason)


def _short(value: object, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def join(path: JsonPath, key: str | int) -> JsonPath:
    """The path of ``key`` inside ``path`` (rendered, ``$.cells`` + ``3`` is ``$.cells[3]``)."""
    return (path, key)


def render(path: JsonPath) -> str:
    """A path as JSONPath text: ``$``, ``$.cells[3]``, ``$.config.deck["5"]``."""
    keys: list[str | int] = []
    while isinstance(path, tuple):
        path, key = path
        keys.append(key)
    text = path if isinstance(path, str) else _short(path)
    for key in reversed(keys):
        if isinstance(key, int):
            text = f"{text}[{key}]"
        elif isinstance(key, str) and key.isidentifier() and key.isascii():
            text = f"{text}.{key}"
        else:
            text = f"{text}[{json.dumps(str(key)[:40])}]"
    return text


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                fail("$", f"duplicate key {_short(key)} in an object")
            seen.add(key)
    return out


def _reject_constant(name: str) -> NoReturn:
    fail("$", f"{name} is not a JSON number")


# One decoder for every document (json.loads with options builds a new one each call).
_DECODER = json.JSONDecoder(object_pairs_hook=_reject_duplicates, parse_constant=_reject_constant)


def load_document(
    text: object, build: Callable[[Any], _T], *, max_bytes: int = MAX_DOCUMENT_BYTES, what: str
) -> _T:
    """Parse ``text`` (``parse_document``) and ``build`` the loaded object from it.

    A document nested deeper than [`MAX_NESTING_DEPTH`][allegra_rules.serialize.MAX_NESTING_DEPTH]
    never has the shape that ``build`` checks, so the depth is looked at only when ``build`` refuses
    the document: the error then says it nests too deep.
    """
    data = parse_document(text, max_bytes=max_bytes, what=what, check_depth=False)
    try:
        return build(data)
    except SaveFormatError:
        _check_depth(data)
        raise


def parse_document(
    text: object, *, max_bytes: int = MAX_DOCUMENT_BYTES, what: str, check_depth: bool = True
) -> Any:
    """Parse JSON ``text`` after checking its size, and check its nesting depth.

    Args:
        text: the document, ``str`` or UTF-8 ``bytes``.
        max_bytes: the largest accepted size in bytes.
        what: the document kind, for messages.
        check_depth: check the nesting depth now
            ([`load_document`][allegra_rules.serialize.load_document] checks it only when the
            document fails to load).

    Returns:
        The parsed JSON value.

    Raises:
        SaveFormatError: too large, too deep, not UTF-8, not JSON, duplicate keys,
            ``NaN`` or ``Infinity``.
    """
    if type(max_bytes) is not int or max_bytes < 1:
        raise ValueError(f"max_bytes must be a positive int; got {max_bytes!r}")
    if isinstance(text, (bytes, bytearray, memoryview)):
        raw = bytes(text)
        if len(raw) > max_bytes:
            fail("$", f"the {what} document has {len(raw)} bytes; {_limit(max_bytes)}")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            fail("$", f"the {what} document is not UTF-8: {exc}")
    elif isinstance(text, str):
        # A character takes at most 4 bytes in UTF-8: only a long text needs encoding to measure.
        if len(text) > max_bytes // 4 and (
            len(text) > max_bytes or len(text.encode("utf-8", "surrogatepass")) > max_bytes
        ):
            fail("$", f"the {what} document has more than {max_bytes} bytes; {_limit(max_bytes)}")
    else:
        fail("$", f"a {what} document must be str or bytes; got {type(text).__name__}")
    assert isinstance(text, str)
    try:
        value = _DECODER.decode(text)
    except SaveFormatError:
        raise
    except RecursionError:
        fail("$", f"arrays and objects nest deeper than {MAX_NESTING_DEPTH} levels")
    except ValueError as exc:
        fail("$", f"the {what} document is not valid JSON: {exc}")
    if check_depth:
        _check_depth(value)
    return value


def _limit(max_bytes: int) -> str:
    return f"the limit is {max_bytes} bytes (MAX_DOCUMENT_BYTES or max_bytes)"


def _check_depth(value: object) -> None:
    """Fail when arrays and objects nest deeper than ``MAX_NESTING_DEPTH``."""
    # Level by level, keeping only the arrays and objects (filtered at C speed).
    level: list[Any] = [value] if type(value) in _CONTAINERS else []
    for _ in range(MAX_NESTING_DEPTH):
        if not level:
            return
        inner: list[Any] = []
        for item in level:
            members = item.values() if type(item) is dict else item
            inner.extend(compress(members, map(_is_container, map(type, members))))
        level = inner
    if level:
        fail("$", f"arrays and objects nest deeper than {MAX_NESTING_DEPTH} levels")


_CONTAINERS = frozenset({dict, list})
_is_container = _CONTAINERS.__contains__


def describe(value: object) -> str:
    """The JSON type name of a parsed value, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number with a fraction or exponent"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def get_object(
    value: object, path: JsonPath, keys: Sequence[str], optional: Sequence[str] = ()
) -> dict[str, Any]:
    """``value`` as an object with exactly ``keys`` (all required), and maybe ``optional``."""
    if not isinstance(value, dict):
        fail(path, f"expected an object; got {describe(value)}")
    if not optional and len(value) == len(keys) and value.keys() == _key_set(keys):
        return value
    for key in value:
        if key not in keys and key not in optional:
            allowed = ", ".join((*keys, *optional))
            fail(join(path, key), f"unknown key; the allowed keys are {allowed}")
    for key in keys:
        if key not in value:
            fail(join(path, key), "missing (every key is required; use null where allowed)")
    return value


@lru_cache(maxsize=64)
def _key_set(keys: tuple[str, ...]) -> frozenset[str]:
    return frozenset(keys)


def get_int(value: object, path: JsonPath, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an int in ``low..high`` (a boolean is not an int)."""
    if type(value) is not int:
        fail(path, f"expected an integer; got {describe(value)}")
    if (low is not None and value < low) or (high is not None and value > high):
        if high is None:
            fail(path, f"must be at least {low}; got {value}")
        if low is None:
            fail(path, f"must be at most {high}; got {value}")
        fail(path, f"must be in {low}..{high}; got {value}")
    return value


def get_opt_int(value: object, path: JsonPath, low: int, high: int) -> int | None:
    """``value`` as null or an int in ``low..high``."""
    return None if value is None else get_int(value, path, low, high)


def get_bool(value: object, path: JsonPath) -> bool:
    """``value`` as a boolean."""
    if not isinstance(value, bool):
        fail(path, f"expected true or false; got {describe(value)}")
    return value


def get_str(value: object, path: JsonPath) -> str:
    """``value`` as a string."""
    if not isinstance(value, str):
        fail(path, f"expected a string; got {describe(value)}")
    return value


def get_list(
    value: object, path: JsonPath, length: int | None = None, most: int | None = None
) -> list[Any]:
    """``value`` as an array, of exactly ``length`` or at most ``most`` items."""
    if not isinstance(value, list):
        fail(path, f"expected an array; got {describe(value)}")
    if length is not None and len(value) != length:
        fail(path, f"expected {length} items; got {len(value)}")
    if most is not None and len(value) > most:
        fail(path, f"expected at most {most} items; got {len(value)}")
    return value


def get_int_list(
    value: object,
    path: JsonPath,
    low: int | None = None,
    high: int | None = None,
    *,
    length: int | None = None,
    most: int | None = None,
) -> tuple[int, ...]:
    """``value`` as an array of ints in ``low..high``."""
    items = get_list(value, path, length, most)
    return tuple(get_int(x, join(path, i), low, high) for i, x in enumerate(items))


def _values_text(values: frozenset[int]) -> str:
    ordered = sorted(values)
    if ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"{ordered[0]}..{ordered[-1]}"
    shown = ", ".join(map(str, ordered[:20]))
    return shown + (", ..." if len(ordered) > 20 else "")


def get_card(value: object, path: JsonPath, values: frozenset[int]) -> int:
    """``value`` as a card value of the config's deck."""
    card = get_int(value, path)
    if card not in values:
        fail(
            path,
            f"{_short(card)} is not a card value of the config's deck ({_values_text(values)})",
        )
    return card


def get_cards(value: object, path: JsonPath, values: frozenset[int], most: int) -> tuple[int, ...]:
    """``value`` as an array of at most ``most`` card values."""
    items = get_list(value, path, most=most)
    if _are_cards(items, values):
        return tuple(items)
    return tuple(get_card(x, join(path, i), values) for i, x in enumerate(items))


# Bulk checks at C speed: the set of types, then the set of values. (A JSON true is
# equal to 1 and would pass a value check alone.)
_INT_ONLY = frozenset({int})
_INT_OR_NONE = frozenset({int, type(None)})
_BOOL_ONLY = frozenset({bool})
_not_none = partial(is_not, None)


def _are_cards(items: list[Any], values: frozenset[int]) -> bool:
    """Whether every item is an int card value of the deck."""
    return set(map(type, items)) <= _INT_ONLY and values.issuperset(items)


def _are_bools(items: list[Any]) -> bool:
    """Whether every item is a JSON boolean."""
    return set(map(type, items)) <= _BOOL_ONLY


def _are_cards_or_null(items: list[Any], values: frozenset[int]) -> bool:
    """Whether every item is null or an int card value of the deck."""
    return set(map(type, items)) <= _INT_OR_NONE and values.issuperset(filter(_not_none, items))


def _cards_or_null(
    items: list[Any], path: JsonPath, values: frozenset[int]
) -> tuple[int | None, ...]:
    """``items`` as card values or nulls (checked one by one only to report an error)."""
    if _are_cards_or_null(items, values):
        return tuple(items)
    return tuple(
        None if x is None else get_card(x, join(path, i), values) for i, x in enumerate(items)
    )


def get_seats(value: object, path: JsonPath, n: int, *, distinct: bool = True) -> tuple[int, ...]:
    """``value`` as an array of seats ``0..n-1``, each at most once."""
    seats = get_int_list(value, path, 0, n - 1, most=n)
    if distinct:
        seen: set[int] = set()
        for i, seat in enumerate(seats):
            if seat in seen:
                fail(join(path, i), f"seat {seat} is listed twice")
            seen.add(seat)
    return seats


def schema_version_for(config: RuleConfig) -> int:
    """The schema version of every document of a game under ``config``.

    1 (the format of release 0.1.0) when the config uses no option added later
    ([`RuleConfig.later_options`][allegra_rules.config.RuleConfig.later_options] is empty), else 2.

    Examples:
        >>> simultaneous = RuleConfig(setup_reveals="simultaneous")
        >>> schema_version_for(RuleConfig()), schema_version_for(simultaneous)
        (1, 2)
    """
    if not isinstance(config, RuleConfig):
        raise ValueError(f"config must be a RuleConfig; got {type(config).__name__}")
    return 1 if not config.later_options else 2


def check_header(
    data: object, path: JsonPath, kind: str, versions: tuple[int, ...] = SCHEMA_VERSIONS
) -> dict[str, Any]:
    """Check ``schema_version`` (one of ``versions``) and ``kind``; return the object."""
    if not isinstance(data, dict):
        fail(path, f"a {kind} document must be a JSON object; got {describe(data)}")
    if "schema_version" not in data:
        fail(join(path, "schema_version"), "missing: every document names its schema version")
    version = data["schema_version"]
    if type(version) is not int:
        fail(join(path, "schema_version"), f"expected an integer; got {describe(version)}")
    if version not in versions:
        known = ", ".join(map(str, versions))
        fail(
            join(path, "schema_version"),
            f"unknown schema version {_short(version)} of a {kind} document; this release "
            f"reads version{'s' if len(versions) > 1 else ''} {known}",
        )
    if "kind" not in data:
        fail(join(path, "kind"), f'missing: expected "{kind}"')
    if data["kind"] != kind:
        fail(join(path, "kind"), f'expected "{kind}"; got {_short(data["kind"])}')
    return data


# ------------------------------------------------------------------------ config


_config_cache: dict[object, RuleConfig] = {}


def _config_key(value: object, version: int) -> object:
    """A hashable form of config data (``None`` for data that cannot be one)."""
    if not isinstance(value, dict):
        return None
    deck = value.get("deck")
    if not isinstance(deck, dict):
        return None
    # Types are part of the key: true == 1 and 2.0 == 2, but neither is a valid int here.
    rest = value.copy()
    del rest["deck"]
    try:
        key = (
            version,
            tuple(rest.items()),
            tuple(map(type, rest.values())),
            tuple(deck.items()),
            tuple(map(type, deck.values())),
        )
        hash(key)
    except TypeError:
        return None
    return key


def config_from_data(value: object, path: JsonPath, version: int = SCHEMA_VERSION) -> RuleConfig:
    """Load an embedded ``RuleConfig.to_dict`` object, every key checked at its path.

    Every option of 0.1.0 is required. In a version 1 document no later option may
    appear (0.1.0 knew none); in later versions they may be left out (legacy value).
    Data that loaded before gives the same (frozen) config object again.
    """
    key = _config_key(value, version)
    if key is not None:
        cached = _config_cache.get(key)
        if cached is not None:
            return cached
    config = _config_from_data(value, path, version)
    if key is not None:
        if len(_config_cache) >= 64:
            _config_cache.clear()
        _config_cache[key] = config
    return config


def _config_from_data(value: object, path: JsonPath, version: int) -> RuleConfig:
    later = tuple(LATER_OPTIONS) if version >= 2 else ()
    data = get_object(value, path, _CONFIG_KEYS_V1, later)
    deck_path = join(path, "deck")
    deck = data["deck"]
    if not isinstance(deck, dict):
        fail(deck_path, f'expected an object like {{"-1": 6, "0": 7}}; got {describe(deck)}')
    if not deck:
        fail(deck_path, "the deck has no cards")
    for key, copies in deck.items():
        if len(key) > 30 or not _CANONICAL_INT.fullmatch(key):
            fail(join(deck_path, key), 'a card value key must be a canonical integer like "-1"')
        get_int(copies, join(deck_path, key), 1, None)
    for name, choices in OPTION_CHOICES.items():
        if name not in data:
            continue
        option = get_str(data[name], join(path, name))
        if option not in choices:
            shown = ", ".join(f'"{c}"' for c in choices)
            fail(join(path, name), f"must be one of {shown}; got {_short(option)}")
    for name in _INT_OPTIONS:
        get_int(data[name], join(path, name), 1, None)
    try:
        return RuleConfig.from_dict(data)
    except ValueError as exc:
        fail(path, str(exc))


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
    try:
        check_consistency(state, render(path))
    except InvalidStateError as exc:
        fail(exc.path, exc.reason)


# ------------------------------------------------------------------------- state


def state_to_dict(state: GameState) -> dict[str, Any]:
    """The state as plain JSON data (see ``state_to_json`` for the format)."""
    require_state(state)
    n = state.num_players
    fd = state.face_down
    last = state.last_round
    version = schema_version_for(state.config)
    data = {
        "schema_version": version,
        "kind": "state",
        "config": state.config.to_dict(),
        "num_players": n,
        "seed": state.seed,
        "round": state.round,
        "phase": state.phase.value,
        "current_player": state.current_player,
        "cells": list(state.cells),
        "face_down": [bool((fd >> i) & 1) for i in range(n * CELLS_PER_SEAT)],
        "draw_pile": list(state.draw_pile),
        "discard_pile": list(state.discard_pile),
        "held": state.held,
        "in_hand": [{"player": p, "card": c} for p, c in state.in_hand],
        "out_of_play": list(state.out_of_play),
        "start_seat": state.start_seat,
        "setup_reveals": state.setup_reveals,
        "setup_sums": list(state.setup_sums),
        "drawer": state.drawer,
        "knockers": list(state.knockers),
        "knocker": state.knocker,
        "given_at": state.given_at,
        "taken_at": state.taken_at,
        "held_was_face_down": state.held_was_face_down,
        "hand_was_face_down": state.hand_was_face_down,
        "turns_played": state.turns_played,
        "ender": state.ender,
        "final_turns": list(state.final_turns),
        "refills": state.refills,
        "totals": list(state.totals),
        "round_scores": [list(scores) for scores in state.round_scores],
        "winners": list(state.winners),
        "last_round": None if last is None else round_end_to_dict(last, version),
    }
    if version >= 2:
        data["setup_named"] = list(state.setup_named)
    return data


def round_end_to_dict(last: RoundEnd, version: int = SCHEMA_VERSION) -> dict[str, Any]:
    """A [`RoundEnd`][allegra_rules.state.RoundEnd] as plain JSON data of schema ``version``."""
    data = {
        "round": last.round,
        "cells": list(last.cells),
        "zone_sums": list(last.zone_sums),
        "ender": last.ender,
        "doubled": last.doubled,
        "scores": list(last.scores),
    }
    if version >= 2:
        data["removed"] = list(last.removed)
    return data


def dumps(data: Mapping[str, Any]) -> str:
    """Canonical JSON: sorted keys, no whitespace."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


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


# The canonical text of a state, written directly: the same text as
# ``dumps(state_to_dict(state))`` (the tests check it), about three times as fast. The keys
# are written in sorted order; numbers come from a table of small ints' texts; the
# config and last_round texts are cached per object, since consecutive states share
# them.

_NUMBER_TEXT: dict[object, str] = {v: str(v) for v in range(-256, 257)}
_NUMBER_TEXT[None] = "null"
_number = _NUMBER_TEXT.get
_BOOL_TEXT = {False: "false", True: "true"}.__getitem__
_PHASE_TEXT = {phase: json.dumps(phase.value) for phase in Phase}


def _array(values: Iterable[int | None]) -> str:
    """JSON text of ints and None, as [`dumps`][allegra_rules.serialize.dumps] writes it."""
    try:
        return "[" + ",".join(map(_NUMBER_TEXT.__getitem__, values)) + "]"
    except KeyError:  # an int beyond the table
        return json.dumps(list(values), separators=(",", ":"))


def _scalar(value: int | None) -> str:
    text = _number(value)
    return text if text is not None else str(value)  # an int (bools never get here)


_text_cache: dict[int, tuple[object, int, Any]] = {}


def _cached(obj: object, version: int, make: Callable[[Any, int], Any]) -> Any:
    """``make(obj, version)``, remembered per frozen object, for at most 64 of them."""
    hit = _text_cache.get(id(obj))
    if hit is not None and hit[0] is obj and hit[1] == version:
        return hit[2]
    made = make(obj, version)
    if len(_text_cache) >= 64:
        _text_cache.clear()
    _text_cache[id(obj)] = (obj, version, made)  # holding obj keeps its id from reuse
    return made


def _config_texts(config: RuleConfig, version: int) -> tuple[str, int]:
    # ``version`` is unused: a config decides its documents' version itself.
    return dumps(config.to_dict()), schema_version_for(config)


def _round_end_text(last: RoundEnd, version: int) -> str:
    # The canonical text of round_end_to_dict(last, version), keys in sorted order.
    return "".join(
        (
            '{"cells":',
            _array(last.cells),
            ',"doubled":',
            _BOOL_TEXT(last.doubled),
            ',"ender":',
            _scalar(last.ender),
            ',"removed":' + _array(last.removed) if version >= 2 else "",
            ',"round":',
            _scalar(last.round),
            ',"scores":',
            _array(last.scores),
            ',"zone_sums":',
            _array(last.zone_sums),
            "}",
        )
    )


def _state_json(s: GameState) -> str:
    n = s.num_players
    top = 1 << (n * CELLS_PER_SEAT)
    bits = format(s.face_down & (top - 1) | top, "b")[:0:-1]  # bit i is character i
    config_text, version = _cached(s.config, 0, _config_texts)
    last = s.last_round
    num = _number
    return "".join(
        (
            '{"cells":',
            _array(s.cells),
            ',"config":',
            config_text,
            ',"current_player":',
            num(s.current_player) or _scalar(s.current_player),
            ',"discard_pile":',
            _array(s.discard_pile),
            ',"draw_pile":',
            _array(s.draw_pile),
            ',"drawer":',
            num(s.drawer) or _scalar(s.drawer),
            ',"ender":',
            num(s.ender) or _scalar(s.ender),
            ',"face_down":[',
            bits.replace("1", "true,").replace("0", "false,")[:-1],
            '],"final_turns":',
            _array(s.final_turns),
            ',"given_at":',
            num(s.given_at) or _scalar(s.given_at),
            ',"hand_was_face_down":',
            _BOOL_TEXT(s.hand_was_face_down),
            ',"held":',
            num(s.held) or _scalar(s.held),
            ',"held_was_face_down":',
            _BOOL_TEXT(s.held_was_face_down),
            ',"in_hand":[',
            ",".join(f'{{"card":{_scalar(card)},"player":{_scalar(p)}}}' for p, card in s.in_hand),
            '],"kind":"state","knocker":',
            num(s.knocker) or _scalar(s.knocker),
            ',"knockers":',
            _array(s.knockers),
            ',"last_round":',
            "null" if last is None else _cached(last, version, _round_end_text),
            ',"num_players":',
            _scalar(n),
            ',"out_of_play":',
            _array(s.out_of_play),
            ',"phase":',
            _PHASE_TEXT[s.phase],
            ',"refills":',
            _scalar(s.refills),
            ',"round":',
            _scalar(s.round),
            ',"round_scores":[',
            ",".join(map(_array, s.round_scores)),
            '],"schema_version":',
            str(version),
            ',"seed":',
            _scalar(s.seed),
            ',"setup_named":' + _array(s.setup_named) if version >= 2 else "",
            ',"setup_reveals":',
            _scalar(s.setup_reveals),
            ',"setup_sums":',
            _array(s.setup_sums),
            ',"start_seat":',
            _scalar(s.start_seat),
            ',"taken_at":',
            num(s.taken_at) or _scalar(s.taken_at),
            ',"totals":',
            _array(s.totals),
            ',"turns_played":',
            _scalar(s.turns_played),
            ',"winners":',
            _array(s.winners),
            "}",
        )
    )


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


def _round_end_from_data(value: object, path: JsonPath, table: Table) -> RoundEnd:
    v2 = table.version >= 2
    data = get_object(value, path, ROUND_END_KEYS if v2 else ROUND_END_KEYS_V1)
    n = table.num_players
    bound = table.score_bound
    cells_path = join(path, "cells")
    items = get_list(data["cells"], cells_path, table.num_cells)
    return trusted_round_end(
        round=get_int(data["round"], join(path, "round"), 1, ROUNDS),
        cells=_cards_or_null(items, cells_path, table.values),
        zone_sums=get_int_list(data["zone_sums"], join(path, "zone_sums"), -bound, bound, length=n),
        ender=table.seat_or_null(data["ender"], join(path, "ender")),
        doubled=get_bool(data["doubled"], join(path, "doubled")),
        scores=get_int_list(data["scores"], join(path, "scores"), -bound, bound, length=n),
        removed=_cell_list(data["removed"], join(path, "removed"), table) if v2 else (),
    )


def _cell_list(value: object, path: JsonPath, table: Table) -> tuple[int, ...]:
    """``value`` as an array of distinct flat cell indices in ascending order."""
    cells = get_int_list(value, path, 0, table.num_cells - 1, most=table.num_cells)
    if list(cells) != sorted(set(cells)):
        fail(path, "must list distinct cells in ascending order")
    return cells


@attrs.frozen(slots=True)
class Table:
    """What a document's config and seat count imply for the rest of it.

    Attributes:
        version: the document's schema version.
        config: the loaded config.
        num_players: the loaded seat count.
        values: the card values of the config's deck.
        setup_bound: no setup sum can be larger in absolute value.
        score_bound: no round score can be larger in absolute value.
    """

    version: int
    config: RuleConfig
    num_players: int
    values: frozenset[int]
    setup_bound: int
    score_bound: int

    @property
    def num_cells(self) -> int:
        """Cells on the table: ``12 * num_players``."""
        return self.num_players * CELLS_PER_SEAT

    def card(self, value: object, path: JsonPath) -> int:
        """``value`` as a card of the deck."""
        return get_card(value, path, self.values)

    def card_or_null(self, value: object, path: JsonPath) -> int | None:
        """``value`` as null or a card of the deck."""
        return None if value is None else get_card(value, path, self.values)

    def cards(self, value: object, path: JsonPath) -> tuple[int, ...]:
        """``value`` as an array of cards of the deck."""
        return get_cards(value, path, self.values, self.config.deck_size)

    def seat(self, value: object, path: JsonPath) -> int:
        """``value`` as a seat."""
        return get_int(value, path, 0, self.num_players - 1)

    def seat_or_null(self, value: object, path: JsonPath) -> int | None:
        """``value`` as null or a seat."""
        return get_opt_int(value, path, 0, self.num_players - 1)


def read_table(data: Mapping[str, Any], path: JsonPath) -> Table:
    """Load ``config`` and ``num_players`` of a document object (header already checked)."""
    version = data["schema_version"]
    config = config_from_data(data["config"], join(path, "config"), version)
    most = min(config.max_players, MAX_PLAYERS, (config.deck_size - 2) // CELLS_PER_SEAT)
    n = get_int(data["num_players"], join(path, "num_players"), config.min_players, most)
    key = (id(config), n, version)
    known = _table_cache.get(key)
    if known is not None and known.config is config:
        return known
    values = frozenset(deck_counts(config))
    setup_bound, score_bound = bounds(config)
    if len(_table_cache) >= 64:
        _table_cache.clear()
    table = _table_cache[key] = Table(
        version=version,
        config=config,
        num_players=n,
        values=values,
        setup_bound=setup_bound,
        score_bound=score_bound,
    )
    return table


_table_cache: dict[tuple[int, int, int], Table] = {}

_PRIVATE_KEYS = frozenset(
    {"schema_version", "kind", "config", "num_players", "seed", "cells", "face_down"}
    | {"draw_pile", "held", "in_hand", "setup_named"}
)
PUBLIC_KEYS: tuple[str, ...] = tuple(k for k in STATE_KEYS if k not in _PRIVATE_KEYS)
"""The keys that a state and a player view share, with the same meaning."""


_PHASES = {phase.value: phase for phase in Phase}
_BIT_DIGITS = bytes.maketrans(b"\x00\x01", b"01")


def _face_down_mask(flags: Sequence[bool]) -> int:
    """The face-down bitmask of a list of booleans (bit ``i`` set when ``flags[i]``)."""
    return int(bytes(reversed(flags)).translate(_BIT_DIGITS) or b"0", 2)


_LIST_ONLY = frozenset({list})


@cache
def _seats_of(n: int) -> frozenset[int]:
    """The seats ``0..n-1`` as a set (for membership tests at C speed)."""
    return frozenset(range(n))


def _public_fast(data: Mapping[str, Any], table: Table) -> dict[str, Any] | None:
    """``read_public`` for a document whose every field is right, else ``None``.

    Checks the same types and ranges in bulk, at C speed where it can: the types of every
    number of every array in one pass, ranges with ``min``/``max`` and set membership. On any
    doubt the caller checks field by field (``_public_checked``), which names the bad field.
    """
    n = table.num_players
    config = table.config
    bound = table.score_bound
    values = table.values
    phase_text = data["phase"]
    phase = _PHASES.get(phase_text) if type(phase_text) is str else None
    turns = data["turns_played"]
    rnd = data["round"]
    start = data["start_seat"]
    reveals = data["setup_reveals"]
    refills = data["refills"]
    if (
        phase is None
        or {type(turns), type(rnd), type(start), type(reveals), type(refills)} != _INT_ONLY
        or not (
            0 <= turns <= config.max_turns_per_round
            and 1 <= rnd <= ROUNDS
            and 0 <= start < n
            and 0 <= reveals <= 2 * n
            and 0 <= refills <= turns
        )
        or type(data["held_was_face_down"]) is not bool
        or type(data["hand_was_face_down"]) is not bool
    ):
        return None
    seats = _seats_of(n)
    current, drawer, knocker, ender = (data[key] for key in _OPTIONAL_SEATS)
    given, taken = data["given_at"], data["taken_at"]
    optional = list(filter(_not_none, (current, drawer, knocker, ender)))
    if not set(map(type, optional)) <= _INT_ONLY or not seats.issuperset(optional):
        return None
    cells_at = list(filter(_not_none, (given, taken)))
    if cells_at and not (
        set(map(type, cells_at)) <= _INT_ONLY
        and min(cells_at) >= 0
        and max(cells_at) < table.num_cells
    ):
        return None
    discard, out, sums, totals = (data[key] for key in _INT_ARRAYS)
    knockers, final_turns, winners = (data[key] for key in _SEAT_LISTS)
    played = data["round_scores"]
    arrays = (discard, out, sums, totals, knockers, final_turns, winners, played)
    if set(map(type, arrays)) != _LIST_ONLY or not set(map(type, played)) <= _LIST_ONLY:
        return None
    most = config.deck_size
    total_bound = ROUNDS * bound
    setup_bound = table.setup_bound
    if not (
        set(map(type, chain(discard, out, sums, totals, knockers, final_turns, winners, *played)))
        <= _INT_ONLY
        and len(discard) <= most
        and len(out) <= most
        and values.issuperset(discard)
        and values.issuperset(out)
        and len(sums) == n
        and len(totals) == n
        and -setup_bound <= min(sums)
        and max(sums) <= setup_bound
        and -total_bound <= min(totals)
        and max(totals) <= total_bound
        and seats.issuperset(chain(knockers, final_turns, winners))
        and len(set(knockers)) == len(knockers)
        and len(set(final_turns)) == len(final_turns)
        and len(set(winners)) == len(winners)
        and len(played) <= ROUNDS
    ):
        return None
    if played:
        if set(map(len, played)) != {n}:
            return None
        scores = list(chain(*played))
        if not (-bound <= min(scores) and max(scores) <= bound):
            return None
    last = data["last_round"]
    if last is not None:
        last = _round_end_fast(last, table)
        if last is None:
            return None
    return {
        "round": rnd,
        "phase": phase,
        "current_player": current,
        "discard_pile": tuple(discard),
        "out_of_play": tuple(out),
        "start_seat": start,
        "setup_reveals": reveals,
        "setup_sums": tuple(sums),
        "drawer": drawer,
        "knockers": tuple(knockers),
        "knocker": knocker,
        "given_at": given,
        "taken_at": taken,
        "held_was_face_down": data["held_was_face_down"],
        "hand_was_face_down": data["hand_was_face_down"],
        "turns_played": turns,
        "ender": ender,
        "final_turns": tuple(final_turns),
        "refills": refills,
        "totals": tuple(totals),
        "round_scores": tuple(map(tuple, played)),
        "winners": tuple(winners),
        "last_round": last,
    }


def _round_end_fast(value: object, table: Table) -> RoundEnd | None:
    """``_round_end_from_data`` for an object whose every field is right, else ``None``."""
    v2 = table.version >= 2
    if type(value) is not dict or value.keys() != _key_set(
        ROUND_END_KEYS if v2 else ROUND_END_KEYS_V1
    ):
        return None
    n = table.num_players
    bound = table.score_bound
    num_cells = table.num_cells
    rnd, cells, sums, ender, doubled, scores = (value[key] for key in ROUND_END_KEYS_V1)
    removed = value["removed"] if v2 else []
    if (
        type(rnd) is not int
        or not 1 <= rnd <= ROUNDS
        or type(doubled) is not bool
        or not (ender is None or (type(ender) is int and 0 <= ender < n))
        or {type(cells), type(sums), type(scores), type(removed)} != _LIST_ONLY
        or len(cells) != num_cells
        or len(sums) != n
        or len(scores) != n
        or len(removed) > num_cells
        or not _are_cards_or_null(cells, table.values)
        or not set(map(type, chain(sums, scores, removed))) <= _INT_ONLY
        or not (-bound <= min(sums) and max(sums) <= bound)
        or not (-bound <= min(scores) and max(scores) <= bound)
        or (removed and not (removed[0] >= 0 and removed[-1] < num_cells))
        or removed != sorted(set(removed))
    ):
        return None
    return trusted_round_end(
        round=rnd,
        cells=tuple(cells),
        zone_sums=tuple(sums),
        ender=ender,
        doubled=doubled,
        scores=tuple(scores),
        removed=tuple(removed),
    )


_OPTIONAL_SEATS = ("current_player", "drawer", "knocker", "ender")
_INT_ARRAYS = ("discard_pile", "out_of_play", "setup_sums", "totals")
_SEAT_LISTS = ("knockers", "final_turns", "winners")


def read_public(data: Mapping[str, Any], path: JsonPath, table: Table) -> dict[str, Any]:
    """Load the ``PUBLIC_KEYS`` fields of a state or view object, types and ranges."""
    fast = _public_fast(data, table)
    return fast if fast is not None else _public_checked(data, path, table)


def _public_checked(data: Mapping[str, Any], path: JsonPath, table: Table) -> dict[str, Any]:
    """``read_public`` field by field: a failure names the field's path."""

    def at(key: str) -> JsonPath:
        return join(path, key)

    n = table.num_players
    bound = table.score_bound
    phase_text = get_str(data["phase"], at("phase"))
    phases = {p.value: p for p in Phase}
    if phase_text not in phases:
        fail(at("phase"), f"unknown phase {_short(phase_text)}; phases are {', '.join(phases)}")
    turns = get_int(data["turns_played"], at("turns_played"), 0, table.config.max_turns_per_round)
    played = get_list(data["round_scores"], at("round_scores"), most=ROUNDS)
    last = data["last_round"]
    return {
        "round": get_int(data["round"], at("round"), 1, ROUNDS),
        "phase": phases[phase_text],
        "current_player": table.seat_or_null(data["current_player"], at("current_player")),
        "discard_pile": table.cards(data["discard_pile"], at("discard_pile")),
        "out_of_play": table.cards(data["out_of_play"], at("out_of_play")),
        "start_seat": table.seat(data["start_seat"], at("start_seat")),
        "setup_reveals": get_int(data["setup_reveals"], at("setup_reveals"), 0, 2 * n),
        "setup_sums": get_int_list(
            data["setup_sums"], at("setup_sums"), -table.setup_bound, table.setup_bound, length=n
        ),
        "drawer": table.seat_or_null(data["drawer"], at("drawer")),
        "knockers": get_seats(data["knockers"], at("knockers"), n),
        "knocker": table.seat_or_null(data["knocker"], at("knocker")),
        "given_at": get_opt_int(data["given_at"], at("given_at"), 0, table.num_cells - 1),
        "taken_at": get_opt_int(data["taken_at"], at("taken_at"), 0, table.num_cells - 1),
        "held_was_face_down": get_bool(data["held_was_face_down"], at("held_was_face_down")),
        "hand_was_face_down": get_bool(data["hand_was_face_down"], at("hand_was_face_down")),
        "turns_played": turns,
        "ender": table.seat_or_null(data["ender"], at("ender")),
        "final_turns": get_seats(data["final_turns"], at("final_turns"), n),
        "refills": get_int(data["refills"], at("refills"), 0, turns),
        "totals": get_int_list(
            data["totals"], at("totals"), -ROUNDS * bound, ROUNDS * bound, length=n
        ),
        "round_scores": tuple(
            get_int_list(x, join(at("round_scores"), i), -bound, bound, length=n)
            for i, x in enumerate(played)
        ),
        "winners": get_seats(data["winners"], at("winners"), n),
        "last_round": None if last is None else _round_end_from_data(last, at("last_round"), table),
    }


def read_cells(
    data: Mapping[str, Any], path: JsonPath, table: Table, *, hidden_values: bool
) -> tuple[tuple[int | None, ...], tuple[bool, ...]]:
    """Load ``cells`` and ``face_down``: face-down cells hold a card, or null in a view.

    Args:
        data: the document object.
        path: its path.
        table: its config and seat count.
        hidden_values: True for a view, where a face-down cell must be null.
    """
    cells_path = join(path, "cells")
    fd_path = join(path, "face_down")
    items = get_list(data["cells"], cells_path, table.num_cells)
    cells = _cards_or_null(items, cells_path, table.values)
    flags = get_list(data["face_down"], fd_path, table.num_cells)
    if _are_bools(flags):
        face_down = tuple(flags)
    else:
        face_down = tuple(get_bool(x, join(fd_path, i)) for i, x in enumerate(flags))
    # The face-down cells' values (at C speed): all null in a view, no null in a state.
    hidden = list(compress(cells, face_down))
    if hidden.count(None) != len(hidden) if hidden_values else None in hidden:
        for i, down in enumerate(face_down):
            if hidden_values and down and cells[i] is not None:
                fail(join(cells_path, i), "a face-down cell must not show its value (null)")
            if not hidden_values and down and cells[i] is None:
                fail(join(fd_path, i), "a gap cannot lie face down")
    return cells, face_down


def state_from_dict(data: object, path: JsonPath = "$") -> GameState:
    """Load parsed state JSON data (see ``state_from_json``), checking everything.

    Args:
        data: the parsed document.
        path: the path of ``data`` inside a larger document, for messages.

    Raises:
        SaveFormatError: as [`state_from_json`][allegra_rules.serialize.state_from_json].
    """
    state = _state_fast(data, path)
    if state is None:
        state = _state_checked(data, path)
    consistent(state, path)
    return state


_STATE_KEY_SETS = {1: frozenset(STATE_KEYS_V1), 2: frozenset(STATE_KEYS)}
_HAND_KEYS = frozenset({"player", "card"})


def _state_fast(data: object, path: JsonPath) -> GameState | None:
    """The state of a document whose every field has the right type and range, else ``None``.

    Every check of [`_state_checked`][allegra_rules.serialize._state_checked] (the types, sizes
    and ranges; not yet the consistency), done in bulk without building a JSON path. On any doubt
    the caller runs ``_state_checked``, which names the bad field or, if this was too strict,
    loads the document the same.
    """
    if type(data) is not dict or data.get("kind") != "state":
        return None
    version = data.get("schema_version")
    if type(version) is not int or data.keys() != _STATE_KEY_SETS.get(version):
        return None
    try:
        table = read_table(data, path)
    except SaveFormatError:
        return None
    public = _public_fast(data, table)
    if public is None:
        return None
    values = table.values
    num_cells = table.num_cells
    cells = data["cells"]
    flags = data["face_down"]
    draw = data["draw_pile"]
    held = data["held"]
    hand = data["in_hand"]
    seed = data["seed"]
    named = data["setup_named"] if version >= 2 else []
    if (
        {type(cells), type(flags), type(draw), type(hand), type(named)} != _LIST_ONLY
        or type(seed) is not int
        or not MIN_SEED <= seed <= MAX_SEED
        or len(cells) != num_cells
        or len(flags) != num_cells
        or len(draw) > table.config.deck_size
        or len(hand) > 1
        or len(named) > 2 * table.num_players
        or not _are_cards_or_null(cells, values)
        or not set(map(type, flags)) <= _BOOL_ONLY
        or None in compress(cells, flags)
        or not set(map(type, chain(draw, named))) <= _INT_ONLY
        or not values.issuperset(draw)
        or (named and not (min(named) >= 0 and max(named) < num_cells))
        or not (held is None or (type(held) is int and held in values))
    ):
        return None
    in_hand: tuple[tuple[int, int], ...] = ()
    if hand:
        entry = hand[0]
        if type(entry) is not dict or entry.keys() != _HAND_KEYS:
            return None
        player, card = entry["player"], entry["card"]
        if not (
            type(player) is int
            and 0 <= player < table.num_players
            and type(card) is int
            and card in values
        ):
            return None
        in_hand = ((player, card),)
    return trusted_state(
        config=table.config,
        num_players=table.num_players,
        seed=seed,
        cells=tuple(cells),
        face_down=_face_down_mask(flags),
        draw_pile=tuple(draw),
        held=held,
        in_hand=in_hand,
        setup_named=tuple(named),
        **public,
    )


def _state_checked(data: object, path: JsonPath) -> GameState:
    """The state of a document, each type, size and range checked one by one.

    The consistency is not checked yet. A failure names the field's path.
    """
    data = check_header(data, path, "state")
    data = get_object(data, path, STATE_KEYS if data["schema_version"] >= 2 else STATE_KEYS_V1)
    table = read_table(data, path)
    public = _public_checked(data, path, table)
    cells, flags = read_cells(data, path, table, hidden_values=False)
    hand_path = join(path, "in_hand")
    in_hand = []
    for i, item in enumerate(get_list(data["in_hand"], hand_path, most=1)):
        where = join(hand_path, i)
        entry = get_object(item, where, ("player", "card"))
        in_hand.append(
            (
                table.seat(entry["player"], join(where, "player")),
                table.card(entry["card"], join(where, "card")),
            )
        )
    # Every field's type was checked while parsing: no need to check it again.
    state = trusted_state(
        config=table.config,
        num_players=table.num_players,
        seed=get_int(data["seed"], join(path, "seed"), MIN_SEED, MAX_SEED),
        cells=cells,
        face_down=_face_down_mask(flags),
        draw_pile=table.cards(data["draw_pile"], join(path, "draw_pile")),
        held=table.card_or_null(data["held"], join(path, "held")),
        in_hand=tuple(in_hand),
        setup_named=read_setup_named(data, path, table, "setup_named"),
        **public,
    )
    return state


def read_setup_named(
    data: Mapping[str, Any], path: JsonPath, table: Table, key: str
) -> tuple[int, ...]:
    """Load the named setup cells at ``key`` (schema version 2; empty in version 1)."""
    if table.version < 2:
        return ()
    n = table.num_players
    return get_int_list(data[key], join(path, key), 0, table.num_cells - 1, most=2 * n)


# ----------------------------------------------------------------------- actions


def action_to_dict(action: Action) -> dict[str, Any]:
    """An action as plain JSON data: ``{"type": "swap", "pos": {...}}``."""
    kind = ACTION_TYPES.get(type(action))
    if kind is None:
        raise ValueError(f"not an allegra_rules action: {action!r}")
    data: dict[str, Any] = {"type": kind}
    if isinstance(action, _POS_ACTIONS):
        pos = action.pos
        data["pos"] = {"player": pos.player, "row": pos.row, "col": pos.col}
    elif isinstance(action, Give):
        data["player"] = action.player
    return data


def action_to_json(action: Action) -> str:
    """An action as a canonical JSON document with ``schema_version`` and ``kind``.

    Examples:
        >>> from allegra_rules import Pos, Swap
        >>> action_to_json(Swap(Pos(1, 2, 3)))
        '{"kind":"action","pos":{"col":3,"player":1,"row":2},"schema_version":1,"type":"swap"}'
    """
    data = action_to_dict(action)
    data["schema_version"] = ACTION_SCHEMA_VERSION
    data["kind"] = "action"
    return dumps(data)


def action_from_dict(data: object, path: JsonPath = "$", num_players: int | None = None) -> Action:
    """Load an action object, checking everything.

    Both forms load: the bare object of a view's ``legal_actions`` entry
    (``{"type": ..., ...}``, as [`action_to_dict`][allegra_rules.serialize.action_to_dict]
    writes it) and a whole action document with its header (``schema_version`` and
    ``kind``, as [`action_to_json`][allegra_rules.serialize.action_to_json] writes it).
    A header, when present, must be whole and right.

    Args:
        data: the parsed object.
        path: its path, for messages.
        num_players: when given, seats must be ``0..num_players-1`` (else below
            [`MAX_PLAYERS`][allegra_rules.serialize.MAX_PLAYERS]) and the returned action is the
            engine's interned one.

    Raises:
        SaveFormatError: unknown type, unknown or missing keys, wrong types or ranges.
    """
    if not isinstance(data, dict):
        fail(path, f"an action must be an object; got {describe(data)}")
    if "schema_version" in data or "kind" in data:
        check_header(data, path, "action", (ACTION_SCHEMA_VERSION,))
        data = {k: v for k, v in data.items() if k not in ("schema_version", "kind")}
    kind = data.get("type")
    cls = _ACTION_CLASSES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        names = ", ".join(f'"{name}"' for name in _ACTION_CLASSES)
        fail(join(path, "type"), f"unknown action type {_short(kind)}; expected one of {names}")
    seats = MAX_PLAYERS if num_players is None else num_players
    if cls in _POS_ACTIONS:
        obj = get_object(data, path, ("type", "pos"))
        where = join(path, "pos")
        raw = get_object(obj["pos"], where, ("player", "row", "col"))
        player = get_int(raw["player"], join(where, "player"), 0, seats - 1)
        row = get_int(raw["row"], join(where, "row"), 0, ROWS - 1)
        col = get_int(raw["col"], join(where, "col"), 0, COLS - 1)
        if num_players is not None:
            table = action_table(num_players)
            index = player * CELLS_PER_SEAT + row * COLS + col
            group = table.reveal if cls is Reveal else table.swap if cls is Swap else table.take
            return group[index]
        pos_action: Action = cls(Pos(player, row, col))
        return pos_action
    if cls is Give:
        obj = get_object(data, path, ("type", "player"))
        seat = get_int(obj["player"], join(path, "player"), 0, seats - 1)
        if num_players is not None:
            return action_table(num_players).give[seat]
        return Give(seat)
    get_object(data, path, ("type",))
    return _PLAIN_ACTIONS[cls]


def action_from_json(
    text: str | bytes, *, num_players: int | None = None, max_bytes: int = MAX_DOCUMENT_BYTES
) -> Action:
    """Load an action document written by ``action_to_json``, or a view's entry.

    A view's ``legal_actions`` entry, sent back verbatim without the header
    (``{"type": "swap", "pos": {...}}``), loads as well; see
    [`action_from_dict`][allegra_rules.serialize.action_from_dict].

    Args:
        text: the document (``str`` or UTF-8 ``bytes``).
        num_players: when given, seats must be ``0..num_players-1``.
        max_bytes: reject larger documents before parsing.

    Raises:
        SaveFormatError: anything malformed; the message names the path.

    Examples:
        >>> from allegra_rules import Pos, Take
        >>> action_from_json(action_to_json(Take(Pos(0, 1, 3)))) == Take(Pos(0, 1, 3))
        True
    """
    if num_players is not None and (type(num_players) is not int or num_players < 2):
        raise ValueError(f"num_players must be an int >= 2 or None; got {num_players!r}")

    def build(document: Any) -> Action:
        return action_from_dict(document, "$", num_players)

    return load_document(text, build, max_bytes=max_bytes, what="action")


# ----------------------------------------------------------------------- schemas

SCHEMA_NAMES = ("state", "action", "record", "view")
"""The document kinds that have a JSON Schema file."""


def json_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a document kind, as shipped in the package.

    Args:
        kind: ``"state"``, ``"action"``, ``"record"`` or ``"view"``.

    Raises:
        ValueError: an unknown kind.

    Examples:
        >>> json_schema("state").get("title")
        'allegra_rules saved game state, schema versions 1 and 2'
    """
    if kind not in SCHEMA_NAMES:
        raise ValueError(f"unknown schema {kind!r}; known: {', '.join(SCHEMA_NAMES)}")
    text = (resources.files("allegra_rules") / "schemas" / f"{kind}.schema.json").read_text(
        encoding="utf-8"
    )
    schema: dict[str, Any] = json.loads(text)
    return schema
