"""ENGINE_COMPILE=1, the torch.compile alternative to the fused Triton layer kernels: what the switch selects, the
attention custom ops against the plain Triton calls, and that the whole decoder traces as one graph around them.

Nothing here runs Inductor (its C++ build takes a minute per model on CPU, and the choice between the two paths is
made on the GPU): Dynamo's "eager" backend traces the same graph and runs it without compiling.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

_saved = os.environ.get("TRITON_INTERPRET")
os.environ["TRITON_INTERPRET"] = "1"
try:
    triton = pytest.importorskip("triton", reason="triton is not installed")
    from triton_interp import interpreter_loop_problem

    from engine.kernels import backends, compile_ops, layer_reference, triton_attention
    from engine.kernels.triton_unified import _unified_kernel

    LOOP_PROBLEM = interpreter_loop_problem()
finally:
    if _saved is None:
        del os.environ["TRITON_INTERPRET"]
    else:
        os.environ["TRITON_INTERPRET"] = _saved

from test_fused_step import decode_step, tiny_model  # noqa: E402

if type(_unified_kernel).__name__ != "InterpretedFunction":
    pytest.skip(
        "the Triton kernels were imported before TRITON_INTERPRET=1 was set in this process", allow_module_level=True
    )
pytestmark = pytest.mark.skipif(LOOP_PROBLEM is not None, reason=str(LOOP_PROBLEM))
CPU = torch.device("cpu")


@pytest.fixture(autouse=True)
def interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITON_INTERPRET", "1")


def test_switch_is_off_by_default_and_swaps_the_triton_backend_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ENGINE_COMPILE", raising=False)
    plain = backends.select("triton", CPU, head_dim=64, block_size=16)
    assert plain.name == "triton" and not plain.compile_model
    monkeypatch.setenv("ENGINE_COMPILE", "1")
    compiled = backends.select("triton", CPU, head_dim=64, block_size=16)
    assert compiled.name == "triton+compile" and compiled.compile_model
    assert compiled.paged_attention is compile_ops.paged_attention and compiled.write_kv is compile_ops.write_kv
    # Inductor fuses the torch references; the rope op writes K/V through the opaque op.
    assert compiled.layers.rms_norm is layer_reference.rms_norm
    assert compiled.layers.silu_and_mul is layer_reference.silu_and_mul
    assert compiled.layers.rope_write_kv.keywords == {"write_kv": compile_ops.write_kv}
    assert backends.select("torch", CPU) is backends.REFERENCE  # the CPU path never compiles
    assert backends.select("auto", CPU) is backends.REFERENCE


def test_custom_ops_equal_the_triton_calls(tmp_path: Path) -> None:
    model = tiny_model(tmp_path, "qwen3", "float32")
    _, _, attn, caches = decode_step(model, [5, 17, 30])
    g = torch.Generator().manual_seed(2)
    q = torch.randn(3, 4, 64, generator=g)
    k, v = torch.randn(3, 2, 64, generator=g), torch.randn(3, 2, 64, generator=g)
    want_cache, got_cache = caches[0].clone(), caches[0].clone()
    triton_attention.write_kv(k, v, want_cache, attn.slot_mapping)
    compile_ops.write_kv(k, v, got_cache, attn.slot_mapping)
    assert torch.equal(got_cache, want_cache)
    for split in (False, True):
        attn.static_launch = attn.static_split_kv = split  # the graph flags pass through the op
        want = triton_attention.paged_attention(q, got_cache, attn, 0.125)
        assert torch.equal(compile_ops.paged_attention(q, got_cache, attn, 0.125), want)


def test_set_attention_kernels_wraps_the_decoder_lazily(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGINE_COMPILE", "1")
    model = tiny_model(tmp_path, "qwen3", "float32")
    model.set_attention_kernels(backends.select("triton", CPU, head_dim=64, block_size=16))
    assert model._compiled_forward is not None
    assert all(not name.startswith("_compiled") for name, _ in model.named_modules())  # no duplicate weights
    model.set_attention_kernels(backends.REFERENCE)
    assert model._compiled_forward is None


def test_decoder_traces_as_one_graph_around_the_attention_ops(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """fullgraph: no graph break anywhere in two layers; the traced forward equals the torch backend's."""
    monkeypatch.setenv("ENGINE_COMPILE", "1")
    model = tiny_model(tmp_path, "qwen3", "float32")
    input_ids, positions, attn, caches = decode_step(model, [5, 17, 30])
    ref_caches = [c.clone() for c in caches]
    model.set_attention_kernels(backends.select("triton", CPU, head_dim=64, block_size=16))
    traced = torch.compile(model.model.forward, backend="eager", dynamic=True, fullgraph=True)
    torch._dynamo.reset()
    with torch.no_grad():
        got = traced(input_ids, positions, attn, caches)
        model.set_attention_kernels(backends.REFERENCE)
        want = model(input_ids, positions, attn, ref_caches)
    torch.testing.assert_close(got, want, atol=1e-4, rtol=1e-4)
    for c, r in zip(caches, ref_caches):
        torch.testing.assert_close(c, r, atol=1e-5, rtol=1e-5)
