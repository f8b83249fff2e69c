"""Our Qwen3 and Llama equal transformers, logit for logit (fp32, atol 1e-4), through a paged KV cache.

A small hand-built runner drives the model the way the engine's runner does: several sequences per step, prefill
in one step, a prompt split into two chunks (chunked prefill: new tokens attending to cached ones), decode steps,
block_size 4 and shuffled (non-contiguous) block tables. Reference: transformers' forward over each whole sequence.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from engine.kernels.attention_metadata import AttentionMetadata
from engine.model import load_model

ATOL = 1e-4


def _hf_model(path: Path) -> torch.nn.Module:
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).eval()


@torch.no_grad()
def _hf_logits(hf: torch.nn.Module, tokens: list[int]) -> torch.Tensor:
    return hf(torch.tensor([tokens])).logits[0].float()  # [L, V]


@pytest.mark.parametrize("fixture", ["tiny_qwen3_dir", "tiny_llama_dir"])
@torch.no_grad()
def test_paged_prefill_chunked_prefill_and_decode_match_transformers(
    fixture: str, request: pytest.FixtureRequest, paged_runner: type
) -> None:
    path = request.getfixturevalue(fixture)
    ours, hf = load_model(str(path), dtype="float32").model, _hf_model(path)
    gen = torch.Generator().manual_seed(1)
    seqs = {s: torch.randint(3, 1000, (n,), generator=gen).tolist() for s, n in enumerate([7, 13, 1, 9])}
    runner = paged_runner(ours)
    # Step 1: seq 1 prefills only its first 6 tokens; seq 2's whole prompt is one token (a decode-shaped row).
    # Step 2: seq 1's remaining 7 tokens attend to its 6 cached ones, between decode rows 0, 2, 3.
    plan = [
        [(0, seqs[0]), (1, seqs[1][:6]), (2, seqs[2]), (3, seqs[3])],
        [(0, None), (1, seqs[1][6:]), (2, None), (3, None)],
    ] + [[(s, None) for s in range(4)]] * 3
    fed = {s: 0 for s in seqs}  # tokens of each sequence already run
    for step in plan:
        # None: the sequence's next token, i.e. the one sampled (greedily, by transformers) after the last step.
        chunks = [(s, toks if toks is not None else seqs[s][fed[s] : fed[s] + 1]) for s, toks in step]
        logits = runner.step(chunks)
        row = 0
        for s, toks in chunks:
            fed[s] += len(toks)
            ref = _hf_logits(hf, seqs[s][: fed[s]])[-len(toks) :]
            torch.testing.assert_close(logits[row : row + len(toks)], ref, atol=ATOL, rtol=0)
            row += len(toks)
            if fed[s] == len(seqs[s]):
                seqs[s].append(int(ref[-1].argmax()))
    assert fed == {0: 11, 1: 16, 2: 5, 3: 13}


@pytest.mark.parametrize("fixture", ["tiny_qwen3_dir", "tiny_llama_dir"])
@torch.no_grad()
def test_forward_without_kv_cache_matches_transformers(fixture: str, request: pytest.FixtureRequest) -> None:
    """kv_caches=[] (a profiling run): every sequence's new tokens are its whole sequence."""
    path = request.getfixturevalue(fixture)
    ours, hf = load_model(str(path), dtype="float32").model, _hf_model(path)
    a, b = list(range(10, 21)), list(range(500, 505))
    attn = AttentionMetadata(
        torch.tensor([0, 11, 16], dtype=torch.int32),
        torch.tensor([11, 5], dtype=torch.int32),
        torch.zeros(2, 1, dtype=torch.int32),
        torch.zeros(16, dtype=torch.int64),
        11,
        11,
        [11, 5],
        [11, 5],
    )
    positions = torch.tensor(list(range(11)) + list(range(5)))
    logits = ours.compute_logits(ours(torch.tensor(a + b), positions, attn, []))
    torch.testing.assert_close(logits[:11], _hf_logits(hf, a), atol=ATOL, rtol=0)
    torch.testing.assert_close(logits[11:], _hf_logits(hf, b), atol=ATOL, rtol=0)
    assert logits.dtype == torch.float32 and logits.shape == (16, 1000)


def test_tied_head_shares_the_embedding(tiny_llama_dir: Path, tiny_qwen3_dir: Path) -> None:
    llama = load_model(str(tiny_llama_dir), dtype="float32").model
    qwen3 = load_model(str(tiny_qwen3_dir), dtype="float32").model
    assert llama.lm_head.weight is llama.model.embed_tokens.weight
    assert qwen3.lm_head.weight is not qwen3.model.embed_tokens.weight
    assert qwen3.model.layers[0].self_attn.q_norm is not None and llama.model.layers[0].self_attn.q_norm is None
