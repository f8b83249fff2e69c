"""The server's startup warm-up: the kernels a full burst needs compile before the first request, not inside it.

A cold server's first burst of 256 Qwen3-4B requests made about 80% of the offline rate, the next ones 98%: the
first burst compiled two more specializations of the unified attention kernel (0.94 s; Triton specializes integer
arguments such as the number of sequences of a step by ==1 and %16), which the load-time profile run never met
(docs/device-checks/20261204-decode-tiles). A load of 64 requests before that burst had not compiled them, so the
warm-up is a whole burst: on CUDA, once the core is built, one request runs alone and then max_num_seqs requests (at
most WARMUP_REQUESTS) of prompt lengths up to LONGEST_PROMPT, WARMUP_TOKENS tokens each: steps of one sequence,
mixed prefill-and-decode steps of many, pure decode. Seeded, greedy, token ids only; the prefix cache is emptied
after, so no client's prompt ever hits a warm-up block. On CPU nothing compiles at first use and nothing runs.
"""

from __future__ import annotations

import logging
import random
import time

from engine.engine_core import EngineCore
from engine.sampling_params import SamplingParams

log = logging.getLogger(__name__)

WARMUP_REQUESTS, WARMUP_TOKENS, LONGEST_PROMPT = 512, 4, 1024


def warm_up(core: EngineCore, cuda_only: bool = True) -> float | None:
    """Run the warm-up on a core with nothing in flight (on CUDA only unless cuda_only is False: the tests); the
    seconds it took, or None where it does not run."""
    if (cuda_only and core.config.device.type != "cuda") or core.has_unfinished_requests():
        return None
    t0 = time.perf_counter()
    rng = random.Random(0)
    longest = max(1, min(LONGEST_PROMPT, core.config.max_model_len - WARMUP_TOKENS - 1))
    params = SamplingParams(max_tokens=WARMUP_TOKENS, ignore_eos=True, temperature=0.0, seed=0, detokenize=False)

    def prompt(n: int) -> list[int]:
        return [rng.randrange(core.vocab_size) for _ in range(n)]

    core.add_request("engine-warmup-alone", prompt(min(100, longest)), params)
    _drain(core)
    for i in range(min(core.scheduler.max_num_seqs, WARMUP_REQUESTS)):
        core.add_request(f"engine-warmup-{i}", prompt(rng.randint(min(16, longest), longest)), params)
    _drain(core)
    core.reset_prefix_cache()
    seconds = time.perf_counter() - t0
    log.info("warm-up: %d requests in %.2f s", min(core.scheduler.max_num_seqs, WARMUP_REQUESTS) + 1, seconds)
    return seconds


def _drain(core: EngineCore) -> None:
    while core.has_unfinished_requests() or core.num_steps_in_flight:
        core.step()
