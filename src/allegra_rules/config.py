"""Rule options: one field per entry of the ambiguity list, and their validation.

A [`RuleConfig`][allegra_rules.config.RuleConfig] pins every reading on which the rule texts
disagree or are silent. Each field names the ambiguity entry it settles (``A1``, ``A6``, ...) in its
metadata; [`OPTION_CHOICES`][allegra_rules.config.OPTION_CHOICES] lists the allowed values of every
string option, the first one being the default of the ``seeds`` preset.

Options are never removed or renamed, only added. An option added after release 0.1.0 names the
release that added it (metadata ``"added"``) and has a *legacy value*, its first value: the reading
the engine played before the option existed. The canonical JSON leaves such an option out while it
has its legacy value, so adding an option never changes an existing config's JSON or fingerprint,
and [`RuleConfig.from_json`][allegra_rules.config.RuleConfig.from_json] accepts documents without it
(see [`LATER_OPTIONS`][allegra_rules.config.LATER_OPTIONS]).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

import attrs

from allegra_rules._fast import per_config
from allegra_rules.geometry import CELLS_PER_SEAT, MAX_SEATS

DEFAULT_DECK: tuple[tuple[int, int], ...] = (
    (-1, 6),
    (0, 7),
    (1, 8),
    (2, 10),
    (3, 11),
    (4, 12),
    (5, 12),
    (6, 12),
    (7, 11),
    (8, 10),
    (9, 8),
    (10, 7),
    (11, 6),
)
"""The assumed 120-card deck (A1): ``(value, copies)`` pairs, values -1..11.

