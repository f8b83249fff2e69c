"""AsyncEngine: an asyncio front end over one EngineCore that a dedicated thread steps.

Threads: the engine thread alone touches the EngineCore. The event loop hands it new requests and aborts through a
locked command list, applied between steps; after each step the engine thread hands the requests that moved to the
OutputProcessor (engine/output_processor.py, the same one LLM.generate uses: text deltas that hold back an
incomplete UTF-8 sequence or a possible stop string) and delivers every request's `StreamOutput` to the loop with
one `call_soon_threadsafe`. Admission is bounded: at most
`max_num_seqs + max_queued_requests` requests are in flight; past that `open()` raises `QueueFullError` at once.
"""
from __future__ import annotations

import asyncio
import itertools
import logging
import threading
import traceback
from dataclasses import dataclass
from typing import Any

from engine.engine_core import EngineCore
from engine.errors import EngineError
from engine.output_processor import OutputDelta, OutputProcessor
from engine.sampling_params import SamplingParams

log = logging.getLogger("engine.serve")
DEFAULT_MAX_QUEUED_REQUESTS = 512


class QueueFullError(Exception):
    """Admission refused: the in-flight bound is reached (HTTP 503)."""


class RequestFailed(Exception):
    """The engine could not serve this request; `status` is the HTTP status it maps to (400 or 500)."""

    def __init__(self, message: str, status: int = 500) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass
class StreamOutput:
    """What one engine step produced for one request."""
    token_ids: list[int]                 # new token ids this step
    text: str                            # new text this step (may be "" while a character or stop is held back)
    num_prompt_tokens: int
    num_output_tokens: int               # generated so far (stop-string tail included, as vLLM counts)
    finish_reason: str | None = None     # "stop" | "length" | "abort" on the last output
    stop_reason: int | str | None = None  # the stop token id or stop string that ended it
    error: RequestFailed | None = None

    @classmethod
    def of(cls, delta: OutputDelta) -> StreamOutput:
        return cls(delta.token_ids, delta.text, delta.num_prompt_tokens, delta.num_output_tokens,
                   delta.finish_reason, delta.stop_reason)


@dataclass
class EngineStats:
    num_steps: int = 0
    max_batch_requests: int = 0      # most requests that received a token in one step
    num_aborted: int = 0
    num_errors: int = 0


