"""Step inputs from a SchedulerOutput and the slot state, built with numpy (no per-token Python loops).

The step's int64 arrays travel in ONE host->device copy (pinned + non_blocking on CUDA); what the kernels read as
int32 (cu_seqlens, seq_lens, block tables) and the float sampling settings, as their bits, in a second; so the
device runs no cast before the model. It then splices each decoding slot's last sampled token into input_ids, so
sampled tokens are never read back on the host to build the next step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from engine.core.sched_output import SchedulerOutput
from engine.kernels.attention_metadata import AttentionMetadata
from engine.utils import cdiv
from engine.worker.sampler import SamplingTensors
from engine.worker.state import SlotState

_NP = {torch.int64: np.int64, torch.int32: np.int32}
_TOP_K_OFF = np.iinfo(np.int64).max  # top_k 0 = off: a k no vocabulary reaches


class Uploader:
    """Concatenate host arrays into one staging buffer and copy it to the device in one transfer.

    CUDA: two pinned staging buffers per dtype, used in turn, so writing step N+1's inputs never waits for step N's
    copy (under async scheduling it is queued behind step N-1 on the GPU); a buffer waits only for the copy out of
    it two steps ago, which is long done."""

    DEPTH = 2

    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.pinned = device.type == "cuda"  # pinned host memory only where there is a GPU to copy to
        self._bufs: dict[tuple[torch.dtype, int], torch.Tensor] = {}
        self._copied: dict[tuple[torch.dtype, int], torch.cuda.Event] = {}
        self._turn: dict[torch.dtype, int] = {}

    def __call__(self, arrays: list[np.ndarray], dtype: torch.dtype) -> list[torch.Tensor]:
        sizes = [a.size for a in arrays]
        total = sum(sizes)
        if not self.pinned:
            return list(torch.from_numpy(np.concatenate([a.ravel() for a in arrays]).astype(_NP[dtype])).split(sizes))
        turn = self._turn.get(dtype, 0)
        self._turn[dtype] = (turn + 1) % self.DEPTH
        key = (dtype, turn)
        if key in self._copied:
            self._copied[key].synchronize()  # the copy out of this buffer, two uploads ago, must be done
        buf = self._bufs.get(key)
        if buf is None or buf.numel() < total:
            buf = self._bufs[key] = torch.empty(
                max(total, 2 * (0 if buf is None else buf.numel())), dtype=dtype, pin_memory=True
            )
        host = buf[:total]
        np.concatenate([a.ravel() for a in arrays], out=host.numpy(), casting="unsafe")
        dev = host.to(self.device, non_blocking=True)
        event = self._copied.setdefault(key, torch.cuda.Event())
        event.record()
        return list(dev.split(sizes))


@dataclass
class StepInputs:
    input_ids: torch.Tensor  # [T] int64
    positions: torch.Tensor  # [T] int64
    attn: AttentionMetadata
    logits_indices: torch.Tensor | None  # [S] int64, last scheduled token of each sampling row; None: every token
    sample_slots: torch.Tensor  # [S] int64, slot of each sampling row
    sample_slots_np: np.ndarray  # [S] host copy, to advance the host token counts
    sample_req_ids: list[str]
    sampling: SamplingTensors | None
    row_slots: np.ndarray  # [B] slot of each batch row
    row_q_lens: np.ndarray  # [B] tokens scheduled for each row


def prepare_inputs(state: SlotState, sched: SchedulerOutput, block_size: int, upload: Uploader) -> StepInputs:
    req_ids = list(sched.num_scheduled_tokens)
    num_reqs = len(req_ids)
    slots = np.fromiter((state.req_to_slot[r] for r in req_ids), dtype=np.int64, count=num_reqs)  # [B]
    q_lens = np.fromiter(sched.num_scheduled_tokens.values(), dtype=np.int64, count=num_reqs)  # [B]
    start = state.num_computed[slots]  # [B]
    seq_lens = start + q_lens  # [B]
    cu = np.zeros(num_reqs + 1, dtype=np.int64)
    np.cumsum(q_lens, out=cu[1:])
    num_tokens = int(cu[-1])
    row = np.repeat(np.arange(num_reqs), q_lens)  # [T]
    pos = start[row] + np.arange(num_tokens) - cu[:-1][row]  # [T]
    tok_slot = slots[row]  # [T]
    from_device = pos >= state.num_host_tokens[tok_slot]  # the token was sampled on the device
    host_ids = state.token_ids[tok_slot, np.where(from_device, 0, pos)]
    slot_mapping = state.block_table[tok_slot, pos // block_size].astype(np.int64) * block_size + pos % block_size
    max_blocks = cdiv(int(seq_lens.max()), block_size)
    block_tables = state.block_table[slots, :max_blocks]  # [B, max_blocks]
    samples = seq_lens >= state.num_tokens[slots]  # rows whose known tokens are all computed now
    sample_slots = slots[samples]  # [S]
    logits_idx = cu[1:][samples] - 1
    temperature, top_k, top_p = state.temperature[sample_slots], state.top_k[sample_slots], state.top_p[sample_slots]
    (
        host_ids_d,
        from_dev_d,
        tok_slot_d,
        pos_d,
        slot_map_d,
        logits_idx_d,
        sample_slots_d,
        top_k_d,
        seed_d,
        sample_pos_d,
    ) = upload(
        [
            host_ids,
            from_device,
            tok_slot,
            pos,
            slot_mapping,
            logits_idx,
            sample_slots,
            np.where(top_k > 0, top_k, _TOP_K_OFF),
            state.seed[sample_slots],
            seq_lens[samples],
        ],
        torch.int64,
    )
    # What the kernels read as int32 arrives as int32, and the float settings as their bits: no cast on the device.
    # Longest context first: the attention kernel starts the longest rows' programs first (decode_order).
    order = np.argsort(-seq_lens.astype(np.int64), kind="stable").astype(np.int32)
    cu_d, seq_lens_d, bt_d, temp_bits_d, top_p_bits_d, order_d = upload(
        [cu, seq_lens, block_tables, temperature.view(np.int32), top_p.view(np.int32), order], torch.int32
    )
    if from_device.all():  # decode rows only: one gather
        input_ids = state.last_sampled[tok_slot_d]
    elif from_device.any():
        input_ids = torch.where(from_dev_d.bool(), state.last_sampled[tok_slot_d], host_ids_d)
    else:
        input_ids = host_ids_d
    attn = AttentionMetadata(
        cu_seqlens_q=cu_d,
        seq_lens=seq_lens_d,
        block_tables=bt_d.view(num_reqs, max_blocks),
        slot_mapping=slot_map_d,
        max_seqlen_q=int(q_lens.max()),
        max_seqlen_k=int(seq_lens.max()),
        q_lens_cpu=q_lens.tolist(),
        seq_lens_cpu=seq_lens.tolist(),
        decode_order=order_d,
    )
    sampling = None
    if sample_slots.size:
        sampling = SamplingTensors(
            temperature=temp_bits_d.view(torch.float32),
            top_k=top_k_d,
            top_p=top_p_bits_d.view(torch.float32),
            seeds=seed_d,
            positions=sample_pos_d,
            all_greedy=bool((temperature == 0).all()),
            any_greedy=bool((temperature == 0).any()),
            need_top_k=bool((top_k > 0).any()),
            need_top_p=bool((top_p < 1).any()),
        )
    every_token_samples = num_tokens == sample_slots.size  # decode rows only: no gather of the hidden states
    return StepInputs(
        input_ids,
        pos_d,
        attn,
        None if every_token_samples else logits_idx_d,
        sample_slots_d,
        sample_slots,
        [r for r, s in zip(req_ids, samples) if s],
        sampling,
        slots,
        q_lens,
    )
