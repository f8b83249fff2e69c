"""The benchmark workloads: nano-vllm's bench.py draws, exactly."""

from __future__ import annotations

import random

import pytest

from engine.bench import workloads
from engine.bench.errors import BenchError


def test_nano_totals_are_nano_vllms() -> None:
    w = workloads.nano()
    assert (w.num_requests, w.prompt_tokens, w.output_tokens) == (256, 142_827, 133_966)
    assert min(w.prompt_lens) >= 100 and max(w.prompt_lens) <= 1024
    assert min(w.output_lens) >= 100 and max(w.output_lens) <= 1024


def test_nano_draws_in_nano_vllms_order() -> None:
    # nano-vllm bench.py, verbatim order of calls: prompts (length, then ids) for every request, then max_tokens.
    random.seed(0)
    prompts = [[random.randint(0, 10000) for _ in range(random.randint(100, 1024))] for _ in range(256)]
    max_tokens = [random.randint(100, 1024) for _ in range(256)]
    w = workloads.nano()
    assert w.prompts == prompts
    assert w.output_lens == max_tokens


def test_random_fixed_lengths_and_seed() -> None:
    w = workloads.build("random", 3, 5, 7, seed=1)
    assert w.prompt_lens == [5, 5, 5] and w.output_lens == [7, 7, 7]
    assert w.prompts == workloads.build("random", 3, 5, 7, seed=1).prompts
    assert w.prompts != workloads.build("random", 3, 5, 7, seed=2).prompts
    assert all(0 <= t <= 10000 for p in w.prompts for t in p)


def test_describe_names_the_workload() -> None:
    d = workloads.nano(num_prompts=4, max_input_len=200, max_output_len=150).describe()
    assert d["name"] == "nano" and d["num_requests"] == 4 and d["seed"] == 0 and d["ignore_eos"] is True
    assert d["max_input_len"] == 200 and d["output_len"]["max"] <= 150


@pytest.mark.parametrize("args", [("nano", 4, 50, None), ("other", None, None, None), ("random", 0, 4, 4)])
def test_bad_workload_flags_are_user_errors(args: tuple) -> None:
    with pytest.raises(BenchError):
        workloads.build(*args, seed=0)
