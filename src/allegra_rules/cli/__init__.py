"""The ``allegra-rules`` command line (also ``python -m allegra_rules``).

Subcommands (each has ``--help``; ``allegra-rules --version`` prints the version)::

    allegra-rules demo     [--players N] [--seed S] [--preset P] [--bots B,...] [--save FILE]
                           [--summary] [--rounds] [--quiet] [--max-turns T]
    allegra-rules simulate [--games N] [--players K] [--preset P] [--seed S] [--jobs J]
                           [--bots B,...] [--ray [ADDRESS]] [--json] [--no-progress]
    allegra-rules tournament [--bots B,...] [--deals N] [--players K] [--preset P] [--seed S]
                           [--jobs J] [--ray [ADDRESS]] [--json FILE] [--ppo-model FILE]
                           [--no-progress]
    allegra-rules play     [--players N] [--seat SEAT] [--preset P] [--seed S] [--bots B,...]
                           [--save FILE] [--max-turns T] [--auto-pass] [--resume FILE]
    allegra-rules analyze  [--preset P | --config FILE] [--players K] [--bots B,...] [--games N]
                           [--seed S] [--jobs J] [--ray [ADDRESS]] [--options] [--json FILE]
                           [--no-progress]
    allegra-rules rules    [--preset P] [--json]
    allegra-rules replay   [--summary] FILE
    allegra-rules verify   RECORD [--commitment HEX]
    allegra-rules serve    [--host H] [--port P] [--db FILE | --database URL] [--max-tables N]
                           [--workers N] [--proxy-headers] [--forwarded-allow-ips IPS]
                           [--allowed-hosts NAMES]
    allegra-rules train    [--seats N ...] [--minutes M] [--updates U] [--seed S] [--out FILE]
                           [--checkpoint DIR] [--resume] [--curve SVG] [--history JSON]

``demo`` narrates one seeded game between bots; ``simulate`` plays many and prints statistics
([`allegra_rules.simulate`][allegra_rules.simulate]); ``tournament`` plays round robins between
bots and rates them ([`allegra_rules.tournament`][allegra_rules.tournament]); ``analyze``
measures what a variant does to a game ([`allegra_rules.analysis`][allegra_rules.analysis]);
``play`` lets a person play one seat in the terminal; ``rules`` lists the rule options and the
presets; ``replay`` narrates a saved game record (written by ``--save``); ``verify`` checks that
a table server's game record was dealt as committed before the game and replays from that deal
(``allegra_rules.cli._verify``); ``serve`` runs the table server
([`allegra_rules.server`][allegra_rules.server], extra ``server``).

Exit codes: 0 success (also when a person quits ``play`` with ``q``); 1 a command
that failed (an unreadable or invalid record, a file that cannot be written, input
that ended during ``play``, which first saves the record with ``--save``, a closed
output pipe); 2 bad arguments; 130 interrupted
(Ctrl-C). Every error is one line on standard error, ``allegra-rules: error: ...``,
never a traceback.

Public names:

* ``main``: the entry point, ``main(argv) -> exit code``.
* ``run_demo``: plays one seeded game between bots and writes its narration.
* ``run_play``: a person's game against bots, read from and written to streams.
* ``run_replay``: narrates a [`GameRecord`][allegra_rules.records.GameRecord].
* [`BOT_KINDS`][allegra_rules.bot_kinds.BOT_KINDS]: the bot names ``--bots`` accepts.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import shlex
import sys
from pathlib import Path
from typing import Any

import attrs

from allegra_rules.actions import Action
from allegra_rules.bot_kinds import BOT_KINDS
from allegra_rules.cli._analyze import add_analyze_parser
from allegra_rules.cli._common import (
    PROG,
    CommandError,
    Parser,
    UsageError,
    check_players,
    check_save_path,
    load_config,
    parse_bots,
    save_record,
    silence_stdout,
)
from allegra_rules.cli._demo import play_demo, read_record, run_demo, run_replay
from allegra_rules.cli._interrupt import catching_interrupts, interrupted
from allegra_rules.cli._play import EndOfInput, GameInterrupted, PlayResult, run_play
from allegra_rules.cli._rules import rules_data, rules_text
from allegra_rules.cli._train import add_train_parser
from allegra_rules.config import RuleConfig
from allegra_rules.presets import preset_id, preset_names
from allegra_rules.records import PERSON_SEAT, GameRecord, replay
from allegra_rules.simulate import default_jobs, simulate, summarize

__all__ = ["BOT_KINDS", "EndOfInput", "PlayResult", "main", "run_demo", "run_play", "run_replay"]

DEMO_SEED = 2
"""``demo``'s default seed: its game (and the four-player game of the README) shows a
whole knock exchange: the give, the knocker's swap, the take and the drawer's swap."""

_EXIT_CODES = """\
exit codes:
  0    success
  1    the command failed (one line on standard error says why)
  2    bad arguments
  130  interrupted (Ctrl-C)"""


def _version() -> str:
    from allegra_rules import __version__

    return __version__


def _preset_help() -> str:
    return (
        f"rule preset, optionally pinned as name@version: {', '.join(preset_names())} "
        "(default seeds)"
    )


def _bots_help(default: str, seats: str = "seat") -> str:
    return (
        f"comma-separated bot per {seats}, from {', '.join(BOT_KINDS)}; one name is "
        f"used for every {seats} (default {default})"
    )


def _epilog(examples: str) -> str:
    return f"examples:\n{examples}\n\n{_EXIT_CODES}"


def _command(
    commands: argparse._SubParsersAction[Parser],
    name: str,
    summary: str,
    description: str,
    examples: str,
) -> argparse.ArgumentParser:
    return commands.add_parser(
        name,
        help=summary,
        description=description,
        epilog=_epilog(examples),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def _max_turns_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-turns",
        type=int,
        metavar="T",
        default=None,
        help="end every round after T turns (the preset's max_turns_per_round, lowered "
        "for a short game; the record then holds a custom config)",
    )


def _config(args: argparse.Namespace) -> RuleConfig:
    """The preset's config, with ``--max-turns`` applied."""
    config = load_config(args.preset)
    if args.max_turns is not None:
        if args.max_turns < 1:
            raise UsageError(f"--max-turns must be at least 1; got {args.max_turns}")
        config = attrs.evolve(config, max_turns_per_round=args.max_turns)
    return config


