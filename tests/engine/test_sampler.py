"""Sampler (the torch path, also the fused kernel's oracle): exact greedy, seeded draws independent of the batch,
top-k/top-p cuts, and the exact renormalised distribution."""

from __future__ import annotations

import pytest
import torch
from sampling_cases import OFF, chi_square_ok, exact_distribution, rows, tensors

from engine.worker.sampler import (
    ENV_FUSED,
    Sampler,
    exponential_noise,
    fused_enabled,
    sample_reference,
    top_k_top_p_mask,
)

V = 50
DRAWS = 100_000
# Distinct logits whose cumulative masses sit far from the top-p values below, so float rounding cannot move a cut.
CASE = [2.0, 1.5, 1.1, 0.6, 0.3, 0.0, -0.4, -0.9, -1.5, -2.5, float("-inf"), -3.0]


def logits(n: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(n, V, generator=torch.Generator().manual_seed(seed)) * 3


def test_greedy_rows_are_exact_argmax_in_a_mixed_batch():
    x = logits(6)
    t = tensors(6, temperature=[0.0, 1.0, 0.0, 0.7, 0.0, 2.0], top_k=[5, 1, 50, 3, 2, 9], top_p=0.5)
    out = Sampler()(x, t)
    greedy = x.argmax(-1)
    assert torch.equal(out[[0, 2, 4]], greedy[[0, 2, 4]])
    assert torch.equal(Sampler()(x, tensors(6, temperature=0.0)), greedy)
    half = x.bfloat16()
    assert torch.equal(Sampler()(half, t)[[0, 2, 4]], half.float().argmax(-1)[[0, 2, 4]])


def test_greedy_ties_take_the_first_index():
    x = torch.tensor([[1.0, 3.0, 3.0, 2.0], [float("-inf")] * 4])
    assert Sampler()(x, tensors(2, temperature=[0.0, 0.0])).tolist() == [1, 0]
    assert sample_reference(x, tensors(2, temperature=[0.0, 1.0]))[0] == 1


def test_seeded_rows_do_not_depend_on_batch_neighbours_or_row_index():
    x = logits(5)
    t = tensors(
        5,
        temperature=[1.0, 0.5, 2.0, 1.0, 0.8],
        top_k=[OFF, 7, 3, OFF, 20],
        top_p=[1.0, 0.9, 1.0, 0.6, 0.95],
        seeds=[11, 12, 13, 14, 15],
        positions=[3, 4, 5, 6, 7],
    )
    full = Sampler()(x, t)
    assert torch.equal(full, Sampler()(x, t))  # same seeds, same tokens
    for i in range(5):
        assert Sampler()(x[i : i + 1], rows(t, [i]))[0] == full[i]  # alone
    order = torch.tensor([3, 0, 4, 2, 1])
    assert torch.equal(Sampler()(x[order], rows(t, order)), full[order])  # another row index


def test_noise_depends_on_seed_and_position():
    a = exponential_noise(torch.tensor([1, 1, 2]), torch.tensor([0, 1, 0]), 1000)
    assert not torch.equal(a[0], a[1]) and not torch.equal(a[0], a[2])
    assert (a > 0).all() and abs(a.mean().item() - 1.0) < 0.1  # Exp(1) has mean 1


@pytest.mark.parametrize(
    ("temperature", "top_k", "top_p"),
    [(1.0, None, 1.0), (0.6, None, 1.0), (1.0, 4, 1.0), (1.0, None, 0.8), (0.7, 6, 0.75), (1.5, 3, 0.9)],
    ids=["temperature", "cold", "top-k", "top-p", "top-k+top-p", "hot+top-k+top-p"],
)
def test_draws_follow_the_exact_renormalised_distribution(temperature: float, top_k: int | None, top_p: float):
    x = torch.tensor(CASE).expand(DRAWS, len(CASE)).contiguous()
    t = tensors(
        DRAWS,
        temperature=temperature,
        top_k=top_k,
        top_p=top_p,
        seeds=torch.arange(DRAWS) * 7919,
        positions=torch.arange(DRAWS) % 97,
    )
    ok, why = chi_square_ok(Sampler()(x, t), exact_distribution(CASE, temperature, top_k, top_p))
    assert ok, why


def test_top_p_keeps_the_smallest_nucleus_and_ties_together():
    x = torch.tensor([[0.5, 0.3, 0.15, 0.05]]).log()
    one = torch.ones(1)
    assert top_k_top_p_mask(x, one, None, torch.tensor([0.75])).tolist() == [[True, True, False, False]]
    assert top_k_top_p_mask(x, one, None, torch.tensor([0.85])).tolist() == [[True, True, True, False]]
    assert top_k_top_p_mask(x, one, torch.tensor([3]), None).tolist() == [[True, True, True, False]]
    ties = torch.tensor([[2.0, 1.0, 1.0, 1.0, 0.0]])  # tokens 1..3 share one logit
    assert top_k_top_p_mask(ties, one, torch.tensor([2]), None).tolist() == [[True, True, True, True, False]]
    assert top_k_top_p_mask(ties, one, None, torch.tensor([0.5])).tolist() == [[True, True, True, True, False]]


def test_edge_cases_of_the_cuts():
    x = logits(64)
    greedy = x.argmax(-1)
    seeds = torch.arange(64) * 31
    assert torch.equal(Sampler()(x, tensors(64, temperature=1.0, top_k=1, seeds=seeds)), greedy)
    assert torch.equal(Sampler()(x, tensors(64, temperature=1.0, top_p=1e-6, seeds=seeds)), greedy)
    plain = Sampler()(x, tensors(64, temperature=0.9, seeds=seeds))
    assert torch.equal(Sampler()(x, tensors(64, temperature=0.9, top_k=V, seeds=seeds)), plain)  # k = V
    assert torch.equal(Sampler()(x, tensors(64, temperature=0.9, top_k=10 * V, seeds=seeds)), plain)  # k > V
    p_one = tensors(64, temperature=0.9, top_k=[2] + [OFF] * 63, top_p=[0.5] + [1.0] * 63, seeds=seeds)  # p = 1
    assert torch.equal(Sampler()(x, p_one)[1:], plain[1:])
    top3 = x.topk(3, dim=-1).indices
    out = Sampler()(x, tensors(64, temperature=5.0, top_k=3, seeds=seeds))
    assert all(out[i] in top3[i] for i in range(64))


def test_minus_infinity_logits_are_never_drawn():
    x = torch.full((256, 6), float("-inf"))
    x[:, 2] = 0.0
    x[:, 4] = 0.0
    out = Sampler()(x, tensors(256, temperature=1.0, top_p=0.99))
    assert set(out.tolist()) == {2, 4}
    alone = torch.full((1, 6), float("-inf"))
    assert 0 <= Sampler()(alone, tensors(1, temperature=1.0, top_k=2, top_p=0.5))[0] < 6


def test_extreme_temperatures():
    tied = torch.tensor([1.0, 3.0, 2.0, 3.0, -1.0]).expand(2000, 5).contiguous()
    cold = Sampler()(tied, tensors(2000, temperature=1e-30, seeds=torch.arange(2000)))
    assert set(cold.tolist()) == {1, 3}  # the tied maxima, each half the time
    ok, why = chi_square_ok(cold, [0.0, 0.5, 0.0, 0.5, 0.0])
    assert ok, why
    hot = Sampler()(tied, tensors(2000, temperature=1e30, seeds=torch.arange(2000)))
    ok, why = chi_square_ok(hot, [0.2] * 5)  # uniform
    assert ok, why


def test_the_fused_kernel_is_on_unless_switched_off(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(ENV_FUSED, raising=False)
    assert fused_enabled() and Sampler().fused
    monkeypatch.setenv(ENV_FUSED, "0")
    assert not fused_enabled() and not Sampler().fused
    x = logits(4)
    t = tensors(4, temperature=0.8, top_k=5)
    assert torch.equal(Sampler(fused=True)(x, t), sample_reference(x, t))  # CPU tensors take the torch path
