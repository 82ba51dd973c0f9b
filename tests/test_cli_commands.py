"""The ``allegra-rules`` subcommands: simulate, play, rules, replay.

Most tests run the command line in this process (``main(argv)`` with standard input,
output and error replaced), which checks the same exit codes and text as a real
process at a fraction of the cost; a few run a real process where that is the point
(a terminal, a signal, a progress bar). A few also call the library functions behind
a command to cross-check its numbers.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from unittest import mock

import attrs
import pytest

import allegra_rules
from allegra_rules import (
    GameRecord,
    GameState,
    Phase,
    RuleConfig,
    apply,
    legal_actions,
    new_game,
    preset,
    preset_ids,
    replay,
)
from allegra_rules.actions import Reveal, Swap, Take
from allegra_rules.bots import RandomBot
from allegra_rules.cli import main
from allegra_rules.cli._play import option_text
from allegra_rules.geometry import Pos
from allegra_rules.render import render_table
from allegra_rules.simulate import game_seed, play_game, simulate, summarize
from play_script import script, short_config, typed_lines

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty and signals")


def cli(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``allegra-rules ARGS`` in this process, as a subprocess would see it."""
    out, err = io.StringIO(), io.StringIO()
    data = io.TextIOWrapper(io.BytesIO((stdin or "").encode()), encoding="utf-8")
    with (
        mock.patch.dict(os.environ, env or {}),
        mock.patch.object(sys, "stdin", data),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        code = main(list(args))
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def ok(*args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> str:
    done = cli(*args, stdin=stdin, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout


def fails(code: int, *args: str, stdin: str | None = None) -> str:
    """Run a command that must fail with ``code`` and one error line; return that line."""
    done = cli(*args, stdin=stdin)
    assert done.returncode == code, (done.stdout[-500:], done.stderr)
    assert done.stderr.startswith("allegra-rules: error: ")
    assert done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr
    return done.stderr


# ------------------------------------------------------------- help, version


def test_version_prints_the_package_version() -> None:
    assert ok("--version") == f"allegra-rules {allegra_rules.__version__}\n"


@pytest.mark.parametrize(
    ("command", "options"),
    [
        ([], ["demo", "simulate", "play", "rules", "replay", "verify", "--version", "exit codes:"]),
        (["demo"], ["--players", "--seed", "--preset", "--bots", "--save"]),
        (
            ["simulate"],
            ["--games", "--players", "--preset", "--seed", "--jobs", "--bots", "--json"],
        ),
        (["play"], ["--players", "--seat", "--preset", "--seed", "--bots", "--save"]),
        (["rules"], ["--preset", "--json"]),
        (["replay"], ["FILE"]),
        (["verify"], ["RECORD", "--commitment"]),
    ],
)
def test_every_command_has_help(command: list[str], options: list[str]) -> None:
    out = ok(*command, "--help")
    assert out.startswith(f"usage: allegra-rules {' '.join(command)}".rstrip())
    for option in options:
        assert option in out
    assert "130  interrupted" in out


def test_an_unknown_command_is_a_usage_error() -> None:
    assert "invalid choice: 'solve'" in fails(2, "solve")


# ------------------------------------------------------------------ simulate


def test_simulate_prints_a_table_per_seat_and_round_statistics() -> None:
    out = ok("simulate", "--games", "3", "--players", "2", "--seed", "4", "--bots", "random")
    lines = out.splitlines()
    assert lines[0] == "Simulated 3 games, 2 players, seeds@1, seed 4"
    assert re.fullmatch(r"seat +bot +mean total +stdev +wins +win rate", lines[2])
    assert re.match(r" +0 +random +-?\d+\.\d\d +\d+\.\d\d +[\d.]+ +\d+\.\d%$", lines[3])
    assert re.match(r" +1 +random ", lines[4])
    assert lines[6].startswith("Shared wins: ")
    assert lines[7].startswith("Rounds: 9; length ")
    assert re.fullmatch(
        r"Per round: [\d.]+ knocks, [\d.]+ exchanges, [\d.]+ triples removing [\d.]+ cards",
        lines[8],
    )
    assert lines[9].startswith("Round enders doubled: ")


def test_simulate_json_is_identical_for_any_number_of_jobs() -> None:
    args = ["simulate", "--games", "6", "--players", "2", "--seed", "11", "--json"]
    outputs = [ok(*args, "--bots", "greedy,random", "--jobs", jobs) for jobs in ("1", "2")]
    assert outputs[0] == outputs[1]
    data = json.loads(outputs[0])
    # The same numbers as the library computes in this process.
    stats = simulate(2, games=6, config=preset("seeds"), seed=11, bots=["greedy", "random"])
    expected = summarize(stats, bots=["greedy", "random"], config=preset("seeds"), seed=11)
    assert data == expected.to_dict()
    assert data["games"] == 6 and data["rounds"] == 18 and data["preset"] == "seeds@1"
    assert [seat["bot"] for seat in data["seats"]] == ["greedy", "random"]
    assert sum(seat["win_rate"] for seat in data["seats"]) == pytest.approx(1.0)
    assert data["rounds_with_ender"] + data["turn_cap_rounds"] == 18
    other = json.loads(ok(*args[:-2], "12", "--json", "--bots", "greedy,random"))
    assert other != data  # the seed matters


def test_simulate_returns_the_same_games_in_game_order_for_any_jobs() -> None:
    def run(jobs: int) -> list[Any]:
        return simulate(3, games=9, config=preset("pl"), seed=2, bots=["random"] * 3, jobs=jobs)

    serial, parallel = run(1), run(3)
    assert [game.index for game in parallel] == list(range(9))
    assert parallel == serial
    assert [game.seed for game in serial] == [game_seed(2, i) for i in range(9)]
    assert len({game.totals for game in serial}) > 1


def test_simulate_game_i_is_the_demo_game_with_the_derived_seed() -> None:
    stats = simulate(3, games=3, config=preset("fr"), seed=5, bots=["random"] * 3)
    game = stats[2]
    assert game.seed == game_seed(5, 2)
    out = ok(
        "demo", "--players", "3", "--preset", "fr", "--bots", "random", "--seed", str(game.seed)
    )
    final = next(line for line in out.splitlines() if line.startswith("Final totals: "))
    assert final == "Final totals: " + ", ".join(
        f"Player {s + 1}: {t}" for s, t in enumerate(game.totals)
    )


def _demo_counts(text: str) -> list[dict[str, int]]:
    """Knocks, exchanges, triples, removed cards and turns per round, read off a narration."""
    words = {"three": 3, "four": 4, "five": 5, "six": 6}
    rounds = re.split(r"^Round \d is over", text, flags=re.M)[:-1]
    out = []
    for part in rounds:
        triples = re.findall(r"^  Triple: (.*) at ", part, re.M)
        removed = sum(
            words.get(count, 0) or int(count)
            for line in triples
            for count in re.findall(r"(\w+) -?\d+s", line)
        )
        out.append(
            {
                "knocks": len(re.findall(r"^  Player \d knocks for", part, re.M)),
                "exchanges": len(re.findall(r"^  Player \d gives the", part, re.M)),
                "triples": len(triples),
                "removed": removed,
                "turns": len(re.findall(r"^-- Turn \d+: Player", part, re.M)),
            }
        )
    return out


@pytest.mark.parametrize(("preset_name", "players", "seed"), [("seeds", 3, 2), ("fr", 4, 9)])
def test_simulate_counts_agree_with_the_demo_narration(
    preset_name: str, players: int, seed: int
) -> None:
    stats = play_game(players, preset(preset_name), seed, ["greedy"] * players)
    text = ok("demo", "--players", str(players), "--preset", preset_name, "--seed", str(seed))
    counts = _demo_counts(text)
    assert len(counts) == len(stats.rounds) == 3
    for narrated, measured in zip(counts, stats.rounds, strict=True):
        assert narrated == {
            "knocks": measured.knocks,
            "exchanges": measured.exchanges,
            "triples": measured.triples,
            "removed": measured.removed,
            "turns": measured.turns,
        }
    assert sum(r.knocks for r in stats.rounds) > 0  # the counts are not trivially zero
    assert sum(r.triples for r in stats.rounds) > 0


def test_the_turn_cap_and_the_doubling_are_counted() -> None:
    capped = RuleConfig(max_turns_per_round=4)
    stats = simulate(2, games=2, config=capped, seed=3, bots=["random", "random"])
    summary = summarize(stats, bots=["random", "random"], config=capped, seed=3)
    assert summary.turn_cap_rounds == 6 and summary.rounds_with_ender == 0
    assert summary.doubled_rate is None and summary.preset is None
    assert {r.turns for g in stats for r in g.rounds} == {4}
    assert "doubled: 0 of 0 (n/a); rounds stopped at the turn cap: 6" in summary.to_text()
    full = simulate(3, games=4, config=preset("seeds"), seed=1, bots=["greedy"] * 3)
    normal = summarize(full, bots=["greedy"] * 3)
    doubled = sum(r.doubled for g in full for r in g.rounds)
    assert normal.doubled_enders == doubled
    assert normal.doubled_rate == doubled / normal.rounds_with_ender
    wins = [sum(1 / len(g.winners) for g in full if s in g.winners) for s in range(3)]
    assert [seat.wins for seat in normal.seats] == pytest.approx(wins)


def test_a_shared_win_is_split_between_the_tied_seats() -> None:
    def fake(totals: tuple[int, ...], winners: tuple[int, ...]) -> Any:
        game = play_game(2, preset("seeds"), 1, ["random", "random"])
        return attrs.evolve(game, totals=totals, winners=winners)

    games = [fake((10, 10), (0, 1)), fake((5, 9), (0,))]
    summary = summarize(games, bots=["random", "random"])
    assert [seat.wins for seat in summary.seats] == [1.5, 0.5]
    assert [seat.win_rate for seat in summary.seats] == [0.75, 0.25]
    assert [seat.shared_wins for seat in summary.seats] == [1, 1]
    assert summary.games_with_shared_win == 1
    assert [seat.mean_total for seat in summary.seats] == [7.5, 9.5]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--games", "0"], "--games must be at least 1; got 0"),
        (["--jobs", "-1"], "--jobs must be 0 (one per CPU) or more; got -1"),
        (["--players", "9"], "--players must be 2..6 with preset 'seeds'; got 9"),
        (["--players", "3", "--bots", "random,greedy"], "--bots names 2 bots but the game has 3"),
        (["--preset", "xx"], "unknown preset 'xx'"),
        (["--games", "many"], "argument --games: invalid int value: 'many'"),
    ],
)
def test_simulate_bad_arguments_exit_2(args: list[str], message: str) -> None:
    assert message in fails(2, "simulate", *args)


def _run_on_a_pty(code: str, *args: str) -> tuple[int, str, str]:
    """Run ``python -c code args`` with standard error on a pseudo-terminal."""
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=slave,
        text=True,
    )
    os.close(slave)
    out, _ = proc.communicate(timeout=120)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the other end is closed
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return proc.returncode, out, b"".join(chunks).decode(errors="replace")


