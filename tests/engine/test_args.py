"""EngineArgs: each setting declared once, reaching every CLI and LLM(); EngineConfig resolved once and frozen."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import pytest
import torch

from engine.args import EngineArgs
from engine.cli import build_parser
from engine.config import DTYPES, EngineConfig, resolve_dtype
from engine.errors import EngineError

SETTINGS = [f.name for f in dataclasses.fields(EngineArgs)]


def _subparser(parser: argparse.ArgumentParser, *path: str) -> argparse.ArgumentParser:
    for name in path:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = action.choices[name]
    return parser


def test_the_config_has_exactly_the_settings() -> None:
    assert [f.name for f in dataclasses.fields(EngineConfig)] == SETTINGS


@pytest.mark.parametrize("command", [("generate",), ("serve",), ("bench", "throughput"), ("bench", "latency")])
def test_every_setting_is_a_flag_of_every_command(command: tuple[str, ...]) -> None:
    parser = _subparser(build_parser(), *command)
    dests = {a.dest for a in parser._actions}
    assert set(SETTINGS) <= dests
    flags = {s for a in parser._actions for s in a.option_strings}
    assert {"--block-size", "--enable-prefix-caching", "--no-enable-prefix-caching", "--num-blocks"} <= flags


def test_bench_flags_reach_the_engine_args() -> None:
    from engine.bench import ours

    args = build_parser().parse_args(
        [
            "bench",
            "throughput",
            "--block-size",
            "32",
            "--no-enable-prefix-caching",
            "--num-blocks",
            "64",
            "--max-num-seqs",
            "8",
        ]
    )
    engine_args = ours.engine_args(args, torch.device("cpu"))
    assert (
        engine_args.block_size,
        engine_args.enable_prefix_caching,
        engine_args.num_blocks,
        engine_args.max_num_seqs,
        engine_args.device,
    ) == (32, False, 64, 8, "cpu")
    assert (engine_args.model, engine_args.load_format) == ("Qwen3-0.6B", "dummy")  # the bench's own defaults


def test_cli_defaults_are_the_settings_defaults() -> None:
    args = build_parser().parse_args(["serve"])
    assert EngineArgs.from_cli_args(args) == EngineArgs()


def test_an_unknown_llm_keyword_names_the_nearest_setting() -> None:
    from engine.llm import LLM

    with pytest.raises(
        TypeError, match="LLM\\(\\) got an unexpected keyword argument 'max_num_seq'; did you mean 'max_num_seqs'\\?"
    ):
        LLM("/no/such/model", max_num_seq=4)
    with pytest.raises(TypeError, match="'colour'; the settings are: model, load_format"):
        LLM("/no/such/model", colour="blue")


def test_settings_are_checked_one_by_one_in_one_line() -> None:
    with pytest.raises(EngineError, match="max_num_seqs must be an integer >= 1, got 0"):
        EngineArgs(max_num_seqs=0)
    with pytest.raises(EngineError, match="load_format must be one of auto, hf, gguf, dummy, got 'pt'"):
        EngineArgs(load_format="pt")
    with pytest.raises(EngineError, match="gpu_memory_utilization must be in \\(0, 1\\]"):
        EngineArgs(gpu_memory_utilization=1.5)
    with pytest.raises(EngineError, match="device must be cpu, cuda or cuda:N, got 'gpu'"):
        EngineArgs(device="gpu")


def test_the_config_is_resolved_once_and_frozen() -> None:
    config = EngineArgs(device="cpu", max_num_seqs=4).create_engine_config(
        dtype=torch.float32, max_position_embeddings=512
    )
    assert (config.device, config.dtype, config.max_model_len, config.max_num_seqs) == (
        torch.device("cpu"),
        torch.float32,
        512,
        4,
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.max_model_len = 16  # type: ignore[misc]
    shorter = EngineArgs(device="cpu", max_model_len=64).create_engine_config(
        dtype=torch.float32, max_position_embeddings=512
    )
    assert shorter.max_model_len == 64
    with pytest.raises(EngineError, match="max_model_len=1024 exceeds the model's max_position_embeddings=512"):
        EngineArgs(device="cpu", max_model_len=1024).create_engine_config(
            dtype=torch.float32, max_position_embeddings=512
        )
    with pytest.raises(EngineError, match="without chunked prefill"):
        EngineArgs(device="cpu", enable_chunked_prefill=False, max_num_batched_tokens=256).create_engine_config(
            dtype=torch.float32, max_position_embeddings=512
        )


def test_one_dtype_table() -> None:
    assert resolve_dtype("auto", "cpu") is torch.float32 and resolve_dtype(None, "cpu") is torch.float32
    assert resolve_dtype("auto", "cuda") is torch.bfloat16
    assert {resolve_dtype(name, "cpu") for name in DTYPES} == {torch.float32, torch.bfloat16, torch.float16}
    assert resolve_dtype(torch.float16, "cpu") is torch.float16
    with pytest.raises(EngineError, match="dtype must be auto, float32, bfloat16 or float16, got 'fp8'"):
        resolve_dtype("fp8", "cpu")


def test_the_engine_resolves_from_the_model(tiny_qwen3_dir: Path) -> None:
    from engine.llm import LLM

    llm = LLM(str(tiny_qwen3_dir), device="cpu", dtype="bf16", max_num_seqs=2)
    assert llm.config.dtype is torch.bfloat16 and llm.config.max_model_len == 512  # the model's context
    assert next(llm.engine_core.loaded.model.parameters()).dtype is torch.bfloat16


def test_step_budget_defaults_by_use_and_device_as_vllm(monkeypatch):
    """Unset, the step budget is 16384 offline on a CUDA device of >= 70 GiB other than an A100, 8192 for the server
    and everywhere else; a budget given is kept."""
    from types import SimpleNamespace

    from engine.args import default_max_num_batched_tokens

    cuda = torch.device("cuda", 0)
    gpus = {
        "NVIDIA H200": (143 * 2**30, 16384),
        "NVIDIA A100-SXM4-80GB": (80 * 2**30, 8192),
        "NVIDIA L4": (23 * 2**30, 8192),
    }
    for name, (memory, offline) in gpus.items():
        props = SimpleNamespace(name=name, total_memory=memory)
        monkeypatch.setattr(torch.cuda, "get_device_properties", lambda _d, p=props: p)
        assert default_max_num_batched_tokens(cuda, offline=True) == offline, name
        assert default_max_num_batched_tokens(cuda, offline=False) == 8192, name
    assert default_max_num_batched_tokens(torch.device("cpu"), offline=True) == 8192

    unset = EngineArgs(device="cpu")
    assert unset.max_num_batched_tokens is None
    assert unset.for_offline().max_num_batched_tokens == 8192
    config = unset.create_engine_config(dtype=torch.float32, max_position_embeddings=64)
    assert config.max_num_batched_tokens == 8192
    assert EngineArgs(device="cpu", max_num_batched_tokens=96).for_offline().max_num_batched_tokens == 96
