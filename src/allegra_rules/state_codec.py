"""The JSON codec of a state, derived from the declaration of its fields.

Every field of a [`GameState`][allegra_rules.state.GameState] (and of a ``RoundEnd``, its
``last_round``) is declared once in ``allegra_rules.fields`` with its
[`Kind`][allegra_rules.fields.Kind]; this module reads and writes each field by its kind and
names none: a table of encoders (a field's JSON data) and one of checked decoders (the data
back, each type, size and range checked, a failure naming the field's path), one entry per
kind. Where a kind's JSON differs from its Python value, the kind's entry says how: a
``CELL_MASK`` bitmask is an array of one boolean per cell, a ``HAND`` pair an object
``{"player", "card"}``, a ``PHASE`` its string, a ``ROUND_END`` an object of its own declared
fields, a ``CONFIG`` the config's ``to_dict``; a field added in a later schema version (its
``added``) is left out of older documents and read as its declared ``default``.

The fast paths are generated from the same declaration into ``allegra_rules._fast_codec`` (by
``python -m allegra_rules._generate_fast --write``): the canonical text writer and the bulk
readers, which check every field of a document at C speed where they can and answer ``None``
on any doubt, so that the checked decoders name the bad field.

The codec works on any object that carries the declared fields and builds no state: a reader
returns the fields' values by name (the state calls ``trusted_state(**fields)``). It sits below
the state, so that ``GameState.to_json`` and ``GameState.from_json`` call it directly;
[`allegra_rules.serialize`][allegra_rules.serialize] is its documented face.
"""

from __future__ import annotations

import json
from collections import ChainMap
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from itertools import chain, compress
from typing import Any

try:  # generated; missing or unreadable, the checked paths serve until it is written again
    from allegra_rules import _fast_codec
except (ImportError, SyntaxError):
    _fast_codec = None  # type: ignore[assignment]
from allegra_rules.config import RuleConfig
from allegra_rules.config_codec import config_from_data
from allegra_rules.fields import (
    ROUND_END_FIELDS,
    STATE_FIELDS,
    DefaultFrom,
    Kind,
    StateField,
    later_fields,
)
from allegra_rules.geometry import CELLS_PER_SEAT
from allegra_rules.jsondoc import (
    BOOL_ONLY,
    INT_ONLY,
    LIST_ONLY,
    MAX_PLAYERS,
    SCHEMA_VERSION,
    SCHEMA_VERSIONS,
    JsonPath,
    SaveFormatError,
    are_bools,
    are_cards_or_null,
    cards_or_null,
    check_header,
    dumps,
    fail,
    get_bool,
    get_int,
    get_int_list,
    get_list,
    get_object,
    get_opt_int,
    get_seats,
    get_str,
    join,
    key_set,
    not_none,
    render,
    short,
)
from allegra_rules.round_end import ROUNDS, Phase, trusted_round_end
from allegra_rules.shuffle import MAX_SEED, MIN_SEED
from allegra_rules.state_checks import ValidValues, bounds, deck_counts, per_seat_range
from allegra_rules.value_checks import InvalidStateError

__all__ = [
    "HAND_KEYS",
    "PUBLIC_FIELDS",
    "decode_fields",
    "encode_fields",
    "read_state",
    "read_table",
    "state_json",
    "state_to_dict",
]


def _only(fields: Iterable[StateField], kind: Kind) -> StateField:
    """The one field of ``kind`` among ``fields``."""
    (found,) = (f for f in fields if f.kind is kind)
    return found


_CONFIG = _only(STATE_FIELDS, Kind.CONFIG).name
_SEAT_COUNT = _only(STATE_FIELDS, Kind.SEAT_COUNT).name
_TABLE = _only(STATE_FIELDS, Kind.TABLE).name
_MASK = _only(STATE_FIELDS, Kind.CELL_MASK).name
_TURNS = _only(STATE_FIELDS, Kind.TURNS).name
_NAMED = _only(STATE_FIELDS, Kind.CELLS)
_VERSION = _only(STATE_FIELDS, Kind.SCHEMA_VERSION).name

HEADER_KEYS: tuple[str, str] = ("schema_version", "kind")
"""The header keys of every document: its schema version and its kind. A state's
``SCHEMA_VERSION`` field is its header's ``schema_version``."""

HAND_KEYS: tuple[str, str] = ("player", "card")
"""The keys of a ``HAND`` pair's object, in the pair's order."""

