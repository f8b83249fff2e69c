"""The peer users would pick instead: transformers 5.x continuous batching, on our weights and workload.

Only the bench imports this (transformers is a test/peer dependency, never the engine's). It drives the public
manager API that 5.17 (the GPU machine) and 5.24 share — `model.init_continuous_batching(...)`, `warmup()`,
`start()`, `add_request(input_ids, request_id=, max_new_tokens=, record_timestamps=, eos_token_id=)`,
`get_result()`, `stop(hard_stop=)` — and feature-detects what differs: `workload_hints` (an init keyword on
both, absent on older 5.x), the KV page size field (`block_size` on 5.17, `page_size` on 5.24), and the
attention name (5.17 turns "sdpa" into "paged|sdpa"; 5.23+ takes "sdpa" as is and warns on the prefix).

Same weights: our own loader is the source. `engine_weights` loads the model exactly as our engine does (for
dummy weights: the same seed on the same device gives the same tensors), splits our packed q/k/v and gate/up
back into HF checkpoint names, and `build_model` copies them into the HF model, checking every parameter is
filled once; a test asserts both engines then emit the same greedy tokens. The manager is driven through
`init_continuous_batching` + `warmup`/`start`/`stop`/`destroy` (what `continuous_batching_context_manager`
wraps) so a deadline can hard-stop it.

Greedy, eos_token_id=-1 (no token ends a request: ignore_eos), per-request max_new_tokens. With a time limit the
manager is hard-stopped at the deadline; transformers then fails the requests still running and hands back
their partial outputs, so the run records the time it ran and every token it produced (`complete: false`).
"""

from __future__ import annotations

import dataclasses
import inspect
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch

from engine.bench.errors import BenchError
from engine.bench.metrics import RequestTiming
from engine.bench.workloads import Workload
from engine.utils import cdiv, install_hint

NAME = "transformers-cb"
_MODEL_TYPES = {"Qwen3ForCausalLM": "qwen3", "LlamaForCausalLM": "llama"}  # a GGUF's implied config has no type


class PeerError(BenchError):
    """The peer cannot run here (transformers missing or too old); the message says what to do."""


def version() -> str | None:
    try:
        import transformers
    except ImportError:
        return None
    return transformers.__version__


@dataclass
class PeerRun:
    timings: list[RequestTiming]
    elapsed_s: float
    complete: bool
    settings: dict[str, Any] = field(default_factory=dict)
    peak_vram_bytes: int | None = None
    warmup_s: float = 0.0
    token_ids: list[list[int]] = field(default_factory=list)  # generated ids per request, in workload order


def build_model(
    hf_config: dict[str, Any], dtype: torch.dtype, device: torch.device, weights: Iterable[tuple[str, torch.Tensor]]
) -> torch.nn.Module:
    """An HF causal LM from a config.json dict, filled with `weights` (HF checkpoint names), every parameter once."""
    try:
        from transformers import AutoConfig, AutoModelForCausalLM
    except ImportError:
        raise PeerError(
            f"the transformers peer needs transformers >= 5; install the `bench` extra "
            f"({install_hint('bench')}), or pass --peer none"
        ) from None
    cfg_dict = {k: v for k, v in hf_config.items() if k not in ("torch_dtype", "dtype", "transformers_version")}
    model_type = cfg_dict.pop("model_type", None) or _MODEL_TYPES.get((cfg_dict.get("architectures") or [""])[0])
    if model_type is None:
        raise PeerError(f"no transformers model type for architectures {cfg_dict.get('architectures')}")
    config = AutoConfig.for_model(model_type, **cfg_dict)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(config, dtype=dtype, attn_implementation="sdpa")
    params = dict(model.named_parameters())  # deduplicated: a tied lm_head is the embedding
    filled: set[str] = set()
    with torch.no_grad():
        for name, tensor in weights:
            if name not in params:
                if name == "lm_head.weight" and config.tie_word_embeddings:
                    continue
                raise PeerError(f"weight {name} has no place in {type(model).__name__}")
            params[name].copy_(tensor.to(device=device, dtype=dtype))
            filled.add(name)
    missing = sorted(set(params) - filled)
    if missing:
        raise PeerError(f"no weights for {', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''}")
    return model.eval()


