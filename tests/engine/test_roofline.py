"""The roofline arithmetic against a case worked by hand, and the published sizes of the Qwen3 models."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from engine.bench import workloads
from engine.bench.roofline import Ceilings, ModelShape, workload_bound

# hidden 8, 2 layers, 2 heads, 1 KV head, head_dim 4, intermediate 16, vocab 32, tied embeddings.
TINY = ModelShape(
    hidden_size=8,
    num_layers=2,
    num_heads=2,
    num_kv_heads=1,
    head_dim=4,
    intermediate_size=16,
    vocab_size=32,
    tie_word_embeddings=True,
)
# 1000 bytes/s and 1000 FLOP/s, so a step's time is max(bytes, flops) / 1000 s.
SLOW = Ceilings(copy_gbps=1e-6, matmul_tflops=1e-9)


def test_tiny_model_counts_by_hand() -> None:
    # q 8x8 + k,v 2 x 8x4 + o 8x8 + gate,up,down 3 x 8x16 = 64 + 64 + 64 + 384 = 576 per layer
    assert TINY.layer_matmul_params == 576
    assert TINY.layer_norm_params == 24  # 2 x hidden + q/k norm 2 x head_dim
    assert TINY.num_params == 256 + 2 * (576 + 24) + 8  # embed + layers + final norm = 1464
    assert TINY.step_weight_params == 1464  # tied: the head is the embedding, read once
    assert TINY.kv_bytes_per_token(2) == 32  # 2 layers x (K,V) x 1 head x 4 x 2 bytes
    assert TINY.attn_flops_per_pair() == 64  # 4 x 2 heads x 4 x 2 layers


def test_tiny_workload_bound_by_hand() -> None:
    # Prompts 3 and 2 tokens, outputs 2 and 1; chunks of 4 tokens, 2 sequences in flight. bf16 (2 bytes).
    # Weights 1464 x 2 = 2928 B per step. FLOPs per token 2 x 2 layers x 576 = 2304; LM head 2 x 256 = 512.
    # Prefill step 1: A's 3 tokens + B's first: bytes 2928 + 4 x 32 = 3056;
    #   causal pairs A 1+2+3 = 6, B 1 -> flops 4 x 2304 + 7 x 64 + 1 head (A done) x 512 = 10176 -> 10.176 s
    # Prefill step 2: B's second token: bytes 2928 + 32 = 2960; pairs 2; flops 2304 + 2 x 64 + 512 = 2944 -> 2.960 s
    # Decode: B's one token came from prefill; A decodes once at context 4:
    #   bytes 2928 + 4 x 32 read + 32 written = 3088; flops 2304 + 512 + 4 x 64 = 3072 -> 3.088 s
    b = workload_bound(TINY, 2, [3, 2], [2, 1], max_num_seqs=2, max_num_batched_tokens=4, ceilings=SLOW)
    assert (b.prefill_steps, b.decode_steps) == (2, 1)
    assert b.prefill_time_s == pytest.approx(10.176 + 2.960)
    assert b.decode_time_s == pytest.approx(3.088)
    assert b.bytes == 3056 + 2960 + 3088 and b.flops == 10176 + 2944 + 3072
    assert b.output_tok_per_s == pytest.approx(3 / 16.224)


def test_decode_refills_freed_slots_in_order() -> None:
    # Decode steps needed: 2, 1, 1 with two slots: step 1 runs A and B, step 2 runs A and C.
    b = workload_bound(TINY, 2, [1, 1, 1], [3, 2, 2], max_num_seqs=2, max_num_batched_tokens=64, ceilings=SLOW)
    assert b.decode_steps == 2
    one = workload_bound(TINY, 2, [1, 1, 1], [3, 2, 2], max_num_seqs=1, max_num_batched_tokens=64, ceilings=SLOW)
    assert one.decode_steps == 4


def _shipped(name: str) -> dict:
    return json.loads(resources.files("engine.model").joinpath("configs", f"{name}.json").read_text())


@pytest.mark.parametrize("name,params", [("Qwen3-0.6B", 596_049_920), ("Qwen3-4B", 4_022_468_096)])
def test_qwen3_parameter_counts(name: str, params: int) -> None:
    from engine.model.loader import get_model_config

    shape = ModelShape.from_config(_shipped(name))
    assert shape.num_params == params  # the Hub's published counts
    assert ModelShape.from_config(get_model_config(name)) == shape  # engine ModelConfig reads the same
    assert shape.kv_bytes_per_token(2) == get_model_config(name).kv_cache_bytes_per_token(2)


def test_parameter_count_matches_transformers() -> None:
    from transformers import Qwen3Config, Qwen3ForCausalLM

    for tied in (True, False):
        cfg = Qwen3Config(
            vocab_size=32,
            hidden_size=8,
            intermediate_size=16,
            num_hidden_layers=2,
            num_attention_heads=2,
            num_key_value_heads=1,
            head_dim=4,
            tie_word_embeddings=tied,
        )
        model = Qwen3ForCausalLM(cfg)
        assert ModelShape.from_config(cfg.to_dict()).num_params == sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize("name,low,high", [("Qwen3-0.6B", 30_000, 42_000), ("Qwen3-4B", 15_000, 21_000)])
def test_nano_bound_at_h200_scale(name: str, low: float, high: float) -> None:
    # The H200 measured about 4.3 TB/s of copy and 790 TFLOP/s of bf16 matmul; the bound on nano should land
    # near 36,000 (0.6B) and 17,800 (4B) output tok/s.
    w = workloads.nano()
    b = workload_bound(
        ModelShape.from_config(_shipped(name)),
        2,
        w.prompt_lens,
        w.output_lens,
        256,
        8192,
        Ceilings(copy_gbps=4300, matmul_tflops=790),
    )
    assert low < b.output_tok_per_s < high
    assert b.decode_steps == max(w.output_lens) - 1
