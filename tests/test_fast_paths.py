"""The engine's fast paths agree with their plain definitions and leak nothing.

States are built on an unfrozen twin class whose ``__class__`` is then switched;
legal actions, the knock-exchange check, ``observe`` and ``state_to_json`` take
shortcuts; the top-level package loads most modules on first use. Each test here
compares a shortcut with the straightforward code it replaces, or checks that a
caller can tell nothing apart. All are cheap: speed itself is measured by
``benchmarks/playouts.py``, never here.
"""

from __future__ import annotations

import ast
import copy
import pickle
import random
import subprocess
import sys
import tracemalloc
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import allegra_rules
from allegra_rules import (
    GameState,
    Phase,
    PlayerView,
    RuleConfig,
    apply,
    legal_actions,
    new_game,
    observe,
    state_to_dict,
    state_to_json,
)
from allegra_rules import transitions as engine
from allegra_rules.actions import DRAW_DECK, DRAW_DISCARD, Action, action_table
from allegra_rules.geometry import geometry
from allegra_rules.serialize import SCHEMA_VERSIONS, dumps
from allegra_rules.shuffle import SplitMix64, shuffled, stream
from allegra_rules.state import _UnfrozenState, trusted_state
from allegra_rules.triples import find_triples, table_triples
from allegra_rules.views import _UnfrozenView
from helpers import forged
from random_games import CONFIGS, game_states

SRC = Path(allegra_rules.__file__).parent


@cache
def sample_states() -> tuple[GameState, ...]:
    """Every 3rd state of one biased random game per config, 2 to 6 players."""
    out: list[GameState] = []
    for k, (_, config) in enumerate(sorted(CONFIGS.items())):
        n = min(2 + k % 5, config.most_players())
        out.extend(list(game_states(config, n, seed=k))[::3])
    return tuple(out)


def with_gaps(state: GameState, rng: random.Random) -> GameState:
    """``state`` with a random set of cells made gaps (a table play could reach or not)."""
    cells = list(state.cells)
    face_down = state.face_down
    for i in rng.sample(range(len(cells)), rng.randrange(len(cells))):
        cells[i] = None
        face_down &= ~(1 << i)
    return forged(state, cells=tuple(cells), face_down=face_down)


# ------------------------------------------------------------- building states


def test_a_played_state_is_a_frozen_game_state() -> None:
    for state in sample_states()[::5]:
        assert type(state) is GameState
        assert not isinstance(state, _UnfrozenState)
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            state.round = 2  # type: ignore[misc]
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            state._legal = ()  # type: ignore[misc]
        with pytest.raises(AttributeError):
            state.extra = 1  # type: ignore[attr-defined]


def test_the_twin_has_exactly_the_state_slots() -> None:
    assert _UnfrozenState.__slots__ == GameState.__slots__
    assert "__weakref__" not in GameState.__slots__
    # The same base as the state (the accessors it shares with a view), with no slots of
    # its own: the two layouts are identical, so the builders may switch the class.
    assert _UnfrozenState.__bases__ == GameState.__bases__ == PlayerView.__bases__
    (base,) = GameState.__bases__
    assert base.__slots__ == () and base.__bases__ == (object,)
    assert _UnfrozenView.__slots__ == PlayerView.__slots__
    assert _UnfrozenView.__bases__ == PlayerView.__bases__


def test_played_states_equal_rebuilt_copied_and_pickled_ones() -> None:
    init = [f.name for f in attrs.fields(GameState) if f.init]
    for state in sample_states()[::7]:
        rebuilt = GameState(**{name: getattr(state, name) for name in init})
        for other in (
            rebuilt,
            attrs.evolve(state),
            copy.copy(state),
            copy.deepcopy(state),
            pickle.loads(pickle.dumps(state)),
        ):
            assert type(other) is GameState
            assert other == state
            assert hash(other) == hash(state)


