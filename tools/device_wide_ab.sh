#!/usr/bin/env bash
# The norm-fused GEMV on wide weights at one row, tuned (ENG-FUSED-STEP), in one device call from the repo root:
#
#   PYTHONPATH=. bash tools/device_wide_ab.sh <40-hex commit>
#
# 1. tools/device_fused_gemv_sweep.py: fused tiles against the separate kernels, Qwen3-4B and Qwen3-0.6B.
# 2. tools/device_step_profile.py, Qwen3-4B batch 1: wide weights on cuBLAS (ENGINE_GEMV_FUSED_WIDE=0) against the
#    fused GEMV with the sweep's best 4-warp gate_up tile (ENGINE_GEMV_FUSED_WIDE_TILE), alternating, twice.
set -uo pipefail
commit=${1:?usage: PYTHONPATH=. bash tools/device_wide_ab.sh <40-hex commit>}
PY=${PYTHON:-python3}
DEST=${OUT:-out/device-wide-ab}
OUT=$(mktemp -d)
mkdir -p "$DEST"
trap 'tar -czf "$DEST/wide-ab.tgz" -C "$OUT" .' EXIT
export PYTHONUNBUFFERED=1
echo "commit $commit" > "$OUT/commit.txt"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader > "$OUT/gpu.txt" 2>&1
"$PY" tools/device_fused_gemv_sweep.py --out "$OUT/fused-gemv-sweep.json" 2>&1 | tee "$OUT/fused-gemv-sweep.log"
tile=$("$PY" -c "import json, sys; r = [x for x in json.load(open(sys.argv[1]))['results'] if x['model'] == 'Qwen3-4B' \
and x['shape'] == 'gate_up'][0]; b = [t for t in r['best'] if t['warps'] == 4][0]; print(f\"{2 * b['block_n']},{b['block_k']}\")" \
  "$OUT/fused-gemv-sweep.json")
echo "wide tile (gate_up's best, 4 warps): $tile"
for rep in 1 2; do
  for v in cublas fused; do
    if [ $v = cublas ]; then envs="ENGINE_GEMV_FUSED_WIDE=0"; else envs="ENGINE_GEMV_FUSED_WIDE=1 ENGINE_GEMV_FUSED_WIDE_TILE=$tile"; fi
    env $envs "$PY" tools/device_step_profile.py --models Qwen3-4B --batches 1 --input-len 256 --steps 30 \
      --out "$OUT/step-$v-$rep.json" > "$OUT/step-$v-$rep.log" 2>&1
    echo "step $v rep $rep: exit $?"
    grep -E "^Qwen3-[0-9.]+B +1 " "$OUT/step-$v-$rep.log"
  done
done
