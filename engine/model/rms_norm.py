"""RMSNorm as Llama/Qwen3 define it (normalise in float32, scale in the model dtype, as transformers), with the
residual add of the layer before fused in front: `norm(x, residual) -> (normed, x + residual)`, vLLM's shape.

The math lives in the backend (engine/kernels/layer_reference.py on torch, one Triton kernel on the GPU), set by
`DecoderForCausalLM.set_attention_kernels`.
"""

from __future__ import annotations

import torch
from torch import nn

from engine.kernels.backends import REFERENCE_LAYERS, LayerKernels


class RMSNorm(nn.Module):
    def __init__(self, size: int, eps: float) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(size))
        self.ops: LayerKernels = REFERENCE_LAYERS

    def forward(
        self,
        x: torch.Tensor,  # [T, size]
        residual: torch.Tensor | None = None,  # [T, size]; None: x starts the residual stream
    ) -> tuple[torch.Tensor, torch.Tensor]:  # (normed [T, size], new residual [T, size])
        return self.ops.rms_norm(x, self.weight, self.eps, residual)
