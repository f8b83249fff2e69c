"""Pure-torch references of a decoder layer's ops between its GEMMs: the CPU path, and the definition the fused
Triton kernels (triton_norm.py, triton_rope_kv.py, triton_act.py) are tested against.

Each rounds where transformers rounds: RMSNorm normalises in float32 and scales in the activation dtype; the residual
add, every rotary product and sum, and SiLU(gate) * up each round to the activation dtype. A fused kernel that
rounds at the same points gives the same values up to float32 reduction order.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F

from engine.kernels import reference


def rms_norm(
    x: torch.Tensor,  # [T, N]
    weight: torch.Tensor,  # [N]
    eps: float,
    residual: torch.Tensor | None = None,  # [T, N]; None: the first layer (x is the residual stream)
) -> tuple[torch.Tensor, torch.Tensor]:  # (normed [T, N], new residual [T, N])
    """(weight * normalise(x + residual), x + residual); without a residual, (weight * normalise(x), x)."""
    if residual is not None:
        x = x + residual
    xf = x.float()
    normed = (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)
    return weight * normed, x


def rotate_half(
    x: torch.Tensor,  # [T, H, D]
    cos: torch.Tensor,  # [T, 1, D/2] in x.dtype
    sin: torch.Tensor,  # [T, 1, D/2] in x.dtype
) -> torch.Tensor:  # [T, H, D]
    """NeoX / HF rotary: (x1, x2) -> (x1 cos - x2 sin, x2 cos + x1 sin), in the activation dtype as transformers."""
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)


def qk_norm_rope(
    qkv: torch.Tensor,  # [T, (Hq + 2 Hkv) * D], the packed projection
    positions: torch.Tensor,  # [T] int64
    cos_sin_cache: torch.Tensor,  # [max_position, D] float32: cos in [:D/2], sin in [D/2:]
    q_weight: torch.Tensor | None,  # [D]: Qwen3's per-head RMSNorm of q; None: no q/k norm (Llama)
    k_weight: torch.Tensor | None,  # [D]
    eps: float,
    num_heads: int,
    num_kv_heads: int,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:  # q [T, Hq, D], k, v [T, Hkv, D]
    num_tokens, head_dim = qkv.shape[0], cos_sin_cache.shape[-1]
    q, k, v = qkv.split([num_heads * head_dim, num_kv_heads * head_dim, num_kv_heads * head_dim], dim=-1)
    q = q.view(num_tokens, num_heads, head_dim)
    k = k.view(num_tokens, num_kv_heads, head_dim)
    v = v.view(num_tokens, num_kv_heads, head_dim)
    if q_weight is not None and k_weight is not None:
        q, k = rms_norm(q, q_weight, eps)[0], rms_norm(k, k_weight, eps)[0]
    cos, sin = cos_sin_cache[positions].to(qkv.dtype).unsqueeze(1).chunk(2, dim=-1)
    return rotate_half(q, cos, sin), rotate_half(k, cos, sin), v


WriteKV = Callable[[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor], None]


def rope_write_kv(
    qkv: torch.Tensor,
    positions: torch.Tensor,
    cos_sin_cache: torch.Tensor,
    q_weight: torch.Tensor | None,
    k_weight: torch.Tensor | None,
    eps: float,
    num_heads: int,
    num_kv_heads: int,
    kv_cache: torch.Tensor,  # [2, num_blocks, block_size, Hkv, D]
    slot_mapping: torch.Tensor,  # [T] int64; a negative slot (a padding row) writes nothing
    write_kv: WriteKV = reference.write_kv,
) -> torch.Tensor:  # q [T, Hq, D], normed and rotated
    """qk_norm_rope, then K and V of every real token written to its cache slot."""
    q, k, v = qk_norm_rope(qkv, positions, cos_sin_cache, q_weight, k_weight, eps, num_heads, num_kv_heads)
    write_kv(k, v, kv_cache, slot_mapping)
    return q


def silu_and_mul(gate_up: torch.Tensor) -> torch.Tensor:  # [T, 2 I] (gate | up) -> [T, I]
    gate, up = gate_up.chunk(2, dim=-1)
    return F.silu(gate) * up
