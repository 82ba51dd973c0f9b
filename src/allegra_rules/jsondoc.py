"""Internal: the JSON document toolkit every loader of the package reads with.

One job: turn untrusted text into checked Python values, naming the bad part of a
document by its JSON path. It holds the document limits (size, nesting depth, seats),
[`SaveFormatError`][allegra_rules.serialize.SaveFormatError] and the lazy JSON paths
(``JsonPath``, ``join``, ``render``, ``fail``), the parser (``parse_document``,
``load_document``: duplicate keys, ``NaN`` and oversized documents refused), the typed
getters (``get_object``, ``get_int``, ``get_card``, ``get_seats``, ...) and their bulk
checks at C speed (``are_cards_or_null``, ...), the header check (``check_header``),
the canonical writer (``dumps``) and the shipped JSON Schemas (``json_schema``).

It knows nothing of states, actions or configs: it imports the standard library,
``allegra_rules.geometry`` (for ``MAX_SEATS``) and ``allegra_rules.fields`` (for
``NEWEST_VERSION``) only. The codecs above it import it:
``allegra_rules.config_codec``, ``allegra_rules.action_codec`` and the state codec
``allegra_rules.serialize``, which re-exports the public names (those in its
``__all__``, documented there). The other names here are shared by the package's
loaders (``serialize``, ``views``, ``records``) and may change between releases.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache, partial
from itertools import compress
from operator import is_not
from typing import Any, NoReturn, TypeVar

from allegra_rules.fields import NEWEST_VERSION
from allegra_rules.geometry import MAX_SEATS

_T = TypeVar("_T")

SCHEMA_VERSION = NEWEST_VERSION
"""The newest version of the JSON documents; this release reads every version up to it.

Every document names the version it is written in. A game keeps the version it started
in: a state read from a version 1 document, and every state played on from it, is
written in version 1, byte for byte as release 0.1.0 wrote it, so its digest never
changes. New games start in the newest version (``new_game``'s ``schema_version``
chooses another). Version 2 (release 0.2.0) adds the options ``scoring_triples`` and
``setup_reveals`` to the config, the state key ``setup_named``, the view key
``own_setup_named`` and the ``last_round`` key ``removed``; a config that uses a later
option needs version 2 (see [`schema_version_for`][allegra_rules.serialize.schema_version_for]).
The versions are declared with the fields (``allegra_rules.fields.NEWEST_VERSION``).
"""

SCHEMA_VERSIONS: tuple[int, ...] = tuple(range(1, NEWEST_VERSION + 1))
"""Every schema version this release reads."""

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


# ----------------------------------------------------------------- reading JSON


JsonPath = str | tuple["JsonPath", str | int]
"""Where a value lies in a document: ``"$"``, or ``(parent, key)`` built by ``join``.

Loaders pass these lazy paths down and turn them into text
(``render``) only when they report an error, so a document that
loads builds no path strings.
"""


def fail(path: JsonPath, reason: str) -> NoReturn:
    """Raise [`SaveFormatError`][allegra_rules.serialize.SaveFormatError] at ``path``."""
    raise SaveFormatError(render(path), reason)


def short(value: object, limit: int = 40) -> str:
    """``repr(value)``, cut to ``limit`` characters, for messages."""
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
    text = path if isinstance(path, str) else short(path)
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
                fail("$", f"duplicate key {short(key)} in an object")
            seen.add(key)
    return out


def _reject_constant(name: str) -> NoReturn:
    fail("$", f"{name} is not a JSON number")


DECODER = json.JSONDecoder(object_pairs_hook=_reject_duplicates, parse_constant=_reject_constant)
"""The one decoder of every document (``json.loads`` with options builds one each call).

It refuses duplicate keys and ``NaN``/``Infinity`` (``SaveFormatError`` at ``$``).
"""


def load_document(
    text: object, build: Callable[[Any], _T], *, max_bytes: int = MAX_DOCUMENT_BYTES, what: str
) -> _T:
    """Parse ``text`` (``parse_document``) and ``build`` the loaded object from it.

    A document nested deeper than ``MAX_NESTING_DEPTH``
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
            (``load_document`` checks it only when the document fails to load).

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
        value = DECODER.decode(text)
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
    if not optional and len(value) == len(keys) and value.keys() == key_set(keys):
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
def key_set(keys: tuple[str, ...]) -> frozenset[str]:
    """``keys`` as a frozenset, made once per tuple (for a fast exact key-set test)."""
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
            f"{short(card)} is not a card value of the config's deck ({_values_text(values)})",
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
INT_ONLY = frozenset({int})
"""The set of types of an array of ints only (``set(map(type, items)) <= INT_ONLY``)."""
_INT_OR_NONE = frozenset({int, type(None)})
BOOL_ONLY = frozenset({bool})
"""The set of types of an array of JSON booleans only."""
LIST_ONLY = frozenset({list})
"""The set of types of values that are all JSON arrays."""
not_none = partial(is_not, None)
"""``not_none(x)`` is ``x is not None`` (for ``filter`` at C speed)."""


def _are_cards(items: list[Any], values: frozenset[int]) -> bool:
    """Whether every item is an int card value of the deck."""
    return set(map(type, items)) <= INT_ONLY and values.issuperset(items)


def are_bools(items: list[Any]) -> bool:
    """Whether every item is a JSON boolean."""
    return set(map(type, items)) <= BOOL_ONLY


def are_cards_or_null(items: list[Any], values: frozenset[int]) -> bool:
    """Whether every item is null or an int card value of the deck."""
    return set(map(type, items)) <= _INT_OR_NONE and values.issuperset(filter(not_none, items))


def cards_or_null(
    items: list[Any], path: JsonPath, values: frozenset[int]
) -> tuple[int | None, ...]:
    """``items`` as card values or nulls (checked one by one only to report an error)."""
    if are_cards_or_null(items, values):
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
            f"unknown schema version {short(version)} of a {kind} document; this release "
            f"reads version{'s' if len(versions) > 1 else ''} {known}",
        )
    if "kind" not in data:
        fail(join(path, "kind"), f'missing: expected "{kind}"')
    if data["kind"] != kind:
        fail(join(path, "kind"), f'expected "{kind}"; got {short(data["kind"])}')
    return data


# ----------------------------------------------------------------- writing JSON


def dumps(data: Mapping[str, Any]) -> str:
    """Canonical JSON: sorted keys, no whitespace."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


# ---------------------------------------------------------------------- schemas

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
    # Imported here: importlib.resources loads much of the standard library, and the state
    # (which imports this module for its codec) is imported with the package.
    from importlib import resources

    text = (resources.files("allegra_rules") / "schemas" / f"{kind}.schema.json").read_text(
        encoding="utf-8"
    )
    schema: dict[str, Any] = json.loads(text)
    return schema
