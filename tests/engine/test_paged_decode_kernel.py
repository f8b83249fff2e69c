"""The one-token-row decode kernel (triton_paged_decode) against the reference kernel, under triton's interpreter.

Shapes stay tiny (every program runs in Python). Lengths cover a context shorter than one tile, exact multiples
of the tile (no partial tile: the masked tail must not run) and ragged ones, in both cache layouts, with rows of
several query tokens beside (the kernel must leave them unwritten for the other launch).
"""

from __future__ import annotations

import os

import pytest
import torch

from triton_interp import interpreter_loop_problem

_saved = os.environ.get("TRITON_INTERPRET")
os.environ["TRITON_INTERPRET"] = "1"
try:
    triton = pytest.importorskip("triton", reason="triton is not installed")
    from engine.kernels import reference
    from engine.kernels.triton_paged_decode import _paged_decode_kernel, paged_decode

    LOOP_PROBLEM = interpreter_loop_problem()
finally:
    if _saved is None:
        del os.environ["TRITON_INTERPRET"]
    else:
        os.environ["TRITON_INTERPRET"] = _saved

from engine.kernels.attention_metadata import AttentionMetadata, as_layout, kv_cache_shape  # noqa: E402

if type(_paged_decode_kernel).__name__ != "InterpretedFunction":
    pytest.skip("the kernel was imported before TRITON_INTERPRET=1 was set in this process", allow_module_level=True)
pytestmark = pytest.mark.skipif(LOOP_PROBLEM is not None, reason=str(LOOP_PROBLEM))

NUM_BLOCKS = 40
TILE = 32  # two 16-token blocks a tile: exact multiples, partial tiles and sub-tile contexts all occur below


@pytest.fixture(autouse=True)
def interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITON_INTERPRET", "1")


def make_step(q_lens: list[int], seq_lens: list[int], hq: int, hkv: int, head_dim: int, layout: str, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    free = torch.randperm(NUM_BLOCKS, generator=g).tolist()
    cache = as_layout(torch.randn(kv_cache_shape(NUM_BLOCKS, 16, hkv, head_dim), generator=g), layout)
    width = max(-(-s // 16) for s in seq_lens) + 1
    tables = []
    for s in seq_lens:
        table = [free.pop() for _ in range(-(-s // 16))]
        tables.append(table + [-1] * (width - len(table)))  # -1: a padding entry the kernel must never follow
    cu = [0]
    for n in q_lens:
        cu.append(cu[-1] + n)
    attn = AttentionMetadata(
        torch.tensor(cu, dtype=torch.int32),
        torch.tensor(seq_lens, dtype=torch.int32),
        torch.tensor(tables, dtype=torch.int32),
        torch.zeros(cu[-1], dtype=torch.int64),
        max(q_lens),
        max(seq_lens),
        list(q_lens),
        list(seq_lens),
    )
    q = torch.randn(cu[-1], hq, head_dim, generator=g)
    return q, cache, attn


def run(q, cache, attn, order=None, **kw) -> torch.Tensor:
    out = torch.full_like(q, float("nan"))
    paged_decode(q, cache, attn.block_tables, attn.seq_lens, attn.cu_seqlens_q, 0.125, out, order, tile=TILE, **kw)
    return out


@pytest.mark.parametrize("layout", ["NHD", "HND"])
@pytest.mark.parametrize("heads", [(2, 2), (4, 2), (8, 2)], ids=lambda h: f"gqa{h[0] // h[1]}")
@pytest.mark.parametrize("variant", [(True, True), (False, True), (True, False)], ids=["both", "k-cols", "all-masked"])
def test_decode_rows_match_reference(heads: tuple[int, int], layout: str, variant: tuple[bool, bool]) -> None:
    k_rows, tail = variant
    q, cache, attn = make_step([1] * 6, [1, 16, 32, 64, 45, 7], *heads, 64, layout)
    out = run(q, cache, attn, k_rows=k_rows, tail=tail)
    want = reference.paged_attention(q, cache, attn, 0.125)
    torch.testing.assert_close(out, want, atol=1e-4, rtol=0)


def test_rows_of_several_tokens_are_left_alone_and_order_changes_nothing() -> None:
    q, cache, attn = make_step([1, 5, 1, 3], [33, 5, 64, 40], 4, 2, 64, "HND")
    want = reference.paged_attention(q, cache, attn, 0.125)
    plain = run(q, cache, attn)
    decode_rows = torch.tensor([0, 6])  # the one-token rows' token indices (cu_seqlens_q 0, 1, 6, 7, 10)
    assert plain[1:6].isnan().all() and plain[7:].isnan().all()
    torch.testing.assert_close(plain[decode_rows], want[decode_rows], atol=1e-4, rtol=0)
    longest = torch.tensor([2, 3, 0, 1], dtype=torch.int32)
    assert torch.equal(run(q, cache, attn, order=longest)[decode_rows], plain[decode_rows])


@pytest.mark.parametrize("fast", [True, False], ids=["paged-tiles", "unified-tiles"])
@pytest.mark.parametrize("segments", [2, 4, 8])
def test_split_kv_segments_with_either_tile_loop_match_reference(fast: bool, segments: int) -> None:
    """Split-KV decode cuts a context's tiles into segments; with the paged kernel's tiles only the segment holding
    the partial last tile masks it, empty segments weigh nothing, and the merge reads base-2 maxima."""
    from engine.kernels.triton_decode import split_kv_decode

    q, cache, attn = make_step([1] * 5, [100, 96, 31, 1, 130], 8, 2, 64, "HND")
    out = torch.full_like(q, float("nan"))
    split_kv_decode(q, cache, attn.block_tables, attn.seq_lens, attn.cu_seqlens_q, 0.125, out, segments=segments,
                    tile=TILE, fast=fast)  # fmt: skip
    torch.testing.assert_close(out, reference.paged_attention(q, cache, attn, 0.125), atol=1e-4, rtol=0)