_MAIN = "import sys; from allegra_rules.cli import main; sys.exit(main(sys.argv[1:]))"
_NO_RICH = "import sys; sys.modules['rich'] = None; "


@pytest.mark.slow
@posix_only
def test_the_progress_bar_is_drawn_on_a_terminal_with_or_without_rich() -> None:
    pytest.importorskip("rich")
    args = ["simulate", "--games", "4", "--players", "2", "--bots", "random"]
    code, out, err = _run_on_a_pty(_MAIN, *args)
    assert code == 0 and out.startswith("Simulated 4 games")
    assert "Simulating games" in err and "4/4" in err
    assert "\x1b[" in err  # rich draws with escape codes
    code, plain_out, err = _run_on_a_pty(_NO_RICH + _MAIN, *args)
    assert code == 0 and plain_out == out
    assert "\x1b[" not in err
    assert re.search(r"\rSimulating games \[#{30}\] 4/4, \d+\.\d s\r?\n$", err)
    code, quiet_out, err = _run_on_a_pty(_MAIN, *args, "--no-progress")
    assert code == 0 and quiet_out == out and err == ""


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_plain_progress_bar_redraws_one_line_on_a_terminal() -> None:
    from allegra_rules.cli._progress import _plain_bar, progress_bar

    stream = _Terminal()
    with _plain_bar(3, "games", stream) as advance:
        for _ in range(3):
            advance()
    text = stream.getvalue()
    assert text.startswith("\rSimulating games [" + "." * 30 + "] 0/3, ")
    assert re.search(r"\rSimulating games \[#{30}\] 3/3, \d+\.\d s\n$", text)
    quiet = io.StringIO()  # not a terminal: nothing is drawn
    with progress_bar(3, "games", quiet) as advance:
        advance()
    assert quiet.getvalue() == ""
    with progress_bar(3, "games", stream, enabled=False) as advance:
        advance()
    assert stream.getvalue() == text


