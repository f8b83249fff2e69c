"""Split-KV decode: for batches where every sequence has one new token, each (sequence, KV head) is cut into
NUM_SEGMENTS slices of its KV blocks run by separate programs, then a small kernel merges the partial softmaxes.

The unified kernel gives a decode batch num_seqs * Hkv programs, each walking the whole context alone; with few
sequences that leaves most SMs idle. Splitting the context multiplies the programs by NUM_SEGMENTS.

CUDA graphs can capture it: the grid and the workspace depend on host ints only (num_seqs, heads, NUM_SEGMENTS);
each program reads its sequence's length from seq_lens on the device and takes its share of the tiles, so a
segment past a short context is empty (max -inf, sum 0) and weighs nothing in the merge.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from engine.kernels import pdl

from engine.kernels.decode_split import NUM_SEGMENTS, SPLIT_LAUNCH
from engine.kernels.triton_paged_decode import LOG2E, _tile
from engine.kernels.triton_unified import DECODE_KERNEL, launch_options, tile_n


@triton.jit
def _decode_segment_kernel(
    part_out_ptr,  # [T, Hq, NUM_SEGMENTS, D] fp32, unnormalised
    part_max_ptr,  # [T, Hq, NUM_SEGMENTS] fp32
    part_sum_ptr,  # [T, Hq, NUM_SEGMENTS] fp32
    q_ptr,  # [T, Hq, D]
    cache_ptr,  # [2, num_blocks, block_size, Hkv, D]
    block_tables_ptr,  # [B, max_blocks] int32
    seq_lens_ptr,  # [B] int32
    cu_q_ptr,  # [B+1] int32
    scale,
    stride_q_t,
    stride_q_h,
    stride_c_kv,
    stride_c_blk,
    stride_c_off,
    stride_c_h,
    stride_bt,
    GROUP: tl.constexpr,
    HEAD_DIM: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
    BLOCK_M: tl.constexpr,
    TILE_N: tl.constexpr,
    NUM_SEGMENTS: tl.constexpr,
    PRECISION: tl.constexpr,
    FAST: tl.constexpr,  # the paged decode kernel's tiles (scale then carries log2(e)); else the unified kernel's
    USE_PDL: tl.constexpr,
):
    if USE_PDL:  # the kernel before this one may still be writing: wait for it (engine/kernels/pdl.py)
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    seq = tl.program_id(0)
    kv_head = tl.program_id(1)
    segment = tl.program_id(2)
    tok = tl.load(cu_q_ptr + seq)
    if tl.load(cu_q_ptr + seq + 1) == tok:  # a sequence with no new token this step
        return
    seq_len = tl.load(seq_lens_ptr + seq)
    num_tiles = tl.cdiv(seq_len, TILE_N)
    per_segment = tl.cdiv(num_tiles, NUM_SEGMENTS)
    first = segment * per_segment
    last = tl.minimum(first + per_segment, num_tiles)

    offs_m = tl.arange(0, BLOCK_M)  # rows = the group's query heads, padded to >= 16
    offs_d = tl.arange(0, HEAD_DIM)
    offs_n = tl.arange(0, TILE_N)
    row_ok = offs_m < GROUP
    head = kv_head * GROUP + offs_m
    tok64 = tok.to(tl.int64)
    q = tl.load(
        q_ptr + tok64 * stride_q_t + head[:, None] * stride_q_h + offs_d[None, :], mask=row_ok[:, None], other=0.0
    )  # [M, D]
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    k_base = cache_ptr + kv_head * stride_c_h
    table = block_tables_ptr + seq.to(tl.int64) * stride_bt
    if FAST:  # triton_paged_decode's tiles: full ones unmasked, the partial one masked; maxima in base 2
        full = tl.maximum(first, tl.minimum(last, seq_len // TILE_N))  # tiles [first, full) hold no end
        for j in range(first, full):
            m_i, l_i, acc = _tile(
                m_i, l_i, acc, q, k_base, k_base + stride_c_kv, table, j, seq_len, scale, stride_c_blk,
                stride_c_off, BLOCK_SIZE, HEAD_DIM, TILE_N, PRECISION, False, True,
            )  # fmt: skip
        if full < last:
            m_i, l_i, acc = _tile(
                m_i, l_i, acc, q, k_base, k_base + stride_c_kv, table, full, seq_len, scale, stride_c_blk,
                stride_c_off, BLOCK_SIZE, HEAD_DIM, TILE_N, PRECISION, True, True,
            )  # fmt: skip
    else:
        for j in range(first, last):
            key_pos = j * TILE_N + offs_n
            key_ok = key_pos < seq_len  # the new token is the last: every earlier key is visible
            blk = tl.load(table + key_pos // BLOCK_SIZE, mask=key_ok, other=0).to(tl.int64)
            kv_off = blk * stride_c_blk + (key_pos % BLOCK_SIZE) * stride_c_off
            k = tl.load(k_base + kv_off[None, :] + offs_d[:, None], mask=key_ok[None, :], other=0.0)  # [D, N]
            v = tl.load(k_base + stride_c_kv + kv_off[:, None] + offs_d[None, :], mask=key_ok[:, None], other=0.0)
            s = tl.dot(q, k, input_precision=PRECISION) * scale
            s = tl.where(key_ok[None, :], s, float("-inf"))
            # Key j * TILE_N < seq_len is real, so m_new is finite from a segment's first tile on.
            m_new = tl.maximum(m_i, tl.max(s, 1))
            alpha = tl.exp(m_i - m_new)
            p = tl.exp(s - m_new[:, None])
            l_i = l_i * alpha + tl.sum(p, 1)
            acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision=PRECISION)
            m_i = m_new
    # An empty segment (short context) stores max -inf and sum 0: the merge gives it weight 0.
    part = (tok64 * (GROUP * tl.num_programs(1)) + head) * NUM_SEGMENTS + segment  # [M]
    tl.store(part_max_ptr + part, m_i, mask=row_ok)
    tl.store(part_sum_ptr + part, l_i, mask=row_ok)
    tl.store(part_out_ptr + part[:, None] * HEAD_DIM + offs_d[None, :], acc, mask=row_ok[:, None])


@triton.jit
def _merge_segments_kernel(
    out_ptr,  # [T, Hq, D]
    part_out_ptr,
    part_max_ptr,
    part_sum_ptr,
    cu_q_ptr,
    stride_o_t,
    stride_o_h,
    HEAD_DIM: tl.constexpr,
    NUM_SEGMENTS: tl.constexpr,
    BASE2: tl.constexpr,  # the segments' maxima are in base 2 (FAST segments)
    USE_PDL: tl.constexpr,
):
    if USE_PDL:  # the kernel before this one may still be writing: wait for it (engine/kernels/pdl.py)
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    seq = tl.program_id(0)
    head = tl.program_id(1)
    tok = tl.load(cu_q_ptr + seq)
    if tl.load(cu_q_ptr + seq + 1) == tok:
        return
    tok64 = tok.to(tl.int64)
    segs = tl.arange(0, NUM_SEGMENTS)
    offs_d = tl.arange(0, HEAD_DIM)
    base = (tok64 * tl.num_programs(1) + head) * NUM_SEGMENTS
    seg_max = tl.load(part_max_ptr + base + segs)  # [S]
    seg_sum = tl.load(part_sum_ptr + base + segs)
    top = tl.max(seg_max, 0)  # segment 0 always holds key 0: finite
    if BASE2:
        weight = tl.exp2(seg_max - top)  # exp2(-inf) = 0 for empty segments
    else:
        weight = tl.exp(seg_max - top)
    seg_out = tl.load(part_out_ptr + (base + segs)[:, None] * HEAD_DIM + offs_d[None, :])  # [S, D]
    out = tl.sum(seg_out * weight[:, None], 0) / tl.sum(seg_sum * weight, 0)
    tl.store(out_ptr + tok64 * stride_o_t + head * stride_o_h + offs_d, out.to(out_ptr.dtype.element_ty))


def split_kv_decode(
    q: torch.Tensor,  # [T, Hq, D], one token per sequence (T <= B)
    cache: torch.Tensor,  # [2, num_blocks, block_size, Hkv, D]
    block_tables: torch.Tensor,  # [B, max_blocks] int32
    seq_lens: torch.Tensor,  # [B] int32
    cu_seqlens_q: torch.Tensor,  # [B+1] int32
    scale: float,
    out: torch.Tensor,
    *,
    segments: int = NUM_SEGMENTS,
    tile: int | None = None,
    num_warps: int | None = None,
    num_stages: int | None = None,
    fast: bool | None = None,
) -> None:
    """segments/tile/num_warps/num_stages override the launch configuration (tools/device_attn_sweep.py); `fast`
    picks the segments' tile loop (the paged decode kernel's with ENGINE_DECODE_KERNEL=paged, else the unified one's)."""
    if fast is None:
        fast = DECODE_KERNEL == "paged"
    if SPLIT_LAUNCH is not None and tile is None and num_warps is None and num_stages is None:
        tile, num_warps, num_stages = SPLIT_LAUNCH
        tile = max(tile, cache.shape[2])
    num_tokens, num_heads, head_dim = q.shape
    _, _, block_size, num_kv_heads, _ = cache.shape
    num_seqs = seq_lens.shape[0]
    group = num_heads // num_kv_heads
    part_out = torch.empty(num_tokens, num_heads, segments, head_dim, dtype=torch.float32, device=q.device)
    part_max = torch.empty(num_tokens, num_heads, segments, dtype=torch.float32, device=q.device)
    part_sum = torch.empty_like(part_max)
    _decode_segment_kernel[(num_seqs, num_kv_heads, segments)](
        part_out,
        part_max,
        part_sum,
        q,
        cache,
        block_tables,
        seq_lens,
        cu_seqlens_q,
        scale * LOG2E if fast else scale,
        q.stride(0),
        q.stride(1),
        cache.stride(0),
        cache.stride(1),
        cache.stride(2),
        cache.stride(3),
        block_tables.stride(0),
        GROUP=group,
        HEAD_DIM=head_dim,
        BLOCK_SIZE=block_size,
        BLOCK_M=max(16, triton.next_power_of_2(group)),
        TILE_N=tile or tile_n(block_size),
        NUM_SEGMENTS=segments,
        PRECISION="ieee" if cache.dtype == torch.float32 else "tf32",
        FAST=fast,
        **launch_options(num_warps, num_stages),
        **pdl.options(q.device),
    )
    _merge_segments_kernel[(num_seqs, num_heads)](
        out,
        part_out,
        part_max,
        part_sum,
        cu_seqlens_q,
        out.stride(0),
        out.stride(1),
        HEAD_DIM=head_dim,
        NUM_SEGMENTS=segments,
        BASE2=fast,
        **pdl.options(q.device),
    )
