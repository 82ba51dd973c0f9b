"""Helpers for scenario tests: stacked decks and short action scripts."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

import attrs
import pytest

from allegra_rules import (
    Action,
    Discard,
    DrawDeck,
    DrawDiscard,
    GameState,
    Give,
    Knock,
    Pass,
    Phase,
    Pos,
    Reveal,
    RuleConfig,
    Swap,
    Take,
    apply,
    json_schema,
    legal_actions,
    new_game,
)
from allegra_rules.geometry import CELLS_PER_SEAT
from allegra_rules.state import trusted_evolve


@cache
def schema_validator(kind: str) -> Any:
    """A JSON Schema validator of the shipped ``kind`` schema; skips without jsonschema."""
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema (the test extra) is needed")
    return jsonschema.Draft202012Validator(json_schema(kind))


def thorough_run() -> bool:
    """Whether this is the deep test run (``pytest --thorough`` or ``ALLEGRA_THOROUGH=1``)."""
    return os.environ.get("ALLEGRA_THOROUGH") == "1"


Grid = Sequence[Sequence[int]]


def stack_deck(
    config: RuleConfig,
    num_players: int,
    grids: Mapping[int, Grid] | None = None,
    *,
    discard: int | None = None,
    draw: Sequence[int] = (),
) -> list[int]:
    """A full deck in deal order that gives the wanted table.

    ``grids[seat]`` is a 3x4 list of rows for that seat (seats not given get
    whatever cards are left); ``discard`` is the first discard card; ``draw`` the top
    of the draw pile, top first. Every other card is filled in ascending order.
    """
    grids = grids or {}
    pool = Counter(config.deck_cards())

    def take(card: int) -> int:
        if pool[card] <= 0:
            raise ValueError(f"the deck has no card {card} left to stack")
        pool[card] -= 1
        return card

    chosen: dict[int, list[int]] = {}
    for seat, grid in grids.items():
        assert len(grid) == 3 and all(len(row) == 4 for row in grid), grid
        chosen[seat] = [take(c) for row in grid for c in row]
    top = take(discard) if discard is not None else None
    draw_top = [take(c) for c in draw]
    rest = sorted(pool.elements())

    def filler(count: int) -> list[int]:
        out = rest[:count]
        del rest[:count]
        return out

    deck: list[int] = []
    for seat in range(num_players):
        deck.extend(chosen.get(seat) or filler(CELLS_PER_SEAT))
    deck.append(top if top is not None else filler(1)[0])
    deck.extend(draw_top)
    deck.extend(rest)
    assert Counter(deck) == Counter(config.deck_cards())
    return deck


def play(state: GameState, actions: Iterable[Action]) -> GameState:
    """Apply ``actions`` in order, checking each is listed by ``legal_actions``."""
    for action in actions:
        assert action in legal_actions(state), (action, state.phase, legal_actions(state))
        state = apply(state, action)
    return state


def setup_reveals(state: GameState, picks: Mapping[int, Sequence[Pos]] | None = None) -> GameState:
    """Run the setup: each seat reveals ``picks[seat]`` (default: its own (2,0) and (2,1))."""
    picks = picks or {}
    while state.setup_reveals < 2 * state.num_players:
        seat = state.current_player
        assert seat is not None
        choice = picks.get(seat, (Pos(seat, 2, 0), Pos(seat, 2, 1)))
        done_by_seat = state.setup_reveals % 2
        state = play(state, [_reveal(choice[done_by_seat])])
    return state


def _reveal(pos: Pos) -> Action:
    from allegra_rules import Reveal

    return Reveal(pos)


def game(
    num_players: int,
    grids: Mapping[int, Grid] | None = None,
    *,
    config: RuleConfig | None = None,
    discard: int | None = None,
    draw: Sequence[int] = (),
    seed: int | None = 1,
) -> GameState:
    """A new game dealt from a stacked deck (see :func:`stack_deck`)."""
    config = config or RuleConfig()
    deck = stack_deck(config, num_players, grids, discard=discard, draw=draw)
    return new_game(num_players, config=config, deck=deck, seed=seed)


def own(p: int) -> list[Pos]:
    """Seat ``p``'s 12 own cells, row by row."""
    return [Pos(p, r, c) for r in range(3) for c in range(4)]


def pass_window(state: GameState) -> GameState:
    """Everyone asked in a knock window passes."""
    while state.phase is Phase.KNOCK:
        state = play(state, [Pass()])
    return state


def all_actions(n: int) -> list[Action]:
    """Every action that could ever be legal at an n-seat table, plus a foreign seat's."""
    out: list[Action] = [DrawDeck(), DrawDiscard(), Knock(), Pass(), Discard()]
    out += [Give(k) for k in range(n + 1)]
    for p in range(n + 1):
        for r in range(3):
            for c in range(4):
                pos = Pos(p, r, c)
                out += [Reveal(pos), Swap(pos), Take(pos)]
    return out


def snapshot(state: GameState) -> dict[str, object]:
    """Every public field (the hidden legal-action memo is not part of the state)."""
    return attrs.asdict(state, recurse=False, filter=lambda field, _: field.eq)


def cards_of(state: GameState) -> Counter[int]:
    """Every card of ``state`` wherever it lies, counted independently of the engine."""
    found: Counter[int] = Counter(v for v in state.cells if v is not None)
    found.update(state.draw_pile)
    found.update(state.discard_pile)
    found.update(state.out_of_play)
    found.update(card for _, card in state.in_hand)
    if state.held is not None:
        found[state.held] += 1
    return found


def forged(state: GameState, **changes: Any) -> GameState:
    """``state`` with ``changes``, built without any check, as a forged document would be.

    ``attrs.evolve`` checks the new state (``GameState(...)`` runs ``check_state``); tests
    of the checks themselves need the state they are to refuse.
    """
    return trusted_evolve(state, **changes)
