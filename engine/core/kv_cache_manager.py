"""KVCacheManager: which blocks each request owns, and the prefix cache over chained block hashes.

A full block's hash is sha256(parent block's hash + its token ids), so equal hashes mean equal whole
prefixes, not just equal blocks. A lookup stops one token short of the request's end: a full-prompt
hit still computes its last token, whose logits the first sample needs.
"""

from __future__ import annotations

import hashlib
from array import array

from engine.core.block_pool import BlockPool, KVCacheBlock
from engine.core.request import Request
from engine.utils import cdiv

_ROOT_HASH = b"engine-prefix-cache-v1"


def hash_block_tokens(parent_hash: bytes | None, token_ids: list[int]) -> bytes:
    return hashlib.sha256((parent_hash or _ROOT_HASH) + array("q", token_ids).tobytes()).digest()


class KVCacheManager:
    def __init__(self, num_blocks: int, block_size: int, enable_caching: bool = True) -> None:
        self.block_size = block_size
        self.enable_caching = enable_caching
        self.pool = BlockPool(num_blocks)
        self.req_blocks: dict[str, list[KVCacheBlock]] = {}
        self._num_cached: dict[str, int] = {}  # leading blocks of a request registered in the cache
        self.prefix_queries = 0  # prompt tokens looked up (admitted requests)
        self.prefix_hits = 0  # of those, tokens served from the cache

    @property
    def num_free_blocks(self) -> int:
        return self.pool.num_free_blocks

    @property
    def usage(self) -> float:
        return 1.0 - self.pool.num_free_blocks / self.pool.num_blocks

    def get_block_ids(self, request_id: str) -> list[int]:
        return [b.block_id for b in self.req_blocks.get(request_id, [])]

    def _update_hashes(self, req: Request, num_tokens: int) -> None:
        bs = self.block_size
        hashes = req.block_hashes
        for i in range(len(hashes), num_tokens // bs):
            hashes.append(hash_block_tokens(hashes[-1] if hashes else None, req.all_token_ids[i * bs : (i + 1) * bs]))

    def get_computed_blocks(self, req: Request) -> tuple[list[KVCacheBlock], int]:
        """Longest cached prefix of full blocks, leaving at least one token to compute. No refs taken."""
        if not self.enable_caching:
            return [], 0
        max_blocks = (req.num_tokens - 1) // self.block_size
        self._update_hashes(req, max_blocks * self.block_size)
        hits: list[KVCacheBlock] = []
        for h in req.block_hashes[:max_blocks]:
            block = self.pool.get_cached_block(h)
            if block is None:
                break
            hits.append(block)
        return hits, len(hits) * self.block_size

    def record_prefix_lookup(self, num_tokens: int, num_hit_tokens: int) -> None:
        self.prefix_queries += num_tokens
        self.prefix_hits += num_hit_tokens

    def allocate_slots(
        self, req: Request, num_new_tokens: int, new_computed_blocks: list[KVCacheBlock] | None = None
    ) -> list[KVCacheBlock] | None:
        """Make room for num_new_tokens more tokens after the computed ones (+ prefix hits).

        Returns the newly allocated blocks, or None (and changes nothing) when the pool is short.
        """
        hits = new_computed_blocks or []
        blocks = self.req_blocks.get(req.request_id, [])
        total = req.num_computed_tokens + len(hits) * self.block_size + num_new_tokens
        num_new_blocks = max(0, cdiv(total, self.block_size) - len(blocks) - len(hits))
        hits_on_free_list = sum(1 for b in hits if b.ref_cnt == 0)
        if num_new_blocks > self.pool.num_free_blocks - hits_on_free_list:
            return None
        if req.request_id not in self.req_blocks:
            self.req_blocks[req.request_id] = blocks
            self._num_cached[req.request_id] = len(hits)
        self.pool.touch(hits)
        blocks.extend(hits)
        new_blocks = self.pool.allocate(num_new_blocks)
        blocks.extend(new_blocks)
        if self.enable_caching:
            # Blocks full of known tokens become findable now; their KV is written in this step, before
            # any request that hits them can be scheduled after it in the same batch reads them.
            num_full = min(total, req.num_tokens) // self.block_size
            self._update_hashes(req, num_full * self.block_size)
            for i in range(self._num_cached[req.request_id], num_full):
                self.pool.cache_block(blocks[i], req.block_hashes[i])
            self._num_cached[req.request_id] = max(num_full, self._num_cached[req.request_id])
        return new_blocks

    def free(self, req: Request, num_valid_tokens: int | None = None) -> None:
        """Return a request's blocks; tail blocks first so shared prefixes stay cached longest.

        num_valid_tokens: tokens whose KV was really written. A request preempted after being scheduled
        in the current step had blocks registered for KV that will never be written: those lose their hash.
        """
        blocks = self.req_blocks.pop(req.request_id, [])
        self._num_cached.pop(req.request_id, None)
        if num_valid_tokens is not None:
            for block in blocks[num_valid_tokens // self.block_size :]:
                self.pool.uncache(block)
        self.pool.free(reversed(blocks))

    def reset_prefix_cache(self) -> None:
        self.pool.reset_prefix_cache()
