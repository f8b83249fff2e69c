#!/usr/bin/env bash
# Where the GEMV lets the next kernel launch under PDL, against the wide fused GEMV and cuBLAS (ENG-FUSED-STEP):
#
#   PYTHONPATH=. bash tools/device_pdl_late_ab.sh <40-hex commit>
#
# tools/device_step_profile.py, Qwen3-4B and Qwen3-0.6B at batch 1, each variant twice, alternating:
#   cublas       ENGINE_GEMV_FUSED_WIDE=0                          (today's default path for 4B's wide weights)
#   cublas-late  ENGINE_GEMV_FUSED_WIDE=0 ENGINE_GEMV_PDL_LATE=1
#   fused        ENGINE_GEMV_FUSED_WIDE=1
#   fused-late   ENGINE_GEMV_FUSED_WIDE=1 ENGINE_GEMV_PDL_LATE=1
#   fused-nopdl  ENGINE_GEMV_FUSED_WIDE=1 ENGINE_PDL=0
set -uo pipefail
commit=${1:?usage: PYTHONPATH=. bash tools/device_pdl_late_ab.sh <40-hex commit>}
PY=${PYTHON:-python3}
DEST=${OUT:-out/device-pdl-late-ab}
OUT=$(mktemp -d)
mkdir -p "$DEST"
trap 'tar -czf "$DEST/pdl-late-ab.tgz" -C "$OUT" .' EXIT
export PYTHONUNBUFFERED=1
echo "commit $commit" > "$OUT/commit.txt"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader > "$OUT/gpu.txt" 2>&1
declare -A ENVS=(
  [cublas]="ENGINE_GEMV_FUSED_WIDE=0"
  [cublas-late]="ENGINE_GEMV_FUSED_WIDE=0 ENGINE_GEMV_PDL_LATE=1"
  [fused]="ENGINE_GEMV_FUSED_WIDE=1"
  [fused-late]="ENGINE_GEMV_FUSED_WIDE=1 ENGINE_GEMV_PDL_LATE=1"
  [fused-nopdl]="ENGINE_GEMV_FUSED_WIDE=1 ENGINE_PDL=0"
)
for rep in 1 2; do
  for v in cublas cublas-late fused fused-late fused-nopdl; do
    env ${ENVS[$v]} "$PY" tools/device_step_profile.py --models Qwen3-4B Qwen3-0.6B --batches 1 --input-len 256 \
      --steps 30 --out "$OUT/step-$v-$rep.json" > "$OUT/step-$v-$rep.log" 2>&1
    echo "step $v rep $rep: exit $?"
    grep -E "^Qwen3-[0-9.]+B +1 " "$OUT/step-$v-$rep.log"
  done
done
