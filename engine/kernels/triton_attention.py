"""Triton attention kernels behind the same contract as reference.py (see attention_metadata.py).

- write_kv: one kernel, reshape_and_cache style (triton_kv_write.py).
- paged_attention: the unified varlen kernel for any batch (triton_unified.py); decode-only batches that would
  leave the GPU idle take the split-KV path instead (triton_decode.py, chosen by decode_split.py). A captured step
  (static_launch) runs what its graph was captured with (static_split_kv), never a choice from max_seqlen_k.
- prefill_attention: only the memory-profiling dummy run calls it, so the reference one is reused.

No host synchronisation: launch grids come from q.shape and the host ints already in the metadata
(num_seqs, max_seqlen_q, max_seqlen_k), never from the *_cpu lists or device reads, so CUDA graphs can capture it.
"""

from __future__ import annotations

import torch

from engine.kernels import reference
from engine.kernels.attention_metadata import AttentionMetadata, layout_of
from engine.kernels.decode_split import MIN_SPLIT_SEQLEN, split_kv_pays
from engine.kernels.triton_decode import split_kv_decode
from engine.kernels.triton_kv_write import write_kv
from engine.kernels.triton_unified import unified_attention

__all__ = ["MIN_SPLIT_SEQLEN", "check_shapes", "paged_attention", "prefill_attention", "use_split_kv", "write_kv"]

prefill_attention = reference.prefill_attention
_DTYPES = (torch.float16, torch.bfloat16, torch.float32)


def check_shapes(q: torch.Tensor, kv_cache: torch.Tensor) -> None:
    """The shapes these kernels are built for; anything else is a clear error, never a wrong answer."""
    _, _, block_size, num_kv_heads, head_dim = kv_cache.shape
    num_heads = q.shape[1]
    if head_dim not in (16, 32, 64, 128, 256):
        raise ValueError(
            f"Triton attention needs head_dim a power of two in 16..256, got {head_dim}; use attention_backend='torch'"
        )
    if block_size < 16 or block_size & (block_size - 1):
        raise ValueError(
            f"Triton attention needs block_size a power of two >= 16, got {block_size}; "
            f"use --block-size 16 or attention_backend='torch'"
        )
    if num_heads % num_kv_heads:
        raise ValueError(f"{num_heads} query heads are not a multiple of {num_kv_heads} KV heads")
    if kv_cache.dtype not in _DTYPES or q.dtype != kv_cache.dtype:
        raise ValueError(
            f"Triton attention needs q and the cache in one of float16/bfloat16/float32, "
            f"got q {q.dtype} and cache {kv_cache.dtype}"
        )
    if layout_of(kv_cache) is None:
        raise ValueError("the KV cache must be laid out NHD or HND (attention_metadata.allocate_kv_cache)")


def use_split_kv(attn: AttentionMetadata, num_kv_heads: int, device: torch.device) -> bool:
    """A captured step runs the path its graph was captured with; an eager one splits a decode-only batch when
    decode_split.split_kv_pays says so."""
    if attn.static_launch:
        return attn.static_split_kv
    return attn.max_seqlen_q == 1 and split_kv_pays(attn.num_seqs, num_kv_heads, attn.max_seqlen_k, device)


def paged_attention(
    q: torch.Tensor,  # [T, Hq, D]
    kv_cache: torch.Tensor,  # [2, num_blocks, block_size, Hkv, D], already holding the new tokens
    attn: AttentionMetadata,
    scale: float,
    split_kv: bool | None = None,  # None: choose; True/False force a path (tests, benchmarks)
) -> torch.Tensor:  # [T, Hq, D]
    check_shapes(q, kv_cache)
    out = torch.empty_like(q)
    if q.shape[0] == 0:
        return out
    q = q if q.stride(-1) == 1 else q.contiguous()
    if split_kv is None:
        split_kv = use_split_kv(attn, kv_cache.shape[3], q.device)
    if split_kv:
        if attn.max_seqlen_q != 1:
            raise ValueError(f"split-KV decode needs one new token per sequence, max_seqlen_q={attn.max_seqlen_q}")
        split_kv_decode(q, kv_cache, attn.block_tables, attn.seq_lens, attn.cu_seqlens_q, scale, out)
    else:
        unified_attention(
            q,
            kv_cache,
            attn.block_tables,
            attn.seq_lens,
            attn.cu_seqlens_q,
            attn.max_seqlen_q,
            scale,
            out,
            order=attn.decode_order,
        )
    return out
