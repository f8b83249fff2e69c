"""Do the launch and fusion switches change any token? (ENG-FUSED-STEP; a check run on the GPU, not a test.)

    PYTHONPATH=. python3 tools/device_fusion_parity.py --out $OUT/fusion-parity.json          # H200, ~1-2 min
    PYTHONPATH=. python3 tools/device_fusion_parity.py --tiny --out /tmp/fusion-parity.json  # CPU smoke check

Each combination of ENGINE_PDL (programmatic dependent launch, engine/kernels/pdl.py) and ENGINE_NORM_GEMV (RMSNorm
fused into the small-batch GEMV, triton_gemv.norm_linear) runs in a process of its own (the switches are read when
kernels are launched and built): Qwen3-0.6B, bf16, dummy weights spread +-0.2 (real logit gaps), CUDA graphs,
greedy; one prompt alone and four together (the batch sizes the GEMV runs), and eight together (cuBLAS). Neither
switch changes arithmetic (the fused kernel rounds where the norm kernel does, tests/engine/test_gemv.py), so the
tokens must be identical across all four; a race from a missing wait under PDL would show as a difference.
Exit 1 when any token differs. `--switches` names other switches to cross (e.g. ENGINE_ACT_GEMV: SiLU * up in the
gate_up GEMV's epilogue, triton_gemv.norm_linear_act, which also rounds where the separate kernels do).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

SWITCHES = ("ENGINE_PDL", "ENGINE_NORM_GEMV")  # the default --switches


def child(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    from engine.llm import LLM
    from engine.model.dummy import initialize_dummy_weights
    from engine.sampling_params import SamplingParams

    device = "cpu" if args.tiny else "cuda"
    settings: dict[str, Any] = dict(load_format="dummy", dtype="bfloat16", device=device, seed=0, max_num_seqs=8)
    if args.tiny:
        from engine.model.tiny import TINY_QWEN3

        model = str(Path(args.workdir) / "tiny-qwen3.json")
        Path(model).write_text(json.dumps({**TINY_QWEN3, "max_position_embeddings": 512}))
    else:
        model = args.model
    llm = LLM(model, max_model_len=512, **settings)
    initialize_dummy_weights(llm.engine_core.runner.model, seed=0, low=-0.2, high=0.2)
    vocab = llm.engine_core.vocab_size
    rng = random.Random(0)
    prompts = [[rng.randrange(3, vocab) for _ in range(args.prompt_len)] for _ in range(8)]
    params = SamplingParams(temperature=0.0, max_tokens=args.tokens, ignore_eos=True, detokenize=False)
    out: dict[str, Any] = {}
    for batch in (1, 4, 8):
        got = llm.generate([{"prompt_token_ids": p} for p in prompts[:batch]], params, use_tqdm=False)
        out[f"batch{batch}"] = [list(o.outputs[0].token_ids) for o in got]
    if device == "cuda":
        torch.cuda.synchronize()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="Qwen3-0.6B", help="a shipped config name (dummy weights)")
    ap.add_argument("--prompt-len", type=int, default=64)
    ap.add_argument("--tokens", type=int, default=48)
    ap.add_argument("--tiny", action="store_true", help="CPU smoke check: the 2-layer tiny Qwen3")
    ap.add_argument("--workdir", default="/tmp/fusion-parity")
    ap.add_argument("--switches", nargs="+", default=list(SWITCHES), help="environment switches to cross (0/1)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", required=True, help="JSON result path")
    args = ap.parse_args()
    if args.child:
        Path(args.out).write_text(json.dumps(child(args)))
        return 0
    Path(args.workdir).mkdir(parents=True, exist_ok=True)
    runs: dict[str, Any] = {}
    switches = args.switches
    for values in itertools.product("10", repeat=len(switches)):
        env = {**os.environ, **dict(zip(switches, values))}
        name = ",".join(f"{k}={v}" for k, v in zip(switches, values))
        part = Path(args.workdir) / f"{'-'.join(values)}.json"
        cmd = [sys.executable, __file__, "--child", "--out", str(part), "--model", args.model]
        cmd += ["--prompt-len", str(args.prompt_len), "--tokens", str(args.tokens), "--workdir", args.workdir]
        cmd += ["--tiny"] if args.tiny else []
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"{name}: failed\n{proc.stderr[-3000:]}", file=sys.stderr)
            runs[name] = {"error": proc.stderr[-3000:]}
            continue
        runs[name] = json.loads(part.read_text())
        print(f"{name}: ok")
    base_name = ",".join(f"{k}=0" for k in switches)
    base = runs.get(base_name, {})
    verdict = {
        name: (
            "error"
            if "error" in got or "error" in base
            else ("identical" if got == base else "DIFFERENT: " + ", ".join(b for b in got if got[b] != base.get(b)))
        )
        for name, got in runs.items()
    }
    for name, v in verdict.items():
        print(f"{name} against {base_name}: {v}")
    result = {
        "model": args.model,
        "switches": switches,
        "prompt_len": args.prompt_len,
        "tokens": args.tokens,
        "verdict": verdict,
    }
    result["runs"] = runs
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0 if all(v == "identical" for v in verdict.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
