"""The plain-text report of ``simulate``: every number of a column in one format."""

from __future__ import annotations

import re
from typing import Any

import attrs

from allegra_rules import preset
from allegra_rules.simulate import play_game, summarize


def fake(totals: tuple[int, ...], winners: tuple[int, ...]) -> Any:
    game = play_game(3, preset("seeds"), 1, ["random"] * 3)
    return attrs.evolve(game, totals=totals, winners=winners)


def test_wins_are_written_in_one_format_whole_or_shared() -> None:
    # Seat 0 wins one game alone and shares one three ways: 1 + 1/3; seats 1 and 2: 1/3.
    games = [fake((5, 9, 9), (0,)), fake((7, 7, 7), (0, 1, 2)), fake((9, 3, 9), (1,))]
    summary = summarize(games, bots=["random"] * 3)
    lines = summary.to_text().splitlines()
    header = lines[2].split()
    column = header.index("wins") - 1  # "mean total" is two words in the header
    wins = [line.split()[column] for line in lines[3:6]]
    assert wins == ["1.33", "1.33", "0.33"]
    whole = summarize([fake((5, 9, 9), (0,))], bots=["random"] * 3).to_text().splitlines()
    assert [line.split()[column] for line in whole[3:6]] == ["1.00", "0.00", "0.00"]
    for line in lines[3:6] + whole[3:6]:
        assert re.fullmatch(r"\d+\.\d\d", line.split()[column]), line
