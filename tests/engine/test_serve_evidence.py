"""`engine bench serve --output-dir` against an in-process `engine serve` (the embedded SmolLM2 GGUF, CPU): GET
/v1/engine says what the server runs, the evidence directory passes roadmap's validator, and a server started
without --commit is refused in one line."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest

from engine.cli import main
from engine.args import EngineArgs
from engine.engine_core import EngineCore
from engine.provenance.commit import Provenance
from roadmap.cli import main as roadmap_main
from roadmap.evidence.schema import validate_result
from serve_harness import serve

pytestmark = pytest.mark.usefixtures("one_torch_thread")
SHA = "0123456789abcdef0123456789abcdef01234567"
SERVER = "engine serve --device cpu --max-num-seqs 4 --commit " + SHA


@pytest.fixture(scope="module")
def core(smollm2_loaded) -> EngineCore:
    return EngineCore.from_args(
        EngineArgs(device="cpu", max_num_seqs=4, max_model_len=256, block_size=16, max_num_batched_tokens=256),
        loaded=smollm2_loaded,
    )


def _bench(argv: list[str]):
    """`engine bench serve` as a whole command in a thread (it runs its own event loop) against the test server."""

    async def go(client, engine):
        url = str(client.make_url("")).rstrip("/")
        full = ["bench", "serve", "--base-url", url, "--disable-tqdm", *argv]
        return await asyncio.get_running_loop().run_in_executor(None, main, full)

    return go


def test_engine_card_reports_what_the_server_runs(core: EngineCore) -> None:
    async def go(client, engine):
        resp = await client.get("/v1/engine")
        return resp.status, await resp.json()

    status, info = serve(core, go, model="smollm2", max_queued_requests=5, provenance=Provenance(SHA, True, SERVER))
    assert status == 200
    assert (info["commit"], info["dirty"], info["command"], info["served_model_name"]) == (SHA, True, SERVER, "smollm2")
    e = info["engine"]
    assert (e["max_num_seqs"], e["max_model_len"], e["block_size"], e["max_num_batched_tokens"]) == (4, 256, 16, 256)
    assert e["num_blocks"] == core.num_blocks and e["max_queued_requests"] == 5 and e["device"] == "cpu"
    assert e["attention_kernels"] == core.runner.attention_kernels.name and e["graph_mode"] == core.runner.graph_mode
    m = info["model"]
    assert m["name"] == core.loaded.name and m["dtype"] == "float32" and m["config"]["vocab_size"] == 49152
    assert info["machine"]["device"] == "cpu" and info["machine"]["gpu_count"] == 0 and info["machine"]["python"]
    assert info["version"]


def test_evidence_dir_is_written_and_validates(core: EngineCore, tmp_path: Path) -> None:
    argv = [
        "--num-prompts",
        "3",
        "--random-input-len",
        "6",
        "--random-output-len",
        "3",
        "--max-concurrency",
        "2",
        "--output-dir",
        str(tmp_path),
        "--repeat",
        "2",
        "--row",
        "ENG-SERVE",
        "--series",
        "serve-test",
    ]
    assert serve(core, _bench(argv), model="smollm2", provenance=Provenance(SHA, False, SERVER)) == 0
    [d] = list(tmp_path.iterdir())
    assert d.name.endswith("-serve-test") and {p.name for p in d.iterdir()} == {"result.json", "summary.md", "plot.png"}
    r = json.loads((d / "result.json").read_text())
    assert validate_result(r) == []
    assert (r["commit"], r["dirty"], r["row"], r["series"]) == (SHA, False, "ENG-SERVE", "serve-test")
    assert r["subject"]["kind"] == "serve" and r["roofline"] is None and r["engine"]["max_num_seqs"] == 4
    w = r["workload"]
    assert (w["name"], w["num_requests"], w["request_rate"], w["max_concurrency"]) == ("random", 3, "inf", 2)
    assert len(r["runs"]) == 2 and all(run["output_tokens"] == 9 and run["failed"] == 0 for run in r["runs"])
    tps = sorted(run["output_tok_per_s"] for run in r["runs"])
    assert r["metrics"]["num_runs"] == 2 and r["metrics"]["output_tok_per_s"]["min"] == pytest.approx(tps[0])
    assert r["metrics"]["e2el_ms"]["p50"] > 0
    assert r["command"].startswith(SERVER + " &\nengine bench serve ") and "--repeat 2" in r["command"]
    assert "max concurrency 2" in (d / "summary.md").read_text()


def test_roadmap_evidence_verify_accepts_it(core: EngineCore, tmp_path: Path, capsys) -> None:
    """`roadmap evidence verify` in a repository whose HEAD is the commit the server said it runs."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    (repo / "README.md").write_text("x\n")
    subprocess.run([*git, "add", "README.md"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "init"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    argv = [
        "--num-prompts",
        "2",
        "--random-input-len",
        "4",
        "--random-output-len",
        "2",
        "--output-dir",
        str(repo / "docs" / "bench-evidence"),
    ]
    assert serve(core, _bench(argv), model="smollm2", provenance=Provenance(head, False, SERVER)) == 0
    [d] = list((repo / "docs" / "bench-evidence").iterdir())
    assert "-serve-random2-4-2-s0-smollm2" in d.name and d.name.endswith("-rinf-cnone-cpu")  # the default series
    capsys.readouterr()
    assert roadmap_main(["evidence", "verify", "--path", str(repo)]) == 0, capsys.readouterr()


def test_a_server_without_commit_is_refused_in_one_line(core: EngineCore, tmp_path: Path, capsys) -> None:
    argv = ["--num-prompts", "1", "--random-input-len", "4", "--random-output-len", "1", "--output-dir", str(tmp_path)]
    assert serve(core, _bench(argv), model="smollm2") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "was started without --commit" in err and "--commit $(git rev-parse HEAD)" in err
    assert list(tmp_path.iterdir()) == [] and not core.has_unfinished_requests()  # refused before any request


def test_evidence_flags_without_output_dir_are_refused(capsys) -> None:
    assert main(["bench", "serve", "--repeat", "3"]) == 2
    assert "pass --output-dir DIR too" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--commit", "not-a-sha"], "is not a 40-hex commit sha"),
        (["--dirty"], "pass --commit SHA with it"),
    ],
)
def test_engine_serve_refuses_bad_provenance_before_loading(argv: list[str], says: str, capsys) -> None:
    assert main(["serve", "--load-format", "dummy", "--model", "Qwen3-0.6B", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err
