"""The embedded SmolLM2 GGUF: our loader, tokenizer and chat template against transformers' GGUF loader."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

TEXTS = [
    "Hello world!",
    "  leading spaces,\ttabs and\n\nblank lines  ",
    "Numbers 1234567 and 3.14159; dates 2024-07-25.",
    "Unicode: café, naïve, 日本語, emoji 🤖🚀",
    "<|im_start|>user\nHi there<|im_end|>\n",
    "def f(x):\n    return x ** 2  # squared",
    "It's a can't-won't world; they'd've LOVED it.",
]
CHATS = [
    [{"role": "user", "content": "What is the capital of France?"}],
    [
        {"role": "system", "content": "Be terse."},
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": "4"},
        {"role": "user", "content": "And 3+3?"},
    ],
]


@pytest.fixture(scope="module")
def hf_tokenizer(smollm2_gguf_path: Path):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(smollm2_gguf_path.parent, gguf_file=smollm2_gguf_path.name)


def test_config_comes_from_gguf_metadata(smollm2_loaded) -> None:
    cfg = smollm2_loaded.config
    assert (cfg.architecture, cfg.num_hidden_layers, cfg.hidden_size, cfg.intermediate_size) == ("llama", 30, 576, 1536)
    assert (cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim, cfg.vocab_size) == (9, 3, 64, 49152)
    assert cfg.tie_word_embeddings and cfg.rope_theta == 100000.0 and cfg.eos_token_ids == (2,)
    assert smollm2_loaded.name == "SmolLM2-135M-Instruct.Q4_1"
    assert smollm2_loaded.model.lm_head.weight is smollm2_loaded.model.model.embed_tokens.weight


def test_tokenizer_matches_transformers(smollm2_loaded, hf_tokenizer) -> None:
    ours = smollm2_loaded.tokenizer
    for text in TEXTS:
        for special in (True, False):
            assert ours.encode(text, add_special_tokens=special) == hf_tokenizer.encode(
                text, add_special_tokens=special
            ), text
        ids = hf_tokenizer.encode(text, add_special_tokens=False)
        for skip in (True, False):
            assert ours.decode(ids, skip_special_tokens=skip) == hf_tokenizer.decode(ids, skip_special_tokens=skip)
    assert ours.eos_token_ids == {hf_tokenizer.eos_token_id}
    assert ours.vocab_size == len(hf_tokenizer)


def test_chat_template_matches_transformers(smollm2_loaded, hf_tokenizer) -> None:
    for chat in CHATS:
        for gen in (True, False):
            assert smollm2_loaded.tokenizer.apply_chat_template(
                chat, add_generation_prompt=gen
            ) == hf_tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=gen)


@pytest.mark.slow
@torch.no_grad()
def test_greedy_continuation_matches_transformers(smollm2_loaded, smollm2_transformers, paged_runner) -> None:
    """16 greedy tokens through our paged cache (past EOS), checked against transformers (float32) by teacher
    forcing: one transformers forward over prompt + our tokens must pick each of our tokens as its argmax, which is
    exactly "transformers' greedy continuation equals ours", at the cost of one forward instead of sixteen."""
    tok = smollm2_loaded.tokenizer
    prompt = tok.encode(tok.apply_chat_template(CHATS[0]), add_special_tokens=False)
    runner = paged_runner(smollm2_loaded.model, block_size=16, num_blocks=8)
    logits, ours, steps = runner.step([(0, prompt)])[-1:], [], []
    for _ in range(16):
        steps.append(logits[-1])
        ours.append(int(logits[-1].argmax()))
        logits = runner.step([(0, ours[-1:])])
    ref = smollm2_transformers(torch.tensor([prompt + ours])).logits[0, len(prompt) - 1 : -1].float()  # [16, V]
    assert ref.argmax(-1).tolist() == ours
    torch.testing.assert_close(torch.stack(steps), ref, atol=2e-3, rtol=0)
    assert tok.decode(ours).startswith("The capital of France is Paris.")