def _build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog=PROG,
        description="Play, simulate, list and replay games of Allegra with the "
        "allegra_rules engine.",
        epilog=_EXIT_CODES + f"\n\nRun '{PROG} COMMAND --help' for a command's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    commands.required = True

    demo = _command(
        commands,
        "demo",
        "play one seeded game between bots and narrate it",
        "Play one seeded game between computer players and narrate it turn by turn\n"
        "in plain text (--summary: one line per turn; --rounds: one line per round;\n"
        "--quiet: the scores only). The same arguments always print the same game.",
        f"  {PROG} demo --players 4 --seed 2\n"
        f"  {PROG} demo --preset fr --bots greedy,random,greedy --save game.json",
    )
    demo.add_argument(
        "--players", type=int, metavar="N", default=3, help="number of seats (default 3)"
    )
    demo.add_argument(
        "--seed",
        type=int,
        default=DEMO_SEED,
        metavar="S",
        help=f"seed of the deal and of the bots (default {DEMO_SEED}, a game with a knock "
        "exchange)",
    )
    demo.add_argument("--preset", default="seeds", metavar="P", help=_preset_help())
    demo.add_argument("--bots", default="greedy", metavar="B,...", help=_bots_help("greedy"))
    demo.add_argument(
        "--save", type=Path, metavar="FILE", help="also write the game record (JSON) to FILE"
    )
    demo.add_argument(
        "--summary",
        action="store_true",
        help="one line per turn (and per setup and round end) instead of the full narration",
    )
    demo.add_argument(
        "--rounds",
        action="store_true",
        help="one line per round (with or without --summary)",
    )
    demo.add_argument(
        "--quiet", action="store_true", help="print only the scores, the totals and the winners"
    )
    _max_turns_option(demo)
    demo.set_defaults(handler=_cmd_demo)

    sim = _command(
        commands,
        "simulate",
        "play many seeded games between bots and print statistics",
        "Play many games between computer players and print statistics: mean total\n"
        "and win rate per seat (a shared win counts 1/k for each of k tied winners),\n"
        "round length in turns, knocks, exchanges and triples per round, how often\n"
        "the round-ender was doubled, and rounds stopped at the turn cap.\n"
        "Game i is dealt from a seed derived from --seed and i; the results do not\n"
        "depend on --jobs.",
        f"  {PROG} simulate --games 200 --players 3 --seed 1\n"
        f"  {PROG} simulate --games 1000 --jobs 0 --bots greedy,random --players 2 --json",
    )
    sim.add_argument(
        "--games", type=int, metavar="N", default=100, help="number of games (default 100)"
    )
    sim.add_argument(
        "--players", type=int, metavar="N", default=3, help="number of seats (default 3)"
    )
    sim.add_argument("--preset", default="seeds", metavar="P", help=_preset_help())
    sim.add_argument(
        "--seed",
        type=int,
        default=1,
        metavar="S",
        help="seed every game's seed derives from (default 1)",
    )
    sim.add_argument(
        "--jobs",
        type=int,
        metavar="J",
        default=1,
        help="worker processes; 0 means one per CPU (default 1)",
    )
    sim.add_argument("--bots", default="greedy", metavar="B,...", help=_bots_help("greedy"))
    _ray_option(sim)
    sim.add_argument("--json", action="store_true", help="print the statistics as one JSON object")
    sim.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (it is only ever drawn when standard error is a terminal)",
    )
    sim.set_defaults(handler=_cmd_simulate)

    tour = _command(
        commands,
        "tournament",
        "play round robins between bots and rate them",
        "Play a round robin between bots: every pair plays the same deals, each bot\n"
        "from every seat (at tables of three or more: one bot against copies of the\n"
        "other, both ways round). Prints every bot's openskill Plackett-Luce rating,\n"
        "games, win share and mean margin, and for every pair the first bot's share of\n"
        "the wins (ties count half) with its 95 % Wilson interval and its mean margin\n"
        "in points (positive: it had the lower totals). The results do not depend on\n"
        "--jobs or --ray. Bots: the --bots names plus ismcts (OpenSpiel, extra\n"
        "openspiel) and ppo (a MaskablePPO model, --ppo-model); a bot whose extra is\n"
        "missing is listed as unavailable.",
        f"  {PROG} tournament --deals 20\n"
        f"  {PROG} tournament --bots greedy,search --deals 100 --jobs 0 --json ladder.json\n"
        f"  {PROG} tournament --players 4 --bots greedy,search --deals 10 --ray",
    )
    tour.add_argument(
        "--bots",
        default="random,greedy,search-easy,search,search-hard",
        metavar="B,...",
        help="comma-separated bots, two or more different ones "
        "(default random,greedy,search-easy,search,search-hard)",
    )
    tour.add_argument(
        "--deals", type=int, metavar="N", default=10, help="deals every pair plays (default 10)"
    )
    tour.add_argument(
        "--players", type=int, metavar="N", default=2, help="number of seats (default 2)"
    )
    tour.add_argument("--preset", default="seeds", metavar="P", help=_preset_help())
    tour.add_argument(
        "--seed", type=int, default=1, metavar="S", help="seed the deals derive from (default 1)"
    )
    tour.add_argument(
        "--jobs",
        type=int,
        metavar="J",
        default=1,
        help="worker processes; 0 means one per CPU (default 1)",
    )
    _ray_option(tour)
    tour.add_argument(
        "--json",
        type=Path,
        metavar="FILE",
        default=None,
        help="also write the results as JSON to FILE ('-' for standard output, "
        "instead of the tables)",
    )
    tour.add_argument(
        "--ppo-model", type=Path, metavar="FILE", default=None, help="a saved MaskablePPO model"
    )
    tour.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (it is only ever drawn when standard error is a terminal)",
    )
    tour.set_defaults(handler=_cmd_tournament)

    play = _command(
        commands,
        "play",
        "play one seat yourself against bots in the terminal",
        "Play one seat of a game against computer players. Before each of your moves\n"
        "the table is drawn as your seat sees it (face-down cards as ##), fitted to the\n"
        "terminal. Type a move by what it does: d or p (draw pile, discard pile), k or x\n"
        "(knock, pass), g SEAT (give), r / s / t CELL (reveal, swap, take: the row\n"
        "then the column, counted from one; e.g. s 24, s left 14, t p3 12), or by its\n"
        "fixed number (l lists them); h explains the rules, h moves the moves, h options\n"
        "this game's rules; v shows the table, m the moves since your last one, a turns\n"
        '"ask me only when the card could help me" on or off, q quits. The bots\' moves\n'
        "are narrated. Without --seed every game is a new deal.",
        f"  {PROG} play\n  {PROG} play --players 4 --seat 2 --preset fr --seed 7 --save mine.json\n"
        f"  {PROG} play --seat 2 --resume mine.json --auto-pass",
    )
    play.add_argument(
        "--players", type=int, metavar="N", default=None, help="number of seats (default 3)"
    )
    play.add_argument(
        "--seat",
        type=int,
        metavar="SEAT",
        default=None,
        help="the seat you play (default 0; with --resume, the saved game's)",
    )
    play.add_argument("--preset", default=None, metavar="P", help=_preset_help())
    play.add_argument(
        "--seed",
        type=int,
        metavar="S",
        default=None,
        help="seed of the deal and of the bots (default: a new random seed, printed)",
    )
    play.add_argument(
        "--bots",
        default=None,
        metavar="B,...",
        help=_bots_help("greedy", "other seat") + "; with --resume, the saved game's",
    )
    play.add_argument(
        "--save",
        type=Path,
        metavar="FILE",
        help="write the game record (JSON) to FILE when the game ends, you quit, or the input "
        "ends (with --resume: the resumed file unless --save names another)",
    )
    _max_turns_option(play)
    play.add_argument(
        "--auto-pass",
        action="store_true",
        help="ask me only when the card could help me: knock windows whose card could not "
        "help you are passed for you, and your draw is made from the draw pile when the "
        "discard pile's card could not help you; each is said (the key a turns it on and "
        "off during the game)",
    )
    play.add_argument(
        "--resume",
        type=Path,
        metavar="FILE",
        help="continue the game saved in FILE by 'play --save' (the players, rules, seed, "
        "your seat and the bots come from the file; a file saved before it recorded the "
        "seats needs the same --seat and --bots)",
    )
    play.set_defaults(handler=_cmd_play)

    rules = _command(
        commands,
        "rules",
        "list the rule options and the released presets",
        "List every rule option (its ambiguity id, allowed values, default and\n"
        "meaning) and every released preset version (its fingerprint and where it\n"
        "differs from the seeds preset).",
        f"  {PROG} rules\n  {PROG} rules --preset fr\n  {PROG} rules --json",
    )
    rules.add_argument(
        "--preset",
        metavar="P",
        default=None,
        help="also show this preset's value of every option, and list only this preset",
    )
    rules.add_argument("--json", action="store_true", help="print one JSON object instead")
    rules.set_defaults(handler=_cmd_rules)

    replay = _command(
        commands,
        "replay",
        "narrate a saved game record",
        "Check a game record (written by 'demo --save' or 'play --save', or by\n"
        "GameRecord.to_json) and narrate it turn by turn like demo, naming who played\n"
        "each move when the record says it (Greedy bot, a person). A record that was\n"
        "changed, or that does not replay to its recorded final state, is refused.",
        f"  {PROG} demo --seed 3 --save game.json && {PROG} replay game.json\n"
        f"  {PROG} replay --summary game.json\n"
        f"  {PROG} replay - < game.json",
    )
    replay.add_argument("file", metavar="FILE", help="the record's JSON file; - reads stdin")
    replay.add_argument(
        "--summary",
        action="store_true",
        help="one line a turn (and per setup and round end) instead of the full narration",
    )
    replay.set_defaults(handler=_cmd_replay)
    verify = _command(
        commands,
        "verify",
        "check that a server's game record was dealt as committed before the game",
        "Check a game record downloaded from a table server (GET .../record, or the\n"
        "page's link): its seed and salt must hash to the deal commitment the table\n"
        "published when it was created (the record's own, or --commitment, the one\n"
        "you noted at the start), every action must be legal in turn from that deal,\n"
        "and the game must end in the record's final state. Prints one line when all\n"
        "of this holds; otherwise exits 1 and says what does not.",
        f"  {PROG} verify allegra-Xy12.json\n"
        f"  {PROG} verify allegra-Xy12.json --commitment 5d650f9f7043416a770ac107d9dcbab9"
        "9e038670880d25a1713d7ba2b58af895",
    )
    verify.add_argument("record", metavar="RECORD", help="the record's JSON file; - reads stdin")
    verify.add_argument(
        "--commitment",
        metavar="HEX",
        default=None,
        help="the deal commitment (64 hex digits) the table showed when you joined; "
        "default: the one in the record",
    )
    verify.set_defaults(handler=_cmd_verify)
    _serve_parser(commands)
    add_analyze_parser(commands, _epilog)
    add_train_parser(commands)
    return parser


