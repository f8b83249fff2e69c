"""When decode runs split-KV (triton_decode.py) instead of the unified kernel, as one rule for the eager choice
(triton_attention.use_split_kv) and the CUDA-graph capture (engine/worker/cuda_graphs.py). No triton import here:
the graph code asks before any kernel module is loaded.

Split-KV pays when the unified grid (num_seqs * Hkv programs, each walking a whole context alone) would not fill the
GPU twice over and the context is long enough that one program walking it alone is slow. On an H200 the unified
kernel took 19 us a layer for one sequence of ~520 keys (8 programs; docs/device-checks/20261203-step-profile), so
the bar is a few decode tiles, not a full slice per segment: a segment past a short context returns at once.
ENGINE_SPLIT_KV_MIN_SEQLEN overrides the bar, ENGINE_SPLIT_KV_GRID the programs per SM below which the unified
grid counts as too small, ENGINE_SPLIT_KV_SEGMENTS the segments and ENGINE_SPLIT_KV_LAUNCH the segment kernel's
launch (all read at import; ablations).
"""

from __future__ import annotations

import functools
import os

import torch

NUM_SEGMENTS = int(os.environ.get("ENGINE_SPLIT_KV_SEGMENTS", "16"))


def _launch_from_env() -> tuple[int, int, int] | None:
    """ENGINE_SPLIT_KV_LAUNCH="tile,warps,stages" for the segment kernel (an A/B switch); unset: Triton's defaults
    with a tile of triton_unified.tile_n(block_size)."""
    raw = os.environ.get("ENGINE_SPLIT_KV_LAUNCH", "").strip()
    if not raw:
        return None
    try:
        tile, warps, stages = (int(x) for x in raw.split(","))
    except ValueError:
        raise ValueError(
            f"ENGINE_SPLIT_KV_LAUNCH={raw!r}: give three integers, tile,warps,stages (e.g. 128,4,3)"
        ) from None
    return tile, warps, stages


SPLIT_LAUNCH = _launch_from_env()
# 256 keys: two of the unified kernel's 128-key decode tiles for its lone program.
MIN_SPLIT_SEQLEN = int(os.environ.get("ENGINE_SPLIT_KV_MIN_SEQLEN", "256"))


@functools.lru_cache(maxsize=8)
def num_sms(device: torch.device) -> int:
    """Streaming multiprocessors of a CUDA device; 1 elsewhere (the CPU interpreter runs one program at a time)."""
    device = torch.device(device)
    if device.type != "cuda":
        return 1
    return torch.cuda.get_device_properties(device).multi_processor_count


# The unified grid is "too small" below this many programs per SM. ENGINE_SPLIT_KV_GRID overrides it (ablations).
GRID_PROGRAMS_PER_SM = int(os.environ.get("ENGINE_SPLIT_KV_GRID", "2"))


def grid_leaves_gpu_idle(num_seqs: int, num_kv_heads: int, device: torch.device) -> bool:
    return num_seqs * num_kv_heads < GRID_PROGRAMS_PER_SM * num_sms(device)


def split_kv_pays(num_seqs: int, num_kv_heads: int, max_seqlen_k: int, device: torch.device) -> bool:
    """For a decode-only batch: long enough to split, and too few programs to fill the GPU unsplit."""
    return max_seqlen_k >= MIN_SPLIT_SEQLEN and grid_leaves_gpu_idle(num_seqs, num_kv_heads, device)
