"""Penalties, min_tokens, logprobs and prompt logprobs on the tiny Qwen3, each checked against a full forward of the
whole sequence (the PagedRunner fixture) with the rule written out here; rows that ask for nothing sample as before."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from engine import LLM, SamplingParams
from engine.errors import EngineError

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROMPT = [11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21]


@pytest.fixture(scope="module")
def llm(tiny_qwen3_dir: Path) -> LLM:
    # 4 tokens per step at most: an 11-token prompt is prefilled in three chunks.
    return LLM(
        str(tiny_qwen3_dir), device="cpu", max_num_seqs=4, max_model_len=64, block_size=4, max_num_batched_tokens=4
    )


def full_logits(llm: LLM, paged_runner, ids: list[int]) -> torch.Tensor:
    """[len(ids), vocab] logits of every position, one prefill of the whole sequence."""
    with torch.inference_mode():
        return paged_runner(llm.engine_core.loaded.model).step([(0, ids)]).float()


def penalized(
    logits: torch.Tensor, prompt: list[int], out: list[int], rep: float, freq: float, pres: float
) -> torch.Tensor:
    x = logits.clone()
    for tok in set(prompt) | set(out):
        x[tok] = x[tok] / rep if x[tok] > 0 else x[tok] * rep
    for tok in set(out):
        x[tok] -= freq * out.count(tok) + pres
    return x


def test_greedy_penalties_follow_the_rule_token_by_token(llm: LLM, paged_runner) -> None:
    sp = SamplingParams(
        temperature=0,
        max_tokens=12,
        ignore_eos=True,
        repetition_penalty=1.8,
        frequency_penalty=0.9,
        presence_penalty=0.5,
    )
    plain = SamplingParams(temperature=0, max_tokens=12, ignore_eos=True)
    outs = llm.generate([{"prompt_token_ids": PROMPT}, {"prompt_token_ids": PROMPT}], [sp, plain], use_tqdm=False)
    got, base = outs[0].outputs[0].token_ids, outs[1].outputs[0].token_ids
    expected: list[int] = []
    for _ in range(12):
        logits = full_logits(llm, paged_runner, PROMPT + expected)[-1]
        expected.append(int(penalized(logits, PROMPT, expected, 1.8, 0.9, 0.5).argmax()))
    assert got == expected
    # The plain row of the same batch sampled exactly what it samples alone, and the penalties changed something.
    alone = llm.generate({"prompt_token_ids": PROMPT}, plain, use_tqdm=False)[0].outputs[0].token_ids
    assert base == alone and got != base


def test_penalties_survive_preemption(tiny_qwen3_dir: Path) -> None:
    """Counts are rebuilt from the tokens a preempted request brings back: same tokens as without preemption."""
    sp = SamplingParams(temperature=0, max_tokens=20, ignore_eos=True, frequency_penalty=1.5)
    prompts = [{"prompt_token_ids": [30 + i, 31 + i, 32 + i, 33 + i]} for i in range(3)]
    roomy = LLM(str(tiny_qwen3_dir), device="cpu", max_num_seqs=3, max_model_len=32, block_size=4)
    tight = LLM(str(tiny_qwen3_dir), device="cpu", max_num_seqs=3, max_model_len=32, block_size=4, num_blocks=12)
    want = [o.outputs[0].token_ids for o in roomy.generate(prompts, sp, use_tqdm=False)]
    got = [o.outputs[0].token_ids for o in tight.generate(prompts, sp, use_tqdm=False)]
    assert tight.engine_core.scheduler.num_preemptions > 0
    assert got == want


def test_min_tokens_masks_eos_and_stop_ids_until_reached(llm: LLM) -> None:
    first = (
        llm.generate({"prompt_token_ids": PROMPT}, SamplingParams(temperature=0, max_tokens=1), use_tqdm=False)[0]
        .outputs[0]
        .token_ids[0]
    )
    stopped = llm.generate(
        {"prompt_token_ids": PROMPT},
        SamplingParams(temperature=0, max_tokens=8, stop_token_ids=[first]),
        use_tqdm=False,
    )[0]
    assert stopped.outputs[0].token_ids == [first] and stopped.outputs[0].finish_reason == "stop"
    held = llm.generate(
        {"prompt_token_ids": PROMPT},
        SamplingParams(temperature=0, max_tokens=8, min_tokens=5, stop_token_ids=[first]),
        use_tqdm=False,
    )[0].outputs[0]
    assert len(held.token_ids) >= 5 and first not in held.token_ids[:5]
    eos = sorted(llm.engine_core.eos_token_ids)
    sampled = llm.generate(
        {"prompt_token_ids": PROMPT},
        SamplingParams(temperature=1.0, seed=3, max_tokens=6, min_tokens=6),
        use_tqdm=False,
    )[0].outputs[0]
    assert len(sampled.token_ids) == 6 and not set(eos) & set(sampled.token_ids)


def test_logprobs_and_prompt_logprobs_equal_a_full_forward(llm: LLM, paged_runner) -> None:
    sp = SamplingParams(temperature=0, max_tokens=5, ignore_eos=True, logprobs=3, prompt_logprobs=2)
    for _ in range(2):  # the second run would hit the prefix cache: prompt logprobs must still be complete
        out = llm.generate({"prompt_token_ids": PROMPT}, sp, use_tqdm=False)[0]
        comp = out.outputs[0]
        lp = torch.log_softmax(full_logits(llm, paged_runner, PROMPT + comp.token_ids), dim=-1)
        assert out.prompt_logprobs is not None and out.prompt_logprobs[0] is None
        assert len(out.prompt_logprobs) == len(PROMPT)
        for p, entry in enumerate(out.prompt_logprobs[1:], start=1):
            row = lp[p - 1]
            assert entry.token_ids[0] == PROMPT[p] and len(entry.token_ids) == 3
            assert entry.logprobs[0] == pytest.approx(float(row[PROMPT[p]]), abs=1e-4)
            assert entry.rank == int((row > row[PROMPT[p]]).sum()) + 1
            assert entry.token_ids[1:] == row.topk(2).indices.tolist()
        assert comp.logprobs is not None and len(comp.logprobs) == 5
        for i, (tok, entry) in enumerate(zip(comp.token_ids, comp.logprobs)):
            row = lp[len(PROMPT) - 1 + i]
            assert entry.token_ids[0] == tok and entry.rank == 1  # greedy: the top token
            assert entry.logprobs == pytest.approx([float(row[tok])] + row.topk(3).values.tolist(), abs=1e-4)
            assert entry.token_ids[1] == tok
        assert comp.cumulative_logprob == pytest.approx(sum(e.logprobs[0] for e in comp.logprobs))
        assert math.isfinite(comp.cumulative_logprob)


def test_logprobs_zero_gives_the_sampled_token_alone(llm: LLM) -> None:
    out = llm.generate(
        {"prompt_token_ids": PROMPT}, SamplingParams(temperature=0.8, seed=1, max_tokens=4, logprobs=0), use_tqdm=False
    )[0].outputs[0]
    assert out.logprobs is not None
    assert [e.token_ids for e in out.logprobs] == [[t] for t in out.token_ids]
    assert all(e.logprobs[0] <= 0 and e.rank >= 1 for e in out.logprobs)


def test_requests_that_ask_nothing_never_touch_the_processors(tiny_qwen3_dir: Path) -> None:
    fresh = LLM(str(tiny_qwen3_dir), device="cpu", max_num_seqs=2, max_model_len=32, block_size=4)
    fresh.generate({"prompt_token_ids": PROMPT}, SamplingParams(temperature=0, max_tokens=3), use_tqdm=False)
    procs = fresh.engine_core.runner.logits_processors
    assert procs.counts is None and not procs.tracked


@pytest.mark.parametrize(
    "field,value,words",
    [
        ("top_k", 2**63, "top_k"),
        ("top_k", 1001, "vocabulary size 1000"),
        ("seed", 2**64, "64-bit"),
        ("temperature", 10**400, "finite"),
        ("presence_penalty", 2.5, "[-2.0, 2.0]"),
        ("repetition_penalty", 0, "(0, 100.0]"),
        ("min_tokens", 20, "<= max_tokens"),
        ("logprobs", 21, "[0, 20]"),
        ("stop_token_ids", [5000], "outside the vocabulary"),
    ],
)
def test_out_of_range_values_are_refused_before_the_engine(llm: LLM, field: str, value, words: str) -> None:
    with pytest.raises(EngineError) as info:
        llm.generate({"prompt_token_ids": PROMPT}, SamplingParams(**{"max_tokens": 8, field: value}), use_tqdm=False)
    assert words in str(info.value) and field in str(info.value)
    assert not llm.engine_core.has_unfinished_requests()


ASKING = [
    SamplingParams(
        temperature=0.9,
        seed=7,
        max_tokens=9,
        ignore_eos=True,
        repetition_penalty=1.3,
        frequency_penalty=0.4,
        logprobs=2,
        prompt_logprobs=1,
        min_tokens=4,
    ),
    SamplingParams(temperature=0, max_tokens=7, ignore_eos=True, presence_penalty=0.8, logprobs=0),
    SamplingParams(temperature=0.7, seed=3, max_tokens=8, ignore_eos=True),
]  # asks nothing


def _run(tiny_qwen3_dir: Path, async_scheduling: bool) -> list:
    llm = LLM(
        str(tiny_qwen3_dir),
        device="cpu",
        max_num_seqs=4,
        max_model_len=64,
        block_size=4,
        max_num_batched_tokens=8,
        async_scheduling=async_scheduling,
    )
    prompts = [{"prompt_token_ids": PROMPT[i:]} for i in range(3)]
    return llm.generate(prompts, ASKING, use_tqdm=False)


def test_async_scheduling_gives_the_synchronous_tokens_and_logprobs(tiny_qwen3_dir: Path) -> None:
    sync, late = _run(tiny_qwen3_dir, False), _run(tiny_qwen3_dir, True)
    for a, b in zip(sync, late):
        assert a.outputs[0].token_ids == b.outputs[0].token_ids
        assert a.outputs[0].logprobs == b.outputs[0].logprobs and a.prompt_logprobs == b.prompt_logprobs
    assert sync[0].prompt_logprobs is not None and len(sync[0].outputs[0].logprobs) == 9


class _HostReads(torch.overrides.TorchFunctionMode):
    """Counts the calls that read a tensor's values on the host (on CUDA each one waits for the device)."""

    READS = {torch.Tensor.tolist, torch.Tensor.item, torch.Tensor.cpu, torch.Tensor.numpy, torch.Tensor.__bool__}

    def __init__(self) -> None:
        super().__init__()
        self.reads: list[str] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func in self.READS:
            self.reads.append(func.__name__)
        return func(*args, **(kwargs or {}))


