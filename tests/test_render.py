"""The table drawing and the action narration of ``allegra_rules.render``.

Scenarios are dealt from stacked decks (``helpers.game``); the expected sentences and
cells are worked out by hand from the stacked grids. "Never leaks" is tested by
drawing or narrating two states that differ only in hidden cards (face-down cells,
the draw pile's order) and requiring identical text.
"""

from __future__ import annotations

import random
import re
from collections import Counter

import attrs
import pytest

from allegra_rules import (
    Discard,
    DrawDeck,
    DrawDiscard,
    GameState,
    Give,
    IllegalActionError,
    Knock,
    Pass,
    Phase,
    Pos,
    Reveal,
    RuleConfig,
    Swap,
    Take,
    apply,
    legal_actions,
    new_game,
    preset,
)
from allegra_rules.render import (
    card_text,
    describe_action,
    describe_outcome,
    render_round_end,
    render_table,
)
from helpers import Grid, forged, game, play, setup_reveals

# Grids without any triple, also side by side (seat p gets G[p]).
G0: Grid = ((1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 0))
G1: Grid = ((2, 3, 4, 5), (6, 7, 8, 9), (10, 11, 0, -1))
G2: Grid = ((3, 4, 5, 6), (7, 8, 9, 10), (11, 0, -1, 1))
T3 = {0: G0, 1: G1, 2: G2}

TOKEN = r"[ \-\d#.]{2}"
GRID_RE = re.compile(rf"({TOKEN}) ({TOKEN}) ({TOKEN}) \[({TOKEN})\]")
GHOST_RE = re.compile(rf"^ \d  \(({TOKEN})\)")


def _after_setup() -> GameState:
    """Three seats, T3, discard 3, draw pile 7 first; setup reveals own (2,0) and (2,1)."""
    return setup_reveals(game(3, T3, discard=3, draw=[7, 6]))


def _rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if re.match(r"^ \d  ", line)]


def _parse(text: str, n: int) -> tuple[dict[Pos, str], list[str]]:
    """The drawn token of every cell, and the repeated column at the far left."""
    cells: dict[Pos, str] = {}
    ghosts: list[str] = []
    rows = _rows(text)
    assert len(rows) == 3
    for r, line in enumerate(rows):
        ghost = GHOST_RE.match(line)
        assert ghost is not None, line
        ghosts.append(ghost.group(1))
        grids = GRID_RE.findall(line[ghost.end() :])
        assert len(grids) == n, line
        for k, tokens in enumerate(grids):
            seat = n - 1 - k  # drawn from the highest seat down to seat 0
            for c, token in enumerate(tokens):
                cells[Pos(seat, r, c)] = token
    return cells, ghosts


def _expected_token(state: GameState, pos: Pos) -> str:
    value = state.card(pos)
    if value is None:
        return " ."
    if not state.is_face_up(pos):
        return "##"
    return str(value).rjust(2)


def _random_states(n: int, seed: int, count: int) -> list[GameState]:
    rng = random.Random(seed)
    state = new_game(n, seed=seed)
    out = [state]
    while not state.is_terminal and len(out) < count:
        state = apply(state, rng.choice(legal_actions(state)))
        out.append(state)
    return out


def _swap_hidden(state: GameState, keep: set[int]) -> GameState | None:
    """``state`` with two face-down cards of different values exchanged (none in ``keep``)."""
    down = [
        i
        for i, v in enumerate(state.cells)
        if v is not None and state.face_down >> i & 1 and i not in keep
    ]
    for a in down:
        for b in down:
            if state.cells[a] != state.cells[b]:
                cells = list(state.cells)
                cells[a], cells[b] = cells[b], cells[a]
                other = attrs.evolve(state, cells=tuple(cells))
                assert other.all_cards() == state.all_cards()
                return other
    return None


# ------------------------------------------------------------------ the table


