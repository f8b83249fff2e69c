"""engine serve's HTTP API on a tiny dummy-weight Qwen3: same tokens as LLM.generate, streaming that adds up to the
non-streamed answer, batching, stop strings, chat, and OpenAI-shaped answers to every mistake."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from engine import LLM, SamplingParams
from engine.engine_core import EngineCore
from serve_harness import MODEL, serve, slow_steps, sse_events

PROMPTS = ["def main():", [5, 6, 7, 8, 9], "import os\nimport sys", "x" * 30]
MAX_TOKENS = [7, 12, 3, 9]


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def core(tiny_qwen3_dir: Path) -> EngineCore:
    return LLM(
        str(tiny_qwen3_dir), device="cpu", max_num_seqs=4, max_model_len=64, block_size=4, max_num_batched_tokens=48
    ).engine_core


def _body(i: int, **extra) -> dict:
    return {
        "model": MODEL,
        "prompt": PROMPTS[i],
        "max_tokens": MAX_TOKENS[i],
        "temperature": 0,
        "ignore_eos": True,
        **extra,
    }


def test_greedy_answers_equal_llm_generate_and_run_batched(core: EngineCore) -> None:
    ref = LLM.from_engine_core(core).generate(
        [p if isinstance(p, str) else {"prompt_token_ids": p} for p in PROMPTS],
        [SamplingParams(temperature=0, max_tokens=n, ignore_eos=True) for n in MAX_TOKENS],
        use_tqdm=False,
    )

    async def body(client, engine):
        resps = await asyncio.gather(*(client.post("/v1/completions", json=_body(i)) for i in range(len(PROMPTS))))
        assert all(r.status == 200 for r in resps)
        return [await r.json() for r in resps], engine.stats.max_batch_requests

    with slow_steps(core, 0.01):  # requests arrive within a step, even on a busy machine
        answers, max_batch = serve(core, body)
    assert max_batch > 1  # several requests received a token in one engine step
    for out, ans in zip(ref, answers):
        comp = out.outputs[0]
        assert ans["object"] == "text_completion" and ans["id"].startswith("cmpl-") and ans["model"] == MODEL
        choice = ans["choices"][0]
        assert choice["text"] == comp.text and choice["finish_reason"] == "length" and choice["index"] == 0
        assert ans["usage"] == {
            "prompt_tokens": len(out.prompt_token_ids),
            "completion_tokens": len(comp.token_ids),
            "total_tokens": len(out.prompt_token_ids) + len(comp.token_ids),
        }


@pytest.mark.parametrize("include_usage", [True, False])
def test_stream_deltas_add_up_to_the_plain_answer(core: EngineCore, include_usage: bool) -> None:
    async def body(client, engine):
        plain = await (await client.post("/v1/completions", json=_body(1))).json()
        resp = await client.post(
            "/v1/completions", json=_body(1, stream=True, stream_options={"include_usage": include_usage})
        )
        assert resp.status == 200 and resp.headers["Content-Type"].startswith("text/event-stream")
        return plain, await sse_events(resp)

    plain, events = serve(core, body)
    assert events[-1] == "[DONE]"
    chunks = events[:-1]
    if include_usage:
        usage = chunks.pop()
        assert usage["choices"] == [] and usage["usage"] == plain["usage"]
        assert all(c["usage"] is None for c in chunks)
    else:
        assert all("usage" not in c for c in chunks)
    # A chunk per token, or fewer: outputs a slow reader had not taken yet travel together.
    assert 1 < len(chunks) <= plain["usage"]["completion_tokens"] == MAX_TOKENS[1]
    assert "".join(c["choices"][0]["text"] for c in chunks) == plain["choices"][0]["text"]
    assert [c["choices"][0]["finish_reason"] for c in chunks] == [None] * (len(chunks) - 1) + ["length"]
    assert {c["id"] for c in chunks} == {chunks[0]["id"]} and chunks[0]["object"] == "text_completion"


def test_chat_uses_the_template_and_streams_deltas(core: EngineCore) -> None:
    messages = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    ]
    tok = core.tokenizer
    ref = LLM.from_engine_core(core).chat(
        [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}],
        SamplingParams(temperature=0, max_tokens=6, ignore_eos=True),
        use_tqdm=False,
    )[0]
    req = {"model": MODEL, "messages": messages, "max_completion_tokens": 6, "temperature": 0, "ignore_eos": True}

    async def body(client, engine):
        plain = await (await client.post("/v1/chat/completions", json=req)).json()
        events = await sse_events(await client.post("/v1/chat/completions", json={**req, "stream": True}))
        return plain, events

    plain, events = serve(core, body)
    assert plain["object"] == "chat.completion" and plain["id"].startswith("chatcmpl-")
    assert plain["choices"][0]["message"] == {"role": "assistant", "content": ref.outputs[0].text}
    assert plain["usage"]["prompt_tokens"] == len(ref.prompt_token_ids)
    assert ref.prompt_token_ids == tok.encode(
        tok.apply_chat_template([{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]),
        add_special_tokens=False,
    )
    chunks = events[:-1]
    assert events[-1] == "[DONE]" and all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert "".join(c["choices"][0]["delta"]["content"] for c in chunks) == ref.outputs[0].text


def test_stop_strings_cut_the_text_and_free_the_request(core: EngineCore) -> None:
    free = (
        LLM.from_engine_core(core)
        .generate(
            {"prompt_token_ids": PROMPTS[1]},
            SamplingParams(temperature=0, max_tokens=12, ignore_eos=True),
            use_tqdm=False,
        )[0]
        .outputs[0]
        .text
    )
    stop = next(
        free[i : i + 2]
        for i in range(3, len(free) - 2)
        if free[i : i + 2].strip() and free[i : i + 2] not in free[: i + 1]
    )
    cut = free[: free.index(stop)]

    async def body(client, engine):
        plain = await (await client.post("/v1/completions", json=_body(1, stop=[stop, "never-seen"]))).json()
        events = await sse_events(await client.post("/v1/completions", json=_body(1, stop=stop, stream=True)))
        return plain, events

    plain, events = serve(core, body)
    choice = plain["choices"][0]
    assert choice["text"] == cut and choice["finish_reason"] == "stop" and choice["stop_reason"] == stop
    chunks = events[:-1]
    assert "".join(c["choices"][0]["text"] for c in chunks) == cut
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert not core.has_unfinished_requests()
    # Offline, the same request through the same OutputProcessor: the same text, reason and token count.
    offline = (
        LLM.from_engine_core(core)
        .generate(
            {"prompt_token_ids": PROMPTS[1]},
            SamplingParams(temperature=0, max_tokens=12, ignore_eos=True, stop=[stop, "never-seen"]),
            use_tqdm=False,
        )[0]
        .outputs[0]
    )
    assert (offline.text, offline.finish_reason, offline.stop_reason) == (cut, "stop", stop)
    assert len(offline.token_ids) == plain["usage"]["completion_tokens"] < 12


def test_health_and_models(core: EngineCore) -> None:
    async def body(client, engine):
        health = await client.get("/health")
        models = await (await client.get("/v1/models")).json()
        missing = await client.get("/v1/nothing")
        return health.status, models, missing.status, await missing.json()

    health, models, missing, err = serve(core, body)
    assert health == 200
    assert models["object"] == "list" and [m["id"] for m in models["data"]] == [MODEL]
    assert models["data"][0]["max_model_len"] == 64
    assert missing == 404 and err["error"]["code"] == 404


@pytest.mark.parametrize(
    "path,body,status,param,words",
    [
        ("/v1/completions", "{not json", 400, None, "not valid JSON"),
        ("/v1/completions", '{"prompt": "\\ud800"}', 400, None, "surrogate"),
        ("/v1/completions", [1, 2], 400, None, "must be a JSON object"),
        ("/v1/completions", {"max_tokens": 4}, 400, "prompt", "is required"),
        ("/v1/completions", {"prompt": "a", "n": 0}, 400, "n", "greater than or equal to 1"),
        ("/v1/completions", {"prompt": "a", "n": 2, "best_of": 1}, 400, "best_of", "must be >= n"),
        ("/v1/completions", {"prompt": "a", "temperature": -1}, 400, "temperature", "greater than or equal to 0"),
        ("/v1/completions", {"prompt": "a", "top_p": 0}, 400, "top_p", "greater than 0"),
        ("/v1/completions", {"prompt": "a", "top_k": -5}, 400, "top_k", "greater than or equal to -1"),
        ("/v1/completions", {"prompt": "a", "top_k": 2**63}, 400, "top_k", "less than or equal to 9223372036854775807"),
        ("/v1/completions", {"prompt": "a", "top_k": 1001}, 400, "top_k", "vocabulary size 1000"),
        ("/v1/completions", {"prompt": "a", "seed": 2**64}, 400, "seed", "less than or equal to"),
        ("/v1/completions", {"prompt": "a", "max_tokens": 0}, 400, "max_tokens", "0 only with"),
        ("/v1/completions", {"prompt": "a", "max_tokens": "8"}, 400, "max_tokens", "valid integer"),
        ("/v1/completions", {"prompt": "a", "min_tokens": 9, "max_tokens": 8}, 400, "min_tokens", "must be <="),
        ("/v1/completions", {"prompt": "a", "stream": "yes"}, 400, "stream", "valid boolean"),
        (
            "/v1/completions",
            {"prompt": "a", "stream_options": {"include_usage": True}},
            400,
            "stream_options",
            "only allowed with",
        ),
        ("/v1/completions", {"prompt": "a", "stop": 5}, 400, "stop", "string or a list of strings"),
        ("/v1/completions", {"prompt": "a", "stop": ["x"] * 65}, 400, "stop", "at most 64 stop strings"),
        ("/v1/completions", {"prompt": "a", "stop": ["x" * 1025]}, 400, "stop", "1 to 1024 characters"),
        ("/v1/completions", {"prompt": "a", "stop_token_ids": [5000]}, 400, "stop_token_ids", "outside the vocabulary"),
        ("/v1/completions", {"prompt": "a", "logprobs": 21}, 400, "logprobs", "less than or equal to 20"),
        (
            "/v1/completions",
            {"prompt": "a", "presence_penalty": 2.5},
            400,
            "presence_penalty",
            "less than or equal to 2",
        ),
        ("/v1/completions", {"prompt": "a", "suffix": "x"}, 400, "suffix", "not supported"),
        ("/v1/completions", {"prompt": ["a", 5]}, 400, "prompt", "a list of either"),
        ("/v1/completions", {"prompt": []}, 400, "prompt", "is empty"),
        ("/v1/completions", {"prompt": [1, 5000]}, 400, "prompt", "outside the vocabulary [0, 1000)"),
        ("/v1/completions", {"prompt": [[1, 2], [1, 5000]]}, 400, "prompt[1]", "outside the vocabulary"),
        ("/v1/completions", {"prompt": [7] * 64}, 400, "prompt", "no room to generate"),
        ("/v1/completions", {"prompt": [7] * 60, "max_tokens": 10}, 400, "max_tokens", "at most 4 can be generated"),
        ("/v1/completions", {"prompt": "a", "model": "gpt-4"}, 404, "model", "does not exist here"),
        ("/v1/chat/completions", {"messages": []}, 400, "messages", "at least 1 item"),
        (
            "/v1/chat/completions",
            {"messages": [{"role": "wizard", "content": "x"}]},
            400,
            "messages[0].role",
            "input should be 'system'",
        ),
        (
            "/v1/chat/completions",
            {"messages": [{"role": "user", "content": [{"type": "image_url"}]}]},
            400,
            "messages[0].content",
            "text",
        ),
        ("/v1/chat/completions", {"messages": [{"role": "user", "content": "\ud800"}]}, 400, None, "surrogate"),
        (
            "/v1/chat/completions",
            {"messages": [{"role": "user", "content": "hi"}], "top_logprobs": 2},
            400,
            "top_logprobs",
            'needs "logprobs": true',
        ),
    ],
)
def test_mistakes_get_an_openai_error_naming_the_field(core: EngineCore, path, body, status, param, words) -> None:
    async def go(client, engine):
        kwargs = {"data": body} if isinstance(body, str) else {"json": body}
        if "\ud800" in str(body):  # a lone surrogate, as JSON escapes it (Python's json.dumps does)
            kwargs = {
                "data": body if isinstance(body, str) else json.dumps(body),
                "headers": {"Content-Type": "application/json"},
            }
        resp = await client.post(path, **kwargs)
        return resp.status, await resp.json()

    got, err = serve(core, go)
    assert got == status
    e = err["error"]
    assert e["code"] == status and e["param"] == param and words in e["message"], e
    assert "Traceback" not in e["message"]
    assert not core.has_unfinished_requests()


def test_serve_cli_flags_reach_the_engine_config(capsys) -> None:
    from engine.cli import build_parser, main
    from engine.serve.cli import engine_args

    args = build_parser().parse_args(
        [
            "serve",
            "Qwen3-0.6B",
            "--load-format",
            "dummy",
            "--device",
            "cpu",
            "--max-num-seqs",
            "3",
            "--block-size",
            "8",
            "--no-enable-prefix-caching",
            "--port",
            "9001",
            "--served-model-name",
            "q",
            "--max-queued-requests",
            "7",
        ]
    )
    cfg = engine_args(args)
    assert (cfg.model, cfg.load_format, cfg.max_num_seqs, cfg.block_size, cfg.enable_prefix_caching) == (
        "Qwen3-0.6B",
        "dummy",
        3,
        8,
        False,
    )
    assert (args.port, args.served_model_name, args.max_queued_requests, args.host) == (9001, "q", 7, "127.0.0.1")
    assert main(["serve", "a", "--model", "b"]) == 2
    err = capsys.readouterr().err
    assert "two models given" in err and err.count("\n") == 1
    assert main(["serve", "--port", "70000"]) == 2 and "--port must be in [0, 65535]" in capsys.readouterr().err
