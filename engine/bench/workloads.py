"""Benchmark workloads: token-id prompts and output lengths, reproducible from a seed.

"nano" is nano-vllm's bench.py workload, drawn in the same order of random calls:
    seed(0)
    prompt_token_ids = [[randint(0, 10000) for _ in range(randint(100, max_input_len))] for _ in range(num_seqs)]
    max_tokens = [randint(100, max_output_len) for _ in range(num_seqs)]
With 256 requests and 1024/1024 it is 142,827 prompt and 133,966 output tokens, every request run to its
length (ignore_eos). "random" is vLLM's fixed-length random dataset: every prompt input_len tokens, every
output output_len tokens.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from random import Random
from typing import Any

from engine.bench.errors import BenchError

NANO_NUM_PROMPTS = 256
NANO_MIN_LEN = 100
TOKEN_ID_HIGH = 10000  # nano-vllm draws ids in [0, 10000] (randint is inclusive); every Qwen3 vocab holds them


@dataclass
class Workload:
    name: str
    prompts: list[list[int]]  # token ids per request
    output_lens: list[int]  # max_tokens per request (ignore_eos: exactly this many are generated)
    seed: int
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def num_requests(self) -> int:
        return len(self.prompts)

    @property
    def prompt_lens(self) -> list[int]:
        return [len(p) for p in self.prompts]

    @property
    def prompt_tokens(self) -> int:
        return sum(self.prompt_lens)

    @property
    def output_tokens(self) -> int:
        return sum(self.output_lens)

    def describe(self) -> dict[str, Any]:
        """The `workload` block of result.json."""
        return {
            "name": self.name,
            "num_requests": self.num_requests,
            "prompt_tokens": self.prompt_tokens,
            "output_tokens": self.output_tokens,
            "seed": self.seed,
            "ignore_eos": True,
            "prompt_len": _span(self.prompt_lens),
            "output_len": _span(self.output_lens),
            **self.params,
        }


def _span(values: list[int]) -> dict[str, float]:
    if not values:
        return {"min": 0, "max": 0, "mean": 0.0}
    return {"min": min(values), "max": max(values), "mean": round(sum(values) / len(values), 2)}


def nano(
    num_prompts: int = NANO_NUM_PROMPTS, max_input_len: int = 1024, max_output_len: int = 1024, seed: int = 0
) -> Workload:
    if max_input_len < NANO_MIN_LEN or max_output_len < NANO_MIN_LEN:
        raise BenchError(
            f"nano draws lengths from [{NANO_MIN_LEN}, max]: --input-len and --output-len must be >= {NANO_MIN_LEN}"
        )
    rng = Random(seed)  # Random(seed).randint draws exactly what seed(seed); randint does
    prompts = [
        [rng.randint(0, TOKEN_ID_HIGH) for _ in range(rng.randint(NANO_MIN_LEN, max_input_len))]
        for _ in range(num_prompts)
    ]
    output_lens = [rng.randint(NANO_MIN_LEN, max_output_len) for _ in range(num_prompts)]
    return Workload(
        "nano", prompts, output_lens, seed, {"max_input_len": max_input_len, "max_output_len": max_output_len}
    )


def random_fixed(num_prompts: int, input_len: int, output_len: int, seed: int = 0) -> Workload:
    if input_len < 1 or output_len < 1:
        raise BenchError("--input-len and --output-len must be >= 1")
    rng = Random(seed)
    prompts = [[rng.randint(0, TOKEN_ID_HIGH) for _ in range(input_len)] for _ in range(num_prompts)]
    return Workload(
        "random", prompts, [output_len] * num_prompts, seed, {"input_len": input_len, "output_len": output_len}
    )


def build(name: str, num_prompts: int | None, input_len: int | None, output_len: int | None, seed: int) -> Workload:
    """The workload the CLI flags describe (vLLM's --dataset-name / --num-prompts / --input-len / --output-len)."""
    if num_prompts is not None and num_prompts < 1:
        raise BenchError("--num-prompts must be >= 1")
    if name == "nano":
        return nano(
            NANO_NUM_PROMPTS if num_prompts is None else num_prompts,
            1024 if input_len is None else input_len,
            1024 if output_len is None else output_len,
            seed,
        )
    if name == "random":
        return random_fixed(
            1000 if num_prompts is None else num_prompts,
            1024 if input_len is None else input_len,
            128 if output_len is None else output_len,
            seed,
        )
    raise BenchError(f"--dataset-name must be 'random' or 'nano', got {name!r}")


def slug(w: Workload) -> str:
    """The workload's part of a series name: "nano" for the standard one, its parameters otherwise."""
    if (
        w.name == "nano"
        and w.num_requests == NANO_NUM_PROMPTS
        and w.params.get("max_input_len") == 1024
        and w.params.get("max_output_len") == 1024
        and w.seed == 0
    ):
        return "nano"
    if w.name == "nano":
        return f"nano{w.num_requests}-{w.params['max_input_len']}-{w.params['max_output_len']}-s{w.seed}"
    return f"random{w.num_requests}-{w.params['input_len']}-{w.params['output_len']}-s{w.seed}"
