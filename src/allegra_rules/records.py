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

A record may also carry a *deal commitment* (``deal_commitment`` and ``deal_salt``):
a SHA-256 digest, published before the game, that binds its seed without showing it
(see [`commit_deal`][allegra_rules.records.commit_deal]). The table server commits
to every deal when a table is created and reveals the seed and the salt in the
record once the game is over; ``allegra-rules verify`` checks both.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
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
from allegra_rules.shuffle import MAX_SEED, MIN_SEED, check_seed
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

RECORD_OPTIONAL_KEYS: tuple[str, ...] = ("deal_commitment", "deal_salt", "seats")
"""The keys a record document may have besides ``RECORD_KEYS``.

``deal_commitment`` and ``deal_salt``: both or neither. ``seats``: who played each seat
(``allegra-rules play`` writes it, so that ``play --resume`` needs no ``--seat`` or
``--bots``). A record without them leaves them out, so that it is written exactly as
before they existed.
"""

PERSON_SEAT = "person"
"""The entry of ``GameRecord.seats`` for a seat a person played."""

_SEAT_NAME = re.compile(r"[a-z][a-z0-9-]{0,39}")

DEAL_COMMITMENT_PREFIX = b"allegra-rules deal commitment v1\n"
"""The bytes a deal commitment's hashed message starts with (its domain)."""

DEAL_SALT_BYTES = 32
"""The length of a deal commitment's salt, in bytes."""

_HEX64 = re.compile(r"[0-9a-f]{64}")


def deal_commitment(seed: int, salt: bytes) -> str:
    """The commitment to a deal: SHA-256 of the domain prefix, the seed and the salt.

    The hashed message is ``DEAL_COMMITMENT_PREFIX`` (the ASCII text
    ``allegra-rules deal commitment v1`` and a newline), then ``seed`` in decimal ASCII
    digits (a leading ``-`` when negative, no leading zeros), then the 32 bytes of
    ``salt``. The commitment is its digest in 64 lowercase hex digits. The salt is the
    message's fixed-length end, so no two (seed, salt) pairs share a message.

    Args:
        seed: the seed given to ``new_game``.
        salt: ``DEAL_SALT_BYTES`` random bytes, secret until the deal is revealed.

    Raises:
        ValueError: a seed that is not a valid seed, or a salt that is not 32 bytes.

    Examples:
        >>> deal_commitment(7, bytes(32))[:16]
        '5d650f9f7043416a'
    """
    check_seed(seed)
    if type(salt) is not bytes or len(salt) != DEAL_SALT_BYTES:
        raise ValueError(
            f"salt must be {DEAL_SALT_BYTES} bytes; got "
            + (f"{len(salt)} bytes" if isinstance(salt, bytes) else type(salt).__name__)
        )
    message = DEAL_COMMITMENT_PREFIX + str(seed).encode("ascii") + salt
    return hashlib.sha256(message).hexdigest()


def commit_deal(seed: int, salt: bytes | None = None) -> tuple[bytes, str]:
    """A new commitment to the deal of ``seed``: ``(salt, commitment)``.

    Publish the commitment before the game; keep the seed and the salt secret until
    it is over, then reveal both: anyone can check them with
    [`check_deal`][allegra_rules.records.check_deal].

    Args:
        seed: the seed given to ``new_game``.
        salt: the salt to use; ``None`` draws 32 random bytes (``secrets``).

    Raises:
        ValueError: as [`deal_commitment`][allegra_rules.records.deal_commitment].
    """
    if salt is None:
        salt = secrets.token_bytes(DEAL_SALT_BYTES)
    return salt, deal_commitment(seed, salt)


def check_deal(seed: int, salt: bytes, commitment: str) -> bool:
    """Whether ``commitment`` is the commitment to ``seed`` with ``salt``.

    Args:
        seed: the revealed seed.
        salt: the revealed salt (32 bytes).
        commitment: the commitment published before the game (64 hex digits; upper
            case is accepted).

    Raises:
        ValueError: a bad seed or salt, or a commitment that is not 64 hex digits.
    """
    if not isinstance(commitment, str) or not _HEX64.fullmatch(commitment.lower()):
        raise ValueError(
            f"a commitment is 64 hex digits (a SHA-256 digest); got {commitment!r:.80}"
        )
    return hmac.compare_digest(deal_commitment(seed, salt), commitment.lower())


def _deal_problem(
    seed: int | None, deck: object, commitment: str | None, salt: str | None
) -> str | None:
    """What is wrong with a record's deal commitment (hex strings), or ``None``."""
    if commitment is None and salt is None:
        return None
    if commitment is None or salt is None:
        return "deal_commitment and deal_salt go together: give both or neither"
    if seed is None or deck is not None:
        return "a deal commitment needs a seed (and no stacked deck)"
    if not check_deal(seed, bytes.fromhex(salt), commitment):
        return (
            "deal_commitment is not the commitment to the seed with deal_salt: the seed, "
            "the salt or the commitment was changed"
        )
    return None


