"""The Triton attention kernels against the reference kernels, on CPU through triton's interpreter.

`@triton.jit` picks the interpreter when the kernel modules are imported (triton reads TRITON_INTERPRET then), so
this module sets it before importing them, puts the environment back afterwards, and sets it again around each of
its tests (launches read it too). Shapes stay tiny: every program runs in Python here.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import torch

from triton_interp import interpreter_loop_problem


_saved = os.environ.get("TRITON_INTERPRET")
os.environ["TRITON_INTERPRET"] = "1"
try:
    triton = pytest.importorskip("triton", reason="triton is not installed")
    from engine.kernels import reference, triton_attention
    from engine.kernels.triton_unified import _unified_kernel

    LOOP_PROBLEM = interpreter_loop_problem()
finally:
    if _saved is None:
        del os.environ["TRITON_INTERPRET"]
    else:
        os.environ["TRITON_INTERPRET"] = _saved

from engine.kernels.attention_metadata import AttentionMetadata, as_layout, kv_cache_shape, layout_of  # noqa: E402
from engine.model.tiny import TINY_QWEN3  # noqa: E402

if type(_unified_kernel).__name__ != "InterpretedFunction":
    pytest.skip(
        "the Triton kernels were imported before TRITON_INTERPRET=1 was set in this process", allow_module_level=True
    )

# The GPU compiles these loops fine; only an old interpreter cannot run them (write_kv has no loop).
runs_attention = pytest.mark.skipif(LOOP_PROBLEM is not None, reason=str(LOOP_PROBLEM))
NUM_BLOCKS = 48


@pytest.fixture(autouse=True)
def interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    """Launches need it too: triton imports parts of itself lazily at the first launch and checks it there."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")


@pytest.fixture
def bf16_dot(monkeypatch: pytest.MonkeyPatch) -> None:
    """triton 3.9's interpreter runs tl.dot on bfloat16 operands as their raw uint16 bits (np.matmul of the
    storage); a GPU has no such problem. Upcast them first so the rest of the bf16 path is still tested here."""
    from triton.runtime import interpreter

    original = interpreter.InterpreterBuilder.create_dot

    def create_dot(self, a, b, d, *args):  # noqa: ANN001, ANN002, ANN202 - triton's own signature
        if a.dtype.scalar == triton.language.bfloat16:
            a, b = self.cast_impl(a, triton.language.float32), self.cast_impl(b, triton.language.float32)
        return original(self, a, b, d, *args)

    monkeypatch.setattr(interpreter.InterpreterBuilder, "create_dot", create_dot)


