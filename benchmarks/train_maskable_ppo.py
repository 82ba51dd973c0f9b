"""Train sb3-contrib's MaskablePPO on ``AllegraEnv`` against random bots; plot the curve.

Needs the ``sb3`` extra (``pip install "allegra-rules[sb3]"``, which brings
sb3-contrib and torch). Run from the repository root::

    python benchmarks/train_maskable_ppo.py --steps 300000 --svg docs/assets/ppo-curve.svg

A 2-player game with the ``seeds`` rules; the learner plays seat 0 or 1 (drawn at
every reset), the other seat is a :class:`~allegra_rules.RandomBot`. Every
``--eval-every`` steps the current policy (greedy: the most likely legal action)
plays ``--eval-games`` games on fixed seeds (the same seeds every time, the learner
in seat ``game % 2``). The *margin* of a game is the random opponent's total minus
the learner's total, in points (positive: the learner did better). The same seeds
are played by ``RandomBot`` and ``GreedyBot`` in the learner's seat as baselines.

The picture is an SVG written by hand (no plotting library): the mean margin with
its standard error at every evaluation, and the two baselines as flat lines.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from allegra_rules import GreedyBot, RandomBot
from allegra_rules.adapters.gymnasium import AllegraEnv


def episode_margin(env: AllegraEnv, seed: int, choose: Any) -> float:
    obs, _ = env.reset(seed=seed)
    done = False
    while not done:
        obs, _, done, _, _ = env.step(choose(env, obs))
    totals = env.state.totals
    return float(totals[1 - env.seat] - totals[env.seat])


def evaluate(choose: Any, games: int) -> dict[str, float]:
    margins = []
    for game in range(games):
        env = AllegraEnv(2, opponents=[RandomBot(10_000 + game)], seat=game % 2)
        margins.append(episode_margin(env, 10_000 + game, choose))
    mean = sum(margins) / games
    var = sum((m - mean) ** 2 for m in margins) / (games - 1)
    return {
        "mean_margin": round(mean, 2),
        "stderr": round(math.sqrt(var / games), 2),
        "win_rate": round(sum(m > 0 for m in margins) / games, 3),
    }


def policy_chooser(model: MaskablePPO) -> Any:
    def choose(env: AllegraEnv, obs: Any) -> int:
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        return int(action)

    return choose


def bot_chooser(bot: Any) -> Any:
    from allegra_rules.encoding import action_to_id

    def choose(env: AllegraEnv, obs: Any) -> int:
        return action_to_id(bot.choose(env.state), 2)

    return choose


def svg_curve(points: list[dict[str, Any]], baselines: dict[str, dict[str, float]]) -> str:
    """A line chart of the mean margin against training steps, baselines dashed."""
    width, height, left, right, top, bottom = 640, 360, 64, 150, 24, 48
    xs = [p["steps"] for p in points]
    lows = [p["mean_margin"] - p["stderr"] for p in points]
    highs = [p["mean_margin"] + p["stderr"] for p in points]
    values = [*lows, *highs, *(b["mean_margin"] for b in baselines.values()), 0.0]
    spread = max(values) - min(values)
    step = 10 if spread <= 60 else 20 if spread <= 140 else 50
    y_lo = math.floor(min(values) / step) * step
    y_hi = math.ceil(max(values) / step) * step
    x_hi = max(xs) or 1

    def px(x: float) -> float:
        return left + (width - left - right) * x / x_hi

    def py(y: float) -> float:
        return top + (height - top - bottom) * (y_hi - y) / (y_hi - y_lo)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
    ]
    y = y_lo
    while y <= y_hi:
        out.append(
            f'<line x1="{left}" y1="{py(y):.1f}" x2="{width - right}" y2="{py(y):.1f}" '
            f'stroke="{"#888" if y == 0 else "#e5e5e5"}"/>'
        )
        out.append(f'<text x="{left - 6}" y="{py(y) + 4:.1f}" text-anchor="end">{y}</text>')
        y += step
    for i in range(5):
        x = x_hi * i / 4
        out.append(
            f'<text x="{px(x):.1f}" y="{height - bottom + 18}" text-anchor="middle">'
            f"{int(x / 1000)}k</text>"
        )
    out.append(
        f'<text x="{(left + width - right) / 2}" y="{height - 8}" text-anchor="middle">'
        "training steps (learner decisions)</text>"
    )
    out.append(
        f'<text x="14" y="{(top + height - bottom) / 2}" text-anchor="middle" '
        f'transform="rotate(-90 14 {(top + height - bottom) / 2})">'
        "margin over random (points)</text>"
    )
    band = [f"{px(x):.1f},{py(h):.1f}" for x, h in zip(xs, highs, strict=True)]
    band += [f"{px(x):.1f},{py(lo):.1f}" for x, lo in reversed(list(zip(xs, lows, strict=True)))]
    out.append(f'<polygon points="{" ".join(band)}" fill="#1f77b4" fill-opacity="0.2"/>')
    line = " ".join(f"{px(p['steps']):.1f},{py(p['mean_margin']):.1f}" for p in points)
    out.append(f'<polyline points="{line}" fill="none" stroke="#1f77b4" stroke-width="2"/>')
    colours = {"GreedyBot": "#d62728", "RandomBot": "#7f7f7f"}
    for name, row in baselines.items():
        y = py(row["mean_margin"])
        out.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" '
            f'stroke="{colours.get(name, "#2ca02c")}" stroke-dasharray="6 4" stroke-width="1.5"/>'
        )
        out.append(
            f'<text x="{width - right + 6}" y="{y + 4:.1f}" fill="{colours.get(name, "#2ca02c")}">'
            f"{name} {row['mean_margin']:+.1f}</text>"
        )
    last = points[-1]
    out.append(
        f'<text x="{width - right + 6}" y="{py(last["mean_margin"]) + 18:.1f}" fill="#1f77b4">'
        f"MaskablePPO {last['mean_margin']:+.1f}</text>"
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=300_000)
    parser.add_argument("--eval-every", type=int, default=25_000)
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--svg", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--replot", type=Path, default=None, help="redraw --svg from a --json")
    args = parser.parse_args(argv)
    if args.replot:
        saved = json.loads(args.replot.read_text())
        assert args.svg is not None, "--replot needs --svg"
        args.svg.write_text(svg_curve(saved["curve"], saved["baselines"]))
        return 0
    torch.set_num_threads(1)
    started = time.perf_counter()
    baselines = {
        "RandomBot": evaluate(bot_chooser(RandomBot(1)), args.eval_games),
        "GreedyBot": evaluate(bot_chooser(GreedyBot(1)), args.eval_games),
    }
    print("baselines", baselines, flush=True)
    env = AllegraEnv(2, opponents="random", seat="random")
    model = MaskablePPO(
        "MlpPolicy",
        env,
        seed=args.seed,
        n_steps=2048,
        batch_size=256,
        learning_rate=3e-4,
        gamma=1.0,
        ent_coef=0.01,
        verbose=0,
        device="cpu",
    )
    points = [{"steps": 0, **evaluate(policy_chooser(model), args.eval_games)}]
    print(points[-1], flush=True)
    while points[-1]["steps"] < args.steps:
        model.learn(args.eval_every, reset_num_timesteps=False)
        points.append(
            {"steps": model.num_timesteps, **evaluate(policy_chooser(model), args.eval_games)}
        )
        print(points[-1], f"{time.perf_counter() - started:.0f}s", flush=True)
    result = {
        "settings": {k: str(v) for k, v in vars(args).items()},
        "baselines": baselines,
        "curve": points,
        "seconds": round(time.perf_counter() - started, 1),
        "torch": torch.__version__,
    }
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    if args.svg:
        args.svg.parent.mkdir(parents=True, exist_ok=True)
        args.svg.write_text(svg_curve(points, baselines))
    print(json.dumps(result["curve"][-1]))
    return 0


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    sys.exit(main())
