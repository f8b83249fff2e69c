"""Rotary position embedding (NeoX / rotate-half layout, as HF Llama and Qwen3): the float32 cos/sin cache.

The cache is computed once in float32 for every position up to max_position_embeddings, as one [max_position, D]
table (cos in the first half of a row, sin in the second, vLLM's cos_sin_cache) that the attention block's
rope op reads by position: the fused kernel reads a token's row directly, so nothing is gathered per step. The
rotation itself (engine/kernels/layer_reference.py) runs in the activation dtype, as transformers does.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from engine.model.config import RopeScaling


def inverse_frequencies(head_dim: int, theta: float, scaling: RopeScaling | None) -> torch.Tensor:
    """[head_dim / 2] float32; llama3 scaling stretches the low frequencies (transformers' llama3 rope)."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim))
    if scaling is None:
        return inv_freq
    low_wavelen = scaling.original_max_position_embeddings / scaling.low_freq_factor
    high_wavelen = scaling.original_max_position_embeddings / scaling.high_freq_factor
    wavelen = 2 * math.pi / inv_freq
    scaled = torch.where(wavelen > low_wavelen, inv_freq / scaling.factor, inv_freq)
    smooth = (scaling.original_max_position_embeddings / wavelen - scaling.low_freq_factor) / (
        scaling.high_freq_factor - scaling.low_freq_factor
    )
    smoothed = (1 - smooth) * scaled / scaling.factor + smooth * scaled
    medium = (wavelen >= high_wavelen) & (wavelen <= low_wavelen)
    return torch.where(medium, smoothed, scaled)


class RotaryEmbedding(nn.Module):
    def __init__(self, head_dim: int, max_position: int, theta: float, scaling: RopeScaling | None = None) -> None:
        super().__init__()
        inv_freq = inverse_frequencies(head_dim, theta, scaling).to(torch.get_default_device())
        t = torch.arange(max_position, dtype=torch.float32, device=inv_freq.device)
        freqs = torch.outer(t, inv_freq)  # [max_position, head_dim / 2]
        # Not persistent: rebuilt from the config, never loaded; kept float32 whatever the model dtype.
        self.register_buffer("cos_sin_cache", torch.cat((freqs.cos(), freqs.sin()), dim=-1), persistent=False)
