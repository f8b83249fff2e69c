"""The layers that talk across ranks: a row-parallel linear (one all-reduce), the vocab-parallel embedding (one
all-reduce) and the vocab-parallel LM head (one all-gather of logits). Column-parallel layers need no new class:
a sliced QKVLinear / GateUpLinear computes its rank's columns unchanged (engine/model/tp_shard.py slices them).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from engine.model.linear import Linear
from engine.model.tensor_parallel import TPGroup


class RowParallelLinear(nn.Module):
    """x [T, in/size] (this rank's columns of the input) -> the full [T, out], summed over ranks; the bias, if any,
    is kept on rank 0 only so it is added once."""

    def __init__(self, linear: Linear, tp: TPGroup) -> None:
        super().__init__()
        self.linear = linear
        self.tp = tp

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.tp.all_reduce(self.linear(x))


class VocabParallelEmbedding(nn.Module):
    """This rank's rows [start, start + rows) of the (padded) vocab; ids elsewhere look up zeros, the sum over
    ranks is the full embedding."""

    def __init__(self, weight: torch.Tensor, start: int, tp: TPGroup) -> None:  # weight [V/size, H]
        super().__init__()
        self.weight = nn.Parameter(weight, requires_grad=False)
        self.start = start
        self.tp = tp

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:  # [T] int64 -> [T, H]
        local = input_ids - self.start
        outside = (local < 0) | (local >= self.weight.shape[0])
        h = F.embedding(local.masked_fill(outside, 0), self.weight)
        return self.tp.all_reduce(h.masked_fill(outside.unsqueeze(-1), 0.0))


class VocabParallelLMHead(nn.Module):
    """Logits of this rank's vocab rows, gathered over ranks and trimmed of the padding: every rank gets the full
    [N, V] float32, so every rank samples the same tokens (per-request seeds)."""

    def __init__(self, weight: torch.Tensor, vocab_size: int, tp: TPGroup) -> None:  # weight [V/size, H]
        super().__init__()
        self.weight = weight if isinstance(weight, nn.Parameter) else nn.Parameter(weight, requires_grad=False)
        self.vocab_size = vocab_size
        self.tp = tp

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:  # [N, H] -> [N, V] float32
        return self.tp.all_gather(F.linear(hidden, self.weight).float())[:, : self.vocab_size]
