"""Typed moves of ``allegra-rules play``, the narration for each seat, the help screens.

The move parser is fuzzed with Hypothesis (it must answer any line with a legal move
or a reason, never an exception) and checked to read back every move it writes. The
narration written for a seat is checked against what ``observe`` lets that seat know
(A37): changing only cards a seat cannot see never changes its narration, and a card
only one seat has seen is named to that seat alone.
"""

from __future__ import annotations

import io
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from allegra_rules import (
    Action,
    GameState,
    Phase,
    RuleConfig,
    apply,
    legal_actions,
    new_game,
    observe,
    preset,
)
from allegra_rules.actions import Give
from allegra_rules.cli import _play
from allegra_rules.cli._help import moves_text, options_text, summary_text
from allegra_rules.cli._moves import (
    Rejected,
    accepted,
    move_number,
    move_text,
    numbered,
    parse_move,
)
from allegra_rules.cli._play import cell_menu
from allegra_rules.render import describe_action, describe_outcome, render_table
from helpers import forged


def _random_states(
    n: int, seed: int, limit: int = 10_000, config: RuleConfig | None = None
) -> list[GameState]:
    rng = random.Random(seed)
    state = new_game(n, seed=seed, config=config)
    out = []
    while not state.is_terminal and len(out) < limit:
        out.append(state)
        state = apply(state, rng.choice(legal_actions(state)))
    return out


STATES = [s for n, seed in ((2, 1), (3, 2), (4, 3), (6, 4)) for s in _random_states(n, seed)][::7]


# ------------------------------------------------------------------ the parser


def test_every_legal_move_reads_back_from_its_text_and_its_number() -> None:
    phases = set()
    for state in STATES:
        you = state.current_player
        assert you is not None
        legal = legal_actions(state)
        table = numbered(state, legal, you)
        assert len(table) == len(legal)  # the numbers tell the moves apart
        for action in legal:
            phases.add(state.phase)
            assert parse_move(move_text(state, action, you), state, you) == action
            assert parse_move(str(move_number(state, action, you)), state, you) == action
    assert phases == set(Phase) - {Phase.OVER}


def test_a_cell_keeps_its_number_from_one_decision_to_the_next() -> None:
    state = new_game(3, seed=1)
    first = numbered(state, legal_actions(state), 0)
    after = apply(state, first[1])  # reveal (0, 0): cell (1, 3) is still 8
    second = numbered(after, legal_actions(after), 0)
    assert 1 not in second
    assert first[8] == second[8]
    assert [first[k] for k in second] == list(second.values())


def test_cells_can_be_named_by_neighbour_or_by_seat_number() -> None:
    state = new_game(4, seed=2)
    # Player 2 (seat 1) is the left neighbour; its row 1, column 4 is in seat 0's zone.
    for text in ("r left 14", "left 14", "r p2 14", "p2 14", "r player 2 14", "R (p2, 14)"):
        assert parse_move(text, state, 0) == legal_actions(state)[12], text
    # The old forms, counted from zero, are refused in the new form, never read otherwise.
    for text in ("r left 0 3", "left 0 3", "r 1 0 3", "seat 1 0 3", "r 1,0,3", "r 0 3", "2 1"):
        refused = parse_move(text, state, 0)
        assert isinstance(refused, Rejected), text
        assert "row then column counted from one" in refused.reason, text
    assert isinstance(parse_move("r right 14", state, 0), Rejected)  # not in the zone
    assert "not in your zone" in parse_move("r p3 11", state, 0).reason  # type: ignore[union-attr]


@given(st.text(max_size=40), st.integers(0, len(STATES) - 1))
def test_any_input_is_a_legal_move_or_a_reason(text: str, k: int) -> None:
    state = STATES[k]
    you = state.current_player
    assert you is not None
    found = parse_move(text, state, you)
    if isinstance(found, Rejected):
        assert found.reason and "\n" not in found.reason
    else:
        assert found in legal_actions(state)


