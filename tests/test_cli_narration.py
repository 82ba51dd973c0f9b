"""What the terminal game says: the one-line turns and the legend of the first screen.

The one-line turns (``Narrator(style="turns", brief=True)``, what ``play`` writes above
the table when the whole narration does not fit) are plain sentences: every clause
starts with its subject, the person's seat is "you", a card is named wherever that
seat may know it and never otherwise. The first screen of a game explains the zone
notes, ``##`` and the far-left column at 80x24 for every seat count.
"""

from __future__ import annotations

import io
import random
import re
from collections.abc import Callable, Iterator

import attrs
import pytest

from allegra_rules import (
    Action,
    DrawDeck,
    DrawDiscard,
    GameState,
    Give,
    Phase,
    Reveal,
    RuleConfig,
    Swap,
    Take,
    apply,
    legal_actions,
    new_game,
    observe,
    preset,
)
from allegra_rules.cli import _common
from allegra_rules.cli._common import Narrator
from allegra_rules.cli._play import cell_menu
from allegra_rules.determinize import determinize
from allegra_rules.render import card_text, render_table
from allegra_rules.simulate import BOT_KINDS
from helpers import forged, setup_reveals

SUBJECT = re.compile(r"^(Player \d |you |a triple of |triples of |the round )")
"""How every clause of a one-line turn starts."""
HEAD = re.compile(r"^(Turn \d+( \(last turn\))?|Round \d setup): (.*)\.$")
IT = re.compile(r"\bit\b")

Step = tuple[GameState, Action, GameState]


def _configs() -> list[tuple[str, RuleConfig]]:
    seeds = preset("seeds")
    return [
        ("seeds", seeds),
        ("fr", preset("fr")),
        ("short", attrs.evolve(seeds, max_turns_per_round=12, removed_cards="discard")),
        ("simultaneous", attrs.evolve(seeds, setup_reveals="simultaneous", take_area="own")),
    ]


def _game(n: int, seed: int, kind: str, config: RuleConfig) -> Iterator[Step]:
    """The steps of one bot game."""
    bots = {seat: BOT_KINDS[kind](seed * 7 + seat) for seat in range(n)}
    state = new_game(n, config=config, seed=seed)
    while not state.is_terminal:
        actor = state.current_player
        assert actor is not None
        action = bots[actor].choose(state)
        after = apply(state, action)
        yield state, action, after
        state = after


def _games() -> Iterator[tuple[int, list[Step]]]:
    """Random and greedy games at 2-6 seats under several rule sets, with a seat for "you"."""
    for n in range(2, 7):
        for k, (_, config) in enumerate(_configs()):
            kind = "random" if k % 2 == 0 else "greedy"
            seed = 100 * n + k
            yield (seed + n) % n, list(_game(n, seed, kind, config))


def _brief(steps: list[Step], you: int) -> list[str]:
    out = io.StringIO()
    narrator = Narrator(out, you=you, style="turns", brief=True)
    for state, action, after in steps:
        narrator.step(state, action, after)
    narrator.flush_turn(steps[-1][0])  # a turn told so far, as play does before a prompt
    return out.getvalue().splitlines()


def test_every_clause_of_a_one_line_turn_starts_with_its_subject() -> None:
    verbs: set[str] = set()
    for you, steps in _games():
        lines = _brief(steps, you)
        assert lines
        for line in lines:
            assert not IT.search(line), line
            assert not re.search(rf"\bPlayer {you + 1}\b", line), (you, line)
            if re.match(r"^Round \d over: ", line):
                continue
            found = HEAD.match(line)
            assert found, line
            for clause in found[3].split("; "):
                assert SUBJECT.match(clause), (clause, line)
                words = clause.split()
                if words[0] == "Player":
                    verbs.add({"has": "have"}.get(words[2], words[2].removesuffix("s")))
                elif words[0] == "you":
                    verbs.add(words[1])
                else:
                    verbs.add(" ".join(words[:2]))
    # Every kind of action and outcome was told.
    assert {"reveal", "turn", "name", "show", "draw", "take", "knock", "give"} <= verbs
    assert {"swap", "discard", "fill", "have", "a triple", "the round"} <= verbs
    assert not {"keep", "put"} & verbs  # a swap is "swap" wherever the card came from


