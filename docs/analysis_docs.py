"""The preset pages and the option-effects table, drawn from the committed analysis JSON.

``docs/assets/analysis/<name>.json`` are the outputs of ``allegra-rules analyze --json``
(each holds the command, the seed and the game count that made it):

* one per distinct preset config, at 2-6 seats (``seeds.json`` also serves ``de`` and
  ``pl``, whose configs equal ``seeds``);
* ``options.json``: every option's alternatives against ``published`` (``--options``).

``docs/generate.py`` writes from them a snippet per preset page
(``snippets/analysis-<preset>.md``, included by ``docs/presets/<preset>.md``), the
option-effects snippet of the variants page (``snippets/option-effects.md``; each
translation's variants page includes its own, a sentence in its language linking to the
English table) and two charts per data file, 360 units wide with text of at least 12
units, so that they read on a 390 px phone as drawn: the information flow by turn at
four seats and every seat's advantage at every seat count.
"""

from __future__ import annotations

import json
import textwrap
from html import escape
from pathlib import Path
from typing import Any

ANALYSIS = Path(__file__).resolve().parent / "assets" / "analysis"
"""Where the committed analysis JSON lies."""

WIDTH = 360
"""A chart's width in its own units (a phone's column at 390 px)."""

FLOW_PLAYERS = 4
"""The seat count of the information-flow chart."""

PRESET_PAGES = ("seeds", "de", "pl", "fr", "published")
"""The presets with a page (``docs/presets/<name>.md``)."""

EFFECTS_LINK = {
    "de": (
        "Was jede Option in einem Spiel verändert (Länge der Runden, Klopfen, drei gleiche "
        "Karten, Verdoppeln, Vorteil der Sitzplätze), gemessen über viele Spiele, steht auf "
        "Englisch in der Tabelle [What each option does](/variants/#what-each-option-does); "
        "jeder Regelsatz hat dort seine eigene Seite: {links}."
    ),
    "fr": (
        "Ce que chaque option change dans une partie (longueur des manches, coups frappés, "
        "brelans, doublement, avantage des places), mesuré sur de nombreuses parties, est "
        "dans le tableau en anglais [What each option does](/variants/#what-each-option-does) ; "
        "chaque ensemble de règles y a sa page : {links}."
    ),
    "pl": (
        "Co każda opcja zmienia w grze (długość rund, pukanie, trójki, podwajanie, przewagę "
        "miejsc), zmierzone na wielu grach, pokazuje tabela po angielsku "
        "[What each option does](/variants/#what-each-option-does); każdy zestaw zasad ma tam "
        "swoją stronę: {links}."
    ),
}
"""Each translation's variants page: a sentence linking to the English figures."""

_SVG = "http://www.w3.org/2000/svg"


def load(name: str) -> dict[str, Any]:
    """The committed analysis ``name`` (``seeds``, ``options``, ...)."""
    data: dict[str, Any] = json.loads((ANALYSIS / f"{name}.json").read_text(encoding="utf-8"))
    return data


def data_files() -> list[str]:
    """The names of the committed analyses of presets (not ``options``)."""
    return sorted(p.stem for p in ANALYSIS.glob("*.json") if p.stem != "options")


def data_for(preset: str) -> str:
    """The analysis whose rules are the config of ``preset`` (by fingerprint).

    Raises:
        LookupError: no committed analysis has that config (the JSON is stale or missing).
    """
    from allegra_rules import preset as preset_config

    fingerprint = preset_config(preset).fingerprint
    for name in data_files():
        tables = load(name)["tables"]
        if all(t["rules"]["config_fingerprint"] == fingerprint for t in tables):
            return name
    raise LookupError(f"no analysis in {ANALYSIS} has the config of preset {preset!r}")


# ---------------------------------------------------------------- numbers


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _mean(fig: dict[str, Any], digits: int = 1, scale: float = 1) -> str:
    if fig.get("mean") is None:
        return "-"
    mean = fig["mean"] * scale
    if fig.get("low") is None:
        return _num(mean, digits)
    low, high = fig["low"] * scale, fig["high"] * scale
    return f"{mean:.{digits}f} ({low:.{digits}f} to {high:.{digits}f})"


