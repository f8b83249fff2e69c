"""SchedulerOutput: the ONLY thing the host scheduler hands the model runner each step.

Batch rows follow num_scheduled_tokens' insertion order. Token ids travel only for requests the runner
has not seen (new, or resumed after preemption); a running request's next input token is the one the
runner sampled for its slot last step, which stays on the device.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.outputs import Logprobs
from engine.sampling_params import SamplingParams

if TYPE_CHECKING:
    import torch


@dataclass
class NewRequestData:
    req_id: str
    slot: int  # runner state row owned by this request until it finishes or is preempted
    token_ids: list[int]  # prompt (+ tokens generated before a preemption)
    num_prompt_tokens: int
    block_ids: list[int]  # all blocks, prefix-cache hits included
    num_computed_tokens: int  # tokens already in the cache (prefix hits) before this step
    sampling_params: SamplingParams
    sampling_seed: int  # resolved seed: the request's own, or one drawn from the engine seed


@dataclass
class CachedRequestData:
    req_id: str
    slot: int
    new_block_ids: list[int]  # blocks appended to this request's table this step
    num_computed_tokens: int  # before this step


@dataclass
class SchedulerOutput:
    step_id: int = 0  # the scheduler's count: outputs arrive in this order, late ones name their step
    scheduled_new_reqs: list[NewRequestData] = field(default_factory=list)
    scheduled_cached_reqs: list[CachedRequestData] = field(default_factory=list)
    num_scheduled_tokens: dict[str, int] = field(default_factory=dict)  # row order
    total_num_scheduled_tokens: int = 0
    finished_req_ids: set[str] = field(default_factory=set)  # since the last step: drop their slots
    preempted_req_ids: set[str] = field(default_factory=set)  # this step: drop their slots

    @property
    def is_empty(self) -> bool:
        return self.total_num_scheduled_tokens == 0


@dataclass
class ModelRunnerOutput:
    """What comes back: one sampled token per request that finished computing its known tokens."""

    req_ids: list[str] = field(default_factory=list)
    sampled_token_ids: list[int] = field(default_factory=list)
    logits: torch.Tensor | None = None  # [len(req_ids), vocab] fp32 device tensor, only when the runner keeps logits
    # Only for requests that ask (engine/worker/logprobs.py): per row of req_ids, or None for every row.
    logprobs: list[Logprobs | None] | None = None
    # request id -> (first prompt position, entries for it and the positions after), prompts computed this step.
    prompt_logprobs: dict[str, tuple[int, list[Logprobs]]] = field(default_factory=dict)
