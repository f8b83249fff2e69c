"""The whole engine (scheduler -> runner -> model -> sampler) against transformers, token for token.

One batch of 9 prompts (1..50 tokens, three sharing a 24-token prefix) under settings that change how the
work is cut up: whole prompts in one step, chunked prefill (16-token budget) with prefix caching, and a
KV pool so small that requests are preempted and recomputed. Greedy tokens must equal transformers'
`generate(do_sample=False)`, and the logits of every sampled position must match transformers' forward, with async
scheduling (two steps in flight, tokens one step late) and without it: so the two are token-identical too.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from engine.args import EngineArgs
from engine.engine_core import EngineCore
from engine.llm import LLM
from engine.model import load_model
from engine.sampling_params import SamplingParams

LENGTHS = [1, 3, 7, 12, 17, 25, 33, 40, 50]
MAX_NEW = [6, 16, 9, 12, 16, 7, 14, 11, 16]
ATOL = 1e-4

SETTINGS = {
    "whole-prompts": dict(max_num_batched_tokens=512, enable_chunked_prefill=False, enable_prefix_caching=False),
    "chunked+prefix-cache": dict(max_num_batched_tokens=16, enable_prefix_caching=True),
    "preemption": dict(max_num_batched_tokens=64, num_blocks=20, enable_prefix_caching=False),
    "preemption+prefix-cache": dict(max_num_batched_tokens=32, num_blocks=24, enable_prefix_caching=True),
}


def make_prompts() -> list[list[int]]:
    gen = torch.Generator().manual_seed(7)
    prompts = [torch.randint(3, 1000, (n,), generator=gen).tolist() for n in LENGTHS]
    for i in (5, 6, 7):  # a shared system-prompt-like prefix
        prompts[i][:24] = prompts[8][:24]
    return prompts


class Reference:
    def __init__(self, path: Path) -> None:
        from transformers import AutoModelForCausalLM

        self.hf = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
        self.hf.generation_config.eos_token_id = None  # the engine runs with ignore_eos
        self.loaded = load_model(str(path), dtype="float32")
        self.prompts = make_prompts()
        self.tokens = [self._generate(p, n) for p, n in zip(self.prompts, MAX_NEW)]
        self.logits = [self._logits(p + t[:-1])[len(p) - 1 :] for p, t in zip(self.prompts, self.tokens)]

    @torch.no_grad()
    def _generate(self, prompt: list[int], n: int) -> list[int]:
        out = self.hf.generate(
            torch.tensor([prompt]),
            attention_mask=torch.ones(1, len(prompt), dtype=torch.long),
            max_new_tokens=n,
            min_new_tokens=n,
            do_sample=False,
            pad_token_id=0,
        )
        return out[0, len(prompt) :].tolist()

    @torch.no_grad()
    def _logits(self, tokens: list[int]) -> torch.Tensor:
        return self.hf(torch.tensor([tokens])).logits[0].float()


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module", params=["tiny_qwen3_dir", "tiny_llama_dir"])
def ref(request: pytest.FixtureRequest) -> Reference:
    return Reference(request.getfixturevalue(request.param))


def build(ref: Reference, keep_logits: bool = False, **settings) -> EngineCore:
    cfg = EngineArgs(
        model="tiny", device="cpu", dtype="float32", block_size=4, max_model_len=80, max_num_seqs=16, **settings
    )
    return EngineCore.from_args(cfg, loaded=ref.loaded, keep_logits=keep_logits)


def greedy(n: int) -> SamplingParams:
    return SamplingParams(temperature=0.0, max_tokens=n, ignore_eos=True)


@pytest.mark.parametrize("async_scheduling", [True, False], ids=["async", "sync"])
@pytest.mark.parametrize("name", list(SETTINGS))
def test_greedy_tokens_equal_transformers(ref: Reference, name: str, async_scheduling: bool) -> None:
    core = build(ref, async_scheduling=async_scheduling, **SETTINGS[name])
    llm = LLM.from_engine_core(core)
    outs = llm.generate([{"prompt_token_ids": p} for p in ref.prompts], [greedy(n) for n in MAX_NEW], use_tqdm=False)
    assert [o.outputs[0].token_ids for o in outs] == ref.tokens
    assert [o.prompt_token_ids for o in outs] == ref.prompts
    assert all(o.outputs[0].finish_reason == "length" for o in outs)
    sched = core.scheduler
    if "preemption" in name:
        assert sched.num_preemptions > 0
    if SETTINGS[name].get("enable_prefix_caching"):
        assert sched.kv.prefix_hits > 0 and sum(o.num_cached_tokens for o in outs) > 0
    assert sched.kv.num_free_blocks == core.num_blocks and not sched.kv.req_blocks


@pytest.mark.parametrize("async_scheduling", [True, False], ids=["async", "sync"])
@pytest.mark.parametrize("name", ["chunked+prefix-cache", "preemption"])
def test_logits_of_every_sampled_position_match(ref: Reference, name: str, async_scheduling: bool) -> None:
    core = build(ref, keep_logits=True, async_scheduling=async_scheduling, **SETTINGS[name])
    reqs = [core.add_request(str(i), p, greedy(n)) for i, (p, n) in enumerate(zip(ref.prompts, MAX_NEW))]
    seen: dict[str, list[torch.Tensor]] = {r.request_id: [] for r in reqs}
    while core.has_unfinished_requests():
        _, out = core.step()
        for row, rid in enumerate(out.req_ids):
            seen[rid].append(out.logits[row])
    for i, r in enumerate(reqs):
        # A preempted request recomputes, but samples each position once: the rows line up with positions.
        got = torch.stack(seen[r.request_id])
        torch.testing.assert_close(got, ref.logits[i], atol=ATOL, rtol=0)


@pytest.mark.parametrize("async_scheduling", [True, False], ids=["async", "sync"])
def test_same_seed_same_tokens_regardless_of_batch(ref: Reference, async_scheduling: bool) -> None:
    llm = LLM.from_engine_core(build(ref, max_num_batched_tokens=16, async_scheduling=async_scheduling))
    sp = SamplingParams(temperature=0.9, top_k=50, top_p=0.9, seed=1234, max_tokens=12, ignore_eos=True)
    alone = llm.generate({"prompt_token_ids": ref.prompts[4]}, sp, use_tqdm=False)[0].outputs[0].token_ids
    batch = llm.generate(
        [{"prompt_token_ids": p} for p in ref.prompts],
        [sp if i == 4 else SamplingParams(temperature=1.0, max_tokens=8) for i in range(9)],
        use_tqdm=False,
    )
    assert batch[4].outputs[0].token_ids == alone
    other_seed = SamplingParams(temperature=0.9, top_k=50, top_p=0.9, seed=99, max_tokens=12, ignore_eos=True)
    assert (
        llm.generate({"prompt_token_ids": ref.prompts[4]}, other_seed, use_tqdm=False)[0].outputs[0].token_ids != alone
    )


@pytest.mark.slow
def test_embedded_smollm2_gguf_matches_transformers_on_the_same_file(smollm2_gguf_path: Path) -> None:
    from transformers import AutoModelForCausalLM

    llm = LLM(str(smollm2_gguf_path), device="cpu", dtype="float32", max_num_seqs=4, max_model_len=256)
    tok = llm.get_tokenizer()
    questions = ["What is the capital of France?", "Name three colors.", "What is 2 + 2? Answer with a number."]
    prompts = [
        tok.encode(tok.apply_chat_template([{"role": "user", "content": q}]), add_special_tokens=False)
        for q in questions
    ]
    outs = llm.generate([{"prompt_token_ids": p} for p in prompts], greedy(16), use_tqdm=False)
    hf = AutoModelForCausalLM.from_pretrained(
        smollm2_gguf_path.parent, gguf_file=smollm2_gguf_path.name, dtype=torch.float32
    ).eval()
    for prompt, out in zip(prompts, outs):
        with torch.no_grad():
            ref = hf.generate(
                torch.tensor([prompt]),
                attention_mask=torch.ones(1, len(prompt), dtype=torch.long),
                max_new_tokens=16,
                min_new_tokens=16,
                do_sample=False,
                eos_token_id=None,
                pad_token_id=0,
            )
        assert out.outputs[0].token_ids == ref[0, len(prompt) :].tolist()
    assert "Paris" in tok.decode(outs[0].outputs[0].token_ids)