def _rate(fig: dict[str, Any]) -> str:
    if fig["rate"] is None:
        return "- (never asked)" if fig["chances"] == 0 else "-"
    return f"{100 * fig['rate']:.1f} % ({100 * fig['low']:.1f} to {100 * fig['high']:.1f})"


def _source(data: dict[str, Any]) -> str:
    return (
        f"Made by `{data['command']}`: seed {data['seed']}, {data['games']:,} games per "
        f"table. Bots: {data['bots_note']}. Intervals: {data['intervals']}."
    )


# ---------------------------------------------------------------- preset pages


def preset_snippet(preset: str) -> str:
    """The figures of ``preset``'s page, from its committed analysis."""
    name = data_for(preset)
    data = load(name)
    tables = data["tables"]
    counts = [t["rules"]["players"] for t in tables]
    reports = [t["report"] for t in tables]
    lines = []
    if name != preset:
        lines += [
            f"`{preset}` has the same options as `{name}` (the same config fingerprint), so "
            f"these are the figures of `{name}`.",
            "",
        ]
    lines += [_source(data), ""]
    header = "| | " + " | ".join(f"{k} players" for k in counts) + " |"
    rule = "|---|" + "---|" * len(counts)

    def row(label: str, cells: list[str]) -> str:
        return f"| {label} | " + " | ".join(cells) + " |"

    lines += ["## Length and scores {#length}", "", header, rule]
    lines.append(row("turns a round", [_mean(r["length"]["round_turns"]) for r in reports]))
    lines.append(row("turns a game", [_mean(r["length"]["game_turns"]) for r in reports]))
    lines.append(row("longest round", [str(r["length"]["longest_round"]) for r in reports]))
    lines.append(row("score spread", [_mean(r["scores"]["spread"]) for r in reports]))
    lines.append(row("winner's margin", [_mean(r["scores"]["margin"]) for r in reports]))
    lines += [
        "",
        "A turn starts with its draw; a game has three rounds. The spread is the highest "
        "final total minus the lowest; the winner's margin is the second-lowest total minus "
        "the lowest (0 when the win is shared). Each cell: the mean and its 95 % interval.",
        "",
        "## How often each rule fires {#rules}",
        "",
        header,
        rule,
    ]
    rules = [r["rules"] for r in reports]
    lines.append(row("knock windows a round", [_per_round(r, "knock_windows") for r in reports]))
    lines.append(row("asks answered with a knock", [_rate(x["knock_rate"]) for x in rules]))
    lines.append(row("knocks a round", [_mean(x["round_knocks"], 2) for x in rules]))
    lines.append(row("exchanges a round", [_mean(x["round_exchanges"], 2) for x in rules]))
    lines.append(row("knocked windows exchanged", [_rate(x["exchange_rate"]) for x in rules]))
    lines.append(row("triples a round", [_mean(x["round_triples"], 2) for x in rules]))
    lines.append(row("cards removed a round", [_mean(x["round_removed"], 2) for x in rules]))
    lines.append(row("gaps at scoring a round", [_mean(x["round_gaps"], 2) for x in rules]))
    lines.append(row("round enders doubled", [_rate(x["doubled_rate"]) for x in rules]))
    lines.append(row("rounds stopped at the turn cap", [_rate(x["turn_cap_rate"]) for x in rules]))
    lines += [
        "",
        "A knock window opens when a card is drawn from the draw pile and the others are "
        "asked in turn; a rule that cannot fire shows 0 (no window opens where knocking "
        "needs three players). Rates are in per cent with their 95 % Wilson interval.",
        "",
        "## Each seat's advantage {#seats}",
        "",
        "![Each seat's share of the wins minus an even share]"
        f"(../_generated/img/analysis/seats-{name}.svg)",
        "",
        "| | " + " | ".join(f"seat {s + 1}" for s in range(max(counts))) + " |",
        "|---|" + "---|" * max(counts),
    ]
    for k, r in zip(counts, reports, strict=True):
        cells = [_mean(seat["advantage"], 1, 100) for seat in r["seats"]]
        cells += [""] * (max(counts) - k)
        lines.append(row(f"{k} players", cells))
    lines += [
        "",
        "A seat's share of the wins (a shared win split between its winners) minus an even "
        "share, in percentage points, with its 95 % t interval; seat 1 takes the first turn "
        "of the first round, and the start seat moves on by one each round.",
        "",
        "## Choices at each decision {#branching}",
        "",
        header,
        rule,
    ]
    phases = sorted({p for r in reports for p in r["branching"]})
    for phase in phases:
        cells = [
            _num(r["branching"][phase]["mean"]) if phase in r["branching"] else "0" for r in reports
        ]
        lines.append(row(f"`{phase}`", cells))
    lines += [
        "",
        "The mean number of legal actions when a seat decides, by the phase the game is in "
        "(the kind of decision); 0: the decision never comes up.",
        "",
        "## What each seat knows {#information}",
        "",
        f"![Cards public, hidden and known by turn at {FLOW_PLAYERS} players]"
        f"(../_generated/img/analysis/flow-{name}.svg)",
        "",
        _flow_words(reports[counts.index(FLOW_PLAYERS)] if FLOW_PLAYERS in counts else reports[0]),
        "",
    ]
    return "\n".join(lines)