def _serve_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    serve = _command(
        commands,
        "serve",
        "run a table server to play in a browser (extra 'server')",
        "Serve tables to play on in a browser, and their JSON and WebSocket API, until\n"
        "interrupted. Tables are stored in the SQLite file --db (or the PostgreSQL\n"
        "database --database) after every move, so a restarted server carries on where\n"
        "it stopped. Needs the extra 'server'\n"
        '(in a clone of the repository: pip install ".[server]").',
        f"  {PROG} serve\n  {PROG} serve --port 8080 --db /var/lib/allegra/tables.db\n"
        f"  {PROG} serve --database postgresql://allegra@localhost:5432/allegra",
    )
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    serve.add_argument("--port", type=int, default=8000, help="TCP port (default 8000)")
    where = serve.add_mutually_exclusive_group()
    where.add_argument(
        "--db",
        type=Path,
        metavar="FILE",
        default=Path("allegra-tables.sqlite3"),
        help="SQLite database of the tables (default allegra-tables.sqlite3)",
    )
    where.add_argument(
        "--database",
        metavar="URL",
        default=None,
        help="PostgreSQL database of the tables instead, postgresql://USER@HOST:PORT/DB "
        "(needs psycopg, in the extra 'server')",
    )
    serve.add_argument(
        "--max-tables",
        type=int,
        metavar="N",
        default=1000,
        help="most open tables: unfinished, moved in the last day, and with a claimed seat "
        "or moved within --abandoned-after (default 1000)",
    )
    serve.add_argument(
        "--proxy-headers",
        action="store_true",
        help="behind a reverse proxy: trust its X-Forwarded-For and X-Forwarded-Proto",
    )
    serve.add_argument(
        "--allowed-hosts",
        metavar="NAMES",
        default=None,
        help="comma-separated host names (or addresses, NAME:PORT for one port) the server "
        "answers to besides localhost, 127.0.0.1 and [::1]: a request with another Host "
        "is refused; needed with --host 0.0.0.0 (default: the loopback names, and --host)",
    )
    serve.add_argument(
        "--forwarded-allow-ips",
        metavar="IPS",
        default=None,
        help="the proxies whose forwarded headers are trusted (default 127.0.0.1)",
    )
    serve.add_argument(
        "--tables-per-hour",
        type=int,
        metavar="N",
        default=20,
        help="tables one client address may create per hour (default 20)",
    )
    serve.add_argument(
        "--seat-timeout",
        type=float,
        metavar="SECONDS",
        default=300.0,
        help="a bot plays a seat idle this long while it is to act, until its person "
        "comes back; 0 never (default 300)",
    )
    serve.add_argument(
        "--abandoned-after",
        type=float,
        metavar="SECONDS",
        default=600.0,
        help="a table where no seat is claimed expires this long after its creation or "
        "last move (default 600)",
    )
    serve.add_argument(
        "--view-cache-mb",
        type=float,
        metavar="MB",
        default=4.0,
        help="size of the cache of rendered views, in MB (default 4)",
    )
    serve.add_argument(
        "--bot-workers",
        type=int,
        metavar="N",
        default=2,
        help="worker processes the bots of all tables think in: one for cheap bots, "
        "the others for searches (default 2)",
    )
    serve.add_argument(
        "--bot-tables-per-client",
        type=int,
        metavar="N",
        default=2,
        help="unfinished tables of bots only one client address may have (default 2)",
    )
    serve.add_argument(
        "--search-tables-per-client",
        type=int,
        metavar="N",
        default=2,
        help="unfinished tables with a search bot one client address may have (default 2)",
    )
    serve.add_argument(
        "--wal-limit-mb",
        type=float,
        metavar="MB",
        default=16.0,
        help="size past which SQLite's -wal file is truncated, in MB (default 16)",
    )
    serve.add_argument(
        "--bot-lease",
        type=float,
        metavar="SECONDS",
        default=5.0,
        help="PostgreSQL: another process plays a table's bots this long after the "
        "process that played them stopped (default 5)",
    )
    serve.add_argument(
        "--workers",
        type=int,
        metavar="N",
        default=1,
        help="server processes sharing the port, each restarted when it dies; more than 1 "
        "needs --database (default 1)",
    )
    serve.add_argument(
        "--max-sockets",
        type=int,
        metavar="N",
        default=None,
        help="most WebSockets open at once per process; lowered to what the open-files "
        "limit leaves room for (default 10000)",
    )
    serve.add_argument(
        "--max-sockets-per-client",
        type=int,
        metavar="N",
        default=50,
        help="most WebSockets one client address (IPv6: its /64) holds open (default 50)",
    )
    serve.add_argument(
        "--header-timeout",
        type=float,
        metavar="SECONDS",
        default=10.0,
        help="a connection that takes longer to send a request's head is closed (default 10)",
    )
    serve.set_defaults(handler=_cmd_serve)


