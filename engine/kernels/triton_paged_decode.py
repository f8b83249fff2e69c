"""Paged decode attention: the one-token rows of a step, one program per (KV head, sequence), longest first.

The unified kernel (triton_unified.py) serves every row kind with one body: each key tile is masked for the
sequence's end and for causality, K is gathered as [D, N] and V as [N, D] (two address layouts a tile), and the
softmax uses exp. A one-token row needs none of that on its full tiles: every key before seq_len is visible. This
kernel walks the full tiles unmasked, K and V gathered with the same [N, D] offsets (K transposed for the dot), the
softmax in base 2 with log2(e) folded into the scale, and only the last, partial tile masked. Same grid, order,
cache layouts and outputs as the unified kernel's ONE_TOKEN_ROWS launch; rows with more than one query token are
left to it (the program returns).

K_ROWS and TAIL switch the two changes off one at a time, for tools/device_attn_sweep.py's A/B.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from engine.kernels import pdl

LOG2E = 1.4426950408889634


@triton.jit
def _tile(
    m_i,
    l_i,
    acc,
    q,
    k_base,
    v_base,
    table,
    j,
    seq_len,
    qk_scale,
    stride_c_blk,
    stride_c_off,
    BLOCK_SIZE: tl.constexpr,
    HEAD_DIM: tl.constexpr,
    TILE_N: tl.constexpr,
    PRECISION: tl.constexpr,
    MASKED: tl.constexpr,
    K_ROWS: tl.constexpr,
):
    """One tile of TILE_N keys folded into the online softmax (base 2)."""
    offs_n = tl.arange(0, TILE_N)
    offs_d = tl.arange(0, HEAD_DIM)
    key_pos = j * TILE_N + offs_n
    if MASKED:
        key_ok = key_pos < seq_len
        blk = tl.load(table + key_pos // BLOCK_SIZE, mask=key_ok, other=0).to(tl.int64)
    else:
        blk = tl.load(table + key_pos // BLOCK_SIZE).to(tl.int64)
    kv_off = blk * stride_c_blk + (key_pos % BLOCK_SIZE) * stride_c_off
    if K_ROWS:  # K as [N, D], the offsets V uses too; the dot reads it transposed
        if MASKED:
            k = tl.load(k_base + kv_off[:, None] + offs_d[None, :], mask=key_ok[:, None], other=0.0)
        else:
            k = tl.load(k_base + kv_off[:, None] + offs_d[None, :])
        s = tl.dot(q, tl.trans(k), input_precision=PRECISION) * qk_scale
    else:
        if MASKED:
            k = tl.load(k_base + kv_off[None, :] + offs_d[:, None], mask=key_ok[None, :], other=0.0)
        else:
            k = tl.load(k_base + kv_off[None, :] + offs_d[:, None])
        s = tl.dot(q, k, input_precision=PRECISION) * qk_scale
    if MASKED:
        v = tl.load(v_base + kv_off[:, None] + offs_d[None, :], mask=key_ok[:, None], other=0.0)
        s = tl.where(key_ok[None, :], s, float("-inf"))
    else:
        v = tl.load(v_base + kv_off[:, None] + offs_d[None, :])
    m_new = tl.maximum(m_i, tl.max(s, 1))
    alpha = tl.exp2(m_i - m_new)
    p = tl.exp2(s - m_new[:, None])
    l_i = l_i * alpha + tl.sum(p, 1)
    acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision=PRECISION)
    return m_new, l_i, acc


@triton.jit(do_not_specialize=["num_seqs"])
def _paged_decode_kernel(
    out_ptr,  # [T, Hq, D]
    q_ptr,  # [T, Hq, D]
    cache_ptr,  # [2, num_blocks, block_size, Hkv, D] (any memory order: strides)
    block_tables_ptr,  # [B, max_blocks] int32
    seq_lens_ptr,  # [B] int32
    cu_q_ptr,  # [B+1] int32
    order_ptr,  # [B] int32, the sequences longest first (HAS_ORDER)
    qk_scale,  # softmax scale * log2(e)
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
    TILE_N: tl.constexpr,
    PRECISION: tl.constexpr,
    HAS_ORDER: tl.constexpr,
    K_ROWS: tl.constexpr,
    TAIL: tl.constexpr,
    USE_PDL: tl.constexpr,
):
    if USE_PDL:  # the kernel before this one may still be writing: wait for it (engine/kernels/pdl.py)
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    kv_head = tl.program_id(0)
    if HAS_ORDER:
        seq = tl.load(order_ptr + tl.program_id(1))
    else:
        seq = tl.program_id(1)
    tok = tl.load(cu_q_ptr + seq)
    if tl.load(cu_q_ptr + seq + 1) - tok != 1:
        return
    seq_len = tl.load(seq_lens_ptr + seq)

    offs_m = tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    row_ok = offs_m < GROUP
    head = kv_head * GROUP + offs_m % GROUP
    tok64 = tok.to(tl.int64)
    q = tl.load(
        q_ptr + tok64 * stride_q_t + head[:, None] * stride_q_h + offs_d[None, :], mask=row_ok[:, None], other=0.0
    )
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    k_base = cache_ptr + kv_head * stride_c_h
    v_base = k_base + stride_c_kv
    table = block_tables_ptr + seq.to(tl.int64) * stride_bt
    if TAIL:  # full tiles unmasked, then the partial one (if any) masked
        full = seq_len // TILE_N
        for j in range(0, full):
            m_i, l_i, acc = _tile(
                m_i, l_i, acc, q, k_base, v_base, table, j, seq_len, qk_scale, stride_c_blk, stride_c_off,
                BLOCK_SIZE, HEAD_DIM, TILE_N, PRECISION, False, K_ROWS,
            )  # fmt: skip
        if full * TILE_N < seq_len:
            m_i, l_i, acc = _tile(
                m_i, l_i, acc, q, k_base, v_base, table, full, seq_len, qk_scale, stride_c_blk, stride_c_off,
                BLOCK_SIZE, HEAD_DIM, TILE_N, PRECISION, True, K_ROWS,
            )  # fmt: skip
    else:
        for j in range(0, tl.cdiv(seq_len, TILE_N)):
            m_i, l_i, acc = _tile(
                m_i, l_i, acc, q, k_base, v_base, table, j, seq_len, qk_scale, stride_c_blk, stride_c_off,
                BLOCK_SIZE, HEAD_DIM, TILE_N, PRECISION, True, K_ROWS,
            )  # fmt: skip
    out = acc / l_i[:, None]
    tl.store(
        out_ptr + tok64 * stride_o_t + head[:, None] * stride_o_h + offs_d[None, :],
        out.to(out_ptr.dtype.element_ty),
        mask=row_ok[:, None],
    )


def paged_decode(
    q: torch.Tensor,  # [T, Hq, D]
    cache: torch.Tensor,  # [2, num_blocks, block_size, Hkv, D]
    block_tables: torch.Tensor,  # [B, max_blocks] int32
    seq_lens: torch.Tensor,  # [B] int32
    cu_seqlens_q: torch.Tensor,  # [B+1] int32
    scale: float,
    out: torch.Tensor,
    order: torch.Tensor | None = None,
    tile: int = 128,
    num_warps: int | None = 4,
    num_stages: int | None = 3,
    *,
    k_rows: bool = True,
    tail: bool = True,
) -> None:
    """Attention of every one-token row of the step into `out` (rows of more tokens are not written)."""
    _, num_heads, head_dim = q.shape
    _, _, block_size, num_kv_heads, _ = cache.shape
    num_seqs = seq_lens.shape[0]
    group = num_heads // num_kv_heads
    _paged_decode_kernel[(num_kv_heads, num_seqs)](
        out,
        q,
        cache,
        block_tables,
        seq_lens,
        cu_seqlens_q,
        order if order is not None else cu_seqlens_q,
        scale * LOG2E,
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
        BLOCK_M=max(16, triton.next_power_of_2(group)),
        TILE_N=tile,
        PRECISION="ieee" if cache.dtype == torch.float32 else "tf32",
        HAS_ORDER=order is not None,
        K_ROWS=k_rows,
        TAIL=tail,
        **{k: v for k, v in (("num_warps", num_warps), ("num_stages", num_stages)) if v is not None},
        **pdl.options(q.device),
    )