def _per_round(report: dict[str, Any], key: str) -> str:
    rounds = report["rounds"]
    return _num(report["rules"][key] / rounds, 2) if rounds else "-"


def _flow_words(report: dict[str, Any]) -> str:
    rows = report["information"]
    extra = max((max(r["known"]) - r["public"] for r in rows), default=0.0)
    return (
        "By turn of the round (0: the setup), over every decision of that turn: the cards on "
        "the table (the grids, a held card and a knocker's hand) whose value everyone sees, "
        "and those face down, which nobody knows, their owner included. A seat's own view "
        "shows more than the public one only during a knock exchange, when the drawer holds "
        "a card taken face down or the knocker a replaced face-down card: at most "
        f"{extra:.2f} cards more on average in any turn. The piles are left out: the discard "
        "pile is public, the draw pile's order nobody knows."
    )


# ---------------------------------------------------------------- the options table


def effects_snippet() -> str:
    """The variants page's table: each option's alternatives and what they change."""
    data = load("options")
    options = data["options"]
    rows = options["comparisons"]
    lines = [
        f"Every alternative of every option, the rest held at `published`, at "
        f"{options['players']} players, compared with `published` itself on "
        f"{len({r['measure'] for r in rows})} figures. A change is listed when it holds "
        f"after Holm's correction for all {len(rows)} comparisons together (familywise "
        f"error {options['alpha']}); its interval is the difference's plain 95 % interval. "
        f"Rates and the first seat's advantage are in percentage points. {_source(data)}",
        "",
        "| option | value | what changes, against `published` |",
        "|---|---|---|",
    ]
    from allegra_rules.cli._analyze import sentence

    for variant in options["variants"]:
        option, value = variant["option"], variant["value"]
        found = [
            sentence(r)
            for r in rows
            if r["option"] == option and r["value"] == value and r["significant"]
        ]
        words = "; ".join(found) if found else "no significant change"
        shown = f"`{value}`" if isinstance(value, str) else str(value)
        lines.append(f"| [`{option}`](#options) | {shown} | {words} |")
    links = ", ".join(f"[`{p}`](presets/{p}.md)" for p in PRESET_PAGES)
    lines += ["", f"Every preset measured at 2 to 6 players: {links}.", ""]
    return "\n".join(lines)


def effects_link(lang: str) -> str:
    """A translation's variants page: a sentence in ``lang`` linking to the English figures."""
    links = ", ".join(f"[`{p}`](/presets/{p}/)" for p in PRESET_PAGES)
    return EFFECTS_LINK[lang].format(links=links) + "\n"


