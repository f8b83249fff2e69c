"""Log-probabilities for the rows that ask for them: of the chosen token (sampled, or the prompt's next token), its
rank, and the top-N, over the raw model logits (vLLM's default `raw_logprobs`: before penalties and temperature).

Only rows whose SamplingParams set `logprobs` / `prompt_logprobs` reach here (engine/worker/logits_processors.py),
so the default step never computes a softmax over the vocabulary or reads anything back for it.
"""
from __future__ import annotations

import torch

from engine.outputs import Logprobs

PROMPT_SLICE = 256   # prompt positions per log_softmax: [256, vocab] fp32 is 155 MB for Qwen3's 151,936 ids


def logprobs(logits: torch.Tensor,    # [R, vocab] any float dtype
             chosen: torch.Tensor,    # [R] int64, the token each row's entry is for
             num_top: list[int],      # [R] top-N wanted per row (0: the chosen token alone)
             ) -> list[Logprobs]:
    """One Logprobs per row; a single device->host copy for all of them."""
    lp = torch.log_softmax(logits.float(), dim=-1)                  # [R, vocab]
    chosen_lp = lp.gather(1, chosen.unsqueeze(1))                    # [R, 1]
    rank = (lp > chosen_lp).sum(dim=-1) + 1                          # [R]
    k = max(num_top, default=0)
    if k:
        top_lp, top_ids = lp.topk(k, dim=-1)                         # [R, k]
    else:
        top_lp = lp.new_empty(lp.shape[0], 0)
        top_ids = chosen.new_empty(lp.shape[0], 0)
    ids = torch.cat([chosen.unsqueeze(1), top_ids, rank.unsqueeze(1)], dim=1).tolist()   # [R, 1 + k + 1]
    vals = torch.cat([chosen_lp, top_lp], dim=1).tolist()                                # [R, 1 + k]
    return [Logprobs(row[:1 + n], v[:1 + n], row[-1]) for row, v, n in zip(ids, vals, num_top)]


def prompt_logprobs(hidden: torch.Tensor,        # [T, hidden] this step's hidden states
                    token_index: list[int],      # [P] flat index into hidden of each prompt position
                    next_tokens: list[int],      # [P] the prompt token that follows each position
                    num_top: int, compute_logits) -> list[Logprobs]:
    """The entries of one request's prompt positions computed this step, PROMPT_SLICE positions at a time."""
    out: list[Logprobs] = []
    device = hidden.device
    for i in range(0, len(token_index), PROMPT_SLICE):
        idx = torch.tensor(token_index[i:i + PROMPT_SLICE], dtype=torch.int64, device=device)
        chosen = torch.tensor(next_tokens[i:i + PROMPT_SLICE], dtype=torch.int64, device=device)
        out += logprobs(compute_logits(hidden[idx]), chosen, [num_top] * len(idx))
    return out
