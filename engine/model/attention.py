"""The attention block: packed QKV projection, optional per-head q/k RMSNorm (Qwen3), rotary, paged attention.

Which kernels run is an explicit attribute (`AttentionKernels`), set per model, not a hidden global: the reference
torch kernels by default; the GPU runner may swap in Triton ones with `CausalLM.set_attention_kernels`.
"""
from __future__ import annotations

import torch
from torch import nn

from engine.kernels.attention_metadata import AttentionMetadata
from engine.kernels.backends import REFERENCE as REFERENCE_KERNELS
from engine.kernels.backends import AttentionKernels
from engine.model.config import ModelConfig
from engine.model.linear import Linear, QKVLinear
from engine.model.rms_norm import RMSNorm
from engine.model.rotary import RotaryEmbedding


__all__ = ["Attention", "AttentionKernels", "REFERENCE_KERNELS"]


class Attention(nn.Module):
    def __init__(self, config: ModelConfig, qk_norm: bool) -> None:
        super().__init__()
        self.num_heads = config.num_attention_heads
        self.num_kv_heads = config.num_key_value_heads
        self.head_dim = config.head_dim
        self.scale = config.head_dim ** -0.5
        self.qkv_proj = QKVLinear(config.hidden_size, config.q_size, config.kv_size, bias=config.attention_bias)
        self.o_proj = Linear(config.q_size, config.hidden_size, bias=config.attention_bias)
        self.q_norm = RMSNorm(config.head_dim, config.rms_norm_eps) if qk_norm else None
        self.k_norm = RMSNorm(config.head_dim, config.rms_norm_eps) if qk_norm else None
        self.kernels = REFERENCE_KERNELS

    def forward(self,
                x: torch.Tensor,                # [T, H]
                cos: torch.Tensor,              # [T, 1, D/2] float32
                sin: torch.Tensor,              # [T, 1, D/2] float32
                attn: AttentionMetadata,
                kv_cache: torch.Tensor | None,  # [2, num_blocks, block_size, Hkv, D]; None: no cache (profiling)
                ) -> torch.Tensor:              # [T, H]
        num_tokens = x.shape[0]
        q, k, v = self.qkv_proj.split(self.qkv_proj(x))
        q = q.view(num_tokens, self.num_heads, self.head_dim)
        k = k.view(num_tokens, self.num_kv_heads, self.head_dim)
        v = v.view(num_tokens, self.num_kv_heads, self.head_dim)
        if self.q_norm is not None and self.k_norm is not None:
            q, k = self.q_norm(q), self.k_norm(k)
        q, k = RotaryEmbedding.apply(q, cos, sin), RotaryEmbedding.apply(k, cos, sin)
        if kv_cache is None:
            o = self.kernels.prefill_attention(q, k, v, attn, self.scale)
        else:
            self.kernels.write_kv(k, v, kv_cache, attn.slot_mapping)
            o = self.kernels.paged_attention(q, kv_cache, attn, self.scale)
        return self.o_proj(o.reshape(num_tokens, self.num_heads * self.head_dim))