def test_every_cell_is_drawn_in_its_seat_column_and_face_down_cards_are_hashes() -> None:
    state = _after_setup()
    text = render_table(state)
    cells, ghosts = _parse(text, 3)
    assert len(cells) == 36
    for pos, token in cells.items():
        assert token == _expected_token(state, pos), pos
    # Setup revealed (2, 0) and (2, 1) of every seat: those show the values, the rest ##.
    assert cells[Pos(0, 2, 0)] == " 9" and cells[Pos(0, 2, 1)] == "10"
    assert cells[Pos(1, 2, 1)] == "11" and cells[Pos(2, 2, 1)] == " 0"
    assert cells[Pos(0, 0, 0)] == "##" and cells[Pos(2, 1, 3)] == "##"
    assert sum(token == "##" for token in cells.values()) == 30
    # The far-left column repeats seat 0's column 3 (it closes seat 2's zone).
    assert ghosts == [cells[Pos(0, r, 3)] for r in range(3)]


def test_seats_are_drawn_from_the_highest_down_and_column_three_is_bracketed() -> None:
    state = _after_setup()
    lines = render_table(state).splitlines()
    head = next(line for line in lines if "*Player 1*" in line)
    assert head.index("Player 3") < head.index("Player 2") < head.index("Player 1")
    labels = next(line for line in lines if "[ 4]" in line)
    assert labels.count(" 1  2  3 [ 4]") == 3
    assert not re.search(r"\b[rc][0-3]\b", "\n".join(lines))  # no c0/r0 labels
    # Seat p+1's bracketed column 3 stands right before seat p's column 0 in every row.
    for r, row in enumerate(_rows("\n".join(lines))):
        left_of_seat1 = f"[{_expected_token(state, Pos(2, r, 3))}]  "
        left_of_seat1 += _expected_token(state, Pos(1, r, 0))
        assert left_of_seat1 in row


def test_zone_brackets_cover_their_five_columns_and_overlap_on_the_shared_ones() -> None:
    state = _after_setup()
    text = render_table(state)
    lines = text.splitlines()
    row = _rows(text)[0]
    # The first and last character of each bracketed column-4 cell (and of the repeated
    # one at the far left).
    cells = [(m.start(), m.end() - 1) for m in re.finditer(r"[\[(][^\])]*[\])]", row)]
    assert len(cells) == 4
    first = next(i for i, line in enumerate(lines) if "+" in line and " Player " in line)
    rails = lines[first : first + 2]
    spans = sorted(
        (m.start(), m.end() - 1, m[1], k)
        for k, rail in enumerate(rails)
        for m in re.finditer(r"\+-+ Player (\d) -+\+", rail)
    )
    # Zones left to right: zone 2, zone 1, zone 0, each from the first character of a
    # shared column to the last of the next one; neighbours take turns on two lines.
    assert [(a, b) for a, b, *_ in spans] == [(cells[k][0], cells[k + 1][1]) for k in range(3)]
    assert [zone for _, _, zone, _ in spans] == ["3", "2", "1"]
    assert [line for _, _, _, line in spans] == [0, 1, 0]
    # Under the brackets: each zone's face-up sum and its count of face-down cards.
    # Zone 0 = seat 0's grid (9 and 10 up) + seat 1's column 3 (all down): 19 + 13 down.
    notes = lines[first + 2]
    assert re.findall(r"sum (\d+), (\d+) ##", notes) == [("11", "13"), ("21", "13"), ("19", "13")]
    # Each note sits under its own bracket.
    for (a, b, *_), note in zip(spans, re.finditer(r"sum \d+, \d+ ##", notes), strict=True):
        assert a < note.start() and note.end() <= b
    legend = " ".join(text.split())
    assert "Brackets span the zones (neighbours' overlap on a [4])" in legend


def test_legend_explains_zones_in_words_for_a_spectator_and_for_a_seat() -> None:
    text = " ".join(render_table(new_game(4, seed=3)).split())
    assert "Each zone is a player's grid plus the bracketed column 4 just left of it" in text
    assert "%" not in text  # no formula
    assert (
        "Column 4 of Player 1 is repeated at the far left, where it closes Player 4's zone." in text
    )
    assert "Each zone" not in render_table(new_game(4, seed=3), legend=False)
    mine = " ".join(render_table(new_game(4, seed=3), viewer=2).split())
    assert "Your zone is your grid plus the bracketed column 4 just left of it: " in mine
    assert "column 4 of Player 4, your left neighbour." in mine
    assert "Your own column 4 is also in Player 2's, your right neighbour's zone." in mine
    two = " ".join(render_table(new_game(2, seed=3), viewer=0).split())
    assert "column 4 of Player 2, your only neighbour." in two


