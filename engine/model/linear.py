"""Linear layers whose weights may be packed from several checkpoint tensors (vLLM / nano-vllm style).

Each parameter carries a `weight_loader(param, loaded, shard_id)`; `weights.load_weights` routes every checkpoint
tensor to its parameter and shard through the model's `packed_modules_mapping`, so loading stays data, not code.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from engine.errors import EngineError
from engine.kernels.backends import REFERENCE_LAYERS, LayerKernels


def default_weight_loader(param: nn.Parameter, loaded: torch.Tensor, shard_id: object = None) -> None:
    if param.shape != loaded.shape:
        raise EngineError(f"weight shape {tuple(loaded.shape)} does not fit parameter {tuple(param.shape)}")
    param.data.copy_(loaded)


class Linear(nn.Module):
    """y = x W^T (+ b); W is [output_size, input_size] like torch and HF checkpoints."""

    def __init__(self, input_size: int, output_size: int, bias: bool = False) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(output_size, input_size))
        self.weight.weight_loader = self.weight_loader
        self.bias: nn.Parameter | None = None
        if bias:
            self.bias = nn.Parameter(torch.empty(output_size))
            self.bias.weight_loader = self.weight_loader
        self.ops: LayerKernels = REFERENCE_LAYERS  # the backend's GEMM (set_attention_kernels)

    def weight_loader(self, param: nn.Parameter, loaded: torch.Tensor, shard_id: object = None) -> None:
        default_weight_loader(param, loaded)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # [T, input_size] -> [T, output_size]
        return self.ops.linear(x, self.weight, self.bias)

    def after_norm(
        self, norm_weight: torch.Tensor, eps: float, x: torch.Tensor, residual: torch.Tensor | None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """This layer applied to RMSNorm(x + residual): (output, x + residual), one kernel where the backend fuses
        them (LayerKernels.norm_linear)."""
        return self.ops.norm_linear(x, residual, norm_weight, eps, self.weight, self.bias)


class PackedLinear(Linear):
    """Several projections of the same input in one GEMM; shard i occupies rows offsets[i]:offsets[i+1]."""

    def __init__(
        self, input_size: int, output_sizes: Sequence[int], shard_ids: Sequence[object], bias: bool = False
    ) -> None:
        super().__init__(input_size, sum(output_sizes), bias)
        self.output_sizes = list(output_sizes)
        self.shard_ids = list(shard_ids)

    def weight_loader(self, param: nn.Parameter, loaded: torch.Tensor, shard_id: object = None) -> None:
        if shard_id not in self.shard_ids:
            raise EngineError(f"unknown shard {shard_id!r} for a packed weight of shards {self.shard_ids}")
        i = self.shard_ids.index(shard_id)
        start = sum(self.output_sizes[:i])
        default_weight_loader(param.narrow(0, start, self.output_sizes[i]), loaded)

    def split(self, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """[T, sum(output_sizes)] -> one view per shard."""
        return tuple(y.split(self.output_sizes, dim=-1))


class QKVLinear(PackedLinear):
    def __init__(self, hidden_size: int, q_size: int, kv_size: int, bias: bool = False) -> None:
        super().__init__(hidden_size, (q_size, kv_size, kv_size), ("q", "k", "v"), bias)


class GateUpLinear(PackedLinear):
    def __init__(self, hidden_size: int, intermediate_size: int) -> None:
        super().__init__(hidden_size, (intermediate_size, intermediate_size), (0, 1))

    def after_norm_act(
        self, norm_weight: torch.Tensor, eps: float, x: torch.Tensor, residual: torch.Tensor | None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """SiLU(gate) * up of RMSNorm(x + residual): (activation, x + residual), one kernel where the backend fuses
        them (LayerKernels.norm_linear_act)."""
        return self.ops.norm_linear_act(x, residual, norm_weight, eps, self.weight)
