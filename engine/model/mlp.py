"""The SwiGLU MLP of Llama and Qwen3: down(silu(gate(x)) * up(x)), gate and up packed in one GEMM, the activation
one op of the backend (a single Triton kernel reading the packed output in place on the GPU)."""

from __future__ import annotations

import torch
from torch import nn

from engine.kernels.backends import REFERENCE_LAYERS, LayerKernels
from engine.model.linear import GateUpLinear, Linear


class GatedMLP(nn.Module):
    def __init__(self, hidden_size: int, intermediate_size: int) -> None:
        super().__init__()
        self.gate_up_proj = GateUpLinear(hidden_size, intermediate_size)
        self.down_proj = Linear(intermediate_size, hidden_size)
        self.ops: LayerKernels = REFERENCE_LAYERS

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # [T, H] -> [T, H]
        return self.from_gate_up(self.gate_up_proj(x))

    def from_gate_up(self, gate_up: torch.Tensor) -> torch.Tensor:  # [T, 2 I] (gate_up_proj's output) -> [T, H]
        return self.down_proj(self.ops.silu_and_mul(gate_up))
