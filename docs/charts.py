"""The charts of the pages drawn again for a phone: the ladder and the learning curves.

``docs/assets/ladder.svg`` (``benchmarks/plot_ladder.py``), ``docs/assets/ppo-curve.svg``
(``benchmarks/train_maskable_ppo.py``) and ``docs/assets/policy-curve*.svg``
(``allegra-rules train --curve``) are 640 units wide with 11 and 12 unit text: on a
390 px phone that text would be 6 px high. ``docs/generate.py`` writes the narrow charts
made here into ``_generated/img/narrow/`` and its stylesheet shows them on a phone:

* the ladder is drawn again from ``docs/assets/ladder.json`` (the data the wide chart is
  drawn from), 360 units wide: each bot's name and share of wins on a line, its bar
  under them across the whole width;
* the PPO curve, whose data lives only in its SVG, is that SVG squeezed sideways: every
  x is mapped onto a 360 unit width (the text keeps its size) and the labels at the
  right of the lines move onto the plot, under their lines;
* the training's learning curve (the shipped weights' run) is squeezed the same way.
"""

from __future__ import annotations

import json
import re
import textwrap
import xml.etree.ElementTree as ET
from html import escape
from pathlib import Path
from typing import Any

ASSETS = Path(__file__).resolve().parent / "assets"

WIDTH = 360
"""The width of a narrow chart, in its own units (about a phone's column at 390 px)."""

_SVG = "http://www.w3.org/2000/svg"


def _wrapped(x: float, y: float, text: str, size: float, step: float, **attrs: str) -> list[str]:
    extra = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    chars = int((WIDTH - 2 * x) / (0.55 * size))
    return [
        f'<text x="{x}" y="{y + k * step:.0f}" font-size="{size}"{extra}>{escape(line)}</text>'
        for k, line in enumerate(textwrap.wrap(text, chars))
    ]


