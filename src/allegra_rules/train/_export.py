"""The weights file, the checkpoints and the learning-curve picture of a training run."""

from __future__ import annotations

import json
import math
import pickle
from pathlib import Path
from typing import Any

import jax
import numpy as np

FORMAT = 1
"""The format number (``meta["format"]``) of a weights file with float16 or float32 weights."""

FORMAT_8BIT = 2
"""The format number of a weights file whose matrices are 8-bit (``--precision int8``).

Each matrix ``"{n}/{w}"`` is then int8 with a float32 scale per column,
``"{n}/{w}_scale"``: the weight is the integer times its column's scale. The biases stay
float16. Versions of allegra_rules that read only format 1 refuse such a file instead of
misreading it.
"""

FORMAT_HINT = 3
"""The format number of a weights file whose networks read the greedy hint.

Written by a run with ``--greedy-input`` (``PPOConfig.greedy_input``), at any precision:
each network's ``"{n}/w0"`` has a row per feature and then a row per action id, and
``"{n}/hint"`` (float32, one per action id) is the weight of each action's hint in its
logit. Its matrices are stored as format 1 or 2 stores them (int8 with
``"{n}/{w}_scale"`` at ``--precision int8``). Versions of allegra_rules that read only
formats 1 and 2 refuse such a file instead of playing it without the hint.
"""

FORMAT_RULES = 4
"""The format number of a weights file whose networks read the deck-free input and the rules.

Written by a run with ``--rules-input`` (``PPOConfig.rules_input``), at any precision and
with or without the hint: each network's ``"{n}/w0"`` has a row per entry of
[`NetworkInput`][allegra_rules.network_input.NetworkInput] (then a row per action id
with ``meta["greedy_input"]``), and ``meta`` names the rule options read
(``rule_inputs``) and the card slots (``card_slots``, ``slot_low``) instead of one
config's fingerprint. With ``meta["value_heads"]`` (``--value-heads``) each network also
has ``"{n}/heads_w"`` (last hidden layer by ``2 + n``, 8-bit with its scales at
``--precision int8``) and ``"{n}/heads_b"``: the round margin, the win's logit and the
rank logits. Versions of allegra_rules that read only formats 1 to 3 refuse it.
"""

PRECISIONS = ("float16", "float32", "int8")
"""How a weights file may store the weights (``--precision``; float16 by default)."""

_LAYERS = {"hidden_0": ("w0", "b0"), "hidden_1": ("w1", "b1")}
_LAYERS.update({"policy": ("pi_w", "pi_b"), "value": ("v_w", "v_b")})


def file_format(precision: str, hint: bool = False, rules: bool = False) -> int:
    """The format number of a weights file that stores its weights as ``precision``.

    ``hint``: its networks read the greedy hint (``FORMAT_HINT`` at every precision);
    ``rules``: they read the deck-free input (``FORMAT_RULES``, with or without the hint).
    """
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}; got {precision!r}")
    if rules:
        return FORMAT_RULES
    if hint:
        return FORMAT_HINT
    return FORMAT_8BIT if precision == "int8" else FORMAT


def quantize(matrix: Any) -> tuple[Any, Any]:
    """A matrix as int8 and a float32 scale per column (symmetric, round to nearest).

    A column's scale is its largest magnitude over 127 (1 for a column of zeros), so
    every weight is within half a scale step of ``q * scale``.
    """
    m = np.asarray(matrix, dtype=np.float32)
    top = np.abs(m).max(axis=0)
    scale = np.where(top > 0, top / 127.0, 1.0).astype(np.float32)
    q = np.clip(np.rint(m / scale), -127, 127).astype(np.int8)
    return q, scale


