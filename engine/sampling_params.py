"""SamplingParams: how one request picks its tokens and when it stops (vLLM's names and defaults).

Every number is bounded by the type the engine stores it in (int64 slot state, float32 sampling tensors): a value
past those bounds would fail inside an engine step, where it takes the whole batch down (DESIGN §5).
`check_model` adds the bounds only the model knows (the vocabulary).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from engine.errors import EngineError

INT64_MAX = 2**63 - 1
FLOAT32_MAX = 3.4028234663852886e38
MAX_LOGPROBS = 20  # OpenAI's top_logprobs bound (vLLM's max_logprobs default)
MAX_PENALTY = 2.0  # presence/frequency: OpenAI's [-2, 2]
MAX_REPETITION_PENALTY = 100.0


@dataclass
class SamplingParams:
    n: int = 1
    temperature: float = 1.0  # 0 = greedy (exact argmax)
    top_p: float = 1.0  # nucleus mass kept, in (0, 1]; 1 = off
    top_k: int = 0  # keep the k most likely tokens; 0 or -1 = off
    seed: int | None = None  # per-request seed: same seed + same prompt -> same tokens
    max_tokens: int | None = 16  # None = until EOS or the context is full
    min_tokens: int = 0  # EOS and stop_token_ids cannot end the output before this many tokens
    presence_penalty: float = 0.0  # subtracted from the logit of every token already generated
    frequency_penalty: float = 0.0  # subtracted once per time a token was generated
    repetition_penalty: float = 1.0  # prompt and generated tokens: positive logits / it, negative * it; 1 = off
    logprobs: int | None = None  # per generated token: its logprob and the top-N; None = none
    prompt_logprobs: int | None = None  # per prompt token (after the first): its logprob and the top-N
    ignore_eos: bool = False
    stop: str | list[str] = field(default_factory=list)  # stop strings: the text ends before the first one
    stop_token_ids: list[int] = field(default_factory=list)
    skip_special_tokens: bool = True  # detokenisation only
    detokenize: bool = True  # False: token ids only, text stays "" (benchmarks skip the decoding cost)

    def __post_init__(self) -> None:
        self.stop = [self.stop] if isinstance(self.stop, str) else list(self.stop or [])
        self.stop_token_ids = list(self.stop_token_ids or [])
        self.validate()

    @property
    def greedy(self) -> bool:
        return self.temperature == 0.0

    @property
    def penalized(self) -> bool:
        """Whether the logits need penalties (engine/worker/logits_processors.py) before sampling."""
        return self.presence_penalty != 0.0 or self.frequency_penalty != 0.0 or self.repetition_penalty != 1.0

    def validate(self) -> None:
        """Raise EngineError naming the field, the allowed range and the value."""

        def bad(name: str, allowed: str, value: object) -> EngineError:
            return EngineError(f"SamplingParams.{name} must be {allowed}, got {value!r}")

        def real(name: str, lo: float, hi: float, allowed: str, open_lo: bool = False) -> None:
            v = getattr(self, name)
            if not _is_real(v) or not _finite(v) or v < lo or v > hi or (open_lo and v == lo):
                raise bad(name, allowed, v)

        if not _is_int(self.n) or self.n != 1:
            raise bad("n", "1 (one completion per request; the server fans out n > 1)", self.n)
        real("temperature", 0.0, FLOAT32_MAX, "a finite number >= 0 (0 = greedy)")
        real("top_p", 0.0, 1.0, "in (0, 1]", open_lo=True)
        if not _is_int(self.top_k) or not -1 <= self.top_k <= INT64_MAX:
            raise bad("top_k", "an integer >= 1, or 0 / -1 to disable", self.top_k)
        if self.seed is not None and (not _is_int(self.seed) or not -INT64_MAX - 1 <= self.seed <= INT64_MAX):
            raise bad("seed", "a 64-bit signed integer or None", self.seed)
        if self.max_tokens is not None and (not _is_int(self.max_tokens) or not 1 <= self.max_tokens <= INT64_MAX):
            raise bad("max_tokens", "an integer >= 1 (or None for 'until EOS or the context is full')", self.max_tokens)
        if (
            not _is_int(self.min_tokens)
            or self.min_tokens < 0
            or self.min_tokens > (self.max_tokens if self.max_tokens is not None else INT64_MAX)
        ):
            raise bad("min_tokens", "an integer >= 0 and <= max_tokens", self.min_tokens)
        real("presence_penalty", -MAX_PENALTY, MAX_PENALTY, f"in [-{MAX_PENALTY}, {MAX_PENALTY}]")
        real("frequency_penalty", -MAX_PENALTY, MAX_PENALTY, f"in [-{MAX_PENALTY}, {MAX_PENALTY}]")
        real(
            "repetition_penalty",
            0.0,
            MAX_REPETITION_PENALTY,
            f"in (0, {MAX_REPETITION_PENALTY}] (1 = off)",
            open_lo=True,
        )
        for name in ("logprobs", "prompt_logprobs"):
            v = getattr(self, name)
            if v is not None and (not _is_int(v) or not 0 <= v <= MAX_LOGPROBS):
                raise bad(name, f"None or an integer in [0, {MAX_LOGPROBS}]", v)
        if not all(isinstance(s, str) and s for s in self.stop):
            raise bad("stop", "a list of non-empty strings", self.stop)
        if self.stop and not self.detokenize:
            raise bad("detokenize", "True when stop strings are given (they are matched in the text)", self.detokenize)
        for tok in self.stop_token_ids:
            if not _is_int(tok) or not 0 <= tok <= INT64_MAX:
                raise bad("stop_token_ids", "a list of token ids >= 0", self.stop_token_ids)

    def check_model(self, vocab_size: int) -> None:
        """The bounds the model sets: token ids and top_k within the vocabulary."""
        if self.top_k > vocab_size:
            raise EngineError(
                f"SamplingParams.top_k must be at most the vocabulary size {vocab_size} "
                f"(or 0 / -1 to disable), got {self.top_k}"
            )
        bad = next((t for t in self.stop_token_ids if t >= vocab_size), None)
        if bad is not None:
            raise EngineError(f"SamplingParams.stop_token_ids: {bad} is outside the vocabulary [0, {vocab_size})")


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _finite(x: float) -> bool:
    try:
        return math.isfinite(x)
    except OverflowError:  # an int past float's range
        return False


def _is_real(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)
