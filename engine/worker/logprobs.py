"""Log-probabilities for the rows that ask for them: of the chosen token (sampled, or the prompt's next token), its
rank, and the top-N, over the raw model logits (vLLM's default `raw_logprobs`: before penalties and temperature).

Only rows whose SamplingParams set `logprobs` / `prompt_logprobs` reach here (engine/worker/logits_processors.py),
so the default step never computes a softmax over the vocabulary. What is computed stays on the device until the
step's output is read (`PendingLogprobs`, copied beside the sampled ids by engine/worker/async_output.py): asking for
logprobs adds device work to a step, never a host sync, so async scheduling keeps its overlap.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from engine.outputs import Logprobs

PROMPT_SLICE = 256  # prompt positions per log_softmax: [256, vocab] fp32 is 155 MB for Qwen3's 151,936 ids


@dataclass
class LogprobBlock:
    """Rows of entries still on the device (or, once copied, on the host)."""

    ids: torch.Tensor  # [R, 1 + k + 1] int64: the chosen token, the top-k, the chosen token's rank
    vals: torch.Tensor  # [R, 1 + k] float32: the chosen token's logprob, the top-k's
    num_top: list[int]  # [R] top-N wanted per row (<= k)

    def entries(self) -> list[Logprobs]:
        ids, vals = self.ids.tolist(), self.vals.tolist()
        return [Logprobs(row[: 1 + n], v[: 1 + n], row[-1]) for row, v, n in zip(ids, vals, self.num_top)]


@dataclass
class PendingLogprobs:
    """One step's logprobs on their way to the host: the sampling rows that asked, and prompt positions."""

    num_rows: int  # S, the step's sampling rows
    rows: list[int] = field(default_factory=list)  # which of them asked, in `sample`'s order
    sample: LogprobBlock | None = None
    prompt: dict[str, tuple[int, list[LogprobBlock]]] = field(default_factory=dict)  # rid -> (first position, ...)

    def blocks(self) -> list[LogprobBlock]:
        return ([self.sample] if self.sample is not None else []) + [b for _, bs in self.prompt.values() for b in bs]

    def resolve(self) -> tuple[list[Logprobs | None] | None, dict[str, tuple[int, list[Logprobs]]]]:
        """(per sampling row its entry or None; None when no row asked), (rid -> (first position, entries))."""
        per_row: list[Logprobs | None] | None = None
        if self.sample is not None:
            per_row = [None] * self.num_rows
            for i, e in zip(self.rows, self.sample.entries()):
                per_row[i] = e
        prompt = {rid: (first, [e for b in bs for e in b.entries()]) for rid, (first, bs) in self.prompt.items()}
        return per_row, prompt


def logprobs(
    logits: torch.Tensor,  # [R, vocab] any float dtype
    chosen: torch.Tensor,  # [R] int64, the token each row's entry is for
    num_top: list[int],  # [R] top-N wanted per row (0: the chosen token alone)
) -> LogprobBlock:
    """One row of entries per logits row, on the logits' device (no host sync)."""
    lp = torch.log_softmax(logits.float(), dim=-1)  # [R, vocab]
    chosen_lp = lp.gather(1, chosen.unsqueeze(1))  # [R, 1]
    rank = (lp > chosen_lp).sum(dim=-1) + 1  # [R]
    k = max(num_top, default=0)
    if k:
        top_lp, top_ids = lp.topk(k, dim=-1)  # [R, k]
    else:
        top_lp = lp.new_empty(lp.shape[0], 0)
        top_ids = chosen.new_empty(lp.shape[0], 0)
    ids = torch.cat([chosen.unsqueeze(1), top_ids, rank.unsqueeze(1)], dim=1)  # [R, 1 + k + 1]
    vals = torch.cat([chosen_lp, top_lp], dim=1)  # [R, 1 + k]
    return LogprobBlock(ids, vals, list(num_top))


def prompt_logprobs(
    hidden: torch.Tensor,  # [T, hidden] this step's hidden states
    token_index: list[int],  # [P] flat index into hidden of each prompt position
    next_tokens: list[int],  # [P] the prompt token that follows each position
    num_top: int,
    compute_logits,
) -> list[LogprobBlock]:
    """The entries of one request's prompt positions computed this step, PROMPT_SLICE positions at a time."""
    out: list[LogprobBlock] = []
    device = hidden.device
    for i in range(0, len(token_index), PROMPT_SLICE):
        idx = torch.tensor(token_index[i : i + PROMPT_SLICE], dtype=torch.int64, device=device)
        chosen = torch.tensor(next_tokens[i : i + PROMPT_SLICE], dtype=torch.int64, device=device)
        out.append(logprobs(compute_logits(hidden[idx]), chosen, [num_top] * len(idx)))
    return out
