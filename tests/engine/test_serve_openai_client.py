"""engine serve driven by the official `openai` package, as people call it: completions, chat, streaming, n,
logprobs, typed errors, and lm-eval's loglikelihood request. Answers are checked against LLM.generate on the same
core, so the client sees exactly what the engine computed."""

from __future__ import annotations

from pathlib import Path

import pytest
from serve_harness import MODEL, engine_idle, serve

from engine import LLM, SamplingParams
from engine.engine_core import EngineCore

openai = pytest.importorskip("openai")
pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROMPT = [11, 12, 13, 14, 15, 16]


@pytest.fixture(scope="module")
def core(tiny_qwen3_dir: Path) -> EngineCore:
    return LLM(
        str(tiny_qwen3_dir), device="cpu", max_num_seqs=8, max_model_len=64, block_size=4, max_num_batched_tokens=64
    ).engine_core


def with_client(core: EngineCore, body, **options):
    """body(openai.AsyncOpenAI) -> result, against an in-process server."""

    async def go(client, engine):
        api = openai.AsyncOpenAI(
            base_url=str(client.make_url("/v1")), api_key=options.get("api_key") or "none", max_retries=0, timeout=30
        )
        async with api:
            return await body(api)

    return serve(core, go, **options)


def offline(core: EngineCore, prompt, **params):
    p = prompt if isinstance(prompt, str) else {"prompt_token_ids": prompt}
    return LLM.from_engine_core(core).generate(p, SamplingParams(**params), use_tqdm=False)[0]


def test_completion_and_its_stream_are_what_the_engine_generates(core: EngineCore) -> None:
    ref = offline(core, PROMPT, max_tokens=8, temperature=0, ignore_eos=True).outputs[0]

    async def body(api):
        plain = await api.completions.create(
            model=MODEL, prompt=PROMPT, max_tokens=8, temperature=0, extra_body={"ignore_eos": True}
        )
        stream = await api.completions.create(
            model=MODEL,
            prompt=PROMPT,
            max_tokens=8,
            temperature=0,
            stream=True,
            stream_options={"include_usage": True},
            extra_body={"ignore_eos": True},
        )
        chunks = [c async for c in stream]
        return plain, chunks

    plain, chunks = with_client(core, body)
    assert plain.choices[0].text == ref.text and plain.choices[0].finish_reason == "length"
    assert plain.usage.prompt_tokens == len(PROMPT) and plain.usage.completion_tokens == 8
    assert "".join(c.choices[0].text for c in chunks if c.choices) == ref.text
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens == 8
    assert engine_idle(core)


def test_chat_streams_deltas_that_add_up_to_the_answer(core: EngineCore) -> None:
    messages = [{"role": "user", "content": "Say something."}]

    async def body(api):
        plain = await api.chat.completions.create(model=MODEL, messages=messages, max_tokens=6, temperature=0)
        stream = await api.chat.completions.create(
            model=MODEL, messages=messages, max_tokens=6, temperature=0, stream=True
        )
        return plain, [c async for c in stream]

    plain, chunks = with_client(core, body)
    rendered = core.tokenizer.apply_chat_template(messages, add_generation_prompt=True)
    ref = offline(core, rendered, max_tokens=6, temperature=0).outputs[0]
    assert plain.choices[0].message.role == "assistant" and plain.choices[0].message.content == ref.text
    assert chunks[0].choices[0].delta.role == "assistant"
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == ref.text