@pytest.mark.installed
def test_no_progress_output_when_stderr_is_not_a_terminal_and_rich_is_not_imported() -> None:
    code = (
        "import sys; from allegra_rules.cli import main\n"
        "assert 'rich' not in sys.modules, 'imported at import time'\n"
        "main(['simulate', '--games', '2', '--players', '2', '--bots', 'random'])\n"
        "assert 'rich' not in sys.modules, 'imported without a terminal'\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.startswith("Simulated 2 games")


@pytest.mark.slow
@posix_only
def test_ctrl_c_stops_a_parallel_simulation_with_exit_130() -> None:
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _NO_RICH + _MAIN,
            "simulate",
            "--games",
            "100000",
            "--jobs",
            "2",
            "--bots",
            "random",
        ],
        stdout=subprocess.PIPE,
        stderr=slave,
        text=True,
        start_new_session=True,
    )
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + 60
    try:
        while not re.search(rb" ([5-9]|\d\d+)/100000", seen) and time.monotonic() < deadline:
            seen += os.read(master, 4096)  # the progress bar: games are done, the pool runs
        os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C does: the workers get it too
        out, _ = proc.communicate(timeout=60)
    finally:
        # Never leave the simulation (or its workers) running when the test fails.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        seen += data
    os.close(master)
    err = seen.decode(errors="replace")
    assert proc.returncode == 130
    assert out == ""
    assert err.rstrip().endswith("allegra-rules: error: interrupted")
    assert "Traceback" not in err and "KeyboardInterrupt" not in err


