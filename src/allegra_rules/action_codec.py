"""Internal: the action codec, actions as JSON objects and documents.

One job: write an [`Action`][allegra_rules.actions.Action] as JSON
(``{"type": "swap", "pos": {...}}``, alone or as a document with its header) and read
one back, checking everything. Its public names are re-exported and documented by
``allegra_rules.serialize`` ([`action_to_json`][allegra_rules.serialize.action_to_json],
[`action_from_json`][allegra_rules.serialize.action_from_json], ...).

It imports the JSON toolkit ``allegra_rules.jsondoc``, ``allegra_rules.actions`` and
``allegra_rules.geometry`` only; the state codec ``allegra_rules.serialize`` imports it
and re-exports its names (the views and the records use them from there).
"""

from __future__ import annotations

from typing import Any

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
from allegra_rules.geometry import CELLS_PER_SEAT, COLS, ROWS, Pos
from allegra_rules.jsondoc import (
    MAX_DOCUMENT_BYTES,
    MAX_PLAYERS,
    JsonPath,
    check_header,
    describe,
    dumps,
    fail,
    get_int,
    get_object,
    join,
    load_document,
    short,
)

ACTION_SCHEMA_VERSION = 1
"""Action documents have not changed since release 0.1.0: they are always version 1."""

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
        fail(join(path, "type"), f"unknown action type {short(kind)}; expected one of {names}")
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
