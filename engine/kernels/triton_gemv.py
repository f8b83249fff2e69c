"""y = x W^T (+ b) for the few rows of a small decode batch: one Triton kernel that streams W once.

At batch 1-4 a decoder layer's GEMMs are matrix-vector products bound by reading W, and cuBLAS reads some shapes
slowly: Qwen3-0.6B's o_proj [1, 2048] x [1024, 2048]^T took it 12.4 us (0.34 TB/s of W) on an H200, this kernel
2.6 us (docs/device-checks/20261203-gemv-sweep). Each program owns BLOCK_N output columns (rows of W) over the
whole K, so no split-K reduction is needed, and reads every row of W in BLOCK_K-long contiguous runs; launch_shape
picks the tile, or cuBLAS, by the shape, as measured. Accumulates in float32 and rounds once, as cuBLAS does; not
bit-identical to it (another summation order).
"""

from __future__ import annotations

import os

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from engine.kernels import pdl
from engine.kernels.triton_act import silu_and_mul
from engine.kernels.triton_norm import rms_norm


MAX_ROWS = 4  # above this, cuBLAS's tensor-core GEMMs win: the weights are read once for more rows
# The dispatch below follows docs/device-checks/20261203-gemv-sweep (H200, tiles timed inside CUDA graphs against
# F.linear on Qwen3-0.6B's and Qwen3-4B's layer GEMMs). At one row this kernel beat cuBLAS on every "narrow" weight
# (N <= K: o_proj, down_proj; cuBLAS read 0.6B's o_proj at 0.34 TB/s, 4B's down_proj at 3.1 TB/s against 3.8 here)
# and on wide ones up to 16 MiB (0.6B's qkv and gate_up, by ~10%); cuBLAS won on 4B's wide qkv and gate_up (8.7 and
# 28.5 us against 9.3 and 29.9). At four rows only the small narrow weights still won (0.6B's o_proj 3.7 us against
# 8.0); five to eight rows were not measured, so they stay on cuBLAS.
# ENGINE_GEMV_WIDE_MIB moves that 16 MiB limit for an A/B (read once, at import).
MAX_WEIGHT_BYTES = int(os.environ.get("ENGINE_GEMV_WIDE_MIB", "16")) << 20
# A GEMV with the RMSNorm (and for gate_up the SiLU * up) fused in saves a kernel and a round trip of its input. On a
# wide weight over the limit that did not pay at one row: in an H100's Qwen3-4B batch-1 step the fused GEMV on the
# wide qkv and gate_up made the step 3.895 ms against 3.739 on cuBLAS plus the separate norm, though each fused GEMV
# timed alone had beaten the pair it replaces (docs/device-checks/20261206-b1-act-gemv). ENGINE_GEMV_FUSED_WIDE=1
# lets a fused GEMV take wide weights of any size at one row (an A/B; read at import).
FUSED_WIDE = os.environ.get("ENGINE_GEMV_FUSED_WIDE", "0").strip().lower() in ("1", "true", "on", "yes")
# ENGINE_GEMV_FUSED_WIDE_TILE="BLOCK_N,BLOCK_K": the tile of such a fused wide GEMV (an A/B; read at import).
_WIDE_TILE_ENV = os.environ.get("ENGINE_GEMV_FUSED_WIDE_TILE", "").strip()
FUSED_WIDE_TILE = tuple(int(v) for v in _WIDE_TILE_ENV.split(",")) if _WIDE_TILE_ENV else None
# Under PDL a GEMV lets the next kernel launch as soon as every program has started (after its wait), or, with
# ENGINE_GEMV_PDL_LATE=1, once every program has finished its product (an A/B; read at import).
PDL_LATE = os.environ.get("ENGINE_GEMV_PDL_LATE", "0").strip().lower() in ("1", "true", "on", "yes")
DTYPES = (torch.bfloat16, torch.float16)  # float32 stays on cuBLAS (exact-parity runs use float32)


@triton.jit
def _x_raw(x_rows, r_rows, k, k_ok, m_ok, HAS_RESIDUAL: tl.constexpr, dtype: tl.constexpr):
    """Columns k of the GEMV's input rows as float32: x, or x + residual rounded to the activation dtype (the
    residual stream triton_norm's kernel writes)."""
    mask = m_ok[:, None] & k_ok[None, :]
    xv = tl.load(x_rows + k[None, :], mask=mask, other=0.0).to(tl.float32)
    if HAS_RESIDUAL:
        xv = (xv + tl.load(r_rows + k[None, :], mask=mask, other=0.0).to(tl.float32)).to(dtype).to(tl.float32)
    return xv


