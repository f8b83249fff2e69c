"""y = x W^T (+ b) for the few rows of a small decode batch: one Triton kernel that streams W once.

At batch 1-8 a decoder layer's GEMMs are matrix-vector products bound by reading W. On an H200, cuBLAS ran
Qwen3-0.6B's [1, 1024] x [6144, 1024]^T in 10.5 us (1.2 TB/s of W) and its four GEMMs a layer in 27.5 us
(docs/device-checks/20261203-step-profile). Here each program owns BLOCK_N output columns (rows of W) over the
whole K, so no split-K reduction is needed: BLOCK_N shrinks until the grid has a few programs per SM, and every
row of W is read in BLOCK_K-long contiguous runs. Accumulates in float32 and rounds once, as cuBLAS does; not
bit-identical to it (another summation order).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from engine.kernels.decode_split import num_sms

MAX_ROWS = 8  # above this, cuBLAS's tensor-core GEMMs win: the weights are read once for more rows
# Measured on the H200 at batch 1 (docs/device-checks/20261203-step-profile): this kernel beat cuBLAS on Qwen3-0.6B's
# 4-13 MB weights (0.55 against 0.77 ms of GEMMs a step) and lost on Qwen3-4B's 21-100 MB ones (2.73 against 2.39 ms),
# where cuBLAS already reads at ~3 TB/s. Larger weights stay on cuBLAS.
MAX_WEIGHT_BYTES = 16 << 20
DTYPES = (torch.bfloat16, torch.float16)  # float32 stays on cuBLAS (exact-parity runs use float32)


@triton.jit
def _gemv_kernel(
    y_ptr,  # [M, N]
    x_ptr,  # [M, K]
    w_ptr,  # [N, K], unit stride along K
    b_ptr,  # [N] or a dummy
    M,
    N,
    K,
    stride_xm,
    stride_wn,
    stride_ym,
    HAS_BIAS: tl.constexpr,
    EVEN_K: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    offs_n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_m = tl.arange(0, BLOCK_M)
    offs_k = tl.arange(0, BLOCK_K)
    n_ok = offs_n < N
    m_ok = offs_m < M
    w_rows = w_ptr + offs_n.to(tl.int64)[:, None] * stride_wn
    x_rows = x_ptr + offs_m.to(tl.int64)[:, None] * stride_xm
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k = k0 + offs_k
        if EVEN_K:
            w = tl.load(w_rows + k[None, :], mask=n_ok[:, None], other=0.0)
            x = tl.load(x_rows + k[None, :], mask=m_ok[:, None], other=0.0)
        else:
            k_ok = k < K
            w = tl.load(w_rows + k[None, :], mask=n_ok[:, None] & k_ok[None, :], other=0.0)
            x = tl.load(x_rows + k[None, :], mask=m_ok[:, None] & k_ok[None, :], other=0.0)
        acc += tl.sum(x.to(tl.float32)[:, None, :] * w.to(tl.float32)[None, :, :], axis=2)
    if HAS_BIAS:
        acc += tl.load(b_ptr + offs_n, mask=n_ok, other=0.0).to(tl.float32)[None, :]
    y = y_ptr + offs_m.to(tl.int64)[:, None] * stride_ym + offs_n[None, :]
    tl.store(y, acc.to(y_ptr.dtype.element_ty), mask=m_ok[:, None] & n_ok[None, :])


def launch_shape(m: int, n: int, device: torch.device) -> tuple[int, int, int]:
    """(BLOCK_M, BLOCK_N, BLOCK_K): 16 columns a program unless that leaves fewer than two programs per SM, then
    8 or 4; the K slice shrinks as rows grow, so the [M, N, K] product stays at 8K elements."""
    block_m = triton.next_power_of_2(max(m, 1))
    block_n = 16
    while block_n > 4 and triton.cdiv(n, block_n) < 2 * num_sms(device):
        block_n //= 2
    block_k = max(64, 8192 // (block_m * block_n))
    return block_m, block_n, min(block_k, 1024)


def runs_gemv(x: torch.Tensor, weight: torch.Tensor) -> bool:
    return (
        x.dim() == 2
        and 0 < x.shape[0] <= MAX_ROWS
        and x.dtype in DTYPES
        and weight.dtype == x.dtype
        and weight.numel() * weight.element_size() <= MAX_WEIGHT_BYTES
        and weight.stride(1) == 1
        and x.stride(1) == 1
    )


def linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
    """F.linear's contract for 2-D x; the kernel for up to MAX_ROWS half-precision rows, F.linear otherwise."""
    if not runs_gemv(x, weight):
        return F.linear(x, weight, bias)
    block_m, block_n, block_k = launch_shape(x.shape[0], weight.shape[0], x.device)
    return launch(x, weight, bias, block_n, block_k)


def launch(
    x: torch.Tensor,
    weight: torch.Tensor,
    bias: torch.Tensor | None,
    block_n: int,
    block_k: int,
    num_warps: int = 4,
    num_stages: int | None = None,
) -> torch.Tensor:
    """The kernel with an explicit tile (tools/device_gemv_sweep.py times the choices); inputs as runs_gemv takes."""
    m, k = x.shape
    n = weight.shape[0]
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)
    extra = {} if num_stages is None else {"num_stages": num_stages}
    _gemv_kernel[(triton.cdiv(n, block_n),)](
        y,
        x,
        weight,
        bias if bias is not None else weight,
        m,
        n,
        k,
        x.stride(0),
        weight.stride(0),
        y.stride(0),
        HAS_BIAS=bias is not None,
        EVEN_K=k % block_k == 0,
        BLOCK_M=triton.next_power_of_2(max(m, 1)),
        BLOCK_N=block_n,
        BLOCK_K=block_k,
        num_warps=num_warps,
        **extra,
    )
    return y