PUBLIC_FIELDS: tuple[StateField, ...] = tuple(
    f
    for f in STATE_FIELDS
    if f.copied_to_view and f.kind not in (Kind.CONFIG, Kind.SEAT_COUNT, Kind.SCHEMA_VERSION)
)
"""The fields that a state and a player view share, with the same meaning and JSON."""


def keys_of(fields: Iterable[StateField], version: int) -> tuple[str, ...]:
    """The names of ``fields`` that a document of schema ``version`` holds (not its header)."""
    return tuple(f.name for f in fields if f.added <= version and f.kind is not Kind.SCHEMA_VERSION)


def state_keys(version: int) -> tuple[str, ...]:
    """Every key of a state document of schema ``version``, all required."""
    return (*HEADER_KEYS, *keys_of(STATE_FIELDS, version))


def round_end_keys(version: int) -> tuple[str, ...]:
    """Every key of a ``RoundEnd`` object of schema ``version``, all required."""
    return keys_of(ROUND_END_FIELDS, version)


_STATE_KEY_SETS = {v: key_set(state_keys(v)) for v in SCHEMA_VERSIONS}
_ROUND_END_KEY_SETS = {v: key_set(round_end_keys(v)) for v in SCHEMA_VERSIONS}
_PHASES = {phase.value: phase for phase in Phase}
_HAND_KEY_SET = frozenset(HAND_KEYS)


# ----------------------------------------------------------------------- writing

_Encode = Callable[[Any, int, int], Any]
"""A kind's encoder: ``(value, schema version, cells on the table)`` to JSON data."""


def _same(value: Any, version: int, num_cells: int) -> Any:
    return value


def _listed(value: Any, version: int, num_cells: int) -> Any:
    return list(value)


_ENCODERS: dict[Kind, _Encode] = {
    Kind.CONFIG: lambda v, version, c: v.to_dict(),
    Kind.SEAT_COUNT: _same,
    Kind.SEED: _same,
    Kind.ROUND: _same,
    Kind.PHASE: lambda v, version, c: v.value,
    Kind.SEAT: _same,
    Kind.OPT_SEAT: _same,
    Kind.SEATS: _listed,
    Kind.OPT_CELL: _same,
    Kind.CELLS: _listed,
    Kind.TABLE: _listed,
    Kind.CELL_MASK: lambda v, version, c: [bool((v >> i) & 1) for i in range(c)],
    Kind.CARDS: _listed,
    Kind.OPT_CARD: _same,
    Kind.HAND: lambda v, version, c: [dict(zip(HAND_KEYS, pair, strict=True)) for pair in v],
    Kind.REVEALS: _same,
    Kind.TURNS: _same,
    Kind.REFILLS: _same,
    Kind.PER_SEAT: _listed,
    Kind.SCORE_ROWS: lambda v, version, c: [list(row) for row in v],
    Kind.FLAG: _same,
    Kind.ROUND_END: lambda v, version, c: (
        None if v is None else encode_fields(ROUND_END_FIELDS, v, version)
    ),
    Kind.CELL_SET: _listed,
    Kind.SCHEMA_VERSION: _same,  # the header's schema_version
}
"""How a field of each kind is written as JSON data (``encode_fields``)."""


def encode_fields(
    fields: Iterable[StateField], obj: Any, version: int, num_cells: int = 0
) -> dict[str, Any]:
    """The JSON data of ``fields`` of ``obj`` in a document of schema ``version``, by kind.

    A field added after ``version`` is left out. ``num_cells`` is the table's size (for a
    ``CELL_MASK``).
    """
    key = (id(fields), version)
    known = _plans.get(key)
    if known is None or known[0] is not fields:
        fields = tuple(fields)
        plan = tuple(
            (f.name, None if _ENCODERS[f.kind] is _same else _ENCODERS[f.kind])
            for f in fields
            if f.added <= version
        )  # a SCHEMA_VERSION field is the header's schema_version
        if len(_plans) >= 64:
            _plans.clear()
        known = _plans[(id(fields), version)] = (fields, plan)
    data = {}
    for name, encode in known[1]:
        value = getattr(obj, name)
        data[name] = value if encode is None else encode(value, version, num_cells)
    return data


_plans: dict[
    tuple[int, int], tuple[Iterable[StateField], tuple[tuple[str, _Encode | None], ...]]
] = {}
"""Per declaration (by identity, held) and version: each written field and its encoder."""


