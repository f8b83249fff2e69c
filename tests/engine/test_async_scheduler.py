"""The scheduler with tokens in flight (async scheduling), driven by a fake runner one or two steps deep.

The fake runner "samples" a token that is a pure function of (request, position), as greedy decoding of a fixed
model is, so a run one step deep (synchronous) and a run two steps deep (async: step N+1 scheduled before step N's
tokens are known) must produce the same tokens and finish reasons, whatever the preemptions, chunks and prefix hits.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.request import Request, RequestStatus
from engine.core.sched_output import ModelRunnerOutput, SchedulerOutput
from engine.core.scheduler import Scheduler
from engine.sampling_params import SamplingParams

EOS = 2
Token = Callable[[str, int], int]  # (request id, position of the sampled token) -> token id


def make_scheduler(**kw) -> Scheduler:
    args = dict(
        max_num_seqs=8,
        max_num_batched_tokens=64,
        max_model_len=64,
        num_blocks=64,
        block_size=4,
        enable_prefix_caching=True,
        enable_chunked_prefill=True,
    )
    args.update(kw)
    return Scheduler(**args)


def req(rid: str, n: int, max_tokens: int | None = 4, first: int = 100, **sp) -> Request:
    return Request(
        rid, list(range(first, first + n)), SamplingParams(max_tokens=max_tokens, **sp), eos_token_ids=frozenset({EOS})
    )


def plain(rid: str, pos: int) -> int:
    return 1000 + pos


class FakeEngine:
    """EngineCore.step's pipeline over a fake runner: schedule + "launch", then update the oldest step once `depth`
    are in flight. Records every token the runner produced, dropped ones included."""

    def __init__(self, s: Scheduler, depth: int, token: Token = plain) -> None:
        self.s, self.depth, self.token = s, depth, token
        self.in_flight: deque[tuple[SchedulerOutput, ModelRunnerOutput]] = deque()
        self.sampled: dict[str, int] = {}  # request id -> tokens the runner produced for it
        self.outputs: list[SchedulerOutput] = []

    def launch(self) -> SchedulerOutput:
        before = {rid: r.num_output_placeholders for rid, r in self.s.requests.items()}
        out = self.s.schedule()
        self.outputs.append(out)
        # The rows that sample are the ones this schedule gave a placeholder.
        ids = [
            rid for rid in out.num_scheduled_tokens if self.s.requests[rid].num_output_placeholders > before.get(rid, 0)
        ]
        for rid in ids:
            self.sampled[rid] = self.sampled.get(rid, 0) + 1
        result = ModelRunnerOutput(ids, [self.token(rid, self.s.requests[rid].num_computed_tokens) for rid in ids])
        if not out.is_empty:
            self.in_flight.append((out, result))
        return out

    def process(self) -> list[Request]:
        out, result = self.in_flight.popleft()
        return self.s.update_from_output(out, result)

    def step(self) -> list[Request]:
        out = self.launch()
        if not out.is_empty and len(self.in_flight) < self.depth:
            return []
        return self.process() if self.in_flight else []

    def run(self, max_steps: int = 2000) -> None:
        for _ in range(max_steps):
            if not self.s.has_unfinished_requests():
                while self.in_flight:  # what is left only holds tokens to drop
                    self.process()
                return
            self.step()
        raise AssertionError("no progress")


def assert_clean(s: Scheduler) -> None:
    assert s.kv.num_free_blocks == s.kv.pool.num_blocks and not s.kv.req_blocks
    assert sorted(s._free_slots) == list(range(s.max_num_seqs)) and not s.requests


def test_a_decoding_request_is_scheduled_again_before_its_token_arrives() -> None:
    s = make_scheduler()
    a = req("a", 5, max_tokens=10)
    s.add_request(a)
    e = FakeEngine(s, depth=2)
    assert e.step() == [] and a.num_output_placeholders == 1 and a.num_computed_tokens == 5
    second = e.launch()  # prefill's token unknown on the host: its position goes anyway
    assert second.num_scheduled_tokens == {"a": 1} and [c.req_id for c in second.scheduled_cached_reqs] == ["a"]
    assert a.num_output_placeholders == 2 and a.num_computed_tokens == 6 and a.num_tokens == 5
    e.process()  # the prefill's token arrives
    assert a.output_token_ids == [1000 + 5] and a.num_output_placeholders == 1


def test_a_late_stop_drops_the_extra_token_and_frees_everything() -> None:
    def eos_at_7(rid: str, pos: int) -> int:
        return EOS if pos == 7 else 1000 + pos

    s = make_scheduler()
    a = req("a", 5, max_tokens=10)
    s.add_request(a)
    e = FakeEngine(s, depth=2, token=eos_at_7)
    finished = []
    while not finished:
        finished = e.step()
    assert finished == [a] and a.finish_reason == "stop" and a.output_token_ids == [1005, 1006, EOS]
    assert e.sampled["a"] == 4 and len(e.in_flight) == 1  # the step after the EOS already ran: its token is dropped
    e.process()
    assert a.output_token_ids == [1005, 1006, EOS]
    assert_clean(s)
    assert e.launch().finished_req_ids == {"a"}  # the runner hears of it in the next step


def test_tokens_in_flight_at_max_tokens_are_not_scheduled_again() -> None:
    s = make_scheduler()
    a, b = req("a", 5, max_tokens=1), req("b", 3, max_tokens=3, first=300)
    s.add_request(a)
    s.add_request(b)
    e = FakeEngine(s, depth=2)
    e.run()
    assert a.output_token_ids == [1005] and b.output_token_ids == [1003, 1004, 1005]
    assert e.sampled == {"a": 1, "b": 3}  # not one token computed past max_tokens
    assert_clean(s)


def test_tokens_in_flight_at_the_context_length_are_not_scheduled_again() -> None:
    s = make_scheduler(max_model_len=10)
    a = req("a", 8, max_tokens=None)
    s.add_request(a)
    e = FakeEngine(s, depth=2)
    e.run()
    assert a.num_tokens == 10 and a.finish_reason == "length" and e.sampled["a"] == 2
    assert sum(o.num_scheduled_tokens.get("a", 0) for o in e.outputs) == 9  # positions 0..8: none past the context
    assert_clean(s)


def test_a_token_in_flight_when_its_request_is_preempted_is_kept() -> None:
    # 6 blocks of 4: a (12 prompt tokens) and b (7) fill 5; growing, one of them must go.
    s = make_scheduler(num_blocks=6, block_size=4, max_model_len=24, enable_prefix_caching=False)
    a, b = req("a", 12, max_tokens=20), req("b", 7, max_tokens=20, first=300)
    s.add_request(a)
    e = FakeEngine(s, depth=2)
    e.step()
    s.add_request(b)
    while True:
        out = e.launch()
        if out.preempted_req_ids:
            break
        e.process()
    assert out.preempted_req_ids == {"b"} and b.status is RequestStatus.PREEMPTED
    assert b.num_output_placeholders == 1 and b.num_computed_tokens == 0  # its last token is still in flight
    known = list(b.output_token_ids)
    e.process()
    assert b.output_token_ids == known + [1000 + len(b.prompt_token_ids) + len(known)]  # kept, not recomputed
    assert b.num_output_placeholders == 0
    e.run()
    assert a.output_token_ids == [1000 + p for p in range(12, 24)] and a.finish_reason == "length"
    assert b.output_token_ids == [1000 + p for p in range(7, 24)] and b.metrics.num_preemptions >= 1
    assert_clean(s)


def test_a_late_token_never_reaches_a_new_request_under_the_same_id() -> None:
    s = make_scheduler()
    old = req("x", 4, max_tokens=10)
    s.add_request(old)
    e = FakeEngine(s, depth=2)
    e.step()
    e.step()  # x decoding, one step in flight
    e.launch()  # and a second
    s.abort_requests(["x"])
    new = req("x", 6, max_tokens=2, first=500)
    s.add_request(new)
    e.process()  # x's old tokens arrive: dropped
    e.run()
    assert new.output_token_ids == [1006, 1007] and new.finish_reason == "length"
    assert_clean(s)


def test_sync_never_holds_more_than_one_token_in_flight() -> None:
    s = make_scheduler(max_num_batched_tokens=16)
    rs = [req(f"r{i}", 5 + 7 * i, max_tokens=3 + i) for i in range(4)]
    for r in rs:
        s.add_request(r)
    e = FakeEngine(s, depth=1)
    while s.has_unfinished_requests():
        e.step()
        assert all(r.num_output_placeholders == 0 for r in rs)
    assert [len(r.output_token_ids) for r in rs] == [3, 4, 5, 6]


@st.composite
def workloads(draw: st.DrawFn) -> dict:
    n = draw(st.integers(1, 7))
    prompts = [draw(st.integers(1, 30)) for _ in range(n)]
    shared = draw(st.booleans())  # a common prefix: prefix-cache hits
    return {
        "prompts": [
            list(range(100, 100 + p)) if shared else list(range(100 * (i + 1), 100 * (i + 1) + p))
            for i, p in enumerate(prompts)
        ],
        "max_tokens": [draw(st.one_of(st.none(), st.integers(1, 12))) for _ in range(n)],
        "stop_at": [draw(st.one_of(st.none(), st.integers(1, 40))) for _ in range(n)],  # EOS at this position
        "stop_ids": [draw(st.booleans()) for _ in range(n)],  # or a stop token id
        "ignore_eos": [draw(st.booleans()) for _ in range(n)],
        "budget": draw(st.sampled_from([8, 16, 64])),
        "num_blocks": draw(st.sampled_from([12, 16, 64])),
        "max_num_seqs": draw(st.sampled_from([1, 3, 8])),
        "prefix_caching": draw(st.booleans()),
        "chunked": draw(st.booleans()),
        "aborts": draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(1, 20)), max_size=2)),
    }


def run_workload(w: dict, depth: int) -> tuple[dict, FakeEngine]:
    budget = w["budget"] if w["chunked"] else 64  # unchunked, a whole prompt must fit in one step
    s = make_scheduler(
        max_num_seqs=w["max_num_seqs"],
        max_num_batched_tokens=budget,
        max_model_len=48,
        num_blocks=w["num_blocks"],
        enable_prefix_caching=w["prefix_caching"],
        enable_chunked_prefill=w["chunked"],
    )
    stop_at = {str(i): p for i, p in enumerate(w["stop_at"]) if p is not None}

    def token(rid: str, pos: int) -> int:
        # 9 is a stop token id for requests that ask for it; EOS ends the others unless they ignore it.
        return (9 if w["stop_ids"][int(rid)] else EOS) if stop_at.get(rid) == pos else 1000 + pos

    reqs = []
    for i, (p, m) in enumerate(zip(w["prompts"], w["max_tokens"])):
        r = Request(
            str(i),
            p,
            SamplingParams(max_tokens=m, ignore_eos=w["ignore_eos"][i], stop_token_ids=[9] if w["stop_ids"][i] else []),
            eos_token_ids=frozenset({EOS}),
        )
        s.add_request(r)
        reqs.append(r)
    e = FakeEngine(s, depth, token)
    aborts = {str(i): k for i, k in w["aborts"]}  # abort once the request has this many output tokens
    for _ in range(3000):
        if not s.has_unfinished_requests():
            break
        e.step()
        for r in reqs:
            if r.request_id in aborts and not r.status.finished and r.num_output_tokens >= aborts[r.request_id]:
                s.abort_requests([r.request_id])
    else:
        raise AssertionError("no progress")
    while e.in_flight:
        e.process()
    assert_clean(s)
    return {r.request_id: (r.output_token_ids, r.finish_reason, r.stop_reason) for r in reqs}, e


@settings(max_examples=150, deadline=None)
@given(workloads())
def test_two_steps_deep_gives_what_one_step_deep_gives(w: dict) -> None:
    sync, _ = run_workload(w, depth=1)
    async_, e = run_workload(w, depth=2)
    for rid, (tokens, reason, stop_reason) in async_.items():
        if "abort" in (reason, sync[rid][1]):  # the host saw a different number of tokens when it aborted
            shorter, longer = sorted((tokens, sync[rid][0]), key=len)
            assert longer[: len(shorter)] == shorter
        else:
            assert (tokens, reason, stop_reason) == sync[rid]
        dropped = e.sampled.get(rid, 0) - len(tokens)
        # A stop seen one step late costs one token; a length limit costs none (an abort may cut any number).
        assert dropped >= 0 and (dropped <= 1 or reason == "abort")
        if reason == "length" and not w["aborts"]:
            assert dropped == 0
