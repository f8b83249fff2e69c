#!/usr/bin/env bash
# The decode kernel A/B on the H200 in one device call (ENG-FUSED-STEP), from the repo root:
#
#   PYTHONPATH=. bash tools/device_decode_ab.sh <40-hex commit> [models...]
#
# 1. tools/device_attn_sweep.py --sections kernel: the one-token rows' kernels alone (GB/s of K and V read).
# 2. For each model (default Qwen3-0.6B Qwen3-4B): the nano workload with ENGINE_DECODE_KERNEL=paged (the default)
#    then =unified, alternating, `--repeat 3 --warmup-passes 1`, each into $OUT/<date>-decode-<kernel>-<model>/.
# Needs no .git: the commit measured is the argument and the tree is taken to be exactly that commit.
set -uo pipefail
commit=${1:?usage: PYTHONPATH=. bash tools/device_decode_ab.sh <40-hex commit> [models...]}
shift
models=("$@")
[ ${#models[@]} -eq 0 ] && models=(Qwen3-0.6B Qwen3-4B)
if ! [[ $commit =~ ^[0-9a-f]{40}$ ]]; then
  echo "device_decode_ab: the first argument must be the full 40-hex sha of the code measured, got '$commit'" >&2
  exit 2
fi
PY=${PYTHON:-python3}
OUT=${OUT:-out/device-decode-ab}
SECTIONS=${SWEEP_SECTIONS:-kernel}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
day=$(date -u +%Y%m%d)
if [ "$SECTIONS" != none ]; then
  "$PY" tools/device_attn_sweep.py --sections $SECTIONS --out "$OUT/attn-kernel.json" || echo "sweep failed: $?"
fi
for model in "${models[@]}"; do
  for kernel in paged unified; do
    series="decode-$kernel-$model"
    ENGINE_DECODE_KERNEL=$kernel "$PY" -m engine bench throughput --model "$model" --load-format dummy --dtype auto \
      --seed 0 --max-model-len 4096 --dataset-name nano --repeat 3 --warmup-passes 1 --commit "$commit" --clean \
      --row ENG-FUSED-STEP --series "$series" --output-dir "$OUT/$day-$series" > "$OUT/$series.log" 2>&1
    echo "$series: exit $?"
    "$PY" -c "import json, sys; d = json.load(open(sys.argv[1])); m = d['metrics']['output_tok_per_s']; \
print(f\"  output tok/s {m['median']:.0f} ({m['min']:.0f}-{m['max']:.0f}), {d['roofline']['fraction']:.1%} of bound\")" \
      "$OUT/$day-$series/result.json" || tail -5 "$OUT/$series.log"
  done
done