# -------------------------------------------------------------------- commands


def _cmd_demo(args: argparse.Namespace) -> int:
    config = _config(args)
    check_players(config, args.preset, args.players)
    bot_names = parse_bots(args.bots, args.players, config=config, players=args.players)
    check_save_path(args.save)
    if args.quiet and (args.summary or args.rounds):
        raise UsageError("--quiet prints only the scores: leave out --summary and --rounds")
    style = (
        "quiet" if args.quiet else "rounds" if args.rounds else "turns" if args.summary else "full"
    )
    _, actions = play_demo(
        args.players, args.seed, args.preset, bot_names, sys.stdout, style=style, config=config
    )
    if args.save is not None:  # with who played each seat, which replay names
        save_record(args.save, args.players, config, args.seed, actions, bot_names)
        print(f"Saved the game record to {str(args.save)!r}.")
    return 0


def _ray_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="run the games as Ray tasks (extra ray): on the cluster at ADDRESS, or on "
        "a local Ray started for this command when no address is given",
    )


def _runner(args: argparse.Namespace) -> contextlib.AbstractContextManager[Any]:
    if args.ray is None:
        return contextlib.nullcontext((None, None))
    from allegra_rules.cli._ray import ray_runner

    return ray_runner(args.ray)


def _cmd_tournament(args: argparse.Namespace) -> int:
    from allegra_rules.cli._progress import progress_bar
    from allegra_rules.cli._tournament import entrants, report, write_json, write_text
    from allegra_rules.tournament import round_robin, schedule

    config = load_config(args.preset)
    check_players(config, args.preset, args.players)
    if args.deals < 1:
        raise UsageError(f"--deals must be at least 1; got {args.deals}")
    if args.jobs < 0:
        raise UsageError(f"--jobs must be 0 (one per CPU) or more; got {args.jobs}")
    names = [name.strip() for name in args.bots.split(",") if name.strip()]
    makers, missing = entrants(args.players, args.preset, args.ppo_model)
    unknown = [n for n in names if n not in makers and n not in missing]
    if unknown:
        known = ", ".join([*makers, *missing])
        raise UsageError(f"unknown bot {unknown[0]!r} in --bots; known bots: {known}")
    playing = list(dict.fromkeys(n for n in names if n in makers))
    skipped = {n: missing[n] for n in names if n in missing}
    if len(playing) < 2:
        raise UsageError(f"--bots must name two or more available bots; got {names}")
    total = len(schedule(playing, num_players=args.players, deals=args.deals, seed=args.seed))
    with _runner(args) as (runner, cpus):
        jobs = cpus if runner is not None else (args.jobs or default_jobs())
        with progress_bar(total, "games", sys.stderr, enabled=not args.no_progress) as advance:
            games = round_robin(
                playing,
                config=config,
                deals=args.deals,
                seed=args.seed,
                num_players=args.players,
                jobs=jobs,
                makers=makers,
                on_game=lambda _: advance(),
                runner=runner,
            )
    settings = {
        "players": args.players,
        "preset": args.preset,
        "deals": args.deals,
        "seed": args.seed,
        "games": len(games),
    }
    data = report(games, playing, skipped, settings)
    if args.json is not None:
        write_json(data, args.json)
    if args.json is None or str(args.json) != "-":
        write_text(data, sys.stdout)
    return 0


