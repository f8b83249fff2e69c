"""Qwen3 dense: the Llama decoder plus RMSNorm over each head of q and k before rotary; no QKV bias."""

from __future__ import annotations

from engine.model.decoder import DecoderForCausalLM


class Qwen3ForCausalLM(DecoderForCausalLM):
    qk_norm = True
