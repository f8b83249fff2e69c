"""engine serve under stress: hang-ups free KV blocks, a full queue answers 503 at once, an engine failure is a 500
for the requests it hit while the server keeps serving, shutdown ends every stream, and text deltas never split a
multi-byte character."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import aiohttp
import pytest

from engine import LLM, SamplingParams
from engine.engine_core import EngineCore
from engine.serve.async_engine import AsyncEngine, RequestFailed
from serve_harness import MODEL, engine_idle, serve, slow_steps, sse_events, wait_until

LONG = {"model": MODEL, "prompt": [11, 12, 13, 14, 15], "max_tokens": 50, "temperature": 0, "ignore_eos": True}


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def core(tiny_qwen3_dir: Path) -> EngineCore:
    return LLM(
        str(tiny_qwen3_dir),
        device="cpu",
        max_num_seqs=2,
        max_model_len=64,
        block_size=4,
        max_num_batched_tokens=32,
        enable_prefix_caching=False,
    ).engine_core


def test_a_streaming_client_that_hangs_up_is_aborted_and_its_blocks_freed(core: EngineCore) -> None:
    async def body(client, engine):
        resp = await client.post("/v1/completions", json={**LONG, "stream": True})
        first = await resp.content.readline()
        assert first.startswith(b"data: ")
        assert core.scheduler.kv.num_free_blocks < core.num_blocks  # it holds blocks now
        resp.close()  # hang up mid-stream
        await wait_until(lambda: engine.stats.num_aborted == 1 and engine_idle(core))
        assert engine.num_in_flight == 0

    with slow_steps(core, 0.02):
        serve(core, body)


def test_a_waiting_client_that_times_out_is_aborted_too(core: EngineCore) -> None:
    async def body(client, engine):
        with pytest.raises(asyncio.TimeoutError):
            await client.post("/v1/completions", json=LONG, timeout=aiohttp.ClientTimeout(total=0.2))
        await wait_until(lambda: engine.stats.num_aborted == 1 and engine_idle(core))
        assert engine.num_in_flight == 0

    with slow_steps(core, 0.02):
        serve(core, body)


def test_a_full_queue_answers_503_at_once_and_recovers(core: EngineCore) -> None:
    async def body(client, engine):
        # capacity = max_num_seqs 2 + max_queued_requests 1
        held = [await client.post("/v1/completions", json={**LONG, "stream": True}) for _ in range(3)]
        refused = await client.post("/v1/completions", json={**LONG, "max_tokens": 1})
        err = await refused.json()
        for r in held:
            r.close()
        await wait_until(lambda: engine.num_in_flight == 0 and engine_idle(core))
        ok = await client.post("/v1/completions", json={**LONG, "max_tokens": 2})
        return refused.status, refused.headers.get("Retry-After"), err, ok.status

    with slow_steps(core, 0.02):
        status, retry, err, after = serve(core, body, max_queued_requests=1)
    assert status == 503 and retry == "1"
    assert err["error"]["code"] == 503 and "--max-queued-requests" in err["error"]["message"]
    assert after == 200


def test_a_step_that_fails_once_is_retried_and_every_request_finishes(core: EngineCore) -> None:
    ref = (
        LLM.from_engine_core(core)
        .generate(
            {"prompt_token_ids": LONG["prompt"]},
            SamplingParams(temperature=0, max_tokens=20, ignore_eos=True),
            use_tqdm=False,
        )[0]
        .outputs[0]
        .token_ids
    )
    original = core.runner.execute_model
    failed = []

    def fails_once(sched):  # the first step that runs both requests fails
        if not failed and len(sched.num_scheduled_tokens) == 2:
            failed.append(sched)
            raise RuntimeError("injected device fault")
        time.sleep(0.01)
        return original(sched)

    async def body(client, engine):
        core.runner.execute_model = fails_once
        try:
            plain, streamed = await asyncio.gather(
                client.post("/v1/completions", json={**LONG, "max_tokens": 20}),
                client.post("/v1/completions", json={**LONG, "max_tokens": 20, "stream": True}),
            )
            return plain.status, await plain.json(), await sse_events(streamed), engine.stats.num_errors
        finally:
            core.runner.execute_model = original

    status, answer, events, errors = serve(core, body)
    assert len(failed) == 1 and errors == 1
    assert status == 200 and answer["usage"]["completion_tokens"] == 20
    assert answer["choices"][0]["text"] == core.tokenizer.decode(ref)
    assert events[-1] == "[DONE]" and events[-2]["choices"][0]["finish_reason"] == "length"
    assert "".join(e["choices"][0]["text"] for e in events[:-1]) == answer["choices"][0]["text"]
    assert engine_idle(core)


POISON = 999


def test_a_poisoned_request_fails_alone_while_a_stream_completes(core: EngineCore) -> None:
    """Every step that runs the poisoned request raises; it gets a 500, the stream and the others finish."""
    original = core.runner.execute_model
    steps_with_poison = []

    def poisoned(sched):
        if any(POISON in core.scheduler.requests[rid].prompt_token_ids for rid in sched.num_scheduled_tokens):
            steps_with_poison.append(len(sched.num_scheduled_tokens))
            raise RuntimeError("kernel fault on a poisoned row")
        time.sleep(0.005)
        return original(sched)

    async def body(client, engine):
        core.runner.execute_model = poisoned
        try:
            streamed = await client.post(
                "/v1/completions",
                json={**LONG, "max_tokens": 30, "stream": True, "stream_options": {"include_usage": True}},
            )
            first = await streamed.content.readline()  # the stream runs before the poison arrives
            bad, other = await asyncio.gather(
                client.post("/v1/completions", json={**LONG, "prompt": [5, POISON, 6], "max_tokens": 5}),
                client.post("/v1/completions", json={**LONG, "prompt": [21, 22], "max_tokens": 6}),
            )
            rest = await sse_events(streamed)
            return first, bad.status, await bad.json(), other.status, await other.json(), rest
        finally:
            core.runner.execute_model = original

    first, bad_status, bad, other_status, other, rest = serve(core, body)
    assert bad_status == 500 and "kernel fault on a poisoned row" in bad["error"]["message"]
    assert other_status == 200 and other["usage"]["completion_tokens"] == 6
    # every token of the stream arrived: counted by the usage chunk, since a chunk may carry more than one token (on
    # the H200 the 30 tokens came in 29 chunks: a step outran the stream's reader)
    assert rest[-1] == "[DONE]" and rest[-2]["usage"]["completion_tokens"] == 30
    assert rest[-3]["choices"][0]["finish_reason"] == "length" and first.startswith(b"data: ")
    assert steps_with_poison[-1] == 1  # the last failure was the poisoned request alone
    assert engine_idle(core)


def test_shutdown_ends_every_request_in_flight(core: EngineCore) -> None:
    async def main():
        engine = AsyncEngine(core)
        engine.start()
        async with engine.open([11, 12, 13], SamplingParams(temperature=0, max_tokens=50, ignore_eos=True)) as s:
            await s.__anext__()
            await engine.shutdown()
            with pytest.raises(RequestFailed, match="shutting down") as info:
                async for _ in s:
                    pass
        return info.value.status, engine.num_in_flight

    with slow_steps(core, 0.02):
        status, in_flight = asyncio.run(main())
    assert status == 503 and in_flight == 0 and engine_idle(core)


def test_text_deltas_never_split_a_multibyte_character(core: EngineCore) -> None:
    tok = core.tokenizer
    text = "naïve café → 日本語 🙂 done"
    script = tok.encode(text, add_special_tokens=False)
    assert len(script) > len(text.split())  # the byte-level vocabulary splits the characters across tokens
    original = core.runner.execute_model

    def scripted(sched):  # the engine "samples" the script, so the detokeniser sees real UTF-8 splits
        handle = original(sched)
        get_output = handle.get_output

        def scripted_output():  # read when the step's tokens reach the host, in step order
            out = get_output()
            out.sampled_token_ids = [script[len(core.scheduler.requests[rid].output_token_ids)] for rid in out.req_ids]
            return out

        handle.get_output = scripted_output
        return handle

    async def body(client, engine):
        core.runner.execute_model = scripted
        try:
            resp = await client.post("/v1/completions", json={**LONG, "max_tokens": len(script), "stream": True})
            return await sse_events(resp)
        finally:
            core.runner.execute_model = original

    chunks = serve(core, body)[:-1]
    deltas = [c["choices"][0]["text"] for c in chunks]
    # A chunk per token, or fewer: outputs a slow reader had not taken yet travel together.
    assert "".join(deltas) == text and 1 < len(chunks) <= len(script)
    assert not any("\ufffd" in d for d in deltas) and "" in deltas  # some chunks waited for a character's last byte
