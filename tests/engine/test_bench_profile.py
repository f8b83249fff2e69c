"""`engine bench throughput`: warm-up passes and repeats by device, and `--profile DIR` (engine/bench/step_profile.py,
trace_summary.py): the summary of a synthetic trace, and the files a CPU run writes."""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

import pytest
import torch

from engine.bench import cli
from engine.bench.trace_summary import busy_us, summarize
from engine.bench.throughput import resolve_run_counts

SHA = "89abcdef0123456789abcdef0123456789abcdef"


def kernel(name: str, ts: float, dur: float, cat: str = "kernel") -> dict:
    return {"ph": "X", "cat": cat, "name": name, "ts": ts, "dur": dur}


def test_busy_time_is_the_union_of_intervals() -> None:
    assert busy_us([(0, 10), (5, 12), (20, 25), (21, 22)]) == 17
    assert busy_us([]) == 0


def test_a_synthetic_trace_of_two_steps() -> None:
    events = [
        kernel("gemm", 0, 40),
        kernel("attn", 40, 30),
        kernel("gemm", 100, 40),
        kernel("attn", 140, 30),
        kernel("Memcpy HtoD", 95, 5, "gpu_memcpy"),
        kernel("copy", 150, 10, "gpu_memcpy"),  # overlaps attn
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "ts": 1, "dur": 3},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 2, "dur": 3},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaEventQuery", "ts": 3, "dur": 1},  # not a launch
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 0, "dur": 50},
        {"ph": "i", "cat": "kernel", "name": "marker", "ts": 5},
    ]  # not a span
    s = summarize(events, num_steps=2, wall_s=200e-6)
    assert s["step_ms"] == 0.1 and s["kernels_per_step"] == 2 and s["memcpy_per_step"] == 1
    assert s["host_launch_calls_per_step"] == 1
    assert s["gpu_busy_ms_per_step"] == pytest.approx(0.0725)  # 145 us busy of the 170 us window
    assert s["gpu_idle_fraction"] == pytest.approx(1 - 145 / 170, abs=1e-4)
    assert s["gpu_busy_fraction"] == pytest.approx(0.725)
    assert [k["name"] for k in s["top_kernels"]] == ["gemm", "attn"]
    assert s["top_kernels"][0]["ms_per_step"] == 0.04 and s["top_kernels"][0]["calls_per_step"] == 1
    assert s["top_kernels"][0]["share_of_kernel_time"] == pytest.approx(80 / 140, abs=1e-4)


def test_no_device_events_means_no_device_figures() -> None:
    s = summarize([{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 0, "dur": 5}], 4, 0.004)
    assert s["gpu_busy_fraction"] is None and s["gpu_idle_fraction"] is None and s["kernels_per_step"] == 0


def _throughput_args(*flags: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="engine")
    cli.add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["bench", "throughput", *flags])


def test_repeats_and_warmup_passes_default_by_device(monkeypatch: pytest.MonkeyPatch) -> None:
    args = _throughput_args("--device", "cpu")
    resolve_run_counts(args)
    assert (args.repeat, args.warmup_passes) == (1, 0)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)  # only the defaults are resolved, nothing runs
    args = _throughput_args("--device", "cuda")
    resolve_run_counts(args)
    assert (args.repeat, args.warmup_passes) == (3, 1)
    args = _throughput_args("--device", "cuda", "--repeat", "5", "--warmup-passes", "0")
    resolve_run_counts(args)
    assert (args.repeat, args.warmup_passes) == (5, 0)


@pytest.mark.parametrize(
    "flags,message",
    [
        (["--repeat", "0"], "--repeat must be >= 1"),
        (["--warmup-passes", "-1"], "--warmup-passes >= 0"),
        (["--profile-steps", "0"], "--profile-steps must be >= 1"),
    ],
)
def test_bad_counts_are_one_line(
    flags: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert cli.main(["throughput", "--device", "cpu", "--commit", SHA, "--output-dir", str(tmp_path), *flags]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_profile_dir_holds_the_summary_and_the_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = json.loads(Path(__file__).resolve().parents[2].joinpath("engine/model/configs/Qwen3-0.6B.json").read_text())
    cfg.update(
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        vocab_size=10240,
        bos_token_id=1,
        eos_token_id=2,
    )
    model = tmp_path / "tiny-qwen3.json"
    model.write_text(json.dumps(cfg))
    prof = tmp_path / "prof"
    assert (
        cli.main(
            [
                "throughput",
                "--model",
                str(model),
                "--dataset-name",
                "random",
                "--num-prompts",
                "6",
                "--input-len",
                "12",
                "--output-len",
                "24",
                "--max-model-len",
                "64",
                "--max-num-seqs",
                "4",
                "--device",
                "cpu",
                "--warmup-passes",
                "1",
                "--commit",
                SHA,
                "--output-dir",
                str(tmp_path / "out"),
                "--result-only",
                "--profile",
                str(prof),
                "--profile-steps",
                "5",
            ]
        )
        == 0
    )
    log = capsys.readouterr().out
    assert "warm-up pass 1/1" in log and "profile: 5 steps with 4 running" in log
    (d,) = (tmp_path / "out").iterdir()
    result = json.loads((d / "result.json").read_text())
    assert "--warmup-passes 1" in result["command"] and "--repeat 1" in result["command"]
    assert "--profile" not in result["command"] and len(result["runs"]) == 1
    summary = json.loads((prof / "profile.json").read_text())
    assert summary["steps"] == 5 and summary["running"] == 4 and summary["rows_per_step"] == 4
    assert set(summary["host_ms_per_step"]) == {"schedule", "execute", "wait", "update"}
    assert summary["async_scheduling"] is True and summary["workload"] == "random"
    trace = json.loads(gzip.decompress((prof / "trace.json.gz").read_bytes()))
    assert any(e.get("name", "").startswith("aten::") for e in trace["traceEvents"])


def test_host_timers_leave_the_engine_as_they_found_it(tiny_qwen3_dir: Path) -> None:
    from engine.args import EngineArgs
    from engine.bench.step_profile import host_timers
    from engine.engine_core import EngineCore
    from engine.sampling_params import SamplingParams

    core = EngineCore.from_args(EngineArgs(model=str(tiny_qwen3_dir), device="cpu", max_model_len=64, max_num_seqs=2))
    own = core.runner.execute_model  # an override of this instance (a test's slow step, say)
    core.runner.execute_model = own
    core.add_request("a", [5, 6, 7], SamplingParams(temperature=0, max_tokens=4, ignore_eos=True))
    with host_timers(core) as spent:
        for _ in range(3):
            core.step()
    assert set(spent) == {"schedule", "execute", "wait", "update"} and all(v > 0 for v in spent.values())
    assert core.runner.__dict__["execute_model"] is own
    assert "schedule" not in core.scheduler.__dict__ and "update_from_output" not in core.scheduler.__dict__
