"""The decoder-only transformer shared by Llama and Qwen3 (they differ only in Qwen3's per-head q/k norm).

Module and parameter names follow HF (`model.layers.N.self_attn.qkv_proj` packs HF's q/k/v_proj), so loading a
checkpoint is the name map in `packed_modules_mapping` plus `weights.load_weights`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import torch
from torch import nn

from engine.errors import EngineError
from engine.kernels.attention_metadata import AttentionMetadata
from engine.model.attention import Attention, AttentionKernels
from engine.model.config import ModelConfig
from engine.model.embedding import LMHead, VocabEmbedding
from engine.model.linear import Linear
from engine.model.mlp import GatedMLP
from engine.model.rms_norm import RMSNorm
from engine.model.rotary import RotaryEmbedding
from engine.model.weights import load_weights


class DecoderLayer(nn.Module):
    def __init__(self, config: ModelConfig, qk_norm: bool) -> None:
        super().__init__()
        self.input_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.self_attn = Attention(config, qk_norm)
        self.post_attention_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.mlp = GatedMLP(config.hidden_size, config.intermediate_size)

    def forward(
        self,
        positions: torch.Tensor,  # [T] int64
        h: torch.Tensor,  # [T, H]: the previous layer's MLP output (layer 0: the embedding)
        residual: torch.Tensor | None,  # [T, H]: the residual stream before h is added; None in layer 0
        cos_sin_cache: torch.Tensor,
        attn: AttentionMetadata,
        kv_cache: torch.Tensor | None,
    ) -> tuple[torch.Tensor, torch.Tensor]:  # (this layer's MLP output, residual stream before it)
        # Each residual add rides in the RMSNorm after it, and the norm in the projection after it where the backend
        # fuses them (a small decode batch on Triton: one GEMV kernel, gate_up's with the SiLU * up in it too);
        # elsewhere a norm kernel, then the GEMM.
        attn_in, mlp_in = self.input_layernorm, self.post_attention_layernorm
        qkv, residual = self.self_attn.qkv_proj.after_norm(attn_in.weight, attn_in.eps, h, residual)
        h = self.self_attn.from_qkv(positions, qkv, cos_sin_cache, attn, kv_cache)
        act, residual = self.mlp.gate_up_proj.after_norm_act(mlp_in.weight, mlp_in.eps, h, residual)
        return self.mlp.down_proj(act), residual


class DecoderModel(nn.Module):
    def __init__(self, config: ModelConfig, qk_norm: bool) -> None:
        super().__init__()
        self.embed_tokens = VocabEmbedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(DecoderLayer(config, qk_norm) for _ in range(config.num_hidden_layers))
        self.norm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.rotary_emb = RotaryEmbedding(
            config.head_dim, config.max_position_embeddings, config.rope_theta, config.rope_scaling
        )

    def forward(
        self, input_ids: torch.Tensor, positions: torch.Tensor, attn: AttentionMetadata, kv_caches: list[torch.Tensor]
    ) -> torch.Tensor:
        h, residual = self.embed_tokens(input_ids), None
        for i, layer in enumerate(self.layers):
            h, residual = layer(
                positions, h, residual, self.rotary_emb.cos_sin_cache, attn, kv_caches[i] if kv_caches else None
            )
        return self.norm(h, residual)[0]


class DecoderForCausalLM(nn.Module):
    qk_norm: bool = False
    # checkpoint module name -> (our packed module, shard id); everything else maps one-to-one by name.
    packed_modules_mapping: dict[str, tuple[str, object]] = {
        "q_proj": ("qkv_proj", "q"),
        "k_proj": ("qkv_proj", "k"),
        "v_proj": ("qkv_proj", "v"),
        "gate_proj": ("gate_up_proj", 0),
        "up_proj": ("gate_up_proj", 1),
    }

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.model = DecoderModel(config, self.qk_norm)
        self.lm_head = LMHead(config.vocab_size, config.hidden_size)
        if config.tie_word_embeddings:
            self.lm_head.weight = self.model.embed_tokens.weight
        # torch.compile of self.model.forward (ENGINE_COMPILE=1); a plain attribute, not a submodule.
        self._compiled_forward: Callable[..., torch.Tensor] | None = None

    def forward(
        self,
        input_ids: torch.Tensor,  # [T] int64
        positions: torch.Tensor,  # [T] int64
        attn: AttentionMetadata,
        kv_caches: list[torch.Tensor],  # one per layer; [] runs without a cache (every token is new)
    ) -> torch.Tensor:  # hidden [T, H]
        if kv_caches and len(kv_caches) != len(self.model.layers):
            raise EngineError(f"got {len(kv_caches)} KV caches for a model of {len(self.model.layers)} layers")
        if self._compiled_forward is not None and kv_caches:  # the profiling run (no cache) is not worth a compile
            return self._compiled_forward(input_ids, positions, attn, kv_caches)
        return self.model(input_ids, positions, attn, kv_caches)

    def compute_logits(self, hidden: torch.Tensor) -> torch.Tensor:  # [N, H] -> [N, V] in the model's dtype
        return self.lm_head(hidden)

    def set_attention_kernels(self, kernels: AttentionKernels) -> None:
        """Every attention block runs `kernels`; every norm, MLP and linear layer runs `kernels.layers`; the compile backend also
        wraps the decoder in torch.compile (compiled lazily, at the first forward with a KV cache)."""
        for layer in self.model.layers:
            layer.self_attn.kernels = kernels
        for module in self.modules():
            if isinstance(module, (RMSNorm, GatedMLP, Linear)):
                module.ops = kernels.layers
        self._compiled_forward = None
        if kernels.compile_model:
            # dynamic: one graph for every token count (buckets, prefill chunks), not one per shape.
            self._compiled_forward = torch.compile(self.model.forward, dynamic=True, fullgraph=True)

    def load_weights(self, weights: Iterable[tuple[str, torch.Tensor]], source: str) -> None:
        load_weights(self, weights, source)
