"""Scheduler: continuous batching under a token budget, decode first, chunked prefill, preemption.

Each step: (1) running requests with one token left (decodes), (2) running requests still in prefill
(next chunk), (3) waiting requests in arrival order (preempted ones sit at the front), while the token
budget (max_num_batched_tokens) and max_num_seqs allow. When the block pool runs dry for a running
request, the newest running request is preempted by recompute: its blocks go back to the pool, it goes
to the front of the waiting queue and later recomputes prompt + generated tokens (prefix-cache hits
make that cheap when its blocks were not reused meanwhile).

Tokens in flight: a step that samples for a request adds a placeholder (`Request.num_output_placeholders`) and the
step's output, processed later, replaces it with the token. Synchronously that is the same step; under async
scheduling (engine/engine_core.py) the next step is scheduled first, on the assumption that every request in flight
produced its token, whose id only the device knows yet (the runner feeds it from its slot, engine/worker/state.py).
A stop found in a late token ends the request then: the token its next step already computed is dropped, and a
request whose tokens in flight already reach max_tokens or the context is not scheduled again.
"""

from __future__ import annotations

import heapq
import time
from collections import deque
from collections.abc import Iterable

from engine.core.kv_cache_manager import KVCacheManager
from engine.core.request import Request, RequestStatus
from engine.core.sched_output import CachedRequestData, ModelRunnerOutput, NewRequestData, SchedulerOutput
from engine.errors import EngineError


