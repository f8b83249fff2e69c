"""LLM API: vLLM's call shapes, outputs in input order with metrics, hooks, validation, cleanup."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch

from engine import LLM, RequestOutput, SamplingParams
from engine.errors import EngineError


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module", params=[True, False], ids=["async", "sync"])
def llm(tiny_qwen3_dir: Path, request: pytest.FixtureRequest) -> LLM:
    return LLM(
        str(tiny_qwen3_dir),
        device="cpu",
        max_num_seqs=8,
        max_model_len=64,
        block_size=4,
        max_num_batched_tokens=32,
        async_scheduling=request.param,
    )


def test_defaults_resolve_per_device(llm: LLM) -> None:
    assert llm.config.device == torch.device("cpu") and llm.config.dtype == torch.float32
    assert llm.config.max_model_len == 64 and llm.engine_core.num_blocks >= 8 * 64 // 4


def test_outputs_in_input_order_with_text_and_metrics(llm: LLM) -> None:
    tok = llm.get_tokenizer()
    prompts = ["def main():", {"prompt_token_ids": [5, 6, 7]}, {"prompt": "import os"}, "x" * 40]
    params = [SamplingParams(temperature=0, max_tokens=n, ignore_eos=True) for n in (3, 9, 1, 5)]
    outs = llm.generate(prompts, params, use_tqdm=False)
    assert [len(o.outputs[0].token_ids) for o in outs] == [3, 9, 1, 5]
    assert outs[0].prompt == "def main():" and outs[0].prompt_token_ids == tok.encode("def main():")
    assert outs[1].prompt is None and outs[1].prompt_token_ids == [5, 6, 7]
    assert outs[2].prompt == "import os"
    for o in outs:
        c = o.outputs[0]
        assert o.finished and c.finish_reason == "length" and c.text == tok.decode(c.token_ids)
        m = o.metrics
        assert m.arrival_time <= m.first_scheduled_time <= m.first_token_time == m.token_times[0]
        assert len(m.token_times) == len(c.token_ids) and m.token_times == sorted(m.token_times)
        assert m.ttft > 0 and m.num_prompt_tokens == len(o.prompt_token_ids)
    assert outs[1].metrics.tpot > 0 and len(outs[1].metrics.itls) == 8
    assert outs[2].metrics.tpot is None


def test_one_prompt_and_default_params(llm: LLM) -> None:
    outs = llm.generate("hello", use_tqdm=False)  # vLLM defaults: temperature 1, max_tokens 16
    assert len(outs) == 1 and isinstance(outs[0], RequestOutput)
    assert 1 <= len(outs[0].outputs[0].token_ids) <= 16


def test_on_request_finished_hook_sees_every_request_once(llm: LLM) -> None:
    seen: list[RequestOutput] = []
    outs = llm.generate(
        [{"prompt_token_ids": [9] * n} for n in (2, 20, 7)],
        SamplingParams(temperature=0, max_tokens=4, ignore_eos=True),
        use_tqdm=False,
        on_request_finished=seen.append,
    )
    assert sorted(o.request_id for o in seen) == sorted(o.request_id for o in outs)
    assert all(o.finished for o in seen)


def test_stop_token_ids_and_eos(llm: LLM) -> None:
    prompt = {"prompt_token_ids": [11, 12, 13, 14]}
    free = (
        llm.generate(prompt, SamplingParams(temperature=0, max_tokens=8, ignore_eos=True), use_tqdm=False)[0]
        .outputs[0]
        .token_ids
    )
    stop = free[3]
    cut = free.index(stop)
    out = llm.generate(prompt, SamplingParams(temperature=0, max_tokens=8, stop_token_ids=[stop]), use_tqdm=False)[
        0
    ].outputs[0]
    assert out.token_ids == free[: cut + 1] and out.finish_reason == "stop" and out.stop_reason == stop
    core = llm.engine_core
    core.eos_token_ids = frozenset({stop})  # an EOS mid-way ends the request too, unless ignore_eos
    try:
        out = llm.generate(prompt, SamplingParams(temperature=0, max_tokens=8), use_tqdm=False)[0].outputs[0]
    finally:
        core.eos_token_ids = frozenset(core.model_config.eos_token_ids)
    assert out.token_ids == free[: cut + 1] and out.finish_reason == "stop" and out.stop_reason is None


def test_stop_strings_end_the_text_and_free_the_blocks(llm: LLM) -> None:
    prompts = [{"prompt_token_ids": [5 + i, 6, 7, 8]} for i in range(3)]
    free = llm.generate(prompts, SamplingParams(temperature=0, max_tokens=16, ignore_eos=True), use_tqdm=False)
    texts = [o.outputs[0].text for o in free]
    # a stop string from the middle of the first answer, that did not occur before it
    stop = next(
        texts[0][i : i + 3]
        for i in range(2, len(texts[0]) - 3)
        if texts[0][i : i + 3].strip() and texts[0][i : i + 3] not in texts[0][: i + 2]
    )
    outs = llm.generate(
        prompts, SamplingParams(temperature=0, max_tokens=16, ignore_eos=True, stop=stop), use_tqdm=False
    )
    for before, out in zip(texts, outs):
        comp = out.outputs[0]
        if stop in before:
            assert comp.text == before[: before.index(stop)]
            assert (comp.finish_reason, comp.stop_reason) == ("stop", stop) and len(comp.token_ids) < 16
        else:
            assert comp.text == before and comp.finish_reason == "length"
    assert outs[0].outputs[0].finish_reason == "stop" and outs[0].finished
    core = llm.engine_core
    core.step()  # the runner hears about the aborted requests and drops their slots
    assert not core.has_unfinished_requests() and core.scheduler.kv.num_free_blocks == core.num_blocks


def test_stop_strings_need_a_tokenizer(tiny_qwen3_dir: Path) -> None:
    llm = LLM(str(tiny_qwen3_dir / "config.json"), load_format="dummy", device="cpu", max_num_seqs=2, max_model_len=32)
    with pytest.raises(EngineError, match="no tokenizer, so stop strings cannot be matched; use SamplingParams"):
        llm.generate({"prompt_token_ids": [1, 2]}, SamplingParams(stop=["x"]), use_tqdm=False)
    with pytest.raises(EngineError, match="SamplingParams.stop must be a list of non-empty strings"):
        SamplingParams(stop=[""])


def test_chat_applies_the_template(llm: LLM) -> None:
    tok = llm.get_tokenizer()
    msgs = [{"role": "user", "content": "hi"}]
    out = llm.chat(msgs, SamplingParams(temperature=0, max_tokens=2), use_tqdm=False)[0]
    assert out.prompt_token_ids == tok.encode(tok.apply_chat_template(msgs), add_special_tokens=False)


@pytest.mark.parametrize(
    "prompts,params,message",
    [
        ([], None, "prompts is empty"),
        ([{"prompt_token_ids": []}], None, "prompt 0 is empty"),
        (
            ["ok", {"prompt_token_ids": [1, 5000]}],
            None,
            "prompt 1: token id 5000 at position 1 is outside the vocabulary [0, 1000)",
        ),
        ([{"prompt_token_ids": [-1]}], None, "token id -1"),
        ([{"prompt_token_ids": [1] * 65}], None, "longer than the context (max_model_len=64)"),
        ([{"prompt_token_ids": [1.5]}], None, "flat list of integers"),
        ([3], None, "prompt 0 must be a string"),
        (["a", "b"], [SamplingParams()], "got 1 SamplingParams for 2 prompts"),
    ],
)
def test_bad_input_is_one_clear_error(llm: LLM, prompts, params, message) -> None:
    with pytest.raises(EngineError) as e:
        llm.generate(prompts, params, use_tqdm=False)
    assert message in str(e.value)
    assert not llm.engine_core.has_unfinished_requests()  # nothing half-added


@pytest.mark.parametrize(
    "kw,message",
    [
        ({"max_tokens": 0}, "SamplingParams.max_tokens must be an integer >= 1"),
        ({"temperature": -0.5}, "SamplingParams.temperature must be a finite number >= 0"),
        ({"top_p": 0.0}, "SamplingParams.top_p must be in (0, 1], got 0.0"),
        ({"top_p": 1.5}, "SamplingParams.top_p must be in (0, 1], got 1.5"),
        ({"top_k": -2}, "SamplingParams.top_k must be an integer >= 1, or 0 / -1 to disable"),
        ({"n": 2}, "SamplingParams.n must be 1"),
        ({"stop_token_ids": [-3]}, "SamplingParams.stop_token_ids"),
    ],
)
def test_sampling_params_validation_names_field_and_range(kw, message) -> None:
    with pytest.raises(EngineError, match=None) as e:
        SamplingParams(**kw)
    assert message in str(e.value)


def test_an_interrupted_generate_returns_every_block(llm: LLM) -> None:
    def boom(_: RequestOutput) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        llm.generate(
            [{"prompt_token_ids": [7] * n} for n in (3, 30, 12)],
            [SamplingParams(temperature=0, max_tokens=n, ignore_eos=True) for n in (1, 20, 20)],
            use_tqdm=False,
            on_request_finished=boom,
        )
    core = llm.engine_core
    assert not core.has_unfinished_requests()
    core.step()  # the runner hears about the aborted requests and drops their slots
    assert core.scheduler.kv.num_free_blocks == core.num_blocks and not core.runner.state.req_to_slot


def test_model_errors_are_engine_errors(tmp_path: Path, tiny_qwen3_dir: Path) -> None:
    with pytest.raises(EngineError, match="does not exist"):
        LLM(str(tmp_path / "missing"), device="cpu")
    bad = tmp_path / "gpt2"
    shutil.copytree(tiny_qwen3_dir, bad)
    cfg = json.loads((bad / "config.json").read_text())
    cfg["architectures"] = ["GPT2LMHeadModel"]
    (bad / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(EngineError, match="unknown architecture GPT2LMHeadModel"):
        LLM(str(bad), device="cpu")
    with pytest.raises(EngineError, match="less than max_model_len"):
        LLM(str(tiny_qwen3_dir), device="cpu", max_model_len=64, block_size=4, num_blocks=8)


def test_dummy_weights_take_token_ids_only(tiny_qwen3_dir: Path) -> None:
    llm = LLM(str(tiny_qwen3_dir / "config.json"), load_format="dummy", device="cpu", max_num_seqs=2, max_model_len=32)
    out = llm.generate(
        {"prompt_token_ids": [1, 2, 3]}, SamplingParams(temperature=0, max_tokens=3, ignore_eos=True), use_tqdm=False
    )[0]
    assert len(out.outputs[0].token_ids) == 3 and out.outputs[0].text == ""
    with pytest.raises(EngineError, match="has no tokenizer"):
        llm.generate("text", use_tqdm=False)
