"""The fused layer kernels (residual add + RMSNorm, q/k norm + rotary + KV write, SiLU * up) against their torch
references (engine/kernels/layer_reference.py), on CPU through triton's interpreter.

As test_triton_kernels.py: TRITON_INTERPRET=1 is set while the kernel modules are imported and around each test.
None of these kernels loops, so an interpreter that cannot run tensor loop bounds still runs them all. In bfloat16
the kernels round where the references round, so almost every element is bit-identical; the rest differ by one
unit in the last place, from float32 sums taken in another order.
"""

from __future__ import annotations


import pytest
import torch

from triton_interp import import_interpreted, round_bf16_to_nearest_even

from engine.kernels.attention_metadata import kv_cache_shape

layer_reference, triton_act, triton_norm, triton_rope_kv = import_interpreted(
    "engine.kernels.layer_reference",
    "engine.kernels.triton_act",
    "engine.kernels.triton_norm",
    "engine.kernels.triton_rope_kv",
)

DTYPES = [torch.float32, torch.bfloat16]


@pytest.fixture(autouse=True)
def interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    round_bf16_to_nearest_even(monkeypatch)  # as a GPU rounds (the interpreter truncates)


def assert_matches(got: torch.Tensor, want: torch.Tensor) -> None:
    """float32: within float32 rounding; bfloat16: >= 98% bit-identical, every element within one ulp."""
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype == torch.float32:
        torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
        return
    torch.testing.assert_close(got.float(), want.float(), atol=1e-6, rtol=2**-7)
    identical = (got == want).float().mean().item()
    assert identical >= 0.98, f"only {identical:.1%} bit-identical: the kernel rounds elsewhere than torch"


