"""The ``allegra-rules`` command line: the narrated demo game and its argument errors."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from allegra_rules.cli import BOT_KINDS, main, run_demo


def _demo(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = main(["demo", *args])
    captured = capsys.readouterr()
    assert code == 0
    assert captured.err == ""
    return captured.out


def test_demo_narrates_every_round_and_names_the_winners(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _demo(capsys, "--seed", "3", "--players", "4")
    lines = out.splitlines()
    assert lines[0] == (
        "Allegra demo: 4 players, preset seeds@1, seed 3, 3 rounds; lowest total wins."
    )
    assert lines[1:3] == [
        "Players: Player 1 (Greedy bot), Player 2 (Greedy bot), Player 3 (Greedy bot),",
        "  Player 4 (Greedy bot).",
    ]
    for r in (1, 2, 3):
        assert f"==================== Round {r} of 3 ====================" in lines
        assert f"Round {r} is over: every card is turned up." in lines
        assert out.index(f"Round {r} of 3 ===") < out.index(f"Round {r} is over")
    # Setup: two reveals per seat per round, then turns with their actions.
    assert len(re.findall(r"^  Player \d reveals ", out, re.M)) == 3 * 2 * 4
    turns = re.findall(r"^-- Turn \d+: Player \d", out, re.M)
    assert len(turns) > 30
    draws = re.findall(r"^  Player \d (?:draws|takes the -?\d+ from the discard)", out, re.M)
    assert len(draws) == len(turns)
    # One table per turn: after the setup of each round and after every turn that
    # does not end its round (3 rounds: 3 setup tables, 3 round-ending turns).
    tables = re.findall(r"^Round \d of 3 \| turn \d+: Player \d to draw", out, re.M)
    assert len(tables) == len(turns)
    # Round scores lines, the final totals and the winners agree with each other.
    scores = [
        [int(x) for x in re.findall(r"Player \d: (-?\d+)", line)]
        for line in lines
        if line.startswith("Round scores: ")
    ]
    assert len(scores) == 3
    totals = [sum(column) for column in zip(*scores, strict=True)]
    final = next(line for line in lines if line.startswith("Final totals: "))
    assert final == "Final totals: " + ", ".join(
        f"Player {s + 1}: {t}" for s, t in enumerate(totals)
    )
    best = min(totals)
    winners = [seat for seat, total in enumerate(totals) if total == best]
    # The winners' line, wrapped at 80 columns when several share the win.
    winner_line = " ".join(out[out.rindex("\nWinner: ") + 1 :].split())
    assert winner_line.startswith("Winner: ")
    assert winner_line.endswith(f"with {best} points.")
    # The winner is said as the "Players:" line says the seat.
    assert re.findall(r"Player (\d) \(Greedy bot\)", winner_line) == [str(s + 1) for s in winners]


def test_demo_is_deterministic_and_the_seed_matters(capsys: pytest.CaptureFixture[str]) -> None:
    first = _demo(capsys, "--seed", "3", "--players", "2")
    assert _demo(capsys, "--seed", "3", "--players", "2") == first
    assert _demo(capsys, "--seed", "4", "--players", "2") != first


def test_demo_defaults_and_a_mix_of_bots(capsys: pytest.CaptureFixture[str]) -> None:
    out = _demo(capsys)
    assert out.startswith("Allegra demo: 3 players, preset seeds@1, seed 2,")
    mixed = _demo(capsys, "--players", "3", "--bots", "random,greedy,random", "--preset", "fr")
    assert "preset fr@1" in mixed
    assert "Players: Player 1 (Random bot), Player 2 (Greedy bot), Player 3 (Random bot)." in mixed
    winner = " ".join(mixed[mixed.rindex("\nWinner: ") + 1 :].split())
    assert re.fullmatch(r"Winner: Player \d \((Random|Greedy) bot\).* with -?\d+ points\.", winner)
    one_name = _demo(capsys, "--players", "2", "--bots", "random")
    assert "Players: Player 1 (Random bot), Player 2 (Random bot)." in one_name


def test_demo_face_down_cards_are_drawn_as_hashes(capsys: pytest.CaptureFixture[str]) -> None:
    out = _demo(capsys, "--seed", "2", "--players", "2")
    rows = out[out.index(" 1  (") :].splitlines()[:3]
    reveals = re.findall(r"^  Player \d reveals an? (-?\d+) at", out, re.M)[:4]
    # After the setup 4 of the 24 cells are face up: 20 hashes right of the repeated column.
    assert sum(row[len(" 1  (##)") :].count("##") for row in rows) == 20
    shown = sorted(tok for row in rows for tok in re.findall(r"-?\d+", row[len(" 1  (##)") :]))
    assert shown == sorted(reveals)


def test_run_demo_writes_to_the_given_stream_and_returns_the_final_state() -> None:
    out = io.StringIO()
    state = run_demo(2, 5, "published", ["greedy", "random"], out)
    assert state.is_terminal
    text = out.getvalue()
    assert "\nWinner: " in text
    assert "knocks" not in text and "does not knock" not in text  # published: 3+ to knock
    with pytest.raises(ValueError, match="bot_names must name 2 bots"):
        run_demo(2, 5, "seeds", ["greedy"], io.StringIO())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "7"], "--players must be 2..6 with preset 'seeds'; got 7"),
        (["--players", "1"], "--players must be 2..6 with preset 'seeds'; got 1"),
        (["--preset", "nope"], "unknown preset 'nope'; known presets: seeds, de, pl, fr"),
        (["--preset", "fr@9"], "unknown version '9' of preset 'fr'"),
        (["--players", "x"], "argument --players: invalid int value: 'x'"),
        (["--bots", "greedy,smart"], "unknown bot 'smart' in --bots; known bots: greedy, random"),
        (["--players", "3", "--bots", "greedy,random"], "--bots names 2 bots but the game has 3"),
        (["--colour"], "unrecognized arguments: --colour"),
    ],
)
def test_bad_arguments_print_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert main(["demo", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("allegra-rules: error: ")
    assert message in captured.err
    assert captured.err.count("\n") == 1
    assert "Traceback" not in captured.err


def test_a_command_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "allegra-rules: error: the following arguments are required" in capsys.readouterr().err


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--help"]) == 0
    out = capsys.readouterr().out
    for option in ("--players", "--seed", "--preset", "--bots"):
        assert option in out
    assert set(BOT_KINDS) == {
        "greedy",
        "random",
        "policy",
        "search-guided",
        "search",
        "search-easy",
        "search-medium",
        "search-hard",
    }
    # argparse wraps the help at hyphens too ("search-" at the end of a line).
    joined = re.sub(r"-\n\s*", "-", out)
    for name in BOT_KINDS:
        assert name in joined


@pytest.mark.installed
def test_python_dash_m_runs_the_same_demo(capsys: pytest.CaptureFixture[str]) -> None:
    expected = _demo(capsys, "--seed", "6", "--players", "2", "--summary")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "allegra_rules",
            "demo",
            "--seed",
            "6",
            "--players",
            "2",
            "--summary",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout == expected
    bad = subprocess.run(
        [sys.executable, "-m", "allegra_rules", "demo", "--preset", "zz"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2
    assert bad.stderr.startswith("allegra-rules: error: unknown preset 'zz'")
    assert "Traceback" not in bad.stderr


@pytest.mark.installed
def test_console_script_is_installed() -> None:
    script = Path(sys.executable).parent / "allegra-rules"
    if not script.exists():
        pytest.skip("the package is not installed with its console script here")
    done = subprocess.run(
        [str(script), "demo", "--players", "8"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    expected = "allegra-rules: error: --players must be 2..6 with preset 'seeds'; got 8\n"
    assert done.stderr == expected


def test_a_closed_pipe_stops_the_demo_quietly() -> None:
    done = subprocess.run(
        f'"{sys.executable}" -m allegra_rules demo --players 6 --seed 2 | head -n 2',
        shell=True,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stdout.splitlines()[0].startswith("Allegra demo: 6 players")
    assert "Traceback" not in done.stderr
    assert "BrokenPipeError" not in done.stderr


def _exchanges(out: str) -> list[list[str]]:
    """Every whole knock exchange told in a narration: give, knocker's swap, take, swap."""
    # A sentence wrapped to the terminal continues on lines indented by four spaces.
    joined = out.replace("\n    ", " ")
    lines = [line.strip() for line in joined.splitlines() if line.startswith("  Player ")]
    found = []
    for k, line in enumerate(lines):
        give = re.match(r"Player (\d) gives the (-?\d+) to Player (\d)\.$", line)
        if not give:
            continue
        drawer, card, knocker = give.groups()
        rest = lines[k + 1 : k + 4]
        if (
            len(rest) == 3
            and rest[0].startswith(f"Player {knocker} swaps the {card} in at ")
            and rest[1].startswith(f"Player {drawer} takes the ")
            and rest[2].startswith(f"Player {drawer} swaps the ")
            and f"Player {knocker} fills the hole" in rest[2]
        ):
            found.append([line, *rest])
    return found


