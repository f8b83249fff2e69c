"""ENGINE_FUSED_OPS=0: the Triton attention with the layer ops as their torch references, the eager-ops column of
tools/device_async.py's ablation; the same forward as the fused ops, to float32 rounding."""

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

    from engine.kernels import backends, layer_reference, triton_attention
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
    monkeypatch.delenv("ENGINE_COMPILE", raising=False)


def test_the_switch_keeps_the_attention_and_swaps_the_layer_ops(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ENGINE_FUSED_OPS", raising=False)
    fused = backends.select("triton", CPU, head_dim=64, block_size=16)
    assert fused.name == "triton" and fused.layers.rms_norm.__module__ == "engine.kernels.triton_norm"
    monkeypatch.setenv("ENGINE_FUSED_OPS", "0")
    eager = backends.select("triton", CPU, head_dim=64, block_size=16)
    assert eager.name == "triton+eager-ops" and not eager.compile_model
    assert eager.paged_attention is triton_attention.paged_attention and eager.write_kv is triton_attention.write_kv
    assert eager.layers.rms_norm is layer_reference.rms_norm
    assert eager.layers.silu_and_mul is layer_reference.silu_and_mul
    assert eager.layers.rope_write_kv.keywords == {"write_kv": triton_attention.write_kv}
    assert backends.select("torch", CPU) is backends.REFERENCE


def test_eager_ops_give_the_fused_forward(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = tiny_model(tmp_path, "qwen3", "float32")
    input_ids, positions, attn, caches = decode_step(model, [5, 17, 30])
    outs = []
    for switch in ("1", "0"):
        monkeypatch.setenv("ENGINE_FUSED_OPS", switch)
        model.set_attention_kernels(backends.select("triton", CPU, head_dim=64, block_size=16))
        step_caches = [c.clone() for c in caches]
        with torch.inference_mode():
            outs.append((model(input_ids, positions, attn, step_caches), step_caches))
    (fused, fused_caches), (eager, eager_caches) = outs
    torch.testing.assert_close(eager, fused, atol=1e-4, rtol=1e-4)
    for e, f in zip(eager_caches, fused_caches):
        torch.testing.assert_close(e, f, atol=1e-5, rtol=1e-5)