def test_n_choices_and_logprobs_as_the_client_types_them(core: EngineCore) -> None:
    async def body(api):
        many = await api.completions.create(
            model=MODEL, prompt=PROMPT, max_tokens=5, temperature=1.0, seed=11, n=3, extra_body={"ignore_eos": True}
        )
        scored = await api.completions.create(
            model=MODEL, prompt=PROMPT, max_tokens=4, temperature=0, logprobs=2, extra_body={"ignore_eos": True}
        )
        chat = await api.chat.completions.create(
            model=MODEL,
            messages=[{"role": "user", "content": "hi"}],
            max_tokens=3,
            temperature=0,
            logprobs=True,
            top_logprobs=2,
            extra_body={"ignore_eos": True},
        )
        return many, scored, chat

    many, scored, chat = with_client(core, body)
    assert [c.index for c in many.choices] == [0, 1, 2]
    for j, c in enumerate(many.choices):  # choice j samples with seed + j (vLLM's rule)
        assert (
            c.text == offline(core, PROMPT, max_tokens=5, temperature=1.0, seed=11 + j, ignore_eos=True).outputs[0].text
        )
    ref = offline(core, PROMPT, max_tokens=4, temperature=0, ignore_eos=True, logprobs=2).outputs[0]
    lp = scored.choices[0].logprobs
    assert lp.token_logprobs == pytest.approx([e.logprobs[0] for e in ref.logprobs], abs=1e-5)
    assert all(len(top) == 2 for top in lp.top_logprobs) and len(lp.tokens) == len(lp.text_offset) == 4
    content = chat.choices[0].logprobs.content
    assert len(content) == 3 and all(len(item.top_logprobs) == 2 for item in content)


def test_errors_arrive_as_the_clients_typed_exceptions(core: EngineCore) -> None:
    async def body(api):
        caught = {}
        for name, call in (
            ("top_k", api.completions.create(model=MODEL, prompt="a", extra_body={"top_k": 2**63})),
            ("model", api.completions.create(model="no-such-model", prompt="a")),
            ("messages", api.chat.completions.create(model=MODEL, messages=[])),
            ("context", api.completions.create(model=MODEL, prompt=PROMPT, max_tokens=1000)),
        ):
            try:
                await call
            except openai.APIStatusError as e:
                caught[name] = e
        return caught

    caught = with_client(core, body)
    assert isinstance(caught["top_k"], openai.BadRequestError) and "top_k" in caught["top_k"].message
    assert isinstance(caught["model"], openai.NotFoundError) and "no-such-model" in caught["model"].message
    assert isinstance(caught["messages"], openai.BadRequestError)
    assert isinstance(caught["context"], openai.BadRequestError) and "max_tokens" in caught["context"].message

    async def wrong_key(api):
        wrong = api.with_options(api_key="wrong")
        try:
            await wrong.completions.create(model=MODEL, prompt="a", max_tokens=1)
        except openai.AuthenticationError as e:
            return e.status_code
        return None

    assert with_client(core, wrong_key, api_key="s3cret") == 401


def test_loglikelihood_the_way_lm_eval_asks(core: EngineCore) -> None:
    """lm-eval's local-completions loglikelihood: token-id prompts (context + continuation), echo=True,
    max_tokens=0, logprobs=1, temperature 0; it sums token_logprobs over the continuation and checks greediness
    against top_logprobs."""
    context, continuation = PROMPT[:4], PROMPT[4:]
    ref = offline(core, PROMPT, max_tokens=1, temperature=0, prompt_logprobs=1)

    async def body(api):
        return await api.completions.create(
            model=MODEL, prompt=[context + continuation], echo=True, max_tokens=0, logprobs=1, temperature=0
        )

    ans = with_client(core, body)
    lp = ans.choices[0].logprobs
    assert len(lp.token_logprobs) == len(PROMPT) and lp.token_logprobs[0] is None
    got = sum(lp.token_logprobs[len(context) :])
    want = sum(e.logprobs[0] for e in ref.prompt_logprobs[len(context) :])
    assert got == pytest.approx(want, abs=1e-4)
    is_greedy = all(
        tok == max(top, key=top.get) for tok, top in zip(lp.tokens[len(context) :], lp.top_logprobs[len(context) :])
    )
    assert is_greedy == all(e.rank == 1 for e in ref.prompt_logprobs[len(context) :])
    assert ans.usage.completion_tokens == 0 and ans.choices[0].finish_reason == "length"