def _cmd_simulate(args: argparse.Namespace) -> int:
    from allegra_rules.cli._progress import progress_bar

    config = load_config(args.preset)
    check_players(config, args.preset, args.players)
    if args.games < 1:
        raise UsageError(f"--games must be at least 1; got {args.games}")
    if args.jobs < 0:
        raise UsageError(f"--jobs must be 0 (one per CPU) or more; got {args.jobs}")
    bot_names = parse_bots(args.bots, args.players, config=config, players=args.players)
    with (
        _runner(args) as (runner, cpus),
        progress_bar(args.games, "games", sys.stderr, enabled=not args.no_progress) as advance,
    ):
        stats = simulate(
            args.players,
            games=args.games,
            config=config,
            seed=args.seed,
            bots=bot_names,
            jobs=cpus if runner is not None else (args.jobs or default_jobs()),
            on_game=lambda _: advance(),
            runner=runner,
        )
    summary = summarize(stats, bots=bot_names, config=config, seed=args.seed)
    if args.json:
        print(json.dumps(summary.to_dict(), indent=2))
    else:
        print(f"Simulated {summary.to_text()}")
    return 0


def _resume_record(args: argparse.Namespace) -> GameRecord:
    """The saved game ``--resume`` names, checked.

    Raises:
        UsageError: options the record fixes were given, or the file is not a game
            that can be continued.
    """
    given = [
        option
        for option, value in (
            ("--players", args.players),
            ("--preset", args.preset),
            ("--seed", args.seed),
            ("--max-turns", args.max_turns),
        )
        if value is not None
    ]
    if given:
        raise UsageError(
            f"--resume takes the players, rules and seed from the saved game: leave out "
            f"{', '.join(given)}"
        )
    name = f"--resume {str(args.resume)!r}"
    try:
        record = read_record(str(args.resume))
    except CommandError as exc:
        raise UsageError(f"{name}: {exc}") from None
    if record.seed is None:
        raise UsageError(f"{name}: the game was dealt from a stacked deck, not a seed")
    if replay(record).is_terminal:  # the record's own final state: quick to rebuild
        raise UsageError(f"{name}: that game is already over (allegra-rules replay shows it)")
    return record


