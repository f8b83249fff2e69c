"""Load a GGUF file (llama.cpp's format): config from its metadata, weights dequantised with `gguf.quants`, tensor
names mapped to HF's, and llama.cpp's Q/K row permutation for Llama undone exactly as transformers' GGUF loader does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch

from engine.errors import EngineError
from engine.model.config import ModelConfig
from engine.utils import require_package

# general.architecture -> HF architectures[0]
GGUF_ARCHITECTURES = {"llama": "LlamaForCausalLM", "qwen3": "Qwen3ForCausalLM"}

# Whole-model tensors, then per-block ones ("blk.N.<key>.weight|bias" -> "model.layers.N.<value>.weight|bias").
GGUF_GLOBAL_NAMES = {"token_embd": "model.embed_tokens", "output_norm": "model.norm", "output": "lm_head"}
GGUF_BLOCK_NAMES = {
    "attn_norm": "input_layernorm",
    "attn_q": "self_attn.q_proj",
    "attn_k": "self_attn.k_proj",
    "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj",
    "attn_q_norm": "self_attn.q_norm",
    "attn_k_norm": "self_attn.k_norm",
    "ffn_norm": "post_attention_layernorm",
    "ffn_gate": "mlp.gate_proj",
    "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj",
}
_BLOCK = re.compile(r"^blk\.(\d+)\.(\w+)\.(weight|bias)$")
_GLOBAL = re.compile(r"^(\w+)\.(weight|bias)$")


def open_gguf(path: Path) -> Any:
    require_package("gguf", f"reading {path.name}")
    from gguf import GGUFReader

    try:
        return GGUFReader(path)
    except (ValueError, OSError) as e:
        raise EngineError(f"{path} is not a readable GGUF file ({e})") from None


def read_metadata(reader: Any) -> dict[str, Any]:
    return {name: field.contents() for name, field in reader.fields.items()}


def gguf_config(meta: dict[str, Any], tensor_names: set[str], source: str) -> ModelConfig:
    """The HF config.json this file implies, parsed by the same code as any config.json."""
    arch = meta.get("general.architecture")
    if arch not in GGUF_ARCHITECTURES:
        raise EngineError(f"unknown architecture {arch} in {source}; supported: {', '.join(GGUF_ARCHITECTURES)}")
    if "rope_freqs.weight" in tensor_names or meta.get(f"{arch}.rope.scaling.type", "none") != "none":
        raise EngineError(f"{source}: rope scaling (rope_freqs / {arch}.rope.scaling.*) is not supported for GGUF")

    def key(name: str, default: Any = None) -> Any:
        return meta.get(f"{arch}.{name}", default)

    heads = int(key("attention.head_count"))
    kv_heads = key("attention.head_count_kv", heads)
    if isinstance(kv_heads, list):
        raise EngineError(f"{source}: per-layer KV head counts are not supported")
    hidden = int(key("embedding_length"))
    hf = {
        "architectures": [GGUF_ARCHITECTURES[arch]],
        "hidden_size": hidden,
        "num_hidden_layers": int(key("block_count")),
        "num_attention_heads": heads,
        "num_key_value_heads": int(kv_heads),
        "head_dim": int(key("attention.key_length") or key("rope.dimension_count") or hidden // heads),
        "intermediate_size": int(key("feed_forward_length")),
        "vocab_size": int(key("vocab_size") or len(meta["tokenizer.ggml.tokens"])),
        "rope_theta": float(key("rope.freq_base", 10000.0)),
        "rms_norm_eps": float(key("attention.layer_norm_rms_epsilon", 1e-6)),
        "tie_word_embeddings": "output.weight" not in tensor_names,  # llama.cpp omits a tied head
        "max_position_embeddings": int(key("context_length", 2048)),
        "bos_token_id": meta.get("tokenizer.ggml.bos_token_id"),
        "eos_token_id": meta.get("tokenizer.ggml.eos_token_id"),
        "attention_bias": "blk.0.attn_q.bias" in tensor_names,
        "torch_dtype": "bfloat16",
    }
    return ModelConfig.from_hf_dict(hf, source)


def gguf_file_config(path: Path) -> ModelConfig:
    reader = open_gguf(path)
    return gguf_config(read_metadata(reader), {t.name for t in reader.tensors}, str(path))


def hf_name(gguf_name: str) -> str | None:
    if m := _BLOCK.match(gguf_name):
        inner = GGUF_BLOCK_NAMES.get(m.group(2))
        return None if inner is None else f"model.layers.{m.group(1)}.{inner}.{m.group(3)}"
    if m := _GLOBAL.match(gguf_name):
        outer = GGUF_GLOBAL_NAMES.get(m.group(1))
        return None if outer is None else f"{outer}.{m.group(2)}"
    return None


def unpermute_rows(w: torch.Tensor, n_head: int) -> torch.Tensor:
    """Undo llama.cpp's `permute` of Llama q/k rows (interleaved rotary pairs -> HF's rotate-half halves)."""
    half = w.shape[0] // n_head // 2
    return w.reshape(n_head, half, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def gguf_tensors(reader: Any, config: ModelConfig, source: str) -> Iterator[tuple[str, torch.Tensor]]:
    """(HF name, float32 tensor) for every tensor of the file, dequantised from Q4_0/Q4_1/Q8_0/F16/BF16/F32/..."""
    from gguf.quants import dequantize

    for t in reader.tensors:
        name = hf_name(t.name)
        if name is None:
            raise EngineError(f"{source}: tensor {t.name} has no place in {config.hf_architecture}")
        try:
            values = dequantize(t.data, t.tensor_type)
        except NotImplementedError:
            raise EngineError(
                f"{source}: tensor {t.name} has type {t.tensor_type.name}, which gguf cannot dequantise"
            ) from None
        w = torch.from_numpy(np.array(values, dtype=np.float32))  # a copy: F32 data is a read-only memmap
        if config.architecture == "llama" and ".attn_q." in t.name:
            w = unpermute_rows(w, config.num_attention_heads)
        elif config.architecture == "llama" and ".attn_k." in t.name:
            w = unpermute_rows(w, config.num_key_value_heads)
        yield name, w
