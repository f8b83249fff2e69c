"""AsyncEngine: the event loop's side of the engine — admission, one stream per request, each step's Batch routed.

The EngineCore lives with an EngineLoop (engine/serve/engine_loop.py) in a thread or a process of its own
(engine/serve/core_client.py); this side never touches it. `open()` admits a request or refuses it at once: at most
`max_num_seqs + max_queued_requests` are in flight, past that `QueueFullError` (HTTP 503). Each step's Batch arrives
in one call on the event loop and is spread over the streams it names.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from dataclasses import dataclass
from typing import Any

from engine.engine_core import EngineCore
from engine.errors import EngineError
from engine.output_processor import OutputDelta
from engine.outputs import Logprobs
from engine.sampling_params import SamplingParams
from engine.serve.core_client import ProcessCore, ThreadCore
from engine.serve.engine_loop import Batch, Failure, Gauges
from engine.serve.info import CoreInfo

log = logging.getLogger("engine.serve")
DEFAULT_MAX_QUEUED_REQUESTS = 512


class QueueFullError(Exception):
    """Admission refused: the in-flight bound is reached (HTTP 503)."""


class RequestFailed(Exception):
    """The engine could not serve this request; `status` is the HTTP status it maps to (400, 500 or 503)."""

    def __init__(self, message: str, status: int = 500) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass
class StreamOutput:
    """What one engine step produced for one request (several steps' worth when the reader fell behind)."""

    token_ids: list[int]  # new token ids
    text: str  # new text (may be "" while a character or stop is held back)
    num_prompt_tokens: int
    num_output_tokens: int  # generated so far (stop-string tail included, as vLLM counts)
    finish_reason: str | None = None  # "stop" | "length" | "abort" on the last output
    stop_reason: int | str | None = None  # the stop token id or stop string that ended it
    logprobs: list[Logprobs] | None = None  # one per new token, when asked
    prompt_logprobs: list[Logprobs | None] | None = None  # on the first output, when asked
    error: RequestFailed | None = None

    @classmethod
    def of(cls, d: OutputDelta) -> StreamOutput:
        return cls(
            d.token_ids,
            d.text,
            d.num_prompt_tokens,
            d.num_output_tokens,
            d.finish_reason,
            d.stop_reason,
            d.logprobs,
            d.prompt_logprobs,
        )

    @classmethod
    def failed(cls, f: Failure) -> StreamOutput:
        return cls([], "", f.num_prompt_tokens, f.num_output_tokens, error=RequestFailed(f.message, f.status))

    def merge(self, later: StreamOutput) -> None:
        """Fold a later output into this one (a reader that fell behind sends them as one chunk)."""
        self.token_ids = self.token_ids + later.token_ids
        self.text += later.text
        self.num_output_tokens = later.num_output_tokens
        self.finish_reason, self.stop_reason = later.finish_reason, later.stop_reason
        if later.logprobs is not None:
            self.logprobs = (self.logprobs or []) + later.logprobs


class RequestStream:
    """The event-loop side of one request: outputs arrive in order; timestamps feed /metrics."""

    def __init__(self, request_id: str) -> None:
        self.request_id = request_id
        self.queue: asyncio.Queue[StreamOutput] = asyncio.Queue()
        self.finished = False
        self.arrival = time.perf_counter()
        self.first_token: float | None = None
        self.last_token: float | None = None

    def __aiter__(self) -> RequestStream:
        return self

    async def __anext__(self) -> StreamOutput:
        if self.finished:
            raise StopAsyncIteration
        out = await self.queue.get()
        while not self.queue.empty() and out.error is None and out.finish_reason is None:
            nxt = self.queue.get_nowait()
            if nxt.error is not None:
                out = nxt
                break
            out.merge(nxt)
        if out.error is not None:
            self.finished = True
            raise out.error
        if out.finish_reason is not None:
            self.finished = True
        return out


class _Admission:
    """`async with engine.open(...) as stream`: aborts the request if the block exits before it finished."""

    def __init__(self, engine: AsyncEngine, stream: RequestStream) -> None:
        self.engine = engine
        self.stream = stream

    async def __aenter__(self) -> RequestStream:
        return self.stream

    async def __aexit__(self, *exc: Any) -> None:
        self.engine._release(self.stream)


class AsyncEngine:
    def __init__(
        self, core: EngineCore | ThreadCore | ProcessCore, max_queued_requests: int = DEFAULT_MAX_QUEUED_REQUESTS
    ) -> None:
        """`core`: an EngineCore (stepped in a thread here) or a core client (engine/serve/core_client.py)."""
        if max_queued_requests < 0:
            raise EngineError(f"--max-queued-requests must be >= 0, got {max_queued_requests}")
        self.client = ThreadCore(core) if isinstance(core, EngineCore) else core
        self.info: CoreInfo = self.client.info
        self.capacity = self.info.max_num_seqs + max_queued_requests
        self.max_queued_requests = max_queued_requests
        self.gauges = Gauges()
        self.observer: Any = None  # .on_output(stream, output, now) per output: /metrics
        self._streams: dict[str, RequestStream] = {}
        self._ids = itertools.count()
        self._running = False
        self._draining = False

    @property
    def tokenizer(self):
        return self.info.tokenizer

    @property
    def num_in_flight(self) -> int:
        return len(self._streams)

    @property
    def accepting(self) -> bool:
        """Whether new requests are admitted (not before start, nor while draining, nor after the engine stopped)."""
        return self._running and not self._draining

    @property
    def stats(self) -> Gauges:
        return self.gauges

    # ---- lifecycle (event loop) ----------------------------------------------------------------
    def start(self) -> None:
        self.client.start(self._on_batch)
        self._running = True

    async def drain(self, timeout: float) -> None:
        """Refuse new requests (503) and wait up to `timeout` seconds for those in flight to finish."""
        self._draining = True
        deadline = time.monotonic() + timeout
        while self._streams and time.monotonic() < deadline:
            await asyncio.sleep(0.05)

    async def shutdown(self) -> None:
        """Stop the engine; every request still in flight ends with an error, none is left hanging."""
        self._running = False
        await self.client.stop("the server is shutting down")
        self._fail_all("the server is shutting down", 503)

    # ---- requests (event loop) -----------------------------------------------------------------
    def open(self, prompt_token_ids: list[int], params: SamplingParams, request_id: str | None = None) -> _Admission:
        """Admit one request now or raise QueueFullError; use the result as `async with ... as stream`."""
        self.check_admission(1)
        rid = request_id or f"req-{next(self._ids)}"
        if rid in self._streams:
            rid = f"{rid}-{next(self._ids)}"
        stream = RequestStream(rid)
        self._streams[rid] = stream
        self.client.add(rid, prompt_token_ids, params)
        return _Admission(self, stream)

    def check_admission(self, n: int) -> None:
        """Raise unless n more requests can be admitted now (a request of n choices is admitted whole or not)."""
        if not self._running or self._draining:
            raise RequestFailed("the engine is not running (the server is shutting down)", 503)
        if len(self._streams) + n > self.capacity:
            raise QueueFullError(
                f"the server has {len(self._streams)} requests in flight and this one needs {n}; "
                f"its limit is --max-num-seqs + --max-queued-requests = {self.capacity}; "
                f"retry later"
            )

    def _release(self, stream: RequestStream) -> None:
        if self._streams.pop(stream.request_id, None) is not None and not stream.finished:
            stream.finished = True
            self.client.abort(stream.request_id)
            log.info("request %s aborted (its client left); its KV blocks are freed", stream.request_id)

    # ---- what the engine produced (event loop) ---------------------------------------------------
    def _on_batch(self, batch: Batch) -> None:
        now = time.perf_counter()
        if batch.gauges is not None:
            self.gauges = batch.gauges
        streams = self._streams
        for delta in batch.deltas:
            stream = streams.get(delta.request_id)
            if stream is None:
                continue  # its client left meanwhile
            out = StreamOutput.of(delta)
            if self.observer is not None:
                self.observer.on_output(stream, out, now)
            if delta.token_ids:
                if stream.first_token is None:
                    stream.first_token = now
                stream.last_token = now
            stream.queue.put_nowait(out)
        for failure in batch.failures:
            stream = streams.get(failure.request_id)
            if stream is not None:
                stream.queue.put_nowait(StreamOutput.failed(failure))
        if batch.stopped:
            self._running = False
            self._fail_all("the engine stopped", 503)

    def _fail_all(self, message: str, status: int) -> None:
        for stream in self._streams.values():
            if not stream.finished:
                stream.queue.put_nowait(StreamOutput([], "", 0, 0, error=RequestFailed(message, status)))
