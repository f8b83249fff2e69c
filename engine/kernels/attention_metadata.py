"""The contract between the model runner and the attention kernels (reference and Triton alike).

A step runs T new tokens from B sequences, flattened in batch-row order. Sequence b contributes
q_len[b] = cu_seqlens_q[b+1] - cu_seqlens_q[b] new tokens whose positions are
seq_lens[b] - q_len[b] ... seq_lens[b] - 1; each new token attends causally to every earlier position of
its own sequence (cached or new). K/V of the new tokens are written to the paged cache at slot_mapping
before attention reads the cache, so attention reads everything from the cache.

KV cache, per layer: one tensor [2, num_blocks, block_size, num_kv_heads, head_dim] (index 0 = K, 1 = V).
A slot is block_id * block_size + offset; block_tables[b, i] is the i-th block of sequence b (-1 / 0 padding
past the end is never read).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class AttentionMetadata:
    cu_seqlens_q: torch.Tensor  # [B+1] int32, prefix sums of new tokens per sequence
    seq_lens: torch.Tensor  # [B] int32, total tokens of each sequence after this step (cached + new)
    block_tables: torch.Tensor  # [B, max_blocks_per_seq] int32
    slot_mapping: torch.Tensor  # [T] int64, cache slot of each new token
    max_seqlen_q: int  # max q_len over the batch (host int, known when the batch is built)
    max_seqlen_k: int  # max seq_len over the batch
    # Host-side copies for reference kernels that loop per sequence (never read on the GPU fast path).
    q_lens_cpu: list[int] | None = None
    seq_lens_cpu: list[int] | None = None
    # A CUDA-graph step (engine/worker/cuda_graphs.py): the launch is replayed whatever max_seqlen_k is now, so
    # kernels must not pick a path, a grid or a buffer size from max_seqlen_k (it only bounds the batch).
    static_launch: bool = False
    # The path such a step's graph was captured with: split-KV decode (triton_decode.py) or the unified kernel.
    static_split_kv: bool = False

    @property
    def num_seqs(self) -> int:
        return self.seq_lens.shape[0]


def kv_cache_shape(num_blocks: int, block_size: int, num_kv_heads: int, head_dim: int) -> tuple[int, ...]:
    return (2, num_blocks, block_size, num_kv_heads, head_dim)