def test_a_one_line_turn_names_the_cards_and_calls_the_person_you() -> None:
    kinds: set[str] = set()
    for you, steps in _games():
        for state, action, after in steps:
            clauses = _common._brief(state, action, after, you)
            text = "; ".join(clauses)
            who = state.current_player
            if clauses:
                assert text.startswith("you " if who == you else f"Player {who + 1} "), text
            if isinstance(action, DrawDeck):
                assert card_text(after.held or 0) in text
            elif isinstance(action, DrawDiscard):
                assert f"the {state.discard_top} from the discard pile" in text
            elif isinstance(action, Give):
                to = "you" if action.player == you else f"Player {action.player + 1}"
                assert f"the {state.held} to {to}" in text
            elif isinstance(action, Swap):
                assert f"the {state.held} " in text
                kinds.add(f"Swap {state.phase.name}")
            elif isinstance(action, Take) and state.is_face_up(action.pos):
                assert f"the {state.card(action.pos)} from " in text
            elif isinstance(action, Reveal) and not (
                state.phase is Phase.SETUP and state.config.setup_reveals == "simultaneous"
            ):
                assert card_text(state.card(action.pos) or 0) in text
            kinds.add(type(action).__name__)
    assert {"Swap HOLD_DECK", "Swap HOLD_DISCARD", "Swap KNOCKER_SWAP", "Swap HOLD_TAKEN"} <= kinds
    assert {
        "Reveal",
        "DrawDeck",
        "DrawDiscard",
        "Knock",
        "Pass",
        "Give",
        "Discard",
        "Take",
    } <= kinds


def _twin_lines(steps: list[Step], you: int, tries: int = 12) -> Iterator[tuple[str, str, Step]]:
    """For each step, the one-line narration of it and of a twin step ``you`` cannot tell apart.

    The twin is dealt by ``determinize`` from what ``you`` sees before the step, and the
    same action is applied to it; it is kept only when ``you`` sees the same after it too
    (a card drawn or turned up is public from then on). Both narrations start afresh.
    """
    for number, (state, action, after) in enumerate(steps):
        seen = observe(after, you)
        rng = random.Random(number)
        for _ in range(tries):
            twin = determinize(observe(state, you), rng)
            twin_after = apply(twin, action)
            if observe(twin_after, you) != seen:
                continue
            mine, theirs = (
                "\n".join(_brief([step], you))
                for step in ((state, action, after), (twin, action, twin_after))
            )
            yield mine, theirs, (state, action, after)
            break


def _secrecy_failures(steps_of_games: list[tuple[int, list[Step]]]) -> list[tuple[str, str]]:
    failures = []
    for you, steps in steps_of_games:
        for mine, theirs, _ in _twin_lines(steps, you):
            if mine != theirs:
                failures.append((mine, theirs))
    return failures


@pytest.fixture(scope="module")
def exchange_games() -> list[tuple[int, list[Step]]]:
    """Random-bot games full of knock exchanges, short rounds, each with a seat for "you"."""
    config = attrs.evolve(preset("seeds"), max_turns_per_round=30)
    return [(seed % n, list(_game(n, seed, "random", config))) for n in (3, 4) for seed in (1, 2)]


def test_the_one_line_turns_tell_a_seat_nothing_it_cannot_see(
    exchange_games: list[tuple[int, list[Step]]],
) -> None:
    compared = sum(1 for you, steps in exchange_games for _ in _twin_lines(steps, you))
    assert compared > 200
    assert _secrecy_failures(exchange_games) == []


def _leak_taken_card(original: Callable[..., str]) -> Callable[..., str]:
    """``_brief_action`` naming the face-down card a drawer takes, to everyone."""

    def leaky(state: GameState, action: Action, after: GameState, you: int | None) -> str:
        if isinstance(action, Take) and not state.is_face_up(action.pos):
            return f"Player {state.current_player + 1} takes the face-down {state.card(action.pos)}"
        return original(state, action, after, you)

    return leaky


