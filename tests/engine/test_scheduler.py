"""Scheduler specification, driven by a fake runner that 'samples' a fixed token (no model needed)."""

from __future__ import annotations

import pytest

from engine.core.request import Request, RequestStatus
from engine.core.sched_output import ModelRunnerOutput, SchedulerOutput
from engine.core.scheduler import Scheduler
from engine.errors import EngineError
from engine.sampling_params import SamplingParams

TOKEN = 7


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


def req(rid: str, n: int, max_tokens: int = 4, first: int = 100, **sp) -> Request:
    return Request(
        rid, list(range(first, first + n)), SamplingParams(max_tokens=max_tokens, **sp), eos_token_ids=frozenset({2})
    )


def fake_run(s: Scheduler, out: SchedulerOutput, token: int = TOKEN) -> ModelRunnerOutput:
    """Sample `token` for each scheduled request whose known tokens are now all computed."""
    ids = [r for r in out.num_scheduled_tokens if s.requests[r].num_computed_tokens == s.requests[r].num_tokens]
    return ModelRunnerOutput(ids, [token] * len(ids))


def run_to_end(s: Scheduler, max_steps: int = 500) -> list[SchedulerOutput]:
    outs = []
    while s.has_unfinished_requests():
        out = s.schedule()
        outs.append(out)
        s.update_from_output(out, fake_run(s, out))
        assert len(outs) < max_steps, "scheduler made no progress"
    return outs


def test_token_budget_and_chunked_prefill():
    s = make_scheduler(max_num_batched_tokens=16)
    long, short = req("long", 40), req("short", 5, first=900)
    s.add_request(long)
    s.add_request(short)
    outs = run_to_end(s)
    assert all(o.total_num_scheduled_tokens <= 16 for o in outs)
    assert outs[0].num_scheduled_tokens == {"long": 16}  # the long prompt is split across steps
    assert outs[1].num_scheduled_tokens == {"long": 16}
    assert outs[2].num_scheduled_tokens == {"long": 8, "short": 5}  # last chunk + the next prompt share a step
    assert long.output_token_ids == [TOKEN] * 4 and long.finish_reason == "length"


def test_no_chunking_waits_for_a_whole_prompt():
    s = make_scheduler(max_num_batched_tokens=64, enable_chunked_prefill=False)
    s.add_request(req("a", 40))
    s.add_request(req("b", 40, first=900))
    out = s.schedule()
    assert out.num_scheduled_tokens == {"a": 40}  # b does not fit in the remaining 24 tokens


def test_decode_first():
    s = make_scheduler(max_num_batched_tokens=8)
    s.add_request(req("a", 4, max_tokens=10))
    s.update_from_output(out := s.schedule(), fake_run(s, out))  # a prefilled, now decoding
    s.add_request(req("b", 30, max_tokens=2))
    for _ in range(3):
        out = s.schedule()
        rows = list(out.num_scheduled_tokens)
        assert rows[0] == "a" and out.num_scheduled_tokens["a"] == 1  # the decode goes first, every step
        assert out.num_scheduled_tokens["b"] == 7  # the prefill gets what is left
        s.update_from_output(out, fake_run(s, out))


def test_max_num_seqs_and_stable_unique_slots():
    s = make_scheduler(max_num_seqs=3)
    reqs = [req(f"r{i}", 3, max_tokens=3 + i) for i in range(6)]
    for r in reqs:
        s.add_request(r)
    seen: dict[str, int] = {}
    while s.has_unfinished_requests():
        out = s.schedule()
        assert len(s.running) <= 3
        slots = [r.slot for r in s.running]
        assert len(set(slots)) == len(slots) and all(0 <= x < 3 for x in slots)
        for r in s.running:
            assert seen.setdefault(r.request_id, r.slot) == r.slot  # a slot for the request's lifetime
        s.update_from_output(out, fake_run(s, out))
    assert [len(r.output_token_ids) for r in reqs] == [3, 4, 5, 6, 7, 8]


def test_every_block_returns_after_finish_and_abort():
    s = make_scheduler(num_blocks=40, enable_prefix_caching=False)
    rs = [req(f"r{i}", 9 + i, max_tokens=5) for i in range(4)]
    for r in rs:
        s.add_request(r)
    out = s.schedule()
    s.update_from_output(out, fake_run(s, out))
    assert s.kv.num_free_blocks < 40
    s.abort_requests(["r1", "r3"])
    assert rs[1].status is RequestStatus.FINISHED_ABORTED
    out = s.schedule()
    assert out.finished_req_ids == {"r1", "r3"} and set(out.num_scheduled_tokens) == {"r0", "r2"}
    s.update_from_output(out, fake_run(s, out))
    run_to_end(s)
    assert s.kv.num_free_blocks == 40 and not s.kv.req_blocks
    assert sorted(s._free_slots) == list(range(8))


def test_abort_waiting_request():
    s = make_scheduler(max_num_seqs=1)
    s.add_request(req("a", 4))
    s.add_request(req("b", 4))
    s.schedule()
    s.abort_requests(["b", "unknown"])
    assert [r.request_id for r in s.waiting] == [] and "b" not in s.requests


def test_prefix_hits_counted_and_full_hit_computes_one_token():
    s = make_scheduler(block_size=4)
    shared = list(range(100, 112))  # 3 full blocks
    a = Request("a", shared + [1, 2], SamplingParams(max_tokens=1))
    s.add_request(a)
    run_to_end(s)
    b = Request("b", shared + [3, 4, 5], SamplingParams(max_tokens=1))
    c = Request("c", list(shared), SamplingParams(max_tokens=1))  # the whole prompt is cached
    s.add_request(b)
    s.add_request(c)
    out = s.schedule()
    assert b.metrics.num_cached_tokens == 12 and out.num_scheduled_tokens["b"] == 3
    assert c.metrics.num_cached_tokens == 8 and out.num_scheduled_tokens["c"] == 4  # >= 1 token computed
    assert s.kv.prefix_hits == 20 and s.kv.prefix_queries == 14 + 15 + 12
    s.update_from_output(out, fake_run(s, out))
    assert s.kv.num_free_blocks == 64