def state_to_dict(state: Any) -> dict[str, Any]:
    """A state's document as plain JSON data (``allegra_rules.serialize.state_to_dict``)."""
    version = getattr(state, _VERSION)
    num_cells = getattr(state, _SEAT_COUNT) * CELLS_PER_SEAT
    return {HEADER_KEYS[1]: "state", **encode_fields(STATE_FIELDS, state, version, num_cells)}


def round_end_to_dict(last: Any, version: int = SCHEMA_VERSION) -> dict[str, Any]:
    """A ``RoundEnd`` as plain JSON data of schema ``version``."""
    return encode_fields(ROUND_END_FIELDS, last, version)


# The canonical text of a state, written directly: the same text as
# ``dumps(state_to_dict(state))`` (the tests check it), about three times as fast. The
# writers are generated into ``_fast_codec`` from the declaration; they take the helpers below:
# numbers come from a table of small ints' texts, and the config and last_round texts are
# cached per object, since consecutive states share them.

_NUMBER_TEXT: dict[object, str] = {v: str(v) for v in range(-256, 257)}
_NUMBER_TEXT[None] = "null"


def _array(values: Iterable[int | None]) -> str:
    """JSON text of ints and None, as ``dumps`` writes it."""
    try:
        return "[" + ",".join(map(_NUMBER_TEXT.__getitem__, values)) + "]"
    except KeyError:  # an int beyond the table
        return json.dumps(list(values), separators=(",", ":"))


def _scalar(value: int | None) -> str:
    text = _NUMBER_TEXT.get(value)
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


def _config_texts(config: RuleConfig, version: int) -> str:
    # ``version`` is unused: a config is written alike in every version that can hold it.
    return dumps(config.to_dict())


_WRITING: dict[str, Any] = {
    "number": _NUMBER_TEXT.get,
    "array": _array,
    "scalar": _scalar,
    "bool_text": {False: "false", True: "true"}.__getitem__,
    "phase_text": {phase: json.dumps(phase.value) for phase in Phase},
    "cached": _cached,
    "config_texts": _config_texts,
    "cells_per_seat": CELLS_PER_SEAT,
}
"""The helpers of the generated writers (``_fast_codec.make_*_json``)."""


def _generated(make: str, **helpers: Any) -> Any:
    """The generated ``_fast_codec`` function of factory ``make``, or ``None``.

    ``None`` when that module was generated for other fields (its ``GENERATED_FOR``): then
    the codec takes its checked paths, and ``python -m allegra_rules._generate_fast
    --write`` makes the fast ones again.
    """
    if getattr(_fast_codec, "GENERATED_FOR", None) != CODEC_FIELDS:
        return None
    return getattr(_fast_codec, make)(**helpers)


CODEC_FIELDS: dict[str, tuple[str, ...]] = {
    "state": keys_of(STATE_FIELDS, SCHEMA_VERSION),
    "round_end": round_end_keys(SCHEMA_VERSION),
}
"""The keys of the newest documents that ``_fast_codec`` must be generated for."""
_round_end_text: Callable[[Any, int], str] = _generated("make_round_end_json", **_WRITING) or (
    lambda last, version: dumps(round_end_to_dict(last, version))
)
state_json: Callable[[Any], str] = _generated(
    "make_state_json", **_WRITING, round_end_text=_round_end_text
) or (lambda state: dumps(state_to_dict(state)))
"""The canonical JSON text of a state (generated: see ``allegra_rules._fast_codec``)."""


# ----------------------------------------------------------------------- reading