def test_the_secrecy_check_catches_a_line_that_names_another_seats_taken_card(
    exchange_games: list[tuple[int, list[Step]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_common, "_brief_action", _leak_taken_card(_common._brief_action))
    failures = _secrecy_failures(exchange_games)
    assert failures
    assert all("takes the face-down" in mine for mine, _ in failures)


def _first_decision(n: int, you: int) -> GameState:
    """The state of the person's first decision: the bots of the other seats play before it."""
    bots = {seat: BOT_KINDS["greedy"](seat) for seat in range(n)}
    state = new_game(n, seed=3)
    while state.current_player != you:
        actor = state.current_player
        assert actor is not None
        state = apply(state, bots[actor].choose(state))
    return state


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_the_first_screen_at_80x24_explains_the_notes_the_symbols_and_the_far_left_column(
    n: int,
) -> None:
    columns, rows = 80, 24
    for you in sorted({0, n - 1}):
        state = _first_decision(n, you)
        menu = cell_menu(state, legal_actions(state), you)
        # The screen: a blank line, the table with its legend, the menu, the prompt.
        for compact in (False, True):
            table = render_table(state, viewer=you, max_width=columns, compact=compact)
            if table.count("\n") + 1 + len(menu) + 2 <= rows:
                break
        lines = table.split("\n")
        assert len(lines) + len(menu) + 2 <= rows, table
        assert max(len(line) for line in lines) <= columns
        bare = render_table(state, legend=False, viewer=you, max_width=columns, compact=compact)
        assert table.startswith(bare + "\n")
        legend = " ".join(table[len(bare) :].split())
        assert "sum" in legend and "##" in legend, legend
        assert "far left" in legend and "(4)" in legend, legend
        far = [re.match(r" +(P\d) ", line) for line in bare.split("\n")]
        ghosts = {m[1] for m in far if m}
        assert ghosts, bare
        if len(ghosts) == 1:
            assert f"{ghosts.pop()} (4)" in legend, legend
        else:
            assert "PK (4) = Player K's [4]" in legend, legend
        assert "zone" in legend and "area" not in legend


def test_a_draw_from_an_empty_pile_says_so_in_one_clause() -> None:
    state = setup_reveals(new_game(3, seed=4))
    empty = forged(state, draw_pile=(), discard_pile=state.draw_pile + state.discard_pile)
    after = apply(empty, DrawDeck())
    drawn = card_text(after.held or 0)
    who = empty.current_player
    assert _common._brief(empty, DrawDeck(), after, who) == [
        f"you draw {drawn} from a new draw pile (the discard pile but its top card, reshuffled)"
    ]
    other = (who or 0) + 1
    assert _common._brief(empty, DrawDeck(), after, other)[0].startswith(f"Player {who + 1} draws ")


@pytest.mark.parametrize(("players", "seed"), [(2, 6), (4, 3), (6, 11)])
def test_demo_summary_tells_each_turn_on_one_line_of_80_columns(
    players: int, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from allegra_rules.cli._demo import play_demo

    monkeypatch.setenv("COLUMNS", "80")
    out = io.StringIO()
    final, actions = play_demo(players, seed, "seeds", ["greedy"] * players, out, style="turns")
    lines = out.getvalue().splitlines()
    turn_lines = [line for line in lines if line.startswith("Turn ")]
    for k, line in enumerate(lines):
        if line.startswith("Turn "):
            assert len(line) < 80, line
            # Never continued on the next line (a wrapped line's rest is indented).
            assert k + 1 == len(lines) or not lines[k + 1].startswith(" "), lines[k : k + 2]
    # Every turn of every round has its line, in order (the rounds' lines between).
    state, told = new_game(players, seed=seed), []
    for action in actions:
        after = apply(state, action)
        ends = after.round != state.round or after.is_terminal or after.phase is Phase.DRAW
        if ends and state.phase is not Phase.SETUP and state.turns_played:
            told.append(state.turns_played)
        state = after
    assert state == final
    assert [int(line.split(":")[0].split()[1]) for line in turn_lines] == told
    # A subject is said once for the clauses it starts in a row; the card just named is "it".
    assert not any(re.search(r"(Player \d+) [^;]*; \1 ", line) for line in turn_lines)
    assert any(
        re.search(r"Player \d+ draws an? -?\d+, (swaps it in|discards it)\b", line)
        for line in turn_lines
    )
