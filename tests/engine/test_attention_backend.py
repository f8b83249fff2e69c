"""Choosing the attention kernels: names, fallbacks, one-line errors, and the flags that carry the choice."""

from __future__ import annotations

import argparse

import pytest
import torch

from engine.args import EngineArgs
from engine.engine_core import EngineCore
from engine.errors import EngineError
from engine.kernels import backends
from engine.kernels.backends import REFERENCE, select

CPU = torch.device("cpu")


@pytest.fixture
def no_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)


def test_torch_and_auto_on_cpu_pick_the_reference(no_interpreter: None) -> None:
    assert select("torch", CPU) is REFERENCE
    assert select("auto", CPU) is REFERENCE
    assert REFERENCE.name == "torch"


def test_auto_never_picks_the_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert select("auto", CPU) is REFERENCE


def test_triton_on_cpu_without_the_interpreter_is_one_clear_error(no_interpreter: None) -> None:
    with pytest.raises(EngineError, match=r"attention_backend='triton' cannot run: .*CUDA device.*TRITON_INTERPRET=1"):
        select("triton", CPU)
    with pytest.raises(EngineError, match="TRITON_INTERPRET=1"):  # before the model loads: it does not exist
        EngineCore.from_args(EngineArgs(model="/no/such/model", device="cpu", attention_backend="triton"))


def test_unknown_name_and_unsupported_shapes(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(EngineError, match="attention_backend must be one of auto, triton, torch, got 'flash'"):
        EngineArgs(device="cpu", attention_backend="flash")
    with pytest.raises(EngineError, match="one of auto, triton, torch"):
        select("flash", CPU)
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    with pytest.raises(EngineError, match="block_size a power of two >= 16, got 8"):
        select("triton", CPU, block_size=8)
    with pytest.raises(EngineError, match="head_dim a power of two in 16..256, this model has 80"):
        select("triton", CPU, head_dim=80, block_size=16)


def test_triton_under_the_interpreter_gives_the_triton_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("triton")
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    kernels = select("triton", CPU, head_dim=64, block_size=16)
    assert kernels.name == "triton" and backends.TRITON.name == "triton"
    from engine.kernels import triton_attention

    assert kernels.paged_attention is triton_attention.paged_attention
    assert kernels.write_kv is triton_attention.write_kv


def test_kernels_built_for_the_interpreter_never_run_on_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test process that imported the kernels under TRITON_INTERPRET=1: auto falls back, triton says why."""
    pytest.importorskip("triton")
    monkeypatch.setattr(backends, "_interpreted", lambda: True)
    cuda = torch.device("cuda")
    assert select("auto", cuda, head_dim=64, block_size=16) is REFERENCE
    with pytest.raises(EngineError, match="built for the CPU interpreter.*unset TRITON_INTERPRET"):
        select("triton", cuda, head_dim=64, block_size=16)


def test_generate_cli_reports_triton_on_cpu_in_one_line(
    no_interpreter: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from engine.cli import main

    assert main(["generate", "hi", "--device", "cpu", "--attention-backend", "triton"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("engine: error: attention_backend='triton' cannot run")


def test_bench_flag_reaches_the_engine_and_the_reproduce_command() -> None:
    from engine.bench import cli as bench_cli
    from engine.bench import ours
    from engine.bench.command import command_line

    parser = argparse.ArgumentParser(prog="engine")
    sub = parser.add_subparsers(dest="command")
    bench_cli.add_parser(sub)
    for kind in ("throughput", "latency"):
        args = parser.parse_args(["bench", kind, "--attention-backend", "torch", "--device", "cpu"])
        assert ours.engine_args(args, CPU).attention_backend == "torch"
    bench = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices["bench"]
    tp = next(a for a in bench._actions if isinstance(a, argparse._SubParsersAction)).choices["throughput"]
    args = parser.parse_args(["bench", "throughput", "--attention-backend", "triton"])
    assert "--attention-backend triton" in command_line("throughput", tp, args)
    default = parser.parse_args(["bench", "throughput"])
    assert ours.engine_args(default, CPU).attention_backend == "auto"
    assert "--attention-backend" not in command_line("throughput", tp, default)


def test_result_settings_record_the_backend_and_what_auto_resolved_to(tiny_qwen3_dir) -> None:
    from engine.bench import ours

    _, settings = ours.build_llm(EngineArgs(model=str(tiny_qwen3_dir), device="cpu", max_model_len=64, max_num_seqs=4))
    assert settings["attention_backend"] == "auto" and settings["attention_kernels"] == "torch"
