"""The deck-free network input (allegra_rules.network_input): sizes, blocks, rules vector."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from allegra_rules import (
    OPTION_CHOICES,
    GameState,
    RuleConfig,
    apply,
    legal_actions,
    new_game,
    observe,
    preset,
)
from allegra_rules.features import Encoder
from allegra_rules.network_input import (
    CARD_SLOTS,
    RULE_INPUTS,
    SLOT_LOW,
    NetworkInput,
    card_slots,
    rules_vector,
    value_magnitude,
)
from allegra_rules.presets import preset_names

DECKS = {
    "default": None,
    "two values": {0: 40, 50: 40},
    "wide": dict.fromkeys(range(-1000, 1001, 10), 3),
    "negative": {-20: 30, -3: 30, 7: 30},
    "one value": {4: 80},
    "skyjo": dict.fromkeys(range(-2, 13), 10),
}


def random_config(rng: random.Random, deck: dict[int, int] | None = None) -> RuleConfig:
    """A config with every option drawn by ``rng`` (and ``deck`` when given)."""
    options: dict[str, object] = {name: rng.choice(c) for name, c in OPTION_CHOICES.items()}
    options["max_turns_per_round"] = rng.choice([20, 500])
    if deck is not None:
        options["deck"] = deck
    return RuleConfig(**options)  # type: ignore[arg-type]


def states_of(config: RuleConfig, n: int, seed: int, every: int = 7) -> list[GameState]:
    """Every ``every``-th state of a random-play game (every phase comes up)."""
    rng = random.Random(seed)
    state = new_game(n, seed=seed, config=config)
    out = []
    while not state.is_terminal:
        if len(out) < 10_000 and rng.random() < 1 / every:
            out.append(state)
        state = apply(state, rng.choice(legal_actions(state)))
    return out


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_the_size_depends_on_the_seat_count_alone(n: int) -> None:
    rng = random.Random(n)
    sizes = {NetworkInput(random_config(rng, deck), n).size for deck in DECKS.values()}
    sizes |= {NetworkInput(preset(name), n).size for name in preset_names()}
    assert len(sizes) == 1
    enc = Encoder(RuleConfig(), n)
    k = len(enc.values)
    cards, counts = 12 * n + 5, 4
    rules = len(rules_vector(RuleConfig()))
    expected = enc.size - (cards + counts) * k + cards * (CARD_SLOTS + 1) + counts * CARD_SLOTS
    assert sizes == {expected + rules}


def test_card_slots() -> None:
    assert card_slots(RuleConfig()) == tuple(v - SLOT_LOW for v, _ in RuleConfig().deck)
    assert card_slots(RuleConfig(deck={-2: 40, 13: 40})) == (0, CARD_SLOTS - 1)
    # A deck past -2..13 is spread over the slots by value, its ends on the end slots.
    assert card_slots(RuleConfig(deck={-3: 40, 13: 40})) == (0, CARD_SLOTS - 1)
    assert card_slots(RuleConfig(deck={0: 30, 10: 30, 100: 30})) == (0, 2, 15)
    assert card_slots(RuleConfig(deck={4: 80})) == (6,)
    wide = card_slots(RuleConfig(deck=DECKS["wide"]))
    assert list(wide) == sorted(wide) and wide[0] == 0 and wide[-1] == CARD_SLOTS - 1


def test_the_magnitude_grows_with_the_value() -> None:
    values = list(range(-1000, 1001))
    squashed = [value_magnitude(v) for v in values]
    assert all(0.0 < a < b < 1.0 for a, b in itertools.pairwise(squashed))


def test_the_rules_vector_names_each_choice() -> None:
    base = rules_vector(RuleConfig())
    width = sum(len(choices) for _, choices in RULE_INPUTS)
    assert all(0.0 <= x <= 1.0 for x in base)
    offset = 0
    for name, choices in RULE_INPUTS:
        for j, choice in enumerate(choices):
            vec = rules_vector(RuleConfig(**{name: choice}))  # type: ignore[arg-type]
            part = vec[offset : offset + len(choices)]
            assert part == [1.0 if i == j else 0.0 for i in range(len(choices))], name
            assert vec[width:] == base[width:]
        offset += len(choices)
    # An option the list does not name is left out; a choice it does not name is zeros.
    short = rules_vector(RuleConfig(knocking="never"), [("knocking", ("always",))])
    assert short[:1] == [0.0] and len(short) == 1 + 1 + CARD_SLOTS + 3
    # The deck's share per slot adds up to 1; the turn cap and the deck are read.
    tail = base[width:]
    assert sum(tail[1 : 1 + CARD_SLOTS]) == pytest.approx(1.0)
    assert rules_vector(RuleConfig(max_turns_per_round=50))[width] != tail[0]
    wide = rules_vector(RuleConfig(deck=DECKS["wide"]))
    assert wide[-1] == 1.0 and tail[-1] == 0.0


def _blocks_check(config: RuleConfig, n: int, seed: int) -> int:
    """Check every state of a random game; return how many were checked."""
    inp = NetworkInput(config, n)
    enc = inp.encoder
    blocks = inp.blocks()
    k = len(enc.values)
    slots = card_slots(config)
    slot_copies = Counter()
    for s, c in zip(slots, enc.copies, strict=True):
        slot_copies[s] += c
    checked = 0
    for state in states_of(config, n, seed):
        seat = state.current_player if state.current_player is not None else 0
        view = observe(state, seat)
        x = enc.features(view)
        vec = inp.features(view)
        assert len(vec) == inp.size and min(vec) >= 0.0 and max(vec) <= 1.0 + 1e-9
        out = [x[i] for i in blocks["pass"]]
        assert vec[: len(out)] == out
        at = len(out)
        for rows in blocks["cards"]:
            part = vec[at : at + CARD_SLOTS + 1]
            values = [x[i] for i in rows]  # type: ignore[union-attr]
            assert set(values) <= {0.0, 1.0} and sum(values) <= 1.0  # a value one-hot
            held = [enc.values[j] for j in range(k) if values[j]]
            expected = [0.0] * (CARD_SLOTS + 1)
            for v in held:
                expected[slots[enc.values.index(v)]] = 1.0
                expected[CARD_SLOTS] = value_magnitude(v)
            assert part == pytest.approx(expected)
            at += CARD_SLOTS + 1
        for rows in blocks["counts"]:
            part = vec[at : at + CARD_SLOTS]
            cards = [x[i] * c for i, c in zip(rows, enc.copies, strict=True)]  # type: ignore[arg-type]
            for s in range(CARD_SLOTS):
                in_slot = sum(c for c, t in zip(cards, slots, strict=True) if t == s)
                want = in_slot / slot_copies[s] if slot_copies[s] else 0.0
                assert part[s] == pytest.approx(want)
            at += CARD_SLOTS
        assert vec[at:] == rules_vector(config)
        checked += 1
    return checked


@pytest.mark.parametrize("deck", list(DECKS))
def test_each_block_is_written_over_the_slots(deck: str) -> None:
    rng = random.Random(deck)
    n = 2 if deck in ("wide", "one value") else 3
    assert _blocks_check(random_config(rng, DECKS[deck]), n, seed=len(deck)) > 10


def test_the_blocks_cover_every_value_entry_of_the_features() -> None:
    """Every entry that depends on the deck's values lies in a block; no block overlaps."""
    for n in (2, 5):
        inp = NetworkInput(RuleConfig(), n)
        blocks = inp.blocks()
        rows = [i for row in (*blocks["cards"], *blocks["counts"]) for i in row]  # type: ignore[misc]
        assert len(rows) == len(set(rows))
        assert sorted([*rows, *blocks["pass"]]) == list(range(inp.encoder.size))  # type: ignore[misc]
        # The same game on a deck of one more value: only the blocks grow.
        wider = NetworkInput(RuleConfig(deck={**dict(RuleConfig().deck), 12: 5}), n)
        assert len(wider.blocks()["pass"]) == len(blocks["pass"])


def test_a_view_is_read_through_the_encoder_alone() -> None:
    """Two views with the same features get the same input: nothing else is read."""
    state = states_of(RuleConfig(), 4, 5)[20]
    inp = NetworkInput(RuleConfig(), 4)
    view = observe(state, state.current_player)
    assert inp.features(view) == inp.vector(inp.encoder.features(view))
    with pytest.raises(ValueError, match="entries"):
        inp.vector([0.0] * 3)
