"""engine serve's guards: API key, origins, Host names, and the bounds on one request's work (body size and time, a
prompt's characters, a bad gzip body) — each refused with OpenAI's error body before the engine sees anything, and
/health answering while a huge prompt is refused."""

from __future__ import annotations

import asyncio
import gzip
import time
from pathlib import Path

import pytest

from engine import LLM
from engine.engine_core import EngineCore
from engine.serve.limits import Timeouts
from engine.serve.security import LOCAL_HOSTS
from serve_harness import MODEL, serve

pytestmark = pytest.mark.usefixtures("one_torch_thread")
BODY = {"model": MODEL, "prompt": [5, 6, 7], "max_tokens": 2, "temperature": 0}


@pytest.fixture(scope="module")
def core(tiny_qwen3_dir: Path) -> EngineCore:
    return LLM(str(tiny_qwen3_dir), device="cpu", max_num_seqs=4, max_model_len=64, block_size=4).engine_core


def test_api_key_is_required_except_on_health_and_version(core: EngineCore) -> None:
    async def go(client, engine):
        out = {}
        for name, headers in (
            ("none", {}),
            ("wrong", {"Authorization": "Bearer nope"}),
            ("basic", {"Authorization": "Basic s3cret"}),
            ("right", {"Authorization": "Bearer s3cret"}),
        ):
            resp = await client.post("/v1/completions", json=BODY, headers=headers)
            out[name] = (resp.status, await resp.json())
        out["models"] = (await client.get("/v1/models")).status
        out["health"] = (await client.get("/health")).status
        out["version"] = (await client.get("/version")).status
        return out

    got = serve(core, go, api_key="s3cret")
    for name in ("none", "wrong", "basic"):
        status, err = got[name]
        assert status == 401 and err["error"]["type"] == "AuthenticationError" and "Bearer" in err["error"]["message"]
    assert got["right"][0] == 200 and got["models"] == 401 and got["health"] == got["version"] == 200


def test_other_origins_are_refused_and_allowed_ones_get_cors(core: EngineCore) -> None:
    async def go(client, engine):
        evil = await client.post(
            "/v1/completions",
            data=b'{"prompt": [5], "max_tokens": 1}',
            headers={"Origin": "http://evil.example", "Content-Type": "text/plain"},
        )
        ok = await client.post("/v1/completions", json=BODY, headers={"Origin": "http://localhost:3000"})
        pre = await client.options(
            "/v1/completions",
            headers={
                "Origin": "http://localhost:3000",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization, content-type",
            },
        )
        no_origin = await client.post("/v1/completions", json=BODY)
        return (
            evil.status,
            await evil.json(),
            ok.status,
            ok.headers.get("Access-Control-Allow-Origin"),
            pre.status,
            pre.headers.get("Access-Control-Allow-Headers"),
            no_origin.status,
            engine.gauges.num_steps,
        )

    evil, err, ok, acao, pre, allow, plain, steps = serve(core, go, allowed_origins=["http://localhost:3000"])
    assert evil == 403 and "--allowed-origins http://evil.example" in err["error"]["message"]
    assert ok == 200 and acao == "http://localhost:3000"
    assert pre == 204 and allow == "authorization, content-type"
    assert plain == 200  # non-browser clients send no Origin


def test_a_local_server_answers_only_local_host_names(core: EngineCore) -> None:
    async def go(client, engine):
        rebound = await client.get("/v1/models", headers={"Host": "attacker.example:8000"})
        local = await client.get("/v1/models", headers={"Host": "localhost:8000"})
        v6 = await client.get("/v1/models", headers={"Host": "[::1]:8000"})
        return rebound.status, await rebound.json(), local.status, v6.status

    rebound, err, local, v6 = serve(core, go, allowed_hosts=LOCAL_HOSTS)
    assert rebound == 403 and "'attacker.example' is not a name of this server" in err["error"]["message"]
    assert local == 200 and v6 == 200


def test_bodies_too_large_too_slow_or_badly_encoded_are_refused(core: EngineCore) -> None:
    async def go(client, engine):
        big = await client.post("/v1/completions", data=b"x" * 5000, headers={"Content-Type": "application/json"})
        bad_gzip = await client.post(
            "/v1/completions",
            data=b"this is not gzip",
            headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
        )
        good_gzip = await client.post(
            "/v1/completions",
            data=gzip.compress(b'{"prompt": [5, 6], "max_tokens": 1}'),
            headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
        )
        reader, writer = await asyncio.open_connection(client.host, client.port)  # a body that never comes
        writer.write(
            b"POST /v1/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            b'Content-Length: 100\r\n\r\n{"prompt":'
        )
        await writer.drain()
        t0 = time.monotonic()
        head = await asyncio.wait_for(reader.readline(), 10)
        waited = time.monotonic() - t0
        writer.close()
        return (big.status, await big.json(), bad_gzip.status, await bad_gzip.json(), good_gzip.status, head, waited)

    big, big_err, bad, bad_err, good, head, waited = serve(core, go, max_body_bytes=4096, timeouts=Timeouts(body=0.5))
    assert big == 413 and "4096 bytes" in big_err["error"]["message"]
    assert bad == 400 and "Content-Encoding" in bad_err["error"]["message"]
    assert good == 200
    assert head.startswith(b"HTTP/1.1 408") and waited < 5


def test_a_huge_prompt_is_refused_by_its_length_while_health_answers(core: EngineCore) -> None:
    huge = "word " * 3_000_000  # 15 MB: far past what a 64-token context can hold

    async def go(client, engine):
        async def pings() -> float:
            worst = 0.0
            for _ in range(20):
                t0 = time.perf_counter()
                assert (await client.get("/health")).status == 200
                worst = max(worst, time.perf_counter() - t0)
                await asyncio.sleep(0.02)
            return worst

        t0 = time.perf_counter()
        resp, worst = await asyncio.gather(
            client.post("/v1/completions", json={"prompt": huge, "max_tokens": 1}), pings()
        )
        return resp.status, await resp.json(), time.perf_counter() - t0, worst

    status, err, took, worst = serve(core, go)
    assert status == 400 and "cannot fit" in err["error"]["message"] and err["error"]["param"] == "prompt"
    assert took < 10 and worst < 2.0, (took, worst)  # the old server tokenised it on the loop: 38 s