def network_arrays(params: Any, num_players: int, precision: str = "float16") -> dict[str, Any]:
    """The weights file's arrays of one network: ``"{n}/w0"`` ... ``"{n}/v_b"``.

    With ``precision="int8"`` each matrix is 8-bit with its ``"{n}/{w}_scale"`` (the
    layout of format 2, ``FORMAT_8BIT``).
    """
    file_format(precision)
    p = params["params"]
    floats = np.float32 if precision == "float32" else np.float16
    out: dict[str, Any] = {}
    for layer, (w, b) in _LAYERS.items():
        kernel = np.asarray(p[layer]["kernel"], np.float32)
        if precision == "int8":
            out[f"{num_players}/{w}"], out[f"{num_players}/{w}_scale"] = quantize(kernel)
        else:
            out[f"{num_players}/{w}"] = kernel.astype(floats)
        out[f"{num_players}/{b}"] = np.asarray(p[layer]["bias"], floats)
    if "hint" in p:
        out[f"{num_players}/hint"] = np.asarray(p["hint"], np.float32)
    if "heads" in p:  # the value heads (PPOConfig.value_heads)
        kernel = np.asarray(p["heads"]["kernel"], np.float32)
        if precision == "int8":
            out[f"{num_players}/heads_w"], out[f"{num_players}/heads_w_scale"] = quantize(kernel)
        else:
            out[f"{num_players}/heads_w"] = kernel.astype(floats)
        out[f"{num_players}/heads_b"] = np.asarray(p["heads"]["bias"], floats)
    return out


def write_weights(
    path: Path, networks: dict[int, Any], meta: dict[str, Any], precision: str = "float16"
) -> int:
    """Write the weights file (``numpy.savez_compressed``); returns its size in bytes.

    ``meta["format"]`` and ``meta["precision"]`` are set from ``precision``, from whether
    the networks read the greedy hint (``FORMAT_HINT``) and from whether ``meta`` names
    the rule inputs (``FORMAT_RULES``).
    """
    hint = any("hint" in params["params"] for params in networks.values())
    rules = "rule_inputs" in meta
    meta = {**meta, "format": file_format(precision, hint, rules), "precision": precision}
    arrays: dict[str, Any] = {"meta": np.array(json.dumps(meta))}
    for n, params in sorted(networks.items()):
        arrays.update(network_arrays(params, n, precision))
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        np.savez_compressed(f, **arrays)
    return path.stat().st_size


def save_checkpoint(directory: Path, states: dict[int, Any], extra: dict[str, Any]) -> Path:
    """Pickle every seat count's training state (as numpy arrays) and ``extra``."""
    directory.mkdir(parents=True, exist_ok=True)
    leaves = {}
    for n, ts in states.items():
        flat = jax.tree_util.tree_leaves(ts)
        leaves[n] = [
            np.asarray(jax.random.key_data(x)) if _is_key(x) else np.asarray(x) for x in flat
        ]
    path = directory / "checkpoint.pkl"
    tmp = path.with_suffix(".tmp")
    with tmp.open("wb") as f:
        pickle.dump({"leaves": leaves, "extra": extra}, f)
    tmp.replace(path)
    return path


def load_checkpoint(directory: Path, templates: dict[int, Any]) -> tuple[dict[int, Any], Any]:
    """The training states saved in ``directory``, shaped as ``templates``; and ``extra``."""
    with (directory / "checkpoint.pkl").open("rb") as f:
        saved = pickle.load(f)
    states = {}
    for n, template in templates.items():
        flat, tree = jax.tree_util.tree_flatten(template)
        leaves = [
            jax.random.wrap_key_data(new) if _is_key(old) else jax.numpy.asarray(new)
            for old, new in zip(flat, saved["leaves"][n], strict=True)
        ]
        states[n] = jax.tree_util.tree_unflatten(tree, leaves)
    return states, saved["extra"]


def _is_key(x: Any) -> bool:
    return isinstance(x, jax.Array) and bool(jax.numpy.issubdtype(x.dtype, jax.dtypes.prng_key))


_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]


LABEL_GAP = 14.0
"""The least distance, in pixels, between two labels at the curve's right edge."""


def _spread(ys: list[float], gap: float, low: float, high: float) -> list[float]:
    """Sorted ``ys`` moved as little as it takes to be ``gap`` apart, kept in ``[low, high]``.

    Each one is pushed down below the one before it, then, where that ran past ``high``,
    the last ones are pushed back up (when there is room for them all).
    """
    out: list[float] = []
    for v in ys:
        out.append(max(v, out[-1] + gap) if out else v)
    for i in range(len(out) - 1, -1, -1):
        limit = high if i == len(out) - 1 else out[i + 1] - gap
        out[i] = max(min(out[i], limit), low)
    return out


