"""The ``allegra-rules`` command line (also ``python -m allegra_rules``).

Public names:

* :func:`main`: the entry point, ``main(argv) -> exit code``.
* :func:`run_demo`: plays one seeded game between bots and writes its narration.
* :data:`BOT_KINDS`: the bot names ``--bots`` accepts.

Subcommand ``demo``::

    allegra-rules demo [--players N] [--seed S] [--preset P] [--bots greedy,random,...]

plays one game between computer players and narrates it turn by turn in plain text:
a heading per round, the setup reveals, every action of every turn and the table
after each turn, the revealed table and scoring at each round end, and the winners.
The same arguments always print the same game. Bad arguments print one line,
``allegra-rules: error: ...``, on standard error and give exit code 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn, TextIO

from allegra_rules.bots import Bot, GreedyBot, RandomBot
from allegra_rules.config import RuleConfig
from allegra_rules.presets import preset, preset_id, preset_names
from allegra_rules.render import (
    card_text,
    describe_action,
    describe_outcome,
    render_round_end,
    render_table,
)
from allegra_rules.state import GameState, Phase
from allegra_rules.transitions import ROUNDS, apply, new_game

__all__ = ["BOT_KINDS", "main", "run_demo"]

BOT_KINDS: dict[str, Callable[[int], Bot]] = {"greedy": GreedyBot, "random": RandomBot}
"""Bot names for ``--bots``, each mapped to a constructor taking a seed."""

_PROG = "allegra-rules"


class _UsageError(Exception):
    """A bad command line; the message is one line."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and never exit by themselves."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=_PROG,
        description="Play and show games of Allegra with the allegra_rules engine.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    demo = commands.add_parser(
        "demo",
        help="play one seeded game between bots and narrate it",
        description=(
            "Play one seeded game between computer players and narrate it turn by turn "
            "in plain text."
        ),
    )
    demo.add_argument("--players", type=int, default=3, help="number of seats (default 3)")
    demo.add_argument(
        "--seed", type=int, default=1, help="seed of the deal and of the bots (default 1)"
    )
    demo.add_argument(
        "--preset",
        default="seeds",
        help=f"rule preset, optionally pinned as name@version: {', '.join(preset_names())} "
        "(default seeds)",
    )
    demo.add_argument(
        "--bots",
        default="greedy",
        help=(
            f"comma-separated bot per seat, from {', '.join(BOT_KINDS)}; one name is "
            "used for every seat (default greedy)"
        ),
    )
    return parser


def _parse_bots(text: str, num_players: int) -> list[str]:
    names = [name.strip() for name in text.split(",")]
    unknown = [name for name in names if name not in BOT_KINDS]
    if unknown:
        raise _UsageError(
            f"unknown bot {unknown[0]!r} in --bots; known bots: {', '.join(BOT_KINDS)}"
        )
    if len(names) == 1:
        return names * num_players
    if len(names) != num_players:
        raise _UsageError(
            f"--bots names {len(names)} bots but the game has {num_players} players "
            "(give one name for all seats, or one per seat)"
        )
    return names


def _config(name: str) -> RuleConfig:
    try:
        return preset(name)
    except ValueError as exc:
        raise _UsageError(str(exc)) from None


def _check_players(config: RuleConfig, name: str, num_players: int) -> None:
    low, high = config.min_players, config.most_players()
    if not low <= num_players <= high:
        raise _UsageError(
            f"--players must be {low}..{high} with preset {name!r}; got {num_players}"
        )


def _bot_seed(seed: int, seat: int) -> int:
    return seed * 1000 + seat


