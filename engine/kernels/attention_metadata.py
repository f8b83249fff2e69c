"""The contract between the model runner and the attention kernels (reference and Triton alike).

A step runs T new tokens from B sequences, flattened in batch-row order. Sequence b contributes
q_len[b] = cu_seqlens_q[b+1] - cu_seqlens_q[b] new tokens whose positions are
seq_lens[b] - q_len[b] ... seq_lens[b] - 1; each new token attends causally to every earlier position of
its own sequence (cached or new). K/V of the new tokens are written to the paged cache at slot_mapping
before attention reads the cache, so attention reads everything from the cache.

KV cache, per layer: one tensor [2, num_blocks, block_size, num_kv_heads, head_dim] (index 0 = K, 1 = V).
A slot is block_id * block_size + offset; block_tables[b, i] is the i-th block of sequence b (-1 / 0 padding
past the end is never read). That shape is logical: kernels index the cache through its strides, so its memory
may be laid out token-major (NHD: one token's heads side by side, the shape's own order) or head-major (HND: one
block's keys of one head side by side, a [block_size, head_dim] run; allocate_kv_cache returns a transposed view).
A decode program reads one KV head of one sequence, so HND turns its reads of 256-byte rows strided by all the
heads into block-long contiguous runs (vLLM offers the same choice as VLLM_KV_CACHE_LAYOUT).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch


@dataclass
class AttentionMetadata:
    cu_seqlens_q: torch.Tensor  # [B+1] int32, prefix sums of new tokens per sequence
    seq_lens: torch.Tensor  # [B] int32, total tokens of each sequence after this step (cached + new)
    block_tables: torch.Tensor  # [B, max_blocks_per_seq] int32
    slot_mapping: torch.Tensor  # [T] int64, cache slot of each new token
    max_seqlen_q: int  # max q_len over the batch (host int, known when the batch is built)
    max_seqlen_k: int  # max seq_len over the batch
    # Host-side copies for reference kernels that loop per sequence (never read on the GPU fast path).
    q_lens_cpu: list[int] | None = None
    seq_lens_cpu: list[int] | None = None
    # A CUDA-graph step (engine/worker/cuda_graphs.py): the launch is replayed whatever max_seqlen_k is now, so
    # kernels must not pick a path, a grid or a buffer size from max_seqlen_k (it only bounds the batch).
    static_launch: bool = False
    # The path such a step's graph was captured with: split-KV decode (triton_decode.py) or the unified kernel.
    static_split_kv: bool = False
    # [B] int32, a permutation of the sequences, longest seq_len first (input_batch.prepare_inputs): the Triton kernel runs a
    # decode row's programs in this order, so the longest contexts start first and the launch does not end on a
    # lone long one while other SMs idle. None: batch order.
    decode_order: torch.Tensor | None = None

    @property
    def num_seqs(self) -> int:
        return self.seq_lens.shape[0]


def kv_cache_shape(num_blocks: int, block_size: int, num_kv_heads: int, head_dim: int) -> tuple[int, ...]:
    return (2, num_blocks, block_size, num_kv_heads, head_dim)


KV_LAYOUTS = ("NHD", "HND")


def kv_cache_layout(device: torch.device | str = "cpu") -> str:
    """ENGINE_KV_CACHE_LAYOUT (NHD or HND; read per call, so an A/B can switch it between engines). Unset: HND on
    CUDA, where the Triton decode kernel read a nano-like batch 3.58 against 3.11 TB/s token-major on an H200
    (docs/device-checks/20261204-decode-tiles), and NHD elsewhere, where the reference kernels gather whole blocks
    and a head-major cache would cost them a copy."""
    default = "HND" if torch.device(device).type == "cuda" else "NHD"
    layout = os.environ.get("ENGINE_KV_CACHE_LAYOUT", default).strip().upper() or default
    if layout not in KV_LAYOUTS:
        raise ValueError(f"ENGINE_KV_CACHE_LAYOUT={layout!r}: use one of {', '.join(KV_LAYOUTS)}")
    return layout


def allocate_kv_cache(
    num_blocks: int,
    block_size: int,
    num_kv_heads: int,
    head_dim: int,
    *,
    dtype: torch.dtype,
    device: torch.device | str,
    layout: str | None = None,
) -> torch.Tensor:
    """A zeroed cache of the logical shape kv_cache_shape(...) in the given memory layout (default: kv_cache_layout)."""
    layout = layout or kv_cache_layout(device)
    if layout == "HND":
        stored = torch.zeros(2, num_blocks, num_kv_heads, block_size, head_dim, dtype=dtype, device=device)
        return stored.transpose(2, 3)
    return torch.zeros(kv_cache_shape(num_blocks, block_size, num_kv_heads, head_dim), dtype=dtype, device=device)


def as_layout(cache: torch.Tensor, layout: str) -> torch.Tensor:
    """The same values in the other memory layout (tests and sweeps compare layouts on one cache)."""
    if layout == "HND":
        return cache.transpose(2, 3).contiguous().transpose(2, 3)
    return cache.contiguous()


def layout_of(cache: torch.Tensor) -> str | None:
    """NHD or HND from the strides of a [2, blocks, block_size, Hkv, D] cache; None for any other layout."""
    if cache.is_contiguous():
        return "NHD"
    if cache.transpose(2, 3).is_contiguous():
        return "HND"
    return None
