"""Internal: the config codec, the ``config`` object embedded in every document.

One job: read a document's ``RuleConfig.to_dict`` object back into a
[`RuleConfig`][allegra_rules.config.RuleConfig], every key checked at its JSON path, and
say which schema version the documents of a config are written in
([`schema_version_for`][allegra_rules.serialize.schema_version_for], re-exported and
documented by ``allegra_rules.serialize``). Writing a config is ``RuleConfig.to_dict``.

It imports the JSON toolkit ``allegra_rules.jsondoc`` and ``allegra_rules.config`` only;
the action and state codecs above it import it.
"""

from __future__ import annotations

import re

import attrs

from allegra_rules.config import LATER_OPTIONS, OPTION_CHOICES, RuleConfig
from allegra_rules.jsondoc import (
    SCHEMA_VERSION,
    JsonPath,
    describe,
    fail,
    get_int,
    get_object,
    get_str,
    join,
    short,
)

_CONFIG_KEYS: tuple[str, ...] = tuple(f.name for f in attrs.fields(RuleConfig))
_CONFIG_KEYS_V1: tuple[str, ...] = tuple(k for k in _CONFIG_KEYS if k not in LATER_OPTIONS)
_INT_OPTIONS = ("min_players", "max_players", "max_turns_per_round")
_CANONICAL_INT = re.compile(r"0|-?[1-9][0-9]*")


def schema_version_for(config: RuleConfig) -> int:
    """The oldest schema version whose documents can hold a game under ``config``.

    1 (the format of release 0.1.0) when the config uses no option added later
    ([`RuleConfig.later_options`][allegra_rules.config.RuleConfig.later_options] is empty), else 2.
    A game's documents are written in its own version (``GameState.schema_version``):
    the newest for a new game, which is at least this; a config document, which is the
    same in every version that can hold it, is written in this one.

    Examples:
        >>> simultaneous = RuleConfig(setup_reveals="simultaneous")
        >>> schema_version_for(RuleConfig()), schema_version_for(simultaneous)
        (1, 2)
    """
    if not isinstance(config, RuleConfig):
        raise ValueError(f"config must be a RuleConfig; got {type(config).__name__}")
    return 1 if not config.later_options else 2


# ---------------------------------------------------------------------- reading


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
            fail(join(path, name), f"must be one of {shown}; got {short(option)}")
    for name in _INT_OPTIONS:
        get_int(data[name], join(path, name), 1, None)
    try:
        return RuleConfig.from_dict(data)
    except ValueError as exc:
        fail(path, str(exc))
