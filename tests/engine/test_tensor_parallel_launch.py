"""Tensor parallelism as people start it, on CPU over gloo: under torchrun (every rank runs the script, rank 0
gets the outputs) and behind `engine serve --tensor-parallel-size 2`; both answer with one rank's greedy tokens."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

from engine.llm import LLM
from engine.sampling_params import SamplingParams

pytestmark = pytest.mark.usefixtures("one_torch_thread")

REPO = Path(__file__).resolve().parents[2]
SETTINGS = dict(
    device="cpu",
    dtype="float32",
    attention_backend="torch",
    max_num_seqs=4,
    max_model_len=64,
    block_size=4,
    num_blocks=64,
)
PROMPT = [5, 17, 900, 3]
SCRIPT = """
import json, sys
from engine import LLM, SamplingParams
llm = LLM(sys.argv[1], tensor_parallel_size=2, **json.loads(sys.argv[2]))
out = llm.generate([{"prompt_token_ids": json.loads(sys.argv[3])}],
                   SamplingParams(temperature=0, max_tokens=8, ignore_eos=True), use_tqdm=False)
print("TOKENS", json.dumps(list(out[0].outputs[0].token_ids)))
"""


def _one_rank(model_dir: Path) -> tuple[list[int], str]:
    llm = LLM(str(model_dir), **SETTINGS)
    out = llm.generate(
        [{"prompt_token_ids": PROMPT}], SamplingParams(temperature=0, max_tokens=8, ignore_eos=True), use_tqdm=False
    )[0].outputs[0]
    return list(out.token_ids), out.text


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_torchrun_ranks_give_one_ranks_tokens_on_rank_zero(tiny_qwen3_dir: Path, tmp_path: Path) -> None:
    script = tmp_path / "generate.py"
    script.write_text(SCRIPT)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        "OMP_NUM_THREADS": "1",
    }
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--nproc-per-node",
        "2",
        "--master-addr",
        "127.0.0.1",
        "--master-port",
        str(_free_port()),
        str(script),
        str(tiny_qwen3_dir),
        json.dumps(SETTINGS),
        json.dumps(PROMPT),
    ]
    done = subprocess.run(cmd, env=env, cwd=REPO, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    printed = [json.loads(line.split(" ", 1)[1]) for line in done.stdout.splitlines() if line.startswith("TOKENS ")]
    assert printed == [_one_rank(tiny_qwen3_dir)[0]]  # printed by rank 0 alone: rank 1 exits inside LLM(...)


def test_serve_with_two_ranks_answers_one_ranks_text(tiny_qwen3_dir: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        "OMP_NUM_THREADS": "1",
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "engine",
            "serve",
            str(tiny_qwen3_dir),
            "--port",
            "0",
            "--tensor-parallel-size",
            "2",
            "--cpu-threads",
            "1",
            "--num-blocks",
            "64",
            *[f"--{k.replace('_', '-')}={v}" for k, v in SETTINGS.items() if k != "num_blocks"],
        ],
        env=env,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    url_seen = threading.Event()

    def read_stderr() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            if " at http://" in line:
                url_seen.set()

    threading.Thread(target=read_stderr, daemon=True).start()
    try:
        assert url_seen.wait(180), "".join(lines)
        base = re.search(r"at (http://\S+)/v1", "".join(lines)).group(1)
        body = {"prompt": PROMPT, "max_tokens": 8, "temperature": 0, "ignore_eos": True}
        req = urllib.request.Request(
            base + "/v1/completions", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=120) as resp:
            answer = json.loads(resp.read())
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(90) == 0, "".join(lines)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert answer["choices"][0]["text"] == _one_rank(tiny_qwen3_dir)[1]
    assert answer["usage"]["completion_tokens"] == 8