class RequestStream:
    """The event-loop side of one request: outputs arrive in order on an asyncio.Queue."""

    def __init__(self, request_id: str) -> None:
        self.request_id = request_id
        self.queue: asyncio.Queue[StreamOutput] = asyncio.Queue()
        self.finished = False

    def __aiter__(self) -> RequestStream:
        return self

    async def __anext__(self) -> StreamOutput:
        if self.finished:
            raise StopAsyncIteration
        out = await self.queue.get()
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
    def __init__(self, core: EngineCore, max_queued_requests: int = DEFAULT_MAX_QUEUED_REQUESTS) -> None:
        if max_queued_requests < 0:
            raise EngineError(f"--max-queued-requests must be >= 0, got {max_queued_requests}")
        self.core = core
        self.capacity = core.config.max_num_seqs + max_queued_requests
        self.stats = EngineStats()
        self._in_flight = 0                        # event-loop thread only
        self._ids = itertools.count()
        self._cond = threading.Condition()
        self._commands: list[tuple[str, Any]] = []  # ("add", (stream, ids, params, prompt)) | ("abort", request_id)
        self._stopping = False
        self._streams: dict[str, RequestStream] = {}   # engine thread only, as is the output processor
        self.output_processor = OutputProcessor(core.tokenizer)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def tokenizer(self):
        return self.core.tokenizer

    @property
    def num_in_flight(self) -> int:
        return self._in_flight

    # ---- lifecycle (event loop) ----------------------------------------------------------------
    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="engine-core", daemon=True)
        self._thread.start()

    async def shutdown(self) -> None:
        """Stop the engine thread; every request still in flight ends with an error, none is left hanging."""
        with self._cond:
            self._stopping = True
            self._cond.notify()
        if self._thread is not None:
            await asyncio.get_running_loop().run_in_executor(None, self._thread.join)
            self._thread = None

    # ---- requests (event loop) -----------------------------------------------------------------
    def open(self, prompt_token_ids: list[int], params: SamplingParams, prompt: str | None = None,
             request_id: str | None = None) -> _Admission:
        """Admit one request now or raise QueueFullError; use the result as `async with ... as stream`."""
        if self._thread is None or self._stopping:
            raise RequestFailed("the engine is not running (the server is shutting down)", 503)
        if self._in_flight >= self.capacity:
            raise QueueFullError(f"the server has {self._in_flight} requests in flight, its limit "
                                 f"(--max-num-seqs + --max-queued-requests = {self.capacity}); retry later")
        rid = request_id or f"req-{next(self._ids)}"
        stream = RequestStream(rid)
        self._in_flight += 1
        self._command("add", (stream, prompt_token_ids, params, prompt))
        return _Admission(self, stream)

    def _release(self, stream: RequestStream) -> None:
        self._in_flight -= 1
        if not stream.finished:
            stream.finished = True
            self._command("abort", stream.request_id)

    def _command(self, kind: str, payload: Any) -> None:
        with self._cond:
            self._commands.append((kind, payload))
            self._cond.notify()

    # ---- the engine thread ---------------------------------------------------------------------
    def _run(self) -> None:
        core = self.core
        while True:
            with self._cond:
                while not self._commands and not self._stopping and not self._has_work():
                    self._cond.wait()
                commands, self._commands = self._commands, []
                stopping = self._stopping
            if stopping:
                self._fail_all("the server is shutting down", 503)
                return
            outbox: list[tuple[RequestStream, StreamOutput]] = []
            for kind, payload in commands:
                if kind == "add":
                    self._add(*payload, outbox)
                elif kind == "abort" and payload in self._streams:
                    core.abort_requests([payload])
                    del self._streams[payload]
                    state = self.output_processor.abort_request(payload)
                    self.stats.num_aborted += 1
                    log.info("request %s aborted (its client left) after %d tokens; its KV blocks are free",
                             payload, state.sent_tokens if state is not None else 0)
            if self._has_work():
                try:
                    finished, result = core.step()
                except Exception as e:   # an engine bug must not take the server down: fail this step's requests
                    log.error("engine step failed:\n%s", traceback.format_exc())
                    self.stats.num_errors += 1
                    self._fail_all(f"the engine failed: {type(e).__name__}: {e}", 500, outbox)
                else:
                    self.stats.num_steps += 1
                    self.stats.max_batch_requests = max(self.stats.max_batch_requests, len(result.req_ids))
                    # The requests whose tokens reached the host now: one step after they were computed under async
                    # scheduling (engine/engine_core.py); ids of requests that ended meanwhile are skipped there.
                    self._collect([*result.req_ids, *(r.request_id for r in finished)], outbox)
            self._deliver(outbox)

    def _has_work(self) -> bool:
        """Requests to step, or a step still in flight (processed too, so an idle engine leaves the device idle)."""
        return self.core.has_unfinished_requests() or self.core.num_steps_in_flight > 0

    def _add(self, stream: RequestStream, ids: list[int], params: SamplingParams, prompt: str | None,
             outbox: list[tuple[RequestStream, StreamOutput]]) -> None:
        rid = stream.request_id
        if stream.finished:   # its client left before the engine saw it
            return
        try:
            request = self.core.add_request(rid, ids, params, prompt=prompt)
            self.output_processor.add_request(request)
        except EngineError as e:
            self.core.abort_requests([rid])   # added to the core but refused by the processor: not left running
            outbox.append((stream, StreamOutput([], "", len(ids), 0, error=RequestFailed(str(e), 400))))
            return
        self._streams[rid] = stream

    def _collect(self, request_ids: list[str], outbox: list[tuple[RequestStream, StreamOutput]]) -> None:
        processed = self.output_processor.process_outputs(request_ids)
        self.core.abort_requests(processed.reqs_to_abort)   # a stop string ended them: free their KV blocks now
        for delta in processed.deltas:
            stream = self._streams[delta.request_id]
            outbox.append((stream, StreamOutput.of(delta)))
            if delta.finish_reason is not None:
                del self._streams[delta.request_id]

    def _fail_all(self, message: str, status: int,
                  outbox: list[tuple[RequestStream, StreamOutput]] | None = None) -> None:
        outbox = [] if outbox is None else outbox
        rids = list(self._streams)
        try:
            self.core.abort_requests(rids)
            # KV written by a failed step is not trustworthy: forget every prefix-cache hash.
            self.core.scheduler.kv.reset_prefix_cache()
        except Exception:
            log.error("aborting after an engine failure failed:\n%s", traceback.format_exc())
        for rid in rids:
            stream = self._streams.pop(rid)
            state = self.output_processor.abort_request(rid)
            prompt_tokens, sent = (state.request.num_prompt_tokens, state.sent_tokens) if state is not None else (0, 0)
            outbox.append((stream, StreamOutput([], "", prompt_tokens, sent, error=RequestFailed(message, status))))
        with self._cond:   # adds that never reached the engine
            pending, self._commands = self._commands, []
        for kind, payload in pending:
            if kind == "add":
                outbox.append((payload[0], StreamOutput([], "", len(payload[1]), 0,
                                                       error=RequestFailed(message, status))))
        self._deliver(outbox)
        outbox.clear()

    def _deliver(self, outbox: list[tuple[RequestStream, StreamOutput]]) -> None:
        if outbox and self._loop is not None and not self._loop.is_closed():
            try:
                self._loop.call_soon_threadsafe(_put_all, list(outbox))
            except RuntimeError:   # the loop closed between the check and the call (process exit)
                pass


def _put_all(items: list[tuple[RequestStream, StreamOutput]]) -> None:
    for stream, out in items:
        stream.queue.put_nowait(out)