_WORDS = st.sampled_from(
    ["d", "p", "k", "x", "g", "r", "s", "t", "left", "right", "me", "seat", "swap", "take"]
)
_NUMBERS = st.integers(-3, 20).map(str)


@given(st.lists(st.one_of(_WORDS, _NUMBERS), max_size=5), st.integers(0, len(STATES) - 1))
def test_move_like_input_is_a_legal_move_or_a_reason(words: list[str], k: int) -> None:
    state = STATES[k]
    you = state.current_player
    assert you is not None
    found = parse_move(" ".join(words), state, you)
    assert isinstance(found, Rejected) or found in legal_actions(state)


def test_what_is_accepted_is_said_for_every_phase_and_fits_the_menu() -> None:
    seen = set()
    for state in STATES:
        you = state.current_player
        assert you is not None
        text = accepted(state, you)
        assert text.startswith("Type ") and "h help" in text
        menu = cell_menu(state, legal_actions(state), you)
        assert 1 <= len(menu) <= 3 + 1 + len(state.knockers)
        assert all(len(line) <= 80 for line in menu), menu
        seen.add(state.phase)
    assert len(seen) == len(Phase) - 1


def test_help_screens_fit_an_80_by_24_terminal() -> None:
    for name in ("seeds", "fr", "published"):
        for text in (summary_text(preset(name)), moves_text(), options_text(preset(name))):
            lines = text.splitlines()
            assert len(lines) <= 23 and max(len(line) for line in lines) <= 80
    fr = options_text(preset("fr"))
    assert "A card taken from the discard pile may be put back" in fr
    assert "Cards of a triple go onto the discard pile." in fr
    assert "must be swapped in" in options_text(preset("seeds"))
    assert "Players may knock only when 3 or more play." in options_text(preset("published"))


# --------------------------------------------------- narration against observe


def _hidden_slots(state: GameState, viewer: int | None) -> list[tuple[str, int]]:
    """Places whose card ``viewer`` (``None``: a spectator) cannot see."""
    slots: list[tuple[str, int]] = [
        ("cell", i)
        for i, value in enumerate(state.cells)
        if value is not None and state.face_down >> i & 1
    ]
    slots += [("draw", k) for k in range(len(state.draw_pile))]
    if state.held is not None and state.held_was_face_down and viewer != state.drawer:
        slots.append(("held", 0))
    if state.in_hand and state.hand_was_face_down and viewer != state.in_hand[0][0]:
        slots.append(("hand", 0))
    return slots


def _get(state: GameState, slot: tuple[str, int]) -> int:
    kind, k = slot
    if kind == "cell":
        value = state.cells[k]
    elif kind == "draw":
        value = state.draw_pile[k]
    elif kind == "held":
        value = state.held
    else:
        value = state.in_hand[0][1]
    assert value is not None
    return value


def _put(state: GameState, slot: tuple[str, int], value: int) -> GameState:
    kind, k = slot
    if kind == "cell":
        cells = list(state.cells)
        cells[k] = value
        return forged(state, cells=tuple(cells))
    if kind == "draw":
        pile = list(state.draw_pile)
        pile[k] = value
        return forged(state, draw_pile=tuple(pile))
    if kind == "held":
        return forged(state, held=value)
    return forged(state, in_hand=((state.in_hand[0][0], value),))


def _narration(state: GameState, action: Action, viewer: int | None) -> str:
    after = apply(state, action)
    lines = [describe_action(state, action, viewer=viewer)]
    lines += describe_outcome(state, action, after)
    lines.append(render_table(after, viewer=viewer))
    return "\n".join(lines)


def _views(state: GameState, viewer: int | None) -> list[object]:
    seats = range(state.num_players) if viewer is None else [viewer]
    if viewer is None:  # a spectator knows what every seat but the private holders knows
        private = {state.drawer, *(p for p, _ in state.in_hand)}
        seats = [p for p in seats if p not in private] or []
    return [observe(state, p) for p in seats]


