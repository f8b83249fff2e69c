"""Engine vs transformers, greedy, token for token, on a real-size model on the GPU (ENG-CORE, not a test).

    PYTHONPATH=. python3 tools/device_parity.py --model Qwen3-0.6B --dtype float32 --json $OUT/parity.json

transformers builds the model from our shipped config with ITS OWN random init (normal, std 0.02: logits
with real spread, unlike ±1e-3 dummy weights whose near-ties make greedy comparisons meaningless) and saves
it as an HF directory; our engine loads that directory through its safetensors loader, so both run the same
weights. 16 prompts of varied lengths (token ids, seed 0) go through our engine in ONE batch (continuous
batching, chunked prefill, prefix caching on); transformers generates each prompt alone. Prints and writes
per-prompt agreement: the number of leading tokens equal, and whether all are.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time

import torch


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="Qwen3-0.6B")
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"])
    ap.add_argument("--num-prompts", type=int, default=16)
    ap.add_argument("--max-tokens", type=int, default=32)
    ap.add_argument("--json", default=None)
    ap.add_argument("--attention-backend", default="auto", choices=["auto", "triton", "torch"])
    args = ap.parse_args()

    from transformers import AutoConfig, AutoModelForCausalLM

    from engine import LLM, SamplingParams
    from engine.model.loader import get_model_config

    dtype = getattr(torch, args.dtype)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    hf_cfg = dict(get_model_config(args.model).hf_config)
    model_type = hf_cfg.pop("model_type", "qwen3")
    for k in ("torch_dtype", "dtype", "transformers_version"):
        hf_cfg.pop(k, None)
    torch.manual_seed(0)
    config = AutoConfig.for_model(model_type, **hf_cfg)
    hf = AutoModelForCausalLM.from_config(config, dtype=dtype, attn_implementation="sdpa").to(device).eval()
    hf.generation_config.eos_token_id = None

    rng = random.Random(0)
    lengths = [rng.randint(1, 300) for _ in range(args.num_prompts)]
    prompts = [[rng.randrange(0, 10000) for _ in range(n)] for n in lengths]
    shared = prompts[0][:48] if lengths[0] >= 48 else None
    if shared:  # a few prompts share a prefix so prefix caching is exercised
        for i in (1, 2, 3):
            if lengths[i] > 48:
                prompts[i][:48] = shared

    t0 = time.perf_counter()
    ref = []
    with torch.no_grad():
        for p in prompts:
            ids = torch.tensor([p], device=device)
            out = hf.generate(
                ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=args.max_tokens,
                min_new_tokens=args.max_tokens,
                do_sample=False,
                pad_token_id=0,
            )
            ref.append(out[0, len(p) :].tolist())
    t_ref = time.perf_counter() - t0

    with tempfile.TemporaryDirectory() as tmp:
        hf.save_pretrained(tmp)
        del hf
        torch.cuda.empty_cache() if device == "cuda" else None
        llm = LLM(
            tmp,
            dtype=args.dtype,
            device=device,
            max_num_batched_tokens=256,
            enable_prefix_caching=True,
            attention_backend=args.attention_backend,
        )
        kernels = llm.engine_core.runner.attention_kernels.name  # what the engine ran ("auto" resolved)
        sp = SamplingParams(temperature=0.0, max_tokens=args.max_tokens, ignore_eos=True)
        t0 = time.perf_counter()
        outs = llm.generate([{"prompt_token_ids": p} for p in prompts], sp, use_tqdm=False)
        t_ours = time.perf_counter() - t0
    ours = [o.outputs[0].token_ids for o in outs]

    rows = []
    for i, (a, b) in enumerate(zip(ours, ref)):
        lead = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        rows.append(
            {
                "prompt_len": lengths[i],
                "equal": list(a) == list(b),
                "leading_equal": lead,
                "ours": list(a),
                "transformers": list(b),
            }
        )
        print(
            f"prompt {i:2d} len {lengths[i]:3d}: {'EQUAL' if list(a) == list(b) else 'DIFF'} "
            f"(first {lead}/{args.max_tokens} tokens equal)"
        )
    n_equal = sum(r["equal"] for r in rows)
    summary = {
        "model": args.model,
        "dtype": args.dtype,
        "device": torch.cuda.get_device_name(0) if device == "cuda" else "cpu",
        "torch": torch.__version__,
        "num_prompts": len(prompts),
        "max_tokens": args.max_tokens,
        "attention_kernels": kernels,
        "prompts_equal": n_equal,
        "engine_s": round(t_ours, 3),
        "transformers_s": round(t_ref, 3),
        "rows": rows,
    }
    print(
        f"{args.model} {args.dtype} on {summary['device']} ({kernels} attention): {n_equal}/{len(prompts)} prompts "
        f"token-identical (engine one batch {t_ours:.2f}s, transformers one by one {t_ref:.2f}s)"
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    return 0 if n_equal == len(prompts) else 1


if __name__ == "__main__":
    sys.exit(main())