def read_table(data: Mapping[str, Any], path: JsonPath) -> ValidValues:
    """Load the config and the seat count of a document object (header already checked).

    Returns:
        The valid values of the document's other fields (cached per config, seat count
        and schema version).
    """
    version = data[HEADER_KEYS[0]]
    config = config_from_data(data[_CONFIG], join(path, _CONFIG), version)
    most = min(config.max_players, MAX_PLAYERS, (config.deck_size - 2) // CELLS_PER_SEAT)
    n = get_int(data[_SEAT_COUNT], join(path, _SEAT_COUNT), config.min_players, most)
    key = (id(config), n, version)
    known = _valid_cache.get(key)
    if known is not None and known.rule_config is config:
        return known
    values = frozenset(deck_counts(config))
    setup_bound, score_bound = bounds(config)
    if len(_valid_cache) >= 64:
        _valid_cache.clear()
    valid = _valid_cache[key] = ValidValues(version, config, n, values, setup_bound, score_bound)
    return valid


_valid_cache: dict[tuple[int, int, int], ValidValues] = {}


_Decode = Callable[[Any, JsonPath, ValidValues, StateField, Mapping[str, Any]], Any]
"""A kind's checked decoder: ``(data, path, valid values, field, fields read so far)``."""


def _phase(value: object, path: JsonPath) -> Phase:
    text = get_str(value, path)
    if text not in _PHASES:
        fail(path, f"unknown phase {short(text)}; phases are {', '.join(_PHASES)}")
    return _PHASES[text]


def _table(value: object, path: JsonPath, valid: ValidValues) -> tuple[int | None, ...]:
    return cards_or_null(get_list(value, path, valid.num_cells), path, valid.values)


def _flags(value: object, path: JsonPath, valid: ValidValues) -> tuple[bool, ...]:
    flags = get_list(value, path, valid.num_cells)
    if are_bools(flags):
        return tuple(flags)
    return tuple(get_bool(x, join(path, i)) for i, x in enumerate(flags))


_BIT_DIGITS = bytes.maketrans(b"\x00\x01", b"01")


def face_down_mask(flags: Sequence[bool]) -> int:
    """The bitmask of a list of booleans (bit ``i`` set when ``flags[i]``)."""
    return int(bytes(reversed(flags)).translate(_BIT_DIGITS) or b"0", 2)


def read_cells(
    data: Mapping[str, Any], path: JsonPath, valid: ValidValues, *, hidden_values: bool
) -> tuple[tuple[int | None, ...], tuple[bool, ...]]:
    """Load the table and its face-down flags: a face-down cell holds a card, or null in a view.

    Args:
        data: the document object.
        path: its path.
        valid: the valid values of its fields (``read_table``).
        hidden_values: True for a view, where a face-down cell must be null.
    """
    table_path = join(path, _TABLE)
    mask_path = join(path, _MASK)
    cells = _table(data[_TABLE], table_path, valid)
    face_down = _flags(data[_MASK], mask_path, valid)
    # The face-down cells' values (at C speed): all null in a view, no null in a state.
    hidden = list(compress(cells, face_down))
    if hidden.count(None) != len(hidden) if hidden_values else None in hidden:
        for i, down in enumerate(face_down):
            if hidden_values and down and cells[i] is not None:
                fail(join(table_path, i), "a face-down cell must not show its value (null)")
            if not hidden_values and down and cells[i] is None:
                fail(join(mask_path, i), "a gap cannot lie face down")
    return cells, face_down


def _mask(value: object, path: JsonPath, valid: ValidValues, got: Mapping[str, Any]) -> int:
    """A ``CELL_MASK``'s flags as a bitmask; no gap of the table read before lies face down."""
    face_down = _flags(value, path, valid)
    cells = got[_TABLE]
    if None in compress(cells, face_down):
        for i, down in enumerate(face_down):
            if down and cells[i] is None:
                fail(join(path, i), "a gap cannot lie face down")
    return face_down_mask(face_down)


def _hand(value: object, path: JsonPath, valid: ValidValues) -> tuple[tuple[int, int], ...]:
    pairs = []
    for i, item in enumerate(get_list(value, path, most=1)):
        where = join(path, i)
        entry = get_object(item, where, HAND_KEYS)
        seat_key, card_key = HAND_KEYS
        pairs.append(
            (
                valid.seat(entry[seat_key], join(where, seat_key)),
                valid.card(entry[card_key], join(where, card_key)),
            )
        )
    return tuple(pairs)


def _score_rows(value: object, path: JsonPath, valid: ValidValues) -> tuple[tuple[int, ...], ...]:
    bound = valid.score_bound
    rows = get_list(value, path, most=ROUNDS)
    return tuple(
        get_int_list(x, join(path, i), -bound, bound, length=valid.seat_count)
        for i, x in enumerate(rows)
    )


def cell_set(value: object, path: JsonPath, valid: ValidValues) -> tuple[int, ...]:
    """``value`` as an array of distinct flat cell indices in ascending order."""
    cells = get_int_list(value, path, 0, valid.num_cells - 1, most=valid.num_cells)
    if list(cells) != sorted(set(cells)):
        fail(path, "must list distinct cells in ascending order")
    return cells


def _round_end(value: object, path: JsonPath, valid: ValidValues) -> Any:
    data = get_object(value, path, round_end_keys(valid.version))
    return trusted_round_end(**decode_fields(ROUND_END_FIELDS, data, path, valid))


_DECODERS: dict[Kind, _Decode] = {
    Kind.CONFIG: lambda v, p, valid, f, got: valid.rule_config,
    Kind.SEAT_COUNT: lambda v, p, valid, f, got: valid.seat_count,
    Kind.SEED: lambda v, p, valid, f, got: get_int(v, p, MIN_SEED, MAX_SEED),
    Kind.ROUND: lambda v, p, valid, f, got: get_int(v, p, 1, ROUNDS),
    Kind.PHASE: lambda v, p, valid, f, got: _phase(v, p),
    Kind.SEAT: lambda v, p, valid, f, got: valid.seat(v, p),
    Kind.OPT_SEAT: lambda v, p, valid, f, got: valid.seat_or_null(v, p),
    Kind.SEATS: lambda v, p, valid, f, got: get_seats(v, p, valid.seat_count),
    Kind.OPT_CELL: lambda v, p, valid, f, got: get_opt_int(v, p, 0, valid.num_cells - 1),
    Kind.CELLS: lambda v, p, valid, f, got: get_int_list(
        v, p, 0, valid.num_cells - 1, most=2 * valid.seat_count
    ),
    Kind.TABLE: lambda v, p, valid, f, got: _table(v, p, valid),
    Kind.CELL_MASK: lambda v, p, valid, f, got: _mask(v, p, valid, got),
    Kind.CARDS: lambda v, p, valid, f, got: valid.cards(v, p),
    Kind.OPT_CARD: lambda v, p, valid, f, got: valid.card_or_null(v, p),
    Kind.HAND: lambda v, p, valid, f, got: _hand(v, p, valid),
    Kind.REVEALS: lambda v, p, valid, f, got: get_int(v, p, 0, 2 * valid.seat_count),
    Kind.TURNS: lambda v, p, valid, f, got: get_int(v, p, 0, valid.rule_config.max_turns_per_round),
    Kind.REFILLS: lambda v, p, valid, f, got: get_int(v, p, 0, got[_TURNS]),
    Kind.PER_SEAT: lambda v, p, valid, f, got: get_int_list(
        v, p, *per_seat_range(f.bound, valid.rule_config), length=valid.seat_count
    ),
    Kind.SCORE_ROWS: lambda v, p, valid, f, got: _score_rows(v, p, valid),
    Kind.FLAG: lambda v, p, valid, f, got: get_bool(v, p),
    Kind.ROUND_END: lambda v, p, valid, f, got: None if v is None else _round_end(v, p, valid),
    Kind.CELL_SET: lambda v, p, valid, f, got: cell_set(v, p, valid),
    Kind.SCHEMA_VERSION: lambda v, p, valid, f, got: valid.version,  # check_header's
}
"""How a field of each kind is read back from JSON data, checked (``decode_fields``)."""


def decode_fields(
    fields: Iterable[StateField], data: Mapping[str, Any], path: JsonPath, valid: ValidValues
) -> dict[str, Any]:
    """The values of ``fields`` read from the document object ``data``, each checked by kind.

    A field added after the document's schema version takes its declared default. A
    failure names the field's path.

    Raises:
        SaveFormatError: the first field of a wrong type, size or range.
    """
    got: dict[str, Any] = {}
    version = valid.version
    for f in fields:
        if f.added > version:
            got[f.name] = f.default_for(_known(got, valid))
        else:
            got[f.name] = _DECODERS[f.kind](data[f.name], join(path, f.name), valid, f, got)
    return got


def read_named(data: Mapping[str, Any], path: JsonPath, valid: ValidValues, key: str) -> Any:
    """Load the named setup cells at ``key`` (the ``CELLS`` field; its default in older saves)."""
    if valid.version < _NAMED.added:
        return _NAMED.default
    return _DECODERS[_NAMED.kind](data[key], join(path, key), valid, _NAMED, {})


@cache
def _seats_of(n: int) -> frozenset[int]:
    """The seats ``0..n-1`` as a set (for membership tests at C speed)."""
    return frozenset(range(n))


_READING: dict[str, Any] = {
    "rounds": ROUNDS,
    "phases": _PHASES,
    "int_only": INT_ONLY,
    "bool_only": BOOL_ONLY,
    "list_only": LIST_ONLY,
    "chain": chain,
    "compress": compress,
    "not_none": not_none,
    "are_cards_or_null": are_cards_or_null,
    "seats_of": _seats_of,
    "face_down_mask": face_down_mask,
    "hand_keys": _HAND_KEY_SET,
    "min_seed": MIN_SEED,
    "max_seed": MAX_SEED,
}
"""The helpers of the generated readers (``_fast_codec.make_read_*``)."""

_round_end_fields_fast: Callable[[Any, ValidValues], dict[str, Any] | None] = _generated(
    "make_read_round_end", **_READING, read_round_end=None
) or (lambda value, valid: None)


def _round_end_fast(value: object, valid: ValidValues) -> Any:
    """The ``RoundEnd`` of an object whose every field is right, else ``None``."""
    if type(value) is not dict or value.keys() != _ROUND_END_KEY_SETS.get(valid.version):
        return None
    fields = _round_end_fields_fast(value, valid)
    if fields is None:
        return None
    return trusted_round_end(**with_defaults(fields, _LATER_ROUND_END[valid.version], valid))


public_fast: Callable[[Mapping[str, Any], ValidValues], dict[str, Any] | None] = _generated(
    "make_read_public", **_READING, read_round_end=_round_end_fast
) or (lambda data, valid: None)
"""The ``PUBLIC_FIELDS`` of a document whose every one is right, else ``None`` (generated)."""

_state_fields_fast: Callable[[Mapping[str, Any], ValidValues], dict[str, Any] | None] = _generated(
    "make_read_state", **_READING, read_round_end=_round_end_fast
) or (lambda data, valid: None)


def read_public(data: Mapping[str, Any], path: JsonPath, valid: ValidValues) -> dict[str, Any]:
    """Load the ``PUBLIC_FIELDS`` of a state or view object: types and ranges."""
    fast = public_fast(data, valid)
    if fast is None:
        return decode_fields(PUBLIC_FIELDS, data, path, valid)
    return with_defaults(fast, _LATER_PUBLIC[valid.version], valid)


def with_defaults(
    got: dict[str, Any], later: tuple[StateField, ...], valid: ValidValues
) -> dict[str, Any]:
    """``got`` (read by a bulk reader) with each field of ``later`` set to its default.

    The document's version lacks those fields; ``got`` itself is changed and returned.
    """
    for f in later:
        default = f.default
        if isinstance(default, DefaultFrom):
            default = default.make(_known(got, valid))
        got[f.name] = default
    return got


def _known(got: Mapping[str, Any], valid: ValidValues) -> Mapping[str, Any]:
    """The fields read so far, with the config and the seat count (a view's part lacks them)."""
    return ChainMap(dict(got), {_CONFIG: valid.rule_config, _SEAT_COUNT: valid.seat_count})


_LATER_STATE = {v: later_fields(STATE_FIELDS, v) for v in SCHEMA_VERSIONS}
_LATER_PUBLIC = {v: later_fields(PUBLIC_FIELDS, v) for v in SCHEMA_VERSIONS}
_LATER_ROUND_END = {v: later_fields(ROUND_END_FIELDS, v) for v in SCHEMA_VERSIONS}


def read_state_fast(data: object, path: JsonPath) -> dict[str, Any] | None:
    """The fields of a state document whose every field is right, else ``None``.

    Every check of ``read_state_checked`` (the types, sizes and ranges; not the
    consistency), done in bulk without building a JSON path. On any doubt the caller runs
    ``read_state_checked``, which names the bad field or, if this was too strict, loads the
    document the same.
    """
    if type(data) is not dict or data.get(HEADER_KEYS[1]) != "state":
        return None
    version = data.get(HEADER_KEYS[0])
    if type(version) is not int or data.keys() != _STATE_KEY_SETS.get(version):
        return None
    try:
        valid = read_table(data, path)
    except SaveFormatError:
        return None
    fields = _state_fields_fast(data, valid)
    return None if fields is None else with_defaults(fields, _LATER_STATE[version], valid)


def read_state_checked(data: object, path: JsonPath) -> dict[str, Any]:
    """The fields of a state document, each type, size and range checked one by one.

    The consistency is not checked yet. A failure names the field's path.
    """
    data = check_header(data, path, "state")
    data = get_object(data, path, state_keys(data[HEADER_KEYS[0]]))
    return decode_fields(STATE_FIELDS, data, path, read_table(data, path))


def read_state(data: object, path: JsonPath) -> dict[str, Any]:
    """The fields of a state document, checked (the fast reader, else the checked one)."""
    fields = read_state_fast(data, path)
    return fields if fields is not None else read_state_checked(data, path)


def consistent(state: Any, path: JsonPath, check: Callable[[Any, str], None]) -> None:
    """Fail unless ``check(state, path)`` passes, at the document path of the field.

    Raises:
        SaveFormatError: the first contradiction ``check`` finds.
    """
    try:
        check(state, render(path))
    except InvalidStateError as exc:
        fail(exc.path, exc.reason)
