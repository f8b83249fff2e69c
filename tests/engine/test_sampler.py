"""Sampler: exact greedy, seeded reproducibility independent of the batch, top-k/top-p, the right distribution."""
from __future__ import annotations

import torch

from engine.worker.sampler import Sampler, SamplingTensors, apply_top_k_top_p, exponential_noise

V = 50


def tensors(n: int, temperature=1.0, top_k=None, top_p=1.0, seeds=None, positions=None) -> SamplingTensors:
    temp = torch.as_tensor(temperature, dtype=torch.float32).expand(n).clone()
    k = torch.full((n,), 1 << 40, dtype=torch.int64) if top_k is None else torch.as_tensor(top_k).expand(n).clone()
    p = torch.as_tensor(top_p, dtype=torch.float32).expand(n).clone()
    seeds = torch.arange(n) if seeds is None else torch.as_tensor(seeds)
    positions = torch.zeros(n, dtype=torch.int64) if positions is None else torch.as_tensor(positions)
    return SamplingTensors(temp, k, p, seeds, positions, bool((temp == 0).all()), bool((temp == 0).any()),
                           top_k is not None, bool((p < 1).any()))


def logits(n: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(n, V, generator=torch.Generator().manual_seed(seed)) * 3


def test_greedy_rows_are_exact_argmax_in_a_mixed_batch():
    x = logits(6)
    t = tensors(6, temperature=[0.0, 1.0, 0.0, 0.7, 0.0, 2.0])
    out = Sampler()(x, t)
    greedy = x.argmax(-1)
    assert torch.equal(out[[0, 2, 4]], greedy[[0, 2, 4]])
    assert torch.equal(Sampler()(x, tensors(6, temperature=0.0)), greedy)


def test_seeded_rows_do_not_depend_on_batch_neighbours():
    x = logits(5)
    t = tensors(5, temperature=1.0, seeds=[11, 12, 13, 14, 15], positions=[3, 4, 5, 6, 7])
    full = Sampler()(x, t)
    alone = Sampler()(x[2:3], tensors(1, temperature=1.0, seeds=[13], positions=[5]))
    assert full[2] == alone[0]
    assert torch.equal(full, Sampler()(x, t))                 # same seeds, same tokens


def test_noise_depends_on_seed_and_position():
    a = exponential_noise(torch.tensor([1, 1, 2]), torch.tensor([0, 1, 0]), 1000)
    assert not torch.equal(a[0], a[1]) and not torch.equal(a[0], a[2])
    assert (a > 0).all() and abs(a.mean().item() - 1.0) < 0.1   # Exp(1) has mean 1


def test_sampled_frequencies_follow_the_distribution():
    probs = torch.tensor([0.5, 0.3, 0.15, 0.05] + [0.0] * (V - 4))
    n = 4000
    x = probs.log().expand(n, V).clone()
    out = Sampler()(x, tensors(n, temperature=1.0, seeds=torch.arange(n) * 7919, positions=torch.arange(n)))
    freq = torch.bincount(out, minlength=V).float() / n
    assert freq[4:].sum() == 0
    assert torch.allclose(freq[:4], probs[:4], atol=0.03)


def test_top_k_and_top_p_restrict_the_candidates():
    x = logits(64)
    top3 = x.topk(3, dim=-1).indices
    out = Sampler()(x, tensors(64, temperature=5.0, top_k=3, seeds=torch.arange(64)))
    assert all(out[i] in top3[i] for i in range(64))
    assert torch.equal(Sampler()(x, tensors(64, temperature=1.0, top_k=1)), x.argmax(-1))
    assert torch.equal(Sampler()(x, tensors(64, temperature=1.0, top_p=1e-6)), x.argmax(-1))


def test_top_p_keeps_the_smallest_nucleus():
    x = torch.tensor([[0.5, 0.3, 0.15, 0.05]]).log()
    kept = apply_top_k_top_p(x, None, torch.tensor([0.75])).isfinite()
    assert kept.tolist() == [[True, True, False, False]]    # 0.5 + 0.3 >= 0.75
    kept = apply_top_k_top_p(x, torch.tensor([3]), torch.tensor([1.0])).isfinite()
    assert kept.tolist() == [[True, True, True, False]]
