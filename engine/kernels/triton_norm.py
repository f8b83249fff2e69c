"""RMSNorm, with the residual add fused in front (vLLM's fused_add_rms_norm): one pass over each row.

Program t reads row t of x (and of the residual), writes the new residual stream x + residual and the normed row. The
residual sum is rounded to the activation dtype before it is normalised, as layer_reference.rms_norm does.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from engine.kernels import pdl


@triton.jit
def _rms_norm_kernel(
    out_ptr,  # [T, N]
    res_out_ptr,  # [T, N]; written only with HAS_RESIDUAL
    x_ptr,  # [T, N]
    res_ptr,  # [T, N]; read only with HAS_RESIDUAL
    w_ptr,  # [N]
    eps,
    n_cols,
    stride_o_t,
    stride_o_n,
    stride_ro_t,
    stride_ro_n,
    stride_x_t,
    stride_x_n,
    stride_r_t,
    stride_r_n,
    BLOCK: tl.constexpr,
    HAS_RESIDUAL: tl.constexpr,
    USE_PDL: tl.constexpr,
):
    if USE_PDL:  # the kernel before this one may still be writing: wait for it (engine/kernels/pdl.py)
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    dtype = out_ptr.dtype.element_ty
    x = tl.load(x_ptr + row * stride_x_t + cols * stride_x_n, mask=mask, other=0.0).to(tl.float32)
    if HAS_RESIDUAL:
        x += tl.load(res_ptr + row * stride_r_t + cols * stride_r_n, mask=mask, other=0.0).to(tl.float32)
        x = x.to(dtype)
        tl.store(res_out_ptr + row * stride_ro_t + cols * stride_ro_n, x, mask=mask)
        x = x.to(tl.float32)
    rstd = tl.rsqrt(tl.sum(x * x, 0) / n_cols + eps)
    normed = (x * rstd).to(dtype).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * stride_o_t + cols * stride_o_n, (w * normed).to(dtype), mask=mask)


def num_warps_for(block: int) -> int:
    """About 8 elements a thread: 4 warps for a 1024-wide row, 16 for 4096."""
    return max(1, min(16, block // 256))


def rms_norm(
    x: torch.Tensor,  # [T, N]
    weight: torch.Tensor,  # [N]
    eps: float,
    residual: torch.Tensor | None = None,  # [T, N]
) -> tuple[torch.Tensor, torch.Tensor]:  # (normed [T, N], new residual [T, N]), as layer_reference
    num_tokens, n_cols = x.shape
    if weight.dtype != x.dtype or (residual is not None and residual.dtype != x.dtype):
        raise ValueError(
            f"rms_norm needs x, residual and weight in one dtype, got x {x.dtype}, weight {weight.dtype}"
            f"{'' if residual is None else f', residual {residual.dtype}'}"
        )
    out = torch.empty((num_tokens, n_cols), dtype=x.dtype, device=x.device)
    res_out = x if residual is None else torch.empty_like(out)
    if num_tokens == 0:
        return out, res_out
    res_in = x if residual is None else residual  # an unread pointer when there is no residual
    block = triton.next_power_of_2(n_cols)
    _rms_norm_kernel[(num_tokens,)](
        out,
        res_out,
        x,
        res_in,
        weight,
        eps,
        n_cols,
        out.stride(0),
        out.stride(1),
        res_out.stride(0),
        res_out.stride(1),
        x.stride(0),
        x.stride(1),
        res_in.stride(0),
        res_in.stride(1),
        BLOCK=block,
        HAS_RESIDUAL=residual is not None,
        num_warps=num_warps_for(block),
        **pdl.options(x.device),
    )
    return out, res_out
