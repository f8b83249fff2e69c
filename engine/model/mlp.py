"""The SwiGLU MLP of Llama and Qwen3: down(silu(gate(x)) * up(x)), gate and up packed in one GEMM."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from engine.model.linear import GateUpLinear, Linear


class GatedMLP(nn.Module):
    def __init__(self, hidden_size: int, intermediate_size: int) -> None:
        super().__init__()
        self.gate_up_proj = GateUpLinear(hidden_size, intermediate_size)
        self.down_proj = Linear(intermediate_size, hidden_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # [T, H] -> [T, H]
        gate, up = self.gate_up_proj.split(self.gate_up_proj(x))
        return self.down_proj(F.silu(gate) * up)