def make_batch(
    q_lens: list[int],
    seq_lens: list[int],
    num_heads: int,
    num_kv_heads: int,
    head_dim: int,
    block_size: int = 16,
    dtype: torch.dtype = torch.float32,
    seed: int = 0,
    layout: str = "NHD",
):
    """A step's (q, cache, metadata): every sequence's K/V written into shuffled blocks; block tables padded
    with -1 past each sequence's last block (plus one spare column that must never be read). `layout` is the
    cache's memory layout (the values are the same in both)."""
    g = torch.Generator().manual_seed(seed)
    free = torch.randperm(NUM_BLOCKS, generator=g).tolist()
    cache = torch.randn(kv_cache_shape(NUM_BLOCKS, block_size, num_kv_heads, head_dim), generator=g).to(dtype)
    cache = as_layout(cache, layout)
    width = max(-(-s // block_size) for s in seq_lens) + 1
    tables, new_slots = [], []
    for n, s in zip(q_lens, seq_lens):
        table = [free.pop() for _ in range(-(-s // block_size))]
        tables.append(table + [-1] * (width - len(table)))
        new_slots += [table[p // block_size] * block_size + p % block_size for p in range(s - n, s)]
    cu = [0]
    for n in q_lens:
        cu.append(cu[-1] + n)
    attn = AttentionMetadata(
        torch.tensor(cu, dtype=torch.int32),
        torch.tensor(seq_lens, dtype=torch.int32),
        torch.tensor(tables, dtype=torch.int32),
        torch.tensor(new_slots, dtype=torch.int64),
        max(q_lens),
        max(seq_lens),
        list(q_lens),
        list(seq_lens),
    )
    q = torch.randn(cu[-1], num_heads, head_dim, generator=g).to(dtype)
    return q, cache, attn


def reference_out(q: torch.Tensor, cache: torch.Tensor, attn: AttentionMetadata) -> torch.Tensor:
    """The reference kernel in float32 on the same (possibly rounded) inputs."""
    return reference.paged_attention(q.float(), cache.float(), attn, q.shape[-1] ** -0.5)


GQA_HEADS = [(2, 2), (4, 2), (8, 2)]  # (Hq, Hkv): group sizes 1, 2, 4
DECODE = ([1, 1, 1, 1, 1], [1, 16, 32, 45, 7])  # lengths 1, exact block multiples, and ragged


@runs_attention
@pytest.mark.parametrize("split_kv", [False, True], ids=["unified", "split-kv"])
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("heads", GQA_HEADS, ids=lambda h: f"gqa{h[0] // h[1]}")
def test_decode_batch_matches_reference(heads: tuple[int, int], head_dim: int, split_kv: bool) -> None:
    q, cache, attn = make_batch(*DECODE, *heads, head_dim)
    out = triton_attention.paged_attention(q, cache, attn, head_dim**-0.5, split_kv=split_kv)
    torch.testing.assert_close(out, reference_out(q, cache, attn), atol=1e-4, rtol=0)


MIXED = {  # prefill chunks over cached context, fresh prefills and decode rows, interleaved
    "chunks+decode": ([1, 5, 1, 20, 3], [17, 5, 33, 50, 40]),
    "long-chunk": ([37, 1], [70, 2]),
}


@runs_attention
@pytest.mark.parametrize("split_kv", [False, True], ids=["unified", "split-kv"])
@pytest.mark.parametrize("case", [DECODE, *MIXED.values()], ids=["decode", *MIXED.keys()])
def test_head_major_cache_reads_the_same_values(case: tuple[list[int], list[int]], split_kv: bool) -> None:
    """The kernels index the cache by its strides: a head-major (HND) cache gives what the token-major one does,
    bit for bit, and the reference reads both the same way."""
    if split_kv and max(case[0]) > 1:
        pytest.skip("split-KV decode takes one new token a row")
    q, cache, attn = make_batch(*case, 4, 2, 64, block_size=16)
    hnd = as_layout(cache, "HND")
    assert layout_of(hnd) == "HND" and not hnd.is_contiguous() and torch.equal(hnd, cache)
    want = triton_attention.paged_attention(q, cache, attn, 0.125, split_kv=split_kv)
    got = triton_attention.paged_attention(q, hnd, attn, 0.125, split_kv=split_kv)
    assert torch.equal(got, want)
    torch.testing.assert_close(got, reference_out(q, hnd, attn), atol=1e-4, rtol=0)


@runs_attention
@pytest.mark.parametrize("case", MIXED.values(), ids=MIXED.keys())
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("heads", GQA_HEADS, ids=lambda h: f"gqa{h[0] // h[1]}")
def test_mixed_batch_matches_reference(
    heads: tuple[int, int], head_dim: int, case: tuple[list[int], list[int]]
) -> None:
    q, cache, attn = make_batch(*case, *heads, head_dim)
    out = triton_attention.paged_attention(q, cache, attn, head_dim**-0.5)
    torch.testing.assert_close(out, reference_out(q, cache, attn), atol=1e-4, rtol=0)


@runs_attention
@pytest.mark.parametrize("split_mixed", [False, True], ids=["one-launch", "decode-rows-apart"])
@pytest.mark.parametrize("case", MIXED.values(), ids=MIXED.keys())
@pytest.mark.parametrize("heads", GQA_HEADS, ids=lambda h: f"gqa{h[0] // h[1]}")
def test_mixed_batch_decode_rows_in_their_own_launch(
    heads: tuple[int, int], case: tuple[list[int], list[int]], split_mixed: bool
) -> None:
    """A mixed step's one-token rows run in a launch of their own (the GPU default) and its longer rows in another:
    every row is written exactly once, by the launch of its kind, and equals the reference."""
    from engine.kernels.triton_unified import unified_attention

    q, cache, attn = make_batch(*case, *heads, 64)
    out = torch.full_like(q, float("nan"))
    unified_attention(
        q,
        cache,
        attn.block_tables,
        attn.seq_lens,
        attn.cu_seqlens_q,
        attn.max_seqlen_q,
        0.125,
        out,
        split_mixed=split_mixed,
    )
    assert not out.isnan().any()
    torch.testing.assert_close(out, reference_out(q, cache, attn), atol=1e-4, rtol=0)


@runs_attention
@pytest.mark.parametrize("case", [DECODE, *MIXED.values()], ids=["decode", *MIXED.keys()])
def test_rows_in_any_start_order_give_the_same_output(case: tuple[list[int], list[int]]) -> None:
    """decode_order only changes which one-token rows' programs start first: longest first, reversed or none,
    every row's output is the same, bit for bit, and equals the reference."""
    import numpy as np

    q, cache, attn = make_batch(*case, 4, 2, 64)
    want = triton_attention.paged_attention(q, cache, attn, 0.125)
    longest = np.argsort(-np.array(case[1]), kind="stable").astype(np.int32)
    for order in (longest, longest[::-1].copy()):
        attn.decode_order = torch.from_numpy(order)
        got = triton_attention.paged_attention(q, cache, attn, 0.125)
        assert torch.equal(got, want)
    torch.testing.assert_close(want, reference_out(q, cache, attn), atol=1e-4, rtol=0)


@runs_attention
@pytest.mark.parametrize("block_size", [32, 64])
def test_larger_blocks_and_odd_group(block_size: int) -> None:
    """A tile per cache block (block_size >= 32), and a group of 3 that does not divide the packed rows."""
    q, cache, attn = make_batch([1, 9, 1], [70, 9, 64], 6, 2, 64, block_size=block_size)
    out = triton_attention.paged_attention(q, cache, attn, 0.125)
    torch.testing.assert_close(out, reference_out(q, cache, attn), atol=1e-4, rtol=0)
    dq, dcache, dattn = make_batch([1, 1], [70, 64], 6, 2, 64, block_size=block_size)
    split = triton_attention.paged_attention(dq, dcache, dattn, 0.125, split_kv=True)
    torch.testing.assert_close(split, reference_out(dq, dcache, dattn), atol=1e-4, rtol=0)


@runs_attention
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_caches_stay_close(dtype: torch.dtype, bf16_dot: None) -> None:
    q, cache, attn = make_batch([1, 6, 1], [20, 6, 40], 4, 2, 64, dtype=dtype)
    ref = reference_out(q, cache, attn)
    for split_kv in (False, None):
        out = triton_attention.paged_attention(q, cache, attn, 0.125, split_kv=split_kv)
        assert out.dtype == dtype
        torch.testing.assert_close(out.float(), ref, atol=2e-2, rtol=0)
    dq, dcache, dattn = make_batch([1, 1], [20, 40], 4, 2, 64, dtype=dtype)
    split = triton_attention.paged_attention(dq, dcache, dattn, 0.125, split_kv=True)
    torch.testing.assert_close(split.float(), reference_out(dq, dcache, dattn), atol=2e-2, rtol=0)


@runs_attention
def test_no_host_reads_on_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Neither the host length lists nor a device->host read (.item / .tolist) are used."""
    q, cache, attn = make_batch([1, 5, 1], [17, 5, 33], 4, 2, 64)
    want = reference_out(q, cache, attn)
    attn.q_lens_cpu = attn.seq_lens_cpu = None

    def forbidden(*_: object) -> None:
        raise AssertionError("host synchronisation on the fast path")

    monkeypatch.setattr(torch.Tensor, "item", forbidden)
    monkeypatch.setattr(torch.Tensor, "tolist", forbidden)
    out = triton_attention.paged_attention(q, cache, attn, 0.125)
    monkeypatch.undo()
    torch.testing.assert_close(out, want, atol=1e-4, rtol=0)


def test_split_kv_is_chosen_for_few_long_decode_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.kernels import decode_split

    monkeypatch.setattr(decode_split, "num_sms", lambda device: 132)  # an H200's SM count
    meta = AttentionMetadata(
        torch.tensor([0, 1, 2], dtype=torch.int32),
        torch.tensor([900, 2000]),
        torch.zeros(2, 1, dtype=torch.int32),
        torch.zeros(2, dtype=torch.int64),
        1,
        2000,
    )
    assert triton_attention.use_split_kv(meta, 8, torch.device("cpu"))
    assert not triton_attention.use_split_kv(meta, 200, torch.device("cpu"))  # the plain grid fills the GPU
    meta.max_seqlen_k = 100
    assert not triton_attention.use_split_kv(meta, 8, torch.device("cpu"))  # too short to split
    meta.max_seqlen_q, meta.max_seqlen_k = 3, 2000
    assert not triton_attention.use_split_kv(meta, 8, torch.device("cpu"))  # not decode-only


@pytest.mark.parametrize("layout", ["NHD", "HND"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_write_kv_matches_reference_and_skips_padding(dtype: torch.dtype, layout: str) -> None:
    g = torch.Generator().manual_seed(5)
    # A packed projection in the cache dtype (as the model runs): k and v are strided views into it.
    qkv = torch.randn(6, 4 + 2 + 2, 64, generator=g).to(dtype)
    k, v = qkv[:, 4:6], qkv[:, 6:8]
    slots = torch.tensor([9, -1, 40, 3, -1, 63])  # -1: padded rows (vLLM's PAD_SLOT_ID)
    start = torch.randn(kv_cache_shape(4, 16, 2, 64), generator=g).to(dtype)
    want, got = as_layout(start, layout), as_layout(start, layout)
    assert layout_of(want) == layout_of(got) == layout
    reference.write_kv(k, v, want, slots)
    triton_attention.write_kv(k, v, got, slots)
    assert torch.equal(got, want)
    assert torch.equal(want[0, 0, 9], k[0]) and torch.equal(want[1, 3, 15], v[5])  # slots 9 and 63, by index
    triton_attention.write_kv(k[:2], v[:2], got, torch.tensor([-1, -1]))  # nothing real: cache unchanged
    assert torch.equal(got, want)


def test_unsupported_shapes_are_clear_errors() -> None:
    q, cache, attn = make_batch([1], [5], 2, 1, 64)
    with pytest.raises(ValueError, match="head_dim a power of two"):
        triton_attention.paged_attention(q[..., :48], cache[..., :48], attn, 0.1)
    small = torch.zeros(kv_cache_shape(4, 8, 1, 64))
    with pytest.raises(ValueError, match="block_size a power of two >= 16"):
        triton_attention.paged_attention(q, small, attn, 0.1)
    with pytest.raises(ValueError, match="split-KV decode needs one new token"):
        triton_attention.paged_attention(*make_batch([3], [5], 2, 1, 64), 0.1, split_kv=True)


# ---- end to end ---------------------------------------------------------------------------------------------


def _generate(config_path: Path, backend: str) -> list[list[int]]:
    from engine.args import EngineArgs
    from engine.engine_core import EngineCore
    from engine.llm import LLM
    from engine.model import load_model
    from engine.model.dummy import initialize_dummy_weights
    from engine.sampling_params import SamplingParams

    loaded = load_model(str(config_path), load_format="dummy", dtype="float32")
    initialize_dummy_weights(loaded.model, seed=3, low=-0.2, high=0.2)  # a real spread: no near-tied logits
    cfg = EngineArgs(
        model=str(config_path),
        load_format="dummy",
        device="cpu",
        dtype="float32",
        block_size=16,
        max_model_len=96,
        max_num_seqs=4,
        max_num_batched_tokens=24,
        num_blocks=24,
        attention_backend=backend,
    )
    llm = LLM.from_engine_core(EngineCore.from_args(cfg, loaded=loaded))
    kernels = llm.engine_core.runner.attention_kernels
    assert kernels.name == backend and all(layer.self_attn.kernels is kernels for layer in loaded.model.model.layers)
    gen = torch.Generator().manual_seed(11)
    prompts = [{"prompt_token_ids": torch.randint(3, 512, (n,), generator=gen).tolist()} for n in (1, 17, 40, 9)]
    params = SamplingParams(max_tokens=6, temperature=0.0, ignore_eos=True)
    return [o.outputs[0].token_ids for o in llm.generate(prompts, params, use_tqdm=False)]


@runs_attention
def test_llm_greedy_tokens_equal_torch_backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunked prefill (24-token budget) over 16-token blocks, decode rows beside prefill chunks, 2 layers."""
    path = tmp_path / "tiny-qwen3.json"
    path.write_text(json.dumps(TINY_QWEN3))
    torch.manual_seed(0)
    assert _generate(path, "triton") == _generate(path, "torch")


@runs_attention
def test_llm_greedy_tokens_same_in_either_cache_layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ENGINE_KV_CACHE_LAYOUT=HND allocates head-major caches; both backends then give the NHD tokens."""
    path = tmp_path / "tiny-qwen3.json"
    path.write_text(json.dumps(TINY_QWEN3))
    want = _generate(path, "torch")
    monkeypatch.setenv("ENGINE_KV_CACHE_LAYOUT", "HND")
    assert _generate(path, "torch") == want
    assert _generate(path, "triton") == want
    monkeypatch.setenv("ENGINE_KV_CACHE_LAYOUT", "token-major")
    with pytest.raises(ValueError, match="ENGINE_KV_CACHE_LAYOUT='TOKEN-MAJOR': use one of NHD, HND"):
        _generate(path, "torch")


def test_cache_layout_defaults_to_head_major_on_cuda_only(monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.kernels.attention_metadata import allocate_kv_cache, kv_cache_layout

    monkeypatch.delenv("ENGINE_KV_CACHE_LAYOUT", raising=False)
    assert (kv_cache_layout("cuda"), kv_cache_layout(torch.device("cuda", 0)), kv_cache_layout("cpu")) == (
        "HND",
        "HND",
        "NHD",
    )
    assert layout_of(allocate_kv_cache(3, 16, 2, 8, dtype=torch.float32, device="cpu")) == "NHD"
    hnd = allocate_kv_cache(3, 16, 2, 8, dtype=torch.float32, device="cpu", layout="HND")
    assert hnd.shape == kv_cache_shape(3, 16, 2, 8) and layout_of(hnd) == "HND" and not hnd.any()
    monkeypatch.setenv("ENGINE_KV_CACHE_LAYOUT", "nhd")
    assert kv_cache_layout("cuda") == "NHD"
