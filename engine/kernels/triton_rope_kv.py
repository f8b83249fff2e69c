"""Qwen3's per-head q/k RMSNorm, rotary embedding and the KV-cache write, in one kernel over the packed projection.

Program t reads token t's row of qkv [(Hq + 2 Hkv) * D] once: q heads are normed (Qwen3), rotated and stored to a
fresh [T, Hq, D] q; k heads are normed and rotated and, with v, stored straight into the paged cache at
slot_mapping[t]. cos/sin come from the float32 cache row of the token's position, so nothing is gathered per step.
A negative slot (vLLM's PAD_SLOT_ID, a padded CUDA-graph row) writes nothing to the cache. Every product and sum
rounds to the activation dtype where layer_reference.qk_norm_rope (transformers' order) rounds.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from engine.kernels import pdl


@triton.jit
def _rnd(x, dtype: tl.constexpr):
    """x rounded to the activation dtype, kept in float32 (a torch op on bf16 tensors rounds every result)."""
    return x.to(dtype).to(tl.float32)


@triton.jit
def _norm_rope(
    head_ptr,
    w_ptr,
    heads,
    head_ok,
    half,
    cos,
    sin,
    eps,
    stride_c,
    HEAD_DIM: tl.constexpr,
    NORM: tl.constexpr,
    dtype: tl.constexpr,
):
    """Both halves [H, D/2] of the heads at head_ptr: RMSNorm over each head (NORM), then rotate-half."""
    first = head_ptr + (heads[:, None] * HEAD_DIM + half[None, :]) * stride_c
    x1 = tl.load(first, mask=head_ok[:, None], other=0.0).to(tl.float32)
    x2 = tl.load(first + (HEAD_DIM // 2) * stride_c, mask=head_ok[:, None], other=0.0).to(tl.float32)
    if NORM:
        rstd = tl.rsqrt((tl.sum(x1 * x1, 1) + tl.sum(x2 * x2, 1)) / HEAD_DIM + eps)[:, None]
        w1 = tl.load(w_ptr + half).to(tl.float32)[None, :]
        w2 = tl.load(w_ptr + HEAD_DIM // 2 + half).to(tl.float32)[None, :]
        x1 = _rnd(w1 * _rnd(x1 * rstd, dtype), dtype)
        x2 = _rnd(w2 * _rnd(x2 * rstd, dtype), dtype)
    out1 = _rnd(_rnd(x1 * cos, dtype) - _rnd(x2 * sin, dtype), dtype)
    out2 = _rnd(_rnd(x2 * cos, dtype) + _rnd(x1 * sin, dtype), dtype)
    return out1, out2


@triton.jit
def _rope_kv_kernel(
    q_out_ptr,  # [T, Hq, D]
    cache_ptr,  # [2, num_blocks, block_size, Hkv, D]
    qkv_ptr,  # [T, (Hq + 2 Hkv) * D]
    pos_ptr,  # [T] int64
    cos_sin_ptr,  # [max_position, D] float32
    slot_ptr,  # [T] int64
    q_w_ptr,
    k_w_ptr,  # [D] each; unread without NORM
    eps,
    stride_qkv_t,
    stride_qkv_c,
    stride_q_t,
    stride_q_h,
    stride_cs,
    stride_c_kv,
    stride_c_blk,
    stride_c_off,
    stride_c_h,
    NUM_HEADS: tl.constexpr,
    NUM_KV_HEADS: tl.constexpr,
    Q_PAD: tl.constexpr,
    KV_PAD: tl.constexpr,
    HEAD_DIM: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
    NORM: tl.constexpr,
    USE_PDL: tl.constexpr,
):
    if USE_PDL:  # the kernel before this one may still be writing: wait for it (engine/kernels/pdl.py)
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    t = tl.program_id(0).to(tl.int64)
    dtype: tl.constexpr = q_out_ptr.dtype.element_ty
    half = tl.arange(0, HEAD_DIM // 2)
    pos = tl.load(pos_ptr + t).to(tl.int64)
    cos = _rnd(tl.load(cos_sin_ptr + pos * stride_cs + half), dtype)[None, :]  # the torch path casts cos/sin too
    sin = _rnd(tl.load(cos_sin_ptr + pos * stride_cs + HEAD_DIM // 2 + half), dtype)[None, :]
    row = qkv_ptr + t * stride_qkv_t

    q_heads = tl.arange(0, Q_PAD)
    q_ok = q_heads < NUM_HEADS
    q1, q2 = _norm_rope(row, q_w_ptr, q_heads, q_ok, half, cos, sin, eps, stride_qkv_c, HEAD_DIM, NORM, dtype)
    q_dst = q_out_ptr + t * stride_q_t + q_heads[:, None] * stride_q_h + half[None, :]
    tl.store(q_dst, q1.to(dtype), mask=q_ok[:, None])
    tl.store(q_dst + HEAD_DIM // 2, q2.to(dtype), mask=q_ok[:, None])

    slot = tl.load(slot_ptr + t).to(tl.int64)
    if slot >= 0:
        kv_heads = tl.arange(0, KV_PAD)
        kv_ok = kv_heads < NUM_KV_HEADS
        k_row = row + NUM_HEADS * HEAD_DIM * stride_qkv_c
        k1, k2 = _norm_rope(k_row, k_w_ptr, kv_heads, kv_ok, half, cos, sin, eps, stride_qkv_c, HEAD_DIM, NORM, dtype)
        cache_ty = cache_ptr.dtype.element_ty
        dst = (
            cache_ptr
            + (slot // BLOCK_SIZE) * stride_c_blk
            + (slot % BLOCK_SIZE) * stride_c_off
            + kv_heads[:, None] * stride_c_h
        )
        tl.store(dst + half[None, :], k1.to(cache_ty), mask=kv_ok[:, None])
        tl.store(dst + HEAD_DIM // 2 + half[None, :], k2.to(cache_ty), mask=kv_ok[:, None])
        dims = tl.arange(0, HEAD_DIM)
        v_row = k_row + NUM_KV_HEADS * HEAD_DIM * stride_qkv_c
        v = tl.load(v_row + (kv_heads[:, None] * HEAD_DIM + dims[None, :]) * stride_qkv_c, mask=kv_ok[:, None])
        tl.store(dst + stride_c_kv + dims[None, :], v.to(cache_ty), mask=kv_ok[:, None])


def rope_write_kv(
    qkv: torch.Tensor,  # [T, (Hq + 2 Hkv) * D]
    positions: torch.Tensor,  # [T] int64
    cos_sin_cache: torch.Tensor,  # [max_position, D] float32
    q_weight: torch.Tensor | None,  # [D]; None (with k_weight): no q/k norm (Llama)
    k_weight: torch.Tensor | None,  # [D]
    eps: float,
    num_heads: int,
    num_kv_heads: int,
    kv_cache: torch.Tensor,  # [2, num_blocks, block_size, Hkv, D]
    slot_mapping: torch.Tensor,  # [T] int64; negative: write nothing
) -> torch.Tensor:  # q [T, Hq, D], as layer_reference.rope_write_kv
    num_tokens = qkv.shape[0]
    _, _, block_size, cache_kv_heads, head_dim = kv_cache.shape
    if qkv.shape[1] != (num_heads + 2 * num_kv_heads) * head_dim or cache_kv_heads != num_kv_heads:
        raise ValueError(
            f"qkv [{num_tokens}, {qkv.shape[1]}] does not hold {num_heads} q and {num_kv_heads} k/v "
            f"heads of {head_dim} for a cache of {cache_kv_heads} KV heads"
        )
    if cos_sin_cache.shape[-1] != head_dim or cos_sin_cache.stride(-1) != 1:
        raise ValueError(f"cos_sin_cache must be [max_position, {head_dim}] with unit column stride")
    q = torch.empty((num_tokens, num_heads, head_dim), dtype=qkv.dtype, device=qkv.device)
    if num_tokens == 0:
        return q
    norm = q_weight is not None and k_weight is not None
    q_w = q_weight if norm else cos_sin_cache  # unread pointers without the norm
    k_w = k_weight if norm else cos_sin_cache
    _rope_kv_kernel[(num_tokens,)](
        q,
        kv_cache,
        qkv,
        positions,
        cos_sin_cache,
        slot_mapping,
        q_w,
        k_w,
        eps,
        qkv.stride(0),
        qkv.stride(1),
        q.stride(0),
        q.stride(1),
        cos_sin_cache.stride(0),
        kv_cache.stride(0),
        kv_cache.stride(1),
        kv_cache.stride(2),
        kv_cache.stride(3),
        NUM_HEADS=num_heads,
        NUM_KV_HEADS=num_kv_heads,
        Q_PAD=triton.next_power_of_2(num_heads),
        KV_PAD=triton.next_power_of_2(num_kv_heads),
        HEAD_DIM=head_dim,
        BLOCK_SIZE=block_size,
        NORM=norm,
        num_warps=4,
        **pdl.options(qkv.device),
    )
    return q
