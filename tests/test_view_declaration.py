"""What a seat may know is a function of the field declaration (``allegra_rules.fields``).

``observe``'s masking, ``determinize``'s sampling and the view codec read the state's and the
view's fields through the declaration; the server and the OpenSpiel observer ask
``allegra_rules.views`` which seats know a private card. These tests check that none of them
names a field, that a field added to the declaration is masked by the generic code, and that the
public helpers say what the masking does.
"""

from __future__ import annotations

import ast
import enum
import importlib.util
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest

from allegra_rules import GameState, RuleConfig, observe, preset
from allegra_rules import views as views_module
from allegra_rules._generate_fast import (
    _NOBODY_TEMPLATES,
    _OWNER_TEMPLATES,
    _VIEW_ONLY_TEMPLATES,
    NoTemplateError,
    observe_code,
)
from allegra_rules.fields import (
    FIELDS,
    STATE_FIELDS,
    VIEW_FIELDS,
    Kind,
    Owner,
    Seen,
    ViewField,
    ViewKind,
)
from allegra_rules.sampling import _plan_samples
from allegra_rules.views import (
    PRIVATE_CARD_FIELDS,
    _observe,
    _observe_by_plan,
    _plan_masks,
    private_cards,
    private_namings,
    private_seats,
)
from random_games import CONFIGS, exchange_states, game_states, players_for

SRC = Path(importlib.util.find_spec("allegra_rules").submodule_search_locations[0])  # type: ignore[arg-type,index,union-attr]

SECRECY_WORDS = frozenset(
    {f.name for f in STATE_FIELDS if f.seen is not Seen.EVERYONE}
    | {f.secret_when for f in STATE_FIELDS if f.secret_when}
    | {f.mask for f in STATE_FIELDS if f.mask}
    | {f.known_when for f in STATE_FIELDS if f.known_when}
    | {f.owner_field for f in STATE_FIELDS if f.owner_field}
)
"""The fields that decide what a seat may know: the hidden ones and the fields their rules read."""

ALLOWED: dict[str, frozenset[str]] = {
    # The server deals its games: a table is created with a seed, which it sends once the game is
    # over; that is the server's own record, not a view.
    "server": frozenset({"seed"}),
}