# ----------------------------------------------------------------------- rules


def _columns(width: int) -> dict[str, str]:
    return {"COLUMNS": str(width)}


def test_rules_lists_every_option_and_every_released_preset() -> None:
    out = ok("rules", env=_columns(80))
    lines = out.splitlines()
    base = RuleConfig()
    for field in attrs.fields(RuleConfig):
        row = next(line for line in lines if line.startswith(field.name + " "))
        assert f" {field.metadata['ambiguity']} " in row
        if "choices" in field.metadata:
            assert " | ".join(field.metadata["choices"]) in row
            assert row.split()[-1] == getattr(base, field.name)
    assert re.search(r"^deck +A1 +value:copies pairs +120 cards, -1\.\.11$", out, re.M)
    assert re.search(r"^max_turns_per_round +A30 +int >= 1 +500$", out, re.M)
    # 80 columns: each meaning goes under its row.
    assert "    Whether a round-ender's zero or negative sum is doubled too." in lines
    assert max(len(line) for line in lines) <= 80
    for pid in preset_ids():
        config = preset(pid)
        row = next(line for line in lines if line.startswith(pid + " "))
        assert row.split()[1] == config.fingerprint[:12]
    fr = next(line for line in lines if line.startswith("fr@1 "))
    assert fr.endswith("discard_draw=may_discard, removed_cards=discard")
    assert next(line for line in lines if line.startswith("seeds@1 ")).endswith("(nothing)")


def test_rules_wide_layout_and_one_preset() -> None:
    out = ok("rules", "--preset", "fr", env=_columns(200))
    lines = out.splitlines()
    assert re.search(r"^option +id +allowed values +default +fr@1 +meaning$", out, re.M)
    row = next(line for line in lines if line.startswith("discard_draw "))
    assert re.search(r"must_swap +may_discard\* +After taking the discard pile", row)
    row = next(line for line in lines if line.startswith("swap_area "))
    assert re.search(r"zone +zone +Which cells", row)
    assert not any(line.startswith("seeds@1 ") for line in lines)  # only the chosen preset
    assert any(line.startswith("fr@1 ") for line in lines)


def test_rules_json() -> None:
    data = json.loads(ok("rules", "--json"))
    names = [field.name for field in attrs.fields(RuleConfig)]
    assert [option["name"] for option in data["options"]] == names
    defaults = RuleConfig().to_dict(complete=True)
    assert {option["name"]: option["default"] for option in data["options"]} == defaults
    knocking = next(option for option in data["options"] if option["name"] == "knocking")
    assert knocking["ambiguity"] == "A12"
    assert knocking["choices"] == ["always", "three_or_more", "never"]
    assert [entry["id"] for entry in data["presets"]] == list(preset_ids())
    by_id = {entry["id"]: entry for entry in data["presets"]}
    assert by_id["published@1"]["fingerprint"] == preset("published@1").fingerprint
    assert by_id["published@1"]["differs_from_seeds"] == {
        "knocking": "three_or_more",
        "double_nonpositive": "no",
    }
    assert by_id["de@1"]["differs_from_seeds"] == {}
    pinned = json.loads(ok("rules", "--preset", "fr@1", "--json"))
    assert pinned["preset"] == "fr@1" and [e["id"] for e in pinned["presets"]] == ["fr@1"]
    values = {option["name"]: option["value"] for option in pinned["options"]}
    assert values == preset("fr@1").to_dict(complete=True)


def test_rules_bad_preset_exits_2() -> None:
    assert "unknown preset 'zz'" in fails(2, "rules", "--preset", "zz")
    assert "unknown version '4' of preset 'fr'" in fails(2, "rules", "--preset", "fr@4")


# ------------------------------------------------------------------------ play