@pytest.mark.parametrize("players", [None, "4"])
def test_the_default_demo_and_the_readme_game_show_a_whole_knock_exchange(
    capsys: pytest.CaptureFixture[str], players: str | None
) -> None:
    # players None: `allegra-rules demo` as is; "4": the README's quick-start game.
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    seed = re.search(r"allegra-rules demo --players 4 --seed (\d+)", readme)
    assert seed is not None
    args = [] if players is None else ["--players", players, "--seed", seed.group(1)]
    assert _exchanges(_demo(capsys, *args))
    # A game without any exchange finds none: the check can fail.
    assert not _exchanges(_demo(capsys, "--players", "3", "--seed", "1"))


def test_six_players_on_80_columns_wrap_the_scores_between_seats(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    out = _demo(capsys, "--players", "6", "--seed", "4", "--quiet")
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 80
    start = next(k for k, line in enumerate(lines) if line.startswith("Final totals: "))
    assert len(lines[start]) > 60 and lines[start + 1].startswith("  ")  # wrapped
    # Every piece of the wrapped line ends after a whole "Player N: total" item.
    for line in lines[start : start + 2]:
        assert re.fullmatch(r"(Final totals:|  )( Player \d: -?\d+,?)+|  Player \d: -?\d+.*", line)
    joined = " ".join(" ".join(lines[start : start + 2]).split())
    assert re.fullmatch(r"Final totals: (Player \d: -?\d+, ){5}Player 6: -?\d+", joined)
