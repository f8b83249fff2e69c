"""`engine bench` end to end on CPU with a tiny dummy Qwen3: evidence dirs that roadmap's validator accepts, the
transformers peer on the same weights, a peer cut short by its time limit, and latency."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest
import torch

from engine.bench import cli, peer_transformers, workloads

SHA = "89abcdef0123456789abcdef0123456789abcdef"
# A KV cache of 32 blocks, not the 1 GiB CPU default; on CPU whatever the machine has, so the evidence directory names
# end in "-cpu" on a CUDA machine too (and no test process sizes its cache from a GPU others share).
SMALL = ["--max-model-len", "64", "--max-num-seqs", "8", "--device", "cpu"]
REQUIRED = (
    "schema",
    "series",
    "row",
    "created",
    "commit",
    "dirty",
    "command",
    "machine",
    "model",
    "workload",
    "engine",
    "runs",
    "metrics",
    "roofline",
    "peers",
)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Qwen3-0.6B's config.json shrunk to 2 layers of width 64 (ids of the random workloads stay in vocab)."""
    cfg = json.loads(resources.files("engine.model").joinpath("configs", "Qwen3-0.6B.json").read_text())
    cfg.update(
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        vocab_size=10240,
        max_position_embeddings=4096,
        bos_token_id=1,
        eos_token_id=2,
    )
    path = tmp_path_factory.mktemp("cfg") / "tiny-qwen3.json"
    path.write_text(json.dumps(cfg))
    return str(path)


def _validate(result: dict) -> list[str]:
    schema = pytest.importorskip("roadmap.evidence.schema", reason="roadmap.evidence.schema has not landed yet")
    return schema.validate_result(result)


def _dirs(root: Path) -> dict[str, Path]:
    return {p.name.split("-", 1)[1]: p for p in root.iterdir()}


def test_throughput_with_peer_writes_evidence(tiny: str, tmp_path: Path) -> None:
    rc = cli.main(
        [
            "throughput",
            "--model",
            tiny,
            "--dataset-name",
            "random",
            "--num-prompts",
            "4",
            "--input-len",
            "16",
            "--output-len",
            "6",
            "--repeat",
            "2",
            "--peer",
            "transformers-cb",
            "--output-dir",
            str(tmp_path),
            "--commit",
            SHA,
            *SMALL,
        ]
    )
    assert rc == 0
    dirs = _dirs(tmp_path)
    assert set(dirs) == {
        "throughput-random4-16-6-s0-tiny-qwen3-cpu",
        "peer-transformers-cb-tiny-qwen3-random4-16-6-s0-cpu",
    }
    for d in dirs.values():
        files = list(d.iterdir())
        assert len(files) <= 4 and sum(f.stat().st_size for f in files) < 400_000
        assert _validate(json.loads((d / "result.json").read_text())) == []
    ours = json.loads((dirs["throughput-random4-16-6-s0-tiny-qwen3-cpu"] / "result.json").read_text())
    assert all(k in ours for k in REQUIRED)
    assert ours["commit"] == SHA and ours["dirty"] is False and ours["row"] == "ENG-BENCH"
    assert ours["workload"]["prompt_tokens"] == 64 and ours["workload"]["output_tokens"] == 24
    assert [r["output_tokens"] for r in ours["runs"]] == [24, 24]
    assert ours["metrics"]["output_tok_per_s"]["min"] <= ours["metrics"]["output_tok_per_s"]["median"]
    assert set(ours["metrics"]["ttft_ms"]) == {"p50", "p90", "p99", "mean"} and ours["metrics"]["peak_vram_gib"] is None
    assert ours["roofline"]["output_tok_per_s_bound"] > 0 and ours["roofline"]["fraction"] > 0
    assert ours["roofline"]["ceilings"]["copy_gbps"] > 0 and ours["roofline"]["ceilings"]["bf16_tflops"] > 0
    assert set(ours["machine"]) >= {"gpu", "gpu_count", "driver", "cuda", "torch", "triton", "python"}
    assert ours["engine"]["max_num_seqs"] >= 1 and ours["model"]["config"]["hidden_size"] == 64
    assert ours["command"].startswith("engine bench throughput --model ")
    (peer,) = ours["peers"]
    assert peer["name"] == "transformers-cb" and peer["complete"] is True and peer["ratio"] > 0
    assert peer["evidence"] == dirs["peer-transformers-cb-tiny-qwen3-random4-16-6-s0-cpu"].name
    assert peer["metrics"]["output_tok_per_s"]["median"] > 0 and peer["version"] == peer_transformers.version()

    # The peer's own dir is cited by a later run of the same workload, and refused for another one.
    peer_dir = str(dirs["peer-transformers-cb-tiny-qwen3-random4-16-6-s0-cpu"])
    again = tmp_path / "again"
    assert (
        cli.main(
            [
                "throughput",
                "--model",
                tiny,
                "--dataset-name",
                "random",
                "--num-prompts",
                "4",
                "--input-len",
                "16",
                "--output-len",
                "6",
                "--peer-evidence",
                peer_dir,
                "--output-dir",
                str(again),
                "--commit",
                SHA,
                "--result-only",
                *SMALL,
            ]
        )
        == 0
    )
    (cited,) = json.loads(next(again.iterdir()).joinpath("result.json").read_text())["peers"]
    assert cited["evidence"] == peer["evidence"] and cited["ratio"] > 0
    assert (
        cli.main(
            [
                "throughput",
                "--model",
                tiny,
                "--dataset-name",
                "random",
                "--num-prompts",
                "3",
                "--input-len",
                "16",
                "--output-len",
                "6",
                "--peer-evidence",
                peer_dir,
                "--output-dir",
                str(again),
                "--commit",
                SHA,
                *SMALL,
            ]
        )
        == 2
    )


