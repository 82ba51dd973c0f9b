"""How many answers a whole ``allegra-rules play`` game asks of a person.

A scripted person plays seat 0 against greedy bots. Its decisions are the same in
both runs: the ``greedy`` bot's, except that it draws from the draw pile wherever
auto-pass would draw for it (``draw_reason`` finds no use for the discard pile's
top) and that it picks both setup cells before seeing the first. The script counts
every line the game reads:

* **before**: as ``play`` was before auto-pass: every knock window and every draw
  asked, one move a line, no waiting for a key (``run_play`` without ``auto_pass``
  and ``pauses``);
* **after**: ``play --auto-pass`` at an 80x24 terminal: the knock windows and the
  draws that do not matter are answered by themselves, the game waits for Enter
  after the opening lines and after each round's scores (never between the moves
  and the table), and two moves go on one line where they can: a discard followed
  by a turn-up, or a take from the discard pile followed by its swap
  (``p ROW COL``), and the two setup cells (``r ROW COL ROW COL``).

Both runs must play the same game (the script checks the final totals agree). It
prints each game's lines, and the lines per round::

    PYTHONPATH=src python benchmarks/play_inputs.py --games 10 --players 6
"""

from __future__ import annotations

import argparse
import io
import os
import statistics

from allegra_rules import apply, legal_actions
from allegra_rules.actions import Action, Discard, DrawDeck, DrawDiscard
from allegra_rules.bots import GreedyBot
from allegra_rules.cli import _play
from allegra_rules.cli._moves import move_text
from allegra_rules.cli._play import draw_reason, seat_picture
from allegra_rules.simulate import bot_seed
from allegra_rules.state import GameState, Phase


class ScriptedPerson(io.TextIOBase):
    """Answers each prompt written to ``out``: Enter at a pause, else the planned move."""

    def __init__(self, out: io.StringIO, seat: int, seed: int, chain: bool) -> None:
        self.out = out
        self.seat = seat
        self.bot = GreedyBot(bot_seed(seed, seat))
        self.chain = chain
        self.state: GameState | None = None
        self.lines = 0
        self.pauses = 0
        self.knocks = 0
        self.rounds: dict[int, int] = {}
        self.planned: Action | None = None

    def decide(self, state: GameState) -> Action:
        """The person's move: the greedy bot's, with the draws auto-pass makes."""
        if self.planned is not None:
            action, self.planned = self.planned, None
            return action
        drawing = state.phase is Phase.DRAW and DrawDeck() in legal_actions(state)
        if drawing and draw_reason(state, self.seat) is None:
            return DrawDeck()
        action = self.bot.choose(state)
        if state.phase is Phase.SETUP:
            # The second setup cell is chosen before the first card turns up.
            after = apply(seat_picture(state, self.seat), action)
            if after.phase is Phase.SETUP and after.current_player == self.seat:
                self.planned = self.bot.choose(after)
        return action

    def readline(self, size: int = -1) -> str:
        self.lines += 1
        state = self.state
        number = 1 if state is None else state.round
        self.rounds[number] = self.rounds.get(number, 0) + 1
        shown = self.out.getvalue()
        if shown.endswith(" --"):
            self.pauses += 1
            return "\n"
        if shown.endswith("choose again: "):
            return "y\n"
        assert state is not None
        if state.phase is Phase.KNOCK:
            self.knocks += 1
        action = self.decide(state)
        typed = move_text(state, action, self.seat)
        if self.chain and self.planned is not None:
            second, self.planned = self.planned, None
            typed += " " + move_text(apply(state, action), second, self.seat).split(" ", 1)[1]
        elif self.chain and isinstance(action, (Discard, DrawDiscard)):
            after = apply(state, action)
            if after.current_player == self.seat and after.phase in (
                Phase.FLIP,
                Phase.HOLD_DISCARD,
            ):
                # The second move uses only what the seat sees before the first.
                cell = move_text(after, self.bot.choose(after), self.seat).split(" ", 1)[1]
                typed = f"p {cell}"
        return typed + "\n"


def play(seed: int, after: bool, players: int = 4) -> tuple[ScriptedPerson, tuple[int, ...]]:
    """One game; the scripted person and the final totals."""
    out = io.StringIO()
    person = ScriptedPerson(out, 0, seed, chain=after)
    original = _play._Session.choose

    def choose(session: _play._Session, state: GameState) -> object:
        person.state = state
        return original(session, state)

    _play._Session.choose = choose  # type: ignore[assignment,method-assign]
    try:
        result = _play.run_play(
            players, 0, "seeds", seed, ["greedy"] * (players - 1), person, out,
            echo=True, auto_pass=after, pauses=after,
        )  # fmt: skip
    finally:
        _play._Session.choose = original  # type: ignore[method-assign]
    return person, result.state.totals


def main() -> None:
    """Print the answers per game before and after, and the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    os.environ["COLUMNS"], os.environ["LINES"] = "80", "24"
    before_all, after_all, per_round = [], [], []
    print("seed  before (knock answers)  after (knock answers, waits for Enter)  ratio  rounds")
    for seed in range(1, args.games + 1):
        before, totals = play(seed, False, args.players)
        after, totals_after = play(seed, True, args.players)
        assert totals == totals_after, "the two runs played different games"
        before_all.append(before.lines)
        after_all.append(after.lines)
        per_round.append(statistics.mean(after.rounds.values()))
        print(
            f"{seed:4}  {before.lines:6} ({before.knocks:3})          "
            f"{after.lines:5} ({after.knocks:2}, {after.pauses:2})"
            f"                       {after.lines / before.lines:.2f}   "
            + " ".join(str(after.rounds[k]) for k in sorted(after.rounds))
        )
    b, a = statistics.median(before_all), statistics.median(after_all)
    print(f"median: before {b}, after {a} ({a / b:.2f}); worst ratio "
          f"{max(x / y for x, y in zip(after_all, before_all, strict=True)):.2f}")  # fmt: skip
    print(f"after, lines per round (a game's mean): median {statistics.median(per_round):.1f}")


if __name__ == "__main__":
    main()
