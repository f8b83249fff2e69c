"""engine serve's OpenAI features on the tiny Qwen3, each answer checked against LLM.generate on the same core: n and
best_of, batched prompts, logprobs (completions and chat), echo with prompt logprobs, penalties, min_tokens, and the
side endpoints (/tokenize, /detokenize, /v1/models/{id}, /version, /metrics)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from engine import LLM, SamplingParams
from engine.engine_core import EngineCore
from serve_harness import MODEL, engine_idle, serve, slow_steps, sse_events

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROMPT = [11, 12, 13, 14, 15, 16]


@pytest.fixture(scope="module")
def core(tiny_qwen3_dir: Path) -> EngineCore:
    return LLM(
        str(tiny_qwen3_dir), device="cpu", max_num_seqs=8, max_model_len=64, block_size=4, max_num_batched_tokens=64
    ).engine_core


def offline(core: EngineCore, prompt, **params):
    p = prompt if isinstance(prompt, str) else {"prompt_token_ids": prompt}
    return LLM.from_engine_core(core).generate(p, SamplingParams(**params), use_tqdm=False)[0]


def post(core: EngineCore, path: str, body: dict, **options):
    async def go(client, engine):
        resp = await client.post(path, json={"model": MODEL, **body})
        return resp.status, await resp.json()

    return serve(core, go, **options)


def test_n_choices_sample_with_seed_plus_index(core: EngineCore) -> None:
    status, ans = post(
        core,
        "/v1/completions",
        {"prompt": PROMPT, "n": 3, "seed": 7, "max_tokens": 6, "temperature": 1.0, "ignore_eos": True},
    )
    assert status == 200 and [c["index"] for c in ans["choices"]] == [0, 1, 2]
    want = [
        offline(core, PROMPT, seed=7 + j, max_tokens=6, temperature=1.0, ignore_eos=True).outputs[0].text
        for j in range(3)
    ]
    assert [c["text"] for c in ans["choices"]] == want and len(set(want)) > 1
    assert ans["usage"] == {"prompt_tokens": 6, "completion_tokens": 18, "total_tokens": 24}


def test_best_of_keeps_the_highest_cumulative_logprob(core: EngineCore) -> None:
    status, ans = post(
        core,
        "/v1/completions",
        {"prompt": PROMPT, "n": 1, "best_of": 4, "seed": 3, "max_tokens": 5, "ignore_eos": True},
    )
    runs = [offline(core, PROMPT, seed=3 + j, max_tokens=5, ignore_eos=True, logprobs=0).outputs[0] for j in range(4)]
    best = max(runs, key=lambda c: c.cumulative_logprob)
    assert status == 200 and len(ans["choices"]) == 1
    assert ans["choices"][0]["text"] == best.text and ans["choices"][0]["logprobs"] is None
    assert ans["usage"]["completion_tokens"] == 20  # every run generated, as OpenAI bills best_of


def test_a_batch_of_prompts_answers_each_at_its_index(core: EngineCore) -> None:
    prompts = ["def main():", [5, 6, 7], "import os"]
    status, ans = post(
        core, "/v1/completions", {"prompt": prompts, "n": 2, "max_tokens": 4, "temperature": 0, "ignore_eos": True}
    )
    want = [offline(core, p, max_tokens=4, temperature=0, ignore_eos=True) for p in prompts]
    assert status == 200 and [c["index"] for c in ans["choices"]] == list(range(6))
    assert [c["text"] for c in ans["choices"]] == [w.outputs[0].text for w in want for _ in range(2)]
    assert ans["usage"]["prompt_tokens"] == sum(len(w.prompt_token_ids) for w in want)


def test_completion_logprobs_match_the_engine(core: EngineCore) -> None:
    status, ans = post(
        core,
        "/v1/completions",
        {"prompt": PROMPT, "max_tokens": 4, "temperature": 0, "logprobs": 2, "ignore_eos": True},
    )
    ref = offline(core, PROMPT, max_tokens=4, temperature=0, logprobs=2, ignore_eos=True).outputs[0]
    lp = ans["choices"][0]["logprobs"]
    tok = core.tokenizer
    shown = [tok.decode([t], skip_special_tokens=False) for t in ref.token_ids]
    # part of a UTF-8 character: the vocabulary entry, so distinct tokens never share a top_logprobs key
    shown = [s if "\ufffd" not in s else tok.backend.id_to_token(t) for s, t in zip(shown, ref.token_ids)]
    assert status == 200 and lp["tokens"] == shown
    assert lp["token_logprobs"] == pytest.approx([e.logprobs[0] for e in ref.logprobs], abs=1e-5)
    assert all(
        len(top) <= 3 and max(top.values()) == pytest.approx(chosen, abs=1e-5)  # greedy: chosen is top
        for top, chosen in zip(lp["top_logprobs"], lp["token_logprobs"])
    )
    assert lp["text_offset"] == [sum(len(t) for t in lp["tokens"][:i]) for i in range(4)]


def test_echo_with_max_tokens_0_scores_the_prompt_as_lm_eval_asks(core: EngineCore) -> None:
    """lm-eval's loglikelihood request: echo, logprobs 1, max_tokens 0 (or 1), temperature 0, token-id prompts."""
    ref = offline(core, PROMPT, max_tokens=1, temperature=0, prompt_logprobs=1)
    for max_tokens in (0, 1):
        status, ans = post(
            core,
            "/v1/completions",
            {"prompt": [PROMPT], "echo": True, "logprobs": 1, "max_tokens": max_tokens, "temperature": 0},
        )
        assert status == 200
        choice = ans["choices"][0]
        lp = choice["logprobs"]
        assert choice["text"].startswith(core.tokenizer.decode(PROMPT, skip_special_tokens=False))
        assert lp["token_logprobs"][0] is None and lp["top_logprobs"][0] is None
        assert lp["token_logprobs"][1 : len(PROMPT)] == pytest.approx(
            [e.logprobs[0] for e in ref.prompt_logprobs[1:]], abs=1e-5
        )
        assert len(lp["tokens"]) == len(PROMPT) + max_tokens
        assert ans["usage"]["completion_tokens"] == max_tokens
    assert engine_idle(core)