_MINUTE_STEPS = (0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 15.0, 20.0, 30.0, 60.0)


def minute_ticks(most: float, *, at_most: int = 7) -> list[float]:
    """The minutes a learning curve's axis is marked at: round numbers from 0 past ``most``.

    The step is the smallest of 0.25, 0.5, 1, 2, 5, 10, 15, 20, 30 and 60 minutes (then
    whole hours) that marks the axis at no more than ``at_most`` places; the last mark is
    the first multiple of the step at or past ``most``, so the axis ends on a mark. A run
    of 59.3 minutes is marked at 0, 10, ..., 60; one of two minutes at 0, 0.5, ..., 2.

    >>> minute_ticks(59.3)
    [0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0]
    >>> minute_ticks(0.0)
    [0.0, 0.25]
    """
    if at_most < 2:
        raise ValueError(f"at_most must be at least 2, not {at_most}")
    most = max(most, 0.0)
    step = next((s for s in _MINUTE_STEPS if most / s <= at_most - 1), None)
    if step is None:
        step = 60.0 * math.ceil(most / 60.0 / (at_most - 1))
    marks = max(1, math.ceil(most / step - 1e-9))
    return [step * i for i in range(marks + 1)]


def curve_svg(history: list[dict[str, Any]]) -> str:
    """The learning curve: win rate against GreedyBot by minutes, one line per seat count.

    ``history`` holds ``{"minutes": m, "win_rate": {"2": x, "4": y}}`` points. Each seat
    count's par, a fair share of the wins (``1 / seats``), is a dashed line in its colour.
    The labels at the right edge name each line at its height, moved apart where two
    would overlap (a curve that ends on its par, say).
    """
    width, height = 640, 360
    left, right, top, bottom = 56, 110, 24, 44
    pw, ph = width - left - right, height - top - bottom
    seats = sorted({int(k) for point in history for k in point["win_rate"]})
    ticks = minute_ticks(max((float(p["minutes"]) for p in history), default=0.0))
    most = ticks[-1]

    def x(m: float) -> float:
        return left + pw * m / most

    def y(v: float) -> float:
        return top + ph * (1.0 - v)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>',
        f'<text x="{left}" y="16">Win rate against GreedyBot by minutes of training</text>',
    ]
    for tick in range(0, 101, 25):
        ty = y(tick / 100)
        out.append(
            f'<line x1="{left}" y1="{ty:.1f}" x2="{left + pw}" y2="{ty:.1f}" stroke="#ddd"/>'
        )
        out.append(f'<text x="{left - 6}" y="{ty + 4:.1f}" text-anchor="end">{tick} %</text>')
    for m in ticks:
        out.append(f'<text x="{x(m):.1f}" y="{top + ph + 16}" text-anchor="middle">{m:g}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{height - 8}" text-anchor="middle">minutes</text>')
    labels: list[tuple[float, str, str]] = []  # (y of the line it names, text, colour)
    for k, n in enumerate(seats):
        colour = _COLOURS[k % len(_COLOURS)]
        py = y(1.0 / n)
        out.append(
            f'<line x1="{left}" y1="{py:.1f}" x2="{left + pw}" y2="{py:.1f}" '
            f'stroke="{colour}" stroke-opacity="0.6" stroke-dasharray="6 4"/>'
        )
        labels.append((py, f"par, {n} seats", colour))
        points = [
            (x(float(p["minutes"])), y(float(p["win_rate"][str(n)])))
            for p in history
            if str(n) in p["win_rate"]
        ]
        if not points:
            continue
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        labels.append((points[-1][1], f"{n} seats", colour))
    labels.sort()
    spread = _spread([ly for ly, _, _ in labels], LABEL_GAP, top, top + ph)
    for ly, (_, text, colour) in zip(spread, labels, strict=True):
        out.append(f'<text x="{left + pw + 6}" y="{ly + 4:.1f}" fill="{colour}">{text}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


__all__ = [
    "FORMAT",
    "FORMAT_8BIT",
    "FORMAT_HINT",
    "PRECISIONS",
    "curve_svg",
    "file_format",
    "load_checkpoint",
    "minute_ticks",
    "network_arrays",
    "quantize",
    "save_checkpoint",
    "write_weights",
]