def test_a_new_state_starts_without_legal_actions_and_caches_them() -> None:
    state = new_game(3, seed=4)
    for _ in range(60):
        assert state._legal is None
        legal = legal_actions(state)
        assert legal_actions(state) is legal
        state = apply(state, legal[-1])


def test_every_copy_helper_changes_only_what_it_is_given() -> None:
    state = next(s for s in sample_states() if s.phase is Phase.KNOCK)
    legal_actions(state)
    other = next(s for s in sample_states() if s.phase is Phase.HOLD_DECK and s != state)
    init = [f.name for f in attrs.fields(GameState) if f.init]

    def reference(**changes: object) -> GameState:
        # Every field given: the plain builder, not the copy helpers under test.
        return trusted_state(**{**{name: getattr(state, name) for name in init}, **changes})

    for k in range(0, len(init), 5):
        changes = {name: getattr(other, name) for name in init[k : k + 5]}
        assert engine._evolve(state, **changes) == reference(**changes)
    moved = engine._ask_next(state, current_player=other.current_player, knockers=(1,))
    assert moved == reference(current_player=other.current_player, knockers=(1,))
    assert moved._legal is None


def test_a_kept_history_costs_at_most_750_bytes_per_state() -> None:
    rng = random.Random(1)
    for _ in game_states(RuleConfig(), 4, seed=2):  # builds the tables kept for good
        pass
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        history = [new_game(4, seed=1)]
        while not history[-1].is_terminal:
            history.append(apply(history[-1], rng.choice(legal_actions(history[-1]))))
            legal_actions(history[-1])
        used = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert used / len(history) <= 750


# ------------------------------------------------------------------ the phases


def test_phases_hash_by_identity_and_stay_ten() -> None:
    assert len(Phase) == 10
    for phase in Phase:
        assert hash(phase) == object.__hash__(phase)
        assert Phase(phase.value) is phase
        assert pickle.loads(pickle.dumps(phase)) is phase


# ------------------------------------------------------ legal-action shortcuts


def _reference_swaps(state: GameState, player: int) -> tuple[Action, ...]:
    area = engine._area(geometry(state.num_players), player, state.config.swap_area)
    table = action_table(state.num_players).swap
    return tuple(table[i] for i in area if state.cells[i] is not None)


def _reference_draw(state: GameState) -> tuple[Action, ...]:
    out: list[Action] = []
    if state.draw_pile or len(state.discard_pile) >= 2:
        out.append(DRAW_DECK)
    if state.discard_pile:
        assert state.current_player is not None
        if state.config.discard_draw == "may_discard" or _reference_swaps(
            state, state.current_player
        ):
            out.append(DRAW_DISCARD)
    return tuple(out)


def _knock_states() -> Iterator[GameState]:
    """Hold-deck states with knockers, under every pair of swap and take areas."""
    for swap_area in ("zone", "own"):
        for take_area in ("zone", "own"):
            for taken_back in ("allowed", "forbidden"):
                config = RuleConfig(
                    swap_area=swap_area, take_area=take_area, take_given_card=taken_back
                )
                states = game_states(config, 4, seed=len(swap_area) + len(take_area))
                yield from [s for s in states if s.phase is Phase.HOLD_DECK and s.knockers][:6]


def test_the_exchange_check_agrees_with_the_full_check_with_any_gaps() -> None:
    rng = random.Random(5)
    checked = 0
    for base in _knock_states():
        for _ in range(12):
            state = with_gaps(base, rng) if checked % 4 else base
            drawer = state.current_player
            assert drawer is not None
            cards = len(_reference_swaps(state, drawer))
            for k in range(state.num_players):
                if k != drawer:
                    fast = engine._can_exchange(state, k, cards)
                    assert fast == bool(engine._knocker_swaps(state, k)), (state, k)
            checked += 1
    assert checked > 200


def test_swap_and_draw_actions_agree_with_their_definitions_with_any_gaps() -> None:
    rng = random.Random(6)
    for base in sample_states()[::4]:
        if base.current_player is None:
            continue
        state = with_gaps(base, rng)
        for seat in range(state.num_players):
            assert engine._swaps(state, seat) == _reference_swaps(state, seat)
        drawing = forged(state, phase=Phase.DRAW, held=None)
        assert legal_actions(drawing) == _reference_draw(drawing)