def strided(t: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """The same values as a view with a wider row stride (a slice of a larger buffer), as a GEMM output may be."""
    wide = torch.randn(t.shape[0], t.shape[1] + 13, generator=g).to(t.dtype)
    wide[:, 5 : 5 + t.shape[1]] = t
    return wide[:, 5 : 5 + t.shape[1]]


# ---- residual add + RMSNorm --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n_cols", [64, 100, 1030])
@pytest.mark.parametrize("layout", ["contiguous", "strided", "transposed"])
def test_rms_norm_with_and_without_residual(dtype: torch.dtype, n_cols: int, layout: str) -> None:
    g = torch.Generator().manual_seed(n_cols)
    x = (torch.randn(7, n_cols, generator=g) * 3).to(dtype)
    residual = torch.randn(7, n_cols, generator=g).to(dtype)
    weight = torch.empty(n_cols).uniform_(0.5, 1.5, generator=g).to(dtype)
    if layout == "strided":
        x, residual = strided(x, g), strided(residual, g)
    elif layout == "transposed":  # column stride != 1
        x, residual = x.t().contiguous().t(), residual.t().contiguous().t()
    for res in (None, residual):
        out, new_res = triton_norm.rms_norm(x, weight, 1e-6, res)
        want_out, want_res = layer_reference.rms_norm(x, weight, 1e-6, res)
        assert_matches(out, want_out)
        assert torch.equal(new_res, want_res)  # the sum rounds once, the same way
    assert triton_norm.rms_norm(x, weight, 1e-6)[1] is x  # first layer: x itself is the residual stream


def test_rms_norm_edge_cases() -> None:
    empty = torch.zeros(0, 32)
    out, res = triton_norm.rms_norm(empty, torch.ones(32), 1e-6, empty)
    assert out.shape == (0, 32) and res.shape == (0, 32)
    with pytest.raises(ValueError, match="one dtype"):
        triton_norm.rms_norm(torch.zeros(2, 32), torch.ones(32, dtype=torch.bfloat16), 1e-6)


# ---- q/k RMSNorm + rotary + KV-cache write -----------------------------------------------------------------
def rope_case(num_heads: int, num_kv_heads: int, head_dim: int, dtype: torch.dtype, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    num_tokens, max_pos = 7, 300
    qkv = torch.randn(num_tokens, (num_heads + 2 * num_kv_heads) * head_dim, generator=g).to(dtype)
    positions = torch.randint(0, max_pos, (num_tokens,), generator=g)
    inv_freq = 1.0 / (10000 ** (torch.arange(0, head_dim, 2).float() / head_dim))
    freqs = torch.outer(torch.arange(max_pos, dtype=torch.float32), inv_freq)
    cos_sin = torch.cat((freqs.cos(), freqs.sin()), dim=-1)  # [max_pos, D]
    q_w = torch.empty(head_dim).uniform_(0.5, 1.5, generator=g).to(dtype)
    k_w = torch.empty(head_dim).uniform_(0.5, 1.5, generator=g).to(dtype)
    cache = torch.randn(kv_cache_shape(4, 16, num_kv_heads, head_dim), generator=g).to(dtype)
    slots = torch.tensor([9, -1, 40, 3, -1, 63, 17])  # -1: padding rows
    return qkv, positions, cos_sin, q_w, k_w, cache, slots


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("heads", [(4, 2), (6, 3), (2, 2)], ids=["gqa2", "odd-heads", "mha"])
@pytest.mark.parametrize("qk_norm", [True, False], ids=["qwen3", "llama"])
@pytest.mark.parametrize("layout", ["contiguous", "strided"])
def test_rope_write_kv_matches_reference(
    dtype: torch.dtype, heads: tuple[int, int], qk_norm: bool, layout: str
) -> None:
    qkv, positions, cos_sin, q_w, k_w, cache, slots = rope_case(*heads, 32, dtype)
    if layout == "strided":
        qkv = strided(qkv, torch.Generator().manual_seed(1))
    weights = (q_w, k_w) if qk_norm else (None, None)
    want_cache, got_cache = cache.clone(), cache.clone()
    want = layer_reference.rope_write_kv(qkv, positions, cos_sin, *weights, 1e-6, *heads, want_cache, slots)
    got = triton_rope_kv.rope_write_kv(qkv, positions, cos_sin, *weights, 1e-6, *heads, got_cache, slots)
    assert_matches(got, want)
    assert got.is_contiguous()
    written = torch.zeros(cache.shape[1] * cache.shape[2], dtype=torch.bool)
    written[slots[slots >= 0]] = True
    flat_got, flat_want = got_cache.flatten(1, 2), want_cache.flatten(1, 2)  # [2, slots, Hkv, D]
    assert torch.equal(flat_got[:, ~written], cache.flatten(1, 2)[:, ~written])  # padding rows wrote nothing
    assert_matches(flat_got[:, written], flat_want[:, written])
    assert torch.equal(flat_got[1, written], flat_want[1, written])  # V is copied, never rounded


def test_rope_write_kv_head_dim_128_and_no_real_rows() -> None:
    qkv, positions, cos_sin, q_w, k_w, cache, slots = rope_case(4, 2, 128, torch.float32, seed=3)
    got_cache = cache.clone()
    got = triton_rope_kv.rope_write_kv(
        qkv, positions, cos_sin, q_w, k_w, 1e-6, 4, 2, got_cache, torch.full_like(slots, -1)
    )
    want = layer_reference.qk_norm_rope(qkv, positions, cos_sin, q_w, k_w, 1e-6, 4, 2)[0]
    assert_matches(got, want)
    assert torch.equal(got_cache, cache)
    assert triton_rope_kv.rope_write_kv(
        qkv[:0], positions[:0], cos_sin, q_w, k_w, 1e-6, 4, 2, cache, slots[:0]
    ).shape == (0, 4, 128)
    with pytest.raises(ValueError, match="does not hold 4 q and 1 k/v heads"):
        triton_rope_kv.rope_write_kv(qkv, positions, cos_sin, q_w, k_w, 1e-6, 4, 1, cache, slots)


# ---- SiLU(gate) * up ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n_cols", [77, 128, 1100])
@pytest.mark.parametrize("layout", ["contiguous", "strided"])
def test_silu_and_mul_matches_reference(dtype: torch.dtype, n_cols: int, layout: str) -> None:
    g = torch.Generator().manual_seed(n_cols)
    gate_up = (torch.randn(5, 2 * n_cols, generator=g) * 4).to(dtype)
    if layout == "strided":
        gate_up = strided(gate_up, g)
    assert_matches(triton_act.silu_and_mul(gate_up), layer_reference.silu_and_mul(gate_up))


def test_silu_and_mul_edge_cases() -> None:
    assert triton_act.silu_and_mul(torch.zeros(0, 8)).shape == (0, 4)
    with pytest.raises(ValueError, match="equal width, got 7 columns"):
        triton_act.silu_and_mul(torch.zeros(2, 7))
