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

This module is the state codec: the state document written two ways (``state_to_dict``,
and ``state_to_json`` writing the same canonical text directly) and read two ways (a fast
reader that checks every field in bulk, and a checked one that names the bad field). The
other codecs live below it and their documented names are re-exported here, where they
have always been: the JSON toolkit (``allegra_rules.jsondoc``: ``SaveFormatError``, the
limits, the parser, the typed getters), the config codec (``allegra_rules.config_codec``:
``schema_version_for``) and the action codec (``allegra_rules.action_codec``).

The reader helpers here (``get_*``, ``read_*``, ``ValidValues``, ``consistent``) are shared
with [`allegra_rules.views`][allegra_rules.views] and
[`allegra_rules.records`][allegra_rules.records]; they are not in the module's
``__all__``, not documented here, and may change between releases.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from itertools import chain, compress
from typing import Any

import attrs

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
from allegra_rules.geometry import CELLS_PER_SEAT
from allegra_rules.invariants import InvalidStateError, bounds, check_consistency, deck_counts
from allegra_rules.invariants import check_conservation as _check_conservation
from allegra_rules.jsondoc import (
    BOOL_ONLY,
    DECODER,
    INT_ONLY,
    LIST_ONLY,
    MAX_DOCUMENT_BYTES,
    MAX_NESTING_DEPTH,
    MAX_PLAYERS,
    SCHEMA_NAMES,
    SCHEMA_VERSION,
    SCHEMA_VERSIONS,
    SaveFormatError,
    are_bools,
    are_cards_or_null,
    cards_or_null,
    json_schema,
    key_set,
    not_none,
    short,
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
    try:
        check_consistency(state, render(path))
    except InvalidStateError as exc:
        fail(exc.path, exc.reason)


# ------------------------------------------------------------------------ state


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


def _round_end_from_data(value: object, path: JsonPath, valid: ValidValues) -> RoundEnd:
    v2 = valid.version >= 2
    data = get_object(value, path, ROUND_END_KEYS if v2 else ROUND_END_KEYS_V1)
    n = valid.num_players
    bound = valid.score_bound
    cells_path = join(path, "cells")
    items = get_list(data["cells"], cells_path, valid.num_cells)
    return trusted_round_end(
        round=get_int(data["round"], join(path, "round"), 1, ROUNDS),
        cells=cards_or_null(items, cells_path, valid.values),
        zone_sums=get_int_list(data["zone_sums"], join(path, "zone_sums"), -bound, bound, length=n),
        ender=valid.seat_or_null(data["ender"], join(path, "ender")),
        doubled=get_bool(data["doubled"], join(path, "doubled")),
        scores=get_int_list(data["scores"], join(path, "scores"), -bound, bound, length=n),
        removed=_cell_list(data["removed"], join(path, "removed"), valid) if v2 else (),
    )


def _cell_list(value: object, path: JsonPath, valid: ValidValues) -> tuple[int, ...]:
    """``value`` as an array of distinct flat cell indices in ascending order."""
    cells = get_int_list(value, path, 0, valid.num_cells - 1, most=valid.num_cells)
    if list(cells) != sorted(set(cells)):
        fail(path, "must list distinct cells in ascending order")
    return cells


@attrs.frozen(slots=True)
class ValidValues:
    """The valid values of a document's fields, as its config and seat count imply them.

    The readers check every field against one of these (the card values of the deck,
    the seats, the cells, the bounds of sums and scores); ``read_table`` makes one per
    (config, seat count, schema version) and reuses it.

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


def read_table(data: Mapping[str, Any], path: JsonPath) -> ValidValues:
    """Load ``config`` and ``num_players`` of a document object (header already checked).

    Returns:
        The valid values of the document's other fields (cached per config, seat count
        and schema version).
    """
    version = data["schema_version"]
    config = config_from_data(data["config"], join(path, "config"), version)
    most = min(config.max_players, MAX_PLAYERS, (config.deck_size - 2) // CELLS_PER_SEAT)
    n = get_int(data["num_players"], join(path, "num_players"), config.min_players, most)
    key = (id(config), n, version)
    known = _valid_cache.get(key)
    if known is not None and known.config is config:
        return known
    values = frozenset(deck_counts(config))
    setup_bound, score_bound = bounds(config)
    if len(_valid_cache) >= 64:
        _valid_cache.clear()
    valid = _valid_cache[key] = ValidValues(
        version=version,
        config=config,
        num_players=n,
        values=values,
        setup_bound=setup_bound,
        score_bound=score_bound,
    )
    return valid


_valid_cache: dict[tuple[int, int, int], ValidValues] = {}

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


@cache
def _seats_of(n: int) -> frozenset[int]:
    """The seats ``0..n-1`` as a set (for membership tests at C speed)."""
    return frozenset(range(n))


def _public_fast(data: Mapping[str, Any], valid: ValidValues) -> dict[str, Any] | None:
    """``read_public`` for a document whose every field is right, else ``None``.

    Checks the same types and ranges in bulk, at C speed where it can: the types of every
    number of every array in one pass, ranges with ``min``/``max`` and set membership. On any
    doubt the caller checks field by field (``_public_checked``), which names the bad field.
    """
    n = valid.num_players
    config = valid.config
    bound = valid.score_bound
    values = valid.values
    phase_text = data["phase"]
    phase = _PHASES.get(phase_text) if type(phase_text) is str else None
    turns = data["turns_played"]
    rnd = data["round"]
    start = data["start_seat"]
    reveals = data["setup_reveals"]
    refills = data["refills"]
    if (
        phase is None
        or {type(turns), type(rnd), type(start), type(reveals), type(refills)} != INT_ONLY
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
    optional = list(filter(not_none, (current, drawer, knocker, ender)))
    if not set(map(type, optional)) <= INT_ONLY or not seats.issuperset(optional):
        return None
    cells_at = list(filter(not_none, (given, taken)))
    if cells_at and not (
        set(map(type, cells_at)) <= INT_ONLY
        and min(cells_at) >= 0
        and max(cells_at) < valid.num_cells
    ):
        return None
    discard, out, sums, totals = (data[key] for key in _INT_ARRAYS)
    knockers, final_turns, winners = (data[key] for key in _SEAT_LISTS)
    played = data["round_scores"]
    arrays = (discard, out, sums, totals, knockers, final_turns, winners, played)
    if set(map(type, arrays)) != LIST_ONLY or not set(map(type, played)) <= LIST_ONLY:
        return None
    most = config.deck_size
    total_bound = ROUNDS * bound
    setup_bound = valid.setup_bound
    if not (
        set(map(type, chain(discard, out, sums, totals, knockers, final_turns, winners, *played)))
        <= INT_ONLY
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
        last = _round_end_fast(last, valid)
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


def _round_end_fast(value: object, valid: ValidValues) -> RoundEnd | None:
    """``_round_end_from_data`` for an object whose every field is right, else ``None``."""
    v2 = valid.version >= 2
    if type(value) is not dict or value.keys() != key_set(
        ROUND_END_KEYS if v2 else ROUND_END_KEYS_V1
    ):
        return None
    n = valid.num_players
    bound = valid.score_bound
    num_cells = valid.num_cells
    rnd, cells, sums, ender, doubled, scores = (value[key] for key in ROUND_END_KEYS_V1)
    removed = value["removed"] if v2 else []
    if (
        type(rnd) is not int
        or not 1 <= rnd <= ROUNDS
        or type(doubled) is not bool
        or not (ender is None or (type(ender) is int and 0 <= ender < n))
        or {type(cells), type(sums), type(scores), type(removed)} != LIST_ONLY
        or len(cells) != num_cells
        or len(sums) != n
        or len(scores) != n
        or len(removed) > num_cells
        or not are_cards_or_null(cells, valid.values)
        or not set(map(type, chain(sums, scores, removed))) <= INT_ONLY
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


def read_public(data: Mapping[str, Any], path: JsonPath, valid: ValidValues) -> dict[str, Any]:
    """Load the ``PUBLIC_KEYS`` fields of a state or view object, types and ranges."""
    fast = _public_fast(data, valid)
    return fast if fast is not None else _public_checked(data, path, valid)


def _public_checked(data: Mapping[str, Any], path: JsonPath, valid: ValidValues) -> dict[str, Any]:
    """``read_public`` field by field: a failure names the field's path."""

    def at(key: str) -> JsonPath:
        return join(path, key)

    n = valid.num_players
    bound = valid.score_bound
    phase_text = get_str(data["phase"], at("phase"))
    phases = {p.value: p for p in Phase}
    if phase_text not in phases:
        fail(at("phase"), f"unknown phase {short(phase_text)}; phases are {', '.join(phases)}")
    turns = get_int(data["turns_played"], at("turns_played"), 0, valid.config.max_turns_per_round)
    played = get_list(data["round_scores"], at("round_scores"), most=ROUNDS)
    last = data["last_round"]
    return {
        "round": get_int(data["round"], at("round"), 1, ROUNDS),
        "phase": phases[phase_text],
        "current_player": valid.seat_or_null(data["current_player"], at("current_player")),
        "discard_pile": valid.cards(data["discard_pile"], at("discard_pile")),
        "out_of_play": valid.cards(data["out_of_play"], at("out_of_play")),
        "start_seat": valid.seat(data["start_seat"], at("start_seat")),
        "setup_reveals": get_int(data["setup_reveals"], at("setup_reveals"), 0, 2 * n),
        "setup_sums": get_int_list(
            data["setup_sums"], at("setup_sums"), -valid.setup_bound, valid.setup_bound, length=n
        ),
        "drawer": valid.seat_or_null(data["drawer"], at("drawer")),
        "knockers": get_seats(data["knockers"], at("knockers"), n),
        "knocker": valid.seat_or_null(data["knocker"], at("knocker")),
        "given_at": get_opt_int(data["given_at"], at("given_at"), 0, valid.num_cells - 1),
        "taken_at": get_opt_int(data["taken_at"], at("taken_at"), 0, valid.num_cells - 1),
        "held_was_face_down": get_bool(data["held_was_face_down"], at("held_was_face_down")),
        "hand_was_face_down": get_bool(data["hand_was_face_down"], at("hand_was_face_down")),
        "turns_played": turns,
        "ender": valid.seat_or_null(data["ender"], at("ender")),
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
        "last_round": None if last is None else _round_end_from_data(last, at("last_round"), valid),
    }


