"""Dummy weights for benchmarks (vLLM's --load-format dummy): seeded uniform values in [-1e-3, 1e-3], as vLLM's
`initialize_dummy_weights`, except norm weights at 1.0 so activations keep a realistic scale through the layers."""

from __future__ import annotations

import torch
from torch import nn

from engine.model.rms_norm import RMSNorm

DUMMY_LOW, DUMMY_HIGH = -1e-3, 1e-3


@torch.no_grad()
def initialize_dummy_weights(model: nn.Module, seed: int, low: float = DUMMY_LOW, high: float = DUMMY_HIGH) -> None:
    """Deterministic per (seed, device): one generator per device, parameters filled in registration order."""
    norms = {id(m.weight) for m in model.modules() if isinstance(m, RMSNorm)}
    generators: dict[torch.device, torch.Generator] = {}
    for param in model.parameters():  # deduplicated, so a tied head is filled once
        if id(param) in norms:
            param.fill_(1.0)
            continue
        gen = generators.get(param.device)
        if gen is None:
            gen = generators[param.device] = torch.Generator(device=param.device).manual_seed(seed)
        if torch.finfo(param.dtype).bits < 16:  # too coarse to sample in directly (fp8)
            param.copy_(torch.empty_like(param, dtype=torch.float16).uniform_(low, high, generator=gen))
        else:
            param.uniform_(low, high, generator=gen)
