"""The Triton KV write and paged attention as torch custom ops, for ENGINE_COMPILE=1 (backends.py): torch.compile
traces the decoder around them (norms, rotary, SiLU * up, residual adds, fused by Inductor between the GEMMs) and
never into them, as vLLM compiles its models around an attention op.

write_kv declares the cache it mutates, so the functionalised graph orders it before the attention that reads the
cache; the ops take the metadata's tensors and host ints, never the *_cpu lists (they would be guarded per step).
"""

from __future__ import annotations

import torch

from engine.kernels import triton_attention
from engine.kernels.attention_metadata import AttentionMetadata


@torch.library.custom_op("engine::write_kv", mutates_args=("kv_cache",))
def _write_kv(k: torch.Tensor, v: torch.Tensor, kv_cache: torch.Tensor, slot_mapping: torch.Tensor) -> None:
    triton_attention.write_kv(k, v, kv_cache, slot_mapping)


@_write_kv.register_fake
def _write_kv_fake(k: torch.Tensor, v: torch.Tensor, kv_cache: torch.Tensor, slot_mapping: torch.Tensor) -> None:
    return None


@torch.library.custom_op("engine::paged_attention", mutates_args=())
def _paged_attention(
    q: torch.Tensor,
    kv_cache: torch.Tensor,
    cu_seqlens_q: torch.Tensor,
    seq_lens: torch.Tensor,
    block_tables: torch.Tensor,
    slot_mapping: torch.Tensor,
    max_seqlen_q: int,
    max_seqlen_k: int,
    static_launch: bool,
    static_split_kv: bool,
    scale: float,
) -> torch.Tensor:
    attn = AttentionMetadata(
        cu_seqlens_q,
        seq_lens,
        block_tables,
        slot_mapping,
        max_seqlen_q,
        max_seqlen_k,
        static_launch=static_launch,
        static_split_kv=static_split_kv,
    )
    return triton_attention.paged_attention(q, kv_cache, attn, scale)


@_paged_attention.register_fake
def _paged_attention_fake(q: torch.Tensor, *args: object) -> torch.Tensor:
    return torch.empty_like(q)


def write_kv(k: torch.Tensor, v: torch.Tensor, kv_cache: torch.Tensor, slot_mapping: torch.Tensor) -> None:
    torch.ops.engine.write_kv(k, v, kv_cache, slot_mapping)


def paged_attention(q: torch.Tensor, kv_cache: torch.Tensor, attn: AttentionMetadata, scale: float) -> torch.Tensor:
    return torch.ops.engine.paged_attention(
        q,
        kv_cache,
        attn.cu_seqlens_q,
        attn.seq_lens,
        attn.block_tables,
        attn.slot_mapping,
        attn.max_seqlen_q,
        attn.max_seqlen_k,
        attn.static_launch,
        attn.static_split_kv,
        scale,
    )