# ---------------------------------------------------------------- charts


def _head(height: float, label: str) -> str:
    return (
        f'<svg xmlns="{_SVG}" width="{WIDTH}" height="{height:.0f}" '
        f'viewBox="0 0 {WIDTH} {height:.0f}" font-family="sans-serif" font-size="13" '
        f'role="img" aria-label="{escape(label)}">'
        f'<rect width="{WIDTH}" height="{height:.0f}" fill="white"/>'
    )


def _wrapped(x: float, y: float, text: str, size: float, step: float) -> list[str]:
    chars = int((WIDTH - 2 * x) / (0.55 * size))
    return [
        f'<text x="{x}" y="{y + k * step:.0f}" font-size="{size}" fill="#555">{escape(line)}</text>'
        for k, line in enumerate(textwrap.wrap(text, chars))
    ]


def flow_chart(name: str) -> str:
    """Cards public and hidden by turn at ``FLOW_PLAYERS`` seats, and the most a seat knows."""
    data = load(name)
    table = next(
        (t for t in data["tables"] if t["rules"]["players"] == FLOW_PLAYERS), data["tables"][0]
    )
    report = table["report"]
    rows = [r for r in report["information"] if r["decisions"] * 10 >= report["rounds"]]
    left, right, top, bottom = 40, WIDTH - 12, 58, 250
    cards = 12 * table["rules"]["players"]
    last = max(r["turn"] for r in rows)

    def x(turn: float) -> float:
        return left + (right - left) * turn / max(1, last)

    def y(value: float) -> float:
        return bottom - (bottom - top) * value / cards

    parts = [
        f'<text x="14" y="22" font-size="14" font-weight="bold">What is known, turn by turn '
        f"({table['rules']['players']} players)</text>",
        f'<text x="14" y="40" font-size="12" fill="#555">{escape(_preset_label(table))}, '
        f"{report['games']:,} games</text>",
    ]
    for value in range(0, cards + 1, 12):
        parts.append(
            f'<line x1="{left}" y1="{y(value):.1f}" x2="{right}" y2="{y(value):.1f}"'
            ' stroke="#ddd"/>'
            f'<text x="{left - 4}" y="{y(value) + 4:.1f}" font-size="12" text-anchor="end"'
            f' fill="#555">{value}</text>'
        )
    step = 10 if last <= 60 else 20
    for turn in range(0, last + 1, step):
        parts.append(
            f'<text x="{x(turn):.1f}" y="{bottom + 16}" font-size="12" text-anchor="middle"'
            f' fill="#555">{turn}</text>'
        )
    series = (
        ("public", "#3f51b5", [r["public"] for r in rows], 5),
        ("hidden", "#e65100", [r["hidden"] for r in rows], 2),
        ("most a seat knows", "#111", [max(r["known"]) for r in rows], 1.5),
    )
    for label, colour, values, width in series:
        points = " ".join(
            f"{x(r['turn']):.1f},{y(v):.1f}" for r, v in zip(rows, values, strict=True)
        )
        dash = ' stroke-dasharray="4 3"' if label.startswith("most") else ""
        opacity = ' stroke-opacity="0.5"' if label == "public" else ""
        parts.append(
            f'<polyline points="{points}" fill="none" stroke="{colour}" '
            f'stroke-width="{width}"{dash}{opacity}/>'
        )
    legend_y = bottom + 36
    for k, (label, colour, _, _) in enumerate(series):
        ly = legend_y + 18 * k
        parts.append(
            f'<line x1="14" y1="{ly - 4}" x2="34" y2="{ly - 4}" stroke="{colour}"'
            ' stroke-width="3"/>'
            f'<text x="40" y="{ly}" font-size="12">{escape(label)}</text>'
        )
    foot = _wrapped(
        14,
        legend_y + 18 * len(series) + 6,
        "Cards on the table by turn of the round (0: setup); turns that fewer than one round "
        "in ten reaches are left out.",
        12,
        16,
    )
    height = legend_y + 18 * len(series) + 6 + 16 * len(foot)
    return "\n".join([_head(height, "Information flow"), *parts, *foot, "</svg>"]) + "\n"


