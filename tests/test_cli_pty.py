"""``allegra-rules play`` in a real pseudo-terminal: one whole game per seat count 2..6.

Each game runs the installed command under ``pexpect`` with the terminal size set
(80x24 for 2-4 players, 100x30 for 5 and 6), types every move as a cell or a letter
(the game is mirrored in this process to choose them, see ``play_script``), and
checks that every screen fits the terminal: from the table's first line to the
prompt, no line is wider than the terminal and there are no more lines than it has,
and the seat names, the held card (on its line or the status line) and the prompt
are on it. Rounds are kept short
with ``--max-turns``.
"""

from __future__ import annotations

import os
import re
import sys

import pytest

pexpect = pytest.importorskip("pexpect", reason="the pty tests need pexpect (the test extra)")

from play_script import script, short_config

if sys.platform == "win32":
    pytest.skip("needs a POSIX pseudo-terminal", allow_module_level=True)

PROMPT = "Your move (h help, l list, v table, q quit): "
CONFIRM = "Play this move? y to play it, anything else to choose again: "
PAUSE = r"-- [a-z ]*press Enter[a-z0-9 ]* --"
KEEP = "Keep this game to watch it again? A file name saves it; Enter ends: "
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _screens(text: str) -> list[list[str]]:
    """Every screen: the lines from a table's status line to the prompt after it."""
    lines = _ANSI.sub("", text).replace("\r\n", "\n").split("\n")
    screens = []
    start = None
    for k, line in enumerate(lines):
        if re.match(r"Round \d of 3 \| ", line):
            start = k
        if line.startswith(PROMPT) and start is not None:
            screens.append(lines[start : k + 1])
            start = None
    return screens


def _play(players: int, seat: int, seed: int, columns: int, rows: int) -> str:
    config = short_config(4)
    turns, final = script(players, seat, seed, config, pick_seed=seed)
    env = dict(os.environ, COLUMNS=str(columns), LINES=str(rows))
    child = pexpect.spawn(
        sys.executable,
        ["-m", "allegra_rules", "play", "--players", str(players), "--seat", str(seat),
         "--seed", str(seed), "--max-turns", "4"],
        env=env,
        dimensions=(rows, columns),
        encoding="utf-8",
        timeout=60,
    )  # fmt: skip
    transcript = []
    pending = [line for turn in turns for line in turn.typed]
    try:
        while True:
            seen = child.expect(
                [re.escape(PROMPT), re.escape(CONFIRM), PAUSE, re.escape(KEEP), pexpect.EOF]
            )
            transcript.append(child.before + (child.after if seen < 4 else ""))
            if seen == 4:
                break
            child.sendline(pending.pop(0) if seen < 2 else "")
    finally:
        child.close(force=True)  # never leave the game running when the test fails
    assert not pending
    assert child.exitstatus == 0, transcript[-1][-500:]
    out = "".join(transcript)
    totals = "Final totals: " + ", ".join(
        f"Player {s + 1}: {t}" for s, t in enumerate(final.totals)
    )
    # The game in the terminal is the mirrored game (the line may be wrapped at spaces).
    assert totals in " ".join(out.split())
    return out


def _between_answers(text: str) -> list[list[str]]:
    """The lines written between two answers: what the terminal shows at the second prompt."""
    lines = _ANSI.sub("", text).replace("\r\n", "\n").split("\n")
    chunks: list[list[str]] = [[]]
    for line in lines:
        chunks[-1].append(line)
        if line.startswith((PROMPT, CONFIRM)) or re.match(PAUSE, line):
            chunks.append([])
    return chunks[1:-1]  # the opening lines before the first answer may scroll


@pytest.mark.parametrize(
    ("players", "columns", "rows"),
    [(2, 80, 24), (3, 80, 24), (4, 80, 24), (5, 100, 30), (6, 100, 30), (6, 80, 24)],
)
def test_a_whole_game_typed_cell_by_cell_fits_the_terminal(
    players: int, columns: int, rows: int
) -> None:
    out = _play(players, players - 1, 10 + players, columns, rows)
    # Nothing scrolls away unseen: whatever is written between two answers (the moves
    # since the last one, the table, the menu, a round's scores) fits the terminal,
    # one line a turn, the latest that fit (m shows the rest).
    for chunk in _between_answers(out):
        assert len(chunk) <= rows, "\n".join(chunk)
        assert max(len(line) for line in chunk) <= columns, "\n".join(chunk)
    assert re.search(PAUSE.replace("[a-z0-9 ]*", " to deal round 2"), out)
    screens = _screens(out)
    assert len(screens) >= 3 * (2 + 1)  # three rounds: two setup reveals and a turn at least
    for screen in screens:
        assert len(screen) <= rows, "\n".join(screen)
        assert max(len(line) for line in screen) <= columns, "\n".join(screen)
        text = "\n".join(screen)
        for seat in range(players):
            assert f"Player {seat + 1}" in text or "You" in text  # every seat is named
        # What is held: its own line, or the status line says it (nothing, or the card).
        assert re.search(r"^Held: ", text, re.M) or re.search(
            r"\| (setup: |turn \d+: .*(to draw|turns up|may knock for the -?\d|holds the -?\d"
            r"|swaps in the -?\d))",
            text,
        ), text
        assert screen[-1].startswith(PROMPT)
    assert "Game over" in out and "your total is" in out
    assert out.rstrip().endswith(KEEP.rstrip())  # a finished game offers its replay


@pytest.mark.slow
def test_six_players_on_an_80_by_24_terminal_stack_the_table_in_two_bands() -> None:
    out = _play(6, 0, 3, 80, 24)
    for screen in _screens(out):
        assert max(len(line) for line in screen) <= 80
        # Two bands fill the screen: a held card that others knocked for adds a line.
        assert len(screen) <= 25 or "Careful" in "\n".join(screen)
        heads = [line for line in screen if re.match(r" +P\d +", line)]
        assert len(heads) == 2  # two bands, each with its repeated column 3
