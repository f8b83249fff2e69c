"""RL103 reads a refutation in prose, not a refutation word written as code (a constant's or function's name)."""

from __future__ import annotations

import pytest

from roadmap.checks.premise_refuted import refutes


@pytest.mark.parametrize(
    "text",
    [
        "The profile refutes the premise: the INSERTs take 0.9 s of 38 s.",
        "That theory was WRONG: the stall comes from the allocator.",
        "PROFILING REFUTES THE LOCK THEORY",  # all capitals: a shouted subject line, still prose
        "persistent pooled buffers; lever REFUTED as tput unlock, W3 stays default-OFF",  # capitals as emphasis
        "This was refuted by the flame graph; `REFUTES` is the regex that reads it.",
    ],
)
def test_prose_refutations(text: str) -> None:
    assert refutes(text)


@pytest.mark.parametrize(
    "text",
    [
        "RL103's prepare ran REFUTES over every commit message in a thread of this process.",
        "Rename `refuted` to `disproved` in the verdict table.",
        "The importer sets the MISATTRIBUTED flag on a bad row and calls MISREAD when a cell will not parse.",
    ],
)
def test_refutation_words_as_code_say_nothing(text: str) -> None:
    assert not refutes(text)
