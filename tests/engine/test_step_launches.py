"""What a pure-decode step launches outside its CUDA graph, counted on CPU (replay mode: the graph's body runs
eagerly under triton's interpreter; tests/engine/launch_count.py counts). Every launch outside the graph costs host
time and a gap on the GPU at batch 1, so the list is pinned: the decode inputs gathered from the slot-indexed
sampled ids, the graph's six input copies, greedy sampling, and the scatter of the samples. The logits GEMM (the
LM head) runs inside the graph."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest
import torch

_saved = os.environ.get("TRITON_INTERPRET")
os.environ["TRITON_INTERPRET"] = "1"
try:
    triton = pytest.importorskip("triton", reason="triton is not installed")
    from triton_interp import interpreter_loop_problem

    from engine.kernels.triton_unified import _unified_kernel

    LOOP_PROBLEM = interpreter_loop_problem()
finally:
    if _saved is None:
        del os.environ["TRITON_INTERPRET"]
    else:
        os.environ["TRITON_INTERPRET"] = _saved

from launch_count import LaunchCounter  # noqa: E402
from test_cuda_graphs import TINY_QWEN3  # noqa: E402

if type(_unified_kernel).__name__ != "InterpretedFunction":
    pytest.skip(
        "the Triton kernels were imported before TRITON_INTERPRET=1 was set in this process", allow_module_level=True
    )
pytestmark = pytest.mark.skipif(LOOP_PROBLEM is not None, reason=str(LOOP_PROBLEM))

OUTSIDE_THE_GRAPH = {
    "aten.index": 1,  # input ids: last_sampled[slot] of every decoding row
    "aten.copy_": 6,  # ids, positions, slots, seq_lens, block table, decode order -> static
    "aten.argmax": 1,  # greedy sampling over the graph's logits
    "aten.index_put_": 1,
}  # the samples into last_sampled[slot]


@pytest.mark.parametrize("async_scheduling", [True, False], ids=["async", "sync"])
def test_a_greedy_decode_step_launches_the_graph_and_nine_ops_besides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, async_scheduling: bool
) -> None:
    from engine.args import EngineArgs
    from engine.engine_core import EngineCore
    from engine.sampling_params import SamplingParams

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    path = tmp_path / "tiny-qwen3.json"
    path.write_text(json.dumps(TINY_QWEN3))
    core = EngineCore.from_args(
        EngineArgs(
            model=str(path),
            load_format="dummy",
            device="cpu",
            dtype="float32",
            max_num_seqs=4,
            max_model_len=64,
            num_blocks=32,
            attention_backend="triton",
            enforce_eager=False,
            async_scheduling=async_scheduling,
        )
    )
    for i in range(3):
        core.add_request(str(i), [5, 6, 7 + i], SamplingParams(temperature=0, max_tokens=20, ignore_eos=True))
    for _ in range(4):
        core.step()
    graphs = core.runner.decode_graphs
    before = sum(graphs.replays.values())
    with torch.no_grad(), LaunchCounter() as step:
        core.step()
    assert sum(graphs.replays.values()) == before + 1  # the step ran as a graph (bucket 4)
    with torch.inference_mode(), LaunchCounter() as body:  # as execute_model runs it (aten.linear stays whole)
        graphs._forward(next(k for k in graphs.meta if k[0] == 4))
    outside = Counter(step.by_name)
    outside.subtract(body.by_name)
    assert {k: v for k, v in outside.items() if v} == OUTSIDE_THE_GRAPH