def _named_fields(tree: ast.AST, words: frozenset[str]) -> list[str]:
    """Each string constant, attribute access or keyword argument of ``tree`` that is a word."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in words:
            found.append(f"line {node.lineno}: {node.value!r}")
        elif isinstance(node, ast.Attribute) and node.attr in words:
            found.append(f"line {node.lineno}: .{node.attr}")
        elif isinstance(node, ast.keyword) and node.arg in words:
            found.append(f"line {node.lineno}: {node.arg}=")
    return found


def _module(path: str) -> ast.Module:
    return ast.parse((SRC / path).read_text(encoding="utf-8"))


def test_the_views_and_determinize_name_no_state_field() -> None:
    tree = _module("views.py")
    # PlayerView's class body declares its attributes (and its helpers read them); everything
    # else (masking, sampling, the codec, the type checks) goes through the declaration.
    tree.body = [
        node
        for node in tree.body
        if not (isinstance(node, ast.ClassDef) and node.name == "PlayerView")
    ]
    assert _named_fields(tree, frozenset(FIELDS)) == []
    assert _named_fields(_module("determinize.py"), frozenset(FIELDS)) == []
    assert _named_fields(_module("sampling.py"), frozenset(FIELDS)) == []


@pytest.mark.parametrize("path", sorted(p.name for p in (SRC / "server").glob("*.py")))
def test_the_server_names_no_secret_field(path: str) -> None:
    words = SECRECY_WORDS - ALLOWED["server"]
    assert _named_fields(_module(f"server/{path}"), words) == []


def test_the_openspiel_observer_asks_the_views_what_is_private() -> None:
    # The lazy deal (chance nodes) moves cards inside the engine state; what a seat observes, and
    # which cards a resampled state redraws, come from allegra_rules.views.
    tree = _module("adapters/openspiel.py")
    checked = {"set_from", "string_from", "resample_from_infostate"}
    methods = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name in checked
    ]
    assert {m.name for m in methods} == checked
    for method in methods:
        assert _named_fields(method, SECRECY_WORDS) == [], method.name


# ------------------------------------------------------------------ a synthetic declaration


@attrs.define
class _Thing:
    """A simple object with the fields of a small declaration."""

    num_players: int = 3
    prize: int | None = 7
    prize_secret: bool = True
    winner: int | None = 1
    deck: tuple[int, ...] = (5, 3, 4)
    deck_known: int = 0
    purse: int = 99


_PRIZE = attrs.evolve(
    FIELDS["held"],
    name="prize",
    secret_when="prize_secret",
    owner_field="winner",
    view=("prize_shown", "prize_hidden"),
)
_DECK = attrs.evolve(
    FIELDS["draw_pile"], name="deck", known_when="deck_known", view=("deck_size", "deck_cards")
)
_PURSE = attrs.evolve(FIELDS["seed"], name="purse", view=())  # nobody's; the view shows nothing
_SYNTHETIC = (
    attrs.evolve(FIELDS["num_players"]),
    _PRIZE,
    attrs.evolve(FIELDS["held_was_face_down"], name="prize_secret"),
    attrs.evolve(FIELDS["drawer"], name="winner"),
    _DECK,
    attrs.evolve(FIELDS["refills"], name="deck_known"),
    _PURSE,
)


def _masked(thing: _Thing, viewer: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for mask in _plan_masks(_SYNTHETIC, ()):
        mask(thing, viewer, out)
    return out


def test_an_added_owner_field_is_shown_to_its_owner_alone() -> None:
    thing = _Thing()
    assert _masked(thing, 1)["prize_shown"] == 7
    for viewer in (0, 2, None):
        masked = _masked(thing, viewer)
        assert (masked["prize_shown"], masked["prize_hidden"]) == (None, True)
    public = _masked(attrs.evolve(thing, prize_secret=False), None)
    assert (public["prize_shown"], public["prize_hidden"]) == (7, False)


def test_an_added_nobody_field_shows_only_what_is_declared() -> None:
    masked = _masked(_Thing(), 0)
    assert masked == {
        "prize_shown": None,
        "prize_hidden": True,
        "deck_size": 3,
        "deck_cards": None,
    }
    assert _masked(_Thing(deck_known=1), None)["deck_cards"] == (3, 4, 5)
    assert not any(99 in (v if isinstance(v, tuple) else (v,)) for v in masked.values())


def test_an_added_field_is_masked_by_the_generated_code_too() -> None:
    slots = tuple(name for f in _SYNTHETIC for name in f.view_fields)
    namespace: dict[str, Any] = {"Any": Any, "Callable": Callable}
    exec("\n".join(observe_code(_SYNTHETIC, (), slots)), namespace)

    class View:
        __slots__ = slots

    observe_thing = namespace["make_observe"](View, View, hide=None, legal=None, not_a_seat=None)
    for thing in (_Thing(), _Thing(deck_known=1), _Thing(prize_secret=False), _Thing(prize=None)):
        for viewer in (None, 0, 1, 2):
            view = observe_thing(thing, viewer)
            masked = _masked(thing, viewer)  # the plan's masked fields; the others are copied
            copied = {name: getattr(thing, name) for name in slots if name not in masked}
            assert {name: getattr(view, name) for name in slots} == {**copied, **masked}
            assert not hasattr(view, "purse")  # nobody's, and the view shows nothing of it


def test_an_added_field_is_sampled_back() -> None:
    counts, samples = _plan_samples(_SYNTHETIC)
    shown = {"prize_shown": None, "prize_hidden": True, "deck_size": 3, "deck_cards": None}
    view = attrs.make_class("View", list(shown))(**shown)
    assert sum(count(view) for count in counts) == 4  # the prize and three deck cards
    out: dict[str, Any] = {}
    deal = iter([10, 11, 12, 13])
    for sample in samples:
        sample(view, random.Random(0), deal, out)
    assert out["prize"] == 10 and out["deck"] == (11, 12, 13)
    assert type(out["purse"]) is int  # drawn afresh


# ------------------------------------------------------------------ the public helpers


def _states() -> list[GameState]:
    found = exchange_states(1) + exchange_states(4, 2)
    found += list(game_states(preset("seeds"), 3, 5))[::4]
    simultaneous = RuleConfig(setup_reveals="simultaneous", max_turns_per_round=6)
    found += list(game_states(simultaneous, 3, 2))[:40]
    return found


def test_private_cards_are_what_only_their_owner_sees() -> None:
    owned = (Owner.SEAT_FIELD, Owner.PAIR_SEAT)
    assert tuple(f.name for f in STATE_FIELDS if f.owned_by in owned) == PRIVATE_CARD_FIELDS
    some = 0
    for state in _states():
        public = observe(state, None)
        found = private_cards(state)
        seats = private_seats(state)
        assert seats == {seat for cards in found for seat, _ in cards if seat is not None}
        for seat in range(state.num_players):
            mine = observe(state, seat).own_private_cards()
            want = tuple(tuple(c for s, c in cards if s == seat) for cards in found)
            assert mine == want
            assert bool(any(mine)) == (seat in seats)
        assert public.own_private_cards() == ((),) * len(PRIVATE_CARD_FIELDS)
        some += bool(seats)
    assert some


def test_private_namings_are_each_seats_own_cells() -> None:
    some = 0
    for state in _states():
        named = private_namings(state)
        for seat in range(state.num_players):
            own = observe(state, seat).own_setup_named
            assert own == tuple(cell for s, cell in named if s == seat)
        some += bool(named)
    assert some


def test_every_hidden_field_has_a_rule() -> None:
    for field in STATE_FIELDS:
        if field.seen is Seen.OWNER:
            assert field.owned_by is not None, field.name
            if field.owned_by is not Owner.PAIR_SEAT:
                assert FIELDS[field.owner_field].kind in (Kind.OPT_SEAT, Kind.SEAT), field.name
        elif field.seen is Seen.FACE_UP:
            assert FIELDS[field.mask].kind is Kind.CELL_MASK, field.name
        elif field.seen is Seen.NOBODY and field.known_when:
            assert FIELDS[field.known_when].kind is Kind.REFILLS, field.name
        else:
            assert field.owned_by is None and not field.owner_field, field.name
    # Each view field names the state field it shows, and shows what that field declares.
    for view_field in VIEW_FIELDS:
        if view_field.shows:
            assert view_field.name in FIELDS[view_field.shows].view_fields, view_field.name


# ------------------------------------------------------------------ the generated observe


def _many_states() -> list[GameState]:
    """Every config of the random games, 2 to 6 seats, plus knock exchanges: about 3,000 states."""
    found = exchange_states(1) + exchange_states(4, 2) + exchange_states(7, 5)
    for k, name in enumerate(sorted(CONFIGS)):
        for seats in range(2, 7):
            n = players_for(CONFIGS[name], seats)
            found += list(game_states(CONFIGS[name], n, seed=100 * k + seats))[::3]
    return found


def test_the_generated_observe_gives_the_plans_views() -> None:
    # observe runs the code that _generate_fast writes from the declaration (_fast.make_observe);
    # the plan of one mask per rule (_plan_masks) is its reference definition.
    states = _many_states()
    assert len(states) > 1500
    seen = {"held_hidden": 0, "hidden_hand_card": 0, "own_setup_named": 0, "legal_actions": 0}
    for state in states:
        for viewer in (None, *range(state.num_players)):
            fast, plan = _observe(state, viewer), _observe_by_plan(state, viewer)
            assert type(fast) is type(plan)
            assert fast == plan, (viewer, state)
            assert observe(state, viewer) == plan
            seen["held_hidden"] += fast.held_hidden
            seen["hidden_hand_card"] += any(c is None for _, c in fast.in_hand)
            seen["own_setup_named"] += bool(fast.own_setup_named)
            seen["legal_actions"] += bool(fast.legal_actions)
    assert all(seen.values()), seen  # every rule was exercised both ways


def test_the_generated_observe_checks_the_viewer() -> None:
    state = next(game_states(preset("seeds"), 3, seed=1))
    for bad in (-1, 3, True, "0", 1.0):
        with pytest.raises(ValueError, match=r"player must be a seat 0\.\.2 or None"):
            observe(state, bad)  # type: ignore[arg-type]


def test_each_rule_of_the_plan_has_a_template() -> None:
    assert set(_OWNER_TEMPLATES) == set(views_module._OWNER_MASKS) == set(Owner)
    assert set(_NOBODY_TEMPLATES) == set(views_module._NOBODY_MASKS)
    assert set(_VIEW_ONLY_TEMPLATES) == {*views_module._VIEW_ONLY_MASKS, ViewKind.VIEWER}


class _NewRule(enum.Enum):
    SECOND_SEAT = "second_seat"


@pytest.mark.parametrize(
    ("fields", "view_fields", "message"),
    [
        pytest.param(
            (
                *STATE_FIELDS,
                attrs.evolve(FIELDS["held"], name="prize", owned_by=_NewRule.SECOND_SEAT),
            ),
            VIEW_FIELDS,
            r"no observe template for owned_by=<_NewRule\.SECOND_SEAT.*'prize'.*_OWNER_TEMPLATES",
            id="owner",
        ),
        pytest.param(
            (
                *STATE_FIELDS,
                attrs.evolve(FIELDS["refills"], name="bid", seen=Seen.NOBODY, view=("b",)),
            ),
            VIEW_FIELDS,
            r"no observe template for a Seen\.NOBODY field of <Kind\.REFILLS.*_NOBODY_TEMPLATES",
            id="nobody",
        ),
        pytest.param(
            (*STATE_FIELDS, attrs.evolve(FIELDS["refills"], name="bid", view=("b",))),
            VIEW_FIELDS,
            r"no observe template for seen=<Seen\.EVERYONE.*'bid'",
            id="public-with-view",
        ),
        pytest.param(
            STATE_FIELDS,
            (*VIEW_FIELDS, ViewField("hint", ViewKind.PILE_SIZE)),
            r"no observe template for a view-only field of <ViewKind\.PILE_SIZE.*'hint'",
            id="view-only",
        ),
    ],
)
def test_a_rule_without_a_template_fails_the_generator(
    fields: Any, view_fields: Any, message: str
) -> None:
    with pytest.raises(NoTemplateError, match=message):
        observe_code(fields, view_fields)


def test_the_generator_fills_each_view_slot_once() -> None:
    assert observe_code()  # the declaration as it is
    with pytest.raises(NoTemplateError, match=r"miss \['extra'\]"):
        observe_code(slots=(*(a.name for a in attrs.fields(views_module.PlayerView)), "extra"))