class Scheduler:
    def __init__(
        self,
        *,
        max_num_seqs: int,
        max_num_batched_tokens: int,
        max_model_len: int,
        num_blocks: int,
        block_size: int,
        enable_prefix_caching: bool = True,
        enable_chunked_prefill: bool = True,
    ) -> None:
        if num_blocks * block_size < max_model_len:
            raise EngineError(
                f"the KV cache holds {num_blocks} blocks x {block_size} tokens = "
                f"{num_blocks * block_size} tokens, less than max_model_len={max_model_len}: "
                f"one request could never fit; lower max_model_len, or give the cache more blocks "
                f"(num_blocks / --num-blocks, cpu_kv_cache_gib on CPU, gpu_memory_utilization on CUDA)"
            )
        self.max_num_seqs = max_num_seqs
        self.max_num_batched_tokens = max_num_batched_tokens
        self.max_model_len = max_model_len
        self.block_size = block_size
        self.enable_chunked_prefill = enable_chunked_prefill
        self.kv = KVCacheManager(num_blocks, block_size, enable_prefix_caching)
        self.requests: dict[str, Request] = {}
        self.waiting: deque[Request] = deque()
        self.running: list[Request] = []  # admission order: the last one is the newest
        self._free_slots = list(range(max_num_seqs))  # min-heap: lowest free slot first
        self._finished_since_last_step: set[str] = set()
        self.num_preemptions = 0
        self.num_steps = 0  # SchedulerOutputs handed out; the next one's step_id
        self.solo: str | None = None  # after a failed step: the one request scheduled, alone (isolate())

    # ---- requests in and out -------------------------------------------------------------------
    def add_request(self, req: Request) -> None:
        if req.request_id in self.requests:
            raise EngineError(f"request id {req.request_id!r} is already in the engine")
        if req.num_tokens > self.max_model_len:
            raise EngineError(
                f"prompt of request {req.request_id!r} has {req.num_tokens} tokens, "
                f"more than max_model_len={self.max_model_len}"
            )
        self.requests[req.request_id] = req
        self.waiting.append(req)

    def abort_requests(self, request_ids: Iterable[str]) -> None:
        for rid in request_ids:
            req = self.requests.get(rid)
            if req is not None:
                self._finish(req, RequestStatus.FINISHED_ABORTED)

    def has_unfinished_requests(self) -> bool:
        return bool(self.waiting or self.running)

    @property
    def num_unfinished_requests(self) -> int:
        return len(self.waiting) + len(self.running)

    def _finish(self, req: Request, status: RequestStatus) -> None:
        req.status = status
        req.metrics.finished_time = time.perf_counter()
        if req.slot is not None:
            self.running.remove(req)
            self._release_slot(req)
            self._finished_since_last_step.add(req.request_id)
        else:
            self.waiting.remove(req)
        self.kv.free(req)
        del self.requests[req.request_id]

    def _release_slot(self, req: Request) -> None:
        heapq.heappush(self._free_slots, _slot_of(req))
        req.slot = None

    # ---- after a failed step (engine/serve/engine_loop.py finds the request that failed it) ------------
    def requeue_running(self) -> list[str]:
        """Send every running request back to waiting, to recompute from its first token: its blocks are freed and
        the prefix cache forgotten (what the failed step wrote is not trusted). The caller dropped the steps in
        flight (EngineCore.recover), so no token is in flight any more. Returns their ids, oldest first."""
        for req in self.requests.values():
            req.num_output_placeholders = 0
        requeued = list(self.running)
        for req in reversed(requeued):  # newest first to the front, so the oldest ends up first
            self.running.remove(req)
            self.kv.free(req, num_valid_tokens=0)
            self._release_slot(req)
            req.status = RequestStatus.PREEMPTED
            req.num_computed_tokens = 0
            self.waiting.appendleft(req)
            self._finished_since_last_step.add(req.request_id)  # the runner drops their slots next step
        self.kv.reset_prefix_cache()
        return [r.request_id for r in requeued]

    def isolate(self, request_id: str | None) -> None:
        """Schedule only `request_id` from now on (None: everyone again); a waiting one moves to the front."""
        self.solo = request_id
        req = self.requests.get(request_id) if request_id is not None else None
        if req is not None and req in self.waiting:
            self.waiting.remove(req)
            self.waiting.appendleft(req)

    # ---- one step --------------------------------------------------------------------------------
    def schedule(self) -> SchedulerOutput:
        out = SchedulerOutput(step_id=self.num_steps, finished_req_ids=self._finished_since_last_step)
        self.num_steps += 1
        self._finished_since_last_step = set()
        new: dict[str, NewRequestData] = {}
        cached: dict[str, CachedRequestData] = {}
        budget = self.max_num_batched_tokens

        def preempt(victim: Request) -> None:
            nonlocal budget
            n = out.num_scheduled_tokens.pop(victim.request_id, 0)
            budget += n
            cached.pop(victim.request_id, None)
            self.running.remove(victim)
            self.kv.free(victim, num_valid_tokens=victim.num_computed_tokens)
            self._release_slot(victim)
            victim.status = RequestStatus.PREEMPTED
            victim.num_computed_tokens = 0
            victim.metrics.num_preemptions += 1
            self.num_preemptions += 1
            self.waiting.appendleft(victim)
            out.preempted_req_ids.add(victim.request_id)

        def schedule_running(req: Request) -> None:
            nonlocal budget
            n = min(_num_unscheduled(req), budget)
            if n <= 0 or self._reaches_length_in_flight(req):
                return
            while True:
                new_blocks = self.kv.allocate_slots(req, n)
                if new_blocks is not None:
                    break
                victim = self.running[-1]
                preempt(victim)
                if victim is req:
                    return
            cached[req.request_id] = CachedRequestData(
                req.request_id, _slot_of(req), [b.block_id for b in new_blocks], req.num_computed_tokens
            )
            out.num_scheduled_tokens[req.request_id] = n
            budget -= n

        snapshot = [r for r in self.running if self.solo is None or r.request_id == self.solo]
        for decode_pass in (True, False):
            for req in snapshot:
                if req.status is RequestStatus.RUNNING and (_num_unscheduled(req) == 1) == decode_pass:
                    schedule_running(req)

        # Admit waiting requests, unless this step had to preempt (admitting now would thrash).
        while not out.preempted_req_ids and self.waiting and budget > 0 and len(self.running) < self.max_num_seqs:
            req = self.waiting[0]
            if self.solo is not None and req.request_id != self.solo:
                break
            # A request preempted this step keeps its token in flight until the next update; admission waits.
            assert req.num_output_placeholders == 0, (req, "admitted with a token in flight")
            # Prompt logprobs need every prompt position computed: no prefix-cache hits for them (as vLLM).
            hits, num_hit = self.kv.get_computed_blocks(req) if req.prompt_logprobs is None else ([], 0)
            n = req.num_tokens - num_hit
            if n > budget:
                if not self.enable_chunked_prefill:
                    break
                n = budget
            if self.kv.allocate_slots(req, n, hits) is None:
                break
            self.waiting.popleft()
            self.kv.record_prefix_lookup(req.num_tokens, num_hit)
            req.status = RequestStatus.RUNNING
            req.slot = heapq.heappop(self._free_slots)
            req.num_computed_tokens = num_hit
            if req.first_step is None:
                req.first_step = out.step_id
            if req.metrics.first_scheduled_time is None:
                req.metrics.first_scheduled_time = time.perf_counter()
                req.metrics.num_cached_tokens = num_hit
            self.running.append(req)
            new[req.request_id] = NewRequestData(
                req.request_id,
                req.slot,
                list(req.all_token_ids),
                req.num_prompt_tokens,
                self.kv.get_block_ids(req.request_id),
                num_hit,
                req.sampling_params,
                req.sampling_seed,
            )
            out.num_scheduled_tokens[req.request_id] = n
            budget -= n

        out.scheduled_new_reqs = list(new.values())
        out.scheduled_cached_reqs = list(cached.values())
        out.total_num_scheduled_tokens = sum(out.num_scheduled_tokens.values())
        for rid, n in out.num_scheduled_tokens.items():
            req = self.requests[rid]
            req.num_computed_tokens += n
            if req.num_computed_tokens == req.num_tokens + req.num_output_placeholders:  # it samples this step
                req.num_output_placeholders += 1
        return out

    def _reaches_length_in_flight(self, req: Request) -> bool:
        """Whether the tokens in flight already reach max_tokens or the context, so another step would compute a
        token that is dropped (and, past the context, one no block table has room for). Never true synchronously."""
        if not req.num_output_placeholders:
            return False
        max_tokens = req.sampling_params.max_tokens
        return (
            max_tokens is not None and req.num_output_tokens + req.num_output_placeholders >= max_tokens
        ) or req.num_tokens + req.num_output_placeholders >= self.max_model_len

    def update_from_output(self, sched: SchedulerOutput, result: ModelRunnerOutput) -> list[Request]:
        """Append the sampled tokens of step `sched`, apply stop rules; returns the requests that finished now.

        A token is dropped when its request finished since that step was scheduled (a stop found one step late, an
        abort), or when the id now names a newer request, admitted after that step."""
        now = time.perf_counter()
        finished: list[Request] = []
        for rid, (first, entries) in result.prompt_logprobs.items():
            req = self.requests.get(rid)
            if req is not None and req.first_step is not None and req.first_step <= sched.step_id:
                req.add_prompt_logprobs(first, entries)
        logprobs = result.logprobs
        for i, (rid, token) in enumerate(zip(result.req_ids, result.sampled_token_ids)):
            req = self.requests.get(rid)
            if req is None or req.first_step is None or req.first_step > sched.step_id:
                continue
            assert req.num_output_placeholders > 0, (req, "a token arrived that no step was computing")
            req.num_output_placeholders -= 1
            # Preempted since: the token is still its own (sampled from a complete context); it is recomputed later.
            assert (
                req.status is not RequestStatus.RUNNING
                or req.num_computed_tokens == req.num_tokens + req.num_output_placeholders
            ), (req, "sampled mid-prompt")
            req.append_output_token(token, now, logprobs[i] if logprobs is not None else None)
            status = self._check_stop(req, token)
            if status is not None:
                self._finish(req, status)
                finished.append(req)
        return finished

    def _check_stop(self, req: Request, token: int) -> RequestStatus | None:
        sp = req.sampling_params
        early = req.num_output_tokens < sp.min_tokens  # before min_tokens nothing but the length ends it
        if not sp.ignore_eos and not early and token in req.eos_token_ids:
            return RequestStatus.FINISHED_STOPPED
        if not early and token in sp.stop_token_ids:
            req.stop_reason = token
            return RequestStatus.FINISHED_STOPPED
        if sp.max_tokens is not None and req.num_output_tokens >= sp.max_tokens:
            return RequestStatus.FINISHED_LENGTH
        if req.num_tokens >= self.max_model_len:
            return RequestStatus.FINISHED_LENGTH
        return None


def _num_unscheduled(req: Request) -> int:
    """Tokens not yet scheduled: the known ones not computed, plus the one still in flight (a decode input)."""
    return req.num_tokens + req.num_output_placeholders - req.num_computed_tokens


def _slot_of(req: Request) -> int:
    """The slot of a request that holds one (running); None there is a scheduler bug."""
    assert req.slot is not None, f"{req} holds no slot"
    return req.slot
