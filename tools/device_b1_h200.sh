#!/usr/bin/env bash
# Batch-1 decode on the H200 with the fused MLP GEMV (ENG-FUSED-STEP), in one device call from the repo root:
#
#   PYTHONPATH=. bash tools/device_b1_h200.sh <40-hex commit>
#
# 1. `engine bench latency`, batch 1, 128 -> 256, Qwen3-0.6B and Qwen3-4B at the engine's defaults: the evidence.
# 2. tools/device_step_profile.py at batch 1, both models, variants alternating while the time budget lasts:
#      old       ENGINE_ACT_GEMV=0                          (SiLU * up its own kernel)
#      act       the defaults                               (SiLU * up in the gate_up GEMV's epilogue)
#      act-late  ENGINE_GEMV_PDL_LATE=1                     (the next kernel launches after a GEMV's product)
#      fused     ENGINE_GEMV_FUSED_WIDE=1                   (norm-fused GEMVs also on 4B's wide qkv and gate_up)
# Everything goes to a temporary folder packed into $OUT/b1-h200.tgz (the device tool returns a few files).
set -uo pipefail
commit=${1:?usage: PYTHONPATH=. bash tools/device_b1_h200.sh <40-hex commit>}
if ! [[ $commit =~ ^[0-9a-f]{40}$ ]]; then
  echo "device_b1_h200: the first argument must be the full 40-hex sha of the code measured, got '$commit'" >&2
  exit 2
fi
PY=${PYTHON:-python3}
BUDGET_S=${BUDGET_S:-540}
DEST=${OUT:-out/device-b1-h200}
OUT=$(mktemp -d)
mkdir -p "$DEST"
trap 'tar -czf "$DEST/b1-h200.tgz" -C "$OUT" .' EXIT
export PYTHONUNBUFFERED=1
t0=$(date +%s)
day=$(date -u +%Y%m%d)
echo "commit $commit" > "$OUT/commit.txt"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
for model in Qwen3-0.6B Qwen3-4B; do
  series="b1-act-$model"
  "$PY" -m engine bench latency --model "$model" --load-format dummy --dtype auto --seed 0 --batch-size 1 \
    --input-len 128 --output-len 256 --num-iters 3 --commit "$commit" --clean --row ENG-FUSED-STEP \
    --series "$series" --output-dir "$OUT/$day-$series" > "$OUT/$series.log" 2>&1
  echo "$series: exit $? at +$(( $(date +%s) - t0 ))s"; tail -3 "$OUT/$series.log"
done
variant_env() {
  case $1 in
    old) echo "ENGINE_ACT_GEMV=0" ;;
    act) echo "ENGINE_ACT_GEMV=1" ;;
    act-late) echo "ENGINE_GEMV_PDL_LATE=1" ;;
    fused) echo "ENGINE_GEMV_FUSED_WIDE=1" ;;
  esac
}
for rep in 1 2 3; do
  for v in old act act-late fused; do
    if (( $(date +%s) - t0 > BUDGET_S - 45 )); then echo "budget: stopping before step $v rep $rep"; exit 0; fi
    env $(variant_env $v) "$PY" tools/device_step_profile.py --models Qwen3-4B Qwen3-0.6B --batches 1 \
      --input-len 256 --steps 30 --out "$OUT/step-$v-$rep.json" > "$OUT/step-$v-$rep.log" 2>&1
    echo "step $v rep $rep: exit $? at +$(( $(date +%s) - t0 ))s"
    grep -E "^Qwen3-[0-9.]+B +1 " "$OUT/step-$v-$rep.log"
  done
done