def test_play_asks_again_after_bad_input_shows_help_and_table_and_quits_cleanly() -> None:
    typed = "zz\n\n99\nk\nr 5 1\ns 0 0\nh\nh moves\nh options\nv\nl\nr 0 0\n2\nq\ny\n"
    out = ok("play", "--players", "2", "--seed", "3", stdin=typed, env=_columns(80))
    assert out.startswith(
        "Allegra: you are Player 1 of 2 (--seat 0); preset seeds@1, seed 3, 3 rounds;"
    )
    assert "Players: Player 1 (you), Player 2 (Greedy bot)." in out
    prompt = "Your move (h help, l list, v table, q quit): "
    assert f"{prompt}zz\n" in out  # the answer is echoed
    assert "'zz': 'zz' is not a move." in out
    assert "'99': there is no move 99 now: the numbers now are 1-15." in out
    assert "'k': k (knock) is not a move now: nobody has drawn a card to knock for." in out
    assert "'r 5 1': a cell is one number now, row then column counted from one" in out
    assert "'s 0 0': s (swap the held card in) is not a move now." in out
    # Every refusal is followed by what would be accepted now.
    assert out.count("Type r RC to turn up a face-down card (RC: row then column") == 6
    assert "Allegra in one screen" in out
    assert "How to type a move (a cell is RC: its row then its column, counted from one):" in out
    assert "The rules of this game (allegra-rules rules lists every option):" in out
    assert "Your moves by number (the same move keeps its number):" in out
    assert "   1  r 11         Reveal the card at row 1, column 1.\n" in out
    assert "  13  r left 14    Reveal the card at Player 2's row 1, column 4.\n" in out
    assert "'r 0 0': a cell is one number now, row then column counted from one: r 11 is" in out
    # The table: before the first move, again for v, then before the second reveal.
    assert out.count("Round 1 of 3 | setup: Player 1 reveals a card (0 of 4 reveals done)") == 2
    assert out.count("Your zone is your grid plus the bracketed column 4") == 2
    assert "  You reveal a " in out and "  You reveal a " in out.split("row 1, column 1.")[-1]
    assert out.rstrip().endswith(
        "You quit in round 1 of 3; the game is not finished and nobody wins."
    )
    assert max(len(line) for line in out.splitlines()) <= 80


def _typed_game(
    tmp_path: Path, players: int, seat: int, seed: int, max_turns: int, numbers_every: int = 0
) -> tuple[str, Path, GameState]:
    config = short_config(max_turns)
    turns, final = script(players, seat, seed, config, numbers_every=numbers_every)
    path = tmp_path / "game.json"
    out = ok(
        "play", "--players", str(players), "--seat", str(seat), "--seed", str(seed),
        "--max-turns", str(max_turns), "--save", str(path),
        stdin="\n".join(typed_lines(turns)) + "\n", env=_columns(200),
    )  # fmt: skip
    return out, path, final


def test_play_a_whole_game_typing_cells_and_numbers_then_replay_the_saved_record(
    tmp_path: Path,
) -> None:
    out, path, final = _typed_game(tmp_path, 3, 1, 8, max_turns=12, numbers_every=3)
    assert "Players: Player 1 (Greedy bot), Player 2 (you), Player 3 (Greedy bot)." in out
    assert "-- Turn 2: Player 2 (you) --" in out
    assert "==================== Game over ====================" in out
    assert "'" not in "".join(line for line in out.splitlines() if line.startswith("'"))
    lines = out.splitlines()
    assert lines[-2:] == [
        f"Saved the game record to {str(path)!r}.",
        f"Watch it again turn by turn: allegra-rules replay {path}",
    ]
    assert re.fullmatch(r"You (win|share the win|did not win): your total is -?\d+\.", lines[-3])
    record = GameRecord.from_json(path.read_text())
    assert replay(record) == final and record.preset is None  # a custom turn cap
    assert record.config.max_turns_per_round == 12
    totals = "Final totals: " + ", ".join(
        f"Player {s + 1}: {t}" for s, t in enumerate(final.totals)
    )
    assert totals in lines
    narrated = ok("replay", str(path), env=_columns(200))
    assert totals in narrated.splitlines()

    # The replay narrates the same public actions, in the same words, as the game did
    # (the game tells the person which face-down card it picked up; the replay does not).
    def public(text: str) -> list[str]:
        said = [line for line in text.splitlines() if line.startswith("  Seat ")]
        return [re.sub(r": an? -?\d+ \(only Player", " (only Player", line) for line in said]

    assert public(out) == public(narrated)


def test_play_end_of_input_saves_like_quit_and_exits_1_with_one_line(tmp_path: Path) -> None:
    done = cli("play", "--players", "2", "--seed", "1", stdin="r 11\n")
    assert done.returncode == 1
    assert done.stderr == "allegra-rules: error: the input ended before the game was over\n"
    path = tmp_path / "partial.json"
    done = cli("play", "--players", "2", "--seed", "1", "--save", str(path), stdin="r 11\n")
    assert done.returncode == 1
    assert done.stderr == ""  # saved: the end of the input is no error
    assert done.stdout.rstrip().splitlines()[-3:] == [
        f"Saved the game record to {str(path)!r}.",
        f"Continue it with: allegra-rules play --resume {path}",
        "The input ended; the game is saved.",
    ]
    record = GameRecord.from_json(path.read_text())
    assert record.actions[0] == Reveal(Pos(0, 0, 0)) and not replay(record).is_terminal


