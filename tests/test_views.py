"""Player views: exactly what a seat may know, nothing more, and their JSON."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from allegra_rules import (
    DrawDeck,
    GameState,
    Give,
    Knock,
    Pass,
    Phase,
    PlayerView,
    Pos,
    RuleConfig,
    SaveFormatError,
    Swap,
    Take,
    apply,
    determinize,
    legal_actions,
    observe,
    preset,
    state_from_dict,
    state_to_dict,
)
from allegra_rules.serialize import schema_version_for
from helpers import game, schema_validator, setup_reveals
from random_games import CONFIGS, SMALL_DECK, exchange_states, game_states, play, states

G0 = [[-1, 0, 1, 2], [3, 4, 5, 6], [7, 8, 9, 10]]
G1 = [[11, 10, 9, 8], [7, 6, 5, 4], [3, 2, 1, 0]]
G2 = [[2, 3, 4, 5], [6, 7, 8, 9], [10, 11, -1, 0]]


def exchange_script() -> list[GameState]:
    """Seat 0 draws a 4; seat 1 knocks and gets it, swapping out its face-down 11 at
    (1,0,0); seat 0 takes the face-down 6 at (1,1,1) and swaps it onto (0,0,0)."""
    state = setup_reveals(game(3, {0: G0, 1: G1, 2: G2}, discard=5, draw=[4]))
    out = [state]
    for action in [
        DrawDeck(),
        Knock(),
        Pass(),
        Give(1),
        Swap(Pos(1, 0, 0)),
        Take(Pos(1, 1, 1)),
        Swap(Pos(0, 0, 0)),
    ]:
        assert action in legal_actions(out[-1]), (action, out[-1].phase)
        out.append(apply(out[-1], action))
    return out


# ---------------------------------------------------------------- hand-checked


def test_a_fresh_deal_hides_every_card() -> None:
    state = game(3, {0: G0, 1: G1, 2: G2}, discard=5, draw=[4])
    for seat in range(3):
        view = observe(state, seat)
        assert view.viewer == seat
        assert view.cells == (None,) * 36
        assert view.face_down == (True,) * 36
        assert view.draw_pile_size == 120 - 36 - 1
        assert view.draw_pile_cards is None
        assert view.discard_pile == (5,)
        assert view.held is None and not view.held_hidden
        assert view.phase is Phase.SETUP and view.current_player == 0
        assert view.is_my_turn == (seat == 0)
        assert (view.legal_actions != ()) == (seat == 0)
        assert view.is_hidden(Pos(1, 1, 1)) and not view.is_gap(Pos(1, 1, 1))


def test_setup_reveals_are_public() -> None:
    state = exchange_script()[0]
    for seat in range(3):
        view = observe(state, seat)
        assert view.card(Pos(0, 2, 0)) == 7 and view.card(Pos(0, 2, 1)) == 8
        assert view.card(Pos(1, 2, 0)) == 3 and view.card(Pos(2, 2, 1)) == 11
        assert view.card(Pos(0, 0, 0)) is None and view.is_hidden(Pos(0, 0, 0))
        assert view.setup_sums == (15, 5, 21)
        assert sum(view.face_down) == 36 - 6


@pytest.mark.rule("R9.7")
def test_knock_exchange_shows_each_card_to_exactly_who_saw_it() -> None:
    _, drawn, knocked, passed, given, swapped, taken, done = exchange_script()
    # The drawn card is shown to everyone while it is held.
    for state in (drawn, knocked, passed, given):
        assert state.held == 4
        for seat in range(3):
            assert observe(state, seat).held == 4
            assert not observe(state, seat).held_hidden
    assert observe(knocked, 2).knockers == (1,)
    assert observe(passed, 0).knockers == (1,)
    # The knocker's replaced card lay face down: only the knocker saw it.
    assert swapped.phase is Phase.TAKE and swapped.hand_was_face_down
    assert observe(swapped, 1).in_hand == ((1, 11),)
    assert observe(swapped, 0).in_hand == ((1, None),)
    assert observe(swapped, 2).in_hand == ((1, None),)
    for seat in range(3):
        assert observe(swapped, seat).card(Pos(1, 0, 0)) == 4
        assert observe(swapped, seat).given_at == 12
    # The card the drawer took lay face down: only the drawer sees it while held.
    assert taken.phase is Phase.HOLD_TAKEN and taken.held_was_face_down
    assert observe(taken, 0).held == 6 and not observe(taken, 0).held_hidden
    for seat in (1, 2):
        assert observe(taken, seat).held is None and observe(taken, seat).held_hidden
        assert observe(taken, seat).is_gap(Pos(1, 1, 1))
    assert observe(taken, 1).in_hand == ((1, 11),)
    assert observe(taken, 2).in_hand == ((1, None),)
    # Once the exchange is over every moved card lies face up or on the pile.
    for seat in range(3):
        view = observe(done, seat)
        assert view.card(Pos(0, 0, 0)) == 6
        assert view.card(Pos(1, 1, 1)) == 11
        assert view.card(Pos(1, 0, 0)) == 4
        assert view.discard_pile == (5, -1)
        assert view.in_hand == () and view.held is None and not view.held_hidden


def test_a_face_up_take_is_public() -> None:
    swapped = exchange_script()[5]
    taken = apply(swapped, Take(Pos(1, 2, 0)))  # the 3 revealed in setup
    assert not taken.held_was_face_down
    for seat in range(3):
        assert observe(taken, seat).held == 3


def test_legal_actions_only_for_the_seat_to_act() -> None:
    for state in exchange_script():
        for seat in range(3):
            view = observe(state, seat)
            if seat == state.current_player:
                assert view.legal_actions == legal_actions(state)
                assert view.legal_actions
            else:
                assert view.legal_actions == ()


def test_the_refilled_draw_pile_is_known_as_a_multiset() -> None:
    previous = None
    for state in game_states(SMALL_DECK, 2, seed=5):
        if state.refills == 1 and previous is not None and previous.refills == 0:
            break
        assert observe(state, 0).draw_pile_cards is None
        previous = state
    else:
        raise AssertionError("no refill")
    assert previous is not None
    # The refill shuffled every discard card but the top; the drawer drew one of them.
    expected = Counter(previous.discard_pile[:-1])
    assert state.held is not None
    expected[state.held] -= 1
    for seat in range(2):
        view = observe(state, seat)
        assert view.draw_pile_cards == tuple(sorted(expected.elements()))
        assert view.draw_pile_size == len(state.draw_pile)
        assert view.discard_pile == previous.discard_pile[-1:]


def test_observe_rejects_bad_seats() -> None:
    state = play(preset("seeds"), 3, seed=1, steps=3)
    for bad in (-1, 3, True, "0", 1.0):
        with pytest.raises(ValueError, match="seat"):
            observe(state, bad)  # type: ignore[arg-type]
    assert observe(state, None).viewer is None  # None is the public view
    with pytest.raises(ValueError, match="GameState"):
        observe("state", 0)  # type: ignore[arg-type]


# -------------------------------------------------------------- by construction


def _check_hides(state: GameState, view: PlayerView) -> None:
    n = state.num_players
    for i, value in enumerate(state.cells):
        down = bool((state.face_down >> i) & 1)
        assert view.face_down[i] == down
        assert view.cells[i] == (None if down else value)
    assert not hasattr(view, "seed") and not hasattr(view, "draw_pile")
    data = view.to_dict()
    assert "seed" not in data and "draw_pile" not in data
    assert view.draw_pile_size == len(state.draw_pile)
    assert len(view.cells) == 12 * n


@given(states(), st.integers(0, 5))
def test_no_view_shows_a_face_down_card(state: GameState, seat: int) -> None:
    seat %= state.num_players
    _check_hides(state, observe(state, seat))


# ------------------------------------------------------------- non-interference


def _hidden_from(state: GameState, seat: int) -> tuple[list[tuple[str, int]], bool]:
    """Every place whose card ``seat`` cannot see (and whether the draw pile is public)."""
    places = [("cell", i) for i in range(len(state.cells)) if (state.face_down >> i) & 1]
    if state.held is not None and state.held_was_face_down and seat != state.drawer:
        places.append(("held", 0))
    if state.in_hand and state.hand_was_face_down and state.in_hand[0][0] != seat:
        places.append(("hand", 0))
    draw_public = state.refills > 0
    if not draw_public:
        places += [("draw", i) for i in range(len(state.draw_pile))]
    return places, draw_public


def _rearranged(state: GameState, seat: int, rng: random.Random) -> GameState:
    """``state`` with every card hidden from ``seat`` shuffled among the hidden places."""
    places, draw_public = _hidden_from(state, seat)
    cells = list(state.cells)
    draw = list(state.draw_pile)
    held = state.held
    hand = list(state.in_hand)

    def read(kind: str, i: int) -> int:
        value = {"cell": lambda: cells[i], "draw": lambda: draw[i], "held": lambda: held}.get(
            kind, lambda: hand[0][1]
        )()
        assert value is not None
        return value

    cards = [read(k, i) for k, i in places]
    rng.shuffle(cards)
    for (kind, i), card in zip(places, cards, strict=True):
        if kind == "cell":
            cells[i] = card
        elif kind == "draw":
            draw[i] = card
        elif kind == "held":
            held = card
        else:
            hand[0] = (hand[0][0], card)
    if draw_public:
        rng.shuffle(draw)  # the order stays hidden even when the cards are known
    return attrs.evolve(
        state,
        cells=tuple(cells),
        draw_pile=tuple(draw),
        held=held,
        in_hand=tuple(hand),
        seed=rng.getrandbits(64),
        setup_named=_renamed(state, seat, rng),
    )


def _renamed(state: GameState, seat: int, rng: random.Random) -> tuple[int, ...]:
    """A simultaneous setup's namings with every other seat's cells drawn anew."""
    n = state.num_players
    named: list[int] = []
    for k, cell in enumerate(state.setup_named):
        namer = (state.start_seat + k // 2) % n
        if namer == seat:
            named.append(cell)
            continue
        area = [p.index for p in state.zone(namer)]
        if state.config.reveal_area == "own":
            area = [i for i in area if i // 12 == namer]
        named.append(rng.choice([i for i in area if not (k % 2 and i == named[-1])]))
    return tuple(named)


@given(states(), st.integers(0, 5), st.randoms(use_true_random=False))
def test_cards_hidden_from_a_seat_do_not_change_its_view(
    state: GameState, seat: int, rng: random.Random
) -> None:
    seat %= state.num_players
    other = _rearranged(state, seat, rng)
    # The rearranged state is a valid game state too (same public facts).
    state_from_dict(state_to_dict(other))
    assert other.all_cards() == state.all_cards()
    assert observe(other, seat) == observe(state, seat)
    assert observe(other, seat).to_json() == observe(state, seat).to_json()


def test_non_interference_during_exchanges() -> None:
    rng = random.Random(1)
    checked = 0
    for state in exchange_states(seed=3) + exchange_script():
        for seat in range(state.num_players):
            other = _rearranged(state, seat, rng)
            assert observe(other, seat) == observe(state, seat)
            checked += other != state
    assert checked > 10


@pytest.mark.rule("R4.5")
def test_nobody_sees_which_cells_the_others_named() -> None:
    config = RuleConfig(setup_reveals="simultaneous")
    rng = random.Random(5)
    checked = 0
    for n in (2, 3, 6):
        states_seen = list(game_states(config, n, seed=n))[: 2 * n]
        assert all(s.phase is Phase.SETUP for s in states_seen)
        for state in states_seen:
            assert len(state.setup_named) == state.setup_reveals
            for seat in range(n):
                other = _rearranged(state, seat, rng)
                state_from_dict(state_to_dict(other))
                assert observe(other, seat) == observe(state, seat)
                checked += other.setup_named != state.setup_named
        # The converse: the namer itself knows what it named.
        last = states_seen[-1]
        namer = (last.start_seat + (last.setup_reveals - 1) // 2) % n
        assert observe(last, namer).own_setup_named
    assert checked > 20


def test_a_view_whose_own_namings_do_not_match_the_setup_is_refused() -> None:
    # Found by the thorough fuzz: a view document listing fewer (or more) own namings
    # than its seat has made raised StopIteration from determinize.
    config = RuleConfig(setup_reveals="simultaneous")
    for n in (2, 3):
        for state in list(game_states(config, n, seed=n))[: 2 * n]:
            for seat in range(n):
                view = observe(state, seat)
                own = list(view.own_setup_named)
                for wrong in (own[:-1], [*own, own[-1] if own else 0]):
                    if len(wrong) == len(own) or len(wrong) > 2:
                        continue
                    data = view.to_dict()
                    data["own_setup_named"] = wrong
                    with pytest.raises(SaveFormatError, match="own_setup_named"):
                        PlayerView.from_json(json.dumps(data))
                    bad = attrs.evolve(view, own_setup_named=tuple(wrong))
                    with pytest.raises(ValueError, match="own_setup_named"):
                        determinize(bad, random.Random(0))


def test_a_visible_card_does_change_the_view() -> None:
    # The converse: moving a card a seat can see is noticed.
    _, _, _, _, _, swapped, taken, _ = exchange_script()
    for state, place in ((swapped, "hand"), (taken, "held")):
        seer = 1 if place == "hand" else 0
        hidden_cell = next(i for i in range(36) if (state.face_down >> i) & 1)
        cells = list(state.cells)
        card = state.in_hand[0][1] if place == "hand" else state.held
        assert card is not None and cells[hidden_cell] is not None
        if cells[hidden_cell] == card:
            hidden_cell = next(
                i for i in range(36) if (state.face_down >> i) & 1 and cells[i] != card
            )
        swapped_card = cells[hidden_cell]
        assert swapped_card is not None
        cells[hidden_cell] = card
        if place == "hand":
            other = attrs.evolve(
                state, cells=tuple(cells), in_hand=((state.in_hand[0][0], swapped_card),)
            )
        else:
            other = attrs.evolve(state, cells=tuple(cells), held=swapped_card)
        blind = 2
        assert observe(other, blind) == observe(state, blind)
        assert observe(other, seer) != observe(state, seer)


# ------------------------------------------------------------------------ JSON


def test_view_json_round_trips_and_matches_the_schema() -> None:
    for name in ("seeds@1", "fr@1", "exotic", "small_deck"):
        config = CONFIGS[name]
        n = 2 if name == "small_deck" else 3
        for k, state in enumerate(game_states(config, n, seed=11)):
            if k % 60 and not state.is_terminal and not state.held_was_face_down:
                continue
            for seat in range(n):
                view = observe(state, seat)
                text = view.to_json()
                data = json.loads(text)
                schema_validator("view").validate(data)
                assert data["kind"] == "view"
                # A view is written in its game's version, which can hold the config.
                assert data["schema_version"] == state.schema_version == view.schema_version
                assert state.schema_version >= schema_version_for(config)
                back = PlayerView.from_json(text)
                assert back == view
                assert back.to_json() == text


def _view_doc(state: GameState, seat: int) -> dict[str, Any]:
    return json.loads(observe(state, seat).to_json())


def _first_hidden(data: dict[str, Any]) -> int:
    return int(data["face_down"].index(True))


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda d: d["cells"].__setitem__(_first_hidden(d), 5), "$.cells[{hidden}]"),
        (lambda d: d.__setitem__("viewer", 3), "$.viewer"),
        (lambda d: d.__setitem__("kind", "state"), "$.kind"),
        (lambda d: d.__setitem__("seed", 1), "$.seed"),
        (lambda d: d.__setitem__("held_hidden", True), "$.held"),
        (lambda d: d.__setitem__("legal_actions", []), "$.legal_actions"),
        (lambda d: d["legal_actions"].append({"type": "knock"}), "$.legal_actions"),
        (lambda d: d.__setitem__("draw_pile_cards", [1]), "$.draw_pile_cards"),
        (lambda d: d.__setitem__("draw_pile_size", d["draw_pile_size"] + 1), "$"),
        (lambda d: d["discard_pile"].extend([11] * 7), "$"),
        (lambda d: d.__setitem__("current_player", 0), "$.current_player"),
        (lambda d: d.__setitem__("current_player", 2), "$.legal_actions"),
    ],
)
def test_tampered_views_are_rejected(change: Any, path: str) -> None:
    state = exchange_script()[1]  # seat 0 holds the drawn 4; seat 1 is asked
    data = _view_doc(state, 1)
    PlayerView.from_dict(copy.deepcopy(data))
    path = path.format(hidden=_first_hidden(data))
    change(data)
    with pytest.raises(SaveFormatError) as info:
        PlayerView.from_json(json.dumps(data))
    assert info.value.path == path, str(info.value)


JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2, 40), st.text(max_size=5)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(JSON_VALUES)
def test_fuzz_arbitrary_json_views(value: Any) -> None:
    with pytest.raises(SaveFormatError):
        PlayerView.from_json(json.dumps(value))


@given(states(), st.integers(0, 5), st.randoms(use_true_random=False), JSON_VALUES)
def test_fuzz_mutated_views(
    state: GameState, seat: int, rng: random.Random, replacement: Any
) -> None:
    seat %= state.num_players
    data = _view_doc(state, seat)
    keys = sorted(data)
    key = rng.choice(keys)
    value = data[key]
    if isinstance(value, list) and value and rng.random() < 0.5:
        value[rng.randrange(len(value))] = replacement
    elif type(value) is int and rng.random() < 0.5:
        data[key] = value + rng.choice([-1, 1])
    else:
        data[key] = replacement
    try:
        view = PlayerView.from_json(json.dumps(data))
    except SaveFormatError as exc:
        where = exc.path
    else:
        assert PlayerView.from_json(view.to_json()) == view
        return
    assert where.startswith("$")


# ------------------------------------------------------------ the public view

_PRIVATE_FIELDS = ("viewer", "held", "held_hidden", "in_hand", "legal_actions", "own_setup_named")


def _public_view_states() -> list[GameState]:
    """States of games with face-down takes, simultaneous setups and refills."""
    found = [s for seed in range(3) for s in game_states(preset("seeds"), 3, seed)][::3]
    found += exchange_states(1) + exchange_states(4, 2)
    simultaneous = RuleConfig(setup_reveals="simultaneous", max_turns_per_round=6)
    found += list(game_states(simultaneous, 3, 2))
    found += list(game_states(CONFIGS["small_deck"], 2, 3))[::2]
    return found


def test_the_public_view_is_what_every_seat_sees() -> None:
    private_seen = 0
    for state in _public_view_states():
        public = observe(state, None)
        views = [observe(state, p) for p in range(state.num_players)]
        assert public.viewer is None and public.legal_actions == ()
        assert public.own_setup_named == ()
        assert not public.is_my_turn or public.current_player is None
        for field in attrs.fields(PlayerView):
            if field.name not in _PRIVATE_FIELDS:
                value = getattr(public, field.name)
                assert all(getattr(v, field.name) == value for v in views), field.name
        # A card is shown only when every seat sees it.
        if public.held is not None:
            assert all(v.held == public.held for v in views)
        assert public.held_hidden == (state.held is not None and state.held_was_face_down)
        if public.held_hidden:  # the drawer alone sees it
            assert [v.held is not None for v in views] == [
                p == state.drawer for p in range(state.num_players)
            ]
        for k, (player, card) in enumerate(public.in_hand):
            assert all(v.in_hand[k][0] == player for v in views)
            if card is not None:
                assert all(v.in_hand[k][1] == card for v in views)
            else:
                assert any(v.in_hand[k][1] is None for v in views)
        private_seen += public.held_hidden or any(c is None for _, c in public.in_hand)
        # No card that some seat does not see.
        assert all(public.visible_cards() <= v.visible_cards() for v in views)
        data = public.to_dict()
        assert data["viewer"] is None and data["legal_actions"] == []
    assert private_seen > 0


def test_states_differing_only_in_hidden_cards_give_the_same_public_view() -> None:
    checked = 0
    for state in _public_view_states()[::4]:
        public = observe(state, None)
        for seat in range(state.num_players):
            view = observe(state, seat)
            for k in range(2):
                twin = determinize(view, random.Random(seat * 10 + k))
                assert observe(twin, seat) == view
                assert observe(twin, None) == public
                checked += twin != state
    assert checked > 0


def test_a_view_reads_the_table_as_its_state_does_but_for_hidden_cards() -> None:
    # The accessors a state and a view share (written once): a face-up card, a gap and
    # the discard pile read alike; a face-down card is the state's, and hidden in a view.
    hidden = 0
    for state in list(game_states(CONFIGS["exotic"], 3, 11))[::9]:
        for viewer in (None, 0, 2):
            view = observe(state, viewer)
            assert (view.geometry, view.is_terminal) == (state.geometry, state.is_terminal)
            assert view.discard_top == state.discard_top
            for i, pos in enumerate(state.geometry.positions):
                down = bool(state.face_down >> i & 1)
                assert view.is_gap(pos) == state.is_gap(pos) == (state.cells[i] is None)
                assert view.is_face_up(pos) == state.is_face_up(pos) != (down or view.is_gap(pos))
                assert view.is_hidden(pos) == down
                assert view.card(pos) == (None if down else state.card(pos))
                assert (state.card(pos) is None) == state.is_gap(pos)
                hidden += down
    assert hidden > 0
