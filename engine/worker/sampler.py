"""Sampler: greedy, temperature, top-k, top-p and per-request seeds for a whole batch, without host syncs.

Random rows use the exponential race (argmax of probs / E, E ~ Exp(1) per vocabulary entry), with E
drawn from a counter-based hash of (request seed, token position, vocabulary index). So a request's
tokens depend only on its seed and its own logits, not on its batch neighbours or on preemption, and
every row is sampled by the same few tensor ops. (In bf16 on a GPU the logits themselves can shift with
the batch's shape, as in any engine; in fp32 seeded output was batch-invariant on an H200.) Greedy rows
are exactly argmax of the raw logits.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class SamplingTensors:
    temperature: torch.Tensor   # [N] float32, 0 = greedy
    top_k: torch.Tensor         # [N] int64, vocab size where off
    top_p: torch.Tensor         # [N] float32, 1 where off
    seeds: torch.Tensor         # [N] int64
    positions: torch.Tensor     # [N] int64, position of the token being sampled
    # Host flags (known when the batch is built) that let whole stages be skipped without a sync.
    all_greedy: bool
    any_greedy: bool
    need_top_k: bool
    need_top_p: bool


def _u64(x: int) -> int:
    """A 64-bit constant as the int64 torch stores (two's complement)."""
    return x - (1 << 64) if x >= 1 << 63 else x


_GOLDEN = _u64(0x9E3779B97F4A7C15)
_MIX1 = _u64(0xBF58476D1CE4E5B9)
_MIX2 = _u64(0x94D049BB133111EB)


def _shr(z: torch.Tensor, s: int) -> torch.Tensor:
    """Logical right shift of int64 (torch's >> is arithmetic)."""
    return (z >> s) & ((1 << (64 - s)) - 1)


def _splitmix64(z: torch.Tensor) -> torch.Tensor:
    # int64 products wrap modulo 2**64, which is exactly the arithmetic splitmix64 needs.
    z = (z ^ _shr(z, 30)) * _MIX1
    z = (z ^ _shr(z, 27)) * _MIX2
    return z ^ _shr(z, 31)


def exponential_noise(seeds: torch.Tensor, positions: torch.Tensor, vocab_size: int) -> torch.Tensor:
    """[N, V] float32 Exp(1) samples, a pure function of (seed, position, vocabulary index)."""
    key = _splitmix64(_splitmix64(seeds * _GOLDEN + positions) + _GOLDEN)          # [N]
    idx = torch.arange(vocab_size, device=seeds.device, dtype=torch.int64) * _GOLDEN  # [V]
    bits = _shr(_splitmix64(key[:, None] + idx[None, :]), 40)                       # [N, V], 24 random bits
    u = (bits.to(torch.float32) + 0.5) * (1.0 / (1 << 24))                          # in (0, 1)
    return -torch.log(u)


def apply_top_k_top_p(logits: torch.Tensor, top_k: torch.Tensor | None, top_p: torch.Tensor | None) -> torch.Tensor:
    """Mask logits outside each row's top-k and top-p nucleus to -inf. logits: [N, V] float32."""
    sorted_logits, order = logits.sort(dim=-1, descending=False)
    vocab = logits.shape[-1]
    if top_k is not None:
        kth = sorted_logits.gather(1, (vocab - top_k.clamp(1, vocab)).unsqueeze(1))   # [N, 1]
        sorted_logits = sorted_logits.masked_fill(sorted_logits < kth, float("-inf"))
    if top_p is not None:
        cum = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
        drop = cum <= (1.0 - top_p).unsqueeze(1)
        drop[:, -1] = False          # the most likely token always stays
        sorted_logits = sorted_logits.masked_fill(drop, float("-inf"))
    return torch.empty_like(logits).scatter_(1, order, sorted_logits)


class Sampler:
    def __call__(self, logits: torch.Tensor, t: SamplingTensors) -> torch.Tensor:
        """logits [N, V] float32 -> sampled token ids [N] int64 (on the logits' device)."""
        greedy = logits.argmax(dim=-1)
        if t.all_greedy:
            return greedy
        temperature = torch.where(t.temperature > 0, t.temperature, torch.ones_like(t.temperature))
        scaled = logits / temperature.unsqueeze(1)
        if t.need_top_k or t.need_top_p:
            scaled = apply_top_k_top_p(scaled, t.top_k if t.need_top_k else None, t.top_p if t.need_top_p else None)
        probs = scaled.softmax(dim=-1)
        sampled = (probs / exponential_noise(t.seeds, t.positions, logits.shape[-1])).argmax(dim=-1)
        return torch.where(t.temperature > 0, sampled, greedy) if t.any_greedy else sampled
