"""Sampling as one Triton kernel: greedy, temperature, top-k and top-p per row, seeded, without sorting.

One program per row (so a row's token never depends on its neighbours or its row index) reads the logits in
their own dtype and never writes a copy of them. Per row:
  temperature 0        one pass: the argmax of the raw logits (the first index among ties);
  temperature only     one pass: the exponential race (Gumbel-max) over the whole vocabulary;
  top-k and/or top-p   a statistics pass, then each cut is found as a logit threshold by a multi-pivot search
                       (passes that only count tokens or sum probabilities above 16 candidate thresholds, so
                       the interval shrinks ~9-17x a pass), then the race over the tokens above the threshold.
Thresholds are searched over an integer key that orders the logits exactly (the float's bits, sign-folded),
so a cut is exact and keeps every token tied with its last one, as engine/worker/sampler.py's sort does.
The noise is the same splitmix64 hash of (seed, position, vocabulary index) as engine/worker/sampler.py's
`exponential_noise`, bit for bit, so both paths draw the same token up to float rounding.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

NUM_PIVOTS = 16  # candidate thresholds a search pass tests: half evenly in key space, half in value space
# A program walks its row in BLOCK-sized loads, one at a time: larger blocks amortise each load's latency. 4096 with
# 16 warps compiles for sm_90 without spilling (8192 spills in the search's [BLOCK, NUM_PIVOTS] compare); the best
# pair on an H200 is what tools/device_sampler.py's tuning table measures.
DEFAULT_BLOCK = 4096
DEFAULT_NUM_WARPS = 16
# Low key bits that a half-precision input never sets (fp32 mantissa bits beyond its own): dropping them makes the
# key space as small as the dtype: a bf16 cut takes at most 6 search passes (the key-spaced pivots alone), usually 3.
_KEY_SHIFT = {torch.float32: 0, torch.bfloat16: 16, torch.float16: 13}
_KEY_MIN = tl.constexpr(-(2**31))
_KEY_MAX = tl.constexpr(2**31 - 1)


@triton.jit
def _mix64(z):
    """splitmix64's finaliser on uint64 (products wrap modulo 2**64; >> is logical on unsigned)."""
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB
    return z ^ (z >> 31)


@triton.jit
def _gumbel(row_key, idx):
    """-log(E), E ~ Exp(1) from 24 hashed bits of (row key, vocabulary index): engine/worker/sampler.py's noise."""
    bits = (_mix64(row_key + idx.to(tl.uint64) * 0x9E3779B97F4A7C15) >> 40).to(tl.float32)
    return -tl.log(-tl.log((bits + 0.5) * (1.0 / 16777216)))


@triton.jit
def _sort_key(x, SHIFT: tl.constexpr):
    """An int32 that orders float32 values exactly as < does (-0.0 folded onto +0.0)."""
    bits = tl.where(x == 0.0, 0.0, x).to(tl.int32, bitcast=True)
    return (bits ^ ((bits >> 31) & 0x7FFFFFFF)) >> SHIFT


@triton.jit
def _key_value(key, SHIFT: tl.constexpr):
    """The float32 whose _sort_key is `key` (the fold is its own inverse)."""
    bits = key << SHIFT
    return (bits ^ ((bits >> 31) & 0x7FFFFFFF)).to(tl.float32, bitcast=True)


