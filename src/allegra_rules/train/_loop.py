"""The host side of a training run: chunks, progress, evaluation, checkpoints, export."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import numpy as np

from allegra_rules.config import RuleConfig
from allegra_rules.network_input import CARD_SLOTS, RULE_INPUTS, SLOT_LOW
from allegra_rules.presets import preset, preset_names
from allegra_rules.train._export import (
    curve_svg,
    file_format,
    load_checkpoint,
    save_checkpoint,
    write_weights,
)
from allegra_rules.train._ppo import PPOConfig, Trainer, TrainState, trainer

IMITATE_STEPS = 6000
"""The imitation warm start's default supervised steps per seat count (a few minutes on a
2-core CPU with 256 tables)."""


@dataclasses.dataclass(frozen=True)
class TrainOptions:
    """What ``allegra-rules train`` was asked to do.

    Attributes:
        seats: the seat counts, one network each.
        ppo: the hyper-parameters.
        seed: the run's seed (the same seed and ``updates`` give the same weights on CPU).
        updates: PPO updates per seat count (``None``: until ``minutes`` are up).
        minutes: a cap on the wall time (``None``: none).
        chunk: updates between two evaluations and checkpoints.
        out: the weights file to write, or ``None``.
        checkpoint: a directory for checkpoints, or ``None``.
        resume: carry on from ``checkpoint``.
        curve, history: the learning curve's SVG and JSON files, or ``None``.
        command: the command line recorded in the weights file.
        imitate: supervised steps per seat count of the imitation warm start before PPO
            (0: none; skipped on ``resume``, the checkpoint holds its result).
        imitate_chunk: imitation steps between two progress reports.
        keep_best: write, per seat count, the evaluated network (the warm start's
            included) with the highest win rate against GreedyBot's rule instead of the
            last one; a tie keeps the earlier. The weights file's ``meta["kept"]`` says
            which update each network is from. Checkpoints carry the kept networks, so a
            resumed run keeps the same ones.
        precision: how the weights file stores the weights: ``"float16"`` (format 1),
            ``"float32"`` (format 1) or ``"int8"`` (format 2: 8-bit matrices with a
            scale per column, about half the file of float16).
    """

    seats: tuple[int, ...] = (2, 4)
    ppo: PPOConfig = PPOConfig()
    seed: int = 0
    updates: int | None = None
    minutes: float | None = None
    chunk: int = 10
    out: Path | None = None
    checkpoint: Path | None = None
    resume: bool = False
    curve: Path | None = None
    history: Path | None = None
    command: str = "allegra-rules train"
    imitate: int = IMITATE_STEPS
    imitate_chunk: int = 500
    keep_best: bool = False
    precision: str = "float16"

    def __post_init__(self) -> None:
        file_format(self.precision)  # ValueError: not a precision the file can store


@dataclasses.dataclass
class TrainResult:
    """What a run did: updates per seat count, engine steps, minutes, last win rates.

    ``imitated`` is the imitation warm start's steps per seat count (0: none). ``params``
    are the networks written (with ``keep_best``, the kept ones); ``kept`` says, per seat
    count, the update and win rate of each (without ``keep_best``: the last evaluation).
    """

    updates: int
    env_steps: int
    minutes: float
    win_rate: dict[str, float]
    history: list[dict[str, Any]]
    params: dict[int, Any]
    size: int | None = None
    imitated: int = 0
    kept: dict[str, dict[str, float]] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class _Best:
    """One seat count's best evaluated network: its win rate, update and weights."""

    win: float
    updates: int
    params: Any


class _Kept:
    """Per seat count, the best evaluated network so far (``keep_best``)."""

    def __init__(self) -> None:
        self.best: dict[int, _Best] = {}

    def offer(self, n: int, win: float, updates: int, params: Any) -> None:
        """Keep ``params`` if ``win`` beats the kept one (a tie keeps the earlier)."""
        if n not in self.best or win > self.best[n].win:
            self.best[n] = _Best(win, updates, jax.tree_util.tree_map(np.asarray, params))

    def to_extra(self) -> dict[str, Any]:
        """The kept networks as a checkpoint's plain data."""
        return {
            str(n): {
                "win": b.win,
                "updates": b.updates,
                "leaves": jax.tree_util.tree_leaves(b.params),
            }
            for n, b in self.best.items()
        }

    def load(self, saved: dict[str, Any], templates: dict[int, Any]) -> None:
        """Restore what ``to_extra`` saved, shaped as ``templates`` (params per seat count)."""
        for key, item in saved.items():
            n = int(key)
            tree = jax.tree_util.tree_structure(templates[n])
            params = jax.tree_util.tree_unflatten(tree, list(item["leaves"]))
            self.best[n] = _Best(float(item["win"]), int(item["updates"]), params)

    def summary(self) -> dict[str, dict[str, float]]:
        """``{seats: {"updates": u, "win_rate": w}}``."""
        return {str(n): {"updates": b.updates, "win_rate": b.win} for n, b in self.best.items()}