def _cb_config(device: torch.device, workload: Workload) -> tuple[Any, dict[str, Any]]:
    """transformers' defaults on CUDA (what a user gets); on CPU an explicit small cache (auto-sizing from host
    memory takes seconds and gigabytes)."""
    from transformers import ContinuousBatchingConfig

    overrides: dict[str, Any] = {}
    if device.type != "cuda":
        names = {f.name for f in dataclasses.fields(ContinuousBatchingConfig)}
        page_field = "page_size" if "page_size" in names else "block_size"
        page = 32
        overrides = {
            page_field: page,
            "max_batch_tokens": 256,
            "num_blocks": sum(cdiv(len(p) + o, page) for p, o in zip(workload.prompts, workload.output_lens)) + 4,
        }
    return ContinuousBatchingConfig(**overrides), overrides


def _init_manager(model: Any, gen_config: Any, cb_config: Any, workload: Workload) -> Any:
    kwargs: dict[str, Any] = {"generation_config": gen_config, "continuous_batching_config": cb_config}
    if "workload_hints" in inspect.signature(model.init_continuous_batching).parameters:
        from transformers.generation.continuous_batching.utils import WorkloadHints

        kwargs["workload_hints"] = WorkloadHints(
            max_prompt_length=max(workload.prompt_lens),
            max_generated_length=max(workload.output_lens),
            num_requests=workload.num_requests,
        )
    return model.init_continuous_batching(**kwargs)


def _resolved_settings(manager: Any, attn: str, overrides: dict[str, Any], warmup: bool) -> dict[str, Any]:
    cfg = getattr(manager, "continuous_batching_config", None)
    keep = (
        "page_size",
        "block_size",
        "num_blocks",
        "max_batch_tokens",
        "max_requests_per_batch",
        "use_async_batching",
        "use_cuda_graph",
        "allow_block_sharing",
        "scheduler_type",
        "max_memory_percent",
    )
    resolved = {k: _jsonable(getattr(cfg, k)) for k in keep if cfg is not None and hasattr(cfg, k)}
    return {
        "attn_implementation": attn,
        "greedy": True,
        "eos_token_id": -1,
        "warmup": warmup,
        "overrides": overrides,
        "continuous_batching_config": resolved,
    }


def _jsonable(v: Any) -> Any:
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return str(v)


