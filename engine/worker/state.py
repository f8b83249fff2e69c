"""Slot-indexed persistent runner state: one row per running request, held for the request's lifetime.

Host numpy arrays hold what the host decides (known token ids, progress, block tables, sampling
settings); the device tensor `last_sampled` holds each slot's most recent sampled token, which is the
next step's input for a decoding request, so sampled tokens never need to visit the host to be fed back.
"""

from __future__ import annotations

import numpy as np
import torch

from engine.core.sched_output import CachedRequestData, NewRequestData


class SlotState:
    def __init__(self, max_num_seqs: int, max_model_len: int, max_blocks_per_seq: int, device: torch.device) -> None:
        self.req_to_slot: dict[str, int] = {}
        self.token_ids = np.zeros((max_num_seqs, max_model_len), dtype=np.int32)  # host-known tokens
        self.num_host_tokens = np.zeros(max_num_seqs, dtype=np.int64)  # prefix of token_ids that is valid
        self.num_tokens = np.zeros(max_num_seqs, dtype=np.int64)  # host-known + sampled since admission
        self.num_computed = np.zeros(max_num_seqs, dtype=np.int64)  # tokens whose KV is cached
        self.block_table = np.zeros((max_num_seqs, max_blocks_per_seq), dtype=np.int32)
        self.num_blocks = np.zeros(max_num_seqs, dtype=np.int64)
        self.temperature = np.zeros(max_num_seqs, dtype=np.float32)
        self.top_k = np.zeros(max_num_seqs, dtype=np.int64)  # 0 = off
        self.top_p = np.ones(max_num_seqs, dtype=np.float32)
        self.seed = np.zeros(max_num_seqs, dtype=np.int64)
        self.last_sampled = torch.zeros(max_num_seqs, dtype=torch.int64, device=device)  # [max_num_seqs]

    def add(self, r: NewRequestData) -> None:
        s = r.slot
        n = len(r.token_ids)
        self.req_to_slot[r.req_id] = s
        self.token_ids[s, :n] = r.token_ids
        self.num_host_tokens[s] = n
        self.num_tokens[s] = n
        self.num_computed[s] = r.num_computed_tokens
        self.block_table[s, : len(r.block_ids)] = r.block_ids
        self.num_blocks[s] = len(r.block_ids)
        sp = r.sampling_params
        self.temperature[s] = sp.temperature
        self.top_k[s] = max(sp.top_k, 0)
        self.top_p[s] = sp.top_p
        self.seed[s] = r.sampling_seed

    def update(self, r: CachedRequestData) -> None:
        s = r.slot
        nb = int(self.num_blocks[s])
        self.block_table[s, nb : nb + len(r.new_block_ids)] = r.new_block_ids
        self.num_blocks[s] = nb + len(r.new_block_ids)
        self.num_computed[s] = r.num_computed_tokens

    def remove(self, req_id: str) -> None:
        self.req_to_slot.pop(req_id, None)