def test_header_shows_round_turn_piles_held_card_totals_and_marks_the_actor() -> None:
    state = _after_setup()
    text = render_table(state)
    assert text.splitlines()[0] == "Round 1 of 3 | turn 1: Player 1 to draw"
    assert "Draw pile: 83 cards | discard pile: 3 on top, 1 card\nHeld: nothing" in text
    assert "Totals: Player 1: 0, Player 2: 0, Player 3: 0" in text
    assert "*Player 1*" in text and "*Player 2*" not in text
    drawn = play(state, [DrawDeck()])
    text = render_table(drawn)
    assert (
        text.splitlines()[0] == "Round 1 of 3 | turn 1: Player 2 may knock for the 7 Player 1 drew"
    )
    assert "Held: Player 1 holds the 7, drawn from the draw pile" in text
    assert "*Player 2*" in text
    holding = play(drawn, [Knock(), Pass()])
    assert "Player 1 holds the 7 from the draw pile; Player 2 knocked" in render_table(holding)


def test_the_end_of_the_game_names_the_winners() -> None:
    rng = random.Random(4)
    state = new_game(2, seed=4)
    while not state.is_terminal:
        state = apply(state, rng.choice(legal_actions(state)))
    first = render_table(state).splitlines()[0]
    best = min(state.totals)
    assert first.startswith(f"Round 3 of 3 | game over: Player {state.winners[0] + 1}")
    assert first.endswith(f"won with {best}")


@pytest.mark.parametrize(("n", "seed"), [(2, 11), (3, 12), (5, 13)])
def test_the_drawing_never_depends_on_hidden_cards(n: int, seed: int) -> None:
    checked = 0
    for state in _random_states(n, seed, 300):
        other = _swap_hidden(state, keep=set())
        if other is None:
            continue
        assert other.cells != state.cells
        assert render_table(other) == render_table(state)
        reordered = attrs.evolve(state, draw_pile=state.draw_pile[::-1])
        assert render_table(reordered) == render_table(state)
        checked += 1
    assert checked > 50


def test_a_taken_card_and_a_hand_card_are_not_shown_while_held() -> None:
    state = play(_after_setup(), [DrawDeck(), Knock(), Pass(), Give(1), Swap(Pos(1, 0, 0))])
    # The knocker's hand card (its face-down 2) must not be shown.
    assert state.in_hand == ((1, 2),)
    text = render_table(state)
    assert (
        "In hand: Player 2 holds the face-down card it replaced (only Player 2 has seen it)" in text
    )
    mine = render_table(state, viewer=1)
    assert "In hand: you hold the 2 you replaced face down (only you have seen it)" in mine
    hand_swapped = attrs.evolve(
        state,
        in_hand=((1, 8),),
        cells=tuple(2 if i == Pos(0, 1, 3).index else v for i, v in enumerate(state.cells)),
    )
    assert Counter(hand_swapped.all_cards()) == Counter(state.all_cards())
    assert render_table(hand_swapped) == text
    # The drawer takes the face-down 7 at Player 2's row 2, column 2: held but not shown.
    taken = play(state, [Take(Pos(1, 1, 1))])
    assert taken.held == 7
    text = render_table(taken)
    assert "Held: Player 1 holds a card taken from Player 2's zone face down" in text
    assert "Held: you hold the 7, taken from Player 2's zone face down" in render_table(
        taken, viewer=0
    )
    cells = list(taken.cells)
    cells[Pos(2, 0, 0).index] = 7  # Player 3's face-down 3 and the held 7 trade places
    other = attrs.evolve(taken, held=3, cells=tuple(cells))
    assert other.all_cards() == taken.all_cards()
    assert render_table(other) == text


def test_values_wider_than_two_characters_keep_the_columns() -> None:
    config = RuleConfig(deck={-10: 20, 100: 20})
    state = new_game(2, config=config, seed=1)
    state = play(state, [Reveal(Pos(0, 0, 0))])
    rows = _rows(render_table(state))
    value = str(state.card(Pos(0, 0, 0))).rjust(3)
    assert rows[0].endswith(f"{value} ### ### [###]")
    assert "(###)" in rows[0]


