"""What LLM.generate returns: RequestOutput / CompletionOutput / RequestMetrics (vLLM's shape).

All times are time.perf_counter() seconds (monotonic, same clock for every request of a process), so
TTFT / TPOT / ITL are differences of these stamps.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class RequestMetrics:
    arrival_time: float  # request added to the engine
    first_scheduled_time: float | None = None
    first_token_time: float | None = None  # first output token reached the host
    token_times: list[float] = field(default_factory=list)  # host arrival stamp of every output token
    finished_time: float | None = None
    num_prompt_tokens: int = 0
    num_cached_tokens: int = 0  # prompt tokens served from the prefix cache
    num_preemptions: int = 0

    @property
    def ttft(self) -> float | None:
        """Time to first token (s)."""
        return None if self.first_token_time is None else self.first_token_time - self.arrival_time

    @property
    def itls(self) -> list[float]:
        """Inter-token latencies (s): gaps between consecutive output tokens."""
        t = self.token_times
        return [b - a for a, b in zip(t, t[1:])]

    @property
    def tpot(self) -> float | None:
        """Time per output token after the first (s); None with fewer than 2 tokens."""
        t = self.token_times
        return None if len(t) < 2 else (t[-1] - t[0]) / (len(t) - 1)


@dataclass
class Logprobs:
    """One position's log-probabilities (natural log, over the raw model logits, as vLLM's default): the chosen
    token first (the sampled one, or the prompt's next token), then the top-N of the distribution, best first."""

    token_ids: list[int]
    logprobs: list[float]
    rank: int  # of the chosen token in the distribution (1 = the most likely)


@dataclass
class CompletionOutput:
    index: int
    text: str
    token_ids: list[int]
    finish_reason: str | None  # "length" | "stop" | "abort" | None while running
    stop_reason: int | str | None = None  # the stop token id or stop string that ended it (None: EOS or length)
    logprobs: list[Logprobs] | None = None  # one per token, when SamplingParams.logprobs is set
    cumulative_logprob: float | None = None  # sum of the chosen tokens' logprobs, with logprobs

    @property
    def finished(self) -> bool:
        return self.finish_reason is not None


@dataclass
class RequestOutput:
    request_id: str
    prompt: str | None
    prompt_token_ids: list[int]
    outputs: list[CompletionOutput]
    finished: bool
    metrics: RequestMetrics
    num_cached_tokens: int = 0
    # With SamplingParams.prompt_logprobs: one per prompt token, None for the first (nothing precedes it).
    prompt_logprobs: list[Logprobs | None] | None = None
