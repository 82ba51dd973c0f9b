"""``allegra-rules train``: masked PPO on the batched engine (extra ``train``).

JAX, Flax and Optax are imported only when the command runs; without them the command
fails with one line naming the extra (in a clone: ``pip install ".[train]"``).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from allegra_rules.cli._common import PROG, CommandError, Parser, UsageError
from allegra_rules.config import RuleConfig, draw_configs
from allegra_rules.presets import preset

_EXAMPLES = (
    f"  {PROG} train --seats 2 4 --minutes 40 --out policy.npz --curve curve.svg\n"
    f"  {PROG} train --seats 2 --updates 50 --seed 1 --out small.npz\n"
    f"  {PROG} train --checkpoint runs/a --resume --minutes 10 --out policy.npz"
)


def add_train_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    """Add the ``train`` sub-command to ``commands``."""
    p = commands.add_parser(
        "train",
        help="train a policy with masked PPO on the batched engine (extra 'train')",
        description=(
            "Train one network per seat count with masked PPO, the whole rollout and\n"
            "update loop compiled with JAX over the batched engine. The network sees only\n"
            "the acting seat's view (the features Encoder's vector). The other seats are\n"
            "played by GreedyBot's rule, past snapshots of the learner and the current\n"
            "policy. The same --seed and --updates give the same weights on a CPU. Needs\n"
            "the extra 'train' (in a clone of the repository: pip install \".[train]\")."
        ),
        epilog=f"examples:\n{_EXAMPLES}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--seats", type=int, nargs="+", default=[2, 4], help="seat counts (2 4)")
    p.add_argument("--minutes", type=float, default=None, help="stop after this wall time")
    p.add_argument("--updates", type=int, default=None, help="PPO updates per seat count")
    p.add_argument("--seed", type=int, default=0, help="the run's seed (0)")
    p.add_argument("--num-envs", type=int, default=256, help="tables per seat count (256)")
    p.add_argument("--num-steps", type=int, default=64, help="steps per rollout (64)")
    p.add_argument("--hidden", type=int, nargs=2, default=[128, 128], help="layer widths")
    p.add_argument("--lr", type=float, default=3e-4, help="learning rate (3e-4)")
    p.add_argument("--gamma", type=float, default=0.995, help="discount per decision")
    p.add_argument("--gae-lambda", type=float, default=0.95, help="GAE lambda (0.95)")
    p.add_argument("--clip", type=float, default=0.2, help="PPO ratio clip (0.2)")
    p.add_argument("--ent-coef", type=float, default=0.01, help="entropy weight (0.01)")
    p.add_argument("--epochs", type=int, default=4, help="passes over a rollout (4)")
    p.add_argument("--minibatches", type=int, default=4, help="minibatches a pass (4)")
    p.add_argument("--win-bonus", type=float, default=1.0, help="reward for a won game")
    p.add_argument(
        "--relative",
        type=float,
        default=0.0,
        help="weight of the others' mean score in the reward, 0 to 1 (0)",
    )
    p.add_argument(
        "--greedy-input",
        action="store_true",
        help="let the network read GreedyBot's score of every legal move too (weights format 3)",
    )
    p.add_argument(
        "--rules-input",
        action="store_true",
        help="let the network read a deck-free input with the rules, to play every config "
        "(weights format 4)",
    )
    p.add_argument(
        "--rules",
        nargs="+",
        default=None,
        metavar="RULES",
        help="the configs the tables play, each an equal share (with --rules-input): preset "
        "names and random:K (K configs, every option drawn from --seed); default: seeds fr "
        "published",
    )
    p.add_argument(
        "--value-heads",
        action="store_true",
        help="also learn the value heads: round margin, win and rank (with --rules-input)",
    )
    p.add_argument("--head-coef", type=float, default=0.5, help="value heads' weight (0.5)")
    p.add_argument("--greedy-share", type=float, default=0.5, help="tables vs GreedyBot")
    p.add_argument("--pool-share", type=float, default=0.25, help="tables vs past selves")
    p.add_argument("--pool-size", type=int, default=4, help="past selves kept (4)")
    p.add_argument("--pool-every", type=int, default=20, help="updates between snapshots")
    p.add_argument("--eval-envs", type=int, default=512, help="evaluation games (512)")
    p.add_argument("--chunk", type=int, default=10, help="updates between evaluations")
    p.add_argument(
        "--imitate",
        type=int,
        default=None,
        help="supervised steps a seat count imitating GreedyBot before PPO (0: none; default 6000)",
    )
    p.add_argument("--imitate-lr", type=float, default=1e-3, help="imitation's rate (1e-3)")
    p.add_argument(
        "--critic-updates",
        type=int,
        default=0,
        help="first PPO updates that fit the value head alone, the policy held still (0)",
    )
    p.add_argument(
        "--keep-best",
        action="store_true",
        help="write each seat count's best evaluated network, not the last one",
    )
    p.add_argument("--horizon", type=int, default=2000, help="learning-rate schedule's updates")
    p.add_argument("--out", type=Path, default=None, help="the weights file to write")
    p.add_argument(
        "--precision",
        choices=("float16", "float32", "int8"),
        default="float16",
        help="how the weights file stores the weights (float16; int8: about half the size)",
    )
    p.add_argument("--checkpoint", type=Path, default=None, help="checkpoint directory")
    p.add_argument("--resume", action="store_true", help="carry on from --checkpoint")
    p.add_argument("--curve", type=Path, default=None, help="learning curve SVG to write")
    p.add_argument("--history", type=Path, default=None, help="learning curve JSON to write")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(handler=run_train_command)


def run_train_command(args: argparse.Namespace) -> int:
    """Check the options, import the extra, train, and print what was written."""
    if any(n < 2 or n > 6 for n in args.seats):
        raise UsageError(f"--seats must be 2..6; got {args.seats}")
    if args.updates is None and args.minutes is None:
        raise UsageError("give --updates or --minutes (or both)")
    if args.resume and args.checkpoint is None:
        raise UsageError("--resume needs --checkpoint DIR")
    if args.imitate is not None and args.imitate < 0:
        raise UsageError(f"--imitate must be 0 or more; got {args.imitate}")
    if args.critic_updates < 0:
        raise UsageError(f"--critic-updates must be 0 or more; got {args.critic_updates}")
    if not 0.0 <= args.relative <= 1.0:
        raise UsageError(f"--relative must be between 0 and 1; got {args.relative}")
    if args.num_envs < 8 or args.num_envs % 8:
        raise UsageError(f"--num-envs must be a multiple of 8, at least 8; got {args.num_envs}")
    rules = _rules(args)
    try:
        from allegra_rules.train import IMITATE_STEPS, PPOConfig, TrainOptions, train
    except ImportError as exc:
        raise CommandError(
            f"train needs the extra 'train' (in a clone of the repository: "
            f'pip install ".[train]") ({exc})'
        ) from None
    ppo = PPOConfig(
        num_envs=args.num_envs,
        num_steps=args.num_steps,
        hidden=(args.hidden[0], args.hidden[1]),
        lr=args.lr,
        gamma=args.gamma,
        gae_lambda=args.gae_lambda,
        clip=args.clip,
        ent_coef=args.ent_coef,
        epochs=args.epochs,
        minibatches=args.minibatches,
        win_bonus=args.win_bonus,
        relative=args.relative,
        greedy_share=args.greedy_share,
        pool_share=args.pool_share,
        pool_size=args.pool_size,
        pool_every=args.pool_every,
        total_updates=args.horizon,
        eval_envs=args.eval_envs,
        imitate_lr=args.imitate_lr,
        critic_updates=args.critic_updates,
        greedy_input=args.greedy_input,
        rules_input=args.rules_input,
        rules=rules,
        value_heads=args.value_heads,
        head_coef=args.head_coef,
    )
    command = " ".join([PROG, *map(shlex.quote, sys.argv[1:])]) if sys.argv else PROG
    options = TrainOptions(
        seats=tuple(args.seats),
        ppo=ppo,
        seed=args.seed,
        updates=args.updates,
        minutes=args.minutes,
        chunk=args.chunk,
        out=args.out,
        checkpoint=args.checkpoint,
        resume=args.resume,
        curve=args.curve,
        history=args.history,
        command=command,
        imitate=IMITATE_STEPS if args.imitate is None else args.imitate,
        keep_best=args.keep_best,
        precision=args.precision,
    )
    report, close = _progress(args, sys.stderr)
    try:
        result = train(options, report)
    finally:
        close()
    rates = ", ".join(f"{n} seats {100 * w:.1f} %" for n, w in result.win_rate.items())
    warm = f"{result.imitated} imitation steps, " if result.imitated else ""
    print(
        f"{warm}{result.updates} updates, {result.env_steps} engine steps in {result.minutes:.1f} "
        f"minutes; win rate against GreedyBot: {rates}"
    )
    if args.keep_best:
        chosen = ", ".join(
            f"{n} seats from update {int(k['updates'])} ({100 * k['win_rate']:.1f} %)"
            for n, k in result.kept.items()
        )
        print(f"kept: {chosen}")
    if args.out is not None:
        print(f"weights: {args.out} ({result.size} bytes)")
    for label, path in (("history", args.history), ("curve", args.curve)):
        if path is not None:
            print(f"{label}: {path}")
    return 0


DEFAULT_RULES = ("seeds", "fr", "published")
"""The presets a ``--rules-input`` run plays without ``--rules`` (``de`` and ``pl`` are
``seeds``' rules)."""


def _rules(args: argparse.Namespace) -> tuple[RuleConfig, ...]:
    """The configs of ``--rules`` (checked), or () for preset seeds alone."""
    if args.value_heads and not args.rules_input:
        raise UsageError("--value-heads needs --rules-input (weights format 4)")
    if args.rules is not None and not args.rules_input:
        raise UsageError("--rules needs --rules-input (a network of one config plays seeds)")
    if not args.rules_input:
        return ()
    out: list[RuleConfig] = []
    for spec in args.rules or DEFAULT_RULES:
        if spec.startswith("random:"):
            count = spec.removeprefix("random:")
            if not count.isdigit() or int(count) < 1:
                raise UsageError(f"--rules random:K needs a count K of 1 or more; got {spec!r}")
            out += draw_configs(args.seed, int(count))
            continue
        try:
            out.append(preset(spec))
        except ValueError as exc:
            raise UsageError(f"--rules: {exc}") from None
    if min(args.num_envs, args.eval_envs) < len(out):
        raise UsageError(
            f"--num-envs ({args.num_envs}) and --eval-envs ({args.eval_envs}) must be at "
            f"least the number of configs in --rules ({len(out)})"
        )
    for config in out:
        if max(args.seats) > config.most_players():
            raise UsageError(f"a config of --rules deals at most {config.most_players()} seats")
    return tuple(out)


def _progress(args: argparse.Namespace, stream: Any) -> tuple[Any, Any]:
    """A report function for ``train`` and a closer: rich's bar, or one line a chunk."""
    total = args.updates
    describe = "training"

    def text(info: dict[str, Any]) -> str:
        rates = " ".join(f"{n}p {100 * w:.0f}%" for n, w in info["win_rate"].items())
        if info.get("phase") == "imitation":
            agree = " ".join(f"{n}p {100 * a:.0f}%" for n, a in info["agreement"].items())
            speed = f" {info['steps_per_s']:,.0f} steps/s" if info["steps_per_s"] else ""
            return (
                f"imitation {info['imitation']} steps{speed} {info['minutes']:.1f} min "
                f"agrees with greedy {agree}" + (f" vs greedy {rates}" if rates else "")
            )
        return (
            f"{info['updates']} updates {info['steps_per_s']:,.0f} steps/s "
            f"{info['minutes']:.1f} min vs greedy {rates}"
        )

    if not args.no_progress and stream.isatty():
        try:
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
        except ImportError:
            pass
        else:
            bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TimeElapsedColumn(),
                TextColumn("{task.fields[info]}"),
                console=None,
                transient=False,
            )
            bar.start()
            limit = total if total is not None else (args.minutes or 1.0)
            task = bar.add_task(describe, total=limit, info="compiling...")

            def advance(info: dict[str, Any]) -> None:
                done = info["updates"] if total is not None else info["minutes"]
                phase = "imitation" if info.get("phase") == "imitation" else describe
                bar.update(task, completed=done, info=text(info), description=phase)

            return advance, bar.stop

    def line(info: dict[str, Any]) -> None:
        if not args.no_progress:
            print(text(info), file=stream, flush=True)

    return line, lambda: None


__all__ = ["add_train_parser", "run_train_command"]
