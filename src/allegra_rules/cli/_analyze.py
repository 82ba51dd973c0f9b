"""``allegra-rules analyze``: what a variant does to a game, measured (``allegra_rules.analysis``).

One run measures a preset (or a config file) at one or more seat counts; ``--options``
also measures every alternative of every rule option with the rest held at the preset,
and says which figures change after Holm's correction. The JSON (``--json FILE``) holds
the command that made it, the seed and the game count, so the docs' figures can be
made again.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shlex
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from allegra_rules.analysis import (
    MEASURES,
    analyze,
    compare,
    describe,
    holm,
    option_variants,
    report,
    rounded,
)
from allegra_rules.cli._common import (
    PROG,
    CommandError,
    Parser,
    UsageError,
    check_players,
    load_config,
    parse_bots,
)
from allegra_rules.config import RuleConfig
from allegra_rules.simulate import Runner, default_jobs

BOT_NOTE = (
    "GreedyBot, the strongest bot that plays every variant quickly: the learned policy "
    "does not yet play every rule variant and seat count"
)
"""Why the figures use the bots they use (written into the JSON)."""

ALPHA = 0.05
"""A change is reported when Holm's adjusted p-value is below this."""

OPTIONS_PLAYERS = 4
"""The seat count ``--options`` measures the alternatives at, unless ``--players`` gives one."""

_EXAMPLES = f"""\
  {PROG} analyze --preset published --players 4 --games 200 --seed 1
  {PROG} analyze --preset seeds --players 2-6 --games 500 --json seeds.json
  {PROG} analyze --preset published --options --games 500 --jobs 0 --json options.json"""


