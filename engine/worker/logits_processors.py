"""What a few requests ask of a step beyond the sampler: penalties, min_tokens, logprobs and prompt logprobs.

Only requests whose SamplingParams set one of them are tracked here; a step none of them is in calls the sampler
exactly as before (`sample` returns at its first line), so the default path stays sync-free and the fused sampler
(engine/kernels/triton_sampling.py) untouched. For the rows that ask, in vLLM's order: repetition penalty (prompt and
generated tokens: a positive logit divided by it, a negative one multiplied), then frequency and presence penalties
(generated tokens), then min_tokens (EOS and stop_token_ids masked to -inf until that many tokens exist); the
sampler then runs on the edited logits, and logprobs are taken from the raw ones (engine/worker/logprobs.py).

Generated-token counts live on the device, one row per slot ([max_num_seqs, vocab] int32, allocated when the first
penalized request arrives) and grow by the step's sampled ids on the device, so penalties never wait for sampled
tokens to reach the host (async scheduling reads them one step late).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from engine.core.sched_output import NewRequestData, SchedulerOutput
from engine.sampling_params import SamplingParams
from engine.worker import logprobs as lp
from engine.worker.input_batch import StepInputs
from engine.worker.sampler import Sampler
from engine.worker.state import SlotState


@dataclass
class _Tracked:
    slot: int
    params: SamplingParams
    num_prompt: int
    num_output: int  # generated tokens so far (sampled on the device included)
    min_stop_ids: list[int]  # masked while num_output < min_tokens


def wants_processing(sp: SamplingParams) -> bool:
    return sp.penalized or sp.min_tokens > 0 or sp.logprobs is not None or sp.prompt_logprobs is not None


class LogitsProcessors:
    def __init__(
        self, max_num_seqs: int, vocab_size: int, device: torch.device, eos_token_ids: frozenset[int] = frozenset()
    ) -> None:
        self.max_num_seqs = max_num_seqs
        self.vocab_size = vocab_size
        self.device = device
        self.eos_token_ids = eos_token_ids
        self.tracked: dict[str, _Tracked] = {}
        self.counts: torch.Tensor | None = None  # [max_num_seqs, vocab] int32: generated-token counts
        self.prompt_mask: torch.Tensor | None = None  # [max_num_seqs, vocab] bool: tokens of the prompt

    # ---- slots (ModelRunner._update_states) ---------------------------------------------------------
    def update(self, sched: SchedulerOutput) -> None:
        for rid in sched.finished_req_ids | sched.preempted_req_ids:
            self.tracked.pop(rid, None)
        for new in sched.scheduled_new_reqs:
            if wants_processing(new.sampling_params):
                self._add(new)

    def _add(self, new: NewRequestData) -> None:
        sp = new.sampling_params
        stops = (
            []
            if sp.min_tokens == 0
            else sorted(
                t
                for t in set(sp.stop_token_ids) | (set() if sp.ignore_eos else set(self.eos_token_ids))
                if t < self.vocab_size
            )
        )
        self.tracked[new.req_id] = _Tracked(
            new.slot, sp, new.num_prompt_tokens, len(new.token_ids) - new.num_prompt_tokens, stops
        )
        if not sp.penalized:
            return
        if self.counts is None:
            self.counts = torch.zeros(self.max_num_seqs, self.vocab_size, dtype=torch.int32, device=self.device)
            self.prompt_mask = torch.zeros(self.max_num_seqs, self.vocab_size, dtype=torch.bool, device=self.device)
        assert self.prompt_mask is not None
        ids = torch.tensor(new.token_ids, dtype=torch.int64, device=self.device)
        self.counts[new.slot] = torch.bincount(ids[new.num_prompt_tokens :], minlength=self.vocab_size).to(torch.int32)
        self.prompt_mask[new.slot] = False
        self.prompt_mask[new.slot, ids[: new.num_prompt_tokens]] = True

    # ---- one step (ModelRunner.execute_model) -------------------------------------------------------
    def sample(
        self,
        logits: torch.Tensor,  # [S, vocab] the sampling rows' logits
        inputs: StepInputs,
        sampler: Sampler,
    ) -> tuple[torch.Tensor, lp.PendingLogprobs | None]:
        """The sampled ids [S] on the device and, when a row asks, the rows' logprobs, still on the device."""
        assert inputs.sampling is not None
        if not self.tracked:
            return sampler(logits, inputs.sampling), None
        rows = [(i, t) for i, rid in enumerate(inputs.sample_req_ids) if (t := self.tracked.get(rid)) is not None]
        if not rows:
            return sampler(logits, inputs.sampling), None
        logits = logits.float()  # penalties and masks in float32, as before the logits kept the model's dtype
        raw = logits
        logits = self._penalize(logits, [(i, t) for i, t in rows if t.params.penalized])
        logits = self._mask_early_stops(logits, [(i, t) for i, t in rows if t.num_output < t.params.min_tokens])
        sampled = sampler(logits, inputs.sampling)
        self._count(sampled, [(i, t) for i, t in rows if t.params.penalized])
        for _, t in rows:
            t.num_output += 1
        asking = [(i, t) for i, t in rows if t.params.logprobs is not None]
        if not asking:
            return sampled, None
        idx = torch.tensor([i for i, _ in asking], dtype=torch.int64, device=logits.device)
        block = lp.logprobs(raw[idx], sampled[idx], [t.params.logprobs or 0 for _, t in asking])
        return sampled, lp.PendingLogprobs(logits.shape[0], [i for i, _ in asking], block)

    def _penalize(self, logits: torch.Tensor, rows: list[tuple[int, _Tracked]]) -> torch.Tensor:
        if not rows:
            return logits
        assert self.counts is not None and self.prompt_mask is not None
        dev = logits.device
        idx = torch.tensor([i for i, _ in rows], dtype=torch.int64, device=dev)  # [P]
        slots = torch.tensor([t.slot for _, t in rows], dtype=torch.int64, device=dev)  # [P]
        x = logits[idx].float()  # [P, vocab]
        counts = self.counts[slots].float()  # [P, vocab]
        generated = counts > 0
        rep = np.array([t.params.repetition_penalty for _, t in rows], dtype=np.float32)
        if (rep != 1.0).any():
            seen = generated | self.prompt_mask[slots]
            r = torch.from_numpy(rep).to(dev).unsqueeze(1)
            x = torch.where(seen, torch.where(x > 0, x / r, x * r), x)
        freq = torch.tensor([t.params.frequency_penalty for _, t in rows], dtype=torch.float32, device=dev)
        pres = torch.tensor([t.params.presence_penalty for _, t in rows], dtype=torch.float32, device=dev)
        x = x - freq.unsqueeze(1) * counts - pres.unsqueeze(1) * generated
        out = logits.clone()
        out[idx] = x.to(out.dtype)
        return out

    def _mask_early_stops(self, logits: torch.Tensor, rows: list[tuple[int, _Tracked]]) -> torch.Tensor:
        pairs = [(i, tok) for i, t in rows for tok in t.min_stop_ids]
        if not pairs:
            return logits
        out = logits.clone()
        r, c = torch.tensor(pairs, dtype=torch.int64, device=logits.device).unbind(1)
        out[r, c] = float("-inf")
        return out

    def _count(self, sampled: torch.Tensor, rows: list[tuple[int, _Tracked]]) -> None:
        """counts[slot, sampled token] += 1 on the device for the penalized rows."""
        if not rows:
            return
        assert self.counts is not None
        dev = sampled.device
        idx = torch.tensor([i for i, _ in rows], dtype=torch.int64, device=dev)
        slots = torch.tensor([t.slot for _, t in rows], dtype=torch.int64, device=dev)
        self.counts.index_put_((slots, sampled[idx]), torch.ones_like(slots, dtype=torch.int32), accumulate=True)

    def prompt_logprobs(
        self, hidden: torch.Tensor, inputs: StepInputs, sched: SchedulerOutput, state: SlotState, compute_logits
    ) -> dict[str, tuple[int, list[lp.LogprobBlock]]]:
        """request id -> (first position, entries on the device) for the prompt positions this step computed, of
        the requests that ask. Called after the runner advanced `num_computed` by this step's tokens."""
        if not any(t.params.prompt_logprobs is not None for t in self.tracked.values()):
            return {}
        out: dict[str, tuple[int, list[lp.LogprobBlock]]] = {}
        first_token = 0
        for rid, q, slot in zip(sched.num_scheduled_tokens, inputs.row_q_lens.tolist(), inputs.row_slots.tolist()):
            t = self.tracked.get(rid)
            start = int(state.num_computed[slot]) - q
            if t is not None and t.params.prompt_logprobs is not None and start < t.num_prompt - 1:
                # Position p's distribution is over the token at p + 1; the last prompt position's is the sample's.
                end = min(start + q, t.num_prompt - 1)
                positions = range(start, end)
                entries = lp.prompt_logprobs(
                    hidden,
                    [first_token + p - start for p in positions],
                    state.token_ids[slot, start + 1 : end + 1].tolist(),
                    t.params.prompt_logprobs,
                    compute_logits,
                )
                out[rid] = (start + 1, entries)  # entry of the token at p + 1
            first_token += q
        return out