def test_chat_logprobs_have_openai_shape(core: EngineCore) -> None:
    status, ans = post(
        core,
        "/v1/chat/completions",
        {
            "messages": [{"role": "user", "content": "hi"}],
            "max_tokens": 3,
            "temperature": 0,
            "logprobs": True,
            "top_logprobs": 2,
            "ignore_eos": True,
        },
    )
    content = ans["choices"][0]["logprobs"]["content"]
    assert status == 200 and len(content) == 3
    for item in content:
        assert set(item) == {"token", "logprob", "bytes", "top_logprobs"} and len(item["top_logprobs"]) == 2
        assert all(0 <= b < 256 for b in item["bytes"]) and item["logprob"] <= 0
        text = bytes(item["bytes"]).decode("utf-8", "replace")
        assert text == item["token"] or "\ufffd" in text  # a part of a character shows its vocabulary entry
        assert item["top_logprobs"][0]["logprob"] == pytest.approx(item["logprob"], abs=1e-5)  # greedy


def test_streamed_choices_interleave_by_index_and_add_up(core: EngineCore) -> None:
    body = {"model": MODEL, "prompt": ["def main():", [5, 6, 7]], "max_tokens": 5, "temperature": 0, "ignore_eos": True}

    async def go(client, engine):
        plain = await (await client.post("/v1/completions", json=body)).json()
        events = await sse_events(
            await client.post(
                "/v1/completions", json={**body, "stream": True, "stream_options": {"include_usage": True}}
            )
        )
        return plain, events

    with slow_steps(core, 0.005):
        plain, events = serve(core, go)
    chunks = events[:-2]
    texts = {0: "", 1: ""}
    for c in chunks:
        texts[c["choices"][0]["index"]] += c["choices"][0]["text"]
    assert texts == {c["index"]: c["text"] for c in plain["choices"]}
    assert events[-2]["usage"] == plain["usage"] and events[-1] == "[DONE]"


