"""A tiny Qwen3 config (2 layers, 128 hidden, 512 vocab): what the kernel tests, the CUDA-graph tests and the
device tools build when they need a real decoder in seconds. One definition, so they all check the same model."""

from __future__ import annotations

from typing import Any

TINY_QWEN3: dict[str, Any] = dict(
    architectures=["Qwen3ForCausalLM"],
    model_type="qwen3",
    vocab_size=512,
    hidden_size=128,
    intermediate_size=128,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    head_dim=64,
    max_position_embeddings=256,
    rms_norm_eps=1e-6,
    rope_theta=10000.0,
    tie_word_embeddings=False,
    torch_dtype="float32",
    bos_token_id=1,
    eos_token_id=2,
)
