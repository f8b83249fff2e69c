"""Request: one prompt's life in the scheduler (tokens, progress, status, slot, timing)."""

from __future__ import annotations

import enum
import time

from engine.outputs import Logprobs, RequestMetrics
from engine.sampling_params import SamplingParams


class RequestStatus(enum.Enum):
    WAITING = "waiting"
    RUNNING = "running"
    PREEMPTED = "preempted"  # waiting again, will recompute prompt + generated tokens
    FINISHED_STOPPED = "stop"  # EOS or a stop token id
    FINISHED_LENGTH = "length"  # max_tokens or the context length
    FINISHED_ABORTED = "abort"

    @property
    def finished(self) -> bool:
        return self in (RequestStatus.FINISHED_STOPPED, RequestStatus.FINISHED_LENGTH, RequestStatus.FINISHED_ABORTED)


class Request:
    def __init__(
        self,
        request_id: str,
        prompt_token_ids: list[int],
        sampling_params: SamplingParams,
        eos_token_ids: frozenset[int] = frozenset(),
        sampling_seed: int = 0,
        arrival_time: float | None = None,
        prompt: str | None = None,
    ) -> None:
        self.request_id = request_id
        self.prompt = prompt
        self.prompt_token_ids = list(prompt_token_ids)
        self.sampling_params = sampling_params
        self.eos_token_ids = eos_token_ids
        self.sampling_seed = sampling_seed  # resolved seed the sampler uses for this request
        self.output_token_ids: list[int] = []
        self.all_token_ids: list[int] = list(prompt_token_ids)
        self.num_computed_tokens = 0  # tokens whose KV is (or, after this step, will be) cached
        # Tokens sampled on the device whose ids have not reached the host yet (vLLM's name): 1 while a step that
        # samples for this request is in flight, 2 under async scheduling while the next one is too.
        self.num_output_placeholders = 0
        self.first_step: int | None = None  # the scheduler step that first admitted it
        self.status = RequestStatus.WAITING
        self.stop_reason: int | None = None
        self.slot: int | None = None  # runner slot, held while RUNNING
        self.block_hashes: list[bytes] = []  # chained hashes of this request's full blocks
        # Filled only when the params ask (SamplingParams.logprobs / prompt_logprobs): one entry per token.
        self.output_logprobs: list[Logprobs] | None = [] if sampling_params.logprobs is not None else None
        self.prompt_logprobs: list[Logprobs | None] | None = (
            [None] if sampling_params.prompt_logprobs is not None else None
        )
        self.metrics = RequestMetrics(
            arrival_time=time.perf_counter() if arrival_time is None else arrival_time,
            num_prompt_tokens=len(prompt_token_ids),
        )

    @property
    def num_tokens(self) -> int:
        return len(self.all_token_ids)

    @property
    def num_prompt_tokens(self) -> int:
        return len(self.prompt_token_ids)

    @property
    def num_output_tokens(self) -> int:
        return len(self.output_token_ids)

    @property
    def finish_reason(self) -> str | None:
        return self.status.value if self.status.finished else None

    def append_output_token(self, token_id: int, now: float, logprobs: Logprobs | None = None) -> None:
        self.output_token_ids.append(token_id)
        self.all_token_ids.append(token_id)
        if self.output_logprobs is not None and logprobs is not None:
            self.output_logprobs.append(logprobs)
        if self.metrics.first_token_time is None:
            self.metrics.first_token_time = now
        self.metrics.token_times.append(now)

    def add_prompt_logprobs(self, first_position: int, entries: list[Logprobs]) -> None:
        """Entries for the prompt tokens at first_position, first_position + 1, ...; a position already recorded
        (recomputed after a preemption) is kept as it was."""
        if self.prompt_logprobs is None:
            return
        skip = len(self.prompt_logprobs) - first_position
        if skip >= 0:
            self.prompt_logprobs.extend(entries[skip:])

    def __repr__(self) -> str:
        return (
            f"Request({self.request_id!r}, {self.status.name}, tokens={self.num_tokens}, "
            f"computed={self.num_computed_tokens}, placeholders={self.num_output_placeholders}, "
            f"slot={self.slot})"
        )
