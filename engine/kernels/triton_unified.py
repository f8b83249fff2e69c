"""Unified paged attention: one Triton kernel for every row of a step (decode, prefill, chunked prefill).

Program (i, h) takes one block of BLOCK_Q query tokens of one sequence and KV head h. The GROUP query heads that
share KV head h are packed into the M dimension next to the tokens (row m = token m // GROUP, head m % GROUP), so
one tl.dot against a K tile serves the whole group (GQA packing). The program walks the sequence's KV blocks
through its block table with an online softmax and a causal mask offset by the cached context.

Grid size is an upper bound from host ints (T // BLOCK_Q + num_seqs): sequence b's query blocks are numbered from
cu_seqlens_q[b] // BLOCK_Q + b, so a program finds its sequence by binary search over cu_seqlens_q and programs
that fall in the gaps exit at once. Nothing is read back to the host.
"""

from __future__ import annotations

import os

import torch
import triton
import triton.language as tl

from engine.kernels import pdl
from engine.kernels.triton_paged_decode import paged_decode


@triton.jit
def find_seq(cu_q_ptr, target, num_seqs, BLOCK_Q: tl.constexpr):
    """The last sequence b whose first query block (cu_seqlens_q[b] // BLOCK_Q + b) is <= target."""
    lo: tl.int32 = 0
    hi: tl.int32 = num_seqs
    while lo < hi:
        mid = (lo + hi) // 2
        first_block = tl.load(cu_q_ptr + mid) // BLOCK_Q + mid
        if first_block <= target:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