@triton.jit
def _normed(xv, rstd, nw_ptr, k, k_ok, dtype: tl.constexpr):
    """xv RMS-normalised with `rstd` and scaled by the norm weight, rounded wherever triton_norm's kernel rounds: the
    product is the one the separate norm kernel and this GEMV give."""
    gamma = tl.load(nw_ptr + k, mask=k_ok, other=0.0).to(tl.float32)
    return (gamma[None, :] * (xv * rstd[:, None]).to(dtype).to(tl.float32)).to(dtype).to(tl.float32)


@triton.jit
def _gemv_kernel(
    y_ptr,  # [M, N]
    x_ptr,  # [M, K]
    w_ptr,  # [N, K], unit stride along K
    wu_ptr,  # ACT: the up half's [N, K] (rows N.. of the packed weight), else a dummy
    b_ptr,  # [N] or a dummy
    r_ptr,  # [M, K] residual in (HAS_RESIDUAL) or a dummy
    r_out_ptr,  # [M, K] x + residual out (HAS_RESIDUAL; program 0 writes it) or a dummy
    nw_ptr,  # [K] RMSNorm weight (NORM) or a dummy
    eps,
    M,
    N,
    K,
    stride_xm,
    stride_wn,
    stride_ym,
    stride_rm,
    stride_rom,
    HAS_BIAS: tl.constexpr,
    EVEN_K: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    NORM: tl.constexpr,
    HAS_RESIDUAL: tl.constexpr,
    SINGLE_K: tl.constexpr,
    ACT: tl.constexpr,
    LATE_LAUNCH: tl.constexpr,
    USE_PDL: tl.constexpr,
):
    # ACT: W is a packed gate | up projection of 2 N rows; a program owns the same BLOCK_N columns of both halves and
    # writes SiLU(gate) * up ([M, N]) as triton_act would from the rounded [M, 2 N] product: no second kernel.
    dtype: tl.constexpr = y_ptr.dtype.element_ty
    offs_n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_m = tl.arange(0, BLOCK_M)
    offs_k = tl.arange(0, BLOCK_K)
    n_ok = offs_n < N
    m_ok = offs_m < M
    w_rows = w_ptr + offs_n.to(tl.int64)[:, None] * stride_wn
    x_rows = x_ptr + offs_m.to(tl.int64)[:, None] * stride_xm
    r_rows = r_ptr + offs_m.to(tl.int64)[:, None] * stride_rm
    # The first K slice of W is read before waiting on the kernel before this one (weights are never written by a
    # step's kernels, engine/kernels/pdl.py): the stream of W starts while that kernel finishes.
    u_rows = wu_ptr + offs_n.to(tl.int64)[:, None] * stride_wn
    w_mask = n_ok[:, None] if EVEN_K else n_ok[:, None] & (offs_k < K)[None, :]
    w = tl.load(w_rows + offs_k[None, :], mask=w_mask, other=0.0)
    if ACT:
        wu = tl.load(u_rows + offs_k[None, :], mask=w_mask, other=0.0)
    if USE_PDL:
        tl.extra.cuda.gdc_wait()
        if not LATE_LAUNCH:
            tl.extra.cuda.gdc_launch_dependents()
    rstd = tl.zeros([BLOCK_M], dtype=tl.float32)
    k_ok = offs_k < K
    if NORM:
        if SINGLE_K:  # the whole row in one slice: loaded once for its RMS and for the product
            xv = _x_raw(x_rows, r_rows, offs_k, k_ok, m_ok, HAS_RESIDUAL, dtype)
            if HAS_RESIDUAL:
                if tl.program_id(0) == 0:
                    out = r_out_ptr + offs_m.to(tl.int64)[:, None] * stride_rom + offs_k[None, :]
                    tl.store(out, xv.to(dtype), mask=m_ok[:, None] & k_ok[None, :])
            rstd = tl.rsqrt(tl.sum(xv * xv, axis=1) / K + eps)
        else:  # a first pass over the input rows (a few KiB, from L2) for each row's RMS
            sq = tl.zeros([BLOCK_M], dtype=tl.float32)
            for k0 in range(0, K, BLOCK_K):
                k = k0 + offs_k
                xv = _x_raw(x_rows, r_rows, k, k < K, m_ok, HAS_RESIDUAL, dtype)
                sq += tl.sum(xv * xv, axis=1)
                if HAS_RESIDUAL:
                    if tl.program_id(0) == 0:
                        out = r_out_ptr + offs_m.to(tl.int64)[:, None] * stride_rom + k[None, :]
                        tl.store(out, xv.to(dtype), mask=m_ok[:, None] & (k < K)[None, :])
            rstd = tl.rsqrt(sq / K + eps)
            xv = _x_raw(x_rows, r_rows, offs_k, k_ok, m_ok, HAS_RESIDUAL, dtype)
        xv = _normed(xv, rstd, nw_ptr, offs_k, k_ok, dtype)
    else:
        xv = _x_raw(x_rows, r_rows, offs_k, k_ok, m_ok, False, dtype)
    acc = tl.sum(xv[:, None, :] * w.to(tl.float32)[None, :, :], axis=2)
    acc_u = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    if ACT:
        acc_u = tl.sum(xv[:, None, :] * wu.to(tl.float32)[None, :, :], axis=2)
    for k0 in range(BLOCK_K, K, BLOCK_K):
        k = k0 + offs_k
        w_mask = n_ok[:, None] if EVEN_K else n_ok[:, None] & (k < K)[None, :]
        w = tl.load(w_rows + k[None, :], mask=w_mask, other=0.0)
        if ACT:
            wu = tl.load(u_rows + k[None, :], mask=w_mask, other=0.0)
        xv = _x_raw(x_rows, r_rows, k, k < K, m_ok, HAS_RESIDUAL, dtype)
        if NORM:
            xv = _normed(xv, rstd, nw_ptr, k, k < K, dtype)
        acc += tl.sum(xv[:, None, :] * w.to(tl.float32)[None, :, :], axis=2)
        if ACT:
            acc_u += tl.sum(xv[:, None, :] * wu.to(tl.float32)[None, :, :], axis=2)
    if HAS_BIAS:
        acc += tl.load(b_ptr + offs_n, mask=n_ok, other=0.0).to(tl.float32)[None, :]
    if ACT:  # rounded where the [M, 2 N] product and triton_act round
        gate = acc.to(dtype).to(tl.float32)
        silu = (gate / (1.0 + tl.exp(-gate))).to(dtype).to(tl.float32)
        acc = silu * acc_u.to(dtype).to(tl.float32)
    if USE_PDL and LATE_LAUNCH:  # the next kernel's programs take no SM slot while this grid's later waves run
        tl.extra.cuda.gdc_launch_dependents()
    y = y_ptr + offs_m.to(tl.int64)[:, None] * stride_ym + offs_n[None, :]
    tl.store(y, acc.to(dtype), mask=m_ok[:, None] & n_ok[None, :])