def _saved_seats(args: argparse.Namespace, record: GameRecord) -> None:
    """Take ``--seat`` and ``--bots`` from the record's ``seats``, refusing others given.

    Raises:
        UsageError: a ``--seat`` or ``--bots`` that differs from the saved game's, or
            saved seats that are not one person and known bots.
    """
    seats = record.seats
    if seats is None:  # saved before the seats were recorded: the options say
        return
    name = f"--resume {str(args.resume)!r}"
    people = [seat for seat, who in enumerate(seats) if who == PERSON_SEAT]
    bots = [who for who in seats if who != PERSON_SEAT]
    if len(people) != 1 or any(who not in BOT_KINDS for who in bots):
        raise UsageError(f"{name}: the saved seats are not one person and known bots")
    seat = people[0]
    if args.seat is not None and args.seat != seat:
        raise UsageError(
            f"{name}: you played seat {seat} of that game; leave out --seat to go on there"
        )
    if args.bots is not None and parse_bots(args.bots, len(bots)) != bots:
        raise UsageError(
            f"{name}: that game was played against {','.join(bots)}; leave out --bots to "
            "go on against them"
        )
    args.seat = seat
    args.bots = ",".join(bots)


def _cmd_play(args: argparse.Namespace) -> int:
    history: tuple[Action, ...] = ()
    version: int | None = None  # a new game's: the newest
    if args.resume is not None:
        record = _resume_record(args)
        version = record.schema_version  # a game keeps the version it started in
        config = record.config
        args.players = record.num_players
        args.preset = record.preset or "seeds"
        seed: int = record.seed if record.seed is not None else 0
        history = record.actions
        _saved_seats(args, record)
        if args.save is None:
            args.save = args.resume
    else:
        args.players = 3 if args.players is None else args.players
        args.preset = "seeds" if args.preset is None else args.preset
        config = _config(args)
        seed = args.seed if args.seed is not None else secrets.randbelow(1_000_000)
    check_players(config, args.preset, args.players)
    args.seat = 0 if args.seat is None else args.seat
    args.bots = "greedy" if args.bots is None else args.bots
    if not 0 <= args.seat < args.players:
        raise UsageError(f"--seat must be 0..{args.players - 1}; got {args.seat}")
    bot_names = parse_bots(
        args.bots, args.players - 1, "there are", "bot seats", config=config, players=args.players
    )
    check_save_path(args.save)
    echo = not sys.stdin.isatty()
    saving = None if args.save is None else str(args.save)

    seats = list(bot_names)
    seats.insert(args.seat, PERSON_SEAT)

    def keep(actions: tuple[Action, ...], path: Path, auto_pass: bool, over: bool) -> None:
        save_record(path, args.players, config, seed, actions, seats, version)
        print(f"Saved the game record to {str(path)!r}.", flush=True)
        if over:
            print(
                f"Watch it again turn by turn: {_program()} replay {shlex.quote(str(path))}",
                flush=True,
            )
            return
        again = [_program(), "play", "--resume", str(path)]
        if auto_pass:
            again.append("--auto-pass")
        print(f"Continue it with: {shlex.join(again)}", flush=True)

    try:
        result: PlayResult = run_play(
            args.players,
            args.seat,
            args.preset,
            seed,
            bot_names,
            sys.stdin,
            sys.stdout,
            echo=echo,
            config=config,
            auto_pass=args.auto_pass,
            pauses=sys.stdin.isatty() and sys.stdout.isatty(),
            history=history,
            saving=saving,
            schema_version=version,
        )
    except ValueError as exc:
        if not history:
            raise
        raise UsageError(f"--resume {str(args.resume)!r}: {exc}") from None
    except EndOfInput as exc:
        # Like q: the game so far is saved, then the documented exit code 1; once it
        # is saved, the end of the input is no error.
        if args.save is not None and exc.result is not None:
            keep(exc.result.actions, args.save, exc.result.auto_pass, False)
            print("The input ended; the game is saved.", flush=True)
            return 1
        raise CommandError("the input ended before the game was over") from None
    except GameInterrupted as exc:
        print(flush=True)  # end the prompt's line
        if args.save is not None:
            keep(exc.result.actions, args.save, exc.result.auto_pass, False)
            print("Stopped by Ctrl-C; the game is saved.", flush=True)
            raise SavedInterrupt from None
        raise KeyboardInterrupt from None
    except KeyboardInterrupt:
        print(flush=True)  # end the prompt's line
        raise
    path = args.save if result.save is None else Path(result.save).expanduser()
    if path is not None:
        check_save_path(path)
        keep(result.actions, path, result.auto_pass, not result.quit)
    elif not result.quit:
        path = _offer_replay(interactive=sys.stdin.isatty() and sys.stdout.isatty())
        if path is not None:
            keep(result.actions, path, result.auto_pass, True)
    return 0


