"""`engine generate`: the embedded model answers, prints tokens/s; mistakes are one line and exit code 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import build_parser, main


def test_generate_with_the_embedded_model_says_paris(smollm2_gguf_path: Path) -> None:
    env = dict(os.environ, OMP_NUM_THREADS="1")
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "generate", "What is the capital of France?", "--max-tokens", "12"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Paris" in proc.stdout
    assert "prefill" in proc.stderr and "decode" in proc.stderr and "tok/s" in proc.stderr


def test_vllm_flag_names_parse() -> None:
    args = build_parser().parse_args(
        [
            "generate",
            "hi",
            "--model",
            "m",
            "--load-format",
            "dummy",
            "--dtype",
            "bfloat16",
            "--device",
            "cpu",
            "--max-tokens",
            "5",
            "--temperature",
            "0.5",
            "--top-p",
            "0.9",
            "--top-k",
            "20",
            "--seed",
            "3",
            "--max-num-seqs",
            "4",
            "--max-num-batched-tokens",
            "64",
            "--block-size",
            "8",
            "--no-enable-prefix-caching",
            "--no-chat-template",
        ]
    )
    assert (args.max_tokens, args.top_k, args.block_size, args.enable_prefix_caching, args.chat_template) == (
        5,
        20,
        8,
        False,
        False,
    )


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--max-tokens", "0"], "SamplingParams.max_tokens must be an integer >= 1"),
        (["--temperature", "-1"], "SamplingParams.temperature must be a finite number >= 0"),
        (["--top-p", "1.5"], "SamplingParams.top_p must be in (0, 1]"),
        (["--model", "/no/such/model"], "model path /no/such/model does not exist"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, message, capsys) -> None:
    assert main(["generate", "hi", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("engine: error: ") and message in err and err.count("\n") == 1


def test_prompt_longer_than_the_context(tiny_qwen3_dir: Path, capsys) -> None:
    rc = main(
        [
            "generate",
            "word " * 50,
            "--model",
            str(tiny_qwen3_dir),
            "--device",
            "cpu",
            "--max-model-len",
            "16",
            "--no-chat-template",
        ]
    )
    err = capsys.readouterr().err
    assert rc == 2 and "longer than the context (max_model_len=16)" in err and err.count("\n") == 1


def test_cpu_threads_leave_busy_cores_alone(monkeypatch) -> None:
    import os

    from engine.utils import cpu_threads

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (1.6, 1.0, 1.0))
    assert cpu_threads(None) == 2  # 4 cores, about 2 busy
    monkeypatch.setattr(os, "getloadavg", lambda: (9.0, 9.0, 9.0))
    assert cpu_threads(None) == 1  # never below one
    assert cpu_threads(3) == 3  # an explicit --cpu-threads wins
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    assert cpu_threads(None) is None  # so does the user's OMP_NUM_THREADS


def test_version(capsys) -> None:
    from engine.provenance.version import engine_version

    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out == f"engine {engine_version()}\n"
    assert engine_version()[0].isdigit()


def test_serve_without_aiohttp_names_the_package(monkeypatch, capsys) -> None:
    monkeypatch.setitem(sys.modules, "aiohttp", None)  # what an import of a missing package sees
    assert main(["serve", "--device", "cpu"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "engine: error: engine serve needs aiohttp, which is not installed; install the `engine` extra: "
        "pip install 'evident-roadmap[engine]'\n"
    )
    assert main(["bench", "serve", "--num-prompts", "1"]) == 2
    assert "engine bench serve needs aiohttp" in capsys.readouterr().err


def test_without_the_engine_extra_every_command_names_it(monkeypatch, capsys) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setitem(sys.modules, "jinja2", None)
    assert main(["generate", "hi"]) == 2
    assert capsys.readouterr().err == (
        "engine: error: the engine needs torch, jinja2, which are not installed; "
        "install the `engine` extra: pip install 'evident-roadmap[engine]'\n"
    )


def test_gguf_is_asked_for_only_where_a_gguf_file_is_read(monkeypatch, tmp_path) -> None:
    # a GPU machine without gguf still runs dummy weights; reading a .gguf names the extra
    from engine.errors import EngineError
    from engine.model.gguf_loader import open_gguf
    from engine.utils import require_engine_extra

    monkeypatch.setitem(sys.modules, "gguf", None)
    require_engine_extra()
    with pytest.raises(EngineError, match=r"reading m.gguf needs gguf.*evident-roadmap\[engine\]"):
        open_gguf(tmp_path / "m.gguf")


def test_cli_imports_no_torch_until_a_command_runs() -> None:
    code = "import sys, engine.cli, engine; print('torch' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "False", proc.stderr


def test_bench_serve_evidence_without_matplotlib_names_the_package(monkeypatch, capsys, tmp_path) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert main(["bench", "serve", "--num-prompts", "1", "--output-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'evident-roadmap[bench]' (or drop --output-dir)" in err
