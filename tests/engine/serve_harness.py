"""Test harness for engine.serve: an in-process server over a given EngineCore, driven from a sync test.

    result = serve(core, lambda client, engine: body(client, engine), max_queued_requests=8)

runs `body` inside aiohttp's TestServer/TestClient on a fresh event loop; the engine thread stops on exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from engine.engine_core import EngineCore
from engine.serve.api import create_app
from engine.serve.async_engine import AsyncEngine
from engine.provenance.commit import Provenance

MODEL = "tiny"


def serve(
    core: EngineCore,
    body: Callable[[TestClient, AsyncEngine], Awaitable[Any]],
    max_queued_requests: int = 8,
    model: str = MODEL,
    provenance: Provenance | None = None,
    **app_options: Any,
) -> Any:
    """app_options: create_app's keywords (api_key, allowed_origins, allowed_hosts, chat_template, ...)."""

    async def main() -> Any:
        engine = AsyncEngine(core, max_queued_requests)
        async with TestClient(TestServer(create_app(engine, model, provenance, **app_options))) as client:
            return await body(client, engine)

    return asyncio.run(main())


async def sse_events(resp) -> list[Any]:
    """Every `data:` payload of an SSE response, JSON-decoded except the final "[DONE]"."""
    events: list[Any] = []
    async for raw in resp.content:
        line = raw.decode().rstrip("\n")
        if line.startswith("data: "):
            data = line[len("data: ") :]
            events.append(data if data == "[DONE]" else json.loads(data))
        else:
            assert line == "", f"unexpected SSE line {line!r}"
    return events


async def wait_until(cond: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.01)


@contextlib.contextmanager
def slow_steps(core: EngineCore, seconds: float) -> Iterator[None]:
    """Each engine step takes at least `seconds` (so a test can act while requests are in flight)."""
    original = core.runner.execute_model

    def slow(sched):
        time.sleep(seconds)
        return original(sched)

    core.runner.execute_model = slow
    try:
        yield
    finally:
        core.runner.execute_model = original


def engine_idle(core: EngineCore) -> bool:
    """No request left and every KV block back in the free pool."""
    return not core.has_unfinished_requests() and core.scheduler.kv.num_free_blocks == core.num_blocks
