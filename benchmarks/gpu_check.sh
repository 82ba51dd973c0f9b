#!/usr/bin/env bash
# The GPU check of the batched engine and of the training, one script run once.
#
# Run from the repository root on a machine with a GPU whose Python already has JAX
# (with its CUDA plugin), Flax, Optax, rich, attrs and NumPy; nothing is installed:
#
#     OUT=runs/gpu bash benchmarks/gpu_check.sh [TRAIN_MINUTES [SECONDS]]
#
# It writes into $OUT (runs/gpu when unset):
#
#   machine.txt   nvidia-smi, Python, JAX and the devices JAX sees
#   engine.json   benchmarks/jax_playouts.py --json: random playouts of the batched engine,
#                 4 players, batch 4,096, 16,384 and 65,536, steps/s of each (median of
#                 three bursts) beside the scalar engine's on the machine's CPU
#   train.log     allegra-rules train, the shipped 2-seat network's command (docs/train.md)
#                 with --minutes TRAIN_MINUTES (whole minutes, default 6): one progress line
#                 per chunk, each with the steps/s of training and the win rate against
#                 GreedyBot
#   history.json  that run's learning curve as data; curve.svg its picture
#   policy-2.npz  the weights it made
#
# The package is read from src/ (PYTHONPATH), so no install is needed. The whole script
# ends within SECONDS (default 570): the engine's part has 150 s, the training what is
# left (it stops after the chunk that passes its minutes, and the evaluations and their
# compiling come on top, so leave it two or three minutes beyond them; the history is
# written at every chunk, so a run cut short keeps its curve). A failed part does not stop
# the next; the exit code is the first failure's. A device lent for 15 minutes, its start
# included, at most 10 minutes a command, has no room for 10 minutes of training beside
# the engine's figure; on a 2-core CPU, a 1-minute run spent all of it in the warm start.
set -u -o pipefail

OUT=${OUT:-runs/gpu}
MINUTES=${1:-6}
BUDGET=${2:-570}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
status=0

note() { printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$OUT/machine.txt"; }
fail() { note "failed: $1 (exit $2)"; [ "$status" -ne 0 ] || status=$2; }

{
    nvidia-smi || true
    "$PY" -c 'import sys, jax, flax, optax
print("python", sys.version.split()[0], "jax", jax.__version__, "flax", flax.__version__,
      "optax", optax.__version__)
print("devices", jax.devices())'
} >"$OUT/machine.txt" 2>&1 || fail "the check of Python and JAX" $?

note "engine: batch 4096 16384 65536"
timeout 150 "$PY" benchmarks/jax_playouts.py --batch 4096 16384 65536 --rounds 3 --json \
    >"$OUT/engine.json" 2>"$OUT/engine.log" || fail "the engine's benchmark" $?

note "training: $MINUTES minutes"
left=$((BUDGET - SECONDS - 5))
[ "$left" -gt 60 ] || left=60
timeout "$left" "$PY" -m allegra_rules train --seats 2 --seed 2 --minutes "$MINUTES" \
    --rules-input --rules seeds fr published random:3 --greedy-input --value-heads \
    --chunk 10 --imitate 1000 --critic-updates 10 --lr 1e-4 --horizon 500 --ent-coef 0.003 \
    --num-envs 384 --eval-envs 384 --greedy-share 0.75 --pool-share 0.15 --hidden 256 256 \
    --win-bonus 5 --relative 1 --keep-best --precision int8 --out "$OUT/policy-2.npz" \
    --history "$OUT/history.json" --curve "$OUT/curve.svg" \
    >"$OUT/train.log" 2>&1 || fail "the training" $?

note "done"
exit "$status"