def train(
    options: TrainOptions, report: Callable[[dict[str, Any]], None] | None = None
) -> TrainResult:
    """Run masked PPO for every seat count of ``options``; write what it asks for.

    First, unless ``options.imitate`` is 0 or the run resumes, the imitation warm start
    (see [`Trainer.imitate`][allegra_rules.train.Trainer]): the network learns to choose
    GreedyBot's action at tables where every seat plays GreedyBot's rule, then PPO starts
    from those weights. Its minutes count towards ``options.minutes`` and its last point
    (``"phase": "imitation"``, with the win rate after it) opens the history.

    ``report`` is called after every chunk with ``{"phase", "updates", "imitation",
    "env_steps", "minutes", "steps_per_s", "win_rate", "agreement"}`` (the progress bar's
    figures; ``phase`` is ``"imitation"`` or ``"ppo"``).
    """
    trainers = {n: trainer(n, options.ppo) for n in options.seats}
    keys = jax.random.split(jax.random.key(options.seed), len(options.seats) + 1)
    eval_key = keys[-1]
    states = {n: trainers[n].init(keys[i]) for i, n in enumerate(options.seats)}
    done, env_steps, minutes, imitated = 0, 0, 0.0, 0
    history: list[dict[str, Any]] = []
    kept = _Kept()
    if options.resume:
        if options.checkpoint is None:
            raise ValueError("resume needs a checkpoint directory")
        states, extra = load_checkpoint(options.checkpoint, states)
        done, env_steps = int(extra["updates"]), int(extra["env_steps"])
        minutes, history = float(extra["minutes"]), list(extra["history"])
        imitated = int(extra.get("imitated", 0))
        kept.load(extra.get("kept", {}), {n: s.params for n, s in states.items()})
    start = time.monotonic() - minutes * 60
    win: dict[str, float] = dict(history[-1]["win_rate"]) if history else {}
    if options.imitate > 0 and not options.resume:
        imitation_keys = [jax.random.fold_in(keys[i], 1) for i in range(len(options.seats))]
        imitated, env_steps, win = _imitate(
            options, trainers, states, imitation_keys, eval_key, start, history, report
        )
        minutes = (time.monotonic() - start) / 60
        if options.keep_best:
            for n in options.seats:
                kept.offer(n, win[str(n)], 0, states[n].params)
        _save(options, states, 0, env_steps, minutes, history, imitated, kept)
    while True:
        left = None if options.updates is None else options.updates - done
        if left is not None and left <= 0:
            break
        if options.minutes is not None and time.monotonic() - start >= options.minutes * 60:
            break
        size = options.chunk if left is None else min(options.chunk, left)
        t0 = time.monotonic()
        for n in options.seats:
            states[n], _ = trainers[n].run(states[n], size)
        jax.block_until_ready([s.params for s in states.values()])  # type: ignore[no-untyped-call]
        spent = time.monotonic() - t0
        steps = size * sum(trainers[n].steps_per_update() for n in options.seats)
        done += size
        env_steps += steps
        win = {
            str(n): float(trainers[n].evaluate(states[n].params, eval_key)) for n in options.seats
        }
        minutes = (time.monotonic() - start) / 60
        history.append(
            {"phase": "ppo", "minutes": round(minutes, 3), "updates": done, "win_rate": win}
        )
        if options.keep_best:
            for n in options.seats:
                kept.offer(n, win[str(n)], done, states[n].params)
        _save(options, states, done, env_steps, minutes, history, imitated, kept)
        _write_curves(options, history)
        if report is not None:
            report(
                {
                    "phase": "ppo",
                    "updates": done,
                    "imitation": imitated,
                    "env_steps": env_steps,
                    "minutes": minutes,
                    "steps_per_s": steps / max(spent, 1e-9),
                    "win_rate": win,
                    "agreement": {},
                }
            )
    if options.keep_best and kept.best:
        params = {
            n: kept.best[n].params if n in kept.best else states[n].params for n in options.seats
        }
        chosen = kept.summary()
    else:
        params = {n: states[n].params for n in options.seats}
        chosen = {n: {"updates": done, "win_rate": w} for n, w in win.items()}
    result = TrainResult(
        done, env_steps, minutes, win, history, params, imitated=imitated, kept=chosen
    )
    if options.out is not None:
        result.size = write_weights(
            options.out, params, weights_meta(options, result, trainers), options.precision
        )
    return result


def _save(
    options: TrainOptions,
    states: dict[int, TrainState],
    updates: int,
    env_steps: int,
    minutes: float,
    history: list[dict[str, Any]],
    imitated: int,
    kept: _Kept,
) -> None:
    """Write a checkpoint, if ``options`` name a directory (the kept networks with it)."""
    if options.checkpoint is None:
        return
    extra = {
        "updates": updates,
        "env_steps": env_steps,
        "minutes": minutes,
        "history": history,
        "imitated": imitated,
        "kept": kept.to_extra(),
    }
    save_checkpoint(options.checkpoint, states, extra)