def read_cells(
    data: Mapping[str, Any], path: JsonPath, valid: ValidValues, *, hidden_values: bool
) -> tuple[tuple[int | None, ...], tuple[bool, ...]]:
    """Load ``cells`` and ``face_down``: face-down cells hold a card, or null in a view.

    Args:
        data: the document object.
        path: its path.
        valid: the valid values of its fields (``read_table``).
        hidden_values: True for a view, where a face-down cell must be null.
    """
    cells_path = join(path, "cells")
    fd_path = join(path, "face_down")
    items = get_list(data["cells"], cells_path, valid.num_cells)
    cells = cards_or_null(items, cells_path, valid.values)
    flags = get_list(data["face_down"], fd_path, valid.num_cells)
    if are_bools(flags):
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
        valid = read_table(data, path)
    except SaveFormatError:
        return None
    public = _public_fast(data, valid)
    if public is None:
        return None
    values = valid.values
    num_cells = valid.num_cells
    cells = data["cells"]
    flags = data["face_down"]
    draw = data["draw_pile"]
    held = data["held"]
    hand = data["in_hand"]
    seed = data["seed"]
    named = data["setup_named"] if version >= 2 else []
    if (
        {type(cells), type(flags), type(draw), type(hand), type(named)} != LIST_ONLY
        or type(seed) is not int
        or not MIN_SEED <= seed <= MAX_SEED
        or len(cells) != num_cells
        or len(flags) != num_cells
        or len(draw) > valid.config.deck_size
        or len(hand) > 1
        or len(named) > 2 * valid.num_players
        or not are_cards_or_null(cells, values)
        or not set(map(type, flags)) <= BOOL_ONLY
        or None in compress(cells, flags)
        or not set(map(type, chain(draw, named))) <= INT_ONLY
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
            and 0 <= player < valid.num_players
            and type(card) is int
            and card in values
        ):
            return None
        in_hand = ((player, card),)
    return trusted_state(
        config=valid.config,
        num_players=valid.num_players,
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
    valid = read_table(data, path)
    public = _public_checked(data, path, valid)
    cells, flags = read_cells(data, path, valid, hidden_values=False)
    hand_path = join(path, "in_hand")
    in_hand = []
    for i, item in enumerate(get_list(data["in_hand"], hand_path, most=1)):
        where = join(hand_path, i)
        entry = get_object(item, where, ("player", "card"))
        in_hand.append(
            (
                valid.seat(entry["player"], join(where, "player")),
                valid.card(entry["card"], join(where, "card")),
            )
        )
    # Every field's type was checked while parsing: no need to check it again.
    state = trusted_state(
        config=valid.config,
        num_players=valid.num_players,
        seed=get_int(data["seed"], join(path, "seed"), MIN_SEED, MAX_SEED),
        cells=cells,
        face_down=_face_down_mask(flags),
        draw_pile=valid.cards(data["draw_pile"], join(path, "draw_pile")),
        held=valid.card_or_null(data["held"], join(path, "held")),
        in_hand=tuple(in_hand),
        setup_named=read_setup_named(data, path, valid, "setup_named"),
        **public,
    )
    return state


def read_setup_named(
    data: Mapping[str, Any], path: JsonPath, valid: ValidValues, key: str
) -> tuple[int, ...]:
    """Load the named setup cells at ``key`` (schema version 2; empty in version 1)."""
    if valid.version < 2:
        return ()
    n = valid.num_players
    return get_int_list(data[key], join(path, key), 0, valid.num_cells - 1, most=2 * n)