def test_peer_runs_on_our_weights_and_stops_at_its_limit(tiny: str) -> None:
    from engine import LLM, SamplingParams

    w = workloads.random_fixed(3, 12, 5, seed=3)
    llm = LLM(tiny, load_format="dummy", device="cpu", seed=7, max_model_len=64, max_num_seqs=8)
    outs = llm.generate(
        [{"prompt_token_ids": p} for p in w.prompts],
        SamplingParams(max_tokens=5, ignore_eos=True, temperature=0.0),
        use_tqdm=False,
    )
    loaded, weights = peer_transformers.engine_weights(tiny, "dummy", torch.float32, torch.device("cpu"), 7)
    hf = peer_transformers.build_model(loaded.config.hf_config, torch.float32, torch.device("cpu"), weights)
    ours_params = dict(peer_transformers.hf_named_weights(loaded.model))
    theirs = dict(hf.named_parameters())
    assert set(ours_params) == set(theirs) and all(torch.equal(ours_params[k], theirs[k]) for k in theirs)

    done = peer_transformers.run(hf, w, timeout_s=None)
    assert done.complete and [t.output_tokens for t in done.timings] == [5, 5, 5]
    assert done.token_ids == [o.outputs[0].token_ids for o in outs]  # same weights, greedy: same tokens
    assert all(len(t.token_times) == 5 and t.token_times[0] >= t.arrival for t in done.timings)

    long = workloads.random_fixed(2, 12, 4000, seed=3)  # far more than 1 s of CPU work
    cut = peer_transformers.run(hf, long, timeout_s=1.0)
    produced = sum(t.output_tokens for t in cut.timings)
    assert not cut.complete and cut.elapsed_s >= 1.0
    assert 0 < produced < long.output_tokens and not any(t.finished for t in cut.timings)


def test_latency_writes_evidence(tiny: str, tmp_path: Path) -> None:
    assert (
        cli.main(
            [
                "latency",
                "--model",
                tiny,
                "--batch-size",
                "2",
                "--input-len",
                "8",
                "--output-len",
                "4",
                "--num-iters-warmup",
                "1",
                "--num-iters",
                "3",
                "--output-dir",
                str(tmp_path),
                "--commit",
                SHA,
                *SMALL,
            ]
        )
        == 0
    )
    (d,) = tmp_path.iterdir()
    r = json.loads((d / "result.json").read_text())
    assert d.name.endswith("latency-bs2-in8-out4-tiny-qwen3-cpu") and _validate(r) == []
    assert len(r["runs"]) == 3 and all(run["output_tokens"] == 8 for run in r["runs"])
    lat = sorted(run["latency_ms"] for run in r["runs"])
    assert r["metrics"]["latency_ms"]["p50"] == lat[1]
    assert set(r["metrics"]["latency_percentiles_ms"]) == {"p10", "p25", "p50", "p75", "p90", "p99"}