def ladder(data: dict[str, Any]) -> str:
    """The ladder of ``tournament --json`` for a phone: a row a bot, best first.

    The same figures as ``benchmarks/plot_ladder.py`` draws: a dot at the bot's
    openskill mean ``mu``, a bar from ``mu - 3 sigma`` to ``mu + 3 sigma`` and its share
    of the wins, with the same title, scale and note; the smallest text is 12 units.
    """
    bots = [b for b in data["bots"] if "mu" in b]
    lows = [b["mu"] - 3 * b["sigma"] for b in bots]
    highs = [b["mu"] + 3 * b["sigma"] for b in bots]
    lo = 5 * (min(lows) // 5)
    hi = 5 * (-(-max(highs) // 5))
    s = data["settings"]
    note = (
        f"{s['players']} players, preset {s['preset']}, {s['deals']} deals a pair, "
        f"{s['games']} games"
    )
    left, right, row = 14, WIDTH - 14, 46
    parts = _wrapped(left, 22, "Ratings (openskill Plackett-Luce)", 14, 18, font_weight="bold")
    subtitle = _wrapped(left, 22 + 18 * len(parts), note, 12, 16, fill="#555")
    parts += subtitle
    top = 22 + 18 * (len(parts) - len(subtitle)) + 16 * len(subtitle)
    bottom = top + row * len(bots) + 6

    def x(value: float) -> float:
        return left + 8 + (right - left - 16) * (value - lo) / (hi - lo)

    step = 10 if hi - lo > 40 else 5
    tick = lo
    while tick <= hi:
        parts.append(
            f'<line x1="{x(tick):.1f}" y1="{top + 4}" x2="{x(tick):.1f}" y2="{bottom}"'
            ' stroke="#ddd"/>'
            f'<text x="{x(tick):.1f}" y="{bottom + 16}" text-anchor="middle" font-size="12"'
            f' fill="#555">{tick:g}</text>'
        )
        tick += step
    for k, b in enumerate(bots):
        y = top + row * k + 22
        parts.append(
            f'<text x="{left}" y="{y}" font-size="13">{escape(b["bot"])}</text>'
            f'<text x="{right}" y="{y}" font-size="12" text-anchor="end" fill="#555">'
            f"{100 * b['share']:.0f} % of wins</text>"
            f'<line x1="{x(lows[k]):.1f}" y1="{y + 14}" x2="{x(highs[k]):.1f}" y2="{y + 14}"'
            ' stroke="#3f51b5" stroke-width="4" stroke-linecap="round" opacity="0.45"/>'
            f'<circle cx="{x(b["mu"]):.1f}" cy="{y + 14}" r="5" fill="#3f51b5"/>'
        )
    foot = "mu, with a bar from mu - 3 sigma (the rating) to mu + 3 sigma"
    lines = _wrapped(left, bottom + 38, foot, 12, 16, fill="#555")
    height = bottom + 38 + 16 * (len(lines) - 1) + 10
    head = (
        f'<svg xmlns="{_SVG}" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}"'
        ' font-family="sans-serif" font-size="13" role="img" aria-label="Bot ratings">'
        f'<rect width="{WIDTH}" height="{height}" fill="white"/>'
    )
    return "\n".join([head, *parts, *lines, "</svg>"]) + "\n"


def squeezed(svg: str, plot: tuple[float, float], *, labels_from: float) -> str:
    """A chart ``svg`` mapped onto ``WIDTH`` units sideways, its text the same size.

    ``plot`` is the x range of the plot area; it becomes ``44 .. WIDTH - 16`` and the
    axis labels left of it keep their distance, shrunk alike. A text at or right of
    ``labels_from`` (a line's label) moves onto the plot's right end, under its line.
    """
    ET.register_namespace("", _SVG)
    root = ET.fromstring(svg)
    a, b = plot
    new_a, new_b = 44.0, WIDTH - 16.0
    factor = (new_b - new_a) / (b - a)

    def mapped(x: float) -> float:
        return round(new_a + (x - a) * factor, 1)

    for el in root.iter():
        tag = el.tag.rsplit("}", 1)[-1]
        for name in ("x", "x1", "x2", "cx"):
            if el.get(name) is not None and not (tag == "rect" and name == "x"):
                el.set(name, f"{mapped(float(el.get(name, '0'))):g}")
        if el.get("points"):
            pairs = (p.split(",") for p in el.get("points", "").split())
            el.set("points", " ".join(f"{mapped(float(x)):g},{y}" for x, y in pairs))
        turn = re.fullmatch(r"rotate\((\S+) (\S+) (\S+)\)", el.get("transform", ""))
        if turn:
            angle, x, y = turn.groups()
            el.set("transform", f"rotate({angle} {mapped(float(x)):g} {y})")
        if tag == "text" and float(el.get("x", "0")) >= mapped(labels_from):
            el.set("x", f"{new_b:g}")
            el.set("text-anchor", "end")
            el.set("y", f"{float(el.get('y', '0')) + 14:g}")
    root.set("width", str(WIDTH))
    height = root.get("height", "0")
    root.set("viewBox", f"0 0 {WIDTH} {height}")
    for rect in root.iter(f"{{{_SVG}}}rect"):
        rect.set("width", str(WIDTH))
    return ET.tostring(root, encoding="unicode") + "\n"


def narrow_charts() -> dict[str, str]:
    """Each chart of ``docs/assets/`` drawn for a phone, by its file name there."""
    data = json.loads((ASSETS / "ladder.json").read_text(encoding="utf-8"))
    curve = (ASSETS / "ppo-curve.svg").read_text(encoding="utf-8")
    out = {
        "ladder.svg": ladder(data),
        "ppo-curve.svg": squeezed(curve, (64, 490), labels_from=496),
    }
    for name in ("policy-curve.svg", "policy-curve-seeds.svg"):
        policy = (ASSETS / name).read_text(encoding="utf-8")
        # allegra_rules.train's curve_svg: the plot from x 56 to 530, labels from 536.
        out[name] = squeezed(policy, (56, 530), labels_from=536)
    return out
