"""Draw the ladder of ``allegra-rules tournament --json FILE`` as an SVG (no plotting library).

Run from the repository root::

    allegra-rules tournament --deals 3 --jobs 0 --json ladder.json
    python benchmarks/plot_ladder.py ladder.json docs/assets/ladder.svg

One row per bot, best first: a dot at its openskill mean ``mu`` and a bar from
``mu - 3 sigma`` (its rating, the ordinal the table sorts by) to ``mu + 3 sigma``; the
bot's share of the wins over all its games is written on the right.
"""

from __future__ import annotations

import argparse
import json
from html import escape
from pathlib import Path
from typing import Any

WIDTH = 640
ROW = 34
LEFT = 120
RIGHT = 110
TOP = 46
BOTTOM = 40


def svg(data: dict[str, Any]) -> str:
    bots = [b for b in data["bots"] if "mu" in b]
    if not bots:
        raise SystemExit("the JSON has no ratings (install the ladder extra)")
    lows = [b["mu"] - 3 * b["sigma"] for b in bots]
    highs = [b["mu"] + 3 * b["sigma"] for b in bots]
    lo = 5 * (min(lows) // 5)
    hi = 5 * (-(-max(highs) // 5))
    height = TOP + ROW * len(bots) + BOTTOM
    plot = WIDTH - LEFT - RIGHT

    def x(value: float) -> float:
        return LEFT + plot * (value - lo) / (hi - lo)

    s = data["settings"]
    title = (
        f"{s['players']} players, preset {s['preset']}, {s['deals']} deals a pair, "
        f"{s['games']} games"
    )
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="13" '
        f'role="img" aria-label="Bot ratings">',
        f'<rect width="{WIDTH}" height="{height}" fill="white"/>',
        f'<text x="{LEFT}" y="20" font-weight="bold">Ratings (openskill Plackett-Luce)</text>',
        f'<text x="{LEFT}" y="36" font-size="11" fill="#555">{escape(title)}</text>',
    ]
    step = 5 if hi - lo <= 40 else 10
    tick = lo
    while tick <= hi:
        parts.append(
            f'<line x1="{x(tick):.1f}" y1="{TOP - 4}" x2="{x(tick):.1f}" '
            f'y2="{height - BOTTOM + 4}" stroke="#ddd"/>'
            f'<text x="{x(tick):.1f}" y="{height - BOTTOM + 18}" text-anchor="middle" '
            f'font-size="11" fill="#555">{tick:g}</text>'
        )
        tick += step
    parts.append(
        f'<text x="{LEFT + plot / 2:.1f}" y="{height - 6}" text-anchor="middle" font-size="11" '
        f'fill="#555">mu, with a bar from mu - 3 sigma (the rating) to mu + 3 sigma</text>'
    )
    for k, b in enumerate(bots):
        y = TOP + ROW * k + ROW / 2
        parts.append(
            f'<text x="{LEFT - 10}" y="{y + 4:.1f}" text-anchor="end">{escape(b["bot"])}</text>'
            f'<line x1="{x(lows[k]):.1f}" y1="{y:.1f}" x2="{x(highs[k]):.1f}" y2="{y:.1f}" '
            f'stroke="#3f51b5" stroke-width="4" stroke-linecap="round" opacity="0.45"/>'
            f'<circle cx="{x(b["mu"]):.1f}" cy="{y:.1f}" r="5" fill="#3f51b5"/>'
            f'<text x="{WIDTH - RIGHT + 10}" y="{y + 4:.1f}" font-size="12">'
            f"{100 * b['share']:.0f} % of wins</text>"
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ladder", type=Path, help="JSON written by tournament --json")
    parser.add_argument("out", type=Path, help="the SVG to write")
    args = parser.parse_args(argv)
    args.out.write_text(svg(json.loads(args.ladder.read_text())), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