def _preset_label(table: dict[str, Any]) -> str:
    return table["rules"]["preset"] or f"config {table['rules']['config_fingerprint'][:12]}"


def seats_chart(name: str) -> str:
    """Every seat's advantage (share of wins minus an even share) at every seat count."""
    data = load(name)
    tables = data["tables"]
    values = [
        (t["rules"]["players"], s["seat"], s["advantage"])
        for t in tables
        for s in t["report"]["seats"]
    ]
    lows = [100 * a["low"] for _, _, a in values if a["low"] is not None] or [-5.0]
    highs = [100 * a["high"] for _, _, a in values if a["high"] is not None] or [5.0]
    lo = 5 * (min(min(lows), -5) // 5)
    hi = 5 * -(-max(max(highs), 5) // 5)
    step = next(s for s in (5, 10, 20, 25, 50, 100, 200) if (hi - lo) / s <= 8)
    lo = step * (lo // step)
    hi = step * -(-hi // step)
    left, right = 70, WIDTH - 26
    top = 58
    row = 16
    group = 10

    def x(value: float) -> float:
        return left + (right - left) * (value - lo) / (hi - lo)

    parts = [
        '<text x="14" y="22" font-size="14" font-weight="bold">Each seat\'s advantage</text>',
        f'<text x="14" y="40" font-size="12" fill="#555">{escape(_preset_label(tables[0]))}, '
        f"{data['games']:,} games a table, percentage points</text>",
    ]
    ys = []
    cursor = top + 8
    for t in tables:
        k = t["rules"]["players"]
        parts.append(
            f'<text x="14" y="{cursor + 4}" font-size="12" font-weight="bold">{k} players</text>'
        )
        for s in t["report"]["seats"]:
            a = s["advantage"]
            yy = cursor + row * s["seat"] + 20
            ys.append(yy)
            parts.append(
                f'<text x="{left - 6}" y="{yy + 4}" font-size="12" text-anchor="end" fill="#555">'
                f"seat {s['seat'] + 1}</text>"
            )
            if a["low"] is not None:
                parts.append(
                    f'<line x1="{x(100 * a["low"]):.1f}" y1="{yy}" x2="{x(100 * a["high"]):.1f}"'
                    f' y2="{yy}" stroke="#3f51b5" stroke-width="4" stroke-linecap="round"'
                    ' opacity="0.45"/>'
                )
            parts.append(f'<circle cx="{x(100 * a["mean"]):.1f}" cy="{yy}" r="4" fill="#3f51b5"/>')
        cursor += row * k + group + 22
    bottom = cursor
    grid = []
    tick = lo
    while tick <= hi:
        colour = "#999" if tick == 0 else "#ddd"
        grid.append(
            f'<line x1="{x(tick):.1f}" y1="{top}" x2="{x(tick):.1f}" y2="{bottom}"'
            f' stroke="{colour}"/>'
            f'<text x="{x(tick):.1f}" y="{bottom + 16}" font-size="12" text-anchor="middle"'
            f' fill="#555">{tick:+g}</text>'
        )
        tick += step
    foot = _wrapped(
        14,
        bottom + 38,
        "A dot: the seat's share of the wins minus an even share; a bar: its 95 % interval. "
        "Seat 1 starts the first round.",
        12,
        16,
    )
    height = bottom + 38 + 16 * len(foot)
    return "\n".join([_head(height, "Seat advantage"), *grid, *parts, *foot, "</svg>"]) + "\n"


def charts() -> dict[str, str]:
    """Every chart of the preset pages, by file name under ``_generated/img/analysis/``."""
    out = {}
    for name in data_files():
        out[f"flow-{name}.svg"] = flow_chart(name)
        out[f"seats-{name}.svg"] = seats_chart(name)
    return out