def test_a_step_with_penalties_and_logprobs_reads_nothing_back_until_its_output_is_asked(tiny_qwen3_dir: Path) -> None:
    """Sampled ids stay on the device (the next step's inputs) and logprobs ride with the step's output handle:
    launching a step that asks for everything reads no device value on the host; reading its output does."""
    llm = LLM(
        str(tiny_qwen3_dir),
        device="cpu",
        max_num_seqs=4,
        max_model_len=64,
        block_size=4,
        max_num_batched_tokens=64,
        async_scheduling=True,
    )
    core = llm.engine_core
    for i, sp in enumerate(ASKING):
        core.add_request(str(i), PROMPT[i:], sp)
    handles, reads = [], []
    original = core.runner.execute_model

    def watched(sched):
        with _HostReads() as mode:
            handle = original(sched)
        reads.append(mode.reads)
        handles.append(handle)
        return handle

    core.runner.execute_model = watched
    for _ in range(4):  # the prefill (with prompt logprobs), then decodes with penalties and logprobs
        core.step()
    assert len(reads) == 4 and all(r == [] for r in reads), reads
    with _HostReads() as mode:
        out = handles[-1].get_output()
    assert mode.reads and out.logprobs is not None and out.logprobs[2] is None
    assert [e.token_ids[0] for e in out.logprobs[:2]] == out.sampled_token_ids[:2]
    slots = [core.runner.state.req_to_slot[r] for r in out.req_ids]
    assert core.runner.state.last_sampled[slots].tolist() == out.sampled_token_ids  # the device kept them