@given(st.integers(0, 2**32), st.sampled_from([2, 3, 6]), st.sampled_from(["anywhere", "adjacent"]))
def test_table_triples_finds_what_find_triples_finds_on_every_line(
    seed: int, n: int, row_match: str
) -> None:
    # Random tables with few values, so triples (face up, down or mixed) are common.
    rng = random.Random(seed)
    cells = tuple(None if rng.random() < 0.1 else rng.randrange(3) for _ in range(12 * n))
    face_down = rng.getrandbits(12 * n) & sum(1 << i for i, v in enumerate(cells) if v is not None)
    config = RuleConfig(row_match=row_match)
    lines = geometry(n).lines
    assert table_triples(config, cells, face_down) == find_triples(config, cells, face_down, lines)


def test_the_inlined_shuffle_draws_what_the_generator_draws() -> None:
    for seed in range(25):
        cards = list(range(seed * 5))
        fast, slow = stream(seed, "deal", 1), stream(seed, "deal", 1)
        order = list(cards)
        for i in range(len(order) - 1, 0, -1):
            j = slow.below(i + 1)
            order[i], order[j] = order[j], order[i]
        assert shuffled(cards, fast) == tuple(order)
        assert fast.next64() == slow.next64()
    rng = SplitMix64(2**64 - 1)
    assert sorted(shuffled(range(120), rng)) == list(range(120))


# -------------------------------------------------------- views and saved games


