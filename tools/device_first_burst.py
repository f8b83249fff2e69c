"""What a cold engine pays in its first full-size burst, for the GPU machine (a measurement, not a test).

    PYTHONPATH=. python3 tools/device_first_burst.py --model Qwen3-4B --out $OUT/first-burst.json

`engine serve` at concurrency 256 made 80% of the offline rate on its first burst and 92% on the next
(docs/device-checks/20261204-decode-tiles): this finds out what the first one pays. Offline, the nano workload's
`LLM.generate` runs three times after the bench's short warm-up (16 prompts, 8 tokens): each pass is timed, and every
Triton compilation in it is recorded (kernel, launch options, seconds) through triton's JIT hooks, with the growth of
torch's reserved CUDA memory. Whatever the first pass compiles is what a startup warm-up must cover.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


class CompileLog:
    """Triton compilations as they happen: the cache hook runs before a compile, the post-compile hook after."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self._started: dict[Any, float] = {}

    def install(self) -> bool:
        try:
            from triton import knobs
        except ImportError:
            return False
        knobs.runtime.jit_cache_hook = self._before
        knobs.runtime.jit_post_compile_hook = self._after
        return True

    def _before(self, *, key: Any, repr: str, **_: Any) -> bool:
        self._started[str(key)] = time.perf_counter()
        return False  # go on compiling

    def _after(self, *, key: Any, repr: str, compile: dict[str, Any] | None = None, **_: Any) -> bool:
        t0 = self._started.pop(str(key), None)
        seconds = None if t0 is None else round(time.perf_counter() - t0, 3)
        constants = {str(k): str(v) for k, v in ((compile or {}).get("constants") or {}).items()}
        self.events.append(
            {
                "kernel": repr.split("[", 1)[0],
                "repr": repr[:400],
                "constants": constants,
                # the specialization: argument types with their alignment / ==1 / %16 attributes
                "key": str(key)[:600],
                "seconds": seconds,
            }
        )
        return False


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="Qwen3-4B")
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--num-prompts", type=int, default=256)
    ap.add_argument("--engine-flags", default="--max-model-len 2048", help="more engine flags (default: as serve's)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)

    import torch

    from engine.args import EngineArgs
    from engine.bench import metrics, ours, workloads

    log = CompileLog()
    hooked = log.install()
    p = argparse.ArgumentParser()
    EngineArgs.add_cli_args(p)
    eargs = EngineArgs.from_cli_args(
        p.parse_args(["--model", args.model, "--load-format", "dummy", *args.engine_flags.split()])
    )
    w = workloads.build("nano", args.num_prompts, 1024, 1024, 0)
    t0 = time.perf_counter()
    llm, settings = ours.build_llm(eargs)
    build_s = time.perf_counter() - t0
    at_build = len(log.events)
    ours.warmup(llm, w)
    at_warmup = len(log.events)
    passes = []
    for i in range(args.passes):
        cuda = torch.cuda.is_available()
        before, reserved = len(log.events), torch.cuda.memory_reserved() if cuda else 0
        timings, elapsed = ours.generate(llm, w)
        m = metrics.run_metrics(timings, elapsed, None)
        new = log.events[before:]
        passes.append(
            {
                "pass": i + 1,
                "elapsed_s": round(elapsed, 3),
                "output_tok_per_s": round(m["output_tok_per_s"], 1),
                "compiles": len(new),
                "compile_s": round(sum(e["seconds"] or 0 for e in new), 3),
                "reserved_growth_mib": round(((torch.cuda.memory_reserved() if cuda else 0) - reserved) / 2**20, 1),
                "compiled": new,
            }
        )
        print(
            f"pass {i + 1}: {elapsed:.2f} s, {m['output_tok_per_s']:.0f} tok/s, {len(new)} compiles "
            f"({passes[-1]['compile_s']} s), reserved +{passes[-1]['reserved_growth_mib']} MiB",
            flush=True,
        )
        for e in new:
            print(f"   {e['seconds']} s  {e['kernel']} {e['constants']}", flush=True)
    result = {
        "model": args.model,
        "device": torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu",
        "torch": torch.__version__,
        "hooks_installed": hooked,
        "build_s": round(build_s, 2),
        "compiles_at_build": at_build,
        "compiles_in_warmup": at_warmup - at_build,
        "passes": passes,
        "engine": settings,
    }
    Path(args.out).write_text(json.dumps(result, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
