"""engine serve's startup warm-up (engine/serve/warmup.py): it runs real steps through the core, leaves nothing
behind (no request, no cached prompt block, no draw from the engine's seed stream), and is skipped off CUDA."""

from __future__ import annotations

from pathlib import Path

from engine.engine_core import EngineCore
from engine.llm import LLM
from engine.sampling_params import SamplingParams
from engine.serve.warmup import WARMUP_TOKENS, warm_up


def _core(tiny_qwen3_dir: Path) -> EngineCore:
    return LLM(
        str(tiny_qwen3_dir), device="cpu", max_num_seqs=4, max_model_len=64, block_size=4, max_num_batched_tokens=48
    ).engine_core


def _sampled(core: EngineCore) -> list[int]:
    """A request without a seed (it draws one from the engine's stream), sampled at temperature 1."""
    core.add_request("after", [3, 4, 5, 6, 7], SamplingParams(max_tokens=6, temperature=1.0, detokenize=False))
    tokens: list[int] = []
    while core.has_unfinished_requests() or core.num_steps_in_flight:
        _, out = core.step()
        tokens += [t for rid, t in zip(out.req_ids, out.sampled_token_ids) if rid == "after"]
    return tokens


def test_warm_up_runs_steps_and_leaves_the_engine_as_it_found_it(tiny_qwen3_dir):
    cold, warmed = _core(tiny_qwen3_dir), _core(tiny_qwen3_dir)
    steps_before = warmed.num_steps
    seconds = warm_up(warmed, cuda_only=False)
    assert seconds is not None and seconds > 0
    # one request alone, then a burst of max_num_seqs, WARMUP_TOKENS tokens each: at least that many steps
    assert warmed.num_steps - steps_before >= 2 * WARMUP_TOKENS
    assert not warmed.has_unfinished_requests() and warmed.num_steps_in_flight == 0
    assert warmed.scheduler.kv.pool.num_cached_blocks == 0  # no warm-up prompt block is left to hit
    assert _sampled(warmed) == _sampled(cold)  # the engine's seed stream was not drawn from


def test_warm_up_does_nothing_off_cuda(tiny_qwen3_dir):
    core = _core(tiny_qwen3_dir)
    assert warm_up(core) is None and core.num_steps == 0