def test_play_quit_saves_a_partial_record_that_replays(tmp_path: Path) -> None:
    path = tmp_path / "partial.json"
    ok("play", "--players", "2", "--seed", "4", "--save", str(path), stdin="1\n2\nd\nq\n")
    record = GameRecord.from_json(path.read_text())
    assert len(record.actions) > 4 and not replay(record).is_terminal
    assert record.actions[:2] == (Reveal(Pos(0, 0, 0)), Reveal(Pos(0, 0, 1)))
    out = ok("replay", str(path))
    assert out.rstrip().splitlines()[-1].startswith("The record ends here, in round 1 before")


def test_play_asks_before_a_move_that_ends_the_round() -> None:
    config = short_config(500)
    for seed in range(40):
        turns, _ = script(2, 0, seed, config, pick_seed=seed)
        ending = [k for k, turn in enumerate(turns) if len(turn.typed) == 2]
        if ending:
            break
    else:
        pytest.fail("no random game where the person ends a round")
    k = ending[0]
    lines = typed_lines(turns[:k])
    # First answer "n": not played, the same decision is asked again; then "y".
    lines += [turns[k].typed[0], "n", turns[k].typed[0], "y", "q", "y"]
    out = ok("play", "--players", "2", "--seed", str(seed), stdin="\n".join(lines) + "\n")
    assert out.count("Careful: this move leaves every card of your grid face up, so you end") == 2
    assert "every other player gets one more turn, then all cards turn up and are scored." in out
    assert re.search(
        r"Your zone would show -?\d+(, plus the card you turn up)?( \(\+\d+ face-down\))?; "
        r"the lowest other",
        " ".join(out.split()),
    )
    assert "The ender's sum is doubled unless it is the lowest (a tie is enough)." in out
    assert out.count("Not played.") == 1
    assert "Player 1 has every card of their own grid face up" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seat", "3"], "--seat must be 0..2; got 3"),
        (["--players", "2", "--bots", "greedy,random"], "--bots names 2 bots but there are 1"),
        (["--players", "7"], "--players must be 2..6"),
        (["--save", "/no/such/folder/x.json"], "the folder '/no/such/folder' does not exist"),
    ],
)
def test_play_bad_arguments_exit_2(args: list[str], message: str) -> None:
    assert message in fails(2, "play", *args, stdin="q\n")


_LAST_OUTPUT: list[str] = []
"""What the last ``_interrupt_play`` wrote to standard output."""


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt_play(
    wait: float = 0.0, *, at_prompt: bool = True, extra: tuple[str, ...] = (), typed: bytes = b""
) -> tuple[int, str]:
    """Start ``play``, press Ctrl-C at its prompt (after ``wait`` seconds), close its input.

    With ``at_prompt=False`` the Ctrl-C comes ``wait`` seconds after the game's first
    output, while the bots of a six-seat table play and the table is drawn. ``typed``
    is written first (moves before the Ctrl-C); ``extra`` are more arguments.
    """
    players = "2" if at_prompt else "6"
    proc = subprocess.Popen(
        [sys.executable, "-m", "allegra_rules", "play", "--players", players, "--seed", "2"]
        + list(extra),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # As from a terminal: Ctrl-C's default action, even when this test run ignores
        # SIGINT (a background job of a shell without job control), which the child
        # would inherit and rightly keep ignoring.
        preexec_fn=_sigint_default,
    )
    assert proc.stdout is not None and proc.stdin is not None
    seen = b""
    try:
        if typed:
            proc.stdin.write(typed)
            proc.stdin.flush()
        prompts = typed.count(b"\n") + 1
        while not seen if not at_prompt else seen.count(b"Your move (") < prompts:
            chunk = os.read(proc.stdout.fileno(), 4096)
            assert chunk, seen[-300:]
            seen += chunk
        time.sleep(wait)
        proc.send_signal(signal.SIGINT)
        # communicate() closes the input at once: the process may see the end of its
        # input before it sees the signal, which must not change its exit status.
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    _LAST_OUTPUT[:] = [seen.decode() + out.decode()]
    return proc.returncode, err.decode()


@posix_only
def test_play_ctrl_c_saves_the_game_first_and_says_where(tmp_path: Path) -> None:
    path = tmp_path / "kept.json"
    code, err = _interrupt_play(extra=("--save", str(path)), typed=b"r 11\n")
    assert (code, err) == (130, "")  # saved: no error line
    out = _LAST_OUTPUT[0]
    assert f"Saved the game record to {str(path)!r}." in out
    assert f"Continue it with: allegra-rules play --resume {path}\n" in out
    assert out.rstrip().endswith("Stopped by Ctrl-C; the game is saved.")
    record = GameRecord.from_json(path.read_text())
    assert record.actions[0] == Reveal(Pos(0, 0, 0))