@pytest.mark.parametrize(
    ("n", "seed", "every"),
    [
        (3, 5, 6),
        pytest.param(4, 6, 1, marks=pytest.mark.slow),
        pytest.param(6, 7, 1, marks=pytest.mark.slow),
    ],
)
def test_each_seats_narration_says_only_what_observe_lets_it_know(
    n: int, seed: int, every: int
) -> None:
    rng = random.Random(seed)
    checked = private = 0
    for k, state in enumerate(_random_states(n, seed, 900)):
        action = rng.choice(legal_actions(state))
        after = apply(state, action)
        for viewer in [None, *range(n)] if k % every == 0 else []:
            slots = _hidden_slots(state, viewer)
            text = _narration(state, action, viewer)
            for _ in range(3):
                if len(slots) < 2:
                    break
                a, b = rng.sample(slots, 2)
                if _get(state, a) == _get(state, b):
                    continue
                other = _put(_put(state, a, _get(state, b)), b, _get(state, a))
                assert other.all_cards() == state.all_cards()
                if _views(other, viewer) != _views(state, viewer):
                    continue
                if _views(apply(other, action), viewer) != _views(after, viewer):
                    continue  # the action shows one of the two cards
                assert _narration(other, action, viewer) == text
                checked += 1
        # A card only one seat has seen is named to that seat, and only to it.
        if after.phase is Phase.HOLD_TAKEN and after.held_was_face_down:
            drawer = after.current_player
            for viewer in [None, *range(n)]:
                table = render_table(after, viewer=viewer)
                named = f"hold the {after.held}, taken" in table
                assert named == (viewer == drawer)
                assert observe(after, drawer).held == after.held
            private += 1
    assert checked > 300 // every
    assert private >= 1


def test_a_simultaneous_setup_tells_nobody_which_cells_the_others_named() -> None:
    config = RuleConfig(setup_reveals="simultaneous")
    rng = random.Random(3)
    state = new_game(3, seed=3, config=config)
    said: dict[int | None, list[str]] = {v: [] for v in (None, 0, 1, 2)}
    while state.phase is Phase.SETUP and state.round == 1:
        action = rng.choice(legal_actions(state))
        after = apply(state, action)
        for viewer, lines in said.items():
            lines.append(describe_action(state, action, viewer=viewer))
            lines += describe_outcome(state, action, after)
            table = render_table(after, viewer=viewer)
            if after.phase is Phase.SETUP and viewer is not None:
                named = observe(after, viewer).own_setup_named
                assert ("Named: you named" in table) == bool(named)
        state = after
    for viewer, lines in said.items():
        namings, turned = lines[:-1], lines[-1]
        assert len(namings) == 6 and turned.startswith("Every named cell turns up: ")
        for k, line in enumerate(namings):
            namer = k // 2  # setup from seat 0, two cells each
            if viewer == namer:
                assert line.startswith("You name ") and "face down until every player" in line
            else:
                assert (
                    line
                    == f"Player {namer + 1} names a cell of their zone (face down: nobody sees "
                    "which yet)."
                )


def test_giving_the_drawn_card_to_a_knocker_takes_one_line() -> None:
    """``g SEAT`` at the drawer's decision after knocks is the give, asked nothing more."""
    found = 0
    for seed in range(30):
        state = new_game(4, seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal and found < 5:
            gives = [a for a in legal_actions(state) if isinstance(a, Give)]
            if state.phase is Phase.HOLD_DECK and gives:
                you = state.current_player
                assert you is not None
                for give in gives:
                    assert parse_move(f"g p{give.player + 1}", state, you) == give
                    assert isinstance(parse_move(f"g {give.player}", state, you), Rejected)
                    out = io.StringIO()
                    inp = io.StringIO(f"g p{give.player + 1}\n")
                    session = _play._Session(you, inp, out, echo=True)
                    assert session.choose(state) == give
                    assert out.getvalue().count("Your move (") == 1
                found += 1
            state = apply(state, rng.choice(legal_actions(state)))
    assert found >= 5