def _program() -> str:
    """The command that runs this program as the person typed it (``.venv/bin/allegra-rules``).

    The program's own path when it was started by a path (not found on ``PATH``), so
    that a printed command can be pasted back; else ``allegra-rules``.
    """
    typed = sys.argv[0] if sys.argv else ""
    if Path(typed).name == PROG and os.sep in typed:
        return typed
    return PROG


def _offer_replay(*, interactive: bool) -> Path | None:
    """After a game played without ``--save``: the file to keep it in, if the person names one."""
    if not interactive:
        print(f"To watch a game again, play it with --save FILE, then: {PROG} replay FILE.")
        return None
    while True:
        try:
            answer = input("Keep this game to watch it again? A file name saves it; Enter ends: ")
        except EOFError:
            return None
        if not answer.strip():
            return None
        path = Path(answer.strip()).expanduser()
        try:
            check_save_path(path)
        except UsageError as exc:
            print(f"{exc}; try another name.")
            continue
        return path


def _cmd_rules(args: argparse.Namespace) -> int:
    pinned = None
    if args.preset is not None:
        load_config(args.preset)
        pinned = preset_id(args.preset)
    if args.json:
        print(json.dumps(rules_data(pinned), indent=2))
    else:
        print(rules_text(pinned))
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    record = read_record(args.file)
    source = "standard input" if args.file == "-" else args.file
    run_replay(record, sys.stdout, source, style="turns" if args.summary else "full")
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    from allegra_rules.cli._verify import check_commitment_option, verify_record

    commitment = check_commitment_option(args.commitment)
    print(verify_record(args.record, commitment))
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    if not 0 < args.port < 65536:
        raise UsageError(f"--port must be 1..65535; got {args.port}")
    if args.max_tables < 1:
        raise UsageError(f"--max-tables must be at least 1; got {args.max_tables}")
    if args.tables_per_hour < 1:
        raise UsageError(f"--tables-per-hour must be at least 1; got {args.tables_per_hour}")
    if not 0 <= args.seat_timeout < float("inf"):
        raise UsageError(f"--seat-timeout must be 0 or more seconds; got {args.seat_timeout}")
    if not 0 < args.abandoned_after < float("inf"):
        raise UsageError(
            f"--abandoned-after must be more than 0 seconds; got {args.abandoned_after}"
        )
    if not 0 <= args.view_cache_mb <= 1_000_000:
        raise UsageError(f"--view-cache-mb must be 0 or more; got {args.view_cache_mb}")
    if args.bot_workers < 1:
        raise UsageError(f"--bot-workers must be at least 1; got {args.bot_workers}")
    for option in ("bot_tables_per_client", "search_tables_per_client"):
        if getattr(args, option) < 0:
            flag = "--" + option.replace("_", "-")
            raise UsageError(f"{flag} must be 0 or more; got {getattr(args, option)}")
    if not 0 < args.wal_limit_mb <= 1_000_000:
        raise UsageError(f"--wal-limit-mb must be more than 0; got {args.wal_limit_mb}")
    if not 0 < args.bot_lease <= 3600:
        raise UsageError(f"--bot-lease must be more than 0 and at most 3600; got {args.bot_lease}")
    if not 1 <= args.workers <= 256:
        raise UsageError(f"--workers must be 1..256; got {args.workers}")
    if args.max_sockets is not None and args.max_sockets < 1:
        raise UsageError(f"--max-sockets must be at least 1; got {args.max_sockets}")
    if args.max_sockets_per_client < 1:
        raise UsageError(
            f"--max-sockets-per-client must be at least 1; got {args.max_sockets_per_client}"
        )
    if not 0 < args.header_timeout <= 3600:
        raise UsageError(
            f"--header-timeout must be more than 0 and at most 3600; got {args.header_timeout}"
        )
    if args.workers > 1 and args.database is None:
        raise UsageError(
            "--workers above 1 needs --database postgresql://...: processes on one SQLite "
            "file would not see each other's moves"
        )
    if args.database is not None and not args.database.startswith(("postgresql://", "postgres://")):
        raise UsageError("--database must be a URL postgresql://USER@HOST:PORT/DB")
    try:
        from allegra_rules.server import serve
        from allegra_rules.server.hosts import serving_hosts

        if args.database is not None:
            import psycopg  # noqa: F401
            import psycopg_pool  # noqa: F401
    except ImportError as exc:
        raise CommandError(
            f"the server needs the extra 'server' ({exc.name or exc} is missing): "
            '(in a clone of the repository: pip install ".[server]")'
        ) from None
    allowed = None
    if args.allowed_hosts is not None:
        allowed = [name for name in args.allowed_hosts.split(",") if name.strip()]
    try:
        serving_hosts(args.host, allowed)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    try:
        # A PostgreSQL database that cannot be reached: a message, not a traceback.
        serve(
            args.host,
            args.port,
            args.db if args.database is None else args.database,
            proxy_headers=args.proxy_headers,
            forwarded_allow_ips=args.forwarded_allow_ips,
            max_open_tables=args.max_tables,
            tables_per_hour=args.tables_per_hour,
            seat_timeout=args.seat_timeout,
            abandoned_after=args.abandoned_after,
            view_cache_bytes=int(args.view_cache_mb * 1024 * 1024),
            bot_workers=args.bot_workers,
            bot_tables_per_client=args.bot_tables_per_client,
            search_tables_per_client=args.search_tables_per_client,
            wal_limit=int(args.wal_limit_mb * 1024 * 1024),
            bot_lease=args.bot_lease,
            workers=args.workers,
            allowed_hosts=allowed,
            max_sockets=args.max_sockets,
            max_sockets_per_client=args.max_sockets_per_client,
            header_timeout=args.header_timeout,
        )
    except ConnectionError as exc:
        raise CommandError(str(exc)) from None
    return 0


