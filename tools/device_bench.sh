#!/usr/bin/env bash
# The engine's evidence on the H200, in one call of the device tool (about 9 minutes), from the repo root:
#
#   PYTHONPATH=. bash tools/device_bench.sh <commit-sha>          # full: nano, Qwen3-0.6B and Qwen3-4B
#   PYTHONPATH=. bash tools/device_bench.sh <commit-sha> --smoke  # first: 8 requests on 0.6B, ~1-2 minutes
#
# Full: for each model, our engine with dummy weights (seed 0) runs the nano workload 3 times (max_model_len
# 4096, as nano-vllm's bench.py), then the transformers continuous-batching peer runs once on the same
# weights; the peer is stopped early where the remaining time budget demands it (its evidence then says
# complete: false). Each evidence dir is written
# straight to $OUT/<YYYYMMDD>-<series>/ (the device tool brings back 8 files): ours with result.json,
# summary.md and plot.png; the peer's with result.json alone. After copying them into docs/bench-evidence/,
# render the peer dirs' summary and plot with `engine bench render docs/bench-evidence/<dir>`.
# No network, no pip, no .git needed: the commit measured is the argument, and the tree is taken to be exactly
# that commit (--clean) unless BENCH_DIRTY=1. SMALL_MODEL / LARGE_MODEL override the two models (a local dry
# run on CPU with a tiny config .json, say).
set -uo pipefail

commit=${1:?usage: PYTHONPATH=. bash tools/device_bench.sh <40-hex commit sha> [--smoke]}
mode=${2:-full}
if ! [[ $commit =~ ^[0-9a-f]{40}$ ]]; then
  echo "device_bench: the first argument must be the full 40-hex sha of the code measured, got '$commit'" >&2
  exit 2
fi
PY=${PYTHON:-python3}
SMALL_MODEL=${SMALL_MODEL:-Qwen3-0.6B}
LARGE_MODEL=${LARGE_MODEL:-Qwen3-4B}
provenance=--clean; [ "${BENCH_DIRTY:-0}" = 1 ] && provenance=--dirty
OUT=${OUT:-out/device-bench}
BUDGET_S=${BENCH_BUDGET_S:-540}      # the whole script; a device-tool call may run 600 s
export PYTHONUNBUFFERED=1
mkdir -p "$OUT"
t_start=$(date +%s)
elapsed() { echo $(( $(date +%s) - t_start )); }
say() { echo "[device_bench +$(elapsed)s] $*"; }

say "commit $commit, mode $mode, output $OUT, budget ${BUDGET_S}s"
"$PY" - <<'EOF'
import platform, torch
print(f"python {platform.python_version()}, torch {torch.__version__}, cuda {torch.version.cuda}, "
      f"gpu {torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'NONE'}", flush=True)
try:
    import transformers; print(f"transformers {transformers.__version__}", flush=True)
except ImportError:
    print("transformers: not installed (the peer cannot run)", flush=True)
EOF

bench() {   # one `engine bench throughput` command; a failure is reported and the script goes on
  say "engine bench throughput $*"
  local t0=$(date +%s)
  "$PY" -m engine.bench.cli throughput --commit "$commit" "$provenance" "$@"
  local rc=$?
  say "exit $rc after $(( $(date +%s) - t0 ))s"
  return $rc
}

if [ "$mode" = "--smoke" ]; then
  smoke_dir=$(mktemp -d)
  bench --model "$SMALL_MODEL" --load-format dummy --dataset-name nano --max-model-len 4096 --num-prompts 8 \
        --repeat 1 --peer transformers-cb --peer-timeout 60 --output-dir "$smoke_dir"
  rc=$?
  for f in "$smoke_dir"/*/summary.md; do [ -f "$f" ] && { echo "---- $f"; cat "$f"; }; done
  say "smoke done (exit $rc)"
  exit $rc
fi
if [ "$mode" != "full" ]; then
  echo "device_bench: unknown mode '$mode'; pass nothing (full) or --smoke" >&2
  exit 2
fi

# The small model gets 45% of the budget, the large one what is left; each command stops its peer to fit.
budget_06=$(( BUDGET_S * 45 / 100 ))
failed=0
bench --model "$SMALL_MODEL" --load-format dummy --dataset-name nano --max-model-len 4096 --repeat 3 \
      --peer transformers-cb --time-budget "$budget_06" --output-dir "$OUT" || failed=1
left=$(( BUDGET_S - $(elapsed) ))
if [ "$left" -lt 90 ]; then
  say "only ${left}s left: skipping $LARGE_MODEL"
else
  bench --model "$LARGE_MODEL" --load-format dummy --dataset-name nano --max-model-len 4096 --repeat 3 \
        --peer transformers-cb --time-budget "$left" --output-dir "$OUT" || failed=1
fi
# Eight files come back: keep ours whole, the peers' result.json (render the rest after copying).
rm -f "$OUT"/*-peer-*/summary.md "$OUT"/*-peer-*/plot.png
say "done; evidence:"
find "$OUT" -type f | sort
for f in "$OUT"/*/summary.md; do [ -f "$f" ] && { echo "---- $f"; cat "$f"; }; done
exit $failed
