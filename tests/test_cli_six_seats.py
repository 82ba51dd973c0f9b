"""Six players on an 80x24 terminal: the turns since the person's last move, one line each.

The game runs in this process (``run_play`` as a person at a terminal would see it, with
``COLUMNS=80`` and ``LINES=24``) and is mirrored by ``play_script``, so the decision each
prompt asks is known: every turn played wholly by others since the person's last move
must be on the screen above the table, one line a turn, and the whole fits 80x24 (a
decision with a give per knocker may show only the latest turns: its menu is longer).
"""

from __future__ import annotations

import io
import re

import pytest

from allegra_rules import preset
from allegra_rules.cli._play import run_play
from allegra_rules.state import GameState, Phase
from play_script import script, short_config

PROMPT = "Your move (h help, l list, v table, q quit): "


class _Person(io.StringIO):
    """Standard input that answers a pause with Enter and a prompt with the next move.

    ``answers`` counts every line the person gives: the moves, the confirmations and
    the Enter of each pause, by the number of the scripted line that came next.
    """

    def __init__(self, out: io.StringIO, lines: list[str]) -> None:
        super().__init__()
        self.out = out
        self.lines = lines
        self.given = 0
        self.answers: list[int] = []

    def readline(self, size: int | None = -1) -> str:
        """The answer to what the game just asked."""
        self.answers.append(self.given)
        last = self.out.getvalue().rsplit("\n", 1)[-1]
        if last.startswith("-- ") and last.rstrip().endswith("--"):
            return "\n"
        self.given += 1
        return self.lines.pop(0) + "\n" if self.lines else ""


def _turn(state: GameState) -> int:
    """The turn a decision belongs to, as the status line numbers it."""
    return state.turns_played + (1 if state.phase is Phase.DRAW else 0)


@pytest.mark.parametrize("seed", [3, 8, 21])
def test_six_seats_at_80x24_show_every_turn_since_your_last_move(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "24")
    config = short_config(14)
    turns, final = script(6, 0, seed, config, pick_seed=seed, auto_pass=True)
    out = io.StringIO()
    person = _Person(out, [line for turn in turns for line in turn.typed])
    result = run_play(
        6, 0, "seeds", seed, ["greedy"] * 5, person, out,
        echo=True, config=config, auto_pass=True, pauses=True,
    )  # fmt: skip
    assert result.state == final and not person.lines
    chunks = out.getvalue().split("\n")
    screens: list[list[str]] = [[]]
    for line in chunks:
        screens[-1].append(line)
        if line.startswith(PROMPT):
            screens.append([])
    screens = screens[:-1]
    assert len(screens) == len(turns)
    full_loops = 0
    for k, (screen, turn) in enumerate(zip(screens, turns, strict=True)):
        # What the terminal shows at the prompt: from the last answer (or pause) on.
        start = max(
            (i + 1 for i, line in enumerate(screen[:-1]) if line.startswith(("Play this", "-- "))),
            default=0,
        )
        shown = screen[start:]
        if k:
            assert len(shown) <= 24, "\n".join(shown)
        assert max(len(line) for line in shown) <= 80, "\n".join(shown)
        text = "\n".join(shown)
        if turn.state.knockers:  # a give per knocker lengthens the menu: the latest turns
            continue
        assert "the last " not in text, text  # no turn left off the screen
        if not k or turns[k - 1].state.round != turn.state.round:
            continue
        since = [
            int(m[1]) for line in shown if (m := re.match(r"Turn (\d+)(?: \(last turn\))?: ", line))
        ]
        others = range(_turn(turns[k - 1].state) + 1, _turn(turn.state))
        missing = [t for t in others if t not in since]
        assert not missing, text
        # One line a turn: no continuation line between the heading and the table.
        head = next((i for i, line in enumerate(shown) if line.startswith("Since your")), None)
        if head is not None:
            table = next(i for i, line in enumerate(shown) if re.match(r"Round \d of 3 \| ", line))
            assert all(
                re.match(r"(Turn \d+|Round \d setup)", line)
                for line in shown[head + 1 : table]
                if line
            ), text
        if len(others) >= 5:
            full_loops += 1
    assert full_loops >= 1  # the person's draw after every other seat had a whole turn


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_six_seat_round_takes_at_most_45_inputs(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whole games of the ``seeds`` rules at six seats, the person playing as the greedy
    bot would with the knock windows asked only when the card could help (the default):
    every line typed in a round, the moves, the confirmations and the pauses' Enter,
    counts, and no round takes more than 45."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "24")
    config = preset("seeds")
    turns, final = script(6, 0, seed, config, person="greedy", pick_seed=seed, auto_pass=True)
    lines = [line for turn in turns for line in turn.typed]
    rounds = [turn.state.round for turn in turns for _ in turn.typed]
    out = io.StringIO()
    person = _Person(out, list(lines))
    result = run_play(
        6, 0, "seeds", seed, ["greedy"] * 5, person, out,
        echo=True, config=config, auto_pass=True, pauses=True,
    )  # fmt: skip
    assert result.state == final and not person.lines
    per_round = [0] * len(final.round_scores)
    for next_line in person.answers:
        per_round[rounds[min(next_line, len(rounds) - 1)] - 1] += 1
    print(f"inputs per round at six seats (seed {seed}): {per_round}")
    assert sum(per_round) == len(person.answers) > len(lines)
    assert max(per_round) <= 45, per_round