# ------------------------------------------------------------- the round end


def test_round_end_report_shows_every_card_and_the_scoring() -> None:
    rng = random.Random(8)
    state = new_game(3, seed=8)
    while state.round == 1:
        state = apply(state, rng.choice(legal_actions(state)))
    result = state.last_round
    assert result is not None
    text = render_round_end(state)
    assert text.splitlines()[0] == "Round 1 is over: every card is turned up."
    assert "##" not in text
    cells, _ = _parse(text, 3)
    for pos, token in cells.items():
        value = result.cells[pos.index]
        assert token == (" ." if value is None else str(value).rjust(2))
    sums = ", ".join(f"Player {s + 1}: {v}" for s, v in enumerate(result.zone_sums))
    scores = ", ".join(f"Player {s + 1}: {v}" for s, v in enumerate(result.scores))
    assert f"Zone sums:    {sums}" in text
    assert f"Round scores: {scores}" in text
    assert f"Totals: {scores} (after round 1)" in text
    notes = next(line for line in text.splitlines() if line.lstrip().startswith("sum "))
    assert re.findall(r"sum (-?\d+)", notes) == [str(result.zone_sums[s]) for s in (2, 1, 0)]
    if result.ender is not None:
        assert f"Player {result.ender + 1} ended the round" in text
        assert ("doubled to" in text) == result.doubled


def test_round_end_report_needs_a_finished_round() -> None:
    with pytest.raises(ValueError, match="no round has ended yet"):
        render_round_end(new_game(3))


# ---------------------------------------------------------------- narration


def test_card_text_articles() -> None:
    assert [card_text(v) for v in (-1, 0, 1, 7, 8, 11, 18, 80)] == [
        "a -1",
        "a 0",
        "a 1",
        "a 7",
        "an 8",
        "an 11",
        "an 18",
        "an 80",
    ]


def test_setup_draw_knock_and_whole_knock_exchange_sentences() -> None:
    start = game(3, T3, discard=3, draw=[7, 6])
    assert describe_action(start, Reveal(Pos(0, 2, 0))) == (
        "Player 1 reveals a 9 at row 3, column 1."
    )
    state = setup_reveals(start)
    assert describe_action(state, DrawDeck()) == "Player 1 draws a 7 from the draw pile."
    state = play(state, [DrawDeck()])
    assert describe_action(state, Knock()) == "Player 2 knocks for the 7."
    state = play(state, [Knock()])
    assert describe_action(state, Pass()) == "Player 3 does not knock."
    state = play(state, [Pass()])
    assert describe_action(state, Give(1)) == "Player 1 gives the 7 to Player 2."
    state = play(state, [Give(1)])
    assert (
        describe_action(state, Swap(Pos(1, 2, 0)))
        == "Player 2 swaps the 7 in at row 3, column 1 and takes the 10 into their hand."
    )
    assert describe_action(state, Swap(Pos(1, 0, 0))) == (
        "Player 2 swaps the 7 in at row 1, column 1 and takes the face-down card there into "
        "their hand (only Player 2 sees it until it lies face up)."
    )
    assert describe_action(state, Swap(Pos(1, 0, 0)), viewer=1) == (
        "You swap the 7 in at row 1, column 1 and take the face-down 2 there into your hand."
    )
    state = play(state, [Swap(Pos(1, 2, 0))])
    assert describe_action(state, Take(Pos(1, 2, 1))) == (
        "Player 1 takes the 11 from Player 2's row 3, column 2."
    )
    assert describe_action(state, Take(Pos(1, 1, 1))) == (
        "Player 1 takes the face-down card at Player 2's row 2, column 2 (only Player 1 "
        "sees it until it "
        "lies face up)."
    )
    assert describe_action(state, Take(Pos(1, 1, 1)), viewer=0) == (
        "You take the face-down 7 at Player 2's row 2, column 2."
    )
    state = play(state, [Take(Pos(1, 2, 1))])
    assert describe_action(state, Swap(Pos(0, 0, 0))) == (
        "Player 1 swaps the 11 in at row 1, column 1 and discards the 1; Player 2 fills "
        "the hole at their "
        "row 3, column 2 with the 10 from their hand."
    )