The published deck's per-value counts are not public; this spread (middle values
commonest) is an assumption of the ``seeds`` preset.
"""

OPTION_CHOICES: dict[str, tuple[str, ...]] = {
    "reveal_area": ("zone", "own"),
    "first_player": ("rotate", "highest_reveal"),
    "discard_draw": ("must_swap", "may_discard"),
    "swap_area": ("zone", "own"),
    "knocking": ("always", "three_or_more", "never"),
    "knock_winner": ("drawer_chooses", "first_clockwise"),
    "take_given_card": ("allowed", "forbidden"),
    "take_area": ("zone", "own"),
    "row_match": ("anywhere", "adjacent"),
    "removed_cards": ("out_of_play", "discard"),
    "round_end": ("own_grid", "zone"),
    "ender_tie": ("not_doubled", "doubled"),
    "double_nonpositive": ("yes", "no"),
    "scoring_triples": ("kept", "removed"),
    "setup_reveals": ("in_turn", "simultaneous"),
}
"""Allowed values of every string option; the first is the ``seeds`` default."""

FIRST_RELEASE = "0.1.0"
"""The release whose options every config document must name (none may be left out)."""

Area = Literal["zone", "own"]
"""Where an area option lets a player act: its whole zone or only its own grid."""


def _choice(name: str) -> Any:
    allowed = OPTION_CHOICES[name]

    def check(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
        if not isinstance(value, str) or value not in allowed:
            shown = ", ".join(repr(v) for v in allowed)
            raise ValueError(
                f"RuleConfig.{attribute.name} must be one of {shown}; got {_short(value)}"
            )

    return check


def _plain(value: object) -> object:
    """The plain ``str`` of a ``str`` subclass (a StrEnum member, say); anything else as is.

    An option never stores an object whose comparisons or hash its own class decides.
    """
    if isinstance(value, str) and type(value) is not str:
        return str.__str__(value)
    return value


def _option(name: str, ambiguity: str, doc: str, added: str = FIRST_RELEASE) -> Any:
    metadata: dict[str, Any] = {
        "ambiguity": ambiguity,
        "doc": doc,
        "choices": OPTION_CHOICES[name],
        "added": added,
    }
    if added != FIRST_RELEASE:
        metadata["legacy"] = OPTION_CHOICES[name][0]
    return attrs.field(
        default=OPTION_CHOICES[name][0],
        converter=_plain,
        validator=_choice(name),
        metadata=metadata,
    )


MAX_CARD_VALUE = 1000
"""Card values must lie in ``-MAX_CARD_VALUE..MAX_CARD_VALUE``."""

MAX_DECK_SIZE = 10_000
"""The most cards a deck may hold."""

MAX_CONFIG_BYTES = 1024 * 1024
"""``RuleConfig.from_json`` rejects longer documents before parsing them (1 MiB)."""


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _seat_count(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if type(value) is not int or not 2 <= value <= MAX_SEATS:
        raise ValueError(
            f"RuleConfig.{attribute.name} must be an int 2..{MAX_SEATS}; got {_short(value)}"
        )


def _positive_int(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if type(value) is not int or value < 1:
        raise ValueError(f"RuleConfig.{attribute.name} must be an int >= 1; got {_short(value)}")


def _deck_converter(
    value: Mapping[int, int] | Iterable[tuple[int, int]],
) -> tuple[tuple[int, int], ...]:
    shape = "a mapping of card values to copy counts, or (value, copies) pairs"
    if isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, (list, tuple)):
        pairs = list(value)
    else:
        raise ValueError(f"RuleConfig.deck must be {shape}; got {_short(value)}")
    if len(pairs) > 2 * MAX_CARD_VALUE + 1:
        raise ValueError(f"RuleConfig.deck lists {len(pairs)} values; at most one per value")
    out: list[tuple[int, int]] = []
    total = 0
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise ValueError(f"RuleConfig.deck must be {shape}; got entry {_short(pair)}")
        card, copies = pair
        for what, x in (("card value", card), ("copy count", copies)):
            if type(x) is not int:
                raise ValueError(f"RuleConfig.deck: {what} must be an int; got {_short(x)}")
        if not -MAX_CARD_VALUE <= card <= MAX_CARD_VALUE:
            raise ValueError(
                f"RuleConfig.deck: card values must be {-MAX_CARD_VALUE}..{MAX_CARD_VALUE}; "
                f"got {_short(card)}"
            )
        if copies < 1:
            raise ValueError(
                f"RuleConfig.deck: value {card} must have at least 1 copy; got {copies}"
            )
        total += copies
        if total > MAX_DECK_SIZE:
            raise ValueError(f"RuleConfig.deck holds more than {MAX_DECK_SIZE} cards")
        out.append((card, copies))
    out.sort()
    values = [v for v, _ in out]
    if len(set(values)) != len(values):
        raise ValueError(f"RuleConfig.deck: a card value is listed twice in {values}")
    return tuple(out)


@attrs.frozen(kw_only=True, slots=True)
class RuleConfig:
    """Every rule option, frozen. ``RuleConfig()`` is the ``seeds`` preset.

    Each string option takes one of the values in
    [`OPTION_CHOICES`][allegra_rules.config.OPTION_CHOICES]; a wrong value raises ``ValueError``
    naming the field and the allowed values.

    Examples:
        >>> RuleConfig(knocking="never").knocking
        'never'
        >>> RuleConfig(row_match="diagonal")
        Traceback (most recent call last):
        ...
        ValueError: RuleConfig.row_match must be one of 'anywhere', 'adjacent'; got 'diagonal'
    """

    deck: tuple[tuple[int, int], ...] = attrs.field(
        default=DEFAULT_DECK,
        converter=_deck_converter,
        metadata={
            "added": FIRST_RELEASE,
            "ambiguity": "A1",
            "doc": "The cards: (value, copies) pairs; a dict value -> copies is accepted.",
        },
    )
    min_players: int = attrs.field(
        default=2,
        validator=_seat_count,
        metadata={
            "added": FIRST_RELEASE,
            "ambiguity": "A2",
            "doc": "Fewest seats a game may have (at least 2).",
        },
    )
    max_players: int = attrs.field(
        default=6,
        validator=_seat_count,
        metadata={"added": FIRST_RELEASE, "ambiguity": "A2", "doc": "Most seats a game may have."},
    )
    reveal_area: Area = _option(
        "reveal_area",
        "A6",
        "Where a player may reveal a card (setup and after a discard): "
        "anywhere in its zone, or only in its own grid.",
    )
    first_player: Literal["rotate", "highest_reveal"] = _option(
        "first_player",
        "A7",
        "Who takes the first turn of a round: the rotating start seat, or the highest "
        "sum of the two setup reveals.",
    )
    discard_draw: Literal["must_swap", "may_discard"] = _option(
        "discard_draw",
        "A9",
        "After taking the discard pile's top card: it must be swapped in, or it may "
        "also be thrown back with a reveal.",
    )
    swap_area: Area = _option(
        "swap_area",
        "A10",
        "Which cells a Swap may target (the drawer's and the knocker's): the zone, or "
        "the own grid.",
    )
    knocking: Literal["always", "three_or_more", "never"] = _option(
        "knocking",
        "A12",
        "When other players may knock for a card drawn from the draw pile.",
    )
    knock_winner: Literal["drawer_chooses", "first_clockwise"] = _option(
        "knock_winner",
        "A13",
        "With several knockers: the drawer picks one, or the first knock clockwise "
        "closes the window.",
    )
    take_given_card: Literal["allowed", "forbidden"] = _option(
        "take_given_card",
        "A15",
        "Whether the drawer may take back the very card it just gave.",
    )
    take_area: Area = _option(
        "take_area",
        "A16",
        "Where the drawer takes from in a knock exchange: the knocker's zone, or its own grid.",
    )
    row_match: Literal["anywhere", "adjacent"] = _option(
        "row_match",
        "A18",
        "A row triple: any three equal face-up cards of a 5-cell zone row, or three side by side.",
    )
    removed_cards: Literal["out_of_play", "discard"] = _option(
        "removed_cards",
        "A20",
        "Where the cards of a removed triple go.",
    )
    round_end: Literal["own_grid", "zone"] = _option(
        "round_end",
        "A22",
        "Which cells must all be face up (or gaps) to end the round: the own 12, or the zone's 15.",
    )
    ender_tie: Literal["not_doubled", "doubled"] = _option(
        "ender_tie",
        "A27",
        "A round-ender tied for the lowest sum: not doubled, or doubled.",
    )
    double_nonpositive: Literal["yes", "no"] = _option(
        "double_nonpositive",
        "A28",
        "Whether a round-ender's zero or negative sum is doubled too.",
    )
    scoring_triples: Literal["kept", "removed"] = _option(
        "scoring_triples",
        "A35",
        "Triples that appear when the face-down cards turn up at scoring: counted as "
        "they lie, or removed before the zones are summed.",
        added="0.2.0",
    )
    setup_reveals: Literal["in_turn", "simultaneous"] = _option(
        "setup_reveals",
        "A36",
        "The two setup reveals: one after another, each seen at once, or named in turn "
        "but kept face down until everyone has named, then turned up together.",
        added="0.2.0",
    )
    max_turns_per_round: int = attrs.field(
        default=500,
        validator=_positive_int,
        metadata={
            "added": FIRST_RELEASE,
            "ambiguity": "A30",
            "doc": "Turns after which a round ends with no ender and nobody doubled.",
        },
    )

    def __attrs_post_init__(self) -> None:
        if self.max_players < self.min_players:
            raise ValueError(
                f"RuleConfig.max_players must be >= min_players ({self.min_players}); "
                f"got {self.max_players}"
            )
        need = CELLS_PER_SEAT * self.min_players + 2
        if self.deck_size < need:
            raise ValueError(
                f"RuleConfig.deck has {self.deck_size} cards; min_players="
                f"{self.min_players} needs at least {need} (12 per player + 2)"
            )

    @property
    def deck_size(self) -> int:
        """The number of cards in the deck."""
        return _deck_facts(self)[0]

    def deck_cards(self) -> tuple[int, ...]:
        """Every card of the deck as a sorted tuple of values."""
        return _deck_facts(self)[1]

    def most_players(self) -> int:
        """The largest seat count this config can deal: ``max_players`` or fewer."""
        return min(self.max_players, (self.deck_size - 2) // CELLS_PER_SEAT)

    def to_dict(self, *, complete: bool = False) -> dict[str, Any]:
        """The options as plain JSON data; ``deck`` as ``{"-1": 6, "0": 7, ...}``.

        An option added after 0.1.0 is left out while it has its legacy value (unless ``complete``),
        so the data of a config that uses no later option is exactly what 0.1.0 wrote.
        [`to_json`][allegra_rules.config.RuleConfig.to_json] and the saved documents use this
        canonical form; ``complete=True`` lists every option, for display.
        """
        data: dict[str, Any] = {}
        for field in attrs.fields(RuleConfig):
            value = getattr(self, field.name)
            if field.name == "deck":
                value = {str(card): copies for card, copies in value}
            elif (
                not complete and field.name in LATER_OPTIONS and value == LATER_OPTIONS[field.name]
            ):
                continue
            data[field.name] = value
        return data

    @property
    def later_options(self) -> dict[str, str]:
        """The options added after 0.1.0 that differ from their legacy value.

        Empty when the config could have been written by release 0.1.0; saved
        documents of such a config keep the 0.1.0 format (schema version 1).

        Examples:
            >>> RuleConfig().later_options, RuleConfig(scoring_triples="removed").later_options
            ({}, {'scoring_triples': 'removed'})
        """
        return {
            name: value
            for name, legacy in LATER_OPTIONS.items()
            if (value := getattr(self, name)) != legacy
        }

    def to_json(self) -> str:
        """Canonical JSON: sorted keys, no whitespace."""
        import json  # here, not at the top: ``import allegra_rules`` stays light

        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @property
    def fingerprint(self) -> str:
        """The sha256 hex digest of ``to_json``: equal configs, equal prints."""
        import hashlib

        return hashlib.sha256(self.to_json().encode()).hexdigest()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RuleConfig:
        """Build a config from [`to_dict`][allegra_rules.config.RuleConfig.to_dict] data.

        Every option of release 0.1.0 is required; an option added later may be left
        out and then takes its legacy value. Unknown keys are rejected.
        """
        if not isinstance(data, Mapping):
            raise ValueError(f"RuleConfig data must be a JSON object; got {type(data).__name__}")
        names = [f.name for f in attrs.fields(RuleConfig)]
        unknown = sorted(set(data) - set(names), key=repr)
        missing = [n for n in names if n not in data and n not in LATER_OPTIONS]
        if unknown:
            raise ValueError(f"RuleConfig: unknown keys {unknown}; known keys are {names}")
        if missing:
            raise ValueError(f"RuleConfig: missing keys {missing}")
        kwargs = dict(data)
        deck = kwargs["deck"]
        if not isinstance(deck, Mapping):
            raise ValueError('RuleConfig.deck must be an object like {"-1": 6, "0": 7}')
        pairs = []
        for key, copies in deck.items():
            try:
                card = int(key)
            except (TypeError, ValueError):
                raise ValueError(f"RuleConfig.deck: card value {key!r} is not an int") from None
            if str(card) != key:
                raise ValueError(f"RuleConfig.deck: card value {key!r} is not canonical")
            pairs.append((card, copies))
        kwargs["deck"] = pairs
        return cls(**kwargs)

    @classmethod
    def from_json(cls, text: str | bytes) -> RuleConfig:
        """Parse ``to_json`` output; unknown or missing keys raise ``ValueError``.

        Raises:
            ValueError: ``text`` is not a str or bytes, longer than
                [`MAX_CONFIG_BYTES`][allegra_rules.config.MAX_CONFIG_BYTES], not JSON, or not a
                valid config; the message names the field.
        """
        import json

        if not isinstance(text, (str, bytes, bytearray)):
            raise ValueError(f"RuleConfig JSON must be a str or bytes; got {type(text).__name__}")
        if len(text) > MAX_CONFIG_BYTES:
            raise ValueError(f"RuleConfig JSON is longer than {MAX_CONFIG_BYTES} bytes")
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise ValueError(f"RuleConfig JSON does not parse: {exc}") from None
        return cls.from_dict(data)

    def options_differing_from(self, other: RuleConfig) -> dict[str, tuple[Any, Any]]:
        """``{field: (self's value, other's value)}`` for every field that differs.

        Raises:
            ValueError: ``other`` is not a ``RuleConfig``.
        """
        if not isinstance(other, RuleConfig):
            raise ValueError(f"other must be a RuleConfig; got {type(other).__name__}")
        return {
            f.name: (getattr(self, f.name), getattr(other, f.name))
            for f in attrs.fields(RuleConfig)
            if getattr(self, f.name) != getattr(other, f.name)
        }


LATER_OPTIONS: dict[str, str] = {
    field.name: field.metadata["legacy"]
    for field in attrs.fields(RuleConfig)
    if field.metadata.get("added", FIRST_RELEASE) != FIRST_RELEASE
}
"""Every option added after 0.1.0, with its legacy value (the reading of 0.1.0)."""

OPTION_ADDED: dict[str, str] = {
    field.name: field.metadata["added"] for field in attrs.fields(RuleConfig)
}
"""The release that added each option."""


def _make_deck_facts(config: RuleConfig) -> tuple[int, tuple[int, ...]]:
    """The deck's size and sorted cards, remembered for the last configs (frozen)."""
    cards = tuple(v for v, copies in config.deck for _ in range(copies))
    return len(cards), cards


_deck_facts = per_config(_make_deck_facts)


def draw_configs(seed: int, count: int) -> tuple[RuleConfig, ...]:
    """``count`` configs with every string option drawn at random, seeded by ``seed``.

    Each option of [`OPTION_CHOICES`][allegra_rules.config.OPTION_CHOICES] is drawn
    uniformly from its choices, in that dict's order; the deck, the seat range and the
    turn cap stay the defaults. Training (``allegra-rules train --rules random:K``) and
    the strength benchmark draw custom rules this way.

    Examples:
        >>> a, b = draw_configs(1, 2)
        >>> a != b, draw_configs(1, 2) == (a, b)
        (True, True)
    """
    if type(count) is not int or count < 0:
        raise ValueError(f"count must be an int of 0 or more; got {count!r}")
    import random  # here: ``import allegra_rules`` loads only the engine's modules

    rng = random.Random(seed)
    return tuple(
        RuleConfig(**{name: rng.choice(choices) for name, choices in OPTION_CHOICES.items()})  # type: ignore[arg-type]
        for _ in range(count)
    )
