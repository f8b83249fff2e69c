"""The attention block: packed QKV projection, then one rope op (Qwen3's per-head q/k RMSNorm, rotary, K/V written
to the paged cache), paged attention, output projection.

Which kernels run is an explicit attribute (`AttentionKernels`), set per model, not a hidden global: the reference
torch kernels by default; the runner swaps in Triton ones with `CausalLM.set_attention_kernels`, whose rope op is
one fused kernel reading the packed projection in place (engine/kernels/triton_rope_kv.py).
"""

from __future__ import annotations

import torch
from torch import nn

from engine.kernels.attention_metadata import AttentionMetadata
from engine.kernels.backends import REFERENCE as REFERENCE_KERNELS
from engine.kernels.backends import AttentionKernels
from engine.kernels.layer_reference import qk_norm_rope
from engine.model.config import ModelConfig
from engine.model.linear import Linear, QKVLinear
from engine.model.rms_norm import RMSNorm

__all__ = ["Attention", "AttentionKernels", "REFERENCE_KERNELS"]


class Attention(nn.Module):
    def __init__(self, config: ModelConfig, qk_norm: bool) -> None:
        super().__init__()
        self.num_heads = config.num_attention_heads
        self.num_kv_heads = config.num_key_value_heads
        self.head_dim = config.head_dim
        self.scale = config.head_dim**-0.5
        self.eps = config.rms_norm_eps
        self.qkv_proj = QKVLinear(config.hidden_size, config.q_size, config.kv_size, bias=config.attention_bias)
        self.o_proj = Linear(config.q_size, config.hidden_size, bias=config.attention_bias)
        # Modules for their weights (loading, dummy init); the rope op applies them.
        self.q_norm = RMSNorm(config.head_dim, config.rms_norm_eps) if qk_norm else None
        self.k_norm = RMSNorm(config.head_dim, config.rms_norm_eps) if qk_norm else None
        self.kernels = REFERENCE_KERNELS

    def forward(
        self,
        positions: torch.Tensor,  # [T] int64
        x: torch.Tensor,  # [T, H]
        cos_sin_cache: torch.Tensor,  # [max_position, D] float32
        attn: AttentionMetadata,
        kv_cache: torch.Tensor | None,  # [2, num_blocks, block_size, Hkv, D]; None: no cache (profiling)
    ) -> torch.Tensor:  # [T, H]
        return self.from_qkv(positions, self.qkv_proj(x), cos_sin_cache, attn, kv_cache)

    def from_qkv(
        self,
        positions: torch.Tensor,  # [T] int64
        qkv: torch.Tensor,  # [T, (Hq + 2 Hkv) * D]: qkv_proj's output
        cos_sin_cache: torch.Tensor,
        attn: AttentionMetadata,
        kv_cache: torch.Tensor | None,
    ) -> torch.Tensor:  # [T, H]
        num_tokens = qkv.shape[0]
        q_w = self.q_norm.weight if self.q_norm is not None else None
        k_w = self.k_norm.weight if self.k_norm is not None else None
        if kv_cache is None:  # the memory-profiling run: attention over the new tokens alone
            q, k, v = qk_norm_rope(qkv, positions, cos_sin_cache, q_w, k_w, self.eps, self.num_heads, self.num_kv_heads)
            o = self.kernels.prefill_attention(q, k, v, attn, self.scale)
        else:
            q = self.kernels.layers.rope_write_kv(
                qkv,
                positions,
                cos_sin_cache,
                q_w,
                k_w,
                self.eps,
                self.num_heads,
                self.num_kv_heads,
                kv_cache,
                attn.slot_mapping,
            )
            o = self.kernels.paged_attention(q, kv_cache, attn, self.scale)
        return self.o_proj(o.view(num_tokens, self.num_heads * self.head_dim))
