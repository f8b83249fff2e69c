"""EngineLoop: the one thread that touches an EngineCore while it serves — in the server's process, or in a process
of its own (engine/serve/core_client.py carries the messages either way).

Commands (add, abort, stop) arrive through `submit` from any thread and are applied between steps. After each step
the requests that moved go through the OutputProcessor (engine/output_processor.py, the same one LLM.generate uses)
and everything the step produced leaves in ONE `Batch` through `send`: the deltas, the failures, and the engine's
gauges for /metrics.

A step that raises must not end the requests that had nothing to do with it (DESIGN §5). The requests it ran go back
to waiting to recompute (their KV and the prefix cache are not trusted any more), and each of them then runs alone,
one step or more until it has produced a token: the one whose solo step raises again is failed, alone, and the
others go on. A request that ends up in MAX_STRIKES failed steps is failed too, so a fault that only shows in a
batch cannot loop forever.
"""

from __future__ import annotations

import logging
import threading
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.engine_core import EngineCore
from engine.errors import EngineError
from engine.output_processor import OutputDelta, OutputProcessor
from engine.sampling_params import SamplingParams

log = logging.getLogger("engine.serve")
MAX_STRIKES = 3


@dataclass
class Failure:
    """A request that ended with an error instead of a finish reason."""

    request_id: str
    status: int  # the HTTP status it maps to
    message: str
    num_prompt_tokens: int = 0
    num_output_tokens: int = 0


@dataclass
class Gauges:
    """The engine's state after a step (Prometheus gauges and counters, engine/serve/metrics.py)."""

    num_steps: int = 0
    max_batch_requests: int = 0  # most requests that received a token in one step
    num_running: int = 0
    num_waiting: int = 0
    kv_usage: float = 0.0  # fraction of KV blocks in use
    prefix_queries: int = 0  # prompt tokens looked up in the prefix cache
    prefix_hits: int = 0  # of those, found
    num_preemptions: int = 0
    num_aborted: int = 0
    num_errors: int = 0  # steps that raised


@dataclass
class Batch:
    """Everything one step produced, delivered to the server's event loop at once."""

    deltas: list[OutputDelta] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    gauges: Gauges | None = None
    stopped: bool = False  # the loop ended: nothing more will come