def add_analyze_parser(
    commands: argparse._SubParsersAction[Parser], epilog: Callable[[str], str]
) -> None:
    """Add the ``analyze`` sub-command to ``commands``."""
    p = commands.add_parser(
        "analyze",
        help="measure what a variant does to a game (length, seats, rules firing, ...)",
        description=(
            "Play many seeded games of one variant between bots and measure them: game\n"
            "and round length, score spread and winner's margin, each seat's share of\n"
            "the wins with 95 % intervals, how often each rule fires (knocks, exchanges,\n"
            "triples, gaps, doubling, turn-cap ends), the legal actions at each kind of\n"
            "decision, and by turn how many cards are public, known to each seat and\n"
            "hidden. --options also measures every alternative of every rule option\n"
            "with the rest held at the preset, and says which figures change after\n"
            "Holm's correction. The results do not depend on --jobs or --ray."
        ),
        epilog=epilog(_EXAMPLES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rules = p.add_mutually_exclusive_group()
    rules.add_argument("--preset", default=None, metavar="P", help="rule preset (default seeds)")
    rules.add_argument(
        "--config", type=Path, default=None, metavar="FILE", help="a RuleConfig JSON file"
    )
    p.add_argument(
        "--players",
        default=None,
        metavar="K",
        help="seat counts: 4, 2-6 or 2,4,6 (default 4)",
    )
    p.add_argument("--bots", default="greedy", metavar="B,...", help="bot per seat (greedy)")
    p.add_argument("--games", type=int, default=200, metavar="N", help="games per seat count (200)")
    p.add_argument("--seed", type=int, default=1, metavar="S", help="the seed (1)")
    p.add_argument(
        "--jobs", type=int, default=1, metavar="J", help="worker processes; 0: one per CPU (1)"
    )
    p.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="run the games as Ray tasks (extra ray), at ADDRESS or on a local Ray",
    )
    p.add_argument(
        "--options",
        action="store_true",
        help="also measure every option's alternatives, the rest held at the preset",
    )
    p.add_argument(
        "--json", type=Path, default=None, metavar="FILE", help="write JSON to FILE ('-': stdout)"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(handler=run_analyze)


def seat_counts(text: str) -> list[int]:
    """The seat counts of ``--players``: ``"4"``, ``"2-6"`` or ``"2,4,6"``.

    Raises:
        UsageError: anything else.
    """
    try:
        if "-" in text:
            low, high = (int(x) for x in text.split("-"))
            counts = list(range(low, high + 1))
        else:
            counts = [int(x) for x in text.split(",")]
    except ValueError:
        raise UsageError(f"--players must be like 4, 2-6 or 2,4,6; got {text!r}") from None
    if not counts:
        raise UsageError(f"--players names no seat count: {text!r}")
    return sorted(set(counts))


def _load(args: argparse.Namespace) -> tuple[RuleConfig, str]:
    if args.config is None:
        name = args.preset or "seeds"
        return load_config(name), name
    try:
        text = args.config.read_bytes()
    except OSError as exc:
        raise UsageError(f"--config {str(args.config)!r}: {exc.strerror}") from None
    try:
        return RuleConfig.from_json(text), str(args.config)
    except ValueError as exc:
        raise UsageError(f"--config {str(args.config)!r}: {exc}") from None


def command_line(args: argparse.Namespace, players: Sequence[int]) -> str:
    """The command that makes this run's JSON again (written into it)."""
    parts = [PROG, "analyze"]
    if args.config is not None:
        parts += ["--config", str(args.config)]
    else:
        parts += ["--preset", args.preset or "seeds"]
    shown = ",".join(map(str, players))
    if len(players) > 1 and list(players) == list(range(players[0], players[-1] + 1)):
        shown = f"{players[0]}-{players[-1]}"
    parts += ["--players", shown, "--bots", args.bots, "--games", str(args.games)]
    parts += ["--seed", str(args.seed)]
    if args.options:
        parts.append("--options")
    return shlex.join(parts)


@contextlib.contextmanager
def _runner(address: str | None) -> Iterator[tuple[Runner | None, int | None]]:
    if address is None:
        yield None, None
        return
    from allegra_rules.cli._ray import ray_runner

    with ray_runner(address) as pair:
        yield pair


def run_analyze(args: argparse.Namespace) -> int:
    """Run ``allegra-rules analyze`` (see the module docs)."""
    from allegra_rules.cli._progress import progress_bar

    config, name = _load(args)
    default = str(OPTIONS_PLAYERS)
    players = seat_counts(args.players or default)
    for k in players:
        check_players(config, name, k)
    if args.games < 1:
        raise UsageError(f"--games must be at least 1; got {args.games}")
    if args.jobs < 0:
        raise UsageError(f"--jobs must be 0 (one per CPU) or more; got {args.jobs}")
    if args.options and len(players) != 1:
        raise UsageError("--options measures at one seat count: give --players K")
    variants = option_variants(config) if args.options else []
    runs: list[tuple[int, str | None, object, RuleConfig]] = [
        (k, None, None, config) for k in players
    ]
    runs += [(players[0], option, value, cfg) for option, value, cfg in variants]
    bots_by_seats = {
        k: parse_bots(args.bots, k, config=config, players=k) for k in dict.fromkeys(players)
    }
    total = args.games * len(runs)
    results: list[dict[str, Any]] = []
    with (
        _runner(args.ray) as (runner, cpus),
        progress_bar(total, "games", sys.stderr, enabled=not args.no_progress) as advance,
    ):
        jobs = cpus if runner is not None and cpus is not None else (args.jobs or default_jobs())

        def step(count: int) -> None:
            for _ in range(count):
                advance()

        for k, option, value, cfg in runs:
            tally = analyze(
                k,
                games=args.games,
                config=cfg,
                seed=args.seed,
                bots=bots_by_seats[k],
                jobs=jobs,
                on_games=step,
                runner=runner,
            )
            results.append(
                {
                    "option": option,
                    "value": value,
                    "rules": describe(cfg, k, bots_by_seats[k], args.seed),
                    "report": report(tally),
                }
            )
    data: dict[str, Any] = {
        "command": command_line(args, players),
        "rules": name,
        "seed": args.seed,
        "games": args.games,
        "bots": args.bots,
        "bots_note": BOT_NOTE,
        "intervals": (
            "95 %: Wilson score intervals for rates, Student t intervals for means; "
            "differences: normal (Welch) intervals, Holm-corrected p-values"
        ),
        "tables": [r for r in results if r["option"] is None],
    }
    if args.options:
        data["options"] = effects(results[0], results[len(players) :])
    if args.json is not None:
        text = json.dumps(rounded(data), indent=1, sort_keys=True) + "\n"
        if str(args.json) == "-":
            sys.stdout.write(text)
        else:
            try:
                args.json.write_text(text, encoding="utf-8")
            except OSError as exc:
                raise CommandError(f"--json {str(args.json)!r}: {exc.strerror}") from None
    if args.json is None or str(args.json) != "-":
        write_text(data, sys.stdout)
    return 0


def effects(base: dict[str, Any], variants: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Every variant compared with the base; Holm's correction over all the comparisons.

    Returns:
        ``{"players", "base", "variants", "comparisons", "alpha"}``: each comparison
        row names its option and value and says whether it is ``significant``.
    """
    rows = []
    for variant in variants:
        for row in compare(base["report"], variant["report"]):
            rows.append({"option": variant["option"], "value": variant["value"], **row})
    adjusted = holm([row["p"] for row in rows])
    for row, p in zip(rows, adjusted, strict=True):
        row["p_holm"] = p
        row["significant"] = p < ALPHA
        row["words"] = MEASURES[row["measure"]]
    return {
        "players": base["rules"]["players"],
        "alpha": ALPHA,
        "base": base["rules"],
        "variants": [
            {
                "option": v["option"],
                "value": v["value"],
                "report": {k: x for k, x in v["report"].items() if k != "information"},
            }
            for v in variants
        ],
        "comparisons": rows,
    }


def sentence(row: dict[str, Any]) -> str:
    """A comparison in words: ``"turns per round up by 12.30 (95 % interval +10.10 to +14.50)"``.

    Rates and the seat advantage are in percentage points; the interval is the
    difference's, not corrected for the number of comparisons.
    """
    percent = row["measure"].endswith(("rate", "advantage"))
    scale = 100 if percent else 1
    unit = " percentage points" if percent else ""
    way = "up" if row["difference"] > 0 else "down"
    return (
        f"{row['words']} {way} by {abs(row['difference']) * scale:.2f}{unit} "
        f"(95 % interval {row['low'] * scale:+.2f} to {row['high'] * scale:+.2f})"
    )


def write_text(data: dict[str, Any], out: TextIO) -> None:
    """A short plain-text report of ``analyze``'s data."""
    out.write(f"{data['command']}\n{data['bots_note']}\n")
    for table in data["tables"]:
        r = table["report"]
        k = table["rules"]["players"]
        length = r["length"]["round_turns"]
        out.write(
            f"\n{k} players, {r['games']} games: {length['mean']:.1f} turns a round "
            f"({length['low']:.1f} to {length['high']:.1f})\n"
            if length["low"] is not None
            else f"\n{k} players, {r['games']} games: {length['mean']:.1f} turns a round\n"
        )
        for seat in r["seats"]:
            adv = seat["advantage"]
            shown = (
                f"{100 * adv['mean']:+.1f} points"
                if adv["low"] is None
                else f"{100 * adv['mean']:+.1f} points ({100 * adv['low']:+.1f} to "
                f"{100 * adv['high']:+.1f})"
            )
            out.write(f"  seat {seat['seat']}: share of wins vs even {shown}\n")
        rules = r["rules"]
        out.write(
            f"  knocks {rules['round_knocks']['mean']:.2f}, exchanges "
            f"{rules['round_exchanges']['mean']:.2f}, triples {rules['round_triples']['mean']:.2f}"
            f" a round; doubled enders {rules['doubled_rate']['events']}; turn-cap ends "
            f"{rules['turn_cap_rate']['events']}\n"
        )
    options = data.get("options")
    if options:
        found = [row for row in options["comparisons"] if row["significant"]]
        out.write(
            f"\nOptions at {options['players']} players: {len(found)} significant changes "
            f"of {len(options['comparisons'])} comparisons (Holm, {options['alpha']})\n"
        )
        for row in found:
            out.write(f"  {row['option']}={row['value']}: {sentence(row)}\n")
