"""Sampler: greedy, temperature, top-k, top-p and per-request seeds for a whole batch, without host syncs.

Random rows use the exponential race (argmax of probs / E, E ~ Exp(1) per vocabulary entry), with E
drawn from a counter-based hash of (request seed, token position, vocabulary index). So a request's
tokens depend only on its seed and its own logits, not on its batch neighbours or on preemption. (In bf16
on a GPU the logits themselves can shift with the batch's shape, as in any engine; in fp32 seeded output
was batch-invariant on an H200.) Greedy rows are exactly argmax of the raw logits.

On CUDA one Triton kernel does it all (engine/kernels/triton_sampling.py: no sort, no fp32 or int64 copy of the
logits); `sample_reference` below is the CPU path and that kernel's oracle, and both draw the same noise.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch

ENV_FUSED = "ENGINE_FUSED_SAMPLER"


@dataclass
class SamplingTensors:
    temperature: torch.Tensor  # [N] float32, 0 = greedy
    top_k: torch.Tensor  # [N] int64, vocab size where off
    top_p: torch.Tensor  # [N] float32, 1 where off
    seeds: torch.Tensor  # [N] int64
    positions: torch.Tensor  # [N] int64, position of the token being sampled
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
    key = _splitmix64(_splitmix64(seeds * _GOLDEN + positions) + _GOLDEN)  # [N]
    idx = torch.arange(vocab_size, device=seeds.device, dtype=torch.int64) * _GOLDEN  # [V]
    bits = _shr(_splitmix64(key[:, None] + idx[None, :]), 40)  # [N, V], 24 random bits
    u = (bits.to(torch.float32) + 0.5) * (1.0 / (1 << 24))  # in (0, 1)
    return -torch.log(u)


def top_k_top_p_mask(
    logits: torch.Tensor,  # [N, V] float32
    temperature: torch.Tensor,  # [N] float32, > 0
    top_k: torch.Tensor | None,  # [N] int64, >= V where off
    top_p: torch.Tensor | None,  # [N] float32, 1 where off
) -> torch.Tensor:
    """[N, V] bool: the tokens each row keeps. Top-k keeps every logit >= the k-th largest; top-p then keeps, of
    those, each logit whose strictly larger kept tokens hold less than top_p of their renormalised probability
    (the most likely token always stays). Both cuts are logit thresholds, so tied tokens stay or go together."""
    sorted_logits = logits.sort(dim=-1, descending=True).values
    num_rows, vocab = logits.shape
    kept = torch.full((num_rows,), vocab, dtype=torch.int64, device=logits.device)  # leading sorted entries kept
    if top_k is not None:
        kth = sorted_logits.gather(1, (top_k.clamp(1, vocab) - 1).unsqueeze(1))
        kept = (sorted_logits >= kth).sum(dim=-1)
    if top_p is not None:
        in_k = torch.arange(vocab, device=logits.device) < kept.unsqueeze(1)
        top = sorted_logits[:, :1]
        top = torch.where(top > float("-inf"), top, torch.zeros_like(top))  # an all -inf row: no NaN
        probs = ((sorted_logits - top) / temperature.unsqueeze(1)).masked_fill(~in_k, float("-inf")).softmax(dim=-1)
        above = probs.cumsum(dim=-1) - probs  # mass of the entries before each
        kept = ((above < top_p.unsqueeze(1)) & in_k).sum(dim=-1).clamp(min=1)
    return logits >= sorted_logits.gather(1, (kept - 1).unsqueeze(1))


def sample_reference(logits: torch.Tensor, t: SamplingTensors) -> torch.Tensor:
    """logits [N, V] (any float dtype) -> [N] int64, in torch: the CPU path and the fused kernel's oracle.
    The exponential race argmax(p_i / E_i) is taken in logs, argmax((x_i - max) / T - log E_i), so it needs no
    softmax and neither underflows nor overflows for any temperature."""
    x = logits.float()
    greedy = x.argmax(dim=-1)
    if t.all_greedy:
        return greedy
    temperature = torch.where(t.temperature > 0, t.temperature, torch.ones_like(t.temperature)).unsqueeze(1)
    if t.need_top_k or t.need_top_p:
        keep = top_k_top_p_mask(
            x, temperature.squeeze(1), t.top_k if t.need_top_k else None, t.top_p if t.need_top_p else None
        )
        x = x.masked_fill(~keep, float("-inf"))
    top = x.amax(dim=-1, keepdim=True)
    top = torch.where(top > float("-inf"), top, torch.zeros_like(top))
    gumbel = -exponential_noise(t.seeds, t.positions, logits.shape[-1]).log()
    sampled = ((x - top) / temperature + gumbel).argmax(dim=-1)
    return torch.where(t.temperature > 0, sampled, greedy) if t.any_greedy else sampled


def fused_enabled() -> bool:
    """ENGINE_FUSED_SAMPLER=0 turns the fused kernel off (the torch path runs on CUDA too), for ablation."""
    return os.environ.get(ENV_FUSED, "1").strip().lower() not in ("0", "false", "off", "no")


class Sampler:
    """The fused Triton kernel (engine/kernels/triton_sampling.py) on CUDA, `sample_reference` elsewhere."""

    def __init__(self, fused: bool | None = None) -> None:
        self.fused = fused_enabled() if fused is None else fused

    def __call__(self, logits: torch.Tensor, t: SamplingTensors) -> torch.Tensor:
        """logits [N, V] float32/bfloat16/float16 -> sampled token ids [N] int64 (on the logits' device)."""
        if t.all_greedy:
            return logits.argmax(dim=-1)
        if self.runs_fused(logits):
            # Imported on first use: triton picks GPU compilation or its interpreter when the module is imported.
            from engine.kernels import triton_sampling

            return triton_sampling.sample(
                logits,
                t.temperature,
                t.top_k,
                t.top_p,
                t.seeds,
                t.positions,
                has_top_k=t.need_top_k,
                has_top_p=t.need_top_p,
            )
        return sample_reference(logits, t)

    def runs_fused(self, logits: torch.Tensor) -> bool:
        return self.fused and logits.is_cuda

    def warm_up(self, logits: torch.Tensor) -> None:
        """Compile every variant of the fused kernel now (the profile run), not in some request's first step."""
        if not self.runs_fused(logits):
            return
        one = torch.ones(1, device=logits.device)
        zero = torch.zeros(1, dtype=torch.int64, device=logits.device)
        for need_top_k, need_top_p in ((False, False), (True, False), (False, True), (True, True)):
            self(
                logits[:1], SamplingTensors(one, zero + 50, one * 0.9, zero, zero, False, False, need_top_k, need_top_p)
            )