class EngineLoop:
    def __init__(self, core: EngineCore, send: Callable[[Batch], None]) -> None:
        self.core = core
        self.send = send
        self.processor = OutputProcessor(core.tokenizer)
        self.gauges = Gauges()
        self._cond = threading.Condition()
        self._commands: list[tuple[Any, ...]] = []  # ("add", rid, ids, params) | ("abort", rid) | ("stop", msg)
        self._strikes: dict[str, int] = {}
        self._suspects: deque[str] = deque()
        self._solo_outputs = 0  # output tokens of the isolated request when its turn began

    def submit(self, *command: Any) -> None:
        """Queue a command (any thread)."""
        with self._cond:
            self._commands.append(command)
            self._cond.notify()

    # ---- the loop --------------------------------------------------------------------------------
    def run(self) -> None:
        while True:
            with self._cond:
                while not self._commands and not self._has_work():
                    self._cond.wait()
                commands, self._commands = self._commands, []
            batch = Batch()
            for command in commands:
                if command[0] == "stop":
                    self._fail_everything(command[1], 503, batch)
                    batch.stopped = True
                    self.send(self._with_gauges(batch))
                    return
                if command[0] == "add":
                    self._add(command[1], command[2], command[3], batch)
                elif command[0] == "abort":
                    self._abort(command[1])
            if self._has_work():
                self._step(batch)
            if batch.deltas or batch.failures or commands:
                self.send(self._with_gauges(batch))

    def _has_work(self) -> bool:
        """Requests to step, or a step still in flight (processed too, so an idle engine leaves the device idle)."""
        return self.core.has_unfinished_requests() or self.core.num_steps_in_flight > 0

    def _add(self, rid: str, ids: list[int], params: SamplingParams, batch: Batch) -> None:
        try:
            request = self.core.add_request(rid, ids, params)
            self.processor.add_request(request)
        except EngineError as e:
            self.core.abort_requests([rid])  # added to the core but refused by the processor: not left running
            batch.failures.append(Failure(rid, 400, str(e), len(ids)))

    def _abort(self, rid: str) -> None:
        if self.processor.abort_request(rid) is None:
            return  # finished already, or never added
        self.core.abort_requests([rid])
        self.gauges.num_aborted += 1

    def _step(self, batch: Batch) -> None:
        core = self.core
        try:
            finished, result = core.step()
        except Exception as e:
            log.error("engine step failed:\n%s", traceback.format_exc())
            self.gauges.num_errors += 1
            self._recover(f"the engine failed on this request: {type(e).__name__}: {e}", batch)
            return
        self.gauges.num_steps += 1
        self.gauges.max_batch_requests = max(self.gauges.max_batch_requests, len(result.req_ids))
        # The requests whose tokens reached the host now: one step after they were computed under async scheduling
        # (engine/engine_core.py); ids of requests that ended meanwhile are skipped there.
        processed = self.processor.process_outputs([*result.req_ids, *(r.request_id for r in finished)])
        core.abort_requests(processed.reqs_to_abort)  # a stop string ended them: free their KV blocks now
        batch.deltas.extend(processed.deltas)
        if core.scheduler.solo is not None:
            self._advance_isolation()

    # ---- a failed step -------------------------------------------------------------------------------
    def _recover(self, message: str, batch: Batch) -> None:
        sched = self.core.scheduler
        try:
            ran = self.core.recover()
        except Exception:
            log.error("recovering from the failed step failed:\n%s", traceback.format_exc())
            self._fail_everything("the engine failed and could not recover: " + message, 500, batch)
            return
        solo = sched.solo
        if solo is not None:  # the request that ran alone failed the step: it is the one
            self._fail(solo, message, batch)
            self._next_suspect()
            return
        for rid in ran:
            self._strikes[rid] = self._strikes.get(rid, 0) + 1
        guilty = ran if len(ran) == 1 else [rid for rid in ran if self._strikes[rid] >= MAX_STRIKES]
        for rid in guilty:
            self._fail(rid, message, batch)
        self._suspects.extend(rid for rid in ran if rid not in guilty)
        self._next_suspect()

    def _next_suspect(self) -> None:
        sched = self.core.scheduler
        while self._suspects:
            rid = self._suspects.popleft()
            req = sched.requests.get(rid)
            if req is not None:
                self._solo_outputs = req.num_output_tokens
                sched.isolate(rid)
                return
        sched.isolate(None)

    def _advance_isolation(self) -> None:
        """The isolated request is cleared once it produced a token alone (or ended)."""
        sched = self.core.scheduler
        req = sched.requests.get(sched.solo) if sched.solo is not None else None
        if req is None or req.num_output_tokens > self._solo_outputs:
            self._next_suspect()

    def _fail(self, rid: str, message: str, batch: Batch) -> None:
        state = self.processor.abort_request(rid)
        self.core.abort_requests([rid])
        self._strikes.pop(rid, None)
        prompt, sent = (state.request.num_prompt_tokens, state.sent_tokens) if state is not None else (0, 0)
        batch.failures.append(Failure(rid, 500, message, prompt, sent))

    def _fail_everything(self, message: str, status: int, batch: Batch) -> None:
        rids = list(self.processor.states)
        try:
            self.core.abort_requests(rids)
        except Exception:
            log.error("aborting every request failed:\n%s", traceback.format_exc())
        for rid in rids:
            state = self.processor.abort_request(rid)
            assert state is not None
            batch.failures.append(Failure(rid, status, message, state.request.num_prompt_tokens, state.sent_tokens))
        with self._cond:  # adds that never reached the engine
            pending, self._commands = self._commands, []
        for command in pending:
            if command[0] == "add":
                batch.failures.append(Failure(command[1], status, message, len(command[2])))

    def _with_gauges(self, batch: Batch) -> Batch:
        sched = self.core.scheduler
        g = self.gauges
        g.num_running, g.num_waiting = len(sched.running), len(sched.waiting)
        g.kv_usage = sched.kv.usage
        g.prefix_queries, g.prefix_hits = sched.kv.prefix_queries, sched.kv.prefix_hits
        g.num_preemptions = sched.num_preemptions
        batch.gauges = Gauges(**vars(g))
        return batch