def test_play_q_without_save_asks_and_can_save_the_game(tmp_path: Path) -> None:
    path = tmp_path / "asked.json"
    out = ok("play", "--players", "2", "--seed", "2", stdin=f"r 11\nq\n\nq\n{path}\n")
    assert out.count("The game is not being saved: quit now and it is lost.") == 2
    assert "The game goes on." in out  # Enter at the first question
    assert f"Saved the game record to {str(path)!r}." in out
    assert GameRecord.from_json(path.read_text()).actions[0] == Reveal(Pos(0, 0, 0))


def test_resume_says_how_to_keep_auto_pass_on(tmp_path: Path) -> None:
    path = tmp_path / "auto.json"
    out = ok("play", "--players", "2", "--seed", "2", "--auto-pass", "--save", str(path),
             stdin="r 11\nq\n")  # fmt: skip
    assert f"--resume {path} --auto-pass" in out
    out = ok("play", "--resume", str(path), stdin="q\n")
    assert "(To resume with auto-pass on, add --auto-pass to --resume.)" in out
    out = ok("play", "--resume", str(path), "--auto-pass", stdin="q\n")
    assert "add --auto-pass" not in out


@posix_only
def test_play_ctrl_c_exits_130_without_a_traceback() -> None:
    assert _interrupt_play() == (130, "allegra-rules: error: interrupted\n")


@posix_only
@pytest.mark.slow
def test_play_ctrl_c_exits_130_fifty_times_in_a_row_on_a_loaded_machine() -> None:
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(4)]
    try:
        for run in range(50):
            result = _interrupt_play(wait=(run % 5) * 0.01, at_prompt=run % 2 == 0)
            assert result == (130, "allegra-rules: error: interrupted\n"), run
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


def _decisions(seed: int, players: int = 3) -> list[tuple[Any, int]]:
    """Every state of a random game where a player chooses, with that player."""
    state = new_game(players, seed=seed)
    bot = RandomBot(seed)
    out = []
    while not state.is_terminal:
        seat = state.current_player
        assert seat is not None
        out.append((state, seat))
        state = apply(state, bot.choose(state))
    return out


def test_the_options_never_name_a_hidden_card() -> None:
    seen_kinds = set()
    for seed in range(6):
        for state, seat in _decisions(seed):
            for action in legal_actions(state):
                text = option_text(state, action, seat)
                kind = type(action).__name__
                seen_kinds.add(kind)
                if kind == "Reveal":
                    assert re.fullmatch(
                        r"(Reveal|Turn up) the card at (Player \d's )?row \d, column \d\.", text
                    )
                elif kind == "DrawDeck":
                    assert (
                        text == f"Draw the top card of the draw pile ({len(state.draw_pile)} left)."
                    )
                elif isinstance(action, Swap) and not state.is_face_up(action.pos):
                    assert re.fullmatch(
                        r"Swap the -?\d+ in at .+?, (discarding|taking) the face-down card "
                        r"there( into your hand)?\.",
                        text,
                    )
                elif isinstance(action, Take) and not state.is_face_up(action.pos):
                    assert re.fullmatch(
                        r"Take the face-down card at (Player \d's )?row \d, column \d\.", text
                    )
    assert {"Reveal", "DrawDeck", "DrawDiscard", "Swap", "Knock", "Pass"} <= seen_kinds


def test_private_knowledge_in_a_knock_exchange_is_shown_only_to_its_seat() -> None:
    found = 0
    for seed in range(40):
        for state, seat in _decisions(seed):
            if state.phase is Phase.HOLD_TAKEN and state.held_was_face_down:
                mine = render_table(state, viewer=seat)
                assert f"Held: you hold the {state.held}, taken from Player" in mine
                assert "(only you have seen it)" in mine
                knocker = state.knocker
                assert knocker is not None
                others = [p for p in range(state.num_players) if p != seat]
                for p in [None, *others]:
                    text = render_table(state, viewer=p)
                    assert f"holds the {state.held}," not in text
                    assert f"(only Player {seat + 1} has seen it)" in text
                if state.hand_was_face_down:
                    hand = render_table(state, viewer=knocker)
                    assert f"you hold the {state.in_hand[0][1]} you replaced face down" in hand
                found += 1
        if found >= 2:
            break
    assert found >= 2


# ---------------------------------------------------------------------- replay