@triton.jit
def _argmax(base, V, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    best_x = float("-inf")
    best = 0
    for start in range(0, V, BLOCK):
        x = tl.load(base + start + offs, mask=start + offs < V, other=float("-inf")).to(tl.float32)
        bx, bi = tl.max(x, 0, return_indices=True)
        if bx > best_x:  # strictly: the first block with the maximum keeps it
            best_x = bx
            best = start + bi
    return best


@triton.jit
def _stats(base, V, SHIFT: tl.constexpr, BLOCK: tl.constexpr):
    """(max logit, min finite logit, min key, max key) of a row."""
    offs = tl.arange(0, BLOCK)
    m = float("-inf")
    vmin = float("inf")
    kmin = _KEY_MAX
    kmax = _KEY_MIN
    for start in range(0, V, BLOCK):
        valid = start + offs < V
        x = tl.load(base + start + offs, mask=valid, other=float("-inf")).to(tl.float32)
        key = _sort_key(x, SHIFT)
        m = tl.maximum(m, tl.max(x, 0))
        vmin = tl.minimum(vmin, tl.min(tl.where(valid & (x > float("-inf")), x, float("inf")), 0))
        kmin = tl.minimum(kmin, tl.min(tl.where(valid, key, _KEY_MAX), 0))
        kmax = tl.maximum(kmax, tl.max(tl.where(valid, key, _KEY_MIN), 0))
    return m, vmin, kmin, kmax


@triton.jit
def _pivots(lo, hi, vmin, SHIFT: tl.constexpr, NUM_PIVOTS: tl.constexpr):
    """NUM_PIVOTS keys inside (lo, hi): half evenly spaced in key space (a sure shrink, however the logits are
    spread), half evenly in value space (close to the cut at once for the usual bell of logits)."""
    HALF: tl.constexpr = NUM_PIVOTS // 2
    j = tl.arange(0, NUM_PIVOTS)
    width = hi.to(tl.int64) - lo - 1  # keys strictly between lo and hi
    by_key = lo + 1 + ((width * j) // HALF).to(tl.int32)
    v_lo = tl.maximum(_key_value(lo, SHIFT), vmin)
    v_hi = _key_value(hi - 1, SHIFT)
    frac = (j - HALF + 1).to(tl.float32) / (HALF + 1)
    by_value = tl.minimum(tl.maximum(_sort_key(v_lo + (v_hi - v_lo) * frac, SHIFT), lo + 1), hi - 1)
    return tl.where(j < HALF, by_key, by_value)


@triton.jit
def _search(
    base,
    V,
    lo,
    hi,
    floor,
    target,
    m,
    t,
    vmin,
    USE_MASS: tl.constexpr,
    SHIFT: tl.constexpr,
    BLOCK: tl.constexpr,
    NUM_PIVOTS: tl.constexpr,
):
    """The largest key c in [lo, hi) with F(c) >= target, where F(c) is the number of tokens with key >= c, or
    (USE_MASS) their probability mass exp((x - m) / t); for mass the target is a fraction of F(floor). Needs
    F(lo) >= target > F(hi); each pass counts above all pivots at once."""
    offs = tl.arange(0, BLOCK)
    while lo + 1 < hi:  # (hi - lo can overflow int32: keys span all of it)
        piv = _pivots(lo, hi, vmin, SHIFT, NUM_PIVOTS)  # [P] int32
        acc = tl.zeros([NUM_PIVOTS], dtype=tl.float32)
        total = 0.0
        for start in range(0, V, BLOCK):
            valid = start + offs < V
            x = tl.load(base + start + offs, mask=valid, other=float("-inf")).to(tl.float32)
            key = _sort_key(x, SHIFT)
            if USE_MASS:
                w = tl.exp((x - m) / t)  # 0 outside the row
                total += tl.sum(tl.where(key >= floor, w, 0.0), 0)
            else:
                w = valid.to(tl.float32)  # counts are exact in float32 below 2**24
            # Keys <= lo count for no pivot and keys >= hi for all: only blocks with keys between need the matrix.
            if tl.max((valid & (key > lo) & (key < hi)).to(tl.int32), 0) > 0:
                acc += tl.sum(tl.where(key[:, None] >= piv[None, :], w[:, None], 0.0), 0)
            else:
                acc += tl.sum(tl.where(key >= hi, w, 0.0), 0)
        goal = target * total if USE_MASS else target
        ok = acc >= goal
        new_lo = tl.max(tl.where(ok, piv, lo), 0)
        hi = tl.min(tl.where(ok, hi, piv), 0)
        lo = new_lo
    return lo


@triton.jit
def _race(base, V, t, threshold, m, row_key, SHIFT: tl.constexpr, BLOCK: tl.constexpr):
    """argmax over tokens with key >= threshold of (x - M) / t + Gumbel, M the running maximum (m when known):
    scores stay finite for any temperature, and each rescale when M grows is exact in the limit t -> 0."""
    offs = tl.arange(0, BLOCK)
    best_s = float("-inf")
    best = 0
    for start in range(0, V, BLOCK):
        valid = start + offs < V
        x = tl.load(base + start + offs, mask=valid, other=float("-inf")).to(tl.float32)
        keep = valid & (_sort_key(x, SHIFT) >= threshold) & (x > float("-inf"))
        if tl.max(keep.to(tl.int32), 0) > 0:  # most blocks hold no candidate once a cut is set
            new_m = tl.maximum(m, tl.max(tl.where(keep, x, float("-inf")), 0))
            best_s = best_s + (m - new_m) / t  # -inf stays -inf; new_m is finite here
            m = new_m
            s = tl.where(keep, (x - m) / t + _gumbel(row_key, start + offs), float("-inf"))
            bs, bi = tl.max(s, 0, return_indices=True)
            if bs > best_s:
                best_s = bs
                best = start + bi
    return best


# V and stride_row stay specialised: a launch that sees them divisible by 16 (Qwen3's 151,936 is) reads 16-byte vectors.
@triton.jit
def _sample_kernel(
    out_ptr,  # [N] int64
    logits_ptr,  # [N, V] (row stride stride_row, unit column stride)
    temperature_ptr,  # [N] float32, 0 = greedy
    top_k_ptr,  # [N] int64, >= V where off
    top_p_ptr,  # [N] float32, 1 where off
    seed_ptr,
    position_ptr,  # [N] int64
    V,
    stride_row,
    HAS_TOP_K: tl.constexpr,
    HAS_TOP_P: tl.constexpr,
    SHIFT: tl.constexpr,
    BLOCK: tl.constexpr,
    NUM_PIVOTS: tl.constexpr,
):
    row = tl.program_id(0)
    base = logits_ptr + row.to(tl.int64) * stride_row
    t = tl.load(temperature_ptr + row)
    if t > 0:
        k = V
        if HAS_TOP_K:
            k = tl.maximum(tl.minimum(tl.load(top_k_ptr + row), V), 1).to(tl.int32)
        p = 1.0
        if HAS_TOP_P:
            p = tl.load(top_p_ptr + row)
        threshold = _KEY_MIN
        m = float("-inf")
        if (k < V) | (p < 1.0):
            m, vmin, kmin, kmax = _stats(base, V, SHIFT, BLOCK)
            m_mass = tl.where(m > float("-inf"), m, 0.0)  # an all -inf row: no NaN from -inf - -inf
            threshold = kmin
            if k < V:
                threshold = _search(
                    base,
                    V,
                    threshold,
                    kmax + 1,
                    threshold,
                    k.to(tl.float32),
                    m_mass,
                    t,
                    vmin,
                    False,
                    SHIFT,
                    BLOCK,
                    NUM_PIVOTS,
                )
            if p < 1.0:
                threshold = _search(
                    base, V, threshold, kmax + 1, threshold, p, m_mass, t, vmin, True, SHIFT, BLOCK, NUM_PIVOTS
                )
        seed = tl.load(seed_ptr + row).to(tl.uint64)
        position = tl.load(position_ptr + row).to(tl.uint64)
        row_key = _mix64(_mix64(seed * 0x9E3779B97F4A7C15 + position) + 0x9E3779B97F4A7C15)
        token = _race(base, V, t, threshold, m, row_key, SHIFT, BLOCK)
    else:
        token = _argmax(base, V, BLOCK)
    tl.store(out_ptr + row, token.to(tl.int64))


def sample(
    logits: torch.Tensor,  # [N, V] float32 / bfloat16 / float16, rows may be strided
    temperature: torch.Tensor,  # [N] float32, 0 = greedy
    top_k: torch.Tensor,  # [N] int64, >= V where off
    top_p: torch.Tensor,  # [N] float32, 1 where off
    seeds: torch.Tensor,  # [N] int64
    positions: torch.Tensor,  # [N] int64, position of the token being sampled
    has_top_k: bool,
    has_top_p: bool,  # host flags: False compiles the stage out
    block: int = DEFAULT_BLOCK,
    num_warps: int = DEFAULT_NUM_WARPS,
) -> torch.Tensor:
    """Sampled token ids [N] int64 on the logits' device; no host synchronisation, no data-dependent shape."""
    if logits.dtype not in _KEY_SHIFT:
        raise ValueError(f"fused sampling reads float32, bfloat16 or float16 logits, not {logits.dtype}")
    num_rows, vocab = logits.shape
    logits = logits if logits.stride(1) == 1 else logits.contiguous()
    out = torch.empty(num_rows, dtype=torch.int64, device=logits.device)
    if num_rows == 0:
        return out
    _sample_kernel[(num_rows,)](
        out,
        logits,
        temperature,
        top_k,
        top_p,
        seeds,
        positions,
        vocab,
        logits.stride(0),
        HAS_TOP_K=has_top_k,
        HAS_TOP_P=has_top_p,
        SHIFT=_KEY_SHIFT[logits.dtype],
        BLOCK=min(block, triton.next_power_of_2(vocab)),
        NUM_PIVOTS=NUM_PIVOTS,
        num_warps=num_warps,
    )
    return out