def _hex64(value: object, name: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not _HEX64.fullmatch(value):
        raise ValueError(f"{name} must be 64 lowercase hex digits or None; got {value!r:.80}")
    return value


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


def _seats(value: Iterable[str] | None) -> tuple[str, ...] | None:
    # A list or tuple only, as for ``deck``: an endless iterable is refused, not read.
    if value is None:
        return None
    if not isinstance(value, (list, tuple)):
        raise ValueError(
            f"seats must be a list or tuple of who played each seat, or None; "
            f"got {type(value).__name__}"
        )
    return tuple(value)


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
        deal_commitment: the commitment to the deal published before the game
            ([`deal_commitment`][allegra_rules.records.deal_commitment], 64 hex
            digits), or ``None``.
        deal_salt: the salt that commitment hid, revealed (64 hex digits: 32 bytes),
            or ``None``. Both or neither; with them, ``seed`` is the committed one.
        seats: who played each seat, in seat order: ``"person"``
            ([`PERSON_SEAT`][allegra_rules.records.PERSON_SEAT]) or a bot name such as
            ``"greedy"`` (lower-case letters, digits and hyphens); or ``None`` (not
            recorded). ``allegra-rules play`` writes it and ``play --resume`` reads it.

    Raises:
        ValueError: arguments that ``new_game`` rejects, a non-action in
            ``actions``, a ``preset`` that is unknown or differs from ``config``, or a
            deal commitment that is malformed, alone, or not the seed's with the salt.

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
    deal_commitment: str | None = None
    deal_salt: str | None = None
    seats: tuple[str, ...] | None = attrs.field(default=None, converter=_seats)

    def __attrs_post_init__(self) -> None:
        self._check_seats()
        new_game(
            self.num_players,
            config=self.config,
            seed=self.seed,
            deck=self.deck,
            schema_version=self.schema_version,
        )
        self._check_commitment()
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

    def _check_seats(self) -> None:
        seats = self.seats
        if seats is None:
            return
        if len(seats) != self.num_players or not all(
            isinstance(name, str) and _SEAT_NAME.fullmatch(name) for name in seats
        ):
            raise ValueError(
                f"seats must name who played each of the {self.num_players} seats "
                f"({PERSON_SEAT!r} or a bot name); got {list(seats)!r}"
            )

    def _check_commitment(self) -> None:
        commitment = _hex64(self.deal_commitment, "deal_commitment")
        salt = _hex64(self.deal_salt, "deal_salt")
        problem = _deal_problem(self.seed, self.deck, commitment, salt)
        if problem is not None:
            raise ValueError(problem)

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
        data: dict[str, Any] = {
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
        if self.deal_commitment is not None:  # left out otherwise: written as before
            data["deal_commitment"] = self.deal_commitment
            data["deal_salt"] = self.deal_salt
        if self.seats is not None:  # left out otherwise: written as before
            data["seats"] = list(self.seats)
        return data

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
        data = get_object(
            check_header(data, path, "record"), path, RECORD_KEYS, RECORD_OPTIONAL_KEYS
        )
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
        commitment, salt = (data.get(key) for key in RECORD_OPTIONAL_KEYS[:2])
        seats = None
        if "seats" in data:
            seats_path = join(path, "seats")
            seats = tuple(
                get_str(x, join(seats_path, i))
                for i, x in enumerate(get_list(data["seats"], seats_path))
            )
        for key in RECORD_OPTIONAL_KEYS[:2]:
            if key in data and not (isinstance(data[key], str) and _HEX64.fullmatch(data[key])):
                fail(join(path, key), "must be 64 lowercase hex digits")
        problem = _deal_problem(seed, deck, commitment, salt)
        if problem is not None:
            fail(join(path, "deal_commitment"), problem)
        try:
            record = cls(
                num_players=table.num_players,
                config=config,
                seed=seed,
                deck=deck,
                actions=actions,
                preset=name,
                schema_version=table.version,
                deal_commitment=commitment,
                deal_salt=salt,
                seats=seats,
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


def verify_record_text(text: str | bytes, commitment: str | None = None) -> str:
    """Check that a game record's deal was fixed before the game; the verdict in one line.

    What ``allegra-rules verify RECORD`` checks, and the play page in the browser (the
    same function, run by Pyodide): that the record's seed and salt hash to its
    commitment (and to ``commitment``, the one noted when the game began, when given),
    that every action is legal, in turn, from the deal of that seed, and that the game
    ends in the final state the record names (``final_state_sha256``).

    Args:
        text: the record's JSON text (``GameRecord.to_json``).
        commitment: the commitment noted at the start (64 hex digits), or ``None`` to
            check against the record's own.

    Raises:
        ValueError: the record is not valid (a changed seed, salt or commitment, an
            illegal action, another final state), has no commitment or no final
            state's digest, or was committed to another deal than ``commitment``;
            the message says which.
    """
    import json

    record = GameRecord.from_json(text)  # checks the commitment, each action, the end
    if record.deal_commitment is None or record.deal_salt is None:
        raise ValueError(
            "the record carries no deal commitment (a game not dealt by a server that "
            "commits, or by one older than commitments): nothing shows the deal was fixed "
            "before the game"
        )
    if json.loads(text).get("final_state_sha256") is None:
        raise ValueError(
            "the record names no final state (final_state_sha256 is null): where the game "
            "ended cannot be checked"
        )
    if commitment is not None and commitment.lower() != record.deal_commitment:
        raise ValueError(
            f"the deal was committed as {record.deal_commitment}, not as the commitment "
            f"noted at the start, {commitment.lower()}: this is not the deal that was promised"
        )
    final = replay(record)
    noted = "the commitment noted at the start" if commitment else "the record's commitment"
    ending = "the game is over" if final.is_terminal else "the game is not over yet"
    return (
        f"verified: seed {record.seed} and its salt hash to {noted} "
        f"{record.deal_commitment}, and all {len(record.actions)} actions are legal from "
        f"that deal and end in the recorded final state ({ending})"
    )