def test_cached_blocks_survive_free_until_evicted():
    s = make_scheduler(num_blocks=16, block_size=4, max_model_len=64)
    s.add_request(Request("a", list(range(100, 116)), SamplingParams(max_tokens=1)))
    run_to_end(s)
    assert s.kv.pool.num_cached_blocks == 4 and s.kv.num_free_blocks == 16  # freed, yet still cached
    s.add_request(Request("f1", list(range(500, 548)), SamplingParams(max_tokens=1)))  # 12 blocks: the unused ones
    run_to_end(s)
    assert s.kv.pool.num_cached_blocks == 4 + 12
    s.add_request(b := Request("b", list(range(100, 116)), SamplingParams(max_tokens=1)))
    run_to_end(s)
    assert b.metrics.num_cached_tokens == 12  # still cached (only the last token is recomputed)
    # 14 new blocks: the 12 uncached-or-least-recent blocks, then the LRU cached ones, tail blocks first.
    s.add_request(Request("f2", list(range(700, 756)), SamplingParams(max_tokens=1)))
    run_to_end(s)
    s.add_request(c := Request("c", list(range(100, 116)), SamplingParams(max_tokens=1)))
    s.schedule()
    assert c.metrics.num_cached_tokens == 8


def test_preemption_by_recompute_resumes():
    # 12 blocks of 4 tokens = 48 slots; three requests growing to 16 tokens each cannot all stay.
    s = make_scheduler(num_blocks=12, block_size=4, max_model_len=48, enable_prefix_caching=False)
    rs = [req(f"r{i}", 8, max_tokens=10, first=100 * (i + 1)) for i in range(3)]
    for r in rs:
        s.add_request(r)
    outs = run_to_end(s)
    preempted = [rid for o in outs for rid in o.preempted_req_ids]
    assert preempted and preempted[0] == "r2"  # the newest running request goes first
    first = next(o for o in outs if o.preempted_req_ids)
    resumed = next(o for o in outs[outs.index(first) + 1 :] if any(n.req_id == "r2" for n in o.scheduled_new_reqs))
    data = next(n for n in resumed.scheduled_new_reqs if n.req_id == "r2")
    assert data.token_ids[:8] == rs[2].prompt_token_ids and len(data.token_ids) > 8  # prompt + generated so far
    assert data.num_computed_tokens == 0
    assert all(r.output_token_ids == [TOKEN] * 10 for r in rs)
    assert rs[2].metrics.num_preemptions >= 1
    assert s.kv.num_free_blocks == 12


def test_preempting_a_request_scheduled_this_step_unschedules_it():
    s = make_scheduler(num_blocks=6, block_size=4, max_model_len=24, max_num_batched_tokens=64)
    a, b = req("a", 12, max_tokens=20), req("b", 7, max_tokens=20, first=300)
    s.add_request(a)
    s.update_from_output(o := s.schedule(), fake_run(s, o))  # a: 12 prompt tokens (3 blocks) + 1 sampled
    s.add_request(b)
    s.update_from_output(o := s.schedule(), fake_run(s, o))  # a decodes, b prefills 7 (2 blocks)
    # Steps go on until b (decoding, scheduled first) must be dropped so that a can grow.
    while not (o := s.schedule()).preempted_req_ids:
        s.update_from_output(o, fake_run(s, o))
    assert o.preempted_req_ids == {"b"} and "b" not in o.num_scheduled_tokens
    assert o.total_num_scheduled_tokens == sum(o.num_scheduled_tokens.values())
    assert all(c.req_id != "b" for c in o.scheduled_cached_reqs)
    s.update_from_output(o, fake_run(s, o))
    run_to_end(s)
    assert len(a.output_token_ids) == 12 and a.finish_reason == "length"  # a reached max_model_len
    assert b.output_token_ids == [TOKEN] * 17 and s.kv.num_free_blocks == 6


@pytest.mark.parametrize(
    "kw,token,reason,n",
    [
        ({}, 2, "stop", 1),  # EOS
        ({"ignore_eos": True}, 2, "length", 4),
        ({"stop_token_ids": [9]}, 9, "stop", 1),
        ({}, TOKEN, "length", 4),  # max_tokens
    ],
)
def test_stop_rules(kw, token, reason, n):
    s = make_scheduler()
    r = req("a", 3, max_tokens=4, **kw)
    s.add_request(r)
    while s.has_unfinished_requests():
        o = s.schedule()
        s.update_from_output(o, fake_run(s, o, token))
    assert r.finish_reason == reason and len(r.output_token_ids) == n
    assert r.stop_reason == (9 if "stop_token_ids" in kw else None)


def test_context_length_ends_generation_and_long_prompt_is_rejected():
    s = make_scheduler(max_model_len=10)
    r = req("a", 8, max_tokens=None)
    s.add_request(r)
    run_to_end(s)
    assert r.num_tokens == 10 and r.finish_reason == "length"
    with pytest.raises(EngineError, match="more than max_model_len=10"):
        s.add_request(req("b", 11))


def test_pool_smaller_than_one_request_is_refused():
    with pytest.raises(EngineError, match="less than max_model_len"):
        make_scheduler(num_blocks=3, block_size=4, max_model_len=16)
