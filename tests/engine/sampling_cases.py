"""Shared by the sampler tests (torch path and the fused Triton kernel): batches, the exact distribution, and a
chi-square check whose threshold comes from the sample size, so a fixed seed list can never flake."""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from engine.worker.sampler import SamplingTensors

OFF = 1 << 40  # a top-k no vocabulary reaches (the batch builder uses int64 max)


def tensors(
    n: int,
    temperature: float | Sequence[float] = 1.0,
    top_k: int | Sequence[int] | None = None,
    top_p: float | Sequence[float] = 1.0,
    seeds: Sequence[int] | torch.Tensor | None = None,
    positions: Sequence[int] | torch.Tensor | None = None,
) -> SamplingTensors:
    """SamplingTensors for n rows, the host flags derived as the batch builder derives them."""
    temp = torch.as_tensor(temperature, dtype=torch.float32).expand(n).clone()
    k = (
        torch.full((n,), OFF, dtype=torch.int64)
        if top_k is None
        else torch.as_tensor(top_k, dtype=torch.int64).expand(n).clone()
    )
    p = torch.as_tensor(top_p, dtype=torch.float32).expand(n).clone()
    seeds = torch.arange(n) if seeds is None else torch.as_tensor(seeds, dtype=torch.int64)
    positions = (
        torch.zeros(n, dtype=torch.int64) if positions is None else torch.as_tensor(positions, dtype=torch.int64)
    )
    return SamplingTensors(
        temp,
        k,
        p,
        seeds,
        positions,
        bool((temp == 0).all()),
        bool((temp == 0).any()),
        bool((k < OFF).any()),
        bool((p < 1).any()),
    )


def rows(t: SamplingTensors, index: Sequence[int] | torch.Tensor) -> SamplingTensors:
    """The same requests in another batch: a subset or permutation of t's rows (host flags re-derived)."""
    index = torch.as_tensor(index, dtype=torch.int64)
    temp, k, p = t.temperature[index], t.top_k[index], t.top_p[index]
    return SamplingTensors(
        temp,
        k,
        p,
        t.seeds[index],
        t.positions[index],
        bool((temp == 0).all()),
        bool((temp == 0).any()),
        bool((k < OFF).any()),
        bool((p < 1).any()),
    )


def exact_distribution(
    logits: Sequence[float], temperature: float, top_k: int | None = None, top_p: float = 1.0
) -> list[float]:
    """The distribution a sampled token must follow, in float64 and plain Python (no code shared with the
    sampler): top-k keeps the logits >= the k-th largest; top-p keeps, of those, each logit whose strictly
    larger kept tokens hold less than top_p of the renormalised mass; softmax(x / T) over what is left."""
    x = [float(v) for v in logits]
    kept = set(range(len(x)))
    if top_k is not None and top_k < len(x):
        kth = sorted(x, reverse=True)[top_k - 1]
        kept = {i for i in kept if x[i] >= kth}
    top = max(x[i] for i in kept)
    weight = {i: math.exp((x[i] - top) / temperature) for i in kept}
    total = sum(weight.values())
    if top_p < 1.0:
        kept = {i for i in kept if sum(weight[j] for j in kept if x[j] > x[i]) / total < top_p}
    z = sum(weight[i] for i in kept)
    return [weight[i] / z if i in kept else 0.0 for i in range(len(x))]


def chi_square_ok(samples: torch.Tensor, probs: Sequence[float], z: float = 5.0) -> tuple[bool, str]:
    """Whether draws fit probs, each check at a level a correct sampler fails with probability below ~1e-6:
    no draw where the probability is 0; every token's count within z binomial standard deviations of n * p
    (catches one missing or extra token); Pearson's chi-square below its Wilson-Hilferty quantile at z (catches
    a spread-out deviation), the rarest tokens pooled into one bin until every bin expects at least 5 draws."""
    n = samples.numel()
    counts = torch.bincount(samples, minlength=len(probs)).tolist()
    stray = [i for i, (c, p) in enumerate(zip(counts, probs)) if p == 0.0 and c]
    if stray:
        return False, f"tokens of probability 0 were drawn: {stray} (counts {counts})"
    off = [i for i, (c, p) in enumerate(zip(counts, probs)) if abs(c - n * p) > z * math.sqrt(n * p * (1 - p))]
    if off:
        return False, f"tokens {off} drawn {[counts[i] for i in off]} times, expected {[n * probs[i] for i in off]}"
    support = sorted(((c, p) for c, p in zip(counts, probs) if p > 0.0), key=lambda cp: cp[1])
    while len(support) > 1 and n * support[0][1] < 5:
        (c0, p0), (c1, p1) = support[:2]
        support = sorted([(c0 + c1, p0 + p1)] + support[2:], key=lambda cp: cp[1])
    if len(support) == 1:
        return True, "one bin"
    stat = sum((c - n * p) ** 2 / (n * p) for c, p in support)
    df = len(support) - 1
    limit = df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3
    return stat <= limit, f"chi-square {stat:.1f} over {df} degrees of freedom (limit {limit:.1f}), counts {counts}"
