#!/usr/bin/env bash
# One device call for an engine change (ENG-FUSED-STEP), from the repo root:
#
#   PYTHONPATH=. bash tools/device_round.sh <40-hex commit> [NAME:ENV=V+ENV=V ...]
#
# 1. tools/device_step_profile.py at batch 1 on Qwen3-4B and Qwen3-0.6B for each variant (default "new": the engine's
#    defaults; each further NAME:ENV=V+ENV=V... runs with those variables, and a value may hold commas), variants
#    alternating, two rounds.
# 2. `engine bench latency`, batch 1, 128 -> 256, both models at the defaults: evidence dirs b1-<tag>-<model>.
# 3. `engine bench throughput`, nano, --repeat 3 after a warm-up pass, both models: evidence dirs nano-<tag>-<model>.
# Every step is skipped once the time budget (BUDGET_S, 560 s) would not hold it; everything is packed into
# $OUT/round.tgz (the device tool brings back a few files). TAG (default "round") names the evidence series.
# STEPS_ONLY=1 runs the step profiles alone (ROUNDS of them, default 2), for an A/B of switches.
set -uo pipefail
commit=${1:?usage: PYTHONPATH=. bash tools/device_round.sh <40-hex commit> [NAME:ENV=V+ENV=V ...]}
shift
if ! [[ $commit =~ ^[0-9a-f]{40}$ ]]; then
  echo "device_round: the first argument must be the full 40-hex sha of the code measured, got '$commit'" >&2
  exit 2
fi
PY=${PYTHON:-python3}
BUDGET_S=${BUDGET_S:-560}
TAG=${TAG:-round}
DEST=${OUT:-out/device-round}
OUT=$(mktemp -d)
mkdir -p "$DEST"
trap 'tar -czf "$DEST/round.tgz" -C "$OUT" .' EXIT
export PYTHONUNBUFFERED=1
t0=$(date +%s)
left() { echo $(( BUDGET_S - ($(date +%s) - t0) )); }
day=$(date -u +%Y%m%d)
echo "commit $commit" > "$OUT/commit.txt"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
variants=("new:" "$@")
reserve=$([ "${STEPS_ONLY:-0}" = 1 ] && echo 40 || echo 330)
for rep in $(seq 1 "${ROUNDS:-2}"); do
  for spec in "${variants[@]}"; do
    name=${spec%%:*}; envs=${spec#*:}
    if (( $(left) < reserve )); then echo "budget: no step profile $name rep $rep ($(left)s left)"; break 2; fi
    env ${envs//+/ } "$PY" tools/device_step_profile.py --models Qwen3-4B Qwen3-0.6B --batches 1 \
      --input-len 256 --steps 30 --out "$OUT/step-$name-$rep.json" > "$OUT/step-$name-$rep.log" 2>&1
    echo "step $name rep $rep: exit $? at +$(( $(date +%s) - t0 ))s"
    grep -E "^Qwen3-[0-9.]+B +1 " "$OUT/step-$name-$rep.log"
  done
done
if [ "${STEPS_ONLY:-0}" = 1 ]; then echo "done at +$(( $(date +%s) - t0 ))s"; exit 0; fi
for model in Qwen3-4B Qwen3-0.6B; do
  if (( $(left) < 200 )); then echo "budget: no latency $model ($(left)s left)"; continue; fi
  series="b1-$TAG-$model"
  "$PY" -m engine bench latency --model "$model" --load-format dummy --dtype auto --seed 0 --batch-size 1 \
    --input-len 128 --output-len 256 --num-iters 3 --commit "$commit" --clean --row ENG-FUSED-STEP \
    --series "$series" --output-dir "$OUT/$day-$series" > "$OUT/$series.log" 2>&1
  echo "$series: exit $? at +$(( $(date +%s) - t0 ))s"; tail -2 "$OUT/$series.log"
done
for model in Qwen3-0.6B Qwen3-4B; do
  need=$([ "$model" = Qwen3-4B ] && echo 110 || echo 75)
  if (( $(left) < need )); then echo "budget: no nano $model ($(left)s left)"; continue; fi
  series="nano-$TAG-$model"
  "$PY" -m engine bench throughput --model "$model" --load-format dummy --dtype auto --seed 0 --max-model-len 4096 \
    --dataset-name nano --repeat 3 --warmup-passes 1 --commit "$commit" --clean --row ENG-FUSED-STEP \
    --series "$series" --output-dir "$OUT/$day-$series" > "$OUT/$series.log" 2>&1
  echo "$series: exit $? at +$(( $(date +%s) - t0 ))s"; grep -iE "tok/s|output" "$OUT/$series.log" | tail -3
done
echo "done at +$(( $(date +%s) - t0 ))s"