def launch_shape(m: int, n: int, k: int, weight_bytes: int, fused: bool = False) -> tuple[int, int] | None:
    """(BLOCK_N, BLOCK_K) for an [m, k] x [n, k]^T product, or None when cuBLAS is the faster choice (see above);
    `fused`: the GEMV would also run the norm before it (FUSED_WIDE).

    Narrow weights (N <= K, few output columns, long rows) take 4 columns a program over 2048-long K slices (the
    whole row, padded to a power of two, when K <= 4096 is not a multiple of 2048): the grid has N/4 programs, each
    streaming long contiguous runs. Wide ones take 8 columns over K slices of up to 1024."""
    if not 0 < m <= MAX_ROWS:
        return None
    narrow = n <= k
    wide_fused = not narrow and weight_bytes > MAX_WEIGHT_BYTES and fused and FUSED_WIDE and m == 1
    if wide_fused and FUSED_WIDE_TILE is not None:
        return FUSED_WIDE_TILE[0], FUSED_WIDE_TILE[1]
    small = weight_bytes <= MAX_WEIGHT_BYTES or wide_fused
    if not ((narrow or small) if m == 1 else (narrow and small)):
        return None
    full_k = triton.next_power_of_2(k)
    if narrow:
        return 4, (2048 if k % 2048 == 0 or k > 4096 else full_k)
    return 8, min(full_k, 1024)


def _tile(x: torch.Tensor, weight: torch.Tensor, fused: bool = False) -> tuple[int, int] | None:
    """launch_shape's tile for x W^T, or None when the kernel does not take these inputs (F.linear's job)."""
    if not (
        x.dim() == 2 and x.dtype in DTYPES and weight.dtype == x.dtype and weight.stride(1) == 1 and x.stride(1) == 1
    ):
        return None
    nbytes = weight.numel() * weight.element_size()
    return launch_shape(x.shape[0], weight.shape[0], weight.shape[1], nbytes, fused)


def _norm_fusable(x: torch.Tensor, residual: torch.Tensor | None, norm_weight: torch.Tensor) -> bool:
    return (
        norm_weight.dtype == x.dtype
        and norm_weight.is_contiguous()
        and (residual is None or (residual.dtype == x.dtype and residual.shape == x.shape and residual.stride(1) == 1))
    )


def runs_gemv(x: torch.Tensor, weight: torch.Tensor) -> bool:
    return _tile(x, weight) is not None


def linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
    """F.linear's contract for 2-D x; the kernel where launch_shape picks it (half precision, 1-4 rows), F.linear
    otherwise."""
    tile = _tile(x, weight)
    if tile is None:
        return F.linear(x, weight, bias)
    return launch(x, weight, bias, *tile)