def run(
    model: Any,
    workload: Workload,
    timeout_s: float | None,
    stop_at: float | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> PeerRun:
    """Run every request of `workload` through transformers CB; stop after `timeout_s` s of generation, or at
    the perf_counter() time `stop_at` (a whole command's budget), whichever comes first."""
    from transformers import GenerationConfig

    device = model.device
    gen_config = GenerationConfig(do_sample=False, eos_token_id=-1, pad_token_id=0)
    cb_config, overrides = _cb_config(device, workload)
    warmup = device.type == "cuda"  # graph capture is what a CUDA user gets; there is nothing to capture on CPU
    manager = _init_manager(model, gen_config, cb_config, workload)
    attn = model.config._attn_implementation  # as the manager switched it (5.17: "paged|sdpa"); stop() restores it
    t_warm = time.perf_counter()
    if warmup:
        manager.warmup()
    warmup_s = time.perf_counter() - t_warm
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
    results: dict[str, Any] = {}
    complete = True
    manager.start()
    try:
        t0 = time.perf_counter()
        limits = [t for t in (None if timeout_s is None else t0 + timeout_s, stop_at) if t is not None]
        deadline = min(limits) if limits else None
        for i, (prompt, n_out) in enumerate(zip(workload.prompts, workload.output_lens)):
            manager.add_request(
                prompt, request_id=f"r{i}", max_new_tokens=n_out, record_timestamps=True, eos_token_id=-1
            )
        while len(results) < workload.num_requests:
            left = None if deadline is None else deadline - time.perf_counter()
            if left is not None and left <= 0:
                complete = False
                break
            out = manager.get_result(timeout=0.5 if left is None else max(0.01, min(0.5, left)))
            if out is not None and out.is_finished():
                results[out.request_id] = out
                if on_progress:
                    on_progress(len(results), workload.num_requests)
            elif out is None and not manager.is_running():
                raise PeerError(
                    "transformers' generation thread stopped before every request finished; see its log above"
                )
        if not complete:
            manager.stop(block=True, timeout=120, hard_stop=True)  # running requests come back failed, partial
        elapsed = time.perf_counter() - t0  # after a stop: covers every token the last step produced
        while not complete and (out := manager.get_result(timeout=0.05)) is not None:
            results.setdefault(out.request_id, out)
        settings = _resolved_settings(manager, attn, overrides, warmup)
    finally:
        if manager.is_running():
            manager.stop(block=True, timeout=120)
        manager.destroy()
    peak = torch.cuda.max_memory_allocated(device) if device.type == "cuda" else None
    token_ids = [
        list(results[f"r{i}"].generated_tokens) if f"r{i}" in results else [] for i in range(workload.num_requests)
    ]
    return PeerRun(_timings(workload, results), elapsed, complete, settings, peak, warmup_s, token_ids)


def _timings(workload: Workload, results: dict[str, Any]) -> list[RequestTiming]:
    timings = []
    for i, prompt in enumerate(workload.prompts):
        out = results.get(f"r{i}")
        if out is None:  # never scheduled before the stop
            timings.append(RequestTiming(arrival=0.0, prompt_tokens=len(prompt), finished=False, num_output=0))
            continue
        n = len(out.generated_tokens)
        stamps = list(out.timestamps or [])
        finished = out.error is None and n == workload.output_lens[i]
        if len(stamps) == n:
            timings.append(RequestTiming(out.created_time, stamps, len(prompt), finished))
        else:  # no per-token stamps from this version: throughput only
            timings.append(RequestTiming(out.created_time, [], len(prompt), finished, num_output=n))
    return timings


def hf_named_weights(model: torch.nn.Module) -> Iterator[tuple[str, torch.Tensor]]:
    """Our model's parameters under HF checkpoint names: packed q/k/v and gate/up split back into their shards
    (through the model's `packed_modules_mapping` and each packed layer's `output_sizes` / `shard_ids`)."""
    packed: dict[str, tuple[str, object]] = getattr(model, "packed_modules_mapping", {})
    source_of = {(target, shard): src for src, (target, shard) in packed.items()}
    modules = dict(model.named_modules())
    for name, param in model.named_parameters():  # deduplicated: a tied head is the embedding
        owner, _, leaf = name.rpartition(".")
        module = modules[owner]
        shard_ids = getattr(module, "shard_ids", None)
        if shard_ids is None:
            yield name, param.detach()
            continue
        parent, _, short = owner.rpartition(".")
        for shard, part in zip(shard_ids, param.detach().split(list(module.output_sizes), dim=0)):
            yield f"{parent}.{source_of[(short, shard)]}.{leaf}", part


def engine_weights(
    model: str, load_format: str, dtype: torch.dtype, device: torch.device, seed: int
) -> tuple[Any, Iterator[tuple[str, torch.Tensor]]]:
    """Same weights as ours, whatever the format: our loader's tensors for (model, load_format, seed, device) —
    dummy ones are seeded per device — under HF names (a GGUF arrives dequantised). Returns (our loaded model,
    the weights iterator); drop both once the HF model holds its copy."""
    from engine.model import load_model

    loaded = load_model(model, load_format=load_format, dtype=dtype, device=device, seed=seed)
    return loaded, hf_named_weights(loaded.model)