def test_discard_pile_swap_into_the_neighbours_column_and_discard_then_flip() -> None:
    state = _after_setup()
    assert describe_action(state, DrawDiscard()) == "Player 1 takes the 3 from the discard pile."
    held = play(state, [DrawDiscard()])
    assert (
        describe_action(held, Swap(Pos(1, 1, 3)))
        == "Player 1 swaps the 3 in at Player 2's row 2, column 4 and discards the 9."
    )
    assert (
        describe_action(held, Swap(Pos(0, 2, 1)))
        == "Player 1 swaps the 3 in at row 3, column 2 and discards the 10."
    )
    drawn = play(state, [DrawDeck(), Pass(), Pass()])
    assert describe_action(drawn, Discard()) == "Player 1 discards the 7 and will turn up a card."
    flip = play(drawn, [Discard()])
    assert describe_action(flip, Reveal(Pos(0, 0, 2))) == (
        "Player 1 turns up a 3 at row 1, column 3."
    )


def test_fr_rules_throwing_back_the_discard_card() -> None:
    config = preset("fr")
    state = setup_reveals(game(3, T3, config=config, discard=3, draw=[7]))
    held = play(state, [DrawDiscard()])
    assert (
        describe_action(held, Discard())
        == "Player 1 puts the 3 back on the discard pile and will turn up a card."
    )


def test_draw_from_an_empty_pile_mentions_the_reshuffle() -> None:
    state = _after_setup()
    moved = state.draw_pile
    empty = forged(state, draw_pile=(), discard_pile=moved + state.discard_pile)
    drawn = apply(empty, DrawDeck()).held
    assert describe_action(empty, DrawDeck()) == (
        f"Player 1 draws {card_text(drawn or 0)} from the draw pile, after the discard pile "
        "(all but its top card) is reshuffled into a new draw pile."
    )
    after = apply(empty, DrawDeck())
    assert describe_outcome(empty, DrawDeck(), after) == (
        "The draw pile was empty: the discard pile was reshuffled into a new one.",
    )


def test_describe_action_rejects_illegal_actions() -> None:
    with pytest.raises(IllegalActionError):
        describe_action(_after_setup(), Knock())


@pytest.mark.parametrize(("n", "seed"), [(3, 21), (4, 22)])
def test_narration_never_names_a_card_the_action_does_not_show(n: int, seed: int) -> None:
    phases: set[Phase] = set()
    for state in _random_states(n, seed, 400):
        for action in legal_actions(state):
            # Cards this action shows to everyone: a revealed card, a card swapped out
            # onto the discard pile. Every other face-down card may be exchanged.
            keep: set[int] = set()
            if isinstance(action, Reveal) or (
                isinstance(action, Swap) and state.phase is not Phase.KNOCKER_SWAP
            ):
                keep.add(action.pos.index)
            other = _swap_hidden(state, keep)
            if other is None:
                continue
            assert describe_action(other, action) == describe_action(state, action)
            phases.add(state.phase)
    assert {Phase.KNOCKER_SWAP, Phase.TAKE, Phase.HOLD_TAKEN, Phase.FLIP} <= phases


# ----------------------------------------------------------------- outcomes


def _triple_setup(config: RuleConfig) -> GameState:
    grids = {0: ((5, 5, 1, 2), (3, 4, 6, 7), (8, 9, 10, 11)), 1: G1, 2: G2}
    state = game(3, grids, config=config, discard=5, draw=[7])
    return setup_reveals(state, {0: (Pos(0, 0, 0), Pos(0, 0, 1))})


@pytest.mark.parametrize(
    ("config", "where"),
    [(RuleConfig(), "go out of play"), (preset("fr"), "go onto the discard pile")],
)
def test_outcome_names_the_cards_of_a_triple_and_where_they_go(
    config: RuleConfig, where: str
) -> None:
    state = play(_triple_setup(config), [DrawDiscard()])
    action = Swap(Pos(0, 0, 2))
    assert describe_action(state, action) == (
        "Player 1 swaps the 5 in at row 1, column 3 and discards the 1."
    )
    after = apply(state, action)
    assert after.card(Pos(0, 0, 2)) is None
    assert describe_outcome(state, action, after) == (
        f"Triple: three 5s at Player 1's row 1, columns 1, 2 and 3 {where}.",
    )


