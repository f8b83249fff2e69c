"""The paged test runner (host-side block bookkeeping over one KV pool), in its own module so that processes a
test spawns (tests/engine/test_tensor_parallel.py) can unpickle it: pytest loads several modules named conftest."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from engine.kernels.attention_metadata import AttentionMetadata, kv_cache_shape


class PagedRunner:
    """Host-side bookkeeping for a few sequences over one block pool; `step` runs one batch of new tokens."""

    def __init__(self, model: torch.nn.Module, block_size: int = 4, num_blocks: int = 48) -> None:
        cfg = model.config
        self.model, self.block_size = model, block_size
        shape = kv_cache_shape(num_blocks, block_size, cfg.num_key_value_heads, cfg.head_dim)
        dtype = next(model.parameters()).dtype
        self.kv_caches = [torch.zeros(shape, dtype=dtype) for _ in range(cfg.num_hidden_layers)]
        self.free = torch.randperm(num_blocks, generator=torch.Generator().manual_seed(0)).tolist()
        self.tables: dict[int, list[int]] = {}
        self.cached: dict[int, int] = {}

    def step(self, chunks: Sequence[tuple[int, Sequence[int]]]) -> torch.Tensor:
        """chunks: (sequence id, its new token ids) per batch row -> logits [T, V] of every new token."""
        ids, positions, slots, q_lens, seq_lens = [], [], [], [], []
        for seq, toks in chunks:
            table, start = self.tables.setdefault(seq, []), self.cached.get(seq, 0)
            for pos in range(start, start + len(toks)):
                if pos // self.block_size >= len(table):
                    table.append(self.free.pop())
                slots.append(table[pos // self.block_size] * self.block_size + pos % self.block_size)
            ids += list(toks)
            positions += range(start, start + len(toks))
            self.cached[seq] = start + len(toks)
            q_lens.append(len(toks))
            seq_lens.append(start + len(toks))
        width = max(len(self.tables[s]) for s, _ in chunks) + 1  # +1: a padding column the kernels must not read
        tables = [self.tables[s] + [-1] * (width - len(self.tables[s])) for s, _ in chunks]
        attn = AttentionMetadata(
            cu_seqlens_q=torch.tensor([0] + torch.tensor(q_lens).cumsum(0).tolist(), dtype=torch.int32),
            seq_lens=torch.tensor(seq_lens, dtype=torch.int32),
            block_tables=torch.tensor(tables, dtype=torch.int32),
            slot_mapping=torch.tensor(slots, dtype=torch.int64),
            max_seqlen_q=max(q_lens),
            max_seqlen_k=max(seq_lens),
            q_lens_cpu=q_lens,
            seq_lens_cpu=seq_lens,
        )
        hidden = self.model(torch.tensor(ids), torch.tensor(positions), attn, self.kv_caches)
        return self.model.compute_logits(hidden)