def _reference_view(state: GameState, player: int) -> PlayerView:
    down = tuple(bool((state.face_down >> i) & 1) for i in range(len(state.cells)))
    public = {
        f.name: getattr(state, f.name)
        for f in attrs.fields(PlayerView)
        if f.name in {g.name for g in attrs.fields(GameState)}
    }
    held = state.held
    hidden = held is not None and state.held_was_face_down and player != state.drawer
    return PlayerView(
        **{
            **public,
            "viewer": player,
            "cells": tuple(None if d else v for v, d in zip(state.cells, down, strict=True)),
            "face_down": down,
            "draw_pile_size": len(state.draw_pile),
            "draw_pile_cards": tuple(sorted(state.draw_pile)) if state.refills else None,
            "held": None if hidden else held,
            "held_hidden": hidden,
            "in_hand": tuple(
                (p, c if player == p or not state.hand_was_face_down else None)
                for p, c in state.in_hand
            ),
            "legal_actions": legal_actions(state) if player == state.current_player else (),
            "own_setup_named": tuple(
                cell
                for k, cell in enumerate(state.setup_named)
                if (state.start_seat + k // 2) % state.num_players == player
            ),
        }
    )


def test_observe_builds_the_view_the_plain_constructor_builds() -> None:
    exchanges = 0
    for state in sample_states()[::2]:
        exchanges += bool(state.in_hand)
        for seat in range(state.num_players):
            view = observe(state, seat)
            assert type(view) is PlayerView
            assert view == _reference_view(state, seat)
    assert exchanges > 0
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        view.viewer = 0  # type: ignore[misc]
    # The remembered answers are keyed by the cells tuple and the mask together.
    state = sample_states()[40]
    for other in (
        forged(state, face_down=state.face_down ^ 0b101),
        forged(state, cells=tuple(reversed(state.cells))),
        forged(state, face_down=0),
        state,
    ):
        assert observe(other, 0) == _reference_view(other, 0)


def test_state_to_json_writes_the_canonical_dump_of_state_to_dict() -> None:
    seen = set()
    versions = set()
    for state in sample_states():
        seen.add(state.phase)
        text = state_to_json(state)
        assert text == dumps(state_to_dict(state))
        versions.add(state_to_dict(state)["schema_version"])
    # A game started in version 1 (one stored by 0.1.0) is written in version 1.
    state = new_game(3, seed=5, schema_version=1)
    while not state.is_terminal:
        assert state_to_json(state) == dumps(state_to_dict(state))
        versions.add(state_to_dict(state)["schema_version"])
        state = apply(state, legal_actions(state)[-1])
    assert seen == set(Phase)
    assert versions == set(SCHEMA_VERSIONS)


def test_state_to_json_outside_the_number_table() -> None:
    config = RuleConfig(deck={-300: 20, 1000: 20, 7: 20})
    state = new_game(2, config=config, seed=2**63 + 5)
    state = apply(state, legal_actions(state)[0])
    assert state_to_json(state) == dumps(state_to_dict(state))
    # Equal configs that are different objects give the same text.
    twin = attrs.evolve(state, config=RuleConfig(deck={-300: 20, 1000: 20, 7: 20}))
    assert twin.config is not state.config
    assert state_to_json(twin) == state_to_json(state)
    # A state cannot even hold bits beyond the table's cells.
    with pytest.raises(ValueError, match=r"\$\.face_down: must be in 0\.\."):
        attrs.evolve(state, face_down=state.face_down | 1 << 30)


# --------------------------------------------------------------------- imports


@pytest.mark.installed
def test_importing_the_package_loads_only_the_engine() -> None:
    code = (
        "import sys, allegra_rules; "
        "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('allegra_rules', 'xml', 'urllib', 'http', 'ssl', 'json', 'hashlib', 'random') "
        # allegra_rules.determinize is registered, not executed (see __init__._shadow_free)
        "and type(sys.modules[m]).__name__ != '_LazyModule')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    # The state's checks and JSON (state_checks, state_codec, jsondoc, and json) load when first
    # used: the engine itself never needs them.
    engine_modules = {"allegra_rules"} | {
        f"allegra_rules.{m}"
        for m in (
            "_fast",
            "_fast_builders",
            "actions",
            "config",
            "geometry",
            "knocking",
            "presets",
            "round_end",
            "scoring",
            "shuffle",
            "state",
            "transitions",
            "triples",
            "value_checks",
        )
    }
    assert set(out) == engine_modules
    # The submodules the package used to import eagerly are still its attributes.
    code = "import allegra_rules as a; print(a.svg.render_svg is a.render_svg, a.serialize.dumps)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("True <function dumps")
    # A submodule named like one of the package's names does not hide that name.
    code = (
        "import allegra_rules.determinize, allegra_rules as a; from allegra_rules import "
        "determinize; print(determinize is a.determinize is a.determinize.__globals__"
        "['determinize'], callable(determinize))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True"]


@pytest.mark.installed
def test_every_public_name_imports_from_the_top_level() -> None:
    for name in allegra_rules.__all__:
        assert getattr(allegra_rules, name) is not None, name
        assert name in dir(allegra_rules)
    namespace: dict[str, object] = {}
    exec("from allegra_rules import *", namespace)
    assert set(allegra_rules.__all__) <= set(namespace)
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        allegra_rules.nonexistent  # type: ignore[attr-defined]  # noqa: B018


@pytest.mark.installed
def test_type_checkers_see_every_lazy_name() -> None:
    """Each lazily loaded name is imported, for type checkers, from its module."""
    tree = ast.parse((SRC / "__init__.py").read_text(encoding="utf-8"))
    checked: dict[str, str] = {}
    eager: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for sub in node.body:
                assert isinstance(sub, ast.ImportFrom) and sub.module is not None
                checked.update((alias.name, sub.module) for alias in sub.names)
        elif isinstance(node, ast.ImportFrom):
            names = (alias.asname or alias.name for alias in node.names)
            eager.update(name for name in names if not name.startswith("_"))
    lazy = allegra_rules._LAZY
    assert {name: f"allegra_rules.{module}" for name, module in lazy.items()} == checked
    assert set(allegra_rules.__all__) - {"__version__"} == eager - {"TYPE_CHECKING"} | set(lazy)
