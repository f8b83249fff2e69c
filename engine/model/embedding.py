"""Token embedding and the LM head (the causal LM ties the head to the embedding by sharing the Parameter)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from engine.model.linear import default_weight_loader


class VocabEmbedding(nn.Module):
    def __init__(self, vocab_size: int, hidden_size: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(vocab_size, hidden_size))
        self.weight.weight_loader = default_weight_loader

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:  # [T] int64 -> [T, H]
        return F.embedding(input_ids, self.weight)


class LMHead(nn.Module):
    def __init__(self, vocab_size: int, hidden_size: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(vocab_size, hidden_size))
        self.weight.weight_loader = default_weight_loader

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:  # [N, H] -> [N, V] in the model's dtype
        # No float32 copy here: greedy argmax and the fused sampler read bf16 as it is (a [256, 151936] upcast cost
        # 59 us a step on the H200, the argmax over it 37 us); the torch paths that do math upcast what they touch.
        return F.linear(hidden, self.weight)