@triton.jit(do_not_specialize=["num_seqs"])
def _unified_kernel(
    out_ptr,  # [T, Hq, D]
    q_ptr,  # [T, Hq, D]
    cache_ptr,  # [2, num_blocks, block_size, Hkv, D]
    block_tables_ptr,  # [B, max_blocks] int32
    seq_lens_ptr,  # [B] int32
    cu_q_ptr,  # [B+1] int32
    order_ptr,  # [B] int32, the sequences longest first (ONE_TOKEN_ROWS with HAS_ORDER only)
    scale,
    num_seqs,
    stride_q_t,
    stride_q_h,
    stride_o_t,
    stride_o_h,
    stride_c_kv,
    stride_c_blk,
    stride_c_off,
    stride_c_h,
    stride_bt,
    GROUP: tl.constexpr,
    HEAD_DIM: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_Q: tl.constexpr,
    TILE_N: tl.constexpr,
    PRECISION: tl.constexpr,
    ROWS: tl.constexpr,  # ALL_ROWS, or only ONE_TOKEN_ROWS (grid: one program per sequence), or MULTI_TOKEN_ROWS
    HAS_ORDER: tl.constexpr,
    USE_PDL: tl.constexpr,
):
    if USE_PDL:  # the kernel before this one may still be writing: wait for it (engine/kernels/pdl.py)
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    if ROWS == 1:  # grid (Hkv, B): a sequence's heads run side by side, sequences in order_ptr's order
        kv_head = tl.program_id(0)
        pid = tl.program_id(1)
    else:
        pid = tl.program_id(0)
        kv_head = tl.program_id(1)
    if ROWS == 1:
        if HAS_ORDER:
            seq = tl.load(order_ptr + pid)
        else:
            seq = pid
    else:
        seq = find_seq(cu_q_ptr, pid, num_seqs, BLOCK_Q)
    q_start = tl.load(cu_q_ptr + seq)
    q_len = tl.load(cu_q_ptr + seq + 1) - q_start
    if ROWS == 1:
        if q_len != 1:
            return
        q_block = 0
    else:
        if ROWS == 2:
            if q_len == 1:
                return
        q_block = pid - (q_start // BLOCK_Q + seq)
        if q_block * BLOCK_Q >= q_len:
            return
    seq_len = tl.load(seq_lens_ptr + seq)
    context = seq_len - q_len

    offs_m = tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    offs_n = tl.arange(0, TILE_N)
    q_pos = q_block * BLOCK_Q + offs_m // GROUP  # [M] token index within the sequence
    head = kv_head * GROUP + offs_m % GROUP  # [M] query head
    row_ok = (offs_m < BLOCK_Q * GROUP) & (q_pos < q_len)
    tok = (q_start + q_pos).to(tl.int64)
    q = tl.load(
        q_ptr + tok[:, None] * stride_q_t + head[:, None] * stride_q_h + offs_d[None, :],
        mask=row_ok[:, None],
        other=0.0,
    )  # [M, D]

    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    # Keys this block can see end at the position of its last real token (exclusive bound, <= seq_len).
    key_end = context + tl.minimum(q_block * BLOCK_Q + BLOCK_Q, q_len)
    k_base = cache_ptr + kv_head * stride_c_h
    table = block_tables_ptr + seq.to(tl.int64) * stride_bt
    for j in range(0, tl.cdiv(key_end, TILE_N)):
        key_pos = j * TILE_N + offs_n  # [N]
        key_ok = key_pos < seq_len
        # A tile may span several cache blocks: look each key's block up (padding entries are never loaded).
        blk = tl.load(table + key_pos // BLOCK_SIZE, mask=key_ok, other=0).to(tl.int64)
        kv_off = blk * stride_c_blk + (key_pos % BLOCK_SIZE) * stride_c_off
        k = tl.load(k_base + kv_off[None, :] + offs_d[:, None], mask=key_ok[None, :], other=0.0)  # [D, N]
        v = tl.load(k_base + stride_c_kv + kv_off[:, None] + offs_d[None, :], mask=key_ok[:, None], other=0.0)  # [N, D]
        s = tl.dot(q, k, input_precision=PRECISION) * scale  # [M, N] fp32
        visible = key_pos[None, :] <= (context + q_pos)[:, None]  # causal with offset
        s = tl.where(visible, s, float("-inf"))
        # Key 0 is visible to every row, so m_new is finite from the first tile on.
        m_new = tl.maximum(m_i, tl.max(s, 1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision=PRECISION)
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(
        out_ptr + tok[:, None] * stride_o_t + head[:, None] * stride_o_h + offs_d[None, :],
        out.to(out_ptr.dtype.element_ty),
        mask=row_ok[:, None],
    )


# A decode-only batch reads the KV cache fastest with 128-key tiles, four warps and three stages in flight: one
# program per SM holds 192 KiB of K and V in flight. On the H200, nano-like mixed contexts (256 sequences of
# 100-2048 keys, Qwen3-0.6B's shape) read 3.58 TB/s against 3.33 with 64-key tiles in a head-major cache
# (docs/device-checks/20261204-decode-tiles/attn-decode.json), and the nano workload made 26,358-26,673 output
# tok/s against 24,833-25,026 (same machine, alternating runs).
DECODE_LAUNCH = (128, 4, 3)  # TILE_N, num_warps, num_stages


def _decode_launch_from_env(default: tuple[int, int, int]) -> tuple[int, int, int]:
    """ENGINE_DECODE_LAUNCH="tile,warps,stages" replaces DECODE_LAUNCH for an A/B (read once, at import)."""
    raw = os.environ.get("ENGINE_DECODE_LAUNCH", "").strip()
    if not raw:
        return default
    try:
        tile, warps, stages = (int(x) for x in raw.split(","))
    except ValueError:
        raise ValueError(
            f"ENGINE_DECODE_LAUNCH={raw!r}: give three integers, tile,warps,stages (e.g. 64,4,3)"
        ) from None
    return tile, warps, stages


DECODE_LAUNCH = _decode_launch_from_env(DECODE_LAUNCH)


def _prefill_launch_from_env() -> tuple[int, int, int, int] | None:
    """ENGINE_PREFILL_LAUNCH="rows,tile,warps,stages" for the launch of prefill rows (an A/B switch, read at
    import); unset: block_m_for's rows, tile_n's keys and Triton's defaults."""
    raw = os.environ.get("ENGINE_PREFILL_LAUNCH", "").strip()
    if not raw:
        return None
    try:
        rows, tile, warps, stages = (int(x) for x in raw.split(","))
    except ValueError:
        raise ValueError(
            f"ENGINE_PREFILL_LAUNCH={raw!r}: give four integers, rows,tile,warps,stages (e.g. 128,64,8,3)"
        ) from None
    return rows, tile, warps, stages


PREFILL_LAUNCH = _prefill_launch_from_env()

ALL_ROWS, ONE_TOKEN_ROWS, MULTI_TOKEN_ROWS = 0, 1, 2
# A mixed step (prefill chunks beside decode rows) runs its one-token rows in a launch of their own with
# DECODE_LAUNCH, instead of in the prefill launch's 64-row programs and 32-key tiles. ENGINE_SPLIT_MIXED=0 turns
# that off (an A/B switch, read at import).
SPLIT_MIXED = os.environ.get("ENGINE_SPLIT_MIXED", "1").strip() != "0"
# A decode-only batch runs one program per (sequence, KV head), the longest sequences first when the metadata
# gives decode_order: a launch then ends on short programs instead of a lone long one. ENGINE_DECODE_ORDER=0 runs
# the batch-order unified grid instead (an A/B switch, read at import).
DECODE_ORDER = os.environ.get("ENGINE_DECODE_ORDER", "1").strip() != "0"
# The one-token rows' launch runs this module's kernel; ENGINE_DECODE_KERNEL=paged runs triton_paged_decode's
# (unmasked full tiles, one offset layout for K and V, base-2 softmax) instead (an A/B switch, read at import).
# Measured on an H100 (docs/device-checks/20261205-decode-kernel/): the paged kernel is 3% faster at 48 rows and
# 1-2% slower at 234-256, and the nano workload ran 0.9% (Qwen3-0.6B) and 0.7% (Qwen3-4B) slower with it.
DECODE_KERNEL = os.environ.get("ENGINE_DECODE_KERNEL", "unified").strip() or "unified"
if DECODE_KERNEL not in ("paged", "unified"):
    raise ValueError(f"ENGINE_DECODE_KERNEL={DECODE_KERNEL!r}: give paged or unified")


def tile_n(block_size: int) -> int:
    """Keys per inner-loop step: at least 32 so each step has enough loads in flight, at least one cache block."""
    return max(32, block_size)


def block_m_for(group: int, max_seqlen_q: int) -> int:
    """Packed rows per program: >= 16 (tl.dot's minimum on GPU) and >= GROUP; 64 when prefill rows can fill it."""
    small = max(16, triton.next_power_of_2(group))
    return max(small, 64) if max_seqlen_q * group >= 64 else small


def unified_attention(
    q: torch.Tensor,  # [T, Hq, D]
    cache: torch.Tensor,  # [2, num_blocks, block_size, Hkv, D]
    block_tables: torch.Tensor,  # [B, max_blocks] int32
    seq_lens: torch.Tensor,  # [B] int32
    cu_seqlens_q: torch.Tensor,  # [B+1] int32
    max_seqlen_q: int,
    scale: float,
    out: torch.Tensor,
    *,
    tile: int | None = None,
    num_warps: int | None = None,
    num_stages: int | None = None,
    split_mixed: bool | None = None,
    order: torch.Tensor | None = None,
    block_m: int | None = None,
) -> None:
    """tile/num_warps/num_stages/block_m override the launch configuration (tools/device_attn_sweep.py measures
    them): of the whole batch when it is decode-only, of its longer rows otherwise.

    A batch with prefill rows (max_seqlen_q > 1) takes two launches when split_mixed (default SPLIT_MIXED, on GPU
    only: the CPU interpreter runs one program at a time): its one-token rows with the decode configuration, one
    program per sequence, then its longer rows (PREFILL_LAUNCH or an override). Neither launch reads a row's length
    on the host: each program checks its own sequence's q_len on the device and returns if the row is not its kind.
    `order` (AttentionMetadata.decode_order) is the order the one-token rows' programs start in.
    """
    explicit = tile is not None or num_warps is not None or num_stages is not None or block_m is not None
    d_tile, d_warps, d_stages = DECODE_LAUNCH
    decode = (max(d_tile, cache.shape[2]), d_warps, d_stages)
    if max_seqlen_q == 1:
        if DECODE_ORDER and not explicit and DECODE_KERNEL == "paged":
            paged_decode(q, cache, block_tables, seq_lens, cu_seqlens_q, scale, out, order, *decode)
            return
        launch = (tile, num_warps, num_stages) if explicit else decode
        rows = ONE_TOKEN_ROWS if DECODE_ORDER else ALL_ROWS
        _launch(q, cache, block_tables, seq_lens, cu_seqlens_q, 1, scale, out, *launch, rows, order, block_m)
        return
    if explicit:
        prefill: tuple[int | None, ...] = (block_m, tile, num_warps, num_stages)
    else:
        prefill = PREFILL_LAUNCH or (None, None, None, None)
    p_rows, p_tile, p_warps, p_stages = prefill
    if split_mixed is None:
        split_mixed = SPLIT_MIXED and q.device.type == "cuda"
    if split_mixed:
        if DECODE_KERNEL == "paged":
            paged_decode(q, cache, block_tables, seq_lens, cu_seqlens_q, scale, out, order, *decode)
        else:
            _launch(q, cache, block_tables, seq_lens, cu_seqlens_q, 1, scale, out, *decode, ONE_TOKEN_ROWS, order)
    rows = MULTI_TOKEN_ROWS if split_mixed else ALL_ROWS
    _launch(
        q,
        cache,
        block_tables,
        seq_lens,
        cu_seqlens_q,
        max_seqlen_q,
        scale,
        out,
        p_tile,
        p_warps,
        p_stages,
        rows,
        None,
        p_rows,
    )


def _launch(
    q: torch.Tensor,
    cache: torch.Tensor,
    block_tables: torch.Tensor,
    seq_lens: torch.Tensor,
    cu_seqlens_q: torch.Tensor,
    max_seqlen_q: int,
    scale: float,
    out: torch.Tensor,
    tile: int | None,
    num_warps: int | None,
    num_stages: int | None,
    rows: int,
    order: torch.Tensor | None = None,
    block_m: int | None = None,
) -> None:
    num_tokens, num_heads, head_dim = q.shape
    _, _, block_size, num_kv_heads, _ = cache.shape
    num_seqs = seq_lens.shape[0]
    group = num_heads // num_kv_heads
    block_m = block_m or block_m_for(group, max_seqlen_q)
    block_q = block_m // group
    if rows == ONE_TOKEN_ROWS:
        grid = (num_kv_heads, num_seqs)
    else:
        grid = (num_tokens // block_q + num_seqs, num_kv_heads)
    _unified_kernel[grid](
        out,
        q,
        cache,
        block_tables,
        seq_lens,
        cu_seqlens_q,
        order if order is not None and rows == ONE_TOKEN_ROWS else cu_seqlens_q,
        scale,
        num_seqs,
        q.stride(0),
        q.stride(1),
        out.stride(0),
        out.stride(1),
        cache.stride(0),
        cache.stride(1),
        cache.stride(2),
        cache.stride(3),
        block_tables.stride(0),
        GROUP=group,
        HEAD_DIM=head_dim,
        BLOCK_SIZE=block_size,
        BLOCK_M=block_m,
        BLOCK_Q=block_q,
        TILE_N=tile or tile_n(block_size),
        PRECISION="ieee" if cache.dtype == torch.float32 else "tf32",
        ROWS=rows,
        HAS_ORDER=order is not None and rows == ONE_TOKEN_ROWS,
        **launch_options(num_warps, num_stages),
        **pdl.options(q.device),
    )


def launch_options(num_warps: int | None, num_stages: int | None) -> dict[str, int]:
    """Triton's defaults unless a caller measured better."""
    return {k: v for k, v in (("num_warps", num_warps), ("num_stages", num_stages)) if v is not None}
