"""engine serve with the embedded SmolLM2 GGUF: the chat template path answers like LLM.chat, and `engine bench serve`
against an in-process server measures every request completely."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path

import pytest

from engine import LLM, SamplingParams
from engine.bench.serve import benchmark, table
from engine.cli import build_parser, main
from engine.args import EngineArgs
from engine.engine_core import EngineCore
from serve_harness import engine_idle, serve


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def core(smollm2_loaded) -> EngineCore:
    return EngineCore.from_args(
        EngineArgs(device="cpu", max_num_seqs=4, max_model_len=256, block_size=16, max_num_batched_tokens=256),
        loaded=smollm2_loaded,
    )


def test_chat_with_the_embedded_model(core: EngineCore) -> None:
    messages = [{"role": "user", "content": "What is the capital of France?"}]
    ref = LLM.from_engine_core(core).chat(messages, SamplingParams(temperature=0, max_tokens=10), use_tqdm=False)[0]
    body = {"model": "smollm2", "messages": messages, "max_tokens": 10, "temperature": 0}

    async def go(client, engine):
        resp = await client.post("/v1/chat/completions", json=body)
        return resp.status, await resp.json()

    status, answer = serve(core, go, model="smollm2")
    assert status == 200
    content = answer["choices"][0]["message"]["content"]
    assert content == ref.outputs[0].text and "Paris" in content
    assert answer["usage"]["prompt_tokens"] == len(ref.prompt_token_ids)
    assert answer["choices"][0]["finish_reason"] == ref.outputs[0].finish_reason


def test_bench_serve_measures_every_request(core: EngineCore) -> None:
    async def go(client, engine):
        url = str(client.make_url("")).rstrip("/")
        args = build_parser().parse_args(
            [
                "bench",
                "serve",
                "--base-url",
                url,
                "--num-prompts",
                "5",
                "--random-input-len",
                "8",
                "--random-output-len",
                "4",
                "--max-concurrency",
                "2",
                "--request-rate",
                "100",
                "--disable-tqdm",
            ]
        )
        return await benchmark(args), engine.stats.max_batch_requests

    result, max_batch = serve(core, go, model="smollm2")
    assert result["completed"] == 5 and result["failed"] == 0 and result["model"] == "smollm2"
    assert max_batch <= 2  # --max-concurrency held
    m = result["metrics"]
    assert m["prompt_tokens"] == 5 * 8 and m["output_tokens"] == 5 * 4
    assert m["output_tok_per_s"] == pytest.approx(20 / result["duration_s"], rel=1e-3)
    for key in ("ttft_ms", "tpot_ms", "itl_ms", "e2el_ms"):
        s = m[key]
        assert set(s) == {"p50", "p90", "p99", "mean"} and 0 < s["p50"] <= s["p90"] <= s["p99"], key
    assert m["ttft_ms"]["p99"] <= m["e2el_ms"]["p99"]
    text = table(result)
    assert "Successful requests:" in text and "Median ITL (ms):" in text and "P99 E2EL (ms):" in text
    assert engine_idle(core)


def test_bench_serve_saves_json_and_says_when_no_server(tmp_path: Path, capsys) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    rc = main(["bench", "serve", "--port", str(port), "--num-prompts", "1", "--disable-tqdm"])
    err = capsys.readouterr().err
    assert rc == 2 and "is `engine serve` running there?" in err and err.count("\n") == 1
    rc = main(["bench", "serve", "--endpoint", "/v1/chat/completions", "--model", "m"])
    assert rc == 2 and "use --endpoint /v1/completions" in capsys.readouterr().err


def test_bench_serve_cli_writes_the_result(core: EngineCore, tmp_path: Path) -> None:
    """The whole command in a thread against a live server: table on stdout, the JSON with --save-result."""

    async def go(client, engine):
        url = str(client.make_url("")).rstrip("/")
        argv = [
            "bench",
            "serve",
            "--base-url",
            url,
            "--num-prompts",
            "2",
            "--random-input-len",
            "4",
            "--random-output-len",
            "2",
            "--save-result",
            "--result-dir",
            str(tmp_path),
            "--result-filename",
            "r.json",
            "--disable-tqdm",
        ]
        return await asyncio.get_running_loop().run_in_executor(None, main, argv)

    assert serve(core, go, model="smollm2") == 0
    saved = json.loads((tmp_path / "r.json").read_text())
    assert saved["completed"] == 2 and saved["workload"]["name"] == "random" and saved["request_rate"] == "inf"
    assert saved["metrics"]["output_tokens"] == 4
