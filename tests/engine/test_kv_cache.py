"""KV cache manager and block pool: chained hashes, ref counts, LRU reuse, rollback of unwritten blocks."""

from __future__ import annotations

from engine.core.block_pool import BlockPool
from engine.core.kv_cache_manager import KVCacheManager, hash_block_tokens
from engine.core.request import Request
from engine.sampling_params import SamplingParams


def r(rid: str, tokens: list[int]) -> Request:
    return Request(rid, tokens, SamplingParams())


def test_block_hashes_are_chained():
    h_a = hash_block_tokens(None, [1, 2, 3, 4])
    h_b = hash_block_tokens(None, [9, 9, 9, 9])
    # The same block of tokens after different prefixes hashes differently.
    assert hash_block_tokens(h_a, [5, 6, 7, 8]) != hash_block_tokens(h_b, [5, 6, 7, 8])
    assert hash_block_tokens(h_a, [5, 6, 7, 8]) == hash_block_tokens(
        hash_block_tokens(None, [1, 2, 3, 4]), [5, 6, 7, 8]
    )


def test_same_block_after_a_different_prefix_is_not_a_hit():
    kv = KVCacheManager(num_blocks=8, block_size=4)
    a = r("a", [1, 2, 3, 4, 5, 6, 7, 8, 0])
    assert kv.allocate_slots(a, a.num_tokens) is not None
    b = r("b", [9, 9, 9, 9, 5, 6, 7, 8, 0])
    assert kv.get_computed_blocks(b)[1] == 0
    c = r("c", [1, 2, 3, 4, 5, 6, 7, 8, 1])
    hits, n = kv.get_computed_blocks(c)
    assert n == 8 and [x.block_id for x in hits] == kv.get_block_ids("a")[:2]


def test_ref_counts_shared_blocks_and_free():
    kv = KVCacheManager(num_blocks=8, block_size=4)
    a = r("a", list(range(10)))
    kv.allocate_slots(a, 10)
    b = r("b", list(range(9)))
    hits, n = kv.get_computed_blocks(b)
    kv.allocate_slots(b, b.num_tokens - n, hits)
    shared = kv.req_blocks["a"][:2]
    assert [x.ref_cnt for x in shared] == [2, 2] and kv.req_blocks["b"][:2] == shared
    assert kv.num_free_blocks == 8 - 3 - 1
    kv.free(a)
    assert [x.ref_cnt for x in shared] == [1, 1]
    kv.free(b)
    assert kv.num_free_blocks == 8 and all(x.ref_cnt == 0 for x in kv.pool.blocks)


def test_allocation_failure_changes_nothing():
    kv = KVCacheManager(num_blocks=4, block_size=4)
    a = r("a", list(range(12)))
    kv.allocate_slots(a, 12)
    b = r("b", list(range(100, 108)))
    assert kv.allocate_slots(b, 8) is None
    assert kv.num_free_blocks == 1 and "b" not in kv.req_blocks


def test_hits_on_free_blocks_count_against_the_free_pool():
    kv = KVCacheManager(num_blocks=4, block_size=4)
    a = r("a", list(range(9)))
    kv.allocate_slots(a, 9)
    kv.free(a)  # 3 blocks free, 2 of them cached
    b = r("b", list(range(9)) + list(range(50, 57)))  # 2 hit blocks + 8 new tokens = 2 more blocks
    hits, n = kv.get_computed_blocks(b)
    assert n == 8
    assert kv.allocate_slots(b, b.num_tokens - n, hits) is not None
    assert kv.num_free_blocks == 0
    kv.free(b)
    # 2 free hit blocks + 3 new blocks: the hits leave the free list, so only 2 remain for new blocks.
    c = r("c", list(range(9)) + list(range(60, 71)))
    hits, n = kv.get_computed_blocks(c)
    assert n == 8 and kv.allocate_slots(c, c.num_tokens - n, hits) is None
    d = r("d", list(range(9)) + list(range(60, 67)))  # 2 hits + 2 new = exactly the 4 blocks of the pool
    hits, n = kv.get_computed_blocks(d)
    assert kv.allocate_slots(d, d.num_tokens - n, hits) is not None and kv.num_free_blocks == 0


def test_free_uncaches_blocks_whose_kv_was_never_written():
    kv = KVCacheManager(num_blocks=8, block_size=4)
    a = r("a", list(range(12)))
    kv.allocate_slots(a, 12)  # registers 3 full blocks for KV written "this step"
    kv.free(a, num_valid_tokens=4)  # ... but it was preempted before the step ran
    assert kv.pool.num_cached_blocks == 1
    assert kv.get_computed_blocks(r("b", list(range(12)) + [99]))[1] == 4


def test_pool_lru_order_and_uncached_first():
    pool = BlockPool(4)
    blocks = pool.allocate(4)
    pool.cache_block(blocks[0], b"h0")
    pool.cache_block(blocks[1], b"h1")
    pool.free([blocks[1], blocks[0], blocks[2], blocks[3]])
    # Uncached blocks are reused before cached ones; among cached ones the least recently freed goes first.
    order = [b.block_id for b in pool.allocate(4)]
    assert order[:2] == [3, 2] and order[2:] == [1, 0]
    assert pool.num_cached_blocks == 0
