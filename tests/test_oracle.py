"""The oracle (allegra_rules.oracle): it sees every card, and nobody is offered it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from allegra_rules import GameState, apply, legal_actions, new_game
from allegra_rules.bot_kinds import BOT_KINDS
from allegra_rules.oracle import OracleBot
from test_bots import _sample_states, hidden_variants


def test_the_oracle_plays_legal_moves_and_repeats_itself() -> None:
    for n, seed in ((2, 3), (3, 4)):
        runs = []
        for _ in range(2):
            bots = [OracleBot(p, playouts=1) for p in range(n)]
            state, chosen = new_game(n, seed=seed), []
            for _ in range(40):
                if state.is_terminal:
                    break
                action = bots[state.current_player or 0].choose(state)
                assert action in legal_actions(state)
                chosen.append(action)
                state = apply(state, action)
            runs.append(chosen)
        assert runs[0] == runs[1] and len(runs[0]) == 40


def test_the_oracle_reads_the_cards_its_seat_cannot_see() -> None:
    """Two states the seat cannot tell apart: the oracle, unlike every player, may differ."""
    states: list[GameState] = _sample_states(120)
    for state in states:
        mine = OracleBot(5, playouts=1).choose(state)
        if any(OracleBot(5, playouts=1).choose(v) != mine for v in hidden_variants(state)):
            return
    pytest.fail("the oracle chose the same in every pair of states")


def test_nobody_is_offered_the_oracle() -> None:
    assert not any("oracle" in name for name in BOT_KINDS)
    # Nothing a player reaches imports it: the bots' registry, the command line, the table.
    code = (
        "import sys\n"
        "import allegra_rules.bot_kinds, allegra_rules.cli, allegra_rules.browser_table\n"
        "print('allegra_rules.oracle' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [({"playouts": 0}, "playouts"), ({"candidates": 1.5}, "candidates"), ({"seed": "1"}, "seed")],
)
def test_bad_arguments_are_refused(arguments: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        OracleBot(**arguments)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="GameState"):
        OracleBot().choose("state")  # type: ignore[arg-type]
