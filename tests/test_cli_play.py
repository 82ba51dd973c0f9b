"""``allegra-rules play``: auto-pass, the fate of a drawn card, ``p ROW COL``, ``--resume``.

The games are mirrored in this process (``play_script``), so each test knows every
decision the person faces and what the game must end in.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from allegra_rules import GameRecord, GameState, Pos, apply, legal_actions, new_game, replay
from allegra_rules.actions import Discard, DrawDeck, DrawDiscard, Knock, Pass, Swap
from allegra_rules.cli import run_demo
from allegra_rules.cli._common import Narrator
from allegra_rules.cli._play import knock_reason
from allegra_rules.render import wrap_words
from allegra_rules.state import Phase
from helpers import forged
from play_script import script, short_config, typed_lines
from test_cli_commands import cli, fails, ok

ASKS = "You are asked this time, as "
PILE = "You choose the pile this time, as "


def _totals_line(totals: tuple[int, ...]) -> str:
    return "Final totals: " + ", ".join(f"Player {s + 1}: {t}" for s, t in enumerate(totals))


def test_auto_pass_asks_only_the_knock_windows_that_matter() -> None:
    config = short_config(30)
    turns, final = script(4, 0, 5, config, auto_pass=True)
    asked = [turn for turn in turns if turn.state.phase is Phase.KNOCK]
    assert asked and all(knock_reason(turn.state, 0) for turn in asked)
    stdin = "\n".join(typed_lines(turns)) + "\n"
    args = ["play", "--players", "4", "--seed", "5", "--max-turns", "30", "--auto-pass"]
    out = ok(*args, stdin=stdin)
    assert _totals_line(final.totals) in " ".join(out.split())
    assert "On: ask me only when the card could help me." in out
    # A knock prompt is shown exactly for the windows that matter, each saying why,
    # and they are a small part of the windows seat 0 answered.
    windows = len(re.findall(r"^  You (knock|do not knock)\b", out, re.M))
    joined = " ".join(out.split("\n  "))
    knocks = re.findall(re.escape(ASKS) + r"(.*)\.", joined)
    piles = re.findall(re.escape(PILE) + r"(.*)\.", joined)
    draws = [turn for turn in turns if turn.state.phase is Phase.DRAW]
    assert len(knocks) == len(asked) < windows / 3
    assert len(piles) == len(draws)
    # Every window passed and every draw made for the person is said, one line each.
    passed = out.count("  Passed for you: the ")
    drawn = out.count("  Drawn for you from the draw pile: the ")
    assert passed == windows - len(asked) > 0
    assert drawn > 0
    assert len(re.findall(r"^  You draw", out, re.M)) == drawn + sum(
        1 for turn in turns if turn.action == DrawDeck()
    )
    for reason in knocks:
        assert re.fullmatch(r"the -?\d+ (is \d+ lower than|swapped in at) .*", reason)
    assert out.count("   a    ask me only when the card could help me: turn it off") == len(asked)


def test_without_auto_pass_every_window_asks_and_a_turns_it_on() -> None:
    config = short_config(30)
    turns, final = script(4, 0, 5, config, auto_pass=True)
    # "a" at the first prompt turns auto-pass on: the rest is the auto-pass game.
    stdin = "a\n" + "\n".join(typed_lines(turns)) + "\n"
    out = ok("play", "--players", "4", "--seed", "5", "--max-turns", "30", stdin=stdin)
    assert "Off: ask me only when the card could help me. You answer every" in out
    assert "On: ask me only when the card could help me." in out
    assert _totals_line(final.totals) in " ".join(out.split())


def test_the_narration_says_what_became_of_a_card_others_knocked_for() -> None:
    found = {"keeps it": 0, "discards it": 0}
    state = new_game(3, seed=1)
    for _ in range(3000):
        if state.is_terminal or all(found.values()):
            break
        legal = list(legal_actions(state))
        if state.phase is Phase.DRAW:
            action = DrawDeck()
        elif state.phase is Phase.KNOCK:
            action = Knock()
        elif state.phase is Phase.HOLD_DECK and state.knockers:
            # Keep the card one time, discard it the next.
            wanted = Swap if found["keeps it"] <= found["discards it"] else Discard
            action = next(a for a in legal if isinstance(a, wanted))
            out = io.StringIO()
            Narrator(out).step(state, action, apply(state, action))
            text = " ".join(out.getvalue().split())
            fate = "keeps it" if wanted is Swap else "discards it"
            knockers = " and ".join(f"Player {k + 1}" for k in state.knockers)
            where = (
                f"it stays with Player {state.drawer + 1}"
                if wanted is Swap
                else "it goes onto the discard pile"
            )
            assert f"{knockers} knocked for the {state.held}, but {where}." in text
            found[fate] += 1
        else:
            action = legal[len(legal) // 2]
        state = apply(state, action)
    assert all(found.values()), found


def test_p_row_col_takes_the_discard_pile_and_swaps_in_one_line() -> None:
    state = new_game(2, seed=3)
    lines = []
    while state.phase is Phase.SETUP:
        seat = state.current_player
        action = legal_actions(state)[0]
        if seat == 0:
            lines.append(f"r {action.pos.row + 1}{action.pos.col + 1}")
        state = apply(state, action)
    assert state.current_player == 0 and DrawDiscard() in list(legal_actions(state))
    top = state.discard_top
    out = ok(
        "play", "--players", "2", "--seed", "3", stdin="\n".join([*lines, "p 34", "q", "y"]) + "\n"
    )
    assert f"  You take the {top} from the discard pile." in out
    assert f"  You swap the {top} in at row 3, column 4 and discard the" in out
    # One prompt answered both: the swap was not asked for.
    assert "Your move (h help, l list, v table, q quit): p 34\n" in out
    assert out.count("swap the " + str(top) + " in (the card there is discarded)") == 0


def _partial(tmp_path: Path, cut: int) -> tuple[Path, list[str], GameState]:
    config = short_config(12)
    turns, final = script(3, 1, 8, config)
    lines = typed_lines(turns)
    path = tmp_path / "game.json"
    args = ["play", "--players", "3", "--seat", "1", "--seed", "8", "--max-turns", "12"]
    ok(*args, "--save", str(path), stdin="\n".join([*lines[:cut], "q"]) + "\n")
    return path, lines[cut:], final


def test_resume_continues_a_saved_game_to_its_end(tmp_path: Path) -> None:
    path, _, _ = _partial(tmp_path, 20)
    saved = GameRecord.from_json(path.read_text())
    assert not replay(saved).is_terminal
    # The bots are not asked again for their saved moves: they go on seeded afresh.
    turns, final = script(3, 1, 8, short_config(12), state=replay(saved), pick_seed=3)
    rest = typed_lines(turns)
    assert saved.seats == ("greedy", "person", "greedy")
    out = ok("play", "--resume", str(path), stdin="\n".join(rest) + "\n")
    assert f"Resuming the saved game after {len(saved.actions)} actions" in out
    assert _totals_line(final.totals) in " ".join(out.split())
    assert out.rstrip().splitlines()[-2:] == [
        f"Saved the game record to {str(path)!r}.",
        f"Watch it again turn by turn: allegra-rules replay {path}",
    ]
    record = GameRecord.from_json(path.read_text())
    assert record.actions[: len(saved.actions)] == saved.actions
    assert replay(record) == final and record.config == saved.config and record.seed == 8


def test_resume_refuses_bad_files_and_options_with_exit_2(tmp_path: Path) -> None:
    missing = tmp_path / "nothing.json"
    assert "--resume" in fails(2, "play", "--resume", str(missing), stdin="q\n")
    assert "cannot read" in fails(2, "play", "--resume", str(missing), stdin="q\n")
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert "is not a valid game record" in fails(2, "play", "--resume", str(broken), stdin="")
    done = tmp_path / "done.json"
    ok("demo", "--players", "2", "--seed", "3", "--max-turns", "3", "--save", str(done))
    assert "that game is already over" in fails(2, "play", "--resume", str(done), stdin="")
    path, _, _ = _partial(tmp_path, 20)
    message = fails(2, "play", "--resume", str(path), "--players", "3", stdin="")
    assert "leave out --players" in message
    # The seat and the bots come from the file: others are refused in players' words.
    message = fails(2, "play", "--seat", "0", "--resume", str(path), stdin="q\n")
    assert "you played seat 1 of that game; leave out --seat" in message
    message = fails(2, "play", "--bots", "random", "--resume", str(path), stdin="q\n")
    assert "played against greedy,greedy; leave out --bots" in message
    assert "action " not in message and "Pass()" not in message
    assert cli("play", "--seat", "1", "--resume", str(path), stdin="q\n").returncode == 0
    assert cli("play", "--resume", str(path), stdin="q\n").returncode == 0


def test_the_greedy_bot_knocks_only_where_auto_pass_asks() -> None:
    from allegra_rules.bots import GreedyBot

    bot = GreedyBot(0)
    for seed in range(6):
        state = new_game(4, seed=seed)
        while not state.is_terminal:
            if state.phase is Phase.KNOCK:
                seat = state.current_player
                assert seat is not None
                if bot.choose(state) == Knock():
                    assert knock_reason(state, seat) is not None
            state = apply(state, bot.choose(state) if state.phase is not Phase.KNOCK else Pass())


def _window(held: int, face_up: dict[tuple[int, int], int]) -> GameState:
    """A knock window of a 3-player game where seat 1 is asked about ``held``.

    Seat 1's grid is face down but for ``face_up`` ((row, col) -> value).
    """
    state = new_game(3, seed=2)
    while state.phase is not Phase.KNOCK or state.current_player != 1:
        legal = legal_actions(state)
        state = apply(state, DrawDeck() if DrawDeck() in legal else legal[0])
    geo = state.geometry
    cells = list(state.cells)
    face_down = state.face_down
    for i in geo.own[1]:
        cells[i] = 4
        face_down |= 1 << i
    for (row, col), value in face_up.items():
        i = Pos(1, row, col).index
        cells[i] = value
        face_down &= ~(1 << i)
    # Seat 1's zone also holds seat 2's column 3: face down for these cases.
    for i in geo.zone[1]:
        if i not in geo.own[1]:
            face_down |= 1 << i
    return forged(state, cells=tuple(cells), face_down=face_down, held=held)


@pytest.mark.parametrize(
    ("held", "face_up", "expected"),
    [
        (1, {(0, 1): 9}, "the 1 is 8 lower than the 9 at row 1, column 2"),
        (2, {(2, 2): 8, (0, 0): 3}, "the 2 is 6 lower than the 8 at row 3, column 3"),
        (-1, {(0, 1): 7}, None),  # nothing high enough to replace
        (3, {(0, 1): 11}, None),  # not low enough
        (5, {(0, 0): 5, (1, 0): 5}, "the 5 swapped in at row 3, column 1 would complete a triple"),
        (-1, {(0, 0): -1, (1, 0): -1}, None),  # a triple of -1s would cost points
        (5, {(0, 0): 5, (1, 1): 5}, None),  # not in a line
    ],
)
def test_knock_reason_asks_for_a_low_card_or_a_triple(
    held: int, face_up: dict[tuple[int, int], int], expected: str | None
) -> None:
    state = _window(held, face_up)
    assert knock_reason(state, 1) == expected
    assert knock_reason(state, 0) is None  # seat 0 is not asked now


@pytest.mark.parametrize("width", [40, 57, 80])
def test_wrap_words_cuts_only_between_items(width: int) -> None:
    out = io.StringIO()
    run_demo(6, 3, "seeds", ["greedy"] * 6, out, style="turns")
    for text in out.getvalue().splitlines():
        lines = wrap_words(text, width, "  ")
        assert " ".join(" ".join(lines).split()) == " ".join(text.split())
        for line, after in zip(lines, [*lines[1:], ""], strict=True):
            assert len(line) <= width or " " not in line.strip()
            assert not re.search(r"\b[Ss]eats?$|\(-?\d+,$", line), line
            cut_value = re.search(r"\bPlayer \d+:$", line) and re.match(r" *-?\d", after)
            assert not cut_value, (line, after)
