"""SamplingParams: how one request picks its tokens and when it stops (vLLM's names and defaults)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from engine.errors import EngineError


@dataclass
class SamplingParams:
    n: int = 1
    temperature: float = 1.0          # 0 = greedy (exact argmax)
    top_p: float = 1.0                # nucleus mass kept, in (0, 1]; 1 = off
    top_k: int = 0                    # keep the k most likely tokens; 0 or -1 = off
    seed: int | None = None           # per-request seed: same seed + same prompt -> same tokens
    max_tokens: int | None = 16       # None = until EOS or the context is full
    ignore_eos: bool = False
    stop: str | list[str] = field(default_factory=list)   # stop strings: the text ends before the first one
    stop_token_ids: list[int] = field(default_factory=list)
    skip_special_tokens: bool = True  # detokenisation only
    detokenize: bool = True           # False: token ids only, text stays "" (benchmarks skip the decoding cost)

    def __post_init__(self) -> None:
        self.stop = [self.stop] if isinstance(self.stop, str) else list(self.stop or [])
        self.stop_token_ids = list(self.stop_token_ids or [])
        self.validate()

    @property
    def greedy(self) -> bool:
        return self.temperature == 0.0

    def validate(self) -> None:
        """Raise EngineError naming the field, the allowed range and the value."""
        def bad(name: str, allowed: str, value: object) -> EngineError:
            return EngineError(f"SamplingParams.{name} must be {allowed}, got {value!r}")

        if not _is_int(self.n) or self.n != 1:
            raise bad("n", "1 (one completion per request is supported)", self.n)
        if not _is_real(self.temperature) or not math.isfinite(self.temperature) or self.temperature < 0:
            raise bad("temperature", "a finite number >= 0 (0 = greedy)", self.temperature)
        if not _is_real(self.top_p) or not (0.0 < self.top_p <= 1.0):
            raise bad("top_p", "in (0, 1]", self.top_p)
        if not _is_int(self.top_k) or self.top_k < -1:
            raise bad("top_k", "an integer >= 1, or 0 / -1 to disable", self.top_k)
        if self.seed is not None and not _is_int(self.seed):
            raise bad("seed", "an integer or None", self.seed)
        if self.max_tokens is not None and (not _is_int(self.max_tokens) or self.max_tokens <= 0):
            raise bad("max_tokens", "an integer >= 1 (or None for 'until EOS or the context is full')",
                      self.max_tokens)
        if not all(isinstance(s, str) and s for s in self.stop):
            raise bad("stop", "a list of non-empty strings", self.stop)
        if self.stop and not self.detokenize:
            raise bad("detokenize", "True when stop strings are given (they are matched in the text)", self.detokenize)
        for tok in self.stop_token_ids:
            if not _is_int(tok) or tok < 0:
                raise bad("stop_token_ids", "a list of token ids >= 0", self.stop_token_ids)


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_real(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)