# ------------------------------------------------------------------------ main


class SavedInterrupt(KeyboardInterrupt):
    """Ctrl-C after the game was saved and the person told so: exit 130, no error line."""


def _error(message: str) -> None:
    print(f"{PROG}: error: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run the ``allegra-rules`` command line.

    Args:
        argv: the arguments after the program name; ``None`` reads ``sys.argv``.

    Returns:
        The exit code: 0 on success, 1 when a command fails, 2 for bad arguments,
        130 when interrupted. Errors are one line, ``allegra-rules: error: ...``, on
        standard error. Set ``ALLEGRA_RULES_DEBUG=1`` to see the traceback of an
        unexpected error instead of its one-line summary.
    """
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        _error(str(exc))
        return 2
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else 0
    with catching_interrupts():
        try:
            code = _run(args)
            if interrupted():  # a Ctrl-C that came while another error was handled
                raise KeyboardInterrupt
        except SavedInterrupt:
            return 130
        except KeyboardInterrupt:
            _error("interrupted")
            return 130
    return code


def _run(args: argparse.Namespace) -> int:
    """Run the chosen command; map its errors to exit codes (a Ctrl-C propagates)."""
    try:
        code: int = args.handler(args)
        sys.stdout.flush()
    except UsageError as exc:
        _error(str(exc))
        return 2
    except CommandError as exc:
        _error(str(exc))
        return 1
    except BrokenPipeError:
        # The reader went away (``allegra-rules demo | head``): stop quietly.
        silence_stdout()
        return 1
    except Exception as exc:
        if os.environ.get("ALLEGRA_RULES_DEBUG"):
            raise
        detail = " ".join(str(exc).split())
        _error(f"unexpected {type(exc).__name__}: {detail} (ALLEGRA_RULES_DEBUG=1 shows more)")
        return 1
    return code
