"""The model on the Triton backend runs the fused layer ops: which modules get them, how many kernels a decode step
launches (counted on CPU under triton's interpreter), and that the forward still equals the torch backend's.

A decoder layer's floor with cuBLAS GEMMs is 9 launches: add + RMSNorm, QKV GEMM, q/k norm + rotary + KV write,
attention, O GEMM, add + RMSNorm, gate_up GEMM, SiLU * up, down GEMM; plus the embedding and the final norm per
step. In bfloat16 none of them is a dtype cast or a copy.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import torch

_saved = os.environ.get("TRITON_INTERPRET")
os.environ["TRITON_INTERPRET"] = "1"
try:
    triton = pytest.importorskip("triton", reason="triton is not installed")
    from triton_interp import interpreter_loop_problem

    from engine.kernels import backends, triton_attention
    from engine.kernels.triton_unified import _unified_kernel

    LOOP_PROBLEM = interpreter_loop_problem()
finally:
    if _saved is None:
        del os.environ["TRITON_INTERPRET"]
    else:
        os.environ["TRITON_INTERPRET"] = _saved

from launch_count import LaunchCounter  # noqa: E402

from engine.kernels.attention_metadata import AttentionMetadata, kv_cache_shape  # noqa: E402
from engine.model import load_model  # noqa: E402
from engine.model.mlp import GatedMLP  # noqa: E402
from engine.model.rms_norm import RMSNorm  # noqa: E402

if type(_unified_kernel).__name__ != "InterpretedFunction":
    pytest.skip(
        "the Triton kernels were imported before TRITON_INTERPRET=1 was set in this process", allow_module_level=True
    )
pytestmark = pytest.mark.skipif(LOOP_PROBLEM is not None, reason=str(LOOP_PROBLEM))

TINY = dict(
    vocab_size=512,
    hidden_size=128,
    intermediate_size=96,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    head_dim=64,
    max_position_embeddings=256,
    rms_norm_eps=1e-6,
    rope_theta=10000.0,
    tie_word_embeddings=False,
    bos_token_id=1,
    eos_token_id=2,
)
LAUNCHES_PER_LAYER = 9


@pytest.fixture(autouse=True)
def interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITON_INTERPRET", "1")


def tiny_model(tmp_path: Path, arch: str, dtype: str):
    cls = {"qwen3": "Qwen3ForCausalLM", "llama": "LlamaForCausalLM"}[arch]
    path = tmp_path / f"tiny-{arch}.json"
    path.write_text(json.dumps(dict(TINY, architectures=[cls], model_type=arch, torch_dtype=dtype)))
    model = load_model(str(path), load_format="dummy", dtype=dtype).model
    from engine.model.dummy import initialize_dummy_weights

    initialize_dummy_weights(model, seed=3, low=-0.2, high=0.2)
    return model


def decode_step(model, seq_lens: list[int], block_size: int = 16):
    """Inputs of one decode step (one new token per row) over caches already holding each row's context."""
    g = torch.Generator().manual_seed(0)
    dtype = next(model.parameters()).dtype
    blocks_per_seq = -(-max(seq_lens) // block_size)
    num_blocks = len(seq_lens) * blocks_per_seq
    shape = kv_cache_shape(num_blocks, block_size, TINY["num_key_value_heads"], TINY["head_dim"])
    caches = [torch.randn(shape, generator=g).to(dtype) for _ in range(TINY["num_hidden_layers"])]
    tables = torch.randperm(num_blocks, generator=g).view(len(seq_lens), blocks_per_seq).to(torch.int32)
    lens = torch.tensor(seq_lens, dtype=torch.int32)
    last = lens.long() - 1
    slots = tables[torch.arange(len(seq_lens)), last // block_size].long() * block_size + last % block_size
    n = len(seq_lens)
    attn = AttentionMetadata(
        torch.arange(n + 1, dtype=torch.int32), lens, tables, slots, 1, max(seq_lens), [1] * n, list(seq_lens)
    )
    input_ids = torch.randint(3, TINY["vocab_size"], (n,), generator=g)
    return input_ids, last, attn, caches


def test_set_attention_kernels_reaches_every_norm_and_mlp(tmp_path: Path) -> None:
    model = tiny_model(tmp_path, "qwen3", "float32")
    kernels = backends.select("triton", torch.device("cpu"), head_dim=64, block_size=16)
    model.set_attention_kernels(kernels)
    norms = [m for m in model.modules() if isinstance(m, RMSNorm)]
    mlps = [m for m in model.modules() if isinstance(m, GatedMLP)]
    assert len(norms) == 4 * TINY["num_hidden_layers"] + 1 and len(mlps) == TINY["num_hidden_layers"]
    assert all(m.ops is kernels.layers for m in norms + mlps)
    assert all(layer.self_attn.kernels is kernels for layer in model.model.layers)
    assert kernels.layers.rms_norm.__module__ == "engine.kernels.triton_norm"
    model.set_attention_kernels(backends.REFERENCE)
    assert all(m.ops is backends.REFERENCE_LAYERS for m in norms + mlps)


@pytest.mark.parametrize("arch", ["qwen3", "llama"])
def test_decode_step_launches_nine_kernels_a_layer_and_casts_nothing(tmp_path: Path, arch: str) -> None:
    model = tiny_model(tmp_path, arch, "bfloat16")
    model.set_attention_kernels(backends.select("triton", torch.device("cpu"), head_dim=64, block_size=16))
    input_ids, positions, attn, caches = decode_step(model, [5, 17, 30])
    with torch.no_grad(), LaunchCounter() as launches:
        hidden = model(input_ids, positions, attn, caches)
    layers = TINY["num_hidden_layers"]
    assert hidden.dtype == torch.bfloat16
    assert launches.total == LAUNCHES_PER_LAYER * layers + 2, dict(launches.by_name)
    assert launches.by_name["aten.embedding"] == 1
    # QKV, O, gate_up, down: small half-precision batches run the GEMV kernel (triton_gemv.py), others cuBLAS / aten
    gemms = sum(launches.by_name[f"aten.{op}"] for op in ("linear", "mm", "addmm")) + launches.by_name["_gemv_kernel"]
    assert gemms == 4 * layers
    assert launches.by_name["_rms_norm_kernel"] == 2 * layers + 1
    assert launches.by_name["_rope_kv_kernel"] == launches.by_name["_silu_and_mul_kernel"] == layers
    from engine.kernels.triton_unified import DECODE_KERNEL

    # a decode step's attention: one launch a layer, the one-token rows' kernel (ENGINE_DECODE_KERNEL) by default
    assert launches.by_name["_paged_decode_kernel" if DECODE_KERNEL == "paged" else "_unified_kernel"] == layers


def test_torch_backend_launches_many_more(tmp_path: Path) -> None:
    """What the fused path replaces: the reference ops launch several kernels each (casts, splits, cat, gathers)."""
    model = tiny_model(tmp_path, "qwen3", "bfloat16")
    input_ids, positions, attn, caches = decode_step(model, [5, 17, 30])
    with torch.no_grad(), LaunchCounter() as launches:
        model(input_ids, positions, attn, caches)
    assert launches.total > 3 * (LAUNCHES_PER_LAYER * TINY["num_hidden_layers"] + 2)
    assert launches.by_name["aten._to_copy"] > 0, dict(launches.by_name)


@pytest.mark.parametrize("arch", ["qwen3", "llama"])
def test_triton_forward_equals_torch_forward(tmp_path: Path, arch: str) -> None:
    """float32, decode rows and a prefill chunk over cached context: the two backends agree to float32 rounding."""
    model = tiny_model(tmp_path, arch, "float32")
    input_ids, positions, attn, caches = decode_step(model, [5, 17, 30])
    outs = []
    for kernels in (backends.REFERENCE, backends.select("triton", torch.device("cpu"), head_dim=64, block_size=16)):
        model.set_attention_kernels(kernels)
        step_caches = [c.clone() for c in caches]
        with torch.inference_mode():
            outs.append((model(input_ids, positions, attn, step_caches), step_caches))
    (want, want_caches), (got, got_caches) = outs
    torch.testing.assert_close(got, want, atol=1e-4, rtol=1e-4)
    for g, w in zip(got_caches, want_caches):
        torch.testing.assert_close(g, w, atol=1e-5, rtol=1e-5)


def test_split_kv_adds_one_merge_launch_a_layer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = tiny_model(tmp_path, "qwen3", "bfloat16")
    model.set_attention_kernels(backends.select("triton", torch.device("cpu"), head_dim=64, block_size=16))
    monkeypatch.setattr(triton_attention, "use_split_kv", lambda *args: True)
    input_ids, positions, attn, caches = decode_step(model, [5, 17, 30])
    with torch.no_grad(), LaunchCounter() as launches:
        model(input_ids, positions, attn, caches)
    layers = TINY["num_hidden_layers"]
    assert launches.total == (LAUNCHES_PER_LAYER + 1) * layers + 2, dict(launches.by_name)
    assert launches.by_name["_decode_segment_kernel"] == launches.by_name["_merge_segments_kernel"] == layers