def _imitate(
    options: TrainOptions,
    trainers: dict[int, Trainer],
    states: dict[int, TrainState],
    keys: list[jax.Array],
    eval_key: jax.Array,
    start: float,
    history: list[dict[str, Any]],
    report: Callable[[dict[str, Any]], None] | None,
) -> tuple[int, int, dict[str, float]]:
    """The imitation warm start, chunk by chunk; ``states`` get its weights.

    Returns the steps done per seat count, the engine steps and the win rates after it.
    """
    seats = options.seats
    runs = {n: trainers[n].imitation_init(states[n].params, keys[i]) for i, n in enumerate(seats)}
    done, env_steps = 0, 0
    agreement: dict[str, float] = {}
    while done < options.imitate:
        if options.minutes is not None and time.monotonic() - start >= options.minutes * 60:
            break
        size = min(options.imitate_chunk, options.imitate - done)
        t0 = time.monotonic()
        stats = {}
        for n in seats:
            runs[n], stats[n] = trainers[n].imitate(runs[n], size)
        jax.block_until_ready([r.params for r in runs.values()])  # type: ignore[no-untyped-call]
        spent = time.monotonic() - t0
        steps = size * sum(trainers[n].imitation_steps_per_step() for n in seats)
        done += size
        env_steps += steps
        tail = max(1, size // 5)
        agreement = {str(n): float(stats[n]["agreement"][-tail:].mean()) for n in seats}
        if report is not None:
            report(
                {
                    "phase": "imitation",
                    "updates": 0,
                    "imitation": done,
                    "env_steps": env_steps,
                    "minutes": (time.monotonic() - start) / 60,
                    "steps_per_s": steps / max(spent, 1e-9),
                    "win_rate": {},
                    "agreement": agreement,
                }
            )
    for n in seats:
        states[n] = trainers[n].warm_start(states[n], runs[n].params)
    win = {str(n): float(trainers[n].evaluate(states[n].params, eval_key)) for n in seats}
    minutes = (time.monotonic() - start) / 60
    history.append(
        {
            "phase": "imitation",
            "minutes": round(minutes, 3),
            "updates": 0,
            "imitation": done,
            "agreement": agreement,
            "win_rate": win,
        }
    )
    _write_curves(options, history)
    if report is not None:
        report(
            {
                "phase": "imitation",
                "updates": 0,
                "imitation": done,
                "env_steps": env_steps,
                "minutes": minutes,
                "steps_per_s": 0.0,
                "win_rate": win,
                "agreement": agreement,
            }
        )
    return done, env_steps, win


def weights_meta(
    options: TrainOptions, result: TrainResult, trainers: dict[int, Trainer]
) -> dict[str, Any]:
    """The weights file's ``meta`` (``write_weights`` adds ``format`` and ``precision``)."""
    import allegra_rules

    ppo = dataclasses.asdict(options.ppo)
    ppo["rules"] = [config.to_dict() for config in options.ppo.rules]
    if options.ppo.rules_input:
        trained = options.ppo.rules or (preset("seeds"),)
        rules: dict[str, Any] = {
            "preset": "any",
            "trained_on": [_config_name(config) for config in trained],
            "rule_inputs": [[name, list(choices)] for name, choices in RULE_INPUTS],
            "card_slots": CARD_SLOTS,
            "slot_low": SLOT_LOW,
            "value_heads": options.ppo.value_heads,
        }
    else:
        rules = {"preset": "seeds", "config_fingerprint": preset("seeds").fingerprint}
    return {
        **rules,
        "seat_counts": list(options.seats),
        "hidden": list(options.ppo.hidden),
        "activation": "relu",
        "greedy_input": options.ppo.greedy_input,
        "command": options.command,
        "seed": options.seed,
        "updates": result.updates,
        "imitation_steps": result.imitated,
        "env_steps": result.env_steps,
        "minutes": round(result.minutes, 3),
        "package_version": allegra_rules.__version__,
        "win_rate_vs_greedy": {n: k["win_rate"] for n, k in result.kept.items()},
        "kept": result.kept,
        "keep_best": options.keep_best,
        "obs_size": {str(n): t.obs_size for n, t in trainers.items()},
        "ppo": ppo,
    }


def _config_name(config: RuleConfig) -> str | dict[str, Any]:
    """A trained config as the weights file names it: its preset's name, or its options."""
    for name in preset_names():
        if preset(name) == config:
            return name
    return config.to_dict()


def _write_curves(options: TrainOptions, history: list[dict[str, Any]]) -> None:
    if options.history is not None:
        options.history.parent.mkdir(parents=True, exist_ok=True)
        options.history.write_text(json.dumps(history, indent=1) + "\n")
    if options.curve is not None:
        options.curve.parent.mkdir(parents=True, exist_ok=True)
        options.curve.write_text(curve_svg(history))


__all__ = ["IMITATE_STEPS", "TrainOptions", "TrainResult", "train", "weights_meta"]
