"""SiLU(gate) * up straight from the merged gate_up projection (vLLM's silu_and_mul): one read of each half, one
write, no split copies. SiLU rounds to the activation dtype before the product, as F.silu(gate) * up does."""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from engine.kernels import pdl

BLOCK = 1024


@triton.jit
def _silu_and_mul_kernel(
    out_ptr,  # [T, I]
    x_ptr,  # [T, 2 I]: gate | up
    n_cols,  # I
    stride_o_t,
    stride_o_n,
    stride_x_t,
    stride_x_n,
    BLOCK: tl.constexpr,
    USE_PDL: tl.constexpr,
):
    if USE_PDL:  # the kernel before this one may still be writing: wait for it (engine/kernels/pdl.py)
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    t = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    dtype = out_ptr.dtype.element_ty
    row = x_ptr + t * stride_x_t
    gate = tl.load(row + cols * stride_x_n, mask=mask, other=0.0).to(tl.float32)
    up = tl.load(row + (n_cols + cols) * stride_x_n, mask=mask, other=0.0).to(tl.float32)
    silu = (gate / (1.0 + tl.exp(-gate))).to(dtype).to(tl.float32)
    tl.store(out_ptr + t * stride_o_t + cols * stride_o_n, (silu * up).to(dtype), mask=mask)


def silu_and_mul(gate_up: torch.Tensor) -> torch.Tensor:  # [T, 2 I] -> [T, I], as layer_reference.silu_and_mul
    num_tokens, width = gate_up.shape
    if width % 2:
        raise ValueError(f"silu_and_mul needs gate | up halves of equal width, got {width} columns")
    n_cols = width // 2
    out = torch.empty((num_tokens, n_cols), dtype=gate_up.dtype, device=gate_up.device)
    if num_tokens == 0 or n_cols == 0:
        return out
    block = min(BLOCK, triton.next_power_of_2(n_cols))
    _silu_and_mul_kernel[(num_tokens, triton.cdiv(n_cols, block))](
        out,
        gate_up,
        n_cols,
        out.stride(0),
        out.stride(1),
        gate_up.stride(0),
        gate_up.stride(1),
        BLOCK=block,
        num_warps=4,
        **pdl.options(gate_up.device),
    )
    return out
