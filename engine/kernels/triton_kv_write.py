"""write_kv as one Triton kernel (vLLM's reshape_and_cache): program t copies token t's K and V into its cache slot.

A negative slot (vLLM's PAD_SLOT_ID = -1, a padded row) is skipped inside the kernel, so the launch never needs the
host to know which rows are real.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def _write_kv_kernel(
    k_ptr,
    v_ptr,  # [T, Hkv, D], last dim contiguous
    cache_ptr,  # [2, num_blocks, block_size, Hkv, D]
    slot_ptr,  # [T] int64
    stride_k_t,
    stride_k_h,
    stride_v_t,
    stride_v_h,
    stride_c_kv,
    stride_c_blk,
    stride_c_off,
    stride_c_h,
    NUM_KV_HEADS: tl.constexpr,
    HEADS_PAD: tl.constexpr,
    HEAD_DIM: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    t = tl.program_id(0)
    slot = tl.load(slot_ptr + t).to(tl.int64)
    if slot < 0:
        return
    blk = slot // BLOCK_SIZE
    off = slot % BLOCK_SIZE
    heads = tl.arange(0, HEADS_PAD)
    dims = tl.arange(0, HEAD_DIM)
    mask = (heads < NUM_KV_HEADS)[:, None]
    t64 = t.to(tl.int64)
    k = tl.load(k_ptr + t64 * stride_k_t + heads[:, None] * stride_k_h + dims[None, :], mask=mask)
    v = tl.load(v_ptr + t64 * stride_v_t + heads[:, None] * stride_v_h + dims[None, :], mask=mask)
    dst = cache_ptr + blk * stride_c_blk + off * stride_c_off + heads[:, None] * stride_c_h + dims[None, :]
    tl.store(dst, k.to(cache_ptr.dtype.element_ty), mask=mask)
    tl.store(dst + stride_c_kv, v.to(cache_ptr.dtype.element_ty), mask=mask)


def write_kv(
    k: torch.Tensor,  # [T, Hkv, D]
    v: torch.Tensor,  # [T, Hkv, D]
    kv_cache: torch.Tensor,  # [2, num_blocks, block_size, Hkv, D]
    slot_mapping: torch.Tensor,  # [T] int64; a negative slot is skipped
) -> None:
    num_tokens = slot_mapping.shape[0]
    if num_tokens == 0:
        return
    _, _, block_size, num_kv_heads, head_dim = kv_cache.shape
    # The kernel indexes the head dim with unit stride; q/k/v split views keep it, anything else is copied once.
    k = k if k.stride(-1) == 1 else k.contiguous()
    v = v if v.stride(-1) == 1 else v.contiguous()
    _write_kv_kernel[(num_tokens,)](
        k,
        v,
        kv_cache,
        slot_mapping,
        k.stride(0),
        k.stride(1),
        v.stride(0),
        v.stride(1),
        kv_cache.stride(0),
        kv_cache.stride(1),
        kv_cache.stride(2),
        kv_cache.stride(3),
        NUM_KV_HEADS=num_kv_heads,
        HEADS_PAD=triton.next_power_of_2(num_kv_heads),
        HEAD_DIM=head_dim,
        BLOCK_SIZE=block_size,
    )
