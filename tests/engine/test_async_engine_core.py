"""EngineCore's step pipeline: two steps in flight with async scheduling, one without; the switch and its rollback.

Token identity with the synchronous engine on a real (tiny) model is tested in test_vs_transformers.py and
test_llm.py (both run each way); the scheduler's side of tokens in flight in test_async_scheduler.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from engine.args import EngineArgs
from engine.cli import build_parser
from engine.engine_core import EngineCore
from engine.errors import EngineError
from engine.sampling_params import SamplingParams

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def config(**kw) -> object:
    return EngineArgs(device="cpu", **kw).create_engine_config(dtype=torch.float32, max_position_embeddings=512)


def test_async_is_the_default_and_the_env_or_the_flag_rolls_it_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ENGINE_ASYNC_SCHEDULING", raising=False)
    assert config().async_scheduling is True
    assert config(async_scheduling=False).async_scheduling is False
    monkeypatch.setenv("ENGINE_ASYNC_SCHEDULING", "0")
    assert config().async_scheduling is False
    assert config(async_scheduling=True).async_scheduling is True  # the flag wins over the environment
    monkeypatch.setenv("ENGINE_ASYNC_SCHEDULING", "maybe")
    with pytest.raises(EngineError, match="ENGINE_ASYNC_SCHEDULING='maybe' is neither 0 nor 1; set it to 0"):
        config()
    with pytest.raises(EngineError, match="async_scheduling must be True, False or None"):
        EngineArgs(async_scheduling="yes")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "flags,expected", [([], None), (["--async-scheduling"], True), (["--no-async-scheduling"], False)]
)
def test_the_flags_of_every_command(flags: list[str], expected: bool | None) -> None:
    for command in (["generate", "hi"], ["serve"], ["bench", "throughput"], ["bench", "latency"]):
        args = build_parser().parse_args([*command, *flags])
        assert args.async_scheduling is expected


@pytest.fixture(scope="module")
def cores(tiny_qwen3_dir: Path) -> dict[bool, EngineCore]:
    from engine.model import load_model

    loaded = load_model(str(tiny_qwen3_dir), dtype="float32")
    return {
        a: EngineCore.from_args(
            EngineArgs(
                model="tiny",
                device="cpu",
                dtype="float32",
                block_size=4,
                max_model_len=64,
                max_num_seqs=4,
                async_scheduling=a,
            ),
            loaded=loaded,
        )
        for a in (True, False)
    }


def test_async_launches_the_next_step_before_reading_a_token(cores: dict[bool, EngineCore]) -> None:
    core = cores[True]
    req = core.add_request("a", [5, 6, 7], SamplingParams(temperature=0, max_tokens=3, ignore_eos=True))
    finished, out = core.step()  # the prefill launched, nothing read yet
    assert (finished, out.req_ids, core.num_steps_in_flight) == ([], [], 1)
    finished, out = core.step()  # the first decode launched, then the prefill's token read
    assert out.req_ids == ["a"] and req.output_token_ids == out.sampled_token_ids
    assert core.num_steps_in_flight == 1 and req.num_output_placeholders == 1 and req.num_computed_tokens == 4
    core.step()
    finished, out = core.step()  # max_tokens in flight: nothing more launched, the last read
    assert finished == [req] and len(req.output_token_ids) == 3 and core.num_steps_in_flight == 0
    assert not core.has_unfinished_requests() and core.scheduler.kv.num_free_blocks == core.num_blocks


def test_sync_reads_every_token_in_the_step_that_computed_it(cores: dict[bool, EngineCore]) -> None:
    core = cores[False]
    req = core.add_request("a", [5, 6, 7], SamplingParams(temperature=0, max_tokens=3, ignore_eos=True))
    for n in (1, 2, 3):
        _, out = core.step()
        assert out.req_ids == ["a"] and len(req.output_token_ids) == n and core.num_steps_in_flight == 0
    assert req.finish_reason == "length"


def test_a_late_eos_costs_one_dropped_token_and_nothing_else(cores: dict[bool, EngineCore]) -> None:
    prompt = [11, 12, 13, 14]
    free = cores[False]
    ref = free.add_request("ref", prompt, SamplingParams(temperature=0, max_tokens=8, ignore_eos=True))
    while free.has_unfinished_requests():
        free.step()
    eos = ref.output_token_ids[2]
    cut = ref.output_token_ids.index(eos)
    core = cores[True]
    core.eos_token_ids = frozenset({eos})
    try:
        req = core.add_request("eos", prompt, SamplingParams(temperature=0, max_tokens=8))
        rows = 0
        while core.has_unfinished_requests() or core.num_steps_in_flight:
            _, out = core.step()
            rows += out.req_ids.count("eos")
    finally:
        core.eos_token_ids = frozenset(core.model_config.eos_token_ids)
    assert req.output_token_ids == ref.output_token_ids[: cut + 1] and req.finish_reason == "stop"
    assert rows == cut + 2  # the step after the EOS ran before the EOS was seen: dropped
    assert core.scheduler.kv.num_free_blocks == core.num_blocks
    core.step()  # the runner hears of it and drops its slot
    assert not core.runner.state.req_to_slot


def test_ids_reused_while_the_last_step_is_in_flight_get_their_own_tokens(cores: dict[bool, EngineCore]) -> None:
    """Each LLM wrapper numbers its requests from 0: a second generate reuses the ids of requests whose last step
    (computing tokens to drop) has not been processed yet."""
    from engine.llm import LLM

    core = cores[True]
    prompts = [{"prompt_token_ids": [9, 8, 7, 6][:n]} for n in (1, 2, 3, 4)]
    params = [SamplingParams(temperature=0, max_tokens=m, ignore_eos=True) for m in (5, 2, 7, 3)]
    first = [o.outputs[0].token_ids for o in LLM.from_engine_core(core).generate(prompts, params, use_tqdm=False)]
    stops = [SamplingParams(temperature=0, max_tokens=m, stop_token_ids=[t[0]]) for m, t in zip((5, 2, 7, 3), first)]
    stopped = LLM.from_engine_core(core).generate(prompts, stops, use_tqdm=False)  # a late stop: a step in flight
    assert [o.outputs[0].token_ids for o in stopped] == [t[:1] for t in first] and core.num_steps_in_flight == 1
    again = [o.outputs[0].token_ids for o in LLM.from_engine_core(core).generate(prompts, params, use_tqdm=False)]
    assert again == first
    sync = [
        o.outputs[0].token_ids for o in LLM.from_engine_core(cores[False]).generate(prompts, params, use_tqdm=False)
    ]
    assert sync == first


def test_the_h200_script_runs_its_cpu_smoke_check(tmp_path: Path) -> None:
    """tools/device_async.py --tiny: parity (async == sync, stops, preemption), the decode windows, the ablation."""
    import json
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "async.json"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])),
        "OMP_NUM_THREADS": "1",
    }
    subprocess.run(
        [sys.executable, str(root / "tools" / "device_async.py"), "--tiny", "--out", str(out)],
        check=True,
        env=env,
        cwd=root,
        timeout=600,
        capture_output=True,
    )
    r = json.loads(out.read_text())
    parity = r["parity"]
    assert parity["identical"] and parity["stops_honoured"] and parity["engines"]["async-constrained"]["preemptions"]
    assert any(parity["stop_token_ids"]) and parity["engines"]["async"]["prefix_hits"] > 0
    assert [d["async_scheduling"] for d in r["decode"]] == [True, False]
    assert all(w["profile"]["steps"] == 3 and w["step_ms"] > 0 for d in r["decode"] for w in d["windows"])
    assert len(r["ablation"]) == 8 and {a["fused_sampler"] for a in r["ablation"]} == {True, False}
    assert {a["async_scheduling"] for a in r["ablation"]} == {True, False}
    assert all(a["batch"]["output_tok_per_s"] > 0 and a["batch1"]["tpot_ms"] > 0 for a in r["ablation"])