def norm_linear(
    x: torch.Tensor,  # [M, K]
    residual: torch.Tensor | None,  # [M, K]; None: x starts the residual stream
    norm_weight: torch.Tensor,  # [K]
    eps: float,
    weight: torch.Tensor,  # [N, K]
    bias: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:  # (rms_norm(x + residual) W^T + b, x + residual), as triton_norm + linear
    """RMSNorm (with the residual add in front) and the GEMM after it as ONE kernel where the GEMV takes the shape:
    every program normalises the few input rows itself (a K-long pass over them, from L2), program 0 writes the new
    residual stream, and the separate norm kernel and its output round trip are gone. Elsewhere the norm kernel,
    then linear()."""
    tile = _tile(x, weight, fused=True)
    if tile is None or not _norm_fusable(x, residual, norm_weight):
        normed, new_residual = rms_norm(x, norm_weight, eps, residual)
        return linear(normed, weight, bias), new_residual
    res_out = x if residual is None else torch.empty(x.shape, dtype=x.dtype, device=x.device)
    y = launch(x, weight, bias, *tile, norm=(norm_weight, eps, residual, res_out))
    return y, res_out


def norm_linear_act(
    x: torch.Tensor,  # [M, K]
    residual: torch.Tensor | None,  # [M, K]; None: x starts the residual stream
    norm_weight: torch.Tensor,  # [K]
    eps: float,
    weight: torch.Tensor,  # [2 I, K]: gate rows, then up rows
) -> tuple[torch.Tensor, torch.Tensor]:  # (SiLU(gate) * up of rms_norm(x + residual) W^T, x + residual)
    """The MLP's first half as ONE kernel where the GEMV takes the shape: norm_linear with triton_act's SiLU * up
    in its epilogue (each program owns the same columns of the gate and the up half), so neither the [M, 2 I]
    product nor a third kernel exists. Elsewhere norm_linear, then triton_act.silu_and_mul."""
    tile = _tile(x, weight, fused=True)
    if tile is None or weight.shape[0] % 2 or not _norm_fusable(x, residual, norm_weight):
        gate_up, new_residual = norm_linear(x, residual, norm_weight, eps, weight)
        return silu_and_mul(gate_up), new_residual
    block_n, block_k = tile
    res_out = x if residual is None else torch.empty(x.shape, dtype=x.dtype, device=x.device)
    # the tile's rows per program, half from each half of W
    y = launch(x, weight, None, max(block_n // 2, 1), block_k, norm=(norm_weight, eps, residual, res_out), act=True)
    return y, res_out


def launch(
    x: torch.Tensor,
    weight: torch.Tensor,
    bias: torch.Tensor | None,
    block_n: int,
    block_k: int,
    num_warps: int = 4,
    num_stages: int | None = None,
    norm: tuple[torch.Tensor, float, torch.Tensor | None, torch.Tensor] | None = None,
    act: bool = False,
) -> torch.Tensor:
    """The kernel with an explicit tile (tools/device_gemv_sweep.py times the choices); inputs as runs_gemv takes.
    `norm` = (norm weight, eps, residual or None, residual out) fuses norm_linear's RMSNorm in front; `act` reads
    `weight` as gate | up halves and returns SiLU(gate) * up (no bias)."""
    m, k = x.shape
    n = weight.shape[0] // 2 if act else weight.shape[0]
    if act and bias is not None:
        raise ValueError("the fused SiLU * up epilogue takes no bias")
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)
    extra = {} if num_stages is None else {"num_stages": num_stages}
    norm_weight, eps, residual, res_out = norm if norm is not None else (weight, 0.0, None, x)
    res_in = residual if residual is not None else x  # an unread pointer without a residual
    _gemv_kernel[(triton.cdiv(n, block_n),)](
        y,
        x,
        weight,
        weight[n:] if act else weight,
        bias if bias is not None else weight,
        res_in,
        res_out,
        norm_weight,
        eps,
        m,
        n,
        k,
        x.stride(0),
        weight.stride(0),
        y.stride(0),
        res_in.stride(0),
        res_out.stride(0),
        HAS_BIAS=bias is not None,
        EVEN_K=k % block_k == 0,
        BLOCK_M=triton.next_power_of_2(max(m, 1)),
        BLOCK_N=block_n,
        BLOCK_K=block_k,
        NORM=norm is not None,
        HAS_RESIDUAL=residual is not None,
        SINGLE_K=k <= block_k,
        ACT=act,
        LATE_LAUNCH=PDL_LATE,
        num_warps=num_warps,
        **extra,
        **pdl.options(x.device),
    )
    return y