def test_outcome_is_empty_for_an_ordinary_action() -> None:
    state = play(_triple_setup(RuleConfig()), [DrawDiscard()])
    action = Swap(Pos(0, 1, 0))
    assert describe_outcome(state, action, apply(state, action)) == ()


def test_outcome_announces_the_player_who_triggers_the_round_end() -> None:
    rng = random.Random(5)
    state = new_game(3, seed=5)
    while True:
        action = rng.choice(legal_actions(state))
        after = apply(state, action)
        if after.ender is not None and state.ender is None and after.round == state.round:
            break
        state = after
    sentences = describe_outcome(state, action, after)
    assert sentences[-1] == (
        f"Player {after.ender + 1} has every card of their own grid face up: each other player "
        "gets one last turn, then the round ends."
    )


def test_a_round_cut_by_the_turn_limit_is_reported_as_such() -> None:
    config = RuleConfig(max_turns_per_round=3)
    state = new_game(3, config=config, seed=9)
    rng = random.Random(9)
    while True:
        action = rng.choice(legal_actions(state))
        after = apply(state, action)
        if after.round != state.round:
            break
        state = after
    assert state.turns_played == 3
    assert describe_outcome(state, action, after)[-1] == (
        "The round reached its turn limit and ends here."
    )
    report = render_round_end(after)
    assert "The round hit the turn limit: nobody ended it, nobody is doubled." in report


@pytest.mark.parametrize("viewer", [None, 0, 4])
def test_the_compact_legend_explains_notes_symbols_and_far_left_in_two_lines(
    viewer: int | None,
) -> None:
    state = new_game(6, seed=3)
    table = render_table(state, viewer=viewer, max_width=80, compact=True)
    bare = render_table(state, legend=False, viewer=viewer, max_width=80, compact=True)
    legend = table[len(bare) + 1 :].split("\n")
    assert len(legend) == 2 and max(len(line) for line in legend) <= 80, legend
    assert legend[0] == (
        "Legend: sum 0, 15 ## = face-up sum 0 and 15 face-down cards (##); . = gap."
    )
    assert "far left: PK (4) = Player K's [4]" in legend[1]
    if viewer is not None:
        assert legend[1].startswith(f"Your zone = your grid + Player {viewer + 2}'s [4]")
    # Two bands, the column labels above the first only, each zone's note on one line
    # under the band, no "Held: nothing": 2 + 6 + 5 lines, then the legend.
    assert bare.count("( 4)   1  2  3 [ 4]") == 1 and bare.count("\n") + 1 == 13
    assert "Held:" not in bare and "Held: nothing" in render_table(state, max_width=80)
    # No brackets: each zone's note alone, centred under its five columns.
    notes = [line for line in bare.split("\n") if line.lstrip().startswith("sum ")]
    assert len(notes) == 2 and all(line.count("sum 0, 15 ##") == 3 for line in notes)
    assert "+" not in bare
    assert render_table(state, max_width=80).count("( 4)   1  2  3 [ 4]") == 2


def test_the_full_legend_names_the_far_left_column_of_each_band() -> None:
    two = " ".join(render_table(new_game(2, seed=3), viewer=0).split())
    assert "At the far left, P1 (4) repeats your column 4, where it closes Player 2's zone." in two
    assert "under them, each zone's face-up sum and face-down cards (##)" in two
    assert "a . is a gap." in two
    six = " ".join(render_table(new_game(6, seed=3), viewer=2, max_width=80).split())
    assert (
        "At the far left of each band, P1 (4) repeats column 4 of Player 1, where it "
        "closes Player 6's zone; P4 (4) repeats column 4 of Player 4, where it closes your zone."
    ) in six
    spectator = " ".join(render_table(new_game(6, seed=3), max_width=80).split())
    assert "P4 (4) repeats column 4 of Player 4, where it closes Player 3's zone." in spectator
