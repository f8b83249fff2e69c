"""Llama (SmolLM2, the embedded default model, is one: tied embeddings, GQA, rope_theta 1e5)."""

from __future__ import annotations

from engine.model.decoder import DecoderForCausalLM


class LlamaForCausalLM(DecoderForCausalLM):
    qk_norm = False
