"""BlockPool: the physical KV blocks, their ref counts, the LRU free list and the prefix-cache index.

A block whose ref count drops to 0 keeps its hash and stays findable by prefix lookups until it is
reused for new tokens (evicted): the free list is ordered least-recently-freed first, and blocks
without a hash go to its front because nothing can hit them.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable


class KVCacheBlock:
    __slots__ = ("block_id", "ref_cnt", "block_hash")

    def __init__(self, block_id: int) -> None:
        self.block_id = block_id
        self.ref_cnt = 0
        self.block_hash: bytes | None = None

    def __repr__(self) -> str:
        return f"KVCacheBlock({self.block_id}, ref={self.ref_cnt}, cached={self.block_hash is not None})"


class BlockPool:
    def __init__(self, num_blocks: int) -> None:
        self.num_blocks = num_blocks
        self.blocks = [KVCacheBlock(i) for i in range(num_blocks)]
        self._free: OrderedDict[int, KVCacheBlock] = OrderedDict((b.block_id, b) for b in self.blocks)
        self._cached: dict[bytes, KVCacheBlock] = {}

    @property
    def num_free_blocks(self) -> int:
        """Blocks with ref count 0 (cached ones included: they are reusable)."""
        return len(self._free)

    @property
    def num_cached_blocks(self) -> int:
        return len(self._cached)

    def get_cached_block(self, block_hash: bytes) -> KVCacheBlock | None:
        return self._cached.get(block_hash)

    def allocate(self, n: int) -> list[KVCacheBlock]:
        """Take n blocks from the LRU end of the free list; a cached one loses its hash (evicted)."""
        if n > len(self._free):
            raise RuntimeError(f"allocate({n}) with {len(self._free)} free blocks")
        out = []
        for _ in range(n):
            _, block = self._free.popitem(last=False)
            self.uncache(block)
            block.ref_cnt = 1
            out.append(block)
        return out

    def touch(self, blocks: Iterable[KVCacheBlock]) -> None:
        """Take a reference on cache hits; a hit on a free block takes it off the free list."""
        for block in blocks:
            if block.ref_cnt == 0:
                del self._free[block.block_id]
            block.ref_cnt += 1

    def free(self, blocks: Iterable[KVCacheBlock]) -> None:
        """Drop a reference; pass blocks in eviction order (first = evicted first among them)."""
        for block in blocks:
            block.ref_cnt -= 1
            assert block.ref_cnt >= 0, block
            if block.ref_cnt == 0:
                self._free[block.block_id] = block
                if block.block_hash is None:
                    self._free.move_to_end(block.block_id, last=False)

    def cache_block(self, block: KVCacheBlock, block_hash: bytes) -> None:
        """Register a full block under its chained hash (first writer wins on duplicates)."""
        if block.block_hash is None and block_hash not in self._cached:
            block.block_hash = block_hash
            self._cached[block_hash] = block

    def uncache(self, block: KVCacheBlock) -> None:
        if block.block_hash is not None:
            if self._cached.get(block.block_hash) is block:
                del self._cached[block.block_hash]
            block.block_hash = None

    def reset_prefix_cache(self) -> None:
        """Forget every hash (e.g. after weights change); blocks in use keep their data."""
        for block in self._cached.values():
            block.block_hash = None
        self._cached.clear()
