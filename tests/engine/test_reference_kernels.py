"""The reference kernels against the definition: dense causal softmax attention, written out per sequence."""

from __future__ import annotations

import math

import pytest
import torch

from engine.kernels.attention_metadata import AttentionMetadata, kv_cache_shape
from engine.kernels.reference import paged_attention, prefill_attention, write_kv

HQ, HKV, D, BS, NUM_BLOCKS = 4, 2, 16, 4, 40


def naive_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, context: int) -> torch.Tensor:
    """q [L, Hq, D] at positions context.. over k/v [S, Hkv, D]: softmax(q k^T / sqrt(D) + causal) v, in float64."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, 1).double(), v.repeat_interleave(group, 1).double()
    scores = torch.einsum("lhd,shd->hls", q.double(), k) / math.sqrt(q.shape[-1])
    pos_q = torch.arange(q.shape[0]).unsqueeze(1) + context
    scores = scores.masked_fill(torch.arange(k.shape[0]).unsqueeze(0) > pos_q, float("-inf"))
    return torch.einsum("hls,shd->lhd", scores.softmax(-1), v)


def paged_batch(q_lens: list[int], seq_lens: list[int], dtype: torch.dtype = torch.float32, seed: int = 0):
    """Random K/V for every position of every sequence, written into shuffled blocks with `write_kv` in two
    stages (the cached prefix, then this step's new tokens), plus the metadata of the step."""
    g = torch.Generator().manual_seed(seed)
    free = torch.randperm(NUM_BLOCKS, generator=g).tolist()
    cache = torch.zeros(kv_cache_shape(NUM_BLOCKS, BS, HKV, D), dtype=dtype)
    width = max(-(-s // BS) for s in seq_lens) + 1
    tables, ks, vs, slots_new, k_new, v_new = [], [], [], [], [], []
    for n, s in zip(q_lens, seq_lens):
        table = [free.pop() for _ in range(-(-s // BS))]
        slots = torch.tensor([table[p // BS] * BS + p % BS for p in range(s)])
        k, v = torch.randn(s, HKV, D, generator=g).to(dtype), torch.randn(s, HKV, D, generator=g).to(dtype)
        write_kv(k[: s - n], v[: s - n], cache, slots[: s - n])  # what earlier steps cached
        slots_new.append(slots[s - n :])
        k_new.append(k[s - n :])
        v_new.append(v[s - n :])
        tables.append(table + [-1] * (width - len(table)))
        ks.append(k)
        vs.append(v)
    write_kv(torch.cat(k_new), torch.cat(v_new), cache, torch.cat(slots_new))  # this step's tokens
    cu = [0]
    for n in q_lens:
        cu.append(cu[-1] + n)
    attn = AttentionMetadata(
        torch.tensor(cu, dtype=torch.int32),
        torch.tensor(seq_lens, dtype=torch.int32),
        torch.tensor(tables, dtype=torch.int32),
        torch.cat(slots_new),
        max(q_lens),
        max(seq_lens),
        list(q_lens),
        list(seq_lens),
    )
    q = torch.randn(cu[-1], HQ, D, generator=g).to(dtype)
    return q, cache, attn, ks, vs


CASES = {
    "all-decode": ([1, 1, 1], [9, 1, 17]),
    "prefill-only": ([5, 12], [5, 12]),
    "decode-first-then-chunk": ([1, 1, 6], [13, 4, 10]),  # decode rows contiguous: sliced path
    "decode-interleaved": ([1, 7, 1, 3, 1], [6, 7, 21, 11, 2]),  # decode rows 0, 2, 4: gathered path
}


@pytest.mark.parametrize("q_lens,seq_lens", CASES.values(), ids=CASES.keys())
def test_paged_attention_equals_dense_causal_attention(q_lens: list[int], seq_lens: list[int]) -> None:
    q, cache, attn, ks, vs = paged_batch(q_lens, seq_lens)
    out = paged_attention(q, cache, attn, scale=D**-0.5)
    start = 0
    for n, s, k, v in zip(q_lens, seq_lens, ks, vs):
        ref = naive_attention(q[start : start + n], k, v, context=s - n)
        torch.testing.assert_close(out[start : start + n].double(), ref, atol=1e-5, rtol=0)
        start += n


def test_paged_attention_in_bfloat16_stays_close() -> None:
    q_lens, seq_lens = [1, 7, 1], [6, 12, 21]
    q, cache, attn, ks, vs = paged_batch(q_lens, seq_lens, dtype=torch.bfloat16)
    out = paged_attention(q, cache, attn, scale=D**-0.5)
    assert out.dtype == torch.bfloat16
    start = 0
    for n, s, k, v in zip(q_lens, seq_lens, ks, vs):
        ref = naive_attention(q[start : start + n], k, v, context=s - n)
        torch.testing.assert_close(out[start : start + n].double(), ref, atol=3e-2, rtol=0)
        start += n


def test_paged_attention_reads_device_lengths_when_host_copies_are_absent() -> None:
    q, cache, attn, _, _ = paged_batch([1, 4], [9, 4])
    with_host = paged_attention(q, cache, attn, scale=0.25)
    attn.q_lens_cpu = attn.seq_lens_cpu = None
    torch.testing.assert_close(paged_attention(q, cache, attn, scale=0.25), with_host, atol=0, rtol=0)


def test_write_kv_places_each_token_at_its_slot_and_skips_padding() -> None:
    cache = torch.zeros(kv_cache_shape(3, BS, HKV, D))
    k, v = torch.randn(4, HKV, D), torch.randn(4, HKV, D)
    slots = torch.tensor([9, -1, 2, -1])  # -1: a padded row (vLLM's PAD_SLOT_ID)
    write_kv(k, v, cache, slots)
    torch.testing.assert_close(cache[0, 2, 1], k[0], atol=0, rtol=0)  # slot 9 = block 2, offset 1
    torch.testing.assert_close(cache[1, 0, 2], v[2], atol=0, rtol=0)
    written = (cache.abs().sum(dim=(-1, -2)) > 0).nonzero().tolist()
    assert sorted(written) == [[0, 0, 2], [0, 2, 1], [1, 0, 2], [1, 2, 1]]
    before = cache.clone()
    write_kv(k[:2], v[:2], cache, torch.tensor([-1, -1]))  # nothing real to write: cache unchanged
    assert torch.equal(cache, before)


def test_prefill_attention_without_cache_equals_dense_causal() -> None:
    g = torch.Generator().manual_seed(3)
    lens = [3, 8, 1]
    q, k, v = (torch.randn(sum(lens), h, D, generator=g) for h in (HQ, HKV, HKV))
    attn = AttentionMetadata(
        torch.tensor([0, 3, 11, 12], dtype=torch.int32),
        torch.tensor(lens, dtype=torch.int32),
        torch.zeros(3, 1, dtype=torch.int32),
        torch.zeros(12, dtype=torch.int64),
        8,
        8,
        lens,
        lens,
    )
    out = prefill_attention(q, k, v, attn, scale=D**-0.5)
    start = 0
    for n in lens:
        sl = slice(start, start + n)
        torch.testing.assert_close(out[sl].double(), naive_attention(q[sl], k[sl], v[sl], 0), atol=1e-5, rtol=0)
        start += n
