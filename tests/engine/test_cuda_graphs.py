"""CUDA-graph decode (engine/worker/cuda_graphs.py) on CPU: buckets, the graph-or-eager decision, and the padded
static-buffer path in replay mode (no capture) against the plain eager path, with the Triton kernels run by
triton's interpreter (as test_triton_kernels.py: TRITON_INTERPRET=1 must be set when the kernels are imported).
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from engine.kernels.attention_metadata import AttentionMetadata
from engine.worker.cuda_graphs import DecodeGraphs, bucket_for, capture_sizes, graph_mode
from triton_interp import interpreter_loop_problem
from engine.model.tiny import TINY_QWEN3

ROOT = Path(__file__).resolve().parents[2]

_saved = os.environ.get("TRITON_INTERPRET")
os.environ["TRITON_INTERPRET"] = "1"
try:
    import triton  # noqa: F401  (skips below when missing)
    from engine.kernels import triton_attention  # noqa: F401  (every kernel module, built for the interpreter)
    from engine.kernels.triton_unified import _unified_kernel

    INTERPRETED = type(_unified_kernel).__name__ == "InterpretedFunction"
    LOOP_PROBLEM = interpreter_loop_problem() if INTERPRETED else None
except ImportError:
    INTERPRETED, LOOP_PROBLEM = False, None
finally:
    if _saved is None:
        del os.environ["TRITON_INTERPRET"]
    else:
        os.environ["TRITON_INTERPRET"] = _saved

needs_interpreter = pytest.mark.skipif(
    not INTERPRETED or LOOP_PROBLEM is not None,
    reason=str(
        LOOP_PROBLEM or "triton missing, or its kernels were imported for a GPU before TRITON_INTERPRET=1 was set"
    ),
)


@pytest.fixture
def interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITON_INTERPRET", "1")  # launches read it too


# ---- buckets and the decision ------------------------------------------------------------------------------
def test_capture_sizes_follow_vllm_and_always_cover_the_cap() -> None:
    assert capture_sizes(256) == [1, 2, 4] + list(range(8, 257, 8))
    assert capture_sizes(20) == [1, 2, 4, 8, 16, 20]
    assert capture_sizes(3) == [1, 2, 3]
    assert capture_sizes(1) == [1]
    assert capture_sizes(1024)[-1] == 512  # default cap
    assert capture_sizes(256, max_capture_size=12) == [1, 2, 4, 8, 12]
    assert capture_sizes(16, max_capture_size=64) == [1, 2, 4, 8, 16]  # never above max_num_seqs


def test_bucket_is_the_smallest_size_that_fits() -> None:
    sizes = capture_sizes(40)
    assert [bucket_for(n, sizes) for n in (1, 2, 3, 5, 8, 9, 17, 33, 40)] == [1, 2, 4, 8, 8, 16, 24, 40, 40]
    assert bucket_for(41, sizes) is None


def test_graph_mode_per_device_and_backend(caplog: pytest.LogCaptureFixture) -> None:
    cpu, cuda = torch.device("cpu"), torch.device("cuda")
    assert graph_mode(True, cuda, "triton") == "off"
    assert graph_mode(False, cuda, "triton") == "capture"
    assert graph_mode(False, cpu, "triton") == "replay"
    # The default (None): graphs where they can run, eager elsewhere, and no warning either way.
    assert [
        graph_mode(None, d, k) for d, k in ((cuda, "triton"), (cuda, "torch"), (cpu, "torch"), (cpu, "triton"))
    ] == ["capture", "off", "off", "off"]
    assert not caplog.records
    with caplog.at_level(logging.WARNING, logger="engine.graphs"):
        assert graph_mode(False, cuda, "torch") == "off"
    assert len(caplog.records) == 1 and "reference attention" in caplog.records[0].getMessage()


def _meta(q_lens: list[int], blocks: int = 2) -> AttentionMetadata:
    cu = torch.tensor([0] + q_lens).cumsum(0).to(torch.int32)
    return AttentionMetadata(
        cu,
        torch.full((len(q_lens),), 5, dtype=torch.int32),
        torch.zeros(len(q_lens), blocks, dtype=torch.int32),
        torch.zeros(sum(q_lens), dtype=torch.int64),
        max(q_lens),
        5,
    )


def test_only_pure_decode_steps_that_fit_take_the_graph_path() -> None:
    graphs = DecodeGraphs(
        torch.nn.Identity(),
        [],
        capture_sizes(8),
        max_blocks_per_seq=4,
        max_model_len=64,
        device=torch.device("cpu"),
        mode="replay",
    )
    assert graphs.bucket(_meta([1, 1, 1])) == 4
    assert graphs.bucket(_meta([1] * 8)) == 8
    assert graphs.bucket(_meta([1, 3, 1])) is None  # a prefill chunk beside decode rows: eager
    assert graphs.bucket(_meta([4])) is None  # pure prefill: eager
    assert graphs.bucket(_meta([1] * 9)) is None  # more rows than the largest bucket: eager
    assert graphs.bucket(_meta([1, 1], blocks=5)) is None  # wider block table than the static one: eager
    assert all(m.static_launch and m.max_seqlen_q == 1 for m in graphs.meta.values())
    with pytest.raises(ValueError, match="capture or replay"):
        DecodeGraphs(torch.nn.Identity(), [], [1], 1, 8, torch.device("cpu"), mode="off")


def test_static_launch_runs_the_path_its_graph_was_captured_with() -> None:
    pytest.importorskip("triton")
    from engine.kernels.triton_attention import MIN_SPLIT_SEQLEN, use_split_kv

    long_decode = _meta([1])  # one row of one KV head: below 2 * SMs even on CPU (1 "SM")
    long_decode.max_seqlen_k = MIN_SPLIT_SEQLEN
    assert use_split_kv(long_decode, 1, torch.device("cpu"))
    long_decode.static_launch = True
    assert not use_split_kv(long_decode, 1, torch.device("cpu"))  # captured unified: stays unified
    short = _meta([1])
    short.static_launch = short.static_split_kv = True
    assert use_split_kv(short, 1, torch.device("cpu"))  # captured split: splits whatever the length


def test_split_kv_graphs_for_long_contexts_and_small_buckets(monkeypatch: pytest.MonkeyPatch) -> None:
    """16 SMs and 2 KV heads: buckets below 16 rows give the unified kernel fewer than 2 * 16 programs."""
    from engine.kernels import decode_split
    from engine.kernels.attention_metadata import kv_cache_shape
    from engine.worker import cuda_graphs

    monkeypatch.setattr(decode_split, "num_sms", lambda device: 16)
    caches = [torch.zeros(kv_cache_shape(4, 16, 2, 64))]
    graphs = DecodeGraphs(
        torch.nn.Identity(),
        caches,
        capture_sizes(64),
        max_blocks_per_seq=4,
        max_model_len=cuda_graphs.MIN_SPLIT_SEQLEN,
        device=torch.device("cpu"),
        mode="replay",
    )
    assert graphs.split_sizes == [1, 2, 4, 8]
    assert sorted(k for k in graphs.meta if k[1]) == [(1, True), (2, True), (4, True), (8, True)]
    assert all(m.static_split_kv == split for (_, split), m in graphs.meta.items())
    short = DecodeGraphs(
        torch.nn.Identity(),
        caches,
        capture_sizes(64),
        max_blocks_per_seq=4,
        max_model_len=cuda_graphs.MIN_SPLIT_SEQLEN - 1,
        device=torch.device("cpu"),
        mode="replay",
    )
    assert short.split_sizes == [] and not any(split for _, split in short.meta)  # no step could use them


# ---- the padded path against eager, end to end ---------------------------------------------------------------
def _engine(config_path: Path, enforce_eager: bool, max_num_seqs: int = 12):
    from engine.args import EngineArgs
    from engine.engine_core import EngineCore
    from engine.llm import LLM
    from engine.model import load_model
    from engine.model.dummy import initialize_dummy_weights

    loaded = load_model(str(config_path), load_format="dummy", dtype="float32")
    initialize_dummy_weights(loaded.model, seed=3, low=-0.2, high=0.2)  # a real spread: no near-tied logits
    cfg = EngineArgs(
        model=str(config_path),
        load_format="dummy",
        device="cpu",
        dtype="float32",
        block_size=16,
        max_model_len=64,
        max_num_seqs=max_num_seqs,
        max_num_batched_tokens=256,
        num_blocks=40,
        attention_backend="triton",
        enforce_eager=enforce_eager,
    )
    return LLM.from_engine_core(EngineCore.from_args(cfg, loaded=loaded))


@pytest.fixture
def tiny_path(tmp_path: Path) -> Path:
    path = tmp_path / "tiny-qwen3.json"
    path.write_text(json.dumps(TINY_QWEN3))
    return path


@needs_interpreter
def test_padded_decode_matches_eager_for_batches_of_9_5_3(tiny_path: Path, interpreter: None) -> None:
    """9 requests stop after 2, 4 and 6 tokens: decode steps of 9, 5 and 3 rows pad to buckets 12 (the cap), 8
    and 4."""
    from engine.sampling_params import SamplingParams

    gen = torch.Generator().manual_seed(11)
    lengths = [1, 17, 40, 9, 3, 22, 5, 16, 30]
    prompts = [{"prompt_token_ids": torch.randint(3, 512, (n,), generator=gen).tolist()} for n in lengths]
    params = [SamplingParams(max_tokens=m, temperature=0.0, ignore_eos=True) for m in (2, 4, 6, 2, 6, 4, 2, 6, 2)]
    results = {}
    for eager in (True, False):
        llm = _engine(tiny_path, eager)
        outs = llm.generate(prompts, params, use_tqdm=False)
        runner = llm.engine_core.runner
        results[eager] = ([o.outputs[0].token_ids for o in outs], runner.kv_caches, runner.decode_graphs)
    (eager_tokens, eager_caches, none), (graph_tokens, graph_caches, graphs) = results[True], results[False]
    assert none is None and graphs is not None and graphs.mode == "replay"
    assert graph_tokens == eager_tokens and [len(t) for t in graph_tokens] == [2, 4, 6, 2, 6, 4, 2, 6, 2]
    assert dict(graphs.replays) == {12: 1, 8: 2, 4: 2}  # every decode step took the padded path, prefill did not
    for e, g in zip(eager_caches, graph_caches):  # padding rows wrote nothing anywhere
        torch.testing.assert_close(g, e, rtol=1e-5, atol=1e-5)
        assert ((g != 0) == (e != 0)).all()


@needs_interpreter
def test_padded_rows_never_write_the_cache(tiny_path: Path, interpreter: None) -> None:
    """One padded step straight on DecodeGraphs: 3 real rows in bucket 4, after a 7-row step left stale rows."""
    llm = _engine(tiny_path, enforce_eager=False, max_num_seqs=8)
    graphs = llm.engine_core.runner.decode_graphs
    caches = llm.engine_core.runner.kv_caches
    table = torch.arange(7 * 4, dtype=torch.int32).view(7, 4)  # row r owns blocks 4r .. 4r+3

    def step(n: int, pos: int) -> torch.Tensor:
        slots = table[:n, 0].long() * 16 + pos
        attn = AttentionMetadata(
            torch.arange(n + 1, dtype=torch.int32),
            torch.full((n,), pos + 1, dtype=torch.int32),
            table[:n, :1].clone(),
            slots,
            1,
            pos + 1,
        )
        return graphs.run(bucket_for(n, graphs.sizes), torch.arange(3, 3 + n), torch.full((n,), pos), attn), slots

    hidden, _ = step(7, 0)
    assert hidden.shape == (7, TINY_QWEN3["hidden_size"])
    for c in caches:
        c.zero_()
    hidden, slots = step(3, 1)
    assert hidden.shape == (3, TINY_QWEN3["hidden_size"]) and torch.isfinite(hidden).all()
    for c in caches:
        written = c.flatten(1, 2).ne(0).any(-1).any(-1).any(0).nonzero().flatten()  # slots with any K/V set
        assert written.tolist() == slots.tolist()
    assert graphs.slot_mapping[3:].eq(-1).all() and graphs.seq_lens[3:].eq(1).all()
    assert graphs.block_tables[3:].eq(0).all() and graphs.input_ids[3:].eq(0).all()


@needs_interpreter
def test_split_kv_graphs_match_eager_at_long_context(
    tiny_path: Path, interpreter: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The split-KV threshold scaled down to 24 keys (and 64 "SMs", so every bucket qualifies): decode steps whose
    longest context reaches 24 replay the split-KV graph, shorter ones the unified graph; the eager engine runs the
    unified kernel throughout (its own threshold is untouched). Greedy tokens must be identical."""
    from engine.kernels import decode_split
    from engine.sampling_params import SamplingParams
    from engine.worker import cuda_graphs

    monkeypatch.setattr(cuda_graphs, "MIN_SPLIT_SEQLEN", 24)
    monkeypatch.setattr(decode_split, "num_sms", lambda device: 64)
    gen = torch.Generator().manual_seed(5)
    lengths = [1, 9, 30, 3]  # the 30-token row makes the first 5 decode steps long, the 3 after it short
    prompts = [{"prompt_token_ids": torch.randint(3, 512, (n,), generator=gen).tolist()} for n in lengths]
    params = [SamplingParams(max_tokens=m, temperature=0.0, ignore_eos=True) for m in (8, 3, 5, 8)]
    results = {}
    for eager in (True, False):
        llm = _engine(tiny_path, eager, max_num_seqs=8)
        results[eager] = (
            [o.outputs[0].token_ids for o in llm.generate(prompts, params, use_tqdm=False)],
            llm.engine_core.runner.decode_graphs,
        )
    (eager_tokens, _), (graph_tokens, graphs) = results[True], results[False]
    assert graphs.split_sizes == graphs.sizes
    assert graph_tokens == eager_tokens
    assert 0 < sum(graphs.split_replays.values()) < sum(graphs.replays.values())  # both kinds of step ran


@pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA graphs need a GPU")
def test_captured_graphs_match_eager_on_cuda(tmp_path: Path) -> None:
    """A fresh process (the kernels here may be the interpreter's): tools/device_graphs.py, tiny model."""
    out = tmp_path / "graphs.json"
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(ROOT)
    subprocess.run(
        [sys.executable, str(ROOT / "tools" / "device_graphs.py"), "--tiny", "--out", str(out)],
        check=True,
        env=env,
        cwd=ROOT,
        timeout=600,
    )
    result = json.loads(out.read_text())
    assert result["identical"] and result["graph_mode"] == "capture" and result["graph_decode_steps"] > 0


def test_bench_flag_turns_graphs_on_and_result_records_it(tiny_qwen3_dir: Path) -> None:
    import argparse

    from engine.args import EngineArgs
    from engine.bench import cli as bench_cli
    from engine.bench import ours

    parser = argparse.ArgumentParser(prog="engine")
    bench_cli.add_parser(parser.add_subparsers(dest="command"))
    cpu = torch.device("cpu")
    for kind in ("throughput", "latency"):
        args = parser.parse_args(["bench", kind, "--no-enforce-eager"])
        assert ours.engine_args(args, cpu).enforce_eager is False
        assert ours.engine_args(parser.parse_args(["bench", kind]), cpu).enforce_eager is None  # the engine default
    _, settings = ours.build_llm(
        EngineArgs(
            model=str(tiny_qwen3_dir),
            device="cpu",
            enforce_eager=False,
            max_capture_size=32,
            max_model_len=64,
            max_num_seqs=4,
        )
    )
    assert settings["enforce_eager"] is False and settings["max_capture_size"] == 32
    assert settings["graph_mode"] == "off"  # asked for, but the torch reference kernels cannot run as graphs


def test_max_capture_size_is_validated() -> None:
    from engine.args import EngineArgs
    from engine.errors import EngineError

    with pytest.raises(EngineError, match="max_capture_size must be an integer >= 1, got 0"):
        EngineArgs(device="cpu", max_capture_size=0)