def test_demo_save_then_replay_narrates_the_same_game(tmp_path: Path) -> None:
    path = tmp_path / "demo.json"
    demo = ok("demo", "--players", "3", "--seed", "6", "--preset", "published", "--save", str(path))
    narrated = ok("replay", str(path))
    demo_lines, replay_lines = demo.splitlines(), narrated.splitlines()
    assert demo_lines.pop() == f"Saved the game record to {str(path)!r}."  # demo --save says where
    header = " ".join(narrated.split("Play passes")[0].split())
    assert header.startswith(f"Allegra replay of {path}: 3 players, preset published@1, seed 6, ")

    # Same body: after the header (demo names the bots on an extra line; long header
    # lines are wrapped), up to the winner line, which names the bots only in the demo.
    def body(lines: list[str]) -> list[str]:
        return lines[next(k for k, line in enumerate(lines) if line.startswith("Play passes")) :]

    # The record says who played each seat: replay names the bots where demo says
    # "Player N" (the turn headings name the seat both ways).
    assert json.loads(path.read_text())["seats"] == ["greedy"] * 3
    assert "Players: Greedy bot 1 (Player 1), Greedy bot 2 (Player 2)," in " ".join(
        narrated.split()
    )
    assert "-- Turn 1: Player 1, Greedy bot 1 --" in replay_lines
    assert any(line.startswith("  Greedy bot 2 draws a") for line in replay_lines)

    def as_demo(line: str) -> str:
        line = re.sub(r"(-- Turn \d+: Player (\d)), Greedy bot \2 ", r"\1 ", line)
        return re.sub(r"Greedy bot (\d)", r"Player \1", line)

    # Long lines wrap at other places: compare the words.
    told = as_demo(" ".join(" ".join(body(replay_lines)[:-1]).split()))
    assert " ".join(" ".join(body(demo_lines)[:-1]).split()) == told
    assert demo_lines[-1].replace(" (Greedy bot)", "") == replay_lines[-1]
    from_stdin = ok("replay", "-", stdin=path.read_text())
    assert body(from_stdin.splitlines()) == body(replay_lines)
    assert from_stdin.startswith("Allegra replay of standard input: ")


def test_replay_summary_names_who_played_each_turn_on_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from allegra_rules.cli._demo import play_demo

    monkeypatch.setenv("COLUMNS", "80")
    final, actions = play_demo(2, 5, "seeds", ["greedy", "greedy"], io.StringIO())
    record = GameRecord(
        num_players=2,
        config=preset("seeds"),
        seed=5,
        actions=actions,
        seats=("person", "search-easy"),
    )
    path = tmp_path / "game.json"
    path.write_text(record.to_json())
    lines = ok("replay", "--summary", str(path)).splitlines()
    assert "Players: Player 1 (a person), Search bot (Player 2)." in lines
    state, drawers = new_game(2, seed=5), []
    for action in actions:
        if state.phase is Phase.DRAW:
            drawers.append(state.current_player)
        state = apply(state, action)
    assert state == final
    turns = [line for line in lines if line.startswith("Turn ")]
    assert len(turns) == len(drawers)  # one line a turn
    for line, drawer in zip(turns, drawers, strict=True):
        assert len(line) < 80, line
        who = "Player 1" if drawer == 0 else "Search bot"
        assert re.match(rf"Turn \d+(?: \(last turn\))?: {who} (draws|takes) ", line), line
    # Without the seats, the record says so and the seats are "Player N".
    path.write_text(attrs.evolve(record, seats=None).to_json())
    bare = ok("replay", "--summary", str(path))
    assert "Players: the record does not say who played each seat." in bare
    assert "Search bot" not in bare and "Turn 2: Player 2 " in bare


def _saved_demo(tmp_path: Path) -> dict[str, Any]:
    path = tmp_path / "good.json"
    ok("demo", "--players", "2", "--seed", "2", "--bots", "random", "--save", str(path))
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_replay_refuses_missing_bad_and_tampered_records(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    assert fails(1, "replay", str(missing)) == (
        f"allegra-rules: error: cannot read {str(missing)!r}: No such file or directory\n"
    )
    assert "cannot read" in fails(1, "replay", str(tmp_path))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert f"{str(bad)!r} is not a valid game record: $: " in fails(1, "replay", str(bad))
    data = _saved_demo(tmp_path)
    tampered = tmp_path / "tampered.json"
    data["final_state_sha256"] = "0" * 64
    tampered.write_text(json.dumps(data))
    assert "$.final_state_sha256: the replayed game ends in a different state" in fails(
        1, "replay", str(tampered)
    )
    data = _saved_demo(tmp_path)
    data["config"]["knocking"] = "never"
    tampered.write_text(json.dumps(data))
    assert "$.config_fingerprint: does not match" in fails(1, "replay", str(tampered))
    data = _saved_demo(tmp_path)
    data["actions"].insert(5, {"type": "knock"})
    tampered.write_text(json.dumps(data))
    assert "$.actions[5]: " in fails(1, "replay", str(tampered))
    assert "is not a valid game record" in fails(1, "replay", "-", stdin="[]")


def test_replay_needs_a_file_and_save_needs_a_folder(tmp_path: Path) -> None:
    assert "the following arguments are required: FILE" in fails(2, "replay")
    assert f"--save {str(tmp_path)!r} is a folder, not a file" in fails(
        2, "demo", "--save", str(tmp_path)
    )