def run_demo(
    num_players: int,
    seed: int,
    preset_name: str,
    bot_names: Sequence[str],
    out: TextIO,
) -> GameState:
    """Play one game between bots and write its narration to ``out``.

    Seat ``p`` is played by ``BOT_KINDS[bot_names[p]]`` seeded from ``seed`` and ``p``;
    the deal is ``new_game(num_players, config=preset(preset_name), seed=seed)``.

    Args:
        num_players: seats at the table.
        seed: the game's seed; the bots' seeds derive from it.
        preset_name: a preset name such as ``"seeds"`` or ``"fr@1"``.
        bot_names: one name of :data:`BOT_KINDS` per seat.
        out: where the narration goes.

    Returns:
        The final (terminal) state.

    Raises:
        ValueError: an unknown preset or bot name, or a seat count the preset does
            not allow.
    """
    config = preset(preset_name)
    if len(bot_names) != num_players:
        raise ValueError(f"bot_names must name {num_players} bots; got {len(bot_names)}")
    bots = [BOT_KINDS[name](_bot_seed(seed, seat)) for seat, name in enumerate(bot_names)]
    state = new_game(num_players, config=config, seed=seed)

    def say(text: str = "") -> None:
        out.write(text + "\n")

    say(
        f"Allegra demo: {num_players} players, preset {preset_id(preset_name)}, "
        f"seed {seed}, {ROUNDS} rounds; the lowest total wins."
    )
    say("Seats: " + ", ".join(f"{seat} {name}" for seat, name in enumerate(bot_names)) + ".")
    clockwise = " -> ".join(str(seat) for seat in [*range(num_players), 0])
    say(f"Play passes clockwise: {clockwise}; a seat's left neighbour is the next seat.")
    _round_heading(state, say)
    while not state.is_terminal:
        before = state
        if state.phase is Phase.DRAW:
            final = " (a last turn)" if state.ender is not None else ""
            say()
            say(f"-- Turn {state.turns_played + 1}: seat {state.drawer}{final} --")
        seat = state.current_player
        assert seat is not None
        action = bots[seat].choose(state)
        say("  " + describe_action(state, action))
        state = apply(state, action)
        for line in describe_outcome(before, action, state):
            say("  " + line)
        if state.round != before.round or state.is_terminal:
            say()
            say(render_round_end(state, legend=False))
            if not state.is_terminal:
                _round_heading(state, say)
        elif state.phase is Phase.DRAW:
            say()
            # The zone legend once per round, under the table that closes the setup.
            say(render_table(state, legend=before.phase is Phase.SETUP))
    say()
    say("=" * 20 + " Game over " + "=" * 20)
    for round_number, scores in enumerate(state.round_scores, start=1):
        say(f"Round {round_number}: " + ", ".join(f"seat {s}: {v}" for s, v in enumerate(scores)))
    say("Final totals: " + ", ".join(f"seat {s}: {t}" for s, t in enumerate(state.totals)))
    winners = state.winners
    best = state.totals[winners[0]]
    names = ", ".join(f"seat {s} ({bot_names[s]})" for s in winners)
    verb = "wins" if len(winners) == 1 else "share the win"
    say(f"Winner: {names} {verb} with {best} points.")
    return state


def _round_heading(state: GameState, say: Callable[[str], None]) -> None:
    say("")
    say("=" * 20 + f" Round {state.round} of {ROUNDS} " + "=" * 20)
    discard = state.discard_top
    say(
        f"Dealt 12 face-down cards to each seat; the discard pile starts with "
        f"{'nothing' if discard is None else card_text(discard)}."
    )
    say(f"Setup: from seat {state.start_seat}, clockwise, each player reveals two cards.")


def main(argv: list[str] | None = None) -> int:
    """Run the ``allegra-rules`` command line.

    Args:
        argv: the arguments after the program name; ``None`` reads ``sys.argv``.

    Returns:
        The exit code: 0 on success, 2 for bad arguments (after a one-line
        ``allegra-rules: error: ...`` message on standard error), 1 when standard
        output is closed early (a broken pipe).
    """
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
        config = _config(args.preset)
        _check_players(config, args.preset, args.players)
        bot_names = _parse_bots(args.bots, args.players)
    except _UsageError as exc:
        print(f"{_PROG}: error: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:  # --help
        return exc.code if isinstance(exc.code, int) else 0
    try:
        run_demo(args.players, args.seed, args.preset, bot_names, sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (``allegra-rules demo | head``): stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return 0