def test_user_mistakes_are_one_line(tiny: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["throughput", "--model", tiny, "--commit", "not-a-sha", "--output-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("engine bench: error: --commit 'not-a-sha' is not a 40-hex")
    assert cli.main(["throughput", "--model", tiny, "--peer-only", "--commit", SHA]) == 2
    assert "--peer transformers-cb" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_without_output_dir_evidence_goes_to_out_bench(
    tiny: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert (
        cli.main(
            [
                "latency",
                "--model",
                tiny,
                "--batch-size",
                "1",
                "--input-len",
                "4",
                "--output-len",
                "2",
                "--num-iters-warmup",
                "0",
                "--num-iters",
                "1",
                "--commit",
                SHA,
                "--result-only",
                *SMALL,
            ]
        )
        == 0
    )
    (d,) = (tmp_path / "out" / "bench").iterdir()
    assert d.name.endswith("latency-bs1-in4-out2-tiny-qwen3-cpu") and (d / "result.json").is_file()


def test_the_evidence_root_refuses_a_dirty_tree_unless_told(
    tiny: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from engine.bench import evidence, session

    root = tmp_path / "docs" / "bench-evidence"
    monkeypatch.setattr(evidence, "EVIDENCE_ROOT", root)
    monkeypatch.setattr(session, "resolve_commit", lambda commit, dirty: (SHA, True if dirty is None else dirty))
    argv = [
        "latency",
        "--model",
        tiny,
        "--batch-size",
        "1",
        "--input-len",
        "4",
        "--output-len",
        "2",
        "--num-iters-warmup",
        "0",
        "--num-iters",
        "1",
        "--result-only",
        "--output-dir",
        str(root),
        *SMALL,
    ]
    assert cli.main(argv) == 2  # git found changes: refused before measuring
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "uncommitted changes" in err and "pass --dirty" in err
    assert not root.exists()
    assert cli.main([*argv, "--dirty"]) == 0  # asked for: written, and recorded dirty
    (d,) = root.iterdir()
    assert json.loads((d / "result.json").read_text())["dirty"] is True
    assert cli.main([*argv, "--output-dir", str(tmp_path / "elsewhere")]) == 0  # anywhere else: written


def test_plots_without_matplotlib_name_the_package(
    tiny: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # what an import of a missing package sees
    assert cli.main(["latency", "--model", tiny, "--output-dir", str(tmp_path), "--commit", SHA, *SMALL]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "install the `bench` extra: pip install 'evident-roadmap[bench]'" in err
    assert "--result-only" in err
    assert not any(tmp_path.iterdir())
    assert cli.main(["render", str(tmp_path)]) == 2 and "'evident-roadmap[bench]'" in capsys.readouterr().err


def test_every_bench_pass_computes_its_prompts_again(tiny: str) -> None:
    """A pass repeats the prompts of the pass before: without emptying the prefix cache, the timed runs would skip
    their prefill (vLLM's benchmarks draw fresh prompts; ours empties the cache before each pass)."""
    from engine.args import EngineArgs
    from engine.bench import ours

    llm, _ = ours.build_llm(EngineArgs(model=tiny, load_format="dummy", device="cpu", max_model_len=64, max_num_seqs=8))
    w = workloads.build("random", 6, 40, 4, 0)
    kv = llm.engine_core.scheduler.kv
    ours.generate(llm, w)
    looked_up, hits = kv.prefix_queries, kv.prefix_hits
    ours.generate(llm, w)
    assert kv.prefix_queries > looked_up and kv.prefix_hits == hits  # the same prompts, no block found cached
    llm.generate([{"prompt_token_ids": w.prompts[0]}], use_tqdm=False)
    assert kv.prefix_hits > hits  # the cache itself works: a plain request after the pass does find them