def test_penalties_and_min_tokens_reach_the_engine(core: EngineCore) -> None:
    params = {
        "max_tokens": 8,
        "temperature": 0,
        "presence_penalty": 1.5,
        "frequency_penalty": 0.5,
        "repetition_penalty": 1.3,
        "min_tokens": 8,
    }
    status, ans = post(core, "/v1/completions", {"prompt": PROMPT, **params})
    ref = offline(core, PROMPT, **params).outputs[0]
    assert status == 200 and ans["choices"][0]["text"] == ref.text and ans["usage"]["completion_tokens"] == 8


def test_tokenize_detokenize_models_version(core: EngineCore) -> None:
    tok = core.tokenizer

    async def go(client, engine):
        t = await (await client.post("/tokenize", json={"prompt": "import os"})).json()
        chat = await (await client.post("/tokenize", json={"messages": [{"role": "user", "content": "hi"}]})).json()
        d = await (await client.post("/detokenize", json={"tokens": t["tokens"]})).json()
        bad = await client.post("/detokenize", json={"tokens": [1, 5000]})
        card = await client.get(f"/v1/models/{MODEL}")
        other = await client.get("/v1/models/gpt-4")
        version = await (await client.get("/version")).json()
        return t, chat, d, bad.status, await bad.json(), await card.json(), other.status, version

    t, chat, d, bad, bad_err, card, other, version = serve(core, go)
    assert t["tokens"] == tok.encode("import os") and t["count"] == len(t["tokens"]) and t["max_model_len"] == 64
    assert chat["tokens"] == tok.encode(
        tok.apply_chat_template([{"role": "user", "content": "hi"}]), add_special_tokens=False
    )
    assert d["prompt"] == tok.decode(t["tokens"], skip_special_tokens=False)
    assert bad == 400 and bad_err["error"]["param"] == "tokens"
    assert card["id"] == MODEL and card["object"] == "model" and other == 404
    assert version["version"]


def test_chat_template_flag_replaces_the_models(core: EngineCore) -> None:
    async def go(client, engine):
        return await (await client.post("/tokenize", json={"messages": [{"role": "user", "content": "hi"}]})).json()

    got = serve(core, go, chat_template="{% for m in messages %}<<{{ m['content'] }}>>{% endfor %}")
    assert got["tokens"] == core.tokenizer.encode("<<hi>>", add_special_tokens=False)


def test_metrics_count_requests_tokens_and_latencies(core: EngineCore) -> None:
    async def go(client, engine):
        await asyncio.gather(
            *(
                client.post("/v1/completions", json={"prompt": PROMPT, "max_tokens": 3, "ignore_eos": True})
                for _ in range(3)
            )
        )
        resp = await client.get("/metrics")
        return resp.status, resp.headers["Content-Type"], await resp.text()

    status, ctype, text = serve(core, go)
    assert status == 200 and ctype.startswith("text/plain")
    lines = dict(line.rsplit(" ", 1) for line in text.splitlines() if line and not line.startswith("#"))
    label = f'{{model_name="{MODEL}"}}'
    assert float(lines[f"engine:time_to_first_token_seconds_count{label}"]) == 3
    assert float(lines[f"engine:inter_token_latency_seconds_count{label}"]) >= 3  # 2 gaps each, fewer if merged
    assert float(lines[f"engine:e2e_request_latency_seconds_count{label}"]) == 3
    assert float(lines[f"engine:generation_tokens_total{label}"]) == 9
    assert float(lines[f"engine:prompt_tokens_total{label}"]) == 18
    assert float(lines[f'engine:request_success_total{{finished_reason="length",model_name="{MODEL}"}}']) == 3
    assert f"engine:num_requests_running{label}" in lines and f"engine:kv_cache_usage_perc{label}" in lines
    assert float(lines[f"engine:prefix_cache_queries_total{label}"]) >= 18
