"""Game records: the rules, the deal and every action, so that a game can be replayed.

A [`GameRecord`][allegra_rules.records.GameRecord] holds what
[`new_game`][allegra_rules.transitions.new_game] was called with (seat count, config, seed and/or
deck) and the actions played, in order. [`replay`][allegra_rules.records.replay] plays them again
and returns the same final state, every time, in every release: the shuffle is part of the format
and released presets never change.

A record names its config twice: in full (``RuleConfig.to_dict``) with its
``fingerprint``, and, when the config equals a released preset version, by that
version's pinned id such as ``"fr@1"``. Its JSON document also carries the sha256 of
the final state's JSON, so loading proves that the game replays exactly as it was
recorded.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import attrs

from allegra_rules.actions import Action
from allegra_rules.config import RuleConfig
from allegra_rules.presets import preset, preset_id, preset_ids
from allegra_rules.serialize import (
    ACTION_TYPES,
    MAX_DOCUMENT_BYTES,
    SCHEMA_VERSION,
    JsonPath,
    action_from_dict,
    action_to_dict,
    check_conservation,
    check_header,
    dumps,
    fail,
    get_int,
    get_list,
    get_object,
    get_str,
    join,
    load_document,
    read_table,
    state_to_json,
)
from allegra_rules.shuffle import MAX_SEED, MIN_SEED
from allegra_rules.state import GameState
from allegra_rules.transitions import IllegalActionError, apply, new_game

RECORD_KEYS: tuple[str, ...] = (
    "schema_version",
    "kind",
    "num_players",
    "preset",
    "config",
    "config_fingerprint",
    "seed",
    "deck",
    "actions",
    "final_state_sha256",
)
"""Every key of a record document, all required."""

_HEX64 = re.compile(r"[0-9a-f]{64}")


def preset_id_of(config: RuleConfig) -> str | None:
    """The first released preset version (in ``preset_ids`` order) equal to ``config``.

    Examples:
        >>> from allegra_rules import RuleConfig, preset
        >>> preset_id_of(preset("fr")), preset_id_of(RuleConfig(knocking="never"))
        ('fr@1', None)
    """
    for pid in preset_ids():
        if preset(pid) == config:
            return pid
    return None


def state_digest(state: GameState) -> str:
    """The sha256 hex digest of ``state_to_json(state)``: equal states, equal digests."""
    return hashlib.sha256(state_to_json(state).encode()).hexdigest()


def _config(value: RuleConfig | None) -> RuleConfig:
    if value is None:
        return preset("seeds")
    if not isinstance(value, RuleConfig):
        raise ValueError(f"config must be a RuleConfig or None; got {type(value).__name__}")
    return value


def _deck(value: Sequence[int] | None) -> tuple[int, ...] | None:
    if value is None:
        return None
    if not isinstance(value, (list, tuple)):
        raise ValueError(
            f"deck must be a list or tuple of card values, or None; got {type(value).__name__}"
        )
    return tuple(value)


def _version(value: object) -> object:
    """``None`` means the newest schema version (``new_game`` checks the others)."""
    return SCHEMA_VERSION if value is None else value


def _actions(value: Iterable[Action]) -> tuple[Action, ...]:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"actions must be a list or tuple of actions; got {type(value).__name__}")
    actions = tuple(value)
    for i, action in enumerate(actions):
        if type(action) not in ACTION_TYPES:
            raise ValueError(f"actions[{i}] is not an allegra_rules action: {action!r}")
    return actions


@attrs.frozen(slots=True, kw_only=True, repr=False)
class GameRecord:
    """A whole game: how it was dealt and every action, in order. Frozen.

    Attributes:
        num_players: the seat count.
        config: the rules; ``None`` at construction means ``preset("seeds")``.
        seed: the ``seed`` given to ``new_game`` (``None``: the default seed, or one
            derived from ``deck``).
        deck: the ``deck`` given to ``new_game`` (top first), or ``None``.
        actions: every action of the game so far, in order.
        preset: the pinned id of the released preset version the config equals,
            such as ``"fr@1"``, or ``None``. Left out, it is found automatically
            (the first equal one in [`preset_ids`][allegra_rules.presets.preset_ids] order); given,
            it may be a bare name (``"fr"``, pinned to its newest version) and must
            equal ``config``.
        schema_version: the saved-game schema version the game is written in (its
            states', its own document's): ``None`` at construction means the newest; a
            record read from a document keeps that document's version, so that it
            replays to the very states it recorded.

    Raises:
        ValueError: arguments that ``new_game`` rejects, a non-action in
            ``actions``, or a ``preset`` that is unknown or differs from ``config``.

    Examples:
        >>> from allegra_rules import apply, legal_actions, preset
        >>> record = GameRecord(num_players=2, config=preset("fr"), seed=11)
        >>> record.preset
        'fr@1'
        >>> state = record.initial_state()
        >>> first = legal_actions(state)[0]
        >>> record = record.with_actions(first)
        >>> replay(record) == apply(state, first)
        True
    """

    num_players: int
    config: RuleConfig = attrs.field(default=None, converter=_config)
    seed: int | None = None
    deck: tuple[int, ...] | None = attrs.field(default=None, converter=_deck)
    actions: tuple[Action, ...] = attrs.field(default=(), converter=_actions)
    preset: str | None = None
    schema_version: int = attrs.field(default=None, converter=_version)

    def __attrs_post_init__(self) -> None:
        new_game(
            self.num_players,
            config=self.config,
            seed=self.seed,
            deck=self.deck,
            schema_version=self.schema_version,
        )
        name = self.preset
        if name is None:
            object.__setattr__(self, "preset", preset_id_of(self.config))
            return
        if not isinstance(name, str):
            raise ValueError(f"preset must be a preset name or None; got {name!r}")
        pinned = preset_id(name)
        if preset(pinned) != self.config:
            differ = sorted(preset(pinned).options_differing_from(self.config))
            raise ValueError(
                f"the config is not preset {pinned!r}: it differs in {', '.join(differ)}"
            )
        object.__setattr__(self, "preset", pinned)

    def __repr__(self) -> str:
        start = f"seed={self.seed}" if self.deck is None else "deck=[...]"
        rules = self.preset or f"config {self.config.fingerprint[:12]}"
        return (
            f"<GameRecord players={self.num_players} {rules} {start} actions={len(self.actions)}>"
        )

    @property
    def config_fingerprint(self) -> str:
        """The config's fingerprint (sha256 of its canonical JSON)."""
        return self.config.fingerprint

    def initial_state(self) -> GameState:
        """The game's first state: ``new_game`` with the recorded arguments."""
        return new_game(
            self.num_players,
            config=self.config,
            seed=self.seed,
            deck=self.deck,
            schema_version=self.schema_version,
        )

    def with_actions(self, *actions: Action) -> GameRecord:
        """A copy of the record with ``actions`` appended (checked on replay)."""
        return attrs.evolve(self, actions=self.actions + tuple(actions))

    def states(self) -> Iterator[GameState]:
        """Every state of the game: the initial one, then one after each action.

        Raises:
            IllegalActionError: an action is not legal where it was recorded; the
                reason names its index.
        """
        state = self.initial_state()
        yield state
        for i, action in enumerate(self.actions):
            try:
                state = apply(state, action)
            except IllegalActionError as exc:
                raise IllegalActionError(
                    action, f"action {i} of the record: {exc.reason}"
                ) from None
            yield state

    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON data; replays it to compute ``final_state_sha256``.

        Raises:
            IllegalActionError: an action of the record is not legal.
        """
        return {
            "schema_version": self.schema_version,
            "kind": "record",
            "num_players": self.num_players,
            "preset": self.preset,
            "config": self.config.to_dict(),
            "config_fingerprint": self.config.fingerprint,
            "seed": self.seed,
            "deck": None if self.deck is None else list(self.deck),
            "actions": [action_to_dict(a) for a in self.actions],
            "final_state_sha256": state_digest(replay(self)),
        }

    def to_json(self) -> str:
        """The record as a canonical JSON document (``"kind": "record"``).

        Raises:
            IllegalActionError: an action of the record is not legal.
        """
        return dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: object, path: JsonPath = "$") -> GameRecord:
        """Load parsed record data, checking everything and replaying the game.

        Raises:
            SaveFormatError: as [`from_json`][allegra_rules.records.GameRecord.from_json].
        """
        data = get_object(check_header(data, path, "record"), path, RECORD_KEYS)
        table = read_table(data, path)
        config = table.config
        print_path = join(path, "config_fingerprint")
        fingerprint = get_str(data["config_fingerprint"], print_path)
        if not _HEX64.fullmatch(fingerprint):
            fail(print_path, "must be 64 lowercase hex digits (a sha256 digest)")
        if fingerprint != config.fingerprint:
            fail(
                print_path,
                f"does not match the embedded config, whose fingerprint is "
                f"{config.fingerprint}: the config or the fingerprint was changed",
            )
        name = data["preset"]
        preset_path = join(path, "preset")
        if name is not None:
            name = get_str(name, preset_path)
            try:
                pinned = preset_id(name)
            except ValueError as exc:
                fail(preset_path, str(exc))
            if pinned != name:
                fail(preset_path, f"must be a pinned preset version such as {pinned!r}")
            if preset(name) != config:
                differ = sorted(preset(name).options_differing_from(config))
                fail(
                    preset_path,
                    f"the embedded config is not preset {name!r}: it differs in "
                    f"{', '.join(differ)}",
                )
        seed = data["seed"]
        if seed is not None:
            seed = get_int(seed, join(path, "seed"), MIN_SEED, MAX_SEED)
        deck = data["deck"]
        if deck is not None:
            deck_path = join(path, "deck")
            deck = table.cards(deck, deck_path)
            check_conservation(deck_path, Counter(deck), config, "the deck")
        actions_path = join(path, "actions")
        actions = tuple(
            action_from_dict(x, join(actions_path, i), table.num_players)
            for i, x in enumerate(get_list(data["actions"], actions_path))
        )
        digest_path = join(path, "final_state_sha256")
        digest = data["final_state_sha256"]
        if digest is not None:
            digest = get_str(digest, digest_path)
            if not _HEX64.fullmatch(digest):
                fail(digest_path, "must be 64 lowercase hex digits (a sha256 digest)")
        try:
            record = cls(
                num_players=table.num_players,
                config=config,
                seed=seed,
                deck=deck,
                actions=actions,
                preset=name,
                schema_version=table.version,
            )
        except ValueError as exc:
            fail(path, str(exc))
        state = record.initial_state()
        for i, action in enumerate(actions):
            try:
                state = apply(state, action)
            except IllegalActionError as exc:
                fail(join(actions_path, i), f"{action!r} is not legal here: {exc.reason}")
        if digest is not None and digest != state_digest(state):
            fail(
                digest_path,
                "the replayed game ends in a different state: the record was changed, "
                "or it was recorded by an engine that plays differently",
            )
        return record

    @classmethod
    def from_json(cls, text: str | bytes, *, max_bytes: int = MAX_DOCUMENT_BYTES) -> GameRecord:
        """Load a record document, checking everything and replaying the game.

        Checks the config fingerprint against the embedded config, the preset id
        (when given) against the embedded config, the deck, every action's
        legality in turn, and the final state's digest (when given).

        Raises:
            SaveFormatError: anything malformed, inconsistent or not reproducible;
                the message names the path, such as ``$.actions[37]``.
        """
        return load_document(text, cls.from_dict, max_bytes=max_bytes, what="record")


def replay(record: GameRecord) -> GameState:
    """The final state of a recorded game: its actions applied to its first state.

    Raises:
        ValueError: ``record`` is not a ``GameRecord``.
        IllegalActionError: an action is not legal where it was recorded.
    """
    if not isinstance(record, GameRecord):
        raise ValueError(f"record must be a GameRecord; got {type(record).__name__}")
    state = record.initial_state()
    for i, action in enumerate(record.actions):
        try:
            state = apply(state, action)
        except IllegalActionError as exc:
            raise IllegalActionError(action, f"action {i} of the record: {exc.reason}") from None
    return state
