#!/usr/bin/env bash
# The fused MLP GEMV (RMSNorm + gate_up + SiLU * up in one kernel, and norm-fused GEMVs on wide weights at one row)
# against the kernels before it, in one device call (ENG-FUSED-STEP), from the repo root:
#
#   PYTHONPATH=. bash tools/device_act_ab.sh <40-hex commit>
#
# Variants, set by environment switches read at import (engine/kernels/backends.py, triton_gemv.py):
#   old   ENGINE_ACT_GEMV=0 ENGINE_GEMV_FUSED_WIDE=0  (the kernels as before: SiLU a kernel, wide weights on cuBLAS)
#   act   ENGINE_ACT_GEMV=1 ENGINE_GEMV_FUSED_WIDE=0  (the SiLU in the gate_up GEMV where the GEMV already ran)
#   new   ENGINE_ACT_GEMV=1 ENGINE_GEMV_FUSED_WIDE=1  (the defaults: also 4B's wide qkv and gate_up at one row)
# 1. Token parity: tools/device_fusion_parity.py crossing ENGINE_ACT_GEMV (0.6B, and 4B where the wide GEMV runs).
# 2. tools/device_step_profile.py at batch 1 for Qwen3-4B and Qwen3-0.6B under each variant, old/act/new twice.
# 3. `engine bench latency` batch 1, 128 -> 256, Qwen3-4B, old then new.
set -uo pipefail
commit=${1:?usage: PYTHONPATH=. bash tools/device_act_ab.sh <40-hex commit>}
if ! [[ $commit =~ ^[0-9a-f]{40}$ ]]; then
  echo "device_act_ab: the first argument must be the full 40-hex sha of the code measured, got '$commit'" >&2
  exit 2
fi
PY=${PYTHON:-python3}
# Everything is written to a temporary folder and packed into $OUT/act-ab.tgz at the end (the device tool returns a few files).
DEST=${OUT:-out/device-act-ab}
OUT=$(mktemp -d)
mkdir -p "$DEST"
trap 'tar -czf "$DEST/act-ab.tgz" -C "$OUT" .' EXIT
export PYTHONUNBUFFERED=1
day=$(date -u +%Y%m%d)
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader > "$OUT/gpu.txt" 2>&1
"$PY" tools/device_fusion_parity.py --switches ENGINE_ACT_GEMV ENGINE_PDL --out "$OUT/parity-qwen3-0.6b.json" \
  > "$OUT/parity-qwen3-0.6b.log" 2>&1
echo "parity 0.6B: exit $?"; tail -4 "$OUT/parity-qwen3-0.6b.log"
"$PY" tools/device_fusion_parity.py --model Qwen3-4B --switches ENGINE_ACT_GEMV --out "$OUT/parity-qwen3-4b.json" \
  > "$OUT/parity-qwen3-4b.log" 2>&1
echo "parity 4B: exit $?"; tail -2 "$OUT/parity-qwen3-4b.log"
variant_env() {
  case $1 in
    old) echo "ENGINE_ACT_GEMV=0 ENGINE_GEMV_FUSED_WIDE=0" ;;
    act) echo "ENGINE_ACT_GEMV=1 ENGINE_GEMV_FUSED_WIDE=0" ;;
    new) echo "ENGINE_ACT_GEMV=1 ENGINE_GEMV_FUSED_WIDE=1" ;;
  esac
}
for rep in 1 2; do
  for v in old act new; do
    env $(variant_env $v) "$PY" tools/device_step_profile.py --models Qwen3-4B Qwen3-0.6B --batches 1 \
      --input-len 256 --steps 30 --out "$OUT/step-$v-$rep.json" > "$OUT/step-$v-$rep.log" 2>&1
    echo "step $v rep $rep: exit $?"
    grep -E "^Qwen3-[0-9.]+B +1 " "$OUT/step-$v-$rep.log"
  done
done
for v in old new; do
  series="latency-bs1-qwen3-4b-$v"
  env $(variant_env $v) "$PY" -m engine bench latency --model Qwen3-4B --load-format dummy --dtype auto --seed 0 \
    --batch-size 1 --input-len 128 --output-len 256 --num-iters 3 --commit "$commit" --clean --row ENG-FUSED-STEP \
    --series "$series" --output-dir "$OUT/$day-$series" > "$OUT/$series.log" 2>&1
  echo "$series: exit $?"; tail -3 "$OUT/$series.log"
done
