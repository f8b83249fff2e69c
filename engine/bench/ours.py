"""Our engine under the bench: build the LLM from the CLI flags, run a workload, turn outputs into timings."""

from __future__ import annotations

import dataclasses
import gc
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from engine.args import EngineArgs
from engine.bench import step_profile
from engine.bench.metrics import RequestTiming
from engine.bench.workloads import Workload
from engine.llm import LLM
from engine.provenance.settings import engine_settings
from engine.sampling_params import SamplingParams


def engine_args(args: Any, device: torch.device) -> EngineArgs:
    """EngineArgs from the bench's engine flags, on the device the session settled."""
    return dataclasses.replace(EngineArgs.from_cli_args(args), device=str(device))


def build_llm(engine_args: EngineArgs) -> tuple[LLM, dict[str, Any]]:
    """The engine and its resolved settings (result.json's `engine` block)."""
    llm = LLM.from_engine_args(engine_args)
    return llm, engine_settings(llm.engine_core)


def generate(
    llm: LLM, workload: Workload, on_progress: Callable[[int, int], None] | None = None
) -> tuple[list[RequestTiming], float]:
    """One timed pass over the workload: (per-request timings, wall seconds of generate()). Token ids only: the
    workloads are ids, so no text is decoded (vLLM's benchmarks offer the same, --disable-detokenize). The prefix
    cache is emptied first: a pass repeats the prompts of the pass before, and would otherwise skip their prefill
    (on the H200 that made a Qwen3-4B nano pass 1.5 s shorter, docs/device-checks/20261204-decode-tiles)."""
    if not llm.reset_prefix_cache():
        raise RuntimeError("the engine still has requests in flight: a benchmark pass needs it idle")
    prompts: list[str | dict[str, Any]] = [{"prompt_token_ids": p} for p in workload.prompts]
    params = [
        SamplingParams(max_tokens=n, ignore_eos=True, temperature=0.0, detokenize=False) for n in workload.output_lens
    ]
    t0 = time.perf_counter()
    outputs = llm.generate(
        prompts, params, use_tqdm=False, on_request_finished=_ticker(workload.num_requests, on_progress)
    )
    elapsed = time.perf_counter() - t0
    timings = []
    for out, prompt, want in zip(outputs, workload.prompts, workload.output_lens):
        m = out.metrics
        n = len(out.outputs[0].token_ids)
        stamps = list(m.token_times)
        timings.append(
            RequestTiming(
                m.arrival_time,
                stamps if len(stamps) == n else [],
                len(prompt),
                n == want,
                None if len(stamps) == n else n,
            )
        )
    return timings, elapsed


def timed_run(
    llm: LLM, workload: Workload, device: torch.device, on_progress: Callable[[int, int], None] | None = None
) -> tuple[list[RequestTiming], float, int | None]:
    """generate() with the device's peak memory measured over that pass alone: (timings, seconds, peak bytes)."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
    timings, elapsed = generate(llm, workload, on_progress)
    peak = torch.cuda.max_memory_allocated(device) if device.type == "cuda" else None
    return timings, elapsed, peak


def _ticker(total: int, on_progress: Callable[[int, int], None] | None) -> Callable[[Any], None] | None:
    """on_request_finished for generate(): on_progress(done, total) once per finished request."""
    if on_progress is None:
        return None
    done = [0]

    def tick(_: Any) -> None:
        done[0] += 1
        on_progress(done[0], total)

    return tick


WARMUP_REQUESTS, WARMUP_TOKENS = 16, 8


def warmup(llm: LLM, workload: Workload) -> None:
    """The workload's first prompts, a few tokens each, untimed: first launches, kernel compilation and allocator
    growth at the workload's own shapes stay out of the timed runs."""
    prompts: list[str | dict[str, Any]] = [{"prompt_token_ids": p} for p in workload.prompts[:WARMUP_REQUESTS]]
    llm.generate(
        prompts,
        SamplingParams(max_tokens=WARMUP_TOKENS, ignore_eos=True, temperature=0.0, detokenize=False),
        use_tqdm=False,
    )


PROFILE_MAX_WARMUP_STEPS = 4096  # steps to reach a steady batch before the profile window, at most


def profile(llm: LLM, workload: Workload, out_dir: Path, num_steps: int) -> dict[str, Any]:
    """The workload's requests (the timed runs' settings) stepped to a steady batch (every running request past its
    prompt, as many running as can), then `num_steps` steps profiled (engine/bench/step_profile.py) into out_dir;
    the rest is aborted. The engine is driven directly: no output processing, which token-id requests skip anyway."""
    core = llm.engine_core
    for i, (prompt, n) in enumerate(zip(workload.prompts, workload.output_lens)):
        core.add_request(
            f"profile-{i}", prompt, SamplingParams(max_tokens=n, ignore_eos=True, temperature=0.0, detokenize=False)
        )
    warm = step_profile.step_until_steady(core, PROFILE_MAX_WARMUP_STEPS)
    prof = step_profile.profile_steps(core, num_steps)
    prof.summary.update(workload=workload.name, steps_before_window=warm)
    prof.write(out_dir)
    step_profile.drain(core)
    return prof.summary


def release(device: torch.device) -> None:
    """Give a dropped engine's memory back before the next model (the peer) loads; the caller drops its LLM."""
    gc.collect()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.empty_cache()
